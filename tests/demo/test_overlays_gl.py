"""Every scene renders offscreen (not blank, constant draw calls); the overlays draw; a scene file
that breaks at run time leaves the program on the scene it had."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from demo import scenes

#: The clear colour (0.2, 0.2, 0.2) as bytes.
BACKGROUND = round(0.2 * 255)
FRAME_S = 1.0 / 60.0


def _world_pixels(app: Any) -> np.ndarray:
    """The frame's pixels below the text rows (the HUD and status lines are always drawn)."""
    pixels = np.asarray(app.ctx.read_pixels())
    return pixels[pixels.shape[0] // 5 :, :, :3]


@pytest.mark.parametrize("name", list(scenes.scene_names()))
def test_scene_renders_something(make_app: Any, name: str) -> None:
    app = make_app(scene=scenes.build_scene(name, seed=1))
    app.hide_help()  # what is left is the scene itself
    for _ in range(3):
        app.frame(FRAME_S)
        app.hide_help()
    assert app.renderer.draw_calls <= 5  # fills, lines, points, text, the static bodies' picture
    pixels = _world_pixels(app)
    drawn = np.any(np.abs(pixels.astype(int) - BACKGROUND) > 8, axis=2)
    assert drawn.mean() > 0.002, f"{name}: the frame is (almost) blank"


def test_every_overlay_draws_without_extra_draw_calls(make_app: Any) -> None:
    app = make_app(scene=scenes.build_scene("mass-ratio"))
    for _ in range(20):
        app.frame(FRAME_S)
    assert len(app.world.contacts) > 0
    calls = app.renderer.draw_calls
    lines_off = len(app.renderer.overlay.lines())
    for key in app.show:
        app.show[key] = True
    app.frame(FRAME_S)  # the legends grow the heads-up bar: the static background is redrawn once
    app.frame(FRAME_S)
    assert calls <= app.renderer.draw_calls <= 5  # overlays join the fixed batches
    overlay = app.renderer.overlay
    assert len(overlay.lines()) > lines_off
    assert len(overlay.labels()) > 0  # separations printed next to the normals


def test_overlay_keys_toggle(make_app: Any) -> None:
    app = make_app(scene=scenes.build_scene("pyramid"))
    for key, action in (("U", "push"), ("T", "toi"), ("I", "impulses"), ("C", "contacts"), ("N", "normals")):
        before = app.show[action]
        app.press(key)
        app.frame(FRAME_S)
        assert app.show[action] is not before


def test_sat_fill_turns_red_on_screen(make_app: Any) -> None:
    scene = scenes.build_scene("sat", seed=3)
    app = make_app(scene=scene)
    scene.world.position[0] = (5.0, 95.0)
    app.hide_help()  # no help text over the polygons
    app.frame(FRAME_S)

    def colour_at_b() -> np.ndarray:
        """Mean colour of a 5 x 5 pixel patch inside B, away from its label."""
        px, py = app.camera.world_to_screen(scene.world.position[1] + (0.0, -5.0))
        patch = np.asarray(app.ctx.read_pixels())[int(py) - 2 : int(py) + 3, int(px) - 2 : int(px) + 3, :3]
        return patch.reshape(-1, 3).mean(axis=0)

    green = colour_at_b()
    assert green[1] > green[0]
    scene.world.position[0] = scene.world.position[1]
    app.hide_help()
    app.frame(FRAME_S)
    red = colour_at_b()
    assert red[0] > red[1]


def test_arrow_keys_and_mouse_reach_the_scene(make_app: Any) -> None:
    scene = scenes.build_scene("swept", seed=2)
    app = make_app(scene=scene)
    before = scene.world.position[0].copy()
    app.key("RIGHT", True)
    app.frame(FRAME_S)
    app.key("RIGHT", False)
    app.frame(FRAME_S)
    assert scene.world.position[0, 0] > before[0] + 1.9
    w, h = app.ctx.window_size()
    app.cursor(w * 0.9, h * 0.1)
    app.mouse_button("MOUSE_LEFT", True)
    app.frame(FRAME_S)
    app.mouse_button("MOUSE_LEFT", False)
    assert np.allclose(scene.motion, app.cursor_world() - scene.world.position[0])


def test_reload_of_a_broken_file_keeps_the_scene(make_app: Any, tmp_path: Path) -> None:
    path = tmp_path / "live.json"
    body = {"shape": {"type": "box", "width": 1, "height": 1}, "position": [0, 2]}
    path.write_text(json.dumps({"bodies": [body]}), encoding="utf-8")
    app = make_app()
    app.load_scene(str(path))
    app.frame(FRAME_S)
    world = app.world
    path.write_text('{"bodies": [{"shape": {"type": "box"}}]}', encoding="utf-8")
    app.press("L")
    app.frame(FRAME_S)
    assert app.world is world, "the program keeps the scene it had"
    assert str(path) in app.message and "bodies[0]" in app.message
    path.write_text(json.dumps({"bodies": [body, {**body, "position": [3, 2]}]}), encoding="utf-8")
    app.press("L")
    app.frame(FRAME_S)
    assert app.world.body_count == 2 and app.message == ""


def test_every_input_in_every_scene(make_app: Any) -> None:
    """Each bound key pressed and released once, the mouse held and dragged, in every scene."""
    from demo import controls

    inputs = [name for b in controls.BINDINGS for name, _ in b.inputs]
    skip = {"ESCAPE", "TAB", "shift+TAB", "R", "SPACE", "L", "F2", "M"}  # leave, reload or write files
    app = make_app()
    for name in scenes.scene_names():
        app.load_scene(name, seed=3)
        w, h = app.ctx.window_size()
        app.cursor(w * 0.6, h * 0.4)
        for key in inputs:
            if key in skip or key.startswith("SCROLL"):
                continue
            app.key(key, True)
            app.frame(FRAME_S)
            app.key(key, False)
        app.mouse_button("MOUSE_LEFT", True, shift=True)
        app.cursor(w * 0.3, h * 0.7)
        app.frame(FRAME_S)
        app.mouse_button("MOUSE_LEFT", False)
        app.frame(FRAME_S)
        world = app.world
        assert app.scene.name == name
        for field in ("position", "angle", "velocity", "angular_velocity"):
            assert np.isfinite(getattr(world, field)).all(), (name, field)
