"""The program's actions on the world, without OpenGL: mouse forces, the turret's bullets, material
keys, regeneration, scene and solver switching, pausing, the time scale and the fixed-step
accumulator.

:class:`Simulation` is the world-side half of the program; ``demo.app.App`` adds the window,
the camera and the drawing on top of it. Tests and the soak drive a ``Simulation`` directly,
in-process, because nothing here imports OpenGL (whose platform choice must stay
demo.context's).
"""

from __future__ import annotations

import sys
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from collision.world import SOLVER_NAMES
from demo import controls, scenes
from demo.draw.overlays import muzzle
from demo.resting import RestingContacts
from demo.scenes import FrameInput, Scene
from demo.scenes.base import shot_radius

#: The original's attractor (T7 GameCode.cpp): 500 force units, none within 10 units of the
#: cursor when attracting, full strength from 25 on; repulsion is the mirror image.
ATTRACT_FORCE, ATTRACT_DEAD_ZONE, ATTRACT_FULL_AT = 500.0, 10.0, 25.0
#: The turret's bullets: the original laser's 15000 force held for one 1/40 s step is an
#: impulse of 375 N s, delivered where a bullet hits; at most one shot per 0.2 s. A bullet flies
#: at BULLET_SPEED views per second (so it is seen in flight in any scene) for at most
#: BULLET_LIFE_S; a hit's flash shows for FLASH_S.
BULLET_IMPULSE, FIRE_INTERVAL = 15000.0 / 40.0, 0.2
BULLET_SPEED, BULLET_LIFE_S = 1.5, 2.0
#: At most this many physics steps per drawn frame; longer frames drop the backlog (no spiral).
MAX_STEPS_PER_FRAME = 5
#: Material keys: (step, maximum) of the original's 7/4, 8/5, 9/6.
FRICTION_STEP, FRICTION_MAX = 0.05, 1.0
RESTITUTION_STEP, RESTITUTION_MAX = 0.05, 1.0
STATIC_FRICTION_STEP, STATIC_FRICTION_MAX = 0.01, 1.5
#: Solver order for `m`.
SOLVER_CYCLE = ("tutorial", "iterative", "arcade")
#: The height (units) of the original's view, which its mouse constants were made for.
ORIGINAL_VIEW_HEIGHT = 100.0
#: `[` and `]` halve and double the speed of time, within these bounds.
SPEED_MIN, SPEED_MAX = 0.125, 4.0
#: How long (s) a hit's flash stays.
FLASH_S = 0.25

MATERIAL_KEYS = {
    "friction_up": ("friction", FRICTION_STEP, FRICTION_MAX),
    "friction_down": ("friction", -FRICTION_STEP, FRICTION_MAX),
    "restitution_up": ("restitution", RESTITUTION_STEP, RESTITUTION_MAX),
    "restitution_down": ("restitution", -RESTITUTION_STEP, RESTITUTION_MAX),
    "static_friction_up": ("static_friction", STATIC_FRICTION_STEP, STATIC_FRICTION_MAX),
    "static_friction_down": ("static_friction", -STATIC_FRICTION_STEP, STATIC_FRICTION_MAX),
}


def attraction_forces(
    points: np.ndarray, cursor: np.ndarray, attract: bool, scale: float = 1.0
) -> np.ndarray:
    """The original's attract/repulse force on bodies at ``points (n, 2)`` from ``cursor (2,)``: (n, 2).

    Attract: toward the cursor, 0 within ATTRACT_DEAD_ZONE, ramping to ATTRACT_FORCE at
    ATTRACT_FULL_AT. Repulse: away, ATTRACT_FORCE within the dead zone, fading to 0 at FULL_AT.
    ``scale``: the scene's size relative to the original's 100-unit arena (:func:`mouse_scale`):
    the distances scale with it and the force with its square (the bodies' mass grows with
    their area), so the mouse acts on a 10 m scene as the original's did on its arena.
    """
    offset = cursor[None, :] - points
    dist = np.hypot(offset[:, 0], offset[:, 1])
    safe = np.where(dist > 0.0, dist, 1.0)
    unit = offset / safe[:, None]
    unit[dist == 0.0] = 0.0
    dead, full = ATTRACT_DEAD_ZONE * scale, ATTRACT_FULL_AT * scale
    ramp = np.clip((dist - dead) / (full - dead), 0.0, 1.0)
    strength = ramp if attract else -(1.0 - ramp)
    return unit * (strength * ATTRACT_FORCE * scale * scale)[:, None]


def mouse_scale(view: tuple[float, float, float, float]) -> float:
    """A scene's size relative to the original arena: its view height over ORIGINAL_VIEW_HEIGHT."""
    return float(max(view[3] - view[1], 1e-9) / ORIGINAL_VIEW_HEIGHT)


@dataclass
class Projectile:
    """A turret bullet in flight: ``position (2,)``, ``velocity (2,)`` (world units), ``age`` (s)."""

    position: np.ndarray
    velocity: np.ndarray
    age: float = 0.0


@dataclass
class Flash:
    """Where a bullet hit (``point (2,)``), how long ago (``age``, s) and for how long it shows."""

    point: np.ndarray
    age: float = 0.0
    duration: float = FLASH_S


class Simulation:
    """A scene's world with the program's actions: what a key or button does to the physics.

    ``scene``: shown at once if given (else call :meth:`use_scene` or :meth:`load_scene`);
    ``solver``: the first scene's solver instead of its own; ``out``: where one-line messages
    go. The cursor is ``aim`` (world units); a program with a window overrides
    :meth:`cursor_world`. Each scene runs its own solver; `m` changes it for that scene only
    (remembered by scene name for the rest of the run).
    """

    def __init__(
        self, scene: Scene | None = None, solver: str | None = None, out: TextIO = sys.stdout
    ) -> None:
        self.out = out
        self.paused = False
        self.show = {
            "contacts": False,
            "normals": False,
            "bounds": False,
            "velocities": False,
            "push": False,
            "toi": False,
            "impulses": False,
        }
        self.gravity_on = True
        self.friction_on = True
        self.static_friction_on = True
        #: The solver picked for each scene name (`m`, or the command line's for the first scene).
        self.solver_choice: dict[str, str] = {}
        self._first_solver = solver
        #: The user's time multiplier (`[` and `]`), on top of the scene's own time scale.
        self.speed = 1.0
        self.message = ""
        self.held: set[str] = set()
        self.shift = False
        self.aim = np.array([50.0, 50.0])
        self._accumulator = 0.0
        self._fire_timer = 0.0
        self._single_step = False
        self.projectiles: list[Projectile] = []
        self.flashes: list[Flash] = []
        self.impulse_scale: float | None = None
        self.step_ms: deque[float] = deque(maxlen=120)
        self.resting = RestingContacts()
        if scene is not None:
            self.use_scene(scene)

    # -- state ----------------------------------------------------------------------------------

    @property
    def scene(self) -> Scene:
        return self._scene

    @property
    def world(self) -> Any:
        return self._scene.world

    @property
    def contacts(self) -> Any:
        """The world's contacts with those of its sleeping bodies (demo.resting): what the
        overlays draw and the heads-up line counts."""
        return self.resting.of(self.world)

    def cursor_world(self) -> np.ndarray:
        """The cursor in world units (a copy)."""
        return np.array(self.aim, dtype=np.float64)

    def frame_input(self) -> FrameInput:
        """The input the scene's hooks see now."""
        return FrameInput(frozenset(self.held), self.cursor_world(), self.shift)

    def load_scene(self, name: str, seed: int = 0, bodies: int | None = None) -> None:
        """Build scene ``name`` and show it; keeps the toggles and the scene's chosen solver."""
        self.use_scene(scenes.build_scene(name, seed, bodies))

    def use_scene(self, scene: Scene) -> None:
        """Show an already built scene (tests and scripts build their own)."""
        self._scene = scene
        world = scene.world
        if self._first_solver is not None:
            self.solver_choice.setdefault(scene.name, self._first_solver)
            self._first_solver = None
        chosen = self.solver_choice.get(scene.name)
        if chosen is not None and chosen != world.solver:
            world.solver = chosen
        self._base_gravity = world.gravity
        if not self.gravity_on:
            world.gravity = (0.0, 0.0)
        self.friction = float(world.friction)
        self.restitution = float(world.restitution)
        self.static_friction = float(world.static_friction)
        if not (self.friction_on and self.static_friction_on):
            self.apply_material()
        self._accumulator = 0.0
        self.projectiles, self.flashes = [], []
        self.impulse_scale = None
        self.step_ms.clear()
        # What each input does here: an action no row of this scene binds does nothing.
        self.features = controls.scene_features(scene, self._base_gravity)
        self.handled = controls.handled_actions(scene, self.features)

    def handles(self, action: str) -> bool:
        """Whether ``action`` does something in the current scene (a row of its help binds it)."""
        return action in self.handled

    def apply_material(self) -> None:
        """Push the material values (with the f / s switches) into the world and every body."""
        world = self.world
        friction = self.friction if self.friction_on else 0.0
        static_friction = self.static_friction if self.static_friction_on else 0.0
        world.friction, world.restitution, world.static_friction = friction, self.restitution, static_friction
        if world.body_count:
            world.set_material(
                None, friction=friction, restitution=self.restitution, static_friction=static_friction
            )

    @property
    def time_scale(self) -> float:
        """Simulated seconds per real second: the scene's own pace times the user's speed."""
        return float(self._scene.time_scale) * self.speed

    # -- actions --------------------------------------------------------------------------------

    def hold(self, action: str, pressed: bool, shift: bool = False) -> None:
        """A held input (controls.HOLD_ACTIONS) pressed or released; the scene may take it."""
        if not pressed:
            self.held.discard(action)
            return
        if action in self.held or not self.handles(action):
            return
        self.shift = shift
        # A scene may use a held input itself (the mouse fires, drags, aims).
        self._scene.on_action(action, self.frame_input())
        self.held.add(action)
        if action == "fire":
            self.fire()
            self._fire_timer = 0.0

    def do(self, action: str) -> bool:
        """Carry out a press action from the controls table; False if it is not a world action."""
        scene = self._scene
        if not self.handles(action):
            return True  # not this scene's: nothing happens (the help does not list it here)
        if scene.on_action(action, self.frame_input()):
            return True
        if action in ("pause", "help"):
            if action == "pause":
                self.paused = not self.paused
            self.show_help()
        elif action == "single_step":
            if self.paused:
                self._single_step = True
        elif action == "gravity":
            self.gravity_on = not self.gravity_on
            self.world.gravity = self._base_gravity if self.gravity_on else (0.0, 0.0)
        elif action == "friction_toggle":
            self.friction_on = not self.friction_on
            self.apply_material()
        elif action == "static_friction_toggle":
            self.static_friction_on = not self.static_friction_on
            self.apply_material()
        elif action in MATERIAL_KEYS:
            attr, step, top = MATERIAL_KEYS[action]
            setattr(self, attr, round(float(np.clip(getattr(self, attr) + step, 0.0, top)), 4))
            self.apply_material()
        elif action in ("regenerate", "restart", "reload"):
            self._rebuild(action)
        elif action in ("next_scene", "previous_scene"):
            names = scenes.scene_names()
            here = self.tab_position()
            index = names.index(here) if here in names else 0
            index = (index + (1 if action == "next_scene" else -1)) % len(names)
            self.load_scene(names[index], scene.seed)
        elif action == "cycle_solver":
            self.cycle_solver()
        elif action in ("slower", "faster"):
            factor = 0.5 if action == "slower" else 2.0
            self.speed = float(np.clip(self.speed * factor, SPEED_MIN, SPEED_MAX))
        elif action.startswith("show_"):
            key = action[len("show_") :]
            self.show[key] = not self.show.get(key, False)
        else:
            return False
        return True

    def tab_position(self) -> str:
        """The scene Tab and Shift+Tab move on from (the one shown)."""
        return self._scene.name

    def show_help(self) -> None:
        """`p` and `h` bring the help back (a program that draws it resets its fade here)."""

    def _rebuild(self, action: str) -> None:
        """`Space` (next seed, current body count), `r` and reload (same seed and count)."""
        scene = self._scene
        seed = scene.seed + 1 if action == "regenerate" else scene.seed
        bodies = self.world.body_count if action == "regenerate" else scene.bodies
        try:
            self.load_scene(scene.name, seed, bodies)
        except ValueError as exc:  # a scene file that no longer loads: keep the scene we have
            self.message = str(exc)
            print(exc, file=self.out, flush=True)
        else:
            self.message = ""

    def next_solver(self, current: str) -> str:
        """The solver after ``current`` in SOLVER_CYCLE (those the engine has)."""
        order = [s for s in SOLVER_CYCLE if s in SOLVER_NAMES]
        start = order.index(current) if current in order else -1
        for offset in range(1, len(order) + 1):
            candidate = order[(start + offset) % len(order)]
            try:
                self.world.solver_settings(candidate)  # fails now, not mid-frame, if it is not built
            except NotImplementedError:
                continue
            return candidate
        return current

    def set_solver(self, name: str) -> None:
        """Run the current scene with solver ``name`` (remembered for it; other scenes keep theirs)."""
        self.world.solver = name
        self.solver_choice[self._scene.name] = name

    def cycle_solver(self) -> None:
        """`m`: the current scene's next solver."""
        self.set_solver(self.next_solver(self.world.solver))

    def fire(self) -> None:
        """Fire a bullet from the scene's turret toward the cursor (nothing without a turret)."""
        scene = self._scene
        if scene.turret is None:
            return
        cursor = self.cursor_world()
        start = muzzle(scene, cursor)
        aim = cursor - np.asarray(scene.turret, dtype=np.float64)
        length = float(np.hypot(*aim))
        direction = aim / length if length > 1e-9 else np.array([0.0, 1.0])
        speed = BULLET_SPEED * (scene.view[3] - scene.view[1])
        self.projectiles.append(Projectile(start, direction * speed))

    def fly_bullets(self, dt: float) -> None:
        """Move the turret's bullets ``dt`` seconds along their paths; a bullet that meets a body
        on the way stops there and pushes it (BULLET_IMPULSE along its flight)."""
        world = self.world
        radius = shot_radius(self._scene.view)
        flying = []
        for bullet in self.projectiles:
            end = bullet.position + bullet.velocity * dt
            hit = world.raycast(bullet.position, end, radius=radius) if world.body_count else None
            if hit is not None:
                point = np.asarray(hit.point, dtype=np.float64)
                if not world.static[hit.body]:
                    speed = float(np.hypot(*bullet.velocity))
                    world.apply_impulse(hit.body, bullet.velocity / speed * BULLET_IMPULSE, point)
                self.flashes.append(Flash(point))
                continue
            bullet.position, bullet.age = end, bullet.age + dt
            if bullet.age < BULLET_LIFE_S:
                flying.append(bullet)
        self.projectiles = flying

    def apply_mouse_forces(self) -> None:
        """The held left (attract) or right (repel) button's force on every moving body."""
        if not self._scene.mouse_forces:
            return
        attract = "attract" in self.held
        if not attract and "repel" not in self.held:
            return
        world = self.world
        # Each body once: a compound by its root row.
        moving = ~np.asarray(world.static, dtype=bool) & (world.roots == np.arange(world.body_count))
        if not moving.any():
            return
        scale = mouse_scale(self._scene.view)
        forces = attraction_forces(world.position[moving], self.cursor_world(), attract, scale)
        world.apply_forces(moving, forces)

    def physics_step(self) -> None:
        """One fixed step of the scene's world: the scene's hook, the mouse forces, the bullets."""
        scene = self._scene
        self.apply_mouse_forces()
        scene.on_step(scene.dt, self.frame_input())
        if self.projectiles:
            self.fly_bullets(scene.dt)
        t0 = time.perf_counter()
        self.world.step(scene.dt)
        self.step_ms.append((time.perf_counter() - t0) * 1000.0)
        self.resting.after_step(self.world)

    def advance(self, frame_dt: float) -> int:
        """Let ``frame_dt`` real seconds pass: repeated fire, whole fixed steps from the
        accumulator (``frame_dt`` times the time scale; at most MAX_STEPS_PER_FRAME), or the one
        step `o` asked for while paused; flashes age. Returns the number of physics steps run."""
        dt = self._scene.dt
        steps = 0
        if not self.paused:
            if "fire" in self.held:
                self._fire_timer += frame_dt
                while self._fire_timer >= FIRE_INTERVAL:
                    self._fire_timer -= FIRE_INTERVAL
                    self.fire()
            self._accumulator += frame_dt * self.time_scale
            steps = int(self._accumulator / dt + 1e-9)
            if steps > MAX_STEPS_PER_FRAME:
                steps = MAX_STEPS_PER_FRAME
                self._accumulator = dt  # drop the backlog rather than fall further behind
            self._accumulator = max(self._accumulator - steps * dt, 0.0)
            for _ in range(steps):
                self.physics_step()
        elif self._single_step:
            self.physics_step()
            steps = 1
        self._single_step = False
        for flash in self.flashes:
            flash.age += frame_dt
        self.flashes = [f for f in self.flashes if f.age < f.duration]
        return steps
