"""Fights per second of the Shared†Fantasia fight kernel (issue: SF fights).

A 4-vs-4 open-field fight, compiled at 1 and all threads, against the very
same kernel as plain Python (``NUMBA_DISABLE_JIT=1`` in a subprocess, on a
small trial count).  Writes ``benchmarks/results/sf.md``.
Run: ``python benchmarks/bench_sf.py``.
"""

from __future__ import annotations

import time

import numba
from _common import plain_python_rate, write_table

from montecarlo.sf.fights import fight

SCENARIOS = [
    ("4 vs 4, open field", "warrior:1,knight:1,archer:1,mage:1", "goblin:2,orc:1,wolf:1", "open"),
    ("4 vs 4, corridor", "warrior:1,knight:1,archer:1,priest:1", "orc:2,goblin:2", "corridor"),
]


def rate(a: str, b: str, bf: str, trials: int, threads: int) -> float:
    fight(a, b, trials=256, seed=0, battlefield=bf, threads=threads, progress=False)
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        fight(a, b, trials=trials, seed=1, battlefield=bf, threads=threads, progress=False)
        best = min(best, time.perf_counter() - t0)
    return trials / best


def python_rate(a: str, b: str, bf: str, trials: int) -> float:
    call = f"fight({a!r}, {b!r}, trials=trials, seed=1, battlefield={bf!r}, progress=False)"
    return plain_python_rate("from montecarlo.sf.fights import fight", call, trials)


def main() -> None:
    threads = numba.config.NUMBA_NUM_THREADS
    lines = [
        f"Shared†Fantasia fights per second (best of 2); {threads} threads available.",
        "",
        "| scenario | plain Python | Numba, 1 thread | Numba, all threads | ÷ Python | "
        "thread scaling |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, a, b, bf in SCENARIOS:
        py = python_rate(a, b, bf, 200)
        # About a second on one thread, so the driver's paced calls reach their size.
        one = rate(a, b, bf, 300_000, 1)
        many = rate(a, b, bf, 300_000, threads)
        lines.append(
            f"| {name} | {py:,.0f} | {one:,.0f} | {many:,.0f} | {many / py:,.0f}× | "
            f"{many / one:.2f}× |"
        )
        print(lines[-1], flush=True)
    lines += ["", "- Target: ≥ 100× plain Python for the 4-vs-4 open-field fight."]
    write_table("sf", lines)


if __name__ == "__main__":
    main()
