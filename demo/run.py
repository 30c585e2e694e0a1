"""Running the program: a window (with its start-up frames and paced frames) or offscreen frames.

A window shows its first frame before anything slow happens: a panel saying what is going on,
with a progress bar while the engine's kernels compile (the first run) or load. The scene
starts as soon as the kernels it needs are ready; the others get ready behind it
(demo.loading). Frames are paced to the display: vsync where the window system has it, and
never more than FRAME_RATE_CAP frames per second, so an idle scene leaves the processor alone.
A scene left alone is paced within a share of a core (IdleBudget: a software rasteriser draws
on the processor, so there that means fewer frames a second); a scene at rest is not drawn
again at all (demo.draw.compose).

Offscreen (``--headless``) everything happens in order, in this thread: the frames are the
same whatever the machine, which ``--record`` / ``--replay`` and the tests rely on.

Imports nothing slow at module level: the engine and OpenGL come in as the program needs them.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import time
from collections import deque
from collections.abc import Mapping
from functools import partial
from typing import Any

from demo import catalog, warmup_lanes
from demo import recording as recording_file

#: The simulated time of one headless frame (s): headless runs are reproducible.
HEADLESS_FRAME_S = 1.0 / 60.0
DEFAULT_HEADLESS_FRAMES = 120
#: At most this many frames per second (a window without vsync would draw as fast as it can).
FRAME_RATE_CAP = 60.0
#: A scene left alone (no input for IDLE_AFTER_S: no event, nothing held) is paced so that the
#: process spends at most IDLE_CPU_SHARE of a core, its own threads and the driver's: a software
#: rasteriser (no graphics processor: Mesa's llvmpipe, as under Xvfb) spends 10-15 ms of
#: processor on a frame of the default scene with its help up at 960 x 720, so 60 frames a
#: second would take most of a core. Never below IDLE_MIN_RATE frames a second (a heavy scene
#: then costs more); the next input brings the full rate back at once. POLYCOLLY_IDLE_SHARE
#: (a number in (0, 1]) sets the share.
IDLE_CPU_SHARE = 0.4
IDLE_MIN_RATE = 15.0
IDLE_AFTER_S = 1.0
#: The start-up frames' rate: enough for a moving bar, little work beside the compiler.
STARTUP_FRAME_RATE = 30.0
#: Compiles (numba's own small ones included) the first scene typically needs, counted by
#: demo.warmup on the development machine for rigid with the iterative solver: 143 in one
#: process, 223 in two (each compiles some of the same small ones): the progress bar's scale
#: until the warm-up reports its first job done.
TYPICAL_FIRST_SCENE_KERNELS = {1: 145, 2: 225}
_IMPORTED_AT = time.monotonic()
#: Set once a window program has closed its window and stopped its helpers: the process may
#: then end without Python's slow shutdown (demo.__main__).
WINDOW_CLOSED = False


def seconds_since_start() -> float:
    """Seconds since this process started (Linux: from /proc; elsewhere: since this import)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of stat: start time in clock ticks after boot
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        return max(uptime - start_ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError):
        return time.monotonic() - _IMPORTED_AT


def median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    value = ordered[mid] if len(ordered) % 2 else 0.5 * (ordered[mid - 1] + ordered[mid])
    return round(value, 4)


class Pacer:
    """Sleeps so that frames start at most ``rate`` times a second, or less often when the wait
    is given a longer period (a frame that ran late is not made up for: the next one starts at
    once, and the schedule restarts from it)."""

    def __init__(self, rate: float) -> None:
        self.period = 1.0 / rate
        self.next = time.perf_counter()

    def wait(self, ctx: Any = None, period: float | None = None) -> None:
        """Until the next frame's start, ``period`` seconds (default: the rate's) after this
        one's. ``ctx``: a window, whose events are handled meanwhile: the wait ends early when
        the user quits (Esc or closing the window), so the frame that ends the program runs at
        once instead of up to a frame later."""
        self.next += max(self.period, period or 0.0)
        now = time.perf_counter()
        if self.next <= now:
            self.next = now
        elif ctx is None:
            time.sleep(self.next - now)
        else:
            _quit_asked(ctx, self.next)


class IdleBudget:
    """The period between frames of a scene left alone: the process's processor time per frame
    (all its threads: ours, the loader's, a software rasteriser's), averaged over the last
    frames, divided by ``share`` (of a core), at least ``shortest`` and at most ``longest``
    seconds."""

    def __init__(self, share: float, shortest: float, longest: float) -> None:
        self.share = share
        self.shortest = shortest
        self.longest = longest
        self.cost = 0.0  # seconds of processor a frame, a moving average
        self._last: float | None = None

    def frame_done(self, cpu_s: float) -> None:
        """A frame is done; ``cpu_s``: the process's processor seconds so far."""
        if self._last is not None:
            self.cost += 0.2 * ((cpu_s - self._last) - self.cost)
        self._last = cpu_s

    def period(self) -> float:
        """Seconds from one frame's start to the next's while the scene is left alone."""
        return min(max(self.cost / self.share, self.shortest), self.longest)


def idle_share(environ: Mapping[str, str] = os.environ) -> float:
    """IDLE_CPU_SHARE, or POLYCOLLY_IDLE_SHARE when it is a number in (0, 1] (else a warning)."""
    text = environ.get("POLYCOLLY_IDLE_SHARE", "").strip()
    if not text:
        return IDLE_CPU_SHARE
    try:
        share = float(text)
    except ValueError:
        share = math.nan
    if not 0.0 < share <= 1.0:
        print(
            f"POLYCOLLY_IDLE_SHARE={text!r} is not a number in (0, 1]; using {IDLE_CPU_SHARE}",
            file=sys.stderr,
        )
        return IDLE_CPU_SHARE
    return share


class CollectorPauses:
    """Time spent in Python's cyclic garbage collector (any thread: it holds the interpreter),
    between ``start()`` and ``stop()``: ``take()`` returns the ms since the last take;
    ``longest`` the longest single collection (ms), ``count`` the collections."""

    def __init__(self) -> None:
        self._since = 0.0
        self._started: float | None = None
        self.longest = 0.0
        self.count = 0

    def start(self) -> None:
        gc.callbacks.append(self._callback)

    def stop(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            ms = (time.perf_counter() - self._started) * 1000.0
            self._started = None
            self._since += ms
            self.longest = max(self.longest, ms)
            self.count += 1

    def take(self) -> float:
        ms, self._since = self._since, 0.0
        return ms


# ----------------------------------------------------------------------------------------------
# The start-up frames.


def progress_lines(loader: Any, start: str) -> tuple[list[str], float | None]:
    """What the start-up frame says, and its bar's fraction (None: no bar yet)."""
    p = loader.progress()
    seconds = f"{p.seconds:.0f} s"
    key = p.jobs[0] if p.jobs else f"scene:{start}"
    if p.cold is None:
        return ["polycolly", "Starting: importing the engine..."], None
    if p.cold and key not in p.compiled_jobs:
        typical = TYPICAL_FIRST_SCENE_KERNELS[2 if warmup_lanes.usable_cores() >= 2 else 1]
        fraction = min(p.compiled / max(typical, p.compiled + 1), 0.99)
        now = f"now: {p.compiling}" if p.compiling else "starting the compiler..."
        return [
            "polycolly: first run",
            "Compiling the collision engine's kernels with numba. This happens once: later runs",
            "load them from numba's cache and start at once.",
            f"{p.compiled} kernels compiled in {seconds}; {now}",
            f"The scene ({start}) starts as soon as the kernels it needs are ready.",
            "Esc quits.",
        ], fraction
    if p.failure:
        return ["polycolly", f"{p.failure}; compiling in the program instead ({seconds})", "Esc quits."], None
    return ["polycolly", f"Loading the engine's kernels from numba's cache ({seconds})..."], 1.0


def run_window(args: argparse.Namespace, out: Any = sys.stdout) -> int:
    """The interactive program in a window; returns the exit status."""
    from demo import context  # noqa: PLC0415 - chooses PyOpenGL's platform before it is imported

    width, height = args.size
    ctx = context.open_context(False, width, height, title="polycolly")
    loader = None
    try:
        from demo.draw.hud import layout_progress  # noqa: PLC0415 - after the context (OpenGL)
        from demo.draw.render import Renderer  # noqa: PLC0415
        from demo.loading import Loader  # noqa: PLC0415

        renderer = Renderer(text_scale=context.text_scale(ctx))
        first_frame_s = None

        def show(lines: list[str], fraction: float | None) -> None:
            fb_w, fb_h = ctx.framebuffer_size()
            if fb_w > 0 and fb_h > 0:
                text = layout_progress(renderer.text, lines, fraction, fb_w, fb_h, renderer.text_scale)
                renderer.draw_text_only(ctx.framebuffer, fb_w, fb_h, text)
            ctx.swap()

        show(["polycolly", "Starting..."], None)
        first_frame_s = seconds_since_start()
        frames = 1
        loader = Loader(args.scene, args.seed, args.bodies, args.solver, interpret=True)
        loader.start()
        renderer.prime(ctx.framebuffer, *ctx.framebuffer_size())
        atlas = renderer.text.atlas
        needs = _first_needs(args)
        build = partial(_build_first, args, atlas)
        interpreted = not catalog.is_scene_file(catalog.resolve(args.scene))
        ticket = loader.submit("the first scene", build, needs=needs, interpreted=interpreted)
        next_frame = time.perf_counter()
        # A first run shows a small scene as soon as it is built (interpreted); a large one
        # waits for its kernels.
        while not ticket.done or (ticket.error is None and not loader.shows_now(ticket.result.world, needs)):
            show(*progress_lines(loader, args.scene))
            frames += 1
            next_frame = max(next_frame + 1.0 / STARTUP_FRAME_RATE, time.perf_counter())
            if _quit_asked(ctx, next_frame):
                return 0
        if ticket.error is not None:
            raise ticket.error
        loader.use_compiled(needs)
        return _run_frames(
            args,
            ctx,
            out,
            renderer=renderer,
            loader=loader,
            scene=ticket.result,
            startup=(first_frame_s, frames),
        )
    finally:
        if loader is not None:
            loader.close()
        ctx.close()
        global WINDOW_CLOSED
        WINDOW_CLOSED = True


def _quit_asked(ctx: Any, until: float) -> bool:
    """Wait for the window's events until ``until`` (time.perf_counter() seconds); whether the
    user closed the window or pressed Esc meanwhile (answered as the key comes, not at the
    next start-up frame)."""
    while not (ctx.should_close() or ctx.key_down("ESCAPE")):
        left = until - time.perf_counter()
        if left <= 0.0:
            return False
        ctx.wait_events(left)
    return True


def _first_needs(args: argparse.Namespace) -> tuple[str, ...]:
    target = catalog.resolve(args.scene)
    needs = () if catalog.is_scene_file(target) else (f"scene:{target}",)
    return needs + ((f"solver:{args.solver}",) if args.solver else ())


def _build_first(args: argparse.Namespace, atlas: Any) -> Any:
    """The first scene, and the kerning of its text measured into ``atlas`` (a GlyphAtlas)."""
    from demo import readout, scenes  # noqa: PLC0415 - on the loader's worker thread

    scene = scenes.build_scene(args.scene, args.seed, args.bodies)
    atlas.learn_kerning(readout.scene_texts(scene))
    return scene


# ----------------------------------------------------------------------------------------------
# Frames.


def run_offscreen(args: argparse.Namespace, out: Any = sys.stdout) -> int:
    """``--headless``: frames of HEADLESS_FRAME_S drawn offscreen, in order; the exit status."""
    from demo import context  # noqa: PLC0415

    width, height = args.size
    ctx = context.open_context(True, width, height, title="polycolly")
    try:
        return _run_frames(args, ctx, out)
    finally:
        ctx.close()


def _run_frames(
    args: argparse.Namespace,
    ctx: Any,
    out: Any,
    renderer: Any = None,
    loader: Any = None,
    scene: Any = None,
    startup: tuple[float | None, int] = (None, 0),
) -> int:
    from demo import loading  # noqa: PLC0415
    from demo.app import App  # noqa: PLC0415 - after the context chose PyOpenGL's platform

    recording = getattr(args, "recording", None)
    frames = args.frames
    if recording is not None:
        frames = len(recording["frames"])
    if ctx.kind != "window" and frames is None:
        frames = DEFAULT_HEADLESS_FRAMES
    kwargs: dict[str, Any] = {"renderer": renderer, "loader": loader}
    if args.screenshot_dir is not None:
        kwargs["screenshot_dir"] = args.screenshot_dir
    app = App(ctx, scene if scene is not None else args.scene, args.seed, args.bodies, args.solver, **kwargs)
    if ctx.is_window:
        from demo.window import connect_window  # noqa: PLC0415 - only with a window

        connect_window(app, ctx.window)
        app.skip_unchanged = args.screenshot is None  # a screenshot reads the frame it draws
    if recording is not None:
        app.replay = deque(recording["frames"])
    if args.record is not None:
        app.recording = []
    draw_calls: list[int] = []
    # Whole frames (input, physics, drawing and the swap), the swap alone, and the time from one
    # frame's start to the next (what a user sees: it includes the pacing sleep).
    loop_ms: list[float] = []
    swap_ms: list[float] = []
    interval_ms: list[float] = []
    first_scene_s = None
    compiled_s = None  # when the compiled engine took over from the interpreted one
    interpreted_frames = 0  # frames whose physics ran interpreted (a first run)
    # (frame ms, the scene and what happened in the frame, where its time went in ms)
    slow: list[tuple[float, str, dict[str, float]]] = []
    pauses = CollectorPauses()
    shown: list[tuple[int, str]] = []  # (frame, scene) each time another scene is on screen
    saved = False
    pacer = Pacer(ctx.refresh_rate(FRAME_RATE_CAP)) if ctx.is_window else None
    budget = IdleBudget(idle_share(), pacer.period, 1.0 / IDLE_MIN_RATE) if pacer is not None else None
    idle_frames = 0  # frames of a scene left alone paced below the full rate
    previous_start = None
    pauses.start()
    while app.running and (frames is None or app.frame_count < frames):
        t_loop = time.perf_counter()
        if previous_start is not None:
            interval_ms.append((t_loop - previous_start) * 1000.0)
        previous_start = t_loop
        if ctx.is_window:
            ctx.poll()
            if ctx.should_close():
                break
            app.frame()
        else:
            app.frame(HEADLESS_FRAME_S)
        if args.screenshot is not None and frames is not None and app.frame_count >= frames and app.drawn:
            # Read the last frame before the swap: a window's back buffer is undefined after it.
            app.save_screenshot(args.screenshot)
            saved = True
        t_swap = time.perf_counter()
        if app.drawn:
            ctx.swap()
        t_end = time.perf_counter()
        if app.drawn:
            swap_ms.append((t_end - t_swap) * 1000.0)
            draw_calls.append(app.renderer.draw_calls)
        loop_ms.append((t_end - t_loop) * 1000.0)
        what = ",".join(app.frame_actions) or (f"building {app.pending_name}" if app.pending else "")
        parts = {
            "physics": app.profile["physics_ms"][-1],
            "draw": app.profile["draw_ms"][-1],
            "swap": (t_end - t_swap) * 1000.0,
            "gc": pauses.take(),
        }
        slow.append((loop_ms[-1], f"{app.scene.name} (frame {app.frame_count}): {what}", parts))
        if not shown or shown[-1][1] != app.scene.name or "shown" in app.frame_actions:
            shown.append((app.frame_count, app.scene.name))
            if args.profile:  # for a harness: each scene as it comes on screen
                print(
                    json.dumps({"scene_shown": app.scene.name, "frame": app.frame_count}),
                    file=out,
                    flush=True,
                )
        if first_scene_s is None:
            first_scene_s = seconds_since_start()
            if args.profile:  # for a harness watching the start-up: the scene is on screen
                print(json.dumps({"scene_on_screen_s": round(first_scene_s, 3)}), file=out, flush=True)
        interpreted = loading.interpreted()
        interpreted_frames += interpreted
        if compiled_s is None and not interpreted:
            compiled_s = seconds_since_start()
            if args.profile:  # the frames run on the compiled engine from here on
                print(json.dumps({"compiled_s": round(compiled_s, 3)}), file=out, flush=True)
        if pacer is not None and budget is not None and app.running:
            budget.frame_done(time.process_time())
            period = budget.period() if app.seconds_without_input() > IDLE_AFTER_S else None
            idle_frames += period is not None and period > pacer.period
            pacer.wait(ctx, period)
    pauses.stop()
    if args.screenshot is not None and not saved:
        app.draw()  # the window closed early: draw the final state and save it
        app.save_screenshot(args.screenshot)
    if args.record is not None:
        save_recording(args, app)
    if recording is not None:
        status = check_replay(args.replay, recording, app)
        if status:
            return status
    if args.profile:
        first_frame_s = startup[0] if startup[0] is not None else first_scene_s
        report: dict[str, Any] = {
            "scene": app.scene.name,
            "solver": app.world.solver,
            "bodies": app.world.body_count,
            "frames": app.frame_count,
            "size": "x".join(str(v) for v in args.size),
            "backend": ctx.kind,
            "startup_s": round(first_frame_s, 3) if first_frame_s is not None else None,
            "scene_s": round(first_scene_s, 3) if first_scene_s is not None else None,
            "compiled_s": round(compiled_s, 3) if compiled_s is not None else None,
            "interpreted_frames": interpreted_frames,
            # Frames of a scene left alone paced below the full rate (IdleBudget), and the
            # processor time a frame took lately (ms, all threads).
            "idle_frames": idle_frames,
            "frame_cpu_ms": round(budget.cost * 1000.0, 2) if budget is not None else None,
            "software_rasteriser": app.renderer.software,
            # Frames drawn before the scene: the start-up panel kept being drawn meanwhile.
            "startup_frames": startup[1],
            "kernels_compiled": loader.progress().compiled if loader is not None else None,
            # The warm-up's jobs this process loaded, and why the warm-up failed if it did.
            "jobs_loaded": sorted(loader.progress().loaded_jobs) if loader is not None else None,
            "warmup_failure": loader.progress().failure if loader is not None else None,
            "kernels_compiled_in_program": (
                loader.compiled_here.names
                if loader is not None and loader.compiled_here is not None
                else None
            ),
            "frame_ms_median": median(loop_ms),
            # The longest frame after the first (the first may build GL objects), and the
            # longest wait between two frames a user could see.
            "frame_ms_max": round(max(loop_ms[1:]), 3) if len(loop_ms) > 1 else None,
            "frame_interval_ms_max": round(max(interval_ms[1:]), 3) if len(interval_ms) > 1 else None,
            "frame_work_ms_median": median(app.profile["frame_ms"]),
            "swap_ms_median": median(swap_ms),
            "physics_ms_median": median(app.profile["physics_ms"]),
            "draw_ms_median": median(app.profile["draw_ms"]),
            "draw_cpu_ms_median": median(app.profile["draw_cpu_ms"]),
            "draw_build_ms_median": median(app.profile["draw_build_ms"]),
            "draw_gl_ms_median": median(app.profile["draw_gl_ms"]),
            "step_ms_median": median(list(app.step_ms)),
            "draw_calls_per_frame": max(draw_calls) if draw_calls else 0,
            # Each with where its time went (physics, drawing, the swap, the garbage collector).
            "slowest_frames": [
                [round(ms, 1), what, {k: round(v, 1) for k, v in parts.items()}]
                for ms, what, parts in sorted(slow[1:], key=lambda entry: entry[0], reverse=True)[:8]
            ],
            "scenes_shown": shown,
            "gc_ms_max": round(pauses.longest, 1),
            "gc_count": pauses.count,
            "cpu_s": round(time.process_time(), 3),
        }
        print(json.dumps(report), file=out, flush=True)
    return 0


def save_recording(args: argparse.Namespace, app: Any) -> None:
    record = {
        "version": recording_file.RECORDING_VERSION,
        "scene": args.scene,
        "seed": args.seed,
        "bodies": args.bodies,
        "solver": args.solver,
        "size": list(args.size),
        "final_state_hash": app.world.state_hash(),
        "final_step_count": int(app.world.step_count),
        "final_solver": app.world.solver,
        "frames": app.recording,
    }
    replaced = recording_file.write_recording(args.record, record)
    tail = " (replaced the file that was there)" if replaced else ""
    print(f"recorded {len(app.recording)} frames to {args.record}{tail}", file=sys.stderr, flush=True)


def check_replay(path: Any, recording: dict[str, Any], app: Any) -> int:
    got, steps = app.world.state_hash(), int(app.world.step_count)
    want, want_steps = recording["final_state_hash"], recording["final_step_count"]
    if got != want or steps != want_steps:
        print(
            f"python -m demo: replay of {path} diverged: it ended in state {got[:16]} after {steps} steps, "
            f"the recording ended in state {want[:16]} after {want_steps} steps",
            file=sys.stderr,
            flush=True,
        )
        return 1
    print(f"replay of {path} matches: state {got[:16]} after {steps} steps", file=sys.stderr, flush=True)
    return 0
