"""``montecarlo compare`` and ``sensitivity`` (and their ``sf`` twins): paired comparisons.

Both variants are played with the same seed, so battle ``t`` of each sees the
same dice for as long as their play agrees (common random numbers); the
difference of win rates comes with Newcombe's paired 95% interval.
"""

from __future__ import annotations

import argparse

from montecarlo.cli.common import (
    add_command,
    add_run_options,
    check_plot,
    plot_option,
    positive_int,
    print_json,
    trial_count,
)
from montecarlo.cli.matchup import battle_arguments, check_battle_options
from montecarlo.cli.sf_options import fight_arguments
from montecarlo.coe5.units import load_units
from montecarlo.errors import InputError
from montecarlo.plotting import save

GRAMMAR = """variant terms (several --variant options combine; ';' separates terms in one):
  UNIT.FIELD=VALUE     a unit's field in either army: hp, armor, shield, mr, morale,
                       strength, fear, or a boolean ability (regeneration=true)
  rules.FIELD=VALUE    a BattleRules field (montecarlo rules lists the defaults)
  attacker=ARMY        another attacker (defender=ARMY: another defender)
  siege=true, fort=2, width=12, length=30
  VALUE: +k or -k is relative to the baseline's value, anything else is absolute"""

SF_GRAMMAR = """variant terms (several --variant options combine; ';' separates terms in one):
  NAME.FIELD=VALUE     a character's field: hp, body, tech, power, faith, combat,
                       initiative, fortitude, intuition, will; armor (every damage
                       type) or armor.slash / armor.blunt / armor.pierce
  rules.FIELD=VALUE    an SFRules field;  policy.FIELD=VALUE: a Policy field
  a=PARTY, b=PARTY     another party
  battlefield=ship, surprise=a|b|none, pincer=a|b|none, max_rounds=50
  VALUE: +k or -k is relative to the baseline's value, anything else is absolute"""


def _difference_precision(p: argparse.ArgumentParser) -> None:
    """Say what --precision means here: the half-width of the difference's interval."""
    for action in p._actions:
        if action.dest == "precision":
            action.help = (
                "instead of --trials: play until the half-width of the win-rate "
                "difference's paired 95%% interval is at most this, e.g. 0.005 (default: off)"
            )


def _variant_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--variant",
        action="append",
        required=True,
        metavar="TERM",
        help="an override term of the variant, e.g. 'knight.armor=+1' (repeatable)",
    )


def register(sub: argparse._SubParsersAction) -> None:
    """``compare`` and ``sensitivity`` for CoE5 battles."""
    p = add_command(
        sub,
        "compare",
        "is a change worth it? two variants on the same dice, paired",
        "Play a matchup and a variant of it with the same seed, so battle t of each sees "
        "the same dice (common random numbers), and report both win rates, the difference "
        "with Newcombe's paired 95% interval, the paired differences of mean rounds and "
        "survivors, and the variance reduction against two independent runs.\n\n" + GRAMMAR,
        [
            'montecarlo compare pikeman:20 knight:3 --variant "knight.armor=+1" --seed 7',
            'montecarlo compare pikeman:20 knight:3 --variant "attacker=pikeman:21"',
            'montecarlo compare pikeman:10,archer:10 knight:3 --siege --variant "fort=2" '
            "--precision 0.005",
        ],
    )
    p.description = (
        "Play a matchup and a variant of it with the same seed, so battle t of each sees the\n"
        "same dice (common random numbers), and report both win rates, the difference with\n"
        "Newcombe's paired 95% interval, the paired differences of mean rounds and\n"
        "survivors, and the variance reduction against two independent runs.\n\n" + GRAMMAR
    )
    battle_arguments(p)
    _variant_option(p)
    add_run_options(p, default_trials=None, trials_help="pairs of battles")
    _difference_precision(p)
    p.set_defaults(run=run_compare)

    s = add_command(
        sub,
        "sensitivity",
        "how much do the rule defaults matter for this matchup? (tornado plot)",
        "Vary every [default] of the CoE5 rules in turn (a table in montecarlo/sensitivity.py, "
        "one row per default with its rule id and alternative values) and report each "
        "change of the attacker's win rate against the defaults as a paired comparison on "
        "the same dice, sorted by size.",
        [
            "montecarlo sensitivity pikeman:20 knight:3 --seed 1 --plot tornado.png",
            "montecarlo sensitivity militia:10 troll:1 --only rules.regen_fraction",
        ],
    )
    battle_arguments(s)
    _sensitivity_options(s)
    s.set_defaults(run=run_sensitivity)


def register_sf(sf_sub: argparse._SubParsersAction) -> None:
    """``sf compare`` and ``sf sensitivity``."""
    p = add_command(
        sf_sub,
        "compare",
        "is a change worth it? two variants of a fight on the same dice",
        "Play a fight and a variant of it with the same seed (common random numbers) and "
        "report both win rates of party A, the difference with Newcombe's paired 95% "
        "interval, mean rounds and standing characters per side.",
        [
            'montecarlo sf compare warrior:2 goblin:4 --variant "warrior.armor=+1" --seed 1',
            'montecarlo sf compare warrior:1,archer:1 goblin:3 --variant "policy.cast=false"',
        ],
    )
    p.description = (
        "Play a fight and a variant of it with the same seed (common random numbers) and\n"
        "report both win rates of party A, the difference with Newcombe's paired 95%\n"
        "interval, mean rounds and standing characters per side.\n\n" + SF_GRAMMAR
    )
    fight_arguments(p)
    _variant_option(p)
    add_run_options(p, default_trials=None, trials_help="pairs of fights")
    _difference_precision(p)
    p.set_defaults(run=run_sf_compare)

    s = add_command(
        sf_sub,
        "sensitivity",
        "how much do the SF rule and policy defaults matter for this fight?",
        "Vary every [default] of SFRules and Policy in turn and report each change of "
        "party A's win rate against the defaults as a paired comparison, sorted by size.",
        ["montecarlo sf sensitivity warrior:2 goblin:4 --seed 1 --plot sf_tornado.png"],
    )
    fight_arguments(s)
    _sensitivity_options(s)
    s.set_defaults(run=run_sf_sensitivity)


def _sensitivity_options(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--only",
        action="append",
        metavar="KEY",
        help="vary only this default, e.g. rules.burn_chance (repeatable)",
    )
    s.add_argument(
        "--top",
        type=positive_int,
        default=None,
        help="plot only the largest changes (default: every one that changed a battle)",
    )
    plot_option(s, "the tornado plot")
    s.add_argument(
        "--trials", type=trial_count, default=10_000, help="pairs of battles per alternative"
    )
    add_run_options_without_trials(s)


def add_run_options_without_trials(parser: argparse.ArgumentParser) -> None:
    from montecarlo.cli.common import add_seed_options

    add_seed_options(parser)
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


# -- running ----------------------------------------------------------------------
def _scenario(args: argparse.Namespace):
    from montecarlo.scenarios import Scenario

    roster = load_units(args.roster)
    fort = check_battle_options(args, roster)
    return Scenario(
        args.attacker,
        args.defender,
        siege=args.siege,
        fort=fort,
        width=args.width,
        length=args.length,
        roster=roster,
    )


def _sf_scenario(args: argparse.Namespace):
    from montecarlo.cli.sf_options import MAX_PARTY
    from montecarlo.scenarios import SFScenario
    from montecarlo.sf.characters import load_characters

    roster = load_characters(args.characters)
    sc = SFScenario(
        args.party_a,
        args.party_b,
        battlefield=args.battlefield,
        surprise=args.surprise,
        pincer=args.pincer,
        roster=roster,
    )
    for side, party in (("party A", sc.party_a), ("party B", sc.party_b)):
        if len(party) > MAX_PARTY:
            raise InputError(f"{side} has {len(party)} characters; at most {MAX_PARTY}")
    return sc


def _variant(base, terms: list[str]):
    from montecarlo.compare import engine_for

    variant = base.vary(*terms)
    engine_for(variant)  # every input checked before any battle
    for side, party in (("party A", "party_a"), ("party B", "party_b")):
        if hasattr(variant, party) and len(getattr(variant, party)) > 36:
            raise InputError(f"--variant: {side} has more than 36 characters")
    return variant


def _print_comparison(result, args: argparse.Namespace) -> int:
    if args.json:
        print_json(result.to_dict())
        return 0
    print(result.summary())
    return 0


def _run_compare(base, args: argparse.Namespace) -> int:
    from montecarlo.compare import compare

    variant = _variant(base, args.variant)
    result = compare(
        base,
        variant,
        trials=args.trials,
        precision=args.precision,
        seed=args.seed,
        threads=args.threads,
        progress=args.progress,
    )
    return _print_comparison(result, args)


def run_compare(args: argparse.Namespace) -> int:
    return _run_compare(_scenario(args), args)


def run_sf_compare(args: argparse.Namespace) -> int:
    return _run_compare(_sf_scenario(args), args)


def _run_sensitivity(base, args: argparse.Namespace) -> int:
    from montecarlo.sensitivity import sensitivity

    plot = check_plot(args.plot)
    result = sensitivity(
        base,
        trials=args.trials,
        seed=args.seed,
        threads=args.threads,
        progress=args.progress,
        only=args.only,
    )
    if plot:
        plot = str(save(result.plot(top=args.top), plot))
    if args.json:
        data = result.to_dict()
        data["plot"] = plot
        print_json(data)
        return 0
    print(result.summary())
    if plot:
        print(f"\ntornado plot written to {plot}")
    return 0


def run_sensitivity(args: argparse.Namespace) -> int:
    return _run_sensitivity(_scenario(args), args)


def run_sf_sensitivity(args: argparse.Namespace) -> int:
    return _run_sensitivity(_sf_scenario(args), args)
