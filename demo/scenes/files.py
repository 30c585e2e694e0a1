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
      "dt": 0.016666,                  # physics step, seconds (0 < dt <= 0.1)
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

A malformed file raises :class:`SceneFileError` (a ValueError) with one message naming the file,
the field (``bodies[2].shape.width``) and what was expected. From the command line that is one
line on stderr and exit status 2; at run time the program keeps the scene it had.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from collision import Polygon, World, decompose
from collision.shapes import MAX_VERTICES
from collision.tolerances import MAX_COMPOUND_PARTS
from collision.world import SOLVER_NAMES
from demo import resources
from demo.draw import palette
from demo.scenes.base import Scene, around, whole_world_fields

#: Largest accepted step (s): a scene file should not ask for a coarser simulation.
MAX_DT = 0.1
#: Largest accepted file (bytes): a scene file is a description, not a data dump.
MAX_FILE_BYTES = 4_000_000
#: Most points of a body's "outline" (decomposed into at most MAX_COMPOUND_PARTS parts).
MAX_OUTLINE_POINTS = 256

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
_SHAPE_FIELDS = {
    "box": {"width", "height"},
    "regular": {"sides", "radius"},
    "blob": {"sides", "rx", "ry"},
    "polygon": {"vertices"},
}


class SceneFileError(ValueError):
    """A scene file that cannot be used; the message names the file, the field and the problem."""


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, field: str, expected: str, value: Any = None, got: bool = True) -> SceneFileError:
        shown = json.dumps(value) if got else ""
        if len(shown) > 60:
            shown = shown[:57] + "..."
        tail = f", got {shown}" if got else ""
        return SceneFileError(f"scene file {self.path}: {field}: expected {expected}{tail}")

    def fields(self, value: Any, field: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field or "the file", "a JSON object", value)
        for key in value:
            if key not in allowed:
                where = f"{field}.{key}" if field else key
                raise self.fail(where, f"one of the fields {', '.join(sorted(allowed))}", key, got=False)
        return value

    def number(self, value: Any, field: str, lo: float = -math.inf, hi: float = math.inf) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(field, "a finite number", value)
        if not lo <= value <= hi:
            raise self.fail(field, f"a number in [{lo:g}, {hi:g}]", value)
        return float(value)

    def integer(self, value: Any, field: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise self.fail(field, f"a whole number in {lo}..{hi}", value)
        return int(value)

    def vector(self, value: Any, field: str, size: int = 2) -> list[float]:
        if not isinstance(value, list) or len(value) != size:
            raise self.fail(field, f"a list of {size} numbers", value)
        return [self.number(v, f"{field}[{k}]") for k, v in enumerate(value)]

    def rect(self, value: Any, field: str) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = self.vector(value, field, 4)
        if not (x1 > x0 and y1 > y0):
            raise self.fail(field, "[x0, y0, x1, y1] with x1 > x0 and y1 > y0", value)
        return (x0, y0, x1, y1)

    def boolean(self, value: Any, field: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(field, "true or false", value)
        return value

    def points(self, value: Any, field: str, lo: int, hi: int) -> np.ndarray:
        if not isinstance(value, list) or not lo <= len(value) <= hi:
            raise self.fail(field, f"a list of {lo}..{hi} [x, y] points", value)
        return np.array([self.vector(p, f"{field}[{k}]") for k, p in enumerate(value)], dtype=np.float64)

    def parts(self, body: dict[str, Any], field: str) -> list[Polygon]:
        """A body's convex parts from its "outline" (decomposed) or "shapes"."""
        if "outline" in body:
            outline = self.points(body["outline"], f"{field}.outline", 3, MAX_OUTLINE_POINTS)
            try:
                pieces = decompose(outline)
            except ValueError as exc:
                raise SceneFileError(f"scene file {self.path}: {field}.outline: {exc}") from None
            if len(pieces) > MAX_COMPOUND_PARTS:
                raise self.fail(f"{field}.outline", f"at most {MAX_COMPOUND_PARTS} convex parts", len(pieces))
            return pieces
        raw = body["shapes"]
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_COMPOUND_PARTS:
            raise self.fail(f"{field}.shapes", f"a list of 1..{MAX_COMPOUND_PARTS} vertex lists", raw)
        pieces = []
        for k, part in enumerate(raw):
            where = f"{field}.shapes[{k}]"
            verts = self.points(part, where, 1, MAX_VERTICES)
            try:
                pieces.append(Polygon(verts))
            except ValueError as exc:
                raise SceneFileError(f"scene file {self.path}: {where}: {exc}") from None
        return pieces

    def shape(self, value: Any, field: str) -> Polygon:
        if not isinstance(value, dict) or value.get("type") not in _SHAPE_FIELDS:
            kinds = ", ".join(f'"{k}"' for k in _SHAPE_FIELDS)
            raise self.fail(
                f"{field}.type", f"one of {kinds}", value.get("type") if isinstance(value, dict) else value
            )
        kind = value["type"]
        spec = self.fields(value, field, _SHAPE_FIELDS[kind] | {"type"})
        for key in sorted(_SHAPE_FIELDS[kind]):
            if key not in spec:
                raise self.fail(f"{field}.{key}", f"a value (a {kind} shape needs it)", got=False)
        try:
            if kind == "box":
                w = self.number(spec["width"], f"{field}.width", 0.0)
                h = self.number(spec["height"], f"{field}.height", 0.0)
                if w <= 0 or h <= 0:
                    raise self.fail(f"{field}.width/height", "sizes > 0", [w, h])
                return Polygon.box(w, h)
            if kind == "regular":
                n = self.integer(spec["sides"], f"{field}.sides", 3, MAX_VERTICES)
                r = self.number(spec["radius"], f"{field}.radius", 0.0)
                if r <= 0:
                    raise self.fail(f"{field}.radius", "a radius > 0", r)
                return Polygon.regular(n, r)
            if kind == "blob":
                n = self.integer(spec["sides"], f"{field}.sides", 1, MAX_VERTICES)
                rx = self.number(spec["rx"], f"{field}.rx", 0.0)
                ry = self.number(spec["ry"], f"{field}.ry", 0.0)
                if rx <= 0 or ry <= 0:
                    raise self.fail(f"{field}.rx/ry", "radii > 0", [rx, ry])
                return Polygon.blob(n, rx, ry)
            verts = spec["vertices"]
            if not isinstance(verts, list) or not 1 <= len(verts) <= MAX_VERTICES:
                raise self.fail(f"{field}.vertices", f"a list of 1..{MAX_VERTICES} [x, y] points", verts)
            points = [self.vector(p, f"{field}.vertices[{k}]") for k, p in enumerate(verts)]
            return Polygon(np.array(points, dtype=np.float64))
        except SceneFileError:
            raise
        except ValueError as exc:  # the engine's GeometryError: not convex, zero area, ...
            raise SceneFileError(f"scene file {self.path}: {field}: {exc}") from None


def read_scene_file(path: str | Path) -> dict[str, Any]:
    """Read and check a scene file; returns the checked spec (``World`` built in ``world``).

    SceneFileError (a ValueError) for a missing, unreadable or malformed file.
    """
    name = str(path)
    reader = _Reader(name)
    p = Path(path)
    if not p.exists():  # a bare name of an example file that comes with the program
        p = resources.scene_file(name) or p
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SceneFileError(f"scene file {name}: expected at most {MAX_FILE_BYTES} bytes, got {size}")
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        examples = ", ".join(resources.example_scenes())
        hint = f"; examples by name: {examples}" if isinstance(exc, FileNotFoundError) and examples else ""
        raise SceneFileError(f"scene file {name}: cannot read it ({exc.strerror or exc}){hint}") from None
    except UnicodeDecodeError:
        raise SceneFileError(f"scene file {name}: expected UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SceneFileError(
            f"scene file {name}: line {exc.lineno} column {exc.colno}: expected JSON ({exc.msg})"
        ) from None
    top = reader.fields(data, "", _TOP_FIELDS)
    spec: dict[str, Any] = {"path": name}
    desc = top.get("description", f"scene file {p.name}")
    if not isinstance(desc, str):
        raise reader.fail("description", "a string", desc)
    spec["description"] = desc
    lines = top.get("help", [])
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise reader.fail("help", "a list of strings", lines)
    spec["help"] = list(lines)
    spec["view"] = reader.rect(top["view"], "view") if "view" in top else None
    spec["bounds"] = reader.rect(top["bounds"], "bounds") if "bounds" in top else None
    spec["dt"] = reader.number(top.get("dt", 1.0 / 60.0), "dt", 1e-6, MAX_DT)

    settings = reader.fields(top.get("world", {}), "world", _WORLD_FIELDS)
    solver = settings.get("solver", "iterative")
    if solver not in SOLVER_NAMES:
        raise reader.fail("world.solver", f"one of {', '.join(repr(s) for s in SOLVER_NAMES)}", solver)
    world_args = {
        "gravity": reader.vector(settings.get("gravity", [0.0, -10.0]), "world.gravity"),
        "solver": solver,
        "friction": reader.number(settings.get("friction", 0.6), "world.friction", 0.0),
        "restitution": reader.number(settings.get("restitution", 0.0), "world.restitution", 0.0, 1.0),
        "static_friction": reader.number(settings.get("static_friction", 0.5), "world.static_friction", 0.0),
    }
    try:
        world = World(**world_args)
    except ValueError as exc:
        raise SceneFileError(f"scene file {name}: world: {exc}") from None
    world.solver_settings("iterative").sleep = reader.boolean(settings.get("sleep", True), "world.sleep")

    bodies = top.get("bodies")
    if not isinstance(bodies, list) or not bodies:
        raise reader.fail("bodies", "a non-empty list of bodies", bodies, got="bodies" in top)
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
            parts: list[Polygon] = []
        else:
            shape = None
            parts = reader.parts(body, field)
        material = reader.fields(body.get("material", {}), f"{field}.material", _MATERIAL_FIELDS)
        kwargs: dict[str, Any] = {
            "position": reader.vector(body["position"], f"{field}.position"),
            "angle": reader.number(body.get("angle", 0.0), f"{field}.angle"),
            "velocity": reader.vector(body.get("velocity", [0.0, 0.0]), f"{field}.velocity"),
            "angular_velocity": reader.number(body.get("angular_velocity", 0.0), f"{field}.angular_velocity"),
            "density": reader.number(body.get("density", 1.0), f"{field}.density", 0.0),
            "static": reader.boolean(body.get("static", False), f"{field}.static"),
            "kinematic": reader.boolean(body.get("kinematic", False), f"{field}.kinematic"),
        }
        if kwargs["static"] and kwargs["kinematic"]:
            raise reader.fail(f"{field}.kinematic", "false for a static body (it is one or the other)", True)
        for key in sorted(_MATERIAL_FIELDS):
            if key in material:
                top_value = 1.0 if key == "restitution" else math.inf
                kwargs[key] = reader.number(material[key], f"{field}.material.{key}", 0.0, top_value)
        try:
            if shape is not None:
                world.add_body(shape, **kwargs)
            else:
                world.add_compound(parts, **kwargs)
        except ValueError as exc:
            raise SceneFileError(f"scene file {name}: {field}: {exc}") from None
    spec["world"] = world
    return spec


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
