"""Small compiled helpers written once: closest point on a segment, angle wrapping, material
mixing, moving a body's rows.

Used by the tests, the solvers and the queries alike; each is plain arithmetic over scalars or
the rows of the body store.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def closest_point_on_segment(
    px: float, py: float, ax: float, ay: float, bx: float, by: float
) -> tuple[float, float, float]:
    """The point of segment ``a``-``b`` closest to ``p``, and where it lies on the segment:
    ``(x, y, u)`` with ``u`` in [0, 1] from ``a`` to ``b`` (Tutorial 6's FindClosestPoint).

    A zero-length segment gives ``a`` and ``u = 0``. ``u`` is exactly 0 or 1 when the closest
    point is an end.
    """
    ex = bx - ax
    ey = by - ay
    ee = ex * ex + ey * ey
    if ee <= 0.0:
        return ax, ay, 0.0
    u = ((px - ax) * ex + (py - ay) * ey) / ee
    if not u >= 0.0:  # before the start, or NaN from a segment too long to square: the start
        u = 0.0
    elif u > 1.0:
        u = 1.0
    return ax + u * ex, ay + u * ey, u


@njit(cache=True, inline="always")
def wrap_angle(a: float) -> float:
    """``a`` (radians) wrapped to [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@njit(cache=True)
def wrap_angles(angle: np.ndarray) -> None:
    """Angles outside [-pi, pi) wrapped into it, in place; angles inside are left bit-identical
    (wrapping them anyway would round some of them)."""
    for i in range(angle.shape[0]):
        if angle[i] < -math.pi or angle[i] >= math.pi:
            angle[i] = wrap_angle(angle[i])


@njit(cache=True, inline="always")
def mix_friction(a: float, b: float) -> float:
    """Friction (or static friction) of a pair of bodies with coefficients ``a`` and ``b``: their
    geometric mean, as Box2D mixes them (a frictionless body makes every pair frictionless)."""
    return math.sqrt(a * b)


@njit(cache=True, inline="always")
def mix_restitution(a: float, b: float) -> float:
    """Restitution of a pair of bodies: the larger of the two, as Box2D mixes it (a bouncy ball
    bounces off a dull floor)."""
    return max(a, b)


@njit(cache=True)
def shift_body_vertices(
    world_vertices: np.ndarray, vertex_count: np.ndarray, root: np.ndarray, body: int, dx: float, dy: float
) -> None:
    """Move the world-space vertices of every row of ``body`` (a root: itself and a compound's
    parts, the rows after it whose ``root`` is ``body``) by ``(dx, dy)``."""
    r = body
    while r < root.shape[0] and root[r] == body:
        for v in range(vertex_count[r]):
            world_vertices[r, v, 0] += dx
            world_vertices[r, v, 1] += dy
        r += 1
