"""Sweeps: many matchups, one tidy row each, streamed to disk, locally or on Dask.

Every matchup is identified by a canonical key built from its attacker,
defender, game and options.  Its random stream is seeded from (seed, key), so
a row does not depend on which other rows run, in which order, or where: the
local engine and a Dask cluster give the same numbers.  With ``out=`` each
row is written as soon as it finishes; running the same sweep again skips the
rows already on disk, so an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from montecarlo.errors import InputError
from montecarlo.results_store import ResultStore
from montecarlo.seeding import SeedLike, resolve_seed

GAMES = ("coe5", "sf")
#: Options a grid row may carry, per game, with the type each must have.
OPTIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "coe5": {"siege": bool, "fort": int, "width": int, "length": int},
    "sf": {"battlefield": str, "surprise": str, "pincer": str, "max_rounds": int},
}
OUTCOME_COLUMNS = ("attacker", "defender", "draw")


@dataclass(frozen=True)
class MatchupSpec:
    """One row of a sweep grid."""

    attacker: str
    defender: str
    game: str = "coe5"
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def key(self) -> str:
        """Canonical text that identifies the matchup (and seeds it)."""
        return json.dumps(
            {
                "game": self.game,
                "attacker": self.attacker,
                "defender": self.defender,
                "options": dict(self.options),
            },
            sort_keys=True,
        )

    @property
    def spawn_key(self) -> tuple[int, ...]:
        """Four 32-bit words of the key's SHA-256: the matchup's place in the seed tree."""
        digest = hashlib.sha256(self.key.encode()).digest()
        return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


def _spec_from_mapping(row: Mapping[str, Any], index: int) -> MatchupSpec:
    where = f"grid row {index}"
    for required in ("attacker", "defender"):
        if not isinstance(row.get(required), str) or not row[required].strip():
            raise InputError(f"{where}: '{required}' must be an army such as 'pikeman:10'")
    game = str(row.get("game", "coe5") or "coe5").lower()
    if game not in GAMES:
        raise InputError(f"{where}: unknown game {game!r}; expected one of {', '.join(GAMES)}")
    options = []
    for name, value in row.items():
        if name in ("attacker", "defender", "game") or value is None:
            continue
        if isinstance(value, float) and np.isnan(value):
            continue  # an empty cell of a DataFrame grid
        allowed = OPTIONS[game]
        if name not in allowed:
            raise InputError(
                f"{where}: unknown option {name!r} for {game}; expected any of {', '.join(allowed)}"
            )
        kind = allowed[name]
        if isinstance(value, np.generic):
            value = value.item()
        if kind is int and isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise InputError(f"{where}: option {name!r} must be {kind.__name__}, got {value!r}")
        options.append((name, value))
    return MatchupSpec(
        row["attacker"].strip(), row["defender"].strip(), game, tuple(sorted(options))
    )


def normalize_grid(grid: pd.DataFrame | Iterable[Mapping[str, Any] | tuple]) -> list[MatchupSpec]:
    """A sweep grid as :class:`MatchupSpec` rows, checked, duplicates refused.

    The grid is a DataFrame or a list of dicts with ``attacker``, ``defender``,
    optionally ``game`` ("coe5" or "sf") and per-game options (CoE5: siege,
    fort, width, length; SF: battlefield, surprise, pincer, max_rounds), or a
    list of ``(attacker, defender)`` pairs.
    """
    if isinstance(grid, pd.DataFrame):
        rows: list[Mapping[str, Any]] = grid.to_dict(orient="records")
    else:
        rows = [
            {"attacker": r[0], "defender": r[1]} if isinstance(r, tuple | list) else r for r in grid
        ]
    specs = [_spec_from_mapping(r, i) for i, r in enumerate(rows)]
    if not specs:
        raise InputError("the sweep grid is empty")
    keys = [s.key for s in specs]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise InputError(f"the grid repeats a matchup: {dup}")
    return specs


def run_spec(
    spec: MatchupSpec,
    entropy: Any,
    root_key: tuple[int, ...],
    trials: int | None,
    precision: float | None,
    threads: int | None = None,
) -> dict[str, Any]:
    """Play one matchup and return its tidy row.  Runs on any machine (Dask workers too)."""
    from montecarlo.coe5.battle import matchup
    from montecarlo.sf.fights import fight

    ss = np.random.SeedSequence(entropy, spawn_key=(*root_key, *spec.spawn_key))
    opts = dict(spec.options)
    start = time.perf_counter()
    play = fight if spec.game == "sf" else matchup
    res = play(spec.attacker, spec.defender, trials=trials, precision=precision, seed=ss,
               threads=threads, progress=False, **opts)  # fmt: skip
    # SF results name their sides "a" and "b"; a sweep row calls them attacker/defender.
    names = {"attacker": "a", "defender": "b", "draw": "draw"} if spec.game == "sf" else {}
    counts = [res.counts[names.get(k, k)] for k in OUTCOME_COLUMNS]
    pmf = res.rounds_pmf
    n = res.n
    mean = float(np.dot(pmf.index, pmf.values))
    var = float(np.dot((pmf.index - mean) ** 2, pmf.values))
    row: dict[str, Any] = {
        "key": spec.key,
        "game": spec.game,
        "attacker": spec.attacker,
        "defender": spec.defender,
        "options": json.dumps(opts, sort_keys=True),
        "trials": n,
    }
    for name, k in zip(OUTCOME_COLUMNS, counts, strict=True):
        lo, hi = res.interval(names.get(name, name))
        row[f"n_{name}"] = int(k)
        row[f"p_{name}"] = k / n
        row[f"p_{name}_lo"] = lo
        row[f"p_{name}_hi"] = hi
    row["rounds_mean"] = mean
    row["rounds_se"] = float(np.sqrt(var / max(n - 1, 1)))
    row["partial"] = bool(res.partial)
    row["seconds"] = time.perf_counter() - start
    row["seed"] = json.dumps(entropy if isinstance(entropy, int) else list(entropy))
    return row


def sweep(
    grid: pd.DataFrame | Iterable,
    *,
    trials: int | None = None,
    precision: float | None = None,
    seed: SeedLike = None,
    rng: SeedLike = None,
    engine: Any = "local",
    out: str | None = None,
    threads: int | None = None,
    progress: bool | None = True,
) -> pd.DataFrame:
    """Run every matchup of ``grid``; one tidy row per matchup.

    Parameters
    ----------
    grid : DataFrame or list
        See :func:`normalize_grid`.
    trials, precision
        Per matchup, as in :func:`~montecarlo.coe5.battle.matchup`.
    seed, rng
        Root seed; each matchup's stream derives from (seed, its key).
    engine : "local" or dask.distributed.Client
        Where the matchups run.  Results are identical either way.
    out : str, optional
        A ``.csv`` file or a ``.parquet`` directory: rows are written as they
        finish, and rows already there are not run again (resume).
    threads : int, optional
        Numba threads per matchup (default: all cores of the machine running it).

    Returns
    -------
    pandas.DataFrame
        Rates with 95% Wilson intervals, counts, rounds and timing, in grid
        order.  ``df.attrs["partial"]`` is True after a Ctrl-C.
    """
    specs = normalize_grid(grid)
    if trials is None and precision is None:
        trials = 20_000
    store = ResultStore(out) if out is not None else None
    done: dict[str, dict] = store.rows() if store is not None else {}
    if store is not None and done and seed is None and rng is None:
        seed = json.loads(next(iter(done.values()))["seed"])  # resume with the stored seed
        seed = seed if isinstance(seed, int) else np.random.SeedSequence(seed)
    ss = resolve_seed(seed, rng)
    entropy, root_key = ss.entropy, tuple(ss.spawn_key)
    for row in done.values():
        if row["seed"] != json.dumps(entropy if isinstance(entropy, int) else list(entropy)):
            raise InputError(f"{out} holds rows made with another seed; use a new out= file")
    pending = [s for s in specs if s.key not in done]
    partial = False
    bar = tqdm(
        total=len(specs),
        initial=len(specs) - len(pending),
        desc="matchups",
        unit="matchup",
        disable=progress is False,
        delay=0 if progress else 1.0,
        leave=False,
    )

    def finish(row: dict) -> None:
        done[row["key"]] = row
        if store is not None:
            store.append(row)
        bar.update(1)

    try:
        if isinstance(engine, str):
            if engine != "local":
                raise InputError(f"engine is 'local' or a dask.distributed.Client, not {engine!r}")
            for spec in pending:
                finish(run_spec(spec, entropy, root_key, trials, precision, threads))
        else:
            partial = _run_dask(
                engine, pending, entropy, root_key, trials, precision, threads, finish
            )
    except KeyboardInterrupt:
        partial = True
    finally:
        bar.close()
    rows = [done[s.key] for s in specs if s.key in done]
    frame = pd.DataFrame(rows)
    frame.attrs["partial"] = partial or len(rows) < len(specs)
    return frame


def _run_dask(client, pending, entropy, root_key, trials, precision, threads, finish) -> bool:
    """Submit every pending matchup to the cluster and stream the rows back."""
    from dask.distributed import as_completed

    # pure=False: every submission is a new task.  (A key derived from the matchup
    # alone would let the cluster hand back a result computed with another seed.)
    futures = [
        client.submit(run_spec, spec, entropy, root_key, trials, precision, threads, pure=False)
        for spec in pending
    ]
    try:
        for future in as_completed(futures):
            finish(future.result())
    except KeyboardInterrupt:
        client.cancel(futures)
        return True
    return False
