"""Hostile input for the one-pair queries: intersect, find_mtd, sweep, contact_points,
clip_segment, and seed 001's primitive tests.

Each generated pair runs every query in both argument orders. A call either returns a correct,
finite answer (checked against brute-force projections where that is cheap) or raises
ValueError / GeometryError naming the argument at fault.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given

from collision import Hit, Polygon, clip_segment, contact_points, find_mtd, intersect, sweep
from collision import primitives as prim
from collision.tolerances import MAX_COORDINATE
from tests.collision.test_fuzz_common import (
    FOCUS,
    HOSTILE_NUMBERS,
    MAY_FAIL,
    MUST_FAIL,
    MUST_PASS,
    SEEDS,
    SETTINGS,
    ShapeCase,
    call,
    count,
    distance_to_shape,
    expect_refusal,
    extent,
    finite_number,
    finite_vector,
    fuzz_report,  # noqa: F401 (module fixture: prints the case count)
    magnitude,
    make_shape,
    project,
    sat_depth,
)

#: Relative size of rounding error we allow against the brute-force oracles: coordinates of
#: magnitude M are known to about 1e-16 M, and the kernels' own tolerances are 1e-12 relative.
ORACLE_RELATIVE = 1e-8

VELOCITY_MAGNITUDES = (0.0, 1e-9, 1.0, 10.0, 1e3, 1e9, 1e15)
BAD_VECTORS: tuple[object, ...] = (
    [math.nan, 0.0],
    [0.0, math.inf],
    [-math.inf, 1.0],
    [],
    [1.0],
    [1.0, 2.0, 3.0],
    "xy",
    None,
    [[1.0, 2.0]],
    [1.0, "a"],
)


def _valid(case: ShapeCase) -> np.ndarray | None:
    """The CCW vertices of an accepted shape, or None when refused (checked to be allowed)."""
    poly, err = call(Polygon, case.raw)
    if err is not None:
        assert case.outcome != MUST_PASS, f"valid {case.kind} refused: {err}"
        return None
    assert case.outcome != MUST_FAIL, f"{case.kind} accepted: {case.raw}"
    return poly.vertices


def _velocity(rng: np.random.Generator, a: np.ndarray | None, b: np.ndarray | None) -> object:
    r = rng.random()
    if r < 0.08:
        return BAD_VECTORS[int(rng.integers(0, len(BAD_VECTORS)))]
    speed = float(rng.choice(VELOCITY_MAGNITUDES))
    if r < 0.6 and a is not None and b is not None:
        # Aimed from A toward B, so future hits are common.
        d = b.mean(axis=0) - a.mean(axis=0)
        norm = math.hypot(*d)
        if norm > 0.0:
            return (d / norm * speed * rng.uniform(0.5, 2.0)).tolist()
    ang = rng.uniform(0.0, 2.0 * math.pi)
    return [speed * math.cos(ang), speed * math.sin(ang)]


def _t_max(rng: np.random.Generator) -> object:
    if rng.random() < 0.85:
        return float(rng.choice([1.0, 1.0, 0.5, 1e-6, 60.0]))
    return HOSTILE_NUMBERS[int(rng.integers(0, len(HOSTILE_NUMBERS)))]


def _expect_shape_refusal(fn: object, a_case: ShapeCase, b_case: ShapeCase, a: object, b: object) -> None:
    """With a refused shape among the arguments, the call is refused naming that argument."""
    _, err = call(fn, a_case.raw, b_case.raw)  # type: ignore[arg-type]
    assert err is not None, f"{getattr(fn, '__name__', fn)} accepted {a_case.kind}/{b_case.kind}"
    expect_refusal(err, "a" if a is None else "b")


def _check_mtd(a: np.ndarray, b: np.ndarray, touching: bool) -> float | None:
    mtd, err = call(find_mtd, a, b)
    count("find_mtd")
    assert err is None, err
    if mtd is None:
        assert not touching, "intersect says they touch, find_mtd says not"
        return None
    assert touching, "find_mtd found a push for shapes intersect says are apart"
    assert mtd.shape == (2,) and mtd.dtype == np.float64 and np.isfinite(mtd).all()
    depth = math.hypot(*mtd)
    tol = ORACLE_RELATIVE * magnitude(a, b) + 1e-300
    if depth > 0.0:
        n = mtd / depth
        a_min, _ = project(a + mtd, n)
        _, b_max = project(b, n)
        assert a_min >= b_max - tol, f"a + mtd still overlaps b by {b_max - a_min}"
    if len(a) >= 3 and len(b) >= 3:
        best, _ = sat_depth(a, b)
        assert abs(depth - max(best, 0.0)) <= tol, f"depth {depth} but brute-force SAT says {best}"
    return depth


def _check_sweep(
    a: np.ndarray, b: np.ndarray, velocity: object, t_max: object, touching: bool, depth: float | None
) -> None:
    hit, err = call(sweep, a, b, velocity, t_max)
    count("sweep")
    if err is not None:
        expect_refusal(err, "velocity", "t_max")
        good = finite_vector(velocity) and finite_number(t_max) and float(t_max) > 0.0  # type: ignore[arg-type]
        assert not good, f"refused good input: {err}"
        return
    v = np.asarray(velocity, dtype=np.float64)
    tm = float(t_max)  # type: ignore[arg-type]
    assert tm > 0.0 and math.isfinite(tm) and np.isfinite(v).all()
    if touching:
        assert hit is not None and hit.t == 0.0, "overlapping shapes must hit at t = 0"
    if hit is None:
        return
    assert isinstance(hit, Hit)
    n = hit.normal
    assert n.shape == (2,) and np.isfinite(n).all() and abs(math.hypot(*n) - 1.0) <= 1e-9, n
    assert 0.0 <= hit.t <= tm and math.isfinite(hit.depth) and hit.depth >= 0.0, hit
    moved = a + v * hit.t
    tol = ORACLE_RELATIVE * magnitude(a, b, moved) + 1e-300
    if depth is not None:
        assert abs(hit.depth - depth) <= tol, f"sweep depth {hit.depth}, find_mtd depth {depth}"
    if hit.t > 0.0:
        assert hit.depth == 0.0
        # At the time of impact A touches B along the normal, from B's side toward A.
        a_min, _ = project(moved, n)
        _, b_max = project(b, n)
        assert abs(a_min - b_max) <= tol, f"at t = {hit.t} the gap along the normal is {a_min - b_max}"
    _check_contacts(a, b, hit, v)


def _check_contacts(a: np.ndarray, b: np.ndarray, hit: Hit, v: np.ndarray) -> None:
    pairs, err = call(contact_points, a, b, hit, v)
    count("contact_points")
    assert err is None, err
    assert 1 <= len(pairs) <= 2
    moved = a + v * hit.t
    # Contact points come from support features found with a relative tolerance (1e-6).
    tol = 1e-5 * max(extent(a), extent(b)) + ORACLE_RELATIVE * magnitude(moved, b) + 1e-300
    for pa, pb in pairs:
        assert pa.shape == pb.shape == (2,) and np.isfinite(pa).all() and np.isfinite(pb).all()
        assert distance_to_shape(pa, moved) <= tol + hit.depth, (pa, moved)
        assert distance_to_shape(pb, b) <= tol + hit.depth, (pb, b)


def _pair_case(rng: np.random.Generator, a_case: ShapeCase, b_case: ShapeCase) -> None:
    a, b = _valid(a_case), _valid(b_case)
    velocity, t_max = _velocity(rng, a, b), _t_max(rng)
    if a is None or b is None:
        for fn in (intersect, find_mtd):
            _expect_shape_refusal(fn, a_case, b_case, a, b)
            count(fn.__name__)
        _, err = call(sweep, a_case.raw, b_case.raw, velocity, t_max)
        count("sweep")
        assert err is not None
        expect_refusal(err, "a" if a is None else "b", "velocity", "t_max")
        return
    for x, y in ((a, b), (b, a)):
        touching, err = call(intersect, x, y)
        count("intersect")
        assert err is None and isinstance(touching, bool), err
        depth = _check_mtd(x, y, touching)
        _check_sweep(x, y, velocity, t_max, touching, depth)
    assert intersect(a, b) == intersect(b, a)
    count("intersect")


@SETTINGS(900)
@given(seed=SEEDS, focus=FOCUS)
def test_pair_queries(seed: int, focus: str | None) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(6):
        a_case = make_shape(rng, focus, hostile_share=0.1)
        b_case = make_shape(rng, None, hostile_share=0.1)
        if a_case.outcome == MUST_PASS and b_case.outcome == MUST_PASS and rng.random() < 0.5:
            # Bring B near A so that overlaps and touching contacts are common.
            a0, b0 = np.asarray(a_case.raw), np.asarray(b_case.raw)
            shift = a0.mean(axis=0) - b0.mean(axis=0) + rng.normal(0.0, 0.5, 2) * max(extent(a0), 1e-9)
            moved = b0 + shift
            # Moved far from the origin, a tiny B may round to a degenerate shape.
            fine = magnitude(moved) <= 1e4 * max(extent(b0), 1e-300)
            b_case = ShapeCase(moved.tolist(), MUST_PASS if fine else MAY_FAIL, b_case.kind)
        _pair_case(rng, a_case, b_case)


# -- clip_segment -----------------------------------------------------------------------------


def _clip_case(rng: np.random.Generator, case: ShapeCase) -> None:
    v = _valid(case)
    centre = np.asarray(case.raw, dtype=float).mean(axis=0) if v is not None else np.zeros(2)
    size = max(extent(v), 1e-9) if v is not None else 1.0
    start = (centre + rng.normal(0.0, 1.5, 2) * size).tolist()
    end = (centre + rng.normal(0.0, 1.5, 2) * size).tolist()
    radius: object = float(rng.choice([0.0, 0.0, 0.1 * size, size, 1e-9]))
    r = rng.random()
    if r < 0.05:
        start = BAD_VECTORS[int(rng.integers(0, len(BAD_VECTORS)))]
    elif r < 0.1:
        end = BAD_VECTORS[int(rng.integers(0, len(BAD_VECTORS)))]
    elif r < 0.15:
        radius = HOSTILE_NUMBERS[int(rng.integers(0, len(HOSTILE_NUMBERS)))]
    elif r < 0.2:
        end = start  # a zero-length segment
    hit, err = call(clip_segment, start, end, case.raw, radius)
    count("clip_segment")
    if err is not None:
        expect_refusal(err, "start", "end", "vertices", "radius")
        return
    assert v is not None, f"{case.kind} accepted by clip_segment"
    s, e, rad = np.asarray(start, float), np.asarray(end, float), float(radius)  # type: ignore[arg-type]
    if hit is None:
        return
    assert 0.0 <= hit.t_enter <= hit.t_exit <= 1.0, hit
    tol = 1e-7 * (magnitude(v, s, e) + rad) + 1e-300
    reach = rad if len(v) <= 2 else 0.0
    ends = ((hit.t_enter, hit.point_enter, hit.normal_enter), (hit.t_exit, hit.point_exit, hit.normal_exit))
    for t, p, nrm in ends:
        assert np.isfinite(p).all() and math.isfinite(t)
        assert distance_to_shape(p, v) <= reach + tol, (p, v, rad)
        if nrm is not None:
            assert nrm.shape == (2,) and abs(math.hypot(*nrm) - 1.0) <= 1e-9, nrm
    if hit.starts_inside:
        assert hit.t_enter == 0.0 and distance_to_shape(s, v) <= reach + tol


@SETTINGS(500)
@given(seed=SEEDS, focus=FOCUS)
def test_clip_segment(seed: int, focus: str | None) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(12):
        _clip_case(rng, make_shape(rng, focus, hostile_share=0.15))


# -- seed 001 primitives ----------------------------------------------------------------------


def _coord(rng: np.random.Generator) -> object:
    if rng.random() < 0.1:
        return HOSTILE_NUMBERS[int(rng.integers(0, len(HOSTILE_NUMBERS)))]
    return float(np.round(rng.normal(0.0, 5.0), int(rng.integers(0, 3))))


def _vec(rng: np.random.Generator) -> object:
    if rng.random() < 0.03:
        return BAD_VECTORS[int(rng.integers(0, len(BAD_VECTORS)))]
    return (_coord(rng), _coord(rng))


def _primitive(rng: np.random.Generator, kind: str) -> tuple[object, BaseException | None]:
    args = {
        "point": lambda: (_vec(rng),),
        "line": lambda: (_vec(rng), _vec(rng)),
        "segment": lambda: (_vec(rng), _vec(rng)),
        "circle": lambda: (_vec(rng), abs(_coord(rng)) if rng.random() < 0.9 else _coord(rng)),  # type: ignore[arg-type]
        "rectangle": lambda: (_vec(rng), _vec(rng)),
        "oriented": lambda: (_vec(rng), _vec(rng), _coord(rng)),
    }[kind]()
    if kind == "point":
        p = args[0]
        ok = isinstance(p, tuple) and all(isinstance(c, float) and abs(c) <= MAX_COORDINATE for c in p)
        return (p, None) if ok else (None, ValueError("point"))
    cls = {
        "line": prim.Line,
        "segment": prim.Segment,
        "circle": prim.Circle,
        "rectangle": prim.Rectangle,
        "oriented": prim.OrientedRectangle,
    }[kind]
    obj, err = call(cls, *args)
    count(cls.__name__)
    if err is not None:
        expect_refusal(
            err,
            "base",
            "direction",
            "point1",
            "point2",
            "center",
            "radius",
            "origin",
            "size",
            "half_extend",
            "rotation",
        )
    return obj, err


PRIMITIVE_TESTS = [
    (name, fn.__code__.co_varnames[:2])
    for name, fn in vars(prim).items()
    if name.endswith("_collide") and callable(fn)
]
KIND_OF_PARAM = {
    "a": None,
    "b": None,
    "point": "point",
    "line": "line",
    "segment": "segment",
    "circle": "circle",
    "rectangle": "rectangle",
    "oriented": "oriented",
}
PREFIX_KIND = {
    "points": "point",
    "lines": "line",
    "segments": "segment",
    "circles": "circle",
    "rectangles": "rectangle",
    "oriented_rectangles": "oriented",
    "line": "line",
    "point": "point",
    "circle": "circle",
    "rectangle": "rectangle",
    "oriented_rectangle": "oriented",
    "segment": "segment",
}


def _kinds(name: str) -> tuple[str, str]:
    """Argument kinds of a ``*_collide`` function from its name (``circle_segment_collide``)."""
    stem = name[: -len("_collide")]
    for plural in ("oriented_rectangles", "rectangles", "circles", "segments", "lines", "points"):
        if stem == plural:
            k = PREFIX_KIND[plural]
            return k, k
    for first in ("oriented_rectangle", "rectangle", "circle", "segment", "line", "point"):
        if stem.startswith(first + "_"):
            return PREFIX_KIND[first], PREFIX_KIND[stem[len(first) + 1 :]]
    raise AssertionError(name)


def _circle_oracle(a: prim.Circle, b: prim.Circle) -> bool | None:
    d = math.dist(a.center, b.center)
    r = a.radius + b.radius
    if abs(d - r) <= 1e-9 * (d + r) or max(d, r) > 1e100:
        return None  # too close to call in floating point
    return d < r


@SETTINGS(400)
@given(seed=SEEDS)
def test_primitives(seed: int) -> None:
    rng = np.random.default_rng(seed)
    names = [n for n, _ in PRIMITIVE_TESTS]
    for _ in range(12):
        name = names[int(rng.integers(0, len(names)))]
        ka, kb = _kinds(name)
        x, ex = _primitive(rng, ka)
        y, ey = _primitive(rng, kb)
        if ex is not None or ey is not None:
            continue
        result, err = call(getattr(prim, name), x, y)
        count(name)
        assert err is None, f"{name}({x}, {y}): {err}"
        assert isinstance(result, bool), (name, result)
        if name == "circles_collide":
            expected = _circle_oracle(x, y)  # type: ignore[arg-type]
            assert expected is None or result == expected, (x, y)
        if ka == kb:
            assert getattr(prim, name)(y, x) == result, f"{name} is not symmetric for {x}, {y}"
            count(name)
