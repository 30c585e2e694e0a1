"""Seed 004's impulse formulas: eq. 3 with rotation, eq. 2 without.

Derivations: demo/bench/physics/impacts.py (the case builders' docstrings). The arcade solver
is exempt from eq. 3: Tutorial 4 responds on velocities only, collisions never change spin;
that claim is itself checked below.
"""

from __future__ import annotations

import pytest

from demo.bench.physics import case
from tests.physics.helpers import holds, solvers


@pytest.mark.parametrize("solver", solvers("impulse_with_rotation_on_ground"))
def test_corner_impulse_on_a_static_floor_is_seed_004_eq3_j(solver: str) -> None:
    """j = -(1 + e) v_P.n / (1/m + (r_perp.n)^2 / I): velocity and spin after, to 1e-3 of 4 m/s."""
    holds("impulse_with_rotation_on_ground", solver)


@pytest.mark.parametrize("solver", solvers("impulse_with_rotation_between_bodies"))
def test_corner_impulse_between_free_bodies_is_seed_004_eq3_j_with_both_inertias(solver: str) -> None:
    """Both bodies' (r_perp.n)^2 / I terms in j; A's and B's spin and B's velocity after."""
    holds("impulse_with_rotation_between_bodies", solver)


@pytest.mark.parametrize("solver", solvers("head_on_impulse"))
def test_head_on_impulse_is_shared_by_inverse_masses_seed_004_eq2(solver: str) -> None:
    """1 kg at 5 m/s on 3 kg at rest, e = 0.6: -1 and 2 m/s after."""
    holds("head_on_impulse", solver)


def test_arcade_collisions_never_change_angular_velocity() -> None:
    """What exempts the arcade solver from eq. 3: the corner impact leaves both spins at 0."""
    values = case("impulse_with_rotation_between_bodies").run("ours", "arcade")
    assert values["spin_a"] == 0.0 and values["spin_b"] == 0.0
