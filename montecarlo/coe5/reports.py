"""Roster-wide damage tables and their figures (RULES.md C-3 to C-5)."""

from __future__ import annotations

from collections.abc import Iterable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from montecarlo.coe5.damage import damage, hits_to_kill_from
from montecarlo.coe5.units import Roster, Unit, default_roster, resolve_unit
from montecarlo.errors import InputError

DAMAGE_COLUMNS = [
    "attacker",
    "weapon",
    "defender",
    "kind",
    "mean",
    "p_zero",
    "p_half_hp",
    "median",
    "p90",
    "hits_to_kill",
]


def _units(spec: Iterable[Unit | str] | None, roster: Roster) -> list[Unit]:
    if spec is None:
        return roster.units()
    if isinstance(spec, str | Unit):
        spec = [spec]
    return [resolve_unit(u, roster) for u in spec]


def damage_table(
    attackers: Iterable[Unit | str] | None = None,
    defenders: Iterable[Unit | str] | None = None,
    *,
    roster: Roster | None = None,
    **situation,
) -> pd.DataFrame:
    """Exact damage statistics for every (attacker weapon, defender) pair.

    Parameters
    ----------
    attackers, defenders : iterable of Unit or names, optional
        Default: the whole roster.
    **situation
        Passed to :func:`~montecarlo.coe5.damage.damage` (``on_wall``, ...).

    Returns
    -------
    pandas.DataFrame
        One row per (attacker, weapon, defender): mean damage, P(0),
        P(damage >= half the defender's HP), median, 90th percentile and the
        expected number of hits to kill (NaN for poison, which fills a pool,
        and for weapons that cannot hurt the defender).  ``kind`` says whether
        the figures are HP lost or poison added (C-4.5).
    """
    roster = roster or default_roster()
    rows = []
    for a in _units(attackers, roster):
        for w in a.weapons:
            if w.type == "paralysis":
                continue  # no direct damage (C-4.9)
            for d in _units(defenders, roster):
                dist = damage((a, w), d, roster=roster, **situation)
                try:
                    htk = hits_to_kill_from(dist).mean()
                except InputError:
                    htk = np.nan
                rows.append(
                    {
                        "attacker": a.name,
                        "weapon": w.name,
                        "defender": d.name,
                        "kind": dist.kind,
                        "mean": dist.mean(),
                        "p_zero": float(dist.pmf(0)),
                        "p_half_hp": float(dist.sf(np.ceil(d.hp / 2) - 1)),
                        "median": dist.median(),
                        "p90": float(dist.ppf(0.9)),
                        "hits_to_kill": htk,
                    }
                )
    return pd.DataFrame(rows, columns=DAMAGE_COLUMNS)


def damage_heatmap(table: pd.DataFrame, metric: str = "mean") -> Figure:
    """Heatmap of ``metric`` ("mean" or "hits_to_kill") over weapons × defenders."""
    if metric not in ("mean", "hits_to_kill"):
        raise InputError(f"metric must be 'mean' or 'hits_to_kill', not {metric!r}")
    frame = table.assign(row=table["attacker"] + " · " + table["weapon"])
    grid = frame.pivot_table(index="row", columns="defender", values=metric, sort=False)
    values = grid.to_numpy(dtype=float)
    fig, ax = plt.subplots(
        figsize=(max(7.0, 1.0 + 0.62 * grid.shape[1]), max(3.5, 1.5 + 0.36 * grid.shape[0])),
        layout="constrained",
    )
    if metric == "mean":
        norm, cmap, label, fmt = None, "viridis", "expected damage per hit (HP)", "{:.1f}"
    else:
        # Hits to kill spans 1 to hundreds, so the colours follow a log scale.
        norm = LogNorm(vmin=max(np.nanmin(values), 1.0), vmax=max(np.nanmax(values), 2.0))
        cmap, label, fmt = "magma_r", "expected hits to kill (log scale)", "{:.0f}"
    image = ax.imshow(values, cmap=cmap, norm=norm, aspect="auto")
    for (i, j), v in np.ndenumerate(values):
        if np.isnan(v):
            ax.text(j, i, "—", ha="center", va="center", fontsize=7, color="grey")
            continue
        r, g, b, _ = image.cmap(image.norm(v))
        colour = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
        ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=7, color=colour)
    ax.set_xticks(range(grid.shape[1]), grid.columns, rotation=45, ha="right")
    ax.set_yticks(range(grid.shape[0]), grid.index)
    ax.set_xlabel("defender")
    ax.set_ylabel("attacker · weapon")
    title = "Expected damage per hit" if metric == "mean" else "Expected hits to kill"
    note = "poison: pool added" if metric == "mean" else "— = cannot kill by hits"
    ax.set_title(f"{title} (exact, CoE5 rules C-3 to C-5; {note})")
    cbar = fig.colorbar(image, ax=ax)
    cbar.set_label(label)
    return fig
