"""Recruitment offers of the game's files (RULES.md C-11.8.1).

``selectclass N  # Name`` starts a class's list (class -1 is the list of
offers by terrain); each ``addunitrec``/``addmercrec``/``addcomrec`` line is
an offer, and the lines after it (``reclimiter``, ``recterr``, ``recxcost``,
``templerec``, ...) belong to it.  An offer names its unit; the name resolves
to the first monster so named (C-11.1.2) when it is read, as the game reads a
mod: a later mod that renames a monster does not move the offers already made.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from montecarlo.coe5.c5m.lexer import Statement
from montecarlo.coe5.offers import OFFER_KINDS, TERRAIN_CLASS, Offer
from montecarlo.errors import DataError

#: Lines that qualify the offer before them (kept with it, not part of the price).
QUALIFIERS = (
    "reclimiter",
    "recterr",
    "recxcost",
    "templerec",
    "libraryrec",
    "atavirec",
    "[nogathererrec]",
)
_OFFSET = re.compile(r"^(\d+):(.*)$")
#: Finds the monster of a (name, offset): its index, and the indices of all so named.
Resolver = Callable[[tuple[str, int], Statement], tuple[int, tuple[int, ...]]]


@dataclass
class RawOffer:
    """An offer as read: the monster it names, and every monster of that name then."""

    statement: Statement
    name: str
    index: int
    named: tuple[int, ...]
    fields: dict = field(default_factory=dict)
    limiters: list[str] = field(default_factory=list)
    extra_cost: list[tuple[int, int]] = field(default_factory=list)
    modifiers: list[str] = field(default_factory=list)

    def offer(self, class_names: dict[int, str]) -> Offer:
        """The :class:`Offer`, named by its class's final name, with what qualified it."""
        name = class_names.get(self.fields["class_id"], f"class {self.fields['class_id']}")
        return Offer(
            **self.fields,
            class_name=name,
            limiters=tuple(self.limiters),
            extra_cost=tuple(self.extra_cost),
            modifiers=tuple(self.modifiers),
        )


class OfferReader:
    """Collects the offers of every file read, class by class."""

    def __init__(self) -> None:
        self.offers: list[RawOffer] = []
        self.class_names: dict[int, str] = {TERRAIN_CLASS: "terrain"}
        self._class: int | None = None

    @staticmethod
    def takes(command: str) -> bool:
        """True for a command of a class's list."""
        return command in OFFER_KINDS or command in QUALIFIERS or command == "setclassname"

    def start_class(self, st: Statement) -> None:
        """``selectclass N`` (the comment names it) or a mod's ``newclass``."""
        if st.command == "newclass":
            self._class = max(max(self.class_names), 0) + 1
            self.class_names[self._class] = f"class {self._class}"
            return
        if len(st.args) != 1 or not isinstance(st.args[0], int):
            raise _fail(st, "expected selectclass N (a class number)")
        self._class = st.args[0]
        if self._class not in self.class_names:
            words = st.comment.split()
            # The comment names the class ("# Baron"); a long comment is prose, not a name.
            name = st.comment if words and len(words) <= 4 else f"class {self._class}"
            self.class_names[self._class] = name

    def add(self, st: Statement, resolve: Resolver) -> None:
        """One line of the current class's list; ``resolve`` finds the monster an offer names."""
        if self._class is None:
            raise _fail(st, f"{st.command} comes before any selectclass")
        cmd = st.command
        if cmd == "setclassname":
            if len(st.args) != 1 or not isinstance(st.args[0], str):
                raise _fail(st, 'expected setclassname "name"')
            self.class_names[self._class] = st.args[0]
            return
        if cmd in OFFER_KINDS:
            self.offers.append(self._offer(st, resolve))
            return
        if not self.offers or self.offers[-1].fields["class_id"] != self._class:
            raise _fail(st, f"{cmd} qualifies an offer, but none comes before it in this class")
        last = self.offers[-1]
        if cmd == "reclimiter":
            if len(st.args) != 1 or not isinstance(st.args[0], str):
                raise _fail(st, 'expected reclimiter "condition"')
            last.limiters.append(st.args[0])
        elif cmd == "recterr":
            if len(st.args) != 1 or not isinstance(st.args[0], int):
                raise _fail(st, "expected recterr N (a terrain number)")
            last.fields["terrain"] = st.args[0]
        elif cmd == "recxcost":
            if len(st.args) != 2 or not all(isinstance(a, int) for a in st.args):
                raise _fail(st, "expected recxcost RESOURCE AMOUNT (two whole numbers)")
            last.extra_cost.append((st.args[0], st.args[1]))
        else:
            last.modifiers.append(cmd)

    def _offer(self, st: Statement, resolve: Resolver) -> RawOffer:
        commander = st.command == "addcomrec"
        shape = "chance gold die iron" if commander else "chance lot gold die iron"
        n = 4 if commander else 5
        args = st.args
        if (
            len(args) != n + 1
            or not isinstance(args[0], str)
            or not all(isinstance(a, int) for a in args[1:])
        ):
            raise _fail(st, f'expected {st.command} "name" {shape} ({n} whole numbers)')
        numbers = list(args[1:])
        if commander:
            numbers.insert(1, 1)  # C-11.8.1: a commander's offer is a lot of one
        chance, count, gold, die, iron = numbers
        if count < 1:
            raise _fail(st, f"the lot of an offer is at least 1 unit, got {count}")
        if min(gold, die, iron) < 0 or chance < -1:
            # chance -1: "offered when the previous offer is", as the file says
            raise _fail(st, "gold, die and iron cannot be negative, nor chance below -1")
        name, offset = args[0], 0
        m = _OFFSET.match(name)
        if m:  # "1:Captain": the second monster so named
            name, offset = m[2], int(m[1])
        assert self._class is not None
        fields = {
            "class_id": self._class,
            "kind": OFFER_KINDS[st.command],
            "chance": chance,
            "count": count,
            "gold": gold,
            "gold_die": die,
            "iron": iron,
        }
        index, named = resolve((name, offset), st)
        return RawOffer(st, name, index, named, fields)


def _fail(st: Statement, problem: str) -> DataError:
    return DataError(st.file, f"line {st.line}", st.command, problem)
