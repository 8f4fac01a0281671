"""``montecarlo units``: list the CoE5 roster or show one unit in full."""

from __future__ import annotations

import argparse
from dataclasses import asdict

import pandas as pd

from montecarlo.cli.common import add_command, print_json
from montecarlo.coe5.units import Unit, load_units


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "units",
        "list the CoE5 roster, or show one unit in full",
        "The shipped CoE5 roster (rules C-10), merged with your own TOML file if given: "
        "one line per unit, or one unit with every weapon and the OED size it rolls.",
        [
            "montecarlo units",
            "montecarlo units knight --json",
            "montecarlo units --roster my_units.toml",
        ],
    )
    p.add_argument("name", nargs="?", help="a unit to show in full")
    p.add_argument("--roster", metavar="TOML", help="a roster file merged over the shipped one")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(run=run)


def _weapon_text(unit: Unit) -> str:
    return "; ".join(f"{w.name} {w.damage} {w.type}" for w in unit.weapons)


def run(args: argparse.Namespace) -> int:
    roster = load_units(args.roster)
    if args.name:
        unit = roster[args.name]
        if args.json:
            data = asdict(unit)
            for w, weapon in zip(data["weapons"], unit.weapons, strict=True):
                # The damage as written in the roster ("1-5 (+10)"), with its parts.
                w["damage"] = {"text": str(weapon.damage), **w["damage"]}
            print_json(data)
            return 0
        print(f"{unit.name}: {unit.description}")
        print(
            f"  HP {unit.hp}  armor {unit.armor}  shield {unit.shield}  MR {unit.mr}  "
            f"morale {unit.morale}  strength {unit.strength:+d}  gold {unit.gold}"
        )
        if unit.abilities():
            print(f"  abilities: {', '.join(unit.abilities())}")
        print("  weapons:")
        for w in unit.weapons:
            size = w.damage.size + (0 if w.nostr else unit.strength)
            extra = f"range {w.range}" if w.is_ranged else "melee"
            if w.reload:
                extra += f", reload {w.reload}"
            if w.shots > 1:
                extra += f", {w.shots} shots"
            flags = ", ".join(w.flags())
            print(
                f"    {w.name:<16} {w.damage!s:<10} → OED({size})  {w.type:<9} "
                f"init {w.initiative}  {extra}" + (f"  [{flags}]" if flags else "")
            )
        return 0
    rows = [
        {
            "name": u.name,
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
        for u in roster.units()
    ]
    if args.json:
        print_json(rows)
        return 0
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(pd.DataFrame(rows).to_string(index=False))
    return 0
