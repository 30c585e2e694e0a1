"""The order the solver's passes visit the manifolds in, as runs of manifolds that share no
body that moves: a run's manifolds can be solved in any order, eight at a time in vector lanes
(collision/solvers/iterative/lane_pass.py) or on several threads, with the same result. Bodies
that do not move (static, asleep, kinematic: inverse mass and inertia 0 in the solver) are read,
never written, and do not tie manifolds together (Box2D v3's constraint graph).

A world of fewer than collision.threads.THREADED_BODIES rows: body order, in levels. Manifolds
are listed by body index, so a stack is solved from the ground up in one pass, which carries a
heavy body's weight down a stack of light ones in fewer passes than colour order does. The
passes take that list dealt from ``SOLVE_STREAMS`` far-apart runs in turn
(``interleaved_order``): a box of 512 kg on nine lighter ones, masses doubling upward (the bench's
heavy_on_light_stack_10 case), moves at most 0.045 m in 10 s so, 0.073 m in plain body order and
0.21 m in colour order. :func:`level_order` cuts that list into levels: a manifold's level is
one past the highest level of the manifolds before it that share a moving body with it. Level
by level, every body meets its manifolds in the list's order, so each impulse is the one the
list solved one by one would give, bit for bit, and a level's manifolds share no moving body.
Any levels with those two properties give those bits: :func:`balanced_levels` places each
manifold between its earliest and latest level so that levels fill whole groups of lanes (the
pyramid's passes: 54 groups of eight and 8 manifolds one at a time, against 59 and 15), which
costs more than it saves when made every step; a resting scene, whose manifolds stay the same
from one step to the next, keeps its order (:func:`keep_order`) and has it balanced once.

A bigger world: graph colouring (:func:`colour_manifolds`), whose runs do not depend on the
thread count. Greedy: each manifold, in manifold order, takes the first colour neither of its
moving bodies has yet. A manifold that finds none of the ``COLOURS`` colours goes to the
overflow, solved last on one thread.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from collision.geometry import slot
from collision.kernels import compiled_only
from collision.simd import LANES

#: Colours a body's bit mask holds; manifolds past them overflow.
COLOURS = 63

#: Runs of manifolds the body order's passes take turns between (see ``interleaved_order``).
SOLVE_STREAMS = 2

#: Manifolds a level must leave past its full groups of LANES for :func:`padded_levels` to fill
#: the group up with empty ones (see there).
PAD_LEAST = 3

#: Levels past the current one that :func:`balanced_levels` takes ready manifolds from to fill it.
LOOKAHEAD = 16


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
def padded_levels(order: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`level_order`'s ``(order, starts)`` with each level that leaves at least PAD_LEAST
    manifolds past its full groups of LANES filled up to a multiple of LANES with empty
    manifolds (``-1`` in ``order``), so that the passes solve those levels whole in lanes; the
    other levels and the last run (the overflow) as they were. The manifolds keep their order,
    the levels their manifolds. A group of eight in lanes costs less than three or more
    manifolds one at a time: the pyramid's steps, 600 from the start, 0.121 -> 0.113-0.117 ms;
    padding every level made the 1000-body pile's slower (0.521-0.530 -> 0.542-0.550 ms: while
    it falls, many levels hold one or two manifolds)."""
    runs = starts.shape[0] - 1
    extra = 0
    for r in range(runs - 1):
        rest = (starts[r + 1] - starts[r]) % LANES
        if rest >= PAD_LEAST:
            extra += LANES - rest
    if extra == 0:
        return order, starts
    padded = np.empty(order.shape[0] + extra, dtype=np.int64)
    padded_starts = np.empty_like(starts)
    m = 0
    for r in range(runs):
        padded_starts[r] = m
        for q in range(starts[r], starts[r + 1]):
            padded[m] = order[q]
            m += 1
        rest = (starts[r + 1] - starts[r]) % LANES
        if r < runs - 1 and rest >= PAD_LEAST:
            for _ in range(LANES - rest):
                padded[m] = -1
                m += 1
    padded_starts[runs] = m
    return padded, padded_starts


@compiled_only()
def packed_links(original: np.ndarray, order: np.ndarray, phantom: int) -> tuple[np.ndarray, np.ndarray]:
    """The manifolds of ``original (g, 4)`` (body a, body b, first and end point) packed in
    ``order (g,)`` (packed row ``m`` is manifold ``order[m]``), their points with them: ``(link
    (g, 4), perm (c,))``, ``link`` the packed manifolds' bodies and their points' packed rows,
    packed point row ``q`` point ``perm[q]``. An empty manifold (``-1`` in ``order``, see
    :func:`padded_levels`) has body row ``phantom`` for both bodies and no points."""
    groups = order.shape[0]
    link = np.empty((groups, 4), dtype=np.int64)
    last = original.shape[0] - 1
    perm = np.empty(original[last, 3] if last >= 0 else 0, dtype=np.int64)
    q = 0
    for m in range(groups):
        if order[m] < 0:
            # An empty manifold (padded_levels): the phantom row for both bodies, no points.
            link[m, 0] = phantom
            link[m, 1] = phantom
            link[m, 2] = q
            link[m, 3] = q
            continue
        g = slot(order[m])
        link[m, 0] = original[g, 0]
        link[m, 1] = original[g, 1]
        link[m, 2] = q
        for k in range(original[g, 2], original[g, 3]):
            perm[slot(q)] = k
            q += 1
        link[m, 3] = q
    return link, perm


@compiled_only()
def level_order(link: np.ndarray, moves: np.ndarray, streams: int) -> tuple[np.ndarray, np.ndarray]:
    """The manifolds of ``link (g, 4)`` (body a, body b, ...) in levels of the list
    ``interleaved_order(g, streams)``: a manifold's level is one past the highest level of the
    manifolds before it in that list that share a body with it that moves (``moves (n,) bool``).
    Returns ``(order (g,) int64, starts (k + 2,) int64)``: level ``l``'s manifolds are
    ``order[starts[l]:starts[l + 1]]`` (in manifold order), and the last run, where
    :func:`colour_manifolds` puts its overflow, is empty."""
    g = link.shape[0]
    # reached[i]: the level after body i's latest manifold so far.
    reached = np.zeros(moves.shape[0], dtype=np.int64)
    level = np.empty(g, dtype=np.int64)
    top = 0
    for entry in interleaved_order(g, streams):
        m = slot(entry)
        a = slot(link[m, 0])
        b = slot(link[m, 1])
        lv = 0
        if moves[a]:
            lv = reached[a]
        if moves[b]:
            lv = max(lv, reached[b])
        level[m] = lv
        if moves[a]:
            reached[a] = lv + 1
        if moves[b]:
            reached[b] = lv + 1
        top = max(top, lv + 1)
    return _by_run(level, top + 1)


@compiled_only()
def balanced_levels(link: np.ndarray, moves: np.ndarray, streams: int) -> tuple[np.ndarray, np.ndarray]:
    """The manifolds of ``link (g, 4)`` (body a, body b, ...) in levels of the list
    ``interleaved_order(g, streams)``, each level a multiple of LANES manifolds where the list
    allows it. A manifold's neighbours are the manifolds just before and just after it in that
    list that share with it a body that moves (``moves (n,) bool``): it goes after those before
    it and ahead of those after it, so each body meets its manifolds in the list's order and a
    level's manifolds share no moving body, in as many levels as the longest chain of
    neighbours (the least there can be).

    Within that, a manifold may go anywhere between its earliest level (one past those
    before it) and its latest (one before the latest of those after it). Level by level, the
    manifolds whose latest level it is go in, and then, while the level is not a multiple of
    LANES, manifolds that are ready (all those before them placed) in order of their latest
    level, looking up to LOOKAHEAD levels on: a level of 9 left as it comes costs a group of
    eight in lanes and one manifold on its own in every pass, 8 or 16 cost whole groups.
    Levels with nothing due and too little to fill them stay empty and are dropped.

    Returns ``(order (g,) int64, starts (k + 2,) int64)``: level ``l``'s manifolds are
    ``order[starts[l]:starts[l + 1]]`` (in manifold order), and the last run, where
    :func:`colour_manifolds` puts its overflow, is empty."""
    g = link.shape[0]
    sequence = interleaved_order(g, streams)
    waiting, depth = _predecessors(link, moves, sequence)
    # Backwards: the manifolds just after each one, its latest level, and the ready ones (none
    # before them) in a stack per latest level, the list's first on top.
    after = np.empty((g, 2), dtype=np.int64)
    latest = np.empty(g, dtype=np.int64)
    head = np.full(depth, -1, dtype=np.int64)
    below = np.empty(g, dtype=np.int64)
    following = np.full(moves.shape[0], -1, dtype=np.int64)
    for q in range(g - 1, -1, -1):
        m = slot(sequence[q])
        lv = depth - 1
        for side in range(2):
            body = slot(link[m, side])
            s = following[body] if moves[body] else -1
            after[q, side] = s
            if s >= 0:
                lv = min(lv, latest[slot(s)] - 1)
                following[body] = q
            elif moves[body]:
                following[body] = q
        latest[q] = lv
        if waiting[q] == 0:
            below[q] = head[slot(lv)]
            head[slot(lv)] = q
    level = np.empty(g, dtype=np.int64)
    chosen = np.empty(g, dtype=np.int64)
    levels = 0
    for lv in range(depth):
        count = 0
        ahead = lv
        while ahead < min(depth, lv + 1 + LOOKAHEAD) and (ahead == lv or count % LANES != 0):
            while head[ahead] >= 0 and (ahead == lv or count % LANES != 0):
                q = head[ahead]
                head[ahead] = below[slot(q)]
                chosen[count] = q
                count += 1
            ahead += 1
        if count == 0:
            continue
        for k in range(count):
            level[slot(sequence[slot(chosen[k])])] = levels
        levels += 1
        for k in range(count):
            placed = slot(chosen[k])
            for side in range(2):
                s = after[placed, side]
                if s < 0 or (side == 1 and s == after[placed, 0]):
                    continue
                waiting[slot(s)] -= 1
                if waiting[slot(s)] == 0:
                    below[slot(s)] = head[slot(latest[s])]
                    head[slot(latest[s])] = s
    return _by_run(level, levels + 1)


@njit(cache=True, inline="always")
def _predecessors(link: np.ndarray, moves: np.ndarray, sequence: np.ndarray) -> tuple[np.ndarray, int]:
    """For each position ``q`` of the list ``sequence`` (manifolds of ``link``), how many
    distinct manifolds just before it share a body with it that moves (its body a's, its body
    b's: 0, 1 or 2), as ``waiting (g,) int64``; and the levels the longest chain of such
    neighbours needs."""
    g = sequence.shape[0]
    before = np.empty((g, 2), dtype=np.int64)
    earliest = np.empty(g, dtype=np.int64)
    waiting = np.empty(g, dtype=np.int64)
    last = np.full(moves.shape[0], -1, dtype=np.int64)
    depth = 0
    for q in range(g):
        m = slot(sequence[q])
        lv = 0
        for side in range(2):
            body = slot(link[m, side])
            p = last[body] if moves[body] else -1
            before[q, side] = p
            if p >= 0:
                lv = max(lv, earliest[slot(p)] + 1)
            if moves[body]:
                last[body] = q
        earliest[q] = lv
        # int(): interpreted, numpy adds two bools as a logical or.
        waiting[q] = int(before[q, 0] >= 0) + int(before[q, 1] >= 0 and before[q, 1] != before[q, 0])
        depth = max(depth, lv + 1)
    return waiting, depth


@njit(cache=True, inline="always")
def _by_run(run: np.ndarray, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """``(order (g,), starts (runs + 1,))``: the manifolds ``m`` of ``run[m]`` = 0 .. runs - 1,
    run by run, each run in manifold order (a counting sort)."""
    starts = np.zeros(runs + 1, dtype=np.int64)
    for m in range(run.shape[0]):
        starts[slot(run[m] + 1)] += 1
    for r in range(runs):
        starts[r + 1] += starts[r]
    fill = starts[:-1].copy()
    order = np.empty(run.shape[0], dtype=np.int64)
    for m in range(run.shape[0]):
        at = slot(run[m])
        order[slot(fill[at])] = m
        fill[at] += 1
    return order, starts


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
    top = 0
    for m in range(g):
        a = link[m, 0]
        b = link[m, 1]
        taken = np.uint64(0)
        if moves[a]:
            taken |= used[a]
        if moves[b]:
            taken |= used[b]
        # The lowest colour free at both bodies: the lowest zero bit (no bit at COLOURS or above
        # is ever set), one instruction where a loop over the bits branched on each.
        c = min(np.int64(trailing_zeros(~taken)), COLOURS)  # type: ignore[call-arg]  # numba intrinsic
        if c < COLOURS:
            bit = np.uint64(1) << np.uint64(c)
            if moves[a]:
                used[a] |= bit
            if moves[b]:
                used[b] |= bit
            top = max(top, c + 1)
        colour[m] = c
    # Colours 0 .. top-1, then the overflow.
    for m in range(g):
        if colour[m] == COLOURS:
            colour[m] = top
    return _by_run(colour, top + 1)


# An order kept from one step to the next: a resting scene's manifolds stay the same step after
# step (the pyramid's every step), and so does their order, which then costs a comparison
# instead of a sort. One int64 array, so the solver's state between steps holds one more array:
# a header (KEPT_HEADER values: kind, g, n, packed rows, len(starts), points), then the
# manifolds it was made for (g x 4, see manifold_links), the rows that moved (n, 0 or 1), and
# what the order is: order, starts, packed link (x 4), perm.
KEPT_HEADER = 6
#: Kinds of order: levels of body order (a small world's; balanced: :func:`balanced_levels`) or
#: colours.
LEVELS, COLOURED, BALANCED = 0, 1, 2


def no_kept_order() -> np.ndarray:
    """A kept order that holds for no step (see :func:`kept_order_holds`)."""
    return np.full(KEPT_HEADER, -1, dtype=np.int64)


@compiled_only()
def keep_order(
    kind: int, original: np.ndarray, moves: np.ndarray, order: np.ndarray, starts: np.ndarray,
    link: np.ndarray, perm: np.ndarray, room: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """The order ``(order, starts, link, perm)`` (see soft_step.colour_rows) of ``kind`` made
    for the manifolds ``original (g, 4)`` and the rows ``moves (n,) bool``, kept in one int64
    array (see :func:`kept_order_holds`, :func:`kept_views`): the first values of ``room``
    when it has room for them (:func:`kept_size`), else an array of its own."""
    g = original.shape[0]
    n = moves.shape[0]
    m = order.shape[0]
    k = starts.shape[0]
    c = perm.shape[0]
    size = KEPT_HEADER + 4 * g + n + m + k + 4 * m + c
    kept = room[:size] if room.shape[0] >= size else np.empty(size, dtype=np.int64)
    kept[0] = kind
    kept[1] = g
    kept[2] = n
    kept[3] = m
    kept[4] = k
    kept[5] = c
    at = KEPT_HEADER
    for row in range(g):
        for j in range(4):
            kept[at] = original[row, j]
            at += 1
    for i in range(n):
        kept[at] = 1 if moves[i] else 0
        at += 1
    for q in range(m):
        kept[at] = order[q]
        at += 1
    for q in range(k):
        kept[at] = starts[q]
        at += 1
    for row in range(m):
        for j in range(4):
            kept[at] = link[row, j]
            at += 1
    for q in range(c):
        kept[at] = perm[q]
        at += 1
    return kept


@compiled_only()
def kept_size(groups: int, n: int, points: int) -> int:
    """The most values :func:`keep_order` keeps of a colour order (not levels: those add empty
    manifolds) of ``groups`` manifolds of ``points`` points between ``n`` rows."""
    return KEPT_HEADER + 4 * groups + n + groups + (COLOURS + 2) + 4 * groups + points


@compiled_only()
def kept_order_holds(kept: np.ndarray, kind: int, original: np.ndarray, moves: np.ndarray) -> bool:
    """Whether ``kept`` (see :func:`keep_order`) is the order of ``kind`` for the manifolds
    ``original (g, 4)`` and the rows ``moves (n,) bool``: the same manifolds (bodies and
    points) and the same rows moving give the same order, bit for bit."""
    g = original.shape[0]
    n = moves.shape[0]
    same_kind = kept[0] == kind or (kind == LEVELS and kept[0] == BALANCED)
    if not same_kind or kept[1] != g or kept[2] != n:
        return False
    # No early exit: the loops vectorise (a resting scene compares them all every step anyway).
    flat = original.reshape(-1)
    kept_links = kept[KEPT_HEADER : KEPT_HEADER + 4 * g]
    differ = False
    for i in range(4 * g):
        differ |= kept_links[i] != flat[i]
    kept_moves = kept[KEPT_HEADER + 4 * g : KEPT_HEADER + 4 * g + n]
    for i in range(n):
        differ |= (kept_moves[i] != 0) != moves[i]
    return not differ


@njit(cache=True, inline="always")
def kept_views(kept: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(order, starts, link, perm)`` of ``kept`` (see :func:`keep_order`), views of it."""
    m = kept[3]
    k = kept[4]
    at = KEPT_HEADER + 4 * kept[1] + kept[2]
    order = kept[at : at + m]
    at += m
    starts = kept[at : at + k]
    at += k
    link = kept[at : at + 4 * m].reshape((m, 4))
    at += 4 * m
    perm = kept[at : at + kept[5]]
    return order, starts, link, perm
