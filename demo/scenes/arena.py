"""The original programs' arena, shared by the rigid, arcade and shooter scenes: four static
100 x 100 walls around [1, 99]^2 (ORIGINAL_DEMO.md section 2), and spawning bodies at free spots
inside it (the original let them overlap and then pushed them apart violently).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collision import Polygon, World

#: The original's world: 100 units square, walls 100 x 100 centred 49 units outside the arena.
ARENA = 100.0
WALL_CENTRES = ((50.0, -49.0), (50.0, 149.0), (-49.0, 50.0), (149.0, 50.0))
#: The arena inside the walls, (x0, y0, x1, y1).
ARENA_INSIDE = (1.0, 1.0, 99.0, 99.0)
#: The view of the arena scenes: the arena (the window's extra width shows the side walls).
ARENA_VIEW = (0.0, 0.0, ARENA, ARENA)
#: Gap (units) kept between spawned bodies' bounding circles and the walls.
SPAWN_GAP = 0.2
#: Attempts at a free spot before giving up on one.
SPAWN_ATTEMPTS = 60
#: Points have no extent; they still keep this clearance (units) when spawning.
POINT_SPAWN_RADIUS = 0.5


def walled_world(**kwargs: Any) -> World:
    """A World (``kwargs`` as World's) with the original's four walls as bodies 0..3."""
    world = World(**kwargs)
    wall = Polygon.box(ARENA, ARENA)
    for centre in WALL_CENTRES:
        world.add_body(wall, centre, static=True)
    return world


def spawn_radius(shape: Polygon) -> float:
    """The clearance a shape needs when spawned: its bounding circle (points: POINT_SPAWN_RADIUS)."""
    return max(float(shape.radius), POINT_SPAWN_RADIUS)


def free_spot(
    rng: np.random.Generator, radius: float, centres: np.ndarray, radii: np.ndarray
) -> np.ndarray | None:
    """A centre in the arena whose circle of ``radius`` overlaps no circle (centres (m, 2), radii (m,))."""
    x0, y0, x1, y1 = ARENA_INSIDE
    lo, hi = x0 + radius + SPAWN_GAP, x1 - radius - SPAWN_GAP
    lo_y, hi_y = y0 + radius + SPAWN_GAP, y1 - radius - SPAWN_GAP
    if lo >= hi or lo_y >= hi_y:
        return None
    for _ in range(SPAWN_ATTEMPTS):
        p = np.array([rng.uniform(lo, hi), rng.uniform(lo_y, hi_y)])
        if len(centres) == 0:
            return p
        gap = np.hypot(centres[:, 0] - p[0], centres[:, 1] - p[1]) - radii - radius
        if gap.min() > SPAWN_GAP:
            return p
    return None


def occupied(world: World, first: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounding circles (centres (m, 2), radii (m,)) of the bodies from index ``first`` on (the
    walls are kept out by the arena's box instead)."""
    centres = world.position[first:].copy()
    radii = np.maximum(world.radius[first:], POINT_SPAWN_RADIUS)
    return centres, radii


def spawn(world: World, rng: np.random.Generator, shape: Polygon, first: int, **kwargs: Any) -> int | None:
    """Add ``shape`` at a free spot of the arena (clear of the bodies from ``first`` on); its
    index, or None if no spot was found. ``kwargs``: as World.add_body's."""
    centres, radii = occupied(world, first)
    spot = free_spot(rng, spawn_radius(shape), centres, radii)
    if spot is None:
        return None
    return world.add_body(shape, spot, **kwargs)
