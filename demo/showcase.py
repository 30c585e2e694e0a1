"""The scenes beyond the teaching pairs: the original's game-like programs (T4, T5b, T7b, T8),
the seeds (002 crack, 001 primitives) and the scenes that show the engine beyond the original.

Importable without GL. Every builder takes ``(seed, bodies)`` and returns a :class:`Scene`;
hooks read the program's held actions and cursor from the scene (``scene.held``,
``scene.cursor``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from collision import Polygon, World, clip_segment, decompose, intersect
from collision import primitives as prim
from demo import scenes
from demo.scenes import Scene, register

MOVES = {"move_left": (-1.0, 0.0), "move_right": (1.0, 0.0), "move_up": (0.0, 1.0), "move_down": (0.0, -1.0)}
WHITE = (1.0, 1.0, 1.0, 1.0)
RED = (1.0, 0.0, 0.0, 1.0)
YELLOW = (1.0, 1.0, 0.3, 1.0)
HIGHLIGHT = (1.0, 0.35, 0.35, 1.0)
CALM = (0.5, 1.0, 0.5, 1.0)


def _walled_world(**kwargs: Any) -> World:
    """A world with the original's four 100 x 100 walls around the arena [1, 99]^2."""
    world = World(**kwargs)
    wall = Polygon.box(scenes.ARENA, scenes.ARENA)
    for centre in scenes.WALL_CENTRES:
        world.add_body(wall, centre, static=True)
    return world


#: Where the arena scenes' turret sits: on the floor, left of the player, who starts in the middle.
ARENA_TURRET = (8.0, 2.5)


def _arena_scene(name: str, world: World, seed: int, help_lines: list[str], **kwargs: Any) -> Scene:
    count = world.body_count
    return Scene(
        name,
        world,
        view=(0.0, 0.0, scenes.ARENA, scenes.ARENA),
        bounds=(0.0, 0.0, scenes.ARENA, scenes.ARENA),
        seed=int(seed),
        bodies=count,
        help=list(help_lines),
        turret=ARENA_TURRET,
        min_bodies=count,
        max_bodies=count,
        default_bodies=count,
        **kwargs,
    )


def _spawn(world: World, rng: np.random.Generator, shape: Polygon, first: int, **kwargs: Any) -> int | None:
    """Add ``shape`` at a free spot of the arena (no overlap with bodies from ``first`` on)."""
    centres = world.position[first:].copy()
    radii = np.maximum(world._radius[first:], scenes.POINT_SPAWN_RADIUS)
    spot = scenes._free_spot(rng, max(float(shape.radius), scenes.POINT_SPAWN_RADIUS), centres, radii)
    if spot is None:
        return None
    return world.add_body(shape, spot, **kwargs)


def _held_direction(scene: Scene) -> np.ndarray:
    held = [MOVES[a] for a in MOVES if a in scene.held]
    return np.sum(held, axis=0) if held else np.zeros(2)


# ----------------------------------------------------------------------------------------------
# arcade (T4) and arcade-spin (T5b).

#: T4: the player is a 10 x 15 box of mass 100; random bodies have 2-7 vertices, radius 4-6,
#: are static with probability 0.7 and weigh size^2. Material: friction 0, restitution 0.1,
#: glue 0.01 (units/s here: the arcade solver's static friction is a glue speed).
ARCADE_PLAYER_SIZE, ARCADE_PLAYER_MASS = (10.0, 15.0), 100.0
ARCADE_RANDOM_BODIES, ARCADE_STATIC_PROBABILITY = 5, 0.7
ARCADE_FRICTION, ARCADE_RESTITUTION, ARCADE_GLUE = 0.0, 0.1, 0.01
ARCADE_GRAVITY = 10.0
#: Player push (units/s^2 per unit of key): sideways, up, down; and the velocity damping (1/s)
#: standing in for the original's "-d * 0.3 / dt" on its per-frame displacement.
PLAYER_PUSH = (100.0, 200.0, 60.0)
PLAYER_DAMPING = 3.0
#: T5b: every body turns at a constant rate drawn from this range (rad/s); collisions never
#: change it (the arcade response treats rotation as kinematic).
SPIN_RANGE = (1.0, 4.0)


def push_player(scene: Scene, player: int) -> None:
    """Arrow keys push the player (forces scaled by its mass), damped by its velocity."""
    world = scene.world
    d = _held_direction(scene)
    m = float(world.mass[player])
    fx = PLAYER_PUSH[0] * d[0]
    fy = PLAYER_PUSH[1] * max(d[1], 0.0) + PLAYER_PUSH[2] * min(d[1], 0.0)
    force = m * (np.array([fx, fy]) - PLAYER_DAMPING * world.velocity[player])
    if d.any() or np.hypot(*world.velocity[player]) > 0.0:
        world.apply_force(player, force)


def _arcade_step(scene: Scene, dt: float) -> None:
    push_player(scene, scene.data["player"])
    spins = scene.data.get("static_spin")
    if spins is not None and scene.data.get("spin", True):
        world = scene.world
        for i, omega in spins:
            world.angle[i] = (world.angle[i] + omega * dt + math.pi) % (2 * math.pi) - math.pi


def _arcade_action(scene: Scene, action: str) -> bool:
    if action == "toggle_spin" and "static_spin" in scene.data:
        scene.data["spin"] = not scene.data.get("spin", True)
        world = scene.world
        for i, omega in scene.data["dynamic_spin"]:
            world.angular_velocity[i] = omega if scene.data["spin"] else 0.0
        return True
    if action in MOVES:
        return True
    return action in ("more_bodies", "fewer_bodies", "reset_count")


def _label_player(scene: Scene, batch: Any) -> None:
    batch.add_text("player", scene.world.position[scene.data["player"]], WHITE)


def _build_arcade(name: str, seed: int, spin: bool) -> Scene:
    rng = np.random.default_rng(seed)
    world = _walled_world(
        gravity=(0.0, -ARCADE_GRAVITY),
        solver="arcade",
        friction=ARCADE_FRICTION,
        restitution=ARCADE_RESTITUTION,
        static_friction=ARCADE_GLUE,
    )
    w, h = ARCADE_PLAYER_SIZE
    player = world.add_body(Polygon.box(w, h), (50.0, 20.0), density=ARCADE_PLAYER_MASS / (w * h))
    static_spin: list[tuple[int, float]] = []
    dynamic_spin: list[tuple[int, float]] = []
    for _ in range(ARCADE_RANDOM_BODIES):
        n = int(rng.integers(2, 8))
        r = float(rng.uniform(4.0, 6.0))
        shape = Polygon.blob(n, r, r)
        static = bool(rng.random() < ARCADE_STATIC_PROBABILITY)
        area = max(float(shape.area), 1e-9)
        density = 1.0 if n < 3 else r * r / area  # mass size^2 (points and segments: nominal)
        omega = float(rng.uniform(*SPIN_RANGE)) if spin else 0.0
        i = _spawn(
            world,
            rng,
            shape,
            player,
            static=static,
            density=density,
            angular_velocity=0.0 if static else omega,
        )
        if i is not None and spin:
            (static_spin if static else dynamic_spin).append((i, omega))
    help_lines = [
        f"{name} ({'T5b' if spin else 'T4'}): arrows push the player; arcade response",
        "7/4 friction, 8/5 elasticity, 9/6 glue (static friction)",
    ]
    if spin:
        help_lines.append("every body turns at a fixed rate; a: spin on / off")
    scene = _arena_scene(name, world, seed, help_lines, mouse_forces=True)
    scene.data["player"] = player
    if spin:
        scene.data.update(static_spin=static_spin, dynamic_spin=dynamic_spin, spin=True)
    scene.on_step = _arcade_step
    scene.on_action = _arcade_action
    scene.on_overlay = _label_player
    return scene


@register("arcade", "T4: a player box, random bodies (70% static), the arcade response on the digit keys")
def build_arcade(seed: int = 0, bodies: int | None = None) -> Scene:
    return _build_arcade("arcade", seed, spin=False)


@register("arcade-spin", "T5b: the arcade scene with every body spinning at a fixed rate")
def build_arcade_spin(seed: int = 0, bodies: int | None = None) -> Scene:
    return _build_arcade("arcade-spin", seed, spin=True)


# ----------------------------------------------------------------------------------------------
# bullets (T7b) and laser (T8).

#: T8's player: a 7 x 10 box of density 0.4 that does not turn. T8 had 15 random bodies (40%
#: static); T7b 5 random bodies of 2-7 vertices.
SHOOTER_SIZE, SHOOTER_DENSITY = (7.0, 10.0), 0.4
#: T8's player push (units/s^2 per key, scaled by mass): sideways 20, up 30, down 10.
SHOOTER_PUSH = (20.0, 30.0, 10.0)
SHOOTER_DAMPING = 0.5
#: T7b: a bullet is a particle of mass 3 (a point gets 5 * density) at 100 units/s, spawned 10
#: units out along the aim; at most 30 alive; removed after more than 5 hits (steps in contact).
BULLET_MASS, BULLET_SPEED, BULLET_SPAWN, MAX_BULLETS, BULLET_MAX_HITS = 3.0, 100.0, 10.0, 30, 5
FIRE_INTERVAL = 0.2
#: T8's laser: 1000 units long; 15000 force units for one 1/40 s step = an impulse of 375.
LASER_RANGE, LASER_IMPULSE, LASER_SHOW_S = 1000.0, 15000.0 / 40.0, 0.15


def _shooter_scene(
    name: str, seed: int, random_bodies: int, static_p: float, sides: tuple[int, int]
) -> Scene:
    rng = np.random.default_rng(seed)
    world = _walled_world(
        gravity=(0.0, -scenes.RIGID_GRAVITY),
        solver="tutorial",
        friction=scenes.RIGID_FRICTION,
        restitution=scenes.RIGID_RESTITUTION,
        static_friction=scenes.RIGID_STATIC_FRICTION,
    )
    w, h = SHOOTER_SIZE
    player = world.add_body(Polygon.box(w, h), (50.0, 10.0), density=SHOOTER_DENSITY)
    world._inv_inertia[player] = 0.0  # T8: the player never turns (inertia "infinite")
    for _ in range(random_bodies):
        n = int(rng.integers(sides[0], sides[1] + 1))
        height = float(rng.uniform(2.0, 6.0))
        shape = Polygon.blob(n, height * float(rng.uniform(0.6, 1.4)), height)
        _spawn(
            world, rng, shape, player, static=bool(rng.random() < static_p), angle=float(rng.uniform(1, 4))
        )
    verb = "fires bullets" if name == "bullets" else "fires the laser"
    scene = _arena_scene(
        name,
        world,
        seed,
        [f"{name} ({'T7b' if name == 'bullets' else 'T8'}): arrows move the player; left mouse {verb}"],
        mouse_forces=False,
    )
    scene.data.update(player=player, fire_timer=0.0, bullets=[], hits={}, shots=[], removed=0)
    scene.on_action = _shooter_action
    scene.on_step = _shooter_step
    scene.on_overlay = _shooter_overlay
    return scene


def aim(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """(player centre, unit direction toward the cursor)."""
    start = scene.world.position[scene.data["player"]].copy()
    d = scene.cursor - start
    length = float(np.hypot(*d))
    return start, (d / length if length > 1e-9 else np.array([0.0, 1.0]))


def fire(scene: Scene) -> None:
    """Fire once: a bullet (bullets) or the laser (laser) toward the cursor."""
    world = scene.world
    start, direction = aim(scene)
    if scene.name == "bullets":
        bullets: list[int] = scene.data["bullets"]
        if len(bullets) >= MAX_BULLETS:
            _remove_bullet(scene, bullets[0])
        spot = start + direction * BULLET_SPAWN
        if world.query_point(spot):
            return  # the muzzle is inside something: no room for a bullet
        i = world.add_body(
            np.zeros((1, 2)), spot, velocity=direction * BULLET_SPEED, density=BULLET_MASS / 5.0
        )
        bullets.append(i)
        scene.data["hits"][i] = 0
        return
    end = start + direction * LASER_RANGE
    hit = world.raycast(start, end, ignore=(scene.data["player"],))
    if hit is not None:
        end = np.asarray(hit.point, dtype=np.float64)
        if not world.static[hit.body]:
            world.apply_impulse(hit.body, direction * LASER_IMPULSE, end)
    scene.data["shots"].append([start, end, 0.0])


def _remove_bullet(scene: Scene, i: int) -> None:
    world = scene.world
    world.remove_body(i)
    bullets = [b - (b > i) for b in scene.data["bullets"] if b != i]
    hits = {b - (b > i): n for b, n in scene.data["hits"].items() if b != i}
    scene.data["bullets"], scene.data["hits"] = bullets, hits
    scene.data["removed"] += 1
    if scene.data["player"] > i:
        scene.data["player"] -= 1


def _shooter_action(scene: Scene, action: str) -> bool:
    if action == "attract":
        fire(scene)
        scene.data["fire_timer"] = 0.0
        return True
    return action in MOVES or action in ("repel", "more_bodies", "fewer_bodies", "reset_count")


def _shooter_step(scene: Scene, dt: float) -> None:
    world = scene.world
    player = scene.data["player"]
    d = _held_direction(scene)
    m = float(world.mass[player])
    push = np.array([SHOOTER_PUSH[0] * d[0], SHOOTER_PUSH[1] * max(d[1], 0) + SHOOTER_PUSH[2] * min(d[1], 0)])
    world.apply_force(player, m * (push * 10.0 - SHOOTER_DAMPING * world.velocity[player]))
    if "attract" in scene.held:
        scene.data["fire_timer"] += dt
        while scene.data["fire_timer"] >= FIRE_INTERVAL:
            scene.data["fire_timer"] -= FIRE_INTERVAL
            fire(scene)
    for shot in scene.data["shots"]:
        shot[2] += dt
    scene.data["shots"] = [s for s in scene.data["shots"] if s[2] < LASER_SHOW_S]
    # Hits of the last step: a bullet in contact counts one hit per step (the original counted
    # resting contacts too); more than BULLET_MAX_HITS removes it.
    contacts = world.contacts
    if scene.data["bullets"] and len(contacts):
        touched = set(np.asarray(contacts.body_a).tolist()) | set(np.asarray(contacts.body_b).tolist())
        for b in list(scene.data["bullets"]):
            if b in touched:
                scene.data["hits"][b] += 1
        for b in sorted((b for b, n in scene.data["hits"].items() if n > BULLET_MAX_HITS), reverse=True):
            _remove_bullet(scene, b)


def _shooter_overlay(scene: Scene, batch: Any) -> None:
    start, direction = aim(scene)
    batch.add_lines(np.array([[start, start + direction * 10.0]]), WHITE)
    batch.add_text("player", start, WHITE)
    for s, e, age in scene.data["shots"]:
        fade = max(0.0, 1.0 - age / LASER_SHOW_S)
        batch.add_lines(np.array([[s, e]]), (1.0, 0.0, 0.0, fade))
        batch.add_points(np.array([e]), (1.0, 0.0, 0.0, fade))
    bullets = scene.data["bullets"]
    if bullets:
        scene.body_colors = {b: RED for b in bullets}
    else:
        scene.body_colors = {}
    if scene.name == "bullets":
        scene.status = [f"bullets alive {len(bullets)}, removed {scene.data['removed']} (after > 5 hits)"]


@register(
    "bullets", "T7b: the player fires bullet particles at the cursor; a bullet dies after more than 5 hits"
)
def build_bullets(seed: int = 0, bodies: int | None = None) -> Scene:
    return _shooter_scene("bullets", seed, 5, scenes.STATIC_PROBABILITY, (2, 7))


@register("laser", "T8: the player fires a laser at the cursor; it stops at the first body and pushes it")
def build_laser(seed: int = 0, bodies: int | None = None) -> Scene:
    return _shooter_scene("laser", seed, 15, 0.4, (1, 6))


# ----------------------------------------------------------------------------------------------
# crack (seed 002).

#: A wall of flush 1 x 1 boxes along y in [-1, 0] and a 1 x 1 player driven diagonally into it
#: at CRACK_SPEED units/s along both axes, without friction: it must slide along the wall.
CRACK_BOXES, CRACK_SPEED = 24, 6.0
#: A step in which the player advances less than this fraction of its free sideways motion is
#: a snag (it stopped on an inner edge of the wall); it is then put back at the start.
SNAG_FRACTION = 0.5
CRACK_START = (1.0, 0.5)


def _crack_step(scene: Scene, dt: float) -> None:
    world = scene.world
    p = scene.data["player"]
    x = float(world.position[p, 0])
    last = scene.data.get("last_x")
    if last is not None:
        if x - last < SNAG_FRACTION * CRACK_SPEED * dt:
            scene.data["snags"] += 1
            world.position[p] = CRACK_START
        elif x > CRACK_BOXES - 2.0:
            world.position[p] = CRACK_START  # the end of the wall: go round again
            scene.data["laps"] += 1
    world.velocity[p] = (CRACK_SPEED, -CRACK_SPEED)
    world.angular_velocity[p] = 0.0
    world.angle[p] = 0.0
    scene.data["last_x"] = float(world.position[p, 0])
    _crack_status(scene)


def _crack_status(scene: Scene) -> None:
    on = {True: "on", False: "off"}
    scene.status = [
        f"snags: {scene.data['snags']}   laps: {scene.data['laps']}",
        f"1: earliest-first ordering {on[scene.world.ordered]}",
        f"2: surface-area rule {on[scene.world.surface_rule]}",
    ]


def _crack_action(scene: Scene, action: str) -> bool:
    if action in ("toggle_ordering", "toggle_surface"):
        if action == "toggle_ordering":
            scene.world.ordered = not scene.world.ordered
        else:
            scene.world.surface_rule = not scene.world.surface_rule
        scene.data["last_x"] = None
        _crack_status(scene)
        return True
    return action in ("more_bodies", "fewer_bodies", "reset_count")


@register("crack", "seed 002: a box sliding diagonally along flush boxes; ordering on never snags")
def build_crack(seed: int = 0, bodies: int | None = None) -> Scene:
    world = World(gravity=(0.0, 0.0), solver="arcade", friction=0.0, restitution=0.0, static_friction=0.0)
    box = Polygon.box(1.0, 1.0)
    for i in range(CRACK_BOXES):
        world.add_body(box, (i + 0.5, -0.5), static=True)
    player = world.add_body(box, CRACK_START)
    scene = Scene(
        "crack",
        world,
        view=(-1.0, -5.0, CRACK_BOXES + 1.0, 6.0),
        bounds=(-2.0, -3.0, CRACK_BOXES + 2.0, 4.0),
        seed=int(seed),
        bodies=world.body_count,
        help=[
            "crack (seed 002): the box is driven diagonally into a wall of flush boxes",
            "1 / 2: ordering / surface-area rule; a snag puts it back at the start",
        ],
        turret=None,  # the scene drives the box itself: a shot could not push it
        min_bodies=world.body_count,
        max_bodies=world.body_count,
        default_bodies=world.body_count,
        mouse_forces=False,
        data={"player": player, "snags": 0, "laps": 0, "last_x": None},
    )
    scene.on_step = _crack_step
    scene.on_action = _crack_action
    _crack_status(scene)
    return scene


# ----------------------------------------------------------------------------------------------
# primitives (seed 001).

#: The shapes: (kind, centre, angle, size). Sizes: segment half length, circle radius,
#: rectangle (w, h), oriented rectangle half sizes, polygon radius.
PRIMITIVE_LAYOUT: tuple[tuple[str, tuple[float, float], float, Any], ...] = (
    ("point", (20.0, 80.0), 0.0, None),
    ("line", (66.0, 50.0), 0.35, None),
    ("segment", (30.0, 30.0), -0.6, 10.0),
    ("circle", (95.0, 75.0), 0.0, 8.0),
    ("rectangle", (100.0, 25.0), 0.0, (18.0, 12.0)),
    ("oriented", (60.0, 80.0), 0.5, (9.0, 5.0)),
    ("polygon", (45.0, 15.0), 0.2, 9.0),
)
#: How close (units) the cursor must be to a shape to pick it.
PICK_DISTANCE = 3.0
PRIMITIVE_POLYGON_SIDES = 6


def primitive_object(kind: str, centre: np.ndarray, angle: float, size: Any) -> Any:
    """The collision.primitives object (or polygon vertices (k, 2)) for one shape."""
    c = (float(centre[0]), float(centre[1]))
    d = (math.cos(angle), math.sin(angle))
    if kind == "point":
        return c
    if kind == "line":
        return prim.Line(c, d)
    if kind == "segment":
        return prim.Segment(
            (c[0] - size * d[0], c[1] - size * d[1]), (c[0] + size * d[0], c[1] + size * d[1])
        )
    if kind == "circle":
        return prim.Circle(c, size)
    if kind == "rectangle":
        return prim.Rectangle((c[0] - size[0] / 2, c[1] - size[1] / 2), size)
    if kind == "oriented":
        return prim.OrientedRectangle(c, size, angle)
    return Polygon.regular(PRIMITIVE_POLYGON_SIDES, size).rotated(angle).vertices + np.asarray(c)


def _outline(kind: str, obj: Any) -> np.ndarray:
    """Vertices (k, 2) that draw a shape (a long segment for a line, 32 points for a circle)."""
    if kind == "point":
        return np.array([obj])
    if kind == "line":
        b, d = np.array(obj.base), np.array(obj.direction)
        return np.array([b - d * 400.0, b + d * 400.0])
    if kind == "segment":
        return np.array([obj.point1, obj.point2])
    if kind == "circle":
        a = np.linspace(0.0, 2 * math.pi, 33)[:-1]
        return np.array(obj.center) + obj.radius * np.column_stack([np.cos(a), np.sin(a)])
    if kind == "rectangle":
        (x, y), (w, h) = obj.origin, obj.size
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    if kind == "oriented":
        return np.array(prim._corners(obj))
    return np.asarray(obj)


def _polygon_vertices(kind: str, obj: Any) -> np.ndarray | None:
    """The shape as engine vertices (point, segment, convex polygon), or None (line, circle)."""
    if kind in ("line", "circle"):
        return None
    return _outline(kind, obj)


_PRIMITIVE_TESTS: dict[tuple[str, str], Callable[[Any, Any], bool]] = {
    ("point", "point"): prim.points_collide,
    ("line", "line"): prim.lines_collide,
    ("line", "point"): prim.line_point_collide,
    ("line", "segment"): prim.line_segment_collide,
    ("point", "segment"): prim.point_segment_collide,
    ("segment", "segment"): prim.segments_collide,
    ("circle", "circle"): prim.circles_collide,
    ("circle", "point"): prim.circle_point_collide,
    ("circle", "line"): prim.circle_line_collide,
    ("circle", "segment"): prim.circle_segment_collide,
    ("circle", "rectangle"): prim.circle_rectangle_collide,
    ("circle", "oriented"): prim.circle_oriented_rectangle_collide,
    ("rectangle", "rectangle"): prim.rectangles_collide,
    ("rectangle", "point"): prim.rectangle_point_collide,
    ("rectangle", "line"): prim.rectangle_line_collide,
    ("rectangle", "segment"): prim.rectangle_segment_collide,
    ("rectangle", "oriented"): prim.rectangle_oriented_rectangle_collide,
    ("oriented", "oriented"): prim.oriented_rectangles_collide,
    ("oriented", "point"): prim.oriented_rectangle_point_collide,
    ("oriented", "line"): prim.oriented_rectangle_line_collide,
    ("oriented", "segment"): prim.oriented_rectangle_segment_collide,
}


def primitives_collide(kind_a: str, a: Any, kind_b: str, b: Any) -> bool:
    """Whether two shapes collide: seed 001's tests from collision.primitives; pairs with the
    convex polygon use the engine's SAT (``intersect``), its disc clip (``clip_segment`` with a
    radius) for the circle, and a side-of-line test for the line."""
    test = _PRIMITIVE_TESTS.get((kind_a, kind_b))
    if test is not None:
        return bool(test(a, b))
    test = _PRIMITIVE_TESTS.get((kind_b, kind_a))
    if test is not None:
        return bool(test(b, a))
    if kind_b == "polygon":
        kind_a, a, kind_b, b = kind_b, b, kind_a, a
    poly = np.asarray(a)
    if kind_b == "circle":
        centre = np.array(b.center)
        if intersect(poly, centre[None, :]):
            return True
        k = len(poly)
        return any(clip_segment(poly[i], poly[(i + 1) % k], centre[None, :], b.radius) for i in range(k))
    if kind_b == "line":
        n = np.array([-b.direction[1], b.direction[0]])
        side = (poly - np.array(b.base)) @ n
        return bool(side.min() <= 0.0 <= side.max())
    other = _polygon_vertices(kind_b, b)
    return bool(intersect(poly, other))


def primitive_shapes(scene: Scene) -> list[tuple[str, Any]]:
    return [
        (s["kind"], primitive_object(s["kind"], s["centre"], s["angle"], s["size"]))
        for s in scene.data["shapes"]
    ]


def colliding_pairs(scene: Scene) -> list[tuple[int, int]]:
    """Index pairs (i < j) of the shapes that collide now."""
    objs = primitive_shapes(scene)
    out = []
    for i in range(len(objs)):
        for j in range(i + 1, len(objs)):
            if primitives_collide(objs[i][0], objs[i][1], objs[j][0], objs[j][1]):
                out.append((i, j))
    return out


def _pick(scene: Scene, point: np.ndarray) -> int | None:
    """The shape within PICK_DISTANCE of ``point`` (a disc probe), nearest centre first; or None."""
    probe = prim.Circle((float(point[0]), float(point[1])), PICK_DISTANCE)
    near = [
        (float(np.hypot(*(scene.data["shapes"][i]["centre"] - point))), i)
        for i, (kind, obj) in enumerate(primitive_shapes(scene))
        if primitives_collide("circle", probe, kind, obj)
    ]
    return min(near)[1] if near else None


def _primitives_action(scene: Scene, action: str) -> bool:
    if action == "attract":
        i = _pick(scene, scene.cursor)
        scene.data["drag"] = None
        if i is not None:
            shape = scene.data["shapes"][i]
            offset = shape["centre"] - scene.cursor
            start_angle = math.atan2(-offset[1], -offset[0])
            scene.data["drag"] = (i, offset, scene.shift, start_angle, shape["angle"])
        return True
    return action in ("repel", "more_bodies", "fewer_bodies", "reset_count")


def drag_to(scene: Scene, cursor: np.ndarray) -> None:
    """Move (or, for a Shift-drag, turn) the shape being dragged so it follows ``cursor``."""
    drag = scene.data.get("drag")
    if drag is None:
        return
    i, offset, rotate, start_angle, angle0 = drag
    shape = scene.data["shapes"][i]
    if rotate:
        d = cursor - shape["centre"]
        if np.hypot(*d) > 1e-9:
            shape["angle"] = angle0 + math.atan2(d[1], d[0]) - start_angle
    else:
        shape["centre"] = cursor + offset


def _primitives_step(scene: Scene, dt: float) -> None:
    if "attract" in scene.held:
        drag_to(scene, scene.cursor)
    else:
        scene.data["drag"] = None


def _primitives_overlay(scene: Scene, batch: Any) -> None:
    pairs = colliding_pairs(scene)
    hot = {i for pair in pairs for i in pair}
    for i, (kind, obj) in enumerate(primitive_shapes(scene)):
        color = HIGHLIGHT if i in hot else CALM
        outline = _outline(kind, obj)
        if kind == "point":
            batch.add_points(outline, color)
        elif kind in ("line", "segment"):
            batch.add_lines(outline[None, :, :], color)
        else:
            batch.add_polygon(outline, (*color[:3], 0.2) if kind != "circle" else None, color)
        batch.add_text(kind, scene.data["shapes"][i]["centre"], WHITE)
    names = [scene.data["shapes"][i]["kind"] for i in range(len(scene.data["shapes"]))]
    scene.status = [f"colliding: {', '.join(f'{names[i]}-{names[j]}' for i, j in pairs) or 'none'}"]


@register(
    "primitives", "seed 001: point, line, segment, circle, rectangles, polygon; drag them, red collides"
)
def build_primitives(seed: int = 0, bodies: int | None = None) -> Scene:
    world = World(gravity=(0.0, 0.0))
    shapes = [
        {"kind": kind, "centre": np.array(c, dtype=np.float64), "angle": a, "size": size}
        for kind, c, a, size in PRIMITIVE_LAYOUT
    ]
    scene = Scene(
        "primitives",
        world,
        view=(0.0, 0.0, 400.0 / 3.0, 100.0),
        bounds=(0.0, 0.0, 400.0 / 3.0, 100.0),
        seed=int(seed),
        bodies=0,
        help=[
            "primitives (seed 001): left drag moves a shape, Shift + left drag turns it",
            "red: collides with another shape (collision.primitives)",
        ],
        min_bodies=0,
        max_bodies=0,
        default_bodies=0,
        mouse_forces=False,
        data={"shapes": shapes, "drag": None},
    )
    scene.on_action = _primitives_action
    scene.on_step = _primitives_step
    scene.on_overlay = _primitives_overlay
    return scene


# ----------------------------------------------------------------------------------------------
# The engine beyond the original (metres, kilograms, seconds; the iterative solver).


def _ground(world: World, x0: float, x1: float, top: float = 0.0) -> int:
    return world.add_body(Polygon.box(x1 - x0, 1.0), (0.5 * (x0 + x1), top - 0.5), static=True)


def _metric_scene(
    name: str, world: World, seed: int, view: scenes.Rect, help_lines: list[str], **kw: Any
) -> Scene:
    x0, y0, x1, y1 = view
    w, h = x1 - x0, y1 - y0
    n = world.body_count
    return Scene(
        name,
        world,
        view=view,
        bounds=kw.pop("bounds", (x0 - w, y0 - h, x1 + w, y1 + h)),
        seed=int(seed),
        bodies=n,
        help=list(help_lines),
        turret=kw.pop("turret", (0.5 * (x0 + x1), y0 + 0.05 * h)),
        min_bodies=n,
        max_bodies=n,
        default_bodies=n,
        **kw,
    )


#: restitution: boxes 1 m wide dropped from DROP_HEIGHT onto a ground of restitution 0 (pairs
#: mix restitution as max(a, b), so each bounce shows the box's own value).
RESTITUTIONS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
DROP_HEIGHT = 8.0


@register("restitution", "a row of boxes with restitution 0 to 1 dropped together: higher bounces higher")
def build_restitution(seed: int = 0, bodies: int | None = None) -> Scene:
    world = World(gravity=(0.0, -10.0), friction=0.6, restitution=0.0)
    world.sleep_enabled = False
    _ground(world, -8.0, 8.0)
    first = world.body_count
    for k, e in enumerate(RESTITUTIONS):
        world.add_body(Polygon.box(1.0, 1.0), (-6.25 + 2.5 * k, DROP_HEIGHT), restitution=e)
    scene = _metric_scene(
        "restitution",
        world,
        seed,
        (-9.0, -1.5, 9.0, 11.0),
        ["restitution: boxes with restitution 0, 0.2, ... 1 (left to right) dropped together"],
        turret=(0.0, 0.1),  # on the ground, between the boxes of 0.4 and 0.6
    )
    scene.data["first"] = first
    scene.on_overlay = _restitution_overlay
    return scene


def _restitution_overlay(scene: Scene, batch: Any) -> None:
    world = scene.world
    for k, e in enumerate(RESTITUTIONS):
        i = scene.data["first"] + k
        batch.add_text(f"e={e:.1f}", (world.position[i, 0] - 0.5, -0.3), WHITE)


#: friction: ramps tilted RAMP_ANGLE (tan = 0.577) with boxes of friction 0 .. 0.8 on them (the
#: ramp has the same value: pairs mix friction as sqrt(a b)). Boxes whose friction is at least
#: tan(RAMP_ANGLE) must stay put.
FRICTIONS = (0.0, 0.2, 0.4, 0.6, 0.8)
RAMP_ANGLE = math.radians(30.0)
RAMP_LENGTH, RAMP_PITCH = 8.0, 9.0


def ramp_frame(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ramp ``k``'s centre (2,), its downhill unit direction (2,) and its surface normal (2,)."""
    c = np.array([-18.0 + RAMP_PITCH * k, 4.0])
    down = np.array([-math.cos(RAMP_ANGLE), -math.sin(RAMP_ANGLE)])
    normal = np.array([-math.sin(RAMP_ANGLE), math.cos(RAMP_ANGLE)])
    return c, down, normal


@register("friction", "boxes on 30 degree ramps with friction 0 to 0.8: those at 0.6 and 0.8 stay put")
def build_friction(seed: int = 0, bodies: int | None = None) -> Scene:
    world = World(gravity=(0.0, -10.0), restitution=0.0)
    world.sleep_enabled = False
    _ground(world, -26.0, 26.0)
    for x in (-26.5, 26.5):  # end stops: a frictionless box would otherwise slide on for ever
        world.add_body(Polygon.box(1.0, 3.0), (x, 1.5), static=True)
    boxes = []
    for k, mu in enumerate(FRICTIONS):
        c, _, normal = ramp_frame(k)
        world.add_body(Polygon.box(RAMP_LENGTH, 0.4), c, angle=RAMP_ANGLE, static=True, friction=mu)
        top = c - 0.0 * normal + normal * (0.2 + 0.5)  # resting on the ramp's surface, mid-ramp
        boxes.append(world.add_body(Polygon.box(1.0, 1.0), top, angle=RAMP_ANGLE, friction=mu))
    scene = _metric_scene(
        "friction",
        world,
        seed,
        (-24.0, -1.5, 24.0, 12.0),
        [f"friction: 30 degree ramps (tan = {math.tan(RAMP_ANGLE):.2f}); box and ramp friction 0 .. 0.8"],
        turret=(0.0, 0.2),  # on the ground, under the middle ramp
    )
    scene.data["boxes"] = boxes
    scene.on_overlay = _friction_overlay
    return scene


def _friction_overlay(scene: Scene, batch: Any) -> None:
    for k, mu in enumerate(FRICTIONS):
        c, _, _ = ramp_frame(k)
        batch.add_text(f"mu={mu:.1f}", (c[0] - 2.0, c[1] - 2.5), WHITE)


#: mass-ratio: a HEAVY_DENSITY box on a light one (density 1): a 100:1 stack must stay.
HEAVY_DENSITY, HEAVY_SIZE, LIGHT_SIZE = 100.0, 2.0, 1.0


@register("mass-ratio", "a box 400 times heavier resting on a light one: the stack must hold")
def build_mass_ratio(seed: int = 0, bodies: int | None = None) -> Scene:
    world = World(gravity=(0.0, -10.0), restitution=0.0)
    world.sleep_enabled = False
    _ground(world, -6.0, 6.0)
    light = world.add_body(Polygon.box(LIGHT_SIZE, LIGHT_SIZE), (0.0, 0.5 * LIGHT_SIZE))
    heavy = world.add_body(
        Polygon.box(HEAVY_SIZE, HEAVY_SIZE), (0.0, LIGHT_SIZE + 0.5 * HEAVY_SIZE), density=HEAVY_DENSITY
    )
    scene = _metric_scene(
        "mass-ratio",
        world,
        seed,
        (-5.0, -1.0, 5.0, 5.0),
        ["mass-ratio: the top box is 400 times heavier (2 x 2 m, density 100, on 1 x 1 m, density 1)"],
        turret=(-4.0, 0.1),  # on the ground, left of the stack
    )
    # Impulse arrows: 400 kg under gravity takes ~67 N s a step, so draw them 50 times shorter.
    scene.data.update(light=light, heavy=heavy, arrow_scale=0.02)
    return scene


#: concave: outlines split by decompose() into convex pieces, each outline one compound body
#: (World.add_compound) that falls and tumbles as one, coloured by outline.
CONCAVE_OUTLINES = {
    "L": [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]],
    "U": [[0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3]],
    "arrow": [[0, 1], [2, 1], [2, 0], [4, 1.5], [2, 3], [2, 2], [0, 2]],
    "star": [
        [2.0 * math.cos(a) * (1.0 if i % 2 == 0 else 0.45), 2.0 * math.sin(a) * (1.0 if i % 2 == 0 else 0.45)]
        for i, a in enumerate(np.linspace(0.0, 2 * math.pi, 11)[:-1] + math.pi / 2)
    ],
}
CONCAVE_COLORS = ((1.0, 0.6, 0.3, 0.6), (0.4, 0.8, 1.0, 0.6), (1.0, 0.9, 0.3, 0.6), (0.9, 0.5, 1.0, 0.6))


@register("concave", "concave outlines split by decompose() into convex pieces, each one compound body")
def build_concave(seed: int = 0, bodies: int | None = None) -> Scene:
    world = World(gravity=(0.0, -10.0), restitution=0.1)
    _ground(world, -12.0, 12.0)
    world.add_body(Polygon.box(1.0, 10.0), (-12.5, 5.0), static=True)
    world.add_body(Polygon.box(1.0, 10.0), (12.5, 5.0), static=True)
    groups: list[list[int]] = []
    colors: dict[int, tuple[float, float, float, float]] = {}
    for k, outline in enumerate(CONCAVE_OUTLINES.values()):
        offset = np.array([-8.0 + 5.0 * k, 3.0 + 2.0 * k])
        pieces = decompose(np.asarray(outline, dtype=np.float64))
        # The outline goes to offset: its centre of mass (the area-weighted centroid of the
        # pieces) to offset + that centre.
        areas = np.array([piece.area for piece in pieces])
        centre = (areas[:, None] * np.array([piece.centroid for piece in pieces])).sum(axis=0) / areas.sum()
        root = world.add_compound(pieces, offset + centre)
        group = world.parts(root)
        for row in group:
            colors[row] = CONCAVE_COLORS[k % len(CONCAVE_COLORS)]
        groups.append(group)
    scene = _metric_scene(
        "concave",
        world,
        seed,
        (-14.0, -1.5, 14.0, 14.0),
        [
            "concave: decompose() splits each outline into convex pieces (one colour per outline)",
            "each outline is one compound body: its pieces move as one rigid body",
        ],
        turret=(0.0, 0.1),  # on the ground, between the outlines
    )
    scene.data["groups"] = groups
    scene.body_colors = colors
    return scene


#: tumbler: a 12 m square box of four walls, one kinematic compound body turning about its
#: centre at TUMBLER_SPIN rad/s, full of random bodies that its walls carry round.
TUMBLER_SIZE, TUMBLER_WALL, TUMBLER_SPIN, TUMBLER_BODIES = 12.0, 0.5, 0.3, 40
#: Fill of kinematic bodies, as demo.render.KINEMATIC_FILL (which scenes cannot import: it
#: loads OpenGL): amber, apart from static grey and the moving bodies' colours.
KINEMATIC_COLOR = (1.0, 0.69, 0.19, 0.6)


def _tumbler_walls() -> list[np.ndarray]:
    """The four walls' vertices in the box's frame (centre at the origin): bottom, right, top,
    left; each is as long as the box plus both walls' thickness, so the corners are closed."""
    half = 0.5 * (TUMBLER_SIZE + TUMBLER_WALL)
    long, thick = 0.5 * (TUMBLER_SIZE + 2 * TUMBLER_WALL), 0.5 * TUMBLER_WALL
    flat = np.array([(-long, -thick), (long, -thick), (long, thick), (-long, thick)])
    upright = flat[:, ::-1] * (-1.0, 1.0)  # turned a quarter turn CCW
    return [flat + (0.0, -half), upright + (half, 0.0), flat + (0.0, half), upright + (-half, 0.0)]


@register("tumbler", "a slowly turning box full of bodies (one kinematic compound body of four walls)")
def build_tumbler(seed: int = 0, bodies: int | None = None) -> Scene:
    rng = np.random.default_rng(seed)
    world = World(gravity=(0.0, -10.0), restitution=0.0)
    box = world.add_compound(_tumbler_walls(), (0.0, 0.0), angular_velocity=TUMBLER_SPIN, kinematic=True)
    walls = world.parts(box)
    count = TUMBLER_BODIES if bodies is None else int(bodies)
    cells = int(math.ceil(math.sqrt(count)))
    pitch = (TUMBLER_SIZE - 1.0) / cells
    for k in range(count):
        x = -0.5 * TUMBLER_SIZE + 0.5 + pitch * (k % cells + 0.5)
        y = -0.5 * TUMBLER_SIZE + 0.5 + pitch * (k // cells + 0.5)
        r = 0.45 * pitch * float(rng.uniform(0.6, 1.0))
        world.add_body(Polygon.regular(int(rng.integers(3, 9)), r), (x, y), angle=float(rng.uniform(0, 6.28)))
    half = 0.5 * TUMBLER_SIZE * math.sqrt(2.0) + 1.0
    scene = _metric_scene(
        "tumbler",
        world,
        seed,
        (-half, -half, half, half),
        ["tumbler: a box turning at 0.3 rad/s, one kinematic compound body: its walls carry the bodies"],
        bounds=(-half, -half, half, half),
        turret=(0.0, 0.0),  # the box's centre: the one place inside it its walls never reach
    )
    scene.data.update(walls=walls, box=box)
    scene.body_colors = {row: KINEMATIC_COLOR for row in walls}
    return scene


# ----------------------------------------------------------------------------------------------
# bullet: continuous collision.

#: demo/bench.py's bullet scene: a 0.1 m box at 500 m/s toward a 0.1 m wall 10 m away.
BULLET_BOX, BULLET_VELOCITY, BULLET_WALL_X = 0.1, 500.0, 10.0
BULLET_START = (0.0, 0.0)


def _bullet_step(scene: Scene, dt: float) -> None:
    world = scene.world
    b = scene.data["box"]
    if abs(world.velocity[b, 0]) < 1e-6 and world.position[b, 0] < BULLET_WALL_X:
        scene.data["stops"] += int(not scene.data["stopped"])
        scene.data["stopped"] = True
    elif world.position[b, 0] > BULLET_WALL_X + 1.0:
        scene.data["tunnelled"] += 1
        _fire_bullet(scene)  # through the wall: fire again


def _bullet_action(scene: Scene, action: str) -> bool:
    if action == "toggle_ccd":
        # The engine's switch: off, the world tests overlap only and the box jumps the wall.
        scene.world.continuous = not scene.world.continuous
        _fire_bullet(scene)
        _bullet_status(scene)
        return True
    return action in ("more_bodies", "fewer_bodies", "reset_count")


def _fire_bullet(scene: Scene) -> None:
    world = scene.world
    b = scene.data["box"]
    world.position[b] = BULLET_START
    world.angle[b] = 0.0
    world.angular_velocity[b] = 0.0
    world.set_velocity(b, (BULLET_VELOCITY, 0.0))
    scene.data["stopped"] = False


def _bullet_status(scene: Scene) -> None:
    on = {True: "on", False: "off"}
    scene.status = [
        f"k: continuous collision {on[scene.world.continuous]} (world.continuous)",
        f"stopped by the wall: {scene.data['stops']}   passed through: {scene.data['tunnelled']}",
    ]


def _bullet_overlay(scene: Scene, batch: Any) -> None:
    _bullet_status(scene)


@register("bullet", "a 0.1 m box at 500 m/s at a 0.1 m wall: stopped with continuous collision, not without")
def build_bullet(seed: int = 0, bodies: int | None = None) -> Scene:
    world = World(gravity=(0.0, 0.0), friction=0.6, restitution=0.0)
    world.sleep_enabled = False
    wall = world.add_body(Polygon.box(0.1, 2.0), (BULLET_WALL_X + 0.05, 0.0), static=True)
    box = world.add_body(Polygon.box(BULLET_BOX, BULLET_BOX), BULLET_START, velocity=(BULLET_VELOCITY, 0.0))
    scene = _metric_scene(
        "bullet",
        world,
        seed,
        (-2.0, -4.0, 12.0, 4.0),
        ["bullet: k turns continuous collision off (the box tunnels) and on (the wall stops it)"],
        mouse_forces=False,
    )
    scene.data.update(box=box, wall=wall, stops=0, tunnelled=0, stopped=False)
    scene.on_step = _bullet_step
    scene.on_action = _bullet_action
    scene.on_overlay = _bullet_overlay
    _bullet_status(scene)
    return scene
