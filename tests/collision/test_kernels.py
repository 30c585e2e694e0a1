"""The world's batch kernels give the same answers as the one-pair kernels and the public
functions, on thousands of seeded random pairs in both argument orders; and the kernels
run as plain Python with NUMBA_DISABLE_JIT=1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from collision import MAX_VERTICES, contact_points, intersect, sweep
from collision.contacts import contact_pairs, find_contacts
from collision.sat import intersect_kernel, sweep_kernel, sweep_pairs
from tests.collision.test_sat_oracle import random_convex

ROOT = Path(__file__).resolve().parents[2]


def random_world(seed: int, n: int, pair_count: int):
    """Bodies of 1-8 vertices close together; unused vertex slots hold NaN so that any
    read past a body's count would show."""
    rng = np.random.default_rng(seed)
    world = np.full((n, MAX_VERTICES, 2), np.nan)
    count = rng.integers(1, 9, size=n).astype(np.int64)
    for i in range(n):
        shape = random_convex(rng, int(count[i]))
        world[i, : count[i]] = shape - shape.mean(axis=0) + rng.uniform(-1.2, 1.2, size=2)
    velocity = rng.uniform(-150.0, 150.0, size=(n, 2))
    velocity[rng.random(n) < 0.1] = 0.0  # some bodies at rest
    i = rng.integers(0, n, size=pair_count)
    j = (i + rng.integers(1, n, size=pair_count)) % n
    pairs = np.stack([i, j], axis=1).astype(np.int64)
    pairs = np.concatenate([pairs, pairs[:, ::-1]])  # both orders
    return world, count, velocity, pairs


DT = 1.0 / 60.0


@pytest.fixture(scope="module")
def world():
    return random_world(seed=2024, n=300, pair_count=2500)


def test_sweep_pairs_equals_one_pair_kernel_and_public_sweep(world):
    w, count, velocity, pairs = world
    hit, normal, toi, depth = sweep_pairs(w, count, velocity, pairs, DT)
    m = len(pairs) // 2
    assert hit.shape == (2 * m,) and hit.dtype == np.bool_
    assert normal.shape == (2 * m, 2) and toi.shape == (2 * m,) and depth.shape == (2 * m,)
    assert 0.2 < hit.mean() < 0.9  # both hits and misses are exercised
    assert (toi[hit] > 0).any() and (depth[hit] > 0).any()
    for p, (i, j) in enumerate(pairs):
        a = w[i, : count[i]].copy()
        b = w[j, : count[j]].copy()
        v = velocity[i] - velocity[j]
        ok, nx, ny, t, d = sweep_kernel(a, b, v[0], v[1], DT)
        assert ok == hit[p]
        if ok:
            assert (nx, ny, t, d) == (normal[p, 0], normal[p, 1], toi[p], depth[p])
        else:
            assert toi[p] == DT and depth[p] == 0.0 and not normal[p].any()
        if p % 5 == 0:  # the public face (with its input checks) on a fifth of them
            public = sweep(a, b, v, DT)
            assert (public is None) == (not ok)
            if public is not None:
                assert public.t == t and public.depth == d
                np.testing.assert_array_equal(public.normal, [nx, ny])
            assert intersect(a, b) == intersect_kernel(a, b)
    # Row p and row p + m are the same pair in the other order: mirror images.
    np.testing.assert_array_equal(hit[:m], hit[m:])
    np.testing.assert_array_equal(toi[:m], toi[m:])
    np.testing.assert_array_equal(depth[:m], depth[m:])
    np.testing.assert_array_equal(normal[:m], -normal[m:] + 0.0)


def test_contact_pairs_equals_one_pair_kernel_and_public_contact_points(world):
    w, count, velocity, pairs = world
    hit, normal, toi, _ = sweep_pairs(w, count, velocity, pairs, DT)
    n_contacts, point_a, point_b = contact_pairs(w, count, velocity, pairs, normal, toi)
    assert n_contacts.dtype == np.int64 and point_a.shape == (len(pairs), 2, 2)
    assert np.all(n_contacts[~hit] == 0)
    assert np.all((n_contacts[hit] >= 1) & (n_contacts[hit] <= 2))
    for p in np.flatnonzero(hit):
        i, j = pairs[p]
        a = w[i, : count[i]].copy()
        b = w[j, : count[j]].copy()
        out_a = np.zeros((2, 2))
        out_b = np.zeros((2, 2))
        c = find_contacts(a, b, normal[p, 0], normal[p, 1], toi[p], *velocity[i], *velocity[j], out_a, out_b)
        assert c == n_contacts[p]
        np.testing.assert_array_equal(out_a[:c], point_a[p, :c])
        np.testing.assert_array_equal(out_b[:c], point_b[p, :c])
        assert not point_a[p, c:].any() and not point_b[p, c:].any()
        if p % 5 == 0:
            # The public function keeps B still and moves A by the relative velocity:
            # the same contacts, shifted by B's own motion.
            public = sweep(a, b, velocity[i] - velocity[j], DT)
            pairs_public = contact_points(a, b, public, velocity[i] - velocity[j])
            shift = velocity[j] * toi[p]
            assert len(pairs_public) == c
            for k, (pa, pb) in enumerate(pairs_public):
                np.testing.assert_allclose(pa + shift, point_a[p, k], rtol=0, atol=1e-12)
                np.testing.assert_allclose(pb + shift, point_b[p, k], rtol=0, atol=1e-12)


def test_edge_edge_contacts_occur_in_the_batch(world):
    """Guard for the test above: random shapes rarely meet face to face, so add boxes."""
    w = np.full((2, MAX_VERTICES, 2), np.nan)
    w[0, :4] = [[0, 1], [2, 1], [2, 3], [0, 3]]
    w[1, :4] = [[-1, -1], [3, -1], [3, 1.5], [-1, 1.5]]
    count = np.array([4, 4], dtype=np.int64)
    velocity = np.zeros((2, 2))
    pairs = np.array([[0, 1], [1, 0]], dtype=np.int64)
    hit, normal, toi, depth = sweep_pairs(w, count, velocity, pairs, DT)
    assert hit.all() and np.allclose(depth, 0.5)
    n_contacts, point_a, point_b = contact_pairs(w, count, velocity, pairs, normal, toi)
    np.testing.assert_array_equal(n_contacts, [2, 2])
    assert sorted(point_a[0, :, 0]) == [0.0, 2.0] and np.all(point_a[0, :, 1] == 1.0)
    assert np.all(point_b[0, :, 1] == 1.5)


def test_kernels_run_without_the_compiler():
    """NUMBA_DISABLE_JIT=1 runs the same kernels as plain Python, with the same answers."""
    w, count, velocity, pairs = random_world(seed=7, n=40, pair_count=150)
    hit, normal, toi, depth = sweep_pairs(w, count, velocity, pairs, DT)
    n_contacts, point_a, point_b = contact_pairs(w, count, velocity, pairs, normal, toi)
    script = textwrap.dedent(
        """
        import json, numpy as np
        from tests.collision.test_kernels import random_world, DT
        from collision.sat import sweep_pairs
        from collision.contacts import contact_pairs
        from collision import find_mtd
        w, count, velocity, pairs = random_world(seed=7, n=40, pair_count=150)
        hit, normal, toi, depth = sweep_pairs(w, count, velocity, pairs, DT)
        c, pa, pb = contact_pairs(w, count, velocity, pairs, normal, toi)
        mtd = find_mtd([[0, 0], [2, 0], [2, 2], [0, 2]], [[1.5, 0], [3, 0], [3, 2], [1.5, 2]])
        print(json.dumps({k: np.asarray(x).tolist() for k, x in
                          dict(hit=hit, normal=normal, toi=toi, depth=depth, c=c, pa=pa, pb=pb,
                               mtd=mtd).items()}))
        """
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_array_equal(got["hit"], hit)
    np.testing.assert_allclose(got["normal"], normal, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["toi"], toi, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["depth"], depth, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got["c"], n_contacts)
    np.testing.assert_allclose(got["pa"], point_a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["pb"], point_b, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["mtd"], [-0.5, 0.0], atol=1e-15)


def test_batch_kernels_accept_no_pairs(world):
    w, count, velocity, _ = world
    none = np.empty((0, 2), dtype=np.int64)
    hit, normal, toi, depth = sweep_pairs(w, count, velocity, none, DT)
    assert hit.shape == (0,) and normal.shape == (0, 2) and toi.shape == (0,) and depth.shape == (0,)
    n_contacts, point_a, point_b = contact_pairs(w, count, velocity, none, normal, toi)
    assert n_contacts.shape == (0,) and point_a.shape == (0, 2, 2) and point_b.shape == (0, 2, 2)


def grid_world(seed: int, n: int):
    """Points, segments, boxes and triangles on integer coordinates with integer velocities:
    equal depths and equal entry times happen all the time, so the kernels' exact-tie rules
    run (random real shapes almost never tie). Unused vertex slots hold NaN."""
    rng = np.random.default_rng(seed)
    world = np.full((n, MAX_VERTICES, 2), np.nan)
    count = np.zeros(n, dtype=np.int64)
    for i in range(n):
        x, y = rng.integers(-3, 4, size=2).astype(float)
        kind = rng.integers(0, 4)
        if kind == 0:
            shape = [[x, y]]
        elif kind == 1:
            d = rng.integers(-2, 3, size=2).astype(float)
            d[0] += float(not d.any())
            shape = [[x, y], [x + d[0], y + d[1]]]
        elif kind == 2:
            w, h = rng.integers(1, 3, size=2)
            shape = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
        else:
            shape = [[x, y], [x + 2, y], [x + 1, y + rng.integers(1, 3)]]
        count[i] = len(shape)
        world[i, : count[i]] = shape
    velocity = rng.integers(-3, 4, size=(n, 2)).astype(float)
    velocity[::3] = 0.0
    pairs = np.arange(n, dtype=np.int64).reshape(-1, 2)
    return world, count, velocity, np.concatenate([pairs, pairs[:, ::-1]])


def test_exact_depth_tie_picks_the_x_axis_in_both_orders():
    """Two 2x2 boxes overlapping by 1 along x and along y: four faces tie exactly for the
    depth. The tie rule takes the line with the larger |x| component: the push is along x."""
    w = np.full((2, MAX_VERTICES, 2), np.nan)
    w[0, :4] = [[0, 0], [2, 0], [2, 2], [0, 2]]
    w[1, :4] = [[1, 1], [3, 1], [3, 3], [1, 3]]
    count = np.array([4, 4], dtype=np.int64)
    pairs = np.array([[0, 1], [1, 0]], dtype=np.int64)
    hit, normal, toi, depth = sweep_pairs(w, count, np.zeros((2, 2)), pairs, 1.0)
    assert hit.all()
    np.testing.assert_array_equal(normal, [[-1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(toi, [0.0, 0.0])
    np.testing.assert_array_equal(depth, [1.0, 1.0])


def test_exact_entry_tie_picks_the_x_axis_in_both_orders():
    """A unit box moving at (1, 1) reaches the unit box at (2, 2) corner first: x and y
    faces are entered at exactly t = 1. The tie rule again takes the x line."""
    w = np.full((2, MAX_VERTICES, 2), np.nan)
    w[0, :4] = [[0, 0], [1, 0], [1, 1], [0, 1]]
    w[1, :4] = [[2, 2], [3, 2], [3, 3], [2, 3]]
    count = np.array([4, 4], dtype=np.int64)
    velocity = np.array([[1.0, 1.0], [0.0, 0.0]])
    pairs = np.array([[0, 1], [1, 0]], dtype=np.int64)
    hit, normal, toi, depth = sweep_pairs(w, count, velocity, pairs, 2.0)
    assert hit.all()
    np.testing.assert_array_equal(normal, [[-1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(toi, [1.0, 1.0])
    np.testing.assert_array_equal(depth, [0.0, 0.0])


def test_sweep_pairs_equals_one_pair_kernel_on_grid_shapes_with_ties():
    w, count, velocity, pairs = grid_world(seed=11, n=3000)
    hit, normal, toi, depth = sweep_pairs(w, count, velocity, pairs, 1.0)
    m = len(pairs) // 2
    assert 0.1 < hit.mean() < 0.9
    assert (depth[hit] > 0).any() and (toi[hit] > 0).any()
    for p, (i, j) in enumerate(pairs):
        v = velocity[i] - velocity[j]
        ok, nx, ny, t, d = sweep_kernel(w[i, : count[i]].copy(), w[j, : count[j]].copy(), v[0], v[1], 1.0)
        assert ok == hit[p]
        if ok:
            assert (nx, ny, t, d) == (normal[p, 0], normal[p, 1], toi[p], depth[p])
    # The same pair in the other order: the same hits, times and depths. (Normals are not
    # compared here: when A and B have the same vertex mean and tie across one line in
    # opposite directions, e.g. a segment along the middle of a box, the tie rule keeps the
    # first face in loop order, so the two orders can give the same normal.)
    np.testing.assert_array_equal(hit[:m], hit[m:])
    np.testing.assert_array_equal(toi[:m], toi[m:])
    np.testing.assert_array_equal(depth[:m], depth[m:])
