"""Outlines: a simple (possibly concave) outline decomposed into convex pieces (the tutorial's
advice for concave shapes: split them into convex parts).

Ear clipping triangulates the outline; neighbouring pieces are then merged while their union
stays convex and within ``MAX_VERTICES`` (Hertel-Mehlhorn), so the pieces are few.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from collision import checks
from collision.checks import GeometryError, cross, point_array, vertex_label
from collision.shapes import Polygon
from collision.tolerances import CONVEXITY_RELATIVE_EPSILON, MAX_VERTICES


def _turn(points: np.ndarray, a: int, b: int, c: int) -> tuple[float, float]:
    """Cross product of the turn a -> b -> c and the tolerance under which it counts as straight."""
    ax, ay = points[b, 0] - points[a, 0], points[b, 1] - points[a, 1]
    bx, by = points[c, 0] - points[b, 0], points[c, 1] - points[b, 1]
    tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
    return cross(ax, ay, bx, by), tol


def _is_ear(points: np.ndarray, prev: list[int], nxt: list[int], alive: np.ndarray, i: int) -> bool:
    """Vertex ``i`` of the remaining CCW outline is strictly convex and its triangle holds no other vertex."""
    a, c = prev[i], nxt[i]
    turn, tol = _turn(points, a, i, c)
    if turn <= tol:
        return False
    others = alive.copy()
    others[[a, i, c]] = False
    q = points[others]
    if len(q) == 0:
        return True
    pa, pb, pc = points[a], points[i], points[c]

    def side(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        result: np.ndarray = (v[0] - u[0]) * (q[:, 1] - u[1]) - (v[1] - u[1]) * (q[:, 0] - u[0])
        return result

    # A vertex on the triangle's boundary blocks the ear too: the diagonal would touch it.
    inside = (side(pa, pb) >= 0.0) & (side(pb, pc) >= 0.0) & (side(pc, pa) >= 0.0)
    return not bool(inside.any())


def _triangulate(points: np.ndarray) -> list[list[int]]:
    """Ear clipping of a simple CCW outline; triangles as CCW index triples."""
    n = len(points)
    prev = [(i - 1) % n for i in range(n)]
    nxt = [(i + 1) % n for i in range(n)]
    alive = np.ones(n, dtype=bool)
    ear = [_is_ear(points, prev, nxt, alive, i) for i in range(n)]
    triangles: list[list[int]] = []
    remaining = n
    i = 0
    misses = 0
    while remaining > 3:
        if ear[i]:
            a, c = prev[i], nxt[i]
            triangles.append([a, i, c])
            alive[i] = False
            nxt[a], prev[c] = c, a
            remaining -= 1
            # Only the two neighbours' ear status can change.
            ear[a] = _is_ear(points, prev, nxt, alive, a)
            ear[c] = _is_ear(points, prev, nxt, alive, c)
            i = c
            misses = 0
            continue
        i = nxt[i]
        misses += 1
        if misses > remaining:
            # A simple outline always has an ear; none means rounding made it degenerate here.
            raise GeometryError(
                f"{vertex_label('outline', points, i)}: the outline is too thin here to be split into "
                "convex pieces (numerically degenerate)"
            )
    if remaining == 3:
        last = int(np.flatnonzero(alive)[0])
        turn, tol = _turn(points, prev[last], last, nxt[last])
        if turn > tol:
            triangles.append([prev[last], last, nxt[last]])
    return triangles


def _drop_straight(points: np.ndarray, ring: list[int]) -> list[int]:
    """``ring`` without its vertices that lie on the line through their neighbours."""
    ring = list(ring)
    changed = True
    while changed and len(ring) >= 3:
        changed = False
        for k in range(len(ring)):
            turn, tol = _turn(points, ring[k - 1], ring[k], ring[(k + 1) % len(ring)])
            if abs(turn) <= tol:
                del ring[k]
                changed = True
                break
    return ring


def _merge_convex(
    points: np.ndarray, pieces: dict[int, list[int]], owner: dict[tuple[int, int], int]
) -> None:
    """Hertel-Mehlhorn: remove each diagonal whose two pieces form a convex piece of <= MAX_VERTICES."""
    diagonals = [(u, v) for (u, v) in owner if u < v and (v, u) in owner]
    for u, v in diagonals:
        p_id, q_id = owner.get((u, v)), owner.get((v, u))
        if p_id is None or q_id is None or p_id == q_id:
            continue
        p, q = pieces[p_id], pieces[q_id]
        k = p.index(v)
        p_from_v = p[k:] + p[:k]  # [v, ..., u]
        k = q.index(u)
        q_from_u = q[k:] + q[:k]  # [u, ..., v]
        merged = p_from_v + q_from_u[1:-1]
        m = len(merged)
        convex = True
        for idx in (0, len(p_from_v) - 1):  # v and u: the only vertices whose turn changes
            turn, tol = _turn(points, merged[idx - 1], merged[idx], merged[(idx + 1) % m])
            if turn < -tol:
                convex = False
        if not convex or len(_drop_straight(points, merged)) > MAX_VERTICES:
            continue
        pieces[p_id] = merged
        del pieces[q_id]
        del owner[(u, v)], owner[(v, u)]
        for j in range(m):
            edge = (merged[j], merged[(j + 1) % m])
            if edge in owner:
                owner[edge] = p_id


def decompose(outline: Any) -> list[Polygon]:
    """Split a simple (possibly concave) outline into convex :class:`Polygon` pieces.

    ``outline (n, 2)``: any orientation, any number of vertices (3 or more), no self-intersection.
    The pieces (ear clipping, then Hertel-Mehlhorn merging of neighbours while the union stays
    convex and has at most ``MAX_VERTICES`` vertices) cover the outline exactly: their areas sum
    to its area and they overlap only along shared edges. Vertices that lie on a straight line
    through their neighbours are allowed in the outline and left out of the pieces.

    Raises :class:`GeometryError` for a self-intersecting outline (naming the two edges that
    cross), repeated vertices, a zero-area outline or one that doubles back on itself.
    """
    points = point_array(outline, "outline")
    if len(points) < 3:
        raise GeometryError(f"outline: has {len(points)} vertices, at least 3 are needed")
    doubled = checks.outline(points, "outline")
    n = len(points)
    for i in range(n):
        turn, tol = _turn(points, i - 1, i, (i + 1) % n)
        a, b = points[i] - points[i - 1], points[(i + 1) % n] - points[i]
        if abs(turn) <= tol and float(a @ b) < 0.0:
            raise GeometryError(
                f"{vertex_label('outline', points, i)}: doubles back along its incoming edge "
                "(the outline overlaps itself)"
            )
    if doubled < 0.0:
        points = np.ascontiguousarray(points[::-1])
    triangles = _triangulate(points)
    pieces = dict(enumerate(triangles))
    owner = {(t[j], t[(j + 1) % 3]): pid for pid, t in pieces.items() for j in range(3)}
    _merge_convex(points, pieces, owner)
    result = []
    for ring in pieces.values():
        kept = _drop_straight(points, ring)
        if len(kept) >= 3:
            result.append(Polygon(points[kept]))
    return result
