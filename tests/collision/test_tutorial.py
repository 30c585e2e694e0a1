"""The "tutorial" solver (Tutorial 7) against exact answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, World
from collision.solvers.impulses import block_normal_impulses


def _drop_rebound_ratio(e: float, drop: float = 2.0, dt: float = 1 / 120) -> float:
    """Height reached after the first bounce over the drop height (bottom face above ground)."""
    w = World(solver="tutorial", restitution=e, friction=0.0, gravity=(0.0, -10.0))
    w.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    box = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5 + drop))
    rising = False
    peak = -math.inf
    for _ in range(int(4.0 / dt)):
        w.step(dt)
        vy = w.velocity[box, 1]
        if vy > 0.0:
            rising = True
        if rising:
            peak = max(peak, w.position[box, 1] - 0.5)
            if vy < 0.0:
                break
    assert rising, "the box never bounced"
    # A flat box lands flat: no spin, no sideways drift.
    assert abs(w.angle[box]) < 1e-9 and abs(w.position[box, 0]) < 1e-9
    return peak / drop


@pytest.mark.parametrize("e", [0.5, 0.8])
def test_drop_rebounds_to_e_squared_of_height(e: float) -> None:
    assert _drop_rebound_ratio(e) == pytest.approx(e * e, rel=0.05)


def test_equal_boxes_head_on_elastic_swap_velocities() -> None:
    w = World(gravity=(0.0, 0.0), solver="tutorial", restitution=1.0, friction=0.0)
    a = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), velocity=(3.0, 0.0))
    b = w.add_body(Polygon.box(1.0, 1.0), (2.0, 0.0), velocity=(-1.0, 0.0))
    for _ in range(60):
        w.step(1 / 60)
    assert w.velocity[a] == pytest.approx([-1.0, 0.0], abs=1e-12)
    assert w.velocity[b] == pytest.approx([3.0, 0.0], abs=1e-12)
    assert w.angular_velocity == pytest.approx([0.0, 0.0], abs=1e-12)
    # They never overlapped: the gap closed at the time of impact, inside a step.
    assert w.position[b, 0] - w.position[a, 0] > 1.0 - 1e-9


def _random_shape(rng: np.random.Generator) -> Polygon:
    n = int(rng.integers(1, 9))
    if n == 1:
        return Polygon([(0.0, 0.0)])
    if n == 2:
        return Polygon([(-float(rng.uniform(0.3, 1.0)), 0.0), (float(rng.uniform(0.3, 1.0)), 0.0)])
    return Polygon.blob(n, float(rng.uniform(0.4, 1.2)), float(rng.uniform(0.4, 1.2)))


def test_linear_momentum_conserved_in_free_collisions() -> None:
    """No static bodies, no gravity: off-centre hits, rotation, friction, restitution."""
    collided = sum(_momentum_run(seed) for seed in range(12))
    assert collided >= 10, "most of the runs should have had collisions"


def _momentum_run(seed: int) -> bool:
    rng = np.random.default_rng(seed)
    w = World(
        gravity=(0.0, 0.0),
        solver="tutorial",
        friction=float(rng.uniform(0.0, 1.0)),
        restitution=float(rng.uniform(0.0, 1.0)),
        static_friction=float(rng.uniform(0.0, 1.0)),
    )
    count = 2 + seed % 3
    centre = 1.5 * (count - 1)
    for k in range(count):
        w.add_body(
            _random_shape(rng),
            (3.0 * k, float(rng.uniform(-0.6, 0.6))),  # off-centre
            angle=float(rng.uniform(-math.pi, math.pi)),
            velocity=(1.5 * (centre - 3.0 * k) + float(rng.uniform(-1, 1)), float(rng.uniform(-0.5, 0.5))),
            angular_velocity=float(rng.uniform(-3, 3)),
            density=float(rng.uniform(0.5, 3.0)),
        )
    p0 = w.momentum()
    scale = float(np.sum(w.mass * np.linalg.norm(w.velocity, axis=1)))
    hits = 0
    for _ in range(120):
        w.step(1 / 60)
        hits += len(w.contacts)
        assert np.linalg.norm(w.momentum() - p0) <= 1e-9 * scale
    return hits > 0


def test_friction_never_reverses_sliding() -> None:
    """A box thrown along the floor slows down at mu g and stops where Coulomb says; its
    sliding never reverses (the original's unclamped friction could)."""
    w = World(solver="tutorial", friction=0.9, restitution=0.0, static_friction=0.0)
    w.add_body(Polygon.box(50.0, 1.0), (0.0, -0.5), static=True)
    box = w.add_body(Polygon.box(1.0, 1.0), (-20.0, 0.5), velocity=(6.0, 0.0))
    dt = 1 / 60
    vx = [6.0]
    while vx[-1] > 0.2:
        w.step(dt)
        vx.append(float(w.velocity[box, 0]))
        # Sliding flat: each step removes exactly mu g dt, the box does not tip.
        assert vx[-2] - vx[-1] == pytest.approx(0.9 * 10.0 * dt, rel=1e-9)
        assert abs(w.angle[box]) < 1e-9
    stopped_at = float(w.position[box, 0])
    for _ in range(120):
        w.step(dt)
        assert w.velocity[box, 0] > -0.1
    # Stopping distance v^2 / (2 mu g) = 2 units (plus the last fraction of a step).
    assert w.position[box, 0] == pytest.approx(-18.0, abs=0.1)
    assert abs(w.position[box, 0] - stopped_at) < 0.05


def _slope_run(static_friction: float, seconds: float = 2.0) -> float:
    theta = math.radians(30.0)
    normal = np.array([-math.sin(theta), math.cos(theta)])
    w = World(solver="tutorial", friction=0.3, restitution=0.0, static_friction=static_friction)
    w.add_body(Polygon.box(30.0, 1.0), -0.5 * normal, angle=theta, static=True)
    box = w.add_body(Polygon.box(1.0, 1.0), 0.5 * normal, angle=theta)
    start = w.position[box].copy()
    for _ in range(int(seconds * 60)):
        w.step(1 / 60)
    return float(np.linalg.norm(w.position[box] - start))


def test_box_on_30_degree_slope_with_static_friction_stays_put() -> None:
    # tan(30) = 0.577 < 0.8: the invisible step holds the box.
    assert _slope_run(0.8) < 0.02
    # Without static friction, dynamic friction 0.3 < tan(30) lets it slide: a ~ g (sin - 0.3 cos).
    slid = _slope_run(0.0)
    expected = 0.5 * 10.0 * (0.5 - 0.3 * math.cos(math.radians(30.0))) * 4.0
    assert slid == pytest.approx(expected, rel=0.15)


def test_fast_box_stops_at_thin_wall() -> None:
    w = World(gravity=(0.0, 0.0), solver="tutorial", restitution=0.0, friction=0.0)
    w.add_body(Polygon.box(0.1, 4.0), (5.0, 0.0), static=True)
    box = w.add_body(Polygon.box(0.1, 0.1), (0.0, 0.0), velocity=(500.0, 0.0))
    for _ in range(30):
        w.step(1 / 60)
        assert w.position[box, 0] <= 4.9 + 1e-9
    assert w.position[box, 0] == pytest.approx(4.9, abs=1e-9)
    assert w.velocity[box] == pytest.approx([0.0, 0.0], abs=1e-9)


def test_overlap_pushed_apart_by_inverse_mass_ratio() -> None:
    w = World(gravity=(0.0, 0.0), solver="tutorial", restitution=0.0, friction=0.0)
    light = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), density=1.0)
    heavy = w.add_body(Polygon.box(1.0, 1.0), (0.8, 0.0), density=3.0)
    w.step(1 / 60)
    # depth 0.2, two contact pairs each removing half of it: 3/4 to the light box, 1/4 to the heavy.
    assert w.position[light] == pytest.approx([-0.15, 0.0], abs=1e-12)
    assert w.position[heavy] == pytest.approx([0.85, 0.0], abs=1e-12)
    assert len(w.contacts) == 2
    assert w.contacts.separation == pytest.approx([-0.2, -0.2])


def test_tilted_box_corner_hit_impulse_with_rotation() -> None:
    """Seed 004 eq. 3 on a tilted box landing on one corner, checked against the closed form for one
    contact point: the normal velocity there after the hit is -e times before."""
    e = 0.5
    w = World(gravity=(0.0, 0.0), solver="tutorial", restitution=e, friction=0.0, static_friction=0.0)
    w.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    # A tilted box whose lowest corner touches the ground first.
    angle = 0.3
    box = Polygon.box(2.0, 1.0)
    bid = w.add_body(box, (0.0, 3.0), angle=angle, velocity=(0.0, -4.0), angular_velocity=0.0)
    corner = w.vertices(bid)[np.argmin(w.vertices(bid)[:, 1])]
    w.position[bid, 1] -= corner[1] - 0.05  # lowest corner 0.05 above the ground
    corner = w.vertices(bid)[np.argmin(w.vertices(bid)[:, 1])]
    r = corner - w.position[bid]
    m, inertia = w.mass[bid], w.inertia[bid]
    vn_before = -4.0
    k = 1.0 / m + (r[0] ** 2) / inertia  # (r x n)^2 with n = (0, 1)
    j = -(1.0 + e) * vn_before / k
    w.step(0.1)  # hits at t = 0.0125
    assert len(w.contacts) == 1
    assert w.contacts.toi[0] == pytest.approx(0.05 / 4.0)
    assert w.contacts.normal_impulse[0] == pytest.approx(j, rel=1e-9)
    assert w.velocity[bid, 1] == pytest.approx(vn_before + j / m, rel=1e-9)
    assert w.angular_velocity[bid] == pytest.approx(r[0] * j / inertia, rel=1e-9)


def test_block_solver_cases() -> None:
    # Symmetric, both approaching: equal impulses.
    ok, j1, j2 = block_normal_impulses(-3.0, -3.0, 2.0, 1.0, 2.0)
    assert ok and j1 == pytest.approx(1.0) and j2 == pytest.approx(1.0)
    # Point 2 separating fast: only point 1 pushes, and point 2 stays separating.
    ok, j1, j2 = block_normal_impulses(-2.0, 5.0, 2.0, 1.0, 2.0)
    assert ok and j1 == pytest.approx(1.0) and j2 == 0.0
    # Both separating: nothing.
    ok, j1, j2 = block_normal_impulses(1.0, 1.0, 2.0, 1.0, 2.0)
    assert ok and (j1, j2) == (0.0, 0.0)
    # Singular (the two points act as one): refused.
    ok, _, _ = block_normal_impulses(-1.0, -1.0, 1.0, 1.0, 1.0)
    assert not ok
