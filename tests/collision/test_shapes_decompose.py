"""decompose(): convex pieces that tile a simple outline exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collision import MAX_VERTICES, GeometryError, Polygon, decompose
from collision.shapes import check_vertices


def shoelace(outline):
    p = np.asarray(outline, dtype=float)
    q = np.roll(p, -1, axis=0)
    return 0.5 * float(np.sum(p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0]))


def inside_outline(outline, pts):
    """Even-odd ray casting (brute force, independent of the engine)."""
    p = np.asarray(outline, dtype=float)
    q = np.roll(p, -1, axis=0)
    result = np.zeros(len(pts), dtype=bool)
    for (x0, y0), (x1, y1) in zip(p, q, strict=True):
        straddles = (y0 > pts[:, 1]) != (y1 > pts[:, 1])
        with np.errstate(divide="ignore", invalid="ignore"):
            x_at = x0 + (pts[:, 1] - y0) * (x1 - x0) / (y1 - y0)
        result ^= straddles & (pts[:, 0] < x_at)
    return result


def inside_convex(poly: Polygon, pts, margin):
    d = np.einsum("pkd,kd->pk", pts[:, None, :] - poly.vertices[None, :, :], poly.normals)
    return d.max(axis=1) < -margin, d.max(axis=1) <= margin


def check_tiling(outline, pieces, samples=4000, seed=0):
    area = abs(shoelace(outline))
    assert sum(p.area for p in pieces) == pytest.approx(area, rel=1e-12)
    for p in pieces:
        assert 3 <= len(p) <= MAX_VERTICES
        # Each piece passes the strict convexity check on its own.
        check_vertices(p.vertices, "piece")
    o = np.asarray(outline, dtype=float)
    lo, hi = o.min(axis=0), o.max(axis=0)
    pts = np.random.default_rng(seed).uniform(lo, hi, size=(samples, 2))
    margin = 1e-9 * float(np.max(hi - lo))
    strict = np.zeros(len(pts), dtype=int)
    loose = np.zeros(len(pts), dtype=int)
    for p in pieces:
        s, ll = inside_convex(p, pts, margin)
        strict += s
        loose += ll
    inside = inside_outline(outline, pts)
    # Strictly inside a piece: at most one piece, and inside the outline.
    assert strict.max() <= 1
    assert not np.any((strict > 0) & ~inside)
    # Inside the outline: in (or on the border of) at least one piece.
    assert np.all(loose[inside] >= 1)


L_SHAPE = [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]


def star(points=5, outer=2.0, inner=0.8):
    t = np.arange(2 * points) * math.pi / points
    r = np.where(np.arange(2 * points) % 2 == 0, outer, inner)
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


def comb(teeth=8):
    """A 2*teeth x 1 spine with `teeth` 1 x 3 teeth on top; (0, 1) is a collinear vertex."""
    pts = [[0.0, 0.0], [2.0 * teeth, 0.0], [2.0 * teeth, 1.0]]
    for i in range(teeth - 1, -1, -1):
        x = 2.0 * i
        pts += [[x + 1.0, 1.0], [x + 1.0, 4.0], [x, 4.0], [x, 1.0]]
    return np.array(pts)


def test_l_shape_two_pieces_both_orientations():
    for outline in (L_SHAPE, L_SHAPE[::-1]):
        pieces = decompose(outline)
        assert len(pieces) == 2
        check_tiling(outline, pieces)


def test_convex_outline_with_collinear_vertex_is_one_piece():
    pieces = decompose([[0, 0], [1, 0], [2, 0], [2, 2], [0, 2]])
    assert len(pieces) == 1
    assert {tuple(v) for v in pieces[0].vertices.tolist()} == {(0, 0), (2, 0), (2, 2), (0, 2)}


def test_star():
    outline = star()
    pieces = decompose(outline)
    # Each of the 5 points needs a piece of its own (a concave vertex between every pair).
    assert len(pieces) >= 5
    check_tiling(outline, pieces)


def test_comb():
    outline = comb(8)
    assert shoelace(outline) == pytest.approx(16 * 1 + 8 * 3)
    pieces = decompose(outline)
    check_tiling(outline, pieces)


def test_large_outline_pieces_respect_max_vertices():
    t = np.linspace(0, 2 * math.pi, 300, endpoint=False)
    r = 1 + 0.4 * np.cos(7 * t)
    outline = np.column_stack([r * np.cos(t), r * np.sin(t)])
    pieces = decompose(outline)
    check_tiling(outline, pieces, samples=3000)


def test_large_convex_outline_is_split_by_max_vertices():
    t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
    outline = np.column_stack([np.cos(t), np.sin(t)])
    pieces = decompose(outline)
    assert len(pieces) >= 3
    check_tiling(outline, pieces)


def test_self_intersection_names_the_crossing_edges():
    with pytest.raises(GeometryError, match=r"outline: edge 0-1 .* crosses edge 2-3"):
        decompose([[0, 0], [2, 2], [2, 0], [0, 2]])


@pytest.mark.parametrize(
    ("outline", "fragment"),
    [
        ([[0, 0], [1, 0]], "at least 3"),
        ([[0, 0], [1, 0], [1, 0], [0, 1]], "outline[2] = (1, 0): is the same point as outline[1]"),
        ([[0, 0], [1, 0], [2, 0]], "zero area"),
        ([[0, 0], [2, 0], [1, 0], [1, 1]], "crosses"),
        ([[0, 0], [2, 0], [2, 2], [0, 2], [0, 3], [0, 1]], "crosses"),
        ([[0, 0], [math.nan, 0], [1, 1]], "outline[1] = (nan, 0): is not finite"),
    ],
)
def test_decompose_errors(outline, fragment):
    with pytest.raises(GeometryError) as info:
        decompose(outline)
    assert fragment in str(info.value)


def random_star_shaped(rng, n):
    """A simple outline: radii around the origin at increasing angles, every angular gap < pi
    (so the outline never crosses itself)."""
    t = 2 * math.pi * (np.arange(n) + rng.uniform(0.0, 0.5, n)) / n
    r = rng.uniform(0.2, 2.0, n)
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1), st.integers(min_value=5, max_value=60))
def test_random_outlines_are_tiled(seed, n):
    rng = np.random.default_rng(seed)
    outline = random_star_shaped(rng, n)
    pieces = decompose(outline)
    check_tiling(outline, pieces, samples=800, seed=seed)
