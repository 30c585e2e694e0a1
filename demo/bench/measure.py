"""Engine-neutral measures of a scene's state: overlaps, displacement, rest, escapes.

Everything here reads a :class:`~demo.bench.engines.State` and the scene's spec, never an
engine, so every engine is measured by the same code. Overlap depths come from our public
``collision.find_mtd`` (Tutorial 2's minimum translation), which is exact for convex polygons.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collision import find_mtd
from demo.bench.engines import State
from demo.bench.scenes import SceneSpec, world_parts


def body_outlines(scene: SceneSpec, state: State) -> list[list[np.ndarray]]:
    """World-space parts of every body ``[[(k, 2), ...], ...]`` at ``state``."""
    return [
        world_parts(body, state.position[i], float(state.angle[i])) for i, body in enumerate(scene.bodies)
    ]


def overlap_depth(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    """Deepest penetration (m) between two bodies given as world-space parts; 0 if apart."""
    deepest = 0.0
    for pa in a:
        for pb in b:
            mtd = find_mtd(pa, pb)
            if mtd is not None:
                deepest = max(deepest, float(np.hypot(mtd[0], mtd[1])))
    return deepest


def pair_overlap(scene: SceneSpec, state: State, i: int, j: int) -> float:
    """Penetration depth (m) between bodies ``i`` and ``j`` at ``state``; 0 if apart."""
    a = world_parts(scene.bodies[i], state.position[i], float(state.angle[i]))
    b = world_parts(scene.bodies[j], state.position[j], float(state.angle[j]))
    return overlap_depth(a, b)


def outline_pairs(outlines: list[list[np.ndarray]], moving: np.ndarray) -> list[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, whose bounding boxes overlap and of which one at least moves
    (sort and sweep on x)."""
    lo = np.array([np.min(np.vstack(parts), axis=0) for parts in outlines])
    hi = np.array([np.max(np.vstack(parts), axis=0) for parts in outlines])
    order = np.argsort(lo[:, 0], kind="stable")
    pairs = []
    for a_pos, i in enumerate(order):
        for j in order[a_pos + 1 :]:
            if lo[j, 0] > hi[i, 0]:
                break
            if (moving[i] or moving[j]) and lo[j, 1] <= hi[i, 1] and lo[i, 1] <= hi[j, 1]:
                pairs.append((int(min(i, j)), int(max(i, j))))
    return pairs


def deepest_overlap(scene: SceneSpec, state: State) -> float:
    """Deepest penetration (m) between any two bodies of the scene at ``state``."""
    outlines = body_outlines(scene, state)
    moving = np.array([b.moving for b in scene.bodies])
    deepest = 0.0
    for i, j in outline_pairs(outlines, moving):
        deepest = max(deepest, overlap_depth(outlines[i], outlines[j]))
    return deepest


def outcome(scene: SceneSpec, start: State, end: State, overlap: bool = False) -> dict[str, Any]:
    """How a run ended, over the dynamic bodies: ``max_displacement`` (m) from the start,
    ``max_speed_end`` (m/s), ``escaped`` (centres outside ``scene.bounds``), ``nan``; for the
    bullet scene ``bullet_x`` (m); with ``overlap``, ``deepest_overlap`` (m)."""
    moving = np.array([b.moving for b in scene.bodies])
    position, velocity = end.position[moving], end.velocity[moving]
    finite = bool(np.isfinite(position).all() and np.isfinite(velocity).all())
    x0, y0, x1, y1 = scene.bounds
    p = np.nan_to_num(position, nan=np.inf)
    outside = (p[:, 0] < x0) | (p[:, 0] > x1) | (p[:, 1] < y0) | (p[:, 1] > y1)
    result: dict[str, Any] = {
        "max_displacement": float(np.max(np.linalg.norm(position - start.position[moving], axis=1)))
        if moving.any()
        else 0.0,
        "max_speed_end": float(np.max(np.linalg.norm(velocity, axis=1))) if moving.any() else 0.0,
        "escaped": int(np.count_nonzero(outside)),
        "nan": not finite,
    }
    if scene.name == "bullet":
        result["bullet_x"] = float(position[0, 0])
    if overlap and finite:
        result["deepest_overlap"] = deepest_overlap(scene, end)
    return result
