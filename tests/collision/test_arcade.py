"""The "arcade" solver (Tutorial 4 with seed 002's ordered timeslices) against exact answers."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from collision import Polygon, World
from collision.solvers.arcade import ArcadeSettings

DT = 1 / 60


def _arcade(ordered: bool = True, **kw: object) -> World:
    kw.setdefault("gravity", (0.0, 0.0))
    kw.setdefault("friction", 0.0)
    kw.setdefault("restitution", 0.0)
    kw.setdefault("static_friction", 0.0)
    w = World(solver="arcade", **kw)  # type: ignore[arg-type]
    w.solver_settings("arcade").ordered = ordered
    return w


# --- Tutorial 4's response ----------------------------------------------------------------------------


@pytest.mark.parametrize("ordered", [True, False])
def test_reflection_with_elasticity_and_friction(ordered: bool) -> None:
    """V' = Vt (1 - f) - e Vn against a static floor."""
    w = _arcade(ordered, restitution=0.5, friction=0.2)
    w.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    box = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5), velocity=(3.0, -4.0))
    w.step(DT)
    assert w.velocity[box] == pytest.approx([3.0 * 0.8, 0.5 * 4.0], abs=1e-12)


def test_glue_stops_slow_sliding() -> None:
    """Below the glue speed (static_friction, units/s) the tangential velocity is cancelled."""
    w = _arcade(friction=0.1, static_friction=0.5)
    w.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    slow = w.add_body(Polygon.box(1.0, 1.0), (-5.0, 0.5), velocity=(0.4, -1.0))
    fast = w.add_body(Polygon.box(1.0, 1.0), (5.0, 0.5), velocity=(0.6, -1.0))
    w.step(DT)
    assert w.velocity[slow] == pytest.approx([0.0, 0.0], abs=1e-12)
    assert w.velocity[fast] == pytest.approx([0.6 * 0.9, 0.0], abs=1e-12)


def test_response_shared_by_inverse_mass_conserves_momentum() -> None:
    w = _arcade(restitution=1.0)
    light = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0), velocity=(2.0, 0.0), density=1.0)
    heavy = w.add_body(Polygon.box(1.0, 1.0), (1.5, 0.0), velocity=(-1.0, 0.0), density=3.0)
    p0 = w.momentum()
    for _ in range(60):
        w.step(DT)
    # Elastic 1D collision with masses 1 and 3: v1' = -2.5, v2' = 0.5.
    assert w.velocity[light] == pytest.approx([-2.5, 0.0], abs=1e-12)
    assert w.velocity[heavy] == pytest.approx([0.5, 0.0], abs=1e-12)
    assert w.momentum() == pytest.approx(p0, abs=1e-12)


def test_overlap_pushed_out_static_side_never_moves() -> None:
    w = _arcade()
    wall = w.add_body(Polygon.box(2.0, 2.0), (0.0, 0.0), static=True)
    box = w.add_body(Polygon.box(1.0, 1.0), (1.3, 0.0))  # 0.2 inside the wall
    w.step(DT)
    assert w.position[wall] == pytest.approx([0.0, 0.0], abs=0.0)
    assert w.position[box] == pytest.approx([1.5, 0.0], abs=1e-12)


# --- ordered processing ---------------------------------------------------------------------------------


def test_ordered_bounce_happens_at_the_time_of_impact_immediate_does_not() -> None:
    """e = 1, floor 0.1 below, 0.2 travelled per step: ordered ends 0.1 above the floor
    (bounced at the hit), the tutorial's immediate processing reflects at the start of the step."""
    results = {}
    for ordered in (True, False):
        w = _arcade(ordered, restitution=1.0)
        w.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
        box = w.add_body(Polygon.box(1.0, 1.0), (0.0, 0.6), velocity=(0.0, -12.0))
        w.step(DT)
        assert w.velocity[box] == pytest.approx([0.0, 12.0], abs=1e-12)
        results[ordered] = w.position[box, 1] - 0.5
        assert w.contacts.toi == pytest.approx([0.1 / 12.0] * len(w.contacts))
    assert results[True] == pytest.approx(0.1, abs=1e-12)
    assert results[False] == pytest.approx(0.3, abs=1e-12)


def _flush_floor(w: World, count: int = 30) -> None:
    for k in range(count):
        w.add_body(Polygon.box(1.0, 1.0), (k + 0.5, -0.5), static=True)


@pytest.mark.parametrize("gravity", [0.0, -10.0])
@pytest.mark.parametrize("start_gap", [0.0, 0.3])
def test_ordered_slide_along_flush_boxes_never_snags_or_sinks(gravity: float, start_gap: float) -> None:
    w = _arcade(True, gravity=(0.0, gravity))
    _flush_floor(w)
    box = w.add_body(Polygon.box(0.5, 0.5), (0.5, 0.25 + start_gap), velocity=(5.0, -2.0))
    crossed = 0
    last_x = w.position[box, 0]
    for _ in range(240):
        w.step(DT)
        x = w.position[box, 0]
        crossed += math.floor(x + 0.25) - math.floor(last_x + 0.25)
        last_x = x
        # Never sinks below the floor top, never stops at a crack.
        assert w.position[box, 1] - 0.25 >= -1e-12
        assert w.velocity[box, 0] == pytest.approx(5.0, abs=1e-12)
        if x > 27.0:
            break
    assert crossed >= 20, "the box should have crossed many cracks"
    assert w.position[box, 1] == pytest.approx(0.25, abs=1e-9)


def test_immediate_processing_snags_on_the_first_crack() -> None:
    """The same slide with ordering off (Tutorial 4's immediate processing, no surface rule):
    the crack's hidden edge catches the box and stops it dead."""
    w = _arcade(False)
    _flush_floor(w)
    box = w.add_body(Polygon.box(0.5, 0.5), (0.5, 0.25), velocity=(5.0, -2.0))
    for _ in range(60):
        w.step(DT)
    assert w.velocity[box] == pytest.approx([0.0, 0.0], abs=1e-12)
    # Stuck with its right side at the first crack (x = 1), never reaching the second box.
    assert 0.5 < w.position[box, 0] + 0.25 <= 1.0 + 1e-12
    assert any((c == 1) for c in w.contacts.body_a) or w.position[box, 0] + 0.25 <= 1.0 + 1e-12


def test_ordering_without_the_surface_rule_snags_on_a_crack() -> None:
    """Seed 002's two parts: earliest-first ordering alone still lets the crack's hidden edge
    catch the sliding box; the surface rule is what keeps it going."""
    w = _arcade(True)
    w.solver_settings("arcade").surface_rule = False
    _flush_floor(w)
    box = w.add_body(Polygon.box(0.5, 0.5), (0.5, 0.25), velocity=(5.0, -2.0))
    slowest = math.inf
    for _ in range(120):
        w.step(DT)
        slowest = min(slowest, abs(float(w.velocity[box, 0])))
    assert slowest < 1e-9, "without the surface rule the box should stop at a crack"
    assert w.position[box, 1] - 0.25 >= -1e-9


@pytest.mark.parametrize("ordered", [True, False])
def test_fast_box_stops_at_thin_wall(ordered: bool) -> None:
    w = _arcade(ordered)
    w.add_body(Polygon.box(0.1, 4.0), (5.0, 0.0), static=True)
    box = w.add_body(Polygon.box(0.1, 0.1), (0.0, 0.0), velocity=(500.0, 0.0))
    for _ in range(30):
        w.step(DT)
        assert w.position[box, 0] <= 4.9 + 1e-9
    assert w.velocity[box] == pytest.approx([0.0, 0.0], abs=1e-9)
    if ordered:
        assert w.position[box, 0] == pytest.approx(4.9, abs=1e-9)


@pytest.mark.parametrize("ordered", [True, False])
def test_static_bodies_never_move(ordered: bool) -> None:
    rng = np.random.default_rng(3)
    w = _arcade(ordered, gravity=(0.0, -10.0), restitution=0.4, friction=0.3, static_friction=0.05)
    w.add_body(Polygon.box(40.0, 2.0), (0.0, -1.0), static=True)
    for _ in range(8):
        n = int(rng.integers(2, 7))
        w.add_body(
            Polygon.blob(n, 1.5, 1.0),
            (float(rng.uniform(-15, 15)), float(rng.uniform(1, 8))),
            angle=float(rng.uniform(0, 3)),
            static=True,
        )
    for _ in range(15):
        n = int(rng.integers(1, 7))
        w.add_body(
            Polygon.blob(n, 0.8, 0.6),
            (float(rng.uniform(-15, 15)), float(rng.uniform(2, 20))),
            velocity=(float(rng.uniform(-8, 8)), float(rng.uniform(-8, 8))),
            angular_velocity=float(rng.uniform(-2, 2)),
        )
    static = w.static.copy()
    pos = w.position[static].copy()
    ang = w.angle[static].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(300):
            w.step(DT)
    assert np.array_equal(w.position[static], pos)
    assert np.array_equal(w.angle[static], ang)
    assert np.isfinite(w.position).all() and np.isfinite(w.velocity).all()


def test_subdivision_cap_warns_once_and_never_loops_forever() -> None:
    """A box rattling elastically in a slot just wider than itself hits a wall every microsecond."""
    w = _arcade(True, restitution=1.0)
    w.add_body(Polygon.box(1.0, 4.0), (-1.0, 0.0), static=True)  # right face at x = -0.5
    w.add_body(Polygon.box(1.0, 4.0), (1.001, 0.0), static=True)  # left face at x = 0.501
    box = w.add_body(Polygon.box(1.0, 1.0), (0.0005, 0.0), velocity=(1000.0, 0.0))
    with pytest.warns(RuntimeWarning, match=str(ArcadeSettings().max_subdivisions)):
        w.step(DT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second warning would raise
        for _ in range(5):
            w.step(DT)
    # Still in its slot: centre within [0, 0.001].
    assert -1e-9 <= w.position[box, 0] <= 0.001 + 1e-9
    assert abs(w.velocity[box, 0]) == pytest.approx(1000.0)
