"""The camera maps the scene's world rectangle into any framebuffer, aspect kept."""

from __future__ import annotations

import numpy as np
import pytest

from demo.draw.camera import Camera


@pytest.mark.parametrize(("width", "height"), [(640, 480), (480, 640), (100, 100), (1920, 1080), (1, 1)])
def test_view_fits_centred_with_square_pixels(width: int, height: int) -> None:
    cam = Camera((0.0, 0.0, 100.0, 100.0), width, height)
    x0, y0, x1, y1 = cam.visible_rect()
    # The whole view is visible, it touches the framebuffer on one axis, and it is centred.
    assert x0 <= 1e-9 and y0 <= 1e-9 and x1 >= 100 - 1e-9 and y1 >= 100 - 1e-9
    assert min(abs(x1 - x0 - 100), abs(y1 - y0 - 100)) < 1e-9
    assert (x0 + x1) / 2 == pytest.approx(50) and (y0 + y1) / 2 == pytest.approx(50)
    # One world unit is as many pixels across as up.
    assert (x1 - x0) / width == pytest.approx((y1 - y0) / height)


def test_corners_map_to_the_framebuffer_corners() -> None:
    cam = Camera((0.0, 0.0, 100.0, 100.0), 400, 200)  # 2 pixels per unit, x from -50 to 150
    assert np.allclose(cam.screen_to_world(0, 0), [-50, 100])
    assert np.allclose(cam.screen_to_world(400, 200), [150, 0])
    assert np.allclose(cam.world_to_screen(np.array([50.0, 50.0])), [200, 100])


def test_matrix_agrees_with_screen_mapping() -> None:
    cam = Camera((0.0, 0.0, 100.0, 100.0), 640, 480)
    cam.zoom_about(100, 50, 2.0)
    for point in ([10.0, 20.0], [90.0, 75.0]):
        clip = cam.matrix().astype(np.float64) @ np.array([*point, 0.0, 1.0])
        pixel = cam.world_to_screen(np.array(point))
        assert clip[0] == pytest.approx(pixel[0] / 640 * 2 - 1)
        assert clip[1] == pytest.approx(1 - pixel[1] / 480 * 2)


def test_zoom_keeps_the_point_under_the_cursor() -> None:
    cam = Camera((0.0, 0.0, 100.0, 100.0), 640, 480)
    before = cam.screen_to_world(123, 77)
    cam.zoom_about(123, 77, 1.7)
    assert np.allclose(cam.screen_to_world(123, 77), before)
    assert cam.pixels_per_unit == pytest.approx(4.8 * 1.7)


def test_pan_moves_the_world_with_the_mouse_and_reset_restores() -> None:
    cam = Camera((0.0, 0.0, 100.0, 100.0), 640, 480)
    grabbed = cam.screen_to_world(300, 200)
    cam.pan_pixels(40, -25)
    assert np.allclose(cam.screen_to_world(340, 175), grabbed)
    cam.reset()
    assert np.allclose(cam.center, [50, 50]) and cam.zoom == 1.0


def test_zero_size_framebuffer_is_harmless() -> None:
    cam = Camera((0.0, 0.0, 100.0, 100.0), 640, 480)
    cam.resize(0, 0)
    assert np.isfinite(cam.matrix()).all()


@pytest.mark.parametrize("top", [0.0, 37.0, 120.0])
def test_the_view_fits_below_the_top_bar(top: float) -> None:
    cam = Camera((0.0, 0.0, 100.0, 100.0), 640, 480, top=top)
    x0, y0, x1, y1 = cam.visible_rect()
    # The view's top edge is at or below the bar; the bottom at or above the frame's bottom.
    assert cam.world_to_screen(np.array([50.0, 100.0]))[1] >= top - 1e-9
    assert cam.world_to_screen(np.array([50.0, 0.0]))[1] <= 480 + 1e-9
    assert y1 - y0 == pytest.approx((480 - top) / cam.pixels_per_unit)
    assert cam.pixels_per_unit == pytest.approx(min(640 / 100, (480 - top) / 100))
    for point in ([10.0, 20.0], [90.0, 75.0]):  # the matrix agrees with the mapping
        clip = cam.matrix().astype(np.float64) @ np.array([*point, 0.0, 1.0])
        pixel = cam.world_to_screen(np.array(point))
        assert clip[0] == pytest.approx(pixel[0] / 640 * 2 - 1)
        assert clip[1] == pytest.approx(1 - pixel[1] / 480 * 2)
        assert np.allclose(cam.screen_to_world(*pixel), point)
