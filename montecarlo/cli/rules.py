"""``montecarlo rules``: the rules reference shipped with the package (docs/rules.md).

Every output of the toolkit cites rule ids (``C-4.2``, ``S-6``); this command
looks them up.  The text is ``docs/rules.md``, installed with the package as
``montecarlo/cli/rules.md`` so it works from an installed copy too.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from montecarlo.cli.common import add_command, print_json
from montecarlo.errors import InputError

#: A rule id written in bold at the start of an entry: ``**C-4.2 Fire [default]:**``.
_ENTRY = re.compile(r"^\s*(?:[-*]|\d+\.)\s+\*\*(?P<id>[CS]-\d+(?:\.\d+)?)\b(?P<title>[^*]*)\*\*")
#: A section heading: ``### C-4 Damage types``.
_HEADING = re.compile(r"^#{2,4}\s+(?P<id>[CS]-\d+(?:\.\d+)?)\b\s*(?P<title>.*)$")
#: A parameter line inside an entry: ``Parameter: `BattleRules.burn_chance` = 0.5``.
_PARAM = re.compile(r"Parameters?:\s*(?P<text>.+)$")


@dataclass
class Rule:
    """One rule id of docs/rules.md with its text."""

    id: str
    title: str
    lines: list[str] = field(default_factory=list)
    section: bool = False

    @property
    def parameters(self) -> list[str]:
        """The parameter lines of the rule's [default]s."""
        return [m["text"].strip() for line in self.lines if (m := _PARAM.search(line))]

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip("\n")

    @property
    def summary(self) -> str:
        """One line: the title, or the start of the text when the title is bare."""
        title = self.title.strip().rstrip(":").strip()
        if title:
            return title
        first = re.sub(r"\*\*[^*]*\*\*", "", self.lines[0] if self.lines else "").strip()
        return first[:70]


def rules_text() -> str:
    """The text of docs/rules.md as shipped with the package."""
    return resources.files("montecarlo.cli").joinpath("rules.md").read_text("utf-8")


@cache
def load_rules() -> dict[str, Rule]:
    """Every rule id of docs/rules.md, in document order."""
    rules: dict[str, Rule] = {}
    section: Rule | None = None
    entry: Rule | None = None
    for line in rules_text().splitlines():
        if line.startswith("#"):
            entry = None
            m = _HEADING.match(line)
            section = Rule(m["id"], m["title"].strip(), [line], section=True) if m else None
            if section is not None:
                rules[section.id] = section
            continue
        m = _ENTRY.match(line)
        if m and not (section is not None and m["id"] == section.id):
            # (A section whose whole body is one entry of its own id stays a section.)
            entry = Rule(m["id"], m["title"].strip(), [])
            rules[entry.id] = entry
        if section is not None:
            section.lines.append(line)
        if entry is not None:
            if not line.strip() and entry.lines and not entry.lines[-1].strip():
                entry = None  # a blank line after the entry's text ends it
            else:
                entry.lines.append(line)
    return rules


def lookup(rule_id: str) -> Rule:
    """The rule with this id (case-insensitive), or an InputError listing near ids."""
    rules = load_rules()
    key = rule_id.strip().upper()
    if key in rules:
        return rules[key]
    near = [k for k in rules if k.startswith(key.split(".")[0])][:8]
    hint = f"; ids near it: {', '.join(near)}" if near else "; 'montecarlo rules' lists them"
    raise InputError(f"no rule {rule_id!r} in docs/rules.md{hint}")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "rules",
        "look up the rule ids that every output cites (C-4.2, S-6, ...)",
        "The rules reference shipped with the toolkit (docs/rules.md).  Without an id, "
        "list every id with one line; with an id, print the rule, its [default]s and "
        "the parameter names that change them.",
        ["montecarlo rules", "montecarlo rules C-4.2", "montecarlo rules S-4 --json"],
    )
    p.add_argument("id", nargs="?", help="a rule id such as C-4.2 or S-6 (default: list all)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.id is None:
        rules = load_rules()
        if args.json:
            print_json([{"id": r.id, "summary": r.summary} for r in rules.values()])
            return 0
        for r in rules.values():
            indent = "" if r.section else "  "
            print(f"{indent}{r.id:<8} {r.summary}")
        return 0
    rule = lookup(args.id)
    if args.json:
        print_json(
            {"id": rule.id, "title": rule.summary, "text": rule.text, "parameters": rule.parameters}
        )
        return 0
    print(rule.text.replace("**", ""))
    params = rule.parameters
    print()
    if params:
        print("defaults and the parameters that change them:")
        for text in params:
            print(f"  {text.replace('`', '')}")
    else:
        print("no [default] here: the rule restates the seed (or is fixed by the procedure)")
    return 0
