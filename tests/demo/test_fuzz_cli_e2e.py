"""End to end: ``python -m demo`` in child processes given hostile command lines and files, each
child under a memory limit (RLIMIT_AS) and a processor-time limit (RLIMIT_CPU) and a wall-clock
timeout. Every case must:

- exit with status 0 or 2 (1 only for a replay that ran and diverged), never a traceback;
- say what was wrong in one line of at most safeio.MAX_MESSAGE_CHARS characters, naming the file
  or the option;
- finish within the limits (a pipe or /dev/zero given as a file must not hang it);
- leave a file that was already there as it was when it fails (a write that fails partway is
  made real with RLIMIT_FSIZE, which the kernel enforces as a full disk would).

The in-process fuzz (thousands of cases) is test_fuzz_files.py; these are fewer and slower.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from demo import safeio
from demo.recording import RECORDING_VERSION
from tests.collision.test_fuzz_common import SETTINGS, count, fuzz_report  # noqa: F401 (module fixture)
from tests.demo import hostile

ROOT = Path(__file__).resolve().parents[2]
#: Address space of a child (bytes): the program needs about 1 GiB of it (numba, Mesa).
LIMIT_AS = 2 << 30
#: Processor time of a child (s): loading the compiled engine and a few frames take a few.
LIMIT_CPU_S = 60
#: Wall-clock time of a child (s), for a child that waits rather than computes (a pipe).
TIMEOUT_S = 90
#: Children run at once (the machine has two cores).
WORKERS = 2
#: Random argument lists run end to end.
RANDOM_ARGUMENT_CASES = 16
#: Lines a successful run may print on stderr besides an error.
INFO_PREFIXES = ("compiling the collision engine", "recorded ", "screenshot saved", "replay of ")

GOOD_BODY = {"shape": {"type": "box", "width": 2, "height": 1}, "position": [0, 0]}


@dataclass
class Case:
    """One child run: its class, its arguments (``{tmp}`` is the case's folder), files to make
    there first, what its message must contain, and files that must not change."""

    cls: str
    argv: list[str]
    files: dict[str, Any] = field(default_factory=dict)
    expect: str = ""
    statuses: tuple[int, ...] = (2,)
    keep: tuple[str, ...] = ()
    fsize: int | None = None
    no_dac: bool = False


@dataclass
class Outcome:
    case: Case
    status: int | None
    stdout: str
    stderr: str
    seconds: float
    changed: list[str]


def _limits(fsize: int | None) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))
        resource.setrlimit(resource.RLIMIT_CPU, (LIMIT_CPU_S, LIMIT_CPU_S))
        if fsize is not None:
            import signal

            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return apply


def _make(folder: Path, name: str, content: Any) -> None:
    """Make ``folder/name``: "fifo", "folder", ("symlink", target), ("mode", bits, text), bytes,
    text, or JSON data."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if content == "fifo":
        os.mkfifo(path)
    elif content == "folder":
        path.mkdir()
    elif isinstance(content, tuple) and content[0] == "symlink":
        path.symlink_to(content[1])
    elif isinstance(content, tuple) and content[0] == "mode":
        path.write_text(content[2], encoding="utf-8")
        path.chmod(content[1])
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DISPLAY", None)  # no window: a run that would open one says so and exits 2
    env.pop("WAYLAND_DISPLAY", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["MESA_SHADER_CACHE_DISABLE"] = "true"
    return env


def run_case(case: Case, folder: Path) -> Outcome:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        _make(folder, name, content)
    before = {name: (folder / name).read_bytes() for name in case.keep}
    argv = [a.replace("{tmp}", str(folder)) for a in case.argv]
    command = [sys.executable, "-m", "demo", *argv]
    if case.no_dac and os.geteuid() == 0:
        # root reads any file: drop the capabilities that let it, so permissions apply.
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    start = time.monotonic()
    try:
        done = subprocess.run(
            command,
            cwd=folder,
            env=_env(),
            capture_output=True,
            timeout=TIMEOUT_S,
            preexec_fn=_limits(case.fsize),  # noqa: PLW1509 - the child only sets its own limits
        )
        status, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        status, out, err = None, exc.stdout or b"", exc.stderr or b""
    seconds = time.monotonic() - start
    changed = [name for name, data in before.items() if (folder / name).read_bytes() != data]
    return Outcome(
        case,
        status,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        seconds,
        changed,
    )


def problems(outcome: Outcome) -> list[str]:
    """What is wrong with one child's run (empty: nothing)."""
    case, found = outcome.case, []
    if outcome.status is None:
        return [f"did not finish in {TIMEOUT_S} s"]
    if outcome.status < 0:
        found.append(f"killed by signal {-outcome.status} (a limit?)")
    if "Traceback" in outcome.stderr or "Traceback" in outcome.stdout:
        found.append("traceback: " + outcome.stderr[-600:])
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if not line.startswith(INFO_PREFIXES)]
    if outcome.status not in case.statuses:
        found.append(f"exit status {outcome.status}, expected one of {case.statuses}")
    if outcome.status == 1 and "diverged" not in outcome.stderr:
        found.append("exit status 1 without a divergence")
    if outcome.status == 2:
        if len(errors) != 1:
            found.append(f"{len(errors)} message lines, expected 1")
        for line in errors:
            if len(line) > safeio.MAX_MESSAGE_CHARS:
                found.append(f"message of {len(line)} characters")
            if not line.startswith("python -m demo:"):
                found.append(f"message does not start with the program's name: {line[:120]}")
    if case.expect and case.expect not in outcome.stderr:
        found.append(f"message does not say {case.expect!r}")
    if outcome.status != 0 and outcome.changed:
        found.append(f"failed and changed {outcome.changed}")
    return found


def run_all(cases: list[Case], tmp_path: Path) -> list[Outcome]:
    """Run ``cases`` WORKERS at a time; fail naming every case with a problem."""
    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = list(pool.map(lambda kc: run_case(kc[1], tmp_path / f"case{kc[0]}"), enumerate(cases)))
    report = []
    for k, outcome in enumerate(outcomes):
        count(f"end to end: {outcome.case.cls}")
        temporaries = sorted(p.name for p in (tmp_path / f"case{k}").rglob(".*.tmp"))
        found = problems(outcome) + ([f"left temporary files {temporaries}"] if temporaries else [])
        if found:
            shown = " ".join(outcome.case.argv)[:200]
            report.append(
                f"case {k} [{outcome.case.cls}] {shown}: {'; '.join(found)}\n  {outcome.stderr[-400:]}"
            )
    slowest = max(outcomes, key=lambda o: o.seconds)
    print(f"[e2e] {len(cases)} children, slowest {slowest.seconds:.1f} s ({slowest.case.cls})")
    assert not report, "\n".join(report)
    return outcomes


# -- scene files --------------------------------------------------------------------------------


def _scene(**top: Any) -> dict[str, Any]:
    return {"bodies": [GOOD_BODY], **top}


def _boxes_at_one_point(n: int) -> str:
    body = '{"shape":{"type":"box","width":1,"height":1},"position":[0,0]}'
    return '{"bodies":[' + ",".join([body] * n) + "]}"


SCENE_FILES: list[tuple[str, Any, str]] = [
    ("nesting", '{"bodies": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than"),
    ("nesting", '{"bodies": [' + '{"a":' * 5000 + "0" + "}" * 5000 + "]}", "nested more than"),
    (
        "huge integer",
        '{"bodies": [{"shape": {"type": "box", "width": 1' + "0" * 400 + ', "height": 1}, '
        '"position": [0, 0]}]}',
        "bodies[0].shape.width",
    ),
    ("huge integer", '{"dt": ' + "9" * 5000 + ', "bodies": []}', "dt: expected"),
    (
        "huge integer",
        '{"bodies": [{"shape": {"type": "regular", "sides": 1' + "0" * 400 + ', "radius": 1}, '
        '"position": [0, 0]}]}',
        "bodies[0].shape.sides",
    ),
    ("non-finite", '{"dt": Infinity, "bodies": []}', "dt: expected a finite number"),
    ("non-finite", '{"world": {"gravity": [NaN, 0]}, "bodies": []}', "world.gravity[0]"),
    (
        "non-finite",
        '{"bodies": [{"shape": {"type": "box", "width": 1e400, "height": 1}, "position": [0, 0]}]}',
        "got 1e400",
    ),
    (
        "denormal",
        '{"bodies": [{"shape": {"type": "box", "width": 5e-324, "height": 1}, "position": [0, 0]}]}',
        "bodies[0].shape.width",
    ),
    (
        "denormal",
        '{"bodies": [{"shape": {"type": "polygon", "vertices": [[0, 0], [5e-324, 0], [0, 5e-324]]}, '
        '"position": [0, 0]}]}',
        "bodies[0].shape.vertices",
    ),
    ("range", json.dumps(_scene(world={"gravity": [0, -1e9]})), "world.gravity[1]"),
    ("range", json.dumps({"bodies": [{**GOOD_BODY, "velocity": [1e9, 0]}]}), "bodies[0].velocity[0]"),
    ("crowd", _boxes_at_one_point(63_000), "bodies"),
    ("crowd", _boxes_at_one_point(1500), "overlapping where they start"),
    ("size", '{"description": "' + "d" * 3_000_000 + '", "bodies": []}', "description"),
    ("size", " " * 5_000_000 + "{}", "more than the 4000000"),
    ("garbage", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 10, "expected UTF-8"),
    ("strings", json.dumps(_scene(help=["\x1b[31m" * 5000])), "help[0]"),
    ("strings", json.dumps({"bodies": [{**GOOD_BODY, "colour\n" * 100: 1}]}), "bodies[0]."),
]


def test_hostile_scene_files(tmp_path: Path) -> None:
    cases = [
        Case(
            f"scene file: {cls}",
            ["--scene", "{tmp}/scene.json", "--stats", "--steps", "2"],
            {"scene.json": content},
            expect,
        )
        for cls, content, expect in SCENE_FILES
    ]
    cases += [
        Case(
            "scene file: not a file",
            ["--scene", f"{{tmp}}/{name}", "--stats", "--steps", "2"],
            {name: kind},
            expect,
        )
        for name, kind, expect in (
            ("fifo.json", "fifo", "a pipe (FIFO), not a file"),
            ("zero.json", ("symlink", "/dev/zero"), "a device, not a file"),
            ("dir.json", "folder", "a folder, not a file"),
            ("loop.json", ("symlink", "loop.json"), "cannot read it"),
        )
    ]
    cases += [
        Case(
            "scene file: accepted",
            ["--scene", "{tmp}/bom.json", "--stats", "--steps", "2"],
            {"bom.json": b"\xef\xbb\xbf" + json.dumps(_scene()).encode()},
            statuses=(0,),
        ),
    ]
    if os.geteuid() != 0 or shutil.which("setpriv"):
        cases.append(
            Case(
                "scene file: not a file",
                ["--scene", "{tmp}/locked.json", "--stats", "--steps", "2"],
                {"locked.json": ("mode", 0o000, json.dumps(_scene()))},
                "Permission denied",
                no_dac=True,
            )
        )
    run_all(cases, tmp_path)


# -- replay files -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A recording made by the program (headless, 6 frames), with a held fire key and a cursor
    event added to its first frame (headless runs have no input of their own)."""
    path = tmp_path_factory.mktemp("recorded") / "run.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "demo",
            "--headless",
            "--frames",
            "6",
            "--size",
            "64x48",
            "--record",
            str(path),
        ],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(path.read_text())


def _with(rec: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    copy = json.loads(json.dumps(rec))
    change(copy)
    return copy


def _set_event(event: Any) -> Callable[[dict[str, Any]], None]:
    def change(rec: dict[str, Any]) -> None:
        rec["frames"][0]["events"] = [event]

    return change


def _fire_held(dt: float) -> Callable[[dict[str, Any]], None]:
    def change(rec: dict[str, Any]) -> None:
        rec["frames"][0]["events"] = [["input", "X", True, False, [50.0, 50.0]]]
        for frame in rec["frames"]:
            frame["dt"] = dt
        rec["frames"] = (rec["frames"] * 30)[:150]

    return change


def test_hostile_replay_files(tmp_path: Path, recorded: dict[str, Any]) -> None:
    def text_with(change: Callable[[dict[str, Any]], None], raw: dict[str, str] | None = None) -> str:
        text = json.dumps(_with(recorded, change))
        for old, new in (raw or {}).items():
            text = text.replace(old, new, 1)
        return text

    def frames_dt(value: float) -> Callable[[dict[str, Any]], None]:
        return lambda rec: rec["frames"][0].update(dt=value)

    replays: list[tuple[str, str, str]] = [
        (
            "nesting",
            text_with(_set_event([0])).replace("[0]", "[" * 100_000 + "]" * 100_000, 1),
            "nested more than",
        ),
        ("non-finite", text_with(frames_dt(12345.5), {"12345.5": "Infinity"}), "frames[0].dt"),
        ("non-finite", text_with(frames_dt(12345.5), {"12345.5": "NaN"}), "frames[0].dt"),
        ("non-finite", text_with(frames_dt(12345.5), {"12345.5": "1e300"}), "frames[0].dt"),
        ("range", text_with(_fire_held(1e300)), "frames[0].dt"),
        ("events", text_with(_set_event(["cursor"])), "frames[0].events[0]"),
        ("events", text_with(_set_event(["scroll", "x"])), "frames[0].events[0][1]"),
        ("events", text_with(_set_event(["input", ["X"], True, False])), "frames[0].events[0][1]"),
        ("events", text_with(_set_event(["input", "X", "yes", False])), "frames[0].events[0][2]"),
        (
            "events",
            text_with(_set_event(["input", "X", True, False, [1e300, 0]])),
            "frames[0].events[0][4][0]",
        ),
        ("events", text_with(_set_event(["cursor", 1e7, 0])), "frames[0].events[0][1]"),
        ("events", text_with(_set_event(["warp", 1])), "frames[0].events[0]"),
        ("huge string", text_with(lambda rec: rec.update(scene="s" * 10_000_000)), "scene: expected"),
        (
            "huge integer",
            text_with(lambda rec: rec.update(seed=1), {'"seed": 1': '"seed": 1' + "0" * 400}),
            "seed:",
        ),
        (
            "huge integer",
            text_with(lambda rec: rec.update(seed=1), {'"seed": 1': '"seed": 1' + "0" * 5000}),
            "seed:",
        ),
        ("fields", text_with(lambda rec: rec.pop("frames")), "frames: missing"),
        ("fields", text_with(lambda rec: rec.update(frames=[])), "frames: expected"),
        ("fields", text_with(lambda rec: rec.update(size=[10**6, 10])), "size[0]"),
        (
            "fields",
            text_with(lambda rec: rec.update(version=RECORDING_VERSION - 1)),
            f"version {RECORDING_VERSION} recording",
        ),
    ]
    cases = [
        Case(f"replay file: {cls}", ["--headless", "--replay", "{tmp}/r.json"], {"r.json": text}, expect)
        for cls, text, expect in replays
    ]
    for name, content, expect in [
        ("fifo", "fifo", "a pipe (FIFO)"),
        ("zero", ("symlink", "/dev/zero"), "a device"),
        ("dir", "folder", "a folder"),
    ]:
        cases.append(
            Case(
                "replay file: not a file",
                ["--headless", "--replay", f"{{tmp}}/{name}"],
                {name: content},
                expect,
            )
        )
    # The longest frames a recording may hold, with the fire key held all along: bounded work.
    cases.append(
        Case(
            "replay file: accepted",
            ["--headless", "--replay", "{tmp}/r.json"],
            {"r.json": text_with(_fire_held(0.25))},
            statuses=(0, 1),
        )
    )
    run_all(cases, tmp_path)


# -- options and the files the program writes ---------------------------------------------------


def test_hostile_options(tmp_path: Path) -> None:
    cases = [
        Case("command line: numbers", ["--steps", "1000000000000", "--stats"], expect="--steps"),
        Case(
            "command line: numbers", ["--seed", "1" + "0" * 400, "--stats", "--steps", "2"], expect="--seed"
        ),
        Case("command line: numbers", ["--bodies", "1" + "0" * 5000], expect="--bodies"),
        Case("command line: numbers", ["--size", "1" + "0" * 400 + "x16", "--headless"], expect="--size"),
        Case("command line: numbers", ["--frames", "1e3", "--headless"], expect="--frames"),
        Case("command line: strings", ["--scene", "x" * 100_000, "--headless"], expect="unknown scene"),
        Case("command line: strings", ["--solver", "x" * 100_000], expect="--solver"),
        Case(
            "output: refused", ["--headless", "--frames", "1", "--screenshot", "/dev/null"], expect="a device"
        ),
        Case(
            "output: refused",
            ["--headless", "--frames", "1", "--record", "{tmp}/fifo"],
            {"fifo": "fifo"},
            expect="a pipe",
        ),
        Case(
            "output: refused",
            ["--headless", "--frames", "1", "--screenshot", "{tmp}/dir"],
            {"dir": "folder"},
            expect="a folder",
        ),
        Case(
            "output: refused",
            ["--headless", "--frames", "1", "--screenshot", "{tmp}/shot.txt"],
            {"shot.txt": "keep me"},
            expect="picture file name",
            keep=("shot.txt",),
        ),
        Case(
            "output: refused",
            ["--headless", "--frames", "1", "--record", "{tmp}/blocker/x.json"],
            {"blocker": "a file"},
            expect="not a folder",
        ),
    ]
    run_all(cases, tmp_path)
    assert Path("/dev/null").is_char_device()


def test_a_failed_write_keeps_the_existing_file(tmp_path: Path) -> None:
    """--record and --screenshot onto files already there, with the disk 'full' (RLIMIT_FSIZE of
    64 bytes): exit 2, one line, the old files unchanged and no temporary files left. Then the
    same without the limit: the files are replaced, and the messages say so."""
    argv = ["--headless", "--frames", "3", "--size", "64x48"]
    files = {"shot.png": b"the old picture", "run.json": b"the old recording"}
    # A first run without the limit fills the caches (numba, bytecode) so the limited run writes
    # nothing but our files.
    warm = run_case(Case("warm", argv), tmp_path / "warm")
    assert warm.status == 0, warm.stderr
    cases = [
        Case(
            "output: disk full",
            [*argv, "--screenshot", "{tmp}/shot.png"],
            files,
            "shot.png",
            keep=("shot.png",),
            fsize=64,
        ),
        Case(
            "output: disk full",
            [*argv, "--record", "{tmp}/run.json"],
            files,
            "run.json",
            keep=("run.json",),
            fsize=64,
        ),
    ]
    outcomes = run_all(cases, tmp_path)
    assert "File too large" in outcomes[0].stderr and "File too large" in outcomes[1].stderr
    replaced = run_all(
        [
            Case(
                "output: replaced",
                [*argv, "--screenshot", "{tmp}/shot.png", "--record", "{tmp}/run.json"],
                files,
                statuses=(0,),
            )
        ],
        tmp_path / "replaced",
    )[0]
    said = replaced.stdout + replaced.stderr
    assert said.count("(replaced the file that was there)") == 2, said
    folder = tmp_path / "replaced" / "case0"
    assert (folder / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((folder / "run.json").read_text())["version"] == RECORDING_VERSION


# -- random argument lists ----------------------------------------------------------------------


_GENERATED: list[list[str]] = []


@SETTINGS(RANDOM_ARGUMENT_CASES)
@given(argv=hostile.argument_list(long_runs=False))
def _collect(argv: list[str]) -> None:
    _GENERATED.append(argv)


def test_random_argument_lists(tmp_path: Path) -> None:
    """Argument lists from the in-process fuzz's generator, run for real: every accepted run is
    short (the generator's good values are small), every refused one says why in one line."""
    _GENERATED.clear()
    _collect()
    files = {
        "deep.json": "[" * 100_000,
        "fifo": "fifo",
        "zero": ("symlink", "/dev/zero"),
        "existing.png": b"keep",
        "existing.json": b"keep",
        "blocker": "a file",
    }
    cases = [
        Case("random argument list", argv, files, statuses=(0, 2), keep=("existing.png", "existing.json"))
        for argv in _GENERATED
    ]
    run_all(cases, tmp_path)
