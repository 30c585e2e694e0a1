"""World-space overlays drawn over the bodies, each with a legend line while it is on: the turret
and its bullets (in the scenes that have one), contact points by state, normals with their
separation, push vectors, time-of-impact ghosts, impulses, bounding boxes and velocities.

No GL here: everything goes into an :class:`demo.draw.batch.OverlayBatch`. Sizes that are not
physical (arrow lengths, the turret) are fractions of the scene's view, so they look the same
in the 100-unit arena and in a 10 m scene; impulse arrows are scaled so the longest stays
within IMPULSE_MAX_FRACTION of the view, and the legend says the scale.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from demo.draw import palette
from demo.draw.batch import OverlayBatch
from demo.draw.palette import Color

#: Length (s) of velocity arrows: an arrow shows where the body would be after this time.
VELOCITY_ARROW_S = 0.25
#: Normal arrows' length, as a fraction of the view's height.
NORMAL_FRACTION = 0.04
#: The longest impulse arrow, as a fraction of the view's height.
IMPULSE_MAX_FRACTION = 0.12
#: Separation is printed next to each contact normal only when there are at most this many.
MAX_SEPARATION_LABELS = 12
#: The turret: its barrel length, as a fraction of the view's height; the barrel is
#: BARREL_WIDTH of its length wide, the hub HUB_RADIUS of it in radius.
TURRET_SIZE, BARREL_WIDTH, HUB_RADIUS = 0.045, 0.22, 0.4
#: The turret's name: how far its box is from the turret's point, beside the hub (fraction of
#: the barrel's length; the hub's radius is HUB_RADIUS of it).
LABEL_GAP = 0.6
#: A turret bullet: its radius (fraction of the view's height) and how far back (s of its
#: flight) its red trail reaches.
BULLET_RADIUS, TRAIL_S = 0.006, 0.04
#: A hit's flash: its size (fraction of the view's height).
FLASH_SIZE = 0.015

_RING = np.column_stack(
    [np.cos(np.linspace(0.0, 2 * math.pi, 13)[:-1]), np.sin(np.linspace(0.0, 2 * math.pi, 13)[:-1])]
)

#: One legend line: spans of (text, colour).
Legend = list[tuple[str, Color]]


class OverlaySource(Protocol):
    """What the overlays read from the program (demo.actions.Simulation has it)."""

    world: Any
    scene: Any
    show: dict[str, bool]
    projectiles: list[Any]
    flashes: list[Any]
    #: World units of impulse arrow per N s in use (None: not chosen yet); the overlays keep it.
    impulse_scale: float | None
    #: The world's contacts, sleeping bodies' included.
    contacts: Any

    def cursor_world(self) -> np.ndarray: ...


def view_height(scene: Any) -> float:
    x0, y0, x1, y1 = scene.view
    return float(abs(y1 - y0))


def draw_world_overlays(batch: OverlayBatch, sim: OverlaySource, wv: np.ndarray) -> list[Legend]:
    """Draw the turret, its bullets and the overlays that are on; returns their legend lines.

    ``wv (n, MAXV, 2)``: the world vertices of this frame.
    """
    world, show = sim.world, sim.show
    legend: list[Legend] = []
    if sim.scene.turret is not None:
        draw_turret(batch, sim.scene, sim.cursor_world())
        draw_bullets(batch, sim)
    contacts = sim.contacts
    if any(show.get(key) for key in ("contacts", "normals", "push", "toi", "impulses")):
        legend += draw_contact_overlays(batch, sim, contacts)
    if show.get("bounds") and world.body_count:
        valid = np.arange(wv.shape[1])[None, :] < np.asarray(world.vertex_count)[:, None]
        lo = np.where(valid[..., None], wv, np.inf).min(axis=1)
        hi = np.where(valid[..., None], wv, -np.inf).max(axis=1)
        batch.add_boxes(lo, hi, palette.BOUNDS)
        legend.append([("b  bounding boxes", palette.BOUNDS)])
    if show.get("velocities") and world.body_count:
        moving = ~np.asarray(world.static, dtype=bool)
        start = world.position[moving]
        batch.add_lines(
            np.stack([start, start + world.velocity[moving] * VELOCITY_ARROW_S], 1), palette.VELOCITY
        )
        legend.append(
            [(f"v  velocities: where each body is {VELOCITY_ARROW_S:g} s from now", palette.VELOCITY)]
        )
    return legend


# ----------------------------------------------------------------------------------------------
# The turret and its bullets.


def turret_shapes(scene: Any, cursor: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The turret of ``scene`` aimed at ``cursor (2,)``: (hub (k, 2), barrel (4, 2), muzzle (2,)).

    The hub is a disc on the turret's point (it looks the same on a floor or under a ceiling);
    the barrel a long thin box from its centre toward the cursor; the muzzle the barrel's far
    end, where bullets leave. The scene must have a turret.
    """
    centre = np.asarray(scene.turret, dtype=np.float64)
    size = TURRET_SIZE * view_height(scene)
    aim = np.asarray(cursor, dtype=np.float64) - centre
    norm = float(np.hypot(*aim))
    direction = aim / norm if norm > 1e-9 else np.array([0.0, 1.0])
    side = np.array([-direction[1], direction[0]]) * (0.5 * BARREL_WIDTH * size)
    end = centre + direction * size
    barrel = np.array([centre - side, end - side, end + side, centre + side])
    hub = centre + HUB_RADIUS * size * _RING
    return hub, barrel, end


def muzzle(scene: Any, cursor: np.ndarray) -> np.ndarray:
    """Where the turret's bullets leave it (2,)."""
    return turret_shapes(scene, cursor)[2]


def draw_turret(batch: OverlayBatch, scene: Any, cursor: np.ndarray) -> None:
    """The turret, over the bodies: a barrel toward the cursor on a round hub, named beside the
    hub on the side the barrel points least toward (left, right, above or below; the name's
    box then reaches away from the hub and the barrel, however it turns)."""
    hub, barrel, end = turret_shapes(scene, cursor)
    batch.add_polygon(barrel, palette.TURRET, palette.TURRET)
    batch.add_polygon(hub, palette.TURRET_BASE, palette.TURRET)
    centre = np.asarray(scene.turret, dtype=np.float64)
    size = TURRET_SIZE * view_height(scene)
    dx, dy = (end - centre) / size
    gap = LABEL_GAP * size
    # Each side with the anchor in the label's box (y down) that keeps the box off the hub.
    left, right = (centre - (gap, 0.0), (1.0, 0.5)), (centre + (gap, 0.0), (0.0, 0.5))
    below, above = (centre - (0.0, gap), (0.5, 0.0)), (centre + (0.0, gap), (0.5, 1.0))
    across = (left, right) if dx > 0 else (right, left)
    along = (below, above) if dy > 0 else (above, below)
    # The side facing away from the barrel, then the two beside it (the one it points less
    # toward first); the label goes to the first where it fits in the picture.
    first, second = (across, along) if abs(dx) >= abs(dy) else (along, across)
    (where, anchor), *elsewhere = first[0], second[0], second[1]
    batch.add_text("turret (x)", where, palette.TURRET, anchor, elsewhere)


def draw_bullets(batch: OverlayBatch, sim: OverlaySource) -> None:
    """The turret's bullets in flight (red dots with a short trail) and the flashes of their hits."""
    height = view_height(sim.scene)
    for bullet in sim.projectiles:
        tail = bullet.position - bullet.velocity * TRAIL_S
        batch.add_lines(np.array([[tail, bullet.position]]), palette.faded(palette.SHOT, 0.6))
        batch.add_polygon(bullet.position + BULLET_RADIUS * height * _RING, palette.SHOT, palette.SHOT)
    for flash in sim.flashes:
        life = min(flash.age / flash.duration, 1.0)
        grow = FLASH_SIZE * height * (0.5 + life)
        batch.add_polygon(flash.point + grow * _RING, None, palette.faded(palette.SHOT, 1.0 - life))


# ----------------------------------------------------------------------------------------------
# Contacts.


def nice_scale(limit: float) -> float:
    """The largest of 1, 2 and 5 times a power of ten that is at most ``limit`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(limit))
    for step in (5.0, 2.0, 1.0):
        if step * power <= limit:
            return step * power
    return power


def impulse_scale(sim: OverlaySource, largest: float) -> float:
    """World units of arrow per N s: a round number that keeps the ``largest`` impulse's arrow
    within IMPULSE_MAX_FRACTION of the view, kept from frame to frame while it still fits and
    does not shrink the arrows below a tenth of that (so arrows do not flicker in length)."""
    limit = IMPULSE_MAX_FRACTION * view_height(sim.scene)
    scale = sim.impulse_scale
    if largest <= 0.0:
        return scale or 1.0
    if scale is None or largest * scale > limit or largest * scale < 0.1 * limit:
        scale = nice_scale(limit / largest)
        sim.impulse_scale = scale
    return scale


def draw_contact_overlays(batch: OverlayBatch, sim: OverlaySource, contacts: Any) -> list[Legend]:
    """Contact points by state, normals with separation, push vectors, TOI ghosts, impulses;
    returns the legend lines of those that are on."""
    show, scene = sim.show, sim.scene
    legend: list[Legend] = []
    count = len(contacts)
    if show.get("contacts"):
        states = np.asarray(palette.CONTACT_STATES, dtype=np.float32)
        if count:
            state = np.clip(np.asarray(contacts.state, dtype=np.int64), 0, len(states) - 1)
            colors = states[state]
            batch.add_points(contacts.point_a, colors)
            batch.add_points(contacts.point_b, colors)
            batch.add_lines(np.stack([contacts.point_a, contacts.point_b], axis=1), colors)
        legend.append(
            [
                ("c  contact points: ", palette.HELP_TEXT),
                ("new  ", palette.CONTACT_STATES[0]),
                ("persisting  ", palette.CONTACT_STATES[1]),
                ("speculative", palette.CONTACT_STATES[2]),
            ]
        )
    if show.get("normals"):
        if count:
            length = NORMAL_FRACTION * view_height(scene)
            batch.add_arrows(contacts.point_b, contacts.point_b + contacts.normal * length, palette.NORMAL)
            # The separation along the normal: negative (penetration) points back into B.
            gap_tips = contacts.point_b + contacts.normal * contacts.separation[:, None]
            batch.add_lines(np.stack([contacts.point_b, gap_tips], axis=1), palette.SEPARATION)
            if count <= MAX_SEPARATION_LABELS:
                for point, sep in zip(contacts.point_b, contacts.separation, strict=True):
                    batch.add_text(f"{sep:+.3f}", point, palette.SEPARATION)
        legend.append(
            [
                ("n  normals: from B toward A, at B's point", palette.NORMAL),
                ("; separation (numbers; < 0: overlap)", palette.SEPARATION),
            ]
        )
    if show.get("push"):
        # The MTD of each overlapping pair: A's deepest point pushed out by the depth along N.
        deep = contacts.separation < 0.0 if count else np.zeros(0, dtype=bool)
        if deep.any():
            start = contacts.point_a[deep]
            push = -contacts.normal[deep] * contacts.separation[deep][:, None]
            batch.add_arrows(start, start + push, palette.PUSH)
        legend.append([("u  push vectors: what moves A out of B (overlapping contacts)", palette.PUSH)])
    if show.get("toi"):
        draw_toi_ghosts(batch, sim, contacts)
        legend.append([("t  ghosts: where the step's sweep found the time of impact", palette.WHITE)])
    if show.get("impulses"):
        legend.append(draw_impulses(batch, sim, contacts))
    return legend


def draw_toi_ghosts(batch: OverlayBatch, sim: OverlaySource, contacts: Any) -> None:
    """Ghost of A where the step's sweep found the impact (t = toi), from its start-of-step pose."""
    if not len(contacts):
        return
    world = sim.world
    toi = np.asarray(contacts.toi)
    body_a = np.asarray(contacts.body_a)
    ahead = toi > 0.0
    for a in np.unique(body_a[ahead]):
        if world.static[a]:
            continue
        t = float(np.min(toi[ahead & (body_a == a)]))
        back = world.velocity[a] * (sim.scene.dt - t)
        batch.add_polygon(world.vertices(int(a)) - back, palette.GHOST, palette.GHOST)


def draw_impulses(batch: OverlayBatch, sim: OverlaySource, contacts: Any) -> Legend:
    """Normal and friction impulses as arrows at B's point; returns the legend line with the scale."""
    count = len(contacts)
    largest = 0.0
    if count:
        largest = float(max(np.abs(contacts.normal_impulse).max(), np.abs(contacts.tangent_impulse).max()))
    per = impulse_scale(sim, largest)
    if count:
        n = contacts.normal
        tangent = np.stack([-n[:, 1], n[:, 0]], axis=1)
        p = contacts.point_b
        batch.add_arrows(p, p + n * (contacts.normal_impulse * per)[:, None], palette.NORMAL_IMPULSE)
        sliding = np.abs(contacts.tangent_impulse) > 0.0
        if sliding.any():
            batch.add_arrows(
                p[sliding],
                p[sliding] + tangent[sliding] * (contacts.tangent_impulse[sliding] * per)[:, None],
                palette.FRICTION_IMPULSE,
            )
    return [
        ("i  impulses: ", palette.HELP_TEXT),
        ("normal", palette.NORMAL_IMPULSE),
        (", ", palette.HELP_TEXT),
        ("friction", palette.FRICTION_IMPULSE),
        (f"; 1 unit of arrow = {1.0 / per:.3g} N s", palette.HELP_TEXT),
    ]
