"""After the solve: stop bodies that went further than their contacts could see.

The iterative step finds its contacts at the start of the step, each pair with a speculative
reach grown by the pair's speed then. A body that gains speed during the step (hit hard by
another body, say) can travel beyond that reach, into or through static geometry no contact
was made for. Like Box2D v3's continuous pass, after the solve each such body is swept from
its start-of-step position to its end position (at its end angle) against the static bodies,
and put back where it first touches one. Its velocity is kept: the next step starts with the
static body within its speculative reach, and the contact made then stops it.

Only bodies whose travel exceeds what the start-of-step contacts covered are swept, so a
quiet world pays one pass over the bodies and nothing else.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from collision.bodies import Bodies
from collision.kernels import compiled_only, stage
from collision.sat import sweep_kernel
from collision.shapes import MAX_VERTICES
from collision.solvers.protocol import StepContext


@njit(cache=True)
def _place(local_vertices: np.ndarray, count: int, x: float, y: float, angle: float, out: np.ndarray) -> None:
    """``out[:count]`` = local vertices rotated by ``angle`` and moved to (x, y)."""
    c = math.cos(angle)
    s = math.sin(angle)
    for v in range(count):
        lx = local_vertices[v, 0]
        ly = local_vertices[v, 1]
        out[v, 0] = x + c * lx - s * ly
        out[v, 1] = y + s * lx + c * ly


@compiled_only()
def _bounds(vertices: np.ndarray, count: int) -> tuple[float, float, float, float]:
    """(min x, min y, max x, max y) of ``vertices[:count]``."""
    lox = hix = vertices[0, 0]
    loy = hiy = vertices[0, 1]
    for v in range(1, count):
        lox = min(lox, vertices[v, 0])
        hix = max(hix, vertices[v, 0])
        loy = min(loy, vertices[v, 1])
        hiy = max(hiy, vertices[v, 1])
    return lox, loy, hix, hiy


@compiled_only()
def _paired(pairs: np.ndarray, touching: np.ndarray, i: int, j: int) -> bool:
    """Whether rows i and j are a pair of ``pairs (m, 2)`` (either order) that has contact
    points (``touching (m,) bool``)."""
    for p in range(pairs.shape[0]):
        if not touching[p]:
            continue
        a = pairs[p, 0]
        b = pairs[p, 1]
        if (a == i and b == j) or (a == j and b == i):
            return True
    return False


@njit(cache=True, inline="always")
def _outran(bodies: Bodies, has_compounds: bool, start: tuple, i: int) -> float:
    """How far row ``i`` travelled when it is to be swept (see :func:`stop_at_static`;
    ``start`` = ``(start_position, start_velocity, moving, dt, reach)``), else 0.0."""
    start_position, start_velocity, moving, dt, reach = start
    if not moving[i] or bodies.inv_mass[i] <= 0.0 or (has_compounds and bodies.root[i] != i):
        return 0.0
    dx = bodies.position[i, 0] - start_position[i, 0]
    dy = bodies.position[i, 1] - start_position[i, 1]
    squared = dx * dx + dy * dy
    if squared <= reach * reach:
        return 0.0  # within its contacts' reach at any speed: no square roots
    travel = math.sqrt(squared)
    covered = math.sqrt(start_velocity[i, 0] ** 2 + start_velocity[i, 1] ** 2) * dt + reach
    return travel if travel > covered else 0.0


@stage()
def stop_at_static(
    bodies: Bodies,
    context: StepContext,
    start_position: np.ndarray,
    start_velocity: np.ndarray,
    moving: np.ndarray,
    pairs: np.ndarray,
    pair_index: np.ndarray,
    reach: float,
    backoff: float,
) -> int:
    """Put back every moving body that travelled past static geometry; returns how many.

    ``bodies.world_vertices``: the rows' vertices at the start of the step (static rows have
    not moved since). ``start_position``, ``start_velocity (n, 2)``: the bodies' position and
    velocity at the start of the step; ``bodies.position``, ``bodies.angle``: at the end
    (changed here). A body (a root with ``inv_mass > 0`` and ``moving``) is swept when
    it moved further than ``|start_velocity| * dt + reach`` units (what its start-of-step
    contacts covered); it stops ``backoff`` units short of the first static body it would
    have entered. Static bodies it had contact points with this step (``pairs (m, 2)``: the
    rows paired; ``pair_index (c,)``: the pair of each point) or overlapped at the start are
    left to the solver: its soft contacts hold them, and moving a body out of a contact the
    solver holds would kick the bodies resting on it. A compound's part rows follow its root.
    """
    vertex_count = bodies.vertex_count
    position = bodies.position
    root = bodies.root
    has_compounds = context.has_compounds
    n = position.shape[0]
    start = (start_position, start_velocity, moving, context.dt, reach)
    swept = 0
    while swept < n and _outran(bodies, has_compounds, start, swept) == 0.0:
        swept += 1
    if swept == n:
        return 0  # a quiet world: nothing allocated
    moved_back = 0
    part = np.empty((MAX_VERTICES, 2))
    # Which pairs have points, and the static rows.
    touching = np.zeros(pairs.shape[0], dtype=np.bool_)
    for k in range(pair_index.shape[0]):
        touching[pair_index[k]] = True
    statics = np.flatnonzero(bodies.static)
    for i in range(swept, n):
        travel = _outran(bodies, has_compounds, start, i)
        if travel == 0.0:
            continue
        dx = position[i, 0] - start_position[i, 0]
        dy = position[i, 1] - start_position[i, 1]
        first = 1.0
        # The body's rows: itself, or a compound's parts, which follow their root.
        j = i
        while j < n and (j == i or (has_compounds and root[j] == i)):
            k = vertex_count[j]
            _place(
                bodies.local_vertices[j], k, start_position[i, 0], start_position[i, 1], bodies.angle[i], part
            )
            lox, loy, hix, hiy = _bounds(part, k)
            # The box the part sweeps over the step.
            lox = min(lox, lox + dx)
            hix = max(hix, hix + dx)
            loy = min(loy, loy + dy)
            hiy = max(hiy, hiy + dy)
            for q in range(statics.shape[0]):
                s = int(statics[q])
                ks = vertex_count[s]
                wv = bodies.world_vertices[s]
                slox, sloy, shix, shiy = _bounds(wv, ks)
                if slox > hix or shix < lox or sloy > hiy or shiy < loy or _paired(pairs, touching, j, s):
                    continue
                hit, _, _, t, depth = sweep_kernel(part[:k], wv[:ks], dx, dy, 1.0)
                if hit and depth <= 0.0 and t > 0.0 and t < first:
                    first = t
            j += 1
        if first < 1.0:
            back = max(first - backoff / travel, 0.0)
            position[i, 0] = start_position[i, 0] + dx * back
            position[i, 1] = start_position[i, 1] + dy * back
            moved_back += 1
    return moved_back
