"""Numba start-up without SciPy's linear algebra (the warm start).

When Numba first loads a compiled kernel it imports ``numba.np.arraymath``,
which imports ``scipy.linalg`` at once only to set one flag, ``_HAVE_BLAS``
(used by ``np.correlate``/``np.convolve`` to choose a BLAS inner product).
``scipy.linalg`` pulls in SciPy's array-API layer and with it ``numpy.f2py``:
a sizeable share of every warm command's start, and no kernel of ours does
linear algebra.

:func:`defer_blas_check` (in :mod:`kernels.numba_fence`, with Numba's other
internals) lets that import-time check pass when SciPy is
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

from kernels.numba_fence import defer_blas_check

__all__ = ["defer_blas_check"]
