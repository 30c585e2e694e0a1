"""The "arcade" response: Tutorial 4's velocity reflection, with seed 002's ordered timeslices.

Response to one hit (Tutorial 4, on velocities): with ``D = vA - vB`` approaching along the
normal ``N`` (``D.N < 0``), ``Dn = (D.N) N``, ``Dt = D - Dn``, the change
``dD = -(1 + e) Dn - f Dt`` is shared by inverse mass: ``vA += dD mA^-1 / (mA^-1 + mB^-1)``,
``vB -= dD mB^-1 / (...)``. ``e`` is the restitution, ``f`` the friction coefficient (0 none,
1 stops the sliding dead); while ``|Dt|`` is below the glue speed (the pair's
``static_friction``, in units/s) ``f`` becomes 1, which cancels ``Dt`` exactly (the article's
"set Vt to (0, 0)"; the original's 1.01 reversed it by 1%). An overlap is first pushed apart
by its full depth along ``N``, shared by inverse mass, so a static body never moves. Rotation
is kinematic: angular velocity turns a body but collisions never change it.

Processing (``world.ordered``):

- ``True`` (seed 002): find the earliest hit over all candidate pairs in the remaining
  timeslice; advance every body to that time; resolve it; repeat on what is left of the step,
  up to ``MAX_SUBDIVISIONS`` hits per step (then one warning per solver: the remaining pairs
  are resolved immediately, and a body that would still hit something moves on only until that
  hit, dropping the rest of its step, so nothing passes through). Hits within ``ARCADE_TIME_EPSILON`` of
  each other are ranked by contact surface length, the overlap along the tangent of the two
  touching features, largest first; and an edge that meets another edge only at a corner
  (surface below ``ARCADE_CRACK_LENGTH``, without overlap) is a graze, not a hit: that is the
  crack between two flush boxes, which must not snag a body sliding along them.
  ``world.surface_rule = False`` turns off that ranking and the graze rule (ordering stays),
  to show what each part of seed 002 does.
- ``False`` (Tutorial 4 as the original did it): each candidate pair in index order, once,
  over the whole step, resolved at once; bodies are not moved to the time of impact.

A pair that touches without approaching (normal speed above ``-ARCADE_APPROACH_SPEED``) and
does not overlap is resting, not hit.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from collision.broadphase import candidate_pairs, swept_bounds, transform_vertices
from collision.contacts import contact_kernel, support_points
from collision.impulse import candidates, contacts_from_rows
from collision.sat import sweep_kernel
from collision.tolerances import (
    ARCADE_APPROACH_SPEED,
    ARCADE_CRACK_LENGTH,
    ARCADE_TIME_EPSILON,
    BROADPHASE_MARGIN,
)

if TYPE_CHECKING:
    from collision.world import Contacts, World

#: Most hits resolved earliest-first in one step before the rest are resolved immediately.
MAX_SUBDIVISIONS = 64

#: Friction coefficient used inside the glue speed: cancels the tangential velocity exactly.
GLUE_FRICTION = 1.0


@njit(cache=True)
def contact_surface(
    a: np.ndarray,
    b: np.ndarray,
    nx: float,
    ny: float,
    t: float,
    vax: float,
    vay: float,
    vbx: float,
    vby: float,
) -> tuple[float, bool]:
    """``(length, edge_edge)``: overlap along the tangent of A's and B's touching features at
    time ``t`` (0 for a corner), and whether both features are edges."""
    ca, a0x, a0y, a1x, a1y = support_points(a, nx, ny, vax * t, vay * t)
    cb, b0x, b0y, b1x, b1y = support_points(b, -nx, -ny, vbx * t, vby * t)
    tx = -ny
    ty = nx
    sa0 = a0x * tx + a0y * ty
    sa1 = a1x * tx + a1y * ty
    sb0 = b0x * tx + b0y * ty
    sb1 = b1x * tx + b1y * ty
    lo = max(min(sa0, sa1), min(sb0, sb1))
    hi = min(max(sa0, sa1), max(sb0, sb1))
    return max(hi - lo, 0.0), (ca == 2 and cb == 2)


@njit(cache=True)
def _mirror(r: int, root: np.ndarray, position: np.ndarray, velocity: np.ndarray) -> None:
    """Copy body ``r``'s position and velocity into the rows of its parts (compounds)."""
    v = r + 1
    while v < root.shape[0] and root[v] == r:
        position[v, 0] = position[r, 0]
        position[v, 1] = position[r, 1]
        velocity[v, 0] = velocity[r, 0]
        velocity[v, 1] = velocity[r, 1]
        v += 1


@njit(cache=True)
def _shift_rows(
    r: int, root: np.ndarray, world_vertices: np.ndarray, vertex_count: np.ndarray, dx: float, dy: float
) -> None:
    """Move the world vertices of every row of body ``r`` by (dx, dy)."""
    v = r
    while v < root.shape[0] and root[v] == r:
        for k in range(vertex_count[v]):
            world_vertices[v, k, 0] += dx
            world_vertices[v, k, 1] += dy
        v += 1


@njit(cache=True)
def _resolve(
    i: int,
    j: int,
    nx: float,
    ny: float,
    depth: float,
    position: np.ndarray,
    velocity: np.ndarray,
    inv_mass: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    static_friction: np.ndarray,
    root: np.ndarray,
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
) -> tuple[float, float, float, float]:
    """Push out an overlap and reflect the relative velocity (Tutorial 4).

    ``i``, ``j`` are bodies (roots); their part rows (compounds) and the world vertices of
    all their rows follow. Returns ``(push_a, push_b, normal_impulse, tangent_impulse)``: how
    far A moved along +n and B along -n, and the impulse magnitudes (N s).
    """
    jn_jt = _reflect(
        i, j, nx, ny, depth, position, velocity, inv_mass, friction, restitution, static_friction
    )
    push_a, push_b = jn_jt[0], jn_jt[1]
    _shift_rows(i, root, world_vertices, vertex_count, push_a * nx, push_a * ny)
    _shift_rows(j, root, world_vertices, vertex_count, -push_b * nx, -push_b * ny)
    _mirror(i, root, position, velocity)
    _mirror(j, root, position, velocity)
    return jn_jt


@njit(cache=True)
def _reflect(
    i: int,
    j: int,
    nx: float,
    ny: float,
    depth: float,
    position: np.ndarray,
    velocity: np.ndarray,
    inv_mass: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    static_friction: np.ndarray,
) -> tuple[float, float, float, float]:
    """The push and reflection of bodies ``i`` and ``j`` (see ``_resolve``)."""
    im_a = inv_mass[i]
    im_b = inv_mass[j]
    im_sum = im_a + im_b
    if im_sum <= 0.0:
        return 0.0, 0.0, 0.0, 0.0
    push_a = 0.0
    push_b = 0.0
    if depth > 0.0:
        push_a = depth * im_a / im_sum
        push_b = depth * im_b / im_sum
        position[i, 0] += push_a * nx
        position[i, 1] += push_a * ny
        position[j, 0] -= push_b * nx
        position[j, 1] -= push_b * ny
    dx = velocity[i, 0] - velocity[j, 0]
    dy = velocity[i, 1] - velocity[j, 1]
    dn = dx * nx + dy * ny
    if dn >= 0.0:
        return push_a, push_b, 0.0, 0.0
    tx = dx - dn * nx
    ty = dy - dn * ny
    vt = math.sqrt(tx * tx + ty * ty)
    e = max(restitution[i], restitution[j])
    f = min(math.sqrt(friction[i] * friction[j]), 1.0)
    if vt < math.sqrt(static_friction[i] * static_friction[j]):
        f = GLUE_FRICTION
    ddx = -(1.0 + e) * dn * nx - f * tx
    ddy = -(1.0 + e) * dn * ny - f * ty
    velocity[i, 0] += ddx * im_a / im_sum
    velocity[i, 1] += ddy * im_a / im_sum
    velocity[j, 0] -= ddx * im_b / im_sum
    velocity[j, 1] -= ddy * im_b / im_sum
    return push_a, push_b, -(1.0 + e) * dn / im_sum, f * vt / im_sum


@njit(cache=True)
def _active(
    a: np.ndarray,
    b: np.ndarray,
    nx: float,
    ny: float,
    t: float,
    depth: float,
    vax: float,
    vay: float,
    vbx: float,
    vby: float,
    skip_grazes: bool,
) -> tuple[bool, float]:
    """Whether a reported hit needs a response, and its contact surface length."""
    if depth <= 0.0 and (vax - vbx) * nx + (vay - vby) * ny >= -ARCADE_APPROACH_SPEED:
        return False, 0.0
    length, edge_edge = contact_surface(a, b, nx, ny, t, vax, vay, vbx, vby)
    if skip_grazes and depth <= 0.0 and edge_edge and length < ARCADE_CRACK_LENGTH:
        return False, length
    return True, length


@njit(cache=True)
def _record_and_resolve(
    rows: int,
    i: int,
    j: int,
    nx: float,
    ny: float,
    t: float,
    t_abs: float,
    depth: float,
    out_a: np.ndarray,
    out_b: np.ndarray,
    bodies: np.ndarray,
    points: np.ndarray,
    normals: np.ndarray,
    separation: np.ndarray,
    tois: np.ndarray,
    jn_out: np.ndarray,
    jt_out: np.ndarray,
    position: np.ndarray,
    velocity: np.ndarray,
    inv_mass: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    static_friction: np.ndarray,
    root: np.ndarray,
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
) -> int:
    """One hit of rows ``i`` and ``j``: append its contact rows (found before the push moves
    the bodies, with the velocities that made the hit), resolve it on their roots, and share
    its impulses among the rows. Returns the new row count."""
    a = world_vertices[i, : vertex_count[i]]
    b = world_vertices[j, : vertex_count[j]]
    vax = velocity[i, 0]
    vay = velocity[i, 1]
    vbx = velocity[j, 0]
    vby = velocity[j, 1]
    c = contact_kernel(a, b, nx, ny, t, vax, vay, vbx, vby, out_a, out_b)
    gap = -((vax - vbx) * nx + (vay - vby) * ny) * t
    first = rows
    for k in range(c):
        if rows >= bodies.shape[0]:
            break
        bodies[rows, 0] = root[i]
        bodies[rows, 1] = root[j]
        points[rows, 0] = out_a[k, 0]
        points[rows, 1] = out_a[k, 1]
        points[rows, 2] = out_b[k, 0]
        points[rows, 3] = out_b[k, 1]
        normals[rows, 0] = nx
        normals[rows, 1] = ny
        separation[rows] = -depth if depth > 0.0 else gap
        tois[rows] = t_abs
        rows += 1
    _, _, jn, jt = _resolve(
        root[i],
        root[j],
        nx,
        ny,
        depth,
        position,
        velocity,
        inv_mass,
        friction,
        restitution,
        static_friction,
        root,
        world_vertices,
        vertex_count,
    )
    for r in range(first, rows):
        jn_out[r] = jn / (rows - first)
        jt_out[r] = jt / (rows - first)
    return rows


@njit(cache=True)
def _immediate_pass(
    pairs: np.ndarray,
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    velocity: np.ndarray,
    inv_mass: np.ndarray,
    static: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    static_friction: np.ndarray,
    span: float,
    t_start: float,
    skip_grazes: bool,
    root: np.ndarray,
    continuous: bool,
    rows: int,
    bodies: np.ndarray,
    points: np.ndarray,
    normals: np.ndarray,
    separation: np.ndarray,
    tois: np.ndarray,
    jn_out: np.ndarray,
    jt_out: np.ndarray,
) -> int:
    """Each pair once, in order, over ``span`` seconds, resolved as found (Tutorial 4).
    Without ``continuous``: overlap only (no time of impact)."""
    out_a = np.zeros((2, 2))
    out_b = np.zeros((2, 2))
    for p in range(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        if not _responds(i, j, root, inv_mass):
            continue
        a = world_vertices[i, : vertex_count[i]]
        b = world_vertices[j, : vertex_count[j]]
        vax = velocity[i, 0]
        vay = velocity[i, 1]
        vbx = velocity[j, 0]
        vby = velocity[j, 1]
        if continuous:
            hit, nx, ny, t, depth = sweep_kernel(a, b, vax - vbx, vay - vby, span)
        else:
            hit, nx, ny, t, depth = sweep_kernel(a, b, 0.0, 0.0, span)
        if not hit:
            continue
        active, _ = _active(a, b, nx, ny, t, depth, vax, vay, vbx, vby, skip_grazes)
        if not active:
            continue
        rows = _record_and_resolve(
            rows,
            i,
            j,
            nx,
            ny,
            t,
            t_start + t,
            depth,
            out_a,
            out_b,
            bodies,
            points,
            normals,
            separation,
            tois,
            jn_out,
            jt_out,
            position,
            velocity,
            inv_mass,
            friction,
            restitution,
            static_friction,
            root,
            world_vertices,
            vertex_count,
        )
    return rows


@njit(cache=True)
def _responds(i: int, j: int, root: np.ndarray, inv_mass: np.ndarray) -> bool:
    """Whether rows ``i`` and ``j`` can collide: different bodies, not both of infinite mass
    (static or kinematic)."""
    ri = root[i]
    rj = root[j]
    return ri != rj and inv_mass[ri] + inv_mass[rj] > 0.0


@njit(cache=True)
def _advance_one(
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    static: np.ndarray,
    b: int,
    h: float,
) -> None:
    """Move body ``b`` on by ``h`` seconds (static bodies never move)."""
    if h <= 0.0 or static[b]:
        return
    position[b, 0] += velocity[b, 0] * h
    position[b, 1] += velocity[b, 1] * h
    a = angle[b] + angular_velocity[b] * h
    angle[b] = (a + math.pi) % (2.0 * math.pi) - math.pi


@njit(cache=True)
def _advance(
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    static: np.ndarray,
    h: float,
) -> None:
    """Move every body on by ``h`` seconds."""
    for b in range(position.shape[0]):
        _advance_one(position, angle, velocity, angular_velocity, static, b, h)


@njit(cache=True)
def arcade_kernel(
    pairs: np.ndarray,
    local_vertices: np.ndarray,
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    radius: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    static: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    static_friction: np.ndarray,
    dt: float,
    ordered: bool,
    surface_rule: bool,
    max_subdivisions: int,
    root: np.ndarray,
    continuous: bool,
) -> tuple[int, bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One arcade step (see the module docstring); positions and angles are integrated.

    ``root (n,) int64``: each row's body. A compound's parts are rows that mirror their root
    (pushes and velocity changes go to the root and are copied to them; collisions never
    change angular velocity here, so they turn alike). Kinematic bodies (inverse mass 0, not
    static) move with their velocity and are not hit by static or kinematic bodies. Without
    ``continuous`` every pair is tested for overlap once, in order (no time of impact).

    ``pairs``: the step's candidate pairs (``world_vertices`` current for them). Returns
    ``(count, capped, bodies, points, normals, separation, toi, normal_impulse,
    tangent_impulse)`` as :func:`collision.impulse.tutorial_kernel` does, and whether the cap on
    subdivisions was reached.
    """
    capacity = 4 * (pairs.shape[0] + max_subdivisions) + 2
    bodies = np.zeros((capacity, 2), dtype=np.int64)
    points = np.zeros((capacity, 4))
    normals = np.zeros((capacity, 2))
    separation = np.zeros(capacity)
    tois = np.zeros(capacity)
    jn_out = np.zeros(capacity)
    jt_out = np.zeros(capacity)
    rows = 0
    if not ordered or not continuous:
        rows = _immediate_pass(
            pairs,
            world_vertices,
            vertex_count,
            position,
            velocity,
            inv_mass,
            static,
            friction,
            restitution,
            static_friction,
            dt,
            0.0,
            False,
            root,
            continuous,
            rows,
            bodies,
            points,
            normals,
            separation,
            tois,
            jn_out,
            jt_out,
        )
        _advance(position, angle, velocity, angular_velocity, static, dt)
        return rows, False, bodies, points, normals, separation, tois, jn_out, jt_out

    n = position.shape[0]
    lo = np.empty((n, 2))
    hi = np.empty((n, 2))
    out_a = np.zeros((2, 2))
    out_b = np.zeros((2, 2))

    # The pending hits, one entry per pair: absolute time (inf: none), normal, depth, surface.
    # A hit between two bodies whose velocities have not changed since it was found stays
    # valid as time advances, so after each resolution only the two bodies involved are
    # tested again (against every body whose swept box meets theirs).
    capacity = max(16, 2 * pairs.shape[0])
    e_i = np.empty(capacity, dtype=np.int64)
    e_j = np.empty(capacity, dtype=np.int64)
    e_t = np.empty(capacity)
    e_nx = np.empty(capacity)
    e_ny = np.empty(capacity)
    e_depth = np.empty(capacity)
    e_len = np.empty(capacity)
    entries = 0
    for p in range(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        if not _responds(i, j, root, inv_mass):
            continue
        ok, t, nx, ny, depth, length = _evaluate(
            i, j, world_vertices, vertex_count, velocity, dt, surface_rule
        )
        if ok:
            e_i[entries] = i
            e_j[entries] = j
            e_t[entries] = t
            e_nx[entries] = nx
            e_ny[entries] = ny
            e_depth[entries] = depth
            e_len[entries] = length
            entries += 1

    t_now = 0.0
    hits = 0
    capped = False
    while True:
        remaining = dt - t_now
        if remaining <= 0.0:
            break
        if hits >= max_subdivisions:
            capped = True
            swept_bounds(
                world_vertices,
                vertex_count,
                velocity,
                angular_velocity,
                radius,
                remaining,
                BROADPHASE_MARGIN,
                lo,
                hi,
            )
            pairs = candidate_pairs(lo, hi, static)
            rows = _immediate_pass(
                pairs,
                world_vertices,
                vertex_count,
                position,
                velocity,
                inv_mass,
                static,
                friction,
                restitution,
                static_friction,
                remaining,
                t_now,
                True,
                root,
                True,
                rows,
                bodies,
                points,
                normals,
                separation,
                tois,
                jn_out,
                jt_out,
            )
            # Then each body moves on only until its own next hit, if it has one: that part of
            # the step is dropped for it rather than let it pass through another body.
            transform_vertices(local_vertices, vertex_count, position, angle, world_vertices)
            span = np.full(n, remaining)
            for p in range(pairs.shape[0]):
                i = pairs[p, 0]
                j = pairs[p, 1]
                if not _responds(i, j, root, inv_mass):
                    continue
                ok, t, _, _, _, _ = _evaluate(
                    i, j, world_vertices, vertex_count, velocity, remaining, surface_rule
                )
                if ok:
                    span[root[i]] = min(span[root[i]], t)
                    span[root[j]] = min(span[root[j]], t)
            for body in range(n):
                # A compound's rows move together, by its root's span.
                _advance_one(position, angle, velocity, angular_velocity, static, body, span[root[body]])
            break

        # Seed 002: the earliest hit wins; (nearly) simultaneous ones go to the larger surface.
        best = -1
        best_t = math.inf
        best_len = -1.0
        for e in range(entries):
            t = e_t[e]
            if t > best_t + ARCADE_TIME_EPSILON:
                continue
            # Without the surface rule, the first of simultaneous hits found wins.
            if t < best_t - ARCADE_TIME_EPSILON or (surface_rule and e_len[e] > best_len):
                best = e
                best_t = t
                best_len = e_len[e]
        if best < 0:
            _advance(position, angle, velocity, angular_velocity, static, remaining)
            break
        i = e_i[best]
        j = e_j[best]
        nx = e_nx[best]
        ny = e_ny[best]
        depth = e_depth[best]
        h = max(best_t - t_now, 0.0)
        _advance(position, angle, velocity, angular_velocity, static, h)
        t_now = max(best_t, t_now)
        transform_vertices(local_vertices, vertex_count, position, angle, world_vertices)
        rows = _record_and_resolve(
            rows,
            i,
            j,
            nx,
            ny,
            0.0,
            t_now,
            depth,
            out_a,
            out_b,
            bodies,
            points,
            normals,
            separation,
            tois,
            jn_out,
            jt_out,
            position,
            velocity,
            inv_mass,
            friction,
            restitution,
            static_friction,
            root,
            world_vertices,
            vertex_count,
        )
        hits += 1

        # Forget every pending hit of the two bodies (a static body never changes), then test
        # all their rows again over what is left of the step.
        ri = root[i]
        rj = root[j]
        kept = 0
        for e in range(entries):
            ei = root[e_i[e]]
            ej = root[e_j[e]]
            if (not static[ri] and (ei == ri or ej == ri)) or (not static[rj] and (ei == rj or ej == rj)):
                continue
            e_i[kept] = e_i[e]
            e_j[kept] = e_j[e]
            e_t[kept] = e_t[e]
            e_nx[kept] = e_nx[e]
            e_ny[kept] = e_ny[e]
            e_depth[kept] = e_depth[e]
            e_len[kept] = e_len[e]
            kept += 1
        entries = kept
        remaining = dt - t_now
        if remaining <= 0.0:
            continue
        swept_bounds(
            world_vertices,
            vertex_count,
            velocity,
            angular_velocity,
            radius,
            remaining,
            BROADPHASE_MARGIN,
            lo,
            hi,
        )
        for side in range(2):
            rd = ri if side == 0 else rj
            if static[rd]:
                continue
            d = rd - 1
            while True:
                d += 1
                if d >= n or root[d] != rd:
                    break
                for k in range(n):
                    # Each pair of bodies once: from A's rows, then B's except against A.
                    if root[k] == rd or (side == 1 and root[k] == ri) or not _responds(d, k, root, inv_mass):
                        continue
                    if (
                        lo[k, 0] > hi[d, 0]
                        or lo[d, 0] > hi[k, 0]
                        or lo[k, 1] > hi[d, 1]
                        or lo[d, 1] > hi[k, 1]
                    ):
                        continue
                    pi = min(d, k)
                    pj = max(d, k)
                    ok, t, enx, eny, edepth, length = _evaluate(
                        pi, pj, world_vertices, vertex_count, velocity, remaining, surface_rule
                    )
                    if not ok:
                        continue
                    if entries == e_i.shape[0]:
                        grow = 2 * entries
                        e_i = _grown_int(e_i, grow)
                        e_j = _grown_int(e_j, grow)
                        e_t = _grown(e_t, grow)
                        e_nx = _grown(e_nx, grow)
                        e_ny = _grown(e_ny, grow)
                        e_depth = _grown(e_depth, grow)
                        e_len = _grown(e_len, grow)
                    e_i[entries] = pi
                    e_j[entries] = pj
                    e_t[entries] = t_now + t
                    e_nx[entries] = enx
                    e_ny[entries] = eny
                    e_depth[entries] = edepth
                    e_len[entries] = length
                    entries += 1
    return rows, capped, bodies, points, normals, separation, tois, jn_out, jt_out


@njit(cache=True)
def _grown(a: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(size)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _grown_int(a: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(size, dtype=np.int64)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _evaluate(
    i: int,
    j: int,
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    velocity: np.ndarray,
    span: float,
    skip_grazes: bool,
) -> tuple[bool, float, float, float, float, float]:
    """Sweep pair (i, j) over ``span`` seconds: ``(needs a response, t, nx, ny, depth, surface)``;
    ``skip_grazes``: a corner-only edge contact (a crack) is not a hit."""
    a = world_vertices[i, : vertex_count[i]]
    b = world_vertices[j, : vertex_count[j]]
    vax = velocity[i, 0]
    vay = velocity[i, 1]
    vbx = velocity[j, 0]
    vby = velocity[j, 1]
    hit, nx, ny, t, depth = sweep_kernel(a, b, vax - vbx, vay - vby, span)
    if not hit:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0
    active, length = _active(a, b, nx, ny, t, depth, vax, vay, vbx, vby, skip_grazes)
    return active, t, nx, ny, depth, length


class ArcadeSolver:
    """Tutorial 4's response with seed 002's ordering (see the module docstring)."""

    def __init__(self) -> None:
        self.warned = False

    def step(self, world: World, dt: float) -> Contacts:
        pairs = candidates(world, dt)
        count, capped, *rows = arcade_kernel(
            pairs,
            world._local_vertices,
            world._world_vertices,
            world._vertex_count,
            world._radius,
            world._position,
            world._angle,
            world._velocity,
            world._angular_velocity,
            world._inv_mass,
            world._static,
            world._friction,
            world._restitution,
            world._static_friction,
            dt,
            bool(world.ordered),
            bool(world.surface_rule),
            MAX_SUBDIVISIONS,
            world._root,
            world._continuous,
        )
        if capped and not self.warned:
            self.warned = True
            warnings.warn(
                f"arcade: more than {MAX_SUBDIVISIONS} hits in one step; the rest were resolved "
                "immediately, in pair order (collision resolution may be less exact)",
                RuntimeWarning,
                stacklevel=3,
            )
        return contacts_from_rows(count, *rows)

    def reset(self) -> None:
        """Nothing persists between steps."""
