"""The warm-up's second process, a *lane*, and how the two share the work (see demo.warmup).

On two cores or more the warm-up process starts a lane (:class:`Lane`, ``python -m
demo.warmup ... --lane``) at once: it compiles the second part of the default solver's step
(:func:`start_second_part`) while the warm-up process builds the first scene and compiles the
first (:func:`precompile_first_step`); then the two take the jobs (:func:`run_jobs`), the ones
the program asks for out of turn first (:class:`Wanted`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from demo.warmup import Job, Tally


@functools.cache
def usable_cores() -> int:
    """The cores this process may run on (asked once: the start-up frames ask at every frame)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


class Lane:
    """A warm-up process beside this one (``python -m demo.warmup ... --lane``) that compiles
    what it is sent, one line on its stdin each: ``part NAME SOLVER``, a part of that solver's
    step (``World.precompile``), or ``job KEY``, a job (:func:`exercise`). Its compiles go on to
    ``tally``; :meth:`result` waits for what it sent back when it finished one (None if it
    ended). It ends when its stdin closes (:meth:`close`, or this process ending)."""

    def __init__(self, argv: list[str], tally: Tally) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "demo.warmup", *argv, "--lane"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._results: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._relay, args=(tally,), name="warmup-lane", daemon=True).start()

    def send(self, line: str) -> bool:
        """Send one line; False if the lane has ended."""
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def result(self) -> dict[str, Any] | None:
        return self._results.get()

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            assert self.process.stdin is not None
            self.process.stdin.close()
        self.process.wait()

    def _relay(self, tally: Tally) -> None:
        finished = 0
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with contextlib.suppress(ValueError, TypeError, KeyError):
                message = json.loads(line)
                count = int(message["compiled"])
                if "compiling" in message:
                    tally.compiling(str(message["compiling"]), count - finished)
                else:
                    tally.finished(count - finished)
                    self._results.put(message)
                finished = count
        self._results.put(None)


def start_lane(argv: list[str], tally: Tally) -> Lane | None:
    """A lane, if there is a core for it (and it can be started)."""
    if usable_cores() < 2:
        return None
    try:
        return Lane(argv, tally)
    except OSError:
        return None


def start_second_part(lane: Lane | None, solver: str | None) -> str | None:
    """Send ``lane`` the second part of ``solver``'s step (None: the solver whose step has parts,
    the default scene's) for ``World.precompile`` on a world without bodies, whose types are
    any world's, before the first scene is built: the lane compiles it while this process
    builds the scene. Returns the solver, or None if nothing was sent (no lane, or a solver
    whose step has no parts)."""
    from collision.solvers import SOLVERS  # noqa: PLC0415 - defines kernels, compiles none

    if solver is None:
        solver = next((name for name, entry in SOLVERS.items() if len(entry.parts) >= 2), None)
    parts = SOLVERS[solver].parts if solver is not None else ()
    if lane is None or len(parts) < 2 or not lane.send(f"part {parts[1]} {solver}"):
        return None
    return solver


def precompile_first_step(world: Any, lane: Lane | None, sent: str | None) -> bool:
    """Compile the first part of ``world``'s step here while ``lane`` compiles the second (sent
    for solver ``sent``, :func:`start_second_part`), if ``world`` steps with that solver, and
    return when both are done: the step then only compiles its own kernel (a lane that fails
    leaves its part to the step). Returns whether the lane is still on its part (``world``
    steps with another solver: it need not wait for that part)."""
    if lane is None or sent is None:
        return False
    if world.solver != sent:
        return True
    world.precompile(world.precompile_parts[0])
    lane.result()
    return False


def run_jobs(
    jobs: list[Job],
    wanted: Wanted,
    lane: Lane | None,
    run: Callable[[Job], None],
    tally: Tally,
    lane_busy: bool = False,
) -> None:
    """Run ``jobs`` (``run(job)``), here and in ``lane`` at the same time, each taking the next
    one :meth:`Wanted.next_of` says when free, of another family than the job running in the
    other (which compiles the same kernels: it waits for that job, whose kernels it then
    loads); report each one done to ``tally``. A ``lane_busy`` lane takes its first job when
    it has finished what it was sent before."""
    turns = threading.Condition()
    running: list[str] = []

    def take(done: Job | None = None) -> Job | None:
        with turns:
            if done is not None:
                running.remove(done.family)
                turns.notify_all()
            while jobs and not (free := [job for job in jobs if job.family not in running]):
                turns.wait()
            if not jobs:
                return None
            job = wanted.next_of(free)
            jobs.remove(job)
            running.append(job.family)
            return job

    def feed(lane: Lane) -> None:
        if lane_busy and lane.result() is None:
            return  # the lane ended
        job = take()
        while job is not None:
            result = lane.result() if lane.send(f"job {job.key}") else None
            if result is None:
                with turns:
                    jobs.insert(0, job)  # the lane ended: this process runs it
                    running.remove(job.family)
                    turns.notify_all()
                return
            tally.emit({"done": job.key, "seconds": result.get("seconds", 0.0)})
            job = take(job)

    feeder = None
    if lane is not None:
        feeder = threading.Thread(target=feed, args=(lane,), name="warmup-feed", daemon=True)
        feeder.start()
    job = take()
    while True:
        if job is None and feeder is not None:
            feeder.join()
            feeder = None
            job = take()
        if job is None:
            return
        t0 = time.perf_counter()
        run(job)
        tally.emit({"done": job.key, "seconds": round(time.perf_counter() - t0, 3)})
        job = take(job)


class Wanted:
    """The jobs the program asks for out of turn (a scene Tab moved to): one job key a line on
    ``source`` (the child's stdin), read on a thread of its own. The newest asked for comes
    first: it is the scene the user now waits for."""

    def __init__(self, source: TextIO | None) -> None:
        self._keys: list[str] = []
        self._lock = threading.Lock()
        if source is not None:
            threading.Thread(target=self._read, args=(source,), name="warmup-wanted", daemon=True).start()

    def _read(self, source: TextIO) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in source:
                with self._lock:
                    self._keys.append(line.strip())

    def next_of(self, jobs: list[Job]) -> Job:
        """The job of ``jobs`` to compile next: the newest asked for, else the first."""
        with self._lock:
            keys = list(self._keys)
        by_key = {job.key: job for job in jobs}
        for key in reversed(keys):
            if key in by_key:
                return by_key[key]
        return jobs[0]
