"""Tutorial 7 and seed 002 as arrays: one step of the ``"tutorial"`` solver replayed hit by hit
with each impulse's terms, and the ``"arcade"`` solver's first choice in a step.

See :mod:`collision.explain` for what this module is and is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from collision import checks
from collision.bodies import Bodies, begin_step
from collision.solvers.arcade import evaluate
from collision.solvers.hits import candidates
from collision.solvers.impulses import NORMAL_MASS, PairContact, relative_velocity
from collision.solvers.pending import earliest, new_pending, push_hit
from collision.solvers.protocol import StepContext
from collision.solvers.tutorial import (
    DEPTH,
    FRICTION,
    II_A,
    II_B,
    IM_A,
    IM_B,
    NX,
    NY,
    RESTITUTION,
    TIME,
    resolve_step,
    stored_pair,
)
from collision.tolerances import MAX_TIME_STEP, MIN_TIME_STEP
from collision.world import World

# ---------------------------------------------------------------------------------------------
# One step of the tutorial solver (Tutorial 7, seed 004)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StepInput:
    """A copy of a world's bodies and the context of its next step (see :func:`snapshot`)."""

    bodies: Bodies
    context: StepContext
    tutorial: Any
    arcade: Any


def _check_start(start: Any) -> None:
    if not isinstance(start, StepInput):
        raise ValueError(f"start = {checks.show(start)}: must be a StepInput (collision.explain.snapshot)")


def _copy(bodies: Bodies) -> Bodies:
    return Bodies(*(np.array(field, copy=True) for field in bodies))


def snapshot(world: World, dt: float) -> StepInput:
    """What the world's next step of ``dt`` seconds starts from: a copy of its bodies (forces
    included), the step's context and the tutorial and arcade solvers' settings. Take it just
    before ``world.step(dt)``; replay it with :func:`tutorial_step` or :func:`arcade_choice`."""
    if not isinstance(world, World):
        raise ValueError(f"world = {checks.show(world)}: must be a collision.World")
    h = checks.number(dt, "dt", minimum=MIN_TIME_STEP, maximum=MAX_TIME_STEP)
    store = world._store
    gx, gy = (float(g) for g in world.gravity)
    crowd = np.zeros(1, dtype=np.int64)
    context = StepContext(h, gx, gy, world.continuous, store.has_compounds, store.has_kinematic, crowd)
    return StepInput(
        _copy(store.rows),
        context,
        world.solver_settings("tutorial").values,
        world.solver_settings("arcade").values,
    )


#: Columns of a traced hit's per-point table (``ImpulseTrace.points``).
(
    P_AX,
    P_AY,
    P_BX,
    P_BY,
    P_RAX,
    P_RAY,
    P_RBX,
    P_RBY,
    P_VN,
    P_VT,
    P_RA_N,
    P_RB_N,
    P_K,
    P_JN,
    P_JT,
) = range(15)
#: Columns of a traced hit's body table (``ImpulseTrace.bodies_before`` / ``_after``).
VAX, VAY, WA, VBX, VBY, WB = range(6)


@njit(cache=True, inline="always")
def _read_velocities(
    velocity: np.ndarray, angular_velocity: np.ndarray, i: int, j: int, out: np.ndarray
) -> None:
    """Bodies ``i``'s and ``j``'s velocities into ``out (6,)`` (columns VAX.. WB)."""
    out[VAX] = velocity[i, 0]
    out[VAY] = velocity[i, 1]
    out[WA] = angular_velocity[i]
    out[VBX] = velocity[j, 0]
    out[VBY] = velocity[j, 1]
    out[WB] = angular_velocity[j]


@njit(cache=True)
def _tutorial_trace(
    bodies: Bodies, settings: Any, context: StepContext
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``tutorial_step`` (collision.solvers.tutorial) with every hit recorded: the solver's own
    ``resolve_step`` on ``bodies`` (which it advances), after ``begin_step``.

    Returns ``(hits, index (m, 3) int64: A, B, contact count; scalars (m, 10): nx, ny, t,
    depth, restitution, friction, inv mass A, B, inv inertia A, B; before (m, 6), after (m, 6):
    the bodies' velocities (VAX.. WB) before the step's impulses and after all of them;
    points (m, 2, 15): per contact point (P_AX.. P_JT; speeds before the step's impulses, the
    impulses totals); rows (m,) int64: the first contact row of the step's contacts)``.
    """
    hits, m = resolve_step(bodies, settings, context)
    index = np.zeros((m, 3), dtype=np.int64)
    scalars = np.zeros((m, 10))
    before = np.zeros((m, 6))
    after = np.zeros((m, 6))
    points = np.zeros((m, 2, 15))
    first_row = np.zeros(m, dtype=np.int64)
    count = 0
    for h in range(m):
        pair = stored_pair(hits, h)
        c = hits.point_count[h]
        i = pair.i
        j = pair.j
        index[h, 0] = i
        index[h, 1] = j
        index[h, 2] = c
        first_row[h] = count
        count += c
        v = hits.values[h]
        s = scalars[h]
        s[0], s[1], s[2], s[3] = v[NX], v[NY], v[TIME], v[DEPTH]
        s[4], s[5], s[6], s[7] = v[RESTITUTION], v[FRICTION], v[IM_A], v[IM_B]
        s[8], s[9] = v[II_A], v[II_B]
        _read_velocities(hits.start_velocity, hits.start_angular_velocity, i, j, before[h])
        _read_velocities(bodies.velocity, bodies.angular_velocity, i, j, after[h])
        ra = hits.arm_a[h]
        rb = hits.arm_b[h]
        contact = PairContact(
            hits.start_velocity, hits.start_angular_velocity, pair, c, ra, rb, hits.terms[h]
        )
        for k in range(c):
            q = points[h, k]
            q[P_AX] = hits.point_a[h, k, 0]
            q[P_AY] = hits.point_a[h, k, 1]
            q[P_BX] = hits.point_b[h, k, 0]
            q[P_BY] = hits.point_b[h, k, 1]
            q[P_RAX] = ra[k, 0]
            q[P_RAY] = ra[k, 1]
            q[P_RBX] = rb[k, 0]
            q[P_RBY] = rb[k, 1]
            rvx, rvy = relative_velocity(contact, k)
            q[P_VN] = rvx * pair.nx + rvy * pair.ny
            q[P_VT] = -rvx * pair.ny + rvy * pair.nx
            q[P_RA_N] = ra[k, 0] * pair.ny - ra[k, 1] * pair.nx
            q[P_RB_N] = rb[k, 0] * pair.ny - rb[k, 1] * pair.nx
            q[P_K] = hits.terms[h, k, NORMAL_MASS]
            q[P_JN] = hits.jn[h, k]
            q[P_JT] = hits.jt[h, k]
    return m, index, scalars, before, after, points, first_row


@dataclass(frozen=True, eq=False)
class ImpulseTrace:
    """One step of the ``"tutorial"`` solver, hit by hit, in the order it resolved them
    (``h`` hits; see :func:`tutorial_step`).

    ``body_a``, ``body_b``, ``count (h,) int64`` (bodies A and B, contact points 1 or 2);
    ``normal (h, 2)`` unit from B toward A; ``t``, ``depth (h,)``; ``restitution``,
    ``friction (h,)`` mixed; ``inv_mass``, ``inv_inertia (h, 2)`` (A, B); ``before``, ``after
    (h, 6)``: A's and B's velocities (VAX, VAY, WA, VBX, VBY, WB) before and after the
    response; ``points (h, 2, 15)`` per contact point (columns P_AX.. P_JT: the points on A and
    B, their arms from the centroids, the relative normal and tangential speeds before, ra x n,
    rb x n, the effective mass denominator K = 1/ma + 1/mb + (ra x n)^2 / Ia + (rb x n)^2 / Ib,
    and the solver's normal and friction impulses); ``first_row (h,)`` the hit's first row in
    the step's ``world.contacts``. ``bodies``: the bodies after the replayed step (equal to the
    world's after its own step).
    """

    body_a: np.ndarray
    body_b: np.ndarray
    count: np.ndarray
    normal: np.ndarray
    t: np.ndarray
    depth: np.ndarray
    restitution: np.ndarray
    friction: np.ndarray
    inv_mass: np.ndarray
    inv_inertia: np.ndarray
    before: np.ndarray
    after: np.ndarray
    points: np.ndarray
    first_row: np.ndarray
    bodies: Bodies

    def __len__(self) -> int:
        return int(self.body_a.shape[0])

    def formula_impulse(self, h: int, k: int) -> float:
        """Seed 004's eq. 3 for point ``k`` of hit ``h`` alone: j = -(1 + e) vn / K (N s), 0
        when the point is not approaching. (The solver solves both points of a hit together and
        adds friction; its totals are the P_JN and P_JT columns.)"""
        q = self.points[h, k]
        vn = q[P_VN]
        return float(-(1.0 + self.restitution[h]) * vn / q[P_K]) if vn < 0.0 else 0.0


def tutorial_step(start: StepInput) -> ImpulseTrace:
    """Replay the ``"tutorial"`` solver's step from ``start`` (:func:`snapshot`), recording each
    hit: the world's own step from the same state ends in the same state, bit for bit."""
    _check_start(start)
    bodies = _copy(start.bodies)
    begin_step(tuple(bodies), tuple(start.context), False)
    traced = _tutorial_trace(bodies, start.tutorial, start.context)
    _, index, scalars, before, after, points, first_row = traced
    return ImpulseTrace(
        body_a=index[:, 0].copy(),
        body_b=index[:, 1].copy(),
        count=index[:, 2].copy(),
        normal=scalars[:, 0:2].copy(),
        t=scalars[:, 2].copy(),
        depth=scalars[:, 3].copy(),
        restitution=scalars[:, 4].copy(),
        friction=scalars[:, 5].copy(),
        inv_mass=scalars[:, 6:8].copy(),
        inv_inertia=scalars[:, 8:10].copy(),
        before=before,
        after=after,
        points=points,
        first_row=first_row,
        bodies=bodies,
    )


# ---------------------------------------------------------------------------------------------
# The arcade solver's first choice in a step (seed 002)
# ---------------------------------------------------------------------------------------------

#: Columns of ``ArcadeChoice``'s candidate table.
C_TIME, C_NX, C_NY, C_DEPTH, C_SURFACE = range(5)


@njit(cache=True)
def _arcade_candidates(
    bodies: Bodies, context: StepContext
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The hits the arcade solver's ordered pass can resolve first, from ``bodies`` after
    ``begin_step``: every candidate pair's swept test with ``evaluate``, without and with the
    graze rule. Returns ``(rows (m, 2) int64, values (m, 5), graze (m,) bool, with_rule,
    without_rule)``: the hits needing a response (columns C_TIME.. C_SURFACE), which of them
    the surface-area rule ignores as grazes, and the index ``earliest`` picks with the rule on
    (grazes dropped, largest surface first among simultaneous hits) and off (first found)."""
    dt = context.dt
    pairs = candidates(bodies, dt if context.continuous else 0.0, context.crowd)
    m = pairs.shape[0]
    rows = np.zeros((m, 2), dtype=np.int64)
    values = np.zeros((m, 5))
    graze = np.zeros(m, dtype=np.bool_)
    kept = new_pending(max(m, 1))
    every = new_pending(max(m, 1))
    n_kept = 0
    n = 0
    for p in range(m):
        i = pairs[p, 0]
        j = pairs[p, 1]
        active, hit, length = evaluate(bodies, i, j, dt, False, True)
        if not active:
            continue
        ruled, _, _ = evaluate(bodies, i, j, dt, True, True)
        rows[n, 0] = i
        rows[n, 1] = j
        values[n, C_TIME] = hit.t
        values[n, C_NX] = hit.nx
        values[n, C_NY] = hit.ny
        values[n, C_DEPTH] = hit.depth
        values[n, C_SURFACE] = length
        graze[n] = not ruled
        every, _ = push_hit(every, n, hit, hit.t, length)
        if ruled:
            kept, n_kept = push_hit(kept, n_kept, hit, hit.t, length)
        n += 1
    with_rule = earliest(kept, n_kept, True)
    # Map the pick among the kept hits back to its index among all of them.
    if with_rule >= 0:
        seen = -1
        for e in range(n):
            if not graze[e]:
                seen += 1
                if seen == with_rule:
                    with_rule = e
                    break
    without_rule = earliest(every, n, False)
    return rows[:n], values[:n], graze[:n], with_rule, without_rule


@dataclass(frozen=True, eq=False)
class ArcadeChoice:
    """The first choice of the ``"arcade"`` solver's ordered pass in a step (``h`` hits found;
    see :func:`arcade_choice`): ``body_a``, ``body_b (h,) int64``; ``time (h,)`` s into the step;
    ``normal (h, 2)``; ``depth (h,)``; ``surface (h,)`` the contact surface length (units: the
    overlap of the touching features along the tangent, 0 for a corner); ``graze (h,) bool``:
    a corner-only edge contact the surface-area rule ignores (the crack between flush boxes);
    ``with_rule`` / ``without_rule``: the hit resolved first with the rule on / off (-1: none)."""

    body_a: np.ndarray
    body_b: np.ndarray
    time: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    surface: np.ndarray
    graze: np.ndarray
    with_rule: int
    without_rule: int

    def __len__(self) -> int:
        return int(self.body_a.shape[0])


def arcade_choice(start: StepInput) -> ArcadeChoice:
    """The hits the ``"arcade"`` solver's ordered pass (seed 002) finds at the start of the step
    that begins at ``start`` (:func:`snapshot`), and the one it resolves first with and without
    the surface-area rule. (The order of the whole step is the order of its rows in
    ``world.contacts``, each with its time in ``toi``.)"""
    _check_start(start)
    bodies = _copy(start.bodies)
    begin_step(tuple(bodies), tuple(start.context), False)
    rows, values, graze, with_rule, without_rule = _arcade_candidates(bodies, start.context)
    root = bodies.root
    return ArcadeChoice(
        body_a=root[rows[:, 0]].copy(),
        body_b=root[rows[:, 1]].copy(),
        time=values[:, C_TIME].copy(),
        normal=values[:, C_NX : C_NY + 1].copy(),
        depth=values[:, C_DEPTH].copy(),
        surface=values[:, C_SURFACE].copy(),
        graze=graze.copy(),
        with_rule=int(with_rule),
        without_rule=int(without_rule),
    )
