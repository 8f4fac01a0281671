"""One whole CoE5 battle on the grid (RULES.md C-6 to C-9), and its chunk driver.

``run_chunks`` plays a range of chunks of battles from packed unit tables,
one random stream per battle (releasing the GIL, so the caller runs chunks
on a thread pool), and aggregates outcome counts and histograms per chunk,
so memory stays bounded for any trial count.
Per-trial arrays are filled only when ``keep`` is set, and the per-unit debug
record (used by the invariant tests) only when ``debug`` is set.

Unit instances are deployment slots, ordered attacker first, front to back;
C-8.3's movement order is built from it (``_move_order``).  Each battle deals
the unit types out to the slots of each role afresh (C-6), so the written
order of an army does not matter.  Positions are (x, y) = (column, row).

Spatial index (issue 13).  The grid ``grid[x * width + y]`` holds the living
unit on each tile (dead and routed units leave it), so the searches for
enemies look at tiles near a unit instead of at every unit.  The reference
(:mod:`kernels.coe5_battle_ref`) scans every unit, lists the k that qualify
and draws ``bounded(s, k)``; each search here finds the same k and makes the
same draw r, then names the enemy the reference names: the same draws from
the stream in the same order, so every battle is the same, bit for bit.  How
each search gets k and the r-th:

- a shot's targets (C-5.1, ``_random_enemy``): the r-th in tile order,
  as the reference ranks them too.  On grids up to 62 rows wide the
  enemies come from *column bitsets* (``column_bits``: per side and
  column, one word with a bit per row): k is the popcount of the box's
  columns within range, and the r-th is found walking them a word at a
  time.  The bitsets are built when units stop moving for the round
  (attacks, and each siege round), and kept exact after that: in those
  steps only a struck unit dies or routs, and the caller clears its bit.
  On wider grids the box's tiles are read in tile order, to count and to
  walk to the r-th, when the box has fewer tiles than the enemy has slots;
  otherwise the enemy's slots are scanned, listing the tile keys of the k,
  and the r-th is taken by quickselect;
- fear (C-8.5) reads the 8 tiles around a unit and sorts those enemies by
  number (``_unit_order``); a melee target is drawn among the 8 tiles in tile
  order, as the reference does too; the column bitsets tell at once that
  none of the 8 holds an enemy (``_pick_target``), which is so for most
  attacks of a big battle's rear ranks;
- the nearest enemy (C-8.3): the r-th in tile order, below.

C-8.3 with the index.  ``field[e]`` is the summed-area table of side e's
living units (``count_table``), so any box of tiles is counted from four
entries.  A mover's nearest distance d is the least r whose box around it
holds an enemy, searched from two less than the distance it found last time
(``near``; steps that double, then bisection), and that box's count is k, the
enemies at distance d, all on its ring: enough for the draw, which is made
for every mover as in the reference (a lone enemy, or ``random_nearest``
off: rank 0, no draw).  Only a mover that then steps toward the enemy drawn
looks for it: as no enemy stands inside the ring, the r-th enemy of the
ring in tile order is the r-th of the whole box.  On grids up to 62 rows
wide, ``count_table`` also leaves the side's column words (as
``column_bits``) in ``colbits``, which movement does not otherwise use, and
``_rth_on_ring`` counts the box's columns a word at a time: the first and
the last column, one popcount each, hold the enemy in most cases (it is in
front or behind).  On wider grids, bisection over the box's columns and then
rows (``_rth_in_box``): about log2(columns) + log2(rows) box counts.  A
blocked mover's sidestep (C-8.3 [default]) passes over the columns of its
3x3 that are no nearer the enemy and reads the others' tiles without a
branch: more than half the movers of a big battle are blocked.  Both kernels rank
the k in tile order (:mod:`kernels.tile_order`) for this reason: in unit
order every one of the k had to be read, a cost that grew with the width
of the enemy's front.  Battles too small to be worth a table scan the units
as the reference does.

[default] simultaneous moves: at the start of each sweep the positions
(``qx, qy``) are copied and both tables describe that snapshot (the tile a
mover's search names is where its enemy stood: all its step needs); a
side's moves during the sweep only mark its table for rebuilding at the
next sweep, while the live ``grid`` decides which tiles are free to step
on.  With ``simultaneous_moves`` off the movers
choose from the live positions, and a side's table is rebuilt before the
next mover that looks at it after a unit of that side moved.  Deaths and
routs happen outside movement, so both tables are rebuilt (lazily) at each
movement step.  The movers come in ``_move_order`` (paired ranks, or all
attackers first) as in the reference.

Attack order (steps 6-7).  ``_attack_order`` bucket-sorts the keys instead of
the reference's stable ``np.argsort``: the same permutation, equal 64-bit keys
(about m² / 2**33 a round for m attacks) by index in both.  The melee attacks
of a unit with no enemy next to it when the order is made draw their ties
and are left out: from then to the end of the round units only die or rout,
so such an attack would be lost when it came, drawing nothing, and the
stable sort keeps the others' order.  Whether an enemy is next to a unit is
one bit of the words ``_next_to_bits`` spreads from the column bitsets, and a
unit with only melee attacks skips its ties in one go (``skip``, as many words
as ``U_KEY_DRAWS`` says) without walking its weapons.  Most
attacks of a big battle's rear ranks are such.  Shots are left out the
same way when the bitsets prove that no enemy stands within their range
(C-5.1, with the wall's bonus of C-5.4): ``_occupied`` reads the span of
columns and the rows each side holds, and ``_none_within`` says so when the
shot's range box meets no column of the enemies' span, or none of their
rows.  Such a shot would find no target when it came, drawing nothing and
leaving its weapon's reload (``last_fire``, C-5.2) as it was.  The test may
say "maybe" when there is none (the shot is then searched as before); it is
made only with the bitsets and in battles with a missile weapon.  At
200v200 it leaves out 2,273 of the 2,553 shot searches a battle that found
nobody, of 3,350 (each a pass over 11 column words).

Extras (issue 13, the first compile).  Many battles use none of the rules
that only some units or options bring: sieges, missile weapons, pre-battle
weapons and assassins, burrowers, fear, clouds, lasting effects, regeneration
and decay.  ``run_chunks`` takes ``extras``: True, or None for such a battle
(:func:`needs_extras` decides from the packed tables).  Every step that only
the extras reach is guarded by ``extras is not None``, which Numba settles
from the argument's type before it types the function, so the kernel
compiled for None has none of that code and calls none of its helpers
(``_fear``, ``_ongoing``, ``_ranged_shot``, ...): 48 of the whole kernel's 69
helpers, and half its compile time.  A plain battle never reaches the guarded code,
so both kernels play it the same, bit for bit (``tests/test_coe5_extras.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kernels import coe5_layout as L
from kernels import coe5_rules as R
from kernels.bits import popcount, trailing_zeros
from kernels.borrow import borrowed
from kernels.coe5_damage import ETHEREAL_DIE, ethereal_applies, hit_damage, vulnerable_to
from kernels.coe5_dice import NORMAL, check_roll, fails_morale, oed, resists
from kernels.jit import helper
from kernels.noalias import NOALIAS
from kernels.rng import bounded, chance, next_u64, seed_trial, skip
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
_LOW32 = np.int64(0xFFFFFFFF)

# Integer arguments as plain int64 scalars.  A literal such as ``0`` at a call
# site is typed Literal[int](0), and Numba compiles the callee once more for it:
# each extra specialisation of a helper cost seconds of a cold start (issue 13).
ZERO = np.int64(0)
ONE = np.int64(1)
NEAR = np.bool_(False)  # _strike: not beyond half the range (C-5.3)
TWO = np.int64(2)
IN_RANGE = np.int64(-1)  # _ranged_shot: the weapon's range caps the distance
ANYWHERE = np.int64(1 << 30)
#: A span that holds every tile: ``_none_within`` says "maybe", so each shot is searched.
UNKNOWN_SPAN = (-ANYWHERE, ANYWHERE, np.int64(-1))

#: Summed-area tables (``field``) are used when units² ≥ this × tiles (a matter of cost only).
FIELD_MIN = 1

#: Column bitsets (``colbits``, one int64 word per column) serve grids up to this wide.
COLUMN_BITS_MAX_WIDTH = 62

# The rows of run_chunks' work arrays, which the caller allocates (one set per thread):
# ``units`` (UNIT_ROWS, n): hp, maxhp, px, py, state, burning, frozen, stunned, paralysed,
# decaying, poison, qx, qy, near, the dealt type and part, the movers' order;
# ``tiles`` (TILE_ROWS, tiles): grid, cloud; ``attacks`` (ATTACK_ROWS, max attacks):
# unit, weapon, slot, key, early target, early far; ``misc``: cand (MISC_EXTRA fewer than
# its length less two per army part), dealt (2), surv and routed (a part each), stale (2)
# and moved (2).  Allocating them in the kernel cost a cold start about 0.3 s: Numba
# compiles its allocation routines afresh for each kernel, on the main process's path.
UNIT_ROWS = 17
TILE_ROWS = 2
ATTACK_ROWS = 6
MISC_EXTRA = 6


@helper(forceinline=True)
def _cheb(x0, y0, x1, y1):
    return max(abs(x0 - x1), abs(y0 - y1))


@helper(forceinline=True)
def _copy(dst, src):
    """``dst[:] = src`` for 1-D int64 arrays of one length, as a plain loop.

    Numba's array-to-array slice assignment compiles a broadcasting check with
    string formatting for its error message: seconds of a cold start, per shape.
    """
    for k in range(src.shape[0]):
        dst[k] = src[k]


@helper(forceinline=True)
def _sign(v):
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0


@helper(forceinline=True)
def _leave(j, how, state, px, py, grid, width, dbg, seq):
    """Unit j leaves the battle (``how`` is DEAD or ROUTED, C-8.5) at event ``seq``."""
    state[j] = how
    grid[px[j] * width + py[j]] = -1
    dbg[j, D_GONE_SEQ] = seq


@helper(forceinline=True)
def _lose_hp(j, amount, hp, state, px, py, grid, width, dbg, seq):
    """Remove ``amount`` HP (no attribution); kill at 0.  Returns HP removed."""
    if amount <= 0 or state[j] != ALIVE:
        return 0
    removed = min(amount, hp[j])
    hp[j] -= amount
    if hp[j] <= 0:
        _leave(j, np.int64(DEAD), state, px, py, grid, width, dbg, seq)
    return removed


@helper(forceinline=True)
def _strike(s, i, w, j, far, U, W, itype, iside, hp, state, px, py, grid, cloud, width,
            wall_col, fort, siege, burning, frozen, stunned, paralysed, decaying, poison, dealt,
            P, dbg, seq, extras):  # fmt: skip
    """Resolve one hit of unit i's weapon w on unit j (C-3, C-4).

    With ``extras`` None (see :func:`needs_extras`) no weapon leaves a cloud or
    a lasting effect, and those branches are not compiled.
    """
    ti = itype[i]
    tj = itype[j]
    dbg[i, D_LAST_ACT_SEQ] = seq
    flags = W[L.W_FLAGS, w]
    dtype = W[L.W_TYPE, w]
    if extras is not None:
        if flags & L.F_CLOUD:  # C-8.2: the weapon leaves a cloud on the target's tile
            cloud[px[j] * width + py[j]] = w
            return
        if dtype == L.T_PARALYSIS:  # C-4.9: no damage; resisted by MR
            if ethereal_applies(W, w, U, tj) and bounded(s, ETHEREAL_DIE) != 0:
                return  # C-4.9 with C-3.9: a non-magic paralysing hit misses the ethereal
            if not resists(s, U[L.U_MR, tj], np.int64(NORMAL)):
                paralysed[j] = 1
            return
    strength = U[L.U_STR, ti] - frozen[i]  # C-4.3: frozen units lose 1 strength
    wall = fort if siege and px[j] == wall_col else 0  # C-3 step 4
    cannot_move = stunned[j] != 0 or paralysed[j] != 0
    far_code = (1 + np.int64(P[R.HALVE_FINAL])) if far else 0  # C-5.3
    dmg = hit_damage(s, W, w, U, tj, strength, wall, cannot_move, frozen[j] != 0, far_code)
    if extras is not None and dtype == L.T_POISON:  # C-4.5: into the pool, not HP now
        poison[j] += dmg
        return
    if dmg < 1:
        return
    dealt[iside[i]] += _lose_hp(j, dmg, hp, state, px, py, grid, width, dbg, seq)
    if state[j] != ALIVE:
        return
    if extras is None:
        return  # no damage type of this battle leaves an effect
    if dtype == L.T_FIRE:  # C-4.2
        if chance(s, P[R.BURN_CHANCE] * (100 - U[L.U_RES0 + L.T_FIRE, tj]) / 100.0):
            burning[j] = 1
    elif dtype == L.T_COLD:  # C-4.3
        if chance(s, P[R.FREEZE_CHANCE]):
            frozen[j] = 1
    elif dtype == L.T_SHOCK:  # C-4.4: an MR check or a strength check (C-2.3) avoids it
        if not resists(s, U[L.U_MR, tj], np.int64(NORMAL)):
            # C-4.3: a frozen unit checks with 1 less strength
            if not check_roll(s, np.int64(P[R.STRENGTH_CHECK])) < U[L.U_STR, tj] - frozen[j]:
                stunned[j] = 1
    elif dtype == L.T_DECAY:  # C-4.8
        decaying[j] = 1


@helper(forceinline=True)
def _unit_order(cand, k):
    """Sort ``cand[:k]`` by unit number: the order in which a scan of all units meets them.

    Shell sort with halving gaps (insertion sort when k < 16): the numbers are
    distinct, so any sort gives the same order, and this one compiles in a
    fraction of the time of Numba's ``ndarray.sort`` (cold start, issue 13).
    """
    gap = k // 2 if k >= 16 else 1
    while gap > 0:
        for a in range(gap, k):
            v = cand[a]
            b = a - gap
            while b >= 0 and cand[b] > v:
                cand[b + gap] = cand[b]
                b -= gap
            cand[b + gap] = v
        gap //= 2


@helper(forceinline=True)
def _rank_in(sorted_values, d, v):
    """How many of ``sorted_values[:d]`` are below v, counted without a branch."""
    g = 0
    for a in range(d):
        g += np.int64(sorted_values[a] < v)
    return g


@helper(forceinline=True)
def _attack_order(key, m, scratch):
    """``order[:m]``: the indices of ``key[:m]`` by ascending key, equal keys by index.

    Steps 6-7 (C-8): a bucket sort made for the attack keys.  Each key is
    ``high * 2**32 + low``; the distinct ``high`` parts (wand and initiative,
    a handful) are the groups, in order, and within a group of g keys the low
    32 bits (the random tie) pick one of g buckets, ``low * g >> 32``, so a
    bucket holds about one key.  The keys are dealt to the buckets in index
    order and a final insertion sort orders each bucket (buckets are already
    in key order, so keys only move within theirs).  Right for any keys; fast
    when the low parts are spread, as random ties are.  Up to 16 keys, the
    insertion sort alone.

    It is the permutation of any stable sort, the reference's
    ``np.argsort(kind="mergesort")`` included: two equal keys (a 64-bit tie,
    about m² / 2**33 per round) go by index in both.  ``scratch`` has shape
    (6, len(key) + 1); returns its row 0.
    """
    order = scratch[0]
    slot = scratch[1]
    count = scratch[2]
    groups = scratch[3]  # [0, d): the distinct high parts, ascending
    sizes = scratch[4]  # [0, d): how many keys each group has
    starts = scratch[5]  # [0, d): the first bucket of each group
    if m <= 16:  # a few attacks (small battles): the insertion sort alone
        for q in range(m):
            order[q] = q
        _insertion_sort(order, key, m)
        return order
    d = np.int64(0)  # typed, not a literal: one compile of _rank_in
    for q in range(m):  # the distinct high parts in order, and their sizes
        h = key[q] >> 32
        g = _rank_in(groups, d, h)
        if g < d and groups[g] == h:
            sizes[g] += 1
            continue
        for a in range(d, g, -1):  # a new group: insert it (d is small)
            groups[a] = groups[a - 1]
            sizes[a] = sizes[a - 1]
        groups[g] = h
        sizes[g] = 1
        d += 1
    start = 0
    for g in range(d):
        starts[g] = start
        start += sizes[g]
    for b in range(m + 1):
        count[b] = 0
    for q in range(m):  # the bucket of each key, and how many keys each bucket has
        g = _rank_in(groups, d, key[q] >> 32)
        b = starts[g] + (((key[q] & _LOW32) * sizes[g]) >> 32)
        slot[q] = b
        count[b + 1] += 1
    for b in range(m):
        count[b + 1] += count[b]
    for q in range(m):  # counting sort by bucket, index order within a bucket
        b = slot[q]
        order[count[b]] = q
        count[b] += 1
    _insertion_sort(order, key, m)  # within the buckets
    return order


@helper(forceinline=True)
def _insertion_sort(order, key, m):
    """Sort the indices ``order[:m]`` by ``key``; equal keys keep their order."""
    for a in range(1, m):
        q = order[a]
        v = key[q]
        b = a - 1
        while b >= 0 and key[order[b]] > v:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = q


@helper(forceinline=True)
def _enemy_slots(iside, side):
    """The slots ``e0 .. e1 - 1`` of the enemies of ``side``.

    The attacker's slots come first (see :func:`_move_order`), so the
    defender's start where ``iside`` turns 1: found by bisection.
    """
    n = iside.shape[0]
    a = 0
    b = n
    while a < b:
        m = (a + b) // 2
        if iside[m] == 0:
            a = m + 1
        else:
            b = m
    return (a, n) if side == 0 else (0, a)


@helper(forceinline=True)
def column_bits(iside, state, px, py, colbits):
    """``colbits[e, x]``: bit y set when a living unit of side e stands on tile (x, y).

    Rows 0 and 1 (sides 0 and 1); any further rows are cleared.
    """
    for e in range(colbits.shape[0]):
        for x in range(colbits.shape[1]):
            colbits[e, x] = 0
    for j in range(iside.shape[0]):
        if state[j] == ALIVE:
            colbits[iside[j], px[j]] |= np.int64(1) << py[j]


@helper
def _random_enemy(s, i, lo, hi, iside, state, px, py, grid, width, length, cand, colbits):
    """A random living enemy of i at Chebyshev distance lo..hi, or -1.

    The k candidates are ranked in tile order (column by column, each from
    row 0: :mod:`kernels.tile_order`), as the reference ranks them, and the
    r-th is drawn with ``bounded(s, k)``.  Three ways to the same k, draw and
    enemy, the first that applies:

    - with column bitsets (``colbits``, see :func:`column_bits`; empty when
      they do not apply), k is the popcount of the box's columns within
      ``hi`` of i, less the tiles nearer than ``lo``, and the r-th is found by
      walking them a word at a time.  The bitsets must hold exactly the
      living units: they are built when units stop moving for the round
      (attacks, siege rounds) and the caller clears the bit of a unit that
      dies or routs after that (see :func:`run_chunks`);
    - when the box has fewer tiles than the enemy side has unit slots, its
      tiles are read in tile order, once to count (branch-free) and once to
      walk to the r-th;
    - otherwise the enemy's slots are scanned, listing the tile keys of the
      k, and the r-th is taken by quickselect (as the reference does).

    Called, not inlined: five inlined copies (shots, pre-battle weapons,
    tunnellers) cost a cold start more than the call costs a shot.
    """
    x = px[i]
    y = py[i]
    si = iside[i]
    x0 = max(0, x - hi)
    x1 = min(length - 1, x + hi)
    y0 = max(0, y - hi)
    y1 = min(width - 1, y + hi)
    k = np.int64(0)  # typed, not a literal: one compile of bounded
    if colbits.shape[0] > 0:  # the enemies' tiles of each column, a word at a time
        rows = ((np.int64(2) << (y1 - y0)) - 1) << y0  # bits y0..y1
        near = np.int64(0)  # the rows nearer than lo, in the columns nearer than lo
        if lo > 0:
            n0 = max(0, y - lo + 1)
            near = ((np.int64(2) << (min(width - 1, y + lo - 1) - n0)) - 1) << n0
        for ax in range(x0, x1 + 1):
            word = colbits[1 - si, ax] & rows
            if abs(ax - x) < lo:
                word &= ~near
            k += popcount(word)
        if k == 0:
            return -1
        r = bounded(s, k)
        for ax in range(x0, x1 + 1):
            word = colbits[1 - si, ax] & rows
            if abs(ax - x) < lo:
                word &= ~near
            c = popcount(word)
            if r < c:
                return grid[ax * width + _rth_set_bit(word, r)]
            r -= c
        return -1  # not reached: the k are in the box
    e0, e1 = _enemy_slots(iside, si)
    if (x1 - x0 + 1) * (y1 - y0 + 1) < e1 - e0:  # every tile of the box, in tile order
        for ax in range(x0, x1 + 1):
            for ay in range(y0, y1 + 1):
                j = grid[ax * width + ay]
                jj = max(j, 0)
                k += np.int64((j >= 0) & (iside[jj] != si) & (lo <= _cheb(x, y, ax, ay)))
        if k == 0:
            return -1
        r = bounded(s, k)
        for ax in range(x0, x1 + 1):
            for ay in range(y0, y1 + 1):
                j = grid[ax * width + ay]
                if j >= 0 and iside[j] != si and lo <= _cheb(x, y, ax, ay):
                    if r == 0:
                        return j
                    r -= 1
        return -1  # not reached
    for j in range(e0, e1):  # list the enemy's slots that qualify, by tile
        d = max(abs(px[j] - x), abs(py[j] - y))
        if state[j] == ALIVE and lo <= d and d <= hi:
            cand[k] = tile_key(px[j], py[j], j)
            k += 1
    if k == 0:
        return -1
    return rth_smallest(cand, k, bounded(s, k)) & UNIT_BITS


@helper(forceinline=True)
def _adjacent_enemies(i, iside, px, py, grid, width, length, cand):
    """Enemies on the 8 tiles around i, read off the grid; returns how many (in cand).

    In tile order (column by column), as the reference lists them; i's own
    tile holds i, no enemy, so the 3 by 3 box is read whole, without a branch.
    """
    x = px[i]
    y = py[i]
    si = iside[i]
    k = 0
    for ax in range(max(0, x - 1), min(length - 1, x + 1) + 1):
        for ay in range(max(0, y - 1), min(width - 1, y + 1) + 1):
            j = grid[ax * width + ay]
            cand[k] = j  # kept only when an enemy stands there
            k += np.int64((j >= 0) & (iside[max(j, 0)] != si))
    return k


@helper(forceinline=True)
def _eff_range(i, w, W, px, siege, wall_col, P):
    r = W[L.W_RANGE, w]
    if siege and px[i] == wall_col and r > 1:  # C-5.4
        r += np.int64(P[R.WALL_RANGE_BONUS])
    return r


@helper(forceinline=True)
def _box_count(table, width, xa, xb, ya, yb):
    """Units of the table's side on the tiles xa..xb by ya..yb (clipped to the grid).

    ``table`` is the side's summed-area table (see :func:`count_table`): four
    reads, whatever the size of the box.
    """
    w1 = width + 1
    a = xa * w1
    b = (xb + 1) * w1
    # Unsigned indices: Numba adds no wraparound for negative ones (3% of a big battle).
    return (table[np.uint64(b + yb + 1)] - table[np.uint64(a + yb + 1)]
            - table[np.uint64(b + ya)] + table[np.uint64(a + ya)])  # fmt: skip


@helper(forceinline=True)
def _within(x, y, r, table, width, length):
    """Units of the table's side within Chebyshev distance r of (x, y)."""
    return _box_count(table, width, max(0, x - r), min(length - 1, x + r), max(0, y - r),
                      min(width - 1, y + r))  # fmt: skip


@helper(forceinline=True)
def _nearest_distance(x, y, table, width, length, guess):
    """The distance from (x, y) to the nearest units of the table's side, and how many.

    The least r whose box holds one, searched from ``guess`` (the distance a
    unit found last time is a good one: it changes by a step or two a round):
    down from it while the smaller box still holds one, or up from it while
    it holds none, in steps that double, then by bisection between the last
    empty box and the first that is not.  The answer does not depend on the
    guess, only the number of boxes counted.  Returns ``(r, count)``, the
    count of that box, all of them at distance r; ``(1 << 30, 0)`` when the
    side has none.
    """
    if table[table.shape[0] - 1] == 0:
        return 1 << 30, 0
    far = max(x, length - 1 - x, y, width - 1 - y)  # this box is the whole grid
    hi = min(max(guess, 1), far)
    k = _within(x, y, hi, table, width, length)
    step = 1
    if k > 0:  # down: lo ends at a box with none (lo = 0 is the tile itself: none)
        lo = hi - 1
        while lo > 0:
            c = _within(x, y, lo, table, width, length)
            if c == 0:
                break
            hi = lo
            k = c
            step *= 2
            lo = max(0, hi - step)
    else:  # up: hi ends at a box with some (the whole grid has them all)
        lo = hi
        hi = min(hi + 1, far)
        k = _within(x, y, hi, table, width, length)
        while k == 0:  # steps of 1, 2, 4, ...: the distance often stays as it was
            lo = hi
            hi = min(hi + step, far)
            step *= 2
            k = _within(x, y, hi, table, width, length)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        c = _within(x, y, mid, table, width, length)
        if c > 0:
            hi = mid
            k = c
        else:
            lo = mid
    return hi, k


@helper(forceinline=True)
def _rth_in_box(table, width, x0, x1, y0, y1, rank):
    """The tile (x, y) of the ``rank``-th unit (from 0) of the table's side in a box, in tile order.

    Tile order runs column by column, each column from row 0 (see
    :mod:`kernels.tile_order`).  Bisection over the box's columns finds the
    column that holds it, then bisection over that column's rows: about
    log2(columns) + log2(rows) box counts, however many units the box holds.
    The box must hold more than ``rank`` units, or the tile returned is not
    one of theirs.
    """
    col = x0
    hi = x1
    while col < hi:  # the first column with more than rank units in columns x0..it
        mid = (col + hi) >> 1
        if _box_count(table, width, x0, mid, y0, y1) > rank:
            hi = mid
        else:
            col = mid + 1
    rank -= _box_count(table, width, x0, col - 1, y0, y1)  # those in earlier columns
    row = y0
    hi = y1
    while row < hi:  # the first row with more than rank units in rows y0..it of col
        mid = (row + hi) >> 1
        if _box_count(table, width, col, col, y0, mid) > rank:
            hi = mid
        else:
            row = mid + 1
    return col, row


@helper(forceinline=True)
def _rth_set_bit(word, r):
    """The row of the ``r``-th set bit (from 0) of one column word."""
    for _ in range(r):
        word &= word - 1  # clear the lowest set bit
    return np.int64(trailing_zeros(word))


@helper(forceinline=True)
def _rth_on_ring(words, width, length, x, y, d, k, r):
    """The tile (x, y) of the ``r``-th (from 0, in tile order) of the ``k`` units within d.

    ``words`` are the side's column words (see :func:`column_bits`) at the
    positions its summed-area table counts, and none of its units stands
    nearer than d to (x, y): the k stand on the ring of the box within d, so
    the box's column words hold just them.  The first and last columns of
    the box hold most of them (the enemy is in front or behind): each is one
    popcount; the columns between are walked.
    """
    y0 = max(0, y - d)
    y1 = min(width - 1, y + d)
    rows = ((np.int64(2) << (y1 - y0)) - 1) << y0  # bits y0..y1
    x0 = max(0, x - d)
    x1 = min(length - 1, x + d)
    word = words[x0] & rows
    c = popcount(word)
    if r < c:
        return x0, _rth_set_bit(word, r)
    last = words[x1] & rows  # x1 > x0 here: column x0 held fewer than k
    before = k - popcount(last)  # those in columns x0 .. x1 - 1
    if r >= before:
        return x1, _rth_set_bit(last, r - before)
    r -= c
    for ax in range(x0 + 1, x1):
        word = words[ax] & rows
        c = popcount(word)
        if r < c:
            return ax, _rth_set_bit(word, r)
        r -= c
    return -1, -1  # not reached: the k are in the box


@helper(forceinline=True)
def _pick_nearest(s, k, P):
    """C-8.3 [default]: which of ``k`` equally near enemies, as a rank in tile order.

    Drawn at random, or the first (rank 0) with ``RANDOM_NEAREST`` off; a lone
    candidate costs no draw.  The rank is in tile order
    (:mod:`kernels.tile_order`), as in the reference.
    """
    if k == 1 or P[R.RANDOM_NEAREST] == 0:
        return 0
    return bounded(s, k)


@helper(forceinline=True)
def count_table(side, iside, state, px, py, width, length, table, words):
    """The summed-area table of the living units of ``side``, and their column words.

    ``table[x * (width + 1) + y]`` counts them on the tiles left of column x
    and below row y, shape ``(length + 1) * (width + 1)``: any box of tiles
    is counted from four entries (:func:`_box_count`).  ``words`` (length
    ``length``, or empty on grids too wide for them) receive the same units
    as :func:`column_bits` does, and the table is built from them: a column's
    count up to a row is a popcount, with no running sum to wait on.  The
    attacker's slots come first (see :func:`_enemy_slots`).
    """
    w1 = width + 1
    if words.shape[0] > 0:
        for x in range(length):
            words[x] = 0
        j0, j1 = _enemy_slots(iside, 1 - side)  # the slots of side
        for j in range(j0, j1):
            if state[j] == ALIVE:
                words[px[j]] |= np.int64(1) << py[j]
        for y in range(w1):
            table[y] = 0
        for x in range(1, length + 1):
            word = words[x - 1]
            prev = table[(x - 1) * w1 : x * w1]
            cur = table[x * w1 : (x + 1) * w1]
            cur[0] = 0
            for y in range(1, w1):
                cur[y] = prev[y] + popcount(word & ((np.int64(2) << (y - 1)) - 1))
        return
    for t in range(table.shape[0]):
        table[t] = 0
    for j in range(iside.shape[0]):
        if state[j] == ALIVE and iside[j] == side:
            table[(px[j] + 1) * w1 + py[j] + 1] = 1
    for x in range(1, length + 1):
        run = 0  # the column's units up to row y
        for y in range(1, w1):
            run += table[x * w1 + y]
            table[x * w1 + y] = table[(x - 1) * w1 + y] + run


@helper(forceinline=True)
def _nearest_enemy(s, i, iside, state, px, py, width, length, table, P, cand, near):
    """C-8.3: how many living enemies of i are nearest, the draw among them, their distance.

    Returns ``(k, r, dmin)``, k = 0 when there is none; the one chosen is the
    r-th of the k in tile order (see :func:`_pick_nearest`).  The draw is
    made here, as in the reference, whether or not i then moves; which enemy
    it names is looked for by :func:`_move` only when i steps toward it.

    With the summed-area table of the enemy side (``table``, or empty when the
    battle is too small to be worth one), ``dmin`` is the least r whose box
    around i holds an enemy (:func:`_nearest_distance`, searched from
    ``near[i] - 2``, where ``near[i]`` is the distance found last time and is
    updated here) and k is the count of that box: all of them stand on its
    ring.  Without one the units are
    scanned as in the reference, and ``cand[:k]`` holds the k's tile keys.
    """
    if table.shape[0] > 0:
        dmin, k = _nearest_distance(px[i], py[i], table, width, length, near[i] - 2)
        if dmin >= 1 << 30:
            return 0, 0, dmin
        near[i] = dmin
        return k, _pick_nearest(s, k, P), dmin
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
    if k == 0:
        return 0, 0, dmin
    return k, _pick_nearest(s, np.int64(k), P), dmin


@helper
def _nearest_free_wall(s, i, px, py, grid, width, wall_col, cand):
    """C-6 [default]: the nearest free wall tile of i (ties at random) and its distance."""
    k = np.int64(0)  # typed: a literal 0 here made bounded(s, k) compile a second time
    dmin = 1 << 30
    for y in range(width):
        if grid[wall_col * width + y] < 0:
            d = _cheb(px[i], py[i], wall_col, y)
            if d < dmin:
                dmin = d
                k = np.int64(0)
            if d == dmin:
                cand[k] = y
                k += 1
    if k == 0:
        return -1, dmin
    return cand[bounded(s, k)], dmin


@helper(forceinline=True)
def _in_reach(i, dmin, U, W, itype, px, siege, wall_col, P):
    """True when a ranged weapon of i reaches an enemy at ``dmin`` > 1 (C-5.1, C-5.5)."""
    ti = itype[i]
    if not U[L.U_FLAGS, ti] & L.UF_RANGED:
        return False  # no missile weapon (most movers)
    w0 = U[L.U_W0, ti]
    for k in range(U[L.U_NW, ti]):
        w = w0 + k
        if W[L.W_RANGE, w] > 1 and not W[L.W_FLAGS, w] & L.F_PREBATTLE:
            if _eff_range(i, w, W, px, siege, wall_col, P) >= dmin:
                return True
    return False


@helper(forceinline=True)
def _step_toward(s, i, tx, ty, dmin, px, py, grid, width, length, P, cand):
    """Move i one tile toward (tx, ty), at distance ``dmin`` > 0 (C-8.3)."""
    nx = px[i] + _sign(tx - px[i])
    ny = py[i] + _sign(ty - py[i])
    if grid[nx * width + ny] < 0:
        pass  # the direct step is free
    elif P[R.SIDESTEP] == 0:
        return  # C-8.3: blocked, it stays
    else:
        # C-8.3 [default]: take a free tile that is equally close, at random.  The 8
        # tiles in order; a column of them no nearer the enemy is passed over, and the
        # others' tiles are read without a branch (most movers that get here are blocked).
        k = np.int64(0)
        x = px[i]
        y = py[i]
        near = dmin - 1
        for dx in range(-1, 2):
            ax = x + dx
            ux = abs(tx - ax)
            if ux > near or ax < 0 or ax >= length:
                continue  # no tile of this column is nearer (mostly 2 of the 3)
            for dy in range(-1, 2):
                ay = y + dy
                inside = (ay >= 0) & (ay < width) & ((dx != 0) | (dy != 0))
                t = ax * width + ay if inside else 0
                ok = inside & (grid[t] < 0) & (max(ux, abs(ty - ay)) == near)
                cand[k] = t
                k += np.int64(ok)
        if k == 0:
            return
        t = cand[bounded(s, k)]
        nx = t // width
        ny = t % width
    grid[px[i] * width + py[i]] = -1
    px[i] = nx
    py[i] = ny
    grid[nx * width + ny] = i


@helper(forceinline=True)
def _move(s, i, U, W, itype, iside, state, px, py, qx, qy, grid, width, length, siege,
          wall_col, table, words, P, cand, near, extras):  # fmt: skip
    """C-8.3: step 1 tile toward the nearest enemy unless one is in reach.

    The unit chooses from the positions ``qx, qy`` (see :func:`run_chunks`);
    only the occupancy ``grid`` it steps on is live, so earlier movers keep
    their tiles.  ``table`` is the summed-area table of i's enemies at ``qx,
    qy`` (or empty: scan the units); the tile it names is where the enemy
    drawn stood, which is all the step needs.  With ``extras`` None there are no
    missile weapons and no siege (:func:`needs_extras`): nobody stops to shoot or
    holds a wall.
    """
    k, r, dmin = _nearest_enemy(s, i, iside, state, qx, qy, width, length, table, P, cand, near)
    if k == 0 or dmin <= 1:
        return
    if extras is not None and _in_reach(i, dmin, U, W, itype, px, siege, wall_col, P):
        return
    if extras is not None and siege and iside[i] == 1 and P[R.HOLD_WALL] != 0 and px[i] >= wall_col:
        # C-6 [default] holding the wall: never off it; from behind, onto a free wall tile.
        if px[i] == wall_col:
            return
        y, dwall = _nearest_free_wall(s, i, px, py, grid, width, wall_col, cand)
        if y >= 0:
            _step_toward(s, i, wall_col, y, dwall, px, py, grid, width, length, P, cand)
        return
    if table.shape[0] > 0:  # counted, not listed: the r-th in its box
        x = qx[i]
        y = qy[i]
        # the box within dmin holds the k on its ring, and no other enemy
        if words.shape[0] > 0:  # the column words hold it
            tx, ty = _rth_on_ring(words, width, length, x, y, dmin, k, r)
        else:  # count the way to it
            tx, ty = _rth_in_box(table, width, max(0, x - dmin), min(length - 1, x + dmin),
                                 max(0, y - dmin), min(width - 1, y + dmin), r)  # fmt: skip
    else:
        j = rth_smallest(cand, k, r) & UNIT_BITS  # the scan listed their tile keys
        tx = qx[j]
        ty = qy[j]
    _step_toward(s, i, tx, ty, dmin, px, py, grid, width, length, P, cand)


@helper
def _move_order(iside, paired, order):
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
    for i in range(n):  # whole sides: the attacker's slots come first
        order[i] = i
    if paired:
        k = 0
        for r in range(max(na, n - na)):
            if r < na:
                order[k] = r
                k += 1
            if na + r < n:
                order[k] = na + r
                k += 1


@helper
def _surface_next_to_enemy(s, i, iside, state, px, py, grid, width, length, cand, no_bits):
    """C-7.4, C-7.5: i leaves its tile for a random free tile next to a random enemy.

    It stays where it is when that enemy has no free tile around it.  Units
    move here, so ``no_bits`` are empty column bitsets (see :func:`_random_enemy`).
    """
    j = _random_enemy(s, i, ZERO, ANYWHERE, iside, state, px, py, grid, width, length, cand,
                      no_bits)  # fmt: skip
    if j < 0:
        return
    k = np.int64(0)  # typed, not a literal: one compile of bounded
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
def _fear(s, U, itype, iside, state, px, py, grid, width, length, P, cand, dbg, seq):
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
            # The enemies around i, in the unit order of a scan of all units.
            k = _adjacent_enemies(i, iside, px, py, grid, width, length, cand)
            _unit_order(cand, np.int64(k))
            for q in range(k):
                j = cand[q]
                if fails_morale(s, U[L.U_MORALE, itype[j]], base + fear):
                    seq += 1
                    _leave(j, np.int64(ROUTED), state, px, py, grid, width, dbg, seq)
        return seq
    for j in range(n):
        if state[j] != ALIVE:
            continue
        k = _adjacent_enemies(j, iside, px, py, grid, width, length, cand)
        fear = 0
        for q in range(k):
            fear = max(fear, U[L.U_FEAR, itype[cand[q]]])
        if fear > 0 and fails_morale(s, U[L.U_MORALE, itype[j]], base + fear):
            seq += 1
            _leave(j, np.int64(ROUTED), state, px, py, grid, width, dbg, seq)
    return seq


@helper
def _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col, fort, siege,
             burning, frozen, stunned, paralysed, decaying, poison, P, dbg, seq):  # fmt: skip
    """C-8 steps 9 and 10: ongoing effects, regeneration, then cloud damage."""
    for i in range(itype.shape[0]):
        if state[i] != ALIVE:
            continue
        ti = itype[i]
        if burning[i]:  # C-4.2: fire damage reduced by fire resistance, not armour
            d = oed(s, np.int64(P[R.BURN_DIE]))
            if vulnerable_to(U, ti, L.T_FIRE):  # doubled on fire-vulnerable units
                d *= 2
            d = (d * (100 - U[L.U_RES0 + L.T_FIRE, ti])) // 100
            _lose_hp(i, d, hp, state, px, py, grid, width, dbg, seq)
            if chance(s, P[R.BURN_STOP]):
                burning[i] = 0
        if poison[i] > 0 and state[i] == ALIVE:  # C-4.5
            d = max(1, poison[i] // np.int64(P[R.POISON_DIVISOR]))
            poison[i] -= d
            _lose_hp(i, d, hp, state, px, py, grid, width, dbg, seq)
        if decaying[i] and state[i] == ALIVE:  # C-4.8
            _lose_hp(i, ONE, hp, state, px, py, grid, width, dbg, seq)
        if state[i] != ALIVE:
            continue
        if frozen[i] and chance(s, P[R.THAW_CHANCE]):
            frozen[i] = 0
        if stunned[i] and chance(s, P[R.STUN_RECOVER]):
            stunned[i] = 0
        if paralysed[i] and chance(s, P[R.PARALYSIS_END]):
            paralysed[i] = 0
        if U[L.U_FLAGS, ti] & L.UF_REGENERATION:  # C-8.9 [default]
            heal = np.int64(np.ceil(P[R.REGEN_FRACTION] * maxhp[i] - 1e-9))
            hp[i] = min(maxhp[i], hp[i] + heal)
            dbg[i, D_MAX_HP_SEEN] = max(dbg[i, D_MAX_HP_SEEN], hp[i])
    for i in range(itype.shape[0]):  # step 10: clouds
        if state[i] != ALIVE:
            continue
        w = cloud[px[i] * width + py[i]]
        if w < 0:
            continue
        wall = fort if siege and px[i] == wall_col else 0
        d = hit_damage(s, W, w, U, itype[i], ZERO, wall, stunned[i] != 0 or paralysed[i] != 0,
                       frozen[i] != 0, ZERO)  # fmt: skip
        if W[L.W_TYPE, w] == L.T_POISON:
            poison[i] += d
        else:
            _lose_hp(i, d, hp, state, px, py, grid, width, dbg, seq)


@helper(forceinline=True)
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


@helper(forceinline=True)
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
def _can_unsettle(U, W):
    """False when no unit of the battle can come to need steps 9-10: then every round is settled.

    Only a hit of fire, cold, shock, poison, decay or paralysis (C-4) leaves a
    lasting effect (see :func:`_strike`), and only regeneration (C-8.9) and
    decaying units (C-4.8) change by themselves; clouds are the caller's to
    check.  When none of these can happen, :func:`_settled` would scan every
    unit each round to find nothing.
    """
    for w in range(W.shape[1]):
        t = W[L.W_TYPE, w]
        if t == L.T_FIRE or t == L.T_COLD or t == L.T_SHOCK or t == L.T_POISON:
            return True
        if t == L.T_DECAY or t == L.T_PARALYSIS:
            return True
    for t in range(U.shape[1]):
        if U[L.U_FLAGS, t] & (L.UF_REGENERATION | L.UF_DECAY):
            return True
    return False


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
def _any_unit_flag(U, itype, flag):
    for i in range(itype.shape[0]):
        if U[L.U_FLAGS, itype[i]] & flag:
            return True
    return False


@helper
def _any_fear(U, itype):
    for i in range(itype.shape[0]):
        if U[L.U_FEAR, itype[i]] > 0:
            return True
    return False


@helper(forceinline=True)
def _ranged_shot(s, i, w, k, rnd, lo, hi, U, W, iside, state, px, py, grid, width, length,
                 siege, wall_col, last_fire, P, cand, colbits):  # fmt: skip
    """Target of one shot of ranged weapon w (slot k) of i in round ``rnd``, or -1.

    C-5.2: a reloading weapon does not fire (the other shots of the round it
    fired in still fly).  The target is a random enemy at distance lo..hi,
    capped by the weapon's range when ``hi`` is negative (C-5.1).  Returns
    ``(target, far)``, ``far`` true beyond half the range (C-5.3).
    """
    if last_fire[i, k] != rnd and rnd - last_fire[i, k] < W[L.W_RELOAD, w] + 1:
        return -1, False
    r = _eff_range(i, w, W, px, siege, wall_col, P)
    j = _random_enemy(s, i, lo, r if hi < 0 else hi, iside, state, px, py, grid, width, length,
                      cand, colbits)  # fmt: skip
    if j < 0:
        return -1, False
    last_fire[i, k] = rnd
    return j, _cheb(px[i], py[i], px[j], py[j]) > (r + 1) // 2


@helper(forceinline=True)
def _next_to_bits(colbits):
    """Rows 2 and 3 of ``colbits``: bit y of column x set when a unit of side 0 (row 2)
    or side 1 (row 3) stands on one of the 9 tiles around (x, y).

    Built from rows 0 and 1 (:func:`column_bits`) for the attack order, so that
    "no enemy next to i" is one bit (the same answer as :func:`_maybe_adjacent`:
    i's own tile holds no enemy).
    """
    length = colbits.shape[1]
    for e in range(2):
        before = np.int64(0)
        here = _spread(colbits[e, 0])
        for x in range(length):
            after = _spread(colbits[e, x + 1]) if x + 1 < length else np.int64(0)
            colbits[2 + e, x] = before | here | after
            before = here
            here = after


@helper(forceinline=True)
def _spread(word):
    """A column word's bits with the rows above and below them set too."""
    return word | (word << 1) | (word >> 1)


@helper(forceinline=True)
def _maybe_adjacent(i, iside, px, py, width, length, colbits):
    """False when the column bitsets show no enemy on the 8 tiles around i.

    The bitsets hold exactly the living units from the attack order to the end
    of the round (see :func:`_random_enemy`), so True means one stands there.
    """
    x = px[i]
    y = py[i]
    y0 = max(0, y - 1)
    rows = ((np.int64(2) << (min(width - 1, y + 1) - y0)) - 1) << y0
    seen = np.int64(0)
    for ax in range(max(0, x - 1), min(length - 1, x + 1) + 1):
        seen |= colbits[1 - iside[i], ax] & rows
    return seen != 0


@helper(forceinline=True)
def _occupied(words):
    """The columns and rows a side's column words hold units on: ``(x0, x1, rows)``.

    ``x0 .. x1`` is the span of the columns with a unit (``x0 > x1`` when there
    is none) and ``rows`` the OR of the words: every unit stands in that span,
    on one of those rows.
    """
    x0 = words.shape[0]
    x1 = -1
    rows = np.int64(0)
    for x in range(words.shape[0]):
        if words[x] != 0:
            x0 = min(x0, x)
            x1 = x
            rows |= words[x]
    return x0, x1, rows


@helper(forceinline=True)
def _none_within(x, y, r, x0, x1, rows, width):
    """True only when no unit of a side spanning columns x0..x1 on ``rows`` is within r of (x, y).

    Every unit stands in those columns on one of those rows, so a unit within
    r of (x, y) needs a column within r of x in the span and a row within r of
    y among the rows (see :func:`_occupied`).  False may be a false alarm: the
    caller then searches.  ``0 <= y < width <= COLUMN_BITS_MAX_WIDTH``.
    """
    if r < 0:  # a negative wall bonus (C-5.4) can leave no range at all
        return True
    if x + r < x0 or x - r > x1:
        return True
    y0 = max(0, y - r)
    near = ((np.int64(2) << (min(width - 1, y + r) - y0)) - 1) << y0  # rows y - r .. y + r
    return rows & near == 0


@helper(forceinline=True)
def _pick_target(s, i, w, k, rnd, U, W, iside, state, px, py, grid, width, length, siege,
                 wall_col, last_fire, P, cand, colbits, extras):  # fmt: skip
    """C-8.6: the target of one attack of weapon w (slot k) of i, and whether it is far.

    A melee weapon strikes a random adjacent enemy; a ranged weapon shoots a
    random enemy in range unless an enemy is adjacent (C-5.5: then the unit's
    melee weapons fight instead).  ``(-1, False)`` when the attack is lost.  With
    ``extras`` None every weapon is a melee weapon (:func:`needs_extras`).
    """
    # An enemy may stand on the 8 tiles around i: read them (in the reference's order),
    # unless the column bitsets show none there (most of a big battle's rear ranks).
    maybe = colbits.shape[0] == 0 or _maybe_adjacent(i, iside, px, py, width, length, colbits)
    if extras is not None and W[L.W_RANGE, w] > 1:
        if maybe and _adjacent_enemies(i, iside, px, py, grid, width, length, cand) > 0:
            return -1, NEAR  # C-5.5
        return _ranged_shot(s, i, w, k, rnd, TWO, IN_RANGE, U, W, iside, state, px, py, grid,
                            width, length, siege, wall_col, last_fire, P, cand,
                            colbits)  # fmt: skip
    if not maybe:
        return -1, NEAR
    k_adj = _adjacent_enemies(i, iside, px, py, grid, width, length, cand)
    if k_adj == 0:
        return -1, NEAR
    return cand[bounded(s, k_adj)], NEAR


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


#: Weapon flags, damage types and unit flags that only the extras' code reads.
_EXTRA_WEAPON_FLAGS = L.F_PREBATTLE | L.F_ASSASSIN | L.F_SIEGE | L.F_CLOUD
_EXTRA_DAMAGE_TYPES = (L.T_FIRE, L.T_COLD, L.T_SHOCK, L.T_POISON, L.T_DECAY, L.T_PARALYSIS)
_EXTRA_UNIT_FLAGS = L.UF_REGENERATION | L.UF_DECAY | L.UF_SIEGE_TUNNELING | L.UF_COMBAT_BURROWING


def needs_extras(U: np.ndarray, W: np.ndarray, siege: bool) -> bool:
    """Whether a battle of these packed types needs the kernel with its extras.

    ``run_chunks(..., extras=None)`` is compiled without the code of the rules
    that only some battles use: a siege (C-6 walls, C-7.3 siege rounds, C-7.4
    tunnellers), missile weapons (C-5), pre-battle weapons and assassins (C-7.1,
    C-7.2), combat burrowers (C-7.5), fear (C-8.5), clouds (C-8.2), the damage
    types that leave an effect (C-4.2 to C-4.9) and regeneration and decay
    (C-8.9, C-4.8), with the ongoing effects and extra rounds that follow them
    (C-8.11).  Such a battle never reaches that code, so both kernels play it
    the same, bit for bit: the one without extras only compiles in half the
    time (issue 13: 10 pikemen against 3 knights, the first answer).  This is
    False when none of them can happen: ``U`` and ``W`` are the packed unit and
    weapon tables of the battle's types (:func:`montecarlo.coe5.packing.pack`).
    """
    return bool(
        siege
        or np.any(W[L.W_FLAGS] & _EXTRA_WEAPON_FLAGS)
        or np.any(W[L.W_RANGE] > 1)
        or np.any(np.isin(W[L.W_TYPE], _EXTRA_DAMAGE_TYPES))
        or np.any(U[L.U_FLAGS] & _EXTRA_UNIT_FLAGS)
        or np.any(U[L.U_FEAR] > 0)
    )


@njit(cache=True, nogil=True, error_model="numpy", **NOALIAS)
def run_chunks(c0, c1, states, chunk, n_trials, U, W, slot_type, iside, slot_part, sx, sy,
               shuffle_idx, shuffle_bounds, width, length, wall_col, fort, siege, P, max_weapons,
               max_attacks,
               agg_outcome, agg_rounds, agg_surv, agg_routed, agg_dealt, agg_dealt_sq,
               keep, t_outcome, t_rounds, t_surv, t_routed, t_dealt, debug, t_debug, extras,
               stream, units, tiles, attacks, sort_scratch, last_fire, dbg, field, colbits,
               misc):  # fmt: skip
    """Play chunks ``c0 .. c1-1`` of a run of ``n_trials`` battles, one stream per battle.

    Battle ``k`` of chunk ``c`` (counted from 0 within the chunk) draws from
    ``seed_trial(states[c], k)``: a pure function of the chunk's key and k, not
    of how the driver groups chunks into calls (its pacing follows wall time),
    so a battle can be replayed alone and variants of a matchup share their
    random numbers battle by battle.

    ``slot_type``, ``slot_part`` give the unit type and army part of each slot
    before :func:`deal_out` shuffles them for each battle within ``shuffle_idx``
    groups; the battle then plays on the dealt ``itype``.
    ``agg_*`` arrays have a leading chunk axis and are accumulated per chunk:
    outcome counts (3), a rounds histogram, per-part histograms of survivors
    and routed counts, and the sum and sum of squares of damage dealt per side.
    With ``keep`` the ``t_*`` arrays receive one row per trial; with ``debug``
    ``t_debug[trial, unit, :]`` receives the per-unit record (D_* columns).

    It releases the GIL: the caller runs disjoint chunk ranges on a pool of
    Python threads (``montecarlo.coe5.battle``), each writing only its own
    chunks' rows, so results do not depend on the thread count.  A thread pool
    instead of ``parallel=True`` saves the parfor compile (most of a cold start).

    Every array argument is an allocation of its own (the caller's promise,
    ``tests/test_coe5_noalias.py``), so it compiles with Numba's ``noalias``
    flag (:mod:`kernels.noalias`): a store to a unit's tile or to the random
    stream no longer makes LLVM read every other array again.  That was worth
    about 5% at 200v200 (issue 13).

    The battle itself, C-6 to C-8.11 step by step, is written out in the trial
    loop rather than called, so that Numba compiles it once.  A called battle
    was optimised by LLVM twice, alone and again inside this loop; inlined
    before typing (``inline="always"``), it cost Numba 1.6 s of deep copies of
    its IR.  Written here it saves about 0.9 s of a cold start on two cores
    (issue 13).

    The battle plays in work arrays the caller allocates, one set per call
    (``montecarlo.coe5.battle``; their rows are named at ``UNIT_ROWS``):
    ``stream`` (the battle's random stream), ``units``, ``tiles``, ``attacks``,
    ``sort_scratch`` (for :func:`_attack_order`), ``last_fire``, ``dbg`` (the
    per-unit record), ``field`` (the two sides' summed-area tables of
    :func:`count_table`, shape (2, (length + 1) * (width + 1)), or (2, 0) to
    find the nearest enemies by scanning the units: the tables pay when
    units² ≥ FIELD_MIN × tiles), ``colbits`` (shape (4, length): the sides'
    column words of :func:`column_bits`, then :func:`_next_to_bits`; or (0,
    length) on grids wider than ``COLUMN_BITS_MAX_WIDTH``) and
    ``misc``.  ``qx, qy`` hold the positions that movers choose
    from (C-8.3), ``near`` each unit's nearest-enemy distance as last found.
    It reads them through uncounted views (:func:`~kernels.borrow.borrowed`)
    of its arguments, which the caller holds (``tests/test_borrow_lifetimes.py``
    checks that no array a view comes from is freed while it is read).

    ``extras`` is True, or None for a battle that :func:`needs_extras` says
    needs none of the rules only some battles use: Numba then compiles a
    kernel without their code (pruned by the argument's type, as for any
    ``x is None`` test on an argument), half the size, and so half the first
    compile of a plain matchup.  Both play such a battle the same.

    ``max_weapons`` and ``max_attacks`` size those arrays in the caller; they
    stay in the argument list, unused here, so that the driver passes one
    argument list to this kernel and to the reference's ``run_battles``.
    """
    n = slot_type.shape[0]
    max_round_bin = agg_rounds.shape[1] - 1
    n_parts = agg_surv.shape[1]
    U = borrowed(U)  # the caller holds the arguments
    W = borrowed(W)
    iside = borrowed(iside)
    sx = borrowed(sx)
    sy = borrowed(sy)
    P = borrowed(P)
    stream = borrowed(stream)
    units = borrowed(units)
    tiles = borrowed(tiles)
    attacks = borrowed(attacks)
    sort_scratch = borrowed(sort_scratch)
    last_fire = borrowed(last_fire)
    dbg = borrowed(dbg)
    field = borrowed(field)
    colbits = borrowed(colbits)
    misc = borrowed(misc)
    btype = units[14]
    bpart = units[15]
    nc = misc.shape[0] - MISC_EXTRA - 2 * n_parts  # cand, then dealt, surv, routed, stale, moved
    surv = misc[nc + 2 : nc + 2 + n_parts]
    routed = misc[nc + 2 + n_parts : nc + 2 + 2 * n_parts]
    unsettled = _can_unsettle(U, W)  # False: every round of every battle is settled
    for trial in range(c0 * chunk, min(n_trials, c1 * chunk)):
        c = trial // chunk
        seed_trial(states[c], trial - c * chunk, stream)  # battle k of chunk c (issue 12)
        _copy(btype, slot_type)  # from the written slots, so battle t depends on t alone
        _copy(bpart, slot_part)
        deal_out(stream, btype, bpart, shuffle_idx, shuffle_bounds)

        # One battle; its final state stays in the arrays the caller passed.
        s = stream
        itype = btype
        hp = units[0]
        maxhp = units[1]
        px = units[2]
        py = units[3]
        state = units[4]
        burning = units[5]
        frozen = units[6]
        stunned = units[7]
        paralysed = units[8]
        decaying = units[9]
        poison = units[10]
        qx = units[11]
        qy = units[12]
        near = units[13]
        grid = tiles[0]
        cloud = tiles[1]
        atk_unit = attacks[0]
        atk_w = attacks[1]
        atk_slot = attacks[2]
        atk_key = attacks[3]
        atk_target = attacks[4]
        atk_far = attacks[5]
        cand = misc[:nc]
        dealt = misc[nc : nc + 2]
        stale = misc[nc + 2 + 2 * n_parts : nc + 4 + 2 * n_parts]
        moved = misc[nc + 4 + 2 * n_parts :]
        no_bits = colbits[:0]  # none (see _random_enemy)
        no_words = misc[:0]
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
            near[i] = 1
            grid[sx[i] * width + sy[i]] = i
            last_fire[i, :] = -(1 << 40)
            dbg[i, D_HP] = 0
            dbg[i, D_STATE] = ALIVE
            dbg[i, D_GONE_SEQ] = -1
            dbg[i, D_LAST_ACT_SEQ] = -1
            dbg[i, D_MAX_HP_SEEN] = hp[i]
        seq = 0
        fatigue_start = np.int64(P[R.FATIGUE_START])
        if fatigue_start < 0:  # C-8.1 [default]: F = max(100, 100 + units at the start)
            fatigue_start = max(100, 100 + n)
        max_rounds = np.int64(P[R.MAX_ROUNDS])
        # Battles without clouds or fear skip those steps' loops entirely.
        clouds = _any_weapon_flag(W, L.F_CLOUD)
        fear = _any_fear(U, itype)
        # Summed-area tables are used when units² ≥ FIELD_MIN × tiles (the caller); below
        # that, scanning the units is cheaper, with the same result.
        use_field = field.shape[1] > 0
        no_field = field[0, :0]
        movers = units[16]
        _move_order(iside, P[R.PAIRED_MOVES] != 0, movers)
        snapshot = P[R.SIMULTANEOUS_MOVES] != 0
        if not snapshot:  # C-8.3 [default] off: movers choose from the live positions
            qx = px
            qy = py
        fast = _any_unit_flag(U, itype, L.UF_FAST)
        shooters = _any_unit_flag(U, itype, L.UF_RANGED)  # the enemies' span is for their shots
        bitsets = colbits.shape[0] > 0
        early = P[R.TARGET_AT_ORDER] != 0
        # stale[e]: side e's table no longer matches the positions movers choose from.
        # With simultaneous moves a side's moves during a sweep only mark it
        # ``moved``, and its table is rebuilt at the next sweep, from the new snapshot.
        # (int64 flags, as the other arrays: bool arrays cost a cold start three more compiles)
        stale[:] = 1
        moved[:] = 0
        mark = moved if snapshot else stale

        # C-7.1 pre-battle weapons (both sides), C-7.2 assassins (attacker only).
        for phase in range(2):
            if extras is None:
                break  # none in this battle (see needs_extras)
            flag = L.F_PREBATTLE if phase == 0 else L.F_ASSASSIN
            for i in range(n):
                if state[i] != ALIVE or (phase == 1 and iside[i] != 0):
                    continue
                ti = itype[i]
                for k in range(U[L.U_NW, ti]):
                    w = U[L.U_W0, ti] + k
                    if W[L.W_FLAGS, w] & flag:
                        j = _random_enemy(s, i, ZERO, ANYWHERE, iside, state, px, py, grid, width,
                                          length, cand, no_bits)  # fmt: skip
                        if j >= 0:
                            seq += 1
                            _strike(s, i, w, j, NEAR, U, W, itype, iside, hp, state, px, py, grid,
                                    cloud, width, wall_col, fort, siege, burning, frozen, stunned,
                                    paralysed, decaying, poison, dealt, P, dbg, seq,
                                    extras)  # fmt: skip

        if extras is not None and siege and _side_has_weapon_flag(U, W, itype, iside, ZERO,
                                                                  L.F_SIEGE):  # fmt: skip
            # C-7.3 rounds -15..-1: only the attacker's siege weapons fire, with their
            # shots and reload; [default] a bombardment at any distance, then steps 9-10.
            hi = (1 << 30) if P[R.BOMBARD] != 0 else -1
            lo = 0 if P[R.BOMBARD] != 0 else 2
            for rnd in range(-np.int64(P[R.SIEGE_ROUNDS]), 0):
                if bitsets:  # nobody moves in the siege rounds (see _random_enemy)
                    column_bits(iside, state, px, py, colbits)
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
                                                  py, grid, width, length, siege, wall_col,
                                                  last_fire, P, cand, colbits)  # fmt: skip
                            if j >= 0:
                                seq += 1
                                _strike(s, i, w, j, far, U, W, itype, iside, hp, state, px, py,
                                        grid, cloud, width, wall_col, fort, siege, burning, frozen,
                                        stunned, paralysed, decaying, poison, dealt, P, dbg,
                                        seq, extras)  # fmt: skip
                                if bitsets and state[j] != ALIVE:  # keep them exact
                                    colbits[iside[j], px[j]] &= ~(np.int64(1) << py[j])
                seq += 1
                _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col,
                         fort, siege, burning, frozen, stunned, paralysed, decaying, poison, P, dbg,
                         seq)  # fmt: skip
        if extras is not None and siege:
            # C-7.4 [default]: the attacker's tunnellers surface next to a random enemy.
            tunnellers = np.int64(P[R.TUNNELLERS])
            for i in range(n):
                if state[i] == ALIVE and U[L.U_FLAGS, itype[i]] & L.UF_SIEGE_TUNNELING:
                    if iside[i] < tunnellers:  # 1: side 0 only; 2: both sides
                        _surface_next_to_enemy(s, i, iside, state, px, py, grid, width, length,
                                               cand, no_bits)  # fmt: skip

        outcome = DRAW
        rounds = 0
        a, b = _side_counts(iside, state)
        rnd = ONE
        timed_out = False
        while a > 0 and b > 0:
            if rnd > max_rounds:  # C-8.11 [default]: a draw, without the extra rounds
                timed_out = True
                break
            # 1. battle fatigue: magic damage ignoring armour and shields
            seq += 1
            if rnd >= fatigue_start:
                for i in range(n):
                    _lose_hp(i, rnd - fatigue_start + 1, hp, state, px, py, grid, width, dbg, seq)
            # 2. clouds disperse
            if extras is not None and clouds:
                _clear_clouds(s, cloud, P)
            # 3-4. movement in ``movers`` (C-8.3, see _move_order); fast units move twice.
            # C-8.3 [default] simultaneous moves: every unit chooses from where the
            # units stood when the sweep began (qx, qy and the summed-area tables built
            # from them); only the occupancy ``grid`` it steps on is live.
            stale[:] = 1  # deaths and routs since the last movement
            for sweep in range(2):
                if sweep == 1 and not fast:
                    break  # the second sweep moves fast units only (and draws nothing else)
                if snapshot:
                    _copy(qx, px)
                    _copy(qy, py)
                    if use_field:
                        for side in range(2):
                            stale[side] |= moved[side]
                        moved[:] = 0
                for i in movers:
                    if state[i] != ALIVE or stunned[i] or paralysed[i]:
                        continue
                    fl = U[L.U_FLAGS, itype[i]]
                    if fl & L.UF_IMMOBILE or (sweep == 1 and not fl & L.UF_FAST):
                        continue
                    if extras is not None and sweep == 0 and fl & L.UF_COMBAT_BURROWING:
                        if chance(s, P[R.BURROW_CHANCE]):  # C-7.5 [default]
                            _surface_next_to_enemy(s, i, iside, state, px, py, grid, width, length,
                                                   cand, no_bits)  # fmt: skip
                            mark[iside[i]] = 1
                    e = 1 - iside[i]
                    if use_field and stale[e]:  # the enemies moved, died or routed since
                        count_table(e, iside, state, qx, qy, width, length, field[e],
                                    colbits[e] if bitsets else no_words)  # fmt: skip
                        stale[e] = 0
                    x0 = px[i]
                    y0 = py[i]
                    _move(s, i, U, W, itype, iside, state, px, py, qx, qy, grid, width,
                          length, siege, wall_col, field[e] if use_field else no_field,
                          colbits[e] if bitsets else no_words, P, cand, near, extras)  # fmt: skip
                    if px[i] != x0 or py[i] != y0:
                        mark[iside[i]] = 1
            # 5. fear
            if extras is not None and fear:
                seq = _fear(s, U, itype, iside, state, px, py, grid, width, length, P, cand, dbg,
                            seq)  # fmt: skip
            # 6-7. attack order: wands first, then initiative, ties at random
            spans = (UNKNOWN_SPAN, UNKNOWN_SPAN)  # each side's (see _occupied); unknown: search
            if bitsets:  # nobody moves from here to the end of the round (see _random_enemy)
                column_bits(iside, state, px, py, colbits)
                _next_to_bits(colbits)
                if extras is not None and shooters:
                    spans = (_occupied(colbits[0]), _occupied(colbits[1]))
            m = 0
            for i in range(n):
                if state[i] != ALIVE or stunned[i] or paralysed[i]:
                    continue
                ti = itype[i]
                # No enemy next to i now: none will be in this round's attacks (units only
                # die or rout until its end), so its melee attacks are lost whenever they
                # come, drawing nothing (_pick_target).  They draw their ties but are left
                # out of the order: the others keep theirs (it is a stable sort).
                alone = bitsets and not (colbits[3 - iside[i], px[i]] >> py[i]) & 1
                if alone and (extras is None or not U[L.U_FLAGS, ti] & L.UF_RANGED):
                    skip(s, U[L.U_KEY_DRAWS, ti])  # melee only: its ties, all lost (as below)
                    continue
                # Likewise its shots when no enemy stands within their range (C-5.1): the
                # enemies' span now holds every enemy the shots could find (_ranged_shot).
                ex0, ex1, erows = spans[1] if iside[i] == 0 else spans[0]
                for k in range(U[L.U_NW, ti]):
                    w = U[L.U_W0, ti] + k
                    if W[L.W_FLAGS, w] & L.F_PREBATTLE:
                        continue
                    wand = 1 if W[L.W_FLAGS, w] & L.F_WAND else 0
                    lost = alone
                    if extras is not None and W[L.W_RANGE, w] > 1:
                        lost = bitsets and _none_within(
                            px[i], py[i], _eff_range(i, w, W, px, siege, wall_col, P), ex0, ex1,
                            erows, width,
                        )  # fmt: skip
                    for _ in range(W[L.W_SHOTS, w]):
                        tie = np.int64(next_u64(s) & _MASK32)
                        if lost:
                            continue
                        atk_unit[m] = i
                        atk_w[m] = w
                        atk_slot[m] = k
                        atk_key[m] = -((wand << 50) + (W[L.W_INIT, w] << 36) + tie)
                        if early:  # C-8.6 target_draw="order": the target is drawn now
                            atk_target[m], atk_far[m] = _pick_target(
                                s, i, w, k, rnd, U, W, iside, state, px, py, grid, width, length,
                                siege, wall_col, last_fire, P, cand, colbits, extras,
                            )  # fmt: skip
                        m += 1
            order = _attack_order(atk_key, np.int64(m), sort_scratch)
            # 8. attacks
            for q in range(m):
                e = order[q]
                i = atk_unit[e]
                if state[i] != ALIVE or stunned[i] or paralysed[i]:
                    continue  # killed, routed or stunned before its attack came
                w = atk_w[e]
                if early:
                    j = atk_target[e]
                    far = atk_far[e] != 0
                    if j >= 0 and state[j] != ALIVE:
                        continue  # C-8.6 target_draw="order": the target is gone, the attack lost
                else:  # C-8.6 [default]: the target is drawn when the attack is made
                    j, far = _pick_target(s, i, w, atk_slot[e], rnd, U, W, iside, state, px, py,
                                          grid, width, length, siege, wall_col, last_fire, P,
                                          cand, colbits, extras)  # fmt: skip
                if j < 0:
                    continue  # nobody in reach: the attack is lost
                seq += 1
                _strike(s, i, w, j, far, U, W, itype, iside, hp, state, px, py, grid, cloud,
                        width, wall_col, fort, siege, burning, frozen, stunned, paralysed,
                        decaying, poison, dealt, P, dbg, seq, extras)  # fmt: skip
                if bitsets and state[j] != ALIVE:  # only a struck unit dies or routs here:
                    colbits[iside[j], px[j]] &= ~(np.int64(1) << py[j])  # keep them exact
            # 9-10. ongoing effects and clouds (a settled battle skips the call)
            seq += 1
            if extras is not None and (
                clouds
                or (unsettled and not _settled(U, itype, state, hp, maxhp, burning, frozen, stunned,
                                               paralysed, decaying, poison))
            ):  # fmt: skip
                _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col,
                         fort, siege, burning, frozen, stunned, paralysed, decaying, poison, P, dbg,
                         seq)  # fmt: skip
            a, b = _side_counts(iside, state)
            rounds = rnd
            rnd += 1
        # 11. the end: 75 more rounds of steps 2, 9 and 10 only, then count survivors.
        extra = 0 if timed_out else np.int64(P[R.EXTRA_ROUNDS])
        for _ in range(extra):
            if extras is None:
                break  # nothing lasts: the extra rounds end at once (see needs_extras)
            if not clouds and (not unsettled or _settled(U, itype, state, hp, maxhp, burning,
                                                         frozen, stunned, paralysed, decaying,
                                                         poison)):  # fmt: skip
                break
            seq += 1
            if clouds:
                _clear_clouds(s, cloud, P)  # step 2 goes on in the extra rounds
            _ongoing(s, U, itype, hp, maxhp, state, px, py, grid, cloud, W, width, wall_col,
                     fort, siege, burning, frozen, stunned, paralysed, decaying, poison, P, dbg,
                     seq)  # fmt: skip
        a, b = _side_counts(iside, state)
        if timed_out:
            outcome = DRAW
        elif a > 0 and b == 0:
            outcome = ATTACKER_WINS
        elif b > 0 and a == 0:
            outcome = DEFENDER_WINS
        else:
            outcome = DRAW
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

        # Its record: the chunk's counts and histograms, and per battle with keep or debug.
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
            _copy(t_surv[trial], surv)
            _copy(t_routed[trial], routed)
            _copy(t_dealt[trial], dealt)
        if debug:
            for i in range(n):
                dbg[i, D_PART] = bpart[i]
                _copy(t_debug[trial, i], dbg[i])
