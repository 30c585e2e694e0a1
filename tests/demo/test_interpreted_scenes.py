"""Every scene a first run may show on the interpreted engine (demo.loading.INTERPRETED_MAX_BODIES
bodies or fewer) runs interpreted to the golden state hash of its compiled run: the same
STEPS steps with its own solver end bit for bit where the compiled engine ends."""

from __future__ import annotations

import pytest

from collision import interpreter
from collision.solvers import iterative
from demo import scenes
from demo.loading import INTERPRETED_MAX_BODIES
from tests.demo.test_golden_hashes import SEED, _table, state_hash

SMALL = [
    name
    for name in scenes.scene_names()
    if scenes.build_scene(name, seed=SEED).world.body_count <= INTERPRETED_MAX_BODIES
]


def test_most_scenes_are_small_enough_to_run_interpreted() -> None:
    assert len(SMALL) >= len(scenes.scene_names()) - 3
    assert "rigid" in SMALL and "pile" not in SMALL


@pytest.mark.parametrize("name", SMALL)
def test_an_interpreted_scene_ends_where_the_compiled_one_does(name: str) -> None:
    solver = scenes.build_scene(name, seed=SEED).world.solver
    interpreter.install()
    try:
        assert isinstance(iterative.iterative_step, interpreter.Switch), "the kernels are not switched"
        interpreted = state_hash(name, solver, None)
    finally:
        interpreter.uninstall()
    assert interpreted == _table()[f"{name}/{solver}"]
