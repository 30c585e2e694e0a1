"""Measurements without drawing: ``python -m demo --scene NAME --steps N --stats``."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from demo.scenes.base import FrameInput, Scene


def run_stats(scene: Scene, steps: int) -> dict[str, Any]:
    """Run ``steps`` physics steps and measure them; the JSON fields of ``--stats``."""
    world = scene.world
    idle = FrameInput()
    start = world.position.copy()
    moving = ~np.asarray(world.static, dtype=bool)
    times = np.zeros(steps)
    contacts_max = 0
    nan = False
    for k in range(steps):
        scene.on_step(scene.dt, idle)
        t0 = time.perf_counter()
        try:
            world.step(scene.dt)
        except ValueError:
            nan = True  # the world refuses to step non-finite state
            times = times[:k]
            break
        times[k] = time.perf_counter() - t0
        contacts_max = max(contacts_max, len(world.contacts))
    state = np.concatenate(
        [world.position.ravel(), world.angle, world.velocity.ravel(), world.angular_velocity]
    )
    nan = nan or not bool(np.isfinite(state).all())
    # Scenes may add or remove bodies (bullets): compare the bodies that exist at both ends.
    pos = world.position
    kept = min(len(start), len(pos))
    moved = moving[:kept] & ~np.asarray(world.static[:kept], dtype=bool)
    displacement = np.hypot(*(pos[:kept][moved] - start[:kept][moved]).T) if moved.any() else np.zeros(0)
    moving = ~np.asarray(world.static, dtype=bool)
    x0, y0, x1, y1 = scene.bounds
    outside = (
        (pos[:, 0] < x0) | (pos[:, 0] > x1) | (pos[:, 1] < y0) | (pos[:, 1] > y1) | ~np.isfinite(pos).all(1)
    )
    ms = times * 1000.0
    return {
        "scene": scene.name,
        "solver": world.solver,
        "bodies": world.body_count,
        "steps": int(steps),
        "dt": scene.dt,
        "step_ms_median": round(float(np.median(ms)), 4) if len(ms) else None,
        "step_ms_p95": round(float(np.percentile(ms, 95)), 4) if len(ms) else None,
        "contacts_max": int(contacts_max),
        "max_displacement": round(float(np.nanmax(displacement)), 6) if len(displacement) else 0.0,
        "escaped": int(np.count_nonzero(outside & moving)),
        "nan": bool(nan),
        "state_hash": world.state_hash(),
    }
