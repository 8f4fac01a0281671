"""The sensitivity table covers every [default]; the report and its tornado plot."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from montecarlo.cli import main
from montecarlo.coe5.battle import BattleRules
from montecarlo.compare import engine_for
from montecarlo.scenarios import Scenario, SFScenario
from montecarlo.sensitivity import COE5_DEFAULTS, EXEMPT, SF_DEFAULTS, sensitivity
from montecarlo.sf.fights import Policy, SFRules

ROOT = Path(__file__).resolve().parents[1]
TABLES = {BattleRules: COE5_DEFAULTS, SFRules: SF_DEFAULTS, Policy: SF_DEFAULTS}
PREFIX = {BattleRules: "rules.", SFRules: "rules.", Policy: "policy."}


@pytest.mark.parametrize("cls", list(TABLES), ids=lambda c: c.__name__)
def test_every_field_has_a_row_or_an_exemption(cls):
    keys = {d.key for d in TABLES[cls]}
    for f in dataclasses.fields(cls):
        row = PREFIX[cls] + f.name in keys
        exempt = f"{cls.__name__}.{f.name}" in EXEMPT
        assert row != exempt, f"{cls.__name__}.{f.name}: needs a row or an exemption (not both)"


def test_every_parameter_line_of_the_rules_is_covered():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if "Parameter:" in ln]
    named = set(re.findall(r"`(BattleRules|SFRules|Policy)\.(\w+)", "\n".join(lines)))
    assert len(named) >= 40
    keys = {d.key for d in COE5_DEFAULTS + SF_DEFAULTS}
    for cls, name in named:
        prefix = "policy." if cls == "Policy" else "rules."
        assert prefix + name in keys or f"{cls}.{name}" in EXEMPT, f"{cls}.{name}"


def test_rows_cite_rule_ids_and_real_alternatives():
    for table, sc in ((COE5_DEFAULTS, Scenario("pikeman:2", "knight:1")),
                      (SF_DEFAULTS, SFScenario("warrior:1", "goblin:1"))):  # fmt: skip
        for d in table:
            assert re.fullmatch(r"[CS]-\d+(\.\d+)?", d.rule), d
            head, _, name = d.key.partition(".")
            current = getattr(getattr(sc, head), name) if name else getattr(sc, head)
            for value in d.alternatives:
                assert value != current, f"{d.key}={value} is the default"
                term = f"{d.key}={str(value).lower() if isinstance(value, bool) else value}"
                engine_for(sc.vary(term))  # a valid variant


def test_report_sorted_with_paired_intervals(tmp_path):
    only = ["rules.sidestep", "rules.burn_chance", "width"]
    res = sensitivity(("pikeman:20", "knight:3"), trials=1024, seed=1, progress=False, only=only)
    frame = res.to_frame()
    assert len(frame) == 1 + 2 + 2
    sizes = frame["change"].abs().to_numpy()
    assert (sizes[:-1] >= sizes[1:]).all()
    assert (frame["ci_low"] <= frame["change"]).all() and (
        frame["change"] <= frame["ci_high"]
    ).all()
    # A fire rule in a battle without fire changes no battle: exactly 0.
    burn = frame[frame["parameter"] == "rules.burn_chance"]
    assert (burn["change"] == 0).all() and (burn["changed_share"] == 0).all()
    assert "No battle changed" in res.summary()
    fig = res.plot()
    ax = fig.axes[0]
    assert "percentage points" in ax.get_xlabel() and ax.get_title() and ax.get_legend()


def test_cli_sensitivity_and_compare(tmp_path, capsys):
    plot = tmp_path / "tornado.png"
    argv = ["sensitivity", "pikeman:20", "knight:3", "--only", "rules.sidestep", "--trials",
            "512", "--seed", "2", "--plot", str(plot)]  # fmt: skip
    assert main(argv) == 0
    assert plot.stat().st_size > 0 and "seed 2" in capsys.readouterr().out
    argv = ["sf", "sensitivity", "warrior:1,archer:1", "goblin:3", "--only", "policy.cast",
            "--trials", "512", "--seed", "2"]  # fmt: skip
    assert main(argv) == 0
    assert (
        main(
            [
                "compare",
                "pikeman:5",
                "knight:1",
                "--variant",
                "knight.armor=+1",
                "--variant",
                "rules.sidestep=false",
                "--trials",
                "512",
                "--json",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "sf",
                "compare",
                "warrior:1",
                "goblin:2",
                "--variant",
                "warrior.hp=+2",
                "--trials",
                "512",
                "--seed",
                "1",
            ]
        )
        == 0
    )


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["compare", "pikeman:5", "knight:1", "--variant", "knight.armor"], "KEY=VALUE"),
        (["compare", "pikeman:5", "knight:1", "--variant", "troll.hp=+1"], "'troll.hp=+1'"),
        (["sf", "compare", "warrior:1", "goblin:2", "--variant", "policy.x=1"], "'policy.x=1'"),
        (["sensitivity", "pikeman:5", "knight:1", "--only", "rules.x"], "rules.x"),
    ],
)
def test_cli_bad_terms_fail_before_work(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_s9_an_alternative_the_baseline_cannot_take_is_listed_not_played():
    # A corridor pincer has no open-battlefield variant (the open field has no ends).
    from montecarlo.errors import InputError

    base = SFScenario("warrior:2", "goblin:4", battlefield="corridor", pincer="a")
    res = sensitivity(base, trials=256, seed=1, progress=False, only=["battlefield", "rules.clash"])
    assert [term for term, _ in res.not_applicable] == ["battlefield=open"]
    assert set(res.to_frame()["parameter"]) == {"rules.clash"}
    assert "Not applicable to this baseline: battlefield=open (pincer=" in res.summary()
    with pytest.raises(InputError, match="no alternative applies"):
        sensitivity(base, trials=256, seed=1, progress=False, only=["battlefield"])


def test_s9_the_default_battlefield_has_a_row():
    # S-9 [default]: the field, against the open battlefield where everyone is engaged.
    row = next(d for d in SF_DEFAULTS if d.key == "battlefield")
    assert row.rule == "S-9" and row.alternatives == ("open",)
    assert SFScenario("warrior:1", "goblin:1").battlefield.name == "field"
