"""Eight lanes at once: the narrowphase's loops over a shape's faces as vector code.

numba compiles :func:`collision.manifold.face_separation`'s loops to scalar code: per face a
chain of 3-8 minimum operations over the other shape's vertices, then a branch. On the
1000-body pile at rest that was about two thirds of the manifolds' time. Here lane i holds face
i of a shape of up to LANES vertices: every face's projection of each vertex in one vector
operation, written as LLVM vector instructions through a numba intrinsic. The edge normals the
test reads (:func:`collision.manifold.edge_normals`: a square root and two divisions per edge)
are found the same way, every edge at once. Each lane does the loop's operations in the loop's
order (no fast-math), so its result is the loop's bit for bit; LLVM picks AVX-512, AVX2 or
SSE2 for the machine.

With the JIT off, or while the engine runs interpreted (collision/interpreter.py), the loops
stand in.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

from collision import interpreter
from collision.geometry import UNCOUNTED, Index
from collision.kernels import compiled_only
from collision.tolerances import MANIFOLD_DEGENERATE_LENGTH

#: Lanes of the vector code: faces of the reference shape, vertices of the other.
LANES = 8


@compiled_only(forceinline=True, **UNCOUNTED)
def face_loop(
    p: np.ndarray, pn: np.ndarray, kp: int, q: np.ndarray, kq: int, floor: float, stop: float
) -> tuple[float, Index]:
    """:func:`collision.manifold.face_separation` face by face and vertex by vertex: shapes of
    any vertex count, and the reference the vector code (:func:`faces_beyond`) matches.
    Leaving a face's loop at the first vertex below the best so far, which would not change the
    answer either, was measured slower (the pile's narrowphase 15% slower): the branch costs
    more than the vertices it skips."""
    best = floor
    best_index = 0
    for i in range(kp):
        nx = pn[i, 0]
        ny = pn[i, 1]
        if nx == 0.0 and ny == 0.0:
            continue
        px = p[i, 0]
        py = p[i, 1]
        lowest = math.inf
        for j in range(kq):
            d = nx * (q[j, 0] - px) + ny * (q[j, 1] - py)
            if d < lowest:
                lowest = d
        if lowest > best:
            best = lowest
            best_index = i
            if best > stop:
                break
    return best, best_index


@compiled_only(forceinline=True, **UNCOUNTED)
def normal_loop(v: np.ndarray, k: int, out: np.ndarray) -> None:
    """The unit outward normals of the edges of a CCW shape of ``k >= 2`` vertices ``v (>=k,
    2)`` into ``out (>=k, 2)``, edge by edge (see :func:`collision.manifold.edge_normals`)."""
    for i in range(k):
        j = i + 1 if i + 1 < k else 0
        ex = v[j, 0] - v[i, 0]
        ey = v[j, 1] - v[i, 1]
        length = math.sqrt(ex * ex + ey * ey)
        if length < MANIFOLD_DEGENERATE_LENGTH:
            out[i, 0] = 0.0
            out[i, 1] = 0.0
        else:
            out[i, 0] = ey / length
            out[i, 1] = -ex / length


class _Vectors:
    """Small steps of LLVM IR on vectors of LANES doubles, for the intrinsics' code."""

    def __init__(self, context: Any, builder: Any) -> None:
        from llvmlite import ir  # noqa: PLC0415

        self.ir, self.context, self.builder = ir, context, builder
        self.f64, self.i64, self.i32 = ir.DoubleType(), ir.IntType(64), ir.IntType(32)
        self.doubles = ir.VectorType(self.f64, LANES)

    def mask(self, lanes: list[int]) -> Any:
        """A shuffle's lane indices."""
        return self.ir.Constant(self.ir.VectorType(self.i32, LANES), lanes)

    def mask2(self, lanes: list[int]) -> Any:
        """A shuffle's lane indices, for twice LANES lanes."""
        return self.ir.Constant(self.ir.VectorType(self.i32, 2 * LANES), lanes)

    def constant(self, value: float) -> Any:
        return self.ir.Constant(self.doubles, [value] * LANES)

    def columns(self, array_type: Any, array: Any) -> tuple[Any, Any]:
        """The first LANES rows of a C-contiguous ``(m, 2)`` array as an x and a y vector."""
        builder = self.builder
        data = self.context.make_array(array_type)(self.context, builder, array).data
        rows = self.ir.VectorType(self.f64, 2 * LANES)
        both = builder.load(builder.bitcast(data, rows.as_pointer()), align=8)
        x = builder.shuffle_vector(both, both, self.mask([2 * k for k in range(LANES)]))
        y = builder.shuffle_vector(both, both, self.mask([2 * k + 1 for k in range(LANES)]))
        return x, y

    def splat(self, scalar: Any) -> Any:
        """``scalar`` (a double, an int64 or a bit) in every lane."""
        undefined = self.ir.Constant(self.ir.VectorType(scalar.type, LANES), self.ir.Undefined)
        one = self.builder.insert_element(undefined, scalar, self.ir.Constant(self.i32, 0))
        return self.builder.shuffle_vector(one, undefined, self.mask([0] * LANES))

    def lane(self, vector: Any, k: int) -> Any:
        """Lane ``k`` of ``vector`` in every lane."""
        return self.builder.shuffle_vector(vector, vector, self.mask([k] * LANES))

    def below(self, count: Any) -> Any:
        """The lanes whose index is below ``count`` (int64)."""
        lanes = self.ir.Constant(self.ir.VectorType(self.i64, LANES), list(range(LANES)))
        return self.builder.icmp_signed("<", lanes, self.splat(count))

    def extreme(self, values: Any, sign: str) -> Any:
        """The largest (``sign`` ">") or least ("<") lane of ``values`` (no NaN lanes)."""
        builder = self.builder
        width = LANES
        while width > 1:
            width //= 2
            upper = builder.shuffle_vector(
                values, values, self.mask([k + width if k < width else k for k in range(LANES)])
            )
            values = builder.select(builder.fcmp_ordered(sign, values, upper), values, upper)
        return builder.extract_element(values, self.ir.Constant(self.i32, 0))

    def first_lane(self, values: Any, value: Any) -> Any:
        """The first lane (int64) of ``values`` equal to ``value``, which one is; and that
        lane's own bits (equal values differ only as 0 and -0, as the loops keep the first)."""
        ir, builder = self.ir, self.builder
        bits = builder.fcmp_ordered("==", values, self.splat(value))
        packed = builder.zext(builder.bitcast(bits, ir.IntType(LANES)), self.i64)
        cttz = builder.module.declare_intrinsic(
            "llvm.cttz", [self.i64], ir.FunctionType(self.i64, [self.i64, ir.IntType(1)])
        )
        index = builder.call(cttz, [packed, ir.Constant(ir.IntType(1), 0)])
        before = builder.basic_block
        with builder.if_then(builder.fcmp_ordered("==", value, ir.Constant(self.f64, 0.0)), likely=False):
            zero = builder.extract_element(values, index)
            zero_block = builder.basic_block
        exact = builder.phi(self.f64)
        exact.add_incoming(value, before)
        exact.add_incoming(zero, zero_block)
        return index, exact


def _codegen_faces(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """LLVM IR of :func:`_faces_intrinsic`: :func:`face_loop`, lane i face i."""
    v = _Vectors(context, builder)
    p, pn, kp, q, kq, floor, _ = args
    px, py = v.columns(signature.args[0], p)
    nx, ny = v.columns(signature.args[1], pn)
    qx, qy = v.columns(signature.args[3], q)
    # Lane i: face i's least projection of q's vertices (vertex j's, j < kq, in turn).
    lowest = v.constant(math.inf)
    for j in range(LANES):
        d = builder.fadd(
            builder.fmul(nx, builder.fsub(v.lane(qx, j), px)),
            builder.fmul(ny, builder.fsub(v.lane(qy, j), py)),
        )
        present = v.splat(builder.icmp_signed(">", kq, v.ir.Constant(v.i64, j)))
        lowest = builder.select(builder.and_(builder.fcmp_ordered("<", d, lowest), present), d, lowest)
    # Faces past kp, and degenerate faces (normal 0, 0), take no part.
    zero = v.constant(0.0)
    has_normal = builder.or_(builder.fcmp_unordered("!=", nx, zero), builder.fcmp_unordered("!=", ny, zero))
    values = builder.select(builder.and_(v.below(kp), has_normal), lowest, v.constant(-math.inf))
    index, top = v.first_lane(values, v.extreme(values, ">"))
    found = builder.fcmp_ordered(">", top, floor)
    result = [builder.select(found, top, floor), builder.select(found, index, v.ir.Constant(v.i64, 0))]
    return context.make_tuple(builder, signature.return_type, result)


def _codegen_normals(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """LLVM IR of :func:`_normals_intrinsic`: :func:`normal_loop`, lane i edge i."""
    v = _Vectors(context, builder)
    vertices, k, out = args
    live = v.below(k)
    zero = v.constant(0.0)
    x, y = (builder.select(live, column, zero) for column in v.columns(signature.args[0], vertices))
    # Edge i ends at vertex i + 1, the last (lane k - 1) at vertex 0.
    lanes = v.ir.Constant(v.ir.VectorType(v.i64, LANES), list(range(LANES)))
    last = builder.icmp_signed("==", lanes, v.splat(builder.sub(k, v.ir.Constant(v.i64, 1))))
    turn = v.mask([(lane + 1) % LANES for lane in range(LANES)])
    ex = builder.fsub(builder.select(last, v.lane(x, 0), builder.shuffle_vector(x, x, turn)), x)
    ey = builder.fsub(builder.select(last, v.lane(y, 0), builder.shuffle_vector(y, y, turn)), y)
    sqrt = cgutils.get_or_insert_function(
        builder.module, v.ir.FunctionType(v.doubles, [v.doubles]), f"llvm.sqrt.v{LANES}f64"
    )
    length = builder.call(sqrt, [builder.fadd(builder.fmul(ex, ex), builder.fmul(ey, ey))])
    degenerate = builder.fcmp_ordered("<", length, v.constant(MANIFOLD_DEGENERATE_LENGTH))
    nx = builder.select(degenerate, zero, builder.fdiv(ey, length))
    ny = builder.select(degenerate, zero, builder.fdiv(builder.fneg(ex), length))
    rows = builder.shuffle_vector(nx, ny, v.mask2([m for lane in range(LANES) for m in (lane, lane + LANES)]))
    data = context.make_array(signature.args[2])(context, builder, out).data
    builder.store(rows, builder.bitcast(data, rows.type.as_pointer()), align=8)
    return context.get_dummy_value()


def _rows(*arrays: Any) -> bool:
    """Whether every argument is a C-contiguous 2-d float64 array (what the vector code loads)."""
    return all(
        isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C" and a.dtype == types.float64
        for a in arrays
    )


@intrinsic
def _faces_intrinsic(typingctx: Any, p: Any, pn: Any, kp: Any, q: Any, kq: Any, floor: Any, stop: Any) -> Any:
    """:func:`face_loop` as vector code, for C-contiguous ``(>= LANES, 2)`` float64 rows
    (``kp``, ``kq`` <= LANES)."""
    if not _rows(p, pn, q):
        return None
    f64, i64 = types.float64, types.int64
    return types.Tuple((f64, i64))(p, pn, i64, q, i64, f64, f64), _codegen_faces


@intrinsic
def _normals_intrinsic(typingctx: Any, vertices: Any, k: Any, out: Any) -> Any:
    """:func:`normal_loop` as vector code, for C-contiguous ``(>= LANES, 2)`` float64 rows
    (``2 <= k <= LANES``)."""
    if not _rows(vertices, out):
        return None
    return types.none(vertices, types.int64, out), _codegen_normals


@njit(cache=True, inline="always")
def fits_lanes(vertices: np.ndarray, count: int) -> bool:
    """Whether a shape of ``count`` vertices in the rows ``vertices (m, 2)`` (or its edge
    normals) suits the vector code: at most LANES vertices, at least LANES rows to load."""
    return count <= LANES and vertices.shape[0] >= LANES


#: Whether :func:`collision.manifold.face_separation` takes the vector code where it fits (it
#: is LLVM IR: with the JIT off, never).
VECTOR = not config.DISABLE_JIT  # type: ignore[attr-defined]


@compiled_only(forceinline=True, **UNCOUNTED)
def faces_beyond(
    p: np.ndarray, pn: np.ndarray, kp: int, q: np.ndarray, kq: int, floor: float, stop: float
) -> tuple[float, Index]:
    """:func:`face_loop` for shapes that :func:`fits_lanes` (C-contiguous float64 rows), every
    face of ``p`` at once: the same answer, bit for bit, except where a face's separation
    exceeds ``stop``: the largest then, where the loop stops at the first."""
    return _faces_intrinsic(p, pn, np.int64(kp), q, np.int64(kq), floor, stop)  # type: ignore[call-arg]


@compiled_only(forceinline=True, **UNCOUNTED)
def normals_at_once(v: np.ndarray, k: int, out: np.ndarray) -> None:
    """:func:`normal_loop` for a shape that :func:`fits_lanes` (``k >= 2``), every edge at once:
    the same normals, bit for bit; ``out``'s rows from k to LANES are overwritten too."""
    _normals_intrinsic(v, np.int64(k), out)  # type: ignore[call-arg]


if VECTOR:
    interpreter.stand_in(faces_beyond, face_loop.py_func)
    interpreter.stand_in(normals_at_once, normal_loop.py_func)
