"""``montecarlo roll``: exact vs sampled statistics of a CoE5 die."""

from __future__ import annotations

import argparse

import numpy as np

from montecarlo.cli.common import add_run_options, positive_int, print_json
from montecarlo.coe5.dice import oed, parse_die, soed
from montecarlo.driver import run_fill
from montecarlo.plotting import plot_exact_vs_sampled, save
from montecarlo.seeding import resolve_seed
from montecarlo.stats import compare, wilson

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "roll",
        help="roll a CoE5 die: exact distribution next to a sampled check",
        description="Exact and sampled statistics of OED / S-OED rolls (RULES.md C-1).",
    )
    p.add_argument("die", help="damage value such as '1-5', '1-5 (+10)' or '1-5(+10)'")
    p.add_argument("--soed", action="store_true", help="semi-open-ended roll (C-1.6)")
    p.add_argument("--dice", type=positive_int, default=1, help="number of dice summed (C-1.7)")
    p.add_argument("--plot", metavar="PNG", help="write the PMF plot (exact bars, sampled points)")
    add_run_options(p, default_trials=1_000_000)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    die = parse_die(args.die)
    dist = (soed if args.soed else oed)(die, dice=args.dice)
    ss = resolve_seed(args.seed)
    result = run_fill(
        dist._sampler, args.trials, ss, threads=args.threads, progress=None, desc=dist.name
    )
    x = result.values
    n = x.size
    threshold = die.size * args.dice
    exceed = int((x > threshold).sum())
    lo, hi = wilson(exceed, n)
    fit = compare(x, dist)
    sample_q = np.quantile(x, QUANTILES, method="inverted_cdf")
    rows = [
        ("mean", dist.mean(), x.mean(), x.std(ddof=1) / np.sqrt(n)),
        ("sd", dist.std(), x.std(ddof=1), x.std(ddof=1) / np.sqrt(2 * (n - 1))),
    ]
    for q, sq in zip(QUANTILES, sample_q, strict=True):
        rows.append((f"q{int(q * 100):02d}", dist.ppf(q), sq, np.nan))
    rows.append((f"P(T > {threshold})", dist.sf(threshold), exceed / n, (hi - lo) / 2))

    if args.plot:
        ax = plot_exact_vs_sampled(
            dist, x, xlabel="roll total",
            title=f"{dist.name} from {str(die)!r}: exact PMF vs {n:,} sampled rolls",
        )  # fmt: skip
        save(ax, args.plot)

    if args.json:
        print_json({
            "die": str(die), "distribution": dist.name, "trials": n,
            "partial": result.partial, "seed": ss.entropy,
            "stats": {r[0]: {"exact": r[1], "sampled": r[2], "mc_error": r[3]} for r in rows},
            "p_exceed_ci95": [lo, hi],
            "chi2": {"statistic": fit.chi2, "dof": fit.dof, "pvalue": fit.pvalue},
            "tail_left_out": dist.tail, "plot": args.plot,
        })  # fmt: skip
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
    print(f"sampled in {result.seconds:.2f} s ({n / result.seconds:,.0f} rolls/s)")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0
