"""The reference CoE5 battle kernel: every unit scans every unit (issue 13).

This is ``kernels/coe5_battle.py`` of ``main`` as it stood before the spatial
index, kept as it was below this module docstring but for three changes:

- the attack order is a stable sort (``kind="mergesort"``), so attacks with
  equal 64-bit keys (a tie of the 32-bit random draws, about m² / 2**33 a
  round) go by index, as in the indexed kernel's bucket sort, not as the
  quicksort happens to leave them;
- C-8.3's draw among k equally near enemies picks the r-th in tile order
  (column, then row: :mod:`kernels.tile_order`), no longer in unit
  order.  The chance of each is 1/k either way; in tile order the indexed
  kernel counts its way to the r-th from its summed-area tables, where in
  unit order it had to read all k (a cost that grew with the enemy's front).
  ``_nearest_enemy`` now returns the count k and the draw r, and ``_move``
  names the r-th only for a unit that steps toward it: a selection among
  the k that the units which stay would pay for nothing;
- C-5.1's draw among the k enemies in a shot's range (and the pre-battle
  weapons', assassins' and tunnellers' draws among all enemies) picks the
  r-th in tile order too, no longer in unit order: the indexed kernel
  counts them from its column bitsets a word at a time, where in unit
  order it had to visit each of the k.

It is the baseline of
``benchmarks/bench_battle.py`` and the oracle of ``tests/test_coe5_indexed.py``,
which require the indexed kernel to play the very same battles, draw for draw.
Do not optimise it; fix a rule here and in the indexed kernel together.
Only ``matchup(..., _reference=True)``, the tests, the benchmarks and replays
load it: ``replay_battle`` plays one battle again with an event log
(``montecarlo.coe5.replay``), and since both kernels play the same battles
draw for draw, that is the battle the indexed kernel played in a matchup.

One whole CoE5 battle on the grid (RULES.md C-6 to C-9), and its batch driver.

``play_battle`` plays one battle from packed unit tables and a random stream;
``run_battles`` plays chunks of battles in ``prange`` and aggregates outcome
counts and histograms per chunk, so memory stays bounded for any trial count.
Per-trial arrays are filled only when ``keep`` is set, and the per-unit debug
record (used by the invariant tests) only when ``debug`` is set.
``replay_battle`` plays one battle of a run again with an event log
(:mod:`kernels.coe5_log`); the batch path passes no log and compiles none.

Unit instances are deployment slots, ordered attacker first, front to back;
C-8.3's movement order is built from it (``_move_order``).  Each battle deals the unit types
out to the slots of each role afresh (C-6), so the written order of an army
does not matter.  Positions are (x, y) = (column, row).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernels import coe5_layout as L
from kernels import coe5_log as G
from kernels import coe5_rules as R
from kernels.coe5_damage import (
    N_TRACE,
    TR_ETHEREAL,
    ethereal_applies,
    hit_damage,
    hit_trace,
    vulnerable_to,
)
from kernels.coe5_dice import NORMAL, check_roll, fails_morale, oed, resists
from kernels.jit import helper
from kernels.rng import bounded, chance, next_u64, seed_trial
from kernels.tile_order import UNIT_BITS, rth_smallest, tile_key

ALIVE = 0
DEAD = 1
ROUTED = 2

ATTACKER_WINS = 0
DEFENDER_WINS = 1
DRAW = 2

# Columns of the per-unit debug record.
D_HP = 0  # final HP
D_STATE = 1  # final state (ALIVE/DEAD/ROUTED)
D_GONE_SEQ = 2  # event number of its death or rout (-1 if it stayed)
D_LAST_ACT_SEQ = 3  # event number of its last attack (-1 if none)
D_MAX_HP_SEEN = 4  # highest HP it ever had
D_TYPE = 5  # its unit type in this battle (C-6: dealt out per battle)
D_PART = 6  # its army part in this battle
D_X = 7  # final column
D_Y = 8  # final row
D_STATUS = 9  # final status bits: S_BURNING | S_FROZEN | S_STUNNED | S_PARALYSED
N_DEBUG = 10

S_BURNING = 1
S_FROZEN = 2
S_STUNNED = 4
S_PARALYSED = 8

_MASK32 = np.uint64(0xFFFFFFFF)


@helper
def _cheb(x0, y0, x1, y1):
    return max(abs(x0 - x1), abs(y0 - y1))


@helper
def _sign(v):
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0


@helper
def _leave(j, how, state, px, py, grid, width, dbg, seq):
    """Unit j leaves the battle (``how`` is DEAD or ROUTED, C-8.5) at event ``seq``."""
    state[j] = how
    grid[px[j] * width + py[j]] = -1
    dbg[j, D_GONE_SEQ] = seq


@helper
def _lose_hp(j, amount, hp, state, px, py, grid, width, dbg, seq):
    """Remove ``amount`` HP (no attribution); kill at 0.  Returns HP removed."""
    if amount <= 0 or state[j] != ALIVE:
        return 0
    removed = min(amount, hp[j])
    hp[j] -= amount
    if hp[j] <= 0:
        _leave(j, DEAD, state, px, py, grid, width, dbg, seq)
    return removed


@helper
def _strike(s, i, w, j, far, U, W, itype, iside, hp, state, px, py, grid, cloud, width,
            wall_col, fort, siege, burning, frozen, stunned, paralysed, decaying, poison, dealt,
            P, dbg, seq, log):  # fmt: skip
    """Resolve one hit of unit i's weapon w on unit j (C-3, C-4); ``log`` as in play_battle."""
    ti = itype[i]
    tj = itype[j]
    dbg[i, D_LAST_ACT_SEQ] = seq
    flags = W[L.W_FLAGS, w]
    if flags & L.F_CLOUD:  # C-8.2: the weapon leaves a cloud on the target's tile
        cloud[px[j] * width + py[j]] = w
        if log is not None:
            G.emit_tile(log, G.EV_CLOUD, i, j, w, px[j], py[j], px[j], py[j])
        return
    dtype = W[L.W_TYPE, w]
    if dtype == L.T_PARALYSIS:  # C-4.9: no damage; resisted by MR
        if log is not None:
            _log_paralysis(s.copy(), log, i, w, j, U, W, tj, hp, paralysed)
        if ethereal_applies(W, w, U, tj) and bounded(s, 4) != 0:
            return  # C-4.9 with C-3.9: a non-magic paralysing hit misses the ethereal
        if not resists(s, U[L.U_MR, tj], NORMAL):
            paralysed[j] = 1
        return
    strength = U[L.U_STR, ti] - frozen[i]  # C-4.3: frozen units lose 1 strength
    wall = fort if siege and px[j] == wall_col else 0  # C-3 step 4
    cannot_move = stunned[j] != 0 or paralysed[j] != 0
    far_code = (1 + np.int64(P[R.HALVE_FINAL])) if far else 0  # C-5.3
    if log is not None:  # the same draws on a copy of the stream, step by step
        trace = np.zeros(N_TRACE, np.int64)
        hit_trace(s.copy(), W, w, U, tj, strength, wall, cannot_move, frozen[j] != 0, far_code,
                  trace)  # fmt: skip
        before = G.status_bits(j, burning, frozen, stunned, paralysed, decaying)
    dmg = hit_damage(s, W, w, U, tj, strength, wall, cannot_move, frozen[j] != 0, far_code)
    if log is not None:
        lost = dmg if dmg >= 1 and dtype != L.T_POISON else 0
        G.emit_hit(log, i, j, w, dmg, max(hp[j] - lost, 0), trace)
    if dtype == L.T_POISON:  # C-4.5: into the pool, not HP now
        if log is not None:
            if dmg > 0:
                G.emit(log, G.EV_EFFECT_ON, i, j, w, dmg, hp[j], G.E_POISON)
        poison[j] += dmg
        return
    if dmg < 1:
        return
    dealt[iside[i]] += _lose_hp(j, dmg, hp, state, px, py, grid, width, dbg, seq)
    if log is not None:
        if state[j] != ALIVE:
            G.emit(log, G.EV_DEATH, i, j, w, 0, 0, 0)
    if state[j] != ALIVE:
        return
    if dtype == L.T_FIRE:  # C-4.2
        if chance(s, P[R.BURN_CHANCE] * (100 - U[L.U_RES0 + L.T_FIRE, tj]) / 100.0):
            burning[j] = 1
    elif dtype == L.T_COLD:  # C-4.3
        if chance(s, P[R.FREEZE_CHANCE]):
            frozen[j] = 1
    elif dtype == L.T_SHOCK:  # C-4.4: an MR check or a strength check (C-2.3) avoids it
        if not resists(s, U[L.U_MR, tj], NORMAL):
            # C-4.3: a frozen unit checks with 1 less strength
            if not check_roll(s, np.int64(P[R.STRENGTH_CHECK])) < U[L.U_STR, tj] - frozen[j]:
                stunned[j] = 1
    elif dtype == L.T_DECAY:  # C-4.8
        decaying[j] = 1
    if log is not None:
        G.emit_status(log, i, j, before, burning, frozen, stunned, paralysed, decaying)


@helper
def _log_paralysis(s, log, i, w, j, U, W, tj, hp, paralysed):
    """Log a paralysing hit (C-4.9), drawing on ``s``, a copy of the battle's stream.

    Mirrors :func:`_strike`'s two draws: the ethereal check, then the MR check.
    """
    trace = np.zeros(N_TRACE, np.int64)
    if ethereal_applies(W, w, U, tj) and bounded(s, 4) != 0:
        trace[TR_ETHEREAL] = 1
        G.emit_hit(log, i, j, w, 0, hp[j], trace)
        return
    G.emit_hit(log, i, j, w, 0, hp[j], trace)
    if resists(s, U[L.U_MR, tj], NORMAL):
        G.emit(log, G.EV_RESISTED, i, j, w, 0, hp[j], G.E_PARALYSED)
    elif not paralysed[j]:
        G.emit(log, G.EV_EFFECT_ON, i, j, w, 0, hp[j], G.E_PARALYSED)


@helper
def _log_loss(log, j, amount, hp, state, effect):
    """Log HP lost to an ongoing effect (C-4, C-8.1), and the death it caused."""
    G.emit(log, G.EV_DAMAGE, -1, j, -1, amount, max(hp[j], 0), effect)
    if state[j] == DEAD:
        G.emit(log, G.EV_DEATH, -1, j, -1, 0, 0, effect)


@helper
def _random_enemy(s, i, lo, hi, iside, state, px, py, cand):
    """A random living enemy of i at Chebyshev distance lo..hi, or -1.

    The k that qualify are listed by tile (:func:`~kernels.tile_order.tile_key`)
    and the r-th in tile order is drawn, as the indexed kernel ranks them.
    """
    k = 0
    for j in range(iside.shape[0]):
        if state[j] == ALIVE and iside[j] != iside[i]:
            d = _cheb(px[i], py[i], px[j], py[j])
            if lo <= d <= hi:
                cand[k] = tile_key(px[j], py[j], j)
                k += 1
    if k == 0:
        return -1
    return rth_smallest(cand, k, bounded(s, k)) & UNIT_BITS


@helper
def _adjacent_enemies(i, iside, px, py, grid, width, length, cand):
    """Enemies on the 8 tiles around i, read off the grid; returns how many (in cand)."""
    k = 0
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            ax = px[i] + dx
            ay = py[i] + dy
            if (dx == 0 and dy == 0) or ax < 0 or ay < 0 or ax >= length or ay >= width:
                continue
            j = grid[ax * width + ay]
            if j >= 0 and iside[j] != iside[i]:
                cand[k] = j
                k += 1
    return k


@helper
def _eff_range(i, w, W, px, siege, wall_col, P):
    r = W[L.W_RANGE, w]
    if siege and px[i] == wall_col and r > 1:  # C-5.4
        r += np.int64(P[R.WALL_RANGE_BONUS])
    return r


@njit(inline="always", error_model="numpy")
def _nearest_enemy(s, i, iside, state, px, py, P, cand):
    """C-8.3: how many living enemies of i are nearest, the draw among them, their distance.

    Returns ``(k, r, dmin)``, k = 0 when there is none, and lists the k in
    ``cand[:k]`` by their tile keys.  [default] Among equally near enemies one
    is drawn at random; with ``RANDOM_NEAREST`` off the first is taken.  The
    r-th is counted in tile order, column by column and each column from row 0
    (so that the indexed kernel can count its way to it without listing them
    all); :func:`_move` names it only when i steps toward it.
    """
    k = 0
    dmin = 1 << 30
    for j in range(iside.shape[0]):
        if state[j] == ALIVE and iside[j] != iside[i]:
            d = _cheb(px[i], py[i], px[j], py[j])
            if d < dmin:
                dmin = d
                k = 0
            if d == dmin:
                cand[k] = tile_key(px[j], py[j], j)
                k += 1
    r = 0
    if k > 1 and P[R.RANDOM_NEAREST] != 0:
        r = bounded(s, k)
    return k, r, dmin


@helper
def _nearest_free_wall(s, i, px, py, grid, width, wall_col, cand):
    """C-6 [default]: the nearest free wall tile of i (ties at random) and its distance."""
    k = 0
    dmin = 1 << 30
    for y in range(width):
        if grid[wall_col * width + y] < 0:
            d = _cheb(px[i], py[i], wall_col, y)
            if d < dmin:
                dmin = d
                k = 0
            if d == dmin:
                cand[k] = y
                k += 1
    if k == 0:
        return -1, dmin
    return cand[bounded(s, k)], dmin


@njit(inline="always", error_model="numpy")
def _in_reach(i, dmin, U, W, itype, px, siege, wall_col, P):
    """True when a ranged weapon of i reaches an enemy at ``dmin`` > 1 (C-5.1, C-5.5)."""
    ti = itype[i]
    w0 = U[L.U_W0, ti]
    for k in range(U[L.U_NW, ti]):
        w = w0 + k
        if W[L.W_RANGE, w] > 1 and not W[L.W_FLAGS, w] & L.F_PREBATTLE:
            if _eff_range(i, w, W, px, siege, wall_col, P) >= dmin:
                return True
    return False


@njit(inline="always", error_model="numpy")
def _step_toward(s, i, tx, ty, dmin, px, py, grid, width, length, P, cand):
    """Move i one tile toward (tx, ty), at distance ``dmin`` > 0 (C-8.3)."""
    nx = px[i] + _sign(tx - px[i])
    ny = py[i] + _sign(ty - py[i])
    if grid[nx * width + ny] < 0:
        pass  # the direct step is free
    elif P[R.SIDESTEP] == 0:
        return  # C-8.3: blocked, it stays
    else:
        # C-8.3 [default]: take a free tile that is equally close, at random.
        k = 0
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                ax = px[i] + dx
                ay = py[i] + dy
                if (dx == 0 and dy == 0) or ax < 0 or ay < 0 or ax >= length or ay >= width:
                    continue
                if grid[ax * width + ay] < 0 and _cheb(ax, ay, tx, ty) == dmin - 1:
                    cand[k] = ax * width + ay
                    k += 1
        if k == 0:
            return
        t = cand[bounded(s, k)]
        nx = t // width
        ny = t % width
    grid[px[i] * width + py[i]] = -1
    px[i] = nx
    py[i] = ny
    grid[nx * width + ny] = i


@helper
def _move(s, i, U, W, itype, iside, state, px, py, qx, qy, grid, width, length, siege, wall_col,
          P, cand):  # fmt: skip
    """C-8.3: step 1 tile toward the nearest enemy unless one is in reach.

    The unit chooses from the positions ``qx, qy`` (see :func:`play_battle`);
    only the occupancy ``grid`` is live, so earlier movers keep their tiles.
    """
    k, r, dmin = _nearest_enemy(s, i, iside, state, qx, qy, P, cand)
    if k == 0 or dmin <= 1:
        return
    if _in_reach(i, dmin, U, W, itype, px, siege, wall_col, P):
        return
    if siege and iside[i] == 1 and P[R.HOLD_WALL] != 0 and px[i] >= wall_col:
        # C-6 [default] holding the wall: never off it; from behind, onto a free wall tile.
        if px[i] == wall_col:
            return
        y, dwall = _nearest_free_wall(s, i, px, py, grid, width, wall_col, cand)
        if y >= 0:
            _step_toward(s, i, wall_col, y, dwall, px, py, grid, width, length, P, cand)
        return
    j = rth_smallest(cand, k, r) & UNIT_BITS  # the r-th of the k in tile order
    _step_toward(s, i, qx[j], qy[j], dmin, px, py, grid, width, length, P, cand)


@helper
def _move_order(iside, paired):
    """C-8.3: the order in which units move; the attacker's slots come first.

    Slots run front to back within each side.  [default] ``paired``: the k-th
    attacker, then the k-th defender, and so on, the larger side's last slots
    at the end; the attacker still chooses its tiles first, rank by rank.
    Otherwise the whole attacker side moves, then the whole defender side, and
    in this model the side that moves second wins more mirror battles (it
    flows around the side that claimed the contested tiles).
    """
    n = iside.shape[0]
    na = 0
    for i in range(n):
        if iside[i] == 0:
            na += 1
    order = np.arange(n)
    if paired:
        k = 0
        for r in range(max(na, n - na)):
            if r < na:
                order[k] = r
                k += 1
            if na + r < n:
                order[k] = na + r
                k += 1
    return order


@helper
def _surface_next_to_enemy(s, i, iside, state, px, py, grid, width, length, cand):
    """C-7.4, C-7.5: i leaves its tile for a random free tile next to a random enemy.

    It stays where it is when that enemy has no free tile around it.
    """
    j = _random_enemy(s, i, 0, 1 << 30, iside, state, px, py, cand)
    if j < 0:
        return
    k = 0
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            ax = px[j] + dx
            ay = py[j] + dy
            if 0 <= ax < length and 0 <= ay < width and grid[ax * width + ay] < 0:
                cand[k] = ax * width + ay
                k += 1
    if k > 0:
        t = cand[bounded(s, k)]
        grid[px[i] * width + py[i]] = -1
        px[i] = t // width
        py[i] = t % width
        grid[t] = i


@helper
def _clear_clouds(s, cloud, P):
    """C-8.2: each cloud is removed with chance ``CLOUD_CLEAR``."""
    for c in range(cloud.shape[0]):
        if cloud[c] >= 0 and chance(s, P[R.CLOUD_CLEAR]):
            cloud[c] = -1


@helper
def _fear(s, U, itype, iside, state, px, py, grid, width, length, P, cand, dbg, seq, log):
    """C-8.5: enemies next to a unit with fear check morale (C-2.4) or rout.

    [default] ``FEAR_EACH``: one check per adjacent fear unit, against that
    unit's fear, so two fear units make a unit check twice.  Otherwise one
    check a round against the highest adjacent fear.  Returns the event number.
    """
    n = itype.shape[0]
    base = np.int64(P[R.FEAR_DIE_BASE])
    if P[R.FEAR_EACH] != 0:
        for i in range(n):
            fear = U[L.U_FEAR, itype[i]]
            if state[i] != ALIVE or fear == 0:
                continue
            for j in range(n):
                if state[j] == ALIVE and iside[j] != iside[i]:
                    if _cheb(px[i], py[i], px[j], py[j]) == 1:
                        failed = fails_morale(s, U[L.U_MORALE, itype[j]], base + fear)
                        if log is not None:
                            G.emit(log, G.EV_FEAR, i, j, -1, base + fear, 0, failed)
                        if failed:
                            seq += 1
                            _leave(j, ROUTED, state, px, py, grid, width, dbg, seq)
                            if log is not None:
                                G.emit(log, G.EV_ROUT, i, j, -1, 0, 0, 0)
        return seq
    for j in range(n):
        if state[j] != ALIVE:
            continue
        k = _adjacent_enemies(j, iside, px, py, grid, width, length, cand)
        fear = 0
        for q in range(k):
            fear = max(fear, U[L.U_FEAR, itype[cand[q]]])
        if fear == 0:
            continue
        failed = fails_morale(s, U[L.U_MORALE, itype[j]], base + fear)
        if log is not None:
            scary = _most_fearsome(U, itype, cand, k)
            G.emit(log, G.EV_FEAR, scary, j, -1, base + fear, 0, failed)
        if failed:
            seq += 1
            _leave(j, ROUTED, state, px, py, grid, width, dbg, seq)
            if log is not None:
                G.emit(log, G.EV_ROUT, scary, j, -1, 0, 0, 0)
    return seq


@helper
def _most_fearsome(U, itype, cand, k):
    """The first of the k units in ``cand`` with the highest fear (for the log)."""
    best = cand[0]
    for q in range(1, k):
        if U[L.U_FEAR, itype[cand[q]]] > U[L.U_FEAR, itype[best]]:
            best = cand[q]
    return best


@helper
def _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col, fort, siege,
             burning, frozen, stunned, paralysed, decaying, poison, P, dbg, seq, log):  # fmt: skip
    """C-8 steps 9 and 10: ongoing effects, regeneration, then cloud damage."""
    G.step(log, 9)
    for i in range(itype.shape[0]):
        if state[i] != ALIVE:
            continue
        ti = itype[i]
        if log is not None:
            before = G.status_bits(i, burning, frozen, stunned, paralysed, decaying)
        if burning[i]:  # C-4.2: fire damage reduced by fire resistance, not armour
            d = oed(s, np.int64(P[R.BURN_DIE]))
            if vulnerable_to(U, ti, L.T_FIRE):  # doubled on fire-vulnerable units
                d *= 2
            d = (d * (100 - U[L.U_RES0 + L.T_FIRE, ti])) // 100
            _lose_hp(i, d, hp, state, px, py, grid, width, dbg, seq)
            if log is not None:
                _log_loss(log, i, d, hp, state, G.E_BURNING)
            if chance(s, P[R.BURN_STOP]):
                burning[i] = 0
        if poison[i] > 0 and state[i] == ALIVE:  # C-4.5
            d = max(1, poison[i] // np.int64(P[R.POISON_DIVISOR]))
            poison[i] -= d
            _lose_hp(i, d, hp, state, px, py, grid, width, dbg, seq)
            if log is not None:
                _log_loss(log, i, d, hp, state, G.E_POISON)
        if decaying[i] and state[i] == ALIVE:  # C-4.8
            _lose_hp(i, 1, hp, state, px, py, grid, width, dbg, seq)
            if log is not None:
                _log_loss(log, i, 1, hp, state, G.E_DECAY)
        if state[i] != ALIVE:
            continue
        if frozen[i] and chance(s, P[R.THAW_CHANCE]):
            frozen[i] = 0
        if stunned[i] and chance(s, P[R.STUN_RECOVER]):
            stunned[i] = 0
        if paralysed[i] and chance(s, P[R.PARALYSIS_END]):
            paralysed[i] = 0
        if log is not None:
            G.emit_status(log, -1, i, before, burning, frozen, stunned, paralysed, decaying)
        if U[L.U_FLAGS, ti] & L.UF_REGENERATION:  # C-8.9 [default]
            if log is not None:
                hp0 = hp[i]
            heal = np.int64(np.ceil(P[R.REGEN_FRACTION] * maxhp[i] - 1e-9))
            hp[i] = min(maxhp[i], hp[i] + heal)
            dbg[i, D_MAX_HP_SEEN] = max(dbg[i, D_MAX_HP_SEEN], hp[i])
            if log is not None:
                if hp[i] > hp0:
                    G.emit(log, G.EV_HEAL, i, i, -1, hp[i] - hp0, hp[i], 0)
    G.step(log, 10)
    for i in range(itype.shape[0]):  # step 10: clouds
        if state[i] != ALIVE:
            continue
        w = cloud[px[i] * width + py[i]]
        if w < 0:
            continue
        wall = fort if siege and px[i] == wall_col else 0
        if log is not None:
            trace = np.zeros(N_TRACE, np.int64)
            hit_trace(s.copy(), W, w, U, itype[i], 0, wall, stunned[i] != 0 or paralysed[i] != 0,
                      frozen[i] != 0, 0, trace)  # fmt: skip
        d = hit_damage(s, W, w, U, itype[i], 0, wall, stunned[i] != 0 or paralysed[i] != 0,
                       frozen[i] != 0, False)  # fmt: skip
        if log is not None:
            lost = d if d >= 1 and W[L.W_TYPE, w] != L.T_POISON else 0
            G.emit_hit(log, -1, i, w, d, max(hp[i] - lost, 0), trace)
        if W[L.W_TYPE, w] == L.T_POISON:
            poison[i] += d
        else:
            _lose_hp(i, d, hp, state, px, py, grid, width, dbg, seq)
            if log is not None:
                if state[i] == DEAD:
                    G.emit(log, G.EV_DEATH, -1, i, w, 0, 0, 0)


@njit(inline="always", error_model="numpy")
def _settled(U, itype, state, hp, maxhp, burning, frozen, stunned, paralysed, decaying, poison):
    """True when steps 9-10 can change nothing any more (and would draw no number).

    No living unit burns, is frozen, stunned, paralysed, decaying or poisoned,
    or regenerates below its max HP; clouds are the caller's to check.  The
    rest of the 75 extra rounds can then be skipped without changing a bit.
    """
    for i in range(itype.shape[0]):
        if state[i] != ALIVE:
            continue
        if burning[i] or frozen[i] or stunned[i] or paralysed[i] or decaying[i] or poison[i] > 0:
            return False
        if U[L.U_FLAGS, itype[i]] & L.UF_REGENERATION and hp[i] < maxhp[i]:
            return False
    return True


@helper
def _side_counts(iside, state):
    a = 0
    b = 0
    for i in range(iside.shape[0]):
        if state[i] == ALIVE:
            if iside[i] == 0:
                a += 1
            else:
                b += 1
    return a, b


@helper
def _any_weapon_flag(W, flag):
    for w in range(W.shape[1]):
        if W[L.W_FLAGS, w] & flag:
            return True
    return False


@helper
def _side_has_weapon_flag(U, W, itype, iside, side, flag):
    for i in range(itype.shape[0]):
        if iside[i] == side:
            ti = itype[i]
            for k in range(U[L.U_NW, ti]):
                if W[L.W_FLAGS, U[L.U_W0, ti] + k] & flag:
                    return True
    return False


@helper
def _any_fear(U, itype):
    for i in range(itype.shape[0]):
        if U[L.U_FEAR, itype[i]] > 0:
            return True
    return False


@njit(inline="always", error_model="numpy")
def _ranged_shot(s, i, w, k, rnd, lo, hi, U, W, iside, state, px, py, siege, wall_col,
                 last_fire, P, cand):  # fmt: skip
    """Target of one shot of ranged weapon w (slot k) of i in round ``rnd``, or -1.

    C-5.2: a reloading weapon does not fire (the other shots of the round it
    fired in still fly).  The target is a random enemy at distance lo..hi,
    capped by the weapon's range when ``hi`` is negative (C-5.1).  Returns
    ``(target, far)``, ``far`` true beyond half the range (C-5.3).
    """
    if last_fire[i, k] != rnd and rnd - last_fire[i, k] < W[L.W_RELOAD, w] + 1:
        return -1, False
    r = _eff_range(i, w, W, px, siege, wall_col, P)
    j = _random_enemy(s, i, lo, r if hi < 0 else hi, iside, state, px, py, cand)
    if j < 0:
        return -1, False
    last_fire[i, k] = rnd
    return j, _cheb(px[i], py[i], px[j], py[j]) > (r + 1) // 2


@helper
def _pick_target(s, i, w, k, rnd, U, W, iside, state, px, py, grid, width, length, siege,
                 wall_col, last_fire, P, cand):  # fmt: skip
    """C-8.6: the target of one attack of weapon w (slot k) of i, and whether it is far.

    A melee weapon strikes a random adjacent enemy; a ranged weapon shoots a
    random enemy in range unless an enemy is adjacent (C-5.5: then the unit's
    melee weapons fight instead).  ``(-1, False)`` when the attack is lost.
    """
    if W[L.W_RANGE, w] > 1:
        if _adjacent_enemies(i, iside, px, py, grid, width, length, cand) > 0:
            return -1, False  # C-5.5
        return _ranged_shot(s, i, w, k, rnd, 2, -1, U, W, iside, state, px, py, siege, wall_col,
                            last_fire, P, cand)  # fmt: skip
    k_adj = _adjacent_enemies(i, iside, px, py, grid, width, length, cand)
    if k_adj == 0:
        return -1, False
    return cand[bounded(s, k_adj)], False


@helper
def play_battle(s, U, W, itype, iside, sx, sy, width, length, wall_col, fort, siege, P,
                hp, maxhp, px, py, state, burning, frozen, stunned, paralysed, decaying, poison,
                grid, cloud, last_fire, atk_unit, atk_w, atk_slot, atk_key, cand, dealt,
                dbg, log):  # fmt: skip
    """Play one battle; returns ``(outcome, rounds)``.  Final state is left in the arrays.

    ``log`` is None in batch runs; a replay passes an event buffer
    (:mod:`kernels.coe5_log`), written without drawing any number from ``s``.
    """
    n = itype.shape[0]
    grid[:] = -1
    cloud[:] = -1
    dealt[:] = 0
    for i in range(n):
        t = itype[i]
        hp[i] = U[L.U_HP, t]
        maxhp[i] = hp[i]
        px[i] = sx[i]
        py[i] = sy[i]
        state[i] = ALIVE
        burning[i] = 0
        frozen[i] = 0
        stunned[i] = 0
        paralysed[i] = 0
        decaying[i] = 1 if U[L.U_FLAGS, t] & L.UF_DECAY else 0
        poison[i] = 0
        grid[sx[i] * width + sy[i]] = i
        last_fire[i, :] = -(1 << 40)
        dbg[i, D_HP] = 0
        dbg[i, D_STATE] = ALIVE
        dbg[i, D_GONE_SEQ] = -1
        dbg[i, D_LAST_ACT_SEQ] = -1
        dbg[i, D_MAX_HP_SEEN] = hp[i]
    G.at(log, 0, G.STEP_DEPLOY)
    G.deploy(log, itype, hp, px, py)
    seq = 0
    fatigue_start = np.int64(P[R.FATIGUE_START])
    if fatigue_start < 0:  # C-8.1 [default]: F = max(100, 100 + units at the start)
        fatigue_start = max(100, 100 + n)
    max_rounds = np.int64(P[R.MAX_ROUNDS])
    # Battles without clouds or fear skip those steps' loops entirely.
    clouds = _any_weapon_flag(W, L.F_CLOUD)
    fear = _any_fear(U, itype)
    movers = _move_order(iside, P[R.PAIRED_MOVES] != 0)
    snapshot = P[R.SIMULTANEOUS_MOVES] != 0
    early = P[R.TARGET_AT_ORDER] != 0
    atk_target = np.empty(atk_unit.shape[0] if early else 0, np.int64)
    atk_far = np.empty(atk_unit.shape[0] if early else 0, np.bool_)
    qx = np.empty(n, np.int64) if snapshot else px
    qy = np.empty(n, np.int64) if snapshot else py

    # C-7.1 pre-battle weapons (both sides), C-7.2 assassins (attacker only).
    for phase in range(2):
        flag = L.F_PREBATTLE if phase == 0 else L.F_ASSASSIN
        G.at(log, 0, G.STEP_PREBATTLE + phase)
        for i in range(n):
            if state[i] != ALIVE or (phase == 1 and iside[i] != 0):
                continue
            ti = itype[i]
            for k in range(U[L.U_NW, ti]):
                w = U[L.U_W0, ti] + k
                if W[L.W_FLAGS, w] & flag:
                    j = _random_enemy(s, i, 0, 1 << 30, iside, state, px, py, cand)
                    if j >= 0:
                        seq += 1
                        _strike(s, i, w, j, False, U, W, itype, iside, hp, state, px, py, grid,
                                cloud, width, wall_col, fort, siege, burning, frozen, stunned,
                                paralysed, decaying, poison, dealt, P, dbg, seq, log)  # fmt: skip

    if siege and _side_has_weapon_flag(U, W, itype, iside, 0, L.F_SIEGE):
        # C-7.3 rounds -15..-1: only the attacker's siege weapons fire, with their
        # shots and reload; [default] a bombardment at any distance, then steps 9-10.
        hi = (1 << 30) if P[R.BOMBARD] != 0 else -1
        lo = 0 if P[R.BOMBARD] != 0 else 2
        for rnd in range(-np.int64(P[R.SIEGE_ROUNDS]), 0):
            G.at(log, rnd, G.STEP_SIEGE)
            G.emit(log, G.EV_ROUND, -1, -1, -1, 0, 0, 0)
            for i in range(n):
                if iside[i] != 0 or state[i] != ALIVE or stunned[i] or paralysed[i]:
                    continue
                ti = itype[i]
                for k in range(U[L.U_NW, ti]):
                    w = U[L.U_W0, ti] + k
                    if not W[L.W_FLAGS, w] & L.F_SIEGE:
                        continue
                    for _ in range(W[L.W_SHOTS, w]):
                        j, far = _ranged_shot(s, i, w, k, rnd, lo, hi, U, W, iside, state, px,
                                              py, siege, wall_col, last_fire, P, cand)  # fmt: skip
                        if j >= 0:
                            seq += 1
                            _strike(s, i, w, j, far, U, W, itype, iside, hp, state, px, py, grid,
                                    cloud, width, wall_col, fort, siege, burning, frozen, stunned,
                                    paralysed, decaying, poison, dealt, P, dbg, seq,
                                    log)  # fmt: skip
            seq += 1
            _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col,
                     fort, siege, burning, frozen, stunned, paralysed, decaying, poison, P, dbg,
                     seq, log)  # fmt: skip
    if siege:
        # C-7.4 [default]: the attacker's tunnellers surface next to a random enemy.
        tunnellers = np.int64(P[R.TUNNELLERS])
        G.at(log, 0, G.STEP_TUNNEL)
        for i in range(n):
            if state[i] == ALIVE and U[L.U_FLAGS, itype[i]] & L.UF_SIEGE_TUNNELING:
                if iside[i] < tunnellers:  # 1: side 0 only; 2: both sides
                    if log is not None:
                        x0, y0 = px[i], py[i]
                    _surface_next_to_enemy(s, i, iside, state, px, py, grid, width, length, cand)
                    if log is not None:
                        G.emit_tile(log, G.EV_MOVE, i, -1, -1, x0, y0, px[i], py[i])

    outcome = DRAW
    rounds = 0
    a, b = _side_counts(iside, state)
    rnd = 1
    timed_out = False
    while a > 0 and b > 0:
        if rnd > max_rounds:  # C-8.11 [default]: a draw, without the extra rounds
            timed_out = True
            break
        G.at(log, rnd, 1)
        G.emit(log, G.EV_ROUND, -1, -1, -1, 0, 0, 0)
        # 1. battle fatigue: magic damage ignoring armour and shields
        seq += 1
        if rnd >= fatigue_start:
            for i in range(n):
                if log is not None:
                    alive = state[i] == ALIVE
                _lose_hp(i, rnd - fatigue_start + 1, hp, state, px, py, grid, width, dbg, seq)
                if log is not None:
                    if alive:
                        _log_loss(log, i, rnd - fatigue_start + 1, hp, state, G.E_FATIGUE)
        # 2. clouds disperse
        if log is not None:
            G.at(log, rnd, 2)
            cloud_before = cloud.copy()
        if clouds:
            _clear_clouds(s, cloud, P)
        # 3-4. movement in ``movers`` (C-8.3, see _move_order); fast units move twice.
        # C-8.3 [default] simultaneous moves: every unit chooses from where the
        # enemies stood when the sweep began (qx, qy), so the attacker's earlier
        # choice of tiles is its only edge: the defender does not also get to see
        # where the attacker went.  With it off, qx, qy are the live positions.
        if log is not None:
            G.clouds_gone(log, cloud_before, cloud, width)
        for sweep in range(2):
            if snapshot:
                qx[:] = px
                qy[:] = py
            for i in movers:
                if state[i] != ALIVE or stunned[i] or paralysed[i]:
                    continue
                fl = U[L.U_FLAGS, itype[i]]
                if fl & L.UF_IMMOBILE or (sweep == 1 and not fl & L.UF_FAST):
                    continue
                if log is not None:
                    G.at(log, rnd, 3 + sweep)
                    x0, y0 = px[i], py[i]
                if sweep == 0 and fl & L.UF_COMBAT_BURROWING:
                    if chance(s, P[R.BURROW_CHANCE]):  # C-7.5 [default]
                        _surface_next_to_enemy(s, i, iside, state, px, py, grid, width, length,
                                               cand)  # fmt: skip
                        if log is not None:  # C_TARGET -2: it burrowed and surfaced
                            G.emit_tile(log, G.EV_MOVE, i, -2, -1, x0, y0, px[i], py[i])
                            x0, y0 = px[i], py[i]
                _move(s, i, U, W, itype, iside, state, px, py, qx, qy, grid, width, length,
                      siege, wall_col, P, cand)  # fmt: skip
                if log is not None:
                    if px[i] != x0 or py[i] != y0:
                        G.emit_tile(log, G.EV_MOVE, i, -1, -1, x0, y0, px[i], py[i])
        # 5. fear
        G.at(log, rnd, 5)
        if fear:
            seq = _fear(s, U, itype, iside, state, px, py, grid, width, length, P, cand, dbg, seq,
                        log)  # fmt: skip
        # 6-7. attack order: wands first, then initiative, ties at random
        m = 0
        for i in range(n):
            if state[i] != ALIVE or stunned[i] or paralysed[i]:
                continue
            ti = itype[i]
            for k in range(U[L.U_NW, ti]):
                w = U[L.U_W0, ti] + k
                if W[L.W_FLAGS, w] & L.F_PREBATTLE:
                    continue
                wand = 1 if W[L.W_FLAGS, w] & L.F_WAND else 0
                for _ in range(W[L.W_SHOTS, w]):
                    atk_unit[m] = i
                    atk_w[m] = w
                    atk_slot[m] = k
                    tie = np.int64(next_u64(s) & _MASK32)
                    atk_key[m] = -((wand << 50) + (W[L.W_INIT, w] << 36) + tie)
                    if early:  # C-8.6 target_draw="order": the target is drawn now
                        atk_target[m], atk_far[m] = _pick_target(
                            s, i, w, k, rnd, U, W, iside, state, px, py, grid, width, length,
                            siege, wall_col, last_fire, P, cand,
                        )  # fmt: skip
                    m += 1
        order = np.argsort(atk_key[:m], kind="mergesort")  # stable: equal keys by index
        # 8. attacks
        G.at(log, rnd, 8)
        for q in range(m):
            e = order[q]
            i = atk_unit[e]
            if state[i] != ALIVE or stunned[i] or paralysed[i]:
                continue  # killed, routed or stunned before its attack came
            w = atk_w[e]
            if early:
                j = atk_target[e]
                far = atk_far[e]
                if j >= 0 and state[j] != ALIVE:
                    continue  # C-8.6 target_draw="order": the target is gone, the attack lost
            else:  # C-8.6 [default]: the target is drawn when the attack is made
                j, far = _pick_target(s, i, w, atk_slot[e], rnd, U, W, iside, state, px, py,
                                      grid, width, length, siege, wall_col, last_fire, P,
                                      cand)  # fmt: skip
            if j < 0:
                continue  # nobody in reach: the attack is lost
            seq += 1
            _strike(s, i, w, j, far, U, W, itype, iside, hp, state, px, py, grid, cloud, width,
                    wall_col, fort, siege, burning, frozen, stunned, paralysed, decaying, poison,
                    dealt, P, dbg, seq, log)  # fmt: skip
        # 9-10. ongoing effects and clouds (a settled battle skips the call)
        seq += 1
        if clouds or not _settled(U, itype, state, hp, maxhp, burning, frozen, stunned,
                                  paralysed, decaying, poison):  # fmt: skip
            _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col,
                     fort, siege, burning, frozen, stunned, paralysed, decaying, poison, P, dbg,
                     seq, log)  # fmt: skip
        a, b = _side_counts(iside, state)
        rounds = rnd
        rnd += 1
    # 11. the end: 75 more rounds of steps 2, 9 and 10 only, then count survivors.
    extra = 0 if timed_out else np.int64(P[R.EXTRA_ROUNDS])
    if log is not None:
        played = 0
    for x in range(extra):
        if not clouds and _settled(U, itype, state, hp, maxhp, burning, frozen, stunned,
                                   paralysed, decaying, poison):  # fmt: skip
            break
        seq += 1
        if log is not None:  # C_INFO 1: an extra round (C-8.11)
            G.at(log, rounds + 1 + x, 2)
            G.emit(log, G.EV_ROUND, -1, -1, -1, 0, 0, 1)
            cloud_before = cloud.copy()
            played += 1
        if clouds:
            _clear_clouds(s, cloud, P)  # step 2 goes on in the extra rounds
        if log is not None:
            G.clouds_gone(log, cloud_before, cloud, width)
        _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col,
                 fort, siege, burning, frozen, stunned, paralysed, decaying, poison, P, dbg,
                 seq, log)  # fmt: skip
    a, b = _side_counts(iside, state)
    if timed_out:
        outcome = DRAW
    elif a > 0 and b == 0:
        outcome = ATTACKER_WINS
    elif b > 0 and a == 0:
        outcome = DEFENDER_WINS
    else:
        outcome = DRAW
    if log is not None:
        G.at(log, rounds, 12)
        G.emit(log, G.EV_END, -1, -1, -1, outcome, 0, played)
    for i in range(n):
        dbg[i, D_HP] = hp[i]
        dbg[i, D_STATE] = state[i]
        dbg[i, D_TYPE] = itype[i]
        dbg[i, D_X] = px[i]
        dbg[i, D_Y] = py[i]
        dbg[i, D_STATUS] = (
            S_BURNING * (burning[i] != 0) + S_FROZEN * (frozen[i] != 0)
            + S_STUNNED * (stunned[i] != 0) + S_PARALYSED * (paralysed[i] != 0)
        )  # fmt: skip
    return outcome, rounds


@helper
def deal_out(s, btype, bpart, shuffle_idx, shuffle_bounds):
    """C-6 [default]: shuffle the unit types (and parts) among the slots of each role.

    ``shuffle_idx[shuffle_bounds[g]:shuffle_bounds[g + 1]]`` are the slots of
    role group g (one side's melee or ranged slots).  The caller starts each
    battle from the written arrangement, so a battle's deployment depends on
    its own stream alone and it can be replayed on its own.
    """
    for g in range(shuffle_bounds.shape[0] - 1):
        lo = shuffle_bounds[g]
        for a in range(shuffle_bounds[g + 1] - 1, lo, -1):
            b = lo + bounded(s, a - lo + 1)
            ia = shuffle_idx[a]
            ib = shuffle_idx[b]
            btype[ia], btype[ib] = btype[ib], btype[ia]
            bpart[ia], bpart[ib] = bpart[ib], bpart[ia]


@njit(cache=True, parallel=True, error_model="numpy")
def run_battles(states, chunk, n_trials, U, W, itype, iside, ipart, sx, sy, shuffle_idx,
                shuffle_bounds, width, length, wall_col, fort, siege, P, max_weapons, max_attacks,
                agg_outcome, agg_rounds, agg_surv, agg_routed, agg_dealt, agg_dealt_sq,
                keep, t_outcome, t_rounds, t_surv, t_routed, t_dealt, debug, t_debug):  # fmt: skip
    """Play ``n_trials`` battles in chunks of ``chunk``, one stream per battle.

    Battle ``t`` of chunk ``c`` draws from ``seed_trial(states[c], t - c·chunk)``:
    the chunk's key comes from (seed, the run's chunk number) and the index is
    the battle's place in its chunk, so battle t of a run is a pure function of
    the seed and t whatever the batches; it can be replayed alone, and variants
    of a matchup share their random numbers battle by battle.

    ``itype``, ``ipart`` give the unit type and army part of each slot before
    :func:`deal_out` shuffles them for each battle within ``shuffle_idx`` groups.
    ``agg_*`` arrays have a leading chunk axis and are accumulated per chunk:
    outcome counts (3), a rounds histogram, per-part histograms of survivors
    and routed counts, and the sum and sum of squares of damage dealt per side.
    With ``keep`` the ``t_*`` arrays receive one row per trial; with ``debug``
    ``t_debug[trial, unit, :]`` receives the per-unit record (D_* columns).
    """
    n = itype.shape[0]
    max_round_bin = agg_rounds.shape[1] - 1
    for c in prange(states.shape[0]):
        s = np.empty(4, np.uint64)
        btype = itype.copy()
        bpart = ipart.copy()
        hp = np.zeros(n, np.int64)
        maxhp = np.zeros(n, np.int64)
        px = np.zeros(n, np.int64)
        py = np.zeros(n, np.int64)
        state = np.zeros(n, np.int64)
        burning = np.zeros(n, np.int64)
        frozen = np.zeros(n, np.int64)
        stunned = np.zeros(n, np.int64)
        paralysed = np.zeros(n, np.int64)
        decaying = np.zeros(n, np.int64)
        poison = np.zeros(n, np.int64)
        grid = np.empty(width * length, np.int64)
        cloud = np.empty(width * length, np.int64)
        last_fire = np.zeros((n, max_weapons), np.int64)
        atk_unit = np.zeros(max_attacks, np.int64)
        atk_w = np.zeros(max_attacks, np.int64)
        atk_slot = np.zeros(max_attacks, np.int64)
        atk_key = np.zeros(max_attacks, np.int64)
        cand = np.zeros(max(n, 9, width), np.int64)
        dealt = np.zeros(2, np.int64)
        dbg = np.zeros((n, N_DEBUG), np.int64)
        n_parts = agg_surv.shape[1]
        surv = np.zeros(n_parts, np.int64)
        routed = np.zeros(n_parts, np.int64)
        for trial in range(c * chunk, min(n_trials, (c + 1) * chunk)):
            seed_trial(states[c], trial - c * chunk, s)  # each battle its own stream (issue 12)
            btype[:] = itype  # from the written slots, so battle t depends on t alone
            bpart[:] = ipart
            deal_out(s, btype, bpart, shuffle_idx, shuffle_bounds)
            outcome, rounds = play_battle(
                s, U, W, btype, iside, sx, sy, width, length, wall_col, fort, siege, P,
                hp, maxhp, px, py, state, burning, frozen, stunned, paralysed, decaying, poison,
                grid, cloud, last_fire, atk_unit, atk_w, atk_slot, atk_key, cand, dealt, dbg,
                None,
            )  # fmt: skip
            surv[:] = 0
            routed[:] = 0
            for i in range(n):
                if state[i] == ALIVE:
                    surv[bpart[i]] += 1
                elif state[i] == ROUTED:
                    routed[bpart[i]] += 1
            agg_outcome[c, outcome] += 1
            agg_rounds[c, min(rounds, max_round_bin)] += 1
            for p in range(n_parts):
                agg_surv[c, p, surv[p]] += 1
                agg_routed[c, p, routed[p]] += 1
            for side in range(2):
                agg_dealt[c, side] += dealt[side]
                agg_dealt_sq[c, side] += dealt[side] * dealt[side]
            if keep:
                t_outcome[trial] = outcome
                t_rounds[trial] = rounds
                t_surv[trial, :] = surv
                t_routed[trial, :] = routed
                t_dealt[trial, :] = dealt
            if debug:
                dbg[:, D_PART] = bpart
                t_debug[trial, :, :] = dbg


@njit(cache=True, error_model="numpy")
def replay_battle(key, trial, U, W, itype, iside, ipart, sx, sy, shuffle_idx, shuffle_bounds,
                  width, length, wall_col, fort, siege, P, max_weapons, max_attacks, log, dbg,
                  dealt):  # fmt: skip
    """Play the battle at place ``trial`` of the chunk keyed ``key`` again, logging its events.

    The same stream (``seed_trial(key, trial)``), deal-out and play as in
    :func:`run_battles`, with the event buffer ``log`` (:mod:`kernels.coe5_log`)
    passed down.  Returns ``(outcome, rounds)``; ``dbg`` receives the per-unit
    record (D_* columns, with D_PART) and ``dealt`` the damage dealt per side.
    """
    n = itype.shape[0]
    s = np.empty(4, np.uint64)
    btype = itype.copy()
    bpart = ipart.copy()
    cand = np.zeros(max(n, 9, width), np.int64)
    seed_trial(key, trial, s)
    deal_out(s, btype, bpart, shuffle_idx, shuffle_bounds)
    outcome, rounds = play_battle(
        s, U, W, btype, iside, sx, sy, width, length, wall_col, fort, siege, P,
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.empty(width * length, np.int64),
        np.empty(width * length, np.int64), np.zeros((n, max_weapons), np.int64),
        np.zeros(max_attacks, np.int64), np.zeros(max_attacks, np.int64),
        np.zeros(max_attacks, np.int64), np.zeros(max_attacks, np.int64), cand, dealt, dbg, log,
    )  # fmt: skip
    dbg[:, D_PART] = bpart
    return outcome, rounds
