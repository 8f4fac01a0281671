"""Batch samplers: fill an output array from one stream per chunk, in parallel.

Trial ``i`` belongs to chunk ``i // chunk`` and is drawn from that chunk's own
state row, in order.  The outer loop over chunks is a ``prange``; the inner loop
is sequential, so the output is bit-identical for any thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels.coe5_dice import check_roll, oed, oed_inversion, oed_sum, soed_sum
from kernels.rng import next_u64, uniform
from kernels.sf_dice import check as sf_check

_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_oed(states, chunk, n, dice, out):
    """``out[i]`` = sum of ``dice`` OED(n) rolls (C-1.1 to C-1.5, C-1.7)."""
    total = out.shape[0]
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            out[i] = oed_sum(s, n, dice)


@njit(inline="always", error_model="numpy")
def _table_roll(s, x32, size, threshold, table, n, base):
    """One OED(n) roll from a 32-bit draw ``x32`` and the level table (C-1.2).

    Lemire's method maps x32 to v on [0, size); the threshold test rejects
    the few x32 that would bias v (chance < size / 2**32) and draws afresh.
    """
    m = x32 * size
    while (m & _MASK32) < threshold:
        m = (next_u64(s) >> _U32) * size
    value = np.int64(table[np.int64(m >> _U32)])
    if value < 0:  # all K levels were maxima: keep rolling (C-1.1)
        value = base + oed(s, n)
    return value


@njit(cache=True, parallel=True, error_model="numpy")
def sample_oed_table(states, chunk, n, table, levels, out):
    """``out[i]`` = one OED(n) roll, two rolls per 64-bit word via a level table.

    The fast path has no data-dependent branch except a 1-in-``size`` slow
    path, so it runs near the generator's own speed.  Requires ``n >= 2`` and
    a table from :func:`kernels.coe5_dice.oed_level_table`; ``chunk`` must be even
    so that chunk boundaries never split a word.
    """
    total = out.shape[0]
    size = np.uint64(table.shape[0])
    threshold = (_TWO32 - size) % size
    base = np.int64(levels) * (n - 1)
    for c in prange(states.shape[0]):
        s = states[c]
        stop = min(total, (c + 1) * chunk)
        for i in range(c * chunk, stop, 2):
            w = next_u64(s)
            out[i] = _table_roll(s, w >> _U32, size, threshold, table, n, base)
            if i + 1 < stop:
                out[i + 1] = _table_roll(s, w & _MASK32, size, threshold, table, n, base)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_oed_single(states, chunk, n, out):
    """``out[i]`` = one OED(n) roll by the roll-again loop (benchmark comparison)."""
    total = out.shape[0]
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            out[i] = oed(s, n)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_oed_inversion(states, chunk, n, out):
    """``out[i]`` = one OED(n) roll by float inversion (benchmark comparison)."""
    total = out.shape[0]
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            out[i] = oed_inversion(s, n)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_soed(states, chunk, n, dice, out):
    """``out[i]`` = sum of ``dice`` S-OED(n) rolls (C-1.6)."""
    total = out.shape[0]
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            out[i] = soed_sum(s, n, dice)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_check_roll(states, chunk, difficulty, out):
    """``out[i]`` = one magic-resistance check roll at ``difficulty`` (C-2.1)."""
    total = out.shape[0]
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            out[i] = check_roll(s, difficulty)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_sf_check(states, chunk, modifier, target, out):
    """``out[i]`` = outcome code of one S-1.1 check (see :mod:`kernels.sf_dice`)."""
    total = out.shape[0]
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            out[i] = sf_check(s, modifier, target)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_table(states, chunk, lo, cdf, out):
    """Inverse-CDF sampling of any finite integer distribution.

    ``cdf[k]`` is P(X <= lo + k); the last entry must be 1.  Used for exact
    distributions that have no dedicated kernel (for example hits-to-kill).
    """
    total = out.shape[0]
    last = cdf.shape[0] - 1
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            k = np.searchsorted(cdf, uniform(s), side="right")
            out[i] = lo + min(k, last)
