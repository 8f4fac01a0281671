"""``montecarlo damage``: exact damage of one hit next to a sampled check."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from montecarlo.cli.common import (
    add_command,
    add_run_options,
    check_plot,
    int_in,
    plot_option,
    print_json,
)
from montecarlo.coe5.damage import damage
from montecarlo.coe5.reports import damage_heatmap, damage_table
from montecarlo.coe5.units import load_units, resolve_weapon
from montecarlo.driver import run_reduce, stop_requested
from montecarlo.errors import InputError
from montecarlo.plotting import plot_exact_vs_sampled, plot_overlay, save
from montecarlo.seeding import derive, resolve_seed
from montecarlo.stats import Histogram, fit_test

#: Written by ``--all`` when no --plot is given.
DEFAULT_HEATMAP = "damage_heatmap.png"


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "damage",
        "damage of one hit: exact distribution and a sampled check",
        "Damage of one hit through the CoE5 pipeline (rules C-3 to C-5), exact, next to "
        "a sample drawn by the Numba pipeline.  With --all: an exact table for every "
        "weapon of the roster against every unit, and a heatmap.",
        [
            "montecarlo damage knight wraith --seed 1 --plot knight_vs_wraith.png",
            "montecarlo damage knight.lance troll --wall 2 --json",
            "montecarlo damage --all --metric hits_to_kill --plot hits.png",
        ],
    )
    p.add_argument("attacker", nargs="?", help="unit name or 'unit.weapon'")
    p.add_argument("defender", nargs="?", help="unit name")
    p.add_argument(
        "--all",
        action="store_true",
        help=f"roster-wide table and heatmap (plot default: {DEFAULT_HEATMAP})",
    )
    p.add_argument(
        "--wall",
        type=int_in(0, 3),
        default=0,
        help="fortification level 0-3 of the wall the target stands on (C-3 step 4)",
    )
    p.add_argument(
        "--distance",
        type=int_in(1, 1000),
        default=None,
        help="tiles to the target, for the long-range halving of C-5.3 (default: near)",
    )
    p.add_argument("--immobile", action="store_true", help="the target cannot move (+1)")
    p.add_argument("--frozen", action="store_true", help="the target is frozen (+1)")
    plot_option(p, "the damage plot")
    p.add_argument(
        "--metric", choices=["mean", "hits_to_kill"], default="mean", help="heatmap metric (--all)"
    )
    p.add_argument("--roster", metavar="TOML", help="a roster file merged over the shipped one")
    add_run_options(p, default_trials=200_000, trials_help="number of sampled hits per weapon")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    roster = load_units(args.roster)
    if args.all and (args.attacker or args.defender):
        raise InputError("--all covers the whole roster; drop the attacker and defender")
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
    plot = check_plot(args.plot)
    # Every exact distribution first: a bad --distance fails before any sampling.
    dists = [
        damage((owner, weapon), defender, roster=roster, **situation)
        for owner, weapon in weapons
        if weapon.type != "paralysis"
    ]
    if not dists:
        raise InputError(f"{args.attacker} has no weapon that does direct damage")
    ss = resolve_seed(args.seed)
    rows, hists, partial = [], [], False
    for k, dist in enumerate(dists):
        if stop_requested():
            break
        hist = Histogram()
        run = run_reduce(
            dist.fill,
            args.trials,
            derive(ss, k),
            hist.add,
            threads=args.threads,
            progress=args.progress,
            desc=dist.weapon.name,
        )
        partial = partial or run.partial
        rows.append(_row(dist, hist))
        hists.append(hist)
    if plot:
        if len(dists) == 1:
            ax = plot_exact_vs_sampled(
                dists[0],
                hists[0],
                xlabel=f"{dists[0].kind} damage per hit",
                title=f"{dists[0].name}: exact PMF vs {hists[0].n:,} sampled hits",
            )
            plot = str(save(ax, plot))
        else:
            title = f"{weapons[0][0].name} → {defender.name}: damage per hit"
            plot = str(save(plot_overlay(dists, title=title), plot))
    if args.json:
        print_json(
            {
                "attacker": args.attacker,
                "defender": defender.name,
                "situation": situation,
                "trials": args.trials,
                "seed": ss.entropy,
                "partial": partial,
                "weapons": rows,
                "plot": plot,
            }
        )
        return 0
    state = "  (interrupted: partial result)" if partial else ""
    print(
        f"{args.attacker} → {defender.name}: damage per hit, exact vs {args.trials:,} sampled, "
        f"seed {ss.entropy}{state}"
    )
    frame = pd.DataFrame(rows).set_index("weapon")
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(frame.to_string())
    if any(r["kind"] == "poison" for r in rows):
        print("poison rows: amount added to the poison pool, not HP lost now (C-4.5)")
    if plot:
        print(f"plot written to {plot}")
    return 0


def _row(dist, hist: Histogram) -> dict:
    """Exact and sampled figures of one weapon."""
    n = hist.n
    fit = fit_test(hist, dist)
    return {
        "weapon": dist.weapon.name,
        "kind": dist.kind,
        "exact_mean": dist.mean(),
        "sampled_mean": hist.mean(),
        "mc_error": hist.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan"),
        "exact_p0": float(dist.pmf(0)),
        "sampled_p0": hist.count_of(0) / n,
        "exact_p90": float(dist.ppf(0.9)),
        "sampled_p90": float(hist.quantile(0.9)),
        "chi2_pvalue": fit.pvalue,
    }


def _run_all(args: argparse.Namespace, roster, situation) -> int:
    plot = check_plot(args.plot or DEFAULT_HEATMAP)
    table = damage_table(roster=roster, **situation)
    plot = str(save(damage_heatmap(table, args.metric), plot))
    if args.json:
        print_json({"rows": table.to_dict(orient="records"), "plot": plot})
        return 0
    with pd.option_context(
        "display.width", 200, "display.max_rows", 1000, "display.float_format", "{:.3f}".format
    ):
        print(table.to_string(index=False))
    print(f"heatmap written to {plot}")
    return 0
