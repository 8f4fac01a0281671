"""``montecarlo warm`` compiles every kernel entry point ahead of use."""

from __future__ import annotations

import importlib
import json
import pkgutil

from numba.core.dispatcher import Dispatcher

import kernels
from kernels.jit import Helper
from montecarlo.cli import main
from montecarlo.warm import STEPS, warm


def _entry_points() -> dict[str, Dispatcher]:
    """The kernels' compiled functions that Python calls (neither helpers nor inlined)."""
    found = {}
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"kernels.{info.name}")
        for name, value in vars(module).items():
            if not isinstance(value, Dispatcher) or value.py_func.__module__ != module.__name__:
                continue
            if not isinstance(value, Helper) and value.targetoptions.get("inline") != "always":
                found[f"{info.name}.{name}"] = value
    return found


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
    points = _entry_points()
    assert NOT_FOR_USERS <= set(points)
    missing = [name for name, d in points.items() if not d.signatures and name not in NOT_FOR_USERS]
    assert missing == []


def test_the_warm_command_reports_each_step(capsys):
    assert main(["warm", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["step"] for s in out["steps"]] == [name for name, _ in STEPS]
    assert out["seconds"] >= sum(s["seconds"] for s in out["steps"]) - 1e-9
