"""Getting the engine's compiled kernels ready before the program needs them.

numba compiles a kernel the first time it is called and keeps it in its cache; a later run
loads it from there in a fraction of the time. The window program must never wait for that in
the middle of a frame, so the work is split in *jobs*, each the GL-free part of what the
program does with one scene or one solver (:func:`exercise`: build the scene, fire, pull with
the mouse, step, draw every overlay into a batch):

- a warm-up child process, ``python -m demo.warmup --scene NAME``, compiles the jobs in the
  order the program will need them (:func:`plan`: the first scene, its other solvers, then the
  other scenes in Tab order; a job the program names on the child's stdin, a scene Tab moved
  to, goes first); on two cores or more with a second process beside it, a *lane*
  (demo.warmup_lanes, ``--lane``): the first scene's step in two parts at the same time
  (``World.precompile``; the lane starts on its part while this process builds the scene),
  then the jobs, each process taking the next when it is free. It reports each compiled
  kernel and finished job as a JSON line on stdout, and at the end writes a stamp beside
  numba's cache (:func:`mark_warm`) so the next run knows it has nothing to compile;
- the program (demo.loading) then runs each finished job itself, on a worker thread, which
  only loads the kernels from the cache.

Run by hand, ``python -m demo.warmup`` compiles everything (for the default scene's order).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import queue
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO

import numpy as np

from demo.warmup_lanes import Wanted, precompile_first_step, run_jobs, start_lane, start_second_part

#: Frames each job runs (1/60 s each) when it compiles: enough for contacts, a shot's flight
#: and its hit; and when it only loads what is compiled (the first call of a kernel loads it).
EXERCISE_FRAMES, LOAD_FRAMES = 12, 3
#: The stamp's file name, in numba's cache folder for the engine.
STAMP_NAME = "polycolly-warm.json"
#: The solvers `m` cycles through (demo.actions.SOLVER_CYCLE, without importing the engine).
SOLVERS = ("tutorial", "iterative", "arcade")


@dataclass(frozen=True, order=True)
class Job:
    """One piece of warm-up: ``kind`` "scene" (scene ``name`` with its own solver), "solver"
    (solver ``name`` on scene ``scene``) or "coverage" (solver ``name`` in coverage_world)."""

    kind: str
    name: str
    scene: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def family(self) -> str:
        """Jobs of one family compile the same kernels (a solver's job and its coverage job)."""
        return self.name if self.kind in ("solver", "coverage") else self.key

    @classmethod
    def from_key(cls, key: str, start: str) -> Job:
        kind, _, name = key.partition(":")
        return cls(kind, name, name if kind == "scene" else start)


def tab_order(start: str, names: list[str]) -> list[str]:
    """``names`` in the order Tab and Shift+Tab reach them from ``start``: the next, the
    previous, the one after the next, ... (``start`` first)."""
    if start not in names:
        return [start, *names]
    k = names.index(start)
    out = [start]
    for step in range(1, len(names)):
        for index in (k + step, k - step):
            name = names[index % len(names)]
            if name not in out:
                out.append(name)
    return out


def plan(start: str, names: list[str], own_solver: str) -> list[Job]:
    """The jobs in the order the program needs them, starting in scene ``start`` (whose own
    solver is ``own_solver``): that scene, its other solvers (`m`), what every solver does
    only after a while (sleeping, fast bodies: :func:`coverage_world`), the other scenes (Tab)."""
    jobs = [Job("scene", start, start)]
    jobs += [Job("solver", solver, start) for solver in SOLVERS if solver != own_solver]
    jobs += [Job("coverage", solver, start) for solver in SOLVERS]
    jobs += [Job("scene", name, name) for name in tab_order(start, names)[1:]]
    return jobs


#: Press actions exercise() leaves out: they leave the scene, end the program or touch files.
#: "cycle_solver" too: the scene is exercised with its own solver (the solver jobs do the others).
UNEXERCISED = frozenset(
    {
        "quit",
        "screenshot",
        "next_scene",
        "previous_scene",
        "restart",
        "regenerate",
        "reload",
        "pause",
        "cycle_solver",
    }
)


def exercise(job: Job, seed: int = 0, bodies: int | None = None, frames: int = EXERCISE_FRAMES) -> None:
    """Do, without drawing, what the program does with ``job``'s scene and solver: build it
    (``bodies``: its body count, None: its default), press every key that acts there, aim at a
    moving body, fire the turret, pull and push with the mouse, step ``frames`` frames, and
    draw every overlay and the scene's own into a batch. A "coverage" job runs
    :func:`coverage_world` instead. Each kernel this needs is compiled, or loaded from numba's
    cache, on the way."""
    if job.kind == "coverage":
        coverage_world(job.name, frames)
        return
    from demo import controls  # noqa: PLC0415 - the engine, only when there is work
    from demo.actions import Simulation  # noqa: PLC0415
    from demo.draw.batch import OverlayBatch  # noqa: PLC0415
    from demo.draw.overlays import draw_world_overlays  # noqa: PLC0415

    sim = Simulation(out=io.StringIO())
    sim.load_scene(job.scene, seed, bodies)
    if job.kind == "solver":
        sim.world.solver = job.name
    for key in sim.show:
        sim.show[key] = True
    world = sim.world
    moving = [i for i in range(world.body_count) if not world.static[i]]
    x0, y0, x1, y1 = sim.scene.view
    sim.aim = world.position[moving[0]].copy() if moving else np.array([0.5 * (x0 + x1), 0.5 * (y0 + y1)])
    presses = sorted(sim.handled - controls.HOLD_ACTIONS - UNEXERCISED)
    holds = [action for action in ("fire", "attract", "repel") if action in sim.handled]

    def frame() -> None:
        sim.advance(1.0 / 60.0)
        batch = OverlayBatch()
        draw_world_overlays(batch, sim, sim.world.world_vertices())
        sim.scene.on_overlay(batch, sim.frame_input())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the arcade solver's "more than 64 hits"
        frame()  # the scene as it starts, first: its own step with its own solver
        for action in presses:
            sim.do(action)
            if frames > LOAD_FRAMES:  # compiling: each press's own step; loading: one will do
                frame()
        for k in range(frames):
            action = holds[k % len(holds)] if holds else None
            if action is not None:
                sim.hold(action, True)
            frame()
            if action is not None:
                sim.hold(action, False)
        len(sim.world.contacts)
        sim.world.state_hash()


def coverage_world(solver: str, frames: int) -> None:
    """Step a small world under ``solver`` that takes the paths the scenes may reach only later:
    a box at rest on the ground (it falls asleep), a fast box at a wall (the swept test), a
    bouncing box, a compound and a kinematic body, points and segments, bodies removed and
    added, a ray cast, for at least a second of simulated time."""
    from collision import Polygon, World  # noqa: PLC0415

    world = World(gravity=(0.0, -10.0), solver=solver, restitution=0.0)
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(Polygon.box(0.2, 4.0), (8.0, 2.0), static=True)
    world.add_body(Polygon.box(1.0, 1.0), (-6.0, 0.5))  # at rest from the start
    world.add_body(Polygon.box(0.2, 0.2), (0.0, 1.0), velocity=(400.0, 0.0))  # fast, at the wall
    world.add_body(Polygon.regular(6, 0.5), (-3.0, 3.0), restitution=0.8)
    world.add_body(Polygon([[0.0, 0.0]]), (-1.0, 2.0))
    world.add_body(Polygon([[-0.5, 0.0], [0.5, 0.0]]), (2.0, 2.0))
    world.add_compound([Polygon.box(1.0, 0.3).vertices, Polygon.box(0.3, 1.0).vertices], (4.0, 3.0))
    paddle = world.add_body(Polygon.box(2.0, 0.2), (-3.0, 5.0), kinematic=True, angular_velocity=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for k in range(max(frames, 90)):
            world.step(1.0 / 60.0)
            if k == 30:
                world.remove_body(paddle)
                world.add_body(Polygon.regular(5, 0.4), (0.0, 4.0))
                world.set_material(None, friction=0.5, restitution=0.2, static_friction=0.4)
                world.raycast((-9.0, 6.0), (9.0, 0.0))
                world.query_point((0.0, 0.2))
        len(world.contacts)
        world.state_hash()


# ----------------------------------------------------------------------------------------------
# The stamp: the kernels of these sources are all in the cache.


def _engine_folder() -> Path:
    import collision  # noqa: PLC0415 - importing the engine chooses numba's cache folder

    return Path(os.path.abspath(os.path.dirname(collision.__file__)))


def fingerprint() -> str:
    """What a complete warm-up depends on: the engine's sources and the program's (which decide
    the kernels compiled, and with which argument types), each by name, size and modification
    time, and numba's and Python's versions."""
    import numba  # noqa: PLC0415

    digest = hashlib.sha1(f"{numba.__version__} {sys.version}".encode())
    for package in (_engine_folder(), Path(__file__).resolve().parent):
        for source in sorted(package.rglob("*.py")):
            info = source.stat()
            digest.update(
                f"{package.name}/{source.relative_to(package)} {info.st_size} {info.st_mtime_ns}\n".encode()
            )
    return digest.hexdigest()


def stamp_path() -> Path:
    from collision import kernel_cache  # noqa: PLC0415

    return kernel_cache.folder(_engine_folder()) / STAMP_NAME


def jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def is_warm() -> bool:
    """Whether a complete warm-up of these sources left its stamp (always with JIT disabled)."""
    if jit_disabled():
        return True
    try:
        data = json.loads(stamp_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("fingerprint") == fingerprint()


def mark_warm(seconds: float) -> None:
    """Leave the stamp (nothing happens if the cache folder cannot be written)."""
    path = stamp_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps({"fingerprint": fingerprint(), "seconds": round(seconds, 1)}), encoding="utf-8"
        )


# ----------------------------------------------------------------------------------------------
# The child process.


class CompileCounter:
    """Counts, from its creation on, the kernels numba compiles in this process (``count``,
    ``names``: "thread: module.function"); loading one from the cache does not count."""

    def __init__(self) -> None:
        from numba.core import event  # noqa: PLC0415

        counter = self

        class Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                dispatcher = (ev.data or {}).get("dispatcher")
                func = getattr(dispatcher, "py_func", None)
                name = f"{func.__module__}.{func.__qualname__}" if func is not None else "?"
                counter.names.append(f"{threading.current_thread().name}: {name}")

            def on_end(self, ev: Any) -> None:
                pass

        self.names: list[str] = []
        event.register("numba:compile", Listener())

    @property
    def count(self) -> int:
        return len(self.names)


class Tally:
    """The warm-up's report on ``out``, one JSON line a message, written from any thread: each
    kernel compiled here or in a lane (``{"compiling": name, "compiled": n}``, ``n`` those
    finished so far, over this process and its lanes) and the jobs' progress."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.count = 0
        self._lock = threading.Lock()

    def emit(self, message: dict[str, Any]) -> None:
        with self._lock:
            self.out.write(json.dumps(message) + "\n")
            self.out.flush()

    def compiling(self, name: str, finished: int = 0) -> None:
        """Kernel ``name`` is being compiled, after ``finished`` more were."""
        with self._lock:
            self.count += finished
        self.emit({"compiling": name, "compiled": self.count})

    def finished(self, count: int = 1) -> None:
        """``count`` more kernels were compiled."""
        with self._lock:
            self.count += count


@contextlib.contextmanager
def reporting_compiles(tally: Tally) -> Iterator[None]:
    """While inside, report every kernel numba compiles in this process to ``tally``."""
    from numba.core import event  # noqa: PLC0415

    class Report(event.Listener):
        def on_start(self, ev: Any) -> None:
            dispatcher = (ev.data or {}).get("dispatcher")
            func = getattr(dispatcher, "py_func", None)
            tally.compiling(f"{func.__module__}.{func.__qualname__}" if func is not None else "?")

        def on_end(self, ev: Any) -> None:
            tally.finished()

    listener = Report()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)


def serve_as_lane(tally: Tally, run: Callable[[Job], None], start: str) -> NoReturn:
    """A lane's life: what its stdin asks for (see :class:`Lane`), until it closes; then the
    process ends at once (the parent is done with it, or has ended)."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in sys.stdin:
                lines.put(line)
        os._exit(0)

    threading.Thread(target=read, name="warmup-lane-in", daemon=True).start()
    with reporting_compiles(tally):
        while True:
            kind, _, name = lines.get().strip().partition(" ")
            t0 = time.perf_counter()
            if kind == "part":
                from collision import World  # noqa: PLC0415

                part, _, solver = name.partition(" ")
                World(solver=solver).precompile(part)
                name = part
            elif kind == "job":
                run(Job.from_key(name, start))
            seconds = round(time.perf_counter() - t0, 3)
            tally.emit({kind: name, "seconds": seconds, "compiled": tally.count})


def kernel_count() -> int:
    """How many compiled functions the engine defines (an upper bound for the progress bar)."""
    from numba.core.registry import CPUDispatcher  # noqa: PLC0415

    import collision  # noqa: PLC0415

    del collision
    return sum(
        1
        for name, module in list(sys.modules.items())
        if name.startswith("collision")
        for value in vars(module).values()
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name
    )


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo.warmup", description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default="rigid", help="the scene the program starts in")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bodies", type=int, default=None)
    parser.add_argument("--solver", default=None, help="the first scene's solver, if not its own")
    parser.add_argument("--nice", type=int, default=0, help="run at this niceness (the program first)")
    parser.add_argument("--lane", action="store_true", help="a lane: compile what stdin asks for")
    args = parser.parse_args(argv)
    if args.nice > 0 and hasattr(os, "nice"):
        os.nice(args.nice)
    started = time.perf_counter()
    from demo import scenes  # noqa: PLC0415

    tally = Tally(out)

    def run(job: Job) -> None:
        exercise(job, args.seed, args.bodies if job.scene == args.scene else None)

    if args.lane:
        serve_as_lane(tally, run, args.scene)
    tally.emit({"kernels": kernel_count()})
    lane_argv = ["--scene", args.scene, "--seed", str(args.seed)]  # its niceness is this process's
    lane_argv += ["--bodies", str(args.bodies)] if args.bodies is not None else []
    lane_argv += ["--solver", args.solver] if args.solver else []
    lane = start_lane(lane_argv, tally)
    # The lane starts on the second part of the solver with parts before the scene is built
    # (whose solver is known only then): on a scene of another solver, the lane's part is
    # for that solver's jobs, later.
    sent = start_second_part(lane, args.solver)
    first = scenes.build_scene(args.scene, args.seed, args.bodies)
    scene_solver = first.world.solver
    if args.solver:
        first.world.solver = args.solver
    jobs = plan(args.scene, scenes.scene_names(), first.world.solver)
    if args.solver and args.solver != scene_solver:
        jobs.insert(0, Job("solver", args.solver, args.scene))
    tally.emit({"jobs": [job.key for job in jobs]})
    wanted = Wanted(sys.stdin)
    with reporting_compiles(tally):
        lane_busy = precompile_first_step(first.world, lane, sent)
        run_jobs(jobs, wanted, lane, run, tally, lane_busy)
    if lane is not None:
        lane.close()
    mark_warm(time.perf_counter() - started)
    tally.emit({"finished": round(time.perf_counter() - started, 3)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
