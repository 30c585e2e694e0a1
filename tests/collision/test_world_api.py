"""The World's public API for a program: solver settings, batch forces, fixed rotation, views."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, World, decompose
from collision.solvers import SOLVER_NAMES, SOLVERS
from collision.solvers.arcade import ArcadeSettings
from collision.solvers.iterative import IterativeSettings
from collision.world import BODY_DYNAMIC, BODY_KINEMATIC, BODY_STATIC

DT = 1.0 / 60.0


def test_every_solver_has_its_own_settings_kept_by_the_world() -> None:
    world = World(solver="tutorial")
    assert set(SOLVER_NAMES) == set(SOLVERS) == {"tutorial", "arcade", "iterative"}
    arcade = world.solver_settings("arcade")
    assert isinstance(arcade, ArcadeSettings) and arcade.ordered and arcade.surface_rule
    arcade.ordered = False
    world.solver = "arcade"
    assert world.settings is arcade and not world.settings.ordered
    world.solver = "iterative"
    assert isinstance(world.settings, IterativeSettings)
    assert world.solver_settings("arcade") is arcade  # kept while another solver runs
    with pytest.raises(ValueError, match="solver = 'fast'"):
        world.solver_settings("fast")


def test_settings_are_documented_and_checked_one_by_one() -> None:
    settings = ArcadeSettings()
    for name, setting in ArcadeSettings.settings().items():
        assert setting.__doc__ and len(setting.__doc__) > 40, name
    with pytest.raises(ValueError, match=r"ArcadeSettings\.max_subdivisions = 0: must be in \[1, 100000\]"):
        settings.max_subdivisions = 0
    with pytest.raises(ValueError, match=r"ArcadeSettings\.ordered = 'yes': must be True or False"):
        settings.ordered = "yes"
    with pytest.raises(AttributeError, match="no setting 'orderd'"):
        settings.orderd = False
    assert settings.max_subdivisions == 64 and settings.ordered
    assert "ordered=True" in repr(settings)


def test_arcade_ordering_switch_changes_the_outcome() -> None:
    def run(ordered: bool) -> str:
        world = World(gravity=(0.0, -10.0), solver="arcade", friction=0.0)
        world.solver_settings("arcade").ordered = ordered
        world.add_body(Polygon.box(10.0, 1.0), (0.0, -0.5), static=True)
        for i in range(4):
            world.add_body(Polygon.box(1.0, 1.0), (0.3 * i, 0.5 + 1.01 * i), velocity=(0.0, -3.0))
        for _ in range(60):
            world.step(DT)
        return world.state_hash()

    assert run(True) != run(False)


def test_iterative_sleep_setting_keeps_bodies_awake() -> None:
    def asleep(sleep: bool) -> bool:
        world = World()
        world.solver_settings("iterative").sleep = sleep
        world.add_body(Polygon.box(10.0, 1.0), (0.0, -0.5), static=True)
        box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
        for _ in range(120):
            world.step(DT)
        return bool(world.sleeping[box])

    assert asleep(True) and not asleep(False)


def _world_with_kinds() -> tuple[World, int, int, int, int]:
    world = World(gravity=(0.0, 0.0))
    ground = world.add_body(Polygon.box(10.0, 1.0), (0.0, -5.0), static=True)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0))
    paddle = world.add_body(Polygon.box(2.0, 0.2), (5.0, 0.0), kinematic=True)
    outline = [(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)]
    ell = world.add_compound(decompose(outline), (-5.0, 0.0))
    return world, ground, box, paddle, ell


def test_apply_forces_is_apply_force_for_many_bodies() -> None:
    world, ground, box, paddle, ell = _world_with_kinds()
    one, _, _, _, _ = _world_with_kinds()
    forces = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [-2.0, 4.0]])
    world.apply_forces([ground, box, paddle, ell], forces)
    one.apply_force(box, forces[1])
    one.apply_force(ell, forces[3])
    np.testing.assert_array_equal(world.force, one.force)
    assert world.force[ground].tolist() == [0.0, 0.0] and world.force[paddle].tolist() == [0.0, 0.0]
    world.step(DT)
    one.step(DT)
    assert world.state_hash() == one.state_hash()
    assert not world.force.any()  # the step used them up


def test_apply_forces_takes_a_mask_wakes_what_it_pushes_and_refuses_bad_input() -> None:
    world = World()
    world.add_body(Polygon.box(10.0, 1.0), (0.0, -0.5), static=True)
    box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5))
    for _ in range(120):
        world.step(DT)
    assert world.sleeping[box]
    mask = ~world.static
    world.apply_forces(mask, np.zeros((1, 2)))
    assert world.sleeping[box]  # a zero force wakes nothing
    world.apply_forces(mask, [[0.0, 30.0]])
    assert not world.sleeping[box] and world.force[box].tolist() == [0.0, 30.0]
    before = world.force.copy()
    for bodies, forces, message in (
        ([box], [[math.nan, 0.0]], "forces"),
        ([box], [[1.0, 0.0], [1.0, 0.0]], "forces"),
        ([7], [[1.0, 0.0]], "7 is no body"),
        (np.ones(3, dtype=bool), [[1.0, 0.0]], "mask"),
        ([box], [[1e12, 0.0]], "MAX_ACCELERATION"),
        ("box", [[1.0, 0.0]], "bodies"),
    ):
        with pytest.raises(ValueError, match=message):
            world.apply_forces(bodies, forces)
    np.testing.assert_array_equal(world.force, before)


def test_fixed_rotation_keeps_a_body_from_turning_and_can_be_undone() -> None:
    def spin(fixed: bool) -> tuple[float, World, int]:
        world = World(gravity=(0.0, -10.0), solver="tutorial")
        world.add_body(Polygon.box(10.0, 1.0), (0.0, -0.5), static=True)
        # Dropped corner first: it would tip over.
        box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 1.5), angle=0.3)
        world.set_fixed_rotation(box, fixed)
        for _ in range(90):
            world.step(DT)
        return float(world.angle[box]), world, box

    angle, world, box = spin(True)
    # (The tutorial solver wraps every angle each step, which can round it by an ulp.)
    assert angle == pytest.approx(0.3, abs=1e-12) and world.fixed_rotation[box] and world.inertia[box] > 0.0
    assert abs(spin(False)[0] - 0.3) > 0.1
    world.set_fixed_rotation(box, False)
    assert not world.fixed_rotation[box]
    with pytest.raises(ValueError, match="fixed = 1"):
        world.set_fixed_rotation(box, 1)


def test_read_only_views_for_drawing() -> None:
    world, ground, box, paddle, ell = _world_with_kinds()
    kinds = world.body_kind
    assert kinds.dtype == np.int8
    assert kinds[ground] == BODY_STATIC and kinds[box] == BODY_DYNAMIC and kinds[paddle] == BODY_KINEMATIC
    assert all(kinds[r] == BODY_DYNAMIC for r in world.parts(ell))
    np.testing.assert_array_equal(world.local_vertices[box, :4], world.shape(box))
    assert world.radius[box] == pytest.approx(math.sqrt(0.5))
    for view in (world.local_vertices, world.radius, world.force, world.torque, world.vertex_count):
        assert not view.flags.writeable
    assert world.local_vertices.shape == (world.body_count, 16, 2)


def _scene_with_every_path() -> World:
    world = World(gravity=(0.0, -10.0))
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.45), velocity=(1.0, -2.0))
    world.add_body(Polygon.regular(5, 0.5), (2.0, 3.0), angular_velocity=3.0)
    world.add_compound([Polygon.box(1.0, 0.3).vertices, Polygon.box(0.3, 1.0).vertices], (-3.0, 2.0))
    world.add_body(Polygon.box(2.0, 0.2), (4.0, 1.0), kinematic=True, angular_velocity=1.0)
    world.step(DT)
    return world


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_precompile_leaves_the_world_as_it_was(solver: str) -> None:
    world = _scene_with_every_path()
    world.solver = solver
    world.apply_force(1, (3.0, 4.0))
    before = world.state_hash()
    contacts = world.contacts
    for part in (None, *world.precompile_parts):
        world.precompile(part)
        assert world.state_hash() == before, part
        assert world.contacts is contacts and world.step_count == 1
    # The force applied before is still there for the step.
    reference = _scene_with_every_path()
    reference.solver = solver
    reference.apply_force(1, (3.0, 4.0))
    world.step(DT)
    reference.step(DT)
    assert world.state_hash() == reference.state_hash()


def test_precompile_names_the_parts_a_solver_has() -> None:
    world = _scene_with_every_path()
    assert world.precompile_parts == ("contacts", "response")
    with pytest.raises(
        ValueError, match=r"part = 'solve': the iterative solver's step has the parts contacts, response"
    ):
        world.precompile("solve")
    world.solver = "tutorial"
    assert world.precompile_parts == ()
    with pytest.raises(ValueError, match=r"part = 'contacts': the tutorial solver's step has no parts"):
        world.precompile("contacts")
