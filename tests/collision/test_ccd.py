"""The continuous pass after the iterative solve (``stop_at_static``, collision/solvers/iterative/ccd.py):
a body that travelled further than its start-of-step contacts could see is put back where it first
touches static geometry, exactly; everything else is left alone."""

from __future__ import annotations

import numpy as np

from collision import Polygon, World
from collision.kernels import python_entry
from collision.shapes import MAX_VERTICES
from collision.solvers.iterative.ccd import stop_at_static
from tests.collision.kernel_records import bodies_of, context_of

DT = 1.0 / 60.0
REACH = 0.02
BACKOFF = 0.005
HALF = 0.1


def rows(
    shapes: list[np.ndarray],
    poses: list[tuple[float, float]],
    static: list[bool],
    root: list[int] | None = None,
) -> dict[str, np.ndarray]:
    """Arrays of a small world: local vertices (centred), counts, start-of-step world vertices."""
    n = len(shapes)
    local = np.zeros((n, MAX_VERTICES, 2))
    count = np.zeros(n, dtype=np.int64)
    world = np.zeros((n, MAX_VERTICES, 2))
    for i, (verts, pose) in enumerate(zip(shapes, poses, strict=True)):
        k = len(verts)
        local[i, :k] = verts
        count[i] = k
        world[i, :k] = verts + np.asarray(pose)
    return {
        "local": local,
        "count": count,
        "world": world,
        "static": np.array(static),
        "root": np.arange(n) if root is None else np.array(root, dtype=np.int64),
    }


def box(w: float, h: float, cx: float = 0.0, cy: float = 0.0) -> np.ndarray:
    return Polygon.box(w, h).vertices + (cx, cy)


def run_pass(
    r: dict[str, np.ndarray],
    start: list[tuple[float, float]],
    end: list[tuple[float, float]],
    start_velocity: list[tuple[float, float]],
    inv_mass: list[float],
    has_compounds: bool = False,
    contact_pairs: tuple[tuple[int, int], ...] = (),
    pointless_pairs: tuple[tuple[int, int], ...] = (),
) -> tuple[int, np.ndarray]:
    n = len(start)
    bodies = bodies_of(
        n,
        local_vertices=r["local"],
        vertex_count=r["count"],
        world_vertices=r["world"],
        position=end,
        inv_mass=inv_mass,
        static=r["static"],
        root=r["root"],
    )
    moved = python_entry(stop_at_static)(
        bodies,
        context_of(DT, has_compounds=has_compounds),
        np.array(start, dtype=np.float64),
        np.array(start_velocity, dtype=np.float64),
        ~r["static"],
        # The broadphase's pairs: those with contact points first (one point each), then the rest.
        np.array(list(contact_pairs) + list(pointless_pairs), dtype=np.int64).reshape(-1, 2),
        np.arange(len(contact_pairs), dtype=np.int64),
        REACH,
        BACKOFF,
    )
    position = bodies.position
    return moved, position


WALL = box(0.05, 2.0)  # a thin wall, placed with its centre at x = 2.025: near face x = 2


def test_a_body_that_jumped_past_a_wall_is_put_back_short_of_it() -> None:
    r = rows([box(2 * HALF, 2 * HALF), WALL], [(0.0, 0.0), (2.025, 0.0)], [False, True])
    moved, position = run_pass(
        r, [(0.0, 0.0), (2.025, 0.0)], [(5.0, 0.0), (2.025, 0.0)], [(0, 0), (0, 0)], [1, 0]
    )
    assert moved == 1
    # First touch when the right face reaches x = 2: t = 1.9 / 5; then BACKOFF short.
    np.testing.assert_allclose(position[0], (2.0 - HALF - BACKOFF, 0.0), atol=1e-12)
    np.testing.assert_array_equal(position[1], (2.025, 0.0))


def test_a_diagonal_fall_stops_on_the_floor() -> None:
    floor = box(10.0, 1.0)  # centred at (0, -0.5): top at y = 0
    r = rows([box(2 * HALF, 2 * HALF), floor], [(0.0, 1.0), (0.0, -0.5)], [False, True])
    moved, position = run_pass(
        r, [(0.0, 1.0), (0.0, -0.5)], [(3.0, -2.0), (0.0, -0.5)], [(0, 0), (0, 0)], [1, 0]
    )
    assert moved == 1
    d = np.array([3.0, -3.0])
    t = (1.0 - HALF) / 3.0 - BACKOFF / float(np.hypot(*d))
    np.testing.assert_allclose(position[0], np.array([0.0, 1.0]) + t * d, atol=1e-12)
    assert position[0, 1] - HALF > 0.0  # above the floor


def test_what_the_contacts_covered_is_left_alone() -> None:
    # The same jump by a body that started the step that fast: its contacts saw the wall.
    r = rows([box(2 * HALF, 2 * HALF), WALL], [(0.0, 0.0), (2.025, 0.0)], [False, True])
    moved, position = run_pass(
        r, [(0.0, 0.0), (2.025, 0.0)], [(5.0, 0.0), (2.025, 0.0)], [(300, 0), (0, 0)], [1, 0]
    )
    assert moved == 0
    np.testing.assert_array_equal(position[0], (5.0, 0.0))


def test_static_bodies_overlapped_at_the_start_are_left_to_the_solver() -> None:
    r = rows([box(2 * HALF, 2 * HALF), WALL], [(0.0, 0.0), (0.0, 0.0)], [False, True])
    moved, position = run_pass(
        r, [(0.0, 0.0), (0.0, 0.0)], [(5.0, 0.0), (0.0, 0.0)], [(0, 0), (0, 0)], [1, 0]
    )
    assert moved == 0
    np.testing.assert_array_equal(position[0], (5.0, 0.0))


def test_only_the_bodies_that_outran_their_contacts_are_put_back() -> None:
    # Three bodies in the wall's way (it spans y -1 to 1): the pass skips a body that moved
    # less than the speculative reach without square roots, and one that moved more than the
    # reach but no more than its start speed covered; the first that outran its contacts may
    # be any row.
    r = rows(
        [box(2 * HALF, 2 * HALF), box(2 * HALF, 2 * HALF), box(2 * HALF, 2 * HALF), WALL],
        [(0.0, 0.6), (0.0, 0.0), (0.0, -0.6), (2.025, 0.0)],
        [False, False, False, True],
    )
    start = [(0.0, 0.6), (0.0, 0.0), (0.0, -0.6), (2.025, 0.0)]
    end = [(0.9 * REACH, 0.6), (5.0, 0.0), (0.05, -0.6), (2.025, 0.0)]
    moved, position = run_pass(r, start, end, [(0, 0), (0, 0), (3.1, 0), (0, 0)], [1, 1, 1, 0])
    assert moved == 1
    np.testing.assert_array_equal(position[0], (0.9 * REACH, 0.6))
    np.testing.assert_allclose(position[1], (2.0 - HALF - BACKOFF, 0.0), atol=1e-12)
    np.testing.assert_array_equal(position[2], (0.05, -0.6))
    # The only jump in the last moving row.
    end = [(0.9 * REACH, 0.6), (0.0, 0.0), (5.0, -0.6), (2.025, 0.0)]
    moved, position = run_pass(r, start, end, [(0, 0)] * 4, [1, 1, 1, 0])
    assert moved == 1
    np.testing.assert_array_equal(position[:2], [(0.9 * REACH, 0.6), (0.0, 0.0)])
    np.testing.assert_allclose(position[2], (2.0 - HALF - BACKOFF, -0.6), atol=1e-12)


def test_bodies_without_mass_are_not_moved() -> None:
    # Kinematic bodies (inverse mass 0) go where their velocity takes them.
    r = rows([box(2 * HALF, 2 * HALF), WALL], [(0.0, 0.0), (2.025, 0.0)], [False, True])
    moved, position = run_pass(
        r, [(0.0, 0.0), (2.025, 0.0)], [(5.0, 0.0), (2.025, 0.0)], [(0, 0), (0, 0)], [0, 0]
    )
    assert moved == 0
    np.testing.assert_array_equal(position[0], (5.0, 0.0))


def test_a_compound_stops_when_its_leading_part_touches() -> None:
    # Root row 0 (the left part), part row 1 (the right part), both in the root's frame.
    left, right = box(2 * HALF, 2 * HALF, -0.5), box(2 * HALF, 2 * HALF, 0.5)
    r = rows(
        [left, right, WALL], [(0.0, 0.0), (0.0, 0.0), (2.025, 0.0)], [False, False, True], root=[0, 0, 2]
    )
    moved, position = run_pass(
        r,
        [(0.0, 0.0), (0.0, 0.0), (2.025, 0.0)],
        [(5.0, 0.0), (0.0, 0.0), (2.025, 0.0)],
        [(0, 0), (0, 0), (0, 0)],
        [1, 0, 0],
        has_compounds=True,
    )
    assert moved == 1
    # The right part's right face (root + 0.6) reaches x = 2 first.
    np.testing.assert_allclose(position[0], (2.0 - 0.5 - HALF - BACKOFF, 0.0), atol=1e-12)


def test_the_pass_leaves_a_resting_stack_alone() -> None:
    # No body travels beyond what its contacts saw: continuous on and off give bit-identical
    # states for a resting stack (off also skips the pass).
    hashes = []
    for continuous in (True, False):
        world = World(gravity=(0.0, -10.0), solver="iterative")
        world.continuous = continuous
        world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
        for k in range(4):
            world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.5 + k))
        for _ in range(120):
            world.step(DT)
        hashes.append(world.state_hash())
    assert hashes[0] == hashes[1]


def test_static_bodies_the_solver_had_contacts_with_are_left_to_it() -> None:
    # The same jump, but the body had contact points with the wall this step: the solver's
    # soft contact holds it there, and the pass does not move it out from under it.
    r = rows([box(2 * HALF, 2 * HALF), WALL], [(0.0, 0.0), (2.025, 0.0)], [False, True])
    moved, position = run_pass(
        r,
        [(0.0, 0.0), (2.025, 0.0)],
        [(5.0, 0.0), (2.025, 0.0)],
        [(0, 0), (0, 0)],
        [1, 0],
        contact_pairs=((0, 1),),
    )
    assert moved == 0
    np.testing.assert_array_equal(position[0], (5.0, 0.0))
    # The same pair listed by the broadphase without points does not count.
    moved, position = run_pass(
        r,
        [(0.0, 0.0), (2.025, 0.0)],
        [(5.0, 0.0), (2.025, 0.0)],
        [(0, 0), (0, 0)],
        [1, 0],
        pointless_pairs=((0, 1),),
    )
    assert moved == 1
