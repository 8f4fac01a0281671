"""``montecarlo sf``: Shared†Fantasia fights, single attacks and the roster."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from montecarlo.cli.common import (
    add_command,
    add_run_options,
    check_plot,
    plot_option,
    print_json,
)
from montecarlo.cli.sf_options import MAX_PARTY, fight_arguments
from montecarlo.driver import stop_requested
from montecarlo.plotting import plot_exact_vs_sampled, save
from montecarlo.seeding import derive, resolve_seed
from montecarlo.sf.characters import load_characters, roster_note
from montecarlo.sf.exact import attack
from montecarlo.sf.fights import fight, parse_party
from montecarlo.sf.sampling import EVENTS, sample_attack
from montecarlo.stats import Histogram, fit_test, wilson
from montecarlo.validation import check_limit

#: Attacks sampled per call of the attack sampler (it returns every attack's
#: damage); longer runs are made of pieces seeded from the run's seed.
ATTACK_PIECE = 1 << 22


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "sf",
        "Shared†Fantasia: party fights, attacks, characters",
        "Shared†Fantasia (rules S-1 to S-10): party-vs-party fights, the exact odds of "
        "one attack, and the character roster.  Each has its own --help.",
        [
            "montecarlo sf fight warrior:2,archer:1 goblin:4 --battlefield corridor",
            "montecarlo sf attack fencer orc --seed 1",
            "montecarlo sf characters",
        ],
    )
    sf_sub = p.add_subparsers(dest="sf_command", required=True, metavar="SF_COMMAND")

    f = add_command(
        sf_sub,
        "fight",
        "party vs party, many times (rules S-1 to S-10)",
        "Play party A against party B many times: outcome rates with 95% Wilson intervals, "
        "rounds, and each character's final state.  Ctrl-C prints the fights finished so "
        "far, marked partial (exit status 130).",
        [
            "montecarlo sf fight warrior:1,knight:1,archer:1,mage:1 goblin:3,orc:2 "
            "--battlefield corridor --seed 1 --plot sf_fight.png",
            "montecarlo sf fight warrior:2 goblin:3 --surprise b --precision 0.01",
        ],
    )
    fight_arguments(f)
    plot_option(f, "outcome and character plots")
    add_run_options(f, default_trials=None, trials_help="number of fights")
    f.set_defaults(run=run_fight)

    a = add_command(
        sf_sub,
        "attack",
        "exact odds and damage of one attack, with a sampled check",
        "One attack enumerated exactly over all 1296 pairs of 2d6 rolls (S-1.2 to S-3), "
        "next to the fight kernel's own sampling of the same attack.",
        [
            "montecarlo sf attack fencer orc --seed 1",
            "montecarlo sf attack archer goblin --cover --plot attack.png",
        ],
    )
    a.add_argument("attacker", help="a character name, e.g. 'fencer'")
    a.add_argument("defender", help="a character name, e.g. 'orc'")
    a.add_argument("--weapon", help="the attacker's weapon (default: its first)")
    for flag, text in (
        ("--cover", "the defender is in cover (+2 evade vs ranged)"),
        ("--surprised", "the defender is surprised (-2 evade)"),
        ("--ship", "on a ship deck (-2 unless used to ships)"),
        ("--pincer", "the defender is caught in a pincer (+1 to hit)"),
        ("--fatigue-attack", "blunt melee deals fatigue (S-3)"),
    ):
        a.add_argument(flag, action="store_true", help=text)
    plot_option(a, "the damage PMF, exact vs sampled")
    a.add_argument("--characters", metavar="TOML", help="a file merged over the shipped roster")
    # sample_attack takes no thread count (it uses every core) and draws no bar.
    add_run_options(
        a,
        default_trials=200_000,
        trials_help="number of sampled attacks",
        threads=False,
        progress=False,
    )
    a.set_defaults(run=run_attack)

    c = add_command(
        sf_sub,
        "characters",
        "list the SF roster",
        "The shipped roster of player archetypes and monsters, merged with your own TOML "
        "file if given: stats, armor per damage type, weapons and spells.",
        ["montecarlo sf characters", "montecarlo sf characters --characters party.toml"],
    )
    c.add_argument("--characters", metavar="TOML", help="a file merged over the shipped roster")
    c.add_argument("--json", action="store_true", help="print machine-readable JSON")
    c.set_defaults(run=run_characters)

    from montecarlo.cli.compare import register_sf as register_sf_compare
    from montecarlo.cli.replay import register_sf as register_sf_replay

    register_sf_replay(sf_sub)  # sf replay
    register_sf_compare(sf_sub)  # sf compare, sf sensitivity


def run_fight(args: argparse.Namespace) -> int:
    roster = load_characters(args.characters)
    for side, party in (("party A", args.party_a), ("party B", args.party_b)):
        check_limit(
            len(parse_party(party, roster)),
            MAX_PARTY,
            f"{side}'s size",
            "the seed's friendly-fire procedure (S-6) is defined for up to 36 characters",
        )
    plot = check_plot(args.plot)
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
        progress=args.progress,
        roster=roster,
    )
    if plot:
        plot = str(save(result.plot(), plot))
    if args.json:
        print_json({**result.to_dict(), "plot": plot})
        return 0
    print(result.summary())
    if plot:
        print(f"\nplot written to {plot}")
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
    plot = check_plot(args.plot)
    ss = resolve_seed(args.seed)
    counts, dmg, partial = _sample_attacks(args, exact, ss, roster, situation)
    n = dmg.n
    frame = exact.to_frame()
    sampled = [n - counts["hit"], *(counts[e] for e in EVENTS)]
    frame["sampled"] = np.array(sampled) / n
    cis = [wilson(int(k), n) for k in sampled]
    frame["ci95"] = [f"[{lo:.4f}, {hi:.4f}]" for lo, hi in cis]
    fit = fit_test(dmg, exact.damage)
    if plot:
        ax = plot_exact_vs_sampled(
            exact.damage,
            dmg,
            xlabel=f"{exact.kind} damage per attack",
            title=f"{exact.damage.name}: exact vs {n:,} sampled",
        )
        plot = str(save(ax, plot))
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
                "partial": partial,
                "seed": ss.entropy,
                "plot": plot,
                "roster_note": roster_note([exact.attacker, exact.defender]),
            }
        )
        return 0
    state = "  (interrupted: partial result)" if partial else ""
    print(
        f"{exact.attacker.name} ({exact.weapon.name}, hit {exact.hit_value:+d}) attacks "
        f"{exact.defender.name} (evade {exact.evade_value:+d}): exact vs {n:,} sampled, "
        f"seed {ss.entropy}{state}"
    )
    with pd.option_context("display.width", 160):
        print(frame.to_string(index=False, float_format="{:.4f}".format))
    d = exact.damage
    print(
        f"\n{exact.kind} damage per attack: exact mean {d.mean():.3f}, sd {d.std():.3f}, "
        f"P(0) {float(d.pmf(0)):.4f}, q90 {float(d.ppf(0.9)):.0f}; sampled mean "
        f"{dmg.mean():.3f} ± {dmg.std() / np.sqrt(n):.3f}; chi-square p = {fit.pvalue:.3f}"
    )
    if note := roster_note([exact.attacker, exact.defender]):
        print(note)
    if plot:
        print(f"plot written to {plot}")
    return 0


def _sample_attacks(args, exact, ss, roster, situation) -> tuple[pd.Series, Histogram, bool]:
    """Sample ``args.trials`` attacks in pieces: event counts and a damage histogram.

    The sampler returns every attack's damage, so pieces of :data:`ATTACK_PIECE`
    keep memory bounded; the first piece uses the run's seed itself (so short
    runs match ``sample_attack``), later ones derive from it.
    """
    counts = pd.Series(0, index=list(EVENTS), name="count", dtype=np.int64)
    hist = Histogram()
    left, piece, partial = args.trials, 0, False
    while left > 0:
        if stop_requested():
            partial = True
            break
        size = min(left, ATTACK_PIECE)
        try:
            c, dmg = sample_attack(
                exact.attacker,
                exact.defender,
                size,
                exact.weapon.name,
                seed=ss if piece == 0 else derive(ss, piece),
                fatigue_attack=args.fatigue_attack,
                roster=roster,
                **situation,
            )
        except KeyboardInterrupt:
            if hist.n == 0:
                raise
            partial = True
            break
        counts += c
        hist.add(dmg)
        partial = partial or dmg.size < size
        left -= size
        piece += 1
        if dmg.size < size:
            break
    if hist.n == 0:
        raise KeyboardInterrupt
    return counts, hist, partial


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
    if args.json:
        print_json(rows)
        return 0
    with pd.option_context("display.width", 220, "display.max_colwidth", 50):
        print(pd.DataFrame(rows).to_string(index=False))
    if note := roster_note(roster.characters()):
        print(f"\n{note}")
    return 0
