"""Pins for SF rules that one-line changes slipped past (RULES.md S-1.1, S-1.2, S-3, S-4,
S-5, S-8).

An outsider broke each of these rules with one careless edit and the suite still
passed.  The tests here check what any correct realisation must do:

* the opposed roll (S-1.1, S-1.2) draw by draw: a small harness rolls the kernel's
  own ``opposed`` and reads the two naturals from a copy of the stream, and every
  verdict and special is checked against the rule written out again below, not
  against :mod:`montecarlo.sf.exact` (which could share a mistake);
* whole fights otherwise, each reduced to a rate that the rule gives exactly, with
  the tolerance from the sampling error and a count that a wrong rule changes by far.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from numba import njit
from scipy import stats

from kernels import sf_layout as F
from kernels.rng import seed_trial
from kernels.sf_dice import roll_2d6
from kernels.sf_fight import N_S, S_ACTED, opposed, surprise_pen
from montecarlo import sf
from montecarlo.sf.characters import Character, Effect, SFWeapon, Spell, parse_dice
from montecarlo.sf.exact import opposed as exact_opposed
from montecarlo.sf.sampling import sample_attack, sample_friendly_fire_counts
from tests.helpers import assert_rate

# -- S-1.1, S-1.2: the opposed roll, written out from the rules ---------------------------------


def rule_verdict(na: int, nd: int, hit_value: int, evade_value: int, clash: str = "totals"):
    """(hit, dramatic, attacker fumble, defender dramatic, defender fumble) per S-1.1/S-1.2.

    The attacker's target is the defender's total + 1, the defender's target is the
    attacker's total.  A natural 12 succeeds and a natural 2 fails whatever the
    totals; when both sides roll a natural that decides, and the two verdicts
    disagree (12 against 12, 2 against 2), the totals decide [default] or the
    defender wins; a 12 against a 2 (both say "hit") or a 2 against a 12 (both say
    "miss") decides.  Dramatic success and fumble need the total to make (miss)
    the side's target as well.
    """
    ta, td = na + hit_value, nd + evade_value
    a_made, d_made = ta >= td + 1, td >= ta
    a_special, d_special = na in (2, 12), nd in (2, 12)
    if a_special and d_special and na == nd:  # the two verdicts disagree
        hit = a_made if clash == "totals" else False
    elif a_special:
        hit = na == 12
    elif d_special:
        hit = nd == 2
    else:
        hit = a_made
    return (
        hit,
        hit and na == 12 and a_made,
        na == 2 and not a_made,
        nd == 12 and d_made,
        nd == 2 and not d_made,
    )


@njit
def _draws(key, n, hit_value, evade_value, clash, out):
    """``n`` opposed rolls of the kernel, each with the two naturals it rolled."""
    s = np.empty(4, np.uint64)
    seed_trial(key, np.int64(0), s)
    for t in range(n):
        probe = s.copy()  # opposed rolls the attacker's 2d6, then the defender's
        out[t, 0] = roll_2d6(probe)
        out[t, 1] = roll_2d6(probe)
        flags = opposed(s, hit_value, evade_value, clash)
        for k in range(5):
            out[t, 2 + k] = flags[k]


#: hit value - evade value: a plain tie (0), and margins that the specials overturn.
MARGINS = [(0, 0), (3, 0), (0, 3), (10, 0), (0, 10), (1, 0)]


@pytest.mark.parametrize("clash", ["totals", "defender"])
@pytest.mark.parametrize(("hit_value", "evade_value"), MARGINS)
def test_s1_2_every_kernel_roll_follows_the_specials_rules(hit_value, evade_value, clash):
    n = 300_000  # each pair of naturals (1/1296 for two specials) appears about 230 times
    out = np.zeros((n, 7), np.int64)
    key = np.random.SeedSequence(2024).generate_state(4, np.uint64)
    _draws(key, n, np.int64(hit_value), np.int64(evade_value),
           0.0 if clash == "totals" else 1.0, out)  # fmt: skip
    pairs = {(na, nd) for na, nd in out[:, :2]}
    assert {(12, 12), (2, 2), (12, 2), (2, 12)} <= pairs  # every clash of specials was met
    for na, nd in pairs:
        rows = out[(out[:, 0] == na) & (out[:, 1] == nd), 2:]
        expected = np.array(rule_verdict(na, nd, hit_value, evade_value, clash), np.int64)
        assert (rows == expected).all(), (na, nd, expected, rows[0])


@pytest.mark.parametrize("clash", ["totals", "defender"])
@pytest.mark.parametrize(("hit_value", "evade_value"), MARGINS)
def test_s1_2_exact_odds_follow_the_specials_rules(hit_value, evade_value, clash):
    counts = np.zeros(5, np.int64)
    for a1, a2, d1, d2 in product(range(1, 7), repeat=4):
        counts += rule_verdict(a1 + a2, d1 + d2, hit_value, evade_value, clash)
    odds = exact_opposed(hit_value, evade_value, clash)
    got = [odds.hit, odds.dramatic, odds.attacker_fumble, odds.defender_dramatic,
           odds.defender_fumble]  # fmt: skip
    assert got == [Fraction(int(c), 1296) for c in counts]


def test_s1_1_a_defenders_double_one_on_a_tie_is_no_fumble():
    # A tie goes to the passive side: the defender's double one makes its target
    # (the attacker's total), so it fails automatically but does not fumble, and
    # the hit does not ignore armour (S-2).
    assert rule_verdict(2, 2, 0, 0) == (False, False, True, False, False)
    assert rule_verdict(5, 2, 0, 3) == (True, False, False, False, False)  # 5 v 5: a hit
    assert rule_verdict(6, 2, 0, 3) == (True, False, False, False, True)  # 6 v 5: a fumble
    odds = exact_opposed(0, 3)
    assert odds.defender_fumble == Fraction(sum(na > 5 for na in _naturals()), 1296)


def _naturals():
    return [a + b for a, b in product(range(1, 7), repeat=2)]


# -- whole fights ----------------------------------------------------------------------------------
PLAIN = sf.Battlefield("plain ground")
NO_AMMO = SFWeapon("Gun", parse_dice("0"), "blunt", ranged=True, ammo=0)


def blade(die: str, wtype: str = "slash", **kw) -> SFWeapon:
    return SFWeapon("Blade", parse_dice(die), wtype, **kw)


def ch(name: str, hp: int = 1000, weapons=(NO_AMMO,), **kw) -> Character:
    return Character(name, hp, weapons=tuple(weapons), **kw)


def run(a, b, **kw) -> sf.FightResult:
    kw.setdefault("progress", False)
    kw.setdefault("battlefield", "open")
    return sf.fight(a, b, **kw)


def check_chance(modifier: int, target: int) -> float:
    """P(an S-1.1 check succeeds): a natural 12 always does, a natural 2 never."""
    wins = sum(s == 12 or (s != 2 and s + modifier >= target) for s in _naturals())
    return wins / 36


def hit_chance(attacker: Character, defender: Character, **situation) -> float:
    return float(sf.attack(attacker, defender, **situation).odds.hit)


# -- S-3: the fatigue-attack policy turns only blunt melee blows into fatigue ----------------------


@pytest.mark.parametrize(
    ("wtype", "fatigue"), [("blunt", True), ("slash", False), ("pierce", False)]
)
def test_s3_fatigue_attacks_are_blunt_melee_only(wtype, fatigue):
    striker = ch("Striker", combat=100, initiative=100, weapons=(blade("3", wtype),))
    target = ch("Target", fortitude=100)
    r = run([(striker, 1)], [(target, 1)], trials=2000, seed=41, max_rounds=1,
            keep_trials=True, policy=sf.Policy(fatigue_attacks=True))  # fmt: skip
    injury, fat = r.trials["damage"][:, 1, 0], r.trials["damage"][:, 1, 1]
    hit = (injury + fat) > 0
    assert hit.mean() > 0.9
    if fatigue:
        assert (injury == 0).all() and (fat[hit] >= 3).all()
    else:
        assert (fat == 0).all() and (injury[hit] >= 3).all()


# -- S-4: the faint condition reads max(fatigue, heavy fatigue) ------------------------------------


def test_s4_faint_condition_uses_heavy_fatigue_when_it_exceeds_fatigue():
    # Round 1: the Sapper's blow leaves fatigue 25 (heavy fatigue 5) on HP 30; the Target
    # catches its breath (10d6: fatigue falls below 5 in nearly every fight, heavy
    # fatigue stays 5); the Slasher then deals 25 injury: 25 + max(fatigue, 5) >= 30,
    # so a faint check, which Fortitude -100 fails but on a natural 12.  Fatigue alone
    # would leave 25 + fatigue < 30: no check.
    sapper = ch("Sapper", combat=100, initiative=100,
                weapons=(blade("25", "blunt", fatigue=True),))  # fmt: skip
    slasher = ch("Slasher", combat=100, initiative=-100, weapons=(blade("25"),))
    target = ch("Target", hp=30, fortitude=-100, initiative=0)
    r = run([(sapper, 1), (slasher, 1)], [(target, 1)], trials=20_000, seed=42, max_rounds=1,
            policy=sf.Policy(breath_at=0.1), rules=sf.SFRules(breath_dice=10))  # fmt: skip
    p = hit_chance(sapper, target) * hit_chance(slasher, target) * (1 - check_chance(-100, 10))
    assert_rate(int(r.totals["states"][2, F.FAINTED]), r.n, p)
    assert p > 0.8


# -- S-5: the count rule leaves the caster out, on every battlefield -------------------------------

GLOW = Spell("Glow", on_fail=Effect())  # does nothing: a caster that threatens


@pytest.mark.parametrize("battlefield", ["open", "field", "narrow", PLAIN])
def test_s5_count_rule_leaves_the_caster_out(battlefield):
    # A caster and an unarmed guard in the front line against three armed foes: the
    # foes' front-liners (3) minus the caster's side without the caster (1) make 2
    # opportunity attacks on each cast.  The caster's side has no melee weapon, so
    # nothing answers them.
    caster = ch("Caster", spells=(GLOW,), initiative=100)
    guard = ch("Guard")
    foe = ch("Foe", weapons=(blade("0"),))
    r = run([(caster, 1), (guard, 1)], [(foe, 3)], trials=200, seed=43, max_rounds=3,
            battlefield=battlefield)  # fmt: skip
    assert r.totals["events"][1, F.E_OPPORTUNITY] == 2 * 3 * r.n


# -- S-8: catching breath is the round's action; surprise counts against saves -------------------


def test_s8_catching_breath_takes_the_action():
    # The Sapper (first) leaves 4 fatigue on a hit; the Target then catches its breath
    # instead of striking back.  It strikes only when the Sapper missed.
    sapper = ch("Sapper", combat=100, initiative=100,
                weapons=(blade("4", "blunt", fatigue=True),))  # fmt: skip
    target = ch("Target", initiative=-100, weapons=(blade("0"),))
    r = run([(sapper, 1)], [(target, 1)], trials=20_000, seed=44, max_rounds=1,
            policy=sf.Policy(breath_at=0.0))  # fmt: skip
    ev = r.totals["events"]
    own = int(ev[1, F.E_ATTACKS] - ev[1, F.E_OPPORTUNITY])  # the Target's turns spent striking
    assert_rate(own, r.n, 1 - hit_chance(sapper, target))
    assert own < 0.1 * r.n


@pytest.mark.parametrize(("blow", "kind"), [("13", "dead"), ("10", "fainted")])
def test_s8_surprise_penalty_applies_to_saves_after_a_blow(blow, kind):
    # The surprised Target has not acted: -2 to the Fortitude save a blow calls for.
    # 13 injury on HP 10: a death check at target 10, penalty 3 (S-4); 10 injury: a
    # faint check at target 10 (no death check at injury = HP [default]).
    striker = ch("Striker", combat=100, initiative=100, weapons=(blade(blow),))
    target = ch("Target", hp=10, fortitude=3)
    r = run([(striker, 1)], [(target, 1)], trials=20_000, seed=45, max_rounds=1, surprise="b")
    hit = hit_chance(striker, target, surprised=True)
    over = int(blow) - 10
    save = check_chance(3 - 2 - (over if kind == "dead" else 0), 10)
    state = F.DEAD if kind == "dead" else F.FAINTED
    assert_rate(int(r.totals["states"][1, state]), r.n, hit * (1 - save))
    unsurprised = check_chance(3 - (over if kind == "dead" else 0), 10)
    assert abs(save - unsurprised) > 0.1  # the penalty moves the rate by far more than the noise


# == What the blind mutation list (tools/mutations/sf_blind.toml) found unpinned ==================


# -- S-3: ranged damage adds Tech ----------------------------------------------------------------


def test_s3_ranged_damage_adds_tech_not_body():
    # A gun of no dice: every hit deals exactly the shooter's Tech (5), never its Body.
    gun = SFWeapon("Gun", parse_dice("0"), "blunt", ranged=True)
    shooter = ch("Shooter", tech=5, body=0, combat=100, weapons=(gun,))
    counts, damage = sample_attack(shooter, ch("Target"), 20_000, seed=51)
    assert set(np.unique(damage)) == {0, 5}
    assert (damage == 5).sum() == counts["hit"]


# -- S-4: [default] a faint check on every hit while the condition holds ---------------------------


def test_s4_faint_check_on_every_hit_while_the_condition_holds():
    # Two blunt fatigue blows in one round on HP 10, Fortitude 8: 10 fatigue (heavy 2)
    # makes a faint check at 10 + 10 + 2 - 10 = 12; the second blow (1 more) a check
    # at 13, made again because the condition still holds [default].  Nobody catches
    # breath in between (breath_at 2: never below twice the HP).
    first = ch("First", combat=100, initiative=100,
               weapons=(blade("10", "blunt", fatigue=True),))  # fmt: skip
    second = ch("Second", combat=100, initiative=-100,
                weapons=(blade("1", "blunt", fatigue=True),))  # fmt: skip
    target = ch("Target", hp=10, fortitude=8, initiative=0)
    h1, h2 = hit_chance(first, target), hit_chance(second, target)
    s1, s2 = check_chance(8, 12), check_chance(8, 13)
    for every, p in ((True, h1 * ((1 - s1) + s1 * h2 * (1 - s2))), (False, h1 * (1 - s1))):
        r = run([(first, 1), (second, 1)], [(target, 1)], trials=20_000, seed=52, max_rounds=1,
                rules=sf.SFRules(faint_check_every_hit=every),
                policy=sf.Policy(breath_at=2.0))  # fmt: skip
        assert_rate(int(r.totals["states"][2, F.FAINTED]), r.n, p)


# -- S-5: who counts, how many attacks, and who can be reached ------------------------------------


def test_s5_count_rule_on_the_open_battlefield_counts_back_liners():
    # In the open everyone is in the engage area: the foes' back-liners (a melee weapon
    # and an empty gun keep them back while their front holds) count with their front.
    caster = ch("Caster", spells=(GLOW,), initiative=100)
    guard = ch("Guard")
    front = ch("Front", weapons=(blade("0"),))
    back = ch("Back", weapons=(blade("0"), NO_AMMO), position="back", initiative=-100)
    r = run([(caster, 1), (guard, 1)], [(front, 1), (back, 2)], trials=200, seed=53,
            max_rounds=3, battlefield="open")  # fmt: skip
    assert r.totals["events"][1, F.E_OPPORTUNITY] == 2 * 3 * r.n  # 3 - 1 a cast, each round


def test_s5_a_fumble_or_dramatic_evade_gives_exactly_the_rule_s_attacks():
    # The Fumbler (hit value -100) fumbles on every natural 2, and the defender evades
    # dramatically on every natural 12: each gives SFRules.special_opportunity_attacks
    # attacks (one [default]), though two armed foes could strike.
    fumbler = ch("Fumbler", combat=-100, initiative=100, weapons=(blade("0"),))
    foe = ch("Foe", weapons=(blade("0"),), initiative=-100)
    p = 1 / 36 + 1 / 36 - 1 / 1296  # a fumble, a dramatic evade, or both (one event)
    for extra in (1, 2):
        r = run([(fumbler, 1)], [(foe, 2)], trials=40_000, seed=54, max_rounds=1,
                rules=sf.SFRules(special_opportunity_attacks=extra))  # fmt: skip
        assert_rate(int(r.totals["events"][1, F.E_OPPORTUNITY]), r.n * extra, p)


@pytest.mark.parametrize(("battlefield", "reached"), [("narrow", False), ("open", True)])
def test_s5_a_back_line_fumbler_outside_the_engage_area_is_not_attacked(battlefield, reached):
    # A back-line shooter (hit value -100: a natural 2 is a fumble) outside the engage
    # area gives no opportunity attack; in the open everyone is engaged, and it does.
    gun = SFWeapon("Gun", parse_dice("0"), "blunt", ranged=True)
    shooter = ch("Shooter", combat=-100, tech=0, position="back", initiative=100, weapons=(gun,))
    guard = ch("Guard")
    foe = ch("Foe", weapons=(blade("0"),), initiative=-100)
    r = run([(shooter, 1), (guard, 1)], [(foe, 1)], trials=5000, seed=55, max_rounds=1,
            battlefield=battlefield)  # fmt: skip
    opportunities = int(r.totals["events"][1, F.E_OPPORTUNITY])
    if reached:
        assert opportunities > 0.5 * r.n / 36
    else:
        assert opportunities == 0


# -- S-6: shooting from cover, the friendly-fire procedure and its balanced listing ---------------


def test_s6_shooting_from_cover_is_at_minus_two():
    gun = SFWeapon("Gun", parse_dice("1d"), "blunt", ranged=True)
    shooter = ch("Shooter", tech=2, combat=1, weapons=(gun,))
    target = ch("Target", tech=1, combat=0)
    counts, damage = sample_attack(shooter, target, 200_000, seed=56, shooter_in_cover=True)
    hits = sum(rule_verdict(a + b, c + d, 3 - 2, 1)[0]
               for a, b, c, d in product(range(1, 7), repeat=4))  # fmt: skip
    assert_rate(int(counts["hit"]), damage.size, hits / 1296)


def friendly_fire_rule(n: int, groups: str = "fewest") -> list[Fraction]:
    """P(each of ``n`` engaged characters is hit), by the seed's d6 procedure (S-6).

    Up to 6 characters the d6 (odd/even, pairs of faces, a face each with rerolls)
    picks uniformly.  From 7 on they are split into groups, as few as hold 6 each
    [default] (or always 6), sizes as equal as possible with the larger first,
    above 36 always 6; a group is picked the same way, then a character inside it.
    """
    if n <= 6:
        return [Fraction(1, n)] * n
    g = 6 if groups == "six" or n > 36 else max(2, -(-n // 6))
    sizes = [n // g + (1 if k < n % g else 0) for k in range(g)]
    return [Fraction(1, g) * p for size in sizes for p in friendly_fire_rule(size, groups)]


@pytest.mark.parametrize("groups", ["fewest", "six"])
def test_s6_friendly_fire_follows_the_seed_procedure(groups):
    for n in range(1, 46):
        table = sf.friendly_fire(n, groups=groups)
        assert [Fraction(x) for x in table["exact"]] == friendly_fire_rule(n, groups), n
    for n in (18, 24, 30, 40):  # where one group more or less changes the odds
        counts = sample_friendly_fire_counts(n, 120_000, seed=n, groups=groups)
        expected = np.array([float(p) for p in friendly_fire_rule(n, groups)]) * counts.sum()
        assert stats.chisquare(counts, expected).pvalue > 1e-3, n


def ally_rule(allies: int, enemies: int) -> Fraction:
    """P(a shot into the engage area hits an ally): enemies and allies listed
    alternately, enemies first (S-6 [default] balanced groups)."""
    order = []
    for q in range(max(allies, enemies)):
        order += ["enemy"] * (q < enemies) + ["ally"] * (q < allies)
    probs = friendly_fire_rule(allies + enemies)
    return sum((p for p, who in zip(probs, order, strict=True) if who == "ally"), Fraction(0))


def test_s6_balanced_listing_puts_enemies_first():
    for allies, enemies in product(range(0, 9), repeat=2):
        if allies + enemies:
            assert sf.ally_hit_chance(allies, enemies) == ally_rule(allies, enemies)
    # In a fight: 4 allies and 5 enemies engaged with the shooter (groups of 5 and 4):
    # enemies first put 2 allies in the first group, allies first would put 3.
    assert ally_rule(4, 5) != ally_rule(5, 4)
    gun = SFWeapon("Gun", parse_dice("0"), "blunt", ranged=True)
    shooter = ch("Shooter", tech=100, initiative=100, weapons=(gun,))
    r = run([(shooter, 1), (ch("Ally"), 4)], [(ch("Enemy"), 5)], trials=60_000, seed=57,
            max_rounds=1, battlefield="open")  # fmt: skip
    ev = r.totals["events"]
    assert_rate(int(ev[0, F.E_FRIENDLY_FIRE]), int(ev[0, F.E_HITS]), float(ally_rule(4, 5)))


# -- S-8: the surprise penalty counts only against characters that are not surprised -------------


@njit
def _penalty(surprised_target, target_acted, surprised_attacker, attacker_acted, no_attacker):
    C = np.zeros((F.N_FIELDS, 2), np.int64)
    S = np.zeros((N_S, 2), np.int64)
    C[F.SURPRISED, 0], S[S_ACTED, 0] = surprised_target, target_acted
    C[F.SURPRISED, 1], S[S_ACTED, 1] = surprised_attacker, attacker_acted
    return surprise_pen(C, S, np.int64(0), np.int64(-1) if no_attacker else np.int64(1))


def test_s8_surprise_penalty_only_against_characters_not_surprised():
    # "Until they have acted, they are at -2 to every evade and save against
    # characters that are not surprised": a surprised attacker that has not acted
    # yet either (an opportunity attack of round 2) gives no penalty.
    for target, t_acted, attacker, a_acted, none in product((0, 1), repeat=5):
        target_in = target == 1 and t_acted == 0
        attacker_in = attacker == 1 and a_acted == 0 and not none
        expected = 2 if target_in and not attacker_in else 0
        assert _penalty(target, t_acted, attacker, a_acted, none) == expected


# -- S-10: the outcome reports heavy fatigue ----------------------------------------------------


def test_s10_heavy_fatigue_is_reported_per_fight_and_in_total():
    # Fatigue blows and no breath: fatigue ends at its peak, so heavy fatigue is
    # fatigue // 5 in every fight (S-4), and the totals add up the fights.
    sap = blade("1d+3", "blunt", fatigue=True)
    brawler = ch("Brawler", body=2, combat=2, weapons=(sap,))
    target = ch("Target", hp=60, fortitude=50, body=-2)
    r = run([(brawler, 2)], [(target, 1)], trials=2000, seed=58, max_rounds=4, keep_trials=True,
            policy=sf.Policy(breath_at=2.0))  # fmt: skip
    per_fight = r.trials["damage"][:, 2, :]
    assert (per_fight[:, 2] == per_fight[:, 1] // 5).all()
    assert (per_fight[:, 2] >= 2).any() and (per_fight[:, 2] != per_fight[:, 1]).any()
    np.testing.assert_array_equal(r.totals["damage"][2], per_fight.sum(axis=0))
    row = r.characters().iloc[2]
    assert row["mean_heavy_fatigue"] == per_fight[:, 2].mean()
