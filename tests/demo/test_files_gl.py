"""The running program and the user's files (offscreen GL): reloading (`l`) a scene file that turned
hostile keeps the running scene and says why on screen; screenshots never lose a file: F2 never
replaces one, and a picture whose write fails partway leaves the file that was there.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from demo import safeio

FRAME_S = 1.0 / 60.0
BODY = {"shape": {"type": "box", "width": 1, "height": 1}, "position": [0, 2]}


def _crowd(n: int) -> str:
    return json.dumps({"bodies": [{**BODY, "position": [0, 0]}] * n})


#: What the file becomes, and a piece of the message the program must show.
HOSTILE_CONTENTS: list[tuple[str, Any, str]] = [
    ("deep nesting", '{"bodies": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested more than"),
    ("400-digit integer", '{"bodies": [], "dt": 1' + "0" * 400 + "}", "(401 digits)"),
    ("5000-digit integer", '{"bodies": [], "dt": 1' + "0" * 5000 + "}", "(5001 digits)"),
    (
        "beyond float range",
        '{"bodies": [{"shape": {"type": "box", "width": 1e400, "height": 1}, "position": [0, 0]}]}',
        "got 1e400",
    ),
    (
        "NaN",
        '{"bodies": [{"shape": {"type": "box", "width": NaN, "height": 1}, "position": [0, 0]}]}',
        "bodies[0].shape.width",
    ),
    ("crowd at one point", _crowd(1500), "overlapping where they start"),
    ("too many bodies", _crowd(2500), "a list of 1..2000 bodies"),
    ("larger than the limit", " " * 4_100_000 + "{}", "more than the 4000000"),
    ("not UTF-8", b"\xff\xfe{", "expected UTF-8"),
    ("lone surrogate", '{"bodies": [], "description": "\\ud800"}', "bodies"),
    ("a pipe", "fifo", "a pipe (FIFO)"),
    ("a device", ("symlink", "/dev/zero"), "a device"),
    ("a folder", "folder", "a folder"),
    ("gone", None, "No such file"),
]


@pytest.mark.parametrize(
    ("what", "content", "expected"), HOSTILE_CONTENTS, ids=[c[0] for c in HOSTILE_CONTENTS]
)
def test_reload_of_a_hostile_file_keeps_the_scene(
    make_app: Any, tmp_path: Path, what: str, content: Any, expected: str
) -> None:
    path = tmp_path / "live.json"
    path.write_text(json.dumps({"bodies": [BODY]}), encoding="utf-8")
    app = make_app()
    app.load_scene(str(path))
    app.frame(FRAME_S)
    world, steps = app.world, app.world.step_count
    path.unlink()
    if content == "fifo":
        os.mkfifo(path)
    elif content == "folder":
        path.mkdir()
    elif isinstance(content, tuple):
        path.symlink_to(content[1])
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    app.press("L")
    app.frame(FRAME_S)
    assert app.world is world, f"{what}: the program keeps the scene it had"
    message = app.message
    assert message.startswith(f"scene file {path}: ") and expected in message, message[:500]
    assert "\n" not in message and len(message) <= safeio.MAX_MESSAGE_CHARS
    assert app.hud_content().message == message  # on screen
    app.frame(FRAME_S)
    assert app.world.step_count > steps, "the scene keeps running"


def _old_picture(path: Path) -> bytes:
    Image.new("RGB", (4, 4), (1, 2, 3)).save(path)
    return path.read_bytes()


def test_a_screenshot_that_fails_partway_keeps_the_old_file(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picture writer fails after writing part of the file (as a full disk makes it fail):
    the file that was there is as it was, no temporary file is left, and the message names it.
    (test_fuzz_cli_e2e makes the same failure real, with RLIMIT_FSIZE.)"""
    target = tmp_path / "shot.png"
    old = _old_picture(target)
    app = make_app()
    app.frame(FRAME_S)

    def half_then_fail(self: Image.Image, fp: Any, format: str | None = None, **params: Any) -> None:  # noqa: A002
        fp.write(b"\x89PNG\r\n\x1a\n" + b"\0" * 1000)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Image.Image, "save", half_then_fail)
    with pytest.raises(ValueError, match="No space left on device") as info:
        app.save_screenshot(target)
    assert str(target) in str(info.value)
    assert target.read_bytes() == old
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_screenshots_replace_a_named_file_and_say_so(make_app: Any, tmp_path: Path) -> None:
    target = tmp_path / "shot.png"
    old = _old_picture(target)
    app = make_app()
    app.frame(FRAME_S)
    app.save_screenshot(target)
    assert target.read_bytes() != old and Image.open(target).size == app.ctx.framebuffer_size()
    assert "(replaced the file that was there)" in app.out.getvalue()


def test_f2_never_replaces_a_file(make_app: Any, tmp_path: Path) -> None:
    """F2 names its pictures by the time and a counter that starts at 1 in every run: a picture
    an earlier run saved in the same second must not be replaced."""
    now = time.time()
    earlier = [
        tmp_path / f"polycolly-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now + s))}-001.png"
        for s in range(3)
    ]
    for path in earlier:
        path.write_bytes(b"an earlier run's picture")
    app = make_app()
    app.frame(FRAME_S)
    saved = app.save_screenshot()
    assert saved not in earlier and saved.parent == tmp_path
    assert Image.open(saved).size == app.ctx.framebuffer_size()
    assert all(path.read_bytes() == b"an earlier run's picture" for path in earlier)


def test_f2_into_a_folder_it_cannot_write(make_app: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    app = make_app()
    app.screenshot_dir = blocker / "shots"
    app.press("F2")
    app.frame(FRAME_S)
    assert str(blocker) in app.message and "cannot write it" in app.message
    assert app.running
