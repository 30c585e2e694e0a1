"""Exact cases of single impacts: seed 004's impulse, Coulomb friction during an impact,
frictionless bounces, and speculative contacts that must not act across an open gap.

No gravity unless stated, so that after an impact the velocities stay what the impact made
them and can be read a step or two later.
"""

from __future__ import annotations

import math

import numpy as np

from demo.bench.engines import Sim
from demo.bench.physics.case import AT_MOST, Case, Check
from demo.bench.physics.setups import box, box_inertia, floor, in_frame, lowest_corner
from demo.bench.scenes import DT, SceneSpec

#: Why the arcade solver is exempt from laws of rotation: Tutorial 4 works on velocities only.
ARCADE_NO_ROTATION = (
    "the arcade solver is Tutorial 4's velocity reflection: collisions never change angular "
    "velocity, so no law of rotation response applies to it"
)
ARCADE_NOT_COULOMB = (
    "the arcade solver's friction (Tutorial 4) removes the fraction `friction` of the tangential "
    "velocity at each hit; it is not Coulomb's mu times the normal impulse"
)
SINGLE_POINT = (
    "one contact point is solved exactly by one sequential-impulse pass; 1e-3 of the impact "
    "speed leaves room for float32 (Box2D) and the soft contact's first-step push, nothing else"
)


def _speed_tol(speed: float, fraction: float = 1e-3) -> float:
    return fraction * speed


def impulse_with_rotation_on_ground() -> Case:
    """Seed 004, eq. 3 with B static (1/M_B = 1/I_B = 0).

    A 1 x 0.5 m box of density 2 (m = 1 kg, I = m (w^2 + h^2) / 12 = 0.10417 kg m^2), turned
    0.4 rad, falls at v = (0, -4) m/s with no spin, its lowest corner 0.01 m above a static floor
    (normal n = (0, 1)); e = 0.5, no friction, no gravity. The corner, at r from the centre,
    moves at v + w x r = (0, -4), so

        j = -(1 + e) (v_P . n) / (1/m + (r_perp . n)^2 / I),   r_perp . n = r_x,
        v_y' = -4 + j / m,   w' = r_x j / I          (eq. 2a, 2b; r x (j n) = r_x j).

    With r = (-0.3630, -0.4250): j = 2.6487 N s, v_y' = -1.3513 m/s, w' = -9.231 rad/s.
    Measured two steps later, before the other corner comes down (about 4 steps later).
    """
    w, h, density, tilt, e = 1.0, 0.5, 2.0, 0.4, 0.5
    m, inertia = box_inertia(w, h, density)
    r = lowest_corner(w, h, tilt)
    j = (1.0 + e) * 4.0 / (1.0 / m + r[0] ** 2 / inertia)
    body = box(w, h, (0.0, -r[1] + 0.01), velocity=(0.0, -4.0), angle=tilt, density=density, restitution=e)
    scene = SceneSpec("impulse_with_rotation_on_ground", (floor(restitution=e), body), gravity=(0.0, 0.0))

    def measure(sim: Sim) -> dict[str, float]:
        sim.step(2)
        s = sim.state()
        return {"vy": float(s.velocity[1, 1]), "spin": float(s.angular_velocity[1])}

    return Case(
        scene.name,
        "seed 004 eq. 3: a corner's impulse against a static floor, with rotation",
        scene,
        measure,
        {
            "vy": Check("box's vertical velocity after", "m/s", -4.0 + j / m, _speed_tol(4.0), SINGLE_POINT),
            "spin": Check(
                "box's angular velocity after",
                "rad/s",
                r[0] * j / inertia,
                _speed_tol(4.0) / abs(r[0]),
                SINGLE_POINT,
            ),
        },
        impulse_with_rotation_on_ground.__doc__ or "",
        exempt={"arcade": ARCADE_NO_ROTATION},
    )


def impulse_with_rotation_between_bodies() -> Case:
    """Seed 004, eq. 3 with both bodies free.

    A: 1 x 0.5 m box, density 2 (m_A = 1 kg, I_A = 0.10417 kg m^2), turned 0.4 rad, falling at
    (0, -4) m/s; its lowest corner 0.01 m above the top face of B: a 2 x 0.5 m box, density 1
    (m_B = 1 kg, I_B = m (4 + 0.25) / 12 = 0.35417 kg m^2) at rest, the corner 0.6 m right of
    B's centre. e = 0.5, no friction, no gravity. n = (0, 1) from B to A; r_A, r_B from each
    centre to the corner (r_B = (0.6, 0.25)); the relative velocity at the corner is (0, -4):

        j = -(1 + e) v_AB . n / (1/m_A + 1/m_B + r_A,x^2 / I_A + r_B,x^2 / I_B)
        v_A,y' = -4 + j / m_A,  w_A' = r_A,x j / I_A,  v_B,y' = -j / m_B,  w_B' = -r_B,x j / I_B.

    With r_A = (-0.3632, -0.4250): j = 1.4010 N s, w_A' = -4.8845 rad/s, v_B,y' = -1.4010 m/s,
    w_B' = -2.3735 rad/s.
    """
    e = 0.5
    ma, ia = box_inertia(1.0, 0.5, 2.0)
    mb, ib = box_inertia(2.0, 0.5, 1.0)
    ra = lowest_corner(1.0, 0.5, 0.4)
    rb = np.array([0.6, 0.25])
    j = (1.0 + e) * 4.0 / (1.0 / ma + 1.0 / mb + ra[0] ** 2 / ia + rb[0] ** 2 / ib)
    a = box(
        1.0,
        0.5,
        (0.6 - ra[0], 0.25 - ra[1] + 0.01),
        velocity=(0.0, -4.0),
        angle=0.4,
        density=2.0,
        restitution=e,
    )
    b = box(2.0, 0.5, (0.0, 0.0), restitution=e)
    scene = SceneSpec("impulse_with_rotation_between_bodies", (a, b), gravity=(0.0, 0.0))

    def measure(sim: Sim) -> dict[str, float]:
        sim.step(2)
        s = sim.state()
        return {
            "spin_a": float(s.angular_velocity[0]),
            "vy_b": float(s.velocity[1, 1]),
            "spin_b": float(s.angular_velocity[1]),
        }

    return Case(
        scene.name,
        "seed 004 eq. 3: a corner's impulse between two free bodies, with rotation of both",
        scene,
        measure,
        {
            "spin_a": Check(
                "A's angular velocity after", "rad/s", ra[0] * j / ia, 4e-3 / abs(ra[0]), SINGLE_POINT
            ),
            "vy_b": Check("B's vertical velocity after", "m/s", -j / mb, _speed_tol(4.0), SINGLE_POINT),
            "spin_b": Check(
                "B's angular velocity after", "rad/s", -rb[0] * j / ib, 4e-3 / rb[0], SINGLE_POINT
            ),
        },
        impulse_with_rotation_between_bodies.__doc__ or "",
        exempt={"arcade": ARCADE_NO_ROTATION},
    )


def head_on_impulse() -> Case:
    """Seed 004, eq. 2 (no rotation): two boxes meet face to face through their centres.

    A: 1 x 1 m, density 1 (m_A = 1 kg) at 5 m/s; B: 1 x 1 m, density 3 (m_B = 3 kg) at rest,
    0.02 m apart; e = 0.6, no friction, no gravity. n = (-1, 0) from B to A, v_AB . n = -5:

        j = (1 + e) 5 / (1/m_A + 1/m_B) = 6 N s,   v_A' = 5 - j/m_A = -1,   v_B' = j/m_B = 2 m/s.

    Two face points share the impulse; with the faces parallel and no spin they take equal
    halves and no rotation appears.
    """
    e = 0.6
    a = box(1.0, 1.0, (0.0, 0.0), velocity=(5.0, 0.0), restitution=e)
    b = box(1.0, 1.0, (1.02, 0.0), density=3.0, restitution=e)
    scene = SceneSpec("head_on_impulse", (a, b), gravity=(0.0, 0.0))

    def measure(sim: Sim) -> dict[str, float]:
        sim.step(3)
        s = sim.state()
        return {"va": float(s.velocity[0, 0]), "vb": float(s.velocity[1, 0])}

    why = "parallel faces meeting head-on take one impulse along the line of centres; 1e-3 of 5 m/s"
    return Case(
        scene.name,
        "seed 004 eq. 2: head-on impulse by inverse masses, momentum and restitution",
        scene,
        measure,
        {
            "va": Check("A's velocity after", "m/s", -1.0, _speed_tol(5.0), why),
            "vb": Check("B's velocity after", "m/s", 2.0, _speed_tol(5.0), why),
        },
        head_on_impulse.__doc__ or "",
    )


COULOMB_WHY = (
    "two face points share the impulse; their split converges geometrically in a sequential "
    "solver, and 1% of the tangential change (0.01-0.014 m/s here) is far below any wrong law"
)
SPIN_WHY = (
    "the friction impulse acting 0.25 m below the centre would spin the box at 2-4 rad/s if "
    "the two normal impulses did not rebalance; 0.05 rad/s (1.25 cm/s at the box's edge, "
    "under 1% of the impact speed) is convergence, not a law"
)


def oblique_impact(friction: float, restitution: float, fraction: float, turn: float = 0.0) -> Case:
    """A box lands flat and obliquely on a floor: Coulomb friction during the impact.

    A 1 x 0.5 m box (density 1, m = 0.5 kg) falls flat with velocity (4, -3) m/s in the floor's
    frame, no spin, no gravity, friction mu, restitution e; it touches the floor a fraction f of
    the way through the first step (gap 3 dt f). The normal impulse is N = (1 + e) m 3. Sliding
    throughout (mu (1 + e) 3 < 4), Coulomb's law makes the friction impulse mu N, so

        tangential speed lost = mu (1 + e) 3 m/s,   normal speed after = 3 e,   spin after = 0:

    the two bottom corners both end with normal speed 3 e only if w' = 0, and the normal
    impulses split unevenly to cancel the friction's torque (possible while mu h / w < 1).
    Where in the step the impact happens changes none of this. The whole setup may be turned
    by an angle: the answers are the same in the floor's frame.
    """
    vt, vn = 4.0, 3.0
    gap = vn * DT * fraction
    body = box(1.0, 0.5, (0.0, 0.25 + gap), turn, (vt, -vn), friction=friction, restitution=restitution)
    ground = floor(turn, friction=friction, restitution=restitution)
    tag = f"mu{friction:g}_e{restitution:g}_at{fraction:g}" + (
        f"_turned{math.degrees(turn):.0f}" if turn else ""
    )
    scene = SceneSpec(f"oblique_impact_{tag}", (ground, body), gravity=(0.0, 0.0))

    def measure(sim: Sim) -> dict[str, float]:
        sim.step(3)
        s = sim.state()
        t, n = in_frame(s.velocity[1], turn)
        return {"loss": vt - t, "normal": n, "spin": float(s.angular_velocity[1])}

    loss = friction * (1.0 + restitution) * vn
    checks = {
        "loss": Check(
            "tangential speed lost",
            "m/s",
            loss,
            max(0.01 * loss, _speed_tol(vn)),
            COULOMB_WHY if friction else SINGLE_POINT,
        ),
        "normal": Check(
            "normal speed after",
            "m/s",
            restitution * vn,
            0.01 * vn,
            "1% of the impact speed: two face points, converged",
        ),
        "spin": Check("angular velocity after", "rad/s", 0.0, 0.05, SPIN_WHY),
    }
    where = f"{fraction:g} of the way into the step" + (
        f", setup turned {math.degrees(turn):.0f} deg" if turn else ""
    )
    if friction:
        law = (
            f"Coulomb during an impact (mu {friction:g}, e {restitution:g}, impact {where}): "
            "loss = mu x normal change, no spin"
        )
        exempt = {"arcade": ARCADE_NOT_COULOMB}
    else:
        law = (
            f"frictionless oblique bounce (e {restitution:g}, impact {where}): "
            "tangential velocity kept, normal x -e"
        )
        exempt = {}
    return Case(scene.name, law, scene, measure, checks, oblique_impact.__doc__ or "", exempt=exempt)


GAP_WHY = "nothing may act on either body while the gap is open: only rounding (float32 in Box2D)"


def open_gap() -> Case:
    """A speculative contact must not act across a gap that stays open within the step.

    Two 1 x 1 m boxes (density 1), 0.06 m apart; A closes at 3 m/s along the line of centres and
    slides across at 0.6 m/s; e = 1, friction 0.5, no gravity. One step of 1/60 s closes
    3 / 60 = 0.05 m: the gap is still 0.010 m at the end of the first step, so after it A's
    velocity is exactly (3, 0.6) and B is still at rest (no restitution, no friction yet).
    The boxes meet 0.0033 s into the second step; by the fourth step the impact is over: with
    friction, the equal boxes exchange the normal velocity (e = 1) and B's normal velocity is
    3 m/s (friction acts only across the normal).
    """
    a = box(1.0, 1.0, (0.0, 0.0), velocity=(3.0, 0.6), friction=0.5, restitution=1.0)
    b = box(1.0, 1.0, (1.06, 0.0), friction=0.5, restitution=1.0)
    scene = SceneSpec("open_gap", (a, b), gravity=(0.0, 0.0))

    def measure(sim: Sim) -> dict[str, float]:
        sim.step(1)
        s = sim.state()
        values = {
            "gap": float(s.position[1, 0] - s.position[0, 0] - 1.0),
            "vn": float(s.velocity[0, 0]),
            "vt": float(s.velocity[0, 1]),
        }
        sim.step(3)
        values["vb"] = float(sim.state().velocity[1, 0])
        return values

    return Case(
        scene.name,
        "speculative contact: no impulse across a gap that stays open within the step (3 m/s, gap 0.06 m)",
        scene,
        measure,
        {
            "gap": Check("gap after step 1", "m", 0.010, 1e-5, GAP_WHY),
            "vn": Check("A's normal velocity after step 1", "m/s", 3.0, 1e-5, GAP_WHY),
            "vt": Check("A's sliding velocity after step 1", "m/s", 0.6, 1e-5, GAP_WHY),
            "vb": Check(
                "B's normal velocity after the impact",
                "m/s",
                3.0,
                _speed_tol(3.0, 1e-2),
                "1% of the impact speed",
            ),
        },
        open_gap.__doc__ or "",
    )


def closing_gap() -> Case:
    """A gap that closes within the step: the speculative contact removes only the excess approach.

    Two 1 x 1 m boxes (density 1), 0.06 m apart, A at 12 m/s towards B at rest; perfectly
    plastic (e = 0), no friction, no gravity. They touch 0.005 s into the first step. A plastic
    impact of equal masses leaves both at 6 m/s (momentum 12 kg m/s shared), touching: after
    the first step and ever after, the gap is 0 and both move at 6 m/s. Overlap: none.
    """
    a = box(1.0, 1.0, (0.0, 0.0), velocity=(12.0, 0.0))
    b = box(1.0, 1.0, (1.06, 0.0))
    scene = SceneSpec("closing_gap", (a, b), gravity=(0.0, 0.0))

    def measure(sim: Sim) -> dict[str, float]:
        deepest = 0.0
        for _ in range(3):
            sim.step(1)
            s = sim.state()
            deepest = max(deepest, -float(s.position[1, 0] - s.position[0, 0] - 1.0))
        return {"va": float(s.velocity[0, 0]), "vb": float(s.velocity[1, 0]), "overlap": deepest}

    why = "1e-3 of the 12 m/s impact speed: a plastic face-to-face impact is one impulse"
    return Case(
        scene.name,
        "speculative contact: a gap closing within the step (12 m/s, gap 0.06 m) stops only the "
        "excess approach",
        scene,
        measure,
        {
            "va": Check("A's velocity after", "m/s", 6.0, _speed_tol(12.0), why),
            "vb": Check("B's velocity after", "m/s", 6.0, _speed_tol(12.0), why),
            "overlap": Check(
                "deepest overlap over 3 steps",
                "m",
                0.0,
                0.005,
                "Box2D's linear slop: more is a missed contact",
                AT_MOST,
            ),
        },
        closing_gap.__doc__ or "",
    )
