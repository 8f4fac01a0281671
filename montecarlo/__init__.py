"""montecarlo: Monte Carlo analytics for game combat.

Exact distributions back sampled ones wherever the maths allows; every sampled
figure carries its Monte Carlo error.  Rules are cited by their ids, explained
in docs/rules.md (``montecarlo rules C-4.2`` prints one).
"""

from montecarlo import sf
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.damage import damage, hits_to_kill
from montecarlo.coe5.dice import (
    Die,
    check_roll,
    morale_failure_chance,
    oed,
    parse_die,
    resist_chance,
    score_oed,
    score_soed,
    soed,
)
from montecarlo.coe5.duel import DuelResult, duel_exact
from montecarlo.coe5.replay import Replay, replay
from montecarlo.coe5.reports import damage_heatmap, damage_table
from montecarlo.coe5.units import Roster, Unit, Weapon, load_units
from montecarlo.compare import Comparison, compare
from montecarlo.distribution import Distribution
from montecarlo.errors import DataError, InputError
from montecarlo.plotting import plot_exact_vs_sampled, plot_overlay
from montecarlo.roundrobin import RoundRobin, round_robin
from montecarlo.scenarios import Scenario, SFScenario
from montecarlo.seeding import resolve_seed
from montecarlo.sensitivity import SensitivityResult, sensitivity
from montecarlo.solver import Requirement, required_count
from montecarlo.stats import wilson
from montecarlo.sweeps import sweep

__version__ = "0.1.0"


__all__ = [
    "BattleRules",
    "Comparison",
    "DataError",
    "Die",
    "Distribution",
    "DuelResult",
    "InputError",
    "Replay",
    "Requirement",
    "Roster",
    "RoundRobin",
    "SFScenario",
    "Scenario",
    "SensitivityResult",
    "Unit",
    "Weapon",
    "__version__",
    "check_roll",
    "compare",
    "damage",
    "damage_heatmap",
    "damage_table",
    "duel_exact",
    "hits_to_kill",
    "load_units",
    "matchup",
    "morale_failure_chance",
    "oed",
    "parse_die",
    "plot_exact_vs_sampled",
    "plot_overlay",
    "replay",
    "required_count",
    "resist_chance",
    "resolve_seed",
    "round_robin",
    "score_oed",
    "score_soed",
    "sensitivity",
    "sf",
    "soed",
    "sweep",
    "wilson",
]
