"""Shared†Fantasia (RULES.md part 2): checks, attacks, fainting and party fights."""

import importlib as _importlib

from montecarlo.sf.battlefields import load_battlefields
from montecarlo.sf.characters import Character, Spell, load_characters, parse_dice
from montecarlo.sf.checks import OUTCOMES, CheckOdds, check, sample_check
from montecarlo.sf.exact import (
    AttackOdds,
    SFState,
    ally_hit_chance,
    attack,
    death_chance,
    faint_chance,
    friendly_fire,
    opposed,
    outcome_chances,
)
from montecarlo.sf.fight_replay import FightReplay, replay
from montecarlo.sf.fights import BATTLEFIELDS, Battlefield, FightResult, Policy, SFRules, fight

#: Names that live outside the SF package, loaded on first use (PEP 562): the
#: comparison modules import montecarlo.sf themselves, so importing them here
#: would make a cycle, and they cost pandas at start-up (issue 13).
_ELSEWHERE = {
    "compare": ("montecarlo.compare", "sf_compare"),
    "SFScenario": ("montecarlo.scenarios", "SFScenario"),
    "sensitivity": ("montecarlo.sensitivity", "sf_sensitivity"),
}


def __getattr__(name: str):
    if name not in _ELSEWHERE:
        raise AttributeError(f"module 'montecarlo.sf' has no attribute {name!r}")
    module, attr = _ELSEWHERE[name]
    value = getattr(_importlib.import_module(module), attr)
    globals()[name] = value
    return value


__all__ = [
    "BATTLEFIELDS",
    "OUTCOMES",
    "AttackOdds",
    "Battlefield",
    "Character",
    "CheckOdds",
    "FightReplay",
    "FightResult",
    "Policy",
    "SFRules",
    "SFScenario",
    "SFState",
    "Spell",
    "ally_hit_chance",
    "attack",
    "check",
    "compare",
    "death_chance",
    "faint_chance",
    "fight",
    "friendly_fire",
    "load_battlefields",
    "load_characters",
    "opposed",
    "outcome_chances",
    "parse_dice",
    "replay",
    "sample_check",
    "sensitivity",
]
