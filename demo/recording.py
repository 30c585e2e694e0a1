"""The ``--record`` / ``--replay`` file: what it holds, read with every field checked, written
atomically.

A recording is one JSON object:

.. code-block:: text

    {
      "version": 2,
      "scene": "rigid", "seed": 0, "bodies": null, "solver": null,   # what the run was built from
      "size": [960, 720],                                           # its window, pixels
      "final_state_hash": "4a51...", "final_step_count": 300,       # what the replay must end at
      "final_solver": "iterative",                                  # for the reader (not checked)
      "frames": [                                                   # one per drawn frame
        {"dt": 0.0166,                                              # the frame's time (s)
         "events": [["input", "X", true, false, [x, y]],            # a key or button: name,
                                                                    #   pressed, shift, world cursor
                    ["cursor", px, py],                             # the cursor in the window
                    ["scroll", dy]],                                # the mouse wheel
         "cursor": [x, y]}                                          # the frame's world cursor
      ]
    }

:func:`load_recording` refuses anything else with one line naming the file and the field
(``replay file r.json: frames[12].events[3][1]: expected ...``); every number is converted and
range-checked here, once, so the program replays only what it could have recorded.
Imports neither the engine nor OpenGL.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from demo import options, safeio

RECORDING_VERSION = 2
#: Largest recording read (bytes): an hour of frames with the mouse moving is about 100 MB of
#: JSON; 64 MiB keeps what the parsed file takes in memory well under a gigabyte.
MAX_RECORDING_BYTES = 64 * 1024 * 1024
#: The longest frame (s) the program takes into account (demo.app clamps live frames to it), so
#: the longest a recording can hold.
MAX_FRAME_DT = 0.25
#: Most input events in one frame (a person makes a few; a minute of input backed up in a
#: stalled window is a few hundred).
MAX_EVENTS_PER_FRAME = 1000
#: Largest absolute cursor coordinate in window pixels (a cursor dragged past the screen's edge).
MAX_WINDOW_PIXELS = 1e6
#: Largest absolute world coordinate of a recorded cursor (units): the engine's largest coordinate.
MAX_WORLD_CURSOR = 1e12
#: Largest absolute mouse-wheel movement of one event.
MAX_SCROLL = 1e6
#: Longest scene name or scene file path (characters): PATH_MAX on Linux.
MAX_SCENE_CHARS = 4096
#: An input name as demo.controls writes them ("P", "KP_ADD", "MOUSE_LEFT", "shift+TAB").
_INPUT_NAME = re.compile(r"[A-Za-z0-9_+]{1,32}")
#: A state hash as World.state_hash writes it.
_HASH = re.compile(r"[0-9a-f]{1,128}")
_SOLVERS = ("tutorial", "iterative", "arcade")
_FIELDS = {
    "version",
    "scene",
    "seed",
    "bodies",
    "solver",
    "size",
    "final_state_hash",
    "final_step_count",
    "final_solver",
    "frames",
}
_FRAME_FIELDS = {"dt", "events", "cursor"}


class RecordingError(ValueError):
    """A recording that cannot be replayed; one line naming the file, the field and the problem."""


class _Checks:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = path

    def error(self, text: str) -> RecordingError:
        return RecordingError(safeio.one_line(f"replay file {safeio.short_path(self.path)}: {text}"))

    def fail(self, field: str, expected: str, value: Any) -> RecordingError:
        return self.error(f"{field}: expected {expected}, got {safeio.shorten(value)}")

    def integer(self, value: Any, field: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise self.fail(field, f"a whole number in {lo}..{hi}", value)
        return value

    def number(self, value: Any, field: str, limit: float, lo: float | None = None) -> float:
        low = -limit if lo is None else lo
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(field, f"a finite number in [{low:g}, {limit:g}]", value)
        if not low <= value <= limit:
            raise self.fail(field, f"a number in [{low:g}, {limit:g}]", value)
        return float(value)

    def point(self, value: Any, field: str, limit: float) -> list[float]:
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(field, "[x, y]", value)
        return [self.number(v, f"{field}[{k}]", limit) for k, v in enumerate(value)]

    def flag(self, value: Any, field: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(field, "true or false", value)
        return value

    def event(self, value: Any, field: str) -> list[Any]:
        kind = value[0] if isinstance(value, list) and value else None
        if kind == "input" and len(value) in (4, 5):
            name = value[1]
            if not isinstance(name, str) or not _INPUT_NAME.fullmatch(name):
                raise self.fail(f"{field}[1]", 'an input name such as "P" or "MOUSE_LEFT"', name)
            event = ["input", name, self.flag(value[2], f"{field}[2]"), self.flag(value[3], f"{field}[3]")]
            if len(value) == 5:
                event.append(self.point(value[4], f"{field}[4]", MAX_WORLD_CURSOR))
            return event
        if kind == "cursor" and len(value) == 3:
            return [
                "cursor",
                *(self.number(v, f"{field}[{k}]", MAX_WINDOW_PIXELS) for k, v in enumerate(value[1:], 1)),
            ]
        if kind == "scroll" and len(value) == 2:
            return ["scroll", self.number(value[1], f"{field}[1]", MAX_SCROLL)]
        raise self.fail(
            field,
            '["input", name, pressed, shift(, [x, y])], ["cursor", x, y] or ["scroll", dy]',
            value,
        )

    def frame(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field, "an object with dt, events and cursor", value)
        for key in _FRAME_FIELDS:
            if key not in value:
                raise self.error(f"{field}.{key}: missing")
        for key in value:
            if key not in _FRAME_FIELDS:
                raise self.error(
                    f"{field}.{safeio.field_name(key)}: not a field of a frame (dt, events, cursor)"
                )
        events = value["events"]
        if not isinstance(events, list) or len(events) > MAX_EVENTS_PER_FRAME:
            raise self.fail(f"{field}.events", f"a list of at most {MAX_EVENTS_PER_FRAME} events", events)
        return {
            "dt": self.number(value["dt"], f"{field}.dt", MAX_FRAME_DT, lo=0.0),
            "events": [self.event(e, f"{field}.events[{k}]") for k, e in enumerate(events)],
            "cursor": self.point(value["cursor"], f"{field}.cursor", MAX_WORLD_CURSOR),
        }


def load_recording(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The recording at ``path``, checked and converted (numbers as floats, events as lists the
    program replays); the keys of the module's schema.

    RecordingError (a ValueError, one line naming the file and the field) for a file that is
    missing, unreadable, not a regular file, larger than MAX_RECORDING_BYTES, not JSON, nested
    deeper than safeio.MAX_JSON_DEPTH, another version, or holding any value outside its limit.
    """
    try:
        data = safeio.read_regular(path, MAX_RECORDING_BYTES)
    except safeio.FileProblem as exc:
        raise _Checks(path).error(str(exc)) from None
    return parse_recording(data, path)


def parse_recording(data: bytes, path: str | os.PathLike[str]) -> dict[str, Any]:
    """The checked recording in the bytes ``data`` (see :func:`load_recording`); ``path``: the
    file, for messages. RecordingError for anything that is not a recording to replay."""
    checks = _Checks(path)
    try:
        data = safeio.parse_json(data)
    except safeio.FileProblem as exc:
        raise checks.error(str(exc)) from None
    if not isinstance(data, dict) or data.get("version") != RECORDING_VERSION:
        version = data.get("version") if isinstance(data, dict) else None
        what = f"a version {RECORDING_VERSION} recording of python -m demo"
        raise checks.error(f"expected {what}, got version {safeio.shorten(version)}")
    for key in sorted(_FIELDS - {"final_solver"}):
        if key not in data:
            raise checks.error(f"{key}: missing")
    for key in data:
        if key not in _FIELDS:
            raise checks.error(f"{safeio.field_name(key)}: not a field of a recording")
    scene = data["scene"]
    if not isinstance(scene, str) or not 1 <= len(scene) <= MAX_SCENE_CHARS or "\x00" in scene:
        raise checks.fail("scene", f"a scene name or file of 1..{MAX_SCENE_CHARS} characters", scene)
    bodies = data["bodies"]
    solver = data["solver"]
    if solver is not None and (not isinstance(solver, str) or solver not in _SOLVERS):
        raise checks.fail("solver", f"null or one of {', '.join(_SOLVERS)}", solver)
    size = data["size"]
    if not isinstance(size, list) or len(size) != 2:
        raise checks.fail("size", "[width, height]", size)
    state_hash = data["final_state_hash"]
    if not isinstance(state_hash, str) or not _HASH.fullmatch(state_hash):
        raise checks.fail("final_state_hash", "a state hash (hexadecimal)", state_hash)
    frames = data["frames"]
    if not isinstance(frames, list) or not 1 <= len(frames) <= options.MAX_FRAMES:
        raise checks.fail("frames", f"a list of 1..{options.MAX_FRAMES} frames", frames)
    return {
        "version": RECORDING_VERSION,
        "scene": scene,
        "seed": checks.integer(data["seed"], "seed", 0, options.MAX_SEED),
        "bodies": None if bodies is None else checks.integer(bodies, "bodies", 1, options.MAX_BODIES),
        "solver": solver,
        "size": [
            checks.integer(v, f"size[{k}]", options.MIN_SIZE_PX, options.MAX_SIZE_PX)
            for k, v in enumerate(size)
        ],
        "final_state_hash": state_hash,
        "final_step_count": checks.integer(data["final_step_count"], "final_step_count", 0, 2**63 - 1),
        "frames": [checks.frame(frame, f"frames[{k}]") for k, frame in enumerate(frames)],
    }


def write_recording(path: str | os.PathLike[str], record: dict[str, Any]) -> bool:
    """Write ``record`` (the module's schema) to ``path`` atomically: a failure partway leaves a
    file already there as it was. Returns whether an existing file was replaced.

    ValueError naming the path when it cannot be written.
    """
    try:
        text = json.dumps(record, allow_nan=False, separators=(",", ":"))
    except ValueError:
        raise ValueError(
            safeio.one_line(
                f"--record {safeio.short_path(path)}: the run's input holds a value that is not a number"
            )
        ) from None
    data = text.encode("utf-8")
    try:
        return safeio.write_atomic(Path(path), lambda handle: handle.write(data))
    except (OSError, safeio.FileProblem) as exc:
        reason = safeio.os_reason(exc) if isinstance(exc, OSError) else str(exc)
        raise ValueError(
            safeio.one_line(
                f"--record {safeio.short_path(path)}: cannot write it ({reason}); "
                "a file already there is unchanged"
            )
        ) from None
