"""Exact distributions of integer-valued rolls and damage.

:class:`Distribution` stores the probability mass on a contiguous integer range
``lo..hi`` and follows the ``scipy.stats`` vocabulary (``pmf``, ``cdf``, ``sf``,
``ppf``, ``mean``, ``var``, ``std``).

Open-ended dice have an infinite right tail.  Such a distribution is cut where
the mass left out drops below :data:`TAIL_CUT` (1e-14, so comfortably below
1e-12); the omitted mass is kept in :attr:`Distribution.tail` so nothing is
hidden.  ``cdf`` and ``ppf`` read the stored mass only; ``sf(k)`` counts the
tail, so ``cdf(k) + sf(k) == 1`` everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from kernels.samplers import sample_table
from montecarlo.driver import Fill, run_fill
from montecarlo.errors import InputError
from montecarlo.seeding import SeedLike, resolve_seed

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

#: Mass of the right tail that an open-ended distribution may leave out.
TAIL_CUT = 1e-14


class Distribution:
    """Exact distribution of an integer random variable.

    Parameters
    ----------
    pmf : array_like
        Probabilities of ``lo, lo + 1, ..., lo + len(pmf) - 1``.
    lo : int
        The smallest value stored.
    tail : float
        Probability above the stored range that was cut off (open-ended dice).
    name : str
        A label used in tables and plots.
    sampler : callable, optional
        A Numba batch kernel ``fill(states, chunk, out)`` drawing from this
        distribution directly; the default samples the stored table by
        inverse CDF.
    """

    def __init__(
        self,
        pmf: Sequence[float] | np.ndarray,
        lo: int = 0,
        *,
        tail: float = 0.0,
        name: str = "",
        sampler: Fill | None = None,
    ) -> None:
        p = np.asarray(pmf, dtype=np.float64)
        if p.ndim != 1 or p.size == 0:
            raise InputError("a distribution needs a non-empty 1-d pmf")
        if (p < 0).any():
            raise InputError("probabilities must be non-negative")
        # Trim zero mass at both ends so lo/hi are the true support bounds.
        nz = np.flatnonzero(p)
        if nz.size == 0:
            raise InputError("a distribution needs some probability mass")
        p = p[nz[0] : nz[-1] + 1]
        self._pmf = p
        self._lo = int(lo) + int(nz[0])
        self.tail = float(tail)
        self.name = name
        self._sampler = sampler
        self._cdf = np.cumsum(p)

    # -- construction helpers ------------------------------------------------
    @classmethod
    def point(cls, value: int, name: str = "") -> Distribution:
        """The distribution that is always ``value``."""
        return cls([1.0], int(value), name=name)

    @classmethod
    def uniform(cls, lo: int, hi: int, name: str = "") -> Distribution:
        """Uniform on the integers ``lo..hi`` inclusive."""
        n = hi - lo + 1
        return cls(np.full(n, 1.0 / n), lo, name=name)

    @classmethod
    def mixture(
        cls, weights: Sequence[float], parts: Sequence[Distribution], name: str = ""
    ) -> Distribution:
        """``parts[i]`` with probability ``weights[i]``."""
        lo = min(d.lo for d in parts)
        hi = max(d.hi for d in parts)
        p = np.zeros(hi - lo + 1)
        tail = 0.0
        for w, d in zip(weights, parts, strict=True):
            p[d.lo - lo : d.hi - lo + 1] += w * d._pmf
            tail += w * d.tail
        return cls(p, lo, tail=tail, name=name)

    # -- transformations -----------------------------------------------------
    def convolve(self, other: Distribution, name: str = "") -> Distribution:
        """Distribution of the sum of independent draws from ``self`` and ``other``."""
        p = np.convolve(self._pmf, other._pmf)
        tail = 1.0 - (1.0 - self.tail) * (1.0 - other.tail)
        return Distribution(p, self.lo + other.lo, tail=tail, name=name)

    def __add__(self, other: Distribution | int) -> Distribution:
        if isinstance(other, Distribution):
            return self.convolve(other)
        return self.map(lambda v: v + int(other))

    def map(self, func: Callable[[np.ndarray], np.ndarray], name: str = "") -> Distribution:
        """Distribution of ``func(X)`` for an integer-valued vectorized ``func``."""
        values = np.asarray(func(self.support), dtype=np.int64)
        lo = int(values.min())
        p = np.bincount(values - lo, weights=self._pmf)
        return Distribution(p, lo, tail=self.tail, name=name or self.name)

    def with_name(self, name: str) -> Distribution:
        """The same distribution under another label."""
        return Distribution(self._pmf, self._lo, tail=self.tail, name=name, sampler=self._sampler)

    # -- scipy.stats-like interface -----------------------------------------
    @property
    def lo(self) -> int:
        """Smallest value with positive probability."""
        return self._lo

    @property
    def hi(self) -> int:
        """Largest value stored (the tail beyond it holds :attr:`tail`)."""
        return self._lo + self._pmf.size - 1

    @property
    def support(self) -> np.ndarray:
        """The stored values ``lo..hi`` as an int64 array."""
        return np.arange(self.lo, self.hi + 1, dtype=np.int64)

    @property
    def probabilities(self) -> np.ndarray:
        """The pmf over :attr:`support` (a read-only view)."""
        view = self._pmf.view()
        view.flags.writeable = False
        return view

    def pmf(self, k: int | np.ndarray) -> float | np.ndarray:
        """P(X = k)."""
        k = np.asarray(k)
        idx = k - self.lo
        inside = (idx >= 0) & (idx < self._pmf.size)
        out = np.where(inside, self._pmf[np.clip(idx, 0, self._pmf.size - 1)], 0.0)
        return out[()] if out.ndim == 0 else out

    def cdf(self, k: int | np.ndarray) -> float | np.ndarray:
        """P(X <= k)."""
        k = np.floor(np.asarray(k, dtype=np.float64))
        idx = k - self.lo
        clipped = np.clip(idx, 0, self._pmf.size - 1).astype(np.int64)
        out = np.where(idx < 0, 0.0, self._cdf[clipped])
        return out[()] if out.ndim == 0 else out

    def sf(self, k: int | np.ndarray) -> float | np.ndarray:
        """P(X > k), the cut-off tail included."""
        return 1.0 - self.cdf(k)

    def ppf(self, q: float | np.ndarray) -> float | np.ndarray:
        """Smallest k with P(X <= k) >= q; NaN where q lies in the cut tail."""
        q = np.asarray(q, dtype=np.float64)
        if ((q < 0) | (q > 1)).any():
            raise InputError("quantile levels must lie in [0, 1]")
        # Compare with a hair of slack so float sums that should equal q do.
        idx = np.searchsorted(self._cdf, q - 1e-12, side="left")
        out = np.where(idx < self._pmf.size, self.lo + idx, np.nan).astype(np.float64)
        return out[()] if out.ndim == 0 else out

    def median(self) -> float:
        """The 50% quantile."""
        return float(self.ppf(0.5))

    def mean(self) -> float:
        """E[X] over the stored support."""
        return float(np.dot(self.support, self._pmf))

    def var(self) -> float:
        """Var[X] over the stored support."""
        m = self.mean()
        d = self.support - m
        return float(np.dot(d * d, self._pmf))

    def std(self) -> float:
        """Standard deviation."""
        return float(np.sqrt(self.var()))

    def expect(self, func: Callable[[np.ndarray], np.ndarray]) -> float:
        """E[func(X)] over the stored support."""
        return float(np.dot(func(self.support), self._pmf))

    def to_frame(self) -> pd.DataFrame:
        """A DataFrame with columns ``value``, ``probability``, ``cdf``."""
        import pandas as pd  # on first use: most commands never build a table

        return pd.DataFrame(
            {"value": self.support, "probability": self._pmf, "cdf": self._cdf},
        )

    # -- sampling and plotting ----------------------------------------------
    def sample(
        self,
        size: int,
        *,
        seed: SeedLike = None,
        rng: SeedLike = None,
        threads: int | None = None,
        progress: bool | None = False,
    ) -> np.ndarray:
        """Draw ``size`` values with the Numba kernels.

        The same seed gives the same array for any ``threads``.  Ctrl-C
        returns the trials finished so far (a shorter array).
        """
        ss = resolve_seed(seed, rng)
        return run_fill(self.fill, size, ss, threads=threads, progress=progress).values

    @property
    def fill(self) -> Fill:
        """The chunk sampler: the attached kernel, or inverse-CDF sampling of the table."""
        return self._sampler or self._table_sampler()

    def _table_sampler(self) -> Fill:
        cdf = self._cdf / self._cdf[-1]  # sample the stored mass, renormalised
        lo = self.lo

        def fill(states: np.ndarray, chunk: int, out: np.ndarray) -> None:
            sample_table(states, chunk, lo, cdf, out)

        return fill

    def plot(self, ax: Axes | None = None, *, kind: str = "pmf", **kwargs: object) -> Axes:
        """Bar chart of the pmf (``kind="pmf"``) or step plot of the cdf."""
        from montecarlo.plotting import plot_distribution

        return plot_distribution(self, ax=ax, kind=kind, **kwargs)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return (
            f"<Distribution{label} on {self.lo}..{self.hi}, mean={self.mean():.4g}, "
            f"sd={self.std():.4g}, tail={self.tail:.1e}>"
        )
