"""Throughput of OED d5 rolls: our kernel against its baselines (issue: foundation).

Measured in one run, rolls per second:

(a) a pure-Python loop (``random.randrange``);
(b) vectorized NumPy (C-1.2's closed form with a Generator);
(c) Numba with the legacy ``np.random`` inside ``prange``;
(d) our xoshiro256** kernel, 1 thread and all threads;
(e) the raw generator alone, 64-bit words, as the physical limit.

Prints a markdown table and writes it to ``benchmarks/results/dice.md``.
Run: ``python benchmarks/bench_dice.py [--n 50000000]``.
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
from kernels.rng import fill_words
from kernels.samplers import sample_oed_inversion, sample_oed_single, sample_oed_table
from montecarlo.seeding import DEFAULT_CHUNK, chunk_states

N = 5  # OED d5, the pikeman's die


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


def numpy_reroll(size: int, gen: np.random.Generator) -> np.ndarray:
    # C-1.1 literally: roll everything, re-roll only the dice that showed N.
    total = gen.integers(1, N + 1, size)
    idx = np.flatnonzero(total == N)
    while idx.size:
        r = gen.integers(1, N + 1, idx.size)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50_000_000, help="rolls per compiled run")
    parser.add_argument("--n-python", type=int, default=300_000, help="rolls for the Python loop")
    args = parser.parse_args()
    n = args.n
    all_threads = numba.config.NUMBA_NUM_THREADS
    ss = np.random.SeedSequence(2026)
    states = chunk_states(ss, 0, -(-n // DEFAULT_CHUNK))
    out = np.empty(n, dtype=np.int64)
    words = np.empty(n, dtype=np.uint64)
    gen = np.random.default_rng(2026)

    table, levels = oed_level_table(N)
    T = all_threads
    cases: list[tuple[str, int | None, Callable[[], object]]] = [
        ("(a) pure-Python loop", None, lambda: python_loop(args.n_python)),
        ("(b) vectorized NumPy, re-roll maxima", None, lambda: numpy_reroll(n, gen)),
        ("(b') vectorized NumPy, C-1.2 closed form", None, lambda: numpy_closed_form(n, gen)),
    ]
    for t in sorted({1, T}):
        cases.append(
            (f"(c) Numba legacy np.random in prange, {t} thr", t, lambda: legacy_prange(n, out))
        )

    def ours() -> None:
        sample_oed_table(states, DEFAULT_CHUNK, N, table, levels, out)

    for t in sorted({1, T}):
        cases.append((f"(d) our OED kernel, {t} thr", t, ours))
    cases.append(
        (
            f"(d') OED by the roll-again loop, {T} thr",
            T,
            lambda: sample_oed_single(states, DEFAULT_CHUNK, N, out),
        )
    )
    cases.append(
        (
            f"(d'') OED by float inversion of C-1.2, {T} thr",
            T,
            lambda: sample_oed_inversion(states, DEFAULT_CHUNK, N, out),
        )
    )
    for t in sorted({1, T}):
        cases.append(
            (
                f"(e) raw xoshiro256** words, {t} thr",
                t,
                lambda: fill_words(states, DEFAULT_CHUNK, words),
            )
        )

    rows: list[tuple[str, float]] = []
    for name, threads, func in cases:
        size = args.n_python if name.startswith("(a)") else n
        repeats = 1 if name.startswith("(a)") else 3
        numba.set_num_threads(threads or T)
        rows.append((name, best_rate(func, size, repeats)))
        print(f"{name:<50} {rows[-1][1]:>16,.0f} /s", flush=True)
    numba.set_num_threads(all_threads)

    rate = dict(rows)
    ours = rate[f"(d) our OED kernel, {T} thr"]
    raw = rate[f"(e) raw xoshiro256** words, {T} thr"]
    numpy_rate = max(
        rate["(b) vectorized NumPy, re-roll maxima"],
        rate["(b') vectorized NumPy, C-1.2 closed form"],
    )
    legacy = rate[f"(c) Numba legacy np.random in prange, {T} thr"]
    lines = [
        f"OED d{N} rolls per second; {n:,} rolls per compiled run, best of 3; "
        f"{all_threads} threads; {platform.processor() or platform.machine()}, "
        f"numba {numba.__version__}, numpy {np.__version__}.",
        "",
        "| method | rolls/s | ours ÷ this |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {r:,.0f} | {ours / r:.2f} |" for name, r in rows]
    lines += [
        "",
        f"- ours ÷ raw generator: **{ours / raw:.2f}** (target ≥ 0.3)",
        f"- ours ÷ the faster vectorized NumPy: **{ours / numpy_rate:.1f}×** (target ≥ 20×)",
        f"- ours ÷ legacy np.random in prange: **{ours / legacy:.1f}×** (target ≥ 3×)",
    ]
    write_table("dice", lines)


if __name__ == "__main__":
    main()
