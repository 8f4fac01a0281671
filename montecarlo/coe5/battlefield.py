"""Armies and deployment on the simplified battlefield (RULES.md C-6).

An army is written ``"pikeman:10"`` or ``"pikeman:10,archer:5"`` (a bare name
means one unit), or given as a list of ``(Unit or name, count)`` pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from montecarlo.coe5.playable import refuse_mixed_ranks
from montecarlo.coe5.units import Roster, Unit, resolve_unit
from montecarlo.errors import InputError

ArmyLike = str | Sequence[tuple[Unit | str, int]]

#: The most rows, columns or units a battle may have: the kernels rank units by
#: tile keys that pack a row and a unit number in 20 bits each (kernels/tile_order.py).
MAX_SIDE = (1 << 20) - 1


@dataclass(frozen=True)
class Part:
    """One unit type of one side, with its count."""

    side: int  # 0 attacker, 1 defender
    unit: Unit
    count: int

    @property
    def label(self) -> str:
        """``"Pikeman ×10"``; a unit imported without some commands is marked ``*`` (C-13)."""
        return f"{self.unit.label} ×{self.count}"


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
        unit = resolve_unit(spec[0], roster)  # refuses what the battle does not play yet
        merged[unit] = merged.get(unit, 0) + _count(spec[1], unit.name)
    army_pairs = list(merged.items())
    refuse_mixed_ranks(army_pairs)  # C-11.5.2: deployment by rank is not played yet
    return army_pairs


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
    """Deployment slots of a battle, in movement order (attacker first, front first).

    Attributes
    ----------
    parts : list of Part
        Attacker parts, then defender parts.
    itype, iside, ipart, x, y : numpy.ndarray
        Per slot: unit-type index (into ``types``), side, part, column, row.
        ``itype`` and ``ipart`` are the written order; each battle deals the
        units of a role out to that role's slots at random (C-6 [default]).
    irole : numpy.ndarray
        Per slot: 0 melee, 1 ranged.
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
    irole: np.ndarray

    def shuffle_groups(self, shuffle: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Slots to shuffle per battle, as ``(idx, bounds)`` for ``kernels.coe5_battle.deal_out``.

        One group per side and role that holds more than one unit type; the
        others need no shuffle, so a battle of one unit type per role pays
        nothing.  With ``shuffle=False`` there are no groups (written order).
        """
        idx: list[int] = []
        bounds = [0]
        if shuffle:
            for side in (0, 1):
                for role in (0, 1):
                    slots = np.flatnonzero((self.iside == side) & (self.irole == role))
                    if len(set(self.itype[slots].tolist())) > 1:
                        idx.extend(slots.tolist())
                        bounds.append(len(idx))
        return np.asarray(idx, dtype=np.int64), np.asarray(bounds, dtype=np.int64)


def _columns(n: int, width: int) -> int:
    return math.ceil(n / width)


def _side_slots(
    melee: list[int], ranged: list[int], width: int, wall_first: bool
) -> tuple[list[tuple[int, int, int, int]], int]:
    """Slots of one side as (part, column offset from its edge, row, role), front first.

    The open-field layout (C-6): melee in front, ranged behind, each role from
    a fresh column.  With ``wall_first`` (a siege defender, C-6 [default]) the
    front column is filled first from ``ranged + melee`` in that order, and the
    rest stand behind it in the open-field layout.  Also returns the columns used.
    """
    rows = _rows_center_out(width)
    slots: list[tuple[int, int, int, int]] = []
    wall: list[tuple[int, int]] = []
    if wall_first:
        queue = [(k, 1) for k in ranged] + [(k, 0) for k in melee]
        wall = queue[:width]
        melee = [k for k, role in queue[width:] if role == 0]
        ranged = [k for k, role in queue[width:] if role == 1]
    cm, cr = _columns(len(melee), width), _columns(len(ranged), width)
    front = cm + cr + (1 if wall else 0) - 1
    slots += [(k, front, rows[idx], role) for idx, (k, role) in enumerate(wall)]
    slots += [(k, cr + cm - 1 - idx // width, rows[idx % width], 0) for idx, k in enumerate(melee)]
    slots += [(k, cr - 1 - idx // width, rows[idx % width], 1) for idx, k in enumerate(ranged)]
    return slots, front + 1


def deploy(
    attacker: list[tuple[Unit, int]],
    defender: list[tuple[Unit, int]],
    width: int,
    length: int,
    *,
    siege: bool = False,
    siege_deployment: str = "ranged_first",
) -> Deployment:
    """Place both armies (C-6): from each edge, melee in front, ranged behind.

    Columns fill from the middle row outwards; the frontmost melee column is
    filled first.  Each side may use at most half the columns.  In a siege
    with ``siege_deployment="ranged_first"`` (C-6 [default]) the defender
    fills its front column, the wall, first: ranged units, then melee.
    """
    for name, value, lo in (("width", width, 1), ("length", length, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise InputError(f"{name} must be an integer of at least {lo}, got {value!r}")
        if value > MAX_SIDE:  # C-8.3 ranks units by packed tile keys (kernels/tile_order.py)
            raise InputError(f"{name} must be at most {MAX_SIDE:,}, got {value:,}")
    n_units = sum(c for _, c in attacker) + sum(c for _, c in defender)
    if n_units > MAX_SIDE:
        raise InputError(f"a battle takes at most {MAX_SIDE:,} units, got {n_units:,}")
    parts = [Part(0, u, c) for u, c in attacker] + [Part(1, u, c) for u, c in defender]
    types: list[Unit] = []
    for p in parts:
        if p.unit not in types:
            types.append(p.unit)
    # Per part, not per unit: a 400-unit battle compared Unit dataclasses field by
    # field 8,000 times here, most of a big matchup call's fixed cost (issue 13).
    part_type = [types.index(p.unit) for p in parts]
    part_ranged = [p.unit.is_ranged for p in parts]
    itype, iside, ipart, xs, ys, roles = [], [], [], [], [], []
    wall_col = length - 1
    for side in (0, 1):
        side_parts = [(k, p) for k, p in enumerate(parts) if p.side == side]
        melee = [k for k, p in side_parts for _ in range(p.count) if not part_ranged[k]]
        ranged = [k for k, p in side_parts for _ in range(p.count) if part_ranged[k]]
        wall_first = side == 1 and siege and siege_deployment == "ranged_first"
        placed, columns = _side_slots(melee, ranged, width, wall_first)
        if columns > length // 2:
            total = len(melee) + len(ranged)
            raise InputError(
                f"the {'attacker' if side == 0 else 'defender'}'s {total} units need "
                f"{columns} columns of {width}, but each side has {length // 2} on a "
                f"{width}×{length} field; use fewer units or a larger width/length"
            )
        for k, col, row, role in placed:
            x = col if side == 0 else length - 1 - col
            itype.append(part_type[k])
            iside.append(side)
            ipart.append(k)
            xs.append(x)
            ys.append(row)
            roles.append(role)
        if side == 1:
            wall_col = length - 1 - (columns - 1)
    as_array = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
    return Deployment(
        parts, as_array(itype), as_array(iside), as_array(ipart), as_array(xs), as_array(ys),
        types, wall_col, as_array(roles),
    )  # fmt: skip
