"""Pins for CoE5 rules that one-line changes slipped past (RULES.md C-4.2, C-4.8, C-4.9,
C-7.4, C-8.10).

An outsider broke each of these rules with one careless edit, made in both battle
kernels at once, and the suite still passed.  Each test here checks what any
correct realisation of the rule must do, from the batch kernel's per-battle record
(``_debug=True``): an exact distribution derived from the rule where one exists, an
invariant that must hold in every battle otherwise, and a control run with the
rule's trigger switched off, which shows the test could fail.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

import montecarlo as mc
from kernels.coe5_battle import D_HP, D_PART, D_STATE, D_STATUS, D_X, D_Y, S_PARALYSED
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.units import Unit, Weapon
from montecarlo.distribution import Distribution
from tests.helpers import assert_matches

NOTHING = Weapon("Nothing", mc.parse_die(0))


def weapon(name: str, die, **kw) -> Weapon:
    return Weapon(name, mc.parse_die(die), **kw)


def battle(att, dfd, rules: BattleRules, trials: int = 4000, **kw):
    """Battles with the per-battle record kept; ``att``/``dfd`` are (unit, count) lists."""
    return matchup(att, dfd, trials=trials, seed=11, rules=rules, keep_trials=True,
                   progress=False, _debug=True, **kw)  # fmt: skip


def hp_lost(r, k: int) -> np.ndarray:
    return r.deployment.types[r.deployment.itype[k]].hp - r.trials.debug[:, k, D_HP]


# -- C-4.2: burning is reduced by fire resistance (and doubled first on the vulnerable) --------


def _burn_given_lit(resist: int, vulnerable: bool) -> Distribution:
    """One round's burn after a hit that did damage, with ``burn_chance`` 1 (C-4.2).

    The target starts burning with chance (100 - resist)/100; a burning unit then
    takes OED(3) fire at step 9, doubled if vulnerable, times (100 - resist)/100
    rounded down.
    """
    factor = 2 if vulnerable else 1
    burn = mc.oed(3).map(lambda t: (factor * t * (100 - resist)) // 100)
    ignite = (100 - resist) / 100
    return Distribution.mixture([1 - ignite, ignite], [Distribution.point(0), burn])


@pytest.mark.parametrize(
    ("resist", "vulnerable"), [(50, False), (25, False), (50, True)], ids=["res50", "res25", "vuln"]
)
def test_c4_2_burning_damage_is_reduced_by_fire_resistance(resist, vulnerable):
    torch = Unit("Torch", 10, (weapon("Torch", "1-6", type="fire", nostr=True),))
    post = Unit("Post", 1000, (NOTHING,), immobile=True, resist={"fire": resist},
                vulnerable=("fire",) if vulnerable else ())  # fmt: skip
    r = battle([(torch, 1)], [(post, 1)], BattleRules(max_rounds=1, burn_chance=1.0),
               trials=20_000, length=2)  # fmt: skip
    dealt = r.trials.dealt[:, 0]
    burn = hp_lost(r, 1) - dealt
    assert (dealt >= 1).all()  # the immobile post takes +1: every hit does damage
    assert_matches(burn, _burn_given_lit(resist, vulnerable))


# -- C-4.8: a hit of decay damage leaves the target decaying -----------------------------------


def test_c4_8_a_decay_hit_leaves_the_target_decaying():
    rot = Unit("Rot", 1000, (weapon("Rot", "1-4", type="decay", nostr=True),))
    dummy = Unit("Dummy", 1000, (NOTHING,), immobile=True)
    r = battle([(rot, 1)], [(dummy, 1)], BattleRules(max_rounds=1), length=2)
    dealt = r.trials.dealt[:, 0]
    # Step 9 of the same round: one more HP for every decaying unit, armour ignored.
    assert ((hp_lost(r, 1) - dealt) == (dealt >= 1)).all()
    assert (dealt >= 1).mean() > 0.5
    # Three rounds: decay costs 1 HP at step 9 of each round from the first hit on.
    r3 = battle([(rot, 1)], [(dummy, 1)], BattleRules(max_rounds=3), length=2)
    extra = hp_lost(r3, 1) - r3.trials.dealt[:, 0]
    assert set(np.unique(extra)) <= {0, 1, 2, 3}
    assert (extra == 3).mean() > 0.5  # hurt in round 1 (the post takes +1: always)
    # Control: the same blows of a blunt weapon leave nothing behind.
    club = Unit("Club", 1000, (weapon("Club", "1-4", nostr=True),))
    plain = battle([(club, 1)], [(dummy, 1)], BattleRules(max_rounds=3), length=2)
    assert (hp_lost(plain, 1) == plain.trials.dealt[:, 0]).all()


# -- C-4.9: a paralysed unit does not move (C-8.3) ---------------------------------------------


def _walker_against_gorgon(paralysis_end: float, rounds: int):
    gaze = weapon("Gaze", "1-3", type="paralysis", range=30, initiative=6)
    gorgon = Unit("Gorgon", 1000, (gaze,), immobile=True)
    walker = Unit("Walker", 1000, (NOTHING,), mr=0)  # MR 0: never resists (C-2.2)
    rules = BattleRules(max_rounds=rounds, paralysis_end=paralysis_end)
    return battle([(gorgon, 1)], [(walker, 1)], rules, trials=500, width=3, length=20)


def test_c4_9_a_paralysed_unit_does_not_move():
    # The walker moves at step 3 of round 1, then the gaze (range 30) paralyses it at
    # step 8; paralysis never ends, so it stands where round 1 left it.
    one = _walker_against_gorgon(0.0, 1)
    five = _walker_against_gorgon(0.0, 5)
    assert (five.trials.debug[:, 1, D_STATUS] & S_PARALYSED).all()
    for col in (D_X, D_Y):
        assert (five.trials.debug[:, 1, col] == one.trials.debug[:, 1, col]).all()
    # Control: paralysis that ends at once (step 9) lets it walk on every round.
    freed = _walker_against_gorgon(1.0, 5)
    assert (freed.trials.debug[:, 1, D_X] == one.trials.debug[:, 1, D_X] - 4).all()


# -- C-7.4: siege tunnellers surface next to an enemy ------------------------------------------


def test_c7_4_tunnellers_surface_next_to_an_enemy():
    # Nobody moves or hurts: where the tunnellers stand after round 1 is where they surfaced.
    mole = Unit("Mole", 1000, (NOTHING,), immobile=True, siege_tunneling=True)
    guard = Unit("Guard", 1000, (NOTHING,), immobile=True)
    rules = BattleRules(max_rounds=1)
    r = battle([(mole, 3)], [(guard, 6)], rules, trials=1000, siege=True, fort=1,
               width=10, length=20)  # fmt: skip
    itype = r.deployment.itype
    side = np.asarray([r.deployment.types[t].name == "Mole" for t in itype])
    dx = r.trials.debug[:, side, D_X][:, :, None] - r.trials.debug[:, ~side, D_X][:, None, :]
    dy = r.trials.debug[:, side, D_Y][:, :, None] - r.trials.debug[:, ~side, D_Y][:, None, :]
    nearest = np.maximum(np.abs(dx), np.abs(dy)).min(axis=2)  # Chebyshev distance (C-6)
    assert (nearest == 1).all()
    # Control: with tunnelling off the moles stay at their own edge, far from every guard.
    stay = battle([(mole, 3)], [(guard, 6)], BattleRules(max_rounds=1, tunnelling="none"),
                  trials=50, siege=True, fort=1, width=10, length=20)  # fmt: skip
    assert (stay.trials.debug[:, side, D_X] == 0).all()


# -- C-8.10 with C-4.5: a poison cloud's damage goes into the poison pool -----------------------


def _in_a_cloud(kind: str, rounds: int, trials: int = 20_000):
    fog = weapon("Fog", "1-20", type=kind, cloud=True, nostr=True, initiative=6)
    censer = Unit("Censer", 1000, (fog,), immobile=True)
    post = Unit("Post", 1000, (NOTHING,), immobile=True)
    rules = BattleRules(max_rounds=rounds, cloud_clear=0.0)
    return battle([(censer, 1)], [(post, 1)], rules, trials=trials, length=2)


def test_c8_10_a_poison_cloud_feeds_the_poison_pool():
    # Round 1: the cloud forms at step 8, its damage goes into the pool at step 10:
    # no HP lost yet.  Round 2, step 9: the pool costs max(1, pool // 10) HP (C-4.5).
    one = _in_a_cloud("poison", 1, trials=2000)
    assert (hp_lost(one, 1) == 0).all()
    two = _in_a_cloud("poison", 2)
    fog = one.deployment.types[one.deployment.itype[0]].weapons[0]
    post = one.deployment.types[one.deployment.itype[1]]
    first = mc.damage(fog, post)  # the cloud's damage on the post (C-3)
    rules = BattleRules()
    expected = first.map(lambda d: np.where(d >= 1, np.maximum(1, d // rules.poison_divisor), 0))
    assert_matches(hp_lost(two, 1), expected)
    # Control: a slashing cloud hurts at step 10 of round 1 already.
    assert (hp_lost(_in_a_cloud("slash", 1, trials=2000), 1) > 0).mean() > 0.5


# == What the blind mutation list (tools/mutations/coe5_blind.toml) found unpinned ===============


def soed_rule(n: int, dice: int, levels: int = 80) -> Distribution:
    """S-OED(n) of C-1.6, ``dice`` of them summed, written out from the rule.

    A first roll r < n is the result.  After a first n, every further n adds n - 1,
    and the first roll u < n adds u - 1; those additions are summed and halved,
    rounded down, and added to n.  P(k further maxima, then u) = n^-(k+1) / n.
    """
    pmf: dict[int, float] = {r: 1 / n for r in range(1, n)}
    for k in range(levels):
        for u in range(1, n):
            value = n + (k * (n - 1) + (u - 1)) // 2
            pmf[value] = pmf.get(value, 0.0) + n ** -(k + 1) / n
    one = Distribution([pmf.get(v, 0.0) for v in range(max(pmf) + 1)])
    total = one
    for _ in range(dice - 1):
        total = total.convolve(one)
    return total


@pytest.mark.parametrize(("difficulty", "n", "dice"), [("easy", 5, 1), ("normal", 4, 2),
                                                       ("hard", 6, 2)])  # fmt: skip
def test_c2_1_difficulty_sets_the_dice(difficulty, n, dice):
    expected = soed_rule(n, dice)
    exact = mc.check_roll(difficulty)
    support = np.arange(0, 40)
    np.testing.assert_allclose(exact.pmf(support), expected.pmf(support), atol=1e-12)
    assert_matches(exact.sample(100_000, seed=21), expected)  # the kernel's own check roll


def test_c4_9_a_paralysed_target_is_helpless():
    # The gaze (initiative 6) paralyses a unit of MR 0 every time (C-2.2); the club
    # (initiative 3) then meets a unit that cannot move: +1 at C-3 step 3.  Without
    # armour or shield the club's damage is OED(4) + 1, against OED(4) when MR 100
    # resists every gaze.
    gaze = weapon("Gaze", "1-3", type="paralysis", initiative=6)
    club = weapon("Club", "1-4", initiative=3, nostr=True)
    gorgon = Unit("Gorgon", 1000, (gaze, club))
    for mr, expected in ((0, mc.oed(4) + 1), (100, mc.oed(4))):
        target = Unit("Target", 1000, (NOTHING,), mr=mr)
        r = battle([(gorgon, 1)], [(target, 1)], BattleRules(max_rounds=1), trials=20_000,
                   length=2)  # fmt: skip
        assert_matches(r.trials.dealt[:, 0], expected)


def test_c6_each_role_is_dealt_out_as_a_uniform_permutation():
    # Three melee types written a, b, c: every order of them in the three melee slots
    # is equally likely in each battle [default shuffle_deployment], the written one too.
    kinds = [Unit(name, 1000, (NOTHING,)) for name in ("A", "B", "C")]
    r = battle([(u, 1) for u in kinds], [(Unit("Post", 1000, (NOTHING,), immobile=True), 1)],
               BattleRules(max_rounds=1), trials=6000, length=4)  # fmt: skip
    parts = r.trials.debug[:, :3, D_PART]
    codes = parts[:, 0] * 9 + parts[:, 1] * 3 + parts[:, 2]
    perms = [a * 9 + b * 3 + c for a, b, c in itertools.permutations(range(3))]
    counts = np.array([(codes == p).sum() for p in perms])
    assert counts.sum() == r.n
    assert stats.chisquare(counts).pvalue > 1e-3
    written = BattleRules(max_rounds=1, shuffle_deployment=False)
    fixed = battle([(u, 1) for u in kinds], [(Unit("Post", 1000, (NOTHING,)), 1)], written,
                   trials=50, length=4)  # fmt: skip
    assert (fixed.trials.debug[:, :3, D_PART] == [0, 1, 2]).all()


@pytest.mark.parametrize("order", ["paired", "sides"])
def test_c8_3_every_unit_moves_whatever_the_sides_sizes(order):
    # Five walkers against one far post: the paired order (C-8.3 [default]) pairs
    # ranks while both sides have them, then lets the larger side's rest move too.
    # Everyone starts in the first column and is one column on after round 1.
    walker = Unit("Walker", 1000, (NOTHING,))
    post = Unit("Post", 1000, (NOTHING,), immobile=True)
    r = battle([(walker, 5)], [(post, 1)], BattleRules(max_rounds=1, move_order=order),
               trials=200, width=10, length=20)  # fmt: skip
    assert (r.trials.debug[:, :5, D_X] == 1).all()


# -- C-9: the outcome counts what happened to each army part ------------------------------------


def test_c9_damage_dealt_is_the_hp_removed():
    # A huge club on 3-HP targets: a side's damage dealt counts the HP each hit took
    # away, never the overkill.
    brute = Unit("Brute", 1000, (weapon("Club", "1-100", nostr=True),))
    mouse = Unit("Mouse", 3, (NOTHING,))
    r = battle([(brute, 1)], [(mouse, 2)], BattleRules(max_rounds=3), trials=2000, length=2)
    removed = sum(3 - np.maximum(r.trials.debug[:, k, D_HP], 0) for k in (1, 2))
    np.testing.assert_array_equal(r.trials.dealt[:, 0], removed)
    assert (removed == 6).mean() > 0.5


def test_c9_survivors_and_routed_are_counted_per_army_part():
    # The same two unit types on both sides: four army parts, two unit types, so a
    # count filed by type instead of part lands on the wrong side.
    ghost = Unit("Ghost", 1000, (NOTHING,), fear=3, morale=99)
    coward = Unit("Coward", 1000, (NOTHING,), morale=2)
    army = [(ghost, 2), (coward, 3)]
    r = battle(army, army, BattleRules(max_rounds=12), trials=1000, length=6)
    assert len(r.deployment.types) == 2 and r.trials.routed.shape[1] == 4
    parts = r.trials.debug[:, :, D_PART]
    state = r.trials.debug[:, :, D_STATE]
    for k in range(4):
        np.testing.assert_array_equal(r.trials.routed[:, k], ((parts == k) & (state == 2)).sum(1))
        np.testing.assert_array_equal(r.trials.survivors[:, k],
                                      ((parts == k) & (state == 0)).sum(1))  # fmt: skip
    assert r.trials.routed[:, 3].sum() > 0  # the defender's cowards rout too


# -- C-10: a user's roster is merged over the shipped one ----------------------------------------


def test_c10_a_users_unit_replaces_the_shipped_one_of_the_same_name(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text(
        '[[unit]]\nname = "Pikeman"\nhp = 99\n[[unit.weapons]]\nname = "Pike"\ndamage = "1-5"\n'
    )
    shipped = mc.load_units()
    merged = mc.load_units(mine)
    assert merged["pikeman"].hp == 99 != shipped["pikeman"].hp
    assert set(shipped) <= set(merged)
