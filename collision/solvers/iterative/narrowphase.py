"""Narrowphase of the iterative solver: this step's contact points, in pair order.

1. broadphase over bounding boxes swept over the step and grown by the speculative distance,
   its pairs cached over grown boxes while bodies rest (:func:`cached_pairs`);
2. a manifold (collision/manifold.py) per candidate pair with a speculative distance that grows
   with the pair's closing speed over the step, so a pair that can touch within the step gets
   its points now, with positive separation (:func:`collide`);
3. cracks: points on a static face that neighbouring static bodies cover (the side of a tile
   flush with the next) are on an internal edge of the static world, not a surface; they are
   dropped (collision/solvers/iterative/cracks.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, prange

from collision.bodies import Bodies
from collision.broadphase import (
    candidate_pairs,
    candidate_pairs_halves,
    swept_bounds,
    transform_and_bound_threaded,
    transform_vertices,
)
from collision.geometry import UNCOUNTED, Index, slot
from collision.kernels import compiled_only, stage
from collision.manifold import edge_normals, manifold_kernel
from collision.refit import REFIT_SHARE, grown_box, refit_pairs
from collision.solvers.iterative.cracks import drop_internal_edges
from collision.solvers.iterative.points import Points
from collision.solvers.protocol import StepContext
from collision.tolerances import BROADPHASE_LEAD_STEPS, MAX_PAIRS_PER_BODY

#: Fewest candidate pairs whose manifolds are found on several threads (when the step has them).
PARALLEL_PAIRS = 2048


@compiled_only()
def cached_pairs(
    lo: np.ndarray,
    hi: np.ndarray,
    skip: np.ndarray,
    fat_lo: np.ndarray,
    fat_hi: np.ndarray,
    fat_skip: np.ndarray,
    fat_valid: np.ndarray,
    fat_pairs: np.ndarray,
    grow: tuple,
    crowd: np.ndarray,
    threads: int | None,
) -> tuple[np.ndarray, np.ndarray]:
    """``candidate_pairs(lo, hi, skip)``, exactly, from a cache that bodies at rest keep valid.

    The cache holds boxes grown around the bounds they were built from by ``grow`` =
    ``(margin, lead)``: ``margin`` (units) on every side, and each body's ``lead (n, 2)`` (its
    travel over the next steps, units) on the side it moves toward (see :func:`grown_box`)
    (``fat_lo``, ``fat_hi (n, 2)``, with ``fat_skip (n,)``; ``fat_valid (1,) bool``) and
    the pairs of those boxes (``fat_pairs``, a superset). While every box stays inside its
    fat box and no skip flag changes, the pairs are the fat pairs whose tight boxes overlap
    (the same test, in the same (i, j) order). When a few bodies (at most one in REFIT_SHARE)
    left their fat boxes or changed flags, only theirs are grown again and their pairs found
    again (``refit_pairs``, on ``threads`` threads when two or more; None: a small world's,
    see :func:`collide`); when more did, the cache is rebuilt, its sweep on two threads when
    ``threads`` is two or more (``candidate_pairs_halves``; within the pair budget: ``crowd``
    is the step context's flag, see ``candidate_pairs``). Returns
    ``(pairs (m, 2), fat_pairs)`` (the fat pairs to keep for next step).
    """
    n = lo.shape[0]
    escaped = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if (
            skip[i] != fat_skip[i]
            or lo[i, 0] < fat_lo[i, 0]
            or lo[i, 1] < fat_lo[i, 1]
            or hi[i, 0] > fat_hi[i, 0]
            or hi[i, 1] > fat_hi[i, 1]
        ):
            escaped[k] = i
            k += 1
    budget = MAX_PAIRS_PER_BODY * n
    # A cache cut short at the budget is kept while nothing leaves it, never refitted.
    rebuild = not fat_valid[0] or k * REFIT_SHARE > n or (k > 0 and fat_pairs.shape[0] >= budget)
    if k > 0 and not rebuild:
        fat = (fat_lo, fat_hi, fat_skip, fat_pairs)
        fat_pairs = refit_pairs(escaped[:k], lo, hi, skip, fat, grow, threads)
        # Past the budget the rebuild's sweep stops where candidate_pairs does, and says so.
        rebuild = fat_pairs.shape[0] > budget
    if rebuild:
        for i in range(n):
            grown_box(lo, hi, grow, fat_lo, fat_hi, i)
            fat_skip[i] = skip[i]
        if threads is None:
            fat_pairs = candidate_pairs(fat_lo, fat_hi, skip, crowd)
        elif threads < 2:
            fat_pairs = candidate_pairs(fat_lo, fat_hi, skip, crowd)
        else:
            fat_pairs = candidate_pairs_halves(fat_lo, fat_hi, skip, crowd)
        fat_valid[0] = True
    kept = np.empty_like(fat_pairs)
    # np.int64(0), not a literal: _meeting_span would be compiled for it besides the halves' int64.
    if threads is None:
        m = _meeting_span(fat_pairs, (lo, hi), kept, np.int64(0), fat_pairs.shape[0])
    elif threads < 2:
        m = _meeting_span(fat_pairs, (lo, hi), kept, np.int64(0), fat_pairs.shape[0])
    else:
        spans = np.empty((2, 2), dtype=np.int64)  # each half's first row and how many it kept
        _meeting_halves(fat_pairs, lo, hi, kept, spans)
        m = spans[0, 1]
        for q in range(spans[1, 1]):  # the second half's pairs moved up behind the first's
            kept[m + q, 0] = kept[spans[1, 0] + q, 0]
            kept[m + q, 1] = kept[spans[1, 0] + q, 1]
        m += spans[1, 1]
    return kept[:m], fat_pairs


@compiled_only(**UNCOUNTED)
def _meeting_span(fat_pairs: np.ndarray, bounds: tuple, kept: np.ndarray, start: int, end: int) -> Index:
    """The pairs ``start .. end - 1`` of ``fat_pairs (f, 2)`` whose boxes ``bounds`` = ``(lo,
    hi) (n, 2)`` meet (touching included), in order, into the rows of ``kept (f, 2)`` from
    ``start``; returns how many. Every pair is written and the count moves on by the test:
    about as many meet as not, and a branch on it would be guessed wrong half the time."""
    lo, hi = bounds
    m: Index = np.int64(start)
    for p in range(start, end):
        i = fat_pairs[p, 0]
        j = fat_pairs[p, 1]
        kept[m, 0] = i
        kept[m, 1] = j
        along_x = (lo[j, 0] <= hi[i, 0]) & (lo[i, 0] <= hi[j, 0])
        m += np.int64(along_x & (lo[j, 1] <= hi[i, 1]) & (lo[i, 1] <= hi[j, 1]))
    return m - start


@compiled_only(forceinline=True, **UNCOUNTED)
def _meeting_half(
    half: int, fat_pairs: np.ndarray, lo: np.ndarray, hi: np.ndarray, kept: np.ndarray, spans: np.ndarray
) -> None:
    """:func:`_meeting_span` of half ``half`` (0, 1) of ``fat_pairs``; its first row and count
    into ``spans[half]``. Inlined by LLVM, not numba: stores numba inlines into a threaded
    loop's body can be lost."""
    f = fat_pairs.shape[0]
    start = half * f // 2
    spans[half, 0] = start
    spans[half, 1] = _meeting_span(fat_pairs, (lo, hi), kept, start, (half + 1) * f // 2)


@compiled_only(parallel=True)
def _meeting_halves(
    fat_pairs: np.ndarray, lo: np.ndarray, hi: np.ndarray, kept: np.ndarray, spans: np.ndarray
) -> None:
    """:func:`_meeting_span` over the two halves of ``fat_pairs`` at once, each into its own
    rows of ``kept`` (see :func:`_meeting_half`)."""
    for half in prange(2):
        _meeting_half(half, fat_pairs, lo, hi, kept, spans)


@stage()
def broadphase(
    bodies: Bodies, context: StepContext, settings: Any, cache: tuple, moving: np.ndarray,
    dynamic: np.ndarray, threads: int | None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """World vertices refreshed, then the step's candidate pairs from the broadphase cache
    ``cache`` = ``(state, fat_pairs)``: the solver's state, whose grown boxes are updated in
    place, and the cache's pairs as the last broadphase left them (the state's between steps;
    within a step, what the step's first broadphase returned: its grown boxes and its pairs go
    together). Returns ``(pairs (m, 2), fat_pairs)``. Bodies that do not move (``moving (n,)
    bool``) need no pair among themselves. With compounds or kinematic bodies, pairs of rows of
    one body and pairs where neither row is ``dynamic (n,) bool`` (kinematic against kinematic
    or static) are dropped. Without ``context.continuous`` the boxes are not swept. The vertices,
    the boxes, the cache's refit and its filter on ``threads`` threads when two or more (None: a
    small world's); a rebuild's sweep on two of them."""
    state, fat_pairs = cache
    n = bodies.position.shape[0]
    wv = bodies.world_vertices
    pose = (bodies.local_vertices, bodies.vertex_count, bodies.position, bodies.angle)
    lo = np.empty((n, 2))
    hi = np.empty((n, 2))
    sweep = (
        bodies.velocity, bodies.angular_velocity, bodies.radius, context.dt if context.continuous else 0.0,
        settings.speculative_distance,
    )  # fmt: skip
    if threads is None:
        transform_vertices(*pose, wv)
        swept_bounds(wv, bodies.vertex_count, *sweep, lo, hi)
    elif threads < 2:
        transform_vertices(*pose, wv)
        swept_bounds(wv, bodies.vertex_count, *sweep, lo, hi)
    else:
        transform_and_bound_threaded(*pose, wv, sweep, (lo, hi))
    skip = np.empty(n, dtype=np.bool_)
    # Grown boxes lead their bodies by the next steps' travel: a falling body otherwise leaves
    # its box every step and the whole cache is sorted and swept again.
    lead = np.zeros((n, 2))
    reach = context.dt * BROADPHASE_LEAD_STEPS
    for i in range(n):
        skip[i] = not moving[i]
        if moving[i]:
            lead[i, 0] = bodies.velocity[i, 0] * reach
            lead[i, 1] = bodies.velocity[i, 1] * reach
    pairs, fat_pairs = cached_pairs(
        lo,
        hi,
        skip,
        state.fat_lo,
        state.fat_hi,
        state.fat_skip,
        state.fat_valid,
        fat_pairs,
        (settings.broadphase_margin, lead),
        context.crowd,
        threads,
    )
    if context.has_compounds or context.has_kinematic:
        root = bodies.root
        own = 0
        for p in range(pairs.shape[0]):
            i = pairs[p, 0]
            j = pairs[p, 1]
            if root[i] != root[j] and (dynamic[i] or dynamic[j]):
                pairs[own, 0] = i
                pairs[own, 1] = j
                own += 1
        pairs = pairs[:own]
    return pairs, fat_pairs


@compiled_only()
def body_reach(bodies: Bodies, moving: np.ndarray, dt: float) -> np.ndarray:
    """``(n, 3)`` per row what :func:`collide`'s closing reach reads: its velocity (x, y) and the
    chord its rotation can sweep within the step (``min(|w| dt, 2) * radius``), all 0 for a
    row that does not move (``moving (n,) bool``). Gathered once, so a pair reads one short
    row per body instead of four arrays."""
    n = bodies.position.shape[0]
    velocity = bodies.velocity
    angular_velocity = bodies.angular_velocity
    radius = bodies.radius
    motion = np.zeros((n, 3))
    for i in range(n):
        if moving[i]:
            motion[i, 0] = velocity[i, 0]
            motion[i, 1] = velocity[i, 1]
            motion[i, 2] = min(abs(angular_velocity[i]) * dt, 2.0) * radius[i]
    return motion


@stage()
def collide(
    bodies: Bodies,
    context: StepContext,
    settings: Any,
    pairs: np.ndarray,
    moving: np.ndarray,
    threads: int | None,
) -> tuple[Points, int]:
    """The manifold of every pair of ``pairs`` (rows; world vertices current), reaching
    ``settings.speculative_distance`` plus, with ``context.continuous``, how far the pair can
    close within the step, on ``threads`` threads when there are two or more and at least
    PARALLEL_PAIRS pairs (None: a small world's step, whose specialisation does not even
    compile the threaded loop: numba drops the branch for a None argument before typing).
    Returns the points (in pair order, whatever the threads) and how many there are."""
    n = bodies.position.shape[0]
    wv = bodies.world_vertices
    m = pairs.shape[0]
    world_normals = np.empty_like(wv)
    has_normals = np.zeros(n, dtype=np.bool_)
    capacity = 2 * m
    # Rows of three arrays, not six (an allocation costs as much as a pair's manifold).
    index = np.empty((2, capacity), dtype=np.int64)
    vectors = np.empty((3, capacity, 2))
    points = Points(index[0], index[1], vectors[0], vectors[1], vectors[2], np.empty(capacity))
    continuous = context.continuous
    motion = body_reach(bodies, moving, context.dt) if continuous else np.zeros((0, 3))
    shapes = (wv, bodies.vertex_count)
    reach = (motion, continuous, context.dt, settings.speculative_distance)
    normals = (world_normals, has_normals)
    # ``threads is None`` alone, not folded into the next test: numba drops the branches it
    # rules out only for that exact form, so a small world's step never types the threaded loop.
    if threads is None:
        c = _serial_manifolds(shapes, pairs, reach, normals, points)
    elif threads < 2 or m < PARALLEL_PAIRS:
        c = _serial_manifolds(shapes, pairs, reach, normals, points)
    else:
        c = _threaded_manifolds(shapes, pairs, reach, normals, points)
    c = drop_internal_edges(bodies, world_normals, pairs, points, c)
    return points, int(c)


@njit(cache=True, inline="always")
def _serial_manifolds(
    shapes: tuple, pairs: np.ndarray, reach: tuple, normals: tuple, points: Points
) -> Index:
    """:func:`_pair_manifolds` with a scratch of its own (one thread)."""
    room = np.empty((5, 2))
    scratch = (room[0:2], room[2:4], room[4], np.empty(2, dtype=np.int64))
    return _pair_manifolds(shapes, pairs, reach, normals, points, scratch)


@compiled_only()
def _threaded_manifolds(
    shapes: tuple, pairs: np.ndarray, reach: tuple, normals: tuple, points: Points
) -> Index:
    """:func:`_serial_manifolds` on numba's threads: each pair's points into two slots of its
    own (:func:`_pair_manifolds_threaded`), then listed in pair order (:func:`_gather_slots`):
    the same points in the same order."""
    m = pairs.shape[0]
    capacity = 2 * m
    slots = Points(
        np.empty(0, dtype=np.int64),
        np.empty(capacity, dtype=np.int64),
        np.empty((capacity, 2)),
        np.empty((capacity, 2)),
        np.empty((m, 2)),
        np.empty(capacity),
    )
    counts = np.empty(m, dtype=np.int64)
    _pair_manifolds_threaded(shapes, pairs, reach, normals, slots, counts)
    # The second half's pairs' points go after the first half's.
    first = np.int64(0)
    for p in range(m // 2):
        first += counts[p]
    _gather_halves(slots, counts, points, first)
    return first + counts[m // 2 :].sum()


# Without numba's reference counting (UNCOUNTED, see collision/geometry.py), so that the views
# of each pair's rows and the arrays handed to the manifold are not counted at every pair:
# collide keeps the allocations.
@compiled_only(**UNCOUNTED)
def _pair_manifolds(
    shapes: tuple, pairs: np.ndarray, reach: tuple, normals: tuple, points: Points, scratch: tuple
) -> Index:
    """:func:`collide`'s loop over ``pairs (m, 2)``: the manifold of each pair, from the world
    vertices ``shapes`` = ``(wv (n, MAX_VERTICES, 2), vertex_count (n,))``, reaching ``reach``
    = ``(motion, continuous, dt, speculative)``: ``speculative`` (units) plus, with
    ``continuous``, how far the pair can close within ``dt`` (s) at the speeds ``motion (n,
    3)`` (see :func:`body_reach`). Writes the edge normals of the paired bodies into
    ``normals`` = ``(world_normals, has_normals)`` (like ``wv``; ``has_normals (n,) bool`` all
    False on entry marks them), the points into ``points`` (room for 2 m, in pair order),
    using ``scratch`` (one pair's ``point_a``, ``point_b (2, 2)``, ``separation (2,)``, ``key
    (2,) int64``). Returns how many points there are."""
    wv, vertex_count = shapes
    motion, continuous, dt, speculative = reach
    world_normals, has_normals = normals
    pair_index, key, point_a, point_b, normal, separation = points
    pa, pb, ps, pk = scratch
    m = pairs.shape[0]
    # Edge normals only of bodies in some pair (a resting pile's static walls and far bodies
    # need none); rows past a body's vertex count are never read.
    for p in range(m):
        for side in range(2):
            i = slot(pairs[p, side])
            if not has_normals[i]:
                has_normals[i] = True
                edge_normals(wv[i], vertex_count[i], world_normals[i])
    c: Index = np.int64(0)  # not a literal: drop_internal_edges is compiled for int64 only
    for p in range(m):
        i = slot(pairs[p, 0])
        j = slot(pairs[p, 1])
        closing = 0.0
        if continuous:
            # How far the pair can close within the step: the relative translation plus the
            # chord each rotation can sweep.
            vx = motion[i, 0] - motion[j, 0]
            vy = motion[i, 1] - motion[j, 1]
            closing = math.sqrt(vx * vx + vy * vy) * dt + motion[i, 2] + motion[j, 2]
        count, nx, ny = manifold_kernel(
            wv[i], world_normals[i], vertex_count[i], wv[j], world_normals[j], vertex_count[j],
            speculative + closing, pa, pb, ps, pk,
        )  # fmt: skip
        for q in range(count):
            pair_index[c] = p
            key[c] = pk[q]
            point_a[c, 0] = pa[q, 0]
            point_a[c, 1] = pa[q, 1]
            point_b[c, 0] = pb[q, 0]
            point_b[c, 1] = pb[q, 1]
            normal[c, 0] = nx
            normal[c, 1] = ny
            separation[c] = ps[q]
            c += 1
    return c


@compiled_only(parallel=True, **UNCOUNTED)
def _pair_manifolds_threaded(
    shapes: tuple, pairs: np.ndarray, reach: tuple, normals: tuple, slots: Points, counts: np.ndarray
) -> None:
    """:func:`_pair_manifolds` on numba's threads: pair ``p``'s points go to rows ``2 p`` and
    ``2 p + 1`` of ``slots`` (its normal to row ``p``; ``pair_index`` unused), their number to
    ``counts[p]``; :func:`_gather_slots` then lists them in pair order, as the serial loop
    does."""
    wv, vertex_count = shapes
    motion, continuous, dt, speculative = reach
    world_normals, has_normals = normals
    _, key, point_a, point_b, normal, separation = slots
    n = has_normals.shape[0]
    m = pairs.shape[0]
    for p in range(m):
        has_normals[pairs[p, 0]] = True
        has_normals[pairs[p, 1]] = True
    for i in prange(n):
        if has_normals[i]:
            edge_normals(wv[i], vertex_count[i], world_normals[i])
    for p in prange(m):
        i = pairs[p, 0]
        j = pairs[p, 1]
        closing = 0.0
        if continuous:
            vx = motion[i, 0] - motion[j, 0]
            vy = motion[i, 1] - motion[j, 1]
            closing = math.sqrt(vx * vx + vy * vy) * dt + motion[i, 2] + motion[j, 2]
        s = 2 * p
        count, nx, ny = manifold_kernel(
            wv[i], world_normals[i], vertex_count[i], wv[j], world_normals[j], vertex_count[j],
            speculative + closing,
            point_a[s : s + 2], point_b[s : s + 2], separation[s : s + 2], key[s : s + 2],
        )  # fmt: skip
        counts[p] = count
        normal[p, 0] = nx
        normal[p, 1] = ny


@compiled_only(forceinline=True, **UNCOUNTED)
def _gather_half(half: int, slots: Points, counts: np.ndarray, points: Points, first: Index) -> None:
    """:func:`_gather_slots` of half ``half`` (0, 1) of the pairs, the second half's points
    from row ``first`` (the first half's count). Inlined by LLVM, not numba: stores numba
    inlines into a threaded loop's body can be lost."""
    m = counts.shape[0]
    span = (half * (m // 2), m if half else m // 2)
    _gather_slots(slots, counts, points, span, first if half else np.int64(0))


@compiled_only(parallel=True)
def _gather_halves(slots: Points, counts: np.ndarray, points: Points, first: Index) -> None:
    """:func:`_gather_half` of both halves of the pairs at once (the records are arguments of
    their own: numba's parallel loop cannot rebuild one unpacked from a tuple)."""
    for half in prange(2):
        _gather_half(half, slots, counts, points, first)


@compiled_only(**UNCOUNTED)
def _gather_slots(slots: Points, counts: np.ndarray, points: Points, span: tuple, c: Index) -> Index:
    """The points of :func:`_pair_manifolds_threaded`'s slots of the pairs ``span`` = ``(first,
    end)`` into ``points`` from row ``c``, in pair order; returns the row after them."""
    for p in range(span[0], span[1]):
        for q in range(counts[p]):
            s = 2 * p + q
            points.pair_index[c] = p
            points.key[c] = slots.key[s]
            points.point_a[c, 0] = slots.point_a[s, 0]
            points.point_a[c, 1] = slots.point_a[s, 1]
            points.point_b[c, 0] = slots.point_b[s, 0]
            points.point_b[c, 1] = slots.point_b[s, 1]
            points.normal[c, 0] = slots.normal[p, 0]
            points.normal[c, 1] = slots.normal[p, 1]
            points.separation[c] = slots.separation[s]
            c += 1
    return c
