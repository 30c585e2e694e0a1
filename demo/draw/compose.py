"""One frame's picture, composed from the program's state: the world's bodies and overlays, the
heads-up text laid out around them, the help panel placed where it covers least, and the test
that leaves out a frame the screen already shows.

:class:`Composer` keeps what carries from one frame's picture to the next (the font's size, the
top bar's height, the last text layout, the help's place, the last picture drawn); each method
reads a demo.app.App (``app``), as demo.readout does, and draws with its renderer.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from demo import readout
from demo.context import text_scale
from demo.draw import placement
from demo.draw.hud import HudContent, HudLayout, layout_hud
from demo.draw.overlays import draw_world_overlays
from demo.draw.text import BASE_FONT_PX, MIN_FONT_PX

#: A frame's batches: (width px, height px, fills, lines, points, text, bodies), as
#: demo.draw.render.Renderer.draw takes them.
Frame = tuple[Any, ...]


class Composer:
    """Builds and draws an app's frames; holds the state that lasts between them."""

    def __init__(self) -> None:
        self.font_for: tuple[int, int, int] | None = None  # framebuffer size the font was fitted to
        self.bar_top: tuple[Any, float] = (None, 0.0)  # (scene and size, the bar's height in px)
        self.hud_layout: tuple[tuple[Any, ...], HudContent, HudLayout] | None = None
        #: Where the help is while it is up, chosen when it comes up: the corner (right, top)
        #: where it covers least of the picture (None: not chosen yet).
        self.help_place: tuple[bool, bool] | None = None
        self.drawn: tuple[Any, ...] | None = None  # what the last picture drawn was made of
        self.still: tuple[Any, ...] | None = None  # what the last frame built was built from

    def redraw(self) -> None:
        """Draw the next frame even if it is the same (the window's picture was lost)."""
        self.drawn = self.still = None

    def draw(self, app: Any, skip_unchanged: bool, had_input: bool) -> bool:
        """Build ``app``'s frame and draw it; False when nothing was drawn: the framebuffer has
        no area, or (``skip_unchanged``) the frame would be the same as the last one drawn.
        ``had_input``: the frame consumed input (it is built even if nothing else changed).
        Appends to ``app.profile``'s draw_build_ms and draw_gl_ms (ms)."""
        app.renderer.draw_calls = 0
        t_build = time.perf_counter()
        if skip_unchanged:
            # Everything a frame is built from: while none of it changes (a scene at rest, no
            # input), the frame would be the one on the screen, and is not even built.
            still = still_key(app)
            if still == self.still and not had_input:
                return False
            self.still = still
        frame = self.build(app)
        if frame is None:
            return False
        width, height, fills, lines, points, text, bodies = frame
        t_gl = time.perf_counter()
        app.profile["draw_build_ms"].append((t_gl - t_build) * 1000.0)
        if skip_unchanged:
            # Everything the picture is made of: when it is what the screen shows, there is
            # nothing to draw (an idle scene then costs the building above and no rasterising).
            signature = (
                width,
                height,
                bodies[1],
                bodies[2][: app.world.body_count].tobytes(),
                app.camera.matrix().tobytes(),
                fills.tobytes(),
                lines.tobytes(),
                points.tobytes(),
                text.tobytes(),
            )
            if signature == self.drawn:
                return False
            self.drawn = signature
        app.renderer.draw(app.ctx.framebuffer, width, height, app.camera, fills, lines, points, text, bodies)
        app.profile["draw_gl_ms"].append((time.perf_counter() - t_gl) * 1000.0)
        return True

    def build(self, app: Any) -> Frame | None:
        """``app``'s frame's batches (:data:`Frame`), or None when the framebuffer has no area.
        Fits the camera below the heads-up bar; sets ``app.legend``, ``app.help_pages`` and
        ``app.hud_panels`` for this frame."""
        width, height = app.ctx.framebuffer_size()
        if width <= 0 or height <= 0:
            return None
        renderer, camera, mesh, scene = app.renderer, app.camera, app.mesh, app.scene
        camera.resize(width, height)
        scale = text_scale(app.ctx)
        renderer.set_text_scale(scale)
        if self.font_for != (width, height, scale):
            self.font_for = (width, height, scale)
            # Never below MIN_FONT_PX: a small window gets wrapped and paged help instead of
            # smaller letters.
            renderer.set_font_size(max(BASE_FONT_PX, MIN_FONT_PX) * scale)
        world = app.world
        wv = world.world_vertices()
        # Body kinds for the colours: 0 moving, 1 static, 2 kinematic (demo.draw.mesh KIND_*).
        kinds = world.body_kind.astype(np.int64)
        # The bodies' fills stay on the GPU; only their poses go up each frame.
        overlay = renderer.overlay
        overlay.clear()
        app.legend = draw_world_overlays(overlay, app, wv)
        scene.on_overlay(overlay, app.frame_input())
        # After on_overlay, which may set the body colours for this frame.
        lines, points = mesh.update(wv, world.local_vertices, world.vertex_count, kinds, scene.body_colors)
        body_fills = mesh.body_fills(world.local_vertices, world.vertex_count, kinds, scene.body_colors)
        poses = mesh.poses(world.position, world.angle)
        bodies = (body_fills, mesh.version, poses, mesh.static_vertices, mesh.static_key(poses))
        fills, extra_lines, extra_points = overlay.fills(), overlay.lines(), overlay.points()
        if len(extra_lines):
            lines = np.concatenate([lines, extra_lines])
        if len(extra_points):
            points = np.concatenate([points, extra_points])
        content = app.hud_content()
        # The world is fitted below the top bar, whose height the labels' places depend on.
        hud = self.layout(app, content, width, height)
        # The bar only grows while the scene and the size stay (a figure that wraps onto a new
        # line and back would make the picture jump).
        key = (id(scene), width, height)
        top = max(hud.top, self.bar_top[1]) if self.bar_top[0] == key else hud.top
        self.bar_top = (key, top)
        if abs(top - camera.top) > 0.5:
            camera.set_top(top)
            content = replace(content, labels=app.labels())
            hud = self.layout(app, content, width, height)
        if not hud.help_places:
            self.help_place = None  # the help is down: it is placed again when it comes back
        elif self.help_place is None:
            self.help_place = self.quietest_place(app, hud.help_places, wv, width, height)
            if self.help_place != content.help_place:
                content = replace(content, help_place=self.help_place)
                hud = self.layout(app, content, width, height)
        app.help_pages = hud.help_pages
        app.hud_panels = hud.panels
        return width, height, fills, lines, points, hud.vertices, bodies

    def layout(self, app: Any, content: HudContent, width: int, height: int) -> HudLayout:
        """The text's layout in a ``width`` x ``height`` px frame; the last one again while the
        text, the size and the font stay (most frames: the figures refresh a few times a second)."""
        renderer = app.renderer
        key = (width, height, renderer.text_scale, renderer.text)
        last = self.hud_layout
        if last is not None and last[0] == key and last[1] == content:
            return last[2]
        hud = layout_hud(renderer.text, content, width, height, renderer.text_scale)
        self.hud_layout = (key, content, hud)
        return hud

    def quietest_place(
        self, app: Any, places: dict[tuple[bool, bool], list[Any]], wv: np.ndarray, width: int, height: int
    ) -> tuple[bool, bool]:
        """The place (right, top) where the help's panels (``places``: their px rectangles at
        each) cover least of what the frame will show while the help is up
        (demo.draw.placement.shown); ``wv``: the bodies' world vertices."""
        atlas = app.renderer.text.atlas
        label_boxes = [(x, y, x + atlas.text_width(t), y + atlas.line_height) for t, x, y, _ in app.labels()]
        overlay = app.renderer.overlay
        boxes, segments = placement.shown(app.camera, app.world, overlay, label_boxes, wv, height)
        return placement.best_place(placement.busy_map(width, height, boxes, segments), places)


def still_key(app: Any) -> tuple[Any, ...]:
    """What ``app``'s frame is built from besides input: the scene, its bodies' poses and sleep,
    the view and size, the cursor, the help, the text and the heads-up figures."""
    world, scene = app.world, app.scene
    n = world.body_count
    return (
        id(scene),
        n,
        world.position[:n].tobytes(),
        world.angle[:n].tobytes(),
        world.sleeping[:n].tobytes(),
        world.solver,
        app.ctx.framebuffer_size(),
        app.camera.matrix().tobytes(),
        tuple(app.cursor_window),
        app.help_alpha,
        app.help_page,
        app.help_brief,
        app.paused,
        app.time_scale,
        app.message,
        app.hud_figures,
        tuple(scene.status),
        tuple(app.show.items()),
        frozenset(app.held),
        len(app.projectiles) + len(app.flashes),
        app.pending_solver,
        readout.pending_line(app) if app.pending is not None else None,
        readout.compile_line(app),
    )


def labels(app: Any) -> list[tuple[str, float, float, Any]]:
    """The overlay labels as (text, pixel x, pixel y of the top-left corner, colour): each at the
    first of its places where its box is in the picture (below the top bar), else at its first."""
    atlas = app.renderer.text.atlas
    camera = app.camera
    out = []
    for label, color, places in app.renderer.overlay.labels():
        width, height = atlas.text_width(label), atlas.line_height
        corners = []
        for point, (ax, ay) in places:
            px, py = camera.world_to_screen(point)
            corners.append((float(px - ax * width), float(py - ay * height)))
        inside = [
            (x, y)
            for x, y in corners
            if x >= 0.0 and y >= camera.top and x + width <= camera.width and y + height <= camera.height
        ]
        x, y = (inside or corners)[0]
        out.append((label, x, y, color))
    return out
