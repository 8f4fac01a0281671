"""The event log of a replayed Shared†Fantasia fight (issue 12): one int64 row per event.

As for CoE5 (:mod:`kernels.coe5_log`): the fight (``kernels.sf_fight._fight``)
takes ``log=None`` in batch runs, where ``run_fights`` inlines it and Numba
prunes every ``if log is not None`` block from that copy; a replay
(``replay_fight``, through ``play_fight``) passes an int64 array of
``N_COLS`` columns whose row 0 is a header (rows used, current round).
"""

from __future__ import annotations

from kernels.jit import helper

H_COUNT = 0
H_ROUND = 1

# Event columns.
C_KIND = 0
C_ROUND = 1
C_ACTOR = 2  # character acting or attacking (-1: none)
C_TARGET = 3  # character acted on (-1: none)
C_ACTION = 4  # EV_TURN: A_*; EV_ATTACK: 1 ranged; EV_SHOT: the shot plan;
# EV_OPPORTUNITY: 1 set off by another opportunity attack (S-5 chaining)
C_VALUE = 5  # fatigue recovered, spell strength, save value, the new status (EV_STATUS),
# the injury and fatigue that stopped a cast (EV_CAST_FAILED)
C_HIT_VALUE = 6  # S-1.2: the attacker's value (hit) and the defender's (evade)
C_EVADE_VALUE = 7
C_HIT_ROLL = 8  # the two 2d6 rolls of the opposed check
C_EVADE_ROLL = 9
C_HIT = 10  # 1: hit (EV_SAVE: 1 the save succeeded)
C_SPECIAL = 11  # bits: 1 dramatic hit, 2 attacker fumble, 4 dramatic evade, 8 defender fumble
C_DAMAGE = 12  # damage dealt (after armour, S-3)
C_DAMAGE_KIND = 13  # 0 injury, 1 fatigue (kernels.sf_layout K_*)
C_INJURY = 14  # the target's injury and fatigue after the event
C_FATIGUE = 15
C_LINE = 16  # EV_MOVE: line and end before and after; EV_CAST: the area's line and end
C_END = 17
C_TO_LINE = 18
C_TO_END = 19
C_FLAG = 20  # EV_SHOT: 1 the target is an ally (friendly fire); EV_ATTACK: 1 a trip
N_COLS = 21

# Event kinds.
EV_ROUND = 0  # a round begins (S-8)
EV_TURN = 1  # a character takes its action (C_ACTION: A_*)
EV_ATTACK = 2  # one opposed attack (S-1.2, S-2, S-3)
EV_OPPORTUNITY = 3  # the attack that follows is an opportunity attack (S-5)
EV_SHOT = 4  # the shot that follows: its plan and whether it hits into an ally (S-6)
EV_CAST = 5  # a spell goes off (S-7): C_VALUE strength
EV_SAVE = 6  # one target's save against it, and what it did
EV_MOVE = 7  # a character changed line, end or cover (S-6, S-9)
EV_STATUS = 8  # a character fainted, died or went overboard (S-4, S-9)
EV_END = 9  # the fight ended (C_VALUE: outcome)
EV_CAST_FAILED = 10  # S-5: the opportunity attacks hurt or felled the caster; no spell

# Actions (C_ACTION of EV_TURN).
A_NONE = 0
A_BREATH = 1  # S-4: catch its breath
A_COVER = 2  # S-6: take cover
A_DROP_LOF = 3  # S-6: remove the secured line of fire
A_CAST = 4  # S-7
A_SECURE = 5  # S-6: secure a line of fire
A_SHOOT = 6  # S-6
A_COUP = 7  # S-4: a finishing blow
A_MELEE = 8  # S-2
A_STEP_UP = 9  # S-6: step up to the front line
A_HOLD = 10  # S-6 (Policy.shoot_into_melee): no shot into a melee with allies in it


@helper
def at(log, rnd):
    """Stamp the events that follow with round ``rnd``."""
    if log is None:
        return
    log[0, H_ROUND] = rnd


@helper
def emit(log, kind, actor, target, action, value):
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
    log[k, C_ACTOR] = actor
    log[k, C_TARGET] = target
    log[k, C_ACTION] = action
    log[k, C_VALUE] = value
    return k


@helper
def set_col(log, k, col, value):
    """Fill in column ``col`` of event row ``k`` (no-op for a dropped row)."""
    if log is None:
        return
    if k > 0:
        log[k, col] = value


@helper
def changes(log, before, S, status, line, end, cover):
    """Events for what changed in the state ``S`` since ``before`` (then ``before = S``).

    A new status (fainted, dead, overboard) is an EV_STATUS; a new line, end or
    cover an EV_MOVE.  ``status, line, end, cover`` are the state's field numbers.
    """
    if log is None:
        return
    for j in range(S.shape[1]):
        if S[status, j] != before[status, j]:
            emit(log, EV_STATUS, -1, j, 0, S[status, j])
        if (
            S[line, j] != before[line, j]
            or S[end, j] != before[end, j]
            or (S[cover, j] != before[cover, j])
        ):
            k = emit(log, EV_MOVE, j, -1, 0, S[cover, j])
            set_col(log, k, C_LINE, before[line, j])
            set_col(log, k, C_END, before[end, j])
            set_col(log, k, C_TO_LINE, S[line, j])
            set_col(log, k, C_TO_END, S[end, j])
    before[:, :] = S
