"""The heads-up text laid out in framebuffer pixels (numpy only): the heads-up line, the scene's
status lines, the message line, labels placed at world points, and the fading help overlay
(the stats column on the left, the scene's controls on the right).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from demo.draw import palette
from demo.draw.palette import Color
from demo.draw.text import GlyphAtlas, TextBatch


@dataclass
class HudContent:
    """What the HUD shows this frame.

    ``hud_line``: the heads-up line; ``status``: the scene's lines; ``message``: one line at the
    bottom ("" for none); ``labels``: (text, pixel x, pixel y, colour) placed in the picture;
    ``stats`` and ``help_rows``: the help overlay's columns, drawn with ``help_alpha`` (0: not
    at all).
    """

    hud_line: str
    status: Sequence[str] = ()
    message: str = ""
    labels: Sequence[tuple[str, float, float, Color]] = ()
    stats: Sequence[str] = ()
    help_rows: Sequence[tuple[str, str]] = ()
    help_alpha: float = 0.0
    legend: Sequence[Any] = field(default_factory=list)


class HudLayout:
    """Lays a :class:`HudContent` out as text quads; keeps the help's column widths per atlas."""

    def __init__(self) -> None:
        self._help_width: tuple[Any, tuple[float, float]] | None = None

    def build(
        self, batch: TextBatch, atlas: GlyphAtlas, content: HudContent, width: int, height: int, scale: int
    ) -> np.ndarray:
        """The HUD's text vertices for a ``width`` x ``height`` framebuffer (HiDPI ``scale``)."""
        batch.clear()
        line_h = atlas.line_height
        margin = 6 * scale
        batch.add(content.hud_line, margin, margin, palette.HUD_TEXT)
        for label, px, py, color in content.labels:
            batch.add(label, px, py, color)
        status_y = margin + line_h
        for line in content.status:
            batch.add(line, margin, status_y, palette.STATUS_TEXT)
            status_y += line_h
        if content.message:
            batch.add(content.message, margin, height - margin - line_h, palette.HUD_TEXT)
        alpha = content.help_alpha
        if alpha > 0.0 and content.help_rows:
            color = palette.faded(palette.HELP_TEXT, alpha)
            y = margin + (2 + len(content.status)) * line_h
            block: list[tuple[str, float, float]] = []
            for line in content.stats:
                block.append((line, margin, y))
                y += line_h
            rows = content.help_rows
            key = (atlas.pixel_size, id(atlas), tuple(rows))
            if self._help_width is None or self._help_width[0] != key:
                label_w = max(atlas.text_width(label) for label, text in rows if text)
                text_w = max(atlas.text_width(text) for _, text in rows)
                self._help_width = (key, (label_w + atlas.cell[0], text_w))
            label_w, text_w = self._help_width[1]
            x = max(width - label_w - text_w - margin, width * 0.5)
            y = margin + 2 * line_h
            for label, text in rows:
                block.append((label, x, y))
                block.append((text, x + label_w, y))
                y += line_h
            batch.add_block(block, color)
        return batch.vertices()
