"""The text over the picture, laid out in framebuffer pixels (numpy only), each block on a
translucent panel so it reads over any body or wall:

- the top bar: the heads-up line, the scene's status lines and a legend line for each overlay
  that is on; the camera shows the world below it, so it never covers a body at zoom 1;
- labels placed at world points (with a shadow);
- a message line at the bottom (a saved screenshot's path, a file that did not load);
- the help, while it is up: the stats panel on the left and, on the right, the scene's own
  lines and the controls that act in it, in two columns that never overlap: the descriptions
  are wrapped to the room there is, and help that is still too tall is shown a page at a time.

:func:`layout_progress` draws the start-up frame (a title, what is happening, a progress bar).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from demo.draw import palette
from demo.draw.palette import Color
from demo.draw.placement import PLACES
from demo.draw.text import GlyphAtlas, TextBatch

#: Spacing in pixels at HiDPI scale 1: around the window's edge, inside a panel, between columns.
MARGIN, PAD, COLUMN_GAP = 8, 5, 16
#: The help's description column is never narrower than this many font sizes (else the stats
#: panel gives up its place beside it).
MIN_TEXT_EMS = 14
#: The stats panel takes at most this fraction of the width.
STATS_MAX_FRACTION = 0.3

Spans = Sequence[tuple[str, Color]]


@dataclass
class HudContent:
    """What the text shows this frame.

    ``hud_line``: the heads-up line; ``status``: the scene's lines; ``legend``: one line of
    coloured spans per overlay that is on; ``message``: a line at the bottom ("" for none);
    ``labels``: (text, pixel x, pixel y, colour) placed in the picture; while ``help_alpha`` >
    0: ``stats`` (left panel), ``scene_help`` (the scene's lines) and ``help_rows`` (label,
    description; a heading has no description), page ``help_page``.
    """

    hud_line: str
    #: The heads-up line with its figures at their widest: the bar keeps room for it, so a
    #: figure that grows does not make the bar (and the picture under it) jump.
    hud_template: str = ""
    status: Sequence[str] = ()
    legend: Sequence[Spans] = ()
    message: str = ""
    labels: Sequence[tuple[str, float, float, Color]] = ()
    stats: Sequence[str] = ()
    scene_help: Sequence[str] = ()
    help_rows: Sequence[tuple[str, str]] = ()
    help_alpha: float = 0.0
    help_page: int = 0
    #: Where the help panel goes: (on the right, at the top); the stats panel takes the other side.
    help_place: tuple[bool, bool] = (True, True)


@dataclass
class HudLayout:
    """A laid-out frame of text: ``vertices`` for the text batch, ``top`` (pixels the top bar
    takes: the camera shows the world below it), ``help_pages`` (1 when the help fits) and the
    pixel rectangles of the panels drawn (x0, y0, x1, y1), named."""

    vertices: np.ndarray
    top: float
    help_pages: int = 1
    panels: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    #: The help's panels (help, stats) as they would be at each place (HudContent.help_place).
    help_places: dict[tuple[bool, bool], list[tuple[float, ...]]] = field(default_factory=dict)


#: What separates the heads-up line's parts; it wraps there, not inside a part.
SEPARATOR = "  |  "


def wrap_parts(atlas: GlyphAtlas, line: str, width: float) -> list[str]:
    """``line``'s SEPARATOR-joined parts gathered into lines of at most ``width`` pixels (a part
    wider than that alone is wrapped as text)."""
    lines: list[str] = []
    current = ""
    for part in line.split(SEPARATOR):
        candidate = f"{current}{SEPARATOR}{part}" if current else part
        if current and atlas.text_width(candidate) > width:
            lines.append(current)
            candidate = part
        if atlas.text_width(candidate) > width:
            *done, candidate = atlas.wrap(candidate, width)
            lines += done
        current = candidate
    return [*lines, current]


def _faded(color: Color, alpha: float) -> Color:
    return palette.faded(color, alpha)


def layout_hud(batch: TextBatch, content: HudContent, width: int, height: int, scale: int = 1) -> HudLayout:
    """Lay ``content`` out for a ``width`` x ``height`` framebuffer at HiDPI ``scale``."""
    atlas = batch.atlas
    batch.clear()
    margin, pad = MARGIN * scale, PAD * scale
    line = atlas.line_height
    room = max(width - 2 * margin - 2 * pad, 1)
    panels: dict[str, tuple[float, float, float, float]] = {}

    # The top bar: the HUD line, the status lines, the legends (each wrapped to the width).
    rows: list[tuple[str | Spans, Color]] = [
        (text, palette.HUD_TEXT) for text in wrap_parts(atlas, content.hud_line, room)
    ]
    reserved = len(wrap_parts(atlas, content.hud_template, room)) if content.hud_template else 0
    rows += [("", palette.HUD_TEXT)] * max(reserved - len(rows), 0)
    for status in content.status:
        rows += [(text, palette.STATUS_TEXT) for text in atlas.wrap(status, room)]
    rows += [(spans, palette.WHITE) for spans in content.legend]
    top = 2 * pad + len(rows) * line
    batch.add_rect(0, 0, width, top, palette.PANEL)
    panels["top"] = (0.0, 0.0, float(width), float(top))
    y = pad
    for text, color in rows:
        if isinstance(text, str):
            batch.add(text, margin, y, color)
        else:
            batch.add_spans(text, margin, y)
        y += line

    for text, px, py, color in content.labels:
        if py > top:
            batch.add(text, px, py, color, shadow=True)

    bottom = float(height)
    message = atlas.wrap(content.message, room) if content.message else []
    fit = max(int((height - top - 2 * pad) // line), 0)
    if len(message) > fit:  # a window too small for all of it: below the top bar, cut short
        message = message[:fit]
        if message:
            message[-1] = message[-1][:-1] + "\u2026"
    if message:
        bottom = height - 2 * pad - len(message) * line
        batch.add_rect(0, bottom, width, height, palette.PANEL)
        panels["message"] = (0.0, bottom, float(width), float(height))
        for k, text in enumerate(message):
            batch.add(text, margin, bottom + pad + k * line, palette.MESSAGE_TEXT)

    pages = 1
    places: dict[tuple[bool, bool], list[tuple[float, float, float, float]]] = {}
    # A window too small for both: the help (up for a few seconds, back on `h`) goes before the
    # message (the answer to what the user just did).
    help_fits = bottom - top - 2 * margin >= 2 * pad + 3 * line
    if content.help_alpha > 0.0 and help_fits:
        span = (top + margin, bottom - margin)
        pages = _layout_help(batch, atlas, content, width, span, scale, panels, places)
    return HudLayout(batch.vertices(), float(top), pages, panels, places)


def _panel_at(
    place: tuple[bool, bool], size: tuple[float, float], width: int, span: tuple[float, float], margin: float
) -> tuple[float, float, float, float]:
    """A panel of ``size`` (w, h) at ``place`` (right, top) within ``width`` and heights ``span``."""
    w, h = size
    x0 = max(width - margin - w, margin) if place[0] else margin
    y0 = span[0] if place[1] else max(span[1] - h, span[0])
    return (float(x0), float(y0), float(x0 + w), float(y0 + h))


def _layout_help(
    batch: TextBatch,
    atlas: GlyphAtlas,
    content: HudContent,
    width: int,
    span: tuple[float, float],
    scale: int,
    panels: dict[str, tuple[float, float, float, float]],
    places: dict[tuple[bool, bool], list[tuple[float, float, float, float]]],
) -> int:
    """The stats and help panels between heights ``span``, the help at ``content.help_place``
    and the stats on the other side (``places``: both panels' rectangles at every place);
    returns the number of help pages."""
    alpha = content.help_alpha
    margin, pad, gap = MARGIN * scale, PAD * scale, COLUMN_GAP * scale
    line = atlas.line_height
    y0, y1 = span
    lines_fit = max(int((y1 - y0 - 2 * pad) // line), 1)
    label_w = max((atlas.text_width(label) for label, text in content.help_rows if text), default=0.0)
    text_w = max((atlas.text_width(text) for _, text in content.help_rows), default=0.0)
    stats_w = max((atlas.text_width(text) for text in content.stats), default=0.0) + 2 * pad
    min_text = MIN_TEXT_EMS * atlas.pixel_size
    available = width - 2 * margin - 2 * pad - label_w - gap  # for the descriptions, without stats
    beside = stats_w <= STATS_MAX_FRACTION * width and available - stats_w - margin >= min(text_w, min_text)
    place = content.help_place
    stats_size: tuple[float, float] | None = None
    if content.stats and beside:
        available -= stats_w + margin
        stats_rows = list(content.stats)[:lines_fit]
        stats_size = (stats_w, 2 * pad + len(stats_rows) * line)
        sx0, sy0, sx1, sy1 = _panel_at((not place[0], place[1]), stats_size, width, span, margin)
        batch.add_rect(sx0, sy0, sx1, sy1, _faded(palette.PANEL, alpha))
        panels["stats"] = (sx0, sy0, sx1, sy1)
        for k, text in enumerate(stats_rows):
            batch.add(text, sx0 + pad, sy0 + pad + k * line, _faded(palette.HELP_TEXT, alpha))
    text_col = max(min(text_w, available), min_text / 2)
    # The help as display lines (label, text, colour, in the description column): the scene's
    # own lines across both columns, then the rows, their descriptions wrapped.
    lines: list[tuple[str, str, Color, bool]] = []
    for text in content.scene_help:
        lines += [
            ("", piece, palette.STATUS_TEXT, False) for piece in atlas.wrap(text, label_w + gap + text_col)
        ]
    if not beside and content.stats:
        lines += [("", text, palette.HELP_TEXT, False) for text in content.stats]
    for label, text in content.help_rows:
        if not text:
            lines.append((label, "", palette.HELP_HEADING, False))
            continue
        for k, piece in enumerate(atlas.wrap(text, text_col)):
            lines.append((label if k == 0 else "", piece, palette.HELP_TEXT, True))
    per_page = lines_fit if len(lines) <= lines_fit else max(lines_fit - 1, 1)
    pages = max(1, -(-len(lines) // per_page))
    page = content.help_page % pages
    shown = lines[page * per_page : (page + 1) * per_page]
    footer = f"h: next page ({page + 1} of {pages})" if pages > 1 else ""
    panel_w = label_w + gap + text_col + 2 * pad
    used_w = max(
        [panel_w, *(atlas.text_width(f"{label}{text}") + 2 * pad for label, text, _, col in shown if not col)]
    )
    used_w = min(used_w, width - 2 * margin)
    rows = len(shown) + (1 if footer else 0)
    help_size = (used_w, 2 * pad + rows * line)
    for where in PLACES:
        places[where] = [_panel_at(where, help_size, width, span, margin)]
        if stats_size is not None:
            places[where].append(_panel_at((not where[0], where[1]), stats_size, width, span, margin))
    x0, y0, x1, y1 = places[place][0]
    batch.add_rect(x0, y0, x1, y1, _faded(palette.PANEL, alpha))
    panels["help"] = (x0, y0, x1, y1)
    y = y0 + pad
    for label, text, color, in_column in shown:
        if label:
            batch.add(label, x0 + pad, y, _faded(palette.HELP_KEY if text else color, alpha))
        if text:
            batch.add(text, x0 + pad + (label_w + gap if in_column else 0), y, _faded(color, alpha))
        y += line
    if footer:
        batch.add(footer, x0 + pad, y, _faded(palette.HELP_HEADING, alpha))
    return pages


def layout_progress(
    batch: TextBatch, lines: Sequence[str], fraction: float | None, width: int, height: int, scale: int = 1
) -> np.ndarray:
    """The start-up frame: ``lines`` (the first is the title) on a panel in the middle, with a
    progress bar filled to ``fraction`` (0..1; None: no bar)."""
    atlas = batch.atlas
    batch.clear()
    pad, line = 3 * PAD * scale, atlas.line_height
    room = max(width - 4 * pad, 1)
    wrapped = [piece for text in lines for piece in atlas.wrap(text, room)]
    inner = max((atlas.text_width(text) for text in wrapped), default=0.0)
    panel_w = min(max(inner, 0.5 * width) + 2 * pad, width)
    bar_h = 0.6 * line if fraction is not None else 0
    panel_h = 2 * pad + len(wrapped) * line + (bar_h + pad if fraction is not None else 0)
    x0, y0 = 0.5 * (width - panel_w), max(0.5 * (height - panel_h), 0.0)
    batch.add_rect(x0, y0, x0 + panel_w, y0 + panel_h, palette.PANEL)
    y = y0 + pad
    for k, text in enumerate(wrapped):
        batch.add(text, x0 + pad, y, palette.HUD_TEXT if k == 0 else palette.HELP_TEXT)
        y += line
    if fraction is not None:
        bx0, bx1 = x0 + pad, x0 + panel_w - pad
        y += 0.5 * pad
        batch.add_rect(bx0, y, bx1, y + bar_h, palette.PROGRESS_TRACK)
        filled = bx0 + float(np.clip(fraction, 0.0, 1.0)) * (bx1 - bx0)
        batch.add_rect(bx0, y, filled, y + bar_h, palette.PROGRESS_FILL)
    return batch.vertices()
