"""World: bodies, mass properties, forces, validation, determinism, queries, the contact view."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from collision import MAX_VERTICES, Contacts, Polygon, RayHit, World
from collision.contacts import CONTACT_NEW, CONTACT_PERSISTING, CONTACT_SPECULATIVE

ROOT = Path(__file__).resolve().parents[2]


def _world(**kw: object) -> World:
    kw.setdefault("solver", "tutorial")
    return World(**kw)  # type: ignore[arg-type]


# --- bodies and mass properties ----------------------------------------------------------------


def test_box_mass_and_inertia() -> None:
    w = _world()
    i = w.add_body(Polygon.box(2.0, 3.0), (1.0, 2.0), density=2.0)
    m = 2.0 * 6.0
    assert w.mass[i] == pytest.approx(m, rel=1e-12)
    assert w.inertia[i] == pytest.approx(m * (4.0 + 9.0) / 12.0, rel=1e-12)


def test_segment_is_a_thin_rod_and_point_does_not_rotate() -> None:
    w = _world()
    s = w.add_body([(-1.5, 0.0), (1.5, 0.0)], (0.0, 0.0), density=2.0)
    p = w.add_body([(0.0, 0.0)], (5.0, 0.0), density=2.0)
    ms = w.mass[s]
    assert ms > 0.0
    assert w.inertia[s] == pytest.approx(ms * 9.0 / 12.0, rel=1e-12)
    assert w.mass[p] > 0.0 and w.inertia[p] == 0.0
    # A point given a torque or an off-centre impulse does not spin.
    w.apply_impulse(p, (0.0, 1.0), point=(6.0, 0.0))
    assert w.angular_velocity[p] == 0.0
    assert np.isfinite(w.inertia).all()


def test_regular_polygon_inertia_approaches_disc() -> None:
    w = _world()
    r = 2.0
    i = w.add_body(Polygon.regular(16, r), (0.0, 0.0))
    m = w.mass[i]
    # area-equivalent check: a regular 16-gon is within 3% of a disc of the same mass
    assert w.inertia[i] == pytest.approx(m * r * r / 2.0, rel=0.03)
    assert m == pytest.approx(0.5 * 16 * r * r * math.sin(2 * math.pi / 16), rel=1e-12)


def test_position_is_centroid_and_vertices_are_centroid_relative() -> None:
    w = _world()
    tri = [(0.0, 0.0), (3.0, 0.0), (0.0, 3.0)]
    i = w.add_body(tri, (10.0, 10.0))
    local = w.shape(i)
    assert np.allclose(local.mean(axis=0), 0.0, atol=1e-12)
    assert np.allclose(w.vertices(i), local + [10.0, 10.0])
    j = w.add_body(Polygon.box(2.0, 1.0), (0.0, 0.0), angle=math.pi / 2)
    got = w.vertices(j)
    assert np.allclose(np.sort(got[:, 0]), [-0.5, -0.5, 0.5, 0.5])
    assert np.allclose(np.sort(got[:, 1]), [-1.0, -1.0, 1.0, 1.0])


def test_clockwise_shape_is_accepted() -> None:
    w = _world()
    i = w.add_body([(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)], (0.0, 0.0))
    assert w.mass[i] == pytest.approx(1.0)


def test_static_by_flag_or_zero_density() -> None:
    w = _world()
    a = w.add_body(Polygon.box(1, 1), (0, 0), static=True, velocity=(3, 0))
    b = w.add_body(Polygon.box(1, 1), (5, 0), density=0.0)
    assert w.static[a] and w.static[b]
    assert w.mass[a] == 0.0 and w.inertia[b] == 0.0
    assert np.array_equal(w.velocity[a], [0.0, 0.0])
    before = w.position.copy()
    for _ in range(10):
        w.step(0.1)
    assert np.array_equal(w.position, before)


def test_state_arrays_shapes_and_views() -> None:
    w = _world()
    for k in range(3):
        w.add_body(Polygon.box(1, 1), (3.0 * k, 0.0))
    assert w.body_count == 3
    assert w.position.shape == (3, 2) and w.position.dtype == np.float64
    assert w.angle.shape == (3,) and w.velocity.shape == (3, 2) and w.angular_velocity.shape == (3,)
    assert w.local_vertices.shape == (3, MAX_VERTICES, 2)
    assert w.vertex_count.dtype == np.int64
    w.position[1] = (7.0, 8.0)  # live array
    assert np.array_equal(w.position[1], [7.0, 8.0])
    with pytest.raises(ValueError):
        w.mass[0] = 5.0
    with pytest.raises(ValueError):
        w.static[0] = True


def test_remove_body_compacts() -> None:
    w = _world()
    ids = [w.add_body(Polygon.box(1, 1), (3.0 * k, 0.0), velocity=(k, 0)) for k in range(4)]
    w.remove_body(ids[1])
    assert w.body_count == 3
    assert np.array_equal(w.position[:, 0], [0.0, 6.0, 9.0])
    assert np.array_equal(w.velocity[:, 0], [0.0, 2.0, 3.0])


# --- materials -----------------------------------------------------------------------------------


def test_material_defaults_and_setting() -> None:
    w = _world(friction=0.3, restitution=0.2, static_friction=0.7)
    i = w.add_body(Polygon.box(1, 1), (0, 0))
    j = w.add_body(Polygon.box(1, 1), (3, 0), friction=0.9, restitution=1.0, static_friction=0.0)
    assert (w.body_friction[i], w.body_restitution[i], w.body_static_friction[i]) == (0.3, 0.2, 0.7)
    assert (w.body_friction[j], w.body_restitution[j], w.body_static_friction[j]) == (0.9, 1.0, 0.0)
    w.set_material(i, friction=0.1)
    assert w.body_friction[i] == 0.1 and w.body_restitution[i] == 0.2
    w.set_material(restitution=0.5)
    assert np.array_equal(w.body_restitution, [0.5, 0.5])


# --- forces and impulses -------------------------------------------------------------------------


def test_force_integration_and_clearing() -> None:
    w = _world(gravity=(0.0, -10.0))
    i = w.add_body(Polygon.box(2.0, 1.0), (0.0, 0.0))  # mass 2
    w.apply_force(i, (4.0, 0.0))
    w.step(0.5)
    assert w.velocity[i] == pytest.approx([1.0, -5.0])
    assert w.position[i] == pytest.approx([0.5, -2.5])  # semi-implicit Euler
    w.step(0.5)  # force cleared: only gravity
    assert w.velocity[i] == pytest.approx([1.0, -10.0])


def test_force_at_point_gives_ccw_torque() -> None:
    w = _world(gravity=(0.0, 0.0))
    i = w.add_body(Polygon.box(2.0, 2.0), (0.0, 0.0))
    inertia = w.inertia[i]
    # Pushing +y at the right edge turns the box counter-clockwise (positive).
    w.apply_force(i, (0.0, 3.0), point=(1.0, 0.0))
    w.step(0.1)
    assert w.angular_velocity[i] == pytest.approx(3.0 / inertia * 0.1)
    assert w.angle[i] > 0.0


def test_impulse_changes_velocity_and_spin_at_once() -> None:
    w = _world(gravity=(0.0, 0.0))
    i = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), density=4.0)  # mass 4
    w.apply_impulse(i, (8.0, 0.0), point=(0.0, 0.5))
    assert w.velocity[i] == pytest.approx([2.0, 0.0])
    # r x J = (0, 0.5) x (8, 0) = -4: clockwise
    assert w.angular_velocity[i] == pytest.approx(-4.0 / w.inertia[i])


def test_angle_is_wrapped() -> None:
    w = _world(gravity=(0.0, 0.0))
    i = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), angular_velocity=10.0)
    for _ in range(100):
        w.step(0.05)
        assert -math.pi <= w.angle[i] < math.pi
    assert w.angle[i] == pytest.approx(math.remainder(50.0, 2 * math.pi), abs=1e-9)


def test_energy_and_momentum_helpers() -> None:
    w = _world(gravity=(0.0, 0.0))
    w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), velocity=(2.0, 0.0), density=3.0)
    w.add_body(Polygon.box(1.0, 1.0), (5.0, 0.0), velocity=(0.0, -1.0), angular_velocity=2.0)
    w.add_body(Polygon.box(1.0, 1.0), (9.0, 0.0), static=True)
    assert w.momentum() == pytest.approx([6.0, -1.0])
    assert w.kinetic_energy() == pytest.approx(0.5 * 3 * 4 + 0.5 * 1 + 0.5 * (1 / 6) * 4)


# --- solver selection ------------------------------------------------------------------------------


def test_solver_switch_at_run_time() -> None:
    w = World(solver="arcade")
    w.add_body(Polygon.box(1, 1), (0, 0))
    w.step(0.01)
    w.solver = "tutorial"
    assert w.solver == "tutorial"
    w.step(0.01)
    assert w.step_count == 2 and w.time == pytest.approx(0.02)


# --- validation: ValueError naming the argument, world unchanged ------------------------------------


def _populated() -> World:
    w = _world()
    w.add_body(Polygon.box(1, 1), (0, 0), velocity=(1, 2))
    w.add_body(Polygon.box(4, 1), (0, -3), static=True)
    w.step(0.01)
    return w


BAD_CALLS = [
    ("position", lambda w: w.add_body(Polygon.box(1, 1), (math.nan, 0))),
    ("position", lambda w: w.add_body(Polygon.box(1, 1), (0, math.inf))),
    ("position", lambda w: w.add_body(Polygon.box(1, 1), (0, 0, 0))),
    ("velocity", lambda w: w.add_body(Polygon.box(1, 1), (0, 0), velocity=(math.nan, 0))),
    ("angle", lambda w: w.add_body(Polygon.box(1, 1), (0, 0), angle=math.inf)),
    ("angular_velocity", lambda w: w.add_body(Polygon.box(1, 1), (0, 0), angular_velocity=math.nan)),
    ("density", lambda w: w.add_body(Polygon.box(1, 1), (0, 0), density=-1.0)),
    ("friction", lambda w: w.add_body(Polygon.box(1, 1), (0, 0), friction=-0.1)),
    ("restitution", lambda w: w.add_body(Polygon.box(1, 1), (0, 0), restitution=1.5)),
    ("shape", lambda w: w.add_body([(0, 0), (1, 0), (2, 0)], (0, 0))),
    ("shape", lambda w: w.add_body([(0, 0), (math.nan, 0), (0, 1)], (0, 0))),
    ("dt", lambda w: w.step(0.0)),
    ("dt", lambda w: w.step(-0.1)),
    ("dt", lambda w: w.step(math.nan)),
    ("dt", lambda w: w.step(math.inf)),
    ("solver", lambda w: setattr(w, "solver", "verlet")),
    ("gravity", lambda w: setattr(w, "gravity", (0, math.nan))),
    ("force", lambda w: w.apply_force(0, (math.inf, 0))),
    ("point", lambda w: w.apply_force(0, (1, 0), point=(math.nan, 0))),
    ("impulse", lambda w: w.apply_impulse(0, (0, math.nan))),
    ("i", lambda w: w.apply_impulse(7, (0, 1))),
    ("i", lambda w: w.apply_force(-1, (0, 1))),
    ("i", lambda w: w.remove_body(2)),
    ("i", lambda w: w.set_material(5, friction=0.1)),
    ("static_friction", lambda w: w.set_material(0, friction=0.2, static_friction=math.nan)),
    ("ignore", lambda w: w.query_point((0, 0)) and w.raycast((0, 0), (1, 1), ignore=[9])),
    ("p", lambda w: w.query_point((math.nan, 0))),
]


@pytest.mark.parametrize(("name", "call"), BAD_CALLS, ids=[f"{n}-{k}" for k, (n, _) in enumerate(BAD_CALLS)])
def test_bad_input_names_argument_and_leaves_world_unchanged(name: str, call) -> None:  # type: ignore[no-untyped-def]
    w = _populated()
    before = (
        w.state_hash(),
        w.body_count,
        w.solver,
        w.gravity.tolist(),
        w.step_count,
        w.body_friction.tolist(),
        w.body_static_friction.tolist(),
    )
    with pytest.raises(ValueError, match=name):
        call(w)
    after = (
        w.state_hash(),
        w.body_count,
        w.solver,
        w.gravity.tolist(),
        w.step_count,
        w.body_friction.tolist(),
        w.body_static_friction.tolist(),
    )
    assert after == before


def test_bad_constructor_arguments() -> None:
    with pytest.raises(ValueError, match="solver"):
        World(solver="magic")
    with pytest.raises(ValueError, match="gravity"):
        World(gravity=(0, math.nan))
    with pytest.raises(ValueError, match="friction"):
        World(friction=-1)


def test_nan_written_into_state_is_refused_by_step() -> None:
    w = _populated()
    w.position[0, 0] = math.nan
    with pytest.raises(ValueError, match=r"position\[0\]"):
        w.step(0.01)
    assert w.step_count == 1


# --- determinism --------------------------------------------------------------------------------------

SCRIPT = """
import numpy as np
from collision import Polygon, World

def run(solver, steps):
    rng = np.random.default_rng(42)
    w = World(solver=solver, restitution=0.3, friction=0.4)
    w.add_body(Polygon.box(40, 2), (0, -1), static=True)
    w.add_body(Polygon.box(2, 30), (-21, 15), static=True)
    w.add_body(Polygon.box(2, 30), (21, 15), static=True)
    for k in range(12):
        n = int(rng.integers(1, 7))
        shape = Polygon.blob(n, float(rng.uniform(0.6, 1.4)), float(rng.uniform(0.6, 1.4)))
        w.add_body(shape, (float(rng.uniform(-18, 18)), float(rng.uniform(2, 25))),
                   angle=float(rng.uniform(0, 3)), velocity=(float(rng.uniform(-3, 3)), 0.0))
    for _ in range(steps):
        w.step(1 / 60)
    return w.state_hash()
"""


@pytest.mark.parametrize("solver", ["tutorial", "arcade"])
def test_same_inputs_same_hash_in_one_process_and_in_two(solver: str) -> None:
    namespace: dict[str, object] = {}
    exec(SCRIPT, namespace)
    run = namespace["run"]
    first = run(solver, 1000)  # type: ignore[operator]
    second = run(solver, 1000)  # type: ignore[operator]
    assert first == second
    assert len(first) == 64
    code = SCRIPT + f"\nprint(run({solver!r}, 1000))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.strip() == first


def test_state_hash_sees_every_state_array() -> None:
    w = _populated()
    h = w.state_hash()
    for arr in (w.position, w.angle, w.velocity, w.angular_velocity):
        flat = arr.reshape(-1)
        old = flat[0]
        flat[0] = np.nextafter(old, math.inf)
        assert w.state_hash() != h
        flat[0] = old
    assert w.state_hash() == h


# --- queries ----------------------------------------------------------------------------------------


def _query_world() -> World:
    w = _world(gravity=(0.0, 0.0))
    w.add_body(Polygon.box(2.0, 2.0), (0.0, 0.0))  # 0: x in [-1, 1]
    w.add_body(Polygon.box(2.0, 2.0), (5.0, 0.0))  # 1: x in [4, 6]
    w.add_body([(0.0, 0.0)], (10.0, 0.0))  # 2: point
    w.add_body([(0.0, -1.0), (0.0, 1.0)], (3.0, 0.0))  # 3: vertical segment at x = 3
    return w


def test_query_point() -> None:
    w = _query_world()
    assert w.query_point((0.5, 0.5)) == [0]
    assert w.query_point((5.0, -0.9)) == [1]
    assert w.query_point((2.0, 0.0)) == []
    # Points and segments: exactly on them, or within the radius the caller gives.
    assert w.query_point((10.0, 0.0)) == [2] and w.query_point((3.0, 0.5)) == [3]
    assert w.query_point((10.1, 0.0)) == [] and w.query_point((2.9, 0.5)) == []
    assert w.query_point((10.1, 0.0), radius=0.1) == [2]
    assert w.query_point((2.9, 0.5), radius=0.25) == [3]
    assert w.query_point((2.5, 0.5), radius=0.25) == []


def test_raycast_nearest_and_all() -> None:
    w = _query_world()
    hit = w.raycast((-5.0, 0.0), (15.0, 0.0))
    assert isinstance(hit, RayHit)
    assert hit.body == 0
    assert hit.t == pytest.approx(4.0 / 20.0)
    assert hit.point == pytest.approx([-1.0, 0.0])
    assert hit.normal == pytest.approx([-1.0, 0.0])
    hits = w.raycast_all((-5.0, 0.0), (15.0, 0.0))
    assert [h.body for h in hits] == [0, 3, 1, 2]
    assert [h.t for h in hits] == sorted(h.t for h in hits)
    assert hits[2].point == pytest.approx([4.0, 0.0])
    ignored = w.raycast((-5.0, 0.0), (15.0, 0.0), ignore=[0, 3])
    assert ignored is not None and ignored.body == 1
    assert w.raycast((-5.0, 5.0), (15.0, 5.0)) is None


# --- contacts view -----------------------------------------------------------------------------------


def test_contacts_view_shapes_and_read_only() -> None:
    assert (CONTACT_NEW, CONTACT_PERSISTING, CONTACT_SPECULATIVE) == (0, 1, 2)
    empty = Contacts.empty()
    assert len(empty) == 0 and empty.point_a.shape == (0, 2) and empty.state.dtype == np.int8
    w = _world(gravity=(0.0, -10.0))
    w.add_body(Polygon.box(10.0, 1.0), (0.0, -0.5), static=True)
    box = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    w.step(1 / 60)
    c = w.contacts
    assert len(c) == 2
    m = len(c)
    assert c.body_a.shape == (m,) and c.body_a.dtype == np.int64
    assert c.point_a.shape == (m, 2) and c.point_b.shape == (m, 2) and c.normal.shape == (m, 2)
    for arr in (c.separation, c.toi, c.normal_impulse, c.tangent_impulse, c.state):
        assert arr.shape == (m,)
    assert set(map(int, c.body_a)) | set(map(int, c.body_b)) == {0, box}
    # The normal points from B toward A.
    for k in range(m):
        toward_a = w.position[c.body_a[k]] - w.position[c.body_b[k]]
        assert float(np.dot(c.normal[k], toward_a)) > 0.0
    assert np.allclose(np.linalg.norm(c.normal, axis=1), 1.0)
    # The box weighs m g; over the step the two points took m g dt of impulse together.
    assert c.normal_impulse.sum() == pytest.approx(w.mass[box] * 10.0 / 60.0, rel=1e-9)
    assert (c.state == CONTACT_NEW).all()
    with pytest.raises(ValueError):
        c.normal[0, 0] = 1.0


def test_a_mass_whose_inverse_would_overflow_is_refused() -> None:
    """Found by the fuzz suite: density 1e-300 on a tiny polygon gave mass 1e-318, an infinite
    inverse mass and NaN positions one step later. It is refused, naming the density."""
    import pytest

    from collision import Polygon, World

    world = World(solver="tutorial")
    world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0))
    before = world.state_hash()
    with pytest.raises(ValueError, match="density"):
        world.add_body(Polygon.regular(8, 1e-6), (3.0, 0.0), density=1e-300)
    assert world.body_count == 1 and world.state_hash() == before
    world.step(1 / 60)
    assert all(bool((abs(getattr(world, n)) < 1e6).all()) for n in ("position", "velocity"))
