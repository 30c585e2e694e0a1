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
    from demo.draw.mesh import FILL_FLOATS, FRINGE, body_geometry

    shapes = [(Polygon.regular(k, 2.0), k % 2 == 0) for k in range(3, 17)]
    shapes += [(Polygon.blob(2, 1.0, 1.0), False), (Polygon.blob(1, 1.0, 1.0), True)]
    world = _world(shapes)
    wv = world.world_vertices()
    fills, lines, points = body_geometry(wv, world.local_vertices, world.vertex_count, world.static)
    assert fills.shape[1] == FILL_FLOATS
    fringe = fills[:, 8] >= FRINGE
    # Two fringe triangles per polygon side, after the fans (three vertices a triangle).
    assert np.count_nonzero(fringe) == 6 * sum(range(3, 17))
    fills = fills[~fringe]
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


def test_overlay_fills_have_no_outline_and_a_fringe_out_of_each_side() -> None:
    from demo.draw.batch import OverlayBatch
    from demo.draw.mesh import FRINGE, FRINGE_SHIFT, INSET_SHIFT

    batch = OverlayBatch()
    pentagon = Polygon.regular(5, 1.0).vertices
    for vertices in (pentagon, pentagon[::-1]):  # either winding
        batch.clear()
        batch.add_polygon(vertices, (1.0, 0.0, 0.0, 0.5))
        fills = batch.fills()
        fan, fringe = fills[fills[:, 8] == 0.0], fills[fills[:, 8] == FRINGE]
        assert len(fan) == 9 and len(fringe) == 6 * 5 and len(fills) == 39
        assert np.all(fan[:, 12] == INSET_SHIFT)  # the polygon half a pixel in
        assert set(fringe[:, 12]) == {INSET_SHIFT, FRINGE_SHIFT}
        # Miters point out of the polygon: moving a corner along its miter moves it away.
        corners = fills[:, 0:2].astype(np.float64)
        out = corners + 0.01 * fills[:, 10:12]
        assert np.all(np.hypot(*out.T) > np.hypot(*corners.T))


def test_miters_move_both_sides_one_unit_out() -> None:
    from demo.draw.mesh import miters

    square = Polygon.box(2.0, 2.0).vertices[None]  # corners at (+-1, +-1)
    m = miters(square, np.array([4]))[0]
    assert np.allclose(np.abs(m), 1.0)  # a right angle: (1, 1) moves both sides out by 1
    moved = square[0] + m
    assert np.allclose(np.abs(moved), 2.0)


def test_line_quads_cover_the_segment_and_a_pixel_more() -> None:
    from demo.draw.mesh import LINE_QUAD_FLOATS, line_quads, vertex_array

    segment = vertex_array(np.array([[0.0, 0.0], [10.0, 0.0]]), None, np.ones((2, 4)))
    quads = line_quads(segment, width_px=1.0)
    assert quads.shape == (6, LINE_QUAD_FLOATS)
    assert set(map(tuple, quads[:, 0:2])) == {(0.0, 0.0), (10.0, 0.0)}
    assert np.allclose(np.abs(quads[:, 3]), 1.0)  # 0.5 px of line + 0.5 px of fade on each side
    assert np.allclose(np.abs(quads[:, 2]), 0.5)  # half a pixel past each end
    assert np.allclose(np.abs(quads[:, 8]), 1.0) and quads[:, 8].min() < 0 < quads[:, 8].max()


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
    app.hide_help()
    for _ in range(5):  # no gravity, no contact: nothing moves
        app.frame(1 / 60)
    image = app.ctx.read_pixels().astype(int)
    assert np.allclose(world.position[0], (38.0, 53.0)) and world.angle[0] == pytest.approx(angle)
    band = 2.0 / app.camera.pixels_per_unit
    shapes = [world.vertices(0), world.vertices(1)]
    height, width, _ = image.shape
    checked = 0
    for py in range(int(max(0.15 * height, app.camera.top + 2)), int(0.85 * height), 3):
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


def test_overlay_polygons_made_together_are_each_polygon_in_order() -> None:
    """Polygons added to an overlay batch are meshed together when the frame asks for them (and
    kept for the next frame): each one's fan covers exactly its area, in its colour, and the
    vertices come polygon by polygon in the order added, kept ones and new ones alike."""
    from demo.draw.batch import OverlayBatch
    from demo.draw.mesh import FRINGE

    rng = np.random.default_rng(7)
    polygons, colors = [], []
    for k in (3, 4, 6, 5, 8):
        angles = np.sort(rng.random(k) * 2.0 * np.pi)
        ring = np.column_stack([np.cos(angles), np.sin(angles)])
        v = ring * (1.0 + 4.0 * rng.random()) + 10.0 * rng.random(2)
        polygons.append(v if k % 2 else v[::-1])  # both windings
        colors.append(tuple(float(c) for c in rng.random(4)))
    batch = OverlayBatch()
    for v, c in zip(polygons[:3], colors[:3], strict=True):
        batch.add_polygon(v, c)
    batch.fills()
    batch.clear()
    for v, c in zip(polygons, colors, strict=True):  # the first three are kept, two are new
        batch.add_polygon(v, c)
    fills = batch.fills()
    start = 0
    for v, c in zip(polygons, colors, strict=True):
        k = len(v)
        fan = fills[start : start + 3 * (k - 2)]
        fringe = fills[start + 3 * (k - 2) : start + 9 * k - 6]
        start += 9 * k - 6
        tri = fan[:, 0:2].astype(np.float64).reshape(-1, 3, 2)
        u, w = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
        cross = u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0]
        x, y = v[:, 0], v[:, 1]
        area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
        assert np.all(cross > 0.0)  # counter-clockwise, whatever the winding given
        assert np.isclose(0.5 * cross.sum(), area, rtol=1e-5)
        assert np.allclose(fan[:, 4:8], c) and np.allclose(fringe[:, 4:8], c)
        assert np.all(fan[:, 8] == 0.0) and np.all(fringe[:, 8] == FRINGE)
    assert start == len(fills)
