"""Shared pieces of the hostile-input fuzz suite (tests/collision/test_fuzz_*.py).

No tests live here. It holds:

- ``SETTINGS(n)``: the reproducible hypothesis profile every fuzz test uses (derandomized, no
  example database, no deadline), so CI runs the same cases every time.
- a session counter of generated cases: every public call made with generated input counts
  one, under a kind ``"class: call"`` (the class of hostile input it belongs to: ``numbers``,
  ``magnitudes``, ``shapes``, ``queries``, ``primitives``, ``answers``, ``world``, ``limits``,
  ``cost``; the program's fuzz adds its own). Each fuzz module prints its count, time and the
  running total when it finishes, and tests/conftest.py prints the session's totals per class
  (look for ``[fuzz]`` in the pytest output).
- hostile shape strategies that say whether the input MUST be refused, MAY be refused (valid
  in exact arithmetic but not representable, e.g. a 1e-9 shape at 1e9) or must be accepted.
- cheap geometric checks used as oracles (projections, point-in-convex with tolerance).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from collision import MAX_VERTICES, GeometryError
from collision.tolerances import FEATURE_RELATIVE_SIZE, MAX_COORDINATE, MIN_FEATURE_SIZE

# -- reproducible settings and the case counter -----------------------------------------------

_COUNTS: dict[str, int] = {}


def SETTINGS(max_examples: int) -> settings:  # noqa: N802 (reads like a decorator constant)
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )


_SECONDS: dict[str, float] = {}


def count(kind: str, n: int = 1) -> None:
    """Record ``n`` generated calls of ``kind`` (``"class: call"``, see the module docstring)."""
    _COUNTS[kind] = _COUNTS.get(kind, 0) + n


def class_of(kind: str) -> str:
    """The class of a counted kind: the text before ``": "`` (the whole kind without one)."""
    return kind.split(": ", 1)[0]


def by_class() -> dict[str, int]:
    """Cases counted so far, per class."""
    out: dict[str, int] = {}
    for kind, n in _COUNTS.items():
        out[class_of(kind)] = out.get(class_of(kind), 0) + n
    return out


def seconds() -> dict[str, float]:
    """Wall time (s) of each fuzz module that has finished, by module name."""
    return dict(_SECONDS)


def total() -> int:
    return sum(_COUNTS.values())


def counts() -> dict[str, int]:
    return dict(_COUNTS)


@pytest.fixture(scope="module", autouse=True)
def fuzz_report(request: pytest.FixtureRequest) -> Any:
    """Print how many generated cases the module ran (import this into every fuzz module)."""
    before = dict(_COUNTS)
    start = time.perf_counter()
    yield
    name = request.module.__name__.rsplit(".", 1)[-1]
    _SECONDS[name] = time.perf_counter() - start
    mine = {k: v - before.get(k, 0) for k, v in _COUNTS.items() if v - before.get(k, 0)}
    classes: dict[str, int] = {}
    for kind, n in mine.items():
        classes[class_of(kind)] = classes.get(class_of(kind), 0) + n
    line = (
        f"[fuzz] {name}: {sum(mine.values())} cases in {_SECONDS[name]:.1f} s "
        f"({', '.join(f'{k} {v}' for k, v in sorted(classes.items()))}); session total {total()}"
    )
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:  # pragma: no cover
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(line)


# -- error messages ---------------------------------------------------------------------------


def names_argument(message: str, name: str) -> bool:
    """True when ``message`` names ``name`` as a word (``a``, ``a[3]``, ``a =``, ``a:``)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def expect_refusal(exc: BaseException, *names: str) -> None:
    """Assert ``exc`` is a ValueError (GeometryError included) naming one of ``names``."""
    assert isinstance(exc, ValueError), f"{type(exc).__name__}: {exc}"
    assert any(names_argument(str(exc), n) for n in names), f"message does not name {names}: {exc}"
    assert "nan" not in type(exc).__name__.lower()


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, BaseException | None]:
    """Run ``fn``; return (result, None) or (None, the ValueError). Anything else propagates."""
    try:
        return fn(*args, **kwargs), None
    except ValueError as exc:  # GeometryError is a ValueError
        return None, exc


# -- hostile shapes ---------------------------------------------------------------------------

MUST_PASS = "pass"
MAY_FAIL = "may"
MUST_FAIL = "fail"

#: Shape sizes and distances from the origin, from denormal to near MAX_COORDINATE: whether a
#: shape must be accepted follows from its smallest feature (see :func:`shape_outcome`).
SCALES = (
    5e-324, 1e-300, 1e-160, 1e-60, 1e-45, 1e-12, 1e-9, 1e-6, 1e-3, 0.5, 1.0, 3.0, 50.0, 1e3, 1e6, 1e9, 4e11,
)  # fmt: skip
OFFSETS = (0.0, 1e-300, 1e-9, 1.0, 10.0, 1e3, 1e6, 1e9, 5e11)


@dataclass(frozen=True)
class ShapeCase:
    """A generated shape: the raw input, what must happen, and (when valid) the CCW vertices."""

    raw: Any
    outcome: str
    kind: str
    bad_vertex: int | None = None  # the vertex a refusal must name, when known

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self.raw, dtype=np.float64)


def ellipse(rng: np.random.Generator, k: int, scale: float) -> np.ndarray:
    """``k`` points on an ellipse at sorted angles at least 2 pi / (4 k) apart: strictly convex, CCW."""
    gaps = rng.uniform(1.0, 4.0, k)
    angles = np.cumsum(gaps) / gaps.sum() * 2.0 * math.pi + rng.uniform(0.0, 2.0 * math.pi)
    rx, ry = scale * rng.uniform(0.3, 1.0, 2)
    return np.column_stack([rx * np.cos(angles), ry * np.sin(angles)])


VALID_KINDS = ("point", "segment", "polygon", "polygon", "polygon", "polygon")
HOSTILE_KINDS = (
    "nonfinite",
    "empty",
    "wrong_shape",
    "too_many",
    "duplicate",
    "collinear",
    "all_collinear",
    "dent",
    "bowtie",
    "zero_segment",
    "text",
    "random",
    "far",
)
KINDS = tuple(sorted(set(VALID_KINDS + HOSTILE_KINDS)))


def features(v: np.ndarray) -> float:
    """The smallest feature of a convex CCW or CW shape ``v (k, 2)``, measured here without the
    engine: the shortest edge (a segment's length) or the narrowest width (for each edge, the
    farthest vertex from its line; the least of those). ``inf`` for a point."""
    k = len(v)
    if k == 1:
        return math.inf
    edges = (np.roll(v, -1, axis=0) - v)[: k if k > 2 else 1]
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    if k == 2:
        return float(lengths[0])
    across = np.abs(
        edges[:, None, 0] * (v[None, :, 1] - v[:, None, 1])
        - edges[:, None, 1] * (v[None, :, 0] - v[:, None, 0])
    )
    return float(min(lengths.min(), (across.max(axis=1) / lengths).min()))


def shape_outcome(v: np.ndarray, scale: float = 0.0) -> str:
    """What the engine must do with the convex outline ``v`` (placed where coordinates reach
    ``scale``): accept it when its smallest feature is well above the documented limit
    (FEATURE_RELATIVE_SIZE of the coordinates' size, at least MIN_FEATURE_SIZE), refuse it
    when well below, either near it."""
    if not np.isfinite(v).all() or np.abs(v).max() > MAX_COORDINATE:
        return MUST_FAIL
    limit = max(MIN_FEATURE_SIZE, FEATURE_RELATIVE_SIZE * max(float(np.abs(v).max()), scale))
    size = features(v)
    if size >= 2.0 * limit:
        return MUST_PASS
    return MUST_FAIL if size < 0.5 * limit else MAY_FAIL


def valid_shape(
    rng: np.random.Generator, kind: str | None = None, scales: tuple = SCALES, offsets: tuple = OFFSETS
) -> ShapeCase:
    """A point, segment or convex polygon at a hostile scale and place, maybe clockwise; its
    outcome by :func:`shape_outcome` (a denormal box, or a small one far out, must be refused)."""
    kind = kind or str(rng.choice(VALID_KINDS))
    scale = float(rng.choice(scales))
    mag = float(rng.choice(offsets))
    direction = rng.uniform(0.0, 2.0 * math.pi)
    offset = mag * np.array([math.cos(direction), math.sin(direction)])
    if kind == "point":
        pts = np.zeros((1, 2))
    elif kind == "segment":
        a = rng.uniform(0.0, 2.0 * math.pi)
        pts = 0.5 * scale * np.array([[math.cos(a), math.sin(a)], [-math.cos(a), -math.sin(a)]])
    else:
        pts = ellipse(rng, int(rng.integers(3, MAX_VERTICES + 1)), scale)
        if rng.random() < 0.5:
            pts = pts[::-1]  # clockwise input is accepted
    placed = pts + offset
    outcome = shape_outcome(placed)
    if outcome == MUST_PASS and kind == "polygon" and mag > 1e6 * scale:
        outcome = MAY_FAIL  # far out, rounding may make two vertices nearly collinear
    return ShapeCase(placed.tolist(), outcome, kind)


def hostile_shape(rng: np.random.Generator, kind: str | None = None) -> ShapeCase:
    """Inputs that must be refused (or, for raw random ones, may be)."""
    kind = kind or str(rng.choice(HOSTILE_KINDS))
    scale = float(rng.choice((1e-6, 1.0, 10.0, 1e6)))
    if kind == "nonfinite":
        k = int(rng.integers(1, MAX_VERTICES + 1))
        pts = ellipse(rng, max(k, 3), scale)[:k]
        i = int(rng.integers(0, k))
        pts[i, int(rng.integers(0, 2))] = rng.choice([math.nan, math.inf, -math.inf])
        return ShapeCase(pts.tolist(), MUST_FAIL, kind, bad_vertex=i)
    if kind == "far":
        k = int(rng.integers(1, 6))
        pts = ellipse(rng, max(k, 3), scale)[:k] + 1e13
        return ShapeCase(pts.tolist(), MUST_FAIL, kind, bad_vertex=0)
    if kind == "empty":
        return ShapeCase([[], np.zeros((0, 2)), [[]]][int(rng.integers(0, 3))], MUST_FAIL, kind)
    if kind == "wrong_shape":
        raws: list[Any] = [[1.0, 2.0], [[1.0, 2.0, 3.0]], [[[0.0, 0.0]]], 5.0, [[1.0], [2.0]]]
        return ShapeCase(raws[int(rng.integers(0, len(raws)))], MUST_FAIL, kind)
    if kind == "too_many":
        k = int(rng.integers(MAX_VERTICES + 1, 3 * MAX_VERTICES))
        return ShapeCase(ellipse(rng, k, scale).tolist(), MUST_FAIL, kind)
    if kind == "text":
        raws = [[["a", "b"]], "square", None, [[None, 1.0]]]
        return ShapeCase(raws[int(rng.integers(0, len(raws)))], MUST_FAIL, kind)
    if kind == "zero_segment":
        p = float(rng.choice([0.0, 1.0, 1e9, -3.5]))
        return ShapeCase([[p, p], [p, p]], MUST_FAIL, kind, bad_vertex=1)
    if kind == "random":
        k = int(rng.integers(1, MAX_VERTICES + 3))
        pool = np.array([math.nan, math.inf, -math.inf, 0.0, 1e-300, 1e300, 1e12, 1e9, -1e9, 1e-9])
        raw = np.where(rng.random((k, 2)) < 0.2, rng.choice(pool, (k, 2)), rng.normal(0.0, 10.0, (k, 2)))
        return ShapeCase(raw.tolist(), MAY_FAIL, kind)
    k = int(rng.integers(3, MAX_VERTICES))
    pts = ellipse(rng, k, scale)
    i = int(rng.integers(0, k))
    if kind == "duplicate":
        pts = np.insert(pts, i + 1, pts[i], axis=0)
    elif kind == "collinear":
        pts = np.insert(pts, i + 1, 0.5 * (pts[i] + pts[(i + 1) % k]), axis=0)
    elif kind == "all_collinear":
        t = np.linspace(-1.0, 1.0, k) ** 3
        pts = scale * np.column_stack([t, 2.0 * t])
    elif kind == "dent":
        if k == 3:
            pts = np.insert(pts, 1, np.mean(pts, axis=0), axis=0)  # a reflex vertex
        else:
            pts[i] = np.mean(np.delete(pts, i, axis=0), axis=0)  # strictly inside the others
    elif kind == "bowtie":
        if k == 3:
            pts = np.vstack([pts[:2], pts[1] + pts[2] - pts[0], pts[2:]])  # a parallelogram
        j = (i + 1) % len(pts)
        pts[[i, j]] = pts[[j, i]]  # two neighbours swapped: two edges cross
    if rng.random() < 0.5:
        pts = pts[::-1]
    return ShapeCase(pts.tolist(), MUST_FAIL, kind)


def make_shape(rng: np.random.Generator, focus: str | None = None, hostile_share: float = 0.25) -> ShapeCase:
    """A shape of kind ``focus`` half the time (when given); otherwise mostly valid ones."""
    kind = focus if focus is not None and rng.random() < 0.5 else None
    if kind is None:
        kind = str(rng.choice(HOSTILE_KINDS if rng.random() < hostile_share else VALID_KINDS))
    if kind in VALID_KINDS:
        return valid_shape(rng, kind)
    return hostile_shape(rng, kind)


#: Hypothesis draws the seed of a batch and the kind it focuses on; numpy draws the batch
#: from the seed. Hypothesis costs about a millisecond per example on the CI machine, so each
#: example generates many cases to reach 100 000 within the time budget.
SEEDS = st.integers(0, 2**32 - 1)
FOCUS = st.sampled_from((None, *KINDS))


#: Hostile numbers: zeros, tiny, huge, overflow-sized, NaN and infinities.
HOSTILE_NUMBERS: tuple[float, ...] = (
    0.0,
    -0.0,
    1e-300,
    1e-9,
    -1e-9,
    1.0,
    -1.0,
    0.5,
    2.5,
    1e9,
    -1e9,
    1e15,
    1e300,
    -1e300,
    math.nan,
    math.inf,
    -math.inf,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1e-160,
    1e154,
    1.7976931348623157e308,
    10**400,
    -(10**400),
)


def finite_number(x: Any) -> bool:
    """A real number (not a bool) that is finite as a float64."""
    if isinstance(x, bool | np.bool_):
        return False
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError, OverflowError):
        return False


def finite_vector(v: Any) -> bool:
    try:
        a = np.array(v, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return False
    return a.shape == (2,) and bool(np.isfinite(a).all())


# -- geometric oracles ------------------------------------------------------------------------


def magnitude(*arrays: np.ndarray) -> float:
    """Largest absolute coordinate among the arrays (the scale of rounding errors)."""
    return max(float(np.max(np.abs(a))) if np.size(a) else 0.0 for a in arrays)


def extent(v: np.ndarray) -> float:
    return float(np.max(np.ptp(v, axis=0))) if len(v) > 1 else 0.0


def project(v: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    d = v @ n
    return float(d.min()), float(d.max())


def distance_to_shape(p: np.ndarray, v: np.ndarray) -> float:
    """Distance from ``p`` to the convex shape ``v`` (0 inside); brute force over edges."""
    k = len(v)
    if k == 1:
        return float(np.hypot(*(p - v[0])))
    if k >= 3:
        e = np.roll(v, -1, axis=0) - v
        side = e[:, 0] * (p[1] - v[:, 1]) - e[:, 1] * (p[0] - v[:, 0])
        if np.all(side >= 0.0):
            return 0.0
    best = math.inf
    for i in range(k if k >= 3 else 1):
        a, b = v[i], v[(i + 1) % k]
        ab = b - a
        length_sq = float(ab @ ab)
        t = float(np.clip((p - a) @ ab / length_sq, 0.0, 1.0)) if length_sq > 0.0 else 0.0
        best = min(best, float(np.hypot(*(a + t * ab - p))))
    return best


def sat_depth(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """Brute-force SAT for two convex polygons (3+ vertices each): (depth, axis from B to A).

    depth < 0 means separated by -depth along the returned axis.
    """
    best = math.inf
    best_axis = np.zeros(2)
    for v in (a, b):
        e = np.roll(v, -1, axis=0) - v
        normals = np.column_stack([e[:, 1], -e[:, 0]]) / np.hypot(e[:, 0], e[:, 1])[:, None]
        for n in normals:
            amin, amax = project(a, n)
            bmin, bmax = project(b, n)
            push_pos = bmax - amin  # move A along +n by this to separate
            push_neg = amax - bmin
            if push_pos < best:
                best, best_axis = push_pos, n
            if push_neg < best:
                best, best_axis = push_neg, -n
    return best, best_axis


# -- numbers in every container -----------------------------------------------------------------
#
# A user may hand the engine a number as any of numpy's scalar types, a Fraction or a 0-d
# array, and a vector or a vertex list as lists, tuples or arrays of any width, byte order,
# layout and writability. Each ``present_*`` function shows a valid value in one of those
# forms and returns what the engine must read from it (the same call with the canonical float64
# value must give the same answer, bit for bit), or shows a hostile form and returns None (the
# call must be refused, naming the argument).

#: Hostile scalars, whatever value they stand for: bools, complex numbers, text, containers,
#: integers beyond float64 (one too long to print), a long double beyond float64, NaN and
#: infinities in narrow types.
HOSTILE_SCALARS: tuple[Callable[[float], Any], ...] = (
    lambda x: True,
    lambda x: np.bool_(False),
    lambda x: complex(x, 0.0),
    lambda x: np.complex128(x),
    lambda x: str(x),
    lambda x: str(x).encode(),
    lambda x: None,
    lambda x: [x],
    lambda x: (x,),
    lambda x: np.array([x]),
    lambda x: {x},
    lambda x: {"x": x},
    lambda x: object(),
    lambda x: 10**400,
    lambda x: -(10**5000),
    lambda x: np.longdouble("1e4000"),
    lambda x: np.float16("inf"),
    lambda x: np.float32("nan"),
    lambda x: np.array(math.inf, dtype=">f8"),
)


def present_scalar(rng: np.random.Generator, x: float, hostile: bool) -> tuple[Any, float | None]:
    """``x`` (a finite float) as one of the number forms a user may pass, and the float the
    engine must read from it (None: the form must be refused; so must a value that is not
    finite in the narrower type it was given as)."""
    if hostile:
        return HOSTILE_SCALARS[int(rng.integers(0, len(HOSTILE_SCALARS)))](x), None
    forms: list[Callable[[], Any]] = [
        lambda: x,
        lambda: np.float64(x),
        lambda: np.float32(x),
        lambda: np.float16(x),
        lambda: np.longdouble(x),
        lambda: Fraction(x),
        lambda: np.array(x),
        lambda: np.array(x, dtype=">f8"),
        lambda: np.array(x, dtype=np.float32),
    ]
    if x == int(x) and abs(x) < 2**62:
        forms += [lambda: int(x), lambda: np.int64(x), lambda: np.array(int(x))]
        if 0 <= x < 256:
            forms.append(lambda: np.uint8(x))
    with np.errstate(over="ignore"):
        value = forms[int(rng.integers(0, len(forms)))]()
        read = float(value)
    return value, read if math.isfinite(read) else None


def _array_forms(a: np.ndarray) -> list[Callable[[], Any]]:
    """The forms of a float64 array ``a`` a user may pass (each reads as ``a`` in the type it
    is given as)."""
    forms: list[Callable[[], Any]] = [
        lambda: a.tolist(),
        lambda: tuple(map(tuple, a.tolist())) if a.ndim == 2 else tuple(a.tolist()),
        lambda: a.copy(),
        lambda: a.astype(np.float32),
        lambda: a.astype(np.float16),
        lambda: a.astype(">f8"),
        lambda: a.astype(np.longdouble),
        lambda: _readonly(a.copy()),
        lambda: _strided(a),
        lambda: np.asfortranarray(a),
        lambda: a.astype(object),
        lambda: [np.float32(v) for v in a.ravel()] if a.ndim == 1 else [np.asarray(row) for row in a],
        lambda: (
            [Fraction(v) for v in a.tolist()]
            if a.ndim == 1
            else [tuple(map(Fraction, r)) for r in a.tolist()]
        ),
    ]
    if np.all(a == np.round(a)) and np.abs(a).max(initial=0.0) < 2**31:
        forms += [
            lambda: a.astype(np.int64),
            lambda: a.astype(np.int32),
            lambda: np.round(a).astype(int).tolist(),
        ]
    return forms


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _strided(a: np.ndarray) -> np.ndarray:
    """``a`` as a non-contiguous view (every other element of a larger array)."""
    big = np.zeros((2 * a.shape[0], *a.shape[1:]))
    big[::2] = a
    return big[::2]


#: Hostile vector and array forms (whatever values they stand for).
HOSTILE_ARRAYS: tuple[Callable[[np.ndarray], Any], ...] = (
    lambda a: a.astype(bool),
    lambda a: a.astype(complex),
    lambda a: a.astype(str),
    lambda a: [str(v) for v in a.ravel()],
    lambda a: a.ravel()[:1].tolist(),
    lambda a: a.ravel().tolist() + [1.0, 2.0, 3.0],
    lambda a: [a.tolist()],
    lambda a: a.reshape(-1, 1).tolist(),
    lambda a: [a.ravel()[:1].tolist(), a.ravel()[1:].tolist()],
    lambda a: np.array(1.5),
    lambda a: None,
    lambda a: {},
    lambda a: "xy",
    lambda a: set(a.ravel().tolist()),
    lambda a: (v for v in a.ravel()),
    lambda a: [*a.ravel()[:-1].tolist(), None],
    lambda a: [*a.ravel()[:-1].tolist(), 10**400],
    lambda a: [*a.ravel()[:-1].tolist(), math.nan],
    lambda a: np.array([*a.ravel()[:-1].tolist(), math.inf]),
    lambda a: np.array([*a.ravel()[:-1].tolist(), {}], dtype=object),
    lambda a: {"x": 1.0, "y": 2.0},
    lambda a: [[[[[[[[a.ravel().tolist()]]]]]]]],
)


def present_array(rng: np.random.Generator, a: np.ndarray, hostile: bool) -> tuple[Any, np.ndarray | None]:
    """The float64 array ``a`` (a vector ``(2,)`` or vertices ``(k, 2)``) in one of the forms a
    user may pass, and the array the engine must read from it (None when the form must be
    refused, or when a value is not finite in the narrower type it was given as)."""
    if hostile:
        return HOSTILE_ARRAYS[int(rng.integers(0, len(HOSTILE_ARRAYS)))](a), None
    forms = _array_forms(a)
    with np.errstate(over="ignore"):
        value = forms[int(rng.integers(0, len(forms)))]()
        as_given = np.asarray(value)
        read = (as_given if as_given.dtype != object else np.array(value, dtype=float)).astype(np.float64)
    return value, read if np.isfinite(read).all() else None


# -- comparing answers and worlds ------------------------------------------------------------


def same(x: Any, y: Any) -> bool:
    """Whether two answers of the engine are identical: arrays bit for bit (dtype and shape
    too), dataclasses and named results field by field, floats exactly (and never NaN)."""
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return (
            isinstance(x, np.ndarray)
            and isinstance(y, np.ndarray)
            and x.dtype == y.dtype
            and x.shape == y.shape
            and x.tobytes() == y.tobytes()
        )
    if isinstance(x, float) or isinstance(y, float):
        return type(x) is type(y) and x == y
    if isinstance(x, list | tuple):
        return type(x) is type(y) and len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
    if hasattr(x, "__dataclass_fields__"):
        return type(x) is type(y) and all(same(getattr(x, f), getattr(y, f)) for f in x.__dataclass_fields__)
    if hasattr(x, "vertices") and hasattr(y, "vertices"):  # Polygon
        return same(x.vertices, y.vertices)
    return bool(x == y)


def deep_state(obj: Any, _seen: dict[int, Any] | None = None) -> Any:
    """Everything an object holds, recursively (its ``__dict__``, slots, containers, arrays as
    dtype, shape and bytes), as one comparable value: a world's bodies, forces, settings,
    contacts and solver caches. Lazily made views are read as they are stored, not made."""
    seen: dict[int, Any] = {} if _seen is None else _seen  # keeps what it saw alive: ids stay unique
    if isinstance(obj, np.ndarray):
        return ("array", str(obj.dtype), obj.shape, np.ascontiguousarray(obj).tobytes())
    if obj is None or isinstance(obj, bool | int | float | str | bytes | complex | np.generic):
        return repr(obj)
    if id(obj) in seen:
        return "<seen>"
    seen[id(obj)] = obj
    if isinstance(obj, dict):
        items = sorted(obj.items(), key=lambda kv: repr(kv[0]))
        return ("dict", tuple((repr(k), deep_state(v, seen)) for k, v in items))
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, tuple(deep_state(v, seen) for v in obj))
    fields = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(obj, slot):
                fields[slot] = getattr(obj, slot)
    return (type(obj).__name__, deep_state(fields, seen))


def public_state(world: Any) -> tuple:
    """What a user can read of a world: every body array, the step's contacts, counters,
    gravity and the solver settings (two worlds built alike must agree on it bit for bit; their
    solvers' scratch buffers need not)."""
    names = ("position", "angle", "velocity", "angular_velocity", "force", "torque", "mass", "inertia",
             "static", "kinematic", "sleeping", "roots", "local_vertices", "vertex_count", "radius",
             "body_friction", "body_restitution", "body_static_friction", "fixed_rotation")  # fmt: skip
    arrays = tuple(deep_state(np.asarray(getattr(world, n))) for n in names)
    c = world.contacts
    contact_names = ("body_a", "body_b", "point_a", "point_b", "normal", "separation", "toi",
                     "normal_impulse", "tangent_impulse", "state")  # fmt: skip
    contacts = tuple(deep_state(np.asarray(getattr(c, n))) for n in contact_names)
    settings = deep_state(world.settings)
    return (world.body_count, world.time, world.step_count, world.solver, world.continuous,
            deep_state(world.gravity), arrays, contacts, settings)  # fmt: skip


__all__ = [
    "GeometryError",
    "HOSTILE_NUMBERS",
    "MAY_FAIL",
    "MUST_FAIL",
    "MUST_PASS",
    "SETTINGS",
    "ShapeCase",
    "FOCUS",
    "SEEDS",
    "make_shape",
    "call",
    "count",
    "distance_to_shape",
    "expect_refusal",
    "extent",
    "finite_number",
    "finite_vector",
    "fuzz_report",
    "hostile_shape",
    "magnitude",
    "names_argument",
    "project",
    "sat_depth",
    "valid_shape",
]
