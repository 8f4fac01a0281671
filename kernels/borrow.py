"""Arrays passed down a kernel's calls without reference counting.

Numba counts references to an array atomically each time it is passed to a
function or bound to a variable; in a battle, with some twenty arrays per call
and calls per unit per round, those atomic counts took half the time (perf:
``NRT_incref``/``NRT_decref``).  ``borrowed(arr)`` is a view of ``arr`` with no
meminfo, which is not counted.  The caller must keep ``arr`` itself alive while
the view is used.  A function that borrows its arguments must be called, not
inlined (``inline="always"``), unless its caller uses each of those arrays
again after the call: an inlined body is part of the caller, and Numba frees an
array after its last use there, under the view (``kernels.coe5_battle.run_chunks``
and ``kernels.sf_fight._play_fight_inlined`` say how they keep to this;
``tests/test_borrow_lifetimes.py`` checks it).

The intrinsic lives in :mod:`kernels.numba_fence`; on Numba's public path
``borrowed`` returns the array itself, counted as usual, and under
``NUMBA_DISABLE_JIT=1`` the plain-Python twin does the same.
"""

from __future__ import annotations

from kernels.numba_fence import borrowed

__all__ = ["borrowed"]
