"""The cold start: ``python -m demo bench --compile [--lanes 1|2] [--rounds N] [--json]``.

Each round starts from an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary folder). With
one lane, a fresh process imports the engine, builds the program's default scene (``rigid``
with its own solver) and steps its world once: everything the default scene's step needs is
compiled on the way. With two, as the program's warm-up does on two cores or more, one process
per part of the step (``World.precompile``) compiles that part at the same time as the other,
sharing the cache, and the step's process comes after them and compiles only the step's own
kernel. It reports the wall seconds from the first process's start to the end of the step, the
CPU seconds of all the processes, the kernels compiled (and their specialisations), and each
kernel's own compile time (numba's ``numba:compile`` events; a kernel's time without the
kernels it compiled on the way, so the times add up to the whole). The machine's load average
is printed beside each round: the wall time depends on it, the CPU time much less."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any, TextIO

#: The program's default scene (``python -m demo`` with no options) and its solver.
DEFAULT_SCENE, DEFAULT_SOLVER = "rigid", "iterative"
#: Kernels listed by their own compile time.
TOP_KERNELS = 12


def measure_cold_step(scene: str = DEFAULT_SCENE, part: str | None = None) -> dict[str, Any]:
    """In this process (its numba cache empty, or holding only what other parts compiled):
    build ``scene`` and step it once (``part`` None) or compile one part of its step
    (``World.precompile``), timing each kernel's compile. Returns ``{"wall_s", "cpu_s",
    "import_s", "build_s", "step_s", "kernels", "specialisations", "own_s": {kernel: s},
    "signatures": {engine kernel: [argument types]}}`` (seconds from the call; ``signatures``
    lists what each of the engine's kernels was compiled for)."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    from numba.core import event  # noqa: PLC0415

    own: dict[str, float] = {}
    compiles: list[str] = []
    stack: list[list[Any]] = []  # [name, time of its last resumption]

    class Timer(event.Listener):
        def on_start(self, ev: Any) -> None:
            now = time.perf_counter()
            if stack:
                caller = stack[-1]
                own[caller[0]] = own.get(caller[0], 0.0) + now - caller[1]
            stack.append([_kernel_name(ev), now])

        def on_end(self, ev: Any) -> None:
            now = time.perf_counter()
            name, resumed = stack.pop()
            own[name] = own.get(name, 0.0) + now - resumed
            compiles.append(name)
            if stack:
                stack[-1][1] = now

    listener = Timer()
    event.register("numba:compile", listener)
    try:
        from demo import scenes  # noqa: PLC0415

        imported = time.perf_counter()
        built = scenes.build_scene(scene, 0, None)
        world = built.world
        ready = time.perf_counter()
        if part is None:
            world.step(built.dt)
        else:
            world.precompile(part)
        stepped = time.perf_counter()
    finally:
        event.unregister("numba:compile", listener)
    return {
        "scene": scene,
        "solver": world.solver,
        "part": part,
        "wall_s": round(stepped - wall0, 2),
        "cpu_s": round(time.process_time() - cpu0, 2),
        "import_s": round(imported - wall0, 2),
        "build_s": round(ready - imported, 2),
        "step_s": round(stepped - ready, 2),
        "kernels": len(set(compiles)),
        "specialisations": len(compiles),
        "own_s": {name: round(s, 3) for name, s in sorted(own.items(), key=lambda kv: -kv[1])},
        "signatures": engine_signatures(),
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
    """One round with an empty numba cache: :func:`measure_cold_step` in a fresh process, after
    (``lanes`` 2) one process per part of the default solver's step (``World.precompile``),
    run at the same time and sharing the cache. Returns the step process's measure with the
    round's wall time (from starting the first process), CPU time, kernels, specialisations,
    own compile times and signatures summed over the processes, ``lanes`` (each part process's
    measure) and the load average (1 minute) before and after."""
    from collision.solvers import SOLVERS  # noqa: PLC0415 - defines kernels, compiles none

    parts = list(SOLVERS[DEFAULT_SOLVER].parts) if lanes > 1 else []
    with tempfile.TemporaryDirectory(prefix="polycolly-cold-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.pop("NUMBA_DISABLE_JIT", None)
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        lane_results = _children([[scene, part] for part in parts], env)
        measured = _children([[scene]], env)[0]
        wall = time.perf_counter() - started
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
    step_process = {key: measured[key] for key in ("wall_s", "cpu_s", "kernels", "specialisations")}
    step_process["compiled"] = sorted(measured["own_s"])
    measured.update(
        wall_s=round(wall, 2),
        cpu_s=round(sum(result["cpu_s"] for result in every), 2),
        kernels=len(own),
        specialisations=sum(result["specialisations"] for result in every),
        own_s={name: round(s, 3) for name, s in sorted(own.items(), key=lambda kv: -kv[1])},
        signatures=signatures,
        step_process=step_process,
        lanes=[{key: lane[key] for key in ("part", "wall_s", "cpu_s", "kernels")} for lane in lane_results],
        load=[round(load_before, 2), round(load_after, 2)],
    )
    return measured


def _children(arguments: list[list[str]], env: dict[str, str]) -> list[dict[str, Any]]:
    """Run ``python -m demo.bench.compile`` once per argument list, all at the same time; their
    measures, in order."""
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "demo.bench.compile", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for args in arguments
    ]
    outputs = [child.communicate() for child in children]
    for child, (_, err) in zip(children, outputs, strict=True):
        if child.returncode != 0:
            raise RuntimeError(f"a cold-start process failed: {err.strip()[-2000:]}")
    return [dict(json.loads(out.strip().splitlines()[-1])) for out, _ in outputs]


def compare(
    rounds: int, as_json: bool, out: TextIO, progress: TextIO | None, lanes: int = 1
) -> list[dict[str, Any]]:
    """``rounds`` cold rounds (:func:`cold_round` with ``lanes``), one after the other, printed
    as they end."""
    results = []
    for k in range(rounds):
        if progress is not None:
            print(f"cold start {k + 1}/{rounds} (empty numba cache) ...", file=progress, flush=True)
        measured = cold_round(lanes=lanes)
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
    """The measuring child: ``python -m demo.bench.compile [SCENE [PART]]`` prints one JSON line."""
    args = list(sys.argv[1:] if argv is None else argv)
    print(json.dumps(measure_cold_step(*args[:2])), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
