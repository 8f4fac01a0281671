"""Imported units in today's battle: what maps onto it plays, the rest is refused (C-11, C-12).

The battle kernel does not play every attribute of the game's data yet.  A
unit with such an attribute is refused where it would enter a battle, naming
the unit, the attribute and the rule; a unit whose attributes all map onto
today's fields plays, with the game's own dice (C-11.2.2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import montecarlo as mc
from montecarlo.coe5.dice import Die
from montecarlo.coe5.playable import deploy_key, refuse_mixed_ranks
from montecarlo.coe5.units import Unit, Weapon, load_units

DATA = Path(__file__).parent / "data" / "c5m"


@pytest.fixture(scope="module")
def roster():
    return mc.load_c5m(DATA / "monsters.c5m", DATA / "weapons.c5m", DATA / "recruitment.c5m").roster


@pytest.mark.parametrize(
    ("unit", "attribute", "rule"),
    [
        ("Warden Captain", "shield pair 1/2", "C-11.4.1"),
        ("Reed Archer", "Warbow: scatter", "C-12.5.5"),
        ("Knuckle Brute", "berserker", "C-11.6.2"),
        ("Mire Lancer", "shield pair 2/4", "C-11.4.1"),
        ("Glaive Guard", "Glaive: call meleeweapon with range 2", "C-11.3.3"),
        ("Ember Imp", "flying", "C-11.5.3"),
        ("Stone Sentinel", "affres 50", "C-11.4.7"),
        ("Deep Lurker", "moves every 4 rounds", "C-11.5.3"),
        ("Cutthroat", "50% miss chance", "C-11.4.4"),
        ("Horn Blower", "Dread Horn: call meleeweapon with range 3", "C-11.3.3"),
        ("Templar", "Holy Brand: drain", "C-12.3.5"),
    ],
)
def test_an_attribute_not_played_yet_is_refused_in_a_battle(roster, unit, attribute, rule):
    with pytest.raises(mc.InputError) as exc:
        mc.matchup(f"{unit}:2", "cave troll:1", roster=roster, trials=256, progress=False)
    text = str(exc.value)
    assert text.startswith(f"{unit}: {attribute} is not played yet (RULES.md {rule})")
    assert (attribute, rule) == roster[unit].unplayed()[0]


def test_every_not_played_attribute_has_its_rule(roster):
    found = {rule for u in roster.units() for _, rule in u.unplayed()}
    assert {
        "C-11.3.4",
        "C-11.3.5",
        "C-11.3.7",
        "C-11.3.8",
        "C-11.4.5",
        "C-11.4.6",
        "C-11.5.5",
        "C-12.2",
        "C-12.3.1",
        "C-12.3.4",
        "C-12.4",
        "C-12.5.3",
        "C-12.6",
        "C-12.7",
        "C-12.8",
    } <= found


def test_refused_in_damage_duels_and_tables_too(roster):
    with pytest.raises(mc.InputError, match="Warbow: scatter is not played yet"):
        mc.damage("reed archer.warbow", "cave troll", roster=roster)
    with pytest.raises(mc.InputError, match="Warden Captain: shield pair"):
        mc.damage("cave troll", "warden captain", roster=roster)
    weapon = roster["Templar"].weapons[0]
    with pytest.raises(mc.InputError, match="Holy Brand: drain is not played yet"):
        mc.damage(weapon, "cave troll", roster=roster)


def test_deployment_by_rank_is_refused_when_it_would_differ_c11_5_2(roster):
    with pytest.raises(mc.InputError, match=r"deployment by rank is not played yet.*C-11\.5\.2"):
        mc.matchup(
            "spitter:3,bone soldier:3", "cave troll:1", roster=roster, trials=256, progress=False
        )
    # One key and one role per side deploy as C-6 does: played.
    troll, bone = roster["cave troll"], roster["bone soldier"]
    assert deploy_key(troll) == deploy_key(bone) == 2
    refuse_mixed_ranks([(troll, 1), (bone, 3)])
    shipped = load_units()
    refuse_mixed_ranks([(shipped["pikeman"], 5), (shipped["archer"], 5)])  # no ranks: C-6


def test_a_unit_that_maps_onto_todays_fields_fights(roster):
    res = mc.matchup(
        "spitter:4", "bone soldier:4", roster=roster, trials=512, seed=3, progress=False
    )
    assert res.n == 512 and sum(res.counts.values()) == 512
    assert 0.0 <= res.win_rate <= 1.0


def test_the_games_die_is_rolled_strength_added_back_c11_2_2(roster):
    troll = roster["cave troll"]  # Knuckle#4 (dmg 2) + call bonus 5 = d7, strength 9
    knuckle = troll.weapons[0]
    assert troll.rolled_die(knuckle) == 7 and knuckle.damage.size == 7 - 9
    target = Unit("Target", hp=50, weapons=(Weapon("Fist", Die(1)),))
    got = mc.damage(knuckle, target, strength=troll.strength)
    plain = mc.damage(Weapon("Club", Die(7), type="blunt"), target)
    assert got.mean() == pytest.approx(plain.mean()) == pytest.approx(4.5)  # E[OED(7)]
    spit = roster["spitter"].weapons[0]  # nostr: the listed die, strength never added
    assert mc.damage(spit, target, strength=3).mean() == pytest.approx(mc.oed(3).mean())


def test_partial_units_carry_their_mark(tmp_path):
    res = mc.load_c5m(DATA / "monsters.c5m", DATA / "weapons.c5m", on_unsupported="drop")
    unit = res.roster["Babbler"]
    assert unit.partial and unit.label == "Babbler*" and unit.unplayed() == []
    assert res.units.set_index("name").loc["Babbler", "partial"]
    fight = mc.matchup("babbler:3", "bone soldier:3", roster=res.roster, trials=256, seed=1,
                       progress=False)  # fmt: skip
    assert fight.title().startswith("Babbler* ×3 vs Bone Soldier#25 ×3")
