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


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} must be 0 or more")
    return value


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
    """True when some compiled engine module has no numba cache yet (the first run compiles)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    package = Path(__file__).resolve().parent.parent / "collision"
    cache = package / "__pycache__"
    for source in package.glob("*.py"):
        try:
            if "@njit" not in source.read_text(encoding="utf-8"):
                continue
        except OSError:
            continue
        # numba recompiles when the source is newer than its cache index.
        indexes = [p.stat().st_mtime for p in cache.glob(f"{source.stem}.*.nbi")]
        if not indexes or max(indexes) < source.stat().st_mtime:
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


def _run_program(args: argparse.Namespace) -> int:
    from demo import context  # noqa: PLC0415

    width, height = args.size
    frames = args.frames
    if args.headless and frames is None:
        frames = DEFAULT_HEADLESS_FRAMES
    _say_compiling()
    ctx = context.open_context(args.headless, width, height, title="polycolly")
    try:
        from demo.app import App, connect_window  # noqa: PLC0415 - after the context chose PyOpenGL's platform

        app = App(ctx, args.scene, args.seed, args.bodies, args.solver)
        if ctx.is_window:
            connect_window(app, ctx.window)  # type: ignore[attr-defined]
        startup_s = None
        draw_calls: list[int] = []
        saved = False
        while app.running and (frames is None or app.frame_count < frames):
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
            ctx.swap()
            draw_calls.append(app.renderer.draw_calls)
            if startup_s is None:
                startup_s = _seconds_since_start()
        if args.screenshot is not None and not saved:
            app.draw()  # the window closed early: draw the final state and save it
            app.save_screenshot(args.screenshot)
        if args.profile:
            report: dict[str, Any] = {
                "scene": app.scene.name,
                "solver": app.world.solver,
                "bodies": app.world.body_count,
                "frames": app.frame_count,
                "size": f"{width}x{height}",
                "backend": ctx.kind,
                "startup_s": round(startup_s, 3) if startup_s is not None else None,
                "frame_ms_median": _median(app.profile["frame_ms"]),
                "physics_ms_median": _median(app.profile["physics_ms"]),
                "draw_ms_median": _median(app.profile["draw_ms"]),
                "draw_build_ms_median": _median(app.profile["draw_build_ms"]),
                "draw_gl_ms_median": _median(app.profile["draw_gl_ms"]),
                "step_ms_median": _median(list(app.step_ms)),
                "draw_calls_per_frame": max(draw_calls) if draw_calls else 0,
            }
            print(json.dumps(report), flush=True)
    finally:
        ctx.close()
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
        from demo.controls import controls_markdown  # noqa: PLC0415

        sys.stdout.write(controls_markdown())
        return 0
    from demo import scenes  # noqa: PLC0415

    if args.list_scenes:
        for name, description in scenes.describe():
            print(f"{name:12s} {description}")
        return 0
    if args.scene not in scenes.scene_names():
        return _fail(
            f"unknown scene {args.scene!r}; valid scenes: {', '.join(scenes.scene_names())}", EXIT_USAGE
        )
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
