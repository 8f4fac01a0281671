"""The event log of a replayed CoE5 battle (issue 12): one int64 row per event.

:func:`kernels.coe5_battle_ref.play_battle` takes ``log=None`` in batch runs, and
Numba prunes every ``if log is not None`` block from that specialisation, so
the batch kernel compiles and runs as it did without a log.  A replay passes
an int64 array of ``N_COLS`` columns: row 0 is a header (``H_*``), events
follow from row 1.  Writing past the last row only counts, so a caller can
see ``log[0, H_COUNT]`` and play the battle again with a larger buffer.
"""

from __future__ import annotations

from kernels.coe5_damage import N_TRACE
from kernels.jit import helper

# Header row: rows used, and the round and step that events are stamped with.
H_COUNT = 0
H_ROUND = 1
H_STEP = 2

# Event columns.
C_KIND = 0
C_ROUND = 1  # C-8 round; 0 before the battle (C-7.1, C-7.2), -15..-1 siege rounds (C-7.3)
C_STEP = 2  # C-8 step 1-11, or STEP_* of C-7
C_ACTOR = 3  # unit slot acting (-1: none, e.g. a cloud)
C_TARGET = 4  # unit slot acted on (-1: none)
C_WEAPON = 5  # weapon index into W (-1: none)
C_AMOUNT = 6  # damage, HP lost, HP healed, morale difficulty, or the outcome (EV_END)
C_HP = 7  # the target's HP after the event
C_X0 = 8  # a move's start column, or a unit's type (EV_DEPLOY)
C_Y0 = 9  # a move's start row
C_X1 = 10  # a move's end column, a unit's or a cloud's tile column
C_Y1 = 11  # ... and row
C_INFO = 12  # effect E_*, a failed check (1), or extra rounds played (EV_END)
C_TRACE = 13  # N_TRACE columns: C-3 steps of a hit (kernels.coe5_damage.TR_*)
N_COLS = C_TRACE + N_TRACE

# Event kinds.
EV_DEPLOY = 0  # a unit on its starting tile (C-6)
EV_ROUND = 1  # a round (or siege or extra round) begins
EV_MOVE = 2  # a unit moved or surfaced (C-7.4, C-7.5, C-8.3)
EV_HIT = 3  # one attack resolved with C-3 (actor -1: a cloud's damage at step 10)
EV_CLOUD = 4  # a cloud weapon left a cloud on a tile (C-8.2)
EV_CLOUD_GONE = 5  # a cloud dispersed (C-8 step 2)
EV_EFFECT_ON = 6  # an effect started (C-4)
EV_EFFECT_OFF = 7  # an effect ended
EV_RESISTED = 8  # a paralysing hit resisted by magic resistance (C-4.9)
EV_DAMAGE = 9  # HP lost to fatigue, burning, poison or decay (C-4, C-8.1)
EV_HEAL = 10  # regeneration (C-8.9)
EV_FEAR = 11  # a morale check against fear (C-8.5); C_INFO 1 when failed
EV_DEATH = 12  # a unit died (C_ACTOR: the unit whose hit killed it, or -1)
EV_ROUT = 13  # a unit routed (C_ACTOR: the fear unit)
EV_END = 14  # the battle ended: C_AMOUNT outcome, C_ROUND rounds, C_INFO extra rounds

# Effects (C_INFO of EV_EFFECT_*, EV_DAMAGE).
E_BURNING = 1
E_FROZEN = 2
E_STUNNED = 3
E_PARALYSED = 4
E_POISON = 5
E_DECAY = 6
E_FATIGUE = 7

# Steps of C-7 (C_STEP), beside C-8's 1-11.
STEP_DEPLOY = 60  # C-6
STEP_PREBATTLE = 71  # C-7.1
STEP_ASSASSIN = 72  # C-7.2
STEP_SIEGE = 73  # C-7.3
STEP_TUNNEL = 74  # C-7.4


@helper
def at(log, rnd, step):
    """Stamp the events that follow with round ``rnd`` and step ``step``."""
    if log is None:
        return
    log[0, H_ROUND] = rnd
    log[0, H_STEP] = step


@helper
def emit(log, kind, actor, target, weapon, amount, hp, info):
    """Append one event; returns its row (0 when the buffer is full or there is no log)."""
    if log is None:
        return 0
    k = log[0, H_COUNT] + 1
    log[0, H_COUNT] = k
    if k >= log.shape[0]:
        return 0
    log[k, :] = 0
    log[k, C_KIND] = kind
    log[k, C_ROUND] = log[0, H_ROUND]
    log[k, C_STEP] = log[0, H_STEP]
    log[k, C_ACTOR] = actor
    log[k, C_TARGET] = target
    log[k, C_WEAPON] = weapon
    log[k, C_AMOUNT] = amount
    log[k, C_HP] = hp
    log[k, C_INFO] = info
    return k


@helper
def emit_tile(log, kind, actor, target, weapon, x0, y0, x1, y1):
    """Append an event with tiles: a move (from, to), a deployment or a cloud."""
    if log is None:
        return
    k = emit(log, kind, actor, target, weapon, 0, 0, 0)
    if k > 0:
        log[k, C_X0] = x0
        log[k, C_Y0] = y0
        log[k, C_X1] = x1
        log[k, C_Y1] = y1


@helper
def emit_hit(log, actor, target, weapon, amount, hp, trace):
    """Append a hit with its C-3 trace (:func:`kernels.coe5_damage.hit_trace`)."""
    if log is None:
        return
    k = emit(log, EV_HIT, actor, target, weapon, amount, hp, 0)
    if k > 0:
        for c in range(trace.shape[0]):
            log[k, C_TRACE + c] = trace[c]


@helper
def emit_status(log, actor, j, before, burning, frozen, stunned, paralysed, decaying):
    """Effects of unit j that started or ended since ``before`` (E_* bits 1 << E)."""
    if log is None:
        return
    now = status_bits(j, burning, frozen, stunned, paralysed, decaying)
    for e in range(E_BURNING, E_DECAY + 1):
        was = (before >> e) & 1
        on = (now >> e) & 1
        if on and not was:
            emit(log, EV_EFFECT_ON, actor, j, -1, 0, 0, e)
        elif was and not on:
            emit(log, EV_EFFECT_OFF, -1, j, -1, 0, 0, e)


@helper
def status_bits(j, burning, frozen, stunned, paralysed, decaying):
    """Unit j's effects as bits ``1 << E_*``."""
    bits = 0
    if burning[j]:
        bits |= 1 << E_BURNING
    if frozen[j]:
        bits |= 1 << E_FROZEN
    if stunned[j]:
        bits |= 1 << E_STUNNED
    if paralysed[j]:
        bits |= 1 << E_PARALYSED
    if decaying[j]:
        bits |= 1 << E_DECAY
    return bits


@helper
def step(log, number):
    """Stamp the events that follow with step ``number`` of the current round."""
    if log is None:
        return
    log[0, H_STEP] = number


@helper
def deploy(log, itype, hp, px, py):
    """One EV_DEPLOY per unit: its type (C_X0), HP and tile (C-6)."""
    if log is None:
        return
    for i in range(itype.shape[0]):
        k = emit(log, EV_DEPLOY, i, i, -1, 0, hp[i], 0)
        if k > 0:
            log[k, C_X0] = itype[i]
            log[k, C_X1] = px[i]
            log[k, C_Y1] = py[i]


@helper
def clouds_gone(log, before, cloud, width):
    """One EV_CLOUD_GONE per tile whose cloud dispersed since ``before`` (C-8.2)."""
    if log is None:
        return
    for c in range(cloud.shape[0]):
        if before[c] >= 0 and cloud[c] < 0:
            emit_tile(log, EV_CLOUD_GONE, -1, -1, before[c], 0, 0, c // width, c % width)
