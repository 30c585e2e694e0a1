"""Text: DejaVu Sans rasterised with Pillow into a glyph atlas, and text batches (numpy only).

The atlas is built at the size the text is drawn at, in framebuffer pixels (the HiDPI scale
included), so glyphs are drawn pixel for pixel. Glyphs advance by the font's own advances plus
its kerning (measured by Pillow on each pair, once); the pen is kept in fractional pixels and
each glyph placed at the nearest whole pixel. A :class:`TextBatch` turns strings into textured
quads (float32 vertices in framebuffer pixels, origin top-left, y down) and also draws solid
rectangles (panels, bars) in the same draw call, marked by a negative atlas coordinate
(:data:`SOLID_UV`): the text shader gives them their colour without reading the atlas.

No GL here: demo/draw/render.py uploads the atlas image.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from demo import resources
from demo.draw.palette import Color

#: The font, shipped in assets/fonts with its licence (LICENSE-DejaVu.txt).
FONT_FILE = "assets/fonts/DejaVuSans.ttf"
#: Printable ASCII; anything else is drawn as '?'.
FIRST_CHAR, LAST_CHAR = 32, 126
#: Font size in pixels at HiDPI scale 1, and the smallest size the program ever draws (times
#: the scale): below it a small window gets wrapped and paged help, not smaller letters.
BASE_FONT_PX, MIN_FONT_PX = 14, 12
#: Pixels of empty space around each glyph in the atlas (no bleeding between neighbours).
PAD = 1
#: The atlas rectangle of a solid rectangle: negative, which the text shader (shaders/text.frag)
#: takes as "this quad's colour, no glyph" (a software rasteriser then skips the texture read
#: over the panels, most of the text's pixels).
SOLID_UV = np.array([-1.0, -1.0, -1.0, -1.0], dtype=np.float32)
#: Extra space between lines, as a fraction of the font size.
LEADING = 0.1
#: A label's shadow: offset (pixels at scale 1) and opacity.
SHADOW_OFFSET, SHADOW_ALPHA = 1.0, 0.75
_ATLAS_WIDTH = 512
#: Which of a quad's 6 vertices (TL TR BR, TL BR BL) take the right and the bottom edge.
_RIGHT = np.array([False, True, True, False, True, False])
_BOTTOM = np.array([False, False, True, False, True, True])
#: Bytes of ASCII text -> glyph indices (anything outside printable ASCII -> '?').
_GLYPH_INDEX = bytes((b if FIRST_CHAR <= b <= LAST_CHAR else ord("?")) - FIRST_CHAR for b in range(256))


def _glyph_bytes(text: str) -> bytes:
    """``text``'s glyph indices, one byte each."""
    return text.encode("ascii", "replace").translate(_GLYPH_INDEX)


@cache
def _font_bytes() -> bytes:
    return resources.path(FONT_FILE).read_bytes()


def load_font(pixel_size: int) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at ``pixel_size`` pixels (the em size)."""
    return ImageFont.truetype(io.BytesIO(_font_bytes()), max(int(pixel_size), 1))


class GlyphAtlas:
    """Glyphs of printable ASCII in one image, with the metrics to lay text out.

    ``image (h, w) uint8`` coverage; per glyph (95,): ``uv (95, 4)`` float32 atlas rectangle,
    ``box (95, 4)`` float32 pixel rectangle (x0, y0, x1, y1) relative to the pen at the line's
    top, ``advance (95,)`` pixels; ``line_height`` and ``ascent`` pixels.
    """

    def __init__(self, pixel_size: int = BASE_FONT_PX) -> None:
        size = max(int(pixel_size), 1)
        self.pixel_size = size
        self.font = load_font(size)
        ascent, descent = self.font.getmetrics()
        self.ascent = int(ascent)
        self.line_height = int(ascent + descent + round(LEADING * size))
        chars = [chr(c) for c in range(FIRST_CHAR, LAST_CHAR + 1)]
        self.advance = np.array([self.font.getlength(ch) for ch in chars], dtype=np.float64)
        boxes = np.array([self.font.getbbox(ch) for ch in chars], dtype=np.float64)  # anchor: left, ascender
        # Shelf packing: glyphs left to right in rows as tall as the tallest glyph.
        cell_h = int(np.ceil((boxes[:, 3] - boxes[:, 1]).max())) + 2 * PAD
        x, y = 0, 0
        places = []
        for x0, _, x1, _ in boxes:
            w = int(np.ceil(x1 - x0)) + 2 * PAD
            if x + w > _ATLAS_WIDTH:
                x, y = 0, y + cell_h
            places.append((x, y))
            x += w
        height = y + cell_h
        image = Image.new("L", (_ATLAS_WIDTH, height), 0)
        draw = ImageDraw.Draw(image)
        uv = np.zeros((len(chars), 4), dtype=np.float32)
        box = np.zeros((len(chars), 4), dtype=np.float32)
        for index, (ch, (x0, y0, x1, y1), (px, py)) in enumerate(zip(chars, boxes, places, strict=True)):
            w, h = int(np.ceil(x1 - x0)), int(np.ceil(y1 - y0))
            # Draw so the glyph's box lands at (px + PAD, py + PAD).
            draw.text((px + PAD - x0, py + PAD - y0), ch, fill=255, font=self.font)
            gx, gy = px + PAD - 1, py + PAD - 1  # one texel of margin: smooth edges
            uv[index] = (gx / _ATLAS_WIDTH, gy / height, (gx + w + 2) / _ATLAS_WIDTH, (gy + h + 2) / height)
            box[index] = (x0 - 1, y0 - 1, x0 + w + 1, y0 + h + 1)
        self.image = np.asarray(image, dtype=np.uint8).copy()
        self.uv = uv
        self.box = box
        self.drawn = (box[:, 2] - box[:, 0] > 2) & (box[:, 3] - box[:, 1] > 2)  # not a space
        self._kerning: dict[tuple[int, int], float] = {}
        self._side_font: ImageFont.FreeTypeFont | None = None  # learn_kerning's (another thread)
        # Widths and wrapped lines of the strings seen (the HUD asks for the same ones every frame).
        self._widths: dict[str, float] = {}
        self._wraps: dict[tuple[str, int], list[str]] = {}

    def codes(self, text: str) -> np.ndarray:
        """Glyph indices (k,) int64 for ``text`` (unknown characters become '?')."""
        return np.frombuffer(_glyph_bytes(text), dtype=np.uint8).astype(np.int64)

    def kerning(self, codes: np.ndarray) -> np.ndarray:
        """The kerning (pixels) before each glyph of ``codes (k,)``: (k,), the first 0."""
        return np.array(self._kerning_list(codes.tolist())[: len(codes)])

    def _kerning_list(self, codes: Sequence[int]) -> list[float]:
        # Plain Python over the pairs: reading a numpy array element by element costs more
        # than the lookups, and a new scene's help measures hundreds of strings in its first
        # frame.
        table = self._kerning
        out = [0.0]
        for pair in zip(codes, codes[1:], strict=False):
            value = table.get(pair)
            if value is None:
                value = table[pair] = self._pair_kerning(self.font, pair)
            out.append(value)
        return out

    def _pair_kerning(self, font: ImageFont.FreeTypeFont, pair: tuple[int, int]) -> float:
        a, b = chr(pair[0] + FIRST_CHAR), chr(pair[1] + FIRST_CHAR)
        return font.getlength(a + b) - self.advance[pair[0]] - self.advance[pair[1]]

    def learn_kerning(self, texts: Iterable[str]) -> None:
        """Measure ahead the kerning of the neighbouring glyphs in ``texts`` not known yet.

        Each pair is a layout by Pillow (20-60 us here), and a scene's first frame would
        otherwise measure hundreds. Meant for one thread beside the drawing thread (the
        loader's, while it builds the scene): it measures with a font of its own and adds the
        values the drawing thread would have found.
        """
        table = self._kerning
        missing = {
            pair
            for raw in map(_glyph_bytes, texts)
            for pair in zip(raw, raw[1:], strict=False)
            if pair not in table
        }
        if missing and self._side_font is None:
            self._side_font = load_font(self.pixel_size)
        for pair in missing:
            table[pair] = self._pair_kerning(self._side_font, pair)

    def pen(self, text: str) -> tuple[np.ndarray, np.ndarray, float]:
        """(codes (k,), pen x of each glyph (k,), the text's width), pixels."""
        raw = _glyph_bytes(text)
        codes = np.frombuffer(raw, dtype=np.uint8).astype(np.int64)
        steps = self.advance[codes]
        if len(raw) > 1:
            steps[:-1] += self._kerning_list(raw)[1:]  # a glyph advances by its own and the next pair's
        x = np.zeros(len(raw))
        np.cumsum(steps[:-1], out=x[1:])
        return codes, x, float(steps.sum())

    def text_width(self, text: str) -> float:
        """``text``'s advance width in pixels (kerning included)."""
        width = self._widths.get(text)
        if width is None:
            if len(self._widths) > 4096:
                self._widths.clear()
            width = self._widths[text] = self.pen(text)[2]
        return width

    def wrap(self, text: str, width: float) -> list[str]:
        """``text`` broken into lines of at most ``width`` pixels, after spaces and slashes, or
        inside a piece that alone is wider."""
        key = (text, int(width))
        lines = self._wraps.get(key)
        if lines is None:
            if len(self._wraps) > 4096:
                self._wraps.clear()
            lines = self._wraps[key] = self._wrap(text, width)
        return list(lines)

    def _wrap(self, text: str, width: float) -> list[str]:
        if self.text_width(text) <= width:
            return [text]
        # Break after spaces and slashes (a path wraps at its folders); a piece still too long
        # is cut where it reaches the width.
        pieces = [piece for piece in re.split(r"(?<=[ /])", text) if piece]
        lines: list[str] = []
        line = ""
        for piece in pieces:
            if line and self.text_width((line + piece).rstrip()) > width:
                lines.append(line.rstrip())
                line = ""
            while self.text_width(piece.rstrip()) > width and len(piece) > 1:
                cut = max(1, self._fitting(piece, width))
                lines.append(piece[:cut])
                piece = piece[cut:]
            line += piece
        if line.strip():
            lines.append(line.rstrip())
        return lines or [""]

    def _fitting(self, text: str, width: float) -> int:
        """How many leading characters of ``text`` fit in ``width`` pixels."""
        _, pen, _ = self.pen(text)
        ends = pen + self.advance[self.codes(text)]
        return int(np.searchsorted(ends, width, side="right"))


class TextBatch:
    """Strings laid out as textured quads: 6 vertices (x, y, u, v, r, g, b, a) per glyph, and
    solid rectangles (quads marked SOLID_UV), in the order they were added."""

    def __init__(self, atlas: GlyphAtlas) -> None:
        self.atlas = atlas
        self._parts: list[np.ndarray] = []
        # Each string's quads are laid out once at the origin and then only moved: the HUD's
        # lines rarely change from frame to frame.
        self._cache: dict[str, np.ndarray] = {}

    def clear(self) -> None:
        self._parts = []

    def _layout(self, text: str) -> np.ndarray:
        quads = self._cache.get(text)
        if quads is not None:
            return quads
        atlas = self.atlas
        codes, pen, _ = atlas.pen(text)
        keep = atlas.drawn[codes]
        codes, pen = codes[keep], pen[keep]
        box = atlas.box[codes]
        x0 = np.round(pen) + box[:, 0]
        quads = _quads(x0, box[:, 1], x0 + (box[:, 2] - box[:, 0]), box[:, 3], atlas.uv[codes])
        if len(self._cache) > 512:
            self._cache.clear()
        self._cache[text] = quads
        return quads

    def add(self, text: str, x: float, y: float, color: Color, shadow: bool = False) -> float:
        """Draw ``text`` with its line's top-left corner at pixel (x, y) in ``color`` (RGBA 0..1);
        ``shadow``: a dark copy one pixel down and right first (reads over any background).
        Returns the text's width in pixels."""
        if not text:
            return 0.0
        if color[3] > 0.0:
            quads = self._layout(text)
            if len(quads):
                if shadow:
                    offset = SHADOW_OFFSET * max(1.0, self.atlas.pixel_size / BASE_FONT_PX)
                    self._place(quads, x + offset, y + offset, (0.0, 0.0, 0.0, SHADOW_ALPHA * color[3]))
                self._place(quads, x, y, color)
        return self.atlas.text_width(text)

    def add_spans(self, spans: Sequence[tuple[str, Color]], x: float, y: float) -> float:
        """Consecutive pieces of one line in their own colours; returns the line's width."""
        start = x
        for text, color in spans:
            x += self.add(text, x, y, color)
        return x - start

    def add_rect(self, x0: float, y0: float, x1: float, y1: float, color: Color) -> None:
        """A solid rectangle from pixel (x0, y0) to (x1, y1) in ``color``."""
        if color[3] <= 0.0 or x1 <= x0 or y1 <= y0:
            return
        quads = _quads(
            np.array([float(x0)]),
            np.array([float(y0)]),
            np.array([float(x1)]),
            np.array([float(y1)]),
            SOLID_UV[None, :],
        )
        quads[:, 4:8] = color
        self._parts.append(quads)

    def _place(self, quads: np.ndarray, x: float, y: float, color: Color) -> None:
        placed = quads.copy()
        placed[:, 0] += np.float32(round(x))
        placed[:, 1] += np.float32(round(y))
        placed[:, 4:8] = color
        self._parts.append(placed)

    def vertices(self) -> np.ndarray:
        """All quads added since ``clear``: (6 * quads, 8) float32."""
        if not self._parts:
            return np.zeros((0, 8), dtype=np.float32)
        return np.concatenate(self._parts)


def _quads(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Two triangles per rectangle, (0, 1, 2) and (0, 2, 3) of the corners TL, TR, BR, BL:
    (6 * n, 8) float32 with the colour left at 0."""
    quads = np.zeros((len(x0), 6, 8), dtype=np.float32)
    quads[:, :, 0] = np.where(_RIGHT, x1[:, None], x0[:, None])
    quads[:, :, 1] = np.where(_BOTTOM, y1[:, None], y0[:, None])
    quads[:, :, 2] = np.where(_RIGHT, uv[:, 2:3], uv[:, 0:1])
    quads[:, :, 3] = np.where(_BOTTOM, uv[:, 3:4], uv[:, 1:2])
    return quads.reshape(-1, 8)
