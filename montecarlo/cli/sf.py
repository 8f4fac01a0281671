"""``montecarlo sf``: Shared†Fantasia fights, single attacks and the roster."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from montecarlo.cli.common import positive_int, print_json, seed_int
from montecarlo.plotting import plot_exact_vs_sampled, save
from montecarlo.seeding import resolve_seed
from montecarlo.sf.characters import load_characters
from montecarlo.sf.exact import attack
from montecarlo.sf.fights import BATTLEFIELDS, fight
from montecarlo.sf.sampling import EVENTS, sample_attack
from montecarlo.stats import compare, wilson


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sf", help="Shared†Fantasia: party fights, attacks, characters")
    sf_sub = p.add_subparsers(dest="sf_command", required=True, metavar="SF_COMMAND")

    f = sf_sub.add_parser("fight", help="party vs party, many times (RULES.md S-1 to S-10)")
    f.add_argument("party_a", help="e.g. 'warrior:2,archer:1'")
    f.add_argument("party_b", help="e.g. 'goblin:4'")
    f.add_argument("--battlefield", default="open", choices=list(BATTLEFIELDS))
    f.add_argument("--surprise", choices=["a", "b"], help="the surprised side (S-8)")
    f.add_argument("--pincer", choices=["a", "b"], help="side caught between two fronts")
    group = f.add_mutually_exclusive_group()
    group.add_argument("--trials", type=positive_int, help="number of fights (default 20,000)")
    group.add_argument("--precision", type=float, help="target 95%% Wilson half-width")
    f.add_argument("--seed", type=seed_int)
    f.add_argument("--threads", type=positive_int)
    f.add_argument("--plot", metavar="PNG")
    f.add_argument("--characters", metavar="TOML", help="a file merged over the shipped roster")
    f.add_argument("--json", action="store_true")
    f.set_defaults(run=run_fight)

    a = sf_sub.add_parser("attack", help="exact odds and damage of one attack, with a check")
    a.add_argument("attacker")
    a.add_argument("defender")
    a.add_argument("--weapon", help="the attacker's weapon (default: its first)")
    for flag, text in (
        ("--cover", "the defender is in cover (+2 evade vs ranged)"),
        ("--surprised", "the defender is surprised (-2 evade)"),
        ("--ship", "on a ship deck (-2 unless used to ships)"),
        ("--pincer", "the defender is caught in a pincer (+1 to hit)"),
        ("--fatigue-attack", "blunt melee deals fatigue (S-3)"),
    ):
        a.add_argument(flag, action="store_true", help=text)
    a.add_argument("--trials", type=positive_int, default=200_000)
    a.add_argument("--seed", type=seed_int)
    a.add_argument("--plot", metavar="PNG", help="damage PMF, exact vs sampled")
    a.add_argument("--characters", metavar="TOML")
    a.add_argument("--json", action="store_true")
    a.set_defaults(run=run_attack)

    c = sf_sub.add_parser("characters", help="list the SF roster")
    c.add_argument("--characters", metavar="TOML")
    c.set_defaults(run=run_characters)


def run_fight(args: argparse.Namespace) -> int:
    roster = load_characters(args.characters)
    result = fight(
        args.party_a,
        args.party_b,
        trials=args.trials,
        precision=args.precision,
        seed=args.seed,
        battlefield=args.battlefield,
        surprise=args.surprise,
        pincer=args.pincer,
        threads=args.threads,
        progress=None,
        roster=roster,
    )
    if args.plot:
        save(result.plot(), args.plot)
    if args.json:
        print_json({**result.to_dict(), "plot": args.plot})
        return 0
    print(result.summary())
    if args.plot:
        print(f"\nplot written to {args.plot}")
    return 0


def run_attack(args: argparse.Namespace) -> int:
    roster = load_characters(args.characters)
    situation = {
        "cover": args.cover,
        "surprised": args.surprised,
        "ship": args.ship,
        "pincer": args.pincer,
    }
    exact = attack(
        args.attacker,
        args.defender,
        args.weapon,
        fatigue_attack=args.fatigue_attack,
        roster=roster,
        **situation,
    )
    ss = resolve_seed(args.seed)
    counts, dmg = sample_attack(
        exact.attacker,
        exact.defender,
        args.trials,
        exact.weapon.name,
        seed=ss,
        fatigue_attack=args.fatigue_attack,
        roster=roster,
        **situation,
    )
    n = dmg.size
    frame = exact.to_frame()
    sampled = [n - counts["hit"], *(counts[e] for e in EVENTS)]
    frame["sampled"] = np.array(sampled) / n
    cis = [wilson(int(k), n) for k in sampled]
    frame["ci95"] = [f"[{lo:.4f}, {hi:.4f}]" for lo, hi in cis]
    fit = compare(dmg, exact.damage)
    if args.plot:
        ax = plot_exact_vs_sampled(
            exact.damage,
            dmg,
            xlabel=f"{exact.kind} damage per attack",
            title=f"{exact.damage.name}: exact vs {n:,} sampled",
        )
        save(ax, args.plot)
    if args.json:
        print_json(
            {
                "attacker": exact.attacker.name,
                "defender": exact.defender.name,
                "weapon": exact.weapon.name,
                "kind": exact.kind,
                "hit_value": exact.hit_value,
                "evade_value": exact.evade_value,
                "events": frame.to_dict(orient="records"),
                "damage": {
                    "exact_mean": exact.damage.mean(),
                    "sampled_mean": dmg.mean(),
                    "chi2_pvalue": fit.pvalue,
                },
                "trials": n,
                "seed": ss.entropy,
            }
        )
        return 0
    print(
        f"{exact.attacker.name} ({exact.weapon.name}, hit {exact.hit_value:+d}) attacks "
        f"{exact.defender.name} (evade {exact.evade_value:+d}): exact vs {n:,} sampled"
    )
    with pd.option_context("display.width", 160):
        print(frame.to_string(index=False, float_format="{:.4f}".format))
    d = exact.damage
    print(
        f"\n{exact.kind} damage per attack: exact mean {d.mean():.3f}, sd {d.std():.3f}, "
        f"P(0) {float(d.pmf(0)):.4f}, q90 {float(d.ppf(0.9)):.0f}; sampled mean "
        f"{dmg.mean():.3f} ± {dmg.std() / np.sqrt(n):.3f}; chi-square p = {fit.pvalue:.3f}"
    )
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def run_characters(args: argparse.Namespace) -> int:
    roster = load_characters(args.characters)
    rows = [
        {
            "name": c.name,
            "kind": c.kind,
            "hp": c.hp,
            "body": c.body,
            "tech": c.tech,
            "power": c.power,
            "faith": c.faith,
            "combat": c.combat,
            "position": c.position,
            "armor": "/".join(str(c.armor_for(t)) for t in ("slash", "blunt", "pierce")),
            "weapons": "; ".join(f"{w.name} {w.damage} {w.type}" for w in c.weapons),
            "spells": "; ".join(s.name for s in c.spells),
        }
        for c in roster.characters()
    ]
    with pd.option_context("display.width", 220, "display.max_colwidth", 50):
        print(pd.DataFrame(rows).to_string(index=False))
    return 0
