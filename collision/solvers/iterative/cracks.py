"""Cracks: contact points on internal faces of the static world, dropped (seed 002's crack
problem for persistent contacts).

A static body's face is internal where the other static bodies a moving body is paired with
cover it (the side of a tile flush with its neighbour): a body sliding over the tiles would
otherwise catch the next tile's side with its leading corner, settled a hair below the tops.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from collision.bodies import Bodies
from collision.geometry import Index
from collision.kernels import compiled_only
from collision.solvers.iterative.points import Points
from collision.tolerances import CRACK_COVER_RELATIVE_DISTANCE, CRACK_RELATIVE_LENGTH


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
def _static_partners(static: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The static bodies each moving body is paired with: ``(offsets (n + 1,), partners,
    mixed)``, row ``i``'s in ``partners[offsets[i]:offsets[i + 1]]``, and ``mixed`` the pairs
    (rows of ``pairs``, ascending) of a static body and a moving one; ``partners`` and
    ``mixed`` are empty when no body has two (none of its faces can then be covered by
    another)."""
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
        return offsets, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    partners = np.empty(offsets[n], dtype=np.int64)
    mixed = np.empty(offsets[n], dtype=np.int64)
    q = 0
    for p in range(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        if static[i] != static[j]:
            m = j if static[i] else i
            degree[m] -= 1
            partners[offsets[m] + degree[m]] = i if static[i] else j
            mixed[q] = p
            q += 1
    return offsets, partners, mixed


@compiled_only()
def _first_point(pair_index: np.ndarray, c: Index, p: Index, low: Index) -> Index:
    """The first of the points ``pair_index[:c]`` (ascending) at or after ``low`` whose pair is
    ``p`` or later (binary search)."""
    high = c
    while low < high:
        middle = (low + high) // 2
        if pair_index[middle] < p:
            low = middle + 1
        else:
            high = middle
    return low


@compiled_only()
def _on_covered_face(
    bodies: Bodies, world_normals: np.ndarray, points: Points, k: Index, pair: tuple, partnered: tuple,
    room: tuple,
) -> bool:  # fmt: skip
    """Whether point ``k`` of the pair ``pair`` = ``(s, m, static_b)`` (its static body, its
    moving one, whether the static one is B) lies on a face of ``s`` that the other static
    bodies paired with ``m`` (``partnered`` = ``(offsets, partners)``, see
    :func:`_static_partners`) cover (see :func:`drop_internal_edges`); ``room`` = ``(lo,
    hi)`` holds one interval per partner."""
    s, m, static_b = pair
    offsets, partners = partnered
    cover_lo, cover_hi = room
    wv = bodies.world_vertices
    count = bodies.vertex_count
    # The static face the point is on: the one facing the other body (the manifold's
    # normal runs from B toward A).
    sign = 1.0 if static_b else -1.0
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
        return False
    on_s = points.point_b if static_b else points.point_a
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
        return False
    exposed = math.inf
    if lo > slack:
        exposed = at - lo
    if hi < 1.0 - slack:
        exposed = min(exposed, hi - at)
    return exposed > CRACK_RELATIVE_LENGTH


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
    count = bodies.vertex_count
    pair_index = points.pair_index
    offsets, partners, mixed = _static_partners(static, pairs)
    if partners.shape[0] == 0:
        return c
    keep = np.ones(c, dtype=np.bool_)
    room = (np.empty(partners.shape[0]), np.empty(partners.shape[0]))
    dropped = False
    # Pair by pair over the pairs of a static body and a moving one: most of a big world's
    # points are between moving bodies, and a pass over them all cost more than the rest.
    first: Index = np.int64(0)
    for q in range(mixed.shape[0]):
        p = mixed[q]
        i = pairs[p, 0]
        j = pairs[p, 1]
        s = j if static[j] else i
        m = i if static[j] else j
        if count[s] < 3 or offsets[m + 1] - offsets[m] < 2:
            continue  # no other static body to cover a face of this one
        first = _first_point(pair_index, c, p, first)
        for k in range(first, c):
            if pair_index[k] != p:
                break
            if _on_covered_face(
                bodies, world_normals, points, k, (s, m, static[j]), (offsets, partners), room
            ):
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
