"""Eight lanes at once (collision/simd.py): each operation is the scalar one, lane by lane, bit for bit."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from numba import njit

JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
pytestmark = pytest.mark.skipif(not JIT, reason="vector code is LLVM IR: it needs the JIT")

if JIT:
    from collision.simd import (
        LANES,
        below,
        column,
        first_equal,
        following,
        largest,
        rows_at,
        splat,
        sqrt,
        store_row,
        store_rows_at,
        store_xy_rows,
        where,
        xy_rows,
    )

    @njit(cache=False)
    def _arithmetic(rows: np.ndarray, s: float, out: np.ndarray) -> None:
        a, b = xy_rows(rows)
        results = (a + b, a - b, a * b, a / b, -a, a + s, s - a, s * b, b / s, sqrt(a))
        for r in range(len(results)):
            store_xy_rows(out[r], results[r], splat(0.0))

    @njit(cache=False)
    def _logic(rows: np.ndarray, s: float, k: int, out: np.ndarray) -> None:
        a, b = xy_rows(rows)
        one, zero = splat(1.0), splat(0.0)
        masks = (a < b, a > b, a <= b, a >= b, a == b, a != b, a < s, s > a, (a < b) & (a > s),
                 (a < b) | (a > s), ~(a < b), below(k))  # fmt: skip
        for r in range(len(masks)):
            store_xy_rows(out[r], where(masks[r], one, zero), where(masks[r], a, b))

    @njit(cache=False)
    def _reductions(rows: np.ndarray, k: int, out: np.ndarray) -> tuple[float, int, float]:
        a, b = xy_rows(rows)
        store_xy_rows(out, following(a, k), b)
        top = largest(a)
        index, exact = first_equal(a, top)
        return top, index, exact

    @njit(cache=False)
    def _rows(array: np.ndarray, index: np.ndarray, out: np.ndarray) -> None:
        columns = rows_at(array, column(index, 0, 0))
        for j in range(LANES):
            store_row(out, j, 0, columns[j])

    @njit(cache=False)
    def _store_rows(array: np.ndarray, index: np.ndarray, values: np.ndarray, mask: np.ndarray) -> None:
        rows = column(index, 0, 0)
        a, b = xy_rows(values)
        store_rows_at(array, rows, (a, b, a * b), xy_rows(mask)[0] > 0.0)


def bits(values: np.ndarray) -> bytes:
    return np.ascontiguousarray(values, dtype=np.float64).tobytes()


def awkward_lanes(rng: np.random.Generator) -> np.ndarray:
    """LANES rows of (a, b): random values with zeros of both signs, infinities, NaN, ties."""
    pool = np.array([0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 1e-310, 3.5, 2.0])
    rows = rng.normal(size=(LANES, 2)) * 10.0 ** rng.integers(-3, 4, size=(LANES, 2))
    pick = rng.random(size=(LANES, 2)) < 0.4
    rows[pick] = rng.choice(pool, size=int(pick.sum()))
    return rows


def test_arithmetic_is_the_scalar_arithmetic_lane_by_lane() -> None:
    rng = np.random.default_rng(1)
    for _ in range(300):
        rows = awkward_lanes(rng)
        s = float(rng.choice([0.0, -0.0, 2.5, -1e-3, math.inf]))
        out = np.zeros((10, LANES, 2))
        with np.errstate(all="ignore"):
            _arithmetic(rows, s, out)
            a, b = rows[:, 0], rows[:, 1]
            want = (a + b, a - b, a * b, a / b, -a, a + s, s - a, s * b, b / s, np.sqrt(a))
        for r, expected in enumerate(want):
            assert bits(out[r, :, 0]) == bits(expected), r


def test_comparisons_masks_and_selects_are_the_scalar_ones() -> None:
    rng = np.random.default_rng(2)
    for _ in range(300):
        rows = awkward_lanes(rng)
        s = float(rng.choice([0.0, -0.0, 1.0, math.nan]))
        k = int(rng.integers(-1, LANES + 2))
        out = np.zeros((12, LANES, 2))
        _logic(rows, s, k, out)
        a, b = rows[:, 0], rows[:, 1]
        with np.errstate(invalid="ignore"):
            want = (a < b, a > b, a <= b, a >= b, a == b, a != b, a < s, s > a, (a < b) & (a > s),
                    (a < b) | (a > s), ~(a < b), np.arange(LANES) < k)  # fmt: skip
        for r, mask in enumerate(want):
            assert np.array_equal(out[r, :, 0], mask.astype(float)), r
            assert bits(out[r, :, 1]) == bits(np.where(mask, a, b)), r


def test_following_largest_and_first_equal() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        rows = rng.choice([0.0, -0.0, 1.0, -2.0, 7.0, -math.inf], size=(LANES, 2))
        k = int(rng.integers(1, LANES + 1))
        out = np.zeros((LANES, 2))
        top, index, exact = _reductions(rows, k, out)
        a = rows[:, 0]
        # Each of the first k lanes holds the next one round a closed loop of k.
        assert bits(out[:k, 0]) == bits(a[(np.arange(k) + 1) % k])
        assert top == a.max()
        first = int(np.flatnonzero(a == top)[0])
        assert index == first
        assert bits(np.array([exact])) == bits(a[first : first + 1])


def test_rows_at_and_store_rows_at_are_the_rows_lane_by_lane() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        array = rng.normal(size=(12, LANES))
        array[rng.random(array.shape) < 0.2] = -0.0
        index = rng.integers(0, 12, size=(LANES, 1)).astype(np.int64)  # repeats too
        out = np.zeros((LANES, LANES))
        _rows(array, index, out)
        assert bits(out) == bits(array[index[:, 0]].T)  # column j, lane l: array[index[l], j]
        values = awkward_lanes(rng)
        mask = (rng.random((LANES, 2)) < 0.6).astype(np.float64)
        expected = array.copy()
        for lane in range(LANES):  # lane order: of two lanes on one row, the later writes last
            if mask[lane, 0]:
                a, b = values[lane]
                with np.errstate(invalid="ignore"):  # inf times 0, as the lanes do
                    expected[index[lane, 0], :3] = (a, b, a * b)
        _store_rows(array, index, values, mask)
        assert bits(array) == bits(expected)
