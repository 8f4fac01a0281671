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
from kernels.jit import helper
from kernels.rng import bounded, bounded_from, next_u64

_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


@helper(forceinline=True)
def vulnerable_to(U, t, dtype):
    """C-3 step 2 applies to fire, cold, shock and poison only."""
    if dtype != L.T_FIRE and dtype != L.T_COLD and dtype != L.T_SHOCK and dtype != L.T_POISON:
        return False
    return (U[L.U_VULN, t] >> dtype) & 1 == 1


@helper(forceinline=True)
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

#: C-3.9: a hit on an ethereal unit lands on 1 in this many.  A typed int64, not
#: a literal 4, so that ``bounded`` is compiled once (cold start, issue 13).
ETHEREAL_DIE = np.int64(4)


@helper(forceinline=True)
def ethereal_applies(W, w, U, t):
    """C-3.9: a non-magic hit on an ethereal target does nothing 3 times in 4 (C-4.7)."""
    dtype = W[L.W_TYPE, w]
    return U[L.U_FLAGS, t] & L.UF_ETHEREAL != 0 and W[L.W_MAGIC, w] == 0 and dtype != L.T_MAGIC


@helper(forceinline=True)
def shield_faces(W, w, U, t):
    """Faces of the C-3 step 6 shield roll (uniform 0..shield), or 0 when it is skipped.

    For the lane sampler's set-up.  :func:`hit_damage_fast` spells the same test
    out inline: through this helper the scalar pipeline measured 20% slower.
    """
    shield = U[L.U_SHIELD, t]
    if shield > 0 and not W[L.W_FLAGS, w] & L.F_SHIELDNEG:
        return shield + 1
    return 0


@njit(inline="always", error_model="numpy")
def hit_damage_fast(s, W, w, U, t, strength, wall, immobile, frozen, far, table, levels):
    """:func:`hit_damage` with an optional OED level table for the rolled die.

    With ``levels > 0`` (``table`` from ``oed_level_table`` for exactly this
    die size), one 64-bit word serves both the damage roll (high half) and the
    shield roll (low half); otherwise the roll-again loop is used.
    """
    if W[L.W_TYPE, w] == L.T_PARALYSIS:  # C-4.9: no direct damage
        return np.int64(0)
    # C-3.9: checked before rolling; magic damage ignores it (C-4.7).
    if ethereal_applies(W, w, U, t) and bounded(s, ETHEREAL_DIE) != 0:
        return np.int64(0)
    # Step 1 with C-1.5: strength enlarges the die unless the weapon is nostr.
    size = W[L.W_DIE, w]
    if not W[L.W_FLAGS, w] & L.F_NOSTR:
        size += strength
    word = next_u64(s)
    if levels > 0:
        total = np.int64(table[bounded_from(s, word >> _U32, table.shape[0])])
        if total < 0:  # all table levels were maxima: keep rolling (C-1.1)
            total = np.int64(levels) * (size - 1) + oed(s, size)
    else:
        total = oed(s, size)
    # Step 6's shield roll is drawn here; steps 2-5 draw nothing, so the order holds.
    shield = U[L.U_SHIELD, t]
    shield_roll = 0
    if shield > 0 and not W[L.W_FLAGS, w] & L.F_SHIELDNEG:
        shield_roll = bounded_from(s, word & _MASK32, shield + 1)
    return after_roll(total, shield_roll, W, w, U, t, wall, immobile, frozen, far)


#: Step 7 clamps totals above 2 * RAW_CAP, so that it can divide by 100 with one
#: exact multiply-shift.  A raw roll that large takes ~10^6/(n-1) maxima in a row
#: of OED(n): probability below 10^-2000 for every die up to OED(1000).
RAW_CAP = 1_000_000


@helper(forceinline=True)
def step_params(W, w, U, t, wall, immobile, frozen, far):
    """The constants of C-3 steps 2-8 for one weapon, target and situation.

    Returns ``(halve_raw, double, add, res, halve_final)`` for :func:`apply_steps`.
    """
    dtype = W[L.W_TYPE, w]
    flags = W[L.W_FLAGS, w]
    rangepen = far != 0 and flags & L.F_RANGEPEN != 0
    halve_raw = rangepen and far == 1  # C-5.3 [default]: halve the raw roll, round up
    halve_final = rangepen and far == 2  # C-5.3 alternative: halve the final damage
    double = 1 if vulnerable_to(U, t, dtype) else 0  # step 2
    add = 0
    if immobile or U[L.U_FLAGS, t] & L.UF_IMMOBILE:  # step 3
        add += 1
    if frozen:  # C-4.3: a frozen target takes +1 at step 3 as well
        add += 1
    add -= wall  # step 4
    if not flags & L.F_AN:  # step 5
        add -= U[L.U_ARMOR, t]
    res = U[L.U_RES0 + dtype, t]  # step 7
    return halve_raw, double, add, res, halve_final


@helper(forceinline=True)
def apply_steps(total, shield_roll, halve_raw, double, add, res, halve_final):
    """C-3 steps 2-8 on a raw roll, with the constants of :func:`step_params`.

    Free of data-dependent branches (its ``if``s test constants), so that the
    lane sampler's loop vectorises around it.
    """
    if halve_raw:
        total = (total + 1) >> 1  # round up; rolls are >= 0
    if double:  # step 2
        total *= 2
    total += add - shield_roll  # steps 3-6 (shield_roll is 0 when step 6 is skipped)
    if res != 0:
        # Step 7, floored.  A negative total ends at 0 in step 8 whatever the
        # resistance, so clamp first; then q // 100 is the multiply-shift below,
        # exact for 0 <= q < 8.38e8 (q <= 2e8 here, with res <= 100).
        q = min(max(total, 0), 2 * RAW_CAP) * (100 - res)
        total = (q * 10995116278) >> 40
    if halve_final and total > 0:
        total = (total + 1) >> 1
    return max(total, 0)  # step 8: below 1 nothing happens


@helper(forceinline=True)
def after_roll(total, shield_roll, W, w, U, t, wall, immobile, frozen, far):
    """C-3 steps 2-8 (and C-5.3) for a raw roll ``total`` and a step-6 ``shield_roll``."""
    halve_raw, double, add, res, halve_final = step_params(W, w, U, t, wall, immobile, frozen, far)
    return np.int64(apply_steps(total, shield_roll, halve_raw, double, add, res, halve_final))


@njit(cache=True, error_model="numpy")
def lane_setup(W, w, U, t, wall, immobile, frozen, far):
    """Python's way to the lane sampler's per-hit constants (the three above are helpers).

    Returns ``(shield_faces, ethereal_applies, step_params)`` for weapon w on unit t.
    """
    return (
        shield_faces(W, w, U, t),
        ethereal_applies(W, w, U, t),
        step_params(W, w, U, t, wall, immobile, frozen, far),
    )


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


# Columns of :func:`hit_trace`'s record of one hit (the replay log, issue 12).
TR_ETHEREAL = 0  # 1 when C-3.9 made the hit miss an ethereal target
TR_DIE = 1  # the die rolled: weapon die plus strength (C-1.5)
TR_ROLL = 2  # the OED roll itself
TR_T1 = 3  # step 1: the raw total T (halved here at long range, C-5.3 [default])
TR_T2 = 4  # after step 2 (vulnerability)
TR_T3 = 5  # after step 3 (cannot move; frozen, C-4.3)
TR_T4 = 6  # after step 4 (wall)
TR_T5 = 7  # after step 5 (armour)
TR_SHIELD = 8  # the step 6 shield roll
TR_T6 = 9  # after step 6 (shield)
TR_T7 = 10  # after step 7 (resistance; C-5.3 "final" halving is applied here too)
TR_T8 = 11  # step 8: the damage done (0 when T < 1)
N_TRACE = 12


@helper
def hit_trace(s, W, w, U, t, strength, wall, immobile, frozen, far, out):
    """:func:`hit_damage` step by step, writing each step's value to ``out`` (TR_*).

    Draws exactly the numbers :func:`hit_damage` draws, in the same order, so
    the replay log calls it on a copy of the battle's stream just before the
    real hit and records what that hit will do.  Returns the damage.
    """
    out[:] = 0
    if W[L.W_TYPE, w] == L.T_PARALYSIS:  # C-4.9
        return np.int64(0)
    if ethereal_applies(W, w, U, t):  # C-3.9
        if bounded(s, ETHEREAL_DIE) != 0:
            out[TR_ETHEREAL] = 1
            return np.int64(0)
    size = W[L.W_DIE, w] + (0 if W[L.W_FLAGS, w] & L.F_NOSTR else strength)  # C-1.5
    out[TR_DIE] = size
    word = next_u64(s)  # as in hit_damage_fast: its low half is the shield roll
    total = oed(s, size)
    out[TR_ROLL] = total
    faces = shield_faces(W, w, U, t)
    shield_roll = bounded_from(s, word & _MASK32, faces) if faces > 0 else 0
    halve_raw, double, _, res, halve_final = step_params(W, w, U, t, wall, immobile, frozen, far)
    if halve_raw:
        total = (total + 1) >> 1
    out[TR_T1] = total
    if double:
        total *= 2
    out[TR_T2] = total
    if immobile or U[L.U_FLAGS, t] & L.UF_IMMOBILE:
        total += 1
    if frozen:
        total += 1
    out[TR_T3] = total
    total -= wall
    out[TR_T4] = total
    if not W[L.W_FLAGS, w] & L.F_AN:
        total -= U[L.U_ARMOR, t]
    out[TR_T5] = total
    out[TR_SHIELD] = shield_roll
    total -= shield_roll
    out[TR_T6] = total
    if res != 0:
        total = (max(total, 0) * (100 - res)) // 100
    if halve_final and total > 0:
        total = (total + 1) >> 1
    out[TR_T7] = total
    out[TR_T8] = max(total, 0)
    return np.int64(out[TR_T8])
