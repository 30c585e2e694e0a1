"""Scenes: a registry of builders, each making a :class:`Scene` (a World plus how to show it).

Importable without any GL library: tests and benchmarks build scenes headless.

A builder takes ``(seed, bodies)`` and returns a Scene; ``bodies`` None means the scene's
default count. Scenes may carry hooks the program calls: ``on_action(scene, action) -> bool``
(handle a control-table action such as "more_bodies"; True if handled), ``on_step(scene, dt)``
(before each physics step) and ``on_overlay(scene, batch)`` (extra lines and points; ``batch``
has ``add_lines(segments (m, 2, 2), color)`` and ``add_points(points (m, 2), color)``).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import Polygon, World

Rect = tuple[float, float, float, float]


@dataclass
class Scene:
    """A world and how to present it.

    ``view``: world rectangle (x0, y0, x1, y1) to show; ``bounds``: a moving body whose centroid
    leaves this rectangle has escaped; ``dt``: the physics step (s); ``turret``: where `x` fires
    from (2,), or None: the scene has no turret (no world whose bodies a shot could push: the
    teaching pairs, primitives, crack), so none is drawn and `x` does nothing there;
    ``help``: lines shown in the overlay; ``bodies``: the body count asked for.
    """

    name: str
    world: World
    view: Rect
    bounds: Rect
    seed: int
    bodies: int
    help: list[str] = field(default_factory=list)
    dt: float = 1.0 / 60.0
    turret: tuple[float, float] | None = None
    min_bodies: int = 1
    max_bodies: int = 999
    default_bodies: int = 1
    on_action: Callable[[Scene, str], bool] | None = None
    on_step: Callable[[Scene, float], None] | None = None
    on_overlay: Callable[[Scene, Any], None] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    #: Set by the program: the held actions (live set), the cursor in world units, whether Shift
    #: was down at the last mouse press, and the overlay switches (live dict: "contacts", ...).
    held: set[str] = field(default_factory=set)
    cursor: np.ndarray = field(default_factory=lambda: np.zeros(2))
    shift: bool = False
    show: dict[str, bool] = field(default_factory=dict)
    #: False: the mouse buttons do not attract / repel (the scene uses them).
    mouse_forces: bool = True
    #: Per-body fill colour overrides {body index: (r, g, b, a)}.
    body_colors: dict[int, tuple[float, float, float, float]] = field(default_factory=dict)
    #: Lines shown under the heads-up line every frame (counters, times, switches).
    status: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SceneSpec:
    name: str
    build: Callable[[int, int | None], Scene]
    description: str


_REGISTRY: dict[str, SceneSpec] = {}


def register(
    name: str, description: str
) -> Callable[[Callable[[int, int | None], Scene]], Callable[..., Scene]]:
    """Decorator: add a builder ``(seed, bodies) -> Scene`` to the registry under ``name``."""

    def wrap(build: Callable[[int, int | None], Scene]) -> Callable[..., Scene]:
        _REGISTRY[name] = SceneSpec(name, build, description)
        return build

    return wrap


def _load_bench_scenes() -> None:
    """Register demo/bench.py's benchmark scenes, if that module exists (imported lazily)."""
    if _BENCH_STATE["tried"]:
        return
    _BENCH_STATE["tried"] = True
    try:
        bench = importlib.import_module("demo.bench")
    except ImportError:
        return
    specs = getattr(bench, "SCENES", {})
    for name, spec in specs.items():
        if name not in _REGISTRY:
            description = _BENCH_DESCRIPTIONS.get(name, f"benchmark: {name} (demo/bench.py)")
            _REGISTRY[name] = SceneSpec(name, _bench_adapter(bench, spec), description)


_BENCH_STATE = {"tried": False, "modules": False}

#: What the benchmark scenes show (their list line and on-screen help).
_BENCH_DESCRIPTIONS = {
    "pyramid": "20 rows of 1 x 1 m boxes on the ground (210 boxes): the stacking benchmark",
    "pile": "1000 random convex polygons dropped into a 40 m wide container: the benchmark",
}

#: How the benchmark scenes are framed (world rectangles), and where their turret sits.
_BENCH_VIEWS: dict[str, tuple[Rect, tuple[float, float]]] = {
    "pyramid": ((-16.0, -2.0, 16.0, 22.0), (-14.0, 0.5)),
    "pile": ((-23.0, -2.0, 23.0, 70.0), (0.0, 75.0)),
    "bullet": ((-2.0, -4.0, 12.0, 4.0), (5.0, -3.0)),
}


def _bench_adapter(bench: Any, spec: Any) -> Callable[[int, int | None], Scene]:
    """A scene builder around one of demo.bench's ``SCENES`` (builder ``build(world)``)."""

    def make(seed: int, bodies: int | None) -> Scene:
        world = bench.new_world(spec.gravity)
        if spec.name == "pile" and bodies is not None:
            bench.build_pile(world, count=max(int(bodies) - 3, 1))  # the container is 3 static boxes
        else:
            spec.build(world)
        scene = scene_for_world(spec.name, world, seed)
        scene.bounds = tuple(float(v) for v in spec.bounds)  # type: ignore[assignment]
        if spec.name in _BENCH_VIEWS:
            scene.view, scene.turret = _BENCH_VIEWS[spec.name]
        scene.help = [
            f"{spec.name}: {_BENCH_DESCRIPTIONS.get(spec.name, 'a benchmark scene of demo/bench.py')}"
        ]
        return scene

    return make


def scene_for_world(name: str, world: World, seed: int = 0, margin: float = 0.1) -> Scene:
    """A Scene showing ``world`` whole: the view fits every body with a margin (fraction)."""
    wv = world.world_vertices()
    counts = np.asarray(world.vertex_count)
    mask = np.arange(wv.shape[1])[None, :] < counts[:, None]
    pts = wv[mask] if world.body_count else np.zeros((1, 2))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    size = np.maximum(hi - lo, 1.0)
    lo, hi = lo - margin * size, hi + margin * size
    view = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
    size = hi - lo
    bounds = (float(lo[0] - size[0]), float(lo[1] - size[1]), float(hi[0] + size[0]), float(hi[1] + size[1]))
    # The turret at the top of the view, where falling bodies leave room to shoot down at them.
    turret = (float((lo[0] + hi[0]) / 2), float(hi[1] - 0.05 * size[1]))
    n = world.body_count
    return Scene(
        name,
        world,
        view,
        bounds,
        seed,
        n,
        dt=1.0 / 60.0,
        turret=turret,
        min_bodies=n,
        max_bodies=n,
        default_bodies=n,
    )


#: Tab order: the default, the original programs, the seeds, then the engine's scenes.
SCENE_ORDER = (
    "rigid",
    "sat",
    "mtd",
    "swept",
    "rotation",
    "contacts",
    "arcade",
    "arcade-spin",
    "bullets",
    "laser",
    "clipping",
    "crack",
    "primitives",
    "pyramid",
    "pile",
    "bullet",
    "restitution",
    "friction",
    "mass-ratio",
    "concave",
    "tumbler",
)


def _load_scene_modules() -> None:
    """Import the modules that register the other scenes (they import this one)."""
    if _BENCH_STATE["modules"]:
        return
    _BENCH_STATE["modules"] = True
    importlib.import_module("demo.teaching")
    importlib.import_module("demo.showcase")


def scene_names() -> list[str]:
    """Every registered scene name, the default first, in Tab order."""
    _load_scene_modules()
    _load_bench_scenes()
    rank = {name: i for i, name in enumerate(SCENE_ORDER)}
    return sorted(_REGISTRY, key=lambda name: rank.get(name, len(rank)))


def is_scene_file(name: str) -> bool:
    """Whether ``--scene`` names a JSON scene file rather than a registered scene."""
    return name.lower().endswith(".json")


def check_scene_name(name: str) -> str | None:
    """None if ``name`` is a scene or a loadable scene file; else the message to print."""
    if is_scene_file(name):
        from demo import scenefile  # noqa: PLC0415

        try:
            scenefile.read_scene_file(name)
        except ValueError as exc:
            return str(exc)
        return None
    names = scene_names()
    if name not in names:
        return f"unknown scene {name!r}; valid scenes: {', '.join(names)} (or a scene file NAME.json)"
    return None


def describe() -> list[tuple[str, str]]:
    """(name, description) of every scene."""
    names = scene_names()
    return [(name, _REGISTRY[name].description) for name in names]


def build_scene(name: str, seed: int = 0, bodies: int | None = None) -> Scene:
    """Build scene ``name`` (or load the JSON scene file ``name``); ValueError if it cannot.

    An unknown name's message lists the valid names; a bad file's names the file and field.
    """
    if is_scene_file(name):
        from demo import scenefile  # noqa: PLC0415

        return scenefile.load_scene_file(name, seed=int(seed))
    names = scene_names()
    if name not in _REGISTRY:
        raise ValueError(f"unknown scene {name!r}; valid scenes: {', '.join(names)}")
    return _REGISTRY[name].build(int(seed), bodies)


# ----------------------------------------------------------------------------------------------
# rigid: the original T7 rigid-body demo.

#: The original's world: 100 units square, walls 100 x 100 centred 49 units outside the arena.
ARENA = 100.0
WALL_CENTRES = ((50.0, -49.0), (50.0, 149.0), (-49.0, 50.0), (149.0, 50.0))
PIN_CENTRE, PIN_SIZE = (50.0, 50.0), 1.0
#: The arena inside the walls, (x0, y0, x1, y1).
ARENA_INSIDE = (1.0, 1.0, 99.0, 99.0)
#: Body counts include the 4 walls and the pin, as in the original (20 = 15 random bodies).
RIGID_DEFAULT_BODIES, RIGID_MIN_BODIES, RIGID_MAX_BODIES = 20, 5, 999
FIXED_BODIES = 5
#: The original's random shapes: 1..6 vertices, height 2..6, width height * 0.6..1.4, 30% static.
STATIC_PROBABILITY = 0.3
#: The original program's material after its first key press (GameCode.cpp): we start with it.
RIGID_FRICTION, RIGID_RESTITUTION, RIGID_STATIC_FRICTION = 0.3, 0.7, 0.5
#: The original pulled with 5 units/s^2 but stepped 1/40 s per ~1/60 s frame, so it looked like ~11.
RIGID_GRAVITY = 10.0
#: Fraction of the arena the random bodies' bounding circles may cover when spawning; above it,
#: bodies are shrunk (999 full-size bodies cannot fit; the original let them overlap).
SPAWN_FILL = 0.3
#: Mean bounding-circle area of a full-size random body (units^2): E[pi max(rx, ry)^2].
MEAN_CIRCLE_AREA = 66.8
#: Gap (units) kept between spawned bodies' bounding circles and the walls.
SPAWN_GAP = 0.2
#: Attempts at a free spot before a new body is shrunk, and how many shrinks before giving up.
SPAWN_ATTEMPTS, SPAWN_SHRINKS, SPAWN_SHRINK_FACTOR = 60, 6, 0.75
#: Points have no extent; they still keep this clearance (units) when spawning.
POINT_SPAWN_RADIUS = 0.5

RIGID_HELP = ["rigid: the original demo (Tutorial 7)"]


def random_shape(rng: np.random.Generator, scale: float = 1.0) -> tuple[Polygon, bool, float]:
    """One of the original's random bodies: (shape, static, angle)."""
    n = int(rng.integers(1, 7))
    height = float(rng.uniform(2.0, 6.0)) * scale
    width = height * float(rng.uniform(0.6, 1.4))
    static = bool(rng.random() < STATIC_PROBABILITY)
    angle = float(rng.uniform(1.0, 4.0))
    if static and n <= 4:
        angle = 0.0  # the original kept small static bodies axis-aligned
    return Polygon.blob(n, width, height), static, angle


def _spawn_radius(shape: Polygon) -> float:
    return max(float(shape.radius), POINT_SPAWN_RADIUS)


def _free_spot(
    rng: np.random.Generator, radius: float, centres: np.ndarray, radii: np.ndarray
) -> np.ndarray | None:
    """A centre in the arena whose circle of ``radius`` overlaps no circle (centres (m, 2), radii (m,))."""
    x0, y0, x1, y1 = ARENA_INSIDE
    lo, hi = x0 + radius + SPAWN_GAP, x1 - radius - SPAWN_GAP
    lo_y, hi_y = y0 + radius + SPAWN_GAP, y1 - radius - SPAWN_GAP
    if lo >= hi or lo_y >= hi_y:
        return None
    for _ in range(SPAWN_ATTEMPTS):
        p = np.array([rng.uniform(lo, hi), rng.uniform(lo_y, hi_y)])
        if len(centres) == 0:
            return p
        gap = np.hypot(centres[:, 0] - p[0], centres[:, 1] - p[1]) - radii - radius
        if gap.min() > SPAWN_GAP:
            return p
    return None


def _occupied(world: World) -> tuple[np.ndarray, np.ndarray]:
    """Bounding circles of the bodies inside the arena (the walls are handled by the arena box)."""
    centres = world.position[FIXED_BODIES - 1 :]
    radii = np.maximum(world._radius[FIXED_BODIES - 1 :], POINT_SPAWN_RADIUS)
    return centres.copy(), radii.copy()


def add_random_body(scene: Scene) -> int | None:
    """Add one random body at a free spot (shrinking it if the arena is crowded); its index or None."""
    world = scene.world
    rng: np.random.Generator = scene.data["rng"]
    scale = float(scene.data["scale"])
    centres, radii = _occupied(world)
    for _ in range(SPAWN_SHRINKS + 1):
        shape, static, angle = random_shape(rng, scale)
        spot = _free_spot(rng, _spawn_radius(shape), centres, radii)
        if spot is not None:
            return world.add_body(shape, spot, angle=angle, static=static)
        scale *= SPAWN_SHRINK_FACTOR
    return None


def _rigid_action(scene: Scene, action: str) -> bool:
    world = scene.world
    if action == "more_bodies":
        if world.body_count < scene.max_bodies:
            add_random_body(scene)
        return True
    if action == "fewer_bodies":
        if world.body_count > scene.min_bodies:
            world.remove_body(world.body_count - 1)
        return True
    if action == "reset_count":
        while world.body_count > scene.default_bodies:
            world.remove_body(world.body_count - 1)
        while world.body_count < scene.default_bodies:
            if add_random_body(scene) is None:
                break
        return True
    return False


def body_scale(bodies: int) -> float:
    """Size factor for the random bodies so that ``bodies`` of them fit the arena (1 = original)."""
    random_bodies = max(bodies - FIXED_BODIES, 1)
    x0, y0, x1, y1 = ARENA_INSIDE
    room = SPAWN_FILL * (x1 - x0) * (y1 - y0)
    return min(1.0, math.sqrt(room / (random_bodies * MEAN_CIRCLE_AREA)))


@register("rigid", "the original rigid-body demo (T7): walls, a pin, random bodies, attract and repel")
def build_rigid(seed: int = 0, bodies: int | None = None) -> Scene:
    """Four static 100 x 100 walls, the 1 x 1 pin at (50, 50) and ``bodies - 5`` random bodies."""
    count = RIGID_DEFAULT_BODIES if bodies is None else int(bodies)
    if not RIGID_MIN_BODIES <= count <= RIGID_MAX_BODIES:
        raise ValueError(f"bodies = {count}: the rigid scene takes {RIGID_MIN_BODIES}..{RIGID_MAX_BODIES}")
    world = World(
        gravity=(0.0, -RIGID_GRAVITY),
        friction=RIGID_FRICTION,
        restitution=RIGID_RESTITUTION,
        static_friction=RIGID_STATIC_FRICTION,
    )
    wall = Polygon.box(ARENA, ARENA)
    for centre in WALL_CENTRES:
        world.add_body(wall, centre, static=True)
    world.add_body(Polygon.box(PIN_SIZE, PIN_SIZE), PIN_CENTRE, static=True)
    scene = Scene(
        "rigid",
        world,
        view=(0.0, 0.0, ARENA, ARENA),
        bounds=(0.0, 0.0, ARENA, ARENA),
        seed=int(seed),
        bodies=count,
        help=list(RIGID_HELP),
        dt=1.0 / 60.0,
        turret=(50.0, ARENA_INSIDE[1] + 1.5),
        min_bodies=RIGID_MIN_BODIES,
        max_bodies=RIGID_MAX_BODIES,
        default_bodies=RIGID_DEFAULT_BODIES,
        on_action=_rigid_action,
        data={"rng": np.random.default_rng(seed), "scale": body_scale(count)},
    )
    while world.body_count < count:
        if add_random_body(scene) is None:
            break
    return scene


# ----------------------------------------------------------------------------------------------
# Measurements without drawing (python -m demo --headless --steps N --stats).


def run_stats(scene: Scene, steps: int) -> dict[str, Any]:
    """Run ``steps`` physics steps and measure them; the JSON fields of ``--stats``."""
    import time  # noqa: PLC0415

    world = scene.world
    start = world.position.copy()
    moving = ~np.asarray(world.static, dtype=bool)
    times = np.zeros(steps)
    contacts_max = 0
    nan = False
    for k in range(steps):
        if scene.on_step is not None:
            scene.on_step(scene, scene.dt)
        t0 = time.perf_counter()
        try:
            world.step(scene.dt)
        except ValueError:
            nan = True  # the world refuses to step non-finite state
            times = times[:k]
            break
        times[k] = time.perf_counter() - t0
        contacts_max = max(contacts_max, len(world.contacts))
    state = np.concatenate(
        [world.position.ravel(), world.angle, world.velocity.ravel(), world.angular_velocity]
    )
    nan = nan or not bool(np.isfinite(state).all())
    # Scenes may add or remove bodies (bullets): compare the bodies that exist at both ends.
    pos = world.position
    kept = min(len(start), len(pos))
    moved = moving[:kept] & ~np.asarray(world.static[:kept], dtype=bool)
    displacement = np.hypot(*(pos[:kept][moved] - start[:kept][moved]).T) if moved.any() else np.zeros(0)
    moving = ~np.asarray(world.static, dtype=bool)
    x0, y0, x1, y1 = scene.bounds
    outside = (
        (pos[:, 0] < x0) | (pos[:, 0] > x1) | (pos[:, 1] < y0) | (pos[:, 1] > y1) | ~np.isfinite(pos).all(1)
    )
    ms = times * 1000.0
    return {
        "scene": scene.name,
        "solver": world.solver,
        "bodies": world.body_count,
        "steps": int(steps),
        "dt": scene.dt,
        "step_ms_median": round(float(np.median(ms)), 4) if len(ms) else None,
        "step_ms_p95": round(float(np.percentile(ms, 95)), 4) if len(ms) else None,
        "contacts_max": int(contacts_max),
        "max_displacement": round(float(np.nanmax(displacement)), 6) if len(displacement) else 0.0,
        "escaped": int(np.count_nonzero(outside & moving)),
        "nan": bool(nan),
        "state_hash": world.state_hash(),
    }
