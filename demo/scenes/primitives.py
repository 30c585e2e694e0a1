"""primitives (seed 001): a point, a line, a segment, a circle, two rectangles and a polygon to
drag about; a shape is red while it collides with another (collision.primitives' tests).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import Polygon, World, clip_segment, intersect
from collision import primitives as prim
from demo.draw import palette
from demo.scenes.base import FrameInput, Scene

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
#: Half the length (units) of the segment that draws the infinite line.
LINE_DRAW_HALF_LENGTH = 400.0
CIRCLE_DRAW_POINTS = 32


@dataclass
class Shape:
    """One draggable shape: its kind, centre (2,), angle (rad) and size (see PRIMITIVE_LAYOUT)."""

    kind: str
    centre: np.ndarray
    angle: float
    size: Any

    def primitive(self) -> Any:
        """The collision.primitives object (or polygon vertices (k, 2)) for this shape."""
        kind, size = self.kind, self.size
        c = (float(self.centre[0]), float(self.centre[1]))
        d = (math.cos(self.angle), math.sin(self.angle))
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
            return prim.OrientedRectangle(c, size, self.angle)
        return Polygon.regular(PRIMITIVE_POLYGON_SIDES, size).rotated(self.angle).vertices + np.asarray(c)


@dataclass(frozen=True)
class Drag:
    """A drag in progress: shape ``index``, its centre's ``offset`` from the cursor at the press;
    ``turn``: a Shift-drag (turns the shape) from cursor angle ``start_angle`` and shape angle
    ``angle0``."""

    index: int
    offset: np.ndarray
    turn: bool
    start_angle: float
    angle0: float


def outline(kind: str, obj: Any) -> np.ndarray:
    """Vertices (k, 2) that draw a shape (a long segment for a line, 32 points for a circle)."""
    if kind == "point":
        return np.array([obj])
    if kind == "line":
        b, d = np.array(obj.base), np.array(obj.direction)
        return np.array([b - d * LINE_DRAW_HALF_LENGTH, b + d * LINE_DRAW_HALF_LENGTH])
    if kind == "segment":
        return np.array([obj.point1, obj.point2])
    if kind == "circle":
        a = np.linspace(0.0, 2 * math.pi, CIRCLE_DRAW_POINTS + 1)[:-1]
        return np.array(obj.center) + obj.radius * np.column_stack([np.cos(a), np.sin(a)])
    if kind == "rectangle":
        (x, y), (w, h) = obj.origin, obj.size
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    if kind == "oriented":
        return np.array(obj.corners())
    return np.asarray(obj)


def _polygon_vertices(kind: str, obj: Any) -> np.ndarray | None:
    """The shape as engine vertices (point, segment, convex polygon), or None (line, circle)."""
    if kind in ("line", "circle"):
        return None
    return outline(kind, obj)


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


@dataclass(eq=False, kw_only=True)
class PrimitivesScene(Scene):
    """``shapes``: the draggable shapes; ``drag``: the drag in progress, or None."""

    family: str = "primitives"
    shapes: list[Shape] = field(default_factory=list)
    drag: Drag | None = None

    def primitives(self) -> list[tuple[str, Any]]:
        """(kind, collision.primitives object) of every shape."""
        return [(s.kind, s.primitive()) for s in self.shapes]

    def colliding_pairs(self) -> list[tuple[int, int]]:
        """Index pairs (i < j) of the shapes that collide now."""
        objs = self.primitives()
        out = []
        for i in range(len(objs)):
            for j in range(i + 1, len(objs)):
                if primitives_collide(objs[i][0], objs[i][1], objs[j][0], objs[j][1]):
                    out.append((i, j))
        return out

    def pick(self, point: np.ndarray) -> int | None:
        """The shape within PICK_DISTANCE of ``point`` (a disc probe), nearest centre first; or None."""
        probe = prim.Circle((float(point[0]), float(point[1])), PICK_DISTANCE)
        near = [
            (float(np.hypot(*(self.shapes[i].centre - point))), i)
            for i, (kind, obj) in enumerate(self.primitives())
            if primitives_collide("circle", probe, kind, obj)
        ]
        return min(near)[1] if near else None

    def drag_to(self, cursor: np.ndarray) -> None:
        """Move (or, for a Shift-drag, turn) the shape being dragged so it follows ``cursor``."""
        drag = self.drag
        if drag is None:
            return
        shape = self.shapes[drag.index]
        if drag.turn:
            d = cursor - shape.centre
            if np.hypot(*d) > 1e-9:
                shape.angle = drag.angle0 + math.atan2(d[1], d[0]) - drag.start_angle
        else:
            shape.centre = cursor + drag.offset

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action != "attract":
            return False
        cursor = frame.cursor
        i = self.pick(cursor)
        self.drag = None
        if i is not None:
            shape = self.shapes[i]
            offset = shape.centre - cursor
            start_angle = math.atan2(-offset[1], -offset[0])
            self.drag = Drag(i, offset, frame.shift, start_angle, shape.angle)
        return True

    def on_step(self, dt: float, frame: FrameInput) -> None:
        if "attract" in frame.held:
            self.drag_to(frame.cursor)
        else:
            self.drag = None

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        pairs = self.colliding_pairs()
        hot = {i for pair in pairs for i in pair}
        for i, (kind, obj) in enumerate(self.primitives()):
            color = palette.PRIMITIVE_HIT if i in hot else palette.PRIMITIVE_CALM
            shape_outline = outline(kind, obj)
            if kind == "point":
                batch.add_points(shape_outline, color)
            elif kind in ("line", "segment"):
                batch.add_lines(shape_outline[None, :, :], color)
            else:
                batch.add_polygon(shape_outline, (*color[:3], 0.2) if kind != "circle" else None, color)
            batch.add_text(kind, self.shapes[i].centre, palette.LABEL_TEXT)
        names = [s.kind for s in self.shapes]
        self.status = [f"colliding: {', '.join(f'{names[i]}-{names[j]}' for i, j in pairs) or 'none'}"]


def build_primitives(seed: int = 0, bodies: int | None = None) -> PrimitivesScene:
    view = (0.0, 0.0, 400.0 / 3.0, 100.0)
    return PrimitivesScene(
        name="primitives",
        world=World(gravity=(0.0, 0.0)),
        view=view,
        bounds=view,
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
        traits=frozenset({"drag"}),
        shapes=[Shape(kind, np.array(c, dtype=np.float64), a, size) for kind, c, a, size in PRIMITIVE_LAYOUT],
    )


BUILDERS = {"primitives": build_primitives}
