"""The scenes by name, in Tab order, with their family module (demo.scenes.<family>), one line
each, and what the command line's options do with them.

Importing this module imports neither the engine nor OpenGL, so the command line can check a
scene name (and list the scenes) before anything slow happens; the builders are in the family
modules, which a test checks against this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from demo import resources
from demo.safeio import shorten


@dataclass(frozen=True)
class SceneInfo:
    """A scene: its ``name``, ``family`` (module), one line; what the command line's options do
    with it: ``random``: built at random from ``--seed``; ``counted``: ``--bodies`` sets its
    body count; ``solved``: it has moving bodies, so ``--solver`` (and `m`) apply."""

    name: str
    family: str
    description: str
    random: bool = False
    counted: bool = False
    solved: bool = True


#: Tab order: the default, the original programs, the seeds, then the engine's scenes.
CATALOG: tuple[SceneInfo, ...] = (
    SceneInfo(
        "rigid",
        "rigid",
        "the original rigid-body demo (T7): walls, a pin, random bodies, attract and repel",
        random=True,
        counted=True,
    ),
    SceneInfo(
        "sat",
        "teaching",
        "T1: every edge normal as an axis with both shadows on it; the first gap proves them apart",
        random=True,
        solved=False,
    ),
    SceneInfo(
        "mtd",
        "teaching",
        "T2: the push vector of every overlapping axis, the shortest one the MTD; Enter separates",
        random=True,
        solved=False,
    ),
    SceneInfo(
        "swept",
        "teaching",
        "T3: A launched at B; each axis's time window, the latest entry and earliest exit, the ghost",
        random=True,
        solved=False,
    ),
    SceneInfo(
        "rotation",
        "teaching",
        "T5a: the swept test's time windows while both polygons spin ('a' toggles the spin)",
        random=True,
        solved=False,
    ),
    SceneInfo(
        "contacts",
        "teaching",
        "T6: the support points along the normal and the contact pairs made of them",
        random=True,
        solved=False,
    ),
    SceneInfo(
        "impulse",
        "impulse",
        "T7 / seed 004: a contact's impulse under the tutorial solver, each term with its numbers",
    ),
    SceneInfo(
        "arcade",
        "arcade",
        "T4: a player box, random bodies (70% static), the arcade response on the digit keys",
        random=True,
    ),
    SceneInfo(
        "arcade-spin", "arcade", "T5b: the arcade scene with every body spinning at a fixed rate", random=True
    ),
    SceneInfo(
        "bullets",
        "shooter",
        "T7b: the player fires bullet particles at the cursor; a bullet dies after more than 5 hits",
        random=True,
    ),
    SceneInfo(
        "laser",
        "shooter",
        "T8: the player fires a laser at the cursor; it stops at the first body and pushes it",
        random=True,
    ),
    SceneInfo(
        "clipping",
        "teaching",
        "T9: two convex polygons and their intersection polygon (Sutherland-Hodgman)",
        random=True,
        solved=False,
    ),
    SceneInfo(
        "crack",
        "crack",
        "seed 002: a box sliding along flush boxes; its last step's hits in time order, the rule's choice",
    ),
    SceneInfo(
        "primitives",
        "primitives",
        "seed 001: point, line, segment, circle, rectangles, polygon; drag them, red collides",
        solved=False,
    ),
    SceneInfo(
        "pyramid", "benchmarks", "20 rows of 1 x 1 m boxes on the ground (210 boxes): the stacking benchmark"
    ),
    SceneInfo(
        "pile",
        "benchmarks",
        "1000 random convex polygons dropped into a 40 m wide container: the benchmark",
        counted=True,
    ),
    SceneInfo(
        "bullet",
        "benchmarks",
        "a 0.1 m box at 500 m/s at a 0.1 m wall: stopped with continuous collision, not without",
    ),
    SceneInfo(
        "restitution",
        "engine",
        "a row of boxes with restitution 0 to 1 dropped together: higher bounces higher",
    ),
    SceneInfo(
        "friction", "engine", "boxes on 30 degree ramps with friction 0 to 0.8: those at 0.6 and 0.8 stay put"
    ),
    SceneInfo("mass-ratio", "engine", "a box 400 times heavier resting on a light one: the stack must hold"),
    SceneInfo(
        "concave",
        "engine",
        "concave outlines split by decompose() into convex pieces, each one compound body",
    ),
    SceneInfo(
        "tumbler",
        "engine",
        "a slowly turning box full of bodies (one kinematic compound body of four walls)",
        random=True,
        counted=True,
    ),
)

BY_NAME = {info.name: info for info in CATALOG}


def scene_names() -> list[str]:
    """Every built-in scene name, the default first, in Tab order."""
    return [info.name for info in CATALOG]


def is_scene_file(name: str) -> bool:
    """Whether ``--scene`` names a JSON scene file (a path ending in .json) rather than a scene."""
    return name.lower().endswith(".json")


def example_stems() -> list[str]:
    """The example scene files that come with the program, by stem ("dominoes", ...)."""
    return [name[: -len(".json")] for name in resources.example_scenes()]


def resolve(name: str) -> str:
    """``name`` as the program builds it: a scene name, or a scene file.

    A built-in scene name stays as it is; an example file's stem ("dominoes") becomes its file
    name ("dominoes.json", which demo.scenes.files finds among the examples); anything else is
    returned unchanged (and refused later with a message listing the names).
    """
    if name in BY_NAME or is_scene_file(name):
        return name
    return f"{name}.json" if name in example_stems() else name


def unknown_scene_message(name: str) -> str:
    files = ", ".join(example_stems())
    tail = f"; example files: {files}" if files else ""
    names = ", ".join(scene_names())
    return f"unknown scene {shorten(name)}; valid scenes: {names}{tail} (or a scene file NAME.json)"
