"""Numba start-up without SciPy's linear algebra (issue 13, warm start).

When Numba first loads a compiled kernel it imports ``numba.np.arraymath``,
which imports ``scipy.linalg`` at once only to set one flag, ``_HAVE_BLAS``
(used by ``np.correlate``/``np.convolve`` to choose a BLAS inner product).
``scipy.linalg`` pulls in SciPy's array-API layer and with it ``numpy.f2py``:
about 0.15 s of every command, 20% of a warm ``montecarlo matchup``, and no
kernel of ours does linear algebra.

:func:`defer_blas_check` lets that import-time check pass when SciPy is
installed (it is a dependency of the toolkit) and puts Numba's own check back
for everything afterwards: ``np.dot`` and friends still call the real
``ensure_blas`` when a user's function is compiled, which imports
``scipy.linalg`` then.  If ``numba.np.arraymath`` is already imported, or
Numba's internals have moved, it does nothing.

What this gives up: Numba's flag now says "BLAS available" whenever SciPy is
installed, without importing ``scipy.linalg.cython_blas``.  On a broken SciPy
a user's float ``np.convolve``/``np.correlate`` in Numba code would then fail
to compile instead of falling back to a plain loop; every other use of BLAS
checks for itself when it is compiled, as before.
"""

from __future__ import annotations

import importlib.util
import sys


def defer_blas_check() -> bool:
    """Let ``numba.np.arraymath`` import without importing ``scipy.linalg``.

    Returns
    -------
    bool
        True when the import-time check was deferred, False when nothing was
        changed (already imported, SciPy missing, or another Numba layout).
    """
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
