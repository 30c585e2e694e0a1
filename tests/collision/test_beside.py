"""Two tasks side by side on numba's threads (collision/tasks.py,
collision/solvers/iterative/beside.py): records handed across a parallel loop arrive whole
and the tasks' writes land in the caller's arrays; threads taking numbers from one counter
each get numbers of their own; a big world whose shock propagation acts steps to the same
bits, and packs the same contacts, on one thread and on two."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
import pytest
from numba import njit, prange

from collision import World
from collision.tasks import (
    _leaves_interpreted,
    _nesting_interpreted,
    _rebuilt_interpreted,
    _take_interpreted,
    flat_leaves,
    nesting_token,
    rebuilt_value,
    take_next,
)
from collision.threads import fast_layer
from tests.collision.test_threads import stacked_boxes

DT = 1.0 / 60.0


class Pair(NamedTuple):
    """A record of two arrays of different shapes (as the engine's records hold)."""

    first: np.ndarray
    second: np.ndarray


@njit
def _round_trip(value: tuple) -> tuple:
    return rebuilt_value(flat_leaves(value), nesting_token(value))


@njit
def _one_task(task: int, flat: tuple, token: object) -> None:
    (pair, (scale, counts)), out = rebuilt_value(flat, token)
    if task == 0:
        for i in range(pair.first.shape[0]):
            out[0, i] = scale * pair.first[i]
    else:
        for i in range(pair.second.shape[0]):
            out[1, i] = pair.second[i, 0] + pair.second[i, 1] + counts[i]


@njit(parallel=True)
def _two_tasks(args: tuple, out: np.ndarray) -> None:
    both = (args, out)
    flat = flat_leaves(both)
    token = nesting_token(both)
    for task in prange(2):
        _one_task(task, flat, token)


@njit
def _take_until(task: int, counter: np.ndarray, taken: np.ndarray) -> None:
    k = take_next(counter)
    while k < taken.shape[0]:
        taken[k] += 1 + task
        k = take_next(counter)


@njit(parallel=True)
def _take_on_two_threads(counter: np.ndarray, taken: np.ndarray) -> None:
    for task in prange(2):
        _take_until(task, counter, taken)


def test_two_threads_taking_from_one_counter_take_each_number_once() -> None:
    """take_next is one atomic step: two threads racing through a counter 200 000 times take
    every number exactly once (a read then a write would hand some out twice), and the
    counter ends one past the last number for each thread's last, empty-handed, take."""
    assert fast_layer(), "numba has no OpenMP or TBB threading layer here (see .ci/run)"
    assert numba.config.NUMBA_NUM_THREADS >= 2, "one thread: nothing would race"
    before = numba.get_num_threads()
    numba.set_num_threads(2)  # a big world's step may have left numba on one
    try:
        for _ in range(5):
            counter = np.zeros(1, dtype=np.int64)
            taken = np.zeros(200_000, dtype=np.int64)
            _take_on_two_threads(counter, taken)
            assert np.all((taken == 1) | (taken == 2)) and counter[0] == taken.shape[0] + 2
    finally:
        numba.set_num_threads(before)
    counter = np.array([7], dtype=np.int64)
    assert _take_interpreted(counter) == 7 and counter[0] == 8


def test_a_nested_value_comes_back_as_it_went() -> None:
    pair = Pair(np.arange(3.0), np.arange(8.0).reshape(4, 2))
    counts = np.array([1, 2], dtype=np.int64)
    value = ((pair, 2.5), (counts, (True, 7)))
    back = _round_trip(value)
    (pair_back, scale), (counts_back, (flag, seven)) = back
    assert isinstance(pair_back, Pair)
    np.testing.assert_array_equal(pair_back.first, pair.first)
    np.testing.assert_array_equal(pair_back.second, pair.second)
    assert (scale, flag, seven) == (2.5, True, 7)
    # The same arrays, not copies: a write through the rebuilt record is seen in the original.
    pair_back.second[3, 1] = -1.0
    counts_back[0] = 40
    assert pair.second[3, 1] == -1.0 and counts[0] == 40


def test_the_python_forms_make_the_same_value() -> None:
    # What the interpreter (and NUMBA_DISABLE_JIT) runs in the kernels' place.
    flat_leaves_py, nesting_py, rebuilt_py = _leaves_interpreted, _nesting_interpreted, _rebuilt_interpreted
    pair = Pair(np.arange(3.0), np.zeros((2, 2)))
    value = ((pair, 2.5), (np.ones(2), (False, 3)))
    flat = flat_leaves_py(value)
    assert len(flat) == 6
    back = rebuilt_py(flat, nesting_py(value))
    assert isinstance(back[0][0], Pair) and back[0][0].first is pair.first
    assert back[0][1] == 2.5 and back[1][1] == (False, 3)


def test_two_tasks_read_records_and_write_the_callers_arrays() -> None:
    pair = Pair(np.arange(5.0), np.arange(10.0).reshape(5, 2))
    counts = np.arange(5, dtype=np.int64) * 100
    out = np.zeros((2, 5))
    _two_tasks((pair, (3.0, counts)), out)
    np.testing.assert_array_equal(out[0], 3.0 * pair.first)
    np.testing.assert_array_equal(out[1], pair.second.sum(axis=1) + counts)


def heavy_topped_wall(threads: int, shock_iterations: int) -> World:
    """test_threads' wall of unit boxes (40 columns, 60 rows: a big world) topped by 5 rows
    200 times as dense: the bottom contacts carry far past the load ratio, so the shock
    propagation lifts and stops every step."""
    world = stacked_boxes(40, 60, threads=threads, heavy_rows=5)
    world.solver_settings("iterative").shock_iterations = shock_iterations
    return world


def test_a_big_world_with_the_shock_acting_steps_the_same_on_two_threads() -> None:
    assert fast_layer(), "numba has no OpenMP or TBB threading layer here (see .ci/run)"
    one = heavy_topped_wall(threads=1, shock_iterations=2)
    two = heavy_topped_wall(threads=2, shock_iterations=2)
    without = heavy_topped_wall(threads=2, shock_iterations=0)
    for step in range(25):
        for world in (one, two, without):
            world.step(DT)
        assert two.state_hash() == one.state_hash(), f"step {step}"
    # The contacts, packed beside the stop passes on two threads, are one thread's.
    fields = ("body_a", "body_b", "point_a", "point_b", "normal", "separation", "toi", "normal_impulse")
    for field in (*fields, "tangent_impulse", "state"):
        np.testing.assert_array_equal(getattr(two.contacts, field), getattr(one.contacts, field), field)
    assert two.contacts.body_a.shape[0] > 2000
    # The shock acted (else the two-thread path's lift and stop passes went untested).
    assert without.state_hash() != two.state_hash()
    bottom = np.flatnonzero(~two.static)[:40]
    assert np.abs(two.position[bottom, 1] - without.position[bottom, 1]).max() > 1e-4


@pytest.mark.parametrize("threads", [1, 2])
def test_a_big_world_without_gravity_is_left_to_the_soft_step(threads: int) -> None:
    # No gravity: no up, so the shock does nothing on either path (and finds no topology).
    a = heavy_topped_wall(threads=threads, shock_iterations=2)
    b = heavy_topped_wall(threads=threads, shock_iterations=0)
    for world in (a, b):
        world.gravity = (0.0, 0.0)
        for _ in range(3):
            world.step(DT)
    assert a.state_hash() == b.state_hash()
