"""The scenes: one module per family, each scene a :class:`Scene` (a World plus how to show it).

Families: rigid (the default, T7), teaching (T1-T3, T5a, T6, T9), arcade (T4, T5b), shooter
(T7b, T8), crack (seed 002), primitives (seed 001), benchmarks (demo/bench.py's scenes),
engine (what the engine adds), files (JSON scene files). demo.catalog names them in Tab
order. Importable without GL: tests and benchmarks build scenes headless.

``build_scene(name, seed, bodies)`` builds one; ``run_stats`` runs one without drawing.
"""

from __future__ import annotations

from demo import controls
from demo.catalog import BY_NAME, CATALOG, is_scene_file, resolve, scene_names, unknown_scene_message
from demo.scenes import (
    arcade,
    benchmarks,
    crack,
    engine,
    files,
    impulse,
    primitives,
    rigid,
    shooter,
    teaching,
)
from demo.scenes.base import TRAITS, Builder, FrameInput, Rect, Scene
from demo.scenes.stats import run_stats

__all__ = [
    "CATALOG",
    "TRAITS",
    "FrameInput",
    "Rect",
    "Scene",
    "build_scene",
    "check_scene_name",
    "controls_markdown",
    "describe",
    "is_scene_file",
    "run_stats",
    "scene_names",
]

#: Every built-in scene's builder by name (the family modules' BUILDERS).
BUILDERS: dict[str, Builder] = {
    **rigid.BUILDERS,
    **teaching.BUILDERS,
    **impulse.BUILDERS,
    **arcade.BUILDERS,
    **shooter.BUILDERS,
    **crack.BUILDERS,
    **primitives.BUILDERS,
    **benchmarks.BUILDERS,
    **engine.BUILDERS,
}


def describe() -> list[tuple[str, str]]:
    """(name, description) of every built-in scene, in Tab order."""
    return [(info.name, info.description) for info in CATALOG]


def check_scene_name(name: str) -> str | None:
    """None if ``name`` is a scene, an example file's stem or a loadable scene file; else the
    message to print."""
    target = resolve(name)
    if is_scene_file(target):
        try:
            files.read_scene_file(target)
        except ValueError as exc:
            return str(exc)
        return None
    if target not in BY_NAME:
        return unknown_scene_message(name)
    return None


def build_scene(name: str, seed: int = 0, bodies: int | None = None) -> Scene:
    """Build scene ``name`` (or load a scene file, by path or by an example's stem); ValueError
    if it cannot. An unknown name's message lists the valid names; a bad file's names the file
    and the field."""
    target = resolve(name)
    if is_scene_file(target):
        scene = files.load_scene_file(target, seed=int(seed))
        scene.name = name
        return scene
    if target not in BUILDERS:
        raise ValueError(unknown_scene_message(name))
    return BUILDERS[target](int(seed), bodies)


def controls_markdown() -> str:
    """The README's controls table: demo.controls' table with the scenes each row applies to,
    found by building every scene (seed 0) as the program does."""
    features = {name: controls.scene_features(build_scene(name)) for name in scene_names()}
    return controls.controls_markdown(features)
