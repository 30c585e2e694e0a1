"""The bodies as vertex arrays (numpy only): fills as triangle fans carrying their outlines,
segment bodies as lines, particles as points.

A line or point vertex is VERTEX_FLOATS float32: x, y, u, v, r, g, b, a; a fill vertex adds an
outline code (which sides of its triangle are on the outline, and in which colour), its body,
and what its antialiasing needs: FILL_FLOATS float32. :class:`BodyMesh` keeps the per-body
work between frames: the bodies' fills are built once in local coordinates and placed by the
vertex shader from their poses, which is all that changes from frame to frame.

Antialiasing without multisampling (which a software rasteriser pays for dearly): each
polygon is drawn half a pixel inside its true outline, and a one-pixel *fringe* of two
triangles per side straddles the outline, fading from opaque to transparent, so an edge pixel
is covered about as much as the polygon covers it. Widths are in pixels, so the vertex shader
moves the corners: each carries its *miter* (the direction that moves both its sides one pixel
outward) and how many pixels to move along it (FRINGE_SHIFT). Lines become quads one pixel
wider than the line (:func:`line_quads`), their edges faded in the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
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
#: Floats per fill vertex: VERTEX_FLOATS, the outline code (see _fan_outline), the body
#: (index + 1, whose pose the vertex shader applies to a local position; 0: world position),
#: the corner's miter (2, in the same frame as the position) and its shift in pixels.
FILL_FLOATS = 13
#: The outline code's flag for a fringe triangle (see module docstring).
FRINGE = 32
#: Where corners go, in pixels along their miter: a polygon's (and a fringe's inner corners)
#: half a pixel in, a fringe's outer corners half a pixel out.
INSET_SHIFT, FRINGE_SHIFT = -0.5, 0.5
#: A miter is at most this long (sharp corners would send it far out).
MITER_LIMIT = 4.0
#: Floats per line-quad vertex: position (2), its offset in pixels (2), colour (4), and its
#: signed distance in pixels from the line's middle, across it (1).
LINE_QUAD_FLOATS = 9
#: Line width in pixels (at HiDPI scale 1).
LINE_PX = 1.25
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
    miter: np.ndarray | None = None,
    shift: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Fill vertices (FILL_FLOATS float32 each, three per triangle, in order).

    ``outline`` (m,): the outline code of each vertex (see :func:`_fan_outline`); None: no
    outline. ``miter`` (m, 2) and ``shift`` (m,) or a number: see the module docstring (None:
    the corners stay where they are).
    """
    out = np.empty((len(positions), FILL_FLOATS), dtype=np.float32)
    out[:, 0:8] = vertex_array(positions, texcoords, colors)
    out[:, 8] = 0.0 if outline is None else outline
    out[:, 9] = 0.0  # world coordinates, no body
    out[:, 10:12] = 0.0 if miter is None else miter
    out[:, 12] = shift
    return out


def miters(vertices: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Each corner's miter, (n, MAXV, 2): the vector that moves both of its sides one unit
    outward (``vertices (n, MAXV, 2)`` counter-clockwise polygons of ``count (n,)`` corners;
    corners past the count, and bodies of fewer than 3, get zeros)."""
    n, maxv = vertices.shape[0], vertices.shape[1]
    if n == 0 or maxv == 0:
        return np.zeros_like(vertices)
    k = np.maximum(np.asarray(count, dtype=np.int64), 1)[:, None]
    index = np.arange(maxv)[None, :]
    rows = np.arange(n)[:, None]
    after = vertices[rows, (index + 1) % k] - vertices
    length = np.hypot(after[..., 0], after[..., 1])
    # Outward normal of side i (corner i to i + 1) of a counter-clockwise polygon: (dy, -dx).
    normal = np.stack([after[..., 1], -after[..., 0]], axis=-1) / np.maximum(length, 1e-12)[..., None]
    before = normal[rows, (index - 1) % k]
    both = before + normal
    dot = np.sum(before * normal, axis=-1)
    miter = both / np.maximum(1.0 + dot, 1e-6)[..., None]
    size = np.hypot(miter[..., 0], miter[..., 1])
    miter *= (np.minimum(size, MITER_LIMIT) / np.maximum(size, 1e-12))[..., None]
    miter[(index >= count[:, None]) | (count[:, None] < 3)] = 0.0
    return miter


def line_quads(lines: np.ndarray, width_px: float = LINE_PX) -> np.ndarray:
    """Line vertices (2 m, VERTEX_FLOATS: segment ends in pairs) -> quads (6 m, LINE_QUAD_FLOATS).

    Each quad covers its segment and half a pixel more on every side (``width_px`` wide plus a
    pixel across); the vertex shader moves each corner by its pixel offset, and the fragment
    shader fades the edges by the distance across.
    """
    m = len(lines) // 2
    out = np.zeros((6 * m, LINE_QUAD_FLOATS), dtype=np.float32)
    if m == 0:
        return out
    a, b = lines[0::2, 0:2].astype(np.float64), lines[1::2, 0:2].astype(np.float64)
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    t = d / np.maximum(length, 1e-12)[:, None]
    t[length <= 0.0] = (1.0, 0.0)
    n = np.stack([-t[:, 1], t[:, 0]], axis=1)
    reach = 0.5 * width_px + 0.5
    # Corners: (end, side) for the triangles (a-, b-, b+) and (a-, b+, a+).
    ends = np.array([0, 1, 1, 0, 1, 0])
    sides = np.array([-1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    position = np.where(ends[None, :, None] == 0, a[:, None, :], b[:, None, :])
    along = np.where(ends == 0, -0.5, 0.5)
    offset = n[:, None, :] * (sides * reach)[None, :, None] + t[:, None, :] * along[None, :, None]
    color = np.where(ends[None, :, None] == 0, lines[0::2, None, 4:8], lines[1::2, None, 4:8])
    out[:, 0:2] = position.reshape(-1, 2)
    out[:, 2:4] = offset.reshape(-1, 2)
    out[:, 4:8] = color.reshape(-1, 4)
    out[:, 8] = np.tile(sides * reach, m)
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
    corner_miters = miters(world_vertices, count)
    fans = fill_array(
        world_vertices[body[:, None], corners].reshape(-1, 2),
        (local_vertices[body[:, None], corners] * NOISE_TEXCOORD_SCALE).reshape(-1, 2),
        np.repeat(fill_colors[is_static[body].astype(np.int64)], 3, axis=0),
        _fan_outline(j, count[body], is_static[body]),
        corner_miters[body[:, None], corners].reshape(-1, 2),
        INSET_SHIFT,
    )
    # Fringes: side i of a k-gon (corners i, i + 1), inner corners c, outer corners o, as the
    # triangles (c_i, c_i+1, o_i+1) and (c_i, o_i+1, o_i).
    side = np.arange(maxv)
    body, i = np.nonzero((side[None, :] < count[:, None]) & (count[:, None] >= 3))
    nxt = (i + 1) % count[body]
    corner = np.stack([i, nxt, nxt, i, nxt, i], axis=1)
    shift = np.tile([INSET_SHIFT, INSET_SHIFT, FRINGE_SHIFT, INSET_SHIFT, FRINGE_SHIFT, FRINGE_SHIFT], len(i))
    kind = 1 + (is_static[body] == KIND_STATIC)
    fringes = fill_array(
        world_vertices[body[:, None], corner].reshape(-1, 2),
        (local_vertices[body[:, None], corner] * NOISE_TEXCOORD_SCALE).reshape(-1, 2),
        np.repeat(fill_colors[is_static[body].astype(np.int64)], 6, axis=0),
        np.repeat(FRINGE + 8 * kind, 6).astype(np.float32),
        corner_miters[body[:, None], corner].reshape(-1, 2),
        shift,
    )
    fills = np.concatenate([fans, fringes])

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


def polygon_fills(polygons: Sequence[np.ndarray], colors: Sequence[Color]) -> np.ndarray:
    """Convex polygons (each (k, 2), world units, either winding, k >= 3) filled in their
    ``colors`` with their antialiasing fringes, in one pass: each polygon's fill vertices
    (3 (k - 2) of its fan, then 6 k of its fringe; FILL_FLOATS each) in the order given."""
    if not polygons:
        return np.zeros((0, FILL_FLOATS), dtype=np.float32)
    count = np.array([len(v) for v in polygons], dtype=np.int64)
    corners = np.zeros((len(polygons), int(count.max()), 2))
    for row, v in enumerate(polygons):
        v = np.asarray(v, dtype=np.float64).reshape(-1, 2)
        x, y = v[:, 0], v[:, 1]
        if np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y) < 0.0:
            v = v[::-1]  # counter-clockwise, so that the miters point out
        corners[row, : len(v)] = v
    kinds = np.zeros(len(polygons), dtype=np.int64)
    fills = body_geometry(corners, corners, count, kinds)[0]
    # body_geometry gives every fan, then every fringe: put each polygon's together, in order.
    owner = np.concatenate(
        [np.repeat(np.arange(len(count)), 3 * (count - 2)), np.repeat(np.arange(len(count)), 6 * count)]
    )
    order = np.argsort(owner, kind="stable")
    fills = fills[order]
    fills[:, 4:8] = np.asarray(colors, dtype=np.float32)[owner[order]]
    fills[:, 8] = np.where(fills[:, 8] >= FRINGE, FRINGE, 0.0)  # no outline: the fringe fades the fill
    return fills


_VERSIONS = itertools.count(1)


class BodyMesh:
    """``body_geometry`` with the per-body work done once: between frames only positions change.

    Texture coordinates, colours and the gather indices depend on the bodies' shapes and
    kinds, so they are kept while those stay equal (a body added or removed, or another world,
    rebuilds them); each frame then costs one comparison and one gather of the world vertices.
    """

    def __init__(self) -> None:
        self._local: np.ndarray | None = None
        self._count = np.zeros(0, dtype=np.int64)
        self._static = np.zeros(0, dtype=np.int64)
        self._templates: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._gather: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.fill_body = np.zeros(0, dtype=np.int64)
        self.line_body = np.zeros(0, dtype=np.int64)
        self.point_body = np.zeros(0, dtype=np.int64)
        self._local_fills = np.zeros((0, FILL_FLOATS), dtype=np.float32)
        #: How many of the fill vertices (first) belong to static bodies.
        self.static_vertices = 0
        self._static_bodies = np.zeros(0, dtype=np.int64)
        self._built = 0  # rebuilds so far: the bodies' part of the key of _colored
        self._colored: tuple[int, tuple[Any, ...], np.ndarray] | None = None
        #: Changes whenever :meth:`body_fills` returns different vertices (the renderer re-uploads);
        #: never the same in two meshes.
        self.version = next(_VERSIONS)
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
        The static bodies' vertices come first (:attr:`static_vertices` of them): the renderer
        keeps their picture between frames while they stay where they are.

        Rebuilt (and :attr:`version` bumped) only when the bodies or the colours change.
        """
        self._check(local_vertices, vertex_count, static)
        key = tuple(sorted((int(b), tuple(map(float, c))) for b, c in (colors or {}).items()))
        if self._colored is None or self._colored[0] != self._built or self._colored[1] != key:
            fills = self._local_fills
            if colors:
                fills = recolor_fills(fills, self.fill_body, colors)
            self._colored = (self._built, key, fills)
            self.version = next(_VERSIONS)
        return self._colored[2]

    def static_key(self, poses: np.ndarray) -> bytes:
        """What the static bodies' picture depends on besides the fills: their poses (scenes may
        move a static body: the teaching pairs do)."""
        return poses[self._static_bodies].tobytes()

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

    def prepare(self, local_vertices: np.ndarray, vertex_count: np.ndarray, static: np.ndarray) -> None:
        """Do the per-body work for these bodies now (numpy only, any thread): a scene built
        off the drawing thread comes with its mesh, and its first frame does not do it."""
        self._check(local_vertices, vertex_count, static)

    def _check(self, local_vertices: np.ndarray, vertex_count: np.ndarray, static: np.ndarray) -> None:
        if (
            self._templates is None
            or not np.array_equal(self._local, local_vertices)
            or not np.array_equal(self._count, vertex_count)
            or not np.array_equal(self._static, static)
        ):
            self._rebuild(local_vertices, vertex_count, static)

    def update(
        self,
        world_vertices: np.ndarray,
        local_vertices: np.ndarray,
        vertex_count: np.ndarray,
        static: np.ndarray,
        colors: Mapping[int, Color] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The segment bodies' lines and the particles' points now, as :func:`body_geometry`
        gives them, ``colors`` overriding some bodies' (the arrays are reused: copy to keep);
        the fills are :meth:`body_fills`."""
        self._check(local_vertices, vertex_count, static)
        assert self._templates is not None and self._gather is not None
        flat = world_vertices.reshape(-1, 2)
        for template, index in zip(self._templates[1:], self._gather[1:], strict=True):
            template[:, 0:2] = flat[index]
        lines, points = self._templates[1], self._templates[2]
        if colors:
            lines = recolor_fills(lines, self.line_body, colors)
            points = recolor_fills(points, self.point_body, colors)
        return lines, points

    def _rebuild(self, local_vertices: np.ndarray, vertex_count: np.ndarray, static: np.ndarray) -> None:
        n, maxv = local_vertices.shape[0], local_vertices.shape[1]
        # Tag each slot with its flat index: body_geometry then gathers indices, not positions.
        tags = np.arange(n * maxv, dtype=np.float64).reshape(n, maxv, 1).repeat(2, axis=2)
        templates = body_geometry(tags, local_vertices, vertex_count, static)
        gather = tuple(t[:, 0].astype(np.int64) for t in templates)
        self._gather = gather  # type: ignore[assignment]
        #: The body each fill, line and point vertex belongs to (for per-body colour overrides).
        self.fill_body = gather[0] // max(maxv, 1)
        self.line_body = gather[1] // max(maxv, 1)
        self.point_body = gather[2] // max(maxv, 1)
        self._templates = templates
        # Copies: the engine hands out read-only views, new ones at every call.
        self._local = np.array(local_vertices)
        self._count = np.array(vertex_count)
        self._static = np.array(static, dtype=np.int64)
        # The fills in the bodies' own frames (their miters too), placed by the vertex shader;
        # the static bodies' first (a stable reordering keeps fans before fringes in each part).
        local = body_geometry(local_vertices, local_vertices, vertex_count, static)[0]
        local[:, 9] = self.fill_body + 1
        kinds = np.asarray(static, dtype=np.int64)
        is_static = kinds[self.fill_body] == KIND_STATIC if len(kinds) else np.zeros(0, dtype=bool)
        order = np.argsort(~is_static, kind="stable")
        self._local_fills = local[order]
        self.fill_body = self.fill_body[order]
        self.static_vertices = int(np.count_nonzero(is_static))
        self._static_bodies = np.flatnonzero(kinds == KIND_STATIC)
        self._built += 1


def recolor_fills(fills: np.ndarray, fill_body: np.ndarray, colors: Mapping[int, Color]) -> np.ndarray:
    """A copy of ``fills`` (vertices with the colour in columns 4..7: fills, lines or points) with
    body ``i``'s colour set to ``colors[i]``.

    ``fill_body`` (vertices,) int: the body each vertex belongs to (``BodyMesh.fill_body``).
    """
    out = fills.copy()
    for body, color in colors.items():
        out[fill_body == body, 4:8] = np.asarray(color, dtype=np.float32)
    return out
