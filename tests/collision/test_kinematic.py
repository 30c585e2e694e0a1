"""Kinematic bodies: moved only by their velocity, infinite mass, pushing and carrying others."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, World

SOLVERS = ("iterative", "tutorial", "arcade")
DT = 1.0 / 60.0


@pytest.mark.parametrize("solver", SOLVERS)
def test_kinematic_follows_its_velocity_exactly(solver: str) -> None:
    world = World(gravity=(0.0, -10.0), solver=solver)
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    x0 = np.array([-3.0, 6.0])
    v = np.array([1.5, -0.25])
    a0, w = 0.3, 0.7
    k = world.add_body(Polygon.box(1.0, 0.5), x0, angle=a0, velocity=v, angular_velocity=w, kinematic=True)
    world.apply_force(k, (100.0, 100.0))  # documented no-op
    world.apply_impulse(k, (5.0, 5.0), point=(0.0, 0.0))  # documented no-op
    steps = 90
    for _ in range(steps):
        world.step(DT)
    t = steps * DT
    np.testing.assert_allclose(world.position[k], x0 + v * t, rtol=0, atol=1e-12)
    expected = (a0 + w * t + math.pi) % (2 * math.pi) - math.pi
    assert abs(world.angle[k] - expected) < 1e-12
    np.testing.assert_array_equal(world.velocity[k], v)
    assert world.angular_velocity[k] == w
    assert world.mass[k] == 0.0 and world.inertia[k] == 0.0
    assert bool(world.kinematic[k]) and not bool(world.static[k])


def _platform_world(friction: float) -> tuple[World, int, int]:
    world = World(gravity=(0.0, -10.0), solver="iterative", friction=friction)
    platform = world.add_body(Polygon.box(40.0, 1.0), (0.0, -0.5), velocity=(2.0, 0.0), kinematic=True)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    return world, platform, box


def test_platform_carries_a_box_with_friction() -> None:
    world, platform, box = _platform_world(0.6)
    for _ in range(120):
        world.step(DT)
    assert abs(world.velocity[box, 0] - 2.0) < 0.02  # within 1% of the platform's 2 m/s
    assert abs(world.position[box, 1] - 0.5) < 0.02  # still on top


def test_frictionless_platform_slides_under_the_box() -> None:
    world, platform, box = _platform_world(0.0)
    for _ in range(120):
        world.step(DT)
    assert abs(world.position[box, 0]) < 1e-6
    assert world.position[platform, 0] == pytest.approx(2.0 * 120 * DT, abs=1e-9)


@pytest.mark.parametrize("solver", SOLVERS)
def test_elastic_bounce_off_a_moving_paddle(solver: str) -> None:
    # An elastic hit on an infinite mass moving at u: the box leaves at 2u.
    u = 3.0
    world = World(gravity=(0.0, 0.0), solver=solver, friction=0.0, restitution=1.0)
    paddle = world.add_body(Polygon.box(0.5, 4.0), (-2.0, 0.0), velocity=(u, 0.0), kinematic=True)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0))
    for _ in range(60):
        world.step(DT)
    assert world.velocity[box, 0] == pytest.approx(2.0 * u, rel=0.02)
    assert abs(world.velocity[box, 1]) < 1e-9
    assert world.velocity[paddle, 0] == u


def test_fast_kinematic_wall_never_lets_a_box_through() -> None:
    world = World(gravity=(0.0, -10.0), solver="iterative")
    world.add_body(Polygon.box(400.0, 1.0), (0.0, -0.5), static=True)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    for _ in range(30):  # let it settle (and fall asleep)
        world.step(DT)
    wall = world.add_body(Polygon.box(0.2, 3.0), (-10.0, 1.6), velocity=(200.0, 0.0), kinematic=True)
    for _ in range(40):
        world.step(DT)
        # The box stays ahead of the wall's leading face.
        assert world.position[box, 0] - 0.5 >= world.position[wall, 0] + 0.1 - 0.05
    assert world.position[box, 0] > 100.0


def test_no_contacts_between_kinematic_and_static_or_kinematic() -> None:
    for solver in SOLVERS:
        world = World(gravity=(0.0, 0.0), solver=solver)
        world.add_body(Polygon.box(4.0, 1.0), (0.0, 0.0), static=True)
        a = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5), velocity=(0.5, 0.0), kinematic=True)
        b = world.add_body(Polygon.box(1.0, 1.0), (0.5, 0.5), velocity=(-0.5, 0.0), kinematic=True)
        for _ in range(5):
            world.step(DT)
            assert len(world.contacts) == 0, solver
        assert world.position[a, 0] == pytest.approx(2.5 * DT, abs=1e-12)
        assert world.position[b, 0] == pytest.approx(0.5 - 2.5 * DT, abs=1e-12)


def test_moving_kinematic_never_sleeps_and_keeps_its_riders_awake() -> None:
    world = World(gravity=(0.0, -10.0), solver="iterative")
    # Slower than the sleep speeds: still moving, so never asleep.
    platform = world.add_body(Polygon.box(40.0, 1.0), (0.0, -0.5), velocity=(0.001, 0.0), kinematic=True)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    for _ in range(240):
        world.step(DT)
    assert not world.sleeping[platform] and not world.sleeping[box]
    # At rest, a kinematic body is like a static one: the box falls asleep on it.
    world.set_velocity(platform, (0.0, 0.0))
    for _ in range(240):
        world.step(DT)
    assert world.sleeping[box]
    # Moving it again wakes the box, which rides along.
    world.set_velocity(platform, (1.0, 0.0))
    for _ in range(120):
        world.step(DT)
    assert not world.sleeping[box]
    assert world.velocity[box, 0] == pytest.approx(1.0, rel=0.01)


def test_kinematic_bad_arguments_and_views() -> None:
    world = World()
    with pytest.raises(ValueError, match="static.*kinematic"):
        world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), static=True, kinematic=True)
    assert world.body_count == 0
    k = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), kinematic=True, density=0.0)
    assert bool(world.kinematic[k]) and not bool(world.static[k])
    with pytest.raises(ValueError):
        world.kinematic[k] = False
    world.set_velocity(k, (1.0, 2.0), 0.5)
    assert list(world.velocity[k]) == [1.0, 2.0] and world.angular_velocity[k] == 0.5
