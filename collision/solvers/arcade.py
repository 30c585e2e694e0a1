"""The "arcade" response: Tutorial 4's velocity reflection, with seed 002's ordered timeslices.

Response to one hit (Tutorial 4, on velocities): with ``D = vA - vB`` approaching along the
normal ``N`` (``D.N < 0``), ``Dn = (D.N) N``, ``Dt = D - Dn``, the change
``dD = -(1 + e) Dn - f Dt`` is shared by inverse mass: ``vA += dD mA^-1 / (mA^-1 + mB^-1)``,
``vB -= dD mB^-1 / (...)``. ``e`` is the restitution, ``f`` the friction coefficient (0 none,
1 stops the sliding dead); while ``|Dt|`` is below the glue speed (the pair's
``static_friction``, in units/s) ``f`` becomes 1, which cancels ``Dt`` exactly (the article's
"set Vt to (0, 0)"; the original's 1.01 reversed it by 1%). An overlap is first pushed apart
by its full depth along ``N``, shared by inverse mass, so a static body never moves. Rotation
is kinematic: angular velocity turns a body but collisions never change it.

Processing (:class:`ArcadeSettings`'s ``ordered``):

- ``True`` (seed 002, :func:`ordered_pass`): find the earliest hit over all candidate pairs in
  the remaining timeslice; advance every body to that time; resolve it; repeat on what is left
  of the step, up to ``max_subdivisions`` hits per step (then one warning per solver: the
  remaining pairs are resolved immediately, and a body that would still hit something moves on
  only until that hit, dropping the rest of its step, so nothing passes through). Hits within
  ``ARCADE_TIME_EPSILON`` of each other are ranked by contact surface length, the overlap along
  the tangent of the two touching features, largest first; and an edge that meets another edge
  only at a corner (surface below ``CRACK_RELATIVE_LENGTH`` of the shorter edge, without
  overlap) is a graze, not a hit: that is the crack between two flush boxes, which must not
  snag a body sliding along them. ``surface_rule = False`` turns off that ranking and the
  graze rule (ordering stays), to show what each part of seed 002 does.
- ``False`` (Tutorial 4 as the original did it, :func:`immediate_pass`): each candidate pair
  in index order, once, over the whole step, resolved at once; bodies are not moved to the
  time of impact.

A pair that touches without approaching (normal speed above ``-ARCADE_APPROACH_SPEED``) and
does not overlap is resting, not hit.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.bodies import Bodies
from collision.broadphase import candidate_pairs, transform_vertices
from collision.contacts import Contacts, find_contacts
from collision.geometry import mix_friction, mix_restitution, shift_body_vertices, wrap_angle
from collision.kernels import BorrowingCompiler, compiled_only
from collision.sat import sweep_kernel
from collision.solvers.hits import (
    HitRows,
    body_bounds,
    candidates,
    contact_surface,
    contacts_of,
    grazes,
    new_rows,
    run_step,
    write_point,
)
from collision.solvers.pending import Pending, earliest, forget, new_pending, push_hit
from collision.solvers.protocol import StepContext
from collision.solvers.settings import Setting, Settings
from collision.tolerances import ARCADE_APPROACH_SPEED

#: Friction coefficient used inside the glue speed: cancels the tangential velocity exactly.
GLUE_FRICTION = 1.0


class ArcadeSettings(Settings):
    """Settings of the ``"arcade"`` solver (``world.solver_settings("arcade")``)."""

    ordered = Setting(
        "bool",
        True,
        "Process hits earliest first, with timeslice subdivision (seed 002), or, when False, each "
        "candidate pair once in pair order over the whole step (Tutorial 4 as the original did).",
    )
    surface_rule = Setting(
        "bool",
        True,
        "With ``ordered``: rank simultaneous hits by contact surface and ignore corner-only grazes "
        "(seed 002's rule for the crack between flush boxes).",
    )
    max_subdivisions = Setting(
        "int",
        64,
        "Most hits resolved earliest-first in one step before the rest are resolved immediately, "
        "in pair order (a RuntimeWarning says so once per solver).",
        1,
        100_000,
    )


ArcadeValues = ArcadeSettings.Values


class ArcadeHit(NamedTuple):
    """A hit of rows ``i`` and ``j``: its time ``t`` (s, within the span tested), normal
    ``(nx, ny)`` from B toward A, overlap ``depth`` (units, 0 for a future hit)."""

    i: int
    j: int
    t: float
    nx: float
    ny: float
    depth: float


@njit(cache=True, inline="always")
def mirror_parts(bodies: Bodies, r: int) -> None:
    """Copy body ``r``'s position and velocity into the rows of its parts (compounds)."""
    root = bodies.root
    v = r + 1
    while v < root.shape[0] and root[v] == r:
        bodies.position[v, 0] = bodies.position[r, 0]
        bodies.position[v, 1] = bodies.position[r, 1]
        bodies.velocity[v, 0] = bodies.velocity[r, 0]
        bodies.velocity[v, 1] = bodies.velocity[r, 1]
        v += 1


@njit(cache=True, inline="always")
def reflect(
    bodies: Bodies, i: int, j: int, nx: float, ny: float, depth: float
) -> tuple[float, float, float, float]:
    """Push bodies ``i`` and ``j`` (roots) out of an overlap of ``depth`` and reflect their
    relative velocity (Tutorial 4). Returns ``(push_a, push_b, normal_impulse,
    tangent_impulse)``: how far A moved along +n and B along -n, and the impulses (N s)."""
    position = bodies.position
    velocity = bodies.velocity
    im_a = bodies.inv_mass[i]
    im_b = bodies.inv_mass[j]
    im_sum = im_a + im_b
    if im_sum <= 0.0:
        return 0.0, 0.0, 0.0, 0.0
    push_a = 0.0
    push_b = 0.0
    if depth > 0.0:
        push_a = depth * im_a / im_sum
        push_b = depth * im_b / im_sum
        position[i, 0] += push_a * nx
        position[i, 1] += push_a * ny
        position[j, 0] -= push_b * nx
        position[j, 1] -= push_b * ny
    dx = velocity[i, 0] - velocity[j, 0]
    dy = velocity[i, 1] - velocity[j, 1]
    dn = dx * nx + dy * ny
    if dn >= 0.0:
        return push_a, push_b, 0.0, 0.0
    tx = dx - dn * nx
    ty = dy - dn * ny
    vt = math.sqrt(tx * tx + ty * ty)
    e = mix_restitution(bodies.restitution[i], bodies.restitution[j])
    f = min(mix_friction(bodies.friction[i], bodies.friction[j]), 1.0)
    if vt < mix_friction(bodies.static_friction[i], bodies.static_friction[j]):
        f = GLUE_FRICTION
    ddx = -(1.0 + e) * dn * nx - f * tx
    ddy = -(1.0 + e) * dn * ny - f * ty
    velocity[i, 0] += ddx * im_a / im_sum
    velocity[i, 1] += ddy * im_a / im_sum
    velocity[j, 0] -= ddx * im_b / im_sum
    velocity[j, 1] -= ddy * im_b / im_sum
    return push_a, push_b, -(1.0 + e) * dn / im_sum, f * vt / im_sum


@njit(cache=True, inline="always")
def resolve(bodies: Bodies, i: int, j: int, nx: float, ny: float, depth: float) -> tuple[float, float]:
    """:func:`reflect` bodies ``i`` and ``j`` (roots), then carry the push to the world
    vertices of all their rows and the new pose to their part rows (compounds). Returns the
    impulses ``(normal, tangent)`` (N s)."""
    push_a, push_b, jn, jt = reflect(bodies, i, j, nx, ny, depth)
    wv = bodies.world_vertices
    shift_body_vertices(wv, bodies.vertex_count, bodies.root, i, push_a * nx, push_a * ny)
    shift_body_vertices(wv, bodies.vertex_count, bodies.root, j, -push_b * nx, -push_b * ny)
    mirror_parts(bodies, i)
    mirror_parts(bodies, j)
    return jn, jt


@compiled_only()
def _active(
    a: np.ndarray, b: np.ndarray, hit: ArcadeHit, velocity: np.ndarray, skip_grazes: bool
) -> tuple[bool, float]:
    """Whether a reported hit of ``a`` (row ``hit.i``) and ``b`` (row ``hit.j``), moving at
    ``velocity (n, 2)``, needs a response; and its contact surface length."""
    nx = hit.nx
    ny = hit.ny
    t = hit.t
    vax = velocity[hit.i, 0]
    vay = velocity[hit.i, 1]
    vbx = velocity[hit.j, 0]
    vby = velocity[hit.j, 1]
    if hit.depth <= 0.0 and (vax - vbx) * nx + (vay - vby) * ny >= -ARCADE_APPROACH_SPEED:
        return False, 0.0
    length, edge_edge, shorter = contact_surface(a, b, nx, ny, (vax * t, vay * t), (vbx * t, vby * t))
    if skip_grazes and grazes(length, edge_edge, shorter, hit.depth):
        return False, length
    return True, length


@njit(cache=True, inline="always")
def _pair_state(bodies: Bodies, i: int, j: int) -> tuple[np.ndarray, np.ndarray, float, float, float, float]:
    """Rows ``i`` and ``j`` as a pair: ``(a (ka, 2), b (kb, 2), vax, vay, vbx, vby)``, their
    world vertices (views) and velocities."""
    velocity = bodies.velocity
    a = bodies.world_vertices[i, : bodies.vertex_count[i]]
    b = bodies.world_vertices[j, : bodies.vertex_count[j]]
    return a, b, velocity[i, 0], velocity[i, 1], velocity[j, 0], velocity[j, 1]


@njit(cache=True, inline="always")
def _responds(bodies: Bodies, i: int, j: int) -> bool:
    """Whether rows ``i`` and ``j`` can collide: different bodies, not both of infinite mass
    (static or kinematic)."""
    ri = bodies.root[i]
    rj = bodies.root[j]
    return ri != rj and bodies.inv_mass[ri] + bodies.inv_mass[rj] > 0.0


@njit(cache=True)
def evaluate(
    bodies: Bodies, i: int, j: int, span: float, skip_grazes: bool, sweep: bool
) -> tuple[bool, ArcadeHit, float]:
    """The swept test of rows ``i`` and ``j`` over ``span`` seconds (overlap only without
    ``sweep``): ``(needs a response, the hit, its contact surface)``; ``skip_grazes``: a
    corner-only edge contact (a crack) is not a hit. Rows that cannot collide
    (:func:`_responds`) need no response."""
    if not _responds(bodies, i, j):
        return False, ArcadeHit(i, j, 0.0, 0.0, 0.0, 0.0), 0.0
    a, b, vax, vay, vbx, vby = _pair_state(bodies, i, j)
    if sweep:
        hit, nx, ny, t, depth = sweep_kernel(a, b, vax - vbx, vay - vby, span)
    else:
        hit, nx, ny, t, depth = sweep_kernel(a, b, 0.0, 0.0, span)
    found = ArcadeHit(i, j, t, nx, ny, depth)
    if not hit:
        return False, found, 0.0
    active, length = _active(a, b, found, bodies.velocity, skip_grazes)
    return active, found, length


@njit(cache=True, inline="always")
def record_and_resolve(
    bodies: Bodies, hit: ArcadeHit, t: float, toi: float, rows: HitRows, count: int, scratch: np.ndarray
) -> int:
    """One hit of rows ``hit.i`` and ``hit.j``: append its contact rows from row ``count``
    (found before the push moves the bodies, with the velocities that made the hit, at time
    ``t`` into what was tested; ``toi`` seconds into the step), resolve it on their roots, and
    share its impulses among the rows. ``scratch (2, 2, 2)``: room for the points. Returns the
    new row count."""
    i = hit.i
    j = hit.j
    nx = hit.nx
    ny = hit.ny
    depth = hit.depth
    root = bodies.root
    a, b, vax, vay, vbx, vby = _pair_state(bodies, i, j)
    out_a = scratch[0]
    out_b = scratch[1]
    c = find_contacts(a, b, nx, ny, t, vax, vay, vbx, vby, out_a, out_b)
    gap = -((vax - vbx) * nx + (vay - vby) * ny) * t
    jn, jt = resolve(bodies, root[i], root[j], nx, ny, depth)
    # As many points as the rows have room for share the impulses.
    written = min(c, rows.bodies.shape[0] - count)
    separation = -depth if depth > 0.0 else gap
    for k in range(written):
        share = (jn / written, jt / written)
        write_point(rows, count, root[i], root[j], out_a[k], out_b[k], nx, ny, separation, toi, share)
        count += 1
    return count


@compiled_only()
def immediate_pass(
    bodies: Bodies,
    pairs: np.ndarray,
    span: float,
    t_start: float,
    skip_grazes: bool,
    sweep: bool,
    rows: HitRows,
    count: int,
) -> int:
    """Tutorial 4's processing: each pair once, in order, over ``span`` seconds (from
    ``t_start`` into the step), resolved as found; without ``sweep``, overlap only (no time of
    impact). Appends contact rows from row ``count``; returns the new count."""
    scratch = np.zeros((2, 2, 2))
    for p in range(pairs.shape[0]):
        active, hit, _ = evaluate(bodies, pairs[p, 0], pairs[p, 1], span, skip_grazes, sweep)
        if active:
            count = record_and_resolve(bodies, hit, hit.t, t_start + hit.t, rows, count, scratch)
    return count


@njit(cache=True, inline="always")
def advance_body(bodies: Bodies, b: int, h: float) -> None:
    """Move body ``b`` on by ``h`` seconds (static bodies never move)."""
    if h <= 0.0 or bodies.static[b]:
        return
    bodies.position[b, 0] += bodies.velocity[b, 0] * h
    bodies.position[b, 1] += bodies.velocity[b, 1] * h
    bodies.angle[b] = wrap_angle(bodies.angle[b] + bodies.angular_velocity[b] * h)


@njit(cache=True)
def advance(bodies: Bodies, h: float) -> None:
    """Move every body on by ``h`` seconds."""
    for b in range(bodies.position.shape[0]):
        advance_body(bodies, b, h)


@compiled_only()
def retest(
    bodies: Bodies,
    pending: Pending,
    entries: int,
    ri: int,
    rj: int,
    remaining: float,
    t_now: float,
    surface_rule: bool,
) -> tuple[Pending, int]:
    """Test every row of bodies ``ri`` and ``rj`` (roots, after a hit changed their velocities)
    again over the ``remaining`` seconds of the step against every body whose swept box meets
    theirs, and add the hits found (at ``t_now`` plus their time) to ``pending``. Each pair of
    bodies once: from A's rows, then B's except against A. Returns the pending hits and count."""
    n = bodies.position.shape[0]
    root = bodies.root
    lo, hi = body_bounds(bodies, remaining)
    for side in range(2):
        rd = ri if side == 0 else rj
        if bodies.static[rd]:
            continue
        d = rd
        while d < n and root[d] == rd:
            for k in range(n):
                if root[k] == rd or (side == 1 and root[k] == ri):
                    continue
                if lo[k, 0] > hi[d, 0] or lo[d, 0] > hi[k, 0] or lo[k, 1] > hi[d, 1] or lo[d, 1] > hi[k, 1]:
                    continue
                ok, hit, length = evaluate(bodies, min(d, k), max(d, k), remaining, surface_rule, True)
                if ok:
                    pending, entries = push_hit(pending, entries, hit, t_now + hit.t, length)
            d += 1
    return pending, entries


@compiled_only()
def finish_capped(
    bodies: Bodies, remaining: float, t_now: float, surface_rule: bool, rows: HitRows, count: int
) -> int:
    """After ``max_subdivisions`` ordered hits: the pairs left are resolved immediately, in
    order, over the ``remaining`` seconds; then each body moves on only until its own next hit,
    if it has one (that part of the step is dropped for it rather than let it pass through
    another body). Returns the new row count."""
    n = bodies.position.shape[0]
    lo, hi = body_bounds(bodies, remaining)
    # Within the pair budget; a crowd was reported by the step's first broadphase already.
    pairs = candidate_pairs(lo, hi, bodies.static, np.zeros(1, dtype=np.int64))
    count = immediate_pass(bodies, pairs, remaining, t_now, True, True, rows, count)
    transform_vertices(
        bodies.local_vertices, bodies.vertex_count, bodies.position, bodies.angle, bodies.world_vertices
    )
    root = bodies.root
    span = np.full(n, remaining)
    for p in range(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        ok, hit, _ = evaluate(bodies, i, j, remaining, surface_rule, True)
        if ok:
            span[root[i]] = min(span[root[i]], hit.t)
            span[root[j]] = min(span[root[j]], hit.t)
    for body in range(n):
        # A compound's rows move together, by its root's span.
        advance_body(bodies, body, span[root[body]])
    return count


@compiled_only()
def ordered_pass(
    bodies: Bodies, pairs: np.ndarray, settings: Any, dt: float, rows: HitRows
) -> tuple[int, bool]:
    """Seed 002's processing: the earliest hit of the step first, every body advanced to its
    time, resolved; then the same over what is left of the step, with only the two bodies just
    hit tested again (a hit between bodies whose velocities have not changed since it was found
    stays valid as time advances). Moves the bodies to the end of the step. Returns the number
    of contact rows and whether ``settings.max_subdivisions`` cut the step short."""
    surface_rule = settings.surface_rule
    root = bodies.root
    pending = new_pending(max(16, 2 * pairs.shape[0]))
    entries = 0
    for p in range(pairs.shape[0]):
        ok, hit, length = evaluate(bodies, pairs[p, 0], pairs[p, 1], dt, surface_rule, True)
        if ok:
            pending, entries = push_hit(pending, entries, hit, hit.t, length)
    scratch = np.zeros((2, 2, 2))
    count = 0
    t_now = 0.0
    hits = 0
    while dt - t_now > 0.0:
        remaining = dt - t_now
        if hits >= settings.max_subdivisions:
            return finish_capped(bodies, remaining, t_now, surface_rule, rows, count), True
        best = earliest(pending, entries, surface_rule)
        if best < 0:
            advance(bodies, remaining)
            break
        hit = ArcadeHit(
            pending.rows[best, 0],
            pending.rows[best, 1],
            0.0,
            pending.values[best, 1],
            pending.values[best, 2],
            pending.values[best, 3],
        )
        best_t = pending.values[best, 0]
        advance(bodies, max(best_t - t_now, 0.0))
        t_now = max(best_t, t_now)
        transform_vertices(
            bodies.local_vertices, bodies.vertex_count, bodies.position, bodies.angle, bodies.world_vertices
        )
        count = record_and_resolve(bodies, hit, 0.0, t_now, rows, count, scratch)
        hits += 1
        ri = root[hit.i]
        rj = root[hit.j]
        entries = forget(pending, entries, root, bodies.static, ri, rj)
        if dt - t_now > 0.0:
            pending, entries = retest(bodies, pending, entries, ri, rj, dt - t_now, t_now, surface_rule)
    return count, False


@njit(cache=True, pipeline_class=BorrowingCompiler)
def arcade_step(fields: tuple, settings_fields: tuple, context_fields: tuple) -> tuple[int, bool, HitRows]:
    """One arcade step (see the module docstring); positions and angles are integrated. The
    body store's rows, the :class:`ArcadeSettings` values and the step context come as plain
    tuples (collision.records).

    A compound's parts are rows that mirror their root (pushes and velocity changes go to the
    root and are copied to them; collisions never change angular velocity here, so they turn
    alike). Kinematic bodies (inverse mass 0, not static) move with their velocity and are not
    hit by static or kinematic bodies. Without ``context.continuous`` every pair is tested for
    overlap once, in order (no time of impact). ``settings``: :class:`ArcadeSettings` values.

    Returns ``(count, capped, rows)``: the contact rows and how many are used, and whether the
    cap on subdivisions was reached.
    """
    bodies = Bodies(*fields)
    settings = ArcadeValues(*settings_fields)
    context = StepContext(*context_fields)
    dt = context.dt
    pairs = candidates(bodies, dt if context.continuous else 0.0, context.crowd)
    rows = new_rows(4 * (pairs.shape[0] + settings.max_subdivisions) + 2)
    if not settings.ordered or not context.continuous:
        count = immediate_pass(bodies, pairs, dt, 0.0, False, context.continuous, rows, 0)
        advance(bodies, dt)
        return count, False, rows
    count, capped = ordered_pass(bodies, pairs, settings, dt, rows)
    return count, capped, rows


class ArcadeSolver:
    """Tutorial 4's response with seed 002's ordering (see the module docstring)."""

    def __init__(self) -> None:
        #: Whether the warning about the cap on subdivisions was given (once per solver).
        self.warned = False

    def step(self, bodies: Bodies, settings: ArcadeSettings, context: StepContext) -> Contacts | None:
        """Advance ``bodies`` by ``context.dt``; the step's contact points (None: the state is
        out of range, see collision.solvers.protocol)."""
        result = run_step(arcade_step, bodies, settings, context)
        if result is None:
            return None
        count, capped, rows = result
        if capped and not self.warned:
            self.warned = True
            warnings.warn(
                f"arcade: more than {settings.max_subdivisions} hits in one step; the rest were resolved "
                "immediately, in pair order (collision resolution may be less exact)",
                RuntimeWarning,
                stacklevel=3,
            )
        return contacts_of(count, rows)

    def reset(self) -> None:
        """Nothing persists between steps."""
