"""The contact passes eight manifolds at a time: :func:`_lanes`, one manifold of a colour per
lane of collision/simd.py's vectors, what collision/solvers/iterative/passes.py's ``_pass`` does
one at a time, and :func:`_warm_lanes`, its ``_warm_start_manifold``, with the same results bit
for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from collision.geometry import UNCOUNTED
from collision.kernels import compiled_only
from collision.simd import (
    column,
    gather,
    index_equal,
    index_offset,
    load_row,
    maximum,
    minimum,
    rows_at,
    splat,
    store_row,
    store_rows_at,
    to_index,
    where,
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


@compiled_only(forceinline=True, **UNCOUNTED)
def _lanes(
    body: np.ndarray, point: np.ndarray, manifold: np.ndarray, link: np.ndarray, g: int,
    softness: np.ndarray, inv_h: float, use_bias: bool | np.bool_, open_speed: float, max_push: float,
) -> None:  # fmt: skip
    """:func:`_pass` on the LANES manifolds ``g`` .. ``g + LANES - 1`` at once, one per lane
    (collision/simd.py): manifolds of one colour, which share no body that moves. Each lane
    does the scalar pass's operations in its order, its branches as selects, so the impulses
    and velocities are the scalar pass's bit for bit."""
    first = point[0]
    second = point[1]
    zero = splat(0.0)
    a, b, two = _lane_link(link, g)
    nx = load_row(manifold, M_NX, g)
    ny = load_row(manifold, M_NY, g)
    tx = -ny
    ty = nx
    # Every body column of the eight a bodies, then of the b bodies (BODY_COLUMNS == LANES).
    body_a = rows_at(body, a)
    body_b = rows_at(body, b)
    vax = body_a[B_VX]
    vay = body_a[B_VY]
    wa = body_a[B_W]
    vbx = body_b[B_VX]
    vby = body_b[B_VY]
    wb = body_b[B_W]
    dvx = vax - vbx
    dvy = vay - vby
    vn_lin = dvx * nx + dvy * ny
    vt_lin = dvx * tx + dvy * ty
    dn = (body_a[B_DX] - body_b[B_DX]) * nx + (body_a[B_DY] - body_b[B_DY]) * ny
    dta = body_a[B_DA]
    dtb = body_b[B_DA]
    row = to_index(load_row(manifold, M_ROW, g))
    bias_rate = gather(softness, row, 0)
    mass_scale = gather(softness, row, 1)
    impulse_scale = gather(softness, row, 2)

    rna0 = load_row(first, P_RNA, g)
    rnb0 = load_row(first, P_RNB, g)
    rta0 = load_row(first, P_RTA, g)
    rtb0 = load_row(first, P_RTB, g)
    rna1 = load_row(second, P_RNA, g)
    rnb1 = load_row(second, P_RNB, g)
    rta1 = load_row(second, P_RTA, g)
    rtb1 = load_row(second, P_RTB, g)
    vn0 = vn_lin + wa * rna0 - wb * rnb0
    vn1 = vn_lin + wa * rna1 - wb * rnb1
    vt0 = vt_lin + wa * rta0 - wb * rtb0
    vt1 = vt_lin + wa * rta1 - wb * rtb1
    s0 = load_row(first, P_SEP, g) + dn + dta * rna0 - dtb * rnb0
    s1 = load_row(second, P_SEP, g) + dn + dta * rna1 - dtb * rnb1
    bias0, ms0, is0 = _lane_rows(s0, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
    bias1, ms1, is1 = _lane_rows(s1, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
    l0 = load_row(first, P_NI, g)
    l1 = load_row(second, P_NI, g)
    open0 = (s0 > 0.0) & (l0 == 0.0) & (vn0 < -open_speed)
    open1 = (s1 > 0.0) & (l1 == 0.0) & (vn1 < -open_speed)
    block = two & (load_row(manifold, M_OK, g) != 0.0) & ~(open0 | open1)
    nmass0 = load_row(first, P_NMASS, g)
    nmass1 = load_row(second, P_NMASS, g)
    ref0 = load_row(first, P_REF, g)
    ref1 = load_row(second, P_REF, g)

    # The 2 x 2 block (see _block_rows).
    k12 = load_row(manifold, M_K12, g)
    rows = ((bias0, ms0, is0), (bias1, ms1, is1))
    points = (nmass0, nmass1, ref0, ref1)
    x0, x1 = _lane_block(manifold, g, (l0, l1), (vn0, vn1), rows, points, use_bias)

    # Row by row (see _normal_row): the first point unless open, then the second.
    new0 = _lane_normal(l0, nmass0, ms0, vn0, bias0, is0, ref0, use_bias)
    single0 = ~open0
    fn0 = where(single0, new0 - l0, zero)
    vn1_after = vn1 + k12 * fn0
    new1 = _lane_normal(l1, nmass1, ms1, vn1_after, bias1, is1, ref1, use_bias)
    single1 = two & ~open1
    fn1 = where(single1, new1 - l1, zero)
    fn0 = where(block, x0 - l0, fn0)
    fn1 = where(block, x1 - l1, fn1)
    ni0 = where(block, x0, where(single0, new0, l0))
    ni1 = where(block, x1, where(single1, new1, l1))
    store_row(first, P_NI, g, ni0)
    store_row(second, P_NI, g, ni1)
    most0 = load_row(first, P_MAXNI, g)
    most1 = load_row(second, P_MAXNI, g)
    store_row(first, P_MAXNI, g, where(block | single0, maximum(most0, ni0), most0))
    store_row(second, P_MAXNI, g, where(block | single1, maximum(most1, ni1), most1))

    # Friction, in the cone of the normal impulses just found (see _friction_rows).
    vt0 += load_row(manifold, M_NT00, g) * fn0 + load_row(manifold, M_NT10, g) * fn1
    vt1 += load_row(manifold, M_NT01, g) * fn0 + load_row(manifold, M_NT11, g) * fn1
    limit0 = load_row(first, P_MU, g) * ni0
    old0 = load_row(first, P_TI, g)
    ti0 = minimum(maximum(old0 - load_row(first, P_TMASS, g) * vt0, -limit0), limit0)
    store_row(first, P_TI, g, ti0)
    ft0 = ti0 - old0
    limit1 = load_row(second, P_MU, g) * ni1
    old1 = load_row(second, P_TI, g)
    vt1 += load_row(manifold, M_T01, g) * ft0
    ti1 = minimum(maximum(old1 - load_row(second, P_TMASS, g) * vt1, -limit1), limit1)
    ti1 = where(two, ti1, old1)
    store_row(second, P_TI, g, ti1)
    ft1 = where(two, ti1 - old1, zero)

    ft = ft0 + ft1
    fn = fn0 + fn1
    push = (fn * nx + ft * tx, fn * ny + ft * ty)
    turn = (
        fn0 * rna0 + fn1 * rna1 + ft0 * rta0 + ft1 * rta1,
        fn0 * rnb0 + fn1 * rnb1 + ft0 * rtb0 + ft1 * rtb1,
    )
    _lane_push(body, (a, b), (body_a, body_b), push, turn)


@njit(cache=True, inline="always")
def _lane_rows(
    s: Any, inv_h: float, use_bias: bool | np.bool_, bias_rate: Any, mass_scale: Any, impulse_scale: Any,
    max_push: float,
) -> tuple[Any, Any, Any]:  # fmt: skip
    """:func:`_row` lane by lane."""
    speculative = s > 0.0
    if use_bias:
        bias = where(speculative, s * inv_h, maximum(bias_rate * s, splat(-max_push)))
        return bias, where(speculative, splat(1.0), mass_scale), where(speculative, splat(0.0), impulse_scale)
    return where(speculative, s * inv_h, splat(0.0)), splat(1.0), splat(0.0)


@njit(cache=True, inline="always")
def _lane_normal(
    old: Any, nmass: Any, mass_scale: Any, vn: Any, bias: Any, impulse_scale: Any, ref: Any,
    use_bias: bool | np.bool_,
) -> Any:  # fmt: skip
    """:func:`_normal_row`'s new accumulated impulse, lane by lane."""
    new = old - nmass * mass_scale * (vn + bias)
    if use_bias:
        new -= impulse_scale * (old - ref)
    return maximum(new, splat(0.0))


@njit(cache=True, inline="always")
def _lane_block(
    manifold: np.ndarray, g: int, impulses: tuple, speeds: tuple, rows: tuple, points: tuple,
    use_bias: bool | np.bool_,
) -> tuple[Any, Any]:  # fmt: skip
    """``_block_rows``' new impulses, lane by lane: every active set tried, the first that holds
    kept. ``impulses`` = ``(l0, l1)`` the accumulated ones, ``speeds`` = ``(vn0, vn1)``,
    ``rows`` the two rows' (bias, mass scale, impulse scale), ``points`` = ``(nmass0, nmass1,
    ref0, ref1)``."""
    l0, l1 = impulses
    vn0, vn1 = speeds
    (bias0, ms0, is0), (bias1, ms1, is1) = rows
    nmass0, nmass1, ref0, ref1 = points
    zero = splat(0.0)
    k11 = load_row(manifold, M_K11, g)
    k12 = load_row(manifold, M_K12, g)
    k22 = load_row(manifold, M_K22, g)
    c0 = ms0 * (vn0 + bias0) - k11 * l0 - k12 * l1
    c1 = ms1 * (vn1 + bias1) - k12 * l0 - k22 * l1
    if use_bias:
        c0 += is0 * k11 * (l0 - ref0)
        c1 += is1 * k22 * (l1 - ref1)
    i12 = load_row(manifold, M_I12, g)
    both0 = -(load_row(manifold, M_I11, g) * c0 + i12 * c1)
    both1 = -(i12 * c0 + load_row(manifold, M_I22, g) * c1)
    only0 = -c0 * nmass0
    only1 = -c1 * nmass1
    keep_both = (both0 >= 0.0) & (both1 >= 0.0)
    keep_only0 = (only0 >= 0.0) & (k12 * only0 + c1 >= 0.0)
    keep_only1 = (only1 >= 0.0) & (k12 * only1 + c0 >= 0.0)
    keep_none = (c0 >= 0.0) & (c1 >= 0.0)
    x0 = where(keep_both, both0, where(keep_only0, only0, where(keep_only1 | keep_none, zero, l0)))
    x1 = where(
        keep_both, both1, where(keep_only0, zero, where(keep_only1, only1, where(keep_none, zero, l1)))
    )
    return x0, x1


@compiled_only(forceinline=True, **UNCOUNTED)
def _warm_lanes(
    body: np.ndarray, point: tuple, manifold: np.ndarray, link: np.ndarray, g: int, totals: tuple
) -> None:
    """:func:`_warm_start_manifold` on the LANES manifolds ``g`` .. ``g + LANES - 1`` at once
    (manifolds of one run, which share no moving body): the same sums in the same order."""
    first, second = point
    total, add = totals
    zero = splat(0.0)
    a, b, two = _lane_link(link, g)
    nx = load_row(manifold, M_NX, g)
    ny = load_row(manifold, M_NY, g)
    ni0 = load_row(first, P_NI, g)
    ti0 = load_row(first, P_TI, g)
    ni1 = load_row(second, P_NI, g)
    ti1 = load_row(second, P_TI, g)
    if add:
        store_row(total[0], 0, g, load_row(total[0], 0, g) + ni0)
        store_row(total[0], 1, g, load_row(total[0], 1, g) + ti0)
        old_n = load_row(total[1], 0, g)
        old_t = load_row(total[1], 1, g)
        store_row(total[1], 0, g, where(two, old_n + ni1, old_n))
        store_row(total[1], 1, g, where(two, old_t + ti1, old_t))
    px = zero + (ni0 * nx - ti0 * ny)
    py = zero + (ni0 * ny + ti0 * nx)
    la = zero + (ni0 * load_row(first, P_RNA, g) + ti0 * load_row(first, P_RTA, g))
    lb = zero + (ni0 * load_row(first, P_RNB, g) + ti0 * load_row(first, P_RTB, g))
    px = where(two, px + (ni1 * nx - ti1 * ny), px)
    py = where(two, py + (ni1 * ny + ti1 * nx), py)
    la = where(two, la + (ni1 * load_row(second, P_RNA, g) + ti1 * load_row(second, P_RTA, g)), la)
    lb = where(two, lb + (ni1 * load_row(second, P_RNB, g) + ti1 * load_row(second, P_RTB, g)), lb)
    _lane_push(body, (a, b), (rows_at(body, a), rows_at(body, b)), (px, py), (la, lb))


@njit(cache=True, inline="always")
def _lane_link(link: np.ndarray, g: int) -> tuple[Any, Any, Any]:
    """Manifolds ``g`` .. ``g + LANES - 1``'s bodies (index vectors ``a``, ``b``) and which of
    them have two points (a mask)."""
    two = index_equal(column(link, 3, g), index_offset(column(link, 2, g), 2))
    return column(link, 0, g), column(link, 1, g), two


@njit(cache=True, inline="always")
def _lane_push(body: np.ndarray, bodies: tuple, rows: tuple, push: tuple, turn: tuple) -> None:
    """Bodies ``a`` gain and ``b`` lose (``bodies`` = ``(a, b)``, ``rows`` their body rows by
    ``rows_at``) the impulse ``push`` = ``(px, py)`` times their inverse mass and their
    angular impulse of ``turn`` = ``(la, lb)`` times their inverse inertia, in columns B_VX,
    B_VY, B_W (the first three of a row); bodies that do not move are not written."""
    a, b = bodies
    body_a, body_b = rows
    px, py = push
    la, lb = turn
    ima = body_a[B_IM]
    iia = body_a[B_II]
    imb = body_b[B_IM]
    iib = body_b[B_II]
    moves_a = (ima != 0.0) | (iia != 0.0)
    moves_b = (imb != 0.0) | (iib != 0.0)
    store_rows_at(
        body, a, (body_a[B_VX] + ima * px, body_a[B_VY] + ima * py, body_a[B_W] + iia * la), moves_a
    )
    store_rows_at(
        body, b, (body_b[B_VX] - imb * px, body_b[B_VY] - imb * py, body_b[B_W] - iib * lb), moves_b
    )
