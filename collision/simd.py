"""Eight doubles at once in compiled code: numba types for LLVM vectors and their operations.

numba compiles the engine's loops to scalar code; LLVM does not vectorise the short, branching
loops the narrowphase and the solver run. Here a kernel holds eight float64 in one value
(:data:`f64x8`, an LLVM ``<8 x double>``: one AVX-512 register, two AVX2 ones), with masks
(:data:`b1x8`, ``<8 x i1>``) and row indices (:data:`i64x8`), and writes the lanes' arithmetic
as it would write a scalar's:

    px, py = xy_rows(p)                 # the first LANES rows of an (m, 2) array
    d = nx * (q[j, 0] - px) + ny * (q[j, 1] - py)
    lowest = where((d < lowest) & below(k), d, lowest)

Operators: ``+ - * /`` (and ``+=`` ...) and unary ``-`` on lanes (a float on either side is
put in every lane), comparisons ``< > <= >= == !=`` giving masks (``!=`` is true for NaN, as
Python's), ``& | ~`` on masks. Every lane does the scalar operation, in IEEE arithmetic
without fast-math, so a lane's result is the scalar code's bit for bit. Only compiled code can
use these (with the JIT off the calls raise); a kernel that does runs its plain loop instead
with the JIT off (see collision/lanes.py).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import ConcreteTemplate, infer_global, signature
from numba.extending import intrinsic, models, register_model

#: Lanes of a vector.
LANES = 8
#: Whether vector code can run (it is LLVM IR: not with the JIT off).
VECTOR = not config.DISABLE_JIT  # type: ignore[attr-defined]

_F64, _I64, _I32, _I1 = ir.DoubleType(), ir.IntType(64), ir.IntType(32), ir.IntType(1)


class _Lanes(types.Type):
    """A vector of LANES values of one kind (the numba type of :data:`f64x8` and the others)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        super().__init__(name=f"{kind}x{LANES}")


#: LANES float64, LANES booleans, LANES int64 (row indices).
f64x8, b1x8, i64x8 = _Lanes("f64"), _Lanes("b1"), _Lanes("i64")
_ELEMENT = {"f64": _F64, "b1": _I1, "i64": _I64}


@register_model(_Lanes)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm: Any, fe_type: _Lanes) -> None:
        super().__init__(dmm, fe_type, ir.VectorType(_ELEMENT[fe_type.kind], LANES))


def _mask(indices: list[int]) -> ir.Constant:
    """A shuffle's lane indices."""
    return ir.Constant(ir.VectorType(_I32, len(indices)), indices)


def _broadcast(builder: Any, value: Any) -> Any:
    """``value`` (a scalar of LLVM type) in every lane."""
    vector_type = ir.VectorType(value.type, LANES)
    one = builder.insert_element(ir.Constant(vector_type, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(one, ir.Constant(vector_type, ir.Undefined), _mask([0] * LANES))


def _data(context: Any, builder: Any, array_type: Any, array: Any) -> Any:
    return context.make_array(array_type)(context, builder, array).data


def _is_rows(array: Any, dtype: Any = types.float64) -> bool:
    return isinstance(array, types.Array) and array.layout == "C" and array.dtype == dtype


# -- operators --------------------------------------------------------------------------------

_ARITHMETIC = {
    operator.add: "fadd",
    operator.sub: "fsub",
    operator.mul: "fmul",
    operator.truediv: "fdiv",
    operator.iadd: "fadd",
    operator.isub: "fsub",
    operator.imul: "fmul",
    operator.itruediv: "fdiv",
}
_COMPARISON = {operator.lt: "<", operator.gt: ">", operator.le: "<=", operator.ge: ">=", operator.eq: "=="}


def _register_arithmetic(op: Any, instruction: str) -> None:
    @infer_global(op)
    class _Typing(ConcreteTemplate):
        cases = [  # noqa: RUF012 - numba's template attribute
            signature(f64x8, f64x8, f64x8),
            signature(f64x8, f64x8, types.float64),
            signature(f64x8, types.float64, f64x8),
        ]

    @lower_builtin(op, f64x8, f64x8)
    def _both(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return getattr(builder, instruction)(*args)

    @lower_builtin(op, f64x8, types.float64)
    def _right(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return getattr(builder, instruction)(args[0], _broadcast(builder, args[1]))

    @lower_builtin(op, types.float64, f64x8)
    def _left(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return getattr(builder, instruction)(_broadcast(builder, args[0]), args[1])


def _register_comparison(op: Any, predicate: str, unordered: bool) -> None:
    @infer_global(op)
    class _Typing(ConcreteTemplate):
        cases = [  # noqa: RUF012 - numba's template attribute
            signature(b1x8, f64x8, f64x8),
            signature(b1x8, f64x8, types.float64),
            signature(b1x8, types.float64, f64x8),
        ]

    def compare(builder: Any, a: Any, b: Any) -> Any:
        return (builder.fcmp_unordered if unordered else builder.fcmp_ordered)(predicate, a, b)

    @lower_builtin(op, f64x8, f64x8)
    def _both(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return compare(builder, *args)

    @lower_builtin(op, f64x8, types.float64)
    def _right(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return compare(builder, args[0], _broadcast(builder, args[1]))

    @lower_builtin(op, types.float64, f64x8)
    def _left(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return compare(builder, _broadcast(builder, args[0]), args[1])


def _register_logic(op: Any, instruction: str) -> None:
    @infer_global(op)
    class _Typing(ConcreteTemplate):
        cases = [signature(b1x8, b1x8, b1x8)]  # noqa: RUF012 - numba's template attribute

    @lower_builtin(op, b1x8, b1x8)
    def _both(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return getattr(builder, instruction)(*args)


for _op, _instruction in _ARITHMETIC.items():
    _register_arithmetic(_op, _instruction)
for _op, _predicate in _COMPARISON.items():
    _register_comparison(_op, _predicate, unordered=False)
_register_comparison(operator.ne, "!=", unordered=True)
_register_logic(operator.and_, "and_")
_register_logic(operator.or_, "or_")


@infer_global(operator.neg)
class _Negate(ConcreteTemplate):
    cases = [signature(f64x8, f64x8)]  # noqa: RUF012 - numba's template attribute


@lower_builtin(operator.neg, f64x8)
def _negate(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    return builder.fneg(args[0])


@infer_global(operator.invert)
class _Invert(ConcreteTemplate):
    cases = [signature(b1x8, b1x8)]  # noqa: RUF012 - numba's template attribute


@lower_builtin(operator.invert, b1x8)
def _invert(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    return builder.not_(args[0])


# -- functions --------------------------------------------------------------------------------


@intrinsic
def _splat(typingctx: Any, x: Any) -> Any:
    """``x`` (a float) in every lane."""
    if not isinstance(x, (types.Float, types.Integer)):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _broadcast(builder, context.cast(builder, args[0], sig.args[0], types.float64))

    return f64x8(x), codegen


@intrinsic
def _where(typingctx: Any, mask: Any, a: Any, b: Any) -> Any:
    """Lane by lane ``a`` where ``mask`` holds, else ``b``."""
    if mask != b1x8 or a != f64x8 or b != f64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.select(*args)

    return f64x8(mask, a, b), codegen


@intrinsic
def _below(typingctx: Any, count: Any) -> Any:
    """The lanes whose index is below ``count`` (an int)."""
    if not isinstance(count, types.Integer):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        bound = _broadcast(builder, context.cast(builder, args[0], sig.args[0], types.int64))
        return builder.icmp_signed("<", ir.Constant(ir.VectorType(_I64, LANES), list(range(LANES))), bound)

    return b1x8(count), codegen


@intrinsic
def _sqrt(typingctx: Any, vector: Any) -> Any:
    """Each lane's square root (correctly rounded, as ``math.sqrt``)."""
    if vector != f64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        vector_type = ir.VectorType(_F64, LANES)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vector_type, [vector_type]), f"llvm.sqrt.v{LANES}f64"
        )
        return builder.call(function, [args[0]])

    return f64x8(vector), codegen


@intrinsic
def _xy_rows(typingctx: Any, array: Any) -> Any:
    """The first LANES rows of a C-contiguous ``(m >= LANES, 2)`` float64 array as its x and y
    columns: ``(x, y)``."""
    if not (_is_rows(array) and array.ndim == 2):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        data = _data(context, builder, sig.args[0], args[0])
        both = builder.load(builder.bitcast(data, ir.VectorType(_F64, 2 * LANES).as_pointer()), align=8)
        x = builder.shuffle_vector(both, both, _mask([2 * k for k in range(LANES)]))
        y = builder.shuffle_vector(both, both, _mask([2 * k + 1 for k in range(LANES)]))
        return context.make_tuple(builder, sig.return_type, [x, y])

    return types.UniTuple(f64x8, 2)(array), codegen


@intrinsic
def _store_xy_rows(typingctx: Any, array: Any, x: Any, y: Any) -> Any:
    """Write ``x`` and ``y`` as the first LANES rows of a C-contiguous ``(m >= LANES, 2)``
    float64 array."""
    if not (_is_rows(array) and array.ndim == 2) or x != f64x8 or y != f64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        data = _data(context, builder, sig.args[0], args[0])
        rows = builder.shuffle_vector(
            args[1], args[2], _mask([m for k in range(LANES) for m in (k, k + LANES)])
        )
        builder.store(rows, builder.bitcast(data, rows.type.as_pointer()), align=8)
        return context.get_dummy_value()

    return types.none(array, x, y), codegen


def _reduce(builder: Any, values: Any, predicate: str) -> Any:
    """The lane of ``values`` kept by ``select(a predicate b, a, b)`` over halves (no NaN lanes)."""
    width = LANES
    while width > 1:
        width //= 2
        upper = builder.shuffle_vector(
            values, values, _mask([k + width if k < width else k for k in range(LANES)])
        )
        values = builder.select(builder.fcmp_ordered(predicate, values, upper), values, upper)
    return builder.extract_element(values, ir.Constant(_I32, 0))


@intrinsic
def _largest(typingctx: Any, vector: Any) -> Any:
    """The largest lane (``vector`` without NaN lanes); of 0 and -0, either."""
    if vector != f64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _reduce(builder, args[0], ">")

    return types.float64(vector), codegen


@intrinsic
def _first_equal(typingctx: Any, vector: Any, value: Any) -> Any:
    """``(index, lane)``: the first lane of ``vector`` equal to ``value`` (LANES if none) and
    that lane's own value (equal values differ only as 0 and -0: the first lane's zero, as a
    scalar loop keeping the first of equal values would return)."""
    if vector != f64x8 or not isinstance(value, types.Float):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        vector_value, scalar = args[0], context.cast(builder, args[1], sig.args[1], types.float64)
        bits = builder.fcmp_ordered("==", vector_value, _broadcast(builder, scalar))
        packed = builder.zext(builder.bitcast(bits, ir.IntType(LANES)), _I64)
        cttz = builder.module.declare_intrinsic("llvm.cttz", [_I64], ir.FunctionType(_I64, [_I64, _I1]))
        index = builder.call(cttz, [packed, ir.Constant(_I1, 0)])
        before = builder.basic_block
        with builder.if_then(builder.fcmp_ordered("==", scalar, ir.Constant(_F64, 0.0)), likely=False):
            zero = builder.extract_element(vector_value, index)
            zero_block = builder.basic_block
        exact = builder.phi(_F64)
        exact.add_incoming(scalar, before)
        exact.add_incoming(zero, zero_block)
        return context.make_tuple(builder, sig.return_type, [index, exact])

    return types.Tuple((types.int64, types.float64))(vector, value), codegen


@intrinsic
def _following(typingctx: Any, vector: Any, count: Any) -> Any:
    """Lane i holds ``vector``'s lane i + 1, lane ``count - 1`` its lane 0: each vertex's next
    around a closed shape of ``count`` (an int, 1 to LANES) vertices. Lanes from ``count`` on:
    any of ``vector``'s lanes."""
    if vector != f64x8 or not isinstance(count, types.Integer):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        vector_value = args[0]
        last = context.cast(builder, args[1], sig.args[1], types.int64)
        last = builder.sub(last, ir.Constant(_I64, 1))
        lanes = ir.Constant(ir.VectorType(_I64, LANES), list(range(LANES)))
        turned = builder.shuffle_vector(
            vector_value, vector_value, _mask([(k + 1) % LANES for k in range(LANES)])
        )
        first = _broadcast(builder, builder.extract_element(vector_value, ir.Constant(_I32, 0)))
        return builder.select(builder.icmp_signed("==", lanes, _broadcast(builder, last)), first, turned)

    return f64x8(vector, count), codegen


def _element_pointer(context: Any, builder: Any, array_type: Any, array: Any, row: Any, column: Any) -> Any:
    """Pointer to ``array[row, column]`` of a C-contiguous 2-d array (int64 row and column)."""
    record = context.make_array(array_type)(context, builder, array)
    width = builder.extract_value(record.shape, 1)
    return builder.gep(record.data, [builder.add(builder.mul(row, width), column)])


@intrinsic
def _load_row(typingctx: Any, array: Any, row: Any, start: Any) -> Any:
    """``array[row, start:start + LANES]`` (a C-contiguous 2-d float64 array) as lanes."""
    if not (_is_rows(array) and array.ndim == 2):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        row_value = context.cast(builder, args[1], sig.args[1], types.int64)
        start_value = context.cast(builder, args[2], sig.args[2], types.int64)
        pointer = _element_pointer(context, builder, sig.args[0], args[0], row_value, start_value)
        return builder.load(builder.bitcast(pointer, ir.VectorType(_F64, LANES).as_pointer()), align=8)

    return f64x8(array, row, start), codegen


@intrinsic
def _store_row(typingctx: Any, array: Any, row: Any, start: Any, vector: Any) -> Any:
    """Write lanes ``vector`` to ``array[row, start:start + LANES]`` (C-contiguous 2-d float64)."""
    if not (_is_rows(array) and array.ndim == 2) or vector != f64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        row_value = context.cast(builder, args[1], sig.args[1], types.int64)
        start_value = context.cast(builder, args[2], sig.args[2], types.int64)
        pointer = _element_pointer(context, builder, sig.args[0], args[0], row_value, start_value)
        builder.store(args[3], builder.bitcast(pointer, ir.VectorType(_F64, LANES).as_pointer()), align=8)
        return context.get_dummy_value()

    return types.none(array, row, start, vector), codegen


@intrinsic
def _gather(typingctx: Any, array: Any, rows: Any, column: Any) -> Any:
    """Lane l: ``array[rows[l], column]`` (a C-contiguous 2-d float64 array)."""
    if not (_is_rows(array) and array.ndim == 2) or rows != i64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        column_value = context.cast(builder, args[2], sig.args[2], types.int64)
        out = ir.Constant(ir.VectorType(_F64, LANES), ir.Undefined)
        for k in range(LANES):
            lane_index = ir.Constant(_I32, k)
            row = builder.extract_element(args[1], lane_index)
            pointer = _element_pointer(context, builder, sig.args[0], args[0], row, column_value)
            out = builder.insert_element(out, builder.load(pointer), lane_index)
        return out

    return f64x8(array, rows, column), codegen


@intrinsic
def _rows_at(typingctx: Any, array: Any, rows: Any) -> Any:
    """Columns 0 .. LANES - 1 of the rows ``rows`` of ``array`` (a C-contiguous 2-d float64
    array of LANES columns) as LANES vectors: vector j, lane l is ``array[rows[l], j]``. Each
    row is one load, and a transpose turns rows into columns (where gathering column by column
    takes a load per lane and column)."""
    if not (_is_rows(array) and array.ndim == 2) or rows != i64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        vector_type = ir.VectorType(_F64, LANES)
        zero = ir.Constant(_I64, 0)
        loaded = []
        for k in range(LANES):
            row = builder.extract_element(args[1], ir.Constant(_I32, k))
            pointer = _element_pointer(context, builder, sig.args[0], args[0], row, zero)
            loaded.append(builder.load(builder.bitcast(pointer, vector_type.as_pointer()), align=8))
        # Three rounds of pairwise shuffles, each swapping blocks of 1, 2 then 4 lanes.
        for width in (1, 2, 4):
            after = list(loaded)
            for low in range(LANES):
                if low & width:
                    continue
                high = low + width
                lo_mask = [i if (i // width) % 2 == 0 else i - width + LANES for i in range(LANES)]
                hi_mask = [i + width if (i // width) % 2 == 0 else i + LANES for i in range(LANES)]
                after[low] = builder.shuffle_vector(loaded[low], loaded[high], _mask(lo_mask))
                after[high] = builder.shuffle_vector(loaded[low], loaded[high], _mask(hi_mask))
            loaded = after
        return context.make_tuple(builder, sig.return_type, loaded)

    return types.UniTuple(f64x8, LANES)(array, rows), codegen


@intrinsic
def _store_rows_at(typingctx: Any, array: Any, rows: Any, vectors: Any, mask: Any) -> Any:
    """``array[rows[l], j] = vectors[j][l]`` for every j of the tuple ``vectors`` and the lanes
    l where ``mask`` holds, lane by lane (C-contiguous 2-d float64 ``array``): one test per
    lane for all its columns, where :func:`_scatter` tests each lane once per column."""
    if (
        not (_is_rows(array) and array.ndim == 2)
        or rows != i64x8
        or mask != b1x8
        or not isinstance(vectors, types.UniTuple)
        or vectors.dtype != f64x8
    ):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        columns = [builder.extract_value(args[2], j) for j in range(sig.args[2].count)]
        for k in range(LANES):
            lane_index = ir.Constant(_I32, k)
            with builder.if_then(builder.extract_element(args[3], lane_index)):
                row = builder.extract_element(args[1], lane_index)
                for j, vector in enumerate(columns):
                    pointer = _element_pointer(
                        context, builder, sig.args[0], args[0], row, ir.Constant(_I64, j)
                    )
                    builder.store(builder.extract_element(vector, lane_index), pointer)
        return context.get_dummy_value()

    return types.none(array, rows, vectors, mask), codegen


@intrinsic
def _column(typingctx: Any, array: Any, column: Any, start: Any) -> Any:
    """Lane l: ``array[start + l, column]`` (a C-contiguous 2-d int64 array): row indices."""
    if not (_is_rows(array, types.int64) and array.ndim == 2):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        column_value = context.cast(builder, args[1], sig.args[1], types.int64)
        start_value = context.cast(builder, args[2], sig.args[2], types.int64)
        out = ir.Constant(ir.VectorType(_I64, LANES), ir.Undefined)
        for k in range(LANES):
            row = builder.add(start_value, ir.Constant(_I64, k))
            pointer = _element_pointer(context, builder, sig.args[0], args[0], row, column_value)
            out = builder.insert_element(out, builder.load(pointer), ir.Constant(_I32, k))
        return out

    return i64x8(array, column, start), codegen


@intrinsic
def _to_index(typingctx: Any, vector: Any) -> Any:
    """Each lane as an int64 row index (``int(x)``: toward zero)."""
    if vector != f64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.fptosi(args[0], ir.VectorType(_I64, LANES))

    return i64x8(vector), codegen


@intrinsic
def _index_equal(typingctx: Any, a: Any, b: Any) -> Any:
    """The lanes where two index vectors hold the same row."""
    if a != i64x8 or b != i64x8:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.icmp_signed("==", args[0], args[1])

    return b1x8(a, b), codegen


@intrinsic
def _index_offset(typingctx: Any, rows: Any, offset: Any) -> Any:
    """Each lane's row index plus ``offset`` (an int)."""
    if rows != i64x8 or not isinstance(offset, types.Integer):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.add(
            args[0], _broadcast(builder, context.cast(builder, args[1], sig.args[1], types.int64))
        )

    return i64x8(rows, offset), codegen


if TYPE_CHECKING:  # what the intrinsics take and give, for type checkers (numba supplies typingctx)
    Lanes = Any

    def splat(x: float) -> Lanes: ...
    def where(mask: Lanes, a: Lanes, b: Lanes) -> Lanes: ...
    def below(count: int) -> Lanes: ...
    def sqrt(vector: Lanes) -> Lanes: ...
    def xy_rows(array: Any) -> tuple[Lanes, Lanes]: ...
    def store_xy_rows(array: Any, x: Lanes, y: Lanes) -> None: ...
    def largest(vector: Lanes) -> float: ...
    def first_equal(vector: Lanes, value: float) -> tuple[int, float]: ...
    def following(vector: Lanes, count: int) -> Lanes: ...
    def load_row(array: Any, row: int, start: int) -> Lanes: ...
    def store_row(array: Any, row: int, start: int, vector: Lanes) -> None: ...
    def gather(array: Any, rows: Lanes, column: int) -> Lanes: ...
    def rows_at(array: Any, rows: Lanes) -> tuple[Lanes, ...]: ...
    def store_rows_at(array: Any, rows: Lanes, vectors: tuple[Lanes, ...], mask: Lanes) -> None: ...
    def column(array: Any, column: int, start: int) -> Lanes: ...
    def to_index(vector: Lanes) -> Lanes: ...
    def index_equal(a: Lanes, b: Lanes) -> Lanes: ...
    def index_offset(rows: Lanes, offset: int) -> Lanes: ...

else:
    splat, where, below, sqrt = _splat, _where, _below, _sqrt
    xy_rows, store_xy_rows, largest, first_equal, following = (
        _xy_rows,
        _store_xy_rows,
        _largest,
        _first_equal,
        _following,
    )
    load_row, store_row, gather, rows_at, store_rows_at = (
        _load_row,
        _store_row,
        _gather,
        _rows_at,
        _store_rows_at,
    )
    column, to_index, index_equal, index_offset = _column, _to_index, _index_equal, _index_offset


@njit(cache=True, inline="always")
def maximum(a: Any, b: Any) -> Any:
    """Lane by lane Python's ``max(a, b)``: ``b`` where ``b > a``, else ``a`` (as numba's)."""
    return where(b > a, b, a)


@njit(cache=True, inline="always")
def minimum(a: Any, b: Any) -> Any:
    """Lane by lane Python's ``min(a, b)``: ``b`` where ``b < a``, else ``a`` (as numba's)."""
    return where(b < a, b, a)
