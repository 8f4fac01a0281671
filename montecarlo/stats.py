"""Monte Carlo error: Wilson intervals and goodness of fit against exact laws."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from montecarlo.distribution import Distribution


def wilson(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    The closed form (the same as ``scipy.stats.binomtest(...).proportion_ci(
    method="wilson")``): centre ``(2np + z²) / (2(n + z²))``, half-width
    ``z·sqrt(z² + 4np(1-p)) / (2(n + z²))``, z the normal quantile of the level.
    Computed with ``math`` alone: importing SciPy's stats takes longer than a
    small matchup (issue 13).
    """
    if trials == 0:
        return (0.0, 1.0)
    n = int(trials)
    p = int(successes) / n
    z = NormalDist().inv_cdf(0.5 + 0.5 * level)
    z2 = z * z
    denom = 2 * (n + z2)
    centre = (2 * n * p + z2) / denom
    half = z * math.sqrt(z2 + 4 * n * p * (1 - p)) / denom
    # The interval holds p, and reaches 0 at k = 0 and 1 at k = n: exactly, not to
    # within rounding (error bars drawn from it must not come out negative).
    lo = 0.0 if successes == 0 else min(p, centre - half)
    hi = 1.0 if successes == n else max(p, centre + half)
    return (max(0.0, lo), min(1.0, hi))


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


class Histogram:
    """Counts of integer values, grown as values arrive: a sample summary of bounded size.

    Streams of trials (see :func:`montecarlo.driver.run_reduce`) are folded into
    it, so statistics of any number of trials take memory proportional to the
    range of values seen, never to the number of trials.
    """

    def __init__(self) -> None:
        self.lo = 0
        self.counts = np.zeros(0, dtype=np.int64)

    def add(self, values: np.ndarray, first: int = 0) -> None:
        """Count ``values`` (``first`` is ignored: order does not matter here)."""
        if values.size == 0:
            return
        vmin, vmax = int(values.min()), int(values.max())
        if self.counts.size == 0:
            self.lo = vmin
        new_lo = min(self.lo, vmin)
        new_hi = max(self.hi, vmax)
        if new_lo < self.lo or new_hi > self.hi:
            grown = np.zeros(new_hi - new_lo + 1, dtype=np.int64)
            grown[self.lo - new_lo : self.lo - new_lo + self.counts.size] = self.counts
            self.lo, self.counts = new_lo, grown
        self.counts += np.bincount(values - self.lo, minlength=self.counts.size)

    @property
    def hi(self) -> int:
        """The largest value counted (``lo - 1`` when empty)."""
        return self.lo + self.counts.size - 1

    @property
    def n(self) -> int:
        """Number of values counted."""
        return int(self.counts.sum())

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.lo, self.hi + 1, dtype=np.int64)

    def mean(self) -> float:
        return float(np.dot(self.values, self.counts) / self.n)

    def std(self, ddof: int = 0) -> float:
        m = self.mean()
        d = self.values - m
        return float(np.sqrt(np.dot(d * d, self.counts) / (self.n - ddof)))

    def std_error_of_std(self) -> float:
        """Standard error of the sample standard deviation, for any distribution.

        By the delta method, Var(s) ≈ (m4 − s⁴) / (4 s² n) with m4 the fourth
        central moment.  The normal-theory s/√(2(n−1)) understates it badly for
        the heavy right tails of open-ended dice.
        """
        n = self.n
        if n < 2:
            return float("nan")
        m = self.mean()
        d2 = (self.values - m) ** 2
        var = float(np.dot(d2, self.counts) / n)
        m4 = float(np.dot(d2 * d2, self.counts) / n)
        if var == 0.0:
            return 0.0
        return float(np.sqrt(max(m4 - var * var, 0.0) / (4.0 * var * n)))

    def quantile(self, q: float | np.ndarray) -> np.ndarray:
        """Smallest value whose share at or below it is at least ``q``.

        The ``inverted_cdf`` method of :func:`numpy.quantile`.
        """
        cum = np.cumsum(self.counts)
        idx = np.searchsorted(cum, np.asarray(q) * self.n, side="left")
        return self.lo + np.minimum(idx, self.counts.size - 1)

    def count_above(self, threshold: int) -> int:
        """How many values exceed ``threshold``."""
        return int(self.counts[max(0, threshold + 1 - self.lo) :].sum())

    def count_of(self, value: int) -> int:
        """How many values equal ``value``."""
        k = value - self.lo
        return int(self.counts[k]) if 0 <= k < self.counts.size else 0

    def between(self, lo: int, hi: int) -> np.ndarray:
        """Counts of ``lo..hi``, values outside the range piled onto the end bins."""
        out = np.zeros(hi - lo + 1, dtype=np.int64)
        np.add.at(out, np.clip(self.values, lo, hi) - lo, self.counts)
        return out


def fit_test(
    samples: np.ndarray | Histogram, exact: Distribution, alpha: float = 1e-3
) -> FitResult:
    """Test ``samples`` against ``exact``: chi-square p-value and a TV bound.

    The TV bound: with k stored values, ``sum |p_hat - p| <= sqrt(k/n)`` in
    expectation (Cauchy-Schwarz), and McDiarmid's inequality adds
    ``sqrt(2 ln(1/alpha) / n)`` for confidence ``1 - alpha``; TV is half the L1.
    """
    lo, hi = exact.lo, exact.hi
    if isinstance(samples, Histogram):
        n = samples.n
        observed = samples.between(lo, hi + 1).astype(np.float64)  # hi + 1: the cut tail
    else:
        n = samples.size
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
    pvalue = 1.0
    if len(o) > 1:
        from scipy import stats  # only here: most commands never test a fit

        pvalue = float(stats.chi2.sf(chi2, dof))
    support_size = int(np.count_nonzero(expected_p))
    tv = 0.5 * float(np.abs(observed / n - expected_p).sum())
    tv_bound = 0.5 * (np.sqrt(support_size / n) + np.sqrt(2 * np.log(1 / alpha) / n))
    return FitResult(chi2, dof, pvalue, tv, float(tv_bound))


def compare(samples: np.ndarray | Histogram, exact: Distribution, alpha: float = 1e-3) -> FitResult:
    """Deprecated name of :func:`fit_test` (``compare`` is the paired comparison)."""
    warnings.warn(
        "montecarlo.stats.compare is now montecarlo.fit_test (mc.compare is the paired "
        "comparison of two variants); the old name goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return fit_test(samples, exact, alpha)
