"""What the one-pass solvers (tutorial, arcade) share: the step's candidate pairs, seed 002's
rule for cracks, and the rows in which they record the contact points of the hits they resolve.

Both solvers answer one hit at a time, with the swept separating-axis test and Tutorial 6's
contact pairs, and report one row per contact point (see :class:`HitRows`).

The crack problem (seed 002): two static boxes flush side by side make one floor, but a box
sliding along it meets the second box's side face exactly at its top corner. The swept test
reports that as a hit ahead in time along the side face's normal, which would stop the box
dead on a surface that is flat. Such a hit touches along no length at all: its two features
are edges that overlap along their common tangent by nothing (seed 002's contact surface of
zero). :func:`grazes` says so; the solvers skip it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.bodies import Bodies, begin_step, end_step
from collision.broadphase import candidate_pairs, swept_bounds, transform_vertices
from collision.contacts import Contacts, find_support_points
from collision.records import StepContext
from collision.tolerances import BROADPHASE_MARGIN, CRACK_RELATIVE_LENGTH

#: Rows of ``HitRows.scalars``.
SEPARATION, TOI, NORMAL_IMPULSE, TANGENT_IMPULSE = range(4)


class HitRows(NamedTuple):
    """Contact rows of a step's hits (``r`` rows, the first ``count`` used): ``bodies (r, 2)
    int64`` (A, B), ``points (r, 4)`` (point on A x, y, point on B x, y), ``normals (r, 2)``
    (unit, from B toward A), ``scalars (4, r)`` (rows SEPARATION, TOI, NORMAL_IMPULSE,
    TANGENT_IMPULSE)."""

    bodies: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    scalars: np.ndarray


@njit(cache=True)
def new_rows(capacity: int) -> HitRows:
    """Room for ``capacity`` contact rows."""
    return HitRows(
        np.zeros((capacity, 2), dtype=np.int64),
        np.zeros((capacity, 4)),
        np.zeros((capacity, 2)),
        np.zeros((4, capacity)),
    )


@njit(cache=True)
def write_point(
    rows: HitRows,
    r: int,
    a: int,
    b: int,
    point_a: np.ndarray,
    point_b: np.ndarray,
    nx: float,
    ny: float,
    separation: float,
    toi: float,
    impulses: tuple[float, float],
) -> None:
    """Row ``r``: bodies ``a`` and ``b``, the points ``point_a``, ``point_b (2,)``, the normal
    ``(nx, ny)``, ``separation`` (units, negative when overlapping), ``toi`` (s) and the
    ``impulses`` (normal, tangent; N s) applied at the point."""
    rows.bodies[r, 0] = a
    rows.bodies[r, 1] = b
    rows.points[r, 0] = point_a[0]
    rows.points[r, 1] = point_a[1]
    rows.points[r, 2] = point_b[0]
    rows.points[r, 3] = point_b[1]
    rows.normals[r, 0] = nx
    rows.normals[r, 1] = ny
    rows.scalars[SEPARATION, r] = separation
    rows.scalars[TOI, r] = toi
    rows.scalars[NORMAL_IMPULSE, r] = impulses[0]
    rows.scalars[TANGENT_IMPULSE, r] = impulses[1]


def run_step(kernel: Callable[..., Any], bodies: Bodies, settings: Any, context: StepContext) -> Any:
    """A one-pass solver's compiled step ``kernel(fields, settings_fields, context_fields)``
    between the world's opening and closing of the step (see collision.solvers.protocol):
    its result, or None when the opening refused the state (nothing changed)."""
    fields = tuple(bodies)
    context_fields = tuple(context)
    if not begin_step(fields, context_fields, context.check):
        return None
    result = kernel(fields, settings.fields, context_fields)
    end_step(fields, context.has_compounds)
    return result


def contacts_of(count: int, rows: HitRows) -> Contacts:
    """The first ``count`` rows as :class:`~collision.contacts.Contacts` (state new)."""
    return Contacts.from_rows(count, rows.bodies, rows.points, rows.normals, rows.scalars)


@njit(cache=True)
def candidates(bodies: Bodies, span: float, crowd: np.ndarray) -> np.ndarray:
    """Broadphase for one step: world vertices refreshed, ``(m, 2) int64`` pairs of rows whose
    bounding boxes, swept over ``span`` seconds (0: not swept), overlap; static-static pairs
    skipped; at most the pair budget (``crowd``: the step context's flag, see
    :func:`collision.broadphase.candidate_pairs`)."""
    transform_vertices(
        bodies.local_vertices, bodies.vertex_count, bodies.position, bodies.angle, bodies.world_vertices
    )
    lo, hi = body_bounds(bodies, span)
    return candidate_pairs(lo, hi, bodies.static, crowd)


@njit(cache=True)
def body_bounds(bodies: Bodies, span: float) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``, each ``(n, 2)``: every row's bounding box (its world vertices as they are),
    swept over ``span`` seconds at its velocities (0: not swept), grown by BROADPHASE_MARGIN."""
    n = bodies.position.shape[0]
    lo = np.empty((n, 2))
    hi = np.empty((n, 2))
    swept_bounds(
        bodies.world_vertices,
        bodies.vertex_count,
        bodies.velocity,
        bodies.angular_velocity,
        bodies.radius,
        span,
        BROADPHASE_MARGIN,
        lo,
        hi,
    )
    return lo, hi


@njit(cache=True)
def contact_surface(
    a: np.ndarray,
    b: np.ndarray,
    nx: float,
    ny: float,
    shift_a: tuple[float, float],
    shift_b: tuple[float, float],
) -> tuple[float, bool, float]:
    """``(length, edge_edge, shorter)``: overlap along the tangent of A's and B's touching
    features at the hit (0 for a corner), whether both features are edges (seed 002's
    surface), and the shorter of the two edges' lengths (0 unless ``edge_edge``).

    ``a (ka, 2)``, ``b (kb, 2)``: world vertices at time 0, moved by ``shift_a``, ``shift_b``
    (units: each body's velocity times the hit's time); ``(nx, ny)`` the hit's normal from B
    toward A.
    A corner facing an edge is taken with its neighbour as an edge when that edge is parallel
    to the other within ``CRACK_RELATIVE_LENGTH`` (rad): the normal is one face's, and a body
    tilted by rounding would otherwise meet a flush face at a corner.
    """
    ox, oy = shift_a
    qx, qy = shift_b
    ca, a0x, a0y, a1x, a1y = find_support_points(a, nx, ny, ox, oy)
    cb, b0x, b0y, b1x, b1y = find_support_points(b, -nx, -ny, qx, qy)
    if ca == 2 and cb == 1:
        reach = CRACK_RELATIVE_LENGTH * math.hypot(a1x - a0x, a1y - a0y)
        cb, b0x, b0y, b1x, b1y = find_support_points(b, -nx, -ny, qx, qy, reach)
    elif ca == 1 and cb == 2:
        reach = CRACK_RELATIVE_LENGTH * math.hypot(b1x - b0x, b1y - b0y)
        ca, a0x, a0y, a1x, a1y = find_support_points(a, nx, ny, ox, oy, reach)
    tx = -ny
    ty = nx
    sa0 = a0x * tx + a0y * ty
    sa1 = a1x * tx + a1y * ty
    sb0 = b0x * tx + b0y * ty
    sb1 = b1x * tx + b1y * ty
    lo = max(min(sa0, sa1), min(sb0, sb1))
    hi = min(max(sa0, sa1), max(sb0, sb1))
    edge_edge = ca == 2 and cb == 2
    shorter = min(abs(sa1 - sa0), abs(sb1 - sb0)) if edge_edge else 0.0
    return max(hi - lo, 0.0), edge_edge, shorter


@njit(cache=True, inline="always")
def grazes(length: float, edge_edge: bool, shorter: float, depth: float) -> bool:
    """Whether a hit of :func:`contact_surface` ``(length, edge_edge, shorter)`` and overlap
    ``depth`` (units, 0 for a hit ahead in time) only grazes a crack: two edges that meet at a
    corner (their surface below ``CRACK_RELATIVE_LENGTH`` of the shorter edge), without
    overlap."""
    return depth <= 0.0 and edge_edge and length < CRACK_RELATIVE_LENGTH * shorter
