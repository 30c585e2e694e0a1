"""Tutorials 1-3, 5 and 6 as arrays: every candidate axis of a pair with its intervals, gap,
entry and exit times, the early outs and the engine's choice; the support points of a hit.

See :mod:`collision.explain` for what this module is and is not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from collision import checks
from collision.contacts import find_contacts, find_support_points
from collision.sat import (
    axis_separate_polygons,
    calculate_interval,
    face_count,
    interval_intersect,
    sweep_kernel,
)
from collision.shapes import check_vertices
from collision.tolerances import AXIS_SPEED_EPSILON, VELOCITY_AXIS_EPSILON_SQ

# ---------------------------------------------------------------------------------------------
# Separating axes (Tutorials 1-3, 5)
# ---------------------------------------------------------------------------------------------

#: Columns of the face table's float part.
NX, NY, A_LO, A_HI, B_LO, B_HI, GAP, SPEED, ENTER, LEAVE = range(10)


@njit(cache=True)
def axes_kernel(
    a: np.ndarray, b: np.ndarray, vx: float, vy: float, t_max: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Every face of the pair ``a (ka, 2)``, ``b (kb, 2)`` in the order the engine tests them
    (A's, then B's), A moving by ``(vx, vy)`` per unit time relative to B, over ``[0, t_max]``.

    Returns ``(owner (f, 2) int64, table (f, 10), velocity_axis (6,), first_separating,
    stop)``: ``owner`` is (0 for A or 1 for B, the face's index in its shape); ``table``'s
    columns (NX.. LEAVE) are the unit normal oriented from B toward A, A's and B's intervals
    along it, the gap across the face (units along the normal, > 0: apart), the rate at which
    the gap changes (units per unit time, < 0: closing), and the times the gap closes (an
    entry) or opens (an exit), -inf / +inf where there is none (a face whose gap never changes
    and is > 0 has entry +inf and exit -inf: never). ``velocity_axis``: Tutorial 3's axis
    (unit, across the motion; zeros without motion), A's and B's intervals along it.
    ``first_separating``: the first face whose gap is > 0 (Tutorial 1's early out; -1: none).
    ``stop``: the face at which the swept test stops with a miss (-1: it did not; -2: the
    velocity axis stopped it).
    """
    ka = a.shape[0]
    kb = b.shape[0]
    sa = a[np.newaxis]
    sb = b[np.newaxis]
    fa = face_count(ka)
    nf = fa + face_count(kb)
    owner = np.zeros((nf, 2), dtype=np.int64)
    table = np.zeros((nf, 10))
    velocity_axis = np.zeros(6)
    stop = -1
    if vx * vx + vy * vy > VELOCITY_AXIS_EPSILON_SQ and not (ka == 1 and kb == 1):
        # The engine tests the axis unnormalised (its scale does not change the comparison).
        alo, ahi = calculate_interval(sa, 0, ka, -vy, vx)
        blo, bhi = calculate_interval(sb, 0, kb, -vy, vx)
        if alo > bhi or blo > ahi:
            stop = -2
        inv = 1.0 / math.sqrt(vx * vx + vy * vy)
        velocity_axis[0] = -vy * inv
        velocity_axis[1] = vx * inv
        velocity_axis[2] = alo * inv
        velocity_axis[3] = ahi * inv
        velocity_axis[4] = blo * inv
        velocity_axis[5] = bhi * inv
    first_separating = -1
    t_first = 0.0
    t_last = t_max
    for f in range(nf):
        # As the swept test does: a face of A against B (its normal turned to point from B
        # toward A), then a face of B against A.
        if f < fa:
            nx, ny, gap = axis_separate_polygons(sa, 0, ka, sb, 0, kb, f)
            nx = -nx
            ny = -ny
        else:
            nx, ny, gap = axis_separate_polygons(sb, 0, kb, sa, 0, ka, f - fa)
        owner[f, 0] = 0 if f < fa else 1
        owner[f, 1] = f if f < fa else f - fa
        speed = vx * nx + vy * ny
        length_sq = nx * nx + ny * ny
        length = math.sqrt(length_sq)
        alo, ahi = calculate_interval(sa, 0, ka, nx / length, ny / length)
        blo, bhi = calculate_interval(sb, 0, kb, nx / length, ny / length)
        row = table[f]
        row[NX] = nx / length
        row[NY] = ny / length
        row[A_LO] = alo
        row[A_HI] = ahi
        row[B_LO] = blo
        row[B_HI] = bhi
        row[GAP] = gap / length
        row[SPEED] = speed / length
        if gap > 0.0 and first_separating < 0:
            first_separating = f
        if speed * speed < AXIS_SPEED_EPSILON * AXIS_SPEED_EPSILON * length_sq:
            # Parallel to the motion: apart for ever, or overlapping for ever.
            row[ENTER] = math.inf if gap > 0.0 else -math.inf
            row[LEAVE] = -math.inf if gap > 0.0 else math.inf
        else:
            row[ENTER], row[LEAVE] = interval_intersect(gap, speed)
        t_first = max(t_first, row[ENTER])
        t_last = min(t_last, row[LEAVE])
        if stop == -1 and t_first > t_last:
            stop = f
    return owner, table, velocity_axis, first_separating, stop


@dataclass(frozen=True, eq=False)
class Axes:
    """Every candidate axis of a pair as the swept separating-axis test saw it (see
    :func:`separating_axes`). ``f`` faces, in the order tested: A's edges, then B's.

    Per face: ``owner (f,) int64`` (0: a face of A, 1: of B), ``edge (f,) int64`` (its index in
    its shape: polygon face ``i`` is the edge from vertex ``i`` to ``i + 1``; a segment's faces
    are its two sides, 0 and 1, and its ends, 2 past vertex 1 and 3 before vertex 0),
    ``normal (f, 2)`` unit, from B toward A; ``interval_a``, ``interval_b (f, 2)`` the shapes'
    (lo, hi) along it (units); ``gap (f,)`` units across the face (> 0: the shapes are apart
    across it; the face's side of the two intervals); ``speed (f,)`` the gap's rate of change
    (units per unit time, < 0 closing); ``enter``, ``leave (f,)`` the times it closes and opens
    (-inf / +inf: never; a face apart and not moving has enter +inf, leave -inf).

    Whole pair: ``velocity_axis (2,)`` Tutorial 3's axis across the motion (zeros without
    motion) and ``velocity_interval_a``, ``velocity_interval_b (2,)`` along it;
    ``first_separating``: index of the first face apart at time 0 (Tutorial 1's early out, -1
    when none: they intersect); ``stop``: the face where the swept test gave up (-1: it did
    not, -2: on the velocity axis); ``t_max``; and the engine's answer: ``hit``, ``hit_normal
    (2,)``, ``t``, ``depth`` (:func:`collision.sweep_kernel`'s) and ``chosen``, the face it
    took them from (-1 for a miss).
    """

    owner: np.ndarray
    edge: np.ndarray
    normal: np.ndarray
    interval_a: np.ndarray
    interval_b: np.ndarray
    gap: np.ndarray
    speed: np.ndarray
    enter: np.ndarray
    leave: np.ndarray
    velocity_axis: np.ndarray
    velocity_interval_a: np.ndarray
    velocity_interval_b: np.ndarray
    first_separating: int
    stop: int
    t_max: float
    hit: bool
    hit_normal: np.ndarray
    t: float
    depth: float
    chosen: int

    @property
    def push(self) -> np.ndarray:
        """``(f, 2)``: for each face across which the shapes overlap now, the push vector that
        separates them across it (Tutorial 2: overlap times the unit normal); zeros elsewhere."""
        overlap = np.where(self.gap <= 0.0, -self.gap, 0.0)
        return self.normal * overlap[:, None] + 0.0  # no -0.0

    @property
    def latest_entry(self) -> float:
        """The latest entry time over the faces, never before 0 (Tutorial 3's time of impact
        when it is at most :attr:`earliest_exit`; +inf when some face never closes)."""
        return float(max(0.0, self.enter.max())) if self.enter.size else 0.0

    @property
    def earliest_exit(self) -> float:
        """The earliest exit time over the faces, never after ``t_max`` (-inf when some face
        is apart and never closes)."""
        return float(min(self.t_max, self.leave.min())) if self.leave.size else self.t_max


def face_edge(vertices: Any, edge: int) -> np.ndarray:
    """The edge a face comes from, ``(2, 2)`` endpoints, for ``vertices (k, 2)`` and the face's
    ``edge`` index (:class:`Axes`); a segment's end face gives its end vertex twice.
    ValueError naming the argument for vertices that are no shape or an edge it does not have."""
    v = check_vertices(vertices, "vertices")
    k = len(v)
    edge = checks.integer(edge, "edge", 0, (3 if k == 2 else k) - 1)
    if k == 2:
        if edge in (0, 1):
            return v.copy()
        end = v[1] if edge == 2 else v[0]
        return np.stack([end, end])
    return np.stack([v[edge], v[(edge + 1) % k]])


def _chosen_face(table: np.ndarray, hit: bool, nx: float, ny: float, t: float, depth: float) -> int:
    """The face the engine's answer came from: of the faces whose unit normal is the answer's,
    the one whose entry time (a future hit) or overlap (an overlap) is the answer's."""
    if not hit or table.shape[0] == 0:
        return -1
    along = np.hypot(table[:, NX] - nx, table[:, NY] - ny) < 1e-9
    if not along.any():
        return -1
    score = np.abs(table[:, ENTER] - t) if t > 0.0 else np.abs(-table[:, GAP] - depth)
    score = np.where(along & np.isfinite(score), score, np.inf)
    return int(np.argmin(score)) if np.isfinite(score).any() else -1


def separating_axes(a: Any, b: Any, velocity: Any = (0.0, 0.0), t_max: float = 1.0) -> Axes:
    """Every candidate axis of shapes ``a`` and ``b`` (world-space vertices ``(k, 2)`` or
    Polygons, as for :func:`collision.sweep`), A moving by ``velocity (2,)`` per unit time
    relative to B over ``[0, t_max]`` (the default: not moving, Tutorials 1-2).

    >>> axes = separating_axes([[0, 0], [2, 0], [2, 2], [0, 2]], [[1.5, 0], [3, 0], [3, 2], [1.5, 2]])
    >>> axes.first_separating, axes.chosen, axes.push[axes.chosen].tolist()
    (-1, 1, [-0.5, 0.0])
    """
    av = check_vertices(a, "a")
    bv = check_vertices(b, "b")
    v = checks.vector(velocity, "velocity", math.inf)
    tm = checks.number(t_max, "t_max", above=0.0)
    vx, vy = float(v[0]), float(v[1])
    owner, table, vaxis, first, stop = axes_kernel(av, bv, vx, vy, tm)
    hit, nx, ny, t, depth = sweep_kernel(av, bv, vx, vy, tm)
    return Axes(
        owner=owner[:, 0].copy(),
        edge=owner[:, 1].copy(),
        normal=table[:, NX : NY + 1].copy(),
        interval_a=table[:, A_LO : A_HI + 1].copy(),
        interval_b=table[:, B_LO : B_HI + 1].copy(),
        gap=table[:, GAP].copy(),
        speed=table[:, SPEED].copy(),
        enter=table[:, ENTER].copy(),
        leave=table[:, LEAVE].copy(),
        velocity_axis=vaxis[0:2].copy(),
        velocity_interval_a=vaxis[2:4].copy(),
        velocity_interval_b=vaxis[4:6].copy(),
        first_separating=int(first),
        stop=int(stop),
        t_max=tm,
        hit=bool(hit),
        hit_normal=np.array([nx, ny]),
        t=float(t),
        depth=float(depth),
        chosen=_chosen_face(table, bool(hit), nx, ny, t, depth),
    )


# ---------------------------------------------------------------------------------------------
# Support points (Tutorial 6)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Support:
    """The contact features of a hit (see :func:`support_features`): ``support_a (ca, 2)`` A's
    vertices lowest along the normal, ``support_b (cb, 2)`` B's highest (1: a corner, 2: an
    edge; at the time of impact), ``kind`` ("point-point", "point-edge", "edge-point" or
    "edge-edge", A's feature first), and the contact pairs ``pairs_a``, ``pairs_b (c, 2)``."""

    support_a: np.ndarray
    support_b: np.ndarray
    kind: str
    pairs_a: np.ndarray
    pairs_b: np.ndarray


def support_features(a: Any, b: Any, normal: Any, t: float = 0.0, velocity: Any = (0.0, 0.0)) -> Support:
    """Tutorial 6's steps for a hit of A against B: the support points of A along ``normal``
    (unit ``(2,)``, from B toward A) and of B along ``-normal``, A moved by ``velocity * t``
    (to the time of impact), then the contact pairs the engine makes of them."""
    av = check_vertices(a, "a")
    bv = check_vertices(b, "b")
    n = checks.vector(normal, "normal", math.inf)
    v = checks.vector(velocity, "velocity", math.inf)
    tt = checks.number(t, "t", minimum=0.0)
    nx, ny = float(n[0]), float(n[1])
    ox, oy = float(v[0]) * tt, float(v[1]) * tt
    ca, a0x, a0y, a1x, a1y = find_support_points(av, nx, ny, ox, oy)
    cb, b0x, b0y, b1x, b1y = find_support_points(bv, -nx, -ny, 0.0, 0.0)
    out_a = np.zeros((2, 2))
    out_b = np.zeros((2, 2))
    c = find_contacts(av, bv, nx, ny, tt, float(v[0]), float(v[1]), 0.0, 0.0, out_a, out_b)
    kind = f"{'point' if ca == 1 else 'edge'}-{'point' if cb == 1 else 'edge'}"
    return Support(
        support_a=np.array([[a0x, a0y], [a1x, a1y]])[:ca],
        support_b=np.array([[b0x, b0y], [b1x, b1y]])[:cb],
        kind=kind,
        pairs_a=out_a[:c].copy(),
        pairs_b=out_b[:c].copy(),
    )
