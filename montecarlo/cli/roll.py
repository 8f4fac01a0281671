"""``montecarlo roll``: exact vs sampled statistics of a CoE5 die."""

from __future__ import annotations

import argparse

import numpy as np

from montecarlo.cli.common import (
    add_command,
    add_run_options,
    check_plot,
    int_in,
    plot_option,
    print_json,
)
from montecarlo.coe5.dice import NONPOSITIVE, OPEN_ENDED, oed, parse_die, soed
from montecarlo.driver import run_reduce
from montecarlo.errors import InputError
from montecarlo.plotting import plot_exact_vs_sampled, save
from montecarlo.seeding import resolve_seed
from montecarlo.stats import Histogram, fit_test, wilson
from montecarlo.validation import MAX_DICE, MAX_DIE_SIZE, check_die_size

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "roll",
        "roll a CoE5 die: exact distribution next to a sampled check",
        "Exact and sampled statistics of open-ended (OED) and semi-open-ended (S-OED) "
        "rolls, with a chi-square test of the sample against the exact law "
        "(rules C-1; see 'montecarlo rules C-1.1').  Memory does not grow with --trials.",
        [
            'montecarlo roll "1-5(+10)" --seed 7 --plot roll.png',
            "montecarlo roll 1-5 --soed --dice 2 --trials 100000 --json",
        ],
    )
    p.add_argument(
        "die",
        help=f"damage value such as '1-5', '1-5 (+10)' or '1-5(+10)'; size up to {MAX_DIE_SIZE:,}",
    )
    p.add_argument("--soed", action="store_true", help="semi-open-ended roll (C-1.6)")
    p.add_argument(
        "--dice",
        type=int_in(1, MAX_DICE),
        default=1,
        help="number of dice summed, each open-ended (C-1.7)",
    )
    p.add_argument(
        "--open-ended",
        choices=OPEN_ENDED,
        default="each",
        help="C-1.7: several dice open-ended 'each' on its own, or 'together' "
        "(all roll again while all show the maximum)",
    )
    p.add_argument(
        "--nonpositive",
        choices=NONPOSITIVE,
        default="zero",
        help="C-1.4: a die of size 0 or less rolls 'zero', or as a die of size 'one'",
    )
    plot_option(p, "the PMF plot (exact bars, sampled points)")
    add_run_options(p, default_trials=1_000_000)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    die = parse_die(args.die)
    check_die_size(die.size)
    plot = check_plot(args.plot)
    if args.soed:
        if args.open_ended != "each":
            raise InputError("--open-ended applies to OED rolls, not with --soed")
        dist = soed(die, dice=args.dice, nonpositive=args.nonpositive)
    else:
        dist = oed(die, dice=args.dice, open_ended=args.open_ended, nonpositive=args.nonpositive)
    ss = resolve_seed(args.seed)
    hist = Histogram()
    result = run_reduce(
        dist.fill,
        args.trials,
        ss,
        hist.add,
        threads=args.threads,
        progress=args.progress,
        desc=dist.name,
    )
    n = hist.n
    threshold = die.size * args.dice
    exceed = hist.count_above(threshold)
    lo, hi = wilson(exceed, n)
    fit = fit_test(hist, dist)
    sample_q = hist.quantile(QUANTILES)
    sd = hist.std(ddof=1) if n > 1 else float("nan")
    rows = [
        ("mean", dist.mean(), hist.mean(), sd / np.sqrt(n)),
        ("sd", dist.std(), sd, hist.std_error_of_std()),
    ]
    for q, sq in zip(QUANTILES, sample_q, strict=True):
        rows.append((f"q{int(q * 100):02d}", dist.ppf(q), sq, np.nan))
    rows.append((f"P(T > {threshold})", dist.sf(threshold), exceed / n, (hi - lo) / 2))

    if plot:
        ax = plot_exact_vs_sampled(
            dist,
            hist,
            xlabel="roll total",
            title=f"{dist.name} from {str(die)!r}: exact PMF vs {n:,} sampled rolls",
        )
        plot = str(save(ax, plot))

    if args.json:
        print_json(
            {
                "die": str(die),
                "distribution": dist.name,
                "trials": n,
                "partial": result.partial,
                "seed": ss.entropy,
                "stats": {r[0]: {"exact": r[1], "sampled": r[2], "mc_error": r[3]} for r in rows},
                "p_exceed_ci95": [lo, hi],
                "chi2": {"statistic": fit.chi2, "dof": fit.dof, "pvalue": fit.pvalue},
                "tail_left_out": dist.tail,
                "plot": plot,
            }
        )
        return 0

    state = "  (interrupted: partial result)" if result.partial else ""
    print(f"{dist.name} from {str(die)!r}: {n:,} trials, seed {ss.entropy}{state}")
    print(f"{'statistic':<14}{'exact':>12}{'sampled':>12}{'± MC error':>12}")
    for name, e, s, err in rows:
        err_text = "" if np.isnan(err) else f"{err:12.4f}"
        print(f"{name:<14}{e:12.4f}{s:12.4f}{err_text}")
    print(f"95% Wilson interval of P(T > {threshold}): [{lo:.4f}, {hi:.4f}]")
    print(
        f"chi-square vs exact: {fit.chi2:.1f} on {fit.dof} dof, p = {fit.pvalue:.3f}; "
        f"exact tail left out: {dist.tail:.1e}"
    )
    print(f"sampled in {result.seconds:.2f} s ({n / max(result.seconds, 1e-9):,.0f} rolls/s)")
    if plot:
        print(f"plot written to {plot}")
    return 0
