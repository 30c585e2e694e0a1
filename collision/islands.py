"""Sleeping for the iterative solver: islands of touching bodies that rest together.

Bodies joined by touching contacts (not speculative, not through a static body) form an
island (union-find); an island whose bodies have all stayed slower than the sleep speeds for
``SLEEP_TIME`` falls asleep at once, and wakes at once when any of its bodies is disturbed.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _find(parent: np.ndarray, i: int) -> int:
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        nxt = parent[i]
        parent[i] = root
        i = nxt
    return root


@njit(cache=True)
def wake_islands(sleeping: np.ndarray, sleep_time: np.ndarray, island: np.ndarray, wake: np.ndarray) -> None:
    """Wake every sleeping body whose island (``island (n,)``, the id it fell asleep with) is
    marked in ``wake (n,) bool``."""
    for i in range(sleeping.shape[0]):
        if sleeping[i] and island[i] >= 0 and wake[island[i]]:
            sleeping[i] = False
            sleep_time[i] = 0.0


@njit(cache=True)
def update_sleep(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    static: np.ndarray,
    kinematic: np.ndarray,
    sleeping: np.ndarray,
    sleep_time: np.ndarray,
    island: np.ndarray,
    body_a: np.ndarray,
    body_b: np.ndarray,
    separation: np.ndarray,
    dt: float,
    linear_speed: float,
    angular_speed: float,
    time_to_sleep: float,
) -> None:
    """Islands of touching moving bodies; an island whose bodies all stayed slow sleeps.

    ``sleep_time (n,)`` seconds each body has been slow; ``island (n,) int64`` the island a
    sleeping body fell asleep with (-1 when awake). Contacts with static bodies do not join
    islands. Sleeping bodies get zero velocity. A sleeping body touching an awake body that
    is not at rest wakes with the whole island it slept in. ``kinematic (n,) bool``: a
    kinematic body joins the islands it touches and, while it moves at all, never rests, so
    it never sleeps and keeps what touches it awake (Box2D's rule); at rest it sleeps with
    its island like any body. Rows marked ``static`` are left out (the caller also marks the
    part rows of compounds, whose contacts are reported on their roots).
    """
    n = velocity.shape[0]
    for i in range(n):
        if static[i] or sleeping[i]:
            continue
        v2 = velocity[i, 0] * velocity[i, 0] + velocity[i, 1] * velocity[i, 1]
        if kinematic[i] and (v2 > 0.0 or angular_velocity[i] != 0.0):
            sleep_time[i] = 0.0
        elif v2 > linear_speed * linear_speed or abs(angular_velocity[i]) > angular_speed:
            sleep_time[i] = 0.0
        else:
            sleep_time[i] += dt
    parent = np.arange(n)
    for k in range(body_a.shape[0]):
        if separation[k] > 0.0:
            continue
        a = body_a[k]
        b = body_b[k]
        if static[a] or static[b]:
            continue
        ra = _find(parent, a)
        rb = _find(parent, b)
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
    # An island's clock is its least rested awake body.
    island_time = np.full(n, np.inf)
    island_awake = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if static[i] or sleeping[i]:
            continue
        r = _find(parent, i)
        island_awake[r] = True
        if sleep_time[i] < island_time[r]:
            island_time[r] = sleep_time[i]
    wake = np.zeros(n, dtype=np.bool_)
    any_wake = False
    for i in range(n):
        if static[i]:
            continue
        r = _find(parent, i)
        if not island_awake[r]:
            continue
        if island_time[r] >= time_to_sleep:
            if not sleeping[i]:
                sleeping[i] = True
                island[i] = r
                velocity[i, 0] = 0.0
                velocity[i, 1] = 0.0
                angular_velocity[i] = 0.0
        elif sleeping[i]:
            wake[island[i]] = True
            any_wake = True
    if any_wake:
        wake_islands(sleeping, sleep_time, island, wake)
    for i in range(n):
        if not sleeping[i]:
            island[i] = -1
