"""The body geometry handed to GL: every polygon side is outlined exactly once by its fill, and
nothing else is; segments are lines and particles points. Checked against the shapes' own sides."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from collision import Polygon


def _world(shapes: list[tuple[Polygon, bool]]) -> Any:
    from collision import World

    world = World(gravity=(0.0, 0.0))
    for index, (shape, static) in enumerate(shapes):
        world.add_body(shape, (10.0 * index, 3.0), angle=0.3 * index, static=static)
    return world


def test_fill_outline_codes_draw_each_polygon_side_once(ctx: Any) -> None:
    from demo.draw.mesh import FILL_FLOATS, body_geometry  # after the context chose PyOpenGL's platform

    shapes = [(Polygon.regular(k, 2.0), k % 2 == 0) for k in range(3, 17)]
    shapes += [(Polygon.blob(2, 1.0, 1.0), False), (Polygon.blob(1, 1.0, 1.0), True)]
    world = _world(shapes)
    wv = world.world_vertices()
    fills, lines, points = body_geometry(wv, world.local_vertices, world.vertex_count, world.static)
    assert fills.shape[1] == FILL_FLOATS
    assert len(fills) == 3 * sum(k - 2 for k in range(3, 17))
    drawn: dict[int, list[tuple[tuple[float, float], tuple[float, float]]]] = {}
    body_of = {}
    start = 0
    for body, k in enumerate(range(3, 17)):
        for t in range(k - 2):
            body_of[start // 3 + t] = body
        start += 3 * (k - 2)
    for t in range(len(fills) // 3):
        corners = fills[3 * t : 3 * t + 3, 0:2].astype(np.float64)
        code = int(fills[3 * t, 8])
        assert np.all(fills[3 * t : 3 * t + 3, 8] == code)  # one code per triangle
        body = body_of[t]
        assert code // 8 == (2 if world.static[body] else 1)  # outline colour: static or moving
        for side in range(3):
            if code & (1 << side):  # the side opposite corner `side`
                a, b = corners[(side + 1) % 3], corners[(side + 2) % 3]
                drawn.setdefault(body, []).append((tuple(a), tuple(b)))
    for body, k in enumerate(range(3, 17)):
        outline = world.vertices(body)

        def index_of(point: tuple[float, float], outline: np.ndarray = outline) -> int:
            distance = np.hypot(*(outline - np.asarray(point)).T)
            assert distance.min() < 1e-4  # every drawn side joins two of the body's vertices
            return int(distance.argmin())

        got = [frozenset({index_of(a), index_of(b)}) for a, b in drawn[body]]
        assert sorted(map(sorted, got)) == sorted(sorted({i, (i + 1) % k}) for i in range(k)), body
    # The segment is one line; the particle one point; polygons add no lines.
    assert len(lines) == 2 and np.allclose(lines[:, 0:2], world.vertices(14), atol=1e-5)
    assert len(points) == 1 and np.allclose(points[0, 0:2], world.vertices(15)[0], atol=1e-5)


def test_overlay_fills_have_no_outline(ctx: Any) -> None:
    from demo.draw.batch import OverlayBatch as LineBatch

    batch = LineBatch()
    batch.add_polygon(Polygon.regular(5, 1.0).vertices, (1.0, 0.0, 0.0, 0.5))
    fills = batch.fills()
    assert len(fills) == 9 and np.all(fills[:, 8] == 0.0)


def _inside_by(point: np.ndarray, polygon: np.ndarray) -> float:
    """Signed distance of ``point`` inside the CCW convex ``polygon`` (negative: outside)."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1) / np.hypot(*edges.T)[:, None]
    return float(-np.max(np.sum((point - polygon) * normals, axis=1)))


@pytest.mark.parametrize("angle", [0.0, 0.7, -2.0])
def test_moving_and_rotated_bodies_are_drawn_where_the_world_has_them(make_app: Any, angle: float) -> None:
    """The vertex shader places the bodies from their poses: compare the picture with the
    world's own vertices, pixel by pixel, away from the 2-pixel band around the outline."""
    from tests.demo.conftest import simple_scene

    scene = simple_scene(
        [(Polygon.regular(3, 20.0), (35.0, 55.0), False), (Polygon.box(10.0, 30.0), (80.0, 40.0), True)]
    )
    app = make_app(scene)
    world = app.world
    world.angle[:] = (angle, -angle)
    world.position[0] += (3.0, -2.0)  # moved after the fills were uploaded: poses carry it
    for _ in range(40):  # let the overlay text fade (no gravity, no contact: nothing moves)
        app.frame(1 / 60)
    image = app.ctx.read_pixels().astype(int)
    assert np.allclose(world.position[0], (38.0, 53.0)) and world.angle[0] == pytest.approx(angle)
    band = 2.0 / app.camera.pixels_per_unit
    shapes = [world.vertices(0), world.vertices(1)]
    height, width, _ = image.shape
    checked = 0
    for py in range(int(0.15 * height), int(0.85 * height), 3):
        for px in range(int(0.05 * width), int(0.95 * width), 3):
            point = app.camera.screen_to_world(px + 0.5, py + 0.5)
            depth = max(_inside_by(point, shape) for shape in shapes)
            background = bool(np.all(image[py, px] == 51))
            if depth > band:
                assert not background, (px, py, point)
                checked += 1
            elif depth < -band:
                assert background, (px, py, point, image[py, px])
    assert checked > 50
