"""Hostile input for the World: random sequences of add_body, step, apply_force, apply_impulse,
set_velocity, raycast, raycast_all, query_point, remove_body, set_material, gravity and solver
switching, with NaN, infinite, huge, tiny, zero and negative values mixed in.

After every call: either it succeeded and the whole state is finite (and angles wrapped), or it
raised ValueError naming the argument at fault and left the world exactly as it was.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from collision import Polygon, World
from collision.world import SOLVER_NAMES
from tests.collision.test_fuzz_common import (
    HOSTILE_NUMBERS,
    SEEDS,
    SETTINGS,
    call,
    count,
    expect_refusal,
    fuzz_report,  # noqa: F401 (module fixture: prints the case count)
    make_shape,
    valid_shape,
)

ARENA = 20.0
BAD_VECTORS: tuple[object, ...] = ([math.nan, 0.0], [0.0, math.inf], [], [1.0, 2.0, 3.0], "xy", None)
BAD_INDICES: tuple[object, ...] = (-1, 10**6, 1.5, True, "0", None, np.int64(-2))
DTS: tuple[object, ...] = (
    1 / 60,
    1 / 60,
    1 / 60,
    1 / 120,
    1e-9,
    0.0,
    -1 / 60,
    math.nan,
    math.inf,
    "x",
    None,
    0.5,
    1e4,
)


def _number(rng: np.random.Generator, typical: float) -> object:
    if rng.random() < 0.8:
        return float(rng.uniform(-typical, typical))
    return HOSTILE_NUMBERS[int(rng.integers(0, len(HOSTILE_NUMBERS)))]


def _vector(rng: np.random.Generator, typical: float) -> object:
    r = rng.random()
    if r < 0.04:
        return BAD_VECTORS[int(rng.integers(0, len(BAD_VECTORS)))]
    if r < 0.15:
        return [_number(rng, typical), _number(rng, typical)]
    return rng.uniform(-typical, typical, 2).tolist()


def _index(rng: np.random.Generator, world: World) -> object:
    if world.body_count == 0 or rng.random() < 0.08:
        return BAD_INDICES[int(rng.integers(0, len(BAD_INDICES)))]
    return int(rng.integers(0, world.body_count))


def _snapshot(world: World) -> tuple:
    return (
        world.state_hash(),
        world.body_count,
        world.time,
        world.step_count,
        world.solver,
        world.gravity.tobytes(),
        world.body_friction.tobytes(),
        world.body_restitution.tobytes(),
        world.force.tobytes(),
        world.torque.tobytes(),
    )


def _check_finite(world: World) -> None:
    for name in ("position", "angle", "velocity", "angular_velocity"):
        a = getattr(world, name)
        assert a.shape[0] == world.body_count and np.isfinite(a).all(), f"{name} is not finite: {a}"
    assert np.all(np.abs(world.angle) <= math.pi + 1e-12)
    assert np.isfinite(world.mass).all() and np.isfinite(world.inertia).all()
    assert np.all(world.velocity[world.static] == 0.0)
    c = world.contacts
    for name in ("point_a", "point_b", "normal", "separation", "toi", "normal_impulse", "tangent_impulse"):
        assert np.isfinite(getattr(c, name)).all(), f"contacts.{name} is not finite"
    if len(c):
        assert np.allclose(np.hypot(c.normal[:, 0], c.normal[:, 1]), 1.0, atol=1e-9)
    assert math.isfinite(world.kinetic_energy())


def _operation(rng: np.random.Generator, world: World) -> tuple[str, object, tuple, dict, tuple[str, ...]]:
    """(name, bound method, args, kwargs, argument names a refusal may blame)."""
    op = str(
        rng.choice(
            [
                "add",
                "add",
                "step",
                "step",
                "step",
                "step",
                "force",
                "impulse",
                "velocity",
                "ray",
                "ray_all",
                "query",
                "remove",
                "solver",
                "gravity",
                "material",
            ]
        )
    )
    if op == "add":
        case = (
            make_shape(rng, None, hostile_share=0.2)
            if rng.random() < 0.3
            else valid_shape(rng, None, scales=(0.3, 1.0, 2.0), offsets=(0.0, 1.0, 10.0))
        )
        kwargs = {
            "angle": _number(rng, math.pi),
            "velocity": _vector(rng, 5.0),
            "angular_velocity": _number(rng, 2.0),
            "density": abs(_number(rng, 2.0)) if rng.random() < 0.9 else _number(rng, 2.0),  # type: ignore[arg-type]
            "static": bool(rng.random() < 0.25),
        }
        if rng.random() < 0.3:
            kwargs["friction"] = _number(rng, 1.0)
            kwargs["restitution"] = _number(rng, 1.0)
        args = (case.raw, _vector(rng, ARENA))
        names = (
            "shape",
            "position",
            "angle",
            "velocity",
            "angular_velocity",
            "density",
            "friction",
            "restitution",
        )
        return op, world.add_body, args, kwargs, names
    if op == "step":
        return op, world.step, (DTS[int(rng.integers(0, len(DTS)))],), {}, ("dt",)
    if op in ("force", "impulse"):
        fn = world.apply_force if op == "force" else world.apply_impulse
        point = None if rng.random() < 0.5 else _vector(rng, ARENA)
        return op, fn, (_index(rng, world), _vector(rng, 50.0), point), {}, ("i", "force", "impulse", "point")
    if op == "velocity":
        return (
            op,
            world.set_velocity,
            (_index(rng, world), _vector(rng, 10.0), _number(rng, 3.0)),
            {},
            ("i", "velocity", "angular_velocity"),
        )
    if op in ("ray", "ray_all"):
        fn = world.raycast if op == "ray" else world.raycast_all
        ignore = () if rng.random() < 0.7 else (_index(rng, world),)
        return op, fn, (_vector(rng, ARENA), _vector(rng, ARENA), ignore), {}, ("start", "end", "ignore")
    if op == "query":
        return op, world.query_point, (_vector(rng, ARENA),), {}, ("p",)
    if op == "remove":
        return op, world.remove_body, (_index(rng, world),), {}, ("i",)
    if op == "solver":
        names = (*SOLVER_NAMES, *SOLVER_NAMES, "Iterative", "", None, 3)
        name = names[int(rng.integers(0, len(names)))]
        return op, lambda s: setattr(world, "solver", s), (name,), {}, ("solver",)
    if op == "gravity":
        return op, lambda g: setattr(world, "gravity", g), (_vector(rng, 20.0),), {}, ("gravity",)
    i = None if rng.random() < 0.3 else _index(rng, world)
    return (
        op,
        world.set_material,
        (i, _number(rng, 1.0), _number(rng, 1.0), _number(rng, 1.0)),
        {},
        ("i", "friction", "restitution", "static_friction"),
    )


def _check_result(op: str, result: object, world: World) -> None:
    if op == "add":
        assert result == world.body_count - 1
    elif op == "ray" and result is not None:
        assert 0 <= result.body < world.body_count and 0.0 <= result.t <= 1.0  # type: ignore[attr-defined]
        assert np.isfinite(result.point).all()  # type: ignore[attr-defined]
        assert abs(math.hypot(*result.normal) - 1.0) <= 1e-9  # type: ignore[attr-defined]
    elif op == "ray_all":
        ts = [h.t for h in result]  # type: ignore[attr-defined]
        assert ts == sorted(ts) and all(0.0 <= t <= 1.0 for t in ts)
    elif op == "query":
        assert all(0 <= i < world.body_count for i in result)  # type: ignore[attr-defined]


def _box_world(rng: np.random.Generator, solver: str) -> World:
    world = World(solver=solver)
    for cx, cy, w, h in (
        (0, -ARENA, 2 * ARENA, 2),
        (0, ARENA, 2 * ARENA, 2),
        (-ARENA, 0, 2, 2 * ARENA),
        (ARENA, 0, 2, 2 * ARENA),
    ):
        world.add_body(Polygon.box(w, h), (cx, cy), static=True)
    for _ in range(int(rng.integers(0, 6))):
        world.add_body(
            valid_shape(rng, None, scales=(0.5, 1.0, 2.0), offsets=(0.0, 1.0, 10.0)).raw,
            rng.uniform(-15, 15, 2),
        )
    return world


def _poke_and_step(rng: np.random.Generator, world: World) -> None:
    """The state arrays are live and writable: a hostile value written into one must make the
    next step refuse (naming the array and row) without touching anything, or step soundly."""
    if world.body_count == 0:
        return
    name = str(rng.choice(["position", "angle", "velocity", "angular_velocity"]))
    array = getattr(world, name)
    i = int(rng.integers(0, world.body_count))
    old = array[i].copy()
    value = HOSTILE_NUMBERS[int(rng.integers(0, len(HOSTILE_NUMBERS)))]
    try:
        array[i] = value
    except OverflowError:
        # numpy refuses to store an int beyond float64 in the world's own arrays
        assert np.array_equal(array[i], old)
        return
    before = _snapshot(world)
    _, err = call(world.step, 1 / 60)
    count("World.step(poked state)")
    if err is not None:
        assert f"{name}[{i}]" in str(err), str(err)
        assert _snapshot(world) == before, "a refused step changed the world"
        array[i] = old
    else:
        _check_finite(world)


@SETTINGS(220)
@given(seed=SEEDS, solver=st.sampled_from(SOLVER_NAMES))
def test_world_operations(seed: int, solver: str) -> None:
    rng = np.random.default_rng(seed)
    world = _box_world(rng, solver)
    for _ in range(40):
        if rng.random() < 0.05:
            _poke_and_step(rng, world)
            continue
        op, fn, args, kwargs, names = _operation(rng, world)
        before = _snapshot(world)
        result, err = call(fn, *args, **kwargs)  # type: ignore[operator]
        count(f"World.{op}")
        if err is not None:
            expect_refusal(err, *names)
            assert _snapshot(world) == before, f"refused {op}{args} changed the world: {err}"
            continue
        _check_result(op, result, world)
        _check_finite(world)
