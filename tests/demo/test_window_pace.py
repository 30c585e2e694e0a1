"""The window loop's pace in a real window on Xvfb: a scene left alone is paced within its share
of a core (set small here, so that any machine's frames are slowed), and holding the mouse
brings the full rate back. Frames are counted, not timed."""

from __future__ import annotations

import time
from pathlib import Path

from demo.bench.program import ProgramEvents
from tests.demo.conftest import start_program, stop_program, xdotool


def test_a_scene_left_alone_is_paced_within_its_share_until_the_mouse_is_held(
    xserver: str, tmp_path: Path
) -> None:
    from demo.run import IDLE_AFTER_S

    program = start_program(xserver, tmp_path, "--size", "480x360", "--profile", POLYCOLLY_IDLE_SHARE="0.02")
    output = ProgramEvents(program)
    try:
        window = xdotool(xserver, "search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()[0]
        assert output.wait_for("scene_shown", 1, 300.0), "the scene never came on"
        xdotool(xserver, "windowfocus", "--sync", window)
        time.sleep(IDLE_AFTER_S + 1.5)  # left alone
        xdotool(xserver, "mousemove", "--window", window, "240", "180")
        xdotool(xserver, "mousedown", "1")  # attract, held
        time.sleep(1.0)
        xdotool(xserver, "mouseup", "1")
        xdotool(xserver, "key", "Escape")
        assert program.wait(timeout=30) == 0
    finally:
        err = stop_program(program, output.reader)
    assert "Traceback" not in err, err
    report = output.events[-1][1]
    assert report["frame_cpu_ms"] > 0.0
    assert report["idle_frames"] > 0  # left alone: slowed
    # The frames while the mouse was held, and for IDLE_AFTER_S after, ran at the full rate.
    assert report["frames"] - report["idle_frames"] > 0
