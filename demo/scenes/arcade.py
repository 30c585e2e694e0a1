"""arcade (T4) and arcade-spin (T5b): a heavy player box the arrow keys push among random
bodies, with Tutorial 4's arcade response (velocity reflection, friction and "glue").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import Polygon, World
from demo.draw import palette
from demo.scenes import arena
from demo.scenes.base import MOVES, FrameInput, Scene, fixed_count_fields, wrap_angle

#: T4: the player is a 10 x 15 box of mass 100; random bodies have 2-7 vertices, radius 4-6,
#: are static with probability 0.7 and weigh size^2. Material: friction 0, restitution 0.1,
#: glue 0.01 (units/s here: the arcade solver's static friction is a glue speed).
ARCADE_PLAYER_SIZE, ARCADE_PLAYER_MASS = (10.0, 15.0), 100.0
ARCADE_RANDOM_BODIES, ARCADE_STATIC_PROBABILITY = 5, 0.7
ARCADE_FRICTION, ARCADE_RESTITUTION, ARCADE_GLUE = 0.0, 0.1, 0.01
ARCADE_GRAVITY = 10.0
#: Player push (units/s^2 per unit of key): sideways, up, down; and the velocity damping (1/s)
#: standing in for the original's "-d * 0.3 / dt" on its per-frame displacement.
PLAYER_PUSH = (100.0, 200.0, 60.0)
PLAYER_DAMPING = 3.0
#: T5b: every body turns at a constant rate drawn from this range (rad/s); collisions never
#: change it (the arcade response treats rotation as kinematic).
SPIN_RANGE = (1.0, 4.0)
#: Where the arena scenes' turret sits: under the ceiling, at the left, away from the player
#: (who starts in the middle) and from the bodies that fall to the floor.
ARENA_TURRET = (8.0, 95.0)


def push_player(world: World, player: int, direction: np.ndarray) -> None:
    """Arrow keys (``direction (2,)``) push the player (forces scaled by its mass), damped by its velocity."""
    d = direction
    m = float(world.mass[player])
    fx = PLAYER_PUSH[0] * d[0]
    fy = PLAYER_PUSH[1] * max(d[1], 0.0) + PLAYER_PUSH[2] * min(d[1], 0.0)
    force = m * (np.array([fx, fy]) - PLAYER_DAMPING * world.velocity[player])
    if d.any() or np.hypot(*world.velocity[player]) > 0.0:
        world.apply_force(player, force)


def arena_fields(name: str, world: World, seed: int, help_lines: list[str]) -> dict[str, Any]:
    """The Scene fields of a scene in the original's arena with a fixed body count."""
    return fixed_count_fields(
        name, world, seed, arena.ARENA_VIEW, help_lines, ARENA_TURRET, bounds=arena.ARENA_VIEW
    )


@dataclass(eq=False, kw_only=True)
class ArcadeScene(Scene):
    """T4 / T5b. ``player``: the player's body; ``static_spin`` / ``dynamic_spin``: (body, rad/s)
    of the spinning bodies (T5b); ``spinning``: whether they turn."""

    family: str = "arcade"
    player: int = 0
    static_spin: list[tuple[int, float]] = field(default_factory=list)
    dynamic_spin: list[tuple[int, float]] = field(default_factory=list)
    spinning: bool = False

    def on_step(self, dt: float, frame: FrameInput) -> None:
        push_player(self.world, self.player, frame.direction())
        if self.spinning:
            world = self.world
            for i, omega in self.static_spin:
                world.angle[i] = wrap_angle(world.angle[i] + omega * dt)

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action == "toggle_spin" and "spin" in self.traits:
            self.spinning = not self.spinning
            world = self.world
            for i, omega in self.dynamic_spin:
                world.angular_velocity[i] = omega if self.spinning else 0.0
            return True
        return action in MOVES  # held: pushes the player in on_step

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        batch.add_text("player", self.world.position[self.player], palette.LABEL_TEXT)


def build_arcade_scene(name: str, seed: int, spin: bool) -> ArcadeScene:
    rng = np.random.default_rng(seed)
    world = arena.walled_world(
        gravity=(0.0, -ARCADE_GRAVITY),
        solver="arcade",
        friction=ARCADE_FRICTION,
        restitution=ARCADE_RESTITUTION,
        static_friction=ARCADE_GLUE,
    )
    w, h = ARCADE_PLAYER_SIZE
    player = world.add_body(Polygon.box(w, h), (50.0, 20.0), density=ARCADE_PLAYER_MASS / (w * h))
    static_spin: list[tuple[int, float]] = []
    dynamic_spin: list[tuple[int, float]] = []
    for _ in range(ARCADE_RANDOM_BODIES):
        n = int(rng.integers(2, 8))
        r = float(rng.uniform(4.0, 6.0))
        shape = Polygon.blob(n, r, r)
        static = bool(rng.random() < ARCADE_STATIC_PROBABILITY)
        area = max(float(shape.area), 1e-9)
        density = 1.0 if n < 3 else r * r / area  # mass size^2 (points and segments: nominal)
        omega = float(rng.uniform(*SPIN_RANGE)) if spin else 0.0
        i = arena.spawn(
            world,
            rng,
            shape,
            player,
            static=static,
            density=density,
            angular_velocity=0.0 if static else omega,
        )
        if i is not None and spin:
            (static_spin if static else dynamic_spin).append((i, omega))
    help_lines = [
        f"{name} ({'T5b' if spin else 'T4'}): arrows push the player; arcade response",
        "7/4 friction, 8/5 elasticity, 9/6 glue (static friction)",
    ]
    if spin:
        help_lines.append("every body turns at a fixed rate; a: spin on / off")
    traits = {"random", "player"} | ({"spin"} if spin else set())
    return ArcadeScene(
        **arena_fields(name, world, seed, help_lines),
        traits=frozenset(traits),
        player=player,
        static_spin=static_spin,
        dynamic_spin=dynamic_spin,
        spinning=spin,
    )


def build_arcade(seed: int = 0, bodies: int | None = None) -> ArcadeScene:
    return build_arcade_scene("arcade", seed, spin=False)


def build_arcade_spin(seed: int = 0, bodies: int | None = None) -> ArcadeScene:
    return build_arcade_scene("arcade-spin", seed, spin=True)


BUILDERS = {"arcade": build_arcade, "arcade-spin": build_arcade_spin}
