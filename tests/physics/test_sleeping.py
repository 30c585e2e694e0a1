"""Sleeping bodies struck from either side wake, and the impact conserves momentum.

Derivations: demo/bench/physics/conservation.py ``sleeper_struck``, ``sleeper_hit_sliding``.
Only the iterative solver puts bodies to sleep, so the tutorial and arcade solvers are exempt
(that claim is checked below).
"""

from __future__ import annotations

import pytest

from demo.bench import engines
from demo.bench.physics import case
from tests.physics.helpers import holds, solvers


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("solver", solvers("sleeper_struck_from_left"))
def test_a_sleeping_body_struck_from_either_side_wakes_and_takes_the_momentum(solver: str, side: str) -> None:
    """Elastic, equal masses, no gravity: the sleeper leaves at 2 m/s, the striker stops; the
    sleeper is the first body of the pair or the second."""
    holds(f"sleeper_struck_from_{side}", solver)


@pytest.mark.parametrize("solver", solvers("sleeper_hit_sliding"))
def test_a_box_sliding_into_a_sleeping_one_under_gravity_shares_its_momentum(solver: str) -> None:
    """mu 0.2, plastic: the sleeper slides (v1 / 2)^2 / (2 mu g) = 0.75 m."""
    holds("sleeper_hit_sliding", solver)


@pytest.mark.parametrize("solver", ["tutorial", "arcade"])
def test_only_the_iterative_solver_puts_bodies_to_sleep(solver: str) -> None:
    """What exempts the other two: after 1 s at rest nothing sleeps."""
    sim = engines.build("ours", case("sleeper_hit_sliding").scene, solver)
    sim.step(60)
    assert sim.awake().all()
