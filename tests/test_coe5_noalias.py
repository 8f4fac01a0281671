"""The battle kernel's callers keep its ``noalias`` promise (kernels/noalias.py, issue 13).

``run_chunks`` compiles with every pointer argument marked ``noalias``: LLVM
may then assume that no two of its array arguments share memory, and would
miscompile a call that broke it (silently: a stale value read, not a crash).
These tests catch the arrays of real matchups on their way to the kernel and
check them pairwise, for the kernel with and without its extras, sieges,
kept trials, the debug record and two threads (a work set per call).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import montecarlo.coe5.battle as battle
from kernels.noalias import NOALIAS
from montecarlo import matchup


def _arrays(args: tuple) -> list[tuple[int, np.ndarray]]:
    return [(k, a) for k, a in enumerate(args) if isinstance(a, np.ndarray)]


@pytest.fixture
def kernel_calls(monkeypatch):
    """Each ``run_chunks`` call's arguments, work arrays included, as the kernel gets them."""
    calls = []
    original = battle.run_on_threads

    def spy(kernel, n_chunks, args, *, scratch=None, **options):
        def recording_scratch():
            work = scratch()
            calls.append((*args, *work))
            return work

        return original(kernel, n_chunks, args, scratch=recording_scratch, **options)

    monkeypatch.setattr(battle, "run_on_threads", spy)
    return calls


CASES = [
    ("pikeman:3", "knight:2", {}),
    ("militia:30,archer:10", "heavy infantry:30,archer:10", {"width": 12, "length": 24}),
    ("archer:6,pikeman:4", "pikeman:8", {"siege": True, "fort": 2}),
    ("pikeman:4", "knight:2", {"keep_trials": True, "_debug": True}),
    ("pikeman:4", "knight:2", {"_whole_kernel": True, "threads": 2, "trials": 2000}),
]


@pytest.mark.parametrize(("att", "dfd", "options"), CASES)
def test_no_two_array_arguments_share_memory(kernel_calls, att, dfd, options):
    options = {"threads": 1, "trials": 150, **options}
    matchup(att, dfd, seed=3, progress=False, **options)
    # One set for compile_first's check, then one per kernel call (per task on threads).
    assert len(kernel_calls) >= (3 if options["threads"] > 1 else 2)
    for args in kernel_calls:
        for (i, a), (j, b) in itertools.combinations(_arrays(args), 2):
            assert not np.may_share_memory(a, b), f"run_chunks arguments {i} and {j} overlap"


@pytest.mark.skipif(not NOALIAS, reason="this Numba has no noalias flag")
def test_the_flag_reaches_llvm():
    """The battle kernel asks for it, and a function that does gets noalias arguments."""
    from numba import njit

    from kernels.coe5_battle import run_chunks

    assert run_chunks.targetoptions.get("noalias") is True

    @njit(**NOALIAS)
    def first(a, b):
        return a[0] + b[0]

    @njit
    def plain(a, b):
        return a[0] + b[0]

    x = np.zeros(2)
    assert first(x, x) == plain(x, x) == 0.0

    def marked(function) -> int:  # noalias marks on the function's own definition line
        (ir,) = function.inspect_llvm().values()
        return ir[ir.index("define") :].split("\n")[0].count("noalias")

    # Numba always marks its return and exception pointers; the flag marks the arrays too.
    assert marked(first) >= marked(plain) + 2
