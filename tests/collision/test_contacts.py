"""Tutorial 6: contact pairs (point on A, point on B) for a hit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collision import GeometryError, Hit, contact_points, sweep
from tests.collision.test_sat_oracle import random_convex, signed_distance


def box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def as_set(pairs, digits: int = 12):
    return sorted((tuple(np.round(pa, digits) + 0.0), tuple(np.round(pb, digits) + 0.0)) for pa, pb in pairs)


def contacts_both_orders(a, b, velocity=(0.0, 0.0)):
    """Pairs for (a, b) and for (b, a), checked to be the same contacts with roles swapped
    (the swapped call moves b instead of a, so its points are shifted by -velocity * t)."""
    v = np.asarray(velocity, dtype=float)
    hit = sweep(a, b, v)
    assert hit is not None
    pairs = contact_points(a, b, hit, v)
    flipped = Hit(normal=-hit.normal, t=hit.t, depth=hit.depth)
    swapped = contact_points(b, a, flipped, -v)
    shift = v * hit.t
    assert as_set((pb + shift, pa + shift) for pa, pb in swapped) == as_set(pairs)
    return hit, pairs


def test_edge_edge_contact_gives_the_two_ends_of_the_overlap():
    # Box A sunk 0.5 into a wider box B: the whole bottom face of A is in contact.
    hit, pairs = contacts_both_orders(box(0, 1, 2, 3), box(-1, -1, 3, 1.5))
    assert hit.depth == pytest.approx(0.5)
    assert as_set(pairs) == [((0.0, 1.0), (0.0, 1.5)), ((2.0, 1.0), (2.0, 1.5))]


def test_edge_edge_partial_overlap_is_clipped_to_the_common_span():
    # A's bottom face spans x in [0, 2], B's top face x in [1, 4]: contacts at x = 1 and 2.
    _, pairs = contacts_both_orders(box(0, 1, 2, 2), box(1, 0, 4, 1.2))
    assert as_set(pairs) == [((1.0, 1.0), (1.0, 1.2)), ((2.0, 1.0), (2.0, 1.2))]


def test_point_edge_contact_pairs_the_corner_with_its_projection():
    diamond = np.array([[0, -1], [1, 0], [0, 1], [-1, 0]], dtype=float) + [0.0, 0.9]
    floor = box(-5, -1, 5, 0)
    _, pairs = contacts_both_orders(diamond, floor)
    assert as_set(pairs) == [((0.0, -0.1), (0.0, 0.0))]
    # B's corner against A's edge: the same contact seen from the floor.
    _, pairs = contacts_both_orders(floor, diamond)
    assert as_set(pairs) == [((0.0, 0.0), (0.0, -0.1))]


def test_future_hit_contacts_are_at_the_time_of_impact():
    # A falls 1 unit at 2 units/s onto B: at t = 0.5 its bottom face lies on B's top.
    hit, pairs = contacts_both_orders(box(0, 2, 1, 3), box(-1, 0, 2, 1), [0.0, -2.0])
    assert hit.t == pytest.approx(0.5)
    assert as_set(pairs) == [((0.0, 1.0), (0.0, 1.0)), ((1.0, 1.0), (1.0, 1.0))]


def test_point_and_segment_shapes():
    # A point particle flying into a box face.
    _, pairs = contacts_both_orders([[-2.0, 0.25]], box(0, 0, 1, 1), [4.0, 0.0])
    assert as_set(pairs) == [((0.0, 0.25), (0.0, 0.25))]
    # A segment lying across a box top: edge-edge, clipped to the box's width.
    _, pairs = contacts_both_orders([[-1.0, 0.9], [3.0, 0.9]], box(0, 0, 1, 1))
    assert as_set(pairs) == [((0.0, 0.9), (0.0, 1.0)), ((1.0, 0.9), (1.0, 1.0))]
    # Two coincident points.
    hit = sweep([[1.0, 1.0]], [[1.0, 1.0]], [0.0, 0.0])
    assert as_set(contact_points([[1.0, 1.0]], [[1.0, 1.0]], hit)) == [((1.0, 1.0), (1.0, 1.0))]


def test_edges_that_do_not_overlap_along_the_tangent_still_give_one_pair():
    # Parallel faces offset sideways: the original returned no contact at all here.
    a, b = box(1, 1.5, 2, 2.5), box(0, 0, 1, 1)
    hit = Hit(normal=np.array([1.0, 0.0]), t=0.0, depth=0.0)
    pairs = contact_points(a, b, hit)
    assert as_set(pairs) == [((1.0, 1.5), (1.0, 1.0))]


def test_contact_points_input_checking():
    a, b = box(0, 0, 1, 1), box(3, 0, 4, 1)
    hit = sweep(a, b, [4.0, 0.0])
    with pytest.raises(ValueError, match="velocity"):
        contact_points(a, b, hit)  # t > 0 needs the velocity
    with pytest.raises(ValueError, match="velocity"):
        contact_points(a, b, hit, [1.0])
    with pytest.raises(ValueError, match="hit"):
        contact_points(a, b, (1.0, 0.0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hit.normal"):
        contact_points(a, b, Hit(normal=np.array([2.0, 0.0]), t=0.0, depth=0.0))
    with pytest.raises(GeometryError, match=r"\bb\b"):
        contact_points(a, [[0, 0], [0, 0]], hit, [4.0, 0.0])
    out = contact_points(a, b, hit, [4.0, 0.0])
    for pa, pb in out:
        assert pa.shape == (2,) and pa.dtype == np.float64 and pb.shape == (2,)


# ---- properties on random hits ----------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 8))
def test_random_hits_get_one_or_two_pairs_on_the_contact_features(seed, ka, kb):
    rng = np.random.default_rng(seed)
    a = random_convex(rng, ka)
    b = random_convex(rng, kb)
    b = b - b.mean(axis=0) + a.mean(axis=0) + rng.uniform(-2.0, 2.0, size=2)
    v = rng.uniform(-6.0, 6.0, size=2)
    hit = sweep(a, b, v)
    if hit is None:
        return
    hit, pairs = contacts_both_orders(a, b, v)
    assert 1 <= len(pairs) <= 2
    moved = a + v * hit.t
    scale = 1.0 + max(np.ptp(a, axis=0).max(), np.ptp(b, axis=0).max())
    tol = 1e-5 * scale
    for pa, pb in pairs:
        assert np.all(np.isfinite(pa)) and np.all(np.isfinite(pb))
        # Each point is on (or in) its own shape...
        if ka >= 3:
            assert signed_distance(pa, moved) <= 1e-9 * scale
        if kb >= 3:
            assert signed_distance(pb, b) <= 1e-9 * scale
        # ...and the pair spans the overlap along the normal (0 for a touching hit).
        gap = float((pa - pb) @ hit.normal)
        assert abs(gap + hit.depth) <= tol
        if hit.depth == 0.0:
            assert np.linalg.norm(pa - pb) <= tol
    if len(pairs) == 2:
        # Two pairs only for two faces facing each other across the normal.
        (a0, _), (a1, _) = pairs
        assert abs(float((a1 - a0) @ hit.normal)) <= tol
        assert np.linalg.norm(a1 - a0) > 0.0


def test_contact_points_never_return_nan_for_tiny_or_grazing_shapes():
    tiny = box(0, 0, 1e-9, 1e-9) + [0.5, 1.0]
    for a in (tiny, [[0.5, 1.0]], [[0.0, 1.0], [1e-9, 1.0]]):
        hit = sweep(a, box(0, 0, 1, 1), [0.0, 0.0])
        assert hit is not None
        pairs = contact_points(a, box(0, 0, 1, 1), hit)
        assert pairs and all(np.all(np.isfinite(p)) for pair in pairs for p in pair)
