"""polycolly's engine: 2D convex polygon collision and rigid-body response.

This package is imported as ``collision``. It is this project's engine, not the unrelated
package named ``collision`` on PyPI.

Conventions (stated once, kept everywhere):

- y points up; angles are radians, counter-clockwise positive.
- Units are the caller's: the collision tests have no absolute length in them, and ray casts
  and point queries take the radius the caller gives (0 by default). The World's solvers do
  have lengths and speeds in units (collision.tolerances names each with its unit), chosen
  for bodies about 0.1-10 units across.
- Shapes are given in local coordinates; a body's position is its centroid.
- Polygons are convex and counter-clockwise; clockwise input is accepted and reordered.
  1 vertex is a point particle, 2 a segment, 3..``MAX_VERTICES`` a convex polygon.
- Collision normals point from B toward A: moving A by ``depth * normal`` separates the pair
  (the tutorial's MTD convention, ``A.position += MTD``). Touching counts as a hit of depth 0.
- Arrays are ``float64``; vertex arrays have shape ``(k, 2)``.
- Bad input raises :class:`GeometryError` (a ``ValueError``) or ``ValueError`` naming the
  argument and vertex at fault. Nothing returns NaN.
"""

# First: picks numba's cache folder (the user's, for a read-only install) before any kernel exists.
import collision.kernel_cache  # noqa: F401

# The C allocator keeps what a step frees for the next (see the module).
import collision.memory  # noqa: F401
from collision import primitives
from collision.batch import MTDBatch, Shapes, SweepBatch, find_mtd_many, intersect_many, sweep_many
from collision.clip import clip_polygon
from collision.contacts import Contacts, contact_points
from collision.decompose import decompose
from collision.pair import Hit, find_mtd, intersect, sweep
from collision.raycast import RayHit, SegmentHit, clip_segment
from collision.shapes import MAX_VERTICES, GeometryError, Polygon
from collision.world import World

__all__ = [
    "MAX_VERTICES",
    "Contacts",
    "GeometryError",
    "Hit",
    "MTDBatch",
    "Polygon",
    "RayHit",
    "SegmentHit",
    "Shapes",
    "SweepBatch",
    "World",
    "clip_polygon",
    "clip_segment",
    "contact_points",
    "decompose",
    "find_mtd",
    "find_mtd_many",
    "intersect",
    "intersect_many",
    "primitives",
    "sweep",
    "sweep_many",
]
