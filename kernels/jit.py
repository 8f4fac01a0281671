"""Helpers: kernel functions that only other kernel functions call.

Numba compiles two wrappers around every ``@njit`` function besides its
native code: a CPython wrapper, which unboxes Python arguments so that
Python can call it, and a C wrapper for first-class function values.  A
helper called only from jitted code needs neither, and compiling them is
about a quarter of a helper's compile time (measurements in
``benchmarks/issue13_history.md``).  :func:`helper` compiles without them
(through :mod:`kernels.numba_fence`, which holds every use of Numba's internals).

Calling such a function from Python would jump to a wrapper that does not
exist, so a helper is a :class:`Helper` dispatcher whose Python call raises
a ``TypeError`` instead.  Tests that exercise a helper directly call it
through :func:`from_python`.  Under ``NUMBA_DISABLE_JIT=1`` a helper is the
plain Python function, as with ``njit``.

Numba keys a cache entry by the function's own source file, not by its
compile options: a change to the options here does not invalidate helpers
already cached for other modules.  Clear ``kernels/__pycache__/*.nb*`` (or
your ``NUMBA_CACHE_DIR``) after changing them; the mutation runner drops the
cache of every kernel module that imports a mutated one, which includes this.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit

from kernels.numba_fence import Helper, make_helper

__all__ = ["Helper", "from_python", "helper"]


def helper(func: Callable | None = None, /, **options: Any) -> Any:
    """``@helper`` or ``@helper(forceinline=True)``: ``njit(cache=True, error_model="numpy")``
    for a function that only jitted code calls, without the wrappers Python would need.

    ``options`` are Numba's (``forceinline``, ``fastmath``, ...).  The result is
    cached on disk like any ``cache=True`` function.  On Numba's public path
    (:mod:`kernels.numba_fence`) it is a plain ``@njit`` function.
    """

    def decorate(func: Callable) -> Any:
        return make_helper(func, options)

    return decorate if func is None else decorate(func)


def from_python(function: Any) -> Callable:
    """A Python-callable twin of a helper: a jitted function that calls it (not cached).

    For tests and exploration; each twin compiles on first call in each process.
    """
    if not isinstance(function, Helper):
        return function  # already callable: an njit entry point, or plain Python

    @njit(error_model="numpy")
    def call(*args):  # pragma: no cover - compiled
        return function(*args)

    return call
