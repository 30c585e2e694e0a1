"""The camera: which world rectangle is shown in a framebuffer of a given size.

No GL here, so the mapping can be tested on its own. Pixels are framebuffer pixels (not window
coordinates, which differ on HiDPI screens) with the origin at the top-left and y down; the
world has y up.
"""

from __future__ import annotations

import numpy as np

#: Zoom limits (multiples of the scene's fitted view): beyond them the picture is useless.
MIN_ZOOM = 0.05
MAX_ZOOM = 50.0


class Camera:
    """Shows ``view = (x0, y0, x1, y1)`` (world units) as large as fits, centred, aspect kept,
    in the framebuffer below its top ``top`` pixels (the heads-up bar's: the world is fitted
    under it, so the bar covers no body at zoom 1).

    ``zoom`` multiplies the fitted scale; ``center`` is the world point at the middle of the
    area below the bar. ``resize(width, height)`` is called with the framebuffer size in pixels.
    """

    def __init__(
        self, view: tuple[float, float, float, float], width: int = 640, height: int = 480, top: float = 0.0
    ) -> None:
        self.view = tuple(float(v) for v in view)
        self.width = max(int(width), 1)
        self.height = max(int(height), 1)
        self.top = 0.0
        self.set_top(top)
        self.reset()

    def set_top(self, top: float) -> None:
        """Reserve the framebuffer's top ``top`` pixels (at most half of it) for the heads-up bar."""
        self.top = float(np.clip(top, 0.0, 0.5 * self.height))

    @property
    def _area_height(self) -> float:
        return max(self.height - self.top, 1.0)

    @property
    def _area_centre_y(self) -> float:
        """The pixel row of the middle of the area below the bar."""
        return self.top + 0.5 * self._area_height

    def reset(self) -> None:
        """Back to the scene's view: fitted, centred, zoom 1."""
        x0, y0, x1, y1 = self.view
        self.center = np.array([(x0 + x1) * 0.5, (y0 + y1) * 0.5])
        self.zoom = 1.0

    def set_view(self, view: tuple[float, float, float, float]) -> None:
        self.view = tuple(float(v) for v in view)
        self.reset()

    def resize(self, width: int, height: int) -> None:
        """New framebuffer size in pixels; a zero size (minimised window) is kept at 1 pixel."""
        self.width = max(int(width), 1)
        self.height = max(int(height), 1)
        self.set_top(self.top)

    @property
    def pixels_per_unit(self) -> float:
        x0, y0, x1, y1 = self.view
        fit = min(self.width / (x1 - x0), self._area_height / (y1 - y0))
        return fit * self.zoom

    def visible_rect(self) -> tuple[float, float, float, float]:
        """The world rectangle (x0, y0, x1, y1) the framebuffer shows."""
        x0, y1 = self.screen_to_world(0.0, self.top)
        x1, y0 = self.screen_to_world(float(self.width), float(self.height))
        return (float(x0), float(y0), float(x1), float(y1))

    def matrix(self) -> np.ndarray:
        """(4, 4) float32 world -> clip-space matrix, column-major ready for glUniformMatrix4fv."""
        sx = 2.0 * self.pixels_per_unit / self.width
        sy = 2.0 * self.pixels_per_unit / self.height
        m = np.identity(4, dtype=np.float32)
        m[0, 0] = sx
        m[1, 1] = sy
        m[0, 3] = -sx * self.center[0]
        # The view's centre sits at the middle of the area below the bar, not of the framebuffer.
        m[1, 3] = -sy * self.center[1] + 1.0 - 2.0 * self._area_centre_y / self.height
        return m

    def screen_to_world(self, px: float, py: float) -> np.ndarray:
        """Framebuffer pixel (x right, y down) -> world point (2,)."""
        ppu = self.pixels_per_unit
        return np.array(
            [
                self.center[0] + (px - 0.5 * self.width) / ppu,
                self.center[1] - (py - self._area_centre_y) / ppu,
            ]
        )

    def world_to_screen(self, point: np.ndarray) -> np.ndarray:
        """World points (..., 2) -> framebuffer pixels (..., 2) (x right, y down)."""
        point = np.asarray(point, dtype=np.float64)
        ppu = self.pixels_per_unit
        return np.stack(
            [
                0.5 * self.width + (point[..., 0] - self.center[0]) * ppu,
                self._area_centre_y - (point[..., 1] - self.center[1]) * ppu,
            ],
            axis=-1,
        )

    def zoom_about(self, px: float, py: float, factor: float) -> None:
        """Zoom by ``factor`` keeping the world point under pixel (px, py) where it is."""
        before = self.screen_to_world(px, py)
        self.zoom = float(np.clip(self.zoom * factor, MIN_ZOOM, MAX_ZOOM))
        after = self.screen_to_world(px, py)
        self.center = self.center + (before - after)

    def pan_pixels(self, dx: float, dy: float) -> None:
        """Move the picture by (dx, dy) pixels (the world follows the mouse)."""
        ppu = self.pixels_per_unit
        self.center = self.center + np.array([-dx / ppu, dy / ppu])
