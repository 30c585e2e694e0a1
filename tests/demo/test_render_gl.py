"""Real frames drawn offscreen and read back: colours, text, motion, resizing, draw calls."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from collision import Polygon
from tests.demo.conftest import simple_scene

BACKGROUND = np.array([0.2, 0.2, 0.2])
NOISE_MIN = 0.6  # demo.render.NOISE_MIN: the darkest the noise texture modulates a fill


def _fill_range(rgb: tuple[float, float, float], alpha: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Pixel range (0..255) of a translucent noise-modulated fill over the background."""
    rgb_a = np.array(rgb)
    lo = (NOISE_MIN * rgb_a * alpha + BACKGROUND * (1 - alpha)) * 255
    hi = (rgb_a * alpha + BACKGROUND * (1 - alpha)) * 255
    return lo - 2, hi + 2


def _pixel(image: np.ndarray, app: Any, point: tuple[float, float]) -> np.ndarray:
    x, y = app.camera.world_to_screen(np.array(point, dtype=float))
    return image[int(y), int(x)].astype(float)


def _draw_after_fade(app: Any) -> np.ndarray:
    """Draw a few frames without the help and read the last one back."""
    app.hide_help()
    for _ in range(5):
        app.frame(1 / 60)
    return app.ctx.read_pixels()


def _two_box_scene() -> Any:
    return simple_scene(
        [
            (Polygon.box(20, 20), (30.0, 50.0), True),
            (Polygon.box(20, 20), (70.0, 50.0), False),
        ]
    )


def test_background_and_fill_colours(make_app: Any) -> None:
    app = make_app(_two_box_scene())
    image = _draw_after_fade(app)
    assert image.shape == (240, 320, 3)
    assert np.array_equal(_pixel(image, app, (50.0, 85.0)), [51, 51, 51])  # (0.2, 0.2, 0.2) where nothing is
    assert np.array_equal(_pixel(image, app, (50.0, 50.0)), [51, 51, 51])
    lo, hi = _fill_range((0.5, 0.5, 1.0))  # static: 0x808080FF at 50%
    static = _pixel(image, app, (30.0, 50.0))
    assert (static >= lo).all() and (static <= hi).all(), static
    lo, hi = _fill_range((0.5, 1.0, 0.5))  # moving: 0x8080FF80 at 50%
    moving = _pixel(image, app, (70.0, 50.0))
    assert (moving >= lo).all() and (moving <= hi).all(), moving


def test_fill_is_textured_with_noise(make_app: Any) -> None:
    app = make_app(simple_scene([(Polygon.box(80, 80), (50.0, 50.0), True)]))
    image = _draw_after_fade(app)
    x0, y0 = app.camera.world_to_screen(np.array([20.0, 80.0])).astype(int)
    x1, y1 = app.camera.world_to_screen(np.array([80.0, 20.0])).astype(int)
    blue = image[y0:y1, x0:x1, 2].astype(float)
    assert blue.std() > 2.0  # not a flat colour
    assert blue.max() - blue.min() < 0.5 * (1 - NOISE_MIN) * 255 + 4


def test_outlines_are_opaque_and_their_edge_is_smoothed(make_app: Any) -> None:
    app = make_app(simple_scene([(Polygon.box(40, 40), (50.0, 50.0), False)]))
    image = _draw_after_fade(app)
    x, y = app.camera.world_to_screen(np.array([30.0, 50.0])).astype(int)  # the left edge
    column = image[y, x - 2 : x + 3].astype(int)
    assert any(np.abs(c - [0, 160, 0]).max() <= 16 for c in column), column  # 0xFF00A000, nearly
    # Outward of the outline the colour fades to the background over a pixel: a pixel between.
    outside = image[y, x - 3 : x + 1, 1].astype(int)
    assert any(51 + 10 < g < 160 - 10 for g in outside), outside


def _white_pixels(image: np.ndarray) -> int:
    """Bright white text pixels in the help column (right half, below the heads-up line)."""
    height, width, _ = image.shape
    region = image[int(0.1 * height) : int(0.85 * height), width // 2 :]
    return int(np.count_nonzero((region > 200).all(axis=2)))


def _seconds(app: Any, seconds: float) -> None:
    for _ in range(round(seconds / 0.1)):
        app.frame(0.1)


def test_the_help_stays_four_seconds_is_held_while_paused_and_goes_at_the_first_input(
    make_app: Any,
) -> None:
    from demo.app import HELP_FADE_S, HELP_SECONDS

    app = make_app(_two_box_scene())
    app.ctx.resize(640, 480)
    app.frame(1 / 60)
    assert _white_pixels(app.ctx.read_pixels()) > 200  # up when the scene starts
    _seconds(app, HELP_SECONDS - 0.5)
    assert _white_pixels(app.ctx.read_pixels()) > 200  # still up, readable
    _seconds(app, 0.5 + HELP_FADE_S + 0.2)
    assert _white_pixels(app.ctx.read_pixels()) == 0  # then gone
    app.press("P")
    app.frame(1 / 60)
    assert app.paused
    assert _white_pixels(app.ctx.read_pixels()) > 200
    _seconds(app, 2 * HELP_SECONDS)  # paused: the help is held
    assert _white_pixels(app.ctx.read_pixels()) > 200
    app.press("P")  # back to the game: the help is up again for a while
    _seconds(app, 1.0)
    assert _white_pixels(app.ctx.read_pixels()) > 200
    app.press("G")  # the first input: it fades out at once
    _seconds(app, HELP_FADE_S + 0.2)
    assert _white_pixels(app.ctx.read_pixels()) == 0
    app.press("H")
    app.frame(1 / 60)
    assert _white_pixels(app.ctx.read_pixels()) > 200


def test_picture_changes_after_steps(make_app: Any) -> None:
    app = make_app()
    app.frame(1 / 60)
    before = app.ctx.read_pixels()
    for _ in range(30):
        app.frame(1 / 60)
    after = app.ctx.read_pixels()
    arena = (slice(20, 220), slice(60, 260))
    changed = np.count_nonzero(np.any(before[arena] != after[arena], axis=2))
    assert changed > 100


def test_resize_changes_the_viewport(make_app: Any) -> None:
    # A static bar over world x in [0, 10]: where it lands tells the viewport and camera.
    app = make_app(simple_scene([(Polygon.box(10, 100), (5.0, 50.0), True)]))
    for size in ((400, 200), (200, 400)):
        app.ctx.resize(*size)
        image = _draw_after_fade(app)
        assert image.shape == (size[1], size[0], 3)
        top = app.camera.top
        ppu = app.camera.pixels_per_unit  # the 100 x 100 view fitted below the heads-up bar
        assert ppu == pytest.approx(min(size[0] / 100.0, (size[1] - top) / 100.0))
        left, y = app.camera.world_to_screen(np.array([0.0, 50.0]))
        right = left + 10.0 * ppu
        row = image[int(y)]
        inside = row[int(left) + 3 : int(right) - 2]
        assert (inside[:, 2] > 90).all() and (inside[:, 0] < 95).all()
        for x in (left - 4, right + 4):  # beyond the bar (and its one-pixel soft edge)
            if 0 <= x < size[0]:
                assert np.array_equal(row[int(x)], [51, 51, 51])


def test_zero_size_framebuffer_draws_nothing_and_does_not_crash(make_app: Any) -> None:
    app = make_app()
    app.ctx.resize(0, 0)  # the offscreen context keeps 1 x 1; the app sees no area to draw
    app.frame(1 / 60)
    app.ctx.resize(320, 240)
    app.frame(1 / 60)
    assert app.renderer.draw_calls > 0


@pytest.mark.parametrize("bodies", [20, 400])
def test_draw_calls_do_not_grow_with_bodies(make_app: Any, bodies: int) -> None:
    app = make_app(bodies=bodies)
    for toggle in ("C", "N", "B", "V"):
        app.press(toggle)
    app.cursor(200, 100)
    app.key("X", True)
    for _ in range(5):
        app.frame(1 / 60)
    # fills, lines, points, text, and the static bodies' picture copied in (single-sampled)
    copied = app.renderer.background.texture is not None
    assert app.renderer.draw_calls == 4 + copied


def test_shader_error_names_the_file_and_has_the_log(ctx: Any, tmp_path: Any) -> None:
    from demo.draw.render import ShaderError, load_program

    (tmp_path / "broken.vert").write_text("#version 330 core\nvoid main() { gl_Position = oops; }\n")
    (tmp_path / "broken.frag").write_text("#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1); }\n")
    with pytest.raises(ShaderError) as info:
        load_program("broken", tmp_path)
    message = str(info.value)
    assert "broken.vert" in message and "oops" in message


def test_f2_saves_the_frame_as_png(make_app: Any, tmp_path: Any) -> None:
    from PIL import Image

    app = make_app(_two_box_scene())
    app.press("F2")
    app.frame(1 / 60)
    assert len(app.screenshots) == 1
    saved = np.asarray(Image.open(app.screenshots[0]).convert("RGB"))
    assert np.array_equal(saved, app.ctx.read_pixels())


def test_hidpi_scale_change_keeps_the_cursor_and_the_world(make_app: Any, monkeypatch: Any) -> None:
    """A window moved to a screen of twice the pixel density mid-run (framebuffer 2x the window
    size), then back: the picture fills the new framebuffer, the cursor (window coordinates)
    still points at the same world point, the text grows with the scale, and the world is fine."""
    app = make_app(simple_scene([(Polygon.box(10, 100), (5.0, 50.0), True)]))
    logical = (320, 240)
    app.ctx.resize(*logical)
    monkeypatch.setattr(app.ctx, "window_size", lambda: logical)
    app.cursor(80.0, 60.0)
    app.hide_help()  # the bar's pixels are checked below, not the help over them
    app.frame(1 / 60)
    before = app.cursor_world()
    scale_before = app._text_scale()
    for scale in (2, 1):
        app.ctx.resize(logical[0] * scale, logical[1] * scale)
        for _ in range(3):
            app.frame(1 / 60)
        image = app.ctx.read_pixels()
        assert image.shape == (logical[1] * scale, logical[0] * scale, 3)
        assert np.allclose(app.cursor_world(), before, atol=1e-9)
        assert app._text_scale() == scale * scale_before
        # The bar (world x 0..10) is drawn where the camera says, at this framebuffer's size.
        x, y = app.camera.world_to_screen(np.array([5.0, 50.0]))
        assert image[int(y), int(x), 2] > 90
    for name in ("position", "angle", "velocity", "angular_velocity"):
        assert np.isfinite(getattr(app.world, name)).all()


def test_priming_the_renderer_leaves_no_trace_in_the_frames_after(ctx: Any) -> None:
    """The start-up's throwaway frame (every batch kind, both paths of the static bodies) changes
    nothing the scene's frames show: pixel for pixel the frames of an unprimed renderer."""
    import io

    from demo.app import App
    from demo.draw.render import Renderer

    def frames(prime: bool) -> list[np.ndarray]:
        renderer = Renderer()
        if prime:
            renderer.prime(ctx.framebuffer, *ctx.framebuffer_size())
        app = App(ctx, _two_box_scene(), renderer=renderer, out=io.StringIO())
        app.show["contacts"] = app.show["velocities"] = True
        app.world.set_velocity(1, (-20.0, 0.0))
        shots = []
        for _ in range(3):
            app.frame(1 / 60)
            shots.append(app.ctx.read_pixels())
        return shots

    plain, primed = frames(False), frames(True)
    assert not np.array_equal(plain[0], plain[2])  # the frames show motion, not one picture
    for a, b in zip(plain, primed, strict=True):
        assert np.array_equal(a, b)


def test_a_scene_moved_to_shows_its_own_lines_and_h_brings_all_the_controls(make_app: Any) -> None:
    """The first scene shows the whole help; a scene the user moves to (Tab) only its own lines
    and where the rest is, a smaller panel; `h` then shows all of it."""
    from demo.readout import BRIEF_HELP

    app = make_app()
    app.ctx.resize(960, 720)
    app.frame(1 / 60)
    full = app.hud_content()
    assert len(full.help_rows) > 10 and full.stats
    full_panel = app.hud_panels["help"]
    app.press("TAB")
    app.frame(1 / 60)
    assert app.scene.name != "rigid"
    brief = app.hud_content()
    assert brief.help_alpha == 1.0
    assert tuple(brief.help_rows) == BRIEF_HELP and not brief.stats
    assert list(brief.scene_help) == list(app.scene.help) and brief.scene_help
    panel = app.hud_panels["help"]
    assert (panel[3] - panel[1]) < 0.5 * (full_panel[3] - full_panel[1])
    app.press("H")
    app.frame(1 / 60)
    again = app.hud_content()
    assert len(again.help_rows) > 10 and again.stats
    assert app.help_page == 0  # the first page, not the next


@pytest.mark.parametrize("samples", [1, 4])
def test_static_bodies_kept_picture_is_the_picture_drawn_directly(
    make_app: Any, monkeypatch: Any, samples: int
) -> None:
    """The static bodies are drawn once into a picture of their own and put into each frame
    (a copy of what they cover, or multisampled a whole copy): the frame is the one drawing
    them every time would give, pixel for pixel, in a scene with big textured walls."""
    from demo import scenes
    from demo.draw import render

    monkeypatch.setenv("POLYCOLLY_MSAA", str(samples))
    app = make_app(scene=scenes.build_scene("rigid"))
    app.ctx.resize(400, 300)
    app.renderer.target = target = render.MultisampleTarget()
    if target.samples != samples:
        pytest.skip(f"this OpenGL has no {samples}-sample target")
    app.renderer.background = render.ColorTarget(target.samples)
    app.paused = True
    for _ in range(3):
        app.frame(1 / 60)  # the walls' picture is made once they stay put, then put in
    assert app.renderer._background_key is not None
    kept = app.ctx.read_pixels()
    app.renderer._last_static_key = None  # the walls as if they had moved: drawn with the rest
    app.redraw()
    app.frame(1 / 60)
    direct = app.ctx.read_pixels()
    assert app.mesh.static_vertices > 0
    assert np.array_equal(kept, direct)
