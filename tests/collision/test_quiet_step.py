"""The short ways through a quiet step: the warm start matches points that are last step's
in the same order in place (``warm_start.same_points``); restitution finds no impact with one
pass over the points (``restitution.impacting``); the shock propagation rules out any point
deeper than its slop from a bound (``shock._may_be_deep``). Each is checked against the
general path it stands in front of, on seeded random points, including cases at the bound."""

from __future__ import annotations

import numpy as np
import pytest

from collision.contacts import CONTACT_NEW, CONTACT_PERSISTING, CONTACT_SPECULATIVE
from collision.kernels import python_entry
from collision.solvers.iterative.restitution import Motion, impacting
from collision.solvers.iterative.shock import _may_be_deep
from collision.solvers.iterative.warm_start import (
    Manifolds,
    _match_span,
    empty_prepared,
    match_previous,
    same_points,
)
from tests.collision.kernel_records import iterative_settings, points_of, previous_points


def random_points(rng: np.random.Generator, n: int, c: int) -> tuple:
    """Prepared points of ``c`` one- and two-point manifolds between ``n`` bodies: bodies,
    arms crossed with the normal and the tangent, unit normals, start separations."""
    prepared = python_entry(empty_prepared)(c)
    prepared.body_a[:] = rng.integers(0, n, c)
    prepared.body_b[:] = (prepared.body_a + rng.integers(1, n, c)) % n
    prepared.cross_a[:] = rng.normal(0.0, 0.8, (c, 2))
    prepared.cross_b[:] = rng.normal(0.0, 0.8, (c, 2))
    angle = rng.uniform(-np.pi, np.pi, c)
    normal = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    separation = rng.uniform(-0.02, 0.03, c)
    return prepared, normal, separation


def exact_separation(travel: np.ndarray, prepared, normal: np.ndarray, separation: np.ndarray) -> np.ndarray:
    """Each point's separation after its bodies' ``travel (n, 3)`` (the shock stage's formula)."""
    a, b = prepared.body_a, prepared.body_b
    dn = (travel[a, 0] - travel[b, 0]) * normal[:, 0] + (travel[a, 1] - travel[b, 1]) * normal[:, 1]
    turn = travel[a, 2] * prepared.cross_a[:, 0] - travel[b, 2] * prepared.cross_b[:, 0]
    return separation + dn + turn


@pytest.mark.parametrize("seed", range(40))
def test_the_bound_never_rules_out_a_point_the_exact_test_finds_deep(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, c = 12, 60
    prepared, normal, separation = random_points(rng, n, c)
    scale = 10.0 ** rng.uniform(-6, -1)
    travel = rng.normal(0.0, scale, (n, 3))
    if seed % 4 == 0:
        travel[:, 0] = travel[:, 1] = 0.0  # turning only
    if seed % 4 == 1:
        travel[:, 2] = 0.0  # moving only
    shift = np.max(np.abs(travel[:, 0]) + np.abs(travel[:, 1]))
    spin = np.max(np.abs(travel[:, 2]))
    deepest = exact_separation(travel, prepared, normal, separation).min()
    assert deepest < 0.0  # the slops below are then positive, the first two under the depth
    # Slops about the deepest point: just below it, at it, just above it.
    deep_cases = 0
    for slop in (-deepest * (1 - 1e-12), -deepest, -deepest * (1 + 1e-12), 0.01):
        may = python_entry(_may_be_deep)(separation, prepared, 2.0 * shift, 2.0 * spin, slop)
        if deepest < -slop:
            assert may, (seed, slop)
            deep_cases += 1
    assert deep_cases >= 1


@pytest.mark.parametrize(("move", "turn"), [(0.003, 0.0), (0.0, 0.002), (0.001, 0.004)])
def test_the_bound_holds_where_it_is_reached(move: float, turn: float) -> None:
    # Point 0, the least separated, between bodies that move and turn straight at each other
    # at the longest arm: its separation closes by exactly the bound.
    rng = np.random.default_rng(3)
    prepared, normal, separation = random_points(rng, 4, 20)
    arm = np.abs(np.r_[prepared.cross_a[:, 0], prepared.cross_b[:, 0]]).max()
    prepared.body_a[0], prepared.body_b[0] = 0, 1
    prepared.cross_a[0, 0] = prepared.cross_b[0, 0] = arm
    normal[0] = (1.0, 0.0)
    separation[0] = separation.min() - 0.001
    travel = np.zeros((4, 3))
    travel[0] = (-move, 0.0, -turn)
    travel[1] = (move, 0.0, turn)
    deepest = exact_separation(travel, prepared, normal, separation)[0]
    assert deepest == exact_separation(travel, prepared, normal, separation).min()
    np.testing.assert_allclose(deepest, separation[0] - 2 * move - 2 * turn * arm, rtol=1e-12)
    slop = -deepest * (1 - 1e-9)  # the point is just deeper than the slop
    assert python_entry(_may_be_deep)(separation, prepared, 2 * move, 2 * turn, slop)


def test_a_resting_scene_is_ruled_out_and_a_sinking_one_is_not() -> None:
    rng = np.random.default_rng(7)
    prepared, _, separation = random_points(rng, 12, 60)
    separation[:] = rng.uniform(-0.004, 0.02, 60)  # nothing deeper than a slop of 0.005
    tiny = 1e-7
    assert not python_entry(_may_be_deep)(separation, prepared, tiny, tiny, 0.005)
    # A point that starts deeper than the slop, or travels that could close the gap.
    assert python_entry(_may_be_deep)(separation, prepared, 0.002, 0.0, 0.005)
    separation[17] = -0.006
    assert python_entry(_may_be_deep)(separation, prepared, 0.0, 0.0, 0.005)


def _impacting(approach: np.ndarray, max_normal_impulse: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    c = approach.shape[0]
    prepared = python_entry(empty_prepared)(c)
    prepared.body_a[:] = 0
    prepared.body_b[:] = 1
    prepared.approach[:] = approach
    prepared.restitution[:] = 0.0  # inelastic: no impact spreads beyond the struck manifolds
    motion = Motion(np.zeros((2, 2)), np.zeros(2), np.ones(2), np.ones(2))
    manifolds = Manifolds(offsets, np.zeros((offsets.shape[0] - 1, 7)))
    total = np.zeros(c)
    return python_entry(impacting)(motion, prepared, manifolds, max_normal_impulse, total, 1.0)


def test_no_impact_is_found_in_one_pass_and_an_impact_still_is() -> None:
    offsets = np.array([0, 2, 3, 5, 6], dtype=np.int64)
    approach = np.array([-0.5, -0.9, 0.2, -1.0, -3.0, 0.0])  # threshold 1: none faster
    pushed = np.array([1.0, 1.0, 0.0, 1.0, 0.0, 1.0])  # the fast one (-3) did not push
    assert _impacting(approach, pushed, offsets).shape == (0,)
    approach[5] = -1.5  # manifold 3's point approaches fast and pushed
    np.testing.assert_array_equal(_impacting(approach, pushed, offsets), [3])
    approach[0] = -2.0  # and manifold 0's first point
    np.testing.assert_array_equal(_impacting(approach, pushed, offsets), [0, 3])


def _matching_case(seed: int, warm_start: bool) -> tuple:
    """Points of random pairs among 9 rows, one or two per pair, and a previous step whose
    points are the same (rows and keys) with random impulses, states and places."""
    rng = np.random.default_rng(seed)
    pairs = sorted({tuple(sorted(rng.choice(9, 2, replace=False).tolist())) for _ in range(14)})
    a, b, key, pair_index = [], [], [], []
    for p, (i, j) in enumerate(pairs):
        for q in range(int(rng.integers(1, 3))):
            a.append(i)
            b.append(j)
            key.append(int(rng.integers(0, 8)) * 2 + q)
            pair_index.append(p)
    c = len(a)
    place = rng.uniform(-1.0, 1.0, (c, 2))
    normal = np.tile([0.0, 1.0], (c, 1))
    points = points_of(pair_index, key, place, place, normal, rng.uniform(-0.02, 0.01, c))
    offsets = np.flatnonzero(np.r_[True, np.diff(pair_index) != 0, True]).astype(np.int64)
    store = np.vstack([rng.uniform(0.0, 1.0, (2, c)), place.T, normal.T])
    state = previous_points(9, a, b, key, rng.integers(0, 3, c), store)
    prepared = python_entry(empty_prepared)(c)
    prepared.body_a[:] = a
    prepared.body_b[:] = b
    prepared.state[:] = np.where(points.separation > 0.0, CONTACT_SPECULATIVE, CONTACT_NEW)
    settings = iterative_settings(warm_start=warm_start)
    return points, offsets, prepared, state, settings


@pytest.mark.parametrize("warm_start", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_the_same_points_as_last_step_match_as_the_merge_walk_does(seed: int, warm_start: bool) -> None:
    points, offsets, fast, state, settings = _matching_case(seed, warm_start)
    _, _, walked, _, _ = _matching_case(seed, warm_start)
    previous = (state.prev_a, state.prev_b, state.prev_key, state.prev_state, state.prev_store)
    assert python_entry(same_points)(points, fast, previous)
    python_entry(match_previous)(points, offsets, fast, state, settings, None)
    limits = (settings.match_distance, settings.match_cosine, settings.warm_start)
    found = np.empty((offsets.shape[0], 2), dtype=np.int64)
    span = (0, offsets.shape[0] - 1)
    python_entry(_match_span)(points, offsets, walked, previous, limits, found, span)  # the general path
    for name in ("normal_impulse", "tangent_impulse", "state"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(walked, name), err_msg=name)
    assert (fast.state == CONTACT_PERSISTING).any() and (fast.normal_impulse != 0.0).any() == warm_start


def test_points_that_differ_from_last_steps_in_anything_are_not_the_same() -> None:
    points, _, prepared, state, _ = _matching_case(3, True)
    previous = [state.prev_a, state.prev_b, state.prev_key, state.prev_state, state.prev_store]
    same = python_entry(same_points)
    assert same(points, prepared, tuple(previous))
    c = prepared.body_a.shape[0]
    for field in range(3):
        for k in (0, c // 2, c - 1):
            changed = [array.copy() for array in previous]
            changed[field][k] += 1
            assert not same(points, prepared, tuple(changed)), (field, k)
    fewer = tuple(array[..., :-1] if i < 4 else array[:, :-1] for i, array in enumerate(previous))
    assert not same(points, prepared, fewer)
