"""The iterative solver's contact store (collision/contact_store.py) and its rest in deep piles.

- the cached broadphase gives exactly the pairs of a brute-force box test, step after step, its
  refit too among wide, unbounded and touching boxes;
- a contact point renamed between steps (other feature key) keeps last step's impulses when it
  is near last step's point along (nearly) the same normal, and only then;
- a deep, narrow pile of random polygons comes to rest without bursts, for several seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, World
from collision.contacts import CONTACT_NEW as STATE_NEW
from collision.contacts import CONTACT_PERSISTING as STATE_PERSISTING
from collision.kernels import python_entry
from collision.refit import REFIT_SCAN, REFIT_SHARE, _escaped_pairs_scan, _escaped_pairs_window
from collision.solvers.iterative.narrowphase import cached_pairs
from collision.solvers.iterative.warm_start import prepare_points
from collision.tolerances import MAX_PAIRS_PER_BODY
from demo.bench import pile_shapes
from tests.collision.kernel_records import bodies_of, iterative_settings, points_of, previous_points

DT = 1.0 / 60.0


def brute_force_pairs(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray) -> list[tuple[int, int]]:
    n = lo.shape[0]
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            if skip[i] and skip[j]:
                continue
            overlap_x = lo[j, 0] <= hi[i, 0] and lo[i, 0] <= hi[j, 0]
            overlap_y = lo[j, 1] <= hi[i, 1] and lo[i, 1] <= hi[j, 1]
            if overlap_x and overlap_y:
                out.append((i, j))
    return out


#: Threads for cached_pairs: a small world's (None), a big world's on one thread and on two
#: (the sweep of a rebuild then runs on numba's threads).
THREADS = (None, 1, 2)


@pytest.mark.parametrize("threads", THREADS)
def test_cached_pairs_equal_brute_force_while_boxes_wander(threads: int | None) -> None:
    rng = np.random.default_rng(7)
    n = 60
    centre = rng.uniform(0.0, 10.0, size=(n, 2))
    half = rng.uniform(0.1, 0.8, size=(n, 2))
    skip = rng.random(n) < 0.2
    fat_lo = np.zeros((n, 2))
    fat_hi = np.zeros((n, 2))
    fat_skip = np.zeros(n, dtype=np.bool_)
    fat_valid = np.zeros(1, dtype=np.bool_)
    fat_pairs = np.zeros((0, 2), dtype=np.int64)
    rebuilds = 0
    for step in range(200):
        # Mostly tiny moves (the cache holds), now and then a jump or a skip flag change.
        centre += rng.normal(0.0, 0.005, size=(n, 2))
        if step % 37 == 0:
            centre[rng.integers(n)] += rng.uniform(-2.0, 2.0, size=2)
        if step % 51 == 0:
            skip[rng.integers(n)] ^= True
        lo = centre - half
        hi = centre + half
        # Boxes grown ahead of a travel of their own, any direction (the cache's pairs must
        # not depend on it).
        lead = rng.normal(0.0, 0.3, size=(n, 2))
        before = fat_pairs
        pairs, fat_pairs = python_entry(cached_pairs)(
            lo,
            hi,
            skip,
            fat_lo,
            fat_hi,
            fat_skip,
            fat_valid,
            fat_pairs,
            (0.1, lead),
            np.zeros(1, dtype=np.int64),
            threads,
        )
        rebuilds += fat_pairs is not before
        assert pairs.dtype == np.int64 and pairs.shape[1] == 2
        assert [tuple(p) for p in pairs.tolist()] == brute_force_pairs(lo, hi, skip)
    assert 1 < rebuilds < 200  # the cache was both used and rebuilt


def _cache(n: int) -> tuple:
    """An empty broadphase cache for ``n`` bodies: fat_lo, fat_hi, fat_skip, fat_valid, fat_pairs."""
    return (
        np.zeros((n, 2)),
        np.zeros((n, 2)),
        np.zeros(n, dtype=np.bool_),
        np.zeros(1, dtype=np.bool_),
        np.zeros((0, 2), dtype=np.int64),
    )


@pytest.mark.parametrize("threads", THREADS)
def test_cached_pairs_refit_the_few_boxes_that_left_and_rebuild_for_many(threads: int | None) -> None:
    """Steps where no box, a few boxes or many boxes leave their grown boxes (and flags flip):
    the pairs are the brute force's every step, and the cache is kept, refitted (only the
    escaped bodies' grown boxes change) and rebuilt (all of them change), each many times."""
    rng = np.random.default_rng(11)
    n = 200
    centre = rng.uniform(0.0, 30.0, size=(n, 2))
    half = rng.uniform(0.1, 1.0, size=(n, 2))
    skip = rng.random(n) < 0.3
    fat_lo, fat_hi, fat_skip, fat_valid, fat_pairs = _cache(n)
    seen = {"kept": 0, "refit": 0, "rebuilt": 0}
    for step in range(300):
        kind = step % 3
        movers = rng.choice(n, size=(0, 2, 60)[kind], replace=False)
        centre[movers] += rng.uniform(-1.5, 1.5, size=(movers.shape[0], 2))
        if kind == 1 and step % 2:
            skip[movers[0]] ^= True
        lo = centre - half
        hi = centre + half
        old_lo = fat_lo.copy()
        pairs, fat_pairs = python_entry(cached_pairs)(
            lo,
            hi,
            skip,
            fat_lo,
            fat_hi,
            fat_skip,
            fat_valid,
            fat_pairs,
            (0.05, np.zeros((n, 2))),
            np.zeros(1, dtype=np.int64),
            threads,
        )
        assert [tuple(p) for p in pairs.tolist()] == brute_force_pairs(lo, hi, skip)
        changed = int(np.sum(np.any(fat_lo != old_lo, axis=1)))
        if step > 0:
            seen["kept" if changed == 0 else "refit" if changed * REFIT_SHARE <= n else "rebuilt"] += 1
    assert min(seen.values()) > 20, seen


def _boxes_of_every_kind(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` boxes ``(lo, hi)`` a refit must handle: small and large ones (1/64 to 4 units, on
    a 1/64 grid, so that many edges touch exactly), a floor and walls wider than the rest,
    one unbounded to the right and one reaching to -inf below."""
    size = rng.integers(1, 256, size=(n, 2)) / 64.0
    lo = rng.integers(0, 64 * 40, size=(n, 2)) / 64.0
    hi = lo + size
    lo[0], hi[0] = (-5.0, -1.0), (45.0, 0.0)  # floor
    lo[1], hi[1] = (-5.0, 0.0), (-4.0, 60.0)  # walls
    lo[2], hi[2] = (44.0, 0.0), (45.0, 60.0)
    lo[3], hi[3] = (10.0, 20.0), (np.inf, 20.5)
    lo[4], hi[4] = (30.0, -np.inf), (31.0, 5.0)
    return lo, hi


@pytest.mark.parametrize("seed", [3, 4])
def test_cache_refit_finds_the_brute_force_pairs_among_wide_unbounded_and_touching_boxes(seed: int) -> None:
    """Steps where a few boxes jump (a refit each step, by the share REFIT_SHARE allows),
    among boxes of every kind (see ``_boxes_of_every_kind``): the pairs are the brute force's
    every step, and only the boxes that left their grown boxes were grown again."""
    rng = np.random.default_rng(seed)
    n = 16 * REFIT_SHARE
    lo, hi = _boxes_of_every_kind(rng, n)
    skip = rng.random(n) < 0.2
    skip[:3] = True
    cache = _cache(n)
    fat_lo = cache[0]
    grow = (1.0 / 16.0, np.zeros((n, 2)))

    def step(fat_pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return python_entry(cached_pairs)(
            lo, hi, skip, *cache[:4], fat_pairs, grow, np.zeros(1, dtype=np.int64), None
        )

    _, fat_pairs = step(cache[4])
    refits = 0
    for _ in range(40):
        movers = rng.choice(np.arange(6, n), size=int(rng.integers(1, 17)), replace=False)
        jump = rng.integers(-128, 129, size=(movers.shape[0], 2)) / 64.0
        lo[movers] += jump
        hi[movers] += jump
        old_lo = fat_lo.copy()
        pairs, fat_pairs = step(fat_pairs)
        assert [tuple(p) for p in pairs.tolist()] == brute_force_pairs(lo, hi, skip)
        grown = np.flatnonzero(np.any(fat_lo != old_lo, axis=1))
        assert set(grown.tolist()) <= set(movers.tolist())
        refits += 0 < grown.shape[0] <= movers.shape[0]
    assert refits > 30


def _refit_rule_pairs(lo: np.ndarray, hi: np.ndarray, skip: np.ndarray, escaped: np.ndarray) -> set:
    """The pairs a refit must find, by brute force: each escaped box with every box it meets
    (touching counts), but itself, two skipped bodies, and a pair of two escaped bodies found
    once (from the first)."""
    moved = np.zeros(lo.shape[0], dtype=np.bool_)
    moved[escaped] = True
    expected = set()
    for e in escaped.tolist():
        for o in range(lo.shape[0]):
            meets = (
                lo[o, 0] <= hi[e, 0]
                and lo[e, 0] <= hi[o, 0]
                and lo[o, 1] <= hi[e, 1]
                and lo[e, 1] <= hi[o, 1]
            )
            if meets and o != e and not (moved[o] and o < e) and not (skip[e] and skip[o]):
                expected.add((min(e, o), max(e, o)))
    return expected


def _assert_refit_searches_find(
    lo: np.ndarray, hi: np.ndarray, skip: np.ndarray, escaped: np.ndarray
) -> None:
    """Both refit searches (every box, the window) give exactly the rule's pairs, each once."""
    moved = np.zeros(lo.shape[0], dtype=np.bool_)
    moved[escaped] = True
    expected = _refit_rule_pairs(lo, hi, skip, escaped)
    assert expected  # the boxes are crowded enough that every case finds pairs
    window = python_entry(_escaped_pairs_window)
    searches = (
        lambda *boxes: python_entry(_escaped_pairs_scan)(*boxes),
        lambda *boxes: window(*boxes, None),
        lambda *boxes: window(*boxes, 2),  # the boxes in two halves at once
    )
    for search in searches:
        found, f = search(escaped, lo, hi, moved, skip)
        pairs = [tuple(p) for p in found[:f].tolist()]
        assert len(pairs) == len(set(pairs))
        assert set(pairs) == expected


@pytest.mark.parametrize("k", [1, 7, REFIT_SCAN, REFIT_SCAN + 1, 75])
def test_refit_by_scan_and_by_window_find_each_escaped_bodys_pairs(k: int) -> None:
    """A refit finds the escaped bodies' pairs by testing every box (a few bodies) or a window of
    the sorted boxes (more): both give exactly the pairs of the rule, among boxes of every kind
    (unbounded, touching, a floor and walls): each escaped box with every box it meets, but
    itself, two skipped bodies, and a pair of two escaped bodies found once (from the first)."""
    rng = np.random.default_rng(k)
    n = 1200
    lo, hi = _boxes_of_every_kind(rng, n)
    skip = rng.random(n) < 0.2
    escaped = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64)
    _assert_refit_searches_find(lo, hi, skip, escaped)


@pytest.mark.parametrize("case", ["one key", "nan", "wide escaped"])
def test_refit_window_where_one_box_meets_every_escaped_one(case: str) -> None:
    """The window search's edge cases: 100 escaped boxes stacked on one floor box (each box's
    pairs found at once, more than the search's first buffer), all at one lower bound (its
    buckets hold a single key), with boxes of NaN bounds (they meet nothing), or with the
    floor, an unbounded box and a NaN box among the escaped (tested against every box)."""
    rng = np.random.default_rng(7)
    n = 300
    lo, hi = _boxes_of_every_kind(rng, n)
    column = np.arange(5, 105)
    lo[column] = np.stack([np.full(100, 2.0), rng.integers(0, 4, size=100) / 64.0 - 1.0], axis=1)
    if case != "one key":
        lo[column, 0] += rng.integers(0, 64 * 40, size=100) / 64.0
    hi[column] = lo[column] + 0.5
    skip = np.zeros(n, dtype=np.bool_)
    escaped = column.astype(np.int64)
    if case == "nan":
        lo[[5, 200]] = np.nan
    if case == "wide escaped":
        lo[5, 0] = np.nan
        escaped = np.concatenate([[0, 3, 4], escaped]).astype(np.int64)
    _assert_refit_searches_find(lo, hi, skip, escaped)


@pytest.mark.parametrize("threads", THREADS)
def test_cached_pairs_rebuild_past_the_pair_budget_and_say_so(threads: int | None) -> None:
    """A few bodies moved into a heap: found by a refit, their pairs would pass the budget of
    MAX_PAIRS_PER_BODY per body, so the cache is rebuilt, its sweep stopping at the budget,
    and the crowd flag is set; every pair given is a true one."""
    n = 80
    centre = np.zeros((n, 2))
    centre[72:] = np.arange(8)[:, None] * 10.0 + 20.0  # 72 heaped at the origin, 8 apart
    half = np.full((n, 2), 0.5)
    skip = np.zeros(n, dtype=np.bool_)
    cache = _cache(n)
    crowd = np.zeros(1, dtype=np.int64)
    lo, hi = centre - half, centre + half
    grow = (0.05, np.zeros((n, 2)))
    pairs, fat_pairs = python_entry(cached_pairs)(lo, hi, skip, *cache[:4], cache[4], grow, crowd, threads)
    assert len(pairs) == 72 * 71 // 2 < MAX_PAIRS_PER_BODY * n and crowd[0] == 0
    centre[72:76] = 0.0
    lo, hi = centre - half, centre + half
    pairs, fat_pairs = python_entry(cached_pairs)(lo, hi, skip, *cache[:4], fat_pairs, grow, crowd, threads)
    assert crowd[0] == 1
    assert len(fat_pairs) == MAX_PAIRS_PER_BODY * n
    truth = set(brute_force_pairs(lo, hi, skip))
    assert 0 < len(pairs) <= MAX_PAIRS_PER_BODY * n and {tuple(p) for p in pairs.tolist()} <= truth


def _sleeping_pile_and_shots() -> tuple[World, list[int]]:
    """150 boxes in a walled pit (sleeping allowed) and six small boxes above them."""
    world = World(gravity=(0.0, -10.0))
    world.add_body(Polygon.box(40.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(Polygon.box(1.0, 30.0), (-20.5, 15.0), static=True)
    world.add_body(Polygon.box(1.0, 30.0), (20.5, 15.0), static=True)
    world.add_body(Polygon.box(40.0, 1.0), (0.0, 30.5), static=True)
    rng = np.random.default_rng(5)
    for k in range(150):
        x = -9.0 + 1.2 * (k % 15) + rng.uniform(-0.1, 0.1)
        world.add_body(Polygon.box(1.0, 1.0), (x, 0.6 + 1.1 * (k // 15)), angle=rng.uniform(-0.2, 0.2))
    shots = [world.add_body(Polygon.box(0.4, 0.4), (-18.0 + 6.0 * k, 25.0)) for k in range(6)]
    return world, shots


def test_a_step_s_result_does_not_depend_on_the_broadphase_cache() -> None:
    """A pile falls asleep, then fast boxes rattle around the pit, off its walls and into the
    pile, waking what they touch, their own grown boxes refitted every step: every step ends
    exactly as in a world whose cache is thrown away before each step (its first broadphase
    of every step then sorts and sweeps all the boxes)."""
    cached, shots = _sleeping_pile_and_shots()
    fresh, _ = _sleeping_pile_and_shots()
    rng = np.random.default_rng(8)
    for step in range(700):
        if step % 100 == 0 and step >= 300:
            for shot in shots:
                v = rng.uniform(-80.0, 80.0, size=2)
                for world in (cached, fresh):
                    world.set_velocity(shot, v)
        fresh._solver_object()._state.fat_valid[0] = False  # rebuilt from scratch every step
        cached.step(DT)
        fresh.step(DT)
        assert cached.state_hash() == fresh.state_hash(), f"step {step}"


def _one_point_store(x: float, y: float, nx: float, ny: float, key: int, impulse: float) -> tuple:
    """Last step's store with one point of pair (0, 1)."""
    prev_a = np.array([0], dtype=np.int64)
    prev_b = np.array([1], dtype=np.int64)
    prev_key = np.array([key], dtype=np.int64)
    prev_state = np.array([STATE_PERSISTING], dtype=np.int8)
    prev_store = np.array([[impulse], [0.25 * impulse], [x], [y], [nx], [ny]])
    return prev_a, prev_b, prev_key, prev_state, prev_store


def _prepare_points(p: np.ndarray, keys: list[int], normal: np.ndarray, prev: tuple) -> tuple:
    """prepare_points for the overlapping points ``p`` (one per key) of pair (0, 1), two
    unit-mass bodies at rest: ``(normal_impulse, tangent_impulse, state)``."""
    c = len(keys)
    bodies = bodies_of(2, position=[[0.0, 1.0], [0.0, -1.0]], friction=0.5)
    points = points_of(np.zeros(c), keys, p, p.copy(), normal, np.full(c, -0.01))
    prepared, _ = python_entry(prepare_points)(
        bodies,
        (np.ones(2), np.ones(2)),
        np.array([[0, 1]], dtype=np.int64),
        points,
        np.array([0, c], dtype=np.int64),
        previous_points(2, *prev),
        iterative_settings(match_distance=0.1, match_cosine=0.98),
        DT,
        None,
    )
    return prepared.normal_impulse, prepared.tangent_impulse, prepared.state


def _prepare(point: tuple[float, float], normal: tuple[float, float], key: int, prev: tuple) -> tuple:
    """prepare_points for one overlapping point of pair (0, 1) (two unit-mass bodies at rest)."""
    return _prepare_points(np.array([point]), [key], np.array([normal]), prev)


@pytest.mark.parametrize(
    ("offset", "turn", "inherits"),
    [
        (0.0, 0.0, True),  # same place, same normal, other key
        (0.09, 0.0, True),  # within 0.1 units
        (0.11, 0.0, False),  # too far
        (0.0, math.radians(10.0), True),  # cos 10 deg = 0.985 >= 0.98
        (0.0, math.radians(13.0), False),  # cos 13 deg = 0.974 < 0.98
    ],
)
def test_renamed_point_inherits_impulses_only_when_near_and_parallel(
    offset: float, turn: float, inherits: bool
) -> None:
    prev = _one_point_store(0.0, 0.0, 0.0, 1.0, key=5, impulse=2.0)
    normal = (-math.sin(turn), math.cos(turn))
    normal_impulse, tangent_impulse, state = _prepare((offset, 0.0), normal, key=9, prev=prev)
    if inherits:
        assert normal_impulse[0] == 2.0 and tangent_impulse[0] == 0.5
        assert state[0] == STATE_PERSISTING
    else:
        assert normal_impulse[0] == 0.0 and tangent_impulse[0] == 0.0
        assert state[0] == STATE_NEW


def _inherited_impulses(p: np.ndarray, keys: list[int], expected: list[float]) -> None:
    """Two new points ``p (2, 2)`` with feature ``keys`` of pair (0, 1), matched against last
    step's one point at x = 0 (key 5, normal impulse 3): their warm-start normal impulses."""
    prev = _one_point_store(0.0, 0.0, 0.0, 1.0, key=5, impulse=3.0)
    normal_impulse, _, _ = _prepare_points(p, keys, np.array([[0.0, 1.0], [0.0, 1.0]]), prev)
    np.testing.assert_array_equal(normal_impulse, expected)


def test_two_renamed_points_do_not_share_one_previous_point() -> None:
    # Last step: one point at x = 0 of pair (0, 1). Now two renamed points at x = -0.02 and
    # x = +0.01: only the nearer one (the second) inherits.
    _inherited_impulses(np.array([[-0.02, 0.0], [0.01, 0.0]]), keys=[7, 8], expected=[0.0, 3.0])


def test_same_key_wins_over_a_nearer_renamed_point() -> None:
    # The point with last step's key takes its impulses even though the other is nearer.
    _inherited_impulses(np.array([[0.001, 0.0], [0.05, 0.0]]), keys=[9, 5], expected=[0.0, 3.0])


def deep_pile(seed: int, count: int = 200, columns: int = 5) -> World:
    """``count`` of the bench's random polygons dropped into a container ``columns`` wide:
    about 40 bodies deep, so the bottom contacts carry a heavy load."""
    world = World(gravity=(0.0, -10.0), solver="iterative", friction=0.6, restitution=0.0)
    world.solver_settings("iterative").sleep = False
    half = 0.8 * columns + 0.2
    world.add_body(Polygon.box(2.0 * half + 2.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(Polygon.box(1.0, 100.0), (-half - 0.5, 50.0), static=True)
    world.add_body(Polygon.box(1.0, 100.0), (half + 0.5, 50.0), static=True)
    for index, (vertices, _, _) in enumerate(pile_shapes(seed, count)):
        column = index % columns
        row = index // columns
        world.add_body(Polygon(vertices), ((column - 0.5 * (columns - 1)) * 1.6, 1.0 + 1.6 * row))
    return world


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_deep_pile_comes_to_rest_without_bursts(seed: int) -> None:
    """After 14 s, the last second: no body moves 2 cm, and no step ends with a body faster than
    the engine's sleep speed. Below that, a body wedged between two others can end each step
    with the one relax pass's residual (2.4 cm/s in one of these piles), which the next step's
    solve takes back: that body moved 2.4 mm in the second."""
    world = deep_pile(seed)
    moving = ~np.asarray(world.static)
    fastest = 0.0
    for step in range(900):
        world.step(DT)
        if step == 839:
            before = world.position[moving].copy()
        if step >= 840:  # the last second: every step, not just the last one
            fastest = max(fastest, float(np.linalg.norm(world.velocity[moving], axis=1).max()))
    assert np.isfinite(world.position).all()
    inside = np.abs(world.position[moving, 0]) < 0.8 * 5 + 0.2
    assert inside.all()
    assert np.linalg.norm(world.position[moving] - before, axis=1).max() < 0.02
    assert fastest < world.solver_settings("iterative").sleep_linear_speed
