"""Ray casts and point queries (bullets, lasers, picking): Cyrus-Beck clipping done right.

A segment ``S -> E`` is the set of points ``S + t (E - S)`` for ``t`` in ``[0, 1]``. Clipping it
against a convex shape gives the sub-interval ``[t_enter, t_exit]`` that lies in the shape, the
outward unit normals at the two clip points, and whether the segment starts or ends inside.

Against a convex polygon (3+ vertices, world-space, CCW) this is Cyrus-Beck over the whole line
first, then clipped to ``[0, 1]``: so a segment that starts inside is *reported* as starting
inside (the original left that normal uninitialised, ORIGINAL_DEMO.md section 4.9), the
parallel case keeps a segment lying exactly on an edge (touching counts as a hit), and the
numerator/denominator are named for what they are.

Points and segments have no inside of their own; they are hit when the cast passes within
``radius`` of them (a disc, or a capsule around the segment). With ``radius == 0`` a segment
is hit where the cast crosses it (normal facing the cast's start, exit normal the opposite) and
a point only when it lies exactly on the cast (normals ``-d`` and ``+d``, ``d`` the unit cast
direction). ``radius`` is ignored for polygons. There is no default closeness in world units:
the caller, who knows the scale of its world and of its view, says how close counts (a few
pixels' worth of world units for picking with a mouse).

The kernels here are compiled with numba; :func:`clip_segment` is the checked public face of
one cast against one shape, ``World.raycast``, ``raycast_all`` and ``query_point`` that of the
world's (:class:`RayHit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from collision import checks
from collision.bodies import Bodies
from collision.geometry import closest_point_on_segment, stable_argsort
from collision.kernels import compiled_only
from collision.shapes import check_vertices
from collision.tolerances import MAX_COORDINATE

# -------------------------------------------------------------------------------------------
# Compiled steps. Each returns the interval of the cast's *line* parameter t that lies in the
# shape, (t_lo, t_hi), with t_lo > t_hi meaning "misses"; infinite bounds when the line never
# leaves the shape (zero-length casts).
# -------------------------------------------------------------------------------------------


@compiled_only()
def _line_in_polygon(
    sx: float, sy: float, dx: float, dy: float, verts: np.ndarray
) -> tuple[float, float, float, float, float, float]:
    """Cyrus-Beck on the whole line: (t_lo, t_hi, enter normal x, y, exit normal x, y), normals unit."""
    k = verts.shape[0]
    t_lo = -math.inf
    t_hi = math.inf
    nlx = 0.0
    nly = 0.0
    nhx = 0.0
    nhy = 0.0
    for i in range(k):
        ax = verts[i, 0]
        ay = verts[i, 1]
        j = i + 1 if i + 1 < k else 0
        # Outward (unnormalised) normal of edge i of a CCW polygon.
        nx = verts[j, 1] - ay
        ny = ax - verts[j, 0]
        # Inside the edge's half-plane: (p - a) . n <= 0. Along the line that reads
        # distance + t * rate <= 0.
        distance = (sx - ax) * nx + (sy - ay) * ny
        rate = dx * nx + dy * ny
        if rate == 0.0:
            if distance > 0.0:
                return 1.0, 0.0, 0.0, 0.0, 0.0, 0.0  # parallel and outside: misses
            continue
        t = -distance / rate
        if rate < 0.0:
            if t > t_lo:
                t_lo = t
                nlx = nx
                nly = ny
        elif t < t_hi:
            t_hi = t
            nhx = nx
            nhy = ny
    ln = math.hypot(nlx, nly)
    if ln > 0.0:
        nlx /= ln
        nly /= ln
    ln = math.hypot(nhx, nhy)
    if ln > 0.0:
        nhx /= ln
        nhy /= ln
    return t_lo, t_hi, nlx, nly, nhx, nhy


@compiled_only()
def _line_in_disc(
    sx: float, sy: float, dx: float, dy: float, cx: float, cy: float, r: float
) -> tuple[float, float]:
    """Interval of t where |S + t d - C| <= r."""
    fx = sx - cx
    fy = sy - cy
    a = dx * dx + dy * dy
    c = fx * fx + fy * fy - r * r
    if a == 0.0:
        if c <= 0.0:
            return -math.inf, math.inf
        return 1.0, 0.0
    half_b = fx * dx + fy * dy
    # half_b^2 - a c, written as a r^2 - (f x d)^2 (Lagrange's identity): the textbook form
    # subtracts two nearly equal huge terms for a long cast (1e9 units) and reported hits
    # passing a whole unit from a 0.25 disc.
    across = fx * dy - fy * dx
    disc = a * (r * r) - across * across
    if disc < 0.0:
        return 1.0, 0.0
    root = math.sqrt(disc)
    # The stable pair of roots (no cancellation between -half_b and root).
    q = -half_b - root if half_b >= 0.0 else -half_b + root
    if q == 0.0:
        return 0.0, 0.0
    t1 = q / a
    t2 = c / q
    if t1 > t2:
        t1, t2 = t2, t1
    return t1, t2


@compiled_only()
def _line_in_slab(
    sx: float, sy: float, dx: float, dy: float, ax: float, ay: float, bx: float, by: float, r: float
) -> tuple[float, float]:
    """Interval of t inside the rectangle of half-width r around segment a-b (r > 0, a != b)."""
    ux = bx - ax
    uy = by - ay
    length = math.hypot(ux, uy)
    if length == 0.0:  # a segment that rounding collapsed: its capsule is its end discs
        return 1.0, 0.0
    ux /= length
    uy /= length
    # Four half-planes: along u in [0, length], across (n = (uy, -ux)) in [-r, r].
    along0 = (sx - ax) * ux + (sy - ay) * uy
    along_rate = dx * ux + dy * uy
    across0 = (sx - ax) * uy - (sy - ay) * ux
    across_rate = dx * uy - dy * ux
    t_lo = -math.inf
    t_hi = math.inf
    for value, rate, lo, hi in ((along0, along_rate, 0.0, length), (across0, across_rate, -r, r)):
        if rate == 0.0:
            if value < lo or value > hi:
                return 1.0, 0.0
            continue
        t1 = (lo - value) / rate
        t2 = (hi - value) / rate
        if t1 > t2:
            t1, t2 = t2, t1
        t_lo = max(t_lo, t1)
        t_hi = min(t_hi, t2)
    return t_lo, t_hi


@njit(cache=True, inline="always")
def _core_normal(
    px: float, py: float, ax: float, ay: float, bx: float, by: float, fx: float, fy: float
) -> tuple[float, float]:
    """Outward unit normal of a disc or capsule with core segment ``a``-``b`` at its boundary
    point ``p``: away from the core's closest point. ``(fx, fy)`` where that gives no
    direction (``p`` on the core, or not finite: an end of the line that is never reached)."""
    if not (math.isfinite(px) and math.isfinite(py)):
        return fx, fy
    qx, qy, _ = closest_point_on_segment(px, py, ax, ay, bx, by)
    ln = math.hypot(px - qx, py - qy)
    if ln > 0.0:
        return (px - qx) / ln, (py - qy) / ln
    return fx, fy


@compiled_only()
def _line_near_core(
    sx: float, sy: float, dx: float, dy: float, verts: np.ndarray, radius: float
) -> tuple[float, float, float, float, float, float]:
    """Line against a point (k=1) or segment (k=2) inflated by ``radius`` (disc or capsule)."""
    ax = verts[0, 0]
    ay = verts[0, 1]
    bx = verts[verts.shape[0] - 1, 0]
    by = verts[verts.shape[0] - 1, 1]
    dlen = math.hypot(dx, dy)
    ux = dx / dlen if dlen > 0.0 else 0.0
    uy = dy / dlen if dlen > 0.0 else 0.0
    if radius > 0.0:
        t_lo, t_hi = _line_in_disc(sx, sy, dx, dy, ax, ay, radius)
        if verts.shape[0] == 2:
            lo2, hi2 = _line_in_disc(sx, sy, dx, dy, bx, by, radius)
            lo3, hi3 = _line_in_slab(sx, sy, dx, dy, ax, ay, bx, by, radius)
            # The three parts overlap (the capsule is convex): the union's ends are the extremes
            # over the parts the line meets.
            lo = math.inf
            hi = -math.inf
            for plo, phi in ((t_lo, t_hi), (lo2, hi2), (lo3, hi3)):
                if plo <= phi:
                    lo = min(lo, plo)
                    hi = max(hi, phi)
            t_lo = lo
            t_hi = hi
        if t_lo > t_hi:
            return 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
        nlx, nly = _core_normal(sx + t_lo * dx, sy + t_lo * dy, ax, ay, bx, by, -ux, -uy)
        nhx, nhy = _core_normal(sx + t_hi * dx, sy + t_hi * dy, ax, ay, bx, by, ux, uy)
        return t_lo, t_hi, nlx, nly, nhx, nhy
    # radius == 0: exact crossing tests with exact zero checks (no tolerance: the target has no
    # thickness, so "near" is not a hit).
    ex = bx - ax
    ey = by - ay
    denom = dx * ey - dy * ex
    wx = ax - sx
    wy = ay - sy
    if denom != 0.0:
        # Lines cross at one point: t along the cast, s along the target.
        t = (wx * ey - wy * ex) / denom
        s = (wx * dy - wy * dx) / denom
        if verts.shape[0] == 1 or s < 0.0 or s > 1.0:
            return 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
        nx = ey
        ny = -ex
        ln = math.hypot(nx, ny)
        nx /= ln
        ny /= ln
        # Face the start; a start on the target's line faces back along the cast.
        side = (sx - ax) * nx + (sy - ay) * ny
        if side < 0.0 or (side == 0.0 and nx * dx + ny * dy > 0.0):
            nx = -nx
            ny = -ny
        return t, t, nx, ny, -nx, -ny
    # Parallel (or a point target, or a zero-length cast): the target must lie on the cast's line.
    if wx * dy - wy * dx != 0.0:
        return 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
    dd = dx * dx + dy * dy
    if dd == 0.0:
        # Zero-length cast: a point query.
        qx, qy, _ = closest_point_on_segment(sx, sy, ax, ay, bx, by)
        if qx == sx and qy == sy:
            return -math.inf, math.inf, 0.0, 0.0, 0.0, 0.0
        return 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
    ta = (wx * dx + wy * dy) / dd
    tb = ((bx - sx) * dx + (by - sy) * dy) / dd
    return min(ta, tb), max(ta, tb), -ux, -uy, ux, uy


@njit(cache=True)
def clip_segment_kernel(
    sx: float, sy: float, ex: float, ey: float, verts: np.ndarray, radius: float
) -> tuple[bool, float, float, float, float, float, float, bool, bool]:
    """Clip segment S -> E against one world-space shape ``verts (k, 2)`` (CCW).

    Returns ``(hit, t_enter, t_exit, nex, ney, nxx, nxy, starts_inside, ends_inside)``: ``t`` are
    fractions of the segment in [0, 1]; ``(nex, ney)`` is the unit outward normal where the
    segment enters (zeros when it starts inside), ``(nxx, nxy)`` where it exits (zeros when it
    ends inside). ``radius`` (units) inflates points (k=1) and segments (k=2) only.
    """
    dx = ex - sx
    dy = ey - sy
    if verts.shape[0] >= 3:
        t_lo, t_hi, nlx, nly, nhx, nhy = _line_in_polygon(sx, sy, dx, dy, verts)
    else:
        t_lo, t_hi, nlx, nly, nhx, nhy = _line_near_core(sx, sy, dx, dy, verts, radius)
    if t_lo > t_hi or t_lo > 1.0 or t_hi < 0.0:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, False, False
    starts_inside = t_lo < 0.0
    ends_inside = t_hi > 1.0
    if starts_inside:
        t_lo = 0.0
        nlx = 0.0
        nly = 0.0
    if ends_inside:
        t_hi = 1.0
        nhx = 0.0
        nhy = 0.0
    return True, t_lo, t_hi, nlx, nly, nhx, nhy, starts_inside, ends_inside


@compiled_only()
def _cast_one(
    sx: float, sy: float, ex: float, ey: float, verts: np.ndarray, radius: float
) -> tuple[bool, float, float, float]:
    """(hit, t, nx, ny) where the cast *enters* one body; a body it starts inside is not hit."""
    hit, t_enter, _t_exit, nx, ny, _a, _b, starts_inside, _ends = clip_segment_kernel(
        sx, sy, ex, ey, verts, radius
    )
    return hit and not starts_inside, t_enter, nx, ny


@njit(cache=True)
def raycast_all_kernel(
    sx: float,
    sy: float,
    ex: float,
    ey: float,
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    skip: np.ndarray,
    radius: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every body the segment S -> E meets: ``(bodies (h,) int64, t (h,) in [0, 1], normal (h,
    2))`` sorted by t, ties in body order (so the nearest body is the first).

    ``world_vertices (n, MAX_VERTICES, 2)``, ``vertex_count (n,) int64``, ``skip (n,) bool``
    (bodies left out, e.g. the shooter). ``radius`` inflates points and segments only. Only bodies
    the segment enters through their surface count (as in Box2D's ray casts): a body the segment
    starts inside, or leaves from a start on its border, is not hit; a start on the border moving
    inward is hit at ``t = 0``. ``normal`` is the unit outward normal where it enters.
    """
    n = world_vertices.shape[0]
    bodies = np.empty(n, dtype=np.int64)
    ts = np.empty(n, dtype=np.float64)
    normals = np.empty((n, 2), dtype=np.float64)
    h = 0
    for i in range(n):
        if skip[i]:
            continue
        hit, t, nx, ny = _cast_one(sx, sy, ex, ey, world_vertices[i, : vertex_count[i]], radius)
        if hit:
            bodies[h] = i
            ts[h] = t
            normals[h, 0] = nx
            normals[h, 1] = ny
            h += 1
    order = stable_argsort(ts[:h].copy())
    return bodies[:h][order], ts[:h][order], normals[:h][order]


@compiled_only()
def point_inside(verts: np.ndarray, k: int, px: float, py: float, radius: float) -> bool:
    """Whether point (px, py) lies in the shape ``verts[:k]`` (CCW, on its border counts);
    points (k=1) and segments (k=2) count within ``radius``."""
    if k <= 2:
        cx, cy, _ = closest_point_on_segment(
            px, py, verts[0, 0], verts[0, 1], verts[k - 1, 0], verts[k - 1, 1]
        )
        dx = px - cx
        dy = py - cy
        return dx * dx + dy * dy <= radius * radius
    has_edge = False
    for e in range(k):
        ax = verts[e, 0]
        ay = verts[e, 1]
        bx = verts[(e + 1) % k, 0]
        by = verts[(e + 1) % k, 1]
        has_edge = has_edge or ax != bx or ay != by
        # CCW polygon: the point is inside when it is left of (or on) every edge.
        if (bx - ax) * (py - ay) - (by - ay) * (px - ax) < 0.0:
            return False
    # A polygon that rounding collapsed to one point (a small body far from the origin) holds
    # only that point, not every point.
    return has_edge or (px == verts[0, 0] and py == verts[0, 1])


@njit(cache=True)
def query_point_kernel(
    world_vertices: np.ndarray, vertex_count: np.ndarray, px: float, py: float, radius: float
) -> np.ndarray:
    """Indices (ascending, int64) of the bodies containing point (px, py); points and segments
    count when within ``radius``."""
    n = vertex_count.shape[0]
    found = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if point_inside(world_vertices[i], vertex_count[i], px, py, radius):
            found[m] = i
            m += 1
    return found[:m].copy()


# -------------------------------------------------------------------------------------------
# Public face
# -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RayHit:
    """A ray (segment) hit in a world: ``body`` index, ``t`` fraction along start->end in
    [0, 1], ``point (2,)`` where it enters, ``normal (2,)`` unit outward normal of the surface hit."""

    body: int
    t: float
    point: np.ndarray
    normal: np.ndarray


@dataclass(frozen=True)
class SegmentHit:
    """Where a segment S -> E lies in a shape.

    ``t_enter <= t_exit`` are fractions of the segment in [0, 1]; ``point_enter``/``point_exit``
    ``(2,) float64`` are ``S + t (E - S)``; ``normal_enter``/``normal_exit`` ``(2,) float64`` are
    unit outward normals of the shape there, ``None`` where the segment starts/ends inside.
    """

    t_enter: float
    t_exit: float
    point_enter: np.ndarray
    point_exit: np.ndarray
    normal_enter: np.ndarray | None
    normal_exit: np.ndarray | None

    @property
    def starts_inside(self) -> bool:
        return self.normal_enter is None

    @property
    def ends_inside(self) -> bool:
        return self.normal_exit is None


def clip_segment(start: Any, end: Any, vertices: Any, radius: float = 0.0) -> SegmentHit | None:
    """Clip the segment ``start -> end`` (each ``(2,)``) against a world-space shape.

    ``vertices`` ``(k, 2)`` or a :class:`~collision.Polygon`: a point, a segment or a convex
    polygon. ``radius`` (units, 0 to ``MAX_COORDINATE``) inflates a point into a disc and a
    segment into a capsule; polygons ignore it. Returns None when the segment misses.

    >>> hit = clip_segment((-2.0, 0.0), (2.0, 0.0), [[-1, -1], [1, -1], [1, 1], [-1, 1]])
    >>> hit.t_enter, hit.t_exit, hit.normal_enter.tolist(), hit.normal_exit.tolist()
    (0.25, 0.75, [-1.0, 0.0], [1.0, 0.0])
    """
    s = checks.point(start, "start")
    e = checks.point(end, "end")
    verts = check_vertices(vertices, "vertices")
    r = checks.number(radius, "radius", minimum=0.0, maximum=MAX_COORDINATE)
    hit, t_enter, t_exit, nex, ney, nxx, nxy, starts_inside, ends_inside = clip_segment_kernel(
        s[0], s[1], e[0], e[1], verts, r
    )
    if not hit:
        return None
    d = e - s
    return SegmentHit(
        t_enter=float(t_enter),
        t_exit=float(t_exit),
        point_enter=s + t_enter * d,
        point_exit=s + t_exit * d,
        # "+ 0.0" turns -0.0 into 0.0 so normals print cleanly.
        normal_enter=None if starts_inside else np.array([nex, ney]) + 0.0,
        normal_exit=None if ends_inside else np.array([nxx, nxy]) + 0.0,
    )


def cast_ray(
    rows: Bodies, start: np.ndarray, end: np.ndarray, skip: np.ndarray, every: bool, radius: float
) -> list[RayHit]:
    """The bodies of ``rows`` (world vertices current) the segment ``start`` -> ``end (2,)``
    enters, nearest first: the nearest only, or with ``every`` all of them (a compound once, at
    its nearest part's hit). Rows marked in ``skip (n,) bool`` are left out; points and segments
    are hit within ``radius`` (units, >= 0); a compound is reported by its root."""
    wv = rows.world_vertices
    sx, sy, ex, ey = start[0], start[1], end[0], end[1]
    bodies, ts, normals = raycast_all_kernel(sx, sy, ex, ey, wv, rows.vertex_count, skip, radius)
    hits: list[RayHit] = []
    seen = set()
    for b, t, nrm in zip(bodies, ts, normals, strict=True):
        r = int(rows.root[b])
        if r in seen:  # a compound: its nearest part's hit only
            continue
        seen.add(r)
        hits.append(RayHit(r, float(t), start + float(t) * (end - start), np.array(nrm, dtype=np.float64)))
        if not every:
            break
    return hits


def bodies_at(rows: Bodies, p: np.ndarray, radius: float) -> list[int]:
    """Indices (ascending) of the bodies of ``rows`` (world vertices current) containing point
    ``p (2,)``; points and segments count within ``radius`` (units, >= 0); a compound by its
    root."""
    found = query_point_kernel(rows.world_vertices, rows.vertex_count, p[0], p[1], radius)
    return sorted({int(rows.root[i]) for i in found})
