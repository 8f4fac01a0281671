"""Recruitment offers of a unit and its price (RULES.md C-11.8).

An offer is one ``addunitrec``/``addmercrec``/``addcomrec`` line of a class's
recruitment list: a chance to appear, a lot of ``count`` units, base gold, an
open-ended gold die and iron.  A unit keeps every offer that names it; its
price per unit is an exact fraction (C-11.8.2).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

#: Offer commands and the kind of offer each makes (C-11.8.1).
OFFER_KINDS = {"addunitrec": "unit", "addmercrec": "mercenary", "addcomrec": "commander"}
#: The class number of the list of offers that every class may get by terrain (C-11.8).
TERRAIN_CLASS = -1


@dataclass(frozen=True)
class Offer:
    """One recruitment offer of a unit (C-11.8.1).

    Attributes
    ----------
    class_id : int
        The class whose list holds it; -1 is the terrain list.
    class_name : str
        The class's name (from the ``selectclass`` comment); ``"terrain"`` for -1.
    kind : str
        ``"unit"``, ``"mercenary"`` or ``"commander"``.
    chance : int
        Percent chance that the offer appears each turn.
    count : int
        Units bought together (the lot; 1 for a commander).
    gold, gold_die, iron : int
        Base gold, the open-ended die added to it each time it appears, and iron.
    terrain : int or None
        ``recterr``: the only terrain where it may be recruited.
    limiters : tuple of str
        ``reclimiter`` conditions (``"-Baron"``, ``"=Soulless"``), kept, not used.
    extra_cost : tuple of (int, int)
        ``recxcost`` (resource, amount) pairs, kept, not used.
    modifiers : tuple of str
        Chance modifiers (``templerec``, ``libraryrec``, ...), kept, not used.
    """

    class_id: int
    class_name: str
    kind: str
    chance: int
    count: int
    gold: int
    gold_die: int = 0
    iron: int = 0
    terrain: int | None = None
    limiters: tuple[str, ...] = ()
    extra_cost: tuple[tuple[int, int], ...] = ()
    modifiers: tuple[str, ...] = ()

    def gold_each(self, cost_with_die: bool = False) -> Fraction:
        """Gold per unit, exact (C-11.8.2); with ``cost_with_die``, E[OED(die)] is added first."""
        gold = Fraction(self.gold)
        if cost_with_die and self.gold_die > 0:
            gold += Fraction(self.gold_die + 2, 2)  # C-1.2: E[OED(N)] = (N + 2) / 2
        return gold / self.count

    def iron_each(self) -> Fraction:
        """Iron per unit, exact (C-11.8.2)."""
        return Fraction(self.iron, self.count)

    @property
    def paid(self) -> bool:
        """False for a 0-gold offer: an upgrade of units already owned, not a price (C-11.8.2)."""
        return self.gold > 0 or self.gold_die > 0


def best_offer(
    offers: Iterable[Offer], class_: int | str | None = None, cost_with_die: bool = False
) -> Offer | None:
    """The offer that prices a unit (C-11.8.2 [default]), or None when its cost is unknown.

    Among the paid offers of the class (of every class when ``class_`` is None):
    the highest chance, then the lowest gold per unit, then the lowest iron per
    unit, then the first read.
    """
    pool = [o for o in offers if o.paid and (class_ is None or matches_class(o, class_))]
    if not pool:
        return None
    return min(pool, key=lambda o: (-o.chance, o.gold_each(cost_with_die), o.iron_each()))


def price(
    offers: Iterable[Offer], class_: int | str | None = None, cost_with_die: bool = False
) -> tuple[Fraction | None, Fraction | None]:
    """(gold, iron) per unit from :func:`best_offer`; (None, None) when unknown (C-11.8.2)."""
    best = best_offer(offers, class_, cost_with_die)
    if best is None:
        return None, None
    return best.gold_each(cost_with_die), best.iron_each()


def matches_class(offer: Offer, class_: int | str) -> bool:
    """True when ``class_`` (a number, or a name in any case) names the offer's class."""
    if isinstance(class_, int):
        return offer.class_id == class_
    text = str(class_).strip().lower()
    if text.lstrip("-").isdigit():
        return offer.class_id == int(text)
    return offer.class_name.lower() == text


def fraction_text(value: Fraction | None) -> str:
    """``"10/3"``, ``"10"`` or ``""`` (unknown)."""
    if value is None:
        return ""
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )
