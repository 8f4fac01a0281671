"""CoE5 units and weapons (RULES.md C-10), loaded and validated from TOML.

The shipped roster is ``montecarlo/data/coe5_units.toml``.  A user file is
merged over it: a unit with the same name (any case) replaces the shipped one.
Validation stops at the first problem and names the file, the unit, the field
and what was expected; a failed load changes nothing.

Units read from the game's own files (RULES.md C-11 to C-13, ``montecarlo
import-c5m``) carry more: a shield pair, categories, a rank, a call kind per
weapon and their recruitment offers (C-10's notes).  They are
:class:`GameUnit` and :class:`GameWeapon`, subclasses with those fields; the
toolkit's own units stay :class:`Unit` and :class:`Weapon`, whose records are
as they were, and a file without the new fields loads as before.  What the
battle does not play yet is refused where a unit enters one
(:mod:`montecarlo.coe5.playable`), never played wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from montecarlo.coe5.calls import CALLS
from montecarlo.coe5.dice import Die, parse_die
from montecarlo.coe5.offers import OFFER_KINDS, Offer, price
from montecarlo.errors import DataError, InputError, UnknownName
from montecarlo.validation import FieldChecker, describe, toml_tables

#: Damage types (C-4); their order is the kernels' type code.
DAMAGE_TYPES = (
    "blunt",
    "pierce",
    "slash",
    "fire",
    "cold",
    "shock",
    "poison",
    "acid",
    "magic",
    "decay",
    "paralysis",
)
PHYSICAL = ("blunt", "pierce", "slash")
#: Types a unit can be vulnerable to (C-3 step 2).
VULNERABLE_TYPES = ("fire", "cold", "shock", "poison")
#: Types with a percentage resistance (C-3 step 7).
PERCENT_RESIST = ("fire", "cold", "shock", "poison", "acid")
#: Types that do no direct damage (C-4.9).
EFFECT_ONLY = ("paralysis",)

#: Boolean unit abilities (C-10); packing maps each to a kernel flag bit.
UNIT_FLAGS = (
    "ethereal",
    "fast",
    "immobile",
    "regeneration",
    "decay",
    "siege_tunneling",
    "combat_burrowing",
)

WEAPON_FLAGS = (
    "an",
    "shieldneg",
    "nostr",
    "rangepen",
    "assassin",
    "prebattle",
    "siege",
    "wand",
    "cloud",
)

# -- what units of the game's data carry (C-11, C-12) ----------------------------
#: Damage types of the game's data that the battle does not play yet (C-12.7).
GAME_TYPES = ("fear", "affliction", "sleep")
#: Checks that let a target resist a weapon (C-12.4), by the game's flag names.
WEAPON_CHECKS = ("easymr", "mr", "hardmr", "strresist", "morale", "hardmorale")
#: Weapon flags that test the target's category (C-12.8), by the game's names.
CATEGORY_FLAGS = (
    "mind",
    "inanimate",
    "undead",
    "ethereal",
    "flying",
    "drown",
    "stone",
    "large",
    "huge",
    "noimmobile",
    "affecthuman",
    "affectanimal",
    "affectundead",
    "onlyenemy",
    "onlyfriend",
    "undkill",
    "holykill",
    "stonekill",
    "firekill",
)
#: Unit categories that weapon flags test (C-11.7); flying is a field of its own.
CATEGORIES = (
    "human",
    "undead",
    "demonic",
    "animal",
    "inanimate",
    "stonebeing",
    "water",
    "float",
    "firebeing",
)
#: Effects a unit may be immune to (C-11.4.2).
IMMUNITIES = ("sleep", "charm", "disease")
#: Auras that strike melee attackers (C-11.4.6).
AURA_TYPES = ("cold", "fire", "shock")
#: Boolean weapon attributes of the game's data (C-12).
GAME_WEAPON_FLAGS = ("oneshot", "soft", "sweep", "drain", "scatter", "flying2", "arrow")


@dataclass(frozen=True)
class Weapon:
    """One weapon: each weapon of a unit is one attack per round (C-8.6).

    Attributes
    ----------
    name : str
    damage : Die
        Damage value such as ``1-5``; the owner's strength is added unless ``nostr``.
    type : str
        One of :data:`DAMAGE_TYPES`.
    magic : bool
        Magic damage ignores the ethereal 75% miss (C-3.9).
    initiative : int
        Higher strikes first (C-8.6).
    range : int
        1 for melee, more for missiles (C-5).
    shots : int
        Shots per round (C-5.2).
    reload : int
        Fires once every ``reload + 1`` rounds (C-5.2).
    an, shieldneg, nostr, rangepen, assassin, prebattle, siege, wand, cloud : bool
        Weapon flags (C-10).

    The attributes of the game's data (C-11, C-12) are fields of
    :class:`GameWeapon`; here they are class attributes with the values that
    mean "none", so a toolkit weapon's record is as it always was.
    """

    name: str
    damage: Die
    type: str = "blunt"
    magic: bool = False
    initiative: int = 3
    range: int = 1
    shots: int = 1
    reload: int = 0
    an: bool = False
    shieldneg: bool = False
    nostr: bool = False
    rangepen: bool = False
    assassin: bool = False
    prebattle: bool = False
    siege: bool = False
    wand: bool = False
    cloud: bool = False
    # The game's attributes, as a toolkit weapon has them (see GameWeapon).
    call = None
    trgrank = 1
    aoe = 0
    oneshot = soft = sweep = drain = scatter = flying2 = arrow = False
    checks = ()
    category_flags = ()
    effects = 0
    next = None
    next_always = False

    @property
    def is_ranged(self) -> bool:
        """True for missile weapons: a ranged call (C-11.3.3), else a range above 1."""
        if self.call is not None:
            return CALLS.get(self.call, False)
        return self.range > 1

    @property
    def is_magic(self) -> bool:
        """True when the damage is magic (the flag, or the pure magic type)."""
        return self.magic or self.type == "magic"

    def flags(self) -> list[str]:
        """Names of the flags that are set."""
        out = [f for f in WEAPON_FLAGS if getattr(self, f)] + (["magic"] if self.magic else [])
        out += [f for f in GAME_WEAPON_FLAGS if getattr(self, f)]
        return out + list(self.checks) + list(self.category_flags)


@dataclass(frozen=True)
class GameWeapon(Weapon):
    """A weapon read from the game's data (``montecarlo import-c5m``, C-11, C-12).

    Attributes
    ----------
    call : str or None
        The game's call that gave the weapon (C-11.3), e.g. ``"meleeweaponspec"``;
        it decides melee or ranged (C-11.3.3).  None for a chained strike.
    trgrank : int
        The game's target rank (C-12.2.1): 1 front enemy, 9 any enemy.
    aoe : int
        The game's area code (C-12.2): 0 or 1 one target, more a burst, cone or chain.
    oneshot, soft, sweep, drain, scatter, flying2, arrow : bool
        Attributes of the game's data (C-12.3 to C-12.5).
    checks : tuple of str
        Checks that resist it (C-12.4): any of :data:`WEAPON_CHECKS`.
    category_flags : tuple of str
        Flags that test the target's category (C-12.8): any of :data:`CATEGORY_FLAGS`.
    effects : int
        The affliction bitmask of an ``affliction`` weapon (C-12.7).
    next : Weapon or None
        The chained strike (C-12.6); its die is stated exactly (C-12.6.2).
    next_always : bool
        The chain follows any hit (``nextalwayswep``), not only a wound (``nextwep``).
    """

    call: str | None = None
    trgrank: int = 1
    aoe: int = 0
    oneshot: bool = False
    soft: bool = False
    sweep: bool = False
    drain: bool = False
    scatter: bool = False
    flying2: bool = False
    arrow: bool = False
    checks: tuple[str, ...] = ()
    category_flags: tuple[str, ...] = ()
    effects: int = 0
    next: Weapon | None = None
    next_always: bool = False


@dataclass(frozen=True)
class Unit:
    """A CoE5 unit (C-10).  Immutable; compare and hash by value.

    ``resist`` maps fire/cold/shock/poison/acid to a percentage; the physical
    flags ``resist_blunt`` etc. mean 50% (C-3 step 7).

    The attributes of the game's data (C-11) are fields of :class:`GameUnit`;
    here they are class attributes with the values that mean "none", so a
    toolkit unit's record is as it always was.
    """

    name: str
    hp: int
    weapons: tuple[Weapon, ...]
    armor: int = 0
    shield: int = 0
    mr: int = 5
    morale: int = 10
    strength: int = 0
    resist: Mapping[str, int] = field(default_factory=dict)
    resist_blunt: bool = False
    resist_pierce: bool = False
    resist_slash: bool = False
    vulnerable: tuple[str, ...] = ()
    ethereal: bool = False
    fast: bool = False
    immobile: bool = False
    regeneration: bool = False
    decay: bool = False
    fear: int = 0
    siege_tunneling: bool = False
    combat_burrowing: bool = False
    gold: int | None = None
    description: str = ""
    # The game's attributes, as a toolkit unit has them (see GameUnit).
    game_name = ""
    game_index = None
    strength_in_die = True
    shield_ranged = None
    categories = ()
    immune = ()
    rank = None
    rearpos = frontpos = flying = berserker = partial = False
    size = move_every = 1
    miss_chance = airshield = affliction_resist = 0
    aura = MappingProxyType({})
    tunnel_chance = 100
    offers = ()

    def __hash__(self) -> int:
        return hash((self.name, self.hp, self.weapons))

    def resistance(self, damage_type: str) -> int:
        """Percentage by which damage of ``damage_type`` is reduced (C-3 step 7)."""
        if damage_type in PHYSICAL:
            return 50 if getattr(self, f"resist_{damage_type}") else 0
        return int(self.resist.get(damage_type, 0))

    def weapon(self, name: str) -> Weapon:
        """The weapon called ``name`` (any case)."""
        for w in self.weapons:
            if w.name.lower() == name.lower():
                return w
        known = ", ".join(w.name for w in self.weapons)
        raise InputError(f"{self.name} has no weapon {name!r}; it has: {known}")

    @property
    def is_ranged(self) -> bool:
        """Units with any missile weapon deploy behind the melee line (C-6)."""
        return any(w.is_ranged for w in self.weapons)

    @property
    def shields(self) -> tuple[int, int]:
        """(against melee, against ranged) attacks (C-11.4.1); one value for the toolkit's units."""
        return self.shield, self.shield if self.shield_ranged is None else self.shield_ranged

    @property
    def label(self) -> str:
        """The name, with ``*`` for a unit imported without some of its commands (C-13)."""
        return f"{self.name}*" if self.partial else self.name

    def rolled_die(self, weapon: Weapon) -> int:
        """The OED size ``weapon`` rolls at the unit's own strength (C-1.5, C-11.2.2)."""
        return weapon.damage.size + (0 if weapon.nostr else self.strength)

    def price(
        self, class_: int | str | None = None, cost_with_die: bool = False
    ) -> tuple[Fraction | None, Fraction | None]:
        """(gold, iron) per unit from its offers, exact; (None, None) if unknown (C-11.8.2)."""
        return price(self.offers, class_, cost_with_die)

    def unplayed(self) -> list[tuple[str, str]]:
        """(attribute, rule id) of everything the battle does not play yet; empty if none."""
        from montecarlo.coe5.playable import unplayed

        return unplayed(self)

    def abilities(self) -> list[str]:
        """Short labels of the unit's special abilities, for tables."""
        out = [f for f in UNIT_FLAGS if getattr(self, f)]
        if self.fear:
            out.append(f"fear {self.fear}")
        out += [f"res {t} {v}%" for t, v in self.resist.items() if v]
        out += [f"res {t}" for t in PHYSICAL if getattr(self, f"resist_{t}")]
        out += [f"vuln {t}" for t in self.vulnerable]
        if self.shield_ranged is not None and self.shield_ranged != self.shield:
            out.append(f"shield {self.shield}/{self.shield_ranged}")
        out += list(self.categories) + [f"immune {t}" for t in self.immune]
        flags = ("flying", "berserker", "rearpos", "frontpos")
        out += [f for f in flags if getattr(self, f)]
        numbers = {
            "miss": self.miss_chance,
            "airshield": self.airshield,
            "affres": self.affliction_resist,
        }
        out += [f"{k} {v}%" for k, v in numbers.items() if v]
        out += [f"{t} aura {v}" for t, v in self.aura.items()]
        if self.size > 1:
            out.append(f"size {self.size}")
        if self.move_every > 1:
            out.append(f"moves every {self.move_every} rounds")
        if self.siege_tunneling and self.tunnel_chance < 100:
            out.append(f"tunnels {self.tunnel_chance}%")
        return out


@dataclass(frozen=True)
class GameUnit(Unit):
    """A unit read from the game's data (``montecarlo import-c5m``, RULES.md C-11).

    ``strength_in_die=False`` marks a unit whose listed dice already hold the
    game's bonus (C-11.2.2): each weapon's :attr:`Weapon.damage` is stored less
    the unit's strength, so the die rolled (damage + strength, C-1.5) is the
    game's die, and strength changes in a battle move it (C-11.2.3).

    Attributes
    ----------
    game_name, game_index : str, int
        The game's name and index (a repeated name is written ``Name#index``).
    shield_ranged : int or None
        The shield against ranged attacks; ``shield`` is the one against melee (C-11.4.1).
    categories, immune : tuple of str
        Categories that weapon flags test (C-11.7); effects it is immune to (C-11.4.2).
    rank, rearpos, frontpos : int, bool, bool
        Deployment rank and its shifts (C-11.5.1).
    size, flying, move_every : int, bool, int
        Squares per side (C-11.5.4); flying and ``battleslow2`` (C-11.5.3).
    berserker, miss_chance, airshield, aura, affliction_resist, tunnel_chance
        C-11.6.2, C-11.4.4, C-11.4.5, C-11.4.6, C-11.4.7 and C-11.5.5.
    partial : bool
        Imported without some of its commands (``on_unsupported="drop"``, C-13).
    offers : tuple of Offer
        Its recruitment offers (C-11.8).
    """

    game_name: str = ""
    game_index: int | None = None
    strength_in_die: bool = True
    shield_ranged: int | None = None
    categories: tuple[str, ...] = ()
    immune: tuple[str, ...] = ()
    rank: int | None = None
    rearpos: bool = False
    frontpos: bool = False
    size: int = 1
    flying: bool = False
    move_every: int = 1
    berserker: bool = False
    miss_chance: int = 0
    airshield: int = 0
    aura: Mapping[str, int] = field(default_factory=dict)
    affliction_resist: int = 0
    tunnel_chance: int = 100
    partial: bool = False
    offers: tuple[Offer, ...] = ()

    __hash__ = Unit.__hash__


# -- validation ---------------------------------------------------------------
_UNIT_INT_FIELDS = {  # field: (minimum, maximum)
    "hp": (1, 100_000),
    "armor": (0, 100),
    "shield": (0, 20),
    "mr": (0, 100),
    "morale": (0, 99),
    "strength": (-20, 100),
    "fear": (0, 10),
    "gold": (0, 1_000_000),
}
_UNIT_BOOL_FIELDS = ("resist_blunt", "resist_pierce", "resist_slash", *UNIT_FLAGS)
_WEAPON_INT_FIELDS = {"initiative": (0, 20), "range": (1, 100), "shots": (1, 20), "reload": (0, 20)}
_WEAPON_BOOL_FIELDS = ("magic", *WEAPON_FLAGS)
# The game's data (C-11, C-12): fields of units and weapons read by import-c5m.
_GAME_UNIT_INT_FIELDS = {
    "game_index": (0, 1_000_000),
    "shield_ranged": (0, 20),
    "rank": (-1, 1),
    "size": (1, 3),
    "move_every": (1, 10),
    "miss_chance": (0, 100),
    "airshield": (0, 100),
    "affliction_resist": (0, 100),
    "tunnel_chance": (0, 100),
}
_GAME_UNIT_BOOL_FIELDS = (
    "strength_in_die",
    "rearpos",
    "frontpos",
    "flying",
    "berserker",
    "partial",
)
_GAME_UNIT_LISTS = {"categories": CATEGORIES, "immune": IMMUNITIES}
_GAME_WEAPON_INT_FIELDS = {"trgrank": (-9, 9), "aoe": (-1000, 99_999), "effects": (0, 2**63 - 1)}
_GAME_WEAPON_BOOL_FIELDS = (*GAME_WEAPON_FLAGS, "next_always")
_GAME_WEAPON_LISTS = {"checks": WEAPON_CHECKS, "category_flags": CATEGORY_FLAGS}
_OFFER_INT_FIELDS = {
    "class": (-1, 1_000_000),
    "chance": (-1, 1000),
    "count": (1, 1000),
    "gold": (0, 1_000_000),
    "gold_die": (0, 1_000_000),
    "iron": (0, 1_000_000),
    "terrain": (-1_000_000, 1_000_000),
}


def _string_list(
    check: FieldChecker,
    data: Mapping[str, Any],
    key: str,
    options: tuple[str, ...],
    prefix: str = "",
) -> tuple[str, ...]:
    """A list of strings, each one of ``options``."""
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise check.fail(prefix + key, f"expected a list of strings, got {describe(value)}")
    for v in value:
        if v not in options:
            raise check.fail(
                prefix + key, f"unknown value {v!r}; expected any of: {', '.join(options)}"
            )
    return tuple(value)


def _parse_offer(check: FieldChecker, data: Any, index: int) -> Offer:
    prefix = f"offers[{index}]."
    if not isinstance(data, Mapping):
        raise check.fail(f"offers[{index}]", f"expected a table, got {describe(data)}")
    check.unknown(
        data,
        ["class_name", "kind", "limiters", "extra_cost", "modifiers", *_OFFER_INT_FIELDS],
        prefix,
    )
    check.require(data, ["class", "kind", "chance", "count", "gold"], prefix)
    kwargs: dict[str, Any] = {}
    for key, (lo, hi) in _OFFER_INT_FIELDS.items():
        if key in data:
            kwargs["class_id" if key == "class" else key] = check.int_(data, key, lo, hi, prefix)
    kwargs["kind"] = check.choice(data, "kind", OFFER_KINDS.values(), prefix)
    name = check.str_(data, "class_name", prefix) if "class_name" in data else ""
    kwargs["class_name"] = name or f"class {kwargs['class_id']}"
    for key in ("limiters", "modifiers"):
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise check.fail(prefix + key, f"expected a list of strings, got {describe(value)}")
            kwargs[key] = tuple(value)
    if "extra_cost" in data:
        pairs = data["extra_cost"]
        ok = isinstance(pairs, list) and all(
            isinstance(p, list) and len(p) == 2 and all(type(v) is int for v in p) for p in pairs
        )
        if not ok:
            raise check.fail(
                prefix + "extra_cost",
                "expected a list of [resource, amount] pairs "
                f"of whole numbers, got {describe(pairs)}",
            )
        kwargs["extra_cost"] = tuple((p[0], p[1]) for p in pairs)
    return Offer(**kwargs)


def _parse_weapon(check: FieldChecker, data: Any, index: int | str, game: bool = False) -> Weapon:
    """One weapon table; ``game``: a chained strike, always a :class:`GameWeapon` (C-12.6)."""
    where = f"weapons[{index}]" if isinstance(index, int) else index
    prefix = where + "."
    if not isinstance(data, Mapping):
        raise check.fail(where, f"expected a table, got {describe(data)}")
    check.unknown(
        data,
        [
            "name",
            "damage",
            "type",
            *_WEAPON_INT_FIELDS,
            *_WEAPON_BOOL_FIELDS,
            "call",
            "next",
            *_GAME_WEAPON_INT_FIELDS,
            *_GAME_WEAPON_BOOL_FIELDS,
            *_GAME_WEAPON_LISTS,
        ],
        prefix,
    )
    for required in ("name", "damage"):
        if required not in data:
            raise check.fail(prefix + required, "missing required field")
    kwargs: dict[str, Any] = {"name": check.str_(data, "name", prefix)}
    raw_damage = data["damage"]
    if isinstance(raw_damage, bool) or not isinstance(raw_damage, str | int):
        raise check.fail(
            prefix + "damage", f"expected a damage die like '1-5', got {describe(raw_damage)}"
        )
    try:
        kwargs["damage"] = parse_die(raw_damage)
    except InputError as exc:
        raise check.fail(prefix + "damage", str(exc)) from None
    if "type" in data:
        dtype = check.str_(data, "type", prefix).lower()
        if dtype not in DAMAGE_TYPES + GAME_TYPES:
            raise check.fail(
                prefix + "type",
                f"unknown damage type {dtype!r}; expected one of: "
                f"{', '.join(DAMAGE_TYPES + GAME_TYPES)}",
            )
        kwargs["type"] = dtype
    for key, (lo, hi) in (_WEAPON_INT_FIELDS | _GAME_WEAPON_INT_FIELDS).items():
        if key in data:
            kwargs[key] = check.int_(data, key, lo, hi, prefix)
    for key in (*_WEAPON_BOOL_FIELDS, *_GAME_WEAPON_BOOL_FIELDS):
        if key in data:
            kwargs[key] = check.bool_(data, key, prefix)
    for key, options in _GAME_WEAPON_LISTS.items():
        if key in data:
            kwargs[key] = _string_list(check, data, key, options, prefix)
    if "call" in data:
        kwargs["call"] = check.choice(data, "call", CALLS, prefix)
    if "next" in data:
        kwargs["next"] = _parse_weapon(check, data["next"], prefix + "next", game=True)
    keys = (
        "call",
        "next",
        *_GAME_WEAPON_INT_FIELDS,
        *_GAME_WEAPON_BOOL_FIELDS,
        *_GAME_WEAPON_LISTS,
    )
    return (GameWeapon if game or any(k in data for k in keys) else Weapon)(**kwargs)


def _strength_in_die(weapons: tuple[Weapon, ...], strength: int) -> tuple[Weapon, ...]:
    """C-11.2.2: store each listed (game) die less the strength that C-1.5 adds back."""
    return tuple(
        w if w.nostr else replace(w, damage=Die(w.damage.base, w.damage.bonus - strength))
        for w in weapons
    )


def _parse_unit(file: str, data: Any, index: int) -> Unit:
    entry = f"unit #{index + 1}"
    if isinstance(data, Mapping) and isinstance(data.get("name"), str):
        entry = f"unit {data['name']!r}"
    check = FieldChecker(file, entry)
    if not isinstance(data, Mapping):
        raise check.fail("", f"expected a table, got {describe(data)}")
    allowed = [
        "name",
        "weapons",
        "resist",
        "vulnerable",
        "description",
        *_UNIT_INT_FIELDS,
        *_UNIT_BOOL_FIELDS,
        "game_name",
        "aura",
        "offers",
        *_GAME_UNIT_INT_FIELDS,
        *_GAME_UNIT_BOOL_FIELDS,
        *_GAME_UNIT_LISTS,
    ]
    check.unknown(data, allowed)
    for required in ("name", "hp"):
        if required not in data:
            raise check.fail(required, "missing required field")
    kwargs: dict[str, Any] = {"name": check.str_(data, "name")}
    for key, (lo, hi) in _UNIT_INT_FIELDS.items():
        if key in data:
            kwargs[key] = check.int_(data, key, lo, hi)
    for key in _UNIT_BOOL_FIELDS:
        if key in data:
            kwargs[key] = check.bool_(data, key)
    if "description" in data:
        kwargs["description"] = check.str_(data, "description")
    resist = data.get("resist", {})
    if not isinstance(resist, Mapping):
        raise check.fail("resist", f"expected a table like {{fire = 50}}, got {describe(resist)}")
    for key in resist:
        if key not in PERCENT_RESIST:
            raise check.fail(
                f"resist.{key}",
                f"unknown resistance; expected one of: {', '.join(PERCENT_RESIST)} "
                "(physical resistances are the flags resist_blunt/resist_pierce/resist_slash)",
            )
        check.int_(resist, key, 0, 100, "resist.")
    kwargs["resist"] = dict(resist)
    vulnerable = data.get("vulnerable", [])
    if not isinstance(vulnerable, list) or not all(isinstance(v, str) for v in vulnerable):
        raise check.fail("vulnerable", f"expected a list of strings, got {describe(vulnerable)}")
    for v in vulnerable:
        if v not in VULNERABLE_TYPES:
            raise check.fail(
                "vulnerable",
                f"unknown vulnerability {v!r}; expected any of: {', '.join(VULNERABLE_TYPES)}",
            )
    kwargs["vulnerable"] = tuple(vulnerable)
    weapons = data.get("weapons")
    if not isinstance(weapons, list) or not weapons:
        raise check.fail("weapons", "a unit needs at least one weapon ([[unit.weapons]] table)")
    kwargs["weapons"] = tuple(_parse_weapon(check, w, i) for i, w in enumerate(weapons))
    names = [w.name.lower() for w in kwargs["weapons"]]
    if len(set(names)) != len(names):
        raise check.fail("weapons", "two weapons share a name; weapon names must be unique")
    game = _parse_game_fields(check, data)
    if not game:
        return Unit(**kwargs)
    if not game.get("strength_in_die", True):
        kwargs["weapons"] = _strength_in_die(kwargs["weapons"], kwargs.get("strength", 0))
    return GameUnit(**kwargs, **game)


def _parse_game_fields(check: FieldChecker, data: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a :class:`GameUnit` that ``data`` gives (C-11); empty for a toolkit unit."""
    kwargs: dict[str, Any] = {}
    if "game_name" in data:
        kwargs["game_name"] = check.str_(data, "game_name")
    for key, (lo, hi) in _GAME_UNIT_INT_FIELDS.items():
        if key in data:
            kwargs[key] = check.int_(data, key, lo, hi)
    for key in _GAME_UNIT_BOOL_FIELDS:
        if key in data:
            kwargs[key] = check.bool_(data, key)
    for key, options in _GAME_UNIT_LISTS.items():
        if key in data:
            kwargs[key] = _string_list(check, data, key, options)
    aura = data.get("aura", {})
    if not isinstance(aura, Mapping):
        raise check.fail("aura", f"expected a table like {{cold = 2}}, got {describe(aura)}")
    if "aura" in data:
        kwargs["aura"] = dict(aura)
    for key in aura:
        if key not in AURA_TYPES:
            raise check.fail(
                f"aura.{key}", f"unknown aura; expected one of: {', '.join(AURA_TYPES)}"
            )
        check.int_(aura, key, 1, 100, "aura.")
    if "offers" in data:
        offers = data["offers"]
        if not isinstance(offers, list):
            raise check.fail("offers", f"expected [[unit.offers]] tables, got {describe(offers)}")
        kwargs["offers"] = tuple(_parse_offer(check, o, i) for i, o in enumerate(offers))
    return kwargs


def parse_roster(text: str, file: str = "<string>") -> dict[str, Unit]:
    """Parse and validate a roster from TOML text; keys are lower-case names."""
    entries = toml_tables(text, file, "unit")
    roster: dict[str, Unit] = {}
    for i, entry in enumerate(entries):
        unit = _parse_unit(file, entry, i)
        key = unit.name.lower()
        if key in roster:
            raise DataError(
                file, f"unit {unit.name!r}", "name", "duplicate unit name (names ignore case)"
            )
        roster[key] = unit
    return roster


def _shipped_text() -> str:
    return resources.files("montecarlo.data").joinpath("coe5_units.toml").read_text("utf-8")


#: Most names an unknown-name message lists.
MAX_LISTED = 40


class Roster(Mapping[str, Unit]):
    """Units by name, looked up ignoring case.

    Iterating yields the lower-case keys; :meth:`units` yields the units.
    """

    def __init__(self, units: Mapping[str, Unit], sources: tuple[str, ...]) -> None:
        self._units = dict(units)
        self.sources = sources
        # C-11.1.2: a game name that several monsters share ("Longdead", written
        # "Longdead#300", ...) names the first of them, as the game's offers do.
        self._aliases: dict[str, Unit] = {}
        for unit in sorted(self._units.values(), key=lambda u: u.game_index or 0):
            key = unit.game_name.lower()
            if key and key not in self._units and key not in self._aliases:
                self._aliases[key] = unit

    def __getitem__(self, name: str) -> Unit:
        if not isinstance(name, str):
            raise InputError(f"a unit name must be a string, got {name!r}")
        key = name.strip().lower()
        if key in self._aliases:
            return self._aliases[key]
        try:
            return self._units[key]
        except KeyError:
            close = [u.name for k, u in self._units.items() if name.lower()[:3] in k]
            hint = f" Did you mean: {', '.join(close[:MAX_LISTED])}?" if close else ""
            if len(self._units) <= MAX_LISTED:
                known = f"Known units: {', '.join(u.name for u in self._units.values())}"
            else:  # an imported roster holds well over a thousand
                known = (
                    f"The roster holds {len(self._units):,} units; "
                    "'montecarlo units --search TEXT' finds them"
                )
            raise UnknownName(f"unknown unit {name!r}.{hint} {known}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._units)

    def __len__(self) -> int:
        return len(self._units)

    def units(self) -> list[Unit]:
        """All units, in file order."""
        return list(self._units.values())


def load_units(path: str | Path | None = None) -> Roster:
    """Load the shipped CoE5 roster, with a user's TOML file merged over it.

    Parameters
    ----------
    path : str or Path, optional
        A roster file in the same format.  Its units are added, replacing
        shipped units of the same name.

    Raises
    ------
    DataError
        Naming the file, the unit, the field and what was expected.
    """
    units = parse_roster(_shipped_text(), "montecarlo/data/coe5_units.toml")
    sources = ("shipped",)
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"roster file not found: {p}")
        user = parse_roster(p.read_text("utf-8"), str(p))
        units = {**units, **user}  # built fresh: the shipped roster is never mutated
        sources = (*sources, str(p))
    return Roster(units, sources)


_DEFAULT: Roster | None = None


def default_roster() -> Roster:
    """The shipped roster, parsed once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_units()
    return _DEFAULT


def resolve_unit(unit: Unit | str, roster: Roster | None = None) -> Unit:
    """A :class:`Unit` given itself or a name (any case), ready to be played.

    Raises
    ------
    InputError
        For a unit with an attribute that the battle does not play yet
        (:func:`montecarlo.coe5.playable.refuse_unplayed`).
    """
    from montecarlo.coe5.playable import refuse_unplayed

    found = unit if isinstance(unit, Unit) else (roster or default_roster())[unit]
    refuse_unplayed(found)
    return found


def resolve_weapon(
    spec: Weapon | Unit | str | tuple[Unit, Weapon], roster: Roster | None = None
) -> list[tuple[Unit | None, Weapon]]:
    """Weapons named by ``spec``, each with its owner (None for a bare Weapon).

    ``spec`` is a Weapon, a ``(Unit, Weapon)`` pair, a Unit or unit name (all
    its weapons), or ``"unit.weapon"`` (that weapon).
    """
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], Weapon):
        return [(resolve_unit(spec[0], roster), spec[1])]
    if isinstance(spec, Weapon):
        from montecarlo.coe5.playable import refuse_unplayed_weapon

        refuse_unplayed_weapon(spec, "a weapon")
        return [(None, spec)]
    if isinstance(spec, Unit):
        return [(spec, w) for w in spec.weapons]
    if not isinstance(spec, str):
        raise InputError(f"expected a weapon, a unit or a name, got {spec!r}")
    if "." in spec:
        unit_name, weapon_name = spec.split(".", 1)
        unit = resolve_unit(unit_name, roster)
        return [(unit, unit.weapon(weapon_name))]
    unit = resolve_unit(spec, roster)
    return [(unit, w) for w in unit.weapons]
