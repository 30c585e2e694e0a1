"""clip_segment and the raycast kernels against exact answers and brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collision import GeometryError, Polygon, SegmentHit, clip_segment
from collision.raycast import clip_segment_kernel, raycast_all_kernel
from collision.shapes import MAX_VERTICES

BOX = Polygon.box(2.0, 2.0).vertices  # [-1, 1]^2


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(a, b, rtol=0, atol=tol)


# --- polygons --------------------------------------------------------------------------------------


def test_through_box_exact():
    hit = clip_segment((-3.0, 0.5), (5.0, 0.5), BOX)
    assert isinstance(hit, SegmentHit)
    assert hit.t_enter == 0.25 and hit.t_exit == 0.5
    close(hit.point_enter, [-1.0, 0.5])
    close(hit.point_exit, [1.0, 0.5])
    close(hit.normal_enter, [-1.0, 0.0])
    close(hit.normal_exit, [1.0, 0.0])
    assert not hit.starts_inside and not hit.ends_inside


def test_diagonal_through_corner_region():
    # From (-2, -3) to (2, 1): enters through the bottom edge at x = 0 (t = 0.5), leaves through
    # the right edge at y = 0 (t = 0.75).
    hit = clip_segment((-2.0, -3.0), (2.0, 1.0), BOX)
    assert hit.t_enter == pytest.approx(0.5, abs=1e-15) and hit.t_exit == pytest.approx(0.75, abs=1e-15)
    close(hit.normal_enter, [0.0, -1.0])
    close(hit.normal_exit, [1.0, 0.0])


def test_starts_inside_and_ends_inside():
    hit = clip_segment((0.0, 0.0), (0.0, 4.0), BOX)
    assert hit.t_enter == 0.0 and hit.t_exit == 0.25
    assert hit.normal_enter is None and hit.starts_inside
    close(hit.normal_exit, [0.0, 1.0])
    hit = clip_segment((0.0, -4.0), (0.0, 0.0), BOX)
    assert hit.t_enter == 0.75 and hit.t_exit == 1.0
    assert hit.normal_exit is None and hit.ends_inside
    close(hit.normal_enter, [0.0, -1.0])
    hit = clip_segment((-0.5, 0.0), (0.5, 0.0), BOX)
    assert (hit.t_enter, hit.t_exit, hit.normal_enter, hit.normal_exit) == (0.0, 1.0, None, None)


def test_parallel_to_an_edge():
    # Along the top edge: touching counts, and the clip is exact.
    hit = clip_segment((-2.0, 1.0), (2.0, 1.0), BOX)
    assert hit.t_enter == 0.25 and hit.t_exit == 0.75
    # Parallel just outside: misses. Parallel inside: clipped by the side edges.
    assert clip_segment((-2.0, 1.0 + 1e-12), (2.0, 1.0 + 1e-12), BOX) is None
    hit = clip_segment((-2.0, 0.9), (2.0, 0.9), BOX)
    assert hit.t_enter == 0.25 and hit.t_exit == 0.75


@pytest.mark.parametrize(
    ("start", "end"),
    [((-3.0, 2.0), (3.0, 2.0)), ((-3.0, -3.0), (-1.5, 3.0)), ((2.0, 2.0), (5.0, 5.0)), ((-5, 0), (-2, 0))],
)
def test_missing(start, end):
    assert clip_segment(start, end, BOX) is None


def test_diagonal_passing_beside_corner_misses():
    # The line x + y = 2.5 passes outside the corner (1, 1).
    assert clip_segment((-1.0, 3.5), (3.5, -1.0), BOX) is None
    # x + y = 2 touches exactly at the corner.
    hit = clip_segment((-1.0, 3.0), (3.0, -1.0), BOX)
    assert hit.t_enter == hit.t_exit == 0.5
    close(hit.point_enter, [1.0, 1.0])


def test_zero_length_segment_is_a_point_query():
    hit = clip_segment((0.2, 0.3), (0.2, 0.3), BOX)
    assert hit is not None and hit.starts_inside and hit.ends_inside
    assert clip_segment((2.0, 0.3), (2.0, 0.3), BOX) is None


def test_clockwise_and_polygon_objects_accepted():
    cw = BOX[::-1]
    a = clip_segment((-3.0, 0.5), (5.0, 0.5), cw)
    b = clip_segment((-3.0, 0.5), (5.0, 0.5), Polygon.box(2.0, 2.0))
    assert a.t_enter == b.t_enter == 0.25 and a.t_exit == b.t_exit == 0.5


# --- segments and points ---------------------------------------------------------------------------


def test_crossing_a_segment_normal_faces_start():
    wall = [[0.0, -1.0], [0.0, 1.0]]
    hit = clip_segment((-2.0, 0.5), (2.0, 0.5), wall)
    assert hit.t_enter == hit.t_exit == 0.5
    close(hit.point_enter, [0.0, 0.5])
    close(hit.normal_enter, [-1.0, 0.0])
    close(hit.normal_exit, [1.0, 0.0])
    hit = clip_segment((2.0, 0.5), (-2.0, 0.5), wall)
    close(hit.normal_enter, [1.0, 0.0])
    assert clip_segment((-2.0, 1.5), (2.0, 1.5), wall) is None
    assert clip_segment((-2.0, 0.5), (-0.1, 0.5), wall) is None
    # Touching its endpoint counts.
    hit = clip_segment((-2.0, 1.0), (2.0, 1.0), wall)
    assert hit.t_enter == 0.5


def test_collinear_overlap_with_segment():
    hit = clip_segment((-4.0, 0.0), (4.0, 0.0), [[-1.0, 0.0], [2.0, 0.0]])
    assert hit.t_enter == 0.375 and hit.t_exit == 0.75
    close(hit.normal_enter, [-1.0, 0.0])
    close(hit.normal_exit, [1.0, 0.0])


def test_point_exactly_on_segment_or_not():
    hit = clip_segment((0.0, 0.0), (4.0, 2.0), [[2.0, 1.0]])
    assert hit.t_enter == hit.t_exit == 0.5
    close(hit.normal_enter, -np.array([2.0, 1.0]) / math.sqrt(5.0))
    assert clip_segment((0.0, 0.0), (4.0, 2.0), [[2.0, 1.1]]) is None
    assert clip_segment((0.0, 0.0), (4.0, 2.0), [[6.0, 3.0]]) is None


def test_point_with_radius_is_a_disc():
    hit = clip_segment((-5.0, 0.0), (5.0, 0.0), [[0.0, 0.6]], radius=1.0)
    # x^2 + 0.36 = 1 -> x = -0.8, 0.8
    assert hit.t_enter == pytest.approx(0.42, abs=1e-15) and hit.t_exit == pytest.approx(0.58, abs=1e-15)
    close(hit.normal_enter, [-0.8, -0.6])
    close(hit.normal_exit, [0.8, -0.6])
    assert clip_segment((-5.0, 0.0), (5.0, 0.0), [[0.0, 1.01]], radius=1.0) is None


def test_segment_with_radius_is_a_capsule():
    cap = [[-1.0, 0.0], [1.0, 0.0]]
    # Straight down through the flat side.
    hit = clip_segment((0.5, 3.0), (0.5, -3.0), cap, radius=0.5)
    assert hit.t_enter == pytest.approx(2.5 / 6.0, abs=1e-15)
    assert hit.t_exit == pytest.approx(3.5 / 6.0, abs=1e-15)
    close(hit.normal_enter, [0.0, 1.0])
    close(hit.normal_exit, [0.0, -1.0])
    # Along the axis: through both round caps.
    hit = clip_segment((-4.0, 0.0), (4.0, 0.0), cap, radius=0.5)
    assert hit.t_enter == pytest.approx(2.5 / 8.0, abs=1e-15) and hit.t_exit == pytest.approx(5.5 / 8.0)
    close(hit.normal_enter, [-1.0, 0.0])
    # Down through the right cap at x = 1.3: y = +-0.4.
    hit = clip_segment((1.3, 2.0), (1.3, -2.0), cap, radius=0.5)
    assert hit.t_enter == pytest.approx(1.6 / 4.0, abs=1e-15)
    close(hit.normal_enter, [0.6, 0.8])
    assert clip_segment((1.6, 2.0), (1.6, -2.0), cap, radius=0.5) is None


# --- input checks ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "fragment"),
    [
        (((math.nan, 0.0), (1.0, 0.0), BOX), {}, "start"),
        (((0.0, 0.0), (1.0, math.inf), BOX), {}, "end"),
        (((0.0, 0.0, 0.0), (1.0, 0.0), BOX), {}, "start"),
        (((0.0, 0.0), (1.0, 0.0), BOX), {"radius": -1.0}, "radius"),
        (((0.0, 0.0), (1.0, 0.0), BOX), {"radius": math.nan}, "radius"),
    ],
)
def test_bad_arguments(args, kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        clip_segment(*args, **kwargs)


def test_bad_vertices_is_geometry_error():
    with pytest.raises(GeometryError, match=r"vertices\[3\]"):
        clip_segment((0.0, 0.0), (1.0, 0.0), [[0, 0], [2, 0], [2, 2], [1, 1.5], [0, 2]])


# --- brute force -----------------------------------------------------------------------------------


def random_convex(rng, k):
    t = np.sort(rng.uniform(0, 2 * math.pi, MAX_VERTICES))
    pts = np.column_stack([np.cos(t) * rng.uniform(0.5, 2), np.sin(t) * rng.uniform(0.5, 2)])
    hull = Polygon.hull(pts + rng.uniform(-3, 3, 2))
    if k <= 2:
        return hull.vertices[:k].copy()
    return hull.vertices


def brute_interval(start, end, verts, radius, samples=20001):
    """Fractions t of the segment inside the shape, by dense sampling (independent of the engine)."""
    t = np.linspace(0.0, 1.0, samples)
    pts = start + t[:, None] * (end - start)
    if len(verts) >= 3:
        q = np.roll(verts, -1, axis=0)
        nrm = np.column_stack([q[:, 1] - verts[:, 1], verts[:, 0] - q[:, 0]])
        inside = (np.einsum("pkd,kd->pk", pts[:, None, :] - verts[None], nrm) <= 0).all(axis=1)
    else:
        a, b = verts[0], verts[-1]
        u = b - a
        uu = float(u @ u)
        s = np.clip(((pts - a) @ u) / uu, 0, 1) if uu > 0 else np.zeros(len(pts))
        closest = a + s[:, None] * u
        inside = np.hypot(*(pts - closest).T) <= radius
    return t[inside]


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1), st.sampled_from([1, 2, 3, 4, 8]))
def test_clip_matches_dense_sampling(seed, k):
    rng = np.random.default_rng(seed)
    verts = random_convex(rng, k)
    radius = 0.0 if k >= 3 else float(rng.uniform(0.2, 1.5))
    start, end = rng.uniform(-6, 6, 2), rng.uniform(-6, 6, 2)
    hit = clip_segment(start, end, verts, radius)
    inside = brute_interval(start, end, verts, radius)
    step = 1.0 / 20000
    if len(inside) == 0:
        # A miss, or a hit thinner than the sampling step.
        assert hit is None or hit.t_exit - hit.t_enter <= 2 * step
        return
    assert hit is not None
    assert hit.t_enter == pytest.approx(inside[0], abs=step * 1.01)
    assert hit.t_exit == pytest.approx(inside[-1], abs=step * 1.01)
    for p, n in ((hit.point_enter, hit.normal_enter), (hit.point_exit, hit.normal_exit)):
        if n is None:
            continue
        assert np.hypot(*n) == pytest.approx(1.0, abs=1e-12)
        # Moving out along the normal leaves the shape; moving in stays in or on it.
        out = brute_interval(p + 1e-6 * n, p + 1e-6 * n, verts, radius, samples=1)
        assert len(out) == 0


def _nearest(*args: object) -> tuple[int, float, float, float]:
    """The first hit of raycast_all_kernel (the nearest body, ties to the lowest index), or
    ``(-1, 0, 0, 0)``: what World.raycast reports."""
    bodies, ts, normals = raycast_all_kernel(*args)
    if len(bodies) == 0:
        return -1, 0.0, 0.0, 0.0
    return int(bodies[0]), float(ts[0]), float(normals[0, 0]), float(normals[0, 1])


def test_raycast_kernel_matches_clip_segment_loop():
    rng = np.random.default_rng(7)
    n = 40
    world = np.zeros((n, MAX_VERTICES, 2))
    count = np.zeros(n, dtype=np.int64)
    shapes = []
    for i in range(n):
        k = int(rng.choice([1, 2, 3, 4, 6]))
        v = random_convex(rng, k) * 0.5 + rng.uniform(-10, 10, 2)
        world[i, : len(v)] = v
        count[i] = len(v)
        shapes.append(v)
    for trial in range(100):
        start, end = rng.uniform(-12, 12, 2), rng.uniform(-12, 12, 2)
        skip = rng.random(n) < 0.2
        radius = 0.3 if trial % 2 else 0.0
        expected = []
        for i in range(n):
            if skip[i]:
                continue
            hit = clip_segment(start, end, shapes[i], radius)
            if hit is not None and hit.normal_enter is not None:
                expected.append((hit.t_enter, i, hit.normal_enter))
        expected.sort(key=lambda e: (e[0], e[1]))
        body, t, nx, ny = _nearest(start[0], start[1], end[0], end[1], world, count, skip, radius)
        bodies, ts, normals = raycast_all_kernel(
            start[0], start[1], end[0], end[1], world, count, skip, radius
        )
        if not expected:
            assert body == -1 and len(bodies) == 0
            continue
        assert body == expected[0][1] and t == expected[0][0]
        close([nx, ny], expected[0][2], 0)
        assert bodies.tolist() == [e[1] for e in expected]
        assert ts.tolist() == [e[0] for e in expected]
        close(normals, np.array([e[2] for e in expected]), 0)
        assert bodies.dtype == np.int64 and normals.shape == (len(expected), 2)


def test_raycast_skips_bodies_the_start_is_inside():
    world = np.zeros((2, MAX_VERTICES, 2))
    world[0, :4] = BOX  # contains the start
    world[1, :4] = BOX + [4.0, 0.0]  # entered at x = 3
    count = np.array([4, 4])
    body, t, nx, ny = _nearest(0.0, 0.0, 5.0, 0.0, world, count, np.zeros(2, bool), 0.0)
    assert (body, t, nx, ny) == (1, 0.6, -1.0, 0.0)
    bodies, ts, normals = raycast_all_kernel(0.0, 0.0, 5.0, 0.0, world, count, np.zeros(2, bool), 0.0)
    assert bodies.tolist() == [1] and ts.tolist() == [0.6]
    # Leaving from a start on the border is not a hit; entering from it is, at t = 0.
    assert _nearest(1.0, 0.0, 2.0, 0.0, world[:1], count[:1], np.zeros(1, bool), 0.0)[0] == -1
    assert _nearest(1.0, 0.0, 0.0, 0.0, world[:1], count[:1], np.zeros(1, bool), 0.0) == (
        0,
        0.0,
        1.0,
        0.0,
    )
    # Skipped bodies are never hit.
    skip = np.array([False, True])
    assert _nearest(-3.0, 0.0, 5.0, 0.0, world, count, skip, 0.0)[:2] == (0, 0.25)
    assert _nearest(2.0, 0.0, 5.0, 0.0, world, count, skip, 0.0)[0] == -1


def test_kernel_reports_inside_flags():
    res = clip_segment_kernel(0.0, 0.0, 5.0, 0.0, np.ascontiguousarray(BOX), 0.0)
    hit, t_enter, t_exit, nex, ney, nxx, nxy, starts_inside, ends_inside = res
    assert hit and starts_inside and not ends_inside
    assert (t_enter, t_exit, nex, ney, nxx, nxy) == (0.0, 0.2, 0.0, 0.0, 1.0, 0.0)
