"""Magic-resistance checks (C-2) and SF 2d6 checks (S-1.1)."""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

import montecarlo as mc
from montecarlo import sf
from tests.helpers import assert_matches, assert_rate

CHECK_DICE = {"easy": (5, 1), "normal": (4, 2), "hard": (6, 2)}


def _brute_force_soed(n: int, depth: int = 30) -> dict[int, float]:
    """S-OED(n) by enumerating every roll chain up to ``depth`` rolls (C-1.6 literally)."""
    probs: dict[int, float] = {}
    for length in range(1, depth + 1):
        # a chain is (length - 1) maxima followed by a non-maximum
        for last in range(1, n):
            rolls = [n] * (length - 1) + [last]
            value = mc.score_soed(rolls, n)
            probs[value] = probs.get(value, 0.0) + n**-length
    return probs


def _brute_force_resist(mr: int, difficulty: str) -> float:
    n, dice = CHECK_DICE[difficulty]
    one = _brute_force_soed(n)
    total = 0.0
    for values in product(one.items(), repeat=dice):
        if sum(v for v, _ in values) < mr:  # C-2.2: resisted iff roll < MR
            total += float(np.prod([p for _, p in values]))
    return total


@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
@pytest.mark.parametrize("mr", [0, 1, 2, 3, 5, 8, 10, 12, 15, 18, 25])
def test_resist_chance_against_enumeration(mr, difficulty):
    assert mc.resist_chance(mr, difficulty) == pytest.approx(
        _brute_force_resist(mr, difficulty), abs=1e-12
    )


def test_resist_equal_to_mr_fails():
    # C-2.2: a roll equal to MR is not a resist.  Easy 1d5: MR 1 resists nothing,
    # MR 2 resists only a roll of 1.
    assert mc.resist_chance(1, "easy") == 0.0
    assert mc.resist_chance(2, "easy") == pytest.approx(1 / 5)


def test_resist_sampled():
    rolls = mc.check_roll("normal").sample(200_000, seed=3)
    assert_matches(rolls, mc.check_roll("normal"))
    assert_rate(int((rolls < 10).sum()), rolls.size, mc.resist_chance(10))


def test_bad_mr_and_difficulty():
    with pytest.raises(mc.InputError, match="cannot be negative"):
        mc.resist_chance(-1)
    with pytest.raises(mc.InputError, match="unknown difficulty"):
        mc.resist_chance(5, "brutal")


def test_morale_failure():
    # C-2.4 [default]: fails when OED(d) > morale; 99 never fails
    assert mc.morale_failure_chance(99, 7) == 0.0
    assert mc.morale_failure_chance(4, 7) == pytest.approx(3 / 7)


# -- S-1.1 ---------------------------------------------------------------------
def test_sf_dramatic_example():
    odds = sf.check(0, 7)
    assert odds.dramatic == Fraction(1, 36)
    assert odds.fumble == Fraction(1, 36)
    assert odds.p_success == Fraction(21, 36)  # 7+ on 2d6


def test_sf_automatic_results():
    # a double six succeeds even when the total cannot reach the target ...
    hopeless = sf.check(-10, 20)
    assert hopeless.auto_success == Fraction(1, 36) and hopeless.dramatic == 0
    assert hopeless.p_success == Fraction(1, 36)
    # ... and a double one fails even when the total would make it
    sure = sf.check(10, 5)
    assert sure.auto_failure == Fraction(1, 36) and sure.fumble == 0
    assert sure.p_failure == Fraction(1, 36)


# (-10, 20) and (10, 5): a double six that misses and a double one that makes the target
@pytest.mark.parametrize(("mod", "target"), [(0, 7), (3, 12), (-2, 4), (5, 9), (-10, 20), (10, 5)])
def test_sf_check_sampled(mod, target):
    odds = sf.check(mod, target).to_series()
    counts = sf.sample_check(mod, target, 300_000, seed=8)
    n = int(counts.sum())
    for outcome, p in odds.items():
        assert_rate(int(counts[outcome]), n, p)
