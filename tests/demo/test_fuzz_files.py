"""The program's boundary with the user's files and command line, fuzzed in-process (thousands of
cases, derandomized: CI runs the same ones every time).

- Scene files mutated from the example files (tests/demo/hostile.py): each either loads, and its
  world then steps with finite state, or is refused with one SceneFileError line, at most
  safeio.MAX_MESSAGE_CHARS long, that starts with the file's name; never another exception,
  never the catch-all "cannot be used" (which would mean a value escaped our checks).
- Recordings mutated from a real one (made by the program from scripted input): each is
  replayable with every value within its limit, or refused the same way.
- Argument lists: argparse with our option types either accepts them with every number within
  its named limit, or exits with status 2 and one short line.

The end-to-end cases (child processes with time and memory limits) are in test_fuzz_cli_e2e.py.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from demo import options, recording, safeio
from demo.scenes import files
from tests.collision.test_fuzz_common import SETTINGS, count, fuzz_report  # noqa: F401 (module fixture)
from tests.demo import hostile

SCENE_CASES = 1000
RECORDING_CASES = 600
ARGUMENT_CASES = 1000
#: Steps a loaded scene runs: enough for every body to move and touch what it starts against.
STEPS_AFTER_LOADING = 3

EXAMPLES = [json.loads(p.read_text(encoding="utf-8")) for p in hostile.EXAMPLES]


def assert_one_line(message: str, prefix: str) -> None:
    assert "\n" not in message and "\r" not in message, message
    assert len(message) <= safeio.MAX_MESSAGE_CHARS, (len(message), message[:500])
    assert message.startswith(prefix), (prefix, message[:500])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz_files")


# -- scene files --------------------------------------------------------------------------------


@SETTINGS(SCENE_CASES)
@given(data=st.data())
def test_fuzz_scene_files(folder: Path, data: st.DataObject) -> None:
    base = EXAMPLES[data.draw(st.integers(0, len(EXAMPLES) - 1), label="example")]
    case = data.draw(hostile.mutated(base), label="mutation")
    cls, text = case.cls, case.text
    count(f"scene file: {cls.split('+')[0]}")
    raw = text.encode("utf-8", "surrogatepass")
    try:
        files.parse_scene(raw, "scene.json")
    except files.SceneFileError as exc:
        message = str(exc)
        assert_one_line(message, "scene file scene.json: ")
        assert files.CANNOT_BE_USED not in message, message
        return
    # Accepted: load it as the program does, from a file, and run it.
    path = folder / "scene.json"
    path.write_bytes(raw)
    scene = files.load_scene_file(path)
    world = scene.world
    assert 1 <= world.body_count and np.isfinite(world.position).all()
    for _ in range(STEPS_AFTER_LOADING):
        world.step(scene.dt)
    state = np.concatenate(
        [world.position.ravel(), world.velocity.ravel(), world.angle, world.angular_velocity]
    )
    assert np.isfinite(state).all(), text[:300]


# -- recordings ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_recording(gl: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A recording the program made of scripted input (attract, repel, fire, pause, steps, a
    solver change, a regeneration, a restart)."""
    from tests.demo.test_record_replay import _record

    gl.resize(320, 240)
    rec = _record(gl, tmp_path_factory.mktemp("recording") / "run.json")
    # The frames with input and a few without: what the mutations need, at a fifth of the size.
    rec["frames"] = [f for k, f in enumerate(rec["frames"]) if f["events"] or k % 10 == 0]
    return rec


def _check_replayable(rec: dict[str, Any]) -> None:
    assert 1 <= len(rec["frames"]) <= options.MAX_FRAMES
    assert 0 <= rec["seed"] <= options.MAX_SEED
    for frame in rec["frames"]:
        assert 0.0 <= frame["dt"] <= recording.MAX_FRAME_DT
        assert all(math.isfinite(v) and abs(v) <= recording.MAX_WORLD_CURSOR for v in frame["cursor"])
        for event in frame["events"]:
            numbers = [v for v in event[1:] if isinstance(v, float)] + (
                event[4] if event[0] == "input" and len(event) == 5 else []
            )
            assert all(math.isfinite(v) for v in numbers), event


@SETTINGS(RECORDING_CASES)
@given(data=st.data())
def test_fuzz_recordings(real_recording: dict[str, Any], data: st.DataObject) -> None:
    case = data.draw(hostile.mutated(real_recording), label="mutation")
    cls, text = case.cls, case.text
    count(f"replay file: {cls.split('+')[0]}")
    try:
        rec = recording.parse_recording(text.encode("utf-8", "surrogatepass"), "r.json")
    except recording.RecordingError as exc:
        assert_one_line(str(exc), "replay file r.json: ")
        return
    _check_replayable(rec)


def test_the_real_recording_is_accepted(real_recording: dict[str, Any]) -> None:
    rec = recording.parse_recording(json.dumps(real_recording).encode(), "r.json")
    assert rec["frames"] == real_recording["frames"]
    _check_replayable(rec)


# -- argument lists -----------------------------------------------------------------------------


def _parse(argv: list[str]) -> tuple[argparse.Namespace | None, int, str]:
    from demo.__main__ import build_parser

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return build_parser().parse_args(argv), 0, err.getvalue()
        except SystemExit as exc:
            return None, int(exc.code or 0), err.getvalue()


@SETTINGS(ARGUMENT_CASES)
@given(argv=hostile.argument_list())
def test_fuzz_argument_lists(folder: Path, argv: list[str]) -> None:
    argv = [a.replace("{tmp}", str(folder)) for a in argv]
    count("command line: argument lists")
    args, status, stderr = _parse(argv)
    if args is None:
        if status == 0:  # --help
            assert "--help" in argv and stderr == ""
            return
        assert status == 2
        lines = stderr.splitlines()
        assert len(lines) == 1, stderr[:500]
        assert_one_line(lines[0], "python -m demo: error: ")
        return
    assert stderr == ""
    assert args.seed is None or 0 <= args.seed <= options.MAX_SEED
    assert args.bodies is None or 1 <= args.bodies <= options.MAX_BODIES
    assert args.frames is None or 1 <= args.frames <= options.MAX_FRAMES
    assert args.steps is None or 1 <= args.steps <= options.MAX_STEPS
    if args.size is not None:
        assert all(options.MIN_SIZE_PX <= v <= options.MAX_SIZE_PX for v in args.size)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--steps", "1000000000000", "--stats"], "must be at most 1000000"),
        (["--seed", "1" + "0" * 400], "must be at most"),
        (["--seed", "1" + "0" * 5000], "(5001 digits) must be at most"),
        (["--bodies", "1_000"], "is not a whole number"),
        (["--frames", "٣"], "is not a whole number"),
        (["--size", "1" + "0" * 400 + "x10"], "is not WIDTHxHEIGHT"),
        (["--solver", "x" * 100_000], "invalid choice"),
    ],
)
def test_numbers_and_huge_values_on_the_command_line(argv: list[str], expected: str) -> None:
    args, status, stderr = _parse(argv)
    assert args is None and status == 2
    assert_one_line(stderr.rstrip("\n"), "python -m demo: error: ")
    assert expected in stderr
