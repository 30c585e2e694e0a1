"""Separating axes: Tutorials 1, 2, 3 and 5 (``intersect``, ``find_mtd``, ``sweep``).

Shapes are world-space vertex arrays ``(k, 2) float64``, counter-clockwise: 1 vertex is a
point, 2 a segment, 3 or more a convex polygon. (Tutorial 5's rotations are handled the
way the tutorial recommends for 2D: transform both shapes to world space first.)

The test, in one picture. A moved by ``s`` touches B exactly when ``s`` lies in the
configuration-space obstacle ``D = B - A``, a convex polygon whose faces come from the
shapes' faces: each edge of B (outward normal ``m``) and each edge of A (outward normal
``n``, seen from B as ``-n``). A segment has four faces (both sides, both ends); a point
none. So the shapes overlap when, for every face of either shape, the other shape reaches
past it: its lowest point along the face's normal is not above the face (Tutorials 1-2's
interval test, one side per face; the other side of each interval is some other face's
job). Moving A by ``velocity * t``, that gap changes linearly in ``t``: each face gives one
bound on ``t`` (an earliest entry or a latest exit), and A touches B at time ``t`` only if
every bound holds at that same ``t``. The answer is ``max(entry) <= min(exit)`` within
``[0, t_max]``: exact for translating shapes. (The tutorial took the latest entry but never
compared it with the earliest exit, so a diagonal mover could "hit" a box it passes
beside.) Tutorial 3's axis perpendicular to the velocity is kept as a cheap early out.

The face of the latest entry gives a future hit's normal; the face of least overlap gives
an overlapping pair's depth and normal (Tutorial 2's minimum translation distance), each
oriented from B toward A by which shape the face belongs to, never by the shapes' centres.

Conventions: normals are unit and point from B toward A; ``a + depth * normal`` separates.
Touching (overlap of exactly zero) counts as a hit of depth 0.
Point against point: two points touch only when they are at exactly the same place (at
time 0, or on the way when the relative motion passes exactly through the other point).
Two coincident points at rest have no defined normal; they report ``(0, 1)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from collision.shapes import check_vertices
from collision.tolerances import AXIS_SPEED_EPSILON, VELOCITY_AXIS_EPSILON_SQ

# --------------------------------------------------------------------------------------
# Compiled steps
# --------------------------------------------------------------------------------------


@njit(cache=True)
def project(vertices: np.ndarray, nx: float, ny: float) -> tuple[float, float]:
    """Interval ``(lo, hi)`` of ``vertices (k, 2)`` projected on the axis ``(nx, ny)``."""
    lo = vertices[0, 0] * nx + vertices[0, 1] * ny
    hi = lo
    for i in range(1, vertices.shape[0]):
        d = vertices[i, 0] * nx + vertices[i, 1] * ny
        lo = min(lo, d)
        hi = max(hi, d)
    return lo, hi


@njit(cache=True)
def lowest(vertices: np.ndarray, nx: float, ny: float) -> float:
    """Lowest projection of ``vertices (k, 2)`` on the axis ``(nx, ny)``."""
    lo = vertices[0, 0] * nx + vertices[0, 1] * ny
    for i in range(1, vertices.shape[0]):
        lo = min(lo, vertices[i, 0] * nx + vertices[i, 1] * ny)
    return lo


@njit(cache=True)
def face_count(k: int) -> int:
    """Faces of a shape of ``k`` vertices: none for a point; both sides and both ends of a
    segment; one per edge of a polygon."""
    if k == 1:
        return 0
    if k == 2:
        return 4
    return k


@njit(cache=True)
def face(vertices: np.ndarray, f: int) -> tuple[float, float, float]:
    """Face ``f`` of a shape as ``(nx, ny, h)``: outward normal, not normalised (its length
    is the edge's), and the face's height ``h`` along it (the shape's highest projection).

    Polygon face ``f`` is the edge from vertex ``f`` to ``f + 1``. Segment faces are its two
    sides (0, 1) and its two ends (2: past vertex 1, 3: before vertex 0).
    """
    k = vertices.shape[0]
    if k == 2:
        x0 = vertices[0, 0]
        y0 = vertices[0, 1]
        ex = vertices[1, 0] - x0
        ey = vertices[1, 1] - y0
        if f == 0:
            return ey, -ex, x0 * ey - y0 * ex
        if f == 1:
            return -ey, ex, y0 * ex - x0 * ey
        if f == 2:
            return ex, ey, vertices[1, 0] * ex + vertices[1, 1] * ey
        return -ex, -ey, -(x0 * ex + y0 * ey)
    g = f + 1 if f + 1 < k else 0
    x0 = vertices[f, 0]
    y0 = vertices[f, 1]
    nx = vertices[g, 1] - y0
    ny = x0 - vertices[g, 0]
    return nx, ny, x0 * nx + y0 * ny


@njit(cache=True)
def preferred_axis(nx: float, ny: float, bx: float, by: float) -> bool:
    """Tie-break between two different lines with exactly the same score: True if ``n``
    wins over ``b``. It ignores their signs, so swapping A and B picks the same line."""
    if nx < 0.0 or (nx == 0.0 and ny < 0.0):
        nx = -nx
        ny = -ny
    if bx < 0.0 or (bx == 0.0 and by < 0.0):
        bx = -bx
        by = -by
    if nx != bx:
        return nx > bx
    return ny > by


@njit(cache=True)
def _mean_offset(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean of A's vertices minus mean of B's."""
    ax = 0.0
    ay = 0.0
    for i in range(a.shape[0]):
        ax += a[i, 0]
        ay += a[i, 1]
    bx = 0.0
    by = 0.0
    for i in range(b.shape[0]):
        bx += b[i, 0]
        by += b[i, 1]
    return ax / a.shape[0] - bx / b.shape[0], ay / a.shape[0] - by / b.shape[0]


@njit(cache=True)
def depth_tie_wins(a: np.ndarray, b: np.ndarray, nx: float, ny: float, bx: float, by: float) -> bool:
    """Exact tie of two depth candidates (oriented normals ``n`` and the current ``b``):
    True if ``n`` should win. Different lines: :func:`preferred_axis`. The same line in
    opposite directions (A centred on B across it, or segments lying along each other):
    the side A's vertices lean to, so that swapping A and B flips the answer."""
    if nx * by - ny * bx != 0.0:
        return preferred_axis(nx, ny, bx, by)
    if nx * bx + ny * by > 0.0:
        return False
    cx, cy = _mean_offset(a, b)
    lean = nx * cx + ny * cy
    if lean != 0.0:
        return lean > 0.0
    # No lean across the line: pick by the order of the means along x, then y.
    side = cx if cx != 0.0 else cy
    canonical = nx > 0.0 or (nx == 0.0 and ny > 0.0)
    return canonical == (side > 0.0)


@njit(cache=True)
def intersect_kernel(a: np.ndarray, b: np.ndarray) -> bool:
    """True if shapes ``a (ka, 2)`` and ``b (kb, 2)`` overlap or touch (Tutorial 1)."""
    ka = a.shape[0]
    kb = b.shape[0]
    if ka == 1 and kb == 1:
        return a[0, 0] == b[0, 0] and a[0, 1] == b[0, 1]
    fa = face_count(ka)
    for f in range(fa + face_count(kb)):
        if f < fa:
            nx, ny, h = face(a, f)
            if lowest(b, nx, ny) > h:
                return False
        else:
            nx, ny, h = face(b, f - fa)
            if lowest(a, nx, ny) > h:
                return False
    return True


@njit(cache=True)
def _point_point_sweep(
    a: np.ndarray, b: np.ndarray, vx: float, vy: float, t_max: float
) -> tuple[bool, float, float, float, float]:
    """Two points: they meet only by passing exactly through each other."""
    dx = a[0, 0] - b[0, 0]
    dy = a[0, 1] - b[0, 1]
    speed_sq = vx * vx + vy * vy
    moving = speed_sq > VELOCITY_AXIS_EPSILON_SQ
    nx = 0.0
    ny = 1.0
    if moving:
        inv = 1.0 / math.sqrt(speed_sq)
        nx = -vx * inv
        ny = -vy * inv
    if dx == 0.0 and dy == 0.0:
        return True, nx, ny, 0.0, 0.0
    if not moving or dx * vy - dy * vx != 0.0:
        return False, 0.0, 0.0, 0.0, 0.0
    t = -(dx * vx + dy * vy) / speed_sq
    if t < 0.0 or t > t_max:
        return False, 0.0, 0.0, 0.0, 0.0
    return True, nx, ny, t, 0.0


@njit(cache=True)
def sweep_kernel(
    a: np.ndarray, b: np.ndarray, vx: float, vy: float, t_max: float
) -> tuple[bool, float, float, float, float]:
    """Swept separating-axis test (Tutorials 2 and 3, corrected).

    ``a (ka, 2)``, ``b (kb, 2)``: world-space CCW vertices at time 0. ``(vx, vy)``: velocity
    of A relative to B (units per unit time). ``t_max > 0``: end of the interval.
    Returns ``(hit, nx, ny, t, depth)``: ``(nx, ny)`` unit, from B toward A; ``t`` in
    ``[0, t_max]`` the first time of contact (0 when overlapping at time 0); ``depth >= 0``
    the overlap depth at time 0 (0 for a future hit). A miss returns zeros.

    Face normals are not normalised while testing (times are ratios, so their scale
    cancels); only the chosen one is.
    """
    ka = a.shape[0]
    kb = b.shape[0]
    if ka == 1 and kb == 1:
        return _point_point_sweep(a, b, vx, vy, t_max)

    # Tutorial 3's axis: if the shapes' shadows across the line of motion are disjoint,
    # they never meet.
    if vx * vx + vy * vy > VELOCITY_AXIS_EPSILON_SQ:
        alo, ahi = project(a, -vy, vx)
        blo, bhi = project(b, -vy, vx)
        if alo > bhi or blo > ahi:
            return False, 0.0, 0.0, 0.0, 0.0

    t_first = 0.0  # latest entry so far (never before 0)
    t_last = t_max  # earliest exit so far (never after t_max)
    hit_nx = 0.0
    hit_ny = 0.0
    # Smallest overlap so far, as overlap^2 over its normal's length^2 (compared by cross
    # multiplication: no division per face).
    depth_sq = math.inf
    depth_len_sq = 1.0
    depth_nx = 0.0
    depth_ny = 0.0
    fa = face_count(ka)
    for f in range(fa + face_count(kb)):
        # A face of one shape and the other shape's lowest point along its normal: the gap
        # between them (> 0: apart across this face), changing at `speed` per unit time.
        # Normals end up pointing from B toward A: a face of A points the other way.
        if f < fa:
            nx, ny, h = face(a, f)
            gap = lowest(b, nx, ny) - h
            nx = -nx
            ny = -ny
        else:
            nx, ny, h = face(b, f - fa)
            gap = lowest(a, nx, ny) - h
        speed = vx * nx + vy * ny
        length_sq = nx * nx + ny * ny
        if speed * speed < AXIS_SPEED_EPSILON * AXIS_SPEED_EPSILON * length_sq:
            if gap > 0.0:
                return False, 0.0, 0.0, 0.0, 0.0
        else:
            # Approaching (speed < 0): the gap closes at t, an entry; else it opens at t, an
            # exit. Written as selects rather than branches: their outcome is random, and
            # mispredicted branches cost more than the arithmetic.
            t = gap / -speed
            enter = t if speed < 0.0 else -math.inf
            leave = t if speed > 0.0 else math.inf
            later = enter > t_first
            hit_nx = nx if later else hit_nx
            hit_ny = ny if later else hit_ny
            if enter == t_first and enter > 0.0 and preferred_axis(nx, ny, hit_nx, hit_ny):
                hit_nx = nx
                hit_ny = ny
            t_first = max(t_first, enter)
            t_last = min(t_last, leave)
            if t_first > t_last:
                return False, 0.0, 0.0, 0.0, 0.0
        # Depth candidates only matter if the pair overlaps at time 0, where no gap is > 0.
        g_sq = gap * gap if gap <= 0.0 else math.inf
        lhs = g_sq * depth_len_sq
        rhs = depth_sq * length_sq
        if lhs == rhs and g_sq < math.inf and depth_tie_wins(a, b, nx, ny, depth_nx, depth_ny):
            depth_nx = nx
            depth_ny = ny
            depth_sq = g_sq
            depth_len_sq = length_sq
        shallower = lhs < rhs
        depth_nx = nx if shallower else depth_nx
        depth_ny = ny if shallower else depth_ny
        depth_sq = g_sq if shallower else depth_sq
        depth_len_sq = length_sq if shallower else depth_len_sq

    if t_first > 0.0 or depth_sq == math.inf:
        length_sq = hit_nx * hit_nx + hit_ny * hit_ny
        if length_sq == 0.0:  # only if a positive gap / speed underflowed to 0
            return False, 0.0, 0.0, 0.0, 0.0
        inv = 1.0 / math.sqrt(length_sq)
        return True, hit_nx * inv, hit_ny * inv, t_first, 0.0
    # Overlapping (or touching) at time 0; adding 0.0 turns a -0.0 into 0.0.
    inv = 1.0 / math.sqrt(depth_nx * depth_nx + depth_ny * depth_ny)
    depth = math.sqrt(depth_sq / depth_len_sq)
    return True, depth_nx * inv + 0.0, depth_ny * inv + 0.0, 0.0, depth + 0.0


@njit(cache=True)
def sweep_pairs(
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    velocity: np.ndarray,
    pairs: np.ndarray,
    dt: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``sweep_kernel`` over many pairs of bodies.

    ``world_vertices (n, MAX_VERTICES, 2)``, ``vertex_count (n,) int64``, ``velocity (n, 2)``
    units/s, ``pairs (m, 2) int64`` (A = column 0, B = column 1), ``dt > 0`` seconds.
    Returns ``hit (m,) bool``, ``normal (m, 2)`` (unit, from B toward A), ``toi (m,)``
    seconds in ``[0, dt]``, ``depth (m,)``. Misses get normal ``(0, 0)``, toi ``dt``, depth 0.
    """
    m = pairs.shape[0]
    hit = np.empty(m, dtype=np.bool_)
    normal = np.empty((m, 2))
    toi = np.empty(m)
    depth = np.empty(m)
    for p in range(m):
        i = pairs[p, 0]
        j = pairs[p, 1]
        ok, nx, ny, t, d = sweep_kernel(
            world_vertices[i, : vertex_count[i]],
            world_vertices[j, : vertex_count[j]],
            velocity[i, 0] - velocity[j, 0],
            velocity[i, 1] - velocity[j, 1],
            dt,
        )
        # A miss comes back as zeros.
        hit[p] = ok
        normal[p, 0] = nx
        normal[p, 1] = ny
        toi[p] = t if ok else dt
        depth[p] = d
    return hit, normal, toi, depth


# --------------------------------------------------------------------------------------
# Public face
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Hit:
    """Result of :func:`sweep`.

    ``normal (2,) float64``: unit, from B toward A. ``t``: first contact time in
    ``[0, t_max]`` (0 when already overlapping). ``depth``: overlap depth at time 0 in
    units (0 for a future hit): moving A by ``depth * normal`` separates the pair.
    """

    normal: np.ndarray
    t: float
    depth: float

    @property
    def overlapping(self) -> bool:
        """True when the shapes already overlap or touch at time 0."""
        return self.depth > 0.0 or self.t == 0.0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hit):
            return NotImplemented
        return (
            bool(np.array_equal(self.normal, other.normal))
            and self.t == other.t
            and self.depth == other.depth
        )

    def __hash__(self) -> int:
        return hash((float(self.normal[0]), float(self.normal[1]), self.t, self.depth))


def _vector(value: object, name: str) -> np.ndarray:
    try:
        v = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 2-vector of numbers: {exc}") from None
    if v.shape != (2,):
        raise ValueError(f"{name} must have shape (2,), got {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be finite, got {v.tolist()}")
    return v


def _positive_time(value: object, name: str) -> float:
    try:
        t = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(t) or t <= 0.0:
        raise ValueError(f"{name} must be finite and > 0, got {t!r}")
    return t


def intersect(a: object, b: object) -> bool:
    """True if convex shapes ``a`` and ``b`` overlap or touch (Tutorial 1).

    ``a``, ``b``: world-space vertices ``(k, 2)`` or :class:`~collision.Polygon`.

    >>> intersect([[0, 0], [2, 0], [2, 2], [0, 2]], [[1, 1], [3, 1], [3, 3], [1, 3]])
    True
    """
    return bool(intersect_kernel(check_vertices(a, "a"), check_vertices(b, "b")))


def find_mtd(a: object, b: object) -> np.ndarray | None:
    """Minimum translation for A out of B (Tutorial 2): ``(2,) float64`` or None.

    ``a + find_mtd(a, b)`` no longer overlaps ``b``. None when the shapes do not touch;
    a zero vector when they touch without overlapping (nothing to push).

    >>> find_mtd([[0, 0], [2, 0], [2, 2], [0, 2]], [[1.5, 0], [3, 0], [3, 2], [1.5, 2]])
    array([-0.5,  0. ])
    """
    hit, nx, ny, _, depth = sweep_kernel(check_vertices(a, "a"), check_vertices(b, "b"), 0.0, 0.0, 1.0)
    if not hit:
        return None
    return np.array([depth * nx, depth * ny]) + 0.0


def sweep(a: object, b: object, velocity: object, t_max: float = 1.0) -> Hit | None:
    """Swept test (Tutorials 2-3): does A, moving by ``velocity`` relative to B, touch B
    within ``[0, t_max]``?

    ``a``, ``b``: world-space vertices ``(k, 2)`` at time 0 (or Polygons); ``velocity (2,)``
    units per unit time; ``t_max`` finite > 0. Returns a :class:`Hit` or None.

    >>> hit = sweep([[0, 0], [1, 0], [1, 1], [0, 1]], [[3, 0], [4, 0], [4, 1], [3, 1]], [4, 0])
    >>> hit.t, hit.normal.tolist(), hit.depth
    (0.5, [-1.0, 0.0], 0.0)
    """
    av = check_vertices(a, "a")
    bv = check_vertices(b, "b")
    v = _vector(velocity, "velocity")
    tm = _positive_time(t_max, "t_max")
    hit, nx, ny, t, depth = sweep_kernel(av, bv, float(v[0]), float(v[1]), tm)
    if not hit:
        return None
    normal = np.array([nx, ny]) + 0.0
    normal.setflags(write=False)
    return Hit(normal=normal, t=float(t), depth=float(depth))
