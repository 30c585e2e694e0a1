"""Restitution for the iterative solver: bouncing contacts as one simultaneous Poisson impact.

The soft step treats every contact as inelastic, and spreads an impact over substeps, so a
tilted face that lands corner first pushes at one corner, then the other. Restoring Newton's
law point by point afterwards (``v_after = -e * v_before``) then over- or under-shoots: when
one point of a face ends separating, sequential restitution adds energy, and a threshold too
high turns slow impacts inelastic.

Instead, for the manifolds that bounce (an elastic point that approached faster than the
threshold and pushed during the step):

1. take back the impulses the soft step gave their points over the step, which leaves the
   velocities they came in with (plus whatever the other contacts did);
2. solve the inelastic impact of all of them together (compression: normal speeds >= 0,
   impulses >= 0, one of each zero), two-point manifolds as an exact 2 x 2 complementarity
   problem, manifolds by Gauss-Seidel until the impulses stop changing;
3. apply ``1 + e`` times the compression impulses (Poisson's hypothesis).

For frictionless contacts this changes kinetic energy by ``(e^2 - 1) / 2 * x K x`` for the
compression impulses x and the contacts' effective mass K: zero when e = 1, a loss when e < 1,
never a gain, whatever the order in which the soft step met the points. Every point of a
bouncing manifold takes part, with the manifold's coefficient.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from collision.solvers.iterative.warm_start import Manifolds, Prepared

#: Gauss-Seidel passes over the bouncing manifolds at most; a lone manifold is exact in one
#: pass, so this only bounds chains of simultaneous impacts.
RESTITUTION_PASSES = 32

#: Relative change of the compression impulses (dimensionless) below which the passes stop.
RESTITUTION_CONVERGENCE = 1e-12


@njit(cache=True)
def _apply(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    a: int,
    b: int,
    rna: float,
    rnb: float,
    nx: float,
    ny: float,
    d: float,
) -> None:
    """Normal impulse d (N s) on A at the point with cross(r_a, n) = rna, its opposite on B."""
    velocity[a, 0] += inv_mass[a] * d * nx
    velocity[a, 1] += inv_mass[a] * d * ny
    angular_velocity[a] += inv_inertia[a] * d * rna
    velocity[b, 0] -= inv_mass[b] * d * nx
    velocity[b, 1] -= inv_mass[b] * d * ny
    angular_velocity[b] -= inv_inertia[b] * d * rnb


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
def _lcp2(
    c0: float, c1: float, k11: float, k12: float, k22: float, i11: float, i12: float, i22: float
) -> tuple[float, float]:
    """x >= 0 with w = K x + c >= 0 and x * w = 0 for the 2 x 2 positive definite K.

    Tries the four active sets; one fits exactly (K positive definite), rounding aside.
    """
    x0 = -(i11 * c0 + i12 * c1)
    x1 = -(i12 * c0 + i22 * c1)
    if x0 >= 0.0 and x1 >= 0.0:
        return x0, x1
    x0 = -c0 / k11
    if x0 >= 0.0 and k12 * x0 + c1 >= 0.0:
        return x0, 0.0
    x1 = -c1 / k22
    if x1 >= 0.0 and k12 * x1 + c0 >= 0.0:
        return 0.0, x1
    if c0 >= 0.0 and c1 >= 0.0:
        return 0.0, 0.0
    # Rounding at a boundary between active sets: the better single row.
    x0 = max(-c0 / k11, 0.0)
    x1 = max(-c1 / k22, 0.0)
    if x0 * (-c0) >= x1 * (-c1):
        return x0, 0.0
    return 0.0, x1


@njit(cache=True)
def _spread(
    bounce: np.ndarray,
    count: int,
    prepared: Prepared,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    total_normal: np.ndarray,
    offsets: np.ndarray,
    threshold: float,
) -> int:
    """Add to ``bounce (g,) bool`` the elastic manifolds the impact reached within the step.

    A body bounced off one contact can hit another in the same step: that contact was not
    closing at the start, so it has no approach speed, but it took the blow (its impulse
    changed the bodies' normal speed by more than the threshold). Left inelastic while the
    first contact is made elastic, the two disagree and energy appears. Spreads from the
    bouncing manifolds' moving bodies until nothing changes; returns the new count.
    """
    groups = offsets.shape[0] - 1
    n = inv_mass.shape[0]
    body_a = prepared.body_a
    body_b = prepared.body_b
    restitution = prepared.restitution
    normal_mass = prepared.normal_mass
    hit = np.zeros(n, dtype=np.bool_)
    for g in range(groups):
        if bounce[g]:
            hit[body_a[offsets[g]]] = True
            hit[body_b[offsets[g]]] = True
    grown = True
    while grown:
        grown = False
        for g in range(groups):
            if bounce[g]:
                continue
            a = body_a[offsets[g]]
            b = body_b[offsets[g]]
            moving_a = inv_mass[a] != 0.0 or inv_inertia[a] != 0.0
            moving_b = inv_mass[b] != 0.0 or inv_inertia[b] != 0.0
            if not ((hit[a] and moving_a) or (hit[b] and moving_b)):
                continue
            blow = False
            for k in range(offsets[g], offsets[g + 1]):
                if (
                    restitution[k] != 0.0
                    and normal_mass[k] > 0.0
                    and total_normal[k] > threshold * normal_mass[k]
                ):
                    blow = True
            if blow:
                bounce[g] = True
                count += 1
                hit[a] = True
                hit[b] = True
                grown = True
    return count


@njit(cache=True)
def apply_restitution(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    normal: np.ndarray,
    prepared: Prepared,
    manifolds: Manifolds,
    max_normal_impulse: np.ndarray,
    total_normal: np.ndarray,
    threshold: float,
) -> None:
    """Replace the bouncing manifolds' impulses over the step by an elastic impact.

    ``normal (c, 2)`` the points' normals; ``prepared`` as made by warm_start (its ``approach``:
    m/s, normal speed before solving, negative when closing); ``total_normal (c,)`` the soft
    step's impulses over the step (N s); ``threshold`` (units/s) the least approach speed that
    bounces. Updates velocities, ``total_normal`` (now the impact's ``(1 + e) x``) and
    ``prepared.normal_impulse`` (the warm-start store: zero for bouncing points, which leave
    the step separating) in place.
    """
    offsets = manifolds.offsets
    block = manifolds.block
    body_a = prepared.body_a
    body_b = prepared.body_b
    cross_a = prepared.cross_a
    cross_b = prepared.cross_b
    normal_mass = prepared.normal_mass
    restitution = prepared.restitution
    approach = prepared.approach
    normal_impulse = prepared.normal_impulse
    restitution_threshold = threshold
    groups = offsets.shape[0] - 1
    c = normal_impulse.shape[0]
    bounce = np.zeros(groups, dtype=np.bool_)
    e = np.zeros(c)
    count = 0
    for g in range(groups):
        for k in range(offsets[g], offsets[g + 1]):
            if restitution[k] != 0.0 and approach[k] < -restitution_threshold and max_normal_impulse[k] > 0.0:
                bounce[g] = True
        if bounce[g]:
            count += 1
    if count == 0:
        return
    count = _spread(
        bounce, count, prepared, inv_mass, inv_inertia, total_normal, offsets, restitution_threshold
    )
    # One coefficient for the whole manifold: Poisson's impact keeps energy only when every
    # point's compression impulse is restored by the same factor.
    for g in range(groups):
        if bounce[g]:
            for k in range(offsets[g], offsets[g + 1]):
                e[k] = restitution[k]
    order = np.empty(count, dtype=np.int64)
    m = 0
    for g in range(groups):
        if bounce[g]:
            order[m] = g
            m += 1

    # 1. The velocities the bouncing contacts came in with.
    for m in range(count):
        g = order[m]
        a = body_a[offsets[g]]
        b = body_b[offsets[g]]
        for k in range(offsets[g], offsets[g + 1]):
            _apply(
                velocity,
                angular_velocity,
                inv_mass,
                inv_inertia,
                a,
                b,
                cross_a[k, 0],
                cross_b[k, 0],
                normal[k, 0],
                normal[k, 1],
                -total_normal[k],
            )

    # 2. Compression: the inelastic impact of all of them at once.
    x = np.zeros(c)
    for _ in range(RESTITUTION_PASSES):
        change = 0.0
        size = 0.0
        for m in range(count):
            g = order[m]
            first = offsets[g]
            last = offsets[g + 1]
            a = body_a[first]
            b = body_b[first]
            nx = normal[first, 0]
            ny = normal[first, 1]
            k11 = block[g, 0]
            k12 = block[g, 1]
            k22 = block[g, 2]
            det = k11 * k22 - k12 * k12
            if last - first == 2 and det > 0.0:
                # Exact even when ill-conditioned (where the soft step solves the points one
                # by one): Gauss-Seidel between two nearly parallel rows would take thousands
                # of passes to converge.
                k0 = first
                k1 = first + 1
                v0 = _normal_speed(velocity, angular_velocity, a, b, nx, ny, cross_a[k0, 0], cross_b[k0, 0])
                v1 = _normal_speed(velocity, angular_velocity, a, b, nx, ny, cross_a[k1, 0], cross_b[k1, 0])
                c0 = v0 - k11 * x[k0] - k12 * x[k1]
                c1 = v1 - k12 * x[k0] - k22 * x[k1]
                n0, n1 = _lcp2(c0, c1, k11, k12, k22, k22 / det, -k12 / det, k11 / det)
                for k, new in ((k0, n0), (k1, n1)):
                    d = new - x[k]
                    x[k] = new
                    change = max(change, abs(d))
                    size = max(size, new)
                    _apply(
                        velocity,
                        angular_velocity,
                        inv_mass,
                        inv_inertia,
                        a,
                        b,
                        cross_a[k, 0],
                        cross_b[k, 0],
                        nx,
                        ny,
                        d,
                    )
            else:
                for k in range(first, last):
                    vn = _normal_speed(velocity, angular_velocity, a, b, nx, ny, cross_a[k, 0], cross_b[k, 0])
                    new = max(x[k] - normal_mass[k] * vn, 0.0)
                    d = new - x[k]
                    x[k] = new
                    change = max(change, abs(d))
                    size = max(size, new)
                    _apply(
                        velocity,
                        angular_velocity,
                        inv_mass,
                        inv_inertia,
                        a,
                        b,
                        cross_a[k, 0],
                        cross_b[k, 0],
                        nx,
                        ny,
                        d,
                    )
        if change <= RESTITUTION_CONVERGENCE * size:
            break

    # 3. Restitution: e times the compression impulse again.
    for m in range(count):
        g = order[m]
        a = body_a[offsets[g]]
        b = body_b[offsets[g]]
        for k in range(offsets[g], offsets[g + 1]):
            d = e[k] * x[k]
            _apply(
                velocity,
                angular_velocity,
                inv_mass,
                inv_inertia,
                a,
                b,
                cross_a[k, 0],
                cross_b[k, 0],
                normal[k, 0],
                normal[k, 1],
                d,
            )
            total_normal[k] = x[k] + d
            normal_impulse[k] = 0.0
