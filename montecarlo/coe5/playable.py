"""What today's battle plays of the game's data, and refusing the rest.

The unit model carries everything that RULES.md C-11 and C-12 map, but the
battle kernel does not play all of it yet.  A unit with such an attribute is
refused where it would enter a battle, a duel or a damage table, with an
:class:`~montecarlo.errors.InputError` that names the unit, the attribute and
the rule, instead of being played wrong.  The attributes that map onto the
kernel's own fields (hp, armor, strength checks, resistances, vulnerabilities,
ethereal, fast, immobile, regeneration, fear, the die, type, initiative,
range, reload, an, shieldneg, nostr, rangepen, prebattle) are played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from montecarlo.coe5.calls import CALLS
from montecarlo.errors import InputError

if TYPE_CHECKING:
    from montecarlo.coe5.units import Unit, Weapon

#: Calls that today's battle plays as it plays any weapon (C-11.3.2, C-11.3.6, C-11.3.7):
#: each round, melee or ranged by the call; ``prebatweapon`` before the battle (C-7.1).
PLAYED_CALLS = ("meleeweapon", "meleeweaponbonus", "rangedweapon", "prebatweapon")
#: Calls not played yet, with their rule.
CALL_RULES = {
    "meleeweaponspec": "C-11.3.5",
    "rangedweaponbonus": "C-11.3.4",
    "rangedweapon50": "C-11.3.4",
    "rangedweapon50s": "C-11.3.4",
    # Today's engine uses siege and assassin weapons in every round as well.
    "siegeweapon": "C-11.3.7",
    "assassinweapon": "C-11.3.7",
    "[meleeweaponsingle]": "C-11.3.8",
    "[rangedweaponsingle]": "C-11.3.8",
}
_TYPE_RULES = {"fear": "C-12.7", "affliction": "C-12.7", "sleep": "C-12.7"}
_FLAG_RULES = {
    "oneshot": "C-12.5.3",
    "soft": "C-12.3.1",
    "sweep": "C-12.3.4",
    "drain": "C-12.3.5",
    "scatter": "C-12.5.5",
    "flying2": "C-12.4",
}


def weapon_unplayed(w: Weapon) -> list[tuple[str, str]]:
    """(attribute, rule id) of what today's battle does not play in weapon ``w``."""
    out: list[tuple[str, str]] = []
    if w.call is not None:
        if w.call in CALL_RULES:
            out.append((f"call {w.call}", CALL_RULES[w.call]))
        elif CALLS.get(w.call, False) != (w.range > 1):
            # C-11.3.3: the call decides melee or ranged; the kernel goes by range.
            out.append((f"call {w.call} with range {w.range}", "C-11.3.3"))
    if w.type in _TYPE_RULES:
        out.append((f"damage type {w.type}", _TYPE_RULES[w.type]))
    if w.aoe not in (0, 1):
        out.append((f"area {w.aoe}", "C-12.2"))
    if w.trgrank not in (1, 9):
        out.append((f"target rank {w.trgrank}", "C-12.2.1"))
    out += [(flag, rule) for flag, rule in _FLAG_RULES.items() if getattr(w, flag)]
    out += [(check, "C-12.4") for check in w.checks]
    out += [(flag, "C-12.8") for flag in w.category_flags]
    if w.next is not None:
        out.append((f"chained strike {w.next.name}", "C-12.6"))
    return out


def unplayed(unit: Unit) -> list[tuple[str, str]]:
    """(attribute, rule id) of what today's battle does not play in ``unit``, weapons included."""
    out: list[tuple[str, str]] = []
    melee, ranged = unit.shields
    if melee != ranged:
        out.append((f"shield pair {melee}/{ranged}", "C-11.4.1"))
    if unit.flying:
        out.append(("flying", "C-11.5.3"))
    if unit.move_every > 1:
        out.append((f"moves every {unit.move_every} rounds", "C-11.5.3"))
    if unit.berserker:
        out.append(("berserker", "C-11.6.2"))
    if unit.miss_chance:
        out.append((f"{unit.miss_chance}% miss chance", "C-11.4.4"))
    if unit.airshield:
        out.append((f"airshield {unit.airshield}", "C-11.4.5"))
    out += [(f"{kind} aura {value}", "C-11.4.6") for kind, value in unit.aura.items()]
    if unit.affliction_resist:
        out.append((f"affres {unit.affliction_resist}", "C-11.4.7"))
    if unit.siege_tunneling and unit.tunnel_chance < 100:
        out.append((f"siegetunnel {unit.tunnel_chance}%", "C-11.5.5"))
    for w in unit.weapons:
        out += [(f"{w.name}: {what}", rule) for what, rule in weapon_unplayed(w)]
    return out


def _message(name: str, found: list[tuple[str, str]]) -> str:
    what, rule = found[0]
    more = (
        f" (and {len(found) - 1} more: {', '.join(a for a, _ in found[1:4])}"
        + (", ..." if len(found) > 4 else "")
        + ")"
        if len(found) > 1
        else ""
    )
    return f"{name}: {what} is not played yet (RULES.md {rule}){more}"


def refuse_unplayed(unit: Unit) -> None:
    """Raise :class:`InputError` if ``unit`` has an attribute the battle does not play yet."""
    found = unplayed(unit)
    if found:
        raise InputError(_message(unit.name, found))


def refuse_unplayed_weapon(weapon: Weapon, owner: str) -> None:
    """Raise :class:`InputError` if ``weapon`` has an attribute the battle does not play yet."""
    found = weapon_unplayed(weapon)
    if found:
        raise InputError(_message(f"{owner} {weapon.name}", found))


def deploy_key(unit: Unit) -> int:
    """C-11.5.2: the deployment key 2·rank − rearpos + frontpos."""
    return 2 * (unit.rank or 0) - int(unit.rearpos) + int(unit.frontpos)


def refuse_mixed_ranks(army: Sequence[tuple[Unit, int]]) -> None:
    """Refuse an army whose deployment by rank (C-11.5.2) differs from C-6's, not played yet.

    An army of units with ranks deploys as today's battle deploys it (C-6: melee
    in front, ranged behind) only when its ranked units share one deployment key
    and every unit of it is of one role (all melee or all ranged).
    """
    ranked = [u for u, _ in army if u.rank is not None]
    if not ranked:
        return
    keys = sorted({deploy_key(u) for u in ranked}, reverse=True)
    roles = {u.is_ranged for u, _ in army}
    if len(keys) > 1 or len(roles) > 1:
        names = ", ".join(
            f"{u.name} (key {deploy_key(u) if u.rank is not None else '-'}, "
            f"{'ranged' if u.is_ranged else 'melee'})"
            for u, _ in army
        )
        raise InputError(
            f"an army that mixes deployment ranks or roles ({names}): deployment by rank is "
            "not played yet (RULES.md C-11.5.2); give one rank and role per side"
        )
