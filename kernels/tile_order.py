"""Tile order: how both CoE5 battle kernels rank equally near enemies (C-8.3).

C-8.3's draw r among the k equally near enemies names the r-th of them in
tile order: column by column, each column from row 0.  ``tile_key`` numbers a
unit so that keys sort in that order; a kernel that lists the k scans them,
keys them and takes the ``rth_smallest`` key (a count for a few, a
quickselect for more: O(k) on average where a sort is O(k log k)).  The
indexed kernel counts its way to the r-th tile with its summed-area tables
instead, without listing them.
"""

from __future__ import annotations

import numpy as np

from kernels.jit import helper

#: ``rth_smallest`` ranks up to this many values by counting, more by selection.
SMALL = 16

#: The unit number in a :func:`tile_key`: ``key & UNIT_BITS``.
UNIT_BITS = np.int64((1 << 20) - 1)


@helper(forceinline=True)
def tile_key(x, y, j):
    """Unit j on tile (x, y) as a number that orders units by tile (column, then row).

    Exact for j and y below 2**20 and x below 2**23 (``deploy`` refuses
    larger battles: ``montecarlo.coe5.battlefield.MAX_SIDE``).
    """
    return (x << 40) | (y << 20) | j


@helper(forceinline=True)
def rth_smallest(a, k, r):
    """The ``r``-th smallest (from 0) of the distinct values ``a[:k]``.

    Up to ``SMALL`` values, each is ranked by counting the values below it:
    no branch to mispredict, and in a small battle most draws are among 3 to
    10 enemies (10 militia against 3 knights).  Beyond, Hoare's selection
    with the middle element as pivot, which reorders ``a[:k]``.  Neither
    draws a random number, and for distinct values the answer does not
    depend on the method.
    """
    if k <= SMALL:
        for i in range(k):
            below = 0
            for j in range(k):
                below += np.int64(a[j] < a[i])
            if below == r:
                return a[i]
    lo = 0
    hi = k - 1
    while lo < hi:
        pivot = a[(lo + hi) >> 1]
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        # now a[lo..j] <= pivot <= a[i..hi], and a[j+1..i-1] == pivot
        if r <= j:
            hi = j
        elif r >= i:
            lo = i
        else:
            return a[r]
    return a[r]
