"""Contact manifolds (collision/manifold.py) against exact answers, in both argument orders."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collision.manifold import manifold


def box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def rotated_box(cx: float, cy: float, w: float, h: float, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ np.array([[c, s], [-s, c]]) + np.array([cx, cy])


def sorted_rows(a: np.ndarray) -> np.ndarray:
    return a[np.lexsort((a[:, 1], a[:, 0]))]


def check_consistent(m) -> None:  # type: ignore[no-untyped-def]
    """Separation is the gap along the normal between the point pairs."""
    assert np.isclose(np.linalg.norm(m.normal), 1.0)
    for pa, pb, s in zip(m.point_a, m.point_b, m.separation, strict=True):
        assert np.dot(pa - pb, m.normal) == pytest.approx(s, abs=1e-12)


def test_box_resting_in_box_gives_two_exact_points_both_orders() -> None:
    top = box(0.0, 0.9, 1.0, 1.9)
    ground = box(-1.0, -1.0, 3.0, 1.0)
    m = manifold(top, ground)
    assert len(m) == 2
    np.testing.assert_allclose(m.normal, [0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(m.separation, [-0.1, -0.1], atol=1e-12)
    np.testing.assert_allclose(sorted_rows(m.point_a), [[0.0, 0.9], [1.0, 0.9]], atol=1e-12)
    np.testing.assert_allclose(sorted_rows(m.point_b), [[0.0, 1.0], [1.0, 1.0]], atol=1e-12)
    check_consistent(m)

    r = manifold(ground, top)
    assert len(r) == 2
    np.testing.assert_allclose(r.normal, [0.0, -1.0], atol=1e-15)
    np.testing.assert_allclose(r.separation, [-0.1, -0.1], atol=1e-12)
    np.testing.assert_allclose(sorted_rows(r.point_a), [[0.0, 1.0], [1.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(sorted_rows(r.point_b), [[0.0, 0.9], [1.0, 0.9]], atol=1e-12)
    check_consistent(r)


def test_overhanging_box_is_clipped_to_the_reference_face() -> None:
    # A wide box on a narrow pillar: the points are the pillar's top corners.
    plank = box(-2.0, 0.95, 2.0, 1.45)
    pillar = box(-0.25, -3.0, 0.25, 1.0)
    for a, b, sign in ((plank, pillar, 1.0), (pillar, plank, -1.0)):
        m = manifold(a, b)
        assert len(m) == 2
        np.testing.assert_allclose(m.normal, [0.0, sign], atol=1e-15)
        np.testing.assert_allclose(m.separation, [-0.05, -0.05], atol=1e-12)
        on_pillar = m.point_b if sign > 0 else m.point_a
        np.testing.assert_allclose(sorted_rows(on_pillar), [[-0.25, 1.0], [0.25, 1.0]], atol=1e-12)
        check_consistent(m)


def test_vertex_into_face_gives_one_point() -> None:
    # A diamond whose bottom vertex dips 0.2 into the ground's top face.
    diamond = np.array([[0.0, -0.2], [1.0, 0.8], [0.0, 1.8], [-1.0, 0.8]])
    ground = box(-5.0, -1.0, 5.0, 0.0)
    m = manifold(diamond, ground)
    assert len(m) == 1
    np.testing.assert_allclose(m.normal, [0.0, 1.0], atol=1e-15)
    assert m.separation[0] == pytest.approx(-0.2, abs=1e-12)
    np.testing.assert_allclose(m.point_a[0], [0.0, -0.2], atol=1e-12)
    np.testing.assert_allclose(m.point_b[0], [0.0, 0.0], atol=1e-12)
    r = manifold(ground, diamond)
    assert len(r) == 1
    np.testing.assert_allclose(r.normal, [0.0, -1.0], atol=1e-15)
    np.testing.assert_allclose(r.point_b[0], [0.0, -0.2], atol=1e-12)


def test_separated_boxes_within_speculative_distance() -> None:
    top = box(0.0, 1.05, 1.0, 2.05)
    ground = box(-1.0, -1.0, 3.0, 1.0)
    assert len(manifold(top, ground, speculative=0.04)) == 0
    m = manifold(top, ground, speculative=0.1)
    assert len(m) == 2
    np.testing.assert_allclose(m.separation, [0.05, 0.05], atol=1e-12)
    np.testing.assert_allclose(m.normal, [0.0, 1.0], atol=1e-15)
    check_consistent(m)


def test_corner_to_corner_uses_the_vertex_pair() -> None:
    a = box(2.0, 2.0, 3.0, 3.0)
    b = box(0.0, 0.0, 1.0, 1.0)
    m = manifold(a, b, speculative=2.0)
    assert len(m) == 1
    np.testing.assert_allclose(m.normal, [math.sqrt(0.5), math.sqrt(0.5)], atol=1e-12)
    assert m.separation[0] == pytest.approx(math.sqrt(2.0), abs=1e-12)
    np.testing.assert_allclose(m.point_a[0], [2.0, 2.0], atol=1e-12)
    np.testing.assert_allclose(m.point_b[0], [1.0, 1.0], atol=1e-12)
    assert len(manifold(a, b, speculative=1.4)) == 0  # the face axis alone (1.0) would keep it
    r = manifold(b, a, speculative=2.0)
    np.testing.assert_allclose(r.normal, [-math.sqrt(0.5), -math.sqrt(0.5)], atol=1e-12)
    np.testing.assert_allclose(r.point_a[0], [1.0, 1.0], atol=1e-12)


def test_segment_lying_on_a_box() -> None:
    seg = np.array([[-1.0, 0.95], [3.0, 0.95]])
    b = box(0.0, 0.0, 2.0, 1.0)
    m = manifold(seg, b)
    assert len(m) == 2
    np.testing.assert_allclose(m.normal, [0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(m.separation, [-0.05, -0.05], atol=1e-12)
    np.testing.assert_allclose(sorted_rows(m.point_a), [[0.0, 0.95], [2.0, 0.95]], atol=1e-12)
    r = manifold(b, seg)
    assert len(r) == 2
    np.testing.assert_allclose(r.normal, [0.0, -1.0], atol=1e-15)
    check_consistent(r)


def test_box_resting_on_a_segment_is_clipped_to_the_segment() -> None:
    ground = np.array([[-1.0, 0.0], [0.5, 0.0]])
    b = box(0.0, -0.01, 1.0, 0.99)
    m = manifold(b, ground)
    assert len(m) == 2
    np.testing.assert_allclose(m.normal, [0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(m.separation, [-0.01, -0.01], atol=1e-12)
    np.testing.assert_allclose(sorted_rows(m.point_b), [[0.0, 0.0], [0.5, 0.0]], atol=1e-12)


def test_point_cases() -> None:
    b = box(0.0, 0.0, 1.0, 1.0)
    inside = manifold([[0.5, 0.9]], b)  # nearest face: the top, 0.1 deep
    assert len(inside) == 1
    np.testing.assert_allclose(inside.normal, [0.0, 1.0], atol=1e-15)
    assert inside.separation[0] == pytest.approx(-0.1, abs=1e-12)
    np.testing.assert_allclose(inside.point_b[0], [0.5, 1.0], atol=1e-12)
    corner = manifold([[1.3, 1.4]], b, speculative=1.0)  # vertex region of (1, 1)
    assert len(corner) == 1
    np.testing.assert_allclose(corner.normal, [0.6, 0.8], atol=1e-12)
    assert corner.separation[0] == pytest.approx(0.5, abs=1e-12)
    reverse = manifold(b, [[1.3, 1.4]], speculative=1.0)
    np.testing.assert_allclose(reverse.normal, [-0.6, -0.8], atol=1e-12)
    np.testing.assert_allclose(reverse.point_a[0], [1.0, 1.0], atol=1e-12)
    two = manifold([[0.0, 0.0]], [[0.3, 0.4]], speculative=1.0)
    np.testing.assert_allclose(two.normal, [-0.6, -0.8], atol=1e-12)
    assert two.separation[0] == pytest.approx(0.5, abs=1e-12)
    assert len(manifold([[0.0, 0.0]], [[0.3, 0.4]], speculative=0.4)) == 0
    seg = manifold([[0.5, 0.2]], [[0.0, 0.0], [2.0, 0.0]], speculative=1.0)
    assert len(seg) == 1
    np.testing.assert_allclose(seg.normal, [0.0, 1.0], atol=1e-15)
    assert seg.separation[0] == pytest.approx(0.2, abs=1e-12)
    cap = manifold([[2.3, 0.4]], [[0.0, 0.0], [2.0, 0.0]], speculative=1.0)  # beyond the end cap
    np.testing.assert_allclose(cap.normal, [0.6, 0.8], atol=1e-12)
    assert cap.separation[0] == pytest.approx(0.5, abs=1e-12)


def test_feature_keys_identify_points_and_survive_small_motion() -> None:
    ground = box(-5.0, -1.0, 5.0, 0.0)
    m1 = manifold(rotated_box(0.0, 0.49, 1.0, 1.0, 0.001), ground)
    m2 = manifold(rotated_box(0.003, 0.488, 1.0, 1.0, 0.002), ground)
    assert len(m1) == len(m2) == 2
    assert m1.key[0] != m1.key[1]
    # Match points by position: the same corner keeps its key.
    for k, p in zip(m1.key, m1.point_a, strict=True):
        j = int(np.argmin(np.linalg.norm(m2.point_a - p, axis=1)))
        assert m2.key[j] == k


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="speculative"):
        manifold(box(0, 0, 1, 1), box(0, 0, 1, 1), speculative=-1.0)
    with pytest.raises(ValueError, match="a"):
        manifold([[0.0, math.nan]], box(0, 0, 1, 1))


def brute_force_depth(a: np.ndarray, b: np.ndarray) -> float:
    """Largest separation over every edge normal of both shapes (SAT), by brute force."""
    best = -math.inf
    for p, q in ((a, b), (b, a)):
        for i in range(len(p)):
            e = p[(i + 1) % len(p)] - p[i]
            n = np.array([e[1], -e[0]]) / np.linalg.norm(e)
            best = max(best, float(np.min((q - p[i]) @ n)))
    return best


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-0.8, 0.8),
    st.floats(-0.8, 0.8),
    st.floats(-math.pi, math.pi),
    st.floats(-math.pi, math.pi),
    st.floats(0.3, 1.5),
    st.floats(0.3, 1.5),
)
def test_overlapping_boxes_deepest_point_matches_brute_force_sat(
    dx: float, dy: float, ta: float, tb: float, wa: float, wb: float
) -> None:
    a = rotated_box(dx, dy, wa, 1.0, ta)
    b = rotated_box(0.0, 0.0, 1.0, wb, tb)
    depth = brute_force_depth(a, b)
    for first, second in ((a, b), (b, a)):
        m = manifold(first, second, speculative=0.0)
        if depth < -1e-9:
            assert len(m) >= 1
            check_consistent(m)
            # The reference face is within the flip tolerance of the SAT axis; the deepest
            # clipped point is at least as deep as the SAT overlap along it.
            assert np.min(m.separation) <= depth + 5e-4 + 1e-9
            assert np.all(m.separation <= 1e-12)
