"""Many hits of one weapon on one target, through the OED lane sampler (C-3).

For a fixed weapon, target and situation, C-3 steps 2-8 are a fixed,
branch-free function of two numbers: the raw roll T of step 1 and the shield
roll of step 6 (:func:`kernels.coe5_damage.apply_steps`, shared with the
scalar pipeline).  So a hit here is

- one OED roll from :mod:`kernels.oed_lanes` (four per 64-bit word);
- one 16-bit field of a lane word: 2 bits for the ethereal check of C-3.9
  (the hit lands only if both are 0: chance 1/4) and 14 bits for the shield
  roll, uniform on 0..shield by Lemire's multiply-and-reject;
- ``apply_steps`` in a loop that LLVM vectorises.

A shield draw in Lemire's rejection zone (chance below 1e-3; never for a
shield of 1 or 3) marks its hit slow, and the hit is finished in scalar code
with a fresh draw from the chunk's spare stream.  Only the law matters: this
sampler and the scalar pipeline give different numbers for one seed, each exact.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels.coe5_damage import apply_steps
from kernels.jit import helper
from kernels.oed_lanes import lane_words, oed_chunk
from kernels.rng import bounded

#: Hits per block: a block with a slow hit is fixed up before the next one.
BLOCK = 64
_INT16_MAX = 32767


@helper
def _hits_chunk(spare, p, faces, ethereal, steps, out):
    """Damage of ``out.shape[0]`` hits into ``out`` (int16), from one chunk's stream."""
    oed_chunk(spare, p, out)  # raw rolls T, in place; d3/d5/d9 never reach the int16 cap
    n = np.uint64(out.shape[0])
    words = np.empty((out.shape[0] + 3) // 4, dtype=np.uint64)
    lane_words(spare, words)
    fields = words.view(np.uint16)
    halve_raw, double, add, res, halve_final = steps
    k = np.int64(max(faces, 1))
    reject_below = (1 << 14) % k  # Lemire: low parts below this would bias the roll
    miss_bits = 3 if ethereal else 0
    block = np.uint64(BLOCK)
    # Unsigned indices: with signed ones Numba's wraparound check stops LLVM
    # from vectorising the inner loop.
    for base in range(np.uint64(0), n, block):
        stop = min(n, base + block)
        any_slow = 0
        for i in range(base, stop):
            f = np.int64(fields[i])
            m = (f >> 2) * k
            roll = np.int64(out[i])
            value = apply_steps(roll, m >> 14, halve_raw, double, add, res, halve_final)
            value = min(value, _INT16_MAX)  # needs thousands of maxima in a row
            missed = (f & miss_bits) != 0  # C-3.9: the hit does nothing
            slow = ((m & 0x3FFF) < reject_below) & (not missed)
            value = -1 - roll if slow else value  # a slow hit keeps T, encoded below 0
            out[i] = 0 if missed else value
            any_slow |= np.int64(slow)
        if any_slow:
            for i in range(base, stop):
                if out[i] < 0:
                    roll = -1 - np.int64(out[i])
                    r = bounded(spare, k)
                    value = apply_steps(roll, r, halve_raw, double, add, res, halve_final)
                    out[i] = min(value, _INT16_MAX)


@njit(cache=True, parallel=True, error_model="numpy")
def sample_hits_lanes(states, chunk, p, faces, ethereal, steps, out):
    """``out[i]`` (int16) = damage of one hit (C-3), for a weapon whose die suits the lanes.

    ``p`` from :func:`kernels.oed_lanes.oed_lane_params` for the die rolled,
    ``faces`` the shield roll's faces (0: no shield roll, C-3 step 6),
    ``ethereal`` whether C-3.9 applies, ``steps`` from
    :func:`kernels.coe5_damage.step_params`.  ``chunk`` must be a multiple of 4.
    """
    total = out.shape[0]
    for c in prange(states.shape[0]):
        spare = states[c].copy()
        _hits_chunk(spare, p, faces, ethereal, steps, out[c * chunk : min(total, (c + 1) * chunk)])
