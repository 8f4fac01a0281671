"""Peak memory against trial count: a run's memory must not grow with its length (issue 13).

Plays ``montecarlo matchup militia:10 knight:3`` (one thread, seed 13) at
several trial counts, each as a whole process, and reads the process's peak
resident set size (``ru_maxrss``).  The outcome counts and histograms are
aggregated per chunk, so the peak should be the same at every count: the
table gives each peak and the growth per million battles of a straight-line
fit.  Writes ``benchmarks/results/memory.md``.

Run: ``python benchmarks/bench_memory.py`` (10^5, 10^6 and 3·10^6 battles,
about two minutes on one core); ``--trials 100000000`` adds a count (10^8
battles take about half an hour on one core).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from _common import write_table

CODE = """
import json, resource, sys, time
from montecarlo.coe5.battle import matchup
t0 = time.perf_counter()
res = matchup("militia:10", "knight:3", trials=int(sys.argv[1]), seed=13, threads=1,
              progress=False)
print(json.dumps({"n": res.n, "seconds": time.perf_counter() - t0,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "attacker": res.counts["attacker"]}))
"""


def peak(trials: int) -> dict:
    """Peak RSS (MiB), wall time and outcome of one run of ``trials`` battles, as a process."""
    out = subprocess.run([sys.executable, "-c", CODE, str(trials)], check=True,
                         capture_output=True, text=True, env=dict(os.environ)).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, action="append", default=[],
                        help="another trial count to run (repeat)")  # fmt: skip
    args = parser.parse_args()
    counts = sorted({100_000, 1_000_000, 3_000_000, *args.trials})
    peak(1_000)  # compile (or load) the kernel once, outside the table
    rows = []
    for n in counts:
        r = peak(n)
        rows.append(r)
        print(f"{n:>12,} battles: peak {r['peak_mib']:.1f} MiB, {r['seconds']:.1f} s", flush=True)
    n = np.array([r["n"] for r in rows], float)
    mib = np.array([r["peak_mib"] for r in rows])
    slope = np.polyfit(n / 1e6, mib, 1)[0]
    lines = [
        "# Peak memory against trial count",
        "",
        f"`python benchmarks/bench_memory.py`, {time.strftime('%Y-%m-%d')}: "
        "`matchup('militia:10', 'knight:3', threads=1)`, each count as a whole process; "
        "peak resident set size (`ru_maxrss`).",
        "",
        "| battles | peak RSS (MiB) | seconds | battles/s |",
        "|---:|---:|---:|---:|",
        *[
            f"| {r['n']:,} | {r['peak_mib']:.1f} | {r['seconds']:.1f} | "
            f"{r['n'] / r['seconds']:,.0f} |"
            for r in rows
        ],
        "",
        f"Straight-line fit: {slope:+.3f} MiB per million battles. A run of 10^8 battles "
        "(`memory_1e8.md`) kept a flat resident set for 35 minutes.",
    ]
    write_table("memory", lines)


if __name__ == "__main__":
    main()
