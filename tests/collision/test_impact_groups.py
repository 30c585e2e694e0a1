"""Restitution's impact solved group by group (collision/solvers/iterative/restitution.py):
the impact's manifolds split into groups that share no moving body, each group's Gauss-Seidel
passes stopping when its own impulses stop changing.

Checked against a brute-force partition (connected components of the manifolds over their
moving bodies) on random impacts, and in a world: an impact far from another ends with the
same bits whether or not the other one happens in the same step (the passes a slow group
needs no longer run over a group that had converged)."""

from __future__ import annotations

import numpy as np
import pytest

from collision import Polygon, World
from collision.kernels import python_entry
from collision.solvers.iterative.restitution import Motion, impact_groups
from collision.solvers.iterative.warm_start import empty_prepared

DT = 1.0 / 60.0


def random_impact(seed: int, bodies: int = 12, manifolds: int = 30) -> tuple:
    """Manifolds of one or two points between random bodies (a few of them fixed), a random
    subset of them (ascending) as the impact's order."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 3, manifolds)
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    c = int(offsets[-1])
    prepared = python_entry(empty_prepared)(c)
    pairs = []
    for g in range(manifolds):
        a, b = rng.choice(bodies, 2, replace=False)
        pairs.append((int(a), int(b)))
        prepared.body_a[offsets[g] : offsets[g + 1]] = a
        prepared.body_b[offsets[g] : offsets[g + 1]] = b
    inv_mass = rng.uniform(0.2, 2.0, bodies)
    inv_inertia = rng.uniform(0.2, 2.0, bodies)
    fixed = rng.choice(bodies, 3, replace=False)
    inv_mass[fixed] = 0.0
    inv_inertia[fixed] = 0.0
    inv_inertia[fixed[0]] = 0.5  # turns but does not translate: it moves, so it joins groups
    motion = Motion(np.zeros((bodies, 2)), np.zeros(bodies), inv_mass, inv_inertia)
    taken = rng.choice(manifolds, int(rng.integers(1, manifolds + 1)), replace=False)
    order = np.sort(taken).astype(np.int64)
    return motion, prepared, offsets, order, pairs


def components(order: np.ndarray, pairs: list[tuple[int, int]], moving: np.ndarray) -> list[list[int]]:
    """The manifolds of ``order`` grouped by brute force: two are together when a chain of
    manifolds links them through moving bodies; each group in ``order``'s order, the groups by
    their first manifold."""
    groups: list[list[int]] = []
    for g in order:
        bodies = {b for b in pairs[g] if moving[b]}
        joined = [grp for grp in groups if bodies & {b for h in grp for b in pairs[h] if moving[b]}]
        merged = sorted([g] + [h for grp in joined for h in grp], key=lambda h: list(order).index(h))
        groups = [grp for grp in groups if grp not in joined] + [merged]
    return sorted(groups, key=lambda grp: list(order).index(grp[0]))


@pytest.mark.parametrize("seed", range(12))
def test_impact_groups_are_the_connected_components_over_moving_bodies(seed: int) -> None:
    motion, prepared, offsets, order, pairs = random_impact(seed)
    moving = (motion.inv_mass != 0.0) | (motion.inv_inertia != 0.0)
    grouped, starts = python_entry(impact_groups)(motion, prepared, offsets, order)
    found = [list(grouped[starts[s] : starts[s + 1]]) for s in range(starts.shape[0] - 1)]
    assert found == components(order, pairs, moving)
    assert sorted(grouped) == sorted(order)  # every manifold of the impact once


def test_a_manifold_between_bodies_that_do_not_move_is_a_group_of_its_own() -> None:
    motion, prepared, offsets, _, _ = random_impact(0, bodies=4, manifolds=3)
    motion.inv_mass[:] = 0.0
    motion.inv_inertia[:] = 0.0
    order = np.array([0, 2], dtype=np.int64)
    grouped, starts = python_entry(impact_groups)(motion, prepared, offsets, order)
    assert list(grouped) == [0, 2] and list(starts) == [0, 1, 2]


def landing_world(far_stack: bool) -> tuple[World, int]:
    """A tilted, spinning box landing on a wide floor with friction (its impact takes a few
    passes) and, with ``far_stack``, 40 units away a tower of three boxes landing at once (a
    chain of impacts: many more passes). Returns the world and the tilted box."""
    world = World(gravity=(0.0, -10.0), solver="iterative", friction=0.6, restitution=0.3)
    world.add_body(Polygon.box(120.0, 1.0), (20.0, -0.5), static=True)
    box = world.add_body(Polygon.box(1.0, 0.5), (0.0, 0.27), angle=0.05)
    world.set_velocity(box, (2.0, -4.0), 3.0)
    if far_stack:
        for k in range(3):
            i = world.add_body(Polygon.box(1.0, 1.0), (40.0, 0.52 + 1.01 * k))
            world.set_velocity(i, (0.0, -5.0 - 2.0 * k), 0.0)
    return world, box


def test_an_impact_ends_the_same_whatever_other_impact_shares_its_step() -> None:
    alone, box = landing_world(far_stack=False)
    shared, same_box = landing_world(far_stack=True)
    for _ in range(6):
        alone.step(DT)
        shared.step(DT)
        assert np.array_equal(alone.velocity[box], shared.velocity[same_box])
        assert alone.angular_velocity[box] == shared.angular_velocity[same_box]
        assert np.array_equal(alone.position[box], shared.position[same_box])
