"""What the program says on screen, as text: the heads-up line (with its widest form, for the
room it needs), the stats, the line of a scene still being built, and the whole frame's
HudContent (demo.draw.hud lays it out). GL-free; each function reads a demo.app.App.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from demo import controls, loading, scenes
from demo.draw.hud import SEPARATOR, HudContent

#: The heads-up line's fps and physics figures are refreshed every this many frames.
HUD_REFRESH_FRAMES = 15
#: The heads-up line's figures at their widest (the room the line may need).
#: The brief help's one row (after the scene's own lines): where the rest is.
BRIEF_HELP = (("h", "all the controls of this scene"),)
WIDEST_FIGURES = ("000 fps", "physics 00.00 ms/step", "contacts 00000 (0000 bodies asleep)")


def hud_content(app: Any) -> HudContent:
    """This frame's text: the HUD line, status, legends, message, labels, help and stats."""
    alpha = app.help_alpha
    full = alpha > 0.0 and not app.help_brief
    status = list(app.scene.status)
    if app.pending is not None:
        status.insert(0, pending_line(app))
    compiling = compile_line(app)
    if compiling:
        status.insert(0, compiling)
    if app.pending_solver is not None:
        status.insert(
            0, f"solver {app.pending_solver}: its kernels are still compiling; it takes over when ready"
        )
    return HudContent(
        hud_line=hud_line(app),
        hud_template=hud_line(app, template=True),
        status=status,
        legend=app.legend,
        message=app.message,
        labels=app.labels(),
        stats=stats_lines(app) if full else (),
        scene_help=app.scene.help if alpha > 0.0 else (),
        help_rows=app.help_rows() if full else (BRIEF_HELP if alpha > 0.0 else ()),
        help_alpha=alpha,
        help_page=app.help_page,
        help_place=app.help_place,
    )


def scene_texts(scene: Any) -> list[str]:
    """The text a scene's first frames may show besides the figures: its own help and status
    lines and the help's rows for it (labels and descriptions). GL-free, for the loader's
    thread (demo.draw.text.GlyphAtlas.learn_kerning)."""
    rows = [*controls.help_rows(scene), *BRIEF_HELP]
    return [*scene.help, *scene.status, *(text for row in rows for text in row)]


def compile_line(app: Any) -> str:
    """On a first run while the engine is interpreted: what is happening ("" otherwise)."""
    if app.loader is None or not loading.interpreted():
        return ""
    p = app.loader.progress()
    done = f", {p.compiled} kernels so far" if p.compiled else ""
    return f"first run: physics as plain Python while numba compiles the engine ({p.seconds:.0f} s{done})"


def pending_line(app: Any) -> str:
    name = app.pending_name or "the scene"
    if app.loader is not None and not app.loader.ready(f"scene:{scenes.resolve(name)}"):
        return f"{name}: waiting for its kernels to compile (the engine's first run)..."
    return f"building {name}..."


def hud_line(app: Any, template: bool = False) -> str:
    """The heads-up line: the scene, its solver, pause and time scale, and the figures that
    mean something in it (no physics figures where nothing moves). ``template``: with the
    figures at their widest (the room the line may need)."""
    world = app.world
    # The measured figures change every frame; shown at a readable rate they also keep the
    # line's glyph layout cached between refreshes.
    if app.hud_figures is None or app.frame_count - app.hud_figures[0] >= HUD_REFRESH_FRAMES:
        physics = float(np.median(app.step_ms)) if app.step_ms else 0.0
        asleep = int(np.count_nonzero(world.sleeping & ~np.asarray(world.static, dtype=bool)))
        contacts = f"contacts {len(app.contacts)}"
        if asleep:
            contacts += f" ({asleep} {'body' if asleep == 1 else 'bodies'} asleep)"
        app.hud_figures = (
            app.frame_count,
            f"{app.fps:.0f} fps",
            f"physics {physics:.2f} ms/step",
            contacts,
        )
    features = app.features
    speed = app.time_scale
    figures = app.hud_figures[1:]
    if template:
        figures = WIDEST_FIGURES
    parts = [
        app.scene.name,
        "solver iterative" if template and "solver" in features else None,
        f"solver {world.solver}" if not template and "solver" in features else None,
        "PAUSED" if app.paused or template else None,
        "time x0.125" if template else (f"time x{speed:g}" if speed != 1.0 else None),
        figures[0],
        figures[1] if "moving" in features else None,
        f"bodies {world.body_count if not template else 9999}" if world.body_count else None,
        figures[2] if "contacts" in features else None,
    ]
    return SEPARATOR.join(p for p in parts if p)


def stats_lines(app: Any) -> list[str]:
    cursor = app.cursor_world()
    on = {True: "on", False: "off"}
    # Only the switches and values this scene's keys change (sat has no gravity to show).
    lines = [f"mouse: {cursor[0]:.1f}, {cursor[1]:.1f}"]
    if "gravity" in app.features:
        lines.append(f"Gravity : {on[app.gravity_on]}")
    if "material" in app.features:
        lines += [
            f"Friction : {on[app.friction_on]}",
            f"Stat.Fric. : {on[app.static_friction_on]}",
        ]
    lines.append(f"bodies : {app.world.body_count}")
    if "material" in app.features:
        lines += [
            f"Dyn.Fric. : {app.friction:.2f}",
            f"Restitution : {app.restitution:.2f}",
            f"Stat.Fric. : {app.static_friction:.2f}",
        ]
    return lines
