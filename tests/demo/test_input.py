"""Input handlers driven with synthetic events; the world is checked, not the code."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from collision import Polygon
from tests.demo.conftest import simple_scene


def _aim(app: Any, point: tuple[float, float]) -> None:
    """Put the cursor over world ``point`` (window coordinates = framebuffer pixels offscreen)."""
    x, y = app.camera.world_to_screen(np.array(point, dtype=float))
    app.cursor(x, y)


def _one_box(position: tuple[float, float] = (50.0, 50.0), size: float = 4.0) -> Any:
    return simple_scene([(Polygon.box(size, size), position, False)])


def test_attraction_brings_a_body_closer(make_app: Any) -> None:
    app = make_app(_one_box())
    target = np.array([85.0, 50.0])  # 35 units: beyond the original's 25, full strength
    _aim(app, tuple(target))
    app.mouse_button("MOUSE_LEFT", True)
    for _ in range(30):
        app.frame(1 / 60)
    distance = np.hypot(*(app.world.position[0] - target))
    assert distance < 35.0 - 1.0
    # Half a second of 500 force units on a mass of 16 (a 4 x 4 box, density 1): a t^2 / 2.
    assert 35.0 - distance == pytest.approx(0.5 * 500 / 16 * 0.5**2, rel=0.15)
    app.mouse_button("MOUSE_LEFT", False)
    speed = np.hypot(*app.world.velocity[0])
    app.frame(1 / 60)
    assert np.hypot(*app.world.velocity[0]) == pytest.approx(speed)  # released: no more force


def test_attraction_has_the_original_dead_zone(make_app: Any) -> None:
    app = make_app(_one_box())
    _aim(app, (55.0, 50.0))  # 5 units away: within the dead zone, no pull
    app.mouse_button("MOUSE_LEFT", True)
    for _ in range(10):
        app.frame(1 / 60)
    assert np.allclose(app.world.position[0], [50.0, 50.0])


def test_repulsion_pushes_a_body_away(make_app: Any) -> None:
    app = make_app(_one_box())
    _aim(app, (55.0, 50.0))
    app.mouse_button("MOUSE_RIGHT", True)
    for _ in range(20):
        app.frame(1 / 60)
    pos = app.world.position[0]
    assert pos[0] < 50.0 - 1.0 and abs(pos[1] - 50.0) < 1e-6


def test_static_bodies_ignore_the_mouse(make_app: Any) -> None:
    app = make_app(simple_scene([(Polygon.box(4, 4), (50.0, 50.0), True)]))
    _aim(app, (85.0, 50.0))
    app.mouse_button("MOUSE_LEFT", True)
    for _ in range(10):
        app.frame(1 / 60)
    assert np.array_equal(app.world.position[0], [50.0, 50.0])


def test_pause_stops_time_and_o_steps_exactly_once(make_app: Any) -> None:
    app = make_app()  # the rigid scene, under gravity
    app.frame(1 / 60)
    app.press("P")
    app.frame(1 / 60)
    steps, state = app.world.step_count, app.world.state_hash()
    for _ in range(10):
        app.frame(1 / 60)
    assert app.world.step_count == steps and app.world.state_hash() == state
    app.press("O")
    app.frame(1 / 60)
    assert app.world.step_count == steps + 1 and app.world.state_hash() != state
    for _ in range(5):
        app.frame(1 / 60)
    assert app.world.step_count == steps + 1
    app.press("P")
    app.frame(1 / 60)
    assert app.world.step_count == steps + 2


def test_o_does_nothing_while_running(make_app: Any) -> None:
    app = make_app()
    app.frame(1 / 60)
    steps = app.world.step_count
    app.press("O")
    app.frame(1 / 60)
    assert app.world.step_count == steps + 1  # the frame's own step only


def test_frames_step_in_real_time(make_app: Any) -> None:
    app = make_app()
    app.frame(0.1)  # 6 steps of 1/60 s, capped at 5 per frame
    assert app.world.step_count == 5
    app.frame(1 / 120)
    app.frame(1 / 120)
    assert app.world.step_count == 6


def test_g_toggles_gravity(make_app: Any) -> None:
    app = make_app()
    g = app.world.gravity
    assert g[1] < 0
    app.press("G")
    app.frame(1 / 60)
    assert np.array_equal(app.world.gravity, [0.0, 0.0])
    app.press("G")
    app.frame(1 / 60)
    assert np.array_equal(app.world.gravity, g)


def test_plus_adds_a_body_and_minus_removes_one(make_app: Any) -> None:
    app = make_app()
    assert app.world.body_count == 20
    app.press("EQUAL", shift=True)
    app.frame(1 / 60)
    assert app.world.body_count == 21
    app.press("KP_SUBTRACT")
    app.press("MINUS")
    app.frame(1 / 60)
    assert app.world.body_count == 19
    app.press("ENTER")
    app.frame(1 / 60)
    assert app.world.body_count == 20


def test_material_keys_step_and_clamp(make_app: Any) -> None:
    app = make_app()
    friction = app.friction
    app.press("7")
    app.frame(1 / 60)
    assert app.friction == pytest.approx(friction + 0.05)
    assert np.allclose(app.world.body_friction, friction + 0.05)
    for _ in range(40):
        app.press("9")
    app.frame(1 / 60)
    assert app.static_friction == pytest.approx(0.9)  # 0.5 + 40 * 0.01
    for _ in range(30):
        app.press("8")
    app.frame(1 / 60)
    assert app.restitution == 1.0  # clamped to the original's [0, 1]
    app.press("F")
    app.frame(1 / 60)
    assert np.allclose(app.world.body_friction, 0.0)
    app.press("S")
    app.frame(1 / 60)
    assert np.allclose(app.world.body_static_friction, 0.0)
    app.press("S")
    app.frame(1 / 60)
    assert np.allclose(app.world.body_static_friction, 0.9)


def test_m_cycles_the_solver(make_app: Any) -> None:
    app = make_app(solver="tutorial")
    seen = []
    for _ in range(3):
        app.press("M")
        app.frame(1 / 60)
        seen.append(app.world.solver)
    assert seen == ["iterative", "arcade", "tutorial"]
    assert "solver tutorial" in app.hud_line()


def test_m_changes_only_this_scenes_solver_and_each_scene_keeps_its_own(make_app: Any) -> None:
    from demo import scenes

    app = make_app()
    own = {name: scenes.build_scene(name).world.solver for name in scenes.scene_names()}
    assert own["rigid"] == "iterative" and own["crack"] == own["arcade"] == "arcade"
    for _ in range(2):  # m twice in rigid: iterative -> arcade -> tutorial
        app.press("M")
        app.frame(1 / 60)
    assert app.world.solver == "tutorial"
    for name in scenes.scene_names()[1:]:  # Tab through every other scene: each has its own solver
        app.press("TAB")
        app.frame(1 / 60)
        assert app.scene.name == name
        assert app.world.solver == own[name], name
        if "solver" in app.features:
            assert f"solver {own[name]}" in app.hud_line(), name
    app.press("TAB")  # back round to rigid: the solver chosen there is kept for the run
    app.frame(1 / 60)
    assert app.scene.name == "rigid" and app.world.solver == "tutorial"
    app.press("R")  # and so is it across a restart
    app.frame(1 / 60)
    assert app.world.solver == "tutorial"


def _frames(app: Any, seconds: float) -> None:
    for _ in range(round(seconds * 60)):
        app.frame(1 / 60)


def test_x_hits_the_body_under_the_line_and_spins_it(make_app: Any) -> None:
    # A 10 x 10 box at (50, 50); the turret at (50, 5) aims right of the centre of its bottom face.
    app = make_app(_one_box(size=10.0))
    _aim(app, (54.0, 50.0))
    app.key("X", True)
    app.frame(1 / 60)
    app.key("X", False)
    assert len(app.projectiles) == 1  # a bullet in flight, seen before it hits
    for _ in range(60):
        app.frame(1 / 60)
        if not app.projectiles:
            break
    world = app.world
    assert world.velocity[0, 1] > 0.0  # pushed away from the turret
    assert world.angular_velocity[0] > 0.0  # hit right of the centre, pushed up: counter-clockwise
    (flash,) = app.flashes
    assert flash.point[1] == pytest.approx(45.0, abs=0.05)  # the bullet stopped where it entered the box
    assert flash.point[0] == pytest.approx(50.0 + 4.0 * 40.0 / 45.0, abs=0.05)


def test_x_misses_when_nothing_is_under_the_line(make_app: Any) -> None:
    app = make_app(_one_box(position=(80.0, 80.0)))
    _aim(app, (20.0, 50.0))
    app.key("X", True)
    app.frame(1 / 60)
    app.key("X", False)
    assert len(app.projectiles) == 1
    _frames(app, 1.0)
    assert np.array_equal(app.world.velocity[0], [0.0, 0.0])
    assert app.flashes == []


def test_held_x_repeats(make_app: Any) -> None:
    app = make_app(_one_box(size=10.0))
    _aim(app, (54.0, 50.0))
    app.key("X", True)
    fired = 0
    for _ in range(30):  # half a second: the first shot, then one every 0.2 s
        before = len(app.projectiles)
        app.frame(1 / 60)
        fired += max(len(app.projectiles) - before, 0) + 0
    assert fired >= 2
    _frames(app, 0.5)
    assert app.world.angular_velocity[0] > 0.0


def test_wheel_zooms_about_the_cursor_and_home_resets(make_app: Any) -> None:
    app = make_app()
    _aim(app, (30.0, 70.0))
    app.frame(1 / 60)
    before = app.cursor_world()
    app.scroll(1.0)
    app.frame(1 / 60)
    assert app.camera.zoom > 1.0
    assert np.allclose(app.cursor_world(), before)
    app.press("HOME")
    app.frame(1 / 60)
    assert app.camera.zoom == 1.0


def test_middle_drag_pans(make_app: Any) -> None:
    app = make_app()
    app.cursor(100, 100)
    app.frame(1 / 60)
    grabbed = app.cursor_world()
    app.mouse_button("MOUSE_MIDDLE", True)
    app.cursor(140, 80)
    app.mouse_button("MOUSE_MIDDLE", False)
    app.frame(1 / 60)
    assert np.allclose(app.cursor_world(), grabbed)


def test_space_regenerates_and_r_restarts(make_app: Any) -> None:
    app = make_app()
    first = app.world.state_hash()
    app.press("P")  # paused: the hashes below are the freshly built worlds
    app.press("SPACE")
    app.frame(1 / 60)
    regenerated = app.world.state_hash()
    assert app.world.step_count == 0 and app.world.body_count == 20
    assert regenerated != first
    app.press("O")
    app.frame(1 / 60)
    assert app.world.state_hash() != regenerated
    app.press("R")
    app.frame(1 / 60)
    assert app.world.state_hash() == regenerated


def test_tab_moves_through_the_scenes(make_app: Any) -> None:
    from demo import scenes

    names = scenes.scene_names()
    app = make_app()
    app.press("TAB")
    app.frame(1 / 60)
    assert app.scene.name == names[1 % len(names)]
    app.press("TAB", shift=True)
    app.frame(1 / 60)
    assert app.scene.name == "rigid"


def test_escape_quits(make_app: Any) -> None:
    app = make_app()
    app.press("ESCAPE")
    app.frame(1 / 60)
    assert not app.running


def test_input_restarts_the_idle_clock_and_a_held_button_keeps_it_at_zero(make_app: Any) -> None:
    """The window loop paces a scene left alone at the idle rate (demo.run.IDLE_AFTER_S): a frame
    with a key press, or anything held (the attracting mouse), is input; nothing else is."""
    import time

    def input_in_next_frame() -> bool:
        """One frame; whether the idle clock restarted in it."""
        began = time.perf_counter()
        app.frame(1 / 60)
        return app.seconds_without_input() <= time.perf_counter() - began

    app = make_app(_one_box())
    for _ in range(3):
        app.frame(1 / 60)
    assert app.seconds_without_input() == float("inf")  # no input since the program started
    app.press("G")
    assert input_in_next_frame()
    app.mouse_button("MOUSE_LEFT", True)
    assert all(input_in_next_frame() for _ in range(5))  # each frame while held is input again
    app.mouse_button("MOUSE_LEFT", False)
    assert input_in_next_frame()  # the release is an event
    before = app.seconds_without_input()
    assert not input_in_next_frame()  # nothing held, nothing pressed: the clock runs on
    assert app.seconds_without_input() > before
