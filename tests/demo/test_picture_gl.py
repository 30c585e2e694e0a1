"""The picture, drawn offscreen and read back: antialiased edges (the fringes, and multisampling
where it is asked for), the start-up panel, the turret and its red bullets, the legends of the
overlays that are on, the world kept below the heads-up bar, F2's path on screen."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from collision import Polygon
from demo import scenes
from tests.demo.conftest import simple_scene

BACKGROUND = 51  # (0.2, 0.2, 0.2) as bytes


def _turned_box_app(make_app: Any, angle: float = 0.3) -> Any:
    scene = simple_scene([(Polygon.box(40.0, 40.0), (50.0, 50.0), True)], turret=None)
    scene.world.angle[0] = angle
    app = make_app(scene)
    app.hide_help()
    for _ in range(3):
        app.frame(1 / 60)
    return app


def _edge_profile(app: Any, angle: float) -> np.ndarray:
    """Pixels (green channel) across the box's left edge, sampled along a row."""
    image = app.ctx.read_pixels().astype(int)
    c, s = math.cos(angle), math.sin(angle)
    edge_mid = np.array([50.0, 50.0]) + np.array([-20.0 * c, -20.0 * s])
    x, y = app.camera.world_to_screen(edge_mid)
    return image[int(y), int(x) - 6 : int(x) + 6]


def test_turned_edges_have_pixels_between_the_background_and_the_outline(make_app: Any) -> None:
    """Antialiasing is on: along a turned box's outline some pixels are part-covered, neither
    background nor outline (without it every pixel is one or the other: stair steps)."""
    app = _turned_box_app(make_app)
    assert app.renderer.target.samples >= 1
    image = app.ctx.read_pixels().astype(int)
    outline = np.array([128, 128, 255])  # the static outline 0xFF8080FF
    height, width, _ = image.shape
    top = int(app.camera.top) + 2
    region = image[top:, :]
    background = np.all(region == BACKGROUND, axis=2)
    near_outline = np.all(np.abs(region - outline) <= 12, axis=2)
    # A pixel between: brighter than the background in blue, well short of the outline's blue.
    blue = region[:, :, 2]
    between = ~background & ~near_outline & (blue > BACKGROUND + 15) & (blue < 255 - 25)
    # Only count those next to a background pixel: the edge, not the fill.
    beside = np.zeros_like(background)
    beside[:, 1:] |= background[:, :-1]
    beside[:, :-1] |= background[:, 1:]
    edge = between & beside
    assert np.count_nonzero(edge) > 40, np.count_nonzero(edge)
    assert np.count_nonzero(near_outline) > 40  # and the outline itself is there, opaque


def test_multisampling_smooths_the_edges_it_is_asked_for(make_app: Any, monkeypatch: Any) -> None:
    from demo.draw import render

    monkeypatch.setenv("POLYCOLLY_MSAA", "4")
    target = render.MultisampleTarget()
    if target.samples < 2:
        pytest.skip("this OpenGL offers no multisampling")
    app = _turned_box_app(make_app)
    app.renderer.target = target
    app.renderer.background = render.ColorTarget(target.samples)
    app.renderer._background_key = None
    app.redraw()
    app.frame(1 / 60)
    image = app.ctx.read_pixels().astype(int)
    distinct = len({tuple(p) for p in image.reshape(-1, 3)})
    assert distinct > 30  # edges resolved from 4 samples: many in-between colours


def test_startup_panel_draws_its_lines_and_bar(ctx: Any) -> None:
    from demo.draw.hud import layout_progress
    from demo.draw.render import Renderer

    renderer = Renderer()
    ctx.resize(480, 360)
    text = layout_progress(renderer.text, ["polycolly", "Compiling..."], 0.5, 480, 360)
    renderer.draw_text_only(ctx.framebuffer, 480, 360, text)
    image = ctx.read_pixels().astype(int)
    green = np.all(np.abs(image - [115, 204, 115]) <= 8, axis=2)  # PROGRESS_FILL (0.45, 0.8, 0.45)
    columns = np.flatnonzero(green.any(axis=0))
    assert len(columns) > 50
    # Half the bar is filled: the filled part ends about in the window's middle.
    assert abs(columns.max() - 0.5 * 480) < 0.1 * 480
    assert np.count_nonzero(image.max(axis=2) > 200) > 100  # the text's bright pixels


def test_a_turret_bullet_is_red_and_seen_in_flight(make_app: Any) -> None:
    scene = simple_scene([(Polygon.box(10.0, 10.0), (50.0, 80.0), False)], turret=(50.0, 5.0))
    app = make_app(scene)
    app.hide_help()
    x, y = app.camera.world_to_screen(np.array([50.0, 80.0]))
    app.cursor(x, y)
    app.key("X", True)
    app.frame(1 / 60)
    app.key("X", False)
    for _ in range(6):
        app.frame(1 / 60)
    (bullet,) = app.projectiles
    image = app.ctx.read_pixels().astype(int)
    bx, by = app.camera.world_to_screen(bullet.position)
    patch = image[int(by) - 3 : int(by) + 4, int(bx) - 3 : int(bx) + 4]
    red = (patch[:, :, 0] > 180) & (patch[:, :, 1] < 80) & (patch[:, :, 2] < 80)
    assert np.count_nonzero(red) >= 4


def test_the_world_is_drawn_below_the_heads_up_bar(make_app: Any) -> None:
    app = make_app(scenes.build_scene("rigid", seed=1))
    app.frame(1 / 60)
    top = app.camera.top
    assert top >= app.renderer.atlas.line_height
    _, y = app.camera.world_to_screen(np.array([50.0, 100.0]))  # the arena's top
    assert y >= top - 1e-6
    assert app.hud_panels["top"][3] <= top + 1e-6


def test_each_overlay_that_is_on_has_a_legend_line(make_app: Any) -> None:
    app = make_app(scenes.build_scene("mass-ratio"))
    for _ in range(10):
        app.frame(1 / 60)
    assert app.legend == []
    keys = {"C": "contact points", "N": "normals", "U": "push vectors", "T": "ghosts", "I": "impulses"}
    keys.update({"B": "bounding boxes", "V": "velocities"})
    for key in keys:
        app.press(key)
    app.frame(1 / 60)
    legend = [" ".join(text for text, _ in line) for line in app.legend]
    for key, words in keys.items():
        assert any(line.startswith(key.lower()) and words in line for line in legend), (key, legend)
    assert any("from B toward A" in line for line in legend)


def test_impulse_arrows_stay_inside_the_view(make_app: Any) -> None:
    app = make_app(scenes.build_scene("mass-ratio"))
    app.press("I")
    for _ in range(30):
        app.frame(1 / 60)
    contacts = app.world.contacts
    assert len(contacts)
    scale = app.impulse_scale
    longest = float(np.abs(contacts.normal_impulse).max()) * scale
    x0, y0, x1, y1 = app.scene.view
    assert 0.0 < longest <= 0.12 * (y1 - y0) + 1e-9
    legend = " ".join(text for line in app.legend for text, _ in line)
    assert "1 unit of arrow" in legend


def test_f2_saves_into_its_folder_and_says_where_on_screen(make_app: Any, tmp_path: Path) -> None:
    app = make_app(simple_scene([(Polygon.box(10.0, 10.0), (50.0, 50.0), False)]))
    app.press("F2")
    app.frame(1 / 60)
    (path,) = app.screenshots
    assert path.parent == tmp_path and path.is_file()
    assert str(path) in app.message
    app.frame(1 / 60)
    assert "message" in app.hud_panels  # on screen, at the bottom
