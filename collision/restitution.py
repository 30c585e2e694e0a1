"""Restitution for the iterative solver, from the approach speed recorded before solving.

A point bounces when its material is elastic, it approached faster than the restitution
threshold, and it pushed during the step: resting contacts, which approach by one step of
gravity, stay put. Two-point manifolds bounce as a block, or the second point would undo the
first's spin.
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
def apply_restitution(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    body_a: np.ndarray,
    body_b: np.ndarray,
    normal: np.ndarray,
    anchor_a: np.ndarray,
    anchor_b: np.ndarray,
    cross_a: np.ndarray,
    cross_b: np.ndarray,
    normal_mass: np.ndarray,
    restitution: np.ndarray,
    approach: np.ndarray,
    max_normal_impulse: np.ndarray,
    normal_impulse: np.ndarray,
    total_normal: np.ndarray,
    offsets: np.ndarray,
    block: np.ndarray,
    restitution_threshold: float,
) -> None:
    """Give bouncing points the normal speed ``-e * approach``; updates the impulses in place.

    Arrays as made by collision.contact_store and collision.soft_contact (``approach (c,)``
    m/s, normal speed before solving, negative when closing).
    """
    groups = offsets.shape[0] - 1

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
