"""Replaying one CoE5 battle with its event log (issue 12).

The acceptance test replays 1,200 battles of three varied batch runs one by one
and finds each the same as the batch counted it, unit by unit.  The log itself
is held against the play: its damage, deaths, routs and moves rebuild the
battle's end state, and its C-3 trace draws what the real hit draws.
"""

from __future__ import annotations

import numpy as np
import pytest

import montecarlo as mc
from kernels import coe5_damage
from kernels.coe5_damage import N_TRACE, TR_T8
from kernels.coe5_log import EV_DEATH, EV_ROUT
from kernels.jit import from_python
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.packing import pack
from montecarlo.coe5.replay import OUTCOMES, _packed, play_logged, replay
from montecarlo.coe5.units import Unit, Weapon, load_units
from montecarlo.errors import InputError
from montecarlo.seeding import resolve_seed

hit_damage = from_python(coe5_damage.hit_damage)
hit_trace = from_python(coe5_damage.hit_trace)

ROSTER = load_units()
SPORE = Unit(
    "Sporeling",
    8,
    (
        Weapon("Spore Cloud", mc.parse_die(2), type="poison", range=6, cloud=True),
        Weapon("Lash", mc.parse_die(4), type="slash"),
    ),
    morale=8,
)

# Ranged fire, poison pools, fear, ethereal, regeneration, paralysis and decay; a
# siege with bombardment, assassins, cold and shock on the wall; clouds.
CASES = {
    "open field": ("archer:6,fire drake:1,giant spider:2",
                   "abomination:2,troll:2,wraith:1,ghoul:2", {}),
    "siege": ("catapult:2,assassin:2,pikeman:6,frost giant:1",
              "archer:5,ghoul:3,storm spirit:1,knight:2", {"siege": True, "fort": 2}),
    "clouds": ([(SPORE, 4), ("pikeman", 4)], [("knight", 2), ("wraith", 1), ("militia", 4)],
               {"rules": BattleRules(fear_checks="strongest")}),
}  # fmt: skip
TRIALS = 400


@pytest.mark.parametrize("case", CASES)
def test_replayed_battles_end_as_the_batch_counted_them(case):
    attacker, defender, options = CASES[case]
    # Every 6th battle of 2,400: across chunks (256 battles) and batches (8 chunks).
    run = matchup(attacker, defender, trials=6 * TRIALS, seed=12, keep_trials=True, _debug=True,
                  progress=False, **options)  # fmt: skip
    options = {"siege": False, "fort": 1, "width": 10, "length": 20, "rules": None} | options
    battles, _ = _packed(attacker, defender, roster=None, **options)
    ss = resolve_seed(12)
    for t in range(0, 6 * TRIALS, 6):
        outcome, rounds, log, dbg, dealt = play_logged(battles, ss, t)
        assert outcome == run.trials.outcome[t], t
        assert rounds == run.trials.rounds[t], t
        np.testing.assert_array_equal(dbg, run.trials.debug[t], err_msg=f"battle {t}")
        np.testing.assert_array_equal(dealt, run.trials.dealt[t], err_msg=f"battle {t}")
        # The log's deaths and routs are the units that ended dead or routed.
        dead = np.sort(log[log[:, 0] == EV_DEATH, 4])
        routed = np.sort(log[log[:, 0] == EV_ROUT, 4])
        np.testing.assert_array_equal(dead, np.flatnonzero(dbg[:, 1] == 1))
        np.testing.assert_array_equal(routed, np.flatnonzero(dbg[:, 1] == 2))


def test_outcome_survivors_and_rounds_match_the_batch_row():
    # Battles in later chunks and batches too (256 battles a chunk, 8 chunks a batch).
    run = matchup("pikeman:10", "knight:3", trials=4100, seed=7, keep_trials=True, progress=False)
    for t in (0, 123, 299, 256, 2047, 2048, 3001, 4099):
        rep = replay("pikeman:10", "knight:3", seed=7, battle=t)
        assert rep.outcome == OUTCOMES[run.trials.outcome[t]]
        assert rep.rounds == run.trials.rounds[t]
        assert rep.survivors["alive"].tolist() == run.trials.survivors[t].tolist()
        assert rep.survivors["routed"].tolist() == run.trials.routed[t].tolist()
        assert rep.dealt == tuple(run.trials.dealt[t])


@pytest.mark.parametrize("case", CASES)
def test_the_log_rebuilds_the_end_of_the_battle(case):
    attacker, defender, options = CASES[case]
    for battle in range(5):
        rep = replay(attacker, defender, seed=3, battle=battle, **options)
        last = rep.frames()[-1]
        alive = rep.units["fate"] == "alive"
        assert (last["fate"] == rep.units["fate"].to_numpy()).all()
        np.testing.assert_array_equal(last["hp"][alive], rep.units["hp"][alive])
        hits = rep.events[rep.events["kind"] == "hit"]
        assert (hits["step8_damage"] == hits["amount"]).all()  # C-3 step 8 is the damage


def test_the_c3_trace_draws_what_the_hit_draws():
    # Every weapon of the shipped roster on every unit, strength 0-3, wall 0-2,
    # near and far: the traced damage equals hit_damage's and the stream ends equal.
    packed = pack([ROSTER[name] for name in ROSTER])
    U, W = packed.U, packed.W
    rng = np.random.default_rng(5)
    trace = np.zeros(N_TRACE, np.int64)
    for w in range(W.shape[1]):
        for t in range(U.shape[1]):
            for _ in range(20):
                s = rng.integers(1, 2**63, 4, dtype=np.int64).astype(np.uint64)
                copy = s.copy()
                args = (int(rng.integers(0, 4)), int(rng.integers(0, 3)), bool(rng.integers(2)),
                        bool(rng.integers(2)), int(rng.integers(0, 3)))  # fmt: skip
                want = hit_damage(s, W, w, U, t, *args)
                got = hit_trace(copy, W, w, U, t, *args, trace)
                assert got == want == trace[TR_T8]
                np.testing.assert_array_equal(copy, s)


def test_trace_steps_follow_c3():
    rep = replay("pikeman:10", "knight:3", seed=7, battle=123)
    hits = rep.events[rep.events["kind"] == "hit"]
    knight = ROSTER["knight"]
    on_knight = hits[hits["target"].str.startswith("Knight")]
    # Step 5: the knight's armour comes off every pike hit; step 6 its shield roll.
    assert (on_knight["step4_wall"] - on_knight["step5_armor"] == knight.armor).all()
    assert (on_knight["shield_roll"] <= knight.shield).all()
    assert (on_knight["step5_armor"] - on_knight["step6_shield"] == on_knight["shield_roll"]).all()
    assert len(on_knight) > 0


def test_first_replays_the_first_battle_with_that_outcome():
    run = matchup("pikeman:10", "knight:3", trials=2000, seed=7, keep_trials=True, progress=False)
    rep = replay("pikeman:10", "knight:3", seed=7, first="attacker-wins", trials=2000)
    assert rep.battle == int(np.flatnonzero(run.trials.outcome == 0)[0])
    assert rep.outcome == "attacker-wins"


def test_text_and_gif(tmp_path):
    rep = replay("pikeman:2", "knight:1", seed=1, battle=0, length=6, width=3)
    text = rep.text()
    assert text.startswith("Battle 0 of seed 1")
    assert "End:" in text and "Round 1" in text
    assert "Pike" in text
    gif = rep.save_gif(tmp_path / "b.gif", fps=4)
    assert gif.stat().st_size > 1000
    assert len(rep.frames()) >= 2


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"seed": None, "battle": 1}, "needs the seed"),
        ({"seed": 1}, "battle= .* or first="),
        ({"seed": 1, "battle": 1, "first": "draw"}, "not both"),
        ({"seed": 1, "battle": -1}, "battle number"),
        ({"seed": 1, "first": "attacker"}, "first= is one of"),
    ],
)
def test_bad_input_is_an_input_error(kw, match):
    with pytest.raises(InputError, match=match):
        replay("pikeman:2", "knight:1", **kw)
