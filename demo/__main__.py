"""The command line: ``python -m demo [options]`` and ``python -m demo bench ...``.

Errors a user can act on (a bad option, an unknown scene, no display, no OpenGL 3.3, a shader
that does not compile) print one message and exit with a non-zero status, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, NoReturn

#: Exit status for a usage error (argparse's convention) and for a runtime failure.
EXIT_USAGE, EXIT_FAILURE = 2, 1
#: The simulated time of one headless frame (s): headless runs are reproducible.
HEADLESS_FRAME_S = 1.0 / 60.0
DEFAULT_SIZE = (960, 720)
DEFAULT_HEADLESS_FRAMES = 120


def _seconds_since_start() -> float:
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


_IMPORTED_AT = time.monotonic()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"python -m demo: error: {message} (see --help)\n")


def _whole_number(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{value} must be at least {minimum}")
    return value


def _positive_int(text: str) -> int:
    return _whole_number(text, 1)


def _seed(text: str) -> int:
    return _whole_number(text, 0)


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT (for example 960x720)") from None
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        raise argparse.ArgumentTypeError(f"{text!r}: width and height must be within 16..8192 pixels")
    return width, height


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m demo",
        description="polycolly: Olivier Renault's PolyColly rigid-body demo, on the collision engine. "
        "'python -m demo bench ...' runs the benchmarks.",
    )
    parser.add_argument("--scene", default="rigid", help="scene to show (see --list-scenes; default rigid)")
    parser.add_argument("--seed", type=_seed, default=0, help="random seed of the scene (default 0)")
    parser.add_argument(
        "--bodies", type=_positive_int, help="number of bodies (scene's default if not given)"
    )
    parser.add_argument(
        "--size",
        type=_size,
        default=DEFAULT_SIZE,
        metavar="WxH",
        help="window or offscreen size in pixels (default 960x720)",
    )
    parser.add_argument(
        "--solver",
        choices=("tutorial", "iterative", "arcade"),
        help="collision response (default: the scene's)",
    )
    parser.add_argument(
        "--headless", action="store_true", help="draw offscreen (EGL or OSMesa): no display needed"
    )
    parser.add_argument(
        "--frames",
        type=_positive_int,
        help=f"draw this many frames, then exit (headless default {DEFAULT_HEADLESS_FRAMES})",
    )
    parser.add_argument("--screenshot", type=Path, metavar="PATH", help="save the last frame as a PNG")
    parser.add_argument("--profile", action="store_true", help="print timings as one JSON object at exit")
    parser.add_argument("--list-scenes", action="store_true", help="print the scenes and exit")
    replay = parser.add_mutually_exclusive_group()
    replay.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="record the input of every frame to FILE (JSON, with the final state hash)",
    )
    replay.add_argument(
        "--replay",
        type=Path,
        metavar="FILE",
        help="play a --record file back (its scene, seed, bodies, solver, size); exit 1 if the "
        "final state differs from the recorded one",
    )
    parser.add_argument(
        "--controls-markdown", action="store_true", help="print the controls table (markdown)"
    )
    parser.add_argument("--steps", type=_positive_int, help="with --stats: physics steps to run")
    parser.add_argument(
        "--stats",
        action="store_true",
        help="run --steps physics steps without drawing and print one JSON object",
    )
    return parser


def _fail(message: str, status: int = EXIT_FAILURE) -> int:
    print(f"python -m demo: {message}", file=sys.stderr, flush=True)
    return status


def _engine_cache_cold() -> bool:
    """True when the compiled engine has no numba cache yet, or a module changed since its cache.

    A module without any cache index while others have one is not counted: its kernels were
    never called (numba writes a cache on first use), so the program will not wait for them.
    """
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    from collision import kernel_cache  # noqa: PLC0415 - importing the engine picks the cache folder

    package = kernel_cache.PACKAGE
    if not any(kernel_cache.folder(package).glob("*.nbi")):
        return True
    for source in package.rglob("*.py"):
        # numba recompiles when the source is newer than its cache index (one folder per package).
        cache = kernel_cache.folder(source.parent)
        indexes = [p.stat().st_mtime for p in cache.glob(f"{source.stem}.*.nbi")]
        if indexes and max(indexes) < source.stat().st_mtime:
            return True
    return False


def _say_compiling() -> None:
    if _engine_cache_cold():
        print(
            "compiling the collision engine with numba (first run only, a few seconds)...",
            file=sys.stderr,
            flush=True,
        )


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    value = ordered[mid] if len(ordered) % 2 else 0.5 * (ordered[mid - 1] + ordered[mid])
    return round(value, 4)


def _run_stats(args: argparse.Namespace) -> int:
    from demo import scenes  # noqa: PLC0415

    if args.steps is None:
        return _fail("--stats needs --steps N", EXIT_USAGE)
    _say_compiling()
    scene = scenes.build_scene(args.scene, args.seed, args.bodies)
    if args.solver:
        scene.world.solver = args.solver
    print(json.dumps(scenes.run_stats(scene, args.steps)), flush=True)
    return 0


RECORDING_VERSION = 1


def _load_recording(path: Path) -> dict[str, Any]:
    """A --record file, checked; ValueError (exit status 2) naming the file and the problem."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"--replay {path}: cannot read it ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"--replay {path}: not a JSON recording ({exc})") from None
    if not isinstance(data, dict) or data.get("version") != RECORDING_VERSION:
        raise ValueError(f"--replay {path}: not a version {RECORDING_VERSION} recording of python -m demo")
    checks = {
        "scene": lambda v: isinstance(v, str),
        "seed": lambda v: isinstance(v, int) and v >= 0,
        "bodies": lambda v: v is None or (isinstance(v, int) and v >= 1),
        "solver": lambda v: v is None or v in ("tutorial", "iterative", "arcade"),
        "size": lambda v: (
            isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and 16 <= x <= 8192 for x in v)
        ),
        "frames": lambda v: (
            isinstance(v, list)
            and all(
                isinstance(f, dict)
                and isinstance(f.get("dt"), int | float)
                and isinstance(f.get("events"), list)
                and isinstance(f.get("cursor"), list)
                and len(f["cursor"]) == 2
                and all(isinstance(c, int | float) and abs(c) < 1e12 for c in f["cursor"])
                and all(
                    isinstance(e, list) and e and e[0] in ("input", "cursor", "scroll") for e in f["events"]
                )
                for f in v
            )
        ),
        "final_state_hash": lambda v: isinstance(v, str),
        "final_step_count": lambda v: isinstance(v, int),
    }
    for key, ok in checks.items():
        if key not in data or not ok(data[key]):
            raise ValueError(f"--replay {path}: field {key!r} is missing or malformed")
    if not data["frames"]:
        raise ValueError(f"--replay {path}: the recording has no frames")
    return data


def _check_output(option: str, path: Path | None) -> str | None:
    """Why ``path`` cannot be written (checked before a long run, not after it), or None."""
    if path is None:
        return None
    if path.is_dir():
        return f"{option} {path}: is a folder, not a file"
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the first existing ancestor: the missing folders get created
    if not folder.is_dir():
        return f"{option} {path}: {folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{option} {path}: cannot write into {folder}"
    return None


def _run_program(args: argparse.Namespace) -> int:
    from demo import context  # noqa: PLC0415

    recording = getattr(args, "recording", None)
    width, height = args.size
    frames = args.frames
    if recording is not None:
        frames = len(recording["frames"])
    if args.headless and frames is None:
        frames = DEFAULT_HEADLESS_FRAMES
    _say_compiling()
    ctx = context.open_context(args.headless, width, height, title="polycolly")
    try:
        from demo.app import App  # noqa: PLC0415 - after the context chose PyOpenGL's platform

        app = App(ctx, args.scene, args.seed, args.bodies, args.solver)
        if ctx.is_window:
            from demo.window import connect_window  # noqa: PLC0415 - only with a window

            connect_window(app, ctx.window)  # type: ignore[attr-defined]
        if recording is not None:
            app.replay = deque(recording["frames"])
        if args.record is not None:
            app.recording = []
        startup_s = None
        draw_calls: list[int] = []
        # Whole frames (input, physics, drawing and the swap) and the swap alone: offscreen the
        # swap waits for the rasteriser to finish the frame, with a window also for the monitor.
        loop_ms: list[float] = []
        swap_ms: list[float] = []
        saved = False
        while app.running and (frames is None or app.frame_count < frames):
            t_loop = time.perf_counter()
            if ctx.is_window:
                ctx.poll()
                if ctx.should_close():
                    break
                app.frame()
            else:
                app.frame(HEADLESS_FRAME_S)
            if args.screenshot is not None and frames is not None and app.frame_count >= frames:
                # Read the last frame before the swap: a window's back buffer is undefined after it.
                app.save_screenshot(args.screenshot)
                saved = True
            t_swap = time.perf_counter()
            ctx.swap()
            t_end = time.perf_counter()
            swap_ms.append((t_end - t_swap) * 1000.0)
            loop_ms.append((t_end - t_loop) * 1000.0)
            draw_calls.append(app.renderer.draw_calls)
            if startup_s is None:
                startup_s = _seconds_since_start()
        if args.screenshot is not None and not saved:
            app.draw()  # the window closed early: draw the final state and save it
            app.save_screenshot(args.screenshot)
        if args.record is not None:
            _save_recording(args, app)
        if recording is not None:
            status = _check_replay(args.replay, recording, app)
            if status:
                return status
        if args.profile:
            report: dict[str, Any] = {
                "scene": app.scene.name,
                "solver": app.world.solver,
                "bodies": app.world.body_count,
                "frames": app.frame_count,
                "size": f"{width}x{height}",
                "backend": ctx.kind,
                "startup_s": round(startup_s, 3) if startup_s is not None else None,
                "frame_ms_median": _median(loop_ms),
                "frame_work_ms_median": _median(app.profile["frame_ms"]),
                "swap_ms_median": _median(swap_ms),
                "physics_ms_median": _median(app.profile["physics_ms"]),
                "draw_ms_median": _median(app.profile["draw_ms"]),
                "draw_cpu_ms_median": _median(app.profile["draw_cpu_ms"]),
                "draw_build_ms_median": _median(app.profile["draw_build_ms"]),
                "draw_gl_ms_median": _median(app.profile["draw_gl_ms"]),
                "step_ms_median": _median(list(app.step_ms)),
                "draw_calls_per_frame": max(draw_calls) if draw_calls else 0,
            }
            print(json.dumps(report), flush=True)
    finally:
        ctx.close()
    return 0


def _save_recording(args: argparse.Namespace, app: Any) -> None:
    record = {
        "version": RECORDING_VERSION,
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
    try:
        args.record.write_text(json.dumps(record), encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"--record {args.record}: cannot write it ({exc.strerror or exc})") from None
    print(f"recorded {len(app.recording)} frames to {args.record}", file=sys.stderr, flush=True)


def _check_replay(path: Path, recording: dict[str, Any], app: Any) -> int:
    got, steps = app.world.state_hash(), int(app.world.step_count)
    want, want_steps = recording["final_state_hash"], recording["final_step_count"]
    if got != want or steps != want_steps:
        return _fail(
            f"replay of {path} diverged: it ended in state {got[:16]} after {steps} steps, "
            f"the recording ended in state {want[:16]} after {want_steps} steps"
        )
    print(f"replay of {path} matches: state {got[:16]} after {steps} steps", file=sys.stderr, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        try:
            from demo import bench  # noqa: PLC0415
        except ImportError:
            return _fail("the benchmarks (demo/bench.py) are not available", EXIT_FAILURE)
        return int(bench.main(argv[1:]) or 0)
    args = build_parser().parse_args(argv)
    if args.controls_markdown:
        from demo import scenes  # noqa: PLC0415

        sys.stdout.write(scenes.controls_markdown())
        return 0
    if args.replay is not None:
        try:
            args.recording = _load_recording(args.replay)
        except ValueError as exc:
            return _fail(str(exc), EXIT_USAGE)
        rec = args.recording
        args.scene, args.seed, args.bodies, args.solver = (
            rec["scene"],
            rec["seed"],
            rec["bodies"],
            rec["solver"],
        )
        args.size = tuple(rec["size"])
    from demo import scenes  # noqa: PLC0415

    if args.list_scenes:
        for name, description in scenes.describe():
            print(f"{name:12s} {description}")
        return 0
    problem = scenes.check_scene_name(args.scene)  # a name, or a JSON scene file that must load
    problem = (
        problem or _check_output("--screenshot", args.screenshot) or _check_output("--record", args.record)
    )
    if problem is not None:
        return _fail(problem, EXIT_USAGE)
    from demo.context import ContextError, NoDisplayError  # noqa: PLC0415

    try:
        if args.stats:
            return _run_stats(args)
        return _run_program(args)
    except NoDisplayError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except ContextError as exc:
        return _fail(str(exc))
    except ValueError as exc:  # a scene refusing its arguments (for example too many bodies)
        return _fail(str(exc), EXIT_USAGE)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if type(exc).__name__ == "ShaderError":
            return _fail(str(exc))
        raise


if __name__ == "__main__":
    sys.exit(main())
