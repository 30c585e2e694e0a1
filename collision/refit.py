"""Broadphase cache refits: the pairs of the few bodies that left their grown boxes found again.

The iterative solver keeps its candidate pairs over boxes grown around the bodies' bounds
(collision/solvers/iterative/narrowphase.py's ``cached_pairs``). When a few bodies leave theirs
(a pile settling, a body knocked off a stack), only their boxes are grown again and only their
pairs found again (:func:`refit_pairs`), by testing each against every box or, for more
bodies, every box against a window of theirs sorted along one axis; the pairs are those
collision.broadphase.candidate_pairs gives over the grown boxes. Shapes: ``n`` bodies.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from collision.broadphase import counting_sort, sweep_axis
from collision.geometry import UNCOUNTED, Index, stable_argsort
from collision.kernels import compiled_only

#: A cache refit (:func:`refit_pairs`) instead of a rebuild while at most one body in this many
#: left its grown box. A refit sorts those bodies' boxes along one axis and tests every box
#: against the ones in its window of that order: on the 8000-body pile (after 200 steps) 0.16
#: ms for 120 bodies and 0.58 ms for 500, where a rebuild's sweep alone takes 1.5 ms.
REFIT_SHARE = 16
#: Boxes wider than this many times the mean width along the refit's axis are kept out of its
#: sorted order and tested against every body that left its box (a floor, a wall): in the order
#: they would stretch every body's window to their width.
REFIT_WIDE = 4.0
#: A refit of at most this many bodies tests each against every box instead of searching a
#: sorted order, whose buckets and pass over every box cost a fixed 7 us on the 1000-body pile
#: and 50 us on the 8000-body one (testing every box: 1.5 and 17 us a body; the two meet near
#: 20 and 12 bodies).
REFIT_SCAN = 16


@njit(cache=True, inline="always")
def _bucket(key: float, low: float, step: float, buckets: int) -> int:
    """The bucket of ``key`` in ``buckets`` buckets of width ``step`` from ``low``: the floor of
    ``(key - low) / step``, clamped to ``[0, buckets]`` (NaN: 0). Never decreasing in ``key``."""
    place = (key - low) / step
    if not place >= 0.0:
        return 0
    if place >= buckets:
        return buckets
    return int(place)


@compiled_only()
def _key_buckets(keys: np.ndarray) -> tuple[np.ndarray, float, float]:
    """For finite ascending ``keys (k,)``: ``(first (b + 1,) int64, low, step)``, ``first[q]``
    the first position whose key's bucket (see :func:`_bucket`) is at least ``q`` (``k`` if
    none). Every key at or above a value is then at or past ``first[_bucket(value, ...)]``:
    a search that costs one division where a binary search would take a mispredicted branch
    per halving."""
    k = keys.shape[0]
    buckets = 2 * k + 1
    low = keys[0] if k > 0 else 0.0
    step = (keys[k - 1] - low) / buckets if k > 0 else 1.0
    if not (step > 0.0 and math.isfinite(step)):
        step = math.inf  # every key in bucket 0
    first = np.empty(buckets + 1, dtype=np.int64)
    p = 0
    for q in range(buckets + 1):
        while p < k and _bucket(keys[p], low, step, buckets) < q:
            p += 1
        first[q] = p
    return first, low, step


@njit(cache=True, inline="always")
def _meets(fat_lo: np.ndarray, fat_hi: np.ndarray, o: int, box: tuple) -> bool:
    """Whether box ``o`` of ``fat_lo``, ``fat_hi (n, 2)`` overlaps ``box`` = ``(left, right,
    bottom, top)``, touching included. Every comparison is made (no short cut), so the test is
    straight-line code and the rare overlap the only branch."""
    left, right, bottom, top = box
    return bool(
        (fat_lo[o, 0] <= right) & (left <= fat_hi[o, 0]) & (fat_lo[o, 1] <= top) & (bottom <= fat_hi[o, 1])
    )


@njit(cache=True, inline="always")
def _new_pair(e: int, o: Index, moved: np.ndarray, skip: np.ndarray) -> bool:
    """Whether escaped body ``e`` and body ``o`` (boxes overlapping) make a pair the refit adds:
    not itself, not two bodies that need none (``skip``), and a pair of two escaped bodies
    (``moved``) only from the first of them."""
    return not (o == e or (moved[o] and o < e) or (skip[e] and skip[o]))


@njit(cache=True, inline="always")
def _push_pair(found: np.ndarray, f: Index, i: int, j: int) -> np.ndarray:
    """``found`` with pair ``(min(i, j), max(i, j))`` at row ``f``, grown (doubled) when full."""
    if f == found.shape[0]:
        grown = np.empty((2 * f, 2), dtype=np.int64)
        for q in range(f):
            grown[q, 0] = found[q, 0]
            grown[q, 1] = found[q, 1]
        found = grown
    found[f, 0] = min(i, j)
    found[f, 1] = max(i, j)
    return found


@compiled_only(forceinline=True, **UNCOUNTED)
def grown_box(
    lo: np.ndarray, hi: np.ndarray, grow: tuple, fat_lo: np.ndarray, fat_hi: np.ndarray, i: int
) -> None:
    """Body ``i``'s cached box into row ``i`` of ``fat_lo``, ``fat_hi (n, 2)``: its bounds
    ``lo``, ``hi (n, 2)`` grown by ``grow`` = ``(margin, lead)``, ``margin`` (units) on every
    side and ``lead[i] (2,)`` (units, signed) along each axis on the side it points to."""
    margin, lead = grow
    for d in range(2):
        fat_lo[i, d] = lo[i, d] - margin + min(lead[i, d], 0.0)
        fat_hi[i, d] = hi[i, d] + margin + max(lead[i, d], 0.0)


@compiled_only()
def _escaped_pairs_window(
    escaped: np.ndarray, fat_lo: np.ndarray, fat_hi: np.ndarray, moved: np.ndarray, skip: np.ndarray,
    threads: int | None,
) -> tuple[np.ndarray, Index]:  # fmt: skip
    """The pairs of the ``escaped`` bodies' grown boxes (rows of ``fat_lo``, ``fat_hi (n,
    2)``, see :func:`refit_pairs`) with every other box: ``(found (>= f, 2) int64, f)``, pairs
    ``(min, max)`` in no order. The escaped boxes are sorted by their lower bound along the
    axis the boxes spread most along (:func:`sweep_axis`) and every box is tested against the
    escaped boxes whose lower bound lies in its window (from its own lower bound less the
    widest escaped box's width, to its upper bound); an escaped box too wide for the order
    (REFIT_WIDE, or not finite) is tested against every box. Only the few escaped boxes are
    sorted: sorting every box cost more than the tests (0.26 of 0.41 ms a step on the
    8000-body pile). On ``threads`` threads when two or more, the boxes in two halves at once
    (:func:`_window_halves`), the same pairs (None: a small world's)."""
    n = fat_lo.shape[0]
    k = escaped.shape[0]
    axis = sweep_axis(fat_lo, fat_hi)
    total = 0.0
    finite = 0
    for r in range(n):
        width = fat_hi[r, axis] - fat_lo[r, axis]
        if math.isfinite(width):
            total += width
            finite += 1
    # Boxes past the limit (or not finite: NaN never compares) go to the wide list, so the
    # sorted keys are finite and the window's bound holds for every box in the order.
    limit = REFIT_WIDE * total / max(finite, 1)
    narrow = np.empty(k, dtype=np.int64)
    keys = np.empty(k)
    count = 0
    widest = 0.0
    found = np.empty((16, 2), dtype=np.int64)
    hits = np.empty(n, dtype=np.int64)
    f: Index = np.int64(0)  # not literals: _window_pairs would be compiled for them too
    for e in escaped:
        width = fat_hi[e, axis] - fat_lo[e, axis]
        if width <= limit:
            narrow[count] = e
            keys[count] = fat_lo[e, axis]
            count += 1
            widest = max(widest, width)
            continue
        for q in range(_box_hits(fat_lo, fat_hi, moved, skip, e, hits)):
            found = _push_pair(found, f, e, hits[q])
            f += 1
    by_key = stable_argsort(keys[:count])
    sorted_keys, sorted_rows = np.empty(count), np.empty(count, dtype=np.int64)
    for q in range(count):
        sorted_keys[q] = keys[by_key[q]]
        sorted_rows[q] = narrow[by_key[q]]
    first, low, step = _key_buckets(sorted_keys)
    order = (sorted_keys, sorted_rows, first, low, step, widest, axis)
    boxes = (fat_lo, fat_hi, moved, skip)
    if threads is None:
        return _window_span(order, boxes, (np.int64(0), n), found, f)
    if threads < 2:
        return _window_span(order, boxes, (np.int64(0), n), found, f)
    # Room for each half's pairs (a box meets ~4 others: the room is rarely outgrown, and a
    # half that outgrows it goes on here, on this thread).
    rooms = np.empty((2, 8 * count + 64, 2), dtype=np.int64)
    progress = np.empty((2, 2), dtype=np.int64)
    _window_halves(order, fat_lo, fat_hi, moved, skip, rooms, progress)
    for half in range(2):
        span = (progress[half, 0], (half + 1) * n // 2)
        room, made = _window_span(order, boxes, span, rooms[half], progress[half, 1])
        for q in range(made):
            found = _push_pair(found, f, room[q, 0], room[q, 1])
            f += 1
    return found, f


@compiled_only()
def _window_span(
    order: tuple, boxes: tuple, span: tuple[Index, Index], found: np.ndarray, f: Index
) -> tuple[np.ndarray, Index]:
    """Boxes ``span`` = ``(first, end)`` tested against the escaped boxes in their windows
    (:func:`_window_pairs`; ``boxes`` = ``(fat_lo, fat_hi, moved, skip)``), their pairs
    written into ``found`` from row ``f``, grown when full. Returns ``(found, f)``."""
    fat_lo, fat_hi, moved, skip = boxes
    count = order[0].shape[0]
    o, end = span
    while o < end:
        if f + count > found.shape[0]:  # a box meets at most every escaped one
            grown = np.empty((2 * found.shape[0] + count, 2), dtype=np.int64)
            for q in range(f):  # element by element: numba's slice copy formats an error text
                grown[q, 0], grown[q, 1] = found[q, 0], found[q, 1]
            found = grown
        o, f = _window_pairs(order, fat_lo, fat_hi, moved, skip, (o, end), found, f)
    return found, f


@compiled_only(forceinline=True, **UNCOUNTED)
def _window_half(
    half: int, order: tuple, fat_lo: np.ndarray, fat_hi: np.ndarray, moved: np.ndarray, skip: np.ndarray,
    rooms: np.ndarray, progress: np.ndarray,
) -> None:  # fmt: skip
    """Half ``half`` (0, 1) of the boxes tested (:func:`_window_pairs`) into ``rooms[half]``
    until done or full: ``progress[half]`` = (the next box, the pairs written). Inlined by LLVM,
    not numba: stores numba inlines into a threaded loop's body can be lost."""
    n = fat_lo.shape[0]
    span = (half * n // 2, (half + 1) * n // 2)
    o, f = _window_pairs(order, fat_lo, fat_hi, moved, skip, span, rooms[half], np.int64(0))
    progress[half, 0] = o
    progress[half, 1] = f


@compiled_only(parallel=True)
def _window_halves(
    order: tuple, fat_lo: np.ndarray, fat_hi: np.ndarray, moved: np.ndarray, skip: np.ndarray,
    rooms: np.ndarray, progress: np.ndarray,
) -> None:  # fmt: skip
    """:func:`_window_half` of both halves of the boxes at once."""
    for half in prange(2):
        _window_half(half, order, fat_lo, fat_hi, moved, skip, rooms, progress)


@compiled_only(**UNCOUNTED)
def _window_pairs(
    order: tuple, fat_lo: np.ndarray, fat_hi: np.ndarray, moved: np.ndarray, skip: np.ndarray,
    span: tuple[Index, Index], found: np.ndarray, f: Index,
) -> tuple[Index, Index]:  # fmt: skip
    """Boxes ``o, o + 1, ... end - 1`` (``span`` = ``(o, end)``) tested against the escaped
    boxes in their windows (see :func:`_escaped_pairs_window`; ``order`` = ``(keys, rows,
    first, low, step, widest, axis)``: the narrow escaped boxes' sorted lower bounds and rows,
    their buckets (:func:`_key_buckets`), their widest width and the axis), the pairs they make
    written into ``found`` from row ``f``. Stops before a box when fewer rows are left than
    there are escaped boxes; returns ``(next box, f)``. Without reference counting: counted,
    the arrays handed to the inlined tests cost two atomic operations per box."""
    keys, rows, first, low, step, widest, axis = order
    count = keys.shape[0]
    buckets = first.shape[0] - 1
    o, stop = span
    while o < stop and f + count <= found.shape[0]:
        # An escaped box reaching this one starts at most ``widest`` below it; the bound is
        # widened by far more than rounding, so no box that reaches it is left out.
        start = fat_lo[o, axis]
        lower = start - widest - 1e-9 * (abs(start) + widest)
        end = fat_hi[o, axis]
        box = (fat_lo[o, 0], fat_hi[o, 0], fat_lo[o, 1], fat_hi[o, 1])
        for p in range(first[_bucket(lower, low, step, buckets)], count):
            if keys[p] > end:
                break
            e = rows[p]
            if keys[p] >= lower and _meets(fat_lo, fat_hi, e, box) and _new_pair(e, o, moved, skip):
                found[f, 0] = min(e, o)
                found[f, 1] = max(e, o)
                f += 1
        o += 1
    return o, f


@compiled_only(**UNCOUNTED)
def _box_hits(
    fat_lo: np.ndarray, fat_hi: np.ndarray, moved: np.ndarray, skip: np.ndarray, e: int, hits: np.ndarray
) -> int:
    """The boxes that escaped body ``e``'s box meets and that make a pair with it (see
    ``_new_pair``) into ``hits (n,) int64``; returns how many. Without reference counting:
    counted, the arrays handed to the inlined tests cost two atomic operations per box."""
    box = (fat_lo[e, 0], fat_hi[e, 0], fat_lo[e, 1], fat_hi[e, 1])
    count = 0
    for o in range(fat_lo.shape[0]):
        if _meets(fat_lo, fat_hi, o, box) and _new_pair(e, o, moved, skip):
            hits[count] = o
            count += 1
    return count


@compiled_only()
def _escaped_pairs_scan(
    escaped: np.ndarray, fat_lo: np.ndarray, fat_hi: np.ndarray, moved: np.ndarray, skip: np.ndarray
) -> tuple[np.ndarray, int]:
    """:func:`_escaped_pairs_window`'s pairs, each escaped box tested against every box."""
    found = np.empty((16, 2), dtype=np.int64)
    hits = np.empty(fat_lo.shape[0], dtype=np.int64)
    f = 0
    for e in escaped:
        for q in range(_box_hits(fat_lo, fat_hi, moved, skip, e, hits)):
            found = _push_pair(found, f, e, hits[q])
            f += 1
    return found, f


@compiled_only()
def refit_pairs(
    escaped: np.ndarray, lo: np.ndarray, hi: np.ndarray, skip: np.ndarray, fat: tuple, grow: tuple,
    threads: int | None,
) -> np.ndarray:  # fmt: skip
    """The cache's pairs after the boxes of the bodies ``escaped (k,) int64`` (ascending) are
    grown again around their bounds: :func:`candidate_pairs` over the grown boxes, for the
    few bodies that left theirs (a pile settling, a body knocked off a stack).

    ``lo``, ``hi (n, 2)``, ``skip (n,) bool`` the bodies' bounds and flags now; ``fat`` =
    ``(fat_lo, fat_hi (n, 2), fat_skip (n,) bool, fat_pairs (f, 2) int64)``, the cache (its
    pairs sorted by ``i`` then ``j``), whose escaped rows are updated in place; ``grow``
    what the boxes are grown by (see :func:`grown_box`). Pairs of two bodies that kept their
    boxes stay; every escaped body's pairs are found again, by testing its box against every
    box (at most REFIT_SCAN bodies) or against a window of the boxes sorted along one axis
    (:func:`_escaped_pairs_window`, on ``threads`` threads when two or more; None: a small
    world's): the same pairs. Returns the pairs, ``(m, 2) int64``, sorted by ``i`` then ``j``
    as candidate_pairs gives them (the caller checks the pair budget)."""
    fat_lo, fat_hi, fat_skip, fat_pairs = fat
    n = lo.shape[0]
    moved = np.zeros(n, dtype=np.bool_)
    for e in escaped:
        moved[e] = True
        grown_box(lo, hi, grow, fat_lo, fat_hi, e)
        fat_skip[e] = skip[e]
    if escaped.shape[0] <= REFIT_SCAN:
        found, f = _escaped_pairs_scan(escaped, fat_lo, fat_hi, moved, skip)
    else:
        found, f = _escaped_pairs_window(escaped, fat_lo, fat_hi, moved, skip, threads)
    by_j = np.empty((f, 2), dtype=np.int64)
    counting_sort(found, f, 1, n, by_j)
    new = np.empty((f, 2), dtype=np.int64)
    counting_sort(by_j, f, 0, n, new)
    # Merge the pairs kept (sorted, none with an escaped body) with the new ones (sorted).
    out = np.empty((fat_pairs.shape[0] + f, 2), dtype=np.int64)
    m = 0
    q = 0
    for p in range(fat_pairs.shape[0]):
        i = fat_pairs[p, 0]
        j = fat_pairs[p, 1]
        if moved[i] or moved[j]:
            continue
        while q < f and (new[q, 0] < i or (new[q, 0] == i and new[q, 1] < j)):
            out[m, 0] = new[q, 0]
            out[m, 1] = new[q, 1]
            m += 1
            q += 1
        out[m, 0] = i
        out[m, 1] = j
        m += 1
    while q < f:
        out[m, 0] = new[q, 0]
        out[m, 1] = new[q, 1]
        m += 1
        q += 1
    return out[:m]
