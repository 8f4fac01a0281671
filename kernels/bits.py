"""Bit counts on int64 words for the battle kernel's bitsets of unit numbers.

``popcount`` is LLVM's ``ctpop`` and ``trailing_zeros`` Numba's ``cttz``: one
instruction each.  Under ``NUMBA_DISABLE_JIT=1`` (the plain-Python runs of the
benchmarks, debugging) intrinsics cannot run, so plain-Python twins with the
same results stand in.
"""

from __future__ import annotations

from numba import config

_WORD = (1 << 64) - 1

if config.DISABLE_JIT:

    def popcount(word):
        """The number of bits set in the int64 ``word``."""
        return (int(word) & _WORD).bit_count()

    def trailing_zeros(word):
        """The number of zero bits below the lowest set bit of ``word`` (not 0)."""
        w = int(word) & _WORD
        return (w & -w).bit_length() - 1

else:
    from numba.core import types
    from numba.cpython.unsafe.numbers import trailing_zeros
    from numba.extending import intrinsic

    @intrinsic
    def popcount(typingctx, word):
        """The number of bits set in the int64 ``word`` (LLVM's ``ctpop``)."""

        def codegen(context, builder, sig, args):
            return builder.ctpop(args[0])

        return types.int64(types.int64), codegen


__all__ = ["popcount", "trailing_zeros"]
