"""The cold start: ``python -m demo bench --compile [--lanes 1|2] [--rounds N] [--json]``.

Each round starts from an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary folder). With
one lane, a fresh process imports the engine, builds the program's default scene (``rigid``
with its own solver) and steps its world once: everything the default scene's step needs is
compiled on the way. With two, as the program's warm-up does on two cores or more, two
processes start at once, sharing the cache: one builds the scene and compiles the first part
of its step (``World.precompile``), the other, a lane, the second part on a world without
bodies (the types are a built world's); when the lane is done, the first process steps and
compiles only the step's own kernel. It reports the wall seconds from the processes' start to
the end of the step, the CPU seconds of both, the kernels compiled (and their
specialisations), and each kernel's own compile time (numba's ``numba:compile`` events; a
kernel's time without the kernels it compiled on the way, so the times add up to the whole).
The report starts with the machine (demo.bench.machine); its load average is printed beside
each round: the wall time depends on it, the CPU time much less."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any, TextIO

from demo.bench import machine

#: The program's default scene (``python -m demo`` with no options) and its solver.
DEFAULT_SCENE, DEFAULT_SOLVER = "rigid", "iterative"
#: Kernels listed by their own compile time.
TOP_KERNELS = 12


class _CompileTimer:
    """Each kernel's own compile time (numba's ``numba:compile`` events, a kernel's time without
    the kernels it compiled on the way) and the kernels compiled, in order, while registered."""

    def __init__(self) -> None:
        from numba.core import event  # noqa: PLC0415

        self.own: dict[str, float] = {}
        self.compiles: list[str] = []
        stack: list[list[Any]] = []  # [name, time of its last resumption]
        timer = self

        class Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                now = time.perf_counter()
                if stack:
                    caller = stack[-1]
                    timer.own[caller[0]] = timer.own.get(caller[0], 0.0) + now - caller[1]
                stack.append([_kernel_name(ev), now])

            def on_end(self, ev: Any) -> None:
                now = time.perf_counter()
                name, resumed = stack.pop()
                timer.own[name] = timer.own.get(name, 0.0) + now - resumed
                timer.compiles.append(name)
                if stack:
                    stack[-1][1] = now

        self._listener = Listener()
        event.register("numba:compile", self._listener)

    def close(self) -> None:
        from numba.core import event  # noqa: PLC0415

        event.unregister("numba:compile", self._listener)

    def measure(self) -> dict[str, Any]:
        """``{"kernels", "specialisations", "own_s", "signatures"}`` so far."""
        return {
            "kernels": len(set(self.compiles)),
            "specialisations": len(self.compiles),
            "own_s": {name: round(s, 3) for name, s in sorted(self.own.items(), key=lambda kv: -kv[1])},
            "signatures": engine_signatures(),
        }


def measure_cold_step(scene: str = DEFAULT_SCENE, first_part: str | None = None) -> dict[str, Any]:
    """In this process (its numba cache empty): build ``scene`` and step it once, timing each
    kernel's compile; with ``first_part``, compile that part of the step
    (``World.precompile``) after the build, then wait for a line on stdin (the other part is
    done) before the step. Returns ``{"wall_s", "cpu_s", "import_s", "build_s", "part_s",
    "wait_s", "step_s", "step_cpu_s", "kernels", "specialisations", "own_s": {kernel: s},
    "signatures": {engine kernel: [argument types]}, "step_compiled": [kernel]}`` (seconds from
    the call; ``signatures`` lists what each of the engine's kernels was compiled for,
    ``step_compiled`` what the step compiled after the parts)."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    timer = _CompileTimer()
    try:
        from demo import scenes  # noqa: PLC0415

        imported = time.perf_counter()
        built = scenes.build_scene(scene, 0, None)
        world = built.world
        ready = time.perf_counter()
        if first_part is not None:
            world.precompile(first_part)
        parted = time.perf_counter()
        if first_part is not None:
            sys.stdin.readline()
        waited, step_cpu0 = time.perf_counter(), time.process_time()
        before_step = len(timer.compiles)
        world.step(built.dt)
        stepped = time.perf_counter()
    finally:
        timer.close()
    return {
        "scene": scene,
        "solver": world.solver,
        "part": first_part,
        "wall_s": round(stepped - wall0, 2),
        "cpu_s": round(time.process_time() - cpu0, 2),
        "import_s": round(imported - wall0, 2),
        "build_s": round(ready - imported, 2),
        "part_s": round(parted - ready, 2),
        "wait_s": round(waited - parted, 2),
        "step_s": round(stepped - waited, 2),
        "step_cpu_s": round(time.process_time() - step_cpu0, 2),
        "part_cpu_s": round(step_cpu0 - cpu0, 2),
        "step_compiled": sorted(set(timer.compiles[before_step:])),
        "step_specialisations": len(timer.compiles) - before_step,
        **timer.measure(),
    }


def measure_cold_part(solver: str, part: str) -> dict[str, Any]:
    """In this process: compile ``part`` of solver ``solver``'s step on a world without bodies
    (``World.precompile``), timing each kernel's compile. Returns ``{"part", "wall_s",
    "cpu_s", "kernels", "specialisations", "own_s", "signatures"}``."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    timer = _CompileTimer()
    try:
        from collision import World  # noqa: PLC0415

        World(solver=solver).precompile(part)
    finally:
        timer.close()
    return {
        "part": part,
        "wall_s": round(time.perf_counter() - wall0, 2),
        "cpu_s": round(time.process_time() - cpu0, 2),
        **timer.measure(),
    }


def engine_signatures() -> dict[str, list[str]]:
    """Every compiled kernel of the engine (``collision``) in this process: ``{"module.name":
    [argument types, one string per specialisation]}``. A kernel loaded from numba's cache does
    not fill the dispatchers of the kernels it calls: only a compile shows them all."""
    from numba.core.registry import CPUDispatcher  # noqa: PLC0415

    compiled = {}
    for name, module in list(sys.modules.items()):
        if name != "collision" and not name.startswith("collision."):
            continue
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name and value.signatures:
                compiled[f"{name}.{attr}"] = [str(types) for types in value.signatures]
    return compiled


def _kernel_name(ev: Any) -> str:
    dispatcher = (ev.data or {}).get("dispatcher")
    func = getattr(dispatcher, "py_func", None)
    return f"{func.__module__}.{func.__qualname__}" if func is not None else "?"


def cold_round(scene: str = DEFAULT_SCENE, lanes: int = 1) -> dict[str, Any]:
    """One round with an empty numba cache: :func:`measure_cold_step` in a fresh process, with
    (``lanes`` 2) a lane beside it from the start compiling the default solver's second part
    (:func:`measure_cold_part`) while it builds the scene and compiles the first; the step
    waits for the lane. Returns the step process's measure with the round's wall time (from
    starting the processes), CPU time, kernels, specialisations, own compile times and
    signatures summed over the processes, ``lanes`` (each part's wall and CPU seconds and
    kernels: the first part's counted from its process's start, its build included),
    ``step_process`` (the step after the parts) and the load average (1 minute) before and
    after."""
    from collision.solvers import SOLVERS  # noqa: PLC0415 - defines kernels, compiles none

    parts = list(SOLVERS[DEFAULT_SOLVER].parts) if lanes > 1 else []
    with tempfile.TemporaryDirectory(prefix="polycolly-cold-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.pop("NUMBA_DISABLE_JIT", None)
        load_before = os.getloadavg()[0]
        with tempfile.TemporaryFile("w+") as first_errors, tempfile.TemporaryFile("w+") as lane_errors:
            started = time.perf_counter()
            children = [_child(["step", scene, *parts[:1]], env, first_errors)]
            lane_results = []
            if parts:
                children.append(_child(["part", DEFAULT_SOLVER, parts[1]], env, lane_errors))
                lane_results.append(_result(children[1], lane_errors))
                assert children[0].stdin is not None
                children[0].stdin.write("go\n")
                children[0].stdin.flush()
            measured = _result(children[0], first_errors)
            wall = time.perf_counter() - started
            for child in children:
                child.communicate()
        load_after = os.getloadavg()[0]
    every = [*lane_results, measured]
    own: dict[str, float] = {}
    signatures: dict[str, list[str]] = {}
    for result in every:
        for name, seconds in result["own_s"].items():
            own[name] = own.get(name, 0.0) + seconds
        for name, types in result["signatures"].items():
            if name in result["own_s"]:  # compiled there, not loaded from what another compiled
                signatures.setdefault(name, []).extend(types)
    step_process = {
        "wall_s": measured["step_s"],
        "cpu_s": measured["step_cpu_s"],
        "kernels": len(measured["step_compiled"]),
        "specialisations": measured["step_specialisations"],
        "compiled": measured["step_compiled"],
    }
    first_lane = {
        "part": parts[0] if parts else None,
        "wall_s": round(measured["wall_s"] - measured["step_s"] - measured["wait_s"], 2),
        "cpu_s": measured["part_cpu_s"],
        "kernels": measured["kernels"] - step_process["kernels"],
    }
    measured.update(
        wall_s=round(wall, 2),
        cpu_s=round(sum(result["cpu_s"] for result in every), 2),
        kernels=len(own),
        specialisations=sum(result["specialisations"] for result in every),
        own_s={name: round(s, 3) for name, s in sorted(own.items(), key=lambda kv: -kv[1])},
        signatures=signatures,
        step_process=step_process,
        lanes=[first_lane, *(_lane(lane) for lane in lane_results)] if lane_results else [],
        load=[round(load_before, 2), round(load_after, 2)],
    )
    return measured


def _lane(measured: dict[str, Any]) -> dict[str, Any]:
    return {key: measured[key] for key in ("part", "wall_s", "cpu_s", "kernels")}


def _child(arguments: list[str], env: dict[str, str], errors: TextIO) -> subprocess.Popen[str]:
    """``python -m demo.bench.compile ARGUMENTS`` started (see :func:`main`), its stderr to
    ``errors``."""
    return subprocess.Popen(
        [sys.executable, "-m", "demo.bench.compile", *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
        env=env,
    )


def _result(child: subprocess.Popen[str], errors: TextIO) -> dict[str, Any]:
    """What a child started by :func:`_child` measured, as soon as it says (a process takes
    most of a second more to end, which the program's own processes do not wait for)."""
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.strip():
        child.wait()
        errors.seek(0)
        raise RuntimeError(f"a cold-start process failed: {errors.read().strip()[-2000:]}")
    return dict(json.loads(line))


def compare(
    rounds: int, as_json: bool, out: TextIO, progress: TextIO | None, lanes: int = 1
) -> list[dict[str, Any]]:
    """``rounds`` cold rounds (:func:`cold_round` with ``lanes``), one after the other, printed
    as they end."""
    results = []
    found = machine.announced(None if as_json else out)
    for k in range(rounds):
        if progress is not None:
            print(f"cold start {k + 1}/{rounds} (empty numba cache) ...", file=progress, flush=True)
        measured = {**cold_round(lanes=lanes), "machine": found}
        results.append(measured)
        print(json.dumps(measured) if as_json else describe(measured), file=out, flush=True)
    return results


def describe(measured: dict[str, Any]) -> str:
    """A round as text: the totals, then the kernels with the longest own compile time."""
    lines = [
        f"cold start, scene {measured['scene']} ({measured['solver']}): first step after "
        f"{measured['wall_s']:.1f} s wall, {measured['cpu_s']:.1f} s CPU "
        f"(import {measured['import_s']:.1f} s, build {measured['build_s']:.1f} s, "
        f"step {measured['step_s']:.1f} s); {measured['kernels']} kernels, "
        f"{measured['specialisations']} specialisations; load average "
        f"{measured['load'][0]:.1f} -> {measured['load'][1]:.1f} on {os.cpu_count()} cores",
    ]
    if measured.get("lanes"):
        lanes = ", ".join(
            f"{lane['part']} {lane['wall_s']:.1f} s wall / {lane['cpu_s']:.1f} s CPU"
            for lane in measured["lanes"]
        )
        step = measured["step_process"]
        lines.append(
            f"  parts at once: {lanes}; then the step: "
            f"{step['wall_s']:.1f} s wall / {step['cpu_s']:.1f} s CPU"
        )
    lines.append("  own compile s  kernel")
    for name, seconds in list(measured["own_s"].items())[:TOP_KERNELS]:
        lines.append(f"  {seconds:13.2f}  {name}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The measuring child, one JSON line on stdout: ``python -m demo.bench.compile step SCENE
    [FIRST_PART]`` (:func:`measure_cold_step`) or ``part SOLVER PART``
    (:func:`measure_cold_part`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["part"]:
        measured = measure_cold_part(*args[1:3])
    else:
        measured = measure_cold_step(*args[1:3])
    print(json.dumps(measured), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
