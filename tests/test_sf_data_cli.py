"""SF roster validation and the `montecarlo sf` commands."""

from __future__ import annotations

import json

import pytest

import montecarlo as mc
from montecarlo.cli import main
from montecarlo.sf.characters import load_characters, parse_dice

GOOD = (
    '[[character]]\nname = "Bandit"\nhp = 9\n'
    '[[character.weapons]]\nname = "Knife"\ndamage = "1d+1"\n'
)


def test_shipped_roster():
    roster = load_characters()
    assert len(roster) >= 10
    for name in ("warrior", "knight", "fencer", "archer", "priest", "mage", "scout",
                 "goblin", "orc", "wolf", "ogre"):  # fmt: skip
        assert roster[name].hp > 0
    assert roster["mage"].spells and roster["priest"].spells[0].stat == "faith"
    assert roster["archer"].ranged_weapon.ranged and roster["scout"].ships


@pytest.mark.parametrize(
    ("text", "n", "bonus"), [("2d+3", 2, 3), ("1d", 1, 0), ("3d6-1", 3, -1), ("4", 0, 4)]
)
def test_dice(text, n, bonus):
    d = parse_dice(text)
    assert (d.n, d.bonus) == (n, bonus)


@pytest.mark.parametrize(
    ("patch", "field", "message"),
    [
        ("hp = -2", "hp", "hit points must be positive"),
        ('hp = "nine"', "hp", "expected an integer"),
        ("hp = 9\nluck = 3", "luck", "unknown field"),
        ('hp = 9\nposition = "middle"', "position", "unknown value 'middle'"),
        ("hp = 9\narmor = { fire = 2 }", "armor.fire", "unknown field"),
    ],
)
def test_bad_character_fields(tmp_path, patch, field, message):
    path = tmp_path / "party.toml"
    path.write_text(GOOD.replace("hp = 9", patch))
    with pytest.raises(mc.DataError) as exc:
        load_characters(path)
    assert exc.value.field == field and message in str(exc.value)
    assert "party.toml" in str(exc.value) and "Bandit" in str(exc.value)


def test_bad_weapon_damage(tmp_path):
    path = tmp_path / "party.toml"
    path.write_text(GOOD.replace('"1d+1"', '"1x+1"'))
    with pytest.raises(mc.DataError, match="not SF damage") as exc:
        load_characters(path)
    assert exc.value.field == "weapons[0].damage"


def test_user_file_merges(tmp_path):
    path = tmp_path / "party.toml"
    path.write_text(GOOD)
    assert load_characters(path)["bandit"].hp == 9
    assert "bandit" not in load_characters()


def test_cli_sf_fight(capsys, tmp_path):
    png = tmp_path / "f.png"
    argv = ["sf", "fight", "warrior:2,archer:1", "goblin:4", "--battlefield", "corridor",
            "--surprise", "b", "--trials", "4000", "--seed", "1", "--plot", str(png)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "party A wins" in out and "Wilson" in out and "corridor" in out
    assert png.stat().st_size > 20_000


def test_cli_sf_attack_json(capsys):
    assert main(["sf", "attack", "fencer", "orc", "--trials", "20000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    events = {e["event"]: e for e in data["events"]}
    assert abs(events["hit"]["probability"] - events["hit"]["sampled"]) < 0.02


def test_cli_sf_errors(capsys):
    assert main(["sf", "fight", "dragon:1", "orc:1"]) == 2
    assert "unknown character" in capsys.readouterr().err


def test_cli_sf_fight_names_its_battlefield_and_the_illustrative_roster(capsys, tmp_path):
    # S-9: the header says where the fight is and what that means; the shipped
    # characters are made-up examples, and the output says which ones it used.
    assert main(["sf", "fight", "warrior:1", "orc:1", "--trials", "256", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("(field)") and out[1] == "field: front and back lines, cover to take"
    assert out[-1].startswith("Illustrative characters") and out[-1].count("Warrior, Orc;") == 1
    assert "--characters FILE" in out[-1]
    path = tmp_path / "party.toml"
    path.write_text(GOOD)
    argv = ["sf", "fight", "bandit:2", "orc:1", "--characters", str(path), "--battlefield",
            "open", "--trials", "256", "--seed", "1", "--json"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["battlefield"] == "open battlefield: everyone is engaged"
    assert "Orc" in data["roster_note"] and "Bandit" not in data["roster_note"]
    argv[2] = "bandit:1"
    argv[3] = "bandit:1"
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["roster_note"] is None


def test_cli_sf_characters_and_attack_say_the_roster_is_illustrative(capsys):
    assert main(["sf", "characters"]) == 0
    assert "made-up examples, not the game's data" in capsys.readouterr().out.splitlines()[-1]
    assert main(["sf", "attack", "fencer", "orc", "--trials", "2000", "--seed", "1"]) == 0
    assert "Illustrative characters" in capsys.readouterr().out
