"""The one-pair face's own checks: raw arrays are checked inside the compiled call, and every
refusal is the error the ordinary checks give (naming the argument and the vertex), in
argument order; every form of good input gives the answer of the checked kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import MAX_VERTICES, GeometryError, Polygon, checks, find_mtd, intersect, sweep
from collision.sat import intersect_kernel, sweep_kernel
from collision.shapes import check_vertices
from tests.collision.test_sat_oracle import random_convex

GOOD = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])

BAD_SHAPES = {
    "nan": [[0.0, 0.0], [math.nan, 1.0], [1.0, 1.0]],
    "inf": [[0.0, 0.0], [1.0, 0.0], [1.0, -math.inf]],
    "far": [[0.0, 0.0], [1.0, 0.0], [0.0, 2e12]],
    "same ends": [[1.0, 1.0], [1.0, 1.0]],
    "repeated vertex": [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
    "collinear": [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 1.0]],
    "not convex": [[0.0, 0.0], [2.0, 0.0], [1.0, 0.2], [1.0, 2.0]],
    "star": [[math.cos(a), math.sin(a)] for a in np.arange(5) * 4.0 * math.pi / 5.0],
    "too many": [[math.cos(a), math.sin(a)] for a in np.linspace(0, 2 * math.pi, MAX_VERTICES + 2)[:-1]],
    "flat": [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]],
    "no vertices": np.zeros((0, 2)),
    "three columns": np.zeros((3, 3)),
    "one point": [1.0, 2.0],
    "stack": np.zeros((2, 3, 2)),
}


def refusal(value: object, name: str) -> str:
    with pytest.raises(GeometryError) as info:
        check_vertices(value, name)
    return str(info.value)


def forms(value: object) -> list[object]:
    """The same shape as a list, a C float64 array (the fast path), a Fortran-order array, a
    read-only array and an integer array where it is one."""
    out: list[object] = [value]
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        return out
    readonly = array.copy()
    readonly.setflags(write=False)
    out += [array, np.asfortranarray(array), readonly]
    if np.isfinite(array).all() and (array == np.round(array)).all():
        out.append(array.astype(np.int64))
    return out


@pytest.mark.parametrize("case", sorted(BAD_SHAPES))
def test_bad_raw_shapes_get_the_checks_error_for_either_argument(case):
    for bad in forms(BAD_SHAPES[case]):
        for call in (
            lambda x, y: intersect(x, y),
            lambda x, y: find_mtd(x, y),
            lambda x, y: sweep(x, y, (1.0, 0.0)),
        ):
            with pytest.raises(GeometryError) as info:
                call(bad, GOOD)
            assert str(info.value) == refusal(bad, "a")
            with pytest.raises(GeometryError) as info:
                call(GOOD, bad)
            assert str(info.value) == refusal(bad, "b")


def test_refusals_come_in_argument_order():
    bad = np.array(BAD_SHAPES["not convex"])
    with pytest.raises(GeometryError, match=r"^a\["):
        intersect(bad, BAD_SHAPES["nan"])
    with pytest.raises(GeometryError, match=r"^a\["):
        sweep(bad, GOOD, (math.nan, 0.0), -1.0)
    with pytest.raises(GeometryError, match=r"^b\["):
        sweep(GOOD, bad, "fast", -1.0)
    with pytest.raises(ValueError, match=r"^velocity"):
        sweep(GOOD, GOOD, (math.nan, 0.0), -1.0)


@pytest.mark.parametrize(
    "velocity",
    [(math.nan, 0.0), (0.0, math.inf), np.array([math.inf, 0.0]), [1.0, 2.0, 3.0], "ab", (10**400, 0), None],
)
def test_bad_velocity_gets_the_checks_error(velocity):
    with pytest.raises(ValueError) as expected:
        checks.vector(velocity, "velocity", math.inf)
    with pytest.raises(ValueError) as info:
        sweep(GOOD, GOOD + 5.0, velocity)
    assert str(info.value) == str(expected.value)


@pytest.mark.parametrize("t_max", [0.0, -1.0, math.nan, math.inf, 10**400, "1", None])
def test_bad_t_max_gets_the_checks_error(t_max):
    with pytest.raises(ValueError) as expected:
        checks.number(t_max, "t_max", above=0.0)
    with pytest.raises(ValueError) as info:
        sweep(GOOD, GOOD + 5.0, (1.0, 0.0), t_max)
    assert str(info.value) == str(expected.value)


def test_every_form_of_good_input_gives_the_checked_kernels_answer():
    rng = np.random.default_rng(12)
    for _ in range(300):
        a = random_convex(rng, int(rng.integers(1, 9)))
        b = random_convex(rng, int(rng.integers(1, 9)))
        if rng.random() < 0.5:
            a = a[::-1].copy()  # clockwise
        v = rng.uniform(-3.0, 3.0, size=2)
        ca, cb = check_vertices(a, "a"), check_vertices(b, "b")
        expected_hit = intersect_kernel(ca, cb)
        ok, nx, ny, t, depth = sweep_kernel(ca, cb, v[0], v[1], 2.0)
        at_rest = sweep_kernel(ca, cb, 0.0, 0.0, 1.0)
        for fa in [*forms(a), Polygon(a)]:
            for fb in (b, Polygon(b)):
                assert intersect(fa, fb) == expected_hit
                for velocity in (v, tuple(v.tolist()), list(v.tolist())):
                    hit = sweep(fa, fb, velocity, 2.0)
                    assert (hit is not None) == ok
                    if hit is not None:
                        assert (hit.t, hit.depth) == (t, depth)
                        np.testing.assert_array_equal(hit.normal, [nx + 0.0, ny + 0.0])
                mtd = find_mtd(fa, fb)
                assert (mtd is not None) == at_rest[0]
                if mtd is not None:
                    np.testing.assert_array_equal(
                        mtd, [at_rest[4] * at_rest[1] + 0.0, at_rest[4] * at_rest[2] + 0.0]
                    )


def test_the_callers_arrays_are_left_alone():
    clockwise = GOOD[::-1].copy()
    before = clockwise.copy()
    sweep(clockwise, GOOD + 1.0, (1.0, 0.0))
    find_mtd(clockwise, GOOD + 1.0)
    np.testing.assert_array_equal(clockwise, before)


def test_results_are_read_only_and_typed():
    hit = sweep(GOOD, GOOD + (3.0, 0.0), np.array([4.0, 0.0]))
    assert hit.normal.dtype == np.float64 and hit.normal.shape == (2,) and not hit.normal.flags.writeable
    assert type(hit.t) is float and type(hit.depth) is float
    normal, t, depth = hit  # a named tuple
    assert (t, depth) == (0.25, 0.0) and normal.tolist() == [-1.0, 0.0]
    assert hit != sweep(GOOD, GOOD + (3.0, 0.0), np.array([2.0, 0.0]))
    mtd = find_mtd(GOOD, GOOD + (1.5, 0.0))
    assert mtd.dtype == np.float64 and mtd.shape == (2,) and mtd.tolist() == [-0.5, 0.0]
    assert type(intersect(GOOD, GOOD)) is bool
