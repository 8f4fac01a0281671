"""Reading the game's own data: the ``.c5m`` reader (RULES.md C-11 to C-13).

The fixture in ``tests/data/c5m/`` is written in the game's syntax with our own
names and values; the game's files are never shipped.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import montecarlo as mc
from montecarlo.coe5.c5m import commands as T
from montecarlo.coe5.c5m.lexer import read_statements, statements
from montecarlo.coe5.units import load_units, parse_roster

DATA = Path(__file__).parent / "data" / "c5m"
MONSTERS, WEAPONS = DATA / "monsters.c5m", DATA / "weapons.c5m"
RECRUITMENT, MOD = DATA / "recruitment.c5m", DATA / "mod.c5m"


@pytest.fixture(scope="module")
def base():
    """The base files alone."""
    return mc.load_c5m(MONSTERS, WEAPONS, RECRUITMENT)


@pytest.fixture(scope="module")
def modded():
    """The base files with the mod layered over them."""
    return mc.load_c5m(MONSTERS, WEAPONS, RECRUITMENT, [MOD])


def status(result, name: str) -> str:
    return result.units.set_index("name").loc[name, "status"]


# -- the format (C-11.1.1) ---------------------------------------------------------
def test_the_fixture_is_written_as_the_game_writes():
    raw = MONSTERS.read_bytes()
    assert b"\r\n" in raw and b"a lot,\nand writes" in raw  # CRLF, a bare LF inside a descr
    assert b"\r\n" in WEAPONS.read_bytes() and b"\r\n" in RECRUITMENT.read_bytes()


def test_comments_descr_and_hidden_commands_c11_1_1():
    sts = read_statements(MONSTERS)
    descr = next(s for s in sts if s.command == "descr")
    assert descr.args[0].startswith("The captain") and '"hold the line"' in descr.args[0]
    assert "\n" in descr.args[0]  # it ran over two lines
    hidden = {s.command for s in sts if s.hidden}
    assert hidden == {
        "res13",
        "[named]",
        "fx1252",
        "[meleeweaponsingle]",
        "[rangedweaponsingle]",
        "fx498",
        "fx9999",
        "[selfweaponbonus]",
        "weapontype49",
    }
    # Prose in the header that starts like a hidden command is a comment.
    assert min(s.line for s in sts if s.hidden) > 10
    wep = {s.command for s in read_statements(WEAPONS) if s.hidden}
    assert wep == {"wep57", "wep52", "wep54", "wep55", "wep56", "wep58", "0x7c"}
    new = next(s for s in sts if s.command == "newmonster")
    assert new.args == ("Warden Captain",) and new.comment == "0"


def test_a_name_that_runs_into_its_number_and_offset_names():
    sts = list(
        statements(
            'addunitrec  "Long Name"100  5    0   0   10\nselectmonster 1:"Captain"\n', "x.c5m"
        )
    )
    assert sts[0].args == ("Long Name", 100, 5, 0, 0, 10)
    assert sts[1].args == ("Captain", 1)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("hp 5\n\n-3 armor\n", 3, "is not a command"),
        ('newmonster "Orc\n', 1, "not closed on its line"),
        ("hp 5\narmor five\n", 2, "neither a whole number nor a quoted text"),
        ('hp 5\ndescr "never\nclosed\n', 2, "never closed"),
        ("hp 5 6x\n", 1, "neither a whole number"),
    ],
)
def test_a_malformed_line_stops_with_its_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "broken.c5m"
    path.write_bytes(text.replace("\n", "\r\n").encode())
    with pytest.raises(mc.DataError) as exc:
        read_statements(path)
    assert str(path) in str(exc.value) and f"line {line}" in str(exc.value)
    assert message in str(exc.value)


# -- names and indices (C-11.1.2) --------------------------------------------------
def test_the_index_decides_the_weapon_and_repeated_names_get_suffixes(base):
    brute = base.roster["Knuckle Brute"]
    # Two weapons named Knuckle (#0, #4) differ; the call's index picks one.
    assert [w.name for w in brute.weapons] == ["Knuckle#0", "Knuckle#4"]
    assert [brute.rolled_die(w) for w in brute.weapons] == [3, 2]  # 1 + 2, 2 + 0
    assert brute.weapons[0].soft and not brute.weapons[1].soft
    first, second = base.roster["Bone Soldier#25"], base.roster["Bone Soldier#26"]
    assert first.hp == 3 and second.hp == 4
    assert base.roster["bone soldier"] is first  # the plain name is the first (C-11.1.2)


def test_all_monsters_are_read_lair_monsters_too(base):
    assert len(base.units) == 31
    troll = base.roster["Cave Troll"]  # no offer names it
    assert troll.offers == () and troll.price() == (None, None)


# -- stats, dice and calls (C-11.2, C-11.3) ---------------------------------------
def test_stats_and_the_die_c11_2_c11_3(base):
    cap = base.roster["Warden Captain"]
    assert (cap.hp, cap.armor, cap.strength, cap.morale, cap.mr, cap.rank) == (14, 2, 5, 8, 6, 1)
    pick = cap.weapons[0]
    # C-11.3.1: dmg 4 + bonus 1 = d5; C-11.2.2: strength never enters it.
    assert cap.rolled_die(pick) == 5 and not cap.strength_in_die
    assert pick.damage.size + cap.strength == 5 and pick.an and pick.shieldneg
    assert pick.call == "meleeweapon" and not pick.magic  # mundane (C-12.3.2)
    assert cap.shields == (1, 2) and cap.categories == ("human",)
    assert set(cap.immune) == {"sleep", "charm", "disease"}
    spitter = base.roster["Spitter"]
    spit = spitter.weapons[0]
    assert spit.nostr and spit.damage.size == 3 and spit.reload == 2 and spit.is_ranged
    assert spit.type == "acid" and spitter.rank == -1


def test_calls_kinds_c11_3(base):
    lancer = base.roster["Mire Lancer"]
    assert [w.call for w in lancer.weapons] == [
        "meleeweaponspec",
        "meleeweapon",
        "meleeweaponbonus",
    ]
    assert [lancer.rolled_die(w) for w in lancer.weapons] == [11, 5, 3]
    assert lancer.shields == (2, 4) and lancer.frontpos and lancer.fast  # battlefast
    lurker = base.roster["Deep Lurker"]
    assert [w.call for w in lurker.weapons] == [
        "rangedweapon50",
        "rangedweapon50s",
        "rangedweaponbonus",
    ]
    assert all(w.is_ranged for w in lurker.weapons)
    assert lurker.move_every == 4 and lurker.miss_chance == 20 and lurker.size == 3
    cut = base.roster["Cutthroat"]
    calls = [w.call for w in cut.weapons]
    assert calls == [
        "assassinweapon",
        "meleeweapon",
        "prebatweapon",
        "[meleeweaponsingle]",
        "[rangedweaponsingle]",
    ]
    assert [w.name for w in cut.weapons][3] == "Pick (2)"  # a weapon called twice
    assert cut.miss_chance == 50 and cut.siege_tunneling and cut.tunnel_chance == 15
    sentinel = base.roster["Stone Sentinel"]
    assert sentinel.weapons[0].call == "siegeweapon" and sentinel.immobile
    assert sentinel.morale == 99 and sentinel.size == 2 and sentinel.affliction_resist == 50


def test_defences_traits_and_categories_c11_4_to_c11_7(base):
    archer = base.roster["Reed Archer"]
    assert archer.vulnerable == ("fire",) and "fire" not in archer.resist  # C-11.4.2
    assert archer.resist == {"cold": 50, "poison": 100} and archer.resist_pierce
    assert archer.rank == -1 and base.roster["Glaive Guard"].rearpos
    brute = base.roster["Knuckle Brute"]
    assert brute.berserker and brute.regeneration and brute.fast
    assert brute.resist_slash and brute.resist_blunt and brute.categories == ("stonebeing",)
    imp = base.roster["Ember Imp"]
    assert imp.flying and imp.ethereal and imp.airshield == 50
    assert imp.aura == {"fire": 3, "cold": 2, "shock": 4}
    assert set(imp.categories) == {"demonic", "firebeing"}  # fx1252 (C-11.7)
    lurker = base.roster["Deep Lurker"]
    assert set(lurker.categories) == {"water", "float", "undead"}
    assert base.roster["Horn Blower"].fear == 2
    assert base.roster["Templar"].resist == {"acid": 30, "shock": 25}


def test_weapon_attributes_c12(base):
    archer = base.roster["Reed Archer"]
    bow = archer.weapons[0]
    assert (bow.range, bow.reload, bow.arrow, bow.rangepen, bow.scatter) == (6, 1, True, True, True)
    assert bow.trgrank == 1
    templar = base.roster["Templar"]
    brand, lull, stiffen = templar.weapons
    assert brand.type == "magic" and brand.magic and brand.drain and brand.flying2
    assert set(brand.category_flags) == {
        "holykill",
        "undkill",
        "stonekill",
        "firekill",
        "affecthuman",
        "onlyenemy",
    }
    # C-12.6: nextalwayswep to Scorch, die = Scorch's dmg 1 + nextdmg 2; its range and
    # target rank (0: self) do not count in a chain (C-12.6.2).
    assert brand.next is not None and brand.next_always and brand.next.name == "Scorch"
    assert brand.next.damage.size == 3 and brand.next.type == "fire" and brand.next.aoe == 2
    assert lull.type == "sleep" and "hardmorale" in lull.checks and len(lull.category_flags) == 11
    assert stiffen.type == "paralysis"
    horn = base.roster["Horn Blower"]
    dread, daze = horn.weapons
    assert dread.type == "fear" and dread.aoe == 3005 and "mind" in dread.category_flags
    # C-12.1.1: an affliction's bitmask is the call's number: 64 stun + 4 decay.
    assert daze.type == "affliction" and daze.effects == 68 and horn.rolled_die(daze) == 0
    stinger = base.roster["Cutthroat"].weapons[0]
    assert not stinger.next_always and stinger.next.type == "poison"
    assert stinger.next.damage.size == 4  # Venom's dmg 0 + nextdmg 4 (the Poison Bow's rule)
    assert base.roster["Deep Lurker"].weapons[0].aoe == 9203


# -- the report (C-13) ---------------------------------------------------------------
REJECTIONS = [
    ("Spell Caller", "spellweapon", "C-11.3.9"),
    ("Trampler", "trample", "C-13"),
    ("Odd Creature", "fx498", "C-11.9"),
    ("Strange Beast", "fx9999", "C-11.9"),
    ("Babbler", "frobnicate", "C-13"),
    ("Netter", "dmgtype 12 bit 4294967296", "C-12.7"),
    ("Charmer", "dmgtype", "C-12.7"),
    ("Blaster", "aoe", "C-13"),
    ("Glower", "trgrank", "C-13"),
    ("Oddblade Wielder", "fullsweep", "C-13"),
    ("Oddblade Wielder", "wep56", "C-13"),
    ("Oddblade Wielder", "wep58", "C-11.9"),
    ("Oddblade Wielder", "0x7c", "C-11.9"),
    ("Acid Fiend", "acidres", "C-11.4.2"),
    ("Colossus", "armor", "C-10"),
    ("Mirror Shard", "mirror", "C-13"),
    ("Mirror Shard", "(no weapon)", "C-10"),
    ("Hermit", "meleeweapon50s", "C-13"),
    ("Hermit", "[selfweaponbonus]", "C-13"),
    ("Hermit", "weapontype49", "C-13"),
    ("Wisp", "hp", "C-10"),
]


@pytest.mark.parametrize(("unit", "command", "rule"), REJECTIONS)
def test_every_rejection_path_is_reported_c13(base, unit, command, rule):
    rep = base.report
    lines = rep[(rep["unit"] == unit) & (rep["command"] == command)]
    assert len(lines) >= 1, f"{unit}: no line for {command}"
    row = lines.iloc[0]
    assert row["disposition"] == "rejected" and row["rule"] == rule and row["reason"]
    assert status(base, unit) == "rejected" and unit not in base.roster
    assert Path(row["file"]).suffix == ".c5m" and row["line"] > 0


def test_ignored_and_approximated_lines_name_the_unit_file_and_line(base):
    rep = base.report
    lead = rep[(rep["unit"] == "Warden Captain") & (rep["command"] == "leadership")].iloc[0]
    assert (lead["disposition"], lead["rule"]) == ("ignored", "C-11.6.4")
    number = (
        MONSTERS.read_bytes()
        .split(b"\n")
        .index(
            next(ln for ln in MONSTERS.read_bytes().split(b"\n") if ln.startswith(b"leadership"))
        )
    )
    assert lead["file"] == str(MONSTERS) and lead["line"] == number + 1
    size = rep[(rep["unit"] == "Stone Sentinel") & (rep["command"] == "size2x2")].iloc[0]
    assert (size["disposition"], size["rule"]) == ("approximated", "C-11.5.4")
    sound = rep[(rep["unit"] == "Warden Captain") & (rep["command"] == "sound")].iloc[0]
    assert sound["weapon"] == "Pick" and sound["file"] == str(WEAPONS)
    disease = rep[(rep["unit"] == "Cutthroat") & (rep["command"] == "dmgtype 12 bit 1")]
    assert disease.iloc[0]["disposition"] == "ignored"  # C-12.7: a world-map affliction
    assert set(rep["disposition"]) == {"rejected", "approximated", "ignored"}
    assert list(rep.columns[:6]) == ["unit", "index", "weapon", "command", "args", "disposition"]


def test_the_summary_counts_units_by_scope(base):
    s = base.summary.set_index(["scope", "measure"])["units"]
    assert s["all monsters", "entries"] == 31
    assert s["all monsters", "imported"] == 16 and s["all monsters", "rejected"] == 15
    assert s["all monsters", "of which approximated"] == 2
    assert s["all monsters", "rejected by (no weapon)"] == 4
    # 11 names; "Bone Soldier" and "1:Bone Soldier" name one entry each of the same name.
    assert s["offered names", "entries"] == 12
    assert s["offered units", "entries"] == 12
    assert s["offered units", "rejected"] == 2
    assert s["offered units", "rejected only by spellweapon"] == 1
    assert "rejected by: spellweapon 1, trample 1" in base.summary_text()


def test_drop_imports_a_unit_without_its_rejected_commands_marked_partial():
    res = mc.load_c5m(MONSTERS, WEAPONS, RECRUITMENT, on_unsupported="drop")
    caller = res.roster["Spell Caller"]
    assert caller.partial and caller.label == "Spell Caller*"
    assert [w.call for w in caller.weapons] == ["meleeweapon"]  # the spell call is dropped
    netter = res.roster["Netter"]
    assert netter.partial and [w.name for w in netter.weapons] == ["Knuckle#4"]
    blade = res.roster["Oddblade Wielder"].weapons[0]
    assert blade.damage.size + 5 == 5 and blade.category_flags == ()  # flags dropped
    assert "Charmer" not in res.roster  # nothing would be left to fight with
    assert res.units.set_index("name").loc["Netter", "partial"]
    reasons = res.report[res.report["unit"] == "Netter"]["reason"]
    assert any("is dropped" in r for r in reasons)
    again = parse_roster(res.to_toml(), "drop.toml")
    assert again["spell caller"].partial and again["netter"] == netter


def test_options_are_checked():
    with pytest.raises(mc.InputError, match="on_unsupported"):
        mc.load_c5m(MONSTERS, WEAPONS, on_unsupported="skip")
    with pytest.raises(mc.InputError, match="not found"):
        mc.load_c5m(DATA / "none.c5m", WEAPONS)


# -- offers and prices (C-11.8) ---------------------------------------------------
def test_offers_attach_by_name_with_class_lot_and_exact_prices_c11_8(base):
    archer = base.roster["Reed Archer"]
    (offer,) = archer.offers
    assert (offer.class_id, offer.class_name, offer.kind) == (1, "Warden", "unit")
    assert (offer.chance, offer.count, offer.gold, offer.gold_die, offer.iron) == (
        100,
        10,
        50,
        0,
        0,
    )
    assert archer.price() == (Fraction(5), Fraction(0))
    # C-11.8.2: the most likely offer prices it, not the cheapest.
    brute = base.roster["Knuckle Brute"]
    assert len(brute.offers) == 2 and brute.price() == (Fraction(12), Fraction(2))
    cap = base.roster["Warden Captain"]
    assert cap.offers[0].kind == "commander" and cap.offers[0].count == 1
    assert cap.offers[0].limiters == ("-Warden Captain",) and cap.offers[0].modifiers == (
        "templerec",
    )
    # cost_with_die adds E[OED(10)] = 6 to the Cutthroat's 15 gold.
    cut = base.roster["Cutthroat"]
    assert cut.price() == (Fraction(15), Fraction(0))
    assert cut.price(cost_with_die=True) == (Fraction(21), Fraction(0))
    imp = base.roster["Ember Imp"].offers[0]
    assert imp.extra_cost == ((16, 5),) and imp.modifiers == ("libraryrec", "[nogathererrec]")
    assert base.roster["Ember Imp"].price("Fen Witch") == (Fraction(20), Fraction(0))
    assert base.roster["Ember Imp"].price("Warden") == (None, None)
    # A 0-gold offer upgrades units already owned: the price is unknown, not 0.
    conscript = base.roster["Reed Fen Conscript Of The Marsh"]
    assert conscript.offers[0].gold == 0 and conscript.price() == (None, None)
    guard = base.roster["Glaive Guard"].offers[0]
    assert guard.chance == -1  # "offered when the previous offer is"


def test_terrain_list_and_offset_names(base):
    spit = base.roster["Spitter"].offers[0]
    assert (spit.class_id, spit.class_name, spit.terrain) == (-1, "terrain", -36)
    first, second = base.roster["Bone Soldier#25"], base.roster["Bone Soldier#26"]
    assert [o.class_id for o in first.offers] == [1]  # "Bone Soldier": the first
    assert [o.class_id for o in second.offers] == [-1]  # "1:Bone Soldier": the second
    assert base.units.set_index("name").loc["Bone Soldier#26", "offered"]


# -- mods layered over the base data --------------------------------------------------
def test_a_mod_adds_and_edits_weapons(modded):
    cap = modded.roster["Warden Captain"]
    assert cap.hp == 20  # selectmonster by name, then hp
    pick, glaive = cap.weapons  # clearweapons, then two calls by name
    assert pick.name == "Pick" and cap.rolled_die(pick) == 6  # selectweapon "Pick": dmg 5, + 1
    assert glaive.name == "Straight Glaive" and glaive.range == 1 and glaive.sweep  # copyweapon
    assert cap.rolled_die(glaive) == 6 and glaive.type == "slash"
    bow = modded.roster["Reed Archer"].weapons[0]  # selectweapon 2, clearwspec, two back
    assert (bow.reload, bow.arrow, bow.scatter, bow.rangepen, bow.magic) == (
        0,
        False,
        False,
        True,
        False,
    )


def test_a_mod_adds_and_edits_monsters(modded):
    assert modded.roster["Bone Sergeant"].hp == 6  # 1:"Bone Soldier", then name
    assert modded.roster["Bone Soldier"].morale == 50  # "Bone Soldier" 0
    imp = modded.roster["Ember Imp"]  # selectmonster 5, clearspec, clearmove
    assert not imp.flying and not imp.ethereal and imp.aura == {} and imp.categories == ()
    assert imp.hp == 4 and imp.rank == 0  # stats stay
    raider = modded.roster["Raider"]  # newmonster, copystats "Reed Archer"
    assert raider.hp == 9 and raider.resist_pierce and raider.vulnerable == ()  # fireres 0
    assert raider.game_index == 31 and raider.rank == -1
    barb, hook = raider.weapons
    assert barb.next.name == "Barb Venom" and not barb.next_always  # next: defined after it
    assert barb.next.damage.size == 3 and barb.next.type == "poison"
    assert hook.next.name == "Hook Tear" and hook.next_always
    golem = modded.roster["Golem"]  # copystats 6 (by index), then flags turned off
    assert golem.hp == 30 and not golem.immobile and golem.size == 2


def test_a_mod_adds_offers_and_classes_and_reports_what_it_skips(modded):
    raider = modded.roster["Raider"]
    assert [(o.class_id, o.gold, o.count) for o in raider.offers] == [(1, 45, 5)]
    (golem,) = modded.roster["Golem"].offers
    assert golem.class_name == "Mod Lords" and golem.kind == "commander" and golem.gold == 70
    notes = modded.report[modded.report["unit"] == ""]
    assert list(notes["command"]) == [
        "icon",
        "description",
        "modprio",
        "addstartunits",
        "selectterr",
        "newritual",
    ]
    assert set(notes["disposition"]) == {"ignored"}
    # The base offers stay on the monsters they named when read (C-11.1.2).
    assert [o.class_id for o in modded.roster["Bone Sergeant"].offers] == [-1]


@pytest.mark.parametrize(
    ("mod", "message"),
    [
        ('selectmonster "Nobody"\nhp 3\n', "no monster named 'Nobody'"),
        ('selectmonster 1:"Cave Troll"\n', "at offset 1"),
        ("selectweapon 999\n", "no weapon has index 999"),
        ('newmonster "X"\nhp 3\nmeleeweapon 0 999\n', "no weapon has index 999"),
        ('newmonster "X"\nmeleeweapon 0 "Nothing"\n', "no weapon named 'Nothing'"),
        ("hp 4\n", "comes before any newmonster"),
        ('newmonster "X"\nhp 3\naddunitrec "X" 100 1 5 0 0\n', "comes before any selectclass"),
        ('newweapon "W"\ncopystats "Cave Troll"\n', "copystats needs a monster"),
        ('selectclass 1\naddunitrec "Nobody" 100 5 50 0 0\n', "no monster named 'Nobody'"),
        ('selectclass 1\naddunitrec "Cave Troll" 100 5 50\n', 'expected addunitrec "name"'),
        ("selectclass 1\nrecterr 5\n", "none comes before it"),
        ('newmonster "X"\nhp "many"\nmeleeweapon 0 1\n', "expected hp N"),
    ],
)
def test_a_broken_mod_stops_with_its_file_and_line(tmp_path, mod, message):
    path = tmp_path / "broken_mod.c5m"
    path.write_text("# a broken mod\n" + mod)
    with pytest.raises(mc.DataError) as exc:
        mc.load_c5m(MONSTERS, WEAPONS, RECRUITMENT, [path])
    text = str(exc.value)
    assert str(path) in text and "line " in text and message in text


def test_the_base_files_may_not_edit_entries_c11_1_2(tmp_path):
    path = tmp_path / "monsters.c5m"
    path.write_bytes(MONSTERS.read_bytes() + b'\r\nselectmonster "Cave Troll"\r\nhp 5\r\n')
    with pytest.raises(mc.DataError, match=r"line \d+.*selectmonster.*as a mod \(--mod\)"):
        mc.load_c5m(path, WEAPONS)
    dup = tmp_path / "dup.c5m"
    dup.write_bytes(MONSTERS.read_bytes() + b'\r\nnewmonster "Twin"   # 3\r\n')
    with pytest.raises(mc.DataError, match="index 3 is given twice"):
        mc.load_c5m(dup, WEAPONS)


# -- the table covers the fixture, the fixture covers the table ----------------------
def fixture_commands() -> set[str]:
    return {s.command for f in (MONSTERS, WEAPONS, RECRUITMENT, MOD) for s in read_statements(f)}


def test_the_fixture_uses_every_mapped_command():
    used = fixture_commands()
    missing = [
        r.name
        for r in T.rows()
        if r.disposition in (T.MAPPED, T.APPROXIMATED) and r.name not in used
    ]
    assert missing == [], f"the fixture never uses: {missing}"


def test_every_dmgtype_and_affliction_the_table_maps_is_used():
    sts = [s for f in (WEAPONS, MOD) for s in read_statements(f)]
    dmgtypes = {s.args[0] for s in sts if s.command == "dmgtype"}
    assert {c for c, v in T.DMGTYPES.items() if v.disposition == T.MAPPED} <= dmgtypes
    assert {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 17} <= dmgtypes


def test_aoe_forms_c12_2():
    assert T.aoe_form(0).model == T.aoe_form(1).model == "single"
    assert T.aoe_form(9).model == "burst" and T.aoe_form(100).model == "burst"
    assert T.aoe_form(2005).model == T.aoe_form(3006).model == T.aoe_form(4001).model == "cone"
    assert T.aoe_form(9205).model == "chain"
    for rejected in (-2, 999, 1005, 5003, 7002, 9997, 9998, 9999, 9005):
        assert T.aoe_form(rejected).disposition == T.REJECTED, rejected


def test_the_command_table_is_one_row_per_command():
    rows = T.rows()
    keys = [("weapon" if r.scope == "weapon" else r.scope, r.name) for r in rows]
    assert len(keys) == len(set(keys))
    assert all(r.disposition in T.DISPOSITIONS and r.rule and r.reason for r in rows)
    assert all(r.rule.startswith("C-1") for r in rows)


def test_docs_list_the_command_table():
    docs = (Path(__file__).resolve().parents[1] / "docs" / "c5m.md").read_text("utf-8")
    assert docs == T.markdown(), "docs/c5m.md is stale: run python -m montecarlo.coe5.c5m"


# -- the unit file -----------------------------------------------------------------------
def test_the_unit_file_reads_back_the_same_units(modded, tmp_path):
    text = modded.to_toml()
    assert "All Rights Reserved" in text and "strength_in_die = false" in text
    back = parse_roster(text, "units.toml")
    assert [u.name for u in back.values()] == [u.name for u in modded.imported]
    for unit in modded.imported:
        assert back[unit.name.lower()] == unit, unit.name
    path = tmp_path / "units.toml"
    path.write_text(text)
    merged = load_units(path)
    assert merged["Cave Troll"] == modded.roster["Cave Troll"] and "pikeman" in merged
    assert merged["bone soldier"].name == "Bone Soldier"


def test_old_unit_files_still_load_with_the_defaults():
    legacy = Path(__file__).parent / "data" / "legacy_units.toml"
    roster = parse_roster(legacy.read_text("utf-8"), str(legacy))
    for unit in roster.values():
        assert unit.strength_in_die and unit.shield_ranged is None and unit.rank is None
        assert unit.offers == () and not unit.partial and unit.unplayed() == []
        assert all(w.call is None and w.next is None for w in unit.weapons)


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ("rank = 2", "rank", "from -1 to 1"),
        ('categories = ["elf"]', "categories", "unknown value 'elf'"),
        ("aura = { acid = 2 }", "aura.acid", "unknown aura"),
        ("offers = [{ class = 1 }]", "offers[0].kind", "missing required field"),
        (
            'offers = [{ class = 1, kind = "gift", chance = 5, count = 1, gold = 5 }]',
            "offers[0].kind",
            "unknown value 'gift'",
        ),
        ("strength_in_die = 0", "strength_in_die", "expected true or false"),
    ],
)
def test_the_new_unit_fields_are_validated(fields, field, message):
    text = (
        f'[[unit]]\nname = "Orc"\nhp = 5\n{fields}\n[[unit.weapons]]\nname = "Axe"\n'
        'damage = "1-6"\n'
    )
    with pytest.raises(mc.DataError) as exc:
        parse_roster(text, "mine.toml")
    assert exc.value.field == field and message in str(exc.value)


def test_a_weapon_field_of_the_game_is_validated():
    text = (
        '[[unit]]\nname = "Orc"\nhp = 5\n[[unit.weapons]]\nname = "Axe"\ndamage = "1-6"\n'
        'call = "throwweapon"\n'
    )
    with pytest.raises(mc.DataError) as exc:
        parse_roster(text, "mine.toml")
    assert exc.value.field == "weapons[0].call" and "unknown value 'throwweapon'" in str(exc.value)
    nested = (
        '[[unit]]\nname = "Orc"\nhp = 5\n[[unit.weapons]]\nname = "Axe"\ndamage = "1-6"\n'
        '[unit.weapons.next]\nname = "Bleed"\ndamage = "x"\n'
    )
    with pytest.raises(mc.DataError) as exc:
        parse_roster(nested, "mine.toml")
    assert exc.value.field == "weapons[0].next.damage"
