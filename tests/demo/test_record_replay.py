"""--record / --replay: a recording made from live input replays to the same state hash in a
fresh process; a recording whose input was changed is reported as diverged (exit status 1);
a missing or malformed file is one clear message with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from demo.scenes.base import shot_radius

ROOT = Path(__file__).resolve().parents[2]


def _demo(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("DISPLAY", None)  # replays here are headless
    return subprocess.run(
        [sys.executable, "-m", "demo", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _press_then_move(app: Any) -> None:
    """Press fire with the cursor on a moving body, then move the cursor away within the same
    frame: the shot must leave toward where the cursor was at the press, in the replay too (a
    replay that fired at the frame's last cursor would miss that body and diverge)."""
    world = app.world
    turret = np.asarray(app.scene.turret, dtype=np.float64)
    radius = shot_radius(app.scene.view)  # as the program's shots
    targets = [
        world.position[i]
        for i in np.flatnonzero(~np.asarray(world.static))
        if (hit := world.raycast(turret, world.position[i], radius=radius)) is not None
        and not world.static[hit.body]
    ]
    assert targets, "no moving body in the turret's line of fire"
    target = targets[0]
    win_w, win_h = app.ctx.window_size()
    fb_w, fb_h = app.ctx.framebuffer_size()
    px, py = app.camera.world_to_screen(target)
    app.cursor(px * win_w / fb_w, py * win_h / fb_h)
    app.key("X", True)
    app.cursor(1.0, 1.0)


def _record(ctx: Any, path: Path) -> dict[str, Any]:
    """Drive the program with scripted input (attract, repel, bullets, pause and single steps,
    a solver change, a regeneration) for 150 frames and save it with the program's recorder."""
    from demo.app import App
    from demo.run import save_recording

    app = App(ctx, "rigid", seed=5, bodies=30)
    app.recording = []
    w, h = ctx.framebuffer_size()
    script = {
        2: lambda: (app.cursor(0.3 * w, 0.4 * h), app.mouse_button("MOUSE_LEFT", True)),
        30: lambda: app.mouse_button("MOUSE_LEFT", False),
        35: lambda: (app.cursor(0.7 * w, 0.6 * h), app.mouse_button("MOUSE_RIGHT", True)),
        60: lambda: app.mouse_button("MOUSE_RIGHT", False),
        62: lambda: app.key("X", True),
        80: lambda: app.key("X", False),
        85: lambda: app.press("P"),
        86: lambda: app.press("O"),
        87: lambda: app.press("O"),
        88: lambda: app.press("P"),
        95: lambda: app.press("M"),
        100: lambda: app.press("SPACE"),
        110: lambda: app.press("R"),
        112: lambda: (app.cursor(0.5 * w, 0.2 * h), app.mouse_button("MOUSE_LEFT", True)),
        120: lambda: _press_then_move(app),  # after the restart at 110, so its effect lasts
        122: lambda: app.key("X", False),
        140: lambda: app.mouse_button("MOUSE_LEFT", False),
    }
    for frame in range(150):
        if frame in script:
            script[frame]()
        app.frame(1.0 / 60.0 if frame % 7 else 1.0 / 30.0)  # uneven frames: 1 or 2 steps
    args = argparse.Namespace(scene="rigid", seed=5, bodies=30, solver=None, size=(w, h), record=path)
    save_recording(args, app)
    return json.loads(path.read_text())


def test_replay_reproduces_the_recorded_state(ctx: Any, tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    rec = _record(ctx, path)
    assert len(rec["frames"]) == 150 and sum(len(f["events"]) for f in rec["frames"]) >= 20
    done = _demo("--replay", str(path), "--headless")
    assert done.returncode == 0, done.stderr
    assert "matches" in done.stderr and rec["final_state_hash"][:16] in done.stderr

    # The same recording with the attraction's cursor moved: the replay must notice.
    changed = json.loads(path.read_text())
    for frame in changed["frames"]:
        frame["cursor"][0] += 5.0
    bad = tmp_path / "changed.json"
    bad.write_text(json.dumps(changed))
    diverged = _demo("--replay", str(bad), "--headless")
    assert diverged.returncode == 1, diverged.stderr
    assert "diverged" in diverged.stderr and "Traceback" not in diverged.stderr


def test_record_from_the_command_line_then_replay(tmp_path: Path) -> None:
    path = tmp_path / "cli.json"
    made = _demo(
        "--headless",
        "--frames",
        "40",
        "--bodies",
        "12",
        "--seed",
        "2",
        "--solver",
        "tutorial",
        "--record",
        str(path),
    )
    assert made.returncode == 0, made.stderr
    rec = json.loads(path.read_text())
    assert (rec["scene"], rec["seed"], rec["bodies"], rec["solver"], len(rec["frames"])) == (
        "rigid",
        2,
        12,
        "tutorial",
        40,
    )
    done = _demo("--replay", str(path), "--headless")
    assert done.returncode == 0, done.stderr
    rec["final_state_hash"] = "0" * 64
    path.write_text(json.dumps(rec))
    assert _demo("--replay", str(path), "--headless").returncode == 1


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "cannot read"),
        ("{not json", "expected JSON"),
        ("[]", "a version 2 recording"),
        (json.dumps({"version": 2, "scene": "rigid"}), "bodies: missing"),
        (
            json.dumps(
                {
                    "version": 2,
                    "scene": "rigid",
                    "seed": 0,
                    "bodies": None,
                    "solver": "fast",
                    "size": [320, 240],
                    "frames": [],
                    "final_state_hash": "",
                    "final_step_count": 0,
                }
            ),
            "solver: expected null or one of",
        ),
    ],
)
def test_bad_recordings_are_usage_errors(tmp_path: Path, content: str | None, fragment: str) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    done = _demo("--replay", str(path), "--headless", timeout=60)
    assert done.returncode == 2, done.stderr
    assert fragment in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_record_and_replay_exclude_each_other(tmp_path: Path) -> None:
    done = _demo("--record", str(tmp_path / "a"), "--replay", str(tmp_path / "b"), timeout=60)
    assert done.returncode == 2 and "not allowed with" in done.stderr
