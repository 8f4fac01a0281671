"""Chunked execution of batch kernels: threads, progress bars and Ctrl-C.

A run of ``n`` trials is cut into chunks of :data:`~montecarlo.seeding.DEFAULT_CHUNK`
trials; chunk ``c`` always gets the same stream (see :mod:`montecarlo.seeding`).
Chunks are handed to the kernel in batches so that a progress bar can move and
a Ctrl-C between batches keeps every finished batch.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from tqdm.auto import tqdm

from montecarlo.errors import InputError
from montecarlo.seeding import DEFAULT_CHUNK, chunk_states
from montecarlo.validation import MAX_TRIALS, check_kept, check_limit

#: A batch kernel: ``fill(states, chunk, out)`` writes ``len(out)`` trials.
Fill = Callable[[np.ndarray, int, np.ndarray], None]


def check_trials(trials: object, name: str = "trials") -> int:
    """A trial count: a positive integer up to :data:`~montecarlo.validation.MAX_TRIALS`."""
    if isinstance(trials, bool) or not isinstance(trials, int | np.integer):
        raise InputError(f"{name} must be a positive integer, got {trials!r}")
    if trials <= 0:
        raise InputError(f"{name} must be a positive integer, got {trials}")
    return check_limit(
        int(trials), MAX_TRIALS, name, "a run that long takes hours to days even for single dice"
    )


# -- Ctrl-C -------------------------------------------------------------------
@dataclass
class StopFlag:
    """Set by the first Ctrl-C: runs finish the chunks in flight and return partial."""

    requested: bool = False


_ACTIVE: StopFlag | None = None


@contextlib.contextmanager
def stop_on_ctrl_c() -> Iterator[StopFlag]:
    """Turn Ctrl-C into a request to stop at the next chunk boundary.

    Inside the block the first SIGINT only sets the flag; the chunk loops of
    :func:`run_reduce` and :func:`run_batches` check it between kernel calls,
    keep every finished chunk and return ``partial=True``, and outer loops
    (sweeps, the solver, reports) check it between their steps.  A second
    Ctrl-C raises :class:`KeyboardInterrupt` at once.  Nested blocks share the
    outermost flag, so a stop requested inside one run stops the whole command.
    Off the main thread (where Python delivers no signals) the flag is set when
    a :class:`KeyboardInterrupt` is caught instead.
    """
    global _ACTIVE
    if _ACTIVE is not None:
        yield _ACTIVE
        return
    flag = StopFlag()
    previous = None
    if threading.current_thread() is threading.main_thread():

        def handler(signum: int, frame: object) -> None:
            if flag.requested:
                raise KeyboardInterrupt  # a second Ctrl-C: stop now
            flag.requested = True

        previous = signal.signal(signal.SIGINT, handler)
    _ACTIVE = flag
    try:
        yield flag
    finally:
        _ACTIVE = None
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def stop_requested() -> bool:
    """True once Ctrl-C was pressed inside the current :func:`stop_on_ctrl_c` block."""
    return _ACTIVE is not None and _ACTIVE.requested


#: Kernels (by name) that have already run in this process: their first call
#: no longer includes loading the compiled code from Numba's cache.
_WARM: set[str] = set()


class _Pacer:
    """Chunks per kernel call, resized so that a call takes about ``target`` s.

    Results do not depend on how chunks are grouped into calls (each chunk has
    its own stream), so pacing by wall time keeps runs reproducible while a
    Ctrl-C is answered within about one call.  The first call of a kernel in
    the process is not measured: it includes loading the compiled code.
    """

    def __init__(self, start: int, kernel: str, target: float = 0.1) -> None:
        self.chunks = max(1, start)
        self.target = target
        self.kernel = kernel

    def record(self, chunks: int, seconds: float) -> None:
        if self.kernel not in _WARM:
            _WARM.add(self.kernel)
            return
        if seconds < self.target / 2 and chunks >= self.chunks:
            self.chunks *= 2
        elif seconds > 2 * self.target and self.chunks > 1:
            # Straight to the size that fits the target: a slow call is what delays Ctrl-C.
            self.chunks = max(1, int(chunks * self.target / seconds))


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


def progress_bar(progress: bool | None, **kwargs: object) -> tqdm:
    """A tqdm bar shown when ``progress`` is True, or when None and stderr is a terminal.

    Like pip and most command-line tools, nothing is drawn into a log file or a
    pipe unless asked: carriage-return updates would fill it with noise.
    """
    show = bool(progress) if progress is not None else _stderr_is_terminal()
    return tqdm(disable=not show, delay=0.0 if progress else 1.0, leave=False, **kwargs)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


#: Tasks per thread in a batch: enough to even out chunks of unequal length.
TASKS_PER_THREAD = 4


def run_on_threads(
    kernel: Callable[..., None],
    n_chunks: int,
    args: tuple,
    *,
    what: str = "the kernel",
    seconds: int = 15,
    progress: bool | None = None,
    scratch: Callable[[], tuple] | None = None,
) -> None:
    """Play chunks ``0 .. n_chunks-1`` by ``kernel(c0, c1, *args)`` on the Numba thread count.

    For the battle and fight kernels, which take a chunk range and release the
    GIL (a thread pool instead of ``parallel=True`` saves the parfor compile).
    The chunks go out in ``TASKS_PER_THREAD`` runs of consecutive chunks per
    thread, so the threads share the work however long each chunk takes, and
    a task is worth its call: each call of a kernel unboxes some twenty to
    forty arguments while holding the GIL, which halved the thread scaling of
    short battles when every chunk was a task of its own.  Every chunk writes
    only its own rows, so the result is the same at any thread count.  One
    thread plays in the calling thread.  A first call compiles the kernel
    first, saying so when it takes long (:func:`compile_first`, with ``what``,
    ``seconds`` and ``progress``).  ``scratch``, if given, makes the work
    arrays that each call gets after ``args``: a fresh set per call, so no
    two threads share one.
    """

    def work() -> tuple:
        return scratch() if scratch is not None else ()

    compile_first(kernel, (0, n_chunks, *args, *work()), what, seconds, progress)
    threads = min(numba.get_num_threads(), n_chunks)
    if threads <= 1:
        kernel(0, n_chunks, *args, *work())
        return
    n_tasks = min(n_chunks, TASKS_PER_THREAD * threads)
    bounds = [n_chunks * k // n_tasks for k in range(n_tasks + 1)]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        tasks = [
            pool.submit(kernel, c0, c1, *args, *work()) for c0, c1 in itertools.pairwise(bounds)
        ]
        try:
            for task in tasks:
                task.result()  # re-raises a kernel's error
        except BaseException:
            # A kernel's error or a second Ctrl-C: the call's rows are dropped
            # anyway, so tasks not yet started need not run (running ones finish).
            pool.shutdown(wait=True, cancel_futures=True)
            raise


#: Seconds a kernel's first compile may take before :func:`compile_first` says
#: so; loading a cached kernel takes a tenth of that.
COMPILE_NOTICE_AFTER = 1.0


def compile_first(kernel: Any, args: tuple, what: str, seconds: int, progress: bool | None) -> None:
    """Compile ``kernel`` for ``args`` before its first call, and say so if it takes long.

    On a fresh install (or after an upgrade) Numba compiles a battle or fight
    kernel once, taking about ``seconds`` on the 2-core development machine,
    and caches it on disk.  Compiling here, for the types of the very
    arguments the call will pass (``kernel.typeof_pyval``, as Numba's own
    dispatch does), makes the wait a step of its own: after
    ``COMPILE_NOTICE_AFTER`` seconds one line on stderr says what is happening
    (shown when ``progress`` is True, or when None and stderr is a terminal,
    as the progress bar is; ``tqdm.write`` keeps it off the bar's line).  A
    cached kernel loads well within that time, and a kernel already compiled
    in this process for these argument types returns at once (the battle
    kernel has two: with and without its extras).  ``montecarlo warm`` compiles
    every kernel ahead of use.
    """
    compiled = getattr(kernel, "signatures", None)
    if compiled is None:
        return  # plain Python (NUMBA_DISABLE_JIT=1)
    key = _types_key(kernel, args)
    if key in _COMPILED:
        return  # compiled for these types in this process already, known without Numba's typeof
    signature = tuple(kernel.typeof_pyval(a) for a in args)
    if signature in compiled:
        if key is not None:
            _COMPILED.add(key)
        return  # compiled for these types in this process already
    show = bool(progress) if progress is not None else _stderr_is_terminal()
    message = (
        f"compiling {what} for its first use (about {seconds} s on 2 cores); Numba caches "
        "it, so later runs start at once"
    )
    notice = threading.Timer(COMPILE_NOTICE_AFTER, _notify, (message,))
    notice.daemon = True
    if show and sys.stderr is not None:  # pythonw and some services have no stderr
        notice.start()
    try:
        kernel.compile(signature)
    finally:
        notice.cancel()
    if key is not None:
        _COMPILED.add(key)


#: ``(kernel, argument kinds)`` that :func:`compile_first` has seen compiled.
_COMPILED: set[tuple] = set()


def _types_key(kernel: Any, args: tuple) -> tuple | None:
    """What the Numba types of ``args`` depend on, read without Numba; None if unsure.

    Numba's ``typeof`` of forty-odd arguments is a measurable share of a short
    call (``benchmarks/issue13_history.md``).  An array's type is its
    dtype, dimensions, layout, and whether it is writable and aligned; a
    Python bool, None or float has one type; an int has Numba's ``intp``
    within that type's range (beyond it, its value decides: ``int64`` or
    ``uint64``).  Anything else (such an int, a structured dtype, whose
    records NumPy can call equal where Numba types them apart, a tuple, a
    NumPy scalar) gives None, and Numba's own ``typeof`` decides.
    """
    kinds: list[object] = [kernel]
    for a in args:
        kind = type(a)
        if kind is np.ndarray:
            if a.dtype.names is not None:
                return None
            flags = a.flags
            kinds.append((a.dtype, a.ndim, flags.c_contiguous, flags.f_contiguous,
                          flags.writeable, flags.aligned))  # fmt: skip
        elif kind is int:
            if not -_INTP_LIMIT <= a < _INTP_LIMIT:
                return None
            kinds.append(int)
        elif kind is bool or kind is float or a is None:
            kinds.append(kind)
        else:
            return None
    return tuple(kinds)


#: Python ints in ``-_INTP_LIMIT .. _INTP_LIMIT - 1`` are Numba's ``intp``.
_INTP_LIMIT = 1 << (8 * np.dtype(np.intp).itemsize - 1)


def _notify(message: str) -> None:
    """One line on stderr, clear of any progress bar; a closed stderr is no error."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        tqdm.write(message, file=sys.stderr)


@dataclass
class ReduceResult:
    """How :func:`run_reduce` ended: trials done, ``partial`` after Ctrl-C, wall time."""

    n: int
    partial: bool
    seconds: float


def run_reduce(
    fill: Fill,
    size: int,
    ss: np.random.SeedSequence,
    reduce: Callable[[np.ndarray, int], None],
    *,
    dtype: type = np.int64,
    threads: int | None = None,
    progress: bool | None = None,
    desc: str = "sampling",
    chunk: int = DEFAULT_CHUNK,
    columns: int | None = None,
) -> ReduceResult:
    """Run ``fill`` over ``size`` trials, chunk-seeded from ``ss``, streaming the values.

    Memory does not grow with ``size``: each kernel call fills a buffer of a
    few chunks, and ``reduce(values, first_trial)`` folds it into the caller's
    summary (a histogram, counts) before the next call reuses the buffer.

    Parameters
    ----------
    fill : callable
        ``fill(states, chunk, out)``, a Numba batch kernel (see :mod:`kernels.samplers`).
    size : int
        Number of trials (at most :data:`~montecarlo.validation.MAX_TRIALS`).
    ss : numpy.random.SeedSequence
        Root seed of the run.
    reduce : callable
        Receives each finished block of trials, in trial order.
    threads : int, optional
        Numba threads; results do not depend on it.
    progress : bool, optional
        Show a tqdm bar: True always, False never, None on a terminal only.
    columns : int, optional
        Give each trial a row of this many values instead of one value.

    Returns
    -------
    ReduceResult
        After Ctrl-C (see :func:`stop_on_ctrl_c`) the chunks finished so far
        have been reduced and ``partial`` is True.
    """
    size = check_trials(size, "size")
    buffer = np.empty(0, dtype=dtype)

    def view(lo: int, hi: int) -> np.ndarray:
        nonlocal buffer
        if hi - lo > buffer.shape[0]:
            buffer = np.empty((hi - lo,) + (() if columns is None else (columns,)), dtype=dtype)
        return buffer[: hi - lo]

    return _chunk_loop(fill, size, ss, view, reduce, threads, progress, desc, chunk)


def _chunk_loop(
    fill: Fill,
    size: int,
    ss: np.random.SeedSequence,
    view: Callable[[int, int], np.ndarray],
    after: Callable[[np.ndarray, int], None] | None,
    threads: int | None,
    progress: bool | None,
    desc: str,
    chunk: int,
) -> ReduceResult:
    """Fill trials ``lo..hi`` into ``view(lo, hi)`` call by call until done or stopped."""
    n_chunks = math.ceil(size / chunk)
    done_chunks = 0
    start = time.perf_counter()
    with stop_on_ctrl_c() as stop, numba_threads(threads) as n_threads:
        # A few chunks per thread to start with, then paced to ~0.1 s per call:
        # big enough to amortise the parallel launch, small enough for a live
        # bar and a Ctrl-C answered within a call.
        pacer = _Pacer(4 * n_threads, getattr(fill, "__qualname__", desc))
        bar = progress_bar(progress, total=size, desc=desc, unit="trial", unit_scale=True)
        try:
            while done_chunks < n_chunks and not stop.requested:
                step = min(n_chunks - done_chunks, pacer.chunks)
                lo, hi = done_chunks * chunk, min(size, (done_chunks + step) * chunk)
                out = view(lo, hi)
                t0 = time.perf_counter()
                fill(chunk_states(ss, done_chunks, done_chunks + step), chunk, out)
                pacer.record(step, time.perf_counter() - t0)
                if after is not None:
                    after(out, lo)
                bar.update(hi - lo)
                done_chunks += step
        except KeyboardInterrupt:
            stop.requested = True  # off the main thread, or a second Ctrl-C mid-call
        finally:
            bar.close()
        partial = done_chunks < n_chunks
    return ReduceResult(min(size, done_chunks * chunk), partial, time.perf_counter() - start)


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
    """Like :func:`run_reduce`, but keep every trial in one array.

    The array is proportional to ``size``, so ``size × columns`` is limited to
    :data:`~montecarlo.validation.MAX_KEPT` values; use :func:`run_reduce` for
    longer runs.
    """
    size = check_trials(size, "size")
    check_kept(size * (columns or 1), f"{size:,} trials")
    out = np.empty(size if columns is None else (size, columns), dtype=dtype)
    run = _chunk_loop(
        fill, size, ss, lambda lo, hi: out[lo:hi], None, threads, progress, desc, chunk
    )
    return FillResult(out[: run.n], run.partial, run.seconds)


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
    A batch is played in calls of a few chunks each (paced to about 0.1 s), and
    Ctrl-C (see :func:`stop_on_ctrl_c`) stops at the next call boundary: every
    finished chunk counts, and the run returns with ``partial=True``.
    """
    from montecarlo.stats import wilson_halfwidth

    batch = batch_chunks * chunk
    target = max_trials if (precision is not None or until is not None) else trials
    start = time.perf_counter()
    bar = progress_bar(progress, total=trials, desc=f"{unit}s", unit=unit, unit_scale=True)

    def halfwidth(outcome: np.ndarray, n: int) -> float:
        return max(wilson_halfwidth(k, n) for k in outcome)

    def planned(outcome: np.ndarray, done: int) -> int:
        """Trials of the next batch; 0 when the stopping rule is met."""
        if done >= target:
            return 0
        if precision is None and until is None:
            # A fixed run consults no rule: one batch, played in paced calls, so
            # the calls grow to ~0.1 s; calls of one small batch each spent a
            # fifth of a short battle's run in Python, holding the GIL.
            return target - done
        n = min(batch, target - done)
        if until is not None and done > 0:
            if until(outcome, done):
                return 0
            n = min(batch * max(1, done // batch), target - done)  # double the run
        elif precision is not None and done > 0:
            hw = halfwidth(outcome, done)
            if hw <= precision:
                return 0
            # Jump toward the size the current rates suggest, in whole batches
            # and at most doubling: both depend only on results.
            wanted = done * (hw / precision) ** 2 - done
            n_batches = int(np.clip(np.ceil(wanted / batch), 1, max(1, done // batch)))
            n = min(n_batches * batch, target - done)
        return n

    first = 0
    cut = False  # a batch stopped part-way: the rule was never consulted on it
    with stop_on_ctrl_c() as stop:
        try:
            with numba_threads(threads):
                # Start at one batch per call, as before pacing; slow battles then
                # shrink the calls toward ~0.1 s, fast ones grow them (big batches).
                pacer = _Pacer(batch_chunks, unit)
                while not stop.requested:
                    n = planned(*counts())
                    if n == 0:
                        break
                    # Play the batch in paced calls; the stopping rule above is
                    # only consulted between whole batches, so it never depends
                    # on the thread count or on the pacing.
                    end = first + -(-n // chunk)
                    last = n - (end - first - 1) * chunk  # trials of the batch's last chunk
                    while first < end and not stop.requested:
                        step = min(pacer.chunks, end - first)
                        m = step * chunk if first + step < end else (step - 1) * chunk + last
                        t0 = time.perf_counter()
                        play(first, step, m)
                        pacer.record(step, time.perf_counter() - t0)
                        first += step
                        bar.update(m)
                    cut = first < end
                    if precision is not None:
                        bar.set_postfix_str(f"±{halfwidth(*counts()):.4f}")
        except KeyboardInterrupt:
            stop.requested = True  # off the main thread, or a second Ctrl-C mid-call
            cut = True
        finally:
            bar.close()
        partial = cut or (stop.requested and planned(*counts()) > 0)
    if counts()[1] == 0:
        raise KeyboardInterrupt  # interrupted before anything finished
    return BatchRun(partial, time.perf_counter() - start)
