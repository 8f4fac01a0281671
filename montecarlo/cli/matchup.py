"""``montecarlo matchup``: who wins, how often, how fast, with how many survivors."""

from __future__ import annotations

import argparse

from montecarlo.cli.common import (
    add_command,
    add_run_options,
    check_plot,
    int_in,
    plot_option,
    print_json,
)
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.battlefield import parse_army
from montecarlo.coe5.units import Roster, load_units
from montecarlo.errors import InputError
from montecarlo.validation import MAX_GRID_SIDE, check_army_size, check_grid


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "matchup",
        "simulate a CoE5 battle many times: outcome odds, rounds, survivors",
        "Battles on the simplified grid (rules C-6 to C-9): outcome rates with 95% Wilson "
        "intervals, rounds, survivors and routed units per unit type.  Ctrl-C prints the "
        "battles finished so far, marked partial (exit status 130).",
        [
            "montecarlo matchup pikeman:10 knight:3 --seed 7 --plot matchup.png",
            "montecarlo matchup militia:5 troll:1 --precision 0.005",
            "montecarlo matchup pikeman:10,archer:5 knight:3 --siege --fort 2 --json",
            "montecarlo matchup militia:20 militia:20 --rule move_order=sides --length 21",
        ],
    )
    battle_arguments(p)
    rule_option(p)
    plot_option(p, "outcome, rounds and survivor plots")
    add_run_options(p, default_trials=None, trials_help="number of battles")
    p.set_defaults(run=run)


def battle_arguments(p: argparse.ArgumentParser) -> None:
    """The two armies and the battlefield options of the CoE5 battle commands (C-6)."""
    p.add_argument("attacker", help="army such as 'pikeman:10' or 'pikeman:10,archer:5'")
    p.add_argument("defender", help="army such as 'knight:3'")
    p.add_argument("--siege", action="store_true", help="the defender holds a wall (C-6, C-7.3)")
    p.add_argument(
        "--fort",
        type=int_in(1, 3),
        default=None,
        help="fortification level 1-3 of the wall; needs --siege (default: 1)",
    )
    p.add_argument("--width", type=int_in(1, MAX_GRID_SIDE), default=10, help="grid rows (C-6)")
    p.add_argument("--length", type=int_in(2, MAX_GRID_SIDE), default=20, help="grid columns (C-6)")
    p.add_argument("--roster", metavar="TOML", help="a roster file merged over the shipped one")


def rule_option(p: argparse.ArgumentParser) -> None:
    """``--rule FIELD=VALUE``: change a [default] of :class:`BattleRules` (repeatable)."""
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="change a rule default, e.g. 'burn_chance=0.3' or 'move_order=sides' "
        "(fields: 'montecarlo rules' Parameter lines); repeat for several",
    )


def battle_rules(terms: list[str]) -> BattleRules | None:
    """The :class:`BattleRules` that ``--rule`` terms ask for, checked before any battle."""
    if not terms:
        return None
    from montecarlo.scenarios import replace_rules  # the variant grammar of `compare`

    rules = BattleRules()
    for term in terms:
        key, sep, value = term.partition("=")
        name = key.strip().removeprefix("rules.")
        if not sep or not name or not value.strip():
            raise InputError(f"--rule {term!r}: expected FIELD=VALUE such as 'burn_chance=0.3'")
        rules = replace_rules(f"--rule {term}", rules, name, value)
    return rules


def check_battle_options(args: argparse.Namespace, roster: Roster) -> int:
    """Checks shared by the battle commands, before any battle: returns the fort level."""
    if args.fort is not None and not args.siege:
        raise InputError("--fort sets the wall of a siege; add --siege (or drop --fort)")
    check_grid(args.width, args.length)
    for side, army in (("attacker", args.attacker), ("defender", args.defender)):
        check_army_size(sum(count for _, count in parse_army(army, roster)), side)
    return 1 if args.fort is None else args.fort


def run(args: argparse.Namespace) -> int:
    roster = load_units(args.roster)
    fort = check_battle_options(args, roster)
    plot = check_plot(args.plot)
    rules = battle_rules(args.rule)
    result = matchup(
        args.attacker,
        args.defender,
        trials=args.trials,
        precision=args.precision,
        seed=args.seed,
        siege=args.siege,
        fort=fort,
        width=args.width,
        length=args.length,
        threads=args.threads,
        progress=args.progress,
        roster=roster,
        rules=rules,
    )
    if plot:
        from montecarlo.plotting import save  # matplotlib: only for a plot

        plot = str(save(result.plot(), plot))
    if args.json:
        data = result.to_dict()
        data["plot"] = plot
        print_json(data)
        return 0
    print(result.summary())
    if plot:
        print(f"\nplot written to {plot}")
    return 0
