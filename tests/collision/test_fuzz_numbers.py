"""Hostile input, class ``numbers``: every argument of every public function of the engine, in
every form a number, a vector or a vertex list can take.

Each case picks one argument of one entry point (a shape factory, a transform, a query, a
primitive, a World method or setting) and a value for it, then presents that value either in a
valid form (a numpy scalar of any width, a Fraction, a 0-d array, a list, tuple or array of any
dtype, byte order, layout or writability) or in a hostile one (bools, complex numbers, strings,
containers of the wrong shape or kind, ragged nesting, integers beyond float64, NaN and
infinities in narrow types). A valid form must give exactly the answer the canonical float64
value gives (both refused, or equal results and equal worlds after the call); a hostile form
must be refused with a ValueError naming the argument, in a short message, leaving the world
exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import given

from collision import (
    Hit,
    Polygon,
    Shapes,
    World,
    clip_segment,
    contact_points,
    decompose,
    explain,
    find_mtd,
    find_mtd_many,
    intersect,
    intersect_many,
    sweep,
    sweep_many,
)
from collision import primitives as prim
from collision.shapes import check_vertices
from tests.collision.test_fuzz_common import (
    SEEDS,
    SETTINGS,
    count,
    deep_state,
    expect_refusal,
    fuzz_report,  # noqa: F401 (module fixture: prints the case count)
    present_array,
    present_scalar,
    public_state,
    same,
    valid_shape,
)

#: Longest refusal message (characters): a message quotes the argument, never a whole array.
MESSAGE_LIMIT = 400

BOX = Polygon.box(2.0, 1.0)
FAR_BOX = BOX.translated((3.0, 0.5))
TRIANGLE = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
THREE = Shapes([BOX, TRIANGLE, FAR_BOX])


def _world() -> World:
    """A small world with one body of each kind and a compound, already stepped once, with
    every solver's settings made."""
    world = World(gravity=(0.0, -9.8), solver="iterative")
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(BOX, (0.0, 1.0), angular_velocity=0.5)
    world.add_body([[0.0, 0.0], [1.0, 0.5]], (3.0, 2.0))
    world.add_body([[0.0, 0.0]], (-3.0, 2.0), velocity=(1.0, 0.0))
    world.add_compound([BOX, FAR_BOX], (-5.0, 3.0))
    world.add_body(BOX, (6.0, 2.0), kinematic=True, velocity=(-1.0, 0.0))
    world.step(1.0 / 60.0)
    for name in ("tutorial", "arcade", "iterative"):
        world.solver_settings(name)  # made when first read: made here, so a snapshot holds them
    return world


def _on_world(act: Callable[[World], Any]) -> Callable[[], Any]:
    """A call on a fresh world: returns (its result, the world's whole state after it); a
    refusal must leave the world's whole state as it was."""

    def run() -> Any:
        world = _world()
        before = deep_state(world)
        try:
            result = act(world)
        except ValueError:
            assert deep_state(world) == before, "a refused call changed the world"
            raise
        return result, public_state(world)

    return run


def _set(world: World, solver: str, name: str, value: Any) -> None:
    """Set the setting ``name`` of the world's settings for ``solver``."""
    setattr(world.solver_settings(solver), name, value)


@dataclass(frozen=True)
class Slot:
    """One argument of one entry point: ``kind`` ("real", "int", "bool", "vector", "points"),
    ``call(value)`` returning a no-argument function making the call, and ``value(rng)`` a
    canonical (float64 or int) value for it, good or bad."""

    entry: str
    name: str
    kind: str
    call: Callable[[Any], Callable[[], Any]]
    value: Callable[[np.random.Generator], Any]
    nullable: bool = False  # None is a documented value (``set_material(None)``: every body)


def _real(rng: np.random.Generator) -> float:
    pick = rng.random()
    if pick < 0.5:
        return float(rng.uniform(0.05, 5.0))
    if pick < 0.6:
        return float(rng.integers(-3, 20))
    return float(rng.choice([0.0, -1.0, 1e-9, 5e-324, 1e-300, 1e-45, 1e9, 1e12, 1e15, 1e154, 1e300, 1.7e308]))


def _count(rng: np.random.Generator) -> int:
    return int(rng.choice([-1, 0, 1, 2, 3, 4, 5, 8, 16, 17, 40]))


def _index(rng: np.random.Generator) -> int:
    return int(rng.choice([-1, 0, 1, 2, 3, 4, 5, 6, 7, 100]))


def _vector(rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.7:
        return rng.uniform(-5.0, 5.0, 2)
    return np.array([_real(rng) * rng.choice([-1.0, 1.0]), _real(rng)])


def _points(rng: np.random.Generator) -> np.ndarray:
    return np.asarray(
        valid_shape(rng, scales=(0.5, 1.0, 3.0), offsets=(0.0, 1.0, 10.0)).raw, dtype=np.float64
    )


def _rows(value: Any) -> int:
    """How many bodies a hostile ``forces`` value speaks for (its length, else 1)."""
    try:
        return max(1, len(value)) if np.ndim(value) > 1 or isinstance(value, list | tuple) else 1
    except (TypeError, ValueError):
        return 1


def _length(value: Any) -> int:
    """How many vertices a hostile ``vertices`` value holds (its length, else 1)."""
    try:
        return len(value)
    except TypeError:
        return 1


def _flag(rng: np.random.Generator) -> bool:
    return bool(rng.random() < 0.5)


def _slots() -> list[Slot]:
    """Every argument that takes a number, a vector, a vertex list, an index or a flag."""
    hit_now = Hit(np.array([-1.0, 0.0]), 0.0, 0.5)
    s: list[Slot] = []

    def add(
        entry: str, name: str, kind: str, call: Callable[[Any], Callable[[], Any]], nullable: bool = False
    ) -> None:
        value = {"real": _real, "int": _count, "index": _index, "indices": _index, "bool": _flag,
                 "vector": _vector, "points": _points}[kind]  # fmt: skip
        s.append(Slot(entry, name, "int" if kind == "index" else kind, call, value, nullable))

    # Shapes: factories, transforms, mass.
    add("Polygon.box", "w", "real", lambda v: lambda: Polygon.box(v, 1.0))
    add("Polygon.box", "h", "real", lambda v: lambda: Polygon.box(1.0, v))
    add("Polygon.regular", "n", "int", lambda v: lambda: Polygon.regular(v, 1.0))
    add("Polygon.regular", "r", "real", lambda v: lambda: Polygon.regular(5, v))
    add("Polygon.blob", "n", "int", lambda v: lambda: Polygon.blob(v, 1.0, 2.0))
    add("Polygon.blob", "rx", "real", lambda v: lambda: Polygon.blob(6, v, 1.0))
    add("Polygon.blob", "ry", "real", lambda v: lambda: Polygon.blob(6, 1.0, v))
    add("Polygon.translated", "offset", "vector", lambda v: lambda: BOX.translated(v))
    add("Polygon.rotated", "angle", "real", lambda v: lambda: BOX.rotated(v))
    add("Polygon.mass_properties", "density", "real", lambda v: lambda: BOX.mass_properties(v))
    add("Polygon", "vertices", "points", lambda v: lambda: Polygon(v))
    add("check_vertices", "shape", "points", lambda v: lambda: check_vertices(v, "shape"))
    add("Polygon.hull", "points", "points", lambda v: lambda: Polygon.hull(v))
    add("decompose", "outline", "points", lambda v: lambda: decompose(v))
    # One-pair queries.
    add("intersect", "a", "points", lambda v: lambda: intersect(v, TRIANGLE))
    add("intersect", "b", "points", lambda v: lambda: intersect(TRIANGLE, v))
    add("find_mtd", "a", "points", lambda v: lambda: find_mtd(v, TRIANGLE))
    add("find_mtd", "b", "points", lambda v: lambda: find_mtd(TRIANGLE, v))
    add("sweep", "a", "points", lambda v: lambda: sweep(v, FAR_BOX, (2.0, 0.0)))
    add("sweep", "velocity", "vector", lambda v: lambda: sweep(BOX, FAR_BOX, v))
    add("sweep", "t_max", "real", lambda v: lambda: sweep(BOX, FAR_BOX, (2.0, 0.5), v))
    add("contact_points", "a", "points", lambda v: lambda: contact_points(v, TRIANGLE, hit_now))
    add(
        "contact_points",
        "velocity",
        "vector",
        lambda v: lambda: contact_points(BOX, FAR_BOX, Hit(np.array([-1.0, 0.0]), 1.0, 0.0), v),
    )
    add(
        "contact_points",
        "hit.t",
        "real",
        lambda v: lambda: contact_points(BOX, FAR_BOX, Hit(np.array([-1.0, 0.0]), v, 0.0), (1.0, 0.0)),
    )
    add(
        "contact_points",
        "hit.normal",
        "vector",
        lambda v: lambda: contact_points(BOX, TRIANGLE, Hit(v, 0.0, 0.1)),
    )
    add("clip_segment", "start", "vector", lambda v: lambda: clip_segment(v, (4.0, 1.0), TRIANGLE))
    add("clip_segment", "end", "vector", lambda v: lambda: clip_segment((-1.0, 0.5), v, TRIANGLE))
    add("clip_segment", "vertices", "points", lambda v: lambda: clip_segment((-3.0, 0.3), (3.0, 0.1), v, 0.2))
    add(
        "clip_segment",
        "radius",
        "real",
        lambda v: lambda: clip_segment((-3.0, 0.3), (3.0, 0.1), [[0.0, 0.0]], v),
    )
    # The batch face.
    add("Shapes", "shapes", "points", lambda v: lambda: Shapes([TRIANGLE, v]).vertices)
    add("Shapes.packed", "vertices", "points", lambda v: lambda: Shapes.packed([v], [_length(v)]).vertices)
    # Three shapes: a value of one row or two is neither one for all nor one per shape.
    add("Shapes.transformed", "position", "vector", lambda v: lambda: THREE.transformed(v).vertices)
    add("Shapes.transformed", "angle", "real", lambda v: lambda: THREE.transformed((0, 0), v).vertices)
    add("intersect_many", "a", "points", lambda v: lambda: intersect_many([v, TRIANGLE], TRIANGLE))
    add("find_mtd_many", "b", "points", lambda v: lambda: find_mtd_many(TRIANGLE, [TRIANGLE, v]))
    add("sweep_many", "velocity", "vector", lambda v: lambda: sweep_many(BOX, [FAR_BOX, TRIANGLE], v))
    add("sweep_many", "t_max", "real", lambda v: lambda: sweep_many(BOX, FAR_BOX, (2.0, 0.5), v))
    # The engine's reasoning (collision.explain).
    add("explain.separating_axes", "a", "points", lambda v: lambda: explain.separating_axes(v, TRIANGLE))
    add(
        "explain.separating_axes",
        "velocity",
        "vector",
        lambda v: lambda: explain.separating_axes(BOX, FAR_BOX, v),
    )
    add(
        "explain.separating_axes",
        "t_max",
        "real",
        lambda v: lambda: explain.separating_axes(BOX, FAR_BOX, (2.0, 0.5), v),
    )
    add(
        "explain.support_features",
        "normal",
        "vector",
        lambda v: lambda: explain.support_features(BOX, TRIANGLE, v),
    )
    add(
        "explain.support_features",
        "t",
        "real",
        lambda v: lambda: explain.support_features(BOX, FAR_BOX, (-1.0, 0.0), v, (1.0, 0.0)),
    )
    add("explain.face_edge", "vertices", "points", lambda v: lambda: explain.face_edge(v, 0))
    add("explain.face_edge", "edge", "index", lambda v: lambda: explain.face_edge(TRIANGLE, v))
    add(
        "explain.snapshot",
        "dt",
        "real",
        lambda v: _on_world(lambda w: explain.tutorial_step(explain.snapshot(w, v)).after),
    )
    # Seed 001's primitives.
    add("Circle", "center", "vector", lambda v: lambda: prim.Circle(v, 1.0))
    add(
        "Circle",
        "radius",
        "real",
        lambda v: lambda: prim.circles_collide(prim.Circle((0, 0), v), prim.Circle((2, 0), 1.0)),
    )
    add("Line", "base", "vector", lambda v: lambda: prim.Line(v, (1.0, 1.0)))
    add(
        "Line",
        "direction",
        "vector",
        lambda v: lambda: prim.circle_line_collide(prim.Circle((0, 0), 1.0), prim.Line((0, 2), v)),
    )
    add(
        "Segment",
        "point1",
        "vector",
        lambda v: lambda: prim.segments_collide(prim.Segment(v, (1, 1)), prim.Segment((0, 1), (1, 0))),
    )
    add(
        "Rectangle",
        "size",
        "vector",
        lambda v: lambda: prim.rectangle_point_collide(prim.Rectangle((0, 0), v), (1, 1)),
    )
    add(
        "OrientedRectangle",
        "rotation",
        "real",
        lambda v: (
            lambda: prim.oriented_rectangle_point_collide(
                prim.OrientedRectangle((0, 0), (2, 1), v), (1.5, 0.5)
            )
        ),
    )
    add(
        "OrientedRectangle",
        "half_extend",
        "vector",
        lambda v: lambda: prim.OrientedRectangle((0, 0), v, 0.3).corners(),
    )
    add(
        "circle_point_collide",
        "point",
        "vector",
        lambda v: lambda: prim.circle_point_collide(prim.Circle((0, 0), 2.0), v),
    )
    # The world: construction, bodies, forces, state, step, queries, settings.
    add("World", "gravity", "vector", lambda v: lambda: public_state(World(gravity=v)))
    add("World", "friction", "real", lambda v: lambda: World(friction=v).friction)
    add("World", "restitution", "real", lambda v: lambda: World(restitution=v).restitution)
    add("World.gravity", "gravity", "vector", lambda v: _on_world(lambda w: setattr(w, "gravity", v)))
    add("World.continuous", "continuous", "bool", lambda v: _on_world(lambda w: setattr(w, "continuous", v)))
    add("World.add_body", "shape", "points", lambda v: _on_world(lambda w: w.add_body(v, (8.0, 8.0))))
    add("World.add_body", "position", "vector", lambda v: _on_world(lambda w: w.add_body(BOX, v)))
    add("World.add_body", "angle", "real", lambda v: _on_world(lambda w: w.add_body(BOX, (9, 9), angle=v)))
    add(
        "World.add_body",
        "velocity",
        "vector",
        lambda v: _on_world(lambda w: w.add_body(BOX, (9, 9), velocity=v)),
    )
    add(
        "World.add_body",
        "angular_velocity",
        "real",
        lambda v: _on_world(lambda w: w.add_body(BOX, (9, 9), angular_velocity=v)),
    )
    add(
        "World.add_body", "density", "real", lambda v: _on_world(lambda w: w.add_body(BOX, (9, 9), density=v))
    )
    add(
        "World.add_body",
        "friction",
        "real",
        lambda v: _on_world(lambda w: w.add_body(BOX, (9, 9), friction=v)),
        True,
    )
    add("World.add_body", "static", "bool", lambda v: _on_world(lambda w: w.add_body(BOX, (9, 9), static=v)))
    add(
        "World.add_body",
        "kinematic",
        "bool",
        lambda v: _on_world(lambda w: w.add_body(BOX, (9, 9), kinematic=v)),
    )
    add(
        "World.add_compound",
        "shapes",
        "points",
        lambda v: _on_world(lambda w: w.add_compound([BOX, v], (8.0, 8.0))),
    )
    add(
        "World.add_compound",
        "position",
        "vector",
        lambda v: _on_world(lambda w: w.add_compound([BOX, FAR_BOX], v)),
    )
    add("World.apply_force", "i", "index", lambda v: _on_world(lambda w: w.apply_force(v, (1.0, 2.0))))
    add("World.apply_force", "force", "vector", lambda v: _on_world(lambda w: w.apply_force(1, v)))
    add(
        "World.apply_force",
        "point",
        "vector",
        lambda v: _on_world(lambda w: w.apply_force(1, (1.0, 0.0), v)),
        True,
    )
    add(
        "World.apply_forces",
        "bodies",
        "index",
        lambda v: _on_world(lambda w: w.apply_forces([v], [(1.0, 0.0)])),
    )
    add(
        "World.apply_forces",
        "forces",
        "points",
        lambda v: _on_world(lambda w: w.apply_forces([i % 7 for i in range(_rows(v))], v)),
    )
    add("World.apply_impulse", "impulse", "vector", lambda v: _on_world(lambda w: w.apply_impulse(2, v)))
    add(
        "World.apply_impulse",
        "point",
        "vector",
        lambda v: _on_world(lambda w: w.apply_impulse(1, (1.0, 0.0), v)),
        True,
    )
    add("World.set_velocity", "i", "index", lambda v: _on_world(lambda w: w.set_velocity(v, (1.0, 0.0))))
    add("World.set_velocity", "velocity", "vector", lambda v: _on_world(lambda w: w.set_velocity(3, v)))
    add(
        "World.set_velocity",
        "angular_velocity",
        "real",
        lambda v: _on_world(lambda w: w.set_velocity(1, (0, 0), v)),
        True,
    )
    add(
        "World.set_fixed_rotation", "fixed", "bool", lambda v: _on_world(lambda w: w.set_fixed_rotation(1, v))
    )
    add(
        "World.set_material",
        "i",
        "index",
        lambda v: _on_world(lambda w: w.set_material(v, friction=0.3)),
        True,
    )
    add(
        "World.set_material",
        "restitution",
        "real",
        lambda v: _on_world(lambda w: w.set_material(1, restitution=v)),
        True,
    )
    add("World.remove_body", "i", "index", lambda v: _on_world(lambda w: w.remove_body(v)))
    add("World.parts", "i", "index", lambda v: _on_world(lambda w: w.parts(v)))
    add("World.vertices", "i", "index", lambda v: _on_world(lambda w: w.vertices(v)))
    add("World.step", "dt", "real", lambda v: _on_world(lambda w: w.step(v)))
    add("World.raycast", "start", "vector", lambda v: _on_world(lambda w: w.raycast(v, (0.0, 5.0))))
    add(
        "World.raycast",
        "ignore",
        "indices",
        lambda v: _on_world(lambda w: w.raycast((0.0, 5.0), (0.0, -5.0), v)),
    )
    add("World.raycast_all", "end", "vector", lambda v: _on_world(lambda w: w.raycast_all((-9.0, 1.0), v)))
    add("World.query_point", "p", "vector", lambda v: _on_world(lambda w: w.query_point(v)))
    add("IterativeSettings", "IterativeSettings.velocity_iterations", "int",
        lambda v: _on_world(lambda w: _set(w, "iterative", "velocity_iterations", v)))  # fmt: skip
    add("IterativeSettings", "IterativeSettings.contact_hertz", "real",
        lambda v: _on_world(lambda w: _set(w, "iterative", "contact_hertz", v)))  # fmt: skip
    add("ArcadeSettings", "ArcadeSettings.ordered", "bool",
        lambda v: _on_world(lambda w: _set(w, "arcade", "ordered", v)))  # fmt: skip
    return s


SLOTS = _slots()

#: Hostile forms of integers and flags (integers must be ints, flags True or False).
HOSTILE_INTS: tuple[Callable[[int], Any], ...] = (
    lambda n: float(n),
    lambda n: np.float64(n),
    lambda n: True,
    lambda n: str(n),
    lambda n: None,
    lambda n: [n],
    lambda n: 10**400,
    lambda n: complex(n, 0),
    lambda n: np.array([n, n]),
)
#: Hostile forms of an argument taking one body index or several (a list of indices is valid).
HOSTILE_INDICES: tuple[Callable[[int], Any], ...] = (
    lambda n: float(n),
    lambda n: np.float64(n),
    lambda n: True,
    lambda n: str(n),
    lambda n: None,
    lambda n: [[n]],
    lambda n: [n, 1.5],
    lambda n: {n},
    lambda n: 10**400,
    lambda n: [10**400],
    lambda n: complex(n, 0),
    lambda n: np.array([[n, n]]),
    lambda n: np.array([True, False]),
)
HOSTILE_FLAGS: tuple[Callable[[bool], Any], ...] = (
    lambda b: int(b),
    lambda b: float(b),
    lambda b: "True",
    lambda b: None,
    lambda b: np.array([b, not b]),
    lambda b: [b],
)


def _present(rng: np.random.Generator, slot: Slot, hostile: bool) -> tuple[Any, Any, bool]:
    """(the form given, the canonical value, whether the form may be accepted)."""
    value = slot.value(rng)
    if slot.kind == "real":
        given, read = present_scalar(rng, value, hostile)
        return given, read, read is not None
    if slot.kind in ("vector", "points"):
        given, read = present_array(rng, np.asarray(value, dtype=np.float64), hostile)
        return given, read, read is not None
    if slot.kind == "indices":
        if hostile:
            return HOSTILE_INDICES[int(rng.integers(0, len(HOSTILE_INDICES)))](value), value, False
        forms_i = (int, np.int64, lambda n: [n], lambda n: (n,), lambda n: np.array([n], dtype=np.int32))
        return forms_i[int(rng.integers(0, len(forms_i)))](value), value, True
    if slot.kind == "int":
        if hostile:
            return HOSTILE_INTS[int(rng.integers(0, len(HOSTILE_INTS)))](value), value, False
        forms = (int, np.int64, np.int32, np.int8, np.uint64 if value >= 0 else np.int16, np.array)
        return forms[int(rng.integers(0, len(forms)))](value), value, True
    if hostile:
        return HOSTILE_FLAGS[int(rng.integers(0, len(HOSTILE_FLAGS)))](value), value, False
    forms_b = (bool, np.bool_, np.array)
    return forms_b[int(rng.integers(0, len(forms_b)))](value), value, True


def _outcome(run: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", run()
    except ValueError as exc:  # GeometryError too; any other exception fails the test
        return "refused", exc


def _case(rng: np.random.Generator, slot: Slot) -> None:
    hostile = rng.random() < 0.4
    given, canonical, acceptable = _present(rng, slot, hostile)
    if given is None and slot.nullable:
        canonical, acceptable = None, True
    status, answer = _outcome(slot.call(given))
    count(f"numbers: {'hostile' if hostile else 'valid'} {slot.kind}")
    if status == "refused":
        message = str(answer)
        expect_refusal(
            answer, slot.name.split(".")[-1] if slot.name.startswith(("Iter", "Arc")) else slot.name
        )
        assert len(message) <= MESSAGE_LIMIT, f"{slot.entry}({slot.name}): a {len(message)}-character message"
    if not acceptable:
        assert status == "refused", f"{slot.entry}({slot.name} = {given!r:.80}) accepted: {answer!r:.200}"
        return
    reference, expected = _outcome(slot.call(canonical))
    assert status == reference, (
        f"{slot.entry}({slot.name}): {type(given).__name__} form {status}, float64 form {reference}: "
        f"{answer!r:.200} / {expected!r:.200}"
    )
    if status == "ok":
        assert same(answer, expected), (
            f"{slot.entry}({slot.name}): a {type(given).__name__} form answered differently"
        )


@SETTINGS(500)
@given(seed=SEEDS)
def test_every_argument_in_every_form(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(12):
        _case(rng, SLOTS[int(rng.integers(0, len(SLOTS)))])


def test_every_slot_is_reached_and_refuses_a_bool_and_a_huge_integer() -> None:
    """Each entry point refuses the two forms the original hostile campaign found escaping as
    TypeError or OverflowError, naming its argument."""
    for slot in SLOTS:
        for bad in (
            (True, 10**400) if slot.kind in ("real", "int", "indices") else (np.array([True, False]), "x")
        ):
            status, answer = _outcome(slot.call(bad))
            count(f"numbers: hostile {slot.kind}")
            assert status == "refused", f"{slot.entry}({slot.name} = {bad!r:.40}) accepted"
            assert len(str(answer)) <= MESSAGE_LIMIT


def test_the_batch_face_takes_no_pairs() -> None:
    """Zero pairs is a batch too: empty answers of the documented shapes, not a refusal."""
    none = Shapes([])
    swept = sweep_many(none, none, np.zeros((0, 2)))
    assert swept.hit.shape == (0,) and swept.normal.shape == (0, 2) and swept.t.shape == (0,)
    assert swept.t.dtype == np.float64 and swept.hit.dtype == np.bool_
    found = find_mtd_many(none, none)
    assert found.hit.shape == (0,) and found.normal.shape == (0, 2) and found.depth.shape == (0,)
    assert intersect_many(none, none).shape == (0,)
    assert len(none.transformed(np.zeros((0, 2)), np.zeros(0))) == 0
    count("numbers: valid points", 4)
