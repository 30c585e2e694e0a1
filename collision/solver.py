"""Our iterative solver: persistent contacts, warm starting, speculative contacts, soft step.

One world step (after the world has integrated forces into velocities):

1. broadphase: bounding boxes swept over the step, grown by the speculative distance;
2. manifolds (collision/manifold.py) for every candidate pair, with a speculative distance
   that grows with the pair's relative speed over the step, so a pair that can touch within
   the step gets its contact points now, with positive separation;
3. match each point with last step's by (body_a, body_b, feature key): matched points start
   from their accumulated impulses (warm start);
4. sequential impulses with accumulated clamping (normal >= 0, |friction| <= mu * normal) and
   Box2D v3's soft contact (a spring of ``contact_hertz`` with ``damping_ratio`` pushes
   overlaps apart, at most ``max_push_speed``); a speculative point of separation s only
   stops approach faster than s / dt, so nothing tunnels at any speed;
5. positions <- velocities;
6. relax: the same iterations without the push-out spring, so the push-out velocity does not
   stay in the bodies (piles come to rest instead of jittering);
7. restitution from the approach speed recorded before solving, above a threshold;
8. sleeping: islands (union-find over touching contacts between moving bodies) whose bodies
   all stayed slow for ``SLEEP_TIME`` sleep together.

All of it runs in compiled loops over the world's structure-of-arrays state and over the
contact store (also structure-of-arrays); the Python class only holds the store between steps.
Loops are sequential in a fixed order, so results are bit-identical run to run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from collision.broadphase import candidate_pairs, swept_bounds, transform_vertices
from collision.manifold import edge_normals, manifold_kernel
from collision.tolerances import (
    CONTACT_DAMPING_RATIO,
    CONTACT_HERTZ,
    CONTACT_LOAD_MEMORY,
    CONTACT_MAX_PUSH_SPEED,
    RESTITUTION_THRESHOLD,
    SLEEP_ANGULAR_SPEED,
    SLEEP_LINEAR_SPEED,
    SLEEP_TIME,
    SOLVER_BLOCK_CONDITION,
    SPECULATIVE_DISTANCE,
    STATIC_CONTACT_HERTZ_SCALE,
)

#: Contact states (the same numbers as collision.world's CONTACT_* constants).
STATE_NEW = 0
STATE_PERSISTING = 1
STATE_SPECULATIVE = 2

# Columns of the packed rows the substep loop works on.
B_VX, B_VY, B_W, B_IM, B_II, B_DX, B_DY, B_DA = range(8)  # body: velocity, inverse mass, travel
BODY_COLUMNS = 8
P_RNA, P_RNB, P_RTA, P_RTB, P_NMASS, P_TMASS, P_MU, P_SEP, P_NI, P_TI, P_MAXNI, P_REF = range(12)
POINT_COLUMNS = 12  # point: arms x normal / tangent, masses, friction, separation, impulses
M_NX, M_NY, M_K11, M_K12, M_K22, M_I11, M_I12, M_I22, M_OK, M_ROW = range(10)
MANIFOLD_COLUMNS = 10  # manifold: normal, 2 x 2 mass and inverse, block usable, softness row

#: Runs of manifolds the solver takes turns between (see ``_interleaved_order``).
SOLVE_STREAMS = 2

#: Defaults: substeps per step, and per substep the passes that solve (with push-out) and
#: relax (without), as Box2D v3.
SUBSTEPS = 4
VELOCITY_ITERATIONS = 1
RELAX_ITERATIONS = 1


@njit(cache=True)
def _soft(hertz: float, zeta: float, h: float) -> tuple[float, float, float]:
    """Soft constraint coefficients (bias rate 1/s, mass scale, impulse scale) for step h."""
    if hertz == 0.0:
        return 0.0, 1.0, 0.0
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * zeta + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return omega / a1, a2 * a3, a3


@njit(cache=True)
def collide(
    local_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    radius: np.ndarray,
    moving: np.ndarray,
    world_vertices: np.ndarray,
    dt: float,
    base_speculative: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Broadphase and manifolds: the contact points of this step, in pair order.

    Writes world-space vertices into ``world_vertices (n, MAX_VERTICES, 2)``. Returns
    ``(pairs (m, 2), pair_index (c,), key (c,), point_a (c, 2), point_b (c, 2), normal (c, 2),
    separation (c,), c)``; the point arrays have room for two points per pair and only their
    first ``c`` rows are used.
    """
    n = position.shape[0]
    transform_vertices(local_vertices, vertex_count, position, angle, world_vertices)
    lo = np.empty((n, 2))
    hi = np.empty((n, 2))
    swept_bounds(
        world_vertices, vertex_count, velocity, angular_velocity, radius, dt, base_speculative, lo, hi
    )
    skip = np.empty(n, dtype=np.bool_)
    for i in range(n):
        skip[i] = not moving[i]
    pairs = candidate_pairs(lo, hi, skip)
    world_normals = np.zeros_like(world_vertices)
    for i in range(n):
        edge_normals(world_vertices[i], vertex_count[i], world_normals[i])
    m = pairs.shape[0]
    capacity = 2 * m
    pair_index = np.empty(capacity, dtype=np.int64)
    key = np.empty(capacity, dtype=np.int64)
    point_a = np.empty((capacity, 2))
    point_b = np.empty((capacity, 2))
    normal = np.empty((capacity, 2))
    separation = np.empty(capacity)
    pa = np.empty((2, 2))
    pb = np.empty((2, 2))
    ps = np.empty(2)
    pk = np.empty(2, dtype=np.int64)
    c = 0
    for p in range(m):
        i = pairs[p, 0]
        j = pairs[p, 1]
        # How far the pair can close within the step: relative translation plus what the
        # rotation of each can sweep (chord of its radius).
        vx = (velocity[i, 0] if moving[i] else 0.0) - (velocity[j, 0] if moving[j] else 0.0)
        vy = (velocity[i, 1] if moving[i] else 0.0) - (velocity[j, 1] if moving[j] else 0.0)
        reach = math.sqrt(vx * vx + vy * vy) * dt
        if moving[i]:
            reach += min(abs(angular_velocity[i]) * dt, 2.0) * radius[i]
        if moving[j]:
            reach += min(abs(angular_velocity[j]) * dt, 2.0) * radius[j]
        count, nx, ny = manifold_kernel(
            world_vertices[i],
            world_normals[i],
            vertex_count[i],
            world_vertices[j],
            world_normals[j],
            vertex_count[j],
            base_speculative + reach,
            pa,
            pb,
            ps,
            pk,
        )
        for q in range(count):
            pair_index[c] = p
            key[c] = pk[q]
            point_a[c, 0] = pa[q, 0]
            point_a[c, 1] = pa[q, 1]
            point_b[c, 0] = pb[q, 0]
            point_b[c, 1] = pb[q, 1]
            normal[c, 0] = nx
            normal[c, 1] = ny
            separation[c] = ps[q]
            c += 1
    return pairs, pair_index, key, point_a, point_b, normal, separation, c


@njit(cache=True)
def _apply(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    a: int,
    b: int,
    rax: float,
    ray: float,
    rbx: float,
    rby: float,
    px: float,
    py: float,
) -> None:
    """Impulse (px, py) on A at anchor ra, and its opposite on B at anchor rb."""
    ima = inv_mass[a]
    imb = inv_mass[b]
    velocity[a, 0] += ima * px
    velocity[a, 1] += ima * py
    angular_velocity[a] += inv_inertia[a] * (rax * py - ray * px)
    velocity[b, 0] -= imb * px
    velocity[b, 1] -= imb * py
    angular_velocity[b] -= inv_inertia[b] * (rbx * py - rby * px)


@njit(cache=True, inline="always")
def _row(
    s: float,
    inv_h: float,
    use_bias: bool,
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


@njit(cache=True)
def _solve(
    body: np.ndarray,
    point: np.ndarray,
    manifold: np.ndarray,
    link: np.ndarray,
    order: np.ndarray,
    softness: np.ndarray,
    inv_h: float,
    use_bias: bool,
    moved: bool,
    max_push: float,
) -> None:
    """One pass of sequential impulses over every manifold (packed rows, see B_*, P_*, M_*).

    ``softness (2, 3)``: (bias rate 1/s, mass scale, impulse scale) of the soft contact
    between two moving bodies (row 0) and against a body that does not move (row 1).
    ``use_bias``: push overlaps apart (solve) or not (relax); ``moved``: bodies have moved
    since the start of the step, so separations are brought up to date.
    """
    for gg in range(order.shape[0]):
        g = order[gg]
        a = link[g, 0]
        b = link[g, 1]
        first = link[g, 2]
        last = link[g, 3]
        nx = manifold[g, M_NX]
        ny = manifold[g, M_NY]
        tx = -ny
        ty = nx
        ima = body[a, B_IM]
        iia = body[a, B_II]
        imb = body[b, B_IM]
        iib = body[b, B_II]
        vax = body[a, B_VX]
        vay = body[a, B_VY]
        wa = body[a, B_W]
        vbx = body[b, B_VX]
        vby = body[b, B_VY]
        wb = body[b, B_W]
        row = int(manifold[g, M_ROW])
        bias_rate = softness[row, 0]
        mass_scale = softness[row, 1]
        impulse_scale = softness[row, 2]
        dn = 0.0
        dta = 0.0
        dtb = 0.0
        if moved:
            dn = (body[a, B_DX] - body[b, B_DX]) * nx + (body[a, B_DY] - body[b, B_DY]) * ny
            dta = body[a, B_DA]
            dtb = body[b, B_DA]

        # Friction first: non-penetration has the last word.
        for k in range(first, last):
            rta = point[k, P_RTA]
            rtb = point[k, P_RTB]
            vt = (vax - vbx) * tx + (vay - vby) * ty + wa * rta - wb * rtb
            limit = point[k, P_MU] * point[k, P_NI]
            old = point[k, P_TI]
            new = old - point[k, P_TMASS] * vt
            if new > limit:
                new = limit
            elif new < -limit:
                new = -limit
            point[k, P_TI] = new
            d = new - old
            vax += ima * d * tx
            vay += ima * d * ty
            wa += iia * d * rta
            vbx -= imb * d * tx
            vby -= imb * d * ty
            wb -= iib * d * rtb

        if last - first == 2 and manifold[g, M_OK] != 0.0:
            # Both points at once (Box2D 2.4's block solver on the soft rows): sequential
            # impulses on two points of one face converge slowly and spin the body.
            k0 = first
            k1 = first + 1
            rna0 = point[k0, P_RNA]
            rnb0 = point[k0, P_RNB]
            rna1 = point[k1, P_RNA]
            rnb1 = point[k1, P_RNB]
            # Separation now, to first order in the rotation (the same linearisation as the
            # velocity rows): start-of-step separation plus the anchors' travel.
            s0 = point[k0, P_SEP] + dn + dta * rna0 - dtb * rnb0
            s1 = point[k1, P_SEP] + dn + dta * rna1 - dtb * rnb1
            bias0, ms0, is0 = _row(s0, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
            bias1, ms1, is1 = _row(s1, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
            vn0 = (vax - vbx) * nx + (vay - vby) * ny + wa * rna0 - wb * rnb0
            vn1 = (vax - vbx) * nx + (vay - vby) * ny + wa * rna1 - wb * rnb1
            l0 = point[k0, P_NI]
            l1 = point[k1, P_NI]
            k11 = manifold[g, M_K11]
            k12 = manifold[g, M_K12]
            k22 = manifold[g, M_K22]
            # Rows scaled by their mass scale: w_i * ms_i = (K x)_i + c_i, with K symmetric.
            c0 = ms0 * (vn0 + bias0) - k11 * l0 - k12 * l1 + is0 * k11 * (l0 - point[k0, P_REF])
            c1 = ms1 * (vn1 + bias1) - k12 * l0 - k22 * l1 + is1 * k22 * (l1 - point[k1, P_REF])
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
            if x0 > point[k0, P_MAXNI]:
                point[k0, P_MAXNI] = x0
            if x1 > point[k1, P_MAXNI]:
                point[k1, P_MAXNI] = x1
            d0 = x0 - l0
            d1 = x1 - l1
            d = d0 + d1
            vax += ima * d * nx
            vay += ima * d * ny
            wa += iia * (d0 * rna0 + d1 * rna1)
            vbx -= imb * d * nx
            vby -= imb * d * ny
            wb -= iib * (d0 * rnb0 + d1 * rnb1)
        else:
            for k in range(first, last):
                rna = point[k, P_RNA]
                rnb = point[k, P_RNB]
                sep = point[k, P_SEP] + dn + dta * rna - dtb * rnb
                bias, ms, isc = _row(sep, inv_h, use_bias, bias_rate, mass_scale, impulse_scale, max_push)
                vn = (vax - vbx) * nx + (vay - vby) * ny + wa * rna - wb * rnb
                old = point[k, P_NI]
                new = old - point[k, P_NMASS] * ms * (vn + bias) - isc * (old - point[k, P_REF])
                if new < 0.0:
                    new = 0.0
                point[k, P_NI] = new
                if new > point[k, P_MAXNI]:
                    point[k, P_MAXNI] = new
                d = new - old
                vax += ima * d * nx
                vay += ima * d * ny
                wa += iia * d * rna
                vbx -= imb * d * nx
                vby -= imb * d * ny
                wb -= iib * d * rnb

        # Bodies that do not move are not written: a store would chain every contact on the
        # ground into one long dependency through memory.
        if ima != 0.0 or iia != 0.0:
            body[a, B_VX] = vax
            body[a, B_VY] = vay
            body[a, B_W] = wa
        if imb != 0.0 or iib != 0.0:
            body[b, B_VX] = vbx
            body[b, B_VY] = vby
            body[b, B_W] = wb


@njit(cache=True)
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


@njit(cache=True)
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
def _bounces(e: float, approach: float, max_normal_impulse: float, threshold: float) -> bool:
    """Restitution applies: elastic material, fast approach, and the contact did push."""
    return e != 0.0 and approach < -threshold and max_normal_impulse > 0.0


@njit(cache=True, inline="always")
def _normal_speed(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    a: int,
    b: int,
    nx: float,
    ny: float,
    rna: float,
    rnb: float,
) -> float:
    """Relative normal speed (A minus B, along the normal) at a point with the given arms."""
    return (
        (velocity[a, 0] - velocity[b, 0]) * nx
        + (velocity[a, 1] - velocity[b, 1]) * ny
        + angular_velocity[a] * rna
        - angular_velocity[b] * rnb
    )


@njit(cache=True)
def solve_contacts(
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass_body: np.ndarray,
    inv_inertia_body: np.ndarray,
    moving: np.ndarray,
    friction_body: np.ndarray,
    restitution_body: np.ndarray,
    pairs: np.ndarray,
    pair_index: np.ndarray,
    key: np.ndarray,
    point_a: np.ndarray,
    point_b: np.ndarray,
    normal: np.ndarray,
    separation: np.ndarray,
    c: int,
    prev_a: np.ndarray,
    prev_b: np.ndarray,
    prev_key: np.ndarray,
    prev_state: np.ndarray,
    prev_normal_impulse: np.ndarray,
    prev_tangent_impulse: np.ndarray,
    dt: float,
    gravity_x: float,
    gravity_y: float,
    substeps: int,
    velocity_iterations: int,
    relax_iterations: int,
    warm_start: bool,
    contact_hertz: float,
    static_hertz_scale: float,
    damping_ratio: float,
    max_push: float,
    restitution_threshold: float,
    reference_weight: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Warm start, solve, integrate positions, relax, restitution for ``c`` contact points.

    Moves the moving bodies (``moving (n,) bool``: dynamic and awake) and returns ``(body_a,
    body_b, normal_impulse, tangent_impulse, toi, state)`` for the points.
    """
    n = position.shape[0]
    inv_mass = np.zeros(n)
    inv_inertia = np.zeros(n)
    for i in range(n):
        if moving[i]:
            inv_mass[i] = inv_mass_body[i]
            inv_inertia[i] = inv_inertia_body[i]

    body_a = np.empty(c, dtype=np.int64)
    body_b = np.empty(c, dtype=np.int64)
    anchor_a = np.empty((c, 2))
    anchor_b = np.empty((c, 2))
    cross_a = np.empty((c, 2))  # cross(r_a, normal), cross(r_a, tangent)
    cross_b = np.empty((c, 2))
    normal_mass = np.empty(c)
    tangent_mass = np.empty(c)
    friction = np.empty(c)
    restitution = np.empty(c)
    approach = np.empty(c)
    normal_impulse = np.zeros(c)
    tangent_impulse = np.zeros(c)
    max_normal_impulse = np.zeros(c)
    toi = np.zeros(c)
    state = np.empty(c, dtype=np.int8)

    # -- prepare: anchors, effective masses, materials, approach speed, warm start match --
    prev_count = prev_a.shape[0]
    q = 0
    for k in range(c):
        p = pair_index[k]
        a = pairs[p, 0]
        b = pairs[p, 1]
        body_a[k] = a
        body_b[k] = b
        mx = 0.5 * (point_a[k, 0] + point_b[k, 0])
        my = 0.5 * (point_a[k, 1] + point_b[k, 1])
        rax = mx - position[a, 0]
        ray = my - position[a, 1]
        rbx = mx - position[b, 0]
        rby = my - position[b, 1]
        anchor_a[k, 0] = rax
        anchor_a[k, 1] = ray
        anchor_b[k, 0] = rbx
        anchor_b[k, 1] = rby
        nx = normal[k, 0]
        ny = normal[k, 1]
        rna = rax * ny - ray * nx
        rnb = rbx * ny - rby * nx
        kn = inv_mass[a] + inv_mass[b] + inv_inertia[a] * rna * rna + inv_inertia[b] * rnb * rnb
        normal_mass[k] = 1.0 / kn if kn > 0.0 else 0.0
        rta = rax * nx + ray * ny  # cross(r, t) with t = (-ny, nx)
        rtb = rbx * nx + rby * ny
        cross_a[k, 0] = rna
        cross_a[k, 1] = rta
        cross_b[k, 0] = rnb
        cross_b[k, 1] = rtb
        kt = inv_mass[a] + inv_mass[b] + inv_inertia[a] * rta * rta + inv_inertia[b] * rtb * rtb
        tangent_mass[k] = 1.0 / kt if kt > 0.0 else 0.0
        friction[k] = math.sqrt(friction_body[a] * friction_body[b])
        restitution[k] = max(restitution_body[a], restitution_body[b])
        dvx = velocity[a, 0] - angular_velocity[a] * ray - velocity[b, 0] + angular_velocity[b] * rby
        dvy = velocity[a, 1] + angular_velocity[a] * rax - velocity[b, 1] - angular_velocity[b] * rbx
        vn = dvx * nx + dvy * ny
        approach[k] = vn
        s = separation[k]
        if s > 0.0:
            state[k] = STATE_SPECULATIVE
            toi[k] = min(s / -vn, dt) if vn < 0.0 else dt
        else:
            state[k] = STATE_NEW
        # Both lists are in (body_a, body_b) order: walk the previous one alongside.
        while q < prev_count and (prev_a[q] < a or (prev_a[q] == a and prev_b[q] < b)):
            q += 1
        r = q
        while r < prev_count and prev_a[r] == a and prev_b[r] == b:
            if prev_key[r] == key[k]:
                if warm_start:
                    normal_impulse[k] = prev_normal_impulse[r]
                    tangent_impulse[k] = prev_tangent_impulse[r]
                if s <= 0.0 and prev_state[r] != STATE_SPECULATIVE:
                    state[k] = STATE_PERSISTING
                break
            r += 1

    # Manifolds: runs of points from the same pair.
    offsets_buffer = np.empty(c + 1, dtype=np.int64)
    groups = 0
    for k in range(c):
        if k == 0 or pair_index[k] != pair_index[k - 1]:
            offsets_buffer[groups] = k
            groups += 1
    offsets_buffer[groups] = c
    offsets = offsets_buffer[: groups + 1]
    # Two-point manifolds: the 2 x 2 normal effective mass K (k11, k12, k22), its inverse
    # (i11, i12, i22) and whether it is well conditioned.
    block = np.zeros((groups, 7))
    for g in range(groups):
        first = offsets[g]
        if offsets[g + 1] - first != 2:
            continue
        a = body_a[first]
        b = body_b[first]
        ms = inv_mass[a] + inv_mass[b]
        rna0 = cross_a[first, 0]
        rnb0 = cross_b[first, 0]
        rna1 = cross_a[first + 1, 0]
        rnb1 = cross_b[first + 1, 0]
        k11 = ms + inv_inertia[a] * rna0 * rna0 + inv_inertia[b] * rnb0 * rnb0
        k22 = ms + inv_inertia[a] * rna1 * rna1 + inv_inertia[b] * rnb1 * rnb1
        k12 = ms + inv_inertia[a] * rna0 * rna1 + inv_inertia[b] * rnb0 * rnb1
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

    # The world added a whole step of gravity; give it back one substep at a time so each
    # substep sees the load it must carry (Box2D v3's soft step).
    h = dt / substeps
    inv_hs = 1.0 / h
    for i in range(n):
        if moving[i] and inv_mass_body[i] > 0.0:
            velocity[i, 0] -= gravity_x * dt
            velocity[i, 1] -= gravity_y * dt

    # Box2D v3.1: contacts against bodies that do not move are twice as stiff (they carry
    # whole stacks and cannot be shared out by the other body's motion).
    softness = np.empty((2, 3))
    hertz = min(contact_hertz, 0.25 * inv_hs)
    softness[0, 0], softness[0, 1], softness[0, 2] = _soft(hertz, damping_ratio, h)
    softness[1, 0], softness[1, 1], softness[1, 2] = _soft(
        min(static_hertz_scale * hertz, 0.25 * inv_hs), damping_ratio, h
    )

    # The substep loop runs on packed copies: one row per body, per point, per manifold, so
    # the hot loops touch a handful of arrays.
    body = np.empty((n, BODY_COLUMNS))
    for i in range(n):
        body[i, B_VX] = velocity[i, 0]
        body[i, B_VY] = velocity[i, 1]
        body[i, B_W] = angular_velocity[i]
        body[i, B_IM] = inv_mass[i]
        body[i, B_II] = inv_inertia[i]
        body[i, B_DX] = 0.0
        body[i, B_DY] = 0.0
        body[i, B_DA] = 0.0
    point = np.empty((c, POINT_COLUMNS))
    for k in range(c):
        point[k, P_RNA] = cross_a[k, 0]
        point[k, P_RNB] = cross_b[k, 0]
        point[k, P_RTA] = cross_a[k, 1]
        point[k, P_RTB] = cross_b[k, 1]
        point[k, P_NMASS] = normal_mass[k]
        point[k, P_TMASS] = tangent_mass[k]
        point[k, P_MU] = friction[k]
        point[k, P_SEP] = separation[k]
        point[k, P_NI] = normal_impulse[k]
        point[k, P_TI] = tangent_impulse[k]
        point[k, P_MAXNI] = 0.0
        point[k, P_REF] = normal_impulse[k] * reference_weight
    manifold = np.empty((groups, MANIFOLD_COLUMNS))
    link = np.empty((groups, 4), dtype=np.int64)
    for g in range(groups):
        first = offsets[g]
        a = body_a[first]
        b = body_b[first]
        link[g, 0] = a
        link[g, 1] = b
        link[g, 2] = first
        link[g, 3] = offsets[g + 1]
        manifold[g, M_NX] = normal[first, 0]
        manifold[g, M_NY] = normal[first, 1]
        for j in range(7):
            manifold[g, M_K11 + j] = block[g, j]
        manifold[g, M_ROW] = 1.0 if inv_mass[a] == 0.0 or inv_mass[b] == 0.0 else 0.0
    total_normal = np.zeros(c)
    total_tangent = np.zeros(c)
    order = _interleaved_order(groups, SOLVE_STREAMS)

    for sub in range(substeps):
        for i in range(n):
            if moving[i] and inv_mass_body[i] > 0.0:
                body[i, B_VX] += gravity_x * h
                body[i, B_VY] += gravity_y * h
        _warm_start(body, point, manifold, link)
        for _ in range(velocity_iterations):
            _solve(body, point, manifold, link, order, softness, inv_hs, True, sub > 0, max_push)
        # Positions <- velocities (semi-implicit Euler).
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
        for _ in range(relax_iterations):
            _solve(body, point, manifold, link, order, softness, inv_hs, False, True, max_push)
        for k in range(c):
            total_normal[k] += point[k, P_NI]
            total_tangent[k] += point[k, P_TI]

    for i in range(n):
        velocity[i, 0] = body[i, B_VX]
        velocity[i, 1] = body[i, B_VY]
        angular_velocity[i] = body[i, B_W]
    for k in range(c):
        normal_impulse[k] = point[k, P_NI]
        tangent_impulse[k] = point[k, P_TI]
        max_normal_impulse[k] = point[k, P_MAXNI]

    # Angles wrapped to [-pi, pi).
    for i in range(n):
        t = angle[i]
        if t >= math.pi or t < -math.pi:
            angle[i] = (t + math.pi) % (2.0 * math.pi) - math.pi

    # -- restitution from the approach speed before solving; resting contacts stay put --
    for g in range(groups):
        first = offsets[g]
        last = offsets[g + 1]
        a = body_a[first]
        b = body_b[first]
        nx = normal[first, 0]
        ny = normal[first, 1]
        if last - first == 2 and block[g, 6] != 0.0:
            k0 = first
            k1 = first + 1
            if _bounces(
                restitution[k0], approach[k0], max_normal_impulse[k0], restitution_threshold
            ) and _bounces(restitution[k1], approach[k1], max_normal_impulse[k1], restitution_threshold):
                # Both points together, or the second undoes the first's spin.
                c0 = _normal_speed(velocity, angular_velocity, a, b, nx, ny, cross_a[k0, 0], cross_b[k0, 0])
                c1 = _normal_speed(velocity, angular_velocity, a, b, nx, ny, cross_a[k1, 0], cross_b[k1, 0])
                c0 += restitution[k0] * approach[k0]
                c1 += restitution[k1] * approach[k1]
                d0 = -(block[g, 3] * c0 + block[g, 4] * c1)
                d1 = -(block[g, 4] * c0 + block[g, 5] * c1)
                if normal_impulse[k0] + d0 >= 0.0 and normal_impulse[k1] + d1 >= 0.0:
                    for k, d in ((k0, d0), (k1, d1)):
                        normal_impulse[k] += d
                        total_normal[k] += d
                        _apply(
                            velocity,
                            angular_velocity,
                            inv_mass,
                            inv_inertia,
                            a,
                            b,
                            anchor_a[k, 0],
                            anchor_a[k, 1],
                            anchor_b[k, 0],
                            anchor_b[k, 1],
                            d * nx,
                            d * ny,
                        )
                    continue
        for k in range(first, last):
            e = restitution[k]
            if not _bounces(e, approach[k], max_normal_impulse[k], restitution_threshold):
                continue
            vn = _normal_speed(velocity, angular_velocity, a, b, nx, ny, cross_a[k, 0], cross_b[k, 0])
            old = normal_impulse[k]
            new = max(old - normal_mass[k] * (vn + e * approach[k]), 0.0)
            normal_impulse[k] = new
            d = new - old
            total_normal[k] += d
            _apply(
                velocity,
                angular_velocity,
                inv_mass,
                inv_inertia,
                a,
                b,
                anchor_a[k, 0],
                anchor_a[k, 1],
                anchor_b[k, 0],
                anchor_b[k, 1],
                d * nx,
                d * ny,
            )

    return body_a, body_b, normal_impulse, tangent_impulse, total_normal, total_tangent, toi, state


@njit(cache=True)
def _find(parent: np.ndarray, i: int) -> int:
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        nxt = parent[i]
        parent[i] = root
        i = nxt
    return root


@njit(cache=True)
def _wake_islands(sleeping: np.ndarray, sleep_time: np.ndarray, island: np.ndarray, wake: np.ndarray) -> None:
    """Wake every sleeping body whose island (``island (n,)``, the id it fell asleep with) is
    marked in ``wake (n,) bool``."""
    for i in range(sleeping.shape[0]):
        if sleeping[i] and island[i] >= 0 and wake[island[i]]:
            sleeping[i] = False
            sleep_time[i] = 0.0


@njit(cache=True)
def update_sleep(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    static: np.ndarray,
    sleeping: np.ndarray,
    sleep_time: np.ndarray,
    island: np.ndarray,
    body_a: np.ndarray,
    body_b: np.ndarray,
    separation: np.ndarray,
    dt: float,
    linear_speed: float,
    angular_speed: float,
    time_to_sleep: float,
) -> None:
    """Islands of touching moving bodies; an island whose bodies all stayed slow sleeps.

    ``sleep_time (n,)`` seconds each body has been slow; ``island (n,) int64`` the island a
    sleeping body fell asleep with (-1 when awake). Contacts with static bodies do not join
    islands. Sleeping bodies get zero velocity. A sleeping body touching an awake body that
    is not at rest wakes with the whole island it slept in.
    """
    n = velocity.shape[0]
    for i in range(n):
        if static[i] or sleeping[i]:
            continue
        v2 = velocity[i, 0] * velocity[i, 0] + velocity[i, 1] * velocity[i, 1]
        if v2 > linear_speed * linear_speed or abs(angular_velocity[i]) > angular_speed:
            sleep_time[i] = 0.0
        else:
            sleep_time[i] += dt
    parent = np.arange(n)
    for k in range(body_a.shape[0]):
        if separation[k] > 0.0:
            continue
        a = body_a[k]
        b = body_b[k]
        if static[a] or static[b]:
            continue
        ra = _find(parent, a)
        rb = _find(parent, b)
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
    # An island's clock is its least rested awake body.
    island_time = np.full(n, np.inf)
    island_awake = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if static[i] or sleeping[i]:
            continue
        r = _find(parent, i)
        island_awake[r] = True
        if sleep_time[i] < island_time[r]:
            island_time[r] = sleep_time[i]
    wake = np.zeros(n, dtype=np.bool_)
    any_wake = False
    for i in range(n):
        if static[i]:
            continue
        r = _find(parent, i)
        if not island_awake[r]:
            continue
        if island_time[r] >= time_to_sleep:
            if not sleeping[i]:
                sleeping[i] = True
                island[i] = r
                velocity[i, 0] = 0.0
                velocity[i, 1] = 0.0
                angular_velocity[i] = 0.0
        elif sleeping[i]:
            wake[island[i]] = True
            any_wake = True
    if any_wake:
        _wake_islands(sleeping, sleep_time, island, wake)
    for i in range(n):
        if not sleeping[i]:
            island[i] = -1


@njit(cache=True)
def iterative_step(
    local_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    static: np.ndarray,
    sleeping: np.ndarray,
    radius: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    world_vertices: np.ndarray,
    sleep_time: np.ndarray,
    was_sleeping: np.ndarray,
    island: np.ndarray,
    sleep_enabled: bool,
    prev_a: np.ndarray,
    prev_b: np.ndarray,
    prev_key: np.ndarray,
    prev_state: np.ndarray,
    prev_normal_impulse: np.ndarray,
    prev_tangent_impulse: np.ndarray,
    dt: float,
    gravity_x: float,
    gravity_y: float,
    speculative_distance: float,
    substeps: int,
    velocity_iterations: int,
    relax_iterations: int,
    warm_start: bool,
    contact_hertz: float,
    static_hertz_scale: float,
    damping_ratio: float,
    max_push: float,
    restitution_threshold: float,
    load_memory: float,
) -> tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
]:
    """The whole iterative step over the world's arrays (one compiled call).

    Returns this step's contacts, one row per point: ``(body_a, body_b, key, point_a,
    point_b, normal, separation, toi, normal_impulse, tangent_impulse, total_normal_impulse,
    total_tangent_impulse, state)``; the plain impulses are per substep (the warm-start store),
    the totals are over the whole step (N s).
    """
    n = position.shape[0]
    moving = np.empty(n, dtype=np.bool_)
    wake = np.zeros(n, dtype=np.bool_)
    any_wake = False
    for i in range(n):
        if not sleep_enabled:
            sleeping[i] = False
        if was_sleeping[i] and not sleeping[i]:
            # Woken from outside (force, impulse, velocity): its clock starts again, and
            # the island it slept with wakes too.
            sleep_time[i] = 0.0
            if island[i] >= 0:
                wake[island[i]] = True
                any_wake = True
    if any_wake:
        _wake_islands(sleeping, sleep_time, island, wake)
    for i in range(n):
        if not sleeping[i]:
            island[i] = -1
        moving[i] = not (static[i] or sleeping[i])
    pairs, pair_index, key, point_a, point_b, normal, separation, c = collide(
        local_vertices,
        vertex_count,
        position,
        angle,
        velocity,
        angular_velocity,
        radius,
        moving,
        world_vertices,
        dt,
        speculative_distance,
    )
    body_a, body_b, normal_impulse, tangent_impulse, total_normal, total_tangent, toi, state = solve_contacts(
        position,
        angle,
        velocity,
        angular_velocity,
        inv_mass,
        inv_inertia,
        moving,
        friction,
        restitution,
        pairs,
        pair_index,
        key,
        point_a,
        point_b,
        normal,
        separation,
        c,
        prev_a,
        prev_b,
        prev_key,
        prev_state,
        prev_normal_impulse,
        prev_tangent_impulse,
        dt,
        gravity_x,
        gravity_y,
        substeps,
        velocity_iterations,
        relax_iterations,
        warm_start,
        contact_hertz,
        static_hertz_scale,
        damping_ratio,
        max_push,
        restitution_threshold,
        load_memory,
    )
    if sleep_enabled:
        update_sleep(
            velocity,
            angular_velocity,
            static,
            sleeping,
            sleep_time,
            island,
            body_a,
            body_b,
            separation[:c],
            dt,
            SLEEP_LINEAR_SPEED,
            SLEEP_ANGULAR_SPEED,
            SLEEP_TIME,
        )
    for i in range(n):
        was_sleeping[i] = sleeping[i]
    return (
        body_a,
        body_b,
        key[:c].copy(),
        point_a[:c].copy(),
        point_b[:c].copy(),
        normal[:c].copy(),
        separation[:c].copy(),
        toi,
        normal_impulse,
        tangent_impulse,
        total_normal,
        total_tangent,
        state,
    )


def _empty_store() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(0),
        np.zeros(0),
    )


class IterativeSolver:
    """The world's ``"iterative"`` solver: ``step(world, dt) -> Contacts``, ``reset()``.

    Settings (attributes, change at will): ``substeps`` per step, ``velocity_iterations`` and
    ``relax_iterations`` (passes per substep), ``warm_start`` (bool), ``contact_hertz`` (1/s),
    ``static_hertz_scale`` (stiffer against bodies that do not move), ``damping_ratio``,
    ``max_push_speed`` (units/s), ``restitution_threshold`` (units/s), ``load_memory`` (0..1),
    ``speculative_distance`` (units, the speculative reach of bodies at rest).
    """

    def __init__(
        self,
        substeps: int = SUBSTEPS,
        velocity_iterations: int = VELOCITY_ITERATIONS,
        relax_iterations: int = RELAX_ITERATIONS,
        warm_start: bool = True,
    ) -> None:
        self.substeps = int(substeps)
        self.velocity_iterations = int(velocity_iterations)
        self.relax_iterations = int(relax_iterations)
        self.warm_start = bool(warm_start)
        self.contact_hertz = CONTACT_HERTZ
        self.static_hertz_scale = STATIC_CONTACT_HERTZ_SCALE
        self.load_memory = CONTACT_LOAD_MEMORY
        self.damping_ratio = CONTACT_DAMPING_RATIO
        self.max_push_speed = CONTACT_MAX_PUSH_SPEED
        self.restitution_threshold = RESTITUTION_THRESHOLD
        self.speculative_distance = SPECULATIVE_DISTANCE
        self.reset()

    def reset(self) -> None:
        """Forget stored contacts and sleep clocks (body indices changed)."""
        self._prev_a, self._prev_b, self._prev_key, self._prev_ni, self._prev_ti = _empty_store()
        self._prev_state = np.zeros(0, dtype=np.int8)
        self._sleep_time = np.zeros(0)
        self._was_sleeping = np.zeros(0, dtype=np.bool_)
        self._island = np.zeros(0, dtype=np.int64)

    def step(self, world: Any, dt: float) -> Any:
        """Advance ``world`` by ``dt`` seconds: contacts, response, positions; returns Contacts."""
        n = world._position.shape[0]
        if self._sleep_time.shape[0] != n:
            self._resize(n)
        gravity = world.gravity
        (
            body_a,
            body_b,
            key,
            point_a,
            point_b,
            normal,
            separation,
            toi,
            normal_impulse,
            tangent_impulse,
            total_normal,
            total_tangent,
            state,
        ) = iterative_step(
            world._local_vertices,
            world._vertex_count,
            world._position,
            world._angle,
            world._velocity,
            world._angular_velocity,
            world._inv_mass,
            world._inv_inertia,
            world._static,
            world._sleeping,
            world._radius,
            world._friction,
            world._restitution,
            world._world_vertices,
            self._sleep_time,
            self._was_sleeping,
            self._island,
            bool(world.sleep_enabled),
            self._prev_a,
            self._prev_b,
            self._prev_key,
            self._prev_state,
            self._prev_ni,
            self._prev_ti,
            dt,
            float(gravity[0]),
            float(gravity[1]),
            self.speculative_distance,
            self.substeps,
            self.velocity_iterations,
            self.relax_iterations,
            self.warm_start,
            self.contact_hertz,
            self.static_hertz_scale,
            self.damping_ratio,
            self.max_push_speed,
            self.restitution_threshold,
            self.load_memory,
        )
        self._prev_a = body_a
        self._prev_b = body_b
        self._prev_key = key
        self._prev_state = state.copy()
        self._prev_ni = normal_impulse
        self._prev_ti = tangent_impulse
        return _contacts_view(
            body_a.copy(),
            body_b.copy(),
            point_a,
            point_b,
            normal,
            separation,
            toi,
            total_normal,
            total_tangent,
            state,
        )

    def _resize(self, n: int) -> None:
        keep = min(n, self._sleep_time.shape[0])
        grown = np.zeros(n)
        grown[:keep] = self._sleep_time[:keep]
        was = np.zeros(n, dtype=np.bool_)
        was[:keep] = self._was_sleeping[:keep]
        self._sleep_time = grown
        self._was_sleeping = was
        island = np.full(n, -1, dtype=np.int64)
        island[:keep] = self._island[:keep]
        self._island = island


_CONTACT_FIELDS = (
    "body_a",
    "body_b",
    "point_a",
    "point_b",
    "normal",
    "separation",
    "toi",
    "normal_impulse",
    "tangent_impulse",
    "state",
)


def _contacts_view(*arrays: np.ndarray) -> Any:
    """``collision.world.Contacts`` over read-only views of arrays this module just made.

    The arrays come from the compiled step with the agreed dtypes and shapes, so the
    dataclass's per-field copying and checking (a large share of a small world's step) is
    skipped. They become read-only.
    """
    from collision.world import Contacts

    view = Contacts.__new__(Contacts)
    setter = object.__setattr__
    for name, array in zip(_CONTACT_FIELDS, arrays, strict=True):
        array.flags.writeable = False
        setter(view, name, array)
    return view
