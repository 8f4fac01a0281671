"""``montecarlo replay``: watch one battle of a matchup, event by event (issue 12)."""

from __future__ import annotations

import argparse

from montecarlo.cli.common import (
    add_command,
    check_out_file,
    check_plot,
    int_in,
    positive_int,
    print_json,
    seed_int,
)
from montecarlo.cli.matchup import (
    battle_arguments,
    battle_rules,
    check_battle_options,
    rule_option,
)
from montecarlo.coe5.replay import OUTCOMES, replay
from montecarlo.coe5.units import load_units
from montecarlo.errors import InputError


def add_replay_options(p: argparse.ArgumentParser, what: str) -> None:
    """--seed (required), --battle or --first, --trials: the options both replays share."""
    p.add_argument(
        "--seed", type=seed_int, required=True, help=f"the seed of the run whose {what} to replay"
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--battle" if what == "battle" else "--fight",
        dest="index",
        type=int_in(0, 10**12),
        metavar="N",
        help=f"the number of the {what} in the run, from 0",
    )
    which.add_argument(
        "--first",
        choices=OUTCOMES if what == "battle" else ("a-wins", "b-wins", "draw"),
        help=f"replay the first {what} of the run with this outcome",
    )
    p.add_argument(
        "--trials",
        type=positive_int,
        default=20_000,
        help=f"with --first: how many {what}s of the run to search",
    )
    p.add_argument("--events", metavar="CSV", help="also write every event, one row each, to CSV")
    p.add_argument("--json", action="store_true", help="print the events as JSON records")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "replay",
        "replay one battle of a matchup with its log: every move, roll and death",
        "Plays battle N of 'montecarlo matchup ATTACKER DEFENDER --seed S' again and "
        "prints it round by round: who struck whom with which weapon, each step of the "
        "C-3 damage pipeline, effects started and ended, fear checks, deaths and routs "
        "(moves are counted; --moves lists them).  The replay ends exactly as the "
        "matchup counted that battle.  --first finds the first battle with an outcome, "
        "e.g. an upset; --gif draws the grid round by round.",
        [
            "montecarlo replay pikeman:10 knight:3 --seed 7 --battle 123",
            "montecarlo replay pikeman:10 knight:3 --seed 7 --first attacker-wins --gif b.gif",
            "montecarlo replay pikeman:10,archer:5 knight:3 --siege --seed 1 --battle 0 --moves",
        ],
    )
    battle_arguments(p)
    add_replay_options(p, "battle")
    rule_option(p)
    p.add_argument("--moves", action="store_true", help="list every move, not only their count")
    p.add_argument("--gif", metavar="FILE", help="draw the grid round by round to an animated GIF")
    p.add_argument("--png", metavar="FILE", help="draw one frame of the grid (see --frame)")
    p.add_argument(
        "--frame",
        type=int_in(0, 10**6),
        default=0,
        help="the frame --png draws: 0 the deployment (the GIF's first frame), k after round k",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    roster = load_units(args.roster)
    fort = check_battle_options(args, roster)
    gif = check_out_file(args.gif, "--gif", (".gif",))
    png = check_plot(args.png, "--png")
    events = check_out_file(args.events, "--events", (".csv",))
    if args.frame and not png:
        raise InputError("--frame chooses the frame that --png draws; add --png FILE")
    rules = battle_rules(args.rule)
    rep = replay(
        args.attacker,
        args.defender,
        seed=args.seed,
        battle=args.index,
        first=args.first,
        trials=args.trials,
        siege=args.siege,
        fort=fort,
        width=args.width,
        length=args.length,
        roster=roster,
        rules=rules,
    )
    written = []
    if events:
        rep.events.to_csv(events, index=False)
        written.append(f"events written to {events}")
    if png:
        from montecarlo.plotting import save

        frames = rep.frames()
        if args.frame >= len(frames):
            raise InputError(f"--frame is at most {len(frames) - 1} for this battle")
        written.append(f"frame {args.frame} written to {save(rep.plot_frame(args.frame), png)}")
    if gif:
        written.append(f"animation written to {rep.save_gif(gif)}")
    if args.json:
        print_json(
            {
                "battle": rep.battle,
                "seed": rep.seed,
                "outcome": rep.outcome,
                "rounds": rep.rounds,
                "survivors": rep.survivors.to_dict(orient="records"),
                "events": rep.events.astype(object)
                .where(rep.events.notna(), None)
                .to_dict(orient="records"),
            }
        )
        return 0
    print(rep.text(moves=args.moves))
    for line in written:
        print(line)
    return 0


def register_sf(sf_sub: argparse._SubParsersAction) -> None:
    """``montecarlo sf replay``: the same for one Shared†Fantasia fight."""
    from montecarlo.cli.sf_options import fight_arguments

    p = add_command(
        sf_sub,
        "replay",
        "replay one fight of a run with its log: every action, roll and fall",
        "Plays fight N of 'montecarlo sf fight A B --seed S' again and prints it round by "
        "round: each character's action (S-8), the opposed rolls with dramatic successes "
        "and fumbles, damage, injury and fatigue, saves against spells, opportunity "
        "attacks, friendly fire, moves between lines and into cover, fainting, deaths and "
        "falls.  The replay ends exactly as the run counted that fight.",
        [
            "montecarlo sf replay warrior:2,archer:1,mage:1 goblin:4,orc:1 --seed 7 --fight 3",
            "montecarlo sf replay warrior:1,archer:2 orc:2 --battlefield cliff --seed 2 "
            "--first b-wins",
        ],
    )
    fight_arguments(p)
    add_replay_options(p, "fight")
    p.set_defaults(run=run_sf)


def run_sf(args: argparse.Namespace) -> int:
    from montecarlo.sf.characters import load_characters
    from montecarlo.sf.fight_replay import replay as replay_fight

    roster = load_characters(args.characters)
    events = check_out_file(args.events, "--events", (".csv",))
    rep = replay_fight(
        args.party_a,
        args.party_b,
        seed=args.seed,
        fight=args.index,
        first=args.first,
        trials=args.trials,
        battlefield=args.battlefield,
        surprise=args.surprise,
        pincer=args.pincer,
        roster=roster,
    )
    if events:
        rep.events.to_csv(events, index=False)
    if args.json:
        print_json(
            {
                "fight": rep.fight,
                "seed": rep.seed,
                "battlefield": f"{rep.options['battlefield']}: "
                f"{rep.options['battlefield_meaning']}",
                "roster_note": rep.options["roster_note"],
                "outcome": rep.outcome,
                "rounds": rep.rounds,
                "characters": rep.characters.to_dict(orient="records"),
                "events": _records(rep.events),
            }
        )
        return 0
    print(rep.text())
    if events:
        print(f"events written to {events}")
    return 0


def _records(frame) -> list[dict]:
    """Rows as JSON-ready dicts: missing values as null."""
    return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
