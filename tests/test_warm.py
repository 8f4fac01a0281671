"""``montecarlo warm`` compiles every kernel entry point ahead of use."""

from __future__ import annotations

import json

from montecarlo.cli import main
from montecarlo.warm import STEPS, warm
from tests.helpers import kernel_entry_points

#: Entry points no command uses: the reference battle kernel (an oracle of the tests),
#: the raw generator and the alternative OED samplers the benchmarks measure.
NOT_FOR_USERS = {
    "coe5_battle_ref.run_battles",
    "rng.fill_words",
    "rng.fill_bounded",
    "oed_lanes.fill_words_lanes",
    "oed_lanes.replay_oed_lanes",
    "samplers.sample_oed_single",
    "samplers.sample_oed_inversion",
}


def test_warm_compiles_every_entry_point():
    table = warm(progress=False)
    assert table["step"].tolist() == [name for name, _ in STEPS]
    assert (table["seconds"] >= 0).all()
    points = kernel_entry_points()
    assert NOT_FOR_USERS <= set(points)
    missing = [name for name, d in points.items() if not d.signatures and name not in NOT_FOR_USERS]
    assert missing == []


def test_the_warm_command_reports_each_step(capsys):
    assert main(["warm", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["step"] for s in out["steps"]] == [name for name, _ in STEPS]
    assert out["seconds"] >= sum(s["seconds"] for s in out["steps"]) - 1e-9
