"""``montecarlo resist``: chance to resist a spell at a given MR (C-2)."""

from __future__ import annotations

import argparse

import numpy as np

from montecarlo.cli.common import add_run_options, print_json
from montecarlo.coe5.dice import DIFFICULTIES, check_roll, resist_chance
from montecarlo.errors import InputError
from montecarlo.seeding import resolve_seed
from montecarlo.stats import wilson


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "resist",
        help="chance that a unit with a given magic resistance resists",
        description="Exact and sampled resist chance: roll < MR (RULES.md C-2.1, C-2.2).",
    )
    p.add_argument("mr", type=int, help="magic resistance (0 or more)")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="normal")
    add_run_options(p, default_trials=1_000_000)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.mr < 0:
        raise InputError(f"magic resistance cannot be negative, got {args.mr}")
    exact = resist_chance(args.mr, args.difficulty)
    ss = resolve_seed(args.seed)
    rolls = check_roll(args.difficulty).sample(args.trials, seed=ss, threads=args.threads)
    k = int((rolls < args.mr).sum())
    lo, hi = wilson(k, rolls.size)
    if args.json:
        print_json({
            "mr": args.mr, "difficulty": args.difficulty, "exact": exact,
            "sampled": k / rolls.size, "ci95": [lo, hi], "trials": rolls.size,
            "seed": ss.entropy,
        })  # fmt: skip
        return 0
    print(f"MR {args.mr}, {args.difficulty} difficulty: resisted when the roll is below MR")
    print(f"exact   {exact:.6f}")
    print(f"sampled {k / rolls.size:.6f}  95% CI [{lo:.6f}, {hi:.6f}]  ({rolls.size:,} trials)")
    if not lo <= exact <= hi:
        print("note: exact value outside the 95% interval (expected 1 run in 20)")
    return 0 if np.isfinite(exact) else 1
