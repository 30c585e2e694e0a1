"""``python -m demo bench --vs box2d|pymunk|all`` and ``--scale``: ours against Box2D v3 and
pymunk on the same scenes, each engine timed in its own process.

Method: every run is one child process (``python -m demo.bench.worker ENGINE SCENE SIZE
STEPS``) that builds the scene from the one generator (demo.bench.scenes), compiles or loads
what it needs (ours: the step of that very world, a big world's own specialisation on threads
included), then times each step (wall clock, ``perf_counter``; the process's CPU time is
recorded beside it) and measures the outcome after the timed loop. A run that compiled
anything while timed says so (``compiled_while_timing``; the text names the round). The parent runs the
engines one after another, alternating their order from round to round so that neither
always runs first on a shared machine, and reports each round's ratio of total step time
(ours / theirs) and the median over rounds. Settings as the adapters state them: dt 1/60,
sleeping off, Box2D v3 with 4 substeps on one worker, pymunk's defaults (10 iterations) with a
metre-sized slop. Ratios from one run are comparable; absolute times are for this machine
only, and every report starts with the machine they came from (demo.bench.machine).

Scenes: ``pyramid`` (20 rows, 210 boxes, 600 steps), ``pile`` (1000 polygons, 600 steps),
``pile8000`` (8000 polygons, 300 steps), ``bullet`` (60 steps: an outcome, not a timing).
``--scale``: the pile at 250 ... 8000 bodies and the pyramid at 10 ... 60 rows, 300 steps each,
with each engine's fitted exponent (ms/step ~ bodies^k, least squares in log-log).
``--busy N``: N more processes keep a core each busy while the engines run.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from collision.profiling import stage_table
from demo.bench import engines, machine, scenes
from demo.bench.measure import outcome
from demo.bench.scenes import SceneSpec


@dataclass(frozen=True)
class SpeedScene:
    """A timed scene: ``build(size)`` from the generator, default size and steps, whether its
    outcome includes the deepest overlap (slow to measure on big piles, so piles only), and
    whether its times mean anything (the two-body bullet is there for its outcome)."""

    build: Callable[[int], SceneSpec]
    size: int
    steps: int
    overlap: bool
    what: str
    timed: bool = True


SPEED_SCENES = {
    "pyramid": SpeedScene(scenes.pyramid, 20, 600, False, "20-row pyramid, 210 boxes"),
    "pile": SpeedScene(scenes.pile, 1000, 600, True, "1000-body pile"),
    "pile8000": SpeedScene(scenes.pile, 8000, 300, True, "8000-body pile"),
    "bullet": SpeedScene(lambda _size: scenes.bullet(), 1, 60, False, "0.1 m box at 500 m/s", timed=False),
}
#: What a round's ratio divides: wall-clock step time (what a user waits) or the process's CPU
#: time over the steps (what the steps cost: robust when other work shares the cores, but it
#: adds up every thread of a multi-threaded engine).
CLOCKS = {"wall": "total_s", "cpu": "cpu_s"}
SCALE_STEPS = 300
SCALE = {"pile": (250, 500, 1000, 2000, 4000, 8000), "pyramid": (10, 20, 30, 40, 60)}
VS = {"box2d": ("box2d",), "pymunk": ("pymunk",), "all": ("box2d", "pymunk")}


# -- the child process --------------------------------------------------------------------------


def stage_profile(sim: engines.Sim) -> dict[str, float] | None:
    """Seconds per stage summed over the run (``World.profile.total``, the stages and the
    whole step) when the run was profiled; None otherwise (other engines, profiling off)."""
    if not sim.label.startswith("ours"):
        return None
    world = sim.world  # type: ignore[attr-defined]
    if not world.profile.enabled or world.profile.steps == 0:
        return None
    return world.profile.total


def os_threads() -> int | None:
    """The threads of this process the system runs (Linux: /proc; elsewhere None)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


@contextlib.contextmanager
def counting_compiles() -> Iterator[list[int]]:
    """``with counting_compiles() as compiled:``: ``compiled[0]`` counts the functions numba
    compiles in the block (a timed loop should compile none: its times would be compile's)."""
    from numba.core import event  # noqa: PLC0415

    compiled = [0]

    class Count(event.Listener):
        def on_start(self, ev: Any) -> None:
            compiled[0] += 1

        def on_end(self, ev: Any) -> None:
            pass

    listener = Count()
    event.register("numba:compile", listener)
    try:
        yield compiled
    finally:
        event.unregister("numba:compile", listener)


def time_run(engine: str, scene_name: str, size: int, steps: int, profile: bool = False) -> dict[str, Any]:
    """Build ``scene_name`` at ``size`` in ``engine``, time ``steps`` steps, measure the outcome;
    ``profile``: ours times its stages too (``profile_s``, see :func:`stage_profile`)."""
    spec = SPEED_SCENES[scene_name]
    scene = spec.build(size)
    if engine == "ours":
        from demo.bench.run import warm_up

        warm_up()
    t0 = time.perf_counter()
    sim = engines.build(engine, scene)
    build_s = time.perf_counter() - t0
    if engine == "ours":
        # The warm-up's small world does not compile a big world's step (its own
        # specialisation, on threads): this world's step is compiled here, untimed.
        sim.world.precompile()  # type: ignore[attr-defined]
        if profile:
            sim.world.profile.enabled = True  # type: ignore[attr-defined]
    start = sim.state()
    times = np.empty(steps)
    clock = time.perf_counter
    with counting_compiles() as compiled:
        cpu0 = time.process_time()
        for k in range(steps):
            t = clock()
            sim.step(1)
            times[k] = clock() - t
        cpu = time.process_time() - cpu0
    result: dict[str, Any] = {
        "engine": engine,
        "scene": scene_name,
        "size": size,
        "bodies": sum(b.moving for b in scene.bodies),
        "steps": steps,
        "build_s": build_s,
        "total_s": float(times.sum()),
        "cpu_s": cpu,
        "step_ms_mean": float(times.mean() * 1e3),
        "step_ms_median": float(np.median(times) * 1e3),
        "step_ms_p95": float(np.percentile(times, 95) * 1e3),
        "threads": os_threads(),
        "compiled_while_timing": compiled[0],
    }
    result.update(outcome(scene, start, sim.state(), overlap=spec.overlap))
    stages = stage_profile(sim)
    if stages is not None:
        result["profile_s"] = stages
    return result


#: Thread pools of numpy's BLAS and of OpenMP, held to one thread in every engine's process: the
#: comparison is of one core, and an idle pool's threads spin after a BLAS call, adding to the
#: process's CPU time without doing the step's work.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def one_thread_env() -> dict[str, str]:
    """This process's environment with ONE_THREAD."""
    return {**os.environ, **ONE_THREAD}


def spawn(engine: str, scene_name: str, size: int, steps: int, profile: bool = False) -> dict[str, Any]:
    """One timed run in a fresh Python process (``profile``: ours times its stages); its JSON result."""
    command = [sys.executable, "-m", "demo.bench.worker", engine, scene_name, str(size), str(steps)]
    if profile:
        command.append("--profile")
    done = subprocess.run(command, capture_output=True, text=True, env=one_thread_env(), check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[2:])} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the parent ---------------------------------------------------------------------------------


#: What each ``--busy`` process runs: a loop that never ends, a core's worth of other work.
SPIN = "while True: pass"


@contextlib.contextmanager
def busy_cores(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` processes, each keeping a core busy (:data:`SPIN`) while the block runs: a
    machine that other work shares, as most users' machines are. Killed on the way out."""
    spinners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(count):
            spinners.append(subprocess.Popen([sys.executable, "-c", SPIN]))
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()


def rounds_of(
    scene_name: str,
    size: int,
    steps: int,
    names: Sequence[str],
    rounds: int,
    progress: TextIO | None,
    profile: bool = False,
) -> list[dict[str, dict[str, Any]]]:
    """``rounds`` rounds of every engine in ``names`` (order reversed every other round);
    ``profile``: ours times its stages."""
    results = []
    for r in range(rounds):
        order = list(names) if r % 2 == 0 else list(reversed(names))
        round_results = {}
        for engine in order:
            if progress is not None:
                print(
                    f"  {scene_name} {size}: round {r + 1}/{rounds}, {engine} ...", file=progress, flush=True
                )
            round_results[engine] = spawn(engine, scene_name, size, steps, profile)
        results.append(round_results)
    return results


def ratios(results: list[dict[str, dict[str, Any]]], other: str, clock: str = "wall") -> list[float]:
    """Per round: ours' total step time over ``other``'s, by ``clock`` (see ``CLOCKS``)."""
    key = CLOCKS[clock]
    return [r["ours"][key] / r[other][key] for r in results]


def _ratio_entry(results: list[dict[str, dict[str, Any]]], other: str) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    for clock in CLOCKS:
        per_round = ratios(results, other, clock)
        entry[clock] = {"rounds": per_round, "median": statistics.median(per_round)}
    return entry


def bullet_fate(x: float) -> str:
    """Where the bullet of the bullet scene ended, against its wall x in [10, 10.1]."""
    if x > 10.1:
        return "passed through the wall"
    if x < 9.0:
        return "thrown back from the wall"
    return "stopped at the wall"


def _outcome_text(r: dict[str, Any]) -> str:
    parts = [
        f"max displacement {r['max_displacement']:.3f} m",
        f"max speed at end {r['max_speed_end']:.3f} m/s",
    ]
    if "deepest_overlap" in r:
        parts.append(f"deepest overlap {r['deepest_overlap']:.3f} m")
    if "bullet_x" in r:
        parts = [f"bullet {bullet_fate(r['bullet_x'])}, x = {r['bullet_x']:.3f} m (wall x in [10, 10.1])"]
    parts.append(f"escaped {r['escaped']}" + (", NaN" if r["nan"] else ""))
    return ", ".join(parts)


def compare(
    scene_names: Sequence[str],
    vs: str,
    rounds: int,
    as_json: bool,
    out: TextIO,
    progress: TextIO | None,
    profile: bool = False,
    busy: int = 0,
) -> dict[str, Any]:
    """``--vs``: rounds of every scene in ours and the other engines; prints the table (with
    ``profile``, ours' stage table of the last round too); ``busy`` processes keep a core each
    busy meanwhile (:func:`busy_cores`)."""
    names = ["ours", *VS[vs]]
    found = machine.announced(None if as_json else out)
    report: dict[str, Any] = {"vs": vs, "rounds": rounds, "busy": busy, "machine": found, "scenes": {}}
    if busy and not as_json:
        print(f"{busy} other process{'es' if busy > 1 else ''} keeping a core busy throughout", file=out)
    for scene_name in scene_names:
        spec = SPEED_SCENES[scene_name]
        with busy_cores(busy):
            results = rounds_of(scene_name, spec.size, spec.steps, names, rounds, progress, profile)
        entry: dict[str, Any] = {"what": spec.what, "steps": spec.steps, "timed": spec.timed, "runs": results}
        if spec.timed:
            entry["ratio"] = {other: _ratio_entry(results, other) for other in VS[vs]}
        report["scenes"][scene_name] = entry
        if not as_json:
            _print_scene(scene_name, entry, names, out)
    if as_json:
        print(json.dumps(report), file=out)
    return report


def _print_scene(scene_name: str, entry: dict[str, Any], names: Sequence[str], out: TextIO) -> None:
    others = [n for n in names if n != "ours"]
    print(f"{scene_name}: {entry['what']}, {entry['steps']} steps", file=out)
    if entry["timed"]:
        head = (
            "  round "
            + "".join(f"{n + ' ms/step':>16s}" for n in names)
            + "".join(f"{'ours/' + o + ' wall':>18s}{'cpu':>6s}" for o in others)
        )
        print(head, file=out)
        for i, run in enumerate(entry["runs"]):
            times = "".join(f"{run[n]['step_ms_mean']:16.3f}" for n in names)
            ours = run["ours"]
            rs = "".join(
                f"{ours['total_s'] / run[o]['total_s']:18.2f}{ours['cpu_s'] / run[o]['cpu_s']:6.2f}"
                for o in others
            )
            print(f"  {i + 1:5d} {times}{rs}", file=out)
        for o in others:
            text = ", ".join(
                f"{clock} median {r['median']:.2f} (rounds {min(r['rounds']):.2f}-{max(r['rounds']):.2f})"
                for clock, r in entry["ratio"][o].items()
            )
            print(f"  ours/{o}: {text}", file=out)
        compiled = [
            f"{n} round {i + 1}: {run[n]['compiled_while_timing']}"
            for i, run in enumerate(entry["runs"])
            for n in names
            if run[n].get("compiled_while_timing")
        ]
        if compiled:
            listed = ", ".join(compiled)
            print(f"  functions numba compiled while timed (those times hold compiling): {listed}", file=out)
    last = entry["runs"][-1]
    for n in names:
        print(f"  {n}: {_outcome_text(last[n])}", file=out)
    if "profile_s" in last["ours"]:
        print("  ours per stage, last round:", file=out)
        print(stage_table(last["ours"]["profile_s"], entry["steps"], "    "), file=out)
    print("", file=out)


def fitted_exponent(bodies: Sequence[float], ms: Sequence[float]) -> float:
    """k in ms ~ bodies^k, least squares on the logarithms."""
    slope, _ = np.polyfit(np.log(np.asarray(bodies, dtype=float)), np.log(np.asarray(ms, dtype=float)), 1)
    return float(slope)


def scale(vs: str, rounds: int, as_json: bool, out: TextIO, progress: TextIO | None) -> dict[str, Any]:
    """``--scale``: every size of the pile and the pyramid in every engine; ratios and exponents."""
    names = ["ours", *VS[vs]]
    found = machine.announced(None if as_json else out)
    report: dict[str, Any] = {"vs": vs, "rounds": rounds, "steps": SCALE_STEPS, "machine": found}
    report["series"] = {}
    for series, sizes in SCALE.items():
        rows = []
        for size in sizes:
            results = rounds_of(series, size, SCALE_STEPS, names, rounds, progress)
            ms = {n: statistics.median(r[n]["step_ms_mean"] for r in results) for n in names}
            cpu_ms = {
                n: statistics.median(r[n]["cpu_s"] * 1e3 / r[n]["steps"] for r in results) for n in names
            }
            rows.append(
                {
                    "size": size,
                    "bodies": results[0]["ours"]["bodies"],
                    "ms_per_step": ms,
                    "cpu_ms_per_step": cpu_ms,
                    "ratio": {o: statistics.median(ratios(results, o)) for o in VS[vs]},
                    "cpu_ratio": {o: statistics.median(ratios(results, o, "cpu")) for o in VS[vs]},
                }
            )
        bodies = [row["bodies"] for row in rows]
        exponents = {
            clock: {n: fitted_exponent(bodies, [row[key][n] for row in rows]) for n in names}
            for clock, key in (("wall", "ms_per_step"), ("cpu", "cpu_ms_per_step"))
        }
        report["series"][series] = {"rows": rows, "exponent": exponents}
        if not as_json:
            _print_series(series, rows, exponents, names, out)
    if as_json:
        print(json.dumps(report), file=out)
    return report


def _print_series(
    series: str,
    rows: list[dict[str, Any]],
    exponents: dict[str, dict[str, float]],
    names: Sequence[str],
    out: TextIO,
) -> None:
    others = [n for n in names if n != "ours"]
    size_name = "rows" if series == "pyramid" else "size"
    print(
        f"{series}, {SCALE_STEPS} steps: wall ms/step (median over rounds), ours/other by wall and CPU",
        file=out,
    )
    print(
        f"  {size_name:>5s} {'bodies':>7s}"
        + "".join(f"{n:>11s}" for n in names)
        + "".join(f"{'ours/' + o + ' wall':>18s}{'cpu':>6s}" for o in others),
        file=out,
    )
    for row in rows:
        ms = "".join(f"{row['ms_per_step'][n]:11.3f}" for n in names)
        rs = "".join(f"{row['ratio'][o]:18.2f}{row['cpu_ratio'][o]:6.2f}" for o in others)
        print(f"  {row['size']:5d} {row['bodies']:7d}{ms}{rs}", file=out)
    for clock, fitted in exponents.items():
        text = ", ".join(f"{n} n^{fitted[n]:.2f}" for n in names)
        print(f"  fitted to {clock} time: {text}", file=out)
    print("", file=out)
