"""The teaching scenes: the tutorial's programs T1, T2, T3, T5a, T6 and T9, one pair at a time.

Each shows one algorithm on two polygons with the engine's one-pair functions (``intersect``,
``find_mtd``, ``sweep``, ``contact_points``) or, for ``clipping``, the Sutherland-Hodgman
polygon clip below. The polygons are static bodies of a world without gravity, so the program
draws them as usual; the scene moves and turns them itself. Importable without GL.

The original's setup (ORIGINAL_DEMO.md section 2): two random regular polygons, 3-8 vertices
(T5a: 2-7), radius 10-15, centres in [25, 75]^2 of a 100-unit-high view; arrow keys move A by 2
units; Space makes new ones; Enter pushes A out by the MTD; the left mouse button sets A's
per-frame displacement to ``cursor - A`` for the swept test; T5a/T6 spin A and B at 0.1 and
0.6 rad/s.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from collision import World, contact_points, find_mtd, intersect, sweep
from collision.shapes import Polygon
from demo.scenes import Scene, register

#: The original's window: 100 units high, 4:3.
VIEW = (0.0, 0.0, 400.0 / 3.0, 100.0)
#: Bodies never leave this (the arrow keys are clamped to it).
BOUNDS = (-20.0, -20.0, 400.0 / 3.0 + 20.0, 120.0)
RADIUS_RANGE = (10.0, 15.0)
CENTRE_RANGE = (25.0, 75.0)
#: One arrow-key press moves A this far (units); held, it keeps moving at MOVE_SPEED units/s.
MOVE_STEP, MOVE_SPEED = 2.0, 40.0
#: Enter pushes A by the MTD times this: 1% more than touching, as the original did, so the
#: pair ends up apart rather than exactly touching.
SEPARATE_FACTOR = 1.01
#: Spin rates of A and B (rad/s, T5a/T6).
SPIN_A, SPIN_B = 0.1, 0.6
#: Length (units) of the normal arrow for a future hit (T3: 10).
FUTURE_NORMAL_LENGTH = 10.0

RED = (1.0, 0.5, 0.5, 0.5)  # the original's 0x80FF8080
GREEN = (0.5, 1.0, 0.5, 0.5)  # 0x8080FF80
WHITE = (1.0, 1.0, 1.0, 1.0)
BLACK = (0.0, 0.0, 0.0, 1.0)
GHOST_FILL = (1.0, 1.0, 1.0, 0.25)
GHOST_LINE = (1.0, 1.0, 1.0, 0.4)
CONTACT_RED = (1.0, 0.0, 0.0, 1.0)
CLIP_FILL = (1.0, 0.85, 0.2, 0.7)
CLIP_LINE = (1.0, 0.9, 0.3, 1.0)

MOVES = {"move_left": (-1.0, 0.0), "move_right": (1.0, 0.0), "move_up": (0.0, 1.0), "move_down": (0.0, -1.0)}


# ----------------------------------------------------------------------------------------------
# Sutherland-Hodgman.


def clip_polygon(subject: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """The intersection of two convex CCW polygons ``subject (k, 2)`` and ``clip (m, 2)``: (j, 2).

    Sutherland-Hodgman: the subject is cut by the inner half-plane of each clip edge in turn.
    An empty result has shape (0, 2); touching shapes may give a degenerate polygon (area 0).
    """
    out = np.asarray(subject, dtype=np.float64).reshape(-1, 2)
    c = np.asarray(clip, dtype=np.float64).reshape(-1, 2)
    m = len(c)
    for i in range(m):
        if len(out) == 0:
            break
        p, q = c[i], c[(i + 1) % m]
        edge = q - p
        # Inside = left of the edge (CCW): cross(edge, v - p) >= 0.
        side = edge[0] * (out[:, 1] - p[1]) - edge[1] * (out[:, 0] - p[0])
        kept: list[np.ndarray] = []
        k = len(out)
        for j in range(k):
            cur, nxt = out[j], out[(j + 1) % k]
            s_cur, s_nxt = side[j], side[(j + 1) % k]
            if s_cur >= 0.0:
                kept.append(cur)
            if (s_cur >= 0.0) != (s_nxt >= 0.0):
                t = s_cur / (s_cur - s_nxt)
                kept.append(cur + t * (nxt - cur))
        out = np.array(kept).reshape(-1, 2)
    return out


def polygon_area(vertices: np.ndarray) -> float:
    """Signed area (positive for CCW) of ``vertices (k, 2)`` (shoelace)."""
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    if len(v) < 3:
        return 0.0
    x, y = v[:, 0], v[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


# ----------------------------------------------------------------------------------------------
# The common pair scene.


def _random_pair(rng: np.random.Generator, sides: tuple[int, int]) -> list[tuple[Polygon, np.ndarray, float]]:
    pair = []
    for _ in range(2):
        n = int(rng.integers(sides[0], sides[1] + 1))
        r = float(rng.uniform(*RADIUS_RANGE))
        shape = Polygon.regular(n, r) if n >= 3 else Polygon([[-r, 0.0], [r, 0.0]])
        centre = rng.uniform(*CENTRE_RANGE, size=2)
        pair.append((shape, centre, float(rng.uniform(0.0, 2.0 * math.pi))))
    return pair


def pair_scene(
    name: str,
    seed: int,
    help_lines: list[str],
    sides: tuple[int, int] = (3, 8),
    shapes: list[tuple[Any, Any, float]] | None = None,
) -> Scene:
    """Polygons A (body 0) and B (body 1), static, in a world without gravity.

    ``shapes``: ``(shape, centre, angle)`` for A and B (default: the original's random pair).
    """
    rng = np.random.default_rng(seed)
    world = World(gravity=(0.0, 0.0), solver="arcade")
    for shape, centre, angle in shapes if shapes is not None else _random_pair(rng, sides):
        world.add_body(shape, centre, angle=angle, static=True)
    scene = Scene(
        name,
        world,
        view=VIEW,
        bounds=BOUNDS,
        seed=int(seed),
        bodies=2,
        help=list(help_lines),
        turret=None,  # two polygons the scene moves itself: nothing for a bullet to push
        min_bodies=2,
        max_bodies=2,
        default_bodies=2,
        mouse_forces=False,
        data={"motion": np.zeros(2), "spin": False},
    )
    scene.on_action = _pair_action
    scene.on_step = _pair_step
    return scene


def move_a(scene: Scene, delta: Any) -> None:
    """Move polygon A by ``delta (2,)``, kept inside the scene's view."""
    world = scene.world
    p = world.position[0] + np.asarray(delta, dtype=np.float64)
    x0, y0, x1, y1 = scene.view
    world.position[0] = np.clip(p, [x0, y0], [x1, y1])


def separate(scene: Scene) -> bool:
    """Push A out of B by the MTD (times SEPARATE_FACTOR); True if they overlapped."""
    world = scene.world
    mtd = find_mtd(world.vertices(0), world.vertices(1))
    if mtd is None or not mtd.any():
        return False
    world.position[0] += mtd * SEPARATE_FACTOR
    return True


def _pair_action(scene: Scene, action: str) -> bool:
    if action in MOVES:
        move_a(scene, np.array(MOVES[action]) * MOVE_STEP)
        return True
    if action == "reset_count" and scene.data.get("separates", False):
        separate(scene)
        return True
    if action == "attract" and scene.data.get("aims", False):
        scene.data["motion"] = scene.cursor - scene.world.position[0]
        return True
    if action == "toggle_spin" and scene.data.get("spins", False):
        scene.data["spin"] = not scene.data["spin"]
        return True
    return action in ("more_bodies", "fewer_bodies", "reset_count", "repel")


def _pair_step(scene: Scene, dt: float) -> None:
    held = [MOVES[a] for a in MOVES if a in scene.held]
    if held:
        move_a(scene, np.sum(held, axis=0) * MOVE_SPEED * dt)
    if scene.data["spin"]:
        world = scene.world
        world.angle[0] = (world.angle[0] + SPIN_A * dt + math.pi) % (2 * math.pi) - math.pi
        world.angle[1] = (world.angle[1] + SPIN_B * dt + math.pi) % (2 * math.pi) - math.pi


def _outline_ab(scene: Scene, batch: Any) -> tuple[np.ndarray, np.ndarray]:
    """A's outline white, B's black, labels A and B; returns their vertices."""
    world = scene.world
    a, b = world.vertices(0), world.vertices(1)
    batch.add_polygon(a, None, WHITE)
    batch.add_polygon(b, None, BLACK)
    batch.add_text("Poly A", world.position[0], WHITE)
    batch.add_text("Poly B", world.position[1], WHITE)
    return a, b


def _colour_by_overlap(scene: Scene, overlapping: bool) -> None:
    color = RED if overlapping else GREEN
    scene.body_colors = {0: color, 1: color}


# ----------------------------------------------------------------------------------------------
# sat (T1) and mtd (T2).


def _sat_overlay(scene: Scene, batch: Any) -> None:
    a, b = _outline_ab(scene, batch)
    hit = intersect(a, b)
    _colour_by_overlap(scene, hit)
    scene.status = [f"A and B {'intersect' if hit else 'do not intersect'} (separating-axis test)"]
    if scene.data.get("separates", False):
        mtd = find_mtd(a, b)
        if mtd is not None:
            mid = 0.5 * (scene.world.position[0] + scene.world.position[1])
            batch.add_arrows(mid, mid + mtd, WHITE)
            scene.status.append(f"push vector (MTD) {mtd[0]:+.2f}, {mtd[1]:+.2f}: Enter separates")


@register("sat", "T1: two random convex polygons, red while the separating-axis test finds overlap")
def build_sat(seed: int = 0, bodies: int | None = None) -> Scene:
    scene = pair_scene(
        "sat",
        seed,
        ["sat (T1): arrows move A, Space: new polygons", "red: they intersect, green: they do not"],
    )
    scene.on_overlay = _sat_overlay
    return scene


@register("mtd", "T2: as sat, with the push vector (MTD) drawn; Enter separates the polygons")
def build_mtd(seed: int = 0, bodies: int | None = None) -> Scene:
    scene = pair_scene(
        "mtd",
        seed,
        ["mtd (T2): arrows move A, Space: new polygons", "the arrow is the push vector; Enter separates"],
    )
    scene.data["separates"] = True
    scene.on_overlay = _sat_overlay
    return scene


# ----------------------------------------------------------------------------------------------
# swept (T3), rotation (T5a), contacts (T6).


def swept_result(scene: Scene) -> dict[str, Any]:
    """The swept test of A moving by its motion against B: what the overlay draws.

    Keys: ``hit`` (Hit or None), ``ghost`` (A's vertices at the time of impact or None),
    ``pairs`` (contact pairs ``[(on A, on B), ...]`` at the time of impact).
    """
    world = scene.world
    a, b = world.vertices(0), world.vertices(1)
    motion = np.asarray(scene.data["motion"], dtype=np.float64)
    hit = sweep(a, b, motion, 1.0)
    out: dict[str, Any] = {"hit": hit, "ghost": None, "pairs": [], "a": a, "b": b, "motion": motion}
    if hit is None:
        return out
    out["ghost"] = a + motion * hit.t
    out["pairs"] = contact_points(a, b, hit, motion)
    return out


def _swept_overlay(scene: Scene, batch: Any) -> None:
    a, _ = _outline_ab(scene, batch)
    result = swept_result(scene)
    hit, motion = result["hit"], result["motion"]
    centre = scene.world.position[0]
    if motion.any():
        batch.add_arrows(centre, centre + motion, WHITE)
        batch.add_polygon(a + motion, None, (1.0, 1.0, 1.0, 0.15))
    _colour_by_overlap(scene, hit is not None and hit.overlapping)
    if hit is None:
        scene.status = ["no collision within the motion"]
    elif hit.overlapping:
        mid = 0.5 * (scene.world.position[0] + scene.world.position[1])
        batch.add_arrows(mid, mid + hit.normal * hit.depth, WHITE)
        scene.status = [f"overlapping: push vector depth {hit.depth:.2f} (Enter separates)"]
    else:
        ghost = result["ghost"]
        batch.add_polygon(ghost, GHOST_FILL, GHOST_LINE)
        start = centre + motion * hit.t
        batch.add_arrows(start, start + hit.normal * FUTURE_NORMAL_LENGTH, WHITE)
        scene.status = [f"collision at t = {hit.t:.3f} of the motion"]
    if scene.data.get("contacts", False) and hit is not None:
        pairs = result["pairs"]
        if pairs:
            pa = np.array([p for p, _ in pairs])
            pb = np.array([q for _, q in pairs])
            batch.add_lines(np.stack([pa, pb], axis=1), CONTACT_RED)
            batch.add_points(np.concatenate([pa, pb]), CONTACT_RED)
            batch.add_arrows(pb, pb + hit.normal * 4.0, WHITE)
            kind = "edge-edge" if len(pairs) == 2 else "point-edge"
            scene.status.append(f"{len(pairs)} contact pair{'s' * (len(pairs) > 1)} ({kind})")


_SWEPT_HELP = "left mouse: launch A toward the cursor; arrows move A; Enter separates"


def _swept_like(name: str, seed: int, help_lines: list[str], spins: bool, contacts: bool) -> Scene:
    scene = pair_scene(name, seed, help_lines, sides=(2, 7) if name == "rotation" else (3, 8))
    world = scene.world
    if intersect(world.vertices(0), world.vertices(1)):
        # Start apart, so the first picture is a future hit: A moved out along the centre line.
        d = world.position[0] - world.position[1]
        d = d / np.hypot(*d) if np.hypot(*d) > 1e-9 else np.array([1.0, 0.0])
        reach = float(world._radius[0] + world._radius[1]) + 4.0
        world.position[0] = world.position[1] + d * reach
    # Start with A launched at B, so the scene shows a hit before any click.
    scene.data["motion"] = (world.position[1] - world.position[0]) * 1.2
    scene.data.update(separates=True, aims=True, spins=spins, contacts=contacts, spin=spins and not contacts)
    if name == "contacts":
        scene.data["spin"] = False  # T6 starts with the rotation paused
    scene.on_overlay = _swept_overlay
    return scene


@register("swept", "T3: click to launch A; its ghost at the time of impact, the normal and the time")
def build_swept(seed: int = 0, bodies: int | None = None) -> Scene:
    return _swept_like("swept", seed, [f"swept (T3): {_SWEPT_HELP}"], spins=False, contacts=False)


@register("rotation", "T5a: the swept test with both polygons spinning ('a' toggles the spin)")
def build_rotation(seed: int = 0, bodies: int | None = None) -> Scene:
    return _swept_like(
        "rotation",
        seed,
        [f"rotation (T5a): {_SWEPT_HELP}", "a: spin on / off, p: pause"],
        spins=True,
        contacts=False,
    )


@register("contacts", "T6: two spinning polygons with their contact pairs (point-edge, edge-edge)")
def build_contacts(seed: int = 0, bodies: int | None = None) -> Scene:
    return _swept_like(
        "contacts",
        seed,
        [f"contacts (T6): {_SWEPT_HELP}", "a: spin on / off (starts off); red: contact pairs"],
        spins=True,
        contacts=True,
    )


# ----------------------------------------------------------------------------------------------
# clipping (T9).


def clipped(scene: Scene) -> np.ndarray:
    """The intersection polygon of A and B now, (j, 2)."""
    return clip_polygon(scene.world.vertices(0), scene.world.vertices(1))


def _clipping_overlay(scene: Scene, batch: Any) -> None:
    _outline_ab(scene, batch)
    piece = clipped(scene)
    scene.body_colors = {0: (0.5, 0.5, 1.0, 0.25), 1: (0.5, 0.5, 1.0, 0.25)}
    if len(piece) >= 3:
        batch.add_polygon(piece, CLIP_FILL, CLIP_LINE)
        scene.status = [f"intersection: {len(piece)} vertices, area {polygon_area(piece):.1f}"]
    else:
        scene.status = ["no intersection"]


@register("clipping", "T9: two convex polygons and their intersection polygon (Sutherland-Hodgman)")
def build_clipping(seed: int = 0, bodies: int | None = None) -> Scene:
    scene = pair_scene(
        "clipping", seed, ["clipping (T9): arrows move A, Space: new polygons", "yellow: A clipped by B"]
    )
    world = scene.world
    world.position[0] = world.position[1] + (world.position[0] - world.position[1]) * 0.3  # overlapping
    scene.on_overlay = _clipping_overlay
    return scene
