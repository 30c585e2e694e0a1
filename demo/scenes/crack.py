"""crack (seed 002): a box driven diagonally along a wall of flush boxes.

Without the arcade solver's earliest-first ordering and surface-area rule the box snags on the
seams between the boxes ("the crack problem"); with them it slides the whole length.

The figure: the last step's hits in the order the solver resolved them, on a time line of the
step cut into its time slices (the world's contact rows, each with its time), and the first
choice of the step: the hits found at its start with their contact surfaces, the one the
surface-area rule takes and the one taken without it (collision.explain.arcade_choice, from a
copy of the bodies taken before the step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from collision import Polygon, World, explain
from demo.draw import palette
from demo.scenes import figures
from demo.scenes.base import FrameInput, Scene

#: A wall of flush 1 x 1 boxes along y in [-1, 0] and a 1 x 1 player driven diagonally into it
#: at CRACK_SPEED units/s along both axes, without friction: it must slide along the wall.
CRACK_BOXES, CRACK_SPEED = 24, 6.0
#: A step in which the player advances less than this fraction of its free sideways motion is
#: a snag (it stopped on an inner edge of the wall); it is then put back at the start.
SNAG_FRACTION = 0.5
CRACK_START = (1.0, 0.5)
#: The figure's time line (world units): from x = 0 to TIMELINE_LENGTH at height TIMELINE_Y.
TIMELINE_Y, TIMELINE_LENGTH = -3.0, 12.0


@dataclass(eq=False, kw_only=True)
class CrackScene(Scene):
    """``player``: the driven box; ``snags`` / ``laps``: counters; ``last_x``: the box's x after
    the previous step (None: just (re)started)."""

    family: str = "crack"
    player: int = 0
    snags: int = 0
    laps: int = 0
    last_x: float | None = None
    start: explain.StepInput | None = None
    start_step: int = -1
    choice: explain.ArcadeChoice | None = None

    def on_step(self, dt: float, frame: FrameInput) -> None:
        world = self.world
        p = self.player
        x = float(world.position[p, 0])
        if self.last_x is not None:
            if x - self.last_x < SNAG_FRACTION * CRACK_SPEED * dt:
                self.snags += 1
                world.position[p] = CRACK_START
            elif x > CRACK_BOXES - 2.0:
                world.position[p] = CRACK_START  # the end of the wall: go round again
                self.laps += 1
        world.velocity[p] = (CRACK_SPEED, -CRACK_SPEED)
        world.angular_velocity[p] = 0.0
        world.angle[p] = 0.0
        self.last_x = float(world.position[p, 0])
        self.update_status()
        self.start = explain.snapshot(world, dt) if world.solver == "arcade" else None
        self.start_step = world.step_count

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        self.update_status()
        if self.world.solver == "arcade":
            self.status = draw_order(batch, self) + self.status

    def update_status(self) -> None:
        on = {True: "on", False: "off"}
        arcade = self.world.solver_settings("arcade")
        self.status = [
            f"snags {self.snags}, laps {self.laps}; 1: earliest-first ordering {on[arcade.ordered]}, "
            f"2: surface-area rule {on[arcade.surface_rule]}"
        ]

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action in ("toggle_ordering", "toggle_surface"):
            arcade = self.world.solver_settings("arcade")
            if action == "toggle_ordering":
                arcade.ordered = not arcade.ordered
            else:
                arcade.surface_rule = not arcade.surface_rule
            self.last_x = None
            self.update_status()
            return True
        return False


def build_crack(seed: int = 0, bodies: int | None = None) -> CrackScene:
    world = World(gravity=(0.0, 0.0), solver="arcade", friction=0.0, restitution=0.0, static_friction=0.0)
    box = Polygon.box(1.0, 1.0)
    for i in range(CRACK_BOXES):
        world.add_body(box, (i + 0.5, -0.5), static=True)
    player = world.add_body(box, CRACK_START)
    count = world.body_count
    scene = CrackScene(
        name="crack",
        world=world,
        view=(-1.0, -5.0, CRACK_BOXES + 1.0, 6.0),
        bounds=(-2.0, -3.0, CRACK_BOXES + 2.0, 4.0),
        seed=int(seed),
        bodies=count,
        help=[
            "crack (seed 002, the crack problem): numbers are the last step's hits in the order resolved; "
            "green marks the contact surface the surface-area rule picks first",
            "1 / 2: ordering / surface-area rule; a snag puts it back at the start",
        ],
        turret=None,  # the scene drives the box itself: a shot could not push it
        min_bodies=count,
        max_bodies=count,
        default_bodies=count,
        mouse_forces=False,
        traits=frozenset({"ordering", "driven"}),
        player=player,
    )
    scene.update_status()
    return scene


def draw_order(batch: Any, scene: CrackScene) -> list[str]:
    """The last step's hits in the order the solver resolved them, on the step's time line, and
    its first choice. Returns status lines."""
    world = scene.world
    if scene.start is not None and world.step_count == scene.start_step + 1:
        scene.choice = explain.arcade_choice(scene.start)
        scene.start = None
    contacts = world.contacts
    dt = scene.dt
    x0, y = 0.0, TIMELINE_Y
    batch.add_lines(np.array([[[x0, y], [x0 + TIMELINE_LENGTH, y]]]), palette.AXIS_LINE)
    batch.add_text("0", (x0 - 0.2, y - 0.3), palette.LABEL_TEXT)
    batch.add_text(f"{dt:.4f} s", (x0 + TIMELINE_LENGTH - 0.5, y - 0.3), palette.LABEL_TEXT)
    batch.add_text("the last step's hits, in the order resolved", (x0, y + 1.3), palette.LABEL_TEXT)
    hits: list[tuple[int, int, float, np.ndarray]] = []
    for r in range(len(contacts)):
        key = (int(contacts.body_a[r]), int(contacts.body_b[r]), float(contacts.toi[r]))
        if not hits or hits[-1][:3] != key:
            hits.append((*key, contacts.point_b[r].copy()))
    # The step's time slices: each hit resolved starts a new one.
    cuts = [0.0, *sorted({min(h[2] / dt, 1.0) for h in hits} - {0.0}), 1.0]
    for k, (t0, t1) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        x_from, x_to = x0 + TIMELINE_LENGTH * t0, x0 + TIMELINE_LENGTH * t1
        color = palette.TIME_SLICES[k % 2]
        batch.add_polygon(
            np.array([[x_from, y - 0.2], [x_to, y - 0.2], [x_to, y + 0.2], [x_from, y + 0.2]]), color, None
        )
    times = []
    for order, (_, _, toi, point) in enumerate(hits, start=1):
        x = x0 + TIMELINE_LENGTH * min(toi / dt, 1.0)
        batch.add_lines(np.array([[[x, y - 0.4], [x, y + 0.4]]]), palette.ENTRY)
        batch.add_text(str(order), (x - 0.15, y - 0.6 - 0.7 * ((order - 1) % 2)), palette.ENTRY)
        figures.ring(batch, point[None], palette.ENTRY, 0.25)
        batch.add_text(str(order), point + (0.1, 0.9), palette.ENTRY)
        times.append(f"{toi:.4f}")
    lines = [f"last step: {len(hits)} hit(s), resolved in time order at t = {', '.join(times) or '-'} s"]
    choice = scene.choice
    if choice is not None and len(choice):
        lines[0] += "; " + first_choice(batch, world, choice)
    return lines


def first_choice(batch: Any, world: World, choice: explain.ArcadeChoice) -> str:
    """The hits found at the start of the step, their contact surfaces, and what the ordering
    takes first with the surface-area rule and without it. Returns the status line."""
    for h in range(len(choice)):
        wall = int(choice.body_a[h])
        centre = world.position[wall]
        kind = "graze" if choice.graze[h] else f"{choice.surface[h]:.2f}".lstrip("0")
        color = palette.AXIS_APART if h == choice.with_rule else palette.AXIS_OVERLAP
        batch.add_text(kind, centre + (-0.35, -0.7), color)
        if h == choice.with_rule:
            lo, hi = centre - 0.5, centre + 0.5
            batch.add_boxes(lo, hi, color)
    rule, plain = choice.with_rule, choice.without_rule
    if rule < 0 or plain < 0:
        return "nothing to resolve first"

    def box(h: int) -> str:
        return f"box {int(choice.body_a[h])} ({'graze' if choice.graze[h] else f'{choice.surface[h]:.2f}'})"

    if rule == plain:
        return f"first {box(rule)}, with or without the surface-area rule"
    return f"first {box(rule)} by the surface-area rule, {box(plain)} without it"


BUILDERS = {"crack": build_crack}
