"""``montecarlo matchup``: who wins, how often, how fast, with how many survivors."""

from __future__ import annotations

import argparse

from montecarlo.cli.common import positive_int, print_json, seed_int
from montecarlo.coe5.battle import matchup
from montecarlo.coe5.units import load_units
from montecarlo.plotting import save


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "matchup",
        help="simulate a CoE5 battle many times: outcome odds, rounds, survivors",
        description="Battles on the simplified grid (RULES.md C-6 to C-9), e.g. "
        "'montecarlo matchup pikeman:10 knight:3 --precision 0.005'.",
    )
    p.add_argument("attacker", help="army such as 'pikeman:10' or 'pikeman:10,archer:5'")
    p.add_argument("defender", help="army such as 'knight:3'")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--trials", type=positive_int, help="number of battles (default 20,000)")
    group.add_argument(
        "--precision", type=float,
        help="play until every outcome rate's 95%% Wilson half-width is at most this",
    )  # fmt: skip
    p.add_argument("--seed", type=seed_int, help="seed (default: fresh entropy, printed)")
    p.add_argument("--siege", action="store_true", help="the defender holds a wall (C-6)")
    p.add_argument("--fort", type=int, default=1, help="fortification level 1-3 of the wall")
    p.add_argument("--width", type=positive_int, default=10, help="grid rows (default 10)")
    p.add_argument("--length", type=positive_int, default=20, help="grid columns (default 20)")
    p.add_argument("--threads", type=positive_int, help="Numba threads (default: all)")
    p.add_argument("--plot", metavar="PNG", help="write outcome, rounds and survivor plots")
    p.add_argument("--roster", metavar="TOML", help="a roster file merged over the shipped one")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    roster = load_units(args.roster)
    result = matchup(
        args.attacker, args.defender, trials=args.trials, precision=args.precision,
        seed=args.seed, siege=args.siege, fort=args.fort, width=args.width,
        length=args.length, threads=args.threads, progress=None, roster=roster,
    )  # fmt: skip
    if args.plot:
        save(result.plot(), args.plot)
    if args.json:
        data = result.to_dict()
        data["plot"] = args.plot
        print_json(data)
        return 0
    print(result.summary())
    if args.plot:
        print(f"\nplot written to {args.plot}")
    return 0
