"""Shared†Fantasia 2d6 checks (RULES.md S-1.1) as Numba scalar kernels."""

from __future__ import annotations

import numpy as np

from kernels.jit import helper
from kernels.rng import bounded

# Outcome codes of one check, ordered from worst to best.
FUMBLE = 0  # double one and the total misses the target
AUTO_FAILURE = 1  # double one, total would have made it: fails anyway
FAILURE = 2
SUCCESS = 3
AUTO_SUCCESS = 4  # double six, total misses the target: succeeds anyway
DRAMATIC = 5  # double six and the total makes the target
N_OUTCOMES = 6

FACES_2D6 = np.int64(36)  # a typed constant: one compile of bounded (issue 13)


@helper(forceinline=True)
def roll_2d6(s):
    """The natural 2d6 sum, from one bounded draw of the 36 ordered faces."""
    r = bounded(s, FACES_2D6)
    return (r // 6) + (r % 6) + 2


@helper(forceinline=True)
def classify(natural, total, target):
    """Outcome code of a check with 2d6 result ``natural`` and ``total`` (S-1.1)."""
    made = total >= target
    if natural == 12:
        return DRAMATIC if made else AUTO_SUCCESS
    if natural == 2:
        return AUTO_FAILURE if made else FUMBLE
    return SUCCESS if made else FAILURE


@helper(forceinline=True)
def check(s, modifier, target):
    """Roll one S-1.1 check and return its outcome code."""
    natural = roll_2d6(s)
    return classify(natural, natural + modifier, target)


@helper(forceinline=True)
def succeeded(code):
    """True for the outcome codes that count as a success."""
    return code >= SUCCESS
