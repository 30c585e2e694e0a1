"""The text over the picture, laid out without drawing (numpy only): real font metrics (spaces
and kerning), columns and panels that never overlap, a readable size in any window, the help
wrapped and paged when it does not fit, and the heads-up bar kept off the world."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from demo import controls, scenes
from demo.draw.hud import HudContent, layout_hud
from demo.draw.text import BASE_FONT_PX, MIN_FONT_PX, GlyphAtlas, TextBatch


@pytest.fixture(scope="module")
def atlas() -> GlyphAtlas:
    return GlyphAtlas(BASE_FONT_PX)


def test_spaces_advance_and_kerning_applies(atlas: GlyphAtlas) -> None:
    space = atlas.text_width(" ")
    assert space > 0.2 * BASE_FONT_PX  # a real space, not a collapsed one
    for text in ("help again", "previous scene", "physics 0.10 ms/step"):
        assert (
            atlas.text_width(text) >= atlas.text_width(text.replace(" ", "")) + text.count(" ") * space - 1e-6
        )
    # The font's kerning: "AV" is narrower than "A" and "V" apart, "To" than "T" and "o".
    assert atlas.text_width("AV") < atlas.text_width("A") + atlas.text_width("V") - 0.5
    assert atlas.text_width("To") < atlas.text_width("T") + atlas.text_width("o") - 0.5


def _glyph_boxes(vertices: np.ndarray) -> np.ndarray:
    """(x0, y0, x1, y1) of each quad (6 vertices each)."""
    quads = vertices[:, 0:2].reshape(-1, 6, 2)
    return np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)


def test_words_are_drawn_apart(atlas: GlyphAtlas) -> None:
    batch = TextBatch(atlas)
    batch.add("help again", 0.0, 0.0, (1.0, 1.0, 1.0, 1.0))
    boxes = _glyph_boxes(batch.vertices())
    assert len(boxes) == 9  # the space draws nothing
    gap = boxes[4, 0] - boxes[3, 2]  # between the p of "help" and the a of "again"
    assert gap >= 0.5 * atlas.text_width(" ")


class RecordingText(TextBatch):
    """A TextBatch that also keeps each string drawn: (text, x, y, width)."""

    def clear(self) -> None:
        super().clear()
        self.strings: list[tuple[str, float, float, float]] = []

    def add(self, text: str, x: float, y: float, color: Any, shadow: bool = False) -> float:
        width = super().add(text, x, y, color, shadow)
        if text and color[3] > 0.0:
            self.strings.append((text, float(round(x)), float(round(y)), width))
        return width


def _content(name: str, width: int, height: int, help_alpha: float = 1.0) -> tuple[HudContent, Any]:
    scene = scenes.build_scene(name)
    features = controls.scene_features(scene)
    content = HudContent(
        hud_line=f"{name}  |  solver iterative  |  60 fps  |  physics 0.10 ms/step  |  contacts 7",
        status=list(scene.status),
        legend=[[("c  contact points: ", (1, 1, 1, 1)), ("new", (1, 0, 0, 1))]],
        message="screenshot saved: /home/someone/Pictures/polycolly/polycolly-20260101-000000-001.png",
        stats=["mouse: 50.0, 50.0", "Gravity : on", "bodies : 20"],
        scene_help=scene.help,
        help_rows=controls.help_rows(scene, features),
        help_alpha=help_alpha,
    )
    return content, scene


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize(("width", "height"), [(960, 720), (1280, 800), (640, 480), (400, 700), (320, 240)])
@pytest.mark.parametrize("name", ["rigid", "sat", "crack", "bullet"])
def test_panels_stay_apart_inside_the_window_and_columns_never_overlap(
    atlas: GlyphAtlas, name: str, width: int, height: int
) -> None:
    content, _ = _content(name, width, height)
    pages = 1
    page = 0
    while page < pages:
        content.help_page = page
        batch = RecordingText(atlas)
        layout = layout_hud(batch, content, width, height)
        pages = layout.help_pages
        panels = layout.panels
        for key, box in panels.items():
            assert 0 <= box[0] < box[2] <= width and 0 <= box[1] < box[3] <= height, (key, box)
        names = list(panels)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                assert not _overlap(panels[a], panels[b]), (a, b, panels[a], panels[b])
        # Every string inside the window; strings on one line apart (the label column never
        # runs into the descriptions: "Tab / Shift+Tab" and its text at 1280 x 800); lines
        # a line's height apart.
        strings = batch.strings
        assert strings
        for text, x, y, w in strings:
            assert x >= 0 and x + w <= width + 1 and 0 <= y <= height - atlas.line_height + 1, (text, x, y, w)
        for i, (text, x, y, w) in enumerate(strings):
            for other, x2, y2, w2 in strings[i + 1 :]:
                if abs(y - y2) < atlas.line_height - 0.5:
                    assert y == y2 and (x + w <= x2 + 0.5 or x2 + w2 <= x + 0.5), (text, other, width, height)
        page += 1
    assert pages >= 1


@pytest.mark.parametrize(("width", "height"), [(960, 720), (400, 700), (320, 240), (240, 160)])
@pytest.mark.parametrize("help_alpha", [0.0, 1.0])
def test_the_message_is_always_on_screen(
    atlas: GlyphAtlas, width: int, height: int, help_alpha: float
) -> None:
    """What the user just did (a screenshot's path) is said at any size, help up or not, below
    the top bar (cut short in a window too small for it)."""
    content, _ = _content("rigid", width, height, help_alpha)
    content.message = "screenshot saved: " + "/deep/folder" * 12 + "/polycolly-20260101-000000-001.png"
    batch = RecordingText(atlas)
    layout = layout_hud(batch, content, width, height)
    assert "message" in layout.panels
    assert layout.panels["message"][1] >= layout.panels["top"][3]
    said = "".join(text for text, x, y, w in batch.strings if y >= layout.panels["message"][1])
    said, whole = said.replace(" ", ""), content.message.replace(" ", "")
    if height >= 240:
        assert said == whole
    else:  # no room for all of it below the top bar: its start, cut short
        assert said.endswith("\u2026") and whole.startswith(said[:-1])


def test_a_small_window_gets_paged_help_at_a_readable_size(atlas: GlyphAtlas) -> None:
    content, _ = _content("rigid", 400, 700)
    batch = TextBatch(atlas)
    first = layout_hud(batch, content, 400, 300)
    assert first.help_pages >= 2
    assert atlas.pixel_size >= MIN_FONT_PX
    seen = set()
    for page in range(first.help_pages):
        content.help_page = page
        layout_hud(batch, content, 400, 300)
        seen.add(batch.vertices().tobytes())
    assert len(seen) == first.help_pages  # each page shows other rows


def test_the_top_bar_holds_the_heads_up_line_status_and_legends(atlas: GlyphAtlas) -> None:
    content, scene = _content("crack", 960, 720, help_alpha=0.0)
    layout = layout_hud(TextBatch(atlas), content, 960, 720)
    rows = 1 + len(scene.status) + len(content.legend)
    assert layout.top == pytest.approx(2 * 5 + rows * atlas.line_height)
    template = HudContent(hud_line="x", hud_template=content.hud_line * 3)
    assert layout_hud(TextBatch(atlas), template, 960, 720).top > 2 * 5 + atlas.line_height


def _no_font_layout(atlas: GlyphAtlas, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, a measure needing Pillow's layout on the drawing side fails the test."""

    def refuse(text: str, *args: Any, **kwargs: Any) -> float:
        raise AssertionError(f"the kerning of {text!r} was measured while drawing")

    monkeypatch.setattr(atlas.font, "getlength", refuse)


def test_kerning_learned_ahead_is_what_drawing_measures(monkeypatch: pytest.MonkeyPatch) -> None:
    """learn_kerning (the loader's thread, its own font) leaves the drawing side nothing to
    measure, and the widths are those the drawing side measures itself."""
    texts = ["AVATAR To Yo", "Wave: 7 fps | Tab next", "caf\u00e9 ~{}", "x"]
    measured = GlyphAtlas(BASE_FONT_PX)
    widths = [measured.text_width(text) for text in texts]
    ahead = GlyphAtlas(BASE_FONT_PX)
    ahead.learn_kerning(texts)
    _no_font_layout(ahead, monkeypatch)
    assert [ahead.text_width(text) for text in texts] == widths
    assert [ahead.wrap(text, 60.0) for text in texts] == [measured.wrap(text, 60.0) for text in texts]


@pytest.mark.parametrize("name", ["sat", "contacts", "pile"])
def test_a_scene_built_for_the_window_comes_with_its_texts_kerning(
    name: str, gl: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scene built on the loader's thread (demo.app._built_with_mesh) has its help, status
    and help rows' kerning measured: its first frame lays them out without Pillow. (``gl``:
    demo.app imports OpenGL, after the context module has chosen its platform.)"""
    from demo import readout
    from demo.app import _built_with_mesh

    atlas = GlyphAtlas(BASE_FONT_PX)
    scene, _ = _built_with_mesh(name, 0, None, atlas)
    _no_font_layout(atlas, monkeypatch)
    for text in readout.scene_texts(scene):
        atlas.wrap(text, 200.0)
