"""Each scene's help lists exactly the inputs that do something there, saying what they do there.

Without OpenGL: every action of the controls table is carried out in every scene on a
:class:`demo.actions.Simulation` and the outcome compared with the same scene left alone for the
same time. An action the scene's help lists must change something (the world, the program's
switches, the scene's own state); an action it does not list must change nothing at all.
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from demo import controls, scenes
from demo.actions import Simulation
from demo.scenes.base import shot_radius

ROOT = Path(__file__).resolve().parents[2]
SCENE_FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "assets" / "scenes").glob("*.json"))
#: Smaller versions of the big scenes (the same features, fewer bodies to step).
BODIES = {"pile": 60, "tumbler": 12}
#: Actions only the window program carries out (demo.app.App: the window, the view, files).
WINDOW_ACTIONS = {"quit", "zoom_in", "zoom_out", "pan", "reset_view", "screenshot"}
#: Steps run before the action and after it (1/60 s each in every scene but the bullet's).
STEPS_BEFORE, STEPS_AFTER = 3, 3


def all_scenes() -> list[str]:
    return [*scenes.scene_names(), *SCENE_FILES]


class Probe(Simulation):
    """A Simulation that also counts the help requests (the window program resets its fade)."""

    def __init__(self) -> None:
        super().__init__(out=io.StringIO())
        self.help_requests = 0

    def show_help(self) -> None:
        self.help_requests += 1

    def point_at(self, point: np.ndarray) -> None:
        """Put the cursor at ``point`` (world units)."""
        self.aim = np.array(point, dtype=np.float64)


def _plain(value: Any) -> Any:
    """A comparable form of scene data (arrays, random generators, nested containers)."""
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.tobytes())
    if isinstance(value, np.random.Generator):
        return ("rng", repr(value.bit_generator.state))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        return tuple(sorted((str(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, float | np.floating):
        return round(float(value), 12)
    return repr(value)


def fingerprint(sim: Probe) -> tuple[Any, ...]:
    """Everything an action could change that a user can see or that changes what comes next."""
    world, scene = sim.world, sim.scene
    bullets = [np.round(b.position, 9).tobytes() for b in sim.projectiles]
    state = {f.name: getattr(scene, f.name) for f in dataclasses.fields(scene) if f.name != "world"}
    return (
        scene.name,
        scene.seed,
        world.state_hash(),
        round(float(world.time), 12),
        int(world.step_count),
        int(world.body_count),
        world.solver,
        tuple(np.asarray(world.gravity, dtype=float)),
        repr(world.solver_settings("arcade")),
        repr(world.solver_settings("iterative")),
        sim.paused,
        sim.gravity_on,
        sim.friction_on,
        sim.static_friction_on,
        sim.friction,
        sim.restitution,
        sim.static_friction,
        tuple(sorted(sim.show.items())),
        tuple(bullets),
        len(sim.flashes),
        sim.speed,
        sim.help_requests,
        _plain(state),
    )


def _view_point(scene: scenes.Scene, fx: float, fy: float) -> np.ndarray:
    x0, y0, x1, y1 = scene.view
    return np.array([x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)])


def _target(scene: scenes.Scene) -> np.ndarray:
    """Where the cursor goes for the action: a place where the action can act."""
    world = scene.world
    if scene.name == "primitives":
        return np.array(scene.shapes[2].centre, dtype=np.float64)  # on a shape: drag it
    if scene.turret is not None:
        # A moving body the turret can see, so that a shot pushes it.
        for i in np.flatnonzero(~np.asarray(world.static, dtype=bool)):
            hit = world.raycast(scene.turret, world.position[i], radius=shot_radius(scene.view))
            if hit is not None and not world.static[hit.body]:
                return np.array(world.position[i], dtype=np.float64)
    # Near a moving body (off its centre: the repulsion has no direction there), else anywhere.
    moving = np.flatnonzero(~np.asarray(world.static, dtype=bool))
    if len(moving):
        return world.position[moving[0]] + 0.02 * (np.array(scene.view[2:]) - np.array(scene.view[:2]))
    return _view_point(scene, 0.3, 0.7)


def _prepare(sim: Probe, action: str) -> None:
    """What must be so for an action to be able to act (done alike with and without it)."""
    scene = sim.scene
    if action == "single_step":
        sim.do("pause")  # `o` steps while paused
    elif action.endswith("_down"):
        sim.do(action[: -len("down")] + "up")  # off the bottom of its range (arcade's friction is 0)
    elif action == "reset_count":
        if "pair" in scene.traits:
            sim.world.position[0] = sim.world.position[1]  # A onto B: Enter separates them
        else:
            sim.do("more_bodies")  # away from the default count: Enter goes back to it


def run(name: str, action: str | None, prepare: str | None = None) -> tuple[tuple[Any, ...], Probe]:
    """Build ``name``, run a little, carry out ``action`` (None: nothing), run a little more."""
    sim = Probe()
    sim.load_scene(name, seed=1, bodies=BODIES.get(name))
    start = _target(sim.scene)
    sim.point_at(start)
    dt = sim.scene.dt
    for _ in range(STEPS_BEFORE):
        sim.advance(dt)
    if prepare is not None:
        _prepare(sim, prepare)
    if action is not None:
        if action in controls.HOLD_ACTIONS:
            sim.hold(action, True)
        else:
            sim.do(action)
    # The cursor moves while the input is held (a drag), as it would in the window.
    sim.point_at(start + 0.05 * (np.array(sim.scene.view[2:]) - np.array(sim.scene.view[:2])))
    for _ in range(STEPS_AFTER):
        sim.advance(sim.scene.dt)
    if action is not None and action in controls.HOLD_ACTIONS:
        sim.hold(action, False)
    return fingerprint(sim), sim


@pytest.mark.parametrize("name", all_scenes())
def test_listed_inputs_act_and_the_others_do_nothing(name: str) -> None:
    sim = Probe()
    sim.load_scene(name, seed=1, bodies=BODIES.get(name))
    rows = controls.rows_for(sim.scene, sim.features)
    listed = {action for row in rows for _, action in row.inputs}
    assert listed == sim.handled
    assert all(row.inputs for row in rows), "every row of the help is bound to an input"
    inputs = [name for row in rows for name, _ in row.inputs]
    assert len(inputs) == len(set(inputs)), f"{name}: an input with two meanings in its help"
    assert WINDOW_ACTIONS <= listed, "the window's own keys work in every scene"

    baselines: dict[str | None, tuple[Any, ...]] = {}
    wrong = []
    for action in controls.ACTIONS:
        if action in WINDOW_ACTIONS:
            continue
        prepare = action if action in ("single_step", "reset_count") or action.endswith("_down") else None
        if prepare not in baselines:
            baselines[prepare] = run(name, None, prepare)[0]
        acted = run(name, action, prepare)[0] != baselines[prepare]
        if acted != (action in listed):
            wrong.append(f"{action}: {'acts but is not listed' if acted else 'listed but does nothing'}")
    assert not wrong, f"{name}: " + "; ".join(wrong)


def _help_text(name: str) -> list[str]:
    scene = scenes.build_scene(name)
    return [f"{label} {text}" for label, text in controls.help_rows(scene)] + list(scene.help)


def test_swept_help_says_a_click_sets_a_motion_and_nothing_of_attracting() -> None:
    rows = controls.help_rows(scenes.build_scene("swept"))
    assert ("left mouse", "set A's motion toward the cursor") in rows
    assert [label for label, _ in rows].count("left mouse") == 1
    text = " ".join(_help_text("swept")).lower()
    assert "attract" not in text and "repel" not in text


def _traits(name: str) -> frozenset[str]:
    return scenes.build_scene(name).traits


PAIR_SCENES = [name for name in scenes.scene_names() if "pair" in _traits(name)]
#: Scenes without a turret: nothing a shot could push (the teaching pairs, the primitives, the
#: crack's driven box), or nowhere a turret would not be buried or walled off (the tumbler).
# impulse: a shot's impulse would land between the scene's copy of the bodies and the step, so
# the step its figure replays would not be the world's.
NO_TURRET = {*PAIR_SCENES, "primitives", "crack", "tumbler", "impulse"}


@pytest.mark.parametrize("name", [*PAIR_SCENES, "primitives", "crack"])
def test_scenes_without_world_forces_list_none_of_them(name: str) -> None:
    text = " ".join(_help_text(name)).lower()
    for word in ("attract", "gravity", "body more", "default body count", "turret"):
        assert word not in text, (name, word)


def test_random_scenes_are_the_ones_their_seed_changes() -> None:
    # Space builds the next seed: listed exactly where that gives another scene.
    for name in scenes.scene_names():
        a = scenes.build_scene(name, seed=0, bodies=BODIES.get(name))
        b = scenes.build_scene(name, seed=1, bodies=BODIES.get(name))
        differs = a.world.state_hash() != b.world.state_hash()
        assert differs == ("random" in a.traits), name


@pytest.mark.parametrize("name", all_scenes())
def test_the_turret_is_where_a_shot_can_push_a_body(name: str) -> None:
    scene = scenes.build_scene(name, seed=1, bodies=BODIES.get(name))
    sim = Probe()
    sim.use_scene(scene)
    listed = "fire" in sim.handled
    assert listed == (scene.turret is not None)
    assert (scene.turret is None) == (name in NO_TURRET), name
    if scene.turret is None:
        return
    # From the turret, a shot at some moving body hits a moving body and pushes it.
    world = scene.world
    sim.point_at(_target(scene))
    before = world.velocity.copy(), world.angular_velocity.copy()
    sim.hold("fire", True)
    sim.hold("fire", False)
    assert len(sim.projectiles) == 1
    for _ in range(200):  # the bullet's flight (at most BULLET_LIFE_S)
        if not sim.projectiles:
            break
        sim.fly_bullets(scene.dt)
    assert sim.flashes, f"{name}: the bullet hit nothing"
    pushed = np.any(world.velocity != before[0], axis=1) | (world.angular_velocity != before[1])
    assert pushed.any() and not np.any(pushed & np.asarray(world.static, dtype=bool)), name
