"""Newcombe's paired interval, the variance reduction and streamed paired moments.

Published figures, hand computations, exact coverage by enumeration of every
paired table, and a simulated coverage check.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

import montecarlo as mc
from montecarlo.paired import (
    PairedMoments,
    newcombe_independent,
    newcombe_paired,
    variance_reduction,
    wald_paired,
    wilson_bounds,
)
from montecarlo.stats import wilson


def test_published_example_cavo_2012():
    # Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency
    # Tables, ch. 8: complete response before/after consolidation therapy
    # (Cavo et al. 2012), table [[59, 6], [16, 80]]: estimate -0.0621,
    # Newcombe square-and-add 95% CI -0.1186 to -0.0046, Wald -0.1184 to -0.0058.
    lo, hi = newcombe_paired(59, 6, 16, 80)
    assert (round(float(lo), 4), round(float(hi), 4)) == (-0.1186, -0.0046)
    lo, hi = wald_paired(59, 6, 16, 80)
    assert (round(float(lo), 4), round(float(hi), 4)) == (-0.1184, -0.0058)


def test_hand_computed_example():
    # a=0, b=2, c=0, d=2 (n=4): p1 = 1/2, p2 = 0, a margin (a + c) is empty so
    # phi = 0.  Wilson for 2/4: centre 0.5, half 1.96/(1+z²/4)·sqrt(1/16+z²/64).
    z = stats.norm.ppf(0.975)
    half = z / (1 + z * z / 4) * np.sqrt(1 / 16 + z * z / 64)
    l1, u1 = 0.5 - half, 0.5 + half
    u2 = (z * z / 8) / (1 + z * z / 4) + z / (1 + z * z / 4) * np.sqrt(z * z / 64)
    lo, hi = newcombe_paired(0, 2, 0, 2)
    assert lo == pytest.approx(0.5 - np.sqrt((0.5 - l1) ** 2 + u2**2), abs=1e-12)
    assert hi == pytest.approx(0.5 + np.sqrt((u1 - 0.5) ** 2), abs=1e-12)


@pytest.mark.parametrize("k,n", [(0, 1), (0, 30), (7, 30), (30, 30), (1, 1000), (4999, 10000)])
def test_wilson_bounds_match_scipy(k, n):
    lo, hi = wilson_bounds(k, n)
    assert (float(lo), float(hi)) == pytest.approx(wilson(k, n), abs=1e-12)


def test_uncorrelated_tables_reduce_to_the_independent_interval():
    # ad - bc within [0, n/2]: Newcombe's corrected phi is 0.
    a, b, c, d = 10, 10, 10, 10
    paired = newcombe_paired(a, b, c, d)
    indep = newcombe_independent(a + b, 40, a + c, 40)
    assert np.allclose(paired, indep)


def test_no_discordant_pairs_gives_zero_difference_and_a_short_interval():
    lo, hi = newcombe_paired(300, 0, 0, 700)
    assert lo < 0 < hi and hi - lo < 0.01


def _coverage(n: int, cells: tuple[float, float, float, float], method) -> float:
    """Exact coverage: the probability of every paired table of size n times the hit."""
    tables = np.array(
        [(a, b, c, n - a - b - c) for a, b, c in itertools.product(range(n + 1), repeat=3)
         if a + b + c <= n]
    )  # fmt: skip
    prob = stats.multinomial.pmf(tables, n, cells)
    lo, hi = method(*tables.T)
    theta = cells[1] - cells[2]
    return float(prob[(lo <= theta + 1e-12) & (theta - 1e-12 <= hi)].sum())


CELLS = [
    (0.4, 0.1, 0.1, 0.4),
    (0.3, 0.2, 0.05, 0.45),
    (0.1, 0.05, 0.05, 0.8),
    (0.6, 0.02, 0.08, 0.3),
    (0.25, 0.25, 0.25, 0.25),
    (0.05, 0.1, 0.01, 0.84),
]


def test_exact_coverage_near_nominal():
    # Newcombe (1998) found method 10 close to nominal on average and on the
    # conservative side when discordant pairs are few; Wald under-covers small
    # tables.  n = 30: every one of the 5,456 tables enumerated.
    newcombe = [_coverage(30, cells, newcombe_paired) for cells in CELLS]
    wald = [_coverage(30, cells, wald_paired) for cells in CELLS]
    assert 0.95 <= np.mean(newcombe) <= 0.98
    assert min(newcombe) >= 0.93
    assert np.mean(wald) < 0.95 < np.mean(newcombe)


def test_simulated_coverage_matches_the_exact_coverage():
    rng = np.random.default_rng(12)
    cells = (0.3, 0.2, 0.05, 0.45)
    tables = rng.multinomial(40, cells, size=20_000)
    lo, hi = newcombe_paired(*tables.T)
    theta = cells[1] - cells[2]
    hits = int(np.count_nonzero((lo <= theta) & (theta <= hi)))
    exact = _coverage(40, cells, newcombe_paired)
    # Binomial sampling error of 20,000 simulated tables, 4 standard errors.
    assert abs(hits / 20_000 - exact) < 4 * np.sqrt(exact * (1 - exact) / 20_000)


def test_variance_reduction_by_hand():
    # a=40, b=5, c=5, d=50: p1 = p2 = 0.45, Var_indep = 2 · 0.45 · 0.55 = 0.495,
    # Var(X1 - X2) = (b + c)/n - 0 = 0.1: reduction 4.95.
    assert variance_reduction(40, 5, 5, 50) == pytest.approx(4.95)
    assert variance_reduction(40, 0, 0, 60) == float("inf")


def test_paired_moments_stream_like_numpy():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 40, 5000) + 1e6  # a large offset: the shift keeps the digits
    y = x + rng.integers(-2, 3, 5000)
    m = PairedMoments()
    for lo in range(0, 5000, 700):
        m.add(x[lo : lo + 700], y[lo : lo + 700])
    assert m.means() == pytest.approx((x.mean(), y.mean()), rel=1e-12)
    v1, _v2, vd = m.variances()
    assert vd == pytest.approx(np.var(y - x, ddof=1), rel=1e-9)
    assert v1 == pytest.approx(np.var(x, ddof=1), rel=1e-9)
    diff, lo, hi = m.difference()
    half = stats.t.ppf(0.975, 4999) * np.sqrt(np.var(y - x, ddof=1) / 5000)
    assert (lo, hi) == pytest.approx((diff - half, diff + half), rel=1e-9)


def test_identical_series_have_exactly_zero_difference():
    m = PairedMoments()
    x = np.arange(100) % 7
    m.add(x, x)
    assert m.difference() == (0.0, 0.0, 0.0)
    assert m.variance_reduction() == float("inf")


def test_the_fit_test_has_its_own_name_and_the_old_spelling_warns():
    d = mc.oed(4)
    samples = d.sample(20_000, seed=3)
    fit = mc.fit_test(samples, d)
    assert isinstance(fit, mc.FitResult)
    with pytest.warns(DeprecationWarning, match="mc.fit_test"):
        old = mc.compare(samples, d)
    assert old == fit
    from montecarlo import stats as mc_stats

    with pytest.warns(DeprecationWarning, match="fit_test"):
        assert mc_stats.compare(samples, d) == fit
