"""A window's program leaves out frames that would look the same as the one on the screen: at
rest and without input it neither builds nor draws them; anything that changes the picture (a
body moving, the cursor, a key, the help, a resize) brings the frames back. Offscreen frames
read back."""

from __future__ import annotations

from typing import Any

import numpy as np

from collision import Polygon
from tests.demo.conftest import simple_scene


def _at_rest(make_app: Any) -> Any:
    """A static box and a free box at rest (no gravity, asleep after 2 s), the help gone."""
    scene = simple_scene(
        [(Polygon.box(20, 20), (30.0, 50.0), True), (Polygon.box(10, 10), (70.0, 50.0), False)]
    )
    app = make_app(scene)
    app.skip_unchanged = True
    app.hide_help()
    for _ in range(120):
        app.frame(1 / 60)
    assert app.world.sleeping[1]
    return app


def _built(app: Any, frames: int) -> tuple[int, int]:
    """Run ``frames`` frames: (how many were built, how many drawn)."""
    built, drawn = len(app.profile["draw_build_ms"]), 0
    for _ in range(frames):
        app.frame(1 / 60)
        drawn += bool(app.drawn)
    return len(app.profile["draw_build_ms"]) - built, drawn


def test_a_scene_at_rest_is_neither_built_nor_drawn(make_app: Any) -> None:
    app = _at_rest(make_app)
    shown = app.ctx.read_pixels()
    # Past the heads-up figures' refresh (every 15 frames): they do not bring frames back.
    assert _built(app, 60) == (0, 0)
    app.press("F2")  # the screenshot is read from the frame drawn for it, though it is the same
    app.hud_figures = (app.frame_count, *app.hud_figures[1:])  # (not refreshed in that frame)
    assert _built(app, 1) == (1, 1)
    assert len(app.screenshots) == 1
    _built(app, 1)  # the message saying where it went
    app.hide_help()
    app.message = ""
    _built(app, 2)
    assert _built(app, 10) == (0, 0)
    app.redraw()  # the window's picture was lost: it is drawn again, the same below the bar
    assert _built(app, 1) == (1, 1)
    below = int(np.ceil(app.camera.top))  # the bar's figures (fps, ms/step) are refreshed
    assert np.array_equal(app.ctx.read_pixels()[below:], shown[below:])


def test_what_changes_the_picture_brings_frames_back(make_app: Any) -> None:
    app = _at_rest(make_app)
    before = app.ctx.read_pixels()
    app.world.set_velocity(1, (30.0, 0.0))  # the free box moves: every frame is drawn
    built, drawn = _built(app, 10)
    assert built == drawn == 10
    assert not np.array_equal(app.ctx.read_pixels(), before)
    app.world.set_velocity(1, (0.0, 0.0))
    for _ in range(300):  # until it is asleep again (falling asleep changes its colour)
        app.frame(1 / 60)
        if app.world.sleeping[1]:
            break
    _built(app, 2)
    assert _built(app, 10) == (0, 0)
    app.cursor(100.0, 100.0)  # input: the frame is built (the turret turns toward the cursor)
    assert _built(app, 1) == (1, 1)
    built, drawn = _built(app, 10)  # the heads-up figures refreshed with it: built once more
    assert built <= 1 and drawn == 0
    assert _built(app, 10) == (0, 0)
    app.show_help()
    built, drawn = _built(app, 1)
    assert built == drawn == 1
    app.ctx.resize(240, 200)
    built, drawn = _built(app, 1)
    assert built == drawn == 1
    assert app.ctx.read_pixels().shape == (200, 240, 3)
