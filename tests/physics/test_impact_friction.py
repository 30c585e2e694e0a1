"""Friction during an impact: Coulomb's law whenever in the step the impact happens, and
frictionless oblique bounces.

Derivation: demo/bench/physics/impacts.py ``oblique_impact``. The arcade solver is exempt from
Coulomb's law (Tutorial 4's friction removes the fraction ``friction`` of the tangential
velocity at each hit), and is held to its own law below.
"""

from __future__ import annotations

import math

import pytest

from demo.bench.physics import IMPACT_FRACTIONS, case
from demo.bench.physics.impacts import oblique_impact
from tests.physics.helpers import holds, solvers

COULOMB = [f"oblique_impact_mu0.3_e0_at{f:g}" for f in IMPACT_FRACTIONS] + [
    "oblique_impact_mu0.3_e0.5_at0.1",
    "oblique_impact_mu0.3_e0.5_at0.9",
    "oblique_impact_mu0.3_e0_at0.5_turned30",
]


@pytest.mark.parametrize(
    ("name", "solver"),
    [
        pytest.param(name, *p.values, marks=p.marks, id=f"{name}-{p.id}")
        for name in COULOMB
        for p in solvers(name)
    ],
)
def test_impact_friction_removes_mu_times_the_normal_change_and_adds_no_spin(name: str, solver: str) -> None:
    """Sliding throughout: tangential loss = mu (1 + e) v_n, spin 0, at impact times 0.1, 0.5, 0.9
    of the step, e = 0 and 0.5, and with the whole setup turned 30 degrees."""
    holds(name, solver)


@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("solver", solvers("oblique_impact_mu0_e0.5_at0.5"))
def test_frictionless_oblique_bounce_keeps_tangential_velocity_and_reverses_e_times_normal(
    solver: str, turned: bool
) -> None:
    """(4, -3) m/s onto a floor, e = 0.5, no friction: (4, 1.5) after, no spin, in any frame."""
    holds("oblique_impact_mu0_e0.5_at0.5" + ("_turned30" if turned else ""), solver)


def test_arcade_friction_removes_the_fraction_f_of_the_tangential_velocity() -> None:
    """Tutorial 4's law, which the arcade solver keeps instead of Coulomb's: dv_t = -f v_t
    (f = 0.3 of 4 m/s = 1.2 m/s), normal change -(1 + e) v_n, and no spin."""
    for name in COULOMB[:3]:
        values = case(name).run("ours", "arcade")
        assert values["loss"] == pytest.approx(0.3 * 4.0, abs=1e-9), name
        assert values["normal"] == pytest.approx(0.0, abs=1e-9) and values["spin"] == 0.0, name


def test_the_coulomb_cases_are_the_same_physics_turned() -> None:
    """The turned case differs from the unturned one only by the turn (same expectations)."""
    plain, turned = case(COULOMB[1]), oblique_impact(0.3, 0.0, 0.5, math.radians(30.0))
    assert {k: c.expected for k, c in plain.checks.items()} == {
        k: c.expected for k, c in turned.checks.items()
    }
