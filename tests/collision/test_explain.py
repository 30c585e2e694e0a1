"""collision.explain: the figures' numbers are the engine's answers (the chosen axis is
find_mtd's, the time of impact sweep's, the replayed step the world's step), and exact on cases
with closed-form answers."""

from __future__ import annotations

import numpy as np
import pytest

from collision import Polygon, World, contact_points, explain, find_mtd, intersect, sweep
from tests.collision.test_sat_oracle import random_convex


def box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


# ---- separating axes (Tutorials 1-3) ------------------------------------------------------------


def test_overlapping_boxes_every_axis_and_the_mtd() -> None:
    a = box(0, 0, 2, 2)
    b = box(1.5, 0.5, 3, 2.5)
    axes = explain.separating_axes(a, b)
    assert len(axes.gap) == 8
    assert axes.owner.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert axes.edge.tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    # A's bottom edge (0 -> 1) has outward normal (0, -1); oriented from B toward A: (0, 1).
    np.testing.assert_array_equal(axes.normal[0], [0.0, 1.0])
    np.testing.assert_array_equal(axes.interval_a[0], [0.0, 2.0])
    np.testing.assert_array_equal(axes.interval_b[0], [0.5, 2.5])
    # A's right face and B's left face lie on one line (normal (-1, 0)) and overlap by 0.5: the
    # MTD, pushing A left; the engine keeps the first of equal overlaps, A's face.
    assert axes.first_separating == -1
    assert axes.gap[1] == axes.gap[7] == -0.5
    assert axes.owner[axes.chosen] == 0 and axes.edge[axes.chosen] == 1
    np.testing.assert_allclose(axes.push[axes.chosen], [-0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(axes.push[axes.chosen], find_mtd(a, b), atol=1e-15)
    assert axes.depth == 0.5
    # Every push vector is at least as long as the chosen one.
    lengths = np.hypot(*axes.push[axes.gap <= 0].T)
    assert lengths.min() == pytest.approx(0.5)


def test_first_separating_axis_is_tutorial_order() -> None:
    # Apart along x only: A's right face (edge 1) is the first face that separates them.
    a = box(0, 0, 2, 2)
    b = box(3, 1, 5, 3)
    axes = explain.separating_axes(a, b)
    assert axes.first_separating == 1
    assert axes.gap[1] == pytest.approx(1.0)
    assert not axes.hit and axes.chosen == -1
    np.testing.assert_array_equal(explain.face_edge(a, 1), [[2, 0], [2, 2]])


def test_swept_boxes_entry_exit_and_time_of_impact() -> None:
    a = box(0, 0, 1, 1)
    b = box(3, 0, 4, 1)
    axes = explain.separating_axes(a, b, (4.0, 0.0))
    hit = sweep(a, b, (4.0, 0.0))
    assert axes.t == hit.t == 0.5
    assert axes.latest_entry == 0.5
    # A passes through B and leaves when its left face clears B's right face at t = 1.
    assert axes.earliest_exit == 1.0
    assert axes.enter[axes.chosen] == 0.5
    np.testing.assert_array_equal(axes.normal[axes.chosen], hit.normal)
    np.testing.assert_array_equal(axes.velocity_axis, [0.0, 1.0])
    np.testing.assert_array_equal(axes.velocity_interval_a, [0.0, 1.0])
    assert axes.stop == -1


def test_miss_shows_the_gap_between_entry_and_exit() -> None:
    # A heads for B but too slowly: its x faces close at t = 2, after the test's end t_max = 1.
    a = box(0, 0, 1, 1)
    b = box(3, 0.5, 4, 1.5)
    axes = explain.separating_axes(a, b, (1.0, 0.0))
    assert sweep(a, b, (1.0, 0.0)) is None and not axes.hit
    assert axes.latest_entry == 2.0 and axes.earliest_exit == 1.0
    assert axes.stop == 1  # A's right face, the first tested whose entry (2) passes t_max
    assert axes.chosen == -1


def test_velocity_axis_early_out() -> None:
    a = box(0, 0, 1, 1)
    b = box(3, 5, 4, 6)
    axes = explain.separating_axes(a, b, (4.0, 0.0))
    assert axes.stop == -2 and not axes.hit
    assert axes.velocity_interval_b[0] > axes.velocity_interval_a[1]


@pytest.mark.parametrize("seed", range(4))
def test_random_pairs_agree_with_the_engine(seed: int) -> None:
    """Thousands of random pairs, both argument orders: the chosen face gives find_mtd's push and
    sweep's normal and time; the early outs agree with intersect and sweep's misses."""
    rng = np.random.default_rng(seed)
    for _ in range(400):
        a = random_convex(rng, int(rng.integers(1, 9)))
        b = random_convex(rng, int(rng.integers(1, 9)))
        v = rng.uniform(-4, 4, size=2) if rng.random() < 0.7 else np.zeros(2)
        for p, q, w in ((a, b, v), (b, a, -v)):
            still = explain.separating_axes(p, q)
            assert (still.first_separating == -1) == intersect(p, q) or len(still.gap) == 0
            mtd = find_mtd(p, q)
            if mtd is not None and len(still.gap):
                assert still.chosen >= 0
                np.testing.assert_allclose(still.push[still.chosen], mtd, atol=1e-12)
            moving = explain.separating_axes(p, q, w)
            hit = sweep(p, q, w)
            assert moving.hit == (hit is not None)
            if hit is None:
                continue
            assert moving.t == hit.t and moving.depth == hit.depth
            np.testing.assert_array_equal(moving.hit_normal, hit.normal)
            if len(moving.gap):
                assert moving.stop == -1
                assert moving.chosen >= 0
                np.testing.assert_allclose(moving.normal[moving.chosen], hit.normal, atol=1e-9)
                if hit.t > 0:
                    assert moving.enter[moving.chosen] == pytest.approx(hit.t, abs=1e-12)
                    assert moving.latest_entry == pytest.approx(hit.t, abs=1e-12)
                    assert moving.latest_entry <= moving.earliest_exit


# ---- support points (Tutorial 6) ----------------------------------------------------------------


def test_support_point_edge_and_edge_edge() -> None:
    ground = box(-5, -1, 5, 0)
    tilted = Polygon.box(2.0, 1.0).rotated(0.4).translated((0.0, 2.0)).vertices
    hit = sweep(tilted, ground, (0.0, -4.0))
    s = explain.support_features(tilted, ground, hit.normal, hit.t, (0.0, -4.0))
    assert s.kind == "point-edge"
    assert len(s.pairs_a) == 1
    lowest = tilted[np.argmin(tilted[:, 1])] + np.array([0.0, -4.0]) * hit.t
    np.testing.assert_allclose(s.pairs_a[0], lowest, atol=1e-12)
    np.testing.assert_allclose(s.pairs_b[0], [lowest[0], 0.0], atol=1e-12)

    flat = box(-1, 0.5, 1, 1.5)
    hit = sweep(flat, ground, (0.0, -1.0))
    s = explain.support_features(flat, ground, hit.normal, hit.t, (0.0, -1.0))
    assert s.kind == "edge-edge"
    pairs = contact_points(flat, ground, hit, (0.0, -1.0))
    np.testing.assert_array_equal(s.pairs_a, [p for p, _ in pairs])
    np.testing.assert_array_equal(s.pairs_b, [q for _, q in pairs])


# ---- one tutorial step (Tutorial 7, seed 004) ---------------------------------------------------


def test_tilted_box_corner_hit_terms_are_seed_004() -> None:
    """The closed form for one contact point: K = 1/m + (r x n)^2 / I against a static ground."""
    e = 0.5
    w = World(gravity=(0.0, 0.0), solver="tutorial", restitution=e, friction=0.0, static_friction=0.0)
    w.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    bid = w.add_body(Polygon.box(2.0, 1.0), (0.0, 3.0), angle=0.3, velocity=(0.0, -4.0))
    corner = w.vertices(bid)[np.argmin(w.vertices(bid)[:, 1])]
    w.position[bid, 1] -= corner[1] - 0.05
    corner = w.vertices(bid)[np.argmin(w.vertices(bid)[:, 1])]
    r = corner - w.position[bid]
    m, inertia = w.mass[bid], w.inertia[bid]
    k = 1.0 / m + r[0] ** 2 / inertia
    j = -(1.0 + e) * -4.0 / k
    start = explain.snapshot(w, 0.1)
    w.step(0.1)
    trace = explain.tutorial_step(start)
    assert len(trace) == 1
    h = 0
    assert trace.count[h] == 1 and trace.t[h] == pytest.approx(0.0125)
    q = trace.points[h, 0]
    assert q[explain.steps.P_VN] == pytest.approx(-4.0)
    assert q[explain.steps.P_K] == pytest.approx(k, rel=1e-12)
    assert abs(q[explain.steps.P_RB_N]) == pytest.approx(abs(r[0]), rel=1e-12)  # A is the box
    assert trace.formula_impulse(h, 0) == pytest.approx(j, rel=1e-9)
    assert q[explain.steps.P_JN] == w.contacts.normal_impulse[0]
    dv = trace.after[h] - trace.before[h]
    assert dv[explain.steps.VBY] == pytest.approx(j / m, rel=1e-9)


def _pile(seed: int) -> World:
    rng = np.random.default_rng(seed)
    w = World(gravity=(0.0, -10.0), solver="tutorial", restitution=0.3, friction=0.4)
    w.add_body(Polygon.box(30.0, 1.0), (0.0, -0.5), static=True)
    w.add_body(Polygon.box(1.0, 10.0), (-6.0, 5.0), angle=0.2, static=True)
    for k in range(10):
        n = int(rng.integers(1, 7))
        shape = Polygon.blob(n, float(rng.uniform(0.6, 1.6)), float(rng.uniform(0.6, 1.6)))
        w.add_body(shape, (rng.uniform(-4, 4), 1.0 + 1.3 * k), angle=float(rng.uniform(0, 3)))
    return w


@pytest.mark.parametrize("continuous", [True, False])
def test_replayed_step_is_the_world_step(continuous: bool) -> None:
    """Every step of a falling pile: the replay ends where the world's own step ends, bit for bit,
    and its impulses are the world's contact rows."""
    w = _pile(3)
    w.continuous = continuous
    w.apply_force(4, (30.0, 0.0))
    hits = 0
    for _ in range(150):
        start = explain.snapshot(w, 1 / 60)
        w.step(1 / 60)
        trace = explain.tutorial_step(start)
        for name in ("position", "angle", "velocity", "angular_velocity"):
            np.testing.assert_array_equal(getattr(trace.bodies, name), getattr(w, name))
        c = w.contacts
        assert int(trace.count.sum()) == len(c)
        for h in range(len(trace)):
            for k in range(trace.count[h]):
                row = trace.first_row[h] + k
                assert c.body_a[row] == trace.body_a[h] and c.body_b[row] == trace.body_b[h]
                assert c.normal_impulse[row] == trace.points[h, k, explain.steps.P_JN]
                assert c.tangent_impulse[row] == trace.points[h, k, explain.steps.P_JT]
        hits += len(trace)
    assert hits > 100


# ---- the arcade solver's choice (seed 002) ------------------------------------------------------


def _landing(surface_rule: bool) -> tuple[World, int]:
    """A box landing across the seam of two flush boxes (0.1 on box 1, 0.9 on box 2 when it lands)."""
    w = World(gravity=(0.0, 0.0), solver="arcade", friction=0.0, restitution=0.0, static_friction=0.0)
    w.solver_settings("arcade").surface_rule = surface_rule
    for i in range(6):
        w.add_body(Polygon.box(1.0, 1.0), (i + 0.5, -0.5), static=True)
    player = w.add_body(Polygon.box(1.0, 1.0), (2.35, 0.55), velocity=(6.0, -6.0))
    return w, player


@pytest.mark.parametrize("surface_rule", [True, False])
def test_simultaneous_hits_choice_is_the_world_first(surface_rule: bool) -> None:
    """Both boxes are hit at the same time: the rule takes the larger contact surface, without
    it the first found; the world's step resolves that one first."""
    dt = 1 / 60
    w, player = _landing(surface_rule)
    start = explain.snapshot(w, dt)
    w.step(dt)
    choice = explain.arcade_choice(start)
    assert choice.body_a.tolist() == [1, 2] and choice.body_b.tolist() == [player, player]
    np.testing.assert_allclose(choice.time, [0.05 / 6.0] * 2, rtol=1e-12)
    np.testing.assert_allclose(choice.surface, [0.1, 0.9], atol=1e-12)  # moved 0.05 right by then
    assert not choice.graze.any()
    assert choice.with_rule == 1 and choice.without_rule == 0
    picked = choice.with_rule if surface_rule else choice.without_rule
    assert w.contacts.body_a[0] == choice.body_a[picked]
    assert w.contacts.toi[0] == choice.time[picked]
    np.testing.assert_array_equal(w.contacts.normal[0], choice.normal[picked])
