"""``montecarlo damage``: exact damage of one hit next to a sampled check."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from montecarlo.cli.common import add_run_options, print_json
from montecarlo.coe5.damage import damage
from montecarlo.coe5.reports import damage_heatmap, damage_table
from montecarlo.coe5.units import load_units, resolve_weapon
from montecarlo.driver import run_fill
from montecarlo.errors import InputError
from montecarlo.plotting import plot_exact_vs_sampled, plot_overlay, save
from montecarlo.seeding import derive, resolve_seed
from montecarlo.stats import compare


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "damage",
        help="damage of one hit: exact distribution and a sampled check",
        description="Damage of one hit through the CoE5 pipeline (RULES.md C-3 to C-5).",
    )
    p.add_argument("attacker", nargs="?", help="unit name or 'unit.weapon'")
    p.add_argument("defender", nargs="?", help="unit name")
    p.add_argument("--all", action="store_true", help="roster-wide table and heatmap")
    p.add_argument("--wall", type=int, default=0, help="fortification level of the target's wall")
    p.add_argument("--distance", type=int, help="tiles to the target (long-range halving)")
    p.add_argument("--immobile", action="store_true", help="the target cannot move (+1)")
    p.add_argument("--frozen", action="store_true", help="the target is frozen (+1)")
    p.add_argument("--plot", metavar="PNG", help="write the plot here")
    p.add_argument(
        "--metric", choices=["mean", "hits_to_kill"], default="mean", help="heatmap metric (--all)"
    )
    p.add_argument("--roster", metavar="TOML", help="a roster file merged over the shipped one")
    add_run_options(p, default_trials=200_000)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    roster = load_units(args.roster)
    situation = {
        "on_wall": args.wall,
        "immobile": args.immobile,
        "frozen": args.frozen,
        "distance": args.distance,
    }
    if args.all:
        return _run_all(args, roster, situation)
    if not args.attacker or not args.defender:
        raise InputError("give an attacker and a defender, e.g. 'damage pikeman knight', or --all")
    weapons = resolve_weapon(args.attacker, roster)
    defender = roster[args.defender]
    ss = resolve_seed(args.seed)
    rows, dists, samples = [], [], []
    for k, (owner, weapon) in enumerate(weapons):
        if weapon.type == "paralysis":
            continue
        dist = damage((owner, weapon), defender, roster=roster, **situation)
        result = run_fill(
            dist._sampler, args.trials, derive(ss, k), threads=args.threads, desc=weapon.name
        )
        x = result.values
        fit = compare(x, dist)
        se = x.std(ddof=1) / np.sqrt(x.size)
        rows.append(
            {
                "weapon": weapon.name,
                "kind": dist.kind,
                "exact_mean": dist.mean(),
                "sampled_mean": x.mean(),
                "mc_error": se,
                "exact_p0": float(dist.pmf(0)),
                "sampled_p0": float((x == 0).mean()),
                "exact_p90": float(dist.ppf(0.9)),
                "sampled_p90": float(np.quantile(x, 0.9, method="inverted_cdf")),
                "chi2_pvalue": fit.pvalue,
            }
        )
        dists.append(dist)
        samples.append(x)
    if not rows:
        raise InputError(f"{args.attacker} has no weapon that does direct damage")
    if args.plot:
        if len(dists) == 1:
            ax = plot_exact_vs_sampled(
                dists[0], samples[0], xlabel=f"{dists[0].kind} damage per hit",
                title=f"{dists[0].name}: exact PMF vs {samples[0].size:,} sampled hits",
            )  # fmt: skip
            save(ax, args.plot)
        else:
            title = f"{weapons[0][0].name} → {defender.name}: damage per hit"
            fig = plot_overlay(dists, title=title)
            save(fig, args.plot)
    if args.json:
        print_json({"attacker": args.attacker, "defender": defender.name,
                    "situation": situation, "trials": args.trials, "seed": ss.entropy,
                    "weapons": rows, "plot": args.plot})  # fmt: skip
        return 0
    print(f"{args.attacker} → {defender.name}: damage per hit, exact vs {args.trials:,} sampled")
    frame = pd.DataFrame(rows).set_index("weapon")
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(frame.to_string())
    if any(r["kind"] == "poison" for r in rows):
        print("poison rows: amount added to the poison pool, not HP lost now (C-4.5)")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _run_all(args: argparse.Namespace, roster, situation) -> int:
    table = damage_table(roster=roster, **situation)
    plot = args.plot or "damage_heatmap.png"
    save(damage_heatmap(table, args.metric), plot)
    if args.json:
        print_json({"rows": table.to_dict(orient="records"), "plot": plot})
        return 0
    with pd.option_context(
        "display.width", 200, "display.max_rows", 1000, "display.float_format", "{:.3f}".format
    ):
        print(table.to_string(index=False))
    print(f"heatmap written to {plot}")
    return 0
