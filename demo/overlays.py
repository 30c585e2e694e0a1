"""World-space overlays drawn over the bodies: the turret (in the scenes that have one) and its
shots, contact points by state, normals with their separation, push vectors, time-of-impact
ghosts, impulses, bounding boxes and velocities. No GL here: everything goes into the renderer's LineBatch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from demo.actions import SHOT_FADE_S, Simulation

if TYPE_CHECKING:
    from demo.render import LineBatch


def _argb(value: int) -> tuple[float, float, float, float]:
    """0xAARRGGBB -> (r, g, b, a) in 0..1 (demo.render.argb, without importing GL)."""
    return tuple(((value >> shift) & 255) / 255.0 for shift in (16, 8, 0, 24))  # type: ignore[return-value]


#: Length (s) of velocity arrows: an arrow shows where the body would be after this time.
VELOCITY_ARROW_S = 0.25
NORMAL_ARROW = 2.0

WHITE = (1.0, 1.0, 1.0, 1.0)
SHOT_COLOR = _argb(0xFFFF0000)
CONTACT_COLOR = (1.0, 0.3, 0.3, 1.0)
#: Contact points by state (world.contacts.state): new, persisting, speculative.
CONTACT_STATE_COLORS = np.array(
    [(1.0, 0.3, 0.3, 1.0), (1.0, 0.65, 0.1, 1.0), (0.4, 0.6, 1.0, 1.0)], dtype=np.float32
)
SEPARATION_COLOR = (1.0, 0.2, 1.0, 1.0)
PUSH_COLOR = (1.0, 1.0, 1.0, 1.0)
GHOST_COLOR = (1.0, 1.0, 1.0, 0.25)
NORMAL_IMPULSE_COLOR = (1.0, 0.5, 0.2, 1.0)
FRICTION_IMPULSE_COLOR = (0.3, 1.0, 0.5, 1.0)
#: Impulse arrows: world units per N s of impulse, per unit of the scene's impulse scale.
IMPULSE_ARROW_PER_NS = 0.2
#: Separation is printed next to each contact normal only when there are at most this many.
MAX_SEPARATION_LABELS = 12
NORMAL_COLOR = (1.0, 1.0, 0.4, 1.0)
BOUNDS_COLOR = (0.7, 0.7, 0.7, 0.6)
VELOCITY_COLOR = (0.4, 0.9, 1.0, 1.0)
TURRET_COLOR = (1.0, 1.0, 1.0, 1.0)
#: The turret's barrel length (its base is as wide), as a fraction of the view's height.
TURRET_BARREL = 0.03


def draw_world_overlays(overlay: LineBatch, sim: Simulation, wv: np.ndarray) -> None:
    """The turret, the shots, the contact overlays and what the `b` and `v` keys show.

    ``wv (n, MAXV, 2)``: the world vertices of this frame.
    """
    world = sim.world
    if sim.scene.turret is not None:
        draw_turret(overlay, sim)
    for start, end, age in sim.shots:
        fade = max(0.0, 1.0 - age / SHOT_FADE_S)
        overlay.add_lines(np.array([[start, end]]), (*SHOT_COLOR[:3], fade))
        overlay.add_points(np.array([end]), (*SHOT_COLOR[:3], fade))
    contacts = world.contacts
    if len(contacts):
        draw_contact_overlays(overlay, sim, contacts)
    if sim.show["bounds"] and world.body_count:
        valid = np.arange(wv.shape[1])[None, :] < np.asarray(world.vertex_count)[:, None]
        lo = np.where(valid[..., None], wv, np.inf).min(axis=1)
        hi = np.where(valid[..., None], wv, -np.inf).max(axis=1)
        overlay.add_boxes(lo, hi, BOUNDS_COLOR)
    if sim.show["velocities"] and world.body_count:
        moving = ~np.asarray(world.static, dtype=bool)
        start = world.position[moving]
        overlay.add_lines(
            np.stack([start, start + world.velocity[moving] * VELOCITY_ARROW_S], 1), VELOCITY_COLOR
        )


def turret_lines(scene: Any, cursor: np.ndarray) -> np.ndarray:
    """The turret of ``scene`` aimed at ``cursor (2,)``: a barrel on a base, segments (2, 2, 2).

    Sized to the view (TURRET_BARREL of its height), so it looks the same in a 100-unit arena
    and in a 10 m scene. The scene must have a turret.
    """
    base = np.asarray(scene.turret, dtype=np.float64)
    x0, y0, x1, y1 = scene.view
    size = TURRET_BARREL * abs(y1 - y0)
    aim = np.asarray(cursor, dtype=np.float64) - base
    norm = float(np.hypot(*aim))
    barrel = base + (aim / norm if norm > 1e-9 else np.array([0.0, 1.0])) * size
    half = np.array([0.5 * size, 0.0])
    return np.array([[base, barrel], [base - half, base + half]])


def draw_turret(overlay: LineBatch, sim: Simulation) -> None:
    """The turret: a short barrel toward the cursor on a small base."""
    overlay.add_lines(turret_lines(sim.scene, sim.cursor_world()), TURRET_COLOR)


def draw_contact_overlays(overlay: LineBatch, sim: Simulation, contacts: Any) -> None:
    """Contact points by state, normals with separation, push vectors, TOI ghosts, impulses."""
    world = sim.world
    scale = float(sim.scene.data.get("arrow_scale", 1.0))
    if sim.show["contacts"]:
        state = np.clip(np.asarray(contacts.state, dtype=np.int64), 0, len(CONTACT_STATE_COLORS) - 1)
        colors = CONTACT_STATE_COLORS[state]
        overlay.add_points(contacts.point_a, colors)
        overlay.add_points(contacts.point_b, colors)
        overlay.add_lines(np.stack([contacts.point_a, contacts.point_b], axis=1), colors)
    if sim.show["normals"]:
        tips = contacts.point_b + contacts.normal * (NORMAL_ARROW * scale)
        overlay.add_arrows(contacts.point_b, tips, NORMAL_COLOR)
        # The separation along the normal: negative (penetration) points back into B.
        gap_tips = contacts.point_b + contacts.normal * contacts.separation[:, None]
        overlay.add_lines(np.stack([contacts.point_b, gap_tips], axis=1), SEPARATION_COLOR)
        if len(contacts) <= MAX_SEPARATION_LABELS:
            for point, sep in zip(contacts.point_b, contacts.separation, strict=True):
                overlay.add_text(f"{sep:+.3f}", point, SEPARATION_COLOR)
    if sim.show["push"]:
        # The MTD of each overlapping pair: its deepest point pushed out by the depth along N.
        deep = contacts.separation < 0.0
        if deep.any():
            start = contacts.point_a[deep]
            push = -contacts.normal[deep] * contacts.separation[deep][:, None]
            overlay.add_arrows(start, start + push, PUSH_COLOR)
    if sim.show["toi"]:
        # Ghost of A where the step's sweep found the impact (t = toi), from its start-of-step pose.
        ahead = np.asarray(contacts.toi) > 0.0
        for a in np.unique(np.asarray(contacts.body_a)[ahead]):
            if world.static[a]:
                continue
            t = float(np.min(np.asarray(contacts.toi)[ahead & (np.asarray(contacts.body_a) == a)]))
            back = world.velocity[a] * (sim.scene.dt - t)
            overlay.add_polygon(world.vertices(int(a)) - back, GHOST_COLOR, GHOST_COLOR)
    if sim.show["impulses"]:
        per = IMPULSE_ARROW_PER_NS * scale
        n = contacts.normal
        tangent = np.stack([-n[:, 1], n[:, 0]], axis=1)
        p = contacts.point_b
        overlay.add_arrows(p, p + n * (contacts.normal_impulse * per)[:, None], NORMAL_IMPULSE_COLOR)
        moving = np.abs(contacts.tangent_impulse) > 0.0
        if moving.any():
            overlay.add_arrows(
                p[moving],
                p[moving] + tangent[moving] * (contacts.tangent_impulse[moving] * per)[:, None],
                FRICTION_IMPULSE_COLOR,
            )
