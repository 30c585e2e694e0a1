"""The program's loop: recorded input -> actions -> fixed steps of the world -> one drawn frame.

Window-system callbacks (and tests) only *record* input through ``key``, ``mouse_button``,
``cursor`` and ``scroll``; :meth:`App.frame` turns the recorded input into actions, runs whole
fixed physics steps from an accumulator (capped per frame), then draws once. What the actions
do to the world is demo.actions (``App`` is a ``Simulation``); the drawing is demo.draw.

Import after demo.context has made a context current (this module imports demo.draw.render).
"""

from __future__ import annotations

import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from PIL import Image

from demo import controls
from demo.actions import Simulation
from demo.context import Context
from demo.draw.camera import Camera
from demo.draw.hud import HudContent, HudLayout
from demo.draw.mesh import BodyMesh
from demo.draw.overlays import draw_world_overlays
from demo.draw.render import Renderer
from demo.draw.text import BASE_FONT_PX, MIN_FONT_PX
from demo.scenes import Scene

#: Overlay fade as in the original: alpha = 255 - timer, timer += 8 per 1/60 s frame.
OVERLAY_FADE_PER_FRAME, OVERLAY_FRAME_S = 8.0, 1.0 / 60.0
#: Longest frame time (s) taken into account (after a pause in the debugger, a drag, ...).
MAX_FRAME_DT = 0.25
ZOOM_STEP = 1.15
#: The heads-up line's fps and physics figures are refreshed every this many frames.
HUD_REFRESH_FRAMES = 15
#: A font of size s pixels advances about 1.23 s + 1 pixels per line.
FONT_LINE_FACTOR = 1.23


class App(Simulation):
    """The interactive program on a context (window or offscreen): a :class:`Simulation` with
    recorded input, a camera and drawing.

    ``scene``, ``seed``, ``bodies``: what to build first (or ``scene`` an already built
    ``Scene``); ``solver``: the first scene's solver instead of its own.
    ``screenshot_dir``: where F2 saves PNGs. ``out``: where one-line messages go.
    """

    def __init__(
        self,
        ctx: Context,
        scene: str | Scene = "rigid",
        seed: int = 0,
        bodies: int | None = None,
        solver: str | None = None,
        screenshot_dir: Path | None = None,
        out: TextIO = sys.stdout,
    ) -> None:
        super().__init__(solver=solver, out=out)
        self.ctx = ctx
        self.screenshot_dir = Path.cwd() if screenshot_dir is None else Path(screenshot_dir)
        width, height = ctx.framebuffer_size()
        self.renderer = Renderer(text_scale=self._text_scale())
        self.mesh = BodyMesh()
        self.hud = HudLayout()
        self._font_for: tuple[int, int, int] | None = None  # framebuffer size the font was fitted to
        self.camera = Camera((0.0, 0.0, 100.0, 100.0), width, height)
        self.running = True
        self.overlay_timer = 0.0
        self._events: list[tuple[Any, ...]] = []
        self.cursor_window = np.array([width * 0.5, height * 0.5])
        #: --record: one entry per frame, {"dt": s, "events": [...]} (what the frame consumed);
        #: --replay: the recorded frames still to play (they replace the live dt and input).
        self.recording: list[dict[str, Any]] | None = None
        self.replay: deque[dict[str, Any]] | None = None
        self._replay_cursor: np.ndarray | None = None
        self._screenshot_requested = False
        self.frame_count = 0
        self.screenshots: list[Path] = []
        self.legend: list[Any] = []
        self._fps = 0.0
        self._hud_figures: tuple[int, str, str, str] | None = None  # (frame, fps, physics, contacts)
        self._last_frame_clock: float | None = None
        self.profile: dict[str, list[float]] = {
            "frame_ms": [],
            "physics_ms": [],
            "draw_ms": [],
            "draw_build_ms": [],
            "draw_gl_ms": [],
            "draw_cpu_ms": [],
        }
        if isinstance(scene, str):
            self.load_scene(scene, seed, bodies)
        else:
            self.use_scene(scene)

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

    def use_scene(self, scene: Scene) -> None:
        """Show an already built scene (tests and scripts build their own) with its view."""
        super().use_scene(scene)
        self.camera.set_view(scene.view)

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
        """Font size: BASE_FONT_PX (times the HiDPI scale), smaller if the help would not fit."""
        rows = controls.help_rows()
        lines = len(rows) + 3  # heads-up line, a gap, the help, the bottom margin
        fit_height = (height / lines - 1) / FONT_LINE_FACTOR
        atlas = self.renderer.atlas
        help_width = max(atlas.text_width(label) for label, _ in rows) + atlas.cell[0]
        help_width += max(atlas.text_width(text) for _, text in rows)
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
        recorded = self.recording[-1]["events"] if self.recording is not None else None
        frame_cursor = self._replay_cursor
        for k, event in enumerate(events):
            if event[0] == "input":
                # A press acts where the cursor is when it is processed, which a later cursor
                # event of the same frame must not change: record that place with the press
                # (a replay puts it back for the press), not only the frame's last cursor.
                if recorded is not None:
                    recorded[k] = [*event, self.cursor_world().tolist()]
                elif self.replay is not None and len(event) > 4:
                    self._replay_cursor = np.array(event[4], dtype=np.float64)
                event = event[:4]
            if event[0] == "cursor":
                old = self.cursor_pixels()
                self.cursor_window = np.array([event[1], event[2]])
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
                    self.hold(action, pressed, shift)
                elif pressed:
                    self.do(action)
        if self.replay is not None and frame_cursor is not None:
            self._replay_cursor = frame_cursor

    def do(self, action: str) -> bool:
        """Carry out a press action from the controls table (world actions: Simulation.do)."""
        if super().do(action):
            return True
        if action == "quit":
            self.running = False
            request = getattr(self.ctx, "request_close", None)
            if request is not None:
                request()
        elif action in ("zoom_in", "zoom_out"):
            px, py = self.cursor_pixels()
            self.camera.zoom_about(px, py, ZOOM_STEP if action == "zoom_in" else 1.0 / ZOOM_STEP)
        elif action == "reset_view":
            self.camera.reset()
        elif action == "screenshot":
            self._screenshot_requested = True
        else:
            return False
        return True

    def show_help(self) -> None:
        self.overlay_timer = 0.0

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
        # The physics of one frame sees one cursor, in world units: the window's size is queried
        # live from the window system and may change while the frame runs (a resize in flight),
        # so the cursor is pinned here, recorded, and a replay pins the same one.
        cursor = self.cursor_world()
        if self.recording is not None:
            self.recording[-1]["cursor"] = cursor.tolist()
        replay_cursor, self._replay_cursor = self._replay_cursor, cursor
        t_physics = time.perf_counter()
        try:
            self.advance(frame_dt)
        finally:
            self._replay_cursor = replay_cursor
        physics_ms = (time.perf_counter() - t_physics) * 1000.0

        t_draw, cpu_draw = time.perf_counter(), time.thread_time()
        self.draw()
        draw_ms = (time.perf_counter() - t_draw) * 1000.0
        # This thread's CPU time: what our code and the GL calls it makes cost, without waits.
        self.profile["draw_cpu_ms"].append((time.thread_time() - cpu_draw) * 1000.0)
        if self._screenshot_requested:
            self._screenshot_requested = False
            try:
                self.save_screenshot()
            except ValueError as exc:  # F2 into a folder we cannot write: say so, keep running
                self.message = str(exc)
                print(exc, file=self.out, flush=True)
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
        scale = self._text_scale()
        self.renderer.set_text_scale(scale)
        if self._font_for != (width, height, scale):
            self._font_for = (width, height, scale)
            self.renderer.set_font_size(self._font_px(width, height))
        t_build = time.perf_counter()
        world = self.world
        wv = world.world_vertices()
        # Body kinds for the colours: 0 moving, 1 static, 2 kinematic (demo.draw.mesh KIND_*).
        kinds = world.body_kind.astype(np.int64)
        # The bodies' fills stay on the GPU; only their poses go up each frame.
        _, lines, points = self.mesh.update(
            wv, world.local_vertices, world.vertex_count, kinds, fills=False
        )
        overlay = self.renderer.overlay
        overlay.clear()
        self.legend = draw_world_overlays(overlay, self, wv)
        self._scene.on_overlay(overlay, self.frame_input())
        # After on_overlay, which may set the body colours for this frame.
        body_fills = self.mesh.body_fills(
            world.local_vertices, world.vertex_count, kinds, self._scene.body_colors
        )
        bodies = (body_fills, self.mesh.version, self.mesh.poses(world.position, world.angle))
        fills, extra_lines, extra_points = overlay.fills(), overlay.lines(), overlay.points()
        if len(extra_lines):
            lines = np.concatenate([lines, extra_lines])
        if len(extra_points):
            points = np.concatenate([points, extra_points])
        text = self.hud.build(
            self.renderer.text,
            self.renderer.atlas,
            self.hud_content(),
            width,
            height,
            self.renderer.text_scale,
        )
        t_gl = time.perf_counter()
        self.renderer.draw(
            self.ctx.framebuffer, width, height, self.camera, fills, lines, points, text, bodies
        )
        self.profile["draw_gl_ms"].append((time.perf_counter() - t_gl) * 1000.0)
        self.profile["draw_build_ms"].append((t_gl - t_build) * 1000.0)

    def hud_content(self) -> HudContent:
        """This frame's heads-up text: the HUD line, status, message, labels, help and stats."""
        labels = []
        for label, point, color in self.renderer.overlay.labels():
            px, py = self.camera.world_to_screen(point)
            labels.append((label, float(px), float(py), color))
        alpha = self.overlay_alpha
        return HudContent(
            hud_line=self.hud_line(),
            status=self._scene.status,
            message=self.message,
            labels=labels,
            stats=self.stats_lines() if alpha > 0.0 else (),
            help_rows=self.help_rows() if alpha > 0.0 else (),
            help_alpha=alpha,
            legend=self.legend,
        )

    def hud_line(self) -> str:
        world = self.world
        # The measured figures change every frame; shown at a readable rate they also keep the
        # line's glyph layout cached between refreshes.
        if self._hud_figures is None or self.frame_count - self._hud_figures[0] >= HUD_REFRESH_FRAMES:
            physics = float(np.median(self.step_ms)) if self.step_ms else 0.0
            self._hud_figures = (
                self.frame_count,
                f"{self._fps:.0f} fps",
                f"physics {physics:.2f} ms/step",
                f"contacts {len(world.contacts)}",
            )
        parts = [
            self._scene.name,
            f"solver {world.solver}" if "solver" in self.features else None,
            "PAUSED" if self.paused else None,
            *self._hud_figures[1:3],
            f"bodies {world.body_count}",
            self._hud_figures[3],
        ]
        return "  |  ".join(p for p in parts if p)

    def stats_lines(self) -> list[str]:
        cursor = self.cursor_world()
        on = {True: "on", False: "off"}
        # Only the switches and values this scene's keys change (sat has no gravity to show).
        lines = [f"mouse: {cursor[0]:.1f}, {cursor[1]:.1f}"]
        if "gravity" in self.features:
            lines.append(f"Gravity : {on[self.gravity_on]}")
        if "material" in self.features:
            lines += [
                f"Friction : {on[self.friction_on]}",
                f"Stat.Fric. : {on[self.static_friction_on]}",
            ]
        lines.append(f"bodies : {self.world.body_count}")
        if "material" in self.features:
            lines += [
                f"Dyn.Fric. : {self.friction:.2f}",
                f"Restitution : {self.restitution:.2f}",
                f"Stat.Fric. : {self.static_friction:.2f}",
            ]
        return [*lines, "", *self._scene.help]

    def help_rows(self) -> list[tuple[str, str]]:
        """The help overlay's rows for the current scene: what each of its inputs does there."""
        return controls.help_rows(self._scene, self.features)

    def save_screenshot(self, path: Path | None = None) -> Path:
        """Save the last drawn frame as a PNG (F2 names it by time in screenshot_dir).

        ValueError naming the path when it cannot be written.
        """
        if path is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = self.screenshot_dir / f"polycolly-{stamp}-{len(self.screenshots) + 1:03d}.png"
        path = Path(path)
        image = Image.fromarray(self.ctx.read_pixels())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            image.save(path)
        except (OSError, ValueError) as exc:  # ValueError: Pillow knows no format for the suffix
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ValueError(f"screenshot {path}: cannot write it ({reason})") from None
        self.screenshots.append(path)
        print(f"screenshot saved: {path}", file=self.out, flush=True)
        return path
