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

from kernels import sf_layout as F
from kernels.rng import seed_trial
from kernels.sf_dice import roll_2d6
from kernels.sf_fight import opposed
from montecarlo import sf
from montecarlo.sf.characters import Character, Effect, SFWeapon, Spell, parse_dice
from montecarlo.sf.exact import opposed as exact_opposed
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
