"""Each scene starts in a state that shows its point, at the original's pace where it has one,
with its turret (if any) where falling bodies do not bury it."""

from __future__ import annotations

import numpy as np
import pytest

from collision import intersect
from demo import scenes
from demo.scenes import FrameInput, engine, rigid, teaching
from tests.demo.test_scenes_all import run


@pytest.mark.parametrize("name", ["sat", "mtd"])
@pytest.mark.parametrize("seed", range(8))
def test_sat_and_mtd_start_overlapping_and_the_arrows_move_a_away(name: str, seed: int) -> None:
    scene = scenes.build_scene(name, seed=seed)
    assert intersect(scene.a, scene.b)
    # Moving A far along the line from B, with the arrows: they come apart.
    direction = scene.world.position[0] - scene.world.position[1]
    key = (
        ("move_right" if direction[0] > 0 else "move_left")
        if abs(direction[0]) > abs(direction[1])
        else ("move_up" if direction[1] > 0 else "move_down")
    )
    for _ in range(40):
        scene.on_action(key, FrameInput())
    assert not intersect(scene.a, scene.b)


def test_sat_and_mtd_first_pictures_differ_from_swept() -> None:
    sat, swept = scenes.build_scene("sat"), scenes.build_scene("swept")
    assert intersect(sat.a, sat.b) and not intersect(swept.a, swept.b)


def test_contacts_starts_spinning() -> None:
    scene = scenes.build_scene("contacts")
    before = scene.world.angle.copy()
    run(scene, 10)
    assert np.all(scene.world.angle != before)
    assert "starts off" not in " ".join(scene.help)


def test_the_default_scene_runs_at_the_originals_pace() -> None:
    scene = scenes.build_scene("rigid")
    # The original stepped 1/40 s per drawn frame under a gravity of 5 (T7 main.cpp, GameCode.cpp):
    # at 60 frames a second that is 1.5 simulated seconds a second, one step a frame.
    assert scene.dt == pytest.approx(1.0 / 40.0)
    assert scene.time_scale == pytest.approx(1.5)
    assert np.allclose(scene.world.gravity, (0.0, -5.0))
    assert scene.time_scale / 60.0 == pytest.approx(scene.dt)


def test_tumbler_walls_do_not_overlap() -> None:
    """Translucent, overlapping walls would show brighter squares at the corners: the walls'
    areas add up to the frame's, so no two share any."""
    walls = engine.tumbler_walls()
    inner, wall = engine.TUMBLER_SIZE, engine.TUMBLER_WALL
    frame = (inner + 2 * wall) ** 2 - inner**2
    areas = [teaching.polygon_area(w) for w in walls]
    assert sum(areas) == pytest.approx(frame)
    for i in range(4):
        for j in range(i + 1, 4):
            piece = teaching.clip_polygon(walls[i], walls[j])
            assert len(piece) < 3 or abs(teaching.polygon_area(piece)) < 1e-9


def test_every_friction_box_stays_in_view() -> None:
    scene = scenes.build_scene("friction")
    run(scene, 900)
    x0, y0, x1, y1 = scene.view
    for i in scene.boxes:
        x, y = scene.world.position[i]
        assert x0 < x < x1 and y0 < y < y1, (i, x, y)


@pytest.mark.parametrize("name", scenes.scene_names())
def test_no_body_buries_the_turret(name: str) -> None:
    """Run the scene a while: no moving body covers the turret's point (it would fire from
    inside one)."""
    scene = scenes.build_scene(name, seed=1, bodies=60 if name in ("pile", "tumbler") else None)
    if scene.turret is None:
        return
    run(scene, 240)
    assert not scene.world.query_point(np.asarray(scene.turret, dtype=np.float64)), name


def test_rigid_turret_is_under_the_ceiling() -> None:
    assert rigid.RIGID_TURRET[1] > 90.0
