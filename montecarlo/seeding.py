"""Seeding: from a user's ``seed``/``rng`` to one xoshiro256** state per chunk.

Battle and fight kernels use a chunk's state as a key and give each trial its
own stream, ``kernels.rng.seed_trial(key, trial)``; the dice samplers draw a
chunk's numbers from the chunk's stream.

Follows Scientific Python SPEC 7: functions take ``rng`` (anything
:func:`numpy.random.default_rng` accepts), with ``seed`` kept as an alias.
Whatever is passed becomes one :class:`numpy.random.SeedSequence`; chunk ``c``
of a run is seeded by the child with spawn key ``(..., c)``.  Chunk seeds do not
depend on how many chunks are run, so extending a run (target precision) or
splitting it across machines reproduces the same numbers.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np

from montecarlo.errors import InputError

SeedLike: TypeAlias = (
    int | np.integer | np.random.SeedSequence | np.random.Generator | np.random.BitGenerator | None
)

#: Trials per chunk.  Fixed: changing it changes every result for a given seed.
DEFAULT_CHUNK = 1 << 16


def resolve_seed(seed: SeedLike = None, rng: SeedLike = None) -> np.random.SeedSequence:
    """Turn a ``seed=`` or ``rng=`` argument into a :class:`numpy.random.SeedSequence`.

    Parameters
    ----------
    seed, rng : int, SeedSequence, Generator, BitGenerator or None
        At most one may be given.  ``None`` draws fresh OS entropy (recorded in
        the result's ``entropy`` so the run can be repeated).  A Generator is
        consumed: four words are drawn from it to seed the run.

    Returns
    -------
    numpy.random.SeedSequence
    """
    if seed is not None and rng is not None:
        raise InputError("give either seed= or rng=, not both")
    value = rng if rng is not None else seed
    if value is None:
        return np.random.SeedSequence()
    if isinstance(value, np.random.SeedSequence):
        return value
    if isinstance(value, np.random.BitGenerator):
        value = np.random.Generator(value)
    if isinstance(value, np.random.Generator):
        words = value.integers(0, 2**63, size=4, dtype=np.int64)
        return np.random.SeedSequence([int(w) for w in words])
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(
            f"seed must be a non-negative integer, a SeedSequence or a Generator, "
            f"not {type(value).__name__} {value!r}"
        )
    if value < 0:
        raise InputError(f"seed must be a non-negative integer, got {value}")
    return np.random.SeedSequence(int(value))


def chunk_states(ss: np.random.SeedSequence, start: int, stop: int) -> np.ndarray:
    """xoshiro256** states for chunks ``start .. stop-1`` of a run seeded by ``ss``.

    Returns
    -------
    numpy.ndarray
        Shape ``(stop - start, 4)``, dtype uint64, one state row per chunk.
    """
    states = np.empty((stop - start, 4), dtype=np.uint64)
    for row, c in enumerate(range(start, stop)):
        child = np.random.SeedSequence(
            ss.entropy, spawn_key=(*ss.spawn_key, c), pool_size=ss.pool_size
        )
        states[row] = child.generate_state(4, dtype=np.uint64)
        if not states[row].any():  # the one state xoshiro cannot leave
            states[row, 0] = 1
    return states


def derive(ss: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """A child SeedSequence for a sub-task identified by integer ``key`` parts.

    Used by sweeps so that a matchup's stream depends only on (seed, its key).
    """
    return np.random.SeedSequence(
        ss.entropy, spawn_key=(*ss.spawn_key, *key), pool_size=ss.pool_size
    )
