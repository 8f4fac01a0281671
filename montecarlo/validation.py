"""Field-by-field validation of TOML roster entries, shared by both rulesets.

Every failure is a :class:`~montecarlo.errors.DataError` naming the file, the
entry, the field and what was expected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from montecarlo.errors import DataError


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

    def choice(self, data: Mapping[str, Any], key: str, options: Iterable[str],
               prefix: str = "") -> str:  # fmt: skip
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
