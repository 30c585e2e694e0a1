"""Ours: a :class:`~demo.bench.scenes.SceneSpec` built in a :class:`collision.World` (public API).

A body of one part is ``add_body``, of several ``add_compound``; both place the centre of mass
at the spec's position, as the spec does. Static friction: the tutorial solver reads it as
Coulomb's static coefficient (the sticking cone), so it gets the material's friction, one
coefficient as in Box2D and pymunk; the arcade solver reads it as a glue speed (m/s) and the
iterative solver not at all, so they keep the world's default, except that a frictionless
material has none.
"""

from __future__ import annotations

import numpy as np

from collision import World
from demo.bench.engines import State, label
from demo.bench.scenes import FRICTION, KINEMATIC, RESTITUTION, STATIC, BodySpec, SceneSpec


def new_world(scene: SceneSpec, solver: str = "iterative") -> World:
    """An empty world with the scene's gravity and sleeping, and the benchmark's default materials."""
    world = World(gravity=scene.gravity, solver=solver, friction=FRICTION, restitution=RESTITUTION)
    world.solver_settings("iterative").sleep = scene.sleeping
    # Big worlds on every core numba runs (NUMBA_NUM_THREADS, which bench --threads sets).
    world.solver_settings("iterative").threads = 0
    return world


def _static_friction(world: World, body: BodySpec) -> float | None:
    if world.solver == "tutorial" or body.friction == 0.0:
        return body.friction
    return None


def add_body(world: World, body: BodySpec) -> int:
    """Add one spec body to ``world``; returns its (root) row."""
    common = {
        "angle": body.angle,
        "velocity": body.velocity,
        "angular_velocity": body.angular_velocity,
        "density": body.density,
        "static": body.kind == STATIC,
        "kinematic": body.kind == KINEMATIC,
        "friction": body.friction,
        "restitution": body.restitution,
        "static_friction": _static_friction(world, body),
    }
    if len(body.parts) == 1:
        return world.add_body(body.parts[0], body.position, **common)
    return world.add_compound(list(body.parts), body.position, **common)


def add_bodies(world: World, scene: SceneSpec) -> np.ndarray:
    """Add the scene's bodies in order; returns ``(n,) int64`` their rows."""
    return np.array([add_body(world, body) for body in scene.bodies], dtype=np.int64)


class OursSim:
    """The scene in our world with ``solver`` (see :class:`demo.bench.engines.Sim`)."""

    def __init__(self, scene: SceneSpec, solver: str = "iterative") -> None:
        self.scene = scene
        self.label = label("ours", solver)
        self.world = new_world(scene, solver)
        self.rows = add_bodies(self.world, scene)
        self.time = 0.0

    def step(self, count: int = 1) -> None:
        for _ in range(count):
            self.world.step(self.scene.dt)
        self.time += count * self.scene.dt

    def state(self) -> State:
        w, r = self.world, self.rows
        return State(
            w.position[r].copy(), w.angle[r].copy(), w.velocity[r].copy(), w.angular_velocity[r].copy()
        )

    def awake(self) -> np.ndarray:
        return ~np.asarray(self.world.sleeping)[self.rows]

    def set_velocity(self, i: int, velocity: tuple[float, float], angular_velocity: float) -> None:
        self.world.set_velocity(int(self.rows[i]), velocity, angular_velocity)

    def mass_properties(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.world.mass)[self.rows].copy(), np.asarray(self.world.inertia)[self.rows].copy()
