"""Units as the toolkit's unit file (TOML, RULES.md C-10 and its C-11 notes).

The file is what :func:`montecarlo.coe5.units.load_units` reads: every field
that differs from its default, dice as the game rolls them (``1-15`` for the
Baron's d15, C-11.3.1) with ``strength_in_die = false`` (C-11.2.2), chained
strikes as ``[unit.weapons.next]`` tables and offers as ``[[unit.offers]]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from montecarlo.coe5.units import GAME_WEAPON_FLAGS, UNIT_FLAGS, WEAPON_FLAGS, Unit, Weapon

_UNIT_BOOLS = (
    "resist_blunt",
    "resist_pierce",
    "resist_slash",
    *UNIT_FLAGS,
    "rearpos",
    "frontpos",
    "flying",
    "berserker",
    "partial",
)
_UNIT_NUMBERS = ("fear", "size", "move_every", "miss_chance", "airshield", "affliction_resist")
_WEAPON_BOOLS = (
    "magic",
    *WEAPON_FLAGS,
    *GAME_WEAPON_FLAGS,
    "next_always",
)


def _s(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _list(values: Iterable) -> str:
    return "[" + ", ".join(_s(v) if isinstance(v, str) else str(v) for v in values) + "]"


def _die_text(size: int) -> str | int:
    """The die as the file writes it: ``"1-7"``, ``"1"``, or 0 (C-1.4: rolls 0)."""
    if size <= 0:
        return 0
    return "1" if size == 1 else f"1-{size}"


def _weapon(w: Weapon, size: int, table: str) -> list[str]:
    die = _die_text(size)
    out = [
        table,
        f"name = {_s(w.name)}",
        f"damage = {_s(die) if isinstance(die, str) else die}",
        f"type = {_s(w.type)}",
        f"initiative = {w.initiative}",
        f"range = {w.range}",
    ]
    if w.shots != 1:
        out.append(f"shots = {w.shots}")
    if w.reload:
        out.append(f"reload = {w.reload}")
    if w.call is not None:
        out.append(f"call = {_s(w.call)}")
    if w.trgrank != 1:
        out.append(f"trgrank = {w.trgrank}")
    if w.aoe:
        out.append(f"aoe = {w.aoe}")
    if w.effects:
        out.append(f"effects = {w.effects}")
    out += [f"{f} = true" for f in _WEAPON_BOOLS if getattr(w, f)]
    if w.checks:
        out.append(f"checks = {_list(w.checks)}")
    if w.category_flags:
        out.append(f"category_flags = {_list(w.category_flags)}")
    if w.next is not None:  # C-12.6.2: the chained die is stated exactly
        out += _weapon(w.next, w.next.damage.size, f"[{table.strip('[]')}.next]")
    return out


def unit_toml(u: Unit) -> str:
    """One ``[[unit]]`` table."""
    out = ["[[unit]]", f"name = {_s(u.name)}"]
    if u.game_name:
        out.append(f"game_name = {_s(u.game_name)}")
    if u.game_index is not None:
        out.append(f"game_index = {u.game_index}")
    out += [f"hp = {u.hp}", f"armor = {u.armor}", f"shield = {u.shield}"]
    if u.shield_ranged is not None and u.shield_ranged != u.shield:
        out.append(f"shield_ranged = {u.shield_ranged}")
    out += [f"mr = {u.mr}", f"morale = {u.morale}", f"strength = {u.strength}"]
    if not u.strength_in_die:
        out.append("strength_in_die = false")
    if u.rank is not None:
        out.append(f"rank = {u.rank}")
    if u.resist:
        out.append("resist = { " + ", ".join(f"{k} = {v}" for k, v in u.resist.items()) + " }")
    if u.vulnerable:
        out.append(f"vulnerable = {_list(u.vulnerable)}")
    out += [f"{f} = true" for f in _UNIT_BOOLS if getattr(u, f)]
    defaults = {"size": 1, "move_every": 1}
    out += [f"{f} = {getattr(u, f)}" for f in _UNIT_NUMBERS if getattr(u, f) != defaults.get(f, 0)]
    if u.siege_tunneling and u.tunnel_chance != 100:
        out.append(f"tunnel_chance = {u.tunnel_chance}")
    if u.aura:
        out.append("aura = { " + ", ".join(f"{k} = {v}" for k, v in u.aura.items()) + " }")
    if u.categories:
        out.append(f"categories = {_list(u.categories)}")
    if u.immune:
        out.append(f"immune = {_list(u.immune)}")
    if u.gold is not None:
        out.append(f"gold = {u.gold}")
    for w in u.weapons:
        out += _weapon(
            w, u.rolled_die(w) if not u.strength_in_die else w.damage.size, "[[unit.weapons]]"
        )
    for o in u.offers:
        out += [
            "[[unit.offers]]",
            f"class = {o.class_id}",
            f"class_name = {_s(o.class_name)}",
            f"kind = {_s(o.kind)}",
            f"chance = {o.chance}",
            f"count = {o.count}",
            f"gold = {o.gold}",
            f"gold_die = {o.gold_die}",
            f"iron = {o.iron}",
        ]
        if o.terrain is not None:
            out.append(f"terrain = {o.terrain}")
        if o.limiters:
            out.append(f"limiters = {_list(o.limiters)}")
        if o.modifiers:
            out.append(f"modifiers = {_list(o.modifiers)}")
        if o.extra_cost:
            out.append("extra_cost = [" + ", ".join(f"[{a}, {b}]" for a, b in o.extra_cost) + "]")
    return "\n".join(out) + "\n"


def roster_toml(units: Sequence[Unit], header: Sequence[str] = ()) -> str:
    """The unit file: a comment header, then one table per unit."""
    lines = [f"# {h}" if h else "#" for h in header]
    body = "\n".join(unit_toml(u) for u in units)
    return ("\n".join(lines) + "\n\n" if lines else "") + body
