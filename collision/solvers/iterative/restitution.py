"""Impacts for the iterative solver: restitution and friction act on the impact, not on the step.

The soft step treats every contact as inelastic and spreads an impact over its substeps: the
impact lands in whichever substep the gap closes in, a tilted face that lands corner first
pushes at one corner then the other, and each substep's friction sees only that substep's
share of the impact. What the impact does then depends on where in the step it happened.
Restoring Newton's law point by point afterwards (``v_after = -e * v_before``) over- or
under-shoots: when one point of a face ends separating, sequential restitution adds energy.

Instead, for the manifolds hit by an impact (a point that approached faster than the threshold
and pushed during the step):

1. take back the normal and friction impulses the soft step gave their points over the step,
   which leaves the velocities they came in with (plus whatever the other contacts did);
2. compression: the inelastic impact of all of them together (normal speeds >= 0, impulses
   >= 0, one of each zero; two-point manifolds as an exact 2 x 2 complementarity problem) with
   Coulomb friction (each point's friction impulse at most mu times its normal impulse, and
   no more than stops its sliding), manifolds by Gauss-Seidel until the impulses stop changing;
3. restitution (Poisson's hypothesis): ``e`` times the compression's normal impulses again,
   with friction now bounded by mu times the whole ``(1 + e)`` normal impulse.

A big world (collision.threads.THREADED_BODIES rows or more) resolves each group of the
impact's manifolds joined by bodies the impulses move as an impact of its own
(collision/solvers/iterative/restitution_apart.py).

A box that slides throughout the impact loses exactly ``mu (1 + e)`` times its normal speed
from its tangential speed and gains no spin, wherever in the step it landed. For frictionless
contacts the impact changes kinetic energy by ``(e^2 - 1) / 2 * x K x`` for the compression
impulses x and the contacts' effective mass K: zero when e = 1, a loss when e < 1, never a
gain, whatever the order in which the soft step met the points. Every point of an impact's
manifold takes part, with the manifold's coefficients.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.geometry import UNCOUNTED, Index
from collision.kernels import compiled_only, stage
from collision.solvers.iterative.warm_start import Manifolds, Prepared

#: Gauss-Seidel passes over the impact's manifolds at most; a frictionless lone manifold is
#: exact in one pass, so this only bounds chains of simultaneous impacts and the exchange
#: between a manifold's friction and the split of its normal impulse.
RESTITUTION_PASSES = 32

#: Relative change of the impact's impulses (dimensionless) below which the passes stop.
RESTITUTION_CONVERGENCE = 1e-12

# The Gauss-Seidel visits are compiled without numba's reference counting (UNCOUNTED, see
# collision/geometry.py: they allocate nothing), their small steps inlined by LLVM
# (``forceinline``): each step fetched the arrays of the motion and the impact again and
# counted them, and took the records' arrays as arguments of a call. The 1000-body pile's
# landing (36 manifolds, 32 passes each way) spent 0.33 ms in apply_restitution; 0.14 ms
# uncounted, 0.09 ms inlined too.

#: Columns of the arms (``Prepared.cross_a``, ``cross_b``): crossed with the normal, the tangent.
#: numpy ints: numba would compile the kernels they are passed to once per int literal.
NORMAL, TANGENT = np.int64(0), np.int64(1)


@compiled_only()
def impact_threshold(context: Any, settings: Any) -> float:
    """The least approach speed (units/s) that is an impact (it bounces, its friction is the
    impact's): ``settings.restitution_threshold``, and at least ``restitution_gravity_steps``
    steps of the ``context``'s gravity, so resting contacts are not impacts."""
    gravity = math.hypot(context.gravity_x, context.gravity_y)
    return max(settings.restitution_threshold, settings.restitution_gravity_steps * gravity * context.dt)


class Motion(NamedTuple):
    """What an impulse changes and how much: the bodies' ``velocity (n, 2)``,
    ``angular_velocity (n,)`` and the solver's ``inv_mass``, ``inv_inertia (n,)``."""

    velocity: np.ndarray
    angular_velocity: np.ndarray
    inv_mass: np.ndarray
    inv_inertia: np.ndarray


class Impact(NamedTuple):
    """The step's contact points as the impact sees them: ``normal (c, 2)`` (unit, from B
    toward A), ``prepared`` (warm_start's view: bodies, arms, masses, materials, approach
    speeds), ``manifolds`` (runs of points of one pair, 2 x 2 normal masses)."""

    normal: np.ndarray
    prepared: Prepared
    manifolds: Manifolds


@njit(cache=True, inline="always")
def _frame(impact: Impact, k: Index, column: Index) -> tuple[int, int, float, float]:
    """Point ``k``'s bodies A and B and its unit direction: the normal (``column`` NORMAL) or
    the tangent ``(-ny, nx)`` (TANGENT)."""
    nx = impact.normal[k, 0]
    ny = impact.normal[k, 1]
    ux, uy = (nx, ny) if column == NORMAL else (-ny, nx)
    return impact.prepared.body_a[k], impact.prepared.body_b[k], ux, uy


@njit(cache=True, inline="always")
def body_moves(motion: Motion, i: Index) -> bool:
    """Whether an impulse moves body ``i`` (a nonzero inverse mass or inertia)."""
    return motion.inv_mass[i] != 0.0 or motion.inv_inertia[i] != 0.0


@compiled_only(forceinline=True, **UNCOUNTED)
def _push(motion: Motion, impact: Impact, k: Index, column: Index, d: float) -> None:
    """Impulse ``d`` (N s) on A at point ``k`` along its normal (``column`` NORMAL) or tangent
    ``(-ny, nx)`` (TANGENT), its opposite on B."""
    prepared = impact.prepared
    a, b, ux, uy = _frame(impact, k, column)
    velocity = motion.velocity
    inv_mass = motion.inv_mass
    inv_inertia = motion.inv_inertia
    # A body that does not move is not written (its change is zero): a floor under many
    # impacts resolved on several threads would be written by all of them.
    if body_moves(motion, a):
        velocity[a, 0] += inv_mass[a] * d * ux
        velocity[a, 1] += inv_mass[a] * d * uy
        motion.angular_velocity[a] += inv_inertia[a] * d * prepared.cross_a[k, column]
    if body_moves(motion, b):
        velocity[b, 0] -= inv_mass[b] * d * ux
        velocity[b, 1] -= inv_mass[b] * d * uy
        motion.angular_velocity[b] -= inv_inertia[b] * d * prepared.cross_b[k, column]


@compiled_only(forceinline=True, **UNCOUNTED)
def _speed(motion: Motion, impact: Impact, k: Index, column: Index) -> float:
    """Relative speed (A minus B) at point ``k`` along its normal or tangent (see :func:`_push`)."""
    prepared = impact.prepared
    a, b, ux, uy = _frame(impact, k, column)
    velocity = motion.velocity
    return (
        (velocity[a, 0] - velocity[b, 0]) * ux
        + (velocity[a, 1] - velocity[b, 1]) * uy
        + motion.angular_velocity[a] * prepared.cross_a[k, column]
        - motion.angular_velocity[b] * prepared.cross_b[k, column]
    )


@compiled_only(forceinline=True, **UNCOUNTED)
def _set_impulse(
    motion: Motion, impact: Impact, k: Index, column: Index, total: np.ndarray, new: float
) -> float:
    """Point ``k``'s accumulated impulse ``total[k]`` (normal or tangent, ``column``) becomes
    ``new``: the difference is applied to the bodies (:func:`_push`). Returns its size."""
    d = new - total[k]
    total[k] = new
    _push(motion, impact, k, column, d)
    return abs(d)


@compiled_only()
def _lcp2(
    c0: float, c1: float, k11: float, k12: float, k22: float, i11: float, i12: float, i22: float
) -> tuple[float, float]:
    """x >= 0 with w = K x + c >= 0 and x * w = 0 for the 2 x 2 positive definite K.

    Tries the four active sets; one fits exactly (K positive definite), rounding aside.
    """
    x0 = -(i11 * c0 + i12 * c1)
    x1 = -(i12 * c0 + i22 * c1)
    if x0 >= 0.0 and x1 >= 0.0:
        return x0, x1
    x0 = -c0 / k11
    if x0 >= 0.0 and k12 * x0 + c1 >= 0.0:
        return x0, 0.0
    x1 = -c1 / k22
    if x1 >= 0.0 and k12 * x1 + c0 >= 0.0:
        return 0.0, x1
    if c0 >= 0.0 and c1 >= 0.0:
        return 0.0, 0.0
    # Rounding at a boundary between active sets: the better single row.
    x0 = max(-c0 / k11, 0.0)
    x1 = max(-c1 / k22, 0.0)
    if x0 * (-c0) >= x1 * (-c1):
        return x0, 0.0
    return 0.0, x1


@compiled_only()
def _spread(
    bounce: np.ndarray,
    count: Index,
    prepared: Prepared,
    motion: Motion,
    total_normal: np.ndarray,
    offsets: np.ndarray,
    threshold: float,
) -> Index:
    """Add to ``bounce (g,) bool`` the elastic manifolds the impact reached within the step.

    A body bounced off one contact can hit another in the same step: that contact was not
    closing at the start, so it has no approach speed, but it took the blow (its impulse
    changed the bodies' normal speed by more than the threshold). Left inelastic while the
    first contact is made elastic, the two disagree and energy appears. Spreads from the
    impact's moving bodies until nothing changes; returns the new count.
    """
    groups = offsets.shape[0] - 1
    inv_mass = motion.inv_mass
    inv_inertia = motion.inv_inertia
    body_a = prepared.body_a
    body_b = prepared.body_b
    normal_mass = prepared.normal_mass
    restitution = prepared.restitution
    # Only an elastic point takes the blow on: without one nothing spreads (one pass over the
    # points without branches, where the walk below reads every manifold's bodies).
    elastic = False
    for k in range(restitution.shape[0]):
        elastic |= restitution[k] != 0.0
    if not elastic:
        return count
    hit = np.zeros(inv_mass.shape[0], dtype=np.bool_)
    for g in range(groups):
        if bounce[g]:
            hit[body_a[offsets[g]]] = True
            hit[body_b[offsets[g]]] = True
    grown = True
    while grown:
        grown = False
        for g in range(groups):
            if bounce[g]:
                continue
            a = body_a[offsets[g]]
            b = body_b[offsets[g]]
            moving_a = inv_mass[a] != 0.0 or inv_inertia[a] != 0.0
            moving_b = inv_mass[b] != 0.0 or inv_inertia[b] != 0.0
            if not ((hit[a] and moving_a) or (hit[b] and moving_b)):
                continue
            blow = False
            for k in range(offsets[g], offsets[g + 1]):
                if (
                    restitution[k] != 0.0
                    and normal_mass[k] > 0.0
                    and total_normal[k] > threshold * normal_mass[k]
                ):
                    blow = True
            if blow:
                bounce[g] = True
                count += 1
                hit[a] = True
                hit[b] = True
                grown = True
    return count


@compiled_only()
def impacting(
    motion: Motion,
    prepared: Prepared,
    manifolds: Manifolds,
    max_normal_impulse: np.ndarray,
    total_normal: np.ndarray,
    threshold: float,
) -> np.ndarray:
    """The manifolds of the impact, in order: those with a point that approached faster than
    ``threshold`` (units/s) and pushed during the step, and the elastic ones their impact
    reached (:func:`_spread`)."""
    offsets = manifolds.offsets
    # A local: fetched from the record in the loop, the array would be counted per point.
    approach = prepared.approach
    # Most steps have no impact: one pass over the points without branches says so.
    struck = False
    for k in range(approach.shape[0]):
        struck |= (approach[k] < -threshold) & (max_normal_impulse[k] > 0.0)
    if not struck:
        return np.empty(0, dtype=np.int64)
    groups = offsets.shape[0] - 1
    hit = np.zeros(groups, dtype=np.bool_)
    count: Index = np.int64(0)  # not a literal: _spread would be compiled for it too
    for g in range(groups):
        for k in range(offsets[g], offsets[g + 1]):
            if approach[k] < -threshold and max_normal_impulse[k] > 0.0:
                hit[g] = True
        if hit[g]:
            count += 1
    if count > 0:
        count = _spread(hit, count, prepared, motion, total_normal, offsets, threshold)
    order = np.empty(count, dtype=np.int64)
    m = 0
    for g in range(groups):
        if hit[g]:
            order[m] = g
            m += 1
    return order


@compiled_only(forceinline=True, **UNCOUNTED)
def _normal_rows(motion: Motion, impact: Impact, g: int, x: np.ndarray) -> float:
    """One Gauss-Seidel visit of manifold ``g``'s normal rows (compression impulses ``x``):
    a well-conditioned two-point manifold exactly as a 2 x 2 complementarity problem (Gauss-
    Seidel between two nearly parallel rows would take thousands of passes), else point by
    point. Returns the largest change of an impulse."""
    offsets = impact.manifolds.offsets
    block = impact.manifolds.block
    first = offsets[g]
    last = offsets[g + 1]
    k11 = block[g, 0]
    k12 = block[g, 1]
    k22 = block[g, 2]
    det = k11 * k22 - k12 * k12
    change = 0.0
    if last - first == 2 and det > 0.0:
        k0 = first
        k1 = first + 1
        c0 = _speed(motion, impact, k0, NORMAL) - k11 * x[k0] - k12 * x[k1]
        c1 = _speed(motion, impact, k1, NORMAL) - k12 * x[k0] - k22 * x[k1]
        n0, n1 = _lcp2(c0, c1, k11, k12, k22, k22 / det, -k12 / det, k11 / det)
        for k, new in ((k0, n0), (k1, n1)):
            change = max(change, _set_impulse(motion, impact, k, NORMAL, x, new))
        return change
    for k in range(first, last):
        new = max(x[k] - impact.prepared.normal_mass[k] * _speed(motion, impact, k, NORMAL), 0.0)
        change = max(change, _set_impulse(motion, impact, k, NORMAL, x, new))
    return change


@compiled_only(forceinline=True, **UNCOUNTED)
def _friction_rows(
    motion: Motion, impact: Impact, g: int, load: np.ndarray, scale: np.ndarray, f: np.ndarray
) -> float:
    """One Gauss-Seidel visit of manifold ``g``'s friction rows: each point's accumulated
    friction impulse ``f[k]`` toward stopping its sliding, within mu times ``scale[k]`` times
    its normal impulse ``load[k]``. Returns the largest change of an impulse."""
    prepared = impact.prepared
    offsets = impact.manifolds.offsets
    change = 0.0
    for k in range(offsets[g], offsets[g + 1]):
        limit = prepared.friction[k] * scale[k] * load[k]
        new = min(max(f[k] - prepared.tangent_mass[k] * _speed(motion, impact, k, TANGENT), -limit), limit)
        change = max(change, _set_impulse(motion, impact, k, TANGENT, f, new))
    return change


@compiled_only(forceinline=True, **UNCOUNTED)
def _converge(
    motion: Motion,
    impact: Impact,
    order: np.ndarray,
    span: tuple,
    work: tuple,
    compression: bool | np.bool_,
) -> None:
    """Gauss-Seidel over the manifolds ``order[first:end]`` (``span`` = ``(first, end)``) until
    the impulses stop changing: with ``compression`` the normal rows (impulses ``x``) and the
    friction rows (``f``), else the friction rows alone, the normal impulses fixed; friction
    within mu ``scale`` x (``work`` = ``(x, f, scale)``, each ``(c,)``)."""
    offsets = impact.manifolds.offsets
    first, end = span
    x, f, scale = work
    for _ in range(RESTITUTION_PASSES):
        change = 0.0
        size = 0.0
        for m in range(first, end):
            g = order[m]
            if compression:
                change = max(change, _normal_rows(motion, impact, g, x))
            change = max(change, _friction_rows(motion, impact, g, x, scale, f))
            for k in range(offsets[g], offsets[g + 1]):
                size = max(size, x[k], abs(f[k]))
        if change <= RESTITUTION_CONVERGENCE * size:
            return


@compiled_only(forceinline=True, **UNCOUNTED)
def _take_back(
    motion: Motion, impact: Impact, order: np.ndarray, span: tuple, totals: tuple, work: tuple
) -> None:
    """Step 1 for the manifolds ``order[first:end]`` (``span``): the impulses ``totals`` =
    ``(normal (c,), tangent (c,))`` taken back, and their points' compression impulses ``x``,
    ``f`` zeroed and ``scale`` 1 (``work`` = ``(x, f, scale)``)."""
    offsets = impact.manifolds.offsets
    first, end = span
    total_normal, total_tangent = totals
    x, f, scale = work
    for m in range(first, end):
        g = order[m]
        for k in range(offsets[g], offsets[g + 1]):
            _push(motion, impact, k, NORMAL, -total_normal[k])
            _push(motion, impact, k, TANGENT, -total_tangent[k])
            x[k] = 0.0
            f[k] = 0.0
            scale[k] = 1.0


@compiled_only(forceinline=True, **UNCOUNTED)
def resolve_impact(
    motion: Motion, impact: Impact, order: np.ndarray, span: tuple, totals: tuple, work: tuple
) -> None:
    """Steps 1-3 (see the module docstring) for the manifolds ``order[first:end]`` (``span``)
    as one impact: ``totals`` become the impact's impulses; ``work`` = ``(x, f, scale)``, room
    for each point's (``(c,)`` each), of which only theirs are read and written."""
    prepared = impact.prepared
    offsets = impact.manifolds.offsets
    first, end = span
    total_normal, total_tangent = totals
    x, f, scale = work
    _take_back(motion, impact, order, span, totals, work)
    _converge(motion, impact, order, span, work, np.bool_(True))  # not literals: one compile
    # Restitution: e times the compression impulse again, one coefficient per manifold
    # (Poisson's impact keeps energy only when every point's impulse is restored by the same
    # factor); friction may grow with the normal impulse, to mu (1 + e) x.
    bounces = False
    for m in range(first, end):
        g = order[m]
        for k in range(offsets[g], offsets[g + 1]):
            e = prepared.restitution[k]
            scale[k] = 1.0 + e
            if e != 0.0:
                bounces = True
                _push(motion, impact, k, NORMAL, e * x[k])
                prepared.normal_impulse[k] = 0.0
                prepared.tangent_impulse[k] = 0.0
    if bounces:
        _converge(motion, impact, order, span, work, np.bool_(False))
    for m in range(first, end):
        g = order[m]
        for k in range(offsets[g], offsets[g + 1]):
            total_normal[k] = scale[k] * x[k]
            total_tangent[k] = f[k]


@stage()
def apply_restitution(
    motion: Motion, impact: Impact, max_normal_impulse: np.ndarray, totals: tuple, threshold: float
) -> None:
    """Replace the impact's impulses over the step by one impact with Coulomb friction and
    Poisson restitution (see the module docstring), every manifold the impact reached together.

    ``max_normal_impulse (c,)``: the largest normal impulse each point gave in a pass of the
    soft step; ``totals``: ``(total_normal (c,), total_tangent (c,))``, its impulses over the
    step (N s); ``threshold`` (units/s): the least approach speed that is an impact. Updates
    velocities, the totals (now the impact's) and, for bouncing points, which leave the step
    separating, the warm-start store (``impact.prepared``'s impulses, zeroed) in place.
    """
    order = impacting(motion, impact.prepared, impact.manifolds, max_normal_impulse, totals[0], threshold)
    if order.shape[0] == 0:
        return
    c = totals[0].shape[0]
    work = (np.empty(c), np.empty(c), np.empty(c))
    resolve_impact(motion, impact, order, (np.int64(0), order.shape[0]), totals, work)
