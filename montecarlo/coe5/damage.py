"""Exact damage of one CoE5 hit and how many hits kill (RULES.md C-3, C-4, C-5).

:func:`damage` follows C-3 step by step with exact distribution algebra; the
attached sampler runs the same pipeline in :mod:`kernels.coe5_damage`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernels.coe5_damage import lane_setup, sample_hits
from kernels.coe5_damage_lanes import sample_hits_lanes
from kernels.coe5_dice import oed_level_table
from kernels.oed_lanes import oed_lane_params
from montecarlo.coe5.dice import _oed_single
from montecarlo.coe5.packing import pack
from montecarlo.coe5.units import (
    EFFECT_ONLY,
    VULNERABLE_TYPES,
    Roster,
    Unit,
    Weapon,
    resolve_unit,
    resolve_weapon,
)
from montecarlo.distribution import TAIL_CUT, Distribution
from montecarlo.errors import InputError

#: C-3.9: chance that a non-magic hit on an ethereal target does nothing.
ETHEREAL_MISS = 0.75


@dataclass(frozen=True)
class Situation:
    """The circumstances of a hit that the damage pipeline depends on.

    Attributes
    ----------
    strength : int
        The attacker's strength bonus (C-1.5); ignored by ``nostr`` weapons.
    on_wall : int
        Fortification level of the wall the target stands on, 0 if none (C-3 step 4).
    immobile : bool
        The target cannot move: asleep, paralysed, stunned (C-3 step 3).
    frozen : bool
        The target is frozen: +1 damage at step 3 (C-4.3).
    far : bool
        The target is beyond half the weapon's range (C-5.3).
    halve_final : bool
        C-5.3 alternative: halve the final damage instead of the raw roll [default].
    """

    strength: int = 0
    on_wall: int = 0
    immobile: bool = False
    frozen: bool = False
    far: bool = False
    halve_final: bool = False

    @property
    def far_code(self) -> int:
        """The kernels' ``far``: 0 near, 1 halve the raw roll, 2 halve the final damage."""
        return 0 if not self.far else (2 if self.halve_final else 1)


class DamageDistribution(Distribution):
    """Damage of one hit; ``kind`` is ``"hp"`` or ``"poison"`` (added to the pool, C-4.5)."""

    def __init__(
        self, base: Distribution, *, weapon: Weapon, target: Unit, kind: str, sampler, name: str
    ) -> None:
        super().__init__(base.probabilities, base.lo, tail=base.tail, name=name, sampler=sampler)
        self.weapon = weapon
        self.target = target
        self.kind = kind


def _single_weapon(spec: Weapon | Unit | str, roster: Roster | None) -> tuple[Unit | None, Weapon]:
    found = resolve_weapon(spec, roster)
    if len(found) > 1:
        owner = found[0][0]
        options = ", ".join(f"'{owner.name.lower()}.{w.name.lower()}'" for _, w in found)
        raise InputError(f"{owner.name} has {len(found)} weapons; name one of: {options}")
    return found[0]


def is_far(weapon: Weapon, distance: int | None) -> bool:
    """True when ``distance`` is beyond half the range, rounded up (C-5.3)."""
    if distance is None:
        return False
    if isinstance(distance, bool) or not isinstance(distance, int) or distance < 1:
        raise InputError(f"distance must be a positive number of tiles, got {distance!r}")
    if distance > weapon.range:
        raise InputError(f"{weapon.name} reaches {weapon.range} tiles, the target is {distance}")
    return distance > math.ceil(weapon.range / 2)


def pipeline(weapon: Weapon, target: Unit, situation: Situation) -> Distribution:
    """Exact distribution of one hit's damage, C-3 steps 1 to 8 plus C-3.9."""
    if weapon.type in EFFECT_ONLY:  # C-4.9: no direct damage
        return Distribution.point(0)
    size = weapon.damage.size + (0 if weapon.nostr else situation.strength)
    total = _oed_single(size)  # step 1 (C-1.5: strength enlarges the die)
    halve = situation.far and weapon.rangepen
    if halve and not situation.halve_final:  # C-5.3 [default]: halve raw roll, round up
        total = total.map(lambda t: (t + 1) // 2)
    if weapon.type in VULNERABLE_TYPES and weapon.type in target.vulnerable:
        total = total.map(lambda t: 2 * t)  # step 2
    shift = int(situation.immobile or target.immobile)  # step 3
    shift += int(situation.frozen)  # C-4.3
    shift -= situation.on_wall  # step 4
    shift -= 0 if weapon.an else target.armor  # step 5
    total = total.map(lambda t: t + shift)
    if target.shield and not weapon.shieldneg:  # step 6
        total = total.convolve(Distribution.uniform(-target.shield, 0))
    res = target.resistance(weapon.type)
    if res:  # step 7: floor of every fraction
        total = total.map(lambda t: (t * (100 - res)) // 100)
    if halve and situation.halve_final:  # C-5.3 alternative: halve the final damage
        total = total.map(lambda t: np.where(t > 0, (t + 1) // 2, t))
    total = total.map(lambda t: np.maximum(t, 0))  # step 8: below 1 does nothing
    if target.ethereal and not weapon.is_magic:  # C-3.9
        miss = Distribution.point(0)
        total = Distribution.mixture([ETHEREAL_MISS, 1 - ETHEREAL_MISS], [miss, total])
    return total


def _validate_situation(on_wall: int, strength: int) -> None:
    if isinstance(on_wall, bool) or not isinstance(on_wall, int) or not 0 <= on_wall <= 3:
        raise InputError(f"on_wall is a fortification level from 0 to 3, got {on_wall!r}")
    if isinstance(strength, bool) or not isinstance(strength, int):
        raise InputError(f"strength must be an integer, got {strength!r}")


def damage(
    weapon: Weapon | Unit | str,
    target: Unit | str,
    *,
    strength: int | None = None,
    on_wall: int = 0,
    immobile: bool = False,
    distance: int | None = None,
    frozen: bool = False,
    long_range_halving: str = "raw",
    roster: Roster | None = None,
) -> DamageDistribution:
    """Exact distribution of the damage one hit does, P(0) included.

    Parameters
    ----------
    weapon : Weapon, Unit or str
        A weapon, a single-weapon unit or its name, or ``"unit.weapon"``.
    target : Unit or str
        The unit hit.
    strength : int, optional
        The attacker's strength; defaults to the owning unit's (0 for a bare weapon).
    on_wall : int
        Fortification level (0-3) of the wall the target stands on.
    immobile, frozen : bool
        Target states adding +1 at C-3 step 3.
    distance : int, optional
        Tiles to the target, for the long-range halving of C-5.3.
    long_range_halving : "raw" or "final"
        C-5.3 [default] halves the raw roll; "final" halves the damage after step 7.
    roster : Roster, optional
        Where names are looked up (default: the shipped roster).

    Returns
    -------
    DamageDistribution
        HP lost, or for poison weapons the amount added to the poison pool
        (``kind == "poison"``).  ``.sample()`` runs the Numba pipeline.
    """
    owner, w = _single_weapon(weapon, roster)
    tgt = resolve_unit(target, roster)
    if strength is None:
        strength = owner.strength if owner is not None else 0
    _validate_situation(on_wall, strength)
    if long_range_halving not in ("raw", "final"):
        raise InputError(f"long_range_halving is 'raw' or 'final', not {long_range_halving!r}")
    situation = Situation(strength, on_wall, bool(immobile), bool(frozen), is_far(w, distance),
                          long_range_halving == "final")  # fmt: skip
    exact = pipeline(w, tgt, situation)
    kind = "poison" if w.type == "poison" else "hp"
    owner_name = owner.name if owner is not None else "weapon"
    name = f"{owner_name} {w.name} → {tgt.name}"
    return DamageDistribution(
        exact,
        weapon=w,
        target=tgt,
        kind=kind,
        sampler=_hit_sampler(w, tgt, situation),
        name=name,
    )


def _hit_sampler(weapon: Weapon, target: Unit, situation: Situation):
    # Pack a two-unit table: a carrier unit owning the weapon, and the target.
    carrier = Unit(name="_attacker", hp=1, weapons=(weapon,))
    packed = pack([carrier, target])
    size = weapon.damage.size + (0 if weapon.nostr else situation.strength)
    table, levels = oed_level_table(size) if size >= 2 else (oed_level_table(2)[0], 0)
    spot = (situation.on_wall, situation.immobile, situation.frozen, situation.far_code)
    lanes = oed_lane_params(size) if weapon.type != "paralysis" else np.empty(0, np.uint64)
    if lanes.size:  # d3/d5/d9 after strength: the vectorised lane sampler
        faces, ethereal, steps = lane_setup(packed.W, 0, packed.U, 1, *spot)
    args = (packed.W, 0, packed.U, 1, situation.strength, *spot, table, levels)

    def fill(states: np.ndarray, chunk: int, out: np.ndarray) -> None:
        if lanes.size and chunk % 4 == 0:
            # The lanes write int16; a wider ``out`` gets a converted copy.
            hits = out if out.dtype == np.int16 else np.empty(out.shape[0], dtype=np.int16)
            sample_hits_lanes(states, chunk, lanes, faces, ethereal, steps, hits)
            if hits is not out:
                out[:] = hits
        else:
            sample_hits(states, chunk, *args, out)

    return fill


def hits_to_kill(
    weapon: Weapon | Unit | str,
    target: Unit | str,
    *,
    max_hits: int = 100_000,
    **situation,
) -> Distribution:
    """Exact distribution of the number of hits needed to kill ``target``.

    Hits are independent draws of :func:`damage`; regeneration, poison and
    other effects between hits are not modelled (the battle kernel has them).
    The distribution is cut where the remaining mass drops below 1e-14, as
    for open-ended dice, and ``max_hits`` bounds the search.

    Raises
    ------
    InputError
        When a hit can never do damage, or the weapon only poisons.
    """
    return hits_to_kill_from(damage(weapon, target, **situation), max_hits)


def hits_to_kill_from(dmg: DamageDistribution, max_hits: int = 100_000) -> Distribution:
    """:func:`hits_to_kill` for a damage law already computed by :func:`damage`."""
    if dmg.kind == "poison":
        raise InputError(
            f"{dmg.weapon.name} deals poison, which kills through the pool over rounds; "
            "hits_to_kill counts direct HP damage (use a battle for poison)"
        )
    hp = dmg.target.hp
    if dmg.hi < 1:
        raise InputError(f"{dmg.weapon.name} can never damage {dmg.target.name}")
    # Dynamic programme over damage so far, capped at hp (any >= hp kills).
    step = np.zeros(hp + 1)
    support = dmg.support
    probs = dmg.probabilities
    capped = np.minimum(support, hp)
    np.add.at(step, capped, probs)
    step[hp] += dmg.tail
    alive = np.zeros(hp)  # P(damage so far = d and not dead), d < hp
    alive[0] = 1.0
    p_kill: list[float] = []
    remaining = 1.0
    for _ in range(max_hits):
        full = np.convolve(alive, step)
        killed = float(full[hp:].sum())
        alive = full[:hp]
        p_kill.append(killed)
        remaining = float(alive.sum())
        if remaining < TAIL_CUT:
            break
    name = f"hits to kill: {dmg.name}"
    return Distribution(np.array(p_kill), 1, tail=remaining, name=name)
