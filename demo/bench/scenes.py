"""Engine-neutral scene descriptions and the one generator of the benchmark geometry.

A :class:`SceneSpec` lists bodies (:class:`BodySpec`) with their convex parts, pose, velocity,
density and material; every engine adapter (``demo.bench.engines``) builds the same world from
it, so the comparisons never rest on two copies of a layout. Units: metres, kilograms, seconds,
radians (counter-clockwise); y up.

Conventions (ours, carried to every engine): a body's parts are given in its local frame and
its ``position`` is where its centre of mass goes; the parts' vertices are counter-clockwise.
Engines that place a body by its frame origin (Box2D, pymunk) get the parts shifted by the centre
of mass that :func:`mass_properties` computes.

The benchmark scenes (dt 1/60, gravity (0, -10), density 1, friction 0.6, restitution 0):

- ``pyramid(rows)``: ``rows`` rows of 1 x 1 boxes (20 rows: 210), 0.05 m gaps in a row, rows
  resting exactly on each other, bottom row centred at y = 0.5, on a static ground x in
  [-40, 40], y in [-1, 0] (wider for more than 70 rows).
- ``pile(count)``: ``count`` random convex polygons (3-8 vertices on a circle of diameter
  0.5-1.5 m, random angle) on a grid of pitch 1.6 m from y = 1, dropped into a static container
  (floor y in [-1, 0]; walls 1 m thick up to y = 100). The grid has 24 columns for up to 1000
  bodies (a 40 m wide container, 42 rows) and 24 per 1000 bodies beyond, so that a bigger pile
  spreads sideways at the same height instead of towering (8000 bodies: 192 columns, 320 m).
- ``bullet()``: a 0.1 m box at (0, 0) moving at (500, 0) m/s, no gravity, towards a static wall
  x in [10, 10.1], y in [-1, 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

DT = 1.0 / 60.0
GRAVITY = (0.0, -10.0)
FRICTION = 0.6
RESTITUTION = 0.0
PILE_SEED = 1
PILE_BODIES = 1000
PILE_COLUMNS = 24
PILE_PITCH = 1.6
PYRAMID_ROWS = 20
PYRAMID_PITCH = 1.05
BULLET_SPEED = 500.0

DYNAMIC, STATIC, KINEMATIC = "dynamic", "static", "kinematic"


@dataclass(frozen=True)
class BodySpec:
    """One rigid body.

    ``parts``: one or more convex polygons ``(k, 2) float64`` (counter-clockwise, 3 <= k) in the
    body's local frame; ``position (2,)`` where its centre of mass goes (m); ``angle`` (rad);
    ``velocity (2,)`` (m/s) and ``angular_velocity`` (rad/s) of the centre of mass; ``density``
    (kg/m^2); ``kind`` one of ``"dynamic"``, ``"static"``, ``"kinematic"``; ``friction`` and
    ``restitution`` of its surface (a pair mixes them as Box2D does: friction sqrt(a b),
    restitution max(a, b); every adapter applies that rule).
    """

    parts: tuple[np.ndarray, ...]
    position: tuple[float, float]
    angle: float = 0.0
    velocity: tuple[float, float] = (0.0, 0.0)
    angular_velocity: float = 0.0
    density: float = 1.0
    kind: str = DYNAMIC
    friction: float = FRICTION
    restitution: float = RESTITUTION

    @property
    def moving(self) -> bool:
        """Dynamic (moved by forces and contacts)."""
        return self.kind == DYNAMIC


@dataclass(frozen=True)
class SceneSpec:
    """A world: its bodies, gravity (m/s^2), time step (s) and whether bodies may sleep.

    ``bounds (x0, y0, x1, y1)``: a dynamic body whose centre ends outside has escaped.
    """

    name: str
    bodies: tuple[BodySpec, ...]
    gravity: tuple[float, float] = GRAVITY
    dt: float = DT
    sleeping: bool = False
    bounds: tuple[float, float, float, float] = (-math.inf, -math.inf, math.inf, math.inf)
    notes: str = field(default="", compare=False)

    def with_bodies(self, bodies: Sequence[BodySpec]) -> SceneSpec:
        """The same world with other bodies."""
        return replace(self, bodies=tuple(bodies))


# -- shapes and mass properties ---------------------------------------------------------------


def box_vertices(w: float, h: float) -> np.ndarray:
    """``(4, 2)`` corners of a ``w`` x ``h`` box centred on the origin, CCW from ``(-w/2, -h/2)``."""
    hw, hh = 0.5 * w, 0.5 * h
    return np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])


def regular_vertices(n: int, r: float, phase: float = 0.0) -> np.ndarray:
    """``(n, 2)`` vertices of a regular ``n``-gon of circumradius ``r``, the first at angle ``phase``."""
    angles = phase + 2.0 * math.pi * np.arange(n) / n
    return np.column_stack([r * np.cos(angles), r * np.sin(angles)])


def polygon_mass_properties(vertices: np.ndarray) -> tuple[float, np.ndarray, float]:
    """``(area, centroid (2,), polar second moment of area about the centroid)`` of a CCW polygon.

    Exact for any simple polygon (the shoelace sums): area A = sum(c_i) / 2 with
    c_i = p_i x p_(i+1); centroid = sum((p_i + p_(i+1)) c_i) / (6 A); second moment about the
    origin J0 = sum(c_i (p_i.p_i + p_i.p_(i+1) + p_(i+1).p_(i+1))) / 12, moved to the centroid
    by the parallel-axis rule J = J0 - A |centroid|^2.
    """
    p = np.asarray(vertices, dtype=np.float64)
    q = np.roll(p, -1, axis=0)
    cross = p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0]
    area = 0.5 * float(cross.sum())
    centroid = ((p + q) * cross[:, None]).sum(axis=0) / (6.0 * area)
    dots = (p * p).sum(axis=1) + (p * q).sum(axis=1) + (q * q).sum(axis=1)
    second = float((cross * dots).sum()) / 12.0 - area * float(centroid @ centroid)
    return area, centroid, second


def mass_properties(body: BodySpec) -> tuple[float, np.ndarray, float]:
    """``(mass (kg), centre of mass in the local frame (2,), inertia about it (kg m^2))`` of a
    body of uniform density, its parts summed by the parallel-axis rule."""
    props = [polygon_mass_properties(p) for p in body.parts]
    areas = np.array([a for a, _, _ in props])
    centroids = np.array([c for _, c, _ in props])
    total = float(areas.sum())
    centre = (areas[:, None] * centroids).sum(axis=0) / total
    offsets = centroids - centre
    second = sum(j for _, _, j in props) + float((areas * (offsets**2).sum(axis=1)).sum())
    return total * body.density, centre, second * body.density


def centred_parts(body: BodySpec) -> tuple[np.ndarray, ...]:
    """The body's parts relative to its centre of mass (what an engine placing bodies by their
    frame origin is given)."""
    _, centre, _ = mass_properties(body)
    return tuple(np.asarray(p, dtype=np.float64) - centre for p in body.parts)


def world_parts(body: BodySpec, position: np.ndarray, angle: float) -> list[np.ndarray]:
    """The body's parts in world space ``[(k, 2), ...]`` with its centre of mass at ``position``
    turned by ``angle``."""
    c, s = math.cos(angle), math.sin(angle)
    turn = np.array([[c, s], [-s, c]])
    return [p @ turn + position for p in centred_parts(body)]


def fan_pieces(vertices: np.ndarray, limit: int) -> list[np.ndarray]:
    """A convex polygon ``(k, 2)`` cut into convex pieces of at most ``limit`` vertices that
    tile it: the fan from vertex 0, ``limit - 2`` triangles to a piece."""
    k = len(vertices)
    pieces = [vertices[:limit]]
    last = min(limit, k) - 1
    while last < k - 1:
        end = min(last + limit - 2, k - 1)
        pieces.append(vertices[[0, *range(last, end + 1)]])
        last = end
    return pieces


def static_box(x0: float, y0: float, x1: float, y1: float, **material: float) -> BodySpec:
    """A static axis-aligned box covering x in [x0, x1], y in [y0, y1]."""
    return BodySpec(
        (box_vertices(x1 - x0, y1 - y0),), (0.5 * (x0 + x1), 0.5 * (y0 + y1)), kind=STATIC, **material
    )


# -- the benchmark scenes ----------------------------------------------------------------------


def pyramid_layout(rows: int = PYRAMID_ROWS) -> list[tuple[float, float]]:
    """Centres of the pyramid's 1 x 1 boxes, bottom row first."""
    centres = []
    for r in range(rows):
        count = rows - r
        for i in range(count):
            centres.append(((i - 0.5 * (count - 1)) * PYRAMID_PITCH, 0.5 + r))
    return centres


def pyramid(rows: int = PYRAMID_ROWS) -> SceneSpec:
    """The stacking benchmark: ``rows`` rows of unit boxes on a static ground (see the module)."""
    half = max(40.0, 0.5 * PYRAMID_PITCH * rows + 5.0)
    box = box_vertices(1.0, 1.0)
    bodies = [static_box(-half, -1.0, half, 0.0)]
    bodies += [BodySpec((box,), (x, y)) for x, y in pyramid_layout(rows)]
    return SceneSpec("pyramid", tuple(bodies), bounds=(-half, 0.0, half, 100.0), notes=f"{rows} rows")


def pile_columns(count: int) -> int:
    """Columns of the pile's starting grid: 24 up to 1000 bodies, then 24 per 1000."""
    return max(PILE_COLUMNS, round(PILE_COLUMNS * count / PILE_BODIES))


def pile_shapes(
    seed: int = PILE_SEED, count: int = PILE_BODIES, columns: int | None = None
) -> list[tuple[np.ndarray, float, float]]:
    """``(local vertices (k, 2), x, y)`` of the pile's polygons (seeded); ``(x, y)`` is where
    the polygon's centroid goes.

    Vertices lie on a circle of diameter 0.5-1.5 m, at evenly spaced angles jittered by up to a
    quarter of the spacing and turned by a random angle (3-8 vertices: always convex).
    ``columns`` defaults to :func:`pile_columns`.
    """
    cols = pile_columns(count) if columns is None else columns
    rng = np.random.default_rng(seed)
    shapes = []
    for index in range(count):
        k = int(rng.integers(3, 9))
        r = 0.5 * rng.uniform(0.5, 1.5)
        spacing = 2.0 * math.pi / k
        turn = rng.uniform(0.0, 2.0 * math.pi)
        angles = turn + spacing * (np.arange(k) + rng.uniform(-0.25, 0.25, size=k))
        vertices = np.column_stack([r * np.cos(angles), r * np.sin(angles)])
        column = index % cols
        row = index // cols
        shapes.append((vertices, (column - 0.5 * (cols - 1)) * PILE_PITCH, 1.0 + PILE_PITCH * row))
    return shapes


def pile(count: int = PILE_BODIES, seed: int = PILE_SEED, columns: int | None = None) -> SceneSpec:
    """The pile benchmark: the container and ``count`` random convex polygons (see the module);
    ``columns`` (default :func:`pile_columns`) sets the grid's width and the container's."""
    cols = pile_columns(count) if columns is None else columns
    inner = 20.0 * cols / PILE_COLUMNS  # half the container's inner width: clear of the widest column
    bodies = [
        static_box(-inner - 1.0, -1.0, inner + 1.0, 0.0),
        static_box(-inner - 1.0, 0.0, -inner, 100.0),
        static_box(inner, 0.0, inner + 1.0, 100.0),
    ]
    bodies += [BodySpec((v,), (x, y)) for v, x, y in pile_shapes(seed, count, cols)]
    return SceneSpec("pile", tuple(bodies), bounds=(-inner, 0.0, inner, 200.0), notes=f"{count} bodies")


def bullet() -> SceneSpec:
    """The continuous-collision check: a 0.1 m box at 500 m/s towards a 0.1 m thick wall."""
    bodies = (
        static_box(10.0, -1.0, 10.1, 1.0),
        BodySpec((box_vertices(0.1, 0.1),), (0.0, 0.0), velocity=(BULLET_SPEED, 0.0)),
    )
    return SceneSpec("bullet", bodies, gravity=(0.0, 0.0), bounds=(-1.0, -1.0, 10.1, 1.0))
