"""xoshiro256** random streams for Numba kernels.

Every Monte Carlo run is split into fixed-size chunks of trials, and every chunk
owns one 4-word xoshiro256** state (a row of a ``(n_chunks, 4)`` uint64 array).
A chunk is processed start to finish by one thread, so the numbers a chunk sees
depend only on its seed, never on the thread count or on scheduling.  The
states are seeded on the Python side from ``numpy.random.SeedSequence``.

All arithmetic is done on ``np.uint64`` scalars: in Numba, mixing uint64 with
a plain Python int silently promotes to float64, which would wreck the bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels.jit import helper

_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U9 = np.uint64(9)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53
# Rotation counts as typed constants: a literal count would compile _rotl once per count.
_R7 = np.uint64(7)
_R45 = np.uint64(45)
_U64 = np.uint64(64)


@helper(forceinline=True)
def _rotl(x, k):
    """``x`` rotated left by ``k`` bits (0 < k < 64, both uint64)."""
    return (x << k) | (x >> (_U64 - k))


@helper(forceinline=True)
def xoshiro_step(s0, s1, s2, s3):
    """One xoshiro256** step on a state held in four scalars.

    Returns ``(word, s0, s1, s2, s3)``: the output and the next state.  Scalars
    rather than an array let the SIMD lane loops keep many states side by side.
    """
    result = _rotl(s1 * _U5, _R7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    return result, s0, s1, s2, _rotl(s3, _R45)


@helper(forceinline=True)
def next_u64(s):
    """Advance the xoshiro256** state ``s`` (uint64[4]) and return one 64-bit word."""
    result, s[0], s[1], s[2], s[3] = xoshiro_step(s[0], s[1], s[2], s[3])
    return result


@helper(forceinline=True)
def skip(s, n):
    """Advance the state ``s`` by ``n`` words, as n calls of :func:`next_u64` would."""
    s0, s1, s2, s3 = s[0], s[1], s[2], s[3]
    for _ in range(n):
        _, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
    s[0], s[1], s[2], s[3] = s0, s1, s2, s3


@helper(forceinline=True)
def bounded(s, n):
    """Unbiased integer in ``[0, n)`` for ``1 <= n <= 2**32`` (Lemire's method).

    Uses the top 32 bits of one word; multiplies by ``n`` and keeps the high
    half.  The rare low halves that would bias the result are rejected, so the
    draw is exactly uniform.
    """
    return bounded_from(s, next_u64(s) >> _U32, n)


@helper(forceinline=True)
def bounded_from(s, x32, n):
    """Unbiased integer in ``[0, n)`` from a given 32-bit value ``x32``.

    Lets a kernel spend both halves of one word on two draws.  If ``x32``
    falls in Lemire's rejection zone, fresh words from ``s`` are used instead.
    """
    nn = np.uint64(n)
    m = np.uint64(x32) * nn
    low = m & _MASK32
    if low < nn:
        threshold = (_TWO32 - nn) % nn
        while low < threshold:
            m = (next_u64(s) >> _U32) * nn
            low = m & _MASK32
    return np.int64(m >> _U32)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)


@helper(forceinline=True)
def _mix64(z):
    """SplitMix64's finaliser: a bijection of 64-bit words that scatters every bit."""
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@helper(forceinline=True)
def seed_trial(key, trial, s):
    """Set ``s`` (uint64[4]) to the stream of trial ``trial`` under ``key`` (uint64[4]).

    Gives every battle or fight its own stream, a pure function of (key,
    trial), so one trial can be replayed alone and two variants of a matchup
    draw the same numbers for trial i for as long as their play agrees (common
    random numbers).  Word k is ``mix64(key[k] ^ mix64(trial + (k + 1)·φ))``
    with φ the 64-bit golden ratio: distinct trials give unrelated states.
    """
    t = np.uint64(trial)
    for k in range(4):
        s[k] = _mix64(key[k] ^ _mix64(t + np.uint64(k + 1) * _GOLDEN))
    if s[0] == 0 and s[1] == 0 and s[2] == 0 and s[3] == 0:  # xoshiro's one dead state
        s[0] = _U1


@helper(forceinline=True)
def uniform(s):
    """A float64 uniform on ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(s) >> _U11) * _INV53


@helper(forceinline=True)
def chance(s, p):
    """True with probability ``p`` (a float in [0, 1])."""
    return uniform(s) < p


@njit(cache=True, parallel=True, error_model="numpy")
def fill_words(states, chunk, out):
    """Fill ``out`` with raw 64-bit words, one stream per chunk of ``chunk`` words.

    This is the physical limit every dice kernel is benchmarked against.
    """
    n = out.shape[0]
    n_chunks = states.shape[0]
    for c in prange(n_chunks):
        s = states[c]
        stop = min(n, (c + 1) * chunk)
        for i in range(c * chunk, stop):
            out[i] = next_u64(s)


@njit(cache=True, parallel=True, error_model="numpy")
def fill_bounded(states, chunk, n_faces, out):
    """Fill ``out`` with uniform integers on ``[0, n_faces)``, one stream per chunk."""
    n = out.shape[0]
    n_chunks = states.shape[0]
    for c in prange(n_chunks):
        s = states[c]
        stop = min(n, (c + 1) * chunk)
        for i in range(c * chunk, stop):
            out[i] = bounded(s, n_faces)
