"""The command line: ``python -m demo [options]`` and ``python -m demo bench ...``.

Errors a user can act on (a bad option, an option that does not apply, an unknown scene, no
display, no OpenGL 3.3, a shader that does not compile) print one message and exit with a
non-zero status, never a traceback. Nothing slow is imported before the arguments are checked
(a scene's name is checked against demo.catalog, which does not import the engine).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from demo import catalog, options, recording, run, safeio

#: Exit status for a usage error (argparse's convention) and for a runtime failure.
EXIT_USAGE, EXIT_FAILURE = 2, 1
DEFAULT_SIZE = (960, 720)
DEFAULT_SCENE = "rigid"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse quotes what was typed in full (an invalid choice): keep the line short.
        self.exit(EXIT_USAGE, safeio.one_line(f"python -m demo: error: {message} (see --help)") + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m demo",
        description="polycolly: Olivier Renault's PolyColly rigid-body demo, on the collision engine. "
        "'python -m demo bench ...' runs the benchmarks.",
    )
    parser.add_argument(
        "--scene",
        help="scene to show: a name (see --list-scenes; default rigid), an example scene file's name "
        "(carousel) or a scene file's path (NAME.json)",
    )
    parser.add_argument(
        "--seed", type=options.seed, help="random seed of a scene built at random (default 0)"
    )
    parser.add_argument(
        "--bodies",
        type=options.bodies,
        help="number of bodies, for rigid, pile and tumbler (default: the scene's)",
    )
    parser.add_argument(
        "--size",
        type=options.window_size,
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
        type=options.frames,
        help=f"draw this many frames, then exit (headless default {run.DEFAULT_HEADLESS_FRAMES})",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PATH",
        help="save the last frame as a picture (PNG, or the format of PATH's suffix; replaces PATH "
        "if it exists)",
    )
    parser.add_argument(
        "--screenshot-dir",
        type=Path,
        metavar="DIR",
        help="where F2 saves screenshots (default ~/Pictures/polycolly)",
    )
    parser.add_argument("--profile", action="store_true", help="print timings as one JSON object at exit")
    parser.add_argument("--list-scenes", action="store_true", help="print the scenes and exit")
    replay = parser.add_mutually_exclusive_group()
    replay.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="record the input of every frame to FILE (JSON, with the final state hash; replaces FILE "
        "if it exists)",
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
    parser.add_argument("--steps", type=options.steps, help="with --stats: physics steps to run")
    parser.add_argument(
        "--stats",
        action="store_true",
        help="run --steps physics steps without drawing and print one JSON object",
    )
    return parser


def _fail(message: str, status: int = EXIT_FAILURE) -> int:
    print(safeio.one_line(f"python -m demo: {message}"), file=sys.stderr, flush=True)
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
            "compiling the collision engine with numba (first run only: one to three minutes on a "
            "2-core machine; later runs load it from the cache in about a second)...",
            file=sys.stderr,
            flush=True,
        )


def _load_recording(path: Path) -> dict[str, Any]:
    """A --record file, checked; ValueError (exit status 2) naming the file, the field and the problem."""
    return recording.load_recording(path)


def _check_output(option: str, path: Path | None) -> str | None:
    """Why ``path`` cannot be written (checked before a long run, not after it), or None."""
    if path is None:
        return None
    problem = safeio.check_writable(path)
    if problem is None and option == "--screenshot" and safeio.picture_format(path) is None:
        problem = (
            f"expected a picture file name (.png, .jpg, ...), got the suffix {safeio.shorten(path.suffix)}"
        )
    return None if problem is None else f"{option} {safeio.short_path(path)}: {problem}"


#: Options that only make sense when frames are drawn (refused with --stats).
_DRAWING_OPTIONS = ("size", "frames", "screenshot", "screenshot_dir", "profile", "record", "replay")
#: Options --replay takes from the recording (refused beside it).
_RECORDED_OPTIONS = ("scene", "seed", "bodies", "solver", "size")
#: Options of the two listing modes (nothing else applies to them).
_LISTINGS = ("list_scenes", "controls_markdown")


def _given(args: argparse.Namespace, name: str) -> bool:
    value = getattr(args, name)
    return value not in (None, False)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _not_applying(args: argparse.Namespace) -> str | None:
    """Why an option given cannot do what it says with the others, or None."""
    given = [name for name in vars(args) if _given(args, name)]
    for listing in _LISTINGS:
        if _given(args, listing) and len(given) > 1:
            others = ", ".join(_flag(n) for n in given if n != listing)
            return f"{_flag(listing)} prints and exits: {others} would do nothing"
    if args.steps is not None and not args.stats:
        return "--steps counts the physics steps of --stats; without --stats it would do nothing"
    if args.stats:
        for name in _DRAWING_OPTIONS:
            if _given(args, name):
                return f"--stats draws nothing: {_flag(name)} would do nothing"
    if args.headless and args.screenshot_dir is not None:
        return "--screenshot-dir: F2 saves there, and F2 needs a window; with --headless use --screenshot"
    if args.replay is not None:
        for name in _RECORDED_OPTIONS:
            if _given(args, name):
                return (
                    f"--replay runs the recording's scene, seed, bodies, solver and size: drop {_flag(name)}"
                )
        return None
    name = args.scene or DEFAULT_SCENE
    info = catalog.BY_NAME.get(catalog.resolve(name))
    if info is None:
        if args.seed is not None:
            return f"--seed: a scene file ({name}) is not built at random; the seed would do nothing"
        if args.bodies is not None:
            return f"--bodies: a scene file ({name}) has the bodies it lists"
        return None
    if args.seed is not None and not info.random:
        return f"--seed: scene {info.name} is not built at random; the seed would do nothing"
    if args.bodies is not None and not info.counted:
        takers = ", ".join(i.name for i in catalog.CATALOG if i.counted)
        return f"--bodies: scene {info.name} has a fixed number of bodies (--bodies applies to {takers})"
    if args.solver is not None and not info.solved:
        return f"--solver: scene {info.name} has no moving bodies, so no collision response to choose"
    return None


def _run_stats(args: argparse.Namespace) -> int:
    from demo import scenes  # noqa: PLC0415 - the engine, once the arguments are good

    if args.steps is None:
        return _fail("--stats needs --steps N", EXIT_USAGE)
    _say_compiling()
    scene = scenes.build_scene(args.scene, args.seed, args.bodies)
    if args.solver:
        scene.world.solver = args.solver
    print(json.dumps(scenes.run_stats(scene, args.steps)), flush=True)
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
    problem = _not_applying(args)
    if problem is not None:
        return _fail(problem, EXIT_USAGE)
    if args.list_scenes:
        for name, description in ((i.name, i.description) for i in catalog.CATALOG):
            print(f"{name:12s} {description}")
        examples = ", ".join(catalog.example_stems())
        if examples:
            print(f"example scene files (--scene NAME): {examples}")
        return 0
    if args.controls_markdown:
        from demo import scenes  # noqa: PLC0415 - the table builds every scene

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
    args.scene = args.scene or DEFAULT_SCENE
    args.seed = 0 if args.seed is None else args.seed
    args.size = args.size or DEFAULT_SIZE
    problem = _check_scene(args.scene) or _check_output("--screenshot", args.screenshot)
    problem = problem or _check_output("--record", args.record)
    if problem is not None:
        return _fail(problem, EXIT_USAGE)
    from demo.context import ContextError, NoDisplayError  # noqa: PLC0415

    try:
        if args.stats:
            return _run_stats(args)
        if args.headless:
            _say_compiling()
            return run.run_offscreen(args)
        return run.run_window(args)
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


def _check_scene(name: str) -> str | None:
    """None if ``name`` is a scene or a scene file that loads; else the message (a scene file is
    read here, which imports the engine; a name needs only the catalog)."""
    target = catalog.resolve(name)
    if catalog.is_scene_file(target):
        from demo import scenes  # noqa: PLC0415

        return scenes.check_scene_name(name)
    return None if target in catalog.BY_NAME else catalog.unknown_scene_message(name)


def _exit(status: int) -> None:
    """End the process. After a window, at once: everything is closed and written by now, and
    Python's own shutdown (the compiler's libraries' teardown) would keep a quit program
    around for most of a second."""
    if run.WINDOW_CLOSED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    _exit(main())
