"""Fixtures for the program's tests.

``gl`` is one offscreen OpenGL context for the whole session (EGL surfaceless, else OSMesa).
Without one the GL tests skip, unless POLYCOLLY_REQUIRE_GL is set (CI sets it): then they fail.
Nothing here imports OpenGL before the context module has chosen PyOpenGL's platform.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest


def _require_gl() -> bool:
    return os.environ.get("POLYCOLLY_REQUIRE_GL", "") not in ("", "0")


@pytest.fixture(scope="session")
def gl() -> Iterator[Any]:
    from demo.context import ContextError, open_offscreen

    try:
        ctx = open_offscreen(320, 240)
    except ContextError as exc:
        if _require_gl():
            pytest.fail(f"POLYCOLLY_REQUIRE_GL is set but no offscreen OpenGL context: {exc}")
        pytest.skip(f"no offscreen OpenGL context: {exc}")
    yield ctx
    ctx.close()


@pytest.fixture()
def ctx(gl: Any) -> Iterator[Any]:
    """The session context, reset to 320 x 240 for each test."""
    gl.resize(320, 240)
    yield gl


def simple_scene(
    bodies: list[tuple],
    gravity: tuple[float, float] = (0.0, 0.0),
    solver: str = "iterative",
    turret: tuple[float, float] = (50.0, 5.0),
) -> Any:
    """A Scene over the view (0, 0, 100, 100) with the given bodies.

    ``bodies``: (Polygon, position, static) triples.
    """
    from collision import World
    from demo.scenes import Scene

    world = World(gravity=gravity, solver=solver)
    for shape, position, static in bodies:
        world.add_body(shape, position, static=static)
    return Scene(
        name="test",
        world=world,
        view=(0.0, 0.0, 100.0, 100.0),
        bounds=(0.0, 0.0, 100.0, 100.0),
        seed=0,
        bodies=world.body_count,
        turret=turret,
    )


@pytest.fixture()
def make_app(ctx: Any, tmp_path: Any) -> Any:
    """Build an App on the offscreen context, on a given Scene (or the rigid scene)."""
    import io

    def make(scene: Any = None, **kwargs: Any) -> Any:
        from demo.app import App

        app = App(ctx, screenshot_dir=tmp_path, out=io.StringIO(), **kwargs)
        if scene is not None:
            app.use_scene(scene)
        return app

    return make


def window_env(display: str, **extra: str) -> dict[str, str]:
    """The environment for running this tree's program on X ``display`` (``extra``: more
    variables, such as NUMBA_CACHE_DIR)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, DISPLAY=display, **extra)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("PYOPENGL_PLATFORM", None)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def start_program(display: str, folder: Any, *args: str, **env: str) -> subprocess.Popen[str]:
    """``python -m demo ARGS`` of this tree in a window on X ``display``, started in ``folder``
    (where F2 saves too), its output piped as text; ``env``: more environment variables."""
    return subprocess.Popen(
        [sys.executable, "-m", "demo", *args, "--screenshot-dir", str(folder)],
        cwd=folder,
        env=window_env(display, **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def xdotool(display: str, *args: str, timeout: float = 300.0) -> str:
    """Run ``xdotool ARGS`` on X ``display``; its output (it must succeed)."""
    out = subprocess.run(
        ["xdotool", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, DISPLAY=display),
        timeout=timeout,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def stop_program(program: subprocess.Popen[str], reader: Any) -> str:
    """End ``program`` if it still runs, let the thread ``reader`` of its output finish; its
    error output."""
    if program.poll() is None:
        program.kill()
    reader.join(timeout=10)
    return program.stderr.read() if program.stderr is not None else ""


def _missing(reason: str) -> None:
    """Skip, or fail when CI asks for GL (and so for the X tools) with POLYCOLLY_REQUIRE_GL."""
    if _require_gl():
        pytest.fail(f"POLYCOLLY_REQUIRE_GL is set but {reason}")
    pytest.skip(reason)


@pytest.fixture()
def xserver() -> Iterator[str]:
    """A fresh Xvfb server on a free display number (Xvfb picks it: -displayfd); its name."""
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed")
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    number = server.stdout.readline().strip()
    if not number.isdigit():
        server.kill()
        _missing("Xvfb did not start")
    try:
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)
