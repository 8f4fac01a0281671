"""``montecarlo import-c5m``: the game's own ``.c5m`` files to a unit file and a report."""

from __future__ import annotations

import argparse
from pathlib import Path

from montecarlo.cli.common import add_command, print_json
from montecarlo.validation import writable_file

#: How the report is written, by its suffix.
REPORT_SUFFIXES = (".txt", ".csv")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "import-c5m",
        "read the game's .c5m files (and mods) into a unit file, with a report",
        "Reads your own copies of CoE5's Monster and Weapon Data files (and, optionally, "
        "the Recruitment Data file and mods layered over them) and writes the toolkit's "
        "unit file, which every command's --roster accepts, and a report with a line for "
        "every command that no rule maps onto the battle, then a summary (RULES.md C-11 to "
        "C-13).  The game's files say All Rights Reserved: the toolkit never ships them, "
        "and the unit file written from them is for your own use.",
        [
            'montecarlo import-c5m "Monster Data v5.33.c5m" "Weapon Data v5.33.c5m" '
            '--recruitment "Recruitment Data v5.33.c5m" -o my_units.toml',
            "montecarlo import-c5m monsters.c5m weapons.c5m --mod my_mod.c5m -o my_units.toml "
            "--on-unsupported drop",
        ],
    )
    p.add_argument("monsters", metavar="MONSTERS", help="the monster file (Monster Data ...c5m)")
    p.add_argument("weapons", metavar="WEAPONS", help="the weapon file (Weapon Data ...c5m)")
    p.add_argument(
        "--recruitment",
        metavar="FILE",
        help="the recruitment file: the offers that give units a class and a price (C-11.8)",
    )
    p.add_argument(
        "--mod",
        action="append",
        default=[],
        metavar="FILE",
        help="a mod read after the base files (repeat for several, in order): it may add and "
        "edit monsters, weapons and offers",
    )
    p.add_argument("-o", "--out", required=True, metavar="TOML", help="the unit file to write")
    p.add_argument(
        "--report",
        metavar="FILE",
        help="the report: .txt (lines, then the summary) or .csv (the lines as a table); "
        "default: the unit file's name with .report.txt",
    )
    p.add_argument(
        "--on-unsupported",
        choices=("reject", "drop"),
        default="reject",
        help="C-13: leave out a unit with a rejected command, or import it without, marked "
        "partial (*)",
    )
    p.add_argument(
        "--cost-with-die",
        action="store_true",
        help="C-11.8.2: prices add the gold die's mean (die+2)/2 before dividing by the lot",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=run)


def report_text(result) -> str:
    """The report as text: one line per command (C-13), then the summary."""
    out = ["# unit, command, args, disposition, reason [rule; weapon; file:line]"]
    for r in result.report.itertuples(index=False):
        weapon = f"; weapon {r.weapon}" if r.weapon else ""
        out.append(
            f"{r.unit or '(file)'}, {r.command}, {r.args}, {r.disposition}, {r.reason} "
            f"[{r.rule}{weapon}; {Path(r.file).name}:{r.line}]"
        )
    out += ["", "# summary", result.summary_text(), ""]
    for row in result.summary.itertuples(index=False):
        out.append(f"{row.scope}: {row.measure}: {row.units}")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    from montecarlo.coe5.c5m import load_c5m

    out = writable_file(args.out, "-o", (".toml",), default_suffix=".toml")
    report_path = args.report or str(out.with_suffix("")) + ".report.txt"
    report = writable_file(report_path, "--report", REPORT_SUFFIXES)
    result = load_c5m(
        args.monsters,
        args.weapons,
        args.recruitment,
        args.mod,
        on_unsupported=args.on_unsupported,
        cost_with_die=args.cost_with_die,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result.to_toml(), "utf-8")
    report.parent.mkdir(parents=True, exist_ok=True)
    if report.suffix.lower() == ".csv":
        result.report.to_csv(report, index=False)
    else:
        report.write_text(report_text(result), "utf-8")
    if args.json:
        print_json(
            {
                "unit_file": str(out),
                "report": str(report),
                "units": len(result.imported),
                "summary": result.summary.to_dict(orient="records"),
            }
        )
        return 0
    print(result.summary_text())
    print(
        f"wrote {len(result.imported):,} units to {out}; report ({len(result.report):,} lines) "
        f"in {report}"
    )
    return 0
