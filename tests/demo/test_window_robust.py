"""The real window under Xvfb survives what users do to windows: resizing (down to a sliver and
back), minimising, losing focus with a mouse button and a key held, and being closed (the
window manager's WM_DELETE_WINDOW) while it is stepping. The program must exit cleanly, and the
world it leaves must be sound: its --record file replays (offscreen) to the same state hash,
with every body finite and inside the arena.

Not covered: HiDPI scale changes (Xvfb has one fixed scale).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from tests.demo.conftest import window_env

STARTUP_TIMEOUT_S = 180.0


def _xdo(display: str, *args: str, check: bool = True) -> str:
    out = subprocess.run(
        ["xdotool", *args], capture_output=True, text=True, env=dict(os.environ, DISPLAY=display), timeout=60
    )
    if check:
        assert out.returncode == 0, (args, out.stderr)
    return out.stdout.strip()


class _ClientMessage(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("data", ctypes.c_long * 5),
        ("pad", ctypes.c_long * 16),  # XEvent is 24 longs
    ]


def _ask_window_to_close(display: str, window: int) -> None:
    """What a window manager's close button does: send WM_PROTOCOLS / WM_DELETE_WINDOW."""
    xlib = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XInternAtom.restype = ctypes.c_ulong
    xlib.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    xlib.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
    xlib.XFlush.argtypes = [ctypes.c_void_p]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    dpy = xlib.XOpenDisplay(display.encode())
    assert dpy, f"cannot open display {display}"
    try:
        event = _ClientMessage()
        event.type = 33  # ClientMessage
        event.window = window
        event.message_type = xlib.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
        event.format = 32
        event.data[0] = xlib.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
        event.data[1] = 0  # CurrentTime
        assert xlib.XSendEvent(dpy, window, 0, 0, ctypes.byref(event)) != 0
        xlib.XFlush(dpy)
    finally:
        xlib.XCloseDisplay(dpy)


def _replay_offscreen(ctx: Any, recording: dict[str, Any], folder: Path) -> Any:
    from demo.app import App

    # The recording holds the F2 press: its screenshot goes to ``folder``.
    app = App(ctx, recording["scene"], recording["seed"], recording["bodies"], recording["solver"], folder)
    app.replay = deque(recording["frames"])
    for _ in recording["frames"]:
        app.frame()
    return app


def test_window_survives_resize_minimise_focus_loss_and_close(xserver: str, tmp_path: Path, ctx: Any) -> None:
    record = tmp_path / "window.json"
    env = window_env(xserver)
    program = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "demo",
            "--size",
            "640x480",
            "--bodies",
            "150",
            "--record",
            str(record),
            "--screenshot-dir",
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        window = _xdo(xserver, "search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()[0]
        _xdo(xserver, "windowfocus", "--sync", window)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not list(tmp_path.glob("polycolly-*.png")) and time.monotonic() < deadline:
            _xdo(xserver, "key", "F2")  # answered once the scene is on screen (the engine loaded)
            time.sleep(1.0)
        assert list(tmp_path.glob("polycolly-*.png")), "the program never drew a frame"
        _xdo(xserver, "mousemove", "--window", window, "200", "150")
        _xdo(xserver, "mousedown", "1")  # attract, held through everything below
        for w, h in ((320, 240), (1000, 700), (40, 30), (1, 1), (800, 600)):
            _xdo(xserver, "windowsize", window, str(w), str(h))
            time.sleep(0.4)
        _xdo(xserver, "windowminimize", window, check=False)  # no window manager: may be a no-op
        time.sleep(0.4)
        _xdo(xserver, "windowunmap", window)  # hidden: no frames drawn, focus lost, button held
        time.sleep(0.6)
        _xdo(xserver, "windowmap", window)
        _xdo(xserver, "windowfocus", window, check=False)
        _xdo(xserver, "keydown", "x")  # fire, held
        time.sleep(0.5)
        _xdo(xserver, "windowunmap", window)  # focus lost with the key and button down
        _xdo(xserver, "mouseup", "1")
        _xdo(xserver, "keyup", "x")
        time.sleep(0.4)
        _xdo(xserver, "windowmap", window)
        # Hidden windows get about one frame a second (X Present's fallback clock): run shown a while.
        time.sleep(3.0)
        assert program.poll() is None, "the program died"
        _ask_window_to_close(xserver, int(window))
        status = program.wait(timeout=60)
    finally:
        if program.poll() is None:
            program.kill()
        _out, err = program.communicate(timeout=10)
    assert "Traceback" not in err, err
    assert status == 0, err
    recording = json.loads(record.read_text())
    assert len(recording["frames"]) > 20
    assert any(e[0] == "input" and e[1] == "MOUSE_LEFT" for f in recording["frames"] for e in f["events"])

    app = _replay_offscreen(ctx, recording, tmp_path)
    world = app.world
    assert world.state_hash() == recording["final_state_hash"], "the window's run does not replay"
    for name in ("position", "angle", "velocity", "angular_velocity"):
        assert np.isfinite(getattr(world, name)).all()
    x0, y0, x1, y1 = app.scene.bounds
    moving = world.position[~np.asarray(world.static)]
    assert ((moving >= (x0, y0)) & (moving <= (x1, y1))).all(), "a body left the arena"
