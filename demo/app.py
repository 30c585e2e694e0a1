"""The program's loop: recorded input -> actions -> fixed steps of the world -> one drawn frame.

Window-system callbacks (and tests) only *record* input through ``key``, ``mouse_button``,
``cursor`` and ``scroll``; :meth:`App.frame` turns the recorded input into actions, runs whole
fixed physics steps from an accumulator (capped per frame), then draws once.

Import after demo.context has made a context current (this module imports demo.render).
"""

from __future__ import annotations

import math
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from collision.world import SOLVER_NAMES
from demo import controls, scenes
from demo.camera import Camera
from demo.context import Context
from demo.render import BodyMesh, LineBatch, Renderer, argb, recolor_fills
from demo.text import BASE_FONT_PX, MIN_FONT_PX

#: The original's attractor (T7 GameCode.cpp): 500 force units, none within 10 units of the
#: cursor when attracting, full strength from 25 on; repulsion is the mirror image.
ATTRACT_FORCE, ATTRACT_DEAD_ZONE, ATTRACT_FULL_AT = 500.0, 10.0, 25.0
#: Bullets: the original laser's 15000 force held for one 1/40 s step is an impulse of 375 N s,
#: at most one shot per 0.2 s, along a ray 1000 units long. A shot's line fades over 0.5 s.
BULLET_IMPULSE, FIRE_INTERVAL, BULLET_RANGE, SHOT_FADE_S = 15000.0 / 40.0, 0.2, 1000.0, 0.5
#: Overlay fade as in the original: alpha = 255 - timer, timer += 8 per 1/60 s frame.
OVERLAY_FADE_PER_FRAME, OVERLAY_FRAME_S = 8.0, 1.0 / 60.0
#: At most this many physics steps per drawn frame; longer frames drop the backlog (no spiral).
MAX_STEPS_PER_FRAME = 5
#: Longest frame time (s) taken into account (after a pause in the debugger, a drag, ...).
MAX_FRAME_DT = 0.25
ZOOM_STEP = 1.15
#: A font of size s pixels advances about 1.23 s + 1 pixels per line (Pillow's default font).
FONT_LINE_FACTOR = 1.23
#: Material keys: (step, maximum) of the original's 7/4, 8/5, 9/6.
FRICTION_STEP, FRICTION_MAX = 0.05, 1.0
RESTITUTION_STEP, RESTITUTION_MAX = 0.05, 1.0
STATIC_FRICTION_STEP, STATIC_FRICTION_MAX = 0.01, 1.5
#: Solver order for `m`.
SOLVER_CYCLE = ("tutorial", "iterative", "arcade")
#: Length (s) of velocity arrows: an arrow shows where the body would be after this time.
VELOCITY_ARROW_S = 0.25
NORMAL_ARROW = 2.0

WHITE = (1.0, 1.0, 1.0, 1.0)
SHOT_COLOR = argb(0xFFFF0000)
CONTACT_COLOR = (1.0, 0.3, 0.3, 1.0)
#: Contact points by state (world.contacts.state): new, persisting, speculative.
CONTACT_STATE_COLORS = np.array(
    [(1.0, 0.3, 0.3, 1.0), (1.0, 0.65, 0.1, 1.0), (0.4, 0.6, 1.0, 1.0)], dtype=np.float32
)
SEPARATION_COLOR = (1.0, 0.2, 1.0, 1.0)
PUSH_COLOR = (1.0, 1.0, 1.0, 1.0)
GHOST_COLOR = (1.0, 1.0, 1.0, 0.25)
NORMAL_IMPULSE_COLOR = (1.0, 0.5, 0.2, 1.0)
FRICTION_IMPULSE_COLOR = (0.3, 1.0, 0.5, 1.0)
#: Impulse arrows: world units per N s of impulse, per unit of the scene's impulse scale.
IMPULSE_ARROW_PER_NS = 0.2
#: Separation is printed next to each contact normal only when there are at most this many.
MAX_SEPARATION_LABELS = 12
STATUS_COLOR = (0.7, 1.0, 0.7, 1.0)
NORMAL_COLOR = (1.0, 1.0, 0.4, 1.0)
BOUNDS_COLOR = (0.7, 0.7, 0.7, 0.6)
VELOCITY_COLOR = (0.4, 0.9, 1.0, 1.0)
TURRET_COLOR = (1.0, 1.0, 1.0, 1.0)
HUD_COLOR = (1.0, 1.0, 0.6, 1.0)


def attraction_forces(points: np.ndarray, cursor: np.ndarray, attract: bool) -> np.ndarray:
    """The original's attract/repulse force on bodies at ``points (n, 2)`` from ``cursor (2,)``: (n, 2).

    Attract: toward the cursor, 0 within ATTRACT_DEAD_ZONE, ramping to ATTRACT_FORCE at
    ATTRACT_FULL_AT. Repulse: away, ATTRACT_FORCE within the dead zone, fading to 0 at FULL_AT.
    """
    offset = cursor[None, :] - points
    dist = np.hypot(offset[:, 0], offset[:, 1])
    safe = np.where(dist > 0.0, dist, 1.0)
    unit = offset / safe[:, None]
    unit[dist == 0.0] = 0.0
    ramp = np.clip((dist - ATTRACT_DEAD_ZONE) / (ATTRACT_FULL_AT - ATTRACT_DEAD_ZONE), 0.0, 1.0)
    strength = ramp if attract else -(1.0 - ramp)
    return unit * (strength * ATTRACT_FORCE)[:, None]


class App:
    """The interactive program on a context (window or offscreen).

    ``scene``, ``seed``, ``bodies``: what to build first; ``solver``: override the scene's.
    ``screenshot_dir``: where F2 saves PNGs. ``out``: where one-line messages go.
    """

    def __init__(
        self,
        ctx: Context,
        scene: str = "rigid",
        seed: int = 0,
        bodies: int | None = None,
        solver: str | None = None,
        screenshot_dir: Path | None = None,
        out: TextIO = sys.stdout,
    ) -> None:
        self.ctx = ctx
        self.out = out
        self.screenshot_dir = Path.cwd() if screenshot_dir is None else Path(screenshot_dir)
        width, height = ctx.framebuffer_size()
        self.renderer = Renderer(text_scale=self._text_scale())
        self.mesh = BodyMesh()
        self._font_for: tuple[int, int, int] | None = None  # framebuffer size the font was fitted to
        self._help_width: tuple[Any, tuple[float, float]] | None = None
        self.camera = Camera((0.0, 0.0, 100.0, 100.0), width, height)
        self.running = True
        self.paused = False
        self.overlay_timer = 0.0
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
        self.solver_override = solver
        self.message = ""
        self._events: list[tuple[Any, ...]] = []
        self.held: set[str] = set()
        self.cursor_window = np.array([width * 0.5, height * 0.5])
        self._pan_from: np.ndarray | None = None
        self._accumulator = 0.0
        #: --record: one entry per frame, {"dt": s, "events": [...]} (what the frame consumed);
        #: --replay: the recorded frames still to play (they replace the live dt and input).
        self.recording: list[dict[str, Any]] | None = None
        self.replay: deque[dict[str, Any]] | None = None
        self._replay_cursor: np.ndarray | None = None
        self._fire_timer = 0.0
        self._single_step = False
        self._screenshot_requested = False
        self.shots: list[list[Any]] = []  # [start (2,), end (2,), age s]
        self.frame_count = 0
        self.screenshots: list[Path] = []
        self.step_ms: deque[float] = deque(maxlen=120)
        self._fps = 0.0
        self._last_frame_clock: float | None = None
        self.profile: dict[str, list[float]] = {
            "frame_ms": [],
            "physics_ms": [],
            "draw_ms": [],
            "draw_build_ms": [],
            "draw_gl_ms": [],
        }
        self.load_scene(scene, seed, bodies)

    # -- input recording (window callbacks and tests call these) --------------------------------

    def key(self, name: str, pressed: bool = True, shift: bool = False) -> None:
        """Record a key event; ``name`` as in demo.controls ("P", "F2", "TAB", ...)."""
        self._events.append(("input", name, bool(pressed), bool(shift)))

    def mouse_button(self, name: str, pressed: bool = True, shift: bool = False) -> None:
        """Record a mouse button: "MOUSE_LEFT", "MOUSE_RIGHT" or "MOUSE_MIDDLE" (``shift``: Shift held)."""
        self._events.append(("input", name, bool(pressed), bool(shift)))

    def cursor(self, x: float, y: float) -> None:
        """Record the cursor position in window coordinates (x right, y down)."""
        self._events.append(("cursor", float(x), float(y)))

    def scroll(self, dy: float) -> None:
        """Record a mouse-wheel movement (positive: away from the user, zoom in)."""
        self._events.append(("scroll", float(dy)))

    def press(self, name: str, shift: bool = False) -> None:
        """Record a press and release of ``name`` (a convenience for tests and scripts)."""
        self.key(name, True, shift)
        self.key(name, False, shift)

    # -- state ----------------------------------------------------------------------------------

    @property
    def scene(self) -> scenes.Scene:
        return self._scene

    @property
    def world(self) -> Any:
        return self._scene.world

    def load_scene(self, name: str, seed: int = 0, bodies: int | None = None) -> None:
        """Build scene ``name`` and show it; keeps the solver override and the toggles."""
        self.use_scene(scenes.build_scene(name, seed, bodies))

    def use_scene(self, scene: scenes.Scene) -> None:
        """Show an already built scene (tests and scripts build their own)."""
        self._scene = scene
        scene.held = self.held
        scene.show = self.show
        world = scene.world
        if self.solver_override is not None:
            world.solver = self.solver_override
        self._base_gravity = world.gravity
        if not self.gravity_on:
            world.gravity = (0.0, 0.0)
        self.friction = float(world.friction)
        self.restitution = float(world.restitution)
        self.static_friction = float(world.static_friction)
        if not (self.friction_on and self.static_friction_on):
            self.apply_material()
        self.camera.set_view(self._scene.view)
        self._accumulator = 0.0
        self.shots = []

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

    def cursor_pixels(self) -> np.ndarray:
        """The cursor in framebuffer pixels (window coordinates scaled for HiDPI)."""
        fb_w, fb_h = self.ctx.framebuffer_size()
        win_w, win_h = self.ctx.window_size()
        return self.cursor_window * np.array([fb_w / max(win_w, 1), fb_h / max(win_h, 1)])

    def cursor_world(self) -> np.ndarray:
        if self._replay_cursor is not None:
            return self._replay_cursor.copy()
        px, py = self.cursor_pixels()
        return self.camera.screen_to_world(px, py)

    def _font_px(self, width: int, height: int) -> int:
        """Font size: the original's 13 px (times the HiDPI scale), smaller if the help would not fit."""
        lines = len(_HELP_ROWS) + 3  # heads-up line, a gap, the help, the bottom margin
        fit_height = (height / lines - 1) / FONT_LINE_FACTOR
        atlas = self.renderer.atlas
        help_width = max(atlas.text_width(label) for label, _ in _HELP_ROWS) + atlas.cell[0]
        help_width += max(atlas.text_width(text) for _, text in _HELP_ROWS)
        # Text width grows in proportion to the font size: the help takes at most half the width.
        fit_width = atlas.pixel_size * (0.5 * width - 8) / help_width
        fit = int(min(fit_height, fit_width))
        return int(np.clip(fit, MIN_FONT_PX, BASE_FONT_PX * self._text_scale()))

    def _text_scale(self) -> int:
        fb_w, _ = self.ctx.framebuffer_size()
        win_w, _ = self.ctx.window_size()
        return max(1, round(fb_w / max(win_w, 1)))

    # -- actions ----------------------------------------------------------------------------------

    def _process_input(self) -> None:
        events, self._events = self._events, []
        self._scene.cursor = self.cursor_world()
        for event in events:
            if event[0] == "cursor":
                old = self.cursor_pixels()
                self.cursor_window = np.array([event[1], event[2]])
                self._scene.cursor = self.cursor_world()
                if "pan" in self.held:
                    new = self.cursor_pixels()
                    self.camera.pan_pixels(*(new - old))
            elif event[0] == "scroll":
                self.do("zoom_in" if event[1] > 0 else "zoom_out")
            else:
                _, name, pressed, shift = event
                action = controls.action_for(name, shift)
                if action is None:
                    continue
                if action in controls.HOLD_ACTIONS:
                    if pressed and action not in self.held:
                        scene = self._scene
                        scene.shift = shift
                        # A scene may use a held input itself (the mouse fires, drags, aims).
                        if scene.on_action is not None and scene.on_action(scene, action):
                            self.held.add(action)
                            continue
                        self.held.add(action)
                        if action == "fire":
                            self.fire()
                            self._fire_timer = 0.0
                    elif not pressed:
                        self.held.discard(action)
                elif pressed:
                    self.do(action)

    def do(self, action: str) -> None:
        """Carry out a press action from the controls table."""
        scene = self._scene
        if scene.on_action is not None and scene.on_action(scene, action):
            return
        if action == "quit":
            self.running = False
            request = getattr(self.ctx, "request_close", None)
            if request is not None:
                request()
        elif action == "pause":
            self.paused = not self.paused
            self.overlay_timer = 0.0
        elif action == "help":
            self.overlay_timer = 0.0
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
        elif action in _MATERIAL_KEYS:
            attr, step, top = _MATERIAL_KEYS[action]
            setattr(self, attr, round(float(np.clip(getattr(self, attr) + step, 0.0, top)), 4))
            self.apply_material()
        elif action in ("regenerate", "restart", "reload"):
            seed = scene.seed + 1 if action == "regenerate" else scene.seed
            bodies = self.world.body_count if action == "regenerate" else scene.bodies
            try:
                self.load_scene(scene.name, seed, bodies)
            except ValueError as exc:  # a scene file that no longer loads: keep the scene we have
                self.message = str(exc)
                print(exc, file=self.out, flush=True)
            else:
                self.message = ""
        elif action in ("next_scene", "previous_scene"):
            names = scenes.scene_names()
            index = names.index(scene.name) if scene.name in names else 0
            index = (index + (1 if action == "next_scene" else -1)) % len(names)
            self.load_scene(names[index], scene.seed)
        elif action == "cycle_solver":
            self.cycle_solver()
        elif action.startswith("show_"):
            key = action[len("show_") :]
            self.show[key] = not self.show.get(key, False)
        elif action in ("zoom_in", "zoom_out"):
            px, py = self.cursor_pixels()
            self.camera.zoom_about(px, py, ZOOM_STEP if action == "zoom_in" else 1.0 / ZOOM_STEP)
        elif action == "reset_view":
            self.camera.reset()
        elif action == "screenshot":
            self._screenshot_requested = True

    def cycle_solver(self) -> None:
        """Next solver in SOLVER_CYCLE that the engine has (a missing one is skipped)."""
        world = self.world
        current = world.solver
        order = [s for s in SOLVER_CYCLE if s in SOLVER_NAMES]
        start = order.index(current) if current in order else -1
        for offset in range(1, len(order) + 1):
            candidate = order[(start + offset) % len(order)]
            world.solver = candidate
            try:
                world._solver_object()  # fails now, not mid-frame, if it is not built yet
            except NotImplementedError:
                continue
            self.solver_override = candidate
            return
        world.solver = current

    def fire(self) -> None:
        """Fire a bullet from the scene's turret toward the cursor; the nearest body hit gets an impulse."""
        world = self.world
        start = np.asarray(self._scene.turret, dtype=np.float64)
        aim = self.cursor_world() - start
        length = float(np.hypot(*aim))
        direction = aim / length if length > 1e-9 else np.array([0.0, 1.0])
        end = start + direction * BULLET_RANGE
        hit = world.raycast(start, end)
        if hit is not None:
            end = np.asarray(hit.point, dtype=np.float64)
            if not world.static[hit.body]:
                world.apply_impulse(hit.body, direction * BULLET_IMPULSE, end)
        self.shots.append([start, end, 0.0])

    def _apply_mouse_forces(self) -> None:
        if not self._scene.mouse_forces:
            return
        attract = "attract" in self.held
        if not attract and "repel" not in self.held:
            return
        world = self.world
        moving = ~np.asarray(world.static, dtype=bool)
        if not moving.any():
            return
        forces = attraction_forces(world.position[moving], self.cursor_world(), attract)
        # The world's force accumulator, vectorised (apply_force per body would be a Python loop).
        world._force[moving] += forces
        pushed = np.flatnonzero(moving)[np.any(forces != 0.0, axis=1)]
        world._sleeping[pushed] = False

    def physics_step(self) -> None:
        """One fixed step of the scene's world, with the mouse forces."""
        scene = self._scene
        self._apply_mouse_forces()
        if scene.on_step is not None:
            scene.on_step(scene, scene.dt)
        t0 = time.perf_counter()
        self.world.step(scene.dt)
        self.step_ms.append((time.perf_counter() - t0) * 1000.0)

    # -- the frame --------------------------------------------------------------------------------

    def frame(self, frame_dt: float | None = None) -> None:
        """Process input, step the world for ``frame_dt`` seconds (real time if None), draw once."""
        clock = time.perf_counter()
        real = clock - self._last_frame_clock if self._last_frame_clock is not None else 0.0
        self._last_frame_clock = clock
        if real > 0.0:
            self._fps = 1.0 / real if self._fps == 0.0 else 0.9 * self._fps + 0.1 / real
        if frame_dt is None:
            frame_dt = real if real > 0.0 else OVERLAY_FRAME_S
        frame_dt = self._recorded_input(min(max(float(frame_dt), 0.0), MAX_FRAME_DT))

        self._process_input()
        if self.recording is not None:
            # The cursor in world units is what the physics sees (window size, zoom, HiDPI aside).
            self.recording[-1]["cursor"] = self.cursor_world().tolist()
        t_physics = time.perf_counter()
        dt = self._scene.dt
        if not self.paused:
            if "fire" in self.held:
                self._fire_timer += frame_dt
                while self._fire_timer >= FIRE_INTERVAL:
                    self._fire_timer -= FIRE_INTERVAL
                    self.fire()
            self._accumulator += frame_dt
            steps = int(self._accumulator / dt + 1e-9)
            if steps > MAX_STEPS_PER_FRAME:
                steps = MAX_STEPS_PER_FRAME
                self._accumulator = dt  # drop the backlog rather than fall further behind
            self._accumulator = max(self._accumulator - steps * dt, 0.0)
            for _ in range(steps):
                self.physics_step()
        elif self._single_step:
            self.physics_step()
        self._single_step = False
        physics_ms = (time.perf_counter() - t_physics) * 1000.0

        for shot in self.shots:
            shot[2] += frame_dt
        self.shots = [s for s in self.shots if s[2] < SHOT_FADE_S]

        t_draw = time.perf_counter()
        self.draw()
        draw_ms = (time.perf_counter() - t_draw) * 1000.0
        if self._screenshot_requested:
            self._screenshot_requested = False
            self.save_screenshot()
        if self.paused:
            self.overlay_timer = 0.0
        else:
            self.overlay_timer += OVERLAY_FADE_PER_FRAME * frame_dt / OVERLAY_FRAME_S
        self.frame_count += 1
        self.profile["physics_ms"].append(physics_ms)
        self.profile["draw_ms"].append(draw_ms)
        self.profile["frame_ms"].append((time.perf_counter() - clock) * 1000.0)

    def _recorded_input(self, frame_dt: float) -> float:
        """Replay: this frame's recorded dt, input and world cursor replace the live ones.
        Record: keep them (the cursor is added after the input is processed).

        The physics depends only on these and the scene and seed, so a replay runs the same
        fixed steps with the same forces, shots and actions, whatever the window size.
        """
        if self.replay:
            frame = self.replay.popleft()
            self._events = [tuple(event) for event in frame["events"]]
            frame_dt = float(frame["dt"])
            self._replay_cursor = np.array(frame["cursor"], dtype=np.float64)
        elif self.replay is not None:
            self._events = []  # past the end of the recording: no more input
        if self.recording is not None:
            self.recording.append({"dt": frame_dt, "events": [list(event) for event in self._events]})
        return frame_dt

    @property
    def overlay_alpha(self) -> float:
        return float(np.clip(255.0 - self.overlay_timer, 0.0, 255.0)) / 255.0

    def draw(self) -> None:
        """Build this frame's batches and draw them (nothing when the framebuffer has no area)."""
        width, height = self.ctx.framebuffer_size()
        if width <= 0 or height <= 0:
            self.renderer.draw_calls = 0
            return
        self.camera.resize(width, height)
        self.renderer.set_text_scale(self._text_scale())
        if self._font_for != (width, height, self._text_scale()):
            self._font_for = (width, height, self._text_scale())
            self.renderer.set_font_size(self._font_px(width, height))
        t_build = time.perf_counter()
        world = self.world
        wv = world.world_vertices()
        fills, lines, points = self.mesh.update(wv, world._local_vertices, world._vertex_count, world._static)
        overlay = self.renderer.overlay
        overlay.clear()
        self._draw_overlays(overlay, wv)
        if self._scene.on_overlay is not None:
            self._scene.on_overlay(self._scene, overlay)
        if self._scene.body_colors:  # after on_overlay, which may set them for this frame
            fills = recolor_fills(fills, self.mesh.fill_body, self._scene.body_colors)
        extra_fills, extra_lines, extra_points = overlay.fills(), overlay.lines(), overlay.points()
        if len(extra_fills):
            fills = np.concatenate([fills, extra_fills])
        if len(extra_lines):
            lines = np.concatenate([lines, extra_lines])
        if len(extra_points):
            points = np.concatenate([points, extra_points])
        text = self._build_text(width, height)
        t_gl = time.perf_counter()
        self.renderer.draw(self.ctx.framebuffer, width, height, self.camera, fills, lines, points, text)
        self.profile["draw_gl_ms"].append((time.perf_counter() - t_gl) * 1000.0)
        self.profile["draw_build_ms"].append((t_gl - t_build) * 1000.0)

    def _draw_overlays(self, overlay: LineBatch, wv: np.ndarray) -> None:
        world = self.world
        # The turret: a short barrel toward the cursor on a small base.
        base = np.asarray(self._scene.turret, dtype=np.float64)
        aim = self.cursor_world() - base
        norm = float(np.hypot(*aim))
        barrel = base + (aim / norm if norm > 1e-9 else np.array([0.0, 1.0])) * 3.0
        overlay.add_lines(np.array([[base, barrel], [base - (1.5, 0.0), base + (1.5, 0.0)]]), TURRET_COLOR)
        for start, end, age in self.shots:
            fade = max(0.0, 1.0 - age / SHOT_FADE_S)
            overlay.add_lines(np.array([[start, end]]), (*SHOT_COLOR[:3], fade))
            overlay.add_points(np.array([end]), (*SHOT_COLOR[:3], fade))
        contacts = world.contacts
        if len(contacts):
            self._draw_contact_overlays(overlay, contacts)
        if self.show["bounds"] and world.body_count:
            valid = np.arange(wv.shape[1])[None, :] < np.asarray(world.vertex_count)[:, None]
            lo = np.where(valid[..., None], wv, np.inf).min(axis=1)
            hi = np.where(valid[..., None], wv, -np.inf).max(axis=1)
            overlay.add_boxes(lo, hi, BOUNDS_COLOR)
        if self.show["velocities"] and world.body_count:
            moving = ~np.asarray(world.static, dtype=bool)
            start = world.position[moving]
            overlay.add_lines(
                np.stack([start, start + world.velocity[moving] * VELOCITY_ARROW_S], 1), VELOCITY_COLOR
            )

    def _draw_contact_overlays(self, overlay: LineBatch, contacts: Any) -> None:
        """Contact points by state, normals with separation, push vectors, TOI ghosts, impulses."""
        world = self.world
        scale = float(self._scene.data.get("arrow_scale", 1.0))
        if self.show["contacts"]:
            state = np.clip(np.asarray(contacts.state, dtype=np.int64), 0, len(CONTACT_STATE_COLORS) - 1)
            colors = CONTACT_STATE_COLORS[state]
            overlay.add_points(contacts.point_a, colors)
            overlay.add_points(contacts.point_b, colors)
            overlay.add_lines(np.stack([contacts.point_a, contacts.point_b], axis=1), colors)
        if self.show["normals"]:
            tips = contacts.point_b + contacts.normal * (NORMAL_ARROW * scale)
            overlay.add_arrows(contacts.point_b, tips, NORMAL_COLOR)
            # The separation along the normal: negative (penetration) points back into B.
            gap_tips = contacts.point_b + contacts.normal * contacts.separation[:, None]
            overlay.add_lines(np.stack([contacts.point_b, gap_tips], axis=1), SEPARATION_COLOR)
            if len(contacts) <= MAX_SEPARATION_LABELS:
                for point, sep in zip(contacts.point_b, contacts.separation, strict=True):
                    overlay.add_text(f"{sep:+.3f}", point, SEPARATION_COLOR)
        if self.show["push"]:
            # The MTD of each overlapping pair: its deepest point pushed out by the depth along N.
            deep = contacts.separation < 0.0
            if deep.any():
                start = contacts.point_a[deep]
                push = -contacts.normal[deep] * contacts.separation[deep][:, None]
                overlay.add_arrows(start, start + push, PUSH_COLOR)
        if self.show["toi"]:
            # Ghost of A where the step's sweep found the impact (t = toi), from its start-of-step pose.
            ahead = np.asarray(contacts.toi) > 0.0
            for a in np.unique(np.asarray(contacts.body_a)[ahead]):
                if world.static[a]:
                    continue
                t = float(np.min(np.asarray(contacts.toi)[ahead & (np.asarray(contacts.body_a) == a)]))
                back = world.velocity[a] * (self._scene.dt - t)
                overlay.add_polygon(world.vertices(int(a)) - back, GHOST_COLOR, GHOST_COLOR)
        if self.show["impulses"]:
            per = IMPULSE_ARROW_PER_NS * scale
            n = contacts.normal
            tangent = np.stack([-n[:, 1], n[:, 0]], axis=1)
            p = contacts.point_b
            overlay.add_arrows(p, p + n * (contacts.normal_impulse * per)[:, None], NORMAL_IMPULSE_COLOR)
            moving = np.abs(contacts.tangent_impulse) > 0.0
            if moving.any():
                overlay.add_arrows(
                    p[moving],
                    p[moving] + tangent[moving] * (contacts.tangent_impulse[moving] * per)[:, None],
                    FRICTION_IMPULSE_COLOR,
                )

    def hud_line(self) -> str:
        world = self.world
        physics = float(np.median(self.step_ms)) if self.step_ms else 0.0
        parts = [
            self._scene.name,
            f"solver {world.solver}",
            "PAUSED" if self.paused else None,
            f"{self._fps:.0f} fps",
            f"physics {physics:.2f} ms/step",
            f"bodies {world.body_count}",
            f"contacts {len(world.contacts)}",
        ]
        return "  |  ".join(p for p in parts if p)

    def stats_lines(self) -> list[str]:
        cursor = self.cursor_world()
        on = {True: "on", False: "off"}
        lines = [
            f"mouse: {cursor[0]:.1f}, {cursor[1]:.1f}",
            f"Gravity : {on[self.gravity_on]}",
            f"Friction : {on[self.friction_on]}",
            f"Stat.Fric. : {on[self.static_friction_on]}",
            f"bodies : {self.world.body_count}",
            f"Dyn.Fric. : {self.friction:.2f}",
            f"Restitution : {self.restitution:.2f}",
            f"Stat.Fric. : {self.static_friction:.2f}",
            "",
        ]
        return lines + list(self._scene.help)

    def _build_text(self, width: int, height: int) -> np.ndarray:
        batch = self.renderer.text
        batch.clear()
        atlas = self.renderer.atlas
        line_h = atlas.line_height
        margin = 6 * self.renderer.text_scale
        batch.add(self.hud_line(), margin, margin, HUD_COLOR)
        for label, point, color in self.renderer.overlay.labels():
            px, py = self.camera.world_to_screen(point)
            batch.add(label, float(px), float(py), color)
        status_y = margin + line_h
        for line in self._scene.status:
            batch.add(line, margin, status_y, STATUS_COLOR)
            status_y += line_h
        if self.message:
            batch.add(self.message, margin, height - margin - line_h, HUD_COLOR)
        alpha = self.overlay_alpha
        if alpha > 0.0:
            color = (1.0, 1.0, 1.0, alpha)
            y = margin + (2 + len(self._scene.status)) * line_h
            for line in self.stats_lines():
                batch.add(line, margin, y, color)
                y += line_h
            rows = controls.help_rows(self._scene.name)  # the rows that mean something here
            key = (atlas.pixel_size, id(atlas), self._scene.name)
            if self._help_width is None or self._help_width[0] != key:
                label_w = max(atlas.text_width(label) for label, text in rows if text)
                text_w = max(atlas.text_width(text) for _, text in rows)
                self._help_width = (key, (label_w + atlas.cell[0], text_w))
            label_w, text_w = self._help_width[1]
            x = max(width - label_w - text_w - margin, width * 0.5)
            y = margin + 2 * line_h
            for label, text in rows:
                batch.add(label, x, y, color)
                batch.add(text, x + label_w, y, color)
                y += line_h
        return batch.vertices()

    def save_screenshot(self, path: Path | None = None) -> Path:
        """Save the last drawn frame as a PNG (F2 names it by time in screenshot_dir)."""
        from PIL import Image  # noqa: PLC0415

        if path is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = self.screenshot_dir / f"polycolly-{stamp}-{len(self.screenshots) + 1:03d}.png"
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(self.ctx.read_pixels()).save(path)
        self.screenshots.append(path)
        print(f"screenshot saved: {path}", file=self.out, flush=True)
        return path


_HELP_ROWS = controls.help_rows()

_MATERIAL_KEYS = {
    "friction_up": ("friction", FRICTION_STEP, FRICTION_MAX),
    "friction_down": ("friction", -FRICTION_STEP, FRICTION_MAX),
    "restitution_up": ("restitution", RESTITUTION_STEP, RESTITUTION_MAX),
    "restitution_down": ("restitution", -RESTITUTION_STEP, RESTITUTION_MAX),
    "static_friction_up": ("static_friction", STATIC_FRICTION_STEP, STATIC_FRICTION_MAX),
    "static_friction_down": ("static_friction", -STATIC_FRICTION_STEP, STATIC_FRICTION_MAX),
}


def median(values: list[float]) -> float:
    return float(np.median(values)) if values else math.nan


def _glfw_key_names() -> dict[int, str]:
    """glfw key codes -> demo.controls input names."""
    import glfw  # noqa: PLC0415

    names: dict[int, str] = {}
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        names[getattr(glfw, f"KEY_{letter}")] = letter
    for digit in "0123456789":
        names[getattr(glfw, f"KEY_{digit}")] = digit
        names[getattr(glfw, f"KEY_KP_{digit}")] = f"KP_{digit}"
    for name in (
        "LEFT",
        "RIGHT",
        "UP",
        "DOWN",
        "ESCAPE",
        "ENTER",
        "KP_ENTER",
        "SPACE",
        "TAB",
        "HOME",
        "EQUAL",
        "MINUS",
        "KP_ADD",
        "KP_SUBTRACT",
        "F1",
        "F2",
        "F3",
    ):
        names[getattr(glfw, f"KEY_{name}")] = name
    return names


def connect_window(app: App, window: Any) -> None:
    """Route a glfw window's callbacks into ``app``'s input recorders (they only record)."""
    import glfw  # noqa: PLC0415

    keys = _glfw_key_names()
    buttons = {
        glfw.MOUSE_BUTTON_LEFT: "MOUSE_LEFT",
        glfw.MOUSE_BUTTON_RIGHT: "MOUSE_RIGHT",
        glfw.MOUSE_BUTTON_MIDDLE: "MOUSE_MIDDLE",
    }

    def on_key(_win: Any, key: int, _scancode: int, action: int, mods: int) -> None:
        name = keys.get(key)
        if name is None or action == glfw.REPEAT:
            return
        app.key(name, action == glfw.PRESS, bool(mods & glfw.MOD_SHIFT))

    def on_button(_win: Any, button: int, action: int, _mods: int) -> None:
        name = buttons.get(button)
        if name is not None:
            app.mouse_button(name, action == glfw.PRESS, bool(_mods & glfw.MOD_SHIFT))

    def on_cursor(_win: Any, x: float, y: float) -> None:
        app.cursor(x, y)

    def on_scroll(_win: Any, _dx: float, dy: float) -> None:
        app.scroll(dy)

    # Keep references: glfw holds only weak ones to Python callables.
    app._callbacks = (on_key, on_button, on_cursor, on_scroll)  # type: ignore[attr-defined]
    glfw.set_key_callback(window, on_key)
    glfw.set_mouse_button_callback(window, on_button)
    glfw.set_cursor_pos_callback(window, on_cursor)
    glfw.set_scroll_callback(window, on_scroll)
