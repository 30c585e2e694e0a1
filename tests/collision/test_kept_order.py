"""The order of the solver's passes kept from one step to the next
(collision/solvers/iterative/colours.py, keep_order): it holds only for the same manifolds and
the same rows moving, it gives back exactly the order it kept, a resting world's is balanced
once (fuller groups of lanes), and a world that keeps it steps bit for bit as one that makes
the order anew every step."""

from __future__ import annotations

import numpy as np
import pytest

from collision.kernels import python_entry
from collision.solvers.iterative.colours import (
    BALANCED,
    COLOURED,
    KEPT_HEADER,
    LEVELS,
    SOLVE_STREAMS,
    balanced_levels,
    colour_manifolds,
    keep_order,
    kept_order_holds,
    kept_size,
    kept_views,
    level_order,
    no_kept_order,
    packed_links,
    padded_levels,
)
from collision.threads import THREADED_BODIES
from demo.bench import scenes
from demo.bench.engines.ours import add_bodies, new_world

keep = python_entry(keep_order)
NO_ROOM = np.empty(0, dtype=np.int64)
holds = python_entry(kept_order_holds)


def random_manifolds(seed: int, n: int = 60, groups: int = 150) -> tuple[np.ndarray, np.ndarray]:
    """``(original (g, 4), moves (n,))``: manifolds in (a, b) order with one or two points each,
    as manifold_links lists them, and the rows that move (a few static)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, groups)
    b = rng.integers(0, n, groups)
    pairs = sorted({(min(x, y), max(x, y)) for x, y in zip(a, b, strict=True) if x != y})
    original = np.zeros((len(pairs), 4), dtype=np.int64)
    q = 0
    for g, (x, y) in enumerate(pairs):
        count = 1 + int(rng.random() < 0.7)
        original[g] = (x, y, q, q + count)
        q += count
    moves = rng.random(n) > 0.1
    return original, moves


def made_order(kind: int, original: np.ndarray, moves: np.ndarray) -> tuple[np.ndarray, ...]:
    """The order soft_step.colour_rows makes for ``kind``: ``(order, starts, link, perm)``."""
    if kind in (LEVELS, BALANCED):
        quick = kind == LEVELS
        schedule = python_entry(level_order) if quick else python_entry(balanced_levels)
        order, starts = schedule(original, moves, SOLVE_STREAMS)
        order, starts = python_entry(padded_levels)(order, starts)
    else:
        order, starts = python_entry(colour_manifolds)(original, moves)
    link, perm = python_entry(packed_links)(original, order, moves.shape[0])
    return order, starts, link, perm


@pytest.mark.parametrize("kind", [LEVELS, COLOURED, BALANCED])
@pytest.mark.parametrize("seed", range(4))
def test_a_kept_order_gives_back_the_order_it_kept(kind: int, seed: int) -> None:
    original, moves = random_manifolds(seed)
    made = made_order(kind, original, moves)
    kept = keep(kind, original, moves, *made, NO_ROOM)
    assert kept.dtype == np.int64 and kept.ndim == 1
    for back, want in zip(kept_views(kept), made, strict=True):
        assert back.shape == want.shape
        np.testing.assert_array_equal(back, want)
    assert holds(kept, kind, original, moves)


@pytest.mark.parametrize("seed", range(4))
def test_a_colour_order_is_kept_in_the_room_its_size_bounds(seed: int) -> None:
    # A big world's step keeps the order in room it made beforehand (kept_size): the same
    # values as in an array of its own, written into the room (a view of it), the rest untouched.
    original, moves = random_manifolds(seed)
    made = made_order(COLOURED, original, moves)
    own = keep(COLOURED, original, moves, *made, NO_ROOM)
    points = int(original[-1, 3])
    size = python_entry(kept_size)(original.shape[0], moves.shape[0], points)
    assert own.shape[0] <= size
    room = np.full(size + 3, -7, dtype=np.int64)
    kept = keep(COLOURED, original, moves, *made, room)
    np.testing.assert_array_equal(kept, own)
    assert np.shares_memory(kept, room), "kept in the room, not in an array of its own"
    assert (room[own.shape[0] :] == -7).all()
    small = np.full(own.shape[0] - 1, -7, dtype=np.int64)
    np.testing.assert_array_equal(keep(COLOURED, original, moves, *made, small), own)
    assert (small == -7).all(), "a room too small is left alone"


@pytest.mark.parametrize("seed", range(4))
def test_a_kept_order_holds_for_nothing_else(seed: int) -> None:
    original, moves = random_manifolds(seed)
    kept = keep(LEVELS, original, moves, *made_order(LEVELS, original, moves), NO_ROOM)
    rng = np.random.default_rng(100 + seed)
    assert not holds(kept, COLOURED, original, moves), "another kind of order"
    balanced = keep(BALANCED, original, moves, *made_order(BALANCED, original, moves), NO_ROOM)
    assert holds(balanced, LEVELS, original, moves), "balanced levels are levels"
    assert not holds(balanced, COLOURED, original, moves)
    assert not holds(no_kept_order(), LEVELS, original, moves), "the state's first kept order"
    assert not holds(kept, LEVELS, original[:-1], moves), "a manifold fewer"
    assert not holds(kept, LEVELS, original, moves[:-1]), "a row fewer"
    assert not holds(kept, LEVELS, original, np.append(moves, True)), "a row more"
    for trial in range(20):
        g = int(rng.integers(0, original.shape[0]))
        j = int(rng.integers(0, 4))
        other = original.copy()
        other[g, j] += 1  # another body, or a point more or fewer
        assert not holds(kept, LEVELS, other, moves), (trial, g, j)
        flipped = moves.copy()
        i = int(rng.integers(0, moves.shape[0]))
        flipped[i] = not flipped[i]
        assert not holds(kept, LEVELS, original, flipped), (trial, i)
    assert holds(kept, LEVELS, original.copy(), moves.copy())


def step_both_ways(spec: scenes.SceneSpec, steps: int, threads: int = 1) -> tuple[int, int]:
    """Step ``spec`` in two worlds, one keeping the passes' order across steps and one handed
    no kept order before each step; asserts they agree bit for bit after every step. Returns
    the steps at which the first world took its kept order as it was, and those it remade it."""
    kept_world, fresh_world = new_world(spec), new_world(spec)
    for world in (kept_world, fresh_world):
        add_bodies(world, spec)
        world.solver_settings("iterative").threads = threads
    taken = remade = 0
    for step in range(steps):
        solver = fresh_world._solver_object()
        solver._state = solver._state._replace(kept_order=no_kept_order())
        before = kept_world._solver_object()._state.kept_order
        kept_world.step(scenes.DT)
        fresh_world.step(scenes.DT)
        if kept_world._solver_object()._state.kept_order is before:
            taken += 1
        else:
            remade += 1
        assert kept_world.state_hash() == fresh_world.state_hash(), step
        for name in ("normal_impulse", "tangent_impulse"):
            np.testing.assert_array_equal(
                getattr(kept_world.contacts, name), getattr(fresh_world.contacts, name), err_msg=name
            )
    return taken, remade


def test_a_resting_pyramid_keeps_its_order_and_steps_as_without_it() -> None:
    taken, remade = step_both_ways(scenes.pyramid(8), 120)
    # The first step makes the order (the state holds none), the second balances it (the
    # world remaking it every step never does); the boxes rest, so it holds.
    assert remade <= 3 and taken >= 117, (taken, remade)


def lane_cost(order: np.ndarray, starts: np.ndarray) -> tuple[int, int]:
    """``(groups of eight, manifolds one at a time)`` a pass over the levels ``starts`` takes."""
    sizes = np.diff(starts)[:-1]
    return int(np.sum(sizes // 8)), int(np.sum(sizes % 8))


def test_a_resting_world_s_levels_are_balanced_into_fuller_groups_of_lanes() -> None:
    spec = scenes.pyramid(20)
    world = new_world(spec)
    add_bodies(world, spec)
    world.step(scenes.DT)
    first = world._solver_object()._state.kept_order
    assert first[0] == LEVELS
    world.step(scenes.DT)
    kept = world._solver_object()._state.kept_order
    assert kept[0] == BALANCED
    world.step(scenes.DT)
    assert world._solver_object()._state.kept_order is kept  # balanced once, then kept
    g, n = int(kept[1]), int(kept[2])
    original = kept[KEPT_HEADER : KEPT_HEADER + 4 * g].reshape(g, 4)
    moves = kept[KEPT_HEADER + 4 * g : KEPT_HEADER + 4 * g + n] != 0
    order, starts, _, _ = kept_views(kept)
    np.testing.assert_array_equal(order, made_order(BALANCED, original, moves)[0])
    groups, alone = lane_cost(order, starts)
    quick_groups, quick_alone = lane_cost(*made_order(LEVELS, original, moves)[:2])
    assert groups < quick_groups and alone < quick_alone, (groups, alone, quick_groups, quick_alone)


def test_a_falling_pile_remakes_its_order_as_its_contacts_change_and_steps_as_without_it() -> None:
    taken, remade = step_both_ways(scenes.pile(120), 240)
    assert remade >= 20 and taken >= 20, (taken, remade)


def test_a_big_world_keeps_its_colour_order_and_steps_as_without_it() -> None:
    spec = scenes.pile(THREADED_BODIES + 40)
    taken, remade = step_both_ways(spec, 30)
    # The first step makes it; as the pile settles some steps keep it (12 of 30 when written).
    assert remade >= 1 and taken >= 5, (taken, remade)
