"""crack (seed 002): a box driven diagonally along a wall of flush boxes.

Without the arcade solver's earliest-first ordering and surface-area rule the box snags on the
seams between the boxes ("the crack problem"); with them it slides the whole length.
"""

from __future__ import annotations

from dataclasses import dataclass

from collision import Polygon, World
from demo.scenes.base import FrameInput, Scene

#: A wall of flush 1 x 1 boxes along y in [-1, 0] and a 1 x 1 player driven diagonally into it
#: at CRACK_SPEED units/s along both axes, without friction: it must slide along the wall.
CRACK_BOXES, CRACK_SPEED = 24, 6.0
#: A step in which the player advances less than this fraction of its free sideways motion is
#: a snag (it stopped on an inner edge of the wall); it is then put back at the start.
SNAG_FRACTION = 0.5
CRACK_START = (1.0, 0.5)


@dataclass(eq=False, kw_only=True)
class CrackScene(Scene):
    """``player``: the driven box; ``snags`` / ``laps``: counters; ``last_x``: the box's x after
    the previous step (None: just (re)started)."""

    family: str = "crack"
    player: int = 0
    snags: int = 0
    laps: int = 0
    last_x: float | None = None

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

    def update_status(self) -> None:
        on = {True: "on", False: "off"}
        arcade = self.world.solver_settings("arcade")
        self.status = [
            f"snags: {self.snags}   laps: {self.laps}",
            f"1: earliest-first ordering {on[arcade.ordered]}",
            f"2: surface-area rule {on[arcade.surface_rule]}",
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
            "crack (seed 002): the box is driven diagonally into a wall of flush boxes",
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


BUILDERS = {"crack": build_crack}
