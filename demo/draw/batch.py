"""Overlay batches: world-space lines, points, filled polygons, arrows and text labels that the
program and the scenes collect during a frame (numpy only).

Everything ends up in the renderer's fixed batches (fills, lines, points, text), so overlays
never add draw calls.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from demo.draw.mesh import FILL_FLOATS, VERTEX_FLOATS, polygon_fills, vertex_array
from demo.draw.palette import Color

#: Filled polygons remembered from frame to frame (a turret that stays put is not rebuilt).
POLYGON_CACHE_SIZE = 256
#: Arrow heads: length as a fraction of the arrow, capped (world units), and half-angle (rad).
ARROW_HEAD_FRACTION, ARROW_HEAD_MAX, ARROW_HEAD_ANGLE = 0.25, 1.5, 0.45


class OverlayBatch:
    """World-space overlay lines, points, filled polygons and text labels collected during a frame.

    Everything ends up in the renderer's fixed batches (fills, lines, points, text), so overlays
    never add draw calls.
    """

    def __init__(self) -> None:
        self._lines: list[np.ndarray] = []
        self._points: list[np.ndarray] = []
        # Fill vertices, or for a polygon not made yet its index in _unmade (made together).
        self._fills: list[np.ndarray | int] = []
        self._unmade: list[tuple[tuple[bytes, tuple[float, ...]], np.ndarray, Color]] = []
        self._labels: list[tuple[str, Color, list[tuple[np.ndarray, tuple[float, float]]]]] = []
        # Fill vertices by (polygon, colour), kept across frames (read only once made).
        self._polygon_fills: dict[tuple[bytes, tuple[float, ...]], np.ndarray] = {}

    def clear(self) -> None:
        self._lines, self._points, self._fills, self._labels = [], [], [], []
        self._unmade = []

    def add_polygon(
        self,
        vertices: np.ndarray,
        fill: Color | None,
        outline: Color | None = None,
    ) -> None:
        """A convex polygon ``vertices (k, 2)`` (world units): filled (a fan) and/or outlined."""
        v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
        k = len(v)
        if fill is not None and k >= 3:
            key = (v.tobytes(), tuple(map(float, fill)))
            fills = self._polygon_fills.get(key)
            if fills is None:
                self._fills.append(len(self._unmade))
                self._unmade.append((key, v, fill))
            else:
                self._fills.append(fills)
        if outline is not None and k >= 2:
            ends = np.arange(k if k >= 3 else 1)
            self.add_lines(np.stack([v[ends], v[(ends + 1) % k]], axis=1), outline)
        elif outline is not None and k == 1:
            self.add_points(v, outline)

    def add_arrows(self, start: np.ndarray, end: np.ndarray, color: Color | np.ndarray) -> None:
        """Arrows ``start -> end`` ((m, 2) each, world units) with a head at ``end``."""
        start = np.asarray(start, dtype=np.float64).reshape(-1, 2)
        end = np.asarray(end, dtype=np.float64).reshape(-1, 2)
        if len(start) == 0:
            return
        d = end - start
        length = np.hypot(d[:, 0], d[:, 1])
        safe = np.where(length > 0.0, length, 1.0)
        back = -d / safe[:, None]
        head = np.minimum(length * ARROW_HEAD_FRACTION, ARROW_HEAD_MAX)[:, None]
        c, s = np.cos(ARROW_HEAD_ANGLE), np.sin(ARROW_HEAD_ANGLE)
        left = np.stack([c * back[:, 0] - s * back[:, 1], s * back[:, 0] + c * back[:, 1]], axis=1)
        right = np.stack([c * back[:, 0] + s * back[:, 1], -s * back[:, 0] + c * back[:, 1]], axis=1)
        segments = np.stack(
            [
                np.stack([start, end], 1),
                np.stack([end, end + left * head], 1),
                np.stack([end, end + right * head], 1),
            ],
            axis=1,
        )
        color_array = np.asarray(color, dtype=np.float32)
        if color_array.ndim == 2:
            color_array = np.repeat(color_array, 3, axis=0)
        self.add_lines(segments.reshape(-1, 2, 2), color_array)

    def add_text(
        self,
        text: str,
        point: np.ndarray,
        color: Color,
        anchor: tuple[float, float] = (0.0, 0.0),
        elsewhere: Sequence[tuple[np.ndarray, tuple[float, float]]] = (),
    ) -> None:
        """A text label at world ``point (2,)``; ``anchor``: the point of the label's box that is
        there, as fractions of its width and height from its top-left corner ((0, 0): the
        top-left corner, (1, 0.5): the middle of its right side). ``elsewhere``: other (point,
        anchor) places, in order, for when the box would leave the picture there."""
        places = [(point, anchor), *elsewhere]
        self._labels.append(
            (
                str(text),
                color,
                [(np.asarray(p, dtype=np.float64).reshape(2), (float(a[0]), float(a[1]))) for p, a in places],
            )
        )

    def fills(self) -> np.ndarray:
        """The filled polygons' vertices (FILL_FLOATS each), in the order they were added."""
        if self._unmade:
            # All at once: a figure's dozens of bars cost one pass, not one each.
            made = polygon_fills([v for _, v, _ in self._unmade], [color for _, _, color in self._unmade])
            sizes = [9 * len(v) - 6 for _, v, _ in self._unmade]  # 3 (k - 2) + 6 k
            pieces = np.split(made, np.cumsum(sizes)[:-1])
            if len(self._polygon_fills) + len(pieces) > POLYGON_CACHE_SIZE:
                self._polygon_fills.clear()
            for (key, _, _), piece in zip(self._unmade, pieces, strict=True):
                self._polygon_fills[key] = piece
            self._fills = [pieces[f] if isinstance(f, int) else f for f in self._fills]
            self._unmade = []
        parts = [f for f in self._fills if not isinstance(f, int)]
        return np.concatenate(parts) if parts else np.zeros((0, FILL_FLOATS), np.float32)

    def labels(self) -> list[tuple[str, Color, list[tuple[np.ndarray, tuple[float, float]]]]]:
        """The labels added: (text, colour, [(world point, anchor), ...] in order of preference)."""
        return list(self._labels)

    def add_lines(self, segments: np.ndarray, color: Color | np.ndarray) -> None:
        """``segments (m, 2, 2)`` world units; ``color`` (4,) or (m, 4)."""
        segments = np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2)
        if len(segments) == 0:
            return
        colors = np.broadcast_to(np.asarray(color, dtype=np.float32), (len(segments), 4))
        self._lines.append(vertex_array(segments.reshape(-1, 2), None, np.repeat(colors, 2, axis=0)))

    def add_points(self, points: np.ndarray, color: Color | np.ndarray) -> None:
        """``points (m, 2)`` world units; ``color`` (4,) or (m, 4)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if len(points) == 0:
            return
        colors = np.broadcast_to(np.asarray(color, dtype=np.float32), (len(points), 4))
        self._points.append(vertex_array(points, None, colors))

    def add_boxes(self, lo: np.ndarray, hi: np.ndarray, color: Color) -> None:
        """Axis-aligned rectangles from corners ``lo``, ``hi`` (m, 2)."""
        lo, hi = np.asarray(lo).reshape(-1, 2), np.asarray(hi).reshape(-1, 2)
        c0 = lo
        c1 = np.stack([hi[:, 0], lo[:, 1]], axis=1)
        c2 = hi
        c3 = np.stack([lo[:, 0], hi[:, 1]], axis=1)
        segments = np.stack(
            [np.stack([c0, c1], 1), np.stack([c1, c2], 1), np.stack([c2, c3], 1), np.stack([c3, c0], 1)],
            axis=1,
        )
        self.add_lines(segments.reshape(-1, 2, 2), color)

    def lines(self) -> np.ndarray:
        return np.concatenate(self._lines) if self._lines else np.zeros((0, VERTEX_FLOATS), np.float32)

    def points(self) -> np.ndarray:
        return np.concatenate(self._points) if self._points else np.zeros((0, VERTEX_FLOATS), np.float32)
