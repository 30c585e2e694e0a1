"""Eight lanes at once: the narrowphase's loops over a shape's faces as vector code.

numba compiles :func:`collision.manifold.face_separation`'s loops to scalar code: per face a
chain of 3-8 minimum operations over the other shape's vertices, then a branch. On the
1000-body pile at rest that was about 60% of the manifolds' time. Here lane i holds face i of a
shape of up to LANES vertices (collision/simd.py's vectors): every face's projection of each
vertex in one vector operation. The edge normals the test reads
(:func:`collision.manifold.edge_normals`: a square root and two divisions per edge) are found
the same way, every edge at once. Each lane does the loop's operations in the loop's order, so
its result is the loop's bit for bit; LLVM picks AVX-512, AVX2 or SSE2 for the machine.

With the JIT off, or while the engine runs interpreted (collision/interpreter.py), the loops
stand in.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from collision import interpreter
from collision.geometry import UNCOUNTED, Index
from collision.kernels import compiled_only
from collision.simd import (
    LANES,
    VECTOR,
    below,
    first_equal,
    following,
    largest,
    splat,
    sqrt,
    store_xy_rows,
    where,
    xy_rows,
)
from collision.tolerances import MANIFOLD_DEGENERATE_LENGTH


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


@njit(cache=True, inline="always")
def fits_lanes(vertices: np.ndarray, count: int) -> bool:
    """Whether a shape of ``count`` vertices in the rows ``vertices (m, 2)`` (or its edge
    normals) suits the vector code: at most LANES vertices, at least LANES rows to load."""
    return count <= LANES and vertices.shape[0] >= LANES


@compiled_only(forceinline=True, **UNCOUNTED)
def faces_beyond(
    p: np.ndarray, pn: np.ndarray, kp: int, q: np.ndarray, kq: int, floor: float, stop: float
) -> tuple[float, Index]:
    """:func:`face_loop` for shapes that :func:`fits_lanes` (C-contiguous float64 rows), lane i
    face i: the same answer, bit for bit, except where a face's separation exceeds ``stop``:
    the largest then, where the loop stops at the first."""
    px, py = xy_rows(p)
    nx, ny = xy_rows(pn)
    lowest = splat(math.inf)
    for j in range(kq):
        d = nx * (q[j, 0] - px) + ny * (q[j, 1] - py)
        lowest = where(d < lowest, d, lowest)
    # Faces past kp, and degenerate faces (normal 0, 0), take no part.
    values = where(below(kp) & ((nx != 0.0) | (ny != 0.0)), lowest, splat(-math.inf))
    face, top = first_equal(values, largest(values))
    if top > floor:
        return top, face
    return floor, np.int64(0)


@compiled_only(forceinline=True, **UNCOUNTED)
def normals_at_once(v: np.ndarray, k: int, out: np.ndarray) -> None:
    """:func:`normal_loop` for a shape that :func:`fits_lanes` (``k >= 2``), lane i edge i: the
    same normals, bit for bit; ``out``'s rows from k to LANES are overwritten too."""
    x, y = xy_rows(v)
    # Rows past k hold anything: zeros instead, whose edges are degenerate.
    live = below(k)
    x = where(live, x, splat(0.0))
    y = where(live, y, splat(0.0))
    ex = following(x, k) - x
    ey = following(y, k) - y
    length = sqrt(ex * ex + ey * ey)
    degenerate = length < MANIFOLD_DEGENERATE_LENGTH
    store_xy_rows(
        out, where(degenerate, splat(0.0), ey / length), where(degenerate, splat(0.0), -ex / length)
    )


if VECTOR:
    interpreter.stand_in(faces_beyond, face_loop.py_func)
    interpreter.stand_in(normals_at_once, normal_loop.py_func)
