"""Replay one CoE5 battle of a matchup with its event log (issue 12).

Battle ``t`` of ``matchup(attacker, defender, seed=s, ...)`` draws from its own
stream, ``seed_trial(key of chunk t // BATTLE_CHUNK, t % BATTLE_CHUNK)``, a pure
function of (s, t) (:func:`kernels.rng.seed_trial`), and is dealt
out afresh from the written slots (C-6).  :func:`replay` plays it again through
:func:`kernels.coe5_battle_ref.replay_battle`, whose log records every event
without drawing a number, so the replay ends exactly as the batch run counted
it (``tests/test_replay.py`` checks this battle by battle).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kernels import coe5_layout as L
from kernels import coe5_log as G

# Replays go through the reference kernel, which carries the event log: it plays
# the very same battles as the indexed one (tests/test_coe5_indexed.py).
from kernels.coe5_battle_ref import ALIVE, D_HP, D_PART, D_STATE, N_DEBUG, ROUTED, replay_battle
from kernels.coe5_damage import (
    TR_DIE,
    TR_ETHEREAL,
    TR_ROLL,
    TR_SHIELD,
    TR_T1,
    TR_T2,
    TR_T3,
    TR_T4,
    TR_T5,
    TR_T6,
    TR_T7,
    TR_T8,
)
from montecarlo.coe5.battle import BATTLE_CHUNK, BattleRules, _Battles, matchup
from montecarlo.coe5.battlefield import ArmyLike, Deployment, deploy, parse_army
from montecarlo.coe5.units import DAMAGE_TYPES, Roster
from montecarlo.errors import InputError
from montecarlo.seeding import SeedLike, chunk_states, resolve_seed
from montecarlo.validation import check_army_size, check_grid, coerce_rules

#: Outcome names, in the kernel's order (ATTACKER_WINS, DEFENDER_WINS, DRAW).
OUTCOMES = ("attacker-wins", "defender-wins", "draw")
SIDES = ("attacker", "defender")

_KINDS = {
    G.EV_DEPLOY: "deploy",
    G.EV_ROUND: "round",
    G.EV_MOVE: "move",
    G.EV_HIT: "hit",
    G.EV_CLOUD: "cloud",
    G.EV_CLOUD_GONE: "cloud-gone",
    G.EV_EFFECT_ON: "effect-on",
    G.EV_EFFECT_OFF: "effect-off",
    G.EV_RESISTED: "resisted",
    G.EV_DAMAGE: "damage",
    G.EV_HEAL: "heal",
    G.EV_FEAR: "fear-check",
    G.EV_DEATH: "death",
    G.EV_ROUT: "rout",
    G.EV_END: "end",
}
_EFFECTS = {
    G.E_BURNING: "burning",
    G.E_FROZEN: "frozen",
    G.E_STUNNED: "stunned",
    G.E_PARALYSED: "paralysed",
    G.E_POISON: "poison",
    G.E_DECAY: "decay",
    G.E_FATIGUE: "fatigue",
}
#: The rule each effect's start, end and damage follow.
_EFFECT_RULES = {
    "burning": "C-4.2",
    "frozen": "C-4.3",
    "stunned": "C-4.4",
    "paralysed": "C-4.9",
    "poison": "C-4.5",
    "decay": "C-4.8",
    "fatigue": "C-8.1",
}
#: The C_STEP codes as rule ids: C-8's steps, and C-6, C-7 before the first round.
_STEPS = {
    **{k: f"C-8.{k}" for k in range(1, 12)},
    12: "C-8.11",
    G.STEP_DEPLOY: "C-6",
    G.STEP_PREBATTLE: "C-7.1",
    G.STEP_ASSASSIN: "C-7.2",
    G.STEP_SIEGE: "C-7.3",
    G.STEP_TUNNEL: "C-7.4",
}
#: Trace columns of a hit, named after their C-3 step.
_TRACE = {
    "die": TR_DIE,
    "roll": TR_ROLL,
    "step1_raw": TR_T1,
    "step2_vulnerable": TR_T2,
    "step3_cannot_move": TR_T3,
    "step4_wall": TR_T4,
    "step5_armor": TR_T5,
    "shield_roll": TR_SHIELD,
    "step6_shield": TR_T6,
    "step7_resist": TR_T7,
    "step8_damage": TR_T8,
}
_FIRST_LOG_ROWS = 4096


@dataclass
class Replay:
    """One battle played again, with every event (see :func:`replay`).

    Attributes
    ----------
    events : pandas.DataFrame
        One row per event, in order: ``kind``, ``round``, ``step`` (C-8 step
        or C-6/C-7 phase, as a rule id), ``rule`` (the rule the event follows),
        ``actor``, ``target`` (unit names such as "Pikeman #3 (attacker)"),
        ``weapon``, ``amount`` (damage, HP lost or healed, a morale
        difficulty), ``hp`` (the target's HP after it), ``effect``,
        ``failed`` (a fear check), the C-3 pipeline of a hit (``die``,
        ``roll``, ``step1_raw`` ... ``step8_damage``, ``shield_roll``,
        ``ethereal_miss``), and tiles ``x0, y0`` -> ``x1, y1`` (column, row).
    units : pandas.DataFrame
        One row per unit: name, side, part, start tile, HP at the end, fate.
    outcome : str
        "attacker-wins", "defender-wins" or "draw".
    rounds : int
        Rounds played (C-8), without the extra rounds of C-8.11.
    survivors : pandas.DataFrame
        Per army part: units alive and routed at the end.
    """

    battle: int
    seed: Any
    events: pd.DataFrame
    units: pd.DataFrame
    outcome: str
    rounds: int
    extra_rounds: int
    survivors: pd.DataFrame
    dealt: tuple[int, int]
    deployment: Deployment
    options: dict
    log: np.ndarray

    @property
    def title(self) -> str:
        """The matchup in words, as in reports."""
        parts = self.deployment.parts
        side = [
            ", ".join(f"{p.unit.name} ×{p.count}" for p in parts if p.side == s) for s in (0, 1)
        ]
        siege = f", siege of fort {self.options['fort']}" if self.options["siege"] else ""
        return f"{side[0]} (attacker) vs {side[1]} (defender){siege}"

    def text(self, moves: bool = False) -> str:
        """A readable round-by-round account; ``moves=True`` lists every move too."""
        from montecarlo.coe5.replay_text import account

        return account(self, moves=moves)

    def frames(self) -> list[dict]:
        """The battlefield at deployment and after each round, for drawing."""
        from montecarlo.coe5.replay_plot import frames

        return frames(self)

    def plot_frame(self, index: int = 0):
        """A figure of frame ``index`` of :meth:`frames` (0: the deployment)."""
        from montecarlo.coe5.replay_plot import plot_frame

        return plot_frame(self, self.frames()[index])

    def save_gif(self, path, fps: float = 2.0):
        """Draw the grid round by round into an animated GIF (Pillow writer)."""
        from montecarlo.coe5.replay_plot import save_gif

        return save_gif(self, path, fps=fps)


def _packed(attacker, defender, siege, fort, width, length, rules, roster):
    """The same checks, deployment and packed tables as :func:`matchup` makes."""
    if siege and (isinstance(fort, bool) or not isinstance(fort, int) or not 1 <= fort <= 3):
        raise InputError(f"fort is a fortification level from 1 to 3, got {fort!r}")
    rules = coerce_rules(rules, BattleRules) or BattleRules()
    check_grid(width, length)
    att = parse_army(attacker, roster)
    dfd = parse_army(defender, roster)
    check_army_size(sum(count for _, count in att), "attacker")
    check_army_size(sum(count for _, count in dfd), "defender")
    dep = deploy(att, dfd, width, length, siege=siege, siege_deployment=rules.siege_deployment)
    return _Battles(dep, siege, fort, width, length, rules), rules


def _check_battle(battle: object) -> int:
    if isinstance(battle, bool) or not isinstance(battle, int | np.integer) or battle < 0:
        raise InputError(f"battle is a battle number from 0, got {battle!r}")
    return int(battle)


def play_logged(battles: _Battles, ss: np.random.SeedSequence, battle: int, rows: int = 0):
    """Play battle ``battle`` with a log; returns ``(outcome, rounds, log, dbg, dealt)``."""
    key = chunk_states(ss, battle // BATTLE_CHUNK, battle // BATTLE_CHUNK + 1)[0]
    d = battles.dep
    rows = rows or _FIRST_LOG_ROWS
    while True:
        log = np.zeros((rows, G.N_COLS), np.int64)
        dbg = np.zeros((battles.n_units, N_DEBUG), np.int64)
        dealt = np.zeros(2, np.int64)
        outcome, rounds = replay_battle(
            key, battle % BATTLE_CHUNK, battles.U, battles.W, d.itype, d.iside, d.ipart, d.x, d.y,
            battles.shuffle_idx, battles.shuffle_bounds, battles.width, battles.length,
            d.wall_col, battles.fort, battles.siege, battles.params, battles.max_weapons,
            battles.max_attacks, log, dbg, dealt,
        )  # fmt: skip
        used = int(log[0, G.H_COUNT])
        if used < rows:
            return int(outcome), int(rounds), log[1 : used + 1], dbg, dealt
        rows = used + 1  # the buffer was too small: play the same battle again


def replay(
    attacker: ArmyLike,
    defender: ArmyLike,
    *,
    seed: SeedLike,
    battle: int | None = None,
    first: str | None = None,
    trials: int = 20_000,
    siege: bool = False,
    fort: int = 1,
    width: int = 10,
    length: int = 20,
    rules: BattleRules | dict | None = None,
    roster: Roster | None = None,
) -> Replay:
    """Play battle ``battle`` of ``matchup(attacker, defender, seed=seed, ...)`` again, logged.

    Parameters
    ----------
    attacker, defender, siege, fort, width, length, rules, roster
        As for :func:`~montecarlo.matchup`; they must match the run replayed.
    seed : int or SeedSequence
        The run's seed (a replay needs one: ``seed=None`` would be a new run).
    battle : int, optional
        The battle's number in the run, from 0.
    first : str, optional
        Instead of ``battle``: replay the first battle of the run that ended
        "attacker-wins", "defender-wins" or "draw", found among its first
        ``trials`` battles (a ``keep_trials=True`` run).

    Returns
    -------
    Replay
        The events, the units, the outcome and what :meth:`Replay.save_gif` draws.
    """
    if seed is None:
        raise InputError("replay needs the seed of the run it replays, e.g. seed=7")
    if (battle is None) == (first is None):
        raise InputError("give battle= (a battle number) or first= (an outcome), not both")
    battles, rules = _packed(attacker, defender, siege, fort, width, length, rules, roster)
    ss = resolve_seed(seed)
    if first is not None:
        battle = find_first(
            attacker, defender, first, seed=seed, trials=trials, siege=siege, fort=fort,
            width=width, length=length, rules=rules, roster=roster,
        )  # fmt: skip
    battle = _check_battle(battle)
    outcome, rounds, log, dbg, dealt = play_logged(battles, ss, battle)
    units = _units(battles, log, dbg)
    options = {"siege": bool(siege), "fort": battles.fort, "width": width, "length": length}
    extra = int(log[-1, G.C_INFO]) if len(log) and log[-1, G.C_KIND] == G.EV_END else 0
    return Replay(
        battle=battle, seed=ss.entropy, events=_events(battles, log, units), units=units,
        outcome=OUTCOMES[outcome], rounds=rounds, extra_rounds=extra,
        survivors=_survivors(battles.dep, dbg), dealt=(int(dealt[0]), int(dealt[1])),
        deployment=battles.dep, options=options, log=log,
    )  # fmt: skip


def find_first(
    attacker: ArmyLike, defender: ArmyLike, outcome: str, *, seed: SeedLike, trials: int = 20_000,
    **options: Any,
) -> int:  # fmt: skip
    """The number of the first battle of the run that ended in ``outcome``.

    Plays ``trials`` battles with ``keep_trials=True``; an input error when
    none of them ended so.
    """
    if outcome not in OUTCOMES:
        raise InputError(f"first= is one of {', '.join(OUTCOMES)}, not {outcome!r}")
    run = matchup(
        attacker, defender, trials=trials, seed=seed, keep_trials=True, progress=False, **options
    )
    hits = np.flatnonzero(run.trials.outcome == OUTCOMES.index(outcome))
    if len(hits) == 0:
        raise InputError(f"none of the first {trials:,} battles ended {outcome}; try more trials")
    return int(hits[0])


def unit_names(dep: Deployment, parts: np.ndarray) -> list[str]:
    """'Pikeman #3 (attacker)': the unit type, its number within its part, its side."""
    seen: dict[int, int] = {}
    names = []
    for p in parts:
        part = dep.parts[int(p)]
        seen[int(p)] = seen.get(int(p), 0) + 1
        names.append(f"{part.unit.name} #{seen[int(p)]} ({SIDES[part.side]})")
    return names


def _units(battles: _Battles, log: np.ndarray, dbg: np.ndarray) -> pd.DataFrame:
    dep = battles.dep
    parts = dbg[:, D_PART]
    start = log[log[:, G.C_KIND] == G.EV_DEPLOY]
    fate = np.where(dbg[:, D_STATE] == ALIVE, "alive",
                    np.where(dbg[:, D_STATE] == ROUTED, "routed", "dead"))  # fmt: skip
    return pd.DataFrame(
        {
            "name": unit_names(dep, parts),
            "side": [SIDES[dep.parts[p].side] for p in parts],
            "part": parts,
            "unit": [dep.parts[p].unit.name for p in parts],
            "max_hp": [dep.parts[p].unit.hp for p in parts],
            "x": start[:, G.C_X1],
            "y": start[:, G.C_Y1],
            "hp": np.maximum(dbg[:, D_HP], 0),
            "fate": fate,
        }
    )


def weapon_names(battles: _Battles) -> list[str]:
    """Names of the packed weapons, by their index in W."""
    names = [""] * battles.W.shape[1]
    for t, unit in enumerate(battles.dep.types):
        first = int(battles.U[L.U_W0, t])
        for k, w in enumerate(unit.weapons):
            names[first + k] = w.name
    return names


def _events(battles: _Battles, log: np.ndarray, units: pd.DataFrame) -> pd.DataFrame:
    """The log as a tidy table: names for units, weapons, steps, effects and rules."""
    names = np.array([*units["name"], ""], dtype=object)  # index -1: nobody
    weapons = np.array([*weapon_names(battles), ""], dtype=object)
    kind = np.array([_KINDS[k] for k in log[:, G.C_KIND]], dtype=object)
    effect = np.array([_EFFECTS.get(int(e), "") for e in log[:, G.C_INFO]], dtype=object)
    effect[~np.isin(log[:, G.C_KIND], (G.EV_EFFECT_ON, G.EV_EFFECT_OFF, G.EV_RESISTED,
                                        G.EV_DAMAGE, G.EV_DEATH))] = ""  # fmt: skip
    step = np.array([_STEPS.get(int(s), "") for s in log[:, G.C_STEP]], dtype=object)
    actor = np.where(log[:, G.C_ACTOR] >= 0, log[:, G.C_ACTOR], -1)
    target = np.where(log[:, G.C_TARGET] >= 0, log[:, G.C_TARGET], -1)
    frame = pd.DataFrame(
        {
            "kind": kind,
            "round": log[:, G.C_ROUND],
            "step": step,
            "rule": [_rule(k, s, e, m) for k, s, e, m in zip(kind, step, effect,
                                                                 log[:, G.C_TARGET], strict=True)],
            "actor": names[actor],
            "target": names[target],
            "weapon": weapons[log[:, G.C_WEAPON]],
            "amount": log[:, G.C_AMOUNT],
            "hp": log[:, G.C_HP],
            "effect": effect,
            "failed": (log[:, G.C_KIND] == G.EV_FEAR) & (log[:, G.C_INFO] == 1),
        }
    )  # fmt: skip
    kinds = log[:, G.C_KIND]
    # amount: damage, HP lost or healed, a poison dose, a morale die; hp: the HP after
    amount = np.isin(kinds, (G.EV_HIT, G.EV_DAMAGE, G.EV_HEAL, G.EV_FEAR)) | (
        (kinds == G.EV_EFFECT_ON) & (log[:, G.C_INFO] == G.E_POISON)
    )
    has_hp = np.isin(kinds, (G.EV_DEPLOY, G.EV_HIT, G.EV_DAMAGE, G.EV_HEAL))
    for name, mask in (("amount", amount), ("hp", has_hp)):
        frame[name] = pd.array(frame[name], dtype="Int64")
        frame.loc[~mask, name] = pd.NA
    hit = kinds == G.EV_HIT
    for name, col in _TRACE.items():
        frame[name] = pd.array(np.where(hit, log[:, G.C_TRACE + col], 0), dtype="Int64")
        frame.loc[~hit, name] = pd.NA
    frame["ethereal_miss"] = hit & (log[:, G.C_TRACE + TR_ETHEREAL] == 1)
    tiles = np.isin(log[:, G.C_KIND], (G.EV_DEPLOY, G.EV_MOVE, G.EV_CLOUD, G.EV_CLOUD_GONE))
    moves = log[:, G.C_KIND] == G.EV_MOVE
    for name, col, mask in (("x0", G.C_X0, moves), ("y0", G.C_Y0, moves),
                            ("x1", G.C_X1, tiles), ("y1", G.C_Y1, tiles)):  # fmt: skip
        frame[name] = pd.array(log[:, col], dtype="Int64")
        frame.loc[~mask, name] = pd.NA
    frame["damage_type"] = [
        DAMAGE_TYPES[int(battles.W[L.W_TYPE, w])] if w >= 0 else "" for w in log[:, G.C_WEAPON]
    ]
    frame["actor_slot"] = log[:, G.C_ACTOR]
    frame["target_slot"] = log[:, G.C_TARGET]
    return frame


def _rule(kind: str, step: str, effect: str, target: int) -> str:
    """The rule an event follows."""
    if kind in ("effect-on", "effect-off", "resisted", "damage") and effect:
        return _EFFECT_RULES[effect]
    if kind == "hit":
        return "C-3"
    if kind == "move" and target == -2:
        return "C-7.5"
    if kind in ("fear-check", "rout"):
        return "C-8.5"
    if kind == "heal":
        return "C-8.9"
    if kind in ("cloud", "cloud-gone"):
        return "C-8.2"
    if kind == "end":
        return "C-8.11"
    return step


def _survivors(dep: Deployment, dbg: np.ndarray) -> pd.DataFrame:
    rows = []
    for p, part in enumerate(dep.parts):
        mine = dbg[:, D_PART] == p
        rows.append(
            {
                "side": SIDES[part.side],
                "unit": part.unit.name,
                "count": part.count,
                "alive": int(np.sum(mine & (dbg[:, D_STATE] == ALIVE))),
                "routed": int(np.sum(mine & (dbg[:, D_STATE] == ROUTED))),
            }
        )
    return pd.DataFrame(rows)
