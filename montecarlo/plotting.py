"""Matplotlib figures shared by both rulesets.

Every figure has a title, labelled axes with units, and a legend; callers save
them as PNG with :func:`save`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from montecarlo.validation import plot_formats, writable_file

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from montecarlo.distribution import Distribution
    from montecarlo.stats import Histogram


def _axes(ax: Axes | None, figsize: tuple[float, float] = (8, 4.5)) -> Axes:
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _visible_range(dists: Sequence[Distribution], cover: float = 0.999) -> tuple[int, int]:
    """Value range holding ``cover`` of every distribution (open tails are long)."""
    lo = min(d.lo for d in dists)
    hi = max(int(np.nan_to_num(d.ppf(cover), nan=d.hi)) for d in dists)
    return lo, max(hi, lo + 1)


def plot_distribution(
    dist: Distribution,
    ax: Axes | None = None,
    *,
    kind: str = "pmf",
    label: str | None = None,
    xlabel: str = "value",
    title: str | None = None,
    **bar_kwargs: object,
) -> Axes:
    """Bars of the exact pmf, or the exact cdf as a step line."""
    ax = _axes(ax)
    lo, hi = _visible_range([dist])
    x = np.arange(lo, hi + 1)
    label = label or dist.name or "exact"
    if kind == "pmf":
        ax.bar(x, dist.pmf(x), width=0.8, label=label, **bar_kwargs)
        ax.set_ylabel("probability P(X = x)")
    elif kind == "cdf":
        ax.step(x, dist.cdf(x), where="post", label=label)
        ax.set_ylabel("cumulative probability P(X ≤ x)")
        ax.set_ylim(0, 1.02)
    else:
        raise ValueError(f"kind must be 'pmf' or 'cdf', not {kind!r}")
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title or f"{label}: exact {kind.upper()}")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return ax


def plot_exact_vs_sampled(
    dist: Distribution,
    samples: np.ndarray | Histogram,
    ax: Axes | None = None,
    *,
    xlabel: str = "value",
    title: str | None = None,
) -> Axes:
    """Exact pmf as bars, the sampled frequencies as points with 95% error bars.

    ``samples`` is the array of draws or a :class:`~montecarlo.stats.Histogram` of them.
    """
    from montecarlo.stats import Histogram

    ax = _axes(ax)
    lo, hi = _visible_range([dist])
    x = np.arange(lo, hi + 1)
    if isinstance(samples, Histogram):
        n = samples.n
        counts = samples.between(lo, hi + 1)[:-1]
    else:
        n = samples.size
        counts = np.bincount(np.clip(samples, lo, hi + 1) - lo, minlength=hi - lo + 2)[:-1]
    freq = counts / n
    err = 1.96 * np.sqrt(np.maximum(dist.pmf(x) * (1 - dist.pmf(x)), 1e-300) / n)
    ax.bar(x, dist.pmf(x), width=0.8, color="tab:blue", alpha=0.6, label="exact")
    ax.errorbar(
        x,
        freq,
        yerr=err,
        fmt="o",
        ms=4,
        color="tab:red",
        capsize=2,
        label=f"sampled (n = {n:,}, ±95%)",
    )
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("probability P(X = x)")
    ax.set_title(title or f"{dist.name or 'distribution'}: exact vs sampled")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return ax


def plot_overlay(
    dists: Sequence[Distribution],
    *,
    xlabel: str = "damage (HP)",
    title: str = "Damage distributions",
) -> Figure:
    """PMF and CDF of several distributions side by side, overlaid per panel."""
    fig, (ax_pmf, ax_cdf) = plt.subplots(1, 2, figsize=(12, 4.5), layout="constrained")
    lo, hi = _visible_range(dists)
    x = np.arange(lo, hi + 1)
    width = 0.8 / len(dists)
    for i, d in enumerate(dists):
        offset = (i - (len(dists) - 1) / 2) * width
        ax_pmf.bar(x + offset, d.pmf(x), width=width, label=d.name)
        ax_cdf.step(x, d.cdf(x), where="post", label=d.name)
    ax_pmf.set(xlabel=xlabel, ylabel="probability P(X = x)", title="PMF")
    ax_cdf.set(xlabel=xlabel, ylabel="P(X ≤ x)", title="CDF", ylim=(0, 1.02))
    for ax in (ax_pmf, ax_cdf):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize="small")
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    return fig


def save(fig_or_ax: Figure | Axes, path: str | Path, dpi: int = 120) -> Path:
    """Save a figure (or an axes' figure) and close it; returns the path written.

    The format follows the suffix (``.png``, ``.pdf``, ``.svg``, ...); a name
    without one gets ``.png``.  An unsupported suffix or a place that cannot be
    written raises :class:`~montecarlo.errors.InputError` (the CLI checks the
    same with :func:`plot_path` before any simulation starts).
    """
    fig = fig_or_ax if hasattr(fig_or_ax, "savefig") else fig_or_ax.figure
    try:
        path = plot_path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside the target and renamed: a failure never leaves half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=path.suffix)
        os.close(fd)
        try:
            fig.savefig(tmp, dpi=dpi, format=path.suffix[1:].lower())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    finally:
        plt.close(fig)
    return path


def plot_path(path: str | Path, what: str = "plot") -> Path:
    """The file a plot will be written to, checked for format and writability."""
    return writable_file(path, what, plot_formats(), default_suffix=".png")
