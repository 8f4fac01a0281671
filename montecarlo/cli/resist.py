"""``montecarlo resist``: chance to resist a spell at a given MR (C-2)."""

from __future__ import annotations

import argparse

import numpy as np

from montecarlo.cli.common import add_command, add_run_options, int_in, print_json
from montecarlo.coe5.dice import DIFFICULTIES, check_roll, resist_chance
from montecarlo.driver import run_reduce
from montecarlo.seeding import resolve_seed
from montecarlo.stats import wilson

#: Magic resistance beyond any unit of the game; above it every check is resisted anyway.
MAX_MR = 1000


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "resist",
        "chance that a unit with a given magic resistance resists",
        "Exact and sampled resist chance: a spell is resisted when the S-OED check roll "
        "is strictly below MR (rules C-2.1, C-2.2).",
        ["montecarlo resist 10", "montecarlo resist 14 --difficulty hard --seed 3 --json"],
    )
    p.add_argument("mr", type=int_in(0, MAX_MR), help=f"magic resistance, 0 to {MAX_MR}")
    p.add_argument(
        "--difficulty",
        choices=list(DIFFICULTIES),
        default="normal",
        help="the check's dice: easy 1d5, normal 2d4, hard 2d6, S-OED (C-2.1)",
    )
    add_run_options(p, default_trials=1_000_000, trials_help="number of sampled checks")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    exact = resist_chance(args.mr, args.difficulty)
    dist = check_roll(args.difficulty)
    ss = resolve_seed(args.seed)
    resisted = 0

    def count(values: np.ndarray, first: int) -> None:
        nonlocal resisted
        resisted += int((values < args.mr).sum())

    fill = dist.fill
    result = run_reduce(
        fill, args.trials, ss, count, threads=args.threads, progress=args.progress, desc="checks"
    )
    n = result.n
    lo, hi = wilson(resisted, n)
    if args.json:
        print_json(
            {
                "mr": args.mr,
                "difficulty": args.difficulty,
                "exact": exact,
                "sampled": resisted / n,
                "ci95": [lo, hi],
                "trials": n,
                "partial": result.partial,
                "seed": ss.entropy,
            }
        )
        return 0
    state = "  (interrupted: partial result)" if result.partial else ""
    print(f"MR {args.mr}, {args.difficulty} difficulty: resisted when the roll is below MR")
    print(f"exact   {exact:.6f}")
    print(
        f"sampled {resisted / n:.6f}  95% CI [{lo:.6f}, {hi:.6f}]  ({n:,} trials, "
        f"seed {ss.entropy}){state}"
    )
    if not lo <= exact <= hi:
        print("note: exact value outside the 95% interval (expected 1 run in 20)")
    return 0
