"""A heavy box on a light box, wedged under a static ceiling: the iterative solver's shock
propagation must hold the heavy box up without driving it into the ceiling.

The scene starts in exact static equilibrium: a static floor (top face y = 0), a 1 x 1 m box of
1 kg on it, a 1 x 1 m box of 1000 kg on that, and a static ceiling whose bottom face touches
the heavy box's top (y = 2 + gap), all at rest, g = 10. The exact answer after any time is
the start. Allowed: each of the two loaded contacts may sit at the shock propagation's slop
(SHOCK_SLOP, 0.005 m) below its start, so the heavy box may be up to two slops lower; it may
never rise past its start, so it never enters the ceiling (a ceiling above the start holds
nothing up and must not be grounds for a lift).
"""

from __future__ import annotations

import pytest

from collision import Polygon, World
from collision.tolerances import SHOCK_SLOP

SECONDS = 10.0
DT = 1.0 / 60.0
#: Float rounding on positions of order 1 m after 600 steps.
ROUNDING = 1e-9


def _wedged_world(gap: float) -> tuple[World, int, int, float]:
    world = World(gravity=(0.0, -10.0), solver="iterative")
    world.add_body(Polygon.box(10.0, 1.0), (0.0, -0.5), static=True)
    light = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5), friction=0.6)
    heavy = world.add_body(Polygon.box(1.0, 1.0), (0.0, 1.5), density=1000.0, friction=0.6)
    ceiling = 2.0 + gap
    world.add_body(Polygon.box(10.0, 1.0), (0.0, ceiling + 0.5), static=True)
    return world, light, heavy, ceiling


@pytest.mark.parametrize("gap", [0.0, 0.002, 0.02])
def test_a_heavy_box_on_a_light_one_under_a_ceiling_is_held_and_never_lifted_into_it(gap: float) -> None:
    world, light, heavy, ceiling = _wedged_world(gap)
    deepest_in_ceiling = -float("inf")
    lowest = float("inf")
    for _ in range(int(round(SECONDS / DT))):
        world.step(DT)
        deepest_in_ceiling = max(deepest_in_ceiling, world.position[heavy, 1] + 0.5 - ceiling)
        lowest = min(lowest, world.position[heavy, 1])
    assert deepest_in_ceiling <= -gap + ROUNDING, (
        f"the heavy box rose {deepest_in_ceiling + gap:.6f} m past its start "
        f"({deepest_in_ceiling:.6f} m into the ceiling)"
    )
    assert lowest >= 1.5 - 2 * SHOCK_SLOP - ROUNDING, (
        f"the heavy box sank {1.5 - lowest:.4f} m (allowed: two contacts at the slop, {2 * SHOCK_SLOP} m)"
    )
    assert abs(world.position[light, 0]) <= ROUNDING and abs(world.position[heavy, 0]) <= ROUNDING
