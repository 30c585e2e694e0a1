"""A big world's impacts (collision/solvers/iterative/restitution_apart.py)
are resolved group by group: manifolds joined by bodies the impulses move converge together,
an impact elsewhere in the world changes nothing of them, to the bit, and the groups of an
impact, big or small, are resolved on several threads with the results of one."""

from __future__ import annotations

import numpy as np
import pytest

from collision import Polygon, World
from collision.kernels import python_entry
from collision.solvers.iterative.restitution import Impact, Motion
from collision.solvers.iterative.restitution_apart import IMPACTS_THREADED, impact_groups
from collision.solvers.iterative.warm_start import Manifolds, empty_prepared
from collision.threads import THREADED_BODIES, fast_layer

DT = 1.0 / 60.0


def _groups(pairs: list[tuple[int, int]], fixed: set[int], n: int, order: list[int]) -> list[list[int]]:
    """impact_groups for one-point manifolds between the bodies ``pairs`` (bodies in ``fixed``
    have zero inverse mass and inertia), taken in ``order``."""
    c = len(pairs)
    prepared = python_entry(empty_prepared)(c)
    prepared.body_a[:] = [a for a, _ in pairs]
    prepared.body_b[:] = [b for _, b in pairs]
    moves = np.array([0.0 if i in fixed else 1.0 for i in range(n)])
    motion = Motion(np.zeros((n, 2)), np.zeros(n), moves, moves.copy())
    manifolds = Manifolds(np.arange(c + 1, dtype=np.int64), np.zeros((c, 7)))
    impact = Impact(np.zeros((c, 2)), prepared, manifolds)
    grouped, starts = python_entry(impact_groups)(motion, impact, np.array(order, dtype=np.int64))
    return [grouped[starts[p] : starts[p + 1]].tolist() for p in range(starts.shape[0] - 1)]


def test_manifolds_are_joined_through_moving_bodies_only() -> None:
    # Body 5 is a floor: the boxes on it are separate impacts; 0, 1 and 4 touch in a chain.
    pairs = [(2, 5), (0, 1), (5, 3), (4, 1), (5, 5)]
    assert _groups(pairs, {5}, 6, [0, 1, 2, 3, 4]) == [[0], [1, 3], [2], [4]]
    # Groups come in the order of their first manifold, and each keeps the given order.
    assert _groups(pairs, {5}, 6, [3, 2, 1]) == [[3, 1], [2]]
    assert _groups(pairs, set(), 6, [4, 0, 2, 1, 3]) == [[4, 0, 2], [1, 3]]


@pytest.mark.parametrize("seed", range(6))
def test_groups_are_the_connected_parts_of_random_contact_graphs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    fixed = {int(i) for i in rng.choice(n, int(rng.integers(0, n // 2 + 1)), replace=False)}
    pairs = [(int(a), int(b)) for a, b in rng.integers(0, n, (int(rng.integers(1, 60)), 2))]
    order = [int(g) for g in rng.permutation(len(pairs))[: int(rng.integers(1, len(pairs) + 1))]]
    got = _groups(pairs, fixed, n, order)
    # Brute force: merge sets of manifolds that share a moving body until none do.
    parts: list[set[int]] = [{g} for g in order]
    merged = True
    while merged:
        merged = False
        for i in range(len(parts)):
            for j in range(i + 1, len(parts)):
                bodies_i = {b for g in parts[i] for b in pairs[g] if b not in fixed}
                bodies_j = {b for g in parts[j] for b in pairs[g] if b not in fixed}
                if bodies_i & bodies_j:
                    parts[i] |= parts.pop(j)
                    merged = True
                    break
            if merged:
                break
    expected = sorted(([g for g in order if g in part] for part in parts), key=lambda p: order.index(p[0]))
    assert got == expected


def _big_world(threads: int = 1, width: float = 400.0) -> World:
    """An empty floor ``width`` long and, far below it, enough static rows to make the world a
    big one."""
    world = World(gravity=(0.0, -10.0), friction=0.6)
    world.solver_settings("iterative").threads = threads
    world.add_body(Polygon.box(width, 1.0), (0.0, -0.5), static=True)
    for k in range(THREADED_BODIES):
        world.add_body(Polygon.box(0.5, 0.5), ((k % 64) * 1.0, -100.0 - (k // 64) * 1.0), static=True)
    return world


def _landing(tilt: float, spin: float, other: tuple[float, float, bool] | None) -> list[np.ndarray]:
    """A box dropped on the big world's floor, its pose and velocities after each of 30 steps;
    ``other``: ``(tilt, spin, stacked)`` of a heavier box (with a box on it when stacked)
    landing in the same steps 20 m away."""
    world = _big_world()
    box = world.add_body(
        Polygon.box(1.0, 0.5), (0.0, 0.6), angle=tilt, velocity=(1.5, -6.0), angular_velocity=spin
    )
    if other is not None:
        other_tilt, other_spin, stacked = other
        world.add_body(
            Polygon.box(1.0, 0.5), (20.0, 0.6), angle=other_tilt, velocity=(-2.5, -6.0),
            angular_velocity=other_spin, density=5.0,
        )  # fmt: skip
        if stacked:
            world.add_body(Polygon.box(0.5, 0.5), (20.0, 0.88), velocity=(-2.5, -6.0), density=2.0)
    states = []
    for _ in range(30):
        world.step(DT)
        pose = [*world.position[box], world.angle[box]]
        states.append(np.array([*pose, *world.velocity[box], world.angular_velocity[box]]))
    return states


@pytest.mark.parametrize(
    ("tilt", "spin", "other"),
    [
        (0.05, 1.0, (0.0, -2.0, True)),
        (0.0, 0.0, (0.1, 0.0, False)),
        (0.0, 1.0, (0.0, -2.0, False)),
        (0.05, 0.0, (0.1, -2.0, True)),
    ],
)
def test_an_impact_far_away_changes_nothing_of_a_landing(
    tilt: float, spin: float, other: tuple[float, float, bool]
) -> None:
    alone = _landing(tilt, spin, None)
    beside = _landing(tilt, spin, other)
    for step, (a, b) in enumerate(zip(alone, beside, strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=f"step {step}")


def _rain(threads: int, count: int) -> World:
    """``count`` boxes and triangles, some in pairs that strike each other, falling to land on
    the big world's floor in the same step."""
    world = _big_world(threads, width=count * 1.2 + 10.0)
    rng = np.random.default_rng(5)
    for k in range(count):
        x = (k - count / 2) * 1.2
        tilt = float(rng.uniform(-0.2, 0.2))
        shape = Polygon.box(0.8, 0.4) if k % 3 else Polygon.regular(3, 0.4)
        world.add_body(
            shape, (x, 0.45), angle=tilt, velocity=(float(rng.normal()), -7.0), restitution=0.3 * (k % 2)
        )
        if k % 5 == 0:
            world.add_body(Polygon.box(0.4, 0.4), (x, 0.95), velocity=(0.0, -9.0), restitution=0.5)
    return world


def _rain_on_one_and_two_threads(count: int) -> tuple[int, float]:
    """:func:`_rain` of ``count`` bodies on one thread and on two, 20 steps, every step's state
    the same; returns the most bodies pushed by the floor in one step and the fastest any of
    the rain rose."""
    assert fast_layer(), "numba has no OpenMP or TBB threading layer here (see .ci/run)"
    one = _rain(1, count)
    two = _rain(2, count)
    landed = 0
    rose = 0.0
    for step in range(20):
        one.step(DT)
        two.step(DT)
        assert two.state_hash() == one.state_hash(), f"step {step}"
        contacts = two.contacts
        on_floor = (contacts.body_a == 0) | (contacts.body_b == 0)
        pushed = on_floor & (contacts.normal_impulse > 0.0)
        landed = max(landed, np.unique(contacts.body_a[pushed] + contacts.body_b[pushed]).shape[0])
        rose = max(rose, float(two.velocity[THREADED_BODIES + 1 :, 1].max()))  # the rain's rows
    return landed, rose


def test_a_big_impact_resolves_the_same_on_one_and_two_threads() -> None:
    landed, _ = _rain_on_one_and_two_threads(2 * IMPACTS_THREADED)
    # The boxes struck the floor together: one impact of more than IMPACTS_THREADED manifolds.
    assert landed >= IMPACTS_THREADED


def test_a_small_impact_taken_by_both_threads_resolves_as_on_one() -> None:
    """A landing of fewer than IMPACTS_THREADED manifolds: its groups are cut into chunks that
    the shock's thread and the other take as they come free (restitution_apart.resolve_taken).
    Every step's state is one thread's, and the landing was many groups, some bouncing."""
    landed, rose = _rain_on_one_and_two_threads(300)
    assert 200 <= landed < IMPACTS_THREADED and rose > 0.5
