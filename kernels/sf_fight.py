"""A whole Shared†Fantasia party-vs-party fight (RULES.md S-1 to S-10), in Numba.

The battlefield is conceptual (S-6): each side has a front and a back line,
and the front lines in contact form the engage area.  In a corridor (S-9) a
side may be attacked from both ends: its front-liners then stand at end 0 or
end 1, the attackers form one group per end, and each end has its own engage
area.  Each round every standing character rolls initiative (S-8) and takes
one action chosen by the policy in ``Q`` (see :class:`montecarlo.sf.fights.Policy`):

1. catch its breath when fatigue is high (S-4);
2. a back-liner takes cover when threatened (S-6): behind cover where the
   battlefield has it (once), or, unless it casts, by removing a secured line
   of fire that only enemy shooters use;
3. a caster casts its spell at the area holding the most enemies net of allies
   (itself included), when that is more enemies than allies (S-7);
4. a shooter shoots (S-6): at the enemy back line through a line of fire
   (securing it is the action, where one is needed and allowed), else into
   an engage area, where the d6 procedure picks who is hit, else at enemy
   front-liners that reach its back line.  Where the policy forbids shooting
   into a melee with allies in it, such a shooter waits for a clear shot, or
   in the melee itself (the open battlefield) goes on to 5 and 6;
5. a front-liner with a melee weapon attacks: an enemy front-liner in its
   engage area, else (no contact) the enemy back line directly;
6. a back-liner with a melee weapon steps up to the front line.

Opportunity attacks (S-5) follow fumbles, dramatic melee evades and casting
in the engage area.  An opportunity attack is an ordinary melee attack, so
its own fumble, or a dramatic evade against it, triggers another in turn
(``SFRules.chain_opportunity_attacks``; off, they never chain), and each
character makes at most one per round.

Per-character state lives in ``S[field, i]``; event counters in ``E[side, k]``.
``replay_fight`` plays one fight of a run again with an event log
(:mod:`kernels.sf_log`); the batch path passes no log and compiles none.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels import sf_layout as F
from kernels import sf_log as G
from kernels.borrow import borrowed
from kernels.jit import helper
from kernels.rng import bounded, chance, seed_trial
from kernels.sf_dice import check, succeeded
from kernels.sf_dice import roll_2d6 as roll2d6

# State fields.
S_STATUS = 0
S_LINE = 1
S_INJ = 2
S_FAT = 3
S_PEAK = 4
S_HEAVY = 5
S_AMMO = 6
S_LOF = 7  # a line of fire between the two back lines is secured (the same for all)
S_OPP_ROUND = 8  # round of its last opportunity attack
S_ACTED = 9  # has taken an action (ends the surprise penalty)
S_GONE_SEQ = 10  # event number when it stopped standing (-1: still standing)
S_ACT_SEQ = 11  # event number of its last action or attack
S_END = 12  # S-9 corridor: the end it fights at (0 without a second front)
S_COVER = 13  # S-6: in cover (+2 to evade shots and to saves, -2 to shoot and cast)
N_S = 14

# Seed values (S-6, S-8, S-9).
COVER_BONUS = 2
SURPRISE_PENALTY = 2
SHIP_PENALTY = 2
PINCER_BONUS = 1
TRIP_SAVE = np.int64(12)  # cliff path: Intuition save against a trip
DEATH_SAVE = np.int64(10)  # S-4: Fortitude against death, target 10

# Shot plans (S-6).
SHOT_NONE = 0
SHOT_BACK = 1  # at the enemy back line (line of fire, or the narrow room's near range)
SHOT_ENGAGE = 2  # into an engage area: friendly fire picks the target
SHOT_SECURE = 3  # secure a line of fire (the action)
SHOT_FRONT = 4  # at enemy front-liners that reach this back line (no engage area)
SHOT_ANY = 5  # a front-liner without contact: at any enemy
SHOT_HOLD = 6  # no shot: only into a melee with allies in it, which the policy refuses

# Typed constants for helper arguments (issue 13, cold start).  Numba compiles a
# helper once more for every Python literal it is passed (Literal[int](-1),
# Literal[bool](True), ...): some fifty extra compilations of this kernel's
# helpers.  These are plain int64 and boolean values, so each helper compiles
# once.
ANY = np.int64(-1)  # any line, any end
NOBODY = np.int64(-1)  # no character
FRONT = np.int64(0)  # the front line
BACK = np.int64(1)  # the back line
ZERO = np.int64(0)  # side 0, end 0
ONE = np.int64(1)  # side 1, end 1
YES = np.bool_(True)
NO = np.bool_(False)
D6 = np.int64(6)  # faces of a d6
TIE = np.int64(4096)  # the random tie-break in an initiative key


@helper(forceinline=True)
def d6_sum(s, n):
    t = 0
    for _ in range(n):
        t += bounded(s, D6) + 1
    return t


@helper(forceinline=True)
def check_ok(s, value, target):
    """One S-1.1 check (2d6 + value >= target, naturals 12 and 2 decide): True if made."""
    return succeeded(check(s, value, target))


@helper(forceinline=True)
def opposed(s, hit_value, evade_value, clash):
    """S-1.2: returns (hit, dramatic, attacker fumble, defender dramatic, defender fumble).

    ``clash`` settles two specials that disagree: 0 the totals decide [default],
    1 the passive side (the defender) wins.
    """
    na = roll2d6(s)
    nd = roll2d6(s)
    ta = na + hit_value
    td = nd + evade_value
    plain = ta > td
    a_says = 1 if na == 12 else (0 if na == 2 else -1)
    d_says = 0 if nd == 12 else (1 if nd == 2 else -1)
    if a_says >= 0 and d_says >= 0 and a_says != d_says:
        hit = plain if clash == 0 else False
    elif a_says >= 0:
        hit = a_says == 1
    elif d_says >= 0:
        hit = d_says == 1
    else:
        hit = plain
    dramatic = hit and na == 12 and ta >= td + 1
    afumble = na == 2 and ta < td + 1
    ddramatic = nd == 12 and td >= ta
    dfumble = nd == 2 and td < ta
    return hit, dramatic, afumble, ddramatic, dfumble


# -- who stands where (S-6, S-9) -------------------------------------------------------------
@helper(forceinline=True)
def count_at(C, S, side, line, end):
    """Standing characters of ``side`` on ``line`` at ``end`` (-1: any line or end)."""
    k = 0
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING:
            if (line < 0 or S[S_LINE, j] == line) and (end < 0 or S[S_END, j] == end):
                k += 1
    return k


@helper(forceinline=True)
def exists_at(C, S, side, line, end):
    """Whether a standing character of ``side`` stands on ``line`` at ``end`` (-1: any);
    stops at the first one (the fight loop asks this often)."""
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING:
            if (line < 0 or S[S_LINE, j] == line) and (end < 0 or S[S_END, j] == end):
                return True
    return False


@helper(forceinline=True)
def pick_at(s, C, S, side, line, end, cand):
    """A random standing character of ``side`` on ``line`` at ``end`` (-1: any), or -1."""
    k = np.int64(0)  # typed, not a literal: one compile of bounded
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING:
            if (line < 0 or S[S_LINE, j] == line) and (end < 0 or S[S_END, j] == end):
                cand[k] = j
                k += 1
    if k == 0:
        return -1
    return cand[bounded(s, k)]


@helper(forceinline=True)
def contact(C, S, B, end):
    """S-6 [default]: an engage area exists at ``end`` only while both sides have a
    standing front-liner there (on the open battlefield everyone is engaged)."""
    if B[F.B_OPEN] != 0:
        return True
    if B[F.B_CONTACT] == 0:  # the rule switched off: one front line alone is engaged
        return exists_at(C, S, ZERO, FRONT, end) or exists_at(C, S, ONE, FRONT, end)
    return exists_at(C, S, ZERO, FRONT, end) and exists_at(C, S, ONE, FRONT, end)


@helper(forceinline=True)
def engaged(C, S, B, i):
    """``i`` stands in an engage area (S-6)."""
    if B[F.B_OPEN] != 0:
        return True
    return S[S_LINE, i] == 0 and contact(C, S, B, S[S_END, i])


@helper(forceinline=True)
def pinched(C, S, B, side):
    """S-9 corridor: ``side`` is attacked from both ends and reduced to front-liners."""
    if B[F.B_PINCER_SIDE] != side:
        return False
    foe = 1 - side
    return (count_at(C, S, side, BACK, ANY) == 0 and count_at(C, S, foe, ANY, ZERO) > 0
            and count_at(C, S, foe, ANY, ONE) > 0)  # fmt: skip


@helper(forceinline=True)
def in_surprise(C, S, i):
    """S-8: surprised and has not acted yet."""
    return C[F.SURPRISED, i] != 0 and S[S_ACTED, i] == 0


@helper(forceinline=True)
def surprise_pen(C, S, target, attacker):
    """S-8: -2 to evades and saves of a surprised character that has not acted yet,
    against characters that are not surprised (``attacker`` -1: none)."""
    if in_surprise(C, S, target) and (attacker < 0 or not in_surprise(C, S, attacker)):
        return SURPRISE_PENALTY
    return 0


@helper(forceinline=True)
def ship_pen(C, B, i):
    """S-9 ship deck: -2 unless used to ships."""
    return SHIP_PENALTY if B[F.B_SHIP] != 0 and C[F.SHIPS, i] == 0 else 0


# -- one attack (S-2, S-3, S-4) -------------------------------------------------------------
@helper
def _fall(S, j, seq):
    if S[S_STATUS, j] == F.STANDING:
        S[S_GONE_SEQ, j] = seq
    S[S_STATUS, j] = F.OVERBOARD


@helper
def apply_damage(s, C, S, Q, j, dmg, kind, save_mod, seq):
    """Add injury or fatigue to j and make the S-4 checks.  Returns True if j went down."""
    if S[S_STATUS, j] != F.STANDING or dmg <= 0:
        return False  # S-4: a blow that deals no damage triggers no check
    hp = C[F.HP, j]
    was_over = S[S_INJ, j] + max(S[S_FAT, j], S[S_HEAVY, j]) >= hp
    if kind == F.K_FATIGUE:
        S[S_FAT, j] += dmg
        if S[S_FAT, j] > S[S_PEAK, j]:
            # heavy fatigue: +1 per new multiple of 5 of the highest fatigue
            S[S_HEAVY, j] += S[S_FAT, j] // 5 - S[S_PEAK, j] // 5
            S[S_PEAK, j] = S[S_FAT, j]
    else:
        S[S_INJ, j] += dmg
    inj = S[S_INJ, j]
    over = inj - hp
    if inj >= hp + 10:  # automatic death
        S[S_STATUS, j] = F.DEAD
    elif over > 0 or (over == 0 and Q[F.Q_DEATH_AT_HP] > 0):
        # death check [default: injury > HP]: Fortitude at target 10, penalty inj - hp;
        # a success still leaves the character fainted
        if check_ok(s, C[F.FORT, j] + save_mod - over, DEATH_SAVE):
            S[S_STATUS, j] = F.FAINTED
        else:
            S[S_STATUS, j] = F.DEAD
    elif inj + max(S[S_FAT, j], S[S_HEAVY, j]) >= hp and (
        Q[F.Q_FAINT_EVERY_HIT] > 0 or not was_over
    ):  # faint check: [default] on every hit while the condition holds
        target = 10 + inj + S[S_FAT, j] + S[S_HEAVY, j] - hp
        if not check_ok(s, C[F.FORT, j] + save_mod, target):
            S[S_STATUS, j] = F.FAINTED
    if S[S_STATUS, j] != F.STANDING:
        S[S_GONE_SEQ, j] = seq
        return True
    return False


@helper
def attack_values(C, S, B, Q, i, j, ranged, pinch):
    """Hit value, evade value, dice, bonus, damage type and kind of i's attack on j (S-2).

    ``pinch``: j's side is caught in a corridor pincer (S-9, +1 to attacks on it).
    """
    if ranged:
        hit_v = C[F.TECH, i] + C[F.COMBAT, i]
        eva_v = C[F.TECH, j] + C[F.COMBAT, j]
        if S[S_COVER, j] != 0:
            eva_v += COVER_BONUS  # S-6: cover against ranged attacks
        if S[S_COVER, i] != 0:
            hit_v -= COVER_BONUS  # shooting from cover
        n_dice = C[F.RW_N, i]
        bonus = C[F.RW_BONUS, i] + C[F.TECH, i]
        dtype = C[F.RW_TYPE, i]
        kind = F.K_INJURY
    else:
        hit_v = C[F.BODY, i] + C[F.COMBAT, i]
        eva_v = C[F.BODY, j] + C[F.COMBAT, j]
        n_dice = C[F.MW_N, i]
        bonus = C[F.MW_BONUS, i] + C[F.BODY, i]
        dtype = C[F.MW_TYPE, i]
        fat = C[F.MW_FATIGUE, i] != 0 or (Q[F.Q_FATIGUE_ATTACKS] > 0 and dtype == F.T_BLUNT)
        kind = F.K_FATIGUE if fat else F.K_INJURY
    if pinch:
        hit_v += PINCER_BONUS  # S-9 corridor: caught between two fronts
    hit_v -= ship_pen(C, B, i)
    eva_v -= ship_pen(C, B, j) + surprise_pen(C, S, j, i)
    return hit_v, eva_v, n_dice, bonus, dtype, kind


@helper(forceinline=True)
def roll_damage(s, C, j, n_dice, bonus, dtype, dramatic, dfumble):
    """Damage of a hit on j (S-2, S-3): dice doubled on a dramatic success, armour
    ignored on a defender fumble, never below 0, pierce doubled after armour."""
    dmg = d6_sum(s, 2 * n_dice if dramatic else n_dice) + bonus
    if not dfumble:
        dmg -= C[F.ARMOR0 + dtype, j]
    if dmg < 0:
        dmg = 0
    if dtype == F.T_PIERCE:
        dmg *= 2
    return dmg


@helper
def weapon_hit(s, C, S, B, Q, E, i, j, ranged, seq, log):
    """One attack of i on j (S-2, S-3).  Returns (damage dealt, a, d) where a/d
    flag an attacker fumble and a defender dramatic melee evade (for S-5).
    ``log``: None, or the replay's event buffer (:mod:`kernels.sf_log`)."""
    side = C[F.SIDE, i]
    E[side, F.E_ATTACKS] += 1
    S[S_ACT_SEQ, i] = seq
    pinch = pinched(C, S, B, C[F.SIDE, j])
    hit_v, eva_v, n_dice, bonus, dtype, kind = attack_values(C, S, B, Q, i, j, ranged, pinch)
    if log is not None:  # the two 2d6 of the opposed check, rolled again on a copy
        probe = s.copy()
        row = G.emit(log, G.EV_ATTACK, i, j, 1 if ranged else 0, 0)
        G.set_col(log, row, G.C_HIT_VALUE, hit_v)
        G.set_col(log, row, G.C_EVADE_VALUE, eva_v)
        G.set_col(log, row, G.C_HIT_ROLL, roll2d6(probe))
        G.set_col(log, row, G.C_EVADE_ROLL, roll2d6(probe))
    hit, dramatic, afumble, ddramatic, dfumble = opposed(s, hit_v, eva_v, Q[F.Q_CLASH])
    if afumble:
        E[side, F.E_FUMBLES] += 1
    dealt = 0
    trip = (not ranged and (B[F.B_CLIFF] != 0 or B[F.B_SHIP] != 0)
            and chance(s, Q[F.Q_TRIP_CHANCE]))  # fmt: skip
    if hit:
        E[side, F.E_HITS] += 1
        if dramatic:
            E[side, F.E_DRAMATIC] += 1
        if trip:
            if B[F.B_SHIP] != 0:
                _fall(S, j, seq)  # S-9 ship deck: a trip sends the target overboard
                dealt = 1
            elif not check_ok(s, C[F.INTU, j] - surprise_pen(C, S, j, i), TRIP_SAVE):
                _fall(S, j, seq)  # S-9 cliff path: off the cliff unless Intuition 12
                dealt = 1
        else:
            dmg = roll_damage(s, C, j, n_dice, bonus, dtype, dramatic, dfumble)
            if dmg > 0:
                apply_damage(s, C, S, Q, j, dmg, kind, -surprise_pen(C, S, j, i), seq)
            dealt = dmg
    if B[F.B_SHIP] != 0:  # S-9: a fumbled melee hit roll or any fumbled evade goes overboard
        if afumble and not ranged:
            _fall(S, i, seq)
        if dfumble and S[S_STATUS, j] == F.STANDING:
            _fall(S, j, seq)
    if log is not None:
        G.set_col(log, row, G.C_HIT, 1 if hit else 0)
        special = (1 if dramatic else 0) + (2 if afumble else 0) + (4 if ddramatic else 0)
        G.set_col(log, row, G.C_SPECIAL, special + (8 if dfumble else 0))
        G.set_col(log, row, G.C_DAMAGE, dealt)
        G.set_col(log, row, G.C_DAMAGE_KIND, kind)
        G.set_col(log, row, G.C_INJURY, S[S_INJ, j])
        G.set_col(log, row, G.C_FATIGUE, S[S_FAT, j])
        G.set_col(log, row, G.C_FLAG, 1 if hit and trip else 0)
    return dealt, afumble, ddramatic and not ranged


# -- opportunity attacks (S-5) -----------------------------------------------------------------
@helper(forceinline=True)
def can_opportunity(C, S, B, by, rnd, touching):
    """``by`` may make an opportunity attack now: standing, armed for melee, in the
    engage area (or ``touching`` its victim in melee), none yet this round, and not
    surprised in round 1 (S-8)."""
    if S[S_STATUS, by] != F.STANDING or C[F.MW, by] == 0 or S[S_OPP_ROUND, by] == rnd:
        return False
    if rnd == 1 and C[F.SURPRISED, by] != 0:
        return False
    return touching or engaged(C, S, B, by)


@helper
def _strike(s, C, S, B, Q, E, by, on, rnd, seq, touching, chained, log):
    """One opportunity attack of ``by`` on ``on`` (S-5), if ``by`` may make one: an
    ordinary melee attack.  Returns (damage dealt, attacker fumble, dramatic evade),
    all nothing when it is not made.  ``chained``: set off by another opportunity
    attack (the replay marks it)."""
    if S[S_STATUS, on] != F.STANDING or not can_opportunity(C, S, B, by, rnd, touching):
        return 0, False, False
    S[S_OPP_ROUND, by] = rnd
    E[C[F.SIDE, by], F.E_OPPORTUNITY] += 1
    if log is not None:
        G.emit(log, G.EV_OPPORTUNITY, by, on, 1 if chained else 0, 0)
    return weapon_hit(s, C, S, B, Q, E, by, on, NO, seq, log)


@helper(forceinline=True)
def _opportunist(s, C, S, B, by, foe, on, rnd, pool, any_of_side, first):
    """Who makes the next attack of side ``foe`` on ``on`` after a fumble or a dramatic
    melee evade (S-5): returns (character, touching), character -1 when nobody does.

    On the ``first`` attack ``by`` (-1: none), the character in melee with ``on``,
    strikes if it can; otherwise, with ``any_of_side`` (a fumble: the defender's side
    gets the attack), a random other engaged character stands in.
    """
    if first:
        if by >= 0 and can_opportunity(C, S, B, by, rnd, YES):
            return by, True
        if not any_of_side:
            return NOBODY, False
    if S[S_STATUS, on] != F.STANDING:
        return NOBODY, False
    k = _free_opportunists(C, S, B, foe, on, rnd, pool)
    if k == 0:
        return NOBODY, False
    return pool[bounded(s, k)], False


@helper
def opportunity(s, C, S, B, Q, E, by, on, rnd, seq, touching, pool, log):
    """One opportunity attack of ``by`` on ``on`` (S-5), if ``by`` may make one, and
    the attacks it sets off in turn; returns the damage ``on`` took from them.

    S-5 chaining (``Q_CHAIN_OPP``): an opportunity attack is an ordinary melee
    attack, so its fumble gives its victim's side an attack on the attacker (the
    victim first, another engaged character standing in), and a dramatic evade
    against it gives the victim a counter, up to ``Q_SPECIAL_OPP`` attacks each,
    within the limit of one opportunity attack per character per round.  Each
    attack's own chain is played out before the next attack of the same trigger.
    A loop over a stack of unfinished triggers rather than recursion (Numba).
    ``pool`` is scratch space for the stand-ins.
    """
    dealt, afumble, ddramatic = _strike(s, C, S, B, Q, E, by, on, rnd, seq, touching, NO, log)
    if Q[F.Q_CHAIN_OPP] == 0 or not (afumble or ddramatic):
        return dealt
    harm = S[S_INJ, on] + S[S_FAT, on]
    per = np.int64(Q[F.Q_SPECIAL_OPP])
    # unfinished triggers: (victim, attacks left, any of side); at most one per
    # opportunity attack made, so at most one per character this round
    stack = np.empty((C.shape[1], 3), np.int64)
    depth = 0
    # the trigger now played: its victim ``tv`` (``by`` here), who counters first
    # (``first_by``, ``on`` here), side ``foe`` strikes
    first_by, tv, any_side, left, first = on, by, afumble, per, True
    while True:
        x = NOBODY
        touch = False
        if left > 0:
            x, touch = _opportunist(s, C, S, B, first_by, 1 - C[F.SIDE, tv], tv, rnd, pool,
                                    any_side, first)  # fmt: skip
        if x < 0:  # this trigger is done: back to the one it interrupted
            if depth == 0:
                break
            depth -= 1
            tv, left, any_side = stack[depth, 0], stack[depth, 1], stack[depth, 2] != 0
            first = False
            continue
        first = False
        left -= 1
        _, af, dd = _strike(s, C, S, B, Q, E, x, tv, rnd, seq, touch, YES, log)
        if af or dd:  # the attack sets off the next: x's fumble, or tv's dramatic evade
            if left > 0 and depth < stack.shape[0]:  # the limit keeps depth below n
                stack[depth, 0] = tv
                stack[depth, 1] = left
                stack[depth, 2] = 1 if any_side else 0
                depth += 1
            first_by, tv, any_side, left, first = tv, x, af, per, True
    return dealt + S[S_INJ, on] + S[S_FAT, on] - harm


@helper
def _free_opportunists(C, S, B, side, on, rnd, pool):
    """Characters of ``side`` that may make an opportunity attack on ``on`` from its
    engage area (S-5), into ``pool``; returns how many."""
    if S[S_STATUS, on] != F.STANDING or not engaged(C, S, B, on):
        return 0
    open_field = B[F.B_OPEN] != 0
    k = np.int64(0)  # typed, not a literal: one compile of bounded
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == side and (open_field or S[S_END, j] == S[S_END, on]):
            if can_opportunity(C, S, B, j, rnd, NO):
                pool[k] = j
                k += 1
    return k


@helper
def special_opportunity(s, C, S, B, Q, E, by, foe, on, rnd, seq, pool, any_of_side, log):
    """After a fumble or a dramatic melee evade, side ``foe`` attacks ``on``, up to
    Q_SPECIAL_OPP attacks (S-5 [default] 1).  ``by`` (-1: none) strikes first: the
    character in melee with ``on``.  With ``any_of_side`` (a fumble: the defender's
    side gets the attack) another engaged character stands in when ``by`` cannot.
    Each attack sets off its own chain (:func:`opportunity`)."""
    left = np.int64(Q[F.Q_SPECIAL_OPP])
    first = True
    while left > 0 and S[S_STATUS, on] == F.STANDING:
        x, touching = _opportunist(s, C, S, B, by, foe, on, rnd, pool, any_of_side, first)
        if x < 0:
            return
        first = False
        opportunity(s, C, S, B, Q, E, x, on, rnd, seq, touching, pool, log)
        left -= 1


# -- friendly fire (S-6) -------------------------------------------------------------------------
@helper(forceinline=True)
def pick_among(s, m):
    """S-6: one d6 picks one of m <= 6 (odd/even, pairs of faces, or one face each)."""
    if m <= 1:
        return 0
    face = bounded(s, D6) + 1
    if m == 2:
        return (face - 1) % 2
    if m == 3:
        return (face - 1) // 2
    while face > m:  # reroll the unused faces
        face = bounded(s, D6) + 1
    return face - 1


@helper
def friendly_fire_pick(s, n, six):
    """S-6: index in 0..n-1 of the engaged character a shot into the melee hits.

    Above 6 characters a d6 picks a group: [default] as few groups as hold them
    (7-12 make 2, 13-18 make 3, ...), or always 6 when ``six`` is true.
    """
    offset = 0
    size = n
    while size > 6:
        g = 6 if six else min(6, (size + 5) // 6)
        base = size // g
        extra = size % g
        k = pick_among(s, g)
        # groups: the first `extra` have base + 1 members (larger groups first)
        if k < extra:
            offset += k * (base + 1)
            size = base + 1
        else:
            offset += extra * (base + 1) + (k - extra) * base
            size = base
    return offset + pick_among(s, size)


@helper(forceinline=True)
def _engaged_list(C, S, B, Q, end, shooter, out, foes, allies):
    """Standing characters in the engage area at ``end`` but the shooter, listed
    alternately enemy and ally of the shooter, enemies first (S-6 [default]
    balanced groups), or in slot order; returns how many."""
    side = C[F.SIDE, shooter]
    open_field = B[F.B_OPEN] != 0
    balanced = Q[F.Q_FF_BALANCED] > 0
    nf = 0
    na = 0
    for j in range(C.shape[1]):
        if j == shooter or S[S_STATUS, j] != F.STANDING:
            continue
        if open_field or (S[S_LINE, j] == 0 and S[S_END, j] == end):
            if C[F.SIDE, j] == side and balanced:
                allies[na] = j
                na += 1
            else:
                foes[nf] = j
                nf += 1
    k = np.int64(0)  # typed, not a literal: one compile of bounded
    for q in range(max(nf, na)):
        if q < nf:
            out[k] = foes[q]
            k += 1
        if q < na:
            out[k] = allies[q]
            k += 1
    return k


@helper(forceinline=True)
def ally_engaged(C, S, B, i, end):
    """Another standing character of i's side is in the engage area at ``end`` (on the
    open battlefield: anywhere), so a shot into it may hit an ally (S-6)."""
    open_field = B[F.B_OPEN] != 0
    for j in range(C.shape[1]):
        if j == i or C[F.SIDE, j] != C[F.SIDE, i] or S[S_STATUS, j] != F.STANDING:
            continue
        if open_field or (S[S_LINE, j] == 0 and S[S_END, j] == end):
            return True
    return False


# -- magic (S-7) ---------------------------------------------------------------------------------
@helper(forceinline=True)
def in_area(C, S, B, Q, i, j, area, line, end):
    """S-7: ``j`` stands inside the circle ``area`` that ``i`` casts at the enemy ``line``
    (-1: the whole side) at ``end`` (-1: every end)."""
    if j == i and Q[F.Q_SELF_AREA] == 0:
        return False  # the rule switched off: the caster is never affected
    if area == 3 or (area == 2 and B[F.B_NARROW] != 0):
        return True  # everyone, the caster included [default]
    if C[F.SIDE, j] != C[F.SIDE, i]:
        return line < 0 or (S[S_LINE, j] == line and (end < 0 or S[S_END, j] == end))
    # own front line caught with the engaged enemy front
    inside = line <= 0 and S[S_LINE, j] == 0 and engaged(C, S, B, j)
    if inside and line == 0 and B[F.B_OPEN] == 0:
        inside = S[S_END, j] == end  # S-9 corridor: one end only
    return inside


@helper(forceinline=True)
def _area_score(C, S, B, Q, i, area, line, end):
    """Enemies minus allies (the caster included) standing inside the area."""
    score = 0
    for j in range(C.shape[1]):
        if S[S_STATUS, j] == F.STANDING and in_area(C, S, B, Q, i, j, area, line, end):
            score += 1 if C[F.SIDE, j] != C[F.SIDE, i] else -1
    return score


@helper(forceinline=True)
def choose_area(C, S, B, Q, i):
    """The policy's aim for i's spell (S-7): (worth casting, line, end).

    A single-target spell takes a random enemy.  An area spell takes the area
    with the most enemies net of allies inside (the caster included; a small
    circle picks the enemy front at one end, or the enemy back line, front and
    end 0 first on ties), and is cast only when that is more enemies than allies.
    """
    area = C[F.SP_AREA, i]
    if area == 0:
        return True, -1, -1
    if area != 1:
        return _area_score(C, S, B, Q, i, area, ANY, ANY) > 0, -1, -1
    best, best_line, best_end = _area_score(C, S, B, Q, i, np.int64(1), BACK, ANY), 1, -1
    ends = 2 if B[F.B_PINCER_SIDE] >= 0 else 1
    for e in range(ends - 1, -1, -1):
        score = _area_score(C, S, B, Q, i, np.int64(1), FRONT, e)
        if score >= best:
            best, best_line, best_end = score, 0, e
    return best > 0, best_line, best_end


@helper
def cast(s, C, S, B, Q, E, i, line, end, rnd, seq, cand, targets, log):
    """Cast i's spell at the area (``line``, ``end``) of :func:`choose_area` (S-7),
    after the opportunity attacks it provokes (S-5)."""
    side = C[F.SIDE, i]
    foe = 1 - side
    S[S_ACT_SEQ, i] = seq
    if engaged(C, S, B, i):
        if log is not None:  # what the caster has taken before the attacks
            harm = S[S_INJ, i] + S[S_FAT, i]
        # S-5 count rule: front-liners in the engage area, the caster left out
        if B[F.B_OPEN] != 0:
            mine = count_at(C, S, side, ANY, ANY) - 1
            theirs = count_at(C, S, foe, ANY, ANY)
        else:
            mine = count_at(C, S, side, FRONT, S[S_END, i]) - 1
            theirs = count_at(C, S, foe, FRONT, S[S_END, i])
        hurt = 0
        for _ in range(theirs - mine):
            # a random eligible enemy in the engage area who has not yet attacked this round
            k = _free_opportunists(C, S, B, foe, i, rnd, targets)
            if k == 0:
                break
            j = targets[bounded(s, k)]
            hurt += opportunity(s, C, S, B, Q, E, j, i, rnd, seq, NO, targets, log)
        if hurt > 0 or S[S_STATUS, i] != F.STANDING:
            if log is not None:  # the attempt, which the attacks above cut short
                G.emit(log, G.EV_CAST_FAILED, i, -1, 0, S[S_INJ, i] + S[S_FAT, i] - harm)
            return  # S-5: damaged by an opportunity attack, the spell fails
    area = C[F.SP_AREA, i]
    n_t = 0
    if area == 0:
        j = pick_at(s, C, S, foe, ANY, ANY, cand)
        if j >= 0:
            targets[0] = j
            n_t = 1
    else:
        for j in range(C.shape[1]):
            # S-7 [default]: the caster is affected when it stands inside its own area
            if S[S_STATUS, j] == F.STANDING and in_area(C, S, B, Q, i, j, area, line, end):
                targets[n_t] = j
                n_t += 1
    strength = C[F.SP_STAT, i] + roll2d6(s)
    if S[S_COVER, i] != 0:
        strength -= COVER_BONUS  # S-6: casting from cover
    if log is not None:
        row = G.emit(log, G.EV_CAST, i, -1, C[F.SP_AREA, i], strength)
        G.set_col(log, row, G.C_LINE, line)
        G.set_col(log, row, G.C_END, end)
    for q in range(n_t):
        j = targets[q]
        save_field = F.FORT + C[F.SP_SAVE, i]  # FORT, INTU, WILL are consecutive
        save = C[save_field, j] - surprise_pen(C, S, j, i)
        if S[S_COVER, j] != 0:
            save += COVER_BONUS  # S-6: +2 to saves in cover
        if save_field == F.INTU:
            save -= ship_pen(C, B, j)
        if log is not None:  # the save, rolled again on a copy of the stream
            row = G.emit(log, G.EV_SAVE, i, j, 0, save)
            G.set_col(log, row, G.C_HIT, 1 if check_ok(s.copy(), save, strength) else 0)
            harm = S[S_INJ, j] + S[S_FAT, j]
        if check_ok(s, save, strength):
            n, bonus, kind = C[F.SP_OK_N, i], C[F.SP_OK_BONUS, i], C[F.SP_OK_KIND, i]
        else:
            n, bonus, kind = C[F.SP_FAIL_N, i], C[F.SP_FAIL_BONUS, i], C[F.SP_FAIL_KIND, i]
        if kind == F.K_SLEEP:
            if S[S_STATUS, j] == F.STANDING:
                S[S_STATUS, j] = F.FAINTED  # asleep: out of the fight [default]
                S[S_GONE_SEQ, j] = seq
        elif kind != F.K_NONE:
            dmg = d6_sum(s, n) + bonus
            apply_damage(s, C, S, Q, j, dmg, kind, -surprise_pen(C, S, j, i), seq)
        if log is not None:
            G.set_col(log, row, G.C_DAMAGE, S[S_INJ, j] + S[S_FAT, j] - harm)
            G.set_col(log, row, G.C_DAMAGE_KIND, kind)
            G.set_col(log, row, G.C_INJURY, S[S_INJ, j])
            G.set_col(log, row, G.C_FATIGUE, S[S_FAT, j])


# -- lines, shots and cover (S-6, S-9) -------------------------------------------------------------
@helper
def _fill_front(s, C, S, B, side, cand):
    """Keep the front line manned (S-9 caps per side and end): back-liners with a melee
    weapon step up where the front is empty, pure melee fighters up to the cap.  A
    pinched side's front-liners at an end with no enemy left turn to the other end."""
    cap = B[F.B_FRONT_CAP]
    pinc = B[F.B_PINCER_SIDE]
    ends = 2 if pinc >= 0 else 1
    n = C.shape[1]
    if side == pinc:
        for e in range(2):
            if count_at(C, S, 1 - side, ANY, e) == 0:
                room = cap - count_at(C, S, side, FRONT, 1 - e)
                for j in range(n):
                    if (C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING
                            and S[S_LINE, j] == 0 and S[S_END, j] == e):  # fmt: skip
                        S[S_END, j] = 1 - e
                        if cap > 0 and room <= 0:
                            S[S_LINE, j] = 1
                        room -= 1
    for e in range(ends):
        if side == pinc and count_at(C, S, 1 - side, ANY, e) == 0:
            continue  # nobody to face at this end
        front = count_at(C, S, side, FRONT, e)
        while cap == 0 or front < cap:
            k = np.int64(0)  # typed, not a literal: one compile of bounded
            for j in range(n):
                if C[F.SIDE, j] != side or S[S_STATUS, j] != F.STANDING or S[S_LINE, j] != 1:
                    continue
                if side != pinc and S[S_END, j] != e:
                    continue  # an attacking group fills its own end
                pure_melee = C[F.RW, j] == 0 and C[F.SP, j] == 0
                if C[F.MW, j] != 0 and (front == 0 or pure_melee):
                    cand[k] = j
                    k += 1
            if k == 0:
                break
            # a random one of them, so that the written order does not matter
            j = cand[0] if k == 1 else cand[bounded(s, k)]
            S[S_LINE, j] = 0
            S[S_END, j] = e
            S[S_COVER, j] = 0
            front += 1


@helper(forceinline=True)
def _contact_end(s, C, S, B, i):
    """The end of an engage area a shooter in the back line can shoot into, or -1; a
    pinched side's back line sits between its two ends and picks one at random."""
    if C[F.SIDE, i] == B[F.B_PINCER_SIDE]:
        c0 = contact(C, S, B, ZERO)
        c1 = contact(C, S, B, ONE)
        if c0 and c1:
            return bounded(s, np.int64(2))
        return 0 if c0 else (1 if c1 else -1)
    return S[S_END, i] if contact(C, S, B, S[S_END, i]) else -1


@helper(forceinline=True)
def shot_plan(s, C, S, B, Q, i, cand):
    """What i's shot would be (S-6, S-9): returns (plan, end)."""
    foe = 1 - C[F.SIDE, i]
    if B[F.B_OPEN] != 0:
        return SHOT_ENGAGE, 0  # S-9 open battlefield: everyone is in the engage area
    n_back = exists_at(C, S, foe, BACK, ANY)
    if S[S_LINE, i] == 0:  # near range from the front line: no line of fire needed
        if n_back > 0:
            return SHOT_BACK, -1
        e = S[S_END, i]
        return (SHOT_ENGAGE, e) if contact(C, S, B, e) else (SHOT_ANY, -1)
    if n_back > 0 and B[F.B_NARROW] != 0:
        return SHOT_BACK, -1  # S-9 narrow room: the back line at near range
    if n_back > 0 and B[F.B_NO_BACK_LOF] == 0 and B[F.B_NARROW] == 0:
        if S[S_LOF, i] != 0:
            return SHOT_BACK, -1  # a secured line runs both ways
        if Q[F.Q_SECURE_LOF] > 0:
            return SHOT_SECURE, -1
    e = _contact_end(s, C, S, B, i)
    if e >= 0:
        return SHOT_ENGAGE, e
    if _uncontacted_front(C, S, B, i, cand) > 0:
        return SHOT_FRONT, -1  # enemy front-liners reach this back line: near range
    return SHOT_NONE, -1  # S-6 [default]: no engage area, and no line of fire


@helper(forceinline=True)
def _uncontacted_front(C, S, B, i, cand):
    """Enemy front-liners without an engage area, that reach i's back line, into
    ``cand``; returns how many."""
    foe = 1 - C[F.SIDE, i]
    pinc = B[F.B_PINCER_SIDE]
    k = 0
    for j in range(C.shape[1]):
        if C[F.SIDE, j] != foe or S[S_STATUS, j] != F.STANDING or S[S_LINE, j] != 0:
            continue
        if C[F.SIDE, i] != pinc and S[S_END, j] != S[S_END, i]:
            continue  # an attacking group's back line faces its own end only
        if not contact(C, S, B, S[S_END, j]):
            cand[k] = j
            k += 1
    return k


@helper(forceinline=True)
def _ranged_threat(C, S, foe):
    """Side ``foe`` has a standing shooter with ammunition or a caster."""
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == foe and S[S_STATUS, j] == F.STANDING:
            if (C[F.RW, j] != 0 and S[S_AMMO, j] != 0) or C[F.SP, j] != 0:
                return True
    return False


@helper(forceinline=True)
def _line_user(C, S, side):
    """Side ``side`` has a standing back-line shooter with ammunition."""
    for j in range(C.shape[1]):
        if (C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING and S[S_LINE, j] == 1
                and C[F.RW, j] != 0 and S[S_AMMO, j] != 0):  # fmt: skip
            return True
    return False


@helper(forceinline=True)
def cover_plan(C, S, B, Q, i):
    """The policy's take-cover action for i (S-6, S-8): 0 none, 1 hide behind cover,
    2 remove the secured line of fire."""
    if Q[F.Q_TAKE_COVER] == 0 or S[S_LINE, i] != 1:
        return 0
    side = C[F.SIDE, i]
    foe = 1 - side
    if B[F.B_COVER] != 0 and S[S_COVER, i] == 0 and _ranged_threat(C, S, foe):
        return 1
    if C[F.SP, i] != 0 and Q[F.Q_CAST] > 0:
        return 0  # a caster casts rather than fight over lines of fire
    if S[S_LOF, i] != 0 and _line_user(C, S, foe) and not _line_user(C, S, side):
        # the seed: only while the front line holds its engage area
        ends = 2 if B[F.B_PINCER_SIDE] >= 0 else 1
        for e in range(ends):
            if count_at(C, S, side, FRONT, e) > 0 and contact(C, S, B, e):
                return 2
    return 0


@helper(forceinline=True)
def _melee_target(s, C, S, B, i, cand):
    """S-6: an enemy front-liner at i's end, else (no contact) the enemy back line."""
    foe = 1 - C[F.SIDE, i]
    if B[F.B_OPEN] != 0:
        return pick_at(s, C, S, foe, ANY, ANY, cand)
    e = S[S_END, i]
    if exists_at(C, S, foe, FRONT, e):
        return pick_at(s, C, S, foe, FRONT, e, cand)
    back_end = -1 if foe == B[F.B_PINCER_SIDE] else e
    if exists_at(C, S, foe, BACK, back_end):
        return pick_at(s, C, S, foe, BACK, back_end, cand)
    return pick_at(s, C, S, foe, ANY, ANY, cand)


@helper(forceinline=True)
def _initiative_roll(s, Q):
    """S-8 [default]: the dice of an initiative roll, 2d6 unless ``Q_INIT_DICE`` says otherwise."""
    n = np.int64(Q[F.Q_INIT_DICE])
    if n == 2:
        return roll2d6(s)  # the default keeps its own draws
    return d6_sum(s, n)


@helper
def coup_de_grace(s, C, S, B, i, cand):
    """S-4 (``Policy.coup_de_grace``): with no standing enemy front-liner at its end,
    front-liner ``i`` strikes a fainted enemy front-liner there a finishing blow, which
    kills it.  Returns True if it did (that is its action).

    In the open everyone standing is in reach, so there is never a fainted enemy
    to finish while the fight goes on.
    """
    if B[F.B_OPEN] != 0:
        return False
    foe = 1 - C[F.SIDE, i]
    e = S[S_END, i]
    if exists_at(C, S, foe, FRONT, e):
        return False
    k = np.int64(0)  # typed, not a literal: one compile of bounded
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == foe and S[S_STATUS, j] == F.FAINTED:
            if S[S_LINE, j] == 0 and S[S_END, j] == e:
                cand[k] = j
                k += 1
    if k == 0:
        return False
    S[S_STATUS, cand[bounded(s, k)]] = F.DEAD  # S-4: a finishing blow kills
    return True


@helper
def shoot(s, C, S, B, Q, E, i, plan, end, rnd, seq, cand, targets, foes, allies, log):
    """Make i's shot (S-6): find the target, spend the ammunition, resolve the attack."""
    side = C[F.SIDE, i]
    foe = 1 - side
    ally = False
    if plan == SHOT_BACK:
        j = pick_at(s, C, S, foe, BACK, ANY, cand)
    elif plan == SHOT_ENGAGE:
        # into the engage area: the d6 procedure picks who is hit (S-6)
        k = _engaged_list(C, S, B, Q, end, i, targets, foes, allies)
        j = targets[friendly_fire_pick(s, k, Q[F.Q_FF_SIX] > 0)] if k > 0 else -1
        ally = j >= 0 and C[F.SIDE, j] == side
    elif plan == SHOT_FRONT:
        k = _uncontacted_front(C, S, B, i, cand)
        j = cand[bounded(s, k)] if k > 0 else -1
    else:
        j = pick_at(s, C, S, foe, ANY, ANY, cand)
    if j < 0:
        return
    if S[S_AMMO, i] > 0:
        S[S_AMMO, i] -= 1  # S-6: only a shot actually made spends ammunition
    hits_before = E[side, F.E_HITS]
    if log is not None:
        G.set_col(log, G.emit(log, G.EV_SHOT, i, j, plan, 0), G.C_FLAG, 1 if ally else 0)
    _, afumble, _ = weapon_hit(s, C, S, B, Q, E, i, j, YES, seq, log)
    if ally and E[side, F.E_HITS] > hits_before:
        E[side, F.E_FRIENDLY_FIRE] += 1  # S-6: the shot hit an ally
    if afumble:  # S-2: the enemy side gets an opportunity attack, if it can reach i
        special_opportunity(s, C, S, B, Q, E, NOBODY, foe, i, rnd, seq, targets, YES, log)


def _fight(s, C, B, Q, S, E, order_key, order, cand, targets, foes, allies, log):
    """Play one fight; returns (outcome 0 A / 1 B / 2 draw, rounds).

    ``log`` is None in batch runs; a replay passes an event buffer
    (:mod:`kernels.sf_log`), written without drawing any number from ``s``.
    Compiled twice over: :data:`play_fight` and :data:`_play_fight_inlined`.
    """
    # Uncounted views (kernels.borrow): the caller keeps the arrays alive while the
    # fight runs (see _play_fight_inlined for what that asks of an inlining caller).
    s = borrowed(s)
    C = borrowed(C)
    B = borrowed(B)
    Q = borrowed(Q)
    S = borrowed(S)
    E = borrowed(E)
    order_key = borrowed(order_key)
    order = borrowed(order)
    cand = borrowed(cand)
    targets = borrowed(targets)
    foes = borrowed(foes)
    allies = borrowed(allies)
    n = C.shape[1]
    E[:, :] = 0
    for i in range(n):
        S[S_STATUS, i] = F.STANDING
        S[S_LINE, i] = C[F.LINE, i]
        S[S_INJ, i] = 0
        S[S_FAT, i] = 0
        S[S_PEAK, i] = 0
        S[S_HEAVY, i] = 0
        S[S_AMMO, i] = C[F.AMMO, i]
        S[S_LOF, i] = 0
        S[S_OPP_ROUND, i] = -1
        S[S_ACTED, i] = 0
        S[S_GONE_SEQ, i] = -1
        S[S_ACT_SEQ, i] = -1
        S[S_END, i] = C[F.END, i]
        S[S_COVER, i] = 0
    if log is not None:  # the state as written; what changes from it is logged
        before = S.copy()
    cap = B[F.B_FRONT_CAP]
    if cap > 0:  # S-9: a capped front line sends the rest to the back
        for side in range(2):
            for e in range(2):
                k = 0
                for i in range(n):
                    if C[F.SIDE, i] == side and S[S_LINE, i] == 0 and S[S_END, i] == e:
                        k += 1
                        if k > cap:
                            S[S_LINE, i] = 1
    seq = 0
    for rnd in range(1, B[F.B_MAX_ROUNDS] + 1):
        if log is not None:
            G.at(log, rnd)
            G.emit(log, G.EV_ROUND, -1, -1, 0, 0)
        for side in range(2):
            _fill_front(s, C, S, B, side, cand)
        if log is not None:
            G.changes(log, before, S, S_STATUS, S_LINE, S_END, S_COVER)
        # S-8 [default]: initiative 2d6 + modifier, highest first, ties at random
        m = 0
        for i in range(n):
            if S[S_STATUS, i] != F.STANDING:
                continue
            if rnd == 1 and C[F.SURPRISED, i] != 0:
                continue  # surprised: no action in round 1
            order_key[m] = -((_initiative_roll(s, Q) + C[F.INIT, i]) * TIE + bounded(s, TIE))
            cand[m] = i
            m += 1
        idx = np.argsort(order_key[:m])
        for q in range(m):
            order[q] = cand[idx[q]]
        for q in range(m):
            i = order[q]
            if log is not None:  # what the last action did
                G.changes(log, before, S, S_STATUS, S_LINE, S_END, S_COVER)
            if S[S_STATUS, i] != F.STANDING:
                continue
            side = C[F.SIDE, i]
            foe = 1 - side
            if not exists_at(C, S, foe, ANY, ANY):
                break
            seq += 1
            S[S_ACT_SEQ, i] = seq
            S[S_ACTED, i] = 1
            if log is not None:
                turn = G.emit(log, G.EV_TURN, i, -1, G.A_NONE, 0)
            hp = C[F.HP, i]
            if S[S_FAT, i] > 0 and S[S_FAT, i] >= Q[F.Q_BREATH_AT] * hp:
                # S-4 [default]: catching breath recovers 1d of fatigue
                if log is not None:
                    G.set_col(log, turn, G.C_ACTION, G.A_BREATH)
                    G.set_col(log, turn, G.C_VALUE, S[S_FAT, i])
                S[S_FAT, i] = max(0, S[S_FAT, i] - d6_sum(s, np.int64(Q[F.Q_BREATH_DICE])))
                if log is not None:  # C_VALUE: the fatigue recovered
                    G.set_col(log, turn, G.C_VALUE, log[max(turn, 0), G.C_VALUE] - S[S_FAT, i])
                continue
            cover = cover_plan(C, S, B, Q, i)
            if log is not None:
                if cover > 0:
                    G.set_col(log, turn, G.C_ACTION, G.A_COVER if cover == 1 else G.A_DROP_LOF)
            if cover == 1:
                S[S_COVER, i] = 1  # S-6: behind cover
                continue
            if cover == 2:
                S[S_LOF, :] = 0  # S-6: the secured line of fire is removed
                continue
            if C[F.SP, i] != 0 and Q[F.Q_CAST] > 0:
                worth, line, end = choose_area(C, S, B, Q, i)
                if worth:
                    if log is not None:
                        G.set_col(log, turn, G.C_ACTION, G.A_CAST)
                    cast(s, C, S, B, Q, E, i, line, end, rnd, seq, cand, targets, log)
                    continue
            plan = SHOT_NONE
            end = -1
            if C[F.RW, i] != 0 and S[S_AMMO, i] != 0 and (S[S_LINE, i] == 1 or C[F.MW, i] == 0):
                plan, end = shot_plan(s, C, S, B, Q, i, cand)
                if (
                    plan == SHOT_ENGAGE
                    and Q[F.Q_SHOOT_MELEE] == 0
                    and ally_engaged(C, S, B, i, end)
                ):
                    # Policy.shoot_into_melee off: no shot that may hit an ally (S-6).  A
                    # shooter in the melee itself (the open battlefield) takes up its
                    # melee weapon; one outside it waits for a clear shot
                    plan = SHOT_HOLD
            if log is not None:
                if plan == SHOT_SECURE:
                    G.set_col(log, turn, G.C_ACTION, G.A_SECURE)
                elif plan == SHOT_HOLD:
                    G.set_col(log, turn, G.C_ACTION, G.A_HOLD)
                elif plan != SHOT_NONE:
                    G.set_col(log, turn, G.C_ACTION, G.A_SHOOT)
            if plan == SHOT_SECURE:
                # S-6: securing the line of fire is the action, and the line then
                # runs both ways: every back-liner may use it
                S[S_LOF, :] = 1
            elif plan != SHOT_NONE and plan != SHOT_HOLD:
                shoot(s, C, S, B, Q, E, i, plan, end, rnd, seq, cand, targets, foes, allies, log)
            elif C[F.MW, i] != 0 and S[S_LINE, i] == 0:
                if Q[F.Q_COUP] > 0 and coup_de_grace(s, C, S, B, i, cand):
                    if log is not None:
                        G.set_col(log, turn, G.C_ACTION, G.A_COUP)
                    continue
                j = _melee_target(s, C, S, B, i, cand)
                if j < 0:
                    continue
                if log is not None:
                    G.set_col(log, turn, G.C_ACTION, G.A_MELEE)
                _, afumble, ddramatic = weapon_hit(s, C, S, B, Q, E, i, j, NO, seq, log)
                if afumble:  # S-2, S-5: the defender's side gets the attack [default: 1]
                    special_opportunity(s, C, S, B, Q, E, j, foe, i, rnd, seq, targets, YES, log)
                elif ddramatic:  # the defender itself counters its dramatic evade
                    special_opportunity(s, C, S, B, Q, E, j, foe, i, rnd, seq, targets, NO,
                                        log)  # fmt: skip
            elif (
                C[F.MW, i] != 0 and S[S_LINE, i] == 1 and (plan != SHOT_HOLD or engaged(C, S, B, i))
            ):
                if log is not None:
                    G.set_col(log, turn, G.C_ACTION, G.A_STEP_UP)
                _step_up(C, S, B, i)
        if log is not None:
            G.changes(log, before, S, S_STATUS, S_LINE, S_END, S_COVER)
        a = exists_at(C, S, ZERO, ANY, ANY)
        b = exists_at(C, S, ONE, ANY, ANY)
        if a == 0 and b == 0:
            return 2, rnd
        if b == 0:
            return 0, rnd
        if a == 0:
            return 1, rnd
    return 2, B[F.B_MAX_ROUNDS]


@helper
def _step_up(C, S, B, i):
    """A back-liner with a melee weapon steps up to a front line with room (S-9 caps)."""
    side = C[F.SIDE, i]
    cap = B[F.B_FRONT_CAP]
    ends = 2 if side == B[F.B_PINCER_SIDE] else 1
    for k in range(ends):
        e = k if side == B[F.B_PINCER_SIDE] else S[S_END, i]
        if ends == 2 and count_at(C, S, 1 - side, ANY, e) == 0:
            continue  # nobody to face at this end
        if cap == 0 or count_at(C, S, side, FRONT, e) < cap:
            S[S_LINE, i] = 0
            S[S_END, i] = e
            S[S_COVER, i] = 0
            return


#: The fight as a function of its own, for :func:`replay_fight`.
play_fight = helper(_fight)

#: The same fight for :func:`run_fights`, inlined there before typing, so that
#: Numba compiles it once rather than once alone and again inside the loop
#: (LLVM optimised it twice): about 1.5 s of a cold start on two cores (issue 13).
#: Numba's deep copy of the inlined IR costs 1.05 s of the 2.5 s saved here;
#: the battle, twice the size, is written out in run_chunks instead, but the
#: fight has two callers.  Only a caller that uses every array it passes again
#: after the call may inline it: the fight reads them through uncounted views
#: (kernels/borrow.py), and Numba frees an array after its last use in the
#: caller.  run_fights' trial loop uses them again on the next pass (pinned by
#: tests/test_borrow_lifetimes.py).  replay_fight's arrays die at the call, so
#: it calls ``play_fight``: when it inlined the fight, replays read a freed stream.
_play_fight_inlined = njit(inline="always", error_model="numpy")(_fight)


@njit(cache=True, nogil=True, error_model="numpy")
def run_fights(c0, c1, states, chunk, n_trials, C, B, Q,
               agg_outcome, agg_rounds, agg_states, agg_damage, agg_events,
               keep, t_outcome, t_rounds, t_state, t_damage, debug, t_debug):  # fmt: skip
    """Play chunks ``c0 .. c1-1`` of a run of ``n_trials`` fights, one stream per fight.

    Fight ``t`` of chunk ``c`` draws from ``seed_trial(states[c], t - c·chunk)``:
    the key comes from (seed, the run's chunk number) and the index is the
    fight's place in its chunk, so fight t of a run is a pure function of the
    seed and t whatever the batches (issue 12).

    ``agg_states[c, i, state]`` counts final states, ``agg_damage[c, i, :]`` sums
    injury, fatigue and heavy fatigue, ``agg_events[c, side, :]`` sums events.

    It releases the GIL: the caller runs disjoint chunk ranges on a pool of
    Python threads (:func:`montecarlo.driver.run_on_threads`), each writing only
    its own chunks' rows, so results do not depend on the thread count.  A
    thread pool instead of ``parallel=True`` saves the parfor compile, a third
    of a cold start.
    """
    n = C.shape[1]
    max_bin = agg_rounds.shape[1] - 1
    s = np.empty(4, np.uint64)
    S = np.zeros((N_S, n), np.int64)
    E = np.zeros((2, F.N_EVENTS), np.int64)
    order_key = np.zeros(n, np.int64)
    order = np.zeros(n, np.int64)
    cand = np.zeros(n, np.int64)
    targets = np.zeros(n, np.int64)
    foes = np.zeros(n, np.int64)
    allies = np.zeros(n, np.int64)
    for c in range(c0, c1):
        for trial in range(c * chunk, min(n_trials, (c + 1) * chunk)):
            seed_trial(states[c], trial - c * chunk, s)
            outcome, rounds = _play_fight_inlined(
                s, C, B, Q, S, E, order_key, order, cand, targets, foes, allies, None
            )
            agg_outcome[c, outcome] += 1
            agg_rounds[c, min(rounds, max_bin)] += 1
            for i in range(n):
                agg_states[c, i, S[S_STATUS, i]] += 1
                agg_damage[c, i, 0] += S[S_INJ, i]
                agg_damage[c, i, 1] += S[S_FAT, i]
                agg_damage[c, i, 2] += S[S_HEAVY, i]
            agg_events[c] += E
            if keep:
                t_outcome[trial] = outcome
                t_rounds[trial] = rounds
                for i in range(n):
                    t_state[trial, i] = S[S_STATUS, i]
                    t_damage[trial, i, 0] = S[S_INJ, i]
                    t_damage[trial, i, 1] = S[S_FAT, i]
                    t_damage[trial, i, 2] = S[S_HEAVY, i]
            if debug:
                t_debug[trial] = S


@njit(cache=True, error_model="numpy")
def replay_fight(key, trial, C, B, Q, log, S, E):
    """Play fight ``trial`` of the chunk keyed ``key`` again, logging its events.

    The same stream and play as in :func:`run_fights`, with the event buffer
    ``log`` (:mod:`kernels.sf_log`).  Returns ``(outcome, rounds)``; ``S`` and
    ``E`` receive the final state and the event counters.
    """
    n = C.shape[1]
    s = np.empty(4, np.uint64)
    seed_trial(key, trial, s)
    outcome, rounds = play_fight(
        s, C, B, Q, S, E, np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), log,
    )  # fmt: skip
    G.at(log, rounds)
    G.emit(log, G.EV_END, -1, -1, 0, outcome)
    return outcome, rounds


@njit(cache=True, parallel=True, error_model="numpy")
def sample_attacks(states, chunk, C, B, Q, i, j, ranged, out):
    """``out[t]`` = (hit, dramatic, attacker fumble, defender dramatic, defender fumble,
    damage) of independent attacks of i on j, with the fight kernel's own code."""
    n = C.shape[1]
    for c in prange(states.shape[0]):
        s = states[c]
        S = np.zeros((N_S, n), np.int64)
        S[S_LINE, :] = C[F.LINE, :]
        if B[F.B_COVER] != 0:  # back-liners in cover
            for q in range(n):
                S[S_COVER, q] = C[F.LINE, q]
        pinch = B[F.B_PINCER_SIDE] == C[F.SIDE, j]
        for t in range(c * chunk, min(out.shape[0], (c + 1) * chunk)):
            hit_v, eva_v, n_dice, bonus, dtype, _ = attack_values(C, S, B, Q, i, j, ranged, pinch)
            hit, dramatic, afumble, ddramatic, dfumble = opposed(s, hit_v, eva_v, Q[F.Q_CLASH])
            out[t, 0] = hit
            out[t, 1] = dramatic
            out[t, 2] = afumble
            out[t, 3] = ddramatic
            out[t, 4] = dfumble
            out[t, 5] = roll_damage(s, C, j, n_dice, bonus, dtype, dramatic, dfumble) if hit else 0


@njit(cache=True, parallel=True, error_model="numpy")
def sample_friendly_fire(states, chunk, n, six, out):
    """``out[t]`` = position hit among ``n`` engaged characters (S-6 d6 procedure;
    ``six``: always 6 groups above 6 characters)."""
    for c in prange(states.shape[0]):
        s = states[c]
        for t in range(c * chunk, min(out.shape[0], (c + 1) * chunk)):
            out[t] = friendly_fire_pick(s, n, six)
