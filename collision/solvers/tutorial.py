"""The "tutorial" response: Tutorial 7's rigid-body impulses, as the original program did them.

A first pass over the candidate pairs in index order, each pair once (static-static skipped),
with the velocities and positions left by the pairs before it (the original's immediate
processing); pairs that touch or overlap now come first, pairs that will only meet later in
the step after them (see :func:`first_pass`):

1. the swept separating-axis test with the pair's relative velocity over the step (Tutorial 3);
   a hit that only grazes the crack between two flush edges is no hit (seed 002; hits.py);
2. the contact pairs at the time of impact (Tutorial 6);
3. an overlap is pushed apart along the normal, by inverse-mass ratio, ``separation_factor`` of
   the penetration per contact pair (the original's 0.5);
4. the impulse with rotation (seed 004, eq. 3), Coulomb friction and static friction as the
   "invisible step" (the original's ResolveCollision; impulses.py);

then step 4 again for every hit found, pass after pass in the same order, until a pass changes
no contact point's speed (``passes`` passes in all at most); then each hit's bounce, ``e``
times the impulse that stopped its approach (Poisson's restitution: for one point, seed 004's
``j = -(1 + e) v.n / K``); then

5. positions integrated (semi-implicit Euler), angles wrapped.

Bugs of the original fixed here (ORIGINAL_DEMO.md section 5): our angles are CCW positive and
the torque signs agree with it; the friction impulse is clamped so it stops the sliding but
never reverses it (5.2.12); the "invisible step" has restitution 0, so it cancels the
tangential contact velocity as the article intends (5.1.16) instead of reversing it; a body
hit at time t within the step travels with its old velocity up to t and its new one after
(5.2.11: the original changed the velocity early and left a gap); the two contact points of a
pair share their normal impulse through a 2x2 block solve, so a flat box lands flat.

The order dependence the article's Limits admit (5.2.11): answered once each, a later pair
undoes an earlier one. A plank landing flat on two supports is stopped by the first support's
impulse, which the second's turns into a dive into the first (6.5 cm deep, landing at 10 m/s);
a wheel spinning in a corner, braked by the floor and then by the wall, never settles and
rocks on for ever; in a stack each box's answer shoves the one below back into the floor. So
the hits are answered again, each pass the same ResolveCollision with accumulated, clamped
totals (the normal impulse never pulls, friction never leaves Coulomb's cone), until they
agree: the collision loop of impulse-based simulation. ``passes = 1`` is the single pass. The
passes also settle what the original got wrong within a pair: friction applied once after the
normal impulse gave a sliding box a torque that drove its leading corner into the ground.

A face lying almost flat on another touches at one corner only (Tutorial 6 takes the vertices
"very close to the minimum", which a tilt of a thousandth of a radian already leaves out).
Each step gravity's pull, stopped at that one corner, sets the body turning onto the other
corner, and it rocks from corner to corner for ever, its velocity alternating step by step
(a box carried by a platform at 1 m/s: 1.05, 0.95, 1.05 m/s). A lone support vertex therefore
takes its lower neighbour as a second contact point when that one is within ``reach``
(contacts.find_support_points) and the pair closes slower than ``reach`` per step (resting,
not striking). Not touching yet, that point only keeps it from approaching faster than would
close its gap by the end of the step: it neither bounces nor sticks.

Contacts reported: one row per contact point, state ``CONTACT_NEW``; ``separation`` is minus
the penetration for an overlap, the gap closed before the time of impact for a future hit
(plus a second point's own gap); ``normal_impulse`` >= 0 and ``tangent_impulse`` (signed,
along the tangent ``(-ny, nx)``) are the totals applied at that point (N s).
``static_friction`` (per body, mixed per pair) is the cone of the "invisible step": a contact
sticks while its tangential speed is below ``static_friction`` times its normal approach speed,
both as they were before any of the step's impulses.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.bodies import Bodies
from collision.contacts import Contacts, find_contacts
from collision.geometry import mix_friction, mix_restitution, shift_body_vertices, wrap_angle
from collision.kernels import BorrowingCompiler, compiled_only
from collision.sat import sweep_kernel
from collision.solvers.hits import (
    HitRows,
    candidates,
    contact_surface,
    contacts_of,
    grazes,
    new_rows,
    run_step,
    write_point,
)
from collision.solvers.impulses import (
    BOUNCES,
    STICKS,
    TARGET,
    Pair,
    PairContact,
    bounce,
    friction_pass,
    normal_pass,
    prepare_terms,
    relative_velocity,
)
from collision.solvers.protocol import StepContext
from collision.solvers.settings import Setting, Settings
from collision.tolerances import SPECULATIVE_DISTANCE, SUPPORT_RELATIVE_EPSILON, TUTORIAL_PASS_TOLERANCE


class TutorialSettings(Settings):
    """Settings of the ``"tutorial"`` solver (``world.solver_settings("tutorial")``)."""

    separation_factor = Setting(
        "real",
        0.5,
        "Fraction (0..1) of an overlap's penetration removed per contact pair by the push along the "
        "normal (the original's ``Sep``: two contact pairs together remove about the full depth).",
        0.0,
        1.0,
    )
    passes = Setting(
        "int",
        100,
        "Most passes over the step's hits: the first finds each pair's hit in pair order and answers "
        "it at once (the original's only pass); the others answer every hit again until a pass "
        "changes nothing, so a later pair no longer undoes an earlier one.",
        1,
        1000,
    )
    reach = Setting(
        "real",
        SPECULATIVE_DISTANCE,
        "Distance (units) within which a lone support vertex's neighbour becomes a second contact "
        "point (0: Tutorial 6's exact support points only).",
        0.0,
        1e6,
    )


TutorialValues = TutorialSettings.Values

#: Columns of ``TutorialHits.values``: the :class:`Pair` fields after its bodies, then the time
#: of impact (s into the step) and the swept test's depth (units, 0 for a hit ahead in time).
NX, NY, IM_A, IM_B, II_A, II_B, RESTITUTION, FRICTION, STATIC_FRICTION, TIME, DEPTH = range(11)


class TutorialHits(NamedTuple):
    """The step's hits (the first ``m`` used). ``bodies (m, 2) int64`` A and B (roots);
    ``point_count (m,) int64`` contact pairs (1 or 2); ``values (m, 11)`` by the columns NX ... DEPTH;
    ``point_a``, ``point_b (m, 2, 2)`` the pairs of points at the time of impact; ``arm_a``,
    ``arm_b (m, 2, 2)`` from each centroid to them; ``separation (m, 2)`` what the contact rows
    report (units); ``terms (m, 2, 5)`` (impulses.prepare_terms); ``jn``, ``jt (m, 2)`` the
    impulses so far (N s); ``start_velocity (n, 2)`` and ``start_angular_velocity (n,)`` the
    bodies' velocities before any of the step's impulses."""

    bodies: np.ndarray
    point_count: np.ndarray
    values: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    arm_a: np.ndarray
    arm_b: np.ndarray
    separation: np.ndarray
    terms: np.ndarray
    jn: np.ndarray
    jt: np.ndarray
    start_velocity: np.ndarray
    start_angular_velocity: np.ndarray


@compiled_only()
def new_hits(capacity: int, bodies: Bodies) -> TutorialHits:
    """Room for ``capacity`` hits among ``bodies``, whose velocities it keeps as they are now."""
    return TutorialHits(
        np.zeros((capacity, 2), dtype=np.int64),
        np.zeros(capacity, dtype=np.int64),
        np.zeros((capacity, 11)),
        np.zeros((capacity, 2, 2)),
        np.zeros((capacity, 2, 2)),
        np.zeros((capacity, 2, 2)),
        np.zeros((capacity, 2, 2)),
        np.zeros((capacity, 2)),
        np.zeros((capacity, 2, 5)),
        np.zeros((capacity, 2)),
        np.zeros((capacity, 2)),
        bodies.velocity.copy(),
        bodies.angular_velocity.copy(),
    )


@njit(cache=True, inline="always")
def stored_pair(hits: TutorialHits, h: int) -> Pair:
    """Hit ``h``'s :class:`Pair`."""
    v = hits.values[h]
    return Pair(
        hits.bodies[h, 0],
        hits.bodies[h, 1],
        v[NX],
        v[NY],
        v[IM_A],
        v[IM_B],
        v[II_A],
        v[II_B],
        v[RESTITUTION],
        v[FRICTION],
        v[STATIC_FRICTION],
    )


@compiled_only()
def find_hit(
    bodies: Bodies,
    motion: np.ndarray,
    row_i: int,
    row_j: int,
    context: StepContext,
    reach: float,
    out_a: np.ndarray,
    out_b: np.ndarray,
) -> tuple[int, Pair, float, float]:
    """Steps 1 and 2 for the pair of rows ``row_i``, ``row_j``: the swept test over the step
    with the bodies' relative velocity, the bodies moving at ``motion (n, 2)`` (overlap only
    without ``context.continuous``), then the contact pairs at the time of impact, with a second
    point within ``reach`` (units), written into ``out_a``, ``out_b (2, 2)``.

    Returns ``(count, pair, t, depth)``: ``count`` 0 when there is nothing to resolve (no hit,
    a graze of a crack, two rows of one body, or two bodies of infinite mass), else 1 or 2
    contact pairs; ``pair`` the bodies (roots: a compound's part acts for its root) and their
    mixed materials.
    """
    root = bodies.root
    i = root[row_i]
    j = root[row_j]
    im_a = bodies.inv_mass[i]
    im_b = bodies.inv_mass[j]
    none = Pair(i, j, 0.0, 0.0, im_a, im_b, 0.0, 0.0, 0.0, 0.0, 0.0)
    if (bodies.static[i] and bodies.static[j]) or i == j or im_a + im_b <= 0.0:
        return 0, none, 0.0, 0.0  # kinematic against kinematic or static: no contact
    wv = bodies.world_vertices
    a = wv[row_i, : bodies.vertex_count[row_i]]
    b = wv[row_j, : bodies.vertex_count[row_j]]
    vax = motion[i, 0]
    vay = motion[i, 1]
    vbx = motion[j, 0]
    vby = motion[j, 1]
    if context.continuous:
        hit, nx, ny, t, depth = sweep_kernel(a, b, vax - vbx, vay - vby, context.dt)
    else:
        hit, nx, ny, t, depth = sweep_kernel(a, b, 0.0, 0.0, context.dt)
    if not hit:
        return 0, none, 0.0, 0.0
    if depth <= 0.0:
        length, edge_edge, shorter = contact_surface(a, b, nx, ny, (vax * t, vay * t), (vbx * t, vby * t))
        if grazes(length, edge_edge, shorter, depth):
            return 0, none, 0.0, 0.0
    c = find_contacts(a, b, nx, ny, t, vax, vay, vbx, vby, out_a, out_b, reach)
    pair = Pair(
        i,
        j,
        nx,
        ny,
        im_a,
        im_b,
        bodies.inv_inertia[i],
        bodies.inv_inertia[j],
        mix_restitution(bodies.restitution[i], bodies.restitution[j]),
        mix_friction(bodies.friction[i], bodies.friction[j]),
        mix_friction(bodies.static_friction[i], bodies.static_friction[j]),
    )
    return c, pair, t, depth


@njit(cache=True, inline="always")
def touch_tolerance(bodies: Bodies, pair: Pair) -> float:
    """Distance (units) within which the pair's points touch: rounding, relative to the larger
    body (Tutorial 6's "very close" for support points)."""
    return SUPPORT_RELATIVE_EPSILON * max(bodies.radius[pair.i], bodies.radius[pair.j])


@njit(cache=True, inline="always")
def closing(motion: np.ndarray, pair: Pair, t: float) -> float:
    """How far (units) the pair closes along its normal in ``t`` seconds, its bodies moving at
    ``motion (n, 2)``."""
    return (
        -(
            (motion[pair.i, 0] - motion[pair.j, 0]) * pair.nx
            + (motion[pair.i, 1] - motion[pair.j, 1]) * pair.ny
        )
        * t
    )


@compiled_only()
def push_apart(bodies: Bodies, pair: Pair, c: int, separation: np.ndarray, factor: float) -> float:
    """Step 3: an overlap pushed apart along the normal by inverse-mass ratio, ``factor`` of
    each contact pair's penetration (``-separation (2,)``, Tutorial 7), the world vertices of
    every row of both bodies moved along (a compound's parts follow their root). Returns how
    far the two moved apart (units)."""
    push = 0.0
    for k in range(c):
        push += factor * max(-separation[k], 0.0)
    im_sum = pair.inv_mass_a + pair.inv_mass_b
    da = push * pair.inv_mass_a / im_sum
    db = push * pair.inv_mass_b / im_sum
    position = bodies.position
    position[pair.i, 0] += da * pair.nx
    position[pair.i, 1] += da * pair.ny
    position[pair.j, 0] -= db * pair.nx
    position[pair.j, 1] -= db * pair.ny
    shift_body_vertices(
        bodies.world_vertices, bodies.vertex_count, bodies.root, pair.i, da * pair.nx, da * pair.ny
    )
    shift_body_vertices(
        bodies.world_vertices, bodies.vertex_count, bodies.root, pair.j, -db * pair.nx, -db * pair.ny
    )
    return push


@compiled_only()
def _drop_impacts(
    bodies: Bodies, pair: Pair, hits: TutorialHits, h: int, apart: np.ndarray, touching: float, speed: float
) -> int:
    """Of hit ``h``'s two points, drop one that does not touch (``apart (2,)`` above
    ``touching``) and approaches faster than ``speed`` (units/s), keeping the other in slot 0.
    Returns the points left."""
    for k in range(2):
        other = 1 - k
        if apart[k] <= touching or apart[other] > touching:
            continue
        contact = PairContact(
            bodies.velocity, bodies.angular_velocity, pair, 2, hits.arm_a[h], hits.arm_b[h], hits.terms[h]
        )
        rvx, rvy = relative_velocity(contact, k)
        if rvx * pair.nx + rvy * pair.ny >= -speed:
            continue
        if k == 0:
            for rows in (hits.point_a, hits.point_b, hits.arm_a, hits.arm_b):  # by element: numba's
                rows[h, 0, 0], rows[h, 0, 1] = rows[h, 1, 0], rows[h, 1, 1]  # row copy compiles text
            hits.separation[h, 0] = hits.separation[h, 1]
            apart[0] = apart[1]
        hits.point_count[h] = 1
        return 1
    return 2


@compiled_only()
def record_hit(
    bodies: Bodies,
    motion: np.ndarray,
    settings: Any,
    dt: float,
    pair: Pair,
    c: int,
    t: float,
    depth: float,
    points: np.ndarray,
    hits: TutorialHits,
    h: int,
) -> None:
    """Store a hit of ``c`` contact pairs (``points (2, 2, 2)``: on A, on B) at time ``t`` as
    hit ``h`` (the bodies moving at their velocities ``motion (n, 2)`` until then), push an
    overlap (``depth`` > 0) apart (step 3) and prepare its impulses' terms.

    A point that does not touch (further than rounding from it, ``reach`` of the settings at
    most) is a resting contact to be: its target is the approach speed that would close its gap
    by the end of the step, after the push. It is dropped when it approaches faster than
    ``reach`` per step: that is an impact of its own, which the step it touches will answer
    (with its bounce; a target short of touching would take that away).
    """
    i = pair.i
    j = pair.j
    nx = pair.nx
    ny = pair.ny
    velocity = motion
    position = bodies.position
    hits.bodies[h, 0] = i
    hits.bodies[h, 1] = j
    hits.point_count[h] = c
    v = hits.values[h]
    v[NX], v[NY], v[IM_A], v[IM_B] = nx, ny, pair.inv_mass_a, pair.inv_mass_b
    v[II_A], v[II_B] = pair.inv_inertia_a, pair.inv_inertia_b
    v[RESTITUTION], v[FRICTION], v[STATIC_FRICTION] = pair.restitution, pair.friction, pair.static_friction
    v[TIME] = t
    v[DEPTH] = depth
    ra = hits.arm_a[h]
    rb = hits.arm_b[h]
    apart = np.empty(2)
    touching = touch_tolerance(bodies, pair)
    gap_closed = closing(motion, pair, t)
    for k in range(c):
        for d in range(2):
            hits.point_a[h, k, d] = points[0, k, d]
            hits.point_b[h, k, d] = points[1, k, d]
        # Arms from each centroid at the time of impact.
        ra[k, 0] = points[0, k, 0] - (position[i, 0] + velocity[i, 0] * t)
        ra[k, 1] = points[0, k, 1] - (position[i, 1] + velocity[i, 1] * t)
        rb[k, 0] = points[1, k, 0] - (position[j, 0] + velocity[j, 0] * t)
        rb[k, 1] = points[1, k, 1] - (position[j, 1] + velocity[j, 1] * t)
        apart[k] = (points[0, k, 0] - points[1, k, 0]) * nx + (points[0, k, 1] - points[1, k, 1]) * ny
        hits.separation[h, k] = apart[k] if depth > 0.0 else gap_closed + max(apart[k], 0.0)
    if c == 2:
        c = _drop_impacts(bodies, pair, hits, h, apart, touching, settings.reach / dt)
    push = push_apart(bodies, pair, c, apart, settings.separation_factor) if depth > 0.0 else 0.0
    terms = hits.terms[h]
    # Sticking is judged on the velocities before the step's impulses: a body resting across two
    # tiles, judged on the second after the first stopped it, would stick or not by rounding.
    prepare_terms(PairContact(hits.start_velocity, hits.start_angular_velocity, pair, c, ra, rb, terms))
    left = dt - t
    for k in range(c):
        if apart[k] > touching:
            terms[k, TARGET] = -(apart[k] + push) / left if left > 0.0 else 0.0
            terms[k, STICKS] = 0.0
            terms[k, BOUNCES] = 0.0


@compiled_only()
def answer_hit(bodies: Bodies, hits: TutorialHits, h: int, travel: np.ndarray, rebound: bool) -> float:
    """Step 4 for hit ``h``: one pass of its normal impulses (or, with ``rebound``, its
    restitution), then one of its friction, added to its totals. ``travel (n, 3)`` collects
    what the bodies' travel up to the time of impact differs by (x, y, angle): they move with
    their old velocity until then. Returns the largest change made to a contact point's speed
    (units/s)."""
    pair = stored_pair(hits, h)
    i = pair.i
    j = pair.j
    velocity = bodies.velocity
    angular_velocity = bodies.angular_velocity
    contact = PairContact(
        velocity, angular_velocity, pair, hits.point_count[h], hits.arm_a[h], hits.arm_b[h], hits.terms[h]
    )
    before = (
        velocity[i, 0],
        velocity[i, 1],
        angular_velocity[i],
        velocity[j, 0],
        velocity[j, 1],
        angular_velocity[j],
    )
    change = 0.0
    if rebound:
        bounce(contact, hits.jn[h])
    else:
        change = normal_pass(contact, hits.jn[h])
    change = max(change, friction_pass(contact, hits.jn[h], hits.jt[h]))
    t = hits.values[h, TIME]
    if t > 0.0:
        travel[i, 0] += (before[0] - velocity[i, 0]) * t
        travel[i, 1] += (before[1] - velocity[i, 1]) * t
        travel[i, 2] += (before[2] - angular_velocity[i]) * t
        travel[j, 0] += (before[3] - velocity[j, 0]) * t
        travel[j, 1] += (before[4] - velocity[j, 1]) * t
        travel[j, 2] += (before[5] - angular_velocity[j]) * t
    return change


@compiled_only()
def answer_again(
    bodies: Bodies, hits: TutorialHits, m: int, passes: int, first: float, travel: np.ndarray
) -> int:
    """Up to ``passes`` more passes of step 4 over the ``m`` hits, in order, until a pass
    changes no point's speed by more than ``TUTORIAL_PASS_TOLERANCE`` times ``first``, the
    largest change of the first pass. Returns the passes made."""
    for p in range(passes):
        change = 0.0
        for h in range(m):
            change = max(change, answer_hit(bodies, hits, h, travel, False))
        if change <= TUTORIAL_PASS_TOLERANCE * first:
            return p + 1
    return passes


@compiled_only()
def hit_rows(hits: TutorialHits, m: int) -> tuple[int, HitRows]:
    """The contact rows of the ``m`` hits: ``(count, rows)``."""
    rows = new_rows(2 * m)
    count = 0
    for h in range(m):
        for k in range(hits.point_count[h]):
            write_point(
                rows,
                count,
                hits.bodies[h, 0],
                hits.bodies[h, 1],
                hits.point_a[h, k],
                hits.point_b[h, k],
                hits.values[h, NX],
                hits.values[h, NY],
                hits.separation[h, k],
                hits.values[h, TIME],
                (hits.jn[h, k], hits.jt[h, k]),
            )
            count += 1
    return count, rows


@njit(cache=True)
def integrate_positions(bodies: Bodies, travel: np.ndarray, dt: float) -> None:
    """Step 5: semi-implicit Euler (velocities already include this step's forces), plus each
    body's ``travel`` correction; angles wrapped. Static bodies and a compound's part rows
    (which mirror their root afterwards) stay."""
    position = bodies.position
    velocity = bodies.velocity
    angle = bodies.angle
    for b in range(position.shape[0]):
        if bodies.static[b] or bodies.root[b] != b:
            continue
        position[b, 0] += velocity[b, 0] * dt + travel[b, 0]
        position[b, 1] += velocity[b, 1] * dt + travel[b, 1]
        angle[b] = wrap_angle(angle[b] + bodies.angular_velocity[b] * dt + travel[b, 2])


@compiled_only()
def first_pass(
    bodies: Bodies,
    settings: Any,
    context: StepContext,
    pairs: np.ndarray,
    hits: TutorialHits,
    travel: np.ndarray,
) -> tuple[int, float]:
    """Steps 1-4 once, in two rounds of pair order. First every pair that touches or overlaps
    now, found with the velocities the step began with and answered as it is found (the
    original's immediate processing). Then the pairs that will only meet later in the step,
    all found with the velocities the first round left before any is answered.

    Why two rounds: at the start of a step a resting body is already falling by one step of
    gravity. A box sliding over flush tiles, tested against the next tile before the floor had
    stopped that fall, would be found dipping below the tile's top as it reached the crack and
    hit its side face; and of two hits of one body at one instant (a plank landing flat on two
    supports), the second, found after the first had changed the body's velocity, would come
    at another time. Found with the step's first velocities, a pair touching now stays a contact
    when an earlier pair's answer has already stopped the body's approach to it: a box resting
    across the crack of two tiles, stopped by the first, would not be found on the second, and
    would rest on the first alone, tipping over its corner when it brakes.

    Returns ``(m, first)``: the hits stored and the largest change of a contact point's speed
    made."""
    dt = context.dt
    points = np.zeros((2, 2, 2))
    ahead = np.empty(pairs.shape[0], dtype=np.int64)
    later = 0
    m = 0
    first = 0.0
    start = hits.start_velocity
    for p in range(pairs.shape[0]):
        c, pair, t, depth = find_hit(
            bodies, start, pairs[p, 0], pairs[p, 1], context, settings.reach, points[0], points[1]
        )
        if c == 0:
            continue
        if depth <= 0.0 and closing(start, pair, t) > touch_tolerance(bodies, pair):
            ahead[later] = p
            later += 1
            continue
        record_hit(bodies, start, settings, dt, pair, c, t, depth, points, hits, m)
        first = max(first, answer_hit(bodies, hits, m, travel, False))
        m += 1
    motion = bodies.velocity.copy()
    found = m
    for q in range(later):
        p = ahead[q]
        c, pair, t, depth = find_hit(
            bodies, motion, pairs[p, 0], pairs[p, 1], context, settings.reach, points[0], points[1]
        )
        if c > 0:
            record_hit(bodies, motion, settings, dt, pair, c, t, depth, points, hits, m)
            m += 1
    for h in range(found, m):
        first = max(first, answer_hit(bodies, hits, h, travel, False))
    return m, first


@njit(cache=True)
def resolve_step(bodies: Bodies, settings: Any, context: StepContext) -> tuple[TutorialHits, int]:
    """Resolve every candidate pair once, answer the hits again until they agree, then
    integrate positions (the module docstring's steps 1-5). ``settings``:
    :class:`TutorialSettings` values. Returns the step's hits and how many are used."""
    dt = context.dt
    pairs = candidates(bodies, dt if context.continuous else 0.0, context.crowd)
    hits = new_hits(pairs.shape[0], bodies)
    travel = np.zeros((bodies.position.shape[0], 3))
    m, first = first_pass(bodies, settings, context, pairs, hits, travel)
    answer_again(bodies, hits, m, settings.passes - 1, first, travel)
    for h in range(m):
        answer_hit(bodies, hits, h, travel, True)
    integrate_positions(bodies, travel, dt)
    return hits, m


@njit(cache=True, pipeline_class=BorrowingCompiler)
def tutorial_step(fields: tuple, settings_fields: tuple, context_fields: tuple) -> tuple[int, HitRows]:
    """:func:`resolve_step` of the store's rows, the settings' values and the step context as
    plain tuples (collision.records); the contact rows (two per hit at most) and their count."""
    hits, m = resolve_step(Bodies(*fields), TutorialValues(*settings_fields), StepContext(*context_fields))
    return hit_rows(hits, m)


class TutorialSolver:
    """Tutorial 7's response (see the module docstring)."""

    def step(self, bodies: Bodies, settings: TutorialSettings, context: StepContext) -> Contacts | None:
        """Advance ``bodies`` by ``context.dt``; the step's contact points (None: the state is
        out of range, see collision.solvers.protocol)."""
        result = run_step(tutorial_step, bodies, settings, context)
        return None if result is None else contacts_of(*result)

    def reset(self) -> None:
        """Nothing persists between steps."""
