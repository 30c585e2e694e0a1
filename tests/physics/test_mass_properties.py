"""Mass properties of compound bodies (derivation: demo/bench/physics/resting.py
``compound_mass_properties``), and of the shared geometry helpers the cases rest on."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon
from demo.bench.scenes import BodySpec, fan_pieces, mass_properties, polygon_mass_properties, regular_vertices
from tests.physics.helpers import holds, solvers


@pytest.mark.parametrize("solver", solvers("compound_mass_properties"))
def test_compound_mass_is_the_sum_and_inertia_the_parallel_axis_sum(solver: str) -> None:
    """An L of two boxes: 3.5 kg, 2.3601 kg m^2 about its centre of mass."""
    holds("compound_mass_properties", solver)


@pytest.mark.parametrize("k", [3, 5, 8, 16])
def test_polygon_mass_properties_agree_with_the_engine_and_the_regular_polygon_formula(k: int) -> None:
    """The spec's shoelace sums equal the engine's and, for a regular k-gon of circumradius R,
    the closed form J = k R^4 sin(2 pi / k) (2 + cos(2 pi / k)) / 12."""
    vertices = regular_vertices(k, 0.7, phase=0.3)
    area, centroid, second = polygon_mass_properties(vertices)
    poly = Polygon(vertices)
    mass, inertia = poly.mass_properties(1.0)
    assert area == pytest.approx(mass, rel=1e-12) and second == pytest.approx(inertia, rel=1e-12)
    np.testing.assert_allclose(centroid, poly.centroid, atol=1e-12)
    turn = 2.0 * math.pi / k
    assert second == pytest.approx(k * 0.7**4 * math.sin(turn) * (2.0 + math.cos(turn)) / 12.0, rel=1e-12)


def test_box2d_fan_pieces_tile_a_16_gon_with_the_same_mass_centre_and_inertia() -> None:
    """Box2D's polygons hold 8 vertices: the 16-gon's pieces sum to the 16-gon exactly."""
    vertices = regular_vertices(16, 1.0)
    pieces = fan_pieces(vertices, 8)
    assert all(3 <= len(p) <= 8 for p in pieces)
    whole = mass_properties(BodySpec((vertices,), (0.0, 0.0)))
    tiled = mass_properties(BodySpec(tuple(pieces), (0.0, 0.0)))
    assert tiled[0] == pytest.approx(whole[0], rel=1e-12)
    np.testing.assert_allclose(tiled[1], whole[1], atol=1e-12)
    assert tiled[2] == pytest.approx(whole[2], rel=1e-12)
