"""rigid: the original rigid-body demo (T7), the program's default scene.

Four static walls, the small pin in the middle and random bodies of 1-6 vertices (30% static);
the mouse attracts and repels; `+` / `-` add and remove bodies (5..999, walls and pin included).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import Polygon
from demo.scenes import arena
from demo.scenes.base import FrameInput, Scene
from demo.scenes.impulse import ImpactWatch, draw_impulse

PIN_CENTRE, PIN_SIZE = (50.0, 50.0), 1.0
#: Body counts include the 4 walls and the pin, as in the original (20 = 15 random bodies).
RIGID_DEFAULT_BODIES, RIGID_MIN_BODIES, RIGID_MAX_BODIES = 20, 5, 999
FIXED_BODIES = 5
#: The original's random shapes: 1..6 vertices, height 2..6, width height * 0.6..1.4, 30% static.
STATIC_PROBABILITY = 0.3
#: The original program's material after its first key press (GameCode.cpp): we start with it.
RIGID_FRICTION, RIGID_RESTITUTION, RIGID_STATIC_FRICTION = 0.3, 0.7, 0.5
#: The original's pace: gravity 5 units/s^2, and one step of 1/40 s per drawn frame (T7
#: main.cpp), which at 60 frames a second is 1.5 simulated seconds a second.
RIGID_GRAVITY, RIGID_DT, RIGID_TIME_SCALE = 5.0, 1.0 / 40.0, 1.5
#: Fraction of the arena the random bodies' bounding circles may cover when spawning; above it,
#: bodies are shrunk (999 full-size bodies cannot fit; the original let them overlap).
SPAWN_FILL = 0.3
#: Mean bounding-circle area of a full-size random body (units^2): E[pi max(rx, ry)^2].
MEAN_CIRCLE_AREA = 66.8
#: How many times a new body is shrunk, and by how much, when no free spot is found for it.
SPAWN_SHRINKS, SPAWN_SHRINK_FACTOR = 6, 0.75
#: Where the turret stands: under the ceiling, above the pin, where falling bodies leave room.
RIGID_TURRET = (50.0, arena.ARENA_INSIDE[3] - 3.0)


def random_shape(rng: np.random.Generator, scale: float = 1.0) -> tuple[Polygon, bool, float]:
    """One of the original's random bodies: (shape, static, angle)."""
    n = int(rng.integers(1, 7))
    height = float(rng.uniform(2.0, 6.0)) * scale
    width = height * float(rng.uniform(0.6, 1.4))
    static = bool(rng.random() < STATIC_PROBABILITY)
    angle = float(rng.uniform(1.0, 4.0))
    if static and n <= 4:
        angle = 0.0  # the original kept small static bodies axis-aligned
    return Polygon.blob(n, width, height), static, angle


def body_scale(bodies: int) -> float:
    """Size factor for the random bodies so that ``bodies`` of them fit the arena (1 = original)."""
    random_bodies = max(bodies - FIXED_BODIES, 1)
    x0, y0, x1, y1 = arena.ARENA_INSIDE
    room = SPAWN_FILL * (x1 - x0) * (y1 - y0)
    return min(1.0, math.sqrt(room / (random_bodies * MEAN_CIRCLE_AREA)))


@dataclass(eq=False, kw_only=True)
class RigidScene(Scene):
    """The T7 demo; ``rng`` draws the random bodies, ``scale`` sizes them for the count."""

    family: str = "rigid"
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    scale: float = 1.0
    #: Under the tutorial solver (`m`): the latest impact, replayed with its impulse terms.
    watch: ImpactWatch = field(default_factory=ImpactWatch)

    def on_step(self, dt: float, frame: FrameInput) -> None:
        self.watch.before_step(self.world, dt)

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        self.watch.catch_up(self.world)
        shown = self.watch.shown
        tutorial = self.world.solver == "tutorial"
        self.status = draw_impulse(batch, shown, self.view) if tutorial and shown is not None else []

    def add_random_body(self) -> int | None:
        """Add one random body at a free spot (shrinking it if the arena is crowded); its index or None."""
        world = self.world
        centres, radii = arena.occupied(world, FIXED_BODIES - 1)
        scale = self.scale
        for _ in range(SPAWN_SHRINKS + 1):
            shape, static, angle = random_shape(self.rng, scale)
            spot = arena.free_spot(self.rng, arena.spawn_radius(shape), centres, radii)
            if spot is not None:
                return world.add_body(shape, spot, angle=angle, static=static)
            scale *= SPAWN_SHRINK_FACTOR
        return None

    def on_action(self, action: str, frame: FrameInput) -> bool:
        world = self.world
        if action == "more_bodies":
            if world.body_count < self.max_bodies:
                self.add_random_body()
            return True
        if action == "fewer_bodies":
            if world.body_count > self.min_bodies:
                world.remove_body(world.body_count - 1)
            return True
        if action == "reset_count":
            while world.body_count > self.default_bodies:
                world.remove_body(world.body_count - 1)
            while world.body_count < self.default_bodies:
                if self.add_random_body() is None:
                    break
            return True
        return False


def build_rigid(seed: int = 0, bodies: int | None = None) -> RigidScene:
    """Four static 100 x 100 walls, the 1 x 1 pin at (50, 50) and ``bodies - 5`` random bodies."""
    count = RIGID_DEFAULT_BODIES if bodies is None else int(bodies)
    if not RIGID_MIN_BODIES <= count <= RIGID_MAX_BODIES:
        raise ValueError(f"bodies = {count}: the rigid scene takes {RIGID_MIN_BODIES}..{RIGID_MAX_BODIES}")
    world = arena.walled_world(
        gravity=(0.0, -RIGID_GRAVITY),
        friction=RIGID_FRICTION,
        restitution=RIGID_RESTITUTION,
        static_friction=RIGID_STATIC_FRICTION,
    )
    world.add_body(Polygon.box(PIN_SIZE, PIN_SIZE), PIN_CENTRE, static=True)
    scene = RigidScene(
        name="rigid",
        world=world,
        view=arena.ARENA_VIEW,
        bounds=arena.ARENA_VIEW,
        seed=int(seed),
        bodies=count,
        help=[
            "rigid: the original demo (Tutorial 7), at its pace: 1/40 s a frame",
            "m to the tutorial solver: the latest impact's impulse, each term of the formula with numbers",
        ],
        dt=RIGID_DT,
        time_scale=RIGID_TIME_SCALE,
        turret=RIGID_TURRET,
        min_bodies=RIGID_MIN_BODIES,
        max_bodies=RIGID_MAX_BODIES,
        default_bodies=RIGID_DEFAULT_BODIES,
        traits=frozenset({"random"}),
        rng=np.random.default_rng(seed),
        scale=body_scale(count),
    )
    while world.body_count < count:
        if scene.add_random_body() is None:
            break
    return scene


BUILDERS = {"rigid": build_rigid}
