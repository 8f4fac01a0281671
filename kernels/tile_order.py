"""Tile order: how both CoE5 battle kernels rank equally near enemies (C-8.3).

C-8.3's draw r among the k equally near enemies names the r-th of them in
tile order: column by column, each column from row 0.  ``tile_key`` numbers a
unit so that keys sort in that order; a kernel that lists the k scans them,
keys them and takes the ``rth_smallest`` key (a quickselect, O(k) on average
where a sort is O(k log k)).  The indexed kernel counts its way to the r-th
tile with its summed-area tables instead, without listing them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The unit number in a :func:`tile_key`: ``key & UNIT_BITS``.
UNIT_BITS = np.int64((1 << 20) - 1)


@njit(forceinline=True, error_model="numpy")
def tile_key(x, y, j):
    """Unit j on tile (x, y) as a number that orders units by tile (column, then row).

    Exact for j and y below 2**20 and x below 2**23 (``deploy`` refuses
    larger battles: ``montecarlo.coe5.battlefield.MAX_SIDE``).
    """
    return (x << 40) | (y << 20) | j


@njit(error_model="numpy")
def rth_smallest(a, k, r):
    """The ``r``-th smallest (from 0) of the distinct values ``a[:k]``.

    ``a[:k]`` is reordered.  Hoare's selection with the middle element as
    pivot: no random draw, so the stream of the battle is not touched, and
    for distinct values the answer does not depend on the pivots.
    """
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
