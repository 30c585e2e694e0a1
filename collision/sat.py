"""Separating axes, the compiled steps: Tutorials 1, 2, 3 and 5.

Everything runs these steps: the one-pair face, collision.pair (``intersect``, ``find_mtd``,
``sweep``), through :func:`intersect_kernel` and :func:`sweep_kernel`, as the solvers do; the
batch face, collision.batch (``intersect_many``, ``find_mtd_many``, ``sweep_many``), through
:func:`_intersect` and :func:`_sweep` over packed stacks, as the world does in
:func:`sweep_pairs`.

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

The tutorial's steps, by the names of its code, are compiled steps here: CalculateInterval
(:func:`calculate_interval`, and :func:`lowest`, the half a face needs), AxisSeparatePolygons
(:func:`axis_separate_polygons`: one face's gap), IntervalIntersect (:func:`interval_intersect`:
when that gap closes or opens), FindMTD and FindCollisionPlane (:func:`find_collision_plane`:
the latest entry's face, else the least overlap's), Intersect (:func:`intersect_kernel`) and
Collide (:func:`sweep_kernel`).

Conventions: normals are unit and point from B toward A; ``a + depth * normal`` separates.
Touching (overlap of exactly zero) counts as a hit of depth 0.
Point against point: two points touch only when they are at exactly the same place (at
time 0, or on the way when the relative motion passes exactly through the other point).
Two coincident points at rest have no defined normal; they report ``(0, 1)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from collision.geometry import Index
from collision.kernels import compiled_only
from collision.tolerances import AXIS_SPEED_EPSILON, VELOCITY_AXIS_EPSILON_SQ

# --------------------------------------------------------------------------------------
# Compiled steps
# --------------------------------------------------------------------------------------


# How these steps are shaped for speed (measured with ``python -m collision.bench``):
# - A shape is addressed as ``(shapes, s, k)``: the vertices ``shapes[s, :k]`` of a stack
#   ``(n, MAX_VERTICES, 2)`` (``(1, k, 2)`` for a single shape). The batch kernel reads each
#   pair straight from the world's array; an array view per shape would cost reference-count
#   updates (atomic, out of line) per pair.
# - The small steps of the face loop are inlined (``inline="always"``) so that it compiles
#   without calls; what runs once per pair or rarely (the winning face's normal, the exact
#   tie breakers) stays out of line, which keeps the compile time down.
# - The face loop keeps the winning faces as indices and rebuilds their normals at the end,
#   and the depth candidate is taken with selects that compile to blends rather than
#   branches (see ``_sweep``): whether a face is the shallowest so far is random, and
#   mispredicted branches cost more than the arithmetic.


@njit(cache=True, inline="always")
def calculate_interval(shapes: np.ndarray, s: int, k: int, nx: float, ny: float) -> tuple[float, float]:
    """Tutorial 1's CalculateInterval: the interval ``(lo, hi)`` of ``shapes[s, :k]`` projected
    on the axis ``(nx, ny)`` (not normalised: the interval is scaled by its length)."""
    lo = shapes[s, 0, 0] * nx + shapes[s, 0, 1] * ny
    hi = lo
    for i in range(1, k):
        d = shapes[s, i, 0] * nx + shapes[s, i, 1] * ny
        lo = min(lo, d)
        hi = max(hi, d)
    return lo, hi


@njit(cache=True, inline="always")
def lowest(shapes: np.ndarray, s: int, k: int, nx: float, ny: float) -> float:
    """Lowest projection of ``shapes[s, :k]`` on the axis ``(nx, ny)``: the half of
    CalculateInterval a face's test needs (the other shape's side is the face's height)."""
    lo = shapes[s, 0, 0] * nx + shapes[s, 0, 1] * ny
    for i in range(1, k):
        lo = min(lo, shapes[s, i, 0] * nx + shapes[s, i, 1] * ny)
    return lo


@njit(cache=True, inline="always")
def face_count(k: int) -> int:
    """Faces of a shape of ``k`` vertices: none for a point; both sides and both ends of a
    segment; one per edge of a polygon."""
    if k == 1:
        return 0
    if k == 2:
        return 4
    return k


@njit(cache=True, inline="always")
def face(shapes: np.ndarray, s: int, k: int, f: Index) -> tuple[float, float, float]:
    """Face ``f`` of the shape ``shapes[s, :k]`` as ``(nx, ny, h)``: outward normal, not
    normalised (its length is the edge's), and the face's height ``h`` along it (the
    shape's highest projection).

    Polygon face ``f`` is the edge from vertex ``f`` to ``f + 1``. Segment faces are its two
    sides (0, 1) and its two ends (2: past vertex 1, 3: before vertex 0).
    """
    if k == 2:
        x0 = shapes[s, 0, 0]
        y0 = shapes[s, 0, 1]
        ex = shapes[s, 1, 0] - x0
        ey = shapes[s, 1, 1] - y0
        if f == 0:
            return ey, -ex, x0 * ey - y0 * ex
        if f == 1:
            return -ey, ex, y0 * ex - x0 * ey
        if f == 2:
            return ex, ey, shapes[s, 1, 0] * ex + shapes[s, 1, 1] * ey
        return -ex, -ey, -(x0 * ex + y0 * ey)
    g = f + 1 if f + 1 < k else 0
    x0 = shapes[s, f, 0]
    y0 = shapes[s, f, 1]
    nx = shapes[s, g, 1] - y0
    ny = x0 - shapes[s, g, 0]
    return nx, ny, x0 * nx + y0 * ny


@njit(cache=True, inline="always")
def axis_separate_polygons(
    shapes_p: np.ndarray, sp: int, kp: int, shapes_q: np.ndarray, sq: int, kq: int, f: int
) -> tuple[float, float, float]:
    """Tutorial 1's AxisSeparatePolygons for face ``f`` of shape P = ``shapes_p[sp, :kp]``
    against shape Q = ``shapes_q[sq, :kq]``: ``(nx, ny, gap)``, the face's outward normal (not
    normalised) and how far Q's lowest point lies beyond the face along it (> 0: this face
    separates them; scaled by the normal's length)."""
    # Measured: choosing A's or B's face in here, rather than in the caller, slowed the batch
    # face's sweep by a third (numba inlines the array arguments of both branches).
    nx, ny, h = face(shapes_p, sp, kp, f)
    return nx, ny, lowest(shapes_q, sq, kq, nx, ny) - h


@njit(cache=True, inline="always")
def interval_intersect(gap: float, speed: float) -> tuple[float, float]:
    """Tutorial 3's IntervalIntersect on one axis, moving at ``speed`` (the gap's rate of
    change, non-zero): ``(enter, leave)``, when the gap closes (approaching; else -inf) or
    opens (receding; else inf). Written as selects rather than branches (see the note above)."""
    t = gap / -speed
    enter = t if speed < 0.0 else -math.inf
    leave = t if speed > 0.0 else math.inf
    return enter, leave


@compiled_only()
def pair_normal(
    shapes_a: np.ndarray, sa: int, ka: int, shapes_b: np.ndarray, sb: int, kb: int, f: Index
) -> tuple[float, float]:
    """Normal of face ``f`` of a pair (A's faces first, then B's), not normalised, oriented
    from B toward A (a face of A points the other way); ``(0, 0)`` for ``f = -1``, no face."""
    if f < 0:
        return 0.0, 0.0
    fa = face_count(ka)
    if f < fa:
        nx, ny, _ = face(shapes_a, sa, ka, f)
        return -nx, -ny
    nx, ny, _ = face(shapes_b, sb, kb, f - fa)
    return nx, ny


@njit(cache=True, inline="always")
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


@compiled_only()
def _mean_offset(
    shapes_a: np.ndarray, sa: int, ka: int, shapes_b: np.ndarray, sb: int, kb: int
) -> tuple[float, float]:
    """Mean of A's vertices minus mean of B's."""
    ax = 0.0
    ay = 0.0
    for i in range(ka):
        ax += shapes_a[sa, i, 0]
        ay += shapes_a[sa, i, 1]
    bx = 0.0
    by = 0.0
    for i in range(kb):
        bx += shapes_b[sb, i, 0]
        by += shapes_b[sb, i, 1]
    return ax / ka - bx / kb, ay / ka - by / kb


@compiled_only()
def depth_tie_wins(
    shapes_a: np.ndarray,
    sa: int,
    ka: int,
    shapes_b: np.ndarray,
    sb: int,
    kb: int,
    nx: float,
    ny: float,
    best: Index,
) -> bool:
    """Exact tie of two depth candidates, the face with oriented normal ``n`` and the
    current one, face ``best``: True if ``n`` should win. Different lines:
    :func:`preferred_axis`. The same line in opposite directions (A centred on B across it,
    or segments lying along each other): the side A's vertices lean to, so that swapping A
    and B flips the answer."""
    bx, by = pair_normal(shapes_a, sa, ka, shapes_b, sb, kb, best)
    if nx * by - ny * bx != 0.0:
        return preferred_axis(nx, ny, bx, by)
    if nx * bx + ny * by > 0.0:
        return False
    cx, cy = _mean_offset(shapes_a, sa, ka, shapes_b, sb, kb)
    lean = nx * cx + ny * cy
    if lean != 0.0:
        return lean > 0.0
    # No lean across the line: pick by the order of the means along x, then y, and for
    # concentric shapes by the order of the shapes themselves (:func:`_shape_order`).
    side = cx if cx != 0.0 else cy
    if side == 0.0:
        side = _shape_order(shapes_a, sa, ka, shapes_b, sb, kb)
    canonical = nx > 0.0 or (nx == 0.0 and ny > 0.0)
    return canonical == (side > 0.0)


@compiled_only()
def _shape_order(shapes_a: np.ndarray, sa: int, ka: int, shapes_b: np.ndarray, sb: int, kb: int) -> float:
    """+1 if A comes after B in a fixed order of shapes (vertex count, then the vertices'
    coordinates in turn), -1 if before, 0 if they are the same array: swapping A and B flips
    it, so a tie settled by it gives opposite answers in the two argument orders. (Identical
    shapes at the same place have no such answer: ``find_mtd(a, a)`` cannot be minus itself.)"""
    if ka != kb:
        return 1.0 if ka > kb else -1.0
    for i in range(ka):
        for c in range(2):
            x = shapes_a[sa, i, c]
            y = shapes_b[sb, i, c]
            if x != y:
                return 1.0 if x > y else -1.0
    return 0.0


@njit(cache=True, inline="always")
def _intersect(shapes_a: np.ndarray, sa: int, ka: int, shapes_b: np.ndarray, sb: int, kb: int) -> bool:
    """:func:`intersect_kernel` of A = ``shapes_a[sa, :ka]`` and B = ``shapes_b[sb, :kb]``."""
    if ka == 1 and kb == 1:
        return shapes_a[sa, 0, 0] == shapes_b[sb, 0, 0] and shapes_a[sa, 0, 1] == shapes_b[sb, 0, 1]
    fa = face_count(ka)
    for f in range(fa + face_count(kb)):
        if f < fa:
            _, _, gap = axis_separate_polygons(shapes_a, sa, ka, shapes_b, sb, kb, f)
        else:
            _, _, gap = axis_separate_polygons(shapes_b, sb, kb, shapes_a, sa, ka, f - fa)
        if gap > 0.0:
            return False
    return True


@njit(cache=True)
def intersect_kernel(a: np.ndarray, b: np.ndarray) -> bool:
    """True if shapes ``a (ka, 2)`` and ``b (kb, 2)`` overlap or touch: Tutorial 1's Intersect,
    AxisSeparatePolygons over every face of both."""
    return _intersect(a[np.newaxis], 0, a.shape[0], b[np.newaxis], 0, b.shape[0])


@njit(cache=True, inline="always")
def find_collision_plane(
    shapes_a: np.ndarray, sa: int, ka: int, shapes_b: np.ndarray, sb: int, kb: int,
    faces: tuple[Index, Index], t_first: float, depth: tuple[float, float],
) -> tuple[bool, float, float, float, float]:  # fmt: skip
    """Tutorial 3's FindCollisionPlane (which its Collide calls FindMTD): a future hit's normal
    is the face of the latest entry (``faces[0]``, at ``t_first``); without one, the face of
    least overlap (``faces[1]``; ``depth``: its overlap squared and its normal's length
    squared) gives the depth and normal, as Tutorial 2's FindMTD. Returns ``(hit, nx, ny, t,
    depth)`` as :func:`sweep_kernel`."""
    hit_face, depth_face = faces
    depth_sq, depth_len_sq = depth
    moving = t_first > 0.0 or depth_sq == math.inf
    nx, ny = pair_normal(shapes_a, sa, ka, shapes_b, sb, kb, hit_face if moving else depth_face)
    length_sq = nx * nx + ny * ny
    if moving:
        if length_sq == 0.0:  # only if a positive gap / speed underflowed to 0
            return False, 0.0, 0.0, 0.0, 0.0
        inv = 1.0 / math.sqrt(length_sq)
        return True, nx * inv, ny * inv, t_first, 0.0
    # Overlapping (or touching) at time 0; adding 0.0 turns a -0.0 into 0.0.
    inv = 1.0 / math.sqrt(length_sq)
    overlap = math.sqrt(depth_sq / depth_len_sq)
    return True, nx * inv + 0.0, ny * inv + 0.0, 0.0, overlap + 0.0


@njit(cache=True, inline="always")
def _point_point_sweep(
    ax: float, ay: float, bx: float, by: float, vx: float, vy: float, t_max: float
) -> tuple[bool, float, float, float, float]:
    """Two points A = ``(ax, ay)`` and B = ``(bx, by)``: they meet only by passing exactly
    through each other."""
    dx = ax - bx
    dy = ay - by
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
def _sweep(
    shapes_a: np.ndarray,
    sa: int,
    ka: int,
    shapes_b: np.ndarray,
    sb: int,
    kb: int,
    vx: float,
    vy: float,
    t_max: float,
) -> tuple[bool, float, float, float, float]:
    """:func:`sweep_kernel` of A = ``shapes_a[sa, :ka]`` and B = ``shapes_b[sb, :kb]``."""
    if ka == 1 and kb == 1:
        return _point_point_sweep(
            shapes_a[sa, 0, 0], shapes_a[sa, 0, 1], shapes_b[sb, 0, 0], shapes_b[sb, 0, 1], vx, vy, t_max
        )

    # Tutorial 3's axis: if the shapes' shadows across the line of motion are disjoint,
    # they never meet.
    if vx * vx + vy * vy > VELOCITY_AXIS_EPSILON_SQ:
        alo, ahi = calculate_interval(shapes_a, sa, ka, -vy, vx)
        blo, bhi = calculate_interval(shapes_b, sb, kb, -vy, vx)
        if alo > bhi or blo > ahi:
            return False, 0.0, 0.0, 0.0, 0.0

    t_first = 0.0  # latest entry so far (never before 0)
    t_last = t_max  # earliest exit so far (never after t_max)
    # Faces as int64 from the start: an int literal here would make numba compile the kernels
    # they are passed to once more, for that literal.
    hit_face: Index = np.int64(-1)  # face of the latest entry (-1: none yet); see pair_normal
    # Smallest overlap so far, as overlap^2 over its normal's length^2 (compared by cross
    # multiplication: no division per face), and its face.
    depth_sq = math.inf
    depth_len_sq = 1.0
    depth_face: Index = np.int64(-1)
    fa = face_count(ka)
    for f in range(fa + face_count(kb)):
        # A face of one shape and the other shape's lowest point along its normal: the gap
        # between them (> 0: apart across this face), changing at `speed` per unit time.
        # Normals end up pointing from B toward A: a face of A points the other way.
        if f < fa:
            nx, ny, gap = axis_separate_polygons(shapes_a, sa, ka, shapes_b, sb, kb, f)
            nx = -nx
            ny = -ny
        else:
            nx, ny, gap = axis_separate_polygons(shapes_b, sb, kb, shapes_a, sa, ka, f - fa)
        speed = vx * nx + vy * ny
        length_sq = nx * nx + ny * ny
        if length_sq == 0.0:
            # An edge that rounding collapsed (a small body far from the origin) has no
            # normal: it is no face. (Checked input never has one; the world's moving bodies may.)
            continue
        if speed * speed < AXIS_SPEED_EPSILON * AXIS_SPEED_EPSILON * length_sq:
            if gap > 0.0:
                return False, 0.0, 0.0, 0.0, 0.0
        else:
            enter, leave = interval_intersect(gap, speed)
            tie = (enter == t_first) & (enter > 0.0)
            hit_face = f if enter > t_first else hit_face
            if tie:
                # Entered at exactly the same instant: :func:`preferred_axis` settles it.
                bx, by = pair_normal(shapes_a, sa, ka, shapes_b, sb, kb, hit_face)
                hit_face = f if preferred_axis(nx, ny, bx, by) else hit_face
            t_first = max(t_first, enter)
            t_last = min(t_last, leave)
            if t_first > t_last:
                return False, 0.0, 0.0, 0.0, 0.0
        # Depth candidates only matter if the pair overlaps at time 0, where no gap is > 0.
        g_sq = gap * gap if gap <= 0.0 else math.inf
        lhs = g_sq * depth_len_sq
        rhs = depth_sq * length_sq
        tie = (lhs == rhs) & (g_sq < math.inf)  # exactly as deep: rare, settled below
        # Shallower when lhs < rhs. The second float select tests `not lhs >= rhs`, the same
        # for any non-NaN lhs and rhs (coordinates stay below MAX_COORDINATE and faces of
        # length 0 are skipped, so nothing here is 0 * inf): LLVM then gives each
        # select its own compare and emits blends; with one shared compare it emitted a
        # branch for the second select, mispredicted about as often as it is taken.
        depth_face = f if lhs < rhs else depth_face
        depth_sq = g_sq if lhs < rhs else depth_sq
        depth_len_sq = length_sq if not lhs >= rhs else depth_len_sq
        if tie and depth_tie_wins(shapes_a, sa, ka, shapes_b, sb, kb, nx, ny, depth_face):
            depth_face = f
            depth_sq = g_sq
            depth_len_sq = length_sq

    return find_collision_plane(
        shapes_a, sa, ka, shapes_b, sb, kb, (hit_face, depth_face), t_first, (depth_sq, depth_len_sq)
    )


@njit(cache=True)
def sweep_kernel(
    a: np.ndarray, b: np.ndarray, vx: float, vy: float, t_max: float
) -> tuple[bool, float, float, float, float]:
    """Swept separating-axis test: Tutorial 3's Collide (Tutorials 2 and 3, corrected).

    ``a (ka, 2)``, ``b (kb, 2)``: world-space CCW vertices at time 0. ``(vx, vy)``: velocity
    of A relative to B (units per unit time). ``t_max > 0``: end of the interval.
    Returns ``(hit, nx, ny, t, depth)``: ``(nx, ny)`` unit, from B toward A; ``t`` in
    ``[0, t_max]`` the first time of contact (0 when overlapping at time 0); ``depth >= 0``
    the overlap depth at time 0 (0 for a future hit). A miss returns zeros.

    Face normals are not normalised while testing (times are ratios, so their scale
    cancels); only the chosen one is.
    """
    return _sweep(a[np.newaxis], 0, a.shape[0], b[np.newaxis], 0, b.shape[0], vx, vy, t_max)


#: :func:`_sweep` inlined, for loops over pairs (:func:`sweep_pairs`, collision.batch);
#: :func:`sweep_kernel` calls it out of line, once per test: numba inlines a function by
#: deep-copying its IR block by block, each copy with the whole variable scope, which for this
#: one cost seconds of every cold compile of the default scene (whose continuous pass reaches
#: sweep_kernel). (With NUMBA_DISABLE_JIT, ``_sweep`` is the plain function.)
_sweep_inline = njit(cache=True, inline="always")(getattr(_sweep, "py_func", _sweep))


@njit(cache=True)
def sweep_pairs(
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    velocity: np.ndarray,
    pairs: np.ndarray,
    dt: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``sweep_kernel`` over many pairs of bodies (the same answers, bit for bit).

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
        ok, nx, ny, t, d = _sweep_inline(
            world_vertices,
            i,
            vertex_count[i],
            world_vertices,
            j,
            vertex_count[j],
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
