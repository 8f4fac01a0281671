"""Compile plans and the helper process that compiles a kernel's helpers beside it (issue 13)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from numba.core import types

from montecarlo import compile_helper, compile_plan
from montecarlo.compile_plan import Plan, decode_type, encode_type, parse_line, parse_plan

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("t", "text"),
    [
        (types.int64, "int64"),
        (types.uint64, "uint64"),
        (types.float64, "float64"),
        (types.boolean, "boolean"),
        (types.none, "none"),
        (types.IntegerLiteral(45), "literal(45)"),
        (types.IntegerLiteral(-3), "literal(-3)"),
        (types.Array(types.int64, 1, "C"), "int64[::1]"),
        (types.Array(types.uint64, 2, "C"), "uint64[:, ::1]"),
        (types.Array(types.int64, 3, "C"), "int64[:, :, ::1]"),
        (types.Array(types.float64, 1, "A"), "float64[:]"),
    ],
)
def test_types_survive_the_text(t, text):
    assert encode_type(t) == text
    assert decode_type(text) == t


@pytest.mark.parametrize(
    "t",
    [
        types.UniTuple(types.int64, 2),
        types.Array(types.int64, 1, "F"),
        types.Array(types.int64, 1, "C", readonly=True),
    ],
)
def test_a_type_a_plan_cannot_hold_is_refused(t):
    with pytest.raises(ValueError, match="cannot hold"):
        encode_type(t)


@pytest.mark.parametrize("text", ["int65", "int64[::1, :]", "print", "literal(x)", ""])
def test_text_a_plan_does_not_write_is_refused(text):
    with pytest.raises(ValueError):
        decode_type(text)


def test_a_plan_survives_the_text():
    arr = types.Array(types.int64, 2, "C")
    plan = Plan(
        "kernels.k.top",
        (types.int64, arr),
        (("kernels.k.a", (arr, types.IntegerLiteral(7)), 0), ("kernels.k.b", (), 1)),
    )
    text = compile_plan.format_plan(plan)
    assert parse_plan(text) == plan
    assert compile_plan.recorded_with(text) == compile_plan.toolchain()
    assert compile_plan.recorded_with("kernels.k.top(int64)\n") is None
    assert parse_line("kernels.k.a(int64[:, ::1], literal(7)) 0") == plan.helpers[0]
    with pytest.raises(ValueError):
        parse_plan("# only comments\n")
    with pytest.raises(ValueError):
        parse_plan("kernels.k.top(int64) 3\n")  # the kernel's line has no count
    with pytest.raises(ValueError):
        parse_line("kernels.k.a(int64) x")


@pytest.mark.parametrize("name", sorted(compile_plan.TARGETS))
def test_the_shipped_plans_name_the_kernels_helpers(name):
    from numba.core.dispatcher import Dispatcher

    top = compile_plan.plan_top(name)
    kernel = compile_plan.resolve(top)
    shipped = compile_plan.read_plan(name)
    plan = compile_plan.load_plan(kernel, shipped.signature)  # found by its signature
    assert plan is not None and plan.top == top and plan.name == name
    assert plan.path == compile_plan.plan_path(name)
    assert len(plan.helpers) > 20
    for helper, signature, nested in plan.helpers:
        assert isinstance(compile_plan.resolve(helper), Dispatcher), helper
        assert 0 <= nested < len(plan.helpers)
        assert all(isinstance(t, types.Type) for t in signature)
    # Every helper the helper process may compile is cached, or it could not pass it on.
    for helper, _, _ in plan.helpers:
        assert compile_plan.resolve(helper)._cache.__class__.__name__ == "FunctionCache", helper


def test_the_shipped_plans_are_current():
    # Each plan recorded afresh (a new process, an empty cache, no helper
    # process); they run at once, on both cores.
    for name, out in compile_plan.record_fresh(compile_plan.TARGETS).items():
        shipped = compile_plan.plan_path(name).read_text(encoding="utf-8")
        stale = f"{name}: stale plan; run `python -m montecarlo.compile_plan`"
        if compile_plan.recorded_with(shipped) == compile_plan.toolchain():
            assert out == shipped, stale
        else:
            # Another Numba, Python or platform may type and order a compile its
            # own way; the helpers a kernel calls are still ours to keep current.
            def names(text: str) -> set[str]:
                return {name for name, _, _ in parse_plan(text).helpers}

            assert names(out) == names(shipped), stale


# --- when the helper process starts ------------------------------------------------


@pytest.fixture
def kernel_and_signature(monkeypatch):
    """The battle kernel and its plan's signature, with a cold cache and two CPUs pretended."""
    from kernels.coe5_battle import run_chunks

    monkeypatch.delenv(compile_helper.SWITCH, raising=False)
    monkeypatch.setattr(compile_helper, "_cached", lambda kernel, signature: False)
    monkeypatch.setattr(compile_helper, "_usable_cpus", lambda: 2)
    monkeypatch.setattr(compile_helper, "_busy_cpus", lambda: 0.0)
    return run_chunks, compile_plan.load_plan(run_chunks).signature


def test_a_cold_kernel_with_a_plan_gets_a_helper(kernel_and_signature):
    kernel, signature = kernel_and_signature
    assert compile_helper.wanted(kernel, signature).top == "kernels.coe5_battle.run_chunks"


def test_no_helper_where_it_cannot_help(kernel_and_signature, monkeypatch):
    kernel, signature = kernel_and_signature
    other = (types.float64, *signature[1:])
    assert compile_helper.wanted(kernel, other) is None  # not the plan's types
    assert compile_helper.wanted(kernel.py_func, signature) is None  # plain Python
    seen = []
    worker = threading.Thread(target=lambda: seen.append(compile_helper.wanted(kernel, signature)))
    worker.start()
    worker.join()
    assert seen == [None]  # not on the main thread (a Dask worker's task, a thread pool)
    monkeypatch.setattr(compile_helper, "_cached", lambda kernel, signature: True)
    assert compile_helper.wanted(kernel, signature) is None  # in the cache already
    monkeypatch.setattr(compile_helper, "_cached", lambda kernel, signature: False)
    monkeypatch.setattr(compile_helper, "_usable_cpus", lambda: 1)
    assert compile_helper.wanted(kernel, signature) is None  # one core: nothing to share
    monkeypatch.setattr(compile_helper, "_usable_cpus", lambda: 2)
    monkeypatch.setattr(compile_helper, "_busy_cpus", lambda: 0.6)
    assert compile_helper.wanted(kernel, signature) is None  # others keep the cores busy
    monkeypatch.setattr(compile_helper, "_busy_cpus", lambda: 0.4)
    assert compile_helper.wanted(kernel, signature) is not None
    monkeypatch.setattr(compile_helper.multiprocessing, "parent_process", lambda: object())
    assert compile_helper.wanted(kernel, signature) is None  # a process pool's worker
    monkeypatch.undo()
    monkeypatch.setenv(compile_helper.SWITCH, "0")
    assert compile_helper.wanted(kernel, signature) is None  # switched off


def test_a_warm_start_neither_waits_nor_reads_the_plan(kernel_and_signature, monkeypatch):
    kernel, signature = kernel_and_signature

    def refuse(*args: object) -> None:
        raise AssertionError("the warm start asked for this")

    monkeypatch.setattr(compile_helper, "_cached", lambda kernel, signature: True)
    monkeypatch.setattr(compile_helper, "load_plan", refuse)
    monkeypatch.setattr(compile_helper, "_busy_cpus", refuse)
    assert compile_helper.wanted(kernel, signature) is None


def test_busy_cpus_count_what_others_use_between_two_samples(monkeypatch):
    # (wall s, this process's CPU s, (busy, total jiffies, CPUs)): the machine's
    # 2 CPUs were busy 60 of 200 jiffies, 0.6 CPUs, of which this process 0.02 s
    # in 0.1 s: 0.2 CPUs.  The import-time sample is too old, so it sleeps.
    monkeypatch.setattr(compile_helper, "_AT_IMPORT", (-1e9, 0.0, (0, 0, 2)))
    start = compile_helper.time.monotonic()
    samples = iter([(start, 1.0, (1_000, 4_000, 2)), (start + 0.1, 1.02, (1_060, 4_200, 2))])
    monkeypatch.setattr(compile_helper, "_sample", lambda: next(samples))
    slept = []
    monkeypatch.setattr(compile_helper.time, "sleep", slept.append)
    assert compile_helper._busy_cpus() == pytest.approx(0.6 - 0.2)
    assert len(slept) == 1 and 0.09 < slept[0] <= 0.1
    monkeypatch.setattr(compile_helper, "_sample", lambda: (0.0, 0.0, None))  # no /proc/stat
    monkeypatch.setattr(compile_helper.os, "getloadavg", lambda: (0.7, 0.0, 0.0))
    assert compile_helper._busy_cpus() == 0.7


def test_busy_cpus_measure_since_import_without_waiting_when_that_was_recent(monkeypatch):
    # A command line compiles some 0.1-0.2 s after importing the module: no sleep,
    # or a short one, on the way to a cold compile.  Here 1.0 CPUs busy over
    # 0.5 s, 0.5 of them ours.
    imported = compile_helper.time.monotonic() - 0.5
    monkeypatch.setattr(compile_helper, "_AT_IMPORT", (imported, 1.0, (1_000, 4_000, 2)))
    now = (imported + 0.5, 1.25, (1_100, 4_200, 2))
    monkeypatch.setattr(compile_helper, "_sample", lambda: now)
    monkeypatch.setattr(compile_helper.time, "sleep", pytest.fail)
    assert compile_helper._busy_cpus() == pytest.approx(1.0 - 0.5)


def test_busy_cpus_wait_for_the_rest_of_the_sample_and_never_go_below_zero(monkeypatch):
    imported = compile_helper.time.monotonic() - 0.04  # imported 40 ms ago
    monkeypatch.setattr(compile_helper, "_AT_IMPORT", (imported, 1.0, (1_000, 4_000, 2)))
    slept = []
    monkeypatch.setattr(compile_helper.time, "sleep", slept.append)
    # Our own CPU time (0.1 s in 0.1 s) exceeds what /proc/stat counted busy.
    monkeypatch.setattr(compile_helper, "_sample", lambda: (imported + 0.1, 1.1, (1_010, 4_200, 2)))
    assert compile_helper._busy_cpus() == 0.0
    assert len(slept) == 1 and 0.05 < slept[0] <= 0.06
    # No jiffies counted at all (a frozen clock): nothing is known to be busy.
    monkeypatch.setattr(compile_helper, "_sample", lambda: (imported + 0.1, 1.0, (1_000, 4_000, 2)))
    assert compile_helper._busy_cpus() == 0.0


def test_a_failing_check_compiles_in_one_process(kernel_and_signature, monkeypatch):
    kernel, signature = kernel_and_signature

    def broken(*args: object) -> None:
        raise ValueError("/proc/stat in a format nobody expected")

    monkeypatch.setattr(compile_helper, "_busy_cpus", broken)
    with compile_helper.helping(kernel, signature) as proc:
        assert proc is None


def test_the_helper_imports_this_checkout(monkeypatch):
    seen = {}

    def popen(command, env, **kwargs):
        seen.update(command=command, env=env)
        raise OSError("not really starting it")

    monkeypatch.setattr(compile_helper.subprocess, "Popen", popen)
    plan = compile_plan.load_plan(compile_plan.resolve("kernels.coe5_battle.run_chunks"))
    assert compile_helper.start(plan, Path("begun")) is None
    assert seen["env"]["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)
    assert seen["command"][1:] == [
        "-m",
        "montecarlo.compile_helper",
        str(compile_plan.plan_path(plan.top)),
        "begun",
    ]


def test_each_variant_of_the_battle_kernel_gets_its_own_plan(kernel_and_signature):
    # The kernel without extras (extras=None) and the whole kernel (extras=True)
    # compile different helpers: each cold compile gets the plan of its signature.
    kernel, signature = kernel_and_signature
    plain = compile_plan.read_plan("kernels.coe5_battle.run_chunks@plain")
    assert plain.signature != signature
    assert compile_helper.wanted(kernel, signature).name == "kernels.coe5_battle.run_chunks"
    found = compile_helper.wanted(kernel, plain.signature)
    assert found.name == "kernels.coe5_battle.run_chunks@plain"
    assert found.path.name == "kernels.coe5_battle.run_chunks@plain.txt"
    assert compile_helper.wanted(kernel, (*signature[:-1], types.int8)) is None  # no plan


def test_the_plain_battle_kernel_compiles_none_of_the_extras():
    # What the variant is for (issue 13's cold start): the helpers that only the
    # extras call are not in its compile at all (the plan is a serial compile's record,
    # and test_the_shipped_plans_are_current keeps it so).
    def helpers(name: str) -> set[str]:
        return {h.rpartition(".")[2] for h, _, _ in compile_plan.read_plan(name).helpers}

    whole = helpers("kernels.coe5_battle.run_chunks")
    plain = helpers("kernels.coe5_battle.run_chunks@plain")
    extras = {"_fear", "_ongoing", "_settled", "_clear_clouds", "_ranged_shot", "_random_enemy",
              "_surface_next_to_enemy", "_nearest_free_wall", "_side_has_weapon_flag",
              "_in_reach", "_eff_range", "_none_within", "_occupied"}  # fmt: skip
    assert extras <= whole
    assert not extras & plain
    assert plain < whole


def test_no_interpreter_to_start_no_helper(monkeypatch):
    plan = compile_plan.load_plan(compile_plan.resolve("kernels.coe5_battle.run_chunks"))
    monkeypatch.setattr(compile_helper.sys, "executable", "")
    assert compile_helper.start(plan, Path("begun")) is None


def test_a_kernel_without_a_plan_gets_none(kernel_and_signature):
    from kernels.sf_fight import sample_attacks

    assert compile_plan.load_plan(sample_attacks) is None
    assert compile_helper.wanted(sample_attacks, kernel_and_signature[1]) is None


def test_the_cache_question_is_answered_from_numbas_index():
    from kernels.coe5_battle import run_chunks

    signature = compile_plan.load_plan(run_chunks).signature
    assert isinstance(compile_helper._cached(run_chunks, signature), bool)
    assert compile_helper._cached(object(), signature) is True  # cannot tell: no helper


@pytest.mark.parametrize("fail", [False, True])
def test_the_helper_is_killed_when_the_compile_ends(kernel_and_signature, monkeypatch, fail):
    kernel, signature = kernel_and_signature
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    folders = []
    monkeypatch.setattr(
        compile_helper,
        "start",
        lambda plan, begun: folders.append(begun) or subprocess.Popen(sleeper),
    )
    with pytest.raises(KeyboardInterrupt) if fail else contextlib.nullcontext():
        with compile_helper.helping(kernel, signature) as proc:
            assert proc.poll() is None
            assert folders[0].is_dir()  # where this process marks the helpers it begins
            if fail:
                raise KeyboardInterrupt
    assert proc.poll() is not None
    assert not folders[0].exists()


def test_the_helper_compiles_from_the_far_end_and_skips_trunks_and_stale_lines(monkeypatch):
    compiled = []

    class _Fake:
        def __init__(self, name: str) -> None:
            self.name = name

        def compile(self, signature: tuple) -> None:
            if self.name == "kernels.k.broken":
                raise TypeError("no longer compiles for these types")
            compiled.append(self.name)

    def resolve(name: str) -> _Fake:
        if name == "kernels.k.gone":
            raise AttributeError(name)
        return _Fake(name)

    monkeypatch.setattr(compile_helper, "resolve", resolve)
    helpers = [("kernels.k.leaf", (), 0), ("kernels.k.gone", (), 0), ("kernels.k.broken", (), 0)]
    helpers += [("kernels.k.mid", (), 1), ("kernels.k.trunk", (), 4), ("kernels.k.last", (), 0)]
    plan = Plan("kernels.k.top", (), tuple(helpers))
    assert compile_helper.compile_helpers(plan) == 3
    assert compiled == ["kernels.k.last", "kernels.k.mid", "kernels.k.leaf"]
    # Orphaned (the main process died before it could kill this one): it stops.
    compiled.clear()
    parents = iter([100, 100, 1, 1, 1, 1, 1])
    monkeypatch.setattr(compile_helper.os, "getppid", lambda: next(parents))
    assert compile_helper.compile_helpers(plan) == 1
    assert compiled == ["kernels.k.last"]


@pytest.fixture
def compiled(monkeypatch) -> list[str]:
    """The names of the helpers the helper process compiles, in order (none really compiled)."""
    names: list[str] = []

    class _Fake:
        def __init__(self, name: str) -> None:
            self.name = name

        def compile(self, signature: tuple) -> None:
            names.append(self.name)

    monkeypatch.setattr(compile_helper, "resolve", _Fake)
    return names


def test_the_helper_passes_over_what_a_compile_took_in_and_stops_where_the_main_one_was(
    monkeypatch, compiled
):
    # e's compile took in b, c and d (the three lines before it): they are not compiled again.
    names = [("a", 0), ("b", 0), ("c", 1), ("d", 0), ("e", 3), ("f", 0)]
    plan = Plan("k.top", (), tuple((f"k.{n}", (), nested) for n, nested in names))
    assert compile_helper.compile_helpers(plan) == 3
    assert compiled == ["k.f", "k.e", "k.a"]
    # A helper the main process already compiled: it has everything before it too.
    compiled.clear()
    monkeypatch.setattr(compile_helper, "_compiled_elsewhere", lambda h, sig: h.name == "k.b")
    flat = Plan("k.top", (), tuple((f"k.{n}", (), 0) for n in "abcd"))
    assert compile_helper.compile_helpers(flat) == 2
    assert compiled == ["k.d", "k.c"]


def test_the_helper_leaves_a_helper_the_main_process_has_begun_to_it(
    monkeypatch, tmp_path, compiled
):
    # The main process has begun e (whose compile takes in b, c and d) and compiled b:
    # this one goes on with e's nested helpers from the last one back, up to b.
    monkeypatch.setattr(
        compile_helper, "_compiled_elsewhere", lambda h, sig: h.name in {"k.a", "k.b"}
    )
    (tmp_path / "k.e").touch()
    names = [("a", 0), ("b", 0), ("c", 0), ("d", 0), ("e", 3), ("f", 0)]
    plan = Plan("k.top", (), tuple((f"k.{n}", (), nested) for n, nested in names))
    assert compile_helper.compile_helpers(plan, tmp_path) == 3
    assert compiled == ["k.f", "k.d", "k.c"]
    # Without the folder, it compiles e itself (and with it what e takes in).
    compiled.clear()
    assert compile_helper.compile_helpers(plan) == 2
    assert compiled == ["k.f", "k.e"]
    # From the command line, the folder is the second argument.
    compiled.clear()
    path = tmp_path / "plan.txt"
    path.write_text(compile_plan.format_plan(plan), encoding="utf-8")
    assert compile_helper.main([str(path), str(tmp_path)]) == 0
    assert compiled == ["k.f", "k.d", "k.c"]


def _plus_one(x):
    return x + 1


def test_the_main_process_marks_the_kernel_helpers_it_begins(monkeypatch, tmp_path):
    import numba

    # Numba tells of a compile only when it compiles (not on a cache hit): a fresh
    # dispatcher, with this module standing in for the kernel package.
    monkeypatch.setattr(compile_helper, "KERNEL_PACKAGE", __name__ + ".")
    with compile_helper._marking(tmp_path):
        numba.njit(_plus_one)(1)
    assert [p.name for p in tmp_path.iterdir()] == [f"{__name__}._plus_one"]
    numba.njit(_plus_one)(2)  # after the block: not marked
    assert len(list(tmp_path.iterdir())) == 1


def test_what_the_helper_compiled_itself_does_not_stop_it():
    """A callee of a helper this process compiled is in the cache, but it is not another's work."""
    signature = ("int64",)
    index = {("callee", signature)}  # what Numba's cache index holds

    helper = SimpleNamespace(
        overloads={},
        targetctx=SimpleNamespace(codegen=lambda: None),
        _cache=SimpleNamespace(
            _index_key=lambda sig, codegen: ("callee", tuple(sig)),
            _cache_file=SimpleNamespace(_load_index=lambda: index),
        ),
    )
    assert compile_helper._compiled_elsewhere(helper, signature)  # another process's
    helper.overloads = {signature: object()}  # compiled or loaded here
    assert not compile_helper._compiled_elsewhere(helper, signature)
    index.clear()
    helper.overloads = {}
    assert not compile_helper._compiled_elsewhere(helper, signature)  # not in the cache


def test_the_cache_question_of_the_helper_says_no_when_it_cannot_tell():
    assert compile_helper._compiled_elsewhere(object(), ()) is False


def test_a_cold_battle_compiled_beside_the_helper_plays_the_same_battles(tmp_path):
    # End to end, with an empty cache: the helper process starts, the main
    # process loads helpers it compiled, and the battles are those this
    # process plays (with a kernel compiled here or loaded from its cache).
    import montecarlo as mc

    code = (
        "import json, montecarlo as mc\n"
        "from montecarlo import compile_helper, compile_plan\n"
        "kernel = compile_plan.resolve('kernels.coe5_battle.run_chunks')\n"
        "plan = compile_plan.read_plan('kernels.coe5_battle.run_chunks@plain')  # no extras\n"
        "cold = compile_helper._cached(kernel, plan.signature)\n"
        "compile_helper._busy_cpus = lambda: 0.0  # the test session may keep a core busy\n"
        "started = []\n"
        "start = compile_helper.start\n"
        "compile_helper.start = lambda *a: started.append(start(*a)) or started[-1]\n"
        "r = mc.matchup('pikeman:3', 'knight:1', trials=512, seed=7, progress=False)\n"
        "warm = compile_helper._cached(kernel, plan.signature)\n"
        "hits = sum(bool(compile_plan.resolve(n).stats.cache_hits) for n, _, _ in plan.helpers)\n"
        "ended = [p.poll() is not None for p in started]\n"
        "print(json.dumps([r.counts, r.totals.rounds.tolist(), hits, cold, warm, ended]))\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop(compile_helper.SWITCH, None)
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=True)  # fmt: skip
    counts, rounds, hits, cold, warm, ended = json.loads(done.stdout.splitlines()[-1])
    here = mc.matchup("pikeman:3", "knight:1", trials=512, seed=7, progress=False)
    assert counts == here.counts
    assert rounds == here.totals.rounds.tolist()
    assert (cold, warm) == (False, True)  # the cache question, answered from Numba's index
    if compile_helper._usable_cpus() >= 2:
        assert ended == [True]  # one helper process, gone once the kernel was ready
        assert hits > 0  # helpers loaded from what the helper process cached
