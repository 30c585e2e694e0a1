"""The soft step's fast paths give the same impulses as the plain algorithm.

The solve pass reads a manifold's relative speeds once and updates them through the
manifold's couplings instead of re-reading the bodies after every row; friction rows are
solved without branches; the warm-start match has a fast path for unchanged features. Each
is checked here against a plain Python version of the textbook step (rigid contacts:
``contact_hertz = 0``), or against the general matching path, on seeded random data.
"""

from __future__ import annotations

import numpy as np
import pytest

from collision.kernels import python_entry
from collision.solvers.iterative import new_state
from collision.solvers.iterative.colours import SOLVE_STREAMS, no_kept_order
from collision.solvers.iterative.soft_step import colour_rows, soft_step
from collision.solvers.iterative.warm_start import Manifolds, Prepared, prepare_points
from collision.tolerances import SOLVER_BLOCK_CONDITION
from tests.collision.kernel_records import (
    bodies_of,
    context_of,
    iterative_settings,
    points_of,
    previous_points,
)

DT = 1.0 / 60.0


def interleaved(count: int, streams: int) -> list[int]:
    """The pass order as documented: ``streams`` equal runs taken in turn."""
    chunk = -(-count // streams)
    return [s * chunk + i for i in range(chunk) for s in range(streams) if s * chunk + i < count]


def random_contacts(seed: int) -> dict:
    """Bodies (some that do not move) and manifolds of 1-2 points with consistent masses."""
    rng = np.random.default_rng(seed)
    n = 7
    inv_mass = rng.uniform(0.2, 2.0, n)
    inv_inertia = rng.uniform(0.1, 3.0, n)
    inv_mass[:2] = 0.0  # bodies 0 and 1 do not move
    inv_inertia[:2] = 0.0
    velocity = rng.normal(0.0, 1.0, (n, 2))
    angular_velocity = rng.normal(0.0, 1.0, n)
    rows: list[tuple] = []
    offsets = [0]
    for _ in range(12):
        a, b = rng.choice(n, 2, replace=False)
        if inv_mass[a] == 0.0 and inv_mass[b] == 0.0:
            a = 2
        angle = rng.uniform(-np.pi, np.pi)
        nx, ny = np.cos(angle), np.sin(angle)
        count = int(rng.integers(1, 3))
        for _ in range(count):
            ra = rng.normal(0.0, 0.6, 2)
            rb = rng.normal(0.0, 0.6, 2)
            sep = rng.uniform(-0.03, 0.01)
            rows.append((a, b, nx, ny, ra, rb, sep))
        offsets.append(offsets[-1] + count)
    c = len(rows)
    body_a = np.array([r[0] for r in rows], dtype=np.int64)
    body_b = np.array([r[1] for r in rows], dtype=np.int64)
    normal = np.array([[r[2], r[3]] for r in rows])
    separation = np.array([r[6] for r in rows])
    cross_a = np.empty((c, 2))
    cross_b = np.empty((c, 2))
    normal_mass = np.empty(c)
    tangent_mass = np.empty(c)
    for k, (a, b, nx, ny, ra, rb, _) in enumerate(rows):
        cross_a[k] = (ra[0] * ny - ra[1] * nx, ra[0] * nx + ra[1] * ny)
        cross_b[k] = (rb[0] * ny - rb[1] * nx, rb[0] * nx + rb[1] * ny)
        ms = inv_mass[a] + inv_mass[b]
        normal_mass[k] = 1.0 / (
            ms + inv_inertia[a] * cross_a[k, 0] ** 2 + inv_inertia[b] * cross_b[k, 0] ** 2
        )
        tangent_mass[k] = 1.0 / (
            ms + inv_inertia[a] * cross_a[k, 1] ** 2 + inv_inertia[b] * cross_b[k, 1] ** 2
        )
    groups = len(offsets) - 1
    block = np.zeros((groups, 7))
    for g in range(groups):
        f = offsets[g]
        if offsets[g + 1] - f != 2:
            continue
        a, b = body_a[f], body_b[f]
        ms = inv_mass[a] + inv_mass[b]
        k11 = ms + inv_inertia[a] * cross_a[f, 0] ** 2 + inv_inertia[b] * cross_b[f, 0] ** 2
        k22 = ms + inv_inertia[a] * cross_a[f + 1, 0] ** 2 + inv_inertia[b] * cross_b[f + 1, 0] ** 2
        k12 = (
            ms
            + inv_inertia[a] * cross_a[f, 0] * cross_a[f + 1, 0]
            + inv_inertia[b] * cross_b[f, 0] * cross_b[f + 1, 0]
        )
        det = k11 * k22 - k12 * k12
        block[g, :3] = (k11, k12, k22)
        if det > 1e-3 * k11 * k22:
            block[g, 3:] = (k22 / det, -k12 / det, k11 / det, 1.0)
    return {
        "inv_mass": inv_mass,
        "inv_inertia": inv_inertia,
        "velocity": velocity,
        "angular_velocity": angular_velocity,
        "body_a": body_a,
        "body_b": body_b,
        "normal": normal,
        "separation": separation,
        "cross_a": cross_a,
        "cross_b": cross_b,
        "normal_mass": normal_mass,
        "tangent_mass": tangent_mass,
        "friction": np.full(c, 0.6),
        "normal_impulse": rng.uniform(0.0, 0.05, c),
        "tangent_impulse": rng.uniform(-0.01, 0.01, c),
        "offsets": np.array(offsets, dtype=np.int64),
        "block": block,
    }


def reference_step(d: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Warm start, then one pass of rigid sequential impulses (per manifold normal rows, then
    friction rows), re-reading velocities per row."""
    v = d["velocity"].copy()
    w = d["angular_velocity"].copy()
    im, ii = d["inv_mass"], d["inv_inertia"]
    ni = d["normal_impulse"].copy()
    ti = d["tangent_impulse"].copy()
    offsets, block = d["offsets"], d["block"]
    ca, cb = d["cross_a"], d["cross_b"]
    groups = len(offsets) - 1
    inv_h = 1.0 / DT

    def push(a: int, b: int, k: int, dn: float, dt_: float) -> None:
        nx, ny = d["normal"][k]
        px, py = dn * nx - dt_ * ny, dn * ny + dt_ * nx
        v[a] += im[a] * np.array([px, py])
        w[a] += ii[a] * (dn * ca[k, 0] + dt_ * ca[k, 1])
        v[b] -= im[b] * np.array([px, py])
        w[b] -= ii[b] * (dn * cb[k, 0] + dt_ * cb[k, 1])

    def speed(a: int, b: int, k: int, column: int) -> float:
        nx, ny = d["normal"][k]
        ux, uy = (nx, ny) if column == 0 else (-ny, nx)
        dv = v[a] - v[b]
        return dv[0] * ux + dv[1] * uy + w[a] * ca[k, column] - w[b] * cb[k, column]

    for g in range(groups):
        f = offsets[g]
        for k in range(f, offsets[g + 1]):
            push(d["body_a"][k], d["body_b"][k], k, ni[k], ti[k])
    for g in interleaved(groups, SOLVE_STREAMS):
        f, last = offsets[g], offsets[g + 1]
        a, b = d["body_a"][f], d["body_b"][f]
        bias = [max(d["separation"][k], 0.0) * inv_h for k in range(f, last)]
        if last - f == 2 and block[g, 6] != 0.0:
            k11, k12, k22 = block[g, :3]
            l0, l1 = ni[f], ni[f + 1]
            c0 = speed(a, b, f, 0) + bias[0] - k11 * l0 - k12 * l1
            c1 = speed(a, b, f + 1, 0) + bias[1] - k12 * l0 - k22 * l1
            x0, x1 = -(block[g, 3] * c0 + block[g, 4] * c1), -(block[g, 4] * c0 + block[g, 5] * c1)
            if not (x0 >= 0.0 and x1 >= 0.0):
                x0, x1 = -c0 / k11, 0.0
                if not (x0 >= 0.0 and k12 * x0 + c1 >= 0.0):
                    x0, x1 = 0.0, -c1 / k22
                    if not (x1 >= 0.0 and k12 * x1 + c0 >= 0.0):
                        x0, x1 = (0.0, 0.0) if c0 >= 0.0 and c1 >= 0.0 else (l0, l1)
            push(a, b, f, x0 - l0, 0.0)
            push(a, b, f + 1, x1 - l1, 0.0)
            ni[f], ni[f + 1] = x0, x1
        else:
            for j, k in enumerate(range(f, last)):
                new = max(ni[k] - d["normal_mass"][k] * (speed(a, b, k, 0) + bias[j]), 0.0)
                push(a, b, k, new - ni[k], 0.0)
                ni[k] = new
        # Friction after the normal rows, in the cone of the impulses they just found.
        for k in range(f, last):
            limit = d["friction"][k] * ni[k]
            new = float(np.clip(ti[k] - d["tangent_mass"][k] * speed(a, b, k, 1), -limit, limit))
            push(a, b, k, 0.0, new - ti[k])
            ti[k] = new
    return v, w, ni, ti


@pytest.mark.parametrize("seed", range(12))
def test_solve_pass_equals_plain_sequential_impulses(seed: int) -> None:
    d = random_contacts(seed)
    n = d["inv_mass"].shape[0]
    c = d["normal"].shape[0]
    bodies = bodies_of(
        n,
        velocity=d["velocity"],
        angular_velocity=d["angular_velocity"],
        inv_mass=d["inv_mass"],
        inv_inertia=d["inv_inertia"],
    )
    points = points_of(
        np.zeros(c), np.zeros(c), np.zeros((c, 2)), np.zeros((c, 2)), d["normal"], d["separation"]
    )
    prepared = Prepared(
        d["body_a"],
        d["body_b"],
        d["cross_a"],
        d["cross_b"],
        d["normal_mass"],
        d["tangent_mass"],
        d["friction"],
        np.zeros(c),
        np.zeros(c),
        d["normal_impulse"].copy(),
        d["tangent_impulse"].copy(),
        np.zeros(c),
        np.zeros(c, dtype=np.int8),
    )
    # One substep: warm start and one solve pass, no relax; rigid contacts (hertz 0).
    settings = iterative_settings(
        substeps=1,
        velocity_iterations=1,
        relax_iterations=0,
        final_relax_iterations=0,
        contact_hertz=0.0,
        static_hertz_scale=2.0,
        damping_ratio=1.0,
        max_push_speed=3.0,
        load_memory=0.0,
    )
    moving = d["inv_mass"] > 0.0
    manifolds = Manifolds(d["offsets"], d["block"])
    colouring = python_entry(colour_rows)(
        prepared,
        manifolds,
        d["inv_mass"],
        d["inv_inertia"],
        None,
        no_kept_order(),
        np.empty(0, dtype=np.int64),
    )
    python_entry(soft_step)(
        bodies,
        context_of(DT),
        settings,
        d["inv_mass"],
        d["inv_inertia"],
        moving,
        points,
        prepared,
        manifolds,
        None,
        colouring,
    )
    velocity = bodies.velocity
    angular_velocity = bodies.angular_velocity
    normal_impulse = prepared.normal_impulse
    tangent_impulse = prepared.tangent_impulse
    v, w, ni, ti = reference_step(d)
    np.testing.assert_allclose(velocity, v, rtol=0, atol=1e-12)
    np.testing.assert_allclose(angular_velocity, w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(normal_impulse, ni, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tangent_impulse, ti, rtol=0, atol=1e-12)
    assert (normal_impulse >= 0.0).all()


def _match(prev_keys: list[int], keys: list[int]) -> np.ndarray:
    """Warm-start normal impulses of a two-point manifold of bodies (0, 1) whose previous
    points had ``prev_keys`` with impulses 1.0 and 2.0 (points far apart: keys decide)."""
    point = np.array([[-0.5, 0.0], [0.5, 0.0]])
    normal = np.array([[0.0, 1.0], [0.0, 1.0]])
    prev_store = np.array(
        [[1.0, 2.0], [0.0, 0.0], [-0.5, 0.5], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    )  # impulses, middles (renamed points would match by place), normals
    bodies = bodies_of(2, position=[[0.0, 1.0], [0.0, -1.0]], friction=1.0)
    prepared, _ = python_entry(prepare_points)(
        bodies,
        (np.ones(2), np.ones(2)),
        np.array([[0, 1]], dtype=np.int64),
        points_of(np.zeros(2), keys, point, point, normal, [-0.01, -0.01]),
        np.array([0, 2], dtype=np.int64),
        previous_points(2, [0, 0], [1, 1], prev_keys, [1, 1], prev_store),
        iterative_settings(match_distance=0.05, match_cosine=0.9),
        DT,
        None,
    )
    return prepared.normal_impulse


def test_warm_start_follows_feature_keys_in_either_order() -> None:
    # Same order (the fast path) and swapped order (the general path): impulses follow keys.
    np.testing.assert_array_equal(_match([3, 8], [3, 8]), [1.0, 2.0])
    np.testing.assert_array_equal(_match([3, 8], [8, 3]), [2.0, 1.0])
    # One feature renamed: the kept key keeps its impulse, the other inherits by place.
    np.testing.assert_array_equal(_match([3, 8], [3, 9]), [1.0, 2.0])
    np.testing.assert_array_equal(_match([3, 8], [9, 8]), [1.0, 2.0])


@pytest.mark.parametrize("seed", range(3))
def test_prepared_blocks_are_the_normal_mass_matrix_of_each_two_point_manifold(seed: int) -> None:
    """prepare_points' block of a two-point manifold against K = J W J^T from its two normal
    rows (J) and its bodies' inverse masses and inertias (W), and its inverse where K is well
    conditioned; one-point manifolds have none; one thread and two give the same bits."""
    rng = np.random.default_rng(seed)
    n = 14
    inv_mass = 1.0 / rng.uniform(0.2, 5.0, n)
    inv_inertia = 1.0 / rng.uniform(0.05, 2.0, n)
    inv_mass[:2] = inv_inertia[:2] = 0.0  # two bodies that do not move
    position = rng.uniform(-3.0, 3.0, (n, 2))
    pairs = np.array(sorted({tuple(sorted(rng.choice(n, 2, replace=False).tolist())) for _ in range(40)}))
    pair_index, point_a, point_b, normal = [], [], [], []
    for p in range(pairs.shape[0]):
        angle = rng.uniform(-np.pi, np.pi)
        middle = rng.uniform(-3.0, 3.0, 2)
        count = 1 if p % 4 == 0 else 2
        for j in range(count):
            # Every fifth manifold's points nearly coincide: K is then (nearly) singular.
            where = middle + (j * 1e-9 if p % 5 == 1 else j * rng.uniform(0.2, 1.0)) * np.array([1.0, 0.3])
            pair_index.append(p)
            point_a.append(where + 0.01)
            point_b.append(where - 0.01)
            normal.append([np.cos(angle), np.sin(angle)])
    c = len(pair_index)
    points = points_of(pair_index, np.arange(c), point_a, point_b, normal, np.full(c, -0.01))
    offsets = np.flatnonzero(np.r_[True, np.diff(pair_index) != 0, True]).astype(np.int64)
    bodies = bodies_of(n, position=position, friction=0.5)
    settings = iterative_settings()
    blocks = []
    for threads in (None, 2):
        _, manifolds = python_entry(prepare_points)(
            bodies, (inv_mass, inv_inertia), pairs, points, offsets, new_state(n), settings, DT, threads
        )
        np.testing.assert_array_equal(manifolds.offsets, offsets)
        blocks.append(manifolds.block)
    np.testing.assert_array_equal(blocks[0], blocks[1])
    block = blocks[0]
    singular = 0
    for g in range(pairs.shape[0]):
        first, end = offsets[g], offsets[g + 1]
        if end - first == 1:
            assert not block[g].any(), g
            continue
        a, b = pairs[g]
        rows = []
        for k in (first, first + 1):
            middle = 0.5 * (np.asarray(point_a[k]) + np.asarray(point_b[k]))
            nx, ny = normal[k]
            ra, rb = middle - position[a], middle - position[b]
            rows.append([nx, ny, ra[0] * ny - ra[1] * nx, -nx, -ny, -(rb[0] * ny - rb[1] * nx)])
        jacobian = np.array(rows)
        weights = np.diag(
            [inv_mass[a], inv_mass[a], inv_inertia[a], inv_mass[b], inv_mass[b], inv_inertia[b]]
        )
        k = jacobian @ weights @ jacobian.T
        np.testing.assert_allclose(block[g, :3], [k[0, 0], k[0, 1], k[1, 1]], rtol=1e-12, atol=1e-14)
        det = np.linalg.det(k)
        if det > 10.0 * SOLVER_BLOCK_CONDITION * k[0, 0] * k[1, 1]:
            inverse = np.linalg.inv(k)
            assert block[g, 6] == 1.0, g
            np.testing.assert_allclose(
                block[g, 3:6], [inverse[0, 0], inverse[0, 1], inverse[1, 1]], rtol=1e-9
            )
        elif det < 0.1 * SOLVER_BLOCK_CONDITION * k[0, 0] * k[1, 1]:
            singular += 1
            assert block[g, 6] == 0.0 and not block[g, 3:6].any(), g
    assert singular >= 3
