"""Tutorials 1-3: intersect, find_mtd, sweep on cases with exact answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import GeometryError, Hit, Polygon, find_mtd, intersect, sweep


def box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def both_orders(a, b, velocity, t_max=1.0):
    """sweep(a, b, v) and sweep(b, a, -v), checked to be mirror images."""
    h1 = sweep(a, b, velocity, t_max)
    h2 = sweep(b, a, -np.asarray(velocity, dtype=float), t_max)
    assert (h1 is None) == (h2 is None)
    if h1 is not None:
        assert h2.t == h1.t
        assert h2.depth == h1.depth
        np.testing.assert_array_equal(h2.normal, -h1.normal)
    return h1


# ---- Tutorial 1: intersect --------------------------------------------------------------


def test_intersect_overlapping_boxes():
    assert intersect(box(0, 0, 2, 2), box(1, 1, 3, 3))
    assert intersect(box(1, 1, 3, 3), box(0, 0, 2, 2))


def test_intersect_separated_on_one_axis_only():
    # Overlap in y, gap of 0.5 in x.
    assert not intersect(box(0, 0, 2, 2), box(2.5, 1, 4, 3))


def test_intersect_separated_by_a_diagonal_edge_normal():
    # Triangle whose hypotenuse faces a box corner: the boxes' x/y shadows overlap,
    # only the hypotenuse's normal separates them.
    tri = np.array([[0, 0], [2, 0], [0, 2]], dtype=float)
    assert not intersect(tri, box(1.2, 1.2, 3, 3))
    assert intersect(tri, box(0.9, 0.9, 3, 3))


def test_touching_counts_as_intersecting():
    assert intersect(box(0, 0, 1, 1), box(1, 0, 2, 1))
    assert intersect(box(0, 0, 1, 1), box(1, 1, 2, 2))  # corners only


def test_clockwise_input_and_polygon_objects_are_accepted():
    cw = box(0, 0, 2, 2)[::-1]
    assert intersect(cw, Polygon(box(1, 1, 3, 3)))


# ---- Tutorial 2: find_mtd ---------------------------------------------------------------


def test_mtd_two_boxes_pushes_along_the_axis_of_least_overlap():
    # x overlap 0.5, y overlap 1.5 (B is inside A's y range): push A left by 0.5.
    mtd = find_mtd(box(0, 0, 2, 2), box(1.5, 0.5, 3, 1.5))
    np.testing.assert_allclose(mtd, [-0.5, 0.0], atol=1e-15)
    # And the other way round: B pushed right.
    np.testing.assert_allclose(find_mtd(box(1.5, 0.5, 3, 1.5), box(0, 0, 2, 2)), [0.5, 0.0], atol=1e-15)


def test_mtd_depends_on_sides_not_on_centres():
    # A is a long flat box whose centre is to the right of B's centre, but A overlaps
    # B's top by 0.25: the push is up, by 0.25.
    a = box(-1, 0.75, 9, 2)
    b = box(0, -1, 2, 1)
    np.testing.assert_allclose(find_mtd(a, b), [0.0, 0.25], atol=1e-15)


def test_mtd_direction_is_not_the_centroid_offset():
    # Tall triangle through a wide slab: its centroid (y = -1/3) is below the slab's (0),
    # but its interval [-2, 3] clears the slab [-1, 1] sooner upward (3) than downward (4).
    # The tutorial's "flip if (centre A - centre B) . mtd < 0" would push it down by 3,
    # still overlapping.
    tri = np.array([[-1, -2], [1, -2], [0, 3]], dtype=float)
    slab = box(-10, -1, 10, 1)
    np.testing.assert_allclose(find_mtd(tri, slab), [0.0, 3.0], atol=1e-15)
    np.testing.assert_allclose(find_mtd(slab, tri), [0.0, -3.0], atol=1e-15)


def test_mtd_none_when_apart_zero_when_touching():
    assert find_mtd(box(0, 0, 1, 1), box(1.5, 0, 2, 1)) is None
    touching = find_mtd(box(0, 0, 1, 1), box(1, 0, 2, 1))
    assert touching is not None
    np.testing.assert_array_equal(touching, [0.0, 0.0])
    assert not np.signbit(touching).any()


def test_mtd_of_a_rotated_square_point_down_in_a_floor():
    # Diamond (square turned 45 degrees) with its lowest corner 0.1 below the floor's top.
    r = 1.0
    diamond = np.array([[0, -r], [r, 0], [0, r], [-r, 0]], dtype=float) + [0.0, r - 0.1]
    floor = box(-5, -1, 5, 0)
    np.testing.assert_allclose(find_mtd(diamond, floor), [0.0, 0.1], atol=1e-12)


def test_mtd_separates_and_has_exact_length_box_vs_triangle():
    tri = np.array([[0, 0], [4, 0], [0, 4]], dtype=float)
    b = box(1.5, 1.5, 3, 3)  # corner (1.5, 1.5) is inside the triangle, 1/sqrt(2) deep
    mtd = find_mtd(b, tri)
    depth = (4 - (1.5 + 1.5)) / math.sqrt(2)  # corner's distance to the hypotenuse x + y = 4
    np.testing.assert_allclose(mtd, [depth / math.sqrt(2)] * 2, atol=1e-12)
    assert not intersect(b + mtd * (1 + 1e-9), tri)


# ---- Tutorial 3: sweep ------------------------------------------------------------------


def test_sweep_time_of_impact_is_gap_over_speed():
    hit = both_orders(box(0, 0, 1, 1), box(3, 0, 4, 1), [4.0, 0.0])
    assert isinstance(hit, Hit)
    assert hit.t == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])
    assert hit.depth == 0.0
    assert not hit.overlapping


def test_sweep_time_of_impact_with_t_max_in_seconds():
    # Gap 0.3 at 12 units/s: contact after 0.025 s, within a 1/60 s step? No; within 1/30 s, yes.
    a, b = box(0, 0, 1, 1), box(1.3, -2, 2, 3)
    assert sweep(a, b, [12.0, 0.0], t_max=1 / 60) is None
    hit = sweep(a, b, [12.0, 0.0], t_max=1 / 30)
    assert hit.t == pytest.approx(0.3 / 12, rel=1e-14)


def test_sweep_diagonal_mover_passing_beside_a_box_misses():
    # Per axis, A's x shadow overlaps B's during [0.25, 0.75] and its y shadow during
    # [0.833, 2.5]: each axis overlaps at some time, never both at once.
    a, b = box(0, 0, 1, 1), box(2, 2, 3, 3)
    assert both_orders(a, b, [4.0, 1.2]) is None
    # Aimed a little higher it hits, when the y shadows meet: t = 1 / 1.6.
    hit = both_orders(a, b, [4.0, 1.6])
    assert hit.t == pytest.approx(1 / 1.6, rel=1e-14)
    np.testing.assert_array_equal(hit.normal, [0.0, -1.0])


def test_sweep_future_hit_beyond_t_max_and_moving_away_miss():
    a, b = box(0, 0, 1, 1), box(3, 0, 4, 1)
    assert both_orders(a, b, [1.0, 0.0]) is None  # would touch at t = 2
    assert both_orders(a, b, [-5.0, 0.0]) is None
    assert both_orders(a, b, [0.0, 0.0]) is None


def test_sweep_overlap_reports_depth_and_t_zero():
    hit = both_orders(box(0, 0, 2, 2), box(1.5, 0.5, 3, 1.5), [3.0, 0.0])
    assert hit.t == 0.0
    assert hit.depth == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])
    assert hit.overlapping


def test_sweep_touching_is_a_hit_of_depth_zero_whatever_the_velocity():
    a, b = box(0, 0, 1, 1), box(1, 0, 2, 1)
    for v in ([0.0, 0.0], [1.0, 0.0], [-1.0, 0.3]):
        hit = sweep(a, b, v)
        assert hit is not None and hit.t == 0.0 and hit.depth == 0.0
        assert hit.overlapping
        np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])


def test_sweep_parallel_edges_sliding_contact():
    # A slides along B's top face, touching it all the time.
    hit = both_orders(box(0, 1, 1, 2), box(-3, 0, 3, 1), [2.0, 0.0])
    assert hit.t == 0.0 and hit.depth == 0.0
    np.testing.assert_array_equal(hit.normal, [0.0, 1.0])


def test_sweep_with_velocity_parallel_to_the_gap_misses():
    # Moving along a gap of 0.5 never closes it: zero speed on the separating axis.
    assert both_orders(box(0, 2.5, 1, 3), box(-3, 0, 3, 2), [6.0, 0.0]) is None


# ---- points and segments ----------------------------------------------------------------


def test_point_inside_box_depth_to_nearest_side():
    hit = both_orders([[0.9, 0.5]], box(0, 0, 1, 1), [0.0, 0.0])
    assert hit.depth == pytest.approx(0.1, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [1.0, 0.0])
    np.testing.assert_allclose(find_mtd([[0.9, 0.5]], box(0, 0, 1, 1)), [0.1, 0.0], atol=1e-15)


def test_point_flying_into_a_box():
    hit = both_orders([[-2.0, 0.5]], box(0, 0, 1, 1), [4.0, 0.0])
    assert hit.t == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])
    # A bullet fast enough to pass through the box entirely in one step is still caught.
    hit = both_orders([[-2.0, 0.5]], box(0, 0, 0.01, 1), [1000.0, 0.0])
    assert hit.t == pytest.approx(0.002, rel=1e-12)


def test_point_vs_point_only_when_coincident():
    assert intersect([[1.0, 2.0]], [[1.0, 2.0]])
    assert not intersect([[1.0, 2.0]], [[1.0, 2.000001]])
    np.testing.assert_array_equal(find_mtd([[1.0, 2.0]], [[1.0, 2.0]]), [0.0, 0.0])
    assert sweep([[0.0, 0.0]], [[1.0, 1e-9]], [2.0, 0.0]) is None
    hit = both_orders([[0.0, 0.0]], [[1.0, 0.0]], [2.0, 0.0])
    assert hit.t == 0.5 and hit.depth == 0.0
    np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])


def test_point_against_segment():
    seg = [[0.0, 0.0], [2.0, 0.0]]
    assert intersect([[1.0, 0.0]], seg)
    assert not intersect([[3.0, 0.0]], seg)  # on the line, beyond the end
    hit = both_orders([[1.0, 1.0]], seg, [0.0, -4.0])
    assert hit.t == pytest.approx(0.25, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [0.0, 1.0])
    # Along the segment's own line, into its end: the direction axis gives the time.
    hit = both_orders([[-1.0, 0.0]], seg, [2.0, 0.0])
    assert hit.t == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])
    # Passing beside the end misses.
    assert both_orders([[-1.0, 0.5]], seg, [4.0, -0.2]) is None


def test_crossing_segments_overlap_and_parallel_segments():
    x1 = [[-1.0, 0.0], [1.0, 0.0]]
    x2 = [[0.0, -0.25], [0.0, 2.0]]
    hit = both_orders(x1, x2, [0.0, 0.0])
    # Shortest way out: push x1 down by 0.25 below x2's lower end.
    assert hit.depth == pytest.approx(0.25, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [0.0, -1.0])
    # Parallel, on the same line, overlapping by 0.5.
    hit = both_orders([[0.0, 0.0], [1.0, 0.0]], [[0.5, 0.0], [3.0, 0.0]], [0.0, 0.0])
    assert hit.depth == 0.0  # zero thickness: touching across the line
    # Parallel lines 1 apart, moving toward each other.
    hit = both_orders([[0.0, 1.0], [1.0, 1.0]], [[0.5, 0.0], [3.0, 0.0]], [0.0, -2.0])
    assert hit.t == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [0.0, 1.0])


def test_segment_hitting_a_box_end_first():
    seg = [[-3.0, 0.5], [-2.0, 0.5]]
    hit = both_orders(seg, box(0, 0, 1, 1), [4.0, 0.0])
    assert hit.t == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_array_equal(hit.normal, [-1.0, 0.0])


# ---- input checking ---------------------------------------------------------------------


def test_bad_velocity_and_t_max_are_refused_by_name():
    a, b = box(0, 0, 1, 1), box(3, 0, 4, 1)
    with pytest.raises(ValueError, match="velocity"):
        sweep(a, b, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="velocity"):
        sweep(a, b, [math.nan, 0.0])
    with pytest.raises(ValueError, match="velocity"):
        sweep(a, b, "fast")
    for bad in (0.0, -1.0, math.inf, math.nan, "soon"):
        with pytest.raises(ValueError, match="t_max"):
            sweep(a, b, [1.0, 0.0], t_max=bad)


def test_bad_shapes_are_refused_by_argument_name():
    good = box(0, 0, 1, 1)
    with pytest.raises(GeometryError, match=r"\bb\b"):
        intersect(good, [[0, 0], [1, 1], [2, 2]])  # collinear: zero area
    with pytest.raises(GeometryError, match=r"\ba\b"):
        find_mtd([[0, 0], [math.inf, 0], [0, 1]], good)
    with pytest.raises(GeometryError, match=r"\ba\b"):
        sweep([[0, 0], [2, 0], [1, 0.2], [1, 2]], good, [0, 0])  # not convex


def test_hit_is_frozen_and_compares_by_value():
    hit = sweep(box(0, 0, 1, 1), box(3, 0, 4, 1), [4.0, 0.0])
    with pytest.raises(AttributeError):
        hit.t = 0.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        hit.normal[0] = 1.0
    assert hit == Hit(normal=np.array([-1.0, 0.0]), t=0.5, depth=0.0)
    assert hit.normal.dtype == np.float64 and hit.normal.shape == (2,)
    assert isinstance(hit.t, float) and isinstance(hit.depth, float)
