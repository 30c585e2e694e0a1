"""Exact cases of seed 002's crack problem: a box sliding over a floor of flush tiles, whose
cracks are not surfaces and must change nothing, whatever the direction, speed, friction or slope.
"""

from __future__ import annotations

import math

from demo.bench.engines import Sim
from demo.bench.physics.case import Case, Check
from demo.bench.physics.impacts import ARCADE_NOT_COULOMB
from demo.bench.physics.setups import box, in_frame, run_for, turned
from demo.bench.scenes import STATIC, BodySpec, SceneSpec, box_vertices

G = 10.0


def slide_velocity(v0: float, friction: float, turn: float, seconds: float) -> float:
    """Velocity (m/s, along the floor) after ``seconds`` of a box sliding at ``v0`` on a floor
    turned by ``turn`` (rad, counter-clockwise: gravity pulls along it at -g sin(turn)), with
    Coulomb friction ``friction``: uniform deceleration, a stop, then sliding back if the slope
    is steeper than the friction angle, else resting."""
    pull = -G * math.sin(turn)
    drag = friction * G * math.cos(turn)
    if v0 != 0.0:
        a = pull - math.copysign(drag, v0)
        t_stop = -v0 / a if a * v0 < 0.0 else math.inf
        if seconds <= t_stop:
            return v0 + a * seconds
        seconds -= t_stop
    if abs(pull) <= drag:
        return 0.0
    return (pull - math.copysign(drag, pull)) * seconds


def slide_across_cracks(
    tiles: int = 8,
    speed: float = 5.0,
    friction: float = 0.0,
    turn: float = 0.0,
    leftward: bool = False,
    seconds: float = 1.2,
    uneven: bool = False,
) -> Case:
    """Sliding across cracks: a box slides over a floor of flush tiles as over one floor.

    ``tiles`` static 1 x 1 m boxes side by side (x from -1 to ``tiles`` - 1 in the case's
    frame, turned by ``turn``), their tops flush at y = 0 (with ``uneven``, every other tile
    half as deep: flush tops, uneven bottoms); a 1 x 1 m box (density 1) rests on
    the first (the last when ``leftward``), moving at ``speed`` m/s along the floor; friction
    ``friction`` on both, g = 10. The cracks between tiles are not surfaces (seed 002's crack
    problem): the box moves as on one floor, decelerating at g sin(turn) + mu g cos(turn)
    along its motion (:func:`slide_velocity`). After ``seconds`` its velocity along the floor
    is that, and its bottom is still on the tiles' tops.
    """
    v0 = -speed if leftward else speed
    name = f"slide_across_cracks_{tiles}"
    name += "_leftward" if leftward else ""
    name += f"_mu{friction:g}" if friction else ""
    name += f"_{math.degrees(turn):g}deg" if turn else ""
    name += "_uneven" if uneven else ""
    depths = [0.5 if uneven and k % 2 else 1.0 for k in range(tiles)]
    floor_tiles = [
        BodySpec(
            (box_vertices(1.0, depths[k]),),
            turned((k - 0.5, -0.5 * depths[k]), turn),
            angle=turn,
            kind=STATIC,
            friction=friction,
        )
        for k in range(tiles)
    ]
    start = (tiles - 1.5, 0.5) if leftward else (-0.5, 0.5)
    slider = box(1.0, 1.0, start, turn=turn, velocity=(v0, 0.0), friction=friction)
    scene = SceneSpec(name, (*floor_tiles, slider))
    expected = slide_velocity(v0, friction, turn, seconds)

    def measure(sim: Sim) -> dict[str, float]:
        s = run_for(sim, seconds)
        return {"v": in_frame(s.velocity[-1], turn)[0], "height": in_frame(s.position[-1], turn)[1] - 0.5}

    slope = f" on a floor turned {math.degrees(turn):g} deg" if turn else ""
    material = f", mu {friction:g}" if friction else ", no friction"
    bottoms = " with uneven bottoms" if uneven else ""
    law = (
        f"sliding across cracks: a box sliding {'left' if leftward else 'right'} at {speed:g} m/s over "
        f"flush tiles{bottoms}{slope}{material} moves as on one floor"
    )
    return Case(
        name,
        law,
        scene,
        measure,
        {
            "v": Check(
                f"velocity along the floor at {seconds:g} s",
                "m/s",
                expected,
                max(0.01, 0.002 * abs(expected)),
                "0.2%, 0.01 m/s at least: a snag on a crack costs the box most of its speed",
            ),
            "height": Check("bottom above the tiles", "m", 0.0, 0.005, "one linear slop"),
        },
        slide_across_cracks.__doc__ or "",
        exempt={"arcade": ARCADE_NOT_COULOMB} if friction else {},
    )
