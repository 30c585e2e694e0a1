"""Independent answers for the SAT tests (no code of collision.sat is used here).

A moved by ``s`` touches B exactly when ``s`` lies in the configuration obstacle
``D = B - A = hull{b_j - a_i}``. So: the shapes overlap when the origin is in ``D``; the
minimum push is the nearest point of D's boundary; A moving by ``v t`` first touches B at
the smallest ``t`` with ``v t`` in ``D``. The hull is built here with a monotone chain, and
the first time is found by clipping the ray against D's edges.

Also: random convex shapes from a seed, shared by the test modules.
"""

from __future__ import annotations

import math

import numpy as np


def convex_hull(points: np.ndarray) -> np.ndarray:
    """CCW hull of ``(n, 2)`` points without collinear points (monotone chain)."""
    pts = sorted({(float(x), float(y)) for x, y in points})
    if len(pts) <= 2:
        return np.array(pts, dtype=float)

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], dtype=float)


def obstacle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hull of ``B - A``: the offsets of A at which it touches B."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    return convex_hull((b[None, :, :] - a[:, None, :]).reshape(-1, 2))


def _edges(d: np.ndarray) -> list[tuple[np.ndarray, float, np.ndarray, np.ndarray]]:
    """Edges of a CCW polygon as (outward unit normal u, offset c with u.x <= c inside, p, q)."""
    out = []
    for i in range(len(d)):
        p, q = d[i], d[(i + 1) % len(d)]
        e = q - p
        u = np.array([e[1], -e[0]]) / math.hypot(e[0], e[1])
        out.append((u, float(u @ p), p, q))
    return out


def _point_segment_distance(x: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    e = q - p
    s = 0.0 if not e.any() else float(np.clip((x - p) @ e / (e @ e), 0.0, 1.0))
    return float(np.linalg.norm(x - (p + s * e)))


def signed_distance(x: np.ndarray, d: np.ndarray) -> float:
    """Signed distance from point ``x`` to the convex set ``d`` (negative inside)."""
    if len(d) == 1:
        return float(np.linalg.norm(x - d[0]))
    if len(d) == 2:
        return _point_segment_distance(x, d[0], d[1])
    edges = _edges(d)
    inside = max(float(u @ x) - c for u, c, _, _ in edges)
    if inside <= 0.0:
        return inside
    return min(_point_segment_distance(x, p, q) for _, _, p, q in edges)


def penetration(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray] | None:
    """``(depth, push)`` with ``a + push`` just touching b, or None if they are apart."""
    d = obstacle(a, b)
    if len(d) < 3:
        return (0.0, np.zeros(2)) if signed_distance(np.zeros(2), d) == 0.0 else None
    edges = _edges(d)
    worst = max(edges, key=lambda e: -e[1])  # smallest c: nearest edge line
    u, c, _, _ = worst
    if c < 0.0:
        return None
    return c, c * u


def first_contact(a: np.ndarray, b: np.ndarray, v: np.ndarray, t_max: float) -> float | None:
    """Smallest ``t`` in ``[0, t_max]`` with ``v t`` in ``B - A`` (polygon obstacles)."""
    d = obstacle(a, b)
    assert len(d) >= 3, "oracle handles polygon obstacles only"
    t0, t1 = 0.0, t_max
    for u, c, _, _ in _edges(d):
        speed = float(u @ v)
        if speed == 0.0:
            if c < 0.0:
                return None
            continue
        t = c / speed
        if speed > 0.0:
            t1 = min(t1, t)
        else:
            t0 = max(t0, t)
    return t0 if t0 <= t1 else None


def random_convex(rng: np.random.Generator, k: int, radius: float = 1.0) -> np.ndarray:
    """A random strictly convex CCW polygon (or point, segment) of ``k`` vertices."""
    centre = rng.uniform(-2.0, 2.0, size=2)
    if k == 1:
        return centre[None, :].copy()
    if k == 2:
        angle = rng.uniform(0.0, 2.0 * math.pi)
        half = radius * rng.uniform(0.3, 1.0) * np.array([math.cos(angle), math.sin(angle)])
        return np.array([centre - half, centre + half])
    gaps = rng.uniform(0.3, 1.0, size=k)
    angles = np.cumsum(gaps) / gaps.sum() * 2.0 * math.pi + rng.uniform(0.0, 2.0 * math.pi)
    squash = rng.uniform(0.4, 1.0)
    local = np.stack([np.cos(angles), squash * np.sin(angles)], axis=1) * radius * rng.uniform(0.3, 1.0)
    turn = rng.uniform(0.0, 2.0 * math.pi)
    c, s = math.cos(turn), math.sin(turn)
    return centre + local @ np.array([[c, s], [-s, c]])


def rotate(points: np.ndarray, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.asarray(points, dtype=float) @ np.array([[c, s], [-s, c]])
