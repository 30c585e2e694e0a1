"""The iterative solver's settings (checked when set, read by the compiled step) and the
contacts view the step returns (read-only rows, made on first use)."""

from __future__ import annotations

import numpy as np
import pytest

from collision import Polygon, World

DT = 1.0 / 60.0


def small_stack() -> World:
    world = World(gravity=(0.0, -10.0), solver="iterative")
    world.solver_settings("iterative").sleep = False
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    for k in range(3):
        world.add_body(Polygon.box(1.0, 1.0), (0.1 * k, 0.5 + 1.02 * k), angle=0.05 * k)
    return world


def run(world: World, steps: int) -> str:
    for _ in range(steps):
        world.step(DT)
    return world.state_hash()


BAD_SETTINGS = [
    ("substeps", 0, "must be in"),
    ("substeps", 2.5, "must be an integer"),
    ("substeps", True, "must be an integer"),
    ("velocity_iterations", -1, "must be in"),
    ("relax_iterations", "2", "must be an integer"),
    ("final_relax_iterations", 1000, "must be in"),
    ("warm_start", 1, "must be True or False"),
    ("contact_hertz", float("nan"), "must be finite"),
    ("contact_hertz", -30.0, "must be in"),
    ("damping_ratio", float("inf"), "must be finite"),
    ("max_push_speed", "fast", "must be a real number"),
    ("load_memory", 1.5, "must be in"),
    ("speculative_distance", -0.1, "must be in"),
    ("match_cosine", 2.0, "must be in"),
    ("broadphase_margin", None, "must be a real number"),
]


@pytest.mark.parametrize(("name", "value", "reason"), BAD_SETTINGS)
def test_a_bad_setting_is_refused_by_name_and_changes_nothing(name: str, value: object, reason: str) -> None:
    reference = small_stack()
    world = small_stack()
    solver = world.solver_settings("iterative")
    before = getattr(solver, name)
    with pytest.raises(ValueError, match=rf"IterativeSettings\.{name} = .*{reason}"):
        setattr(solver, name, value)
    assert getattr(solver, name) == before
    assert solver.fields == tuple(solver.values)
    with pytest.raises(AttributeError, match="no setting 'fields'"):
        solver.fields = solver.fields  # only follows the settings
    assert run(world, 60) == run(reference, 60)


def test_a_setting_reaches_the_compiled_step_and_back() -> None:
    default = run(small_stack(), 30)
    world = small_stack()
    solver = world.solver_settings("iterative")
    solver.substeps = 8
    assert solver.substeps == 8
    assert solver.fields == tuple(solver.values)  # what the step takes follows the change
    changed = run(world, 30)
    assert changed != default  # eight substeps integrate differently from four

    again = small_stack()
    solver = again.solver_settings("iterative")
    solver.substeps = 8
    solver.substeps = 4  # back to the default: bit-identical to never having changed it
    assert run(again, 30) == default


def test_numpy_integers_and_bools_are_accepted() -> None:
    world = small_stack()
    solver = world.solver_settings("iterative")
    solver.substeps = np.int64(4)
    solver.warm_start = np.bool_(True)
    solver.contact_hertz = np.float32(30.0)
    assert isinstance(solver.substeps, int) and solver.substeps == 4
    assert solver.warm_start is True
    assert run(world, 30) == run(small_stack(), 30)


def test_contacts_are_read_only_rows_with_the_packed_values() -> None:
    world = small_stack()
    run(world, 180)  # three seconds: settled
    contacts = world.contacts
    m = len(contacts)
    assert m >= 6  # three boxes resting on each other and the ground: two points per face
    fields = ("body_a", "body_b", "point_a", "point_b", "normal", "separation", "toi")
    for name in fields + ("normal_impulse", "tangent_impulse", "state"):
        row = getattr(contacts, name)
        assert row.shape[0] == m
        assert not row.flags.writeable
        with pytest.raises(ValueError):
            row[...] = 0
    # The rows are what the solver found: every point pairs one box with what holds it up,
    # normals are unit, and the boxes' weight (3 boxes x 1 kg x 10 m/s^2 x DT) is carried by
    # the ground contacts' impulses over the step.
    np.testing.assert_allclose(np.hypot(*contacts.normal.T), 1.0, rtol=1e-12)
    on_ground = (contacts.body_a == 0) | (contacts.body_b == 0)
    assert on_ground.any()
    carried = contacts.normal_impulse[on_ground].sum()
    assert carried == pytest.approx(3.0 * 10.0 * DT, rel=0.05)
    # The view does not change when the world steps on (the next step makes a new one).
    kept = contacts.point_a.copy()
    world.step(DT)
    np.testing.assert_array_equal(contacts.point_a, kept)
    assert world.contacts is not contacts
