"""Monte Carlo error: Wilson intervals and goodness of fit against exact laws."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from montecarlo.distribution import Distribution


def wilson(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Uses ``scipy.stats.binomtest(...).proportion_ci(method="wilson")``.
    """
    if trials == 0:
        return (0.0, 1.0)
    ci = stats.binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=level, method="wilson"
    )
    return (float(ci.low), float(ci.high))


def wilson_halfwidth(successes: int, trials: int, level: float = 0.95) -> float:
    """Half the width of the Wilson interval: the run's precision for that rate."""
    lo, hi = wilson(successes, trials, level)
    return (hi - lo) / 2


@dataclass(frozen=True)
class FitResult:
    """Agreement of a sample with an exact distribution.

    Attributes
    ----------
    chi2, dof, pvalue : float
        Pearson's chi-square test, bins pooled so each expects >= 5 draws.
    tv : float
        Total-variation distance between the empirical and exact pmfs.
    tv_bound : float
        A bound that ``tv`` stays under with probability >= 1 - ``alpha``
        when the sample really comes from the exact law (DKW-style, from n).
    """

    chi2: float
    dof: int
    pvalue: float
    tv: float
    tv_bound: float


def compare(samples: np.ndarray, exact: Distribution, alpha: float = 1e-3) -> FitResult:
    """Test ``samples`` against ``exact``: chi-square p-value and a TV bound.

    The TV bound: with k stored values, ``sum |p_hat - p| <= sqrt(k/n)`` in
    expectation (Cauchy-Schwarz), and McDiarmid's inequality adds
    ``sqrt(2 ln(1/alpha) / n)`` for confidence ``1 - alpha``; TV is half the L1.
    """
    n = samples.size
    lo, hi = exact.lo, exact.hi
    clipped = np.clip(samples, lo, hi + 1)  # hi + 1 collects the cut tail
    observed = np.bincount(clipped - lo, minlength=hi - lo + 2).astype(np.float64)
    expected_p = np.append(exact.probabilities, exact.tail)
    expected = expected_p * n
    # Pool neighbouring bins from the left until each expects at least 5.
    obs_bins, exp_bins = [], []
    acc_o = acc_e = 0.0
    for o, e in zip(observed, expected, strict=True):
        acc_o += o
        acc_e += e
        if acc_e >= 5:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        if exp_bins:
            obs_bins[-1] += acc_o
            exp_bins[-1] += acc_e
        else:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
    o = np.array(obs_bins)
    e = np.array(exp_bins)
    dof = max(len(o) - 1, 1)
    chi2 = float(((o - e) ** 2 / e).sum()) if len(o) > 1 else 0.0
    pvalue = float(stats.chi2.sf(chi2, dof)) if len(o) > 1 else 1.0
    support_size = int(np.count_nonzero(expected_p))
    tv = 0.5 * float(np.abs(observed / n - expected_p).sum())
    tv_bound = 0.5 * (np.sqrt(support_size / n) + np.sqrt(2 * np.log(1 / alpha) / n))
    return FitResult(chi2, dof, pvalue, tv, float(tv_bound))
