"""The Python API refuses what it cannot do before any work, with InputError (issue 14).

The CLI checks these limits too; these tests pin the same checks in the library,
where ``mc.matchup`` and ``sf.fight`` are called directly.
"""

from __future__ import annotations

import pytest

import montecarlo as mc
from montecarlo import sf
from montecarlo.coe5.battle import matchup as coe5_matchup
from montecarlo.errors import InputError
from montecarlo.validation import MAX_DICE, MAX_DIE_SIZE, MAX_GRID_SIDE, MAX_UNITS_PER_SIDE


def test_an_army_above_the_limit_is_refused_before_deployment():
    with pytest.raises(InputError, match="attacker's unit count"):
        coe5_matchup(f"pikeman:{MAX_UNITS_PER_SIDE + 1}", "knight:3", trials=1)
    with pytest.raises(InputError, match="defender's unit count"):
        mc.matchup("pikeman:3", f"militia:{MAX_UNITS_PER_SIDE},knight:1", trials=1)


def test_a_grid_above_the_limit_is_refused():
    with pytest.raises(InputError, match="grid width"):
        coe5_matchup("pikeman:1", "knight:1", width=MAX_GRID_SIDE + 1, trials=1)


def test_die_sizes_and_dice_counts_above_the_limits_are_refused():
    with pytest.raises(InputError, match="die size"):
        mc.oed(MAX_DIE_SIZE + 1)
    with pytest.raises(InputError, match="number of dice"):
        mc.oed(5, dice=MAX_DICE + 1)


def test_rules_and_policy_may_be_dicts_of_their_fields():
    a = coe5_matchup("pikeman:2", "militia:2", rules={"burn_chance": 0.3}, trials=64, seed=1)
    b = coe5_matchup(
        "pikeman:2", "militia:2", rules=mc.BattleRules(burn_chance=0.3), trials=64, seed=1
    )
    assert a.counts == b.counts
    f = sf.fight("warrior:1", "goblin:1", rules={"death_threshold": ">="}, trials=64, seed=1)
    g = sf.fight("warrior:1", "goblin:1", rules=sf.SFRules(death_threshold=">="), trials=64, seed=1)
    assert f.counts == g.counts
    with pytest.raises(InputError, match="unknown field"):
        sf.fight("warrior:1", "goblin:1", policy={"no_such_field": 1}, trials=1)
    with pytest.raises(InputError, match="BattleRules or a dict"):
        coe5_matchup("pikeman:1", "knight:1", rules=3, trials=1)


def test_keeping_every_trial_has_a_stated_limit():
    from montecarlo.validation import MAX_KEPT

    with pytest.raises(InputError, match="keep_trials"):
        coe5_matchup("pikeman:1", "knight:1", trials=MAX_KEPT + 1, keep_trials=True)
    with pytest.raises(InputError, match="keep_trials"):
        sf.fight("warrior:1", "goblin:1", trials=MAX_KEPT + 1, keep_trials=True)


@pytest.mark.parametrize(
    ("module", "parse", "table"),
    [
        ("montecarlo.coe5.units", "parse_roster", "unit"),
        ("montecarlo.sf.characters", "parse_characters", "character"),
        ("montecarlo.sf.battlefields", "parse_battlefields", "battlefield"),
    ],
)
def test_every_toml_loader_refuses_a_table_that_is_not_a_list_of_tables(module, parse, table):
    import importlib

    from montecarlo.errors import DataError

    parse = getattr(importlib.import_module(module), parse)
    with pytest.raises(DataError, match=rf"expected \[\[{table}\]\] tables"):
        parse(f"{table} = 3", "mine.toml")
    with pytest.raises(DataError, match="unknown key"):
        parse("oops = 1", "mine.toml")
