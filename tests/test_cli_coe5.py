"""CLI: `montecarlo units` and `montecarlo damage`."""

import json

import pytest

from montecarlo.cli import main


def test_units_table(capsys):
    assert main(["units"]) == 0
    out = capsys.readouterr().out
    assert "Pikeman" in out and "Knight" in out


def test_units_one(capsys):
    assert main(["units", "KNIGHT"]) == 0
    out = capsys.readouterr().out
    assert "Lance" in out and "armor 3" in out and "OED(7)" in out


def test_damage_exact_and_sampled(capsys, tmp_path):
    png = tmp_path / "pk.png"
    argv = ["damage", "pikeman", "knight", "--trials", "50000", "--seed", "1", "--plot", str(png)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "exact_mean" in out and "sampled_mean" in out and "Pike" in out
    assert png.stat().st_size > 10_000


def test_damage_json_with_wall(capsys):
    argv = ["damage", "knight", "militia", "--wall", "2", "--trials", "20000", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert [w["weapon"] for w in data["weapons"]] == ["Lance", "Broad Sword", "Hoof"]
    assert data["situation"]["on_wall"] == 2


def test_damage_all_writes_heatmap(capsys, tmp_path):
    png = tmp_path / "heat.png"
    assert main(["damage", "--all", "--plot", str(png)]) == 0
    assert "hits_to_kill" in capsys.readouterr().out
    assert png.stat().st_size > 20_000


def test_damage_unknown_unit(capsys):
    assert main(["damage", "pikeman", "dragon"]) == 2
    assert "unknown unit 'dragon'" in capsys.readouterr().err


def test_bad_roster_file(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[unit]]\nname = "X"\nhp = -1\n')
    assert main(["units", "--roster", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "'X'" in err and "hp" in err


def test_matchup_rule_option_changes_a_default(capsys):
    # --rule sets a BattleRules field: literal C-8.3 movement skews a mirror match.
    argv = ["matchup", "militia:20", "militia:20", "--length", "21", "--trials", "2048",
            "--seed", "1", "--json"]  # fmt: skip
    assert main(argv) == 0
    even = json.loads(capsys.readouterr().out)["outcomes"][0]["rate"]
    assert main([*argv, "--rule", "move_order=sides", "--rule", "simultaneous_moves=false"]) == 0
    skewed = json.loads(capsys.readouterr().out)["outcomes"][0]["rate"]
    assert even - skewed > 0.1


@pytest.mark.parametrize(
    ("term", "message"),
    [("move_order=bogus", "one of paired, sides"), ("nosuch=1", "has no field 'nosuch'"),
     ("burn_chance", "expected FIELD=VALUE"), ("burn_chance=2", "probability")],
)  # fmt: skip
def test_matchup_bad_rule_is_one_line_exit_2(term, message, capsys):
    assert main(["matchup", "militia:5", "militia:5", "--rule", term]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
