"""CLI: ``montecarlo import-c5m`` and ``montecarlo units --class/--search`` (C-11 to C-13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from montecarlo.cli import main
from montecarlo.coe5.units import load_units

DATA = Path(__file__).parent / "data" / "c5m"
BASE = [str(DATA / "monsters.c5m"), str(DATA / "weapons.c5m")]
RECRUIT = ["--recruitment", str(DATA / "recruitment.c5m")]


@pytest.fixture(scope="module")
def units_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("c5m") / "my_units.toml"
    assert (
        main(["import-c5m", *BASE, *RECRUIT, "--mod", str(DATA / "mod.c5m"), "-o", str(out)]) == 0
    )
    return out


def test_import_writes_the_unit_file_and_the_report(units_file, capsys):
    roster = load_units(units_file)
    assert roster["raider"].game_name == "Raider" and "pikeman" in roster
    report = units_file.with_name("my_units.report.txt").read_text("utf-8")
    lines = report.splitlines()
    assert lines[0].startswith("# unit, command, args, disposition, reason")
    assert "Spell Caller, spellweapon, 51 1, rejected, casts a random spell" in report
    assert "(file), selectterr, 12, ignored" in report
    assert "# summary" in report and "offered units: rejected only by spellweapon: 1" in report


def test_import_prints_the_summary_and_a_csv_report(tmp_path, capsys):
    out, csv = tmp_path / "u.toml", tmp_path / "r.csv"
    argv = ["import-c5m", *BASE, *RECRUIT, "-o", str(out), "--report", str(csv)]
    assert main([*argv, "--on-unsupported", "drop"]) == 0
    text = capsys.readouterr().out
    assert "all monsters: 31 entries" in text and "imported partial (drop)" in text
    assert f"units to {out}" in text
    assert csv.read_text().splitlines()[0].startswith("unit,index,weapon,command,args")
    assert load_units(out)["babbler"].partial
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["units"] == 16 and data["summary"][0]["measure"] == "entries"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["-o", "x.parquet"], ["-o", "unsupported file type", ".toml"]),
        (["-o", "u.toml", "--report", "r.html"], ["--report", ".txt, .csv"]),
        (["-o", "u.toml", "--recruitment", "none.c5m"], ["the recruitment file not found"]),
    ],
)
def test_import_checks_its_input_first(tmp_path, monkeypatch, capsys, extra, expected):
    monkeypatch.chdir(tmp_path)
    assert main(["import-c5m", *BASE, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert all(e in err for e in expected), err
    assert not (tmp_path / "u.toml").exists()


def test_a_malformed_file_exits_2_naming_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.c5m"
    bad.write_bytes(b'newmonster "Orc"   # 0\r\nhp 5\r\narmor lots\r\n')
    assert main(["import-c5m", str(bad), BASE[1], "-o", str(tmp_path / "u.toml")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: line 3" in err and "neither a whole number" in err
    assert err.count("\n") == 1


def test_units_lists_a_class_offers_c11_8(units_file, capsys):
    assert main(["units", "--roster", str(units_file), "--class", "warden"]) == 0
    out = capsys.readouterr().out
    header, *rows = out.splitlines()
    assert header.split()[:8] == [
        "unit",
        "kind",
        "chance",
        "lot",
        "gold",
        "die",
        "iron",
        "gold_each",
    ]
    assert any(r.split()[:2] == ["Reed", "Archer"] and "100" in r for r in rows)
    assert any("Raider" in r for r in rows)  # the mod's offer
    assert main(["units", "--roster", str(units_file), "--class", "-1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["unit"], r["terrain"]) for r in rows] == [("Bone Sergeant", ""), ("Spitter", -36)]
    assert main(["units", "--roster", str(units_file), "--class", "Mod Lords", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["gold_each"] == "70"


def test_units_search_and_the_partial_mark(tmp_path, capsys):
    out = tmp_path / "u.toml"
    argv = ["import-c5m", *BASE, *RECRUIT, "-o", str(out), "--on-unsupported", "drop"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["units", "--roster", str(out), "--search", "bone"]) == 0
    listing = capsys.readouterr().out
    assert "Bone Soldier#25" in listing and "Bone Soldier#26" in listing and "Troll" not in listing
    assert main(["units", "--roster", str(out), "--search", "spell"]) == 0
    assert "Spell Caller*" in capsys.readouterr().out
    assert main(["units", "--roster", str(out), "spell caller"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("Spell Caller*:") and "imported without some of its commands" in shown
    assert main(["units", "--roster", str(out), "--search", "bone", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["partial"] for r in rows} == {False} and rows[0]["gold"] == "6"


def test_units_json_gives_the_games_die(units_file, capsys):
    assert main(["units", "--roster", str(units_file), "cave troll", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["weapons"][0]["damage"]["game_die"] == 7 and data["not_played"] == []
    assert data["game_name"] == "Cave Troll" and data["offers"] == []


def test_units_shows_what_is_not_played_yet(units_file, capsys):
    assert main(["units", "--roster", str(units_file), "warden captain"]) == 0
    out = capsys.readouterr().out
    assert "shield 1/2" in out and "not played yet: shield pair 1/2 (C-11.4.1)" in out
    assert "offer: Warden (commander) 10%: 1 for 60 gold +d10, 10 iron" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["units", "--class", "Baron"], "no unit of the roster has an offer"),
        (["units", "--search", "zzz"], "no unit's name holds it"),
        (
            ["matchup", "warden captain:2", "cave troll:1", "--trials", "256"],
            "Warden Captain: shield pair 1/2 is not played yet (RULES.md C-11.4.1)",
        ),
    ],
)
def test_bad_requests_exit_2_with_one_line(units_file, capsys, argv, expected):
    assert main([*argv, "--roster", str(units_file)]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1
