"""Hostile command lines and scene files: one clear message on stderr, exit status 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.demo.test_cli import run_demo

GOOD_BODY = {"shape": {"type": "box", "width": 2, "height": 1}, "position": [50, 50]}


def _message(result: object) -> str:
    """The one line a user sees (numba's first-run notice aside); asserts status 2, no traceback."""
    stderr: str = result.stderr  # type: ignore[attr-defined]
    assert "Traceback" not in stderr, stderr
    assert result.returncode == 2, (result.returncode, stderr)  # type: ignore[attr-defined]
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("compiling")]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["--bodies", "-3"], "-3 must be at least 1"),
        (["--bodies", "abc"], "'abc' is not a whole number"),
        (["--bodies", "1e3"], "'1e3' is not a whole number"),
        (["--bodies", ""], "'' is not a whole number"),
        (["--size", "0x0"], "within 16..8192"),
        (["--size", "10"], "is not WIDTHxHEIGHT"),
        (["--size", "99999x99999"], "within 16..8192"),
        (["--size", "axb"], "is not WIDTHxHEIGHT"),
        (["--seed", "x"], "'x' is not a whole number"),
        (["--seed", "-1"], "-1 must be at least 0"),
        (["--frames", "-1"], "-1 must be at least 1"),
        (["--frames", "0"], "0 must be at least 1"),
        (["--steps", "0", "--stats"], "0 must be at least 1"),
        (["--solver", "fast"], "invalid choice: 'fast'"),
        (["--bodies"], "expected one argument"),
        (["--record", "a.json", "--replay", "b.json"], "not allowed with argument"),
        (["--scene", "nope", "--headless"], "rigid"),
        (["--scene", "rigid", "--headless", "--bodies", "2", "--frames", "1"], "5..999"),
    ],
)
def test_bad_options(args: list[str], expected: str, tmp_path: Path) -> None:
    line = _message(run_demo(*args, cwd=tmp_path))
    assert line.startswith("python -m demo:"), line
    assert expected in line, line


def _scene_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scene.json"
    path.write_text(text, encoding="utf-8")
    return path


def _body(shape: dict[str, object], **extra: object) -> str:
    return json.dumps({"bodies": [{"shape": shape, "position": [50, 50], **extra}]})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{", "expected JSON"),
        ("", "expected JSON"),
        ("\xff\xfe not text", ""),
        ("[1, 2]", "a JSON object"),
        ('{"bodies": "many"}', "bodies"),
        (_body({"type": "polygon", "vertices": [[0, 0], [4, 0], [2, 1], [4, 4], [0, 4]]}), "convex"),
        (_body({"type": "polygon", "vertices": [[10 * i, i * i] for i in range(40)]}), "bodies[0].shape"),
        (_body({"type": "box", "width": 1e999, "height": 1}), "bodies[0].shape"),  # parses as inf
        ('{"bodies": [{"shape": {"type": "box", "width": NaN, "height": 1}, "position": [0, 0]}]}', "width"),
        (_body({"type": "box", "width": 1, "height": 1}, density=-2), "density"),
        (_body({"type": "box", "width": 1, "height": 1}, position=[1e308, 1e308]), "position"),
        (_body({"type": "regular", "sides": 1000, "radius": 1}), "sides"),
    ],
)
def test_bad_scene_files(text: str, expected: str, tmp_path: Path) -> None:
    path = _scene_file(tmp_path, text)
    for mode in (["--headless", "--frames", "1"], ["--stats", "--steps", "1"]):
        line = _message(run_demo("--scene", str(path), *mode, cwd=tmp_path))
        assert str(path) in line and expected in line, line


def test_missing_scene_file(tmp_path: Path) -> None:
    line = _message(run_demo("--scene", str(tmp_path / "gone.json"), "--headless", cwd=tmp_path))
    assert "gone.json" in line


def test_scene_file_that_is_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "dir.json"
    folder.mkdir()
    line = _message(run_demo("--scene", str(folder), "--headless", cwd=tmp_path))
    assert "dir.json" in line


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, "cannot read"),
        ("{", "expected JSON"),
        ('{"version": 1}', "a version 2 recording"),
        ('{"version": 2}', "missing"),
    ],
)
def test_bad_replay_files(text: str | None, expected: str, tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    line = _message(run_demo("--headless", "--replay", str(path), cwd=tmp_path))
    assert "run.json" in line and expected in line, line


def test_unwritable_screenshot_and_record_paths(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    for option in ("--screenshot", "--record"):
        target = str(blocker / "out.png")
        line = _message(run_demo("--headless", "--frames", "1", option, target, cwd=tmp_path))
        assert target in line, line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--steps", "100"], "without --stats it would do nothing"),
        (["--stats", "--steps", "5", "--record", "r.json"], "--stats draws nothing: --record"),
        (["--stats", "--steps", "5", "--screenshot", "s.png"], "--stats draws nothing: --screenshot"),
        (["--stats", "--steps", "5", "--frames", "3"], "--stats draws nothing: --frames"),
        (["--stats", "--steps", "5", "--profile"], "--stats draws nothing: --profile"),
        (["--scene", "sat", "--bodies", "50", "--headless"], "scene sat has a fixed number of bodies"),
        (["--scene", "pyramid", "--seed", "3", "--headless"], "not built at random"),
        (["--scene", "sat", "--solver", "arcade", "--headless"], "no moving bodies"),
        (["--scene", "dominoes", "--bodies", "5", "--headless"], "has the bodies it lists"),
        (["--list-scenes", "--scene", "sat"], "--list-scenes prints and exits: --scene"),
        (["--controls-markdown", "--headless"], "--controls-markdown prints and exits: --headless"),
        (["--replay", "r.json", "--scene", "sat", "--headless"], "drop --scene"),
        (["--headless", "--screenshot-dir", "shots"], "F2 needs a window"),
    ],
)
def test_an_option_that_would_do_nothing_is_refused(args: list[str], expected: str, tmp_path: Path) -> None:
    result = run_demo(*args, cwd=tmp_path)
    assert result.returncode == 2
    line = _message(result)
    assert expected in line, line
    assert not list(tmp_path.iterdir()), "nothing written"


def test_example_scene_files_by_name(tmp_path: Path) -> None:
    result = run_demo("--scene", "dominoes", "--headless", "--frames", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    listed = run_demo("--list-scenes", cwd=tmp_path).stdout
    assert "dominoes" in listed.splitlines()[-1]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--steps", "1000000000000"], "--steps: 1000000000000 must be at most 1000000"),
        (["--steps", "0"], "--steps: 0 must be at least 1"),
        (["--steps", "9" * 5000], "(5000 digits) must be at most"),
        (["--vs", "pymunk", "--rounds", "1000000000000"], "--rounds: 1000000000000 must be at most 100"),
        (["--vs", "x" * 100_000], "invalid choice"),
        (["y" * 100_000], "choose from pyramid"),
    ],
)
def test_bench_command_line_numbers_and_names(
    args: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m demo bench` refuses before it allocates or runs anything (--steps of 10^12 was
    a 7 TiB allocation): exit status 2 and a short last line naming the option."""
    from demo.bench import cli  # noqa: PLC0415 - the bench imports the engine

    with pytest.raises(SystemExit) as done:
        cli.main(args)
    assert done.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert expected in last and len(last) <= 500, last


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--pairs", "1000000000000"], "--pairs: '1000000000000': must be a whole number in 1..1000000"),
        (["--pairs", "0"], "--pairs: '0'"),
        (["--repeats", "1000000000000"], "--repeats"),
        (["--calls", "-5"], "--calls: '-5'"),
        (["--calls", "9" * 5000], "--calls: '999"),
    ],
)
def test_engine_bench_command_line_numbers(
    args: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m collision.bench` refuses counts it could not hold or finish (--pairs of 10^12
    was a 14.6 TiB allocation, --pairs 0 a traceback)."""
    from collision import bench  # noqa: PLC0415

    with pytest.raises(SystemExit) as done:
        bench.main(args)
    assert done.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert expected in last and len(last) <= 500, last
