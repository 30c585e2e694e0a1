"""Shock propagation after the soft step: heavy bodies held on light ones.

The soft contact is a spring on the pair's effective mass, and a pass of sequential impulses
carries little of a heavy body's weight down through a light one: under a load many times
the pair's mass (512 kg on 1 kg boxes) what rests on a light body keeps sinking into it, in
proportion to the load. Where some point is left deeper than ``shock_slop`` after the step
(with gravity), this stage works from the ground up, each contact's lower body held
(Guendelman, Bridson and Fedkiw's shock propagation):

- layers: bodies that do not move this step are layer 0; a moving body's layer is one more
  than the lowest layer it touches (breadth first over the manifolds), a fixed body above it
  not counted (a ceiling is not ground); manifolds are taken in
  the order of their lower layer, ground first. A contact whose normal is within
  SUPPORT_COSINE of up and whose upper body is a layer further out is a support: its lower
  body is held;
- lift (positions only, no velocity change): a body on a support carrying more than
  ``shock_load_ratio`` (see ``_loaded``) is lifted straight up until that contact is back at
  the slop; a body on a lighter support follows what lifts the body under it, keeping its own
  overlap. Bodies squeezed from the side (a deep non-support contact) stay, no body moves
  more than ``max_push_speed * dt``, and none rises into a body that does not move above it
  (a ceiling): its room is the gap to it, handed down to the bodies under it (``_headroom``);
- stop (velocities): touching points that still close get the impulses that stop them, two-
  point manifolds as a 2 x 2 block, a support's held body not moved and the upper body
  stopped, never lifted, by it.

Separations are measured as the soft step does: each point's start-of-step separation plus
its anchors' travel, to first order in the rotation.
"""

from __future__ import annotations

import math

import numpy as np

from collision.geometry import UNCOUNTED, slot, wrap_angles
from collision.kernels import compiled_only
from collision.solvers.iterative.narrowphase import Points
from collision.solvers.iterative.warm_start import Prepared, manifold_link, manifold_links
from collision.tolerances import SOLVER_BLOCK_CONDITION, SUPPORT_COSINE

# The stage's small steps are inlined by LLVM (``forceinline``): numba's own inlining ran its
# untyped passes again on a step at every call site (the stage's kernels compiled in 19 s of
# the default scene's cold start, 15 s so).


@compiled_only(forceinline=True)
def _separation(travel: np.ndarray, points: Points, prepared: Prepared, k: int) -> float:
    """Point ``k``'s separation now: start of step plus its bodies' ``travel (n, 3)``."""
    a = slot(prepared.body_a[k])
    b = slot(prepared.body_b[k])
    nx = points.normal[k, 0]
    ny = points.normal[k, 1]
    dn = (travel[a, 0] - travel[b, 0]) * nx + (travel[a, 1] - travel[b, 1]) * ny
    turn = travel[a, 2] * prepared.cross_a[k, 0] - travel[b, 2] * prepared.cross_b[k, 0]
    return points.separation[k] + dn + turn


@compiled_only(forceinline=True)
def _closing_speed(velocity: tuple, points: Points, prepared: Prepared, k: int) -> float:
    """Point ``k``'s normal speed (negative: closing) from ``velocity`` (linear, angular)."""
    linear, angular = velocity
    a = slot(prepared.body_a[k])
    b = slot(prepared.body_b[k])
    dvx = linear[a, 0] - linear[b, 0]
    dvy = linear[a, 1] - linear[b, 1]
    vn = dvx * points.normal[k, 0] + dvy * points.normal[k, 1]
    return vn + angular[a] * prepared.cross_a[k, 0] - angular[b] * prepared.cross_b[k, 0]


@compiled_only(forceinline=True)
def _stopping_speed(velocity: tuple, points: Points, prepared: Prepared, k: int, held: int) -> float:
    """Point ``k``'s closing speed that the velocity pass removes (negative: closing). With a
    held body (``held`` 1: a, 2: b, 0: neither) the upper body is stopped, never lifted: a held
    body rising into it leaves it at rest, so what pushes the lower body up is not handed on
    without its reaction."""
    linear, angular = velocity
    vn = _closing_speed(velocity, points, prepared, k)
    nx = points.normal[k, 0]
    ny = points.normal[k, 1]
    if held == 2:
        b = prepared.body_b[k]
        rise = linear[b, 0] * nx + linear[b, 1] * ny + angular[b] * prepared.cross_b[k, 0]
        return vn + max(rise, 0.0)
    if held == 1:
        a = prepared.body_a[k]
        rise = -(linear[a, 0] * nx + linear[a, 1] * ny + angular[a] * prepared.cross_a[k, 0])
        return vn + max(rise, 0.0)
    return vn


@compiled_only(forceinline=True)
def _rise(points: Points, k: int, up: tuple[float, float]) -> float:
    """Up-component of point ``k``'s normal (from body b toward body a)."""
    return points.normal[k, 0] * up[0] + points.normal[k, 1] * up[1]


@compiled_only()
def contact_layers(
    inv_mass: np.ndarray, inv_inertia: np.ndarray, link: np.ndarray, points: Points,
    up: tuple[float, float],
) -> np.ndarray:  # fmt: skip
    """``(n,) int64``: 0 for bodies that do not move (zero ``inv_mass`` and ``inv_inertia
    (n,)``), else the fewest manifolds (``link (g, 4) int64``: their bodies and first point)
    between the body and one of those, breadth first; bodies that reach none get ``n``. A
    body under one that does not move (the normal toward it pointing down past
    1 - SUPPORT_COSINE of ``up``: a ceiling, an overhang) is not grounded by it: the layers
    count up from what bodies can rest on."""
    n = inv_mass.shape[0]
    groups = link.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    for g in range(groups):
        start[slot(link[g, 0] + 1)] += 1
        start[slot(link[g, 1] + 1)] += 1
    for i in range(n):
        start[i + 1] += start[i]
    fill = start[:n].copy()
    neighbour = np.empty(2 * groups, dtype=np.int64)
    # Up-component of the direction from the entry's body toward its neighbour.
    toward = np.empty(2 * groups)
    for g in range(groups):
        a = link[g, 0]
        b = link[g, 1]
        rise = _rise(points, link[g, 2], up)
        at = slot(fill[slot(a)])
        neighbour[at] = b
        toward[at] = -rise
        fill[slot(a)] += 1
        at = slot(fill[slot(b)])
        neighbour[at] = a
        toward[at] = rise
        fill[slot(b)] += 1
    layer = np.full(n, n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for i in range(n):
        if inv_mass[i] == 0.0 and inv_inertia[i] == 0.0:
            layer[i] = 0
            queue[tail] = i
            tail += 1
    head = 0
    while head < tail:
        i = queue[head]
        head += 1
        below = layer[slot(i)]
        for j in range(start[slot(i)], start[slot(i + 1)]):
            other = neighbour[slot(j)]
            if below == 0 and toward[slot(j)] <= SUPPORT_COSINE - 1.0:
                continue
            if layer[slot(other)] > below + 1:
                layer[slot(other)] = below + 1
                queue[tail] = other
                tail += 1
    return layer


@compiled_only()
def _layer_order(link: np.ndarray, layer: np.ndarray) -> np.ndarray:
    """Manifold indices by the lower layer of their two bodies, ground first (stable)."""
    groups = link.shape[0]
    n = layer.shape[0]
    count = np.zeros(n + 2, dtype=np.int64)
    for g in range(groups):
        count[slot(min(layer[slot(link[g, 0])], layer[slot(link[g, 1])]) + 1)] += 1
    for i in range(n + 1):
        count[i + 1] += count[i]
    order = np.empty(groups, dtype=np.int64)
    for g in range(groups):
        low = slot(min(layer[slot(link[g, 0])], layer[slot(link[g, 1])]))
        order[slot(count[low])] = g
        count[low] += 1
    return order


@compiled_only()
def _loaded(
    inv_mass: np.ndarray, walk: tuple, points: Points, up: tuple[float, float], ratio: float
) -> np.ndarray:
    """``(g,) bool``: the manifolds where the upper body rests on the held one (see ``_held``)
    carrying more than ``ratio`` times the pair's mass along the normal (``1 / (1/m_a +
    1/m_b)``): the soft contact's static deflection grows with that ratio. What a body carries
    is its mass and an equal share of what each body resting on it carries, summed from the
    top layer down (the load path)."""
    link, order, layer = walk
    n = inv_mass.shape[0]
    groups = link.shape[0]
    supports = np.zeros(n)
    upper = np.full(groups, -1, dtype=np.int64)
    for g in range(groups):
        held = _held(link[g, 0], link[g, 1], layer, points, link[g, 2], up)
        if held != 0:
            upper[g] = link[g, 1] if held == 1 else link[g, 0]
            supports[slot(upper[g])] += 1.0
    carried = np.zeros(n)
    for i in range(n):
        if inv_mass[i] > 0.0:
            carried[i] = 1.0 / inv_mass[i]
    loaded = np.zeros(groups, dtype=np.bool_)
    for gg in range(order.shape[0] - 1, -1, -1):
        m = slot(order[gg])
        u = upper[m]
        if u < 0:
            continue
        lower = slot(link[m, 0] + link[m, 1] - u)
        share = carried[slot(u)] / supports[slot(u)]
        carried[lower] += share
        loaded[m] = carried[slot(u)] * (inv_mass[slot(u)] + inv_mass[lower]) > ratio
    return loaded


@compiled_only(forceinline=True)
def _two_point_lcp(k11: float, k12: float, k22: float, c0: float, c1: float) -> tuple[float, float]:
    """The least pushes ``x >= 0`` with ``K x + c >= 0`` and ``x_i (K x + c)_i = 0`` (``K``
    symmetric positive definite); a nearly singular ``K`` (the points act as one) gets the
    deeper point's push alone."""
    det = k11 * k22 - k12 * k12
    if det > SOLVER_BLOCK_CONDITION * k11 * k22:
        x0 = -(k22 * c0 - k12 * c1) / det
        x1 = -(k11 * c1 - k12 * c0) / det
        if x0 >= 0.0 and x1 >= 0.0:
            return x0, x1
    x0 = -c0 / k11
    if x0 >= 0.0 and k12 * x0 + c1 >= 0.0 and c0 <= c1:
        return x0, 0.0
    x1 = -c1 / k22
    if x1 >= 0.0 and k12 * x1 + c0 >= 0.0:
        return 0.0, x1
    return max(x0, 0.0), 0.0


@compiled_only(forceinline=True)
def _held(a: int, b: int, layer: np.ndarray, points: Points, k: int, up: tuple[float, float]) -> int:
    """Which body of manifold (``a``, ``b``; first point ``k``) the shock holds: 1 (a) or 2 (b)
    when the other, a layer further from the ground, rests on it (the normal within
    SUPPORT_COSINE of ``up``, from the held body toward the other), else 0."""
    lift = points.normal[k, 0] * up[0] + points.normal[k, 1] * up[1]
    layer_a = layer[slot(a)]
    layer_b = layer[slot(b)]
    if layer_a < layer_b and -lift >= SUPPORT_COSINE:
        return 1
    if layer_b < layer_a and lift >= SUPPORT_COSINE:
        return 2
    return 0


@compiled_only()
def _wedged(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, slop: float,
    up: tuple[float, float],
) -> np.ndarray:  # fmt: skip
    """``(n,) bool``: bodies with a point deeper than ``slop`` in a contact that is not one
    body resting on the other (a side contact, or within one layer): squeezed from the side,
    lifting them would only drive them into what presses on them."""
    link, order, layer = walk
    wedged = np.zeros(layer.shape[0], dtype=np.bool_)
    for g in range(link.shape[0]):
        a = link[g, 0]
        b = link[g, 1]
        if _held(a, b, layer, points, link[g, 2], up) != 0:
            continue
        for k in range(link[g, 2], link[g, 3]):
            if _separation(travel, points, prepared, k) < -slop:
                wedged[a] = True
                wedged[b] = True
    return wedged


@compiled_only()
def _lift(
    travel: np.ndarray, budget: np.ndarray, points: Points, prepared: Prepared, walk: tuple,
    slop: float, up: tuple[float, float], loaded: np.ndarray, wedged: np.ndarray,
    floor: np.ndarray,
) -> None:  # fmt: skip
    """One pass over the manifolds in ``walk`` (``(link, order, layer)``): where a body rests on
    a held one, it is lifted straight up (against gravity, the way it sank: a push along a
    sloped normal would walk it sideways, step by step) until no point is deeper than ``slop``
    (``loaded (g,) bool`` manifolds) or than it was before the pass (``floor (c,)``, the
    others: they follow what lifts the body under them and keep their own overlap), moving
    ``travel (n, 3)``; a ``wedged (n,) bool`` body stays, and no body goes further than its
    ``budget (n,)`` (units), spent as it moves."""
    link, order, layer = walk
    for gg in range(order.shape[0]):
        g = order[gg]
        a = link[g, 0]
        b = link[g, 1]
        held = _held(a, b, layer, points, link[g, 2], up)
        if held == 0:
            continue
        upper = b if held == 1 else a
        if wedged[upper]:
            continue
        # Separation gained per unit the upper body rises.
        rate = points.normal[link[g, 2], 0] * up[0] + points.normal[link[g, 2], 1] * up[1]
        rate = rate if held == 2 else -rate
        rise = 0.0
        for k in range(link[g, 2], link[g, 3]):
            target = -slop if loaded[g] else min(floor[k], -slop)
            rise = max(rise, (target - _separation(travel, points, prepared, k)) / rate)
        rise = min(rise, budget[upper])
        if rise <= 0.0:
            continue
        travel[upper, 0] += rise * up[0]
        travel[upper, 1] += rise * up[1]
        budget[upper] -= rise


@compiled_only()
def _stop_rows(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, up: tuple[float, float]
) -> np.ndarray:
    """The manifolds the stop passes visit, in ``walk`` (``(link, order, layer)``) order: those
    with a touching point (separation <= 0 after ``travel``), each a row ``(manifold, held,
    first point touches, second touches)`` of an ``(m, 4) int64`` array (``held``: see
    :func:`_held`). The travels do not change between the passes, so neither do these."""
    link, order, layer = walk
    rows = np.empty((order.shape[0], 4), dtype=np.int64)
    m = 0
    for gg in range(order.shape[0]):
        g = order[gg]
        a, b, k0, k1 = manifold_link(link, g)
        touch0 = _separation(travel, points, prepared, k0) <= 0.0
        # A one-point manifold's second point is its first.
        touch1 = touch0 if k1 == k0 else _separation(travel, points, prepared, k1) <= 0.0
        if touch0 or touch1:
            rows[m, 0] = g
            rows[m, 1] = _held(a, b, layer, points, k0, up)
            rows[m, 2] = touch0
            rows[m, 3] = touch1
            m += 1
    return rows[:m]


@compiled_only()
def _stop(
    velocity: tuple, points: Points, prepared: Prepared, masses: tuple, link: np.ndarray, stops: np.ndarray
) -> None:
    """One Gauss-Seidel pass over the manifolds ``stops`` (see :func:`_stop_rows`; ``link``:
    their bodies and points): touching points that still close get the impulses that stop
    them (a two-point manifold as a 2 x 2 block), the held body of the pair not moved;
    changes ``velocity`` (``linear (n, 2)``, ``angular (n,)``)."""
    linear, angular = velocity
    inv_mass, inv_inertia = masses
    for r in range(stops.shape[0]):
        a, b, k0, k1 = manifold_link(link, stops[r, 0])
        two = k1 != k0
        held = stops[r, 1]
        c0 = 0.0
        c1 = 0.0
        if stops[r, 2]:
            c0 = _stopping_speed(velocity, points, prepared, k0, held)
        if stops[r, 3]:
            c1 = _stopping_speed(velocity, points, prepared, k1, held)
        if c0 >= 0.0 and c1 >= 0.0:
            continue
        ima = 0.0 if held == 1 else inv_mass[a]
        iia = 0.0 if held == 1 else inv_inertia[a]
        imb = 0.0 if held == 2 else inv_mass[b]
        iib = 0.0 if held == 2 else inv_inertia[b]
        rna0 = prepared.cross_a[k0, 0]
        rnb0 = prepared.cross_b[k0, 0]
        rna1 = prepared.cross_a[k1, 0]
        rnb1 = prepared.cross_b[k1, 0]
        k11 = ima + imb + iia * rna0 * rna0 + iib * rnb0 * rnb0
        if k11 <= 0.0:
            continue
        if two:
            k12 = ima + imb + iia * rna0 * rna1 + iib * rnb0 * rnb1
            k22 = ima + imb + iia * rna1 * rna1 + iib * rnb1 * rnb1
            x0, x1 = _two_point_lcp(k11, k12, k22, c0, c1)
        else:
            x0 = max(-c0 / k11, 0.0)
            x1 = 0.0
        nx = points.normal[k0, 0]
        ny = points.normal[k0, 1]
        x = x0 + x1
        linear[a, 0] += ima * x * nx
        linear[a, 1] += ima * x * ny
        angular[a] += iia * (x0 * rna0 + x1 * rna1)
        linear[b, 0] -= imb * x * nx
        linear[b, 1] -= imb * x * ny
        angular[b] -= iib * (x0 * rnb0 + x1 * rnb1)


@compiled_only()
def _headroom(
    travel: np.ndarray, points: Points, prepared: Prepared, walk: tuple, masses: tuple,
    up: tuple[float, float], slop: float,
) -> np.ndarray:  # fmt: skip
    """``(n,)`` how far (units) each body may rise straight up: a body under one that does not
    move (``masses``: ``(inv_mass, inv_inertia)`` both zero; the normal toward it pointing up
    past 1 - SUPPORT_COSINE) may close the gap to it and no more, so a body touching a
    ceiling does not rise; a body with another above it (the same test) may rise as far as
    that one may plus the gap between them down to ``slop``, since lifting it lifts or
    squeezes the one above. Unbounded (inf) where nothing fixed is above."""
    link, order, layer = walk
    inv_mass, inv_inertia = masses
    n = layer.shape[0]
    room = np.full(n, np.inf)
    capped = False
    for g in range(link.shape[0]):
        a = link[g, 0]
        b = link[g, 1]
        rise = _rise(points, link[g, 2], up)
        fixed_a = inv_mass[a] == 0.0 and inv_inertia[a] == 0.0
        fixed_b = inv_mass[b] == 0.0 and inv_inertia[b] == 0.0
        if fixed_a == fixed_b:
            continue
        # The moving body, and how fast its gap to the fixed one closes as it rises.
        below = b if fixed_a else a
        closing = rise if fixed_a else -rise
        if closing < 1.0 - SUPPORT_COSINE:
            continue
        for k in range(link[g, 2], link[g, 3]):
            gap = max(_separation(travel, points, prepared, k), 0.0)
            room[below] = min(room[below], gap / closing)
            capped = True
    if not capped:
        return room
    # Down the layers, each pass carrying the bound one manifold further; a stack needs one.
    for _ in range(n):
        changed = False
        for gg in range(order.shape[0] - 1, -1, -1):
            g = order[gg]
            a = link[g, 0]
            b = link[g, 1]
            rise = _rise(points, link[g, 2], up)
            # a above b when the normal (from b toward a) points up.
            above, below, closing = (a, b, rise) if rise > 0.0 else (b, a, -rise)
            if closing < 1.0 - SUPPORT_COSINE or room[above] == np.inf:
                continue
            if inv_mass[below] == 0.0 and inv_inertia[below] == 0.0:
                continue
            gap = np.inf
            for k in range(link[g, 2], link[g, 3]):
                gap = min(gap, _separation(travel, points, prepared, k))
            bound = room[above] + max(gap + slop, 0.0) / closing
            if bound < room[below]:
                room[below] = bound
                changed = True
        if not changed:
            break
    return room


@compiled_only()
def lift(
    pose: tuple, travel: np.ndarray, contacts: tuple, settings: tuple, loaded: np.ndarray,
    masses: tuple,
) -> None:  # fmt: skip
    """The lift passes (see ``_lift``) on ``travel (n, 3)``, then ``pose`` (``position (n, 2)``,
    ``angle (n,)``) moved by what they added; no body rises further than its room under what
    does not move (``_headroom``; ``masses``: ``(inv_mass, inv_inertia)``). ``contacts``:
    ``(points, prepared, walk)``; ``settings``: ``(slop, iterations, max_travel, up)``."""
    points, prepared, walk = contacts
    slop, iterations, max_travel, up = settings
    position, angle = pose
    n = position.shape[0]
    c = prepared.body_a.shape[0]
    before = travel.copy()
    budget = np.minimum(_headroom(travel, points, prepared, walk, masses, up, slop), max_travel)
    wedged = _wedged(travel, points, prepared, walk, slop, up)
    floor = np.empty(c)
    for k in range(c):
        floor[k] = _separation(travel, points, prepared, k)
    for _ in range(iterations):
        _lift(travel, budget, points, prepared, walk, slop, up, loaded, wedged, floor)
    for i in range(n):
        position[i, 0] += travel[i, 0] - before[i, 0]
        position[i, 1] += travel[i, 1] - before[i, 1]
        angle[i] += travel[i, 2] - before[i, 2]
    wrap_angles(angle)


@compiled_only(**UNCOUNTED)
def _may_be_deep(separation: np.ndarray, prepared: Prepared, shift: float, spin: float, slop: float) -> bool:
    """Whether a point may now be deeper than ``slop`` when no two bodies' travels add to
    more than ``shift`` (|dx| + |dy|, units) and ``spin`` (rad): the least separation at the
    start of the step less what the travels can close at the longest arm (a normal's
    components are at most 1, an arm crossed with it at most the arm). A resting scene ends
    here, where the exact test reads every point's bodies."""
    least = math.inf
    arm = 0.0
    for k in range(separation.shape[0]):
        least = min(least, separation[k])
        arm = max(arm, abs(prepared.cross_a[k, 0]), abs(prepared.cross_b[k, 0]))
    closing = shift + spin * arm
    # A margin far beyond the rounding of the exact test's few operations.
    return least - closing - 1e-9 * (abs(least) + closing + slop) <= -slop


@compiled_only()
def propagate_shock(
    pose: tuple,
    velocity: tuple,
    start: tuple,
    masses: tuple,
    contacts: tuple,
    settings: tuple,
) -> None:
    """The stage (module docstring) after the soft step and restitution moved ``pose``
    (``position (n, 2)``, ``angle (n,)``) from ``start`` (their values at the start of the
    step); ``velocity``: ``(linear (n, 2), angular (n,))``, changed in place like ``pose``.
    ``masses``: the solver's ``(inv_mass, inv_inertia)`` (n,), zero for bodies that do not
    move this step; ``contacts``: ``(points, prepared, manifolds)``, the step's contact points
    (their bodies the moving roots). ``settings``: ``(slop, iterations, max_travel,
    load_ratio, (gravity_x, gravity_y))``: ``iterations`` lift passes then as many stop
    passes, ``slop`` and ``max_travel`` in units. Does nothing without gravity, or when no
    point is deeper than ``slop``."""
    slop, iterations, max_travel, load_ratio, gravity = settings
    gravity_x, gravity_y = gravity
    position, angle = pose
    points, prepared, manifolds = contacts
    inv_mass, inv_inertia = masses
    c = prepared.body_a.shape[0]
    n = position.shape[0]
    weight = math.hypot(gravity_x, gravity_y)
    if iterations <= 0 or c == 0 or weight == 0.0:
        return
    up = (-gravity_x / weight, -gravity_y / weight)
    start_position, start_angle = start
    travel = np.empty((n, 3))
    shift = 0.0  # the largest |dx| + |dy| and |turn| of a body
    spin = 0.0
    for i in range(n):
        dx = position[i, 0] - start_position[i, 0]
        dy = position[i, 1] - start_position[i, 1]
        travel[i, 0] = dx
        travel[i, 1] = dy
        # Angles were wrapped to [-pi, pi) after the move.
        turn = angle[i] - start_angle[i]
        turn = turn - 2.0 * math.pi * math.floor((turn + math.pi) / (2.0 * math.pi))
        travel[i, 2] = turn
        shift = max(shift, abs(dx) + abs(dy))
        spin = max(spin, abs(turn))
    if not _may_be_deep(points.separation[:c], prepared, 2.0 * shift, 2.0 * spin, slop):
        return
    deep = False
    for k in range(c):
        if _separation(travel, points, prepared, k) < -slop:
            deep = True
            break
    if not deep:
        return
    link = manifold_links(prepared, manifolds)
    layer = contact_layers(inv_mass, inv_inertia, link, points, up)
    walk = (link, _layer_order(link, layer), layer)
    loaded = _loaded(inv_mass, walk, points, up, load_ratio)
    if not loaded.any():
        return
    lift(pose, travel, (points, prepared, walk), (slop, iterations, max_travel, up), loaded, masses)
    stops = _stop_rows(travel, points, prepared, walk, up)
    for _ in range(iterations):
        _stop(velocity, points, prepared, masses, walk[0], stops)
