"""The first run in a real window (Xvfb), with an empty numba cache: the scene comes on with
the engine interpreted while the warm-up process compiles it, Tabs bring the other scenes at
once, the compiled engine takes over once the scene on screen has its kernels, the program
itself compiles none (each would be a pause), and Esc ends it. What is checked is counted and
ordered, not timed (``--profile``'s figures)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from tests.demo.conftest import start_program, stop_program, xdotool

#: A cold start compiles the engine (about a minute and a half on the development machine).
FIRST_RUN_TIMEOUT_S = 900.0


def _xdotool(display: str, *args: str) -> str:
    return xdotool(display, *args, timeout=120)


def test_first_run_runs_interpreted_until_the_kernels_are_compiled(xserver: str, tmp_path: Path) -> None:
    """A first run: the scene comes on before any of its kernels is compiled and runs
    interpreted; three Tabs while the kernels still compile bring the third scene, which stays;
    once its kernels and the first scene's are loaded, the compiled engine takes over."""
    from demo import catalog

    names = catalog.scene_names()
    program = start_program(
        xserver, tmp_path, "--size", "480x360", "--profile", NUMBA_CACHE_DIR=str(tmp_path / "numba")
    )
    lines: list[str] = []
    on_screen = threading.Event()
    last_asked = threading.Event()
    compiled = threading.Event()

    def read() -> None:
        assert program.stdout is not None
        for line in program.stdout:
            lines.append(line)
            if "scene_on_screen_s" in line:
                on_screen.set()
            if f'"scene_shown": "{names[3]}"' in line:
                last_asked.set()
            if '"compiled_s"' in line:
                compiled.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        window = _xdotool(xserver, "search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()[0]
        assert on_screen.wait(FIRST_RUN_TIMEOUT_S), "the scene never came on"
        interpreted_on_screen = not compiled.is_set()
        _xdotool(xserver, "windowfocus", "--sync", window)
        _xdotool(xserver, "key", "--delay", "20", "Tab", "Tab", "Tab")
        assert last_asked.wait(FIRST_RUN_TIMEOUT_S), f"{names[3]} never came on"
        tabbed_while_interpreted = not compiled.is_set()
        assert compiled.wait(FIRST_RUN_TIMEOUT_S), "the compiled engine never took over"
        _xdotool(xserver, "key", "Escape")
        status = program.wait(timeout=60)
    finally:
        err = stop_program(program, reader)
    assert "Traceback" not in err, err
    assert status == 0, err
    profile: dict[str, Any] = json.loads(lines[-1])
    assert profile["kernels_compiled"] > 0, "the cache was empty: the warm-up process compiled the kernels"
    assert interpreted_on_screen, "the scene waited for the compiled engine"
    assert tabbed_while_interpreted, "the Tabs waited for the compiled engine"
    assert profile["interpreted_frames"] > 0
    assert profile["frames"] > profile["interpreted_frames"], "no frame ran on the compiled engine"
    assert profile["compiled_s"] > profile["scene_s"]
    assert profile["kernels_compiled_in_program"] == [], "the program compiled kernels itself"
    assert profile["scene"] == names[3]
    shown = [scene for _, scene in profile["scenes_shown"]]
    assert shown[0] == "rigid" and shown[-1] == names[3]
    assert set(shown) <= {"rigid", *names[1:4]}
    assert not list(tmp_path.glob("polycolly-*.png"))  # nothing saved unasked


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_esc_while_compiling_ends_the_program_and_its_compiler(xserver: str, tmp_path: Path) -> None:
    """A first run, Esc tapped (pressed and released at once) while the engine is compiling:
    the program ends, and so do the warm-up process it started and, on two cores or more, the
    lane compiling part of the first step beside it."""
    from demo import warmup_lanes

    program = start_program(xserver, tmp_path, "--size", "480x360", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    lanes = 1 if warmup_lanes.usable_cores() >= 2 else 0
    try:
        window = _xdotool(xserver, "search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()[0]
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline:
            children = _children(program.pid)
            if children and len([g for child in children for g in _children(child)]) >= lanes:
                break
            time.sleep(0.1)
        children = _children(program.pid)
        assert children, "no warm-up process was started on an empty cache"
        children += [g for child in children for g in _children(child)]
        assert len(children) >= 1 + lanes, "the warm-up process started no lane"
        _xdotool(xserver, "windowfocus", "--sync", window)
        _xdotool(xserver, "key", "Escape")
        status = program.wait(timeout=30)
    finally:
        if program.poll() is None:
            for child in _children(program.pid):
                os.kill(child, signal.SIGKILL)
            program.kill()
        err = program.communicate(timeout=10)[1]
    assert status == 0, err
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 10.0
    while any(_alive(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(child) for child in children), "the warm-up process or its lane lives on"
