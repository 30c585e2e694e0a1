"""A big world's impact, group by group: the iterative solver's restitution
(collision/solvers/iterative/restitution.py) for a world of collision.threads.THREADED_BODIES
rows or more.

The impact's manifolds are split into groups joined by bodies the impulses move
(:func:`impact_groups`), and each group is resolved as an impact of its own
(:func:`apply_restitution_apart`): groups share no moving body, so a landing converges in the
passes it needs, not in those the world's biggest impact needs, and its result does not depend
on impacts elsewhere. On the 8000-body pile most groups are one manifold: 15723 groups among
the 21145 manifolds of steps 100-150, where the one impact took 32 passes over all of them. A
small world keeps the one impact: its step runs on one thread, and resolved apart, the bench's
1000-body pile came to rest in a state where the shock propagation lifts every step, 0.12 ms a
step more (README's Speed section).

A big impact's groups are resolved on every thread (:func:`apply_restitution_apart`), a small
one's taken in chunks by each thread as it comes free (:func:`resolve_taken`, beside the
shock's lift: collision/solvers/iterative/beside.py). Either way the results are one thread's,
bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from collision.geometry import UNCOUNTED
from collision.kernels import compiled_only, stage
from collision.solvers.iterative.islands import find_root
from collision.solvers.iterative.restitution import Impact, Motion, body_moves, impacting, resolve_impact
from collision.tasks import flat_leaves, nesting_token, rebuilt_value, take_next

#: Fewest manifolds in a big world's impact (:func:`apply_restitution_apart`) whose groups are
#: resolved on several threads, before the shock's lift; a smaller impact's groups are taken in
#: chunks by each thread as it comes free, the lift's after the lift (:func:`resolve_taken`;
#: resolved first, a small impact's time adds to the lift's). 2500 bodies landing at once
#: (one manifold each): 2.5-2.6 ms on two threads, 5.3-5.9 ms before the groups (the one
#: impact, beside the lift). The 8000-body pile's landing (200-650 manifolds a step) was no
#: faster with 128 here than beside the lift.
IMPACTS_THREADED = 1024


@compiled_only()
def impact_groups(motion: Motion, impact: Impact, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The manifolds ``order (m,)`` of the impact in groups joined by bodies the impulses move
    (nonzero inverse mass or inertia): ``(grouped (m,), starts (q + 1,))``, group ``p`` the
    manifolds ``grouped[starts[p]:starts[p + 1]]``, in the order ``order`` gives them, groups in
    the order of their first manifold. A body that does not move joins nothing: a floor under
    two landing boxes is two impacts."""
    n = motion.inv_mass.shape[0]
    offsets = impact.manifolds.offsets
    body_a = impact.prepared.body_a
    body_b = impact.prepared.body_b
    m_count = order.shape[0]
    if m_count == 0:  # most steps: no impact, and nothing the size of the bodies to make
        return order, np.zeros(1, dtype=np.int64)
    parent = np.arange(n)
    for m in range(m_count):
        first = offsets[order[m]]
        a = body_a[first]
        b = body_b[first]
        if body_moves(motion, a) and body_moves(motion, b):
            ra = find_root(parent, a)
            rb = find_root(parent, b)
            parent[max(ra, rb)] = min(ra, rb)
    # Each manifold's group, numbered as first met; one whose bodies both do not move (its
    # impulses change nothing) is a group of its own.
    group_of_root = np.full(n, -1, dtype=np.int64)
    group = np.empty(m_count, dtype=np.int64)
    groups = 0
    for m in range(m_count):
        first = offsets[order[m]]
        a = body_a[first]
        b = body_b[first]
        root = -1
        if body_moves(motion, a):
            root = find_root(parent, a)
        elif body_moves(motion, b):
            root = find_root(parent, b)
        if root >= 0 and group_of_root[root] >= 0:
            group[m] = group_of_root[root]
            continue
        if root >= 0:
            group_of_root[root] = groups
        group[m] = groups
        groups += 1
    starts = np.zeros(groups + 1, dtype=np.int64)
    for m in range(m_count):
        starts[group[m] + 1] += 1
    for p in range(groups):
        starts[p + 1] += starts[p]
    fill = starts[:groups].copy()
    grouped = np.empty(m_count, dtype=np.int64)
    for m in range(m_count):
        grouped[fill[group[m]]] = order[m]
        fill[group[m]] += 1
    return grouped, starts


@compiled_only()
def impacts_apart(
    motion: Motion, impact: Impact, max_normal_impulse: np.ndarray, totals: tuple, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """The impact's manifolds (``impacting``, the arguments ``apply_restitution``'s) in
    the groups that share no moving body (:func:`impact_groups`): each an impact of its own."""
    order = impacting(motion, impact.prepared, impact.manifolds, max_normal_impulse, totals[0], threshold)
    return impact_groups(motion, impact, order)


@compiled_only(**UNCOUNTED)
def _resolve_groups(
    motion: Motion, impact: Impact, groups: tuple, span: tuple, totals: tuple, work: tuple
) -> None:
    """``resolve_impact`` (restitution.py) of each of the groups ``first .. end - 1``
    (``span``) of ``groups`` = ``(grouped, starts)`` (see :func:`impact_groups`)."""
    grouped, starts = groups
    first, end = span
    for p in range(first, end):
        resolve_impact(motion, impact, grouped, (starts[p], starts[p + 1]), totals, work)


@compiled_only()
def _resolve_chunk(chunk: int, flat: tuple, token: Any, bounds: np.ndarray) -> None:
    """:func:`_resolve_groups` of the groups ``bounds[chunk] .. bounds[chunk + 1] - 1``; the
    arguments ``(motion, impact, groups, totals, work)`` (see :func:`apply_restitution_apart`)
    from ``flat`` and ``token`` (collision.tasks)."""
    motion, impact, groups, totals, work = rebuilt_value(flat, token)
    _resolve_groups(motion, impact, groups, (bounds[chunk], bounds[chunk + 1]), totals, work)


@compiled_only(parallel=True)
def _resolve_threaded(arguments: tuple, bounds: np.ndarray) -> None:
    """:func:`_resolve_chunk` of each chunk of groups ``bounds`` on numba's threads: the groups
    share no moving body, so each gives what it gives alone (a body that does not move, such
    as the floor they share, is not written: see ``_push`` in restitution.py)."""
    flat = flat_leaves(arguments)
    token = nesting_token(arguments)
    for chunk in prange(bounds.shape[0] - 1):
        _resolve_chunk(chunk, flat, token, bounds)


@compiled_only()
def _chunk_bounds(starts: np.ndarray, chunks: int) -> np.ndarray:
    """``(k + 1,)`` group indices cutting the groups ``starts`` (see :func:`impact_groups`)
    into at most ``chunks`` runs of about as many manifolds each."""
    groups = starts.shape[0] - 1
    total = starts[groups]
    bounds = np.empty(chunks + 1, dtype=np.int64)
    bounds[0] = 0
    k = 1
    for p in range(1, groups):
        if k < chunks and starts[p] * chunks >= k * total:
            bounds[k] = p
            k += 1
    bounds[k] = groups
    return bounds[: k + 1]


@compiled_only()
def taken_chunks(groups: tuple, points: int, chunks: int) -> tuple:
    """What :func:`resolve_taken` takes the groups from: ``(bounds, counter, work)``, ``groups``
    (:func:`impacts_apart`) cut into at most ``chunks`` runs of about as many manifolds each
    (:func:`_chunk_bounds`; none when there is no impact or ``chunks`` is 0), the counter of
    chunks taken (0) and ``resolve_impact``'s room for ``points`` points."""
    grouped, starts = groups
    if grouped.shape[0] == 0 or chunks < 1:
        room = 0  # nothing to resolve, nor room to make
        bounds = np.zeros(1, dtype=np.int64)
    else:
        room = points
        bounds = _chunk_bounds(starts, chunks)
    work = (np.empty(room), np.empty(room), np.empty(room))
    return bounds, np.zeros(1, dtype=np.int64), work


@compiled_only()
def resolve_taken(motion: Motion, impact: Impact, totals: tuple, groups: tuple, chunks: tuple) -> None:
    """The chunks of ``groups`` (:func:`impacts_apart`) that this thread takes from ``chunks``
    (:func:`taken_chunks`), one at a time until none is left (collision.tasks.take_next), each
    resolved as :func:`apply_restitution_apart` resolves it. Several threads may take from the
    same chunks at once: the groups share no moving body, so the result does not depend on
    which thread takes which, and a thread that comes to them sooner resolves more."""
    bounds, counter, work = chunks
    last = bounds.shape[0] - 1
    k = take_next(counter)
    while k < last:
        _resolve_groups(motion, impact, groups, (bounds[k], bounds[k + 1]), totals, work)
        k = take_next(counter)


@stage()
def apply_restitution_apart(
    motion: Motion, impact: Impact, totals: tuple, groups: tuple, threads: int
) -> None:
    """``apply_restitution`` for a big world: each of ``groups`` (:func:`impacts_apart`)
    converges on its own, so a landing converges in the passes it needs, not those of the
    whole world's impacts, and its result does not depend on impacts elsewhere; on ``threads``
    threads when two or more and the impact has IMPACTS_THREADED manifolds or more."""
    grouped, starts = groups
    if grouped.shape[0] == 0:
        return
    c = totals[0].shape[0]
    work = (np.empty(c), np.empty(c), np.empty(c))
    if threads >= 2 and grouped.shape[0] >= IMPACTS_THREADED:
        # A few chunks a thread: groups differ in size and in passes.
        bounds = _chunk_bounds(starts, 4 * threads)
        _resolve_threaded((motion, impact, groups, totals, work), bounds)
        return
    _resolve_groups(motion, impact, groups, (np.int64(0), starts.shape[0] - 1), totals, work)
