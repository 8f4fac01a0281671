"""The result of a matchup: outcome rates with Wilson intervals, rounds, survivors."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:  # pandas and matplotlib load on first use: a summary needs neither
    import pandas as pd
    from matplotlib.figure import Figure

from montecarlo.coe5.battlefield import Deployment, Part
from montecarlo.outcomes import OutcomeRates

OUTCOME_LABELS = {"attacker": "attacker wins", "defender": "defender wins", "draw": "draw"}


@dataclass
class MatchupResult(OutcomeRates):
    """Aggregated outcome of many battles (RULES.md C-9).

    Attributes
    ----------
    parts : list of Part
        Attacker parts first, then defender parts.
    n : int
        Battles played.
    counts : dict
        ``{"attacker": k, "defender": k, "draw": k}``.
    partial : bool
        True when Ctrl-C stopped the run early.
    seed : int or sequence
        The entropy that reproduces this run.
    trials : Trials or None
        Per-trial arrays when ``keep_trials=True``.
    """

    LABELS: ClassVar[dict[str, str]] = OUTCOME_LABELS
    NOUN: ClassVar[str] = "battles"

    parts: list[Part]
    totals: Any
    trials: Any
    partial: bool
    seed: Any
    seconds: float
    precision: float | None
    options: dict
    deployment: Deployment

    # -- outcome rates --------------------------------------------------------
    @property
    def n(self) -> int:
        return int(self.totals.trials)

    @property
    def counts(self) -> dict[str, int]:
        return dict(zip(OUTCOME_LABELS, (int(k) for k in self.totals.outcome), strict=True))

    def interval(self, outcome: str = "attacker", level: float = 0.95) -> tuple[float, float]:
        """Wilson interval of an outcome rate (default: the attacker's wins)."""
        return super().interval(outcome, level)

    @property
    def win_rate(self) -> float:
        """The attacker's win rate."""
        return self.rate("attacker")

    # -- rounds ------------------------------------------------------------------
    def _rounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Rounds from the first to the last seen, and their sampled probabilities."""
        hist = self.totals.rounds
        nz = np.flatnonzero(hist)
        idx = np.arange(nz[0], nz[-1] + 1) if nz.size else np.arange(1)
        return idx, hist[idx] / self.n

    @property
    def rounds_pmf(self) -> pd.Series:
        """Sampled distribution of the number of rounds (index: rounds)."""
        import pandas as pd

        idx, p = self._rounds()
        return pd.Series(p, index=idx, name="probability").rename_axis("rounds")

    def rounds_mean(self) -> tuple[float, float]:
        """Mean rounds and its standard error."""
        idx, p = self._rounds()
        mean = float(np.dot(idx, p))
        var = float(np.dot((idx - mean) ** 2, p))
        return mean, float(np.sqrt(var / max(self.n - 1, 1)))

    def rounds_quantile(self, q: float) -> int:
        """Sampled quantile of the rounds."""
        idx, p = self._rounds()
        return int(idx[np.searchsorted(np.cumsum(p), q - 1e-12)])

    # -- survivors ---------------------------------------------------------------
    def survivors(self) -> pd.DataFrame:
        """Per army part: expected survivors and routed units, with standard errors."""
        import pandas as pd

        return pd.DataFrame(self._survivor_rows())

    def _survivor_rows(self) -> list[dict]:
        """The rows of :meth:`survivors`."""
        rows = []
        for k, part in enumerate(self.parts):
            counts = np.arange(self.totals.survivors.shape[1])
            ps = self.totals.survivors[k] / self.n
            pr = self.totals.routed[k] / self.n
            ms, mr = float(ps @ counts), float(pr @ counts)
            rows.append({
                "side": "attacker" if part.side == 0 else "defender",
                "unit": part.unit.name,
                "start": part.count,
                "survivors": ms,
                "survivors_se": float(np.sqrt((ps @ counts**2 - ms**2) / max(self.n - 1, 1))),
                "routed": mr,
                "dead": part.count - ms - mr,
                "p_any_survivor": float(1 - ps[0]),
            })  # fmt: skip
        return rows

    def damage_dealt(self) -> pd.DataFrame:
        """Mean HP removed by each side's hits, with standard errors."""
        import pandas as pd

        mean = self.totals.dealt / self.n
        var = self.totals.dealt_sq / self.n - mean**2
        se = np.sqrt(np.maximum(var, 0) / max(self.n - 1, 1))
        return pd.DataFrame({"side": ["attacker", "defender"], "damage_dealt": mean, "se": se})

    # -- tables ------------------------------------------------------------------
    def title(self) -> str:
        att = " + ".join(p.label for p in self.parts if p.side == 0)
        dfd = " + ".join(p.label for p in self.parts if p.side == 1)
        siege = f" (siege, fort {self.options['fort']})" if self.options.get("siege") else ""
        return f"{att} vs {dfd}{siege}"

    def summary(self) -> str:
        """A readable multi-line report."""
        lines = [self.title()]
        state = "  — INTERRUPTED, partial result" if self.partial else ""
        lines.append(f"{self.n:,} battles, seed {self.seed}, {self.seconds:.2f} s{state}")
        lines.append("")
        lines += self.outcome_lines()
        mean, se = self.rounds_mean()
        qs = ", ".join(f"q{int(q * 100)} {self.rounds_quantile(q)}" for q in (0.1, 0.5, 0.9))
        lines += ["", f"rounds: mean {mean:.2f} ± {se:.2f}; {qs}", ""]
        surv = [SimpleNamespace(**row) for row in self._survivor_rows()]
        lines.append(f"{'side':<10}{'unit':<16}{'start':>6}{'survivors':>11}{'routed':>8}"
                     f"{'dead':>8}{'P(any left)':>13}")  # fmt: skip
        for r in surv:
            lines.append(f"{r.side:<10}{r.unit:<16}{r.start:>6}{r.survivors:>8.2f}±{r.survivors_se:.2f}"
                         f"{r.routed:>8.2f}{r.dead:>8.2f}{r.p_any_survivor:>13.2%}")  # fmt: skip
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Machine-readable summary (for --json)."""
        mean, se = self.rounds_mean()
        army = [[{"unit": p.unit.name, "count": p.count} for p in self.parts if p.side == side]
                for side in (0, 1)]  # fmt: skip
        return {
            "attacker": army[0],
            "defender": army[1],
            "battles": self.n, "partial": self.partial, "seed": self.seed,
            "seconds": self.seconds, "options": self.options,
            "outcomes": self.to_frame().to_dict(orient="records"),
            "rounds": {"mean": mean, "se": se,
                       "quantiles": {str(q): self.rounds_quantile(q) for q in (0.1, 0.5, 0.9)}},
            "survivors": self.survivors().to_dict(orient="records"),
            "damage_dealt": self.damage_dealt().to_dict(orient="records"),
        }  # fmt: skip

    def __repr__(self) -> str:
        lo, hi = self.interval()
        return (f"<MatchupResult {self.title()}: attacker wins {self.win_rate:.2%} "
                f"[{lo:.2%}, {hi:.2%}] over {self.n:,} battles>")  # fmt: skip

    # -- plots -------------------------------------------------------------------
    def plot(self) -> Figure:
        """Outcome bars with 95% intervals, a rounds histogram and survivor distributions."""
        import matplotlib.pyplot as plt  # only for a plot: it takes a while to import

        fig, axes = plt.subplots(1, 3, figsize=(16, 4.8), layout="constrained")
        self.plot_outcomes(axes[0])
        ax = axes[1]
        pmf = self.rounds_pmf
        ax.bar(pmf.index, pmf.values, width=1.0, color="tab:purple", label=f"{self.n:,} battles")
        mean, _ = self.rounds_mean()
        ax.axvline(mean, color="black", ls="--", label=f"mean {mean:.1f}")
        ax.set(xlabel="rounds until the battle ended", ylabel="share of battles",
               title="Battle length")  # fmt: skip
        ax.legend(fontsize="small")
        ax = axes[2]
        width = 0.8 / len(self.parts)
        for k, part in enumerate(self.parts):
            counts = np.arange(part.count + 1)
            ps = self.totals.survivors[k][: part.count + 1] / self.n
            side = "att" if part.side == 0 else "def"
            ax.bar(counts + (k - (len(self.parts) - 1) / 2) * width, ps, width=width,
                   label=f"{side}: {part.unit.name} (of {part.count})")  # fmt: skip
        ax.set(xlabel="survivors at the end (units)", ylabel="share of battles",
               title="Survivors per unit type")  # fmt: skip
        ax.legend(fontsize="small")
        fig.suptitle(f"{self.title()}: {self.n:,} simulated battles (CoE5 rules C-6 to C-9)")
        return fig
