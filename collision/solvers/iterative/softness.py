"""Soft contact coefficients: the spring-damper that pushes overlapping bodies apart.

Box2D v3's soft constraints: a contact of stiffness ``hertz`` and damping ratio ``zeta`` solved
with step ``h`` acts as an implicit spring; its bias rate, mass scale and impulse scale are what
the solve passes need.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from collision.kernels import compiled_only


@compiled_only()
def soft_coefficients(hertz: float, zeta: float, h: float) -> tuple[float, float, float]:
    """Soft constraint coefficients (bias rate 1/s, mass scale, impulse scale) for step h."""
    if hertz == 0.0:
        return 0.0, 1.0, 0.0
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * zeta + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return omega / a1, a2 * a3, a3


@njit(cache=True, inline="always")
def softness_table(groups: int, settings: Any, h: float) -> np.ndarray:
    """``(2 + groups, 3)`` soft contact coefficients (see passes.solve_pass): rows 0 (between moving
    bodies) and 1 (against a body that does not move: Box2D v3.1 makes those twice as stiff,
    they carry whole stacks and cannot be shared out by the other body's motion) filled here,
    the rest by :func:`soft_step.pack_rows` where a pair's mass ratio asks for it."""
    inv_hs = 1.0 / h
    softness = np.empty((2 + groups, 3))
    hertz = min(settings.contact_hertz, 0.25 * inv_hs)
    softness[0, 0], softness[0, 1], softness[0, 2] = soft_coefficients(hertz, settings.damping_ratio, h)
    softness[1, 0], softness[1, 1], softness[1, 2] = soft_coefficients(
        min(settings.static_hertz_scale * hertz, 0.25 * inv_hs), settings.damping_ratio, h
    )
    return softness
