"""montecarlo: Monte Carlo analytics for game combat.

Exact distributions back sampled ones wherever the maths allows; every sampled
figure carries its Monte Carlo error.  Rules are cited by their ids, explained
in docs/rules.md (``montecarlo rules C-4.2`` prints one).
"""

import importlib as _importlib
import sys as _sys
import types as _types


class _Package(_types.ModuleType):
    """``montecarlo.compare`` and ``.sensitivity`` name the functions, not their modules.

    Importing a submodule sets it as an attribute of the package; the public
    functions of the same name take its place, as an eager ``from montecarlo.compare
    import compare`` would have.
    """

    def __setattr__(self, name: str, value) -> None:
        if name in ("compare", "sensitivity") and isinstance(value, _types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

# Public names load on first use (PEP 562), so a command pays only for what it
# touches: SciPy, pandas, matplotlib and the SF package took about a second of
# every start (issue 13).  ``name: module`` (the module itself for "sf").
_LAZY = {
    "sf": "montecarlo.sf",
    "BattleRules": "montecarlo.coe5.battle",
    "matchup": "montecarlo.coe5.battle",
    "damage": "montecarlo.coe5.damage",
    "hits_to_kill": "montecarlo.coe5.damage",
    "Die": "montecarlo.coe5.dice",
    "check_roll": "montecarlo.coe5.dice",
    "morale_failure_chance": "montecarlo.coe5.dice",
    "oed": "montecarlo.coe5.dice",
    "parse_die": "montecarlo.coe5.dice",
    "resist_chance": "montecarlo.coe5.dice",
    "score_oed": "montecarlo.coe5.dice",
    "score_soed": "montecarlo.coe5.dice",
    "soed": "montecarlo.coe5.dice",
    "DuelResult": "montecarlo.coe5.duel",
    "duel_exact": "montecarlo.coe5.duel",
    "Replay": "montecarlo.coe5.replay",
    "replay": "montecarlo.coe5.replay",
    "damage_heatmap": "montecarlo.coe5.reports",
    "damage_table": "montecarlo.coe5.reports",
    "Roster": "montecarlo.coe5.units",
    "Unit": "montecarlo.coe5.units",
    "Weapon": "montecarlo.coe5.units",
    "load_units": "montecarlo.coe5.units",
    "C5mImport": "montecarlo.coe5.c5m",
    "GameUnit": "montecarlo.coe5.units",
    "GameWeapon": "montecarlo.coe5.units",
    "load_c5m": "montecarlo.coe5.c5m",
    "Comparison": "montecarlo.compare",
    "compare": "montecarlo.compare",
    "Distribution": "montecarlo.distribution",
    "DataError": "montecarlo.errors",
    "InputError": "montecarlo.errors",
    "plot_exact_vs_sampled": "montecarlo.plotting",
    "plot_overlay": "montecarlo.plotting",
    "RoundRobin": "montecarlo.roundrobin",
    "round_robin": "montecarlo.roundrobin",
    "Scenario": "montecarlo.scenarios",
    "SFScenario": "montecarlo.scenarios",
    "resolve_seed": "montecarlo.seeding",
    "SensitivityResult": "montecarlo.sensitivity",
    "sensitivity": "montecarlo.sensitivity",
    "Requirement": "montecarlo.solver",
    "required_count": "montecarlo.solver",
    "FitResult": "montecarlo.stats",
    "fit_test": "montecarlo.stats",
    "wilson": "montecarlo.stats",
    "sweep": "montecarlo.sweeps",
}


def __getattr__(name: str):
    """Import a public name on first use and keep it (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'montecarlo' has no attribute {name!r}")
    value = _importlib.import_module(_LAZY[name])
    if name != "sf":
        value = getattr(value, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"


__all__ = [
    "BattleRules",
    "C5mImport",
    "Comparison",
    "DataError",
    "Die",
    "Distribution",
    "DuelResult",
    "FitResult",
    "GameUnit",
    "GameWeapon",
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
    "fit_test",
    "hits_to_kill",
    "load_c5m",
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
