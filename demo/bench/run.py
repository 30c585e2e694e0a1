"""Our benchmark scenes in our world: builders on a :class:`collision.World`, and one timed run.

``SCENES`` maps a name to a :class:`Scene` (builder ``build(world)``, step count, gravity,
escape bounds), which the program's scene list also shows. :func:`run_scene` times every step
of one scene (ms/step, median and p95) and reports how it ended (see
:func:`demo.bench.measure.outcome`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from collision import Polygon, World
from collision.profiling import stage_table
from demo.bench import scenes
from demo.bench.engines import State
from demo.bench.engines.ours import add_bodies
from demo.bench.engines.ours import new_world as _world_for
from demo.bench.measure import outcome
from demo.bench.scenes import DT, GRAVITY, PILE_BODIES, PILE_COLUMNS, PILE_SEED, PYRAMID_ROWS, SceneSpec

#: Steps of each benchmark scene (the 8000-body pile of the comparison runs 300).
STEPS = {"pyramid": 600, "pile": 600, "bullet": 60}


@dataclass(frozen=True)
class Scene:
    """One benchmark scene: builder, steps, and the box outside which a body has escaped."""

    name: str
    build: Callable[[World], None]
    steps: int
    gravity: tuple[float, float]
    bounds: tuple[float, float, float, float]  # x0, y0, x1, y1 (m)


def new_world(gravity: tuple[float, float] = GRAVITY) -> World:
    """A world with the benchmark's common settings (iterative solver, sleeping off)."""
    return _world_for(SceneSpec("empty", (), gravity=gravity))


def build_pyramid(world: World, rows: int = PYRAMID_ROWS) -> None:
    """Ground x in [-40, 40], y in [-1, 0] and a pyramid of ``rows`` rows of unit boxes."""
    add_bodies(world, scenes.pyramid(rows))


def build_pile(world: World, seed: int = PILE_SEED, count: int = PILE_BODIES) -> None:
    """The 40 m container and ``count`` random convex polygons dropped into it (24 columns
    whatever the count, so the program's view of the pile frames any ``--bodies``)."""
    add_bodies(world, scenes.pile(count, seed, columns=PILE_COLUMNS))


def build_bullet(world: World) -> None:
    """A static wall x in [10, 10.1], y in [-1, 1] and a 0.1 m box at (0, 0) at 500 m/s."""
    add_bodies(world, scenes.bullet())


def _scene(spec: SceneSpec, build: Callable[[World], None]) -> Scene:
    return Scene(spec.name, build, STEPS[spec.name], spec.gravity, spec.bounds)


SCENES = {
    "pyramid": _scene(scenes.pyramid(), build_pyramid),
    "pile": _scene(scenes.pile(), build_pile),
    "bullet": _scene(scenes.bullet(), build_bullet),
}
SPECS = {"pyramid": scenes.pyramid, "pile": scenes.pile, "bullet": scenes.bullet}


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel a step uses, before timing."""
    world = new_world()
    world.add_body(Polygon.box(10.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    world.add_body(Polygon([[0.0, 0.0], [1.0, 0.0]]), (0.0, 1.5))
    world.add_body(Polygon([[0.0, 0.0]]), (2.0, 0.2))
    world.add_body(Polygon.regular(5, 0.5), (2.0, 2.0))
    for _ in range(3):
        world.step(DT)


def _state(world: World) -> State:
    return State(
        world.position.copy(), world.angle.copy(), world.velocity.copy(), world.angular_velocity.copy()
    )


def run_scene(scene: Scene, steps: int | None = None, profile: bool = False) -> dict[str, Any]:
    """Run one scene in our world; returns the JSON fields of ``python -m demo bench --json``
    (with ``profile``, ``profile_s``: seconds per stage over the run, see ``World.profile``)."""
    spec = SPECS[scene.name]()
    world = new_world(scene.gravity)
    scene.build(world)
    world.profile.enabled = profile
    start = _state(world)
    n_steps = scene.steps if steps is None else steps
    times = np.empty(n_steps)
    contacts_max = 0
    clock = time.perf_counter
    for k in range(n_steps):
        t0 = clock()
        world.step(DT)
        times[k] = clock() - t0
        contacts_max = max(contacts_max, len(world.contacts))
    result: dict[str, Any] = {
        "scene": scene.name,
        "bodies": int(world.body_count),
        "steps": n_steps,
        "step_ms_median": float(np.median(times) * 1e3),
        "step_ms_p95": float(np.percentile(times, 95) * 1e3),
        "contacts_max": contacts_max,
    }
    result.update(outcome(spec, start, _state(world)))
    if profile:
        result["profile_s"] = world.profile.total
    return result


def describe(r: dict[str, Any]) -> str:
    """One run's result as a line of text."""
    text = (
        f"{r['scene']}: {r['bodies']} bodies, {r['steps']} steps, {r['step_ms_median']:.3f} ms/step median "
        f"(p95 {r['step_ms_p95']:.3f}), contacts max {r['contacts_max']}, max displacement "
        f"{r['max_displacement']:.4f} m, max speed at end {r['max_speed_end']:.4f} m/s, "
        f"escaped {r['escaped']}, nan {r['nan']}"
    )
    if "bullet_x" in r:
        text += f", bullet stopped at x = {r['bullet_x']:.4f} m (wall x in [10, 10.1])"
    if "profile_s" in r:
        text += "\n" + stage_table(r["profile_s"], r["steps"], "  ")
    return text
