"""A second process that compiles a kernel's helpers while this one compiles the kernel.

Numba compiles on one core: a cold battle kernel took 17–19 s on the 2-core
development machine, about two thirds of it in the seventy helpers the top
function calls (issue 13).  When a kernel with a shipped plan
(:mod:`montecarlo.compile_plan`) is about to compile and is not in the cache,
:func:`helping` starts ``python -m montecarlo.compile_helper <plan>``.  That
process compiles the plan's helpers from the far end: the helpers this
process's type inference reaches last.  Every kernel helper is ``cache=True``,
so each one it finishes lands in Numba's on-disk cache, and this process loads
it from there when its type inference gets to it instead of compiling it
again.  This process marks each helper it begins in a folder the two share,
so the helper process leaves a helper begun here to it and goes on with the
nested helpers it has yet to reach.  The two meet near the middle, and this
process then compiles the top function, which only it can.  The helper
process is killed as soon as the kernel is ready, and stops by itself if this
process dies first.

The compiled code is the same either way (Numba compiles a function for a
signature the same in any process), so results do not depend on it.  It is
skipped where it cannot help: the kernel is already cached; only one CPU is
usable, or other processes keep the CPUs so busy that fewer than one and a
half are free (two compiling processes would only share the same cores);
the call is not on the main thread of the main process (Dask workers, thread
pools and process pools, which have other work for the cores); or
``MONTECARLO_COMPILE_HELPER=0``.  Numba settings changed in code rather than
in the environment (other than the cache directory) do not reach the helper
process; Numba's cache does not tell them apart either.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from numba.core.dispatcher import Dispatcher

from montecarlo.compile_plan import (
    KERNEL_PACKAGE,
    Plan,
    Signature,
    load_plan,
    parse_plan,
    qualified_name,
    resolve,
)

#: Environment variable: ``0`` never starts the helper process.
SWITCH = "MONTECARLO_COMPILE_HELPER"


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _cpu_times() -> tuple[int, int, int] | None:
    """Busy and total jiffies of all CPUs, and their count, from ``/proc/stat`` (None elsewhere)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    fields = [int(x) for x in lines[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    count = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    return sum(fields) - idle, sum(fields), count


def _sample() -> tuple[float, float, tuple[int, int, int] | None]:
    """Wall clock, this process's CPU time, and :func:`_cpu_times`, taken together."""
    return time.monotonic(), time.process_time(), _cpu_times()


#: A sample taken at import.  The command line imports this module about 0.1 s
#: before it compiles, so :func:`_busy_cpus` can measure over that interval
#: instead of sleeping on the way to a cold compile.
_AT_IMPORT = _sample()


def _busy_cpus(sample: float = 0.1, reuse: float = 2.0) -> float:
    """CPUs that other processes keep busy now, from ``/proc/stat``.

    Measured over at least ``sample`` seconds: since this module was imported
    when that was less than ``reuse`` seconds ago (a command's start-up, which
    then waits only for the rest of ``sample``, if any), else from now, asleep.
    This process's own CPU time over the interval is taken off, so its own
    work (a long test session, a notebook) does not count, as it would in the
    load average.  While this process runs, others get what is left, so a
    saturated machine reads about one CPU fewer than when asleep: still above
    the cut in :func:`wanted`.  Where there is no ``/proc/stat``, the 1-minute
    load average stands in (0 where none).
    """
    wall, own, before = _AT_IMPORT
    if before is None or time.monotonic() - wall > reuse:
        wall, own, before = _sample()
        if before is None:
            try:
                return os.getloadavg()[0]
            except (AttributeError, OSError):  # Windows
                return 0.0
    wait = sample - (time.monotonic() - wall)
    if wait > 0:
        time.sleep(wait)
    now, own_now, after = _sample()
    total = after[1] - before[1]
    if total <= 0:
        return 0.0
    ours = (own_now - own) / max(now - wall, 1e-9)
    return max(0.0, before[2] * (after[0] - before[0]) / total - ours)


def _in_a_worker() -> bool:
    """Whether this call runs in a thread pool or a pool's worker process, not the main one."""
    return (
        threading.current_thread() is not threading.main_thread()
        or multiprocessing.parent_process() is not None
    )


def _cached(kernel: Any, signature: Signature) -> bool:
    """Whether Numba's cache holds ``kernel`` for ``signature`` (True when it cannot tell).

    Numba has no public question for this; the index lookup below is what its
    own ``Dispatcher.compile`` does before loading.  If those internals change,
    the answer is True and the kernel simply compiles in one process.
    """
    try:
        cache = kernel._cache
        if not getattr(cache, "_enabled", False):
            return True  # no cache to share helpers through
        key = cache._index_key(signature, kernel.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:
        return True


def _compiled_elsewhere(helper: Any, signature: Signature) -> bool:
    """Whether another process put ``helper`` for ``signature`` in Numba's cache.

    True when the cache holds it and this process has neither compiled nor
    loaded it (a callee of a helper this process compiled is in the cache
    too, but in this process's overloads); False when it cannot tell.  In the
    helper process, that other process is the main one: see
    :func:`compile_helpers`.
    """
    try:
        if tuple(signature) in helper.overloads:
            return False  # this process compiled it (or loaded it) itself
        cache = helper._cache
        key = cache._index_key(signature, helper.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:
        return False


def wanted(kernel: Any, signature: Signature) -> Plan | None:
    """The plan a helper process would compile for this call, or None if it would not help."""
    if not isinstance(kernel, Dispatcher):
        return None  # plain Python (NUMBA_DISABLE_JIT=1) or a test's stand-in
    if os.environ.get(SWITCH, "1") == "0" or _usable_cpus() < 2 or _in_a_worker():
        return None
    if _cached(kernel, signature):  # first: the warm start must not wait or read the plan
        return None
    if _usable_cpus() - _busy_cpus() < 1.5:  # this process needs one, the helper another
        return None
    return load_plan(kernel, signature)


def start(plan: Plan, begun: Path) -> subprocess.Popen | None:
    """Start the helper process on ``plan``, reading begun helpers in ``begun``; None if not."""
    import numba

    if not sys.executable:  # an embedded interpreter: nothing to start
        return None
    env = dict(os.environ)
    if numba.config.CACHE_DIR:  # set in code rather than in the environment
        env["NUMBA_CACHE_DIR"] = numba.config.CACHE_DIR
    # The same checkout as this process, whatever sys.path tricks brought it in:
    # Numba keys a cache entry by its source file.
    here = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "montecarlo.compile_helper", str(plan.path), str(begun)]
    try:
        return subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def helping(kernel: Any, signature: Signature) -> Iterator[subprocess.Popen | None]:
    """Run the block (which compiles ``kernel`` for ``signature``) beside a helper process.

    Yields the process, or None when none was started (:func:`wanted`).  While
    the block runs, each kernel helper whose compile begins here is marked in
    a temporary folder (:func:`_marking`) that the process reads.  The process
    is killed and the folder removed when the block ends, however it ends.  A
    kill can leave a ``.tmp`` file in the cache directory if it lands during a
    write (Numba renames a finished file into place), never a partly written
    entry.
    """
    proc = None
    begun = None
    try:
        plan = wanted(kernel, signature)
        if plan is not None:
            begun = Path(tempfile.mkdtemp(prefix="montecarlo-begun-"))
            proc = start(plan, begun)
    except Exception:  # a speed-up must never stop the command: compile in one process
        proc = None
    try:
        with _marking(begun) if proc is not None else contextlib.nullcontext():
            yield proc
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()
        if begun is not None:
            shutil.rmtree(begun, ignore_errors=True)


@contextlib.contextmanager
def _marking(begun: Path) -> Iterator[None]:
    """While the block runs, mark each kernel helper whose compile begins here in ``begun``.

    One empty file per helper, named ``module.function``, written as Numba
    begins its compile: before its nested helpers, which the cache shows only
    as each one ends.  A file that cannot be written is passed over.
    """
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            name = qualified_name(ev.data["dispatcher"])
            if name.startswith(KERNEL_PACKAGE):
                with contextlib.suppress(OSError):
                    (begun / name).touch()

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", _Listener()):
        yield


def compile_helpers(plan: Plan, begun: Path | None = None) -> int:
    """Compile ``plan``'s helpers from the last one back; return how many compiled.

    A plan lists helpers in the order a serial compile finished them, so the
    ``nested`` helpers compiled inside a helper's compile are the lines just
    before it: compiling it compiles (or loads) them too, and they are
    passed over.  It stops at the first helper that another process put in
    the cache (:func:`_compiled_elsewhere`): the main process, which goes
    through the plan from the front, compiled it, and so has everything
    before it (this process would only load those, while the main process
    compiles the kernel on the other core).

    A helper whose compile takes in more than half of the others (a trunk, as
    the fight was when the fight kernel's chunk loop called it; neither plan
    has one now) is left to the main process: compiling it here would compile
    everything below it in the main process's own order.  A helper that no
    longer exists or no longer compiles for its recorded types (a stale plan)
    is skipped: the main process compiles what it needs anyway.  A helper
    that the main process has begun (marked in ``begun``, see :func:`helping`)
    is left to it too: this process goes on with that helper's nested
    helpers, which the main process has yet to reach from the last one back.
    (Before this, both processes compiled the battle kernel's largest helper,
    ``_move``, each in full.)  If the
    process that started this one is gone (killed before it could kill this
    one), it stops.
    """
    parent = os.getppid()
    done = 0
    q = len(plan.helpers) - 1
    while q >= 0:
        if os.getppid() != parent:
            break  # orphaned: nobody will use what is left
        name, signature, nested = plan.helpers[q]
        q -= 1
        if 2 * nested > len(plan.helpers):
            continue  # a trunk: go on with its nested helpers
        try:
            helper = resolve(name)
            if _compiled_elsewhere(helper, signature):
                break  # the main process got here first
            if begun is not None and (begun / name).exists():
                continue  # the main process is compiling it: go on with its nested helpers
            helper.compile(signature)
        except Exception:
            continue
        done += 1
        q -= nested  # compiled with it
    return done


def main(argv: list[str] | None = None) -> int:
    """``python -m montecarlo.compile_helper PLAN [BEGUN]``: compile the helpers of a plan file.

    ``BEGUN`` is the folder where the main process marks the helpers it has
    begun (:func:`helping`).
    """
    path, *begun = sys.argv[1:] if argv is None else argv
    with open(path, encoding="utf-8") as f:
        compile_helpers(parse_plan(f.read()), Path(begun[0]) if begun else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
