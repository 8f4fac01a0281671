"""Outcome rates with 95% Wilson intervals, shared by CoE5 matchups and SF fights."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

if TYPE_CHECKING:  # matplotlib loads only for a plot (issue 13: start time)
    import pandas as pd
    from matplotlib.axes import Axes

from montecarlo.stats import wilson


class OutcomeRates:
    """Mixin for results with ``counts`` (outcome → battles) and ``n`` (battles).

    Subclasses set ``LABELS``: outcome key → readable label, in display order.
    """

    LABELS: ClassVar[dict[str, str]] = {}
    #: What one trial is called in tables ("battles", "fights").
    NOUN: ClassVar[str] = "trials"

    @property
    def n(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def counts(self) -> dict[str, int]:  # pragma: no cover - overridden
        raise NotImplementedError

    def rate(self, outcome: str) -> float:
        """Share of trials with this outcome."""
        return self.counts[outcome] / self.n

    def interval(self, outcome: str, level: float = 0.95) -> tuple[float, float]:
        """Wilson interval of an outcome rate."""
        return wilson(self.counts[outcome], self.n, level)

    def halfwidth(self) -> float:
        """The largest 95% Wilson half-width over the outcomes: the run's precision."""
        return max((hi - lo) / 2 for lo, hi in (self.interval(k) for k in self.LABELS))

    def to_frame(self) -> pd.DataFrame:
        """Outcome table: count, rate and 95% Wilson interval per outcome."""
        import pandas as pd  # on first use: a text summary needs no table

        return pd.DataFrame(self._outcome_rows())

    def _outcome_rows(self) -> list[dict]:
        """The rows of :meth:`to_frame`."""
        rows = []
        for key, label in self.LABELS.items():
            lo, hi = self.interval(key)
            rows.append({"outcome": label, "count": self.counts[key], "rate": self.rate(key),
                         "ci_low": lo, "ci_high": hi})  # fmt: skip
        return rows

    def outcome_lines(self) -> list[str]:
        """The outcome table as aligned text lines."""
        lines = [f"{'outcome':<16}{'rate':>8}   95% Wilson interval   {self.NOUN:>9}"]
        for row in self._outcome_rows():
            ci = f"[{row['ci_low']:6.2%}, {row['ci_high']:6.2%}]"
            lines.append(f"{row['outcome']:<16}{row['rate']:>8.2%}   {ci}   {row['count']:>9,}")
        return lines

    def plot_outcomes(self, ax: Axes) -> Axes:
        """Outcome bars with 95% Wilson error bars."""
        frame = self.to_frame()
        err = np.array([frame["rate"] - frame["ci_low"], frame["ci_high"] - frame["rate"]])
        colours = ["tab:blue", "tab:red", "tab:grey"][: len(frame)]
        ax.bar(frame["outcome"], frame["rate"], yerr=err, capsize=6, color=colours,
               label="rate ± 95% Wilson interval")  # fmt: skip
        for x, r in enumerate(frame["rate"]):
            ax.text(x, r + 0.02, f"{r:.1%}", ha="center")
        ax.set(ylim=(0, 1.1), xlabel="outcome", ylabel=f"share of {self.NOUN}", title="Outcome")
        ax.legend(loc="upper right", fontsize="small")
        return ax
