"""The end of a step keeps every body in the world's disc (collision.bodies.keep_in_bounds): a
body that leaves it is put back just inside its edge without its outward speed, one that stays
in is left as the step moved it, wherever in the disc it is."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, World
from collision.tolerances import MAX_COORDINATE, MAX_SPEED

DT = 1.0 / 60.0


def lone_box(position: tuple[float, float], velocity: tuple[float, float]) -> World:
    world = World(gravity=(0.0, 0.0), solver="iterative")
    # Big enough that rounding at the edge of the world does not erase its edges.
    world.add_body(Polygon.box(1000.0, 1000.0), position, velocity=velocity)
    return world


@pytest.mark.parametrize("direction", [0.0, 0.7, 2.0, -2.9])
def test_a_body_leaving_the_disc_is_put_back_without_its_outward_speed(direction: float) -> None:
    ux, uy = math.cos(direction), math.sin(direction)
    start = 0.999999 * MAX_COORDINATE
    # Outward at the top speed, and a sideways part that stays.
    world = lone_box((start * ux, start * uy), (MAX_SPEED * ux - 5.0 * uy, MAX_SPEED * uy + 5.0 * ux))
    world.step(DT)
    x, y = world.position[0]
    assert math.hypot(x, y) <= MAX_COORDINATE
    assert math.hypot(x, y) > 0.99 * MAX_COORDINATE
    vx, vy = world.velocity[0]
    assert vx * ux + vy * uy <= 1e-6 * MAX_SPEED  # no outward speed left
    assert abs((-vx * uy + vy * ux) - 5.0) < 1e-3 * MAX_SPEED  # the sideways part stays


@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.5, 0.5000001, 0.9, 0.999])
def test_a_body_that_stays_in_the_disc_moves_as_the_step_moved_it(fraction: float) -> None:
    x0 = fraction * MAX_COORDINATE
    world = lone_box((0.96 * x0, -0.28 * x0), (3.0, -4.0))  # at fraction of the radius
    world.step(DT)
    np.testing.assert_allclose(
        world.position[0], (0.96 * x0 + 3.0 * DT, -0.28 * x0 - 4.0 * DT), rtol=0, atol=1e-3 + 1e-15 * x0
    )
    np.testing.assert_array_equal(world.velocity[0], (3.0, -4.0))
