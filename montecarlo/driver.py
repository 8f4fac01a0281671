"""Chunked execution of batch kernels: threads, progress bars and Ctrl-C.

A run of ``n`` trials is cut into chunks of :data:`~montecarlo.seeding.DEFAULT_CHUNK`
trials; chunk ``c`` always gets the same stream (see :mod:`montecarlo.seeding`).
Chunks are handed to the kernel in batches so that a progress bar can move and
a Ctrl-C between batches keeps every finished batch.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numba
import numpy as np
from tqdm.auto import tqdm

from montecarlo.errors import InputError
from montecarlo.seeding import DEFAULT_CHUNK, chunk_states

#: A batch kernel: ``fill(states, chunk, out)`` writes ``len(out)`` trials.
Fill = Callable[[np.ndarray, int, np.ndarray], None]


def check_trials(trials: object, name: str = "trials") -> int:
    """Validate a trial count: a positive integer."""
    if isinstance(trials, bool) or not isinstance(trials, int | np.integer):
        raise InputError(f"{name} must be a positive integer, got {trials!r}")
    if trials <= 0:
        raise InputError(f"{name} must be a positive integer, got {trials}")
    return int(trials)


@contextlib.contextmanager
def numba_threads(threads: int | None) -> Iterator[int]:
    """Run the body with ``threads`` Numba threads (None: all), then restore."""
    previous = numba.get_num_threads()
    if threads is None:
        threads = numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InputError(f"threads must be a positive integer, got {threads!r}")
    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(previous)


@dataclass
class FillResult:
    """What :func:`run_fill` produced.

    Attributes
    ----------
    values : numpy.ndarray
        The trials completed, in trial order.
    partial : bool
        True when the run was interrupted (Ctrl-C) and ``values`` is short.
    seconds : float
        Wall time of the kernel calls.
    """

    values: np.ndarray
    partial: bool
    seconds: float


def run_fill(
    fill: Fill,
    size: int,
    ss: np.random.SeedSequence,
    *,
    dtype: type = np.int64,
    threads: int | None = None,
    progress: bool | None = None,
    desc: str = "sampling",
    chunk: int = DEFAULT_CHUNK,
    columns: int | None = None,
) -> FillResult:
    """Run ``fill`` over ``size`` trials, chunk-seeded from ``ss``.

    Parameters
    ----------
    fill : callable
        ``fill(states, chunk, out)``, a Numba batch kernel (see :mod:`kernels.samplers`).
    size : int
        Number of trials.
    ss : numpy.random.SeedSequence
        Root seed of the run.
    threads : int, optional
        Numba threads; results do not depend on it.
    progress : bool, optional
        Show a tqdm bar: True always, False never, None after one second.
    columns : int, optional
        Give each trial a row of this many values instead of one value.
    """
    size = check_trials(size, "size")
    n_chunks = math.ceil(size / chunk)
    out = np.empty(size if columns is None else (size, columns), dtype=dtype)
    done_chunks = 0
    partial = False
    start = time.perf_counter()
    with numba_threads(threads) as n_threads:
        # Batches of a few chunks per thread: big enough to amortise the
        # parallel launch, small enough for a live bar and a quick Ctrl-C.
        batch = max(1, 4 * n_threads)
        bar = tqdm(
            total=size,
            desc=desc,
            unit="trial",
            unit_scale=True,
            disable=progress is False,
            delay=0.0 if progress else 1.0,
            leave=False,
        )
        try:
            while done_chunks < n_chunks:
                stop = min(n_chunks, done_chunks + batch)
                states = chunk_states(ss, done_chunks, stop)
                lo, hi = done_chunks * chunk, min(size, stop * chunk)
                fill(states, chunk, out[lo:hi])
                bar.update(hi - lo)
                done_chunks = stop
        except KeyboardInterrupt:
            partial = True
        finally:
            bar.close()
    seconds = time.perf_counter() - start
    n_done = min(size, done_chunks * chunk)
    return FillResult(out[:n_done], partial, seconds)


@dataclass
class BatchRun:
    """How a batched run ended: ``partial`` after Ctrl-C, and its wall time."""

    partial: bool
    seconds: float


def run_batches(
    play: Callable[[int, int, int], None],
    counts: Callable[[], tuple[np.ndarray, int]],
    *,
    chunk: int,
    batch_chunks: int,
    trials: int | None,
    precision: float | None,
    until: Callable[[np.ndarray, int], bool] | None,
    max_trials: int,
    threads: int | None,
    progress: bool | None,
    unit: str,
) -> BatchRun:
    """Play trials in fixed batches of chunks until a stopping rule is met.

    ``play(first_chunk, n_chunks, n)`` plays ``n`` trials in chunks
    ``first_chunk ..``; ``counts()`` returns the outcome counts and trials so far.
    Stops after ``trials``; or once every outcome rate's 95% Wilson half-width
    is at most ``precision``; or once ``until(counts, n)`` holds (doubling the
    run each time); never beyond ``max_trials``.  Batch sizes depend only on the
    results so far, never on the thread count, so runs stay reproducible.
    Ctrl-C between batches keeps every finished batch (``partial=True``).
    """
    from montecarlo.stats import wilson_halfwidth

    batch = batch_chunks * chunk
    target = max_trials if (precision is not None or until is not None) else trials
    partial = False
    first = 0
    start = time.perf_counter()
    bar = tqdm(total=trials, desc=f"{unit}s", unit=unit, unit_scale=True,
               disable=progress is False, delay=0 if progress else 1.0, leave=False)  # fmt: skip

    def halfwidth(outcome: np.ndarray, n: int) -> float:
        return max(wilson_halfwidth(k, n) for k in outcome)

    try:
        with numba_threads(threads):
            while True:
                outcome, done = counts()
                if done >= target:
                    break
                n = min(batch, target - done)
                if until is not None and done > 0:
                    if until(outcome, done):
                        break
                    n = min(batch * max(1, done // batch), target - done)  # double the run
                elif precision is not None and done > 0:
                    hw = halfwidth(outcome, done)
                    if hw <= precision:
                        break
                    # Jump toward the size the current rates suggest, in whole
                    # batches and at most doubling: both depend only on results.
                    wanted = done * (hw / precision) ** 2 - done
                    n_batches = int(np.clip(np.ceil(wanted / batch), 1, max(1, done // batch)))
                    n = min(n_batches * batch, target - done)
                n_chunks = -(-n // chunk)
                play(first, n_chunks, n)
                first += n_chunks
                bar.update(n)
                if precision is not None:
                    bar.set_postfix_str(f"±{halfwidth(*counts()):.4f}")
    except KeyboardInterrupt:
        partial = True
    finally:
        bar.close()
    if counts()[1] == 0:
        raise KeyboardInterrupt  # interrupted before anything finished
    return BatchRun(partial, time.perf_counter() - start)
