"""Shared†Fantasia rules seen working inside whole fights (RULES.md S-4 to S-9, issue 11).

Each test builds small parties whose fight reduces to a quantity the exact
functions give (a hit rate, a save, a faint chance) or to a deterministic
count, so that changing one rule line of the fight kernel fails a test.
Tolerances come from the sampling error (``tests/helpers.py``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import montecarlo as mc
from kernels import sf_layout as F
from kernels.sf_fight import S_ACTED, S_END, S_FAT, S_HEAVY, S_LINE, S_PEAK, S_STATUS
from montecarlo import sf
from montecarlo.sf.characters import Character, Effect, SFWeapon, Spell, parse_dice
from montecarlo.sf.exact import SFState
from tests.helpers import assert_rate

ROSTER = sf.load_characters()
PLAIN = sf.Battlefield("plain ground")  # no preset rule: lines of fire are needed


def melee(die: str = "0", wtype: str = "slash", **kw) -> SFWeapon:
    return SFWeapon("Blade", parse_dice(die), wtype, **kw)


def gun(die: str = "0", wtype: str = "blunt", ammo: int | None = None) -> SFWeapon:
    return SFWeapon("Gun", parse_dice(die), wtype, ranged=True, ammo=ammo)


#: A ranged weapon with no ammunition: no melee weapon, never shoots.
EMPTY = gun(ammo=0)


def ch(name: str, hp: int = 1000, weapons=(EMPTY,), **kw) -> Character:
    return Character(name, hp, weapons=tuple(weapons), **kw)


def sleep_spell(area: str) -> Spell:
    """Sleep whatever the save: everyone inside the area is out of the fight."""
    zz = Effect(status="sleep")
    return Spell("Sleep", area=area, save="will", on_fail=zz, on_success=zz)


NULL_SPELL = Spell("Glow", on_fail=Effect())  # does nothing: a caster that threatens


def run(a, b, **kw) -> sf.FightResult:
    kw.setdefault("progress", False)
    return sf.fight(a, b, **kw)


def events(r: sf.FightResult, side: int, event: int) -> int:
    return int(r.totals["events"][side, event])


def state_share(r: sf.FightResult, slot: int, state: int) -> float:
    return r.totals["states"][slot, state] / r.n


# -- S-6 engage area, friendly fire, lines of fire, ammunition ------------------------------
BOWMAN = Character(
    "Bowman",
    12,
    tech=3,
    combat=1,
    weapons=(SFWeapon("Bow", parse_dice("2d"), "pierce", ranged=True),),
    position="back",
)


@pytest.mark.parametrize("battlefield", ["corridor", "cliff"])
def test_s6_no_friendly_fire_when_the_enemy_has_no_front_line(battlefield):
    # Issue 11: a lone bow-only Bowman has no front line, so there is no engage
    # area; side A's Bowman must not shoot its own Warrior.  B's Bowman shoots
    # the Warrior that reaches its back line (near range, no friendly fire).
    party_a = [(ROSTER["warrior"], 1), (BOWMAN, 1)]
    r = run(party_a, [(BOWMAN, 1)], battlefield=battlefield, trials=3000, seed=1)
    assert r.totals["events"][:, F.E_FRIENDLY_FIRE].sum() == 0
    assert events(r, 1, F.E_ATTACKS) > 0
    # the same parties in the open (everyone engaged) do hit allies: the test can fail
    o = run(party_a, [(BOWMAN, 1)], battlefield="open", trials=3000, seed=1)
    assert events(o, 0, F.E_FRIENDLY_FIRE) > 0
    # S-6 [default] switched off: A's lone front line is an engage area, shot into
    rules = sf.SFRules(engage_needs_contact=False)
    phantom = run(party_a, [(BOWMAN, 1)], battlefield=battlefield, trials=3000, seed=1,
                  rules=rules)  # fmt: skip
    assert events(phantom, 0, F.E_FRIENDLY_FIRE) > 0


def test_s6_securing_lines_of_fire_changes_nothing_in_the_open():
    a, b = "warrior:1,archer:1,mage:1", "orc:1,scout:1,priest:1"
    runs = {}
    for bf in ("open", PLAIN):
        runs[bf] = [
            run(a, b, battlefield=bf, trials=2000, seed=2, policy=sf.Policy(secure_line_of_fire=v))
            for v in (True, False)
        ]
    on, off = runs["open"]
    np.testing.assert_array_equal(on.totals["states"], off.totals["states"])
    np.testing.assert_array_equal(on.totals["events"], off.totals["events"])
    on, off = runs[PLAIN]  # where lines are needed, the policy matters
    assert not np.array_equal(on.totals["events"], off.totals["events"])


IDLE = ch("Idle", body=-50, tech=-50, weapons=(melee("0"),))
SHOOTER = ch("Shooter", tech=50, weapons=(gun("0"),), position="back")


@pytest.mark.parametrize("shooter_side", [0, 1])
def test_s6_friendly_fire_does_not_depend_on_the_shooters_side(shooter_side):
    # 2 allies and 5 enemies engaged (open field), one shot per fight: the balanced
    # listing gives an ally 1/4 of the shots from either side (side A first: 1/3 for B).
    mine, theirs = [(SHOOTER, 1), (IDLE, 2)], [(IDLE, 5)]
    a, b = (mine, theirs) if shooter_side == 0 else (theirs, mine)
    r = run(a, b, trials=20_000, seed=3, max_rounds=1)
    assert sf.ally_hit_chance(2, 5) == Fraction(1, 4)
    p = float(sf.ally_hit_chance(2, 5) * sf.attack(SHOOTER, IDLE).odds.hit)
    assert_rate(events(r, shooter_side, F.E_FRIENDLY_FIRE), r.n, p)
    # S-6 [default] switched off: slot order (side A first) gives side B 1/2 * 2/3
    slots = run(a, b, trials=20_000, seed=3, max_rounds=1,
                rules=sf.SFRules(friendly_fire_order="slots"))  # fmt: skip
    share = Fraction(1, 4) if shooter_side == 0 else Fraction(1, 3)
    p = float(share * sf.attack(SHOOTER, IDLE).odds.hit)
    assert_rate(events(slots, shooter_side, F.E_FRIENDLY_FIRE), slots.n, p)


def test_s6_ally_hit_chance_is_exact_and_side_free():
    # 7 engaged: groups of 4 and 3; e,a,e,a | e,e,e -> 1/2 * 2/4
    assert sf.ally_hit_chance(2, 5) == Fraction(1, 4)
    assert sf.ally_hit_chance(0, 3) == 0 and sf.ally_hit_chance(3, 0) == 1
    assert sf.ally_hit_chance(1, 1) == Fraction(1, 2)
    with pytest.raises(mc.InputError):
        sf.ally_hit_chance(0, 0)


def test_s6_ammunition_is_spent_only_by_shots_made():
    # Plain ground: round 1 secures the line of fire (no ammunition spent), then one
    # shot per round until the 3 arrows are gone: exactly 3 attacks in 6 rounds.
    archer = ch("Archer", tech=50, weapons=(gun("0", ammo=3),), position="back", initiative=50)
    target = ch("Target", position="back")
    r = run([(archer, 1)], [(target, 1)], battlefield=PLAIN, trials=300, seed=4, max_rounds=6)
    assert events(r, 0, F.E_ATTACKS) == 3 * r.n


def test_s6_take_cover_removes_a_secured_line_of_fire():
    # A's quick archer secures a line each round; B's back-liner removes it (its front
    # line holds the engage area), so A never shoots.  Without the policy, or without
    # B's front line, A shoots from round 2.
    guard = ch("Guard")
    archer = ch("Archer", tech=5, weapons=(gun("0"),), position="back", initiative=50)
    mover = ch("Mover", position="back")
    kw = dict(battlefield=PLAIN, trials=200, seed=5, max_rounds=4)
    covered = run([(guard, 1), (archer, 1)], [(guard, 1), (mover, 1)], **kw)
    assert events(covered, 0, F.E_ATTACKS) == 0
    free = run([(guard, 1), (archer, 1)], [(guard, 1), (mover, 1)],
               policy=sf.Policy(take_cover=False), **kw)  # fmt: skip
    assert events(free, 0, F.E_ATTACKS) == 3 * free.n
    no_front = run([(guard, 1), (archer, 1)], [(mover, 1)], **kw)
    assert events(no_front, 0, F.E_ATTACKS) == 3 * no_front.n


def test_s6_cover_against_shots():
    # Field with cover: both back-liners take cover in round 1 (each side threatens
    # the other), A secures the line in round 2 and shoots from round 3: +2 evade
    # for the target and -2 to hit for the shooter, exactly as sf.attack says.
    shooter = ch("Shooter", tech=2, weapons=(gun("0"),), position="back", initiative=50)
    target = ch("Target", tech=2, weapons=(EMPTY,), spells=(NULL_SPELL,), position="back")
    r = run([(shooter, 1)], [(target, 1)], battlefield="field", trials=1000, seed=6,
            max_rounds=12)  # fmt: skip
    attacks = events(r, 0, F.E_ATTACKS)
    assert attacks == 10 * r.n
    p = float(sf.attack(shooter, target, cover=True, shooter_in_cover=True).odds.hit)
    assert_rate(events(r, 0, F.E_HITS), attacks, p)


# -- S-4 fainting and death inside fights ------------------------------------------------------
def one_blow(target: Character, damage: str, fatigue: bool = False, **kw) -> sf.FightResult:
    """One round: a sure-handed striker hits ``target`` once for a fixed amount."""
    w = melee(damage, "blunt", fatigue=True) if fatigue else melee(damage)
    striker = ch("Striker", combat=100, initiative=100, weapons=(w,))
    return run([(striker, 1)], [(target, 1)], trials=20_000, seed=7, max_rounds=1, **kw)


def blow_hit(target: Character, damage: str) -> float:
    striker = ch("Striker", combat=100, weapons=(melee(damage),))
    return float(sf.attack(striker, target).odds.hit)


def test_s4_faint_check_target_and_threshold_in_a_fight():
    # 10 fatigue on HP 10: heavy fatigue 2, effective fatigue 10 >= HP (the >= of
    # the condition), target 10 + 10 + 2 - 10 = 12 (fatigue and heavy added).
    target = ch("Target", hp=10, fortitude=4)
    r = one_blow(target, "10", fatigue=True)
    p = blow_hit(target, "10") * sf.faint_chance(SFState(hp=10, fortitude=4), 10, "fatigue")
    assert sf.faint_chance(SFState(hp=10, fortitude=4), 10, "fatigue") == pytest.approx(21 / 36)
    assert_rate(r.totals["states"][1, F.FAINTED], r.n, p)


@pytest.mark.parametrize(("over", "threshold"), [(3, ">"), (0, ">="), (0, ">")])
def test_s4_death_check_in_a_fight(over, threshold):
    # injury = HP + over: a death check at target 10 with penalty `over` (fainted
    # even on a success) when injury exceeds HP; at injury = HP only with ">=".
    target = ch("Target", hp=10, fortitude=3)
    r = one_blow(target, str(10 + over), rules=sf.SFRules(death_threshold=threshold))
    hit = blow_hit(target, str(10 + over))
    state = SFState(hp=10, fortitude=3)
    dead = hit * sf.death_chance(state, 10 + over, death_threshold=threshold)
    fainted = hit * sf.faint_chance(state, 10 + over, death_threshold=threshold)
    assert_rate(r.totals["states"][1, F.DEAD], r.n, dead)
    assert_rate(r.totals["states"][1, F.FAINTED], r.n, fainted)
    if over == 0 and threshold == ">":
        assert dead == 0
    else:
        assert dead > 0 and fainted > 0


def test_s4_death_threshold_is_a_rule_parameter():
    state = SFState(hp=10, fortitude=3, injury=10)
    assert sf.death_chance(SFState(hp=10, fortitude=3), 10) == 0
    assert sf.death_chance(SFState(hp=10, fortitude=3), 10, death_threshold=">=") > 0
    assert sf.outcome_chances(state)["dead"] == 0
    with pytest.raises(mc.InputError, match="death_threshold"):
        sf.SFRules(death_threshold=">>")
    with pytest.raises(mc.InputError, match="death_threshold"):
        sf.death_chance(state, 1, death_threshold="ge")


def test_s4_automatic_death_at_hp_plus_10():
    # injury = HP + 10 is death outright, even with a Fortitude no roll can fail
    target = ch("Target", hp=10, fortitude=100)
    r = one_blow(target, "20")
    assert_rate(r.totals["states"][1, F.DEAD], r.n, blow_hit(target, "20"))
    assert r.totals["states"][1, F.FAINTED] == 0


def test_s4_no_check_without_damage():
    # A hits for 5 on HP 5 (a faint check: only a natural 2 fails at Fortitude 100);
    # B's spell then deals 0: no second check.  The exact functions agree.
    assert sf.faint_chance(SFState(hp=10, injury=10), 0) == 0
    assert sf.death_chance(SFState(hp=10, injury=12), 0) == 0
    five = Spell("Five", save="will", on_fail=Effect(damage=parse_dice("5")),
                 on_success=Effect(damage=parse_dice("5")))  # fmt: skip
    nought = Spell("Nought", save="will", on_fail=Effect(damage=parse_dice("0")),
                   on_success=Effect(damage=parse_dice("0")))  # fmt: skip
    c1 = ch("Five", spells=(five,), position="back", initiative=100)
    c2 = ch("Nought", spells=(nought,), position="back", initiative=50)
    target = ch("Target", hp=5, fortitude=100, will=-100, position="back")
    r = run([(c1, 1), (c2, 1)], [(target, 1)], battlefield="narrow", trials=20_000, seed=8,
            max_rounds=1)  # fmt: skip
    assert_rate(r.totals["states"][2, F.FAINTED], r.n, 1 / 36)


def test_s4_heavy_fatigue_counts_new_multiples_of_five_once():
    # Fatigue blows and catching breath: heavy fatigue = highest fatigue // 5.
    sap = melee("1d+3", "blunt", fatigue=True)
    brawler = ch("Brawler", body=2, combat=2, weapons=(sap,))
    target = ch("Target", hp=60, fortitude=50, body=-2, weapons=(EMPTY,))
    # The target catches its breath in about 0.4% of these fights: 4,000 of them make
    # sure some do (P(none) < 1e-5) with 13-17 expected.
    r = run([(brawler, 2)], [(target, 1)], trials=4000, seed=9, max_rounds=12,
            policy=sf.Policy(breath_at=0.1), _debug=True)  # fmt: skip
    dbg = r.trials["debug"]
    peak, heavy, fat = dbg[:, S_PEAK, 2], dbg[:, S_HEAVY, 2], dbg[:, S_FAT, 2]
    assert (heavy == peak // 5).all() and (fat <= peak).all()
    assert (fat < peak).any() and (heavy >= 2).any()  # breath was caught, and fatigue rose again


def test_s4_catching_breath_recovers_one_die():
    # 4 fatigue from one blow, then the target catches its breath (1d [default]).
    target = ch("Target", hp=1000, position="front")
    r = one_blow(target, "4", fatigue=True, keep_trials=True, policy=sf.Policy(breath_at=0.0))
    fat = r.trials["damage"][:, 1, 1]
    hit = r.totals["events"][0, F.E_HITS]
    assert_rate(int((fat == 4).sum()), r.n, 0.0)
    counts = np.array([(fat == k).sum() for k in range(4)])
    # a miss leaves 0; a hit leaves 4 - 1d6, never below 0
    expected = np.array([r.n - hit + hit / 2, hit / 6, hit / 6, hit / 6])
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    two = one_blow(target, "4", fatigue=True, keep_trials=True, policy=sf.Policy(breath_at=0.0),
                   rules=sf.SFRules(breath_dice=2))  # fmt: skip
    assert two.trials["damage"][:, 1, 1].mean() < r.trials["damage"][:, 1, 1].mean()


# -- S-5 opportunity attacks ----------------------------------------------------------------------
def test_s5_one_opportunity_attack_per_round():
    # Two front-line casters against three front-liners: the first cast gives 3 - 1 = 2
    # opportunity attacks, the second 2 more, but only one B character is left with its
    # attack of the round unused: 3 per round, not 4.
    caster = ch("Caster", spells=(NULL_SPELL,), initiative=100)
    guard = ch("Guard", weapons=(melee("0"),))
    r = run([(caster, 2)], [(guard, 3)], trials=200, seed=10, max_rounds=5)
    assert events(r, 1, F.E_OPPORTUNITY) == 3 * 5 * r.n


def test_s5_a_back_liner_counters_in_melee():
    # The Killer fells B's only front-liner; the Fighter then strikes B's back-liner
    # directly (no contact, no engage area).  The back-liner counters a fumble or a
    # dramatic evade (one attack even when both happen: 1/1296) like anyone in melee.
    killer = ch("Killer", combat=100, initiative=100, weapons=(melee("0d+5"),))
    fighter = ch("Fighter", initiative=50, weapons=(melee("0"),))
    glass = ch("Glass", hp=1, fortitude=-100)
    # a shooter without ammunition: it does not step up while its front line stands
    back = ch("Back", weapons=(melee("0"), EMPTY), position="back", initiative=-100)
    r = run([(killer, 1), (fighter, 1)], [(glass, 1), (back, 1)], battlefield=PLAIN,
            trials=20_000, seed=11, max_rounds=1)  # fmt: skip
    odds = sf.attack(fighter, back).odds
    counter = float(odds.attacker_fumble + odds.defender_dramatic) - 1 / 1296
    p = float(sf.attack(killer, glass).odds.hit) * counter
    assert_rate(events(r, 1, F.E_OPPORTUNITY), r.n, p)


def test_s5_fumbled_shot_in_the_melee_gives_the_enemy_side_an_attack():
    # A front-line shooter (no melee weapon) fumbles; the enemy it shot may have no
    # melee weapon, but the armed enemy beside it takes the opportunity attack.
    shooter = ch("Shooter", weapons=(gun("0"),), initiative=100)
    unarmed = ch("Unarmed")
    armed = ch("Armed", weapons=(melee("0"),), initiative=-100)
    r = run([(shooter, 1)], [(unarmed, 1), (armed, 1)], battlefield="open", trials=20_000,
            seed=12, max_rounds=1)  # fmt: skip
    p = float(sf.attack(shooter, unarmed).odds.attacker_fumble)
    assert_rate(events(r, 1, F.E_OPPORTUNITY), r.n, p)


def test_s5_count_rule_for_casting():
    # A caster and a guard in front against three: 3 - 1 = 2 opportunity attacks per cast.
    caster = ch("Caster", spells=(NULL_SPELL,), initiative=100)
    guard = ch("Guard")
    foe = ch("Foe", weapons=(melee("0"),))
    r = run([(caster, 1), (guard, 1)], [(foe, 3)], trials=200, seed=25, max_rounds=3)
    assert events(r, 1, F.E_OPPORTUNITY) == 2 * 3 * r.n


def test_s5_fumbled_melee_blow_lets_the_defenders_side_strike():
    # The Fighter strikes one of two front-liners at random.  After a fumble against
    # the unarmed one, the armed one takes the opportunity attack; the armed one also
    # counters a fumble or a dramatic evade of its own (one attack at most).
    fighter = ch("Fighter", weapons=(melee("0"),), initiative=100)
    unarmed = ch("Unarmed")
    armed = ch("Armed", weapons=(melee("0"),), initiative=-100)
    r = run([(fighter, 1)], [(unarmed, 1), (armed, 1)], battlefield=PLAIN, trials=20_000,
            seed=26, max_rounds=1)  # fmt: skip
    vs_unarmed = sf.attack(fighter, unarmed).odds
    vs_armed = sf.attack(fighter, armed).odds
    p = 0.5 * float(vs_unarmed.attacker_fumble) + 0.5 * (
        float(vs_armed.attacker_fumble + vs_armed.defender_dramatic) - 1 / 1296
    )
    assert_rate(events(r, 1, F.E_OPPORTUNITY), r.n, p)


# -- S-7 magic -------------------------------------------------------------------------------
def spell_states(area: str, battlefield="open", caster_line="back", fronts=2, **kw) -> np.ndarray:
    """Final states after one sleep spell: A = caster, ally front; B = fronts, 1 back."""
    caster = ch("Caster", spells=(sleep_spell(area),), position=caster_line, initiative=100)
    ally = ch("Ally", weapons=(melee("0"),), body=-100)
    foe = ch("Foe", weapons=(melee("0"),), body=-100)
    foe_back = ch("FoeBack", position="back")
    r = run([(caster, 1), (ally, 1)], [(foe, fronts), (foe_back, 1)], battlefield=battlefield,
            trials=100, seed=13, max_rounds=1, **kw)  # fmt: skip
    shares = r.totals["states"][:, F.FAINTED] / r.n
    assert set(shares) <= {0.0, 1.0}
    return shares


@pytest.mark.parametrize(
    ("area", "battlefield", "asleep"),
    [
        ("small", PLAIN, [0, 1, 1, 1, 0]),  # enemy front and the engaged own front
        ("medium", PLAIN, [0, 1, 1, 1, 1]),  # a whole side and the engaged own front
        ("large", PLAIN, [1, 1, 1, 1, 1]),  # everyone, the caster included
        ("medium", "narrow", [1, 1, 1, 1, 1]),  # S-9 narrow room: a medium circle is everyone
    ],
)
def test_s7_spell_areas(area, battlefield, asleep):
    assert spell_states(area, battlefield).tolist() == asleep


def test_s7_caster_inside_its_own_area_and_the_policy():
    # A front-line caster whose small circle takes the enemy front line is inside it:
    # against 3 front-liners it casts there (3 enemies, 2 allies) and sleeps too.
    assert spell_states("small", PLAIN, caster_line="front", fronts=3).tolist()[0] == 1
    # against 2 the front would be 2 against 2: it takes the back line instead
    assert spell_states("small", PLAIN, caster_line="front").tolist() == [0, 0, 0, 0, 1]
    # a large circle over more allies than enemies is not cast at all
    assert spell_states("large", PLAIN, fronts=1).tolist() == [0, 0, 0, 0]
    # S-7 [default] switched off: the caster is never inside its own area
    outside = sf.SFRules(caster_in_own_area=False)
    assert spell_states("large", PLAIN, rules=outside).tolist() == [0, 1, 1, 1, 1]
    with pytest.raises(mc.InputError, match="friendly_fire_order"):
        sf.SFRules(friendly_fire_order="random")


def spell_fail_rate(power: int, save: int, strength_mod: int, save_mod: int) -> float:
    """Exact chance a save 2d6 + save + save_mod misses power + 2d6 + strength_mod."""
    return (
        sum(
            float(sf.check(save + save_mod, power + a + b + strength_mod).p_failure)
            for a in range(1, 7)
            for b in range(1, 7)
        )
        / 36
    )


@pytest.mark.parametrize(
    ("battlefield", "save", "rounds", "strength_mod", "save_mod"),
    [
        (PLAIN, "will", 1, 0, 0),
        ("field", "will", 2, -2, 2),  # S-6: both in cover (round 1), cast in round 2
        ("ship", "intuition", 1, 0, -2),  # S-9 ship deck: -2 to intuition saves
        ("ship", "will", 1, 0, 0),
    ],
)
def test_s7_spell_saves_with_cover_and_ship(battlefield, save, rounds, strength_mod, save_mod):
    bolt = Spell("Bolt", save=save, on_fail=Effect(damage=parse_dice("5")))
    caster = ch("Caster", power=3, spells=(bolt,), position="back", initiative=50)
    target = ch("Target", will=2, intuition=2, spells=(NULL_SPELL,), position="back")
    r = run([(caster, 1)], [(target, 1)], battlefield=battlefield, trials=20_000, seed=14,
            max_rounds=rounds, keep_trials=True)  # fmt: skip
    failed = int((r.trials["damage"][:, 1, 0] == 5).sum())
    assert_rate(failed, r.n, spell_fail_rate(3, 2, strength_mod, save_mod))


# -- S-8 surprise ----------------------------------------------------------------------------------
def test_s8_surprise_per_character():
    r = run("warrior:2", "orc:2", trials=200, seed=15, max_rounds=1, surprise=[1], _debug=True)
    acted = r.trials["debug"][:, S_ACTED, :]
    alive_start = np.ones_like(acted, bool)
    assert (acted[:, 1] == 0).all()  # the surprised slot takes no action in round 1
    assert acted[alive_start[:, 0], 0].any() and acted[:, 2:].any()
    with pytest.raises(mc.InputError, match="slot"):
        run("warrior:2", "orc:2", trials=10, surprise=[7])


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_s8_surprised_until_it_has_acted_even_in_round_2(rounds):
    # A (quick) strikes the surprised B (slow, unarmed) once per round: the strikes of
    # rounds 1 and 2 land before B's first action, at -2 to evade; round 3's does not.
    quick = ch("Quick", weapons=(melee("0"),), initiative=100)
    slow = ch("Slow", initiative=-100)
    r = run([(quick, 1)], [(slow, 1)], trials=10_000, seed=16, max_rounds=rounds, surprise="b")
    assert events(r, 0, F.E_ATTACKS) == rounds * r.n
    ps = [float(sf.attack(quick, slow, "Blade", surprised=k < 2).odds.hit) for k in range(rounds)]
    mean = r.n * sum(ps)
    sd = np.sqrt(r.n * sum(p * (1 - p) for p in ps))
    assert abs(events(r, 0, F.E_HITS) - mean) <= 3.29 * sd


# -- S-9 battlefields --------------------------------------------------------------------------
WALL = ch("Wall", weapons=(melee("0"),), armor={"slash": 100})
STRIKER = ch("Striker", body=2, weapons=(melee("0"),))


@pytest.mark.parametrize(
    ("party_a", "party_b", "pinched"),
    [
        ([(WALL, 2), (ch("Idle", position="back"), 1)], [(STRIKER, 2)], False),  # back line
        ([(WALL, 2)], [(STRIKER, 2)], True),  # front-liners only, attacked at both ends
        ([(WALL, 1)], [(STRIKER, 1)], False),  # attacked at one end only
    ],
)
def test_s9_pincer_only_where_and_when_the_seed_allows(party_a, party_b, pinched):
    r = run(party_a, party_b, battlefield="corridor", pincer="a", trials=1500, seed=17,
            max_rounds=10)  # fmt: skip
    p = float(sf.attack(STRIKER, WALL, pincer=pinched).odds.hit)
    assert_rate(events(r, 1, F.E_HITS), events(r, 1, F.E_ATTACKS), p)


def test_s9_pincer_needs_a_second_front():
    for bf in ("open", "cliff", "ship", "narrow", "field"):
        with pytest.raises(mc.InputError, match="second front"):
            run("warrior:2", "orc:2", trials=10, battlefield=bf, pincer="a")
    with pytest.raises(mc.InputError, match="pincer"):
        run("warrior:2", "orc:2", trials=10, battlefield="corridor", rear="orc:1")


def test_s9_corridor_second_front_caps_each_end():
    r = run("warrior:4,archer:1", "orc:2", battlefield="corridor", pincer="a", rear="goblin:2",
            trials=300, seed=18, max_rounds=1, _debug=True)  # fmt: skip
    dbg = r.trials["debug"]
    standing = dbg[:, S_STATUS, :] == F.STANDING
    front = (dbg[:, S_LINE, :] == 0) & standing
    for e in (0, 1):
        at_end = front & (dbg[:, S_END, :] == e)
        assert (at_end[:, :5].sum(axis=1) <= 2).all()
        assert (at_end[:, :5].sum(axis=1) == 2).any()
    # the rear attackers (last two of B) fight at end 1
    assert (dbg[:, S_END, 7:] == 1).all()


def test_s9_corridor_small_circle_covers_one_end():
    # A, attacked from both ends, casts a small sleep circle: one end's enemy front and
    # A's own front at that end, never both ends.
    caster = ch("Caster", spells=(sleep_spell("small"),), position="back", initiative=100)
    ally = ch("Ally", weapons=(melee("0"),), body=-100)
    foe = ch("Foe", weapons=(melee("0"),), body=-100)
    r = run([(ally, 2), (caster, 1)], [(foe, 2)], battlefield="corridor", pincer="a",
            rear=[(foe, 2)], trials=100, seed=19, max_rounds=1)  # fmt: skip
    asleep = r.totals["states"][:, F.FAINTED] / r.n
    assert asleep.tolist() == [1, 0, 0, 1, 1, 0, 0]


def test_s9_narrow_room_shots_reach_the_back_line_without_a_line_of_fire():
    archer = ch("Archer", tech=3, weapons=(gun("0"),), position="back")
    target = ch("Target", position="back")
    # plain ground: round 1 secures a line; corridor and cliff allow none (and there is
    # no engage area to shoot into)
    for bf, shots in (("narrow", 2), (PLAIN, 1), ("corridor", 0), ("cliff", 0)):
        r = run([(archer, 1)], [(target, 1)], battlefield=bf, trials=100, seed=20, max_rounds=2)
        assert events(r, 0, F.E_ATTACKS) == shots * r.n


def test_s9_open_battlefield_melee_reaches_everyone():
    # In the open a back-liner can be struck in melee while its front line stands.
    fighter = ch("Fighter", combat=100, initiative=100, weapons=(melee("0d+3"),))
    wall = ch("Wall", armor={"slash": 100})
    back = ch("Back", position="back")
    for bf, reached in (("open", True), (PLAIN, False)):
        r = run([(fighter, 1)], [(wall, 1), (back, 1)], battlefield=bf, trials=2000, seed=27,
                max_rounds=1)  # fmt: skip
        assert (r.totals["damage"][2, 0] > 0) == reached


def tripper() -> Character:
    return ch("Tripper", combat=100, initiative=100, weapons=(melee("0"),))


@pytest.mark.parametrize("battlefield", ["ship", "cliff"])
def test_s9_trips_on_ship_and_cliff(battlefield):
    # On a ship a trip sends the target overboard, no save; on the cliff only a
    # failed Intuition save at 12 does (Intuition 3: 2d6 < 9).
    target = ch("Target", intuition=3)
    r = run([(tripper(), 1)], [(target, 1)], battlefield=battlefield, trials=20_000, seed=21,
            max_rounds=1, policy=sf.Policy(trip_chance=1.0))  # fmt: skip
    ship = battlefield == "ship"
    p = float(sf.attack(tripper(), target, ship=ship).odds.hit)
    if not ship:
        p *= float(sf.check(3, 12).p_failure)
    assert_rate(r.totals["states"][1, F.OVERBOARD], r.n, p)


def test_s9_ship_fumbles_go_overboard():
    # A fumbled evade against a shot goes overboard; a fumbled shot does not.
    shooter = ch("Shooter", weapons=(gun("0"),), position="back", initiative=100)
    target = ch("Target")  # front line, no melee weapon: the shooter's only target
    r = run([(shooter, 1)], [(target, 1)], battlefield="ship", trials=20_000, seed=22,
            max_rounds=1)  # fmt: skip
    odds = sf.attack(shooter, target, ship=True).odds
    assert_rate(r.totals["states"][1, F.OVERBOARD], r.n, float(odds.defender_fumble))
    assert r.totals["states"][0, F.OVERBOARD] == 0
    # a fumbled melee hit roll goes overboard
    fighter = ch("Fighter", weapons=(melee("0"),), initiative=100)
    m = run([(fighter, 1)], [(target, 1)], battlefield="ship", trials=20_000, seed=23,
            max_rounds=1)  # fmt: skip
    odds = sf.attack(fighter, target, ship=True).odds
    assert_rate(m.totals["states"][0, F.OVERBOARD], m.n, float(odds.attacker_fumble))
    assert_rate(m.totals["states"][1, F.OVERBOARD], m.n, float(odds.defender_fumble))


def test_s9_ship_penalties_and_ships_folk():
    fighter = ch("Fighter", weapons=(melee("0"),), initiative=100)
    target = ch("Target")
    sailor = ch("Sailor", weapons=(melee("0"),), initiative=100, ships=True)
    for a in (fighter, sailor):
        r = run([(a, 1)], [(target, 1)], battlefield="ship", trials=20_000, seed=24, max_rounds=1)
        p = float(sf.attack(a, target, ship=True).odds.hit)
        assert_rate(events(r, 0, F.E_HITS), events(r, 0, F.E_ATTACKS), p)


# -- S-9 user-defined battlefield presets ------------------------------------------------------
def test_battlefield_presets_from_toml(tmp_path):
    path = tmp_path / "fields.toml"
    path.write_text(
        '[[battlefield]]\nkey = "Bridge"\nname = "rope bridge"\nfront_cap = 1\ncliff = true\n'
        '[[battlefield]]\nkey = "corridor"\nfront_cap = 3\nno_back_lof = true\n'
    )
    presets = sf.load_battlefields(path)
    assert presets["bridge"] == sf.Battlefield("rope bridge", front_cap=1, cliff=True)
    assert presets["corridor"].front_cap == 3 and not presets["corridor"].second_front
    assert set(sf.BATTLEFIELDS) <= set(presets)
    r = run("warrior:2", "orc:2", battlefield="bridge", battlefields=presets, trials=256, seed=1)
    assert r.options["battlefield"] == "rope bridge"


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ('[[battlefield]]\nkey = "x"\nwind = true', "wind", "unknown field"),
        ('[[battlefield]]\nkey = "x"\nfront_cap = -1', "front_cap", "from 0 to 64"),
        ('[[battlefield]]\nkey = "x"\nship = "yes"', "ship", "true or false"),
        ('[[battlefield]]\nname = "x"', "key", "missing"),
        ('[[battlefield]]\nkey = "x"\n[[battlefield]]\nkey = "X"', "key", "duplicate"),
        ('[[battlefield]]\nkey = "x"\nopen = true\nsecond_front = true', "second_front", "ends"),
    ],
)
def test_bad_battlefield_presets(tmp_path, text, field, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(mc.DataError) as exc:
        sf.load_battlefields(path)
    assert exc.value.field == field and message in str(exc.value)
    with pytest.raises(mc.InputError, match="not found"):
        sf.load_battlefields(tmp_path / "missing.toml")
    with pytest.raises(mc.InputError, match="unknown battlefield"):
        run("warrior:1", "orc:1", trials=10, battlefield="moon")


# -- exact functions take names (user surface) ----------------------------------------------------
def test_exact_functions_accept_names_and_reject_wrong_types():
    warrior = ROSTER["warrior"]
    assert sf.faint_chance("warrior", 8) == sf.faint_chance(warrior, 8)
    assert sf.death_chance("Warrior", 20) == sf.death_chance(SFState.of(warrior), 20)
    for bad in ((3, 8), ("warrior", "8"), ("warrior", 8.5), (None, 1)):
        with pytest.raises(mc.InputError):
            sf.faint_chance(*bad)
    with pytest.raises(mc.InputError, match="unknown character"):
        sf.death_chance("dragon", 3)
    with pytest.raises(mc.InputError, match="kind"):
        sf.faint_chance("warrior", 3, kind="fire")


# -- invariants -------------------------------------------------------------------------------
@pytest.mark.parametrize("battlefield", ["open", "corridor"])
def test_mirror_match_is_even_and_written_order_does_not_matter(battlefield):
    party = "warrior:1,archer:1,mage:1,priest:1"
    mirror = run(party, party, battlefield=battlefield, trials=20_000, seed=28)
    k_a, k_b = mirror.counts["a"], mirror.counts["b"]
    assert stats.binomtest(k_a, k_a + k_b, 0.5).pvalue > 1e-3
    foes = "orc:2,goblin:2"
    written = run(party, foes, battlefield=battlefield, trials=20_000, seed=29)
    reverse = run("priest:1,mage:1,archer:1,warrior:1", foes, battlefield=battlefield,
                  trials=20_000, seed=30)  # fmt: skip
    table = [list(written.counts.values()), list(reverse.counts.values())]
    table = [row for row in np.array(table).T.tolist() if sum(row) > 0]
    assert stats.chi2_contingency(np.array(table).T).pvalue > 1e-3


def test_second_front_invariants():
    r = run("warrior:2,knight:1,archer:1,mage:1", "orc:2,goblin:2,wolf:1", battlefield="corridor",
            pincer="a", rear="goblin:2", surprise=[0, 6], trials=2000, seed=31,
            policy=sf.Policy(trip_chance=0.3, fatigue_attacks=True), _debug=True)  # fmt: skip
    dbg = r.trials["debug"]
    from kernels.sf_fight import S_ACT_SEQ, S_GONE_SEQ

    gone, acted = dbg[:, S_GONE_SEQ, :], dbg[:, S_ACT_SEQ, :]
    assert not ((gone >= 0) & (acted > gone)).any()  # nothing acts after it is out
    assert r.totals["states"].sum(axis=1).tolist() == [r.n] * dbg.shape[2]
    assert 0.05 < r.win_rate < 0.95 and len(r.party_b) == 7


def test_s4_coup_de_grace_is_a_policy_parameter():
    # Corridor: once the Orc (B's only front-liner) faints, the Warriors either reach
    # past it to the Archer [default] or, with coup_de_grace, finish it off first.
    kw = dict(battlefield="corridor", trials=4000, seed=3)
    base = run("warrior:2", "orc:1,archer:1", **kw)
    explicit = run("warrior:2", "orc:1,archer:1", policy=sf.Policy(coup_de_grace=False), **kw)
    assert np.array_equal(base.totals["states"], explicit.totals["states"])
    coup = run("warrior:2", "orc:1,archer:1", policy=sf.Policy(coup_de_grace=True), **kw)
    orc = 2  # slot of the Orc
    n = base.n
    b, c = base.characters().iloc[orc], coup.characters().iloc[orc]
    se = np.sqrt(b.p_fainted * (1 - b.p_fainted) / n + c.p_fainted * (1 - c.p_fainted) / n)
    assert b.p_fainted - c.p_fainted > 4 * se  # fainted Orcs are finished off...
    assert c.p_dead > b.p_dead  # ...and die
    # in the open everyone standing is in reach: no fainted enemy is ever finished
    opened = dict(battlefield="open", trials=1000, seed=3)
    assert np.array_equal(
        run("warrior:2", "orc:2", **opened).totals["states"],
        run("warrior:2", "orc:2", policy=sf.Policy(coup_de_grace=True), **opened).totals["states"],
    )


def test_s8_initiative_dice_is_a_rule_parameter():
    # One blow kills; Quick has +1 initiative.  With no initiative dice Quick always
    # strikes first, so in one round it wins exactly as often as when it is first (see
    # test_sf_fight.test_s8_higher_initiative_acts_first); with 2d6 Slow often goes first.
    quick = Character("Quick", 1, initiative=1, weapons=(melee("0d+50"),))
    slow = Character("Slow", 1, weapons=(melee("0d+50"),))
    kw = dict(trials=20_000, seed=9, max_rounds=1)
    flat = run([(slow, 1)], [(quick, 1)], rules=sf.SFRules(initiative_dice=0), **kw)
    odds = sf.attack(quick, slow).odds
    p = float(odds.hit)
    r = float(odds.attacker_fumble + odds.defender_dramatic) - 1 / 1296
    m = 1 - p - r
    p_quick = p + r * (1 - p) * r * p + m * r * p
    assert_rate(flat.counts["b"], flat.n, p_quick)
    base = run([(slow, 1)], [(quick, 1)], **kw)
    two = run([(slow, 1)], [(quick, 1)], rules=sf.SFRules(initiative_dice=2), **kw)
    assert base.counts == two.counts
    assert base.counts["a"] > flat.counts["a"] + 1000  # Slow wins far more with 2d6
    with pytest.raises(mc.InputError, match="initiative_dice"):
        sf.SFRules(initiative_dice=-1)


def test_s6_friendly_fire_groups_is_a_rule_parameter():
    # 1 ally and 6 enemies engaged (open field): listed e,a,e,e,e,e,e.  Fewest
    # groups [default]: 4 and 3, the ally is hit 1/2 * 1/4; six groups: 2,1,1,1,1,1,
    # the ally is hit 1/6 * 1/2.
    assert sf.ally_hit_chance(1, 6) == Fraction(1, 8)
    assert sf.ally_hit_chance(1, 6, groups="six") == Fraction(1, 12)
    hit = sf.attack(SHOOTER, IDLE).odds.hit
    for groups, share in (("fewest", Fraction(1, 8)), ("six", Fraction(1, 12))):
        r = run([(SHOOTER, 1), (IDLE, 1)], [(IDLE, 6)], trials=20_000, seed=5, max_rounds=1,
                rules=sf.SFRules(friendly_fire_groups=groups))  # fmt: skip
        assert_rate(events(r, 0, F.E_FRIENDLY_FIRE), r.n, float(share * hit))
    with pytest.raises(mc.InputError, match="friendly_fire_groups"):
        sf.SFRules(friendly_fire_groups="many")


# -- S-6 shooting into a melee (Policy.shoot_into_melee) ------------------------------------
HOLD = sf.Policy(shoot_into_melee=False)


@pytest.mark.parametrize("battlefield", [PLAIN, "open"], ids=["lines", "open"])
def test_s6_shooters_hold_fire_into_a_melee_with_allies(battlefield):
    # A back-line shooter whose only shot is into the melee where its ally stands
    # shoots every round by default, and never with the policy off (the ally and the
    # foe have no weapon to act with).
    shooter = ch("Shooter", weapons=(gun("0"),), position="back")
    ally, foe = ch("Ally"), ch("Foe")
    kw = dict(battlefield=battlefield, trials=200, seed=30, max_rounds=3)
    shoots = run([(shooter, 1), (ally, 1)], [(foe, 1)], **kw)
    held = run([(shooter, 1), (ally, 1)], [(foe, 1)], policy=HOLD, **kw)
    assert events(shoots, 0, F.E_ATTACKS) == 3 * shoots.n
    assert events(held, 0, F.E_ATTACKS) == 0


def test_s6_a_melee_without_allies_is_a_clear_shot():
    # One front line alone is an engage area (the contact rule off): with no ally in
    # it, the shot cannot hit an ally, and the policy takes it.
    shooter = ch("Shooter", weapons=(gun("0"),), position="back")
    r = run([(shooter, 1)], [(ch("Foe"), 1)], battlefield=PLAIN, policy=HOLD, trials=200,
            seed=31, max_rounds=3, rules=sf.SFRules(engage_needs_contact=False))  # fmt: skip
    assert events(r, 0, F.E_ATTACKS) == 3 * r.n


def test_s6_a_shooter_holding_fire_waits_behind_the_lines_and_fights_in_the_open():
    # With a blade as well: behind its front line it keeps its place and waits for a
    # clear shot; in the open it is in the melee itself and takes up the blade (it
    # steps up in round 1, as a shooter without a shot does, and strikes in round 2).
    archer = ch("Archer", weapons=(gun("0"), melee("0")), position="back")
    for bf, line, attacks in ((PLAIN, 1, 0), ("open", 0, 1)):
        r = run([(archer, 1), (ch("Ally"), 1)], [(ch("Foe"), 1)], battlefield=bf, policy=HOLD,
                trials=100, seed=32, max_rounds=2, keep_trials=True, _debug=True)  # fmt: skip
        assert (r.trials["debug"][:, S_LINE, 0] == line).all()
        assert events(r, 0, F.E_ATTACKS) == attacks * r.n


@pytest.mark.parametrize("battlefield", [sf.fights.DEFAULT_BATTLEFIELD, "open"])
def test_s6_no_friendly_fire_when_shooters_hold_fire_into_the_melee(battlefield):
    # The audit's party: the Archer's friendly fire is a fifth of the party's deaths.
    # Its friendly-fire hits, a count, are more than 3.29 standard errors (Poisson)
    # above none by default, and none at all with the policy off.
    party = ("warrior:1,archer:1,mage:1", "goblin:3,orc:1")
    shoots = run(*party, battlefield=battlefield, trials=2000, seed=33)
    held = run(*party, battlefield=battlefield, trials=2000, seed=33, policy=HOLD)
    k = events(shoots, 0, F.E_FRIENDLY_FIRE)  # side A: only the Archer shoots
    assert k > 3.29 * np.sqrt(k)
    assert events(held, 0, F.E_FRIENDLY_FIRE) == 0
    assert events(held, 0, F.E_ATTACKS) > 0


# -- S-9 the default battlefield -------------------------------------------------------------
def test_s9_a_fight_that_names_no_battlefield_is_fought_in_formation():
    party = ("warrior:1,archer:1,mage:1", "goblin:3,orc:1")
    kw = dict(trials=500, seed=34, keep_trials=True, _debug=True)
    named = run(*party, battlefield="field", **kw)
    default = run(*party, **kw)
    assert sf.fights.DEFAULT_BATTLEFIELD == "field" and default.options["battlefield"] == "field"
    np.testing.assert_array_equal(default.trials["debug"], named.trials["debug"])
    assert default.summary().splitlines()[1] == "field: front and back lines, cover to take"
    assert mc.SFScenario(*party).battlefield == sf.BATTLEFIELDS["field"]
    rep = sf.replay(*party, seed=34, fight=0)
    assert rep.options["battlefield"] == "field"
    first = rep.text().splitlines()[0]
    assert first == "Fight 0 of seed 34, field: front and back lines, cover to take"
    opened = run(*party, battlefield="open", trials=10)
    assert opened.setting() == "open battlefield: everyone is engaged"


def test_s9_the_open_battlefield_kills_the_back_line_about_twice_as_often():
    # The reason the open battlefield is not the default (RULES.md S-9): everyone is
    # engaged, and the back line dies about twice as often as behind its front line.
    # Each back-liner's death rate on the open battlefield is more than 1.5 times its
    # rate on the field, by more than 3.29 standard errors of that difference.
    party = ("warrior:1,archer:1,mage:1", "goblin:3,orc:1")
    n = 4000
    rates = {bf: run(*party, battlefield=bf, trials=n, seed=35).characters()["p_dead"]
             for bf in ("open", "field")}  # fmt: skip
    for slot in (1, 2):  # the Archer and the Mage
        p_open, p_field = rates["open"][slot], rates["field"][slot]
        se = np.sqrt(p_open * (1 - p_open) / n + 1.5**2 * p_field * (1 - p_field) / n)
        assert p_open - 1.5 * p_field > 3.29 * se, (slot, p_open, p_field)
