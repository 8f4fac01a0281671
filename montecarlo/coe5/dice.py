"""CoE5 dice: damage strings, exact OED/S-OED distributions and MR checks.

Rules: RULES.md C-1 (dice) and C-2 (magic resistance and morale checks).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from kernels.coe5_dice import EASY, HARD, NORMAL, oed_level_table
from kernels.oed_lanes import oed_lane_params, sample_oed_lanes
from kernels.samplers import sample_check_roll, sample_oed, sample_oed_table, sample_soed
from montecarlo.distribution import TAIL_CUT, Distribution
from montecarlo.errors import InputError
from montecarlo.validation import MAX_DICE, check_die_size, check_limit

DIFFICULTIES = {"easy": EASY, "normal": NORMAL, "hard": HARD}

#: C-1.4 [default]: what a die of size 0 or less rolls: ``"zero"`` (0), or ``"one"``
#: (it rolls as a die of size 1, C-1.3).
NONPOSITIVE = ("zero", "one")
#: C-1.7 [default]: how k dice are open-ended: ``"each"`` die on its own, or
#: ``"together"`` (the k dice roll again, all of them, while all show the maximum).
OPEN_ENDED = ("each", "together")

#: (die size, number of S-OED dice) rolled for each difficulty (C-2.1).
CHECK_DICE = {"easy": (5, 1), "normal": (4, 2), "hard": (6, 2)}

_DIE_RE = re.compile(
    r"""^\s*
    (?:(?P<lo>\d+)\s*-\s*)?         # optional '1-'
    (?P<hi>\d+)\s*                  # the die size
    (?:\(\s*(?P<bonus>[+-]?\s*\d+)\s*\))?  # optional '(+10)' bonus
    \s*$""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Die:
    """A CoE5 damage value such as ``1-5 (+10)``.

    Attributes
    ----------
    base : int
        The listed maximum (5 in ``1-5``).
    bonus : int
        The bracketed bonus (10 in ``(+10)``); it enlarges the die (C-1.5).
    """

    base: int
    bonus: int = 0

    @property
    def size(self) -> int:
        """The size N of the OED(N) actually rolled (C-1.5: bonus added to the die)."""
        return self.base + self.bonus

    def __str__(self) -> str:
        text = "1" if self.base == 1 else f"1-{self.base}"
        if self.bonus:
            text += f" ({self.bonus:+d})"
        return text


def parse_die(text: str | int | Die) -> Die:
    """Parse a CoE5 damage value: ``"1-5"``, ``"1-5 (+10)"``, ``"1-5(+10)"`` or ``"1"``.

    Raises
    ------
    InputError
        For anything else, naming the text and the accepted forms.
    """
    if isinstance(text, Die):
        return text
    if isinstance(text, bool):
        raise InputError(f"a damage die must be text like '1-5' or an integer, not {text!r}")
    if isinstance(text, int | np.integer):
        if text < 0:
            raise InputError(f"a damage die cannot be negative, got {text}")
        return Die(int(text))
    if not isinstance(text, str):
        raise InputError(
            f"a damage die must be text like '1-5' or an integer, not {type(text).__name__}"
        )
    m = _DIE_RE.match(text)
    if m is None:
        raise InputError(
            f"{text!r} is not a damage die; expected '1-N', '1-N (+B)' or 'N' "
            f"with whole numbers, e.g. '1-5' or '1-5 (+10)'"
        )
    hi = int(m["hi"])
    bonus = int(m["bonus"].replace(" ", "")) if m["bonus"] else 0
    if m["lo"] is not None:
        lo = int(m["lo"])
        if hi < lo:
            raise InputError(f"{text!r}: the upper end {hi} is below the lower end {lo}")
        if lo != 1:
            raise InputError(f"{text!r}: a CoE5 damage range starts at 1, e.g. '1-{hi}'")
    return Die(hi, bonus)


def die_size(die: str | int | Die) -> int:
    """The OED size of a die given as text, integer or :class:`Die`."""
    return parse_die(die).size


# -- scoring explicit roll sequences (pure helpers, for tests and teaching) --
def score_oed(rolls: Sequence[int], n: int) -> int:
    """Score a sequence of dn rolls as one OED(n) (C-1.1).

    ``rolls`` must be the whole roll-again chain: every roll but the last shows
    ``n`` and the last does not.  Example: ``score_oed([5, 5, 5, 4], 5) == 16``.
    """
    _check_chain(rolls, n)
    return rolls[0] + sum(r - 1 for r in rolls[1:])


def score_soed(rolls: Sequence[int], n: int) -> int:
    """Score a sequence of dn rolls as one S-OED(n) (C-1.6).

    Example: ``score_soed([5, 5, 5, 4], 5) == 10``.
    """
    _check_chain(rolls, n)
    return rolls[0] + sum(r - 1 for r in rolls[1:]) // 2


def _check_chain(rolls: Sequence[int], n: int) -> None:
    if n < 2:
        raise InputError(f"roll chains are defined for dice of size 2 or more, got {n}")
    if len(rolls) == 0:
        raise InputError("a roll chain needs at least one roll")
    if any(not 1 <= r <= n for r in rolls):
        raise InputError(f"every roll of a d{n} lies in 1..{n}, got {list(rolls)}")
    if any(r != n for r in rolls[:-1]) or rolls[-1] == n:
        raise InputError(f"a chain rolls again exactly while it shows {n}, got {list(rolls)}")


# -- exact distributions ------------------------------------------------------
@cache
def _oed_single(n: int) -> Distribution:
    """OED(n) for one die, with C-1.3 and C-1.4 applied."""
    if n <= 0:  # C-1.4 [default]
        return Distribution.point(0)
    if n == 1:  # C-1.3: half a flat 1, half OED(2)
        return Distribution.mixture([0.5, 0.5], [Distribution.point(1), _oed_single(2)])
    # C-1.2: P(T = t) = n^-(level + 1), level = (t-1) // (n-1); the mass
    # above `levels` full levels is n^-levels, so keep enough of them.
    levels = math.ceil(-math.log(TAIL_CUT) / math.log(n))
    t = np.arange(1, levels * (n - 1) + 1)
    pmf = np.power(float(n), -((t - 1) // (n - 1) + 1).astype(np.float64))
    return Distribution(pmf, 1, tail=float(n) ** -levels)


@cache
def _soed_single(n: int) -> Distribution:
    """S-OED(n) for one die (C-1.6); size 1 follows C-1.3 with S-OED(2) [default]."""
    if n <= 0:
        return Distribution.point(0)
    if n == 1:
        return Distribution.mixture([0.5, 0.5], [Distribution.point(1), _soed_single(2)])
    first = Distribution.uniform(1, n - 1)
    rerolled = _oed_single(n).map(lambda t: n + (t - 1) // 2)
    return Distribution.mixture([(n - 1) / n, 1 / n], [first, rerolled])


def _sum_of(single: Distribution, dice: int) -> Distribution:
    total = single
    for _ in range(dice - 1):
        total = total.convolve(single)
    return total


@cache
def _oed_together(n: int, dice: int) -> Distribution:
    """C-1.7 ``open_ended="together"``: k dice of size n ≥ 2 roll again, all of
    them, while all show n; each die of a further roll counts 1 less (C-1.2).

    The total is T = S' + M·k(n − 1), where S' is the sum of a roll that is not
    all maxima and P(M = m) = q^m (1 − q) with q = n^−k.
    """
    plain = _sum_of(Distribution.uniform(1, n), dice)
    q = float(n) ** -dice
    last_roll = plain.probabilities.copy()
    last_roll[-1] -= q  # k·n is all maxima and nothing else
    last_roll /= 1.0 - q
    step = dice * (n - 1)
    levels = math.ceil(-math.log(TAIL_CUT) / (dice * math.log(n)))
    pmf = np.zeros(last_roll.size + (levels - 1) * step)
    for m in range(levels):
        pmf[m * step : m * step + last_roll.size] += q**m * (1.0 - q) * last_roll
    return Distribution(pmf, plain.lo, tail=q**levels)


def _choose(value: str, options: tuple[str, ...], name: str) -> str:
    if value not in options:
        raise InputError(f"{name} is one of {', '.join(map(repr, options))}, not {value!r}")
    return value


def _check_dice(dice: object) -> int:
    if isinstance(dice, bool) or not isinstance(dice, int | np.integer) or dice < 1:
        raise InputError(f"dice must be a positive integer, got {dice!r}")
    why = "the exact law is a k-fold convolution"
    return check_limit(int(dice), MAX_DICE, "the number of dice", why)


def oed(
    n: str | int | Die, dice: int = 1, *, open_ended: str = "each", nonpositive: str = "zero"
) -> Distribution:
    """Exact distribution of ``dice`` open-ended OED(n) rolls summed.

    Parameters
    ----------
    n : int or str
        The die size, or a damage string such as ``"1-5 (+10)"`` (OED(15), C-1.5).
    dice : int
        Number of dice.
    open_ended : {"each", "together"}
        C-1.7 [default] ``"each"``: every die is open-ended on its own and the
        results are summed.  ``"together"``: the dice roll again, all of them,
        while all show the maximum, each further roll counting 1 less per die.
        Dice of size 1 or less are not open-ended together (C-1.3, C-1.4 apply
        to each die).
    nonpositive : {"zero", "one"}
        C-1.4 [default] ``"zero"``: a die of size 0 or less rolls 0.  ``"one"``:
        it rolls as a die of size 1 (C-1.3).

    Returns
    -------
    Distribution
        With a Numba sampler attached, so ``.sample()`` runs the real kernel
        (``open_ended="together"`` samples its exact table).
    """
    size = check_die_size(die_size(n))
    dice = _check_dice(dice)
    if _choose(nonpositive, NONPOSITIVE, "nonpositive") == "one":
        size = max(size, 1)
    label = f"OED({size})" if dice == 1 else f"{dice}×OED({size})"
    if _choose(open_ended, OPEN_ENDED, "open_ended") == "together" and dice > 1 and size > 1:
        d = _oed_together(size, dice)
        return Distribution(d.probabilities, d.lo, tail=d.tail, name=f"{label} together")
    dist = _sum_of(_oed_single(size), dice)
    table, levels = oed_level_table(size) if dice == 1 else (None, 0)
    lanes = oed_lane_params(size) if dice == 1 else np.empty(0, dtype=np.uint64)

    def fill(states: np.ndarray, chunk: int, out: np.ndarray) -> None:
        if lanes.size and chunk % 4 == 0:  # d3, d5, d9: four rolls per word, SIMD lanes
            rolls = np.empty(out.shape[0], dtype=np.int16)
            if sample_oed_lanes(states, chunk, lanes, rolls):
                raise OverflowError(f"an {label} roll exceeded the int16 range")
            out[:] = rolls
        elif levels:  # any other single die: the two-rolls-per-word table kernel
            sample_oed_table(states, chunk, size, table, levels, out)
        else:
            sample_oed(states, chunk, size, dice, out)

    return Distribution(dist.probabilities, dist.lo, tail=dist.tail, name=label, sampler=fill)


def soed(n: str | int | Die, dice: int = 1, *, nonpositive: str = "zero") -> Distribution:
    """Exact distribution of ``dice`` semi-open-ended S-OED(n) rolls summed (C-1.6).

    ``nonpositive`` is C-1.4's choice, as in :func:`oed`.
    """
    size = check_die_size(die_size(n))
    dice = _check_dice(dice)
    if _choose(nonpositive, NONPOSITIVE, "nonpositive") == "one":
        size = max(size, 1)
    label = f"S-OED({size})" if dice == 1 else f"{dice}×S-OED({size})"
    dist = _sum_of(_soed_single(size), dice)

    def fill(states: np.ndarray, chunk: int, out: np.ndarray) -> None:
        sample_soed(states, chunk, size, dice, out)

    return Distribution(dist.probabilities, dist.lo, tail=dist.tail, name=label, sampler=fill)


def _difficulty(difficulty: str) -> str:
    key = str(difficulty).lower()
    if key not in DIFFICULTIES:
        raise InputError(
            f"unknown difficulty {difficulty!r}; expected one of {', '.join(DIFFICULTIES)}"
        )
    return key


def check_roll(difficulty: str = "normal") -> Distribution:
    """Exact distribution of a check roll at ``difficulty`` (C-2.1)."""
    key = _difficulty(difficulty)
    n, dice = CHECK_DICE[key]
    dist = _sum_of(_soed_single(n), dice)
    code = DIFFICULTIES[key]

    def fill(states: np.ndarray, chunk: int, out: np.ndarray) -> None:
        sample_check_roll(states, chunk, code, out)

    return Distribution(
        dist.probabilities, dist.lo, tail=dist.tail, name=f"{key} check", sampler=fill
    )


def _check_mr(mr: object) -> int:
    if isinstance(mr, bool) or not isinstance(mr, int | np.integer):
        raise InputError(f"magic resistance must be an integer, got {mr!r}")
    if mr < 0:
        raise InputError(f"magic resistance cannot be negative, got {mr}")
    return int(mr)


def resist_chance(mr: int, difficulty: str = "normal") -> float:
    """Exact chance that a unit with magic resistance ``mr`` resists (C-2.1, C-2.2).

    The effect is resisted when the check roll is strictly below MR.
    """
    mr = _check_mr(mr)
    return float(check_roll(difficulty).cdf(mr - 1))


def morale_failure_chance(morale: int, die: int) -> float:
    """Exact chance of failing a morale check: OED(die) > morale (C-2.4 [default])."""
    if morale >= 99:
        return 0.0
    return float(_oed_single(die).sf(morale))
