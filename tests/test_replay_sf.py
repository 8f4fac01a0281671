"""Replaying one Shared†Fantasia fight with its event log (issue 12).

1,200 fights of four runs (cover, a corridor pincer, a surprised ship deck, a
cliff) are replayed one by one and each ends as the run counted it, to the
last injury point; the log's falls and attacks agree with that end.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kernels import sf_layout as F
from kernels import sf_log as G
from montecarlo import sf
from montecarlo.errors import InputError
from montecarlo.seeding import resolve_seed
from montecarlo.sf.battlefields import DEFAULT_BATTLEFIELD
from montecarlo.sf.fight_replay import OUTCOMES, play_logged, replay
from montecarlo.sf.fights import STATES, parse_party, prepare

CASES = {
    "field": ("warrior:2,archer:1,mage:1", "goblin:4,orc:1", {"battlefield": "field"}),
    "corridor": ("knight:1,fencer:1,priest:1,archer:1", "goblin:3,orc:2",
                 {"battlefield": "corridor", "pincer": "b"}),
    "ship": ("warrior:2,scout:1", "goblin:3", {"battlefield": "ship", "surprise": "b"}),
    "cliff": ("warrior:1,archer:2", "orc:2", {"battlefield": "cliff"}),
}  # fmt: skip
TRIALS = 300
DEFAULTS = {"battlefield": DEFAULT_BATTLEFIELD, "battlefields": None, "surprise": None,
            "pincer": None, "rear": None, "policy": None, "rules": None, "max_rounds": 100,
            "roster": None}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_replayed_fights_end_as_the_run_counted_them(case):
    a, b, options = CASES[case]
    # Every 8th fight of 2,400: across chunks (256 fights) and batches (8 chunks).
    run = sf.fight(a, b, trials=8 * TRIALS, seed=5, keep_trials=True, _debug=True,
                   progress=False, **options)  # fmt: skip
    _, _, C, B, Q, _, _, _ = prepare(a, b, **(DEFAULTS | options))
    ss = resolve_seed(5)
    for t in range(0, 8 * TRIALS, 8):
        outcome, rounds, _, S, _ = play_logged(C, B, Q, ss, t)
        assert outcome == run.trials["outcome"][t], t
        assert rounds == run.trials["rounds"][t], t
        np.testing.assert_array_equal(S, run.trials["debug"][t], err_msg=f"fight {t}")


@pytest.mark.parametrize("case", CASES)
def test_the_log_counts_what_the_kernel_counts(case):
    # Every attack, hit, dramatic success, fumble, friendly-fire hit and opportunity
    # attack that the batch kernel counts (E) is an attack row of the log.
    a, b, options = CASES[case]
    _, _, C, B, Q, _, _, _ = prepare(a, b, **(DEFAULTS | options))
    n_a = len(parse_party(a))
    ss = resolve_seed(9)
    for t in range(40):
        _, _, log, _, E = play_logged(C, B, Q, ss, t)
        rows = log[log[:, G.C_KIND] == G.EV_ATTACK]
        marks = log[:, G.C_KIND]
        for side in range(2):
            mine = rows[(rows[:, G.C_ACTOR] >= n_a) == bool(side)]
            assert len(mine) == E[side, F.E_ATTACKS]
            assert mine[:, G.C_HIT].sum() == E[side, F.E_HITS]
            assert (mine[:, G.C_SPECIAL] & 1).astype(bool).sum() == E[side, F.E_DRAMATIC]
            assert (mine[:, G.C_SPECIAL] & 2).astype(bool).sum() == E[side, F.E_FUMBLES]
        opp = log[marks == G.EV_OPPORTUNITY]
        for side in range(2):
            assert ((opp[:, G.C_ACTOR] >= n_a) == bool(side)).sum() == E[side, F.E_OPPORTUNITY]


@pytest.mark.parametrize("case", CASES)
def test_the_log_agrees_with_the_end_of_the_fight(case):
    a, b, options = CASES[case]
    for t in range(10):
        rep = replay(a, b, seed=5, fight=t, **options)
        ev = rep.events
        final = dict(zip(rep.characters["name"], rep.characters["state"], strict=True))
        falls = ev[ev["kind"] == "status"]
        # the last status event of a character is its final state (S-4, S-9)
        last = falls.groupby("target")["status"].last().to_dict() if len(falls) else {}
        for name, state in final.items():
            assert last.get(name, "standing") == state, (t, name)
        attacks = ev[ev["kind"] == "attack"]
        if len(attacks):
            # a miss deals nothing; S-1.2's totals are roll + value
            assert (attacks.loc[~attacks["hit"], "damage"] == 0).all()
            assert attacks["hit_roll"].between(2, 12).all()
        assert ev["kind"].iloc[-1] == "end" and ev["outcome"].iloc[-1] == rep.outcome


def test_first_and_text():
    run = sf.fight("warrior:1,archer:2", "orc:2", trials=500, seed=2, keep_trials=True,
                   battlefield="cliff", progress=False)  # fmt: skip
    rep = replay("warrior:1,archer:2", "orc:2", seed=2, first="b-wins", trials=500,
                 battlefield="cliff")  # fmt: skip
    assert rep.fight == int(np.flatnonzero(run.trials["outcome"] == 1)[0])
    assert rep.outcome == "b-wins" == OUTCOMES[run.trials["outcome"][rep.fight]]
    text = rep.text()
    assert text.startswith(f"Fight {rep.fight} of seed 2") and "End: party B wins" in text
    assert set(rep.characters["state"]) <= set(STATES)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"seed": None, "fight": 1}, "needs the seed"),
        ({"seed": 1}, "fight= .* or first="),
        ({"seed": 1, "fight": -2}, "fight number"),
        ({"seed": 1, "first": "a"}, "first= is one of"),
    ],
)
def test_bad_input_is_an_input_error(kw, match):
    with pytest.raises(InputError, match=match):
        replay("warrior:1", "goblin:1", **kw)


def test_header_names_the_battlefield_and_what_it_means():
    rep = replay("warrior:1", "orc:1", seed=2, fight=0, battlefield="open")
    text = rep.text()
    assert text.splitlines()[0] == "Fight 0 of seed 2, open battlefield: everyone is engaged"
    assert "battlefield battlefield" not in text
    assert "Illustrative characters" in text.splitlines()[-1]


def test_s5_a_cast_cut_short_by_opportunity_attacks_says_so():
    # A Mage in the open provokes 3 - 1 = 2 opportunity attacks with every cast; when
    # they hurt it, the replay prints the attacks, then the attempt that failed, and
    # no spell goes off in that turn.
    party = ("warrior:1,mage:1", "orc:3")
    failed = 0
    for t in range(40):
        rep = replay(*party, seed=3, fight=t, battlefield="open")
        ev = rep.events.reset_index(drop=True)
        text = rep.text()
        for k in np.flatnonzero((ev["kind"] == "cast failed").to_numpy()):
            turn = max(i for i in range(k) if ev.loc[i, "kind"] == "turn")
            assert ev.loc[turn, "action"] == "cast" and ev.loc[turn, "actor"] == ev.loc[k, "actor"]
            span = ev.iloc[turn + 1 : k]
            assert "cast" not in set(span["kind"])
            hits = span[(span["kind"] == "attack") & (span["target"] == ev.loc[k, "actor"])]
            assert hits["opportunity"].all() and len(hits) > 0
            assert ev.loc[k, "damage"] == hits["damage"].sum() > 0
            line = (f"{ev.loc[k, 'actor']} tried to cast Fireball, but the opportunity attacks "
                    f"dealt it {ev.loc[k, 'damage']} damage: the spell fails (S-5)")  # fmt: skip
            assert line in text
            # the attacks come first: the attempt's line follows the last of them
            lines = text.splitlines()
            where = next(i for i, s in enumerate(lines) if s.strip() == line)
            assert "opportunity attack" in lines[where - 1] or lines[where - 1].startswith("    ")
            failed += 1
    assert failed >= 3


def test_a_shooter_holding_its_fire_says_so():
    rep = replay("warrior:1,archer:1,mage:1", "goblin:3,orc:1", seed=4, fight=0,
                 policy=sf.Policy(shoot_into_melee=False))  # fmt: skip
    turns = rep.events[rep.events["kind"] == "turn"]
    assert "hold fire" in set(turns["action"])
    assert "Archer #1 (A) holds its fire: its only shot is into a melee with allies (S-6)" in (
        rep.text()
    )
    assert not rep.events.get("friendly_fire", pd.Series(dtype=bool)).fillna(False).any()
