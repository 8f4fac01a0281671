"""Pins for what the blind mutation list of the game's data (tools/mutations/c5m_blind.toml)
found loose (RULES.md C-11 to C-13).

Each test writes a tiny file in the game's syntax, with our own names and values,
and checks what the rule says the reader must make of it.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import montecarlo as mc
from montecarlo.coe5.playable import deploy_key

WEAPONS = (
    'newweapon "Club" # 0\r\nrange 1\r\ninit 3\r\ndmgtype 2\r\ndmg 4\r\nmundane\r\n\r\n'
    'newweapon "Bow" # 7\r\nrange 8\r\ninit 4\r\ndmgtype 1\r\ndmg 3\r\nmundane\r\n\r\n'
    'newweapon "Spear" # 3\r\nrange 1\r\ninit 5\r\ndmgtype 1\r\ndmg 5\r\nmundane\r\n'
)


def monster(name: str, index: int, *lines: str) -> str:
    body = "\r\n".join(("hp 10", "armor 0", "str 2", "mor 8", "mr 5", "rank 1", *lines))
    return f'newmonster "{name}" # {index}\r\n{body}\r\n\r\n'


def load(tmp_path: Path, monsters: str, *, weapons: str = WEAPONS, recruitment: str | None = None,
         mods: tuple[str, ...] = (), **kw):  # fmt: skip
    m, w = tmp_path / "monsters.c5m", tmp_path / "weapons.c5m"
    m.write_bytes(monsters.encode())
    w.write_bytes(weapons.encode())
    r = None
    if recruitment is not None:
        r = tmp_path / "recruitment.c5m"
        r.write_bytes(recruitment.encode())
    mod_paths = []
    for k, text in enumerate(mods):
        path = tmp_path / f"mod{k}.c5m"
        path.write_bytes(text.encode())
        mod_paths.append(path)
    return mc.load_c5m(m, w, r, mod_paths, **kw)


# -- C-11.1.1: line ends ----------------------------------------------------------------------


def test_c11_1_1_lone_cr_line_ends_read_as_crlf_and_lf(tmp_path):
    text = monster("Guard", 0, "meleeweapon 0 0")
    results = []
    for ending in ("\r\n", "\n", "\r"):
        (tmp_path / ending.encode().hex()).mkdir()
        results.append(load(tmp_path / ending.encode().hex(), text.replace("\r\n", ending),
                            weapons=WEAPONS.replace("\r\n", ending)))  # fmt: skip
    guards = [r.roster["Guard"] for r in results]
    assert all(g.hp == 10 and len(g.weapons) == 1 for g in guards)
    assert guards[0] == guards[1] == guards[2]


# -- C-11.1.2: a weapon call names its weapon by index -------------------------------------------


def test_c11_1_2_the_index_not_the_position_in_the_file_names_the_weapon(tmp_path):
    # The weapons file lists #0, #7, #3: index 3 is the Spear, the third in the file.
    r = load(tmp_path, monster("Pikeman", 0, "meleeweapon 0 3"))
    (spear,) = r.roster["Pikeman"].weapons
    assert spear.name == "Spear"
    assert r.roster["Pikeman"].rolled_die(spear) == 5


# -- C-11.3.1: the call's first number is added to the weapon's dmg, negative too --------------


def test_c11_3_1_a_negative_bonus_lowers_the_die(tmp_path):
    r = load(tmp_path, monster("Slinger", 0, "rangedweapon -1 7"))
    (bow,) = r.roster["Slinger"].weapons
    assert r.roster["Slinger"].rolled_die(bow) == 2  # dmg 3 - 1


# -- C-11.5.2: rearpos is a rank minus ----------------------------------------------------------


def test_c11_5_2_rearpos_deploys_behind_its_rank_and_before_the_next(tmp_path):
    text = monster("Front", 0, "meleeweapon 0 0") + monster("Behind", 1, "meleeweapon 0 0",
                                                             "rearpos")  # fmt: skip
    text += monster("Middle", 2, "meleeweapon 0 0").replace("rank 1", "rank 0")
    r = load(tmp_path, text)
    front, behind, middle = (deploy_key(r.roster[n]) for n in ("Front", "Behind", "Middle"))
    assert r.roster["Behind"].rearpos and r.roster["Middle"].rank == 0
    assert middle < behind < front


# -- C-11.8.2: the price is the most likely offer's, ties by gold per unit ---------------------


def test_c11_8_2_ties_go_to_the_lower_gold_per_unit_not_per_lot(tmp_path):
    recruitment = (
        "selectclass 1 # Test\r\n"
        'addunitrec "Pikeman" 100 10 100 0 0\r\n'  # 10 gold a unit, 100 a lot
        'addunitrec "Pikeman" 100 2 60 0 0\r\n'  # 30 gold a unit, 60 a lot
    )
    r = load(tmp_path, monster("Pikeman", 0, "meleeweapon 0 3"), recruitment=recruitment)
    gold, iron = r.roster["Pikeman"].price()
    assert gold == Fraction(10) and iron == 0


# -- C-11.9: an ignored hidden trait is reported, and the unit imports ---------------------------


def test_c11_9_an_ignored_hidden_trait_is_reported_not_fatal(tmp_path):
    r = load(tmp_path, monster("Guard", 0, "meleeweapon 0 0", "# res13"))
    assert r.units.set_index("name").loc["Guard", "status"] == "imported"
    rows = r.report[(r.report["unit"] == "Guard") & (r.report["command"] == "res13")]
    assert len(rows) == 1
    assert rows.iloc[0]["disposition"] == "ignored" and rows.iloc[0]["rule"] == "C-11.9"


# -- C-12.8: rising victims are ignored under their own rule -------------------------------------


def test_c12_8_a_weapon_whose_victims_rise_is_ignored_under_c12_8(tmp_path):
    weapons = WEAPONS + '\r\nnewweapon "Grave Touch" # 9\r\nrange 1\r\ninit 3\r\ndmgtype 2\r\n'
    weapons += "dmg 2\r\nmundane\r\nghoulify\r\n"
    r = load(tmp_path, monster("Ghast", 0, "meleeweapon 0 9"), weapons=weapons)
    assert r.units.set_index("name").loc["Ghast", "status"] == "imported"
    rows = r.report[r.report["command"] == "ghoulify"]
    assert len(rows) == 1 and rows.iloc[0]["disposition"] == "ignored"
    assert rows.iloc[0]["rule"] == "C-12.8"


# -- C-13: editing commands belong to mods, and copystats copies ---------------------------------


@pytest.mark.parametrize("command", ["selectmonster", "copystats"])
def test_c13_a_base_file_that_edits_entries_is_refused_with_its_line(tmp_path, command):
    text = monster("Guard", 0, "meleeweapon 0 0") + f'{command} "Guard"\r\n'
    with pytest.raises(mc.DataError) as exc:
        load(tmp_path, text)
    assert "monsters.c5m" in str(exc.value) and "line 10" in str(exc.value)


def test_c13_copystats_replaces_every_command_but_the_name(tmp_path):
    mod = (
        'newmonster "Copy"\r\nshield\r\nrangedweapon 0 7\r\ncopystats "Guard"\r\n'
    )  # fmt: skip
    r = load(tmp_path, monster("Guard", 0, "meleeweapon 0 0"), mods=(mod,))
    copy, guard = r.roster["Copy"], r.roster["Guard"]
    assert [w.name for w in copy.weapons] == [w.name for w in guard.weapons] == ["Club"]
    assert copy.shields == guard.shields
    assert (copy.hp, copy.armor, copy.morale) == (guard.hp, guard.armor, guard.morale)
