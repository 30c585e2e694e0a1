"""Broadphase: candidate pairs from bounding boxes swept over the step (sort and sweep).

Every function here is compiled with numba and works on the world's structure-of-arrays
state. Shapes: ``n`` bodies, ``MAX_VERTICES`` vertex slots per body.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numba import njit, prange

from collision.geometry import stable_argsort
from collision.kernels import compiled_only
from collision.tolerances import MAX_PAIRS_PER_BODY


@njit(cache=True, inline="always")
def _transform_body(
    local_vertices: np.ndarray, vertex_count: np.ndarray, position: np.ndarray, angle: np.ndarray,
    out: np.ndarray, i: int,
) -> None:  # fmt: skip
    """Body ``i``'s world-space vertices into ``out[i]`` (see :func:`transform_vertices`)."""
    c = math.cos(angle[i])
    s = math.sin(angle[i])
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


@njit(cache=True, inline="always")
def _sorted_boxes(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray) -> tuple:
    """The boxes ``lo``, ``hi (n, 2)`` sorted along the sweep axis (:func:`sweep_axis`):
    ``(order, lo_a, hi_a, lo_b, hi_b, skip_sorted)``, box ``ii`` of the sweep being body
    ``order[ii]``, its bounds on the sweep axis (a) and the other (b) and its ``skip`` flag,
    each in an array of its own: the sweep's inner loop then reads memory in order instead of
    through ``order``."""
    n = lo.shape[0]
    a = sweep_axis(lo, hi)
    b = 1 - a
    order = stable_argsort(lo[:, a].copy())
    lo_a = np.empty(n)
    hi_a = np.empty(n)
    lo_b = np.empty(n)
    hi_b = np.empty(n)
    skip_sorted = np.empty(n, dtype=np.bool_)
    for ii in range(n):
        i = order[ii]
        lo_a[ii] = lo[i, a]
        hi_a[ii] = hi[i, a]
        lo_b[ii] = lo[i, b]
        hi_b[ii] = hi[i, b]
        skip_sorted[ii] = skip[i]
    return order, lo_a, hi_a, lo_b, hi_b, skip_sorted


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


@compiled_only()
def candidate_pairs(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """Pairs ``(i, j)``, ``i < j``, whose boxes overlap, sorted by ``i`` then ``j``.

    ``lo``, ``hi``: ``(n, 2)`` box corners; ``skip (n,) bool`` marks bodies that never need a
    pair among themselves (static, or asleep): a pair is dropped only when both are marked.
    Returns ``(m, 2) int64``. Sort and sweep along the axis the boxes spread most along
    (:func:`sweep_axis`); the result does not depend on the order the bodies were sorted in,
    so it is deterministic.

    At most ``MAX_PAIRS_PER_BODY * n`` pairs: a crowd (bodies heaped on one spot) would
    otherwise make n^2 / 2 of them. Past that budget the sweep stops (the pairs it had not
    reached yet are not tested this step) and ``crowd[0]`` (an ``(1,) int64`` flag) is set.
    """
    n = lo.shape[0]
    budget = MAX_PAIRS_PER_BODY * n
    order, lo_a, hi_a, lo_b, hi_b, skip_sorted = _sorted_boxes(lo, hi, skip)
    capacity = min(max(16, 4 * n), budget)
    pairs = np.empty((capacity, 2), dtype=np.int64)
    m = 0
    full = False
    for ii in range(n):
        if full:
            break
        top_a = hi_a[ii]
        bottom_b = lo_b[ii]
        top_b = hi_b[ii]
        skip_i = skip_sorted[ii]
        for jj in range(ii + 1, n):
            if lo_a[jj] > top_a:
                break
            if not _meet(bottom_b, top_b, skip_i, lo_b[jj], hi_b[jj], skip_sorted[jj]):
                continue
            i = order[ii]
            j = order[jj]
            if m == capacity:
                if capacity == budget:
                    crowd[0] = 1
                    full = True
                    break
                capacity = min(2 * capacity, budget)
                grown = np.empty((capacity, 2), dtype=np.int64)
                # Element by element: a slice assignment checks shapes with an error message
                # whose string formatting numba compiles too (seconds of a cold start).
                for q in range(m):
                    grown[q, 0] = pairs[q, 0]
                    grown[q, 1] = pairs[q, 1]
                pairs = grown
            if i < j:
                pairs[m, 0] = i
                pairs[m, 1] = j
            else:
                pairs[m, 0] = j
                pairs[m, 1] = i
            m += 1
    return _sorted_pairs(pairs, m, n)


@compiled_only(parallel=True)
def candidate_pairs_threaded(
    lo: np.ndarray, hi: np.ndarray, skip: np.ndarray, crowd: np.ndarray
) -> np.ndarray:
    """:func:`candidate_pairs` with the sweep on numba's threads: each box's pairs counted, then
    written at their offsets, in parallel; the same pairs. Past the pair budget, the
    one-thread sweep (which stops where the budget is reached and sets ``crowd[0]``)."""
    n = lo.shape[0]
    order, lo_a, hi_a, lo_b, hi_b, skip_sorted = _sorted_boxes(lo, hi, skip)
    counts = np.zeros(n + 1, dtype=np.int64)
    for ii in prange(n):
        k = 0
        for jj in range(ii + 1, n):
            if lo_a[jj] > hi_a[ii]:
                break
            if _meet(lo_b[ii], hi_b[ii], skip_sorted[ii], lo_b[jj], hi_b[jj], skip_sorted[jj]):
                k += 1
        counts[ii + 1] = k
    for ii in range(n):
        counts[ii + 1] += counts[ii]
    m = int(counts[n])
    if m > MAX_PAIRS_PER_BODY * n:
        return candidate_pairs(lo, hi, skip, crowd)
    pairs = np.empty((m, 2), dtype=np.int64)
    for ii in prange(n):
        q = counts[ii]
        for jj in range(ii + 1, n):
            if lo_a[jj] > hi_a[ii]:
                break
            if _meet(lo_b[ii], hi_b[ii], skip_sorted[ii], lo_b[jj], hi_b[jj], skip_sorted[jj]):
                i = order[ii]
                j = order[jj]
                pairs[q, 0] = min(i, j)
                pairs[q, 1] = max(i, j)
                q += 1
    return _sorted_pairs(pairs, m, n)


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
