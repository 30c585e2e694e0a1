"""The turret is drawn only in the scenes that have one (read back from an offscreen frame), and
the window's help and stats show what the scene's inputs do there."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from demo import scenes
from demo.draw.palette import TURRET as TURRET_COLOR

FRAME_S = 1.0 / 60.0
#: The turret is drawn in TURRET_COLOR (near white); fills and outlines of bodies are not that bright.
NEAR = 20


def turret_pixels(app: Any, base: tuple[float, float]) -> int:
    """Pixels of the turret's colour in a 9 x 9 patch centred on the world point ``base``."""
    app.hide_help()  # nothing but the scene is drawn
    app.frame(FRAME_S)
    px, py = (int(round(v)) for v in app.camera.world_to_screen(np.asarray(base, dtype=np.float64)))
    patch = np.asarray(app.ctx.read_pixels())[py - 4 : py + 5, px - 4 : px + 5, :3].astype(int)
    want = np.array([round(c * 255) for c in TURRET_COLOR[:3]])
    return int(np.count_nonzero(np.all(np.abs(patch - want) <= NEAR, axis=2)))


def test_rigid_draws_its_turret_and_sat_has_none(make_app: Any) -> None:
    rigid = scenes.build_scene("rigid", seed=1)
    assert rigid.turret is not None
    app = make_app(scene=rigid)
    assert turret_pixels(app, rigid.turret) >= 5

    sat = scenes.build_scene("sat", seed=1)
    assert sat.turret is None
    # Where a turret would stand in sat (the middle of the floor, as in rigid): nothing white...
    spot = (0.5 * (sat.view[0] + sat.view[2]), sat.view[1] + 2.5)
    app.use_scene(sat)
    assert turret_pixels(app, spot) == 0
    # ...and the same read finds one when the scene has a turret there: the check can see it.
    sat.turret = spot
    app.use_scene(sat)
    assert turret_pixels(app, spot) >= 5


def test_x_fires_nothing_in_a_scene_without_a_turret(make_app: Any) -> None:
    app = make_app(scene=scenes.build_scene("sat", seed=1))
    app.key("X", True)
    app.frame(0.5)
    app.key("X", False)
    app.frame(FRAME_S)
    assert app.projectiles == [] and "fire" not in app.held


def test_help_and_stats_follow_the_scene(make_app: Any) -> None:
    app = make_app(scene=scenes.build_scene("swept", seed=1))
    rows = app.help_rows()
    assert ("left mouse", "set A's motion toward the cursor") in rows
    assert not any("attract" in text or "repel" in text for _, text in rows)
    assert not any(line.startswith(("Gravity", "Friction", "Dyn.Fric.")) for line in app.stats_lines())
    app.show_help()
    app.frame(FRAME_S)  # the help is drawn with the scene's rows

    app.load_scene("rigid", seed=1)
    rows = app.help_rows()
    assert ("left mouse", "attract bodies to the cursor (held)") in rows
    assert any(line.startswith("Gravity") for line in app.stats_lines())
    assert any(line.startswith("Dyn.Fric.") for line in app.stats_lines())


def _rects_overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("name", ["rigid", "pyramid", "mass-ratio"])
def test_the_turrets_name_never_covers_the_turret(make_app: Any, name: str) -> None:
    """The name is laid out in pixels beside the hub, away from the barrel: aimed anywhere
    around it, the name's box (its text's width, a line high) misses the hub and the barrel
    and is in the picture, below the top bar (rigid's turret hangs just under it)."""
    from demo.draw.overlays import turret_shapes

    app = make_app(scene=scenes.build_scene(name, seed=1))
    app.ctx.resize(640, 480)
    app.hide_help()
    app.frame(FRAME_S)
    atlas = app.renderer.text.atlas
    cx, cy = app.camera.world_to_screen(np.asarray(app.scene.turret, dtype=np.float64))
    for angle in np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False):
        app.cursor(cx + 150.0 * np.cos(angle), cy - 150.0 * np.sin(angle))
        app.frame(FRAME_S)
        hub, barrel, _ = turret_shapes(app.scene, app.cursor_world())
        drawn = np.array([app.camera.world_to_screen(p) for p in np.vstack([hub, barrel])])
        turret = (*drawn.min(axis=0), *drawn.max(axis=0))
        (label,) = [(x, y) for text, x, y, _ in app.labels() if text == "turret (x)"]
        box = (label[0], label[1], label[0] + atlas.text_width("turret (x)"), label[1] + atlas.line_height)
        assert not _rects_overlap(box, turret), (name, round(float(angle), 2), box, turret)
        assert box[0] >= 0 and box[2] <= 640 and box[1] >= app.camera.top and box[3] <= 480, box
