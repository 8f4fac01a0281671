"""Shared†Fantasia (RULES.md part 2): checks, attacks, fainting and party fights."""

from montecarlo.compare import sf_compare as compare
from montecarlo.scenarios import SFScenario
from montecarlo.sensitivity import sf_sensitivity as sensitivity
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
