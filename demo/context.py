"""OpenGL contexts behind one interface: a glfw window, or an offscreen context.

Offscreen is Mesa's EGL on its surfaceless platform (no display at all; we render into a
framebuffer object), or, when EGL is missing, OSMesa through glfw's null platform. PyOpenGL
decides how to find GL functions when it is first imported (``PYOPENGL_PLATFORM``), so this
module picks the backend *before* anything imports ``OpenGL`` and only imports it afterwards.
Set ``POLYCOLLY_GL_BACKEND=egl`` or ``osmesa`` to force an offscreen backend.

Every failure a user can meet is a :class:`ContextError` with a one-line message.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from typing import Any

import numpy as np

#: The OpenGL version every shader is written for (``#version 330 core``).
GL_REQUIRED = (3, 3)


class ContextError(RuntimeError):
    """No usable OpenGL context; the message is one line a user can act on."""


class NoDisplayError(ContextError):
    """A window was asked for but there is no display to open it on."""


def _gl_version_of(text: str) -> tuple[int, int]:
    """(major, minor) from a GL_VERSION string such as '4.5 (Core Profile) Mesa 22.3.6'."""
    head = text.split()[0] if text.split() else ""
    parts = head.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return (0, 0)


def _current_pyopengl_platform() -> str | None:
    """The platform PyOpenGL already chose, if it was imported before us."""
    if "OpenGL" not in sys.modules:
        return None
    import OpenGL.platform as platform  # noqa: PLC0415 - only when already imported

    name = type(platform.PLATFORM).__name__.lower()
    for known in ("egl", "osmesa", "glx", "wgl", "darwin"):
        if known in name:
            return known
    return name


class Context:
    """What the program needs from a context, whatever its kind.

    ``framebuffer`` is the GL framebuffer object to draw into (0 = the window's own).
    """

    kind = "base"
    framebuffer = 0
    is_window = False

    def framebuffer_size(self) -> tuple[int, int]:
        raise NotImplementedError

    def window_size(self) -> tuple[int, int]:
        return self.framebuffer_size()

    def poll(self) -> None:
        """Deliver pending window-system events (callbacks run here)."""

    def swap(self) -> None:
        """Show the frame (window) or finish it (offscreen)."""

    def should_close(self) -> bool:
        return False

    def key_down(self, name: str) -> bool:
        """Whether key ``name`` (a glfw key name such as "ESCAPE") is held (windows only)."""
        return False

    def refresh_rate(self, default: float) -> float:
        """Frames per second the display shows (``default`` when it does not say, or offscreen)."""
        return default

    def close(self) -> None:
        raise NotImplementedError

    def gl_info(self) -> dict[str, str]:
        from OpenGL import GL  # noqa: PLC0415 - the backend is chosen by now

        def text(name: int) -> str:
            value = GL.glGetString(name)
            return value.decode("ascii", "replace") if value else "?"

        return {"version": text(GL.GL_VERSION), "renderer": text(GL.GL_RENDERER), "backend": self.kind}

    def read_pixels(self) -> np.ndarray:
        """The last drawn frame as an (height, width, 3) uint8 array, top row first."""
        from OpenGL import GL  # noqa: PLC0415

        width, height = self.framebuffer_size()
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self.framebuffer)
        if self.framebuffer == 0:
            GL.glReadBuffer(GL.GL_BACK)
        GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
        data = GL.glReadPixels(0, 0, width, height, GL.GL_RGB, GL.GL_UNSIGNED_BYTE)
        image = np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)
        return image[::-1].copy()

    def _check_version(self) -> None:
        info = self.gl_info()
        if _gl_version_of(info["version"]) < GL_REQUIRED:
            raise ContextError(
                f"OpenGL {GL_REQUIRED[0]}.{GL_REQUIRED[1]} core is needed; found OpenGL {info['version']} "
                f"({info['renderer']}, {self.kind})"
            )


# ----------------------------------------------------------------------------------------------
# Offscreen: a framebuffer object we own, in an EGL or OSMesa context.


class _Framebuffer:
    """A colour renderbuffer in a framebuffer object, resizable."""

    def __init__(self, width: int, height: int) -> None:
        from OpenGL import GL  # noqa: PLC0415

        self.fbo = int(GL.glGenFramebuffers(1))
        self.color = int(GL.glGenRenderbuffers(1))
        self.resize(width, height)

    def resize(self, width: int, height: int) -> None:
        from OpenGL import GL  # noqa: PLC0415

        self.width, self.height = max(int(width), 1), max(int(height), 1)
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, self.color)
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA8, self.width, self.height)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.fbo)
        GL.glFramebufferRenderbuffer(
            GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, self.color
        )
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        if status != GL.GL_FRAMEBUFFER_COMPLETE:
            raise ContextError(
                f"offscreen framebuffer {self.width}x{self.height} is incomplete (status {status:#x})"
            )


class OffscreenContext(Context):
    """An offscreen context of ``width`` x ``height`` pixels; ``resize`` changes it."""

    is_window = False

    def __init__(self, width: int, height: int) -> None:
        self._target: _Framebuffer | None = None
        self._width, self._height = max(int(width), 1), max(int(height), 1)

    def _make_target(self) -> None:
        self._check_version()
        self._target = _Framebuffer(self._width, self._height)
        self.framebuffer = self._target.fbo

    def framebuffer_size(self) -> tuple[int, int]:
        return (self._width, self._height)

    def resize(self, width: int, height: int) -> None:
        """Change the offscreen framebuffer's size in pixels (as a window resize would)."""
        self._width, self._height = max(int(width), 1), max(int(height), 1)
        if self._target is not None:
            self._target.resize(self._width, self._height)

    def swap(self) -> None:
        from OpenGL import GL  # noqa: PLC0415

        # Offscreen there is no swap to wait on; finishing keeps frame timing honest.
        GL.glFinish()


_EGL_SUCCESS = 0x3000
_EGL_NONE = 0x3038
_EGL_RENDERABLE_TYPE = 0x3040
_EGL_OPENGL_BIT = 0x0008
_EGL_SURFACE_TYPE = 0x3033
_EGL_OPENGL_API = 0x30A2
_EGL_CONTEXT_MAJOR_VERSION = 0x3098
_EGL_CONTEXT_MINOR_VERSION = 0x30FB
_EGL_CONTEXT_OPENGL_PROFILE_MASK = 0x30FD
_EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT = 0x0001
_EGL_PLATFORM_SURFACELESS_MESA = 0x31DD


class _EGL:
    """The few EGL entry points we need, through ctypes (no PyOpenGL before the choice)."""

    def __init__(self) -> None:
        path = ctypes.util.find_library("EGL") or "libEGL.so.1"
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise ContextError(f"EGL library not found ({exc})") from None
        self.lib = lib
        vp, i32, u32 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_uint32
        self._bind("eglGetProcAddress", vp, [ctypes.c_char_p])
        self._bind("eglGetError", i32, [])
        self._bind("eglInitialize", u32, [vp, ctypes.POINTER(i32), ctypes.POINTER(i32)])
        self._bind("eglBindAPI", u32, [u32])
        self._bind(
            "eglChooseConfig", u32, [vp, ctypes.POINTER(i32), ctypes.POINTER(vp), i32, ctypes.POINTER(i32)]
        )
        self._bind("eglCreateContext", vp, [vp, vp, vp, ctypes.POINTER(i32)])
        self._bind("eglMakeCurrent", u32, [vp, vp, vp, vp])
        self._bind("eglDestroyContext", u32, [vp, vp])
        self._bind("eglTerminate", u32, [vp])

    def _bind(self, name: str, restype: Any, argtypes: list[Any]) -> None:
        fn = getattr(self.lib, name)
        fn.restype, fn.argtypes = restype, argtypes
        setattr(self, name, fn)

    def error(self, what: str) -> ContextError:
        return ContextError(f"EGL: {what} failed (error {self.eglGetError():#x})")  # type: ignore[attr-defined]


class EGLContext(OffscreenContext):
    """Mesa EGL, surfaceless platform: no display, no window, no surface."""

    kind = "egl"

    def __init__(self, width: int, height: int) -> None:
        super().__init__(width, height)
        egl = _EGL()
        self._egl = egl
        address = egl.eglGetProcAddress(b"eglGetPlatformDisplayEXT")  # type: ignore[attr-defined]
        if not address:
            raise ContextError("EGL: eglGetPlatformDisplayEXT is missing (no Mesa EGL?)")
        get_display = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p)(
            address
        )
        self._display = get_display(_EGL_PLATFORM_SURFACELESS_MESA, None, None)
        if not self._display:
            raise egl.error("surfaceless display")
        major, minor = ctypes.c_int32(), ctypes.c_int32()
        if not egl.eglInitialize(self._display, ctypes.byref(major), ctypes.byref(minor)):  # type: ignore[attr-defined]
            raise egl.error("eglInitialize")
        if not egl.eglBindAPI(_EGL_OPENGL_API):  # type: ignore[attr-defined]
            raise egl.error("eglBindAPI(OpenGL)")
        attrs = (ctypes.c_int32 * 5)(_EGL_RENDERABLE_TYPE, _EGL_OPENGL_BIT, _EGL_SURFACE_TYPE, 0, _EGL_NONE)
        config, count = ctypes.c_void_p(), ctypes.c_int32()
        ok = egl.eglChooseConfig(self._display, attrs, ctypes.byref(config), 1, ctypes.byref(count))  # type: ignore[attr-defined]
        if not ok or count.value < 1:
            raise egl.error("eglChooseConfig (no OpenGL config)")
        ctx_attrs = (ctypes.c_int32 * 7)(
            _EGL_CONTEXT_MAJOR_VERSION,
            GL_REQUIRED[0],
            _EGL_CONTEXT_MINOR_VERSION,
            GL_REQUIRED[1],
            _EGL_CONTEXT_OPENGL_PROFILE_MASK,
            _EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
            _EGL_NONE,
        )
        self._context = egl.eglCreateContext(self._display, config, None, ctx_attrs)  # type: ignore[attr-defined]
        if not self._context:
            raise egl.error(f"creating an OpenGL {GL_REQUIRED[0]}.{GL_REQUIRED[1]} core context")
        if not egl.eglMakeCurrent(self._display, None, None, self._context):  # type: ignore[attr-defined]
            raise egl.error("eglMakeCurrent")
        self._make_target()

    def close(self) -> None:
        if self._context:
            self._egl.eglMakeCurrent(self._display, None, None, None)  # type: ignore[attr-defined]
            self._egl.eglDestroyContext(self._display, self._context)  # type: ignore[attr-defined]
            self._context = None


class OSMesaContext(OffscreenContext):
    """OSMesa through glfw's null platform (a fallback when EGL is unavailable)."""

    kind = "osmesa"

    def __init__(self, width: int, height: int) -> None:
        super().__init__(width, height)
        import glfw  # noqa: PLC0415

        glfw.ERROR_REPORTING = "ignore"
        glfw.init_hint(glfw.PLATFORM, glfw.PLATFORM_NULL)
        if not glfw.init():
            raise ContextError(f"OSMesa: glfw null platform failed: {_glfw_error()}")
        glfw.default_window_hints()
        glfw.window_hint(glfw.CONTEXT_CREATION_API, glfw.OSMESA_CONTEXT_API)
        glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, GL_REQUIRED[0])
        glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, GL_REQUIRED[1])
        glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
        glfw.window_hint(glfw.VISIBLE, False)
        self._window: Any = glfw.create_window(16, 16, "polycolly", None, None)
        if not self._window:
            raise ContextError(
                f"OSMesa: no OpenGL {GL_REQUIRED[0]}.{GL_REQUIRED[1]} core context: {_glfw_error()}"
            )
        glfw.make_context_current(self._window)
        self._make_target()

    def close(self) -> None:
        import glfw  # noqa: PLC0415

        if self._window:
            glfw.destroy_window(self._window)
            self._window = None
            glfw.terminate()


def _glfw_error() -> str:
    import glfw  # noqa: PLC0415

    code, text = glfw.get_error()
    if not code:
        return "no details"
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)


def open_offscreen(width: int, height: int) -> OffscreenContext:
    """An offscreen context: EGL surfaceless, else OSMesa (or what ``POLYCOLLY_GL_BACKEND`` names)."""
    forced = os.environ.get("POLYCOLLY_GL_BACKEND", "").strip().lower()
    already = _current_pyopengl_platform()
    if already is not None:
        if already not in ("egl", "osmesa"):
            raise ContextError(
                f"PyOpenGL was already imported for '{already}'; offscreen needs egl or osmesa"
            )
        order = [already]
    elif forced in ("egl", "osmesa"):
        order = [forced]
    else:
        order = ["egl", "osmesa"]
    reasons = []
    for backend in order:
        if "OpenGL" not in sys.modules:
            os.environ["PYOPENGL_PLATFORM"] = backend
        try:
            if backend == "egl":
                return EGLContext(width, height)
            return OSMesaContext(width, height)
        except ContextError as exc:
            reasons.append(str(exc))
            if "OpenGL" in sys.modules:
                break  # PyOpenGL is now bound to this backend; another cannot be tried
    raise ContextError("no offscreen OpenGL context: " + "; ".join(reasons))


# ----------------------------------------------------------------------------------------------
# A real window.


class WindowContext(Context):
    """A resizable glfw window with an OpenGL 3.3 core context (HiDPI aware)."""

    kind = "window"
    is_window = True

    def __init__(self, width: int, height: int, title: str = "polycolly", visible: bool = True) -> None:
        import glfw  # noqa: PLC0415

        self._glfw = glfw
        glfw.ERROR_REPORTING = "ignore"
        if (
            not os.environ.get("DISPLAY")
            and not os.environ.get("WAYLAND_DISPLAY")
            and sys.platform.startswith("linux")
        ):
            raise NoDisplayError("no display to open a window on (DISPLAY is not set); run with --headless")
        if not glfw.init():
            raise NoDisplayError(f"cannot open a window ({_glfw_error()}); run with --headless")
        glfw.default_window_hints()
        glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, GL_REQUIRED[0])
        glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, GL_REQUIRED[1])
        glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
        glfw.window_hint(glfw.OPENGL_FORWARD_COMPAT, True)
        glfw.window_hint(glfw.RESIZABLE, True)
        glfw.window_hint(glfw.VISIBLE, visible)
        glfw.window_hint(glfw.SCALE_TO_MONITOR, True)
        self.window: Any = glfw.create_window(int(width), int(height), title, None, None)
        if not self.window:
            reason = _glfw_error()
            found = self._probe_version()
            glfw.terminate()
            raise ContextError(f"OpenGL {GL_REQUIRED[0]}.{GL_REQUIRED[1]} core is needed; {found} ({reason})")
        glfw.make_context_current(self.window)
        glfw.swap_interval(1)
        self._check_version()
        # Sizes as the window system last reported them: asking it costs a round trip to the
        # display server (about 0.1 ms on X), and a frame needs them several times.
        fb_w, fb_h = glfw.get_framebuffer_size(self.window)
        win_w, win_h = glfw.get_window_size(self.window)
        self._framebuffer_size = (int(fb_w), int(fb_h))
        self._window_size = (int(win_w), int(win_h))
        self._size_callbacks = (self._on_framebuffer_size, self._on_window_size)  # glfw keeps weak refs
        glfw.set_framebuffer_size_callback(self.window, self._on_framebuffer_size)
        glfw.set_window_size_callback(self.window, self._on_window_size)
        # A key pressed and released between two polls still reads as pressed once (the
        # start-up frames ask for Esc this way, 30 times a second; a quick tap fits between).
        glfw.set_input_mode(self.window, glfw.STICKY_KEYS, glfw.TRUE)

    def _on_framebuffer_size(self, _window: Any, width: int, height: int) -> None:
        self._framebuffer_size = (int(width), int(height))

    def _on_window_size(self, _window: Any, width: int, height: int) -> None:
        self._window_size = (int(width), int(height))

    def _probe_version(self) -> str:
        """What a default context offers, to name it in the error."""
        glfw = self._glfw
        glfw.default_window_hints()
        glfw.window_hint(glfw.VISIBLE, False)
        probe = glfw.create_window(16, 16, "probe", None, None)
        if not probe:
            return "no OpenGL context at all could be created"
        glfw.make_context_current(probe)
        info = self.gl_info()
        glfw.destroy_window(probe)
        return f"found OpenGL {info['version']} ({info['renderer']})"

    def framebuffer_size(self) -> tuple[int, int]:
        """The size in pixels as of the last :meth:`poll` (a resize arrives with the events)."""
        return self._framebuffer_size

    def window_size(self) -> tuple[int, int]:
        return self._window_size

    def poll(self) -> None:
        self._glfw.poll_events()

    def wait_events(self, seconds: float) -> None:
        """Process the window's events as they come, for at most ``seconds``."""
        self._glfw.wait_events_timeout(max(seconds, 0.0))

    def swap(self) -> None:
        self._glfw.swap_buffers(self.window)

    def should_close(self) -> bool:
        return bool(self._glfw.window_should_close(self.window))

    def key_down(self, name: str) -> bool:
        """Whether key ``name`` is held, or was pressed since it was last asked about."""
        return self._glfw.get_key(self.window, getattr(self._glfw, f"KEY_{name}")) == self._glfw.PRESS

    def refresh_rate(self, default: float) -> float:
        """The primary monitor's refresh rate, if it says one of at least ``default``."""
        monitor = self._glfw.get_primary_monitor()
        mode = self._glfw.get_video_mode(monitor) if monitor else None
        rate = float(getattr(mode, "refresh_rate", 0) or 0)
        return rate if rate >= default else default

    def request_close(self) -> None:
        self._glfw.set_window_should_close(self.window, True)

    def close(self) -> None:
        if self.window:
            self._glfw.destroy_window(self.window)
            self.window = None
            self._glfw.terminate()


def text_scale(ctx: Context) -> int:
    """Framebuffer pixels per window pixel (2 on a HiDPI screen), at least 1."""
    fb_w, _ = ctx.framebuffer_size()
    win_w, _ = ctx.window_size()
    return max(1, round(fb_w / max(win_w, 1)))


def open_context(headless: bool, width: int, height: int, title: str = "polycolly") -> Context:
    """A window, or with ``headless`` an offscreen context, of ``width`` x ``height``."""
    if headless:
        return open_offscreen(width, height)
    return WindowContext(width, height, title)
