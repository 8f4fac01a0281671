"""Field-by-field validation of TOML roster entries, shared by both rulesets.

Every failure is a :class:`~montecarlo.errors.DataError` naming the file, the
entry, the field and what was expected.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from montecarlo.errors import DataError, InputError


def describe(value: Any) -> str:
    """``"str 'twelve'"``: a value with its type, for error messages."""
    return f"{type(value).__name__} {value!r}"


class FieldChecker:
    """Checks the fields of one entry, raising :class:`DataError` with the full location."""

    def __init__(self, file: str, entry: str) -> None:
        self.file = file
        self.entry = entry

    def fail(self, fld: str, problem: str) -> DataError:
        """The error to raise for field ``fld``."""
        return DataError(self.file, self.entry, fld, problem)

    def int_(self, data: Mapping[str, Any], key: str, lo: int, hi: int, prefix: str = "") -> int:
        """An integer within ``lo..hi``."""
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(prefix + key, f"expected an integer, got {describe(value)}")
        if not lo <= value <= hi:
            if key == "hp" and value <= 0:
                raise self.fail(prefix + key, f"hit points must be positive, got {value}")
            raise self.fail(prefix + key, f"expected an integer from {lo} to {hi}, got {value}")
        return value

    def bool_(self, data: Mapping[str, Any], key: str, prefix: str = "") -> bool:
        """``true`` or ``false``."""
        value = data[key]
        if not isinstance(value, bool):
            raise self.fail(prefix + key, f"expected true or false, got {describe(value)}")
        return value

    def str_(self, data: Mapping[str, Any], key: str, prefix: str = "") -> str:
        """A non-empty string, stripped."""
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(prefix + key, f"expected a non-empty string, got {describe(value)}")
        return value.strip()

    def choice(
        self, data: Mapping[str, Any], key: str, options: Iterable[str], prefix: str = ""
    ) -> str:
        """One of ``options`` (compared in lower case)."""
        options = tuple(options)
        value = self.str_(data, key, prefix).lower()
        if value not in options:
            raise self.fail(
                prefix + key, f"unknown value {value!r}; expected one of: {', '.join(options)}"
            )
        return value

    def unknown(self, data: Mapping[str, Any], allowed: Iterable[str], prefix: str = "") -> None:
        """Reject fields not in ``allowed``."""
        allowed = set(allowed)
        for key in data:
            if key not in allowed:
                raise self.fail(
                    prefix + key, f"unknown field; expected one of: {', '.join(sorted(allowed))}"
                )

    def require(self, data: Mapping[str, Any], keys: Iterable[str], prefix: str = "") -> None:
        """Reject a missing required field."""
        for key in keys:
            if key not in data:
                raise self.fail(prefix + key, "missing required field")


# -- limits -------------------------------------------------------------------
# Each limit is checked before any work starts, and its message says why it is
# there.  They are generous for real use and stop only inputs that would run
# out of memory or time (see docs/rules.md, "Limits").

#: Largest die size (after bonuses and strength).  The exact table of OED(N)
#: holds about 14·N values (the tail is cut at 1e-14), and CoE5's largest
#: weapons are below 1-40; 10,000 keeps every table under a few MB.
MAX_DIE_SIZE = 10_000
#: Most dice summed in one roll (``--dice``): the exact table is a k-fold convolution.
MAX_DICE = 100
#: Largest trial count of a streamed run.  Memory does not grow with it, but at
#: a billion dice per second 10^12 trials already take a quarter of an hour, and
#: float64 sums of 10^12 values keep about four significant digits of headroom.
MAX_TRIALS = 10**12
#: Most values a run may keep in memory (``sample()``, ``keep_trials=True``):
#: 10^8 values are 0.8 GB as int64.
MAX_KEPT = 10**8
#: Most units on one side of a battle, summed over the army.  The kernel moves
#: every unit each round; at 1,000 units a side one battle already takes ~0.1 s.
MAX_UNITS_PER_SIDE = 1_000
#: Largest grid side (rows or columns) and grid area of a CoE5 battle: the kernel
#: keeps a grid per thread and scans it for every unit that moves.
MAX_GRID_SIDE = 1_000
MAX_GRID_CELLS = 100_000
#: Most matchups in one sweep grid (and units in a round robin: n² matchups).
MAX_GRID_ROWS = 100_000
MAX_ROUND_ROBIN_UNITS = 100


def toml_tables(text: str, file: str, table: str) -> list[Any]:
    """The ``[[table]]`` entries of a TOML roster text, the only top-level key allowed.

    Shared by the CoE5 unit, SF character and SF battlefield loaders, so each
    refuses bad syntax, a stray top-level key or a non-table entry the same way.
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(file, "TOML syntax", "", str(exc)) from None
    unknown = set(doc) - {table}
    if unknown:
        raise DataError(file, "top level", unknown.pop(), f"unknown key; use [[{table}]] tables")
    entries = doc.get(table, [])
    if not isinstance(entries, list):
        raise DataError(file, "top level", table, f"expected [[{table}]] tables")
    return entries


def check_limit(value: int, limit: int, what: str, why: str) -> int:
    """Raise :class:`~montecarlo.errors.InputError` when ``value`` exceeds ``limit``."""
    if value > limit:
        raise InputError(f"{what} is {value:,}, above the limit of {limit:,}: {why}")
    return value


def check_kept(values: int, what: str = "keeping every trial") -> int:
    """Refuse to keep more than :data:`MAX_KEPT` values in memory."""
    return check_limit(
        values,
        MAX_KEPT,
        f"the number of values kept ({what})",
        f"{MAX_KEPT:,} int64 values already take 0.8 GB; use fewer trials or summaries that stream",
    )


def check_trial_count(trials: int) -> int:
    """Refuse a trial count above :data:`MAX_TRIALS`."""
    return check_limit(
        trials,
        MAX_TRIALS,
        "the trial count",
        "a run that long takes hours to days even for single dice",
    )


def check_die_size(size: int) -> int:
    """Refuse die sizes above :data:`MAX_DIE_SIZE`, with why."""
    return check_limit(
        size,
        MAX_DIE_SIZE,
        "the die size",
        "the exact table of OED(N) holds about 14·N values, and CoE5 weapons stay below 1-40",
    )


def check_grid(width: int, length: int) -> None:
    """Refuse CoE5 grids larger than :data:`MAX_GRID_SIDE` / :data:`MAX_GRID_CELLS`."""
    why = "the battle kernel keeps a grid per thread and scans it for every move"
    check_limit(width, MAX_GRID_SIDE, "the grid width", why)
    check_limit(length, MAX_GRID_SIDE, "the grid length", why)
    check_limit(width * length, MAX_GRID_CELLS, "the grid area (width × length)", why)


def check_army_size(total: int, side: str) -> int:
    """Refuse an army of more than :data:`MAX_UNITS_PER_SIDE` units."""
    return check_limit(
        total,
        MAX_UNITS_PER_SIDE,
        f"the {side}'s unit count",
        "every unit moves and attacks each round; larger battles take seconds each",
    )


# -- output paths --------------------------------------------------------------
def plot_formats() -> tuple[str, ...]:
    """File suffixes matplotlib can write (``.png``, ``.pdf``, ``.svg``, ...)."""
    from matplotlib.backend_bases import FigureCanvasBase

    return tuple(f".{k}" for k in FigureCanvasBase.get_supported_filetypes())


def _nearest_existing(path: Path) -> Path:
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def _probe_writable(folder: Path, what: str, path: Path) -> None:
    """Create and remove a scratch file in ``folder``: the one sure test of writability."""
    if not folder.is_dir():
        raise InputError(f"{what} {str(path)!r}: {str(folder)!r} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".montecarlo-probe-")
    except OSError as exc:
        raise InputError(
            f"{what} {str(path)!r}: cannot write in {str(folder)!r} ({exc.strerror or exc})"
        ) from None
    os.close(fd)
    os.unlink(probe)


def writable_file(
    path: str | os.PathLike,
    what: str,
    suffixes: Iterable[str] | None = None,
    default_suffix: str | None = None,
) -> Path:
    """Check, before any work, that ``path`` can be written as a file of a supported format.

    Parameters
    ----------
    path : str or PathLike
        The file to be written later.  Missing parent folders are allowed (they
        are created when the file is written) if the nearest existing one is writable.
    what : str
        How the user gave it, for messages (``"--plot"``, ``"out="``).
    suffixes : iterable of str, optional
        Accepted suffixes, lower case with the dot.
    default_suffix : str, optional
        Appended to a name that has no suffix at all (``noext`` → ``noext.png``),
        so the file written and the file reported are the same.

    Returns
    -------
    pathlib.Path
        The path that will be written.

    Raises
    ------
    InputError
        Naming ``what``, the path and what was expected.
    """
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise InputError(f"{what} expects a file name, got {path!r}")
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} {str(p)!r} is a folder; expected a file name")
    if default_suffix and not p.suffix:
        p = p.with_name(p.name + default_suffix)
    if suffixes is not None:
        suffixes = tuple(suffixes)
        if p.suffix.lower() not in suffixes:
            raise InputError(
                f"{what} {str(p)!r}: unsupported file type {p.suffix or '(none)'!r}; "
                f"expected a name ending in {', '.join(suffixes)}"
            )
    if p.exists() and not os.access(p, os.W_OK):
        raise InputError(f"{what} {str(p)!r}: the file exists and is not writable")
    _probe_writable(_nearest_existing(p), what, p)
    return p


def writable_folder(path: str | os.PathLike, what: str) -> Path:
    """Check, before any work, that ``path`` is (or can become) a writable folder."""
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise InputError(f"{what} expects a folder name, got {path!r}")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(f"{what} {str(p)!r} is an existing file; expected a folder")
    _probe_writable(p if p.is_dir() else _nearest_existing(p), what, p)
    return p


def coerce_rules(rules: Any, cls: type, what: str = "rules") -> Any:
    """``rules`` as an instance of the dataclass ``cls``: None, an instance, or a dict of fields.

    Users try ``rules={"burn_chance": 0.3}`` as often as ``rules=BattleRules(...)``;
    both work, and anything else is an :class:`~montecarlo.errors.InputError`
    that lists the fields.
    """
    import dataclasses

    if rules is None or isinstance(rules, cls):
        return rules
    names = [f.name for f in dataclasses.fields(cls)]
    if isinstance(rules, Mapping):
        unknown = [k for k in rules if k not in names]
        if unknown:
            raise InputError(
                f"{what}: unknown field(s) {', '.join(map(repr, unknown))} of {cls.__name__}; "
                f"expected any of {', '.join(names)} (see docs/rules.md)"
            )
        return cls(**rules)
    raise InputError(
        f"{what} must be a {cls.__name__} or a dict of its fields, got {describe(rules)}"
    )
