"""Polygon against polygon: Tutorial 9's clipping (Sutherland-Hodgman).

The part of a convex shape inside a convex polygon, the shapes' intersection: the subject is
cut by the inner half-plane of each of the clip polygon's edges in turn. Plain Python on
floats: a teaching and tool function (a few dozen vertices), not a hot path.

>>> from collision import clip_polygon
>>> clip_polygon([[0, 0], [2, 0], [2, 2], [0, 2]], [[1, 1], [3, 1], [3, 3], [1, 3]]).tolist()
[[2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 1.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collision.shapes import GeometryError, check_vertices

Point = tuple[float, float]


def _inside_edge(points: list[Point], p: Point, q: Point) -> list[Point]:
    """The closed loop ``points`` cut by the line ``p -> q``: what lies on its left or on it.

    A point on the line is kept and makes no crossing, so a vertex touching the line is not
    repeated; a crossing point is only made between strictly opposite sides (its divisor is
    then never 0), measured from the inner end whichever way the edge runs, so that a segment
    (a loop there and back) gets one crossing, not two that differ by rounding.
    """
    ex, ey = q[0] - p[0], q[1] - p[1]
    side = [ex * (y - p[1]) - ey * (x - p[0]) for x, y in points]
    kept: list[Point] = []
    k = len(points)
    for j in range(k):
        s0, s1 = side[j], side[(j + 1) % k]
        if s0 >= 0.0:
            kept.append(points[j])
        if (s0 > 0.0 and s1 < 0.0) or (s0 < 0.0 and s1 > 0.0):
            inner, outer = (j, (j + 1) % k) if s0 > 0.0 else ((j + 1) % k, j)
            (x0, y0), (x1, y1) = points[inner], points[outer]
            t = side[inner] / (side[inner] - side[outer])
            kept.append((x0 + t * (x1 - x0), y0 + t * (y1 - y0)))
    return kept


def _without_repeats(points: list[Point]) -> list[Point]:
    """``points`` as a closed loop without a vertex equal to the one before it (the last
    vertex counts as before the first)."""
    out = [p for i, p in enumerate(points) if p != points[i - 1]]
    return out if out else points[:1]


def clip_polygon(subject: Any, clip: Any) -> np.ndarray:
    """The part of ``subject`` inside ``clip``: ``(j, 2) float64``, counter-clockwise.

    ``subject``: a convex shape, a :class:`~collision.Polygon` or ``(k, 2)`` vertices (1 a
    point, 2 a segment, 3..MAX_VERTICES a convex polygon, either orientation); ``clip``: the
    same, but a convex polygon (3 or more vertices: a point or a segment has no inside).
    Returns the intersection's vertices, each once: a convex polygon when the two overlap, a
    segment or a point when they only touch (or ``subject`` is one), ``(0, 2)`` when they are
    apart.
    Boundaries count as inside. Raises :class:`~collision.GeometryError` naming the argument
    and the vertex at fault.
    """
    s = check_vertices(subject, "subject")
    c = check_vertices(clip, "clip")
    m = len(c)
    if m < 3:
        raise GeometryError(
            f"clip: {m} {'vertex' if m == 1 else 'vertices'}: the clip region must be a convex polygon "
            "(3 or more vertices; a point or a segment has no inside)"
        )
    loop: list[Point] = [(float(x), float(y)) for x, y in s]
    corners: list[Point] = [(float(x), float(y)) for x, y in c]
    for i in range(m):
        loop = _inside_edge(loop, corners[i], corners[(i + 1) % m])
        if not loop:
            return np.zeros((0, 2))
    return np.array(_without_repeats(loop), dtype=np.float64).reshape(-1, 2)
