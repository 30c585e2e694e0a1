"""Broadphase: candidate pairs from bounding boxes swept over the step (sort and sweep, in strips).

Every function here is compiled with numba and works on the world's structure-of-arrays
state. Shapes: ``n`` bodies, ``MAX_VERTICES`` vertex slots per body.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numba import njit, prange

from collision.geometry import UNCOUNTED, Index, cos_sin, stable_argsort
from collision.kernels import compiled_only
from collision.tolerances import MAX_PAIRS_PER_BODY


@njit(cache=True, inline="always")
def _transform_body(
    local_vertices: np.ndarray, vertex_count: np.ndarray, position: np.ndarray, angle: np.ndarray,
    out: np.ndarray, i: int,
) -> None:  # fmt: skip
    """Body ``i``'s world-space vertices into ``out[i]`` (see :func:`transform_vertices`)."""
    c, s = cos_sin(angle[i])
    px = position[i, 0]
    py = position[i, 1]
    for k in range(vertex_count[i]):
        x = local_vertices[i, k, 0]
        y = local_vertices[i, k, 1]
        out[i, k, 0] = px + c * x - s * y
        out[i, k, 1] = py + s * x + c * y


@njit(cache=True)
def transform_vertices(
    local_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    out: np.ndarray,
) -> None:
    """Write world-space vertices of every body into ``out``.

    ``local_vertices (n, MAX_VERTICES, 2)`` centroid-relative, ``vertex_count (n,) int64``,
    ``position (n, 2)``, ``angle (n,)`` radians CCW, ``out (n, MAX_VERTICES, 2)``; slots past
    a body's count are left untouched.
    """
    for i in range(position.shape[0]):
        _transform_body(local_vertices, vertex_count, position, angle, out, i)


@compiled_only(parallel=True)
def transform_and_bound_threaded(
    local_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    out: np.ndarray,
    sweep: tuple,
    bounds: tuple,
) -> None:
    """:func:`transform_vertices` then :func:`swept_bounds` (``sweep`` = ``(velocity,
    angular_velocity, radius, dt, margin)``, ``bounds`` = ``(lo, hi)``) body by body on numba's
    threads: each body's box read from its vertices while they are in cache."""
    velocity, angular_velocity, radius, dt, margin = sweep
    lo, hi = bounds
    for i in prange(position.shape[0]):
        _transform_body(local_vertices, vertex_count, position, angle, out, i)
        _swept_body(out, vertex_count, velocity, angular_velocity, radius, dt, margin, lo, hi, i)


@njit(cache=True)
def swept_bounds(
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    radius: np.ndarray,
    dt: float,
    margin: float,
    lo: np.ndarray,
    hi: np.ndarray,
) -> None:
    """Axis-aligned boxes that contain each body over the whole step.

    The box holds the shape now and after moving by ``velocity * dt``, grown by what a
    rotation of ``angular_velocity * dt`` can sweep (``radius (n,)`` is each body's largest
    vertex distance from its centroid) and by ``margin`` (units). ``lo``, ``hi``: ``(n, 2)``.
    """
    for i in range(world_vertices.shape[0]):
        _swept_body(world_vertices, vertex_count, velocity, angular_velocity, radius, dt, margin, lo, hi, i)


@njit(cache=True, inline="always")
def _swept_body(
    world_vertices: np.ndarray, vertex_count: np.ndarray, velocity: np.ndarray, angular_velocity: np.ndarray,
    radius: np.ndarray, dt: float, margin: float, lo: np.ndarray, hi: np.ndarray, i: int,
) -> None:  # fmt: skip
    """Body ``i``'s box into ``lo[i]``, ``hi[i]`` (see :func:`swept_bounds`)."""
    x0 = math.inf
    y0 = math.inf
    x1 = -math.inf
    y1 = -math.inf
    for k in range(vertex_count[i]):
        x = world_vertices[i, k, 0]
        y = world_vertices[i, k, 1]
        x0 = min(x0, x)
        y0 = min(y0, y)
        x1 = max(x1, x)
        y1 = max(y1, y)
    dx = velocity[i, 0] * dt
    dy = velocity[i, 1] * dt
    # A chord of a circle of radius r turned by angle a is at most min(a, 2) * r long.
    grow = margin + min(abs(angular_velocity[i]) * dt, 2.0) * radius[i]
    lo[i, 0] = min(x0, x0 + dx) - grow
    lo[i, 1] = min(y0, y0 + dy) - grow
    hi[i, 0] = max(x1, x1 + dx) + grow
    hi[i, 1] = max(y1, y1 + dy) + grow


@compiled_only()
def sweep_axis(lo: np.ndarray, hi: np.ndarray) -> int:
    """The axis (0: x, 1: y) along which the centres of the boxes ``lo``, ``hi (n, 2)`` spread
    most (the larger variance). Sweeping along it, each box meets the fewest boxes that overlap
    it on that axis alone: a tall pile swept along x meets its whole column at every box."""
    n = lo.shape[0]
    if n == 0:
        return 0
    mean_x = 0.0
    mean_y = 0.0
    for i in range(n):
        mean_x += 0.5 * (lo[i, 0] + hi[i, 0])
        mean_y += 0.5 * (lo[i, 1] + hi[i, 1])
    mean_x /= n
    mean_y /= n
    spread_x = 0.0
    spread_y = 0.0
    for i in range(n):
        dx = 0.5 * (lo[i, 0] + hi[i, 0]) - mean_x
        dy = 0.5 * (lo[i, 1] + hi[i, 1]) - mean_y
        spread_x += dx * dx
        spread_y += dy * dy
    return 1 if spread_y > spread_x else 0


@njit(cache=True, inline="always")
def counting_sort(pairs: np.ndarray, m: int, column: int, n: int, out: np.ndarray) -> None:
    """The first ``m`` rows of ``pairs (., 2) int64`` into ``out (m, 2)`` in the order of their
    ``column`` (values 0..n-1), rows of equal value kept in order (stable). Inlined: its
    callers pass int literals, for each of which numba would compile it again."""
    start = np.zeros(n + 1, dtype=np.int64)
    for p in range(m):
        start[pairs[p, column] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    for p in range(m):
        q = start[pairs[p, column]]
        start[pairs[p, column]] = q + 1
        out[q, 0] = pairs[p, 0]
        out[q, 1] = pairs[p, 1]


#: Height (in mean box heights along the axis the sweep does not sort on) of the strips the
#: sweep runs in: a pile sorted along x alone met its whole column at every box (200 000
#: tests for 8 000 boxes, 18 500 in strips). Results do not depend on it.
STRIP_HEIGHT = 1.0


@njit(cache=True, inline="always")
def _strip_of(value: float, low: float, scale: float, strips: int) -> int:
    """The strip (0 .. ``strips`` - 1) that holds ``value`` on the other axis: ``scale`` strips
    per unit from ``low``. Clamped, NaN to strip 0, so no box can index outside the strips;
    monotonic, so a box's strips are a run and the pairs' too."""
    x = (value - low) * scale
    if not x >= 0.0:
        return 0
    if x >= strips:
        return strips - 1
    return int(x)


@njit(cache=True, inline="always")
def _strip_spans(lo_b: np.ndarray, hi_b: np.ndarray) -> tuple[float, float, int]:
    """``(low, scale, strips)`` (see :func:`_strip_of`): strips of STRIP_HEIGHT mean box heights
    over the span of the boxes ``lo_b``, ``hi_b (n,)`` on the other axis; one strip when the
    span is empty or not finite. A box of height x reaches at most x * scale + 2 strips, and
    scale <= 1 / (STRIP_HEIGHT * mean) + 1 / span with mean <= span, so the boxes make at most
    (3 + 1 / STRIP_HEIGHT) n entries (4 n): tall boxes cannot make the strips cost more than
    they save."""
    n = lo_b.shape[0]
    low = math.inf
    high = -math.inf
    total = 0.0
    for i in range(n):
        low = min(low, lo_b[i], hi_b[i])
        high = max(high, lo_b[i], hi_b[i])
        total += abs(hi_b[i] - lo_b[i])
    span = high - low
    height = STRIP_HEIGHT * total / max(n, 1)
    if not (span > 0.0 and height > 0.0 and math.isfinite(span)):
        return low, 0.0, 1
    strips = int(min(span / height, n)) + 1
    return low, strips / span, strips


@compiled_only()
def _strip_boxes(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray) -> tuple:
    """The boxes ``lo``, ``hi (n, 2)`` sorted along the sweep axis (:func:`sweep_axis`), then
    dealt into strips along the other (:func:`_strip_spans`), in sweep order within each: a box
    is an entry of every strip it reaches. Returns ``(start (strips + 1,), cut, bounds (4, e),
    flags (e,) bool, body (e,) int64)``: strip ``s`` holds entries ``start[s]:start[s + 1]``,
    ``cut`` = ``(low, scale, strips)`` (see :func:`_strip_of`), entry ``k`` is body
    ``body[k]`` with bounds ``(lo_a, hi_a, lo_b, hi_b)`` in ``bounds[:, k]`` (a: the sweep
    axis) and its ``skip`` flag in ``flags[k]``. Each in an array of its own, in the order the
    sweep reads them: its inner loop reads memory in order. A box whose bounds are the wrong
    way round reaches the strips between them, as a box the right way round would: two boxes
    meet where each one's lower bound is at most the other's upper one."""
    n = lo.shape[0]
    a = sweep_axis(lo, hi)
    b = 1 - a
    order = stable_argsort(lo[:, a].copy())
    lo_b = np.empty(n)
    hi_b = np.empty(n)
    for ii in range(n):
        lo_b[ii] = lo[order[ii], b]
        hi_b[ii] = hi[order[ii], b]
    low, scale, strips = _strip_spans(lo_b, hi_b)
    reach = np.empty((2, n), dtype=np.int64)  # each box's first and last strip
    start = np.zeros(strips + 1, dtype=np.int64)
    for ii in range(n):
        reach[0, ii] = _strip_of(min(lo_b[ii], hi_b[ii]), low, scale, strips)
        reach[1, ii] = _strip_of(max(lo_b[ii], hi_b[ii]), low, scale, strips)
        for s in range(reach[0, ii], reach[1, ii] + 1):
            start[s + 1] += 1
    for s in range(strips):
        start[s + 1] += start[s]
    fill = start[:strips].copy()
    entries = start[strips]
    bounds = np.empty((4, entries))
    flags = np.empty(entries, dtype=np.bool_)
    body = np.empty(entries, dtype=np.int64)
    for ii in range(n):
        i = order[ii]
        for s in range(reach[0, ii], reach[1, ii] + 1):
            k = fill[s]
            fill[s] = k + 1
            bounds[0, k] = lo[i, a]
            bounds[1, k] = hi[i, a]
            bounds[2, k] = lo_b[ii]
            bounds[3, k] = hi_b[ii]
            flags[k] = skip[i]
            body[k] = i
    return start, (low, scale, strips), bounds, flags, body


@njit(cache=True, inline="always")
def _meet(low_i: float, high_i: float, skip_i: bool, low_j: float, high_j: float, skip_j: bool) -> bool:
    """Whether two sweep boxes, already overlapping on the sweep axis, make a pair: their
    bounds on the other axis (``low``, ``high``) overlap and they are not both skipped. Numbers,
    not arrays: an array handed to an inlined step is counted (an atomic operation) at every
    call, which made the sweep 2.5 times slower."""
    return not (skip_i and skip_j) and not (low_j > high_i or low_i > high_j)


@njit(cache=True, inline="always")
def _sorted_pairs(pairs: np.ndarray, m: int, n: int) -> np.ndarray:
    """The first ``m`` rows of ``pairs`` sorted by (i, j) in linear time: by j, then stably by i
    (a radix sort of two digits over ``n`` rows)."""
    by_j = np.empty((m, 2), dtype=np.int64)
    counting_sort(pairs, m, 1, n, by_j)
    out = np.empty((m, 2), dtype=np.int64)
    counting_sort(by_j, m, 0, n, out)
    return out


@compiled_only(**UNCOUNTED)
def _sweep_strips(strips: tuple, at: np.ndarray, pairs: np.ndarray, m: Index, capacity: Index) -> Index:
    """The sweep of :func:`candidate_pairs` over the strips ``strips`` (what
    :func:`_strip_boxes` returns) from where ``at`` = ``(strip, entry, partner, end)`` says it
    left off up to strip ``end`` (not included), each pair into row ``m``, ``m + 1``, ... of
    ``pairs``; returns the row after the last one written. It stops at a pair it has no row
    for (``m == capacity``) and leaves ``at`` there, so a call with more rows goes on from it;
    ``at[0] == at[3]`` once every strip is swept. A pair of boxes sharing several strips is
    found in the one where their overlap starts."""
    start, (low, scale, count), bounds, flags, body = strips
    s = at[0]
    k = max(at[1], start[s]) if s < at[3] else at[1]
    q = at[2]
    while s < at[3]:
        end = start[s + 1]
        while k < end:
            top_a = bounds[1, k]
            bottom_b = bounds[2, k]
            top_b = bounds[3, k]
            skip_k = flags[k]
            q = max(q, k + 1)
            while q < end:
                if bounds[0, q] > top_a:
                    break
                if _meet(bottom_b, top_b, skip_k, bounds[2, q], bounds[3, q], flags[q]) and (
                    _strip_of(max(bottom_b, bounds[2, q]), low, scale, count) == s
                ):
                    if m == capacity:
                        at[0] = s
                        at[1] = k
                        at[2] = q
                        return m
                    i = body[k]
                    j = body[q]
                    pairs[m, 0] = min(i, j)
                    pairs[m, 1] = max(i, j)
                    m += 1
                q += 1
            q = 0
            k += 1
        s += 1
        if s < at[3]:
            k = start[s]
    at[0] = s
    return m


@compiled_only()
def candidate_pairs(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """Pairs ``(i, j)``, ``i < j``, whose boxes overlap, sorted by ``i`` then ``j``.

    ``lo``, ``hi``: ``(n, 2)`` box corners; ``skip (n,) bool`` marks bodies that never need a
    pair among themselves (static, or asleep): a pair is dropped only when both are marked.
    Returns ``(m, 2) int64``. Sort and sweep along the axis the boxes spread most along
    (:func:`sweep_axis`), in strips along the other (:func:`_strip_boxes`); two boxes that
    share several strips are paired in the one where their overlap starts. The result does
    not depend on the order the bodies were sorted in, nor on the strips, so it is
    deterministic.

    At most ``MAX_PAIRS_PER_BODY * n`` pairs: a crowd (bodies heaped on one spot) would
    otherwise make n^2 / 2 of them. Past that budget the sweep stops (the pairs it had not
    reached yet are not tested this step) and ``crowd[0]`` (an ``(1,) int64`` flag) is set.
    """
    n = lo.shape[0]
    strips = _strip_boxes(lo, hi, skip)
    return _swept_pairs(strips, n, np.zeros(4, dtype=np.int64), crowd)


@njit(cache=True, inline="always")
def _swept_pairs(strips: tuple, n: int, at: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """:func:`_sweep_strips` over every strip, its rows grown as it goes up to the pair
    budget, then sorted (``at`` four int64 of scratch)."""
    budget = MAX_PAIRS_PER_BODY * n
    for r in range(3):
        at[r] = 0
    at[3] = strips[1][2]
    capacity = min(max(16, 4 * n), budget)
    pairs = np.empty((capacity, 2), dtype=np.int64)
    m = _sweep_strips(strips, at, pairs, np.int64(0), capacity)
    while at[0] < at[3]:
        if capacity == budget:
            crowd[0] = 1
            break
        capacity = min(2 * capacity, budget)
        grown = np.empty((capacity, 2), dtype=np.int64)
        # Element by element: a slice assignment checks shapes with an error message whose
        # string formatting numba compiles too (seconds of a cold start).
        for r in range(m):
            grown[r, 0] = pairs[r, 0]
            grown[r, 1] = pairs[r, 1]
        pairs = grown
        m = _sweep_strips(strips, at, pairs, m, capacity)
    return _sorted_pairs(pairs, m, n)


@compiled_only(forceinline=True, **UNCOUNTED)
def _sweep_half(
    half: int, arrays: tuple, cut: tuple, at: np.ndarray, pairs: np.ndarray, counts: np.ndarray
) -> None:
    """:func:`_sweep_strips` of half ``half`` (0, 1) of the strips ``(start, cut, bounds,
    flags, body)`` (``arrays`` the four arrays), as ``at[half]`` gives them, into that half of
    the rows of ``pairs``; how many it wrote into ``counts[half]``. Inlined by LLVM, not
    numba: stores numba inlines into a threaded loop's body can be lost."""
    start, bounds, flags, body = arrays
    rows = pairs.shape[0] // 2
    first = half * rows
    strips = (start, cut, bounds, flags, body)
    counts[half] = _sweep_strips(strips, at[half], pairs, first, first + rows) - first


@compiled_only(parallel=True)
def _sweep_halves(
    arrays: tuple, low: float, scale: float, count: int, at: np.ndarray, pairs: np.ndarray, counts: np.ndarray
) -> None:
    """:func:`_sweep_half` of both halves at once (the strips' cut as three numbers: a parallel
    loop takes no tuple of them)."""
    for half in prange(2):
        _sweep_half(half, arrays, (low, scale, count), at, pairs, counts)


@compiled_only()
def candidate_pairs_halves(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """:func:`candidate_pairs`, the same pairs, its sweep on two threads: the strips in two
    runs of about as many entries each, each swept into rows of its own (4 per box), then
    put together and sorted. Boxes making more pairs than that are swept again on one
    thread, as :func:`candidate_pairs` sweeps them (with its budget)."""
    n = lo.shape[0]
    strips = _strip_boxes(lo, hi, skip)
    start, (low, scale, count), bounds, flags, body = strips
    middle = 0
    while middle < count and 2 * start[middle] < start[count]:
        middle += 1
    at = np.zeros((2, 4), dtype=np.int64)
    at[0, 3] = middle
    at[1, 0] = middle
    at[1, 3] = count
    rows = min(max(16, 4 * n), MAX_PAIRS_PER_BODY * n)
    pairs = np.empty((2 * rows, 2), dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    _sweep_halves((start, bounds, flags, body), low, scale, count, at, pairs, counts)
    if at[0, 0] < at[0, 3] or at[1, 0] < at[1, 3]:
        return _swept_pairs(strips, n, at[0], crowd)
    m = counts[0]
    for r in range(counts[1]):  # the second half's pairs moved up behind the first's
        pairs[m + r, 0] = pairs[rows + r, 0]
        pairs[m + r, 1] = pairs[rows + r, 1]
    return _sorted_pairs(pairs, m + counts[1], n)


def warn_crowd(count: int) -> bool:
    """Warn (RuntimeWarning, from the caller of ``World.step``) that a step of a world of
    ``count`` bodies reached the pair budget of :func:`candidate_pairs`; returns True (warned)."""
    warnings.warn(
        f"World.step: more than MAX_PAIRS_PER_BODY = {MAX_PAIRS_PER_BODY} candidate pairs per body "
        f"({MAX_PAIRS_PER_BODY * count} for {count} bodies): bodies are heaped on one spot, and pairs "
        "past that budget were not tested this step (said once per world)",
        RuntimeWarning,
        stacklevel=3,
    )
    return True
