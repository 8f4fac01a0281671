"""Analytics at scale (issue: analytics): a 10×10 round robin and the Dask engine.

1. A 10×10 round robin of 10-vs-10 battles at ``precision=0.01``, local engine.
2. The same sweep on a 2-worker Dask ``LocalCluster``; its wall time is
   compared with the local engine's (target: within 1.5×), and its rows must
   equal the local rows.
Writes ``benchmarks/results/analytics.md``.  Run: ``python benchmarks/bench_analytics.py``.
"""

from __future__ import annotations

import time

import numba
import pandas as pd
from _common import write_table

from montecarlo.roundrobin import round_robin
from montecarlo.sweeps import sweep

UNITS = [
    "militia",
    "pikeman",
    "archer",
    "heavy infantry",
    "knight",
    "skeleton",
    "ghoul",
    "assassin",
    "giant spider",
    "wraith",
]


def main() -> None:
    from dask.distributed import Client, LocalCluster

    threads = numba.config.NUMBA_NUM_THREADS
    round_robin(UNITS[:2], counts=10, trials=512, seed=0, progress=False)  # warm the caches
    t0 = time.perf_counter()
    rr = round_robin(UNITS, counts=10, precision=0.01, seed=1, progress=False)
    t_rr = time.perf_counter() - t0
    battles = int(rr.rows["trials"].sum())
    grid = [
        {"attacker": a, "defender": d}
        for a, d in zip(rr.rows["attacker"], rr.rows["defender"], strict=True)
    ]
    t0 = time.perf_counter()
    local = sweep(grid, precision=0.01, seed=1, progress=False)
    t_local = time.perf_counter() - t0
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        sweep(grid[:2], trials=512, seed=0, engine=client, progress=False)  # warm the workers
        t0 = time.perf_counter()
        remote = sweep(grid, precision=0.01, seed=1, engine=client, threads=1, progress=False)
        t_dask = time.perf_counter() - t0
    cols = [c for c in local.columns if c != "seconds"]
    same = local[cols].equals(remote[cols])
    lines = [
        f"Analytics at scale; {threads} cores, Numba threads per matchup: all (local), "
        "1 per worker (Dask).",
        "",
        "| run | matchups | battles | wall time | battles/s |",
        "|---|---:|---:|---:|---:|",
        f"| 10×10 round robin, 10 vs 10, precision 0.01 | {len(rr.rows)} | {battles:,} | "
        f"{t_rr:.1f} s | {battles / t_rr:,.0f} |",
        f"| same sweep, local engine | {len(local)} | {battles:,} | {t_local:.1f} s | "
        f"{battles / t_local:,.0f} |",
        f"| same sweep, Dask LocalCluster (2 workers) | {len(remote)} | {battles:,} | "
        f"{t_dask:.1f} s | {battles / t_dask:,.0f} |",
        "",
        f"- Dask ÷ local wall time: **{t_dask / t_local:.2f}×** (target ≤ 1.5×)",
        f"- Dask rows equal the local rows: **{same}**",
        f"- Largest 95% half-width in the matrix: {rr.halfwidth.to_numpy().max():.4f}",
    ]
    with pd.option_context("display.width", 200, "display.float_format", "{:.2f}".format):
        print(rr.matrix)
    write_table("analytics", lines)


if __name__ == "__main__":
    main()
