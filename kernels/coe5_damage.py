"""The CoE5 damage pipeline for one hit (RULES.md C-3, C-4, C-5.3), in Numba.

Reads weapon ``w`` and target ``t`` from the packed tables (see
:mod:`kernels.coe5_layout`).  The exact counterpart is
:func:`montecarlo.coe5.damage.damage`; tests hold the two together.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels import coe5_layout as L
from kernels.coe5_dice import oed
from kernels.rng import bounded, bounded_from, next_u64

_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


@njit(forceinline=True, error_model="numpy")
def vulnerable_to(U, t, dtype):
    """C-3 step 2 applies to fire, cold, shock and poison only."""
    if dtype != L.T_FIRE and dtype != L.T_COLD and dtype != L.T_SHOCK and dtype != L.T_POISON:
        return False
    return (U[L.U_VULN, t] >> dtype) & 1 == 1


@njit(forceinline=True, error_model="numpy")
def hit_damage(s, W, w, U, t, strength, wall, immobile, frozen, far):
    """Damage of one hit after C-3 steps 1-8 (0 when nothing happens).

    Parameters are the state ``s``, weapon ``w`` of ``W``, target ``t`` of ``U``,
    the attacker's ``strength``, the target's ``wall`` fortification level,
    whether the target cannot move (``immobile``) or is ``frozen``, and ``far``
    (C-5.3: 0 within half range; beyond it, 1 halves the raw roll [default] and
    2 halves the final damage).  For poison the result goes to the pool.
    """
    return hit_damage_fast(s, W, w, U, t, strength, wall, immobile, frozen, far, _NO_TABLE, 0)


_NO_TABLE = np.zeros(0, dtype=np.int16)


@njit(inline="always", error_model="numpy")
def hit_damage_fast(s, W, w, U, t, strength, wall, immobile, frozen, far, table, levels):
    """:func:`hit_damage` with an optional OED level table for the rolled die.

    With ``levels > 0`` (``table`` from ``oed_level_table`` for exactly this
    die size), one 64-bit word serves both the damage roll (high half) and the
    shield roll (low half); otherwise the roll-again loop is used.
    """
    dtype = W[L.W_TYPE, w]
    if dtype == L.T_PARALYSIS:  # C-4.9: no direct damage
        return np.int64(0)
    flags = W[L.W_FLAGS, w]
    # C-3.9: checked before rolling; magic damage ignores it (C-4.7).
    if U[L.U_FLAGS, t] & L.UF_ETHEREAL and W[L.W_MAGIC, w] == 0 and dtype != L.T_MAGIC:
        if bounded(s, 4) != 0:
            return np.int64(0)
    # Step 1 with C-1.5: strength enlarges the die unless the weapon is nostr.
    size = W[L.W_DIE, w]
    if not flags & L.F_NOSTR:
        size += strength
    word = next_u64(s)
    if levels > 0:
        total = np.int64(table[bounded_from(s, word >> _U32, table.shape[0])])
        if total < 0:  # all table levels were maxima: keep rolling (C-1.1)
            total = np.int64(levels) * (size - 1) + oed(s, size)
    else:
        total = oed(s, size)
    halve = far != 0 and flags & L.F_RANGEPEN
    if halve and far == 1:  # C-5.3 [default]: halve the raw roll, round up
        total = (total + 1) // 2
    if vulnerable_to(U, t, dtype):  # step 2
        total *= 2
    if immobile or U[L.U_FLAGS, t] & L.UF_IMMOBILE:  # step 3
        total += 1
    if frozen:  # C-4.3: a frozen target takes +1 at step 3 as well
        total += 1
    total -= wall  # step 4
    if not flags & L.F_AN:  # step 5
        total -= U[L.U_ARMOR, t]
    shield = U[L.U_SHIELD, t]
    if shield > 0 and not flags & L.F_SHIELDNEG:  # step 6: uniform 0..shield
        total -= bounded_from(s, word & _MASK32, shield + 1)
    res = U[L.U_RES0 + dtype, t]
    if res != 0:  # step 7, floored (Python // floors, also below zero)
        total = (total * (100 - res)) // 100
    if halve and far == 2 and total > 0:  # C-5.3 alternative: halve the final damage
        total = (total + 1) // 2
    if total < 1:  # step 8
        return np.int64(0)
    return total


@njit(cache=True, parallel=True, error_model="numpy")
def sample_hits(
    states, chunk, W, w, U, t, strength, wall, immobile, frozen, far, table, levels, out
):
    """``out[i]`` = damage of hit ``i`` (weapon ``w`` on target ``t``).

    ``table, levels`` come from ``oed_level_table`` for the die actually rolled
    (``levels == 0``: no table).
    """
    total = out.shape[0]
    for c in prange(states.shape[0]):
        s = states[c]
        for i in range(c * chunk, min(total, (c + 1) * chunk)):
            out[i] = hit_damage_fast(
                s, W, w, U, t, strength, wall, immobile, frozen, far, table, levels
            )
