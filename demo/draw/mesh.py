"""The bodies as vertex arrays (numpy only): fills as triangle fans carrying their outlines,
segment bodies as lines, particles as points.

A line or point vertex is VERTEX_FLOATS float32: x, y, u, v, r, g, b, a; a fill vertex adds an
outline code (which sides of its triangle are on the outline, and in which colour) and its
body: FILL_FLOATS float32. :class:`BodyMesh` keeps the per-body work between frames: the
bodies' fills are built once in local coordinates and placed by the vertex shader from their
poses, which is all that changes from frame to frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from demo.draw.palette import (
    KINEMATIC_FILL,
    MOVING_FILL,
    MOVING_OUTLINE,
    STATIC_FILL,
    STATIC_OUTLINE,
    Color,
)

#: Floats per vertex: position (2), texture coordinate (2), colour (4).
VERTEX_FLOATS = 8
#: Floats per fill vertex: VERTEX_FLOATS, the outline code (see _fan_outline) and the body
#: (index + 1, whose pose the vertex shader applies to a local position; 0: world position).
FILL_FLOATS = 10
#: Bodies per row of the pose texture (x, y, cos, sin per texel).
POSE_WIDTH = 1024
#: The original's noise texture coordinate: local vertex * 0.06.
NOISE_TEXCOORD_SCALE = 0.06
#: Body kinds, the values of the ``static`` argument of body_geometry and BodyMesh when given
#: as integers (a bool array means moving / static): 0 moving, 1 static, 2 kinematic, e.g.
#: ``world.static + 2 * world.kinematic``.
KIND_MOVING, KIND_STATIC, KIND_KINEMATIC = 0, 1, 2
#: The fill shader's outline colours by code // 8: none, moving, static.
OUTLINE_COLORS = np.array([(0.0, 0.0, 0.0, 0.0), MOVING_OUTLINE, STATIC_OUTLINE], dtype=np.float32)


def vertex_array(positions: np.ndarray, texcoords: np.ndarray | None, colors: np.ndarray) -> np.ndarray:
    out = np.empty((len(positions), VERTEX_FLOATS), dtype=np.float32)
    out[:, 0:2] = positions
    if texcoords is None:
        out[:, 2:4] = 0.0
    else:
        out[:, 2:4] = texcoords
    out[:, 4:8] = colors
    return out


def fill_array(
    positions: np.ndarray,
    texcoords: np.ndarray,
    colors: np.ndarray,
    outline: np.ndarray | None = None,
) -> np.ndarray:
    """Fill vertices (FILL_FLOATS float32 each, three per triangle, in order).

    ``outline`` (m,): the outline code of each vertex (see :func:`_fan_outline`); None: no outline.
    """
    out = np.empty((len(positions), FILL_FLOATS), dtype=np.float32)
    out[:, 0:8] = vertex_array(positions, texcoords, colors)
    out[:, 8] = 0.0 if outline is None else outline
    out[:, 9] = 0.0  # world coordinates, no body
    return out


def _fan_outline(j: np.ndarray, count: np.ndarray, static: np.ndarray) -> np.ndarray:
    """Outline codes (3 * len(j),) of fan triangles (0, j + 1, j + 2) of ``count``-gons.

    A code is (sides drawn: bit i for the side opposite corner i) + 8 * (1 moving, 2 static):
    side (j + 1, j + 2), opposite corner 0, is always on the outline; side (0, j + 1), opposite
    corner 2, only for the first triangle; side (j + 2, 0), opposite corner 1, for the last.
    """
    sides = 1 + 2 * (j == count - 3) + 4 * (j == 0)
    code = sides + 8 * (1 + (np.asarray(static, dtype=np.int64) == KIND_STATIC))
    return np.repeat(code, 3).astype(np.float32)


def body_geometry(
    world_vertices: np.ndarray,
    local_vertices: np.ndarray,
    vertex_count: np.ndarray,
    static: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fills, outlines and points for every body.

    ``world_vertices``, ``local_vertices``: (n, MAXV, 2); ``vertex_count`` (n,); ``static`` (n,)
    bool, or int body kinds (KIND_MOVING, KIND_STATIC, KIND_KINEMATIC: kinematic bodies get
    KINEMATIC_FILL). Returns float32 vertex arrays: fills (3 * triangles, FILL_FLOATS) as
    triangle fans from vertex 0, carrying the polygons' outlines; lines (2 * segments, 8) as a
    line list (segment bodies, whose outline is their one line); points (particles, 8).
    """
    n, maxv = world_vertices.shape[0], world_vertices.shape[1]
    count = np.asarray(vertex_count, dtype=np.int64)
    is_static = np.asarray(static, dtype=np.int64)  # the body kind: the colour rows below
    fill_colors = np.array([MOVING_FILL, STATIC_FILL, KINEMATIC_FILL], dtype=np.float32)
    line_colors = np.array([MOVING_OUTLINE, STATIC_OUTLINE, KINEMATIC_FILL], dtype=np.float32)
    if n == 0:
        empty = np.zeros((0, VERTEX_FLOATS), dtype=np.float32)
        return np.zeros((0, FILL_FLOATS), dtype=np.float32), empty, empty

    # Triangle fans: triangle j of a k-gon is (0, j + 1, j + 2), for j < k - 2.
    tri = np.arange(max(maxv - 2, 0))
    body, j = np.nonzero(tri[None, :] < (count - 2)[:, None])
    corners = np.stack([np.zeros_like(j), j + 1, j + 2], axis=1)
    fills = fill_array(
        world_vertices[body[:, None], corners].reshape(-1, 2),
        (local_vertices[body[:, None], corners] * NOISE_TEXCOORD_SCALE).reshape(-1, 2),
        np.repeat(fill_colors[is_static[body].astype(np.int64)], 3, axis=0),
        _fan_outline(j, count[body], is_static[body]),
    )

    # A segment body is drawn as its one line (a polygon's outline is drawn with its fill).
    body = np.nonzero(count == 2)[0]
    ends = np.broadcast_to(np.array([0, 1]), (len(body), 2))
    lines = vertex_array(
        world_vertices[body[:, None], ends].reshape(-1, 2),
        None,
        np.repeat(line_colors[is_static[body].astype(np.int64)], 2, axis=0),
    )

    # Particles are drawn as dots in the fill colour, opaque enough to see.
    body = np.nonzero(count == 1)[0]
    point_colors = fill_colors[is_static[body].astype(np.int64)].copy()
    point_colors[:, 3] = 1.0
    points = vertex_array(world_vertices[body, 0], None, point_colors)
    return fills, lines, points


class BodyMesh:
    """``body_geometry`` with the per-body work done once: between frames only positions change.

    Texture coordinates, colours and the gather indices depend on the bodies' shapes and
    static flags, so they are kept until the world's body arrays are reallocated (a body added
    or removed, another world); each frame then costs one gather of the world vertices.
    """

    def __init__(self) -> None:
        self._local: np.ndarray | None = None
        self._static = np.zeros(0, dtype=np.int64)
        self._templates: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._gather: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.fill_body = np.zeros(0, dtype=np.int64)
        self._local_fills = np.zeros((0, FILL_FLOATS), dtype=np.float32)
        self._built = 0  # rebuilds so far: the bodies' part of the key of _colored
        self._colored: tuple[int, tuple[Any, ...], np.ndarray] | None = None
        #: Changes whenever :meth:`body_fills` returns different vertices (the renderer re-uploads).
        self.version = 0
        self._poses = np.zeros((0, 4), dtype=np.float32)

    def body_fills(
        self,
        local_vertices: np.ndarray,
        vertex_count: np.ndarray,
        static: np.ndarray,
        colors: Mapping[int, Color] | None = None,
    ) -> np.ndarray:
        """The bodies' fills in local coordinates with their body (column 9 = index + 1), for
        the vertex shader to place with :meth:`poses`; ``colors`` overrides bodies' fill colours.

        Rebuilt (and :attr:`version` bumped) only when the bodies or the colours change.
        """
        self._check(local_vertices, vertex_count, static)
        key = tuple(sorted((int(b), tuple(map(float, c))) for b, c in (colors or {}).items()))
        if self._colored is None or self._colored[0] != self._built or self._colored[1] != key:
            fills = self._local_fills
            if colors:
                fills = recolor_fills(fills, self.fill_body, colors)
            self._colored = (self._built, key, fills)
            self.version += 1
        return self._colored[2]

    def poses(self, position: np.ndarray, angle: np.ndarray) -> np.ndarray:
        """``(rows * POSE_WIDTH, 4)`` float32 texels (x, y, cos, sin) of the bodies, zero-padded."""
        n = len(angle)
        rows = max((n + POSE_WIDTH - 1) // POSE_WIDTH, 1)
        if len(self._poses) != rows * POSE_WIDTH:
            self._poses = np.zeros((rows * POSE_WIDTH, 4), dtype=np.float32)
        poses = self._poses
        poses[:n, 0:2] = position
        poses[:n, 2] = np.cos(angle)
        poses[:n, 3] = np.sin(angle)
        return poses

    def _check(self, local_vertices: np.ndarray, vertex_count: np.ndarray, static: np.ndarray) -> None:
        if (
            self._templates is None
            or self._local is not local_vertices
            or not np.array_equal(self._static, static)
        ):
            self._rebuild(local_vertices, vertex_count, static)

    def update(
        self,
        world_vertices: np.ndarray,
        local_vertices: np.ndarray,
        vertex_count: np.ndarray,
        static: np.ndarray,
        fills: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Same arguments and results as :func:`body_geometry` (the arrays are reused: copy to keep).

        ``fills=False``: the fills are not brought up to date (drawn from :meth:`body_fills`).
        """
        self._check(local_vertices, vertex_count, static)
        assert self._templates is not None and self._gather is not None
        flat = world_vertices.reshape(-1, 2)
        for number, (template, index) in enumerate(zip(self._templates, self._gather, strict=True)):
            if number or fills:
                template[:, 0:2] = flat[index]
        return self._templates

    def _rebuild(self, local_vertices: np.ndarray, vertex_count: np.ndarray, static: np.ndarray) -> None:
        n, maxv = local_vertices.shape[0], local_vertices.shape[1]
        # Tag each slot with its flat index: body_geometry then gathers indices, not positions.
        tags = np.arange(n * maxv, dtype=np.float64).reshape(n, maxv, 1).repeat(2, axis=2)
        templates = body_geometry(tags, local_vertices, vertex_count, static)
        gather = tuple(t[:, 0].astype(np.int64) for t in templates)
        self._gather = gather  # type: ignore[assignment]
        #: The body each fill vertex belongs to (for per-body colour overrides).
        self.fill_body = gather[0] // max(maxv, 1)
        self._templates = templates
        self._local = local_vertices
        self._static = np.array(static, dtype=np.int64)
        local = templates[0].copy()
        local[:, 0:2] = local_vertices.reshape(-1, 2)[gather[0]]
        local[:, 9] = self.fill_body + 1
        self._local_fills = local
        self._built += 1


def recolor_fills(fills: np.ndarray, fill_body: np.ndarray, colors: Mapping[int, Color]) -> np.ndarray:
    """A copy of ``fills`` (BodyMesh's fill vertices) with body ``i``'s colour set to ``colors[i]``.

    ``fill_body`` (vertices,) int: the body each fill vertex belongs to (``BodyMesh.fill_body``).
    """
    out = fills.copy()
    for body, color in colors.items():
        out[fill_body == body, 4:8] = np.asarray(color, dtype=np.float32)
    return out
