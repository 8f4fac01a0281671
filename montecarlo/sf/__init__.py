"""Shared†Fantasia (RULES.md part 2): checks, attacks and fights."""

from montecarlo.sf.checks import OUTCOMES, CheckOdds, check, sample_check

__all__ = ["OUTCOMES", "CheckOdds", "check", "sample_check"]
