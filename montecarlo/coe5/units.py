"""CoE5 units and weapons (RULES.md C-10), loaded and validated from TOML.

The shipped roster is ``montecarlo/data/coe5_units.toml``.  A user file is
merged over it: a unit with the same name (any case) replaces the shipped one.
Validation stops at the first problem and names the file, the unit, the field
and what was expected; a failed load changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from montecarlo.coe5.dice import Die, parse_die
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

    @property
    def is_ranged(self) -> bool:
        """True for missile weapons (range above 1)."""
        return self.range > 1

    @property
    def is_magic(self) -> bool:
        """True when the damage is magic (the flag, or the pure magic type)."""
        return self.magic or self.type == "magic"

    def flags(self) -> list[str]:
        """Names of the flags that are set."""
        return [f for f in WEAPON_FLAGS if getattr(self, f)] + (["magic"] if self.magic else [])


@dataclass(frozen=True)
class Unit:
    """A CoE5 unit (C-10).  Immutable; compare and hash by value.

    ``resist`` maps fire/cold/shock/poison/acid to a percentage; the physical
    flags ``resist_blunt`` etc. mean 50% (C-3 step 7).
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

    def abilities(self) -> list[str]:
        """Short labels of the unit's special abilities, for tables."""
        out = [f for f in UNIT_FLAGS if getattr(self, f)]
        if self.fear:
            out.append(f"fear {self.fear}")
        out += [f"res {t} {v}%" for t, v in self.resist.items() if v]
        out += [f"res {t}" for t in PHYSICAL if getattr(self, f"resist_{t}")]
        out += [f"vuln {t}" for t in self.vulnerable]
        return out


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


def _parse_weapon(check: FieldChecker, data: Any, index: int) -> Weapon:
    prefix = f"weapons[{index}]."
    if not isinstance(data, Mapping):
        raise check.fail(f"weapons[{index}]", f"expected a table, got {describe(data)}")
    check.unknown(
        data,
        ["name", "damage", "type", *_WEAPON_INT_FIELDS, *_WEAPON_BOOL_FIELDS],
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
        if dtype not in DAMAGE_TYPES:
            raise check.fail(
                prefix + "type",
                f"unknown damage type {dtype!r}; expected one of: {', '.join(DAMAGE_TYPES)}",
            )
        kwargs["type"] = dtype
    for key, (lo, hi) in _WEAPON_INT_FIELDS.items():
        if key in data:
            kwargs[key] = check.int_(data, key, lo, hi, prefix)
    for key in _WEAPON_BOOL_FIELDS:
        if key in data:
            kwargs[key] = check.bool_(data, key, prefix)
    return Weapon(**kwargs)


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
    return Unit(**kwargs)


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


class Roster(Mapping[str, Unit]):
    """Units by name, looked up ignoring case.

    Iterating yields the lower-case keys; :meth:`units` yields the units.
    """

    def __init__(self, units: Mapping[str, Unit], sources: tuple[str, ...]) -> None:
        self._units = dict(units)
        self.sources = sources

    def __getitem__(self, name: str) -> Unit:
        if not isinstance(name, str):
            raise InputError(f"a unit name must be a string, got {name!r}")
        try:
            return self._units[name.strip().lower()]
        except KeyError:
            close = [u.name for k, u in self._units.items() if name.lower()[:3] in k]
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise UnknownName(
                f"unknown unit {name!r}.{hint} Known units: "
                f"{', '.join(u.name for u in self._units.values())}"
            ) from None

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
    """A :class:`Unit` given itself or a name (any case)."""
    if isinstance(unit, Unit):
        return unit
    return (roster or default_roster())[unit]


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
