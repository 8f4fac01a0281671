"""Round-robin tournaments: every unit against every other, as a win-rate matrix.

Each pair plays twice, once with each side attacking (the attacker moves
first, C-8.3), and a unit's rate against another is the mean over the two.
The two sweeps are shared, so ``M[i, j] + M[j, i] + draws = 1`` exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from montecarlo.coe5.units import Roster, Unit, default_roster, resolve_unit
from montecarlo.errors import InputError
from montecarlo.seeding import SeedLike
from montecarlo.sweeps import sweep
from montecarlo.validation import MAX_ROUND_ROBIN_UNITS, check_army_size, check_limit


@dataclass
class RoundRobin:
    """The outcome of :func:`round_robin`.

    Attributes
    ----------
    matrix : pandas.DataFrame
        ``matrix.loc[a, b]``: how often a's army beats b's, averaged over both sides.
    halfwidth : pandas.DataFrame
        Half the 95% Wilson interval of each cell (mean of the two matchups' errors).
    counts : dict
        The army size of each unit.
    rows : pandas.DataFrame
        The underlying sweep, one row per (attacker, defender).
    """

    matrix: pd.DataFrame
    halfwidth: pd.DataFrame
    counts: dict[str, int]
    rows: pd.DataFrame
    by: str
    #: True after Ctrl-C: cells whose two matchups did not both finish are NaN.
    partial: bool = False
    #: The root seed's entropy (rerun with it to reproduce the matrix).
    seed: Any = None

    def plot(self) -> Figure:
        """Annotated heatmap, a diverging colour map centred at 0.5."""
        m = self.matrix
        n = len(m)
        # At least 6.5 inches wide: the two-line title must fit above few units too.
        fig, ax = plt.subplots(
            figsize=(max(6.5, 3.5 + 0.85 * n), 2.5 + 0.7 * n), layout="constrained"
        )
        image = ax.imshow(m.to_numpy(float), cmap="RdBu", norm=TwoSlopeNorm(0.5, 0.0, 1.0))
        for (i, j), v in np.ndenumerate(m.to_numpy(float)):
            if np.isnan(v):
                continue  # not played (interrupted run)
            err = self.halfwidth.iat[i, j]
            colour = "white" if abs(v - 0.5) > 0.3 else "black"
            ax.text(
                j, i, f"{v:.2f}\n±{err:.2f}", ha="center", va="center", fontsize=7, color=colour
            )
        labels = [f"{u} ×{self.counts[u]}" for u in m.index]
        ax.set_xticks(range(n), labels, rotation=45, ha="right")
        ax.set_yticks(range(n), labels)
        ax.set_xlabel("opponent (column)")
        ax.set_ylabel("unit (row)")
        basis = "equal gold" if self.by == "equal_gold" else "equal count"
        state = " (partial: interrupted)" if self.partial else ""
        ax.set_title(
            f"Round robin, {basis}{state}\nwin rate of the row against the column",
            loc="center",
            wrap=True,
        )
        cbar = fig.colorbar(image, ax=ax)
        cbar.set_label("win rate of the row army (0.5 = even)")
        return fig


def _army_sizes(units: list[Unit], by: str, counts: Any, budget: int | None) -> dict[str, int]:
    if by == "equal_count":
        if isinstance(counts, Mapping):
            sizes = {u.name: int(counts.get(u.name, counts.get(u.name.lower(), 0))) for u in units}
        else:
            sizes = {u.name: int(counts) for u in units}
    elif by == "equal_gold":
        missing = [u.name for u in units if not u.gold]
        if missing:
            raise InputError(f"equal_gold needs a gold cost for every unit; missing: {missing}")
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, int) or budget < 1
        ):
            raise InputError(f"budget is a positive number of gold, got {budget!r}")
        budget = budget or max(u.gold for u in units) * (
            int(counts) if isinstance(counts, int) else 1
        )
        sizes = {u.name: round(budget / u.gold) for u in units}
        short = [f"{u.name} ({u.gold} gold)" for u in units if sizes[u.name] < 1]
        if short:
            # Fielding one anyway would not be equal gold: say so instead.
            raise InputError(
                f"a budget of {budget} gold buys less than one {', '.join(short)}; "
                f"give at least {max(u.gold for u in units)} gold (the dearest unit's cost)"
            )
    else:
        raise InputError(f"by is 'equal_gold' or 'equal_count', not {by!r}")
    bad = [k for k, v in sizes.items() if v < 1]
    if bad:
        raise InputError(f"army sizes must be at least 1; check counts for {bad}")
    return sizes


def round_robin(
    units: Sequence[Unit | str],
    *,
    counts: int | Mapping[str, int] = 1,
    by: str = "equal_count",
    budget: int | None = None,
    trials: int | None = None,
    precision: float | None = None,
    seed: SeedLike = None,
    engine: Any = "local",
    out: str | None = None,
    roster: Roster | None = None,
    threads: int | None = None,
    progress: bool | None = True,
) -> RoundRobin:
    """Win-rate matrix of every unit against every other (CoE5 battles).

    Parameters
    ----------
    units : list of Unit or names
    counts : int or dict
        Army size per unit for ``by="equal_count"`` (one number for all, or by
        name); for ``by="equal_gold"`` a multiplier of the dearest unit's cost
        when ``budget`` is not given.
    by : "equal_count" or "equal_gold"
        Equal gold gives each unit ``round(budget / gold)`` members (at least 1).
    budget : int, optional
        Gold per army for ``equal_gold``.
    trials, precision, seed, engine, out
        As in :func:`~montecarlo.sweeps.sweep`.

    Returns
    -------
    RoundRobin
        After Ctrl-C, ``partial`` is True and the cells not played are NaN; with
        ``out=`` a rerun plays only the missing matchups.
    """
    roster = roster or default_roster()
    if isinstance(units, str):
        raise InputError("units is a list of unit names, e.g. ['militia', 'knight']")
    us = [resolve_unit(u, roster) for u in units]
    if len({u.name for u in us}) != len(us) or len(us) < 2:
        raise InputError("a round robin needs at least two different units")
    check_limit(len(us), MAX_ROUND_ROBIN_UNITS, "the number of units", "n units play n² matchups")
    if budget is not None and by != "equal_gold":
        raise InputError("a budget sizes armies by gold; use it with by='equal_gold'")
    sizes = _army_sizes(us, by, counts, budget)
    for name, size in sizes.items():
        check_army_size(size, f"army of {name}")
    army = {u.name: f"{u.name}:{sizes[u.name]}" for u in us}
    grid = [{"attacker": army[a.name], "defender": army[b.name]} for a in us for b in us]
    rows = sweep(
        grid,
        trials=trials,
        precision=precision,
        seed=seed,
        engine=engine,
        out=out,
        threads=threads,
        progress=progress,
    )
    partial = bool(rows.attrs.get("partial"))
    complete = rows[~rows["partial"]] if partial and not rows.empty else rows
    by_pair = {(r.attacker, r.defender): r for r in complete.itertuples()}
    names = [u.name for u in us]
    m = pd.DataFrame(np.nan, index=names, columns=names)
    hw = pd.DataFrame(np.nan, index=names, columns=names)
    for a in names:
        for b in names:
            if (army[a], army[b]) not in by_pair or (army[b], army[a]) not in by_pair:
                continue  # interrupted before both sides were played
            ab, ba = by_pair[(army[a], army[b])], by_pair[(army[b], army[a])]
            m.loc[a, b] = (ab.p_attacker + ba.p_defender) / 2
            hw.loc[a, b] = (
                (ab.p_attacker_hi - ab.p_attacker_lo) + (ba.p_defender_hi - ba.p_defender_lo)
            ) / 4
    return RoundRobin(m, hw, sizes, rows, by, partial, rows.attrs.get("seed"))
