"""CoE5 dice (RULES.md C-1, C-2) as Numba scalar kernels.

Each function takes a xoshiro256** state row ``s`` (see :mod:`kernels.rng`) and
returns one roll.  They are inlined into the batch samplers and battle loops.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kernels.jit import helper
from kernels.rng import bounded, uniform

#: C-1.3: a die of size 1 is a flat 1 on one side of this coin.  A typed int64,
#: not a literal 2, so that ``bounded`` is compiled once (cold start, issue 13).
COIN = np.int64(2)

# Difficulty codes for magic-resistance checks (C-2.1).
EASY = 0
NORMAL = 1
HARD = 2


@helper(forceinline=True)
def oed(s, n):
    """One open-ended roll OED(n) (C-1.1, C-1.3, C-1.4).

    Rolls dn and, while the roll shows n, adds n - 1 and rolls again.  This is
    C-1.2's T = M(n-1) + U read off one bounded draw per die: each draw is a
    maximum (adding n - 1 to M's share) with chance 1/n, and otherwise it *is*
    U.  The expected number of draws is n/(n-1), exactly uniform, and it beat
    the float log-inversion of the closed form in ``benchmarks/bench_dice.py``.
    """
    if n <= 0:  # C-1.4 [default]: a die of size 0 or less rolls 0
        return np.int64(0)
    total = np.int64(0)
    if n == 1:  # C-1.3: half the time a flat 1, half the time OED(2)
        if bounded(s, COIN) == 0:
            return np.int64(1)
        n = 2
    step = np.int64(n - 1)
    while True:
        r = bounded(s, n) + 1
        if r < n:
            return total + r
        total += step


#: Largest lookup table built by :func:`oed_level_table` (int16: 8 KiB, L1-resident).
TABLE_CAP = 4096


@njit(cache=True, error_model="numpy")
def oed_level_table(n, cap=TABLE_CAP):
    """Lookup table of the first K levels of OED(n), for one-draw sampling (C-1.2).

    A uniform v on [0, n^K) is read as K base-n digits, most significant
    first.  Each leading digit n-1 is a maximum rolled; the first other digit d
    gives U = d + 1, so T = M(n-1) + U.  ``table[v]`` stores that T, or -1 when
    all K digits are maxima (chance n^-K), where the caller continues with
    K(n-1) + OED(n).  Returns ``(table, K)``; K = 0 means no table fits.
    """
    if n < 2 or n > cap:
        return np.empty(0, dtype=np.int16), 0
    levels = 1
    size = n
    while size * n <= cap:
        size *= n
        levels += 1
    table = np.empty(size, dtype=np.int16)
    for v in range(size):
        rem = v
        place = size // n
        value = -1
        for level in range(levels):
            digit = rem // place
            rem -= digit * place
            if digit < n - 1:
                value = level * (n - 1) + digit + 1
                break
            place //= n
        table[v] = value
    return table, levels


@helper(forceinline=True)
def oed_inversion(s, n):
    """OED(n) for n >= 2 by inverting C-1.2's closed form with one float draw.

    Kept for the benchmark only: it needs a log and a pow per roll and has a
    2**-53 granularity, so :func:`oed` is the production kernel.
    """
    v = 1.0 - uniform(s)  # in (0, 1]
    m = np.int64(np.floor(-np.log(v) / np.log(n)))
    # v lies in (n^-(m+1), n^-m]; its position inside that level is U.
    u = np.int64(np.ceil(v * n ** (m + 1))) - 1
    if u < 1:
        u = 1
    elif u > n - 1:
        u = n - 1
    return m * (n - 1) + u


@helper(forceinline=True)
def soed(s, n):
    """One semi-open-ended roll S-OED(n) (C-1.6).

    With chance (n-1)/n the first roll r < n is the result; otherwise the
    result is n + floor((T' - 1) / 2) for a fresh OED(n) T'.  A die of size 1
    follows C-1.3 with S-OED(2) in place of OED(2) [default].
    """
    if n <= 0:
        return np.int64(0)
    if n == 1:
        if bounded(s, COIN) == 0:
            return np.int64(1)
        n = 2
    r = bounded(s, n) + 1
    if r < n:
        return r
    return np.int64(n) + (oed(s, n) - 1) // 2


@helper(forceinline=True)
def oed_sum(s, n, dice):
    """``dice`` independent OED(n) rolls summed (C-1.7 [default])."""
    total = np.int64(0)
    for _ in range(dice):
        total += oed(s, n)
    return total


@helper(forceinline=True)
def soed_sum(s, n, dice):
    """``dice`` independent S-OED(n) rolls summed (C-2.1)."""
    total = np.int64(0)
    for _ in range(dice):
        total += soed(s, n)
    return total


@helper(forceinline=True)
def check_roll(s, difficulty):
    """The roll of a check at ``difficulty`` (C-2.1): Easy 1d5, Normal 2d4, Hard 2d6 S-OED."""
    if difficulty == EASY:
        return soed_sum(s, np.int64(5), np.int64(1))
    if difficulty == HARD:
        return soed_sum(s, np.int64(6), np.int64(2))
    return soed_sum(s, np.int64(4), np.int64(2))


@helper(forceinline=True)
def resists(s, mr, difficulty):
    """True when a unit with magic resistance ``mr`` resists (C-2.2: roll < MR)."""
    return check_roll(s, difficulty) < mr


@helper(forceinline=True)
def fails_morale(s, morale, die):
    """True when a morale check fails (C-2.4 [default]: OED(die) > morale; 99 never fails)."""
    if morale >= 99:
        return False
    return oed(s, die) > morale
