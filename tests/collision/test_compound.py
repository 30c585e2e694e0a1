"""Compound bodies: several convex parts moving as one rigid body."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from collision import GeometryError, Polygon, World, decompose
from collision.tolerances import MAX_COMPOUND_PARTS

SOLVERS = ("iterative", "tutorial", "arcade")
DT = 1.0 / 60.0
L_OUTLINE = np.array([(0.0, 0.0), (3.0, 0.0), (3.0, 1.0), (1.0, 1.0), (1.0, 3.0), (0.0, 3.0)])


def _polygon_mass_properties(v: np.ndarray, density: float) -> tuple[float, np.ndarray, float]:
    """(mass, centroid, inertia about the centroid) of a simple CCW polygon, straight from the
    shoelace area and its first and second moments (no decomposition)."""
    x, y = v[:, 0], v[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2.0
    cx = ((x + xn) * cross).sum() / (6.0 * area)
    cy = ((y + yn) * cross).sum() / (6.0 * area)
    ix = ((y * y + y * yn + yn * yn) * cross).sum() / 12.0
    iy = ((x * x + x * xn + xn * xn) * cross).sum() / 12.0
    polar = ix + iy - area * (cx * cx + cy * cy)
    return density * area, np.array([cx, cy]), density * polar


def _l_world(solver: str = "iterative", **kw: object) -> tuple[World, int]:
    world = World(solver=solver)
    world.add_body(Polygon.box(40.0, 1.0), (0.0, -0.5), static=True)
    c = world.add_compound(decompose(L_OUTLINE), (0.0, 3.0), **kw)  # type: ignore[arg-type]
    return world, c


def test_mass_centre_and_inertia_of_a_decomposed_l_are_exact() -> None:
    density = 2.5
    pieces = decompose(L_OUTLINE)
    assert len(pieces) >= 2
    mass, centre, inertia = _polygon_mass_properties(L_OUTLINE, density)
    world = World()
    world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0))
    c = world.add_compound(pieces, (5.0, 7.0), density=density)
    assert c == 1
    assert world.mass[c] == pytest.approx(mass, rel=1e-12)
    assert world.inertia[c] == pytest.approx(inertia, rel=1e-12)
    for part in world.parts(c)[1:]:
        assert world.mass[part] == 0.0 and world.inertia[part] == 0.0
    # The centre of mass goes to the position: the outline's vertices sit at outline - centre.
    got = np.vstack([world.vertices(p) for p in world.parts(c)])
    want = L_OUTLINE - centre + (5.0, 7.0)
    for point in want:
        assert np.min(np.hypot(*(got - point).T)) < 1e-12


def _pairwise_distances(world: World, c: int) -> np.ndarray:
    verts = np.vstack([world.vertices(p) for p in world.parts(c)])
    return np.hypot(*(verts[:, None, :] - verts[None, :, :]).transpose(2, 0, 1))


@pytest.mark.parametrize("solver", SOLVERS)
def test_dropped_compound_stays_rigid_and_rests_on_a_hull_face(solver: str) -> None:
    world, c = _l_world(solver, angle=0.4)
    start = _pairwise_distances(world, c)
    steps = 600 if solver == "iterative" else 240
    for _ in range(steps):
        world.step(DT)
        assert len(world.contacts) == 0 or not np.any(world.contacts.body_a == world.contacts.body_b)
    np.testing.assert_allclose(_pairwise_distances(world, c), start, rtol=0, atol=1e-9)
    if solver == "iterative":
        # At rest on a face of the L's convex hull: its lowest vertices lie on the ground along
        # a whole edge (two hull vertices at y = 0), and it is still.
        verts = np.vstack([world.vertices(p) for p in world.parts(c)])
        low = verts[:, 1].min()
        assert abs(low) < 0.02
        on_ground = verts[np.abs(verts[:, 1] - low) < 0.01]
        assert np.ptp(on_ground[:, 0]) > 0.9  # an edge, not a corner
        assert abs(world.angular_velocity[c]) < 1e-2
        assert np.hypot(*world.velocity[c]) < 1e-2


def test_spinning_compound_in_free_flight_keeps_its_angular_momentum() -> None:
    world = World(gravity=(0.0, 0.0))
    c = world.add_compound(decompose(L_OUTLINE), (1.0, 2.0), velocity=(0.3, -0.2), angular_velocity=2.0)
    inertia = world.inertia[c]

    def momentum() -> float:
        x, v = world.position[c], world.velocity[c]
        return inertia * world.angular_velocity[c] + world.mass[c] * (x[0] * v[1] - x[1] * v[0])

    before = momentum()
    for _ in range(300):
        world.step(DT)
    assert len(world.contacts) == 0
    assert momentum() == pytest.approx(before, rel=1e-12)
    assert world.angular_velocity[c] == 2.0


@pytest.mark.parametrize("solver", SOLVERS)
def test_box_and_box_split_in_two_behave_the_same(solver: str) -> None:
    def run(split: bool) -> np.ndarray:
        world = World(solver=solver, friction=0.3)
        world.add_body(Polygon.box(40.0, 1.0), (0.0, -0.5), static=True)
        start = dict(position=(0.0, 1.5), angle=0.0, velocity=(3.0, 0.0))
        if split:
            # Top and bottom halves of a 2 x 1 box, in the box's own frame.
            bottom = np.array([(-1.0, -0.5), (1.0, -0.5), (1.0, 0.0), (-1.0, 0.0)])
            b = world.add_compound([bottom, bottom + (0.0, 0.5)], **start)  # type: ignore[arg-type]
        else:
            b = world.add_body(Polygon.box(2.0, 1.0), **start)  # type: ignore[arg-type]
        path = []
        for _ in range(120):
            world.step(DT)
            path.append((*world.position[b], world.angle[b], *world.velocity[b], world.angular_velocity[b]))
        return np.array(path)

    np.testing.assert_allclose(run(True), run(False), rtol=0, atol=1e-6)


def test_no_self_contacts_between_touching_parts() -> None:
    world = World(gravity=(0.0, 0.0))
    for solver in SOLVERS:
        world.solver = solver
        c = world.add_compound(decompose(L_OUTLINE), (0.0, 0.0), angular_velocity=1.0)
        for _ in range(5):
            world.step(DT)
            assert len(world.contacts) == 0, solver
        world.remove_body(c)


def test_remove_shifts_indices_and_refuses_a_part() -> None:
    world = World(gravity=(0.0, 0.0))
    a = world.add_body(Polygon.box(1.0, 1.0), (-5.0, 0.0))
    c = world.add_compound(decompose(L_OUTLINE), (0.0, 0.0))
    rows = world.parts(c)
    after = world.add_body(Polygon.regular(5, 0.5), (5.0, 0.0))
    assert rows[0] == c == 1 and after == 1 + len(rows)
    assert all(world.root(r) == c for r in rows) and world.root(after) == after
    assert world.parts(rows[-1]) == rows and world.parts(a) == [a]
    with pytest.raises(ValueError, match=f"compound with root {c}"):
        world.remove_body(rows[1])
    assert world.body_count == 2 + len(rows)
    world.remove_body(c)
    assert world.body_count == 2
    assert world.root(1) == 1 and world.parts(1) == [1]
    assert np.allclose(world.position[1], (5.0, 0.0))
    # A compound after a removed body moves down with its roots.
    c2 = world.add_compound(decompose(L_OUTLINE), (0.0, 9.0))
    world.remove_body(0)
    assert world.parts(c2 - 1) == list(range(c2 - 1, world.body_count))
    world.step(DT)
    assert np.allclose(world.position[world.body_count - 1], world.position[c2 - 1])


def test_queries_and_forces_act_on_the_root() -> None:
    world = World(gravity=(0.0, 0.0))
    c = world.add_compound(decompose(L_OUTLINE), (0.0, 0.0))
    rows = world.parts(c)
    hit = world.raycast((-10.0, 0.0), (10.0, 0.0))
    assert hit is not None and hit.body == c
    hits = world.raycast_all((-10.0, 0.0), (10.0, 0.0))
    assert [h.body for h in hits] == [c]
    assert world.raycast((-10.0, 0.0), (10.0, 0.0), ignore=[rows[-1]]) is None
    inside = np.vstack([world.vertices(r) for r in rows]).mean(axis=0)
    assert world.query_point(world.vertices(rows[-1]).mean(axis=0)) == [c]
    assert world.query_point(inside) in ([c], [])
    # An impulse on any row moves the whole compound.
    world.apply_impulse(rows[-1], (world.mass[c] * 1.0, 0.0))
    assert world.velocity[c, 0] == pytest.approx(1.0)
    world.set_material(rows[-1], friction=0.1)
    assert all(world.body_friction[r] == 0.1 for r in rows)
    world.step(DT)
    for r in rows:
        assert np.array_equal(world.position[r], world.position[c])
        assert np.array_equal(world.velocity[r], world.velocity[c])


def test_kinematic_and_static_compounds() -> None:
    world = World()
    s = world.add_compound(decompose(L_OUTLINE), (0.0, 0.0), static=True)
    k = world.add_compound(
        decompose(L_OUTLINE), (10.0, 0.0), velocity=(1.0, 0.0), angular_velocity=0.5, kinematic=True
    )
    assert all(world.static[r] for r in world.parts(s))
    assert all(world.kinematic[r] for r in world.parts(k))
    for _ in range(60):
        world.step(DT)
    assert world.position[k, 0] == pytest.approx(11.0, abs=1e-12)
    assert world.angle[k] == pytest.approx(0.5, abs=1e-12)


def test_bad_compounds_are_refused() -> None:
    world = World()
    with pytest.raises(GeometryError, match="at least one part"):
        world.add_compound([], (0.0, 0.0))
    with pytest.raises(GeometryError, match="MAX_COMPOUND_PARTS"):
        world.add_compound([Polygon.box(1.0, 1.0)] * (MAX_COMPOUND_PARTS + 1), (0.0, 0.0))
    bad = [(0.0, 0.0), (1.0, 0.0), (1.0, math.nan)]
    with pytest.raises(GeometryError, match=r"shapes\[1\]\[2\].*not finite"):
        world.add_compound([Polygon.box(1.0, 1.0), bad], (0.0, 0.0))
    with pytest.raises(GeometryError, match="list of shapes"):
        world.add_compound("box", (0.0, 0.0))
    with pytest.raises(ValueError, match="static.*kinematic"):
        world.add_compound([Polygon.box(1.0, 1.0)], (0.0, 0.0), static=True, kinematic=True)
    assert world.body_count == 0
    # Points and segments count with their nominal mass (5 * density), at their place.
    c = world.add_compound([np.array([(0.0, 0.0)]), np.array([(2.0, 0.0), (2.0, 2.0)])], (0.0, 0.0))
    assert world.mass[c] == pytest.approx(10.0)
    # Centre (1, 0.5); point: 5 * |(-1, -0.5)|^2; segment: 5 * 4 / 12 + 5 * |(1, 0.5)|^2.
    assert world.inertia[c] == pytest.approx(5 * 1.25 + 5 * 4 / 12 + 5 * 1.25, rel=1e-12)


def test_compound_parts_combinations_never_pair_up() -> None:
    # Two compounds side by side touch each other but never themselves.
    world = World(gravity=(0.0, -10.0))
    world.add_body(Polygon.box(40.0, 1.0), (0.0, -0.5), static=True)
    a = world.add_compound(decompose(L_OUTLINE), (0.0, 1.2))
    b = world.add_compound(decompose(L_OUTLINE), (2.0, 4.0), angle=math.pi)
    roots = {0, a, b}
    for _ in range(120):
        world.step(DT)
        contacts = world.contacts
        for x, y in zip(contacts.body_a, contacts.body_b, strict=True):
            assert x != y and int(x) in roots and int(y) in roots
    for r in itertools.chain(world.parts(a), world.parts(b)):
        assert np.isfinite(world.position[r]).all()
