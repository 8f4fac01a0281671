"""Shared†Fantasia fights: invariants, reproducibility and rule scenarios (S-4 to S-10)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import montecarlo as mc
from kernels import sf_layout as F
from kernels.sf_fight import S_ACT_SEQ, S_GONE_SEQ, S_INJ, S_LINE, S_STATUS
from montecarlo import sf
from montecarlo.sf.characters import Character, Effect, SFWeapon, Spell, parse_dice
from montecarlo.sf.exact import outcome_chances

ROSTER = sf.load_characters()
NAMES = [c.name for c in ROSTER.characters()]


def weapon(die="1d", wtype="slash", **kw) -> SFWeapon:
    return SFWeapon("W", parse_dice(die), wtype, **kw)


party = st.lists(st.tuples(st.sampled_from(NAMES), st.integers(1, 3)), min_size=1, max_size=3)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=party, b=party, seed=st.integers(0, 2**32), bf=st.sampled_from(list(sf.BATTLEFIELDS)),
       surprise=st.sampled_from([None, "a", "b"]))  # fmt: skip
def test_invariants(a, b, seed, bf, surprise):
    r = sf.fight(a, b, trials=64, seed=seed, battlefield=bf, surprise=surprise,
                 policy=sf.Policy(trip_chance=0.3, fatigue_attacks=True), progress=False,
                 keep_trials=True, _debug=True)  # fmt: skip
    dbg = r.trials["debug"]
    gone, acted = dbg[:, S_GONE_SEQ, :], dbg[:, S_ACT_SEQ, :]
    status = dbg[:, S_STATUS, :]
    # nobody acts after fainting, dying or going overboard
    assert not ((gone >= 0) & (acted > gone)).any()
    assert ((status == F.STANDING) == (gone < 0)).all()
    # counts conserve: every character ends in exactly one state
    assert r.totals["states"].sum(axis=1).tolist() == [r.n] * status.shape[1]
    # the dead took more injury than their HP (S-4)
    hp = np.array([c.hp for c in r.party_a + r.party_b])
    dead = status == F.DEAD
    assert (dbg[:, S_INJ, :][dead] > np.broadcast_to(hp, dead.shape)[dead]).all()
    # a side with nobody standing does not win
    side = np.array([0] * len(r.party_a) + [1] * len(r.party_b))
    standing = [(status[:, side == s] == F.STANDING).sum(axis=1) for s in (0, 1)]
    out = r.trials["outcome"]
    assert (standing[1][out == 0] == 0).all() and (standing[0][out == 0] > 0).all()
    assert (standing[0][out == 1] == 0).all() and (standing[1][out == 1] > 0).all()


def test_bit_identical_across_threads():
    runs = [sf.fight("warrior:2,archer:1,mage:1", "goblin:3,orc:1", trials=3000, seed=3,
                     threads=t, progress=False, keep_trials=True) for t in (1, 2)]  # fmt: skip
    a, b = runs
    np.testing.assert_array_equal(a.totals["outcome"], b.totals["outcome"])
    np.testing.assert_array_equal(a.totals["states"], b.totals["states"])
    np.testing.assert_array_equal(a.trials["damage"], b.trials["damage"])


def test_s8_surprised_side_does_not_act_in_round_1():
    r = sf.fight("warrior:2", "orc:2", trials=2000, seed=1, surprise="b", max_rounds=1,
                 progress=False)  # fmt: skip
    ev = r.events().set_index("side")
    assert ev.loc["B", "attacks_per_fight"] == 0  # no actions and no opportunity attacks
    assert ev.loc["A", "attacks_per_fight"] > 0
    unsurprised = sf.fight("warrior:2", "orc:2", trials=2000, seed=1, max_rounds=1,
                           progress=False)  # fmt: skip
    assert unsurprised.events().set_index("side").loc["B", "attacks_per_fight"] > 0


@pytest.mark.parametrize(("battlefield", "cap"), [("corridor", 2), ("cliff", 1)])
def test_s9_front_line_caps(battlefield, cap):
    r = sf.fight("warrior:4", "orc:4", trials=500, seed=2, battlefield=battlefield,
                 max_rounds=1, progress=False, _debug=True)  # fmt: skip
    dbg = r.trials["debug"]
    # standing front-liners at the end of the round (the fallen no longer hold the line)
    front = (dbg[:, S_LINE, :] == 0) & (dbg[:, S_STATUS, :] == F.STANDING)
    assert (front[:, :4].sum(axis=1) <= cap).all()
    assert (front[:, 4:].sum(axis=1) <= cap).all()
    assert (front[:, :4].sum(axis=1) == cap).any()


def test_s9_cliff_trips_and_ship_fumbles_go_overboard():
    trips = sf.fight("warrior:2", "orc:2", trials=2000, seed=4, battlefield="cliff",
                     policy=sf.Policy(trip_chance=1.0), progress=False)  # fmt: skip
    assert trips.characters()["p_overboard"].sum() > 0.1
    ship = sf.fight("warrior:2", "orc:2", trials=4000, seed=4, battlefield="ship", progress=False)
    assert ship.characters()["p_overboard"].sum() > 0
    ground = sf.fight("warrior:2", "orc:2", trials=4000, seed=4, progress=False)
    assert ground.characters()["p_overboard"].sum() == 0


def test_s5_opportunity_attack_cancels_a_spell():
    # A caster in the front line faces two enemy front-liners: the count rule gives
    # them 2 - 0 = 2 opportunity attacks, resolved before the spell; any damage
    # cancels it.  The spell (sleep, unresistable) is the only way an enemy faints.
    sleep = Spell("Sleep", stat="power", save="will", area="single",
                  on_fail=Effect(status="sleep"), on_success=Effect(status="sleep"))  # fmt: skip
    caster = Character("Caster", 30, power=5, initiative=50, weapons=(weapon("1d"),),
                       spells=(sleep,), position="front")  # fmt: skip
    brute = Character("Brute", 30, body=2, combat=1, weapons=(weapon("1d+5"),))
    r = sf.fight([(caster, 1)], [(brute, 2)], trials=20_000, seed=5, max_rounds=1,
                 progress=False)  # fmt: skip
    # every hit does damage (1d + 5 + body 2 against no armour), so P(spell) = P(both miss)
    p_hit = float(sf.attack(brute, caster).odds.hit)
    asleep = r.totals["states"][1:, F.FAINTED].sum()
    lo, hi = stats.binom.interval(0.999, r.n, (1 - p_hit) ** 2)
    assert lo <= asleep <= hi
    # from the back line, outside the engage area (not an open field), nothing interrupts
    back = Character("Caster", 30, power=5, initiative=50, weapons=(weapon("1d"),),
                     spells=(sleep,), position="back")  # fmt: skip
    guard = Character("Guard", 30, weapons=(weapon("1d"),), position="front", body=-20)
    r2 = sf.fight([(back, 1), (guard, 1)], [(brute, 2)], trials=2000, seed=5, max_rounds=1,
                  battlefield="narrow", progress=False)  # fmt: skip
    assert r2.totals["states"][2:, F.FAINTED].sum() == r2.n


def test_s4_automatic_death_in_fights():
    # A 1-HP target hit for 11+ is dead outright (HP + 10), never fainted.
    axe = Character("Axe", 10, body=0, combat=100, weapons=(weapon("0d+40"),))
    target = Character("Target", 1, weapons=(weapon("1d"),), fortitude=100)
    r = sf.fight([(axe, 1)], [(target, 1)], trials=2000, seed=6, max_rounds=1, progress=False)
    states = r.characters().set_index("character")
    assert states.loc["Target", "p_fainted"] == 0
    assert states.loc["Target", "p_dead"] > 0.9
    assert outcome_chances(sf.SFState(hp=1, injury=41))["dead"] == 1.0


def test_fight_input_errors():
    with pytest.raises(mc.InputError, match="unknown character"):
        sf.fight("dragon:1", "orc:1", trials=10)
    with pytest.raises(mc.InputError, match="battlefield"):
        sf.fight("warrior:1", "orc:1", trials=10, battlefield="moon")
    with pytest.raises(mc.InputError, match="side"):
        sf.fight("warrior:1", "orc:1", trials=10, surprise="c")
    with pytest.raises(mc.InputError, match="at least 1"):
        sf.fight("warrior:0", "orc:1", trials=10)


def test_fight_result_tables_and_plot():
    r = sf.fight("warrior:1,priest:1,mage:1", "goblin:3", trials=2048, seed=1, progress=False)
    assert r.to_frame()["count"].sum() == r.n
    chars = r.characters()
    total = chars[["p_standing", "p_fainted", "p_dead", "p_overboard"]].sum(axis=1)
    assert np.allclose(total, 1.0)
    assert set(r.events().columns) >= {"hit_rate", "dramatic_rate", "fumble_rate"}
    fig = r.plot()
    assert len(fig.axes) == 3 and all(ax.get_xlabel() for ax in fig.axes)


def test_s7_magic_strength_against_saves():
    # Strength = Power 3 + 2d6 against Will 2 + 2d6 (S-1.1 specials on the save):
    # on a failed save 5 injury, on a success nothing.  Exact by enumeration.
    bolt = Spell("Bolt", stat="power", save="will", area="single",
                 on_fail=Effect(damage=parse_dice("5")))  # fmt: skip
    # Neither can hurt the other with a weapon (a dramatic evade would give the
    # caster an opportunity attack), so the target's injury is the spell's alone.
    caster = Character("Caster", 50, power=3, initiative=50, weapons=(weapon("0"),),
                       spells=(bolt,), position="back")  # fmt: skip
    target = Character("Target", 1000, will=2, weapons=(weapon("0"),), body=-50)
    r = sf.fight([(caster, 1)], [(target, 1)], trials=20_000, seed=7, max_rounds=1,
                 battlefield="narrow", keep_trials=True, progress=False)  # fmt: skip
    failed = (r.trials["damage"][:, 1, 0] == 5).sum()
    p_fail = (
        sum(float(sf.check(2, 3 + a + b).p_failure) for a in range(1, 7) for b in range(1, 7)) / 36
    )
    lo, hi = stats.binom.interval(0.999, r.n, p_fail)
    assert lo <= failed <= hi


def test_s8_higher_initiative_acts_first():
    # Any hit kills; both attack at the same odds.  In one round the +100-initiative
    # side strikes first.  A miss that is an attacker fumble or a dramatic evade
    # (chance r) hands the other an opportunity attack first (S-2, S-5); a plain
    # miss has chance m.  So the quick one wins with p + r(1-p)rp + m r p and the
    # slow one with r(p + (1-p)p) + m p.
    quick = Character("Quick", 1, initiative=100, weapons=(weapon("0d+50"),))
    slow = Character("Slow", 1, weapons=(weapon("0d+50"),))
    res = sf.fight([(slow, 1)], [(quick, 1)], trials=20_000, seed=9, max_rounds=1,
                   progress=False)  # fmt: skip
    odds = sf.attack(quick, slow).odds
    p = float(odds.hit)
    # equal values: a natural 2 always fumbles, a natural 12 always evades dramatically
    r = float(odds.attacker_fumble + odds.defender_dramatic) - 1 / 1296
    m = 1 - p - r
    p_quick = p + r * (1 - p) * r * p + m * r * p
    p_slow = r * (p + (1 - p) * p) + m * p
    for outcome, prob in (("b", p_quick), ("a", p_slow), ("draw", 1 - p_quick - p_slow)):
        lo, hi = stats.binom.interval(0.999, res.n, prob)
        assert lo <= res.counts[outcome] <= hi


def test_s1_2_clash_rule_parameter():
    # defender wins clashes: the 2-against-2 and 12-against-12 cases both miss now
    totals = sf.opposed(100, 0)
    defender = sf.opposed(100, 0, clash="defender")
    assert defender.miss - totals.miss == pytest.approx(2 / 1296)
    from montecarlo.sf.sampling import sample_attack
    from tests.helpers import assert_rate

    counts, _ = sample_attack("warrior", "orc", 100_000, seed=4, clash="defender")
    assert_rate(
        int(counts["hit"]), 100_000, float(sf.attack("warrior", "orc", clash="defender").odds.hit)
    )


def test_s4_s5_rule_parameters_change_fights():
    common = dict(trials=4000, seed=6, progress=False)
    base = sf.fight("warrior:3", "orc:3", **common)
    no_opp = sf.fight("warrior:3", "orc:3", rules=sf.SFRules(special_opportunity_attacks=0),
                      **common)  # fmt: skip
    assert base.events()["opportunity_attacks_per_fight"].sum() > 0
    assert no_opp.events()["opportunity_attacks_per_fight"].sum() == 0
    saps = dict(policy=sf.Policy(fatigue_attacks=True), **common)
    every = sf.fight("brawler:2", "ogre:1", **saps)
    once = sf.fight("brawler:2", "ogre:1", rules=sf.SFRules(faint_check_every_hit=False), **saps)
    # the brawlers take the ogre's blunt fatigue blows: one check only, fewer faint
    assert once.characters()["p_fainted"].iloc[0] < every.characters()["p_fainted"].iloc[0]
    rested = sf.fight("brawler:2", "ogre:1", rules=sf.SFRules(breath_dice=3), **saps)
    assert not np.array_equal(rested.totals["damage"], every.totals["damage"])
    with pytest.raises(mc.InputError, match="clash"):
        sf.SFRules(clash="attacker")


def test_precision_mode_is_thread_independent_and_interruptible(monkeypatch):
    runs = [sf.fight("warrior:2", "orc:2", precision=0.02, seed=8, threads=t, progress=False)
            for t in (1, 2)]  # fmt: skip
    assert runs[0].n == runs[1].n and runs[0].halfwidth() <= 0.02
    np.testing.assert_array_equal(runs[0].totals["states"], runs[1].totals["states"])

    from montecarlo.sf import fights

    real, calls = fights._play, {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(fights, "_play", interrupted)
    r = sf.fight("warrior:2", "orc:2", trials=50_000, seed=8, progress=False)
    assert r.partial and r.n == fights.BATCH_CHUNKS * fights.FIGHT_CHUNK
    assert "INTERRUPTED" in r.summary()


def test_s6_a_secured_line_of_fire_runs_both_ways():
    # Each side: a guard in front that does nothing, an archer behind.  The quick
    # archer spends round 1 securing the line of fire; the slow one can then
    # shoot through it at once.  No battlefield preset: lines of fire are needed.
    plain = sf.Battlefield("plain field")
    idle = Character(
        "Guard", 30, weapons=(SFWeapon("Sling", parse_dice("1d"), ranged=True, ammo=0),)
    )
    bow = weapon("1d", "pierce", ranged=True)
    quick = Character("Quick", 20, tech=3, initiative=50, weapons=(bow,), position="back")
    slow = Character("Slow", 20, tech=3, weapons=(bow,), position="back")
    r = sf.fight([(idle, 1), (quick, 1)], [(idle, 1), (slow, 1)], battlefield=plain,
                 trials=500, seed=3, max_rounds=1, progress=False)  # fmt: skip
    ev = r.events().set_index("side")
    assert ev.loc["A", "attacks_per_fight"] == 0  # it secured the line instead
    assert ev.loc["B", "attacks_per_fight"] == 1  # and B shot through it
