"""Armies and deployment on the simplified battlefield (RULES.md C-6).

An army is written ``"pikeman:10"`` or ``"pikeman:10,archer:5"`` (a bare name
means one unit), or given as a list of ``(Unit or name, count)`` pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from montecarlo.coe5.units import Roster, Unit, resolve_unit
from montecarlo.errors import InputError

ArmyLike = str | Sequence[tuple[Unit | str, int]]


@dataclass(frozen=True)
class Part:
    """One unit type of one side, with its count."""

    side: int  # 0 attacker, 1 defender
    unit: Unit
    count: int

    @property
    def label(self) -> str:
        return f"{self.unit.name} ×{self.count}"


def _count(value: object, name: str) -> int:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise InputError(f"the count of {name} must be a whole number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(f"the count of {name} must be a whole number, got {value!r}")
    if value < 1:
        raise InputError(f"the count of {name} must be at least 1, got {value}")
    return int(value)


def parse_army(army: ArmyLike, roster: Roster | None = None) -> list[tuple[Unit, int]]:
    """Parse an army spec into ``(Unit, count)`` pairs, merging repeated units."""
    if isinstance(army, str):
        if not army.strip():
            raise InputError("an army needs at least one unit, e.g. 'pikeman:10'")
        pairs: list[tuple[Unit | str, int | str]] = []
        for item in army.split(","):
            name, _, count = item.partition(":")
            if not name.strip():
                raise InputError(
                    f"empty unit name in army {army!r}; write e.g. 'pikeman:10,archer:5'"
                )
            pairs.append((name.strip(), count if count else 1))
    else:
        pairs = list(army)
        if not pairs:
            raise InputError("an army needs at least one unit")
    merged: dict[Unit, int] = {}
    for spec in pairs:
        if not isinstance(spec, tuple | list) or len(spec) != 2:
            raise InputError(f"army entries are (unit, count) pairs, got {spec!r}")
        unit = resolve_unit(spec[0], roster)
        merged[unit] = merged.get(unit, 0) + _count(spec[1], unit.name)
    return list(merged.items())


def _rows_center_out(width: int) -> list[int]:
    """Row order of a column: the middle first, then alternately above and below."""
    mid = width // 2
    order = [mid]
    for k in range(1, width):
        for r in (mid - k, mid + k):
            if 0 <= r < width and len(order) < width:
                order.append(r)
    return order


@dataclass(frozen=True)
class Deployment:
    """Unit instances of a battle, in movement order (attacker first, front first).

    Attributes
    ----------
    parts : list of Part
        Attacker parts, then defender parts.
    itype, iside, ipart, x, y : numpy.ndarray
        Per instance: unit-type index (into ``types``), side, part, column, row.
    types : list of Unit
        Distinct unit types, in packing order.
    wall_col : int
        The defender's front column (the wall in a siege).
    """

    parts: list[Part]
    itype: np.ndarray
    iside: np.ndarray
    ipart: np.ndarray
    x: np.ndarray
    y: np.ndarray
    types: list[Unit]
    wall_col: int


def deploy(
    attacker: list[tuple[Unit, int]], defender: list[tuple[Unit, int]], width: int, length: int
) -> Deployment:
    """Place both armies (C-6): from each edge, melee in front, ranged behind.

    Columns fill from the middle row outwards; the frontmost melee column is
    filled first.  Each side may use at most half the columns.
    """
    for name, value, lo in (("width", width, 1), ("length", length, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise InputError(f"{name} must be an integer of at least {lo}, got {value!r}")
    parts = [Part(0, u, c) for u, c in attacker] + [Part(1, u, c) for u, c in defender]
    types: list[Unit] = []
    for p in parts:
        if p.unit not in types:
            types.append(p.unit)
    rows = _rows_center_out(width)
    itype, iside, ipart, xs, ys = [], [], [], [], []
    wall_col = length - 1
    for side in (0, 1):
        side_parts = [(k, p) for k, p in enumerate(parts) if p.side == side]
        melee = [k for k, p in side_parts for _ in range(p.count) if not p.unit.is_ranged]
        ranged = [k for k, p in side_parts for _ in range(p.count) if p.unit.is_ranged]
        cm = math.ceil(len(melee) / width)
        cr = math.ceil(len(ranged) / width)
        if cm + cr > length // 2:
            total = len(melee) + len(ranged)
            raise InputError(
                f"the {'attacker' if side == 0 else 'defender'}'s {total} units need "
                f"{cm + cr} columns of {width}, but each side has {length // 2} on a "
                f"{width}×{length} field; use fewer units or a larger width/length"
            )
        # Column offsets from this side's edge: front melee column first.
        placed = [(k, cr + cm - 1 - idx // width, rows[idx % width]) for idx, k in enumerate(melee)]
        placed += [(k, cr - 1 - idx // width, rows[idx % width]) for idx, k in enumerate(ranged)]
        for k, col, row in placed:
            x = col if side == 0 else length - 1 - col
            itype.append(types.index(parts[k].unit))
            iside.append(side)
            ipart.append(k)
            xs.append(x)
            ys.append(row)
        if side == 1:
            wall_col = length - 1 - (cr + cm - 1)
    as_array = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
    return Deployment(
        parts, as_array(itype), as_array(iside), as_array(ipart), as_array(xs), as_array(ys),
        types, wall_col,
    )  # fmt: skip
