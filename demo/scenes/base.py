"""What every scene is: a World, how to show it, and hooks the program calls with the frame's input.

A scene family subclasses :class:`Scene` (a dataclass: the family's own state is its extra
fields) and overrides the hooks it needs:

- ``on_action(action, frame) -> bool``: a control-table action ("move_left", "fire", ...) was
  pressed; True if the scene took it (the program then does nothing more with it);
- ``on_step(dt, frame)``: before each physics step of ``dt`` seconds;
- ``on_overlay(batch, frame)``: draw the scene's own lines, points, polygons, arrows and labels
  into ``batch`` (a :class:`demo.draw.batch.OverlayBatch`), and set ``status`` and ``body_colors``.

``frame`` is the :class:`FrameInput` of the frame: the held actions, the cursor in world units
and Shift. Scenes never read input back from the program. No GL here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import World
from demo.draw.palette import Color

Rect = tuple[float, float, float, float]

#: Traits a scene declares (``Scene.traits``); demo.controls decides from them (and from the
#: scene's world) which rows of the controls table mean something in the scene.
TRAITS = {
    "random": "built at random from its seed (Space builds the next seed)",
    "pair": "two polygons A and B that the arrow keys move",
    "separate": "Enter pushes A out of B by the MTD",
    "aim": "the left mouse button sets A's motion toward the cursor",
    "spin": "`a` turns the spin on and off",
    "axes": "`.` and `,` step through the candidate axes in the tutorial's order",
    "pick": "the left mouse button picks a contact to explain",
    "player": "a player the arrow keys push",
    "bullets": "the left mouse button fires bullets from the player",
    "laser": "the left mouse button fires a laser from the player",
    "drag": "the left mouse button drags shapes",
    "ordering": "keys 1 and 2 switch the arcade solver's ordering and surface-area rule",
    "ccd": "`k` switches continuous collision",
    "file": "loaded from a scene file (`l` reloads it)",
    "driven": "the scene drives its body itself: the material keys would defeat it",
}

#: Arrow-key actions as unit directions.
MOVES = {"move_left": (-1.0, 0.0), "move_right": (1.0, 0.0), "move_up": (0.0, 1.0), "move_down": (0.0, -1.0)}


@dataclass(frozen=True)
class FrameInput:
    """The input of one frame as the scene hooks see it.

    ``held``: the held actions ("attract", "move_left", ...); ``cursor (2,)``: the cursor in
    world units; ``shift``: whether Shift was down at the last press; ``text_width``: how wide
    a label (``add_text``) is drawn, in world units at this frame's zoom (None where nothing is
    drawn): labels are pixels wide, so figures lay their columns out with it.
    """

    held: frozenset[str] = frozenset()
    cursor: np.ndarray = field(default_factory=lambda: np.zeros(2))
    shift: bool = False
    text_width: Callable[[str], float] | None = None

    def direction(self) -> np.ndarray:
        """The held arrow keys as a direction (2,) (components -1, 0 or 1)."""
        held = [MOVES[a] for a in MOVES if a in self.held]
        return np.sum(held, axis=0) if held else np.zeros(2)


@dataclass(eq=False, kw_only=True)
class Scene:
    """A world and how to present it.

    ``view``: world rectangle (x0, y0, x1, y1) to show; ``bounds``: a moving body whose centroid
    leaves this rectangle has escaped; ``dt``: the physics step (s); ``time_scale``: simulated
    seconds per real second; ``turret``: where `x` fires from (2,), or None: no turret (the
    scene has nothing a shot could push), so none is drawn and `x` does nothing there;
    ``help``: the scene's lines in the help overlay; ``bodies``: the body count asked for;
    ``traits``: what the scene's own inputs are (:data:`TRAITS`); ``status``: lines shown under
    the heads-up line every frame; ``legend``: (text, colour) lines explaining what the scene
    draws; ``body_colors``: per-body fill overrides {body index: rgba}.
    """

    name: str
    world: World
    view: Rect
    bounds: Rect
    seed: int = 0
    bodies: int = 0
    help: list[str] = field(default_factory=list)
    dt: float = 1.0 / 60.0
    time_scale: float = 1.0
    turret: tuple[float, float] | None = None
    min_bodies: int = 1
    max_bodies: int = 999
    default_bodies: int = 1
    #: False: the mouse buttons do not attract / repel (the scene uses them).
    mouse_forces: bool = True
    traits: frozenset[str] = frozenset()
    body_colors: dict[int, Color] = field(default_factory=dict)
    status: list[str] = field(default_factory=list)
    legend: list[tuple[str, Color]] = field(default_factory=list)

    #: The scene's family: the module of demo.scenes that builds it.
    family: str = "scene"

    def __post_init__(self) -> None:
        unknown = set(self.traits) - set(TRAITS)
        if unknown:
            raise ValueError(f"scene {self.name!r}: unknown traits {sorted(unknown)}")
        #: The solver the scene was built with: its own, whatever the program switches to.
        self.own_solver: str = self.world.solver

    # -- hooks (the program calls them; families override) -------------------------------------

    def on_action(self, action: str, frame: FrameInput) -> bool:
        """Take a pressed action; True if the scene handled it."""
        return False

    def on_step(self, dt: float, frame: FrameInput) -> None:
        """Before each physics step of ``dt`` seconds."""

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        """Draw the scene's own overlay into ``batch``; update ``status`` and ``body_colors``."""


#: A scene builder: ``(seed, bodies) -> Scene``; ``bodies`` None: the scene's default count.
Builder = Callable[[int, "int | None"], Scene]


def fit_view(world: World, margin: float = 0.1) -> Rect:
    """A view that shows every body of ``world`` with ``margin`` (a fraction of its size) around."""
    wv = world.world_vertices()
    counts = np.asarray(world.vertex_count)
    mask = np.arange(wv.shape[1])[None, :] < counts[:, None]
    pts = wv[mask] if world.body_count else np.zeros((1, 2))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    size = np.maximum(hi - lo, 1.0)
    lo, hi = lo - margin * size, hi + margin * size
    return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))


def fixed_count_fields(
    name: str,
    world: World,
    seed: int,
    view: Rect,
    help_lines: list[str] | tuple[str, ...] = (),
    turret: tuple[float, float] | None = None,
    bounds: Rect | None = None,
) -> dict[str, Any]:
    """The Scene fields of a scene whose body count is fixed (the world's): ``bounds`` defaults
    to :func:`around` the view."""
    n = world.body_count
    return {
        "name": name,
        "world": world,
        "view": view,
        "bounds": around(view) if bounds is None else bounds,
        "seed": int(seed),
        "bodies": n,
        "help": list(help_lines),
        "turret": turret,
        "min_bodies": n,
        "max_bodies": n,
        "default_bodies": n,
    }


def whole_world_fields(name: str, world: World, seed: int = 0) -> dict[str, Any]:
    """Scene fields that show ``world`` whole (:func:`fit_view`), its body count fixed, the turret
    at the top of the view (where falling bodies leave room to shoot down at them)."""
    view = fit_view(world)
    x0, y0, x1, y1 = view
    return fixed_count_fields(name, world, seed, view, turret=(0.5 * (x0 + x1), y1 - 0.05 * (y1 - y0)))


#: How close (a fraction of the view's height) a shot, a turret bullet or the laser, must pass
#: to a point or segment body to hit it: they have no area. 0.0025 is about two pixels of a
#: 720-pixel window, and 0.25 units in the original's 100-unit arena.
SHOT_RADIUS_OF_VIEW = 0.0025


def shot_radius(view: Rect) -> float:
    """The engine's query radius (world units) for a shot in a scene showing ``view``."""
    return SHOT_RADIUS_OF_VIEW * (view[3] - view[1])


def around(view: Rect) -> Rect:
    """Escape bounds for a view: the view grown by its own size on every side."""
    x0, y0, x1, y1 = view
    w, h = x1 - x0, y1 - y0
    return (x0 - w, y0 - h, x1 + w, y1 + h)


def wrap_angle(angle: float) -> float:
    """``angle`` (rad) wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2 * np.pi) - np.pi
