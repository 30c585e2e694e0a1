"""Hostile input, class ``magnitudes``: shapes and motions from denormal to near the limits.

Many shapes at once (points, segments, convex polygons), sized from 5e-324 to 4e11 units and
placed from the origin to 5e11 units out, are judged by the shape rule one by one (a shape
whose smallest feature is well above the documented limit must be accepted, one well below it
refused; the oracle measures features here, without the engine), then the accepted ones are
paired and run through the batch face in both argument orders: every answer finite, the two
orders agreeing (hit, depth, opposite normals), normals of unit length, times within the step.
Generated with numpy in bulk, so this class reaches its case count in seconds.
"""

from __future__ import annotations

import numpy as np

from collision import MAX_VERTICES, Shapes, find_mtd_many, sweep_many
from collision.checks import shape_status
from collision.tolerances import FEATURE_RELATIVE_SIZE, MAX_COORDINATE, MAX_SWEEP_SPEED, MIN_FEATURE_SIZE
from tests.collision.test_fuzz_common import count, fuzz_report  # noqa: F401 (module fixture)

SIZES = np.array(
    [5e-324, 1e-310, 1e-300, 1e-160, 1e-60, 1e-50, 1e-45, 1e-12, 1e-6, 1e-3, 1.0, 50.0, 1e3, 1e6, 1e9, 4e11]
)
PLACES = np.array([0.0, 1e-300, 1e-9, 1.0, 1e3, 1e6, 1e9, 5e11])
SHAPES_PER_COUNT = 6000  # per vertex count 1 .. MAX_VERTICES


def _shapes(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """``n`` shapes of ``k`` vertices ``(n, k, 2)``: points on ellipses at sorted random angles
    (convex, either orientation), or a segment, at random sizes and places."""
    size = rng.choice(SIZES, n) * rng.uniform(0.5, 2.0, n)
    aspect = rng.choice([1.0, 0.5, 1e-3, 1e-8], n)
    angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, (n, k)), axis=1) if k > 2 else rng.uniform(0, 6.3, (n, k))
    if k == 2:
        angles[:, 1] = angles[:, 0] + np.pi
    turn = rng.uniform(0.0, 2.0 * np.pi, n)
    x = np.cos(angles) * size[:, None]
    y = np.sin(angles) * (size * aspect)[:, None]
    c, s = np.cos(turn)[:, None], np.sin(turn)[:, None]
    where = rng.choice(PLACES, n) * rng.uniform(0.5, 1.0, n)
    direction = rng.uniform(0.0, 2.0 * np.pi, n)
    v = np.stack(
        [
            c * x - s * y + (where * np.cos(direction))[:, None],
            s * x + c * y + (where * np.sin(direction))[:, None],
        ],
        axis=2,
    )
    flip = rng.random(n) < 0.5
    v[flip] = v[flip, ::-1]  # clockwise: accepted and reordered
    return v


def _smallest_feature(v: np.ndarray) -> np.ndarray:
    """Shortest edge or narrowest width of each shape ``(n, k, 2)``, by the oracle's own
    arithmetic (``inf`` for points)."""
    n, k, _ = v.shape
    if k == 1:
        return np.full(n, np.inf)
    edges = (np.roll(v, -1, axis=1) - v)[:, : k if k > 2 else 1]
    lengths = np.hypot(edges[..., 0], edges[..., 1])
    if k == 2:
        return lengths[:, 0]
    rel = v[:, None, :, :] - v[:, :, None, :]  # rel[:, i, j] = v_j - v_i
    across = np.abs(edges[:, :, None, 0] * rel[..., 1] - edges[:, :, None, 1] * rel[..., 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        width = (across.max(axis=2) / lengths).min(axis=1)
    return np.minimum(lengths.min(axis=1), np.nan_to_num(width, nan=0.0))


def _oracle(v: np.ndarray) -> np.ndarray:
    """+1: must be accepted, -1: must be refused, 0: either (near the limit, or a polygon whose
    vertices rounding may have made collinear)."""
    reach = np.abs(v).max(axis=(1, 2))
    limit = np.maximum(MIN_FEATURE_SIZE, FEATURE_RELATIVE_SIZE * reach)
    size = _smallest_feature(v)
    verdict = np.where(size >= 2.0 * limit, 1, np.where(size < 0.5 * limit, -1, 0))
    if v.shape[1] > 2:
        verdict[verdict == 1] = 0  # convexity is the engine's call (nearly collinear vertices)
        verdict[(size >= 1e-3 * reach) & (size >= 2.0 * limit)] = 1  # well-rounded: must pass
    verdict[reach > MAX_COORDINATE] = -1
    return verdict


def test_shape_rule_and_batch_answers_across_magnitudes() -> None:
    rng = np.random.default_rng(20261124)
    accepted: list[np.ndarray] = []
    for k in range(1, MAX_VERTICES + 1):
        v = _shapes(rng, k, SHAPES_PER_COUNT)
        verdict = _oracle(v)
        status = np.array([shape_status(s) for s in v])
        wrong = ((verdict == 1) & (status == 0)) | ((verdict == -1) & (status != 0))
        assert not wrong.any(), (
            f"{k} vertices: shape {v[np.argmax(wrong)].tolist()} judged {status[np.argmax(wrong)]}"
        )
        count("magnitudes: shape rule", len(v))
        accepted += [s for s, ok in zip(v, status != 0, strict=True) if ok]
    shapes = Shapes(accepted)
    n = len(shapes)
    order = rng.permutation(n)
    a, b = shapes, shapes[order]
    ab, ba = find_mtd_many(a, b), find_mtd_many(b, a)
    count("magnitudes: find_mtd_many pair", 2 * n)
    for r in (ab, ba):
        assert np.isfinite(r.depth).all() and np.isfinite(r.normal).all() and (r.depth >= 0.0).all()
        assert np.allclose(np.hypot(*r.normal[r.hit].T), 1.0, rtol=0.0, atol=1e-12)
    assert (ab.hit == ba.hit).all(), "swapping A and B changed whether a pair overlaps"
    assert (ab.depth == ba.depth).all(), "swapping A and B changed a depth"
    same_shape = (a.vertex_count == b.vertex_count) & (a.vertices == b.vertices).all(axis=(1, 2))
    flipped = (ab.normal == -ba.normal).all(axis=1) | same_shape | ~ab.hit
    assert flipped.all(), f"normals not opposite for pair {int(np.argmin(flipped))}"
    speed = rng.choice([0.0, 1e-300, 1e-9, 1.0, 1e9, 1e100, MAX_SWEEP_SPEED], n) * rng.uniform(0.0, 1.0, n)
    turn = rng.uniform(0.0, 2.0 * np.pi, n)
    velocity = np.stack([speed * np.cos(turn), speed * np.sin(turn)], axis=1)
    for t_max in (1e-9, 1.0, 1e12):
        r = sweep_many(a, b, velocity, t_max)
        count("magnitudes: sweep_many pair", n)
        assert np.isfinite(r.t).all() and np.isfinite(r.normal).all() and np.isfinite(r.depth).all()
        assert ((r.t >= 0.0) & (r.t <= t_max)).all() and (r.depth >= 0.0).all()
        assert np.allclose(np.hypot(*r.normal[r.hit].T), 1.0, rtol=0.0, atol=1e-12)
