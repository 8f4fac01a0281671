"""Every use of Numba's internals, fenced: the versions it was tested on, and a public path.

The kernels use five things that Numba's public API does not offer:

* a dispatcher compiled without the CPython and C wrappers, for helpers that only
  jitted code calls (:func:`make_helper`; about a quarter of each helper's compile);
* the compiler flag that marks a kernel's array arguments ``noalias``
  (:func:`noalias_options`);
* array views passed down without reference counting (:data:`borrowed`);
* LLVM's ``ctpop`` and ``cttz`` on int64 words (:data:`popcount`,
  :data:`trailing_zeros`);
* Numba's start-up without SciPy's linear algebra (:func:`defer_blas_check`).

They reach into modules that Numba may change in any release, and some of them
(``noalias``, ``borrowed``) would be silently wrong, not merely broken, if their
meaning changed.  So they are used only on the Numba versions in
:data:`TESTED_NUMBA` (``pyproject.toml`` pins Numba to that range).  On any other
version, or with ``MONTECARLO_NUMBA_INTERNALS=0``, this module gives the public
path instead: plain ``@njit`` helpers, no ``noalias``, counted arrays, loops for
the bit counts, Numba's own start-up.  Slower, never wrong; the first import
says so in one warning when the version is the reason.

Numba's on-disk cache is kept per Numba version, but not per compile option: to
try the public path on a tested version, point ``NUMBA_CACHE_DIR`` at a cache of
its own.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numba
from numba import config, njit

#: (major, minor) versions of Numba that the internals below were tested on.
TESTED_NUMBA: tuple[tuple[int, int], ...] = ((0, 68),)


def _numba_version() -> tuple[int, int]:
    major, minor = numba.__version__.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def _use_internals() -> bool:
    if os.environ.get("MONTECARLO_NUMBA_INTERNALS", "1") == "0":
        return False
    if _numba_version() not in TESTED_NUMBA:
        tested = ", ".join(f"{a}.{b}" for a, b in TESTED_NUMBA)
        warnings.warn(
            f"montecarlo: Numba {numba.__version__} is not a version its kernels were tested "
            f"with ({tested}); they use Numba's public API only: slower, never wrong",
            RuntimeWarning,
            stacklevel=3,
        )
        return False
    return True


#: True where the internals are used; False on the public path.
INTERNALS: bool = _use_internals() and not config.DISABLE_JIT


# -- helpers without wrappers --------------------------------------------------------------------
if INTERNALS:
    from numba.core.registry import CPUDispatcher

    class Helper(CPUDispatcher):
        """A dispatcher compiled without a Python entry point: jitted callers only."""

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
            raise TypeError(
                f"{name} is a kernel helper, compiled without a Python entry point: call it "
                "from jitted code, or through kernels.jit.from_python"
            )

else:

    class Helper:  # pragma: no cover - the public path has no such dispatcher
        """Never instantiated on the public path: helpers are plain ``@njit`` functions."""


def make_helper(func: Callable, options: dict[str, Any]) -> Any:
    """``func`` compiled like ``njit(cache=True, error_model="numpy", **options)``, without
    the CPython and C wrappers where the internals are used."""
    if config.DISABLE_JIT:
        return func
    targetoptions = {"nopython": True, "boundscheck": None, "error_model": "numpy", **options}
    if not INTERNALS:
        return njit(cache=True, **{k: v for k, v in targetoptions.items() if k != "nopython"})(func)
    targetoptions.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)
    dispatcher = Helper(py_func=func, locals={}, targetoptions=targetoptions)
    dispatcher.enable_caching()
    return dispatcher


# -- the noalias flag --------------------------------------------------------------------------
def noalias_options() -> dict[str, Any]:
    """``{"noalias": True}`` for ``@njit``, an option taught to Numba's CPU target, or
    ``{}`` on the public path or where this Numba has no such flag."""
    if not INTERNALS:
        return {}
    try:
        from numba.core.compiler import Flags
        from numba.core.cpu import CPUTargetOptions
        from numba.core.options import TargetOptions

        if not hasattr(Flags, "noalias"):
            return {}
        if not hasattr(CPUTargetOptions, "noalias"):
            CPUTargetOptions.noalias = TargetOptions.Mapping("noalias")
    except (ImportError, AttributeError):  # pragma: no cover - internals moved
        return {}
    return {"noalias": True}


# -- uncounted array views ---------------------------------------------------------------------
if config.DISABLE_JIT:

    def borrowed(arr):
        """The array itself: plain Python counts no references (``NUMBA_DISABLE_JIT=1``)."""
        return arr

elif INTERNALS:
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def borrowed(typingctx, arr):
        """The array ``arr`` without its reference count: a view the caller keeps alive.

        The rules of its use are in :mod:`kernels.borrow`.
        """

        def codegen(context, builder, sig, args):
            view = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            return view._getvalue()

        return arr(arr), codegen

else:

    @njit(inline="always")
    def borrowed(arr):
        """The array itself, counted as usual (the public path)."""
        return arr


# -- bit counts ----------------------------------------------------------------------------------
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
    import numpy as np

    _ONE = np.uint64(1)

    @njit(inline="always")
    def popcount_loop(word):
        """The number of bits set in the int64 ``word`` (a loop: the public path)."""
        w = np.uint64(word)
        n = 0
        while w:
            w &= w - _ONE
            n += 1
        return n

    @njit(inline="always")
    def trailing_zeros_loop(word):
        """The number of zero bits below the lowest set bit of ``word`` (not 0), by a loop."""
        w = np.uint64(word)
        n = 0
        while not w & _ONE:
            w >>= _ONE
            n += 1
        return n

    if INTERNALS:
        from numba.core import types
        from numba.cpython.unsafe.numbers import trailing_zeros
        from numba.extending import intrinsic

        @intrinsic
        def popcount(typingctx, word):
            """The number of bits set in the int64 ``word`` (LLVM's ``ctpop``)."""

            def codegen(context, builder, sig, args):
                return builder.ctpop(args[0])

            return types.int64(types.int64), codegen

    else:
        popcount = popcount_loop
        trailing_zeros = trailing_zeros_loop


# -- start-up without scipy.linalg ----------------------------------------------------------------
def defer_blas_check() -> bool:
    """Let ``numba.np.arraymath`` import without importing ``scipy.linalg``.

    See :mod:`kernels.startup` for what this gives and gives up.  Returns True
    when the import-time check was deferred, False when nothing was changed
    (already imported, SciPy missing, the public path, or another Numba layout).
    """
    if not INTERNALS:
        return False
    try:
        scipy_found = importlib.util.find_spec("scipy") is not None
    except ValueError:  # a stand-in module without a spec (some test mocks)
        scipy_found = False
    if "numba.np.arraymath" in sys.modules or not scipy_found:
        return False
    try:
        import numba.np.linalg as linalg
    except ImportError:  # pragma: no cover - another Numba layout
        return False
    real = getattr(linalg, "ensure_blas", None)
    if real is None or "numba.np.arraymath" in sys.modules:  # pragma: no cover
        return False
    linalg.ensure_blas = _installed
    try:
        import numba.np.arraymath as arraymath
    finally:
        linalg.ensure_blas = real
    if getattr(arraymath, "ensure_blas", None) is _installed:
        arraymath.ensure_blas = real
    return True


def _installed() -> None:
    """Stands in for ``ensure_blas`` while ``numba.np.arraymath`` imports: SciPy is there."""
