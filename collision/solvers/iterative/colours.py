"""The order the solver's passes visit the manifolds in.

A world of fewer than collision.threads.THREADED_BODIES rows: body order. Manifolds are listed
by body index, so a stack is solved from the ground up in one pass, which carries a heavy
body's weight down a stack of light ones in fewer passes than any other order (a box of 512 kg
on nine lighter ones, masses doubling upward, drifts 0.21 m in 10 s in colour order, not at all
in body order); the passes deal them from ``SOLVE_STREAMS`` far-apart runs in turn
(``interleaved_order``) so the processor can overlap independent manifolds.

A bigger world: graph colouring. Two manifolds of one colour share no body that moves, so a
colour's manifolds can be solved in any order, or at once on several threads, with the same
result: the passes take the colours in turn and a colour's manifolds in their own order,
whatever the thread count. Bodies that do not move (static, asleep, kinematic: inverse mass
and inertia 0 in the solver) are read, never written, and do not constrain the colouring
(Box2D v3's constraint graph). Greedy: each manifold, in manifold order, takes the first colour
neither of its moving bodies has yet. A manifold that finds none of the ``COLOURS`` colours
goes to the overflow, solved last on one thread.
"""

from __future__ import annotations

import numpy as np

from collision.kernels import compiled_only

#: Colours a body's bit mask holds; manifolds past them overflow.
COLOURS = 63

#: Runs of manifolds the body order's passes take turns between (see ``interleaved_order``).
SOLVE_STREAMS = 2


@compiled_only()
def interleaved_order(count: int, streams: int) -> np.ndarray:
    """0..count-1 dealt from ``streams`` equal runs in turn (0, c, 2c, .., 1, c+1, ..).

    Manifolds are listed by body index, so neighbours in the list share bodies and their
    impulses form one long serial chain; taking them from far-apart runs in turn lets the
    processor overlap independent manifolds. The order is fixed, so results stay exact.
    """
    chunk = (count + streams - 1) // streams
    order = np.empty(count, dtype=np.int64)
    m = 0
    for idx in range(chunk):
        for stream in range(streams):
            g = stream * chunk + idx
            if g < count:
                order[m] = g
                m += 1
    return order


@compiled_only()
def colour_packing(
    original: np.ndarray, moves: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The manifolds of ``original (g, 4)`` (body a, body b, first and end point) packed in
    colour order (:func:`colour_manifolds`, ``moves`` the rows the solver writes), their
    points with them: ``(order (g,), starts, link (g, 4), perm (c,))``, packed manifold row
    ``m`` manifold ``order[m]``, ``link`` its bodies and its points' packed rows, packed point
    row ``q`` point ``perm[q]``."""
    order, starts = colour_manifolds(original, moves)
    groups = order.shape[0]
    link = np.empty((groups, 4), dtype=np.int64)
    perm = np.empty(original[groups - 1, 3] if groups > 0 else 0, dtype=np.int64)
    q = 0
    for m in range(groups):
        g = order[m]
        link[m, 0] = original[g, 0]
        link[m, 1] = original[g, 1]
        link[m, 2] = q
        for k in range(original[g, 2], original[g, 3]):
            perm[q] = k
            q += 1
        link[m, 3] = q
    return order, starts, link, perm


@compiled_only()
def colour_manifolds(link: np.ndarray, moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The manifolds of ``link (g, 4)`` (body a, body b, first and end point) in colour order.

    ``moves (n,) bool``: the rows the solver writes. Returns ``(order (g,) int64, starts (k + 1,)
    int64)``: colour ``c``'s manifolds are ``order[starts[c]:starts[c + 1]]`` (in manifold
    order); the last run is the overflow (empty when every manifold found a colour).
    """
    g = link.shape[0]
    n = moves.shape[0]
    used = np.zeros(n, dtype=np.uint64)
    colour = np.empty(g, dtype=np.int64)
    counts = np.zeros(COLOURS + 1, dtype=np.int64)
    top = 0
    for m in range(g):
        a = link[m, 0]
        b = link[m, 1]
        taken = np.uint64(0)
        if moves[a]:
            taken |= used[a]
        if moves[b]:
            taken |= used[b]
        c = 0
        while c < COLOURS and (taken >> np.uint64(c)) & np.uint64(1):
            c += 1
        if c < COLOURS:
            bit = np.uint64(1) << np.uint64(c)
            if moves[a]:
                used[a] |= bit
            if moves[b]:
                used[b] |= bit
            top = max(top, c + 1)
        colour[m] = c
        counts[c] += 1
    # Colours 0 .. top-1, then the overflow.
    starts = np.zeros(top + 2, dtype=np.int64)
    for c in range(top):
        starts[c + 1] = starts[c] + counts[c]
    starts[top + 1] = starts[top] + counts[COLOURS]
    fill = starts[:-1].copy()
    order = np.empty(g, dtype=np.int64)
    for m in range(g):
        c = colour[m]
        slot = top if c == COLOURS else c
        order[fill[slot]] = m
        fill[slot] += 1
    return order, starts
