"""The body store: rows grown by doubling, removed in one place, views that stay the live state."""

from __future__ import annotations

import numpy as np
import pytest

from collision import Polygon, World
from collision.bodies import INITIAL_CAPACITY, Bodies, BodyStore
from collision.shapes import MAX_VERTICES


def test_append_grows_by_doubling_and_keeps_the_rows() -> None:
    store = BodyStore()
    capacities = []
    for k in range(100):
        first = store.append(1)
        assert first == k
        store.rows.position[first] = (k, -k)
        capacities.append(store.capacity)
    assert store.count == 100 and store.rows.position.shape == (100, 2)
    np.testing.assert_array_equal(store.rows.position[:, 0], np.arange(100))
    # Reallocations only when full, each doubling: 16, 32, 64, 128.
    assert sorted(set(capacities)) == [INITIAL_CAPACITY, 32, 64, 128]


def test_rows_are_views_of_n_rows_with_the_documented_fields() -> None:
    store = BodyStore()
    store.append(3)
    rows = store.rows
    assert isinstance(rows, Bodies)
    assert rows.position.shape == (3, 2) and rows.local_vertices.shape == (3, MAX_VERTICES, 2)
    assert (
        rows.root.dtype == np.int64 and rows.static.dtype == np.bool_ and rows.vertex_count.dtype == np.int64
    )
    for field in rows:
        assert field.flags.c_contiguous and field.flags.writeable and field.shape[0] == 3


def test_a_body_of_several_rows_points_them_at_its_root() -> None:
    store = BodyStore()
    store.append(1)
    first = store.append(3)
    assert first == 1
    np.testing.assert_array_equal(store.rows.root, [0, 1, 1, 1])
    assert store.has_compounds


def test_remove_shifts_later_rows_and_their_roots_and_zeroes_the_tail() -> None:
    store = BodyStore()
    for rows in (1, 2, 1, 3):
        first = store.append(rows)
        store.rows.position[first : first + rows] = first
    np.testing.assert_array_equal(store.rows.root, [0, 1, 1, 3, 4, 4, 4])
    store.remove(1, 2)  # the first compound
    np.testing.assert_array_equal(store.rows.root, [0, 1, 2, 2, 2])
    np.testing.assert_array_equal(store.rows.position[:, 0], [0, 3, 4, 4, 4])
    assert store.has_compounds
    store.remove(2, 3)
    assert not store.has_compounds and store.count == 2
    # Rows past the count are zero again: a new body starts clean.
    first = store.append(1)
    assert first == 2 and not store.rows.position[2].any() and store.rows.root[2] == 2


def test_world_arrays_are_the_store_rows_and_stay_writable() -> None:
    world = World(gravity=(0.0, 0.0))
    a = world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0))
    world.position[a] = (2.0, 3.0)
    world.velocity[a] = (1.0, 0.0)
    world.step(0.5)
    np.testing.assert_allclose(world.position[a], (2.5, 3.0))
    for _ in range(40):  # past the first doubling
        world.add_body(Polygon.box(1.0, 1.0), (100.0, 0.0), static=True)
    np.testing.assert_allclose(world.position[a], (2.5, 3.0))
    assert world.position.shape == (41, 2)


def test_removing_a_body_keeps_the_others_state() -> None:
    world = World(gravity=(0.0, 0.0))
    for i in range(5):
        world.add_body(Polygon.box(1.0, 1.0), (3.0 * i, 0.0), velocity=(i, 0.0))
    world.remove_body(1)
    np.testing.assert_array_equal(world.position[:, 0], [0.0, 6.0, 9.0, 12.0])
    np.testing.assert_array_equal(world.velocity[:, 0], [0.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="no such body"):
        world.remove_body(4)
