"""Small compiled helpers written once: closest point on a segment, angle wrapping, material
mixing, moving a body's rows, whether an outline crosses itself, a shape's smallest feature,
a stable argsort, a rotation's cosine and sine in one call.

Used by the tests, the solvers and the queries alike; each is plain arithmetic over scalars or
the rows of the body store.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

from collision import interpreter

#: An index or a count as compiled code is given it: a Python ``int`` or a numpy ``int64``
#: (read from an index array, or a constant kept out of int literals: numba compiles a kernel
#: again for every int literal it is called with).
Index = int | np.int64

#: Options of ``njit`` for kernels that allocate nothing and loop over many small steps with
#: arrays: compiled without numba's reference counting. With it, each array a step is handed
#: (a call's argument, a view, a member of a tuple) is counted up and down again, two atomic
#: operations, wherever numba cannot prove the pair redundant, which in a branchy loop body it
#: seldom can: in the narrowphase's loop over pairs and the solver's passes over manifolds they
#: cost about as much as the arithmetic. Such a kernel cannot allocate (numba refuses to
#: compile one that does), and the arrays it is given stay alive in its caller.
UNCOUNTED: dict[str, Any] = {"_nrt": False}


@njit(cache=True, inline="always")
def slot(i: Index) -> np.uint64:
    """``i`` (>= 0: a row read from an index array) as an unsigned index. numba checks each
    signed index for a negative value, to count from the end (a shift, a mask and an add at
    every use, where the hot loops index by rows they read); an unsigned one it takes as it
    is. For indexing only: numba computes in floats where unsigned and signed integers mix."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def closest_point_on_segment(
    px: float, py: float, ax: float, ay: float, bx: float, by: float
) -> tuple[float, float, float]:
    """The point of segment ``a``-``b`` closest to ``p``, and where it lies on the segment:
    ``(x, y, u)`` with ``u`` in [0, 1] from ``a`` to ``b`` (Tutorial 6's FindClosestPoint).

    A zero-length segment gives ``a`` and ``u = 0``. ``u`` is exactly 0 or 1 when the closest
    point is an end.
    """
    ex = bx - ax
    ey = by - ay
    ee = ex * ex + ey * ey
    if ee <= 0.0:
        return ax, ay, 0.0
    u = ((px - ax) * ex + (py - ay) * ey) / ee
    if not u >= 0.0:  # before the start, or NaN from a segment too long to square: the start
        u = 0.0
    elif u > 1.0:
        u = 1.0
    return ax + u * ex, ay + u * ey, u


@njit(cache=True, inline="always")
def wrap_angle(a: float) -> float:
    """``a`` (radians) wrapped to [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@njit(cache=True)
def wrap_angles(angle: np.ndarray) -> None:
    """Angles outside [-pi, pi) wrapped into it, in place; angles inside are left bit-identical
    (wrapping them anyway would round some of them)."""
    # Look first, wrap only when some angle is out: LLVM vectorises the wrapping loop by taking
    # the remainder of every angle and keeping the few it needs, and each remainder is a call
    # to fmod (1.6% of the pyramid's step, three times a step over every body).
    outside = False
    for i in range(angle.shape[0]):
        outside |= (angle[i] < -math.pi) | (angle[i] >= math.pi)
    if not outside:
        return
    for i in range(angle.shape[0]):
        if angle[i] < -math.pi or angle[i] >= math.pi:
            angle[i] = wrap_angle(angle[i])


@intrinsic
def _c_sincos(typingctx: Any, angle: Any) -> Any:
    """``(sin, cos)`` of a float64 (radians) from one call of the C library's ``sincos``."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        from llvmlite import ir  # noqa: PLC0415

        double = ir.DoubleType()
        function_type = ir.FunctionType(ir.VoidType(), [double, double.as_pointer(), double.as_pointer()])
        function = cgutils.get_or_insert_function(builder.module, function_type, "sincos")
        # In the function's entry block: inside a loop, an alloca would grow the stack per pass.
        sine = cgutils.alloca_once(builder, double)
        cosine = cgutils.alloca_once(builder, double)
        builder.call(function, [args[0], sine, cosine])
        return context.make_tuple(builder, signature.return_type, [builder.load(sine), builder.load(cosine)])

    return types.UniTuple(types.float64, 2)(types.float64), codegen


def _cos_sin_apart(angle: float) -> tuple[float, float]:
    """``(cos, sin)`` of ``angle`` (radians), each from its own call."""
    return math.cos(angle), math.sin(angle)


if config.DISABLE_JIT or not sys.platform.startswith("linux"):  # type: ignore[attr-defined]
    cos_sin = njit(cache=True, inline="always")(_cos_sin_apart)
else:

    @njit(cache=True, inline="always")
    def cos_sin(angle: float) -> tuple[float, float]:
        """``(cos, sin)`` of ``angle`` (radians). On Linux one call of the C library's ``sincos``,
        which gives the bits of ``cos`` and ``sin`` (glibc shares their reduction and
        polynomials) in about half the time of the two; elsewhere the two calls."""
        rotation: tuple[float, float] = _c_sincos(angle)  # type: ignore[call-arg]  # numba supplies typingctx
        return rotation[1], rotation[0]

    interpreter.stand_in(cos_sin, _cos_sin_apart)


@njit(cache=True, inline="always")
def mix_friction(a: float, b: float) -> float:
    """Friction (or static friction) of a pair of bodies with coefficients ``a`` and ``b``: their
    geometric mean, as Box2D mixes them (a frictionless body makes every pair frictionless)."""
    return math.sqrt(a * b)


@njit(cache=True, inline="always")
def mix_restitution(a: float, b: float) -> float:
    """Restitution of a pair of bodies: the larger of the two, as Box2D mixes it (a bouncy ball
    bounces off a dull floor)."""
    return max(a, b)


@njit(cache=True)
def shift_body_vertices(
    world_vertices: np.ndarray, vertex_count: np.ndarray, root: np.ndarray, body: int, dx: float, dy: float
) -> None:
    """Move the world-space vertices of every row of ``body`` (a root: itself and a compound's
    parts, the rows after it whose ``root`` is ``body``) by ``(dx, dy)``."""
    r = body
    while r < root.shape[0] and root[r] == body:
        for v in range(vertex_count[r]):
            world_vertices[r, v, 0] += dx
            world_vertices[r, v, 1] += dy
        r += 1


@njit(cache=True, inline="always")
def _edges_meet(
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, dx: float, dy: float
) -> bool:
    """Whether segment a-b meets segment c-d (touching counts)."""
    ex = bx - ax
    ey = by - ay
    o1 = ex * (cy - ay) - ey * (cx - ax)
    o2 = ex * (dy - ay) - ey * (dx - ax)
    fx = dx - cx
    fy = dy - cy
    o3 = fx * (ay - cy) - fy * (ax - cx)
    o4 = fx * (by - cy) - fy * (bx - cx)
    if o1 == 0.0 and o2 == 0.0:
        # Collinear edges meet when their boxes overlap on both axes.
        return max(min(ax, bx), min(cx, dx)) <= min(max(ax, bx), max(cx, dx)) and max(
            min(ay, by), min(cy, dy)
        ) <= min(max(ay, by), max(cy, dy))
    return o1 * o2 <= 0.0 and o3 * o4 <= 0.0


@njit(cache=True)
def first_crossing(points: np.ndarray) -> tuple[int, int]:
    """First pair of non-adjacent edges ``(i, j)`` of the closed outline ``points (n, 2)`` that
    meet (touching counts), or ``(-1, -1)``. Edge ``i`` runs from ``points[i]`` to
    ``points[(i + 1) % n]``. Every pair is tested: O(n^2), compiled (up to
    ``MAX_OUTLINE_VERTICES`` vertices, well under a second)."""
    n = points.shape[0]
    for i in range(n - 2):
        i1 = i + 1
        last = n - 1 if i > 0 else n - 2  # edge n-1 is adjacent to edge 0
        for j in range(i + 2, last + 1):
            j1 = j + 1 if j + 1 < n else 0
            if _edges_meet(
                points[i, 0], points[i, 1], points[i1, 0], points[i1, 1],
                points[j, 0], points[j, 1], points[j1, 0], points[j1, 1],
            ):  # fmt: skip
                return i, j
    return -1, -1


@njit(cache=True)
def smallest_feature(points: np.ndarray) -> tuple[float, int]:
    """The smallest feature of a valid shape ``points (k, 2)``, either orientation: ``(size, edge)``, a
    segment's length (edge 0), or a polygon's shortest edge (edge ``i`` runs from vertex ``i``
    to ``i + 1``) or its narrowest width (edge -1), whichever is smaller; a point has none,
    ``(inf, -1)``. Lengths by ``hypot``, so denormal ones are measured, not squared to 0."""
    k = points.shape[0]
    if k == 1:
        return math.inf, -1
    size = math.inf
    edge = -1
    for i in range(k if k > 2 else 1):
        j = i + 1 if i + 1 < k else 0
        length = math.hypot(points[j, 0] - points[i, 0], points[j, 1] - points[i, 1])
        if length < size:
            size = length
            edge = i
    if k > 2:
        width = math.inf
        for i in range(k):
            j = i + 1 if i + 1 < k else 0
            ex = points[j, 0] - points[i, 0]
            ey = points[j, 1] - points[i, 1]
            length = math.hypot(ex, ey)
            reach = 0.0
            for v in range(k):
                across = ex * (points[v, 1] - points[i, 1]) - ey * (points[v, 0] - points[i, 0])
                reach = max(reach, abs(across) / length)
            width = min(width, reach)
        if width < size:
            size = width
            edge = -1
    return size, edge


#: Runs of this many keys are sorted by insertion before the merge passes.
_SORT_RUN = 16


@njit(cache=True)
def stable_argsort(keys: np.ndarray) -> np.ndarray:
    """The indices ``(n,) int64`` that put ``keys (n,) float64`` in ascending order, equal keys
    in their original order: ``np.argsort(keys, kind="mergesort")`` for keys without NaN.

    A merge sort over runs sorted by insertion, O(n log n). numba's own argsort is compiled
    again for each key type and array layout, seconds of every cold start; this one is compiled
    once and given float64 keys (integer keys below 2**53 convert exactly)."""
    n = keys.shape[0]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[i] = i
    for start in range(0, n, _SORT_RUN):
        end = min(start + _SORT_RUN, n)
        for i in range(start + 1, end):
            moved = order[i]
            key = keys[moved]
            j = i
            while j > start and keys[order[j - 1]] > key:
                order[j] = order[j - 1]
                j -= 1
            order[j] = moved
    spare = np.empty(n, dtype=np.int64)
    width = _SORT_RUN
    while width < n:
        for left in range(0, n, 2 * width):
            middle = min(left + width, n)
            right = min(left + 2 * width, n)
            i = left
            j = middle
            for k in range(left, right):
                # Ties take the left run's index first: the sort is stable.
                if i < middle and (j >= right or keys[order[j]] >= keys[order[i]]):
                    spare[k] = order[i]
                    i += 1
                else:
                    spare[k] = order[j]
                    j += 1
        order, spare = spare, order
        width *= 2
    return order
