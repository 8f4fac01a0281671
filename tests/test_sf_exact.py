"""Shared†Fantasia exact pieces against hand computations and the kernels (S-1 to S-6)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import montecarlo as mc
from montecarlo import sf
from montecarlo.sf.characters import Character, SFWeapon, parse_dice
from montecarlo.sf.exact import SFState, opposed, outcome_chances
from montecarlo.sf.sampling import EVENTS, sample_attack, sample_friendly_fire_counts
from tests.helpers import assert_matches, assert_rate


def char(name="X", weapon="1d", wtype="slash", ranged=False, **kw) -> Character:
    w = SFWeapon("W", parse_dice(weapon), wtype, ranged=ranged)
    return Character(name, kw.pop("hp", 10), weapons=(w,), **kw)


def test_s1_2_ties_go_to_the_defender():
    # Equal values and no specials: hit iff the attacker's 2d6 is strictly higher.
    odds = opposed(0, 0)
    assert odds.hit + odds.miss == 1
    assert odds.hit < Fraction(1, 2)  # ties (and the symmetric specials) favour the defender


def test_s1_2_specials_and_the_clash_default():
    # Hit value +100 against 0: the attacker misses only on a natural 2 (unless the
    # defender also rolls a 2: both specials clash, totals decide -> hit), or when
    # the defender rolls a natural 12 (automatic evade) and the attacker does not
    # (a 12 against a 12 clashes: totals decide -> hit).
    odds = opposed(100, 0)
    assert odds.miss == Fraction(1, 36) * Fraction(35, 36) + Fraction(34, 36) * Fraction(1, 36)


def test_s2_values_use_body_for_melee_and_tech_for_ranged():
    a = char(body=3, tech=1, combat=2)
    d = char(body=1, tech=4, combat=1)
    melee = sf.attack(a, d)
    assert (melee.hit_value, melee.evade_value) == (5, 2)
    bow = sf.attack(char(body=3, tech=1, combat=2, ranged=True), d)
    assert (bow.hit_value, bow.evade_value) == (3, 5)


def test_s2_dramatic_success_doubles_the_dice():
    # 1d, no bonus, no armour: 12 damage needs a dramatic hit (2d) showing 6 and 6.
    a = sf.attack(char(), char())
    assert a.damage.hi == 12
    assert a.damage.pmf(12) == pytest.approx(float(a.odds.dramatic) / 36)
    assert parse_dice("2d+1").doubled() == parse_dice("4d+1")


def test_s2_defender_fumble_ignores_armor():
    # Armour 100 stops everything except a hit on a defender fumble.
    a = sf.attack(char(), char(armor={"slash": 100}))
    assert a.damage.sf(0) == pytest.approx(float(a.odds.defender_fumble))


def test_s3_pierce_doubles_after_armor():
    # 1d pierce, armour 2: 2 * max(d - 2, 0) -> 0 (d <= 2), 2, 4, 6, 8
    a = sf.attack(char(wtype="pierce", combat=100), char(armor={"pierce": 2}))
    normal = a.damage_if_hit
    p_plain = 1 - float(a.odds.dramatic + a.odds.defender_fumble) / float(a.odds.hit)
    for dmg in (2, 4, 6, 8):
        assert normal.pmf(dmg) >= p_plain / 6 - 1e-12
    assert normal.pmf(1) == 0 and normal.pmf(3) == 0


def test_s3_damage_adds_body_for_melee():
    a = sf.attack(char(weapon="2d+3", body=4, combat=100), char())
    # without specials: 2d + 3 + 4, at least 9
    assert a.damage_if_hit.lo == 9


def test_s3_fatigue_weapons_and_attacks():
    sap = Character("Sap", 10, weapons=(SFWeapon("Sap", parse_dice("1d"), "blunt", fatigue=True),))
    assert sf.attack(sap, char()).kind == "fatigue"
    assert sf.attack(char(wtype="blunt"), char(), fatigue_attack=True).kind == "fatigue"
    with pytest.raises(mc.InputError, match="blunt melee"):
        sf.attack(char(wtype="slash"), char(), fatigue_attack=True)


# -- S-4 ---------------------------------------------------------------------------------
def test_s4_heavy_fatigue_once_per_multiple_of_five():
    s = SFState(hp=20).take(4, "fatigue")
    assert s.heavy == 0
    s = s.take(1, "fatigue")  # reaches 5
    assert s.heavy == 1
    s = SFState(hp=20, fatigue=2, heavy=s.heavy, peak=s.peak)  # caught breath: back to 2
    s = s.take(3, "fatigue")  # 5 again: not a new multiple
    assert s.heavy == 1
    s = s.take(5, "fatigue")  # 10: new
    assert s.heavy == 2
    assert SFState(hp=20).take(11, "fatigue").heavy == 2  # 5 and 10 in one blow


def test_s4_faint_target_sums_fatigue_and_heavy():
    # HP 10, injury 6, fatigue 4, heavy 3: check since 6 + max(4, 3) >= 10;
    # target 10 + (6 + 4 + 3 - 10) = 13, Fortitude 2: stays up on 11+ (3/36).
    state = SFState(hp=10, fortitude=2, injury=6, fatigue=4, heavy=3)
    odds = outcome_chances(state)
    assert odds["standing"] == pytest.approx(3 / 36)
    assert odds["standing"] == pytest.approx(float(sf.check(2, 13).p_success))
    # the condition uses max(fatigue, heavy), not the sum: 5 + 4 < 10, no check
    assert outcome_chances(SFState(hp=10, injury=5, fatigue=4, heavy=3))["standing"] == 1.0


def test_s4_death_check_and_automatic_death():
    # injury 13 over HP 10: Fortitude 2 - 3 against 10; fainted even on a success
    state = SFState(hp=10, fortitude=2, injury=13)
    odds = outcome_chances(state)
    assert odds["standing"] == 0
    assert odds["dead"] == pytest.approx(float(sf.check(-1, 10).p_failure))
    assert outcome_chances(SFState(hp=10, injury=20))["dead"] == 1.0  # HP + 10
    assert sf.death_chance(SFState(hp=10, fortitude=2, injury=8), 5) == pytest.approx(odds["dead"])
    assert sf.faint_chance(SFState(hp=10), 3) == 0.0


# -- S-6 friendly fire --------------------------------------------------------------------
def test_s6_friendly_fire_seed_example():
    ff = sf.friendly_fire(7)
    assert ff["exact"].tolist() == ["1/8"] * 4 + ["1/6"] * 3


@pytest.mark.parametrize("n", range(1, 41))
def test_s6_friendly_fire_is_a_distribution(n):
    ff = sf.friendly_fire(n)
    assert sum(Fraction(x) for x in ff["exact"]) == 1
    if n <= 6:
        assert set(ff["exact"]) == {str(Fraction(1, n))}


@pytest.mark.parametrize("n", range(2, 14))
def test_s6_friendly_fire_kernel_matches_exact(n):
    counts = sample_friendly_fire_counts(n, 60_000, seed=n)
    expected = sf.friendly_fire(n)["probability"].to_numpy() * counts.sum()
    assert stats.chisquare(counts, expected).pvalue > 1e-3


@pytest.mark.parametrize("n", [7, 9, 13, 40])
def test_s6_friendly_fire_six_groups_kernel_matches_exact(n):
    # SFRules.friendly_fire_groups = "six": always six groups above 6 characters
    six = sf.friendly_fire(n, groups="six")
    assert six["group"].nunique() == 6
    assert sum(Fraction(x) for x in six["exact"]) == 1
    assert not np.allclose(six["probability"], sf.friendly_fire(n)["probability"])
    counts = sample_friendly_fire_counts(n, 60_000, seed=n, groups="six")
    assert stats.chisquare(counts, six["probability"].to_numpy() * counts.sum()).pvalue > 1e-3
    with pytest.raises(mc.InputError, match="six"):
        sf.friendly_fire(n, groups="all")


def test_friendly_fire_test_can_fail():
    counts = sample_friendly_fire_counts(7, 60_000, seed=1)
    uniform = np.full(7, counts.sum() / 7)
    assert stats.chisquare(counts, uniform).pvalue < 1e-3


# -- sampled attacks against the exact ones ----------------------------------------------------
SITUATIONS = [
    ("warrior", "orc", {}),
    ("fencer", "goblin", {"surprised": True}),
    ("archer", "wolf", {"cover": True}),
    ("archer", "goblin", {"shooter_in_cover": True, "ship": True}),
    ("ogre", "knight", {"pincer": True}),
    ("scout", "orc", {"ship": True}),
    ("brawler", "warrior", {}),
    ("knight", "goblin", {"fatigue_attack": True, "hit_mod": 1, "evade_mod": -1}),
]


@pytest.mark.parametrize(("a", "d", "situation"), SITUATIONS)
def test_kernel_attacks_match_exact(a, d, situation):
    exact = sf.attack(a, d, **situation)
    counts, dmg = sample_attack(a, d, 120_000, seed=17, **situation)
    probs = {"hit": exact.odds.hit, "dramatic": exact.odds.dramatic,
             "attacker_fumble": exact.odds.attacker_fumble,
             "defender_dramatic": exact.odds.defender_dramatic,
             "defender_fumble": exact.odds.defender_fumble}  # fmt: skip
    for event in EVENTS:
        assert_rate(int(counts[event]), dmg.size, float(probs[event]))
    assert_matches(dmg, exact.damage)


def test_attack_sampling_test_can_fail():
    _, dmg = sample_attack("warrior", "orc", 120_000, seed=17)
    with pytest.raises(AssertionError):
        assert_matches(dmg, sf.attack("warrior", "orc", cover=True, surprised=True).damage)


@pytest.mark.parametrize("clash", ["totals", "defender"])
def test_s1_2_clashing_specials_in_the_kernel(clash):
    # Hit value +100: only the specials can make a miss, and two clashing specials
    # (2 against 2, 12 against 12: 2/1296) decide by the totals or for the defender.
    strong = char("Strong", combat=100)
    counts, dmg = sample_attack(strong, char("Weak"), 1_000_000, seed=31, clash=clash)
    assert_rate(int(counts["hit"]), dmg.size, float(opposed(100, 0, clash).hit))
