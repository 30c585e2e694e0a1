"""Exact cases of conservation: momentum and angular momentum in free impacts, Newton's cradle
with gaps, an elastic gas's energy, and sleeping bodies that must wake when struck."""

from __future__ import annotations

import math

import numpy as np

from demo.bench.engines import Sim
from demo.bench.physics.case import AT_LEAST, Case, Check
from demo.bench.physics.impacts import ARCADE_NO_ROTATION
from demo.bench.physics.setups import angular_momentum, box, floor, linear_momentum, run_for
from demo.bench.scenes import STATIC, BodySpec, SceneSpec, box_vertices

ROUNDING = (
    "contact impulses are equal and opposite at one point, so only rounding changes the total: "
    "1e-5 of the momentum scale covers float32 (Box2D) over the run"
)


def _two_boxes(friction: float, spin: float, vy: float) -> tuple[BodySpec, BodySpec]:
    a = box(
        1.0, 0.5, (0.0, 0.3), velocity=(3.0, vy), angular_velocity=spin, friction=friction, restitution=0.3
    )
    b = box(0.8, 0.8, (2.0, 0.0), velocity=(-1.0, 0.0), density=2.0, friction=friction, restitution=0.3)
    return a, b


def _momenta(sim: Sim, seconds: float) -> dict[str, float]:
    """Changes of linear and angular momentum over ``seconds``, and how much B's velocity
    changed (proof that the bodies met)."""
    mass, inertia = sim.mass_properties()
    s0 = sim.state()
    p0, l0 = linear_momentum(mass, s0), angular_momentum(mass, inertia, s0)
    s = run_for(sim, seconds)
    p, ell = linear_momentum(mass, s), angular_momentum(mass, inertia, s)
    touched = float(np.abs(s.velocity[1] - s0.velocity[1]).max())
    return {"dp": float(np.hypot(*(p - p0))), "dl": abs(ell - l0), "touched": touched}


MET = Check(
    "B's velocity change (the bodies did meet)",
    "m/s",
    0.5,
    0.0,
    "a case that never collides proves nothing",
    AT_LEAST,
)


def free_impact_momentum() -> Case:
    """Linear momentum in a free, off-centre, spinning impact with friction.

    A: 1 x 0.5 m box, density 1, at (0, 0.3) m moving (3, 0.5) m/s and spinning 3 rad/s;
    B: 0.8 x 0.8 m box, density 2, at (2, 0) m moving (-1, 0) m/s; friction 0.5, e = 0.3,
    no gravity, no other body. Every contact impulse acts equally and oppositely on A and B,
    so P = sum m v is the same before and after: its change is 0. (Angular momentum is
    checked in the frictionless case: a discrete solver applies a step's impulses at points
    that drift apart with the bodies' motion within the step, and with friction and spin that
    drift times the friction impulse changes L by 1-10% in every engine.)
    """
    scene = SceneSpec("free_impact_momentum", _two_boxes(0.5, 3.0, 0.5), gravity=(0.0, 0.0))
    return Case(
        scene.name,
        "linear momentum is conserved in a free impact with friction and spin",
        scene,
        lambda sim: {k: v for k, v in _momenta(sim, 1.0).items() if k != "dl"},
        {"dp": Check("change of linear momentum", "N s", 0.0, 1e-5 * 3.5, ROUNDING), "touched": MET},
        free_impact_momentum.__doc__ or "",
    )


def free_impact_angular_momentum() -> Case:
    """Angular momentum (and momentum) in a free, off-centre, frictionless impact.

    The same two boxes as the spinning case, without friction and without spin: A at (0, 0.3) m
    moving (3, 0) m/s strikes B (at (2, 0), moving (-1, 0) m/s) 0.3 m off B's centre line;
    e = 0.3, no gravity. The impulses are equal and opposite and act along the normal through
    one point, so L = sum (m r x v + I w) about the origin (-0.45 kg m^2/s) and P are the same
    after as before. Both bodies start spinning after the impact; within a step each one's
    contact point then drifts by w r dt (about 1 rad/s x 0.5 m / 60 = 8 mm) from the other's,
    and an impulse of about 1.6 N s applied across that drift changes L by at most 0.013:
    that bounds what a time-stepping solver can be off by.
    """
    scene = SceneSpec("free_impact_angular_momentum", _two_boxes(0.0, 0.0, 0.0), gravity=(0.0, 0.0))
    return Case(
        scene.name,
        "angular momentum is conserved in a free, off-centre, frictionless impact",
        scene,
        lambda sim: _momenta(sim, 1.0),
        {
            "dp": Check("change of linear momentum", "N s", 0.0, 1e-5 * 3.5, ROUNDING),
            "dl": Check(
                "change of angular momentum about the origin",
                "kg m^2/s",
                0.0,
                0.013,
                "impulse x the contact points' drift within a step (see the derivation); 3% of |L|",
            ),
            "touched": MET,
        },
        free_impact_angular_momentum.__doc__ or "",
        exempt={"arcade": ARCADE_NO_ROTATION},
    )


def newtons_cradle(count: int = 5, gap: float = 0.3) -> Case:
    """Newton's cradle with gaps: momentum passes down the line, one impact at a time.

    ``count`` 1 x 1 m boxes (density 1) in a row, ``gap`` m apart, e = 1, no friction, no
    gravity; the first moves at 2 m/s. Each impact is two equal masses, one at rest, elastic:
    they exchange velocities exactly. The gaps make every impact separate (the next one starts
    gap / 2 m/s = 0.15 s later), so at the end the last box moves at 2 m/s and the others are
    at rest: sum of the others' speeds 0.
    """
    bodies = [
        box(1.0, 1.0, (i * (1.0 + gap), 0.0), velocity=(2.0 if i == 0 else 0.0, 0.0), restitution=1.0)
        for i in range(count)
    ]
    scene = SceneSpec(f"newtons_cradle_{count}", tuple(bodies), gravity=(0.0, 0.0))

    def measure(sim: Sim) -> dict[str, float]:
        s = run_for(sim, 0.15 * count + 0.5)
        speeds = np.hypot(s.velocity[:, 0], s.velocity[:, 1])
        return {"last": float(s.velocity[-1, 0]), "others": float(speeds[:-1].sum())}

    why = "each impact is a single exchange; 1e-3 of the 2 m/s per impact, four impacts"
    return Case(
        scene.name,
        f"Newton's cradle of {count} with {gap:g} m gaps: the last box leaves at the first's speed, "
        "the rest stop",
        scene,
        measure,
        {
            "last": Check("last box's velocity", "m/s", 2.0, 4 * 2e-3, why),
            "others": Check("sum of the other boxes' speeds", "m/s", 0.0, 4 * 2e-3, why),
        },
        newtons_cradle.__doc__ or "",
    )


def elastic_gas(count: int = 16, seconds: float = 10.0, seed: int = 4) -> Case:
    """An elastic gas keeps its kinetic energy.

    ``count`` 0.5 x 0.5 m boxes (density 1) at random places on a grid inside a closed 10 x 10 m
    box, random velocities 2-5 m/s and spins up to 2 rad/s; e = 1, no friction, no gravity. Every
    impact is elastic and frictionless, so the total kinetic energy sum (m v^2 + I w^2) / 2 is
    the same after ``seconds`` as at the start: ratio 1.
    """
    rng = np.random.default_rng(seed)
    wall = {"kind": STATIC, "friction": 0.0, "restitution": 1.0}
    bodies: list[BodySpec] = [
        BodySpec((box_vertices(12.0, 1.0),), (0.0, -5.5), **wall),
        BodySpec((box_vertices(12.0, 1.0),), (0.0, 5.5), **wall),
        BodySpec((box_vertices(1.0, 10.0),), (-5.5, 0.0), **wall),
        BodySpec((box_vertices(1.0, 10.0),), (5.5, 0.0), **wall),
    ]
    cells = rng.permutation(36)[:count]
    for cell in cells:
        x, y = -4.0 + 1.6 * (cell % 6), -4.0 + 1.6 * (cell // 6)
        speed, heading = rng.uniform(2.0, 5.0), rng.uniform(0.0, 2.0 * math.pi)
        bodies.append(
            box(
                0.5,
                0.5,
                (x, y),
                velocity=(speed * math.cos(heading), speed * math.sin(heading)),
                angle=float(rng.uniform(0.0, math.pi)),
                angular_velocity=float(rng.uniform(-2.0, 2.0)),
                restitution=1.0,
            )
        )
    scene = SceneSpec(f"elastic_gas_{count}", tuple(bodies), gravity=(0.0, 0.0))

    def energy(sim: Sim) -> float:
        mass, inertia = sim.mass_properties()
        s = sim.state()
        return float(
            0.5 * (mass * (s.velocity**2).sum(axis=1)).sum() + 0.5 * (inertia * s.angular_velocity**2).sum()
        )

    def measure(sim: Sim) -> dict[str, float]:
        e0 = energy(sim)
        sim.step(int(round(seconds / sim.scene.dt)))
        return {"ratio": energy(sim) / e0}

    return Case(
        scene.name,
        f"an elastic gas of {count} boxes keeps its kinetic energy over {seconds:g} s",
        scene,
        measure,
        {
            "ratio": Check(
                "kinetic energy after / before",
                "",
                1.0,
                0.01,
                "hundreds of impacts, each exact only to its solver's convergence: 1% over the run",
            )
        },
        elastic_gas.__doc__ or "",
    )


#: A sleeping case proves nothing unless the sleeper was asleep when struck.
WAS_ASLEEP = Check(
    "sleeper asleep when struck (1 yes)", "", 1.0, 0.0, "a sleeper that never slept proves nothing", AT_LEAST
)
NEVER_SLEEPS = "only the iterative solver puts bodies to sleep: the other two have nothing to wake"
SLEEP_EXEMPT = {"tutorial": NEVER_SLEEPS, "arcade": NEVER_SLEEPS}


def sleeper_struck(side: str) -> Case:
    """A sleeping body struck by a moving one wakes, and momentum is conserved.

    Two 1 x 1 m boxes (density 1) 2 m apart, e = 1, no friction, no gravity, sleeping on; both
    at rest, so both fall asleep within a second. At t = 1 s the striker is set moving at 2 m/s
    towards the sleeper (from its left or its right; the sleeper is the first body or the
    second, so both orders of a pair are covered). An elastic impact of equal masses exchanges
    velocities: afterwards the sleeper moves at the striker's 2 m/s and the striker stops.
    """
    left = side == "left"
    sleeper = box(1.0, 1.0, (0.0, 0.0), restitution=1.0)
    striker = box(1.0, 1.0, (-3.0 if left else 3.0, 0.0), restitution=1.0)
    bodies = (sleeper, striker) if left else (striker, sleeper)
    s_index, k_index = (0, 1) if left else (1, 0)
    direction = 1.0 if left else -1.0
    scene = SceneSpec(f"sleeper_struck_from_{side}", bodies, gravity=(0.0, 0.0), sleeping=True)

    def measure(sim: Sim) -> dict[str, float]:
        run_for(sim, 1.0)
        asleep = 0.0 if sim.awake()[s_index] else 1.0
        sim.set_velocity(k_index, (2.0 * direction, 0.0), 0.0)
        s = run_for(sim, 2.0)
        return {
            "asleep": asleep,
            "sleeper": float(s.velocity[s_index, 0] * direction),
            "striker": float(s.velocity[k_index, 0] * direction),
        }

    why = "one face-to-face elastic impact: 1e-3 of the 2 m/s"
    return Case(
        scene.name,
        f"a sleeping body struck from the {side} wakes; momentum is conserved",
        scene,
        measure,
        {
            "asleep": WAS_ASLEEP,
            "sleeper": Check("sleeper's velocity after", "m/s", 2.0, 2e-3, why),
            "striker": Check("striker's velocity after", "m/s", 0.0, 2e-3, why),
        },
        sleeper_struck.__doc__ or "",
        exempt=SLEEP_EXEMPT,
    )


def sleeper_hit_sliding() -> Case:
    """Under gravity, a box sliding into a resting (sleeping) one shares its momentum with it.

    Two 1 x 1 m boxes (density 1) on a floor, 1 m apart, friction 0.2 everywhere, e = 0,
    g = 10 m/s^2, sleeping on; both settle and sleep within a second. At t = 1 s the striker is
    launched at v0 = 4 m/s towards the sleeper. It slides D = 1 m against friction mu g:
    v1^2 = v0^2 - 2 mu g D = 12, v1 = 3.464 m/s. The plastic impact of equal masses leaves both
    at v1 / 2; they decelerate alike (mu g each) and slide on together, so the sleeper slides
    (v1 / 2)^2 / (2 mu g) = 0.75 m before stopping.
    """
    mu = 0.2
    ground = floor(friction=mu)
    sleeper = box(1.0, 1.0, (2.0, 0.5), friction=mu)
    striker = box(1.0, 1.0, (0.0, 0.5), friction=mu)
    scene = SceneSpec("sleeper_hit_sliding", (ground, sleeper, striker), sleeping=True)

    def measure(sim: Sim) -> dict[str, float]:
        start = run_for(sim, 1.0)
        asleep = 0.0 if sim.awake()[1] else 1.0
        sim.set_velocity(2, (4.0, 0.0), 0.0)
        end = run_for(sim, 2.0)
        return {"asleep": asleep, "travel": float(end.position[1, 0] - start.position[1, 0])}

    return Case(
        scene.name,
        "a box sliding under gravity into a sleeping one shares its momentum (the sleeper slides 0.75 m)",
        scene,
        measure,
        {
            "asleep": WAS_ASLEEP,
            "travel": Check(
                "sleeper's slide after the impact",
                "m",
                0.75,
                0.05,
                "the impact lands within a step (v1 / 2 x dt = 0.029 m of timing) and semi-implicit "
                "Euler's distance error v dt / 2 = 0.014 m",
            ),
        },
        sleeper_hit_sliding.__doc__ or "",
        exempt=SLEEP_EXEMPT,
    )
