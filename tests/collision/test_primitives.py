"""Seed 001's primitive tests: every assert of the seed, analytic cases, brute force on random cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collision import primitives as P
from collision.primitives import Circle, Line, OrientedRectangle, Rectangle, Segment

# --- the seed's own asserts --------------------------------------------------------------------


def test_seed_points_collide():
    a, b, c = (2, 3), (2, 3), (3, 4)
    assert P.points_collide(a, b)
    assert not P.points_collide(a, c)
    assert not P.points_collide(b, c)


def test_seed_lines_collide():
    a, b, c = (3, 5), (3, 2), (8, 4)
    down, up = (5, -1), (5, 2)
    l1, l2, l3, l4 = Line(a, down), Line(a, up), Line(b, up), Line(c, down)
    assert P.lines_collide(l1, l2)
    assert P.lines_collide(l1, l3)
    assert not P.lines_collide(l2, l3)
    assert P.lines_collide(l1, l4)


def test_seed_segments_collide():
    s1 = Segment((3, 4), (11, 1))
    s2 = Segment((8, 4), (11, 7))
    assert not P.segments_collide(s1, s2)


def test_seed_oriented_rectangles_collide():
    a = OrientedRectangle((3, 5), (1, 3), math.radians(15))
    b = OrientedRectangle((10, 5), (2, 2), math.radians(-15))
    assert not P.oriented_rectangles_collide(a, b)


def test_seed_circle_point_collide():
    c = Circle((6, 4), 3)
    assert P.circle_point_collide(c, (8, 3))
    assert not P.circle_point_collide(c, (11, 7))


def test_seed_circle_line_collide():
    assert not P.circle_line_collide(Circle((6, 3), 2), Line((4, 7), (5, -1)))


def test_seed_circle_segment_collide():
    assert not P.circle_segment_collide(Circle((4, 4), 3), Segment((8, 6), (13, 6)))


def test_seed_circle_rectangle_rectangle():
    # The seed's example is cut off after "Rectangle r = {{3, 2}, {6, 4}};": x in [3, 9], y in [2, 6].
    r = Rectangle((3, 2), (6, 4))
    assert P.circle_rectangle_collide(Circle((5, 4), 1), r)  # centre inside
    assert P.circle_rectangle_collide(Circle((10, 4), 1), r)  # touching the right side
    assert not P.circle_rectangle_collide(Circle((10.01, 4), 1), r)
    # Near a corner the distance is to the corner (9, 6): 3-4-5 triangle.
    assert P.circle_rectangle_collide(Circle((12, 10), 5), r)
    assert not P.circle_rectangle_collide(Circle((12, 10), 4.99), r)


# --- analytic cases for the rest of the family --------------------------------------------------


def test_points_equal_up_to_rounding():
    assert P.points_collide((0.1 + 0.2, 1.0), (0.3, 1.0))
    assert not P.points_collide((0.3 + 1e-9, 1.0), (0.3, 1.0))


def test_line_point_and_line_segment():
    line = Line((1, 1), (2, 1))
    assert P.line_point_collide(line, (5, 3))
    assert P.line_point_collide(line, (-3, -1))
    assert not P.line_point_collide(line, (5, 3.001))
    assert P.line_segment_collide(line, Segment((0, 5), (10, -5)))
    assert P.line_segment_collide(line, Segment((5, 3), (6, 9)))  # touches with an end
    assert not P.line_segment_collide(line, Segment((0, 2), (4, 4)))  # parallel above


def test_point_segment():
    s = Segment((0, 0), (4, 2))
    assert P.point_segment_collide((2, 1), s)
    assert P.point_segment_collide((4, 2), s)
    assert not P.point_segment_collide((6, 3), s)  # on the line, past the end
    assert not P.point_segment_collide((-2, -1), s)
    assert not P.point_segment_collide((2, 1.01), s)
    assert P.point_segment_collide((1, 1), Segment((1, 1), (1, 1)))


def test_segments_special_cases():
    # Crossing, touching at an end, collinear overlapping, collinear apart, parallel apart.
    assert P.segments_collide(Segment((0, 0), (2, 2)), Segment((0, 2), (2, 0)))
    assert P.segments_collide(Segment((0, 0), (2, 0)), Segment((2, 0), (3, 5)))
    assert P.segments_collide(Segment((0, 0), (2, 0)), Segment((1, 0), (5, 0)))
    assert not P.segments_collide(Segment((0, 0), (2, 0)), Segment((3, 0), (5, 0)))
    assert not P.segments_collide(Segment((0, 0), (2, 0)), Segment((0, 1), (2, 1)))
    # The lines cross, but beyond the end of one segment.
    assert not P.segments_collide(Segment((0, 0), (1, 1)), Segment((3, 0), (3, 5)))
    # Degenerate one-point segments.
    assert P.segments_collide(Segment((1, 0), (1, 0)), Segment((0, 0), (2, 0)))
    assert not P.segments_collide(Segment((1, 1), (1, 1)), Segment((0, 0), (2, 0)))


def test_circles():
    assert P.circles_collide(Circle((0, 0), 2), Circle((3, 4), 3))  # touching: 5 = 2 + 3
    assert not P.circles_collide(Circle((0, 0), 2), Circle((3, 4), 2.99))
    assert P.circles_collide(Circle((0, 0), 5), Circle((1, 0), 1))  # one inside the other


def test_circle_line_and_segment():
    c = Circle((0, 0), 1)
    assert P.circle_line_collide(c, Line((-5, 1), (1, 0)))  # tangent
    assert not P.circle_line_collide(c, Line((-5, 1.001), (1, 0)))
    assert P.circle_segment_collide(c, Segment((-5, 0.5), (5, 0.5)))  # cuts through
    assert P.circle_segment_collide(c, Segment((0.5, 0), (5, 0)))  # one end inside
    assert not P.circle_segment_collide(c, Segment((2, -3), (2, 3)))
    assert not P.circle_segment_collide(c, Segment((1.5, 0), (5, 0)))  # line hits, segment does not


def test_rectangles():
    a = Rectangle((0, 0), (2, 1))
    assert P.rectangles_collide(a, Rectangle((2, 1), (1, 1)))  # corner touch
    assert not P.rectangles_collide(a, Rectangle((2.01, 0), (1, 1)))
    assert P.rectangles_collide(a, Rectangle((0.5, 0.25), (0.1, 0.1)))  # inside
    assert P.rectangle_point_collide(a, (2, 0.5)) and not P.rectangle_point_collide(a, (2.01, 0.5))
    assert P.rectangle_line_collide(a, Line((0, 3), (1, -1)))  # touches only the corner (2, 1)
    assert not P.rectangle_line_collide(a, Line((0, 3.01), (1, -1)))
    assert P.rectangle_segment_collide(a, Segment((-1, 0.5), (3, 0.5)))
    # On the line through the rectangle, but ending before it.
    assert not P.rectangle_segment_collide(a, Segment((-3, 0.5), (-1, 0.5)))
    assert P.rectangle_segment_collide(a, Segment((1, 0.5), (1, 0.5)))


def test_oriented_rectangles():
    diamond = OrientedRectangle((0, 0), (1, 1), math.pi / 4)  # corners at distance sqrt(2) on the axes
    r2 = math.sqrt(2)
    assert P.oriented_rectangle_point_collide(diamond, (r2 - 1e-9, 0))
    assert not P.oriented_rectangle_point_collide(diamond, (r2 + 1e-9, 0))
    assert not P.oriented_rectangle_point_collide(diamond, (1, 1))  # a corner of the unrotated box
    assert P.oriented_rectangle_line_collide(diamond, Line((r2 - 1e-9, -5), (0, 1)))
    assert not P.oriented_rectangle_line_collide(diamond, Line((r2 + 1e-9, -5), (0, 1)))
    assert P.oriented_rectangle_segment_collide(diamond, Segment((1.0, -1), (1.0, 1)))
    assert not P.oriented_rectangle_segment_collide(diamond, Segment((1.0, 0.5), (1.0, 1)))
    assert P.circle_oriented_rectangle_collide(Circle((2, 0), 2 - r2 + 1e-9), diamond)
    assert not P.circle_oriented_rectangle_collide(Circle((2, 0), 2 - r2 - 1e-9), diamond)
    # Axis-aligned boxes would overlap, the rotated ones do not (a classic SAT case).
    a = OrientedRectangle((0, 0), (2, 0.2), math.pi / 4)
    b = OrientedRectangle((1.6, 0), (2, 0.2), math.pi / 4)
    assert not P.oriented_rectangles_collide(a, b)
    assert P.oriented_rectangles_collide(a, OrientedRectangle((1.6, 0), (2, 0.2), -math.pi / 4))
    box = Rectangle((r2 - 1e-9, -1), (1, 2))  # its left side just reaches the diamond's right corner
    assert P.rectangle_oriented_rectangle_collide(box, diamond)
    assert not P.rectangle_oriented_rectangle_collide(Rectangle((r2 + 1e-9, -1), (1, 2)), diamond)


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: Line((0, 0), (0, 0)), "direction"),
        (lambda: Line((0, math.nan), (1, 0)), "base"),
        (lambda: Segment((0, 0), (1, 2, 3)), "point2"),
        (lambda: Circle((0, 0), -1), "radius"),
        (lambda: Rectangle((0, 0), (-1, 1)), "size"),
        (lambda: OrientedRectangle((0, 0), (1, -1), 0.0), "half_extend"),
        (lambda: OrientedRectangle((0, 0), (1, 1), math.inf), "rotation"),
        (lambda: P.points_collide((0, 0), "xy"), "b"),
    ],
)
def test_bad_input_names_the_argument(make, fragment):
    with pytest.raises(ValueError, match=fragment):
        make()


def test_types_are_frozen():
    c = Circle((0, 0), 1)
    with pytest.raises(AttributeError):
        c.radius = 2.0  # type: ignore[misc]


# --- brute force: sample one shape densely, measure exact distances to the other ------------------

STEP = 0.04  # sampling step (units)


def grid(lo, hi):
    xs = np.arange(lo[0], hi[0] + STEP, STEP)
    ys = np.arange(lo[1], hi[1] + STEP, STEP)
    gx, gy = np.meshgrid(np.minimum(xs, hi[0]), np.minimum(ys, hi[1]))
    return np.column_stack([gx.ravel(), gy.ravel()])


def samples_of(shape):
    if isinstance(shape, Circle):
        c, r = np.array(shape.center), shape.radius
        pts = grid(c - r, c + r)
        pts = pts[np.hypot(*(pts - c).T) <= r]
        t = np.linspace(0, 2 * math.pi, max(8, int(2 * math.pi * r / STEP)), endpoint=False)
        return np.vstack([pts, c + r * np.column_stack([np.cos(t), np.sin(t)])])
    if isinstance(shape, Rectangle):
        o, s = np.array(shape.origin), np.array(shape.size)
        return grid(o, o + s)
    if isinstance(shape, OrientedRectangle):
        h = np.array(shape.half_extend)
        local = grid(-h, h)
        c, s = math.cos(shape.rotation), math.sin(shape.rotation)
        return np.array(shape.center) + local @ np.array([[c, s], [-s, c]])
    if isinstance(shape, Segment):
        a, b = np.array(shape.point1), np.array(shape.point2)
        n = max(2, int(np.hypot(*(b - a)) / STEP) + 2)
        t = np.linspace(0, 1, n)[:, None]
        return a + t * (b - a)
    if isinstance(shape, Line):
        d = np.array(shape.direction) / np.hypot(*shape.direction)
        t = np.arange(-40, 40, STEP)[:, None]
        return np.array(shape.base) + t * d
    raise TypeError(shape)


def distance_to(shape, pts):
    """Exact distance from each point to the shape (0 inside), written independently of the engine."""
    if isinstance(shape, Circle):
        return np.maximum(0.0, np.hypot(*(pts - np.array(shape.center)).T) - shape.radius)
    if isinstance(shape, Rectangle):
        o, s = np.array(shape.origin), np.array(shape.size)
        return np.hypot(*(pts - np.clip(pts, o, o + s)).T)
    if isinstance(shape, OrientedRectangle):
        c, s = math.cos(shape.rotation), math.sin(shape.rotation)
        local = (pts - np.array(shape.center)) @ np.array([[c, -s], [s, c]])
        h = np.array(shape.half_extend)
        return np.hypot(*(local - np.clip(local, -h, h)).T)
    if isinstance(shape, Segment):
        a, b = np.array(shape.point1), np.array(shape.point2)
        d = b - a
        t = np.clip((pts - a) @ d / (d @ d), 0, 1) if d @ d > 0 else np.zeros(len(pts))
        return np.hypot(*(pts - (a + t[:, None] * d)).T)
    if isinstance(shape, Line):
        d = np.array(shape.direction)
        rel = pts - np.array(shape.base)
        return np.abs(rel[:, 0] * d[1] - rel[:, 1] * d[0]) / np.hypot(*d)
    raise TypeError(shape)


def random_shape(kind, rng):
    centre = rng.uniform(-3, 3, 2)
    if kind == "circle":
        return Circle(centre, rng.uniform(0.3, 2))
    if kind == "rectangle":
        return Rectangle(centre, rng.uniform(0.3, 3, 2))
    if kind == "oriented":
        return OrientedRectangle(centre, rng.uniform(0.2, 1.5, 2), rng.uniform(-math.pi, math.pi))
    if kind == "segment":
        return Segment(centre, centre + rng.uniform(-4, 4, 2))
    if kind == "line":
        return Line(centre, rng.uniform(-1, 1, 2))
    raise ValueError(kind)


CASES = [
    (P.segments_collide, "segment", "segment"),
    (P.line_segment_collide, "line", "segment"),
    (P.circles_collide, "circle", "circle"),
    (P.circle_line_collide, "circle", "line"),
    (P.circle_segment_collide, "circle", "segment"),
    (P.circle_rectangle_collide, "circle", "rectangle"),
    (P.circle_oriented_rectangle_collide, "circle", "oriented"),
    (P.rectangles_collide, "rectangle", "rectangle"),
    (P.rectangle_line_collide, "rectangle", "line"),
    (P.rectangle_segment_collide, "rectangle", "segment"),
    (P.rectangle_oriented_rectangle_collide, "rectangle", "oriented"),
    (P.oriented_rectangles_collide, "oriented", "oriented"),
    (P.oriented_rectangle_line_collide, "oriented", "line"),
    (P.oriented_rectangle_segment_collide, "oriented", "segment"),
]


@pytest.mark.parametrize(("function", "kind_a", "kind_b"), CASES, ids=[c[0].__name__ for c in CASES])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_brute_force(function, kind_a, kind_b, seed):
    rng = np.random.default_rng(seed)
    a, b = random_shape(kind_a, rng), random_shape(kind_b, rng)
    result = function(a, b)
    # The smaller of the two shapes is sampled (lines are never the sampled one when avoidable).
    sampled, other = (a, b) if kind_a != "line" else (b, a)
    gap = float(distance_to(other, samples_of(sampled)).min())
    if result:
        assert gap <= 1.5 * STEP, f"{function.__name__} says they collide, but they are {gap} apart"
    else:
        assert gap > 0.0, f"{function.__name__} says no collision, but a sample lies inside"


def test_rectangle_corners_are_counter_clockwise_from_the_origin() -> None:
    from collision.primitives import OrientedRectangle, Rectangle

    assert Rectangle((1, 2), (3, 4)).corners() == [(1, 2), (4, 2), (4, 6), (1, 6)]
    corners = OrientedRectangle((1.0, 1.0), (2.0, 1.0), math.pi / 2).corners()
    np.testing.assert_allclose(corners, [(2, -1), (2, 3), (0, 3), (0, -1)], atol=1e-12)
