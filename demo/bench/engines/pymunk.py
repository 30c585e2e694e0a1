"""pymunk (Chipmunk2D) 7: a :class:`~demo.bench.scenes.SceneSpec` built in a ``pymunk.Space``.

Settings: the library's defaults (10 iterations, one thread) except ``collision_slop``, which
pymunk sizes for pixels (0.1 units): here units are metres, so it is ``COLLISION_SLOP`` =
0.005 m, Box2D's linear slop; when the scene sleeps, bodies idle for 0.5 s below 0.05 m/s fall
asleep (Box2D's and our defaults). pymunk multiplies the two shapes' friction and elasticity:
a scene of one material gets their square roots on every shape (the product is then the
material itself, as Box2D's rule gives); a scene of several materials gets a pre-solve
callback that sets each pair's values by Box2D's rule instead.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pymunk

from demo.bench.engines import State, label
from demo.bench.scenes import KINEMATIC, STATIC, BodySpec, SceneSpec, centred_parts

COLLISION_SLOP = 0.005
SLEEP_TIME = 0.5
IDLE_SPEED = 0.05


def _mix(arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> None:
    a, b = arbiter.shapes
    arbiter.friction = math.sqrt(a.material[0] * b.material[0])
    arbiter.restitution = max(a.material[1], b.material[1])


class PymunkSim:
    """The scene in a pymunk space (see :class:`demo.bench.engines.Sim`)."""

    def __init__(self, scene: SceneSpec) -> None:
        self.scene = scene
        self.label = label("pymunk")
        space = pymunk.Space()
        space.gravity = tuple(float(g) for g in scene.gravity)
        space.collision_slop = COLLISION_SLOP
        if scene.sleeping:
            space.sleep_time_threshold = SLEEP_TIME
            space.idle_speed_threshold = IDLE_SPEED
        materials = {(b.friction, b.restitution) for b in scene.bodies}
        uniform = len(materials) == 1
        if not uniform:
            space.on_collision(pre_solve=_mix)
        self.space = space
        self.bodies = [self._create(body, uniform) for body in scene.bodies]
        self.time = 0.0

    def _create(self, body: BodySpec, uniform: bool) -> pymunk.Body:
        kind = {STATIC: pymunk.Body.STATIC, KINEMATIC: pymunk.Body.KINEMATIC}.get(
            body.kind, pymunk.Body.DYNAMIC
        )
        handle = pymunk.Body(body_type=kind)
        handle.position = tuple(float(v) for v in body.position)
        handle.angle = float(body.angle)
        shapes = []
        for part in centred_parts(body):
            shape = pymunk.Poly(handle, [tuple(v) for v in part])
            if uniform:
                shape.friction = math.sqrt(body.friction)
                shape.elasticity = math.sqrt(body.restitution)
            else:
                shape.material = (body.friction, body.restitution)
            if body.moving:
                shape.density = float(body.density)
            shapes.append(shape)
        self.space.add(handle, *shapes)
        if body.kind != STATIC:
            handle.velocity = tuple(float(v) for v in body.velocity)
            handle.angular_velocity = float(body.angular_velocity)
        return handle

    def step(self, count: int = 1) -> None:
        space, dt = self.space, self.scene.dt
        for _ in range(count):
            space.step(dt)
        self.time += count * dt

    def state(self) -> State:
        bodies = self.bodies
        return State(
            np.array([tuple(b.position) for b in bodies], dtype=np.float64).reshape(-1, 2),
            np.array([b.angle for b in bodies], dtype=np.float64),
            np.array([tuple(b.velocity) for b in bodies], dtype=np.float64).reshape(-1, 2),
            np.array([b.angular_velocity for b in bodies], dtype=np.float64),
        )

    def awake(self) -> np.ndarray:
        return np.array([b.body_type == pymunk.Body.STATIC or not b.is_sleeping for b in self.bodies])

    def set_velocity(self, i: int, velocity: tuple[float, float], angular_velocity: float) -> None:
        handle = self.bodies[i]
        handle.activate()
        handle.velocity = tuple(float(v) for v in velocity)
        handle.angular_velocity = float(angular_velocity)

    def mass_properties(self) -> tuple[np.ndarray, np.ndarray]:
        moving = [spec.moving for spec in self.scene.bodies]
        mass = np.array([b.mass if m else 0.0 for b, m in zip(self.bodies, moving, strict=True)])
        inertia = np.array([b.moment if m else 0.0 for b, m in zip(self.bodies, moving, strict=True)])
        return mass, inertia


def build(scene: SceneSpec) -> PymunkSim:
    """``scene`` in pymunk."""
    return PymunkSim(scene)
