"""End to end: `python -m demo` in a real glfw window on Xvfb, driven by xdotool.

F2 saves what the window shows; `p` must bring the help overlay back (it fades at start-up).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from demo.bench.program import ProgramEvents
from tests.demo.conftest import start_program, stop_program, window_env, xdotool

STARTUP_TIMEOUT_S = 300.0  # a cold run compiles the engine first


@pytest.fixture()
def display(xserver: str) -> str:
    """A fresh Xvfb server (tests/demo/conftest.py)."""
    return xserver


def _xdotool(display: str, *args: str) -> str:
    return xdotool(display, *args, timeout=STARTUP_TIMEOUT_S)


def _wait_for_png(folder: Path, count: int, timeout: float) -> list[Path]:
    """The first ``count`` screenshots in ``folder``, once each is whole: the program reserves a
    screenshot's name with an empty file, then renames the written picture over it (on a busy
    machine the picture can take longer than a fixed pause)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shots = sorted(folder.glob("polycolly-*.png"))
        if len(shots) >= count and all(shot.stat().st_size > 0 for shot in shots):
            return shots
        time.sleep(0.1)
    raise AssertionError(f"no screenshot {count} after {timeout} s")


def _help_pixels(path: Path) -> int:
    from PIL import Image

    image = np.asarray(Image.open(path).convert("RGB"))
    height, width, _ = image.shape
    # Below the turret (under the arena's ceiling, white too), right of the middle: the help.
    region = image[int(0.2 * height) : int(0.85 * height), width // 2 :]
    return int(np.count_nonzero((region > 200).all(axis=2)))


def test_window_pause_shows_the_help(display: str, tmp_path: Path) -> None:
    program = start_program(display, tmp_path, "--size", "640x480")
    try:
        window = _xdotool(display, "search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()[0]
        _xdotool(display, "windowfocus", "--sync", window)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not list(tmp_path.glob("polycolly-*.png")) and time.monotonic() < deadline:
            _xdotool(display, "key", "F2")  # answered once the scene is on screen
            time.sleep(1.0)
        _wait_for_png(tmp_path, 1, 10)
        # The first input takes the help away (it fades over half a second).
        _xdotool(display, "mousemove", "--window", window, "320", "240", "click", "1")
        time.sleep(1.5)
        _xdotool(display, "key", "F2")
        faded = _wait_for_png(tmp_path, 2, 30)[-1]
        _xdotool(display, "key", "p")
        time.sleep(0.5)
        _xdotool(display, "key", "F2")
        paused = _wait_for_png(tmp_path, 3, 30)[-1]
        assert _help_pixels(faded) < 50
        assert _help_pixels(paused) > 500
        _xdotool(display, "key", "Escape")
        assert program.wait(timeout=30) == 0
    finally:
        if program.poll() is None:
            program.kill()
        out, err = program.communicate(timeout=10)
    assert "Traceback" not in err, err


def test_window_frames_and_screenshot(display: str, tmp_path: Path) -> None:
    from PIL import Image

    env = window_env(display)
    shot = tmp_path / "window.png"
    result = subprocess.run(
        [sys.executable, "-m", "demo", "--size", "320x240", "--frames", "20", "--screenshot", str(shot)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT_S,
    )
    assert result.returncode == 0, result.stderr
    image = np.asarray(Image.open(shot).convert("RGB"))
    assert image.shape == (240, 320, 3)
    assert (image == [51, 51, 51]).all(axis=2).any()  # the background: a real frame, not garbage


def _shown(output: ProgramEvents, name: str) -> bool:
    """Wait until scene ``name`` has come on screen; whether it did."""

    def came(events: list[dict]) -> bool:
        return any(event.get("scene_shown") == name for event in events)

    return output.wait_until(came, STARTUP_TIMEOUT_S)


def test_every_scene_tab_passes_is_drawn(display: str, tmp_path: Path) -> None:
    """Tab pressed faster than scenes are built: each scene passed is still drawn, in order
    (the scene after it is not shown until it has been), and the last one asked for stays."""

    from demo import catalog

    program = start_program(display, tmp_path, "--size", "480x360", "--profile")
    names = catalog.scene_names()[:5]  # rigid, then four Tabs
    output = ProgramEvents(program)
    try:
        window = _xdotool(display, "search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()[0]
        assert _shown(output, names[0]), "the first scene never came on"
        _xdotool(display, "windowfocus", "--sync", window)
        _xdotool(display, "key", "--delay", "20", *["Tab"] * (len(names) - 1))
        assert _shown(output, names[-1]), f"{names[-1]} never came on"
        _xdotool(display, "key", "Escape")
        assert program.wait(timeout=30) == 0
    finally:
        err = stop_program(program, output.reader)
    events = [event for _, event in output.events]
    assert "Traceback" not in err, err
    shown = [event["scene_shown"] for event in events if "scene_shown" in event]
    assert shown == names, shown
    report = events[-1]
    assert report["scene"] == names[-1]
    assert [scene for _, scene in report["scenes_shown"]] == names
