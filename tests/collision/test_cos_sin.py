"""A rotation's cosine and sine in one call (collision.geometry.cos_sin): the bits of math.cos
and math.sin, so the world's vertices do not depend on how they were computed."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from collision import interpreter
from collision.broadphase import transform_vertices
from collision.geometry import cos_sin
from collision.tolerances import MAX_VERTICES


@njit(cache=False)
def _rotations(angles: np.ndarray) -> np.ndarray:
    out = np.empty((angles.shape[0], 2))
    for i in range(angles.shape[0]):
        c, s = cos_sin(angles[i])
        out[i, 0] = c
        out[i, 1] = s
    return out


def _angles() -> np.ndarray:
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, math.pi, -math.pi, math.pi / 2, 5e-324, -5e-324, 1e-8, 1e300, -1e300]
    return np.r_[rng.uniform(-math.pi, math.pi, 50_000), rng.uniform(-1e6, 1e6, 5_000), special]


def test_cos_sin_gives_the_bits_of_cos_and_sin() -> None:
    angles = _angles()
    got = _rotations(angles)
    expected = np.array([[math.cos(a), math.sin(a)] for a in angles])
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))  # signed zeros too


def test_cos_sin_of_a_value_that_is_not_finite_is_nan() -> None:
    got = _rotations(np.array([math.inf, -math.inf, math.nan]))
    assert np.isnan(got).all()


def test_the_interpreted_engine_turns_vertices_to_the_same_bits() -> None:
    rng = np.random.default_rng(3)
    n = 300
    local = rng.uniform(-1.0, 1.0, (n, MAX_VERTICES, 2))
    count = rng.integers(3, MAX_VERTICES + 1, n).astype(np.int64)
    position = rng.uniform(-50.0, 50.0, (n, 2))
    angle = rng.uniform(-math.pi, math.pi, n)
    compiled = np.zeros_like(local)
    transform_vertices(local, count, position, angle, compiled)
    interpreted = np.zeros_like(local)
    interpreter.install()
    try:
        assert isinstance(globals()["transform_vertices"], interpreter.Switch)  # the plain form runs
        globals()["transform_vertices"](local, count, position, angle, interpreted)
    finally:
        interpreter.uninstall()
    assert np.array_equal(interpreted.view(np.int64), compiled.view(np.int64))
