"""Contact points: Tutorial 6 (support points, then pairs of points on A and on B).

Given a hit's normal ``n`` (unit, from B toward A) and its time ``t``, the features in
contact are A's vertices lowest along ``n`` and B's vertices highest along ``n`` (each
within a small tolerance relative to the shape's size, so a face parallel to the contact
plane gives its two corners). Of those, the two extreme ones along the tangent
``(-n.y, n.x)`` are kept. Then, all in world space (the original mixed frames here):

- one point on each side: that pair;
- a point against an edge: the point and the closest point of the edge;
- an edge against an edge: the overlap of the two edges along the tangent (the two middle
  points of the four), each end paired with the closest point of the other edge.

A hit always gets at least one pair: when two edges do not overlap along the tangent
(a grazing corner contact, or rounding), the closest pair of points of the two edges is
used. (The original returned no pairs there and the collision got no response at all.)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from collision.sat import Hit, _vector
from collision.shapes import check_vertices
from collision.tolerances import SUPPORT_RELATIVE_EPSILON, UNIT_NORMAL_TOLERANCE

# --------------------------------------------------------------------------------------
# Compiled steps
# --------------------------------------------------------------------------------------


@njit(cache=True)
def support_points(
    vertices: np.ndarray, dx: float, dy: float, ox: float, oy: float
) -> tuple[int, float, float, float, float]:
    """Support feature of ``vertices (k, 2)`` in the direction of least ``(dx, dy)``.

    Returns ``(count, x0, y0, x1, y1)``: 1 or 2 points, translated by ``(ox, oy)``; with 2,
    point 0 is the one lower along the tangent ``(-dy, dx)``.
    """
    k = vertices.shape[0]
    lo = math.inf
    x_lo = math.inf
    x_hi = -math.inf
    y_lo = math.inf
    y_hi = -math.inf
    for i in range(k):
        x = vertices[i, 0]
        y = vertices[i, 1]
        lo = min(lo, x * dx + y * dy)
        x_lo = min(x_lo, x)
        x_hi = max(x_hi, x)
        y_lo = min(y_lo, y)
        y_hi = max(y_hi, y)
    tolerance = SUPPORT_RELATIVE_EPSILON * max(x_hi - x_lo, y_hi - y_lo)
    first = -1
    last = -1
    s_first = math.inf
    s_last = -math.inf
    for i in range(k):
        x = vertices[i, 0]
        y = vertices[i, 1]
        if x * dx + y * dy <= lo + tolerance:
            s = -x * dy + y * dx
            if s < s_first:
                s_first = s
                first = i
            if s > s_last:
                s_last = s
                last = i
    x0 = vertices[first, 0] + ox
    y0 = vertices[first, 1] + oy
    if first == last:
        return 1, x0, y0, x0, y0
    return 2, x0, y0, vertices[last, 0] + ox, vertices[last, 1] + oy


@njit(cache=True)
def closest_on_segment(
    px: float, py: float, ax: float, ay: float, bx: float, by: float
) -> tuple[float, float]:
    """Point of segment ``a``-``b`` closest to ``p`` (a zero-length segment gives ``a``)."""
    abx = bx - ax
    aby = by - ay
    ab2 = abx * abx + aby * aby
    if ab2 <= 0.0:
        return ax, ay
    s = ((px - ax) * abx + (py - ay) * aby) / ab2
    s = min(max(s, 0.0), 1.0)
    return ax + s * abx, ay + s * aby


@njit(cache=True)
def _closest_pair(
    a0x: float,
    a0y: float,
    a1x: float,
    a1y: float,
    b0x: float,
    b0y: float,
    b1x: float,
    b1y: float,
) -> tuple[float, float, float, float]:
    """Closest pair ``(point on edge A, point on edge B)`` of two non-crossing edges: one of
    them is an endpoint paired with its closest point on the other edge."""
    best = math.inf
    pax = a0x
    pay = a0y
    pbx = b0x
    pby = b0y
    for e in range(4):
        if e == 0:
            ax, ay = a0x, a0y
            bx, by = closest_on_segment(a0x, a0y, b0x, b0y, b1x, b1y)
        elif e == 1:
            ax, ay = a1x, a1y
            bx, by = closest_on_segment(a1x, a1y, b0x, b0y, b1x, b1y)
        elif e == 2:
            bx, by = b0x, b0y
            ax, ay = closest_on_segment(b0x, b0y, a0x, a0y, a1x, a1y)
        else:
            bx, by = b1x, b1y
            ax, ay = closest_on_segment(b1x, b1y, a0x, a0y, a1x, a1y)
        d = (ax - bx) * (ax - bx) + (ay - by) * (ay - by)
        if d < best:
            best = d
            pax, pay, pbx, pby = ax, ay, bx, by
    return pax, pay, pbx, pby


@njit(cache=True)
def contact_kernel(
    a: np.ndarray,
    b: np.ndarray,
    nx: float,
    ny: float,
    t: float,
    vax: float,
    vay: float,
    vbx: float,
    vby: float,
    out_a: np.ndarray,
    out_b: np.ndarray,
) -> int:
    """Contact pairs of a hit (Tutorial 6), at the time of impact.

    ``a (ka, 2)``, ``b (kb, 2)``: world-space vertices at time 0; ``(nx, ny)``: the hit's
    unit normal (from B toward A); ``t``: its time; A's points move by ``(vax, vay) * t``
    and B's by ``(vbx, vby) * t``. Writes ``out_a (2, 2)`` (points on A) and ``out_b (2, 2)``
    (their partners on B); returns the number of pairs, 1 or 2.
    """
    ca, a0x, a0y, a1x, a1y = support_points(a, nx, ny, vax * t, vay * t)
    cb, b0x, b0y, b1x, b1y = support_points(b, -nx, -ny, vbx * t, vby * t)
    if ca == 1 and cb == 1:
        out_a[0, 0], out_a[0, 1] = a0x, a0y
        out_b[0, 0], out_b[0, 1] = b0x, b0y
        return 1
    if ca == 1:  # A's corner against B's edge
        out_a[0, 0], out_a[0, 1] = a0x, a0y
        out_b[0, 0], out_b[0, 1] = closest_on_segment(a0x, a0y, b0x, b0y, b1x, b1y)
        return 1
    if cb == 1:  # B's corner against A's edge
        out_b[0, 0], out_b[0, 1] = b0x, b0y
        out_a[0, 0], out_a[0, 1] = closest_on_segment(b0x, b0y, a0x, a0y, a1x, a1y)
        return 1

    # Edge against edge: clip the two edges to their common span along one tangent. B's
    # support was sorted along the opposite tangent, so its ends swap.
    tx = -ny
    ty = nx
    b0x, b0y, b1x, b1y = b1x, b1y, b0x, b0y
    a_lo = a0x * tx + a0y * ty
    a_hi = a1x * tx + a1y * ty
    b_lo = b0x * tx + b0y * ty
    b_hi = b1x * tx + b1y * ty
    if max(a_lo, b_lo) > min(a_hi, b_hi):
        pax, pay, pbx, pby = _closest_pair(a0x, a0y, a1x, a1y, b0x, b0y, b1x, b1y)
        out_a[0, 0], out_a[0, 1] = pax, pay
        out_b[0, 0], out_b[0, 1] = pbx, pby
        return 1
    if a_lo >= b_lo:
        out_a[0, 0], out_a[0, 1] = a0x, a0y
        out_b[0, 0], out_b[0, 1] = closest_on_segment(a0x, a0y, b0x, b0y, b1x, b1y)
    else:
        out_b[0, 0], out_b[0, 1] = b0x, b0y
        out_a[0, 0], out_a[0, 1] = closest_on_segment(b0x, b0y, a0x, a0y, a1x, a1y)
    if max(a_lo, b_lo) == min(a_hi, b_hi):
        return 1
    if a_hi <= b_hi:
        out_a[1, 0], out_a[1, 1] = a1x, a1y
        out_b[1, 0], out_b[1, 1] = closest_on_segment(a1x, a1y, b0x, b0y, b1x, b1y)
    else:
        out_b[1, 0], out_b[1, 1] = b1x, b1y
        out_a[1, 0], out_a[1, 1] = closest_on_segment(b1x, b1y, a0x, a0y, a1x, a1y)
    return 2


@njit(cache=True)
def contact_pairs(
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    velocity: np.ndarray,
    pairs: np.ndarray,
    normal: np.ndarray,
    toi: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``contact_kernel`` over many pairs (the rows of :func:`collision.sat.sweep_pairs`).

    ``world_vertices (n, MAX_VERTICES, 2)``, ``vertex_count (n,) int64``, ``velocity (n, 2)``,
    ``pairs (m, 2) int64``, ``normal (m, 2)``, ``toi (m,)`` seconds. Returns ``count (m,)
    int64`` (0 for rows whose normal is ``(0, 0)``, i.e. misses), ``point_a (m, 2, 2)`` and
    ``point_b (m, 2, 2)`` (rows past ``count`` are zero).
    """
    m = pairs.shape[0]
    count = np.zeros(m, dtype=np.int64)
    point_a = np.zeros((m, 2, 2))
    point_b = np.zeros((m, 2, 2))
    for p in range(m):
        nx = normal[p, 0]
        ny = normal[p, 1]
        if nx == 0.0 and ny == 0.0:
            continue
        i = pairs[p, 0]
        j = pairs[p, 1]
        count[p] = contact_kernel(
            world_vertices[i, : vertex_count[i]],
            world_vertices[j, : vertex_count[j]],
            nx,
            ny,
            toi[p],
            velocity[i, 0],
            velocity[i, 1],
            velocity[j, 0],
            velocity[j, 1],
            point_a[p],
            point_b[p],
        )
    return count, point_a, point_b


# --------------------------------------------------------------------------------------
# Public face
# --------------------------------------------------------------------------------------


def contact_points(
    a: object, b: object, hit: Hit, velocity: object = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Contact pairs ``(point on A, point on B)``, each ``(2,) float64``, for a hit of
    :func:`collision.sweep` (Tutorial 6): 1 pair (point-edge, point-point) or 2 (edge-edge).

    ``a``, ``b``: the shapes given to ``sweep`` (world space, time 0); ``velocity (2,)``: the
    relative velocity given to ``sweep``. A's points are moved by ``velocity * hit.t`` (to the
    time of impact); B stays. ``velocity`` may be omitted only when ``hit.t == 0``.

    >>> from collision import sweep
    >>> a = [[0, 1], [2, 1], [2, 3], [0, 3]]
    >>> b = [[-1, -1], [3, -1], [3, 1.5], [-1, 1.5]]
    >>> [(pa.tolist(), pb.tolist()) for pa, pb in contact_points(a, b, sweep(a, b, [0, 0]))]
    [([2.0, 1.0], [2.0, 1.5]), ([0.0, 1.0], [0.0, 1.5])]
    """
    av = check_vertices(a, "a")
    bv = check_vertices(b, "b")
    if not isinstance(hit, Hit):
        raise ValueError(f"hit must be a Hit returned by sweep(), got {type(hit).__name__}")
    n = _vector(hit.normal, "hit.normal")
    if abs(math.hypot(n[0], n[1]) - 1.0) > UNIT_NORMAL_TOLERANCE:
        raise ValueError(f"hit.normal must be a unit vector, got {n.tolist()}")
    t = float(hit.t)
    if not math.isfinite(t) or t < 0.0:
        raise ValueError(f"hit.t must be finite and >= 0, got {t!r}")
    if velocity is None:
        if t != 0.0:
            raise ValueError("velocity is required when hit.t > 0 (A is moved to the time of impact)")
        v = np.zeros(2)
    else:
        v = _vector(velocity, "velocity")
    out_a = np.zeros((2, 2))
    out_b = np.zeros((2, 2))
    count = contact_kernel(
        av, bv, float(n[0]), float(n[1]), t, float(v[0]), float(v[1]), 0.0, 0.0, out_a, out_b
    )
    return [(out_a[i].copy(), out_b[i].copy()) for i in range(count)]
