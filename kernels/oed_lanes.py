"""OED(n) rolls sixteen bits at a time, across 32 interleaved xoshiro256** lanes.

The fastest way to sample one open-ended die (C-1.1) when ``n - 1`` is a power
of two, which covers the d5 of every pikeman (also d3 and d9).  It exists
because the scalar kernels are bound by one 64-bit word per roll or two; this
one takes four rolls from each word and lets LLVM run 32 generators side by
side in SIMD registers.

How a roll is read from a 16-bit field of a word (C-1.2, T = M(n-1) + U):

- the low ``b = log2(n-1)`` bits are U - 1, uniform on {0, ..., n-2};
- the other ``16 - b`` bits are ``y``, uniform on [0, 2^(16-b)).  ``y`` is
  accepted when ``y < A``, where ``A`` is the largest multiple of ``n^3`` that
  fits.  Then ``P(y < A / n^m) = n^-m`` exactly, so the number of thresholds
  ``A/n, A/n^2, A/n^3`` that ``y`` lies below is M, capped at 3.

The comparisons run on all four fields of a word at once, SWAR style: a guard
bit (bit 15 of each field) absorbs the borrow of ``(t | 0x8000) - y``.

A field *needs more* when y was rejected (M unknown, chance < 6e-4 for d5) or
M reached the cap of 3 (chance n^-3).  Each lane draws one extension word per
step, whose field q can finish the first such field of main word q: a rejected
field takes the extension's M, a capped one adds it.  Only when a word has two
such fields, or the extension field itself needs more, does the lane go *slow*
(about 2e-4 per roll for d5).  A slow lane is replayed from a snapshot of its
state by :func:`_replay_lane`, a plain scalar version of the same rules that
draws whatever else it needs from the chunk's spare stream.  The replay gives
the same values as the vector code for every field that was not slow, and the
test suite checks the two against each other bit for bit.

Every chunk of trials still has one stream: the chunk's 4-word state (seeded
from its ``SeedSequence`` child) is the spare stream, and its first
``4 * LANES`` words seed the lanes.  So results depend on the seed only, never
on the thread count.  Output order within a step is a fixed permutation of the
lanes' rolls (planar by word), which does not change the law of iid rolls.
The int16 fields are written through a uint64 view, so the order assumes a
little-endian machine, as every supported platform is.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels.jit import helper
from kernels.rng import bounded, next_u64, xoshiro_step

#: Independent xoshiro256** lanes per chunk; 32 fill four AVX-512 registers.
LANES = 32
#: Main words per lane per step (plus one extension word).
WORDS = 4
#: Rolls per step of all lanes: four 16-bit fields per main word.
STEP = LANES * WORDS * 4
#: Thresholds per field: M is read exactly up to this cap, then extended.
CAP = 3

_U1 = np.uint64(1)
_U15 = np.uint64(15)
_U16 = np.uint64(16)
_U32 = np.uint64(32)
_F16 = np.uint64(0xFFFF)
_REP = 0x0001000100010001  # one 16-bit value repeated in all four fields
_INT16_MAX = 32767

# Slots of the parameter array built by oed_lane_params().
_H, _YMASK, _UMASK, _ONES, _T1, _T2, _T3, _TA, _SHIFT_M, _BITS_U, _N, _A = range(12)


@njit(inline="always", error_model="numpy")
def _rep(v):
    """``v`` (< 2^16) in all four 16-bit fields, in unsigned arithmetic (no overflow)."""
    return np.uint64(v) * np.uint64(_REP)


@njit(cache=True, error_model="numpy")
def oed_lane_params(n):
    """Constants of the lane sampler for OED(n), or an empty array if it does not apply.

    Applies when ``n - 1`` is 2, 4 or 8 (OED d3, d5, d9): U then takes whole
    bits, and ``n^3`` still leaves room in a field for a small rejection rate.
    """
    bits_u = 0
    while (1 << bits_u) < n - 1:
        bits_u += 1
    if n < 3 or (1 << bits_u) != n - 1 or n**CAP > (1 << (15 - bits_u)):
        return np.empty(0, dtype=np.uint64)
    y_bits = 16 - bits_u
    a = ((1 << y_bits) // n**CAP) * n**CAP
    guard = _rep(0x8000)
    p = np.zeros(12, dtype=np.uint64)
    p[_H] = guard
    p[_YMASK] = _rep((1 << y_bits) - 1)
    p[_UMASK] = _rep((1 << bits_u) - 1)
    p[_ONES] = _rep(1)
    # "y < t" is "t - 1 >= y": no borrow out of the guard bit.
    p[_T1] = _rep(a // n - 1) | guard
    p[_T2] = _rep(a // n**2 - 1) | guard
    p[_T3] = _rep(a // n**3 - 1) | guard
    p[_TA] = _rep(a - 1) | guard
    p[_SHIFT_M] = 15 - bits_u  # guard bit >> this = n - 1
    p[_BITS_U] = bits_u
    p[_N] = n
    p[_A] = a
    return p


@njit(inline="always", error_model="numpy")
def _fields(w, guard, bits_u, ymask, t1, t2, t3, ta, shift):
    """Four fields of ``w`` at once: (n-1)·min(M, 3) per field, and the needs-more bits."""
    y = (w >> bits_u) & ymask
    b1 = (t1 - y) & guard
    b2 = (t2 - y) & guard
    b3 = (t3 - y) & guard  # M reached the cap
    scaled_m = (b1 >> shift) + (b2 >> shift) + (b3 >> shift)
    rejected = ((ta - y) & guard) ^ guard
    return scaled_m, b3 | rejected


@helper
def _maxima(s, n):
    """M for one fresh OED(n) roll: how many maxima in a row (C-1.2)."""
    m = 0
    while bounded(s, n) == n - 1:
        m += 1
    return m


@helper
def _field_m(y, p):
    """M of one field, capped at CAP, or -1 when y is rejected."""
    if y >= p[_A]:
        return -1
    n = np.int64(p[_N])
    a = np.int64(p[_A])
    yy = np.int64(y)
    return np.int64(yy < a // n) + np.int64(yy < a // (n * n)) + np.int64(yy < a // (n * n * n))


@helper
def _replay_lane(state, spare, p, words, base):
    """Redo one lane's step in scalar code, exactly; write its WORDS words.

    ``state`` is the lane's state before the step.  Returns how many values
    had to be clipped to int16 (M above 4000 or so: never, in practice).
    """
    n = np.int64(p[_N])
    bits_u = p[_BITS_U]
    umask = (_U1 << bits_u) - _U1
    ext = next_u64(state)
    clipped = 0
    for q in range(WORDS):
        w = next_u64(state)
        packed = np.uint64(0)
        ext_used = False
        for k in range(4):
            field = (w >> np.uint64(16 * k)) & _F16
            m = _field_m(field >> bits_u, p)
            if m < 0 or m == CAP:
                if ext_used:
                    more = _maxima(spare, n)
                else:
                    ext_used = True  # the first field that needs more takes ext field q
                    more = _field_m(((ext >> np.uint64(16 * q)) & _F16) >> bits_u, p)
                    if more < 0:
                        more = _maxima(spare, n)
                    elif more == CAP:
                        more = CAP + _maxima(spare, n)
                m = more if m < 0 else CAP + more
            value = (n - 1) * m + np.int64(field & umask) + 1
            if value > _INT16_MAX:
                value = _INT16_MAX
                clipped += 1
            packed |= np.uint64(value) << np.uint64(16 * k)
        words[base + np.uint64(q * LANES)] = packed
    return clipped


@helper
def _oed_steps(s0, s1, s2, s3, snap, ext, slow, spare, p, words):
    """Fill ``words`` (a multiple of WORDS * LANES) with packed OED rolls.

    The lane loops are written so that LLVM vectorises them: every lane does
    the same branch-free arithmetic on its own state.  Returns the clip count.
    """
    # Constants in locals, and unsigned indices: both keep the loops vectorisable.
    guard = p[_H]
    umask = p[_UMASK]
    ones = p[_ONES]
    bits_u = p[_BITS_U]
    ymask = p[_YMASK]
    t1 = p[_T1]
    t2 = p[_T2]
    t3 = p[_T3]
    ta = p[_TA]
    shift_m = p[_SHIFT_M]
    low15 = guard - ones
    clipped = 0
    lanes = np.uint64(LANES)
    for base in range(np.uint64(0), np.uint64(words.shape[0]), np.uint64(WORDS * LANES)):
        # The extension word of every lane, keeping a snapshot for replays.
        for jj in range(LANES):
            j = np.uint64(jj)
            snap[0, j] = s0[j]
            snap[1, j] = s1[j]
            snap[2, j] = s2[j]
            snap[3, j] = s3[j]
            e, s0[j], s1[j], s2[j], s3[j] = xoshiro_step(s0[j], s1[j], s2[j], s3[j])
            scaled_m, needs = _fields(e, guard, bits_u, ymask, t1, t2, t3, ta, shift_m)
            ext[j] = scaled_m | (needs & guard)
            slow[j] = 0
        for q in range(WORDS):
            shift = np.uint64(16 * q)
            row = base + np.uint64(q) * lanes
            for jj in range(LANES):
                j = np.uint64(jj)
                w, s0[j], s1[j], s2[j], s3[j] = xoshiro_step(s0[j], s1[j], s2[j], s3[j])
                scaled_m, needs = _fields(w, guard, bits_u, ymask, t1, t2, t3, ta, shift_m)
                x = (ext[j] >> shift) & _F16  # ext field q, in all four fields
                x |= x << _U16
                x |= x << _U32
                wide = needs | (needs - (needs >> _U15))  # 0xFFFF where a field needs more
                words[row + j] = (w & umask) + ones + scaled_m + (wide & x & low15)
                # Slow: two fields need more, or the extension field does too.
                slow[j] |= (needs & (needs - _U1)) | (needs & x)
        any_slow = np.uint64(0)
        for j in range(LANES):
            any_slow |= slow[j]
        if any_slow:
            state = np.empty(4, dtype=np.uint64)
            for j in range(LANES):
                if slow[j]:
                    state[:] = snap[:, j]
                    clipped += _replay_lane(state, spare, p, words, base + np.uint64(j))
    return clipped


@helper(forceinline=True)
def seed_lanes(spare):
    """Lane states (4, LANES) from the next ``4 * LANES`` words of ``spare``."""
    lanes = np.empty((4, LANES), dtype=np.uint64)
    for j in range(LANES):
        for r in range(4):
            lanes[r, j] = next_u64(spare)
        if not lanes[:, j].any():  # the one state xoshiro cannot leave
            lanes[0, j] = 1
    return lanes


@helper
def oed_chunk(spare, p, out):
    """All rolls of one chunk into ``out`` (int16); ``spare`` is the chunk's own stream.

    Seeds the lanes from ``spare`` and leaves it advanced.  Returns the clip count.
    """
    lanes = seed_lanes(spare)
    snap = np.empty((4, LANES), dtype=np.uint64)
    ext = np.empty(LANES, dtype=np.uint64)
    slow = np.empty(LANES, dtype=np.uint64)
    s0, s1, s2, s3 = lanes[0], lanes[1], lanes[2], lanes[3]
    full = (out.shape[0] // STEP) * STEP
    clipped = _oed_steps(s0, s1, s2, s3, snap, ext, slow, spare, p, out[:full].view(np.uint64))
    if full < out.shape[0]:  # a short last chunk: one more step, cut to length
        tail = np.empty(STEP // 4, dtype=np.uint64)
        clipped += _oed_steps(s0, s1, s2, s3, snap, ext, slow, spare, p, tail)
        out[full:] = tail.view(np.int16)[: out.shape[0] - full]
    return clipped


@helper(forceinline=True)
def lane_words(spare, out):
    """Fill ``out`` with raw words from lanes seeded by ``spare`` (vectorised)."""
    lanes = seed_lanes(spare)
    s0, s1, s2, s3 = lanes[0], lanes[1], lanes[2], lanes[3]
    full = np.uint64((out.shape[0] // LANES) * LANES)
    for base in range(np.uint64(0), full, np.uint64(LANES)):  # unsigned: see _oed_steps
        for jj in range(LANES):
            j = np.uint64(jj)
            out[base + j], s0[j], s1[j], s2[j], s3[j] = xoshiro_step(s0[j], s1[j], s2[j], s3[j])
    for i in range(int(full), out.shape[0]):
        out[i] = next_u64(spare)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_oed_lanes(states, chunk, p, out):
    """``out[i]`` (int16) = one OED(n) roll, by the lane sampler (C-1.1, C-1.2).

    ``p`` comes from :func:`oed_lane_params`; ``chunk`` must be a multiple of
    4.  Returns how many values were clipped to the int16 range, which for the
    supported dice needs a run of thousands of maxima.
    """
    total = out.shape[0]
    clipped = 0
    for c in prange(states.shape[0]):
        spare = states[c].copy()
        clipped += oed_chunk(spare, p, out[c * chunk : min(total, (c + 1) * chunk)])
    return clipped


@njit(cache=True, error_model="numpy")
def replay_oed_lanes(state, p, size):
    """Reference: the rolls of one chunk by scalar replay of every lane.

    Must equal the first ``size`` values of :func:`sample_oed_lanes` for the
    same chunk state; tests use it to pin the vector code to the scalar rules.
    """
    spare = state.copy()
    lanes = seed_lanes(spare)
    steps = -(-size // STEP)
    words = np.empty(steps * STEP // 4, dtype=np.uint64)
    for step in range(steps):
        for j in range(LANES):
            lane = lanes[:, j].copy()
            _replay_lane(lane, spare, p, words, np.uint64(step * WORDS * LANES + j))
            lanes[:, j] = lane
    return words.view(np.int16)[:size].copy()


@njit(cache=True, parallel=True, error_model="numpy")
def fill_words_lanes(states, chunk, out):
    """Raw 64-bit words from the same 32-lane layout: the lane sampler's physical limit."""
    total = out.shape[0]
    for c in prange(states.shape[0]):
        spare = states[c].copy()
        lane_words(spare, out[c * chunk : min(total, (c + 1) * chunk)])
