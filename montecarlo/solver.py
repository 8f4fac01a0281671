"""The army-size solver: the fewest units that win often enough, with confidence.

For a count n, battles are played (in doubling batches) until the 95% Wilson
interval of the win rate lies wholly above or wholly below the target, so
trials go where the decision is close.  The search doubles n until a count is
confirmed above the target, then bisects between the last count below and
the first above.  Win rates are assumed to grow with the count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from montecarlo.coe5.battle import matchup
from montecarlo.coe5.units import Roster, Unit, default_roster, resolve_unit
from montecarlo.driver import stop_on_ctrl_c
from montecarlo.errors import InputError
from montecarlo.seeding import SeedLike, derive, resolve_seed
from montecarlo.stats import wilson
from montecarlo.validation import check_army_size


@dataclass
class Probe:
    """One count tried by the solver."""

    count: int
    wins: int
    trials: int
    low: float
    high: float
    verdict: str  # "above", "below" or "unsure"

    @property
    def rate(self) -> float:
        return self.wins / self.trials


@dataclass
class Requirement:
    """The solver's answer.

    Attributes
    ----------
    count : int or None
        The smallest count confirmed to reach the target (None if none up to
        ``max_count``).
    rate, interval : float, tuple
        Its win rate and 95% Wilson interval.
    gold : int or None
        The army's cost (count × unit gold), when the unit has a cost.
    probes : list of Probe
        Every count tried, in order, with its verdict.
    """

    unit: Unit
    versus: str
    target: float
    count: int | None
    rate: float | None
    interval: tuple[float, float] | None
    gold: int | None
    probes: list[Probe] = field(default_factory=list)
    #: The largest count tried (``max_count``).
    max_count: int | None = None
    #: True after Ctrl-C: the search stopped early and ``count`` is None.
    partial: bool = False
    #: The root seed's entropy (rerun with it to reproduce every probe).
    seed: object = None

    def to_frame(self) -> pd.DataFrame:
        """The probes as a table."""
        return pd.DataFrame(
            [
                {
                    "count": p.count,
                    "win_rate": p.rate,
                    "ci_low": p.low,
                    "ci_high": p.high,
                    "battles": p.trials,
                    "verdict": p.verdict,
                }
                for p in self.probes
            ]
        )

    def summary(self) -> str:
        if self.partial:
            return (
                f"Interrupted: partial result, no answer yet for {self.unit.name} vs "
                f"{self.versus} ({len(self.probes)} counts finished, listed below)."
            )
        if self.count is None:
            return (
                f"No count of {self.unit.name} up to max_count = {self.max_count} beats "
                f"{self.versus} {self.target:.0%} of the time with 95% confidence; "
                f"raise the limit (--max-count) to search further."
            )
        lo, hi = self.interval
        cost = f", {self.gold} gold" if self.gold is not None else ""
        return (
            f"{self.count} × {self.unit.name} beat {self.versus} {self.rate:.1%} of the time "
            f"(95% CI [{lo:.1%}, {hi:.1%}]) — target {self.target:.0%}{cost}; "
            f"{sum(p.trials for p in self.probes):,} battles over {len(self.probes)} counts"
        )


def required_count(
    unit: Unit | str,
    versus: str,
    target: float = 0.9,
    *,
    max_count: int = 200,
    max_trials: int = 200_000,
    seed: SeedLike = None,
    roster: Roster | None = None,
    threads: int | None = None,
    **battle_options: object,
) -> Requirement:
    """Smallest count of ``unit`` whose win rate against ``versus`` reaches ``target``.

    A count counts as enough when the lower end of its 95% Wilson interval is
    at least ``target``; it is too few when the upper end is below.  A count
    still undecided after ``max_trials`` battles is judged by its point
    estimate and marked ``unsure``.  After Ctrl-C the search stops:
    ``partial`` is True, ``count`` is None and ``probes`` holds the counts
    finished.
    """
    if isinstance(target, bool) or not isinstance(target, int | float) or not 0 < target < 1:
        raise InputError(f"target is a win rate in (0, 1), got {target!r}")
    if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1:
        raise InputError(f"max_count must be a positive integer, got {max_count!r}")
    check_army_size(max_count, "max_count (the largest army tried)")
    roster = roster or default_roster()
    u = resolve_unit(unit, roster)
    ss = resolve_seed(seed)
    probes: dict[int, Probe] = {}

    def answer(count: int | None, partial: bool = False) -> Requirement:
        best = probes.get(count) if count is not None else None
        return Requirement(
            u,
            versus,
            target,
            count,
            best.rate if best else None,
            (best.low, best.high) if best else None,
            u.gold * count if best and u.gold else None,
            list(probes.values()),
            max_count,
            partial,
            ss.entropy,
        )

    with stop_on_ctrl_c() as stop:
        try:
            count = _search(
                probes,
                u,
                versus,
                target,
                max_count,
                max_trials,
                ss,
                roster,
                threads,
                battle_options,
                stop,
            )
        except KeyboardInterrupt:
            stop.requested = True
            count = None
        return answer(count, partial=stop.requested)


def _search(
    probes, u, versus, target, max_count, max_trials, ss, roster, threads, battle_options, stop
) -> int | None:
    """Exponential search then bisection; None when no count up to ``max_count`` is enough.

    Raises :class:`KeyboardInterrupt` once Ctrl-C has stopped a probe.
    """

    def probe(n: int) -> Probe:
        if n in probes:
            return probes[n]
        if stop.requested:
            raise KeyboardInterrupt

        def decided(counts: np.ndarray, trials: int) -> bool:
            lo, hi = wilson(int(counts[0]), trials)
            return lo >= target or hi < target

        r = matchup(
            [(u, n)],
            versus,
            until=decided,
            max_trials=max_trials,
            seed=derive(ss, n),
            roster=roster,
            threads=threads,
            progress=False,
            **battle_options,
        )
        if r.partial:
            raise KeyboardInterrupt  # a cut probe has no verdict
        wins = r.counts["attacker"]
        lo, hi = r.interval("attacker")
        verdict = "above" if lo >= target else "below" if hi < target else "unsure"
        if verdict == "unsure":
            verdict = "above (unsure)" if wins / r.n >= target else "below (unsure)"
        probes[n] = Probe(n, wins, r.n, lo, hi, verdict)
        return probes[n]

    def enough(n: int) -> bool:
        return probe(n).verdict.startswith("above")

    low, high = 0, 1
    while not enough(high):  # exponential search
        low = high
        if high >= max_count:
            return None
        high = min(2 * high, max_count)
    while high - low > 1:  # bisection: low is too few, high is enough
        mid = (low + high) // 2
        if enough(mid):
            high = mid
        else:
            low = mid
    return high
