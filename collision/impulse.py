"""The "tutorial" response: Tutorial 7's rigid-body impulses, as the original program did them.

One pass over the candidate pairs in index order, each pair once (static-static skipped), with
the velocities and positions left by the pairs before it (the original's immediate processing):

1. the swept separating-axis test with the pair's relative velocity over the step (Tutorial 3);
2. the contact pairs at the time of impact (Tutorial 6);
3. an overlap is pushed apart along the normal, by inverse-mass ratio, half the penetration per
   contact pair (the original's separation factor 0.5);
4. the impulse with rotation (seed 004, eq. 3) with restitution, then Coulomb friction and
   static friction as the "invisible step";
5. positions integrated (semi-implicit Euler), angles wrapped.

Bugs of the original fixed here (ORIGINAL_DEMO.md section 5): our angles are CCW positive and
the torque signs agree with it; the friction impulse is clamped so it stops the sliding but
never reverses it (5.2.12); the "invisible step" has restitution 0, so it cancels the
tangential contact velocity as the article intends (5.1.16) instead of reversing it; a body
hit at time t within the step travels with its old velocity up to t and its new one after
(5.2.11: the original changed the velocity early and left a gap); the two contact points of a
pair share their normal impulse through a 2x2 block solve, so a flat box lands flat instead of
being kicked into a spin by whichever corner happens to be solved first (5.2.11, order
dependence within a pair). Points that act as one (ill-conditioned block) fall back to one
at a time. The original applied friction once after the normal impulse, and friction's torque
then drove the leading corner of a sliding box into the ground and tipped it over; here the
normal and friction impulses of a pair are solved ``PAIR_PASSES`` times with accumulated,
clamped totals (still each pair once, in order: no iteration over the whole world).

Contacts reported: one row per contact point, state ``CONTACT_NEW``; ``separation`` is minus
the penetration for an overlap, the gap closed before the time of impact for a future hit;
``normal_impulse`` >= 0 and ``tangent_impulse`` (signed, along the tangent ``(-ny, nx)``) are
the totals applied at that point (N s).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from collision.broadphase import candidate_pairs, swept_bounds, transform_vertices
from collision.contacts import contact_kernel
from collision.sat import sweep_kernel
from collision.tolerances import BLOCK_SOLVE_CONDITION, BROADPHASE_MARGIN

if TYPE_CHECKING:
    from collision.world import Contacts, World

#: Fraction of the penetration removed per contact pair (the original's ``Sep``; two contact
#: pairs together remove about the full depth).
SEPARATION_FACTOR = 0.5

#: Passes over one pair's normal and friction impulses (the original made one, which lets the
#: friction torque tip a sliding box over; see :func:`pair_impulses`).
PAIR_PASSES = 4


@njit(cache=True)
def _cross(ax: float, ay: float, bx: float, by: float) -> float:
    return ax * by - ay * bx


@njit(cache=True)
def block_normal_impulses(
    b1: float, b2: float, k11: float, k12: float, k22: float
) -> tuple[bool, float, float]:
    """Solve the two-point contact problem: find j >= 0 with w = b + K j >= 0 and j . w = 0.

    ``b_k`` = normal velocity at point k minus its target; ``K`` the 2x2 effective-mass matrix
    (symmetric). Returns ``(ok, j1, j2)``; ok is False when K is ill-conditioned.
    """
    det = k11 * k22 - k12 * k12
    if det <= BLOCK_SOLVE_CONDITION * k11 * k22:
        return False, 0.0, 0.0
    # Both points pushing.
    j1 = (-b1 * k22 + b2 * k12) / det
    j2 = (-b2 * k11 + b1 * k12) / det
    if j1 >= 0.0 and j2 >= 0.0:
        return True, j1, j2
    # Only point 1 pushing.
    j1 = -b1 / k11
    if j1 >= 0.0 and b2 + k12 * j1 >= 0.0:
        return True, j1, 0.0
    # Only point 2 pushing.
    j2 = -b2 / k22
    if j2 >= 0.0 and b1 + k12 * j2 >= 0.0:
        return True, 0.0, j2
    return True, 0.0, 0.0


@njit(cache=True)
def _apply(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    i: int,
    j: int,
    im_a: float,
    im_b: float,
    ii_a: float,
    ii_b: float,
    rax: float,
    ray: float,
    rbx: float,
    rby: float,
    px: float,
    py: float,
) -> None:
    """Impulse (px, py) on A at arm ra, its opposite on B at arm rb."""
    velocity[i, 0] += px * im_a
    velocity[i, 1] += py * im_a
    angular_velocity[i] += _cross(rax, ray, px, py) * ii_a
    velocity[j, 0] -= px * im_b
    velocity[j, 1] -= py * im_b
    angular_velocity[j] -= _cross(rbx, rby, px, py) * ii_b


@njit(cache=True)
def _relative_velocity(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    i: int,
    j: int,
    rax: float,
    ray: float,
    rbx: float,
    rby: float,
) -> tuple[float, float]:
    """Velocity of A's material point at ra minus B's at rb (w x r = (-w ry, w rx))."""
    wa = angular_velocity[i]
    wb = angular_velocity[j]
    vx = velocity[i, 0] - wa * ray - (velocity[j, 0] - wb * rby)
    vy = velocity[i, 1] + wa * rax - (velocity[j, 1] + wb * rbx)
    return vx, vy


@njit(cache=True)
def pair_impulses(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    i: int,
    j: int,
    c: int,
    ra: np.ndarray,
    rb: np.ndarray,
    nx: float,
    ny: float,
    im_a: float,
    im_b: float,
    ii_a: float,
    ii_b: float,
    e: float,
    mu: float,
    mu_s: float,
    jn: np.ndarray,
    jt: np.ndarray,
) -> None:
    """Normal and friction impulses at one pair's ``c`` (1 or 2) contact points.

    ``ra``, ``rb (2, 2)``: arms from A's and B's centroids. Writes the total impulses into
    ``jn (2,)`` (along the normal, >= 0) and ``jt (2,)`` (along the tangent ``(-ny, nx)``).

    Seed 004 eq. 3 gives the normal impulse that turns the approach speed ``vn`` into
    ``-e vn``; with two points the 2x2 block of eq. 3 is solved at once. Friction is Coulomb
    (``|jt| <= mu jn``), or, when the point was inside the static cone ``|vt| < mu_s |vn|``
    before the impulse, the "invisible step": whatever cancels the tangential velocity. Because
    friction applied after the normal impulse gives the body a torque that drives one point
    back into the other body, the normal and friction solves are repeated ``PAIR_PASSES``
    times with accumulated, clamped totals, which also means friction never reverses sliding.
    """
    im_sum = im_a + im_b
    tx = -ny
    ty = nx
    target = np.zeros(2)
    sticky = np.zeros(2, dtype=np.bool_)
    kn = np.zeros(2)
    kt = np.zeros(2)
    approaching = False
    for k in range(c):
        jn[k] = 0.0
        jt[k] = 0.0
        rvx, rvy = _relative_velocity(
            velocity, angular_velocity, i, j, ra[k, 0], ra[k, 1], rb[k, 0], rb[k, 1]
        )
        vn = rvx * nx + rvy * ny
        vt = rvx * tx + rvy * ty
        if vn < 0.0:
            approaching = True
            target[k] = -e * vn
            sticky[k] = abs(vt) < mu_s * -vn
        rn_a = _cross(ra[k, 0], ra[k, 1], nx, ny)
        rn_b = _cross(rb[k, 0], rb[k, 1], nx, ny)
        kn[k] = im_sum + rn_a * rn_a * ii_a + rn_b * rn_b * ii_b
        rt_a = _cross(ra[k, 0], ra[k, 1], tx, ty)
        rt_b = _cross(rb[k, 0], rb[k, 1], tx, ty)
        kt[k] = im_sum + rt_a * rt_a * ii_a + rt_b * rt_b * ii_b
    if not approaching:
        return
    k12 = 0.0
    block = False
    if c == 2:
        k12 = (
            im_sum
            + _cross(ra[0, 0], ra[0, 1], nx, ny) * _cross(ra[1, 0], ra[1, 1], nx, ny) * ii_a
            + _cross(rb[0, 0], rb[0, 1], nx, ny) * _cross(rb[1, 0], rb[1, 1], nx, ny) * ii_b
        )
        block = kn[0] * kn[1] - k12 * k12 > BLOCK_SOLVE_CONDITION * kn[0] * kn[1]
    for _ in range(PAIR_PASSES):
        if block:
            rvx, rvy = _relative_velocity(
                velocity, angular_velocity, i, j, ra[0, 0], ra[0, 1], rb[0, 0], rb[0, 1]
            )
            b1 = rvx * nx + rvy * ny - target[0] - (kn[0] * jn[0] + k12 * jn[1])
            rvx, rvy = _relative_velocity(
                velocity, angular_velocity, i, j, ra[1, 0], ra[1, 1], rb[1, 0], rb[1, 1]
            )
            b2 = rvx * nx + rvy * ny - target[1] - (k12 * jn[0] + kn[1] * jn[1])
            _, x1, x2 = block_normal_impulses(b1, b2, kn[0], k12, kn[1])
            d1 = x1 - jn[0]
            d2 = x2 - jn[1]
            jn[0] = x1
            jn[1] = x2
            _apply(
                velocity,
                angular_velocity,
                i,
                j,
                im_a,
                im_b,
                ii_a,
                ii_b,
                ra[0, 0],
                ra[0, 1],
                rb[0, 0],
                rb[0, 1],
                d1 * nx,
                d1 * ny,
            )
            _apply(
                velocity,
                angular_velocity,
                i,
                j,
                im_a,
                im_b,
                ii_a,
                ii_b,
                ra[1, 0],
                ra[1, 1],
                rb[1, 0],
                rb[1, 1],
                d2 * nx,
                d2 * ny,
            )
        else:
            for k in range(c):
                rvx, rvy = _relative_velocity(
                    velocity, angular_velocity, i, j, ra[k, 0], ra[k, 1], rb[k, 0], rb[k, 1]
                )
                vn = rvx * nx + rvy * ny
                total = max(jn[k] - (vn - target[k]) / kn[k], 0.0)
                d = total - jn[k]
                jn[k] = total
                _apply(
                    velocity,
                    angular_velocity,
                    i,
                    j,
                    im_a,
                    im_b,
                    ii_a,
                    ii_b,
                    ra[k, 0],
                    ra[k, 1],
                    rb[k, 0],
                    rb[k, 1],
                    d * nx,
                    d * ny,
                )
        for k in range(c):
            rvx, rvy = _relative_velocity(
                velocity, angular_velocity, i, j, ra[k, 0], ra[k, 1], rb[k, 0], rb[k, 1]
            )
            vt = rvx * tx + rvy * ty
            limit = math.inf if sticky[k] else mu * jn[k]
            total = min(max(jt[k] - vt / kt[k], -limit), limit)
            d = total - jt[k]
            jt[k] = total
            _apply(
                velocity,
                angular_velocity,
                i,
                j,
                im_a,
                im_b,
                ii_a,
                ii_b,
                ra[k, 0],
                ra[k, 1],
                rb[k, 0],
                rb[k, 1],
                d * tx,
                d * ty,
            )


@njit(cache=True)
def tutorial_kernel(
    pairs: np.ndarray,
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    static: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    static_friction: np.ndarray,
    dt: float,
    root: np.ndarray,
    continuous: bool,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Resolve every candidate pair once, in order, then integrate positions.

    ``pairs (m, 2) int64`` of rows; ``world_vertices`` are updated as overlaps push bodies.
    ``root (n,) int64``: each row's body (a compound's parts are rows at their root's pose
    whose shapes are in its frame): pairs of one body are skipped, and velocities, masses,
    pushes and impulses are the roots'. Without ``continuous`` the test is overlap only (no
    time of impact: a fast body can pass through a thin one). Returns
    ``(count, bodies (2m, 2) int64, points (2m, 4) [ax, ay, bx, by], normal (2m, 2),
    separation (2m,), toi (2m,), normal_impulse (2m,), tangent_impulse (2m,))``; rows past
    count are unused.
    """
    n = position.shape[0]
    m = pairs.shape[0]
    bodies = np.zeros((2 * m, 2), dtype=np.int64)
    points = np.zeros((2 * m, 4))
    normals = np.zeros((2 * m, 2))
    separation = np.zeros(2 * m)
    tois = np.zeros(2 * m)
    jn_out = np.zeros(2 * m)
    jt_out = np.zeros(2 * m)
    # A body hit at time t moves with its old velocity until t: the difference is added here.
    shift = np.zeros((n, 2))
    spin = np.zeros(n)
    out_a = np.zeros((2, 2))
    out_b = np.zeros((2, 2))
    ra = np.zeros((2, 2))
    rb = np.zeros((2, 2))
    jn = np.zeros(2)
    jt = np.zeros(2)
    count = 0
    for p in range(m):
        row_i = pairs[p, 0]
        row_j = pairs[p, 1]
        i = root[row_i]
        j = root[row_j]
        if (static[i] and static[j]) or i == j:
            continue
        im_a = inv_mass[i]
        im_b = inv_mass[j]
        ii_a = inv_inertia[i]
        ii_b = inv_inertia[j]
        im_sum = im_a + im_b
        if im_sum <= 0.0:
            continue  # kinematic against kinematic or static: no contact
        ka = vertex_count[row_i]
        kb = vertex_count[row_j]
        vax = velocity[i, 0]
        vay = velocity[i, 1]
        vbx = velocity[j, 0]
        vby = velocity[j, 1]
        if continuous:
            hit, nx, ny, t, depth = sweep_kernel(
                world_vertices[row_i, :ka], world_vertices[row_j, :kb], vax - vbx, vay - vby, dt
            )
        else:
            hit, nx, ny, t, depth = sweep_kernel(
                world_vertices[row_i, :ka], world_vertices[row_j, :kb], 0.0, 0.0, dt
            )
        if not hit:
            continue
        c = contact_kernel(
            world_vertices[row_i, :ka],
            world_vertices[row_j, :kb],
            nx,
            ny,
            t,
            vax,
            vay,
            vbx,
            vby,
            out_a,
            out_b,
        )
        if c <= 0:
            continue
        e = max(restitution[i], restitution[j])
        mu = math.sqrt(friction[i] * friction[j])
        mu_s = math.sqrt(static_friction[i] * static_friction[j])

        # Moment arms from each body's centroid at the time of impact.
        for k in range(c):
            ra[k, 0] = out_a[k, 0] - (position[i, 0] + vax * t)
            ra[k, 1] = out_a[k, 1] - (position[i, 1] + vay * t)
            rb[k, 0] = out_b[k, 0] - (position[j, 0] + vbx * t)
            rb[k, 1] = out_b[k, 1] - (position[j, 1] + vby * t)
        gap = -((vax - vbx) * nx + (vay - vby) * ny) * t

        # 3. Overlap: push apart along the normal by inverse-mass ratio.
        if depth > 0.0:
            push = 0.0
            for k in range(c):
                pen = (out_b[k, 0] - out_a[k, 0]) * nx + (out_b[k, 1] - out_a[k, 1]) * ny
                push += SEPARATION_FACTOR * max(pen, 0.0)
            da = push * im_a / im_sum
            db = push * im_b / im_sum
            position[i, 0] += da * nx
            position[i, 1] += da * ny
            position[j, 0] -= db * nx
            position[j, 1] -= db * ny
            # Every row of each body (a compound's parts follow its root).
            r = i
            while r < n and root[r] == i:
                for v in range(vertex_count[r]):
                    world_vertices[r, v, 0] += da * nx
                    world_vertices[r, v, 1] += da * ny
                r += 1
            r = j
            while r < n and root[r] == j:
                for v in range(vertex_count[r]):
                    world_vertices[r, v, 0] -= db * nx
                    world_vertices[r, v, 1] -= db * ny
                r += 1

        w_a0 = angular_velocity[i]
        w_b0 = angular_velocity[j]

        # 4. Impulses at the pair's contact points (normal, then friction).
        pair_impulses(
            velocity,
            angular_velocity,
            i,
            j,
            c,
            ra,
            rb,
            nx,
            ny,
            im_a,
            im_b,
            ii_a,
            ii_b,
            e,
            mu,
            mu_s,
            jn,
            jt,
        )
        for k in range(c):
            bodies[count, 0] = i
            bodies[count, 1] = j
            points[count, 0] = out_a[k, 0]
            points[count, 1] = out_a[k, 1]
            points[count, 2] = out_b[k, 0]
            points[count, 3] = out_b[k, 1]
            normals[count, 0] = nx
            normals[count, 1] = ny
            if depth > 0.0:
                pen = (out_b[k, 0] - out_a[k, 0]) * nx + (out_b[k, 1] - out_a[k, 1]) * ny
                separation[count] = -max(pen, 0.0)
            else:
                separation[count] = gap
            tois[count] = t
            jn_out[count] = jn[k]
            jt_out[count] = jt[k]
            count += 1

        # Travel with the old velocity until the time of impact.
        if t > 0.0:
            shift[i, 0] += (vax - velocity[i, 0]) * t
            shift[i, 1] += (vay - velocity[i, 1]) * t
            spin[i] += (w_a0 - angular_velocity[i]) * t
            shift[j, 0] += (vbx - velocity[j, 0]) * t
            shift[j, 1] += (vby - velocity[j, 1]) * t
            spin[j] += (w_b0 - angular_velocity[j]) * t

    # 5. Semi-implicit Euler (velocities already include this step's forces).
    for b in range(n):
        if static[b] or root[b] != b:
            continue
        position[b, 0] += velocity[b, 0] * dt + shift[b, 0]
        position[b, 1] += velocity[b, 1] * dt + shift[b, 1]
        a = angle[b] + angular_velocity[b] * dt + spin[b]
        angle[b] = (a + math.pi) % (2.0 * math.pi) - math.pi
    return count, bodies, points, normals, separation, tois, jn_out, jt_out


def candidates(world: World, dt: float) -> np.ndarray:
    """Broadphase for one step: world vertices refreshed, ``(m, 2) int64`` pairs, static-static
    skipped. With ``world.continuous`` off the boxes are not swept over the step."""
    transform_vertices(
        world._local_vertices, world._vertex_count, world._position, world._angle, world._world_vertices
    )
    n = world.body_count
    lo = np.empty((n, 2))
    hi = np.empty((n, 2))
    swept_bounds(
        world._world_vertices,
        world._vertex_count,
        world._velocity,
        world._angular_velocity,
        world._radius,
        dt if world._continuous else 0.0,
        BROADPHASE_MARGIN,
        lo,
        hi,
    )
    return candidate_pairs(lo, hi, world._static)


def contacts_from_rows(
    count: int,
    bodies: np.ndarray,
    points: np.ndarray,
    normals: np.ndarray,
    separation: np.ndarray,
    toi: np.ndarray,
    normal_impulse: np.ndarray,
    tangent_impulse: np.ndarray,
) -> Contacts:
    """A :class:`Contacts` of state CONTACT_NEW from the first ``count`` rows of a kernel's output."""
    from collision.world import CONTACT_NEW, Contacts

    c = count
    return Contacts(
        body_a=bodies[:c, 0],
        body_b=bodies[:c, 1],
        point_a=points[:c, 0:2],
        point_b=points[:c, 2:4],
        normal=normals[:c],
        separation=separation[:c],
        toi=toi[:c],
        normal_impulse=normal_impulse[:c],
        tangent_impulse=tangent_impulse[:c],
        state=np.full(c, CONTACT_NEW, dtype=np.int8),
    )


class TutorialSolver:
    """Tutorial 7's response (see the module docstring). ``step(world, dt) -> Contacts``."""

    def step(self, world: World, dt: float) -> Contacts:
        pairs = candidates(world, dt)
        out = tutorial_kernel(
            pairs,
            world._world_vertices,
            world._vertex_count,
            world._position,
            world._angle,
            world._velocity,
            world._angular_velocity,
            world._inv_mass,
            world._inv_inertia,
            world._static,
            world._friction,
            world._restitution,
            world._static_friction,
            dt,
            world._root,
            world._continuous,
        )
        return contacts_from_rows(*out)

    def reset(self) -> None:
        """Nothing persists between steps."""
