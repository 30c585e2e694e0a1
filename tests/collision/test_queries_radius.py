"""World ray casts and point queries in the caller's units: with radius 0 a segment body is hit
exactly where the ray crosses it and a point only on the ray; points and segments are hit
within the radius the caller gives (brute force); polygons ignore it; the answers scale with
the world."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, World


def thin_wall_world(scale: float) -> World:
    """A 2 m wall (a segment body) at x = 3 m and a box beyond it, in units of ``1 / scale`` m."""
    w = World(gravity=(0.0, 0.0))
    w.add_body([(0.0, -1.0 * scale), (0.0, 1.0 * scale)], (3.0 * scale, 0.0), static=True)
    w.add_body(Polygon.box(2.0 * scale, 2.0 * scale), (6.0 * scale, 0.0), static=True)
    return w


@pytest.mark.parametrize("scale", [1.0, 2.0**-10, 2.0**10, 1e-3, 1e3])
def test_a_thin_wall_is_hit_where_the_ray_crosses_it_at_any_scale(scale):
    w = thin_wall_world(scale)
    start, end = np.array([0.0, 0.25]) * scale, np.array([10.0, 0.75]) * scale
    hit = w.raycast(start, end)
    assert hit is not None and hit.body == 0
    assert hit.t == pytest.approx(0.3, rel=1e-15)
    np.testing.assert_allclose(hit.point, np.array([3.0, 0.4]) * scale, rtol=1e-15)
    np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])
    if math.log2(scale).is_integer():  # scaling by a power of two is exact
        assert hit.t == thin_wall_world(1.0).raycast(start / scale, end / scale).t
    # A ray ending just short of the wall misses it; the box behind is hit at its face.
    assert w.raycast(start, np.array([2.999, 0.25]) * scale) is None
    [wall, box] = w.raycast_all(start, end)
    assert (wall.body, box.body) == (0, 1) and box.point[0] == pytest.approx(5.0 * scale, rel=1e-15)


def test_points_are_hit_within_the_radius_given():
    rng = np.random.default_rng(3)
    w = World(gravity=(0.0, 0.0))
    points = rng.uniform(-5.0, 5.0, size=(60, 2))
    for p in points:
        w.add_body([(0.0, 0.0)], p, static=True)
    for _ in range(200):
        start, end = rng.uniform(-6.0, 6.0, size=(2, 2))
        radius = float(rng.choice([0.05, 0.3, 1.0]))
        d = end - start
        # Brute force: distance from each point to the cast, and where the cast first comes
        # within the radius of it (the smaller root of |start + t d - p| = radius).
        t_near = np.clip(((points - start) @ d) / (d @ d), 0.0, 1.0)
        distance = np.hypot(*(start + t_near[:, None] * d - points).T)
        hits = {h.body: h for h in w.raycast_all(start, end, radius=radius)}
        for i, p in enumerate(points):
            if abs(distance[i] - radius) < 1e-9 or np.hypot(*(start - p)) <= radius:
                continue  # grazing, or starting inside the disc (not a hit by design)
            assert (i in hits) == (distance[i] < radius)
            if i in hits:
                f = start - p
                half_b, c = f @ d, f @ f - radius * radius
                t = (-half_b - math.sqrt(half_b * half_b - (d @ d) * c)) / (d @ d)
                assert hits[i].t == pytest.approx(t, abs=1e-9)
                np.testing.assert_allclose(np.hypot(*hits[i].normal), 1.0)
        nearest = w.raycast(start, end, radius=radius)
        assert (nearest is None) == (not hits)
        if nearest is not None:
            assert nearest.t == min(h.t for h in hits.values())


def test_radius_zero_hits_a_point_only_on_the_ray():
    w = World(gravity=(0.0, 0.0))
    w.add_body([(0.0, 0.0)], (2.0, 1.0), static=True)
    hit = w.raycast((0.0, 0.0), (4.0, 2.0))  # passes exactly through (2, 1)
    assert hit is not None and hit.t == 0.5
    assert w.raycast((0.0, 0.0), (4.0, np.nextafter(2.0, 3.0))) is None
    assert w.raycast((0.0, 1e-9), (4.0, 2.0 + 1e-9)) is None
    assert w.raycast((0.0, 1e-9), (4.0, 2.0 + 1e-9), radius=1e-8) is not None
    assert w.query_point((2.0, 1.0)) == [0] and w.query_point((2.0, 1.0 + 1e-12)) == []
    assert w.query_point((2.0, 1.0 + 1e-12), radius=2e-12) == [0]


def test_segments_are_hit_within_the_radius_given():
    w = World(gravity=(0.0, 0.0))
    w.add_body([(-1.0, 0.0), (1.0, 0.0)], (0.0, 0.0), static=True)  # from (-1, 0) to (1, 0)
    # Passing beyond the end at x = 1.2: missed at radius 0, hit within a 0.25 capsule.
    assert w.raycast((1.2, -1.0), (1.2, 1.0)) is None
    hit = w.raycast((1.2, -1.0), (1.2, 1.0), radius=0.25)
    assert hit is not None
    # Entry on the end disc: y = -sqrt(0.25^2 - 0.2^2) = -0.15.
    assert hit.point == pytest.approx([1.2, -0.15], abs=1e-12)
    # Crossing the middle: radius 0 at the line, radius 0.25 a quarter before it.
    assert w.raycast((0.0, -1.0), (0.0, 1.0)).point == pytest.approx([0.0, 0.0], abs=0.0)
    assert w.raycast((0.0, -1.0), (0.0, 1.0), radius=0.25).point == pytest.approx([0.0, -0.25])
    for y, r, found in ((0.2, 0.25, [0]), (0.3, 0.25, []), (0.0, 0.0, [0]), (1e-15, 0.0, [])):
        assert w.query_point((0.5, y), radius=r) == found


def test_polygons_ignore_the_radius():
    w = World(gravity=(0.0, 0.0))
    w.add_body(Polygon.box(2.0, 2.0), (0.0, 0.0), static=True)
    for radius in (0.0, 0.5, 3.0):
        hit = w.raycast((-5.0, 0.3), (5.0, 0.3), radius=radius)
        assert hit.t == 0.4 and hit.point.tolist() == [-1.0, 0.3]
        assert w.query_point((1.2, 0.0), radius=radius) == []


@pytest.mark.parametrize("radius", [-1.0, math.nan, math.inf, "0.5", None, 2e12])
def test_bad_radius_is_refused_by_name(radius):
    w = thin_wall_world(1.0)
    for call in (
        lambda: w.raycast((0.0, 0.0), (1.0, 0.0), radius=radius),
        lambda: w.raycast_all((0.0, 0.0), (1.0, 0.0), radius=radius),
        lambda: w.query_point((0.0, 0.0), radius=radius),
    ):
        with pytest.raises(ValueError, match=r"^radius"):
            call()
