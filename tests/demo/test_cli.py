"""The command line: clear one-line errors with exit status 2, JSON measurements, headless frames."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from demo import scenes

ROOT = Path(__file__).resolve().parents[2]


def run_demo(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ if env is None else env)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "demo", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=full_env,
        timeout=timeout,
    )


def _one_clear_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("compiling")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_controls_markdown_prints_the_table() -> None:
    result = run_demo("--controls-markdown")
    assert result.returncode == 0
    assert result.stdout == scenes.controls_markdown()


def test_list_scenes() -> None:
    result = run_demo("--list-scenes")
    assert result.returncode == 0
    *names, examples = result.stdout.splitlines()
    assert [line.split()[0] for line in names] == scenes.scene_names()
    assert examples.startswith("example scene files (--scene NAME): ")
    assert examples.split(": ", 1)[1].split(", ") == ["arcade-pit", "carousel", "dominoes", "stairs"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--scene", "nope", "--headless"], "rigid"),
        (["--size", "10xfoo"], "WIDTHxHEIGHT"),
        (["--bodies", "0"], "at least 1"),
        (["--seed", "-3"], "at least 0"),
        (["--frobnicate"], "unrecognized"),
        (["--stats", "--headless"], "--steps"),
        (["--headless", "--bodies", "5000", "--frames", "1"], "5..999"),
    ],
)
def test_bad_arguments_give_one_line_and_status_2(args: list[str], expected: str) -> None:
    result = run_demo(*args)
    assert result.returncode == 2
    assert expected in _one_clear_line(result)


def test_no_display_suggests_headless(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = run_demo("--frames", "1", env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert "--headless" in _one_clear_line(result)


def test_stats_prints_one_reproducible_json_object() -> None:
    result = run_demo("--scene", "rigid", "--headless", "--steps", "40", "--stats", "--seed", "4")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert stats["scene"] == "rigid" and stats["steps"] == 40 and stats["bodies"] == 20
    assert stats["nan"] is False and stats["escaped"] == 0
    # The same run in this process gives the same bits.
    assert stats["state_hash"] == scenes.run_stats(scenes.build_scene("rigid", 4), 40)["state_hash"]


def test_headless_frames_screenshot_and_profile(tmp_path: Path) -> None:
    from PIL import Image

    shot = tmp_path / "shot.png"
    result = run_demo(
        "--headless",
        "--frames",
        "3",
        "--size",
        "200x150",
        "--screenshot",
        str(shot),
        "--profile",
        cwd=tmp_path,
    )
    if (
        result.returncode != 0
        and "no offscreen OpenGL" in result.stderr
        and not os.environ.get("POLYCOLLY_REQUIRE_GL")
    ):
        pytest.skip(result.stderr.strip())
    assert result.returncode == 0, result.stderr
    assert Image.open(shot).size == (200, 150)
    profile: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    for key in (
        "startup_s",
        "frame_ms_median",
        "physics_ms_median",
        "draw_ms_median",
        "draw_calls_per_frame",
    ):
        assert profile[key] is not None, key
    assert profile["frames"] == 3
    assert 1 <= profile["draw_calls_per_frame"] <= 6  # 4, and the static bodies' picture drawn and copied
