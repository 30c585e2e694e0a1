"""The contact passes eight manifolds at a time (collision/solvers/iterative/passes.py, _lanes
and _warm_lanes) against the passes one manifold at a time, bit for bit, on colours of random
contact rows; and a small world's levels (collision/solvers/iterative/colours.py, level_order),
solved level by level, against its list of manifolds solved one by one."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from collision.kernels import python_entry
from collision.solvers.iterative import columns as p
from collision.solvers.iterative import passes
from collision.solvers.iterative.colours import (
    PAD_LEAST,
    SOLVE_STREAMS,
    balanced_levels,
    colour_manifolds,
    level_order,
    padded_levels,
)

JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")


def in_manifold_order(original: np.ndarray, moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """No packing: the manifolds as listed, one run (and the empty overflow)."""
    g = original.shape[0]
    return np.arange(g), np.array([0, g, g])


def random_rows(seed: int, n: int = 300, groups: int = 700, schedule: object = None) -> tuple:
    """Packed contact rows as the soft step makes them, in colour order (or in ``schedule(original,
    moves)``'s, a function like colour_manifolds): bodies (three static),
    one- and two-point manifolds with random arms, masses, separations (speculative ones too),
    warm starts, blocks (some unusable) and softness rows; returns (body, point, manifold,
    link, starts, softness)."""
    rng = np.random.default_rng(seed)
    body = np.zeros((n, p.BODY_COLUMNS))
    body[:, p.B_VX : p.B_W + 1] = rng.normal(0.0, 1.0, (n, 3))
    body[3:, p.B_IM] = 1.0 / rng.uniform(0.2, 5.0, n - 3)
    body[3:, p.B_II] = 1.0 / rng.uniform(0.05, 2.0, n - 3)
    body[:, p.B_DX : p.B_DA + 1] = rng.normal(0.0, 0.01, (n, 3))
    a = rng.integers(3, n, groups)
    b = rng.integers(0, n, groups)
    b[b == a] = 0
    original = np.zeros((groups, 4), dtype=np.int64)
    original[:, 0], original[:, 1] = a, b
    order, starts = (schedule or python_entry(colour_manifolds))(original, body[:, p.B_IM] != 0.0)
    two = rng.random(groups) < 0.7
    link = np.zeros((groups, 4), dtype=np.int64)
    q = 0
    for m, g in enumerate(order):
        link[m] = (a[g], b[g], q, q + (2 if two[g] else 1))
        q = link[m, 3]
    point = np.zeros((2, p.POINT_COLUMNS, groups))
    point[:, p.P_RNA : p.P_RTB + 1] = rng.normal(0.0, 0.5, (2, 4, groups))
    point[:, p.P_NMASS] = rng.uniform(0.1, 2.0, (2, groups))
    point[:, p.P_TMASS] = rng.uniform(0.1, 2.0, (2, groups))
    point[:, p.P_MU] = rng.choice([0.0, 0.3, 0.6], (2, groups))
    point[:, p.P_SEP] = rng.normal(-0.005, 0.02, (2, groups))
    point[:, p.P_NI] = np.maximum(rng.normal(0.05, 0.1, (2, groups)), 0.0)
    point[:, p.P_TI] = rng.normal(0.0, 0.02, (2, groups))
    point[:, p.P_REF] = point[:, p.P_NI] * 0.5
    one = link[:, 3] - link[:, 2] == 1
    point[1][:, one] = point[0][:, one]  # a one-point manifold's first in both
    manifold = np.zeros((p.MANIFOLD_COLUMNS, groups))
    angle = rng.uniform(0.0, 2.0 * math.pi, groups)
    manifold[p.M_NX], manifold[p.M_NY] = np.cos(angle), np.sin(angle)
    k11, k22 = rng.uniform(1.0, 3.0, groups), rng.uniform(1.0, 3.0, groups)
    k12 = rng.uniform(-0.5, 0.9, groups) * np.sqrt(k11 * k22)
    det = k11 * k22 - k12 * k12
    manifold[p.M_K11], manifold[p.M_K12], manifold[p.M_K22] = k11, k12, k22
    manifold[p.M_I11], manifold[p.M_I12], manifold[p.M_I22] = k22 / det, -k12 / det, k11 / det
    manifold[p.M_OK] = (rng.random(groups) < 0.8) & ~one
    manifold[p.M_T01 : p.M_NT11 + 1] = rng.normal(0.0, 0.3, (5, groups))
    softness = np.array([[-30.0, 0.9, 0.1], [-60.0, 0.8, 0.2]] + [[-90.0, 0.7, 0.3]] * groups)
    manifold[p.M_ROW] = rng.choice([0.0, 1.0], groups)
    heavy = rng.random(groups) < 0.1
    manifold[p.M_ROW][heavy] = 2.0 + np.flatnonzero(heavy)
    return body, point, manifold, link, starts, softness


@pytest.mark.skipif(not JIT, reason="the lanes are LLVM vectors: without the JIT the pass is the loop")
@pytest.mark.parametrize("seed", range(4))
def test_eight_at_a_time_is_one_at_a_time_bit_for_bit(seed: int) -> None:
    body, point, manifold, link, starts, softness = random_rows(seed)
    lanes, loop = python_entry(passes._pass_lanes), python_entry(passes._pass)
    by_lanes = (body.copy(), point.copy())
    by_loop = (body.copy(), point.copy())
    # Solve (bias on) and relax (off, speculative rows left to an impact past 2 m/s) passes.
    for use_bias, open_speed, max_push in ((True, math.inf, 3.0), (False, 2.0, 0.0), (True, math.inf, 3.0)):
        for c in range(starts.shape[0] - 2):
            span = (starts[c], starts[c + 1])
            args = (softness, 240.0, np.bool_(use_bias), open_speed, max_push)
            lanes(by_lanes[0], by_lanes[1], manifold, link, span, *args)
            loop(by_loop[0], by_loop[1], manifold, link, span, *args)
    assert by_lanes[0].tobytes() == by_loop[0].tobytes()
    assert by_lanes[1].tobytes() == by_loop[1].tobytes()
    # The passes did something, in every kind of row.
    assert not np.array_equal(by_loop[0], body)
    assert np.any(by_loop[1][:, p.P_NI] == 0.0) and np.any(by_loop[1][:, p.P_NI] > 0.0)


def interleaved(count: int, streams: int) -> list[int]:
    """The small world's list as colours.py documents it: ``streams`` equal runs taken in turn."""
    chunk = -(-count // streams)
    return [s * chunk + i for i in range(chunk) for s in range(streams) if s * chunk + i < count]


def brute_levels(a: np.ndarray, b: np.ndarray, moves: np.ndarray, sequence: list[int]) -> np.ndarray:
    """Each manifold's level by its definition: one past the highest level of the manifolds
    before it in ``sequence`` that share a moving body with it (quadratic, for checking)."""
    level = np.full(a.shape[0], -1)
    for i, m in enumerate(sequence):
        mine = {x for x in (a[m], b[m]) if moves[x]}
        earlier = [level[e] for e in sequence[:i] if mine & {a[e], b[e]}]
        level[m] = 1 + max(earlier, default=-1)
    return level


def random_links(seed: int, most_bodies: int, most_groups: int) -> tuple:
    """Manifolds between random bodies (up to ``most_bodies``, four in five moving), as the
    soft step lists them: ``(a, b, moves, original (g, 4))``, no points."""
    rng = np.random.default_rng(seed)
    n, groups = int(rng.integers(2, most_bodies)), int(rng.integers(0, most_groups))
    moves = rng.random(n) < 0.8
    a = rng.integers(0, n, groups)
    b = (a + rng.integers(1, n, groups)) % n if n > 1 else a
    original = np.zeros((groups, 4), dtype=np.int64)
    original[:, 0], original[:, 1] = a, b
    return a, b, moves, original


SCHEDULES = {"levels": python_entry(level_order), "balanced": python_entry(balanced_levels)}


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("seed", range(6))
def test_levels_keep_every_body_s_order_and_share_no_moving_body(schedule: str, seed: int) -> None:
    """Both schedules: each level's manifolds share no moving body, each body meets its
    manifolds in the list's order, in as many levels as the longest chain; level_order puts each
    manifold at its earliest level (brute force), balanced_levels anywhere that keeps the rest."""
    a, b, moves, original = random_links(seed, 40, 120)
    groups = original.shape[0]
    order, starts = SCHEDULES[schedule](original, moves, SOLVE_STREAMS)
    sequence = interleaved(groups, SOLVE_STREAMS)
    level = brute_levels(a, b, moves, sequence)
    assert sorted(order.tolist()) == list(range(groups))
    assert starts[0] == 0 and starts[-2] == starts[-1] == groups  # the overflow run is empty
    for lv in range(starts.shape[0] - 2):
        run = order[starts[lv] : starts[lv + 1]]
        assert run.shape[0] > 0
        assert schedule == "balanced" or np.all(level[run] == lv)
        assert np.all(np.diff(run) > 0)  # manifold order within a level
        touched = [x for m in run for x in (a[m], b[m]) if moves[x]]
        assert len(touched) == len(set(touched)), f"level {lv} shares a moving body"
    assert starts.shape[0] - 2 == (level.max() + 1 if groups else 0)
    # Every moving body meets its manifolds in the list's order.
    rank = np.empty(groups, dtype=np.int64)
    rank[order] = np.arange(groups)
    for x in np.flatnonzero(moves):
        mine = [m for m in sequence if x in (a[m], b[m])]
        assert [rank[m] for m in mine] == sorted(rank[m] for m in mine)


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("seed", range(3))
def test_levels_solved_eight_at_a_time_are_the_list_one_by_one(schedule: str, seed: int) -> None:
    """A small world's passes: level by level, eight manifolds at a time where a level has them,
    against the interleaved list solved one by one, bit for bit."""
    body, point, manifold, link, _, softness = random_rows(seed, n=120, schedule=in_manifold_order)
    groups = link.shape[0]
    order, starts = SCHEDULES[schedule](link, body[:, p.B_IM] != 0.0, SOLVE_STREAMS)
    assert np.sum(np.diff(starts) // passes.LANES) > 20  # levels with lanes to fill
    packed_link = np.zeros_like(link)
    packed_link[:, :2] = link[order, :2]
    counts = link[order, 3] - link[order, 2]
    packed_link[:, 3] = np.cumsum(counts)
    packed_link[:, 2] = packed_link[:, 3] - counts
    by_levels = (body.copy(), np.ascontiguousarray(point[:, :, order]))
    by_list = (body.copy(), point.copy())
    levels, loop = python_entry(passes._pass_runs), python_entry(passes._pass)
    for use_bias, open_speed, max_push in ((True, math.inf, 3.0), (False, 2.0, 0.0)):
        args = (softness, 240.0, np.bool_(use_bias), open_speed, max_push)
        packed = np.ascontiguousarray(manifold[:, order])
        levels(by_levels[0], by_levels[1], packed, packed_link, starts, *args)
        for m in interleaved(groups, SOLVE_STREAMS):
            loop(by_list[0], by_list[1], manifold, link, (m, m + 1), *args)
    assert by_levels[0].tobytes() == by_list[0].tobytes()
    assert by_levels[1].tobytes() == by_list[1][:, :, order].tobytes()
    assert not np.array_equal(by_list[0], body)


@pytest.mark.parametrize("seed", range(6))
def test_padded_levels_fill_the_levels_that_leave_enough_with_empty_manifolds(seed: int) -> None:
    """Each level leaving PAD_LEAST or more past its full groups of eight is filled up to a
    multiple of eight with empty manifolds (-1) after its own; the others, the overflow run and
    the manifolds' order are untouched."""
    _, _, moves, original = random_links(seed, 60, 300)
    order, starts = python_entry(level_order)(original, moves, SOLVE_STREAMS)
    padded, padded_starts = python_entry(padded_levels)(order, starts)
    assert padded_starts.shape == starts.shape and padded_starts[0] == 0
    assert padded_starts[-2] == padded_starts[-1] == padded.shape[0]  # the overflow stays empty
    assert padded[padded >= 0].tolist() == order.tolist()
    filled = 0
    for lv in range(starts.shape[0] - 2):
        mine = order[starts[lv] : starts[lv + 1]]
        run = padded[padded_starts[lv] : padded_starts[lv + 1]]
        assert run[: mine.shape[0]].tolist() == mine.tolist()
        rest = mine.shape[0] % passes.LANES
        if rest >= PAD_LEAST:
            assert run.shape[0] % passes.LANES == 0 and np.all(run[mine.shape[0] :] == -1)
            filled += 1
        else:
            assert run.shape[0] == mine.shape[0]
    assert filled == sum(PAD_LEAST <= (starts[lv + 1] - starts[lv]) % 8 for lv in range(starts.shape[0] - 2))


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("seed", range(3))
def test_padded_levels_solved_in_lanes_are_the_list_one_by_one(schedule: str, seed: int) -> None:
    """Levels filled with empty manifolds (all-zero columns, both bodies a phantom row of zeros
    past the bodies', as the soft step packs them): the warm start and the passes level by
    level, eight at a time, leave the bodies and the real manifolds' columns as the list solved
    one by one leaves them, bit for bit, and the phantom row untouched."""
    body, point, manifold, link, _, softness = random_rows(seed, n=120, schedule=in_manifold_order)
    n, groups = body.shape[0], link.shape[0]
    order, starts = SCHEDULES[schedule](link, body[:, p.B_IM] != 0.0, SOLVE_STREAMS)
    order, starts = python_entry(padded_levels)(order, starts)
    empty = order < 0
    real = order[~empty]
    # Levels filled up (balanced levels leave few to fill).
    assert empty.sum() >= (2 * passes.LANES if schedule == "levels" else 1)
    with_phantom = np.vstack([body, np.zeros((1, p.BODY_COLUMNS))])
    source = np.maximum(order, 0)
    counts = np.where(empty, 0, link[source, 3] - link[source, 2])
    packed_link = np.zeros((order.shape[0], 4), dtype=np.int64)
    packed_link[:, :2] = np.where(empty[:, None], n, link[source, :2])
    packed_link[:, 3] = np.cumsum(counts)
    packed_link[:, 2] = packed_link[:, 3] - counts
    packed_point = np.zeros((2, point.shape[1], order.shape[0]))
    packed_point[:, :, ~empty] = point[:, :, real]
    packed_manifold = np.zeros((manifold.shape[0], order.shape[0]))
    packed_manifold[:, ~empty] = manifold[:, real]
    packed_total = np.zeros((2, 2, order.shape[0]))
    by_list = (body.copy(), point.copy(), np.zeros((2, 2, groups)))
    warm, warm_one = python_entry(passes._warm_start_runs), python_entry(passes._warm_start_manifold)
    levels, loop = python_entry(passes._pass_runs), python_entry(passes._pass)
    sequence = interleaved(groups, SOLVE_STREAMS)
    warm(
        with_phantom,
        (packed_point[0], packed_point[1]),
        packed_manifold,
        packed_link,
        starts,
        (packed_total, np.bool_(True)),
    )
    for m in sequence:
        warm_one(by_list[0], (by_list[1][0], by_list[1][1]), manifold, link, m, (by_list[2], np.bool_(True)))
    for use_bias, open_speed, max_push in ((True, math.inf, 3.0), (False, 2.0, 0.0)):
        args = (softness, 240.0, np.bool_(use_bias), open_speed, max_push)
        levels(with_phantom, packed_point, packed_manifold, packed_link, starts, *args)
        for m in sequence:
            loop(by_list[0], by_list[1], manifold, link, (m, m + 1), *args)
    assert with_phantom[:n].tobytes() == by_list[0].tobytes()
    assert not with_phantom[n].any()
    assert packed_point[:, :, ~empty].tobytes() == by_list[1][:, :, real].tobytes()
    assert packed_total[:, :, ~empty].tobytes() == by_list[2][:, :, real].tobytes()
    assert not np.array_equal(by_list[0], body)


@pytest.mark.skipif(not JIT, reason="the lanes are LLVM vectors: without the JIT the pass is the loop")
@pytest.mark.parametrize("seed", range(3))
def test_warm_start_eight_at_a_time_is_one_at_a_time_bit_for_bit(seed: int) -> None:
    body, point, manifold, link, starts, _ = random_rows(seed)
    spans, one = python_entry(passes._warm_start_span), python_entry(passes._warm_start_manifold)
    groups = link.shape[0]
    total = np.random.default_rng(seed).normal(size=(2, 2, groups))
    by_lanes = (body.copy(), total.copy())
    by_loop = (body.copy(), total.copy())
    rows = (point[0], point[1])
    for add in (False, True):
        for c in range(starts.shape[0] - 2):
            spans(by_lanes[0], rows, manifold, link, (starts[c], starts[c + 1]), (by_lanes[1], np.bool_(add)))
            for g in range(starts[c], starts[c + 1]):
                one(by_loop[0], rows, manifold, link, g, (by_loop[1], np.bool_(add)))
    assert by_lanes[0].tobytes() == by_loop[0].tobytes()
    assert by_lanes[1].tobytes() == by_loop[1].tobytes()
    assert not np.array_equal(by_loop[0], body) and not np.array_equal(by_loop[1], total)
