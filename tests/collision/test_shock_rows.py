"""The shock propagation's lift and stop passes run over rows packed once in walk order
(collision/solvers/iterative/shock_rows.py). Checked here against the passes written out from
their definitions over the step's own point arrays, on random manifolds: the same rows, and
the same travels and velocities to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from collision.kernels import python_entry
from collision.solvers.iterative import shock_rows
from collision.solvers.iterative.shock import _hold_rows
from collision.solvers.iterative.warm_start import empty_prepared
from tests.collision.kernel_records import points_of

UP = (0.0, 1.0)
N_BODIES = 10
MANIFOLDS = 25


def held_rows(link: np.ndarray, layer: np.ndarray, points: object) -> np.ndarray:
    """Which body each manifold of ``link`` holds (shock._held), ``(g,) int64``."""
    held = np.empty(link.shape[0], dtype=np.int64)
    python_entry(_hold_rows)(link, layer, points, UP, held)
    return held


def random_contacts(seed: int) -> dict:
    """Random manifolds of one or two points between ``N_BODIES`` bodies (a few fixed), their
    walk (a random order, random layers), travels and velocities."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 3, MANIFOLDS)
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    c = int(offsets[-1])
    link = np.empty((MANIFOLDS, 4), dtype=np.int64)
    prepared = python_entry(empty_prepared)(c)
    for g in range(MANIFOLDS):
        a, b = rng.choice(N_BODIES, 2, replace=False)
        link[g] = (a, b, offsets[g], offsets[g + 1])
        prepared.body_a[offsets[g] : offsets[g + 1]] = a
        prepared.body_b[offsets[g] : offsets[g + 1]] = b
    prepared.cross_a[:] = rng.normal(0.0, 0.5, (c, 2))
    prepared.cross_b[:] = rng.normal(0.0, 0.5, (c, 2))
    # Half the normals within 0.3 rad of up or down (supports, some of them), half anywhere.
    angle = np.where(
        rng.random(c) < 0.5,
        rng.choice([0.5, 1.5], c) * np.pi + rng.uniform(-0.3, 0.3, c),
        rng.uniform(0.0, 2.0 * np.pi, c),
    )
    normal = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    points = points_of(
        np.zeros(c), np.zeros(c), np.zeros((c, 2)), np.zeros((c, 2)), normal, rng.uniform(-0.01, 0.01, c)
    )
    inv_mass = rng.uniform(0.2, 2.0, N_BODIES)
    inv_inertia = rng.uniform(0.2, 2.0, N_BODIES)
    inv_mass[:2] = 0.0  # fixed bodies: a pass never moves them
    inv_inertia[:2] = 0.0
    order = rng.permutation(MANIFOLDS).astype(np.int64)
    layer = rng.integers(0, 4, N_BODIES).astype(np.int64)
    walk = (link, order, layer)
    return {
        "rng": rng,
        "points": points,
        "prepared": prepared,
        "walk": walk,
        "held": held_rows(link, layer, points),
        "masses": (inv_mass, inv_inertia),
        "travel": rng.normal(0.0, 0.003, (N_BODIES, 3)),
        "velocity": (rng.normal(0.0, 1.0, (N_BODIES, 2)), rng.normal(0.0, 1.0, N_BODIES)),
    }


def separation_of(travel: np.ndarray, points, prepared, k: int) -> float:
    """A point's separation after the travel (the module's definition, written out)."""
    a = prepared.body_a[k]
    b = prepared.body_b[k]
    nx, ny = points.normal[k]
    dn = (travel[a, 0] - travel[b, 0]) * nx + (travel[a, 1] - travel[b, 1]) * ny
    turn = travel[a, 2] * prepared.cross_a[k, 0] - travel[b, 2] * prepared.cross_b[k, 0]
    return points.separation[k] + dn + turn


def points_of_manifold(link: np.ndarray, g: int) -> list[int]:
    return list(range(link[g, 2], link[g, 3]))


# -- the stop passes --------------------------------------------------------------------------


def stopping_speed(velocity, points, prepared, k: int, held: int) -> float:
    linear, angular = velocity
    a = prepared.body_a[k]
    b = prepared.body_b[k]
    nx, ny = points.normal[k]
    vn = (linear[a, 0] - linear[b, 0]) * nx + (linear[a, 1] - linear[b, 1]) * ny
    vn = vn + angular[a] * prepared.cross_a[k, 0] - angular[b] * prepared.cross_b[k, 0]
    if held == 2:
        return vn + max(linear[b, 0] * nx + linear[b, 1] * ny + angular[b] * prepared.cross_b[k, 0], 0.0)
    if held == 1:
        return vn + max(-(linear[a, 0] * nx + linear[a, 1] * ny + angular[a] * prepared.cross_a[k, 0]), 0.0)
    return vn


def reference_stop_pass(case: dict, touching: dict) -> None:
    """One stop pass over the manifolds in walk order, read from the point arrays."""
    points, prepared, (link, order, _) = case["points"], case["prepared"], case["walk"]
    linear, angular = case["velocity"]
    inv_mass, inv_inertia = case["masses"]
    for g in order:
        if g not in touching:
            continue
        ks = points_of_manifold(link, g)
        k0, k1 = ks[0], ks[-1]
        held = case["held"][g]
        touch0, touch1 = touching[g]
        c0 = stopping_speed(case["velocity"], points, prepared, k0, held) if touch0 else 0.0
        c1 = stopping_speed(case["velocity"], points, prepared, k1, held) if touch1 else 0.0
        if c0 >= 0.0 and c1 >= 0.0:
            continue
        a, b = link[g, 0], link[g, 1]
        ima, iia = (0.0, 0.0) if held == 1 else (inv_mass[a], inv_inertia[a])
        imb, iib = (0.0, 0.0) if held == 2 else (inv_mass[b], inv_inertia[b])
        rna0, rnb0 = prepared.cross_a[k0, 0], prepared.cross_b[k0, 0]
        rna1, rnb1 = prepared.cross_a[k1, 0], prepared.cross_b[k1, 0]
        k11 = ima + imb + iia * rna0 * rna0 + iib * rnb0 * rnb0
        if k11 <= 0.0:
            continue
        if k1 != k0:
            k12 = ima + imb + iia * rna0 * rna1 + iib * rnb0 * rnb1
            k22 = ima + imb + iia * rna1 * rna1 + iib * rnb1 * rnb1
            x0, x1 = python_entry(shock_rows.two_point_lcp)(k11, k12, k22, c0, c1)
        else:
            x0, x1 = max(-c0 / k11, 0.0), 0.0
        nx, ny = points.normal[k0]
        x = x0 + x1
        linear[a, 0] += ima * x * nx
        linear[a, 1] += ima * x * ny
        angular[a] += iia * (x0 * rna0 + x1 * rna1)
        linear[b, 0] -= imb * x * nx
        linear[b, 1] -= imb * x * ny
        angular[b] -= iib * (x0 * rnb0 + x1 * rnb1)


def touching_manifolds(case: dict) -> dict:
    """``{manifold: (first point touches, second touches)}`` for the manifolds with a touching
    point after the case's travel (a one-point manifold's second point is its first)."""
    link = case["walk"][0]
    touching = {}
    for g in range(link.shape[0]):
        ks = points_of_manifold(link, g)
        touch = [separation_of(case["travel"], case["points"], case["prepared"], k) <= 0.0 for k in ks]
        if any(touch):
            touching[g] = (touch[0], touch[-1])
    return touching


def stop_rows_on(case: dict, threads: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The stop rows of ``case`` as a step makes them: on one thread (None) by
    ``shock_rows.stop_rows``; on two, as a big world's step does, every row in its place by
    ``stop_values`` (beside restitution) and then ``stop_touches`` (on the threads)."""
    walk, masses = case["walk"], case["masses"]
    if threads is None:
        return python_entry(shock_rows.stop_rows)(
            case["travel"], case["points"], case["prepared"], walk, case["held"], masses
        )
    rows = python_entry(shock_rows.stop_room)(walk[1].shape[0])
    python_entry(shock_rows.stop_values)(case["points"], case["prepared"], walk, case["held"], masses, rows)
    python_entry(shock_rows.stop_touches)(case["travel"], case["points"], case["prepared"], walk, rows)
    return rows


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("seed", range(8))
def test_the_stop_rows_are_the_touching_manifolds_the_pass_can_move_in_walk_order(
    seed: int, threads: int | None
) -> None:
    """On one thread or on two (each manifold's row in its place, those that make no stop
    with neither touch flag, which the pass skips)."""
    case = random_contacts(seed)
    link, order, _ = case["walk"]
    inv_mass = case["masses"][0]
    index, value = stop_rows_on(case, threads)
    if threads is not None:
        assert index.shape[0] == order.shape[0]  # a row per manifold of the walk
        stops = (index[:, shock_rows.S_TOUCH_0] != 0) | (index[:, shock_rows.S_TOUCH_1] != 0)
        assert not stops.all()  # some rows make no stop and are flagged so
        index, value = index[stops], value[stops]
        serial = stop_rows_on(case, None)
        np.testing.assert_array_equal(index, serial[0])
        np.testing.assert_array_equal(value, serial[1])
    touching = touching_manifolds(case)
    expected = []
    for g in order:
        if g not in touching:
            continue
        a, b = link[g, 0], link[g, 1]
        held = case["held"][g]
        movable_a = held != 1 and inv_mass[a] > 0.0
        movable_b = held != 2 and inv_mass[b] > 0.0
        if movable_a or movable_b:
            expected.append((a, b, held, *touching[g], link[g, 3] - link[g, 2] == 2))
    np.testing.assert_array_equal(index, np.array(expected, dtype=np.int64).reshape(-1, 6))
    assert 0 < index.shape[0] < MANIFOLDS  # some manifolds are left out
    # The held body's masses are zero in its row; the other's are its own.
    for r in range(index.shape[0]):
        a, b, held = index[r, :3]
        assert value[r, shock_rows.S_IMA] == (0.0 if held == 1 else inv_mass[a])
        assert value[r, shock_rows.S_IMB] == (0.0 if held == 2 else inv_mass[b])


@pytest.mark.parametrize("seed", range(4))
def test_a_touching_manifold_the_pass_cannot_move_makes_no_stop_row_on_either_thread_count(seed: int) -> None:
    """Every body fixed: manifolds touch, but no row on one thread and no touch flag on two
    (the rows' values are made before the travels are known and flagged after them)."""
    case = random_contacts(seed)
    case["masses"] = (np.zeros(N_BODIES), np.zeros(N_BODIES))
    assert touching_manifolds(case)
    serial = stop_rows_on(case, None)
    assert serial[0].shape[0] == 0
    index, _ = stop_rows_on(case, 2)
    assert index.shape[0] == MANIFOLDS
    assert not index[:, shock_rows.S_TOUCH_0].any()
    assert not index[:, shock_rows.S_TOUCH_1].any()


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("seed", range(8))
def test_the_packed_stop_passes_move_the_bodies_as_the_passes_over_the_points_do(
    seed: int, threads: int | None
) -> None:
    """The rows made on one thread or on two (with the rows that make no stop in place)."""
    case = random_contacts(seed)
    rows = stop_rows_on(case, threads)
    linear, angular = case["velocity"]
    start = linear.copy()
    packed = (linear.copy(), angular.copy())
    touching = touching_manifolds(case)
    for _ in range(2):
        python_entry(shock_rows.stop_pass)(packed, rows)
        reference_stop_pass(case, touching)  # moves case["velocity"]
    assert np.any(packed[0] != start)  # some point was closing and was stopped
    np.testing.assert_array_equal(packed[0], linear)
    np.testing.assert_array_equal(packed[1], angular)


# -- the lift passes --------------------------------------------------------------------------


def reference_lift_pass(case: dict, budget: np.ndarray, keep: tuple, slop: float) -> None:
    """One lift pass over the manifolds in walk order, read from the point arrays."""
    points, prepared, (link, order, _) = case["points"], case["prepared"], case["walk"]
    wedged, loaded, floor = keep
    travel = case["travel"]
    for g in order:
        held = case["held"][g]
        if held == 0:
            continue
        upper = link[g, 1] if held == 1 else link[g, 0]
        if wedged[upper]:
            continue
        k0 = link[g, 2]
        rate = points.normal[k0, 0] * UP[0] + points.normal[k0, 1] * UP[1]
        rate = rate if held == 2 else -rate
        rise = 0.0
        for k in points_of_manifold(link, g):
            target = -slop if loaded[g] else min(floor[k], -slop)
            rise = max(rise, (target - separation_of(travel, points, prepared, k)) / rate)
        rise = min(rise, budget[upper])
        if rise <= 0.0:
            continue
        travel[upper, 0] += rise * UP[0]
        travel[upper, 1] += rise * UP[1]
        budget[upper] -= rise


@pytest.mark.parametrize("seed", range(8))
def test_the_packed_lift_passes_move_the_bodies_as_the_passes_over_the_points_do(seed: int) -> None:
    case = random_contacts(seed)
    rng = case["rng"]
    slop = 0.002
    points, prepared, walk = case["points"], case["prepared"], case["walk"]
    points.separation[:] -= 0.01  # deep enough for loaded supports to be lifted
    floor = np.array(
        [separation_of(case["travel"], points, prepared, k) for k in range(points.separation.size)]
    )
    wedged = rng.random(N_BODIES) < 0.1
    loaded = rng.random(MANIFOLDS) < 0.7
    budget = rng.uniform(0.0, 0.01, N_BODIES)
    rows = python_entry(shock_rows.lift_rows)(
        points, prepared, walk, case["held"], (wedged, loaded, floor, slop), UP
    )
    start = case["travel"].copy()
    travel = start.copy()
    packed_budget = budget.copy()
    for _ in range(2):
        python_entry(shock_rows.lift_pass)(travel, packed_budget, rows, UP)
        reference_lift_pass(case, budget, (wedged, loaded, floor), slop)  # moves case["travel"]
    assert np.any(travel != start)  # some body rose
    np.testing.assert_array_equal(travel, case["travel"])
    np.testing.assert_array_equal(packed_budget, budget)
