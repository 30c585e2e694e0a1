"""Big scenes on several threads: the solver's passes take the manifolds colour by colour
(collision/solvers/iterative/colours.py), so the result is bit-identical whatever the thread
count; the colouring itself is checked against its definition."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from collision import Polygon, World
from collision.contacts import CONTACT_NEW as STATE_NEW
from collision.contacts import CONTACT_PERSISTING as STATE_PERSISTING
from collision.kernels import python_entry
from collision.solvers.iterative.colours import COLOURS, colour_manifolds
from collision.solvers.iterative.narrowphase import PARALLEL_PAIRS
from collision.solvers.iterative.passes import PARALLEL_COLOUR
from collision.solvers.iterative.store import store_results, store_results_threaded
from collision.solvers.iterative.warm_start import empty_prepared, prepare_points
from collision.threads import fast_layer
from tests.collision.kernel_records import bodies_of, iterative_settings, points_of, previous_points

ROOT = Path(__file__).resolve().parents[2]
DT = 1.0 / 60.0
JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")


def colours_of(link: np.ndarray, moves: np.ndarray) -> list[np.ndarray]:
    order, starts = python_entry(colour_manifolds)(link, moves)
    return [order[starts[c] : starts[c + 1]] for c in range(starts.shape[0] - 1)]


def check_colouring(link: np.ndarray, moves: np.ndarray) -> list[np.ndarray]:
    """Every manifold once; in a colour (not the overflow, the last run) no moving body twice,
    manifolds in their own order; each manifold in the first colour its bodies left free."""
    runs = colours_of(link, moves)
    assert sorted(np.concatenate(runs).tolist()) == list(range(link.shape[0]))
    taken: list[set[int]] = []
    for run in runs[:-1]:
        assert (np.diff(run) > 0).all()
        bodies = [int(i) for g in run for i in link[g, :2] if moves[i]]
        assert len(bodies) == len(set(bodies)), "two manifolds of one colour share a moving body"
        taken.append(set(bodies))
    for c, run in enumerate(runs[:-1]):
        for g in run:
            mine = {int(i) for i in link[g, :2] if moves[i]}
            # No earlier colour was free for it when it was placed: every earlier colour holds
            # one of its bodies through an earlier manifold.
            for earlier in range(c):
                holders = [h for h in runs[earlier] if h < g and mine & {int(i) for i in link[h, :2]}]
                assert holders, f"manifold {g} skipped free colour {earlier}"
    return runs


@pytest.mark.parametrize("seed", range(6))
def test_colouring_on_random_graphs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 40
    moves = rng.random(n) < 0.8
    g = 150
    link = np.zeros((g, 4), dtype=np.int64)
    for m in range(g):
        link[m, :2] = rng.choice(n, 2, replace=False)
    runs = check_colouring(link, moves)
    assert len(runs[-1]) == 0  # no body has 63 manifolds here: nothing overflows


def test_colouring_overflows_past_its_colours() -> None:
    """A hub touching COLOURS + 5 bodies: each colour takes one of its manifolds, the rest
    overflow (solved last, on one thread)."""
    spokes = COLOURS + 5
    link = np.zeros((spokes, 4), dtype=np.int64)
    link[:, 1] = np.arange(1, spokes + 1)
    runs = check_colouring(link, np.ones(spokes + 1, dtype=np.bool_))
    assert [len(r) for r in runs[:-1]] == [1] * COLOURS
    assert runs[-1].tolist() == list(range(COLOURS, spokes))


def test_bodies_that_do_not_move_share_colours() -> None:
    """Manifolds that share only a static body go in one colour."""
    link = np.zeros((5, 4), dtype=np.int64)
    link[:, 1] = np.arange(1, 6)
    moves = np.ones(6, dtype=np.bool_)
    moves[0] = False
    runs = check_colouring(link, moves)
    assert runs[0].tolist() == [0, 1, 2, 3, 4]


def stacked_boxes(columns: int, rows: int, threads: int, heavy_rows: int = 0) -> World:
    """A wall of unit boxes, each resting on the one below, in a static tray; the top
    ``heavy_rows`` rows 200 times as dense."""
    world = World(restitution=0.0)
    world.solver_settings("iterative").threads = threads
    world.solver_settings("iterative").sleep = False  # resting boxes would leave no contacts
    world.add_body(Polygon.box(columns * 1.1 + 4.0, 1.0), (0.0, -0.5), static=True)
    for side in (-1, 1):
        world.add_body(Polygon.box(1.0, rows + 2.0), (side * (columns * 0.55 + 1.5), rows / 2), static=True)
    for c in range(columns):
        for r in range(rows):
            density = 200.0 if r >= rows - heavy_rows else 1.0
            world.add_body(Polygon.box(1.0, 1.0), ((c - columns / 2) * 1.1 + 0.55, r + 0.5), density=density)
    return world


def assert_kicked_steps_alike(one: World, two: World, steps: int, seed: int, every: int, first: int) -> None:
    """Step both worlds ``steps`` times, kicking the same random body in both every ``every``
    steps from step ``first``; their state hashes equal after every step."""
    rng = np.random.default_rng(seed)
    for step in range(steps):
        if step % every == first:
            # Kicks keep the wall moving, so the passes have work in every colour.
            i = int(rng.integers(3, one.body_count))
            kick = rng.normal(0.0, 3.0, 2)
            for world in (one, two):
                world.apply_impulse(i, kick * world.mass[i], world.position[i])
        one.step(DT)
        two.step(DT)
        assert two.state_hash() == one.state_hash(), f"step {step}"


def test_big_scene_is_bit_identical_on_one_and_two_threads() -> None:
    assert fast_layer(), "numba has no OpenMP or TBB threading layer here (see .ci/run)"
    one = stacked_boxes(80, 55, threads=1)
    two = stacked_boxes(80, 55, threads=2)
    assert_kicked_steps_alike(one, two, 40, seed=3, every=10, first=5)
    # The threaded paths ran: enough pairs for the narrowphase's, colours big enough for the
    # passes'.
    contacts = two.contacts
    firsts = np.flatnonzero(np.r_[True, (np.diff(contacts.body_a) != 0) | (np.diff(contacts.body_b) != 0)])
    assert firsts.shape[0] >= PARALLEL_PAIRS
    link = np.zeros((firsts.shape[0], 4), dtype=np.int64)
    link[:, 0] = contacts.body_a[firsts]
    link[:, 1] = contacts.body_b[firsts]
    runs = colours_of(link, ~two.static)
    assert max(len(r) for r in runs[:-1]) >= PARALLEL_COLOUR


def test_heavy_on_light_contacts_step_the_same_on_one_and_two_threads() -> None:
    """Boxes 200 times as dense on top of a wall of unit boxes: the contacts under them get
    rows of their own in the softness table (soft_step.pack_rows), filled on two threads by
    the threaded packing, and the shock propagation lifts and stops every step."""
    assert fast_layer(), "numba has no OpenMP or TBB threading layer here (see .ci/run)"
    one = stacked_boxes(40, 60, threads=1, heavy_rows=5)
    two = stacked_boxes(40, 60, threads=2, heavy_rows=5)
    for step in range(12):
        one.step(DT)
        two.step(DT)
        assert two.state_hash() == one.state_hash(), f"step {step}"


@pytest.mark.skipif(not JIT, reason="counts numba's compilations: without the JIT there are none")
def test_one_thread_compiles_no_threaded_kernel(tmp_path: Path) -> None:
    """In a fresh process with an empty cache: the solve pass for one thread (``threads`` None)
    compiles the pass by levels (eight manifolds at a time, and one by one) and not the
    threaded one (numba drops the branch before typing), so small worlds pay nothing for
    threads, not even a compile; for two threads, the threaded one, which takes the same
    passes of eight and of one."""
    script = textwrap.dedent(
        """
        import numpy as np
        from numba.core import event
        from collision.kernels import compile_calls
        from collision.solvers.iterative import passes as s

        compiled = set()
        class Listener(event.Listener):
            def on_start(self, ev):
                compiled.add(ev.data["dispatcher"].py_func.__name__)
            def on_end(self, ev):
                pass
        event.register("numba:compile", Listener())

        def body(threads):
            link = np.zeros((1, 4), dtype=np.int64)
            starts = np.zeros(2, dtype=np.int64)
            s.solve_pass(np.zeros((2, 8)), np.zeros((2, 12, 1)), np.zeros((15, 1)), link, starts,
                     np.zeros((3, 3)), 240.0, 3.0, threads)

        for threads in (None, 2):
            compiled.clear()
            compile_calls(body, threads)
            print(sorted(name for name in compiled if name.startswith("_pass")))
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert out.returncode == 0, out.stderr
    one, two = out.stdout.strip().splitlines()
    assert one == "['_pass', '_pass_lanes', '_pass_runs']"
    assert two == "['_pass_threaded']"


@pytest.mark.parametrize("threads", [None, 1, 2, 3, 7])
def test_warm_start_finds_each_pairs_previous_points_on_any_thread_count(threads: int | None) -> None:
    """Points of 300 random pairs (one or two each, distinct keys) matched with a previous step
    that had some of the pairs, others with other keys, and pairs gone since: every point starts
    from the impulse of last step's point of its pair with its key (by brute force), else 0 and
    new; one thread walks the previous points in order, several a run of pairs each from where
    a bisection finds the run's first pair (3 and 7: runs that start anywhere)."""
    rng = np.random.default_rng(11)
    n = 120
    candidates = sorted({tuple(sorted(rng.choice(n, 2, replace=False).tolist())) for _ in range(600)})
    pairs = np.array(candidates[:300], dtype=np.int64)
    pair_index, keys = [], []
    for p in range(pairs.shape[0]):
        for key in rng.choice(8, int(rng.integers(1, 3)), replace=False):
            pair_index.append(p)
            keys.append(int(key))
    c = len(keys)
    # Last step: most of these pairs (keys drawn again, so some match and some do not) and the
    # pairs after them in the candidate list, which have no points now.
    previous = []
    for a, b in candidates:
        if rng.random() < 0.7:
            for key in rng.choice(8, int(rng.integers(1, 3)), replace=False):
                previous.append((a, b, int(key), float(rng.uniform(0.1, 5.0))))
    prev_a, prev_b, prev_key, impulse = (np.array(column) for column in zip(*previous, strict=True))
    store = np.zeros((6, len(previous)))
    store[0] = impulse
    store[2:4] = 1e3  # far from every point now: only keys match
    store[5] = 1.0
    normal = np.tile([0.0, 1.0], (c, 1))
    where = rng.uniform(-1.0, 1.0, (c, 2))
    points = points_of(pair_index, keys, where, where, normal, np.full(c, -0.01))
    bodies = bodies_of(n, position=rng.uniform(-5.0, 5.0, (n, 2)), friction=0.5)
    state = previous_points(n, prev_a, prev_b, prev_key, np.ones(len(previous)), store)
    offsets = np.flatnonzero(np.r_[True, np.diff(pair_index) != 0, True]).astype(np.int64)
    masses = (np.ones(n), np.ones(n))
    settings = iterative_settings(match_distance=0.05, match_cosine=0.9)
    prepared, _ = python_entry(prepare_points)(
        bodies, masses, pairs, points, offsets, state, settings, DT, threads
    )
    expected = np.zeros(c)
    for k in range(c):
        a, b = pairs[pair_index[k]]
        for r in range(len(previous)):
            if (prev_a[r], prev_b[r], prev_key[r]) == (a, b, keys[k]):
                expected[k] = impulse[r]
    assert 0 < np.count_nonzero(expected) < c
    np.testing.assert_array_equal(prepared.normal_impulse, expected)
    np.testing.assert_array_equal(prepared.state, np.where(expected > 0.0, STATE_PERSISTING, STATE_NEW))
    # Each point's arms and masses are its own pair's (unit masses and inertias).
    a, b = pairs[pair_index].T
    arm = where - bodies.position[a]
    arm_x_normal = arm[:, 0] * normal[:, 1] - arm[:, 1] * normal[:, 0]
    np.testing.assert_allclose(prepared.cross_a[:, 0], arm_x_normal, atol=1e-12)
    np.testing.assert_array_equal(prepared.body_a, a)
    np.testing.assert_array_equal(prepared.body_b, b)


@pytest.mark.parametrize("seed", range(3))
def test_the_soft_steps_results_are_stored_the_same_on_one_and_two_threads(seed: int) -> None:
    """store_results_threaded (two halves split by where the points are stored) writes what
    store_results writes: every body row, every point's impulses and totals, an empty
    manifold's nothing."""
    rng = np.random.default_rng(seed)
    n, groups = 301, 997
    sizes = rng.choice([0, 1, 2], size=groups, p=[0.05, 0.25, 0.7])
    c = int(sizes.sum())
    first = np.concatenate([[0], np.cumsum(sizes)])
    # Manifolds packed in a shuffled (colour) order, each one's points consecutive.
    packed_order = rng.permutation(groups)
    link = np.zeros((groups, 4), dtype=np.int64)
    perm = np.empty(c, dtype=np.int64)
    q = 0
    for g, original in enumerate(packed_order):
        link[g] = (rng.integers(n), rng.integers(n), q, q + sizes[original])
        perm[q : q + sizes[original]] = first[original] + np.arange(sizes[original])
        q += sizes[original]
    columns = (rng.random((12, groups)), rng.random((12, groups)))
    packed = (rng.random((2, 2, groups)), link, perm)
    body = rng.random((n + 1, 8))
    results = []
    for store in (store_results, python_entry(store_results_threaded)):
        velocity, angular_velocity = np.full((n, 2), np.nan), np.full(n, np.nan)
        prepared = empty_prepared.py_func(c)
        prepared.normal_impulse[:] = prepared.tangent_impulse[:] = np.nan
        totals = (np.full(c, np.nan), np.full(c, np.nan), np.full(c, np.nan))
        store(velocity, angular_velocity, body, columns, packed, prepared, totals)
        impulses = (prepared.normal_impulse, prepared.tangent_impulse)
        results.append((velocity, angular_velocity, *impulses, *totals))
    for serial, threaded in zip(*results, strict=True):
        assert not np.isnan(serial).any()  # every row and point written
        np.testing.assert_array_equal(serial, threaded)
