"""Entries of the game's files as units of the model (RULES.md C-11, C-12).

Each statement of a monster is looked up in the command table
(:mod:`.commands`) and either maps onto a field of :class:`~montecarlo.coe5.units.Unit`
or becomes a line of the report (approximated, ignored or rejected, C-13).
Weapons are read once per weapon entry and turned into one
:class:`~montecarlo.coe5.units.Weapon` per call: the die is the weapon's
``dmg`` plus the call's bonus (C-11.3.1), the call kind decides melee or
ranged (C-11.3.3), and chains are followed (C-12.6).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from montecarlo.coe5 import units as model
from montecarlo.coe5.c5m import commands as T
from montecarlo.coe5.c5m.entries import Entry, FileNote, GameData
from montecarlo.coe5.c5m.lexer import Statement
from montecarlo.coe5.dice import Die
from montecarlo.coe5.offers import Offer
from montecarlo.errors import DataError, InputError

#: ``on_unsupported`` (C-13): leave a unit with a rejected command out, or import it
#: without that command, marked partial.
ON_UNSUPPORTED = ("reject", "drop")
#: Shields of ``shield`` and ``largeshield``: (melee, ranged) (C-11.4.1).
SHIELDS = {"shield": (1, 2), "largeshield": (2, 4)}
#: Miss chances of ``badsight`` and ``clumsy`` in % (C-11.4.4).
MISSES = {"badsight": 20, "clumsy": 50}
#: Sizes in squares per side (C-11.5.4).
SIZES = {"size1x1": 1, "size2x2": 2, "huge": 3}
_RESIST = {
    "fireres": "fire",
    "coldres": "cold",
    "shockres": "shock",
    "poisonres": "poison",
    "acidres": "acid",
}
_PHYSICAL = {"pierceres": "resist_pierce", "slashres": "resist_slash", "bluntres": "resist_blunt"}
_IMMUNE = {"sleepres": "sleep", "charmres": "charm", "diseaseres": "disease"}
_AURAS = {"coldaura": "cold", "fireaura": "fire", "shockaura": "shock"}
_STATS = {
    "hp": "hp",
    "armor": "armor",
    "str": "strength",
    "mor": "morale",
    "mr": "mr",
    "rank": "rank",
    "fear": "fear",
    "airshield": "airshield",
    "affres": "affliction_resist",
}
_FLAGS = {
    "ethereal": "ethereal",
    "fast": "fast",
    "battlefast": "fast",
    "flying": "flying",
    "immobile": "immobile",
    "regeneration": "regeneration",
    "berserker": "berserker",
    "rearpos": "rearpos",
    "frontpos": "frontpos",
}
_CHECKS = set(model.WEAPON_CHECKS)
_CATEGORY_FLAGS = set(model.CATEGORY_FLAGS)
_WEAPON_FLAGS = {"an", "shieldneg", "nostr", "rangepen", *model.GAME_WEAPON_FLAGS}
_HIDDEN_WEAPON_FLAGS = {"wep52": "firekill", "wep57": "noimmobile"}
#: Ranges the unit file takes (C-10); a value outside rejects the unit.
_LIMITS = {
    "hp": (1, 100_000),
    "armor": (0, 100),
    "mr": (0, 100),
    "morale": (0, 99),
    "strength": (-20, 100),
    "fear": (0, 10),
}


@dataclass(frozen=True)
class Line:
    """One line of the import report (C-13): a command that no rule maps onto the battle."""

    unit: str
    index: int
    weapon: str
    command: str
    args: str
    disposition: str
    rule: str
    reason: str
    file: str
    line: int

    @classmethod
    def about(cls, note: _Note | FileNote, unit: str = "", index: int = -1) -> Line:
        """The line of ``note`` (a statement with its disposition, rule and reason) about
        ``unit`` (empty: about its file); a note's ``weapon`` and ``command`` if it has them."""
        st = note.statement
        return cls(unit, index, getattr(note, "weapon", ""), getattr(note, "command", "") or
                   st.command, st.args_text(), note.disposition, note.rule, note.reason,
                   st.file, st.line)  # fmt: skip


@dataclass
class Converted:
    """One monster after conversion.

    ``status`` is ``"imported"``, ``"partial"`` (imported without its rejected
    commands, ``on_unsupported="drop"``) or ``"rejected"``.
    """

    entry: Entry
    name: str
    unit: model.Unit | None
    status: str
    lines: list[Line] = field(default_factory=list)

    @property
    def approximated(self) -> bool:
        return any(ln.disposition == T.APPROXIMATED for ln in self.lines)

    def rejected_by(self) -> list[str]:
        """The rejected commands, in order, each once."""
        seen: list[str] = []
        for ln in self.lines:
            if ln.disposition == T.REJECTED and ln.command not in seen:
                seen.append(ln.command)
        return seen


@dataclass
class _Note:
    """A report line before it knows its unit."""

    statement: Statement
    disposition: str
    rule: str
    reason: str
    weapon: str = ""
    command: str = ""


@dataclass
class _WeaponInfo:
    """What a weapon entry says, before a call gives it a bonus and an owner."""

    entry: Entry
    name: str
    dmg: int = 0
    type: str | None = "pierce"  # the manual's default dmgtype 3
    init: int = 2  # the manual's default
    range: int = 1
    trgrank: int = 1
    aoe: int = 0
    reload: int = 0
    magic: bool = True  # without mundane a weapon is magic for C-3.9 (C-12.3.2)
    flags: set[str] = field(default_factory=set)
    checks: list[str] = field(default_factory=list)
    category_flags: list[str] = field(default_factory=list)
    chain: Statement | None = None
    next_always: bool = False
    nextdmg: int = 0
    notes: list[_Note] = field(default_factory=list)
    broken: bool = False  # a rejected value that leaves no weapon to write
    target_notes: list[_Note] = field(default_factory=list)  # ignored in a chain (C-12.6.2)


def display_names(entries: dict[int, Entry]) -> dict[int, str]:
    """Names users type: a name several entries share gets ``#index`` (``Longdead#300``)."""
    counts = Counter(e.name.lower() for e in entries.values())
    return {
        i: f"{e.name}#{i}" if counts[e.name.lower()] > 1 else e.name for i, e in entries.items()
    }


def _fail(st: Statement, problem: str) -> DataError:
    return DataError(st.file, f"line {st.line}", st.command, problem)


def _int(st: Statement, position: int = 0) -> int:
    if len(st.args) <= position or not isinstance(st.args[position], int):
        raise _fail(
            st, f"expected {st.command} N (a whole number), got {st.args_text() or 'nothing'}"
        )
    return st.args[position]  # type: ignore[return-value]


def _on(st: Statement) -> bool:
    """A flag's value: set, unless written ``0`` (a mod's way to remove it)."""
    return not (st.args and st.args[0] == 0)


class Converter:
    """Turns the entries of :class:`GameData` into units, with their report lines."""

    def __init__(self, data: GameData, on_unsupported: str = "reject") -> None:
        if on_unsupported not in ON_UNSUPPORTED:
            raise InputError(f"on_unsupported is 'reject' or 'drop', not {on_unsupported!r}")
        self.data = data
        self.drop = on_unsupported == "drop"
        self.monster_names = display_names(data.monsters)
        self.weapon_names = display_names(data.weapons)
        self._weapons: dict[int, _WeaponInfo] = {}

    # -- weapons ---------------------------------------------------------------------
    def weapon_info(self, entry: Entry) -> _WeaponInfo:
        """What weapon ``entry`` says (read once, C-12)."""
        if entry.index in self._weapons:
            return self._weapons[entry.index]
        info = _WeaponInfo(entry, self.weapon_names[entry.index])
        for st in entry.statements:
            self._weapon_statement(info, st)
        self._weapons[entry.index] = info
        return info

    def _weapon_statement(self, info: _WeaponInfo, st: Statement) -> None:
        cmd = st.command
        row = T.lookup("weapon", cmd)
        note = lambda disp, rule, reason: info.notes.append(  # noqa: E731
            _Note(st, disp, rule, reason, info.name)
        )
        if row is None:
            value = _hidden_value(st) if st.hidden else T.UNKNOWN
            note(value.disposition, value.rule, value.reason)
            return
        if row.disposition != T.MAPPED:
            note(row.disposition, row.rule, row.reason)
            return
        if cmd == "dmg":
            info.dmg = _int(st)
        elif cmd == "init":
            info.init = _int(st)
        elif cmd == "range":
            info.range = _int(st)
        elif cmd == "dmgtype":
            value = T.DMGTYPES.get(
                _int(st),
                T.Value(None, T.REJECTED, "C-12.7", f"damage type {st.args[0]} is unknown"),
            )
            info.type = value.model
            if value.disposition != T.MAPPED:
                note(value.disposition, value.rule, value.reason)
                info.broken = True
        elif cmd == "trgrank":
            info.trgrank = _int(st)
            if info.trgrank not in T.TRGRANKS:
                info.target_notes.append(
                    _Note(
                        st,
                        T.REJECTED,
                        "C-13",
                        f"target rank {info.trgrank}: no rule maps it",
                        info.name,
                    )
                )
        elif cmd == "aoe":
            info.aoe = _int(st)
            value = T.aoe_form(info.aoe)
            if value.disposition != T.MAPPED:
                note(value.disposition, value.rule, value.reason)
                info.broken = True
        elif cmd in ("reload1", "reload2", "reload3"):
            info.reload = int(cmd[-1])
        elif cmd == "mundane":
            info.magic = False
        elif cmd in _CHECKS:
            info.checks.append(cmd)
        elif cmd in _CATEGORY_FLAGS or cmd in _HIDDEN_WEAPON_FLAGS:
            info.category_flags.append(_HIDDEN_WEAPON_FLAGS.get(cmd, cmd))
        elif cmd in _WEAPON_FLAGS:
            info.flags.add(cmd)
        elif cmd in ("nextwep", "nextalwayswep", "next", "nextalways"):
            info.chain, info.next_always = st, cmd.startswith("nextalways")
        elif cmd == "nextdmg":
            info.nextdmg = _int(st)
        elif cmd in ("newweapon", "name", "descr"):
            return
        else:  # pragma: no cover - every mapped weapon row is handled above
            raise AssertionError(f"mapped weapon command {cmd} has no reader")

    def _chain_target(self, info: _WeaponInfo) -> Entry:
        st = info.chain
        assert st is not None
        if st.command in ("next", "nextalways"):
            order = self.data.weapon_order
            at = order.index(info.entry)
            if at + 1 >= len(order) or order[at + 1].origin.file != info.entry.origin.file:
                raise _fail(
                    st,
                    f"{st.command} chains to the weapon defined after this one, "
                    "but none follows in this file",
                )
            return order[at + 1]
        return self.data.find("weapon", st.args, st)

    def build_weapon(
        self,
        info: _WeaponInfo,
        die: int,
        effects: int,
        call: str | None,
        notes: list[_Note],
        seen: tuple[int, ...] = (),
    ) -> model.Weapon | None:
        """The weapon of one call, or of a chained strike (``call`` None, after ``seen``).

        Returns None when the weapon cannot be written (a rejected value).
        """
        if info.entry.index in seen:
            raise _fail(info.entry.origin, f"a chain of weapons loops back to {info.name}")
        notes += info.notes
        broken = info.broken
        # C-12.6.2: a chained strike ignores its range and target rank; C-11.3.7: so do
        # the weapons used before the battle, which strike any enemy (C-7.1, C-7.2).
        aimed = call is not None and call not in ("assassinweapon", "prebatweapon")
        if aimed and info.target_notes:
            notes += info.target_notes
            broken = True
        if aimed and info.range < 1:
            notes.append(
                _Note(
                    info.entry.origin,
                    T.REJECTED,
                    "C-12.1.3",
                    f"range {info.range}: reaches no enemy",
                    info.name,
                    "range",
                )
            )
            broken = True
        if info.type == "affliction":
            broken |= _affliction_notes(info, effects, notes)
        chained = None
        if info.chain is not None:
            target = self.weapon_info(self._chain_target(info))
            # C-12.6.2: the chained die is the target's dmg plus nextdmg, no call bonus;
            # for an affliction, nextdmg is its bitmask.
            affl = target.type == "affliction"
            chained = self.build_weapon(
                target,
                0 if affl else target.dmg + info.nextdmg,
                info.nextdmg if affl else 0,
                None,
                notes,
                (*seen, info.entry.index),
            )
            if chained is None:
                broken = True
        if broken:
            return None  # the caller reports the call (dropped, or the unit rejected)
        return model.GameWeapon(
            name=info.name,
            damage=Die(max(die, 0)),
            type=info.type or "pierce",
            magic=info.magic,
            initiative=min(info.init, 20),
            range=max(info.range, 1),
            reload=info.reload,
            call=call,
            trgrank=info.trgrank,
            aoe=info.aoe,
            checks=tuple(info.checks),
            category_flags=tuple(info.category_flags),
            effects=effects,
            next=chained,
            next_always=info.next_always,
            **{f: True for f in info.flags},
        )

    # -- monsters --------------------------------------------------------------------
    def monster(self, entry: Entry, offers: tuple[Offer, ...] = ()) -> Converted:
        """One monster as a unit, with the report's lines about it."""
        name = self.monster_names[entry.index]
        notes: list[_Note] = []
        fields: dict = {"resist": {}, "vulnerable": [], "immune": [], "categories": [], "aura": {}}
        weapons: list[model.Weapon] = []
        for st in entry.statements:
            self._monster_statement(st, fields, weapons, notes)
        lines: list[Line] = []
        for n in notes:  # a weapon called twice reports its commands once
            ln = Line.about(n, name, entry.index)
            if ln not in lines:
                lines.append(ln)
        for key, (lo, hi) in _LIMITS.items():
            value = fields.get(key)
            if value is not None and not lo <= value <= hi:
                lines.append(
                    Line(
                        name,
                        entry.index,
                        "",
                        key,
                        str(value),
                        T.REJECTED,
                        "C-10",
                        f"{key} {value} is outside the unit file's range {lo} to {hi}",
                        entry.origin.file,
                        entry.origin.line,
                    )
                )
        if "hp" not in fields:
            lines.append(
                Line(
                    name,
                    entry.index,
                    "",
                    "hp",
                    "",
                    T.REJECTED,
                    "C-10",
                    "no hp: a unit needs its hit points",
                    entry.origin.file,
                    entry.origin.line,
                )
            )
        if not weapons:
            lines.append(
                Line(
                    name,
                    entry.index,
                    "",
                    "(no weapon)",
                    "",
                    T.REJECTED,
                    "C-10",
                    "no weapon call left to fight with",
                    entry.origin.file,
                    entry.origin.line,
                )
            )
        rejected = any(ln.disposition == T.REJECTED for ln in lines)
        unfit = not weapons or "hp" not in fields or any(ln.rule == "C-10" for ln in lines)
        if rejected and (not self.drop or unfit):
            return Converted(entry, name, None, "rejected", lines)
        unit = self._unit(entry, name, fields, weapons, offers, partial=rejected)
        return Converted(entry, name, unit, "partial" if rejected else "imported", lines)

    def _monster_statement(
        self, st: Statement, fields: dict, weapons: list[model.Weapon], notes: list[_Note]
    ) -> None:
        cmd = st.command
        if cmd in T.CALLS or cmd in T.SPELL_CALLS:
            self._call(st, weapons, notes)
            return
        row = T.lookup("monster", cmd)
        if row is None:
            value = _hidden_value(st) if st.hidden else T.UNKNOWN
            if value.model in model.CATEGORIES:
                fields["categories"].append(value.model)
            elif value.disposition != T.MAPPED or value.model is None:
                notes.append(_Note(st, value.disposition, value.rule, value.reason))
            return
        if row.disposition != T.MAPPED:
            notes.append(_Note(st, row.disposition, row.rule, row.reason))
            if row.disposition == T.REJECTED or cmd not in SIZES:
                return
        if cmd in _STATS:
            fields[_STATS[cmd]] = _int(st)
        elif cmd in _FLAGS:
            fields[_FLAGS[cmd]] = _on(st)
        elif cmd in SHIELDS:
            fields["shield"], fields["shield_ranged"] = SHIELDS[cmd] if _on(st) else (0, 0)
        elif cmd in MISSES:
            fields["miss_chance"] = MISSES[cmd] if _on(st) else 0
        elif cmd in SIZES:
            fields["size"] = SIZES[cmd] if _on(st) else 1
        elif cmd == "battleslow2":
            fields["move_every"] = 4 if _on(st) else 1
        elif cmd in _RESIST:
            self._resistance(st, _RESIST[cmd], fields, notes)
        elif cmd in _PHYSICAL:
            fields[_PHYSICAL[cmd]] = _on(st)
        elif cmd in _IMMUNE:
            fields["immune"].append(_IMMUNE[cmd])
        elif cmd in _AURAS:
            fields["aura"][_AURAS[cmd]] = _int(st)
        elif cmd == "siegetunnel":
            fields["siege_tunneling"], fields["tunnel_chance"] = True, min(max(_int(st), 0), 100)
        elif cmd in model.CATEGORIES or cmd == "float":
            if _on(st) and cmd not in fields["categories"]:
                fields["categories"].append(cmd)
        elif cmd in ("descr", "newmonster", "name"):
            return
        else:  # pragma: no cover - every mapped monster row is handled above
            raise AssertionError(f"mapped monster command {cmd} has no reader")

    def _resistance(self, st: Statement, kind: str, fields: dict, notes: list[_Note]) -> None:
        value = _int(st)
        if value >= 0:
            fields["resist"][kind] = min(value, 100)  # 100 is immunity (C-11.4.2)
            if kind in fields["vulnerable"]:
                fields["vulnerable"].remove(kind)
        elif kind in model.VULNERABLE_TYPES:
            fields["resist"].pop(kind, None)  # C-11.4.2 [default]: vulnerable, step 7 skipped
            if kind not in fields["vulnerable"]:
                fields["vulnerable"].append(kind)
        else:
            notes.append(
                _Note(
                    st,
                    T.REJECTED,
                    "C-11.4.2",
                    f"{kind} vulnerability: C-3 step 2 doubles only fire, cold, shock and poison",
                )
            )

    def _call(self, st: Statement, weapons: list[model.Weapon], notes: list[_Note]) -> None:
        row = T.lookup("monster", st.command)
        assert row is not None
        if row.disposition != T.MAPPED:
            notes.append(_Note(st, row.disposition, row.rule, row.reason))
            return
        args = st.args
        if len(args) < 2 or not isinstance(args[0], int):
            raise _fail(
                st,
                f"expected {st.command} BONUS WEAPON, e.g. {st.command} 0 4 or "
                f'{st.command} 0 "Spear"',
            )
        entry = self.data.find("weapon", tuple(args[1:]), st)
        info = self.weapon_info(entry)
        call_notes: list[_Note] = []
        affliction = info.type == "affliction"
        # C-11.3.1: the die is dmg + the call's bonus; for an affliction the bonus is the
        # bitmask (C-12.1.1).
        weapon = self.build_weapon(
            info,
            0 if affliction else info.dmg + args[0],
            args[0] if affliction else 0,
            st.command,
            call_notes,
        )
        for n in call_notes:
            if weapon is None and self.drop and n.disposition == T.REJECTED:
                n = replace(n, reason=f"{n.reason}; the call ({st.command}) is dropped")
            notes.append(replace(n, weapon=n.weapon or info.name))
        if weapon is None:
            return
        taken = {w.name.lower() for w in weapons}
        if weapon.name.lower() in taken:  # a weapon called twice attacks twice (C-11.3.2)
            k = 2
            while f"{weapon.name} ({k})".lower() in taken:
                k += 1
            weapon = replace(weapon, name=f"{weapon.name} ({k})")
        weapons.append(weapon)

    def _unit(
        self,
        entry: Entry,
        name: str,
        fields: dict,
        weapons: list[model.Weapon],
        offers: tuple[Offer, ...],
        partial: bool,
    ) -> model.Unit:
        strength = fields.get("strength", 0)
        # C-11.2.2: the die is the game's; C-1.5 adds strength back in the battle.
        stored = tuple(
            w if w.nostr else replace(w, damage=Die(w.damage.base, -strength)) for w in weapons
        )
        kwargs = {
            k: v
            for k, v in fields.items()
            if k not in ("resist", "vulnerable", "immune", "categories", "aura")
        }
        return model.GameUnit(
            name=name,
            weapons=stored,
            resist=dict(fields["resist"]),
            vulnerable=tuple(fields["vulnerable"]),
            immune=tuple(fields["immune"]),
            categories=tuple(fields["categories"]),
            aura=dict(fields["aura"]),
            game_name=entry.name,
            game_index=entry.index,
            strength_in_die=False,
            partial=partial,
            offers=offers,
            **kwargs,
        )


def _hidden_value(st: Statement) -> T.Value:
    if st.command in T.HIDDEN:
        return T.HIDDEN[st.command]
    return T.UNHANDLED if "unhandled" in st.comment.lower() else T.UNKNOWN_HIDDEN


def _affliction_notes(info: _WeaponInfo, effects: int, notes: list[_Note]) -> bool:
    """Classify each bit of an affliction bitmask (C-12.7); True if one is rejected."""
    broken = False
    bit = 1
    while bit <= effects:
        if effects & bit:
            value = T.AFFLICTIONS.get(
                bit, T.Value(None, T.REJECTED, "C-13", f"affliction bit {bit}: no rule maps it")
            )
            if value.disposition != T.MAPPED:
                notes.append(
                    _Note(
                        info.entry.origin,
                        value.disposition,
                        value.rule,
                        value.reason,
                        info.name,
                        f"dmgtype 12 bit {bit}",
                    )
                )
                broken |= value.disposition == T.REJECTED
        bit <<= 1
    return broken
