"""Append-only result files that survive interruption: CSV or a Parquet directory.

Rows are keyed by ``row["key"]``.  Each row reaches the disk whole or not at
all: a CSV row is one ``write`` followed by ``fsync``, and a torn last line
left by a crash is dropped on the next open; a Parquet row is a part file
written under a temporary name and renamed into place.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from pathlib import Path
from typing import Any

import pandas as pd

from montecarlo.errors import DataError, InputError
from montecarlo.validation import writable_file, writable_folder


class ResultStore:
    """Rows keyed by ``"key"``, streamed to ``path`` (``.csv`` or ``.parquet``)."""

    def __init__(self, path: str | os.PathLike, what: str = "out=") -> None:
        if not isinstance(path, str | os.PathLike):
            raise InputError(f"{what} expects a .csv or .parquet name, got {path!r}")
        self.path = Path(path)
        suffix = self.path.suffix.lower()
        if suffix not in (".csv", ".parquet"):
            raise InputError(
                f"{what} {str(self.path)!r}: expected a name ending in .csv (a file) or "
                ".parquet (a folder)"
            )
        self.kind = suffix[1:]
        # Checked now, before any matchup runs: a sweep must not fail at its first row.
        if self.kind == "csv":
            writable_file(self.path, what, (".csv",))
        else:
            writable_folder(self.path, what)
        self._columns: list[str] | None = None
        if self.kind == "parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise InputError("Parquet output needs pyarrow: pip install pyarrow") from None
        if self.kind == "csv" and self.path.exists():
            self._repair_csv()

    # -- reading -----------------------------------------------------------------
    def rows(self) -> dict[str, dict[str, Any]]:
        """Complete rows already stored, by key."""
        frame = self.read()
        if frame.empty:
            return {}
        return {r["key"]: r for r in frame.to_dict(orient="records")}

    def read(self) -> pd.DataFrame:
        """Everything stored so far."""
        if not self.path.exists():
            return pd.DataFrame()
        if self.kind == "csv":
            text = {"key": str, "seed": str, "options": str}
            try:
                frame = pd.read_csv(self.path, keep_default_na=False, na_values=[""], dtype=text)
            except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
                raise DataError(
                    str(self.path), "stored rows", "", " ".join(str(exc).split())
                ) from None
            if not frame.empty and not {"key", "seed"} <= set(frame.columns):
                raise DataError(
                    str(self.path),
                    "header row",
                    "",
                    "not a sweep's output (no key and seed columns); use a new out= file",
                )
            return frame
        parts = sorted(self.path.glob("part-*.parquet"))
        if not parts:
            return pd.DataFrame()
        return pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)

    # -- writing -----------------------------------------------------------------
    def append(self, row: dict[str, Any]) -> None:
        """Store one finished row, atomically."""
        if self.kind == "csv":
            self._append_csv(row)
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha256(row["key"].encode()).hexdigest()[:20]
            final = self.path / f"part-{name}.parquet"
            tmp = self.path / f".tmp-{name}.parquet"
            pd.DataFrame([row]).to_parquet(tmp, index=False)
            os.replace(tmp, final)

    def _append_csv(self, row: dict[str, Any]) -> None:
        new = not self.path.exists() or self.path.stat().st_size == 0
        if new:
            self._columns = list(row)
        elif self._columns is None:
            with self.path.open(newline="") as f:
                self._columns = next(csv.reader(f))
        if list(row) != self._columns:
            raise InputError(f"{self.path} has other columns; use a new out= file")
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=self._columns, lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerow(row)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", newline="") as f:
            f.write(buf.getvalue())
            f.flush()
            os.fsync(f.fileno())

    def _repair_csv(self) -> None:
        """Drop a torn last line (a crash mid-write) so appends start clean."""
        data = self.path.read_bytes()
        if not data or data.endswith(b"\n"):
            return
        cut = data.rfind(b"\n") + 1
        tmp = self.path.with_suffix(".csv.tmp")
        tmp.write_bytes(data[:cut])
        os.replace(tmp, self.path)
