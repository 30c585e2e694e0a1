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
from numba import njit

from collision.geometry import UNCOUNTED, slot, wrap_angles
from collision.kernels import compiled_only, stage
from collision.solvers.iterative.narrowphase import Points
from collision.solvers.iterative.shock_rows import (
    lift_pass,
    lift_rows,
    separation_after,
    stop_pass,
    stop_rows,
)
from collision.solvers.iterative.warm_start import Prepared, link_rows
from collision.tolerances import SUPPORT_COSINE

# The stage's small steps are inlined by LLVM (``forceinline``): numba's own inlining ran its
# untyped passes again on a step at every call site (the stage's kernels compiled in 19 s of
# the default scene's cold start, 15 s so).


@compiled_only(forceinline=True)
def _rise(points: Points, k: int, up: tuple[float, float]) -> float:
    """Up-component of point ``k``'s normal (from body b toward body a)."""
    return points.normal[k, 0] * up[0] + points.normal[k, 1] * up[1]


@compiled_only()
def contact_layers(
    inv_mass: np.ndarray, inv_inertia: np.ndarray, link: np.ndarray, points: Points,
    up: tuple[float, float], layer: np.ndarray,
) -> None:  # fmt: skip
    """Into ``layer (n,) int64``: 0 for bodies that do not move (zero ``inv_mass`` and ``inv_inertia
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
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for i in range(n):
        layer[i] = n
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


@compiled_only()
def _layer_order(link: np.ndarray, layer: np.ndarray, order: np.ndarray) -> None:
    """Manifold indices into ``order (g,) int64`` by the lower layer of their two bodies,
    ground first (stable)."""
    groups = link.shape[0]
    n = layer.shape[0]
    count = np.zeros(n + 2, dtype=np.int64)
    for g in range(groups):
        count[slot(min(layer[slot(link[g, 0])], layer[slot(link[g, 1])]) + 1)] += 1
    for i in range(n + 1):
        count[i + 1] += count[i]
    for g in range(groups):
        low = slot(min(layer[slot(link[g, 0])], layer[slot(link[g, 1])]))
        order[slot(count[low])] = g
        count[low] += 1


@compiled_only()
def _loaded(inv_mass: np.ndarray, walk: tuple, held: np.ndarray, ratio: float, loaded: np.ndarray) -> None:
    """Into ``loaded (g,) bool``: the manifolds where the upper body rests on the held one (``held (g,)``,
    see ``_held``) carrying more than ``ratio`` times the pair's mass along the normal (``1 /
    (1/m_a + 1/m_b)``): the soft contact's static deflection grows with that ratio. What a
    body carries is its mass and an equal share of what each body resting on it carries,
    summed from the top layer down (the load path)."""
    link, order, _ = walk
    n = inv_mass.shape[0]
    groups = link.shape[0]
    supports = np.zeros(n)
    upper = np.full(groups, -1, dtype=np.int64)
    for g in range(groups):
        if held[g] != 0:
            upper[g] = link[g, 1] if held[g] == 1 else link[g, 0]
            supports[slot(upper[g])] += 1.0
    carried = np.zeros(n)
    for i in range(n):
        if inv_mass[i] > 0.0:
            carried[i] = 1.0 / inv_mass[i]
    for g in range(groups):
        loaded[g] = False
    for gg in range(order.shape[0] - 1, -1, -1):
        m = slot(order[gg])
        u = upper[m]
        if u < 0:
            continue
        lower = slot(link[m, 0] + link[m, 1] - u)
        share = carried[slot(u)] / supports[slot(u)]
        carried[lower] += share
        loaded[m] = carried[slot(u)] * (inv_mass[slot(u)] + inv_mass[lower]) > ratio


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
def _hold_rows(
    link: np.ndarray, layer: np.ndarray, points: Points, up: tuple[float, float], held: np.ndarray
) -> None:
    """Into ``held (g,) int64``: :func:`_held` of every manifold of ``link``."""
    for g in range(link.shape[0]):
        held[g] = _held(link[g, 0], link[g, 1], layer, points, link[g, 2], up)


@compiled_only()
def _wedged(separation: np.ndarray, link: np.ndarray, held: np.ndarray, slop: float, n: int) -> np.ndarray:
    """``(n,) bool``: bodies with a point deeper than ``slop`` (``separation (c,)``) in a
    manifold of ``link`` where neither body rests on the other (``held (g,)`` 0: a side
    contact, or within one layer): squeezed from the side, lifting them would only drive them
    into what presses on them."""
    wedged = np.zeros(n, dtype=np.bool_)
    for g in range(link.shape[0]):
        if held[g] != 0:
            continue
        for k in range(link[g, 2], link[g, 3]):
            if separation[k] < -slop:
                wedged[link[g, 0]] = True
                wedged[link[g, 1]] = True
    return wedged


@compiled_only()
def _headroom(
    separation: np.ndarray, points: Points, walk: tuple, masses: tuple, up: tuple[float, float], slop: float
) -> np.ndarray:
    """``(n,)`` how far (units) each body may rise straight up, its points' separations now
    ``separation (c,)``: a body under one that does not
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
            gap = max(separation[k], 0.0)
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
                gap = min(gap, separation[k])
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
    """The lift passes (shock_rows.lift_pass) on ``travel (n, 3)``, then ``pose`` (``position
    (n, 2)``, ``angle (n,)``) moved by what they added; no body rises further than its room
    under what does not move (``_headroom``; ``masses``: ``(inv_mass, inv_inertia)``).
    ``contacts``: ``(points, prepared, walk, held, separation)`` (``held (g,)``: see
    ``_held``; ``separation (c,)``: the points' after ``travel``); ``settings``: ``(slop,
    iterations, max_travel, up)``."""
    points, prepared, walk, held, separation = contacts
    slop, iterations, max_travel, up = settings
    position, angle = pose
    n = position.shape[0]
    before = travel.copy()
    budget = np.minimum(_headroom(separation, points, walk, masses, up, slop), max_travel)
    wedged = _wedged(separation, walk[0], held, slop, n)
    # A manifold that is not loaded is lifted no deeper than it is now.
    rows = lift_rows(points, prepared, walk, held, (wedged, loaded, separation, slop), up)
    for _ in range(iterations):
        lift_pass(travel, budget, rows, up)
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


# The stage's small steps below are inlined by numba, not compiled as kernels of their own:
# each kernel costs a small world's cold start a compile (they are not called in a parallel
# loop's body, where numba can drop the writes of an inlined step).
@njit(cache=True, inline="always")
def _up(settings: tuple) -> tuple[bool, tuple[float, float]]:
    """``(whether the shock may act, up)`` for the stage's ``settings`` (see
    :func:`propagate_shock`): it acts with gravity and lift passes, ``up`` against gravity."""
    _, iterations, _, _, gravity = settings
    weight = math.hypot(gravity[0], gravity[1])
    if iterations <= 0 or weight == 0.0:
        return False, (0.0, 1.0)
    return True, (-gravity[0] / weight, -gravity[1] / weight)


@njit(cache=True, inline="always")
def travel_room(n: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Room for :func:`shock_travel`: ``(travel (n, 3), separation (c,))``."""
    return np.empty((n, 3)), np.empty(c)


@njit(cache=True, inline="always")
def topology_room(n: int, groups: int) -> tuple:
    """Room for :func:`shock_topology`: ``(link (g, 4), order (g,), layer (n,), held (g,))``
    int64 and ``loaded (g,) bool``."""
    return (
        np.empty((groups, 4), dtype=np.int64), np.empty(groups, dtype=np.int64), np.empty(n, dtype=np.int64),
        np.empty(groups, dtype=np.int64), np.empty(groups, dtype=np.bool_),
    )  # fmt: skip


@compiled_only()
def shock_travel(pose: tuple, start: tuple, contacts: tuple, settings: tuple, travelled: tuple) -> bool:
    """The bodies' travels since ``start`` and the points' separations after them into
    ``travelled`` (see :func:`travel_room`); whether a point is now deeper than the slop.
    Reads the pose, never the velocities (the arguments as :func:`propagate_shock`'s)."""
    position, angle = pose
    start_position, start_angle = start
    points, prepared, _ = contacts
    travel, separation = travelled
    slop = settings[0]
    c = prepared.body_a.shape[0]
    shift = 0.0  # the largest |dx| + |dy| and |turn| of a body
    spin = 0.0
    for i in range(position.shape[0]):
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
        return False
    deep = False
    for k in range(c):
        separation[k] = separation_after(travel, points, prepared, k)
        deep = deep or separation[k] < -slop
    return deep


@compiled_only()
def shock_walk(masses: tuple, contacts: tuple, settings: tuple, topology: tuple) -> bool:
    """The walk (the manifolds' links, the bodies' layers, the manifolds in layer order) and
    which body each manifold holds, into ``topology`` (see :func:`topology_room`; its loads
    are :func:`shock_loads`'); whether a manifold holds one. Reads the contacts and the masses
    alone, so it may run before the soft step."""
    inv_mass, inv_inertia = masses
    points, prepared, manifolds = contacts
    link, order, layer, held, _ = topology
    acts, up = _up(settings)
    if not acts or prepared.body_a.shape[0] == 0:
        return False
    link_rows(prepared, manifolds, link)
    contact_layers(inv_mass, inv_inertia, link, points, up, layer)
    _layer_order(link, layer, order)
    _hold_rows(link, layer, points, up, held)
    for g in range(held.shape[0]):
        if held[g] != 0:
            return True
    return False


@compiled_only()
def shock_loads(masses: tuple, settings: tuple, topology: tuple) -> bool:
    """After :func:`shock_walk` found a held body: which manifolds are loaded, into
    ``topology``'s last array; whether one is."""
    link, order, layer, held, loaded = topology
    _loaded(masses[0], (link, order, layer), held, settings[3], loaded)
    return loaded.any()


@compiled_only()
def shock_topology(masses: tuple, contacts: tuple, settings: tuple, topology: tuple) -> bool:
    """:func:`shock_walk` then :func:`shock_loads`: the walk, which body each manifold holds
    and which manifolds are loaded; whether one is."""
    if not shock_walk(masses, contacts, settings, topology):
        return False
    return shock_loads(masses, settings, topology)


@njit(cache=True, inline="always")
def lift_planned(
    pose: tuple, masses: tuple, contacts: tuple, settings: tuple, travelled: tuple, topology: tuple
) -> None:
    """The lift (:func:`lift`) after :func:`shock_travel` and :func:`shock_topology` found a
    deep point and a loaded manifold: moves ``pose`` and adds to the travels."""
    slop, iterations, max_travel, _, _ = settings
    points, prepared, _ = contacts
    travel, separation = travelled
    link, order, layer, held, loaded = topology
    up = _up(settings)[1]
    lifted = (points, prepared, (link, order, layer), held, separation)
    lift(pose, travel, lifted, (slop, iterations, max_travel, up), loaded, masses)


@njit(cache=True, inline="always")
def stop_planned(
    velocity: tuple, masses: tuple, contacts: tuple, settings: tuple, travelled: tuple, topology: tuple
) -> None:
    """The stop passes after :func:`lift_planned` (and restitution): changes ``velocity``."""
    points, prepared, _ = contacts
    link, order, layer, held, _ = topology
    stops = stop_rows(travelled[0], points, prepared, (link, order, layer), held, masses)
    for _ in range(settings[1]):
        stop_pass(velocity, stops)


@stage()
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
    n = pose[0].shape[0]
    prepared, manifolds = contacts[1], contacts[2]
    if not _up(settings)[0] or prepared.body_a.shape[0] == 0:
        return
    travelled = travel_room(n, prepared.body_a.shape[0])
    if not shock_travel(pose, start, contacts, settings, travelled):
        return
    topology = topology_room(n, manifolds.offsets.shape[0] - 1)
    if not shock_topology(masses, contacts, settings, topology):
        return
    lift_planned(pose, masses, contacts, settings, travelled, topology)
    stop_planned(velocity, masses, contacts, settings, travelled, topology)
