"""World.profile: per-stage step times, their names, and that profiling changes nothing."""

from __future__ import annotations

import time

import numpy as np
import pytest

from collision import World
from collision.profiling import STAGES, STEP, clock, stage_table, ticks_per_second
from demo.bench.engines.ours import add_bodies, new_world
from demo.bench.scenes import DT, pile, pyramid

#: The iterative solver's stages that a stack of bodies resting on each other must spend time in.
BUSY = (
    "broadphase",
    "narrowphase",
    "prepare",
    "warm_start",
    "solve",
    "integrate_positions",
    "relax",
    "store",
)


def _pile_world(count: int = 300) -> World:
    spec = pile(count)
    world = new_world(spec)
    add_bodies(world, spec)
    return world


def test_stage_names_are_stable_and_box2d_like() -> None:
    assert " ".join(STAGES) == (
        "wake broadphase narrowphase prepare integrate_velocities warm_start solve "
        "integrate_positions relax restitution continuous sleep store"
    )
    world = World()
    assert list(world.profile.total) == [*STAGES, STEP]
    assert list(world.profile.last) == [*STAGES, STEP]


def test_the_clock_counts_forward_at_the_measured_rate() -> None:
    rate = ticks_per_second()
    assert 1e6 < rate < 1e11
    errors = []
    for _ in range(3):  # the best of three: another process may run between two clock reads
        c0, t0 = clock(), time.perf_counter()
        time.sleep(0.05)
        c1, t1 = clock(), time.perf_counter()
        errors.append(abs((c1 - c0) / rate - (t1 - t0)) / (t1 - t0))
    assert min(errors) < 0.02


def test_off_by_default_and_then_nothing_is_counted() -> None:
    world = _pile_world(50)
    assert world.profile.enabled is False
    for _ in range(3):
        world.step(DT)
    assert world.profile.steps == 0
    assert all(v == 0.0 for v in world.profile.total.values())


def test_stages_are_non_negative_and_sum_to_the_step() -> None:
    spec = pyramid(20)  # 210 boxes in contact from the first step
    world = new_world(spec)
    add_bodies(world, spec)
    world.profile.enabled = True
    shares = []
    steps = []
    for _ in range(30):
        world.step(DT)
        last = world.profile.last
        steps.append(last[STEP])
        stages = sum(v for k, v in last.items() if k != STEP)
        assert all(v >= 0.0 for v in last.values())
        # The stages are timed inside the compiled step, the step around the whole World.step
        # call, so they can only sum to less.
        assert 0.0 < stages <= last[STEP]
        shares.append(stages / last[STEP])
    # The rest is the Python side (checks, packing the contacts): under a third of the step here
    # when no other process takes the core mid-step (the best of 30 steps; under heavy load a
    # preempted Python side can take more).
    assert max(shares) >= 0.67
    profile = world.profile
    assert profile.steps == 30
    total = profile.total
    assert total[STEP] == pytest.approx(sum(steps))  # the total is the sum of the steps
    for name in BUSY:
        assert total[name] > 0.0, name
    text = profile.table()
    assert "narrowphase" in text and "ms/step" in text


def test_reset_forgets_and_switching_off_stops_counting() -> None:
    world = _pile_world(50)
    world.profile.enabled = True
    world.step(DT)
    world.profile.reset()
    assert world.profile.steps == 0 and world.profile.total[STEP] == 0.0
    world.step(DT)
    world.profile.enabled = False
    world.step(DT)
    assert world.profile.steps == 1


@pytest.mark.parametrize("solver", ["iterative", "tutorial", "arcade"])
def test_profiling_does_not_change_the_trajectory(solver: str) -> None:
    hashes = []
    for profiling in (False, True):
        spec = pyramid(4)
        world = World(gravity=spec.gravity, solver=solver)
        add_bodies(world, spec)
        world.profile.enabled = profiling
        for _ in range(30):
            world.step(DT)
        hashes.append(world.state_hash())
    assert hashes[0] == hashes[1]


def test_a_bad_switch_is_refused_by_name() -> None:
    world = World()
    with pytest.raises(ValueError, match="profile.enabled"):
        world.profile.enabled = "yes"
    assert world.profile.enabled is False


def test_the_stage_table_gives_ms_per_step_and_shares() -> None:
    total = dict.fromkeys(STAGES, 0.0)
    total["solve"] = 0.3
    total["narrowphase"] = 0.1
    total[STEP] = 0.5
    text = stage_table(total, 100)
    line = next(row for row in text.splitlines() if row.startswith("solve"))
    assert line.split()[1:] == ["3.0000", "60.0%"]
    outside = text.splitlines()[-1].split()
    assert outside[-1] == "1.0000"  # 0.1 s over 100 steps outside the stages
    assert np.isclose(float(outside[-1]), 1.0)


def test_a_step_that_raises_is_not_counted() -> None:
    """A step refused for its dt, or for a state out of range, adds nothing to the profile;
    the next good step counts, with its stages."""
    world = _pile_world(40)
    world.profile.enabled = True
    world.step(DT)
    assert world.profile.steps == 1
    total = world.profile.total
    with pytest.raises(ValueError, match="dt"):
        world.step(float("nan"))
    moving = world.body_count - 1  # the pile's last body (the static ground comes first)
    saved = world.position[moving].copy()
    world.position[moving] = (np.inf, 0.0)
    with pytest.raises(ValueError, match="position"):
        world.step(DT)
    assert world.profile.steps == 1 and world.profile.total == total
    world.position[moving] = saved
    world.step(DT)
    assert world.profile.steps == 2 and world.profile.total[STEP] > total[STEP]
