"""The benchmark scenes of ``python -m demo bench`` (demo/bench.py), to watch: pyramid and pile
as the benchmark builds them, and bullet, continuous collision stopping a 500 m/s box.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from collision import Polygon, World
from demo import bench
from demo.scenes.base import FrameInput, Rect, Scene, around, whole_world_fields

#: How the benchmark scenes are framed (world rectangles), and where their turret sits.
BENCH_VIEWS: dict[str, tuple[Rect, tuple[float, float]]] = {
    "pyramid": ((-16.0, -2.0, 16.0, 22.0), (-13.0, 19.0)),
    "pile": ((-23.0, -2.0, 23.0, 70.0), (0.0, 66.0)),
}
BENCH_HELP = {
    "pyramid": "pyramid: 20 rows of 1 x 1 m boxes on the ground (210 boxes): the stacking benchmark",
    "pile": "pile: 1000 random convex polygons dropped into a 40 m wide container: the benchmark",
}
#: The pile's container is 3 static boxes; ``--bodies N`` asks for N bodies in all.
PILE_CONTAINER_BODIES = 3


def build_bench_scene(name: str, seed: int, bodies: int | None) -> Scene:
    """Scene ``name`` of demo.bench.SCENES, framed by BENCH_VIEWS."""
    spec = bench.SCENES[name]
    world = bench.new_world(spec.gravity)
    if name == "pile" and bodies is not None:
        bench.build_pile(world, count=max(int(bodies) - PILE_CONTAINER_BODIES, 1))
    else:
        spec.build(world)
    fields = whole_world_fields(name, world, seed)
    fields["bounds"] = tuple(float(v) for v in spec.bounds)
    fields["view"], fields["turret"] = BENCH_VIEWS[name]
    fields["help"] = [BENCH_HELP[name]]
    return Scene(**fields, family="benchmarks")


def build_pyramid(seed: int = 0, bodies: int | None = None) -> Scene:
    return build_bench_scene("pyramid", seed, bodies)


def build_pile(seed: int = 0, bodies: int | None = None) -> Scene:
    return build_bench_scene("pile", seed, bodies)


# ----------------------------------------------------------------------------------------------
# bullet: continuous collision.

#: demo/bench.py's bullet scene: a 0.1 m box at 500 m/s toward a 0.1 m wall 10 m away.
BULLET_BOX, BULLET_VELOCITY, BULLET_WALL_X = 0.1, 500.0, 10.0
BULLET_START = (0.0, 0.0)
BULLET_VIEW = (-2.0, -4.0, 12.0, 4.0)


@dataclass(eq=False, kw_only=True)
class BulletScene(Scene):
    """``box``, ``wall``: the bodies; ``stops`` / ``tunnelled``: how often the wall stopped the
    box and how often it went through; ``stopped``: the current shot has stopped."""

    family: str = "benchmarks"
    box: int = 0
    wall: int = 0
    stops: int = 0
    tunnelled: int = 0
    stopped: bool = False

    def fire(self) -> None:
        """Put the box back at the start, flying at the wall."""
        world = self.world
        b = self.box
        world.position[b] = BULLET_START
        world.angle[b] = 0.0
        world.angular_velocity[b] = 0.0
        world.set_velocity(b, (BULLET_VELOCITY, 0.0))
        self.stopped = False

    def on_step(self, dt: float, frame: FrameInput) -> None:
        world = self.world
        b = self.box
        if abs(world.velocity[b, 0]) < 1e-6 and world.position[b, 0] < BULLET_WALL_X:
            self.stops += int(not self.stopped)
            self.stopped = True
        elif world.position[b, 0] > BULLET_WALL_X + 1.0:
            self.tunnelled += 1
            self.fire()  # through the wall: fire again

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action == "toggle_ccd":
            # The engine's switch: off, the world tests overlap only and the box jumps the wall.
            self.world.continuous = not self.world.continuous
            self.fire()
            self.update_status()
            return True
        return False

    def update_status(self) -> None:
        on = {True: "on", False: "off"}
        self.status = [
            f"k: continuous collision {on[self.world.continuous]} (world.continuous)",
            f"stopped by the wall: {self.stops}   passed through: {self.tunnelled}",
        ]

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        self.update_status()


def build_bullet(seed: int = 0, bodies: int | None = None) -> BulletScene:
    world = World(gravity=(0.0, 0.0), friction=0.6, restitution=0.0)
    world.solver_settings("iterative").sleep = False
    wall = world.add_body(Polygon.box(0.1, 2.0), (BULLET_WALL_X + 0.05, 0.0), static=True)
    box = world.add_body(Polygon.box(BULLET_BOX, BULLET_BOX), BULLET_START, velocity=(BULLET_VELOCITY, 0.0))
    x0, y0, x1, y1 = BULLET_VIEW
    n = world.body_count
    scene = BulletScene(
        name="bullet",
        world=world,
        view=BULLET_VIEW,
        bounds=around(BULLET_VIEW),
        seed=int(seed),
        bodies=n,
        help=["bullet: k turns continuous collision off (the box tunnels) and on (the wall stops it)"],
        turret=(0.5 * (x0 + x1), y0 + 0.05 * (y1 - y0)),
        min_bodies=n,
        max_bodies=n,
        default_bodies=n,
        mouse_forces=False,
        traits=frozenset({"ccd"}),
        box=box,
        wall=wall,
    )
    scene.update_status()
    return scene


BUILDERS = {"pyramid": build_pyramid, "pile": build_pile, "bullet": build_bullet}
