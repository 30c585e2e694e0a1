"""Every scene builds headless, runs 300 steps without NaN or escapes, and draws its overlay."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

from demo import controls, scenes
from demo.scenes import FrameInput

STEPS = 300


class RecordingBatch:
    """Stands in for demo.draw.batch.OverlayBatch: records what a scene draws, checking it is finite."""

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


def run(
    scene: scenes.Scene, steps: int, batch: RecordingBatch | None = None, frame: FrameInput | None = None
) -> None:
    """What the program does per step: the scene's hook with the frame's input, then the world's step."""
    frame = FrameInput() if frame is None else frame
    for _ in range(steps):
        scene.on_step(scene.dt, frame)
        scene.world.step(scene.dt)
    if batch is not None:
        scene.on_overlay(batch, frame)


def test_every_scene_in_the_catalog_has_a_builder_of_its_family() -> None:
    names = scenes.scene_names()
    assert names[0] == "rigid"
    assert set(names) == set(scenes.BUILDERS)
    for info in scenes.CATALOG:
        family = importlib.import_module(f"demo.scenes.{info.family}")
        assert info.name in family.BUILDERS, (info.name, info.family)
        assert scenes.build_scene(info.name).family == info.family


@pytest.mark.parametrize("name", scenes.scene_names())
def test_scene_runs_300_steps_in_bounds(name: str) -> None:
    scene = scenes.build_scene(name, seed=2)
    assert scene.name == name and scene.help, "each scene has its own help lines"
    batch = RecordingBatch()
    scene.on_overlay(batch, FrameInput())
    stats = scenes.run_stats(scene, STEPS)
    assert not stats["nan"]
    assert stats["escaped"] == 0
    scene.on_overlay(batch, FrameInput())


@pytest.mark.parametrize("name", ["arcade", "arcade-spin", "bullets", "laser"])
def test_player_scenes_survive_held_keys_and_firing(name: str) -> None:
    scene = scenes.build_scene(name, seed=5)
    held = frozenset({"move_right", "move_up", "attract"})
    frame = FrameInput(held, np.array([80.0, 70.0]))
    for action in held:
        scene.on_action(action, frame)
    run(scene, 200, RecordingBatch(), frame)
    stats = scenes.run_stats(scene, 100)
    assert not stats["nan"] and stats["escaped"] == 0


def _help_texts(name: str) -> list[str]:
    return [text for _, text in controls.help_rows(scenes.build_scene(name))]


def test_scene_keys_need_real_features_and_show_only_there() -> None:
    known = set(controls.WORLD_FEATURES) | set(scenes.TRAITS)
    for binding in controls.BINDINGS:
        assert set(binding.needs) <= known, (binding.label, binding.needs)
    crack = _help_texts("crack")
    assert "earliest-first ordering on / off (arcade solver)" in crack
    assert "continuous collision on / off" not in crack
    assert "continuous collision on / off" in _help_texts("bullet")
    assert "reload the scene file" in _help_texts("assets/scenes/stairs.json")
    assert "reload the scene file" in _help_texts("stairs")  # an example file by its stem
    features = {name: controls.scene_features(scenes.build_scene(name)) for name in scenes.scene_names()}
    assert "| Scenes |" in controls.controls_markdown(features).splitlines()[0]
