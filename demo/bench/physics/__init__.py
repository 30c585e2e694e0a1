"""The physics cases: exact answers that every engine is held to, defined once.

``cases()`` builds the list the report prints, in its order; ``case(name)`` finds one. The
test suite (tests/physics) and ``python -m demo bench --physics`` both run these definitions
(see :mod:`demo.bench.physics.case` for what a case holds).
"""

from __future__ import annotations

import math
from functools import cache

from demo.bench.physics import conservation, cracks, impacts, loads, resting
from demo.bench.physics.case import AT_LEAST, AT_MOST, WITHIN, Case, Check

#: Impact times (fractions of the step) at which Coulomb's law is checked.
IMPACT_FRACTIONS = (0.1, 0.5, 0.9)


@cache
def cases() -> tuple[Case, ...]:
    """Every case, in report order."""
    return (
        impacts.impulse_with_rotation_on_ground(),
        impacts.impulse_with_rotation_between_bodies(),
        impacts.head_on_impulse(),
        *(impacts.oblique_impact(0.3, 0.0, f) for f in IMPACT_FRACTIONS),
        *(impacts.oblique_impact(0.3, 0.5, f) for f in (0.1, 0.9)),
        impacts.oblique_impact(0.3, 0.0, 0.5, math.radians(30.0)),
        impacts.oblique_impact(0.0, 0.5, 0.5),
        impacts.oblique_impact(0.0, 0.5, 0.5, math.radians(30.0)),
        impacts.open_gap(),
        impacts.closing_gap(),
        conservation.free_impact_momentum(),
        conservation.free_impact_angular_momentum(),
        conservation.newtons_cradle(),
        conservation.elastic_gas(),
        conservation.sleeper_struck("left"),
        conservation.sleeper_struck("right"),
        conservation.sleeper_hit_sliding(),
        resting.tipping(above=False),
        resting.tipping(above=True),
        resting.sliding(),
        resting.corner_wheel(),
        resting.corner_wheel_settles(),
        resting.stack(ratio=1.0),
        resting.stack(ratio=2.0),
        loads.heavy_pair(),
        loads.heavy_on_pyramid(),
        loads.heavy_plank(),
        resting.plank_on_supports(),
        resting.kinematic_carry(),
        resting.long_drop_on_thin_plate(),
        cracks.slide_across_cracks(),
        cracks.slide_across_cracks(leftward=True),
        cracks.slide_across_cracks(24, 20.0, 0.5, math.radians(-10.0), seconds=0.9),
        cracks.slide_across_cracks(8, 2.0, 0.1, math.radians(-10.0), True, 1.5),
        cracks.slide_across_cracks(uneven=True),
        cracks.slide_across_cracks(8, 3.0, 0.2, math.radians(15.0), True, 1.0, uneven=True),
        resting.compound_mass_properties(),
    )


def case(name: str) -> Case:
    """The case called ``name`` (KeyError naming the known ones if there is none)."""
    for c in cases():
        if c.name == name:
            return c
    raise KeyError(f"no physics case {name!r}; known: {', '.join(c.name for c in cases())}")


__all__ = ["AT_LEAST", "AT_MOST", "WITHIN", "Case", "Check", "case", "cases"]
