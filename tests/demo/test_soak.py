"""Soak: the default scene ("rigid", 999 bodies, iterative solver) driven for 20 000 steps by
seeded random input through the program's own actions (attraction and repulsion, bullets,
regenerations), GL-free.

Checked: no NaN ever; no moving body outside the arena; at the end no body deeper in a wall
than ``MAX_WALL_DEPTH``; total energy (kinetic + gravitational) never grows during the quiet
windows without input; memory (RSS) flat. The figures (steps/s, max KE, memory) are printed
for README's Reliability section. ``SOAK_STEPS`` in the environment shortens the run.

The program's actions live in demo.actions (no OpenGL), so the soak drives a
:class:`demo.actions.Simulation` in-process: the same ``fire``, ``apply_mouse_forces`` and
``do("regenerate")`` that the window runs.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from demo import scenes
from demo.actions import Simulation
from demo.scenes import arena

STEPS = int(os.environ.get("SOAK_STEPS", "20000"))
BODIES = 999
#: Deepest a body may sit inside a wall at the end (units; bodies here are ~1.5 units across).
MAX_WALL_DEPTH = 0.5
#: Energy may rise during a quiet window by at most this fraction of the scene's energy scale
#: (the soft contacts' push-out is bounded, not zero).
QUIET_ENERGY_TOLERANCE = 0.02
#: RSS growth allowed between the end of warm-up and the end of the run (bytes).
MAX_RSS_GROWTH = 16 * 2**20
QUIET_EVERY, QUIET_LENGTH = 1000, 240
REGENERATE_AT = (STEPS // 4, STEPS // 2, 3 * STEPS // 4)
#: Memory is measured from here: after a regeneration, attraction, repulsion and shots have all
#: run once, so what the first use of a code path costs (numba loading or compiling it) is not
#: counted as growth.
WARMED_UP_AT = STEPS // 4 + 500


def _rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _energy(world: Any) -> float:
    g = -float(world.gravity[1])
    return world.kinetic_energy() + g * float(np.sum(world.mass * world.position[:, 1]))


def _wall_depth(world: Any) -> float:
    """Deepest penetration (units) of a moving body's vertex into the four walls."""
    x0, y0, x1, y1 = arena.ARENA_INSIDE
    moving = ~np.asarray(world.static)
    deepest = 0.0
    wv = world.world_vertices()
    for i in np.flatnonzero(moving):
        v = wv[i, : world.vertex_count[i]]
        deepest = max(deepest, float(x0 - v[:, 0].min()), float(v[:, 0].max() - x1))
        deepest = max(deepest, float(y0 - v[:, 1].min()), float(v[:, 1].max() - y1))
    return deepest


def _check_state(world: Any, step: int) -> None:
    for name in ("position", "angle", "velocity", "angular_velocity"):
        assert np.isfinite(getattr(world, name)).all(), f"{name} not finite at step {step}"
    moving = ~np.asarray(world.static)
    p = world.position[moving]
    x0, y0, x1, y1 = 0.0, 0.0, arena.ARENA, arena.ARENA
    outside = (p[:, 0] < x0) | (p[:, 0] > x1) | (p[:, 1] < y0) | (p[:, 1] > y1)
    assert not outside.any(), f"step {step}: bodies {np.flatnonzero(moving)[outside]} left the arena"


def soak() -> None:
    """The soak itself (run in a child process by the test); raises AssertionError on failure."""
    rng = np.random.default_rng(2026)
    driver = Simulation(scenes.build_scene("rigid", seed=0, bodies=BODIES), out=io.StringIO())
    scene = driver.scene
    dt = scene.dt
    max_ke = 0.0
    quiet_rises: list[float] = []
    quiet_start_energy: float | None = None
    action_left = 0
    fire_timer = 0.0
    shots = 0
    rss_after_warmup = 0
    started = time.perf_counter()
    step_time = 0.0
    for step in range(STEPS):
        if step == WARMED_UP_AT:
            rss_after_warmup = _rss()
        quiet = step % QUIET_EVERY >= QUIET_EVERY - QUIET_LENGTH
        if not quiet and quiet_start_energy is not None:
            scale = max(abs(quiet_start_energy), scene.world.kinetic_energy(), 1.0)
            quiet_rises.append((_energy(scene.world) - quiet_start_energy) / scale)
            quiet_start_energy = None
        if step in REGENERATE_AT:
            # The program's Space: the same scene, next seed, the current body count.
            seed = scene.seed
            driver.do("regenerate")
            assert driver.scene.seed == seed + 1 and driver.world.body_count == BODIES
            scene = driver.scene
            quiet_start_energy = None
        if quiet:
            driver.held.clear()
            if quiet_start_energy is None:
                quiet_start_energy = _energy(scene.world)
        else:
            if action_left <= 0:
                driver.held.clear()
                choice = rng.choice(["attract", "repel", "fire", "none"], p=[0.35, 0.3, 0.2, 0.15])
                if choice != "none":
                    driver.held.add(str(choice))
                driver.aim = rng.uniform(5.0, 95.0, 2)
                action_left = int(rng.integers(30, 180))
            action_left -= 1
            if "fire" in driver.held:
                fire_timer += dt
                if fire_timer >= 0.2:
                    fire_timer = 0.0
                    driver.fire()
                    shots += 1
        driver.apply_mouse_forces()
        driver.fly_bullets(dt)
        t0 = time.perf_counter()
        scene.world.step(dt)
        step_time += time.perf_counter() - t0
        max_ke = max(max_ke, scene.world.kinetic_energy())
        if step % 50 == 0 or step == STEPS - 1:
            _check_state(scene.world, step)
    elapsed = time.perf_counter() - started
    rss_growth = _rss() - rss_after_warmup
    depth = _wall_depth(scene.world)
    worst_rise = max(quiet_rises) if quiet_rises else 0.0
    print(
        f"soak rigid {BODIES} bodies, {STEPS} steps ({scene.world.solver}): "
        f"{STEPS / step_time:.0f} steps/s world.step ({STEPS / elapsed:.0f} steps/s with input), "
        f"max KE {max_ke:.4g} J, "
        f"deepest in a wall {depth:.4f} units, worst energy rise in {len(quiet_rises)} quiet windows "
        f"{100 * worst_rise:+.3f}%, RSS {rss_after_warmup / 2**20:.1f} -> {_rss() / 2**20:.1f} MiB "
        f"({rss_growth / 2**20:+.1f} MiB), {shots} shots"
    )
    assert depth <= MAX_WALL_DEPTH, f"a body ended {depth} units inside a wall"
    assert worst_rise <= QUIET_ENERGY_TOLERANCE, f"energy grew {100 * worst_rise:.2f}% without input"
    assert rss_growth <= MAX_RSS_GROWTH, f"memory grew {rss_growth / 2**20:.1f} MiB"


def test_soak_rigid_999(capsys: Any) -> None:
    soak()
    with capsys.disabled():
        print("\n" + capsys.readouterr().out.strip())
