"""Battles per second of the CoE5 battle kernel (issue: CoE5 battles).

For three scenarios, in one run: the kernel compiled at 1 and at all threads,
and the very same kernel as plain Python (``NUMBA_DISABLE_JIT=1`` in a
subprocess, on a small trial count).  Also times ``precision=0.005`` on
10 militia vs 3 knights.  Writes ``benchmarks/results/battle.md``.
Run: ``python benchmarks/bench_battle.py``.
"""

from __future__ import annotations

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


def python_rate(att: str, dfd: str, trials: int) -> float:
    call = f"matchup({att!r}, {dfd!r}, trials=trials, seed=1, progress=False)"
    return plain_python_rate("from montecarlo.coe5.battle import matchup", call, trials)


def main() -> None:
    all_threads = numba.config.NUMBA_NUM_THREADS
    lines = [
        f"CoE5 battles per second (best of 2); {all_threads} threads available.",
        "",
        "| scenario | plain Python | Numba, 1 thread | Numba, all threads | "
        "÷ Python | thread scaling |",
        "|---|---:|---:|---:|---:|---:|",
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
    write_table("battle", lines)


if __name__ == "__main__":
    main()
