"""mc.compare: paired comparisons on common random numbers (issue 12, points 3 and 5)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import montecarlo as mc
from montecarlo import sf
from montecarlo.compare import compare, sf_compare
from montecarlo.errors import InputError
from montecarlo.paired import newcombe_independent
from montecarlo.scenarios import Scenario, SFScenario

BASE = ("pikeman:20", "knight:3")
KW = {"seed": 1, "progress": False}


def test_a_matchup_against_itself_is_exactly_zero():
    res = compare(BASE, Scenario(*BASE), trials=2048, **KW)
    assert res.identical
    assert res.difference() == (0.0, 0.0, 0.0)
    frame = res.to_frame()
    assert (frame["difference"] == 0).all()
    assert (frame["ci_low"] == frame["ci_high"]).all()
    assert res.totals.table[1] == res.totals.table[2] == 0 and res.totals.changed == 0


def test_a_change_that_never_arises_changes_no_battle():
    # Common random numbers at work: a siege-only rule in a field battle gives
    # the kernel other inputs, yet every battle plays out the same.
    res = compare(BASE, "rules.siege_bombardment=false", trials=2048, **KW)
    assert not res.identical
    assert res.totals.changed == 0 and res.difference()[0] == 0
    assert res.variance_reduction() == float("inf")


def test_battle_t_of_each_variant_is_battle_t_of_a_plain_run():
    # 3,000 battles: two batches, the last chunk cut short; plain runs group the
    # chunks into kernel calls by wall time, compare in fixed calls.
    res = compare(BASE, "attacker=pikeman:21", trials=3000, **KW)
    base = mc.matchup(*BASE, trials=3000, **KW)
    var = mc.matchup("pikeman:21", "knight:3", trials=3000, **KW)
    assert res.totals.outcomes[0].tolist() == list(base.counts.values())
    assert res.totals.outcomes[1].tolist() == list(var.counts.values())
    assert res.totals.moments["rounds"].means()[0] == pytest.approx(base.rounds_mean()[0])


def test_same_result_at_any_thread_count():
    one = compare(BASE, "knight.hp=+1", trials=2048, threads=1, **KW)
    two = compare(BASE, "knight.hp=+1", trials=2048, threads=2, **KW)
    assert one.totals.table.tolist() == two.totals.table.tolist()
    assert one.to_frame().equals(two.to_frame())


def _knight_armour_plus_one() -> list:
    knight = mc.load_units()["knight"]
    return [(dataclasses.replace(knight, armor=knight.armor + 1), 3)]


def test_paired_interval_narrower_than_independent_runs():
    # Knight armour +1: the paired interval against the interval of two
    # independent runs of the same size (different seeds), both Newcombe.
    n = 2048
    res = compare(BASE, "knight.armor=+1", trials=n, **KW)
    _, lo, hi = res.difference()
    base = mc.matchup(*BASE, trials=n, seed=11, progress=False)
    var = mc.matchup("pikeman:20", _knight_armour_plus_one(), trials=n, seed=12, progress=False)
    ilo, ihi = newcombe_independent(var.counts["attacker"], n, base.counts["attacker"], n)
    assert hi - lo < ihi - ilo
    assert res.variance_reduction() > 1


def test_variance_reduction_matches_replicated_runs():
    # 30 replicate comparisons: the spread of paired differences against the
    # spread of differences between runs of different seeds (independent).
    small = ("pikeman:6", "knight:1")  # fast battles; knight hp +1 leaves most alone
    reps = [compare(small, "knight.hp=+1", trials=1024, seed=s, progress=False)
            for s in range(30)]  # fmt: skip
    p = np.array([r.win_rates for r in reps])
    paired = p[:, 1] - p[:, 0]
    independent = p[:, 1] - np.roll(p[:, 0], 1)
    empirical = np.var(independent, ddof=1) / np.var(paired, ddof=1)
    table = sum(r.totals.table for r in reps)
    from montecarlo.paired import variance_reduction

    estimated = variance_reduction(*(int(x) for x in table))
    assert estimated > 3  # the change leaves most battles' play alone
    # Ratio of two variances of 30 values: an F(29, 29) spread, 99% within ×2.6.
    assert estimated / 2.6 < empirical < estimated * 2.6


def test_precision_stops_on_the_difference():
    res = compare(BASE, "knight.hp=+1", precision=0.02, **KW)
    assert res.halfwidth() <= 0.02
    again = compare(BASE, "knight.hp=+1", precision=0.02, seed=1, threads=1, progress=False)
    assert again.n == res.n and again.totals.table.tolist() == res.totals.table.tolist()


def test_report_and_frame():
    res = compare(BASE, "knight.armor=+1", trials=1024, **KW)
    text = str(res)
    assert "knight.armor=+1" in text and "paired 95% interval" in text and "seed 1" in text
    frame = res.to_frame()
    assert list(frame["measure"]) == [
        "P(attacker wins)", "mean rounds", "attacker survivors", "defender survivors",
    ]  # fmt: skip
    assert (frame["ci_low"] <= frame["difference"]).all()
    assert (frame["difference"] <= frame["ci_high"]).all()
    assert res.to_dict()["pairs"] == 1024


def test_scenario_terms():
    base = Scenario(*BASE)
    assert base.vary("knight.armor=+1").defender[0][0].armor == base.defender[0][0].armor + 1
    assert base.vary("knight.armor=5").defender[0][0].armor == 5
    assert base.vary("rules.burn_chance=0.3").rules.burn_chance == 0.3
    assert base.vary("rules.move_order=sides; rules.sidestep=false").rules.sidestep is False
    assert base.vary("siege=true", "fort=2").fort == 2
    assert base.vary("attacker=pikeman:21").attacker[0][1] == 21


@pytest.mark.parametrize(
    "term,needle",
    [
        ("knight.armor", "KEY=VALUE"),
        ("dragon.armor=+1", "no unit 'dragon'"),
        ("knight.wings=1", "unit field"),
        ("knight.armor=heavy", "whole number"),
        ("knight.armor=-9", "outside"),
        ("rules.nope=1", "no field 'nope'"),
        ("rules.burn_chance=1.5", "probability"),
        ("rules.move_order=random", "paired, sides"),
        ("fort=4", "outside 1..3"),
        ("siege=maybe", "true or false"),
        ("colour=red", "unknown key"),
    ],
)
def test_bad_terms_name_the_term(term, needle):
    with pytest.raises(InputError) as err:
        Scenario(*BASE).vary(term)
    assert needle in str(err.value)
    assert term in str(err.value) or "KEY=VALUE" in needle


def test_the_goodness_of_fit_compare_still_works_and_warns():
    d = mc.oed(5)
    with pytest.warns(DeprecationWarning, match="fit_test"):
        fit = mc.compare(d.sample(20_000, seed=1), d)
    assert fit.pvalue > 1e-3


# -- Shared†Fantasia ----------------------------------------------------------------
SF_BASE = ("warrior:1,archer:1", "goblin:3")


def test_sf_fight_against_itself_is_exactly_zero():
    res = sf_compare(SF_BASE, [], trials=1024, **KW)
    assert res.identical and res.difference() == (0.0, 0.0, 0.0)


def test_sf_baseline_is_a_plain_fight():
    res = sf_compare(SF_BASE, "goblin.hp=+2", trials=2048, **KW)
    plain = sf.fight(*SF_BASE, trials=2048, **KW)
    assert res.totals.outcomes[0].tolist() == list(plain.counts.values())
    assert res.difference()[0] <= 0  # sturdier goblins never help party A on average


def test_sf_terms():
    base = SFScenario(*SF_BASE)
    assert base.vary("warrior.armor=+1").party_a[0].armor_for("slash") == (
        base.party_a[0].armor_for("slash") + 1
    )
    assert base.vary("policy.cast=false").policy.cast is False
    assert base.vary("rules.death_threshold=>=").rules.death_threshold == ">="
    assert base.vary("battlefield=ship").battlefield.name != base.battlefield.name
    with pytest.raises(InputError, match="a, b or none"):
        base.vary("surprise=c")
    with pytest.raises(InputError, match="armour types"):
        base.vary("warrior.armor.fire=1")


def test_json_is_strict_even_for_exact_comparisons():
    import json

    from montecarlo.cli.common import to_jsonable

    res = compare(BASE, "rules.siege_bombardment=false", trials=512, **KW)
    text = json.dumps(to_jsonable(res.to_dict()), allow_nan=False)
    assert '"variance_reduction": "inf"' in text
