"""Numba's ``noalias`` flag, for a kernel whose array arguments never share memory.

LLVM must assume that any two array arguments of a kernel may overlap, so
after each store through one (a unit's new tile, the random stream's next
state) it reads again what it had read through the others, and keeps little
in registers across the battle's loops.  Numba's compiler has a flag,
``noalias``, that marks every pointer argument of the compiled function
``noalias`` for LLVM, but ``@njit`` takes no option for it.  :data:`NOALIAS`
is ``{"noalias": True}``, an option :mod:`kernels.numba_fence` teaches Numba's
CPU target to read (a mapping onto that flag, as its own options have), or
``{}`` where this Numba has no such flag or on Numba's public path: the kernel
then compiles as before.

The flag is a promise, and LLVM may miscompile a kernel that breaks it: use
it only on a kernel whose callers pass each array as an allocation of its
own (views that the kernel makes of its arguments are fine: they are based
on them).  It is not inherited: helpers, which may be passed the same array
twice, compile without it.  ``tests/test_coe5_noalias.py`` checks the battle
kernel's callers.  The flag also marks the pointers ``captures(none)``: the
kernel keeps none of them past the call.

Numba's cache does not see compile options, only the kernel's own source
file: after changing :data:`NOALIAS` (to rule it out when chasing a
suspected miscompile, say), clear ``kernels/__pycache__/*.nb*`` or your
``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

from typing import Any

from kernels.numba_fence import noalias_options

#: Keyword options for ``@njit``: every pointer argument ``noalias`` (see above).
NOALIAS: dict[str, Any] = noalias_options()
