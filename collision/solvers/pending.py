"""The arcade solver's pending hits: the hits its ordered pass (seed 002) has found and not yet
resolved, at most one per pair, each with its time, normal, depth and contact surface.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.tolerances import ARCADE_TIME_EPSILON

#: Columns of ``Pending.values``.
TIME, NORMAL_X, NORMAL_Y, DEPTH, SURFACE = range(5)


class Pending(NamedTuple):
    """Room for pending hits (the first ``entries`` used, as the functions here are told):
    ``rows (capacity, 2) int64`` the rows hit (A, B); ``values (capacity, 5)`` by column TIME
    (s into the step), NORMAL_X, NORMAL_Y (unit, from B toward A), DEPTH (units, 0 for a future
    hit), SURFACE (contact surface length, units)."""

    rows: np.ndarray
    values: np.ndarray


@njit(cache=True)
def new_pending(capacity: int) -> Pending:
    """Room for ``capacity`` pending hits."""
    return Pending(np.empty((capacity, 2), dtype=np.int64), np.empty((capacity, 5)))


@njit(cache=True)
def push_hit(pending: Pending, entries: int, hit: Any, time: float, surface: float) -> tuple[Pending, int]:
    """Append ``hit`` (rows ``i``, ``j``; ``nx``, ``ny``, ``depth``) at ``time`` with its contact
    ``surface``; the room doubles when it is full. Returns the pending hits and their count."""
    if entries == pending.rows.shape[0]:
        grown = new_pending(2 * entries)
        for e in range(entries):
            _move(pending, e, grown, e)
        pending = grown
    pending.rows[entries, 0] = hit.i
    pending.rows[entries, 1] = hit.j
    pending.values[entries, TIME] = time
    pending.values[entries, NORMAL_X] = hit.nx
    pending.values[entries, NORMAL_Y] = hit.ny
    pending.values[entries, DEPTH] = hit.depth
    pending.values[entries, SURFACE] = surface
    return pending, entries + 1


@njit(cache=True)
def earliest(pending: Pending, entries: int, surface_rule: bool) -> int:
    """Seed 002's choice: the earliest pending hit; of hits within ``ARCADE_TIME_EPSILON`` of
    each other, the one of largest contact surface (``surface_rule``) or else the first found.
    -1 when none is pending."""
    best = -1
    best_t = math.inf
    best_len = -1.0
    for e in range(entries):
        t = pending.values[e, TIME]
        if t > best_t + ARCADE_TIME_EPSILON:
            continue
        if t < best_t - ARCADE_TIME_EPSILON or (surface_rule and pending.values[e, SURFACE] > best_len):
            best = e
            best_t = t
            best_len = pending.values[e, SURFACE]
    return best


@njit(cache=True)
def forget(pending: Pending, entries: int, root: np.ndarray, static: np.ndarray, ri: int, rj: int) -> int:
    """Drop every pending hit of body ``ri`` or ``rj`` (roots; a static body's are kept: it never
    changes), keeping the order of the rest; returns how many are left."""
    kept = 0
    for e in range(entries):
        ei = root[pending.rows[e, 0]]
        ej = root[pending.rows[e, 1]]
        if (not static[ri] and (ei == ri or ej == ri)) or (not static[rj] and (ei == rj or ej == rj)):
            continue
        _move(pending, e, pending, kept)
        kept += 1
    return kept


@njit(cache=True, inline="always")
def _move(source: Pending, e: int, target: Pending, t: int) -> None:
    """Pending hit ``e`` of ``source`` into row ``t`` of ``target``, element by element (numba's
    copy of a row formats an error text, compiled with it)."""
    for c in range(source.rows.shape[1]):
        target.rows[t, c] = source.rows[e, c]
    for c in range(source.values.shape[1]):
        target.values[t, c] = source.values[e, c]
