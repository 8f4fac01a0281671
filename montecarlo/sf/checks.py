"""Shared†Fantasia 2d6 checks, exactly (RULES.md S-1.1)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from kernels.samplers import sample_sf_check
from kernels.sf_dice import N_OUTCOMES
from montecarlo.driver import run_fill
from montecarlo.errors import InputError
from montecarlo.seeding import SeedLike, resolve_seed

#: Outcome names in the order of the kernel's codes (kernels.sf_dice).
OUTCOMES = ("fumble", "auto_failure", "failure", "success", "auto_success", "dramatic")


@dataclass(frozen=True)
class CheckOdds:
    """Exact probabilities of the six mutually exclusive outcomes of a check.

    ``failure`` and ``success`` are the ordinary outcomes (natural 3..11);
    ``auto_success`` is a double six whose total would have failed and
    ``auto_failure`` a double one whose total would have succeeded.
    """

    fumble: Fraction
    auto_failure: Fraction
    failure: Fraction
    success: Fraction
    auto_success: Fraction
    dramatic: Fraction

    @property
    def p_success(self) -> Fraction:
        """Chance the check succeeds, by any route."""
        return self.success + self.auto_success + self.dramatic

    @property
    def p_failure(self) -> Fraction:
        """Chance the check fails, by any route."""
        return 1 - self.p_success

    def to_series(self) -> pd.Series:
        """The six outcome probabilities as floats, in kernel code order."""
        return pd.Series({k: float(v) for k, v in asdict(self).items()}, name="probability")


def _check_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(f"{name} must be an integer, got {value!r}")
    return int(value)


def check(mod: int, target: int) -> CheckOdds:
    """Exact odds of a check: 2d6 + ``mod`` against ``target`` (S-1.1).

    Enumerates the 36 ordered faces.  A double six always succeeds and is
    dramatic when the total makes the target; a double one always fails and is
    a fumble when the total misses it.
    """
    mod = _check_int(mod, "mod")
    target = _check_int(target, "target")
    counts = dict.fromkeys(OUTCOMES, 0)
    for a in range(1, 7):
        for b in range(1, 7):
            natural = a + b
            made = natural + mod >= target
            if natural == 12:
                counts["dramatic" if made else "auto_success"] += 1
            elif natural == 2:
                counts["auto_failure" if made else "fumble"] += 1
            else:
                counts["success" if made else "failure"] += 1
    return CheckOdds(**{k: Fraction(v, 36) for k, v in counts.items()})


def sample_check(
    mod: int, target: int, size: int, *, seed: SeedLike = None, rng: SeedLike = None
) -> pd.Series:
    """Counts of each outcome over ``size`` sampled checks (the Numba kernel)."""
    mod = _check_int(mod, "mod")
    target = _check_int(target, "target")
    ss = resolve_seed(seed, rng)

    def fill(states: np.ndarray, chunk: int, out: np.ndarray) -> None:
        sample_sf_check(states, chunk, mod, target, out)

    codes = run_fill(fill, size, ss, dtype=np.int8, progress=False).values
    counts = np.bincount(codes, minlength=N_OUTCOMES)
    return pd.Series(counts, index=list(OUTCOMES), name="count")
