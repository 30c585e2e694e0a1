"""Scenes that show the engine beyond the original, in metres, kilograms and seconds with the
iterative solver: restitution, friction, a large mass ratio, concave compound bodies and a
kinematic tumbler.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import Polygon, World, decompose
from demo.draw import palette
from demo.scenes.base import FrameInput, Scene, fixed_count_fields


def ground(world: World, x0: float, x1: float, top: float = 0.0) -> int:
    """A static 1 m thick ground from x0 to x1 whose top is at ``top``."""
    return world.add_body(Polygon.box(x1 - x0, 1.0), (0.5 * (x0 + x1), top - 0.5), static=True)


# ----------------------------------------------------------------------------------------------
# restitution.

#: Boxes 1 m wide dropped from DROP_HEIGHT onto a ground of restitution 0 (pairs mix
#: restitution as max(a, b), so each bounce shows the box's own value).
RESTITUTIONS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
DROP_HEIGHT = 8.0


@dataclass(eq=False, kw_only=True)
class RestitutionScene(Scene):
    """``first``: the first box (the others follow, one per RESTITUTIONS value)."""

    family: str = "engine"
    first: int = 0

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        world = self.world
        for k, e in enumerate(RESTITUTIONS):
            i = self.first + k
            batch.add_text(f"e={e:.1f}", (world.position[i, 0] - 0.5, -0.3), palette.LABEL_TEXT)


def build_restitution(seed: int = 0, bodies: int | None = None) -> RestitutionScene:
    world = World(gravity=(0.0, -10.0), friction=0.6, restitution=0.0)
    world.solver_settings("iterative").sleep = False
    ground(world, -8.0, 8.0)
    first = world.body_count
    for k, e in enumerate(RESTITUTIONS):
        world.add_body(Polygon.box(1.0, 1.0), (-6.25 + 2.5 * k, DROP_HEIGHT), restitution=e)
    help_lines = ["restitution: boxes with restitution 0, 0.2, ... 1 (left to right) dropped together"]
    # The turret above the boxes' highest bounce, between the boxes of 0.4 and 0.6.
    fields = fixed_count_fields("restitution", world, seed, (-9.0, -1.5, 9.0, 11.0), help_lines, (0.0, 10.2))
    return RestitutionScene(**fields, first=first)


# ----------------------------------------------------------------------------------------------
# friction.

#: Ramps tilted RAMP_ANGLE (tan = 0.577) with boxes of friction 0 .. 0.8 on them (the ramp has
#: the same value: pairs mix friction as sqrt(a b)). Boxes whose friction is at least
#: tan(RAMP_ANGLE) must stay put.
FRICTIONS = (0.0, 0.2, 0.4, 0.6, 0.8)
RAMP_ANGLE = math.radians(30.0)
RAMP_LENGTH, RAMP_PITCH = 8.0, 9.0
#: The end stops' centres (m): inside the view, so a box that slides off a ramp stays in sight.
END_STOP_X = 23.0


def ramp_frame(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ramp ``k``'s centre (2,), its downhill unit direction (2,) and its surface normal (2,)."""
    c = np.array([-18.0 + RAMP_PITCH * k, 4.0])
    down = np.array([-math.cos(RAMP_ANGLE), -math.sin(RAMP_ANGLE)])
    normal = np.array([-math.sin(RAMP_ANGLE), math.cos(RAMP_ANGLE)])
    return c, down, normal


@dataclass(eq=False, kw_only=True)
class FrictionScene(Scene):
    """``boxes``: the box on each ramp, in FRICTIONS order."""

    family: str = "engine"
    boxes: list[int] = field(default_factory=list)

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        for k, mu in enumerate(FRICTIONS):
            c, _, _ = ramp_frame(k)
            batch.add_text(f"mu={mu:.1f}", (c[0] - 2.0, c[1] - 2.5), palette.LABEL_TEXT)


def build_friction(seed: int = 0, bodies: int | None = None) -> FrictionScene:
    world = World(gravity=(0.0, -10.0), restitution=0.0)
    world.solver_settings("iterative").sleep = False
    ground(world, -26.0, 26.0)
    for x in (-END_STOP_X, END_STOP_X):  # a frictionless box would otherwise slide on for ever
        world.add_body(Polygon.box(1.0, 3.0), (x, 1.5), static=True)
    boxes = []
    for k, mu in enumerate(FRICTIONS):
        c, _, normal = ramp_frame(k)
        world.add_body(Polygon.box(RAMP_LENGTH, 0.4), c, angle=RAMP_ANGLE, static=True, friction=mu)
        top = c - 0.0 * normal + normal * (0.2 + 0.5)  # resting on the ramp's surface, mid-ramp
        boxes.append(world.add_body(Polygon.box(1.0, 1.0), top, angle=RAMP_ANGLE, friction=mu))
    help_lines = [
        f"friction: 30 degree ramps (tan = {math.tan(RAMP_ANGLE):.2f}); box and ramp friction 0 .. 0.8"
    ]
    # The turret above the middle ramp.
    fields = fixed_count_fields("friction", world, seed, (-24.0, -1.5, 24.0, 12.0), help_lines, (0.0, 11.0))
    return FrictionScene(**fields, boxes=boxes)


# ----------------------------------------------------------------------------------------------
# mass-ratio.

#: A HEAVY_DENSITY box on a light one (density 1): a 400:1 stack must stay.
HEAVY_DENSITY, HEAVY_SIZE, LIGHT_SIZE = 100.0, 2.0, 1.0


@dataclass(eq=False, kw_only=True)
class MassRatioScene(Scene):
    family: str = "engine"
    light: int = 0
    heavy: int = 0


def build_mass_ratio(seed: int = 0, bodies: int | None = None) -> MassRatioScene:
    world = World(gravity=(0.0, -10.0), restitution=0.0)
    world.solver_settings("iterative").sleep = False
    ground(world, -6.0, 6.0)
    light = world.add_body(Polygon.box(LIGHT_SIZE, LIGHT_SIZE), (0.0, 0.5 * LIGHT_SIZE))
    heavy = world.add_body(
        Polygon.box(HEAVY_SIZE, HEAVY_SIZE), (0.0, LIGHT_SIZE + 0.5 * HEAVY_SIZE), density=HEAVY_DENSITY
    )
    help_lines = [
        "mass-ratio: the top box is 400 times heavier (2 x 2 m, density 100, on 1 x 1 m, density 1)"
    ]
    # The turret on the ground, left of the stack.
    fields = fixed_count_fields("mass-ratio", world, seed, (-5.0, -1.0, 5.0, 5.0), help_lines, (-4.0, 0.1))
    return MassRatioScene(**fields, light=light, heavy=heavy)


# ----------------------------------------------------------------------------------------------
# concave.

#: Outlines split by decompose() into convex pieces, each outline one compound body
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


@dataclass(eq=False, kw_only=True)
class ConcaveScene(Scene):
    """``groups``: the body rows of each outline's compound body."""

    family: str = "engine"
    groups: list[list[int]] = field(default_factory=list)


def build_concave(seed: int = 0, bodies: int | None = None) -> ConcaveScene:
    world = World(gravity=(0.0, -10.0), restitution=0.1)
    ground(world, -12.0, 12.0)
    world.add_body(Polygon.box(1.0, 10.0), (-12.5, 5.0), static=True)
    world.add_body(Polygon.box(1.0, 10.0), (12.5, 5.0), static=True)
    groups: list[list[int]] = []
    colors: dict[int, palette.Color] = {}
    for k, points in enumerate(CONCAVE_OUTLINES.values()):
        offset = np.array([-8.0 + 5.0 * k, 3.0 + 2.0 * k])
        pieces = decompose(np.asarray(points, dtype=np.float64))
        # The outline goes to offset: its centre of mass (the area-weighted centroid of the
        # pieces) to offset + that centre.
        areas = np.array([piece.area for piece in pieces])
        centre = (areas[:, None] * np.array([piece.centroid for piece in pieces])).sum(axis=0) / areas.sum()
        root = world.add_compound(pieces, offset + centre)
        group = world.parts(root)
        for row in group:
            colors[row] = palette.OUTLINE_GROUPS[k % len(palette.OUTLINE_GROUPS)]
        groups.append(group)
    help_lines = [
        "concave: decompose() splits each outline into convex pieces (one colour per outline)",
        "each outline is one compound body: its pieces move as one rigid body",
    ]
    # The turret above the falling outlines.
    fields = fixed_count_fields("concave", world, seed, (-14.0, -1.5, 14.0, 14.0), help_lines, (0.0, 13.0))
    return ConcaveScene(**fields, groups=groups, body_colors=colors)


# ----------------------------------------------------------------------------------------------
# tumbler.

#: A 12 m square box of four walls, one kinematic compound body turning about its centre at
#: TUMBLER_SPIN rad/s, full of random bodies that its walls carry round.
TUMBLER_SIZE, TUMBLER_WALL, TUMBLER_SPIN, TUMBLER_BODIES = 12.0, 0.5, 0.3, 40


def tumbler_walls() -> list[np.ndarray]:
    """The four walls' vertices in the box's frame (centre at the origin): bottom, right, top,
    left. The bottom and top run the box's length plus both walls' thickness, closing the
    corners; the sides fit between them, so no two walls overlap (translucent, an overlap would
    show as a brighter square)."""
    half = 0.5 * (TUMBLER_SIZE + TUMBLER_WALL)
    thick = 0.5 * TUMBLER_WALL
    long, short = 0.5 * TUMBLER_SIZE + TUMBLER_WALL, 0.5 * TUMBLER_SIZE
    flat = np.array([(-long, -thick), (long, -thick), (long, thick), (-long, thick)])
    upright = np.array([(-thick, -short), (thick, -short), (thick, short), (-thick, short)])
    return [flat + (0.0, -half), upright + (half, 0.0), flat + (0.0, half), upright + (-half, 0.0)]


@dataclass(eq=False, kw_only=True)
class TumblerScene(Scene):
    """``box``: the kinematic compound's root; ``walls``: its parts' rows."""

    family: str = "engine"
    box: int = 0
    walls: list[int] = field(default_factory=list)


def build_tumbler(seed: int = 0, bodies: int | None = None) -> TumblerScene:
    rng = np.random.default_rng(seed)
    world = World(gravity=(0.0, -10.0), restitution=0.0)
    box = world.add_compound(tumbler_walls(), (0.0, 0.0), angular_velocity=TUMBLER_SPIN, kinematic=True)
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
    view = (-half, -half, half, half)
    help_lines = [
        "tumbler: a box turning at 0.3 rad/s, one kinematic compound body: its walls carry the bodies"
    ]
    # No turret: outside, the box's walls stop every shot; inside, the bodies would bury it.
    fields = fixed_count_fields("tumbler", world, seed, view, help_lines, bounds=view)
    return TumblerScene(
        **fields,
        traits=frozenset({"random"}),
        box=box,
        walls=walls,
        body_colors={row: palette.KINEMATIC_FILL for row in walls},
    )


BUILDERS = {
    "restitution": build_restitution,
    "friction": build_friction,
    "mass-ratio": build_mass_ratio,
    "concave": build_concave,
    "tumbler": build_tumbler,
}
