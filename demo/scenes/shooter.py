"""bullets (T7b) and laser (T8): a player box the arrow keys push, firing at the cursor.

T7b fires bullet particles that die after more than 5 hits; T8 fires a laser, a ray that stops
at the first body it meets and pushes it there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import Polygon
from demo.draw import palette
from demo.scenes import arena, rigid
from demo.scenes.arcade import arena_fields
from demo.scenes.base import MOVES, FrameInput, Scene, shot_radius

#: T8's player: a 7 x 10 box of density 0.4 that does not turn. T8 had 15 random bodies (40%
#: static); T7b 5 random bodies of 2-7 vertices.
SHOOTER_SIZE, SHOOTER_DENSITY = (7.0, 10.0), 0.4
#: Gravity (units/s^2) at the program's pace of real time (the original's 5 at 1/40 s a frame
#: looked about as fast).
SHOOTER_GRAVITY = 10.0
#: T8's player push (units/s^2 per key, scaled by mass): sideways 20, up 30, down 10.
SHOOTER_PUSH = (20.0, 30.0, 10.0)
SHOOTER_DAMPING = 0.5
#: T7b: a bullet is a particle of mass 3 (a point gets 5 * density) at 100 units/s, spawned 10
#: units out along the aim; at most 30 alive; removed after more than 5 hits (steps in contact).
BULLET_MASS, BULLET_SPEED, BULLET_SPAWN, MAX_BULLETS, BULLET_MAX_HITS = 3.0, 100.0, 10.0, 30, 5
FIRE_INTERVAL = 0.2
#: T8's laser: 1000 units long; 15000 force units for one 1/40 s step = an impulse of 375.
LASER_RANGE, LASER_IMPULSE, LASER_SHOW_S = 1000.0, 15000.0 / 40.0, 0.15
#: The mouse buttons' actions: either fires (T8: "any mouse button fires the laser").
FIRE_BUTTONS = frozenset({"attract", "repel"})
#: Length (units) of the aim line drawn from the player toward the cursor (T8: 10).
AIM_LENGTH = 10.0


@dataclass(eq=False, kw_only=True)
class ShooterScene(Scene):
    """T7b / T8. ``player``: the player's body; ``bullets``: the live bullets' bodies with their
    ``hits``; ``shots``: the laser shots still shown, [start, end, age s]; ``removed``: bullets
    removed so far; ``fire_timer``: time since the last shot while the button is held."""

    family: str = "shooter"
    player: int = 0
    fire_timer: float = 0.0
    bullets: list[int] = field(default_factory=list)
    hits: dict[int, int] = field(default_factory=dict)
    shots: list[list[Any]] = field(default_factory=list)
    removed: int = 0

    @property
    def fires_bullets(self) -> bool:
        return "bullets" in self.traits

    def aim(self, cursor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(player centre, unit direction toward ``cursor``)."""
        start = self.world.position[self.player].copy()
        d = np.asarray(cursor, dtype=np.float64) - start
        length = float(np.hypot(*d))
        return start, (d / length if length > 1e-9 else np.array([0.0, 1.0]))

    def fire(self, cursor: np.ndarray) -> None:
        """Fire once toward ``cursor``: a bullet (bullets) or the laser (laser)."""
        world = self.world
        start, direction = self.aim(cursor)
        if self.fires_bullets:
            if len(self.bullets) >= MAX_BULLETS:
                self.remove_bullet(self.bullets[0])
            spot = start + direction * BULLET_SPAWN
            if world.query_point(spot):
                return  # the muzzle is inside something: no room for a bullet
            i = world.add_body(
                np.zeros((1, 2)), spot, velocity=direction * BULLET_SPEED, density=BULLET_MASS / 5.0
            )
            self.bullets.append(i)
            self.hits[i] = 0
            return
        end = start + direction * LASER_RANGE
        hit = world.raycast(start, end, ignore=(self.player,), radius=shot_radius(self.view))
        if hit is not None:
            end = np.asarray(hit.point, dtype=np.float64)
            if not world.static[hit.body]:
                world.apply_impulse(hit.body, direction * LASER_IMPULSE, end)
        self.shots.append([start, end, 0.0])

    def remove_bullet(self, i: int) -> None:
        """Remove bullet body ``i`` (the bodies after it move down one index)."""
        self.world.remove_body(i)
        self.bullets = [b - (b > i) for b in self.bullets if b != i]
        self.hits = {b - (b > i): n for b, n in self.hits.items() if b != i}
        self.removed += 1
        if self.player > i:
            self.player -= 1

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action in FIRE_BUTTONS:  # any mouse button fires, as in the original
            self.fire(frame.cursor)
            self.fire_timer = 0.0
            return True
        return action in MOVES

    def on_step(self, dt: float, frame: FrameInput) -> None:
        world = self.world
        player = self.player
        d = frame.direction()
        m = float(world.mass[player])
        push = np.array(
            [SHOOTER_PUSH[0] * d[0], SHOOTER_PUSH[1] * max(d[1], 0) + SHOOTER_PUSH[2] * min(d[1], 0)]
        )
        world.apply_force(player, m * (push * 10.0 - SHOOTER_DAMPING * world.velocity[player]))
        if FIRE_BUTTONS & frame.held:
            self.fire_timer += dt
            while self.fire_timer >= FIRE_INTERVAL:
                self.fire_timer -= FIRE_INTERVAL
                self.fire(frame.cursor)
        for shot in self.shots:
            shot[2] += dt
        self.shots = [s for s in self.shots if s[2] < LASER_SHOW_S]
        # Hits of the last step: a bullet in contact counts one hit per step (the original counted
        # resting contacts too); more than BULLET_MAX_HITS removes it.
        contacts = world.contacts
        if self.bullets and len(contacts):
            touched = set(np.asarray(contacts.body_a).tolist()) | set(np.asarray(contacts.body_b).tolist())
            for b in list(self.bullets):
                if b in touched:
                    self.hits[b] += 1
            for b in sorted((b for b, n in self.hits.items() if n > BULLET_MAX_HITS), reverse=True):
                self.remove_bullet(b)

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        start, direction = self.aim(frame.cursor)
        batch.add_lines(np.array([[start, start + direction * AIM_LENGTH]]), palette.WHITE)
        batch.add_text("player", start, palette.LABEL_TEXT)
        for s, e, age in self.shots:
            fade = max(0.0, 1.0 - age / LASER_SHOW_S)
            batch.add_lines(np.array([[s, e]]), palette.faded(palette.SHOT, fade))
            batch.add_points(np.array([e]), palette.faded(palette.SHOT, fade))
        self.body_colors = {b: palette.BULLET for b in self.bullets}
        if self.fires_bullets:
            self.status = [f"bullets alive {len(self.bullets)}, removed {self.removed} (after > 5 hits)"]


def build_shooter(
    name: str, seed: int, random_bodies: int, static_p: float, sides: tuple[int, int]
) -> ShooterScene:
    rng = np.random.default_rng(seed)
    world = arena.walled_world(
        gravity=(0.0, -SHOOTER_GRAVITY),
        solver="tutorial",
        friction=rigid.RIGID_FRICTION,
        restitution=rigid.RIGID_RESTITUTION,
        static_friction=rigid.RIGID_STATIC_FRICTION,
    )
    w, h = SHOOTER_SIZE
    player = world.add_body(Polygon.box(w, h), (50.0, 10.0), density=SHOOTER_DENSITY)
    world.set_fixed_rotation(player)  # T8: the player never turns (inertia "infinite")
    for _ in range(random_bodies):
        n = int(rng.integers(sides[0], sides[1] + 1))
        height = float(rng.uniform(2.0, 6.0))
        shape = Polygon.blob(n, height * float(rng.uniform(0.6, 1.4)), height)
        arena.spawn(
            world, rng, shape, player, static=bool(rng.random() < static_p), angle=float(rng.uniform(1, 4))
        )
    bullets = name == "bullets"
    verb = "fires bullets" if bullets else "fires the laser"
    help_lines = [f"{name} ({'T7b' if bullets else 'T8'}): arrows move the player; left mouse {verb}"]
    return ShooterScene(
        **arena_fields(name, world, seed, help_lines),
        mouse_forces=False,
        traits=frozenset({"random", "player", "bullets" if bullets else "laser"}),
        player=player,
    )


def build_bullets(seed: int = 0, bodies: int | None = None) -> ShooterScene:
    return build_shooter("bullets", seed, 5, rigid.STATIC_PROBABILITY, (2, 7))


def build_laser(seed: int = 0, bodies: int | None = None) -> ShooterScene:
    return build_shooter("laser", seed, 15, 0.4, (1, 6))


BUILDERS = {"bullets": build_bullets, "laser": build_laser}
