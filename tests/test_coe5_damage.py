"""The CoE5 damage pipeline, rule by rule (RULES.md C-3, C-4, C-5.3).

Each exact case is worked out by hand in the comments from C-1.2's OED law
P(T = t) = N^-(floor((t-1)/(N-1)) + 1); with N = 2 that is 2^-t.
"""

from __future__ import annotations

import numpy as np
import pytest

import montecarlo as mc
from montecarlo.coe5.damage import damage, hits_to_kill
from montecarlo.coe5.units import Unit, Weapon
from tests.helpers import assert_matches


def weapon(die="1-2", **kw) -> Weapon:
    return Weapon("test weapon", mc.parse_die(die), **kw)


def target(hp=20, **kw) -> Unit:
    return Unit("test target", hp, (weapon(),), **kw)


def pmf(dist, values):
    return [float(dist.pmf(v)) for v in values]


# -- C-3 steps -------------------------------------------------------------------
def test_c3_1_raw_roll_with_strength():
    # 1-3 with strength 2 rolls OED(5) (C-1.5): P(1) = 1/5, P(5) = 1/25, P(9) = 1/125
    d = damage(weapon("1-3"), target(), strength=2)
    assert pmf(d, [1, 5, 9]) == pytest.approx([1 / 5, 1 / 25, 1 / 125])
    # nostr ignores strength: OED(3), P(1) = 1/3
    assert damage(weapon("1-3", nostr=True), target(), strength=2).pmf(1) == pytest.approx(1 / 3)


def test_c3_2_vulnerability_doubles_before_armor():
    # fire OED(2) vs fire-vulnerable, armor 1: 2T - 1 -> P(1) = 1/2, P(3) = 1/4, P(2) = 0
    d = damage(weapon(type="fire"), target(vulnerable=("fire",), armor=1))
    assert pmf(d, [0, 1, 2, 3]) == pytest.approx([0, 1 / 2, 0, 1 / 4])
    # vulnerability only counts for its own type
    plain = damage(weapon(type="slash"), target(vulnerable=("fire",), armor=1))
    assert plain.pmf(0) == pytest.approx(1 / 2)


def test_c3_3_immobile_adds_one():
    # OED(2) + 1: P(2) = 1/2, P(3) = 1/4
    d = damage(weapon(), target(immobile=True))
    assert pmf(d, [1, 2, 3]) == pytest.approx([0, 1 / 2, 1 / 4])
    assert damage(weapon(), target(), immobile=True).pmf(2) == pytest.approx(1 / 2)


def test_c4_3_frozen_adds_one_more():
    d = damage(weapon(), target(immobile=True), frozen=True)
    assert pmf(d, [2, 3, 4]) == pytest.approx([0, 1 / 2, 1 / 4])


def test_c3_4_wall_subtracts_fortification():
    # OED(2) - 2: P(0) = P(T <= 2) = 3/4, P(1) = 1/8
    d = damage(weapon(), target(), on_wall=2)
    assert pmf(d, [0, 1]) == pytest.approx([3 / 4, 1 / 8])
    with pytest.raises(mc.InputError, match="fortification"):
        damage(weapon(), target(), on_wall=4)


def test_c3_5_armor_and_armor_negation():
    # OED(2) - 2: P(0) = 3/4; `an` skips armor: P(0) = 0, P(1) = 1/2
    assert damage(weapon(), target(armor=2)).pmf(0) == pytest.approx(3 / 4)
    an = damage(weapon(an=True), target(armor=2))
    assert pmf(an, [0, 1]) == pytest.approx([0, 1 / 2])


def test_c3_6_shield_uniform_and_shield_negation():
    # OED(2) - U{0,1}: P(0) = 1/2 * 1/2 = 1/4; P(1) = 1/4 + 1/8 = 3/8
    d = damage(weapon(), target(shield=1))
    assert pmf(d, [0, 1]) == pytest.approx([1 / 4, 3 / 8])
    neg = damage(weapon(shieldneg=True), target(shield=1))
    assert neg.pmf(0) == 0.0


def test_seed_example_mean_oed4_armor1_shield1():
    # The worked case: E[max(T - 1 - S, 0)] for OED(4), S ~ U{0,1} is 1.625.
    # By hand: E[T] = 3; E[max(T-1,0)] = 2; E[max(T-2,0)] = 2 - P(T>=2) = 2 - 3/4 = 1.25;
    # average of the two shield outcomes = (2 + 1.25) / 2 = 1.625.
    d = damage(weapon("1-4"), target(armor=1, shield=1))
    assert d.mean() == pytest.approx(1.625)


def test_c3_7_percentage_resistance_floors():
    # fire 50%: floor(T/2): P(0) = P(T=1) = 1/2, P(1) = P(T in {2,3}) = 3/8
    d = damage(weapon(type="fire"), target(resist={"fire": 50}))
    assert pmf(d, [0, 1]) == pytest.approx([1 / 2, 3 / 8])
    # 75% cold: floor(T/4) is 0 for T <= 3
    cold = damage(weapon(type="cold"), target(resist={"cold": 75}))
    assert cold.pmf(0) == pytest.approx(1 / 2 + 1 / 4 + 1 / 8)
    assert damage(weapon(type="fire"), target(resist={"fire": 100})).hi == 0


def test_c3_7_physical_resistance_is_half():
    d = damage(weapon(type="slash"), target(resist_slash=True))
    assert pmf(d, [0, 1]) == pytest.approx([1 / 2, 3 / 8])
    # resistance to another physical type does nothing
    assert damage(weapon(type="slash"), target(resist_pierce=True)).pmf(0) == 0


def test_c3_7_resistance_after_armor():
    # floor((T - 1) / 2) with OED(4): zero for T <= 2 -> P(0) = 1/2
    d = damage(weapon("1-4", type="fire"), target(armor=1, resist={"fire": 50}))
    assert d.pmf(0) == pytest.approx(1 / 2)


def test_c3_8_below_one_does_nothing():
    # armor 10 against OED(2): nothing unless T >= 11 (open-ended: 2^-10)
    d = damage(weapon(), target(armor=10))
    assert d.lo == 0 and pmf(d, [0, 1]) == pytest.approx([1 - 2**-10, 2**-11])
    assert (d.support >= 0).all()


def test_c3_9_ethereal_nonmagic():
    # P(0) = 0.75 + 0.25 P0 with P0 the ordinary zero chance (armor 1: 1/2)
    d = damage(weapon(), target(ethereal=True, armor=1))
    assert d.pmf(0) == pytest.approx(0.75 + 0.25 * 0.5)
    assert d.pmf(1) == pytest.approx(0.25 * 0.25)


def test_c3_10_magic_damage_still_meets_armor():
    # a magic weapon ignores ethereal but armor still applies (C-3.10, C-4.7)
    d = damage(weapon(magic=True), target(ethereal=True, armor=2))
    assert d.pmf(0) == pytest.approx(3 / 4)
    pure = damage(weapon(type="magic"), target(ethereal=True))
    assert pure.pmf(0) == 0.0


def test_c4_1_physical_types_leave_nothing():
    for kind in ("blunt", "pierce", "slash"):
        assert damage(weapon(type=kind), target()).kind == "hp"


def test_c4_5_poison_goes_to_the_pool():
    d = damage(weapon(type="poison"), target(vulnerable=("poison",)))
    assert d.kind == "poison"
    assert pmf(d, [2, 4]) == pytest.approx([1 / 2, 1 / 4])  # vulnerability doubles it
    with pytest.raises(mc.InputError, match="poison"):
        hits_to_kill(weapon(type="poison"), target())


def test_c4_6_acid_resistance():
    assert damage(weapon(type="acid"), target(resist={"acid": 50})).pmf(0) == pytest.approx(1 / 2)


def test_c4_9_paralysis_does_no_damage():
    assert damage(weapon(type="paralysis"), target()).pmf(0) == 1.0


@pytest.mark.parametrize(
    ("distance", "far"), [(1, False), (3, False), (4, True), (5, True)]
)  # fmt: skip
def test_c5_3_long_range_halving(distance, far):
    # range 5: beyond ceil(5/2) = 3 tiles, the raw roll halves rounding up.
    bow = weapon("1-4", range=5, rangepen=True)
    d = damage(bow, target(), distance=distance)
    # OED(4): ceil(T/2) = 1 for T in {1, 2}: P = 1/4 + 1/4
    assert d.pmf(1) == pytest.approx(0.5 if far else 0.25)
    plain = damage(weapon("1-4", range=5), target(), distance=distance)
    assert plain.pmf(1) == pytest.approx(0.25)  # no rangepen, no halving


def test_distance_beyond_range_is_an_error():
    with pytest.raises(mc.InputError, match="reaches 5 tiles"):
        damage(weapon("1-4", range=5), target(), distance=6)


# -- sampled pipeline against the exact one ------------------------------------
@pytest.mark.parametrize(
    ("attacker", "defender", "situation"),
    [
        ("pikeman", "knight", {}),
        ("knight.lance", "wraith", {}),  # ethereal
        ("wraith", "knight", {}),  # magic vs ethereal rule irrelevant, armor + shield
        ("fire drake.fire breath", "troll", {}),  # vulnerability
        ("frost giant", "fire drake", {"on_wall": 2}),
        ("giant spider", "heavy infantry", {}),  # poison pool
        ("assassin.garrote", "knight", {}),  # armor negation
        ("archer.longbow", "militia", {"distance": 5}),  # long range
        ("troll", "skeleton", {"immobile": True, "frozen": True}),
        ("storm spirit", "skeleton", {}),  # magic shock
        ("knight.broad sword", "skeleton", {}),  # slash resistance
        ("catapult", "catapult", {}),  # immobile target
    ],
)
def test_sampled_pipeline_matches_exact(attacker, defender, situation):
    d = damage(attacker, defender, **situation)
    assert_matches(d.sample(200_000, seed=31), d)


def test_pipeline_test_can_fail():
    # the same hit without the shield is a different law and must be rejected
    with_shield = damage("pikeman", "knight")
    no_shield = damage(weapon("1-5", type="pierce"), target(armor=3))
    with pytest.raises(AssertionError):
        assert_matches(with_shield.sample(200_000, seed=1), no_shield)


def test_multi_weapon_unit_needs_a_weapon_name():
    with pytest.raises(mc.InputError, match=r"knight\.lance"):
        damage("knight", "militia")


# -- hits to kill ----------------------------------------------------------------
def test_hits_to_kill_by_hand():
    # hp 2, OED(2): one hit kills iff T >= 2 (1/2); otherwise the second always does
    h = hits_to_kill(weapon(), target(hp=2))
    assert pmf(h, [1, 2, 3]) == pytest.approx([1 / 2, 1 / 2, 0])
    assert h.mean() == pytest.approx(1.5)


def test_hits_to_kill_against_sampled_hit_sequences():
    d = damage("pikeman", "heavy infantry")
    h = hits_to_kill("pikeman", "heavy infantry")
    n, k = 50_000, 200
    hits = d.sample(n * k, seed=5).reshape(n, k)
    dead = np.cumsum(hits, axis=1) >= d.target.hp
    assert dead[:, -1].all()  # 200 hits always suffice here
    assert_matches(dead.argmax(axis=1) + 1, h)


def test_hits_to_kill_refuses_impossible():
    with pytest.raises(mc.InputError, match="never damage"):
        hits_to_kill("fire drake.fire breath", "fire drake")


# -- reports ------------------------------------------------------------------
def test_damage_table_rows_agree_with_damage():
    from montecarlo.coe5.reports import DAMAGE_COLUMNS, damage_heatmap, damage_table

    table = damage_table(["pikeman", "knight"], ["militia", "knight", "giant spider"])
    assert list(table.columns) == DAMAGE_COLUMNS
    assert len(table) == (1 + 3) * 3  # one row per (weapon, defender)
    row = table.query("attacker == 'Pikeman' and defender == 'Militia'").iloc[0]
    d = damage("pikeman", "militia")
    assert row["mean"] == pytest.approx(d.mean())
    # militia hp 10: half is 5, P(D >= 5) for OED(5) = P(T >= 5) = 1/5
    assert row["p_half_hp"] == pytest.approx(1 / 5)
    assert row["p_zero"] == 0.0
    assert row["hits_to_kill"] == pytest.approx(hits_to_kill("pikeman", "militia").mean())
    fig = damage_heatmap(table, "hits_to_kill")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "defender" and ax.get_title()


def test_overlay_plot_has_legend():
    from montecarlo.plotting import plot_overlay

    fig = plot_overlay([damage("pikeman", "knight"), damage("knight.lance", "knight")])
    pmf_ax, cdf_ax = fig.axes
    assert pmf_ax.get_legend() is not None and cdf_ax.get_ylabel()
