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
    ("pikeman:4", "knight:2", {"_whole_kernel": True, "threads": 2}),
]


@pytest.mark.parametrize(("att", "dfd", "options"), CASES)
def test_no_two_array_arguments_share_memory(kernel_calls, att, dfd, options):
    options = {"threads": 1, **options}
    matchup(att, dfd, trials=150, seed=3, progress=False, **options)
    assert kernel_calls, "run_chunks was not called"
    for args in kernel_calls:
        for (i, a), (j, b) in itertools.combinations(_arrays(args), 2):
            assert not np.may_share_memory(a, b), f"run_chunks arguments {i} and {j} overlap"


def test_the_kernel_compiles_with_noalias():
    """The flag reaches the kernel where this Numba has it (it has since before 0.59)."""
    from kernels.coe5_battle import run_chunks

    assert NOALIAS == {"noalias": True}
    assert run_chunks.targetoptions.get("noalias") is True
