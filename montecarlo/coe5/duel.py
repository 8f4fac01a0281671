"""Exact 1-vs-1 CoE5 duels by a forward dynamic programme (the battle kernel's oracle).

The state is the joint distribution of (HP of the attacker, HP of the
defender), with 0 meaning dead.  Each round applies, in RULES.md C-8 order:
battle fatigue (step 1), the deterministic approach (steps 3-4, simulated
exactly as the kernel moves), the attacks in initiative order (steps 6-8),
regeneration (step 9) and the end check (step 11).  A weapon with several
shots a round makes that many attacks (C-5.2).  Attacks of equal
initiative come in a uniformly random order; rather than averaging over all
k! orders, the programme picks the next attack uniformly among those still
to come, which gives the same law; the state is how many attacks of each
kind are left, so k distinct attacks take k·2^(k-1) steps and s shots of
one weapon only s.

Each attack is one matrix product with that weapon's exact damage law
(:func:`~montecarlo.coe5.damage.damage`), so a 15-vs-20 HP duel takes
milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from montecarlo.coe5.battle import BattleRules
from montecarlo.coe5.battlefield import deploy
from montecarlo.coe5.damage import damage
from montecarlo.coe5.units import Roster, Unit, Weapon, resolve_unit
from montecarlo.distribution import Distribution
from montecarlo.errors import InputError

#: Stop once the still-undecided mass falls below this.
UNDECIDED_CUT = 1e-15

_STATUS_TYPES = ("fire", "cold", "shock", "poison", "decay", "paralysis")


@dataclass(frozen=True)
class DuelResult:
    """Exact outcome of a duel.

    Attributes
    ----------
    p_attacker, p_defender, p_draw : float
        Outcome probabilities (they sum to 1 up to ``undecided``).
    rounds : Distribution
        Law of the round in which the battle ends.
    contact_round : int
        The first round with attacks (after the approach).
    undecided : float
        Mass still undecided when the programme stopped (below 1e-15 unless
        the round limit ended it, in which case it is counted as draws).
    """

    attacker: Unit
    defender: Unit
    p_attacker: float
    p_defender: float
    p_draw: float
    rounds: Distribution
    contact_round: int
    undecided: float

    def probability(self, outcome: str) -> float:
        """P(outcome) for "attacker", "defender" or "draw"."""
        return {"attacker": self.p_attacker, "defender": self.p_defender, "draw": self.p_draw}[
            outcome
        ]

    def to_frame(self) -> pd.DataFrame:
        """Outcome probabilities as a DataFrame."""
        return pd.DataFrame(
            {
                "outcome": ["attacker wins", "defender wins", "draw"],
                "probability": [self.p_attacker, self.p_defender, self.p_draw],
            }
        )

    def agrees_with(self, counts: dict[str, int], level: float = 0.999) -> bool:
        """True when sampled outcome counts lie in their ``level`` intervals here."""
        from scipy import stats

        n = sum(counts.values())
        for key, k in counts.items():
            lo, hi = stats.binom.interval(level, n, self.probability(key))
            if not lo <= k <= hi:
                return False
        return True

    def summary(self) -> str:
        mean = self.rounds.mean()
        return (
            f"{self.attacker.name} vs {self.defender.name} (exact)\n"
            f"attacker wins {self.p_attacker:.6f}\n"
            f"defender wins {self.p_defender:.6f}\n"
            f"draw          {self.p_draw:.6f}\n"
            f"rounds: mean {mean:.3f}, first contact in round {self.contact_round}"
        )


def _check_scope(u: Unit, other: Unit, side: int) -> None:
    """Refuse what the programme does not model, saying why."""
    why = []
    for w in u.weapons:
        if w.is_ranged:
            why.append(f"its {w.name} is a ranged weapon (the oracle covers melee duels)")
        if w.type in _STATUS_TYPES:
            why.append(f"its {w.name} deals {w.type}, which leaves a status effect")
        for flag in ("prebattle", "assassin", "wand", "cloud", "siege"):
            # C-7.2: only the attacker's assassins strike before the battle
            if getattr(w, flag) and not (flag == "assassin" and side == 1):
                why.append(f"its {w.name} is a '{flag}' weapon")
    if u.fear and other.morale < 99:
        why.append(f"it causes fear and {other.name} (morale {other.morale}) can rout")
    if u.decay:
        why.append("it is decaying")
    if u.combat_burrowing:
        why.append("it burrows in combat (C-7.5 moves it next to a random enemy)")
    if why:
        raise InputError(f"duel_exact cannot model {u.name}: " + "; ".join(why))


def _contact_round(a: Unit, b: Unit, width: int, length: int) -> int | None:
    """First round in which the two are adjacent after movement (kernel's C-8.3-4)."""
    dep = deploy([(a, 1)], [(b, 1)], width, length)
    pos = [[int(dep.x[0]), int(dep.y[0])], [int(dep.x[1]), int(dep.y[1])]]
    units = (a, b)

    def dist() -> int:
        return max(abs(pos[0][0] - pos[1][0]), abs(pos[0][1] - pos[1][1]))

    for rnd in range(1, 2 * (width + length) + 2):
        for sweep in (0, 1):
            for i in (0, 1):
                u = units[i]
                if u.immobile or (sweep == 1 and not u.fast) or dist() <= 1:
                    continue
                j = 1 - i
                for axis in (0, 1):
                    pos[i][axis] += int(np.sign(pos[j][axis] - pos[i][axis]))
        if dist() <= 1:
            return rnd
    return None  # they never meet (both immobile, or one immobile out of reach)


def _transition(dmg: Distribution, hp: int) -> np.ndarray:
    """T[h, h'] = P(HP h becomes h' after one hit), with 0 absorbing."""
    t = np.zeros((hp + 1, hp + 1))
    t[0, 0] = 1.0
    support = dmg.support
    probs = dmg.probabilities
    for h in range(1, hp + 1):
        after = np.maximum(h - support, 0)
        np.add.at(t[h], after, probs)
        t[h, 0] += dmg.tail  # the cut-off tail certainly kills
    return t


def duel_exact(
    a: Unit | str,
    b: Unit | str,
    *,
    width: int = 10,
    length: int = 20,
    rules: BattleRules | None = None,
    roster: Roster | None = None,
    siege: bool = False,
) -> DuelResult:
    """Exact outcome probabilities and rounds law of a 1-vs-1 melee battle.

    Parameters
    ----------
    a, b : Unit or str
        The attacker and the defender (melee units without status effects).
    width, length, rules
        As in :func:`~montecarlo.coe5.battle.matchup`; fatigue and the
        approach follow them.

    Raises
    ------
    InputError
        For cases outside the programme's scope (ranged weapons, status
        effects, fear against a unit that can rout, decay, combat burrowing,
        sieges), with the reason.
    """
    if siege:
        raise InputError("duel_exact does not model sieges (walls and siege rounds)")
    rules = rules or BattleRules()
    ua, ub = resolve_unit(a, roster), resolve_unit(b, roster)
    _check_scope(ua, ub, 0)
    _check_scope(ub, ua, 1)
    contact = _contact_round(ua, ub, width, length)
    fatigue = rules.fatigue_start if rules.fatigue_start is not None else max(100, 100 + 2)
    ha, hb = ua.hp, ub.hp

    # Attacks of one round, grouped by initiative (highest first); within a group,
    # kinds of attack as [side, transition matrix, count] (count = the weapon's shots).
    attacks: list[tuple[int, int, np.ndarray, int]] = []
    for side, (me, foe, hp_foe) in enumerate(((ua, ub, hb), (ub, ua, ha))):
        for w in me.weapons:
            # C-5.2: every shot is its own attack, ordered like any other (C-8.6)
            attacks.append((w.initiative, side, _transition(_hit(me, w, foe), hp_foe), w.shots))
    attacks.sort(key=lambda x: -x[0])
    groups: list[list[tuple[int, np.ndarray, int]]] = []
    last_init = None
    for init, side, t, shots in attacks:
        if init != last_init:
            groups.append([])
            last_init = init
        groups[-1].append((side, t, shots))

    def apply(p: np.ndarray, side: int, t: np.ndarray) -> np.ndarray:
        q = p.copy()
        if side == 0:  # the attacker (rows) hits the defender (columns), if alive
            q[1:, :] = p[1:, :] @ t
        else:
            q[:, 1:] = t.T @ p[:, 1:]
        return q

    def apply_group(p: np.ndarray, group) -> np.ndarray:
        # C-8.6: a uniformly random order of the group's attacks is the same law
        # as drawing the next attack uniformly among those still to come; the
        # state is how many of each kind remain.
        if len(group) == 1 and group[0][2] == 1:
            return apply(p, group[0][0], group[0][1])
        layers = {tuple(g[2] for g in group): p}
        for left in range(sum(g[2] for g in group), 0, -1):
            nxt: dict[tuple[int, ...], np.ndarray] = {}
            for counts, m in layers.items():
                for i, (side, t, _) in enumerate(group):
                    if counts[i]:
                        out = apply(m, side, t) * (counts[i] / left)
                        key = (*counts[:i], counts[i] - 1, *counts[i + 1 :])
                        nxt[key] = nxt[key] + out if key in nxt else out
            layers = nxt
        return layers[tuple(0 for _ in group)]

    regen = [int(np.ceil(rules.regen_fraction * u.hp - 1e-9)) if u.regeneration else 0
             for u in (ua, ub)]  # fmt: skip
    p = np.zeros((ha + 1, hb + 1))
    p[ha, hb] = 1.0
    outcome = np.zeros(3)
    rounds_pmf: list[float] = [0.0]
    undecided = 1.0
    for rnd in range(1, rules.max_rounds + 1):
        if rnd >= fatigue:  # step 1: both lose (round - F + 1), dead stays dead
            loss = rnd - fatigue + 1
            p = _shift(p, -loss, axis=0)
            p = _shift(p, -loss, axis=1)
        if contact is not None and rnd >= contact:
            for group in groups:
                p = apply_group(p, group)
        for axis, heal in enumerate(regen):  # step 9
            if heal:
                p = _shift(p, heal, axis=axis, cap=True)
        # step 11: absorb ended battles
        a_dead, b_dead = p[0, 1:].sum(), p[1:, 0].sum()
        both = p[0, 0]
        outcome += (b_dead, a_dead, both)
        rounds_pmf.append(a_dead + b_dead + both)
        p[0, :] = 0.0
        p[:, 0] = 0.0
        undecided = p.sum()
        if undecided < UNDECIDED_CUT:
            break
    else:
        outcome[2] += undecided  # C-8.11: the round limit is a draw
        rounds_pmf[-1] += undecided
        undecided = 0.0
    rounds = Distribution(np.array(rounds_pmf), 0, tail=undecided,
                          name=f"rounds: {ua.name} vs {ub.name}")  # fmt: skip
    return DuelResult(ua, ub, *map(float, outcome), rounds, contact or 0, float(undecided))


def _hit(attacker: Unit, weapon: Weapon, target: Unit) -> Distribution:
    return damage((attacker, weapon), target)


def _shift(p: np.ndarray, delta: int, axis: int, cap: bool = False) -> np.ndarray:
    """Move HP of living states by ``delta`` along ``axis``; 0 stays 0 (dead)."""
    q = np.zeros_like(p)
    n = p.shape[axis]
    src = np.moveaxis(p, axis, 0)
    dst = np.moveaxis(q, axis, 0)
    dst[0] += src[0]
    for h in range(1, n):
        target = h + delta
        if cap:
            target = min(target, n - 1)
        dst[max(target, 0)] += src[h]
    return q


def duel_table(pairs, **options) -> pd.DataFrame:
    """Exact duel outcomes for several (attacker, defender) pairs."""
    rows = []
    for a, b in pairs:
        r = duel_exact(a, b, **options)
        rows.append({"attacker": r.attacker.name, "defender": r.defender.name,
                     "p_attacker": r.p_attacker, "p_defender": r.p_defender,
                     "p_draw": r.p_draw, "mean_rounds": r.rounds.mean()})  # fmt: skip
    return pd.DataFrame(rows)
