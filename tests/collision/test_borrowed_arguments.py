"""Kernels that borrow their arguments (collision.kernels._BorrowingLower): the same answers
as numba's own lowering, every array they return or keep still alive after the caller lets go
of its own, reference counts back where they were after each call, every allocation freed,
and no counting left in a kernel that only reads its records."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from collision.kernels import BorrowingCompiler, compiled_only

ROOT = Path(__file__).resolve().parents[2]
JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
pytestmark = pytest.mark.skipif(not JIT, reason="kernels are plain functions without the JIT")


class Pair(NamedTuple):
    left: np.ndarray
    right: np.ndarray


@compiled_only()
def _pick(pair: Pair, which: int) -> np.ndarray:
    """A field of a borrowed record, returned: the caller gets a reference of its own."""
    if which == 0:
        return pair.left
    return pair.right


@compiled_only()
def _swapped(pair: Pair) -> Pair:
    """A record built of a borrowed record's fields, returned."""
    left, right = pair
    return Pair(right, left)


@compiled_only()
def _last_of_loop(pair: Pair, n: int) -> np.ndarray:
    """Borrowed fields given in turn to a variable assigned in several places (counted, as
    numba counts it), and to one assigned in one place that the loop runs many times
    (borrowed); the last of the first returned."""
    kept = pair.left
    for i in range(n):
        kept = pair.right if i % 2 == 0 else pair.left
        kept[0] += 1.0
        row = pair.right
        row[row.shape[0] - 1] += 0.5
    return kept


@compiled_only()
def _grown(pair: Pair, extra: float) -> tuple[np.ndarray, Pair, np.ndarray]:
    """A new array, the argument's record itself and an argument's array, in one tuple."""
    out = np.empty(pair.left.shape[0] + 1)
    out[:-1] = pair.left
    out[-1] = extra
    return out, pair, pair.right


def _make_entry(pick, swapped, last_of_loop, grown):  # noqa: ANN001, ANN202
    """A kernel calling the four above (or their plain forms), the way a step calls stages."""

    def entry(left: np.ndarray, right: np.ndarray, n: int) -> tuple:
        pair = Pair(left, right)
        first = pick(pair, 0)
        second = pick(pair, 1)
        turned = swapped(pair)
        looped = last_of_loop(turned, n)
        more, same, right_again = grown(pair, 7.0)
        return first, second, turned, looped, more, same, right_again

    return entry


_KERNELS = (_pick, _swapped, _last_of_loop, _grown)
borrowing_entry = njit(pipeline_class=BorrowingCompiler)(_make_entry(*_KERNELS))
plain_entry = _make_entry(*(k.py_func for k in _KERNELS))
numba_entry = njit(_make_entry(*(njit(k.py_func) for k in _KERNELS)))


def _flat(result: tuple) -> tuple:
    return (result[0], result[1], *result[2], result[3], result[4], *result[5], result[6])


def test_borrowing_kernels_answer_as_plain_python_and_keep_what_they_return_alive() -> None:
    left = np.arange(3.0)
    right = np.arange(10.0, 14.0)
    got = borrowing_entry(left, right, 3)
    want = plain_entry(np.arange(3.0), np.arange(10.0, 14.0), 3)  # the same +1s on its arrays
    first, second, _, looped, grown, same, right_again = got
    # The arrays returned are the caller's own, not copies.
    assert np.shares_memory(first, left) and np.shares_memory(second, right)
    assert np.shares_memory(looped, left) and np.shares_memory(right_again, right)
    assert np.shares_memory(same.left, left) and not np.shares_memory(grown, left)
    del left, right
    # The caller's names are gone: only the references the kernels returned keep the arrays.
    for mine, plain in zip(_flat(got), _flat(want), strict=True):
        np.testing.assert_array_equal(mine, plain)
    np.testing.assert_array_equal(grown, [2.0, 1.0, 3.5, 7.0])  # left after the loop: two +1, three +0.5


def test_numba_s_own_lowering_answers_the_same() -> None:
    for n in range(5):
        ours = borrowing_entry(np.arange(3.0), np.arange(10.0, 14.0), n)
        numba_s = numba_entry(np.arange(3.0), np.arange(10.0, 14.0), n)
        for x, y in zip(_flat(ours), _flat(numba_s), strict=True):
            np.testing.assert_array_equal(x, y)


def test_reference_counts_are_back_where_they_were_after_every_call() -> None:
    left = np.arange(5.0)
    right = np.arange(5.0, 9.0)
    before = sys.getrefcount(left), sys.getrefcount(right)
    for n in range(6):
        result = borrowing_entry(left, right, n)
        del result
        assert (sys.getrefcount(left), sys.getrefcount(right)) == before, n


def _counts_in_optimised_code(kernel, *args) -> tuple[int, int]:  # noqa: ANN001
    """Calls counting up and down in the kernel's own function (not its Python wrapper,
    which counts the arrays it makes of Python's), once LLVM has optimised it."""
    kernel(*args)
    (cres,) = kernel.overloads.values()
    code = cres.library.get_llvm_str()
    name = cres.fndesc.llvm_func_name
    start = code.index(f'@"{name}"(' if f'@"{name}"(' in code else f"@{name}(")
    body = code[start : code.index("\n}\n", start)]
    return body.count("call void @NRT_incref("), body.count("call void @NRT_decref(")


def test_a_kernel_that_only_reads_its_record_counts_nothing_of_it() -> None:
    def total(pair: Pair, rounds: int) -> float:
        s = 0.0
        for _ in range(rounds):
            more, _, _ = _grown(pair, 1.0)  # a call that allocates, as a stage's do
            for i in range(pair.left.shape[0]):
                s += pair.left[i] * pair.right[i] + more[i]
        return s

    pair = Pair(np.arange(4.0), np.arange(4.0))
    borrowing = njit(pipeline_class=BorrowingCompiler)(total)
    numba_s = njit(total)
    assert borrowing(pair, 3) == numba_s(pair, 3)
    up, down = _counts_in_optimised_code(numba_s, pair, 3)
    assert up > 0 and down > up  # numba counts the record's arrays, and frees the new one
    # Borrowed: only the new array's count, which frees it.
    assert _counts_in_optimised_code(borrowing, pair, 3) == (0, down - up)


def test_the_step_frees_all_it_allocates_and_leaves_the_world_s_arrays_as_it_found_them() -> None:
    """Every solver, a compound, a kinematic body, sleeping and continuous on: numba's
    allocation counts (NUMBA_NRT_STATS) balance, and the store's arrays have the references
    they had before the steps."""
    script = textwrap.dedent(
        """
        import sys
        from numba.core.runtime import rtsys
        from collision import Polygon, World
        for solver in ("iterative", "tutorial", "arcade"):
            world = World(solver=solver)
            world.add_body(Polygon.box(40.0, 1.0), (0.0, -1.0), static=True)
            for i in range(6):
                world.add_body(Polygon.box(1.0, 1.0), (0.3 * i, 1.2 * i), velocity=(0.0, -30.0 * i))
            world.add_compound([Polygon.box(1.0, 0.4), Polygon.box(0.4, 1.0)], (5.0, 3.0))
            world.add_body(Polygon.box(1.0, 1.0), (-6.0, 0.5), velocity=(1.0, 0.0), kinematic=True)
            world.step(1 / 60)
            rows = world._store.rows
            before = [sys.getrefcount(a) for a in rows]
            start = rtsys.get_allocation_stats()
            for _ in range(200):
                world.step(1 / 60)
            end = rtsys.get_allocation_stats()
            allocated, freed = end.alloc - start.alloc, end.free - start.free
            assert allocated > 0 and allocated == freed, (solver, allocated, freed)
            assert end.mi_alloc - start.mi_alloc == end.mi_free - start.mi_free, solver
            assert [sys.getrefcount(a) for a in world._store.rows] == before, solver
        print("balanced")
        """
    )
    env = {**os.environ, "NUMBA_NRT_STATS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "balanced"
