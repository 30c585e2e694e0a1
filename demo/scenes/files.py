"""Scenes from JSON files: ``python -m demo --scene PATH.json`` (any path ending .json; the examples
that come with the program, in assets/scenes, also by name: ``--scene carousel.json`` or
``--scene carousel``).

Schema (every field optional unless marked *required*; unknown fields are errors, so typos show):

.. code-block:: text

    {
      "description": "one line shown by --list-scenes users and the help",
      "help": ["lines shown in the on-screen help"],
      "view": [x0, y0, x1, y1],        # world rectangle shown (default: fit every body)
      "bounds": [x0, y0, x1, y1],      # a moving body whose centre leaves it has escaped
      "dt": 0.016666,                  # physics step, seconds (1e-6 <= dt <= 0.1)
      "world": {
        "gravity": [0, -10],           # units/s^2
        "solver": "iterative",         # "iterative" | "tutorial" | "arcade"
        "friction": 0.6, "restitution": 0.0, "static_friction": 0.5,   # defaults of bodies
        "sleep": true                  # let resting bodies sleep (iterative solver)
      },
      "bodies": [                      # *required*, at least one
        {
          "shape": {"type": "box", "width": 2, "height": 1}          # *required*: exactly one
                 | {"type": "regular", "sides": 6, "radius": 1}       #   of shape, outline and
                 | {"type": "blob", "sides": 5, "rx": 2, "ry": 1}     #   shapes; sides 3..16
                 | {"type": "polygon", "vertices": [[x, y], ...]},    #   1..16 vertices, convex
          "outline": [[x, y], ...],    # or: a simple outline, concave allowed (3..256 points),
                                       #   decomposed into convex parts: one compound body
          "shapes": [[[x, y], ...], ...],  # or: 1..64 convex parts (1..16 vertices each) in one
                                       #   frame: one compound body
          "position": [x, y],          # *required*: where the centroid (centre of mass) goes
          "angle": 0.0,                # radians, counter-clockwise
          "velocity": [0, 0], "angular_velocity": 0.0,
          "density": 1.0,              # mass per unit area; 0 = static
          "static": false,             # true: never moves (density is then ignored)
          "kinematic": false,          # true: moves only by its velocities, pushes the others
          "material": {"friction": 0.6, "restitution": 0.0, "static_friction": 0.5}
        }
      ]
    }

Limits (named below, with why): at most MAX_FILE_BYTES bytes read (a pipe or a device is refused,
not read), JSON nested at most safeio.MAX_JSON_DEPTH deep, MAX_BODIES bodies with
MAX_TOTAL_VERTICES vertices in all, MAX_START_OVERLAPS pairs of bodies overlapping at the start;
coordinates within +-MAX_COORDINATE, sizes from MIN_SIZE, speeds up to MAX_SPEED and
MAX_ANGULAR_SPEED, gravity components up to MAX_GRAVITY, density up to MAX_DENSITY, friction up
to MAX_FRICTION, restitution 0..1, dt in MIN_DT..MAX_DT, description and help lines of at most
MAX_DESCRIPTION_CHARS and MAX_HELP_CHARS characters (MAX_HELP_LINES lines).

A malformed file raises :class:`SceneFileError` (a ValueError) with one message naming the file,
the field (``bodies[2].shape.width``) and what was expected, at most safeio.MAX_MESSAGE_CHARS
long. From the command line that is one line on stderr and exit status 2; at run time the
program keeps the scene it had.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from collision import Polygon, World, decompose
from collision.shapes import MAX_VERTICES
from collision.tolerances import MAX_COMPOUND_PARTS
from collision.world import SOLVER_NAMES
from demo import resources, safeio
from demo.draw import palette
from demo.scenes.base import Scene, around, whole_world_fields

#: Largest accepted step (s): a scene file should not ask for a coarser simulation.
MAX_DT = 0.1
#: Smallest accepted step (s): below it the program cannot keep up with real time anyway.
MIN_DT = 1e-6
#: Largest accepted file (bytes): a scene file is a description, not a data dump. Counted as the
#: file is read, so a device or a file that grows while it is read cannot get past it.
MAX_FILE_BYTES = 4_000_000
#: Most points of a body's "outline" (decomposed into at most MAX_COMPOUND_PARTS parts).
MAX_OUTLINE_POINTS = 256
#: Most bodies in one file: twice the largest built-in scene (the 1000-polygon pile).
MAX_BODIES = 2000
#: Most vertices of all the bodies of a file together (the pile has about 5 000).
MAX_TOTAL_VERTICES = 50_000
#: Most pairs of bodies, at least one of them moving, whose bounding boxes overlap where the file
#: puts them. Each such pair is a contact from the first step: 1000 boxes at one point are half a
#: million of them (0.7 s a step on the development machine); a scene whose bodies start apart
#: has none, a resting stack a few per body.
MAX_START_OVERLAPS = 20_000
#: Largest absolute coordinate (units) of a position, a vertex, the view or the bounds: the
#: program draws in float32, which at 1e6 still resolves 0.06 units.
MAX_COORDINATE = 1e6
#: Smallest size (units) of a shape (width, height, radius, or the extent of its vertices): a
#: smaller body is not seen at any view the program shows.
MIN_SIZE = 1e-4
#: Largest speed (units/s) and angular speed (rad/s) a file gives a body.
MAX_SPEED, MAX_ANGULAR_SPEED = 1e5, 1e4
#: Largest absolute angle (rad) a file gives a body (beyond it float64 loses the fraction of a turn).
MAX_ANGLE = 1e6
#: Largest gravity component (units/s^2): a thousand times the Earth's.
MAX_GRAVITY = 1e4
#: Largest density (mass per unit area).
MAX_DENSITY = 1e6
#: Largest friction coefficient (dynamic or static); restitution is within 0..1.
MAX_FRICTION = 10.0
#: Longest description, and most help lines and characters per line (they are drawn on screen).
MAX_DESCRIPTION_CHARS, MAX_HELP_LINES, MAX_HELP_CHARS = 200, 20, 200

_TOP_FIELDS = {"description", "help", "view", "bounds", "dt", "world", "bodies"}
_WORLD_FIELDS = {"gravity", "solver", "friction", "restitution", "static_friction", "sleep"}
_BODY_FIELDS = {
    "shape",
    "outline",
    "shapes",
    "position",
    "angle",
    "velocity",
    "angular_velocity",
    "density",
    "static",
    "kinematic",
    "material",
}
_GEOMETRY_FIELDS = ("shape", "outline", "shapes")
_MATERIAL_FIELDS = {"friction", "restitution", "static_friction"}
_MATERIAL_TOP = {"friction": MAX_FRICTION, "restitution": 1.0, "static_friction": MAX_FRICTION}
_SHAPE_FIELDS = {
    "box": {"width", "height"},
    "regular": {"sides", "radius"},
    "blob": {"sides", "rx", "ry"},
    "polygon": {"vertices"},
}


#: What a refusal that no check of ours foresaw says (tests look for it: it should never appear).
CANNOT_BE_USED = "cannot be used"


class SceneFileError(ValueError):
    """A scene file that cannot be used; the message names the file, the field and the problem."""


class _Reader:
    """Checks of one file's values: each converts a JSON value once, range-checks it against a
    named limit and returns it as the engine wants it, or raises SceneFileError naming the field."""

    def __init__(self, path: str) -> None:
        self.path = path

    def error(self, text: str) -> SceneFileError:
        return SceneFileError(safeio.one_line(f"scene file {safeio.short_path(self.path)}: {text}"))

    def fail(self, field: str, expected: str, value: Any = None, got: bool = True) -> SceneFileError:
        tail = f", got {safeio.shorten(value)}" if got else ""
        return self.error(f"{field}: expected {expected}{tail}")

    def fields(self, value: Any, field: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field or "the file", "a JSON object", value)
        for key in value:
            if key not in allowed:
                where = f"{field}.{safeio.field_name(key)}" if field else safeio.field_name(key)
                raise self.fail(where, f"one of the fields {', '.join(sorted(allowed))}", got=False)
        return value

    def number(self, value: Any, field: str, lo: float, hi: float) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(field, f"a finite number in [{lo:g}, {hi:g}]", value)
        if not lo <= value <= hi:
            raise self.fail(field, f"a number in [{lo:g}, {hi:g}]", value)
        return float(value)

    def size(self, value: Any, field: str) -> float:
        return self.number(value, field, MIN_SIZE, MAX_COORDINATE)

    def integer(self, value: Any, field: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise self.fail(field, f"a whole number in {lo}..{hi}", value)
        return int(value)

    def vector(self, value: Any, field: str, limit: float, size: int = 2) -> list[float]:
        if not isinstance(value, list) or len(value) != size:
            raise self.fail(field, f"a list of {size} numbers", value)
        return [self.number(v, f"{field}[{k}]", -limit, limit) for k, v in enumerate(value)]

    def rect(self, value: Any, field: str) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = self.vector(value, field, MAX_COORDINATE, 4)
        if not (x1 - x0 >= MIN_SIZE and y1 - y0 >= MIN_SIZE):
            expected = f"[x0, y0, x1, y1] with x1 - x0 and y1 - y0 at least {MIN_SIZE:g}"
            raise self.fail(field, expected, value)
        return (x0, y0, x1, y1)

    def boolean(self, value: Any, field: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(field, "true or false", value)
        return value

    def text(self, value: Any, field: str, limit: int) -> str:
        if not isinstance(value, str) or len(value) > limit:
            raise self.fail(field, f"a string of at most {limit} characters", value)
        return value

    def points(self, value: Any, field: str, lo: int, hi: int) -> np.ndarray:
        if not isinstance(value, list) or not lo <= len(value) <= hi:
            raise self.fail(field, f"a list of {lo}..{hi} [x, y] points", value)
        points = [self.vector(p, f"{field}[{k}]", MAX_COORDINATE) for k, p in enumerate(value)]
        return self.extent(np.array(points, dtype=np.float64), field)

    def extent(self, points: np.ndarray, field: str) -> np.ndarray:
        """``points (k, 2)``, refused when 2 or more of them span less than MIN_SIZE."""
        if len(points) > 1 and float(np.ptp(points, axis=0).max()) < MIN_SIZE:
            raise self.fail(field, f"points spanning at least {MIN_SIZE:g} units", points.tolist())
        return points

    def polygon(self, points: np.ndarray, field: str) -> Polygon:
        try:
            return Polygon(points)
        except ValueError as exc:  # the engine's GeometryError: not convex, zero area, ...
            raise self.error(f"{field}: {exc}") from None

    def parts(self, body: dict[str, Any], field: str) -> list[Polygon]:
        """A body's convex parts from its "outline" (decomposed) or "shapes"."""
        if "outline" in body:
            outline = self.points(body["outline"], f"{field}.outline", 3, MAX_OUTLINE_POINTS)
            try:
                pieces = decompose(outline)
            except ValueError as exc:
                raise self.error(f"{field}.outline: {exc}") from None
            if len(pieces) > MAX_COMPOUND_PARTS:
                raise self.fail(f"{field}.outline", f"at most {MAX_COMPOUND_PARTS} convex parts", len(pieces))
            return pieces
        raw = body["shapes"]
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_COMPOUND_PARTS:
            raise self.fail(f"{field}.shapes", f"a list of 1..{MAX_COMPOUND_PARTS} vertex lists", raw)
        pieces = []
        for k, part in enumerate(raw):
            where = f"{field}.shapes[{k}]"
            pieces.append(self.polygon(self.points(part, where, 1, MAX_VERTICES), where))
        self.extent(np.concatenate([piece.vertices for piece in pieces]), f"{field}.shapes")
        return pieces

    def shape(self, value: Any, field: str) -> Polygon:
        kind = value.get("type") if isinstance(value, dict) else None
        if not isinstance(kind, str) or kind not in _SHAPE_FIELDS:
            kinds = ", ".join(f'"{k}"' for k in _SHAPE_FIELDS)
            raise self.fail(
                f"{field}.type", f"one of {kinds}", value.get("type") if isinstance(value, dict) else value
            )
        spec = self.fields(value, field, _SHAPE_FIELDS[kind] | {"type"})
        for key in sorted(_SHAPE_FIELDS[kind]):
            if key not in spec:
                raise self.fail(f"{field}.{key}", f"a value (a {kind} shape needs it)", got=False)
        try:
            if kind == "box":
                width = self.size(spec["width"], f"{field}.width")
                return Polygon.box(width, self.size(spec["height"], f"{field}.height"))
            if kind == "regular":
                n = self.integer(spec["sides"], f"{field}.sides", 3, MAX_VERTICES)
                return Polygon.regular(n, self.size(spec["radius"], f"{field}.radius"))
            if kind == "blob":
                n = self.integer(spec["sides"], f"{field}.sides", 1, MAX_VERTICES)
                rx, ry = self.size(spec["rx"], f"{field}.rx"), self.size(spec["ry"], f"{field}.ry")
                return Polygon.blob(n, rx, ry)
        except SceneFileError:
            raise
        except ValueError as exc:  # the engine's GeometryError
            raise self.error(f"{field}: {exc}") from None
        points = self.points(spec["vertices"], f"{field}.vertices", 1, MAX_VERTICES)
        return self.polygon(points, field)


def read_scene_file(path: str | Path) -> dict[str, Any]:
    """Read and check a scene file; returns the checked spec (``World`` built in ``world``).

    SceneFileError (a ValueError, one line naming the file and the field) for a missing,
    unreadable or malformed file, a pipe or a device instead of a file, a file larger than
    MAX_FILE_BYTES, JSON nested deeper than safeio.MAX_JSON_DEPTH, and any value outside its
    named limit; nothing else escapes.
    """
    name = str(path)
    reader = _Reader(name)
    p = Path(path)
    try:
        if not p.exists():  # a bare name of an example file that comes with the program
            p = resources.scene_file(name) or p
    except (OSError, ValueError):  # a name the system cannot take: reading it says why
        pass
    try:
        data = safeio.read_regular(p, MAX_FILE_BYTES)
    except safeio.FileProblem as exc:
        hint = ""
        if "No such file" in str(exc):
            examples = ", ".join(resources.example_scenes())
            hint = f"; examples by name: {examples}" if examples else ""
        raise reader.error(f"{exc}{hint}") from None
    return parse_scene(data, name)


def parse_scene(data: bytes, name: str) -> dict[str, Any]:
    """The checked spec of a scene file's bytes ``data`` (see :func:`read_scene_file`); ``name``:
    the file, for messages. SceneFileError for anything that is not a usable scene."""
    reader = _Reader(name)
    try:
        value = safeio.parse_json(data)
    except safeio.FileProblem as exc:
        raise reader.error(str(exc)) from None
    try:
        return _read_spec(reader, value)
    except SceneFileError:
        raise
    except (ArithmeticError, RecursionError, MemoryError, TypeError, ValueError) as exc:
        # The checks convert and bound every value before the engine sees it; should the engine
        # still refuse one, the user gets the file's name and the reason, never a traceback.
        raise reader.error(f"{CANNOT_BE_USED} ({type(exc).__name__}: {exc})") from None


def _read_spec(reader: _Reader, data: Any) -> dict[str, Any]:
    name = reader.path
    top = reader.fields(data, "", _TOP_FIELDS)
    spec: dict[str, Any] = {"path": name}
    description = top.get("description", f"scene file {Path(name).name}"[:MAX_DESCRIPTION_CHARS])
    spec["description"] = reader.text(description, "description", MAX_DESCRIPTION_CHARS)
    lines = top.get("help", [])
    if not isinstance(lines, list) or len(lines) > MAX_HELP_LINES:
        raise reader.fail("help", f"a list of at most {MAX_HELP_LINES} strings", lines)
    spec["help"] = [reader.text(line, f"help[{k}]", MAX_HELP_CHARS) for k, line in enumerate(lines)]
    spec["view"] = reader.rect(top["view"], "view") if "view" in top else None
    spec["bounds"] = reader.rect(top["bounds"], "bounds") if "bounds" in top else None
    spec["dt"] = reader.number(top.get("dt", 1.0 / 60.0), "dt", MIN_DT, MAX_DT)

    settings = reader.fields(top.get("world", {}), "world", _WORLD_FIELDS)
    solver = settings.get("solver", "iterative")
    if not isinstance(solver, str) or solver not in SOLVER_NAMES:
        raise reader.fail("world.solver", f"one of {', '.join(repr(s) for s in SOLVER_NAMES)}", solver)
    world_args = {
        "gravity": reader.vector(settings.get("gravity", [0.0, -10.0]), "world.gravity", MAX_GRAVITY),
        "solver": solver,
        "friction": reader.number(settings.get("friction", 0.6), "world.friction", 0.0, MAX_FRICTION),
        "restitution": reader.number(settings.get("restitution", 0.0), "world.restitution", 0.0, 1.0),
        "static_friction": reader.number(
            settings.get("static_friction", 0.5), "world.static_friction", 0.0, MAX_FRICTION
        ),
    }
    try:
        world = World(**world_args)
    except ValueError as exc:
        raise reader.error(f"world: {exc}") from None
    world.solver_settings("iterative").sleep = reader.boolean(settings.get("sleep", True), "world.sleep")

    bodies = top.get("bodies")
    if not isinstance(bodies, list) or not 1 <= len(bodies) <= MAX_BODIES:
        raise reader.fail("bodies", f"a list of 1..{MAX_BODIES} bodies", bodies, got="bodies" in top)
    vertices = 0
    for k, raw in enumerate(bodies):
        field = f"bodies[{k}]"
        body = reader.fields(raw, field, _BODY_FIELDS)
        given = [key for key in _GEOMETRY_FIELDS if key in body]
        if not given:
            raise reader.fail(f"{field}.shape", "a shape object (or an outline, or shapes)", got=False)
        if len(given) > 1:
            raise reader.fail(
                f"{field}.{given[1]}", f"no {given[1]} beside {given[0]} (one of them)", got=False
            )
        if "position" not in body:
            raise reader.fail(f"{field}.position", "[x, y]", got=False)
        if "shape" in body:
            shape: Polygon | None = reader.shape(body["shape"], f"{field}.shape")
            parts: list[Polygon] = [shape]
        else:
            shape = None
            parts = reader.parts(body, field)
        vertices += sum(len(part.vertices) for part in parts)
        if vertices > MAX_TOTAL_VERTICES:
            limit = f"at most {MAX_TOTAL_VERTICES} vertices in all"
            raise reader.error(f"bodies: expected {limit}, {field} goes past it")
        material = reader.fields(body.get("material", {}), f"{field}.material", _MATERIAL_FIELDS)
        kwargs: dict[str, Any] = {
            "position": reader.vector(body["position"], f"{field}.position", MAX_COORDINATE),
            "angle": reader.number(body.get("angle", 0.0), f"{field}.angle", -MAX_ANGLE, MAX_ANGLE),
            "velocity": reader.vector(body.get("velocity", [0.0, 0.0]), f"{field}.velocity", MAX_SPEED),
            "angular_velocity": reader.number(
                body.get("angular_velocity", 0.0),
                f"{field}.angular_velocity",
                -MAX_ANGULAR_SPEED,
                MAX_ANGULAR_SPEED,
            ),
            "density": reader.number(body.get("density", 1.0), f"{field}.density", 0.0, MAX_DENSITY),
            "static": reader.boolean(body.get("static", False), f"{field}.static"),
            "kinematic": reader.boolean(body.get("kinematic", False), f"{field}.kinematic"),
        }
        if kwargs["static"] and kwargs["kinematic"]:
            raise reader.fail(f"{field}.kinematic", "false for a static body (it is one or the other)", True)
        for key in sorted(_MATERIAL_FIELDS):
            if key in material:
                kwargs[key] = reader.number(material[key], f"{field}.material.{key}", 0.0, _MATERIAL_TOP[key])
        try:
            if shape is not None:
                world.add_body(shape, **kwargs)
            else:
                world.add_compound(parts, **kwargs)
        except ValueError as exc:
            raise reader.error(f"{field}: {exc}") from None
    overlaps = start_overlaps(world)
    if overlaps > MAX_START_OVERLAPS:
        raise reader.fail(
            "bodies",
            f"at most {MAX_START_OVERLAPS} pairs of bodies (one of them moving) overlapping where "
            f"they start, got {overlaps}: are many at one place?",
            got=False,
        )
    spec["world"] = world
    return spec


def start_overlaps(world: World) -> int:
    """How many pairs of bodies, at least one of them moving, have overlapping bounding boxes
    (a compound's box holds all its parts); O(n^2 / 2) comparisons in blocks, n <= MAX_BODIES."""
    n = world.body_count
    if n < 2:
        return 0
    verts = world.world_vertices()
    counts = np.asarray(world.vertex_count)
    valid = np.arange(verts.shape[1])[None, :] < counts[:, None]
    lo = np.where(valid[..., None], verts, np.inf).min(axis=1)
    hi = np.where(valid[..., None], verts, -np.inf).max(axis=1)
    roots = np.asarray(world.roots)
    first = np.flatnonzero(np.r_[True, roots[1:] != roots[:-1]])
    lo, hi = np.minimum.reduceat(lo, first), np.maximum.reduceat(hi, first)
    moving = ~(np.asarray(world.static)[first] | np.asarray(world.kinematic)[first])
    total = 0
    block = 256
    for start in range(0, len(first), block):
        rows = slice(start, start + block)
        apart = (lo[rows, None, :] >= hi[None, :, :]) | (hi[rows, None, :] <= lo[None, :, :])
        overlap = ~apart.any(axis=2) & (moving[rows, None] | moving[None, :])
        # Each pair once: only partners after the row.
        later = np.arange(len(first))[None, :] > np.arange(start, min(start + block, len(first)))[:, None]
        total += int(np.count_nonzero(overlap & later))
    return total


def load_scene_file(path: str | Path, seed: int = 0) -> Scene:
    """A Scene from a scene file (SceneFileError if it is malformed)."""
    spec = read_scene_file(path)
    world: World = spec["world"]
    fields = whole_world_fields(spec["path"], world, seed)
    if spec["view"] is not None:
        fields["view"] = spec["view"]
        fields["bounds"] = around(spec["view"])
    if spec["bounds"] is not None:
        fields["bounds"] = spec["bounds"]
    title = f"{Path(spec['path']).name}: {spec['description']}"
    fields["help"] = [title, *spec["help"], "l: reload the file"]
    return Scene(
        **fields,
        dt=spec["dt"],
        body_colors={int(row): palette.KINEMATIC_FILL for row in np.flatnonzero(world.kinematic)},
        traits=frozenset({"file"}),
        family="files",
    )
