"""Shapes: point, segment and convex polygon; validation, factories, mass properties.

A shape is a ``(k, 2) float64`` array of local vertices, counter-clockwise:

- ``k == 1``: a point particle,
- ``k == 2``: a segment (two distinct endpoints),
- ``3 <= k <= MAX_VERTICES``: a convex polygon with non-zero area.

Every public function of the engine validates its shape arguments with :func:`check_vertices`,
which is the single place where bad geometry is refused with a :class:`GeometryError` naming the
argument, the vertex and the reason.

Collinear vertices (a vertex lying on the straight line through its two neighbours) are
*rejected*, not silently dropped: silently dropping them would change the vertex count and the
indices the caller uses, and the error tells the caller exactly which vertex to remove.
:meth:`Polygon.hull` never produces them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from collision.tolerances import AREA_RELATIVE_EPSILON, CONVEXITY_RELATIVE_EPSILON, MAX_COORDINATE

MAX_VERTICES = 16

#: Nominal mass per unit density of a point or a segment, which have no area (the original's
#: ``5 * density``, ORIGINAL_DEMO.md section 4.2).
NOMINAL_MASS_PER_DENSITY = 5.0


class GeometryError(ValueError):
    """Invalid geometry: the message names the argument, the vertex and the reason."""


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------


def _fmt(p: np.ndarray) -> str:
    return f"({p[0]:.6g}, {p[1]:.6g})"


def _vertex(name: str, points: np.ndarray, i: int) -> str:
    return f"{name}[{i}] = {_fmt(points[i])}"


def _cross(ax: float, ay: float, bx: float, by: float) -> float:
    return ax * by - ay * bx


def _as_point_array(value: Any, name: str, what: str = "vertices") -> np.ndarray:
    """``value`` as a finite ``(k, 2) float64`` array with ``k >= 1`` (no other checks)."""
    try:
        points = np.array(value, dtype=np.float64, order="C")
    except (TypeError, ValueError) as exc:
        raise GeometryError(f"{name}: cannot be read as an array of (x, y) {what} ({exc})") from None
    if points.ndim != 2 or points.shape[1] != 2:
        if points.size == 0:
            raise GeometryError(f"{name}: has no {what} (at least 1 is needed)")
        hint = " (a single point is written [[x, y]])" if points.shape == (2,) else ""
        raise GeometryError(f"{name}: must have shape (k, 2), got {points.shape}{hint}")
    if points.shape[0] == 0:
        raise GeometryError(f"{name}: has no {what} (at least 1 is needed)")
    if not np.isfinite(points).all():
        i = int(np.argmin(np.isfinite(points).all(axis=1)))
        raise GeometryError(f"{name}[{i}] = {_fmt(points[i])}: is not finite")
    too_far = np.abs(points).max(axis=1) > MAX_COORDINATE
    if too_far.any():
        i = int(np.argmax(too_far))
        raise GeometryError(
            f"{name}[{i}] = {_fmt(points[i])}: is farther than MAX_COORDINATE = {MAX_COORDINATE:g}"
            " from the origin"
        )
    return points  # a new C-contiguous copy (np.array copies)


def _edges_cross(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Whether segment a-b meets each segment c[j]-d[j] (touching counts). ``a, b (2,)``, ``c, d (m, 2)``."""
    ex, ey = b[0] - a[0], b[1] - a[1]
    o1 = ex * (c[:, 1] - a[1]) - ey * (c[:, 0] - a[0])
    o2 = ex * (d[:, 1] - a[1]) - ey * (d[:, 0] - a[0])
    fx, fy = d[:, 0] - c[:, 0], d[:, 1] - c[:, 1]
    o3 = fx * (a[1] - c[:, 1]) - fy * (a[0] - c[:, 0])
    o4 = fx * (b[1] - c[:, 1]) - fy * (b[0] - c[:, 0])
    collinear = (o1 == 0.0) & (o2 == 0.0)
    general = (o1 * o2 <= 0.0) & (o3 * o4 <= 0.0) & ~collinear
    # Collinear edges meet when their boxes overlap on both axes.
    lo_x = np.maximum(min(a[0], b[0]), np.minimum(c[:, 0], d[:, 0]))
    hi_x = np.minimum(max(a[0], b[0]), np.maximum(c[:, 0], d[:, 0]))
    lo_y = np.maximum(min(a[1], b[1]), np.minimum(c[:, 1], d[:, 1]))
    hi_y = np.minimum(max(a[1], b[1]), np.maximum(c[:, 1], d[:, 1]))
    overlap = collinear & (lo_x <= hi_x) & (lo_y <= hi_y)
    result: np.ndarray = general | overlap
    return result


def _first_crossing(points: np.ndarray) -> tuple[int, int] | None:
    """First pair of non-adjacent edges ``(i, j)`` of the closed outline that meet, or None.

    Edge ``i`` runs from ``points[i]`` to ``points[(i + 1) % n]``.
    """
    n = len(points)
    ends = np.roll(points, -1, axis=0)
    for i in range(n - 2):
        last = n - 1 if i > 0 else n - 2  # edge n-1 is adjacent to edge 0
        if last < i + 2:
            continue
        js = np.arange(i + 2, last + 1)
        meets = _edges_cross(points[i], ends[i], points[js], ends[js])
        if meets.any():
            return i, int(js[int(np.argmax(meets))])
    return None


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
            raise GeometryError(f"{_vertex(name, points, hi)}: is the same point as {name}[{lo}]{closing}")


def _check_outline(points: np.ndarray, name: str) -> float:
    """Checks shared by convex polygons and decomposition outlines; returns twice the signed area."""
    _check_distinct_neighbours(points, name)
    extent = _extent(points)
    doubled = _twice_signed_area(points)
    crossing = _first_crossing(points)
    if crossing is not None and not _all_collinear(points, extent):
        i, j = crossing
        n = len(points)
        raise GeometryError(
            f"{name}: edge {i}-{(i + 1) % n} ({_fmt(points[i])} to {_fmt(points[(i + 1) % n])}) crosses "
            f"edge {j}-{(j + 1) % n} ({_fmt(points[j])} to {_fmt(points[(j + 1) % n])}) "
            "(the outline intersects itself)"
        )
    if abs(doubled) <= AREA_RELATIVE_EPSILON * extent * extent:
        raise GeometryError(
            f"{name}[0..{len(points) - 1}]: the outline has zero area (its vertices lie on one line"
            " or it folds back over itself)"
        )
    return doubled


def check_vertices(value: Any, name: str) -> np.ndarray:
    """Validate a shape and return it as a new C-contiguous ``(k, 2) float64`` CCW array.

    ``value`` is a :class:`Polygon` (a copy of its vertices is returned) or anything
    ``numpy.array`` reads as ``(k, 2)`` numbers with ``1 <= k <= MAX_VERTICES``. Two vertices must
    be distinct; three or more must form a convex outline with non-zero area and no collinear
    vertex. Clockwise input is reordered to counter-clockwise keeping vertex 0 first
    (``[v0, v1, ..., vk-1]`` becomes ``[v0, vk-1, ..., v1]``).

    Raises :class:`GeometryError` naming ``name``, the vertex index and the reason.
    """
    if isinstance(value, Polygon):
        return value.vertices.copy()
    points = _as_point_array(value, name)
    k = len(points)
    if k > MAX_VERTICES:
        raise GeometryError(
            f"{name}: has {k} vertices, more than MAX_VERTICES = {MAX_VERTICES} "
            "(use decompose() to split a large outline)"
        )
    if k == 1:
        return points
    if k == 2:
        if points[0, 0] == points[1, 0] and points[0, 1] == points[1, 1]:
            raise GeometryError(
                f"{_vertex(name, points, 1)}: is the same point as {name}[0] "
                "(a segment needs two distinct endpoints)"
            )
        return points
    orientation = _convex_orientation(points)
    if orientation == 0.0:
        # Slow path: find the most helpful reason (duplicates, crossing, zero area, bad turn).
        orientation = 1.0 if _check_outline(points, name) > 0.0 else -1.0
        _check_turns(points, name, orientation)
        raise GeometryError(f"{name}: is not a convex outline")  # unreachable: a check above raised
    if orientation < 0.0:
        points = np.ascontiguousarray(np.concatenate([points[:1], points[:0:-1]]))
    return points


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
        turn = orientation * _cross(ax, ay, bx, by)
        tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
        if turn < -tol:
            raise GeometryError(f"{_vertex(name, points, i)}: makes a reflex turn (outline is not convex)")
        if turn <= tol:
            if ax * bx + ay * by < 0.0:
                reason = "doubles back along its incoming edge (outline is not convex)"
            else:
                reason = "lies on the line through its neighbours (collinear vertex; remove it)"
            raise GeometryError(f"{_vertex(name, points, i)}: {reason}")


def _check_length(value: Any, name: str, *, positive: bool = True) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} = {value!r}: must be a number") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} = {x}: must be finite")
    if positive and x <= 0.0:
        raise ValueError(f"{name} = {x:g}: must be > 0")
    if not positive and x < 0.0:
        raise ValueError(f"{name} = {x:g}: must be >= 0")
    return x


def _check_count(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} = {value!r}: must be an integer")
    n = int(value)
    if not lo <= n <= hi:
        raise ValueError(f"{name} = {n}: must be in [{lo}, {hi}]")
    return n


def _factory_result(cls: type[Polygon], points: np.ndarray, args: str) -> Polygon:
    """``cls(points)``, but a refusal names the factory's arguments, not its internal vertices
    (e.g. ``Polygon.box(1e-300, 1e-300)``: the corners round to a zero-area outline)."""
    try:
        return cls(points)
    except GeometryError as exc:
        raise GeometryError(f"{args}: the shape they make is not usable ({exc})") from None


# ---------------------------------------------------------------------------------------------
# Polygon
# ---------------------------------------------------------------------------------------------


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _edge_normals(vertices: np.ndarray) -> np.ndarray:
    """Unit outward normals ``(k, 2)`` of a CCW outline; a segment's two line normals; a point's none."""
    k = len(vertices)
    if k == 1:
        return np.zeros((0, 2))
    edges = np.roll(vertices, -1, axis=0) - vertices
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])
    # "+ 0.0" turns -0.0 into 0.0 so printed normals read cleanly.
    result: np.ndarray = normals / np.hypot(normals[:, 0], normals[:, 1])[:, None] + 0.0
    return result


def _area_centroid(vertices: np.ndarray) -> tuple[float, np.ndarray]:
    k = len(vertices)
    if k < 3:
        return 0.0, vertices.mean(axis=0)
    # Relative to vertex 0 so that far-from-origin shapes keep their precision.
    rel = vertices - vertices[0]
    x0, y0 = rel[:-1, 0], rel[:-1, 1]
    x1, y1 = rel[1:, 0], rel[1:, 1]
    cross = x0 * y1 - y0 * x1
    doubled = float(cross.sum())
    cx = float(np.sum((x0 + x1) * cross)) / (3.0 * doubled)
    cy = float(np.sum((y0 + y1) * cross)) / (3.0 * doubled)
    return 0.5 * doubled, vertices[0] + np.array([cx, cy])


class Polygon:
    """A point, segment or convex polygon in local coordinates.

    ``Polygon(vertices)``: ``vertices`` is ``(k, 2)`` array-like (or another Polygon), validated by
    :func:`check_vertices`; clockwise input is reordered to CCW, vertices are *not* recentred.

    >>> box = Polygon.box(2.0, 1.0)
    >>> float(box.area), box.centroid.tolist(), len(box)
    (2.0, [0.0, 0.0], 4)

    Attributes (read-only arrays): ``vertices (k, 2)``, ``normals (k, 2)`` (unit outward normal of
    edge ``i`` = ``vertices[i] -> vertices[(i + 1) % k]``; a segment has ``+n`` and ``-n`` of its
    line, a point has none: ``(0, 2)``), ``area`` (0 for points and segments), ``centroid (2,)``,
    ``radius`` (largest vertex distance from the centroid).
    """

    __slots__ = ("_vertices", "_normals", "_area", "_centroid", "_radius")

    def __init__(self, vertices: Any) -> None:
        self._set(check_vertices(vertices, "vertices"))

    def _set(self, checked: np.ndarray) -> None:
        v = _readonly(checked)
        area, centroid = _area_centroid(v)
        self._vertices = v
        self._normals: np.ndarray | None = None  # made on first use
        self._area = area
        self._centroid = _readonly(centroid)
        self._radius = float(np.max(np.hypot(v[:, 0] - centroid[0], v[:, 1] - centroid[1])))

    @classmethod
    def from_checked(cls, vertices: np.ndarray) -> Polygon:
        """A Polygon of ``vertices`` as :func:`check_vertices` returned them (a new ``(k, 2)``
        CCW array, kept as is): the check is not repeated."""
        poly = cls.__new__(cls)
        poly._set(vertices)
        return poly

    # -- properties ---------------------------------------------------------------------------

    @property
    def vertices(self) -> np.ndarray:
        """``(k, 2) float64`` CCW local vertices (read-only)."""
        return self._vertices

    @property
    def normals(self) -> np.ndarray:
        """``(k, 2) float64`` unit outward edge normals (``(0, 2)`` for a point; read-only)."""
        if self._normals is None:
            self._normals = _readonly(_edge_normals(self._vertices))
        return self._normals

    @property
    def area(self) -> float:
        """Area in units^2 (0 for points and segments)."""
        return self._area

    @property
    def centroid(self) -> np.ndarray:
        """``(2,) float64`` centre of area (midpoint of a segment, the point itself for a point)."""
        return self._centroid

    @property
    def radius(self) -> float:
        """Largest distance (units) of a vertex from the centroid."""
        return self._radius

    @property
    def kind(self) -> str:
        """``"point"``, ``"segment"`` or ``"polygon"``."""
        return ("point", "segment", "polygon")[min(len(self._vertices), 3) - 1]

    def __len__(self) -> int:
        return len(self._vertices)

    def __repr__(self) -> str:
        pts = ", ".join(_fmt(p) for p in self._vertices)
        return f"Polygon([{pts}])"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polygon):
            return NotImplemented
        return bool(np.array_equal(self._vertices, other._vertices))

    def __hash__(self) -> int:
        return hash(self._vertices.tobytes())

    # -- mass ---------------------------------------------------------------------------------

    def mass_properties(self, density: float = 1.0) -> tuple[float, float]:
        """``(mass, inertia)`` for a uniform ``density`` (mass per unit area), inertia about the centroid.

        Polygons: mass = area * density, exact polar moment of the area. Points and segments
        have no area and get the original's nominal mass ``5 * density``; a point's inertia is 0,
        a segment's is a thin rod's ``m L^2 / 12``.
        """
        d = _check_length(density, "density", positive=False)
        v = self._vertices
        k = len(v)
        if k == 1:
            return NOMINAL_MASS_PER_DENSITY * d, 0.0
        if k == 2:
            m = NOMINAL_MASS_PER_DENSITY * d
            length_sq = float(np.sum((v[1] - v[0]) ** 2))
            return m, m * length_sq / 12.0
        rel = v - self._centroid
        p, q = rel, np.roll(rel, -1, axis=0)
        cross = p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0]
        dots = np.sum(p * p, axis=1) + np.sum(p * q, axis=1) + np.sum(q * q, axis=1)
        # Polar second moment of a CCW polygon about the origin: sum(cross * dots) / 12.
        inertia = d * float(np.sum(cross * dots)) / 12.0
        return self._area * d, inertia

    # -- transforms ---------------------------------------------------------------------------

    def translated(self, offset: Any) -> Polygon:
        """A copy moved by ``offset (2,)``."""
        o = np.asarray(offset, dtype=np.float64)
        if o.shape != (2,) or not np.isfinite(o).all():
            raise ValueError(f"offset = {offset!r}: must be a finite (2,) vector")
        return Polygon(self._vertices + o)

    def recentred(self) -> Polygon:
        """A copy with vertices relative to the centroid (what the world stores)."""
        return Polygon(self._vertices - self._centroid)

    def rotated(self, angle: float) -> Polygon:
        """A copy rotated by ``angle`` radians (CCW positive) about the local origin."""
        try:
            a = float(angle)
        except (TypeError, ValueError):
            raise ValueError(f"angle = {angle!r}: must be a number") from None
        if not math.isfinite(a):
            raise ValueError(f"angle = {angle!r}: must be finite")
        c, s = math.cos(a), math.sin(a)
        rot = np.array([[c, s], [-s, c]])
        return Polygon(self._vertices @ rot)

    # -- factories ----------------------------------------------------------------------------

    @classmethod
    def box(cls, w: float, h: float) -> Polygon:
        """A ``w`` x ``h`` axis-aligned box centred on the origin, CCW from ``(-w/2, -h/2)``."""
        hw = 0.5 * _check_length(w, "w")
        hh = 0.5 * _check_length(h, "h")
        corners = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        return _factory_result(cls, corners, f"w = {w!r}, h = {h!r}")

    @classmethod
    def regular(cls, n: int, r: float) -> Polygon:
        """A regular ``n``-gon (3 <= n <= MAX_VERTICES) with circumradius ``r``, flat bottom edge."""
        n = _check_count(n, "n", 3, MAX_VERTICES)
        r = _check_length(r, "r")
        angles = -0.5 * math.pi + (2.0 * np.arange(n) - 1.0) * math.pi / n
        return _factory_result(cls, np.column_stack([r * np.cos(angles), r * np.sin(angles)]), f"r = {r!r}")

    @classmethod
    def blob(cls, n: int, rx: float, ry: float) -> Polygon:
        """The original's random-body family: vertex ``i`` at angle ``(2i + 3) pi / n`` on an ellipse.

        ``n = 1`` is the point (0, 0), ``n = 2`` the vertical segment (0, -ry)..(0, ry), ``n = 4``
        an axis-aligned ``sqrt(2) rx`` x ``sqrt(2) ry`` rectangle (corners on the ellipse).
        ``rx``, ``ry`` are the ellipse's semi-axes (units).
        """
        n = _check_count(n, "n", 1, MAX_VERTICES)
        if n == 1:
            return cls([[0.0, 0.0]])
        ry = _check_length(ry, "ry")
        if n == 2:
            return _factory_result(cls, np.array([[0.0, -ry], [0.0, ry]]), f"ry = {ry!r}")
        rx = _check_length(rx, "rx")
        angles = (2.0 * np.arange(n) + 3.0) * math.pi / n
        outline = np.column_stack([rx * np.cos(angles), ry * np.sin(angles)])
        return _factory_result(cls, outline, f"rx = {rx!r}, ry = {ry!r}")

    @classmethod
    def hull(cls, points: Any) -> Polygon:
        """Convex hull of any number of points ``(m, 2)``: a point, a segment or a polygon.

        Collinear points on the hull's edges are left out. GeometryError if the hull has more
        than MAX_VERTICES vertices.
        """
        from collision.decompose import convex_hull  # decompose.py builds on Polygon

        pts = _as_point_array(points, "points", "points")
        hull = convex_hull(pts)
        if len(hull) > MAX_VERTICES:
            raise GeometryError(
                f"points: their convex hull has {len(hull)} vertices, more than MAX_VERTICES = {MAX_VERTICES}"
            )
        try:
            return cls(hull)
        except GeometryError:
            if len(hull) < 3:
                raise
        # Numerically flat (e.g. one far point and a tiny cluster): the hull is, to rounding,
        # the segment between its two farthest vertices.
        gaps = np.sum((hull[:, None, :] - hull[None, :, :]) ** 2, axis=2)
        i, j = np.unravel_index(int(np.argmax(gaps)), gaps.shape)
        return cls(hull[[min(i, j), max(i, j)]])


def compound_mass_properties(parts: list[Polygon]) -> tuple[float, float, np.ndarray]:
    """Mass properties of a rigid body made of ``parts`` (in one frame) at unit density:
    ``(mass, inertia, centre (2,))``. The mass is the sum of the parts', the centre of mass
    their mass-weighted centroid, the inertia (about that centre) the parallel-axis sum
    ``sum(I_i + m_i |c_i - c|^2)``; points and segments count with their nominal mass."""
    unit = [poly.mass_properties(1.0) for poly in parts]
    masses = np.array([m for m, _ in unit])
    total = float(masses.sum())
    centroids = np.array([poly.centroid for poly in parts])
    centre = (masses[:, None] * centroids).sum(axis=0) / total
    offsets = centroids - centre
    inertia = float(
        sum(i for _, i in unit) + float((masses * (offsets[:, 0] ** 2 + offsets[:, 1] ** 2)).sum())
    )
    return total, inertia, centre
