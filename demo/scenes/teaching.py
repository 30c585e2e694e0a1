"""The teaching scenes: the tutorial's programs T1, T2, T3, T5a, T6 and T9, one pair at a time.

Each shows one algorithm on two polygons with the engine's one-pair functions (``intersect``,
``find_mtd``, ``sweep``, ``contact_points``, and for ``clipping`` the Sutherland-Hodgman
``clip_polygon``). The polygons are static bodies of a world without gravity, so the program
draws them as usual; the scene moves and turns them itself. One class per tutorial, each with
its own ``on_overlay``: that is where a tutorial's figure is drawn.

The original's setup (ORIGINAL_DEMO.md section 2): two random regular polygons, 3-8 vertices
(T5a: 2-7), radius 10-15, centres in [25, 75]^2 of a 100-unit-high view; arrow keys move A by 2
units; Space makes new ones; Enter pushes A out by the MTD; the left mouse button sets A's
per-frame displacement to ``cursor - A`` for the swept test; T5a/T6 spin A and B at 0.1 and
0.6 rad/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from collision import Hit, World, clip_polygon, explain, find_mtd, intersect, sweep
from collision.shapes import Polygon
from demo.draw import palette
from demo.scenes import figures
from demo.scenes.base import MOVES, Builder, FrameInput, Scene, fixed_count_fields, wrap_angle

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
#: Where the figures' panel sits: the right of the view, beside the polygons (world units).
PANEL = figures.Panel(93.0, 4.0, 400.0 / 3.0 - 2.0, 96.0)


# ----------------------------------------------------------------------------------------------
# Areas, for the clipping scene's figure and its tests.


def polygon_area(vertices: np.ndarray) -> float:
    """Signed area (positive for CCW) of ``vertices (k, 2)`` (shoelace)."""
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    if len(v) < 3:
        return 0.0
    x, y = v[:, 0], v[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


# ----------------------------------------------------------------------------------------------
# The common pair scene.

PairShapes = list[tuple[Any, Any, float]]


def random_pair(rng: np.random.Generator, sides: tuple[int, int]) -> PairShapes:
    """The original's pair: (shape, centre, angle) for A and B (regular, radius 10..15)."""
    pair = []
    for _ in range(2):
        n = int(rng.integers(sides[0], sides[1] + 1))
        r = float(rng.uniform(*RADIUS_RANGE))
        shape = Polygon.regular(n, r) if n >= 3 else Polygon([[-r, 0.0], [r, 0.0]])
        centre = rng.uniform(*CENTRE_RANGE, size=2)
        pair.append((shape, centre, float(rng.uniform(0.0, 2.0 * math.pi))))
    return pair


@dataclass(eq=False, kw_only=True)
class PairScene(Scene):
    """Polygons A (body 0) and B (body 1), static, in a world without gravity.

    ``motion (2,)``: A's motion for the swept test (units per test); ``spinning``: A and B turn
    at SPIN_A and SPIN_B rad/s.
    """

    family: str = "teaching"
    motion: np.ndarray = field(default_factory=lambda: np.zeros(2))
    spinning: bool = False

    @property
    def a(self) -> np.ndarray:
        """A's vertices in world units (k, 2)."""
        return self.world.vertices(0)

    @property
    def b(self) -> np.ndarray:
        """B's vertices in world units (k, 2)."""
        return self.world.vertices(1)

    def move_a(self, delta: Any) -> None:
        """Move polygon A by ``delta (2,)``, kept inside the scene's view."""
        world = self.world
        p = world.position[0] + np.asarray(delta, dtype=np.float64)
        x0, y0, x1, y1 = self.view
        world.position[0] = np.clip(p, [x0, y0], [x1, y1])

    def separate(self) -> bool:
        """Push A out of B by the MTD (times SEPARATE_FACTOR); True if they overlapped."""
        mtd = find_mtd(self.a, self.b)
        if mtd is None or not mtd.any():
            return False
        self.world.position[0] += mtd * SEPARATE_FACTOR
        return True

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action in MOVES:
            self.move_a(np.array(MOVES[action]) * MOVE_STEP)
            return True
        if action == "reset_count" and "separate" in self.traits:
            self.separate()
            return True
        if action == "attract" and "aim" in self.traits:
            self.motion = frame.cursor - self.world.position[0]
            return True
        if action == "toggle_spin" and "spin" in self.traits:
            self.spinning = not self.spinning
            return True
        return False

    def on_step(self, dt: float, frame: FrameInput) -> None:
        direction = frame.direction()
        if direction.any():
            self.move_a(direction * MOVE_SPEED * dt)
        if self.spinning:
            world = self.world
            world.angle[0] = wrap_angle(world.angle[0] + SPIN_A * dt)
            world.angle[1] = wrap_angle(world.angle[1] + SPIN_B * dt)

    def outline_ab(self, batch: Any) -> tuple[np.ndarray, np.ndarray]:
        """A's outline white, B's black, labels A and B; returns their vertices."""
        world = self.world
        a, b = self.a, self.b
        batch.add_polygon(a, None, palette.POLY_A_OUTLINE)
        batch.add_polygon(b, None, palette.POLY_B_OUTLINE)
        batch.add_text("Poly A", world.position[0], palette.LABEL_TEXT)
        batch.add_text("Poly B", world.position[1], palette.LABEL_TEXT)
        return a, b

    def colour_by_overlap(self, overlapping: bool) -> None:
        color = palette.PAIR_COLLIDING if overlapping else palette.PAIR_APART
        self.body_colors = {0: color, 1: color}


def pair_world(shapes: PairShapes) -> World:
    """A world without gravity holding A and B as static bodies 0 and 1."""
    world = World(gravity=(0.0, 0.0), solver="arcade")
    for shape, centre, angle in shapes:
        world.add_body(shape, centre, angle=angle, static=True)
    return world


def pair_fields(name: str, seed: int, help_lines: list[str], shapes: PairShapes) -> dict[str, Any]:
    """The Scene fields every pair scene shares (no turret: two polygons the scene moves itself,
    nothing for a bullet to push)."""
    fields = fixed_count_fields(name, pair_world(shapes), seed, VIEW, help_lines, None, bounds=BOUNDS)
    return {**fields, "mouse_forces": False}


def pair_scene(
    name: str,
    seed: int,
    help_lines: list[str],
    sides: tuple[int, int] = (3, 8),
    shapes: PairShapes | None = None,
    kind: type[PairScene] = PairScene,
    traits: frozenset[str] = frozenset(),
) -> Any:
    """A ``kind`` of pair scene; ``shapes``: ``(shape, centre, angle)`` for A and B (default: the
    original's random pair from ``seed``)."""
    if shapes is None:
        shapes = random_pair(np.random.default_rng(seed), sides)
    return kind(**pair_fields(name, seed, help_lines, shapes), traits=frozenset({"pair", "random"}) | traits)


# ----------------------------------------------------------------------------------------------
# sat (T1) and mtd (T2).


@dataclass(eq=False, kw_only=True)
class SatScene(PairScene):
    """T1: every candidate axis with A's and B's intervals, red while they overlap, green when
    apart, the first separating axis with its edge; `.` and `,` step through the axes in the
    tutorial's order (``step``: the last one tested, None: all). With ``separate`` (T2) each
    overlapping axis's push vector and the shortest, the MTD; Enter separates by it."""

    step: int | None = None

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action in ("next_axis", "previous_axis") and "axes" in self.traits:
            count = len(explain.separating_axes(self.a, self.b).gap)
            order = [None, *range(count)]
            at = order.index(self.step) if self.step in order else 0
            self.step = order[(at + (1 if action == "next_axis" else -1)) % len(order)]
            return True
        return super().on_action(action, frame)

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        a, b = self.outline_ab(batch)
        axes = explain.separating_axes(a, b)
        self.colour_by_overlap(axes.first_separating < 0)
        mtd = "separate" in self.traits
        self.status = figures.draw_axes(batch, a, b, axes, PANEL.measured(frame.text_width), self.step, mtd)


#: sat and mtd start with A overlapping B by this fraction of the smaller polygon's inner radius.
START_OVERLAP = 0.4


def overlap_a_with_b(scene: PairScene) -> None:
    """Move A toward B along the line between their centres until they overlap by about
    START_OVERLAP of the smaller one's inner radius (the picture then shows a collision)."""
    world = scene.world
    d = world.position[0] - world.position[1]
    distance = float(np.hypot(*d))
    direction = d / distance if distance > 1e-9 else np.array([1.0, 0.0])
    inner = []
    for i in (0, 1):
        v = world.vertices(i) - world.position[i]
        edges = np.roll(v, -1, axis=0) - v
        normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1) / np.hypot(*edges.T)[:, None]
        inner.append(float(np.min(np.sum(v * normals, axis=1))) if len(v) >= 3 else 0.0)
    reach = inner[0] + inner[1] - START_OVERLAP * min(inner)
    world.position[0] = world.position[1] + direction * reach
    while not intersect(scene.a, scene.b):  # their widest sides may face away: come closer
        reach *= 0.8
        world.position[0] = world.position[1] + direction * reach


#: The scenes of the separating axis by name: what the first help line says, the keys line, the
#: trait that gives the scene its keys, and the axis shown first (None: all).
_SAT_SCENES: dict[str, tuple[str, str, str, int | None]] = {
    "sat": (
        "sat (Tutorial 1, the separating axis): each row is one edge normal with A's (white) and "
        "B's (blue) shadows on it; one gap is enough to prove them apart",
        "arrows move A, '.' / ',' test the axes one at a time, Space: new polygons",
        "axes",
        0,
    ),
    "mtd": (
        "mtd (Tutorial 2, the push vector): every overlapping axis pushes A out by its overlap; "
        "the shortest push is the MTD",
        "arrows move A, Enter separates by the MTD, Space: new polygons",
        "separate",
        None,
    ),
}


def sat_scene(name: str, seed: int = 0, bodies: int | None = None) -> SatScene:
    """The separating-axis scene ``name`` (a key of ``_SAT_SCENES``), A overlapping B a little;
    ``bodies`` is unused (two)."""
    what, keys, trait, step = _SAT_SCENES[name]
    scene: SatScene = pair_scene(name, seed, [what, keys], kind=SatScene, traits=frozenset({trait}))
    scene.step = step
    overlap_a_with_b(scene)
    return scene


# ----------------------------------------------------------------------------------------------
# swept (T3), rotation (T5a), contacts (T6).


@dataclass(frozen=True)
class SweptResult:
    """The swept test of A moving by ``motion`` against B: what the overlay draws.

    ``hit``: the engine's Hit or None; ``axes``: every axis as the test saw it
    (collision.explain); ``ghost``: A's vertices at the time of impact or None; ``support``: the
    hit's support points and contact pairs at the time of impact, or None; ``a``, ``b``: the
    polygons' vertices now.
    """

    hit: Hit | None
    axes: explain.Axes
    ghost: np.ndarray | None
    support: explain.Support | None
    a: np.ndarray
    b: np.ndarray
    motion: np.ndarray

    @property
    def pairs(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The contact pairs ``[(on A, on B), ...]`` at the time of impact."""
        if self.support is None:
            return []
        return list(zip(self.support.pairs_a, self.support.pairs_b, strict=True))


@dataclass(eq=False, kw_only=True)
class SweptScene(PairScene):
    """T3 (and T5a): A launched along ``motion`` at B: each axis's time window on one time line,
    the latest entry and earliest exit, the ghost of A at the time of impact and the normal; with
    ``show_pairs`` (T6) the support points along the normal and the contact pairs instead."""

    show_pairs: bool = False

    def swept(self) -> SweptResult:
        a, b = self.a, self.b
        motion = np.asarray(self.motion, dtype=np.float64)
        axes = explain.separating_axes(a, b, motion, 1.0)
        hit = sweep(a, b, motion, 1.0)
        if hit is None:
            return SweptResult(None, axes, None, None, a, b, motion)
        support = explain.support_features(a, b, hit.normal, hit.t, motion)
        return SweptResult(hit, axes, a + motion * hit.t, support, a, b, motion)

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        a, _ = self.outline_ab(batch)
        result = self.swept()
        hit, motion = result.hit, result.motion
        centre = self.world.position[0]
        if motion.any():
            batch.add_arrows(centre, centre + motion, palette.WHITE)
            batch.add_polygon(a + motion, None, palette.MOTION_GHOST)
        self.colour_by_overlap(hit is not None and hit.overlapping)
        if hit is not None and hit.overlapping:
            mid = 0.5 * (self.world.position[0] + self.world.position[1])
            batch.add_arrows(mid, mid + hit.normal * hit.depth, palette.PUSH)
        elif hit is not None:
            batch.add_polygon(result.ghost, palette.TOI_GHOST_FILL, palette.TOI_GHOST_LINE)
            start = centre + motion * hit.t
            batch.add_arrows(start, start + hit.normal * FUTURE_NORMAL_LENGTH, palette.WHITE)
        if not self.show_pairs:
            self.status = figures.draw_timeline(
                batch, result.a, result.b, result.axes, PANEL.measured(frame.text_width)
            )
            if hit is not None and hit.overlapping:
                self.status.append("Enter separates them")
        elif hit is None or result.support is None:
            self.status = ["no hit within the motion: no contact points (click to aim A at B)"]
        else:
            when = f"at t = {hit.t:.3f}" if hit.t > 0 else "now (overlapping)"
            a_then = result.a + motion * hit.t
            figures.draw_support_panel(
                batch, a_then, result.b, hit.normal, result.support, PANEL.measured(frame.text_width)
            )
            self.status = [
                f"contact {when}: the support points, A's lowest along n (white), B's highest (blue)",
                figures.draw_support(batch, result.support, hit.normal),
            ]


_SWEPT_HELP = "left mouse: launch A toward the cursor; arrows move A; Enter separates"

#: The scenes of the swept test by name: what the first help line says, the keys line, whether
#: the shapes spin, whether the contact pairs are drawn.
_SWEPT_SCENES = {
    "swept": (
        "swept (Tutorial 3, fast movers): each axis's bar is when its shadows overlap; the hit is "
        "the latest entry, if it comes before the earliest exit",
        _SWEPT_HELP,
        False,
        False,
    ),
    "rotation": (
        "rotation (Tutorial 5, turning shapes): the swept test on the shapes as they are turned now; "
        "watch the time windows shift as they spin",
        f"{_SWEPT_HELP}; a: spin on / off, p: pause",
        True,
        False,
    ),
    "contacts": (
        "contacts (Tutorial 6, contact points): the support points of each shape along the normal, "
        "and the pairs made of them (red)",
        f"{_SWEPT_HELP}; a: spin on / off",
        True,
        True,
    ),
}


def swept_scene(name: str, seed: int = 0, bodies: int | None = None) -> SweptScene:
    """The swept-test scene ``name`` (a key of ``_SWEPT_SCENES``); ``bodies`` is unused (two)."""
    what, keys, spins, pairs = _SWEPT_SCENES[name]
    traits = frozenset({"separate", "aim"} | ({"spin"} if spins else set()))
    sides = (2, 7) if name == "rotation" else (3, 8)
    scene: SweptScene = pair_scene(name, seed, [what, keys], sides=sides, kind=SweptScene, traits=traits)
    world = scene.world
    if intersect(scene.a, scene.b):
        # Start apart, so the first picture is a future hit: A moved out along the centre line.
        d = world.position[0] - world.position[1]
        d = d / np.hypot(*d) if np.hypot(*d) > 1e-9 else np.array([1.0, 0.0])
        reach = float(world.radius[0] + world.radius[1]) + 4.0
        world.position[0] = world.position[1] + d * reach
    # Start with A launched at B, so the scene shows a hit before any click.
    scene.motion = (world.position[1] - world.position[0]) * 1.2
    scene.show_pairs = pairs
    scene.spinning = spins
    return scene


# ----------------------------------------------------------------------------------------------
# clipping (T9).


@dataclass(eq=False, kw_only=True)
class ClippingScene(PairScene):
    """T9: A clipped by B (Sutherland-Hodgman), drawn over both."""

    def clipped(self) -> np.ndarray:
        """The intersection polygon of A and B now, (j, 2)."""
        return clip_polygon(self.a, self.b)

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        self.outline_ab(batch)
        piece = self.clipped()
        self.body_colors = {0: palette.PAIR_NEUTRAL, 1: palette.PAIR_NEUTRAL}
        if len(piece) >= 3:
            batch.add_polygon(piece, palette.CLIP_FILL, palette.CLIP_LINE)
            self.status = [f"intersection: {len(piece)} vertices, area {polygon_area(piece):.1f}"]
        else:
            self.status = ["no intersection"]


def build_clipping(seed: int = 0, bodies: int | None = None) -> ClippingScene:
    help_lines = ["clipping (T9): arrows move A, Space: new polygons", "yellow: A clipped by B"]
    scene: ClippingScene = pair_scene("clipping", seed, help_lines, kind=ClippingScene)
    world = scene.world
    world.position[0] = world.position[1] + (world.position[0] - world.position[1]) * 0.3  # overlapping
    return scene


BUILDERS: dict[str, Builder] = {
    "sat": partial(sat_scene, "sat"),
    "mtd": partial(sat_scene, "mtd"),
    "swept": partial(swept_scene, "swept"),
    "rotation": partial(swept_scene, "rotation"),
    "contacts": partial(swept_scene, "contacts"),
    "clipping": build_clipping,
}
