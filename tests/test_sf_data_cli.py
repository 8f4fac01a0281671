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
