"""Seed 002's crack problem: a box sliding over flush tiles moves as on one floor, whatever its
direction, speed, friction or the floor's slope.

Derivations: demo/bench/physics/cracks.py. The arcade solver's friction is not Coulomb's, so
it is exempt from the cases with friction; frictionless, every solver is held to them.
"""

from __future__ import annotations

import math

import pytest

from collision import Polygon, World
from demo.bench.physics import cases
from tests.physics.helpers import holds, solvers

CRACK_CASES = [c.name for c in cases() if c.name.startswith("slide_across_cracks")]
PARAMS = [
    pytest.param(name, p.values[0], marks=p.marks, id=f"{name}-{p.id}")
    for name in CRACK_CASES
    for p in solvers(name)
]


def test_the_crack_cases_cover_both_directions_friction_and_slopes() -> None:
    """The class, not one example: leftward and rightward, with and without friction, level
    and turned."""
    assert len(CRACK_CASES) >= 4
    assert any("leftward" in n for n in CRACK_CASES) and any("leftward" not in n for n in CRACK_CASES)
    assert any("_mu" in n for n in CRACK_CASES) and any("deg" in n for n in CRACK_CASES)


@pytest.mark.parametrize(("name", "solver"), PARAMS)
def test_a_box_slides_across_flush_tiles_as_over_one_floor(name: str, solver: str) -> None:
    """Velocity along the floor after the slide (uniform deceleration by the slope and Coulomb
    friction, exact) and the box's bottom still on the tiles' tops."""
    holds(name, solver)


def _slide_into(
    wall: tuple[float, float, float, float], speed: float = 2.0, seconds: float = 1.5
) -> tuple[float, float, float]:
    """A 1 x 1 m box (frictionless, e = 0) sliding right at ``speed`` over a static floor (top at
    y = 0) into a static block ``wall`` (x0, y0, x1, y1), under g = 10, with the iterative solver.
    Returns how far the box went into the block (m; the largest over the run of its vertices
    below the block's top past its left face), the largest tilt of the box (rad) and where its
    centre ends (x, m)."""
    world = World(gravity=(0.0, -10.0), solver="iterative", friction=0.0, restitution=0.0)
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    x0, y0, x1, y1 = wall
    world.add_body(Polygon.box(x1 - x0, y1 - y0), (0.5 * (x0 + x1), 0.5 * (y0 + y1)), static=True)
    box = world.add_body(Polygon.box(1.0, 1.0), (x0 - 2.0, 0.5), velocity=(speed, 0.0))
    into = -math.inf
    tilt = 0.0
    for _ in range(int(round(seconds * 60))):
        world.step(1.0 / 60.0)
        v = world.vertices(box)
        into = max(into, float(v[v[:, 1] < y1, 0].max(initial=-math.inf)) - x0)
        tilt = max(tilt, abs(float(world.angle[box])))
    return into, tilt, float(world.position[box, 0])


@pytest.mark.parametrize(
    ("where", "wall"),
    [("standing on the floor", (1.0, 0.0, 2.0, 3.0)), ("set into the floor", (1.0, -0.5, 2.0, 3.0))],
)
def test_a_wall_is_met_though_the_floor_covers_its_foot(
    where: str, wall: tuple[float, float, float, float]
) -> None:
    """Only faces that other static bodies cover all along are cracks: a wall whose foot meets
    the floor stops a box sliding into it (the iterative solver's narrowphase drops the points
    on covered faces). Frictionless, e = 0: it stops flat against the wall, its face within one
    linear slop (0.005 m), not rocked (0.01 rad: the wall's push acts along the whole face)."""
    into, tilt, _ = _slide_into(wall)
    assert into <= 0.005, f"wall {where}: the box went {into:.4f} m into it"
    assert tilt <= 0.01, f"wall {where}: the box tilted {tilt:.4f} rad"


@pytest.mark.parametrize(
    ("where", "wall"),
    [("standing on the floor", (1.0, 0.0, 6.0, 0.2)), ("set into the floor", (1.0, -0.5, 6.0, 0.2))],
)
def test_a_step_is_met_though_the_floor_covers_its_foot(
    where: str, wall: tuple[float, float, float, float]
) -> None:
    """A 0.2 m step on a floor that covers the step's foot is a surface: a box sliding into it at
    2 m/s does not enter it (one linear slop, 0.005 m) and cannot climb it (lifting its centre
    over the step's edge takes 2.8 J per kg, it brings 2): it ends back on the floor, in front
    of the step."""
    into, _, x = _slide_into(wall)
    assert into <= 0.005, f"step {where}: the box went {into:.4f} m into it"
    assert x <= wall[0] - 0.5 + 0.005, f"step {where}: the box ended at x = {x:.3f} m"
