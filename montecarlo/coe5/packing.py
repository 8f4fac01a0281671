"""Pack units and weapons into the kernels' int64 tables (the only place that does).

No kernel ever sees a Python object: everything a kernel needs about a unit
or a weapon is a column of ``U`` or ``W`` (layout in :mod:`kernels.coe5_layout`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kernels import coe5_layout as L
from montecarlo.coe5.units import DAMAGE_TYPES, UNIT_FLAGS, Unit, Weapon

TYPE_CODE = {name: code for code, name in enumerate(DAMAGE_TYPES)}

_WEAPON_FLAG_BITS = {
    "an": L.F_AN,
    "shieldneg": L.F_SHIELDNEG,
    "nostr": L.F_NOSTR,
    "rangepen": L.F_RANGEPEN,
    "assassin": L.F_ASSASSIN,
    "prebattle": L.F_PREBATTLE,
    "siege": L.F_SIEGE,
    "wand": L.F_WAND,
    "cloud": L.F_CLOUD,
}
_UNIT_FLAG_BITS = dict(
    zip(
        UNIT_FLAGS,
        (L.UF_ETHEREAL, L.UF_FAST, L.UF_IMMOBILE, L.UF_REGENERATION, L.UF_DECAY,
         L.UF_SIEGE_TUNNELING, L.UF_COMBAT_BURROWING),
        strict=True,
    )
)  # fmt: skip


@dataclass(frozen=True)
class Packed:
    """Struct-of-arrays view of some unit types and all their weapons.

    Attributes
    ----------
    U : numpy.ndarray
        ``(N_U_FIELDS, n_units)`` int64.
    W : numpy.ndarray
        ``(N_W_FIELDS, n_weapons)`` int64.
    units : tuple of Unit
        The unit types, in column order of ``U``.
    """

    U: np.ndarray
    W: np.ndarray
    units: tuple[Unit, ...]

    def weapon_index(self, unit_index: int, weapon: Weapon) -> int:
        """Column of ``weapon`` (of unit ``unit_index``) in ``W``."""
        first = int(self.U[L.U_W0, unit_index])
        return first + self.units[unit_index].weapons.index(weapon)


def _weapon_column(w: Weapon, owner: int) -> list[int]:
    col = [0] * L.N_W_FIELDS
    col[L.W_DIE] = w.damage.size
    col[L.W_TYPE] = TYPE_CODE[w.type]
    col[L.W_MAGIC] = int(w.magic)  # the flag; the kernel knows the magic type (C-4.7)
    col[L.W_INIT] = w.initiative
    col[L.W_RANGE] = w.range
    col[L.W_SHOTS] = w.shots
    col[L.W_RELOAD] = w.reload
    col[L.W_FLAGS] = sum(bit for name, bit in _WEAPON_FLAG_BITS.items() if getattr(w, name))
    col[L.W_OWNER] = owner
    return col


def _unit_column(u: Unit, first_weapon: int) -> list[int]:
    col = [0] * L.N_U_FIELDS
    col[L.U_HP] = u.hp
    col[L.U_ARMOR] = u.armor
    col[L.U_SHIELD] = u.shield
    col[L.U_MR] = u.mr
    col[L.U_MORALE] = u.morale
    col[L.U_STR] = u.strength
    col[L.U_FEAR] = u.fear
    flags = sum(bit for name, bit in _UNIT_FLAG_BITS.items() if getattr(u, name))
    col[L.U_FLAGS] = flags | (L.UF_RANGED if u.is_ranged else 0)
    col[L.U_VULN] = sum(1 << TYPE_CODE[t] for t in u.vulnerable)
    col[L.U_W0] = first_weapon
    col[L.U_NW] = len(u.weapons)
    col[L.U_KEY_DRAWS] = sum(w.shots for w in u.weapons if not w.prebattle)
    for name, code in TYPE_CODE.items():
        col[L.U_RES0 + code] = u.resistance(name)
    return col


def pack(units: Sequence[Unit]) -> Packed:
    """Pack unit types (and their weapons, in order) into kernel tables."""
    u_cols, w_cols = [], []
    for i, u in enumerate(units):
        u_cols.append(_unit_column(u, len(w_cols)))
        w_cols.extend(_weapon_column(w, i) for w in u.weapons)
    U = np.array(u_cols, dtype=np.int64).T.copy()
    W = np.array(w_cols, dtype=np.int64).reshape(-1, L.N_W_FIELDS).T.copy()
    return Packed(U, W, tuple(units))
