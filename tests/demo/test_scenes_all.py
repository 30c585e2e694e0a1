"""Every scene builds headless, runs 300 steps without NaN or escapes, and draws its overlay."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from demo import scenes

STEPS = 300


class RecordingBatch:
    """Stands in for demo.render.LineBatch (which needs OpenGL): records what a scene draws."""

    def __init__(self) -> None:
        self.lines: list[np.ndarray] = []
        self.points: list[np.ndarray] = []
        self.polygons: list[np.ndarray] = []
        self.arrows: list[tuple[np.ndarray, np.ndarray]] = []
        self.texts: list[tuple[str, np.ndarray]] = []

    def add_lines(self, segments: Any, color: Any) -> None:
        segments = np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2)
        assert np.isfinite(segments).all()
        self.lines.append(segments)

    def add_points(self, points: Any, color: Any) -> None:
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        assert np.isfinite(points).all()
        self.points.append(points)

    def add_polygon(self, vertices: Any, fill: Any, outline: Any = None) -> None:
        v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
        assert np.isfinite(v).all()
        self.polygons.append(v)

    def add_arrows(self, start: Any, end: Any, color: Any) -> None:
        s = np.asarray(start, dtype=np.float64).reshape(-1, 2)
        e = np.asarray(end, dtype=np.float64).reshape(-1, 2)
        assert np.isfinite(s).all() and np.isfinite(e).all()
        self.arrows.append((s, e))

    def add_boxes(self, lo: Any, hi: Any, color: Any) -> None:
        pass

    def add_text(self, text: str, point: Any, color: Any) -> None:
        self.texts.append((str(text), np.asarray(point, dtype=np.float64)))


def run(scene: scenes.Scene, steps: int, batch: RecordingBatch | None = None) -> None:
    """What the program does per step: the scene's hook, then the world's step."""
    for _ in range(steps):
        if scene.on_step is not None:
            scene.on_step(scene, scene.dt)
        scene.world.step(scene.dt)
    if batch is not None and scene.on_overlay is not None:
        scene.on_overlay(scene, batch)


def test_every_issue_scene_is_registered_in_tab_order() -> None:
    names = scenes.scene_names()
    assert names == list(scenes.SCENE_ORDER)
    assert names[0] == "rigid"


@pytest.mark.parametrize("name", list(scenes.SCENE_ORDER))
def test_scene_runs_300_steps_in_bounds(name: str) -> None:
    scene = scenes.build_scene(name, seed=2)
    assert scene.name == name and scene.help, "each scene has its own help lines"
    batch = RecordingBatch()
    if scene.on_overlay is not None:
        scene.on_overlay(scene, batch)
    stats = scenes.run_stats(scene, STEPS)
    assert not stats["nan"]
    assert stats["escaped"] == 0
    if scene.on_overlay is not None:
        scene.on_overlay(scene, batch)


@pytest.mark.parametrize("name", ["arcade", "arcade-spin", "bullets", "laser"])
def test_player_scenes_survive_held_keys_and_firing(name: str) -> None:
    scene = scenes.build_scene(name, seed=5)
    scene.cursor = np.array([80.0, 70.0])
    for action in ("move_right", "move_up", "attract"):
        scene.held.add(action)
        if scene.on_action is not None:
            scene.on_action(scene, action)
    run(scene, 200, RecordingBatch())
    scene.held.clear()
    stats = scenes.run_stats(scene, 100)
    assert not stats["nan"] and stats["escaped"] == 0


def test_scene_keys_name_real_scenes_and_show_only_there() -> None:
    from demo import controls

    names = set(scenes.scene_names())
    for binding in controls.BINDINGS:
        for scope in binding.scenes:
            assert scope in names or scope == "*.json", (binding.label, scope)
    crack = [text for _, text in controls.help_rows("crack")]
    assert "earliest-first ordering on / off" in crack
    assert "continuous collision on / off" not in crack
    assert "continuous collision on / off" in [text for _, text in controls.help_rows("bullet")]
    assert "reload the scene file" in [text for _, text in controls.help_rows("assets/scenes/stairs.json")]
    assert "| Scenes |" in controls.controls_markdown().splitlines()[0]
