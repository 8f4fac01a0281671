"""The exact duel oracle against icepool's general absorbing-chain solver (issue: CoE5 battles).

Both compute the exact outcome of a melee duel: ``duel_exact`` with its forward
programme over joint HP, icepool by mapping a per-round transition over
(hp_a, hp_b) with ``repeat="inf"``.  Fatigue is switched off so the two
models are the same; the win probabilities must agree.
Run: ``python benchmarks/bench_duel.py [--full]`` (``--full``: the 20-vs-15 HP
duel in icepool too, which takes minutes).  Needs ``pip install -e ".[bench]"``.
"""

from __future__ import annotations

import argparse
import time

import icepool
from _common import write_table

import montecarlo as mc
from montecarlo.coe5.units import Unit, Weapon

NO_FATIGUE = mc.BattleRules(fatigue_start=10**6)


def units(hp_a: int, hp_b: int) -> tuple[Unit, Unit]:
    big = Unit("Big", hp_a, (Weapon("Axe", mc.parse_die("1-6"), initiative=4),), armor=1, shield=1)
    small = Unit(
        "Small", hp_b, (Weapon("Sword", mc.parse_die("1-5"), initiative=3),), armor=2, strength=1
    )
    return big, small


def icepool_duel(a: Unit, b: Unit) -> tuple[float, float]:
    """P(a wins) by icepool, and the seconds it took."""

    def die(d: mc.Distribution) -> icepool.Die:
        # icepool weighs outcomes by integers: the exact pmf to 1e-12
        weights = {
            int(v): round(p * 10**12) for v, p in zip(d.support, d.probabilities, strict=True)
        }
        return icepool.Die({v: w for v, w in weights.items() if w > 0})

    da = die(mc.damage(a.weapons[0], b, strength=a.strength))
    db = die(mc.damage(b.weapons[0], a, strength=b.strength))

    def step(state: tuple[int, int], x: int, y: int) -> tuple[int, int]:
        ha, hb = state
        if ha <= 0 or hb <= 0:
            return state
        hb -= x  # initiative 4 strikes first
        if hb <= 0:
            return (ha, 0)
        return (max(ha - y, 0), hb)

    t0 = time.perf_counter()
    result = icepool.map(step, icepool.Die([(a.hp, b.hp)]), da, db, repeat="inf")
    seconds = time.perf_counter() - t0
    wins = sum(q for (_, hb), q in result.items() if hb <= 0)
    return float(wins / result.denominator()), seconds


def ours(a: Unit, b: Unit) -> tuple[float, float]:
    mc.duel_exact(a, b, rules=NO_FATIGUE)
    t0 = time.perf_counter()
    r = mc.duel_exact(a, b, rules=NO_FATIGUE)
    return r.p_attacker, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also run icepool on 20 vs 15 HP")
    args = parser.parse_args()
    cases = [(10, 8), (20, 15)] if args.full else [(10, 8)]
    lines = [
        "| duel (HP) | icepool | duel_exact | speed-up | P(win) icepool | P(win) ours |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for hp_a, hp_b in cases:
        a, b = units(hp_a, hp_b)
        p_ice, t_ice = icepool_duel(a, b)
        p_ours, t_ours = ours(a, b)
        lines.append(
            f"| {hp_a} vs {hp_b} | {t_ice:.2f} s | {t_ours * 1000:.2f} ms | "
            f"{t_ice / t_ours:,.0f}× | {p_ice:.6f} | {p_ours:.6f} |"
        )
        print(lines[-1], flush=True)
    a, b = units(20, 15)
    _, t = ours(a, b)
    lines += [
        "",
        f"- duel_exact on the 20-vs-15 HP duel: {t * 1000:.2f} ms (target: well under 1 s)",
    ]
    write_table("duel", lines)


if __name__ == "__main__":
    main()
