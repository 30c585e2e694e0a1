"""Resting contact under gravity: tipping versus sliding, the corner wheel spinning down and
staying put, stacks, heavy bodies on light ones, a plank landing on supports, a kinematic
platform's rider, a long drop onto a thin plate (cracks: test_cracks.py).

Derivations: demo/bench/physics/resting.py and loads.py. The arcade solver has no rotation
response, so it is exempt from tipping and the corner wheel; its friction is not Coulomb's, so
it is exempt from sliding; the tutorial solver (no impulses kept from step to step) makes no
claim to hold heavy bodies on light ones, and neither does the arcade solver (no accumulated
impulses at all).
"""

from __future__ import annotations

import pytest

from tests.physics.helpers import holds, solvers


@pytest.mark.parametrize("solver", solvers("ramp_0.5x1_23.5651deg_mu1"))
def test_a_box_stands_on_a_ramp_shallower_than_atan_w_over_h(solver: str) -> None:
    """0.5 x 1 box, 3 deg below the critical 26.57 deg, friction 1: no rotation."""
    holds("ramp_0.5x1_23.5651deg_mu1", solver)


@pytest.mark.parametrize("solver", solvers("ramp_0.5x1_29.5651deg_mu1"))
def test_a_box_tips_on_a_ramp_steeper_than_atan_w_over_h(solver: str) -> None:
    """3 deg above the critical angle: onto its side within 3 s."""
    holds("ramp_0.5x1_29.5651deg_mu1", solver)


@pytest.mark.parametrize("solver", solvers("ramp_1x0.5_20deg_mu0.2"))
def test_a_wide_box_slides_down_a_ramp_at_g_sin_minus_mu_cos(solver: str) -> None:
    """20 deg, mu 0.2: distance and speed after 1 s, no rocking."""
    holds("ramp_1x0.5_20deg_mu0.2", solver)


@pytest.mark.parametrize("solver", solvers("corner_wheel"))
def test_a_wheel_spinning_in_a_corner_stops_on_time_and_stays_in_the_corner(solver: str) -> None:
    """t = w0 I (1 + mu^2) / (mu (1 + mu) m g R), with the 16-gon's first-order correction."""
    holds("corner_wheel", solver)


@pytest.mark.parametrize("solver", solvers("corner_wheel_settles"))
def test_a_wheel_spun_down_in_a_corner_stays_there(solver: str) -> None:
    """w0 = 10 rad/s, g = 10: for 4 s after it stops, its centre moves no more than 0.01 m away
    from the wall, 0.005 m up, and 0.001 m once settled."""
    holds("corner_wheel_settles", solver)


# The arcade solver re-resolves a resting stack's hits within one step; past 64 it warns and
# resolves the rest in pair order (its documented fallback, not this law's concern).
@pytest.mark.filterwarnings("ignore:arcade. more than 64 hits:RuntimeWarning")
@pytest.mark.parametrize("solver", solvers("stack_10"))
def test_a_stack_of_ten_equal_boxes_stands(solver: str) -> None:
    """10 s, sleeping on: overlaps <= 0.02 m, no box moves more than 0.05 m."""
    holds("stack_10", solver)


@pytest.mark.parametrize("solver", solvers("heavy_on_light_stack_10"))
def test_a_heavy_on_light_stack_with_masses_doubling_upward_stands(solver: str) -> None:
    """Masses 1 to 512 kg from the bottom up: overlaps <= 0.02 m, no drift, after 10 s."""
    holds("heavy_on_light_stack_10", solver)


@pytest.mark.parametrize("solver", solvers("heavy_on_light_pair_1000"))
def test_a_box_a_thousand_times_heavier_than_the_one_under_it_stands(solver: str) -> None:
    """1000 kg on 1 kg: overlaps <= 0.02 m, no body moves more than 0.02 m, after 10 s."""
    holds("heavy_on_light_pair_1000", solver)


@pytest.mark.parametrize("solver", solvers("heavy_on_light_pyramid_200"))
def test_a_heavy_box_on_a_pyramid_of_light_boxes_stands(solver: str) -> None:
    """200 kg on a 3-2-1 pyramid of 1 kg boxes (two load paths per box): overlaps <= 0.02 m, no
    body moves more than 0.02 m, after 10 s."""
    holds("heavy_on_light_pyramid_200", solver)


@pytest.mark.parametrize("solver", solvers("heavy_plank_on_light_supports_600"))
def test_a_heavy_plank_on_two_light_supports_stands(solver: str) -> None:
    """600 kg plank on two 0.25 kg boxes: overlaps <= 0.02 m, no body moves more than 0.02 m,
    after 10 s."""
    holds("heavy_plank_on_light_supports_600", solver)


@pytest.mark.parametrize("solver", solvers("plank_on_supports"))
def test_a_plank_dropped_flat_onto_two_supports_sinks_no_deeper_than_a_slop(solver: str) -> None:
    """20 x 0.2 m from 5 m (10 m/s at impact): penetration <= 0.01 m, then rests on them."""
    holds("plank_on_supports", solver)


@pytest.mark.parametrize("solver", solvers("kinematic_carry"))
def test_a_box_on_a_kinematic_platform_moves_steadily_at_its_velocity(solver: str) -> None:
    """Platform at 1 m/s: every step's velocity within 0.01 m/s of (1, 0)."""
    holds("kinematic_carry", solver)


@pytest.mark.parametrize("solver", solvers("long_drop_on_thin_plate"))
def test_a_box_dropped_50_m_onto_a_5_cm_plate_does_not_tunnel(solver: str) -> None:
    """31.6 m/s at impact, 0.53 m per step: it rests on the plate."""
    holds("long_drop_on_thin_plate", solver)
