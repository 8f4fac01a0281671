"""The grid of a replayed CoE5 battle, frame by frame, as PNG or animated GIF."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import FuncAnimation, PillowWriter
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from montecarlo.coe5.replay import Replay

_CMAPS = ("Blues", "Reds")  # attacker, defender
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h")


def _frame_label(rnd: int, rounds: int) -> str:
    if rnd < 0:
        return f"siege round {rnd}"
    if rnd == 0:
        return "before round 1 (C-7)"
    if rnd > rounds:
        return f"extra round {rnd - rounds}"
    return f"round {rnd}"


def frames(rep: Replay) -> list[dict]:
    """The battlefield at deployment and at the end of each round (and C-7 phase).

    Each frame holds ``label``, ``x``, ``y``, ``hp``, ``fate`` ("alive",
    "dead", "routed") per unit and ``clouds`` (tile -> weapon name).
    """
    units = rep.units
    n = len(units)
    x = units["x"].to_numpy().copy()
    y = units["y"].to_numpy().copy()
    hp = units["max_hp"].to_numpy().copy()
    fate = np.array(["alive"] * n, dtype=object)
    clouds: dict[tuple[int, int], str] = {}
    out: list[dict] = []

    def snap(label: str) -> None:
        out.append({"label": label, "x": x.copy(), "y": y.copy(), "hp": hp.copy(),
                    "fate": fate.copy(), "clouds": dict(clouds)})  # fmt: skip

    snap("deployment (C-6)")
    label = _frame_label(0, rep.rounds)
    dirty = False
    for ev in rep.events.itertuples(index=False):
        if ev.kind == "deploy":
            continue
        if ev.kind in ("round", "end"):
            if dirty:
                snap(label)
            label = _frame_label(ev.round, rep.rounds)
            dirty = False
            continue
        dirty = True
        j = ev.target_slot
        if ev.kind == "move":
            x[ev.actor_slot], y[ev.actor_slot] = int(ev.x1), int(ev.y1)
        elif ev.kind in ("hit", "damage", "heal") and j >= 0:
            hp[j] = ev.hp
        elif ev.kind == "death":
            fate[j] = "dead"
        elif ev.kind == "rout":
            fate[j] = "routed"
        elif ev.kind == "cloud":
            clouds[(int(ev.x1), int(ev.y1))] = ev.weapon
        elif ev.kind == "cloud-gone":
            clouds.pop((int(ev.x1), int(ev.y1)), None)
    if dirty:
        snap(label)
    out[-1]["label"] += f" — the end: {rep.outcome.replace('-', ' ')}"
    return out


def _draw(rep: Replay, frame: dict, ax: Axes) -> None:
    """Draw one frame on ``ax``: wall, clouds, units by part, the dead."""
    ax.clear()
    width, length = rep.options["width"], rep.options["length"]
    handles: list = []
    if rep.options["siege"]:
        col = rep.deployment.wall_col
        ax.axvspan(col - 0.5, col + 0.5, color="0.6", alpha=0.5, zorder=0)
        handles.append(Patch(color="0.6", alpha=0.5, label=f"wall (fort {rep.options['fort']})"))
    for (cx, cy), _ in frame["clouds"].items():
        ax.add_patch(Rectangle((cx - 0.5, cy - 0.5), 1, 1, color="tab:green", alpha=0.35))
    if frame["clouds"]:
        handles.append(Patch(color="tab:green", alpha=0.35, label="cloud (C-8.2)"))
    units = rep.units
    marker_of = {}
    for p, part in enumerate(rep.deployment.parts):
        k = sum(1 for q in rep.deployment.parts[:p] if q.side == part.side)
        marker_of[p] = _MARKERS[k % len(_MARKERS)]
        side = ("attacker", "defender")[part.side]
        cmap = plt.get_cmap(_CMAPS[part.side])
        handles.append(Line2D([], [], ls="", marker=marker_of[p], ms=9, mfc=cmap(0.8), mec="k",
                              label=f"{part.unit.name} ×{part.count} ({side})"))  # fmt: skip
    alive = frame["fate"] == "alive"
    for i in np.flatnonzero(alive):
        part = int(units["part"].iat[i])
        side = rep.deployment.parts[part].side
        frac = max(0.0, min(1.0, frame["hp"][i] / units["max_hp"].iat[i]))
        colour = plt.get_cmap(_CMAPS[side])(0.3 + 0.65 * frac)
        ax.plot(frame["x"][i], frame["y"][i], marker=marker_of[part], ms=15, mfc=colour,
                mec="k", ls="", zorder=3)  # fmt: skip
        ax.text(frame["x"][i], frame["y"][i], str(int(frame["hp"][i])), ha="center",
                va="center", fontsize=7, color="k" if frac < 0.6 else "w", zorder=4)  # fmt: skip
    dead = frame["fate"] == "dead"
    if dead.any():
        ax.plot(frame["x"][dead], frame["y"][dead], "x", color="0.45", ms=8, zorder=2)
        handles.append(Line2D([], [], ls="", marker="x", color="0.45", label="dead"))
    counts = []
    for side in ("attacker", "defender"):
        mine = (units["side"] == side).to_numpy()
        counts.append(
            f"{side}: {int(np.sum(mine & alive))} alive, {int(np.sum(mine & dead))} dead, "
            f"{int(np.sum(mine & (frame['fate'] == 'routed')))} routed"
        )
    ax.set_xlim(-0.5, length - 0.5)
    ax.set_ylim(-0.5, width - 0.5)
    ax.set_aspect("equal")
    ax.set_xticks(np.arange(-0.5, length, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, width, 1), minor=True)
    ax.grid(which="minor", color="0.85", lw=0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("column (attacker deploys on the left)")
    ax.set_ylabel("row")
    ax.set_title(
        f"Battle {rep.battle}, seed {rep.seed}: {frame['label']}\n{rep.title}\n"
        + "; ".join(counts),
        fontsize=9,
    )
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              title="number in a marker: HP\ndarker: fuller HP", title_fontsize=8)  # fmt: skip


def _figure(rep: Replay) -> tuple[Figure, Axes]:
    length, width = rep.options["length"], rep.options["width"]
    size = (min(16.0, 4.0 + 0.45 * length), min(12.0, 1.8 + 0.45 * width))
    return plt.subplots(figsize=size, layout="constrained")


def plot_frame(rep: Replay, frame: dict) -> Figure:
    """A figure of one frame of :func:`frames`."""
    fig, ax = _figure(rep)
    _draw(rep, frame, ax)
    return fig


def save_gif(rep: Replay, path: str | Path, fps: float = 2.0) -> Path:
    """Write the battle round by round to ``path`` with matplotlib's Pillow writer."""
    shots = frames(rep)
    fig, ax = _figure(rep)
    anim = FuncAnimation(fig, lambda k: _draw(rep, shots[k], ax), frames=len(shots))
    anim.save(str(path), writer=PillowWriter(fps=fps))
    plt.close(fig)
    return Path(path)
