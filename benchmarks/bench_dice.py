"""Throughput of OED d5 rolls: our kernel against its baselines (issue: foundation).

Measured in one run, rolls per second:

(a) a pure-Python loop (``random.randrange``);
(b) vectorized NumPy: re-rolling the maxima (C-1.1) into int64 and into int16,
    and C-1.2's closed form; the ratio is taken against the fastest of them;
(c) Numba with the legacy ``np.random`` inside ``prange``;
(d) our OED kernel, the 32-lane sampler of :mod:`kernels.oed_lanes` writing
    int16 rolls, on 1 thread and all threads, next to the older scalar kernels;
(e) the raw generator alone, 64-bit words, as the physical limit: the same
    32-lane xoshiro256** layout, and the scalar one-stream-per-chunk layout.

Prints a markdown table and writes it to ``benchmarks/results/dice.md``.
Run: ``python benchmarks/bench_dice.py [--n 50000000] [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import platform
import random
from collections.abc import Callable

import numba
import numpy as np
from _common import best_rate, write_table
from numba import njit, prange

from kernels.coe5_dice import oed_level_table
from kernels.oed_lanes import fill_words_lanes, oed_lane_params, sample_oed_lanes
from kernels.rng import fill_words
from kernels.samplers import sample_oed_inversion, sample_oed_single, sample_oed_table
from montecarlo.seeding import DEFAULT_CHUNK, chunk_states

N = 5  # OED d5, the pikeman's die

Case = tuple[str, int | None, Callable[[], object]]


def python_loop(size: int) -> np.ndarray:
    out = np.empty(size, dtype=np.int64)
    rr = random.randrange
    for i in range(size):
        total = 0
        while True:
            r = rr(N) + 1
            if r < N:
                break
            total += N - 1
        out[i] = total + r
    return out


def numpy_closed_form(size: int, gen: np.random.Generator) -> np.ndarray:
    maxima = gen.geometric(1 - 1 / N, size) - 1  # C-1.2: P(M = m) = N^-m (1 - 1/N)
    return maxima * (N - 1) + gen.integers(1, N, size)


def numpy_reroll(size: int, gen: np.random.Generator, dtype: str = "i8") -> np.ndarray:
    # C-1.1 literally: roll everything, re-roll only the dice that showed N.
    # A narrow dtype nearly doubles NumPy's speed, so both widths are measured.
    total = gen.integers(1, N + 1, size, dtype=dtype)
    idx = np.flatnonzero(total == N)
    while idx.size:
        r = gen.integers(1, N + 1, idx.size, dtype=dtype)
        total[idx] += r - 1
        idx = idx[r == N]
    return total


@njit(cache=True, parallel=True)
def legacy_prange(size, out):
    # The anti-pattern the guide forbids in production: legacy global state
    # inside prange.  Numba gives each thread its own state, so it is fast but
    # not reproducible across thread counts.
    for i in prange(size):
        total = 0
        while True:
            r = np.random.randint(1, N + 1)  # noqa: NPY002 (the baseline under test)
            if r < N:
                break
            total += N - 1
        out[i] = total + r


def cases(n: int, n_python: int, threads: int) -> list[Case]:
    """Every measured case: (label, Numba threads or None, a call handling n rolls)."""
    states = chunk_states(np.random.SeedSequence(2026), 0, -(-n // DEFAULT_CHUNK))
    wide = np.empty(n, dtype=np.int64)
    rolls = np.empty(n, dtype=np.int16)
    words = np.empty(n, dtype=np.uint64)
    gen = np.random.default_rng(2026)
    table, levels = oed_level_table(N)
    lanes = oed_lane_params(N)
    both = sorted({1, threads})
    out: list[Case] = [
        ("(a) pure-Python loop", None, lambda: python_loop(n_python)),
        ("(b) vectorized NumPy, re-roll maxima, int64", None, lambda: numpy_reroll(n, gen)),
        ("(b) vectorized NumPy, re-roll maxima, int16", None, lambda: numpy_reroll(n, gen, "i2")),
        ("(b') vectorized NumPy, C-1.2 closed form", None, lambda: numpy_closed_form(n, gen)),
    ]
    out += [
        (f"(c) Numba legacy np.random in prange, {t} thr", t, lambda: legacy_prange(n, rolls))
        for t in both
    ]
    out += [
        (
            f"(d) our OED kernel: 32 SIMD lanes, int16, {t} thr",
            t,
            lambda: sample_oed_lanes(states, DEFAULT_CHUNK, lanes, rolls),
        )
        for t in both
    ]
    out += [
        (
            f"(d') scalar level-table kernel, 2 rolls/word, {threads} thr",
            threads,
            lambda: sample_oed_table(states, DEFAULT_CHUNK, N, table, levels, wide),
        ),
        (
            f"(d'') roll-again loop, {threads} thr",
            threads,
            lambda: sample_oed_single(states, DEFAULT_CHUNK, N, wide),
        ),
        (
            f"(d''') float inversion of C-1.2, {threads} thr",
            threads,
            lambda: sample_oed_inversion(states, DEFAULT_CHUNK, N, wide),
        ),
    ]
    out += [
        (
            f"(e) raw xoshiro256** words, 32 lanes, {t} thr",
            t,
            lambda: fill_words_lanes(states, DEFAULT_CHUNK, words),
        )
        for t in both
    ]
    out.append(
        (
            f"(e') raw xoshiro256** words, scalar, {threads} thr",
            threads,
            lambda: fill_words(states, DEFAULT_CHUNK, words),
        )
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50_000_000, help="rolls per compiled run")
    parser.add_argument("--n-python", type=int, default=300_000, help="rolls for the Python loop")
    parser.add_argument("--repeats", type=int, default=7, help="timings per case; best is kept")
    args = parser.parse_args()
    n = args.n
    T = numba.config.NUMBA_NUM_THREADS

    rows: list[tuple[str, float]] = []
    for name, threads, func in cases(n, args.n_python, T):
        python = name.startswith("(a)")
        numba.set_num_threads(threads or T)
        rate = best_rate(func, args.n_python if python else n, 1 if python else args.repeats)
        rows.append((name, rate))
        print(f"{name:<56} {rate:>16,.0f} /s", flush=True)
    numba.set_num_threads(T)

    rate = dict(rows)
    ours = rate[f"(d) our OED kernel: 32 SIMD lanes, int16, {T} thr"]
    raw = rate[f"(e) raw xoshiro256** words, 32 lanes, {T} thr"]
    numpy_rate = max(r for name, r in rows if name.startswith("(b"))
    legacy = rate[f"(c) Numba legacy np.random in prange, {T} thr"]
    lines = [
        f"OED d{N} rolls per second; {n:,} rolls per compiled run, best of {args.repeats}; "
        f"{T} threads; {platform.processor() or platform.machine()}, "
        f"numba {numba.__version__}, numpy {np.__version__}.",
        "",
        "| method | rolls/s | ours ÷ this |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {r:,.0f} | {ours / r:.2f} |" for name, r in rows]
    lines += [
        "",
        f"- ours ÷ raw generator (rolls/s ÷ words/s, same lanes): **{ours / raw:.2f}** "
        "(target ≥ 0.3)",
        f"- ours ÷ the fastest vectorized NumPy: **{ours / numpy_rate:.1f}×** (target ≥ 20×)",
        f"- ours ÷ legacy np.random in prange: **{ours / legacy:.1f}×** (target ≥ 3×)",
    ]
    write_table("dice", lines)


if __name__ == "__main__":
    main()
