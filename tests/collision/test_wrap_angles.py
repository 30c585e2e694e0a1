"""collision.geometry.wrap_angles: angles outside [-pi, pi) wrapped as Python's float modulo
wraps them, angles inside (and NaN) left bit for bit, in arrays where none, one or all are out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision.geometry import wrap_angles


def expected(angles: np.ndarray) -> np.ndarray:
    out = angles.copy()
    for i, a in enumerate(angles):
        if a < -math.pi or a >= math.pi:
            out[i] = (a + math.pi) % (2.0 * math.pi) - math.pi
    return out


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 33, 210])
def test_only_angles_outside_are_wrapped(n: int) -> None:
    rng = np.random.default_rng(n)
    inside = rng.uniform(-math.pi, math.pi, n)
    edges = np.array([-math.pi, math.nextafter(math.pi, 0.0), -0.0, 0.0, math.nan])
    cases = {
        "none out": inside,
        "edges": np.resize(edges, n),
        "one out": np.where(np.arange(n) == n // 2, 3.5 * math.pi, inside),
        "all out": inside + rng.choice([-1.0, 1.0], n) * rng.uniform(math.pi, 40.0, n),
        "exactly pi": np.full(n, math.pi),
    }
    for name, angles in cases.items():
        wrapped = np.ascontiguousarray(angles.copy())
        wrap_angles(wrapped)
        assert wrapped.tobytes() == expected(angles).tobytes(), name
        finite = np.isfinite(wrapped)
        assert np.all((wrapped[finite] >= -math.pi) & (wrapped[finite] < math.pi)), name
