"""Monsters and weapons of the game's files, with mods layered over them.

The base files write every entry in full (``newmonster``, ``newweapon``); a
mod read after them may add entries and edit them (``selectmonster``,
``selectweapon``, ``copystats``, ``copyweapon``, the clear commands), as the
modding manual describes.  An entry keeps its statements in order; what they
mean is decided later (:mod:`.convert`), so an edit simply adds statements that
come later and win.  Offers are gathered here too (:mod:`.recruitment`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from montecarlo.coe5.c5m import commands as T
from montecarlo.coe5.c5m.lexer import Statement
from montecarlo.coe5.c5m.recruitment import OfferReader
from montecarlo.errors import DataError

#: Mod commands that describe the mod itself: no entry, no battle.
MOD_INFO = (
    "icon",
    "description",
    "modprio",
    "mapfile",
    "fontfile",
    "translation",
    "version",
    "domversion",
)
#: Commands that start a section the reader does not read (terrain, rituals, items, ...).
OTHER_SECTIONS = (
    "selectterr",
    "newterr",
    "newritual",
    "selectritual",
    "newitem",
    "selectitem",
    "newevent",
    "selectevent",
    "newspell",
    "selectspell",
    "selectnametype",
    "newnametype",
    "selectsite",
    "newsite",
)
#: Commands that only a mod may use (C-11.1.2, C-13).
EDITS = (
    "selectmonster",
    "selectweapon",
    "copystats",
    "copyweapon",
    "clearweapons",
    "clearmove",
    "clearspec",
    "clearwspec",
    "name",
)


@dataclass
class Entry:
    """One monster or weapon: its index, its name and its statements in order.

    Attributes
    ----------
    kind : str
        ``"monster"`` or ``"weapon"``.
    index : int
        The game's index: the number in the comment of its ``new...`` line, or
        the next free one for a mod's new entry.
    name : str
        The game's name (a mod's ``name`` renames it).
    origin : Statement
        The ``new...`` line, for messages.
    statements : list of Statement
        Every command that describes it, in the order read.
    """

    kind: str
    index: int
    name: str
    origin: Statement
    statements: list[Statement] = field(default_factory=list)


@dataclass
class FileNote:
    """A line of the report about a file rather than a unit (a skipped section, mod info)."""

    statement: Statement
    disposition: str
    rule: str
    reason: str


class GameData:
    """Every entry and offer read so far; :meth:`read` adds one file."""

    def __init__(self) -> None:
        self.monsters: dict[int, Entry] = {}
        self.weapons: dict[int, Entry] = {}
        self.weapon_order: list[Entry] = []
        self.offers = OfferReader()
        self.notes: list[FileNote] = []

    # -- look-ups -----------------------------------------------------------------
    def _table(self, kind: str) -> dict[int, Entry]:
        return self.monsters if kind == "monster" else self.weapons

    def find(self, kind: str, ref: tuple, where: Statement) -> Entry:
        """The entry named by ``ref``: an index, a name (the first so named), or name + offset.

        Raises
        ------
        DataError
            Naming the statement's file and line, when no entry matches.
        """
        table = self._table(kind)
        if len(ref) == 1 and isinstance(ref[0], int):
            if ref[0] in table:
                return table[ref[0]]
            raise _fail(where, f"no {kind} has index {ref[0]}")
        if ref and isinstance(ref[0], str) and (len(ref) == 1 or isinstance(ref[1], int)):
            offset = ref[1] if len(ref) > 1 else 0
            same = [e for e in table.values() if e.name.lower() == ref[0].lower()]
            if offset < len(same):
                return same[offset]  # C-11.1.2: the first (or offset-th) of that name
            if not same:
                raise _fail(where, f"no {kind} named {ref[0]!r}")
            raise _fail(
                where, f"no {kind} named {ref[0]!r} at offset {offset}: there are {len(same)}"
            )
        raise _fail(
            where,
            f'expected a {kind} name or index, e.g. "Spear" or 4, got '
            f"{where.args_text() or 'nothing'}",
        )

    # -- reading -----------------------------------------------------------------------
    def read(self, statements: list[Statement], mod: bool) -> None:
        """Add the entries, edits and offers of one file (``mod``: a user's mod, C-13)."""
        current: Entry | None = None
        section = ""  # "monster", "weapon", "offer", "other" or "" (none yet)
        for st in statements:
            cmd = st.command
            if cmd in EDITS and not mod:
                raise _fail(
                    st,
                    f"{cmd} edits an entry, which the game's own files never do "
                    "(C-11.1.2); give a file that edits entries as a mod (--mod)",
                )
            if cmd in ("newmonster", "newweapon"):
                current, section = self._new(st, mod), cmd[3:]
            elif cmd in ("selectmonster", "selectweapon"):
                current, section = self.find(cmd[6:], st.args, st), cmd[6:]
            elif cmd in ("copystats", "copyweapon"):
                kind = "monster" if cmd == "copystats" else "weapon"
                entry = self._require(current, section, kind, st)
                source = self.find(kind, st.args, st)
                entry.statements = list(source.statements)  # every command but the name
            elif cmd in ("clearweapons", "clearmove", "clearspec", "clearwspec"):
                kind = "weapon" if cmd == "clearwspec" else "monster"
                entry = self._require(current, section, kind, st)
                group = {"clearweapons": "call", "clearmove": "move"}.get(cmd, "spec")
                entry.statements = [s for s in entry.statements if _group(kind, s.command) != group]
            elif cmd == "name" and section in ("monster", "weapon"):
                entry = self._require(current, section, section, st)
                if len(st.args) != 1 or not isinstance(st.args[0], str) or not st.args[0]:
                    raise _fail(st, 'expected name "new name"')
                entry.name = st.args[0]
            elif cmd in ("selectclass", "newclass"):
                self.offers.start_class(st)
                current, section = None, "offer"
            elif self.offers.takes(cmd):
                if section != "offer":
                    raise _fail(st, f"{cmd} comes before any selectclass or newclass")
                self.offers.add(st, self._resolve_offer)
            elif cmd in MOD_INFO and section not in ("monster", "weapon"):
                self.notes.append(FileNote(st, T.IGNORED, "C-13", "describes the mod itself"))
            elif cmd in OTHER_SECTIONS:
                current, section = None, "other"
                self.notes.append(
                    FileNote(
                        st,
                        T.IGNORED,
                        "C-13",
                        "a section that is not a monster, weapon or offer: skipped",
                    )
                )
            elif section in ("monster", "weapon"):
                assert current is not None
                current.statements.append(st)
            elif section == "offer":
                self.notes.append(
                    FileNote(
                        st,
                        T.IGNORED,
                        "C-11.8",
                        "a class command that is not an offer: no effect on units",
                    )
                )
            elif section == "other" or st.hidden:
                continue  # inside a skipped section, or a comment before any entry
            else:
                raise _fail(st, f"{cmd} comes before any newmonster, newweapon or selectclass")

    def _resolve_offer(self, ref: tuple[str, int], st: Statement) -> tuple[int, tuple[int, ...]]:
        """C-11.1.2: the monster an offer names, and every monster of that name now."""
        entry = self.find("monster", ref, st)
        named = tuple(i for i, e in self.monsters.items() if e.name.lower() == entry.name.lower())
        return entry.index, named

    def _new(self, st: Statement, mod: bool) -> Entry:
        kind = "monster" if st.command == "newmonster" else "weapon"
        if len(st.args) != 1 or not isinstance(st.args[0], str) or not st.args[0].strip():
            raise _fail(st, f'expected {st.command} "name"')
        table = self._table(kind)
        index = None
        if not mod:  # the base files give the index in the line's comment
            head = st.comment.split()[0] if st.comment.split() else ""
            if head.lstrip("-").isdigit():
                index = int(head)
        if index is None:
            index = max(table, default=-1) + 1
        if index in table:
            raise _fail(
                st,
                f"{kind} index {index} is given twice (first at line "
                f"{table[index].origin.line} of {table[index].origin.file})",
            )
        entry = Entry(kind, index, st.args[0].strip(), st)
        table[index] = entry
        if kind == "weapon":
            self.weapon_order.append(entry)
        return entry

    @staticmethod
    def _require(current: Entry | None, section: str, kind: str, st: Statement) -> Entry:
        if current is None or section != kind:
            raise _fail(st, f"{st.command} needs a {kind} first (new{kind} or select{kind})")
        return current


def _group(kind: str, command: str) -> str:
    row = T.lookup(kind, command)
    return row.group if row is not None else "spec"


def _fail(st: Statement, problem: str) -> DataError:
    return DataError(st.file, f"line {st.line}", st.command, problem)
