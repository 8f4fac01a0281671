"""CoE5 battles: kernel against the exact duel oracle, invariants and rule scenarios.

RULES.md C-6 to C-9.  Scenario units are built here so that each test pins
down exactly one rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import montecarlo as mc
from kernels.coe5_battle import (
    ALIVE,
    D_GONE_SEQ,
    D_HP,
    D_LAST_ACT_SEQ,
    D_MAX_HP_SEEN,
    D_PART,
    D_STATE,
    D_TYPE,
)
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.duel import duel_exact
from montecarlo.coe5.units import Unit, Weapon, load_units

ROSTER = load_units()


def unit(name, hp, *weapons, **kw) -> Unit:
    return Unit(name, hp, tuple(weapons), **kw)


def weapon(name, die, **kw) -> Weapon:
    return Weapon(name, mc.parse_die(die), **kw)


def assert_in_interval(k: int, n: int, p: float, level: float = 0.999) -> None:
    lo, hi = stats.binom.interval(level, n, p)
    assert lo <= k <= hi, f"{k}/{n} outside the {level:.1%} interval of p = {p:.4f}"


# -- the oracle ----------------------------------------------------------------
ORACLE_PAIRS = [
    ("pikeman", "pikeman"),  # equal initiative: random order
    ("knight", "heavy infantry"),  # several weapons, shields, strength
    ("heavy infantry", "assassin"),  # armour-negating garrote (defender: no assassination)
    ("wraith", "skeleton"),  # ethereal, magic weapon, physical resistance, fear vs mindless
    ("troll", "knight"),  # strength, regeneration, fast
    ("pikeman", "heavy infantry"),
    ("militia", "skeleton"),
]


@pytest.mark.parametrize(("a", "b"), ORACLE_PAIRS)
def test_kernel_agrees_with_exact_duel(a, b):
    exact = duel_exact(a, b)
    sampled = matchup(f"{a}:1", f"{b}:1", trials=20_000, seed=11, progress=False)
    for outcome in ("attacker", "defender", "draw"):
        assert_in_interval(sampled.counts[outcome], sampled.n, exact.probability(outcome))
    # the whole law of the rounds, too
    rounds = np.repeat(
        sampled.rounds_pmf.index, (sampled.rounds_pmf * sampled.n).round().astype(int)
    )
    fit = mc.fit_test(rounds, exact.rounds)
    assert fit.pvalue > 1e-3


def test_oracle_test_can_fail():
    # The same kernel counts against a different duel must be rejected.
    sampled = matchup("pikeman:1", "heavy infantry:1", trials=20_000, seed=11, progress=False)
    exact = duel_exact("militia", "heavy infantry")
    assert not exact.agrees_with(sampled.counts)


def test_duel_refuses_out_of_scope():
    with pytest.raises(mc.InputError, match="ranged weapon"):
        duel_exact("archer", "pikeman")
    with pytest.raises(mc.InputError, match="poison"):
        duel_exact("giant spider", "pikeman")
    with pytest.raises(mc.InputError, match="fear"):
        duel_exact("wraith", "pikeman")
    with pytest.raises(mc.InputError, match="assassin"):
        duel_exact("assassin", "pikeman")
    with pytest.raises(mc.InputError, match="siege"):
        duel_exact("pikeman", "pikeman", siege=True)


def test_duel_is_fast():
    import time

    big = unit("Big", 20, weapon("Axe", "1-6", initiative=3), weapon("Kick", "1-3", initiative=3),
               armor=1, shield=1)  # fmt: skip
    small = unit("Small", 15, weapon("Sword", "1-5", initiative=3), armor=2, strength=1)
    duel_exact(big, small)
    t0 = time.perf_counter()
    r = duel_exact(big, small)
    assert time.perf_counter() - t0 < 0.5
    assert r.p_attacker + r.p_defender + r.p_draw == pytest.approx(1.0, abs=1e-12)


# -- reproducibility -------------------------------------------------------------
@pytest.mark.parametrize("kw", [{"trials": 3000}, {"precision": 0.02}])
def test_bit_identical_across_threads(kw):
    runs = [
        matchup("militia:8,archer:4", "heavy infantry:4", seed=5, threads=t, progress=False,
                keep_trials=True, **kw)
        for t in (1, 2)
    ]  # fmt: skip
    a, b = runs
    assert a.n == b.n
    np.testing.assert_array_equal(a.totals.outcome, b.totals.outcome)
    np.testing.assert_array_equal(a.totals.rounds, b.totals.rounds)
    np.testing.assert_array_equal(a.totals.survivors, b.totals.survivors)
    np.testing.assert_array_equal(a.trials.dealt, b.trials.dealt)


def test_precision_target_is_met():
    r = matchup("pikeman:1", "pikeman:1", precision=0.01, seed=2, progress=False)
    for k in ("attacker", "defender", "draw"):
        lo, hi = r.interval(k)
        assert (hi - lo) / 2 <= 0.01
    assert r.n % 2048 == 0  # whole batches


# -- invariants on random battles --------------------------------------------------
NAMES = [u.name for u in ROSTER.units()]
army = st.lists(st.tuples(st.sampled_from(NAMES), st.integers(1, 4)), min_size=1, max_size=3)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(att=army, dfd=army, seed=st.integers(0, 2**32), siege=st.booleans())
def test_invariants(att, dfd, seed, siege):
    r = matchup(att, dfd, trials=40, seed=seed, siege=siege, fort=2, progress=False,
                keep_trials=True, _debug=True)  # fmt: skip
    dep = r.deployment
    dbg = r.trials.debug
    # C-6: the unit types are dealt out to the slots afresh in every battle
    max_hp = np.array([u.hp for u in dep.types])[dbg[:, :, D_TYPE]]
    gone = dbg[:, :, D_GONE_SEQ]
    acted = dbg[:, :, D_LAST_ACT_SEQ]
    # no unit acts after its death or rout
    assert not ((gone >= 0) & (acted >= gone)).any()
    # HP never exceeds max
    assert (dbg[:, :, D_MAX_HP_SEEN] <= max_hp).all()
    # alive units have HP, dead ones do not
    alive = dbg[:, :, D_STATE] == ALIVE
    assert (dbg[:, :, D_HP][alive] > 0).all()
    # counts conserve: survivors + dead + routed = start, per part
    for k, part in enumerate(r.parts):
        in_part = dbg[:, :, D_PART] == k
        assert (in_part.sum(axis=1) == part.count).all()
        assert (dbg[:, :, D_TYPE][in_part] == dep.types.index(part.unit)).all()
        surv = (alive & in_part).sum(axis=1)
        np.testing.assert_array_equal(surv, r.trials.survivors[:, k])
        dead = r.trials.survivors[:, k] + r.trials.routed[:, k]
        assert (dead <= part.count).all()
    # a side with no units left does not win
    side_alive = [(r.trials.survivors[:, [k for k, p in enumerate(r.parts) if p.side == s]]
                   .sum(axis=1)) for s in (0, 1)]  # fmt: skip
    outcome = r.trials.outcome
    assert (side_alive[1][outcome == 0] == 0).all() and (side_alive[0][outcome == 0] > 0).all()
    assert (side_alive[0][outcome == 1] == 0).all() and (side_alive[1][outcome == 1] > 0).all()


# -- rule scenarios -------------------------------------------------------------------
def test_c8_6_spear_strikes_before_fist():
    # Each kills the other with any hit; the initiative-6 spear always goes first.
    spear = unit("Spearman", 1, weapon("Spear", "1-1000", initiative=6))
    fist = unit("Brawler", 1, weapon("Fist", "1-1000", initiative=2))
    for att, dfd, winner in ((spear, fist, "attacker"), (fist, spear, "defender")):
        r = matchup([(att, 1)], [(dfd, 1)], trials=2000, seed=1, progress=False)
        assert r.counts[winner] == r.n
    # equal initiative: a coin flip
    r = matchup([(spear, 1)], [(spear, 1)], trials=4000, seed=1, progress=False)
    assert_in_interval(r.counts["attacker"], r.n, 0.5)


def test_c5_5_archers_use_melee_when_adjacent():
    # length 2: the two armies start adjacent.  The bow would kill; it may not fire.
    target = unit("Post", 5, weapon("Nothing", 0))
    weak = unit("Archer", 10, weapon("Bow", "1-1000", range=5), weapon("Dagger", 0))
    strong = unit("Archer", 10, weapon("Bow", "1-1000", range=5), weapon("Dagger", "1-1000"))
    rules = BattleRules(max_rounds=3)
    r = matchup([(weak, 1)], [(target, 1)], trials=500, seed=1, length=2, rules=rules,
                progress=False)  # fmt: skip
    assert r.counts["draw"] == r.n  # the bow never fired
    r = matchup([(strong, 1)], [(target, 1)], trials=500, seed=1, length=2, rules=rules,
                progress=False)  # fmt: skip
    assert r.counts["attacker"] == r.n


def test_c5_3_long_range_half_damage_in_battle():
    # One round at distance 5 with a range-5 rangepen bow: damage is C-5.3's halved law.
    archer = unit("Archer", 10, weapon("Bow", "1-4", range=5, rangepen=True))
    post = unit("Post", 1000, weapon("Nothing", 0), immobile=True)
    r = matchup([(archer, 1)], [(post, 1)], trials=20_000, seed=4, length=6,
                rules=BattleRules(max_rounds=1), keep_trials=True, progress=False)  # fmt: skip
    dealt = r.trials.dealt[:, 0]
    far = mc.damage(archer.weapons[0], post, distance=5)
    near = mc.damage(archer.weapons[0], post, distance=1)
    assert far.mean() != pytest.approx(near.mean(), rel=0.05)
    mc_error = dealt.std() / np.sqrt(dealt.size)
    assert abs(dealt.mean() - far.mean()) < 4 * mc_error


def test_c5_4_wall_adds_range():
    # Distance 6, range 5: only from the wall (siege, defender's front column) can it shoot.
    # Both immobile, so the archer cannot walk into range either.
    archer = unit("Archer", 10, weapon("Bow", "1-4", range=5, an=True), immobile=True)
    post = unit("Post", 1000, weapon("Nothing", 0), immobile=True)
    rules = BattleRules(max_rounds=1)
    common = dict(trials=2000, seed=4, length=7, rules=rules, keep_trials=True, progress=False)
    walled = matchup([(post, 1)], [(archer, 1)], siege=True, fort=1, **common)
    open_field = matchup([(post, 1)], [(archer, 1)], **common)
    assert walled.trials.dealt[:, 1].mean() > 1.0  # it shot every time: OED(4) >= 1
    assert open_field.trials.dealt[:, 1].sum() == 0  # out of range


def test_c8_1_fatigue_starts_exactly_at_f():
    # Nobody can hurt anybody; fatigue deals 1, 2, 3, 4 from round F: 10 HP last to F + 3.
    dummy = unit("Dummy", 10, weapon("Nothing", 0))
    for start, expect in ((None, 105), (40, 43)):
        rules = BattleRules(fatigue_start=start)
        r = matchup([(dummy, 1)], [(dummy, 1)], trials=100, seed=1, rules=rules, progress=False)
        assert r.counts["draw"] == r.n
        assert r.rounds_pmf.index.tolist() == [expect]  # F = max(100, 100 + 2) = 102 by default
        exact = duel_exact(dummy, dummy, rules=rules)
        assert exact.p_draw == 1.0 and exact.rounds.pmf(expect) == 1.0


def test_c8_11_poison_kills_during_extra_rounds():
    # The spider poisons first (initiative 3), then dies to the victim's blow;
    # the pool then kills the victim in the 75 extra rounds: a draw.
    victim = unit("Victim", 5, weapon("Maul", "1-1000", initiative=1))
    spider = ROSTER["giant spider"]
    r = matchup([(victim, 1)], [(spider, 1)], trials=3000, seed=9, progress=False)
    r0 = matchup([(victim, 1)], [(spider, 1)], trials=3000, seed=9, progress=False,
                 rules=BattleRules(extra_rounds=0))  # fmt: skip
    assert r.counts["draw"] > 0.3 * r.n
    assert r0.counts["draw"] == 0
    assert r0.counts["attacker"] == r.counts["attacker"] + r.counts["draw"]


def test_c8_5_fear_routs_morale_4_at_the_expected_rate():
    # One fear check (fear 2: OED(8) > morale 4) in one round of contact.
    ghost = unit("Ghost", 10, weapon("Nothing", 0), fear=2)
    peasant = unit("Peasant", 10, weapon("Nothing", 0), morale=4)
    r = matchup([(ghost, 1)], [(peasant, 1)], trials=20_000, seed=3, length=2,
                rules=BattleRules(max_rounds=1), keep_trials=True, progress=False)  # fmt: skip
    routed = int(r.trials.routed[:, 1].sum())
    assert_in_interval(routed, r.n, mc.morale_failure_chance(4, 8))  # = 1/2
    assert r.counts["attacker"] == routed  # a routed side has lost


def test_matchup_input_errors():
    with pytest.raises(mc.InputError, match="unknown unit"):
        matchup("dragon:3", "knight:1", trials=10)
    with pytest.raises(mc.InputError, match="at least 1"):
        matchup("pikeman:0", "knight:1", trials=10)
    with pytest.raises(mc.InputError, match="columns"):
        matchup("pikeman:500", "knight:1", trials=10)
    with pytest.raises(mc.InputError, match="positive integer"):
        matchup("pikeman:5", "knight:1", trials=0)
    with pytest.raises(mc.InputError, match="precision"):
        matchup("pikeman:5", "knight:1", precision=0)
    with pytest.raises(mc.InputError, match="fort"):
        matchup("pikeman:5", "knight:1", trials=10, siege=True, fort=5)


def test_result_tables_and_plot():
    r = matchup("pikeman:5,archer:3", "knight:2", trials=2048, seed=1, progress=False)
    frame = r.to_frame()
    assert frame["count"].sum() == r.n
    assert (frame["ci_low"] <= frame["rate"]).all() and (frame["rate"] <= frame["ci_high"]).all()
    surv = r.survivors()
    assert list(surv["unit"]) == ["Pikeman", "Archer", "Knight"]
    assert np.allclose(surv["survivors"] + surv["routed"] + surv["dead"], surv["start"])
    assert "Wilson" in r.summary()
    fig = r.plot()
    assert len(fig.axes) == 3 and all(ax.get_ylabel() for ax in fig.axes)


def test_ctrl_c_keeps_finished_batches(monkeypatch):
    from montecarlo.coe5 import battle

    real = battle._Battles.play
    finished = []  # battles of each kernel call that finished before Ctrl-C

    def interrupted(self, ss, first_chunk, n_chunks, n_trials, *args, **kwargs):
        if len(finished) == 2:
            raise KeyboardInterrupt
        real(self, ss, first_chunk, n_chunks, n_trials, *args, **kwargs)
        finished.append(n_trials)

    monkeypatch.setattr(battle._Battles, "play", interrupted)
    r = matchup("pikeman:3", "militia:3", trials=20_000, seed=1, progress=False)
    assert r.partial and r.n == sum(finished) and 0 < r.n < 20_000
    assert sum(r.counts.values()) == r.n
    assert "INTERRUPTED" in r.summary()


def test_duel_exact_agrees_with_icepool():
    # An independent exact answer: icepool's absorbing-chain solver on the same duel
    # (one weapon each, fatigue off), a per-round map over (hp_a, hp_b).
    icepool = pytest.importorskip("icepool")
    a = unit("Big", 3, weapon("Axe", "1-6", initiative=4), armor=1, shield=1)
    b = unit("Small", 3, weapon("Sword", "1-5", initiative=3), armor=2, strength=1)

    def die(d):
        pairs = zip(d.support, d.probabilities, strict=True)
        weights = {int(v): round(p * 10**12) for v, p in pairs}
        return icepool.Die({v: w for v, w in weights.items() if w > 0})

    da = die(mc.damage(a.weapons[0], b))
    db = die(mc.damage(b.weapons[0], a, strength=1))

    def step(state, x, y):
        ha, hb = state
        if ha <= 0 or hb <= 0:
            return state
        hb -= x  # initiative 4 strikes first
        return (ha, 0) if hb <= 0 else (max(ha - y, 0), hb)

    result = icepool.map(step, icepool.Die([(3, 3)]), da, db, repeat="inf")
    p_icepool = float(sum(q for (_, hb), q in result.items() if hb <= 0) / result.denominator())
    exact = duel_exact(a, b, rules=BattleRules(fatigue_start=10**6))
    assert exact.p_attacker == pytest.approx(p_icepool, abs=1e-9)


def test_battle_t_depends_on_the_seed_and_t_alone():
    # Issue 12: battle t draws from its chunk's key and its place in the chunk, so it
    # is the same battle however the run is cut into batches (Dask, precision=).
    from montecarlo.coe5.battle import _Battles
    from montecarlo.coe5.battlefield import deploy, parse_army
    from montecarlo.seeding import resolve_seed

    att, dfd = parse_army("pikeman:3,archer:2"), parse_army("militia:4,troll:1")
    battles = _Battles(deploy(att, dfd, 10, 20), False, 1, 10, 20, BattleRules())
    ss = resolve_seed(5)
    whole, parts = battles.empty_totals(), battles.empty_totals()
    battles.play(ss, 0, 4, 4 * 256, True, False, whole)
    battles.play(ss, 0, 1, 256, True, False, parts)
    battles.play(ss, 1, 3, 3 * 256, True, False, parts)
    np.testing.assert_array_equal(
        whole.kept[0].outcome, np.concatenate([k.outcome for k in parts.kept])
    )
    np.testing.assert_array_equal(
        whole.kept[0].dealt, np.concatenate([k.dealt for k in parts.kept])
    )
