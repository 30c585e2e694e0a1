"""Exact cases under gravity: tipping versus sliding, a wheel spinning down in a corner, stacks,
a plank landing on supports, a kinematic platform's rider, a long drop onto a thin plate, and a
compound body's mass properties (sliding across cracks: cracks.py)."""

from __future__ import annotations

import math

import numpy as np

from demo.bench.engines import Sim
from demo.bench.measure import pair_overlap
from demo.bench.physics.case import AT_LEAST, AT_MOST, Case, Check, steps_for
from demo.bench.physics.impacts import ARCADE_NO_ROTATION
from demo.bench.physics.setups import box, floor, in_frame, run_for
from demo.bench.scenes import (
    KINEMATIC,
    STATIC,
    BodySpec,
    SceneSpec,
    box_vertices,
    mass_properties,
    regular_vertices,
)

G = 10.0


def _ramp(theta: float, friction: float) -> BodySpec:
    return floor(theta, width=30.0, friction=friction)


def box_on_ramp(
    w: float, h: float, theta_deg: float, friction: float, seconds: float
) -> tuple[SceneSpec, float]:
    """A ``w`` x ``h`` box resting at rest on a ramp of ``theta_deg``; returns the scene and theta (rad)."""
    theta = math.radians(theta_deg)
    body = box(w, h, (0.0, 0.5 * h), theta, friction=friction)
    tag = f"{w:g}x{h:g}_{theta_deg:g}deg_mu{friction:g}"
    return SceneSpec(f"ramp_{tag}", (_ramp(theta, friction), body)), theta


def tipping(above: bool) -> Case:
    """Tipping versus sliding: a box on a ramp tips once tan(theta) > w / h.

    A 0.5 x 1 m box (w / h = 0.5, critical angle atan(0.5) = 26.57 deg) rests on a ramp with
    friction 1 (> tan(theta): it cannot slide). Gravity's line through the centre of mass leaves
    the base, and the box tips over its downhill corner, exactly when tan(theta) > w / h.
    At 3 deg below the critical angle it stays put (rotation relative to the ramp 0 after 3 s);
    at 3 deg above it tips onto its side (rotation beyond pi / 2 - 0.1 within 3 s: the initial
    angular acceleration m g (h/2 sin(theta) - w/2 cos(theta)) / I_corner = 0.70 rad/s^2 grows as
    it leans, so it is over in well under 3 s).
    """
    w, h = 0.5, 1.0
    critical = math.degrees(math.atan(w / h))
    scene, theta = box_on_ramp(w, h, critical + (3.0 if above else -3.0), 1.0, 3.0)

    def measure(sim: Sim) -> dict[str, float]:
        a0 = float(sim.state().angle[1])
        turn = 0.0
        for _ in range(180):
            sim.step(1)
            a = float(sim.state().angle[1])
            turn += math.remainder(a - a0, 2.0 * math.pi)
            a0 = a
        return {"turn": abs(turn)}

    if above:
        check = Check(
            "rotation relative to the ramp after 3 s",
            "rad",
            math.pi / 2.0,
            0.1,
            "tipped onto its side: a quarter turn (it may roll on)",
            AT_LEAST,
        )
        law = "tipping: a 0.5 x 1 box tips on a ramp 3 deg steeper than atan(w / h)"
    else:
        check = Check(
            "rotation relative to the ramp after 3 s",
            "rad",
            0.0,
            0.01,
            "standing still: 0.01 rad is 5 mm at the top corner",
            AT_MOST,
        )
        law = "tipping: a 0.5 x 1 box stands on a ramp 3 deg shallower than atan(w / h)"
    return Case(
        scene.name,
        law,
        scene,
        measure,
        {"turn": check},
        tipping.__doc__ or "",
        exempt={"arcade": ARCADE_NO_ROTATION},
    )


def sliding() -> Case:
    """Sliding: a wide box slides down a ramp steeper than its friction angle, without tipping.

    A 1 x 0.5 m box (w / h = 2: tipping would need tan(theta) > 2) on a 20 deg ramp with
    friction 0.2 < tan(20 deg) = 0.364 starts from rest and slides with
    a = g (sin(theta) - mu cos(theta)) = 1.5410 m/s^2: after 1 s it has slid a t^2 / 2 =
    0.7705 m at a t = 1.5410 m/s. Semi-implicit Euler (velocity first, then position) overshoots
    the distance by a h t / 2 for a time step h: 0.0128 m at h = 1/60 s, a quarter of that with
    4 substeps.
    """
    scene, theta = box_on_ramp(1.0, 0.5, 20.0, 0.2, 1.0)
    a = G * (math.sin(theta) - 0.2 * math.cos(theta))

    def measure(sim: Sim) -> dict[str, float]:
        s0 = sim.state()
        s = run_for(sim, 1.0)
        along, _ = in_frame(s.position[1] - s0.position[1], theta)
        speed, _ = in_frame(s.velocity[1], theta)
        turn = abs(math.remainder(float(s.angle[1] - s0.angle[1]), 2.0 * math.pi))
        return {"distance": -along, "speed": -speed, "turn": turn}

    euler = a * scene.dt * 1.0 / 2.0
    return Case(
        scene.name,
        "sliding: a 1 x 0.5 box slides down a 20 deg ramp at g (sin - mu cos), without tipping",
        scene,
        measure,
        {
            "distance": Check(
                "distance slid in 1 s",
                "m",
                a / 2.0 + 0.5 * euler,
                0.5 * euler + 0.005,
                "anywhere from the exact a t^2 / 2 to Euler's overshoot a dt t / 2 above it, and 5 mm "
                "of soft start",
            ),
            "speed": Check("speed after 1 s", "m/s", a, 0.01, "0.6% of the speed: friction converged"),
            "turn": Check("rotation", "rad", 0.0, 0.01, "a sliding box does not rock", AT_MOST),
        },
        sliding.__doc__ or "",
        exempt={
            "arcade": "the arcade solver's friction is not Coulomb's law (Tutorial 4's fraction per hit)"
        },
    )


def corner_wheel() -> Case:
    """A wheel spinning in a floor-wall corner stops at t = w0 I (1 + mu^2) / (mu (1 + mu) m g R).

    A circular wheel of radius R touching a floor and a wall on its right, spinning clockwise at
    w0, friction mu on both: the floor's friction F1 = mu N1 pushes it into the wall (N2 = F1),
    the wall's friction F2 = mu N2 holds it up, so N1 + mu N2 = m g gives
    N1 = m g / (1 + mu^2). Both frictions brake the spin with arm R:
    I dw/dt = -mu (N1 + N2) R = -mu (1 + mu) m g R / (1 + mu^2), hence t_c above, and the
    centre never leaves the corner.

    Our wheel is a regular 16-gon (R = 1 m circumradius, density 1: m = 3.0615 kg,
    I = 1.4919 kg m^2, so t_c = 0.8120 s), a vertex
    on the floor and one on the wall, mu = 0.5, w0 = 0.12 rad/s, g = 0.12 m/s^2: gentle enough
    that the facets never knock (w0^2 R / g = 0.12) and the wheel turns only
    theta = w0 t_c / 2 = 0.049 rad while stopping, so both contacts stay on the same vertices.
    Turned by phi, each vertex's normal force acts R sin(phi) off the centre and against the
    brake: the braking torque is (N1 + N2) R (mu cos(phi) - sin(phi)). phi grows from 0 to theta,
    averaging 2 theta / 3 over the stop, so to first order t_stop = t_c (1 + 2 theta / (3 mu))
    = 1.065 t_c = 0.8650 s. Measured: the time w falls to 1% of w0, which a constant deceleration reaches
    at 0.99 t_stop (interpolated between steps); and the farthest the centre moves (it drops by
    R (1 - cos(theta)) = 0.001 m as the vertices turn).
    """
    radius, mu, w0, g = 1.0, 0.5, 0.12, 0.12
    wheel = BodySpec(
        (regular_vertices(16, radius, phase=-math.pi / 2.0),),
        (0.0, radius),
        angular_velocity=-w0,
        friction=mu,
    )
    m, _, inertia = mass_properties(wheel)
    wall = BodySpec(
        (box_vertices(1.0, 4.0 * radius),), (radius + 0.5, 2.0 * radius), kind=STATIC, friction=mu
    )
    scene = SceneSpec("corner_wheel", (floor(friction=mu), wall, wheel), gravity=(0.0, -g))
    t_circle = w0 * inertia * (1.0 + mu * mu) / (mu * (1.0 + mu) * m * g * radius)
    theta = 0.5 * w0 * t_circle
    t_stop = t_circle * (1.0 + 2.0 * theta / (3.0 * mu))
    threshold = 0.01 * w0

    def measure(sim: Sim) -> dict[str, float]:
        start = sim.state().position[2].copy()
        wandered, stop = 0.0, math.nan
        previous = -w0
        for k in range(1, int(round(2.0 * t_stop / sim.scene.dt)) + 1):
            sim.step(1)
            s = sim.state()
            wandered = max(wandered, float(np.hypot(*(s.position[2] - start))))
            spin = float(s.angular_velocity[2])
            if math.isnan(stop) and spin >= -threshold:
                stop = (k - 1 + (previous + threshold) / (previous - spin)) * sim.scene.dt
            previous = spin
        return {"t_stop": stop, "wander": wandered}

    return Case(
        scene.name,
        "a wheel spinning in a corner stops at w0 I (1 + mu^2) / (mu (1 + mu) m g R), staying in the corner",
        scene,
        measure,
        {
            "t_stop": Check(
                "time for the spin to fall to 1% of w0",
                "s",
                0.99 * t_stop,
                0.03 * t_stop,
                "3%: the first-order polygon correction leaves (theta / mu)^2 = 1% and a step is 2% of t",
            ),
            "wander": Check(
                "farthest the centre moves from the corner",
                "m",
                0.0,
                0.005,
                "the vertices' turn lowers it 0.001 m; Box2D's linear slop on top",
                AT_MOST,
            ),
        },
        corner_wheel.__doc__ or "",
        exempt={"arcade": ARCADE_NO_ROTATION},
    )


def corner_wheel_settles(w0: float = 10.0, seconds: float = 4.0) -> Case:
    """A wheel that has spun down in a floor-wall corner stays in the corner.

    The corner of :func:`corner_wheel` (a 16-gon of circumradius R = 1 m, density 1, a vertex on
    the floor and one on the wall on its right, mu = 0.5 on both), spun clockwise at ``w0``
    rad/s under g = 10: the floor's friction drives it into the wall and both frictions brake it
    (t = w0 I (1 + mu^2) / (mu (1 + mu) m g R) = 0.81 s for a circle at 10 rad/s), the 16-gon
    knocking over its facets on the way (w0^2 R / g = 10). Stopped, its weight acts beside the
    floor vertex towards the wall, or straight down through it: nothing can move it away from
    the wall for good or lift it (that would take energy it no longer has). From the step its
    spin falls to 1% of w0, for ``seconds`` more: the largest distance its centre moves away
    from the wall and the largest height it rises, from where it stopped; and how far it
    drifts from 1 s after the stop to the end (settled, it stays put).
    """
    radius, mu = 1.0, 0.5
    wheel = BodySpec(
        (regular_vertices(16, radius, phase=-math.pi / 2.0),),
        (0.0, radius),
        angular_velocity=-w0,
        friction=mu,
    )
    wall = BodySpec(
        (box_vertices(1.0, 4.0 * radius),), (radius + 0.5, 2.0 * radius), kind=STATIC, friction=mu
    )
    scene = SceneSpec("corner_wheel_settles", (floor(friction=mu), wall, wheel), gravity=(0.0, -G))

    def measure(sim: Sim) -> dict[str, float]:
        for _ in range(steps_for(3.0, sim.scene.dt)):
            sim.step(1)
            if abs(float(sim.state().angular_velocity[2])) <= 0.01 * w0:
                break
        stopped = sim.state().position[2].copy()
        away, rise = 0.0, 0.0
        settled = stopped
        for k in range(1, steps_for(seconds, sim.scene.dt) + 1):
            sim.step(1)
            position = sim.state().position[2]
            moved = position - stopped
            away = max(away, float(-moved[0]))
            rise = max(rise, float(moved[1]))
            if k == steps_for(1.0, sim.scene.dt):
                settled = position.copy()
        return {"away": away, "rise": rise, "drift": float(np.hypot(*(position - settled)))}

    return Case(
        scene.name,
        f"a wheel spun down in a corner stays in it: for {seconds:g} s after it stops, it neither "
        "rolls away from the wall nor rises, and it settles",
        scene,
        measure,
        {
            "away": Check(
                f"farthest the centre moves away from the wall in the {seconds:g} s after it stops",
                "m",
                0.0,
                0.01,
                "the last knock's rebound (Box2D v3 0.006 m, pymunk 0.005 m); rolling away is "
                "tens of centimetres",
                AT_MOST,
            ),
            "rise": Check(
                f"highest the centre rises in the {seconds:g} s after it stops",
                "m",
                0.0,
                0.005,
                "one linear slop",
                AT_MOST,
            ),
            "drift": Check(
                f"how far the centre moves from 1 s after the stop to {seconds:g} s after it",
                "m",
                0.0,
                0.001,
                "settled: a millimetre in 3 s is a creep already",
                AT_MOST,
            ),
        },
        corner_wheel_settles.__doc__ or "",
        exempt={"arcade": ARCADE_NO_ROTATION},
    )


#: Why the tutorial solver makes no claim to hold a heavy-on-light stack.
TUTORIAL_MASS_RATIO = (
    "Tutorial 7 has no impulses kept from step to step: each step its passes over the hits start "
    "from nothing, and with a 1:512 mass ratio they cannot carry the weight down the stack within "
    "100 passes; the heavy boxes sink through the light ones"
)


def overlap_check(quantity: str) -> Check:
    """Bodies at rest on each other overlap by at most 4 linear slops (0.02 m)."""
    return Check(quantity, "m", 0.0, 0.02, "4 linear slops: a visible sinking is more", AT_MOST)


def stack(count: int = 10, ratio: float = 2.0, seconds: float = 10.0) -> Case:
    """A stack stands without sinking or drifting; heavy on light when ``ratio`` > 1.

    ``count`` 1 x 1 m boxes stacked exactly on a static floor, densities 1, r, r^2, ...
    from the bottom up (r = 2: masses 1 to 512 kg), friction 0.6, g = 10, sleeping on. Static
    equilibrium: each box carries the weight of those above it, the contacts hold, nothing
    moves: after ``seconds`` every pair of neighbours overlaps by 0 and every box sits where it
    started (drift 0). With r = 2 the lowest box-on-box contact carries 1022 times the bottom
    box's weight: a solver must hold that without letting the boxes sink into each other.
    """
    bodies = [floor(friction=0.6)]
    bodies += [box(1.0, 1.0, (0.0, 0.5 + k), density=ratio**k, friction=0.6) for k in range(count)]
    heavy = ratio != 1.0
    name = f"heavy_on_light_stack_{count}" if heavy else f"stack_{count}"
    scene = SceneSpec(name, tuple(bodies), sleeping=True)

    def measure(sim: Sim) -> dict[str, float]:
        start = sim.state()
        end = run_for(sim, seconds)
        overlap = max(pair_overlap(scene, end, k, k + 1) for k in range(1, count))
        drift = float(np.hypot(*(end.position[1:] - start.position[1:]).T).max())
        return {"overlap": overlap, "drift": drift}

    if heavy:
        law = (
            f"heavy on light: {count} boxes, masses doubling upward (1 to {ratio ** (count - 1):g}), "
            f"stand for {seconds:g} s"
        )
        exempt = {
            "tutorial": TUTORIAL_MASS_RATIO,
            "arcade": (
                "Tutorial 4's response pushes each overlap apart by inverse mass once per hit, with "
                "no accumulated impulse: a 1:512 stack has no resting state in it"
            ),
        }
    else:
        law = f"a stack of {count} equal boxes stands for {seconds:g} s"
        exempt = {}
    return Case(
        scene.name,
        law,
        scene,
        measure,
        {
            "overlap": overlap_check("deepest overlap between neighbours"),
            "drift": Check(
                "largest displacement of a box",
                "m",
                0.0,
                0.05,
                "ten contacts' slops add up (10 x 0.005 m); more is a stack that moved",
                AT_MOST,
            ),
        },
        stack.__doc__ or "",
        exempt=exempt,
    )


def plank_on_supports() -> Case:
    """A long plank dropped flat onto two supports lands and rests on them, sinking in no deeper than a slop.

    A 20 x 0.2 m plank (density 1, 4 kg) falls flat from 5 m (its bottom face 5 m above two
    static 1 x 1 m supports centred at x = +-8 m), g = 10, friction 0.6, e = 0. It lands at
    sqrt(2 g h) = 10 m/s, flat, and stays on the supports: the deepest it ever penetrates them
    is 0 for an exact solver, and it ends resting with its bottom at y = 0.
    """
    supports = [BodySpec((box_vertices(1.0, 1.0),), (x, -0.5), kind=STATIC) for x in (-8.0, 8.0)]
    plank = box(20.0, 0.2, (0.0, 5.1), friction=0.6)
    scene = SceneSpec("plank_on_supports", (*supports, plank))

    def measure(sim: Sim) -> dict[str, float]:
        deepest = 0.0
        for _ in range(150):
            sim.step(1)
            s = sim.state()
            deepest = max(deepest, pair_overlap(scene, s, 0, 2), pair_overlap(scene, s, 1, 2))
        return {"sink": deepest, "rest": float(s.position[2, 1] - 0.1)}

    return Case(
        scene.name,
        "a 20 x 0.2 plank dropped flat from 5 m onto two supports sinks in no deeper than a slop",
        scene,
        measure,
        {
            "sink": Check(
                "deepest penetration into a support",
                "m",
                0.0,
                0.01,
                "two linear slops: anything more is visible",
                AT_MOST,
            ),
            "rest": Check("plank's bottom above the supports at 2.5 s", "m", 0.0, 0.005, "one linear slop"),
        },
        plank_on_supports.__doc__ or "",
    )


def kinematic_carry() -> Case:
    """A box rides a kinematic platform at the platform's velocity, steadily.

    A 4 x 0.5 m kinematic platform moves at (1, 0) m/s forever; a 1 x 1 m box (density 1)
    rests on it, starting at rest, friction 0.6, g = 10. Friction accelerates the box at
    mu g = 6 m/s^2 until it moves with the platform (in 1/6 s); from then on static friction
    carries it: its velocity is (1, 0) at every step. Measured from 0.5 s to 2 s: the largest
    deviation of the box's velocity from (1, 0), step by step.
    """
    platform = BodySpec(
        (box_vertices(4.0, 0.5),), (0.0, -0.25), velocity=(1.0, 0.0), kind=KINEMATIC, friction=0.6
    )
    rider = box(1.0, 1.0, (0.0, 0.5), friction=0.6)
    scene = SceneSpec("kinematic_carry", (platform, rider))

    def measure(sim: Sim) -> dict[str, float]:
        run_for(sim, 0.5)
        worst = 0.0
        for _ in range(90):
            sim.step(1)
            v = sim.state().velocity[1]
            worst = max(worst, float(np.hypot(v[0] - 1.0, v[1])))
        return {"deviation": worst}

    return Case(
        scene.name,
        "a box on a kinematic platform moving at 1 m/s moves at 1 m/s, steadily",
        scene,
        measure,
        {
            "deviation": Check(
                "largest deviation from the platform's velocity",
                "m/s",
                0.0,
                0.01,
                "1% of the carry speed",
                AT_MOST,
            )
        },
        kinematic_carry.__doc__ or "",
    )


def long_drop_on_thin_plate() -> Case:
    """No tunnelling: a box dropped 50 m onto a 5 cm plate stops on it.

    A 0.5 x 0.5 m box (density 1) falls from rest, its bottom 50 m above a static 4 x 0.05 m
    plate, g = 10, friction 0.6, e = 0. It arrives at sqrt(2 g h) = 31.6 m/s, covering 0.53 m
    per step: ten times the plate's thickness. It must stop on the plate: at 4 s (it lands at
    3.16 s) its bottom rests on the plate's top, y = 0.
    """
    plate = BodySpec((box_vertices(4.0, 0.05),), (0.0, -0.025), kind=STATIC)
    falling = box(0.5, 0.5, (0.0, 50.25), friction=0.6)
    scene = SceneSpec("long_drop_on_thin_plate", (plate, falling))

    def measure(sim: Sim) -> dict[str, float]:
        s = run_for(sim, 4.0)
        return {"height": float(s.position[1, 1] - 0.25)}

    return Case(
        scene.name,
        "no tunnelling: a box dropped 50 m (31.6 m/s) onto a 5 cm plate stops on it",
        scene,
        measure,
        {
            "height": Check(
                "box's bottom above the plate at 4 s",
                "m",
                0.0,
                0.01,
                "two linear slops; tunnelling is 50 m off",
            )
        },
        long_drop_on_thin_plate.__doc__ or "",
    )


def compound_mass_properties() -> Case:
    """A compound body's mass, and inertia about its centre of mass, by the parallel-axis rule.

    An L of two parts, density 2: a 2 x 0.5 m bar with its lower-left corner at the origin and a
    0.5 x 1.5 m upright on its left end (x in [0, 0.5], y in [0.5, 2]). Parts: m1 = 2 kg at
    (1, 0.25), I1 = m1 (4 + 0.25) / 12; m2 = 1.5 kg at (0.25, 1.25), I2 = m2 (0.25 + 2.25) / 12.
    Total m = 3.5 kg, centre c = (m1 c1 + m2 c2) / m = (0.67857, 0.67857); inertia about c:
    I = I1 + I2 + m1 |c1 - c|^2 + m2 |c2 - c|^2 = 2.3601 kg m^2 (the engines compute it from
    the parts; a single shape of the same outline would have the same values).
    """
    bar = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 0.5], [0.0, 0.5]])
    upright = np.array([[0.0, 0.5], [0.5, 0.5], [0.5, 2.0], [0.0, 2.0]])
    body = BodySpec((bar, upright), (0.0, 0.0), density=2.0)
    scene = SceneSpec("compound_mass_properties", (body,), gravity=(0.0, 0.0))
    m1, m2 = 2.0, 1.5
    c1, c2 = np.array([1.0, 0.25]), np.array([0.25, 1.25])
    centre = (m1 * c1 + m2 * c2) / (m1 + m2)
    inertia = (
        m1 * (4.0 + 0.25) / 12.0
        + m2 * (0.25 + 2.25) / 12.0
        + m1 * float((c1 - centre) @ (c1 - centre))
        + m2 * float((c2 - centre) @ (c2 - centre))
    )

    def measure(sim: Sim) -> dict[str, float]:
        mass, inertias = sim.mass_properties()
        return {"mass": float(mass[0]), "inertia": float(inertias[0])}

    return Case(
        scene.name,
        "compound mass properties: an L of two boxes has the summed mass and the parallel-axis inertia",
        scene,
        measure,
        {
            "mass": Check("mass", "kg", 3.5, 3.5e-6, "exact sums: float32 rounding only (Box2D)"),
            "inertia": Check(
                "inertia about the centre of mass",
                "kg m^2",
                inertia,
                1e-6 * 2.2 * 10,
                "exact sums: float32 rounding only (Box2D)",
            ),
        },
        compound_mass_properties.__doc__ or "",
    )
