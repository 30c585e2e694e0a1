"""Polygon, check_vertices, factories, hull and mass properties against exact answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collision import MAX_VERTICES, GeometryError, Polygon
from collision.shapes import check_vertices

UNIT_SQUARE = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]


# --- check_vertices -----------------------------------------------------------------------------


def test_check_vertices_returns_new_contiguous_float64():
    src = np.array(UNIT_SQUARE, dtype=np.float32)
    out = check_vertices(src, "a")
    assert out.dtype == np.float64 and out.shape == (4, 2) and out.flags.c_contiguous
    out[0, 0] = 99.0
    assert src[0, 0] == 0.0


def test_check_vertices_of_polygon_is_a_writable_copy():
    poly = Polygon(UNIT_SQUARE)
    out = check_vertices(poly, "a")
    np.testing.assert_array_equal(out, poly.vertices)
    out[0, 0] = 5.0
    assert poly.vertices[0, 0] == 0.0


def test_clockwise_is_reordered_keeping_vertex_zero_first():
    cw = [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]
    out = check_vertices(cw, "b")
    np.testing.assert_array_equal(out, [[0, 0], [1, 0], [1, 1], [0, 1]])


def test_ccw_input_is_kept_as_given_not_recentred():
    pts = [[10.0, 5.0], [12.0, 5.0], [11.0, 7.0]]
    np.testing.assert_array_equal(Polygon(pts).vertices, pts)


def test_points_and_segments_are_accepted():
    assert check_vertices([[3.0, 4.0]], "a").shape == (1, 2)
    np.testing.assert_array_equal(check_vertices([[1, 2], [3, 4]], "a"), [[1, 2], [3, 4]])


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ([], "a: has no vertices"),
        (np.zeros((0, 2)), "a: has no vertices"),
        ([1.0, 2.0], "a: must have shape (k, 2), got (2,)"),
        ([[1.0, 2.0, 3.0]], "got (1, 3)"),
        ("abc", "a: cannot be read"),
        ([[0, 0], [1, 0], [1, 1], [0, 1]] * 5, "a: has 20 vertices, more than MAX_VERTICES = 16"),
        ([[0, 0], [math.nan, 0], [1, 1]], "a[1] = (nan, 0): is not finite"),
        ([[0, 0], [1, 0], [1, math.inf]], "a[2] = (1, inf): is not finite"),
        ([[1, 2], [1, 2]], "a[1] = (1, 2): is the same point as a[0]"),
        ([[0, 0], [1, 0], [1, 0], [0, 1]], "a[2] = (1, 0): is the same point as a[1]"),
        ([[0, 0], [1, 0], [1, 1], [0, 0]], "a[3] = (0, 0): is the same point as a[0] (do not repeat"),
        ([[0, 0], [1, 0], [2, 0]], "a[0..2]: the outline has zero area"),
        ([[0, 0], [1, 1], [2, 2], [3, 3]], "zero area"),
        ([[0, 0], [1, 0], [2, 0], [1, 1]], "a[1] = (1, 0): lies on the line through its neighbours"),
        (
            [[0, 0], [2, 0], [2, 2], [1, 1.5], [0, 2]],
            "a[3] = (1, 1.5): makes a reflex turn (outline is not convex)",
        ),
        ([[0, 0], [1, 1], [1, 0], [0, 1]], "a: edge 0-1 ((0, 0) to (1, 1)) crosses edge 2-3"),
    ],
)
def test_geometry_errors_name_argument_vertex_and_reason(value, fragment):
    with pytest.raises(GeometryError) as info:
        check_vertices(value, "a")
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_reflex_vertex_named_in_input_indexing_for_clockwise_input():
    # Clockwise outline with a notch at input index 3.
    ccw = [[0, 0], [2, 0], [2, 2], [1, 1.5], [0, 2]]
    cw = [ccw[0]] + ccw[:0:-1]  # vertex (1, 1.5) is now at index 2
    with pytest.raises(GeometryError, match=r"a\[2\] = \(1, 1.5\): makes a reflex turn"):
        check_vertices(cw, "a")


def test_pentagram_winding_twice_is_refused():
    angles = [2 * math.pi * i * 2 / 5 for i in range(5)]
    star = [[math.cos(t), math.sin(t)] for t in angles]
    with pytest.raises(GeometryError, match="crosses edge"):
        Polygon(star)


def test_max_vertices_is_accepted():
    assert MAX_VERTICES >= 16
    assert len(Polygon.regular(MAX_VERTICES, 1.0)) == MAX_VERTICES


# --- properties ---------------------------------------------------------------------------------


def test_box_properties_exact():
    box = Polygon.box(4.0, 2.0)
    np.testing.assert_array_equal(box.vertices, [[-2, -1], [2, -1], [2, 1], [-2, 1]])
    np.testing.assert_array_equal(box.normals, [[0, -1], [1, 0], [0, 1], [-1, 0]])
    assert box.area == 8.0
    np.testing.assert_array_equal(box.centroid, [0.0, 0.0])
    assert box.radius == pytest.approx(math.sqrt(5.0), rel=1e-15)
    mass, inertia = box.mass_properties(3.0)
    assert mass == 24.0
    assert inertia == pytest.approx(24.0 * (16.0 + 4.0) / 12.0, rel=1e-14)
    assert len(box) == 4 and box.kind == "polygon"


def test_offset_box_inertia_is_about_its_centroid():
    box = Polygon(np.array(Polygon.box(2.0, 6.0).vertices) + [1e3, -7e2])
    np.testing.assert_allclose(box.centroid, [1e3, -7e2], rtol=0, atol=1e-10)
    mass, inertia = box.mass_properties(1.0)
    assert mass == pytest.approx(12.0, rel=1e-12)
    assert inertia == pytest.approx(12.0 * (4.0 + 36.0) / 12.0, rel=1e-9)


def test_right_triangle_exact():
    tri = Polygon([[0, 0], [3, 0], [0, 6]])
    assert tri.area == 9.0
    np.testing.assert_allclose(tri.centroid, [1.0, 2.0], rtol=0, atol=1e-15)
    mass, inertia = tri.mass_properties(2.0)
    assert mass == 18.0
    # Right triangle legs a, b: polar moment about its centroid = m (a^2 + b^2) / 18.
    assert inertia == pytest.approx(18.0 * (9.0 + 36.0) / 18.0, rel=1e-14)
    np.testing.assert_allclose(
        tri.normals, [[0, -1], [2 / math.sqrt(5), 1 / math.sqrt(5)], [-1, 0]], atol=1e-15
    )


@pytest.mark.parametrize("n", [3, 4, 5, 6, 8, 12, 16])
def test_regular_polygon_exact(n):
    r = 2.0
    poly = Polygon.regular(n, r)
    area = 0.5 * n * r * r * math.sin(2 * math.pi / n)
    assert poly.area == pytest.approx(area, rel=1e-13)
    np.testing.assert_allclose(poly.centroid, [0.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(np.hypot(*poly.vertices.T), r, rtol=1e-15)
    assert poly.radius == pytest.approx(r, rel=1e-14)
    mass, inertia = poly.mass_properties(1.0)
    # Regular n-gon, circumradius r: I = m r^2 (1 + 2 cos^2(pi/n)) / 6.
    assert inertia == pytest.approx(mass * r * r * (1 + 2 * math.cos(math.pi / n) ** 2) / 6, rel=1e-13)
    # Flat bottom edge: the lowest two vertices share y.
    ys = np.sort(poly.vertices[:, 1])
    assert ys[0] == pytest.approx(ys[1], abs=1e-15)


def test_regular_inertia_tends_to_disc():
    mass, inertia = Polygon.regular(16, 1.0).mass_properties(1.0)
    assert abs(inertia / mass - 0.5) < 0.02


def test_point_and_segment_mass_properties():
    point = Polygon([[2.0, 3.0]])
    assert point.mass_properties(2.0) == (10.0, 0.0)
    assert point.area == 0.0 and point.radius == 0.0 and point.normals.shape == (0, 2)
    np.testing.assert_array_equal(point.centroid, [2.0, 3.0])
    seg = Polygon([[0.0, 0.0], [3.0, 4.0]])
    mass, inertia = seg.mass_properties(2.0)
    assert mass == 10.0
    assert inertia == pytest.approx(10.0 * 25.0 / 12.0, rel=1e-15)
    assert not math.isnan(inertia)
    np.testing.assert_array_equal(seg.centroid, [1.5, 2.0])
    assert seg.radius == 2.5
    np.testing.assert_allclose(seg.normals, [[0.8, -0.6], [-0.8, 0.6]], atol=1e-15)


@pytest.mark.parametrize("density", [-1.0, math.nan, math.inf, "x"])
def test_bad_density_is_value_error_naming_density(density):
    with pytest.raises(ValueError, match="density"):
        Polygon.box(1, 1).mass_properties(density)


def test_zero_density_gives_zero_mass():
    assert Polygon.box(1, 1).mass_properties(0.0) == (0.0, 0.0)


def test_arrays_are_read_only():
    box = Polygon.box(1, 1)
    for arr in (box.vertices, box.normals, box.centroid):
        with pytest.raises(ValueError):
            arr[0] = 1.0


# --- factories ------------------------------------------------------------------------------------


def test_blob_family_matches_original():
    np.testing.assert_array_equal(Polygon.blob(1, 3.0, 4.0).vertices, [[0.0, 0.0]])
    np.testing.assert_array_equal(Polygon.blob(2, 3.0, 4.0).vertices, [[0.0, -4.0], [0.0, 4.0]])
    rect = Polygon.blob(4, 3.0, 4.0).vertices
    c = math.sqrt(0.5)
    np.testing.assert_allclose(
        rect, [[-3 * c, 4 * c], [-3 * c, -4 * c], [3 * c, -4 * c], [3 * c, 4 * c]], atol=1e-14
    )
    for n in range(3, MAX_VERTICES + 1):
        verts = Polygon.blob(n, 3.0, 4.0).vertices
        angles = (2 * np.arange(n) + 3) * math.pi / n
        np.testing.assert_allclose(
            verts, np.column_stack([3 * np.cos(angles), 4 * np.sin(angles)]), atol=1e-14
        )


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: Polygon.box(0, 1), "w = 0"),
        (lambda: Polygon.box(1, -2), "h = -2"),
        (lambda: Polygon.box(math.inf, 1), "w = inf"),
        (lambda: Polygon.regular(2, 1.0), "n = 2"),
        (lambda: Polygon.regular(17, 1.0), "n = 17"),
        (lambda: Polygon.regular(4.5, 1.0), "n = 4.5"),
        (lambda: Polygon.regular(4, 0.0), "r = 0"),
        (lambda: Polygon.blob(0, 1.0, 1.0), "n = 0"),
        (lambda: Polygon.blob(5, -1.0, 1.0), "rx = -1"),
    ],
)
def test_factory_argument_errors(call, fragment):
    with pytest.raises(ValueError) as info:
        call()
    assert fragment in str(info.value)


def test_hull_of_square_with_interior_and_edge_points():
    pts = [[0, 0], [2, 0], [1, 0], [2, 2], [0, 2], [1, 1], [0.5, 0.5], [2, 1], [0, 0]]
    hull = Polygon.hull(pts)
    assert len(hull) == 4 and hull.area == 4.0
    assert {tuple(p) for p in hull.vertices.tolist()} == {(0, 0), (2, 0), (2, 2), (0, 2)}


def test_hull_degenerate_cases():
    np.testing.assert_array_equal(Polygon.hull([[1, 1], [1, 1]]).vertices, [[1, 1]])
    np.testing.assert_array_equal(Polygon.hull([[2, 2], [0, 0], [1, 1]]).vertices, [[0, 0], [2, 2]])


def test_hull_too_many_vertices():
    t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
    with pytest.raises(GeometryError, match="convex hull has 40 vertices"):
        Polygon.hull(np.column_stack([np.cos(t), np.sin(t)]))


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1), st.integers(min_value=3, max_value=60))
def test_hull_contains_every_point_and_is_convex(seed, m):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(m, 2)) * rng.uniform(0.1, 10.0)
    t = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    pts = np.vstack([pts, np.column_stack([np.cos(t), np.sin(t)]) * 1e-3])  # never collinear overall
    try:
        hull = Polygon.hull(pts)
    except GeometryError as exc:
        assert "more than MAX_VERTICES" in str(exc)
        return
    v, nrm = hull.vertices, hull.normals
    # Every input point is on the inner side of every edge (brute force).
    dist = np.einsum("pkd,kd->pk", pts[:, None, :] - v[None, :, :], nrm)
    assert dist.max() <= 1e-9 * (1 + np.abs(pts).max())
    # Every hull vertex is one of the input points.
    for p in v:
        assert np.any(np.all(pts == p, axis=1))


# --- transforms -----------------------------------------------------------------------------------


def test_recentred_translated_rotated():
    tri = Polygon([[0, 0], [3, 0], [0, 6]])
    rec = tri.recentred()
    np.testing.assert_allclose(rec.centroid, [0, 0], atol=1e-15)
    np.testing.assert_allclose(rec.vertices, tri.vertices - [1, 2], atol=1e-15)
    moved = tri.translated([5, -1])
    np.testing.assert_allclose(moved.vertices, tri.vertices + [5, -1], atol=1e-15)
    quarter = tri.rotated(math.pi / 2)
    np.testing.assert_allclose(quarter.vertices, [[0, 0], [0, 3], [-6, 0]], atol=1e-14)
    assert quarter.area == pytest.approx(tri.area, rel=1e-14)
    with pytest.raises(ValueError, match="angle"):
        tri.rotated(math.nan)
    with pytest.raises(ValueError, match="offset"):
        tri.translated([1, 2, 3])


def test_equality_and_repr():
    assert Polygon(UNIT_SQUARE) == Polygon([[0, 0], [0, 1], [1, 1], [1, 0]])
    assert "Polygon([(0, 0), (1, 0)" in repr(Polygon(UNIT_SQUARE))


def triangle_fan_mass_properties(v, density):
    """Independent check: fan of triangles, each m (a^2 + b^2 + c^2) / 36 about its own centroid,
    moved to the polygon centroid with the parallel-axis theorem."""
    parts = []
    for i in range(1, len(v) - 1):
        p, q, r = v[0], v[i], v[i + 1]
        area = 0.5 * abs((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))
        sides = sum(float(np.sum((x - y) ** 2)) for x, y in ((p, q), (q, r), (r, p)))
        m = density * area
        parts.append((m, (p + q + r) / 3.0, m * sides / 36.0))
    mass = sum(m for m, _, _ in parts)
    centre = sum(m * c for m, c, _ in parts) / mass
    inertia = sum(i + m * float(np.sum((c - centre) ** 2)) for m, c, i in parts)
    return mass, centre, inertia


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1))
def test_random_convex_polygon_properties_match_triangle_fan(seed):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 2 * math.pi, rng.integers(3, MAX_VERTICES + 1)))
    pts = np.column_stack([np.cos(t) * rng.uniform(0.5, 3), np.sin(t) * rng.uniform(0.5, 3)])
    pts += rng.uniform(-50, 50, 2)
    hull = Polygon.hull(pts)
    if len(hull) < 3:
        return
    density = float(rng.uniform(0.1, 10))
    mass, centre, inertia = triangle_fan_mass_properties(hull.vertices, density)
    got_mass, got_inertia = hull.mass_properties(density)
    assert got_mass == pytest.approx(mass, rel=1e-10)
    np.testing.assert_allclose(hull.centroid, centre, rtol=0, atol=1e-9)
    assert got_inertia == pytest.approx(inertia, rel=1e-9)
    # Clockwise input (reversed, any start) gives the same CCW polygon, starting at the same vertex.
    k = int(rng.integers(len(hull)))
    cw = np.roll(hull.vertices[::-1], k, axis=0)
    again = Polygon(cw)
    assert again.vertices[0].tolist() == cw[0].tolist()
    assert set(map(tuple, again.vertices.tolist())) == set(map(tuple, hull.vertices.tolist()))
    assert again.area == pytest.approx(hull.area, rel=1e-12)
    # Every normal is unit and outward: all vertices lie behind every edge.
    d = np.einsum("pkd,kd->pk", hull.vertices[:, None, :] - hull.vertices[None], hull.normals)
    assert d.max() <= 1e-9
    np.testing.assert_allclose(np.hypot(*hull.normals.T), 1.0, rtol=1e-14)
