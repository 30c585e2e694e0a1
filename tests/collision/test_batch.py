"""The batch face (Shapes, intersect_many, find_mtd_many, sweep_many) gives the one-pair
functions' answers bit for bit, in both argument orders, on thousands of seeded random pairs
(points, segments, polygons, clockwise input, integer grids full of exact ties and touching
shapes); matches the independent oracle; never returns NaN; refuses bad input by name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import (
    MAX_VERTICES,
    GeometryError,
    MTDBatch,
    Polygon,
    Shapes,
    SweepBatch,
    World,
    find_mtd,
    find_mtd_many,
    intersect,
    intersect_many,
    sweep,
    sweep_many,
)
from collision.shapes import check_vertices
from tests.collision.test_sat_oracle import first_contact, penetration, random_convex


def bits(x: object) -> np.ndarray:
    """The float64 bits of ``x``: equal bits is equal answers, 0.0 and -0.0 told apart."""
    return np.ascontiguousarray(x, dtype=np.float64).view(np.int64)


def random_pairs(seed: int, n: int) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """``n`` pairs of 1-8 vertex shapes close together (about half clockwise), velocities."""
    rng = np.random.default_rng(seed)
    a, b = [], []
    for _ in range(n):
        pair = []
        for _side in range(2):
            shape = random_convex(rng, int(rng.integers(1, 9)))
            shape = shape - shape.mean(axis=0) + rng.uniform(-1.2, 1.2, size=2)
            pair.append(shape[::-1].copy() if rng.random() < 0.5 else shape)
        a.append(pair[0])
        b.append(pair[1])
    velocity = rng.uniform(-4.0, 4.0, size=(n, 2))
    velocity[rng.random(n) < 0.1] = 0.0
    return a, b, velocity


def grid_pairs(seed: int, n: int) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Points, segments, boxes and triangles on integer coordinates with integer velocities:
    touching shapes, equal depths and equal entry times all the time (the exact-tie rules)."""
    rng = np.random.default_rng(seed)

    def shape() -> np.ndarray:
        x, y = rng.integers(-2, 3, size=2).astype(float)
        kind = rng.integers(0, 4)
        if kind == 0:
            return np.array([[x, y]])
        if kind == 1:
            d = rng.integers(-2, 3, size=2).astype(float)
            d[0] += float(not d.any())
            return np.array([[x, y], [x + d[0], y + d[1]]])
        if kind == 2:
            w, h = rng.integers(1, 3, size=2)
            return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
        return np.array([[x, y], [x + 2, y], [x + 1, y + rng.integers(1, 3)]])

    a = [shape() for _ in range(n)]
    b = [shape() for _ in range(n)]
    velocity = rng.integers(-3, 4, size=(n, 2)).astype(float)
    velocity[::3] = 0.0
    return a, b, velocity


def assert_equals_one_pair(a: list, b: list, velocity: np.ndarray, t_max: float) -> dict[str, int]:
    """Every batch answer equals the one-pair function's on the same pair, bit for bit."""
    n = len(a)
    hits = intersect_many(a, b)
    mtd = find_mtd_many(a, b)
    swept = sweep_many(a, b, velocity, t_max)
    assert hits.shape == (n,) and hits.dtype == np.bool_
    for field, shape in zip(mtd, ((n,), (n,), (n, 2)), strict=True):
        assert field.shape == shape
    for field, shape in zip(swept, ((n,), (n,), (n, 2), (n,)), strict=True):
        assert field.shape == shape
    counts = {"overlap": 0, "future": 0, "miss": 0}
    for i in range(n):
        assert hits[i] == intersect(a[i], b[i])
        push = find_mtd(a[i], b[i])
        assert mtd.hit[i] == (push is not None) == hits[i]
        at_rest = sweep(a[i], b[i], (0.0, 0.0))
        if push is None:
            assert at_rest is None
            assert mtd.depth[i] == 0.0 and not mtd.normal[i].any()
        else:
            np.testing.assert_array_equal(bits(mtd.mtd[i]), bits(push))
            np.testing.assert_array_equal(bits(mtd.normal[i]), bits(at_rest.normal))
            assert bits(mtd.depth[i]) == bits(at_rest.depth)
        hit = sweep(a[i], b[i], velocity[i], t_max)
        assert swept.hit[i] == (hit is not None)
        if hit is None:
            counts["miss"] += 1
            assert swept.t[i] == t_max and swept.depth[i] == 0.0 and not swept.normal[i].any()
        else:
            counts["overlap" if hit.t == 0.0 else "future"] += 1
            np.testing.assert_array_equal(bits(swept.normal[i]), bits(hit.normal))
            assert bits(swept.t[i]) == bits(hit.t) and bits(swept.depth[i]) == bits(hit.depth)
    return counts


@pytest.mark.parametrize("make, seed", [(random_pairs, 1), (random_pairs, 2), (grid_pairs, 3)])
def test_batch_equals_one_pair_in_both_orders(make, seed):
    a, b, v = make(seed, 2500)
    forward = assert_equals_one_pair(a, b, v, 1.0)
    backward = assert_equals_one_pair(b, a, -v, 1.0)
    # Both kinds of hit and misses are exercised.
    assert min(forward.values()) > 100 and forward == backward


def test_exact_ties_and_touching_in_both_orders():
    """Hand-made exact cases: boxes overlapping equally along x and y (a depth tie), a box
    reaching a corner at the same time along x and y (an entry tie), shapes that touch along
    an edge or at a corner, a point on an edge, a segment lying along an edge."""
    box = np.array([[0.0, 0], [2, 0], [2, 2], [0, 2]])
    a = [box, box, box, box, box, box, np.array([[1.0, 2.0]]), np.array([[0.0, 2], [2, 2]])]
    b = [
        box + 1.0,  # depth tie
        box + 3.0,  # entry tie, moving at (1, 1)
        box + (2.0, 0.0),  # touching along an edge
        box + 2.0,  # touching at a corner
        box[::-1] + (1.0, 0.0),  # clockwise input
        np.array([[2.0, 1.0]]),  # a point on an edge
        box,
        box,
    ]
    velocity = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [-1.0, 0.0], [0.0, 0.0], [0, 0], [0, 1], [1, 0]])
    for x, y, v in ((a, b, velocity), (b, a, -velocity)):
        assert_equals_one_pair(x, y, v, 2.0)
    r = sweep_many(a, b, velocity, 2.0)
    assert r.hit.all()
    np.testing.assert_array_equal(r.normal[0], [-1.0, 0.0])  # the tie rule's x axis
    np.testing.assert_array_equal(r.t[:4], [0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(r.depth[:4], [1.0, 0.0, 0.0, 0.0])


def test_one_shape_against_many_broadcasts():
    a, b, v = random_pairs(7, 300)
    one = a[0]
    many = Shapes(b)
    assert_equals_one_pair([one] * len(b), b, v, 1.0)
    for left, right in ((one, many), (Polygon(one), b), (Shapes([one]), many)):
        np.testing.assert_array_equal(intersect_many(left, right), intersect_many([one] * len(b), b))
    r1 = sweep_many(one, many, v[0])
    r2 = sweep_many([one] * len(b), b, np.broadcast_to(v[0], (len(b), 2)))
    for x, y in zip(r1, r2, strict=True):
        np.testing.assert_array_equal(bits(x), bits(y))
    r3 = find_mtd_many(many, one)  # and the other way round
    r4 = find_mtd_many(b, [one] * len(b))
    for x, y in zip(r3, r4, strict=True):
        np.testing.assert_array_equal(bits(x), bits(y))


def test_batch_matches_the_oracle():
    """Depths and first contact times against the configuration-space oracle (polygon pairs)."""
    rng = np.random.default_rng(5)
    a = [random_convex(rng, int(k)) for k in rng.integers(3, 9, size=400)]
    b = [random_convex(rng, int(k)) for k in rng.integers(3, 9, size=400)]
    v = rng.uniform(-6.0, 6.0, size=(400, 2))
    mtd = find_mtd_many(a, b)
    swept = sweep_many(a, b, v, 1.0)
    checked = 0
    for i in range(400):
        truth = penetration(a[i], b[i])
        if truth is None:
            assert not mtd.hit[i]
        elif truth[0] > 1e-9:
            assert mtd.hit[i]
            assert abs(mtd.depth[i] - truth[0]) <= 1e-9
            np.testing.assert_allclose(mtd.mtd[i], truth[1], atol=1e-9)
            checked += 1
        t = first_contact(a[i], b[i], v[i], 1.0)
        if t is None:
            assert not swept.hit[i] or swept.t[i] >= 1.0 - 1e-9
        else:
            assert swept.hit[i] and abs(swept.t[i] - t) <= 1e-9
    assert checked > 50


def test_no_nan_on_degenerate_and_extreme_input():
    rng = np.random.default_rng(9)
    shapes = []
    for scale, offset in ((1e-6, 0.0), (1e-3, 1e6), (1e3, 1e11), (1e5, -1e11), (1.0, 0.0)):
        for k in (1, 2, 3, 5, 8):
            s = random_convex(rng, k) * scale + offset
            shapes.append(s)
    a = [shapes[i] for i in rng.integers(0, len(shapes), size=2000)]
    b = [shapes[i] for i in rng.integers(0, len(shapes), size=2000)]
    v = rng.choice([0.0, 1e-300, 1e-12, 1.0, 1e12, -1e150], size=(2000, 2))
    for t_max in (1e-12, 1.0, 1e12):
        for result in (find_mtd_many(a, b), sweep_many(a, b, v, t_max)):
            for field in result:
                assert np.isfinite(field).all()
        r = sweep_many(a, b, v, t_max)
        assert ((r.t >= 0.0) & (r.t <= t_max)).all() and (r.depth >= 0.0).all()
        lengths = np.hypot(r.normal[r.hit, 0], r.normal[r.hit, 1])
        np.testing.assert_allclose(lengths, 1.0, atol=1e-12)


# --- Shapes -----------------------------------------------------------------------------


def test_shapes_pack_index_and_slice():
    point, segment, triangle = [[1.0, 2.0]], [[0.0, 0.0], [3.0, 0.0]], [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    shapes = Shapes([point, segment, triangle])
    assert len(shapes) == 3
    assert shapes.vertices.shape == (3, MAX_VERTICES, 2) and shapes.vertices.dtype == np.float64
    assert shapes.vertex_count.dtype == np.int64 and shapes.vertex_count.tolist() == [1, 2, 3]
    np.testing.assert_array_equal(shapes[0], point)
    np.testing.assert_array_equal(shapes[-1], check_vertices(triangle, "t"))  # reordered CCW
    np.testing.assert_array_equal(shapes[2], [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert [len(s) for s in shapes] == [1, 2, 3]
    assert len(shapes[1:]) == 2 and shapes[[2, 0]].vertex_count.tolist() == [3, 1]
    assert shapes[np.array([True, False, True])].vertex_count.tolist() == [1, 3]
    for view in (shapes.vertices, shapes.vertex_count, shapes[2]):
        with pytest.raises(ValueError):
            view[0] = 0
    with pytest.raises(IndexError):
        shapes[3]
    with pytest.raises(IndexError):
        shapes[0, 1]
    assert repr(shapes) == "Shapes(3 shapes: 1 points, 1 segments, 1 polygons)"
    # Every way in gives the same packed shapes.
    same = [
        Shapes(shapes),
        Shapes([Polygon(point), Polygon(segment), Polygon(triangle)]),
        Shapes.packed(shapes.vertices, shapes.vertex_count),
        Shapes(s for s in [point, segment, triangle]),
    ]
    for other in same:
        np.testing.assert_array_equal(other.vertices, shapes.vertices)
        np.testing.assert_array_equal(other.vertex_count, shapes.vertex_count)
    boxes = Shapes(np.array([[[0.0, 0], [1, 0], [1, 1], [0, 1]]] * 4) + np.arange(4.0)[:, None, None])
    assert len(boxes) == 4 and boxes.vertex_count.tolist() == [4] * 4
    assert len(Shapes([])) == 0 and intersect_many([], []).shape == (0,)
    assert find_mtd_many(Shapes([]), triangle).normal.shape == (0, 2)


def test_transformed_places_shapes_as_the_world_does():
    world = World(gravity=(0.0, 0.0))
    rng = np.random.default_rng(4)
    for k in (1, 2, 3, 4, 6, 8):
        shape = random_convex(rng, k, radius=0.7)
        world.add_body(shape, rng.uniform(-5.0, 5.0, size=2), angle=float(rng.uniform(-3.0, 3.0)))
    local = Shapes.packed(world.local_vertices, world.vertex_count)
    placed = local.transformed(world.position, world.angle)
    expected = world.world_vertices()
    for i, k in enumerate(world.vertex_count):
        np.testing.assert_array_equal(bits(placed[i]), bits(expected[i, :k]))
        turned = Polygon(local[i]).rotated(world.angle[i]).translated(world.position[i])
        np.testing.assert_allclose(placed[i], turned.vertices, rtol=0.0, atol=1e-12)
    # One position and angle for all; an angle of 0 only moves.
    moved = local.transformed((1.0, -2.0))
    for i in range(len(local)):
        np.testing.assert_array_equal(moved[i], local[i] + (1.0, -2.0))


# --- refusals ---------------------------------------------------------------------------

GOOD = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
NOT_CONVEX = [[0.0, 0.0], [2.0, 0.0], [1.0, 0.2], [1.0, 2.0]]


def message(value: object, name: str) -> str:
    with pytest.raises(GeometryError) as info:
        check_vertices(value, name)
    return str(info.value)


@pytest.mark.parametrize(
    "bad",
    [
        NOT_CONVEX,
        [[0.0, 0.0], [math.nan, 1.0], [1.0, 1.0]],
        [[0.0, 0.0], [1e13, 0.0], [0.0, 1.0]],
        [[1.0, 1.0], [1.0, 1.0]],
        [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]],
        [[float(i), float(i * i)] for i in range(MAX_VERTICES + 1)],
        [1.0, 2.0],
        [],
    ],
)
def test_bad_shapes_are_refused_naming_the_shape_and_vertex(bad):
    with pytest.raises(GeometryError) as info:
        Shapes([GOOD, GOOD, bad])
    assert str(info.value) == message(bad, "shapes[2]")
    with pytest.raises(GeometryError) as info:
        intersect_many([GOOD, bad], [GOOD, GOOD])
    assert str(info.value) == message(bad, "a[1]")
    with pytest.raises(GeometryError) as info:
        sweep_many(GOOD, [GOOD, GOOD, GOOD, bad], (1.0, 0.0))
    assert str(info.value) == message(bad, "b[3]")


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match=r"a has 2 shapes and b has 3"):
        intersect_many([GOOD, GOOD], [GOOD, GOOD, GOOD])
    with pytest.raises(ValueError, match=r"^velocity"):
        sweep_many([GOOD, GOOD], [GOOD, GOOD], [[1.0, 0.0]] * 3)
    with pytest.raises(ValueError, match=r"^velocity\[1\]"):
        sweep_many([GOOD, GOOD], [GOOD, GOOD], [[1.0, 0.0], [math.inf, 0.0]])
    with pytest.raises(ValueError, match=r"^velocity"):
        sweep_many(GOOD, GOOD, "fast")
    for t_max in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"^t_max"):
            sweep_many(GOOD, GOOD, (1.0, 0.0), t_max)
    with pytest.raises(GeometryError, match=r"^shapes: must be a sequence"):
        Shapes(3.0)
    shapes = Shapes([GOOD, GOOD])
    with pytest.raises(ValueError, match=r"^position\[1\]"):
        shapes.transformed([[0.0, 0.0], [math.nan, 0.0]])
    with pytest.raises(ValueError, match=r"^position: must have shape \(2, 2\)"):
        shapes.transformed([[0.0, 0.0]] * 3)
    with pytest.raises(ValueError, match=r"^angle\[0\]"):
        shapes.transformed((0.0, 0.0), [math.inf, 0.0])
    with pytest.raises(ValueError, match=r"^position\[0\].*MAX_COORDINATE"):
        shapes.transformed((2e12, 0.0))
    # A shape too small for where it is placed no longer has three distinct corners.
    tiny = Shapes([np.array(GOOD) * 1e-9])
    with pytest.raises(
        GeometryError, match=r"^shapes\[0\] at position \(1e\+11, 0\), angle 0: .*vertices\[1\]"
    ):
        tiny.transformed((1e11, 0.0))
    with pytest.raises(ValueError, match=r"^vertex_count\[1\] = 0"):
        Shapes.packed(np.zeros((2, 3, 2)), [3, 0])
    with pytest.raises(GeometryError, match=r"^vertices\[0\]"):
        Shapes.packed([NOT_CONVEX], [4])


def test_results_are_named_tuples():
    r = find_mtd_many(GOOD, [GOOD])
    assert isinstance(r, MTDBatch) and r._fields == ("hit", "depth", "normal")
    s = sweep_many(GOOD, [GOOD], (0.0, 0.0))
    assert isinstance(s, SweepBatch) and s._fields == ("hit", "t", "normal", "depth")
    hit, t, normal, depth = s
    assert hit.dtype == np.bool_ and t.dtype == normal.dtype == depth.dtype == np.float64
