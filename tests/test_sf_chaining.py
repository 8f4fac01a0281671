"""S-5 chaining: an opportunity attack's own fumble, or a dramatic evade against it,
triggers an opportunity attack in turn (``SFRules.chain_opportunity_attacks``).

Fights are compared in pairs on the same seed: fight ``t`` draws the same numbers
with chaining on and off until the first chained attack, so every fight without
one must end the same way to the last injury point, and every difference must
come from a chain.  Replay logs show the chains and the one-per-round limit.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from kernels import sf_layout as F
from kernels import sf_log as G
from montecarlo import sf
from montecarlo.seeding import resolve_seed
from montecarlo.sf.characters import Character, Effect, SFWeapon, Spell, parse_dice
from montecarlo.sf.fight_replay import play_logged, replay
from montecarlo.sf.fights import prepare

OFF = sf.SFRules(chain_opportunity_attacks=False)
#: A melee where everyone is engaged: many opportunity attacks, and chains among them.
MELEE = ("warrior:2,knight:1,fencer:1,mage:1", "orc:2,goblin:3")
OPTIONS = {"battlefield": "open", "battlefields": None, "surprise": None, "pincer": None,
           "rear": None, "policy": None, "rules": None, "max_rounds": 100,
           "roster": None}  # fmt: skip


def logs(a, b, fights: int, seed: int, **options):
    """``(t, log, S, E)`` of fights 0 .. fights-1 of a run, each played with its log."""
    _, _, C, B, Q, _, _, _ = prepare(a, b, **(OPTIONS | options))
    ss = resolve_seed(seed)
    for t in range(fights):
        _, _, log, S, E = play_logged(C, B, Q, ss, t)
        yield t, log, S, E


def chained_rows(log: np.ndarray) -> np.ndarray:
    """The EV_OPPORTUNITY rows of attacks set off by another opportunity attack."""
    marks = log[log[:, G.C_KIND] == G.EV_OPPORTUNITY]
    return marks[marks[:, G.C_ACTION] == 1]


def test_s5_chaining_off_is_chaining_on_without_the_chains():
    # Off, no opportunity attack is ever marked as chained.  On, a fight without a
    # chained attack draws exactly what it drew off (the same log and end state);
    # only fights with a chain differ, and some do.
    on = list(logs(*MELEE, 300, 4))
    off = list(logs(*MELEE, 300, 4, rules=OFF))
    with_chain = 0
    for (t, log_on, s_on, e_on), (_, log_off, s_off, e_off) in zip(on, off, strict=True):
        assert len(chained_rows(log_off)) == 0, t
        if len(chained_rows(log_on)):
            with_chain += 1
            continue
        np.testing.assert_array_equal(log_on, log_off, err_msg=f"fight {t}")
        np.testing.assert_array_equal(s_on, s_off, err_msg=f"fight {t}")
        np.testing.assert_array_equal(e_on, e_off, err_msg=f"fight {t}")
    assert with_chain >= 5


def test_s5_chaining_off_batch_runs_match_fight_by_fight():
    # The batch kernel agrees: with chaining off a run is the run with chaining on
    # in every fight the on-replay shows no chain in (the replay ends as the run).
    runs = {name: sf.fight(*MELEE, trials=256, seed=6, battlefield="open", rules=rules,
                           keep_trials=True, _debug=True, progress=False)
            for name, rules in (("on", None), ("off", OFF))}  # fmt: skip
    for t, log, _, _ in logs(*MELEE, 256, 6):
        if len(chained_rows(log)) == 0:
            np.testing.assert_array_equal(runs["on"].trials["debug"][t],
                                          runs["off"].trials["debug"][t])  # fmt: skip


def test_s5_chaining_raises_opportunity_attacks_per_fight_warrior_v_orc():
    # Paired pieces: each seed plays the same fights with chaining on and off, and the
    # spread of the per-piece differences gives the standard error.  An independent
    # simulator measured about 5% more opportunity attacks with chaining.
    diffs, base = [], []
    for seed in range(8):
        per_fight = []
        for rules in (None, OFF):
            r = sf.fight("warrior:1", "orc:1", trials=10_000, seed=100 + seed, rules=rules,
                         progress=False)  # fmt: skip
            per_fight.append(r.totals["events"][:, F.E_OPPORTUNITY].sum() / r.n)
        diffs.append(per_fight[0] - per_fight[1])
        base.append(per_fight[1])
    d = np.array(diffs)
    se = d.std(ddof=1) / np.sqrt(len(d))
    t999 = stats.t.ppf(0.999, len(d) - 1)
    assert d.mean() > t999 * se, f"{d.mean():.4f} ± {se:.4f} more per fight"
    # a chained attack follows 1 opportunity attack in about 18 (fumble or dramatic
    # evade, 1/36 each): a rise of a few percent, nowhere near a doubling
    assert d.mean() / np.mean(base) < 0.2


@pytest.mark.parametrize("per_trigger", [1, 2])
def test_s5_one_opportunity_attack_per_character_per_round_with_chains(per_trigger):
    # With two attacks per trigger, a chain interrupts its trigger's second attack and
    # the kernel resumes it afterwards (its stack of unfinished triggers).
    rules = sf.SFRules(special_opportunity_attacks=per_trigger)
    chains = 0
    for t, log, _, _ in logs(*MELEE, 300, 7, rules=rules):
        marks = log[log[:, G.C_KIND] == G.EV_OPPORTUNITY]
        keys = list(zip(marks[:, G.C_ROUND], marks[:, G.C_ACTOR], strict=True))
        assert len(keys) == len(set(keys)), f"fight {t}: two opportunity attacks in one round"
        chains += len(chained_rows(log))
    assert chains >= 10


@pytest.mark.parametrize("per_trigger", [1, 2])
def test_s5_replayed_chains_end_as_the_run_counted_them(per_trigger):
    rules = sf.SFRules(special_opportunity_attacks=per_trigger)
    run = sf.fight(*MELEE, trials=512, seed=8, battlefield="open", rules=rules,
                   keep_trials=True, _debug=True, progress=False)  # fmt: skip
    n_a = 5
    for t, log, S, E in logs(*MELEE, 512, 8, rules=rules):
        np.testing.assert_array_equal(S, run.trials["debug"][t], err_msg=f"fight {t}")
        opp = log[log[:, G.C_KIND] == G.EV_OPPORTUNITY]
        for side in range(2):
            assert ((opp[:, G.C_ACTOR] >= n_a) == bool(side)).sum() == E[side, F.E_OPPORTUNITY]


def _find_chain(trigger: str) -> int:
    """The first fight of MELEE (seed 9) with a chain set off by ``trigger``."""
    bit = {"fumble": 2, "dramatic evade": 4}[trigger]
    for t, log, _, _ in logs(*MELEE, 2000, 9):
        attacks = np.flatnonzero(log[:, G.C_KIND] == G.EV_ATTACK)
        for k in np.flatnonzero((log[:, G.C_KIND] == G.EV_OPPORTUNITY) & (log[:, G.C_ACTION] == 1)):
            before = attacks[attacks < k][-1]  # the attack that set it off
            if log[before, G.C_SPECIAL] & 6 == bit:
                return t
    raise AssertionError(f"no chain after an opportunity attack's {trigger}")


@pytest.mark.parametrize("trigger", ["fumble", "dramatic evade"])
def test_s5_replay_shows_an_opportunity_attack_set_off_by_an_opportunity_attack(trigger):
    t = _find_chain(trigger)
    rep = replay(*MELEE, seed=9, fight=t, battlefield="open")
    attacks = rep.events[rep.events["kind"] == "attack"].reset_index(drop=True)
    names = rep.characters.set_index("name")["side"]
    found = False
    for k in np.flatnonzero(attacks["chained"].to_numpy(bool)):
        prev, now = attacks.iloc[k - 1], attacks.iloc[k]
        assert prev["opportunity"] and now["opportunity"]
        # the chained attack strikes back at the attacker of the one before
        assert now["target"] == prev["actor"]
        if trigger == "fumble" and prev["attacker_fumble"]:
            # the fumbler's victim strikes first, or an engaged ally of it stands in
            assert names[now["actor"]] == names[prev["target"]]
            found = True
        if trigger == "dramatic evade" and prev["dramatic_evade"] and not prev["attacker_fumble"]:
            assert now["actor"] == prev["target"]  # the victim itself counters
            found = True
    assert found
    text = rep.text()
    assert "opportunity attack in turn (S-5)" in text


def test_s5_a_chained_fumble_lets_an_engaged_ally_stand_in_a_dramatic_evade_does_not():
    # An unarmed caster in the front line provokes 3 - 1 = 2 opportunity attacks per
    # cast (S-5 count rule).  When one of them fumbles, the caster's side gets an
    # attack on the fumbler: the caster cannot strike, so the armed Guard stands in
    # (once a round).  When the caster evades one dramatically, only the caster could
    # counter, and it cannot: no attack follows.  When the Guard's attack fumbles in
    # turn, the fumbler it struck has made its attack of the round, so another Foe
    # stands in: a chain two deep.
    blade = SFWeapon("Blade", parse_dice("0"), "slash")
    caster = Character("Caster", 1000, initiative=100,
                       spells=(Spell("Glow", on_fail=Effect()),))  # fmt: skip
    guard = Character("Guard", 1000, weapons=(blade,))
    foe = Character("Foe", 1000, weapons=(blade,))
    stand_ins = quiet = deep = 0
    a, b = [(caster, 1), (guard, 1)], [(foe, 3)]
    for t, log, _, _ in logs(a, b, 400, 10, max_rounds=20):
        used = set()  # (round, character) that made an opportunity attack
        rows = np.flatnonzero(log[:, G.C_KIND] == G.EV_OPPORTUNITY)
        for k, row in enumerate(rows):
            rnd, actor, hit = log[row, G.C_ROUND], log[row, G.C_ACTOR], log[row + 1]
            used.add((rnd, actor))
            # a chained attack comes right after the attack that set it off
            nxt = rows[k + 1] if k + 1 < len(rows) else -1
            chained = nxt == row + 2 and log[nxt, G.C_ACTION] == 1
            fumble, evade = hit[G.C_SPECIAL] & 2, hit[G.C_SPECIAL] & 4 and not hit[G.C_SPECIAL] & 2
            if log[row, G.C_ACTION] == 0 and hit[G.C_TARGET] == 0:  # provoked by the cast
                if fumble and (rnd, 1) not in used:
                    assert chained and log[nxt, G.C_ACTOR] == 1, t
                    assert log[nxt, G.C_TARGET] == actor, t
                    stand_ins += 1
                elif evade:
                    assert not chained, t
                    quiet += 1
            elif log[row, G.C_ACTION] == 1 and actor == 1 and fumble and chained:
                # the Guard's chained attack fumbled: a Foe other than its target strikes
                assert log[nxt, G.C_ACTOR] not in (hit[G.C_TARGET], 0, 1), t
                assert log[nxt, G.C_TARGET] == 1, t
                deep += 1
    assert stand_ins >= 100 and quiet >= 100 and deep >= 3, (stand_ins, quiet, deep)


def test_s5_chained_rule_is_a_named_parameter_and_the_default():
    assert sf.SFRules().chain_opportunity_attacks is True
    assert sf.Policy().to_array(OFF)[F.Q_CHAIN_OPP] == 0
    assert sf.Policy().to_array()[F.Q_CHAIN_OPP] == 1
