"""The ``python -m demo bench`` command line.

- ``python -m demo bench [SCENE ...] [--json] [--steps N] [--profile]``: our benchmark scenes in
  our world, ms/step (median, p95) and how each ended; ``--profile`` adds the time per stage of
  the step (``World.profile``), also with ``--vs``.
- ``--vs box2d|pymunk|all [SCENE ...] [--rounds N] [--threads N] [--json]``: the same scenes
  in ours and the other engines, each in its own process, alternating, ratios per round and
  their median (SCENE from pyramid, pile, pile8000, bullet; default all). Big scenes
  (collision.threads.THREADED_BODIES rows or more: pile8000) run ours on every core numba
  sees, or on ``--threads N``; the other engines on one.
- ``--busy N`` (with ``--vs``): N more processes keep a core each busy while the engines run.
- ``--scale [--vs ...] [--rounds N] [--json]``: the pile at 250 ... 8000 bodies and the pyramid
  at 10 ... 60 rows; ratios and fitted exponents.
- ``--physics [--case NAME ...] [--json]``: the exact physics cases in ours (each solver), Box2D
  v3 and pymunk beside the expected values.
- ``--compile [--lanes 1|2] [--rounds N] [--json]``: the cold start, each round with an empty
  numba cache: seconds to the default scene's first step, each kernel's compile time; with
  ``--lanes 2`` (the default on two cores or more, as the program's warm-up does) the step's
  parts compile in two processes at once before the step.
- ``--program [--cold] [--rounds N] [--json]``: the program in a real window (Xvfb, xdotool):
  time to the progress frame and to the scene, frame_ms_max through `m` x3 and Tab through
  every scene, 5 s idle CPU, Esc to exit (:mod:`demo.bench.program`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Sequence
from typing import NoReturn

from demo import options, safeio, warmup_lanes
from demo.bench import compile as cold
from demo.bench import engines, program, report, speed
from demo.bench.run import SCENES, describe, run_scene, warm_up

#: Most ``--rounds``: each round runs every scene in every engine, a minute or more; a hundred
#: rounds is already hours.
MAX_ROUNDS = 100


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse quotes what was typed in full (an invalid choice): keep the line short.
        self.print_usage(sys.stderr)
        self.exit(2, safeio.one_line(f"{self.prog}: error: {message}") + "\n")


def _rounds(text: str) -> int:
    """``--rounds``: 1..MAX_ROUNDS."""
    return options.whole_number(text, 1, MAX_ROUNDS)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m demo bench",
        description="Benchmarks and the physics comparison (see README's Speed section).",
    )
    parser.add_argument(
        "scenes",
        nargs="*",
        metavar="SCENE",
        help=f"scenes to run (default all): {', '.join(SCENES)}; with --vs also pile8000",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--steps", type=options.steps, help="override each scene's step count (ours alone)")
    parser.add_argument(
        "--vs",
        choices=sorted(speed.VS),
        help="compare with Box2D v3, pymunk or both, each in its own process",
    )
    parser.add_argument(
        "--scale", action="store_true", help="piles of 250..8000 bodies, pyramids of 10..60 rows"
    )
    parser.add_argument(
        "--rounds",
        type=_rounds,
        help=f"rounds of every engine (default 3 with --vs, 1 with --scale; at most {MAX_ROUNDS})",
    )
    parser.add_argument("--physics", action="store_true", help="the exact physics cases in every engine")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="our time per stage of the step (World.profile), alone or with --vs",
    )
    parser.add_argument(
        "--compile",
        action="store_true",
        help="the cold start: the default scene's first step with an empty numba cache",
    )
    parser.add_argument(
        "--program",
        action="store_true",
        help="the program in a window on Xvfb driven by xdotool: start-up, longest frame, idle CPU, Esc",
    )
    parser.add_argument("--cold", action="store_true", help="with --program: start with an empty numba cache")
    parser.add_argument(
        "--lanes",
        type=int,
        choices=(1, 2),
        default=None,
        help="with --compile: processes compiling the step's parts at once (default: 2 on two cores or more)",
    )
    parser.add_argument(
        "--case", action="append", default=[], metavar="NAME", help="with --physics: only this case"
    )
    parser.add_argument(
        "--threads",
        type=int,
        choices=range(1, 65),
        default=None,
        metavar="N",
        help="with --vs or --scale: threads our big scenes may use (NUMBA_NUM_THREADS in our process; "
        "default: every core numba sees); the other engines keep one",
    )
    parser.add_argument(
        "--busy",
        type=int,
        choices=range(0, 65),
        default=0,
        metavar="N",
        help="with --vs: N more processes keep a core each busy while the engines run (a shared machine)",
    )
    return parser


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.physics and (args.vs or args.scale or args.scenes or args.steps):
        parser.error("--physics runs the physics cases: it takes only --case and --json")
    if args.profile and (args.physics or args.scale):
        parser.error("--profile times our stages in our scenes or with --vs, not with --physics or --scale")
    if args.compile and (args.physics or args.vs or args.scale or args.scenes or args.steps or args.profile):
        parser.error(
            "--compile times the default scene's cold start: it takes only --lanes, --rounds and --json"
        )
    if args.lanes is not None and not args.compile:
        parser.error("--lanes needs --compile")
    if args.program and (
        args.physics or args.vs or args.scale or args.scenes or args.steps or args.profile or args.compile
    ):
        parser.error("--program runs the program in a window: it takes only --cold, --rounds and --json")
    if args.cold and not args.program:
        parser.error("--cold needs --program")
    if args.case and not args.physics:
        parser.error("--case NAME needs --physics")
    if (args.vs or args.scale) and args.steps is not None:
        parser.error("--steps applies to our scenes alone, not to --vs or --scale (their steps are fixed)")
    if args.scale and args.scenes:
        parser.error("--scale runs its own sizes of the pile and the pyramid: no SCENE arguments")
    allowed = speed.SPEED_SCENES if args.vs else SCENES
    for name in args.scenes:
        if name not in allowed:
            parser.error(f"scene {safeio.shorten(name)}: choose from {', '.join(allowed)}")
    if args.rounds is not None and not (args.vs or args.scale or args.compile or args.program):
        parser.error("--rounds needs --vs, --scale, --compile or --program")
    if args.threads is not None and not (args.vs or args.scale):
        parser.error("--threads needs --vs or --scale")
    if args.busy and (args.scale or not args.vs):
        parser.error("--busy needs --vs, and does not go with --scale")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m demo bench ...`` (see the module docstring); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    _check(parser, args)
    if args.physics:
        return report.main(args.case, args.json)
    if args.program:
        missing = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
        if missing:
            print(
                f"--program needs {' and '.join(missing)} (a virtual X server and its key sender)",
                file=sys.stderr,
            )
            return 2
        program.compare(args.rounds or 1, args.cold, args.json, sys.stdout, None if args.json else sys.stderr)
        return 0
    if args.compile:
        lanes = args.lanes or (2 if warmup_lanes.usable_cores() >= 2 else 1)
        cold.compare(args.rounds or 3, args.json, sys.stdout, None if args.json else sys.stderr, lanes)
        return 0
    if args.vs or args.scale:
        vs = args.vs or "all"
        for engine in ("ours", *speed.VS[vs]):
            problem = engines.missing(engine)
            if problem is not None:
                print(f"--vs {vs}: {problem}", file=sys.stderr)
                return 2
        progress = None if args.json else sys.stderr
        if args.threads is not None:
            os.environ["NUMBA_NUM_THREADS"] = str(args.threads)  # the engines' processes inherit it
        if args.scale:
            speed.scale(vs, args.rounds or 1, args.json, sys.stdout, progress)
        else:
            speed.compare(
                args.scenes or list(speed.SPEED_SCENES),
                vs,
                args.rounds or 3,
                args.json,
                sys.stdout,
                progress,
                args.profile,
                args.busy,
            )
        return 0
    if not args.json:
        print("compiling / loading the engine ...", file=sys.stderr)
    warm_up()
    for name in args.scenes or list(SCENES):
        result = run_scene(SCENES[name], args.steps, args.profile)
        print(json.dumps(result) if args.json else describe(result), flush=True)
    return 0
