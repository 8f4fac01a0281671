"""``montecarlo units``: list the CoE5 roster, a class's offers, or one unit in full."""

from __future__ import annotations

import argparse
from dataclasses import asdict

import pandas as pd

from montecarlo.cli.common import add_command, print_json
from montecarlo.coe5.offers import fraction_text, matches_class
from montecarlo.coe5.units import Roster, Unit, load_units
from montecarlo.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "units",
        "list the CoE5 roster, a class's offers, or show one unit in full",
        "The shipped CoE5 roster (rules C-10), merged with your own TOML file if given "
        "(a file written by 'montecarlo import-c5m' too): one line per unit, the units "
        "whose name holds --search, the recruitment offers of a --class with their lot, "
        "gold and iron per unit (C-11.8), or one unit with every weapon and the OED size "
        "it rolls.  A '*' marks a unit imported without some of its commands (C-13).",
        [
            "montecarlo units",
            "montecarlo units knight --json",
            "montecarlo units --roster my_units.toml",
            "montecarlo units --roster my_units.toml --class Baron",
            "montecarlo units --roster my_units.toml --search goblin",
        ],
    )
    p.add_argument("name", nargs="?", help="a unit to show in full")
    p.add_argument("--roster", metavar="TOML", help="a roster file merged over the shipped one")
    p.add_argument(
        "--class",
        dest="class_",
        metavar="CLASS",
        help="list the offers of this class (name or number; 'terrain' or -1 for the "
        "terrain list), with lot, chance, gold and iron per unit (C-11.8)",
    )
    p.add_argument("--search", metavar="TEXT", help="list only the units whose name holds TEXT")
    p.add_argument(
        "--cost-with-die",
        action="store_true",
        help="C-11.8.2: add the gold die's mean (die+2)/2 to an offer's gold before dividing",
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(run=run)


def _weapon_text(unit: Unit) -> str:
    if not unit.strength_in_die:  # the game's own die (C-11.2.2)
        return "; ".join(f"{w.name} d{unit.rolled_die(w)} {w.type}" for w in unit.weapons)
    return "; ".join(f"{w.name} {w.damage} {w.type}" for w in unit.weapons)


def _print_frame(rows: list[dict]) -> None:
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(pd.DataFrame(rows).to_string(index=False))


def _show(unit: Unit, as_json: bool) -> None:
    if as_json:
        data = asdict(unit)
        for w, weapon in zip(data["weapons"], unit.weapons, strict=True):
            # The damage as written in the roster ("1-5 (+10)"), with its parts.
            w["damage"] = {"text": str(weapon.damage), **w["damage"]}
            if not unit.strength_in_die:  # the game's die, at the unit's strength (C-11.2.2)
                w["damage"]["game_die"] = unit.rolled_die(weapon)
        data["offers"] = [asdict(o) for o in unit.offers]
        data["not_played"] = [f"{a} ({r})" for a, r in unit.unplayed()]
        print_json(data)
        return
    print(f"{unit.label}: {unit.description}")
    melee, ranged = unit.shields
    shield = f"{melee}" if melee == ranged else f"{melee}/{ranged}"
    print(
        f"  HP {unit.hp}  armor {unit.armor}  shield {shield}  MR {unit.mr}  "
        f"morale {unit.morale}  strength {unit.strength:+d}  gold {unit.gold}"
    )
    if unit.game_name:
        rank = "" if unit.rank is None else f", rank {unit.rank}"
        print(f"  the game's {unit.game_name} #{unit.game_index}{rank}")
    if unit.partial:
        print("  * imported without some of its commands (C-13; see the import report)")
    if unit.abilities():
        print(f"  abilities: {', '.join(unit.abilities())}")
    print("  weapons:")
    for w in unit.weapons:
        size = unit.rolled_die(w)
        extra = f"range {w.range}" if w.is_ranged else "melee"
        if w.reload:
            extra += f", reload {w.reload}"
        if w.shots > 1:
            extra += f", {w.shots} shots"
        if w.call is not None:
            extra += f", {w.call}"
        flags = ", ".join(w.flags())
        shown = f"d{size}" if not unit.strength_in_die else str(w.damage)
        print(
            f"    {w.name:<16} {shown:<10} → OED({size})  {w.type:<9} "
            f"init {w.initiative}  {extra}" + (f"  [{flags}]" if flags else "")
        )
    for o in unit.offers:
        gold = fraction_text(o.gold_each())
        print(
            f"  offer: {o.class_name} ({o.kind}) {o.chance}%: {o.count} for {o.gold} gold"
            f"{f' +d{o.gold_die}' if o.gold_die else ''}, {o.iron} iron ({gold} gold each)"
        )
    unplayed = unit.unplayed()
    if unplayed:
        print("  not played yet: " + "; ".join(f"{a} ({r})" for a, r in unplayed))


def _class_rows(roster: Roster, class_: str, cost_with_die: bool) -> list[dict]:
    rows = []
    # The game's order; units of the toolkit's own roster (no index) after them.
    ordered = sorted(roster.units(), key=lambda u: (u.game_index is None, u.game_index or 0))
    for u in ordered:
        for o in u.offers:
            if matches_class(o, class_):
                rows.append(
                    {
                        "unit": u.label,
                        "kind": o.kind,
                        "chance": o.chance,
                        "lot": o.count,
                        "gold": o.gold,
                        "die": o.gold_die,
                        "iron": o.iron,
                        "gold_each": fraction_text(o.gold_each(cost_with_die)),
                        "iron_each": fraction_text(o.iron_each()),
                        "terrain": "" if o.terrain is None else o.terrain,
                        "limits": " ".join(o.limiters),
                        "partial": u.partial,
                    }
                )
    if not rows:
        classes = sorted({(o.class_id, o.class_name) for u in roster.units() for o in u.offers})
        known = ", ".join(f"{n} ({i})" for i, n in classes) or "none: this roster has no offers"
        raise InputError(
            f"--class {class_!r}: no unit of the roster has an offer of that class; "
            f"classes: {known}"
        )
    return rows


def run(args: argparse.Namespace) -> int:
    roster = load_units(args.roster)
    if args.name:
        _show(roster[args.name], args.json)
        return 0
    if args.class_ is not None:
        rows = _class_rows(roster, args.class_, args.cost_with_die)
        if args.json:
            print_json(rows)
        else:
            _print_frame([{k: v for k, v in r.items() if k != "partial"} for r in rows])
        return 0
    units = roster.units()
    if args.search is not None:
        text = args.search.strip().lower()
        units = [u for u in units if text in u.name.lower() or text in u.game_name.lower()]
        if not units:
            raise InputError(f"--search {args.search!r}: no unit's name holds it")
    imported = any(u.game_name for u in units)
    rows = []
    for u in units:
        row = {
            "name": u.label,
            "hp": u.hp,
            "armor": u.armor,
            "shield": u.shield,
            "mr": u.mr,
            "morale": u.morale,
            "str": u.strength,
            "gold": u.gold,
            "weapons": _weapon_text(u),
            "abilities": ", ".join(u.abilities()),
        }
        if imported:  # the fields of the game's data (C-11)
            gold, iron = u.price(cost_with_die=args.cost_with_die)
            row.update(
                gold=fraction_text(gold),
                iron=fraction_text(iron),
                not_played=len(u.unplayed()),
                partial=u.partial,
            )
        rows.append(row)
    if args.json:
        print_json(rows)
        return 0
    _print_frame([{k: v for k, v in r.items() if k != "partial"} for r in rows])
    return 0
