"""The SIMD lane samplers: OED(n) rolls (C-1.1, C-1.2) and whole hits (C-3), both exact."""

import numba
import numpy as np
import pytest
from scipy import stats

import montecarlo as mc
from kernels.coe5_damage import RAW_CAP
from kernels.oed_lanes import (
    STEP,
    oed_lane_params,
    replay_oed_lanes,
    sample_oed_lanes,
)
from montecarlo.coe5.damage import damage
from montecarlo.coe5.units import Unit, Weapon
from montecarlo.seeding import DEFAULT_CHUNK, chunk_states, resolve_seed
from tests.helpers import assert_matches

LANE_DICE = [3, 5, 9]


def _run(n: int, size: int, seed: int, chunk: int = DEFAULT_CHUNK) -> np.ndarray:
    states = chunk_states(np.random.SeedSequence(seed), 0, -(-size // chunk))
    out = np.empty(size, dtype=np.int16)
    assert sample_oed_lanes(states, chunk, oed_lane_params(n), out) == 0
    return out


@pytest.mark.parametrize("n", [2, 4, 6, 7, 17, 300])
def test_lane_sampler_declines_dice_it_cannot_do_exactly(n):
    # U must take whole bits (n - 1 a power of two) and n^3 must fit a field.
    assert oed_lane_params(n).size == 0


@pytest.mark.parametrize("n", LANE_DICE)
def test_vector_code_equals_scalar_replay(n):
    # The vectorised fast path and the scalar rules it stands for must agree
    # bit for bit, slow lanes (spare-stream draws) included.  One full chunk
    # and one ragged chunk, so the tail step is covered too.
    p = oed_lane_params(n)
    states = chunk_states(np.random.SeedSequence(n), 0, 2)
    size = DEFAULT_CHUNK + STEP + 37
    out = np.empty(size, dtype=np.int16)
    sample_oed_lanes(states, DEFAULT_CHUNK, p, out)
    first, second = out[:DEFAULT_CHUNK], out[DEFAULT_CHUNK:]
    np.testing.assert_array_equal(first, replay_oed_lanes(states[0], p, first.size))
    np.testing.assert_array_equal(second, replay_oed_lanes(states[1], p, second.size))


@pytest.mark.parametrize("n", LANE_DICE)
def test_lane_sampler_matches_c12(n):
    # Chi-square against the closed form, with the tail lumped; 2M rolls put
    # thousands of rolls past the cap of 3 maxima and hundreds on the slow path.
    rolls = _run(n, 2_000_000, seed=11 * n)
    assert_matches(rolls, mc.oed(n))


def test_lane_sampler_tail_beyond_the_cap():
    # P(T > 3(n-1)) = n^-3 is exactly the mass the extension words and the
    # spare stream produce; check it, and the mass past 6 maxima, as rates.
    n = 5
    rolls = _run(n, 4_000_000, seed=3)
    for maxima, rate in [(3, n**-3.0), (4, n**-4.0), (6, n**-6.0)]:
        k = int(np.count_nonzero(rolls > maxima * (n - 1)))
        assert stats.binomtest(k, rolls.size, rate).pvalue > 1e-3, (maxima, k)


def test_lane_sampler_is_thread_count_invariant_and_prefix_stable():
    numba.set_num_threads(1)
    one = _run(5, 3 * DEFAULT_CHUNK + 999, seed=8)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    two = _run(5, 3 * DEFAULT_CHUNK + 999, seed=8)
    np.testing.assert_array_equal(one, two)
    short = _run(5, DEFAULT_CHUNK + 10, seed=8)
    np.testing.assert_array_equal(short, two[: short.size])


def test_distribution_sample_uses_the_lanes_for_d5():
    # The public sampler returns int64 rolls with the lane kernel's values.
    rolls = mc.oed(5).sample(DEFAULT_CHUNK + 5, seed=4)
    assert rolls.dtype == np.int64
    states = chunk_states(resolve_seed(4), 0, 2)
    out = np.empty(rolls.size, dtype=np.int16)
    sample_oed_lanes(states, DEFAULT_CHUNK, oed_lane_params(5), out)
    np.testing.assert_array_equal(rolls, out)


# -- the damage pipeline on the lanes (C-3) -----------------------------------------
def _weapon(die: str, **kw) -> Weapon:
    return Weapon("lane weapon", mc.parse_die(die), **kw)


def _target(**kw) -> Unit:
    return Unit("lane target", 30, (_weapon("1-2"),), **kw)


@pytest.mark.parametrize(
    ("weapon", "target", "situation"),
    [
        # shield 2: three faces, so Lemire rejections send hits down the slow path
        (_weapon("1-5"), _target(armor=1, shield=2), {}),
        (
            _weapon("1-3", type="fire"),
            _target(vulnerable=("fire",), resist={"fire": 30}),
            {"strength": 2},
        ),
        (_weapon("1-9", type="slash"), _target(resist_slash=True, ethereal=True), {}),  # C-3.9
        (_weapon("1-9", magic=True), _target(ethereal=True, shield=3, armor=2), {}),
        (_weapon("1-5", an=True, shieldneg=True), _target(armor=4, shield=2), {"on_wall": 1}),
        (_weapon("1-5", type="cold"), _target(armor=2), {"immobile": True, "frozen": True}),
        (_weapon("1-5", range=8, rangepen=True), _target(), {"distance": 7}),  # C-5.3 raw
        (
            _weapon("1-5", range=8, rangepen=True, type="shock"),
            _target(resist={"shock": 50}),
            {"distance": 7, "long_range_halving": "final"},
        ),
        (_weapon("1-5", type="poison"), _target(armor=1, shield=1), {}),  # pool, not HP
    ],
)
def test_lane_hits_match_the_exact_pipeline(weapon, target, situation):
    d = damage(weapon, target, **situation)
    assert oed_lane_params(weapon.damage.size + situation.get("strength", 0)).size  # on the lanes
    assert_matches(d.sample(400_000, seed=77), d)


def test_lane_hits_differ_from_a_near_miss():
    # The same hits with shield 1 instead of 2 are a different law: must be rejected.
    sampled = damage(_weapon("1-5"), _target(armor=1, shield=2)).sample(400_000, seed=1)
    with pytest.raises(AssertionError):
        assert_matches(sampled, damage(_weapon("1-5"), _target(armor=1, shield=1)))


def test_step7_division_is_exact_over_its_range():
    # apply_steps divides by 100 with a multiply-shift; it must equal floor
    # division for every product it can meet (q <= 2e8), checked on a grid.
    from kernels.coe5_damage import apply_steps
    from kernels.jit import from_python

    steps = from_python(apply_steps)
    for res in (1, 30, 50, 99, 100):
        for total in [*range(5000), RAW_CAP // 3, 2 * RAW_CAP - 1, 2 * RAW_CAP]:
            q = total * (100 - res)
            assert steps(total, 0, False, 0, 0, res, False) == q // 100, (total, res)
