"""Exact Shared†Fantasia pieces: opposed attacks, damage, friendly fire, fainting.

RULES.md S-1.2 (opposed rolls), S-2 (hit and evade), S-3 (damage), S-4
(fatigue, fainting, death) and S-6 (the friendly-fire procedure).  All of it is
small enough to enumerate, so every probability here is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
import pandas as pd

from montecarlo.distribution import Distribution
from montecarlo.errors import InputError
from montecarlo.sf.characters import (
    Character,
    CharacterRoster,
    Dice,
    SFWeapon,
    resolve_character,
)
from montecarlo.sf.checks import check

#: S-9 ship deck and S-8 surprise penalties; S-6 cover bonus.
SHIP_PENALTY = 2
SURPRISE_PENALTY = 2
COVER_BONUS = 2
PINCER_BONUS = 1


# -- opposed rolls (S-1.2) -----------------------------------------------------------
@dataclass(frozen=True)
class OpposedOdds:
    """Exact joint probabilities of an attack roll against an evade roll.

    The flags are not exclusive: a dramatic hit can meet a defender fumble, and
    an attacker fumble can meet a dramatic evade.  ``cells`` holds the joint
    law of (hit, dramatic hit, defender fumble) that the damage law needs.
    """

    hit: Fraction
    dramatic: Fraction  # attacker's dramatic success, and a hit
    attacker_fumble: Fraction
    defender_dramatic: Fraction
    defender_fumble: Fraction
    cells: dict[tuple[bool, bool, bool], Fraction]

    @property
    def miss(self) -> Fraction:
        return 1 - self.hit


def opposed(hit_value: int, evade_value: int, clash: str = "totals") -> OpposedOdds:
    """Exact odds of 2d6 + ``hit_value`` against 2d6 + ``evade_value`` (S-1.2).

    The passive side wins ties.  A natural 12 or 2 decides the roll for its
    side (S-1.1); when both sides roll such a special and they disagree, the
    totals decide instead (S-1.2 [default], ``clash="totals"``), or the passive
    side wins (``clash="defender"``).
    """
    if clash not in ("totals", "defender"):
        raise InputError(f"clash is 'totals' or 'defender', not {clash!r}")
    counts = {"hit": 0, "dramatic": 0, "afumble": 0, "ddramatic": 0, "dfumble": 0}
    cells: dict[tuple[bool, bool, bool], int] = {}
    faces = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    for a1, a2 in faces:
        na = a1 + a2
        ta = na + hit_value
        for d1, d2 in faces:
            nd = d1 + d2
            td = nd + evade_value
            hit = ta > td
            # Each side's special, as a verdict on "hit": True, False or None.
            a_says = True if na == 12 else (False if na == 2 else None)
            d_says = False if nd == 12 else (True if nd == 2 else None)
            if a_says is not None and d_says is not None and a_says != d_says:
                verdict = hit if clash == "totals" else False  # S-1.2 [default]: totals
            elif a_says is not None:
                verdict = a_says
            elif d_says is not None:
                verdict = d_says
            else:
                verdict = hit
            dramatic = verdict and na == 12 and ta >= td + 1
            dfumble = nd == 2 and td < ta
            counts["hit"] += verdict
            counts["dramatic"] += dramatic
            counts["afumble"] += na == 2 and ta < td + 1
            counts["ddramatic"] += nd == 12 and td >= ta
            counts["dfumble"] += dfumble
            key = (bool(verdict), bool(dramatic), bool(dfumble and verdict))
            cells[key] = cells.get(key, 0) + 1
    f = {k: Fraction(v, 1296) for k, v in counts.items()}
    return OpposedOdds(f["hit"], f["dramatic"], f["afumble"], f["ddramatic"], f["dfumble"],
                       {k: Fraction(v, 1296) for k, v in cells.items()})  # fmt: skip


# -- damage (S-3) ----------------------------------------------------------------------
def d6_sum(n: int) -> Distribution:
    """Exact law of the sum of ``n`` six-sided dice."""
    dist = Distribution.point(0)
    die = Distribution.uniform(1, 6)
    for _ in range(n):
        dist = dist.convolve(die)
    return dist


def damage_law(dice: Dice, stat: int, armor: int, pierce: bool) -> Distribution:
    """Damage of one hit: dice + stat - armour, at least 0; pierce doubles what passes (S-3)."""
    raw = d6_sum(dice.n).map(lambda v: v + dice.bonus + stat)
    through = raw.map(lambda v: np.maximum(v - armor, 0))
    return through.map(lambda v: 2 * v) if pierce else through


@dataclass(frozen=True)
class AttackOdds:
    """Exact odds and damage of one attack (S-1.2, S-2, S-3).

    Attributes
    ----------
    odds : OpposedOdds
        Hit, dramatic hit, fumbles and dramatic evade.
    damage : Distribution
        Damage per attack, misses counting 0.
    damage_if_hit : Distribution
        Damage given a hit.
    kind : str
        ``"injury"`` or ``"fatigue"`` (S-3).
    hit_value, evade_value : int
        The values rolled against each other, all modifiers included.
    """

    attacker: Character
    defender: Character
    weapon: SFWeapon
    odds: OpposedOdds
    damage: Distribution
    damage_if_hit: Distribution
    kind: str
    hit_value: int
    evade_value: int

    def to_frame(self) -> pd.DataFrame:
        """The probabilities as a small DataFrame (floats, with exact fractions)."""
        o = self.odds
        rows = [("miss", o.miss), ("hit", o.hit), ("dramatic hit", o.dramatic),
                ("attacker fumble", o.attacker_fumble),
                ("defender dramatic evade", o.defender_dramatic),
                ("defender fumble", o.defender_fumble)]  # fmt: skip
        return pd.DataFrame(
            {
                "event": [r[0] for r in rows],
                "probability": [float(r[1]) for r in rows],
                "exact": [str(r[1]) for r in rows],
            }
        )


def hit_and_evade(
    attacker: Character,
    defender: Character,
    weapon: SFWeapon,
    *,
    cover: bool = False,
    shooter_in_cover: bool = False,
    surprised: bool = False,
    ship: bool = False,
    pincer: bool = False,
    hit_mod: int = 0,
    evade_mod: int = 0,
) -> tuple[int, int]:
    """Hit and evade values of an attack with all situational modifiers (S-2, S-6, S-8, S-9)."""
    if weapon.ranged:  # S-2: ranged uses Tech, melee uses Body
        hit = attacker.tech + attacker.combat
        evade = defender.tech + defender.combat
    else:
        hit = attacker.body + attacker.combat
        evade = defender.body + defender.combat
    hit += hit_mod + (PINCER_BONUS if pincer else 0)
    evade += evade_mod
    if weapon.ranged and cover:
        evade += COVER_BONUS  # S-6: +2 to evade ranged attacks from cover
    if weapon.ranged and shooter_in_cover:
        hit -= COVER_BONUS  # S-6: shooting from cover
    if surprised:
        evade -= SURPRISE_PENALTY  # S-8
    if ship:  # S-9 ship deck
        hit -= 0 if attacker.ships else SHIP_PENALTY
        evade -= 0 if defender.ships else SHIP_PENALTY
    return hit, evade


def attack(
    attacker: Character | str,
    defender: Character | str,
    weapon: str | None = None,
    *,
    fatigue_attack: bool = False,
    clash: str = "totals",
    roster: CharacterRoster | None = None,
    **situation: object,
) -> AttackOdds:
    """Exact odds and damage law of one attack.

    Parameters
    ----------
    attacker, defender : Character or name
    weapon : str, optional
        The attacker's weapon by name (default: its first weapon).
    fatigue_attack : bool
        Deal fatigue instead of injury with a blunt melee weapon (S-3).
    clash : "totals" or "defender"
        How clashing specials are settled (S-1.2 [default] "totals").
    **situation
        ``cover``, ``shooter_in_cover``, ``surprised``, ``ship``, ``pincer``,
        ``hit_mod``, ``evade_mod``; see :func:`hit_and_evade`.
    """
    a = resolve_character(attacker, roster)
    d = resolve_character(defender, roster)
    w = a.weapon(weapon)
    allowed = {"cover", "shooter_in_cover", "surprised", "ship", "pincer", "hit_mod", "evade_mod"}
    unknown = set(situation) - allowed
    if unknown:
        raise InputError(f"unknown situation {sorted(unknown)}; expected any of {sorted(allowed)}")
    if fatigue_attack and (w.ranged or w.type != "blunt"):
        raise InputError("only blunt melee weapons can make a fatigue attack (S-3)")
    hit, evade = hit_and_evade(a, d, w, **situation)  # type: ignore[arg-type]
    odds = opposed(hit, evade, clash)
    stat = a.tech if w.ranged else a.body  # S-3
    armor = d.armor_for(w.type)
    pierce = w.type == "pierce"
    laws = {}
    for (is_hit, dramatic, ignore_armor), p in odds.cells.items():
        if not is_hit:
            continue
        dice = w.damage.doubled() if dramatic else w.damage
        laws[(dramatic, ignore_armor)] = (
            p,
            damage_law(dice, stat, 0 if ignore_armor else armor, pierce),
        )
    weights = [float(p) for p, _ in laws.values()]
    if_hit = Distribution.mixture(
        [x / sum(weights) for x in weights], [law for _, law in laws.values()]
    )
    per_attack = Distribution.mixture([float(odds.miss), float(odds.hit)],
                                      [Distribution.point(0), if_hit])  # fmt: skip
    kind = "fatigue" if (w.fatigue or fatigue_attack) else "injury"
    name = f"{a.name} {w.name} → {d.name} ({kind})"
    return AttackOdds(a, d, w, odds, per_attack.with_name(name), if_hit.with_name(name), kind,
                      hit, evade)  # fmt: skip


# -- friendly fire (S-6) ------------------------------------------------------------------
FF_GROUPS = ("fewest", "six")


def _check_groups(groups: str) -> None:
    if groups not in FF_GROUPS:
        raise InputError(f"friendly-fire groups are 'fewest' or 'six', not {groups!r}")


def friendly_fire_groups(n: int, groups: str = "fewest") -> list[int]:
    """Group sizes for ``n`` engaged characters (S-6 [default]): one group if n <= 6.

    ``groups="fewest"`` [default]: 7-12 make 2 groups, 13-18 make 3, ..., at
    most 6; ``"six"``: always 6 groups.  Sizes as equal as possible with the
    larger groups first.
    """
    _check_groups(groups)
    if n < 1:
        raise InputError(f"friendly fire needs at least one engaged character, got {n}")
    if n <= 6:
        return [n]
    g = 6 if groups == "six" else min(6, math.ceil(n / 6))
    base, extra = divmod(n, g)
    return [base + 1] * extra + [base] * (g - extra)


def friendly_fire(n: int, groups: str = "fewest") -> pd.DataFrame:
    """Exact chance that each of ``n`` engaged characters is the one hit (S-6).

    ``groups`` is ``SFRules.friendly_fire_groups``: how many groups 7 or more
    characters make, ``"fewest"`` [default] or ``"six"``.

    One d6 picks among up to six: odd/even for 2, pairs of faces for 3, one
    face each (rerolling unused faces) for 4-6, so each pick is uniform.  For 7
    or more, a d6 picks a group, then another die picks inside it; groups of
    unequal size make the law non-uniform.  Characters are numbered in
    engage-area order and fill the groups in order.

    Returns
    -------
    pandas.DataFrame
        ``position``, ``group``, ``probability`` (float) and ``exact`` (fraction).
    """
    _check_groups(groups)
    probs: list[Fraction] = []
    group_of: list[int] = []

    def walk(size: int, weight: Fraction, group: int) -> None:
        sizes = friendly_fire_groups(size, groups)
        if len(sizes) == 1:
            probs.extend([weight / size] * size)
            group_of.extend([group] * size)
            return
        for k, s in enumerate(sizes):
            walk(s, weight / len(sizes), group if group >= 0 else k)

    walk(n, Fraction(1), -1)
    group_of = [max(g, 0) for g in group_of]
    return pd.DataFrame({"position": range(n), "group": group_of,
                         "probability": [float(p) for p in probs],
                         "exact": [str(p) for p in probs]})  # fmt: skip


def ally_hit_chance(allies: int, enemies: int, groups: str = "fewest") -> Fraction:
    """Exact chance that a shot into the engage area hits one of the shooter's allies.

    The engaged characters (the shooter left out) are listed alternately enemy
    and ally, enemies first, before the S-6 groups are filled (S-6 [default]
    balanced groups), so the chance never depends on which side shoots.
    ``groups`` is ``SFRules.friendly_fire_groups`` (``"fewest"`` or ``"six"``).
    """
    for v, what in ((allies, "allies"), (enemies, "enemies")):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 0:
            raise InputError(f"{what} must be a whole number >= 0, got {v!r}")
    if allies + enemies == 0:
        raise InputError("friendly fire needs at least one engaged character")
    order = []
    for q in range(max(allies, enemies)):
        order += ["enemy"] * (q < enemies) + ["ally"] * (q < allies)
    probs = friendly_fire(allies + enemies, groups)["exact"]
    return sum((Fraction(p) for p, w in zip(probs, order, strict=True) if w == "ally"), Fraction(0))


# -- fainting and death (S-4) ---------------------------------------------------------------
@dataclass(frozen=True)
class SFState:
    """A character's damage state in one combat (S-4).

    ``peak`` is the highest fatigue reached in this combat; heavy fatigue grows
    by one each time ``peak`` passes a new multiple of 5.
    """

    hp: int
    fortitude: int = 0
    injury: int = 0
    fatigue: int = 0
    heavy: int = 0
    peak: int = 0

    @classmethod
    def of(cls, c: Character) -> SFState:
        return cls(hp=c.hp, fortitude=c.fortitude)

    @property
    def effective_fatigue(self) -> int:
        """max(fatigue, heavy fatigue) (S-4)."""
        return max(self.fatigue, self.heavy)

    def take(self, damage: int, kind: str = "injury") -> SFState:
        """The state after ``damage`` of ``kind`` ("injury" or "fatigue")."""
        if kind == "injury":
            return replace(self, injury=self.injury + damage)
        if kind != "fatigue":
            raise InputError(f"damage kind is 'injury' or 'fatigue', not {kind!r}")
        fatigue = self.fatigue + damage
        peak = max(self.peak, fatigue)
        heavy = self.heavy + peak // 5 - self.peak // 5  # once per new multiple of 5
        return replace(self, fatigue=fatigue, peak=peak, heavy=heavy)


DEATH_THRESHOLDS = (">", ">=")


def outcome_chances(
    state: SFState, save_mod: int = 0, death_threshold: str = ">"
) -> dict[str, float]:
    """Chances of standing, fainted and dead right after damage put ``state`` where it is.

    Automatic death at injury >= HP + 10; a death check (Fortitude, target 10,
    penalty injury - HP) when injury exceeds HP (``death_threshold=">"``, S-4
    [default]; ``">="`` makes it at injury >= HP), fainting even on a success;
    otherwise a faint check (target 10 + injury + fatigue + heavy - HP) when
    injury + max(fatigue, heavy) reaches HP.
    """
    if death_threshold not in DEATH_THRESHOLDS:
        raise InputError(f"death_threshold is '>' or '>=', not {death_threshold!r}")
    over = state.injury - state.hp
    if state.injury >= state.hp + 10:
        return {"standing": 0.0, "fainted": 0.0, "dead": 1.0}
    if over > 0 or (over == 0 and death_threshold == ">="):
        survive = float(check(state.fortitude + save_mod - over, 10).p_success)
        return {"standing": 0.0, "fainted": survive, "dead": 1 - survive}
    if state.injury + state.effective_fatigue >= state.hp:
        target = 10 + state.injury + state.fatigue + state.heavy - state.hp
        stay = float(check(state.fortitude + save_mod, target).p_success)
        return {"standing": stay, "fainted": 1 - stay, "dead": 0.0}
    return {"standing": 1.0, "fainted": 0.0, "dead": 0.0}


def _after(state: SFState, damage: int, kind: str, save_mod: int, threshold: str) -> dict:
    if damage <= 0:  # S-4: a blow that deals no damage triggers no check
        return {"standing": 1.0, "fainted": 0.0, "dead": 0.0}
    return outcome_chances(state.take(damage, kind), save_mod, threshold)


def _expected(
    state: SFState | Character | str,
    damage: int | Distribution,
    kind: str,
    save_mod: int,
    threshold: str,
    roster: CharacterRoster | None,
) -> dict:
    if isinstance(state, str | Character):
        state = SFState.of(resolve_character(state, roster))
    elif not isinstance(state, SFState):
        raise InputError(
            f"state is an SFState, a Character or a character name, not {type(state).__name__}"
        )
    if kind not in ("injury", "fatigue"):
        raise InputError(f"damage kind is 'injury' or 'fatigue', not {kind!r}")
    if isinstance(save_mod, bool) or not isinstance(save_mod, int | np.integer):
        raise InputError(f"save_mod must be an integer, got {save_mod!r}")
    if isinstance(damage, Distribution):
        total = {"standing": 0.0, "fainted": 0.0, "dead": 0.0}
        for v, p in zip(damage.support, damage.probabilities, strict=True):
            for k, x in _after(state, int(v), kind, save_mod, threshold).items():
                total[k] += p * x
        return total
    if isinstance(damage, bool) or not isinstance(damage, int | np.integer):
        raise InputError(
            f"damage is a whole number or a Distribution, not {type(damage).__name__} {damage!r}"
        )
    return _after(state, int(damage), kind, save_mod, threshold)


def faint_chance(
    state: SFState | Character | str,
    damage: int | Distribution,
    kind: str = "injury",
    save_mod: int = 0,
    *,
    death_threshold: str = ">",
    roster: CharacterRoster | None = None,
) -> float:
    """Chance of ending fainted (alive) after taking ``damage`` (S-4).

    ``state`` is an :class:`SFState`, a :class:`Character` or a character name
    from the roster (unhurt).  A damage of 0 triggers no check.
    ``death_threshold`` is the S-4 [default] ``">"`` (or ``">="``).
    """
    return _expected(state, damage, kind, save_mod, death_threshold, roster)["fainted"]


def death_chance(
    state: SFState | Character | str,
    damage: int | Distribution,
    kind: str = "injury",
    save_mod: int = 0,
    *,
    death_threshold: str = ">",
    roster: CharacterRoster | None = None,
) -> float:
    """Chance of dying after taking ``damage`` (S-4); arguments as :func:`faint_chance`."""
    return _expected(state, damage, kind, save_mod, death_threshold, roster)["dead"]
