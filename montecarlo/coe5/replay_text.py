"""The readable round-by-round account of a replayed CoE5 battle (:meth:`Replay.text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from montecarlo.coe5.replay import Replay

_OUTCOME_WORDS = {
    "attacker-wins": "the attacker wins",
    "defender-wins": "the defender wins",
    "draw": "a draw",
}

_STARTS = {
    "burning": "catches fire",
    "frozen": "is frozen",
    "stunned": "is stunned",
    "paralysed": "is paralysed",
    "decay": "starts to decay",
}
_ENDS = {
    "burning": "stops burning",
    "frozen": "thaws",
    "stunned": "recovers from the stun",
    "paralysed": "is no longer paralysed",
    "decay": "stops decaying",
}


def _int(value) -> int:
    return 0 if value is pd.NA else int(value)


def pipeline(row) -> str:
    """C-3 steps 1-8 of a hit in words: only the steps that changed the total."""
    if row.ethereal_miss:
        return "misses the ethereal target (C-3.9)"
    roll, die = _int(row.roll), _int(row.die)
    parts = [f"rolls {roll} on OED({die})"]
    t1, t2, t3, t4, t5, t6, t7 = (
        _int(v) for v in (row.step1_raw, row.step2_vulnerable, row.step3_cannot_move,
                          row.step4_wall, row.step5_armor, row.step6_shield, row.step7_resist)
    )  # fmt: skip
    if t1 != roll:
        parts.append(f"halved at long range {t1} (C-5.3)")
    if t2 != t1:
        parts.append(f"×2 vulnerable {t2}")
    if t3 != t2:
        parts.append(f"+{t3 - t2} cannot move {t3}")
    if t4 != t3:
        parts.append(f"-{t3 - t4} wall {t4}")
    if t5 != t4:
        parts.append(f"-{t4 - t5} armor {t5}")
    if _int(row.shield_roll):
        parts.append(f"-{_int(row.shield_roll)} shield {t6}")
    if t7 != t6:
        parts.append(f"resistance {t7}")
    return ", ".join(parts)


def _hit(row) -> str:
    who = row.actor or f"the {row.weapon} cloud on its tile"
    with_weapon = f" with {row.weapon}" if row.actor else ""
    head = f"{who} hits {row.target}{with_weapon}"
    if row.damage_type == "paralysis":
        return head + " (paralysing, C-4.9)" + (": misses the ethereal target (C-3.9)"
                                                 if row.ethereal_miss else "")  # fmt: skip
    text = f"{head}: {pipeline(row)}"
    if row.ethereal_miss:
        return text
    if row.damage_type == "poison":
        return text + f" → {row.amount} into the poison pool (C-4.5)"
    if row.amount < 1:
        return text + " → no damage (C-3 step 8)"
    return text + f" → {row.amount} damage, {row.hp} HP left"


def _line(row) -> str | None:
    """One event as a line of the account (None: not shown on its own)."""
    kind = row.kind
    if kind == "hit":
        return _hit(row)
    if kind == "cloud":
        return f"{row.actor} leaves a {row.weapon} cloud on tile ({row.x1}, {row.y1}) (C-8.2)"
    if kind == "cloud-gone":
        return f"the {row.weapon} cloud on ({row.x1}, {row.y1}) disperses (C-8.2)"
    if kind == "effect-on":
        if row.effect == "poison":
            return f"  {row.target} is poisoned ({row.amount} into the pool, C-4.5)"
        return f"  {row.target} {_STARTS.get(row.effect, row.effect)} ({row.rule})"
    if kind == "effect-off":
        return f"  {row.target} {_ENDS.get(row.effect, row.effect)} ({row.rule})"
    if kind == "resisted":
        return f"  {row.target} resists the paralysis with its magic resistance (C-4.9)"
    if kind == "damage":
        return f"{row.target} loses {row.amount} HP to {row.effect} ({row.rule}), {row.hp} HP left"
    if kind == "heal":
        return f"{row.target} regenerates {row.amount} HP (C-8.9), {row.hp} HP"
    if kind == "fear-check":
        verdict = "fails and routs" if row.failed else "holds"
        return (
            f"{row.target} checks morale against the fear of {row.actor} "
            f"(die {row.amount}, C-8.5): {verdict}"
        )
    if kind == "death":
        return f"  {row.target} dies"
    if kind == "rout":
        return None  # said by its fear check
    return None


def _round_title(rnd: int, rounds: int) -> str:
    if rnd < 0:
        return f"Siege round {rnd} (C-7.3)"
    if rnd > rounds:
        return f"Extra round {rnd - rounds} (C-8.11: steps 2, 9 and 10 only)"
    return f"Round {rnd}"


def account(rep: Replay, moves: bool = False) -> str:
    """Every event of ``rep`` in words, grouped by round; moves counted unless ``moves``.

    Rounds in a row where units only moved are summed up in one line.
    """
    lines = [
        f"Battle {rep.battle} of seed {rep.seed}: {rep.title}",
        f"{rep.options['width']} rows × {rep.options['length']} columns; "
        f"{len(rep.units)} units deployed (C-6).",
    ]
    blocks: list[tuple[str, list[str], int]] = []  # (title, lines, moves) per round
    title, body, n_moves = "Before the first round (C-7)", [], 0
    for row in rep.events.itertuples(index=False):
        if row.kind in ("deploy", "end"):
            continue
        if row.kind == "round":
            blocks.append((title, body, n_moves))
            title, body, n_moves = _round_title(row.round, rep.rounds), [], 0
        elif row.kind == "move" and not moves:
            n_moves += 1
        elif row.kind == "move":
            how = "burrows and surfaces" if row.rule == "C-7.5" else "moves"
            body.append(f"  {row.actor} {how} ({row.x0}, {row.y0}) → ({row.x1}, {row.y1})")
        elif (text := _line(row)) is not None:
            body.append("  " + text)  # effects of a hit start with 2 more spaces
    blocks.append((title, body, n_moves))
    quiet: list[tuple[str, int]] = []  # rounds in a row with moves only
    for title, body, n_moves in blocks:
        if not body and title.startswith("Round"):
            quiet.append((title, n_moves))
            continue
        lines += _quiet(quiet)
        quiet = []
        if body or n_moves:
            lines.append(title)
            if n_moves:
                lines.append(f"  ({n_moves} move{'s' if n_moves > 1 else ''}, C-8.3)")
            lines += body
    lines += _quiet(quiet)
    lines.append(_summary(rep))
    return "\n".join(lines)


def _quiet(rounds: list[tuple[str, int]]) -> list[str]:
    """One line for rounds in a row in which units only moved."""
    if not rounds:
        return []
    first, last = rounds[0][0].split()[1], rounds[-1][0].split()[1]
    span = f"Round {first}" if first == last else f"Rounds {first}-{last}"
    return [f"{span}: {sum(m for _, m in rounds)} moves (C-8.3), no blow struck"]


def _summary(rep: Replay) -> str:
    extra = f", then {rep.extra_rounds} extra rounds (C-8.11)" if rep.extra_rounds else ""
    head = f"End: {_OUTCOME_WORDS[rep.outcome]} after {rep.rounds} rounds{extra}."
    rows = [
        f"  {r.unit} ×{r.count} ({r.side}): {r.alive} alive, {r.routed} routed"
        for r in rep.survivors.itertuples(index=False)
    ]
    return "\n".join([head, *rows])
