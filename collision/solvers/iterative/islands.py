"""Sleeping for the iterative solver: islands of touching bodies that rest together.

Bodies joined by touching contacts (not speculative, not through a static body) form an
island (union-find); an island whose bodies have all stayed slower than the sleep speeds for
``time_to_sleep`` falls asleep at once, and wakes at once when any of its bodies is disturbed
(:func:`wake_disturbed`: from outside, by a force, an impulse or a new velocity;
:func:`wake_touched`: before the solve, by a moving body reaching it).

The solver's state keeps, per row, ``sleep_time`` (s the body has been slow), ``island`` (the
island a sleeping body fell asleep with, -1 when awake) and ``was_sleeping`` (the sleeping
flags the last step ended with, to see who was woken from outside).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from collision.bodies import Bodies
from collision.kernels import compiled_only, stage
from collision.solvers.protocol import StepContext


@compiled_only()
def find_root(parent: np.ndarray, i: int) -> int:
    """The root of ``i`` in the union-find ``parent (n,) int64`` (a root is its own parent);
    the path from ``i`` is pointed at it on the way."""
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        nxt = parent[i]
        parent[i] = root
        i = nxt
    return root


@compiled_only()
def wake_islands(sleeping: np.ndarray, state: Any, wake: np.ndarray) -> None:
    """Wake every sleeping body whose island (``state.island (n,)``, the id it fell asleep
    with) is marked in ``wake (n,) bool``, its clock restarted; every awake body is then in no
    island (-1)."""
    island = state.island
    for i in range(sleeping.shape[0]):
        if sleeping[i] and island[i] >= 0 and wake[island[i]]:
            sleeping[i] = False
            state.sleep_time[i] = 0.0
        if not sleeping[i]:
            island[i] = -1


@compiled_only()
def _tick_clocks(bodies: Bodies, static: np.ndarray, state: Any, settings: Any, dt: float) -> None:
    """Every awake row not marked ``static``: its clock ``state.sleep_time`` gains ``dt`` while
    it is slower than the sleep speeds, else restarts; a kinematic body in motion never rests."""
    velocity = bodies.velocity
    angular_velocity = bodies.angular_velocity
    sleep_time = state.sleep_time
    linear_speed = settings.sleep_linear_speed
    for i in range(velocity.shape[0]):
        if static[i] or bodies.sleeping[i]:
            continue
        v2 = velocity[i, 0] * velocity[i, 0] + velocity[i, 1] * velocity[i, 1]
        if bodies.kinematic[i] and (v2 > 0.0 or angular_velocity[i] != 0.0):
            sleep_time[i] = 0.0
        elif v2 > linear_speed * linear_speed or abs(angular_velocity[i]) > settings.sleep_angular_speed:
            sleep_time[i] = 0.0
        else:
            sleep_time[i] += dt


@compiled_only()
def _join_touching(
    static: np.ndarray, body_a: np.ndarray, body_b: np.ndarray, separation: np.ndarray
) -> np.ndarray:
    """The islands: ``parent (n,) int64`` of a union-find (see :func:`find_root`) joining the rows
    of every touching contact (``separation <= 0``) that has no row marked ``static``."""
    parent = np.arange(static.shape[0])
    for k in range(body_a.shape[0]):
        if separation[k] > 0.0:
            continue
        a = body_a[k]
        b = body_b[k]
        if static[a] or static[b]:
            continue
        ra = find_root(parent, a)
        rb = find_root(parent, b)
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
    return parent


@compiled_only()
def _island_clocks(
    parent: np.ndarray, static: np.ndarray, sleeping: np.ndarray, sleep_time: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(island_time, island_awake)``, each ``(n,)`` by island root: an island's clock is its
    least rested awake body; awake, whether it has any awake body."""
    n = static.shape[0]
    island_time = np.full(n, np.inf)
    island_awake = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if static[i] or sleeping[i]:
            continue
        r = find_root(parent, i)
        island_awake[r] = True
        if sleep_time[i] < island_time[r]:
            island_time[r] = sleep_time[i]
    return island_time, island_awake


@compiled_only()
def update_sleep(
    bodies: Bodies,
    static: np.ndarray,
    state: Any,
    body_a: np.ndarray,
    body_b: np.ndarray,
    separation: np.ndarray,
    dt: float,
    settings: Any,
) -> None:
    """Islands of touching moving bodies; an island whose bodies all stayed slow sleeps.

    ``state.sleep_time (n,)`` seconds each body has been slow; ``state.island (n,) int64`` the
    island a sleeping body fell asleep with (-1 when awake); the speeds and time are
    ``settings``' ``sleep_linear_speed``, ``sleep_angular_speed``, ``time_to_sleep``; the
    contacts ``body_a``, ``body_b``, ``separation (c,)``. Contacts with static bodies do not join
    islands. Sleeping bodies get zero velocity. A sleeping body touching an awake body that
    is not at rest wakes with the whole island it slept in. ``kinematic (n,) bool``: a
    kinematic body joins the islands it touches and, while it moves at all, never rests, so
    it never sleeps and keeps what touches it awake (Box2D's rule); at rest it sleeps with
    its island like any body. Rows marked ``static`` are left out (the caller also marks the
    part rows of compounds, whose contacts are reported on their roots).
    """
    _tick_clocks(bodies, static, state, settings, dt)
    parent = _join_touching(static, body_a, body_b, separation)
    island_time, island_awake = _island_clocks(parent, static, bodies.sleeping, state.sleep_time)
    sleeping = bodies.sleeping
    island = state.island
    wake = np.zeros(sleeping.shape[0], dtype=np.bool_)
    for i in range(sleeping.shape[0]):
        if static[i]:
            continue
        r = find_root(parent, i)
        if not island_awake[r]:
            continue
        if island_time[r] >= settings.time_to_sleep:
            if not sleeping[i]:
                sleeping[i] = True
                island[i] = r
                bodies.velocity[i, 0] = 0.0
                bodies.velocity[i, 1] = 0.0
                bodies.angular_velocity[i] = 0.0
        elif sleeping[i]:
            wake[island[i]] = True
    wake_islands(sleeping, state, wake)


@stage()
def wake_disturbed(bodies: Bodies, state: Any, sleep: bool) -> np.ndarray:
    """Start of a step: every body woken from outside since the last step (a force, an
    impulse, a new velocity) gets its clock restarted and wakes the island it slept with;
    without ``sleep`` every body wakes. Returns ``moving (n,) bool``: awake and not static."""
    sleeping = bodies.sleeping
    wake = np.zeros(sleeping.shape[0], dtype=np.bool_)
    for i in range(sleeping.shape[0]):
        if not sleep:
            sleeping[i] = False
        if state.was_sleeping[i] and not sleeping[i]:
            state.sleep_time[i] = 0.0
            if state.island[i] >= 0:
                wake[state.island[i]] = True
    wake_islands(sleeping, state, wake)
    return ~(bodies.static | sleeping)


@njit(cache=True, inline="always")
def _reaches(bodies: Bodies, points: Any, k: int, i: int, j: int, dt: float) -> bool:
    """Whether point ``k`` (between rows ``i``, A, and ``j``, B) touches, or closes within the
    step at the bodies' velocities (their roots')."""
    s = points.separation[k]
    if s <= 0.0:
        return True
    ri = bodies.root[i]
    rj = bodies.root[j]
    mx = 0.5 * (points.point_a[k, 0] + points.point_b[k, 0])
    my = 0.5 * (points.point_a[k, 1] + points.point_b[k, 1])
    v = bodies.velocity
    w = bodies.angular_velocity
    p = bodies.position
    dvx = v[ri, 0] - w[ri] * (my - p[ri, 1]) - v[rj, 0] + w[rj] * (my - p[rj, 1])
    dvy = v[ri, 1] + w[ri] * (mx - p[ri, 0]) - v[rj, 1] - w[rj] * (mx - p[rj, 0])
    return s + (dvx * points.normal[k, 0] + dvy * points.normal[k, 1]) * dt < 0.0


@compiled_only()
def _moves(bodies: Bodies, moving: np.ndarray, r: int) -> bool:
    """Whether root ``r`` is awake and in motion: any awake dynamic body, or a kinematic one
    with a velocity."""
    if not moving[r]:
        return False
    if not bodies.kinematic[r]:
        return True
    return bodies.velocity[r, 0] != 0.0 or bodies.velocity[r, 1] != 0.0 or bodies.angular_velocity[r] != 0.0


@stage()
def wake_touched(
    bodies: Bodies, pairs: np.ndarray, points: Any, c: int, moving: np.ndarray, state: Any, dt: float
) -> bool:
    """Before the solve: the islands of sleeping bodies that a moving body reaches wake, so the
    solve moves them (a sleeper solved as if static throws its striker back). A dynamic body
    reaches a sleeper when one of their ``c`` contact points (``points``, of ``pairs (m, 2)``)
    touches or closes within the step ``dt``; a moving kinematic body when they are a candidate
    pair at all (Box2D: it keeps what it touches awake). ``moving`` says who woke. Returns
    whether anyone did (the pairs and points then lack the woken bodies' own contacts)."""
    root = bodies.root
    sleeping = bodies.sleeping
    island = state.island
    n = sleeping.shape[0]
    wake = np.zeros(n, dtype=np.bool_)
    any_wake = False
    for p in range(pairs.shape[0]):
        for side in range(2):
            k = root[pairs[p, side]]
            o = root[pairs[p, 1 - side]]
            if bodies.kinematic[k] and sleeping[o] and island[o] >= 0 and _moves(bodies, moving, k):
                wake[island[o]] = True
                any_wake = True
    for q in range(c):
        i = pairs[points.pair_index[q], 0]
        j = pairs[points.pair_index[q], 1]
        for side in range(2):
            k = root[i] if side == 0 else root[j]
            o = root[j] if side == 0 else root[i]
            if (
                sleeping[o]
                and island[o] >= 0
                and _moves(bodies, moving, k)
                and _reaches(bodies, points, q, i, j, dt)
            ):
                wake[island[o]] = True
                any_wake = True
    if not any_wake:
        return False
    wake_islands(sleeping, state, wake)
    for i in range(n):
        if sleeping[root[i]]:
            continue
        sleeping[i] = False
        island[i] = -1
        moving[i] = not bodies.static[i]
    return True


@stage()
def sleep_islands(
    bodies: Bodies,
    context: StepContext,
    settings: Any,
    state: Any,
    body_a: np.ndarray,
    body_b: np.ndarray,
    separation: np.ndarray,
) -> None:
    """End of a step: with ``settings.sleep``, islands over bodies (:func:`update_sleep`; the
    part rows of compounds are left out and then mirror their roots); the sleeping flags the
    step ends with are kept to see who is woken from outside before the next."""
    n = bodies.position.shape[0]
    root = bodies.root
    sleeping = bodies.sleeping
    if settings.sleep:
        sleep_static = bodies.static
        if context.has_compounds:
            sleep_static = bodies.static.copy()
            for i in range(n):
                if root[i] != i:
                    sleep_static[i] = True
        update_sleep(bodies, sleep_static, state, body_a, body_b, separation, context.dt, settings)
        if context.has_compounds:
            island = state.island
            sleep_time = state.sleep_time
            for i in range(n):
                r = root[i]
                if r != i:
                    sleeping[i] = sleeping[r]
                    island[i] = island[r]
                    sleep_time[i] = sleep_time[r]
    was_sleeping = state.was_sleeping
    for i in range(n):
        was_sleeping[i] = sleeping[i]
