"""The solver's passes over the packed contact rows: sequential impulses per manifold (normal
rows, a 2 x 2 block when usable, friction in the cone of this pass's normal impulses) and the
warm start, on one thread or, colour by colour, on several (collision/solvers/iterative/colours.py).

The rows are packed by collision/solvers/iterative/soft_step.py: one per body (B_*), per point
(P_*) and per manifold (M_*) columns.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from collision.geometry import UNCOUNTED
from collision.kernels import compiled_only
from collision.solvers.iterative.warm_start import manifold_link

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

#: Fewest manifolds in a colour that its pass splits between threads.
PARALLEL_COLOUR = 256

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
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, span: tuple,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
) -> None:  # fmt: skip
    """One pass of sequential impulses over the packed manifolds ``visit[lo:hi]`` (``span`` =
    ``(visit, lo, hi)``, see soft_step.colour_rows); ``use_bias``:
    push overlaps apart (solve) or not (relax); ``open_speed``: speculative rows keep the next
    substep's approach within their gap unless faster than this (see ``final_relax_pass``).
    Compiled once and inlined by LLVM (``forceinline``) into ``solve_pass``, ``relax_pass`` and
    ``final_relax_pass``, where the constant arguments specialise it (numba's own inlining would
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
    visit, lo, hi = span
    for gg in range(lo, hi):
        g = visit[gg]
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


@njit(cache=True, inline="always")
def _whole(runs: tuple) -> tuple:
    """The span of every packed manifold of ``runs`` = ``(starts, visit)``, for ``_pass``."""
    starts, visit = runs
    return visit, np.int64(0), starts[-1]  # not a literal: _pass compiles for int64 bounds once


@compiled_only(parallel=True, **UNCOUNTED)
def _pass_threaded(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, runs: tuple,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
    threads: int,
) -> None:  # fmt: skip
    """``_pass`` colour by colour of ``runs`` = ``(starts, visit)``, each colour of at least
    PARALLEL_COLOUR manifolds cut into ``threads`` spans solved on numba's threads (with 2 or
    more): its manifolds share no moving body, so the result is the same."""
    starts, visit = runs
    last = starts.shape[0] - 2  # the overflow: its manifolds may share bodies
    for c in range(last + 1):
        lo = starts[c]
        size = starts[c + 1] - lo
        if threads > 1 and c < last and size >= PARALLEL_COLOUR:
            for t in prange(threads):
                span = (visit, lo + size * t // threads, lo + size * (t + 1) // threads)
                _pass(body, point, manifold, link, span, softness, inv_h, use_bias, open_speed, max_push)
        else:
            span = (visit, lo, lo + size)
            _pass(body, point, manifold, link, span, softness, inv_h, use_bias, open_speed, max_push)


@compiled_only(**UNCOUNTED)
def solve_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, runs: tuple,
    softness: np.ndarray, inv_h: float, max_push: float, threads: int | None,
) -> None:  # fmt: skip
    """One pass of sequential impulses with the soft push-out over every manifold (packed
    rows, see B_*, P_*, M_*) of a small world (``threads`` None: one thread, and the threaded
    pass is not even compiled: numba drops the branch for a None argument before typing) or of
    a big one on ``threads`` threads (1 included: the same passes, in colour order).

    ``softness (2 + g, 3)``: (bias rate 1/s, mass scale, impulse scale) of the soft contact
    between two moving bodies of equal mass (row 0), against a body that does not move (row
    1), and between unequal moving bodies (row 2 + manifold); ``M_ROW`` picks a manifold's.
    Separations are brought up to date from the bodies' travel since the start of the step.
    """
    # np.bool_: not a literal, so _pass compiles once (numba compiles a kernel again for each
    # literal value it is passed); LLVM still folds the constant where it inlines _pass.
    if threads is None:
        _pass(body, point, manifold, link, _whole(runs), softness, inv_h, np.bool_(True), math.inf, max_push)
    else:
        _pass_threaded(
            body, point, manifold, link, runs, softness, inv_h, np.bool_(True), math.inf, max_push, threads
        )


@compiled_only(**UNCOUNTED)
def relax_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, runs: tuple,
    softness: np.ndarray, inv_h: float, threads: int | None,
) -> None:  # fmt: skip
    """``solve_pass`` without the push-out: overlapping rows only stop approach; speculative rows
    still close at most their gap within the next substep."""
    if threads is None:
        _pass(body, point, manifold, link, _whole(runs), softness, inv_h, np.bool_(False), math.inf, 0.0)
    else:
        _pass_threaded(
            body, point, manifold, link, runs, softness, inv_h, np.bool_(False), math.inf, 0.0, threads
        )


@compiled_only(**UNCOUNTED)
def final_relax_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, runs: tuple,
    softness: np.ndarray, inv_h: float, impact_speed: float, threads: int | None,
) -> None:  # fmt: skip
    """``relax_pass`` after the step's last move, but an unloaded row whose gap stayed open and closes
    faster than ``impact_speed`` is left to the next step's contact, which meets that impact."""
    if threads is None:
        _pass(body, point, manifold, link, _whole(runs), softness, inv_h, np.bool_(False), impact_speed, 0.0)
    else:
        _pass_threaded(
            body, point, manifold, link, runs, softness, inv_h, np.bool_(False), impact_speed, 0.0, threads
        )


@njit(cache=True, inline="always")
def _warm_start_manifold(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, g: int, totals: tuple
) -> None:
    """Apply manifold ``g``'s points' accumulated impulses to its bodies; with ``totals`` =
    ``(total (c, 2), add)`` and ``add`` set, also add them to its points' rows of ``total``."""
    total, add = totals
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
        if add:
            total[k, 0] += ni
            total[k, 1] += ti
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


@compiled_only(**UNCOUNTED)
def warm_start_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    totals: tuple, threads: int | None,
) -> None:  # fmt: skip
    """Apply every point's accumulated impulses, manifold by manifold (packed rows), on
    ``threads`` (None: one; see ``solve_pass``). ``totals`` = ``(total (c, 2), add)``: with
    ``add`` (np.bool_) set, the impulses are also added to ``total``, the sum over the substeps
    of each point's impulses at their end: this pass reads them anyway, where a loop of its own
    read every point row again."""
    if threads is None:
        for g in range(link.shape[0]):
            _warm_start_manifold(body, point, manifold, link, g, totals)
    else:
        _warm_start_threaded(body, point, manifold, link, starts, totals, threads > 1)


@compiled_only(parallel=True, **UNCOUNTED)
def _warm_start_threaded(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    totals: tuple, split: bool,
) -> None:  # fmt: skip
    """``warm_start_pass`` colour by colour (``starts``: see ``_pass``), with ``split`` a
    colour of at least PARALLEL_COLOUR manifolds split between numba's threads."""
    last = starts.shape[0] - 2
    for c in range(last + 1):
        if split and c < last and starts[c + 1] - starts[c] >= PARALLEL_COLOUR:
            for g in prange(starts[c], starts[c + 1]):
                _warm_start_manifold(body, point, manifold, link, g, totals)
        else:
            for g in range(starts[c], starts[c + 1]):
                _warm_start_manifold(body, point, manifold, link, g, totals)
