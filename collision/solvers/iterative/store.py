"""The soft step's results stored back (:func:`store_results`: the bodies' velocities, the
points' impulses) and the step's contact points packed for Python and for the next step's warm
start (:func:`pack_contacts`).

Few arrays cross into Python (each costs the call to box): ``index``, ``vectors`` and ``values``
(see :func:`pack_contacts`), whose rows the Contacts and the warm-start store are views of. The
copies run row by row, each a loop over contiguous memory that LLVM vectorises (the 1000-body
pile at rest: World.profile's store stage 0.020 ms a step, 0.025 ms with one loop writing each
point's 21 values across the three arrays).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from collision.geometry import UNCOUNTED, slot
from collision.kernels import compiled_only, stage
from collision.solvers.iterative.columns import B_VX, B_VY, B_W, P_MAXNI, P_NI, P_TI
from collision.solvers.iterative.narrowphase import Points
from collision.solvers.iterative.warm_start import Prepared

#: Rows of the warm-start store a step's contact points leave for the next (``prev_store``):
#: last substep's normal and tangent impulse, the point's middle x, y and normal x, y.
STORE_ROWS = 6


@njit(cache=True, inline="always")
def _copy_rows(out: np.ndarray, rows: tuple) -> None:
    """Row ``q`` of ``out (r, c)`` <- ``rows[q] (c,)`` for each of the ``r`` rows."""
    for q in range(len(rows)):
        target = out[q]
        row = rows[q]
        for k in range(target.shape[0]):
            target[k] = row[k]


@compiled_only(**UNCOUNTED)
def _store_values(values: np.ndarray, points: Points, prepared: Prepared, totals: tuple) -> None:
    """``values`` of :func:`pack_contacts` (see there) from the points, their prepared impulses
    and ``totals``."""
    point_a = points.point_a
    point_b = points.point_b
    normal = points.normal
    _copy_rows(values[:2], (prepared.normal_impulse, prepared.tangent_impulse))
    _copy_rows(values[STORE_ROWS:], (points.separation, prepared.toi, *totals))
    middle_x = values[2]
    middle_y = values[3]
    normal_x = values[4]
    normal_y = values[5]
    for k in range(values.shape[1]):
        middle_x[k] = 0.5 * (point_a[k, 0] + point_b[k, 0])
        middle_y[k] = 0.5 * (point_a[k, 1] + point_b[k, 1])
        normal_x[k] = normal[k, 0]
        normal_y[k] = normal[k, 1]


@njit(cache=True, inline="always")
def packed_room(c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Room for :func:`pack_contacts`' arrays of ``c`` points."""
    return np.empty((5, c), dtype=np.int64), np.empty((3, c, 2)), np.empty((STORE_ROWS + 4, c))


@njit(cache=True, inline="always")
def pack_contacts_into(
    points: Points, c: int, prepared: Prepared, totals: tuple, rows: tuple, packed: tuple
) -> None:
    """:func:`pack_contacts` into ``packed`` (see :func:`packed_room`)."""
    index, vectors, values = packed
    _copy_rows(index, (prepared.body_a, prepared.body_b, points.key, *rows))
    # Each point's (x, y) pairs as one row of 2 c values (the arrays are C-ordered).
    flat = (points.point_a.reshape(-1), points.point_b.reshape(-1), points.normal.reshape(-1))
    _copy_rows(vectors.reshape((3, 2 * c)), flat)
    _store_values(values, points, prepared, totals)


@stage()
def pack_contacts(
    points: Points, c: int, prepared: Prepared, totals: tuple, rows: tuple
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The step's contact points packed so that few arrays cross into Python: ``index (5, c)
    int64`` rows body_a, body_b, feature key, row_a, row_b; ``vectors (3, c, 2)`` point_a,
    point_b, normal; ``values (10, c)``: rows 0-5 the warm-start store (last substep's normal
    and tangent impulse, the points' middles x, y, normals x, y), rows 6-9 separation, toi
    and ``totals`` (normal and tangent impulse over the step, N s)."""
    packed = packed_room(c)
    pack_contacts_into(points, c, prepared, totals, rows, packed)
    return packed


# A kernel inlined by LLVM, not by numba: numba's dead-code removal can drop the writes of a
# step it inlines into a parallel loop's body (tests/collision/test_parallel_stores.py).
@compiled_only(forceinline=True, **UNCOUNTED)
def _store_manifold(
    point: tuple, packed_total: np.ndarray, link: np.ndarray, perm: np.ndarray, prepared: Prepared,
    out: tuple, g: int,
) -> None:  # fmt: skip
    """Manifold ``g``'s points' columns (``point`` = ``(first, second)``) back to the prepared
    points: the last substep's impulses, and into ``out`` = ``(max_normal_impulse, total_normal,
    total_tangent)`` the largest normal impulse and the totals over the substeps."""
    first, second = point
    max_normal_impulse, total_normal, total_tangent = out
    q0 = link[g, 2]
    if link[g, 3] == q0:
        return  # an empty manifold
    k = slot(perm[q0])
    prepared.normal_impulse[k] = first[P_NI, g]
    prepared.tangent_impulse[k] = first[P_TI, g]
    max_normal_impulse[k] = first[P_MAXNI, g]
    total_normal[k] = packed_total[0, 0, g]
    total_tangent[k] = packed_total[0, 1, g]
    if link[g, 3] - q0 == 2:
        k = slot(perm[q0 + 1])
        prepared.normal_impulse[k] = second[P_NI, g]
        prepared.tangent_impulse[k] = second[P_TI, g]
        max_normal_impulse[k] = second[P_MAXNI, g]
        total_normal[k] = packed_total[1, 0, g]
        total_tangent[k] = packed_total[1, 1, g]


@njit(cache=True, inline="always")
def store_results(
    velocity: np.ndarray, angular_velocity: np.ndarray, body: np.ndarray, point: tuple, packed: tuple,
    prepared: Prepared, out: tuple,
) -> None:  # fmt: skip
    """:func:`store_results_threaded` on one thread."""
    packed_total, link, perm = packed
    for i in range(velocity.shape[0]):
        velocity[i, 0] = body[i, B_VX]
        velocity[i, 1] = body[i, B_VY]
        angular_velocity[i] = body[i, B_W]
    for g in range(link.shape[0]):
        _store_manifold(point, packed_total, link, perm, prepared, out, g)


@compiled_only(forceinline=True, **UNCOUNTED)
def _store_half(
    half: int, velocity: np.ndarray, angular_velocity: np.ndarray, body: np.ndarray, point: tuple,
    packed: tuple, prepared: Prepared, out: tuple,
) -> None:  # fmt: skip
    """Half ``half`` (0, 1) of :func:`store_results_threaded`: that half of the body rows, and the
    manifolds whose points are in that half of the points (a manifold's points are
    consecutive), so the two halves never write to one cache line but at the middle. Inlined
    by LLVM, not numba: stores numba inlines into a threaded loop's body can be lost."""
    packed_total, link, perm = packed
    n = velocity.shape[0]
    for i in range(half * (n // 2), n if half else n // 2):
        velocity[i, 0] = body[i, B_VX]
        velocity[i, 1] = body[i, B_VY]
        angular_velocity[i] = body[i, B_W]
    middle = perm.shape[0] // 2
    for g in range(link.shape[0]):
        if link[g, 3] > link[g, 2] and (perm[link[g, 2]] >= middle) == (half == 1):
            _store_manifold(point, packed_total, link, perm, prepared, out, g)


@compiled_only(parallel=True, **UNCOUNTED)
def store_results_threaded(
    velocity: np.ndarray, angular_velocity: np.ndarray, body: np.ndarray, point: tuple, packed: tuple,
    prepared: Prepared, out: tuple,
) -> None:  # fmt: skip
    """The soft step's results back to the bodies' ``velocity``, ``angular_velocity`` and, as
    :func:`_store_manifold` does, to the ``prepared`` points (``point`` = ``(first, second)``
    columns, ``packed`` = ``(packed_total, link, perm)``), in two halves on numba's threads
    (:func:`_store_half`). Split by where the points are stored, not by manifold: manifolds in
    colour order store to points all over, and two threads writing to the same cache lines
    took as long as one thread. The record is an argument of its own: numba's parallel loop
    cannot rebuild one unpacked from a tuple."""
    for half in prange(2):
        _store_half(half, velocity, angular_velocity, body, point, packed, prepared, out)
