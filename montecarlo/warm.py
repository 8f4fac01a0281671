"""Compile every kernel into Numba's on-disk cache ahead of use (``montecarlo warm``).

A fresh install (or a new Numba, or a changed kernel) compiles each kernel on its
first use: the battle kernel with and without its extras, the replays' kernels,
the fight kernel, the samplers.  :func:`warm` plays a tiny job of each kind, so
that every later command starts at once.  Each step is one row of the returned
table with the seconds it took (a cached kernel loads in a fraction of a second).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pandas as pd

from montecarlo.driver import progress_bar


def _coe5_battles() -> None:
    import montecarlo as mc

    mc.matchup("militia:2", "militia:2", trials=2, seed=0, progress=False)


def _coe5_battles_with_extras() -> None:
    import montecarlo as mc

    mc.matchup("archer:2,militia:2", "archer:2,militia:2", trials=2, seed=0, siege=True,
               progress=False)  # fmt: skip


def _coe5_replays() -> None:
    import montecarlo as mc

    mc.replay("militia:2", "militia:2", seed=0, battle=0, trials=1)


def _coe5_samplers() -> None:
    import montecarlo as mc

    for die in ("1-5", "1-6"):  # a d5 takes the lane sampler, a d6 the plain one
        mc.damage(mc.Weapon("Club", mc.parse_die(die)), "knight").sample(8, seed=0)
    for die, dice in ((5, 1), (6, 1), (6, 2)):  # lanes, the level table, several dice
        mc.oed(die, dice=dice).sample(8, seed=0)
    mc.soed(5).sample(8, seed=0)
    mc.check_roll("normal").sample(8, seed=0)
    mc.Distribution([0.5, 0.5]).sample(8, seed=0)  # any table


def _sf_fights() -> None:
    import montecarlo as mc

    mc.sf.fight("warrior:1", "orc:1", trials=2, seed=0, progress=False)


def _sf_replays() -> None:
    import montecarlo as mc

    mc.sf.replay("warrior:1", "orc:1", seed=0, fight=0, trials=1)


def _sf_samplers() -> None:
    import montecarlo as mc
    from montecarlo.sf.sampling import sample_attack, sample_friendly_fire_counts

    sample_attack("warrior", "orc", 8, seed=0)
    sample_friendly_fire_counts(7, 8, seed=0)
    mc.sf.sample_check(0, 7, 8, seed=0)


#: Each step of :func:`warm`: a name, and a tiny job that compiles its kernels.
STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("CoE5 battles", _coe5_battles),
    ("CoE5 battles with extras", _coe5_battles_with_extras),
    ("CoE5 replays", _coe5_replays),
    ("CoE5 damage and dice", _coe5_samplers),
    ("SF fights", _sf_fights),
    ("SF replays", _sf_replays),
    ("SF attacks and checks", _sf_samplers),
)


def warm(progress: bool | None = True) -> pd.DataFrame:
    """Compile (or load) every kernel; returns each step and its seconds.

    Parameters
    ----------
    progress : bool or None
        Show a progress bar naming the step being compiled (None: when stderr
        is a terminal).
    """
    steps = STEPS
    rows = []
    bar = progress_bar(progress, total=len(steps), desc="compiling", unit="step")
    try:
        for name, step in steps:
            bar.set_postfix_str(name)
            start = time.perf_counter()
            step()
            rows.append({"step": name, "seconds": time.perf_counter() - start})
            bar.update(1)
    finally:
        bar.close()
    return pd.DataFrame(rows)
