"""The iterative solver's benchmark scenes (issue 4) and ``python -m demo bench``.

Scenes (metres, kilograms, seconds; dt = 1/60, gravity (0, -10), density 1, friction 0.6 on
every contact, restitution 0, sleeping off):

- ``pyramid``: 20 rows of 1 x 1 boxes (210), 0.05 m gaps in a row, rows resting exactly on
  each other, bottom row centred at y = 0.5, on a static ground x in [-40, 40], y in [-1, 0];
  600 steps.
- ``pile``: 1000 random convex polygons (3-8 vertices on a circle, diameter 0.5-1.5 m, random
  angle) on a 24-column grid of pitch 1.6 m from y = 1, dropped into a static container (floor
  y in [-1, 0], x in [-21, 21]; walls x in [-21, -20] and [20, 21] up to y = 100); 600 steps.
- ``bullet``: a 0.1 m box at (0, 0) moving at (500, 0) m/s, no gravity, towards a static wall
  x in [10, 10.1], y in [-1, 1]; 60 steps.

The builders only use the public World API, so the program's scenes module can register them.
``main(argv)``: per scene ms/step (median and p95), contacts and the outcome; ``--json`` one
JSON object per scene; ``--vs pymunk`` the same scenes in pymunk, timed step by step in the
same loop (interleaved), and the ratio ours / pymunk.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from collision import Polygon, World

DT = 1.0 / 60.0
GRAVITY = (0.0, -10.0)
FRICTION = 0.6
RESTITUTION = 0.0
PILE_SEED = 1
PILE_BODIES = 1000
PYRAMID_ROWS = 20
BULLET_SPEED = 500.0


@dataclass(frozen=True)
class Scene:
    """One benchmark scene: builder, steps, and the box outside which a body has escaped."""

    name: str
    build: Callable[[World], None]
    steps: int
    gravity: tuple[float, float]
    bounds: tuple[float, float, float, float]  # x0, y0, x1, y1 (m)


def new_world(gravity: tuple[float, float] = GRAVITY) -> World:
    """A world with the benchmark's common settings (sleeping off)."""
    world = World(gravity=gravity, solver="iterative", friction=FRICTION, restitution=RESTITUTION)
    world.sleep_enabled = False
    return world


def _static_box(world: World, x0: float, y0: float, x1: float, y1: float) -> int:
    return world.add_body(Polygon.box(x1 - x0, y1 - y0), (0.5 * (x0 + x1), 0.5 * (y0 + y1)), static=True)


def pyramid_layout(rows: int = PYRAMID_ROWS) -> list[tuple[float, float]]:
    """Centres of the pyramid's 1 x 1 boxes, bottom row first."""
    pitch = 1.05
    centres = []
    for r in range(rows):
        count = rows - r
        for i in range(count):
            centres.append(((i - 0.5 * (count - 1)) * pitch, 0.5 + r))
    return centres


def build_pyramid(world: World, rows: int = PYRAMID_ROWS) -> None:
    """Ground x in [-40, 40], y in [-1, 0] and a pyramid of ``rows`` rows of unit boxes."""
    _static_box(world, -40.0, -1.0, 40.0, 0.0)
    box = Polygon.box(1.0, 1.0)
    for x, y in pyramid_layout(rows):
        world.add_body(box, (x, y), density=1.0)


def pile_shapes(seed: int = PILE_SEED, count: int = PILE_BODIES) -> list[tuple[np.ndarray, float, float]]:
    """``(local vertices (k, 2), x, y)`` of the pile's polygons (seeded).

    Vertices lie on a circle of diameter 0.5-1.5 m, at evenly spaced angles jittered by up to a
    quarter of the spacing and turned by a random angle (3-8 vertices: always convex).
    """
    rng = np.random.default_rng(seed)
    shapes = []
    for index in range(count):
        k = int(rng.integers(3, 9))
        r = 0.5 * rng.uniform(0.5, 1.5)
        spacing = 2.0 * math.pi / k
        turn = rng.uniform(0.0, 2.0 * math.pi)
        angles = turn + spacing * (np.arange(k) + rng.uniform(-0.25, 0.25, size=k))
        vertices = np.column_stack([r * np.cos(angles), r * np.sin(angles)])
        column = index % 24
        row = index // 24
        shapes.append((vertices, (column - 11.5) * 1.6, 1.0 + 1.6 * row))
    return shapes


def build_pile(world: World, seed: int = PILE_SEED, count: int = PILE_BODIES) -> None:
    """The container and ``count`` random convex polygons dropped into it."""
    _static_box(world, -21.0, -1.0, 21.0, 0.0)
    _static_box(world, -21.0, 0.0, -20.0, 100.0)
    _static_box(world, 20.0, 0.0, 21.0, 100.0)
    for vertices, x, y in pile_shapes(seed, count):
        # Polygon keeps the vertices as given; the world places the centroid at the position.
        world.add_body(Polygon(vertices), (x, y), density=1.0)


def build_bullet(world: World) -> None:
    """A static wall x in [10, 10.1], y in [-1, 1] and a 0.1 m box at (0, 0) at 500 m/s."""
    _static_box(world, 10.0, -1.0, 10.1, 1.0)
    world.add_body(Polygon.box(0.1, 0.1), (0.0, 0.0), velocity=(BULLET_SPEED, 0.0), density=1.0)


SCENES = {
    "pyramid": Scene("pyramid", build_pyramid, 600, GRAVITY, (-40.0, 0.0, 40.0, 100.0)),
    "pile": Scene("pile", build_pile, 600, GRAVITY, (-20.0, 0.0, 20.0, 200.0)),
    "bullet": Scene("bullet", build_bullet, 60, (0.0, 0.0), (-1.0, -1.0, 10.1, 1.0)),
}


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel a step uses, before timing."""
    world = new_world()
    _static_box(world, -5.0, -1.0, 5.0, 0.0)
    world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    world.add_body(Polygon([[0.0, 0.0], [1.0, 0.0]]), (0.0, 1.5))
    world.add_body(Polygon([[0.0, 0.0]]), (2.0, 0.2))
    world.add_body(Polygon.regular(5, 0.5), (2.0, 2.0))
    for _ in range(3):
        world.step(DT)


# -- pymunk (optional) --------------------------------------------------------------------------


def _pymunk_space(scene: Scene, world: World) -> tuple[Any, list[Any]]:
    """The same bodies as ``world`` in a pymunk space (defaults except gravity and friction)."""
    import pymunk

    space = pymunk.Space()
    space.gravity = scene.gravity
    # pymunk multiplies the two shapes' friction; sqrt makes every contact 0.6 like ours.
    mu = math.sqrt(FRICTION)
    bodies = []
    local = world._local_vertices
    counts = world._vertex_count
    for i in range(world.body_count):
        vertices = [tuple(v) for v in local[i, : counts[i]]]
        if world.static[i]:
            body = pymunk.Body(body_type=pymunk.Body.STATIC)
        else:
            body = pymunk.Body()
        body.position = tuple(world.position[i])
        body.angle = float(world.angle[i])
        shape = pymunk.Poly(body, vertices)
        shape.friction = mu
        shape.elasticity = RESTITUTION
        if not world.static[i]:
            shape.density = 1.0
        space.add(body, shape)
        if not world.static[i]:
            body.velocity = tuple(world.velocity[i])
            bodies.append(body)
    return space, bodies


# -- measuring ----------------------------------------------------------------------------------


def _outcome(scene: Scene, position: np.ndarray, start: np.ndarray, velocity: np.ndarray) -> dict[str, Any]:
    finite = bool(np.isfinite(position).all() and np.isfinite(velocity).all())
    x0, y0, x1, y1 = scene.bounds
    p = np.nan_to_num(position, nan=np.inf)
    outside = (p[:, 0] < x0) | (p[:, 0] > x1) | (p[:, 1] < y0) | (p[:, 1] > y1)
    result: dict[str, Any] = {
        "max_displacement": float(np.max(np.linalg.norm(position - start, axis=1))) if len(start) else 0.0,
        "max_speed_end": float(np.max(np.linalg.norm(velocity, axis=1))) if len(start) else 0.0,
        "escaped": int(np.count_nonzero(outside)),
        "nan": not finite,
    }
    if scene.name == "bullet":
        result["bullet_x"] = float(position[0, 0])
    return result


def run_scene(scene: Scene, steps: int | None = None, vs_pymunk: bool = False) -> dict[str, Any]:
    """Run one scene; returns the JSON fields (and ``pymunk_*`` fields when compared)."""
    world = new_world(scene.gravity)
    scene.build(world)
    moving = ~np.asarray(world.static)
    start = world.position[moving].copy()
    space = None
    pm_bodies: list[Any] = []
    if vs_pymunk:
        space, pm_bodies = _pymunk_space(scene, world)
        pm_start = np.array([tuple(b.position) for b in pm_bodies])
    n_steps = scene.steps if steps is None else steps
    ours = np.empty(n_steps)
    theirs = np.empty(n_steps)
    contacts_max = 0
    clock = time.perf_counter
    for k in range(n_steps):
        t0 = clock()
        world.step(DT)
        t1 = clock()
        ours[k] = t1 - t0
        contacts_max = max(contacts_max, len(world.contacts))
        if space is not None:
            t0 = clock()
            space.step(DT)
            theirs[k] = clock() - t0
    result: dict[str, Any] = {
        "scene": scene.name,
        "bodies": int(world.body_count),
        "steps": n_steps,
        "step_ms_median": float(np.median(ours) * 1e3),
        "step_ms_p95": float(np.percentile(ours, 95) * 1e3),
        "contacts_max": contacts_max,
    }
    result.update(_outcome(scene, world.position[moving], start, world.velocity[moving]))
    if space is not None:
        pm_pos = np.array([tuple(b.position) for b in pm_bodies])
        pm_vel = np.array([tuple(b.velocity) for b in pm_bodies])
        pm = _outcome(scene, pm_pos, pm_start, pm_vel)
        result["pymunk_step_ms_median"] = float(np.median(theirs) * 1e3)
        result["pymunk_step_ms_p95"] = float(np.percentile(theirs, 95) * 1e3)
        result["ratio"] = result["step_ms_median"] / result["pymunk_step_ms_median"]
        for name, value in pm.items():
            result["pymunk_" + name] = value
    return result


def _describe(r: dict[str, Any]) -> str:
    text = (
        f"{r['scene']}: {r['bodies']} bodies, {r['steps']} steps, {r['step_ms_median']:.3f} ms/step median "
        f"(p95 {r['step_ms_p95']:.3f}), contacts max {r['contacts_max']}, max displacement "
        f"{r['max_displacement']:.4f} m, max speed at end {r['max_speed_end']:.4f} m/s, "
        f"escaped {r['escaped']}, nan {r['nan']}"
    )
    if "bullet_x" in r:
        text += f", bullet stopped at x = {r['bullet_x']:.4f} m (wall x in [10, 10.1])"
    if "ratio" in r:
        text += (
            f"\n  pymunk: {r['pymunk_step_ms_median']:.3f} ms/step median "
            f"(p95 {r['pymunk_step_ms_p95']:.3f}), "
            f"max displacement {r['pymunk_max_displacement']:.4f} m, max speed at end "
            f"{r['pymunk_max_speed_end']:.4f} m/s, escaped {r['pymunk_escaped']}"
        )
        if "pymunk_bullet_x" in r:
            text += f", bullet at x = {r['pymunk_bullet_x']:.4f} m"
        text += f"\n  ratio ours/pymunk: {r['ratio']:.2f}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m demo bench [SCENE ...] [--json] [--vs pymunk] [--steps N]``."""
    parser = argparse.ArgumentParser(prog="python -m demo bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", nargs="*", choices=[*SCENES, []], help="scenes to run (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object per scene")
    parser.add_argument("--vs", choices=["pymunk"], help="also run the scenes in pymunk, interleaved")
    parser.add_argument("--steps", type=int, help="override each scene's step count")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.vs == "pymunk":
        try:
            import pymunk  # noqa: F401
        except ImportError:
            print(
                "--vs pymunk needs pymunk: pip install 'polycolly[bench]' (or pip install pymunk)",
                file=sys.stderr,
            )
            return 2
    if args.steps is not None and args.steps <= 0:
        parser.error(f"--steps {args.steps}: must be > 0")
    if not args.json:
        print("compiling / loading the engine ...", file=sys.stderr)
    warm_up()
    for name in args.scenes or list(SCENES):
        result = run_scene(SCENES[name], args.steps, vs_pymunk=args.vs == "pymunk")
        print(json.dumps(result) if args.json else _describe(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
