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
import numbers
import os
import time
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from montecarlo.driver import progress_bar, stop_on_ctrl_c
from montecarlo.errors import DataError, InputError
from montecarlo.results_store import ResultStore
from montecarlo.seeding import SeedLike, resolve_seed
from montecarlo.validation import MAX_GRID_ROWS, check_limit

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


def _check_playable(spec: MatchupSpec, index: int) -> None:
    """Parse and place both sides of a row now, so no row fails after others have run."""
    from montecarlo.coe5.battlefield import deploy, parse_army
    from montecarlo.sf.battlefields import DEFAULT_BATTLEFIELD
    from montecarlo.sf.fights import BATTLEFIELDS, parse_party
    from montecarlo.validation import check_army_size, check_grid

    opts = dict(spec.options)
    try:
        if spec.game == "sf":
            for side in (spec.attacker, spec.defender):
                parse_party(side)
            if str(opts.get("battlefield", DEFAULT_BATTLEFIELD)).lower() not in BATTLEFIELDS:
                raise InputError(
                    f"unknown battlefield {opts['battlefield']!r}; expected one "
                    f"of {', '.join(BATTLEFIELDS)}"
                )
            for key in ("surprise", "pincer"):
                if key in opts and str(opts[key]).lower() not in ("a", "b"):
                    raise InputError(f"{key} names a side, 'a' or 'b', got {opts[key]!r}")
            if not 1 <= opts.get("max_rounds", 100) <= 10_000:
                raise InputError(f"max_rounds is 1 to 10,000, got {opts['max_rounds']}")
            return
        width, length = opts.get("width", 10), opts.get("length", 20)
        if width < 1 or length < 2:
            raise InputError(f"the grid needs width ≥ 1 and length ≥ 2, got {width} × {length}")
        check_grid(width, length)
        armies = [parse_army(side) for side in (spec.attacker, spec.defender)]
        for army, side in zip(armies, ("attacker", "defender"), strict=True):
            check_army_size(sum(n for _, n in army), side)
        if opts.get("siege") and not 1 <= opts.get("fort", 1) <= 3:
            raise InputError(f"fort is a fortification level from 1 to 3, got {opts['fort']}")
        deploy(*armies, width, length)
    except InputError as exc:
        raise InputError(f"grid row {index}: {exc}") from None


def read_grid(path: str | os.PathLike) -> pd.DataFrame | list[dict]:
    """Read a sweep grid file: a ``.csv`` with a header row, or ``.toml`` with ``[[matchup]]``.

    Raises
    ------
    InputError, DataError
        For a missing, empty, unreadable or malformed file, naming it.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"grid file not found: {str(p)!r}")
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".toml"):
        raise InputError(f"grid file {str(p)!r}: expected a .csv or .toml file")
    try:
        text = p.read_text("utf-8")
    except UnicodeDecodeError:
        raise DataError(str(p), "the file", "", "not UTF-8 text") from None
    if not text.strip():
        raise DataError(
            str(p),
            "the file",
            "",
            "is empty; expected a header row "
            "'attacker,defender' (CSV) or [[matchup]] tables (TOML)",
        )
    if suffix == ".csv":
        try:
            frame = pd.read_csv(p)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
            raise DataError(str(p), "CSV", "", " ".join(str(exc).split())) from None
        missing = [c for c in ("attacker", "defender") if c not in frame.columns]
        if missing:
            raise DataError(
                str(p),
                "header row",
                "",
                f"missing column(s) {', '.join(missing)}; "
                "expected attacker,defender[,game,options...]",
            )
        return frame
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(str(p), "TOML syntax", "", str(exc)) from None
    rows = doc.get("matchup")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise DataError(
            str(p), "top level", "matchup", "expected [[matchup]] tables with attacker and defender"
        )
    return rows


def normalize_grid(
    grid: pd.DataFrame | Iterable[Mapping[str, Any] | tuple] | str | os.PathLike,
) -> list[MatchupSpec]:
    """A sweep grid as :class:`MatchupSpec` rows, checked, duplicates refused.

    The grid is a DataFrame or a list of dicts with ``attacker``, ``defender``,
    optionally ``game`` ("coe5" or "sf") and per-game options (CoE5: siege,
    fort, width, length; SF: battlefield, surprise, pincer, max_rounds), a
    list of ``(attacker, defender)`` pairs, or the path of a ``.csv`` / ``.toml``
    grid file (see :func:`read_grid`).
    """
    if isinstance(grid, str | os.PathLike):
        grid = read_grid(grid)
    if isinstance(grid, pd.DataFrame):
        rows: list[Mapping[str, Any]] = grid.to_dict(orient="records")
    elif isinstance(grid, Mapping) or not isinstance(grid, Iterable):
        raise InputError(
            "a sweep grid is a DataFrame, a list of dicts or (attacker, defender) pairs, "
            f"or a .csv/.toml file name; got {type(grid).__name__}"
        )
    else:
        rows = []
        for i, r in enumerate(grid):
            if isinstance(r, MatchupSpec):
                rows.append(
                    {
                        "attacker": r.attacker,
                        "defender": r.defender,
                        "game": r.game,
                        **dict(r.options),
                    }
                )
            elif isinstance(r, tuple | list):
                if len(r) != 2:
                    raise InputError(f"grid row {i}: a pair is (attacker, defender), got {r!r}")
                rows.append({"attacker": r[0], "defender": r[1]})
            elif isinstance(r, Mapping):
                rows.append(r)
            else:
                raise InputError(
                    f"grid row {i}: expected a dict or an (attacker, defender) pair, "
                    f"got {type(r).__name__} {r!r}"
                )
    check_limit(
        len(rows),
        MAX_GRID_ROWS,
        "the number of grid rows",
        "each row is a whole matchup; split the grid into several sweeps",
    )
    specs = [_spec_from_mapping(r, i) for i, r in enumerate(rows)]
    if not specs:
        raise InputError("the sweep grid is empty")
    for i, spec in enumerate(specs):
        _check_playable(spec, i)
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
    progress: bool | None = False,
) -> dict[str, Any]:
    """Play one matchup and return its tidy row.  Runs on any machine (Dask workers too)."""
    from montecarlo.coe5.battle import matchup
    from montecarlo.sf.fights import fight

    ss = np.random.SeedSequence(entropy, spawn_key=(*root_key, *spec.spawn_key))
    opts = dict(spec.options)
    start = time.perf_counter()
    play = fight if spec.game == "sf" else matchup
    res = play(
        spec.attacker,
        spec.defender,
        trials=trials,
        precision=precision,
        seed=ss,
        threads=threads,
        progress=progress,
        **opts,
    )
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
        "request": _request(trials, precision),
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


def _request(trials: int | None, precision: float | None) -> str:
    """What each matchup of a sweep was asked for, as stored with its row (resume checks it).

    NumPy scalars are stored as the Python numbers they equal, so ``np.int64(2000)``
    and ``2000`` make the same request.
    """
    if precision is not None:
        value = float(precision) if isinstance(precision, numbers.Real) else precision
        return json.dumps({"precision": value}, default=str)
    value = int(trials) if isinstance(trials, numbers.Integral) else trials
    return json.dumps({"trials": value}, default=str)


def _describe(request: str) -> str:
    """``trials=2000`` or ``precision=0.01`` for an error message (the raw text if malformed)."""
    try:
        ((name, value),) = json.loads(request).items()
    except (ValueError, AttributeError):
        return repr(request)
    return f"{name}={value}"


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
    grid : DataFrame, list, or str
        See :func:`normalize_grid`; a ``.csv`` or ``.toml`` file name is read.
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
        order.  ``df.attrs["seed"]`` is the root seed's entropy.  After Ctrl-C
        the sweep stops: ``df.attrs["partial"]`` is True, ``attrs["missing"]``
        counts the matchups not finished, and the matchup that was cut short
        appears with ``partial=True`` but is not written to ``out``, so running
        the same sweep again fills in exactly the missing rows.
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
            raise InputError(
                f"{out} holds rows made with another seed; give the same seed to resume, "
                "or write to a new file"
            )
    request = _request(trials, precision)
    for row in done.values():
        stored = row.get("request")
        if isinstance(stored, str) and stored != request:
            raise InputError(
                f"{out} holds rows made with {_describe(stored)}, not {_describe(request)}; "
                "give the same to resume, or write to a new file"
            )
    # Files written before rows recorded their request have no such column; the
    # new rows leave it out too, so that they still fit the file (a CSV keeps one
    # header), and resume as before, unchecked.
    legacy = any(not isinstance(row.get("request"), str) for row in done.values())
    if isinstance(engine, str) and engine != "local":
        raise InputError(f"engine is 'local' or a dask.distributed.Client, not {engine!r}")
    pending = [s for s in specs if s.key not in done]
    cut: dict[str, Any] | None = None
    bar = progress_bar(
        progress,
        total=len(specs),
        initial=len(specs) - len(pending),
        desc="matchups",
        unit="matchup",
    )

    def finish(row: dict) -> None:
        if legacy:
            row = {k: v for k, v in row.items() if k != "request"}
        done[row["key"]] = row
        if store is not None:
            store.append(row)
        bar.update(1)

    with stop_on_ctrl_c() as stop:
        try:
            if isinstance(engine, str):
                for spec in pending:
                    if stop.requested:
                        break
                    row = run_spec(spec, entropy, root_key, trials, precision, threads)
                    if row["partial"]:
                        # Cut short by Ctrl-C: shown, never stored, so a rerun redoes it.
                        cut = row
                        break
                    finish(row)
            else:
                _run_dask(
                    engine, pending, entropy, root_key, trials, precision, threads, finish, stop
                )
        except KeyboardInterrupt:
            stop.requested = True  # Ctrl-C before the matchup in flight finished a chunk
        finally:
            bar.close()
    rows = [
        done[s.key] if s.key in done else cut
        for s in specs
        if s.key in done or (cut is not None and s.key == cut["key"])
    ]
    frame = pd.DataFrame(rows)
    frame.attrs["partial"] = len(done) < len(specs)
    frame.attrs["seed"] = entropy
    frame.attrs["missing"] = len(specs) - len(done)
    return frame


def _run_dask(client, pending, entropy, root_key, trials, precision, threads, finish, stop) -> None:
    """Submit every pending matchup to the cluster and stream the rows back.

    Polls for finished rows so that Ctrl-C (``stop``) cancels the rest within
    a fraction of a second; rows finished before it are kept.
    """
    from dask.distributed import as_completed

    # pure=False: every submission is a new task.  (A key derived from the matchup
    # alone would let the cluster hand back a result computed with another seed.)
    futures = [
        client.submit(run_spec, spec, entropy, root_key, trials, precision, threads, pure=False)
        for spec in pending
    ]
    remaining = as_completed(futures)
    try:
        while not remaining.is_empty():
            if stop.requested:
                break
            batch = remaining.next_batch(block=False)
            if not batch:
                time.sleep(0.05)
            for future in batch:
                finish(future.result())
    finally:
        if stop.requested:
            client.cancel(futures)
