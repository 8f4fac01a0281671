"""C-8.3's ranking of equally near enemies in tile order, against brute force (issue 13).

Both battle kernels name the r-th of the k equally near enemies in tile order
(column, then row).  The reference and the indexed kernel's small battles key
the k and take the r-th smallest (``tile_key``, ``rth_smallest``); a bug
there would be the same in both kernels, so the kernel-equality tests could
not see it.  The indexed kernel's tables count their way to the r-th
(``_rth_in_box``).  Each is checked here against a sort.

Also C-5.1's test that leaves shots out of the attack order: the span of the
enemies' columns and rows (``_occupied``, ``_none_within``) never says "no
enemy in range" when one is, checked against brute force.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernels import coe5_battle, tile_order
from kernels.jit import from_python
from kernels.tile_order import UNIT_BITS
from montecarlo.coe5.battlefield import MAX_SIDE, deploy, parse_army
from montecarlo.errors import InputError

# Helpers, called here through jitted twins.
rth_smallest = from_python(tile_order.rth_smallest)
tile_key = from_python(tile_order.tile_key)
_rth_in_box = from_python(coe5_battle._rth_in_box)
count_table = from_python(coe5_battle.count_table)
_nearest_distance = from_python(coe5_battle._nearest_distance)
column_bits = from_python(coe5_battle.column_bits)
_next_to_bits = from_python(coe5_battle._next_to_bits)
_maybe_adjacent = from_python(coe5_battle._maybe_adjacent)
_rth_on_ring = from_python(coe5_battle._rth_on_ring)
_occupied = from_python(coe5_battle._occupied)
_none_within = from_python(coe5_battle._none_within)
NO_WORDS = np.zeros(0, np.int64)


def test_rth_smallest_is_the_rth_of_the_sorted_values():
    rng = np.random.default_rng(1)
    for _ in range(3000):
        k = int(rng.integers(1, 50))
        values = rng.choice(1 << 40, size=k, replace=False).astype(np.int64)
        r = int(rng.integers(0, k))
        tail = rng.integers(0, 9, 5)
        a = np.concatenate([values, tail])
        assert rth_smallest(a, k, r) == np.sort(values)[r]
        assert sorted(a[:k]) == sorted(values)  # at most reordered (the quickselect's)
        assert (a[k:] == tail).all()  # the slots past k are left alone


def test_tile_keys_sort_by_column_then_row_and_keep_the_unit():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 1 << 20, 2000)
    y = rng.integers(0, MAX_SIDE + 1, 2000)
    j = rng.integers(0, MAX_SIDE + 1, 2000)
    keys = np.array([tile_key(a, b, c) for a, b, c in zip(x, y, j, strict=True)])
    assert ((keys & UNIT_BITS) == j).all()
    assert (keys >= 0).all()
    assert (np.argsort(keys, kind="stable") == np.lexsort((j, y, x))).all()


def test_rth_in_box_is_the_rth_unit_of_the_box_in_tile_order():
    rng = np.random.default_rng(3)
    for _ in range(400):
        width = int(rng.integers(1, 12))
        length = int(rng.integers(2, 14))
        n = int(rng.integers(1, width * length + 1))
        tiles = rng.choice(width * length, size=n, replace=False)
        px = (tiles // width).astype(np.int64)
        py = (tiles % width).astype(np.int64)
        iside = rng.integers(0, 2, n).astype(np.int64)
        state = np.zeros(n, np.int64)  # all alive
        table = np.zeros((length + 1) * (width + 1), np.int64)
        count_table(np.int64(1), iside, state, px, py, width, length, table, NO_WORDS)
        for _ in range(10):
            xa, xb = sorted(rng.integers(0, length, 2))
            ya, yb = sorted(rng.integers(0, width, 2))
            inside = [int(px[j] * width + py[j]) for j in range(n) if iside[j] == 1
                      and xa <= px[j] <= xb and ya <= py[j] <= yb]  # fmt: skip
            for rank, tile in enumerate(sorted(inside)):  # grid index x * width + y
                assert tuple(_rth_in_box(table, width, xa, xb, ya, yb, rank)) == divmod(tile, width)


def _random_grid(rng, max_width=12, max_length=14):
    width = int(rng.integers(1, max_width))
    length = int(rng.integers(2, max_length))
    n = int(rng.integers(1, width * length + 1))
    tiles = rng.choice(width * length, size=n, replace=False)
    px = (tiles // width).astype(np.int64)
    py = (tiles % width).astype(np.int64)
    iside = np.sort(rng.integers(0, 2, n)).astype(np.int64)  # the attacker's slots first
    state = rng.choice([0, 0, 0, 1, 2], n).astype(np.int64)  # ALIVE, DEAD, ROUTED
    return width, length, n, px, py, iside, state


def test_nearest_distance_from_any_guess_is_the_least_box_that_holds_one():
    """C-8.3: the search from a guess (the last distance found) gives the same as brute force.

    The guess only changes how many boxes are counted, never the answer: too
    low, too high, 0, past the grid, or right.
    """
    rng = np.random.default_rng(4)
    for _ in range(300):
        width, length, n, px, py, iside, state = _random_grid(rng)
        table = np.zeros((length + 1) * (width + 1), np.int64)
        count_table(np.int64(1), iside, state, px, py, width, length, table, NO_WORDS)
        live = [(px[j], py[j]) for j in range(n) if iside[j] == 1 and state[j] == 0]
        for _ in range(5):
            x, y = int(rng.integers(0, length)), int(rng.integers(0, width))
            if (x, y) in live:
                continue  # a mover's own tile never holds an enemy
            dist = sorted(max(abs(a - x), abs(b - y)) for a, b in live)
            want = (dist[0], dist.count(dist[0])) if dist else (1 << 30, 0)
            near = (dist or [3])[0]  # the kernel passes the last distance - 2: -1 at first
            for guess in (-2, -1, 0, 1, 2, 5, 40, 1 << 20, near - 2, near, near + 1):
                got = _nearest_distance(x, y, table, width, length, np.int64(guess))
                assert tuple(got) == want, (guess, x, y)


def test_rth_on_ring_is_the_rth_nearest_in_tile_order():
    """C-8.3: the movers' choice among equally near enemies, read from column words.

    The words come from :func:`count_table`, as in the kernel, and must match
    :func:`column_bits`; the r-th of the k at the nearest distance, in tile
    order, is what brute force gives, wherever the k stand on the ring.
    """
    rng = np.random.default_rng(6)
    for _ in range(400):
        width, length, n, px, py, iside, state = _random_grid(rng, max_width=63, max_length=20)
        table = np.zeros((length + 1) * (width + 1), np.int64)
        words = np.full(length, -1, np.int64)  # stale words must be cleared
        count_table(np.int64(1), iside, state, px, py, width, length, table, words)
        colbits = np.zeros((2, length), np.int64)
        column_bits(iside, state, px, py, colbits)
        assert (words == colbits[1]).all()
        live = [(int(px[j]), int(py[j])) for j in range(n) if iside[j] == 1 and state[j] == 0]
        for _ in range(5):
            x, y = int(rng.integers(0, length)), int(rng.integers(0, width))
            if not live or (x, y) in live:
                continue
            d = min(max(abs(a - x), abs(b - y)) for a, b in live)
            ring = sorted(a * width + b for a, b in live if max(abs(a - x), abs(b - y)) == d)
            for r, tile in enumerate(ring):
                got = _rth_on_ring(words, width, length, x, y, d, np.int64(len(ring)), r)
                assert tuple(got) == divmod(tile, width), (x, y, d, r)


def test_column_bits_mark_the_living_units_of_each_side():
    """C-5.1's shots read enemies' tiles from these words (kernels/coe5_battle.py)."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        _, length, n, px, py, iside, state = _random_grid(rng, max_width=63)
        colbits = np.full((2, length), -1, np.int64)  # stale words must be cleared
        column_bits(iside, state, px, py, colbits)
        for side in range(2):
            for x in range(length):
                rows = {int(py[j]) for j in range(n)
                        if iside[j] == side and state[j] == 0 and px[j] == x}  # fmt: skip
                word = int(colbits[side, x]) & ((1 << 64) - 1)
                assert {y for y in range(64) if word >> y & 1} == rows


def test_next_to_words_mark_the_tiles_next_to_each_side():
    """Steps 6-7: the attack order's "no enemy next to i" is one bit of these words.

    Bit y of ``colbits[2 + e, x]`` is set when a living unit of side e stands
    on one of the 9 tiles around (x, y), brute force; for each unit it says
    what :func:`_maybe_adjacent` says of its enemies.
    """
    rng = np.random.default_rng(8)
    for _ in range(200):
        width, length, n, px, py, iside, state = _random_grid(rng, max_width=63)
        colbits = np.full((4, length), -1, np.int64)  # stale words must be cleared
        column_bits(iside, state, px, py, colbits)
        _next_to_bits(colbits)
        for side in range(2):
            live = [(int(px[j]), int(py[j])) for j in range(n)
                    if iside[j] == side and state[j] == 0]  # fmt: skip
            for x in range(length):
                word = int(colbits[2 + side, x]) & ((1 << 64) - 1)
                near = {y for y in range(width)
                        if any(max(abs(a - x), abs(b - y)) <= 1 for a, b in live)}  # fmt: skip
                assert {y for y in range(width) if word >> y & 1} == near, (side, x)
        for i in range(n):
            bit = bool(colbits[3 - iside[i], px[i]] >> py[i] & 1)
            assert bit == _maybe_adjacent(i, iside, px, py, width, length, colbits), i


def test_a_shot_left_out_of_the_order_has_no_enemy_within_its_range():
    """C-5.1: the span test never leaves out a shot that could find a target.

    ``_none_within`` may say "maybe" when there is none (the kernel then
    searches), but never "none" when an enemy stands within r: brute force
    over every living enemy, for random grids, points and ranges.  It also
    says "none" whenever every enemy stands beyond r in front of the shooter
    (or every one behind), the case it is there for.
    """
    rng = np.random.default_rng(7)
    for _ in range(300):
        width, length, n, px, py, iside, state = _random_grid(rng, max_width=63, max_length=30)
        colbits = np.zeros((2, length), np.int64)
        column_bits(iside, state, px, py, colbits)
        x0, x1, rows = _occupied(colbits[1])
        live = [(int(px[j]), int(py[j])) for j in range(n) if iside[j] == 1 and state[j] == 0]
        if live:
            assert (x0, x1) == (min(a for a, _ in live), max(a for a, _ in live))
            assert {y for y in range(64) if int(rows) >> y & 1} == {b for _, b in live}
        else:
            assert x0 > x1
        for _ in range(10):
            x, y = int(rng.integers(0, length)), int(rng.integers(0, width))
            r = int(rng.integers(2, 12))
            none = _none_within(x, y, r, x0, x1, rows, width)
            if any(max(abs(a - x), abs(b - y)) <= r for a, b in live):
                assert not none, (x, y, r)
            elif all(a > x + r for a, _ in live) or all(a < x - r for a, _ in live):
                assert none, (x, y, r)


def test_the_span_test_at_the_edge_of_the_range():
    """C-5.1: an enemy exactly at range r is "maybe", one tile further is "none".

    The random cases above meet the span's edges only now and then; here each
    edge is met on purpose: the column in front and behind, the row above and
    below, and no range at all (a negative wall bonus, C-5.4).
    """
    width, x, y, r = 20, 10, 10, 4
    for dx, dy in ((r, 0), (-r, 0), (0, r), (0, -r), (r, r)):
        words = np.zeros(30, np.int64)
        words[x + dx] = np.int64(1) << (y + dy)
        x0, x1, rows = _occupied(words)
        assert not _none_within(x, y, r, x0, x1, rows, width), (dx, dy)  # at r: search
        assert _none_within(x, y, r - 1, x0, x1, rows, width), (dx, dy)  # beyond: none
    # no range at all, with enemies in the columns on both sides: the guard decides
    assert _none_within(x, y, -1, x - 3, x + 3, np.int64(1) << y, width)


@pytest.mark.parametrize(
    ("attacker", "options", "field"),
    [
        ("pikeman:1", {"width": MAX_SIDE + 1}, "width"),
        ("pikeman:1", {"length": MAX_SIDE + 1}, "length"),
        (f"pikeman:{MAX_SIDE}", {}, "units"),
    ],
)
def test_battles_too_big_for_tile_keys_are_refused(attacker, options, field):
    grid = {"width": 10, "length": 20, **options}
    with pytest.raises(InputError, match=field):
        deploy(parse_army(attacker), parse_army("knight:1"), **grid)
