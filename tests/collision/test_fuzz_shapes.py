"""Hostile input for shapes: Polygon, check_vertices, factories, hull, decompose, mass properties.

Every call either returns a correct, finite answer or raises GeometryError / ValueError naming
the argument (and the vertex, where one is at fault). Case counts: see test_fuzz_common.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given

from collision import MAX_VERTICES, GeometryError, Polygon, decompose
from collision.shapes import check_vertices
from collision.tolerances import MAX_DENSITY
from tests.collision.test_fuzz_common import (
    FOCUS,
    HOSTILE_NUMBERS,
    MUST_FAIL,
    MUST_PASS,
    SEEDS,
    SETTINGS,
    ShapeCase,
    call,
    count,
    distance_to_shape,
    expect_refusal,
    extent,
    finite_number,
    fuzz_report,  # noqa: F401 (module fixture: prints the case count)
    magnitude,
    make_shape,
)


def _signed_area(v: np.ndarray) -> float:
    x, y = v[:, 0], v[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def _check_polygon(poly: Polygon, source: np.ndarray) -> None:
    """A Polygon built from ``source`` holds the same point set, CCW, with finite properties."""
    v = poly.vertices
    k = len(v)
    assert v.shape == (k, 2) and v.dtype == np.float64 and len(poly) == k == len(source)
    assert np.isfinite(v).all()
    # The same vertices (maybe reordered from clockwise).
    assert sorted(map(tuple, v.tolist())) == sorted(map(tuple, source.tolist()))
    assert np.isfinite(poly.area) and np.isfinite(poly.centroid).all() and np.isfinite(poly.radius)
    n = poly.normals
    assert n.shape == ({1: 0, 2: 2}.get(k, k), 2)
    if len(n):
        assert np.allclose(np.hypot(n[:, 0], n[:, 1]), 1.0, atol=1e-12)
    if k >= 3:
        area = _signed_area(v - v.mean(axis=0))
        assert area > 0.0, "vertices must come out counter-clockwise"
        assert math.isclose(poly.area, area, rel_tol=1e-6)
        # Outward normals: every vertex is on the inner side of every edge's line.
        d = np.einsum("ijk,ik->ij", v[None, :, :] - v[:, None, :], n)
        assert d.max() <= 1e-9 * magnitude(v) + 1e-12 * extent(v)
    assert distance_to_shape(poly.centroid, v) <= 1e-9 * magnitude(v) + 1e-9 * extent(v)


@SETTINGS(1300)
@given(seed=SEEDS, focus=FOCUS)
def test_polygon_and_check_vertices(seed: int, focus: str | None) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(12):
        case = make_shape(rng, focus)
        _polygon_case(case, HOSTILE_NUMBERS[int(rng.integers(0, len(HOSTILE_NUMBERS)))])


def _polygon_case(case: ShapeCase, density: float) -> None:
    checked, err = call(check_vertices, case.raw, "shape")
    count("check_vertices")
    poly, perr = call(Polygon, case.raw)
    count("Polygon")
    assert (err is None) == (perr is None), f"check_vertices, Polygon disagree on {case.raw}: {err or perr}"
    if err is not None:
        assert case.outcome != MUST_PASS, f"valid {case.kind} refused: {err}"
        expect_refusal(err, "shape")
        assert isinstance(err, GeometryError)
        if case.bad_vertex is not None:
            assert f"shape[{case.bad_vertex}]" in str(err), str(err)
        return
    assert case.outcome != MUST_FAIL, f"{case.kind} accepted: {case.raw}"
    assert checked.flags.c_contiguous and checked.dtype == np.float64
    assert np.array_equal(checked, poly.vertices)
    _check_polygon(poly, case.array)

    result, derr = call(poly.mass_properties, density)
    count("mass_properties")
    if derr is not None:
        assert not finite_number(density) or not 0.0 <= density <= MAX_DENSITY, derr
        expect_refusal(derr, "density")
        return
    assert finite_number(density) and 0.0 <= density <= MAX_DENSITY
    mass, inertia = result
    if math.isfinite(mass) and math.isfinite(inertia):
        assert mass >= 0.0 and inertia >= 0.0
        if len(poly) >= 3:
            assert math.isclose(mass, poly.area * density, rel_tol=1e-9, abs_tol=1e-300)
    else:
        # Only an enormous density times an enormous area may overflow; it must not be NaN.
        assert not (math.isnan(mass) or math.isnan(inertia)), (mass, inertia, density)


FACTORY_ARGS: tuple[object, ...] = (*HOSTILE_NUMBERS, *range(-2, MAX_VERTICES + 3), "3", None, True, 1e-300)


@SETTINGS(300)
@given(seed=SEEDS)
def test_factories(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(20):
        which = ("box", "regular", "blob")[int(rng.integers(0, 3))]
        x, y, z = (FACTORY_ARGS[int(i)] for i in rng.integers(0, len(FACTORY_ARGS), 3))
        _factory_case(which, x, y, z)


def _factory_case(which: str, x: object, y: object, z: object) -> None:
    if which == "box":
        poly, err = call(Polygon.box, x, y)
        names = ("w", "h")
    elif which == "regular":
        poly, err = call(Polygon.regular, x, y)
        names = ("n", "r")
    else:
        poly, err = call(Polygon.blob, x, y, z)
        names = ("n", "rx", "ry")
    count(f"Polygon.{which}")
    if err is not None:
        expect_refusal(err, *names)
        return
    v = poly.vertices
    assert np.isfinite(v).all() and np.isfinite(poly.area) and np.isfinite(poly.radius)
    if which == "box":
        assert float(x) > 0 and float(y) > 0  # type: ignore[arg-type]
        assert math.isclose(poly.area, float(x) * float(y), rel_tol=1e-9)  # type: ignore[arg-type]
    elif which == "regular":
        n, r = int(x), float(y)  # type: ignore[call-overload, arg-type]
        assert len(v) == n and 3 <= n <= MAX_VERTICES and r > 0
        assert np.allclose(np.hypot(v[:, 0], v[:, 1]), r, rtol=1e-9)
        assert math.isclose(poly.area, 0.5 * n * r * r * math.sin(2 * math.pi / n), rel_tol=1e-9)
    else:
        n = int(x)  # type: ignore[call-overload]
        assert len(v) == n and 1 <= n <= MAX_VERTICES


@SETTINGS(300)
@given(seed=SEEDS)
def test_hull(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, 1e9, -1e9, 1e-9, 1e13, math.nan, math.inf, -math.inf])
    for _ in range(8):
        m = int(rng.integers(0, 40))
        pts = rng.normal(0.0, float(rng.choice([1e-6, 1.0, 1e6])), (m, 2))
        if rng.random() < 0.3:
            pts = np.round(pts)  # duplicates and collinear runs
        hostile = rng.random((m, 2)) < 0.02
        pts[hostile] = rng.choice(pool, int(hostile.sum()))
        _hull_case(pts.tolist())


def _hull_case(points: list[list[float]]) -> None:
    poly, err = call(Polygon.hull, points)
    count("Polygon.hull")
    pts = np.array(points, dtype=np.float64).reshape(-1, 2)
    if err is not None:
        expect_refusal(err, "points")
        bad = len(pts) == 0 or not np.isfinite(pts).all()
        assert bad or "MAX_VERTICES" in str(err) or isinstance(err, GeometryError), str(err)
        return
    assert len(pts) and np.isfinite(pts).all()
    v = poly.vertices
    # Every hull vertex is an input point, and every input point is inside the hull.
    inputs = set(map(tuple, pts.tolist()))
    assert all(tuple(p) in inputs for p in v.tolist())
    tol = 1e-9 * magnitude(pts) + 1e-12
    for p in pts:
        assert distance_to_shape(p, v) <= tol, (p, v)


def _outline(rng: np.random.Generator) -> tuple[list[list[float]], str]:
    """Simple star-shaped outlines (valid), or hostile ones (crossing, repeated, non-finite)."""
    n = int(rng.integers(3, 41))
    gaps = rng.uniform(1.0, 3.0, n)
    angles = np.cumsum(gaps) / gaps.sum() * 2 * math.pi
    radii = rng.uniform(0.2, 1.0, n)
    scale = float(rng.choice([1e-6, 1.0, 100.0, 1e6]))
    pts = scale * np.column_stack([radii * np.cos(angles), radii * np.sin(angles)])
    kind = str(rng.choice(["star", "star", "star_cw", "cross", "repeat", "nan", "short"]))
    if kind == "star_cw":
        pts = pts[::-1]
    elif kind == "cross" and n >= 4:
        i = int(rng.integers(0, n - 1))
        pts[[i, i + 1]] = pts[[i + 1, i]]
    elif kind == "repeat":
        i = int(rng.integers(0, n))
        pts = np.insert(pts, i, pts[i], axis=0)
    elif kind == "nan":
        pts[int(rng.integers(0, n)), 0] = math.nan
    elif kind == "short":
        pts = pts[: int(rng.integers(0, 3))]
    else:
        kind = "star"
    return pts.tolist(), kind


@SETTINGS(250)
@given(seed=SEEDS)
def test_decompose(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(4):
        _decompose_case(_outline(rng))


def _decompose_case(case: tuple[list[list[float]], str]) -> None:
    raw, kind = case
    pieces, err = call(decompose, raw)
    count("decompose")
    if err is not None:
        # Swapping two neighbours of a star does not always make it cross; anything else must pass.
        assert kind in ("cross", "repeat", "nan", "short"), f"{kind} outline refused: {err}"
        expect_refusal(err, "outline")
        return
    assert kind in ("star", "star_cw", "cross"), f"{kind} outline accepted"
    pts = np.array(raw)
    whole = abs(_signed_area(pts - pts.mean(axis=0)))
    total = 0.0
    for piece in pieces:
        v = piece.vertices
        assert 3 <= len(v) <= MAX_VERTICES and np.isfinite(v).all()
        check_vertices(v, "piece")  # convex, CCW, non-degenerate
        total += piece.area
    assert math.isclose(total, whole, rel_tol=1e-9), (total, whole)


def test_hull_filter_never_changes_the_hull(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropping the points well inside the extreme points' polygon (what makes the hull of a
    million points take a fraction of a second) gives the hull the chain gives of all of them:
    scattered, clustered far out, on a circle, on a grid with ties, and nearly collinear sets."""
    from collision import shapes  # noqa: PLC0415

    rng = np.random.default_rng(11)
    cases = []
    for trial in range(600):
        n = int(rng.integers(64, 300))
        kind = trial % 5
        if kind == 0:
            points = rng.normal(size=(n, 2)) * rng.choice([1e-6, 1.0, 1e6])
        elif kind == 1:
            points = rng.uniform(-1.0, 1.0, (n, 2)) + rng.choice([0.0, 1e5])
        elif kind == 2:
            turn = rng.uniform(0.0, 2.0 * np.pi, n)
            points = np.column_stack([np.cos(turn), np.sin(turn)]) * rng.uniform(0.999, 1.0, (n, 1))
        elif kind == 3:
            points = np.round(rng.uniform(-3.0, 3.0, (n, 2)))
        else:
            points = rng.uniform(-1.0, 1.0, (n, 2)) * (1.0, 1e-7)
        cases.append(points)
    filtered = [shapes.convex_hull(p) for p in cases]
    monkeypatch.setattr(shapes, "_hull_candidates", lambda p: p)
    for points, got in zip(cases, filtered, strict=True):
        want = shapes.convex_hull(points)
        assert got.shape == want.shape and np.array_equal(got, want), points
    count("Polygon.hull", len(cases))
