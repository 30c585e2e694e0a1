"""world.continuous: the engine's switch between swept (continuous) and overlap-only collision."""

from __future__ import annotations

import pytest

from collision import Polygon, World

SOLVERS = ("iterative", "tutorial", "arcade")
DT = 1.0 / 60.0
WALL_X = 10.0  # the wall's near face; it is 0.1 thick


def _bullet(solver: str, continuous: bool) -> float:
    """Issue 4's bullet: a 0.1 m box at 500 m/s at a 0.1 m wall, 60 steps; the box's final x."""
    world = World(gravity=(0.0, 0.0), solver=solver, friction=0.6, restitution=0.0)
    world.continuous = continuous
    world.add_body(Polygon.box(0.1, 2.0), (WALL_X + 0.05, 0.0), static=True)
    box = world.add_body(Polygon.box(0.1, 0.1), (0.0, 0.0), velocity=(500.0, 0.0))
    for _ in range(60):
        world.step(DT)
    return float(world.position[box, 0])


@pytest.mark.parametrize("solver", SOLVERS)
def test_bullet_stops_with_continuous_collision(solver: str) -> None:
    x = _bullet(solver, True)
    # The box's right face (x + 0.05) ends at the wall, not past it.
    assert x + 0.05 <= WALL_X + 0.01


@pytest.mark.parametrize("solver", SOLVERS)
def test_bullet_tunnels_without_continuous_collision(solver: str) -> None:
    # 500 m/s * 1/60 s = 8.3 m per step: the box lands at 8.3 and then 16.7, never on the wall.
    x = _bullet(solver, False)
    assert x > WALL_X + 0.1


def _resting(solver: str, continuous: bool) -> str:
    world = World(gravity=(0.0, -10.0), solver=solver)
    world.continuous = continuous
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    world.add_body(Polygon.box(1.0, 1.0), (0.1, 1.5))
    for _ in range(60):
        world.step(DT)
    return world.state_hash()


def test_resting_stack_is_the_same_either_way() -> None:
    assert _resting("iterative", True) == _resting("iterative", False)


def test_continuous_switch_is_checked() -> None:
    world = World()
    assert world.continuous is True
    for bad in (1, 0, "yes", None, 1.0):
        with pytest.raises(ValueError, match="continuous"):
            world.continuous = bad
    assert world.continuous is True
    world.continuous = False
    assert world.continuous is False
