"""Outlines: a simple (possibly concave) outline decomposed into convex pieces (the tutorial's
advice for concave shapes: split them into convex parts).

Ear clipping triangulates the outline; neighbouring pieces are then merged while their union
stays convex and within ``MAX_VERTICES`` (Hertel-Mehlhorn), so the pieces are few.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from collision import checks
from collision.checks import GeometryError, cross, point_array, vertex_label
from collision.kernels import compiled_only
from collision.shapes import Polygon
from collision.tolerances import CONVEXITY_RELATIVE_EPSILON, MAX_OUTLINE_VERTICES, MAX_VERTICES


def _turn(points: np.ndarray, a: int, b: int, c: int) -> tuple[float, float]:
    """Cross product of the turn a -> b -> c and the tolerance under which it counts as straight."""
    ax, ay = points[b, 0] - points[a, 0], points[b, 1] - points[a, 1]
    bx, by = points[c, 0] - points[b, 0], points[c, 1] - points[b, 1]
    tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
    return cross(ax, ay, bx, by), tol


@compiled_only()
def _turn_is_convex(points: np.ndarray, a: int, b: int, c: int) -> bool:
    """The turn a -> b -> c is strictly left, beyond the convexity tolerance (:func:`_turn`)."""
    ax = points[b, 0] - points[a, 0]
    ay = points[b, 1] - points[a, 1]
    bx = points[c, 0] - points[b, 0]
    by = points[c, 1] - points[b, 1]
    return ax * by - ay * bx > CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)


@compiled_only()
def _is_ear(points: np.ndarray, prev: np.ndarray, nxt: np.ndarray, i: int) -> bool:
    """Vertex ``i`` of the remaining CCW outline (linked by ``prev``/``nxt``) is strictly convex
    and its triangle holds no other remaining vertex, on its border included (the diagonal
    would touch it)."""
    a = prev[i]
    c = nxt[i]
    if not _turn_is_convex(points, a, i, c):
        return False
    v = nxt[c]
    while v != a:
        qx = points[v, 0]
        qy = points[v, 1]
        ax, ay = points[a, 0], points[a, 1]
        ix, iy = points[i, 0], points[i, 1]
        cx, cy = points[c, 0], points[c, 1]
        if (
            (ix - ax) * (qy - ay) - (iy - ay) * (qx - ax) >= 0.0
            and (cx - ix) * (qy - iy) - (cy - iy) * (qx - ix) >= 0.0
            and (ax - cx) * (qy - cy) - (ay - cy) * (qx - cx) >= 0.0
        ):
            return False
        v = nxt[v]
    return True


@njit(cache=True)
def _ear_clip(points: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Ear clipping of a simple CCW outline ``points (n, 2)``: ``(triangles (n - 2, 3) int64,
    count, stuck)``, the first ``count`` rows CCW index triples; ``stuck`` is the vertex where
    no ear was left (rounding made the outline degenerate there), or -1.

    Each ear test walks the remaining vertices: O(n^2) in all, compiled (a 4 000-vertex comb
    in well under a second; ``MAX_OUTLINE_VERTICES`` bounds it)."""
    n = points.shape[0]
    prev = np.empty(n, dtype=np.int64)
    nxt = np.empty(n, dtype=np.int64)
    for v in range(n):
        prev[v] = v - 1 if v > 0 else n - 1
        nxt[v] = v + 1 if v + 1 < n else 0
    ear = np.empty(n, dtype=np.bool_)
    for v in range(n):
        ear[v] = _is_ear(points, prev, nxt, v)
    triangles = np.empty((max(n - 2, 0), 3), dtype=np.int64)
    count = 0
    remaining = n
    i = 0
    misses = 0
    while remaining > 3:
        if ear[i]:
            a = prev[i]
            c = nxt[i]
            triangles[count, 0] = a
            triangles[count, 1] = i
            triangles[count, 2] = c
            count += 1
            nxt[a] = c
            prev[c] = a
            remaining -= 1
            # Only the two neighbours' ear status can change.
            ear[a] = _is_ear(points, prev, nxt, a)
            ear[c] = _is_ear(points, prev, nxt, c)
            i = c
            misses = 0
            continue
        i = nxt[i]
        misses += 1
        if misses > remaining:
            return triangles, count, i
    last = min(i, prev[i], nxt[i])  # the last triangle, from its lowest vertex
    if remaining == 3 and _turn_is_convex(points, prev[last], last, nxt[last]):
        triangles[count, 0] = prev[last]
        triangles[count, 1] = last
        triangles[count, 2] = nxt[last]
        count += 1
    return triangles, count, -1


def _triangulate(points: np.ndarray) -> list[list[int]]:
    """Ear clipping of a simple CCW outline; triangles as CCW index triples."""
    triangles, count, stuck = _ear_clip(points)
    if stuck >= 0:
        # A simple outline always has an ear; none means rounding made it degenerate here.
        raise GeometryError(
            f"{vertex_label('outline', points, stuck)}: the outline is too thin here to be split into "
            "convex pieces (numerically degenerate)"
        )
    return [[int(v) for v in row] for row in triangles[:count]]


@njit(cache=True)
def _straight_free(points: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """``ring`` (vertex indices) without its vertices that lie on the line through their
    neighbours (within the convexity tolerance), dropped one at a time, the first in ring order
    first. A drop only changes its two neighbours' turns, so the search goes on from the one
    before it rather than from the start (the vertices before that are still not straight):
    linear, not quadratic, in a merged piece's length."""
    kept = ring.copy()
    k = kept.shape[0]
    s = 0
    while k >= 3 and s < k:
        a = kept[s - 1] if s > 0 else kept[k - 1]
        b = kept[s]
        c = kept[s + 1] if s + 1 < k else kept[0]
        ax = points[b, 0] - points[a, 0]
        ay = points[b, 1] - points[a, 1]
        bx = points[c, 0] - points[b, 0]
        by = points[c, 1] - points[b, 1]
        tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
        if abs(ax * by - ay * bx) > tol:
            s += 1
            continue
        last = s == k - 1
        kept[s : k - 1] = kept[s + 1 : k].copy()
        k -= 1
        # Dropping the last vertex changed vertex 0's turn: look again from the start.
        s = 0 if last else max(s - 1, 0)
    return kept[:k].copy()


def _drop_straight(points: np.ndarray, ring: list[int]) -> list[int]:
    """``ring`` without its vertices that lie on the line through their neighbours."""
    return [int(v) for v in _straight_free(points, np.array(ring, dtype=np.int64))]


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

    ``outline (n, 2)``: any orientation, 3 to ``MAX_OUTLINE_VERTICES`` vertices, no
    self-intersection.
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
    if len(points) > MAX_OUTLINE_VERTICES:
        raise GeometryError(
            f"outline: has {len(points)} vertices, more than MAX_OUTLINE_VERTICES = {MAX_OUTLINE_VERTICES} "
            "(simplify it first)"
        )
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
        if len(kept) < 3:
            continue
        try:
            result.append(Polygon(points[kept]))
        except GeometryError as exc:  # a sliver too thin for where it is (checks.features)
            given = sorted(n - 1 - v if doubled < 0.0 else v for v in kept)
            raise GeometryError(
                f"outline: the convex piece of vertices {given} is not usable ({exc})"
            ) from None
    return result
