"""Conservation laws the response must keep.

- Momentum: with no static bodies and no gravity, every collision only exchanges momentum
  between the bodies, so total linear momentum stays what it was, for all three solvers.
- Energy: with restitution 1, friction 0 and no gravity in a closed box, the iterative solver
  keeps total kinetic energy within 1% over 10 000 steps (issue 7); with restitution below 1
  no step ever adds kinetic energy (a frictionless Poisson impact loses (1 - e^2) / 2 x K x).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, World
from collision.world import SOLVER_NAMES

DT = 1.0 / 60.0


def _random_shape(rng: np.random.Generator, allow_point: bool = True) -> Polygon:
    k = int(rng.integers(1 if allow_point else 2, 9))
    if k == 1:
        return Polygon([[0.0, 0.0]])
    if k == 2:
        return Polygon([[-0.6, 0.0], [0.6, 0.0]]).rotated(float(rng.uniform(0.0, math.pi)))
    return Polygon.blob(k, float(rng.uniform(0.4, 1.0)), float(rng.uniform(0.4, 1.0)))


def _free_world(rng: np.random.Generator, solver: str, bodies: int) -> World:
    """``bodies`` dynamic bodies in a ring, all heading roughly for the middle: no statics."""
    world = World(
        gravity=(0.0, 0.0),
        solver=solver,
        friction=float(rng.uniform(0.0, 0.8)),
        restitution=float(rng.uniform(0.0, 1.0)),
    )
    for i in range(bodies):
        a = 2.0 * math.pi * i / bodies
        pos = 4.0 * np.array([math.cos(a), math.sin(a)]) + rng.normal(0.0, 0.3, 2)
        vel = -pos * rng.uniform(0.5, 2.0) + rng.normal(0.0, 0.2, 2)
        world.add_body(
            _random_shape(rng, allow_point=bodies > 3),
            pos,
            angle=float(rng.uniform(-3, 3)),
            velocity=vel,
            angular_velocity=float(rng.normal(0.0, 1.0)),
            density=float(rng.uniform(0.5, 3.0)),
        )
    return world


@pytest.mark.parametrize("solver", SOLVER_NAMES)
@pytest.mark.parametrize("seed", range(6))
def test_momentum_is_conserved_in_free_collisions(solver: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    world = _free_world(rng, solver, bodies=2 + seed)
    p0 = world.momentum()
    scale = float(np.sum(world.mass * np.hypot(world.velocity[:, 0], world.velocity[:, 1])))
    touched = 0
    for _ in range(240):
        world.step(DT)
        touched += len(world.contacts) > 0
        p = world.momentum()
        assert np.all(np.abs(p - p0) <= 1e-9 * scale), f"momentum drifted from {p0} to {p} ({solver})"
    assert touched > 0, "the bodies never collided: the test would prove nothing"


def _energy_box(seed: int, bodies: int = 24, restitution: float = 1.0) -> World:
    """A closed 40 x 40 box, restitution 1 (unless told), friction 0, no gravity, bodies moving
    4..8 units/s."""
    rng = np.random.default_rng(seed)
    world = World(
        gravity=(0.0, 0.0), solver="iterative", friction=0.0, restitution=restitution, static_friction=0.0
    )
    world.solver_settings("iterative").sleep = False
    half, wall = 20.0, 2.0
    for cx, cy, w, h in (
        (0, -half - wall / 2, 2 * half + 2 * wall, wall),
        (0, half + wall / 2, 2 * half + 2 * wall, wall),
        (-half - wall / 2, 0, wall, 2 * half),
        (half + wall / 2, 0, wall, 2 * half),
    ):
        world.add_body(Polygon.box(w, h), (cx, cy), static=True)
    side = int(math.ceil(math.sqrt(bodies)))
    spacing = 2 * half / (side + 1)
    for i in range(bodies):
        pos = (-half + spacing * (1 + i % side), -half + spacing * (1 + i // side))
        shape = Polygon.blob(int(rng.integers(3, 8)), 0.8, 0.8)
        speed = rng.uniform(4.0, 8.0)
        a = rng.uniform(0.0, 2.0 * math.pi)
        world.add_body(
            shape, pos, angle=float(rng.uniform(-3, 3)), velocity=(speed * math.cos(a), speed * math.sin(a))
        )
    return world


@pytest.mark.parametrize("seed", [1, 4])
def test_kinetic_energy_in_an_elastic_box_stays_within_one_percent(seed: int) -> None:
    world = _energy_box(seed=seed)
    e0 = world.kinetic_energy()
    lowest = highest = e0
    contacts = 0
    for _ in range(10_000):
        world.step(DT)
        e = world.kinetic_energy()
        lowest, highest = min(lowest, e), max(highest, e)
        contacts += len(world.contacts)
    drift = (world.kinetic_energy() - e0) / e0
    lo, hi = 100 * (lowest - e0) / e0, 100 * (highest - e0) / e0
    print(
        f"\nelastic box, iterative solver, 10 000 steps: KE {e0:.4f} -> {world.kinetic_energy():.4f} "
        f"(drift {100 * drift:+.3f}%, range {lo:+.3f}% .. {hi:+.3f}%)"
    )
    assert contacts > 1000, "the bodies hardly collided: the test would prove nothing"
    assert abs(drift) <= 0.01, f"kinetic energy drifted {100 * drift:+.3f}% (limit 1%)"


def test_partly_elastic_bounces_never_add_kinetic_energy() -> None:
    world = _energy_box(seed=2, restitution=0.7)
    e0 = previous = world.kinetic_energy()
    contacts = 0
    for _ in range(1500):
        world.step(DT)
        e = world.kinetic_energy()
        assert e <= previous + 1e-12 * e0, f"a step added {(e - previous) / e0:.3e} of the start energy"
        previous = e
        contacts += len(world.contacts)
    assert contacts > 100, "the bodies hardly collided: the test would prove nothing"
    assert previous < 0.5 * e0  # and the bounces did lose energy
