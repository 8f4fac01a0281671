"""``load_c5m``: the game's files, with mods, read into a roster and a report (C-11 to C-13)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from montecarlo.coe5.c5m.convert import ON_UNSUPPORTED, Converted, Converter
from montecarlo.coe5.c5m.entries import GameData
from montecarlo.coe5.c5m.export import roster_toml
from montecarlo.coe5.c5m.lexer import read_statements
from montecarlo.coe5.c5m.report import report_frame, summary_frame, summary_text, units_frame
from montecarlo.coe5.offers import Offer
from montecarlo.coe5.units import Roster, Unit, load_units
from montecarlo.errors import DataError, InputError

PathLike = str | Path


@dataclass
class C5mImport:
    """What :func:`load_c5m` read.  Unpacks as ``roster, report = mc.load_c5m(...)``.

    Attributes
    ----------
    roster : Roster
        The shipped units with the imported ones merged over them; a unit
        imported without some commands (``on_unsupported="drop"``) has
        ``partial=True``.
    report : pandas.DataFrame
        One row per command that no rule maps onto the battle (C-13):
        ``unit, index, weapon, command, args, disposition, rule, reason, file, line``.
    units : pandas.DataFrame
        One row per monster read: its status (imported, partial or rejected),
        whether an offer names it, its price per unit and what the battle does
        not play yet.
    summary : pandas.DataFrame
        Counts per scope (all monsters, offered names, offered units).
    imported : list of Unit
        The imported units, in the game's order.
    sources : tuple of str
        The files read, in order.
    """

    roster: Roster
    report: pd.DataFrame
    units: pd.DataFrame
    summary: pd.DataFrame
    imported: list[Unit]
    sources: tuple[str, ...]

    def __iter__(self) -> Iterator:
        return iter((self.roster, self.report))

    def summary_text(self) -> str:
        """The summary as a few lines of text."""
        return summary_text(self.summary, self.report)

    def to_toml(self) -> str:
        """The imported units as the toolkit's unit file."""
        header = [
            "Units read from the game's data by montecarlo import-c5m (RULES.md C-11 to C-13).",
            "Not for redistribution: the game's files say All Rights Reserved.",
            "Read from:",
            *(f"  {s}" for s in self.sources),
        ]
        return roster_toml(self.imported, header)


def _attach_offers(data: GameData) -> tuple[dict[int, tuple[Offer, ...]], set[int]]:
    """Offers by the index of the monster each names (C-11.1.2), and every entry of a name
    that an offer names."""
    attached: dict[int, list[Offer]] = {}
    offered: set[int] = set()
    for raw in data.offers.offers:
        offered.update(raw.named)
        attached.setdefault(raw.index, []).append(raw.offer(data.offers.class_names))
    return {i: tuple(o) for i, o in attached.items()}, offered


def load_c5m(
    monsters: PathLike,
    weapons: PathLike,
    recruitment: PathLike | None = None,
    mods: Sequence[PathLike] = (),
    *,
    on_unsupported: str = "reject",
    cost_with_die: bool = False,
) -> C5mImport:
    """Read the game's monster, weapon and recruitment files, and mods over them (C-11 to C-13).

    Parameters
    ----------
    monsters, weapons : str or Path
        The user's own copies of ``Monster Data`` and ``Weapon Data`` (``.c5m``).
    recruitment : str or Path, optional
        ``Recruitment Data``: the offers that give units their class and price (C-11.8).
    mods : sequence of str or Path
        Mod files read after the base files, in order: they may add monsters
        and weapons, edit them (``selectmonster``, ``selectweapon``,
        ``copystats``, ``copyweapon``, the clear commands) and add offers.
    on_unsupported : "reject" or "drop"
        C-13 [default] ``"reject"``: a unit with a rejected command is not
        imported.  ``"drop"``: it is imported without it, marked partial.
    cost_with_die : bool
        C-11.8.2 [default] False: a price leaves the gold die out; True adds
        E[OED(die)] = (die + 2) / 2 to the offer's gold before dividing by the lot.

    Returns
    -------
    C5mImport
        Unpacks as ``roster, report``; ``.units`` and ``.summary`` hold the rest.

    Raises
    ------
    InputError
        For a missing file or a bad option.
    DataError
        For a malformed file: naming the file, the line and what was expected.
    """
    if on_unsupported not in ON_UNSUPPORTED:
        raise InputError(f"on_unsupported is 'reject' or 'drop', not {on_unsupported!r}")
    if not isinstance(cost_with_die, bool):
        raise InputError(f"cost_with_die is True or False, not {cost_with_die!r}")
    if isinstance(mods, str | Path):
        mods = [mods]
    files = [(weapons, "the weapon file", False), (monsters, "the monster file", False)]
    if recruitment is not None:
        files.append((recruitment, "the recruitment file", False))
    files += [(m, "a mod file", True) for m in mods]
    data = GameData()
    for path, what, is_mod in files:
        data.read(read_statements(path, what), mod=is_mod)
    if not data.monsters:
        raise DataError(
            str(monsters), "the file", "", "no newmonster entry: is this the monster file?"
        )
    offers, offered = _attach_offers(data)
    converter = Converter(data, on_unsupported)
    converted: list[Converted] = [
        converter.monster(e, offers.get(e.index, ())) for e in data.monsters.values()
    ]
    imported = [c.unit for c in converted if c.unit is not None]
    base = load_units()
    merged = {**{k: base[k] for k in base}, **{u.name.lower(): u for u in imported}}
    sources = tuple(str(p) for p, _, _ in files)
    units = units_frame(converted, offered, set(offers), cost_with_die)
    report = report_frame(converted, data.notes)
    return C5mImport(
        Roster(merged, ("shipped", *sources)),
        report,
        units,
        summary_frame(units),
        imported,
        sources,
    )
