"""Errors raised for bad user input.

Every message says what was given, where it came from and what was expected,
so that the CLI can print it as-is instead of a traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """A value supplied by the user is not acceptable."""


class UnknownName(InputError, KeyError):
    """A unit or character name that is not in the roster.

    Also a :class:`KeyError`, so ``name in roster`` works as for any mapping.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DataError(InputError):
    """An entry of a data file (a roster TOML) is invalid.

    Parameters
    ----------
    file : str
        The file the entry came from.
    entry : str
        The entry (unit or character) name, or a description of it.
    field : str
        The offending field, dotted for nested fields (``weapons[1].damage``).
    problem : str
        What is wrong and what was expected.
    """

    def __init__(self, file: str, entry: str, field: str, problem: str) -> None:
        self.file = file
        self.entry = entry
        self.field = field
        self.problem = problem
        where = f"{file}: {entry}"
        if field:
            where += f": field '{field}'"
        super().__init__(f"{where}: {problem}")
