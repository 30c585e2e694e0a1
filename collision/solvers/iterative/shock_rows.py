"""The shock propagation's lift and stop passes over rows packed in walk order.

Each pass walks the manifolds from the ground up (see collision/solvers/iterative/shock.py)
and, read straight from the step's point arrays, every manifold costs a few scattered reads
(its link row, both points' normals, separations and arms). What a pass needs that does not
change between passes (which body is held, which point touches, the effective masses) is
gathered once into contiguous rows in walk order, so each pass reads its rows in sequence and
only the bodies' travels or velocities at random. The arithmetic is the plain passes' own,
operation for operation: the results are the same to the bit.

A manifold's points take columns ``P_*`` from their first column, the second point a copy of
the first in a one-point manifold (every use of it is a maximum or a minimum with the first's
value, or is skipped for such a manifold).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from collision.geometry import UNCOUNTED, Index, slot
from collision.kernels import compiled_only
from collision.solvers.iterative.narrowphase import Points
from collision.solvers.iterative.warm_start import Prepared, manifold_link
from collision.tolerances import SOLVER_BLOCK_CONDITION

#: A point's columns from its first: start-of-step separation (units), normal (from b toward
#: a), arms crossed with the normal (a's, b's).
P_SEPARATION, P_NX, P_NY, P_ARM_A, P_ARM_B = range(5)
POINT_COLUMNS = 5

#: Lift rows: ``(lift_index (r, 3) int64, lift_value (r, LIFT_COLUMNS))``; index columns body
#: a, body b, the body lifted; value columns below, then each point's (``P_*``) from
#: L_FIRST and L_SECOND.
L_A, L_B, L_UPPER = range(3)
L_RATE, L_TARGET_0, L_TARGET_1 = range(3)
L_FIRST = np.int64(3)  # not literals: the steps that take them compile once
L_SECOND = np.int64(L_FIRST + POINT_COLUMNS)
LIFT_COLUMNS = L_SECOND + POINT_COLUMNS

#: Stop rows: ``(stop_index (m, 6) int64, stop_value (m, STOP_COLUMNS))``; index columns body
#: a, body b, the held body (see ``shock._held``), whether each point touches, whether there
#: are two points; value columns each point's normal and arms, then the masses the pass moves
#: the bodies by (zero for the held body) and the block's entries.
S_A, S_B, S_HELD, S_TOUCH_0, S_TOUCH_1, S_TWO = range(6)
(
    S_NX_0, S_NY_0, S_ARM_A_0, S_ARM_B_0, S_NX_1, S_NY_1, S_ARM_A_1, S_ARM_B_1,
    S_IMA, S_IIA, S_IMB, S_IIB, S_K11, S_K12, S_K22,
) = range(15)  # fmt: skip
STOP_COLUMNS = 15
#: Where each point's columns start in a stop row (not literals, as L_FIRST), and its columns
#: from there: normal x, y, arms crossed with the normal (a's, b's).
S_FIRST, S_SECOND = np.int64(S_NX_0), np.int64(S_NX_1)
SP_NX, SP_NY, SP_ARM_A, SP_ARM_B = range(4)


@compiled_only(forceinline=True, **UNCOUNTED)
def separation_after(travel: np.ndarray, points: Points, prepared: Prepared, k: int) -> float:
    """Point ``k``'s separation now: start of step plus its bodies' ``travel (n, 3)`` (dx, dy,
    turn), the turn to first order (its arm crossed with the normal)."""
    a = slot(prepared.body_a[k])
    b = slot(prepared.body_b[k])
    nx = points.normal[k, 0]
    ny = points.normal[k, 1]
    dn = (travel[a, 0] - travel[b, 0]) * nx + (travel[a, 1] - travel[b, 1]) * ny
    turn = travel[a, 2] * prepared.cross_a[k, 0] - travel[b, 2] * prepared.cross_b[k, 0]
    return points.separation[k] + dn + turn


@compiled_only(forceinline=True, **UNCOUNTED)
def _row_separation(travel: np.ndarray, a: int, b: int, row: np.ndarray, at: int) -> float:
    """:func:`separation_after` of the point whose columns (``P_*``) start at ``row[at]``."""
    nx = row[at + P_NX]
    ny = row[at + P_NY]
    dn = (travel[slot(a), 0] - travel[slot(b), 0]) * nx + (travel[slot(a), 1] - travel[slot(b), 1]) * ny
    turn = travel[slot(a), 2] * row[at + P_ARM_A] - travel[slot(b), 2] * row[at + P_ARM_B]
    return row[at + P_SEPARATION] + dn + turn


@compiled_only(forceinline=True, **UNCOUNTED)
def _put_point(row: np.ndarray, at: int, points: Points, prepared: Prepared, k: int) -> None:
    row[at + P_SEPARATION] = points.separation[k]
    row[at + P_NX] = points.normal[k, 0]
    row[at + P_NY] = points.normal[k, 1]
    row[at + P_ARM_A] = prepared.cross_a[k, 0]
    row[at + P_ARM_B] = prepared.cross_b[k, 0]


@compiled_only()
def lift_rows(
    points: Points, prepared: Prepared, walk: tuple, held: np.ndarray, keep: tuple, up: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """The manifolds a lift pass moves a body on, in ``walk`` (``(link, order, layer)``) order:
    those with a held body (``held (g,)``, see ``shock._held``) whose upper body is not wedged.
    ``keep`` = ``(wedged (n,) bool, loaded (g,) bool, floor (c,), slop)``: a loaded manifold's
    points are lifted to ``-slop``, another's to no deeper than its ``floor``. Returns the
    rows (see L_*)."""
    link, order, _ = walk
    wedged, loaded, floor, slop = keep
    index = np.empty((order.shape[0], 3), dtype=np.int64)
    value = np.empty((order.shape[0], LIFT_COLUMNS))
    r = 0
    for gg in range(order.shape[0]):
        g = order[gg]
        a, b, k0, k1 = manifold_link(link, g)
        hold = held[g]
        if hold == 0:
            continue
        upper = b if hold == 1 else a
        if wedged[upper]:
            continue
        index[r, L_A] = a
        index[r, L_B] = b
        index[r, L_UPPER] = upper
        # Separation gained per unit the upper body rises.
        rate = points.normal[k0, 0] * up[0] + points.normal[k0, 1] * up[1]
        value[r, L_RATE] = rate if hold == 2 else -rate
        value[r, L_TARGET_0] = -slop if loaded[g] else min(floor[k0], -slop)
        value[r, L_TARGET_1] = -slop if loaded[g] else min(floor[k1], -slop)
        _put_point(value[r], L_FIRST, points, prepared, k0)
        _put_point(value[r], L_SECOND, points, prepared, k1)
        r += 1
    return index[:r], value[:r]


@compiled_only(**UNCOUNTED)
def lift_pass(travel: np.ndarray, budget: np.ndarray, rows: tuple, up: tuple[float, float]) -> None:
    """One pass over the lift ``rows`` (see :func:`lift_rows`): each upper body lifted straight
    up (against gravity, the way it sank: a push along a sloped normal would walk it sideways,
    step by step) until no point of the row is below its target, moving ``travel (n, 3)``, and
    no further than its ``budget (n,)`` (units), spent as it moves."""
    index, value = rows
    for r in range(index.shape[0]):
        a = index[r, L_A]
        b = index[r, L_B]
        upper = slot(index[r, L_UPPER])
        row = value[r]
        rate = row[L_RATE]
        rise = max(0.0, (row[L_TARGET_0] - _row_separation(travel, a, b, row, L_FIRST)) / rate)
        rise = max(rise, (row[L_TARGET_1] - _row_separation(travel, a, b, row, L_SECOND)) / rate)
        rise = min(rise, budget[upper])
        if rise <= 0.0:
            continue
        travel[upper, 0] += rise * up[0]
        travel[upper, 1] += rise * up[1]
        budget[upper] -= rise


@compiled_only()
def stop_room(groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Room for the stop rows of ``groups`` manifolds: ``(index (groups, 6) int64, value
    (groups, STOP_COLUMNS))``."""
    return np.empty((groups, 6), dtype=np.int64), np.empty((groups, STOP_COLUMNS))


@compiled_only()
def stop_rows(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, held: np.ndarray, masses: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """The manifolds the stop passes visit, in ``walk`` (``(link, order, layer)``) order: those
    with a touching point (separation <= 0 after ``travel``) and a body the pass can move
    (``masses``: the solver's ``(inv_mass, inv_inertia)``, the held body's counted as zero).
    Returns the rows (see S_*); the travels do not change between the passes, so neither do
    they. On one thread; a big world's step makes a row per manifold of the walk in its place
    on two (:func:`stop_values`, then :func:`stop_touches`), those that make no stop with
    neither touch flag (S_TOUCH_0, S_TOUCH_1) set, which :func:`stop_pass` skips, so the passes
    are the same (moving the kept rows up took as long as making them)."""
    index, value = stop_room(walk[1].shape[0])
    m = _stop_rows_in_order(travel, points, prepared, walk, held, masses, (index, value))
    return index[:m], value[:m]


# The loops over manifolds are compiled without numba's reference counting (UNCOUNTED, see
# collision/geometry.py): counting the arrays handed to each manifold's row costs an atomic
# operation per manifold.
@compiled_only(**UNCOUNTED)
def _stop_rows_in_order(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, held: np.ndarray, masses: tuple,
    out: tuple,
) -> Index:  # fmt: skip
    """The stop rows (see :func:`stop_rows`) into the first rows of ``out`` = ``(index,
    value)``; returns how many."""
    m: Index = np.int64(0)  # not a literal: _stop_row would be compiled for it too
    for gg in range(walk[1].shape[0]):
        if _stop_row(travel, points, prepared, walk, held, masses, gg, out, m):
            m += 1
    return m


@compiled_only(forceinline=True, **UNCOUNTED)
def _stop_row(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, held: np.ndarray, masses: tuple,
    gg: int, out: tuple, m: int,
) -> bool:  # fmt: skip
    """The ``gg``-th manifold of the walk's stop row into row ``m`` of ``out`` = ``(index,
    value)`` if it makes one (see :func:`stop_rows`); whether it does."""
    touch0, touch1 = _touches(travel, points, prepared, walk, gg)
    if not (touch0 or touch1):
        return False
    if not _stop_values(points, prepared, walk, held, masses, gg, out, m):
        return False
    index = out[0]
    index[m, S_TOUCH_0] = touch0
    index[m, S_TOUCH_1] = touch1
    return True


@compiled_only(forceinline=True, **UNCOUNTED)
def _touches(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, gg: int
) -> tuple[bool, bool]:
    """Whether each point of the ``gg``-th manifold of the walk touches after ``travel``."""
    link, order, _ = walk
    _, _, k0, k1 = manifold_link(link, order[gg])
    touch0 = separation_after(travel, points, prepared, k0) <= 0.0
    # A one-point manifold's second point is its first.
    touch1 = touch0 if k1 == k0 else separation_after(travel, points, prepared, k1) <= 0.0
    return touch0, touch1


@compiled_only(forceinline=True, **UNCOUNTED)
def _stop_values(
    points: Points, prepared: Prepared, walk: tuple, held: np.ndarray, masses: tuple, gg: int, out: tuple,
    m: int,
) -> bool:  # fmt: skip
    """The ``gg``-th manifold of the walk's stop row but its touch flags into row ``m`` of
    ``out`` = ``(index, value)``, if the pass can move one of its bodies; whether it can."""
    link, order, _ = walk
    index, value = out
    inv_mass, inv_inertia = masses
    g = order[gg]
    a, b, k0, k1 = manifold_link(link, g)
    hold = held[g]
    ima = 0.0 if hold == 1 else inv_mass[a]
    iia = 0.0 if hold == 1 else inv_inertia[a]
    imb = 0.0 if hold == 2 else inv_mass[b]
    iib = 0.0 if hold == 2 else inv_inertia[b]
    rna0 = prepared.cross_a[k0, 0]
    rnb0 = prepared.cross_b[k0, 0]
    rna1 = prepared.cross_a[k1, 0]
    rnb1 = prepared.cross_b[k1, 0]
    k11 = ima + imb + iia * rna0 * rna0 + iib * rnb0 * rnb0
    if k11 <= 0.0:  # nothing the pass may move: it would skip the row
        return False
    index[m, S_A] = a
    index[m, S_B] = b
    index[m, S_HELD] = hold
    index[m, S_TWO] = k1 != k0
    row = value[m]
    row[S_NX_0] = points.normal[k0, 0]
    row[S_NY_0] = points.normal[k0, 1]
    row[S_ARM_A_0] = rna0
    row[S_ARM_B_0] = rnb0
    row[S_NX_1] = points.normal[k1, 0]
    row[S_NY_1] = points.normal[k1, 1]
    row[S_ARM_A_1] = rna1
    row[S_ARM_B_1] = rnb1
    row[S_IMA] = ima
    row[S_IIA] = iia
    row[S_IMB] = imb
    row[S_IIB] = iib
    row[S_K11] = k11
    row[S_K12] = ima + imb + iia * rna0 * rna1 + iib * rnb0 * rnb1
    row[S_K22] = ima + imb + iia * rna1 * rna1 + iib * rnb1 * rnb1
    return True


@compiled_only(**UNCOUNTED)
def stop_values(
    points: Points, prepared: Prepared, walk: tuple, held: np.ndarray, masses: tuple, out: tuple
) -> None:
    """Every stop row (see :func:`stop_rows`) in its place but its touch flags, on this
    thread: they read no travel or velocity, so the rows can be made beside restitution and the
    lift and touched by :func:`stop_touches` after them. A row the pass cannot move gets
    ``S_K11`` 0."""
    value = out[1]
    for gg in range(walk[1].shape[0]):
        if not _stop_values(points, prepared, walk, held, masses, gg, out, gg):
            value[gg, S_K11] = 0.0


@compiled_only(parallel=True, **UNCOUNTED)
def stop_touches(travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, out: tuple) -> None:
    """The touch flags of the rows :func:`stop_values` made into ``out``, after ``travel``, on
    numba's threads: a row the pass cannot move touches nowhere, and :func:`stop_pass` skips
    it as one whose points are all apart."""
    for gg in prange(walk[1].shape[0]):
        _touch_in_place(travel, points, prepared, walk, gg, out)


@compiled_only(forceinline=True, **UNCOUNTED)
def _touch_in_place(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, gg: int, out: tuple
) -> None:
    """:func:`stop_touches` of row ``gg``."""
    index, value = out
    touch0, touch1 = _touches(travel, points, prepared, walk, gg)
    movable = not value[gg, S_K11] <= 0.0
    index[gg, S_TOUCH_0] = touch0 and movable
    index[gg, S_TOUCH_1] = touch1 and movable


@compiled_only(forceinline=True, **UNCOUNTED)
def _stopping_speed(velocity: tuple, a: int, b: int, held: int, row: np.ndarray, at: int) -> float:
    """The closing speed (negative: closing) of the point whose normal and arms start at
    ``row[at]`` that the stop pass removes: with a held body (``held`` 1: a, 2: b, 0: neither)
    the upper body is stopped, never lifted: a held body rising into it leaves it at rest, so
    what pushes the lower body up is not handed on without its reaction."""
    linear, angular = velocity
    ia = slot(a)
    ib = slot(b)
    nx = row[at + SP_NX]
    ny = row[at + SP_NY]
    dvx = linear[ia, 0] - linear[ib, 0]
    dvy = linear[ia, 1] - linear[ib, 1]
    vn = dvx * nx + dvy * ny
    vn = vn + angular[ia] * row[at + SP_ARM_A] - angular[ib] * row[at + SP_ARM_B]
    if held == 2:
        rise = linear[ib, 0] * nx + linear[ib, 1] * ny + angular[ib] * row[at + SP_ARM_B]
        return vn + max(rise, 0.0)
    if held == 1:
        rise = -(linear[ia, 0] * nx + linear[ia, 1] * ny + angular[ia] * row[at + SP_ARM_A])
        return vn + max(rise, 0.0)
    return vn


@compiled_only(forceinline=True, **UNCOUNTED)
def two_point_lcp(k11: float, k12: float, k22: float, c0: float, c1: float) -> tuple[float, float]:
    """The least pushes ``x >= 0`` with ``K x + c >= 0`` and ``x_i (K x + c)_i = 0`` (``K``
    symmetric positive definite); a nearly singular ``K`` (the points act as one) gets the
    deeper point's push alone."""
    det = k11 * k22 - k12 * k12
    if det > SOLVER_BLOCK_CONDITION * k11 * k22:
        x0 = -(k22 * c0 - k12 * c1) / det
        x1 = -(k11 * c1 - k12 * c0) / det
        if x0 >= 0.0 and x1 >= 0.0:
            return x0, x1
    x0 = -c0 / k11
    if x0 >= 0.0 and k12 * x0 + c1 >= 0.0 and c0 <= c1:
        return x0, 0.0
    x1 = -c1 / k22
    if x1 >= 0.0 and k12 * x1 + c0 >= 0.0:
        return 0.0, x1
    return max(x0, 0.0), 0.0


@compiled_only(**UNCOUNTED)
def stop_pass(velocity: tuple, rows: tuple) -> None:
    """One Gauss-Seidel pass over the stop ``rows`` (see :func:`stop_rows`): touching points
    that still close get the impulses that stop them (a two-point manifold as a 2 x 2 block),
    the held body not moved; changes ``velocity`` (``linear (n, 2)``, ``angular (n,)``)."""
    linear, angular = velocity
    index, value = rows
    for r in range(index.shape[0]):
        a = index[r, S_A]
        b = index[r, S_B]
        held = index[r, S_HELD]
        row = value[r]
        c0 = 0.0
        c1 = 0.0
        if index[r, S_TOUCH_0]:
            c0 = _stopping_speed(velocity, a, b, held, row, S_FIRST)
        if index[r, S_TOUCH_1]:
            c1 = _stopping_speed(velocity, a, b, held, row, S_SECOND)
        if c0 >= 0.0 and c1 >= 0.0:
            continue
        k11 = row[S_K11]
        if index[r, S_TWO]:
            x0, x1 = two_point_lcp(k11, row[S_K12], row[S_K22], c0, c1)
        else:
            x0 = max(-c0 / k11, 0.0)
            x1 = 0.0
        nx = row[S_NX_0]
        ny = row[S_NY_0]
        ima = row[S_IMA]
        iia = row[S_IIA]
        imb = row[S_IMB]
        iib = row[S_IIB]
        x = x0 + x1
        ia = slot(a)
        ib = slot(b)
        linear[ia, 0] += ima * x * nx
        linear[ia, 1] += ima * x * ny
        angular[ia] += iia * (x0 * row[S_ARM_A_0] + x1 * row[S_ARM_A_1])
        linear[ib, 0] -= imb * x * nx
        linear[ib, 1] -= imb * x * ny
        angular[ib] -= iib * (x0 * row[S_ARM_B_0] + x1 * row[S_ARM_B_1])
