"""CoE5 dice: OED, S-OED, kDN and damage strings (RULES.md C-1)."""

from fractions import Fraction

import numpy as np
import pytest

import montecarlo as mc
from tests.helpers import assert_matches


# -- C-1.1 / C-1.6: the seed's worked examples ------------------------------
def test_seed_example_oed():
    # C-1.1: 5, 5, 5, 4 on d5 -> 5 + 4 + 4 + 3 = 16
    assert mc.score_oed([5, 5, 5, 4], 5) == 16


def test_seed_example_soed():
    # C-1.6: 5, 5, 5, 4 on d5 -> 5 + floor((4 + 4 + 3) / 2) = 10
    assert mc.score_soed([5, 5, 5, 4], 5) == 10


@pytest.mark.parametrize("rolls", [[5, 5], [6], [0], [4, 4], []])
def test_scoring_rejects_impossible_chains(rolls):
    with pytest.raises(mc.InputError):
        mc.score_oed(rolls, 5)


# -- C-1.2: the closed form --------------------------------------------------
def _brute_force_oed(n: int, max_total: int) -> dict[int, Fraction]:
    """P(T = t) by enumerating roll chains with exact fractions (C-1.1 literally)."""
    probs: dict[int, Fraction] = {}
    frontier = [(0, Fraction(1))]  # (running total, probability) of chains still rolling
    while frontier:
        nxt = []
        for total, p in frontier:
            for face in range(1, n + 1):
                # the first roll counts in full, later ones count face - 1
                value = total + (face if total == 0 else face - 1)
                q = p / n
                if value > max_total:
                    continue
                if face == n:
                    nxt.append((value, q))
                else:
                    probs[value] = probs.get(value, 0) + q
        frontier = nxt
    return probs


@pytest.mark.parametrize("n", range(2, 21))
def test_closed_form_pmf(n):
    dist = mc.oed(n)
    t = np.arange(1, 4 * n)
    closed = float(n) ** -((t - 1) // (n - 1) + 1)  # C-1.2
    np.testing.assert_allclose(dist.pmf(t), closed, rtol=1e-12)
    brute = _brute_force_oed(n, 3 * n)
    for value, p in brute.items():
        assert dist.pmf(value) == pytest.approx(float(p), rel=1e-12)
    assert dist.mean() == pytest.approx((n + 2) / 2, rel=1e-10)
    assert dist.var() == pytest.approx(n * (n + 10) / 12, rel=1e-9)
    assert dist.tail < 1e-12
    assert dist.probabilities.sum() + dist.tail == pytest.approx(1.0, abs=1e-14)


def test_damage_one_rule():
    # C-1.3: half the time 1, half the time OED(2)
    d = mc.oed(1)
    assert d.pmf(1) == pytest.approx(0.5 + 0.5 * 0.5)
    assert d.pmf(2) == pytest.approx(0.5 * 0.25)
    assert d.mean() == pytest.approx(0.5 * 1 + 0.5 * 2)


@pytest.mark.parametrize("text", ["1-3 (-3)", "1-2(-5)", 0])
def test_die_of_size_zero_or_less_rolls_zero(text):
    # C-1.4 [default]
    d = mc.oed(text)
    assert d.pmf(0) == 1.0
    assert (d.sample(1000, seed=1) == 0).all()


@pytest.mark.parametrize("text", ["1-3 (-3)", 0])
def test_c1_4_nonpositive_one_rolls_as_a_die_of_size_1(text):
    # C-1.4 [default] "zero"; the alternative rolls as size 1 (C-1.3: half 1, half OED(2)).
    d = mc.oed(text, nonpositive="one")
    assert d.pmf(0) == 0.0
    assert d.pmf(1) == pytest.approx(0.5 + 0.5 * 0.5)
    assert mc.soed(text, nonpositive="one").mean() > 1.0


def _together_by_hand(n: int, k: int, size: int, seed: int) -> np.ndarray:
    """C-1.7 "together", rolled the slow way: k plain dice again while all show n."""
    rng = np.random.default_rng(seed)
    out = np.empty(size, np.int64)
    for i in range(size):
        total, penalty = 0, 0
        while True:
            roll = rng.integers(1, n + 1, size=k)
            total += int(roll.sum()) - penalty
            if (roll < n).any():
                break
            penalty = k  # each die of a further roll counts 1 less
        out[i] = total
    return out


@pytest.mark.parametrize(("n", "k"), [(2, 2), (3, 3), (5, 2)])
def test_c1_7_dice_open_ended_together(n, k):
    d = mc.oed(n, dice=k, open_ended="together")
    assert d.probabilities.sum() + d.tail == pytest.approx(1.0, abs=1e-12)
    assert_matches(_together_by_hand(n, k, 20_000, seed=n * 10 + k), d)
    assert_matches(d.sample(20_000, seed=1), d)
    # the default reading (each die on its own) is another law
    assert abs(mc.oed(n, dice=k).mean() - d.mean()) > 0.05


def test_c1_7_together_is_plain_oed_for_one_die():
    one = mc.oed(5, open_ended="together")
    assert np.allclose(one.probabilities, mc.oed(5).probabilities)


@pytest.mark.parametrize(
    ("text", "size"),
    [("1-5", 5), ("1-5 (+10)", 15), ("1-5(+10)", 15), ("1 - 5 ( +10 )", 15), ("1", 1), (7, 7)],
)
def test_damage_strings(text, size):
    # C-1.5: the bonus is added to the die size before rolling
    assert mc.parse_die(text).size == size


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1-x", "not a damage die"),
        ("5-1", "below the lower end"),
        ("2-5", "starts at 1"),
        ("d6", "not a damage die"),
        ("", "not a damage die"),
        (-3, "cannot be negative"),
        (2.5, "must be text"),
    ],
)
def test_bad_damage_strings(text, message):
    with pytest.raises(mc.InputError, match=message):
        mc.parse_die(text)


def test_soed_equivalent_form():
    # C-1.6: (n-1)/n on the first roll r < n, else n + floor((T' - 1) / 2)
    n = 5
    d = mc.soed(n)
    oed = mc.oed(n)
    for r in range(1, n):
        assert d.pmf(r) == pytest.approx(1 / n)
    for k in range(0, 20):
        expected = sum(oed.pmf(t) for t in (2 * k + 1, 2 * k + 2)) / n
        assert d.pmf(n + k) == pytest.approx(expected, rel=1e-12)


def test_several_dice_convolve():
    # C-1.7 [default]: each die open-ended on its own, then summed
    two = mc.oed(4, dice=2)
    one = mc.oed(4)
    for total in range(2, 15):
        expected = sum(one.pmf(a) * one.pmf(total - a) for a in range(1, total))
        assert two.pmf(total) == pytest.approx(expected, rel=1e-12)
    assert two.mean() == pytest.approx(2 * (4 + 2) / 2, rel=1e-10)


# -- sampled against exact ---------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: mc.oed(2),
        lambda: mc.oed(5),
        lambda: mc.oed("1-5 (+10)"),
        lambda: mc.oed(1),
        lambda: mc.oed(300),  # larger than the level table: loop fallback
        lambda: mc.oed(3, dice=3),
        lambda: mc.soed(5),
        lambda: mc.soed(1),
        lambda: mc.soed(6, dice=2),
    ],
)
def test_sampled_matches_exact(make):
    dist = make()
    assert_matches(dist.sample(400_000, seed=2024), dist)


def test_sampling_test_can_fail():
    # The agreement test must reject a near miss: OED(5) samples vs OED(6).
    samples = mc.oed(5).sample(200_000, seed=1)
    with pytest.raises(AssertionError):
        assert_matches(samples, mc.oed(6))


# -- distribution object ------------------------------------------------------
def test_distribution_interface():
    d = mc.oed(5)
    assert d.cdf(d.support[-1]) + d.tail == pytest.approx(1.0)
    assert d.cdf(0) == 0.0
    assert d.sf(4) == pytest.approx(0.2)  # P(T > 4) = P(first roll is 5)
    assert d.ppf(0.8) == 4
    assert d.ppf(0.0) == 1
    assert d.median() == 3
    assert d.std() == pytest.approx(np.sqrt(5 * 15 / 12))
    frame = d.to_frame()
    assert list(frame.columns) == ["value", "probability", "cdf"]
    assert frame["probability"].sum() == pytest.approx(1.0)
    with pytest.raises(mc.InputError):
        d.ppf(1.5)
    with pytest.raises(mc.InputError, match="positive integer"):
        d.sample(0)
    with pytest.raises(mc.InputError, match="dice"):
        mc.oed(5, dice=0)


def test_plot_has_labels():
    ax = mc.oed(5).plot()
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    assert ax.get_legend() is not None
