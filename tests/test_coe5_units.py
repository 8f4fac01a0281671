"""The CoE5 data model: shipped roster, validation and merging (RULES.md C-10)."""

from __future__ import annotations

import textwrap

import pytest

import montecarlo as mc
from montecarlo.coe5.packing import pack
from montecarlo.coe5.units import Unit, Weapon, load_units, parse_roster

GOOD = """
[[unit]]
name = "Test Orc"
hp = 12
[[unit.weapons]]
name = "Axe"
damage = "1-6"
type = "slash"
"""


def test_shipped_roster_has_every_rule():
    roster = load_units()
    assert len(roster) >= 14
    units = roster.units()
    assert roster["PIKEMAN"].weapons[0].damage.size == 5  # lookup ignores case
    assert len(roster["abomination"].weapons) >= 2
    knight = roster["knight"]
    assert knight.armor == 3 and knight.shield >= 1 and len(knight.weapons) >= 2
    assert any(w.rangepen for u in units for w in u.weapons)
    assert any(u.armor == 2 and u.shield > 0 for u in units)
    wraith = roster["wraith"]
    assert wraith.ethereal and wraith.fear and wraith.weapons[0].magic
    types = {w.type for u in units for w in u.weapons}
    assert {"fire", "cold", "shock", "poison"} <= types
    assert roster["troll"].regeneration and roster["troll"].strength > 0
    assert any(u.immobile and any(w.siege for w in u.weapons) for u in units)
    assert any(w.an for u in units for w in u.weapons)


def write(tmp_path, text, name="mine.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_user_file_merges_over_shipped(tmp_path):
    path = write(tmp_path, GOOD + '\n[[unit]]\nname = "Pikeman"\nhp = 99\n'
                 '[[unit.weapons]]\nname = "Pike"\ndamage = "1-5"\n')  # fmt: skip
    roster = load_units(path)
    assert roster["test orc"].hp == 12
    assert roster["pikeman"].hp == 99
    assert load_units()["pikeman"].hp == 10  # the shipped roster is untouched


BAD_CASES = [
    ("hp = 12\nspeed = 3", "Test Orc", "speed", "unknown field"),
    ('hp = "twelve"', "Test Orc", "hp", "expected an integer, got str 'twelve'"),
    ("hp = -4", "Test Orc", "hp", "hit points must be positive"),
    ("hp = 12\narmor = 1.5", "Test Orc", "armor", "expected an integer"),
    ("hp = 12\nethereal = 1", "Test Orc", "ethereal", "expected true or false"),
    ("hp = 12\nresist = { holy = 10 }", "Test Orc", "resist.holy", "unknown resistance"),
    ('hp = 12\nvulnerable = ["wood"]', "Test Orc", "vulnerable", "unknown vulnerability"),
]


@pytest.mark.parametrize(("fields", "entry", "field", "message"), BAD_CASES)
def test_bad_unit_fields(tmp_path, fields, entry, field, message):
    weapons = '[[unit.weapons]]\nname = "Axe"\ndamage = "1-6"\n'
    text = f'[[unit]]\nname = "Test Orc"\n{fields}\n{weapons}'
    path = write(tmp_path, text)
    with pytest.raises(mc.DataError) as exc:
        load_units(path)
    err = exc.value
    assert err.file == str(path) and entry in err.entry and err.field == field
    assert message in str(err)
    assert str(path) in str(err) and field in str(err)


@pytest.mark.parametrize(
    ("weapon", "field", "message"),
    [
        ('damage = "1-x"', "weapons[0].damage", "not a damage die"),
        ('damage = "5-1"', "weapons[0].damage", "below the lower end"),
        ('damage = "1-6"\ntype = "holy"', "weapons[0].type", "unknown damage type 'holy'"),
        ('damage = "1-6"\nrange = 0', "weapons[0].range", "from 1 to 100"),
        ("damage = true", "weapons[0].damage", "expected a damage die"),
        ('damage = "1-6"\nsharp = true', "weapons[0].sharp", "unknown field"),
    ],
)
def test_bad_weapon_fields(tmp_path, weapon, field, message):
    text = f'[[unit]]\nname = "Test Orc"\nhp = 5\n[[unit.weapons]]\nname = "Axe"\n{weapon}\n'
    with pytest.raises(mc.DataError) as exc:
        load_units(write(tmp_path, text))
    assert exc.value.field == field and message in str(exc.value)


def test_unit_without_weapons(tmp_path):
    with pytest.raises(mc.DataError, match="at least one weapon"):
        load_units(write(tmp_path, '[[unit]]\nname = "Ghost"\nhp = 5\n'))


def test_duplicate_names_ignore_case(tmp_path):
    with pytest.raises(mc.DataError, match="duplicate unit name"):
        load_units(write(tmp_path, GOOD + GOOD.replace("Test Orc", "TEST ORC")))


def test_toml_syntax_error_names_the_file(tmp_path):
    path = write(tmp_path, "[[unit]\nname=")
    with pytest.raises(mc.DataError, match=r"mine\.toml"):
        load_units(path)


def test_malformed_user_file_leaves_shipped_roster_untouched(tmp_path):
    before = load_units()
    with pytest.raises(mc.DataError):
        load_units(write(tmp_path, GOOD + '\n[[unit]]\nname = "Pikeman"\nhp = -1\n'))
    after = load_units()
    assert after["pikeman"] == before["pikeman"] and len(after) == len(before)


def test_unknown_unit_lists_known_ones():
    with pytest.raises(mc.InputError, match=r"unknown unit 'dragon'.*Known units: Militia"):
        load_units()["dragon"]


def test_missing_user_file():
    with pytest.raises(mc.InputError, match="not found"):
        load_units("/nonexistent/roster.toml")


def test_parse_roster_from_string():
    roster = parse_roster(GOOD)
    assert roster["test orc"].weapons[0].type == "slash"


def test_pack_struct_of_arrays():
    from kernels import coe5_layout as L

    roster = load_units()
    p = pack([roster["knight"], roster["wraith"]])
    assert p.U.shape == (L.N_U_FIELDS, 2) and p.W.shape == (L.N_W_FIELDS, 4)
    assert p.U[L.U_ARMOR, 0] == 3 and p.U[L.U_NW, 0] == 3 and p.U[L.U_W0, 1] == 3
    assert p.U[L.U_FLAGS, 1] & L.UF_ETHEREAL
    assert p.W[L.W_MAGIC, 3] == 1 and p.W[L.W_OWNER, 3] == 1
    assert p.U[L.U_RES0 + L.T_COLD, 1] == 100


def test_pack_counts_the_ties_a_unit_draws_at_the_attack_order():
    """Steps 6-7 (C-8): one tie per shot of each weapon but the pre-battle ones (C-7.1).

    The battle kernel draws that many words for a unit whose attacks are all
    lost (``U_KEY_DRAWS``), instead of walking its weapons.
    """
    from kernels import coe5_layout as L

    die = mc.parse_die("1-3")
    caster = Unit("caster", 10, (Weapon("spell", die, prebattle=True, shots=3),
                                 Weapon("claws", die, shots=2), Weapon("bite", die)))  # fmt: skip
    p = pack([caster, load_units()["militia"]])
    assert p.U[L.U_KEY_DRAWS].tolist() == [3, 1]
