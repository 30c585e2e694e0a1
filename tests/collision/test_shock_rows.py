"""The shock propagation's stop passes (collision/solvers/iterative/shock.py) visit the manifolds
that have a touching point after the step's travel, in the walk's order, each with the body it
holds; found once for all the passes (``_stop_rows``), checked here against the definitions."""

from __future__ import annotations

import numpy as np
import pytest

from collision.kernels import python_entry
from collision.solvers.iterative.shock import _held, _separation, _stop_rows
from collision.solvers.iterative.warm_start import empty_prepared, manifold_link
from tests.collision.kernel_records import points_of

UP = (0.0, 1.0)


@pytest.mark.parametrize("seed", range(8))
def test_the_stop_rows_are_the_touching_manifolds_in_walk_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 10
    counts = rng.integers(1, 3, 25)
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    c = int(offsets[-1])
    link = np.empty((25, 4), dtype=np.int64)
    prepared = python_entry(empty_prepared)(c)
    for g in range(25):
        a, b = rng.choice(n, 2, replace=False)
        link[g] = (a, b, offsets[g], offsets[g + 1])
        prepared.body_a[offsets[g] : offsets[g + 1]] = a
        prepared.body_b[offsets[g] : offsets[g + 1]] = b
    prepared.cross_a[:] = rng.normal(0.0, 0.5, (c, 2))
    prepared.cross_b[:] = rng.normal(0.0, 0.5, (c, 2))
    angle = rng.uniform(0.0, np.pi, c)  # normals from below to straight down and around
    normal = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    points = points_of(
        np.zeros(c), np.zeros(c), np.zeros((c, 2)), np.zeros((c, 2)), normal, rng.uniform(-0.01, 0.01, c)
    )
    travel = rng.normal(0.0, 0.003, (n, 3))
    order = rng.permutation(25).astype(np.int64)
    layer = rng.integers(0, 4, n).astype(np.int64)
    rows = python_entry(_stop_rows)(travel, points, prepared, (link, order, layer), UP)
    expected = []
    for g in order:
        a, b, k0, k1 = python_entry(manifold_link)(link, g)
        touch = [python_entry(_separation)(travel, points, prepared, k) <= 0.0 for k in (k0, k1)]
        if any(touch):
            expected.append((g, python_entry(_held)(a, b, layer, points, k0, UP), *touch))
    np.testing.assert_array_equal(rows, np.array(expected, dtype=np.int64).reshape(-1, 4))
    assert 0 < rows.shape[0] < 25  # some manifolds touch and some do not
