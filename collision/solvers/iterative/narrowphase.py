"""Narrowphase of the iterative solver: this step's contact points, in pair order.

1. broadphase over bounding boxes swept over the step and grown by the speculative distance,
   its pairs cached over grown boxes while bodies rest (:func:`cached_pairs`);
2. a manifold (collision/manifold.py) per candidate pair with a speculative distance that grows
   with the pair's closing speed over the step, so a pair that can touch within the step gets
   its points now, with positive separation (:func:`collide`);
3. cracks: points on a static face that neighbouring static bodies cover (the side of a tile
   flush with the next) are on an internal edge of the static world, not a surface; they are
   dropped (:func:`drop_internal_edges`).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.bodies import Bodies
from collision.broadphase import REFIT_SHARE, candidate_pairs, refit_pairs, swept_bounds, transform_vertices
from collision.geometry import UNCOUNTED, Index
from collision.kernels import compiled_only
from collision.manifold import edge_normals, manifold_kernel
from collision.solvers.protocol import StepContext
from collision.tolerances import CRACK_COVER_RELATIVE_DISTANCE, CRACK_RELATIVE_LENGTH, MAX_PAIRS_PER_BODY


class Points(NamedTuple):
    """A step's contact points (room for two per pair, the first ``c`` used): ``pair_index``
    (the pair of each point), ``key (., ) int64`` (its feature key, see collision/manifold.py),
    ``point_a``, ``point_b``, ``normal (., 2)`` (unit, from B toward A), ``separation (.,)``
    (units, negative when overlapping)."""

    pair_index: np.ndarray
    key: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    normal: np.ndarray
    separation: np.ndarray


@njit(cache=True)
def cached_pairs(
    lo: np.ndarray,
    hi: np.ndarray,
    skip: np.ndarray,
    fat_lo: np.ndarray,
    fat_hi: np.ndarray,
    fat_skip: np.ndarray,
    fat_valid: np.ndarray,
    fat_pairs: np.ndarray,
    fat_margin: float,
    crowd: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``candidate_pairs(lo, hi, skip)``, exactly, from a cache that bodies at rest keep valid.

    The cache holds boxes grown by ``fat_margin`` (units) around the bounds they were built
    from (``fat_lo``, ``fat_hi (n, 2)``, with ``fat_skip (n,)``; ``fat_valid (1,) bool``) and
    the pairs of those boxes (``fat_pairs``, a superset). While every box stays inside its
    fat box and no skip flag changes, the pairs are the fat pairs whose tight boxes overlap
    (the same test, in the same (i, j) order). When a few bodies (at most one in REFIT_SHARE)
    left their fat boxes or changed flags, only theirs are grown again and their pairs found
    again (``refit_pairs``); when more did, the cache is rebuilt (within the pair budget:
    ``crowd`` is the step context's flag, see ``candidate_pairs``). Returns
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
        fat_pairs = refit_pairs(escaped[:k], lo, hi, skip, fat, fat_margin)
        # Past the budget the rebuild's sweep stops where candidate_pairs does, and says so.
        rebuild = fat_pairs.shape[0] > budget
    if rebuild:
        for i in range(n):
            fat_lo[i, 0] = lo[i, 0] - fat_margin
            fat_lo[i, 1] = lo[i, 1] - fat_margin
            fat_hi[i, 0] = hi[i, 0] + fat_margin
            fat_hi[i, 1] = hi[i, 1] + fat_margin
            fat_skip[i] = skip[i]
        fat_pairs = candidate_pairs(fat_lo, fat_hi, skip, crowd)
        fat_valid[0] = True
    keep = np.empty(fat_pairs.shape[0], dtype=np.bool_)
    m = 0
    for p in range(fat_pairs.shape[0]):
        i = fat_pairs[p, 0]
        j = fat_pairs[p, 1]
        keep[p] = (
            lo[j, 0] <= hi[i, 0] and lo[i, 0] <= hi[j, 0] and lo[j, 1] <= hi[i, 1] and lo[i, 1] <= hi[j, 1]
        )
        if keep[p]:
            m += 1
    pairs = np.empty((m, 2), dtype=np.int64)
    m = 0
    for p in range(fat_pairs.shape[0]):
        if keep[p]:
            pairs[m, 0] = fat_pairs[p, 0]
            pairs[m, 1] = fat_pairs[p, 1]
            m += 1
    return pairs, fat_pairs


# Inlined by numba into the step: its IR is a few calls, while a kernel of its own would
# link, optimise and compile the cache and the sweep once more (seconds of a cold start).
@njit(cache=True, inline="always")
def broadphase(
    bodies: Bodies, context: StepContext, settings: Any, cache: tuple, moving: np.ndarray, dynamic: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """World vertices refreshed, then the step's candidate pairs from the broadphase cache
    ``cache`` = ``(state, fat_pairs)``: the solver's state, whose grown boxes are updated in
    place, and the cache's pairs as the last broadphase left them (the state's between steps;
    within a step, what the step's first broadphase returned: its grown boxes and its pairs go
    together). Returns ``(pairs (m, 2), fat_pairs)``. Bodies that do not move (``moving (n,)
    bool``) need no pair among themselves. With compounds or kinematic bodies, pairs of rows of
    one body and pairs where neither row is ``dynamic (n,) bool`` (kinematic against kinematic
    or static) are dropped. Without ``context.continuous`` the boxes are not swept."""
    state, fat_pairs = cache
    n = bodies.position.shape[0]
    wv = bodies.world_vertices
    transform_vertices(bodies.local_vertices, bodies.vertex_count, bodies.position, bodies.angle, wv)
    lo = np.empty((n, 2))
    hi = np.empty((n, 2))
    swept_bounds(
        wv,
        bodies.vertex_count,
        bodies.velocity,
        bodies.angular_velocity,
        bodies.radius,
        context.dt if context.continuous else 0.0,
        settings.speculative_distance,
        lo,
        hi,
    )
    skip = np.empty(n, dtype=np.bool_)
    for i in range(n):
        skip[i] = not moving[i]
    pairs, fat_pairs = cached_pairs(
        lo,
        hi,
        skip,
        state.fat_lo,
        state.fat_hi,
        state.fat_skip,
        state.fat_valid,
        fat_pairs,
        settings.broadphase_margin,
        context.crowd,
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


@compiled_only()
def collide(
    bodies: Bodies, context: StepContext, settings: Any, pairs: np.ndarray, moving: np.ndarray
) -> tuple[Points, int]:
    """The manifold of every pair of ``pairs`` (rows; world vertices current), reaching
    ``settings.speculative_distance`` plus, with ``context.continuous``, how far the pair can
    close within the step. Returns the points (in pair order) and how many there are."""
    n = bodies.position.shape[0]
    wv = bodies.world_vertices
    m = pairs.shape[0]
    world_normals = np.empty_like(wv)
    has_normals = np.zeros(n, dtype=np.bool_)
    capacity = 2 * m
    points = Points(
        np.empty(capacity, dtype=np.int64),
        np.empty(capacity, dtype=np.int64),
        np.empty((capacity, 2)),
        np.empty((capacity, 2)),
        np.empty((capacity, 2)),
        np.empty(capacity),
    )
    continuous = context.continuous
    motion = body_reach(bodies, moving, context.dt) if continuous else np.zeros((0, 3))
    scratch = (np.empty((2, 2)), np.empty((2, 2)), np.empty(2), np.empty(2, dtype=np.int64))
    c = _pair_manifolds(
        wv, bodies.vertex_count, pairs, motion, continuous, context.dt, settings.speculative_distance,
        world_normals, has_normals, points, scratch,
    )  # fmt: skip
    c = drop_internal_edges(bodies, world_normals, pairs, points, c)
    return points, int(c)


# Without numba's reference counting (UNCOUNTED, see collision/geometry.py), so that the views
# of each pair's rows and the arrays handed to the manifold are not counted at every pair:
# collide keeps the allocations.
@compiled_only(**UNCOUNTED)
def _pair_manifolds(
    wv: np.ndarray,
    vertex_count: np.ndarray,
    pairs: np.ndarray,
    motion: np.ndarray,
    continuous: bool,
    dt: float,
    speculative: float,
    world_normals: np.ndarray,
    has_normals: np.ndarray,
    points: Points,
    scratch: tuple,
) -> Index:
    """:func:`collide`'s loop over ``pairs (m, 2)``: the manifold of each pair, from the world
    vertices ``wv (n, MAX_VERTICES, 2)`` (``vertex_count (n,)``), reaching ``speculative``
    (units) plus, with ``continuous``, how far the pair can close within ``dt`` (s) at the
    speeds ``motion (n, 3)`` (see :func:`body_reach`). Writes the edge normals of the paired
    bodies into ``world_normals`` (like ``wv``; ``has_normals (n,) bool`` all False on entry
    marks them), the points into ``points`` (room for 2 m, in pair order), using ``scratch``
    (one pair's ``point_a``, ``point_b (2, 2)``, ``separation (2,)``, ``key (2,) int64``).
    Returns how many points there are."""
    pair_index, key, point_a, point_b, normal, separation = points
    pa, pb, ps, pk = scratch
    m = pairs.shape[0]
    # Edge normals only of bodies in some pair (a resting pile's static walls and far bodies
    # need none); rows past a body's vertex count are never read.
    for p in range(m):
        for side in range(2):
            i = pairs[p, side]
            if not has_normals[i]:
                has_normals[i] = True
                edge_normals(wv[i], vertex_count[i], world_normals[i])
    c: Index = np.int64(0)  # not a literal: drop_internal_edges is compiled for int64 only
    for p in range(m):
        i = pairs[p, 0]
        j = pairs[p, 1]
        reach = 0.0
        if continuous:
            # How far the pair can close within the step: the relative translation plus the
            # chord each rotation can sweep.
            vx = motion[i, 0] - motion[j, 0]
            vy = motion[i, 1] - motion[j, 1]
            reach = math.sqrt(vx * vx + vy * vy) * dt + motion[i, 2] + motion[j, 2]
        count, nx, ny = manifold_kernel(
            wv[i], world_normals[i], vertex_count[i], wv[j], world_normals[j], vertex_count[j],
            speculative + reach, pa, pb, ps, pk,
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


@njit(cache=True, inline="always")
def _facing_edge(normals: np.ndarray, count: int, nx: float, ny: float) -> int:
    """The edge of a shape (``count`` edge ``normals``) whose outward normal is closest to (nx, ny)."""
    best = 0
    most = -math.inf
    for e in range(count):
        d = normals[e, 0] * nx + normals[e, 1] * ny
        if d > most:
            most = d
            best = e
    return best


@njit(cache=True, inline="always")
def _clip_to_shape(
    v: np.ndarray, normals: np.ndarray, count: int, x: float, y: float, dx: float, dy: float
) -> tuple[float, float]:
    """The part ``(t0, t1)`` of the segment (x, y) + t (dx, dy), 0 <= t <= 1, inside the convex
    shape ``v`` (``count`` >= 3 vertices, edge ``normals``); t0 > t1 when none is."""
    t0 = 0.0
    t1 = 1.0
    for e in range(count):
        start = (x - v[e, 0]) * normals[e, 0] + (y - v[e, 1]) * normals[e, 1]
        rate = dx * normals[e, 0] + dy * normals[e, 1]
        if rate == 0.0:
            if start > 0.0:
                return 1.0, 0.0
        elif rate > 0.0:
            t1 = min(t1, -start / rate)
        else:
            t0 = max(t0, -start / rate)
    return t0, t1


@compiled_only()
def _static_partners(static: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The static bodies each moving body is paired with: ``(offsets (n + 1,), partners)``, row
    ``i``'s in ``partners[offsets[i]:offsets[i + 1]]``; ``partners`` is empty when no body has
    two (none of its faces can then be covered by another)."""
    n = static.shape[0]
    degree = np.zeros(n, dtype=np.int64)
    for p in range(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        if static[i] != static[j]:
            degree[j if static[i] else i] += 1
    offsets = np.zeros(n + 1, dtype=np.int64)
    several = False
    for i in range(n):
        offsets[i + 1] = offsets[i] + degree[i]
        several = several or degree[i] > 1
    if not several:
        return offsets, np.empty(0, dtype=np.int64)
    partners = np.empty(offsets[n], dtype=np.int64)
    for p in range(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        if static[i] != static[j]:
            m = j if static[i] else i
            degree[m] -= 1
            partners[offsets[m] + degree[m]] = i if static[i] else j
    return offsets, partners


@compiled_only()
def drop_internal_edges(
    bodies: Bodies, world_normals: np.ndarray, pairs: np.ndarray, points: Points, c: Index
) -> Index:
    """Seed 002's crack problem for persistent contacts: drops the points where a moving body
    touches an internal face of the static world (``points`` in pair order, the first ``c``
    used; ``world_normals`` of every paired body). A static body's face is internal where the
    other static bodies the moving body is paired with cover it (the side of a tile flush with
    its neighbour): a body sliding over the tiles would otherwise catch the next tile's side
    with its leading corner, settled a hair below the tops. A point is dropped when the run of
    covered face around it reaches no uncovered part of the face within CRACK_RELATIVE_LENGTH
    of the face's length: a real step, a wall standing in a floor, or a gap a corner can enter
    (wider than CRACK_COVER_RELATIVE_DISTANCE), are still met. Compacts ``points`` in place;
    returns the new count."""
    static = bodies.static
    wv = bodies.world_vertices
    count = bodies.vertex_count
    pair_index = points.pair_index
    offsets, partners = _static_partners(static, pairs)
    if partners.shape[0] == 0:
        return c
    keep = np.ones(c, dtype=np.bool_)
    cover_lo = np.empty(partners.shape[0])
    cover_hi = np.empty(partners.shape[0])
    dropped = False
    for k in range(c):
        p = pair_index[k]
        i = pairs[p, 0]
        j = pairs[p, 1]
        if static[i] == static[j]:
            continue
        s = j if static[j] else i
        m = i if static[j] else j
        if count[s] < 3 or offsets[m + 1] - offsets[m] < 2:
            continue  # no other static body to cover a face of this one
        # The static face the point is on: the one facing the other body (the manifold's
        # normal runs from B toward A).
        sign = 1.0 if static[j] else -1.0
        e = _facing_edge(world_normals[s], count[s], sign * points.normal[k, 0], sign * points.normal[k, 1])
        f = e + 1 if e + 1 < count[s] else 0
        fnx = world_normals[s, e, 0]
        fny = world_normals[s, e, 1]
        # The face, moved a hair outward, so a flush neighbour's face is inside the other body.
        reach = CRACK_COVER_RELATIVE_DISTANCE * bodies.radius[s]
        x = wv[s, e, 0] + reach * fnx
        y = wv[s, e, 1] + reach * fny
        dx = wv[s, f, 0] - wv[s, e, 0]
        dy = wv[s, f, 1] - wv[s, e, 1]
        length = math.hypot(dx, dy)
        if length == 0.0:
            continue
        on_s = points.point_b if static[j] else points.point_a
        at = ((on_s[k, 0] - wv[s, e, 0]) * dx + (on_s[k, 1] - wv[s, e, 1]) * dy) / (length * length)
        at = min(max(at, 0.0), 1.0)
        covers = 0
        for r in range(offsets[m], offsets[m + 1]):
            other = partners[r]
            if other == s or count[other] < 3:
                continue
            t0, t1 = _clip_to_shape(wv[other], world_normals[other], count[other], x, y, dx, dy)
            if t0 <= t1:
                cover_lo[covers] = t0
                cover_hi[covers] = t1
                covers += 1
        # The run of covered face around the point, across touching covers.
        slack = reach / length
        lo = at
        hi = at
        grown = True
        inside = False
        while grown:
            grown = False
            for q in range(covers):
                if cover_lo[q] <= hi + slack and cover_hi[q] >= lo - slack:
                    inside = inside or (cover_lo[q] - slack <= at <= cover_hi[q] + slack)
                    if cover_lo[q] < lo or cover_hi[q] > hi:
                        lo = min(lo, cover_lo[q])
                        hi = max(hi, cover_hi[q])
                        grown = True
        if not inside:
            continue
        exposed = math.inf
        if lo > slack:
            exposed = at - lo
        if hi < 1.0 - slack:
            exposed = min(exposed, hi - at)
        if exposed > CRACK_RELATIVE_LENGTH:
            keep[k] = False
            dropped = True
    if not dropped:
        return c
    kept = 0
    for k in range(c):
        if keep[k]:
            if kept != k:
                pair_index[kept] = pair_index[k]
                points.key[kept] = points.key[k]
                points.separation[kept] = points.separation[k]
                for d in range(2):
                    points.point_a[kept, d] = points.point_a[k, d]
                    points.point_b[kept, d] = points.point_b[k, d]
                    points.normal[kept, d] = points.normal[k, d]
            kept += 1
    return kept
