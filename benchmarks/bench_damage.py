"""Throughput of the full CoE5 damage pipeline (issue: CoE5 damage).

Hits per second through C-3 steps 1-8 against the knight (armor 3, shield 1),
next to the raw OED kernel of the foundation benchmark in the same run (the
32-lane sampler; the older scalar level-table kernel is shown too).  Every
kernel writes int16.  The pikeman's d5 runs on the lanes
(:mod:`kernels.coe5_damage_lanes`); the knight's lance rolls OED(7), which the
lanes cannot do exactly, so it takes the scalar pipeline.
Prints a markdown table and writes ``benchmarks/results/damage.md``.
Run: ``python benchmarks/bench_damage.py [--n 20000000] [--repeats 7]``.
"""

from __future__ import annotations

import argparse

import numba
import numpy as np
from _common import best_rate, write_table

from kernels.coe5_dice import oed_level_table
from kernels.oed_lanes import oed_lane_params, sample_oed_lanes
from kernels.samplers import sample_oed_table
from montecarlo.coe5.damage import damage
from montecarlo.coe5.units import load_units
from montecarlo.seeding import DEFAULT_CHUNK, chunk_states

PAIRS = [("pikeman", "knight"), ("knight.lance", "knight"), ("knight.lance", "wraith")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000_000, help="hits per run")
    parser.add_argument("--repeats", type=int, default=7, help="timings per case; best is kept")
    args = parser.parse_args()
    n, repeats = args.n, args.repeats
    threads = numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(threads)
    states = chunk_states(np.random.SeedSequence(7), 0, -(-n // DEFAULT_CHUNK))
    out = np.empty(n, dtype=np.int16)
    lanes = oed_lane_params(5)
    raw = best_rate(lambda: sample_oed_lanes(states, DEFAULT_CHUNK, lanes, out), n, repeats)
    table, levels = oed_level_table(5)
    scalar = best_rate(
        lambda: sample_oed_table(states, DEFAULT_CHUNK, 5, table, levels, out), n, repeats
    )
    rows = [
        ("raw OED(5) kernel (foundation: 32 SIMD lanes)", raw),
        ("raw OED(5) scalar level-table kernel", scalar),
    ]
    roster = load_units()
    for attacker, defender in PAIRS:
        dist = damage(attacker, defender, roster=roster)
        fill = dist._sampler
        rate = best_rate(lambda f=fill: f(states, DEFAULT_CHUNK, out), n, repeats)
        rows.append((f"pipeline: {dist.name}", rate))
    lines = [
        f"Damage-pipeline hits per second; {n:,} hits per run, best of {repeats}, "
        f"{threads} threads.",
        "",
        "| kernel | hits/s | ÷ raw OED |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {r:,.0f} | {r / raw:.2f} |" for name, r in rows]
    knight = rows[2][1] / raw
    lines += ["", f"- pikeman → knight ÷ raw OED kernel: **{knight:.2f}** (target ≥ 0.25)"]
    write_table("damage", lines)


if __name__ == "__main__":
    main()
