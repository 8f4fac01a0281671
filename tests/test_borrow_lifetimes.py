"""No array is freed while a borrowed view of it can still be read (kernels/borrow.py, issue 13).

The battle in ``run_chunks`` and the inlined fight in ``run_fights`` read their
arrays through uncounted views.  Numba frees an array after its last use in
the function, so every view must come from an owner that outlives the loop
it is read in: an argument, or a variable defined before the loop and freed
after it.  Inlining the fight into ``replay_fight``, whose arrays died at the
call, broke this once (replays read a freed stream).  These tests read the
deletions Numba inserts (``del x``) in the final IR of a fresh compile.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from numba import njit, types
from numba.core import ir
from numba.core.analysis import compute_cfg_from_blocks
from numba.core.lowering import Lower

import montecarlo as mc
from kernels.borrow import borrowed

#: Dispatcher settings that ``njit`` sets itself.
_NOT_OPTIONS = ("nopython", "boundscheck")
#: Expressions that take part of a value without making a new one.
_PARTS = ("static_getitem", "getitem", "exhaust_iter", "pair_first")


def _final_ir(kernel, signature, monkeypatch):
    """The lowered IR, with Numba's deletions, of a fresh (uncached) compile of ``kernel``."""
    seen = {}
    lower = Lower.lower

    def spy(self):
        seen[self.fndesc.qualname] = self.func_ir
        return lower(self)

    monkeypatch.setattr(Lower, "lower", spy)
    options = {k: v for k, v in kernel.targetoptions.items() if k not in _NOT_OPTIONS}
    njit(**options)(kernel.py_func).compile(signature)
    return seen[kernel.py_func.__qualname__]


def _definitions(func_ir) -> dict[str, list]:
    """Each variable's assigned values in the final IR (its own record may be stale)."""
    found: dict[str, list] = {}
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                found.setdefault(stmt.target.name, []).append(stmt.value)
    return found


def _root(definitions, name: str) -> str:
    """The variable that owns ``name``'s array: through copies and tuple unpacking."""
    while True:
        values = definitions.get(name, [])
        if len(values) != 1:  # no definition, or several: a variable of its own
            return name
        (value,) = values
        if isinstance(value, ir.Var):
            name = value.name
        elif isinstance(value, ir.Expr) and value.op in _PARTS:
            name = value.value.name
        else:
            return name


def _used(stmt) -> set[str]:
    """Names a statement reads (an assignment's target is not read)."""
    if isinstance(stmt, ir.Assign):
        value = stmt.value
        if isinstance(value, ir.Var):
            return {value.name}
        return {v.name for v in value.list_vars()} if isinstance(value, ir.Expr) else set()
    if isinstance(stmt, ir.Del):
        return set()
    return {v.name for v in stmt.list_vars()}


def view_hazards(func_ir) -> list[str]:
    """Views that can be read after the array they view is freed; [] when safe.

    For each ``view = borrowed(x)``, the owner is ``x`` traced back through
    copies and tuple unpacking.  Arguments are held by the caller.  Any other
    owner must not be freed (``del owner``) anywhere from which a read of the
    view, or of a copy of it, can still follow.
    """
    cfg = compute_cfg_from_blocks(func_ir.blocks)
    definitions = _definitions(func_ir)
    labels = list(func_ir.blocks)
    after = {}  # label -> labels reachable from it in one or more steps
    for label in labels:
        seen, stack = set(), [s for s, _ in cfg.successors(label)]
        while stack:
            nxt = stack.pop()
            if nxt not in seen:
                seen.add(nxt)
                stack += [s for s, _ in cfg.successors(nxt)]
        after[label] = seen
    hazards = []
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr)):
                continue
            call = stmt.value
            if call.op != "call" or not call.args:
                continue
            func = definitions.get(call.func.name, [None])[0]
            if not (isinstance(func, ir.Global) and func.value is borrowed):
                continue
            owner = _root(definitions, call.args[0].name)
            if owner in func_ir.arg_names:
                continue
            views = {stmt.target.name}
            for _ in range(len(definitions)):  # copies of the view, to a fixed point
                more = {n for n, vs in definitions.items() if any(
                    isinstance(v, ir.Var) and v.name in views for v in vs)}  # fmt: skip
                if more <= views:
                    break
                views |= more
            for label, blk in func_ir.blocks.items():
                for k, s in enumerate(blk.body):
                    if not (isinstance(s, ir.Del) and s.value == owner):
                        continue
                    later = [x for x in blk.body[k + 1:]] + [
                        x for lab in after[label] for x in func_ir.blocks[lab].body
                    ]  # fmt: skip
                    if any(_used(x) & views for x in later):
                        hazards.append(f"{owner} is freed while {stmt.target.name} views it")
    return hazards


def _played_signature(top: str):
    """The kernel ``top`` and the signature a small run compiles it for (the battle
    kernel with its extras: the larger of its two)."""
    module, name = top.rsplit(".", 1)
    kernel = getattr(importlib.import_module(module), name)
    if name == "run_chunks":
        mc.matchup("archer:2,militia:2", "militia:3", trials=4, seed=1, progress=False,
                   _whole_kernel=True)  # fmt: skip
    else:
        mc.sf.fight("warrior:1", "orc:1", trials=4, seed=1, progress=False)
    whole = [s for s in kernel.signatures if not any(isinstance(t, types.NoneType) for t in s)]
    return kernel, (whole or list(kernel.signatures))[0]


@pytest.mark.parametrize("top", ["kernels.coe5_battle.run_chunks", "kernels.sf_fight.run_fights"])
def test_the_batch_kernels_free_no_array_under_a_view(top, monkeypatch):
    kernel, signature = _played_signature(top)
    assert view_hazards(_final_ir(kernel, signature, monkeypatch)) == []


@njit(inline="always")
def _sum_through_a_view(a):
    a = borrowed(a)
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i]
    return total


def _passes_a_temporary(n):
    total = 0.0
    for k in range(n):
        total += _sum_through_a_view(np.ones(4) * k)  # the temporary dies at the call
    return total


def _replays_a_temporary(n):
    return _sum_through_a_view(np.ones(n))  # replay_fight's mistake, in small


def _passes_an_owner(n):
    a = np.ones(4)
    total = 0.0
    for _ in range(n):
        total += _sum_through_a_view(a)
    return total


@pytest.mark.parametrize("fn", [_passes_a_temporary, _replays_a_temporary])
def test_the_check_finds_a_view_of_an_array_that_dies_at_the_call(fn, monkeypatch):
    assert view_hazards(_final_ir(njit(fn), (types.int64,), monkeypatch))


def test_the_check_passes_an_owner_that_outlives_its_views(monkeypatch):
    assert view_hazards(_final_ir(njit(_passes_an_owner), (types.int64,), monkeypatch)) == []
