"""Shared pieces of the hostile-input fuzz suite (tests/collision/test_fuzz_*.py).

No tests live here. It holds:

- ``SETTINGS(n)``: the reproducible hypothesis profile every fuzz test uses (derandomized, no
  example database, no deadline), so CI runs the same cases every time.
- a session counter of generated cases: every public call made with generated input counts
  one. Each fuzz module prints its count and the running total when it finishes (look for
  ``[fuzz]`` in the pytest output).
- hostile shape strategies that say whether the input MUST be refused, MAY be refused (valid
  in exact arithmetic but not representable, e.g. a 1e-9 shape at 1e9) or must be accepted.
- cheap geometric checks used as oracles (projections, point-in-convex with tolerance).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from collision import MAX_VERTICES, GeometryError

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


def count(kind: str, n: int = 1) -> None:
    """Record ``n`` generated calls of ``kind`` (a public function name)."""
    _COUNTS[kind] = _COUNTS.get(kind, 0) + n


def total() -> int:
    return sum(_COUNTS.values())


def counts() -> dict[str, int]:
    return dict(_COUNTS)


@pytest.fixture(scope="module", autouse=True)
def fuzz_report(request: pytest.FixtureRequest) -> Any:
    """Print how many generated cases the module ran (import this into every fuzz module)."""
    before = dict(_COUNTS)
    yield
    mine = {k: v - before.get(k, 0) for k, v in _COUNTS.items() if v - before.get(k, 0)}
    line = (
        f"[fuzz] {request.module.__name__.rsplit('.', 1)[-1]}: {sum(mine.values())} cases "
        f"({', '.join(f'{k} {v}' for k, v in sorted(mine.items()))}); session total {total()}"
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

SCALES = (1e-9, 1e-6, 1e-3, 0.5, 1.0, 3.0, 50.0, 1e3, 1e6, 1e9)
OFFSETS = (0.0, 1e-9, 1.0, 10.0, 1e3, 1e6, 1e9)


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


def valid_shape(rng: np.random.Generator, kind: str | None = None, scales: tuple = SCALES) -> ShapeCase:
    """A point, segment or convex polygon at a hostile scale and place; maybe clockwise."""
    kind = kind or str(rng.choice(VALID_KINDS))
    scale = float(rng.choice(scales))
    mag = float(rng.choice(OFFSETS))
    direction = rng.uniform(0.0, 2.0 * math.pi)
    offset = mag * np.array([math.cos(direction), math.sin(direction)])
    # A shape much smaller than its distance from the origin loses its vertices to rounding.
    outcome = MUST_PASS if mag <= 1e4 * scale else MAY_FAIL
    if kind == "point":
        pts = np.zeros((1, 2))
    elif kind == "segment":
        a = rng.uniform(0.0, 2.0 * math.pi)
        pts = 0.5 * scale * np.array([[math.cos(a), math.sin(a)], [-math.cos(a), -math.sin(a)]])
    else:
        pts = ellipse(rng, int(rng.integers(3, MAX_VERTICES + 1)), scale)
        if rng.random() < 0.5:
            pts = pts[::-1]  # clockwise input is accepted
    return ShapeCase((pts + offset).tolist(), outcome, kind)


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
)


def finite_number(x: Any) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def finite_vector(v: Any) -> bool:
    try:
        a = np.array(v, dtype=np.float64)
    except (TypeError, ValueError):
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
