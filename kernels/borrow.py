"""Arrays passed down a kernel's calls without reference counting."""

from __future__ import annotations

from numba import config

if config.DISABLE_JIT:

    def borrowed(arr):
        """The array itself: plain Python counts no references (``NUMBA_DISABLE_JIT=1``)."""
        return arr

else:
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def borrowed(typingctx, arr):
        """The array ``arr`` without its reference count: a view the caller keeps alive.

        Numba counts references to an array atomically each time it is passed to a
        function or bound to a variable; in a battle, with some twenty arrays per
        call and calls per unit per round, those atomic counts took half the time
        (perf: ``NRT_incref``/``NRT_decref``).  A view with no meminfo is not
        counted.  The caller must keep ``arr`` itself alive while the view is used.
        A function that borrows its arguments must be called, not inlined
        (``inline="always"``), unless its caller uses each of those arrays again
        after the call: an inlined body is part of the caller, and Numba frees
        an array after its last use there, under the view
        (``kernels.coe5_battle.run_chunks`` and ``kernels.sf_fight._play_fight_inlined``
        say how they keep to this; ``tests/test_borrow_lifetimes.py`` checks it).
        Under ``NUMBA_DISABLE_JIT=1`` the plain-Python twin returns the array.
        """

        def codegen(context, builder, sig, args):
            view = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            return view._getvalue()

        return arr(arr), codegen
