"""A fast first answer (issue 13): what a matchup command imports, and Wilson without SciPy."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from montecarlo import driver
from montecarlo.stats import wilson

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> str:
    """Standard output of ``code`` run by a fresh interpreter on this checkout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout  # fmt: skip


@pytest.mark.parametrize("n", [1, 7, 100, 2_000, 1_000_003])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_closed_form_wilson_equals_scipys(n, level):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        lo, hi = wilson(k, n, level)
        assert lo == pytest.approx(ci.low, abs=1e-14)
        assert hi == pytest.approx(ci.high, abs=1e-14)
        assert lo <= k / n <= hi  # exactly, so error bars are never negative
    assert wilson(0, n, level)[0] == 0.0
    assert wilson(n, n, level)[1] == 1.0


def test_matchup_command_imports_only_what_it_needs():
    # The command's start is import time plus loading one cached kernel: pandas,
    # matplotlib, SciPy's stats, the SF package and the reference battle kernel
    # took about a second of it before issue 13; scipy.linalg (Numba's BLAS
    # check, kernels/startup.py) another 0.15 s.
    code = (
        "import sys\n"
        "from montecarlo.cli import main\n"
        "main(['matchup', 'pikeman:2', 'pikeman:2', '--trials', '64', '--seed', '1'])\n"
        "heavy = ('pandas', 'matplotlib', 'scipy.stats', 'scipy.linalg', 'montecarlo.sf',\n"
        "         'kernels.coe5_battle_ref', 'kernels.sf_fight')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    out = _run(code)
    assert out.strip().splitlines()[-1] == "[]"


def test_compare_modules_load_after_the_sf_package():
    # montecarlo.sf <-> montecarlo.compare <-> montecarlo.scenarios is an import
    # cycle that resolves only with montecarlo.sf first (montecarlo/__init__.py).
    for module in ("montecarlo.compare", "montecarlo.scenarios", "montecarlo.sensitivity"):
        code = f"import {module}, montecarlo as mc; print(callable(mc.compare), mc.sf.compare)"
        out = _run(code)
        assert out.startswith("True <function sf_compare")


def test_deferred_blas_check_leaves_numba_as_it_was():
    # kernels/startup.py lets numba.np.arraymath import without scipy.linalg;
    # afterwards Numba's flag says BLAS is there, its own check is back in place,
    # and a user's np.dot still compiles (importing scipy.linalg only then).
    code = (
        "import sys\n"
        "import kernels, numba, numpy as np\n"
        "import numba.np.arraymath as am, numba.np.linalg as nl\n"
        "print('scipy.linalg' in sys.modules, am._HAVE_BLAS, am.ensure_blas is nl.ensure_blas)\n"
        "f = numba.njit(lambda a, b: np.dot(a, b))\n"
        "print(f(np.ones((2, 2)), np.arange(2.0)).tolist(), 'scipy.linalg' in sys.modules)\n"
    )
    out = _run(code)
    assert out.splitlines() == ["False True True", "[1.0, 1.0] True"]


def test_deferred_blas_check_does_nothing_once_numba_has_loaded():
    import numba.np.arraymath  # noqa: F401

    from kernels.startup import defer_blas_check

    assert defer_blas_check() is False


class _SlowKernel:
    """Stands in for a Numba dispatcher whose first compile takes ``seconds``."""

    def __init__(self, seconds: float, compiled: bool = False) -> None:
        self.seconds = seconds
        self.signatures = [("int",)] if compiled else []  # as typeof_pyval names them
        self.compiled_for: list[tuple] = []

    def typeof_pyval(self, value: object) -> str:
        return type(value).__name__

    def compile(self, signature: tuple) -> None:
        time.sleep(self.seconds)
        self.compiled_for.append(signature)
        self.signatures.append(signature)


@pytest.mark.parametrize(
    ("progress", "terminal", "shown"),
    [(True, False, True), (True, True, True), (None, True, True), (None, False, False),
     (False, True, False), (False, False, False)],
)  # fmt: skip
def test_a_slow_first_compile_says_so_as_the_progress_bar_would(
    monkeypatch, capsys, progress, terminal, shown
):
    # The progress bar's rule: progress=True always, None on a terminal only.
    monkeypatch.setattr(driver, "COMPILE_NOTICE_AFTER", 0.05)
    monkeypatch.setattr(driver, "_stderr_is_terminal", lambda: terminal)
    kernel = _SlowKernel(0.3)
    driver.compile_first(kernel, (1, 2.0, True), "the test kernel", 20, progress)
    assert kernel.compiled_for == [("int", "float", "bool")]  # the types of the call's arguments
    out, err = capsys.readouterr()
    assert out == ""
    if shown:
        assert "compiling the test kernel for its first use (about 20 s" in err
        assert err.count("\n") == 1
    else:
        assert err == ""


def test_a_quick_or_repeated_compile_says_nothing(monkeypatch, capsys):
    monkeypatch.setattr(driver, "COMPILE_NOTICE_AFTER", 0.2)
    monkeypatch.setattr(driver, "_stderr_is_terminal", lambda: True)
    driver.compile_first(_SlowKernel(0.0), (1,), "a kernel", 20, True)  # loaded from the cache
    time.sleep(0.3)  # the notice would have fired by now
    done = _SlowKernel(5.0, compiled=True)
    driver.compile_first(done, (1,), "a kernel", 20, True)  # compiled in this process
    assert done.compiled_for == []
    assert capsys.readouterr() == ("", "")


def test_no_stderr_no_notice(monkeypatch, capsys):
    # pythonw and some services run with sys.stderr None: print would go to stdout.
    monkeypatch.setattr(driver, "COMPILE_NOTICE_AFTER", 0.05)
    monkeypatch.setattr(sys, "stderr", None)
    driver.compile_first(_SlowKernel(0.3), (1,), "a kernel", 20, True)
    assert capsys.readouterr().out == ""


def test_a_compiled_kernel_is_known_again_without_numbas_typeof(monkeypatch):
    # compile_first's second call with arguments of the same kinds is answered
    # from its own memo: Numba's typeof of forty-odd arguments cost 0.3 ms a call.
    kernel = _SlowKernel(0.0)
    typed = []
    monkeypatch.setattr(kernel, "typeof_pyval", lambda v: typed.append(v) or type(v).__name__)
    args = (1, 2.0, True, None, np.zeros(3))
    driver.compile_first(kernel, args, "a kernel", 20, False)
    assert len(kernel.compiled_for) == 1 and len(typed) == len(args)
    driver.compile_first(kernel, (5, 7.5, False, None, np.ones(4)), "a kernel", 20, False)
    assert len(kernel.compiled_for) == 1 and len(typed) == len(args)  # neither typed nor compiled
    driver.compile_first(kernel, (5, 7.5, False, None, np.ones(4, np.int32)), "a kernel", 20, False)
    assert len(typed) == 2 * len(args)  # another dtype: Numba's typeof decides again


_TYPED_VALUES = [
    0,
    -5,
    1 << 62,
    1 << 63,
    -(1 << 63),
    True,
    False,
    1.5,
    None,
    (1, 2),
    np.int64(3),
    np.zeros(4),
    np.zeros(4, np.int64),
    np.zeros(4, np.uint64),
    np.zeros((2, 3), np.int64),
    np.zeros((2, 3), np.int64, order="F"),
    np.zeros((4, 6), np.int64)[:, ::2],
    np.zeros((3, 1), np.int64),
    np.zeros((1, 3), np.int64, order="F"),
    np.zeros(0, np.int64),
    np.zeros(2, np.dtype({"names": ["a", "b"], "formats": ["i1", "i8"], "offsets": [0, 8]})),
    np.zeros(2, np.dtype([("a", "i1"), ("b", "i8")], align=True)),
    np.zeros((), np.int64),
]


def test_the_memo_key_tells_apart_what_numba_types_tell_apart():
    # Equal keys must mean equal Numba types, or a call could skip a compile it needs.
    import numba

    readonly = np.zeros(4, np.int64)
    readonly.flags.writeable = False
    values = [*_TYPED_VALUES, readonly]
    keys = [driver._types_key(None, (v,)) for v in values]
    assert keys[3] is None  # beyond int64: Numba decides
    assert keys[9] is None and keys[10] is None  # a tuple, a NumPy scalar
    assert keys[20] is None and keys[21] is None  # structured: NumPy's equal is not Numba's
    for (a, ka), (b, kb) in itertools.combinations(zip(values, keys, strict=True), 2):
        if ka is not None and ka == kb:
            assert numba.typeof(a) == numba.typeof(b), (a, b)


def test_battles_and_fights_compile_first(monkeypatch):
    # Both drivers' calls hand their kernel and the call's own arguments (chunks
    # 0 .. n_chunks of the batch) to compile_first (in run_on_threads) first.
    from kernels.coe5_battle import run_chunks
    from kernels.sf_fight import run_fights
    from montecarlo.coe5 import battle
    from montecarlo.sf import fights

    calls = []

    def spy(kernel, args, what, seconds, progress):
        calls.append((kernel, args[:2], what, progress))
        real(kernel, args, what, seconds, progress)

    real = driver.compile_first
    monkeypatch.setattr(driver, "compile_first", spy)
    battle.matchup("pikeman:2", "pikeman:2", trials=300, seed=1, progress=False, threads=1)
    fights.fight("warrior:1", "goblin:1", trials=300, seed=1, progress=False, threads=1)
    (kernel_b, range_b, what_b, progress_b), (kernel_f, range_f, what_f, progress_f) = calls
    assert (kernel_b, what_b, progress_b) == (run_chunks, "the battle kernel", False)
    assert (kernel_f, what_f, progress_f) == (run_fights, "the fight kernel", False)
    assert range_b[0] == range_f[0] == 0
    assert range_b[1] >= 1 and range_f[1] >= 1  # the batch's chunk count


def test_compiling_first_adds_no_specialisation():
    # compile_first compiles for kernel.typeof_pyval of the call's arguments; a
    # type that differed from the call's own dispatch would compile the kernel
    # twice.  Fixed runs, kept trials, debug records, threads: one signature each.
    code = (
        "import montecarlo as mc\n"
        "from kernels.coe5_battle import run_chunks\n"
        "from kernels.sf_fight import run_fights\n"
        "for kw in ({}, {'keep_trials': True}, {'_debug': True}, {'threads': 2}):\n"
        "    mc.matchup('militia:3,archer:2', 'knight:2', trials=600, seed=1,\n"
        "               progress=False, **kw)\n"
        "mc.sf.fight('warrior:1,archer:1', 'goblin:2', trials=600, seed=1, progress=False)\n"
        "mc.sf.fight('warrior:1', 'goblin:1', trials=60, seed=1, progress=False,\n"
        "            keep_trials=True)\n"
        "print(len(run_chunks.signatures), len(run_fights.signatures))\n"
    )
    assert _run(code).strip().splitlines()[-1] == "1 1"


def test_a_failing_task_stops_the_tasks_not_yet_started():
    # run_on_threads: when a chunk range raises (or a second Ctrl-C arrives),
    # the call's rows are dropped, so the queued ranges should not run.
    import numba

    started = []

    def kernel(c0: int, c1: int, fail_at: int, seconds: float) -> None:
        started.append(c0)
        if c0 == fail_at:
            raise RuntimeError("a kernel's error")
        time.sleep(seconds)  # long enough for the caller to cancel the rest

    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with pytest.raises(RuntimeError, match="a kernel's error"):
            driver.run_on_threads(kernel, 8, (0, 0.5))  # 8 ranges on 2 threads
        assert len(started) <= 3  # the failing one, the one beside it, at most one more
        started.clear()
        driver.run_on_threads(kernel, 8, (-1, 0.01))  # no error: every range runs, once
        assert sorted(started) == list(range(8))
    finally:
        numba.set_num_threads(previous)


@pytest.mark.parametrize("threads", [1, 2])
def test_each_call_gets_work_arrays_of_its_own(threads):
    # run_on_threads(scratch=...): the battle kernel plays in arrays the caller
    # allocates; two threads must never play in the same ones.
    import numba

    seen = []

    def kernel(c0: int, c1: int, tag: str, work: list) -> None:
        seen.append((c0, tag, work))  # kept alive, so ids are not reused
        time.sleep(0.01)

    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        driver.run_on_threads(kernel, 8, ("x",), scratch=lambda: ([],))
    finally:
        numba.set_num_threads(previous)
    calls = 1 if threads == 1 else driver.TASKS_PER_THREAD * 2
    assert len(seen) == min(calls, 8)
    assert len({id(w) for _, _, w in seen}) == len(seen)  # a fresh set per call
    assert {tag for _, tag, _ in seen} == {"x"}
