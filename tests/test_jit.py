"""Kernel helpers compile without Python wrappers, and say so when Python calls one (issue 13)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

from kernels.jit import Helper, from_python, helper
from kernels.tile_order import rth_smallest
from tests.helpers import kernel_entry_points

ROOT = Path(__file__).resolve().parents[1]


@helper
def _twice(x):
    return 2 * x


def test_a_helper_called_from_python_raises_a_clear_error_not_a_crash():
    # Without its CPython wrapper the call would jump to code that does not exist.
    with pytest.raises(TypeError, match=r"kernels\.tile_order\.rth_smallest is a kernel helper"):
        rth_smallest(np.arange(3), 3, 1)


def test_from_python_calls_a_helper_through_a_jitted_twin():
    values = np.array([5, 1, 4, 2])
    assert from_python(rth_smallest)(values, 4, 2) == 4
    assert from_python(_twice)(21) == 42
    assert from_python(len) is len  # anything else is already callable


def test_a_helper_is_cached_and_carries_the_options_given():
    assert isinstance(_twice, Helper)
    assert _twice._cache._enabled
    options = helper(forceinline=True)(lambda x: x).targetoptions
    assert options["forceinline"] and options["no_cpython_wrapper"] and options["no_cfunc_wrapper"]
    assert options["error_model"] == "numpy"


def _kernel_imports(path: Path) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kernels."):
            found += [(node.module, alias.name) for alias in node.names]
    return found


def test_the_package_imports_no_helper_it_could_call_from_python():
    imported = [
        (path.relative_to(ROOT), module, name)
        for path in sorted((ROOT / "montecarlo").rglob("*.py"))
        for module, name in _kernel_imports(path)
    ]
    assert imported
    helpers = [
        entry
        for entry in imported
        if isinstance(getattr(importlib.import_module(entry[1]), entry[2], None), Helper)
    ]
    assert helpers == []


def test_every_compiled_kernel_function_is_a_helper_an_entry_point_or_inlined():
    # Entry points are what Python calls: the batch kernels, the replays, the
    # samplers and a few set-up tables.  Functions inlined before typing
    # (inline="always") are never compiled alone.  Everything else is a helper.
    entry_points = {
        name for name, d in kernel_entry_points().items() if not d.targetoptions.get("parallel")
    }
    assert entry_points == {
        "coe5_battle.run_chunks",
        "coe5_battle_ref.replay_battle",
        "coe5_damage.lane_setup",
        "coe5_dice.oed_level_table",
        "oed_lanes.oed_lane_params",
        "oed_lanes.replay_oed_lanes",
        "sf_fight.run_fights",
        "sf_fight.replay_fight",
    }
