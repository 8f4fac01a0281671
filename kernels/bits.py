"""Bit counts on int64 words for the battle kernel's bitsets of unit numbers.

``popcount`` is LLVM's ``ctpop`` and ``trailing_zeros`` Numba's ``cttz``: one
instruction each (intrinsics in :mod:`kernels.numba_fence`).  On Numba's
public path they are loops, and under ``NUMBA_DISABLE_JIT=1`` (the plain-Python
runs of the benchmarks, debugging) plain-Python twins with the same results
stand in.
"""

from __future__ import annotations

from kernels.numba_fence import popcount, trailing_zeros

__all__ = ["popcount", "trailing_zeros"]
