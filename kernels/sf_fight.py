"""A whole Shared†Fantasia party-vs-party fight (RULES.md S-1 to S-10), in Numba.

The battlefield is conceptual (S-6): each side has a front and a back line,
and the front lines in contact form the engage area.  Each round every
standing character rolls initiative (S-8) and takes one action chosen by the
policy in ``Q`` (see :class:`montecarlo.sf.fight.Policy`):

1. catch its breath when fatigue is high (S-4);
2. a caster casts its spell at the area holding the most enemies (S-7);
3. a front-liner with a melee weapon attacks an enemy front-liner (S-2);
4. a shooter shoots: from the back line at the enemy back line once a line of
   fire is secured (securing it is the action), else into the engage area,
   where friendly fire picks the target (S-6);
5. a back-liner with only a melee weapon steps up to the front line.

Opportunity attacks (S-5) follow fumbles, dramatic melee evades and casting
in the engage area; they never trigger further opportunity attacks
[default], and each character makes at most one per round.

Per-character state lives in ``S[field, i]``; event counters in ``E[side, k]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels import sf_layout as F
from kernels.rng import bounded, chance
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
N_S = 12


@njit(forceinline=True, error_model="numpy")
def d6_sum(s, n):
    t = 0
    for _ in range(n):
        t += bounded(s, 6) + 1
    return t


@njit(forceinline=True, error_model="numpy")
def check_ok(s, value, target):
    """One S-1.1 check (2d6 + value >= target, naturals 12 and 2 decide): True if made."""
    return succeeded(check(s, value, target))


@njit(forceinline=True, error_model="numpy")
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


@njit(error_model="numpy")
def _fall(S, j, seq):
    if S[S_STATUS, j] == F.STANDING:
        S[S_GONE_SEQ, j] = seq
    S[S_STATUS, j] = F.OVERBOARD


@njit(error_model="numpy")
def apply_damage(s, C, S, Q, j, dmg, kind, save_mod, seq):
    """Add injury or fatigue to j and make the S-4 checks.  Returns True if j went down."""
    if S[S_STATUS, j] != F.STANDING or dmg <= 0:
        return False
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
    if inj >= hp + 10:  # automatic death
        S[S_STATUS, j] = F.DEAD
    elif inj > hp:  # death check: Fortitude at target 10, penalty inj - hp
        if check_ok(s, C[F.FORT, j] + save_mod - (inj - hp), 10):
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


@njit(forceinline=True, error_model="numpy")
def engaged(B, S, i):
    return B[F.B_OPEN] != 0 or S[S_LINE, i] == 0


@njit(forceinline=True, error_model="numpy")
def surprise_pen(C, S, B, target, attacker):
    """S-8: -2 to evades and saves of a surprised character that has not acted yet."""
    side = B[F.B_SURPRISED]
    if side >= 0 and C[F.SIDE, target] == side and S[S_ACTED, target] == 0:
        if attacker < 0 or C[F.SIDE, attacker] != side:
            return 2
    return 0


@njit(forceinline=True, error_model="numpy")
def ship_pen(C, B, i):
    """S-9 ship deck: -2 unless used to ships."""
    return 2 if B[F.B_SHIP] != 0 and C[F.SHIPS, i] == 0 else 0


@njit(error_model="numpy")
def attack_values(C, S, B, Q, i, j, ranged):
    """Hit value, evade value, dice, bonus, damage type and kind of i's attack on j (S-2)."""
    if ranged:
        hit_v = C[F.TECH, i] + C[F.COMBAT, i]
        eva_v = C[F.TECH, j] + C[F.COMBAT, j]
        if B[F.B_COVER] != 0 and S[S_LINE, j] == 1:
            eva_v += 2  # S-6: cover against ranged attacks
        if B[F.B_COVER] != 0 and S[S_LINE, i] == 1:
            hit_v -= 2  # shooting from cover
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
    if B[F.B_PINCER_SIDE] == C[F.SIDE, j]:
        hit_v += 1  # S-9 corridor: caught between two front lines
    hit_v -= ship_pen(C, B, i)
    eva_v -= ship_pen(C, B, j) + surprise_pen(C, S, B, j, i)
    return hit_v, eva_v, n_dice, bonus, dtype, kind


@njit(forceinline=True, error_model="numpy")
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


@njit(error_model="numpy")
def weapon_hit(s, C, S, B, Q, E, i, j, ranged, rnd, seq, cand):
    """One attack of i on j (S-2, S-3).  Returns (damage dealt, a, d) where a/d
    flag an attacker fumble and a defender dramatic evade (for opportunity)."""
    side = C[F.SIDE, i]
    E[side, F.E_ATTACKS] += 1
    S[S_ACT_SEQ, i] = seq
    hit_v, eva_v, n_dice, bonus, dtype, kind = attack_values(C, S, B, Q, i, j, ranged)
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
        if trip:  # S-9: a trip throws the target off unless Intuition 12 is made
            save = C[F.INTU, j] - ship_pen(C, B, j) - surprise_pen(C, S, B, j, i)
            if not check_ok(s, save, 12):
                _fall(S, j, seq)
                dealt = 1
        else:
            dmg = roll_damage(s, C, j, n_dice, bonus, dtype, dramatic, dfumble)
            if dmg > 0:
                apply_damage(s, C, S, Q, j, dmg, kind, -surprise_pen(C, S, B, j, i), seq)
            dealt = dmg
    if B[F.B_SHIP] != 0 and not ranged:  # S-9: a fumble on hit or evade goes overboard
        if afumble:
            _fall(S, i, seq)
        if dfumble and S[S_STATUS, j] == F.STANDING:
            _fall(S, j, seq)
    return dealt, afumble, ddramatic and not ranged


@njit(error_model="numpy")
def opportunity(s, C, S, B, Q, E, by, on, rnd, seq, cand):
    """One opportunity attack of ``by`` on ``on`` (S-5), if ``by`` may make one."""
    if S[S_STATUS, by] != F.STANDING or S[S_STATUS, on] != F.STANDING:
        return 0
    if C[F.MW, by] == 0 or not engaged(B, S, by) or S[S_OPP_ROUND, by] == rnd:
        return 0
    if B[F.B_SURPRISED] == C[F.SIDE, by] and rnd == 1:
        return 0  # surprised characters make no opportunity attacks in round 1
    S[S_OPP_ROUND, by] = rnd
    E[C[F.SIDE, by], F.E_OPPORTUNITY] += 1
    dealt, _, _ = weapon_hit(s, C, S, B, Q, E, by, on, False, rnd, seq, cand)
    return dealt


@njit(error_model="numpy")
def _free_opportunists(C, S, B, side, rnd, pool):
    """Standing, engaged melee fighters of ``side`` with their opportunity attack of
    this round unused (S-5), into ``pool``; returns how many."""
    k = 0
    for j in range(C.shape[1]):
        if (C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING and engaged(B, S, j)
                and C[F.MW, j] != 0 and S[S_OPP_ROUND, j] != rnd):  # fmt: skip
            pool[k] = j
            k += 1
    return k


@njit(error_model="numpy")
def special_opportunity(s, C, S, B, Q, E, by, on, rnd, seq, cand, pool):
    """After a fumble or a dramatic melee evade: ``by`` attacks ``on`` first, then
    further engaged enemies of ``on``, up to Q_SPECIAL_OPP attacks (S-5 [default] 1)."""
    left = np.int64(Q[F.Q_SPECIAL_OPP])
    if left <= 0:
        return
    opportunity(s, C, S, B, Q, E, by, on, rnd, seq, cand)
    left -= 1
    foe = C[F.SIDE, by]
    while left > 0 and S[S_STATUS, on] == F.STANDING:
        k = _free_opportunists(C, S, B, foe, rnd, pool)
        if k == 0:
            return
        opportunity(s, C, S, B, Q, E, pool[bounded(s, k)], on, rnd, seq, cand)
        left -= 1


@njit(error_model="numpy")
def _pick(s, C, S, side, line, cand):
    """A random standing character of ``side`` on ``line`` (-1: any line), or -1."""
    k = 0
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING:
            if line < 0 or S[S_LINE, j] == line:
                cand[k] = j
                k += 1
    if k == 0:
        return -1
    return cand[bounded(s, k)]


@njit(error_model="numpy")
def _count(C, S, side, line):
    k = 0
    for j in range(C.shape[1]):
        if C[F.SIDE, j] == side and S[S_STATUS, j] == F.STANDING:
            if line < 0 or S[S_LINE, j] == line:
                k += 1
    return k


@njit(forceinline=True, error_model="numpy")
def pick_among(s, m):
    """S-6: one d6 picks one of m <= 6 (odd/even, pairs of faces, or one face each)."""
    if m <= 1:
        return 0
    face = bounded(s, 6) + 1
    if m == 2:
        return (face - 1) % 2
    if m == 3:
        return (face - 1) // 2
    while face > m:  # reroll the unused faces
        face = bounded(s, 6) + 1
    return face - 1


@njit(error_model="numpy")
def friendly_fire_pick(s, n):
    """S-6: index in 0..n-1 of the engaged character a shot into the melee hits."""
    offset = 0
    size = n
    while size > 6:
        g = min(6, (size + 5) // 6)
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


@njit(error_model="numpy")
def _engaged_list(C, S, B, cand, shooter):
    """Standing characters in the engage area but the shooter, side A first, in order."""
    k = 0
    for j in range(C.shape[1]):
        if j != shooter and S[S_STATUS, j] == F.STANDING and engaged(B, S, j):
            cand[k] = j
            k += 1
    return k


@njit(error_model="numpy")
def cast(s, C, S, B, Q, E, i, rnd, seq, cand, targets):
    """Cast i's spell (S-7), after the opportunity attacks it provokes (S-5)."""
    side = C[F.SIDE, i]
    foe = 1 - side
    S[S_ACT_SEQ, i] = seq
    if engaged(B, S, i):
        # S-5 count rule: front-liners in the engage area, the caster left out
        if B[F.B_OPEN] != 0:
            mine = _count(C, S, side, -1) - 1
            theirs = _count(C, S, foe, -1)
        else:
            mine = _count(C, S, side, 0) - (1 if S[S_LINE, i] == 0 else 0)
            theirs = _count(C, S, foe, 0)
        hurt = 0
        for _ in range(theirs - mine):
            # a random eligible enemy in the engage area who has not yet attacked this round
            k = _free_opportunists(C, S, B, foe, rnd, targets)
            if k == 0:
                break
            hurt += opportunity(s, C, S, B, Q, E, targets[bounded(s, k)], i, rnd, seq, cand)
        if hurt > 0 or S[S_STATUS, i] != F.STANDING:
            return  # S-5: damaged by an opportunity attack, the spell fails
    # Choose the area holding the most enemies (S-7).
    area = C[F.SP_AREA, i]
    n_t = 0
    if area == 0:
        j = _pick(s, C, S, foe, -1, cand)
        if j >= 0:
            targets[0] = j
            n_t = 1
    else:
        own_front_engaged = B[F.B_OPEN] != 0 or _count(C, S, side, 0) > 0
        everyone = area == 3 or (area == 2 and B[F.B_NARROW] != 0)
        line = -1
        if area == 1:  # small circle: the enemy line with more standing characters
            line = 0 if _count(C, S, foe, 0) >= _count(C, S, foe, 1) else 1
        for j in range(C.shape[1]):
            if S[S_STATUS, j] != F.STANDING or j == i:
                continue
            inside = False
            if everyone:
                inside = True
            elif C[F.SIDE, j] == foe:
                inside = line < 0 or S[S_LINE, j] == line
            elif own_front_engaged and line <= 0 and S[S_LINE, j] == 0:
                inside = True  # own front line caught with the engaged enemy front
            if inside:
                targets[n_t] = j
                n_t += 1
    strength = C[F.SP_STAT, i] + roll2d6(s)
    if B[F.B_COVER] != 0 and S[S_LINE, i] == 1:
        strength -= 2  # casting from cover
    for q in range(n_t):
        j = targets[q]
        save_field = F.FORT + C[F.SP_SAVE, i]  # FORT, INTU, WILL are consecutive
        save = C[save_field, j] - surprise_pen(C, S, B, j, i)
        if B[F.B_COVER] != 0 and S[S_LINE, j] == 1:
            save += 2
        if save_field == F.INTU:
            save -= ship_pen(C, B, j)
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
            apply_damage(s, C, S, Q, j, dmg, kind, -surprise_pen(C, S, B, j, i), seq)


@njit(error_model="numpy")
def _fill_front(s, C, S, B, side, cand):
    """Keep the front line manned: back-liners with a melee weapon step up to the cap."""
    cap = B[F.B_FRONT_CAP]
    front = _count(C, S, side, 0)
    for j in range(C.shape[1]):
        if cap > 0 and front >= cap:
            return
        if C[F.SIDE, j] != side or S[S_STATUS, j] != F.STANDING or S[S_LINE, j] != 1:
            continue
        pure_melee = C[F.RW, j] == 0 and C[F.SP, j] == 0
        if C[F.MW, j] != 0 and (front == 0 or pure_melee):
            S[S_LINE, j] = 0
            front += 1


@njit(error_model="numpy")
def play_fight(s, C, B, Q, S, E, order_key, order, cand, targets):
    """Play one fight; returns (outcome 0 A / 1 B / 2 draw, rounds)."""
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
    cap = B[F.B_FRONT_CAP]
    if cap > 0:  # S-9: a capped front line sends the rest to the back
        for side in range(2):
            k = 0
            for i in range(n):
                if C[F.SIDE, i] == side and S[S_LINE, i] == 0:
                    k += 1
                    if k > cap:
                        S[S_LINE, i] = 1
    seq = 0
    for rnd in range(1, B[F.B_MAX_ROUNDS] + 1):
        for side in range(2):
            _fill_front(s, C, S, B, side, cand)
        # S-8: initiative 2d6 + modifier, highest first, ties at random
        m = 0
        for i in range(n):
            if S[S_STATUS, i] != F.STANDING:
                continue
            if rnd == 1 and B[F.B_SURPRISED] == C[F.SIDE, i]:
                continue  # surprised: no action in round 1
            order_key[m] = -((roll2d6(s) + C[F.INIT, i]) * 4096 + bounded(s, 4096))
            cand[m] = i
            m += 1
        idx = np.argsort(order_key[:m])
        for q in range(m):
            order[q] = cand[idx[q]]
        for q in range(m):
            i = order[q]
            if S[S_STATUS, i] != F.STANDING:
                continue
            side = C[F.SIDE, i]
            foe = 1 - side
            if _count(C, S, foe, -1) == 0:
                break
            seq += 1
            S[S_ACT_SEQ, i] = seq
            S[S_ACTED, i] = 1
            hp = C[F.HP, i]
            if S[S_FAT, i] > 0 and S[S_FAT, i] >= Q[F.Q_BREATH_AT] * hp:
                # S-4 [default]: catching breath recovers 1d of fatigue
                S[S_FAT, i] = max(0, S[S_FAT, i] - d6_sum(s, np.int64(Q[F.Q_BREATH_DICE])))
            elif C[F.SP, i] != 0 and Q[F.Q_CAST] > 0:
                cast(s, C, S, B, Q, E, i, rnd, seq, cand, targets)
            elif (C[F.RW, i] != 0 and S[S_AMMO, i] != 0
                  and (S[S_LINE, i] == 1 or C[F.MW, i] == 0)):  # fmt: skip
                back_target = _count(C, S, foe, 1) > 0
                if S[S_LINE, i] == 1 and back_target and B[F.B_NARROW] == 0:
                    if B[F.B_NO_BACK_LOF] != 0 or Q[F.Q_SECURE_LOF] == 0:
                        back_target = False
                    elif S[S_LOF, i] == 0:
                        # S-6: securing the line of fire is the action, and the line
                        # then runs both ways: every back-liner may use it
                        S[S_LOF, :] = 1
                        continue
                if S[S_AMMO, i] > 0:
                    S[S_AMMO, i] -= 1
                ally = False
                if back_target and B[F.B_OPEN] == 0:
                    j = _pick(s, C, S, foe, 1, cand)
                else:
                    # into the engage area: the d6 procedure picks who is hit (S-6)
                    k = _engaged_list(C, S, B, targets, i)
                    if k == 0:
                        continue
                    j = targets[friendly_fire_pick(s, k)]
                    ally = C[F.SIDE, j] == side
                hits_before = E[side, F.E_HITS]
                _, afumble, _ = weapon_hit(s, C, S, B, Q, E, i, j, True, rnd, seq, cand)
                if ally and E[side, F.E_HITS] > hits_before:
                    E[side, F.E_FRIENDLY_FIRE] += 1  # S-6: the shot hit an ally
                if afumble and engaged(B, S, i):
                    jj = _pick(s, C, S, foe, 0, cand)
                    if jj >= 0:
                        special_opportunity(s, C, S, B, Q, E, jj, i, rnd, seq, cand, targets)
            elif C[F.MW, i] != 0 and engaged(B, S, i):
                # an enemy side without a front line is engaged at its back line
                line = -1 if B[F.B_OPEN] != 0 else (0 if _count(C, S, foe, 0) > 0 else 1)
                j = _pick(s, C, S, foe, line, cand)
                hit = weapon_hit(s, C, S, B, Q, E, i, j, False, rnd, seq, cand)
                afumble, ddramatic = hit[1], hit[2]
                if afumble or ddramatic:  # S-2, S-5: the opponent gets attacks [default: 1]
                    special_opportunity(s, C, S, B, Q, E, j, i, rnd, seq, cand, targets)
            elif C[F.MW, i] != 0 and S[S_LINE, i] == 1:
                if cap == 0 or _count(C, S, side, 0) < cap:
                    S[S_LINE, i] = 0  # step up to the front line
        a = _count(C, S, 0, -1)
        b = _count(C, S, 1, -1)
        if a == 0 and b == 0:
            return 2, rnd
        if b == 0:
            return 0, rnd
        if a == 0:
            return 1, rnd
    return 2, B[F.B_MAX_ROUNDS]


@njit(cache=True, parallel=True, error_model="numpy")
def run_fights(states, chunk, n_trials, C, B, Q,
               agg_outcome, agg_rounds, agg_states, agg_damage, agg_events,
               keep, t_outcome, t_rounds, t_state, t_damage, debug, t_debug):  # fmt: skip
    """Play ``n_trials`` fights in chunks, one stream per chunk; aggregate per chunk.

    ``agg_states[c, i, state]`` counts final states, ``agg_damage[c, i, :]`` sums
    injury, fatigue and heavy fatigue, ``agg_events[c, side, :]`` sums events.
    """
    n = C.shape[1]
    max_bin = agg_rounds.shape[1] - 1
    for c in prange(states.shape[0]):
        s = states[c]
        S = np.zeros((N_S, n), np.int64)
        E = np.zeros((2, F.N_EVENTS), np.int64)
        order_key = np.zeros(n, np.int64)
        order = np.zeros(n, np.int64)
        cand = np.zeros(n, np.int64)
        targets = np.zeros(n, np.int64)
        for trial in range(c * chunk, min(n_trials, (c + 1) * chunk)):
            outcome, rounds = play_fight(s, C, B, Q, S, E, order_key, order, cand, targets)
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


@njit(cache=True, parallel=True, error_model="numpy")
def sample_attacks(states, chunk, C, B, Q, i, j, ranged, out):
    """``out[t]`` = (hit, dramatic, attacker fumble, defender dramatic, defender fumble,
    damage) of independent attacks of i on j, with the fight kernel's own code."""
    n = C.shape[1]
    for c in prange(states.shape[0]):
        s = states[c]
        S = np.zeros((N_S, n), np.int64)
        S[S_LINE, :] = C[F.LINE, :]
        for t in range(c * chunk, min(out.shape[0], (c + 1) * chunk)):
            hit_v, eva_v, n_dice, bonus, dtype, _ = attack_values(C, S, B, Q, i, j, ranged)
            hit, dramatic, afumble, ddramatic, dfumble = opposed(s, hit_v, eva_v, Q[F.Q_CLASH])
            out[t, 0] = hit
            out[t, 1] = dramatic
            out[t, 2] = afumble
            out[t, 3] = ddramatic
            out[t, 4] = dfumble
            out[t, 5] = roll_damage(s, C, j, n_dice, bonus, dtype, dramatic, dfumble) if hit else 0


@njit(cache=True, parallel=True, error_model="numpy")
def sample_friendly_fire(states, chunk, n, out):
    """``out[t]`` = position hit among ``n`` engaged characters (S-6 d6 procedure)."""
    for c in prange(states.shape[0]):
        s = states[c]
        for t in range(c * chunk, min(out.shape[0], (c + 1) * chunk)):
            out[t] = friendly_fire_pick(s, n)
