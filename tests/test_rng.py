"""Random streams: xoshiro256**, unbiased bounded draws, seeding (foundation issue)."""

import numba
import numpy as np
import pytest
from numba import njit
from scipy import stats

import montecarlo as mc
from kernels.rng import fill_bounded, fill_words, next_u64, seed_trial, skip
from montecarlo.seeding import DEFAULT_CHUNK, chunk_states, resolve_seed


def test_xoshiro_matches_reference_vector():
    # Reference: the algorithm by hand, in plain Python integers, from the paper.
    mask = (1 << 64) - 1
    s = [1, 2, 3, 4]

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & mask

    expected = []
    for _ in range(5):
        expected.append(rotl((s[1] * 5) & mask, 7) * 9 & mask)
        t = (s[1] << 17) & mask
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    out = np.empty(5, dtype=np.uint64)
    fill_words(np.array([[1, 2, 3, 4]], dtype=np.uint64), DEFAULT_CHUNK, out)
    assert out.tolist() == expected


@pytest.mark.parametrize("n_faces", [2, 3, 6, 7, 36, 1000])
def test_bounded_is_uniform(n_faces):
    states = chunk_states(np.random.SeedSequence(11), 0, 8)
    out = np.empty(400_000, dtype=np.int64)
    fill_bounded(states, 50_000, n_faces, out)
    assert out.min() >= 0 and out.max() < n_faces
    counts = np.bincount(out, minlength=n_faces)
    assert stats.chisquare(counts).pvalue > 1e-3


def test_bounded_rejects_the_biased_zone():
    # n = 3 * 2**30 makes the naive multiply-shift visibly biased: values below
    # 2**30 would get two source values each.  Lemire's rejection removes it.
    n = 3 * 2**30
    states = chunk_states(np.random.SeedSequence(5), 0, 4)
    out = np.empty(400_000, dtype=np.int64)
    fill_bounded(states, 100_000, n, out)
    low_third = (out < 2**30).mean()
    assert abs(low_third - 1 / 3) < 4 * np.sqrt(2 / 9 / out.size)


def test_chunk_states_are_reproducible_and_distinct():
    ss = np.random.SeedSequence(42)
    a = chunk_states(ss, 0, 10)
    b = chunk_states(np.random.SeedSequence(42), 3, 10)
    np.testing.assert_array_equal(a[3:], b)  # chunk seeds do not depend on the run length
    assert len({tuple(r) for r in a}) == 10


def test_resolve_seed_follows_spec7():
    assert resolve_seed(7).entropy == 7
    ss = np.random.SeedSequence(3)
    assert resolve_seed(rng=ss) is ss
    g1 = resolve_seed(rng=np.random.default_rng(1)).generate_state(4)
    g2 = resolve_seed(rng=np.random.default_rng(1)).generate_state(4)
    np.testing.assert_array_equal(g1, g2)
    with pytest.raises(mc.InputError, match="either seed= or rng="):
        resolve_seed(1, 2)
    with pytest.raises(mc.InputError, match="non-negative"):
        resolve_seed(-1)
    with pytest.raises(mc.InputError):
        resolve_seed("abc")


@pytest.mark.parametrize(
    "make",
    [
        lambda: mc.oed(5),  # table kernel
        lambda: mc.oed("1-3", dice=2),  # summing kernel
        lambda: mc.soed(4, dice=2),
        lambda: mc.check_roll("hard"),
        lambda: mc.oed(5).map(lambda v: v // 2),  # generic inverse-cdf kernel
    ],
)
def test_bit_identical_across_thread_counts(make):
    assert numba.config.NUMBA_NUM_THREADS >= 2
    dist = make()
    size = 5 * DEFAULT_CHUNK + 123  # several chunks and a ragged last one
    one = dist.sample(size, seed=99, threads=1)
    two = dist.sample(size, seed=99, threads=2)
    np.testing.assert_array_equal(one, two)
    # a different seed gives different numbers
    assert not np.array_equal(one, dist.sample(size, seed=100, threads=2))


def test_prefix_property():
    # Trial i depends only on (seed, i): a longer run extends a shorter one.
    d = mc.oed(7)
    short = d.sample(DEFAULT_CHUNK + 10, seed=1)
    long = d.sample(3 * DEFAULT_CHUNK, seed=1)
    np.testing.assert_array_equal(short, long[: short.size])


@njit(cache=True)
def _trial_firsts(key, trials):
    s = np.empty(4, np.uint64)
    out = np.empty((trials.shape[0], 4), np.uint64)
    for r in range(trials.shape[0]):
        seed_trial(key, trials[r], s)
        out[r] = s
    return out


def test_seed_trial_is_a_pure_function_of_key_and_trial():
    key = chunk_states(np.random.SeedSequence(5), 0, 1)[0]
    trials = np.arange(4096, dtype=np.int64)
    states = _trial_firsts(key, trials)
    # reproducible, and trial i's state does not depend on which trials came before
    assert np.array_equal(states[::-1], _trial_firsts(key, trials[::-1]))
    assert len({tuple(row) for row in states}) == trials.size
    # another key gives other streams
    other = _trial_firsts(chunk_states(np.random.SeedSequence(6), 0, 1)[0], trials)
    assert not (other == states).any()


def test_seed_trial_words_are_uniform_across_trials():
    # Neighbouring trial indices must not give related states: the top byte of each
    # state word over 65,536 consecutive trials is uniform (chi-square, 255 dof).
    key = np.zeros(4, np.uint64)  # the worst key: no help from the seed
    states = _trial_firsts(key, np.arange(1 << 16, dtype=np.int64))
    for k in range(4):
        counts = np.bincount((states[:, k] >> np.uint64(56)).astype(np.int64), minlength=256)
        expected = states.shape[0] / 256
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < 350  # P(chi2_255 > 350) < 1e-4


@njit
def _after_words(s, n):
    for _ in range(n):
        next_u64(s)
    return next_u64(s)


@njit
def _after_skip(s, n):
    skip(s, n)
    return next_u64(s)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_skip_leaves_the_stream_where_that_many_words_would(n):
    # The battle kernel skips the ties of a unit whose attacks are all lost (steps 6-7).
    a = np.array([1, 2, 3, 4], np.uint64)
    b = a.copy()
    assert _after_skip(a, n) == _after_words(b, n)
    assert (a == b).all()
