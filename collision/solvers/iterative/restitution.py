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

from typing import NamedTuple

import numpy as np
from numba import njit

from collision.solvers.iterative.warm_start import Manifolds, Prepared

#: Gauss-Seidel passes over the bouncing manifolds at most; a lone manifold is exact in one
#: pass, so this only bounds chains of simultaneous impacts.
RESTITUTION_PASSES = 32

#: Relative change of the compression impulses (dimensionless) below which the passes stop.
RESTITUTION_CONVERGENCE = 1e-12


class Motion(NamedTuple):
    """What an impulse changes and how much: the bodies' ``velocity (n, 2)``,
    ``angular_velocity (n,)`` and the solver's ``inv_mass``, ``inv_inertia (n,)``."""

    velocity: np.ndarray
    angular_velocity: np.ndarray
    inv_mass: np.ndarray
    inv_inertia: np.ndarray


@njit(cache=True)
def _apply(motion: Motion, a: int, b: int, rna: float, rnb: float, nx: float, ny: float, d: float) -> None:
    """Normal impulse d (N s) on A at the point with cross(r_a, n) = rna, its opposite on B."""
    velocity = motion.velocity
    velocity[a, 0] += motion.inv_mass[a] * d * nx
    velocity[a, 1] += motion.inv_mass[a] * d * ny
    motion.angular_velocity[a] += motion.inv_inertia[a] * d * rna
    velocity[b, 0] -= motion.inv_mass[b] * d * nx
    velocity[b, 1] -= motion.inv_mass[b] * d * ny
    motion.angular_velocity[b] -= motion.inv_inertia[b] * d * rnb


@njit(cache=True, inline="always")
def _normal_speed(motion: Motion, a: int, b: int, nx: float, ny: float, rna: float, rnb: float) -> float:
    """Relative normal speed (A minus B, along the normal) at a point with the given arms."""
    velocity = motion.velocity
    return (
        (velocity[a, 0] - velocity[b, 0]) * nx
        + (velocity[a, 1] - velocity[b, 1]) * ny
        + motion.angular_velocity[a] * rna
        - motion.angular_velocity[b] * rnb
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
    bounce: np.ndarray, count: int, prepared: Prepared, motion: Motion, total_normal: np.ndarray,
    offsets: np.ndarray, threshold: float,
) -> int:  # fmt: skip
    """Add to ``bounce (g,) bool`` the elastic manifolds the impact reached within the step.

    A body bounced off one contact can hit another in the same step: that contact was not
    closing at the start, so it has no approach speed, but it took the blow (its impulse
    changed the bodies' normal speed by more than the threshold). Left inelastic while the
    first contact is made elastic, the two disagree and energy appears. Spreads from the
    bouncing manifolds' moving bodies until nothing changes; returns the new count.
    """
    groups = offsets.shape[0] - 1
    inv_mass = motion.inv_mass
    inv_inertia = motion.inv_inertia
    body_a = prepared.body_a
    body_b = prepared.body_b
    normal_mass = prepared.normal_mass
    hit = np.zeros(inv_mass.shape[0], dtype=np.bool_)
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
                    prepared.restitution[k] != 0.0
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
def bouncing(
    motion: Motion, prepared: Prepared, manifolds: Manifolds, max_normal_impulse: np.ndarray,
    total_normal: np.ndarray, threshold: float,
) -> np.ndarray:  # fmt: skip
    """The manifolds that bounce, in order: those with an elastic point that approached faster
    than ``threshold`` (units/s) and pushed during the step, and those their impact reached
    (:func:`_spread`)."""
    offsets = manifolds.offsets
    groups = offsets.shape[0] - 1
    bounce = np.zeros(groups, dtype=np.bool_)
    count = 0
    for g in range(groups):
        for k in range(offsets[g], offsets[g + 1]):
            if (
                prepared.restitution[k] != 0.0
                and prepared.approach[k] < -threshold
                and max_normal_impulse[k] > 0.0
            ):
                bounce[g] = True
        if bounce[g]:
            count += 1
    if count > 0:
        count = _spread(bounce, count, prepared, motion, total_normal, offsets, threshold)
    order = np.empty(count, dtype=np.int64)
    m = 0
    for g in range(groups):
        if bounce[g]:
            order[m] = g
            m += 1
    return order


@njit(cache=True)
def _compress_pair(
    motion: Motion, normal: np.ndarray, prepared: Prepared, manifolds: Manifolds, g: int, x: np.ndarray,
    change: float, size: float,
) -> tuple[float, float]:  # fmt: skip
    """One Gauss-Seidel visit of two-point manifold ``g``: its compression impulses ``x`` solved
    exactly as a 2 x 2 complementarity problem, even when ill-conditioned (where the soft step
    solves the points one by one): Gauss-Seidel between two nearly parallel rows would take
    thousands of passes to converge. Returns the largest change and impulse so far."""
    first = manifolds.offsets[g]
    k0 = first
    k1 = first + 1
    a = prepared.body_a[first]
    b = prepared.body_b[first]
    nx = normal[first, 0]
    ny = normal[first, 1]
    k11 = manifolds.block[g, 0]
    k12 = manifolds.block[g, 1]
    k22 = manifolds.block[g, 2]
    det = k11 * k22 - k12 * k12
    cross_a = prepared.cross_a
    cross_b = prepared.cross_b
    v0 = _normal_speed(motion, a, b, nx, ny, cross_a[k0, 0], cross_b[k0, 0])
    v1 = _normal_speed(motion, a, b, nx, ny, cross_a[k1, 0], cross_b[k1, 0])
    c0 = v0 - k11 * x[k0] - k12 * x[k1]
    c1 = v1 - k12 * x[k0] - k22 * x[k1]
    n0, n1 = _lcp2(c0, c1, k11, k12, k22, k22 / det, -k12 / det, k11 / det)
    for k, new in ((k0, n0), (k1, n1)):
        d = new - x[k]
        x[k] = new
        change = max(change, abs(d))
        size = max(size, new)
        _apply(motion, a, b, cross_a[k, 0], cross_b[k, 0], nx, ny, d)
    return change, size


@njit(cache=True)
def _compress_points(
    motion: Motion, normal: np.ndarray, prepared: Prepared, manifolds: Manifolds, g: int, x: np.ndarray,
    change: float, size: float,
) -> tuple[float, float]:  # fmt: skip
    """One Gauss-Seidel visit of manifold ``g``, point by point (see :func:`_compress_pair`)."""
    first = manifolds.offsets[g]
    a = prepared.body_a[first]
    b = prepared.body_b[first]
    nx = normal[first, 0]
    ny = normal[first, 1]
    for k in range(first, manifolds.offsets[g + 1]):
        rna = prepared.cross_a[k, 0]
        rnb = prepared.cross_b[k, 0]
        vn = _normal_speed(motion, a, b, nx, ny, rna, rnb)
        new = max(x[k] - prepared.normal_mass[k] * vn, 0.0)
        d = new - x[k]
        x[k] = new
        change = max(change, abs(d))
        size = max(size, new)
        _apply(motion, a, b, rna, rnb, nx, ny, d)
    return change, size


@njit(cache=True)
def compress(
    motion: Motion, normal: np.ndarray, prepared: Prepared, manifolds: Manifolds, order: np.ndarray
) -> np.ndarray:
    """Step 2: the inelastic impact of the bouncing manifolds ``order`` all at once (normal
    speeds >= 0, impulses >= 0, one of each zero), by Gauss-Seidel until the impulses stop
    changing. Returns the compression impulses ``x (c,)`` (N s)."""
    offsets = manifolds.offsets
    block = manifolds.block
    x = np.zeros(prepared.normal_impulse.shape[0])
    for _ in range(RESTITUTION_PASSES):
        change = 0.0
        size = 0.0
        for m in range(order.shape[0]):
            g = order[m]
            first = offsets[g]
            det = block[g, 0] * block[g, 2] - block[g, 1] * block[g, 1]
            if offsets[g + 1] - first == 2 and det > 0.0:
                change, size = _compress_pair(motion, normal, prepared, manifolds, g, x, change, size)
            else:
                change, size = _compress_points(motion, normal, prepared, manifolds, g, x, change, size)
        if change <= RESTITUTION_CONVERGENCE * size:
            break
    return x


@njit(cache=True)
def _push_manifolds(
    motion: Motion, normal: np.ndarray, prepared: Prepared, manifolds: Manifolds, order: np.ndarray,
    impulse: np.ndarray, factor: np.ndarray,
) -> None:  # fmt: skip
    """Apply ``factor[k] * impulse[k]`` along the normal at every point ``k`` of the manifolds
    ``order``."""
    offsets = manifolds.offsets
    for m in range(order.shape[0]):
        g = order[m]
        a = prepared.body_a[offsets[g]]
        b = prepared.body_b[offsets[g]]
        for k in range(offsets[g], offsets[g + 1]):
            d = factor[k] * impulse[k]
            _apply(
                motion, a, b, prepared.cross_a[k, 0], prepared.cross_b[k, 0], normal[k, 0], normal[k, 1], d
            )


@njit(cache=True)
def apply_restitution(
    motion: Motion, normal: np.ndarray, prepared: Prepared, manifolds: Manifolds,
    max_normal_impulse: np.ndarray, total_normal: np.ndarray, threshold: float,
) -> None:  # fmt: skip
    """Replace the bouncing manifolds' impulses over the step by an elastic impact.

    ``normal (c, 2)`` the points' normals; ``prepared`` as made by warm_start (its ``approach``:
    m/s, normal speed before solving, negative when closing); ``total_normal (c,)`` the soft
    step's impulses over the step (N s); ``threshold`` (units/s) the least approach speed that
    bounces. Updates velocities, ``total_normal`` (now the impact's ``(1 + e) x``) and
    ``prepared.normal_impulse`` (the warm-start store: zero for bouncing points, which leave
    the step separating) in place.
    """
    order = bouncing(motion, prepared, manifolds, max_normal_impulse, total_normal, threshold)
    if order.shape[0] == 0:
        return
    # 1. The velocities the bouncing contacts came in with.
    _push_manifolds(
        motion, normal, prepared, manifolds, order, total_normal, np.full(total_normal.shape[0], -1.0)
    )
    # 2. Compression: the inelastic impact of all of them at once.
    x = compress(motion, normal, prepared, manifolds, order)
    # 3. Restitution: e times the compression impulse again. One coefficient for the whole
    # manifold: Poisson's impact keeps energy only when every point's compression impulse is
    # restored by the same factor.
    _push_manifolds(motion, normal, prepared, manifolds, order, x, prepared.restitution)
    offsets = manifolds.offsets
    for m in range(order.shape[0]):
        g = order[m]
        for k in range(offsets[g], offsets[g + 1]):
            total_normal[k] = x[k] + prepared.restitution[k] * x[k]
            prepared.normal_impulse[k] = 0.0
