"""Contacts of sleeping bodies: drawn and counted while the solver no longer reports them."""

from __future__ import annotations

from typing import Any

import numpy as np

from collision import Polygon
from tests.demo.conftest import simple_scene


def _resting_box(boxes: int = 2) -> Any:
    ground = [(Polygon.box(100, 10), (50.0, 5.0), True)]
    on_it = [(Polygon.box(10, 10), (30.0 + 40.0 * k, 15.0 + 0.5 * k), False) for k in range(boxes)]
    return simple_scene(ground + on_it, gravity=(0.0, -10.0))


def _until_asleep(app: Any, frames: int = 600) -> Any:
    """Frames until the moving bodies sleep; the contacts the solver reported in the step they
    fell asleep (its last report of them)."""
    for _ in range(frames):
        app.frame(1 / 60)
        if app.world.sleeping[1:].all():
            return app.world.contacts
    raise AssertionError("the boxes never fell asleep")


def test_sleeping_bodies_keep_their_contacts_drawn_and_counted(make_app: Any) -> None:
    app = make_app(_resting_box(1))
    app.show["contacts"] = True
    app.hide_help()
    before = _until_asleep(app)
    assert len(before) >= 2  # a box flat on the ground: two points
    for _ in range(30):
        app.frame(1 / 60)
    world = app.world
    assert world.sleeping[1:].all() and len(world.contacts) == 0  # the solver left them out
    shown = app.contacts
    assert len(shown) == len(before)
    for name in ("body_a", "body_b", "point_a", "point_b", "normal", "separation"):
        assert np.array_equal(getattr(shown, name), getattr(before, name)), name
    assert f"contacts {len(before)} (1 body asleep)" in app.hud_line()
    # Each contact is drawn as its two points.
    assert len(app.renderer.overlay.points()) == 2 * len(before)


def test_a_body_that_wakes_loses_its_kept_contacts(make_app: Any) -> None:
    app = make_app(_resting_box())
    _until_asleep(app)
    app.world.set_velocity(2, (0.0, 30.0))  # the right box jumps off the ground
    for _ in range(5):
        app.frame(1 / 60)
    bodies = set(np.asarray(app.contacts.body_a)) | set(np.asarray(app.contacts.body_b))
    assert 2 not in bodies  # in the air: no contact kept for it
    assert 1 in bodies  # the left box still sleeps on the ground


def test_a_world_that_changes_starts_over(make_app: Any) -> None:
    app = make_app(_resting_box())
    _until_asleep(app)
    assert len(app.contacts) > 0
    app.use_scene(_resting_box())
    assert len(app.contacts) == len(app.world.contacts) == 0
