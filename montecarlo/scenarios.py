"""Scenarios for paired comparisons: a matchup or a fight with all its options, and variants.

A :class:`Scenario` (CoE5) or :class:`SFScenario` (Shared†Fantasia) holds
everything that decides a battle: the armies (already resolved to units, so a
variant can change a unit's stats), the siege or battlefield options and the
rule defaults.  :meth:`Scenario.vary` makes a variant from override terms::

    base = Scenario("pikeman:10", "knight:3")
    base.vary("knight.armor=+1")            # a unit's field, relative
    base.vary("rules.burn_chance=0.3")      # a BattleRules field, absolute
    base.vary("siege=true", "fort=2")       # several terms combine
    base.vary("attacker=pikeman:11")        # another army

The term grammar (``montecarlo compare --variant``):

``UNIT.FIELD=VALUE``
    a field of every unit (or character) of that name in either army.  A
    value starting with ``+`` or ``-`` is relative (``armor=+1``), any other
    is absolute.  CoE5 unit fields: hp, armor, shield, mr, morale, strength,
    fear and the boolean abilities; SF character fields: hp, body, tech,
    power, faith, combat, initiative, fortitude, intuition, will, and
    ``armor`` (every damage type) or ``armor.slash`` etc. (one type).
``rules.FIELD=VALUE``, ``policy.FIELD=VALUE``
    a field of :class:`BattleRules`, :class:`SFRules` or :class:`Policy`;
    ``+``/``-`` relative for numbers, ``true``/``false`` for switches,
    ``none`` for an optional number (``rules.fatigue_start=none``).
``attacker=ARMY``, ``defender=ARMY`` (SF: ``a=PARTY``, ``b=PARTY``)
    replace an army or party.
``siege=true``, ``fort=2``, ``width=12``, ``length=30`` (CoE5);
``battlefield=ship``, ``surprise=a``, ``pincer=b``, ``max_rounds=50`` (SF)
    the options of :func:`montecarlo.matchup` and :func:`montecarlo.sf.fight`.

Terms are separated by ``;`` within one string (armies use ``,``).  Every
term is checked when the variant is made, and a bad one raises an
:class:`~montecarlo.errors.InputError` naming the term and what was expected.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from montecarlo.coe5.battle import BattleRules
from montecarlo.coe5.battlefield import ArmyLike, parse_army
from montecarlo.coe5.units import _UNIT_BOOL_FIELDS, _UNIT_INT_FIELDS, Roster, Unit
from montecarlo.errors import InputError
from montecarlo.sf.battlefields import DEFAULT_BATTLEFIELD, Battlefield
from montecarlo.sf.characters import _INT_FIELDS as _SF_INT_FIELDS
from montecarlo.sf.characters import DAMAGE_TYPES as SF_DAMAGE_TYPES
from montecarlo.sf.characters import Character, CharacterRoster, roster_note
from montecarlo.sf.fights import Policy, SFRules, parse_party, resolve_battlefield
from montecarlo.validation import coerce_rules

#: CoE5 unit fields a term may set: (minimum, maximum) for numbers.
UNIT_FIELDS: dict[str, tuple[int, int] | None] = {
    **{k: v for k, v in _UNIT_INT_FIELDS.items() if k != "gold"},
    **dict.fromkeys(_UNIT_BOOL_FIELDS),
}
#: SF character fields a term may set (``armor`` and ``armor.TYPE`` too).
CHARACTER_FIELDS: dict[str, tuple[int, int]] = dict(_SF_INT_FIELDS)
SF_ARMOR_RANGE = (0, 50)

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def split_terms(terms: Iterable[str] | str) -> list[str]:
    """Terms from strings that may each hold several, separated by ``;``."""
    if isinstance(terms, str):
        terms = [terms]
    out = []
    for text in terms:
        if not isinstance(text, str):
            raise InputError(f"a variant term is a string such as 'knight.armor=+1', got {text!r}")
        out += [t.strip() for t in text.split(";") if t.strip()]
    return out


def _split(term: str) -> tuple[str, str]:
    key, sep, value = term.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise InputError(
            f"variant term {term!r}: expected KEY=VALUE such as 'knight.armor=+1', "
            "'rules.burn_chance=0.3' or 'fort=2'"
        )
    return key.strip(), value.strip()


def parse_value(term: str, value: str, current: Any, bounds: tuple[int, int] | None = None) -> Any:
    """``value`` for a field whose current value is ``current``: relative or absolute.

    ``+k``/``-k`` adds to a number; otherwise the text is read as the field's
    type (bool, int, float, str; ``none`` or an integer for an optional one).
    """
    text = value.strip()
    if isinstance(current, bool):
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise InputError(f"variant term {term!r}: expected true or false, got {value!r}")
    if current is None:
        if text.lower() == "none":
            return None
        current = 0 if text[:1] not in "+-" else None
        if current is None:
            raise InputError(f"variant term {term!r}: the field is unset (none); give a number")
    if isinstance(current, int | float):
        relative = text[:1] in "+-"
        number = text[1:] if relative else text
        sign = -1 if text[:1] == "-" else 1
        try:
            step = int(number) if isinstance(current, int) else float(number)
        except ValueError:
            kind = "a whole number" if isinstance(current, int) else "a number"
            raise InputError(
                f"variant term {term!r}: expected {kind} (+k/-k relative), got {value!r}"
            ) from None
        new = current + sign * step if relative else step
        if bounds is not None and not bounds[0] <= new <= bounds[1]:
            raise InputError(
                f"variant term {term!r}: the value {new} is outside {bounds[0]}..{bounds[1]}"
            )
        return new
    return text


def replace_rules(term: str, rules: Any, name: str, value: str) -> Any:
    """``rules`` (a rules or policy dataclass) with ``name`` set from the term, checked now."""
    names = [f.name for f in dataclasses.fields(rules)]
    if name not in names:
        raise InputError(
            f"variant term {term!r}: {type(rules).__name__} has no field {name!r}; "
            f"expected one of {', '.join(names)}"
        )
    new = parse_value(term, value, getattr(rules, name))
    try:
        out = dataclasses.replace(rules, **{name: new})
        if isinstance(out, BattleRules):
            out.to_array()  # checks ranges and choices now, before any battle
        if isinstance(out, Policy):
            out.to_array()
    except InputError as exc:
        raise InputError(f"variant term {term!r}: {exc}") from None
    return out


def _bool_value(term: str, value: str) -> bool:
    return parse_value(term, value, False)


class _Variants:
    """``vary`` and ``replace``, shared by the CoE5 and SF scenarios (frozen dataclasses)."""

    def vary(self, *terms: str, label: str | None = None) -> Self:
        """A variant: the override terms applied in order (see the module docstring)."""
        out = self
        applied = split_terms(terms)
        for term in applied:
            out = out._apply(term)
        text = label if label is not None else "; ".join(applied)
        return dataclasses.replace(out, label=text)

    def replace(self, **changes: Any) -> Self:
        """A copy with fields replaced (``dataclasses.replace``), e.g. ``fort=2``."""
        return dataclasses.replace(self, **changes)


# -- CoE5 ------------------------------------------------------------------------
Army = tuple[tuple[Unit, int], ...]


@dataclass(frozen=True)
class Scenario(_Variants):
    """A CoE5 matchup with every option that decides its battles (C-6 to C-9).

    ``attacker`` and ``defender`` accept what :func:`montecarlo.matchup`
    accepts (``"pikeman:10"``, or (unit, count) pairs) and are stored as
    (Unit, count) pairs.  ``rules`` is a :class:`BattleRules` or a dict of its
    fields.  ``label`` names a variant (set by :meth:`vary`).
    """

    attacker: Any
    defender: Any
    siege: bool = False
    fort: int = 1
    width: int = 10
    length: int = 20
    rules: Any = field(default_factory=BattleRules)
    roster: Roster | None = field(default=None, compare=False, repr=False)
    label: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "attacker", _army(self.attacker, self.roster))
        set_(self, "defender", _army(self.defender, self.roster))
        set_(self, "rules", coerce_rules(self.rules, BattleRules) or BattleRules())
        if self.siege and (
            isinstance(self.fort, bool) or not isinstance(self.fort, int) or not 1 <= self.fort <= 3
        ):
            raise InputError(f"fort is a fortification level from 1 to 3, got {self.fort!r}")

    def title(self) -> str:
        def names(army: Army) -> str:
            return " + ".join(f"{u.name} ×{k}" for u, k in army)

        siege = f" (siege, fort {self.fort})" if self.siege else ""
        return f"{names(self.attacker)} vs {names(self.defender)}{siege}"

    def units(self) -> list[str]:
        """Names of the units in either army."""
        return [u.name for u, _ in self.attacker + self.defender]

    def _apply(self, term: str) -> Scenario:
        key, value = _split(term)
        low = key.lower()
        if low in ("attacker", "defender"):
            return dataclasses.replace(self, **{low: _army(value, self.roster)})
        if low == "siege":
            return dataclasses.replace(self, siege=_bool_value(term, value))
        if low in ("fort", "width", "length"):
            bounds = {"fort": (1, 3), "width": (1, 100), "length": (2, 100)}[low]
            return dataclasses.replace(
                self, **{low: parse_value(term, value, getattr(self, low), bounds)}
            )
        head, dot, name = key.rpartition(".")
        if not dot:
            raise InputError(
                f"variant term {term!r}: unknown key {key!r}; expected UNIT.FIELD, rules.FIELD, "
                "attacker, defender, siege, fort, width or length"
            )
        if head.lower() == "rules":
            return dataclasses.replace(self, rules=replace_rules(term, self.rules, name, value))
        return self._vary_unit(term, head, name, value)

    def _vary_unit(self, term: str, unit: str, name: str, value: str) -> Scenario:
        if unit.lower() not in (u.lower() for u in self.units()):
            raise InputError(
                f"variant term {term!r}: no unit {unit!r} in this matchup; "
                f"expected one of {', '.join(self.units())}, or rules.FIELD"
            )
        if name not in UNIT_FIELDS:
            raise InputError(
                f"variant term {term!r}: a unit field is one of {', '.join(UNIT_FIELDS)}"
            )

        def change(army: Army) -> Army:
            out = []
            for u, k in army:
                if u.name.lower() == unit.lower():
                    new = parse_value(term, value, getattr(u, name), UNIT_FIELDS[name])
                    u = dataclasses.replace(u, **{name: new})
                out.append((u, k))
            return tuple(out)

        return dataclasses.replace(
            self, attacker=change(self.attacker), defender=change(self.defender)
        )


def _army(army: ArmyLike, roster: Roster | None) -> Army:
    if isinstance(army, tuple) and all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], Unit) for p in army
    ):
        return army
    return tuple(parse_army(army, roster))


# -- Shared†Fantasia ---------------------------------------------------------------
@dataclass(frozen=True)
class SFScenario(_Variants):
    """A Shared†Fantasia fight with every option that decides it (S-5 to S-10).

    The parties accept what :func:`montecarlo.sf.fight` accepts and are stored
    as tuples of characters; ``policy`` and ``rules`` as :class:`Policy` and
    :class:`SFRules` (or dicts of their fields).
    """

    party_a: Any
    party_b: Any
    battlefield: Any = DEFAULT_BATTLEFIELD
    surprise: Any = None
    pincer: str | None = None
    rear: Any = None
    policy: Any = field(default_factory=Policy)
    rules: Any = field(default_factory=SFRules)
    max_rounds: int = 100
    roster: CharacterRoster | None = field(default=None, compare=False, repr=False)
    battlefields: Mapping[str, Battlefield] | None = field(default=None, compare=False, repr=False)
    label: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "party_a", _party(self.party_a, self.roster))
        set_(self, "party_b", _party(self.party_b, self.roster))
        if self.rear is not None:
            set_(self, "rear", _party(self.rear, self.roster))
        set_(self, "battlefield", resolve_battlefield(self.battlefield, self.battlefields))
        set_(self, "policy", coerce_rules(self.policy, Policy, "policy") or Policy())
        set_(self, "rules", coerce_rules(self.rules, SFRules) or SFRules())
        if not isinstance(self.surprise, str | type(None)):
            set_(self, "surprise", tuple(self.surprise))

    def title(self) -> str:
        def names(party: tuple[Character, ...]) -> str:
            counts: dict[str, int] = {}
            for c in party:
                counts[c.name] = counts.get(c.name, 0) + 1
            return " + ".join(f"{k} ×{v}" for k, v in counts.items())

        return f"{names(self.party_a)} vs {names(self.party_b)} ({self.battlefield.name})"

    def setting(self) -> str:
        """``battlefield: what it means`` (S-9), the line under a report's title."""
        return self.battlefield.header()

    def roster_note(self) -> str | None:
        """Which characters are the shipped roster's made-up examples (None: none is)."""
        return roster_note(self.party_a + self.party_b + (self.rear or ()))

    def characters(self) -> list[str]:
        every = self.party_a + self.party_b + (self.rear or ())
        return list(dict.fromkeys(c.name for c in every))

    def _apply(self, term: str) -> SFScenario:
        key, value = _split(term)
        low = key.lower()
        if low in ("a", "party_a", "b", "party_b", "rear"):
            name = {"a": "party_a", "b": "party_b"}.get(low, low)
            return dataclasses.replace(self, **{name: _party(value, self.roster)})
        if low == "battlefield":
            return dataclasses.replace(
                self, battlefield=resolve_battlefield(value, self.battlefields)
            )
        if low in ("surprise", "pincer"):
            side = None if value.lower() == "none" else value.lower()
            if side not in (None, "a", "b"):
                raise InputError(f"variant term {term!r}: expected a, b or none, got {value!r}")
            return dataclasses.replace(self, **{low: side})
        if low == "max_rounds":
            return dataclasses.replace(
                self, max_rounds=parse_value(term, value, self.max_rounds, (1, 100_000))
            )
        head, dot, name = key.partition(".")
        if not dot:
            raise InputError(
                f"variant term {term!r}: unknown key {key!r}; expected CHARACTER.FIELD, "
                "rules.FIELD, policy.FIELD, a, b, rear, battlefield, surprise, pincer or max_rounds"
            )
        if head.lower() == "rules":
            return dataclasses.replace(self, rules=replace_rules(term, self.rules, name, value))
        if head.lower() == "policy":
            return dataclasses.replace(self, policy=replace_rules(term, self.policy, name, value))
        return self._vary_character(term, head, name, value)

    def _vary_character(self, term: str, who: str, name: str, value: str) -> SFScenario:
        if who.lower() not in (c.lower() for c in self.characters()):
            raise InputError(
                f"variant term {term!r}: no character {who!r} in this fight; "
                f"expected one of {', '.join(self.characters())}, rules.FIELD or policy.FIELD"
            )
        field_, _, dtype = name.partition(".")
        if field_ == "armor":
            types = SF_DAMAGE_TYPES if not dtype else (dtype,)
            if dtype and dtype not in SF_DAMAGE_TYPES:
                raise InputError(
                    f"variant term {term!r}: armour types are {', '.join(SF_DAMAGE_TYPES)}"
                )
        elif field_ not in CHARACTER_FIELDS or dtype:
            raise InputError(
                f"variant term {term!r}: a character field is one of "
                f"{', '.join(CHARACTER_FIELDS)}, armor or armor.TYPE"
            )

        def change(c: Character) -> Character:
            if c.name.lower() != who.lower():
                return c
            if field_ == "armor":
                armor = dict(c.armor)
                for t in types:
                    armor[t] = parse_value(term, value, c.armor_for(t), SF_ARMOR_RANGE)
                return dataclasses.replace(c, armor=armor)
            new = parse_value(term, value, getattr(c, field_), CHARACTER_FIELDS[field_])
            return dataclasses.replace(c, **{field_: new})

        rear = None if self.rear is None else tuple(map(change, self.rear))
        return dataclasses.replace(
            self,
            party_a=tuple(map(change, self.party_a)),
            party_b=tuple(map(change, self.party_b)),
            rear=rear,
        )


def _party(party: Any, roster: CharacterRoster | None) -> tuple[Character, ...]:
    if isinstance(party, tuple) and all(isinstance(c, Character) for c in party):
        return party
    return tuple(parse_party(party, roster))
