"""The solver's passes over the packed contact rows: sequential impulses per manifold (normal
rows, a 2 x 2 block when usable, friction in the cone of this pass's normal impulses) and the
warm start, run by run of manifolds that share no moving body (collision/solvers/iterative/
colours.py: a small world's levels, a big one's colours), on one thread or, colour by colour, on
several.

collision/solvers/iterative/soft_step.py packs them: a row per body (``body (n, BODY_COLUMNS)``,
B_* columns) and, per manifold, a column of its own values (``manifold (MANIFOLD_COLUMNS, g)``,
M_* rows) and of each of its points' (``point (2, POINT_COLUMNS, g)``, P_* rows: the first
point, then the second; a one-point manifold's first in both). A value of consecutive manifolds
is contiguous, so a run's manifolds are solved eight at a time in the lanes of collision/simd.py's
vectors (collision/solvers/iterative/lane_pass.py), with the same results as one at a time:
the 8000-body pile's solve and relax passes on one thread take about half the time (300 steps,
World.profile: 2.06 -> 1.08 ms a step), the 1000-body pile's at rest 0.25 -> 0.135 ms.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from collision import interpreter
from collision.geometry import UNCOUNTED
from collision.kernels import compiled_only
from collision.simd import (
    LANES,
    VECTOR,
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
    M_I11,
    M_I12,
    M_I22,
    M_K11,
    M_K12,
    M_K22,
    M_NT00,
    M_NT01,
    M_NT10,
    M_NT11,
    M_NX,
    M_NY,
    M_OK,
    M_ROW,
    M_T01,
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
)
from collision.solvers.iterative.lane_pass import _lanes, _warm_lanes

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
    point: tuple, manifold: np.ndarray, g: int, two: bool, vt0: float, vt1: float
) -> tuple[float, float]:
    """The friction rows of manifold ``g`` (its points' columns ``point`` = ``(first,
    second)``; relative tangent speeds ``vt0``, ``vt1``): accumulated impulses clamped to mu
    times the normal impulse. Returns the changes ``(ft0, ft1)``. Rows without load (limit 0,
    speculative points mostly) are solved too and give 0: clamps and skips as branches were
    mispredicted often enough to cost a sixth of the pass."""
    first, second = point
    ft1 = 0.0
    limit = first[P_MU, g] * first[P_NI, g]
    old = first[P_TI, g]
    new = min(max(old - first[P_TMASS, g] * vt0, -limit), limit)
    first[P_TI, g] = new
    ft0 = new - old
    if two:
        limit = second[P_MU, g] * second[P_NI, g]
        old = second[P_TI, g]
        vt1 += manifold[M_T01, g] * ft0
        new = min(max(old - second[P_TMASS, g] * vt1, -limit), limit)
        second[P_TI, g] = new
        ft1 = new - old
    return ft0, ft1


@njit(cache=True, inline="always")
def _normal_row(
    point: np.ndarray, g: int, vn: float, row: tuple[float, float, float], use_bias: bool | np.bool_
) -> float:
    """A point's normal row alone (its columns ``point``, manifold ``g``; relative normal speed
    ``vn``; ``row``: its velocity bias, mass scale and impulse scale, see ``_row``): the
    accumulated impulse (>= 0) updated; returns its change."""
    bias, mass_scale, impulse_scale = row
    old = point[P_NI, g]
    new = old - point[P_NMASS, g] * mass_scale * (vn + bias)
    if use_bias:
        new -= impulse_scale * (old - point[P_REF, g])
    new = max(new, 0.0)
    point[P_NI, g] = new
    point[P_MAXNI, g] = max(point[P_MAXNI, g], new)
    return new - old


@njit(cache=True, inline="always")
def _block_rows(
    point: tuple, manifold: np.ndarray, g: int, vn0: float, vn1: float,
    row0: tuple[float, float, float], row1: tuple[float, float, float], use_bias: bool | np.bool_,
) -> tuple[float, float]:  # fmt: skip
    """Both normal rows of two-point manifold ``g`` at once (Box2D 2.4's block solver on the
    soft rows: sequential impulses on two points of one face converge slowly and spin the
    body). Returns the changes ``(fn0, fn1)`` of the accumulated impulses."""
    first, second = point
    bias0, ms0, is0 = row0
    bias1, ms1, is1 = row1
    l0 = first[P_NI, g]
    l1 = second[P_NI, g]
    k11 = manifold[M_K11, g]
    k12 = manifold[M_K12, g]
    k22 = manifold[M_K22, g]
    # Rows scaled by their mass scale: w_i * ms_i = (K x)_i + c_i, with K symmetric.
    c0 = ms0 * (vn0 + bias0) - k11 * l0 - k12 * l1
    c1 = ms1 * (vn1 + bias1) - k12 * l0 - k22 * l1
    if use_bias:
        c0 += is0 * k11 * (l0 - first[P_REF, g])
        c1 += is1 * k22 * (l1 - second[P_REF, g])
    # Solve w = K x + c, x >= 0, w >= 0, x w = 0 by trying each active set.
    x0 = -(manifold[M_I11, g] * c0 + manifold[M_I12, g] * c1)
    x1 = -(manifold[M_I12, g] * c0 + manifold[M_I22, g] * c1)
    if not (x0 >= 0.0 and x1 >= 0.0):
        x0 = -c0 * first[P_NMASS, g]
        x1 = 0.0
        if not (x0 >= 0.0 and k12 * x0 + c1 >= 0.0):
            x0 = 0.0
            x1 = -c1 * second[P_NMASS, g]
            if not (x1 >= 0.0 and k12 * x1 + c0 >= 0.0):
                x0 = 0.0
                x1 = 0.0
                if not (c0 >= 0.0 and c1 >= 0.0):
                    # No consistent active set (rare, near-degenerate): keep last.
                    x0 = l0
                    x1 = l1
    first[P_NI, g] = x0
    second[P_NI, g] = x1
    first[P_MAXNI, g] = max(first[P_MAXNI, g], x0)
    second[P_MAXNI, g] = max(second[P_MAXNI, g], x1)
    return x0 - l0, x1 - l1


@njit(cache=True, inline="always")
def _velocity(body: np.ndarray, i: int) -> tuple[float, float, float]:
    """Body row ``i``'s velocity ``(vx, vy, w)`` (units/s, rad/s)."""
    return body[i, B_VX], body[i, B_VY], body[i, B_W]


@njit(cache=True, inline="always")
def _arms(point: np.ndarray, g: int) -> tuple[float, float, float, float]:
    """A point's lever arms ``(rna, rnb, rta, rtb)`` (its columns ``point``, manifold ``g``):
    the cross products of its anchors on A and B with the normal and with the tangent (units)."""
    return point[P_RNA, g], point[P_RNB, g], point[P_RTA, g], point[P_RTB, g]


@compiled_only(forceinline=True, **UNCOUNTED)
def _pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, span: tuple,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
) -> None:  # fmt: skip
    """One pass of sequential impulses over the packed manifolds ``lo:hi`` (``span`` = ``(lo,
    hi)``, see soft_step.colour_rows); ``use_bias``:
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
    lo, hi = span
    first = point[0]
    second = point[1]
    for g in range(lo, hi):
        a = link[g, 0]
        b = link[g, 1]
        two = link[g, 3] - link[g, 2] == 2
        nx = manifold[M_NX, g]
        ny = manifold[M_NY, g]
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
        row = int(manifold[M_ROW, g])
        bias_rate = softness[row, 0]
        mass_scale = softness[row, 1]
        impulse_scale = softness[row, 2]

        rna0, rnb0, rta0, rtb0 = _arms(first, g)
        rna1, rnb1, rta1, rtb1 = _arms(second, g)
        vn0 = vn_lin + wa * rna0 - wb * rnb0
        vn1 = vn_lin + wa * rna1 - wb * rnb1
        vt0 = vt_lin + wa * rta0 - wb * rtb0
        vt1 = vt_lin + wa * rta1 - wb * rtb1

        # Separation now, to first order in the rotation (the same linearisation as the
        # velocity rows): start-of-step separation plus the anchors' travel.
        s0 = first[P_SEP, g] + dn + dta * rna0 - dtb * rnb0
        s1 = second[P_SEP, g] + dn + dta * rna1 - dtb * rnb1
        row0 = _row(s0, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
        row1 = _row(s1, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
        # After the step's last move a gap that stayed open and is closing as an impact carries
        # nothing (the next step's contact meets it); slower approach is resting contact.
        open0 = s0 > 0.0 and first[P_NI, g] == 0.0 and vn0 < -open_speed
        open1 = s1 > 0.0 and second[P_NI, g] == 0.0 and vn1 < -open_speed
        fn0 = 0.0
        fn1 = 0.0
        if two and manifold[M_OK, g] != 0.0 and not (open0 or open1):
            fn0, fn1 = _block_rows((first, second), manifold, g, vn0, vn1, row0, row1, use_bias)
        else:
            if not open0:
                fn0 = _normal_row(first, g, vn0, row0, use_bias)
            if two and not open1:
                vn1 += manifold[M_K12, g] * fn0
                fn1 = _normal_row(second, g, vn1, row1, use_bias)

        # Friction, in the cone of the normal impulses just found.
        vt0 += manifold[M_NT00, g] * fn0 + manifold[M_NT10, g] * fn1
        vt1 += manifold[M_NT01, g] * fn0 + manifold[M_NT11, g] * fn1
        ft0, ft1 = _friction_rows((first, second), manifold, g, two, vt0, vt1)

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


@compiled_only(forceinline=True, **UNCOUNTED)
def _pass_lanes(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, span: tuple,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
) -> None:  # fmt: skip
    """:func:`_pass` over the rows ``lo:hi`` of one colour (``span`` = ``(lo, hi)``), LANES
    manifolds at a time (:func:`_lanes`), the last few one by one: the same impulses and
    velocities."""
    lo, hi = span
    g = lo
    if VECTOR:
        while g + LANES <= hi:
            _lanes(body, point, manifold, link, g, softness, inv_h, use_bias, open_speed, max_push)
            g += LANES
    _pass(body, point, manifold, link, (g, hi), softness, inv_h, use_bias, open_speed, max_push)


@compiled_only(forceinline=True, **UNCOUNTED)
def _pass_runs(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
) -> None:  # fmt: skip
    """``_pass`` run by run of the packed rows (``starts``, see soft_step.colour_rows) on one
    thread, the manifolds of each run but the last sharing no moving body, so eight at a time
    (:func:`_pass_lanes`)."""
    last = starts.shape[0] - 2
    for c in range(last):
        _pass_lanes(
            body, point, manifold, link, (starts[c], starts[c + 1]), softness, inv_h, use_bias,
            open_speed, max_push,
        )  # fmt: skip
    span = (starts[last], starts[last + 1])
    _pass(body, point, manifold, link, span, softness, inv_h, use_bias, open_speed, max_push)


@compiled_only(parallel=True, **UNCOUNTED)
def _pass_threaded(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
    threads: int,
) -> None:  # fmt: skip
    """``_pass`` colour by colour (``starts``, see soft_step.colour_rows), each colour of at least
    PARALLEL_COLOUR manifolds cut into ``threads`` spans solved on numba's threads (with 2 or
    more): its manifolds share no moving body, so the result is the same."""
    last = starts.shape[0] - 2  # the overflow: its manifolds may share bodies
    for c in range(last + 1):
        lo = starts[c]
        size = starts[c + 1] - lo
        if threads > 1 and c < last and size >= PARALLEL_COLOUR:
            for t in prange(threads):
                span = (lo + size * t // threads, lo + size * (t + 1) // threads)
                _pass_lanes(
                    body, point, manifold, link, span, softness, inv_h, use_bias, open_speed, max_push
                )
        elif c < last:
            span = (lo, lo + size)
            _pass_lanes(body, point, manifold, link, span, softness, inv_h, use_bias, open_speed, max_push)
        else:
            span = (lo, lo + size)
            _pass(body, point, manifold, link, span, softness, inv_h, use_bias, open_speed, max_push)


@compiled_only(**UNCOUNTED)
def solve_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
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
        _pass_runs(body, point, manifold, link, starts, softness, inv_h, np.bool_(True), math.inf, max_push)
    else:
        _pass_threaded(
            body, point, manifold, link, starts, softness, inv_h, np.bool_(True), math.inf, max_push, threads
        )


@compiled_only(**UNCOUNTED)
def relax_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    softness: np.ndarray, inv_h: float, threads: int | None,
) -> None:  # fmt: skip
    """``solve_pass`` without the push-out: overlapping rows only stop approach; speculative rows
    still close at most their gap within the next substep."""
    if threads is None:
        _pass_runs(body, point, manifold, link, starts, softness, inv_h, np.bool_(False), math.inf, 0.0)
    else:
        _pass_threaded(
            body, point, manifold, link, starts, softness, inv_h, np.bool_(False), math.inf, 0.0, threads
        )


@compiled_only(**UNCOUNTED)
def final_relax_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    softness: np.ndarray, inv_h: float, impact_speed: float, threads: int | None,
) -> None:  # fmt: skip
    """``relax_pass`` after the step's last move, but an unloaded row whose gap stayed open and closes
    faster than ``impact_speed`` is left to the next step's contact, which meets that impact."""
    if threads is None:
        _pass_runs(body, point, manifold, link, starts, softness, inv_h, np.bool_(False), impact_speed, 0.0)
    else:
        _pass_threaded(
            body, point, manifold, link, starts, softness, inv_h, np.bool_(False), impact_speed, 0.0, threads
        )


# Inlined by LLVM (forceinline), not by numba: numba 0.68 inlining its branch on the second
# point into the threaded pass's loops lost writes (the 8000-body pile's results changed).
@compiled_only(forceinline=True, **UNCOUNTED)
def _warm_start_manifold(
    body: np.ndarray, point: tuple, manifold: np.ndarray, link: np.ndarray, g: int, totals: tuple
) -> None:
    """Apply manifold ``g``'s points' accumulated impulses to its bodies (``point`` = ``(first,
    second)``, its points' columns); with ``totals`` = ``(total (2, 2, g), add)`` and ``add``
    set, also add them to its points' columns of ``total`` (first and second point; normal and
    tangent)."""
    first, second = point
    total, add = totals
    a = link[g, 0]
    b = link[g, 1]
    nx = manifold[M_NX, g]
    ny = manifold[M_NY, g]
    px = 0.0
    py = 0.0
    la = 0.0
    lb = 0.0
    ni = first[P_NI, g]
    ti = first[P_TI, g]
    if add:
        total[0, 0, g] += ni
        total[0, 1, g] += ti
    px += ni * nx - ti * ny
    py += ni * ny + ti * nx
    la += ni * first[P_RNA, g] + ti * first[P_RTA, g]
    lb += ni * first[P_RNB, g] + ti * first[P_RTB, g]
    if link[g, 3] - link[g, 2] == 2:
        ni = second[P_NI, g]
        ti = second[P_TI, g]
        if add:
            total[1, 0, g] += ni
            total[1, 1, g] += ti
        px += ni * nx - ti * ny
        py += ni * ny + ti * nx
        la += ni * second[P_RNA, g] + ti * second[P_RTA, g]
        lb += ni * second[P_RNB, g] + ti * second[P_RTB, g]
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


@compiled_only(forceinline=True, **UNCOUNTED)
def _warm_start_span(
    body: np.ndarray, point: tuple, manifold: np.ndarray, link: np.ndarray, span: tuple, totals: tuple
) -> None:
    """:func:`_warm_start_manifold` over the packed manifolds ``lo:hi`` (``span``) of one run,
    LANES at a time (:func:`_warm_lanes`), the last few one by one."""
    lo, hi = span
    g = lo
    if VECTOR:
        while g + LANES <= hi:
            _warm_lanes(body, point, manifold, link, g, totals)
            g += LANES
    for m in range(g, hi):
        _warm_start_manifold(body, point, manifold, link, m, totals)


@compiled_only(**UNCOUNTED)
def warm_start_pass(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    totals: tuple, threads: int | None,
) -> None:  # fmt: skip
    """Apply every point's accumulated impulses, run by run of the packed manifolds (``starts``,
    see ``_pass``), on ``threads`` (None: one; see ``solve_pass``). ``totals`` = ``(total (2, 2,
    g), add)``: with ``add`` (np.bool_) set, the impulses are also added to ``total``, the sum
    over the substeps of each point's impulses at their end: this pass reads them anyway, where
    a loop of its own read every point's columns again."""
    rows = (point[0], point[1])
    if threads is None:
        _warm_start_runs(body, rows, manifold, link, starts, totals)
    else:
        _warm_start_threaded(body, rows, manifold, link, starts, totals, threads)


@compiled_only(forceinline=True, **UNCOUNTED)
def _warm_start_runs(
    body: np.ndarray, point: tuple, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray, totals: tuple
) -> None:
    """``warm_start_pass`` run by run on one thread, the last run (the overflow, whose manifolds
    may share bodies) one manifold at a time."""
    last = starts.shape[0] - 2
    for c in range(last):
        _warm_start_span(body, point, manifold, link, (starts[c], starts[c + 1]), totals)
    for g in range(starts[last], starts[last + 1]):
        _warm_start_manifold(body, point, manifold, link, g, totals)


@compiled_only(parallel=True, **UNCOUNTED)
def _warm_start_threaded(
    body: np.ndarray, point: tuple, manifold: np.ndarray, link: np.ndarray, starts: np.ndarray,
    totals: tuple, threads: int,
) -> None:  # fmt: skip
    """``warm_start_pass`` colour by colour, each colour of at least PARALLEL_COLOUR manifolds
    cut into ``threads`` spans on numba's threads (with 2 or more), the overflow one manifold at
    a time."""
    last = starts.shape[0] - 2
    for c in range(last):
        lo = starts[c]
        size = starts[c + 1] - lo
        if threads > 1 and size >= PARALLEL_COLOUR:
            for t in prange(threads):
                span = (lo + size * t // threads, lo + size * (t + 1) // threads)
                _warm_start_span(body, point, manifold, link, span, totals)
        else:
            _warm_start_span(body, point, manifold, link, (lo, lo + size), totals)
    for g in range(starts[last], starts[last + 1]):
        _warm_start_manifold(body, point, manifold, link, g, totals)


def _interpreted_lanes(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, g: int,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
) -> None:  # fmt: skip
    """:func:`_lanes` while the engine is interpreted (its lanes are LLVM vectors): the scalar
    pass over the same manifolds, the same answer."""
    span = (g, g + LANES)
    _pass.py_func(body, point, manifold, link, span, softness, inv_h, use_bias, open_speed, max_push)


def _interpreted_warm_lanes(
    body: np.ndarray, point: tuple, manifold: np.ndarray, link: np.ndarray, g: int, totals: tuple
) -> None:
    """:func:`_warm_lanes` while the engine is interpreted: the scalar warm start over the same
    manifolds."""
    for m in range(g, g + LANES):
        _warm_start_manifold.py_func(body, point, manifold, link, m, totals)


if VECTOR:
    interpreter.stand_in(_lanes, _interpreted_lanes)
    interpreter.stand_in(_warm_lanes, _interpreted_warm_lanes)
