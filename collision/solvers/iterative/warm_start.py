"""Preparing the iterative solver's contact points, and warm starting them from last step's.

1. :func:`prepare_points`: per point its arms (as cross products with the normal and the
   tangent), effective masses, materials and approach speed (:func:`prepare_manifolds`), then
   the match with last step's point of the same (body_a, body_b, feature key), or else the
   nearest unclaimed one of the same pair within ``match_distance`` and with a normal within
   ``match_cosine`` (cosine of the angle) of its own (:func:`match_previous`), which gives its
   warm-start impulses and its state (new, persisting, speculative); and per two-point
   manifold the 2 x 2 normal mass for the block solver (:class:`Manifolds`).

It takes the manifolds as runs of one pair's points (:func:`run_offsets`). The point lists of
both steps are in (body_a, body_b) order, so matching is one merge walk on one thread; on
several, each manifold finds its pair's previous points by bisection.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from collision.bodies import Bodies
from collision.contacts import CONTACT_NEW, CONTACT_PERSISTING, CONTACT_SPECULATIVE
from collision.geometry import UNCOUNTED, Index, mix_friction, mix_restitution, slot
from collision.kernels import compiled_only, stage
from collision.solvers.iterative.narrowphase import Points
from collision.tolerances import SOLVER_BLOCK_CONDITION


class Prepared(NamedTuple):
    """The solver's view of ``c`` contact points: ``body_a``, ``body_b (c,) int64`` the rows
    (compound parts until the driver hands them to their roots); ``cross_a``, ``cross_b (c,
    2)`` the arms crossed with the normal (column 0) and the tangent ``(-ny, nx)`` (column 1);
    ``normal_mass``, ``tangent_mass (c,)`` effective masses (kg); ``friction``, ``restitution
    (c,)`` the pair's mixed materials; ``approach (c,)`` normal speed before solving (units/s,
    negative when closing); ``normal_impulse``, ``tangent_impulse (c,)`` accumulated impulses
    (N s; the warm start on entry to the solve); ``toi (c,)`` s; ``state (c,) int8``."""

    body_a: np.ndarray
    body_b: np.ndarray
    cross_a: np.ndarray
    cross_b: np.ndarray
    normal_mass: np.ndarray
    tangent_mass: np.ndarray
    friction: np.ndarray
    restitution: np.ndarray
    approach: np.ndarray
    normal_impulse: np.ndarray
    tangent_impulse: np.ndarray
    toi: np.ndarray
    state: np.ndarray


class Manifolds(NamedTuple):
    """Runs of points of one pair: manifold ``g`` owns points ``offsets[g]:offsets[g + 1]``
    (``offsets (g + 1,) int64``); ``block (g, 7)``, for two-point manifolds, the 2 x 2 normal
    effective mass K (k11, k12, k22), its inverse (i11, i12, i22) and 1.0 when it is well
    conditioned enough for the block solver (else 0.0)."""

    offsets: np.ndarray
    block: np.ndarray


@compiled_only()
def empty_prepared(c: int) -> Prepared:
    """Room for ``c`` prepared points (their impulses and time of impact zero): rows of five
    arrays, not thirteen (each allocation and its release costs about as much as preparing a
    manifold)."""
    bodies = np.empty((2, c), dtype=np.int64)
    arms = np.empty((2, c, 2))
    values = np.empty((5, c))
    zeros = np.zeros((3, c))
    return Prepared(
        bodies[0],
        bodies[1],
        arms[0],
        arms[1],
        values[0],
        values[1],
        values[2],
        values[3],
        values[4],
        zeros[0],
        zeros[1],
        zeros[2],
        np.empty(c, dtype=np.int8),
    )


@compiled_only()
def run_offsets(pair_index: np.ndarray, c: int) -> np.ndarray:
    """``offsets (g + 1,) int64``: the runs of one pair's points among the first ``c`` of
    ``pair_index`` (in pair order); manifold ``g`` owns points ``offsets[g]:offsets[g + 1]``."""
    buffer = np.empty(c + 1, dtype=np.int64)
    if c == 0:
        buffer[0] = 0
        return buffer[:1]
    buffer[0] = 0
    groups: Index = np.int64(1)
    # Every point is written and the count moves on by the test: runs are one or two points
    # long, and a branch on a run's end would be guessed wrong about half the time.
    for k in range(1, c):
        buffer[groups] = k
        groups += np.int64(pair_index[k] != pair_index[k - 1])
    buffer[groups] = c
    return buffer[: groups + 1]


@compiled_only()
def prepare_manifolds(
    bodies: Bodies, masses: tuple, pairs: np.ndarray, points: Points, offsets: np.ndarray, dt: float,
    threads: int | None,
) -> tuple[Prepared, Manifolds]:  # fmt: skip
    """The points of the manifolds ``offsets`` (see :func:`run_offsets`), one by one: arms from
    the bodies' centroids to the middle of each point's two ends, effective masses with
    ``masses`` = ``(inv_mass, inv_inertia)`` (n,) (zero for bodies that do not move this step;
    a compound's part has its root's), materials, approach speed, and each point's state on its
    own (new, or speculative with its time of impact); impulses 0; and the manifolds with their
    blocks (see :class:`Manifolds`). On numba's threads when ``threads`` is 2 or more (None: a
    small world's step, which does not compile the threaded loop)."""
    prepared = empty_prepared(offsets[-1])
    block = np.zeros((offsets.shape[0] - 1, 7))
    rows = (bodies.position, bodies.velocity, bodies.angular_velocity, bodies.friction, bodies.restitution)
    if threads is None:
        _prepare_rows(rows, masses, pairs, points, offsets, dt, prepared, block)
    elif threads < 2:
        _prepare_rows(rows, masses, pairs, points, offsets, dt, prepared, block)
    else:
        _prepare_rows_threaded(rows, masses, pairs, points, offsets, dt, prepared, block)
    return prepared, Manifolds(offsets, block)


# The loops over manifolds are compiled without numba's reference counting (UNCOUNTED, see
# collision/geometry.py): they allocate nothing, and counting the arrays handed to each
# manifold's step cost an atomic operation per manifold.
@compiled_only(**UNCOUNTED)
def _prepare_rows(
    rows: tuple, masses: tuple, pairs: np.ndarray, points: Points, offsets: np.ndarray, dt: float,
    prepared: Prepared, block: np.ndarray,
) -> None:  # fmt: skip
    """:func:`prepare_manifolds`' loop, writing into ``prepared`` and ``block``: ``rows`` =
    ``(position, velocity, angular_velocity, friction, restitution)`` of the bodies."""
    for g in range(offsets.shape[0] - 1):
        _prepare_run(rows, masses, pairs, points, (offsets[g], offsets[g + 1]), dt, (prepared, block), g)


@compiled_only(parallel=True, **UNCOUNTED)
def _prepare_rows_threaded(
    rows: tuple, masses: tuple, pairs: np.ndarray, points: Points, offsets: np.ndarray, dt: float,
    prepared: Prepared, block: np.ndarray,
) -> None:  # fmt: skip
    """:func:`_prepare_rows` on numba's threads (each manifold's rows its own)."""
    for g in prange(offsets.shape[0] - 1):
        _prepare_run(rows, masses, pairs, points, (offsets[g], offsets[g + 1]), dt, (prepared, block), g)


# Inlined by numba: a small world compiles only the one-thread loop, so it is typed once, where
# a kernel of its own would be linked and optimised again into each loop (cold start).
@njit(cache=True, inline="always")
def _prepare_run(
    rows: tuple, masses: tuple, pairs: np.ndarray, points: Points, run: tuple, dt: float, out: tuple,
    g: int,
) -> None:  # fmt: skip
    """Manifold ``g``'s points ``run`` = ``(first, last)`` (exclusive) prepared into ``out`` =
    ``(prepared, block)``, and its row of ``block`` (see :func:`prepare_manifolds`)."""
    position, velocity, angular_velocity, friction_body, restitution_body = rows
    inv_mass, inv_inertia = masses
    point_a = points.point_a
    point_b = points.point_b
    normal = points.normal
    separation = points.separation
    prepared, block = out
    body_a, body_b, cross_a, cross_b, normal_mass, tangent_mass = prepared[:6]
    friction, restitution, approach, _, _, toi, state = prepared[6:]
    first, last = run
    p = slot(points.pair_index[first])
    a = pairs[p, 0]
    b = pairs[p, 1]
    ia = slot(a)
    ib = slot(b)
    pax = position[ia, 0]
    pay = position[ia, 1]
    pbx = position[ib, 0]
    pby = position[ib, 1]
    ima = inv_mass[ia]
    imb = inv_mass[ib]
    iia = inv_inertia[ia]
    iib = inv_inertia[ib]
    va_x = velocity[ia, 0]
    va_y = velocity[ia, 1]
    wa = angular_velocity[ia]
    vb_x = velocity[ib, 0]
    vb_y = velocity[ib, 1]
    wb = angular_velocity[ib]
    mu = mix_friction(friction_body[ia], friction_body[ib])
    e = mix_restitution(restitution_body[ia], restitution_body[ib])
    for k in range(first, last):
        body_a[k] = a
        body_b[k] = b
        mx = 0.5 * (point_a[k, 0] + point_b[k, 0])
        my = 0.5 * (point_a[k, 1] + point_b[k, 1])
        rax = mx - pax
        ray = my - pay
        rbx = mx - pbx
        rby = my - pby
        nx = normal[k, 0]
        ny = normal[k, 1]
        rna = rax * ny - ray * nx
        rnb = rbx * ny - rby * nx
        kn = ima + imb + iia * rna * rna + iib * rnb * rnb
        normal_mass[k] = 1.0 / kn if kn > 0.0 else 0.0
        rta = rax * nx + ray * ny  # cross(r, t) with t = (-ny, nx)
        rtb = rbx * nx + rby * ny
        cross_a[k, 0] = rna
        cross_a[k, 1] = rta
        cross_b[k, 0] = rnb
        cross_b[k, 1] = rtb
        kt = ima + imb + iia * rta * rta + iib * rtb * rtb
        tangent_mass[k] = 1.0 / kt if kt > 0.0 else 0.0
        friction[k] = mu
        restitution[k] = e
        dvx = va_x - wa * ray - vb_x + wb * rby
        dvy = va_y + wa * rax - vb_y - wb * rbx
        vn = dvx * nx + dvy * ny
        approach[k] = vn
        s = separation[k]
        if s > 0.0:
            state[k] = CONTACT_SPECULATIVE
            toi[k] = min(s / -vn, dt) if vn < 0.0 else dt
        else:
            state[k] = CONTACT_NEW
    if last - first == 2:
        _block_row(block, g, ima + imb, (iia, iib), cross_a, cross_b, first)


# Inlined by LLVM (forceinline), not by numba: inlined by numba into the threaded loop's body
# (as _prepare_run is), its writes to ``block`` were lost.
@compiled_only(forceinline=True, **UNCOUNTED)
def _block_row(
    block: np.ndarray, g: int, ms: float, inertias: tuple, cross_a: np.ndarray, cross_b: np.ndarray,
    first: int,
) -> None:  # fmt: skip
    """Row ``g`` of ``block`` (see :class:`Manifolds`): the two-point manifold whose points are
    ``first`` and the next, their bodies' inverse masses summing to ``ms`` and ``inertias`` =
    ``(inverse inertia of a, of b)``."""
    iia, iib = inertias
    rna0 = cross_a[first, 0]
    rnb0 = cross_b[first, 0]
    rna1 = cross_a[first + 1, 0]
    rnb1 = cross_b[first + 1, 0]
    k11 = ms + iia * rna0 * rna0 + iib * rnb0 * rnb0
    k22 = ms + iia * rna1 * rna1 + iib * rnb1 * rnb1
    k12 = ms + iia * rna0 * rna1 + iib * rnb0 * rnb1
    block[g, 0] = k11
    block[g, 1] = k12
    block[g, 2] = k22
    # Near-parallel rows (points almost coincident) make the 2 x 2 solve ill-conditioned.
    det = k11 * k22 - k12 * k12
    if k11 > 0.0 and k22 > 0.0 and det > SOLVER_BLOCK_CONDITION * k11 * k22:
        block[g, 3] = k22 / det
        block[g, 4] = -k12 / det
        block[g, 5] = k11 / det
        block[g, 6] = 1.0


@njit(cache=True, inline="always")
def _match_renamed(
    points: tuple[np.ndarray, np.ndarray, np.ndarray], first: int, count: int, store: np.ndarray,
    previous: tuple[int, int], claimed: int, limits: tuple[float, float], found: np.ndarray,
) -> None:  # fmt: skip
    """Points ``first .. first + count - 1`` not matched yet (``found[j] < 0``) claim last step's
    points of the same pair (``previous``: their range in ``store``; ``claimed``: a bit per
    previous point already taken) by distance, closest pair of (point, previous point) first,
    within ``limits`` (distance, cosine of the angle between the normals). ``points``: this
    step's point_a, point_b, normal."""
    point_a, point_b, normal = points
    q, end = previous
    match_distance, match_cosine = limits
    while True:
        best_j = -1
        best_r = -1
        best_d2 = match_distance * match_distance
        for j in range(count):
            if found[j] >= 0:
                continue
            k = first + j
            mx = 0.5 * (point_a[k, 0] + point_b[k, 0])
            my = 0.5 * (point_a[k, 1] + point_b[k, 1])
            for r in range(q, end):
                if (claimed >> (r - q)) & 1:
                    continue
                if store[4, r] * normal[k, 0] + store[5, r] * normal[k, 1] < match_cosine:
                    continue
                dx = store[2, r] - mx
                dy = store[3, r] - my
                d2 = dx * dx + dy * dy
                if d2 < best_d2:
                    best_d2 = d2
                    best_j = j
                    best_r = r
        if best_j < 0:
            return
        claimed |= 1 << (best_r - q)
        found[best_j] = best_r


@compiled_only()
def match_previous(
    points: Points, offsets: np.ndarray, prepared: Prepared, state: Any, settings: Any, threads: int | None
) -> None:
    """Warm start: each manifold's points (``offsets``, see :func:`run_offsets`) matched with
    last step's points of the same pair (``state``'s ``prev_*`` rows, in (body_a, body_b)
    order; ``prev_store (6, p)``: normal and tangent impulse, middle x, y, normal x, y) by
    feature key first; then renamed points by place (:func:`_match_renamed`): a deep overlap
    can swap which face is the reference from one step to the next, which renames its points
    while the bodies barely move, and losing their load at once would drop the bodies above;
    only along (nearly) the same normal, as an impulse carried to another direction would push
    the wrong way every step. A matched point starts from its previous impulses (with
    ``settings.warm_start``) and persists when it touches and did before. On numba's threads
    when ``threads`` is 2 or more (None: a small world's step)."""
    previous = (state.prev_a, state.prev_b, state.prev_key, state.prev_state, state.prev_store)
    if same_points(points, prepared, previous):
        # A resting scene's points, step after step: each matches last step's of its row.
        _match_in_place(points, prepared, previous, settings.warm_start)
        return
    limits = (settings.match_distance, settings.match_cosine, settings.warm_start)
    found = np.empty((offsets.shape[0], 2), dtype=np.int64)
    groups = offsets.shape[0] - 1
    if threads is None:
        _match_span(points, offsets, prepared, previous, limits, found, (0, groups))
    elif threads < 2:
        _match_span(points, offsets, prepared, previous, limits, found, (0, groups))
    else:
        _match_rows_threaded(points, offsets, prepared, previous, limits, found, threads)


@compiled_only(**UNCOUNTED)
def same_points(points: Points, prepared: Prepared, previous: tuple) -> bool:
    """Whether this step's points are last step's (``previous``' ``prev_a``, ``prev_b``,
    ``prev_key``) in the same order: as many, each with the same rows and feature key. Then
    the merge walk would match each point with last step's of its row; without an early exit,
    so LLVM vectorises the comparison."""
    prev_a, prev_b, prev_key = previous[:3]
    body_a = prepared.body_a
    body_b = prepared.body_b
    key = points.key
    c = body_a.shape[0]
    if prev_a.shape[0] != c:
        return False
    same = True
    for k in range(c):
        same &= (prev_a[k] == body_a[k]) & (prev_b[k] == body_b[k]) & (prev_key[k] == key[k])
    return same


@compiled_only(**UNCOUNTED)
def _match_in_place(points: Points, prepared: Prepared, previous: tuple, warm_start: bool) -> None:
    """:func:`match_previous` where :func:`same_points` holds: point ``k`` takes last step's
    point ``k``'s impulses (with ``warm_start``) and persists when it touches and that one was
    not speculative."""
    prev_state = previous[3]
    store = previous[4]
    separation = points.separation
    for k in range(prepared.body_a.shape[0]):
        if warm_start:
            prepared.normal_impulse[k] = store[0, k]
            prepared.tangent_impulse[k] = store[1, k]
        if separation[k] <= 0.0 and prev_state[k] != CONTACT_SPECULATIVE:
            prepared.state[k] = CONTACT_PERSISTING


# Inlined by LLVM (forceinline) into the threaded loop, as _match_run.
@compiled_only(forceinline=True, **UNCOUNTED)
def _match_span(
    points: Points, offsets: np.ndarray, prepared: Prepared, previous: tuple, limits: tuple,
    found: np.ndarray, span: tuple,
) -> None:  # fmt: skip
    """:func:`match_previous`' loop over the manifolds ``span`` = ``(first, end)``: both steps'
    points are in pair order, so a bisection finds the first manifold's previous points and a
    merge walk from there the others'. ``found (g + 1, 2) int64`` is scratch."""
    prev_a, prev_b = previous[:2]
    prev_count = prev_a.shape[0]
    first, end = span
    if first >= end:
        return
    a = prepared.body_a[slot(offsets[first])]
    b = prepared.body_b[slot(offsets[first])]
    q = 0
    top = prev_count
    while q < top:
        mid = (q + top) // 2
        if prev_a[slot(mid)] < a or (prev_a[slot(mid)] == a and prev_b[slot(mid)] < b):
            q = mid + 1
        else:
            top = mid
    for g in range(first, end):
        a = prepared.body_a[slot(offsets[g])]
        b = prepared.body_b[slot(offsets[g])]
        while q < prev_count and (prev_a[slot(q)] < a or (prev_a[slot(q)] == a and prev_b[slot(q)] < b)):
            q += 1
        _match_run(points, (offsets[g], offsets[g + 1]), prepared, previous, q, limits, found[g])


@compiled_only(parallel=True, **UNCOUNTED)
def _match_rows_threaded(
    points: Points, offsets: np.ndarray, prepared: Prepared, previous: tuple, limits: tuple,
    found: np.ndarray, threads: int,
) -> None:  # fmt: skip
    """:func:`_match_span` over all the manifolds on numba's threads, each a run of them: a
    merge walk reads last step's points in order, where a bisection for every manifold read
    them at random (slower on two threads than one walk on one)."""
    groups = offsets.shape[0] - 1
    for t in prange(threads):
        span = (groups * t // threads, groups * (t + 1) // threads)
        _match_span(points, offsets, prepared, previous, limits, found, span)


# Inlined by LLVM (forceinline), not by numba like _prepare_run: numba 0.68 inlining this step
# (its early return) into the threaded loop's body lost its writes, and no point matched.
@compiled_only(forceinline=True, **UNCOUNTED)
def _match_run(
    points: Points, run: tuple, prepared: Prepared, previous: tuple, q: int, limits: tuple,
    found: np.ndarray,
) -> None:  # fmt: skip
    """One manifold's points ``run`` = ``(first, last)`` matched (see :func:`match_previous`)
    with the previous points from row ``q`` on (the first not before its pair) of ``previous``
    = ``(prev_a, prev_b, prev_key, prev_state, prev_store)``; ``limits`` = ``(match_distance,
    match_cosine, warm_start)``; ``found (2,) int64`` scratch."""
    prev_a, prev_b, prev_key, prev_state, store = previous
    match_distance, match_cosine, warm_start = limits
    first, last = run
    key = points.key
    a = prepared.body_a[slot(first)]
    b = prepared.body_b[slot(first)]
    end = q
    while end < prev_a.shape[0] and prev_a[slot(end)] == a and prev_b[slot(end)] == b:
        end += 1
    count = last - first
    if end == q:
        return  # a new pair: nothing to match
    if (
        end - q == count
        and prev_key[slot(q)] == key[slot(first)]
        and (count == 1 or prev_key[slot(q + 1)] == key[slot(first + 1)])
    ):
        # The usual case: the same features in the same order.
        found[0] = q
        found[1] = q + 1
    else:
        # Same features first.
        claimed = 0  # bit r - q: previous point r is taken (a pair has at most 2 points)
        for j in range(count):
            found[j] = -1
            for r in range(q, end):
                if not (claimed >> (r - q)) & 1 and prev_key[r] == key[first + j]:
                    claimed |= 1 << (r - q)
                    found[j] = r
                    break
        vectors = (points.point_a, points.point_b, points.normal)
        _match_renamed(vectors, first, count, store, (q, end), claimed, (match_distance, match_cosine), found)
    for j in range(count):
        if found[j] < 0:
            continue
        row = slot(found[j])
        k = slot(first + j)
        if warm_start:
            prepared.normal_impulse[k] = store[0, row]
            prepared.tangent_impulse[k] = store[1, row]
        if points.separation[k] <= 0.0 and prev_state[row] != CONTACT_SPECULATIVE:
            prepared.state[k] = CONTACT_PERSISTING


@stage()
def prepare_points(
    bodies: Bodies, masses: tuple, pairs: np.ndarray, points: Points, offsets: np.ndarray, state: Any,
    settings: Any, dt: float, threads: int | None,
) -> tuple[Prepared, Manifolds]:  # fmt: skip
    """Every point of the manifolds ``offsets`` (see :func:`run_offsets`) prepared and the
    manifolds' blocks (:func:`prepare_manifolds`), the points matched with last step's
    (:func:`match_previous`), on ``threads`` (see there). Returns ``(prepared, manifolds)``."""
    prepared, manifolds = prepare_manifolds(bodies, masses, pairs, points, offsets, dt, threads)
    match_previous(points, offsets, prepared, state, settings, threads)
    return prepared, manifolds


@compiled_only()
def manifold_links(prepared: Prepared, manifolds: Manifolds) -> np.ndarray:
    """``link (g, 4) int64``, a row per manifold: body a, body b, first and end point (see
    :func:`manifold_link`)."""
    link = np.empty((manifolds.offsets.shape[0] - 1, 4), dtype=np.int64)
    link_rows(prepared, manifolds, link)
    return link


@njit(cache=True, inline="always")
def link_rows(prepared: Prepared, manifolds: Manifolds, link: np.ndarray) -> None:
    """:func:`manifold_links`' rows into ``link (g, 4) int64``."""
    offsets = manifolds.offsets
    for g in range(offsets.shape[0] - 1):
        link[g, 0] = prepared.body_a[offsets[g]]
        link[g, 1] = prepared.body_b[offsets[g]]
        link[g, 2] = offsets[g]
        link[g, 3] = offsets[g + 1]


@njit(cache=True, inline="always")
def manifold_link(link: np.ndarray, g: int) -> tuple[int, int, int, int]:
    """Manifold ``g``'s row of ``link`` as ``(a, b, k0, k1)``: its bodies and its first and
    second point (``k1 == k0`` for a one-point manifold)."""
    k0 = link[g, 2]
    k1 = k0 + 1 if link[g, 3] - k0 == 2 else k0
    return link[g, 0], link[g, 1], k0, k1
