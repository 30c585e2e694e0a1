"""The soft step: sequential impulses over substeps, with push-out and relax passes.

Box2D v3's "soft step" (its stages prepare, warm start, solve, integrate positions, relax), on
packed rows and columns (a row per body, B_* columns; a column per manifold and per point of
it, M_* and P_* rows: see collision/solvers/iterative/passes.py), so the hot
loops touch a handful of arrays. Per substep: one substep of gravity; warm start (every
point's accumulated impulses); ``velocity_iterations`` passes with the soft push-out spring
(``contact_hertz``, ``damping_ratio``, at most ``max_push`` m/s); positions <- velocities;
``relax_iterations`` passes without the spring, so the push-out velocity does not stay in the
bodies. The rows are packed in the order the passes visit them (colours.py): levels of body
order, or in big scenes colour by colour (a colour's manifolds on several threads); in either,
a run's manifolds share no moving body.

A speculative point of separation s > 0 only stops approach faster than s / h, so nothing
tunnels. Friction is clamped to mu times the point's normal impulse; two-point manifolds are
solved as a 2 x 2 block (Box2D 2.4) when well conditioned. Contacts between bodies of very
unequal mass are stiffer, so a heavy body does not sink into a light one under it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from collision import profiling
from collision.bodies import Bodies
from collision.geometry import UNCOUNTED, slot, wrap_angles
from collision.kernels import compiled_only, stage
from collision.solvers.iterative.colours import (
    BALANCED,
    COLOURED,
    LEVELS,
    SOLVE_STREAMS,
    balanced_levels,
    colour_manifolds,
    keep_order,
    kept_order_holds,
    kept_views,
    level_order,
    packed_links,
    padded_levels,
)
from collision.solvers.iterative.columns import (
    B_DA,
    B_DX,
    B_DY,
    B_II,
    B_IM,
    B_VX,
    B_VY,
    B_W,
    BODY_COLUMNS,
    M_K11,
    M_NT00,
    M_NT01,
    M_NT10,
    M_NT11,
    M_NX,
    M_NY,
    M_ROW,
    M_T01,
    MANIFOLD_COLUMNS,
    P_MAXNI,
    P_MU,
    P_NI,
    P_NMASS,
    P_REF,
    P_RNA,
    P_RNB,
    P_RTA,
    P_RTB,
    P_SEP,
    P_TI,
    P_TMASS,
    POINT_COLUMNS,
)
from collision.solvers.iterative.narrowphase import Points
from collision.solvers.iterative.passes import (
    final_relax_pass,
    relax_pass,
    solve_pass,
    warm_start_pass,
)
from collision.solvers.iterative.restitution import impact_threshold
from collision.solvers.iterative.softness import soft_coefficients, softness_table
from collision.solvers.iterative.store import store_results, store_results_threaded
from collision.solvers.iterative.warm_start import Manifolds, Prepared, manifold_link, manifold_links
from collision.solvers.protocol import StepContext
from collision.tolerances import (
    CONTACT_MASS_RATIO_EXPONENT,
    CONTACT_MASS_RATIO_HERTZ_CAP,
    CONTACT_MASS_RATIO_ONSET,
)


@njit(cache=True, inline="always")
def pack_bodies(bodies: Bodies, inv_mass: np.ndarray, inv_inertia: np.ndarray) -> np.ndarray:
    """The body rows (B_* columns): velocity, solver inverse masses, travel 0; and after the
    ``n`` bodies' rows a phantom row of zeros, the body of empty manifolds (a body that does
    not move: the passes never write it)."""
    n = bodies.position.shape[0]
    body = np.empty((n + 1, BODY_COLUMNS))
    for j in range(BODY_COLUMNS):
        body[n, j] = 0.0
    for i in range(n):
        body[i, B_VX] = bodies.velocity[i, 0]
        body[i, B_VY] = bodies.velocity[i, 1]
        body[i, B_W] = bodies.angular_velocity[i]
        body[i, B_IM] = inv_mass[i]
        body[i, B_II] = inv_inertia[i]
        body[i, B_DX] = 0.0
        body[i, B_DY] = 0.0
        body[i, B_DA] = 0.0
    return body


@njit(cache=True, inline="always")
def _point_row(
    point: np.ndarray, g: int, k: np.uint64, points: Points, prepared: Prepared, weight: float
) -> None:
    """Manifold ``g``'s column of one of its points' columns ``point`` (P_* rows): prepared
    point ``k``, warm started (see :func:`pack_rows`)."""
    point[P_RNA, g] = prepared.cross_a[k, 0]
    point[P_RNB, g] = prepared.cross_b[k, 0]
    point[P_RTA, g] = prepared.cross_a[k, 1]
    point[P_RTB, g] = prepared.cross_b[k, 1]
    point[P_NMASS, g] = prepared.normal_mass[k]
    point[P_TMASS, g] = prepared.tangent_mass[k]
    point[P_MU, g] = prepared.friction[k]
    point[P_SEP, g] = points.separation[k]
    point[P_NI, g] = prepared.normal_impulse[k]
    point[P_TI, g] = prepared.tangent_impulse[k]
    point[P_MAXNI, g] = 0.0
    point[P_REF, g] = prepared.normal_impulse[k] * weight


@njit(cache=True, inline="always")
def _point_of(link: np.ndarray, perm: np.ndarray, g: int, side: int) -> np.uint64:
    """The prepared point in manifold ``g``'s ``side`` (0 first, 1 second) columns: a one-point
    manifold's first in both."""
    q0 = link[g, 2]
    return slot(perm[q0 + 1] if side == 1 and link[g, 3] - q0 == 2 else perm[q0])


@njit(cache=True, inline="always")
def _points_of(
    point: tuple, g: int, points: Points, prepared: Prepared, weight: float, packed: tuple
) -> None:
    """Manifold ``g``'s first and second point into ``point`` = ``(first, second)`` (a one-point
    manifold's first in both: the passes read its second's columns as the first's, as they
    did when both were one row, and never write them)."""
    _, link, perm = packed
    _point_row(point[0], g, _point_of(link, perm, g, 0), points, prepared, weight)
    _point_row(point[1], g, _point_of(link, perm, g, 1), points, prepared, weight)


# A stage (machine code of its own): its caller, the iterative solver's solve, is inlined into
# the step's own kernel, which would otherwise compile it and its steps again, the last thing a
# cold start compiles.
@stage()
def colour_rows(
    prepared: Prepared,
    manifolds: Manifolds,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    threads: int | None,
    kept: np.ndarray,
    room: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The manifolds in the passes' order (collision/solvers/iterative/colours.py: levels of body
    order when ``threads`` is None, a small world's, filled up with empty manifolds where that
    puts a level's last manifolds in lanes; else colour order) and their points with them:
    ``(order (g,), starts, link (g, 4), perm (c,), kept)``, where packed manifold row ``m`` is
    manifold ``order[m]`` (-1: an empty one, on the phantom body row ``n``), ``link`` its
    bodies and its points' packed rows, packed point row ``q`` point ``perm[q]``; the passes
    take the runs of rows ``starts`` gives (levels or colours, whose manifolds share no moving
    body; the last run, the colours' overflow, on one thread and one at a time). ``kept``: last
    step's order (colours.keep_order), taken as it is when it was made for the same manifolds
    and the same rows moving; returned, the order this one is (views of it), a new one kept in
    ``room`` when it has room (see colours.keep_order)."""
    original = manifold_links(prepared, manifolds)
    n = inv_mass.shape[0]
    moves = np.empty(n, dtype=np.bool_)
    for i in range(n):
        moves[i] = inv_mass[i] != 0.0 or inv_inertia[i] != 0.0
    kind = LEVELS if threads is None else COLOURED
    held = kept_order_holds(kept, kind, original, moves)
    if not held or kept[0] == LEVELS:
        made = kind
        if threads is None:
            if held:
                # The same manifolds two steps running (a resting scene): worth the time to
                # fill the levels up to whole groups of lanes, once.
                order, starts = balanced_levels(original, moves, SOLVE_STREAMS)
                made = BALANCED
            else:
                order, starts = level_order(original, moves, SOLVE_STREAMS)
            order, starts = padded_levels(order, starts)
        else:
            order, starts = colour_manifolds(original, moves)
        link, perm = packed_links(original, order, n)
        kept = keep_order(made, original, moves, order, starts, link, perm, room)
    order, starts, link, perm = kept_views(kept)
    return order, starts, link, perm, kept


# Inlined by LLVM, not by numba: inlined by numba into _pack_threaded's loop, its writes to
# the softness table were lost on two threads (heavy-on-light rows left unset, the step's
# result different from one thread's and from run to run).
@compiled_only(forceinline=True, **UNCOUNTED)
def _manifold_row(
    manifold: np.ndarray, g: int, points: Points, prepared: Prepared, manifolds: Manifolds, masses: tuple,
    soft: tuple, packed: tuple,
) -> None:  # fmt: skip
    """Packed manifold column ``g`` (M_* rows): manifold ``order[g]`` (``packed``: ``(order,
    link, perm)``, see :func:`colour_rows`), with the solver's ``masses`` = ``(inv_mass,
    inv_inertia)``. Heavy on light: the spring acts on the pair's effective mass, about the
    light body's, while the load is the heavy one's weight, so the overlap it holds grows with
    the mass ratio. Past an onset, stiffer by a power of the ratio, up to a cap of the substep
    rate (collision/tolerances.py CONTACT_MASS_RATIO_*): such a manifold gets its own row of
    ``softness`` (``soft`` = ``(hertz, damping_ratio, h, 1 / h, softness)``)."""
    inv_mass, inv_inertia = masses
    hertz, damping_ratio, h, inv_hs, softness = soft
    order, link, perm = packed
    cross_a = prepared.cross_a
    cross_b = prepared.cross_b
    # The second point is the first for one-point manifolds, whose rows then go unused.
    rows = manifold_link(link, g)
    a = slot(rows[0])
    b = slot(rows[1])
    first = slot(perm[rows[2]])
    k1 = slot(perm[rows[3]])
    manifold[M_NX, g] = points.normal[first, 0]
    manifold[M_NY, g] = points.normal[first, 1]
    for j in range(7):
        manifold[M_K11 + j, g] = manifolds.block[slot(order[g]), j]
    iia = inv_inertia[a]
    iib = inv_inertia[b]
    rna0, rta0, rnb0, rtb0 = cross_a[first, 0], cross_a[first, 1], cross_b[first, 0], cross_b[first, 1]
    rna1, rta1, rnb1, rtb1 = cross_a[k1, 0], cross_a[k1, 1], cross_b[k1, 0], cross_b[k1, 1]
    manifold[M_T01, g] = inv_mass[a] + inv_mass[b] + iia * rta0 * rta1 + iib * rtb0 * rtb1
    manifold[M_NT00, g] = iia * rna0 * rta0 + iib * rnb0 * rtb0
    manifold[M_NT01, g] = iia * rna0 * rta1 + iib * rnb0 * rtb1
    manifold[M_NT10, g] = iia * rna1 * rta0 + iib * rnb1 * rtb0
    manifold[M_NT11, g] = iia * rna1 * rta1 + iib * rnb1 * rtb1
    if inv_mass[a] == 0.0 or inv_mass[b] == 0.0:
        manifold[M_ROW, g] = 1.0
        return
    ratio = max(inv_mass[a], inv_mass[b]) / min(inv_mass[a], inv_mass[b])
    if ratio > CONTACT_MASS_RATIO_ONSET:
        manifold[M_ROW, g] = 2.0 + g
        scale = (ratio / CONTACT_MASS_RATIO_ONSET) ** CONTACT_MASS_RATIO_EXPONENT
        hg = max(hertz, min(hertz * scale, CONTACT_MASS_RATIO_HERTZ_CAP * inv_hs))
        bias, mass_scale, impulse_scale = soft_coefficients(hg, damping_ratio, h)
        softness[2 + g, 0] = bias
        softness[2 + g, 1] = mass_scale
        softness[2 + g, 2] = impulse_scale
    else:
        manifold[M_ROW, g] = 0.0


@compiled_only(forceinline=True, **UNCOUNTED)
def _pack_serial(
    point: np.ndarray, manifold: np.ndarray, rows: tuple, masses: tuple, soft: tuple, packed: tuple
) -> None:
    """:func:`pack_rows`' loops on one thread. Compiled without numba's reference counting (it
    allocates nothing): inlined into the soft step, each row's reads of the records' arrays
    counted them up and down (the pyramid's prepare stage 34 -> 23 us a step)."""
    points, prepared, manifolds, weight = rows
    sides = (point[0], point[1])
    order = packed[0]
    for g in range(manifold.shape[1]):
        if order[g] < 0:
            _empty_manifold(sides, manifold, g)
            continue
        _points_of(sides, g, points, prepared, weight, packed)
    for g in range(manifold.shape[1]):
        if order[g] >= 0:
            _manifold_row(manifold, g, points, prepared, manifolds, masses, soft, packed)


@compiled_only(forceinline=True, **UNCOUNTED)
def _empty_manifold(point: tuple, manifold: np.ndarray, g: int) -> None:
    """Column ``g`` of an empty manifold (see colours.padded_levels) all zeros: between two
    bodies that do not move, with no mass, it takes no impulse, so the lanes it fills leave
    every body as they found it."""
    for j in range(point[0].shape[0]):
        point[0][j, g] = 0.0
        point[1][j, g] = 0.0
    for j in range(manifold.shape[0]):
        manifold[j, g] = 0.0


@compiled_only(parallel=True)
def _pack_threaded(
    point: np.ndarray, manifold: np.ndarray, points: Points, prepared: Prepared, manifolds: Manifolds,
    weight: float, masses: tuple, soft: tuple, packed: tuple,
) -> None:  # fmt: skip
    """:func:`pack_rows`' loops on numba's threads (each column written by one iteration)."""
    sides = (point[0], point[1])
    for g in prange(manifold.shape[1]):
        _points_of(sides, g, points, prepared, weight, packed)
    for g in prange(manifold.shape[1]):
        _manifold_row(manifold, g, points, prepared, manifolds, masses, soft, packed)


@njit(cache=True, inline="always")
def pack_rows(
    points: Points, prepared: Prepared, manifolds: Manifolds, masses: tuple, settings: Any, h: float,
    softness: np.ndarray, packed: tuple, threads: int | None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The point columns (``(2, POINT_COLUMNS, g)``: each manifold's first and second point's
    P_* values, see :func:`_points_of`; warm started, the soft contact treating
    ``settings.load_memory`` of the warm start as already carried) and the manifold columns
    (``(MANIFOLD_COLUMNS, g)``, see :func:`_manifold_row`) of the substep ``h`` (s), ``packed`` =
    ``(order, link, perm)`` (see :func:`colour_rows`); on numba's threads when ``threads`` is 2
    or more (None: a small world's step); a column per packed manifold, empty ones too."""
    groups = packed[0].shape[0]
    point = np.empty((2, POINT_COLUMNS, groups))
    manifold = np.empty((MANIFOLD_COLUMNS, groups))
    inv_hs = 1.0 / h
    hertz = min(settings.contact_hertz, 0.25 * inv_hs)
    soft = (hertz, settings.damping_ratio, h, inv_hs, softness)
    rows = (points, prepared, manifolds, settings.load_memory)
    if threads is None:
        _pack_serial(point, manifold, rows, masses, soft, packed)
    elif threads < 2:
        _pack_serial(point, manifold, rows, masses, soft, packed)
    else:
        _pack_threaded(
            point, manifold, points, prepared, manifolds, settings.load_memory, masses, soft, packed
        )
    return point, manifold


# The row steps are inlined by LLVM (forceinline), not by numba: inlined by numba into a
# threaded loop's body, their writes were lost.
@compiled_only(forceinline=True, **UNCOUNTED)
def _fall_row(body: np.ndarray, moving: np.ndarray, inv_mass: np.ndarray, fall: tuple, i: int) -> None:
    """Row ``i``'s velocity plus a substep of gravity ``fall`` (units/s) if it moves and has mass."""
    if moving[i] and inv_mass[i] > 0.0:
        body[i, B_VX] += fall[0]
        body[i, B_VY] += fall[1]


@compiled_only(forceinline=True, **UNCOUNTED)
def _move_row(body: np.ndarray, moving: np.ndarray, pose: tuple, h: float, i: int) -> None:
    """Row ``i`` moved by its velocity over the substep ``h`` (s) if it moves: its ``pose`` =
    ``(position, angle)`` and its travel columns."""
    if not moving[i]:
        return
    position, angle = pose
    dx = body[i, B_VX] * h
    dy = body[i, B_VY] * h
    da = body[i, B_W] * h
    position[i, 0] += dx
    position[i, 1] += dy
    angle[i] += da
    body[i, B_DX] += dx
    body[i, B_DY] += dy
    body[i, B_DA] += da


@compiled_only(parallel=True, **UNCOUNTED)
def _fall_threaded(body: np.ndarray, moving: np.ndarray, inv_mass: np.ndarray, fall: tuple) -> None:
    """:func:`_fall_row` for every row on numba's threads: each takes a run of rows, as in the
    threaded passes the bodies of its runs of manifolds (rows and manifolds are both in body
    order), so a row stays in the cache of the core that works on it."""
    for i in prange(moving.shape[0]):
        _fall_row(body, moving, inv_mass, fall, i)


@compiled_only(parallel=True, **UNCOUNTED)
def _move_threaded(body: np.ndarray, moving: np.ndarray, pose: tuple, h: float) -> None:
    """:func:`_move_row` for every row on numba's threads (see :func:`_fall_threaded`)."""
    for i in prange(moving.shape[0]):
        _move_row(body, moving, pose, h, i)


@njit(cache=True, inline="always")
def run_substeps(
    bodies: Bodies,
    context: StepContext,
    settings: Any,
    moving: np.ndarray,
    rows: tuple,
    point: np.ndarray,
    softness: np.ndarray,
    threads: int | None,
) -> np.ndarray:
    """The substep loop over the packed ``rows`` (body, manifold, link, starts) on ``threads``
    (None: one; see ``solve_pass``): per substep one
    substep of gravity, warm start, ``velocity_iterations`` solve passes, positions <-
    velocities (semi-implicit Euler, moving bodies only), ``relax_iterations`` relax passes (the
    last substep ``final_relax_iterations`` more). Returns the impulses summed over the
    substeps, ``total (2, 2, g)`` (first and second point of each manifold; normal, tangent;
    N s)."""
    body, manifold, link, starts = rows
    n = moving.shape[0]
    groups = manifold.shape[1]
    count = settings.substeps
    h = context.dt / count
    inv_hs = 1.0 / h
    gravity_x = context.gravity_x
    gravity_y = context.gravity_y
    total = np.zeros((2, 2, groups))
    impact_speed = impact_threshold(context, settings)
    position = bodies.position
    angle = bodies.angle
    t = profiling.start_clock(context.ticks)
    fall = (gravity_x * h, gravity_y * h)
    for sub in range(count):
        if threads is None:
            for i in range(n):
                _fall_row(body, moving, bodies.inv_mass, fall, i)
        elif threads < 2:
            for i in range(n):
                _fall_row(body, moving, bodies.inv_mass, fall, i)
        else:
            _fall_threaded(body, moving, bodies.inv_mass, fall)
        t = profiling.lap(context.ticks, profiling.INTEGRATE_VELOCITIES, t)
        # Each warm start but the first also adds the impulses the last substep ended with.
        warm_start_pass(body, point, manifold, link, starts, (total, np.bool_(sub > 0)), threads)
        t = profiling.lap(context.ticks, profiling.WARM_START, t)
        for _ in range(settings.velocity_iterations):
            solve_pass(
                body, point, manifold, link, starts, softness, inv_hs, settings.max_push_speed, threads
            )
        t = profiling.lap(context.ticks, profiling.SOLVE, t)
        if threads is None:
            for i in range(n):
                _move_row(body, moving, (position, angle), h, i)
        elif threads < 2:
            for i in range(n):
                _move_row(body, moving, (position, angle), h, i)
        else:
            _move_threaded(body, moving, (position, angle), h)
        t = profiling.lap(context.ticks, profiling.INTEGRATE_POSITIONS, t)
        if sub < count - 1:
            for _ in range(settings.relax_iterations):
                relax_pass(body, point, manifold, link, starts, softness, inv_hs, threads)
        else:
            for _ in range(settings.relax_iterations + settings.final_relax_iterations):
                final_relax_pass(body, point, manifold, link, starts, softness, inv_hs, impact_speed, threads)
        t = profiling.lap(context.ticks, profiling.RELAX, t)
    # The last substep's impulses (the warm starts added the others').
    for side in range(2):
        for g in range(groups):
            total[side, 0, g] += point[side, P_NI, g]
            total[side, 1, g] += point[side, P_TI, g]
    profiling.lap(context.ticks, profiling.RELAX, t)
    return total


@stage()
def soft_step(
    bodies: Bodies,
    context: StepContext,
    settings: Any,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    moving: np.ndarray,
    points: Points,
    prepared: Prepared,
    manifolds: Manifolds,
    threads: int | None,
    colouring: tuple,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Solve, integrate positions and relax over ``settings.substeps`` substeps of the step,
    on ``threads`` (None: one, and no threaded kernel compiled; see ``solve_pass``);
    the last substep relaxes ``final_relax_iterations`` more times, so the velocities the step
    ends with (and the next one starts from) are converged: one relax pass leaves bodies
    wedged under load with a velocity they do not move at.

    ``inv_mass``, ``inv_inertia (n,)``: the solver's, zero for bodies that do not move this
    step (gravity applies where ``moving`` and the body's own inverse mass are set). The
    prepared points' ``normal_impulse``, ``tangent_impulse`` hold the warm start on entry and
    last substep's impulses on return. Moves the moving bodies (angles wrapped to [-pi, pi)).
    ``colouring``: the passes' order of the manifolds (:func:`colour_rows`). Returns
    ``(total_normal (c,), total_tangent (c,), max_normal_impulse (c,))``: impulses over the
    whole step and the largest normal impulse a point gave in any pass (N s).
    """
    start = profiling.start_clock(context.ticks)
    n = bodies.position.shape[0]
    c = prepared.normal_impulse.shape[0]
    dt = context.dt
    h = dt / settings.substeps
    # The world added a whole step of gravity; give it back one substep at a time so each
    # substep sees the load it must carry (Box2D v3's soft step).
    for i in range(n):
        if moving[i] and bodies.inv_mass[i] > 0.0:
            bodies.velocity[i, 0] -= context.gravity_x * dt
            bodies.velocity[i, 1] -= context.gravity_y * dt
    body = pack_bodies(bodies, inv_mass, inv_inertia)
    order, starts, link, perm, _ = colouring
    softness = softness_table(order.shape[0], settings, h)
    point, manifold = pack_rows(
        points,
        prepared,
        manifolds,
        (inv_mass, inv_inertia),
        settings,
        h,
        softness,
        (order, link, perm),
        threads,
    )
    profiling.lap(context.ticks, profiling.PREPARE, start)
    packed_total = run_substeps(
        bodies, context, settings, moving, (body, manifold, link, starts), point, softness, threads
    )
    start = profiling.start_clock(context.ticks)
    out = np.empty((3, c))
    max_normal_impulse = out[0]
    total_normal = out[1]
    total_tangent = out[2]
    velocity, angular_velocity = bodies.velocity, bodies.angular_velocity
    columns = (point[0], point[1])
    packed = (packed_total, link, perm)
    totals = (max_normal_impulse, total_normal, total_tangent)
    if threads is None:
        store_results(velocity, angular_velocity, body, columns, packed, prepared, totals)
    elif threads < 2:
        store_results(velocity, angular_velocity, body, columns, packed, prepared, totals)
    else:
        store_results_threaded(velocity, angular_velocity, body, columns, packed, prepared, totals)
    wrap_angles(bodies.angle)
    profiling.lap(context.ticks, profiling.STORE, start)
    return total_normal, total_tangent, max_normal_impulse
