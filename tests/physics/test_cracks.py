"""Seed 002's crack problem: a box sliding over flush tiles moves as on one floor, whatever its
direction, speed, friction or the floor's slope.

Derivations: demo/bench/physics/cracks.py. The arcade solver's friction is not Coulomb's, so
it is exempt from the cases with friction; frictionless, every solver is held to them.
"""

from __future__ import annotations

import pytest

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
