"""Broadphase kernels against brute force."""

import math

import numpy as np

from collision.broadphase import (
    _strip_boxes,
    candidate_pairs,
    candidate_pairs_halves,
    sweep_axis,
    swept_bounds,
    transform_vertices,
)
from collision.kernels import python_entry
from collision.shapes import MAX_VERTICES
from collision.tolerances import MAX_PAIRS_PER_BODY


def _flag() -> np.ndarray:
    return np.zeros(1, dtype=np.int64)


def _brute_pairs(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray) -> list[tuple[int, int]]:
    n = lo.shape[0]
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            if skip[i] and skip[j]:
                continue
            if np.all(lo[i] <= hi[j]) and np.all(lo[j] <= hi[i]):
                out.append((i, j))
    return out


def test_candidate_pairs_match_brute_force() -> None:
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 17, 300):
        centre = rng.uniform(0, 50, size=(n, 2))
        half = rng.uniform(0.1, 3.0, size=(n, 2))
        lo, hi = centre - half, centre + half
        skip = rng.random(n) < 0.3
        crowd = _flag()
        got = [tuple(p) for p in python_entry(candidate_pairs)(lo, hi, skip, crowd)]
        assert got == _brute_pairs(lo, hi, skip) and crowd[0] == 0


def _pile_boxes(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A walled pile: a floor and two walls (skipped, as static bodies are), 40 columns of 20
    boxes touching or nearly, rows of them sharing exact edges, and a few tall boxes that
    reach through many rows."""
    centre = np.array([(1.1 * c, 1.5 * r) for c in range(40) for r in range(20)], dtype=float)
    half = np.full_like(centre, 0.55)
    half[:, 1] = 0.75
    centre += rng.integers(-2, 3, size=centre.shape) / 64.0  # a few exact coincidences stay
    tall = np.array([[5.0, 10.0], [20.0, 30.0], [12.3, 18.0]])
    tall_half = np.array([[0.3, 9.0], [0.2, 20.0], [0.4, 4.0]])
    walls = np.array([[21.5, -1.0], [-1.0, 15.0], [44.0, 15.0]])
    walls_half = np.array([[23.0, 0.5], [0.5, 16.0], [0.5, 16.0]])
    centre = np.concatenate([walls, centre, tall])
    half = np.concatenate([walls_half, half, tall_half])
    skip = np.zeros(len(centre), dtype=np.bool_)
    skip[:3] = True
    return centre - half, centre + half, skip


def test_a_pile_s_pairs_match_brute_force_whatever_strips_they_share() -> None:
    """A pile swept along x meets its whole column at every box: the sweep runs in strips along
    the other axis, and two boxes sharing several strips (a wall, a tall box, boxes meeting at a
    strip's edge) must still be paired exactly once."""
    rng = np.random.default_rng(11)
    lo, hi, skip = _pile_boxes(rng)
    for turn in range(2):  # the same pile lying on its side: the other axis is swept
        a, b = (lo, hi) if turn == 0 else (lo[:, ::-1].copy(), hi[:, ::-1].copy())
        crowd = _flag()
        got = [tuple(p) for p in python_entry(candidate_pairs)(a, b, skip, crowd)]
        assert got == _brute_pairs(a, b, skip) and crowd[0] == 0
        assert len(got) > len(a)


def test_the_strips_hold_every_box_where_it_reaches_and_no_more_than_their_share() -> None:
    """Each box is an entry of exactly the strips its span on the other axis reaches, in sweep
    order within a strip; a pile gets many strips, boxes nearly all as tall as the span two, and
    the entries stay within 4 per box (the bound _strip_spans gives) even with boxes of every
    height."""
    rng = np.random.default_rng(12)
    lo, hi, skip = _pile_boxes(rng)
    start, (low, scale, strips), bounds, flags, body = python_entry(_strip_boxes)(lo, hi, skip)
    n = len(lo)
    b = 1 - python_entry(sweep_axis)(lo, hi)
    assert b == 1  # wider than tall: swept along x, in strips along y
    assert strips > 10 and len(body) <= 4 * n and start[-1] == len(body)
    edges = low + np.arange(strips + 1) / scale
    for s in range(strips):
        rows = body[start[s] : start[s + 1]]
        assert np.all(np.diff(bounds[0, start[s] : start[s + 1]]) >= 0.0)
        reaches = (lo[:, b] <= edges[s + 1] + 1e-9) & (hi[:, b] >= edges[s] - 1e-9)
        assert set(rows.tolist()) <= set(np.flatnonzero(reaches).tolist())
        assert np.array_equal(flags[start[s] : start[s + 1]], skip[rows])
    assert set(body.tolist()) == set(range(n))
    tall_lo = np.zeros((50, 2))
    tall_lo[:, 0] = np.arange(50)
    tall_hi = tall_lo + (0.5, 100.0)
    tall_hi[0, 1] = 1.0  # one short box: the mean height is still nearly the span
    no_skip = np.zeros(50, dtype=np.bool_)
    _, (_, _, two), _, _, tall_body = python_entry(_strip_boxes)(tall_lo, tall_hi, no_skip)
    assert len(tall_body) <= 4 * 50 and two == 2
    for seed in range(5):  # heights over four orders of magnitude, tiny and whole-span boxes
        rng = np.random.default_rng(seed)
        lo_r = rng.uniform(0.0, 100.0, size=(300, 2))
        hi_r = lo_r + 10.0 ** rng.uniform(-3.0, 2.0, size=(300, 2))
        hi_r[:5, 1] = 200.0
        _, _, _, _, every = python_entry(_strip_boxes)(lo_r, hi_r, np.zeros(300, dtype=np.bool_))
        assert len(every) <= 4 * 300


def test_boxes_the_wrong_way_round_are_paired_as_brute_force_pairs_them() -> None:
    """A box whose lower bound is above its upper one on the axis the strips cut (never a
    world's: its boxes come from min and max) still meets the boxes brute force says it meets,
    in whichever strips they lie."""
    rng = np.random.default_rng(14)
    lo, hi, skip = _pile_boxes(rng)
    flipped = rng.choice(len(lo), size=40, replace=False)
    lo[flipped, 1], hi[flipped, 1] = hi[flipped, 1] + 0.5, lo[flipped, 1] - 0.5
    got = [tuple(p) for p in python_entry(candidate_pairs)(lo, hi, skip, _flag())]
    assert got == _brute_pairs(lo, hi, skip)


def test_boxes_with_nan_bounds_stay_inside_the_strips() -> None:
    """A box whose bounds are NaN (never in a world, whose state is checked) is dealt into a
    strip, not outside the arrays: the sweep runs and every pair it gives is a real one."""
    rng = np.random.default_rng(13)
    lo, hi, skip = _pile_boxes(rng)
    lo[[10, 400], 1] = np.nan
    hi[[20, 400], 1] = np.nan
    pairs = python_entry(candidate_pairs)(lo, hi, skip, _flag())
    truth = set(_brute_pairs(lo, hi, skip))
    finite = {p for p in truth if not {10, 20, 400} & set(p)}
    got = {tuple(p) for p in pairs.tolist()}
    assert finite <= got and all(p[0] < p[1] for p in got)


def test_candidate_pairs_are_sorted_and_ordered() -> None:
    rng = np.random.default_rng(3)
    lo = rng.uniform(0, 10, size=(200, 2))
    hi = lo + 2.0
    pairs = python_entry(candidate_pairs)(lo, hi, np.zeros(200, dtype=np.bool_), _flag())
    assert pairs.dtype == np.int64 and pairs.shape[1] == 2
    assert np.all(pairs[:, 0] < pairs[:, 1])
    keys = pairs[:, 0] * 200 + pairs[:, 1]
    assert np.all(np.diff(keys) > 0)


def test_a_crowd_gets_its_pair_budget_and_the_flag() -> None:
    """Bodies heaped on one spot: every box overlaps every other, n^2 / 2 pairs. The sweep stops
    at MAX_PAIRS_PER_BODY per body (sorted, distinct, real overlaps) and raises the flag; a world
    of 65 bodies or fewer never reaches the budget."""
    for n, crowded in ((65, False), (66, True), (2000, True)):
        lo = np.zeros((n, 2))
        hi = np.ones((n, 2))
        crowd = _flag()
        pairs = python_entry(candidate_pairs)(lo, hi, np.zeros(n, dtype=np.bool_), crowd)
        expected = MAX_PAIRS_PER_BODY * n if crowded else n * (n - 1) // 2
        assert pairs.shape == (expected, 2) and crowd[0] == int(crowded)
        assert np.all(pairs[:, 0] < pairs[:, 1]) and np.all(np.diff(pairs[:, 0] * n + pairs[:, 1]) > 0)


def test_a_world_heaped_on_one_spot_warns_once_and_steps_on() -> None:
    """World.step says once (a RuntimeWarning naming the budget) that a step's pairs reached
    MAX_PAIRS_PER_BODY per body, and keeps stepping; a world that never reaches it never warns."""
    import warnings

    import pytest

    from collision import Polygon, World

    def heap(n: int) -> World:
        world = World(gravity=(0.0, 0.0))
        for k in range(n):
            world.add_body(Polygon.box(1.0, 1.0), (1e-3 * k, 0.0))
        return world

    crowded = heap(80)
    with pytest.warns(RuntimeWarning, match="MAX_PAIRS_PER_BODY") as caught:
        crowded.step(1.0 / 60.0)
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        crowded.step(1.0 / 60.0)  # said once
        spread = heap(20)
        for _ in range(3):
            spread.step(1.0 / 60.0)
    assert crowded.step_count == 2 and np.all(np.isfinite(crowded.position))


def test_transform_vertices_rotates_counter_clockwise() -> None:
    local = np.zeros((1, MAX_VERTICES, 2))
    local[0, 0] = (1.0, 0.0)
    count = np.array([1], dtype=np.int64)
    out = np.zeros_like(local)
    transform_vertices(local, count, np.array([[2.0, 3.0]]), np.array([math.pi / 2]), out)
    assert np.allclose(out[0, 0], (2.0, 4.0), atol=1e-15)


def test_swept_bounds_cover_motion_and_rotation() -> None:
    world = np.zeros((1, MAX_VERTICES, 2))
    world[0, :4] = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    count = np.array([4], dtype=np.int64)
    lo = np.zeros((1, 2))
    hi = np.zeros((1, 2))
    radius = np.array([math.sqrt(2.0)])
    swept_bounds(world, count, np.array([[10.0, -4.0]]), np.array([0.0]), radius, 0.5, 0.0, lo, hi)
    assert np.allclose(lo[0], (-1.0, -3.0)) and np.allclose(hi[0], (6.0, 1.0))
    # Any rotation within the step stays inside the box grown by the swept chord.
    swept_bounds(world, count, np.zeros((1, 2)), np.array([3.0]), radius, 0.25, 0.0, lo, hi)
    for a in np.linspace(0.0, 0.75, 20):
        c, s = math.cos(a), math.sin(a)
        pts = world[0, :4] @ np.array([[c, s], [-s, c]])
        assert np.all(pts >= lo[0] - 1e-12) and np.all(pts <= hi[0] + 1e-12)


def _hostile_boxes(rng: np.random.Generator, n: int, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """``n`` boxes spread over ``spread`` units: sizes 0 (points) to 4 units on a 1/64 grid (so
    many edges touch exactly), a floor and walls far larger than the rest, one unbounded to
    the right and one reaching to -inf below."""
    size = rng.integers(0, 256, size=(n, 2)) / 64.0
    lo = np.round(rng.uniform(0.0, spread, size=(n, 2)) * 64.0) / 64.0
    hi = lo + size
    lo[0], hi[0] = (-5.0, -1.0), (spread + 5.0, 0.0)
    lo[1], hi[1] = (-5.0, 0.0), (-4.0, spread)
    lo[2], hi[2] = (spread + 4.0, 0.0), (spread + 5.0, spread)
    lo[3], hi[3] = (10.0, 20.0), (np.inf, 20.5)
    lo[4], hi[4] = (30.0, -np.inf), (31.0, 5.0)
    return lo, hi


def test_candidate_pairs_match_brute_force_among_hostile_boxes() -> None:
    """Wide, unbounded, empty and exactly touching boxes, packed (40 units) or scattered (a
    million units): the brute force's pairs."""
    rng = np.random.default_rng(19)
    for spread in (40.0, 1e6):
        for n in (7, 400):
            lo, hi = _hostile_boxes(rng, n, spread)
            skip = rng.random(n) < 0.2
            skip[:3] = True
            crowd = _flag()
            got = [tuple(p) for p in python_entry(candidate_pairs)(lo, hi, skip, crowd).tolist()]
            assert got == _brute_pairs(lo, hi, skip) and crowd[0] == 0
    # Every box the same point.
    lo = np.full((50, 2), 3.0)
    got = [
        tuple(p)
        for p in python_entry(candidate_pairs)(lo, lo.copy(), np.zeros(50, dtype=np.bool_), _flag()).tolist()
    ]
    assert got == [(i, j) for i in range(50) for j in range(i + 1, 50)]


def test_the_sweep_on_two_threads_gives_the_pairs_and_flag_of_one() -> None:
    """candidate_pairs_halves (a big world's rebuild: the strips swept in two halves at once)
    returns exactly candidate_pairs' pairs and crowd flag: on piles (either way up), random and
    hostile boxes, boxes the wrong way round or NaN, one strip, and crowds past a half's rows
    or the pair budget (swept again on one thread)."""
    rng = np.random.default_rng(23)
    cases = []
    lo, hi, skip = _pile_boxes(rng)
    cases += [(lo, hi, skip), (lo[:, ::-1].copy(), hi[:, ::-1].copy(), skip)]
    flipped = lo.copy(), hi.copy()
    chosen = rng.choice(len(lo), size=40, replace=False)
    flipped[0][chosen, 1], flipped[1][chosen, 1] = hi[chosen, 1] + 0.5, lo[chosen, 1] - 0.5
    cases.append((*flipped, skip))
    with_nan = lo.copy(), hi.copy()
    with_nan[0][[10, 400], 1] = np.nan
    with_nan[1][[20, 400], 1] = np.nan
    cases.append((*with_nan, skip))
    for n in (0, 1, 2, 17, 300, 3000):
        centre = rng.uniform(0, 2.0 * math.sqrt(n + 1), size=(n, 2))
        half = rng.uniform(0.1, 1.5, size=(n, 2))
        cases.append((centre - half, centre + half, rng.random(n) < 0.3))
    for spread in (40.0, 1e6):
        h_lo, h_hi = _hostile_boxes(rng, 400, spread)
        cases.append((h_lo, h_hi, rng.random(400) < 0.2))
    wide = np.zeros((30, 2)), np.ones((30, 2))
    wide[1][:, 0] = np.arange(30) + 1.0  # one strip: every box as tall as the span
    cases.append((*wide, np.zeros(30, dtype=np.bool_)))
    for n in (65, 66, 2000):  # heaped on one spot: past a half's rows, then past the budget
        cases.append((np.zeros((n, 2)), np.ones((n, 2)), np.zeros(n, dtype=np.bool_)))
    dense = rng.uniform(0.0, 6.0, size=(400, 2))  # about 9 pairs a box: past a half's rows
    cases.append((dense, dense + 1.0, np.zeros(400, dtype=np.bool_)))
    for lo_c, hi_c, skip_c in cases:
        one, two = _flag(), _flag()
        expected = python_entry(candidate_pairs)(lo_c, hi_c, skip_c, one)
        got = python_entry(candidate_pairs_halves)(lo_c, hi_c, skip_c, two)
        assert got.dtype == np.int64 and np.array_equal(got, expected) and two[0] == one[0]
    # The last case grew its rows twice, resuming the sweep mid-strip: still brute force's pairs.
    assert [tuple(p) for p in expected.tolist()] == _brute_pairs(dense, dense + 1.0, skip_c)
    assert len(expected) > 8 * 400 and one[0] == 0
