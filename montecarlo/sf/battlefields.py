"""Shared†Fantasia battlefield presets (RULES.md S-9), loaded and validated from TOML.

The shipped presets are ``montecarlo/data/sf_battlefields.toml``; a user file
in the same format is merged over them, as for the character roster.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from montecarlo.errors import DataError, InputError
from montecarlo.validation import FieldChecker, describe, toml_tables

FLAGS = ("open", "narrow", "no_back_lof", "cliff", "ship", "cover", "second_front")

#: S-9 [default]: the key of the battlefield of a fight that names none.  Ordinary
#: formations, front and back lines; the open battlefield (everyone engaged) is the
#: seed's special case (例４ 乱戦).
DEFAULT_BATTLEFIELD = "field"


@dataclass(frozen=True)
class Battlefield:
    """A battlefield preset (S-9); build your own with the same fields.

    Attributes
    ----------
    name : str
        Display name.
    front_cap : int
        Most front-liners per side and per end (0: no limit).
    open : bool
        Everyone is in the engage area.
    narrow : bool
        Ranged attacks and magic reach the back line at near range; a medium
        circle covers everyone.
    no_back_lof : bool
        No line of fire from back line to back line.
    cliff : bool
        A trip throws the target off the cliff unless it makes Intuition 12.
    ship : bool
        -2 to hit, evade and Intuition unless used to ships; a trip, a fumbled
        melee hit roll or any fumbled evade sends the character overboard.
    cover : bool
        The battlefield has cover: taking cover gives +2 to evade shots and to
        saves, and -2 to shoot and to cast from it (S-6).
    second_front : bool
        A side can be attacked from both ends (the corridor): ``fight(pincer=)``.
    """

    name: str
    front_cap: int = 0
    open: bool = False
    narrow: bool = False
    no_back_lof: bool = False
    cliff: bool = False
    ship: bool = False
    cover: bool = False
    second_front: bool = False

    @property
    def meaning(self) -> str:
        """What the battlefield means for a fight, in one short phrase (from its rules)."""
        parts = ["everyone is engaged" if self.open else "front and back lines"]
        if self.front_cap:
            s = "s" if self.front_cap > 1 else ""
            per = " per end" if self.second_front else ""
            parts.append(f"{self.front_cap} front-liner{s} a side{per}")
        if self.second_front:
            parts.append("attackable from both ends")
        if self.narrow:
            parts.append("shots and spells reach the back line")
        if self.no_back_lof:
            parts.append("no back-to-back shots")
        if self.cliff:
            parts.append("trips throw off the cliff")
        if self.ship:
            parts.append("−2 unless used to ships, fumbles and trips go overboard")
        if self.cover:
            parts.append("cover to take")
        return ", ".join(parts)

    def header(self) -> str:
        """``name: meaning``, the line a fight's output starts with."""
        return f"{self.name}: {self.meaning}"


def _parse_battlefield(file: str, data: Any, index: int) -> tuple[str, Battlefield]:
    entry = f"battlefield #{index + 1}"
    if isinstance(data, Mapping) and isinstance(data.get("key"), str):
        entry = f"battlefield {data['key']!r}"
    check = FieldChecker(file, entry)
    if not isinstance(data, Mapping):
        raise check.fail("", f"expected a table, got {describe(data)}")
    check.unknown(data, ["key", "name", "front_cap", *FLAGS])
    check.require(data, ["key"])
    key = check.str_(data, "key").lower()
    kw: dict[str, Any] = {"name": check.str_(data, "name") if "name" in data else key}
    if "front_cap" in data:
        kw["front_cap"] = check.int_(data, "front_cap", 0, 64)
    for flag in FLAGS:
        if flag in data:
            kw[flag] = check.bool_(data, flag)
    if kw.get("open") and kw.get("second_front"):
        raise check.fail("second_front", "an open battlefield has no ends to attack from")
    return key, Battlefield(**kw)


def parse_battlefields(text: str, file: str = "<string>") -> dict[str, Battlefield]:
    """Parse and validate battlefield presets from TOML text; keys are lower case."""
    out: dict[str, Battlefield] = {}
    for i, entry in enumerate(toml_tables(text, file, "battlefield")):
        key, bf = _parse_battlefield(file, entry, i)
        if key in out:
            raise DataError(file, f"battlefield {key!r}", "key", "duplicate key (keys ignore case)")
        out[key] = bf
    return out


def load_battlefields(path: str | Path | None = None) -> dict[str, Battlefield]:
    """The shipped presets, with a user's TOML file of presets merged over them."""
    text = resources.files("montecarlo.data").joinpath("sf_battlefields.toml").read_text("utf-8")
    presets = parse_battlefields(text, "montecarlo/data/sf_battlefields.toml")
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"battlefield file not found: {p}")
        presets = {**presets, **parse_battlefields(p.read_text("utf-8"), str(p))}
    return presets


#: The shipped presets by key.
BATTLEFIELDS = load_battlefields()
