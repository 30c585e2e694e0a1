"""The turret is drawn only in the scenes that have one (read back from an offscreen frame), and
the window's help and stats show what the scene's inputs do there."""

from __future__ import annotations

from typing import Any

import numpy as np

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
