"""Seed 001's primitive collision tests: points, lines, segments, circles, rectangles.

Yes/no overlap tests between simple shapes, named as in the seed (Thomas Schwarzl, "2D Game
Collision Detection") in snake case, plus the rest of that family so every pair of primitive
kinds has a test. Plain Python: these are for teaching, tools and game logic, not a hot path.

Conventions: touching counts as colliding; rotations are radians, counter-clockwise positive
(the seed's examples use degrees: convert with ``math.radians``). "Equal" and "parallel" use
the relative tolerance ``PRIMITIVE_RELATIVE_EPSILON`` (the seed's ``equal_floats``).

>>> circle_point_collide(Circle((6, 4), 3), (8, 3))
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from collision import checks
from collision.geometry import closest_point_on_segment
from collision.tolerances import MAX_COORDINATE, MIN_FEATURE_SIZE, PRIMITIVE_RELATIVE_EPSILON

Vec = tuple[float, float]

__all__ = [
    "Circle",
    "Line",
    "OrientedRectangle",
    "Rectangle",
    "Segment",
    "circle_line_collide",
    "circle_oriented_rectangle_collide",
    "circle_point_collide",
    "circle_rectangle_collide",
    "circle_segment_collide",
    "circles_collide",
    "line_point_collide",
    "line_segment_collide",
    "lines_collide",
    "oriented_rectangle_line_collide",
    "oriented_rectangle_point_collide",
    "oriented_rectangle_segment_collide",
    "oriented_rectangles_collide",
    "point_segment_collide",
    "points_collide",
    "rectangle_line_collide",
    "rectangle_oriented_rectangle_collide",
    "rectangle_point_collide",
    "rectangle_segment_collide",
    "rectangles_collide",
    "segments_collide",
]


# --- checked input ---------------------------------------------------------------------------


def _vec(value: Any, name: str) -> Vec:
    """A point, size or direction: coordinates at most MAX_COORDINATE in size, as a shape's
    (their sums and products then stay far from overflow)."""
    x, y = checks.point(value, name)
    return float(x), float(y)


def _radius(value: Any, name: str) -> float:
    """A radius: 0 to MAX_COORDINATE."""
    return checks.number(value, name, minimum=0.0, maximum=MAX_COORDINATE)


def _direction(value: Any, name: str, what: str) -> Vec:
    """A direction (or a segment's extent) of length 0 or at least MIN_FEATURE_SIZE: the
    products of a shorter one underflow to 0 and "parallel" and "on the line" turn to noise."""
    d = _vec(value, name)
    if d != (0.0, 0.0) and math.hypot(*d) < MIN_FEATURE_SIZE:
        raise ValueError(
            f"{name} = ({d[0]:g}, {d[1]:g}): {what} is shorter than MIN_FEATURE_SIZE = {MIN_FEATURE_SIZE:g}"
        )
    return d


def _line_direction(value: Any, name: str) -> Vec:
    """A line's direction: non-zero, and not shorter than MIN_FEATURE_SIZE."""
    d = _direction(value, name, "the direction")
    if d == (0.0, 0.0):
        raise ValueError(f"{name} = (0, 0): a line needs a non-zero direction")
    return d


def _extent(value: Any, name: str) -> Vec:
    """A rectangle's size or half size: both components >= 0."""
    x, y = _vec(value, name)
    if x < 0.0 or y < 0.0:
        raise ValueError(f"{name} = ({x:g}, {y:g}): width and height must be >= 0")
    return x, y


def _check_fields(shape: Any, **checkers: Callable[[Any, str], Any]) -> None:
    """Replace each named field of a frozen dataclass by its checked value (``checker(value,
    field name)``, which raises ValueError naming the field)."""
    for name, checker in checkers.items():
        object.__setattr__(shape, name, checker(getattr(shape, name), name))


@dataclass(frozen=True)
class Line:
    """The endless line through ``base`` along ``direction`` (non-zero)."""

    base: Vec
    direction: Vec

    def __post_init__(self) -> None:
        _check_fields(self, base=_vec, direction=_line_direction)


@dataclass(frozen=True)
class Segment:
    """The segment from ``point1`` to ``point2`` (equal points make a one-point segment)."""

    point1: Vec
    point2: Vec

    def __post_init__(self) -> None:
        _check_fields(self, point1=_vec, point2=_vec)
        _direction(_sub(self.point2, self.point1), "point2 - point1", "a segment of non-zero length")


@dataclass(frozen=True)
class Circle:
    """A disc: ``center`` and ``radius >= 0``."""

    center: Vec
    radius: float

    def __post_init__(self) -> None:
        _check_fields(self, center=_vec, radius=_radius)


@dataclass(frozen=True)
class Rectangle:
    """Axis-aligned: lower-left ``origin`` and ``size = (width, height)``, both >= 0."""

    origin: Vec
    size: Vec

    def __post_init__(self) -> None:
        _check_fields(self, origin=_vec, size=_extent)

    def corners(self) -> list[Vec]:
        """The four corners, counter-clockwise from ``origin``."""
        (x, y), (w, h) = self.origin, self.size
        return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


@dataclass(frozen=True)
class OrientedRectangle:
    """A rectangle centred on ``center`` with half sizes ``half_extend`` (>= 0), turned by
    ``rotation`` radians (CCW)."""

    center: Vec
    half_extend: Vec
    rotation: float

    def __post_init__(self) -> None:
        _check_fields(self, center=_vec, half_extend=_extent, rotation=checks.number)

    def corners(self) -> list[Vec]:
        """The four corners in world space, counter-clockwise from the local (-x, -y) corner."""
        c, s = math.cos(self.rotation), math.sin(self.rotation)
        hx, hy = self.half_extend
        out = []
        for sx, sy in ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)):
            x, y = sx * hx, sy * hy
            out.append((self.center[0] + c * x - s * y, self.center[1] + s * x + c * y))
        return out


# --- small vector steps ----------------------------------------------------------------------


def _sub(a: Vec, b: Vec) -> Vec:
    return a[0] - b[0], a[1] - b[1]


def _dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1]


def _cross(a: Vec, b: Vec) -> float:
    return a[0] * b[1] - a[1] * b[0]


def _length(a: Vec) -> float:
    return math.hypot(a[0], a[1])


def _equal_floats(a: float, b: float) -> bool:
    return abs(a - b) <= PRIMITIVE_RELATIVE_EPSILON * max(1.0, abs(a), abs(b))


def _parallel(a: Vec, b: Vec) -> bool:
    """Parallel (or either is zero): the seed's ``parallel_vectors``, scale-free."""
    return abs(_cross(a, b)) <= PRIMITIVE_RELATIVE_EPSILON * _length(a) * _length(b)


def _overlapping(min_a: float, max_a: float, min_b: float, max_b: float) -> bool:
    return min_b <= max_a and min_a <= max_b


def _to_local(p: Vec, r: OrientedRectangle) -> Vec:
    """``p`` in the rectangle's frame (centre at the origin, sides along the axes)."""
    c, s = math.cos(r.rotation), math.sin(r.rotation)
    d = _sub(p, r.center)
    return c * d[0] + s * d[1], -s * d[0] + c * d[1]


def _direction_to_local(v: Vec, r: OrientedRectangle) -> Vec:
    c, s = math.cos(r.rotation), math.sin(r.rotation)
    return c * v[0] + s * v[1], -s * v[0] + c * v[1]


def _local_box(r: OrientedRectangle) -> Rectangle:
    hx, hy = r.half_extend
    return Rectangle((-hx, -hy), (2.0 * hx, 2.0 * hy))


def _closest_on_segment(p: Vec, s: Segment) -> Vec:
    (ax, ay), (bx, by) = s.point1, s.point2
    x, y, _ = closest_point_on_segment(p[0], p[1], ax, ay, bx, by)
    return float(x), float(y)


def _clamp_on_rectangle(p: Vec, r: Rectangle) -> Vec:
    x = min(max(p[0], r.origin[0]), r.origin[0] + r.size[0])
    y = min(max(p[1], r.origin[1]), r.origin[1] + r.size[1])
    return x, y


def _points_on_one_side(base: Vec, direction: Vec, points: list[Vec]) -> bool:
    """All ``points`` strictly on one side of the line (touching is not separating)."""
    n = (-direction[1], direction[0])
    sides = [_dot(n, _sub(p, base)) for p in points]
    return all(d > 0.0 for d in sides) or all(d < 0.0 for d in sides)


# --- points, lines, segments -----------------------------------------------------------------


def points_collide(a: Any, b: Any) -> bool:
    """Two points collide when their coordinates are equal."""
    pa, pb = _vec(a, "a"), _vec(b, "b")
    return _equal_floats(pa[0], pb[0]) and _equal_floats(pa[1], pb[1])


def lines_collide(a: Line, b: Line) -> bool:
    """Endless lines collide unless they are parallel and not the same line."""
    if _parallel(a.direction, b.direction):
        return _parallel(_sub(a.base, b.base), a.direction)
    return True


def line_point_collide(line: Line, point: Any) -> bool:
    """The point lies on the line."""
    return _parallel(_sub(_vec(point, "point"), line.base), line.direction)


def line_segment_collide(line: Line, segment: Segment) -> bool:
    """The segment's ends are not both strictly on one side of the line."""
    return not _points_on_one_side(line.base, line.direction, [segment.point1, segment.point2])


def point_segment_collide(point: Any, segment: Segment) -> bool:
    """The point lies on the segment."""
    p = _vec(point, "point")
    d = _sub(segment.point2, segment.point1)
    if d == (0.0, 0.0):
        return points_collide(p, segment.point1)
    rel = _sub(p, segment.point1)
    return _parallel(rel, d) and 0.0 <= _dot(rel, d) <= _dot(d, d)


def segments_collide(a: Segment, b: Segment) -> bool:
    """Separating axes along each segment; collinear segments compare their ranges."""
    da = _sub(a.point2, a.point1)
    db = _sub(b.point2, b.point1)
    if da == (0.0, 0.0):
        return point_segment_collide(a.point1, b)
    if db == (0.0, 0.0):
        return point_segment_collide(b.point1, a)
    if _points_on_one_side(a.point1, da, [b.point1, b.point2]):
        return False
    if _points_on_one_side(b.point1, db, [a.point1, a.point2]):
        return False
    if _parallel(da, db):
        # Both on one line: project onto it and compare the ranges.
        ra = sorted((_dot(da, a.point1), _dot(da, a.point2)))
        rb = sorted((_dot(da, b.point1), _dot(da, b.point2)))
        return _overlapping(ra[0], ra[1], rb[0], rb[1])
    return True


# --- circles ---------------------------------------------------------------------------------


def circles_collide(a: Circle, b: Circle) -> bool:
    """Centres no farther apart than the sum of the radii."""
    return _length(_sub(a.center, b.center)) <= a.radius + b.radius


def circle_point_collide(circle: Circle, point: Any) -> bool:
    """The point is no farther from the centre than the radius."""
    return _length(_sub(circle.center, _vec(point, "point"))) <= circle.radius


def circle_line_collide(circle: Circle, line: Line) -> bool:
    """The line's point nearest the centre lies in the circle."""
    d = line.direction
    t = _dot(_sub(circle.center, line.base), d) / _dot(d, d)
    nearest = (line.base[0] + t * d[0], line.base[1] + t * d[1])
    return circle_point_collide(circle, nearest)


def circle_segment_collide(circle: Circle, segment: Segment) -> bool:
    """The segment's point nearest the centre lies in the circle."""
    return circle_point_collide(circle, _closest_on_segment(circle.center, segment))


def circle_rectangle_collide(circle: Circle, rectangle: Rectangle) -> bool:
    """The rectangle's point nearest the centre (the clamped centre) lies in the circle."""
    return circle_point_collide(circle, _clamp_on_rectangle(circle.center, rectangle))


def circle_oriented_rectangle_collide(circle: Circle, rectangle: OrientedRectangle) -> bool:
    """As :func:`circle_rectangle_collide`, in the rectangle's own frame."""
    local = Circle(_to_local(circle.center, rectangle), circle.radius)
    return circle_rectangle_collide(local, _local_box(rectangle))


# --- axis-aligned rectangles -----------------------------------------------------------------


def rectangles_collide(a: Rectangle, b: Rectangle) -> bool:
    """Ranges overlap on both axes."""
    return _overlapping(a.origin[0], a.origin[0] + a.size[0], b.origin[0], b.origin[0] + b.size[0]) and (
        _overlapping(a.origin[1], a.origin[1] + a.size[1], b.origin[1], b.origin[1] + b.size[1])
    )


def rectangle_point_collide(rectangle: Rectangle, point: Any) -> bool:
    """The point lies in the rectangle or on its border."""
    p = _vec(point, "point")
    (x, y), (w, h) = rectangle.origin, rectangle.size
    return x <= p[0] <= x + w and y <= p[1] <= y + h


def rectangle_line_collide(rectangle: Rectangle, line: Line) -> bool:
    """The rectangle's corners are not all strictly on one side of the line."""
    return not _points_on_one_side(line.base, line.direction, rectangle.corners())


def rectangle_segment_collide(rectangle: Rectangle, segment: Segment) -> bool:
    """Separating axes: the segment's line, then the x and y axes."""
    d = _sub(segment.point2, segment.point1)
    if d == (0.0, 0.0):
        return rectangle_point_collide(rectangle, segment.point1)
    if _points_on_one_side(segment.point1, d, rectangle.corners()):
        return False
    (x, y), (w, h) = rectangle.origin, rectangle.size
    (x1, y1), (x2, y2) = segment.point1, segment.point2
    return _overlapping(x, x + w, min(x1, x2), max(x1, x2)) and _overlapping(
        y, y + h, min(y1, y2), max(y1, y2)
    )


def rectangle_oriented_rectangle_collide(rectangle: Rectangle, oriented: OrientedRectangle) -> bool:
    """The axis-aligned rectangle as an oriented one with rotation 0, then separating axes."""
    (x, y), (w, h) = rectangle.origin, rectangle.size
    as_oriented = OrientedRectangle((x + 0.5 * w, y + 0.5 * h), (0.5 * w, 0.5 * h), 0.0)
    return oriented_rectangles_collide(as_oriented, oriented)


# --- oriented rectangles ---------------------------------------------------------------------


def _separated_on_axes_of(a: OrientedRectangle, b: OrientedRectangle) -> bool:
    """An axis along one of ``a``'s sides separates ``b`` from ``a``."""
    c, s = math.cos(a.rotation), math.sin(a.rotation)
    corners = b.corners()
    for axis, half in (((c, s), a.half_extend[0]), ((-s, c), a.half_extend[1])):
        centre = _dot(axis, a.center)
        proj = [_dot(axis, p) for p in corners]
        if not _overlapping(centre - half, centre + half, min(proj), max(proj)):
            return True
    return False


def oriented_rectangles_collide(a: OrientedRectangle, b: OrientedRectangle) -> bool:
    """Separating axis test on the four side directions of the two rectangles."""
    return not (_separated_on_axes_of(a, b) or _separated_on_axes_of(b, a))


def oriented_rectangle_point_collide(rectangle: OrientedRectangle, point: Any) -> bool:
    """The point, in the rectangle's frame, lies within the half extents."""
    lx, ly = _to_local(_vec(point, "point"), rectangle)
    hx, hy = rectangle.half_extend
    return abs(lx) <= hx and abs(ly) <= hy


def oriented_rectangle_line_collide(rectangle: OrientedRectangle, line: Line) -> bool:
    """As :func:`rectangle_line_collide`, in the rectangle's own frame."""
    local = Line(_to_local(line.base, rectangle), _direction_to_local(line.direction, rectangle))
    return rectangle_line_collide(_local_box(rectangle), local)


def oriented_rectangle_segment_collide(rectangle: OrientedRectangle, segment: Segment) -> bool:
    """As :func:`rectangle_segment_collide`, in the rectangle's own frame."""
    local = Segment(_to_local(segment.point1, rectangle), _to_local(segment.point2, rectangle))
    return rectangle_segment_collide(_local_box(rectangle), local)
