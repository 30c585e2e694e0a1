"""Speculative contacts: nothing acts across a gap that stays open within the step, and a gap
that closes within the step loses only the approach that would carry the bodies past it.

Derivations: demo/bench/physics/impacts.py ``open_gap``, ``closing_gap``.
"""

from __future__ import annotations

import pytest

from tests.physics.helpers import holds, solvers


@pytest.mark.parametrize("solver", solvers("open_gap"))
def test_no_restitution_or_friction_across_a_gap_that_stays_open(solver: str) -> None:
    """0.06 m apart closing at 3 m/s (0.05 m per step): after one step the gap is 0.010 m and
    the velocities are untouched; the impact in the next step exchanges them."""
    holds("open_gap", solver)


@pytest.mark.parametrize("solver", solvers("closing_gap"))
def test_a_gap_closing_within_the_step_stops_only_the_excess_approach(solver: str) -> None:
    """0.06 m apart closing at 12 m/s, plastic: touching and both at 6 m/s, never overlapping."""
    holds("closing_gap", solver)
