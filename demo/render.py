"""Drawing: per-frame numpy batches -> one upload and one draw call each.

Four batches, whatever the number of bodies: fills (triangles, with the polygons' outlines
drawn by the fill shader), lines (segment bodies and overlays), points (particles and contact
points) and text. Shaders live in shaders/<name>.vert/.frag and are loaded by name. A line,
point or text vertex is 8 float32: x, y, u, v, r, g, b, a; a fill vertex adds an outline
code (which sides of its triangle are on the outline, and in which colour) and its body: 10
float32. The bodies' fills are uploaded once (in local coordinates) and placed by the vertex
shader from a texture of the bodies' poses, which is all that changes from frame to frame.

Import this module only after demo.context has made a context current: PyOpenGL must not be
imported before the context module has chosen its platform.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from importlib.resources.abc import Traversable
from typing import Any

import numpy as np
from OpenGL import GL

from demo import resources
from demo.camera import Camera
from demo.text import BASE_FONT_PX, GlyphAtlas, TextBatch

SHADER_DIR = resources.path("shaders")

#: Floats per vertex: position (2), texture coordinate (2), colour (4).
VERTEX_FLOATS = 8
#: Floats per fill vertex: VERTEX_FLOATS, the outline code (see _fan_outline) and the body
#: (index + 1, whose pose the vertex shader applies to a local position; 0: world position).
FILL_FLOATS = 10
#: Bodies per row of the pose texture (x, y, cos, sin per texel).
POSE_WIDTH = 1024
#: Outline width (framebuffer pixels) of the polygons, as the original's 1-pixel lines.
OUTLINE_PX = 1.0
BACKGROUND = (0.2, 0.2, 0.2)
#: The original's noise texture: 128 x 128, texture coordinate = local vertex * 0.06.
NOISE_SIZE = 128
NOISE_TEXCOORD_SCALE = 0.06
#: Darkest value of the noise (1 = brightest): the fill colour is multiplied by it.
NOISE_MIN = 0.6
#: Size of points (particles, contact points) in pixels at scale 1 (the original: 4).
POINT_SIZE_PX = 4.0


def argb(value: int) -> tuple[float, float, float, float]:
    """The original's 0xAARRGGBB colour -> (r, g, b, a) floats in 0..1."""
    a, r, g, b = (value >> 24) & 255, (value >> 16) & 255, (value >> 8) & 255, value & 255
    return (r / 255.0, g / 255.0, b / 255.0, a / 255.0)


STATIC_FILL = argb(0x808080FF)
MOVING_FILL = argb(0x8080FF80)
STATIC_OUTLINE = argb(0xFF8080FF)
MOVING_OUTLINE = argb(0xFF00A000)
#: Kinematic bodies (moved only by their set velocity): amber, apart from static grey and the
#: moving bodies' blue; outlined as moving bodies. demo.showcase.KINEMATIC_COLOR is the same.
KINEMATIC_FILL = argb(0x99FFB030)
#: Body kinds, the values of the ``static`` argument of body_geometry and BodyMesh when given
#: as integers (a bool array means moving / static): 0 moving, 1 static, 2 kinematic, e.g.
#: ``world.static + 2 * world.kinematic``.
KIND_MOVING, KIND_STATIC, KIND_KINEMATIC = 0, 1, 2
#: The fill shader's outline colours by code // 8: none, moving, static.
OUTLINE_COLORS = np.array([(0.0, 0.0, 0.0, 0.0), MOVING_OUTLINE, STATIC_OUTLINE], dtype=np.float32)


class ShaderError(RuntimeError):
    """A shader failed to load, compile or link; the message names the file and has the GLSL log."""


def noise_texture(size: int = NOISE_SIZE, seed: int = 2004) -> np.ndarray:
    """A soft tileable value-noise image (size, size) float32 in [NOISE_MIN, 1]."""
    rng = np.random.default_rng(seed)
    total = np.zeros((size, size))
    weight_sum = 0.0
    for octave, period in enumerate((4, 8, 16, 32)):
        grid = rng.random((period, period))
        coord = np.arange(size) * period / size
        i0 = np.floor(coord).astype(np.int64)
        i1 = (i0 + 1) % period  # wrap: the texture repeats without seams
        f = coord - i0
        f = f * f * (3.0 - 2.0 * f)
        rows = grid[i0][:, i0] * (1 - f)[None, :] + grid[i0][:, i1] * f[None, :]
        rows_next = grid[i1][:, i0] * (1 - f)[None, :] + grid[i1][:, i1] * f[None, :]
        layer = rows * (1 - f)[:, None] + rows_next * f[:, None]
        weight = 0.5**octave
        total += weight * layer
        weight_sum += weight
    total /= weight_sum
    lo, hi = total.min(), total.max()
    unit = (total - lo) / max(hi - lo, 1e-12)
    return (NOISE_MIN + (1.0 - NOISE_MIN) * unit).astype(np.float32)


# ----------------------------------------------------------------------------------------------
# Geometry: bodies -> vertex arrays (numpy only).


def _vertex_array(positions: np.ndarray, texcoords: np.ndarray | None, colors: np.ndarray) -> np.ndarray:
    out = np.empty((len(positions), VERTEX_FLOATS), dtype=np.float32)
    out[:, 0:2] = positions
    if texcoords is None:
        out[:, 2:4] = 0.0
    else:
        out[:, 2:4] = texcoords
    out[:, 4:8] = colors
    return out


def _fill_array(
    positions: np.ndarray,
    texcoords: np.ndarray,
    colors: np.ndarray,
    outline: np.ndarray | None = None,
) -> np.ndarray:
    """Fill vertices (FILL_FLOATS float32 each, three per triangle, in order).

    ``outline`` (m,): the outline code of each vertex (see :func:`_fan_outline`); None: no outline.
    """
    out = np.empty((len(positions), FILL_FLOATS), dtype=np.float32)
    out[:, 0:8] = _vertex_array(positions, texcoords, colors)
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
    fills = _fill_array(
        world_vertices[body[:, None], corners].reshape(-1, 2),
        (local_vertices[body[:, None], corners] * NOISE_TEXCOORD_SCALE).reshape(-1, 2),
        np.repeat(fill_colors[is_static[body].astype(np.int64)], 3, axis=0),
        _fan_outline(j, count[body], is_static[body]),
    )

    # A segment body is drawn as its one line (a polygon's outline is drawn with its fill).
    body = np.nonzero(count == 2)[0]
    ends = np.broadcast_to(np.array([0, 1]), (len(body), 2))
    lines = _vertex_array(
        world_vertices[body[:, None], ends].reshape(-1, 2),
        None,
        np.repeat(line_colors[is_static[body].astype(np.int64)], 2, axis=0),
    )

    # Particles are drawn as dots in the fill colour, opaque enough to see.
    body = np.nonzero(count == 1)[0]
    point_colors = fill_colors[is_static[body].astype(np.int64)].copy()
    point_colors[:, 3] = 1.0
    points = _vertex_array(world_vertices[body, 0], None, point_colors)
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
        colors: Mapping[int, tuple[float, float, float, float]] | None = None,
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


#: Arrow heads: length as a fraction of the arrow, capped (world units), and half-angle (rad).
ARROW_HEAD_FRACTION, ARROW_HEAD_MAX, ARROW_HEAD_ANGLE = 0.25, 1.5, 0.45


def recolor_fills(
    fills: np.ndarray, fill_body: np.ndarray, colors: Mapping[int, tuple[float, float, float, float]]
) -> np.ndarray:
    """A copy of ``fills`` (BodyMesh's fill vertices) with body ``i``'s colour set to ``colors[i]``.

    ``fill_body`` (vertices,) int: the body each fill vertex belongs to (``BodyMesh.fill_body``).
    """
    out = fills.copy()
    for body, color in colors.items():
        out[fill_body == body, 4:8] = np.asarray(color, dtype=np.float32)
    return out


class LineBatch:
    """World-space overlay lines, points, filled polygons and text labels collected during a frame.

    Everything ends up in the renderer's fixed batches (fills, lines, points, text), so overlays
    never add draw calls.
    """

    def __init__(self) -> None:
        self._lines: list[np.ndarray] = []
        self._points: list[np.ndarray] = []
        self._fills: list[np.ndarray] = []
        self._labels: list[tuple[str, np.ndarray, tuple[float, float, float, float]]] = []

    def clear(self) -> None:
        self._lines, self._points, self._fills, self._labels = [], [], [], []

    def add_polygon(
        self,
        vertices: np.ndarray,
        fill: tuple[float, float, float, float] | None,
        outline: tuple[float, float, float, float] | None = None,
    ) -> None:
        """A convex polygon ``vertices (k, 2)`` (world units): filled (a fan) and/or outlined."""
        v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
        k = len(v)
        if fill is not None and k >= 3:
            j = np.arange(k - 2)
            tri = np.stack([np.zeros_like(j), j + 1, j + 2], axis=1).ravel()
            colors = np.broadcast_to(np.asarray(fill, dtype=np.float32), (len(tri), 4))
            self._fills.append(_fill_array(v[tri], v[tri] * NOISE_TEXCOORD_SCALE, colors))
        if outline is not None and k >= 2:
            ends = np.arange(k if k >= 3 else 1)
            self.add_lines(np.stack([v[ends], v[(ends + 1) % k]], axis=1), outline)
        elif outline is not None and k == 1:
            self.add_points(v, outline)

    def add_arrows(
        self, start: np.ndarray, end: np.ndarray, color: tuple[float, float, float, float] | np.ndarray
    ) -> None:
        """Arrows ``start -> end`` ((m, 2) each, world units) with a head at ``end``."""
        start = np.asarray(start, dtype=np.float64).reshape(-1, 2)
        end = np.asarray(end, dtype=np.float64).reshape(-1, 2)
        if len(start) == 0:
            return
        d = end - start
        length = np.hypot(d[:, 0], d[:, 1])
        safe = np.where(length > 0.0, length, 1.0)
        back = -d / safe[:, None]
        head = np.minimum(length * ARROW_HEAD_FRACTION, ARROW_HEAD_MAX)[:, None]
        c, s = np.cos(ARROW_HEAD_ANGLE), np.sin(ARROW_HEAD_ANGLE)
        left = np.stack([c * back[:, 0] - s * back[:, 1], s * back[:, 0] + c * back[:, 1]], axis=1)
        right = np.stack([c * back[:, 0] + s * back[:, 1], -s * back[:, 0] + c * back[:, 1]], axis=1)
        segments = np.stack(
            [
                np.stack([start, end], 1),
                np.stack([end, end + left * head], 1),
                np.stack([end, end + right * head], 1),
            ],
            axis=1,
        )
        color_array = np.asarray(color, dtype=np.float32)
        if color_array.ndim == 2:
            color_array = np.repeat(color_array, 3, axis=0)
        self.add_lines(segments.reshape(-1, 2, 2), color_array)

    def add_text(self, text: str, point: np.ndarray, color: tuple[float, float, float, float]) -> None:
        """A text label whose top-left corner is at world ``point (2,)``."""
        self._labels.append((str(text), np.asarray(point, dtype=np.float64).reshape(2), color))

    def fills(self) -> np.ndarray:
        return np.concatenate(self._fills) if self._fills else np.zeros((0, FILL_FLOATS), np.float32)

    def labels(self) -> list[tuple[str, np.ndarray, tuple[float, float, float, float]]]:
        return list(self._labels)

    def add_lines(self, segments: np.ndarray, color: tuple[float, float, float, float] | np.ndarray) -> None:
        """``segments (m, 2, 2)`` world units; ``color`` (4,) or (m, 4)."""
        segments = np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2)
        if len(segments) == 0:
            return
        colors = np.broadcast_to(np.asarray(color, dtype=np.float32), (len(segments), 4))
        self._lines.append(_vertex_array(segments.reshape(-1, 2), None, np.repeat(colors, 2, axis=0)))

    def add_points(self, points: np.ndarray, color: tuple[float, float, float, float] | np.ndarray) -> None:
        """``points (m, 2)`` world units; ``color`` (4,) or (m, 4)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if len(points) == 0:
            return
        colors = np.broadcast_to(np.asarray(color, dtype=np.float32), (len(points), 4))
        self._points.append(_vertex_array(points, None, colors))

    def add_boxes(self, lo: np.ndarray, hi: np.ndarray, color: tuple[float, float, float, float]) -> None:
        """Axis-aligned rectangles from corners ``lo``, ``hi`` (m, 2)."""
        lo, hi = np.asarray(lo).reshape(-1, 2), np.asarray(hi).reshape(-1, 2)
        c0 = lo
        c1 = np.stack([hi[:, 0], lo[:, 1]], axis=1)
        c2 = hi
        c3 = np.stack([lo[:, 0], hi[:, 1]], axis=1)
        segments = np.stack(
            [np.stack([c0, c1], 1), np.stack([c1, c2], 1), np.stack([c2, c3], 1), np.stack([c3, c0], 1)],
            axis=1,
        )
        self.add_lines(segments.reshape(-1, 2, 2), color)

    def lines(self) -> np.ndarray:
        return np.concatenate(self._lines) if self._lines else np.zeros((0, VERTEX_FLOATS), np.float32)

    def points(self) -> np.ndarray:
        return np.concatenate(self._points) if self._points else np.zeros((0, VERTEX_FLOATS), np.float32)


# ----------------------------------------------------------------------------------------------
# GL side.


def _compile(path: Traversable, stage: int) -> int:
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ShaderError(f"shader {path}: cannot read ({exc.strerror})") from None
    shader = GL.glCreateShader(stage)
    GL.glShaderSource(shader, source)
    GL.glCompileShader(shader)
    if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
        log = GL.glGetShaderInfoLog(shader)
        log_text = log.decode("utf-8", "replace") if isinstance(log, bytes) else str(log)
        GL.glDeleteShader(shader)
        raise ShaderError(f"shader {path} failed to compile:\n{log_text.strip()}")
    return int(shader)


def load_program(name: str, shader_dir: Traversable = SHADER_DIR) -> int:
    """Compile and link shaders/<name>.vert and .frag; ShaderError names the file and has the log."""
    vert = _compile(shader_dir / f"{name}.vert", GL.GL_VERTEX_SHADER)
    frag = _compile(shader_dir / f"{name}.frag", GL.GL_FRAGMENT_SHADER)
    program = GL.glCreateProgram()
    GL.glAttachShader(program, vert)
    GL.glAttachShader(program, frag)
    GL.glLinkProgram(program)
    GL.glDeleteShader(vert)
    GL.glDeleteShader(frag)
    if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
        log = GL.glGetProgramInfoLog(program)
        log_text = log.decode("utf-8", "replace") if isinstance(log, bytes) else str(log)
        raise ShaderError(f"shaders {shader_dir / name}.vert/.frag failed to link:\n{log_text.strip()}")
    return int(program)


class _Stream:
    """A vertex array + buffer re-filled every frame with one upload.

    ``floats``: floats per vertex (VERTEX_FLOATS, or FILL_FLOATS with the outline code).
    """

    def __init__(self, floats: int = VERTEX_FLOATS) -> None:
        self.vao = int(GL.glGenVertexArrays(1))
        self.vbo = int(GL.glGenBuffers(1))
        GL.glBindVertexArray(self.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        stride = floats * 4
        layout = [(0, 0, 2), (1, 8, 2), (2, 16, 4)]
        if floats == FILL_FLOATS:
            layout += [(3, 32, 1), (4, 36, 1)]
        for location, offset, size in layout:
            GL.glEnableVertexAttribArray(location)
            GL.glVertexAttribPointer(
                location, size, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset)
            )
        GL.glBindVertexArray(0)

    def upload(self, vertices: np.ndarray) -> None:
        GL.glBindVertexArray(self.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        GL.glBufferData(
            GL.GL_ARRAY_BUFFER, vertices.nbytes, np.ascontiguousarray(vertices), GL.GL_STREAM_DRAW
        )


class _FillBuffer(_Stream):
    """The fill vertex buffer: the bodies' fills (kept while their version holds), then overlays."""

    def __init__(self) -> None:
        super().__init__(FILL_FLOATS)
        self.capacity = 0  # vertices
        self.version = -1
        self.body_count = 0  # vertices of the bodies' part

    def fill(self, body_fills: np.ndarray, version: int, fills: np.ndarray) -> int:
        """Bring the buffer up to date; returns the number of vertices to draw."""
        GL.glBindVertexArray(self.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        stride = FILL_FLOATS * 4
        bodies, total = len(body_fills), len(body_fills) + len(fills)
        if total > self.capacity or version != self.version or bodies != self.body_count:
            # Room for the overlays to grow without re-sending the bodies every frame.
            self.capacity = max(total + total // 2, 1024)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, self.capacity * stride, None, GL.GL_DYNAMIC_DRAW)
            if bodies:
                GL.glBufferSubData(GL.GL_ARRAY_BUFFER, 0, body_fills.nbytes, np.ascontiguousarray(body_fills))
            self.version, self.body_count = version, bodies
        if len(fills):
            GL.glBufferSubData(GL.GL_ARRAY_BUFFER, bodies * stride, fills.nbytes, np.ascontiguousarray(fills))
        return total


def _texture(image: np.ndarray, repeat: bool) -> int:
    """A single-channel float or byte image as a GL_R8 texture."""
    texture = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    data = image if image.dtype == np.uint8 else np.clip(image * 255.0 + 0.5, 0, 255).astype(np.uint8)
    height, width = data.shape
    GL.glTexImage2D(
        GL.GL_TEXTURE_2D,
        0,
        GL.GL_R8,
        width,
        height,
        0,
        GL.GL_RED,
        GL.GL_UNSIGNED_BYTE,
        np.ascontiguousarray(data),
    )
    wrap = GL.GL_REPEAT if repeat else GL.GL_CLAMP_TO_EDGE
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, wrap)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, wrap)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
    return texture


UNIFORMS = (
    "transform",
    "noise",
    "point_size",
    "viewport",
    "atlas",
    "outline_px",
    "outline_colors",
    "poses",
    "pose_width",
)


class Renderer:
    """Owns the programs, buffers and textures; draws a frame with a constant number of calls.

    ``draw_calls`` is the number of draw calls of the last frame (at most 4).
    """

    def __init__(self, text_scale: int = 1, shader_dir: Traversable = SHADER_DIR) -> None:
        self.programs = {name: load_program(name, shader_dir) for name in ("fill", "line", "text")}
        self._uniform = {
            (name, u): GL.glGetUniformLocation(program, u)
            for name, program in self.programs.items()
            for u in UNIFORMS
        }
        self.streams = {kind: _Stream() for kind in ("line", "point", "text")}
        # Two fill buffers used in turn, each holding the bodies' fills (uploaded when they
        # change) followed by this frame's overlay fills: writing the one the previous frame
        # may still be drawing from would make the driver wait for it.
        self.fill_buffers = [_FillBuffer(), _FillBuffer()]
        self._fill_turn = 0
        self.pose_texture = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, self.pose_texture)
        for parameter, value in (
            (GL.GL_TEXTURE_MIN_FILTER, GL.GL_NEAREST),
            (GL.GL_TEXTURE_MAG_FILTER, GL.GL_NEAREST),
            (GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE),
            (GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE),
        ):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, parameter, value)
        self._pose_rows = 0
        # Uniforms that never change are set once: a program keeps its uniform values.
        GL.glUseProgram(self.programs["fill"])
        GL.glUniform1i(self._uniform["fill", "noise"], 0)
        GL.glUniform1i(self._uniform["fill", "poses"], 1)
        GL.glUniform1i(self._uniform["fill", "pose_width"], POSE_WIDTH)
        GL.glUniform1f(self._uniform["fill", "outline_px"], OUTLINE_PX)
        GL.glUniform4fv(self._uniform["fill", "outline_colors"], 3, OUTLINE_COLORS)
        GL.glUseProgram(self.programs["text"])
        GL.glUniform1i(self._uniform["text", "atlas"], 0)
        GL.glUseProgram(0)
        self.noise_texture = _texture(noise_texture(), repeat=True)
        self.text_scale = max(int(text_scale), 1)
        self.atlas = GlyphAtlas(BASE_FONT_PX * self.text_scale)
        self.atlas_texture = _texture(self.atlas.image, repeat=False)
        self.text = TextBatch(self.atlas)
        self.overlay = LineBatch()
        self.draw_calls = 0

    def set_text_scale(self, scale: int) -> None:
        """HiDPI scale (framebuffer pixels per window pixel) for points and the default font."""
        self.text_scale = max(int(scale), 1)

    def set_font_size(self, pixel_size: int) -> None:
        """Rebuild the glyph atlas at ``pixel_size`` (only when it changes: on resize)."""
        pixel_size = max(int(pixel_size), 1)
        if pixel_size == self.atlas.pixel_size:
            return
        self.atlas = GlyphAtlas(pixel_size)
        GL.glDeleteTextures([self.atlas_texture])
        self.atlas_texture = _texture(self.atlas.image, repeat=False)
        self.text = TextBatch(self.atlas)

    def draw(
        self,
        framebuffer: int,
        width: int,
        height: int,
        camera: Camera,
        fills: np.ndarray,
        lines: np.ndarray,
        points: np.ndarray,
        text: np.ndarray,
        bodies: tuple[np.ndarray, int, np.ndarray] | None = None,
    ) -> None:
        """Clear and draw one frame into ``framebuffer`` of ``width`` x ``height`` pixels.

        ``fills`` (world coordinates), ``lines``, ``points``, ``text``: this frame's batches.
        ``bodies``: ``(fills, version, poses)`` from :class:`BodyMesh` (``body_fills``, its
        ``version``, ``poses``): the bodies' fills, re-uploaded only when ``version`` changes,
        drawn in the same call as ``fills``.
        """
        self.draw_calls = 0
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        if width <= 0 or height <= 0:
            return  # minimised: nothing to draw into
        GL.glViewport(0, 0, width, height)
        GL.glClearColor(*BACKGROUND, 1.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glEnable(GL.GL_BLEND)
        GL.glBlendFunc(GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)
        GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        transform = camera.matrix()

        body_fills, version, poses = bodies if bodies is not None else (fills[:0], -1, None)
        if len(fills) or len(body_fills):
            program = self.programs["fill"]
            GL.glUseProgram(program)
            GL.glUniformMatrix4fv(self._uniform["fill", "transform"], 1, GL.GL_TRUE, transform)
            GL.glActiveTexture(GL.GL_TEXTURE0)
            GL.glBindTexture(GL.GL_TEXTURE_2D, self.noise_texture)
            GL.glActiveTexture(GL.GL_TEXTURE1)
            GL.glBindTexture(GL.GL_TEXTURE_2D, self.pose_texture)
            if poses is not None and len(body_fills):
                self._upload_poses(poses)
            GL.glActiveTexture(GL.GL_TEXTURE0)
            buffer = self.fill_buffers[self._fill_turn]
            self._fill_turn = 1 - self._fill_turn
            count = buffer.fill(body_fills, version, fills)
            GL.glDrawArrays(GL.GL_TRIANGLES, 0, count)
            self.draw_calls += 1
        if len(lines) or len(points):
            GL.glUseProgram(self.programs["line"])
            GL.glUniformMatrix4fv(self._uniform["line", "transform"], 1, GL.GL_TRUE, transform)
            GL.glUniform1f(self._uniform["line", "point_size"], POINT_SIZE_PX * self.text_scale)
            if len(lines):
                self._draw("line", lines, GL.GL_LINES)
            if len(points):
                self._draw("point", points, GL.GL_POINTS)
        if len(text):
            GL.glUseProgram(self.programs["text"])
            GL.glUniform2f(self._uniform["text", "viewport"], float(width), float(height))
            GL.glActiveTexture(GL.GL_TEXTURE0)
            GL.glBindTexture(GL.GL_TEXTURE_2D, self.atlas_texture)
            self._draw("text", text, GL.GL_TRIANGLES)
        GL.glBindVertexArray(0)

    def _upload_poses(self, poses: np.ndarray) -> None:
        """``poses (rows * POSE_WIDTH, 4)`` float32 into the bound pose texture (RGBA32F)."""
        rows = len(poses) // POSE_WIDTH
        data = np.ascontiguousarray(poses, dtype=np.float32)
        if rows != self._pose_rows:
            GL.glTexImage2D(
                GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, POSE_WIDTH, rows, 0, GL.GL_RGBA, GL.GL_FLOAT, data
            )
            self._pose_rows = rows
        else:
            GL.glTexSubImage2D(GL.GL_TEXTURE_2D, 0, 0, 0, POSE_WIDTH, rows, GL.GL_RGBA, GL.GL_FLOAT, data)

    def _draw(self, kind: str, vertices: np.ndarray, mode: int) -> None:
        stream = self.streams[kind]
        stream.upload(vertices)
        GL.glDrawArrays(mode, 0, len(vertices))
        self.draw_calls += 1
