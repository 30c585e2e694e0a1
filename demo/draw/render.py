"""Drawing with OpenGL: per-frame numpy batches -> one upload and one draw call each.

Four batches, whatever the number of bodies: fills (triangles, with the polygons' outlines
drawn by the fill shader), lines (segment bodies and overlays), points (particles and contact
points) and text. Shaders live in shaders/<name>.vert/.frag and are loaded by name. The
vertex layouts are demo.draw.mesh's; the bodies' fills are uploaded once (in local
coordinates) and placed by the vertex shader from a texture of the bodies' poses.

Import this module only after demo.context has made a context current: PyOpenGL must not be
imported before the context module has chosen its platform.
"""

from __future__ import annotations

import ctypes
import os
from importlib.resources.abc import Traversable

import numpy as np
from OpenGL import GL

from demo import resources
from demo.draw.batch import OverlayBatch
from demo.draw.camera import Camera
from demo.draw.mesh import (
    FILL_FLOATS,
    KIND_MOVING,
    KIND_STATIC,
    LINE_PX,
    LINE_QUAD_FLOATS,
    OUTLINE_COLORS,
    POSE_WIDTH,
    VERTEX_FLOATS,
    BodyMesh,
    line_quads,
)
from demo.draw.palette import BACKGROUND
from demo.draw.text import BASE_FONT_PX, GlyphAtlas, TextBatch

SHADER_DIR = resources.path("shaders")

#: Outline width (framebuffer pixels) inside the polygons; with the antialiasing fringe outside
#: it, a polygon's outline looks about as wide as the original's 1-pixel lines.
OUTLINE_PX = 1.0
#: The original's noise texture: 128 x 128.
NOISE_SIZE = 128
#: Darkest value of the noise (1 = brightest): the fill colour is multiplied by it.
NOISE_MIN = 0.6
#: Size of points (particles, contact points) in pixels at scale 1 (the original: 4).
POINT_SIZE_PX = 4.0
#: Multisample antialiasing: samples per pixel on a graphics processor (fewer if the driver has
#: fewer). On a software rasteriser (Mesa's llvmpipe, softpipe) multisampling costs several
#: times a frame's drawing (at 960 x 720, 4 samples: 33 ms a frame against 6), so there the
#: edges are smoothed by the fringes alone (demo.draw.mesh): POLYCOLLY_MSAA=N overrides.
MSAA_SAMPLES = 4
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "software")


def software_rasteriser() -> bool:
    """Whether the current context draws on the processor (no graphics processor)."""
    renderer = GL.glGetString(GL.GL_RENDERER)
    name = renderer.decode("ascii", "replace").lower() if renderer else ""
    return any(word in name for word in SOFTWARE_RENDERERS)


def default_samples() -> int:
    """Multisampling samples for this context: MSAA_SAMPLES on a graphics processor, 1 (off) on
    a software rasteriser, or what POLYCOLLY_MSAA says."""
    forced = os.environ.get("POLYCOLLY_MSAA", "").strip()
    if forced.isdigit():
        return max(int(forced), 1)
    return 1 if software_rasteriser() else MSAA_SAMPLES


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


def load_program(name: str, shader_dir: Traversable = SHADER_DIR, vertex: str | None = None) -> int:
    """Compile and link shaders/<name>.vert and .frag (``vertex``: another program's .vert);
    ShaderError names the file and has the log."""
    vertex = vertex or name
    vert = _compile(shader_dir / f"{vertex}.vert", GL.GL_VERTEX_SHADER)
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
        files = f"shaders {shader_dir / vertex}.vert and {shader_dir / name}.frag"
        raise ShaderError(f"{files} failed to link:\n{log_text.strip()}")
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
            layout += [(3, 32, 1), (4, 36, 1), (5, 40, 2), (6, 48, 1)]
        elif floats == LINE_QUAD_FLOATS:
            layout += [(3, 32, 1)]
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


def _texture(image: np.ndarray, repeat: bool, smooth: bool = True) -> int:
    """A single-channel float or byte image as a GL_R8 texture, sampled bilinearly (``smooth``)
    or from the nearest texel (an image drawn pixel for pixel: the same picture, cheaper)."""
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
    sampling = GL.GL_LINEAR if smooth else GL.GL_NEAREST
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, sampling)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, sampling)
    return texture


def _texel_texture() -> int:
    """A new texture, bound, read texel for texel: nearest sampling, clamped at the edges."""
    texture = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    for parameter, value in (
        (GL.GL_TEXTURE_MIN_FILTER, GL.GL_NEAREST),
        (GL.GL_TEXTURE_MAG_FILTER, GL.GL_NEAREST),
        (GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE),
        (GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE),
    ):
        GL.glTexParameteri(GL.GL_TEXTURE_2D, parameter, value)
    return texture


_EMPTY = np.zeros((0, VERTEX_FLOATS), dtype=np.float32)
_EMPTY_FILLS = np.zeros((0, FILL_FLOATS), dtype=np.float32)


class ColorTarget:
    """A colour buffer in its own framebuffer object, (re)sized on demand: a multisampled
    renderbuffer of ``samples`` samples per pixel, or with one sample a ``texture`` that
    programs can read."""

    def __init__(self, samples: int) -> None:
        self.samples = samples
        self.size = (0, 0)
        self.fbo = int(GL.glGenFramebuffers(1))
        self.color = int(GL.glGenRenderbuffers(1)) if samples > 1 else 0
        self.texture = _texel_texture() if samples <= 1 else None

    def bind(self, width: int, height: int) -> None:
        """Draw into it from now on, ``width`` x ``height`` pixels."""
        if self.size != (width, height):
            GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.fbo)
            if self.texture is not None:
                bound = GL.glGetIntegerv(GL.GL_TEXTURE_BINDING_2D)  # the caller's, put back
                GL.glBindTexture(GL.GL_TEXTURE_2D, self.texture)
                GL.glTexImage2D(
                    GL.GL_TEXTURE_2D, 0, GL.GL_RGBA8, width, height, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, None
                )
                GL.glBindTexture(GL.GL_TEXTURE_2D, int(bound))
                GL.glFramebufferTexture2D(
                    GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, self.texture, 0
                )
            else:
                GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, self.color)
                GL.glRenderbufferStorageMultisample(
                    GL.GL_RENDERBUFFER, self.samples, GL.GL_RGBA8, width, height
                )
                GL.glFramebufferRenderbuffer(
                    GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, self.color
                )
            self.size = (width, height)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.fbo)


def blit(source: int, target: int, width: int, height: int) -> None:
    """Copy (or, from a multisampled buffer to a plain one, resolve) a whole picture."""
    GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, source)
    GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, target)
    GL.glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL.GL_COLOR_BUFFER_BIT, GL.GL_NEAREST)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, target)


class MultisampleTarget:
    """Where a frame is drawn: a multisampled colour buffer resolved into the real target after
    (whatever the target, a window's framebuffer 0 or an offscreen framebuffer object, so
    antialiasing does not depend on the window system), or with ``samples`` 1 the target itself.
    ``samples``: samples per pixel actually in use.
    """

    def __init__(self, samples: int | None = None) -> None:
        samples = default_samples() if samples is None else samples
        most = int(GL.glGetIntegerv(GL.GL_MAX_SAMPLES))
        self.samples = max(1, min(int(samples), most))
        self.buffer = ColorTarget(self.samples) if self.samples > 1 else None

    def framebuffer(self, target: int) -> int:
        """The framebuffer the frame is drawn into for ``target``."""
        return self.buffer.fbo if self.buffer is not None else target

    def bind(self, width: int, height: int, target: int) -> None:
        """Draw into the frame's buffer (``width`` x ``height``) from now on."""
        if self.buffer is None:
            GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, target)
        else:
            self.buffer.bind(width, height)

    def resolve(self, width: int, height: int, target: int) -> None:
        """Average the samples into ``target`` (the frame's pixels from then on)."""
        if self.buffer is not None:
            blit(self.buffer.fbo, target, width, height)


UNIFORMS = (
    "transform",
    "round_points",
    "noise",
    "point_size",
    "viewport",
    "atlas",
    "outline_px",
    "outline_colors",
    "poses",
    "pose_width",
    "px_world",
    "half_width",
    "backdrop",
)


class Renderer:
    """Owns the programs, buffers and textures; draws a frame with a constant number of calls.

    ``draw_calls`` is the number of draw calls of the last frame, whatever the number of
    bodies: fills, lines, points and text, and the static bodies' picture when it is redrawn
    and (single-sampled) when it is copied in: at most 6.
    """

    def __init__(self, text_scale: int = 1, shader_dir: Traversable = SHADER_DIR) -> None:
        self.programs = {name: load_program(name, shader_dir) for name in ("fill", "line", "text")}
        self.programs["backdrop"] = load_program("backdrop", shader_dir, vertex="fill")
        self._uniform = {
            (name, u): GL.glGetUniformLocation(program, u)
            for name, program in self.programs.items()
            for u in UNIFORMS
        }
        self.streams = {"line": _Stream(LINE_QUAD_FLOATS), "point": _Stream(), "text": _Stream()}
        # Two fill buffers used in turn, each holding the bodies' fills (uploaded when they
        # change) followed by this frame's overlay fills: writing the one the previous frame
        # may still be drawing from would make the driver wait for it.
        self.fill_buffers = [_FillBuffer(), _FillBuffer()]
        self._fill_turn = 0
        self.pose_texture = _texel_texture()  # bound: the pose uploads below fill it
        self._pose_rows = 0
        # Uniforms that never change are set once: a program keeps its uniform values.
        GL.glUseProgram(self.programs["fill"])
        GL.glUniform1i(self._uniform["fill", "noise"], 0)
        GL.glUniform1i(self._uniform["fill", "poses"], 1)
        GL.glUniform1i(self._uniform["fill", "pose_width"], POSE_WIDTH)
        GL.glUniform1f(self._uniform["fill", "outline_px"], OUTLINE_PX)
        GL.glUniform4fv(self._uniform["fill", "outline_colors"], 3, OUTLINE_COLORS)
        GL.glUseProgram(self.programs["backdrop"])
        GL.glUniform1i(self._uniform["backdrop", "backdrop"], 0)
        GL.glUniform1i(self._uniform["backdrop", "poses"], 1)
        GL.glUniform1i(self._uniform["backdrop", "pose_width"], POSE_WIDTH)
        GL.glUseProgram(self.programs["text"])
        GL.glUniform1i(self._uniform["text", "atlas"], 0)
        GL.glUseProgram(0)
        self.noise_texture = _texture(noise_texture(), repeat=True)
        self.text_scale = max(int(text_scale), 1)
        self.atlas = GlyphAtlas(BASE_FONT_PX * self.text_scale)
        self.atlas_texture = _texture(self.atlas.image, repeat=False, smooth=False)
        self.text = TextBatch(self.atlas)
        self.overlay = OverlayBatch()
        #: Drawing happens on the processor (no graphics processor): --profile says so.
        self.software = software_rasteriser()
        self.target = MultisampleTarget()
        #: The static bodies' picture, kept while they, the camera and the framebuffer stay put.
        self.background = ColorTarget(self.target.samples)
        self._background_key: tuple[object, ...] | None = None
        self._last_static_key: bytes | None = None
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
        self.atlas_texture = _texture(self.atlas.image, repeat=False, smooth=False)
        self.text = TextBatch(self.atlas)

    def prime(self, framebuffer: int, width: int, height: int) -> None:
        """Draw a throwaway frame with every batch kind into ``framebuffer`` (the next frame
        clears it): a static and a moving body, an overlay fill, a line, a point and text,
        through the background's path and the clear's.

        A driver compiles the code for a combination of program and state when it is first
        drawn with; a software rasteriser takes tens of milliseconds for each. Priming during
        the start-up frames keeps that out of the scene's first frames.
        """
        mesh = BodyMesh()
        square = np.array([[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]] * 2)
        counts = np.array([4, 4], dtype=np.int64)
        kinds = np.array([KIND_STATIC, KIND_MOVING], dtype=np.int64)
        body_fills = mesh.body_fills(square, counts, kinds)
        poses = mesh.poses(np.array([[3.0, 3.0], [6.0, 6.0]]), np.zeros(2))
        bodies = (body_fills, mesh.version, poses, mesh.static_vertices, mesh.static_key(poses))
        overlay = OverlayBatch()
        overlay.add_polygon(square[0] + 5.0, (1.0, 1.0, 1.0, 0.5), (1.0, 1.0, 1.0, 1.0))
        overlay.add_points(np.array([[5.0, 5.0]]), (1.0, 1.0, 1.0, 1.0))
        self.text.clear()
        self.text.add("polycolly", 0.0, 0.0, (1.0, 1.0, 1.0, 1.0))
        self.text.add_rect(0.0, 0.0, 8.0, 8.0, (0.0, 0.0, 0.0, 0.5))
        text = self.text.vertices()
        camera = Camera((0.0, 0.0, 10.0, 10.0), width, height)
        batches = (overlay.fills(), overlay.lines(), overlay.points(), text)
        for _ in range(2):  # the second time the static bodies are steady: the background's path
            self.draw(framebuffer, width, height, camera, *batches, bodies)
        self.draw(framebuffer, width, height, camera, *batches, None)
        GL.glFinish()
        self._background_key = self._last_static_key = None
        for buffer in self.fill_buffers:
            buffer.version = -1

    def draw_text_only(self, framebuffer: int, width: int, height: int, text: np.ndarray) -> None:
        """Clear and draw only ``text`` (the start-up frame: no world yet)."""
        self.draw(framebuffer, width, height, None, _EMPTY_FILLS, _EMPTY, _EMPTY, text)

    def draw(
        self,
        framebuffer: int,
        width: int,
        height: int,
        camera: Camera | None,
        fills: np.ndarray,
        lines: np.ndarray,
        points: np.ndarray,
        text: np.ndarray,
        bodies: tuple[np.ndarray, int, np.ndarray, int, bytes] | None = None,
    ) -> None:
        """Clear and draw one frame into ``framebuffer`` of ``width`` x ``height`` pixels.

        ``fills`` (world coordinates), ``lines``, ``points``, ``text``: this frame's batches.
        ``bodies``: ``(fills, version, poses, static, static_key)`` from :class:`BodyMesh`
        (``body_fills``, its ``version``, ``poses``, ``static_vertices``, ``static_key``): the
        bodies' fills, re-uploaded only when ``version`` changes, the first ``static`` of them
        (the static bodies) drawn into the background only when ``static_key`` (their poses),
        the version, the camera or the size change; the others in the same call as ``fills``.
        """
        self.draw_calls = 0
        if width <= 0 or height <= 0:
            return  # minimised: nothing to draw into
        GL.glViewport(0, 0, width, height)
        GL.glEnable(GL.GL_BLEND)
        GL.glBlendFunc(GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)
        GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        transform = camera.matrix() if camera is not None else np.identity(4, dtype=np.float32)
        px_world = 1.0 / camera.pixels_per_unit if camera is not None else 0.0

        body_fills, version, poses, static, static_key = (
            bodies if bodies is not None else (fills[:0], -1, None, 0, b"")
        )
        count = 0
        if len(fills) or len(body_fills):
            GL.glUseProgram(self.programs["fill"])
            GL.glUniformMatrix4fv(self._uniform["fill", "transform"], 1, GL.GL_TRUE, transform)
            GL.glUniform1f(self._uniform["fill", "px_world"], px_world)
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
        # The static bodies are drawn once into the background and copied from there every
        # frame (big walls cost a software rasteriser more than everything else together),
        # unless they move from frame to frame (the teaching pairs): then with the others.
        steady = static_key == self._last_static_key
        self._last_static_key = static_key
        if static and steady:
            key = (version, width, height, transform.tobytes(), static_key)
            if key != self._background_key:
                self.background.bind(width, height)
                GL.glClearColor(*BACKGROUND, 1.0)
                GL.glClear(GL.GL_COLOR_BUFFER_BIT)
                GL.glDrawArrays(GL.GL_TRIANGLES, 0, static)
                self.draw_calls += 1
                self._background_key = key
            self.target.bind(width, height, framebuffer)  # sized before it is copied into
            self._copy_background(framebuffer, width, height, static, transform, px_world)
        else:
            self.target.bind(width, height, framebuffer)
            GL.glClearColor(*BACKGROUND, 1.0)
            GL.glClear(GL.GL_COLOR_BUFFER_BIT)
            static = 0
        if count > static:
            GL.glDrawArrays(GL.GL_TRIANGLES, static, count - static)
            self.draw_calls += 1
        if len(lines) or len(points):
            GL.glUseProgram(self.programs["line"])
            GL.glUniformMatrix4fv(self._uniform["line", "transform"], 1, GL.GL_TRUE, transform)
            GL.glUniform1f(self._uniform["line", "point_size"], POINT_SIZE_PX * self.text_scale)
            GL.glUniform1f(self._uniform["line", "px_world"], px_world)
            if len(lines):
                line_px = LINE_PX * self.text_scale
                GL.glUniform1f(self._uniform["line", "half_width"], 0.5 * line_px)
                GL.glUniform1i(self._uniform["line", "round_points"], 0)
                self._draw("line", line_quads(lines, line_px), GL.GL_TRIANGLES)
            if len(points):
                GL.glUniform1i(self._uniform["line", "round_points"], 1)
                self._draw("point", points, GL.GL_POINTS)
        if len(text):
            GL.glUseProgram(self.programs["text"])
            GL.glUniform2f(self._uniform["text", "viewport"], float(width), float(height))
            GL.glActiveTexture(GL.GL_TEXTURE0)
            GL.glBindTexture(GL.GL_TEXTURE_2D, self.atlas_texture)
            self._draw("text", text, GL.GL_TRIANGLES)
        GL.glBindVertexArray(0)
        self.target.resolve(width, height, framebuffer)

    def _copy_background(
        self, framebuffer: int, width: int, height: int, static: int, transform: np.ndarray, px_world: float
    ) -> None:
        """Put the static bodies' picture into the frame being drawn (the fill program in use,
        its first ``static`` vertices the static bodies').

        Multisampled, the whole picture is copied. Else the frame is cleared and only the
        static bodies' own triangles are drawn, each pixel read from the picture: a software
        rasteriser's copy reads every pixel through its general texturing path (5-6 ms at
        1280 x 800, more than the rest of the frame), and most of a frame is no body at all.
        The fill program's vertex shader places them, so they cover the same pixels.
        """
        texture = self.background.texture
        if texture is None:
            blit(self.background.fbo, self.target.framebuffer(framebuffer), width, height)
            return
        GL.glClearColor(*BACKGROUND, 1.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glDisable(GL.GL_BLEND)
        GL.glUseProgram(self.programs["backdrop"])
        GL.glUniformMatrix4fv(self._uniform["backdrop", "transform"], 1, GL.GL_TRUE, transform)
        GL.glUniform1f(self._uniform["backdrop", "px_world"], px_world)
        GL.glUniform2f(self._uniform["backdrop", "viewport"], float(width), float(height))
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, static)
        self.draw_calls += 1
        GL.glBindTexture(GL.GL_TEXTURE_2D, self.noise_texture)
        GL.glUseProgram(self.programs["fill"])
        GL.glEnable(GL.GL_BLEND)

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
