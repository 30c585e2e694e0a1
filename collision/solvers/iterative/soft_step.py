"""The soft step: sequential impulses over substeps, with push-out and relax passes.

Box2D v3's "soft step" (its stages prepare, warm start, solve, integrate positions, relax), on
packed rows (one per body, per point, per manifold: the B_*, P_*, M_* columns), so the hot
loops touch a handful of arrays. Per substep: one substep of gravity; warm start (every
point's accumulated impulses); ``velocity_iterations`` passes with the soft push-out spring
(``contact_hertz``, ``damping_ratio``, at most ``max_push`` m/s); positions <- velocities;
``relax_iterations`` passes without the spring, so the push-out velocity does not stay in the
bodies.

A speculative point of separation s > 0 only stops approach faster than s / h, so nothing
tunnels. Friction is clamped to mu times the point's normal impulse; two-point manifolds are
solved as a 2 x 2 block (Box2D 2.4) when well conditioned. Contacts between bodies of very
unequal mass are stiffer, so a heavy body does not sink into a light one under it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from collision import profiling
from collision.bodies import Bodies
from collision.geometry import UNCOUNTED, wrap_angles
from collision.kernels import compiled_only
from collision.solvers.iterative.narrowphase import Points
from collision.solvers.iterative.restitution import impact_threshold
from collision.solvers.iterative.softness import soft_coefficients, softness_table
from collision.solvers.iterative.warm_start import Manifolds, Prepared, manifold_link, manifold_links
from collision.solvers.protocol import StepContext
from collision.tolerances import (
    CONTACT_MASS_RATIO_EXPONENT,
    CONTACT_MASS_RATIO_HERTZ_CAP,
    CONTACT_MASS_RATIO_ONSET,
)

# Columns of the packed rows the substep loop works on.
B_VX, B_VY, B_W, B_IM, B_II, B_DX, B_DY, B_DA = range(8)  # body: velocity, inverse mass, travel
BODY_COLUMNS = 8
P_RNA, P_RNB, P_RTA, P_RTB, P_NMASS, P_TMASS, P_MU, P_SEP, P_NI, P_TI, P_MAXNI, P_REF = range(12)
POINT_COLUMNS = 12  # point: arms x normal / tangent, masses, friction, separation, impulses
M_NX, M_NY, M_K11, M_K12, M_K22, M_I11, M_I12, M_I22, M_OK, M_ROW = range(10)
# Couplings inside a manifold (change of one row's relative speed per unit impulse of
# another): tangent 1 from tangent 0, normal i from tangent j.
M_T01, M_NT00, M_NT01, M_NT10, M_NT11 = range(10, 15)
MANIFOLD_COLUMNS = 15  # manifold: normal, 2 x 2 mass and inverse, usable, softness, couplings

#: Runs of manifolds the solver takes turns between (see ``_interleaved_order``).
SOLVE_STREAMS = 2

# The passes over the contacts are compiled without numba's reference counting (UNCOUNTED, see
# collision/geometry.py: they allocate nothing): counting the arrays their inlined steps are
# handed, at every manifold, made tens of thousands of atomic operations per step of the
# 1000-body pile.


@njit(cache=True, inline="always")
def _row(
    s: float,
    inv_h: float,
    use_bias: bool | np.bool_,
    bias_rate: float,
    mass_scale: float,
    impulse_scale: float,
    max_push: float,
) -> tuple[float, float, float]:
    """Velocity bias, mass scale, impulse scale of a normal row with separation s."""
    if s > 0.0:
        # Speculative: approach may close the gap within the step, no faster.
        return s * inv_h, 1.0, 0.0
    if use_bias:
        return max(bias_rate * s, -max_push), mass_scale, impulse_scale
    return 0.0, 1.0, 0.0


@njit(cache=True, inline="always")
def _friction_rows(
    point: np.ndarray, manifold: np.ndarray, g: int, k0: int, k1: int, two: bool, vt0: float, vt1: float
) -> tuple[float, float]:
    """The friction rows of manifold ``g`` (points ``k0``, ``k1``; relative tangent speeds
    ``vt0``, ``vt1``): accumulated impulses clamped to mu times the normal impulse. Returns the
    changes ``(ft0, ft1)``. Rows without load (limit 0, speculative points mostly) are solved too
    and give 0: clamps and skips as branches were mispredicted often enough to cost a sixth of
    the pass."""
    ft1 = 0.0
    limit = point[k0, P_MU] * point[k0, P_NI]
    old = point[k0, P_TI]
    new = min(max(old - point[k0, P_TMASS] * vt0, -limit), limit)
    point[k0, P_TI] = new
    ft0 = new - old
    if two:
        limit = point[k1, P_MU] * point[k1, P_NI]
        old = point[k1, P_TI]
        vt1 += manifold[g, M_T01] * ft0
        new = min(max(old - point[k1, P_TMASS] * vt1, -limit), limit)
        point[k1, P_TI] = new
        ft1 = new - old
    return ft0, ft1


@njit(cache=True, inline="always")
def _normal_row(
    point: np.ndarray, k: int, vn: float, row: tuple[float, float, float], use_bias: bool | np.bool_
) -> float:
    """Point ``k``'s normal row alone (relative normal speed ``vn``; ``row``: its velocity bias,
    mass scale and impulse scale, see ``_row``): the accumulated impulse (>= 0) updated; returns
    its change."""
    bias, mass_scale, impulse_scale = row
    old = point[k, P_NI]
    new = old - point[k, P_NMASS] * mass_scale * (vn + bias)
    if use_bias:
        new -= impulse_scale * (old - point[k, P_REF])
    new = max(new, 0.0)
    point[k, P_NI] = new
    point[k, P_MAXNI] = max(point[k, P_MAXNI], new)
    return new - old


@njit(cache=True, inline="always")
def _block_rows(
    point: np.ndarray, manifold: np.ndarray, g: int, k0: int, k1: int, vn0: float, vn1: float,
    row0: tuple[float, float, float], row1: tuple[float, float, float], use_bias: bool | np.bool_,
) -> tuple[float, float]:  # fmt: skip
    """Both normal rows of two-point manifold ``g`` at once (Box2D 2.4's block solver on the
    soft rows: sequential impulses on two points of one face converge slowly and spin the
    body). Returns the changes ``(fn0, fn1)`` of the accumulated impulses."""
    bias0, ms0, is0 = row0
    bias1, ms1, is1 = row1
    l0 = point[k0, P_NI]
    l1 = point[k1, P_NI]
    k11 = manifold[g, M_K11]
    k12 = manifold[g, M_K12]
    k22 = manifold[g, M_K22]
    # Rows scaled by their mass scale: w_i * ms_i = (K x)_i + c_i, with K symmetric.
    c0 = ms0 * (vn0 + bias0) - k11 * l0 - k12 * l1
    c1 = ms1 * (vn1 + bias1) - k12 * l0 - k22 * l1
    if use_bias:
        c0 += is0 * k11 * (l0 - point[k0, P_REF])
        c1 += is1 * k22 * (l1 - point[k1, P_REF])
    # Solve w = K x + c, x >= 0, w >= 0, x w = 0 by trying each active set.
    x0 = -(manifold[g, M_I11] * c0 + manifold[g, M_I12] * c1)
    x1 = -(manifold[g, M_I12] * c0 + manifold[g, M_I22] * c1)
    if not (x0 >= 0.0 and x1 >= 0.0):
        x0 = -c0 * point[k0, P_NMASS]
        x1 = 0.0
        if not (x0 >= 0.0 and k12 * x0 + c1 >= 0.0):
            x0 = 0.0
            x1 = -c1 * point[k1, P_NMASS]
            if not (x1 >= 0.0 and k12 * x1 + c0 >= 0.0):
                x0 = 0.0
                x1 = 0.0
                if not (c0 >= 0.0 and c1 >= 0.0):
                    # No consistent active set (rare, near-degenerate): keep last.
                    x0 = l0
                    x1 = l1
    point[k0, P_NI] = x0
    point[k1, P_NI] = x1
    point[k0, P_MAXNI] = max(point[k0, P_MAXNI], x0)
    point[k1, P_MAXNI] = max(point[k1, P_MAXNI], x1)
    return x0 - l0, x1 - l1


@njit(cache=True, inline="always")
def _velocity(body: np.ndarray, i: int) -> tuple[float, float, float]:
    """Body row ``i``'s velocity ``(vx, vy, w)`` (units/s, rad/s)."""
    return body[i, B_VX], body[i, B_VY], body[i, B_W]


@njit(cache=True, inline="always")
def _arms(point: np.ndarray, k: int) -> tuple[float, float, float, float]:
    """Point row ``k``'s lever arms ``(rna, rnb, rta, rtb)``: the cross products of its anchors
    on A and B with the normal and with the tangent (units)."""
    return point[k, P_RNA], point[k, P_RNB], point[k, P_RTA], point[k, P_RTB]


@compiled_only(forceinline=True, **UNCOUNTED)
def _pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, order: np.ndarray,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
) -> None:  # fmt: skip
    """One pass of sequential impulses over the manifolds in ``order``; ``use_bias``: push
    overlaps apart (solve) or not (relax); ``open_speed``: speculative rows keep the next
    substep's approach within their gap unless faster than this (see ``_final_relax``).
    Compiled once and inlined by LLVM (``forceinline``) into ``_solve``, ``_relax`` and
    ``_final_relax``, where the constant arguments specialise it (numba's own inlining would
    copy and type its IR three times, seconds of every cold start); the loop and its steps
    (inlined) stay inside so that no array is passed to a function per manifold.

    Per manifold: normal rows (a 2 x 2 block when usable), then friction rows clamped by the
    normal impulses just found (Box2D v3's order: a contact's friction cone is this pass's,
    and in the pass where an impact's impulse appears friction acts on it), then one velocity
    update for each body. The rows' relative speeds are read from the bodies once; each
    impulse then updates the later rows' speeds through the manifold's couplings (K entries,
    M_T01, M_NT*): the impulses of re-reading the velocities after every row, without the long
    dependency chain through the bodies' velocities.
    """
    for gg in range(order.shape[0]):
        g = order[gg]
        a, b, k0, k1 = manifold_link(link, g)
        two = k1 != k0
        nx = manifold[g, M_NX]
        ny = manifold[g, M_NY]
        tx = -ny
        ty = nx
        vax, vay, wa = _velocity(body, a)
        vbx, vby, wb = _velocity(body, b)
        dvx = vax - vbx
        dvy = vay - vby
        vn_lin = dvx * nx + dvy * ny
        vt_lin = dvx * tx + dvy * ty
        # Travel since the start of the step, for the separations.
        dn = (body[a, B_DX] - body[b, B_DX]) * nx + (body[a, B_DY] - body[b, B_DY]) * ny
        dta = body[a, B_DA]
        dtb = body[b, B_DA]
        row = int(manifold[g, M_ROW])
        bias_rate = softness[row, 0]
        mass_scale = softness[row, 1]
        impulse_scale = softness[row, 2]

        rna0, rnb0, rta0, rtb0 = _arms(point, k0)
        rna1, rnb1, rta1, rtb1 = _arms(point, k1)
        vn0 = vn_lin + wa * rna0 - wb * rnb0
        vn1 = vn_lin + wa * rna1 - wb * rnb1
        vt0 = vt_lin + wa * rta0 - wb * rtb0
        vt1 = vt_lin + wa * rta1 - wb * rtb1

        # Separation now, to first order in the rotation (the same linearisation as the
        # velocity rows): start-of-step separation plus the anchors' travel.
        s0 = point[k0, P_SEP] + dn + dta * rna0 - dtb * rnb0
        s1 = point[k1, P_SEP] + dn + dta * rna1 - dtb * rnb1
        row0 = _row(s0, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
        row1 = _row(s1, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
        # After the step's last move a gap that stayed open and is closing as an impact carries
        # nothing (the next step's contact meets it); slower approach is resting contact.
        open0 = s0 > 0.0 and point[k0, P_NI] == 0.0 and vn0 < -open_speed
        open1 = s1 > 0.0 and point[k1, P_NI] == 0.0 and vn1 < -open_speed
        fn0 = 0.0
        fn1 = 0.0
        if two and manifold[g, M_OK] != 0.0 and not (open0 or open1):
            fn0, fn1 = _block_rows(point, manifold, g, k0, k1, vn0, vn1, row0, row1, use_bias)
        else:
            if not open0:
                fn0 = _normal_row(point, k0, vn0, row0, use_bias)
            if two and not open1:
                vn1 += manifold[g, M_K12] * fn0
                fn1 = _normal_row(point, k1, vn1, row1, use_bias)

        # Friction, in the cone of the normal impulses just found.
        vt0 += manifold[g, M_NT00] * fn0 + manifold[g, M_NT10] * fn1
        vt1 += manifold[g, M_NT01] * fn0 + manifold[g, M_NT11] * fn1
        ft0, ft1 = _friction_rows(point, manifold, g, k0, k1, two, vt0, vt1)

        # Bodies that do not move are not written: a store would chain every contact on the
        # ground into one long dependency through memory.
        ima = body[a, B_IM]
        iia = body[a, B_II]
        imb = body[b, B_IM]
        iib = body[b, B_II]
        ft = ft0 + ft1
        fn = fn0 + fn1
        px = fn * nx + ft * tx
        py = fn * ny + ft * ty
        if ima != 0.0 or iia != 0.0:
            body[a, B_VX] = vax + ima * px
            body[a, B_VY] = vay + ima * py
            body[a, B_W] = wa + iia * (fn0 * rna0 + fn1 * rna1 + ft0 * rta0 + ft1 * rta1)
        if imb != 0.0 or iib != 0.0:
            body[b, B_VX] = vbx - imb * px
            body[b, B_VY] = vby - imb * py
            body[b, B_W] = wb - iib * (fn0 * rnb0 + fn1 * rnb1 + ft0 * rtb0 + ft1 * rtb1)


@compiled_only(**UNCOUNTED)
def _solve(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, order: np.ndarray,
    softness: np.ndarray, inv_h: float, max_push: float,
) -> None:  # fmt: skip
    """One pass of sequential impulses with the soft push-out over every manifold (packed
    rows, see B_*, P_*, M_*).

    ``softness (2 + g, 3)``: (bias rate 1/s, mass scale, impulse scale) of the soft contact
    between two moving bodies of equal mass (row 0), against a body that does not move (row
    1), and between unequal moving bodies (row 2 + manifold); ``M_ROW`` picks a manifold's.
    Separations are brought up to date from the bodies' travel since the start of the step.
    """
    # np.bool_: not a literal, so _pass compiles once (numba compiles a kernel again for each
    # literal value it is passed); LLVM still folds the constant where it inlines _pass.
    _pass(body, point, manifold, link, order, softness, inv_h, np.bool_(True), math.inf, max_push)


@compiled_only(**UNCOUNTED)
def _relax(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, order: np.ndarray,
    softness: np.ndarray, inv_h: float,
) -> None:  # fmt: skip
    """``_solve`` without the push-out: overlapping rows only stop approach; speculative rows
    still close at most their gap within the next substep."""
    _pass(body, point, manifold, link, order, softness, inv_h, np.bool_(False), math.inf, 0.0)


@compiled_only(**UNCOUNTED)
def _final_relax(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, order: np.ndarray,
    softness: np.ndarray, inv_h: float, impact_speed: float,
) -> None:  # fmt: skip
    """``_relax`` after the step's last move, but an unloaded row whose gap stayed open and closes
    faster than ``impact_speed`` is left to the next step's contact, which meets that impact."""
    _pass(body, point, manifold, link, order, softness, inv_h, np.bool_(False), impact_speed, 0.0)


@compiled_only()
def _interleaved_order(count: int, streams: int) -> np.ndarray:
    """0..count-1 dealt from ``streams`` equal runs in turn (0, c, 2c, .., 1, c+1, ..).

    Manifolds are listed by body index, so neighbours in the list share bodies and their
    impulses form one long serial chain; taking them from far-apart runs in turn lets the
    processor overlap independent manifolds. The order is fixed, so results stay exact.
    """
    chunk = (count + streams - 1) // streams
    order = np.empty(count, dtype=np.int64)
    m = 0
    for idx in range(chunk):
        for stream in range(streams):
            g = stream * chunk + idx
            if g < count:
                order[m] = g
                m += 1
    return order


@compiled_only(**UNCOUNTED)
def _warm_start(body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray) -> None:
    """Apply every point's accumulated impulses, manifold by manifold (packed rows)."""
    for g in range(manifold.shape[0]):
        a = link[g, 0]
        b = link[g, 1]
        nx = manifold[g, M_NX]
        ny = manifold[g, M_NY]
        px = 0.0
        py = 0.0
        la = 0.0
        lb = 0.0
        for k in range(link[g, 2], link[g, 3]):
            ni = point[k, P_NI]
            ti = point[k, P_TI]
            px += ni * nx - ti * ny
            py += ni * ny + ti * nx
            la += ni * point[k, P_RNA] + ti * point[k, P_RTA]
            lb += ni * point[k, P_RNB] + ti * point[k, P_RTB]
        ima = body[a, B_IM]
        iia = body[a, B_II]
        imb = body[b, B_IM]
        iib = body[b, B_II]
        if ima != 0.0 or iia != 0.0:
            body[a, B_VX] += ima * px
            body[a, B_VY] += ima * py
            body[a, B_W] += iia * la
        if imb != 0.0 or iib != 0.0:
            body[b, B_VX] -= imb * px
            body[b, B_VY] -= imb * py
            body[b, B_W] -= iib * lb


@njit(cache=True, inline="always")
def pack_bodies(bodies: Bodies, inv_mass: np.ndarray, inv_inertia: np.ndarray) -> np.ndarray:
    """The body rows (B_* columns): velocity, solver inverse masses, travel 0."""
    n = bodies.position.shape[0]
    body = np.empty((n, BODY_COLUMNS))
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
def pack_points(points: Points, prepared: Prepared, reference_weight: float) -> np.ndarray:
    """The point rows (P_* columns) of the prepared points, warm started; ``reference_weight``
    the share of the warm start the soft contact treats as already carried."""
    c = prepared.normal_impulse.shape[0]
    point = np.empty((c, POINT_COLUMNS))
    for k in range(c):
        point[k, P_RNA] = prepared.cross_a[k, 0]
        point[k, P_RNB] = prepared.cross_b[k, 0]
        point[k, P_RTA] = prepared.cross_a[k, 1]
        point[k, P_RTB] = prepared.cross_b[k, 1]
        point[k, P_NMASS] = prepared.normal_mass[k]
        point[k, P_TMASS] = prepared.tangent_mass[k]
        point[k, P_MU] = prepared.friction[k]
        point[k, P_SEP] = points.separation[k]
        point[k, P_NI] = prepared.normal_impulse[k]
        point[k, P_TI] = prepared.tangent_impulse[k]
        point[k, P_MAXNI] = 0.0
        point[k, P_REF] = prepared.normal_impulse[k] * reference_weight
    return point


@njit(cache=True, inline="always")
def pack_manifolds(
    points: Points,
    prepared: Prepared,
    manifolds: Manifolds,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    settings: Any,
    h: float,
    softness: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The manifold rows (M_* columns) and their ``link (g, 4) int64`` (body a, body b, first
    and end point). Heavy on light: the spring acts on the pair's effective mass, about the
    light body's, while the load is the heavy one's weight, so the overlap it holds grows with
    the mass ratio. Past an onset, stiffer by a power of the ratio, up to a cap of the substep
    rate (collision/tolerances.py CONTACT_MASS_RATIO_*): such a manifold gets its own row of
    ``softness``."""
    offsets = manifolds.offsets
    groups = offsets.shape[0] - 1
    inv_hs = 1.0 / h
    hertz = min(settings.contact_hertz, 0.25 * inv_hs)
    cross_a = prepared.cross_a
    cross_b = prepared.cross_b
    normal, block = points.normal, manifolds.block
    manifold = np.empty((groups, MANIFOLD_COLUMNS))
    link = manifold_links(prepared, manifolds)
    for g in range(groups):
        # The second point is the first for one-point manifolds, whose rows then go unused.
        a, b, first, k1 = manifold_link(link, g)
        manifold[g, M_NX] = normal[first, 0]
        manifold[g, M_NY] = normal[first, 1]
        for j in range(7):
            manifold[g, M_K11 + j] = block[g, j]
        iia = inv_inertia[a]
        iib = inv_inertia[b]
        rna0, rta0, rnb0, rtb0 = cross_a[first, 0], cross_a[first, 1], cross_b[first, 0], cross_b[first, 1]
        rna1, rta1, rnb1, rtb1 = cross_a[k1, 0], cross_a[k1, 1], cross_b[k1, 0], cross_b[k1, 1]
        manifold[g, M_T01] = inv_mass[a] + inv_mass[b] + iia * rta0 * rta1 + iib * rtb0 * rtb1
        manifold[g, M_NT00] = iia * rna0 * rta0 + iib * rnb0 * rtb0
        manifold[g, M_NT01] = iia * rna0 * rta1 + iib * rnb0 * rtb1
        manifold[g, M_NT10] = iia * rna1 * rta0 + iib * rnb1 * rtb0
        manifold[g, M_NT11] = iia * rna1 * rta1 + iib * rnb1 * rtb1
        if inv_mass[a] == 0.0 or inv_mass[b] == 0.0:
            manifold[g, M_ROW] = 1.0
            continue
        ratio = max(inv_mass[a], inv_mass[b]) / min(inv_mass[a], inv_mass[b])
        if ratio > CONTACT_MASS_RATIO_ONSET:
            manifold[g, M_ROW] = 2.0 + g
            scale = (ratio / CONTACT_MASS_RATIO_ONSET) ** CONTACT_MASS_RATIO_EXPONENT
            hg = max(hertz, min(hertz * scale, CONTACT_MASS_RATIO_HERTZ_CAP * inv_hs))
            bias, mass_scale, impulse_scale = soft_coefficients(hg, settings.damping_ratio, h)
            softness[2 + g, 0] = bias
            softness[2 + g, 1] = mass_scale
            softness[2 + g, 2] = impulse_scale
        else:
            manifold[g, M_ROW] = 0.0
    return manifold, link


@njit(cache=True, inline="always")
def run_substeps(
    bodies: Bodies,
    context: StepContext,
    settings: Any,
    moving: np.ndarray,
    rows: tuple,
    point: np.ndarray,
    softness: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The substep loop over the packed ``rows`` (body, manifold, link): per substep one
    substep of gravity, warm start, ``velocity_iterations`` solve passes, positions <-
    velocities (semi-implicit Euler, moving bodies only), ``relax_iterations`` relax passes (the
    last substep ``final_relax_iterations`` more). Returns the impulses summed over the
    substeps, ``(total_normal (c,), total_tangent (c,))``."""
    body, manifold, link = rows
    n = body.shape[0]
    c = point.shape[0]
    count = settings.substeps
    h = context.dt / count
    inv_hs = 1.0 / h
    gravity_x = context.gravity_x
    gravity_y = context.gravity_y
    total_normal = np.zeros(c)
    total_tangent = np.zeros(c)
    order = _interleaved_order(manifold.shape[0], SOLVE_STREAMS)
    impact_speed = impact_threshold(context, settings)
    position = bodies.position
    angle = bodies.angle
    t = profiling.start_clock(context.ticks)
    for sub in range(count):
        for i in range(n):
            if moving[i] and bodies.inv_mass[i] > 0.0:
                body[i, B_VX] += gravity_x * h
                body[i, B_VY] += gravity_y * h
        t = profiling.lap(context.ticks, profiling.INTEGRATE_VELOCITIES, t)
        _warm_start(body, point, manifold, link)
        t = profiling.lap(context.ticks, profiling.WARM_START, t)
        for _ in range(settings.velocity_iterations):
            _solve(body, point, manifold, link, order, softness, inv_hs, settings.max_push_speed)
        t = profiling.lap(context.ticks, profiling.SOLVE, t)
        for i in range(n):
            if not moving[i]:
                continue
            dx = body[i, B_VX] * h
            dy = body[i, B_VY] * h
            da = body[i, B_W] * h
            position[i, 0] += dx
            position[i, 1] += dy
            angle[i] += da
            body[i, B_DX] += dx
            body[i, B_DY] += dy
            body[i, B_DA] += da
        t = profiling.lap(context.ticks, profiling.INTEGRATE_POSITIONS, t)
        if sub < count - 1:
            for _ in range(settings.relax_iterations):
                _relax(body, point, manifold, link, order, softness, inv_hs)
        else:
            for _ in range(settings.relax_iterations + settings.final_relax_iterations):
                _final_relax(body, point, manifold, link, order, softness, inv_hs, impact_speed)
        for k in range(c):
            total_normal[k] += point[k, P_NI]
            total_tangent[k] += point[k, P_TI]
        t = profiling.lap(context.ticks, profiling.RELAX, t)
    return total_normal, total_tangent


@njit(cache=True)
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
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Solve, integrate positions and relax over ``settings.substeps`` substeps of the step;
    the last substep relaxes ``final_relax_iterations`` more times, so the velocities the step
    ends with (and the next one starts from) are converged: one relax pass leaves bodies
    wedged under load with a velocity they do not move at.

    ``inv_mass``, ``inv_inertia (n,)``: the solver's, zero for bodies that do not move this
    step (gravity applies where ``moving`` and the body's own inverse mass are set). The
    prepared points' ``normal_impulse``, ``tangent_impulse`` hold the warm start on entry and
    last substep's impulses on return. Moves the moving bodies (angles wrapped to [-pi, pi)).
    Returns ``(total_normal (c,), total_tangent (c,), max_normal_impulse (c,))``: impulses
    over the whole step and the largest normal impulse a point gave in any pass (N s).
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
    softness = softness_table(manifolds.offsets.shape[0] - 1, settings, h)
    body = pack_bodies(bodies, inv_mass, inv_inertia)
    point = pack_points(points, prepared, settings.load_memory)
    manifold, link = pack_manifolds(points, prepared, manifolds, inv_mass, inv_inertia, settings, h, softness)
    profiling.lap(context.ticks, profiling.PREPARE, start)
    total_normal, total_tangent = run_substeps(
        bodies, context, settings, moving, (body, manifold, link), point, softness
    )
    start = profiling.start_clock(context.ticks)
    max_normal_impulse = np.empty(c)
    for i in range(n):
        bodies.velocity[i, 0] = body[i, B_VX]
        bodies.velocity[i, 1] = body[i, B_VY]
        bodies.angular_velocity[i] = body[i, B_W]
    for k in range(c):
        prepared.normal_impulse[k] = point[k, P_NI]
        prepared.tangent_impulse[k] = point[k, P_TI]
        max_normal_impulse[k] = point[k, P_MAXNI]
    wrap_angles(bodies.angle)
    profiling.lap(context.ticks, profiling.STORE, start)
    return total_normal, total_tangent, max_normal_impulse
