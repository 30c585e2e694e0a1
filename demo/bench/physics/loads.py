"""Exact cases of heavy bodies resting on light ones: at rest nothing sinks and nothing moves.

Each scene starts in exact static equilibrium (bodies placed touching, at rest, friction 0.6,
g = 10, sleeping on), so the answer after any time is the start: every overlap 0 and every
body where it was. What makes them hard is the load on a light body, many times its own mass:
a solver's contact under it must carry that weight without letting the heavy body sink in.
The stack of ten with masses doubling upward is in resting.py; these are the same law in
other shapes of load path.
"""

from __future__ import annotations

import numpy as np

from demo.bench.engines import Sim
from demo.bench.measure import deepest_overlap
from demo.bench.physics.case import AT_MOST, Case, Check
from demo.bench.physics.resting import TUTORIAL_MASS_RATIO, overlap_check
from demo.bench.physics.setups import box, floor, run_for
from demo.bench.scenes import BodySpec, SceneSpec

#: Why the arcade solver makes no claim to hold a heavy body on a light one.
ARCADE_MASS_RATIO = (
    "Tutorial 4's response pushes each overlap apart by inverse mass once per hit, with no "
    "accumulated impulse: a heavy body on a light one has no resting state in it"
)
FRICTION = 0.6


def _resting(name: str, law: str, bodies: list[BodySpec], derivation: str, seconds: float = 10.0) -> Case:
    """A case whose scene rests from the start: after ``seconds`` the deepest overlap between any
    two bodies and the largest displacement of a moving body are both 0 (within slops)."""
    scene = SceneSpec(name, tuple(bodies), sleeping=True)

    def measure(sim: Sim) -> dict[str, float]:
        start = sim.state()
        end = run_for(sim, seconds)
        moving = np.array([b.moving for b in scene.bodies])
        drift = float(np.hypot(*(end.position[moving] - start.position[moving]).T).max())
        return {"overlap": deepest_overlap(scene, end), "drift": drift}

    return Case(
        name,
        law,
        scene,
        measure,
        {
            "overlap": overlap_check("deepest overlap between any two bodies"),
            "drift": Check(
                "largest displacement of a body",
                "m",
                0.0,
                0.02,
                "a few contacts' slops (0.005 m each); more is a body that sank or slid",
                AT_MOST,
            ),
        },
        derivation,
        exempt={"tutorial": TUTORIAL_MASS_RATIO, "arcade": ARCADE_MASS_RATIO},
    )


def _heavy_on_light(
    name: str, what: str, mass: float, supports: list[BodySpec], heavy: BodySpec, derivation: str | None
) -> Case:
    """The resting case ``<name>_<mass>``: ``heavy`` (a body of ``mass`` kg, ``what`` says on
    what) rests on the light ``supports``, which stand on a static floor; all friction 0.6."""
    bodies = [floor(friction=FRICTION), *supports, heavy]
    return _resting(f"{name}_{mass:g}", f"a {mass:g} kg {what} stands for 10 s", bodies, derivation or "")


def _box(w: float, h: float, centre: tuple[float, float], density: float = 1.0) -> BodySpec:
    """A ``w`` x ``h`` m box of ``density`` kg/m^2 at ``centre``, at rest, friction 0.6."""
    return box(w, h, centre, density=density, friction=FRICTION)


def heavy_pair(ratio: float = 1000.0) -> Case:
    """A 1 x 1 m box of ``ratio`` kg rests on a 1 x 1 m box of 1 kg on a static floor.

    The light box's two contacts carry 1 + ``ratio`` times its weight. Static equilibrium:
    overlaps 0, nothing moves.
    """
    heavy = _box(1.0, 1.0, (0.0, 1.5), ratio)
    supports = [_box(1.0, 1.0, (0.0, 0.5))]
    what = "box on a 1 kg box"
    return _heavy_on_light("heavy_on_light_pair", what, ratio, supports, heavy, heavy_pair.__doc__)


def heavy_on_pyramid(mass: float = 200.0) -> Case:
    """A 1 x 1 m box of ``mass`` kg rests on top of a pyramid of six 1 kg boxes (rows of 3, 2, 1,
    1 x 1 m, each row centred on the one below, so every box but the bottom row's rests on two).

    The load spreads down two paths per box; each light box carries a share of ``mass`` that
    is tens to hundreds of times its own weight. Static equilibrium: overlaps 0, nothing moves.
    """
    heavy = _box(1.0, 1.0, (0.0, 3.5), mass)
    supports = [
        _box(1.0, 1.0, (k - 0.5 * (count - 1), 0.5 + row))
        for row, count in enumerate((3, 2, 1))
        for k in range(count)
    ]
    what = "box on a pyramid of six 1 kg boxes"
    return _heavy_on_light("heavy_on_light_pyramid", what, mass, supports, heavy, heavy_on_pyramid.__doc__)


def heavy_plank(mass: float = 600.0) -> Case:
    """A 6 x 0.2 m plank of ``mass`` kg rests on two 0.5 x 0.5 m boxes of 0.25 kg standing on a
    static floor at x = +-2.5 m.

    Each support carries half the plank, 1200 times its own weight at 600 kg. Static
    equilibrium: overlaps 0, nothing moves.
    """
    heavy = _box(6.0, 0.2, (0.0, 0.6), mass / 1.2)
    supports = [_box(0.5, 0.5, (x, 0.25)) for x in (-2.5, 2.5)]
    what = "plank on two 0.25 kg boxes"
    return _heavy_on_light("heavy_plank_on_light_supports", what, mass, supports, heavy, heavy_plank.__doc__)
