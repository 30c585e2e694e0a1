"""Tutorial 7's ResolveCollision at one pair's contact points: the impulse with rotation (seed
004 eq. 3) with restitution, Coulomb friction, and static friction as the "invisible step".

A pair (:class:`Pair`) has one or two contact points; a :class:`PairContact` holds what the
functions here work on: the bodies' velocities, the pair, its points' arms from A's and B's
centroids, and ``terms (2, 5)``, what :func:`prepare_terms` works out per point before any
impulse: the normal speed it must end with, whether it sticks and whether it bounces, and the
effective masses along the normal and the tangent ``(-ny, nx)``. :func:`normal_pass` and
:func:`friction_pass` then add to the pair's accumulated impulses ``jn`` (>= 0, along the
normal) and ``jt`` (along the tangent, ``|jt| <= mu jn`` unless the point sticks); the
tutorial solver calls them once per pass over the step's hits.

Restitution follows Poisson: the passes stop the approach (the compression), then
:func:`bounce` adds ``e`` times each touching point's compression impulse. For one point
without friction that is seed 004's ``j = -(1 + e) v.n / K`` exactly; for several points solved
together it keeps an elastic impact's kinetic energy, which Newton's ``-e vn`` per point, met
by all the points at once, does not (a box hitting a corner lost 5% of its energy that way).
A point pressed only by its neighbours' impulses (it was not approaching before) bounces too:
it took part in the compression.

Two points share their normal impulse through the 2x2 block of eq. 3
(:func:`block_normal_impulses`), so a flat box lands flat instead of being kicked into a spin by
whichever corner happens to be solved first; points that act as one (ill-conditioned block)
are solved one at a time.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from collision.tolerances import BLOCK_SOLVE_CONDITION

#: Columns of ``terms``: the normal speed the point must end with (units/s; >= it), whether
#: it sticks (1.0) or slides (0.0), whether it bounces (1.0: it touches), the effective inverse
#: masses along the normal and tangent.
TARGET, STICKS, BOUNCES, NORMAL_MASS, TANGENT_MASS = range(5)


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


class PairContact(NamedTuple):
    """A pair's contact state: the bodies' ``velocity (n, 2)`` and ``angular_velocity (n,)``
    (the body store's, changed in place), the :class:`Pair`, its number of ``points`` (1 or
    2), the arms ``ra``, ``rb (2, 2)`` from A's and B's centroids to them, and their ``terms
    (2, 5)`` (:func:`prepare_terms`)."""

    velocity: np.ndarray
    angular_velocity: np.ndarray
    pair: Pair
    points: int
    ra: np.ndarray
    rb: np.ndarray
    terms: np.ndarray


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
def _apply(contact: PairContact, k: int, px: float, py: float) -> None:
    """Impulse (px, py) on A at its arm ``ra[k]``, its opposite on B at ``rb[k]``."""
    pair = contact.pair
    velocity = contact.velocity
    angular_velocity = contact.angular_velocity
    i = pair.i
    j = pair.j
    velocity[i, 0] += px * pair.inv_mass_a
    velocity[i, 1] += py * pair.inv_mass_a
    angular_velocity[i] += _cross(contact.ra[k, 0], contact.ra[k, 1], px, py) * pair.inv_inertia_a
    velocity[j, 0] -= px * pair.inv_mass_b
    velocity[j, 1] -= py * pair.inv_mass_b
    angular_velocity[j] -= _cross(contact.rb[k, 0], contact.rb[k, 1], px, py) * pair.inv_inertia_b


@njit(cache=True, inline="always")
def relative_velocity(contact: PairContact, k: int) -> tuple[float, float]:
    """Velocity of A's material point at ``ra[k]`` minus B's at ``rb[k]`` (w x r = (-w ry, w rx))."""
    pair = contact.pair
    velocity = contact.velocity
    ra = contact.ra
    rb = contact.rb
    wa = contact.angular_velocity[pair.i]
    wb = contact.angular_velocity[pair.j]
    vx = velocity[pair.i, 0] - wa * ra[k, 1] - (velocity[pair.j, 0] - wb * rb[k, 1])
    vy = velocity[pair.i, 1] + wa * ra[k, 0] - (velocity[pair.j, 1] + wb * rb[k, 0])
    return vx, vy


@njit(cache=True, inline="always")
def _effective_mass(pair: Pair, rx: float, ry: float, sx: float, sy: float, dx: float, dy: float) -> float:
    """Inverse effective mass along ``(dx, dy)`` of a point at arms ``(rx, ry)`` on A and
    ``(sx, sy)`` on B (seed 004 eq. 3's denominator)."""
    ca = _cross(rx, ry, dx, dy)
    cb = _cross(sx, sy, dx, dy)
    return pair.inv_mass_a + pair.inv_mass_b + ca * ca * pair.inv_inertia_a + cb * cb * pair.inv_inertia_b


@njit(cache=True)
def prepare_terms(contact: PairContact) -> None:
    """Per touching point k, before any impulse: ``terms[k]`` by the columns TARGET, STICKS,
    BOUNCES, NORMAL_MASS, TANGENT_MASS.

    A touching point must stop approaching (target 0; :func:`bounce` adds the restitution
    later); it sticks (the "invisible step") when it approaches at ``vn`` < 0 with its
    tangential speed inside the static cone ``|vt| < mu_s |vn|``, before the impulse.
    """
    pair = contact.pair
    terms = contact.terms
    ra = contact.ra
    rb = contact.rb
    nx = pair.nx
    ny = pair.ny
    for k in range(contact.points):
        rvx, rvy = relative_velocity(contact, k)
        vn = rvx * nx + rvy * ny
        vt = -rvx * ny + rvy * nx
        terms[k, TARGET] = 0.0
        terms[k, BOUNCES] = 1.0
        terms[k, STICKS] = 1.0 if vn < 0.0 and abs(vt) < pair.static_friction * -vn else 0.0
        terms[k, NORMAL_MASS] = _effective_mass(pair, ra[k, 0], ra[k, 1], rb[k, 0], rb[k, 1], nx, ny)
        terms[k, TANGENT_MASS] = _effective_mass(pair, ra[k, 0], ra[k, 1], rb[k, 0], rb[k, 1], -ny, nx)


@njit(cache=True, inline="always")
def coupling(contact: PairContact) -> tuple[float, bool]:
    """``(k12, block)``: the off-diagonal of a two-point pair's normal effective-mass matrix,
    and whether the 2x2 block is well-conditioned enough to be solved at once."""
    if contact.points < 2:
        return 0.0, False
    pair = contact.pair
    ra = contact.ra
    rb = contact.rb
    nx = pair.nx
    ny = pair.ny
    k12 = (
        pair.inv_mass_a
        + pair.inv_mass_b
        + _cross(ra[0, 0], ra[0, 1], nx, ny) * _cross(ra[1, 0], ra[1, 1], nx, ny) * pair.inv_inertia_a
        + _cross(rb[0, 0], rb[0, 1], nx, ny) * _cross(rb[1, 0], rb[1, 1], nx, ny) * pair.inv_inertia_b
    )
    k11 = contact.terms[0, NORMAL_MASS]
    k22 = contact.terms[1, NORMAL_MASS]
    return k12, k11 * k22 - k12 * k12 > BLOCK_SOLVE_CONDITION * k11 * k22


@njit(cache=True, inline="always")
def _solve_point(
    contact: PairContact,
    k: int,
    dx: float,
    dy: float,
    total: float,
    target: float,
    mass: float,
    lo: float,
    hi: float,
) -> tuple[float, float]:
    """Point ``k``'s accumulated impulse ``total`` along the unit ``(dx, dy)`` moved to what
    brings the point's speed along it to ``target``, clamped to ``[lo, hi]``, and the
    difference applied. ``mass``: the inverse effective mass along it. Returns the new total
    and the change of speed it made (units/s)."""
    rvx, rvy = relative_velocity(contact, k)
    new = min(max(total - (rvx * dx + rvy * dy - target) / mass, lo), hi)
    d = new - total
    _apply(contact, k, d * dx, d * dy)
    return new, abs(d) * mass


@njit(cache=True)
def normal_pass(contact: PairContact, jn: np.ndarray) -> float:
    """One pass of the normal impulses (accumulated in ``jn (2,)``, >= 0): both points at once
    as a 2 x 2 block when it is well-conditioned, else one point at a time. Returns the largest
    change it made to a point's normal speed (units/s)."""
    nx = contact.pair.nx
    ny = contact.pair.ny
    terms = contact.terms
    k12, block = coupling(contact)
    if block:
        rvx, rvy = relative_velocity(contact, 0)
        b1 = rvx * nx + rvy * ny - terms[0, TARGET] - (terms[0, NORMAL_MASS] * jn[0] + k12 * jn[1])
        rvx, rvy = relative_velocity(contact, 1)
        b2 = rvx * nx + rvy * ny - terms[1, TARGET] - (k12 * jn[0] + terms[1, NORMAL_MASS] * jn[1])
        _, x1, x2 = block_normal_impulses(b1, b2, terms[0, NORMAL_MASS], k12, terms[1, NORMAL_MASS])
        d1 = x1 - jn[0]
        d2 = x2 - jn[1]
        jn[0] = x1
        jn[1] = x2
        _apply(contact, 0, d1 * nx, d1 * ny)
        _apply(contact, 1, d2 * nx, d2 * ny)
        return max(abs(d1) * terms[0, NORMAL_MASS], abs(d2) * terms[1, NORMAL_MASS])
    change = 0.0
    for k in range(contact.points):
        jn[k], moved = _solve_point(
            contact, k, nx, ny, jn[k], terms[k, TARGET], terms[k, NORMAL_MASS], 0.0, math.inf
        )
        change = max(change, moved)
    return change


@njit(cache=True)
def friction_pass(contact: PairContact, jn: np.ndarray, jt: np.ndarray) -> float:
    """One pass of the friction impulses (accumulated in ``jt (2,)``, ``|jt| <= mu jn``,
    unbounded for a sticking point: whatever cancels its tangential speed). Returns the largest
    change it made to a point's tangential speed (units/s)."""
    tx = -contact.pair.ny
    ty = contact.pair.nx
    terms = contact.terms
    change = 0.0
    for k in range(contact.points):
        limit = math.inf if terms[k, STICKS] != 0.0 else contact.pair.friction * jn[k]
        jt[k], moved = _solve_point(contact, k, tx, ty, jt[k], 0.0, terms[k, TANGENT_MASS], -limit, limit)
        change = max(change, moved)
    return change


@njit(cache=True)
def bounce(contact: PairContact, jn: np.ndarray) -> None:
    """Restitution (Poisson): each touching point's normal impulse grows by ``e`` times what
    the compression gave it (``jn (2,)``, updated), applied at once."""
    pair = contact.pair
    e = pair.restitution
    if e <= 0.0:
        return
    for k in range(contact.points):
        if contact.terms[k, BOUNCES] != 0.0:
            d = e * jn[k]
            jn[k] += d
            _apply(contact, k, d * pair.nx, d * pair.ny)
