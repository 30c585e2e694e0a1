"""geometry.slot: a row read from an index array, as the unsigned index the hot loops use."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from collision.geometry import slot


@njit(cache=False)
def _gather(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = np.empty(rows.shape[0])
    for k in range(rows.shape[0]):
        out[k] = values[slot(rows[k])]
    return out


@njit(cache=False)
def _gather_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = np.empty((rows.shape[0], values.shape[1]))
    for k in range(rows.shape[0]):
        i = slot(rows[k])
        for d in range(values.shape[1]):
            out[k, d] = values[i, d]
    return out


@njit(cache=False)
def _below_zero_wraps(i: int) -> bool:
    # An unsigned integer one below 0 wraps to the largest value; a signed one is -1.
    return slot(i) - np.uint64(i + 1) > np.uint64(2**63)


@pytest.mark.parametrize("i", [0, 1, 7, 2**40, 2**62])
def test_slot_keeps_the_value_as_an_unsigned_integer(i: int) -> None:
    assert slot(np.int64(i)) == i
    assert _below_zero_wraps(np.int64(i))


def test_indexing_through_slot_reads_the_rows_numpy_reads() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(size=(50, 3))
    rows = np.concatenate([[0, 49], rng.integers(0, 50, size=200)]).astype(np.int64)
    assert np.array_equal(_gather(values[:, 0].copy(), rows), values[rows, 0])
    assert np.array_equal(_gather_rows(values, rows), values[rows])
