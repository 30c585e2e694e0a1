"""The "tutorial" response: Tutorial 7's rigid-body impulses, as the original program did them.

One pass over the candidate pairs in index order, each pair once (static-static skipped), with
the velocities and positions left by the pairs before it (the original's immediate processing):

1. the swept separating-axis test with the pair's relative velocity over the step (Tutorial 3);
2. the contact pairs at the time of impact (Tutorial 6);
3. an overlap is pushed apart along the normal, by inverse-mass ratio, ``separation_factor`` of
   the penetration per contact pair (the original's 0.5);
4. the impulse with rotation (seed 004, eq. 3) with restitution, then Coulomb friction and
   static friction as the "invisible step" (the original's ResolveCollision);
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
normal and friction impulses of a pair are solved ``pair_passes`` times with accumulated,
clamped totals (still each pair once, in order: no iteration over the whole world).

Contacts reported: one row per contact point, state ``CONTACT_NEW``; ``separation`` is minus
the penetration for an overlap, the gap closed before the time of impact for a future hit;
``normal_impulse`` >= 0 and ``tangent_impulse`` (signed, along the tangent ``(-ny, nx)``) are
the totals applied at that point (N s). ``static_friction`` (per body, mixed per pair) is the
cone of the "invisible step": a contact sticks while its tangential speed is below
``static_friction`` times its normal approach speed.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.bodies import Bodies
from collision.contacts import Contacts, find_contacts
from collision.geometry import mix_friction, mix_restitution, shift_body_vertices, wrap_angle
from collision.sat import sweep_kernel
from collision.solvers.hits import (
    NORMAL_IMPULSE,
    TANGENT_IMPULSE,
    HitRows,
    candidates,
    contacts_of,
    new_rows,
    write_point,
)
from collision.solvers.protocol import StepContext
from collision.solvers.settings import Setting, Settings
from collision.tolerances import BLOCK_SOLVE_CONDITION


class TutorialSettings(Settings):
    """Settings of the ``"tutorial"`` solver (``world.solver_settings("tutorial")``)."""

    separation_factor = Setting(
        "real",
        0.5,
        "Fraction (0..1) of an overlap's penetration removed per contact pair by the push along the "
        "normal (the original's ``Sep``: two contact pairs together remove about the full depth).",
        0.0,
        1.0,
    )
    pair_passes = Setting(
        "int",
        4,
        "Passes over one pair's normal and friction impulses (the original made one, which lets the "
        "friction torque tip a sliding box over; see pair_impulses).",
        1,
        100,
    )


class Pair(NamedTuple):
    """One hit's bodies (roots ``i`` = A, ``j`` = B), unit normal from B toward A, inverse
    masses and inertias, and the pair's mixed restitution, friction and static friction."""

    i: int
    j: int
    nx: float
    ny: float
    inv_mass_a: float
    inv_mass_b: float
    inv_inertia_a: float
    inv_inertia_b: float
    restitution: float
    friction: float
    static_friction: float


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _apply(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    pair: Pair,
    ra: np.ndarray,
    rb: np.ndarray,
    k: int,
    px: float,
    py: float,
) -> None:
    """Impulse (px, py) on A at its arm ``ra[k]``, its opposite on B at ``rb[k]``."""
    i = pair.i
    j = pair.j
    velocity[i, 0] += px * pair.inv_mass_a
    velocity[i, 1] += py * pair.inv_mass_a
    angular_velocity[i] += _cross(ra[k, 0], ra[k, 1], px, py) * pair.inv_inertia_a
    velocity[j, 0] -= px * pair.inv_mass_b
    velocity[j, 1] -= py * pair.inv_mass_b
    angular_velocity[j] -= _cross(rb[k, 0], rb[k, 1], px, py) * pair.inv_inertia_b


@njit(cache=True, inline="always")
def _relative_velocity(
    velocity: np.ndarray, angular_velocity: np.ndarray, pair: Pair, ra: np.ndarray, rb: np.ndarray, k: int
) -> tuple[float, float]:
    """Velocity of A's material point at ``ra[k]`` minus B's at ``rb[k]`` (w x r = (-w ry, w rx))."""
    wa = angular_velocity[pair.i]
    wb = angular_velocity[pair.j]
    vx = velocity[pair.i, 0] - wa * ra[k, 1] - (velocity[pair.j, 0] - wb * rb[k, 1])
    vy = velocity[pair.i, 1] + wa * ra[k, 0] - (velocity[pair.j, 1] + wb * rb[k, 0])
    return vx, vy


@njit(cache=True)
def _prepare_terms(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    pair: Pair,
    c: int,
    ra: np.ndarray,
    rb: np.ndarray,
    terms: np.ndarray,
) -> bool:
    """Per point k: ``terms[k]`` = (target normal speed, sticks (0 or 1), normal mass, tangent
    mass); returns whether any point approaches (else there is nothing to solve).

    The target is ``-e vn`` (seed 004 eq. 3); a point sticks (the "invisible step") when its
    tangential speed is inside the static cone ``|vt| < mu_s |vn|`` before the impulse.
    """
    im_sum = pair.inv_mass_a + pair.inv_mass_b
    nx = pair.nx
    ny = pair.ny
    tx = -ny
    ty = nx
    approaching = False
    for k in range(c):
        terms[k, 0] = 0.0
        terms[k, 1] = 0.0
        rvx, rvy = _relative_velocity(velocity, angular_velocity, pair, ra, rb, k)
        vn = rvx * nx + rvy * ny
        vt = rvx * tx + rvy * ty
        if vn < 0.0:
            approaching = True
            terms[k, 0] = -pair.restitution * vn
            terms[k, 1] = 1.0 if abs(vt) < pair.static_friction * -vn else 0.0
        rn_a = _cross(ra[k, 0], ra[k, 1], nx, ny)
        rn_b = _cross(rb[k, 0], rb[k, 1], nx, ny)
        terms[k, 2] = im_sum + rn_a * rn_a * pair.inv_inertia_a + rn_b * rn_b * pair.inv_inertia_b
        rt_a = _cross(ra[k, 0], ra[k, 1], tx, ty)
        rt_b = _cross(rb[k, 0], rb[k, 1], tx, ty)
        terms[k, 3] = im_sum + rt_a * rt_a * pair.inv_inertia_a + rt_b * rt_b * pair.inv_inertia_b
    return approaching


@njit(cache=True, inline="always")
def _normal_pass(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    pair: Pair,
    c: int,
    ra: np.ndarray,
    rb: np.ndarray,
    terms: np.ndarray,
    k12: float,
    block: bool,
    jn: np.ndarray,
) -> None:
    """One pass of the normal impulses (accumulated, >= 0): both points at once as a 2 x 2
    block when ``block`` (off-diagonal ``k12``), else one point at a time."""
    nx = pair.nx
    ny = pair.ny
    if block:
        rvx, rvy = _relative_velocity(velocity, angular_velocity, pair, ra, rb, 0)
        b1 = rvx * nx + rvy * ny - terms[0, 0] - (terms[0, 2] * jn[0] + k12 * jn[1])
        rvx, rvy = _relative_velocity(velocity, angular_velocity, pair, ra, rb, 1)
        b2 = rvx * nx + rvy * ny - terms[1, 0] - (k12 * jn[0] + terms[1, 2] * jn[1])
        _, x1, x2 = block_normal_impulses(b1, b2, terms[0, 2], k12, terms[1, 2])
        d1 = x1 - jn[0]
        d2 = x2 - jn[1]
        jn[0] = x1
        jn[1] = x2
        _apply(velocity, angular_velocity, pair, ra, rb, 0, d1 * nx, d1 * ny)
        _apply(velocity, angular_velocity, pair, ra, rb, 1, d2 * nx, d2 * ny)
        return
    for k in range(c):
        rvx, rvy = _relative_velocity(velocity, angular_velocity, pair, ra, rb, k)
        vn = rvx * nx + rvy * ny
        total = max(jn[k] - (vn - terms[k, 0]) / terms[k, 2], 0.0)
        d = total - jn[k]
        jn[k] = total
        _apply(velocity, angular_velocity, pair, ra, rb, k, d * nx, d * ny)


@njit(cache=True, inline="always")
def _friction_pass(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    pair: Pair,
    c: int,
    ra: np.ndarray,
    rb: np.ndarray,
    terms: np.ndarray,
    jn: np.ndarray,
    jt: np.ndarray,
) -> None:
    """One pass of the friction impulses (accumulated, ``|jt| <= mu jn``, unbounded for a
    sticking point: whatever cancels its tangential speed)."""
    tx = -pair.ny
    ty = pair.nx
    for k in range(c):
        rvx, rvy = _relative_velocity(velocity, angular_velocity, pair, ra, rb, k)
        vt = rvx * tx + rvy * ty
        limit = math.inf if terms[k, 1] != 0.0 else pair.friction * jn[k]
        total = min(max(jt[k] - vt / terms[k, 3], -limit), limit)
        d = total - jt[k]
        jt[k] = total
        _apply(velocity, angular_velocity, pair, ra, rb, k, d * tx, d * ty)


@njit(cache=True)
def pair_impulses(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    pair: Pair,
    c: int,
    ra: np.ndarray,
    rb: np.ndarray,
    passes: int,
    jn: np.ndarray,
    jt: np.ndarray,
) -> None:
    """Normal and friction impulses at one pair's ``c`` (1 or 2) contact points (the original's
    ResolveCollision, per point).

    ``ra``, ``rb (2, 2)``: arms from A's and B's centroids. Writes the total impulses into
    ``jn (2,)`` (along the normal, >= 0) and ``jt (2,)`` (along the tangent ``(-ny, nx)``).

    Seed 004 eq. 3 gives the normal impulse that turns the approach speed ``vn`` into
    ``-e vn``; with two points the 2x2 block of eq. 3 is solved at once. Friction is Coulomb
    (``|jt| <= mu jn``), or, when the point was inside the static cone ``|vt| < mu_s |vn|``
    before the impulse, the "invisible step": whatever cancels the tangential velocity. Because
    friction applied after the normal impulse gives the body a torque that drives one point
    back into the other body, the normal and friction solves are repeated ``passes`` times
    with accumulated, clamped totals, which also means friction never reverses sliding.
    """
    for k in range(c):
        jn[k] = 0.0
        jt[k] = 0.0
    terms = np.empty((2, 4))
    if not _prepare_terms(velocity, angular_velocity, pair, c, ra, rb, terms):
        return
    k12 = 0.0
    block = False
    if c == 2:
        nx = pair.nx
        ny = pair.ny
        k12 = (
            pair.inv_mass_a
            + pair.inv_mass_b
            + _cross(ra[0, 0], ra[0, 1], nx, ny) * _cross(ra[1, 0], ra[1, 1], nx, ny) * pair.inv_inertia_a
            + _cross(rb[0, 0], rb[0, 1], nx, ny) * _cross(rb[1, 0], rb[1, 1], nx, ny) * pair.inv_inertia_b
        )
        block = terms[0, 2] * terms[1, 2] - k12 * k12 > BLOCK_SOLVE_CONDITION * terms[0, 2] * terms[1, 2]
    for _ in range(passes):
        _normal_pass(velocity, angular_velocity, pair, c, ra, rb, terms, k12, block, jn)
        _friction_pass(velocity, angular_velocity, pair, c, ra, rb, terms, jn, jt)


@njit(cache=True)
def push_apart(
    bodies: Bodies, pair: Pair, c: int, out_a: np.ndarray, out_b: np.ndarray, factor: float
) -> None:
    """An overlap pushed apart along the normal by inverse-mass ratio: ``factor`` of each
    contact pair's penetration (Tutorial 7), the world vertices of every row of both bodies
    moved along (a compound's parts follow their root)."""
    push = 0.0
    for k in range(c):
        pen = (out_b[k, 0] - out_a[k, 0]) * pair.nx + (out_b[k, 1] - out_a[k, 1]) * pair.ny
        push += factor * max(pen, 0.0)
    im_sum = pair.inv_mass_a + pair.inv_mass_b
    da = push * pair.inv_mass_a / im_sum
    db = push * pair.inv_mass_b / im_sum
    position = bodies.position
    position[pair.i, 0] += da * pair.nx
    position[pair.i, 1] += da * pair.ny
    position[pair.j, 0] -= db * pair.nx
    position[pair.j, 1] -= db * pair.ny
    shift_body_vertices(
        bodies.world_vertices, bodies.vertex_count, bodies.root, pair.i, da * pair.nx, da * pair.ny
    )
    shift_body_vertices(
        bodies.world_vertices, bodies.vertex_count, bodies.root, pair.j, -db * pair.nx, -db * pair.ny
    )


@njit(cache=True)
def find_hit(
    bodies: Bodies, row_i: int, row_j: int, context: StepContext, out_a: np.ndarray, out_b: np.ndarray
) -> tuple[int, Pair, float, float]:
    """Steps 1 and 2 for the pair of rows ``row_i``, ``row_j``: the swept test over the step
    with the bodies' relative velocity (overlap only without ``context.continuous``), then the
    contact pairs at the time of impact, written into ``out_a``, ``out_b (2, 2)``.

    Returns ``(count, pair, t, depth)``: ``count`` 0 when there is nothing to resolve (no hit,
    two rows of one body, or two bodies of infinite mass), else 1 or 2 contact pairs; ``pair``
    the bodies (roots: a compound's part acts for its root) and their mixed materials.
    """
    root = bodies.root
    i = root[row_i]
    j = root[row_j]
    im_a = bodies.inv_mass[i]
    im_b = bodies.inv_mass[j]
    none = Pair(i, j, 0.0, 0.0, im_a, im_b, 0.0, 0.0, 0.0, 0.0, 0.0)
    if (bodies.static[i] and bodies.static[j]) or i == j or im_a + im_b <= 0.0:
        return 0, none, 0.0, 0.0  # kinematic against kinematic or static: no contact
    wv = bodies.world_vertices
    a = wv[row_i, : bodies.vertex_count[row_i]]
    b = wv[row_j, : bodies.vertex_count[row_j]]
    velocity = bodies.velocity
    vax = velocity[i, 0]
    vay = velocity[i, 1]
    vbx = velocity[j, 0]
    vby = velocity[j, 1]
    if context.continuous:
        hit, nx, ny, t, depth = sweep_kernel(a, b, vax - vbx, vay - vby, context.dt)
    else:
        hit, nx, ny, t, depth = sweep_kernel(a, b, 0.0, 0.0, context.dt)
    if not hit:
        return 0, none, 0.0, 0.0
    c = find_contacts(a, b, nx, ny, t, vax, vay, vbx, vby, out_a, out_b)
    pair = Pair(
        i,
        j,
        nx,
        ny,
        im_a,
        im_b,
        bodies.inv_inertia[i],
        bodies.inv_inertia[j],
        mix_restitution(bodies.restitution[i], bodies.restitution[j]),
        mix_friction(bodies.friction[i], bodies.friction[j]),
        mix_friction(bodies.static_friction[i], bodies.static_friction[j]),
    )
    return c, pair, t, depth


@njit(cache=True)
def resolve_hit(
    bodies: Bodies,
    settings: Any,
    pair: Pair,
    c: int,
    t: float,
    depth: float,
    scratch: np.ndarray,
    rows: HitRows,
    count: int,
    travel: np.ndarray,
) -> int:
    """Steps 3 and 4 for one hit of ``c`` contact pairs (``scratch (6, 2, 2)``: the points on
    A and on B, then room for the arms and impulses), appended to ``rows`` from row ``count``;
    returns the new row count. ``travel (n, 3)`` collects what the bodies' travel up to the time
    of impact ``t`` differs by (x, y, angle): they move with their old velocity until then."""
    out_a = scratch[0]
    out_b = scratch[1]
    ra = scratch[2]
    rb = scratch[3]
    jn = scratch[4, 0]
    jt = scratch[4, 1]
    i = pair.i
    j = pair.j
    nx = pair.nx
    ny = pair.ny
    velocity = bodies.velocity
    angular_velocity = bodies.angular_velocity
    vax = velocity[i, 0]
    vay = velocity[i, 1]
    vbx = velocity[j, 0]
    vby = velocity[j, 1]
    # Moment arms from each body's centroid at the time of impact.
    position = bodies.position
    for k in range(c):
        ra[k, 0] = out_a[k, 0] - (position[i, 0] + vax * t)
        ra[k, 1] = out_a[k, 1] - (position[i, 1] + vay * t)
        rb[k, 0] = out_b[k, 0] - (position[j, 0] + vbx * t)
        rb[k, 1] = out_b[k, 1] - (position[j, 1] + vby * t)
    gap = -((vax - vbx) * nx + (vay - vby) * ny) * t
    if depth > 0.0:
        push_apart(bodies, pair, c, out_a, out_b, settings.separation_factor)
    w_a0 = angular_velocity[i]
    w_b0 = angular_velocity[j]
    pair_impulses(velocity, angular_velocity, pair, c, ra, rb, settings.pair_passes, jn, jt)
    for k in range(c):
        separation = gap
        if depth > 0.0:
            pen = (out_b[k, 0] - out_a[k, 0]) * nx + (out_b[k, 1] - out_a[k, 1]) * ny
            separation = -max(pen, 0.0)
        write_point(rows, count, i, j, out_a[k], out_b[k], nx, ny, separation, t)
        rows.scalars[NORMAL_IMPULSE, count] = jn[k]
        rows.scalars[TANGENT_IMPULSE, count] = jt[k]
        count += 1
    if t > 0.0:
        travel[i, 0] += (vax - velocity[i, 0]) * t
        travel[i, 1] += (vay - velocity[i, 1]) * t
        travel[i, 2] += (w_a0 - angular_velocity[i]) * t
        travel[j, 0] += (vbx - velocity[j, 0]) * t
        travel[j, 1] += (vby - velocity[j, 1]) * t
        travel[j, 2] += (w_b0 - angular_velocity[j]) * t
    return count


@njit(cache=True)
def integrate_positions(bodies: Bodies, travel: np.ndarray, dt: float) -> None:
    """Step 5: semi-implicit Euler (velocities already include this step's forces), plus each
    body's ``travel`` correction; angles wrapped. Static bodies and a compound's part rows
    (which mirror their root afterwards) stay."""
    position = bodies.position
    velocity = bodies.velocity
    angle = bodies.angle
    for b in range(position.shape[0]):
        if bodies.static[b] or bodies.root[b] != b:
            continue
        position[b, 0] += velocity[b, 0] * dt + travel[b, 0]
        position[b, 1] += velocity[b, 1] * dt + travel[b, 1]
        angle[b] = wrap_angle(angle[b] + bodies.angular_velocity[b] * dt + travel[b, 2])


@njit(cache=True)
def tutorial_step(bodies: Bodies, settings: Any, context: StepContext) -> tuple[int, HitRows]:
    """Resolve every candidate pair once, in order, then integrate positions (the module
    docstring's steps 1-5). ``settings``: :class:`TutorialSettings` values. Returns the
    contact rows (two per pair at most) and how many are used."""
    dt = context.dt
    pairs = candidates(bodies, dt if context.continuous else 0.0)
    rows = new_rows(2 * pairs.shape[0])
    travel = np.zeros((bodies.position.shape[0], 3))
    scratch = np.zeros((6, 2, 2))
    count = 0
    for p in range(pairs.shape[0]):
        c, pair, t, depth = find_hit(bodies, pairs[p, 0], pairs[p, 1], context, scratch[0], scratch[1])
        if c > 0:
            count = resolve_hit(bodies, settings, pair, c, t, depth, scratch, rows, count, travel)
    integrate_positions(bodies, travel, dt)
    return count, rows


class TutorialSolver:
    """Tutorial 7's response (see the module docstring)."""

    def step(self, bodies: Bodies, settings: TutorialSettings, context: StepContext) -> Contacts:
        """Advance ``bodies`` by ``context.dt``; the step's contact points."""
        count, rows = tutorial_step(bodies, settings.values, context)
        return contacts_of(count, rows)

    def reset(self) -> None:
        """Nothing persists between steps."""
