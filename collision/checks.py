"""User input turned into checked numbers and arrays, once, naming the argument.

Every public function of the engine checks its arguments here: numbers, vectors, indices and
flags by the functions of collision.arguments (re-exported here), shapes by the ones below
(collision.shapes adds its own for Polygons). A refusal is a ``ValueError`` whose message starts with the
argument's name and value and says what was wrong: ``dt = -1.0: must be > 0``. Past these
checks, kernels trust their input: the limits in collision.tolerances keep every product the
step forms far from overflow, so nothing inside returns NaN.

Shapes are refused with :class:`GeometryError` (a ValueError) naming the argument, the vertex
and the reason (:func:`convex_vertices`, which ``collision.shapes.check_vertices`` uses).
Collinear vertices (a vertex lying on the straight line through its two neighbours) are
*rejected*, not silently dropped: dropping them would change the vertex count and the indices
the caller uses, and the error tells the caller exactly which vertex to remove.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np
from numba import njit

from collision import geometry
from collision.arguments import (  # the argument checks, read by the engine from here
    _real_array,
    _Refusal,
    body_indices,
    boolean,
    index,
    integer,
    material,
    number,
    point,
    push_limits,
    real,
    real_array,
    show,
    vector,
    vectors,
)
from collision.tolerances import (
    AREA_RELATIVE_EPSILON,
    CONVEXITY_RELATIVE_EPSILON,
    FEATURE_RELATIVE_SIZE,
    MAX_COORDINATE,
    MAX_VERTICES,
    MIN_FEATURE_SIZE,
)

__all__ = [
    "GeometryError",
    "body_indices",
    "boolean",
    "convex_vertices",
    "cross",
    "features",
    "format_point",
    "index",
    "integer",
    "material",
    "number",
    "outline",
    "placement",
    "point",
    "point_array",
    "read_points",
    "real",
    "real_array",
    "push_limits",
    "refuse_vertices",
    "shape_status",
    "show",
    "smallest_feature_allowed",
    "vector",
    "vectors",
    "vertex_label",
]


class GeometryError(ValueError):
    """Invalid geometry: the message names the argument, the vertex and the reason."""


# ---------------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------------


def format_point(p: np.ndarray) -> str:
    """``(x, y)`` with 6 significant digits: how messages show a point."""
    return f"({p[0]:.6g}, {p[1]:.6g})"


def vertex_label(name: str, points: np.ndarray, i: int) -> str:
    """``name[i] = (x, y)``: how a refusal names a vertex."""
    return f"{name}[{i}] = {format_point(points[i])}"


def cross(ax: float, ay: float, bx: float, by: float) -> float:
    """The 2D cross product (z of the 3D one) of (ax, ay) and (bx, by)."""
    return ax * by - ay * bx


def read_points(value: Any, name: str, what: str = "vertices") -> np.ndarray:
    """``value`` as a new C-contiguous ``(k, 2) float64`` array with ``k >= 1``, its numbers
    read as :func:`vector` reads them (no check of their values)."""
    try:
        points = _real_array(value)
    except _Refusal as why:
        raise GeometryError(f"{name}: cannot be read as an array of (x, y) {what}: {why}") from None
    if points.ndim != 2 or points.shape[1] != 2:
        if points.size == 0:
            raise GeometryError(f"{name}: has no {what} (at least 1 is needed)")
        hint = " (a single point is written [[x, y]])" if points.shape == (2,) else ""
        raise GeometryError(f"{name}: must have shape (k, 2), got {points.shape}{hint}")
    if points.shape[0] == 0:
        raise GeometryError(f"{name}: has no {what} (at least 1 is needed)")
    return points


def _check_coordinates(points: np.ndarray, name: str) -> None:
    """Every coordinate of ``points (k, 2)`` finite and at most MAX_COORDINATE in size."""
    if not np.isfinite(points).all():
        i = int(np.argmin(np.isfinite(points).all(axis=1)))
        raise GeometryError(f"{name}[{i}] = {format_point(points[i])}: is not finite")
    too_far = np.abs(points).max(axis=1) > MAX_COORDINATE
    if too_far.any():
        i = int(np.argmax(too_far))
        raise GeometryError(
            f"{name}[{i}] = {format_point(points[i])}: is farther than MAX_COORDINATE = {MAX_COORDINATE:g}"
            " from the origin"
        )


def point_array(value: Any, name: str, what: str = "vertices") -> np.ndarray:
    """``value`` as a finite ``(k, 2) float64`` array with ``k >= 1`` (no other checks)."""
    points = read_points(value, name, what)
    _check_coordinates(points, name)
    return points  # a new C-contiguous copy (np.array copies)


def _twice_signed_area(points: np.ndarray) -> float:
    """Twice the signed area of the closed outline (positive when CCW), relative to vertex 0."""
    rel = points - points[0]
    return float(np.sum(rel[:-1, 0] * rel[1:, 1] - rel[:-1, 1] * rel[1:, 0]))


def _extent(points: np.ndarray) -> float:
    return float(np.max(np.ptp(points, axis=0)))


def _all_collinear(points: np.ndarray, extent: float) -> bool:
    """Whether every point lies (within the area tolerance) on one line through ``points[0]``."""
    rel = points - points[0]
    far = rel[int(np.argmax(np.hypot(rel[:, 0], rel[:, 1])))]
    length = math.hypot(far[0], far[1])
    if length == 0.0:
        return True
    offsets = np.abs(rel[:, 0] * far[1] - rel[:, 1] * far[0]) / length
    return bool(np.max(offsets) <= AREA_RELATIVE_EPSILON * extent)


def _check_distinct_neighbours(points: np.ndarray, name: str) -> None:
    n = len(points)
    for i in range(n):
        j = (i + 1) % n
        if points[i, 0] == points[j, 0] and points[i, 1] == points[j, 1]:
            lo, hi = min(i, j), max(i, j)
            closing = " (do not repeat the first vertex at the end)" if (lo, hi) == (0, n - 1) else ""
            raise GeometryError(
                f"{vertex_label(name, points, hi)}: is the same point as {name}[{lo}]{closing}"
            )


def outline(points: np.ndarray, name: str) -> float:
    """The checks convex polygons and decomposition outlines share (distinct neighbours, no
    crossing, non-zero area; GeometryError naming the vertex); returns twice the signed area."""
    _check_distinct_neighbours(points, name)
    extent = _extent(points)
    doubled = _twice_signed_area(points)
    i, j = geometry.first_crossing(points)
    if i >= 0 and not _all_collinear(points, extent):
        n = len(points)
        edge_i = f"{i}-{(i + 1) % n} ({format_point(points[i])} to {format_point(points[(i + 1) % n])})"
        edge_j = f"{j}-{(j + 1) % n} ({format_point(points[j])} to {format_point(points[(j + 1) % n])})"
        raise GeometryError(f"{name}: edge {edge_i} crosses edge {edge_j} (the outline intersects itself)")
    if abs(doubled) <= AREA_RELATIVE_EPSILON * extent * extent:
        raise GeometryError(
            f"{name}[0..{len(points) - 1}]: the outline has zero area (its vertices lie on one line"
            " or it folds back over itself)"
        )
    return doubled


@njit(cache=True)
def _convex_orientation(points: np.ndarray) -> float:
    """+1 (CCW) or -1 (CW) for a valid convex outline of 3+ vertices, 0 if any check fails.

    The fast path of :func:`check_vertices`: every turn strictly one way, winding once, non-zero
    area. A closed outline that turns the same way at every vertex and winds once is convex.
    """
    k = points.shape[0]
    positive = 0
    negative = 0
    winding = 0.0
    doubled = 0.0
    lo_x = hi_x = points[0, 0]
    lo_y = hi_y = points[0, 1]
    for i in range(k):
        h = i - 1 if i > 0 else k - 1
        j = i + 1 if i + 1 < k else 0
        ax = points[i, 0] - points[h, 0]
        ay = points[i, 1] - points[h, 1]
        bx = points[j, 0] - points[i, 0]
        by = points[j, 1] - points[i, 1]
        cross = ax * by - ay * bx
        tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
        if cross > tol:
            positive += 1
        elif cross < -tol:
            negative += 1
        else:
            return 0.0
        winding += math.atan2(cross, ax * bx + ay * by)
        # Shoelace relative to vertex 0 keeps precision far from the origin.
        doubled += (points[i, 0] - points[0, 0]) * (points[j, 1] - points[0, 1]) - (
            points[i, 1] - points[0, 1]
        ) * (points[j, 0] - points[0, 0])
        lo_x = min(lo_x, points[i, 0])
        hi_x = max(hi_x, points[i, 0])
        lo_y = min(lo_y, points[i, 1])
        hi_y = max(hi_y, points[i, 1])
    if positive > 0 and negative > 0:
        return 0.0
    if abs(winding) > 3.0 * math.pi:
        return 0.0  # winds more than once: a star polygon
    extent = max(hi_x - lo_x, hi_y - lo_y)
    if abs(doubled) <= AREA_RELATIVE_EPSILON * extent * extent:
        return 0.0
    return 1.0 if positive > 0 else -1.0


def _check_turns(points: np.ndarray, name: str, orientation: float) -> None:
    """Every vertex of a simple outline must turn the same way as the outline winds."""
    n = len(points)
    for i in range(n):
        p0, p1, p2 = points[i - 1], points[i], points[(i + 1) % n]
        ax, ay = p1[0] - p0[0], p1[1] - p0[1]
        bx, by = p2[0] - p1[0], p2[1] - p1[1]
        turn = orientation * cross(ax, ay, bx, by)
        tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
        if turn < -tol:
            raise GeometryError(
                f"{vertex_label(name, points, i)}: makes a reflex turn (outline is not convex)"
            )
        if turn <= tol:
            if ax * bx + ay * by < 0.0:
                reason = "doubles back along its incoming edge (outline is not convex)"
            else:
                reason = "lies on the line through its neighbours (collinear vertex; remove it)"
            raise GeometryError(f"{vertex_label(name, points, i)}: {reason}")


def convex_vertices(value: Any, name: str) -> np.ndarray:
    """Validate a shape and return it as a new C-contiguous ``(k, 2) float64`` CCW array.

    ``value`` is anything ``numpy.array`` reads as ``(k, 2)`` numbers, judged by
    :func:`shape_status`: ``1 <= k <= MAX_VERTICES``; two vertices must be distinct; three or
    more must form a convex outline with non-zero area and no collinear vertex. Clockwise input
    is reordered to counter-clockwise keeping vertex 0 first (``[v0, v1, ..., vk-1]`` becomes
    ``[v0, vk-1, ..., v1]``).

    Raises :class:`GeometryError` naming ``name``, the vertex index and the reason.
    """
    points = read_points(value, name)
    status = shape_status(points)
    if status == 0:
        refuse_vertices(points, name)
    if status < 0:
        points = np.ascontiguousarray(np.concatenate([points[:1], points[:0:-1]]))
    return points


@njit(cache=True)
def shape_status(points: np.ndarray) -> int:
    """The rule every shape passes, compiled: ``1`` for a valid counter-clockwise shape, ``-1``
    for a valid clockwise one (to be reordered), ``0`` for anything else.

    ``points (k, m) float64``, any ``k`` and ``m``. Valid: ``m == 2``, ``1 <= k <=
    MAX_VERTICES`` vertices, each coordinate finite and at most MAX_COORDINATE in size; a
    segment's two ends distinct; three or more vertices a convex outline
    (:func:`_convex_orientation`); no feature smaller than :func:`smallest_feature_allowed`
    of the coordinates' size (:func:`features`). :func:`convex_vertices` and the checked
    kernels of the
    one-pair and batch faces all decide by this function; :func:`refuse_vertices` says why it
    refused.
    """
    k = points.shape[0]
    if points.shape[1] != 2 or k < 1 or k > MAX_VERTICES:
        return 0
    for i in range(k):
        # Written so that NaN fails too.
        if not (abs(points[i, 0]) <= MAX_COORDINATE and abs(points[i, 1]) <= MAX_COORDINATE):
            return 0
    if k == 1:
        return 1
    if k == 2:
        status = 0 if points[0, 0] == points[1, 0] and points[0, 1] == points[1, 1] else 1
    else:
        orientation = _convex_orientation(points)
        status = 1 if orientation > 0.0 else (-1 if orientation < 0.0 else 0)
    if status == 0:
        return 0
    size, _ = geometry.smallest_feature(points)
    return status if size >= smallest_feature_allowed(np.abs(points).max()) else 0


def refuse_vertices(points: np.ndarray, name: str) -> NoReturn:
    """Raise the :class:`GeometryError` saying why :func:`shape_status` refused ``points
    (k, 2)``: the first broken rule, naming ``name`` and the vertex."""
    _check_coordinates(points, name)
    k = len(points)
    if k > MAX_VERTICES:
        raise GeometryError(
            f"{name}: has {k} vertices, more than MAX_VERTICES = {MAX_VERTICES} "
            "(use decompose() to split a large outline)"
        )
    if k == 2:
        if points[0, 0] == points[1, 0] and points[0, 1] == points[1, 1]:
            raise GeometryError(
                f"{vertex_label(name, points, 1)}: is the same point as {name}[0] "
                "(a segment needs two distinct endpoints)"
            )
    else:
        orientation = _convex_orientation(points)
        if orientation == 0.0:
            # Find the most helpful reason (duplicates, crossing, zero area, bad turn).
            orientation = 1.0 if outline(points, name) > 0.0 else -1.0
            _check_turns(points, name, orientation)
            raise GeometryError(f"{name}: is not a convex outline")
        if orientation < 0.0:
            points = np.ascontiguousarray(np.concatenate([points[:1], points[:0:-1]]))
    features(points, name)
    raise AssertionError(f"{name}: shape_status refused a shape that the checks accept")


@njit(cache=True)
def smallest_feature_allowed(scale: float) -> float:
    """The smallest feature (units) a shape whose coordinates are up to ``scale`` in size
    may have: ``FEATURE_RELATIVE_SIZE`` of it, and at least ``MIN_FEATURE_SIZE``."""
    return max(MIN_FEATURE_SIZE, FEATURE_RELATIVE_SIZE * scale)


def features(points: np.ndarray, name: str, scale: float = 0.0, place: str = "") -> None:
    """Refuse (GeometryError naming ``name`` and the feature) a valid CCW shape ``points (k,
    2)`` whose smallest feature is below :func:`smallest_feature_allowed` of the size of its
    coordinates: its own largest coordinate, or ``scale`` when larger (where the shape will be
    placed, described by ``place``)."""
    size, edge = geometry.smallest_feature(points)
    own = float(np.abs(points).max())
    scale = max(scale, own)
    allowed = smallest_feature_allowed(scale)
    if size >= allowed:
        return
    k = len(points)
    if k == 2:
        what = f"the segment is {size:.3g} units long"
    elif edge >= 0:
        j = (edge + 1) % k
        what = (
            f"edge {edge}-{j} ({format_point(points[edge])} to {format_point(points[j])}) "
            f"is {size:.3g} units long"
        )
    else:
        what = f"the polygon is only {size:.3g} units wide"
    if allowed == MIN_FEATURE_SIZE:
        why = f"below MIN_FEATURE_SIZE = {MIN_FEATURE_SIZE:g}"
    else:
        where = place or "its coordinates"
        why = (
            f"below {allowed:.3g}, FEATURE_RELATIVE_SIZE = {FEATURE_RELATIVE_SIZE:g} of the size "
            f"of {where} ({scale:.3g}): rounding would erase it"
        )
    raise GeometryError(f"{name}: {what}, {why}")


def placement(parts: list[np.ndarray], name: str, position: np.ndarray) -> None:
    """Refuse (GeometryError naming ``name``, the part and the feature) a body whose shape
    ``parts`` (each ``(k, 2)``, relative to the body's ``position (2,)``) has a feature too
    small for where it is placed (:func:`features`: a 1e-16 box at (0, 1) rounds to a point)."""
    reach = float(np.abs(position).max())
    for i, local in enumerate(parts):
        label = name if len(parts) == 1 else f"{name}[{i}]"
        radius = float(np.hypot(local[:, 0], local[:, 1]).max())
        features(local, label, reach + radius, f"its place, position = {format_point(position)}")
