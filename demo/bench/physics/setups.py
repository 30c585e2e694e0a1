"""Small builders the physics cases share: turned frames, floors, boxes, reading a body's motion.

Every case is free to turn its whole setup by an angle (the laws do not depend on the axes),
so positions and velocities are written in the case's own frame and turned here.
"""

from __future__ import annotations

import math

import numpy as np

from demo.bench.engines import Sim, State
from demo.bench.scenes import STATIC, BodySpec, box_vertices

#: Friction and restitution of a case's surfaces unless it says otherwise.
FRICTIONLESS = {"friction": 0.0, "restitution": 0.0}


def turned(vector: tuple[float, float], angle: float) -> tuple[float, float]:
    """``vector`` turned counter-clockwise by ``angle`` (rad)."""
    c, s = math.cos(angle), math.sin(angle)
    x, y = vector
    return (c * x - s * y, s * x + c * y)


def in_frame(vector: np.ndarray, angle: float) -> tuple[float, float]:
    """World ``vector (2,)`` in a frame turned by ``angle``: (along its x, along its y)."""
    return turned((float(vector[0]), float(vector[1])), -angle)


def floor(
    turn: float = 0.0, width: float = 40.0, friction: float = 0.0, restitution: float = 0.0
) -> BodySpec:
    """A static slab 1 m thick whose top face is the case frame's line y = 0 (frame turned by
    ``turn``), ``width`` m long, centred on the frame's origin."""
    return BodySpec(
        (box_vertices(width, 1.0),),
        turned((0.0, -0.5), turn),
        angle=turn,
        kind=STATIC,
        friction=friction,
        restitution=restitution,
    )


def box(
    w: float,
    h: float,
    centre: tuple[float, float],
    turn: float = 0.0,
    velocity: tuple[float, float] = (0.0, 0.0),
    angle: float = 0.0,
    angular_velocity: float = 0.0,
    density: float = 1.0,
    friction: float = 0.0,
    restitution: float = 0.0,
) -> BodySpec:
    """A dynamic ``w`` x ``h`` box; ``centre``, ``velocity`` and ``angle`` in the case frame
    turned by ``turn``."""
    return BodySpec(
        (box_vertices(w, h),),
        turned(centre, turn),
        angle=turn + angle,
        velocity=turned(velocity, turn),
        angular_velocity=angular_velocity,
        density=density,
        friction=friction,
        restitution=restitution,
    )


def box_inertia(w: float, h: float, density: float) -> tuple[float, float]:
    """``(mass, inertia about the centre)`` of a uniform box: m = rho w h, I = m (w^2 + h^2) / 12."""
    m = density * w * h
    return m, m * (w * w + h * h) / 12.0


def lowest_corner(w: float, h: float, angle: float) -> np.ndarray:
    """``(2,)`` the lowest corner of a ``w`` x ``h`` box turned by ``angle``, relative to its centre."""
    c, s = math.cos(angle), math.sin(angle)
    corners = box_vertices(w, h) @ np.array([[c, s], [-s, c]])
    return corners[int(np.argmin(corners[:, 1]))]


def run_for(sim: Sim, seconds: float) -> State:
    """Step ``sim`` for ``seconds`` (whole steps) and return the state."""
    sim.step(int(round(seconds / sim.scene.dt)))
    return sim.state()


def linear_momentum(masses: np.ndarray, state: State) -> np.ndarray:
    """``(2,)`` total linear momentum (N s)."""
    return (masses[:, None] * state.velocity).sum(axis=0)


def angular_momentum(masses: np.ndarray, inertias: np.ndarray, state: State) -> float:
    """Total angular momentum about the origin (kg m^2/s): sum m (r x v) + I w."""
    r, v = state.position, state.velocity
    orbital = masses * (r[:, 0] * v[:, 1] - r[:, 1] * v[:, 0])
    return float(orbital.sum() + (inertias * state.angular_velocity).sum())
