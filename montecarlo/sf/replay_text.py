"""The readable round-by-round account of a replayed SF fight (:meth:`FightReplay.text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from montecarlo.sf.fight_replay import FightReplay

_OUTCOME_WORDS = {"a-wins": "party A wins", "b-wins": "party B wins", "draw": "a draw"}
_LINES = ("front", "back")


def _attack(row) -> str:
    how = "shoots" if row.ranged else "strikes"
    head = f"{row.actor} {how} {row.target} with {row.weapon}"
    if row.opportunity:
        head = ("opportunity attack in turn (S-5): " if row.chained
                else "opportunity attack (S-5): ") + head  # fmt: skip
    if row.shot:
        head += f" ({row.shot}" + ("; the d6 picks an ally: friendly fire" if row.friendly_fire
                                   else "") + ", S-6)"  # fmt: skip
    check = (
        f"2d6 {row.hit_roll} + {row.hit_value} = {row.hit_roll + row.hit_value} vs "
        f"{row.evade_roll} + {row.evade_value} = {row.evade_roll + row.evade_value}"
    )
    notes = [
        text
        for flag, text in (
            (row.dramatic, "dramatic success"),
            (row.attacker_fumble, "attacker fumbles"),
            (row.dramatic_evade, "dramatic evade"),
            (row.defender_fumble, "defender fumbles: armour ignored"),
        )
        if flag
    ]
    verdict = "hit" if row.hit else "miss"
    if notes:
        verdict += " (" + ", ".join(notes) + ")"
    if row.hit and row.trip:
        return f"{head}: {check}: {verdict}, a trip (S-9)"
    if row.hit:
        return (
            f"{head}: {check}: {verdict} → {row.damage} {row.damage_kind} "
            f"(injury {row.injury}, fatigue {row.fatigue})"
        )
    return f"{head}: {check}: {verdict}"


def _line(row) -> str | None:
    kind = row.kind
    if kind == "attack":
        return _attack(row)
    if kind == "turn":
        if row.action == "catch breath":
            return f"{row.actor} catches its breath: -{row.recovered} fatigue (S-4)"
        if row.action in ("take cover", "remove line of fire", "secure line of fire"):
            return f"{row.actor}: {row.action} (S-6)"
        if row.action == "finishing blow":
            return f"{row.actor} strikes a finishing blow (S-4)"
        if row.action == "hold fire":
            return f"{row.actor} holds its fire: its only shot is into a melee with allies (S-6)"
        return None  # its attack, spell or step says it
    if kind == "cast":
        where = "everyone in the area" if row.line < 0 else f"the {_LINES[int(row.line)]} line"
        return f"{row.actor} casts {row.weapon} at {where}: strength {row.strength} (S-7)"
    if kind == "cast failed":
        why = (f"the opportunity attacks dealt it {row.damage} damage" if row.damage
               else "the opportunity attacks put it out of the fight")  # fmt: skip
        return f"{row.actor} tried to cast {row.weapon}, but {why}: the spell fails (S-5)"
    if kind == "save":
        verdict = "saves" if row.save_ok else "fails"
        hurt = f" → {row.damage} {row.damage_kind}" if row.damage else ""
        return f"  {row.target}: save {row.save} vs {row.strength_of}: {verdict}{hurt}"
    if kind == "move":
        if row.line == row.to_line and row.end == row.to_end:
            return f"{row.target} takes cover (S-6)" if row.cover else None
        return (
            f"{row.target} moves from the {_LINES[int(row.line)]} to the "
            f"{_LINES[int(row.to_line)]} line"
        )
    if kind == "status":
        return f"  {row.target} is {row.status}"
    return None


def account(rep: FightReplay) -> str:
    """Every event of ``rep`` in words, grouped by round."""
    setting = f"{rep.options['battlefield']}: {rep.options['battlefield_meaning']}"
    lines = [f"Fight {rep.fight} of seed {rep.seed}, {setting}"]
    ev = rep.events.copy()
    ev["strength_of"] = ev["strength"].ffill() if "strength" in ev else 0  # a save's spell
    for col in ("shot", "weapon", "action", "recovered", "chained"):
        if col not in ev:
            ev[col] = ""
    for row in ev.itertuples(index=False):
        if row.kind == "round":
            lines.append(f"Round {row.round}")
            continue
        text = _line(row)
        if text is not None:
            lines.append("  " + text)
    lines.append(f"End: {_OUTCOME_WORDS[rep.outcome]} after {rep.rounds} rounds.")
    for c in rep.characters.itertuples(index=False):
        lines.append(f"  {c.name}: {c.state}, injury {c.injury}, fatigue {c.fatigue}")
    if rep.options.get("roster_note"):
        lines.append(rep.options["roster_note"])
    return "\n".join(lines)
