"""Lines of a ``.c5m`` file as statements (RULES.md C-11.1.1).

The files use CRLF line ends, ``#`` comments, a ``descr "..."`` text that may
span lines, and hidden commands written as comments (``# fx1252``,
``# res13``, ``# move46``, ``# wep52``, ``# 0x7c``, ``# [named]``,
``# weapontype49``).  A line that is neither blank, a comment, nor a command
with whole-number and quoted arguments is malformed: reading stops with a
:class:`~montecarlo.errors.DataError` naming the file and the line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from montecarlo.errors import DataError, InputError

#: The comment forms that hold a command the modding format cannot write (C-11.1.1).
HIDDEN = re.compile(
    r"^#\s*(fx\d+|res\d+|move\d+|wep\d+|0x[0-9a-fA-F]+|weapontype\d+|\[[\w?]+\])(?=\s|$)"
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"[+-]?\d+")
#: ``1:"Captain"``: the offset form of a monster name (the second monster so named).
_OFFSET_NAME = re.compile(r'(\d+):"([^"]*)"')
#: Commands whose quoted text may run over several lines.
MULTILINE = ("descr", "description")

Arg = int | str


@dataclass(frozen=True)
class Statement:
    """One command of a ``.c5m`` file.

    Attributes
    ----------
    file : str
        The file, as the user named it.
    line : int
        Its line number, from 1.
    command : str
        The command in lower case (``meleeweapon``), or a hidden one (``fx1252``,
        ``[meleeweaponsingle]``).
    args : tuple of int or str
        Whole numbers and quoted texts, in order.  An offset name ``1:"Captain"``
        is the text ``"Captain"`` followed by the offset ``1``, as ``selectmonster``
        writes it.
    comment : str
        The text after ``#``, stripped (the index on a ``newmonster`` line, a
        hidden command's meaning).
    hidden : bool
        True for a command written as a comment (C-11.9).
    """

    file: str
    line: int
    command: str
    args: tuple[Arg, ...]
    comment: str = ""
    hidden: bool = False

    @property
    def where(self) -> str:
        """``"file: line N"`` for messages."""
        return f"{self.file}: line {self.line}"

    def args_text(self) -> str:
        """The arguments as written (texts quoted, a text's line breaks as spaces)."""
        return " ".join(
            f'"{" ".join(a.split())}"' if isinstance(a, str) else str(a) for a in self.args
        )


def _fail(file: str, line: int, problem: str) -> DataError:
    return DataError(file, f"line {line}", "", problem)


def _split_args(text: str, file: str, line: int, strict: bool) -> tuple[list[Arg], str] | None:
    """Arguments and the comment of the rest of a line; None (or a DataError) if malformed."""
    args: list[Arg] = []
    pos = 0
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch.isspace():
            pos += 1
            continue
        if ch == "#":
            return args, text[pos + 1 :].strip()
        if ch == '"':
            end = text.find('"', pos + 1)
            if end < 0:
                if strict:
                    raise _fail(file, line, "a quoted text is not closed on its line")
                return None
            args.append(text[pos + 1 : end])
            pos = end + 1
            continue
        m = _OFFSET_NAME.match(text, pos)
        if m:
            args += [m[2], int(m[1])]
            pos = m.end()
            continue
        m = _INT.match(text, pos)
        if m and (m.end() == n or text[m.end()].isspace() or text[m.end()] == "#"):
            args.append(int(m[0]))
            pos = m.end()
            continue
        if strict:
            word = text[pos:].split()[0]
            raise _fail(
                file,
                line,
                f"argument {word!r} is neither a whole number nor a quoted text "
                '(expected e.g. 12, -1 or "Spear")',
            )
        return None
    return args, ""


def statements(text: str, file: str) -> Iterator[Statement]:
    """The statements of a ``.c5m`` text, in order (C-11.1.1).

    Raises
    ------
    DataError
        At the first malformed line, naming ``file`` and the line.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    i = 0
    while i < len(lines):
        number = i + 1
        raw = lines[i].strip()
        i += 1
        if not raw:
            continue
        if raw.startswith("#"):
            m = HIDDEN.match(raw)
            if not m:
                continue  # a plain comment
            rest = raw[m.end() :]
            parsed = _split_args(rest, file, number, strict=False)
            if parsed is None:
                continue  # prose that starts like a hidden command (the files' headers)
            args, comment = parsed
            yield Statement(file, number, m[1].lower(), tuple(args), comment, hidden=True)
            continue
        m = _WORD.match(raw)
        if not m or (m.end() < len(raw) and not raw[m.end()].isspace() and raw[m.end()] != "#"):
            word = raw.split()[0]
            raise _fail(file, number, f"{word!r} is not a command (expected a word such as hp)")
        command = m[0].lower()
        rest = raw[m.end() :]
        if command in MULTILINE and rest.count('"') % 2 == 1:
            # The text runs on to the line that closes its quote.
            start = number
            while rest.count('"') % 2 == 1:
                if i >= len(lines):
                    raise _fail(file, start, f'the text of {command} is never closed (no second ")')
                rest += "\n" + lines[i]
                i += 1
        if command in MULTILINE and '"' in rest:
            # Free text: from the first quote to the last, inner quotes included.
            first, last = rest.index('"'), rest.rindex('"')
            tail = _split_args(rest[last + 1 :], file, number, strict=True)
            assert tail is not None  # strict parsing raises instead
            yield Statement(file, number, command, (rest[first + 1 : last],), tail[1])
            continue
        parsed = _split_args(rest, file, number, strict=True)
        assert parsed is not None  # strict parsing raises instead
        args, comment = parsed
        yield Statement(file, number, command, tuple(args), comment)


def read_statements(path: str | Path, what: str = "a .c5m file") -> list[Statement]:
    """All statements of the file at ``path``.

    Raises
    ------
    InputError
        If the file is missing or unreadable.
    DataError
        At the first malformed line.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{what} not found: {p}")
    data = p.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # older mods; every byte is a character there
    return list(statements(text, str(p)))
