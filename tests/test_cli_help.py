"""Issue 14: help that teaches, rules that ship, progress bars only on a terminal."""

from __future__ import annotations

import argparse
import dataclasses
import re
import shlex
from pathlib import Path

import pytest

import montecarlo as mc
from montecarlo.cli import build_parser, main
from montecarlo.cli.rules import load_rules, rules_text

ROOT = Path(__file__).resolve().parents[1]


def subcommands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    """(path, parser) for every command that runs, nested ones included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                has_children = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                if not has_children:
                    yield (*prefix, name), sub
                yield from subcommands(sub, (*prefix, name))


COMMANDS = list(subcommands(build_parser()))


@pytest.mark.parametrize(
    ("path", "parser"), COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_every_command_has_a_description_examples_and_option_help(path, parser):
    assert parser.description and len(parser.description) > 40, path
    assert parser.epilog and parser.epilog.startswith("examples:"), path
    text = parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        assert action.help, f"{path}: {action.dest} has no help text"
        shows_default = action.default not in (None, False) and action.nargs != 0
        if action.option_strings and shows_default:
            assert "default" in parser._get_formatter()._expand_help(action) or (
                "default" in (action.help or "")
            ), f"{path}: {action.option_strings} does not show its default"
    assert "usage:" in text


@pytest.mark.parametrize(
    ("path", "parser"), COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_every_example_in_the_help_parses(path, parser):
    for line in parser.epilog.splitlines()[1:]:
        argv = shlex.split(line.strip())
        assert argv[0] == "montecarlo"
        build_parser().parse_args(argv[1:])  # exits (fails) on a bad example


@pytest.mark.parametrize(
    ("path", "parser"), COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_help_exits_0(path, parser, capsys):
    assert main([*path, "--help"]) == 0
    assert "examples:" in capsys.readouterr().out


def test_progress_bar_only_on_a_terminal(capsys):
    # pytest's captured stderr is not a terminal: no bar unless asked.
    assert main(["matchup", "pikeman:3", "militia:3", "--trials", "4096", "--seed", "1"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["matchup", "pikeman:3", "militia:3", "--trials", "4096", "--seed", "1",
                 "--progress"]) == 0  # fmt: skip
    assert "battle" in capsys.readouterr().err


# -- the rules reference -------------------------------------------------------
LEAF_IDS = (
    [f"C-1.{i}" for i in range(1, 8)] + [f"C-2.{i}" for i in range(1, 5)]
    + [f"C-3.{i}" for i in range(1, 12)] + [f"C-4.{i}" for i in range(1, 10)]
    + [f"C-5.{i}" for i in range(1, 6)] + ["C-6"] + [f"C-7.{i}" for i in range(1, 6)]
    + [f"C-8.{i}" for i in range(1, 12)] + ["C-9", "C-10", "S-1.1", "S-1.2"]
    + [f"S-{i}" for i in range(2, 11)]
)  # fmt: skip


def test_rules_reference_has_every_id_and_ships_with_the_package():
    rules = load_rules()
    assert set(LEAF_IDS) <= set(rules)
    assert rules_text() == (ROOT / "docs" / "rules.md").read_text("utf-8")


def test_every_default_names_its_parameter():
    for rule in load_rules().values():
        if "[default]" in rule.text:
            assert rule.parameters, f"{rule.id} has a [default] without a Parameter line"


def test_named_parameters_exist_in_the_code():
    """A parameter written in docs/rules.md is a real field: the docs cannot drift."""
    classes = {"BattleRules": mc.BattleRules, "SFRules": mc.sf.SFRules, "Policy": mc.sf.Policy}
    found = 0
    for cls_name, field_name in re.findall(r"`(BattleRules|SFRules|Policy)\.(\w+)`", rules_text()):
        if field_name == "x":
            continue  # the placeholder of the introduction
        fields = {f.name for f in dataclasses.fields(classes[cls_name])}
        assert field_name in fields, f"docs/rules.md names {cls_name}.{field_name}"
        found += 1
    assert found >= 20


def test_rules_command_lists_and_explains(capsys):
    assert main(["rules"]) == 0
    listing = capsys.readouterr().out
    assert all(re.search(rf"^\s*{re.escape(i)}\s", listing, re.M) for i in LEAF_IDS)
    assert main(["rules", "c-4.2"]) == 0
    out = capsys.readouterr().out
    assert "Fire" in out and "BattleRules.burn_chance = 0.5" in out and "**" not in out
    assert main(["rules", "S-4"]) == 0
    assert "SFRules.faint_check_every_hit" in capsys.readouterr().out
