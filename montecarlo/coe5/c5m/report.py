"""The import report (RULES.md C-13): a line per unmapped command, then a summary.

Nothing is dropped silently: every command that no rule maps onto the battle
is a line ``unit, command, args, disposition, reason`` (with the weapon, the
rule, the file and the line), and the summary counts imported, approximated
and rejected units, and rejections by their command, over all monsters and
over the names that recruitment offers name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import pandas as pd

from montecarlo.coe5.c5m import commands as T
from montecarlo.coe5.c5m.convert import Converted, Line
from montecarlo.coe5.c5m.entries import FileNote

#: Columns of the report's lines.
REPORT_COLUMNS = [
    "unit",
    "index",
    "weapon",
    "command",
    "args",
    "disposition",
    "rule",
    "reason",
    "file",
    "line",
]
#: Columns of the table of monsters.
UNIT_COLUMNS = [
    "name",
    "game_name",
    "index",
    "status",
    "partial",
    "approximated",
    "offered",
    "has_offers",
    "gold_each",
    "iron_each",
    "rejected_by",
    "not_played",
]
#: The summary's scopes: every monster; every entry of a name that an offer names; the
#: entries that the offers resolve to (the first of each name, C-11.1.2).
SCOPES = ("all monsters", "offered names", "offered units")


def report_frame(converted: Iterable[Converted], notes: Iterable[FileNote] = ()) -> pd.DataFrame:
    """One row per reported command: the units' lines, then the files' (unit left empty)."""
    rows: list[Line] = [ln for c in converted for ln in c.lines]
    rows += [Line.about(n) for n in notes]
    return pd.DataFrame([vars(r) for r in rows], columns=REPORT_COLUMNS)


def units_frame(
    converted: Sequence[Converted], offered: set[int], priced: set[int], cost_with_die: bool = False
) -> pd.DataFrame:
    """One row per monster: its status, whether offers name it, its price and what is not played.

    ``offered`` holds the indices of every entry of a name that an offer names;
    ``priced`` those of the entries the offers attach to.  ``not_played`` lists what
    the battle does not play yet (:mod:`montecarlo.coe5.playable`).
    """
    rows = []
    for c in converted:
        unit = c.unit
        gold = iron = None
        if unit is not None:
            gold, iron = unit.price(cost_with_die=cost_with_die)
        rows.append(
            {
                "name": c.name,
                "game_name": c.entry.name,
                "index": c.entry.index,
                "status": c.status,
                "partial": c.status == "partial",
                "approximated": c.approximated,
                "offered": c.entry.index in offered,
                "has_offers": c.entry.index in priced,
                "gold_each": gold,
                "iron_each": iron,
                "rejected_by": "; ".join(c.rejected_by()),
                "not_played": "; ".join(f"{a} ({r})" for a, r in unit.unplayed()) if unit else "",
            }
        )
    return pd.DataFrame(rows, columns=UNIT_COLUMNS)


def summary_frame(units: pd.DataFrame) -> pd.DataFrame:
    """Counts of units per scope: imported, approximated, partial, rejected, and by reason.

    ``rejected by X`` counts the units that X rejects (a unit may count under
    several); ``rejected only by X`` those that nothing else rejects.
    """
    rows = []
    for scope in SCOPES:
        part = (
            units
            if scope == "all monsters"
            else units[units["offered"] if scope == "offered names" else units["has_offers"]]
        )
        written = part[part["status"] != "rejected"]
        rows += [
            (scope, "entries", len(part)),
            (scope, "imported", int((part["status"] == "imported").sum())),
            (scope, "of which approximated", int(written["approximated"].sum())),
            (scope, "imported partial (drop)", int((part["status"] == "partial").sum())),
            (scope, "rejected", int((part["status"] == "rejected").sum())),
            (scope, "written and played today", int((written["not_played"] == "").sum())),
        ]
        reasons: Counter[str] = Counter()
        only: Counter[str] = Counter()
        for text in part["rejected_by"]:
            commands = [c for c in text.split("; ") if c]
            reasons.update(commands)
            if len(commands) == 1:
                only.update(commands)
        for command, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
            rows.append((scope, f"rejected by {command}", n))
        for command, n in sorted(only.items(), key=lambda kv: (-kv[1], kv[0])):
            rows.append((scope, f"rejected only by {command}", n))
    return pd.DataFrame(rows, columns=["scope", "measure", "units"])


def summary_text(summary: pd.DataFrame, report: pd.DataFrame, top: int = 12) -> str:
    """The summary as text: the main counts per scope and the commonest rejections."""
    out = []
    dispositions = report["disposition"].value_counts()
    out.append(
        "report lines: "
        + ", ".join(
            f"{dispositions.get(d, 0):,} {d}" for d in (T.REJECTED, T.APPROXIMATED, T.IGNORED)
        )
    )
    for scope in SCOPES:
        part = summary[summary["scope"] == scope].set_index("measure")["units"]
        if not part.get("entries", 0):
            continue
        main = ", ".join(
            f"{part.get(m, 0):,} {m}"
            for m in (
                "imported",
                "of which approximated",
                "imported partial (drop)",
                "rejected",
                "written and played today",
            )
        )
        out.append(f"{scope}: {part['entries']:,} entries: {main}")
        by = [
            (m[len("rejected by ") :], n) for m, n in part.items() if m.startswith("rejected by ")
        ]
        if by:
            shown = ", ".join(f"{c} {n}" for c, n in by[:top])
            more = f", ... ({len(by) - top} more)" if len(by) > top else ""
            out.append(f"  rejected by: {shown}{more}")
    return "\n".join(out)
