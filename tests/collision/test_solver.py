"""The iterative solver (collision/solver.py) through the World, against exact answers."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from collision import Polygon, World
from collision.contacts import CONTACT_NEW, CONTACT_PERSISTING, CONTACT_SPECULATIVE

DT = 1.0 / 60.0


def new_world(gravity: tuple[float, float] = (0.0, -10.0), **kw: float) -> World:
    world = World(gravity=gravity, solver="iterative", **kw)
    world.solver_settings("iterative").sleep = False
    return world


def ground(world: World, half_width: float = 40.0) -> int:
    return world.add_body(Polygon.box(2 * half_width, 1.0), (0.0, -0.5), static=True)


def run(world: World, steps: int, dt: float = DT) -> None:
    for _ in range(steps):
        world.step(dt)


def test_ten_box_stack_stands_for_2000_steps() -> None:
    world = new_world()
    ground(world)
    for k in range(10):
        world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5 + k))
    start = world.position.copy()
    run(world, 2000)
    moved = np.linalg.norm(world.position - start, axis=1)
    # Soft contacts compress a little under load (about 2 mm per box here), then hold.
    assert moved.max() < 0.03
    assert np.abs(world.position[1:, 0]).max() < 1e-3
    assert np.abs(world.angle[1:]).max() < 1e-3
    assert np.linalg.norm(world.velocity, axis=1).max() < 1e-3


def test_ten_row_pyramid_stands_for_2000_steps() -> None:
    world = new_world()
    ground(world)
    rows = 10
    for r in range(rows):
        for i in range(rows - r):
            world.add_body(Polygon.box(1.0, 1.0), ((i - 0.5 * (rows - r - 1)) * 1.05, 0.5 + r))
    start = world.position.copy()
    run(world, 2000)
    moved = np.linalg.norm(world.position - start, axis=1)
    assert moved.max() < 0.02
    assert np.linalg.norm(world.velocity, axis=1).max() < 1e-2


@pytest.mark.parametrize("e", [0.5, 0.8])
def test_drop_rebounds_to_e_squared_of_its_height(e: float) -> None:
    dt = 1.0 / 600.0
    height = 5.0
    world = new_world()
    ground(world)
    i = world.add_body(Polygon.box(0.5, 0.5), (0.0, 0.25 + height), restitution=e)
    bounced = False
    peak = -math.inf
    for _ in range(int(3.0 / dt)):
        world.step(dt)
        vy = world.velocity[i, 1]
        if not bounced and vy > 0.0:
            bounced = True
        if bounced:
            peak = max(peak, world.position[i, 1] - 0.25)
            if vy < 0.0:
                break
    assert bounced
    assert peak == pytest.approx(e * e * height, rel=0.02)


def slope_world(mu: float, angle_deg: float = 30.0) -> tuple[World, int, np.ndarray]:
    """A box resting on a static slope; returns the world, the box and the downhill unit vector."""
    theta = math.radians(angle_deg)
    world = new_world(friction=mu)
    world.add_body(Polygon.box(40.0, 1.0), (0.0, 0.0), angle=theta, static=True)
    normal = np.array([-math.sin(theta), math.cos(theta)])
    downhill = -np.array([math.cos(theta), math.sin(theta)])
    box = world.add_body(Polygon.box(1.0, 1.0), tuple(normal * 1.0), angle=theta)
    return world, box, downhill


def test_box_stays_put_on_a_30_degree_slope_with_enough_friction() -> None:
    world, box, _ = slope_world(mu=0.8)
    run(world, 60)
    start = world.position[box].copy()
    run(world, 240)
    assert np.linalg.norm(world.position[box] - start) < 1e-3


def test_box_slides_down_a_30_degree_slope_at_the_analytic_acceleration() -> None:
    mu = 0.2
    theta = math.radians(30.0)
    world, box, downhill = slope_world(mu=mu)
    run(world, 30)
    v0 = float(world.velocity[box] @ downhill)
    steps = 60
    run(world, steps)
    v1 = float(world.velocity[box] @ downhill)
    expected = 10.0 * (math.sin(theta) - mu * math.cos(theta))
    assert (v1 - v0) / (steps * DT) == pytest.approx(expected, rel=0.02)


def test_momentum_is_conserved_in_free_off_centre_collisions_with_friction() -> None:
    world = new_world(gravity=(0.0, 0.0), friction=0.5, restitution=0.3)
    world.add_body(Polygon.box(1.0, 1.0), (-2.0, 0.3), velocity=(6.0, 0.0), angular_velocity=1.0)
    world.add_body(Polygon.regular(5, 0.7), (1.0, -0.2), velocity=(-3.0, 0.5), density=2.5)
    world.add_body(Polygon.box(0.4, 1.5), (4.0, 0.0), velocity=(-4.0, 0.0), angle=0.3)
    before = world.momentum().copy()
    touched = 0
    for _ in range(240):
        world.step(DT)
        touched += int(np.any(world.contacts.normal_impulse > 0.0))
    assert touched > 0
    after = world.momentum()
    scale = np.abs(world.mass * np.linalg.norm(world.velocity, axis=1)).sum()
    assert np.linalg.norm(after - before) <= 1e-9 * scale


@pytest.mark.parametrize("speed", [10.0, 100.0, 500.0, 1000.0])
def test_fast_box_never_passes_a_thin_static_wall(speed: float) -> None:
    world = new_world(gravity=(0.0, 0.0))
    world.add_body(Polygon.box(0.1, 2.0), (10.05, 0.0), static=True)
    bullet = world.add_body(Polygon.box(0.1, 0.1), (0.0, 0.3), velocity=(speed, 0.0))
    for _ in range(60):
        world.step(DT)
        assert world.position[bullet, 0] <= 10.0 - 0.05 + 1e-6
    assert world.position[bullet, 0] == pytest.approx(9.95, abs=1e-3)


@pytest.mark.parametrize("speed", [50.0, 300.0, 1000.0])
def test_fast_box_never_passes_a_thin_moving_body(speed: float) -> None:
    world = new_world(gravity=(0.0, 0.0))
    plank = world.add_body(Polygon.box(0.05, 20.0), (10.0, 0.0), velocity=(-2.0, 0.0), density=5.0)
    bullet = world.add_body(Polygon.box(0.1, 0.1), (0.0, 0.2), velocity=(speed, 0.0))
    touched = False
    for _ in range(120):
        world.step(DT)
        # The bullet's centre stays on its own side of the (turning) plank's mid-plane.
        c, s = math.cos(world.angle[plank]), math.sin(world.angle[plank])
        offset = world.position[bullet] - world.position[plank]
        assert abs(-s * offset[0] + c * offset[1]) < 10.0
        assert offset[0] * c + offset[1] * s < -0.025
        touched = touched or len(world.contacts) > 0
    assert touched


def test_heavy_box_on_light_box_does_not_sink_through() -> None:
    world = new_world()
    ground(world)
    light = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5), density=1.0)
    heavy = world.add_body(Polygon.box(1.0, 1.0), (0.0, 1.5), density=100.0)
    run(world, 600)
    # Soft contacts give under a 100:1 load (a few centimetres), then hold still.
    assert world.position[heavy, 1] - world.position[light, 1] > 1.0 - 0.05
    assert world.position[light, 1] > 0.5 - 0.02
    assert np.linalg.norm(world.velocity[[light, heavy]], axis=1).max() < 1e-3


def settled_stack(warm_start: bool) -> World:
    world = new_world()
    ground(world)
    for k in range(8):
        world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5 + k))
    run(world, 300)
    world.solver_settings("iterative").warm_start = warm_start
    return world


def test_warm_starting_reduces_the_velocity_residual() -> None:
    residual = {}
    for warm in (True, False):
        world = settled_stack(warm_start=True)
        solver = world.solver_settings("iterative")
        solver.warm_start = warm
        solver.velocity_iterations = 1
        solver.relax_iterations = 1
        world.step(DT)
        # A settled stack should end the step at rest: what is left is the residual.
        residual[warm] = float(np.abs(world.velocity).max())
    assert residual[True] < 0.1 * residual[False]


def test_contact_states_and_time_of_impact() -> None:
    world = new_world(gravity=(0.0, 0.0))
    ground(world)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5 + 0.1), velocity=(0.0, -9.0))
    world.step(DT)
    c = world.contacts
    assert len(c) == 2
    assert np.all(c.state == CONTACT_SPECULATIVE)
    np.testing.assert_allclose(c.separation, 0.1, atol=1e-12)
    np.testing.assert_allclose(c.toi, 0.1 / 9.0, rtol=1e-9)
    assert world.position[box, 1] == pytest.approx(0.5, abs=1e-9)  # closed the gap, no further
    world.step(DT)
    assert np.all(world.contacts.state == CONTACT_NEW)
    world.step(DT)
    assert np.all(world.contacts.state == CONTACT_PERSISTING)
    np.testing.assert_allclose(world.contacts.normal, [[0.0, -1.0]] * 2, atol=1e-12)  # B = box


def test_resting_normal_impulse_carries_the_weight() -> None:
    world = new_world()
    ground(world)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5), density=2.0)
    run(world, 60)
    total = world.contacts.normal_impulse.sum()
    assert total == pytest.approx(world.mass[box] * 10.0 * DT, rel=1e-3)


def test_same_run_twice_gives_the_same_state_hash() -> None:
    def build() -> World:
        rng = np.random.default_rng(7)
        world = new_world()
        ground(world, 6.0)
        for k in range(30):
            n = int(rng.integers(3, 8))
            world.add_body(
                Polygon.regular(n, float(rng.uniform(0.3, 0.6))),
                (float(rng.uniform(-4, 4)), 1.0 + 0.8 * k),
                angle=float(rng.uniform(-3, 3)),
            )
        run(world, 200)
        return world

    assert build().state_hash() == build().state_hash()


def test_bodies_at_rest_fall_asleep_and_wake_when_hit() -> None:
    world = World(gravity=(0.0, -10.0), solver="iterative")
    assert world.solver_settings("iterative").sleep
    ground(world)
    a = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    b = world.add_body(Polygon.box(1.0, 1.0), (0.0, 1.5))
    run(world, 120)
    assert world.sleeping[a] and world.sleeping[b]
    assert np.all(world.velocity[[a, b]] == 0.0)
    frozen = world.position.copy()
    run(world, 30)
    np.testing.assert_array_equal(world.position, frozen)
    # A fast body landing on the stack wakes the whole island.
    c = world.add_body(Polygon.box(0.5, 0.5), (0.0, 2.6), velocity=(0.0, -5.0))
    run(world, 10)
    assert not world.sleeping[a] and not world.sleeping[b] and not world.sleeping[c]
    run(world, 240)
    assert world.sleeping[a] and world.sleeping[b] and world.sleeping[c]
    world.apply_impulse(a, (3.0, 0.0))
    world.step(DT)
    assert not world.sleeping[a] and not world.sleeping[b]


def test_points_and_segments_come_to_rest_on_the_ground() -> None:
    world = new_world()
    ground(world)
    p = world.add_body(Polygon([[0.0, 0.0]]), (0.0, 2.0))
    s = world.add_body(Polygon([[-0.5, 0.0], [0.5, 0.0]]), (3.0, 1.0), angle=0.4)
    run(world, 300)
    assert world.position[p, 1] == pytest.approx(0.0, abs=0.01)
    assert world.position[s, 1] == pytest.approx(0.0, abs=0.01)
    assert np.linalg.norm(world.velocity[[p, s]], axis=1).max() < 0.01


def test_runs_without_the_compiler() -> None:
    code = (
        "from collision import World, Polygon\n"
        "w = World(solver='iterative')\n"
        "w.add_body(Polygon.box(4, 1), (0, -0.5), static=True)\n"
        "w.add_body(Polygon.box(1, 1), (0, 0.6))\n"
        "w.add_body(Polygon([[0.0, 0.0]]), (0.8, 2.0))\n"
        "for _ in range(20): w.step(1 / 60)\n"
        "assert abs(w.position[1, 1] - 0.5) < 0.01, w.position\n"
        "print(len(w.contacts))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
