"""demo.safeio: bounded reads that refuse pipes and devices, JSON with depth and digit limits,
atomic writes that survive a failure partway (a writer that raises, and a real EFBIG from
RLIMIT_FSIZE in a child process), new-file writes that never replace, short messages.
GL-free.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from demo import safeio

ROOT = Path(__file__).resolve().parents[2]


# -- reading ------------------------------------------------------------------------------------


def test_reads_a_regular_file_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 1000)
    assert safeio.read_regular(path, 1000) == b"x" * 1000
    with pytest.raises(safeio.FileProblem, match="more than the 999 accepted"):
        safeio.read_regular(path, 999)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "scene.json"
    os.mkfifo(fifo)
    # Nobody writes to the pipe: opening it for reading in the usual way would block for ever.
    with pytest.raises(safeio.FileProblem, match=r"a pipe \(FIFO\), not a file"):
        safeio.read_regular(fifo, 100)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_symlink_to_dev_zero_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    assert link.stat().st_size == 0  # stat says empty: a size check alone would let it through
    with pytest.raises(safeio.FileProblem, match="a device, not a file"):
        safeio.read_regular(link, 4_000_000)


def test_folders_missing_files_and_bad_names(tmp_path: Path) -> None:
    with pytest.raises(safeio.FileProblem, match="a folder, not a file"):
        safeio.read_regular(tmp_path, 100)
    with pytest.raises(safeio.FileProblem, match="No such file"):
        safeio.read_regular(tmp_path / "gone.json", 100)
    with pytest.raises(safeio.FileProblem, match="not a valid path"):
        safeio.read_regular(str(tmp_path / "a\x00b"), 100)
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    with pytest.raises(safeio.FileProblem, match="cannot read it"):
        safeio.read_regular(loop, 100)
    with pytest.raises(safeio.FileProblem, match="cannot read it"):
        safeio.read_regular(tmp_path / ("x" * 5000), 100)


# -- JSON ---------------------------------------------------------------------------------------


def test_depth_is_limited_before_the_parser_recurses() -> None:
    ok = b"[" * safeio.MAX_JSON_DEPTH + b"]" * safeio.MAX_JSON_DEPTH
    assert safeio.parse_json(ok) is not None
    for depth in (safeio.MAX_JSON_DEPTH + 1, 10_000, 1_000_000):
        with pytest.raises(safeio.FileProblem, match=f"nested more than {safeio.MAX_JSON_DEPTH} deep"):
            safeio.parse_json(b'{"a": ' + b"[" * depth + b"]" * depth + b"}")
    # Brackets inside strings (escaped quotes too) are not nesting.
    text = b'["' + b"[" * 1000 + b'\\"' + b"{" * 1000 + b'"]'
    assert safeio.parse_json(text) == ["[" * 1000 + '"' + "{" * 1000]


def test_numbers_beyond_range_are_kept_as_text() -> None:
    big = "1" + "0" * 400
    value = safeio.parse_json(f"[{big}, -{'9' * 5000}, 1e400, -1e999, 5e-324, 1e-400, NaN]".encode())
    assert isinstance(value[0], safeio.HugeNumber) and value[0].text == big
    assert "(401 digits)" in repr(value[0]) and len(repr(value[1])) < 40
    assert isinstance(value[2], safeio.HugeNumber) and repr(value[2]) == "1e400"
    assert isinstance(value[3], safeio.HugeNumber)
    assert value[4] == 5e-324 and value[5] == 0.0 and value[6] != value[6]
    digits = "9" * safeio.MAX_INTEGER_DIGITS
    assert safeio.parse_json(digits.encode()) == int(digits)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"{", "line 1 column 2: expected JSON"),
        (b"", "expected JSON"),
        (b"\xff\xfe{}", "expected UTF-8 text"),
        (b'{"a": 1, "a": 2}', "the field 'a' appears twice"),
        (b"[1, 2] [3]", "expected JSON (Extra data)"),
    ],
)
def test_malformed_json_says_where(data: bytes, expected: str) -> None:
    with pytest.raises(safeio.FileProblem, match=expected.replace("(", r"\(").replace(")", r"\)")):
        safeio.parse_json(data)


def test_a_byte_order_mark_is_accepted() -> None:
    assert safeio.parse_json(b"\xef\xbb\xbf{}") == {}


def test_quotations_and_messages_stay_short() -> None:
    assert safeio.shorten("x" * 10_000_000).endswith("...") and len(safeio.shorten("x" * 10_000_000)) <= 60
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    assert len(safeio.shorten(deep)) <= 60
    assert len(safeio.shorten([0] * 1_000_000)) <= 60
    assert safeio.shorten({"a": [1, 2]}) == '{"a": [1, 2]}'
    line = safeio.one_line("first\nsecond\r\x1b[31m" + "y" * 10_000)
    assert "\n" not in line and "\x1b" not in line and len(line) == safeio.MAX_MESSAGE_CHARS
    assert safeio.short_path("a/b\nc") == "a/b\\nc"
    assert len(safeio.short_path("d/" * 10_000 + "name.json")) <= 120
    assert safeio.short_path("d/" * 10_000 + "name.json").endswith("name.json")


# -- writing ------------------------------------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_write_that_fails_partway_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    target.write_bytes(b"the old recording")

    def half_then_fail(handle: object) -> None:
        handle.write(b"half of the new")  # type: ignore[attr-defined]
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        safeio.write_atomic(target, half_then_fail)
    assert target.read_bytes() == b"the old recording"
    assert _leftovers(tmp_path) == []

    with pytest.raises(KeyboardInterrupt):
        safeio.write_atomic(
            target, lambda handle: (handle.write(b"x"), (_ for _ in ()).throw(KeyboardInterrupt()))
        )
    assert target.read_bytes() == b"the old recording" and _leftovers(tmp_path) == []


def test_a_real_full_disk_keeps_the_old_file(tmp_path: Path) -> None:
    """RLIMIT_FSIZE in a child process: the kernel refuses the write past 4 KiB with EFBIG, as a
    full disk refuses it with ENOSPC."""
    target = tmp_path / "shot.png"
    target.write_bytes(b"the old picture")
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        from demo import safeio
        try:
            safeio.write_atomic({str(target)!r}, lambda handle: handle.write(b"z" * 100_000))
        except OSError as exc:
            print(exc.errno, exc.strerror)
            sys.exit(3)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 3, done.stderr
    assert "File too large" in done.stdout, done.stdout
    assert target.read_bytes() == b"the old picture"
    assert _leftovers(tmp_path) == []


def test_replacing_keeps_permissions_and_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert safeio.write_atomic(link, lambda handle: handle.write(b"new")) is True
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    fresh = tmp_path / "sub" / "dir" / "fresh.json"
    assert safeio.write_atomic(fresh, lambda handle: handle.write(b"1")) is False
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_pipes_devices_and_folders_are_never_replaced(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out.png"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        if not Path("/dev/null").exists():
            pytest.skip("no /dev/null")
        target.symlink_to("/dev/null")
    else:
        target.mkdir()
    assert safeio.check_writable(target) is not None
    with pytest.raises(safeio.FileProblem, match="not a file"):
        safeio.write_atomic(target, lambda handle: handle.write(b"x"))
    if kind == "device":
        assert Path("/dev/null").is_char_device()
    assert _leftovers(tmp_path) == []


def test_check_writable(tmp_path: Path) -> None:
    assert safeio.check_writable(tmp_path / "new" / "x.png") is None
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert "is not a folder" in (safeio.check_writable(blocker / "x.png") or "")


def test_new_files_never_replace_one(tmp_path: Path) -> None:
    taken = tmp_path / "shot-001.png"
    taken.write_bytes(b"mine")
    names = [tmp_path / f"shot-{k:03d}.png" for k in range(1, 4)]
    written = safeio.write_new(names, lambda handle: handle.write(b"new"))
    assert written == names[1] and taken.read_bytes() == b"mine" and names[1].read_bytes() == b"new"

    def fail(handle: object) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        safeio.write_new(names[2:], fail)
    assert not names[2].exists() and _leftovers(tmp_path) == []
    with pytest.raises(safeio.FileProblem, match="taken"):
        safeio.write_new(names[:2], lambda handle: handle.write(b"x"))


def test_picture_formats() -> None:
    assert safeio.picture_format("a.png") == "PNG" and safeio.picture_format("A.PNG") == "PNG"
    assert safeio.picture_format("a.jpg") == "JPEG"
    assert safeio.picture_format("a") is None and safeio.picture_format("a.json") is None
