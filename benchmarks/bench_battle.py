"""Battles per second of the CoE5 battle kernel (issue: CoE5 battles).

For three scenarios, in one run: the kernel compiled at 1 and at all threads,
and the very same kernel as plain Python (``NUMBA_DISABLE_JIT=1`` in a
subprocess, on a small trial count).  Also times ``precision=0.005`` on
10 militia vs 3 knights.  Writes ``benchmarks/results/battle.md``.
Run: ``python benchmarks/bench_battle.py``.

With ``--baseline DIR`` (another checkout, e.g. ``main``'s) it also times that
tree's kernel on one thread, in a subprocess, alternating with this one, and
reports the ratio: a before/after check in the same run on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numba
from _common import plain_python_rate, write_table

from montecarlo.coe5.battle import matchup

SCENARIOS = [
    ("pikeman vs pikeman, 1v1", "pikeman:1", "pikeman:1", 40_000, 40),
    ("10 militia vs 3 knights", "militia:10", "knight:3", 20_000, 20),
    (
        "mixed 50 vs 50 with archers",
        "militia:30,archer:20",
        "heavy infantry:30,archer:20",
        4_000,
        2,
    ),
]


def rate(att: str, dfd: str, trials: int, threads: int) -> float:
    matchup(att, dfd, trials=256, seed=0, threads=threads, progress=False)  # warm up
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        matchup(att, dfd, trials=trials, seed=1, threads=threads, progress=False)
        best = min(best, time.perf_counter() - t0)
    return trials / best


def baseline_rate(tree: str, att: str, dfd: str, trials: int) -> float:
    """One-thread battles per second of the kernel in checkout ``tree`` (best of 2)."""
    code = (
        "import json, time\n"
        "from montecarlo.coe5.battle import matchup\n"
        f"matchup({att!r}, {dfd!r}, trials=256, seed=0, threads=1, progress=False)\n"
        "best = float('inf')\n"
        "for _ in range(2):\n"
        "    t0 = time.perf_counter()\n"
        f"    matchup({att!r}, {dfd!r}, trials={trials}, seed=1, threads=1, progress=False)\n"
        "    best = min(best, time.perf_counter() - t0)\n"
        f"print(json.dumps({trials} / best))\n"
    )
    env = dict(os.environ, PYTHONPATH=tree, PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def python_rate(att: str, dfd: str, trials: int) -> float:
    call = f"matchup({att!r}, {dfd!r}, trials=trials, seed=1, progress=False)"
    return plain_python_rate("from montecarlo.coe5.battle import matchup", call, trials)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout to compare with, one thread")
    args = parser.parse_args()
    all_threads = numba.config.NUMBA_NUM_THREADS
    lines = [
        f"CoE5 battles per second (best of 2); {all_threads} threads available.",
        "",
        "| scenario | plain Python | Numba, 1 thread | Numba, all threads | "
        "÷ Python | thread scaling |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    versus = [
        "",
        f"Against the baseline checkout `{args.baseline}`, one thread, alternating runs:",
        "",
        "| scenario | baseline | this tree | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name, att, dfd, trials, py_trials in SCENARIOS:
        py = python_rate(att, dfd, py_trials)
        one = rate(att, dfd, trials, 1)
        many = rate(att, dfd, trials, all_threads)
        lines.append(
            f"| {name} | {py:,.1f} | {one:,.0f} | {many:,.0f} | {many / py:,.0f}× | "
            f"{many / one:.2f}× |"
        )
        print(lines[-1], flush=True)
        if args.baseline:
            base = max(baseline_rate(args.baseline, att, dfd, trials) for _ in range(2))
            ours = max(one, rate(att, dfd, trials, 1))
            versus.append(f"| {name} | {base:,.0f} | {ours:,.0f} | {ours / base:.2f}× |")
            print(versus[-1], flush=True)
    t0 = time.perf_counter()
    r = matchup("militia:10", "knight:3", precision=0.005, seed=1, progress=False)
    elapsed = time.perf_counter() - t0
    t0 = time.perf_counter()
    r2 = matchup("pikeman:10", "knight:3", precision=0.005, seed=1, progress=False)
    elapsed2 = time.perf_counter() - t0
    t0 = time.perf_counter()
    r3 = matchup("pikeman:1", "pikeman:1", precision=0.005, seed=1, progress=False)
    elapsed3 = time.perf_counter() - t0
    lines += [
        "",
        f"- `precision=0.005`, pikeman vs pikeman (a coin flip, the costliest case): "
        f"{r3.n:,} battles in {elapsed3:.2f} s.",
        f"- `precision=0.005`, 10 militia vs 3 knights: {r.n:,} battles in {elapsed:.2f} s "
        f"(attacker wins {r.win_rate:.2%}).",
        f"- `precision=0.005`, 10 pikemen vs 3 knights: {r2.n:,} battles in {elapsed2:.2f} s "
        f"(attacker wins {r2.win_rate:.2%}).",
        "- Targets: ≥ 100× plain Python on every scenario; ≥ 1.7× thread scaling.",
    ]
    if args.baseline:
        lines += versus
    write_table("battle", lines)


if __name__ == "__main__":
    main()
