"""The indexed battle kernel plays the very same battles as the reference (issue 13).

``kernels.coe5_battle`` finds enemies through the grid (summed-area tables for
the nearest enemy of C-8.3: the smallest box that holds one, then bisection to
the r-th in tile order; boxes for the targets of C-5.1; the 8 tiles around for
the fear of C-8.5); ``kernels.coe5_battle_ref``
scans every unit.  Both must make
the same draws in the same order, so with one seed every battle ends the same:
same outcome, rounds and damage, and the same per-unit record (final HP,
state, tile, status, and the event numbers of every death, rout and attack).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numba import njit

import montecarlo as mc
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.units import Unit, Weapon, load_units

ROSTER = load_units()
SPEAR = Weapon("Spear", mc.parse_die("1-6"))
BURROWER = Unit("Burrower", 12, (SPEAR,), combat_burrowing=True)
TUNNELLER = Unit("Sapper", 10, (SPEAR,), siege_tunneling=True)
WAND_MAGE = Unit(
    "Wand mage",
    9,
    (Weapon("Wand", mc.parse_die("1-6"), type="fire", range=6, wand=True), SPEAR),
)  # C-8.7: wands attack first, so the attack order mixes wand and initiative groups
CLOUD = Unit(
    "Cloud mage", 8, (Weapon("Stink cloud", mc.parse_die("1-4"), type="poison", range=6,
                             cloud=True), SPEAR),
)  # fmt: skip
DAGGER = Weapon("Dagger", mc.parse_die("1-3"), initiative=4)
SLINGER = Unit(
    "Slinger", 8, (Weapon("Sling", mc.parse_die("1-4"), range=4, shots=3, reload=1,
                          initiative=5), DAGGER),
)  # fmt: skip
# C-5.1, C-5.2: shots that may be left out of the attack order (no enemy in range) come
# three a round from one weapon, and weapons reload; every one of them draws its tie.
SHARPSHOOTER = Unit(
    "Sharpshooter", 8, (Weapon("Arbalest", mc.parse_die("1-6"), range=40, reload=2,
                               initiative=2),
                        Weapon("Shortbow", mc.parse_die("1-3"), range=3, shots=2), DAGGER),
)  # fmt: skip


def r(name: str) -> Unit:
    return ROSTER[name]


# (id, attacker, defender, trials, options).  Sizes 1 to 200 per side; both C-8.3
# move orders, and movers choosing from the snapshot or from the live positions.
CASES = [
    ("1v1", [(r("pikeman"), 1)], [(r("pikeman"), 1)], 512, {}),
    ("10v3-fast", [(r("militia"), 10)], [(r("knight"), 3)], 512, {}),
    (
        "archers-50v50",
        [(r("militia"), 30), (r("archer"), 20)],
        [(r("heavy infantry"), 30), (r("archer"), 20)],
        64,
        {},
    ),
    (
        "fear-and-effects",
        [(r("wraith"), 4), (r("abomination"), 3), (r("fire drake"), 3)],
        [(r("troll"), 4), (r("ghoul"), 6), (r("storm spirit"), 3), (r("giant spider"), 4)],
        256,
        {},
    ),
    (
        "fear-strongest",
        [(r("wraith"), 5), (r("abomination"), 5)],
        [(r("militia"), 25)],
        256,
        {"rules": BattleRules(fear_checks="strongest")},
    ),
    (
        "first-nearest",
        [(r("militia"), 20), (r("archer"), 5)],
        [(r("pikeman"), 20)],
        128,
        {"rules": BattleRules(random_nearest=False, sidestep=False)},
    ),
    (
        "siege",
        [(r("catapult"), 2), (r("heavy infantry"), 15), (TUNNELLER, 3)],
        [(r("archer"), 8), (r("pikeman"), 12)],
        128,
        {"siege": True, "fort": 3},
    ),
    (
        "siege-in-range",
        [(r("archer"), 10), (r("militia"), 10)],
        [(r("archer"), 6)],
        128,
        {
            "siege": True,
            "fort": 1,
            "rules": BattleRules(siege_bombardment=False, tunnelling="both"),
        },
    ),
    (
        "burrowers-clouds-assassins",
        [(BURROWER, 6), (r("assassin"), 3), (CLOUD, 2)],
        [(r("skeleton"), 12), (BURROWER, 2)],
        256,
        {},
    ),
    (
        "50v50-live-positions",
        [(r("militia"), 30), (r("archer"), 20)],
        [(r("pikeman"), 50)],
        32,
        {"rules": BattleRules(simultaneous_moves=False)},
    ),
    (
        "40v40-sides",
        [(r("militia"), 40)],
        [(r("heavy infantry"), 30), (r("archer"), 10)],
        32,
        {"rules": BattleRules(move_order="sides")},
    ),
    (
        "fast-sides-live",
        [(r("militia"), 10), (BURROWER, 2)],
        [(r("knight"), 3), (r("wraith"), 1)],
        256,
        {"rules": BattleRules(move_order="sides", simultaneous_moves=False)},
    ),
    (
        "60v60-burrowers-fast-live",
        [(r("militia"), 50), (BURROWER, 10)],
        [(r("knight"), 20), (r("pikeman"), 40)],
        16,
        {"rules": BattleRules(simultaneous_moves=False)},
    ),
    (
        "60v60-burrowers-fast",
        [(r("militia"), 50), (BURROWER, 10)],
        [(r("knight"), 20), (r("pikeman"), 40)],
        16,
        {},
    ),
    (
        "target-at-order",
        [(r("militia"), 20), (r("archer"), 10)],
        [(r("pikeman"), 15), (r("archer"), 10)],
        64,
        {"rules": BattleRules(target_draw="order")},
    ),
    (
        "70v70-20x30",
        [(r("militia"), 50), (r("archer"), 20)],
        [(r("pikeman"), 50), (r("archer"), 20)],
        8,
        {"width": 20, "length": 30},
    ),
    (
        # Many archers: the targets of shots by the bitset of a clipped box and
        # by the scan of the enemy's slots; knights' three initiatives and wands
        # give the attack order several groups.
        "many-archers-wands-60v60",
        [(WAND_MAGE, 8), (r("archer"), 40), (r("knight"), 12)],
        [(r("archer"), 45), (r("pikeman"), 15)],
        16,
        {},
    ),
    (
        # Grids one and two rows wide: the searches' boxes and rings clipped on
        # both sides at once, the summed-area tables at their smallest.
        "narrow-1x12",
        [(r("militia"), 4)],
        [(r("pikeman"), 3)],
        128,
        {"width": 1, "length": 12},
    ),
    (
        "narrow-2x10-archers",
        [(r("militia"), 5), (r("archer"), 2)],
        [(r("heavy infantry"), 4), (r("archer"), 2)],
        128,
        {"width": 2, "length": 10},
    ),
    (
        # The widest grid for column bitsets (62 rows, bits 0..61 used): a full first
        # rank of archers; and one row more, where shots read tiles or scan slots.
        "archers-62-wide",
        [(r("archer"), 70)],
        [(r("militia"), 40), (r("archer"), 30)],
        16,
        {"width": 62, "length": 12},
    ),
    (
        "archers-63-wide",
        [(r("archer"), 70)],
        [(r("militia"), 40), (r("archer"), 30)],
        16,
        {"width": 63, "length": 12},
    ),
    (
        "multishot-reloading-shooters",
        [(r("militia"), 15), (SLINGER, 10)],
        [(r("pikeman"), 15), (SHARPSHOOTER, 6)],
        64,
        {},
    ),
    (
        "multishot-reloading-shooters-order",
        [(r("militia"), 15), (SLINGER, 10)],
        [(r("pikeman"), 15), (SHARPSHOOTER, 6)],
        64,
        {"rules": BattleRules(target_draw="order")},
    ),
    (
        "siege-shooters-on-the-wall",  # C-5.4: the wall's range bonus, no bombardment
        [(r("militia"), 20), (SLINGER, 6)],
        [(SLINGER, 6), (SHARPSHOOTER, 4), (r("pikeman"), 6)],
        64,
        {"siege": True, "fort": 3, "rules": BattleRules(siege_bombardment=False)},
    ),
    (
        "200v200-30x40",
        [(r("militia"), 150), (r("archer"), 50)],
        [(r("heavy infantry"), 150), (r("archer"), 50)],
        2,
        {"width": 30, "length": 40},
    ),
]


def play(att, dfd, trials, reference, options):
    return matchup(att, dfd, trials=trials, seed=13, progress=False, keep_trials=True,
                   _debug=True, _reference=reference, **options)  # fmt: skip


@pytest.mark.parametrize(("att", "dfd", "trials", "options"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])  # fmt: skip
def test_indexed_kernel_plays_the_reference_battles(att, dfd, trials, options):
    fast = play(att, dfd, trials, False, options)
    ref = play(att, dfd, trials, True, options)
    for f in dataclasses.fields(ref.trials):
        np.testing.assert_array_equal(getattr(fast.trials, f.name), getattr(ref.trials, f.name),
                                      err_msg=f.name)  # fmt: skip
    np.testing.assert_array_equal(fast.totals.rounds, ref.totals.rounds)


def test_the_cases_are_not_trivial():
    # Guard against a set of battles that never exercise the searches: the big
    # battles last many rounds and both sides win some of the small ones.
    fast = play(*CASES[0][1:4], False, {})
    assert 0 < fast.totals.outcome[0] < fast.n
    big = play(*CASES[-1][1:4], False, CASES[-1][4])
    assert big.trials.rounds.min() > 5


def test_battles_do_not_depend_on_how_chunks_are_grouped_into_calls(monkeypatch):
    # Issue 12: battle k of a chunk draws from (chunk key, k).  The driver groups
    # chunks into calls by wall time (driver._Pacer), so a stream that depended
    # on a chunk's place in its call would make results depend on the machine.
    import montecarlo.driver as driver

    def one_chunk_per_call(self, chunks, seconds):
        self.chunks = 1

    kw = {"trials": 2500, "seed": 3, "progress": False, "keep_trials": True}
    paced = matchup("militia:8,archer:4", "heavy infantry:4", **kw)
    monkeypatch.setattr(driver._Pacer, "record", one_chunk_per_call)
    single = matchup("militia:8,archer:4", "heavy infantry:4", **kw)
    np.testing.assert_array_equal(paced.trials.dealt, single.trials.dealt)
    np.testing.assert_array_equal(paced.trials.rounds, single.trials.rounds)


def _attack_keys(rng, m, tie_bits):
    # Steps 6-7: -((wand << 50) + (init << 36) + tie), as run_chunks makes them.
    wand = rng.integers(0, 2, m)
    init = rng.integers(-2, 12, m)
    tie = rng.integers(0, 1 << tie_bits, m)
    return -((wand << 50) + (init << 36) + tie)


@pytest.mark.parametrize("tie_bits", [32, 2])
def test_attack_order_is_a_sort_with_equal_keys_by_index(tie_bits):
    # The bucket sort that replaced np.argsort for the attack order: with 2-bit
    # ties most keys collide, and they go by index, as in the reference's stable
    # argsort (Numba's mergesort, compiled here as the reference compiles it).
    from kernels.coe5_battle import _attack_order
    from kernels.jit import from_python

    attack_order = from_python(_attack_order)
    rng = np.random.default_rng(5)
    for m in (0, 1, 2, 15, 16, 17, 150, 400):
        key = _attack_keys(rng, m + 3, tie_bits)  # the array outlives the m attacks
        scratch = np.empty((6, key.shape[0] + 1), np.int64)
        got = attack_order(key, m, scratch)[:m]
        np.testing.assert_array_equal(got, np.argsort(key[:m], kind="stable"))
        np.testing.assert_array_equal(got, _reference_order(key[:m].copy()))


@njit(cache=True)
def _reference_order(keys):
    return np.argsort(keys, kind="mergesort")  # the line of kernels/coe5_battle_ref.py
