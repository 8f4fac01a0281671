"""Numba kernels of the montecarlo toolkit.

Only NumPy arrays and scalars cross this boundary: no pandas, no matplotlib,
no I/O.  The ``montecarlo`` package imports from here, never the reverse.
"""

from kernels.startup import defer_blas_check as _defer_blas_check

_defer_blas_check()
