"""The program's loop: recorded input -> actions -> fixed steps of the world -> one drawn frame.

Window-system callbacks (and tests) only *record* input through ``key``, ``mouse_button``,
``cursor`` and ``scroll``; :meth:`App.frame` turns the recorded input into actions, runs whole
fixed physics steps from an accumulator (capped per frame), then draws once. What the actions
do to the world is demo.actions (``App`` is a ``Simulation``); the frame's picture is composed
by demo.draw.compose and drawn by demo.draw.render.

Import after demo.context has made a context current (this module imports demo.draw.render).
"""

from __future__ import annotations

import math
import sys
import time
from collections import deque
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from demo import controls, readout, safeio, scenes
from demo.actions import Simulation
from demo.context import Context, text_scale
from demo.draw import compose
from demo.draw.camera import Camera
from demo.draw.hud import HudContent
from demo.draw.mesh import BodyMesh
from demo.draw.placement import PLACES
from demo.draw.render import Renderer
from demo.draw.text import GlyphAtlas
from demo.loading import Loader, Ticket, interpreted
from demo.recording import MAX_FRAME_DT  # the longest frame taken into account, live or replayed
from demo.scenes import Scene
from demo.scenes.base import FrameInput

#: The help stays up this long (s of real time) after the program starts, a scene is shown, the
#: game is unpaused or `h` is pressed, unless a key or button is pressed first; it then fades
#: out over HELP_FADE_S. While paused it stays (as in the original).
HELP_SECONDS, HELP_FADE_S = 4.0, 0.5
#: A message (a saved screenshot's path, a file that did not load) stays this long (s).
MESSAGE_SECONDS = 6.0
#: The frame time assumed for the very first frame (s).
FIRST_FRAME_S = 1.0 / 60.0
ZOOM_STEP = 1.15
#: Where F2 saves screenshots unless told otherwise: the user's pictures, not the working folder.
SCREENSHOT_DIR = Path.home() / "Pictures" / "polycolly"
#: Inputs that do not dismiss the help (it is theirs, or they are not a user's action).
HELP_KEEPERS = frozenset({"help", "pause", "screenshot"})


class App(Simulation):
    """The interactive program on a context (window or offscreen): a :class:`Simulation` with
    recorded input, a camera and drawing.

    ``scene``, ``seed``, ``bodies``: what to build first (or ``scene`` an already built
    ``Scene``); ``solver``: the first scene's solver instead of its own.
    ``screenshot_dir``: where F2 saves PNGs (default SCREENSHOT_DIR). ``out``: where one-line
    messages go. ``renderer``: one already made for this context (the start-up frames').
    ``loader``: a demo.loading.Loader: scenes are then built and solvers made ready on its
    worker thread while the current scene keeps running (a window's program); without one
    (offscreen, recording, replaying) everything happens at once, in order.
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
        renderer: Renderer | None = None,
        loader: Loader | None = None,
    ) -> None:
        super().__init__(solver=solver, out=out)
        self.ctx = ctx
        self.screenshot_dir = SCREENSHOT_DIR if screenshot_dir is None else Path(screenshot_dir)
        width, height = ctx.framebuffer_size()
        self.renderer = renderer if renderer is not None else Renderer(text_scale=self._text_scale())
        self.loader = loader
        self.mesh = BodyMesh()
        #: The picture's state between frames (text layout, the help's place, the last frame).
        self.composer = compose.Composer()
        self.camera = Camera((0.0, 0.0, 100.0, 100.0), width, height)
        self.running = True
        #: Real seconds since the help was last brought up; it shows while below HELP_SECONDS.
        self.help_age = 0.0
        self.help_page = 0
        self.help_pages = 1
        #: The help shows the scene's own lines and where the controls are, not all of them: a
        #: scene the user moved to (they have seen the controls), until `h`.
        self.help_brief = False
        self._brief_next = False
        self._message_age = 0.0
        #: Leave out frames that would look the same as the last one drawn (a window: its picture
        #: stays on the screen); ``drawn`` says whether the last frame drew.
        self.skip_unchanged = False
        self.drawn = True
        self._had_input = True
        self._input_clock = -math.inf  # when the last frame with input (an event, or held) began
        #: Scenes asked for and being built on the loader's worker thread, oldest first: each
        #: is shown when built, for a frame at least, so none is passed over unseen (but one
        #: still waiting for its kernels to compile when another is asked for).
        self.builds: deque[tuple[str, Ticket]] = deque()
        #: A solver being made ready on the worker (`m` before its kernels were loaded).
        self.pending_solver: str | None = None
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
        #: The press actions of the last frame (the profile names the slowest frames' by them).
        self.frame_actions: list[str] = []
        self.fps = 0.0
        self.hud_figures: tuple[int, str, str, str] | None = None  # (frame, fps, physics, contacts)
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
            Simulation.load_scene(self, scene, seed, bodies)
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
        self.hud_figures = None  # the last scene's figures are not this one's
        self.show_help(brief=self._brief_next)
        self._brief_next = False
        self.help_page = 0
        # Lay the frame out now: the camera fits the world below the heads-up bar, whose
        # height depends on the scene, and the cursor's world point depends on the camera.
        self.composer.build(self)

    @property
    def asynchronous(self) -> bool:
        """Whether scenes are built off the drawing thread (a window, not recording or replaying)."""
        return self.loader is not None and self.recording is None and self.replay is None

    def load_scene(self, name: str, seed: int = 0, bodies: int | None = None) -> None:
        """Build scene ``name`` and show it: at once, or (:attr:`asynchronous`) on the loader's
        worker, the current scene running on until it is built (a scene asked for before and
        still waiting for its kernels to compile is passed over); a failure becomes the
        message. The scene comes with the brief help (:attr:`help_brief`)."""
        self._brief_next = True
        if not self.asynchronous:
            super().load_scene(name, seed, bodies)
            return
        assert self.loader is not None
        # A scene still waiting for the compiler (a first run) is passed over for this newer
        # one: the user would wait minutes for each in turn. One that can be built is shown.
        self.builds = deque(
            build for build in self.builds if not self.loader.withdraw(build[1]) and not self._waits(build[1])
        )
        # A scene file has no warm-up job of its own: it is built once the plan is known.
        file = scenes.is_scene_file(scenes.resolve(name))
        needs = () if file else (f"scene:{scenes.resolve(name)}",)
        build = partial(_built_with_mesh, name, seed, bodies, self.renderer.text.atlas)
        self.builds.append((name, self.loader.submit(f"build {name}", build, needs, interpreted=not file)))

    def _waits(self, ticket: Ticket) -> bool:
        """Whether a built scene waits for its kernels (too large to run interpreted)."""
        assert self.loader is not None
        if not ticket.done or ticket.error is not None:
            return False
        return not self.loader.shows_now(ticket.result[0].world, ticket.needs)

    def scene_jobs(self) -> tuple[str, ...]:
        """The warm-up jobs whose kernels the scene on screen runs on (demo.warmup.Job keys)."""
        name = scenes.resolve(self.scene.name)
        jobs: tuple[str, ...] = () if scenes.is_scene_file(name) else (f"scene:{name}",)
        if self.world.solver != self.scene.own_solver:
            jobs += (f"solver:{self.world.solver}",)
        return jobs

    @property
    def pending(self) -> Ticket | None:
        """The last scene asked for, while it is being built."""
        return self.builds[-1][1] if self.builds else None

    @property
    def pending_name(self) -> str | None:
        return self.builds[-1][0] if self.builds else None

    def tab_position(self) -> str:
        return self.builds[-1][0] if self.builds else super().tab_position()

    def cycle_solver(self) -> None:
        """`m`: the next solver for this scene, once its kernels are ready (asynchronous: the
        scene runs on with its solver until they are; the HUD says so)."""
        if self.asynchronous and self.loader is not None:
            current = self.pending_solver or self.world.solver
            candidate = self.next_solver(current)
            if not self.loader.ready(f"solver:{candidate}"):
                self.pending_solver = candidate
                return
            self.pending_solver = None
            if candidate != self.world.solver:
                self.set_solver(candidate)
            return
        super().cycle_solver()

    def _poll_pending(self) -> None:
        """Take the oldest finished build (one a frame: each scene is drawn) or a solver that
        has become ready."""
        if self.builds and self.builds[0][1].done and not self._waits(self.builds[0][1]):
            _, ticket = self.builds.popleft()
            if ticket.error is not None:
                self.say(str(ticket.error) if isinstance(ticket.error, ValueError) else repr(ticket.error))
            else:
                self.mesh = ticket.result[1]
                self.use_scene(ticket.result[0])
                self.message = ""
                self.frame_actions.append("shown")
        solver = self.pending_solver
        if solver is not None and self.loader is not None and self.loader.ready(f"solver:{solver}"):
            self.pending_solver = None
            self.set_solver(solver)

    def say(self, message: str) -> None:
        """Show ``message`` at the bottom for MESSAGE_SECONDS (and print it)."""
        self.message = message
        self._message_age = 0.0
        print(message, file=self.out, flush=True)

    def frame_input(self) -> FrameInput:
        """The input the scene's hooks see now, with the width of a label at this zoom."""
        atlas, unit = self.renderer.text.atlas, self.camera.pixels_per_unit
        return replace(super().frame_input(), text_width=lambda text: atlas.text_width(text) / unit)

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

    def _text_scale(self) -> int:
        return text_scale(self.ctx)

    # -- actions ----------------------------------------------------------------------------------

    def _process_input(self) -> None:
        events, self._events = self._events, []
        self._had_input = bool(events)
        self.frame_actions = []
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
                if pressed:
                    self.frame_actions.append(action)
                if pressed and action not in HELP_KEEPERS and not self.paused:
                    self.dismiss_help()
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

    def show_help(self, brief: bool = False) -> None:
        """`h` (or a new scene, unpausing): the help comes back; `h` while all of it is up turns
        its page. ``brief``: only the scene's lines and the key for the rest."""
        if not brief and not self.help_brief and self.help_alpha >= 1.0 and self.help_pages > 1:
            self.help_page += 1
        self.help_brief = brief
        self.help_age = 0.0
        self.composer.help_place = None

    def dismiss_help(self) -> None:
        """The first input after the help came up: it fades out now."""
        self.help_age = max(self.help_age, HELP_SECONDS)

    def seconds_without_input(self) -> float:
        """Real seconds since the last frame that had input (an event, or anything held)."""
        return time.perf_counter() - self._input_clock

    def hide_help(self) -> None:
        """Take the help away at once (scripts and tests that want the bare scene)."""
        self.help_age = HELP_SECONDS + HELP_FADE_S

    @property
    def help_alpha(self) -> float:
        """How visible the help is: 1 while up, fading to 0 over HELP_FADE_S."""
        return float(np.clip(1.0 - (self.help_age - HELP_SECONDS) / HELP_FADE_S, 0.0, 1.0))

    # -- the frame --------------------------------------------------------------------------------

    def frame(self, frame_dt: float | None = None) -> None:
        """Process input, step the world for ``frame_dt`` seconds (real time if None), draw once."""
        clock = time.perf_counter()
        real = clock - self._last_frame_clock if self._last_frame_clock is not None else 0.0
        self._last_frame_clock = clock
        if real > 0.0:
            self.fps = 1.0 / real if self.fps == 0.0 else 0.9 * self.fps + 0.1 / real
        if frame_dt is None:
            frame_dt = real if real > 0.0 else FIRST_FRAME_S
        frame_dt = self._recorded_input(min(max(float(frame_dt), 0.0), MAX_FRAME_DT))

        self._process_input()
        if self._had_input or self.held:
            self._input_clock = clock
        self._poll_pending()
        if self.loader is not None and interpreted():
            self.loader.use_compiled(self.scene_jobs())
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
        # Esc: the frame would never be seen (the window closes now), so it is not drawn.
        self.drawn = self.draw() if self.running else False
        draw_ms = (time.perf_counter() - t_draw) * 1000.0
        # This thread's CPU time: what our code and the GL calls it makes cost, without waits.
        self.profile["draw_cpu_ms"].append((time.thread_time() - cpu_draw) * 1000.0)
        if self._screenshot_requested:
            self._screenshot_requested = False
            try:
                path = self.save_screenshot()
            except ValueError as exc:  # F2 into a folder we cannot write: say so, keep running
                self.say(str(exc))
            else:
                self.say(f"screenshot saved: {path}")
        if self.paused:
            self.help_age = 0.0
        else:
            self.help_age += frame_dt
        self._message_age += frame_dt
        if self.message and self._message_age > MESSAGE_SECONDS and self.pending is None:
            self.message = ""
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

    def draw(self) -> bool:
        """Build this frame's batches and draw them (demo.draw.compose); False when nothing was
        drawn: the framebuffer has no area, or (:attr:`skip_unchanged`) the frame would be the
        same as the last one drawn (never when F2 asked for a screenshot of it)."""
        # F2 reads the frame back from the buffer it is drawn into: that frame is always drawn.
        skip = self.skip_unchanged and not self._screenshot_requested
        return self.composer.draw(self, skip, self._had_input)

    def redraw(self) -> None:
        """Draw the next frame even if it is the same (the window's picture was lost)."""
        self.composer.redraw()

    @property
    def help_place(self) -> tuple[bool, bool]:
        """Where the help panel is: (on the right, at the top)."""
        return self.composer.help_place or PLACES[0]

    def labels(self) -> list[tuple[str, float, float, Any]]:
        """The overlay labels as (text, pixel x, pixel y of the top-left corner, colour)
        (demo.draw.compose.labels)."""
        return compose.labels(self)

    def hud_content(self) -> HudContent:
        """This frame's text (demo.readout)."""
        return readout.hud_content(self)

    def hud_line(self, template: bool = False) -> str:
        return readout.hud_line(self, template)

    def stats_lines(self) -> list[str]:
        return readout.stats_lines(self)

    def help_rows(self) -> list[tuple[str, str]]:
        """The help overlay's rows for the current scene: what each of its inputs does there."""
        return controls.help_rows(self._scene, self.features)

    def save_screenshot(self, path: Path | None = None) -> Path:
        """Save the last drawn frame as a picture: F2 (``path`` None) as a new PNG named by time in
        screenshot_dir, never over a file already there; ``path`` (--screenshot) in the format of
        its suffix, replacing a file already there. The picture is written beside its name and
        renamed into place, so a write that fails partway leaves an existing file as it was.

        ValueError naming the path when it cannot be written.
        """
        path, replaced = safeio.save_picture(
            self.ctx.read_pixels(), path, self.screenshot_dir, len(self.screenshots) + 1
        )
        self.screenshots.append(path)
        if replaced:
            print(f"screenshot saved: {path} (replaced the file that was there)", file=self.out, flush=True)
        return path


def _built_with_mesh(name: str, seed: int, bodies: int | None, atlas: GlyphAtlas) -> tuple[Scene, BodyMesh]:
    """Scene ``name`` built, its bodies' mesh made ready and its text's kerning measured into
    ``atlas`` (on the loader's worker: a thousand bodies take tens of ms to mesh, a teaching
    scene's text as long to measure, which its first frame would otherwise spend)."""
    scene = scenes.build_scene(name, seed, bodies)
    world = scene.world
    mesh = BodyMesh()
    mesh.prepare(world.local_vertices, world.vertex_count, world.body_kind.astype(np.int64))
    atlas.learn_kerning(readout.scene_texts(scene))
    return scene, mesh
