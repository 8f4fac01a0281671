"""Shared†Fantasia characters, weapons and spells, loaded and validated from TOML.

The shipped roster is ``montecarlo/data/sf_characters.toml``: made-up examples
with plausible numbers, not the game's data (:data:`ROSTER_NOTE`).  A user file
is merged over it as for CoE5 units.  Damage is written in the game's notation:
``2d+3`` is two six-sided dice plus 3.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from montecarlo.errors import DataError, InputError, UnknownName
from montecarlo.validation import FieldChecker, describe, toml_tables

DAMAGE_TYPES = ("slash", "blunt", "pierce")  # 斬, 叩, 刺 (S-3)
SAVES = ("fortitude", "intuition", "will")  # 頑健, 直感, 意思 (S-7)
AREAS = ("single", "small", "medium", "large")  # S-7 circles
STATS = ("power", "faith")  # 魔力, 信仰
POSITIONS = ("front", "back")  # 前衛, 後衛 (S-6)
STATUSES = ("sleep",)  # spell statuses modelled in fights

_DICE_RE = re.compile(r"^\s*(?:(\d+)\s*[dD]6?)?\s*(?:([+-]?)\s*(\d+))?\s*$")


@dataclass(frozen=True)
class Dice:
    """``n`` six-sided dice plus ``bonus`` (``2d+3``)."""

    n: int
    bonus: int = 0

    def doubled(self) -> Dice:
        """A dramatic success doubles the dice, not the bonus (S-2)."""
        return Dice(2 * self.n, self.bonus)

    def __str__(self) -> str:
        text = f"{self.n}d" if self.n else ""
        if self.bonus or not self.n:
            text += f"{self.bonus:+d}" if self.n else str(self.bonus)
        return text


def parse_dice(text: str | int | Dice) -> Dice:
    """Parse SF damage such as ``"2d+3"``, ``"1d"``, ``"3d6-1"`` or ``"4"``."""
    if isinstance(text, Dice):
        return text
    if isinstance(text, int) and not isinstance(text, bool):
        return Dice(0, text)
    if not isinstance(text, str):
        raise InputError(f"SF damage must be text like '2d+3', not {describe(text)}")
    m = _DICE_RE.match(text)
    if m is None or (m[1] is None and m[3] is None) or (m[1] and m[3] and not m[2]):
        raise InputError(f"{text!r} is not SF damage; expected e.g. '2d+3', '1d', '2d-1' or '4'")
    n = int(m[1]) if m[1] else 0
    bonus = int(m[3]) * (-1 if m[2] == "-" else 1) if m[3] else 0
    if n > 40:
        raise InputError(f"{text!r}: at most 40 dice")
    return Dice(n, bonus)


@dataclass(frozen=True)
class SFWeapon:
    """A weapon (S-2, S-3).  ``fatigue`` marks ``叩(疲労)`` weapons: always fatigue damage."""

    name: str
    damage: Dice
    type: str = "slash"
    ranged: bool = False
    ammo: int | None = None  # None: unlimited
    fatigue: bool = False


@dataclass(frozen=True)
class Effect:
    """What a spell does to one target: damage (injury or fatigue) or a status."""

    damage: Dice | None = None
    kind: str = "injury"  # or "fatigue"
    status: str | None = None

    @property
    def is_nothing(self) -> bool:
        return self.damage is None and self.status is None


@dataclass(frozen=True)
class Spell:
    """A spell or miracle (S-7): magic strength from ``stat`` + 2d6 against a save."""

    name: str
    stat: str = "power"
    save: str = "intuition"
    area: str = "single"
    on_fail: Effect = field(default_factory=Effect)
    on_success: Effect = field(default_factory=Effect)


@dataclass(frozen=True)
class Character:
    """A Shared†Fantasia character or monster (S-2 to S-4)."""

    name: str
    hp: int
    body: int = 0
    tech: int = 0
    power: int = 0
    faith: int = 0
    combat: int = 0  # class combat modifier (戦闘修正)
    initiative: int = 0
    fortitude: int = 0
    intuition: int = 0
    will: int = 0
    armor: Mapping[str, int] = field(default_factory=dict)  # per damage type
    weapons: tuple[SFWeapon, ...] = ()
    spells: tuple[Spell, ...] = ()
    position: str = "front"
    ships: bool = False  # used to ships (S-9 ship deck)
    kind: str = "player"
    description: str = ""

    def __hash__(self) -> int:
        return hash((self.name, self.hp, self.weapons, self.spells))

    def armor_for(self, damage_type: str) -> int:
        """Armour points against one damage type (S-3)."""
        return int(self.armor.get(damage_type, 0))

    @property
    def melee_weapon(self) -> SFWeapon | None:
        return next((w for w in self.weapons if not w.ranged), None)

    @property
    def ranged_weapon(self) -> SFWeapon | None:
        return next((w for w in self.weapons if w.ranged), None)

    def weapon(self, name: str | None = None) -> SFWeapon:
        """The named weapon, or the first one."""
        if name is None:
            if not self.weapons:
                raise InputError(f"{self.name} has no weapon")
            return self.weapons[0]
        for w in self.weapons:
            if w.name.lower() == name.lower():
                return w
        raise InputError(
            f"{self.name} has no weapon {name!r}; it has: {', '.join(w.name for w in self.weapons)}"
        )


# -- parsing ---------------------------------------------------------------------
_INT_FIELDS = {
    "hp": (1, 1000),
    "body": (-10, 50),
    "tech": (-10, 50),
    "power": (-10, 50),
    "faith": (-10, 50),
    "combat": (-10, 50),
    "initiative": (-10, 50),
    "fortitude": (-10, 50),
    "intuition": (-10, 50),
    "will": (-10, 50),
}


def _dice_field(check: FieldChecker, data: Mapping[str, Any], key: str, prefix: str) -> Dice:
    raw = data[key]
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise check.fail(prefix + key, f"expected damage like '2d+3', got {describe(raw)}")
    try:
        return parse_dice(raw)
    except InputError as exc:
        raise check.fail(prefix + key, str(exc)) from None


def _parse_weapon(check: FieldChecker, data: Any, i: int) -> SFWeapon:
    prefix = f"weapons[{i}]."
    if not isinstance(data, Mapping):
        raise check.fail(f"weapons[{i}]", f"expected a table, got {describe(data)}")
    check.unknown(data, ["name", "damage", "type", "ranged", "ammo", "fatigue"], prefix)
    check.require(data, ["name", "damage"], prefix)
    kw: dict[str, Any] = {"name": check.str_(data, "name", prefix),
                          "damage": _dice_field(check, data, "damage", prefix)}  # fmt: skip
    if "type" in data:
        kw["type"] = check.choice(data, "type", DAMAGE_TYPES, prefix)
    for key in ("ranged", "fatigue"):
        if key in data:
            kw[key] = check.bool_(data, key, prefix)
    if "ammo" in data:
        kw["ammo"] = check.int_(data, "ammo", 0, 10_000, prefix)
    if kw.get("fatigue") and kw.get("type", "slash") != "blunt":
        raise check.fail(prefix + "fatigue", "only blunt (叩) weapons can deal fatigue damage")
    return SFWeapon(**kw)


def _parse_effect(check: FieldChecker, data: Any, fld: str) -> Effect:
    if not isinstance(data, Mapping):
        raise check.fail(fld, f"expected a table like {{damage = '2d'}}, got {describe(data)}")
    check.unknown(data, ["damage", "kind", "status"], fld + ".")
    kw: dict[str, Any] = {}
    if "damage" in data:
        kw["damage"] = _dice_field(check, data, "damage", fld + ".")
    if "kind" in data:
        kw["kind"] = check.choice(data, "kind", ("injury", "fatigue"), fld + ".")
    if "status" in data:
        kw["status"] = check.choice(data, "status", STATUSES, fld + ".")
    if "damage" in kw and "status" in kw:
        raise check.fail(fld, "an effect is either damage or a status, not both")
    return Effect(**kw)


def _parse_spell(check: FieldChecker, data: Any, i: int) -> Spell:
    prefix = f"spells[{i}]."
    if not isinstance(data, Mapping):
        raise check.fail(f"spells[{i}]", f"expected a table, got {describe(data)}")
    check.unknown(data, ["name", "stat", "save", "area", "fail", "success"], prefix)
    check.require(data, ["name", "fail"], prefix)
    kw: dict[str, Any] = {"name": check.str_(data, "name", prefix)}
    for key, options in (("stat", STATS), ("save", SAVES), ("area", AREAS)):
        if key in data:
            kw[key] = check.choice(data, key, options, prefix)
    kw["on_fail"] = _parse_effect(check, data["fail"], prefix + "fail")
    if "success" in data:
        kw["on_success"] = _parse_effect(check, data["success"], prefix + "success")
    return Spell(**kw)


def _parse_character(file: str, data: Any, index: int) -> Character:
    entry = f"character #{index + 1}"
    if isinstance(data, Mapping) and isinstance(data.get("name"), str):
        entry = f"character {data['name']!r}"
    check = FieldChecker(file, entry)
    if not isinstance(data, Mapping):
        raise check.fail("", f"expected a table, got {describe(data)}")
    check.unknown(data, ["name", "armor", "weapons", "spells", "position", "ships", "kind",
                         "description", *_INT_FIELDS])  # fmt: skip
    check.require(data, ["name", "hp"])
    kw: dict[str, Any] = {"name": check.str_(data, "name")}
    for key, (lo, hi) in _INT_FIELDS.items():
        if key in data:
            kw[key] = check.int_(data, key, lo, hi)
    if "position" in data:
        kw["position"] = check.choice(data, "position", POSITIONS)
    if "kind" in data:
        kw["kind"] = check.choice(data, "kind", ("player", "monster"))
    if "ships" in data:
        kw["ships"] = check.bool_(data, "ships")
    if "description" in data:
        kw["description"] = check.str_(data, "description")
    armor = data.get("armor", {})
    if not isinstance(armor, Mapping):
        raise check.fail("armor", f"expected a table like {{slash = 2}}, got {describe(armor)}")
    check.unknown(armor, DAMAGE_TYPES, "armor.")
    kw["armor"] = {k: check.int_(armor, k, 0, 100, "armor.") for k in armor}
    weapons = data.get("weapons", [])
    spells = data.get("spells", [])
    if not isinstance(weapons, list) or not isinstance(spells, list):
        raise check.fail(
            "weapons", "expected [[character.weapons]] and [[character.spells]] tables"
        )
    if not weapons and not spells:
        raise check.fail("weapons", "a character needs at least one weapon or spell")
    kw["weapons"] = tuple(_parse_weapon(check, w, i) for i, w in enumerate(weapons))
    kw["spells"] = tuple(_parse_spell(check, s, i) for i, s in enumerate(spells))
    return Character(**kw)


def parse_characters(text: str, file: str = "<string>") -> dict[str, Character]:
    """Parse and validate characters from TOML text; keys are lower-case names."""
    out: dict[str, Character] = {}
    for i, entry in enumerate(toml_tables(text, file, "character")):
        c = _parse_character(file, entry, i)
        if c.name.lower() in out:
            raise DataError(
                file, f"character {c.name!r}", "name", "duplicate name (names ignore case)"
            )
        out[c.name.lower()] = c
    return out


class CharacterRoster(Mapping[str, Character]):
    """Characters by name, looked up ignoring case."""

    def __init__(self, chars: Mapping[str, Character]) -> None:
        self._chars = dict(chars)

    def __getitem__(self, name: str) -> Character:
        try:
            return self._chars[name.strip().lower()]
        except (KeyError, AttributeError):
            known = ", ".join(c.name for c in self._chars.values())
            raise UnknownName(f"unknown character {name!r}. Known characters: {known}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._chars)

    def __len__(self) -> int:
        return len(self._chars)

    def characters(self) -> list[Character]:
        return list(self._chars.values())


def load_characters(path: str | Path | None = None) -> CharacterRoster:
    """The shipped SF roster, with a user's TOML file merged over it."""
    text = resources.files("montecarlo.data").joinpath("sf_characters.toml").read_text("utf-8")
    chars = parse_characters(text, "montecarlo/data/sf_characters.toml")
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"character file not found: {p}")
        chars = {**chars, **parse_characters(p.read_text("utf-8"), str(p))}
    return CharacterRoster(chars)


_DEFAULT: CharacterRoster | None = None


def default_characters() -> CharacterRoster:
    """The shipped SF roster, parsed once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_characters()
    return _DEFAULT


def resolve_character(c: Character | str, roster: CharacterRoster | None = None) -> Character:
    """A :class:`Character` given itself or a name."""
    if isinstance(c, Character):
        return c
    return (roster or default_characters())[c]


#: What the shipped roster is: output that shows its characters says so.
ROSTER_NOTE = "the shipped roster's made-up examples, not the game's data"


def illustrative(characters: Iterable[Character]) -> list[str]:
    """Names of those ``characters`` that are the shipped example roster's, unchanged."""
    shipped = default_characters()
    names: list[str] = []
    for c in characters:
        if c.name.lower() in shipped and shipped[c.name] == c and c.name not in names:
            names.append(c.name)
    return names


def roster_note(characters: Iterable[Character]) -> str | None:
    """One line saying which of ``characters`` are the shipped, illustrative ones
    (None when none is): ``--characters FILE`` brings a game master's own party."""
    names = illustrative(characters)
    if not names:
        return None
    return (
        f"Illustrative characters ({ROSTER_NOTE}): {', '.join(names)}; "
        "bring your own with --characters FILE"
    )
