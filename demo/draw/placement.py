"""Where the help goes: a coarse map of the framebuffer's pixels that show something (bodies,
figures, labels) and, of the places a panel may take, the one that covers least of it.

Numpy only; everything in framebuffer pixels (x right, y down).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Side of a cell of the map (pixels): fine enough for a figure's rows, cheap for 1000 bodies.
CELL_PX = 8

#: A panel's place: (on the right, at the top).
Place = tuple[bool, bool]
#: The places tried, in order of preference (ties go to the first): the top right first.
PLACES: tuple[Place, ...] = ((True, True), (False, True), (True, False), (False, False))


def busy_map(
    width: int, height: int, boxes: np.ndarray, segments: np.ndarray, cell: int = CELL_PX
) -> np.ndarray:
    """Cells (rows, columns) bool of a ``width`` x ``height`` framebuffer that something is drawn
    in: ``boxes (n, 4)`` (x0, y0, x1, y1) cover every cell they touch, ``segments (m, 2, 2)``
    the cells along them."""
    rows, cols = -(-max(height, 1) // cell), -(-max(width, 1) // cell)
    count = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    if len(boxes):
        x0 = np.clip(np.floor(boxes[:, 0] / cell), 0, cols).astype(np.int64)
        y0 = np.clip(np.floor(boxes[:, 1] / cell), 0, rows).astype(np.int64)
        x1 = np.clip(np.floor(boxes[:, 2] / cell) + 1, 0, cols).astype(np.int64)
        y1 = np.clip(np.floor(boxes[:, 3] / cell) + 1, 0, rows).astype(np.int64)
        keep = (x1 > x0) & (y1 > y0)
        x0, y0, x1, y1 = x0[keep], y0[keep], x1[keep], y1[keep]
        # Corners of each box in a difference array; the running sums count boxes per cell.
        np.add.at(count, (y0, x0), 1)
        np.add.at(count, (y0, x1), -1)
        np.add.at(count, (y1, x0), -1)
        np.add.at(count, (y1, x1), 1)
    busy = np.cumsum(np.cumsum(count, axis=0), axis=1)[:rows, :cols] > 0
    segments = np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2)
    if len(segments):
        a, b = segments[:, 0], segments[:, 1]
        steps = np.clip(np.ceil(np.hypot(*(b - a).T) / (0.5 * cell)), 1, 4 * max(rows, cols)).astype(np.int64)
        which = np.repeat(np.arange(len(segments)), steps + 1)
        t = np.concatenate([np.linspace(0.0, 1.0, k + 1) for k in steps])
        points = a[which] + (b - a)[which] * t[:, None]
        inside = (points[:, 0] >= 0) & (points[:, 0] < width) & (points[:, 1] >= 0) & (points[:, 1] < height)
        cells = (points[inside] // cell).astype(np.int64)
        busy[cells[:, 1], cells[:, 0]] = True
    return busy


def covered(busy: np.ndarray, rect: Sequence[float], cell: int = CELL_PX) -> int:
    """How many busy cells the pixel rectangle ``rect`` (x0, y0, x1, y1) touches."""
    rows, cols = busy.shape
    x0, y0 = int(max(rect[0] // cell, 0)), int(max(rect[1] // cell, 0))
    x1, y1 = int(min(-(-rect[2] // cell), cols)), int(min(-(-rect[3] // cell), rows))
    if x1 <= x0 or y1 <= y0:
        return 0
    return int(np.count_nonzero(busy[y0:y1, x0:x1]))


def best_place(busy: np.ndarray, rects_at: dict[Place, list[Sequence[float]]]) -> Place:
    """Of the places ``rects_at`` offers (the panels' rectangles at each), the one covering the
    fewest busy cells (the earliest of PLACES on a tie)."""
    ordered = [place for place in PLACES if place in rects_at]
    return min(ordered, key=lambda place: sum(covered(busy, rect) for rect in rects_at[place]))


def shown(
    camera: Any, world: Any, overlay: Any, labels: Sequence[Sequence[float]], wv: np.ndarray, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """What a frame will show while the help is up, in pixels: ``(boxes (n, 4), segments (m, 2,
    2))`` of the bodies (those that fall reach to the bottom, or the top: they will be there in a
    second), the overlay's fills and points (figures, arrows), the ``labels`` (x0, y0, x1, y1)
    and the overlay's lines.

    ``camera``: a demo.draw.camera.Camera; ``world``: a collision.World; ``overlay``: a
    demo.draw.batch.OverlayBatch; ``wv (bodies, MAXV, 2)``: the world's vertices.
    """
    boxes = [np.asarray(labels, dtype=np.float64).reshape(-1, 4)]
    if world.body_count:
        valid = np.arange(wv.shape[1])[None, :] < np.asarray(world.vertex_count)[:, None]
        lo = camera.world_to_screen(np.where(valid[..., None], wv, np.inf).min(axis=1))
        hi = camera.world_to_screen(np.where(valid[..., None], wv, -np.inf).max(axis=1))
        box = np.column_stack([lo[:, 0], hi[:, 1], hi[:, 0], lo[:, 1]])  # y runs down
        gravity = float(np.asarray(world.gravity, dtype=np.float64)[1])
        falling = ~(np.asarray(world.static, dtype=bool) | np.asarray(world.sleeping, dtype=bool))
        if gravity < 0.0:
            box[falling, 3] = height
        elif gravity > 0.0:
            box[falling, 1] = 0.0
        boxes.append(box)
    fills = overlay.fills()
    if len(fills):
        corners = camera.world_to_screen(fills[:, 0:2]).reshape(-1, 3, 2)
        boxes.append(np.column_stack([corners.min(axis=1), corners.max(axis=1)]))
    points = overlay.points()
    if len(points):
        at = camera.world_to_screen(points[:, 0:2])
        boxes.append(np.column_stack([at - 2.0, at + 2.0]))
    lines = overlay.lines()
    segments = np.zeros((0, 2, 2))
    if len(lines):
        segments = camera.world_to_screen(lines[:, 0:2]).reshape(-1, 2, 2)
    return np.concatenate(boxes), segments
