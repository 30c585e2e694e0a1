"""The program's actions (demo.actions), in-process and without OpenGL: forces, bullets,
material keys, pause and single step, regeneration. Answers come from the formulas, not the code."""

from __future__ import annotations

import io
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from collision import Polygon
from demo import scenes
from demo.actions import (
    ATTRACT_FORCE,
    BULLET_IMPULSE,
    BULLET_LIFE_S,
    FRICTION_MAX,
    MAX_STEPS_PER_FRAME,
    Simulation,
    attraction_forces,
)
from demo.draw.overlays import muzzle
from tests.demo.conftest import simple_scene


def _sim(scene: Any) -> Simulation:
    return Simulation(scene, out=io.StringIO())


def _box_sim(position: tuple[float, float] = (50.0, 50.0)) -> Simulation:
    return _sim(simple_scene([(Polygon.box(4.0, 4.0), position, False)]))


@pytest.mark.parametrize(
    ("distance", "attract", "expected"),
    [
        (35.0, True, ATTRACT_FORCE),  # full pull beyond 25 units
        (5.0, True, 0.0),  # the dead zone
        (17.5, True, 0.5 * ATTRACT_FORCE),  # halfway up the ramp from 10 to 25
        (5.0, False, -ATTRACT_FORCE),  # repulsion is full inside the dead zone
        (17.5, False, -0.5 * ATTRACT_FORCE),
        (30.0, False, 0.0),  # and gone from 25 units on
    ],
)
def test_attraction_profile(distance: float, attract: bool, expected: float) -> None:
    cursor = np.array([10.0, 20.0])
    angle = 0.7
    direction = np.array([math.cos(angle), math.sin(angle)])  # body -> cursor
    body = cursor - distance * direction
    force = attraction_forces(body[None, :], cursor, attract)[0]
    assert force == pytest.approx(expected * direction, abs=1e-9)


def test_attraction_on_a_cursor_exactly_on_a_body_is_zero_and_finite() -> None:
    force = attraction_forces(np.array([[3.0, 4.0]]), np.array([3.0, 4.0]), False)
    assert np.array_equal(force, np.zeros((1, 2)))


def test_holding_the_left_button_pulls_a_body_toward_the_cursor() -> None:
    sim = _box_sim()
    sim.aim = np.array([85.0, 50.0])
    sim.hold("attract", True)
    for _ in range(30):
        sim.advance(1 / 60)
    # 500 force units on a 4 x 4 box of density 1 (mass 16) for 0.5 s: a t^2 / 2 = 3.9 units
    # (semi-implicit Euler over 30 steps: a dt^2 * 30 * 31 / 2).
    expected = 500.0 / 16.0 * (1 / 60) ** 2 * 30 * 31 / 2
    assert sim.world.position[0, 0] - 50.0 == pytest.approx(expected, rel=1e-6)
    sim.hold("attract", False)
    speed = sim.world.velocity[0, 0]
    sim.advance(1 / 60)
    assert sim.world.velocity[0, 0] == pytest.approx(speed)  # released: no force any more


def test_repulsion_pushes_away_from_the_cursor() -> None:
    sim = _box_sim()
    sim.aim = np.array([55.0, 50.0])
    sim.hold("repel", True)
    sim.advance(1 / 60)
    assert sim.world.velocity[0, 0] == pytest.approx(-ATTRACT_FORCE / 16.0 / 60.0)


def _fly(sim: Simulation, seconds: float) -> None:
    """Run the world for ``seconds`` of simulated time at 1/60 s per frame."""
    for _ in range(round(seconds * 60)):
        sim.advance(1 / 60)


def test_a_bullet_hits_the_body_off_centre_and_spins_it() -> None:
    sim = _box_sim()  # the turret is at (50, 5); the box spans 48..52 on both axes
    sim.aim = np.array([51.0, 50.0])
    sim.fire()
    ((bullet,),) = (sim.projectiles,)
    direction = np.array([1.0, 45.0]) / math.hypot(1.0, 45.0)
    assert np.allclose(bullet.velocity / np.hypot(*bullet.velocity), direction)
    assert np.allclose(bullet.position, muzzle(sim.scene, sim.aim))  # it leaves the barrel's end
    _fly(sim, 43.0 / np.hypot(*bullet.velocity) + 0.05)  # the bullet needs this long to reach the box
    hit = np.array([50.0 + 43.0 / 45.0, 48.0])  # where its line meets the bottom side y = 48
    mass, inertia = 16.0, 16.0 * (16.0 + 16.0) / 12.0
    impulse = BULLET_IMPULSE * direction
    r = hit - np.array([50.0, 50.0])
    assert sim.projectiles == []
    assert sim.world.velocity[0] == pytest.approx(impulse / mass, rel=1e-9)
    assert sim.world.angular_velocity[0] == pytest.approx((r[0] * impulse[1] - r[1] * impulse[0]) / inertia)
    ((flash,),) = (sim.flashes,)
    assert np.allclose(flash.point, hit)


def test_a_bullet_into_nothing_flies_its_life_and_is_gone() -> None:
    sim = _box_sim((10.0, 90.0))
    sim.aim = np.array([90.0, 5.0])  # along the floor, away from the box
    sim.fire()
    _fly(sim, BULLET_LIFE_S - 0.1)
    assert len(sim.projectiles) == 1
    _fly(sim, 0.2)
    assert sim.projectiles == [] and sim.flashes == []
    assert np.array_equal(sim.world.velocity[0], [0.0, 0.0])


def test_material_keys_step_and_clamp_and_reach_every_body() -> None:
    sim = _box_sim()
    for _ in range(40):
        sim.do("friction_up")
    assert sim.friction == FRICTION_MAX
    assert np.all(sim.world.body_friction == FRICTION_MAX)
    sim.do("friction_toggle")  # `f`: dynamic friction off, the value kept for when it comes back
    assert np.all(sim.world.body_friction == 0.0) and sim.friction == FRICTION_MAX
    sim.do("friction_toggle")
    assert np.all(sim.world.body_friction == FRICTION_MAX)
    for _ in range(100):
        sim.do("restitution_down")
    assert sim.restitution == 0.0 and np.all(sim.world.body_restitution == 0.0)


def test_gravity_key_switches_gravity_off_and_back() -> None:
    sim = _sim(simple_scene([(Polygon.box(2.0, 2.0), (50.0, 50.0), False)], gravity=(0.0, -10.0)))
    sim.do("gravity")
    assert np.array_equal(sim.world.gravity, [0.0, 0.0])
    sim.do("gravity")
    assert np.array_equal(sim.world.gravity, [0.0, -10.0])


def test_pause_stops_time_and_single_step_runs_exactly_one() -> None:
    sim = _box_sim()
    sim.do("pause")
    steps = sim.world.step_count
    assert sim.advance(1.0) == 0 and sim.world.step_count == steps
    sim.do("single_step")
    assert sim.advance(1 / 60) == 1 and sim.world.step_count == steps + 1
    sim.do("pause")
    assert sim.advance(1.0) == MAX_STEPS_PER_FRAME  # a long frame runs the capped number of steps


def test_regenerate_builds_the_next_seed_with_the_current_count() -> None:
    sim = _sim(scenes.build_scene("rigid", seed=3, bodies=30))
    sim.do("regenerate")
    expected = scenes.build_scene("rigid", seed=4, bodies=30)
    assert sim.scene.seed == 4 and sim.world.body_count == 30
    assert sim.world.state_hash() == expected.world.state_hash()


def test_simulation_runs_without_opengl_in_a_fresh_process() -> None:
    import subprocess  # noqa: PLC0415

    code = (
        "import sys; from demo.actions import Simulation; from demo import scenes; "
        "s = Simulation(scenes.build_scene('rigid', 0, 20)); s.hold('fire', True); s.advance(0.5); "
        "print('OpenGL' in sys.modules, 'glfw' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True, timeout=300
    )
    assert done.stdout.split() == ["False", "False"]
