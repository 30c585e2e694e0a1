"""numba's array views read from registers (collision.numba_trims.arrays_read_in_registers):
array operations compiled with them give numba's own answers, bit for bit; a view written
after it was read sees its writes, as numba's does; and an array read no longer lowers
through a stack slot."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from numba import njit, types
from numba.core import cgutils, codegen
from numba.extending import intrinsic
from numba.np import arraymath, arrayobj, linalg

import collision  # noqa: F401 - applies collision.numba_trims


@contextmanager
def _numba_s_own_views() -> Iterator[None]:
    """numba's own ``make_array`` in place of the trim's while the block runs."""
    modules = (arrayobj, arraymath, linalg)
    trimmed = [module.make_array for module in modules]
    assert all(getattr(view, "_polycolly_quick", False) for view in trimmed)
    for module, view in zip(modules, trimmed, strict=True):
        module.make_array = view.__wrapped__
    try:
        yield
    finally:
        for module, view in zip(modules, trimmed, strict=True):
            module.make_array = view


def _index_sum(a: np.ndarray) -> float:
    total = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            total = total * 0.5 + a[i, j] * (i + 1) - j
    return total


def _strided_views(a: np.ndarray) -> tuple:
    b = a[1:, ::-1]
    c = a[::2]
    return b.sum(), b.shape[0] * 10 + b.strides[0], c.copy(), a[-1]


def _reshaped(a: np.ndarray) -> tuple:
    flat = a.reshape(a.size)
    pairs = flat.reshape((a.size // 2, 2))
    return pairs.T.copy(), np.ascontiguousarray(a.T).reshape((2, -1))


def _iterated(a: np.ndarray) -> tuple:
    by_index = 0.0
    for (i, j), v in np.ndenumerate(a):
        by_index += i * v - j
    flat = 0.0
    for v in a.T.flat:
        flat = flat * 1.5 + v
    return by_index, flat


def _selected(a: np.ndarray, rows: np.ndarray) -> tuple:
    column = a[:, 0]
    return a[rows] * 2.0, column[column > 0.5], np.argsort(a[:, 0], kind="mergesort"), np.cumsum(a)


def _written(a: np.ndarray, shift: np.ndarray) -> tuple:
    b = np.empty_like(a)
    for i in range(a.shape[0]):
        b[i] = a[a.shape[0] - 1 - i]
    b[0] += 1.0
    stacked = np.zeros((3, *a.shape))
    stacked[1] = a + shift
    stacked[2, :, 0] = 7.0
    return b, stacked, np.concatenate((a, a[::-1]))


ARRAY = np.random.default_rng(7).random((6, 2))
KERNELS: list[tuple[Callable[..., Any], tuple]] = [
    (_index_sum, (ARRAY,)),
    (_strided_views, (ARRAY,)),
    (_reshaped, (ARRAY,)),
    (_iterated, (ARRAY,)),
    (_selected, (ARRAY, np.array([4, 0, 5, 5], dtype=np.int64))),
    (_written, (ARRAY, ARRAY[0].copy())),
]


def _same_bits(x: Any, y: Any) -> bool:
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_same_bits(p, q) for p, q in zip(x, y, strict=True))
    x = np.asarray(x)
    y = np.asarray(y)
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def _close(x: Any, y: Any) -> bool:
    """The same values to rounding (numpy may sum in another order)."""
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_close(p, q) for p, q in zip(x, y, strict=True))
    return np.shape(x) == np.shape(y) and bool(np.allclose(x, y, rtol=1e-12, atol=0.0))


@pytest.mark.parametrize(("function", "arguments"), KERNELS, ids=[f.__name__ for f, _ in KERNELS])
def test_array_operations_give_numba_s_own_answers(function: Callable[..., Any], arguments: tuple) -> None:
    trimmed = njit(cache=False)(function)(*arguments)
    with _numba_s_own_views():
        own = njit(cache=False)(function)(*arguments)
    assert _same_bits(trimmed, own)
    assert _close(trimmed, function(*arguments))


@intrinsic
def _counted_up(typingctx: Any, a: Any) -> Any:
    """A view of ``a`` read, then its item count read and written three times in a loop:
    ``first * 1000 + last``."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = arrayobj.make_array(a)(context, builder, args[0])
        one = context.get_constant(types.intp, 1)
        first = view.nitems
        with cgutils.for_range(builder, context.get_constant(types.intp, 3)):
            view.nitems = builder.add(view.nitems, one)
        return builder.add(builder.mul(first, context.get_constant(types.intp, 1000)), view.nitems)

    return types.intp(a), codegen


def _count_up(a: np.ndarray) -> int:
    return _counted_up(a)


def test_a_view_read_then_written_in_a_loop_sees_its_writes() -> None:
    """The read in the loop is made before the write that puts the view in memory; it must
    then load what the last pass wrote (8 items: 8 * 1000 + 8 + 3), as with numba's views
    (a read left on the value would give 8 * 1000 + 8 + 1)."""
    a = np.zeros(8)
    assert njit(cache=False)(_count_up)(a) == 8011
    with _numba_s_own_views():
        assert njit(cache=False)(_count_up)(a) == 8011


def _read(a: np.ndarray, i: int) -> float:
    return a[i] + a.shape[0]


def _lowered_ir(function: Callable[..., Any], *arguments: Any) -> str:
    """The IR numba lowers for ``function``'s own body (before any optimisation)."""
    seen: list[str] = []
    add_ir_module = codegen.CPUCodeLibrary.add_ir_module

    def recording(self: Any, ir_module: Any) -> None:
        seen.append(str(ir_module))
        add_ir_module(self, ir_module)

    kernel = njit(cache=False)(function)
    codegen.CPUCodeLibrary.add_ir_module = recording  # type: ignore[method-assign]
    try:
        kernel(*arguments)
    finally:
        codegen.CPUCodeLibrary.add_ir_module = add_ir_module  # type: ignore[method-assign]
    return next(text for text in seen if "_read" in text and "define" in text)


def test_an_array_read_lowers_without_a_stack_slot() -> None:
    a = np.arange(5.0)
    slot = "alloca {i8*, i8*, i64, i64, double*, [1 x i64], [1 x i64]}"
    assert slot not in _lowered_ir(_read, a, 2)
    with _numba_s_own_views():
        assert slot in _lowered_ir(_read, a, 2)
