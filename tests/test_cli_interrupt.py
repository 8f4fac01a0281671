"""Issue 14: Ctrl-C keeps everything finished, says partial, and exits 130, in every mode.

A Ctrl-C is sent from inside the run (after a given number of kernel calls),
so the tests are deterministic; one subprocess test measures the real stop
latency of a ``--precision`` run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import montecarlo as mc
import montecarlo.coe5.battle as battle
import montecarlo.sf.fights as fights
from montecarlo import driver
from montecarlo.cli import main
from montecarlo.results_store import ResultStore

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def ctrl_c_after(monkeypatch):
    """``ctrl_c_after(k)``: send SIGINT to this process at the k-th kernel call from now."""
    calls = {"n": 0, "at": None}
    for module in (driver, battle, fights):
        original = module.chunk_states

        def counted(*args, _original=original, **kwargs):
            calls["n"] += 1
            if calls["n"] == calls["at"]:
                os.kill(os.getpid(), signal.SIGINT)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, "chunk_states", counted)

    def arm(k: int) -> None:
        calls["at"] = calls["n"] + k

    return arm


def test_fixed_trials_roll_keeps_finished_chunks(ctrl_c_after, capsys):
    ctrl_c_after(3)
    assert main(["roll", "1-5", "--trials", "100000000000", "--seed", "1", "--threads", "1"]) == 130
    out = capsys.readouterr().out
    assert "interrupted: partial result" in out and "seed 1" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["matchup", "pikeman:10", "pikeman:10", "--precision", "0.0005", "--seed", "1"],
        ["matchup", "pikeman:10", "pikeman:10", "--trials", "10000000", "--seed", "1"],
        ["sf", "fight", "warrior:2", "goblin:3", "--trials", "10000000", "--seed", "1"],
        ["damage", "knight", "troll", "--trials", "1000000000", "--seed", "1"],
        ["resist", "10", "--trials", "100000000000", "--seed", "1"],
        ["sf", "attack", "fencer", "orc", "--trials", "100000000", "--seed", "1"],
        [
            "compare",
            "pikeman:10",
            "pikeman:10",
            "--variant",
            "pikeman.hp=+1",
            "--trials",
            "10000000",
            "--seed",
            "1",
        ],
        [
            "sf",
            "compare",
            "warrior:2",
            "goblin:3",
            "--variant",
            "goblin.hp=+1",
            "--trials",
            "10000000",
            "--seed",
            "1",
        ],
        ["sensitivity", "pikeman:5", "knight:1", "--trials", "10000000", "--seed", "1"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_interrupted_commands_print_partial_and_exit_130(argv, ctrl_c_after, capsys):
    ctrl_c_after(4)
    assert main(argv) == 130
    out = capsys.readouterr().out
    assert "partial" in out.lower() and "seed 1" in out


def test_precision_run_stops_at_a_chunk_boundary(ctrl_c_after):
    ctrl_c_after(3)
    r = mc.matchup("pikeman:10", "pikeman:10", precision=0.0005, seed=1, progress=False,
                   threads=1)  # fmt: skip
    assert r.partial
    # Finished calls count, the stop is between calls: a whole number of chunks.
    assert r.n % battle.BATTLE_CHUNK == 0 and r.n > 0
    # What was kept is exactly the start of the uninterrupted run's stream.
    same = mc.matchup("pikeman:10", "pikeman:10", trials=r.n, seed=1, progress=False)
    assert same.counts == r.counts


def _sweep(tmp_path, **kw):
    grid = [("pikeman:3", "militia:3"), ("knight:1", "pikeman:4"), ("militia:5", "troll:1")]
    return mc.sweep(grid, trials=16384, seed=3, out=str(tmp_path / "rows.csv"),
                    progress=False, threads=1, **kw)  # fmt: skip


def _ctrl_c_in_second_matchup(monkeypatch, ctrl_c_after):
    from montecarlo import sweeps

    original, seen = sweeps.run_spec, []

    def run_spec(*args, **kwargs):
        seen.append(1)
        if len(seen) == 2:
            ctrl_c_after(2)  # the second kernel call of the second matchup
        return original(*args, **kwargs)

    monkeypatch.setattr(sweeps, "run_spec", run_spec)


def test_sweep_stops_never_stores_the_cut_row_and_resumes_exactly(
    ctrl_c_after, tmp_path, monkeypatch
):
    full = mc.sweep([("pikeman:3", "militia:3"), ("knight:1", "pikeman:4"),
                     ("militia:5", "troll:1")], trials=16384, seed=3, progress=False)  # fmt: skip
    _ctrl_c_in_second_matchup(monkeypatch, ctrl_c_after)
    with driver.stop_on_ctrl_c():
        cut = _sweep(tmp_path)
    assert cut.attrs["partial"] and cut.attrs["missing"] >= 2
    assert cut["partial"].iloc[-1], "the matchup in flight is shown, marked partial"
    stored = ResultStore(tmp_path / "rows.csv").read()
    assert not stored["partial"].any()
    assert len(stored) == len(cut) - 1, "the cut matchup is not written as complete"
    resumed = _sweep(tmp_path)
    assert not resumed.attrs["partial"]
    cols = ["key", "trials", "n_attacker", "n_defender", "n_draw"]
    pd.testing.assert_frame_equal(resumed[cols], full[cols])
    assert len(ResultStore(tmp_path / "rows.csv").read()) == 3


def test_sweep_cli_exits_130_and_says_how_to_resume(ctrl_c_after, capsys, tmp_path, monkeypatch):
    _ctrl_c_in_second_matchup(monkeypatch, ctrl_c_after)
    out_csv = tmp_path / "rows.csv"
    argv = ["sweep", "examples/grid.csv", "--trials", "8192", "--seed", "2", "--threads", "1",
            "--out", str(out_csv)]  # fmt: skip
    assert main(argv) == 130
    out = capsys.readouterr().out
    assert "interrupted: partial result" in out and "rerun the same command" in out
    assert "seed 2" in out


def test_round_robin_keeps_played_cells(ctrl_c_after, capsys, tmp_path):
    ctrl_c_after(12)  # a few calls per cell (fixed runs grow their calls): mid-table
    png = tmp_path / "rr.png"
    argv = ["round-robin", "militia", "pikeman", "knight", "--trials", "8192", "--seed", "1",
            "--threads", "1", "--plot", str(png)]  # fmt: skip
    assert main(argv) == 130
    out = capsys.readouterr().out
    assert "interrupted: partial result" in out and "NaN" in out and png.is_file()


def test_solver_stops_with_its_probes(ctrl_c_after, capsys):
    ctrl_c_after(4)  # in the fourth count tried
    assert main(["required", "militia", "troll:1", "--seed", "1", "--threads", "1"]) == 130
    out = capsys.readouterr().out
    assert "Interrupted: partial result" in out and "below" in out


def test_report_writes_the_finished_sections_marked_partial(ctrl_c_after, capsys, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'seed = 1\n[[matchup]]\nattacker = "militia:5"\ndefender = "troll:1"\ntrials = 2048\n'
        '[[matchup]]\nattacker = "pikeman:10"\ndefender = "pikeman:10"\ntrials = 10000000\n'
    )
    ctrl_c_after(20)
    assert main(["report", str(spec), "-o", str(tmp_path / "rep")]) == 130
    assert "partial report written" in capsys.readouterr().out
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "PARTIAL REPORT" in page and "Militia" in page
    assert not list((tmp_path / "rep").glob("*.tmp"))


def test_precision_stop_latency_in_a_real_process():
    """Send a real SIGINT to `montecarlo matchup --precision`; it must stop well under 1 s."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "montecarlo", "matchup", "pikeman:10", "pikeman:10",
           "--precision", "0.0002", "--seed", "1", "--progress"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    # The bar appears once battles are being played (after imports and compiles).
    seen = ""
    deadline = time.monotonic() + 120
    while "battle/s" not in seen and time.monotonic() < deadline:
        seen += proc.stderr.read(1)
    time.sleep(1.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    latency = time.perf_counter() - sent
    print(f"stop latency, process exit included: {latency:.3f} s")
    assert proc.returncode == 130
    assert "INTERRUPTED, partial result" in out
    # The chunk loop stops within ~0.1 s; printing and interpreter exit add the rest.
    assert latency < 3.0
