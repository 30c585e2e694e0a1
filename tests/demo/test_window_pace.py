"""The window loop's pace in a real window on Xvfb: a scene left alone is paced within its share
of a core (set small here, so that any machine's frames are slowed), and holding the mouse
brings the full rate back. Frames are counted, not timed."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

from tests.demo.conftest import start_program, stop_program

STARTUP_TIMEOUT_S = 300.0  # a cold run compiles the engine first


def _xdotool(display: str, *args: str) -> str:
    out = subprocess.run(
        ["xdotool", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, DISPLAY=display),
        timeout=STARTUP_TIMEOUT_S,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_scene_left_alone_is_paced_within_its_share_until_the_mouse_is_held(
    xserver: str, tmp_path: Path
) -> None:
    from demo.run import IDLE_AFTER_S

    program = start_program(xserver, tmp_path, "--size", "480x360", "--profile", POLYCOLLY_IDLE_SHARE="0.02")
    events: list[dict] = []
    shown = threading.Event()

    def read() -> None:
        assert program.stdout is not None
        for line in program.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            events.append(event)
            if "scene_shown" in event:
                shown.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        window = _xdotool(xserver, "search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()[0]
        assert shown.wait(STARTUP_TIMEOUT_S), "the scene never came on"
        _xdotool(xserver, "windowfocus", "--sync", window)
        time.sleep(IDLE_AFTER_S + 1.5)  # left alone
        _xdotool(xserver, "mousemove", "--window", window, "240", "180")
        _xdotool(xserver, "mousedown", "1")  # attract, held
        time.sleep(1.0)
        _xdotool(xserver, "mouseup", "1")
        _xdotool(xserver, "key", "Escape")
        assert program.wait(timeout=30) == 0
    finally:
        err = stop_program(program, reader)
    assert "Traceback" not in err, err
    report = events[-1]
    assert report["frame_cpu_ms"] > 0.0
    assert report["idle_frames"] > 0  # left alone: slowed
    # The frames while the mouse was held, and for IDLE_AFTER_S after, ran at the full rate.
    assert report["frames"] - report["idle_frames"] > 0
