"""impulse (Tutorial 7, seed 004): a collision's impulse with its terms, from the tutorial solver.

A box falls corner first onto the ground and a hexagon slides into it, under the ``"tutorial"``
solver. Before each step the scene copies the world's bodies (collision.explain.snapshot); after
it, the step is replayed from that copy hit by hit (collision.explain.tutorial_step, which runs
the solver's own compiled steps and ends in the world's state). The figure shows one contact of
the replay: the most recent impact, or the contact the user clicked: its arms from the
centroids, the normal, seed 004's eq. 3 with that contact's numbers, what the solver applied
and the velocity changes it made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from collision import Polygon, World, explain
from collision.explain.steps import P_AX, P_AY, P_JN, P_JT, P_K, P_RA_N, P_RAX, P_RB_N, P_RBX, P_VN
from demo.draw import palette
from demo.scenes.base import FrameInput, Scene, fixed_count_fields

VIEW = (20.0, 0.0, 100.0, 60.0)
GRAVITY, RESTITUTION, FRICTION = 20.0, 0.5, 0.3
#: The ground's top (units) and how far above it the falling box's lowest corner starts.
GROUND_TOP, START_GAP = 10.0, 0.1
#: A contact approaching faster than this (units/s) is an impact: it replaces the one shown.
IMPACT_SPEED = 1.0
#: A click picks the contact point nearest the cursor within this distance (units).
PICK_RADIUS = 10.0
#: Drawn lengths (units): the impulse arrow; a velocity change's arrow per unit/s, at most ARROW_MAX.
IMPULSE_LENGTH, VELOCITY_SCALE, ARROW_MAX = 10.0, 1.0, 12.0
#: The formula's lines are drawn in the sky above the bodies, this far apart (units).
TEXT_LINE = 3.6


@dataclass(frozen=True)
class Shown:
    """Contact ``k`` of hit ``h`` of a replayed step ``trace``; ``picked``: chosen by a click."""

    trace: explain.ImpulseTrace
    h: int
    k: int
    picked: bool = False


@dataclass(eq=False)
class ImpactWatch:
    """Follows a world's steps under the tutorial solver: ``before_step`` copies the bodies the
    step starts from, ``catch_up`` replays that step once it is taken and keeps the strongest
    impact. ``last``: the replay of the latest step that had hits (clicks pick among its
    contacts); ``shown``: the contact the figure explains."""

    start: explain.StepInput | None = None
    start_step: int = -1
    last: explain.ImpulseTrace | None = None
    shown: Shown | None = None

    def before_step(self, world: World, dt: float) -> None:
        self.catch_up(world)
        if world.solver != "tutorial":
            self.shown = None
            return
        self.start = explain.snapshot(world, dt)
        self.start_step = world.step_count

    def catch_up(self, world: World) -> None:
        """Replay the step taken since ``start`` (if any) and keep its strongest impact."""
        start, self.start = self.start, None
        if start is None or world.step_count != self.start_step + 1 or world.solver != "tutorial":
            return
        trace = explain.tutorial_step(start)
        # Anything that acted between the copy and the step (a shot's impulse) makes the replay
        # another step than the world's: it explains nothing then.
        if len(trace) == 0 or not np.array_equal(trace.bodies.velocity, world.velocity):
            return
        self.last = trace
        if self.shown is not None and self.shown.picked:
            return
        best, where = -IMPACT_SPEED, None
        for h in range(len(trace)):
            for k in range(int(trace.count[h])):
                vn = trace.points[h, k, P_VN]
                if vn < best:
                    best, where = vn, (h, k)
        if where is not None:
            self.shown = Shown(trace, *where)

    def pick(self, world: World, cursor: np.ndarray) -> None:
        """Show the contact of the latest hits nearest ``cursor`` (within PICK_RADIUS); none
        near: go back to showing the latest impact."""
        self.catch_up(world)
        trace = self.last
        best, where = PICK_RADIUS, None
        if trace is not None:
            for h in range(len(trace)):
                for k in range(int(trace.count[h])):
                    d = float(np.hypot(*(trace.points[h, k, P_AX : P_AY + 1] - cursor)))
                    if d < best:
                        best, where = d, (h, k)
        self.shown = Shown(trace, *where, picked=True) if trace is not None and where else None


@dataclass(eq=False, kw_only=True)
class ImpulseScene(Scene):
    """``watch``: the replayed steps and the contact the figure explains."""

    family: str = "impulse"
    watch: ImpactWatch = field(default_factory=ImpactWatch)

    def on_step(self, dt: float, frame: FrameInput) -> None:
        self.watch.before_step(self.world, dt)

    def on_action(self, action: str, frame: FrameInput) -> bool:
        if action != "attract":
            return False
        self.watch.pick(self.world, frame.cursor)
        return True

    def on_overlay(self, batch: Any, frame: FrameInput) -> None:
        self.watch.catch_up(self.world)
        if self.world.solver != "tutorial":
            self.status = ["the figure explains the tutorial solver's impulses: `m` back to it"]
        elif self.watch.shown is None:
            self.status = ["no impact yet: the box is falling (click a contact to explain it)"]
        else:
            self.status = draw_impulse(batch, self.watch.shown, self.view)


def draw_impulse(batch: Any, shown: Shown, view: tuple[float, float, float, float]) -> list[str]:
    """The figure for contact ``shown``: arms, normal, impulse and velocity changes drawn in the
    world, seed 004's eq. 3 with its numbers at the top left of ``view``. Returns the status line."""
    trace, h, k = shown.trace, shown.h, shown.k
    q = trace.points[h, k]
    point = q[P_AX : P_AY + 1]
    ra, rb = q[P_RAX : P_RAX + 2], q[P_RBX : P_RBX + 2]
    n = trace.normal[h]
    centre_a, centre_b = point - ra, q[2:4] - rb
    batch.add_lines(np.array([[centre_a, point], [centre_b, q[2:4]]]), palette.ARM)
    batch.add_points(np.array([centre_a, centre_b, point]), palette.ARM)
    jn, jt = q[P_JN], q[P_JT]
    impulse = jn * n + jt * np.array([-n[1], n[0]])
    size = float(np.hypot(*impulse))
    if size > 0.0:
        batch.add_arrows(point, point + impulse / size * IMPULSE_LENGTH, palette.NORMAL_IMPULSE)
        batch.add_text("J", point + impulse / size * (IMPULSE_LENGTH + 2.0), palette.NORMAL_IMPULSE)
    dv = trace.after[h] - trace.before[h]
    for centre, d in ((centre_a, dv[0:2]), (centre_b, dv[3:5])):
        speed = float(np.hypot(*d))
        if speed > 0.0:
            batch.add_arrows(
                centre, centre + d / speed * min(speed * VELOCITY_SCALE, ARROW_MAX), palette.VELOCITY
            )
    for name, centre in (("A", centre_a), ("B", centre_b)):
        batch.add_text(name, centre + (1.0, 3.0), palette.LABEL_TEXT)
    e = trace.restitution[h]
    im_a, im_b = trace.inv_mass[h]
    ii_a, ii_b = trace.inv_inertia[h]
    terms = (im_a, im_b, q[P_RA_N] ** 2 * ii_a, q[P_RB_N] ** 2 * ii_b)
    a, b = int(trace.body_a[h]), int(trace.body_b[h])
    lines = [
        f"body {a} (A) on body {b} (B), point {k + 1} of {int(trace.count[h])}, at {trace.t[h]:.4f} s",
        f"v_rel.n = {q[P_VN]:+.2f}, e = {e:.2f}",
        "j = -(1 + e) v_rel.n / K",
        "K = 1/ma + 1/mb + (ra x n)^2/Ia + (rb x n)^2/Ib",
        f"   = {' + '.join(f'{t:.4f}' for t in terms)} = {q[P_K]:.4f}",
        f"j = {-(1 + e) * q[P_VN]:.2f} / {q[P_K]:.4f} = {trace.formula_impulse(h, k):.1f} N s",
        f"applied by the solver: {jn:.1f} N s, friction {jt:+.1f} N s",
        f"dv A = ({dv[0]:+.2f}, {dv[1]:+.2f}), dw A = {dv[2]:+.2f}",
        f"dv B = ({dv[3]:+.2f}, {dv[4]:+.2f}), dw B = {dv[5]:+.2f}",
    ]
    x0, y0, _, y1 = view
    spacing = TEXT_LINE * (y1 - y0) / (VIEW[3] - VIEW[1])
    for i, line in enumerate(lines):
        batch.add_text(line, (x0 + 2.0 * spacing / TEXT_LINE, y1 - (i + 0.6) * spacing), palette.FORMULA_TEXT)
    which = "a picked contact" if shown.picked else "the latest impact"
    return [f"{which}: j = {trace.formula_impulse(h, k):.1f} N s by seed 004's formula (terms above)"]


def build_impulse(seed: int = 0, bodies: int | None = None) -> ImpulseScene:
    world = World(gravity=(0.0, -GRAVITY), solver="tutorial", restitution=RESTITUTION, friction=FRICTION)
    world.add_body(Polygon.box(120.0, 10.0), (65.0, 5.0), static=True)
    box = world.add_body(Polygon.box(16.0, 8.0), (45.0, 30.0), angle=0.5, velocity=(0.0, -12.0))
    # Its lowest corner just above the ground: the first step is an impact.
    world.position[box, 1] -= world.vertices(box)[:, 1].min() - (GROUND_TOP + START_GAP)
    world.add_body(Polygon.regular(6, 5.0), (95.0, 16.0), velocity=(-25.0, 0.0), angular_velocity=2.0)
    help_lines = [
        "impulse (Tutorial 7 with seed 004's impulse): the latest impact's contact, its arms and "
        "the impulse formula with its numbers",
        "left mouse: pick the contact nearest the cursor (away from all: the latest impact again)",
    ]
    fields = fixed_count_fields("impulse", world, seed, VIEW, help_lines)
    return ImpulseScene(**fields, mouse_forces=False, traits=frozenset({"pick"}))


BUILDERS = {"impulse": build_impulse}
