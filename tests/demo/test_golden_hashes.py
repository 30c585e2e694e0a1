"""Golden state hashes: every scene under every solver, run a fixed number of steps in process.

A change of any of these hashes is a change in behaviour. When it is meant (a scene rebuilt, a
physics fix), regenerate the table in the same commit and say why in its message:

    python -m tests.demo.test_golden_hashes --write

The table lives in ``golden_hashes.json`` beside this file: ``"scene/solver"`` (and
``"scene/solver/variant"`` for the solver switches) -> ``World.state_hash()`` after ``STEPS``
steps of the scene's own ``dt``, each preceded by the scene's ``on_step`` hook, as the program
runs them.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from collision import World
from demo import scenes
from demo.scenes import FrameInput

STEPS = 300
SEED = 2
SOLVERS = ("tutorial", "arcade", "iterative")
TABLE = Path(__file__).with_name("golden_hashes.json")


def _immediate(world: World) -> None:
    world.solver_settings("arcade").ordered = False


def _no_surface_rule(world: World) -> None:
    world.solver_settings("arcade").surface_rule = False


def _no_sleep(world: World) -> None:
    world.solver_settings("iterative").sleep = False


def _discrete(world: World) -> None:
    world.continuous = False


def _two_substeps_cold(world: World) -> None:
    settings = world.solver_settings("iterative")
    settings.substeps = 2
    settings.warm_start = False


#: Solver switches worth pinning too: (variant, solver, scenes, how to set it).
VARIANTS: tuple[tuple[str, str, tuple[str, ...], Callable[[World], None]], ...] = (
    ("immediate", "arcade", ("rigid", "crack", "pyramid"), _immediate),
    ("no-surface-rule", "arcade", ("crack", "pyramid"), _no_surface_rule),
    ("no-sleep", "iterative", ("arcade", "concave"), _no_sleep),
    ("discrete", "tutorial", ("rigid", "bullet"), _discrete),
    ("discrete", "arcade", ("rigid", "bullet"), _discrete),
    ("discrete", "iterative", ("rigid", "bullet", "pile"), _discrete),
    ("two-substeps-cold", "iterative", ("pyramid", "mass-ratio"), _two_substeps_cold),
)


def cases() -> list[tuple[str, str, str, Callable[[World], None] | None]]:
    """(key, scene, solver, switch) for every pinned run."""
    out: list[tuple[str, str, str, Callable[[World], None] | None]] = []
    for name in scenes.scene_names():
        for solver in SOLVERS:
            out.append((f"{name}/{solver}", name, solver, None))
    for variant, solver, names, switch in VARIANTS:
        for name in names:
            out.append((f"{name}/{solver}/{variant}", name, solver, switch))
    return out


def state_hash(name: str, solver: str, switch: Callable[[World], None] | None) -> str:
    """The hash of scene ``name`` under ``solver`` (and ``switch``) after STEPS steps."""
    scene = scenes.build_scene(name, seed=SEED)
    idle = FrameInput()  # no input: the scene's own hooks only
    scene.world.solver = solver
    if switch is not None:
        switch(scene.world)
    with warnings.catch_warnings():
        # The arcade solver warns once when a step holds more hits than it orders.
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(STEPS):
            scene.on_step(scene.dt, idle)
            scene.world.step(scene.dt)
    return scene.world.state_hash()


def _table() -> dict[str, str]:
    table: dict[str, str] = json.loads(TABLE.read_text())
    return table


def test_every_scene_and_solver_is_pinned() -> None:
    keys = [key for key, *_ in cases()]
    assert sorted(_table()) == sorted(keys), (
        "regenerate with: python -m tests.demo.test_golden_hashes --write"
    )


@pytest.mark.parametrize(("key", "name", "solver", "switch"), cases(), ids=[c[0] for c in cases()])
def test_golden_state_hash(key: str, name: str, solver: str, switch: Callable[[World], None] | None) -> None:
    expected = _table().get(key)
    assert expected is not None, f"{key}: not in {TABLE.name}"
    assert state_hash(name, solver, switch) == expected, f"{key}: the simulation changed"


def main(argv: list[str]) -> None:
    if argv != ["--write"]:
        print(__doc__)
        raise SystemExit(2)
    table = {key: state_hash(name, solver, switch) for key, name, solver, switch in cases()}
    TABLE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(table)} hashes to {TABLE}")


if __name__ == "__main__":
    main(sys.argv[1:])
