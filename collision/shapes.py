"""Shapes: point, segment and convex polygon; factories, hull, mass properties.

A shape is a ``(k, 2) float64`` array of local vertices, counter-clockwise:

- ``k == 1``: a point particle,
- ``k == 2``: a segment (two distinct endpoints),
- ``3 <= k <= MAX_VERTICES``: a convex polygon with non-zero area.

Every public function of the engine validates its shape arguments with :func:`check_vertices`
(the checks themselves are in collision.checks), which refuses bad geometry with a
:class:`GeometryError` naming the argument, the vertex and the reason; collinear vertices are
refused, not dropped. :meth:`Polygon.hull` never produces them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from collision import checks
from collision.checks import GeometryError, cross, point_array
from collision.tolerances import (
    CONVEXITY_RELATIVE_EPSILON,
    HULL_FILTER_RELATIVE_MARGIN,
    MAX_COMPOUND_PARTS,
    MAX_DENSITY,
    MAX_VERTICES,
)

#: Nominal mass per unit density of a point or a segment, which have no area (the original's
#: ``5 * density``, ORIGINAL_DEMO.md section 4.2).
NOMINAL_MASS_PER_DENSITY = 5.0


def check_vertices(value: Any, name: str) -> np.ndarray:
    """Validate a shape and return it as a new C-contiguous ``(k, 2) float64`` CCW array.

    ``value`` is a :class:`Polygon` (a copy of its vertices is returned) or anything
    ``numpy.array`` reads as ``(k, 2)`` numbers, checked by :func:`collision.checks.convex_vertices`
    (GeometryError naming ``name``, the vertex index and the reason).
    """
    if isinstance(value, Polygon):
        return value.vertices.copy()
    return checks.convex_vertices(value, name)


def _factory_result(cls: type[Polygon], points: np.ndarray, args: str) -> Polygon:
    """``cls(points)``, but a refusal names the factory's or transform's arguments, not its
    internal vertices (e.g. ``Polygon.box(1e-300, 1e-300)``: the corners round to a zero-area
    outline; ``translated((2e12, 0))``: the vertices leave MAX_COORDINATE)."""
    try:
        return cls(points)
    except GeometryError as exc:
        raise GeometryError(f"{args}: makes a shape that is not usable ({exc})") from None


# ---------------------------------------------------------------------------------------------
# Hull
# ---------------------------------------------------------------------------------------------


def _left_turn(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Strict left turn o -> a -> b, with the same relative tolerance as the convexity check."""
    ax, ay = a[0] - o[0], a[1] - o[1]
    bx, by = b[0] - a[0], b[1] - a[1]
    tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
    turn = cross(ax, ay, bx, by)
    # A spike (a turning back by nearly pi, e.g. one far point above a tiny cluster) is within
    # the tolerance too, but its tip is an extreme point: keep it when it turns left at all.
    return turn > tol or (turn > 0.0 and ax * bx + ay * by < 0.0)


def _hull_candidates(points: np.ndarray) -> np.ndarray:
    """``points (m, 2)`` without those well inside the polygon of their extreme points along
    eight directions (Akl and Toussaint's filter): none of them can be a hull vertex, and for
    scattered points few are left, so the chain below runs over a handful instead of millions."""
    if len(points) < 64:
        return points
    x, y = points[:, 0], points[:, 1]
    keys = (x, x + y, y, y - x, -x, -x - y, -y, x - y)  # directions in CCW order
    extremes = points[[int(np.argmax(k)) for k in keys]]
    extremes = extremes[np.any(extremes != np.roll(extremes, 1, axis=0), axis=1)]
    if len(extremes) < 3:
        return points
    extent = float(np.max(np.abs(points - points.mean(axis=0))))
    inside = np.ones(len(points), dtype=bool)
    for a, b in zip(extremes, np.roll(extremes, -1, axis=0), strict=True):
        ex, ey = b - a
        margin = HULL_FILTER_RELATIVE_MARGIN * math.hypot(ex, ey) * extent
        inside &= ex * (y - a[1]) - ey * (x - a[0]) > margin
    return points[~inside]


def convex_hull(points: np.ndarray) -> np.ndarray:
    """CCW convex hull ``(h, 2)`` of finite ``points (m, 2)`` (Andrew's monotone chain).

    No collinear vertices are kept.

    One distinct point gives ``(1, 2)``, collinear points their two extremes ``(2, 2)``.
    """
    unique = np.unique(_hull_candidates(np.asarray(points, dtype=np.float64)), axis=0)  # by x, then y
    if len(unique) <= 2:
        return np.ascontiguousarray(unique)

    def chain(seq: Iterable[np.ndarray]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for p in seq:
            while len(out) >= 2 and not _left_turn(out[-2], out[-1], p):
                out.pop()
            out.append(p)
        return out

    lower = chain(unique)
    upper = chain(unique[::-1])
    hull = lower[:-1] + upper[:-1]
    if len(hull) < 3:
        # All collinear: the chain keeps the two extremes.
        return np.ascontiguousarray(np.array([unique[0], unique[-1]]))
    return np.ascontiguousarray(np.array(hull))


# ---------------------------------------------------------------------------------------------
# Decomposition of a simple outline into convex pieces
# ---------------------------------------------------------------------------------------------


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


def _sum(terms: list[float]) -> float:
    """``float(np.sum(terms))`` bit for bit, for up to 128 terms: numpy adds from 0.0 in order
    below eight terms, else in eight running sums that are then added pairwise. Shapes have a
    handful of vertices, where numpy's cost per call is most of adding a body."""
    n = len(terms)
    if n < 8:
        total = 0.0
        for t in terms:
            total += t
        return total
    r = terms[:8]
    i = 8
    while i + 8 <= n:
        for j in range(8):
            r[j] += terms[i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for t in terms[i:]:
        total += t
    return total


def _area_centroid(vertices: np.ndarray) -> tuple[float, np.ndarray]:
    k = len(vertices)
    if k < 3:
        return 0.0, vertices.mean(axis=0)
    # Relative to vertex 0 so that far-from-origin shapes keep their precision.
    (x_first, y_first), *others = vertices.tolist()
    x0 = y0 = 0.0
    cross, moment_x, moment_y = [], [], []
    for x, y in others:
        x1, y1 = x - x_first, y - y_first
        c = x0 * y1 - y0 * x1
        cross.append(c)
        moment_x.append((x0 + x1) * c)
        moment_y.append((y0 + y1) * c)
        x0, y0 = x1, y1
    doubled = _sum(cross)
    cx = _sum(moment_x) / (3.0 * doubled)
    cy = _sum(moment_y) / (3.0 * doubled)
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

    __slots__ = ("_vertices", "_kernel_vertices", "_normals", "_area", "_centroid", "_radius")

    def __init__(self, vertices: Any) -> None:
        self._set(check_vertices(vertices, "vertices"))

    def _set(self, checked: np.ndarray) -> None:
        # The kernels of the one-pair face are handed the writable array: numba compiles a
        # kernel again for every new argument type, and read-only arrays are one.
        self._kernel_vertices = checked
        v = checked.view()
        v.setflags(write=False)
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
        pts = ", ".join(checks.format_point(p) for p in self._vertices)
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
        a segment's is a thin rod's ``m L^2 / 12``. ``density`` is in ``[0, MAX_DENSITY]`` (as
        :meth:`World.add_body` takes it): beyond, the inertia of a large shape overflows.
        """
        d = checks.number(density, "density", minimum=0.0, maximum=MAX_DENSITY)
        v = self._vertices
        k = len(v)
        if k == 1:
            return NOMINAL_MASS_PER_DENSITY * d, 0.0
        if k == 2:
            m = NOMINAL_MASS_PER_DENSITY * d
            length_sq = float(np.sum((v[1] - v[0]) ** 2))
            return m, m * length_sq / 12.0
        cx, cy = self._centroid.tolist()
        rel = [(x - cx, y - cy) for x, y in v.tolist()]
        terms = []
        for (px, py), (qx, qy) in zip(rel, rel[1:] + rel[:1], strict=True):
            dots = (px * px + py * py) + (px * qx + py * qy) + (qx * qx + qy * qy)
            terms.append((px * qy - py * qx) * dots)
        # Polar second moment of a CCW polygon about the origin: sum(cross * dots) / 12.
        inertia = d * _sum(terms) / 12.0
        return self._area * d, inertia

    # -- transforms ---------------------------------------------------------------------------

    def translated(self, offset: Any) -> Polygon:
        """A copy moved by ``offset (2,)``."""
        o = checks.vector(offset, "offset", math.inf)
        return _factory_result(type(self), self._vertices + o, f"offset = {checks.show(offset)}")

    def recentred(self) -> Polygon:
        """A copy with vertices relative to the centroid (what the world stores)."""
        return Polygon(self._vertices - self._centroid)

    def rotated(self, angle: float) -> Polygon:
        """A copy rotated by ``angle`` radians (CCW positive) about the local origin."""
        a = checks.number(angle, "angle")
        c, s = math.cos(a), math.sin(a)
        rot = np.array([[c, s], [-s, c]])
        return _factory_result(type(self), self._vertices @ rot, f"angle = {checks.show(angle)}")

    # -- factories ----------------------------------------------------------------------------

    @classmethod
    def box(cls, w: float, h: float) -> Polygon:
        """A ``w`` x ``h`` axis-aligned box centred on the origin, CCW from ``(-w/2, -h/2)``."""
        hw = 0.5 * checks.number(w, "w", above=0.0)
        hh = 0.5 * checks.number(h, "h", above=0.0)
        corners = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        return _factory_result(cls, corners, f"w = {checks.show(w)}, h = {checks.show(h)}")

    @classmethod
    def regular(cls, n: int, r: float) -> Polygon:
        """A regular ``n``-gon (3 <= n <= MAX_VERTICES) with circumradius ``r``, flat bottom edge."""
        n = checks.integer(n, "n", 3, MAX_VERTICES)
        r = checks.number(r, "r", above=0.0)
        angles = -0.5 * math.pi + (2.0 * np.arange(n) - 1.0) * math.pi / n
        return _factory_result(
            cls, np.column_stack([r * np.cos(angles), r * np.sin(angles)]), f"r = {checks.show(r)}"
        )

    @classmethod
    def blob(cls, n: int, rx: float, ry: float) -> Polygon:
        """The original's random-body family: vertex ``i`` at angle ``(2i + 3) pi / n`` on an ellipse.

        ``n = 1`` is the point (0, 0), ``n = 2`` the vertical segment (0, -ry)..(0, ry), ``n = 4``
        an axis-aligned ``sqrt(2) rx`` x ``sqrt(2) ry`` rectangle (corners on the ellipse).
        ``rx``, ``ry`` are the ellipse's semi-axes (units).
        """
        n = checks.integer(n, "n", 1, MAX_VERTICES)
        if n == 1:
            return cls([[0.0, 0.0]])
        ry = checks.number(ry, "ry", above=0.0)
        if n == 2:
            return _factory_result(cls, np.array([[0.0, -ry], [0.0, ry]]), f"ry = {checks.show(ry)}")
        rx = checks.number(rx, "rx", above=0.0)
        angles = (2.0 * np.arange(n) + 3.0) * math.pi / n
        outline = np.column_stack([rx * np.cos(angles), ry * np.sin(angles)])
        return _factory_result(cls, outline, f"rx = {checks.show(rx)}, ry = {checks.show(ry)}")

    @classmethod
    def hull(cls, points: Any) -> Polygon:
        """Convex hull of any number of points ``(m, 2)``: a point, a segment or a polygon.

        Collinear points on the hull's edges are left out, and so is a vertex that would make a
        feature too small to keep (closer to its neighbours than checks.features allows: the
        hull moves by less than that). GeometryError if the hull has more than MAX_VERTICES
        vertices.
        """
        pts = point_array(points, "points", "points")
        hull = convex_hull(pts)
        if len(hull) > MAX_VERTICES:
            raise GeometryError(
                f"points: their convex hull has {len(hull)} vertices, more than MAX_VERTICES = {MAX_VERTICES}"
            )
        # Rounding can leave the exact hull a feature too small to keep (an edge between two
        # nearly equal points, or a sliver: see checks.features). Each vertex dropped then is the
        # one whose triangle with its neighbours is smallest, so the shape moves by less than
        # that feature; a hull too thin for any polygon is the segment between its two
        # farthest vertices, and one too small for that is its first point.
        ring = hull
        while len(ring) >= 3:
            try:
                return cls(ring)
            except GeometryError:
                before, after = np.roll(ring, 1, axis=0), np.roll(ring, -1, axis=0)
                ax, ay = (ring - before).T
                bx, by = (after - ring).T
                ring = np.delete(ring, int(np.argmin(np.abs(ax * by - ay * bx))), axis=0)
        gaps = np.sum((hull[:, None, :] - hull[None, :, :]) ** 2, axis=2)
        i, j = np.unravel_index(int(np.argmax(gaps)), gaps.shape)
        try:
            return cls(hull[[min(i, j), max(i, j)]])
        except GeometryError:
            return cls(hull[:1])


def compound_parts(shapes: Any) -> tuple[list[np.ndarray], list[float], float, float]:
    """A compound body's ``shapes`` (1..``MAX_COMPOUND_PARTS`` shapes in one frame), checked
    (GeometryError naming the part and vertex), and their mass properties at unit density.

    Returns ``(local vertices, radii, mass, inertia)``: each part's vertices relative to the
    compound's centre of mass (the parts' mass-weighted centroid) and its largest vertex
    distance from it, the total mass and the inertia about that centre (the parallel-axis sum
    ``sum(I_i + m_i |c_i - c|^2)``). Points and segments count with their nominal mass.
    """
    is_stack = isinstance(shapes, np.ndarray) and shapes.ndim == 3
    if not is_stack and (isinstance(shapes, str | bytes) or not isinstance(shapes, Sequence)):
        raise GeometryError(
            f"shapes = {checks.show(shapes)}: must be a list of shapes (Polygons or (k, 2) vertex "
            f"arrays), not a {type(shapes).__name__}"
        )
    count = len(shapes)
    if count == 0:
        raise GeometryError("shapes = []: a compound needs at least one part")
    if count > MAX_COMPOUND_PARTS:
        raise GeometryError(f"shapes: {count} parts, more than MAX_COMPOUND_PARTS = {MAX_COMPOUND_PARTS}")
    parts = [check_vertices(shapes[i], f"shapes[{i}]") for i in range(count)]
    polys = [Polygon.from_checked(v) for v in parts]
    unit = [poly.mass_properties(1.0) for poly in polys]
    masses = np.array([m for m, _ in unit])
    total = float(masses.sum())
    centroids = np.array([poly.centroid for poly in polys])
    centre = (masses[:, None] * centroids).sum(axis=0) / total
    offsets = centroids - centre
    inertia = float(
        sum(i for _, i in unit) + float((masses * (offsets[:, 0] ** 2 + offsets[:, 1] ** 2)).sum())
    )
    locals_ = [v - centre for v in parts]
    radii = [float(np.hypot(v[:, 0], v[:, 1]).max()) for v in locals_]
    return locals_, radii, total, inertia
