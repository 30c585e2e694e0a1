"""Work the window program does off its drawing thread: the engine's kernels made ready, scenes
built, so that no frame waits for either.

A :class:`Loader` owns one worker thread and, on a first run, the warm-up child process
(demo.warmup) that compiles the kernels job by job. The worker runs each job the child has
finished (which then only loads the kernels from numba's cache) in the order the program will
need them, and, before those, the program's requests (:meth:`Loader.submit`: build this scene,
make that solver ready), each once the jobs it needs are ready; a request whose jobs are not
compiled yet has the child compile them next, and can be taken back while it waits
(:meth:`Loader.withdraw`). The drawing thread only asks questions (:meth:`Loader.ready`,
:meth:`Loader.progress`) and polls :class:`Ticket`s.

On a first run the engine is interpreted meanwhile (collision.interpreter): a scene of a few
dozen bodies runs as plain Python at once, while the worker loads the compiled kernels as the
child finishes them (in compiled mode, on its own thread); the drawing thread puts the compiled
kernels back (:meth:`Loader.use_compiled`) once the scene on screen has them.

While the worker has work, Python's thread switch interval is shortened, so the drawing thread
gets the interpreter back within a millisecond of asking.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from demo import catalog, warmup
from demo.warmup import Job

#: Python's thread switch interval (s) while the worker runs: the drawing thread waits at most
#: this long each time it wants the interpreter back (Python's default is 5 ms).
BUSY_SWITCH_INTERVAL = 0.0005
#: The warm-up child's and the worker thread's niceness: the program's own frames come first.
CHILD_NICENESS = WORKER_NICENESS = 5
#: Lines of the child's error output kept to explain a failure.
ERROR_LINES = 12
#: Bodies of a scene with a body count (``--bodies``) when its job is run only to load its
#: kernels, not to show it.
LOAD_BODIES = 24
#: While the kernels compile, a scene with at most this many bodies runs interpreted (a step of
#: the 20-body default scene takes 2 ms as plain Python, 44 bodies 17 ms, 211 bodies 170 ms).
INTERPRETED_MAX_BODIES = 32


#: Linux's prctl option that names the calling thread (<linux/prctl.h>), and the longest name it
#: keeps in bytes (the rest is cut).
PR_SET_NAME, THREAD_NAME_BYTES = 15, 15


def name_os_thread() -> None:
    """Give the calling thread its Python name (``threading.Thread(name=...)``, cut to
    THREAD_NAME_BYTES) where the system shows threads (/proc/PID/task/TID/comm, ``top -H``), so
    each thread's CPU time can be told apart; every thread of a Python process is otherwise
    called "python". Linux only; elsewhere, or if the call fails, nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    name = threading.current_thread().name.encode("ascii", "replace")[:THREAD_NAME_BYTES]
    try:
        ctypes.CDLL(None).prctl(PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def interpreted() -> bool:
    """Whether the engine runs interpreted (collision.interpreter installed): asked without
    importing the engine, which the first frame does not wait for."""
    module = sys.modules.get("collision.interpreter")
    return module is not None and bool(module.is_installed())


def _interpreter() -> Any:
    from collision import interpreter  # noqa: PLC0415 - the engine, after the first frame

    return interpreter


def settle_heap() -> None:
    """Collect the garbage that loading kernels leaves (numba's compiler makes reference cycles)
    and freeze what survives out of the cyclic collector's reach.

    Python's full collection walks every tracked object: with the engine and numba loaded that
    is over a hundred thousand, 100-140 ms in which no thread runs, a frozen frame whenever the
    collector decides. After a freeze a collection walks only the objects made since, so this
    one costs what the last piece of work left, and the drawing thread's own collections stay
    small. Scenes and worlds are freed by reference counting, frozen or not.
    """
    gc.collect()
    gc.freeze()


@dataclass
class Ticket:
    """A request to the worker: ``done`` once ``result`` (or ``error``) is set."""

    label: str
    needs: tuple[str, ...]
    run: Callable[[], Any]
    #: Whether it may run on the interpreted engine before the jobs it needs are compiled.
    interpreted: bool = False
    done: bool = False
    result: Any = None
    error: BaseException | None = None


@dataclass
class Progress:
    """What the warm-up has done, for the progress frame.

    ``compiled``: kernels compiled by the child so far; ``compiling``: the one it is on;
    ``jobs``: job keys in order; ``compiled_jobs`` / ``loaded_jobs``: those the child has
    finished and those the program has loaded; ``cold``: a child is (or was) compiling;
    ``failure``: why the child failed (the program then compiles itself); ``seconds``: since
    the loader started.
    """

    compiled: int = 0
    compiling: str = ""
    jobs: list[str] = field(default_factory=list)
    compiled_jobs: set[str] = field(default_factory=set)
    loaded_jobs: set[str] = field(default_factory=set)
    cold: bool | None = None
    failure: str = ""
    seconds: float = 0.0


class Loader:
    """The worker thread and the warm-up child for a program starting in scene ``start``.

    ``seed``, ``bodies``: the first scene's (its jobs are run with them); ``solver``: the first
    scene's solver if not its own; ``interpret``: on a first run, interpret the engine until the
    kernels are compiled. Call :meth:`start`, then :meth:`submit` requests; :meth:`close` at the
    end (it stops the child and puts the compiled kernels back).
    """

    def __init__(
        self,
        start: str,
        seed: int = 0,
        bodies: int | None = None,
        solver: str | None = None,
        interpret: bool = False,
    ) -> None:
        self.start_scene, self.seed, self.bodies, self.solver = start, seed, bodies, solver
        self.interpret = interpret
        self._lock = threading.Condition()
        self._progress = Progress()
        self._tickets: deque[Ticket] = deque()
        self._plan: list[Job] = []
        #: Jobs of scenes built interpreted: loaded once compiled, so that they run compiled.
        self._wanted: set[str] = set()
        self._child: subprocess.Popen[str] | None = None
        self._errors: deque[str] = deque(maxlen=ERROR_LINES)
        self._closed = False
        self._started = time.monotonic()
        self._default_interval = sys.getswitchinterval()
        #: Kernels compiled in this process (not loaded from the cache): the child should have
        #: compiled them all; each one here is a pause, named in --profile.
        self.compiled_here: Any = None
        self._worker = threading.Thread(target=self._work, name="pc-loader", daemon=True)

    # -- the drawing thread's side --------------------------------------------------------------

    def start(self) -> None:
        self._worker.start()

    def submit(
        self, label: str, run: Callable[[], Any], needs: tuple[str, ...] = (), interpreted: bool = False
    ) -> Ticket:
        """Run ``run()`` on the worker once the jobs ``needs`` (keys such as "scene:pile") are
        ready, before any further warm-up; its result (or exception) lands in the ticket.
        ``interpreted``: while the engine is interpreted, run it at once (on the interpreted
        engine) instead of waiting for the jobs."""
        ticket = Ticket(label, tuple(needs), run, interpreted)
        with self._lock:
            self._tickets.append(ticket)
            waiting = [key for key in ticket.needs if not self._compiled(key)]
            self._lock.notify_all()
        self._ask_child(waiting)
        return ticket

    def withdraw(self, ticket: Ticket) -> bool:
        """Take back ``ticket`` if it is still waiting for the compiler (some job it needs is not
        compiled yet); whether it was. A ticket that can run, or runs, is left to finish."""
        with self._lock:
            if ticket in self._tickets and not all(self._compiled(key) for key in ticket.needs):
                self._tickets.remove(ticket)
                return True
            return False

    def _ask_child(self, keys: list[str]) -> None:
        """Ask the warm-up child to compile the jobs ``keys`` next (demo.warmup_lanes.Wanted)."""
        child = self._child
        if not keys or child is None or child.stdin is None or child.poll() is not None:
            return
        try:
            child.stdin.write("".join(f"{key}\n" for key in keys))
            child.stdin.flush()
        except (OSError, ValueError):  # it ended meanwhile: nothing to ask
            pass

    def ready(self, *keys: str) -> bool:
        """Whether the jobs ``keys`` are loaded in this process (a key not in the plan counts
        as ready once the plan is known: nothing was going to compile it)."""
        with self._lock:
            if not self._plan:
                return False
            planned = {job.key for job in self._plan}
            return all(key in self._progress.loaded_jobs or key not in planned for key in keys)

    def shows_now(self, world: Any, needs: tuple[str, ...]) -> bool:
        """Whether a scene with ``world`` (built) and jobs ``needs`` can run now: its jobs are
        loaded, or the engine is interpreted and the scene small enough to run so."""
        if interpreted() and world.body_count <= INTERPRETED_MAX_BODIES:
            return True
        return self.ready(*needs)

    def use_compiled(self, needs: tuple[str, ...]) -> bool:
        """Put the compiled kernels back (drawing thread, between frames) once the jobs
        ``needs`` of the scene on screen are loaded; whether the engine is compiled now."""
        if not interpreted():
            return True
        if not self.ready(*needs):
            return False
        _interpreter().uninstall()
        return True

    def progress(self) -> Progress:
        """A copy of the warm-up's progress."""
        with self._lock:
            p = self._progress
            return Progress(
                p.compiled,
                p.compiling,
                list(p.jobs),
                set(p.compiled_jobs),
                set(p.loaded_jobs),
                p.cold,
                p.failure,
                time.monotonic() - self._started,
            )

    @property
    def compiling(self) -> bool:
        """Whether the warm-up child is still running."""
        return self._child is not None and self._child.poll() is None

    def close(self) -> None:
        """Stop the child (killed, not waited for: a process that has compiled for a while takes
        tens of ms to end, which the program's own end need not wait for) and the worker (after
        what it is doing)."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        child = self._child
        if child is not None and child.poll() is None:
            child.kill()
        sys.setswitchinterval(self._default_interval)
        if interpreted():
            _interpreter().uninstall()

    # -- the worker ------------------------------------------------------------------------------

    def _work(self) -> None:
        name_os_thread()
        if hasattr(os, "setpriority"):
            # This thread only (Linux threads have their own niceness): the drawing thread, and
            # the rasteriser's, come first when the processor is short.
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICENESS)
            except OSError:
                pass
        try:
            self._prepare()
            while True:
                item = self._next()
                if item is None:
                    return
                sys.setswitchinterval(BUSY_SWITCH_INTERVAL)
                try:
                    self._run(item)
                    settle_heap()
                finally:
                    sys.setswitchinterval(self._default_interval)
        except BaseException as exc:  # the program must hear of it, not lose the thread silently
            with self._lock:
                self._progress.failure = f"{type(exc).__name__}: {exc}"
                for ticket in self._tickets:
                    ticket.error, ticket.done = exc, True
                self._tickets.clear()

    def _prepare(self) -> None:
        """Start the child if the kernels are not all in the cache yet (it sends the plan);
        else find the plan here."""
        sys.setswitchinterval(BUSY_SWITCH_INTERVAL)
        try:
            cold = not warmup.is_warm()  # imports the engine (no kernel is compiled)
            self.compiled_here = warmup.CompileCounter()
            if cold and self.interpret and not warmup.jit_disabled():
                _interpreter().install()
            with self._lock:
                self._progress.cold = cold
                self._lock.notify_all()
            if cold:
                self._spawn()
                return
            from demo import scenes  # noqa: PLC0415 - off the drawing thread

            first = scenes.build_scene(self.start_scene, self.seed, self.bodies)
            plan = warmup.plan(self.start_scene, scenes.scene_names(), self.solver or first.world.solver)
            if self.solver and self.solver != first.world.solver:
                plan.insert(0, Job("solver", self.solver, self.start_scene))
        finally:
            sys.setswitchinterval(self._default_interval)
        self._set_plan(plan)

    def _set_plan(self, plan: list[Job]) -> None:
        with self._lock:
            self._plan = plan
            self._progress.jobs = [job.key for job in plan]
            self._lock.notify_all()

    def _spawn(self) -> None:
        args = [sys.executable, "-m", "demo.warmup", "--scene", self.start_scene, "--seed", str(self.seed)]
        if self.bodies is not None:
            args += ["--bodies", str(self.bodies)]
        if self.solver is not None:
            args += ["--solver", self.solver]
        args += ["--nice", str(CHILD_NICENESS)]
        env = dict(os.environ)
        # The child imports this very demo package, wherever the program was started from.
        package_root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        try:
            self._child = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                bufsize=1,
            )
        except OSError as exc:
            self._child_failed(f"cannot start the warm-up process ({exc})")
            return
        threading.Thread(target=self._read_events, name="pc-warmup-out", daemon=True).start()
        threading.Thread(target=self._read_errors, name="pc-warmup-err", daemon=True).start()

    def _read_events(self) -> None:
        name_os_thread()
        child = self._child
        assert child is not None and child.stdout is not None
        for line in child.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                p = self._progress
                if "jobs" in event:
                    self._plan = [Job.from_key(str(key), self.start_scene) for key in event["jobs"]]
                    p.jobs = [job.key for job in self._plan]
                elif "compiling" in event:
                    p.compiling, p.compiled = str(event["compiling"]), int(event.get("compiled", 0))
                elif "done" in event:
                    p.compiled_jobs.add(str(event["done"]))
                    p.compiling = ""
                self._lock.notify_all()
        status = child.wait()
        if status != 0 and not self._closed:
            tail = " / ".join(list(self._errors)[-3:]) or f"exit status {status}"
            self._child_failed(f"the warm-up process failed ({tail})")
        with self._lock:
            self._lock.notify_all()

    def _read_errors(self) -> None:
        name_os_thread()
        child = self._child
        assert child is not None and child.stderr is not None
        for line in child.stderr:
            if line.strip():
                self._errors.append(line.strip())

    def _child_failed(self, message: str) -> None:
        """The program compiles what is left itself (slower to start, but it starts)."""
        with self._lock:
            self._progress.failure = message
            self._progress.cold = False
            self._lock.notify_all()
        print(f"python -m demo: {message}; compiling in the program instead", file=sys.stderr, flush=True)
        if not self._plan:
            from demo import scenes  # noqa: PLC0415

            own = self.solver or scenes.build_scene(self.start_scene, self.seed, self.bodies).world.solver
            self._set_plan(warmup.plan(self.start_scene, scenes.scene_names(), own))

    def _compiled(self, key: str) -> bool:
        """Whether job ``key``'s kernels are in the cache (or this process must make them)."""
        p = self._progress
        return not p.cold or key in p.compiled_jobs or key not in p.jobs

    def _next(self) -> Ticket | Job | None:
        """The next thing to do (a ticket first, else the next job), waiting until there is one."""
        with self._lock:
            while not self._closed:
                for ticket in list(self._tickets):
                    # Until the child's first lines give the plan, only an interpreted ticket
                    # knows it can run.
                    compiled = bool(self._plan) and all(self._compiled(key) for key in ticket.needs)
                    if compiled or (ticket.interpreted and interpreted()):
                        self._tickets.remove(ticket)
                        return ticket
                # Ahead of need: the first scene and what `m` needs; a scene's job waits for
                # its scene to be asked for (loading every scene would keep a core busy).
                loaded = self._progress.loaded_jobs
                for job in self._plan:
                    ahead = job.kind != "scene" or job.scene == self.start_scene or job.key in self._wanted
                    if ahead and job.key not in loaded and self._compiled(job.key):
                        return job
                self._lock.wait()
            return None

    def _run(self, item: Ticket | Job) -> None:
        if isinstance(item, Job):
            self._load(item)
            return
        try:
            with self._lock:
                compiled = bool(self._plan) and all(self._compiled(key) for key in item.needs)
            if not compiled:  # an interpreted ticket (see submit)
                with self._lock:
                    self._wanted.update(item.needs)
                item.result = item.run()
            else:
                with _interpreter().compiled_here():
                    for key in item.needs:
                        job = next((j for j in self._plan if j.key == key), None)
                        if job is not None:
                            self._load(job)
                    item.result = item.run()
        except Exception as exc:  # the ticket carries it to the drawing thread
            item.error = exc
        item.done = True

    def _load(self, job: Job) -> None:
        """Run ``job`` here (its kernels load from the cache), once."""
        with self._lock:
            if job.key in self._progress.loaded_jobs:
                return
        bodies = self.bodies if job.scene == self.start_scene else None
        info = catalog.BY_NAME.get(job.scene)
        if bodies is None and info is not None and info.counted:
            # The same kernels load for a few bodies as for the scene's thousand, at a fraction
            # of the building and stepping, which holds Python's lock beside the frames.
            bodies = LOAD_BODIES
        seed = self.seed if job.scene == self.start_scene else 0
        with _interpreter().compiled_here():
            warmup.exercise(job, seed, bodies, warmup.LOAD_FRAMES)
        with self._lock:
            self._progress.loaded_jobs.add(job.key)
            self._lock.notify_all()
