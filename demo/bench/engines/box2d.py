"""Box2D v3 through its Python bindings, ``pyb2d3`` (single precision).

Settings: ``SUBSTEPS = 4`` per step (Box2D v3's recommended count) on one worker (no thread
pool), the library's defaults otherwise (contact hertz 30, damping ratio 10, restitution
threshold 1 m/s, maximum linear speed 400 m/s, continuous collision against static bodies
on). Box2D's polygons hold at most 8 vertices: a larger convex
part is cut into a fan of pieces of at most 8 that tile it exactly (same mass, centroid and
inertia), shapes of the one body. Angles are read from the rotation's cosine and sine (the
bindings' ``Body.angle`` is an approximation good to about 1e-5 rad).
"""

from __future__ import annotations

import math

import numpy as np
import pyb2d3 as b2

from demo.bench.engines import State, label
from demo.bench.scenes import KINEMATIC, STATIC, BodySpec, SceneSpec, centred_parts, fan_pieces

SUBSTEPS = 4
#: Box2D's B2_MAX_POLYGON_VERTICES.
MAX_POLYGON_VERTICES = 8


def _rotation(angle: float) -> b2.Rot:
    rot = b2.Rot()
    rot.c, rot.s = math.cos(angle), math.sin(angle)
    return rot


def _create(world: b2.World, body: BodySpec) -> b2.Body:
    pose = {
        "position": tuple(float(v) for v in body.position),
        "rotation": _rotation(body.angle),
    }
    if body.kind == STATIC:
        handle = world.create_static_body(**pose)
    else:
        motion = {
            "linear_velocity": tuple(float(v) for v in body.velocity),
            "angular_velocity": float(body.angular_velocity),
        }
        create = world.create_kinematic_body if body.kind == KINEMATIC else world.create_dynamic_body
        handle = create(**pose, **motion)
    shape = b2.shape_def(
        density=float(body.density),
        material=b2.surface_material(friction=float(body.friction), restitution=float(body.restitution)),
    )
    for part in centred_parts(body):
        for piece in fan_pieces(part, MAX_POLYGON_VERTICES):
            handle.create_polygon_shape(shape, b2.polygon(points=piece))
    return handle


class Box2DSim:
    """The scene in a Box2D v3 world (see :class:`demo.bench.engines.Sim`)."""

    def __init__(self, scene: SceneSpec) -> None:
        self.scene = scene
        self.label = label("box2d")
        self.world = b2.World(gravity=tuple(float(g) for g in scene.gravity))
        self.world.sleeping_enabled = bool(scene.sleeping)
        self.bodies = [_create(self.world, body) for body in scene.bodies]
        self.batch = b2.Bodies()
        for handle in self.bodies:
            self.batch.append(handle.id)
        self.time = 0.0

    def step(self, count: int = 1) -> None:
        world, dt = self.world, self.scene.dt
        for _ in range(count):
            world.step(dt, SUBSTEPS)
        self.time += count * dt

    def state(self) -> State:
        rotations = np.asarray(self.batch.get_rotations(), dtype=np.float64)
        return State(
            np.asarray(self.batch.get_positions(), dtype=np.float64),
            np.arctan2(rotations[:, 1], rotations[:, 0]),
            np.asarray(self.batch.get_linear_velocities(), dtype=np.float64),
            np.asarray(self.batch.get_angular_velocities(), dtype=np.float64),
        )

    def awake(self) -> np.ndarray:
        return np.array(
            [
                spec.kind == STATIC or handle.awake
                for spec, handle in zip(self.scene.bodies, self.bodies, strict=True)
            ]
        )

    def set_velocity(self, i: int, velocity: tuple[float, float], angular_velocity: float) -> None:
        handle = self.bodies[i]
        handle.awake = True
        handle.linear_velocity = tuple(float(v) for v in velocity)
        handle.angular_velocity = float(angular_velocity)

    def mass_properties(self) -> tuple[np.ndarray, np.ndarray]:
        moving = [spec.kind not in (STATIC, KINEMATIC) for spec in self.scene.bodies]
        mass = np.array([h.mass if m else 0.0 for h, m in zip(self.bodies, moving, strict=True)])
        inertia = np.array(
            [h.rotational_inertia() if m else 0.0 for h, m in zip(self.bodies, moving, strict=True)]
        )
        return mass, inertia


def build(scene: SceneSpec) -> Box2DSim:
    """``scene`` in Box2D v3."""
    return Box2DSim(scene)
