"""Where the help goes: the map of busy pixels (exact on small cases) and, in real frames of the
teaching scenes, a help panel that covers none of the figure, the polygons or the labels."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from demo.draw.placement import CELL_PX, PLACES, best_place, busy_map, covered


def test_boxes_mark_every_cell_they_touch_and_no_other() -> None:
    busy = busy_map(64, 48, np.array([[9.0, 1.0, 17.0, 7.0]]), np.zeros((0, 2, 2)))
    assert busy.shape == (6, 8)
    rows, cols = np.nonzero(busy)
    assert set(zip(rows.tolist(), cols.tolist(), strict=True)) == {(0, 1), (0, 2)}


def test_segments_mark_the_cells_along_them() -> None:
    busy = busy_map(64, 64, np.zeros((0, 4)), np.array([[[4.0, 4.0], [60.0, 60.0]]]))
    assert np.array_equal(busy, np.eye(8, dtype=bool))


def test_the_place_covering_least_wins_and_ties_go_to_the_first() -> None:
    width, height = 200, 100
    rects = {
        (True, True): [(120.0, 0.0, 200.0, 40.0)],
        (False, True): [(0.0, 0.0, 80.0, 40.0)],
        (True, False): [(120.0, 60.0, 200.0, 100.0)],
        (False, False): [(0.0, 60.0, 80.0, 100.0)],
    }
    empty = busy_map(width, height, np.zeros((0, 4)), np.zeros((0, 2, 2)))
    assert best_place(empty, rects) == PLACES[0]
    figure = busy_map(width, height, np.array([[130.0, 5.0, 190.0, 90.0]]), np.zeros((0, 2, 2)))
    assert covered(figure, rects[(True, True)][0]) > 0
    assert best_place(figure, rects) == (False, True)


def _rects_overlap(a: Any, b: Any) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("size", [(960, 720), (1280, 800)])
@pytest.mark.parametrize("name", ["sat", "mtd", "swept", "rotation", "contacts"])
def test_the_brief_help_covers_nothing_of_a_teaching_scene(
    make_app: Any, name: str, size: tuple[int, int]
) -> None:
    """A scene moved to shows its brief help on a panel placed off its figure, polygons and
    labels (each measured in pixels from what the frame drew)."""
    app = make_app()
    app.ctx.resize(*size)
    app.load_scene(name, seed=1)
    app.frame(1 / 60)
    assert app.help_brief and app.help_alpha == 1.0
    panel = app.hud_panels["help"]
    camera = app.camera
    drawn = []
    fills = app.renderer.overlay.fills()
    if len(fills):
        corners = camera.world_to_screen(fills[:, 0:2]).reshape(-1, 3, 2)
        drawn += [(*c.min(axis=0), *c.max(axis=0)) for c in corners]
    world = app.world
    for i in range(world.body_count):
        at = camera.world_to_screen(world.vertices(i))
        drawn.append((*at.min(axis=0), *at.max(axis=0)))
    atlas = app.renderer.text.atlas
    drawn += [(x, y, x + atlas.text_width(t), y + atlas.line_height) for t, x, y, _ in app.labels()]
    assert drawn
    # Within a cell of the map: the panel may touch a cell something else touches.
    inner = (panel[0] + CELL_PX, panel[1] + CELL_PX, panel[2] - CELL_PX, panel[3] - CELL_PX)
    hits = [box for box in drawn if _rects_overlap(inner, box)]
    assert not hits, (name, size, panel, hits[:3])
