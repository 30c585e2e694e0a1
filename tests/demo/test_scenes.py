"""Scenes build without GL; the default scene is the original T7 demo, spawned without overlaps."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

from collision import intersect
from demo import scenes
from demo.scenes import FrameInput, arena, rigid


def _vertices(world, i: int) -> np.ndarray:
    return world.vertices(i)


def test_scenes_module_imports_without_gl() -> None:
    code = "import sys, demo.scenes; bad = [m for m in ('OpenGL', 'glfw') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_rigid_has_the_original_walls_and_pin() -> None:
    scene = scenes.build_scene("rigid", seed=3)
    world = scene.world
    assert world.body_count == 20  # the original's default count, walls and pin included
    for i, centre in enumerate([(50, -49), (50, 149), (-49, 50), (149, 50)]):
        assert world.static[i]
        assert np.allclose(world.position[i], centre)
        verts = _vertices(world, i)
        assert np.allclose(verts.max(axis=0) - verts.min(axis=0), [100, 100])
    assert world.static[4] and np.allclose(world.position[4], [50, 50])
    verts = _vertices(world, 4)
    assert np.allclose(verts.max(axis=0) - verts.min(axis=0), [1, 1])


def test_random_bodies_follow_the_original_recipe() -> None:
    counts, statics = [], []
    for seed in range(12):
        world = scenes.build_scene("rigid", seed=seed, bodies=60).world
        counts.extend(int(c) for c in world.vertex_count[5:])
        statics.extend(bool(s) for s in world.static[5:])
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    share = np.mean(statics)
    assert 0.22 < share < 0.38  # 30% static, 660 draws


@pytest.mark.parametrize("bodies", [20, 120, 999])
def test_spawns_overlap_nothing(bodies: int) -> None:
    world = scenes.build_scene("rigid", seed=1, bodies=bodies).world
    assert world.body_count == bodies
    verts = [_vertices(world, i) for i in range(world.body_count)]
    pos = world.position
    radius = np.array([np.max(np.hypot(*(v - p).T)) for v, p in zip(verts, pos, strict=True)])
    x0, y0, x1, y1 = arena.ARENA_INSIDE
    for i in range(5, world.body_count):
        assert (verts[i] >= [x0, y0]).all() and (verts[i] <= [x1, y1]).all()
    # Exact SAT on every pair whose bounding circles meet (others cannot overlap).
    for i, j in itertools.combinations(range(4, world.body_count), 2):
        if np.hypot(*(pos[i] - pos[j])) <= radius[i] + radius[j]:
            assert not intersect(verts[i], verts[j]), (i, j)


def test_same_seed_same_scene_other_seed_other_scene() -> None:
    a = scenes.build_scene("rigid", seed=7).world
    b = scenes.build_scene("rigid", seed=7).world
    c = scenes.build_scene("rigid", seed=8).world
    assert a.state_hash() == b.state_hash()
    assert np.array_equal(a.vertex_count, b.vertex_count)
    assert a.state_hash() != c.state_hash()


def test_body_count_actions_respect_the_limits() -> None:
    scene = scenes.build_scene("rigid", seed=2, bodies=6)
    world = scene.world
    assert scene.on_action("more_bodies", FrameInput()) and world.body_count == 7
    for _ in range(5):
        scene.on_action("fewer_bodies", FrameInput())
    assert world.body_count == 5  # the original's minimum: walls and pin stay
    scene.on_action("reset_count", FrameInput())
    assert world.body_count == 20
    assert not scene.on_action("pause", FrameInput())


def test_unknown_scene_lists_the_valid_names() -> None:
    with pytest.raises(ValueError, match="rigid"):
        scenes.build_scene("nope")


def test_bad_body_count_is_refused() -> None:
    with pytest.raises(ValueError, match="bodies"):
        scenes.build_scene("rigid", bodies=1000)


def test_run_stats_reports_the_promised_fields() -> None:
    scene = scenes.build_scene("rigid", seed=0)
    stats = scenes.run_stats(scene, 30)
    assert set(stats) >= {
        "scene",
        "solver",
        "bodies",
        "steps",
        "dt",
        "step_ms_median",
        "step_ms_p95",
        "contacts_max",
        "max_displacement",
        "escaped",
        "nan",
        "state_hash",
    }
    assert stats["steps"] == 30 and stats["bodies"] == 20 and stats["nan"] is False
    # Everything falls for half a second: at least g t^2 / 2 for a body in free fall.
    assert stats["max_displacement"] > 0.5 * rigid.RIGID_GRAVITY * 0.5**2 * 0.9
    assert stats["escaped"] == 0
