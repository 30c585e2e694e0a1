"""collision.geometry.stable_argsort against numpy's stable sort (np.argsort, kind="mergesort")."""

from __future__ import annotations

import numpy as np
import pytest

from collision.geometry import stable_argsort


@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 31, 32, 33, 64, 65, 1000, 4099])
def test_matches_numpy_stable_sort(n: int) -> None:
    rng = np.random.default_rng(n)
    cases = {
        "distinct": rng.random(n),
        "many ties": rng.integers(0, 5, n).astype(np.float64),
        "descending with ties": np.sort(rng.integers(0, 50, n))[::-1].astype(np.float64),
        "ascending": np.arange(n, dtype=np.float64),
        "all equal": np.full(n, 3.0),
        "signed": rng.normal(size=n) * 1e6,
    }
    for name, keys in cases.items():
        order = stable_argsort(np.ascontiguousarray(keys))
        assert order.dtype == np.int64 and order.shape == (n,), name
        np.testing.assert_array_equal(order, np.argsort(keys, kind="mergesort"), err_msg=name)


def test_ties_keep_input_order() -> None:
    keys = np.array([2.0, 1.0, 2.0, 1.0, 0.0, 2.0])
    np.testing.assert_array_equal(stable_argsort(keys), [4, 1, 3, 0, 2, 5])


def test_integer_keys_below_2_53_sort_exactly_as_floats() -> None:
    # Integer keys given as float64 keep their order while they stay below 2**53.
    big = np.array([2**53 - 1, 2**53 - 2, 7, 2**52 + 1, 2**52], dtype=np.int64)
    np.testing.assert_array_equal(stable_argsort(big.astype(np.float64)), np.argsort(big, kind="mergesort"))
