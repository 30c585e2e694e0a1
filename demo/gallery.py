"""Save one screenshot per scene: ``python -m demo.gallery [DIR] [--size WxH] [--frames N]``;
``--readme`` prints README's scene table instead.

Renders offscreen (EGL or OSMesa): each scene runs ``frames`` frames of 1/60 s with the overlays
that explain it turned on, and its last frame is saved as ``DIR/<name>.png`` (default
assets/gallery). Used for the README gallery.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

#: Overlays switched on per scene for its picture (the teaching scenes draw their own).
GALLERY_OVERLAYS: dict[str, tuple[str, ...]] = {
    "rigid": ("contacts",),
    "pyramid": ("contacts",),
    "mass-ratio": ("contacts", "normals", "impulses"),
    "restitution": ("velocities",),
    "friction": ("contacts", "impulses"),
    "bullet": ("toi", "contacts"),
}
#: Frames to run before the picture, per scene (default DEFAULT_FRAMES).
GALLERY_FRAMES = {"pile": 240, "restitution": 50, "bullet": 3, "crack": 40, "concave": 100, "bullets": 60}
DEFAULT_FRAMES = 90
#: In rigid, the turret fires this many frames before the picture (its bullet is in flight).
TURRET_SHOT_FRAMES = 8
FRAME_S = 1.0 / 60.0


def render_scene(app: Any, name: str, frames: int) -> None:
    """Show scene ``name`` in ``app`` with its gallery overlays and run ``frames`` frames."""
    app.load_scene(name)
    for key in app.show:
        app.show[key] = key in GALLERY_OVERLAYS.get(name, ())
    app.hide_help()  # the help has gone, as after a few seconds of use
    fb_w, fb_h = app.ctx.framebuffer_size()
    if name in ("bullets", "laser"):
        # Aim up and to the right of the player and keep the button down.
        app.cursor(fb_w * 0.75, fb_h * 0.25)
        app.mouse_button("MOUSE_LEFT", True)
    for frame in range(frames):
        if name == "rigid" and frame == frames - TURRET_SHOT_FRAMES:
            # A turret bullet on its way to the lowest moving body, seen in flight.
            world = app.world
            moving = [i for i in range(world.body_count) if not world.static[i]]
            target = min(moving, key=lambda i: world.position[i, 1])
            app.cursor(*app.camera.world_to_screen(world.position[target]))
            app.press("X")
        app.frame(FRAME_S)
        app.hide_help()
    app.mouse_button("MOUSE_LEFT", False)


def readme_table(folder: str = "assets/gallery") -> str:
    """README's scene table (markdown): each scene's picture, what it shows and its solver."""
    from demo import controls, scenes  # noqa: PLC0415 - the engine: only when asked

    rows = ["| Scene | | What it shows | Solver |", "|---|---|---|---|"]
    for name, description in scenes.describe():
        scene = scenes.build_scene(name)
        solver = f"`{scene.world.solver}`" if "solver" in controls.scene_features(scene) else "-"
        rows.append(f"| `{name}` | ![{name}]({folder}/{name}.png) | {description} | {solver} |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo.gallery", description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=Path("assets/gallery"))
    parser.add_argument("--readme", action="store_true", help="print README's scene table and exit")
    parser.add_argument("--size", default="640x480", help="picture size WxH (default 640x480)")
    parser.add_argument("--frames", type=int, default=None, help="frames per scene (default: per scene)")
    parser.add_argument("--scene", action="append", help="only this scene (repeatable)")
    args = parser.parse_args(argv)
    if args.readme:
        sys.stdout.write(readme_table())
        return 0
    width, height = (int(v) for v in args.size.lower().split("x"))

    from demo import context, scenes  # noqa: PLC0415

    ctx = context.open_offscreen(width, height)
    try:
        from demo.app import App  # noqa: PLC0415 - after the context chose PyOpenGL's platform

        app = App(ctx, out=io.StringIO())
        args.directory.mkdir(parents=True, exist_ok=True)
        for name in args.scene or scenes.scene_names():
            frames = args.frames if args.frames is not None else GALLERY_FRAMES.get(name, DEFAULT_FRAMES)
            render_scene(app, name, frames)
            path = app.save_screenshot(args.directory / f"{name}.png")
            print(path, flush=True)
    finally:
        ctx.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
