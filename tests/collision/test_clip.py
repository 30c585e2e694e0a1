"""clip_polygon (Tutorial 9's Sutherland-Hodgman) against exact answers and a brute-force oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given

from collision import GeometryError, Polygon, clip_polygon
from tests.collision.test_fuzz_common import (
    FOCUS,
    MAY_FAIL,
    MUST_FAIL,
    MUST_PASS,
    SEEDS,
    SETTINGS,
    ShapeCase,
    call,
    count,
    distance_to_shape,
    expect_refusal,
    fuzz_report,  # noqa: F401 (module fixture: prints the case count)
    magnitude,
    make_shape,
)
from tests.collision.test_sat_oracle import random_convex

SQUARE = Polygon.box(4, 4).vertices  # [-2, 2]^2, counter-clockwise from (-2, -2)


def _area(points: np.ndarray) -> float:
    """Signed shoelace area (positive counter-clockwise); 0 below three vertices."""
    if len(points) < 3:
        return 0.0
    # About the first vertex: far from the origin the products would cancel to noise.
    x, y = points[:, 0] - points[0, 0], points[:, 1] - points[0, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _as_set(points: np.ndarray) -> set[tuple[float, float]]:
    return {(float(x), float(y)) for x, y in points}


def _inside(poly: np.ndarray, p: np.ndarray) -> bool:
    """Whether ``p`` is in the closed convex CCW ``poly`` (no tolerance: exact candidates only)."""
    e = np.roll(poly, -1, axis=0) - poly
    rel = p - poly
    return bool(((e[:, 0] * rel[:, 1] - e[:, 1] * rel[:, 0]) >= 0.0).all())


def _hull(points: list[tuple[float, float]]) -> np.ndarray:
    """Convex hull (Andrew's monotone chain), counter-clockwise."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return np.array(pts, dtype=float).reshape(-1, 2)

    def chain(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2:
                (ox, oy), (ax, ay) = out[-2], out[-1]
                if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) > 0.0:
                    break
                out.pop()
            out.append(p)
        return out[:-1]

    return np.array(chain(pts) + chain(pts[::-1]), dtype=float)


def _oracle_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area of the intersection of two convex CCW polygons by brute force: the hull of every
    vertex of one inside the other and every crossing of an edge of A with an edge of B."""
    candidates = [tuple(p) for p in a if _inside(b, p)] + [tuple(p) for p in b if _inside(a, p)]
    for i in range(len(a)):
        p, r = a[i], a[(i + 1) % len(a)] - a[i]
        for j in range(len(b)):
            q, s = b[j], b[(j + 1) % len(b)] - b[j]
            denom = r[0] * s[1] - r[1] * s[0]
            if denom == 0.0:
                continue
            t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / denom
            u = ((q[0] - p[0]) * r[1] - (q[1] - p[1]) * r[0]) / denom
            if 0.0 <= t <= 1.0 and 0.0 <= u <= 1.0:
                candidates.append((float(p[0] + t * r[0]), float(p[1] + t * r[1])))
    return _area(_hull(candidates))


def test_two_overlapping_squares_give_their_overlap_exactly() -> None:
    piece = clip_polygon(SQUARE + (1.0, 1.0), SQUARE)  # [-1, 3]^2 by [-2, 2]^2
    assert piece.dtype == np.float64 and piece.shape == (4, 2) and piece.flags.c_contiguous
    assert _as_set(piece) == {(-1.0, -1.0), (2.0, -1.0), (2.0, 2.0), (-1.0, 2.0)}
    assert _area(piece) == 9.0


def test_disjoint_shapes_give_an_empty_array() -> None:
    piece = clip_polygon(SQUARE + (10.0, 0.0), SQUARE)
    assert piece.shape == (0, 2) and piece.dtype == np.float64
    assert clip_polygon([[5.0, 5.0]], SQUARE).shape == (0, 2)


def test_a_subject_inside_the_clip_comes_back_unchanged() -> None:
    small = SQUARE * 0.25 + (0.5, -0.5)
    assert np.array_equal(clip_polygon(small, SQUARE), small)
    assert np.array_equal(clip_polygon(SQUARE, SQUARE), SQUARE)


def test_a_clip_inside_the_subject_gives_the_clip() -> None:
    small = SQUARE * 0.25 + (0.5, -0.5)
    assert _as_set(clip_polygon(SQUARE, small)) == _as_set(small)
    # A pentagon's corners come back as crossings of its edges' lines: equal within rounding.
    pentagon = Polygon.regular(5, 0.5).vertices + (0.25, 0.1)
    piece = clip_polygon(SQUARE, pentagon)
    assert len(piece) == 5
    assert np.allclose(np.sort(piece, axis=0), np.sort(pentagon, axis=0), rtol=0.0, atol=1e-15)
    assert _area(piece) == pytest.approx(_area(pentagon), rel=1e-14)


def test_touching_shapes_give_the_shared_edge_or_corner() -> None:
    edge = clip_polygon(SQUARE + (4.0, 0.0), SQUARE)
    assert _as_set(edge) == {(2.0, -2.0), (2.0, 2.0)} and len(edge) == 2
    corner = clip_polygon(SQUARE + (4.0, 4.0), SQUARE)
    assert corner.tolist() == [[2.0, 2.0]]


def test_points_and_segments_are_clipped_as_subjects() -> None:
    assert clip_polygon([[0.5, 0.25]], SQUARE).tolist() == [[0.5, 0.25]]
    through = clip_polygon([[-5.0, 0.0], [5.0, 0.0]], SQUARE)
    assert _as_set(through) == {(-2.0, 0.0), (2.0, 0.0)} and len(through) == 2
    inside = clip_polygon([[0.0, 0.0], [1.0, 1.0]], SQUARE)
    assert inside.tolist() == [[0.0, 0.0], [1.0, 1.0]]


def test_clockwise_input_and_polygons_are_accepted() -> None:
    a = SQUARE + (1.0, 1.0)
    expected = clip_polygon(a, SQUARE)
    clockwise = clip_polygon(a[::-1], SQUARE[::-1])
    assert _as_set(clockwise) == _as_set(expected) and _area(clockwise) == 9.0
    assert np.array_equal(clip_polygon(Polygon(a), Polygon(SQUARE)), expected)


@pytest.mark.parametrize("seed", range(4))
def test_random_convex_pairs_match_the_brute_force_area_in_both_orders(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(100):
        # Radius 4 about centres in [-2, 2]^2: about 5 pairs in 6 overlap, the rest miss.
        a, b = (random_convex(rng, int(rng.integers(3, 9)), radius=4.0) for _ in range(2))
        expected = _oracle_area(a, b)
        ab, ba = clip_polygon(a, b), clip_polygon(b, a)
        scale = max(1.0, expected)
        assert _area(ab) == pytest.approx(expected, abs=1e-12 * scale)
        assert _area(ba) == pytest.approx(expected, abs=1e-12 * scale)
        assert np.isfinite(ab).all()
        # Counter-clockwise and inside both (within rounding of the crossing points).
        assert _area(ab) >= 0.0
        for poly in (a, b):
            e = np.roll(poly, -1, axis=0) - poly
            for p in ab:
                rel = p - poly
                cross = e[:, 0] * rel[:, 1] - e[:, 1] * rel[:, 0]
                assert (cross >= -1e-12 * np.hypot(e[:, 0], e[:, 1])).all()


@pytest.mark.parametrize(
    ("clip", "message"),
    [
        ([[0.0, 0.0]], "clip: 1 vertex: the clip region must be a convex polygon"),
        ([[0.0, 0.0], [1.0, 1.0]], "clip: 2 vertices: the clip region must be a convex polygon"),
        ([[0.0, 0.0], [2.0, 0.0], [1.0, 0.5], [1.0, 2.0]], r"clip\[2\] = \(1, 0.5\): makes a reflex turn"),
        ([[0.0, 0.0], [1.0, 0.0], [math.nan, 1.0]], r"clip\[2\] = \(nan, 1\): is not finite"),
        ("square", "clip: cannot be read as an array of"),
    ],
)
def test_a_bad_clip_is_refused_naming_it(clip: object, message: str) -> None:
    with pytest.raises(GeometryError, match=message):
        clip_polygon(SQUARE, clip)


def test_a_bad_subject_is_refused_naming_its_vertex() -> None:
    with pytest.raises(GeometryError, match=r"subject\[1\] = \(inf, 0\): is not finite"):
        clip_polygon([[0.0, 0.0], [math.inf, 0.0], [0.0, 1.0]], SQUARE)


def _accepted(case: ShapeCase) -> np.ndarray | None:
    """The CCW vertices of a shape Polygon accepts, or None (checked against its outcome)."""
    poly, err = call(Polygon, case.raw)
    if err is not None:
        assert case.outcome != MUST_PASS, f"valid {case.kind} refused: {err}"
        return None
    assert case.outcome != MUST_FAIL, f"{case.kind} accepted: {case.raw}"
    return poly.vertices


@SETTINGS(300)
@given(seed=SEEDS, focus=FOCUS)
def test_hostile_shapes_get_a_finite_intersection_or_a_named_refusal(seed: int, focus: str | None) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(8):
        subject_case = make_shape(rng, focus, hostile_share=0.15)
        clip_case = make_shape(rng, None, hostile_share=0.15)
        subject, clip = _accepted(subject_case), _accepted(clip_case)
        if subject is not None and clip is not None and rng.random() < 0.5:
            # Moved onto the subject so that overlaps are common (a tiny clip may round away).
            moved = clip + subject.mean(axis=0) - clip.mean(axis=0)
            clip_case = ShapeCase(moved.tolist(), MAY_FAIL, "moved")
            clip = _accepted(clip_case)
        piece, err = call(clip_polygon, subject_case.raw, clip_case.raw)
        count("clip_polygon")
        if err is not None:
            expect_refusal(err, "subject", "clip")
            assert subject is None or clip is None or len(clip) < 3, err
            continue
        assert subject is not None and clip is not None and len(clip) >= 3
        assert piece.dtype == np.float64 and piece.ndim == 2 and piece.shape[1] == 2
        assert np.isfinite(piece).all()
        tol = 1e-9 * magnitude(subject, clip) + 1e-300
        for p in piece:
            assert distance_to_shape(p, subject) <= tol, (p, subject, clip)
            assert distance_to_shape(p, clip) <= tol, (p, subject, clip)
        assert len(piece) <= len(subject) or len(subject) >= 3
        assert _area(piece) <= min(_area(subject), _area(clip)) + 4.0 * tol * magnitude(subject, clip)
