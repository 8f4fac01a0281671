"""CoE5 effects and missile rules inside battles (RULES.md C-4, C-5.1, C-5.2).

Each scenario runs one or a few rounds (``max_rounds`` ends the battle as a
timed-out draw, without the 75 extra rounds) and reads what happened from the
per-trial record.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import montecarlo as mc
from kernels.coe5_battle import D_HP
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.units import Unit, Weapon
from tests.helpers import assert_matches


def unit(name, hp, *weapons, **kw) -> Unit:
    return Unit(name, hp, tuple(weapons), **kw)


def weapon(name, die, **kw) -> Weapon:
    return Weapon(name, mc.parse_die(die), **kw)


POST = unit("Post", 1000, weapon("Nothing", 0), immobile=True)


def one_round(att, dfd, rules=None, trials=20_000, **kw):
    rules = rules or BattleRules(max_rounds=1)
    return matchup([(att, 1)], [(dfd, 1)], trials=trials, seed=8, length=2, rules=rules,
                   keep_trials=True, progress=False, _debug=True, **kw)  # fmt: skip


def hp_lost(r, k):
    return r.deployment.types[r.deployment.itype[k]].hp - r.trials.debug[:, k, D_HP]


def test_c4_2_burning_deals_oed3_fire_at_step_9():
    torch = unit("Torch", 10, weapon("Torch", "1-6", type="fire", nostr=True))
    r = one_round(torch, POST, BattleRules(max_rounds=1, burn_chance=1.0))
    burn = hp_lost(r, 1) - r.trials.dealt[:, 0]
    lit = r.trials.dealt[:, 0] >= 1
    assert_matches(burn[lit], mc.oed(3))  # the immobile post: +1 on the hit, not on the burn
    assert (burn[~lit] == 0).all()
    cold = one_round(torch, POST, BattleRules(max_rounds=1, burn_chance=0.0))
    assert (hp_lost(cold, 1) == cold.trials.dealt[:, 0]).all()


def test_c4_3_frozen_targets_take_one_more():
    # The cold touch (initiative 5) always hurts (C-1.3: damage value 1); the club
    # (initiative 3) then meets a frozen target: +1 at step 3.
    frost = unit("Frost", 10, weapon("Touch", 1, type="cold", initiative=5),
                 weapon("Club", "1-4", initiative=3))  # fmt: skip
    target = unit("Target", 1000, weapon("Nothing", 0))
    frozen = one_round(frost, target, BattleRules(max_rounds=1, freeze_chance=1.0))
    thawed = one_round(frost, target, BattleRules(max_rounds=1, freeze_chance=0.0))
    diff = frozen.trials.dealt[:, 0].mean() - thawed.trials.dealt[:, 0].mean()
    se = np.hypot(frozen.trials.dealt[:, 0].std(), thawed.trials.dealt[:, 0].std()) / np.sqrt(
        frozen.n
    )
    assert abs(diff - 1.0) < 4 * se


@pytest.mark.parametrize(("mr", "stunned"), [(0, True), (100, False)])
def test_c4_4_shock_stuns_unless_resisted(mr, stunned):
    # A shock hit (initiative 6) on a unit with MR 0 and strength 0 always stuns:
    # its own blow (initiative 2) never comes.  With MR 100 it always resists.
    zap = unit("Zap", 1000, weapon("Zap", "1-100", type="shock", initiative=6))
    brute = unit("Brute", 1000, weapon("Fist", "1-100", initiative=2), mr=mr)
    r = one_round(zap, brute)
    hurt = r.trials.dealt[:, 0] >= 1
    if stunned:
        assert (r.trials.dealt[hurt, 1] == 0).all()
    else:
        assert (r.trials.dealt[:, 1] > 0).mean() > 0.9


def test_c4_8_decay_costs_one_hp_a_round():
    rotting = unit("Rotting", 5, weapon("Nothing", 0), decay=True)
    dummy = unit("Dummy", 10, weapon("Nothing", 0))
    r = matchup([(rotting, 1)], [(dummy, 1)], trials=200, seed=1, progress=False)
    assert r.counts["defender"] == r.n
    assert r.rounds_pmf.index.tolist() == [5]


def test_c4_9_paralysis_stops_attacks():
    glue = unit("Glue", 1000, weapon("Sting", "1-3", type="paralysis", initiative=6))
    brute = unit("Brute", 1000, weapon("Fist", "1-100", initiative=2), mr=0)
    r = one_round(glue, brute)
    assert (r.trials.dealt[:, 1] == 0).all()  # never resisted at MR 0: never struck back
    assert (r.trials.dealt[:, 0] == 0).all()  # paralysis does no damage itself


def _archer_at_ten(die: str, rounds: int, trials: int) -> np.ndarray:
    """Damage an archer (range 5) deals a post 10 tiles away within ``rounds`` rounds."""
    archer = unit("Archer", 10, weapon("Bow", die, range=5, nostr=True))
    r = matchup([(archer, 1)], [(POST, 1)], trials=trials, seed=1, length=11, keep_trials=True,
                rules=BattleRules(max_rounds=rounds), progress=False)  # fmt: skip
    return r.trials.dealt[:, 0]


def test_c5_1_missiles_walk_into_range():
    # distance 10, range 5: four rounds of walking, the first shot in round 5
    assert (_archer_at_ten("1-1000", 4, 500) == 0).all()
    assert (_archer_at_ten("1-1000", 5, 500) > 0).all()


def test_c5_1_missiles_stop_at_range():
    # Distance 10, range 5: from round 5 the archer stands at 5 and shoots every
    # round.  One that walked on would stand next to the post from round 9, where
    # it cannot shoot (C-5.5), so rounds 9-12 would add nothing.
    dealt = lambda rounds: _archer_at_ten("1-3", rounds, 200)  # noqa: E731
    assert (dealt(12) - dealt(8) >= 4).all()  # four more shots, each at least 1


@pytest.mark.parametrize(("reload", "shots", "hits"), [(2, 1, 1), (0, 1, 3), (0, 2, 6)])
def test_c5_2_shots_and_reload(reload, shots, hits):
    # Three rounds at a post: reload 2 fires once, reload 0 fires every round,
    # two shots a round fire twice.  The damage dealt is that many hits' worth.
    sling = unit("Slinger", 10, weapon("Sling", "1-3", range=5, reload=reload, shots=shots))
    r = matchup([(sling, 1)], [(POST, 1)], trials=20_000, seed=2, length=4,
                rules=BattleRules(max_rounds=3), keep_trials=True, progress=False)  # fmt: skip
    one = mc.damage(sling.weapons[0], POST, distance=3)
    law = one
    for _ in range(hits - 1):
        law = law.convolve(one)
    assert_matches(r.trials.dealt[:, 0], law)


@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
def test_c2_3_strength_check_against_shock(difficulty):
    # MR 0 never resists, so the strength check alone decides (C-4.4 with C-2.3):
    # stunned, and its blow never comes, unless the check roll is below strength 4.
    zap = unit("Zap", 1000, weapon("Zap", "1-100", type="shock", initiative=6))
    brute = unit("Brute", 1000, weapon("Fist", "1-100", initiative=2), mr=0, strength=4)
    r = one_round(zap, brute, BattleRules(max_rounds=1, strength_check=difficulty))
    stunned = int((r.trials.dealt[:, 1] == 0).sum())
    p = 1 - mc.resist_chance(4, difficulty)  # resist_chance: P(roll < 4)
    lo, hi = stats.binom.interval(0.999, r.n, p)
    assert lo <= stunned <= hi


def test_c5_3_halving_the_final_damage_instead():
    bow = weapon("Bow", "1-4", range=5, rangepen=True)
    target = unit("Target", 100, weapon("Nothing", 0), armor=1)
    raw = mc.damage(bow, target, distance=5)
    final = mc.damage(bow, target, distance=5, long_range_halving="final")
    # by hand, OED(4) = T: raw gives max(ceil(T/2) - 1, 0), final ceil(max(T - 1, 0) / 2)
    assert raw.pmf(0) == pytest.approx(0.5)  # T <= 2
    assert final.pmf(0) == pytest.approx(0.25)  # T = 1
    assert final.pmf(1) == pytest.approx(0.5)  # T in {2, 3}
    assert_matches(final.sample(100_000, seed=3), final)
    archer = unit("Archer", 10, bow)
    r = matchup(
        [(archer, 1)],
        [(target, 1)],
        trials=20_000,
        seed=4,
        length=6,
        keep_trials=True,
        rules=BattleRules(max_rounds=1, long_range_halving="final"),
        progress=False,
    )
    assert_matches(r.trials.dealt[:, 0], final)


def test_c8_3_sidestep_rule_matters():
    crowd = dict(trials=2048, seed=3, progress=False)
    free = matchup("militia:20", "knight:3", rules=BattleRules(sidestep=True), **crowd)
    stuck = matchup("militia:20", "knight:3", rules=BattleRules(sidestep=False), **crowd)
    assert not np.array_equal(free.totals.rounds, stuck.totals.rounds)
    with pytest.raises(mc.InputError, match="long_range_halving"):
        matchup("militia:1", "knight:1", trials=10, rules=BattleRules(long_range_halving="x"))
