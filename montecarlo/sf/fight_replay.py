"""Replay one Shared†Fantasia fight of a run with its event log (issue 12).

Fight ``t`` of ``sf.fight(a, b, seed=s, ...)`` draws from its own stream, a pure
function of (s, t).  :func:`replay` plays it again through
:func:`kernels.sf_fight.replay_fight`, whose log draws no number, so it ends as
the run counted it (``tests/test_replay_sf.py`` checks this fight by fight).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kernels import sf_layout as F
from kernels import sf_log as G
from kernels.sf_fight import N_S, S_FAT, S_HEAVY, S_INJ, S_STATUS, replay_fight
from montecarlo.errors import InputError
from montecarlo.seeding import SeedLike, chunk_states, resolve_seed
from montecarlo.sf.battlefields import DEFAULT_BATTLEFIELD
from montecarlo.sf.characters import Character, CharacterRoster, roster_note
from montecarlo.sf.fights import (
    FIGHT_CHUNK,
    STATES,
    Battlefield,
    Policy,
    SFRules,
    prepare,
)
from montecarlo.sf.fights import fight as run_fight

#: Outcome names, in the kernel's order (party A wins, party B wins, draw).
OUTCOMES = ("a-wins", "b-wins", "draw")
_ACTIONS = {
    G.A_NONE: "none",
    G.A_BREATH: "catch breath",
    G.A_COVER: "take cover",
    G.A_DROP_LOF: "remove line of fire",
    G.A_CAST: "cast",
    G.A_SECURE: "secure line of fire",
    G.A_SHOOT: "shoot",
    G.A_COUP: "finishing blow",
    G.A_MELEE: "melee attack",
    G.A_STEP_UP: "step up",
    G.A_HOLD: "hold fire",
}
_ACTION_RULES = {
    "catch breath": "S-4",
    "take cover": "S-6",
    "remove line of fire": "S-6",
    "cast": "S-7",
    "secure line of fire": "S-6",
    "shoot": "S-6",
    "finishing blow": "S-4",
    "melee attack": "S-2",
    "step up": "S-6",
    "hold fire": "S-6",
    "none": "S-8",
}
_SHOTS = {1: "at the back line", 2: "into the engage area", 4: "at the front line", 5: "at anyone"}
_KINDS = {F.K_NONE: "none", F.K_INJURY: "injury", F.K_FATIGUE: "fatigue", F.K_SLEEP: "sleep"}
_FIRST_LOG_ROWS = 2048


@dataclass
class FightReplay:
    """One fight played again, with every event (see :func:`replay`).

    Attributes
    ----------
    events : pandas.DataFrame
        One row per event: ``kind`` (round, turn, attack, cast, save, move,
        status, end), ``round``, ``rule``, ``actor``, ``target`` (names such as
        "Goblin #2 (B)"), ``action`` of a turn, and for an attack the opposed
        check (``hit_value``, ``hit_roll``, ``evade_value``, ``evade_roll``,
        ``hit``, ``dramatic``, ``attacker_fumble``, ``dramatic_evade``,
        ``defender_fumble``), ``damage`` and its ``damage_kind``, the target's
        ``injury`` and ``fatigue`` after it, ``opportunity`` (S-5) and
        ``chained`` (set off by another opportunity attack's fumble or a
        dramatic evade against it), ``friendly_fire`` (the d6 of a shot into
        the melee picked an ally)
        and the ``shot`` (S-6), ``trip`` (S-9); for a spell
        its ``strength`` and each target's ``save`` and ``save_ok``, or a
        ``cast failed`` row (S-5: the opportunity attacks it provoked dealt
        ``damage`` to the caster, or felled it); for a move
        the lines and ends before and after and ``cover``; for a status event
        the new ``status``.
    characters : pandas.DataFrame
        One row per character: name, side, final state, injury and fatigue.
    outcome : str
        "a-wins", "b-wins" or "draw".
    rounds : int
    """

    fight: int
    seed: Any
    events: pd.DataFrame
    characters: pd.DataFrame
    outcome: str
    rounds: int
    options: dict
    log: np.ndarray

    @property
    def survivors(self) -> pd.DataFrame:
        """The characters still standing at the end."""
        return self.characters[self.characters["state"] == "standing"]

    def text(self) -> str:
        """A readable round-by-round account."""
        from montecarlo.sf.replay_text import account

        return account(self)


def play_logged(C, B, Q, ss: np.random.SeedSequence, index: int, rows: int = 0):
    """Play fight ``index`` with a log; returns ``(outcome, rounds, log, S, E)``.

    ``S`` is the final state and ``E`` the event counters of the batch kernel.
    """
    key = chunk_states(ss, index // FIGHT_CHUNK, index // FIGHT_CHUNK + 1)[0]
    rows = rows or _FIRST_LOG_ROWS
    while True:
        log = np.zeros((rows, G.N_COLS), np.int64)
        S = np.zeros((N_S, C.shape[1]), np.int64)
        E = np.zeros((2, F.N_EVENTS), np.int64)
        outcome, rounds = replay_fight(key, index % FIGHT_CHUNK, C, B, Q, log, S, E)
        used = int(log[0, G.H_COUNT])
        if used < rows:
            return int(outcome), int(rounds), log[1 : used + 1], S, E
        rows = used + 1  # the buffer was too small: play the same fight again


def replay(
    party_a: str | list,
    party_b: str | list,
    *,
    seed: SeedLike,
    fight: int | None = None,
    first: str | None = None,
    trials: int = 20_000,
    battlefield: str | Battlefield = DEFAULT_BATTLEFIELD,
    battlefields: Mapping[str, Battlefield] | None = None,
    surprise: str | Iterable[int] | None = None,
    pincer: str | None = None,
    rear: str | list | None = None,
    policy: Policy | dict | None = None,
    rules: SFRules | dict | None = None,
    max_rounds: int = 100,
    roster: CharacterRoster | None = None,
) -> FightReplay:
    """Play fight ``fight`` of ``sf.fight(party_a, party_b, seed=seed, ...)`` again, logged.

    Takes :func:`~montecarlo.sf.fight`'s keywords, which must match the run;
    ``first`` ("a-wins", "b-wins" or "draw") instead replays the first fight of
    the run with that outcome among its first ``trials``.
    """
    if seed is None:
        raise InputError("replay needs the seed of the run it replays, e.g. seed=7")
    if (fight is None) == (first is None):
        raise InputError("give fight= (a fight number) or first= (an outcome), not both")
    options = {"battlefield": battlefield, "battlefields": battlefields, "surprise": surprise,
               "pincer": pincer, "rear": rear, "policy": policy, "rules": rules,
               "max_rounds": max_rounds, "roster": roster}  # fmt: skip
    a, b, C, B, Q, field, _, _ = prepare(party_a, party_b, **options)
    if first is not None:
        fight = find_first(party_a, party_b, first, seed=seed, trials=trials, **options)
    if isinstance(fight, bool) or not isinstance(fight, int | np.integer) or fight < 0:
        raise InputError(f"fight is a fight number from 0, got {fight!r}")
    ss = resolve_seed(seed)
    outcome, rounds, log, S, _ = play_logged(C, B, Q, ss, int(fight))
    everyone = a + b
    names = character_names(everyone, len(a))
    return FightReplay(
        fight=int(fight), seed=ss.entropy, events=_events(log, names, everyone),
        characters=_characters(everyone, names, len(a), S), outcome=OUTCOMES[outcome],
        rounds=rounds, options={"battlefield": field.name, "battlefield_meaning": field.meaning,
                                "surprise": surprise, "pincer": pincer,
                                "roster_note": roster_note(everyone)}, log=log,
    )  # fmt: skip


def find_first(party_a, party_b, outcome: str, *, seed: SeedLike, trials: int = 20_000,
               **options: Any) -> int:  # fmt: skip
    """The number of the first fight of the run that ended in ``outcome``."""
    if outcome not in OUTCOMES:
        raise InputError(f"first= is one of {', '.join(OUTCOMES)}, not {outcome!r}")
    run = run_fight(party_a, party_b, trials=trials, seed=seed, keep_trials=True, progress=False,
                **options)  # fmt: skip
    hits = np.flatnonzero(run.trials["outcome"] == OUTCOMES.index(outcome))
    if len(hits) == 0:
        raise InputError(f"none of the first {trials:,} fights ended {outcome}; try more trials")
    return int(hits[0])


def character_names(everyone: list[Character], n_a: int) -> list[str]:
    """'Goblin #2 (B)': the character, its number among its namesakes, its party."""
    seen: dict[tuple[str, str], int] = {}
    names = []
    for i, c in enumerate(everyone):
        side = "A" if i < n_a else "B"
        seen[(side, c.name)] = seen.get((side, c.name), 0) + 1
        names.append(f"{c.name} #{seen[(side, c.name)]} ({side})")
    return names


def _characters(everyone, names, n_a, S) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": names,
            "side": ["A" if i < n_a else "B" for i in range(len(everyone))],
            "hp": [c.hp for c in everyone],
            "state": [STATES[s] for s in S[S_STATUS]],
            "injury": S[S_INJ],
            "fatigue": S[S_FAT],
            "heavy_fatigue": S[S_HEAVY],
        }
    )


def _weapon(c: Character, ranged: bool) -> str:
    w = c.ranged_weapon if ranged else c.melee_weapon
    return w.name if w is not None else ""


def _events(log: np.ndarray, names: list[str], everyone: list[Character]) -> pd.DataFrame:
    """The log as a tidy table; opportunity and shot markers folded into their attack."""
    rows: list[dict] = []
    opportunity = False
    chained = False
    shot: tuple[str, bool] | None = None
    for r in log:
        kind = int(r[G.C_KIND])
        actor = names[r[G.C_ACTOR]] if r[G.C_ACTOR] >= 0 else ""
        target = names[r[G.C_TARGET]] if r[G.C_TARGET] >= 0 else ""
        row: dict[str, Any] = {"round": int(r[G.C_ROUND]), "actor": actor, "target": target}
        if kind == G.EV_OPPORTUNITY:
            opportunity = True
            chained = bool(r[G.C_ACTION])
            continue
        if kind == G.EV_SHOT:
            shot = (_SHOTS.get(int(r[G.C_ACTION]), ""), bool(r[G.C_FLAG]))
            continue
        if kind == G.EV_ROUND:
            row |= {"kind": "round", "rule": "S-8"}
        elif kind == G.EV_TURN:
            action = _ACTIONS[int(r[G.C_ACTION])]
            row |= {"kind": "turn", "action": action, "rule": _ACTION_RULES[action]}
            if action == "catch breath":
                row["recovered"] = int(r[G.C_VALUE])
        elif kind == G.EV_ATTACK:
            special = int(r[G.C_SPECIAL])
            ranged = bool(r[G.C_ACTION])
            row |= {
                "kind": "attack", "rule": "S-5" if opportunity else ("S-6" if ranged else "S-2"),
                "weapon": _weapon(everyone[r[G.C_ACTOR]], ranged), "ranged": ranged,
                "hit_value": int(r[G.C_HIT_VALUE]), "hit_roll": int(r[G.C_HIT_ROLL]),
                "evade_value": int(r[G.C_EVADE_VALUE]), "evade_roll": int(r[G.C_EVADE_ROLL]),
                "hit": bool(r[G.C_HIT]), "dramatic": bool(special & 1),
                "attacker_fumble": bool(special & 2), "dramatic_evade": bool(special & 4),
                "defender_fumble": bool(special & 8), "damage": int(r[G.C_DAMAGE]),
                "damage_kind": _KINDS[int(r[G.C_DAMAGE_KIND])], "injury": int(r[G.C_INJURY]),
                "fatigue": int(r[G.C_FATIGUE]), "trip": bool(r[G.C_FLAG]),
                "opportunity": opportunity, "chained": chained,
                "shot": shot[0] if ranged and shot else "",
                "friendly_fire": bool(ranged and shot and shot[1]),
            }  # fmt: skip
            opportunity = False
            chained = False
            shot = None
        elif kind == G.EV_CAST:
            caster = everyone[r[G.C_ACTOR]]
            row |= {"kind": "cast", "rule": "S-7", "strength": int(r[G.C_VALUE]),
                    "weapon": caster.spells[0].name if caster.spells else "",
                    "line": int(r[G.C_LINE]), "end": int(r[G.C_END])}  # fmt: skip
        elif kind == G.EV_CAST_FAILED:
            caster = everyone[r[G.C_ACTOR]]
            row |= {"kind": "cast failed", "rule": "S-5", "damage": int(r[G.C_VALUE]),
                    "weapon": caster.spells[0].name if caster.spells else ""}  # fmt: skip
        elif kind == G.EV_SAVE:
            row |= {"kind": "save", "rule": "S-7", "save": int(r[G.C_VALUE]),
                    "save_ok": bool(r[G.C_HIT]), "damage": int(r[G.C_DAMAGE]),
                    "damage_kind": _KINDS[int(r[G.C_DAMAGE_KIND])],
                    "injury": int(r[G.C_INJURY]), "fatigue": int(r[G.C_FATIGUE])}  # fmt: skip
        elif kind == G.EV_MOVE:
            row |= {"kind": "move", "rule": "S-6", "target": actor,
                    "line": int(r[G.C_LINE]), "end": int(r[G.C_END]),
                    "to_line": int(r[G.C_TO_LINE]), "to_end": int(r[G.C_TO_END]),
                    "cover": bool(r[G.C_VALUE])}  # fmt: skip
        elif kind == G.EV_STATUS:
            status = STATES[int(r[G.C_VALUE])]
            row |= {"kind": "status", "status": status,
                    "rule": "S-9" if status == "overboard" else "S-4"}  # fmt: skip
        elif kind == G.EV_END:
            row |= {"kind": "end", "rule": "S-10", "outcome": OUTCOMES[int(r[G.C_VALUE])]}
        rows.append(row)
    frame = pd.DataFrame(rows)
    types: dict[str, set] = {}
    for row in rows:
        for col, value in row.items():
            types.setdefault(col, set()).add(type(value))
    for col, seen in types.items():  # columns only some events have: nullable, not float
        if seen == {bool}:
            frame[col] = frame[col].astype("boolean")
        elif seen == {int}:
            frame[col] = frame[col].astype("Int64")
    first = ["kind", "round", "rule", "actor", "target", "action", "weapon"]
    return frame[[c for c in first if c in frame] + [c for c in frame if c not in first]]
