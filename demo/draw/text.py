"""Overlay text: a glyph atlas rendered with Pillow at start-up, and text batches.

No GL here: the atlas is a numpy image that demo/render.py uploads once, and a ``TextBatch``
turns strings into textured quads (float32 vertices in framebuffer pixels) with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: Printable ASCII; anything else is drawn as '?'.
FIRST_CHAR, LAST_CHAR = 32, 126
#: Font size in pixels at HiDPI scale 1 (the original used GLUT's 8x13 bitmap font), and the
#: smallest size the overlay shrinks to so that the help fits a small window.
BASE_FONT_PX, MIN_FONT_PX = 13, 8
_COLUMNS = 16


class GlyphAtlas:
    """Glyphs of printable ASCII in one image.

    ``image (h, w) uint8`` coverage; ``uv (95, 4)`` float32 (u0, v0, u1, v1) per glyph;
    ``advance (95,)`` pixels; ``cell (w, h)`` pixels; ``line_height`` pixels.
    """

    def __init__(self, pixel_size: int = BASE_FONT_PX) -> None:
        size = max(int(pixel_size), 1)
        self.pixel_size = size
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont
        try:
            font = ImageFont.load_default(size=size)
        except TypeError:  # Pillow without FreeType: the fixed bitmap font
            font = ImageFont.load_default()
        chars = [chr(c) for c in range(FIRST_CHAR, LAST_CHAR + 1)]
        ascent, descent = font.getmetrics() if hasattr(font, "getmetrics") else (size, size // 4)
        cell_h = int(ascent + descent) + 2
        advance = np.array([max(font.getlength(ch), 1.0) for ch in chars], dtype=np.float32)
        cell_w = int(np.ceil(advance.max())) + 2
        rows = (len(chars) + _COLUMNS - 1) // _COLUMNS
        image = Image.new("L", (cell_w * _COLUMNS, cell_h * rows), 0)
        draw = ImageDraw.Draw(image)
        uv = np.zeros((len(chars), 4), dtype=np.float32)
        width, height = image.size
        for index, ch in enumerate(chars):
            col, row = index % _COLUMNS, index // _COLUMNS
            x, y = col * cell_w, row * cell_h
            draw.text((x + 1, y + 1), ch, fill=255, font=font)
            uv[index] = (x / width, y / height, (x + cell_w) / width, (y + cell_h) / height)
        self.image = np.asarray(image, dtype=np.uint8).copy()
        self.uv = uv
        self.advance = advance
        self.cell = (cell_w, cell_h)
        self.line_height = cell_h - 1

    def codes(self, text: str) -> np.ndarray:
        """Glyph indices (k,) int64 for ``text`` (unknown characters become '?')."""
        raw = np.frombuffer(text.encode("ascii", "replace"), dtype=np.uint8).astype(np.int64)
        raw = np.where((raw < FIRST_CHAR) | (raw > LAST_CHAR), ord("?"), raw)
        return raw - FIRST_CHAR

    def text_width(self, text: str) -> float:
        return float(self.advance[self.codes(text)].sum())


class TextBatch:
    """Strings laid out as textured quads: 6 vertices (x, y, u, v, r, g, b, a) per glyph."""

    def __init__(self, atlas: GlyphAtlas) -> None:
        self.atlas = atlas
        self._parts: list[np.ndarray] = []
        # Each line's quads are laid out once at the origin and then only moved: the overlay's
        # lines rarely change from frame to frame.
        self._cache: dict[str, np.ndarray] = {}
        # Whole blocks of placed lines (the help, the stats): the same from frame to frame
        # except for their colour while they fade.
        self._blocks: dict[tuple[tuple[str, float, float], ...], np.ndarray] = {}

    def clear(self) -> None:
        self._parts = []

    def _layout(self, text: str) -> np.ndarray:
        quads = self._cache.get(text)
        if quads is not None:
            return quads
        atlas = self.atlas
        all_codes = atlas.codes(text)
        # Each glyph starts where the advances of the ones before it end; spaces draw nothing.
        x_start = np.cumsum(atlas.advance[all_codes]) - atlas.advance[all_codes]
        drawn = all_codes != 0
        codes, x_start = all_codes[drawn], x_start[drawn]
        cw, ch = atlas.cell
        x0 = x_start - 1.0
        x1 = x0 + cw
        y0 = np.full_like(x0, -1.0)
        y1 = y0 + ch
        u0, v0, u1, v1 = (atlas.uv[codes, i] for i in range(4))
        # Two triangles per glyph: (0, 1, 2) and (0, 2, 3) of the corners TL, TR, BR, BL.
        corners_x = np.stack([x0, x1, x1, x0, x1, x0], axis=1)
        corners_y = np.stack([y0, y0, y1, y0, y1, y1], axis=1)
        corners_u = np.stack([u0, u1, u1, u0, u1, u0], axis=1)
        corners_v = np.stack([v0, v0, v1, v0, v1, v1], axis=1)
        quads = np.zeros((len(codes) * 6, 8), dtype=np.float32)
        quads[:, 0] = corners_x.ravel()
        quads[:, 1] = corners_y.ravel()
        quads[:, 2] = corners_u.ravel()
        quads[:, 3] = corners_v.ravel()
        if len(self._cache) > 512:
            self._cache.clear()
        self._cache[text] = quads
        return quads

    def add(self, text: str, x: float, y: float, color: tuple[float, float, float, float]) -> None:
        """Draw ``text`` with its top-left corner at pixel (x, y) in ``color`` (RGBA 0..1)."""
        if not text or color[3] <= 0.0:
            return
        quads = self._layout(text)
        if len(quads) == 0:
            return
        placed = quads.copy()
        placed[:, 0] += np.float32(round(x))
        placed[:, 1] += np.float32(round(y))
        placed[:, 4:8] = color
        self._parts.append(placed)

    def add_block(
        self, lines: Sequence[tuple[str, float, float]], color: tuple[float, float, float, float]
    ) -> None:
        """Several ``(text, x, y)`` lines in one ``color``, as :meth:`add` each would draw them."""
        if color[3] <= 0.0 or not lines:
            return
        key = tuple((text, float(round(x)), float(round(y))) for text, x, y in lines)
        placed = self._blocks.get(key)
        if placed is None:
            parts = []
            for text, x, y in key:
                quads = self._layout(text) if text else np.zeros((0, 8), dtype=np.float32)
                moved = quads.copy()
                moved[:, 0] += np.float32(x)
                moved[:, 1] += np.float32(y)
                parts.append(moved)
            placed = np.concatenate(parts) if parts else np.zeros((0, 8), dtype=np.float32)
            if len(self._blocks) > 16:
                self._blocks.clear()
            self._blocks[key] = placed
        if len(placed) == 0:
            return
        block = placed.copy()
        block[:, 4:8] = color
        self._parts.append(block)

    def vertices(self) -> np.ndarray:
        """All quads added since ``clear``: (6 * glyphs, 8) float32."""
        if not self._parts:
            return np.zeros((0, 8), dtype=np.float32)
        return np.concatenate(self._parts)
