"""The program as a user meets it: ``python -m demo bench --program [--cold] [--rounds N] [--json]``.

Each round runs the real program (``python -m demo --profile``, default scene and size) in a
real window on its own Xvfb server and drives it with xdotool as a user would:

1. wait for the first scene frame; then no input: ``idle_cpu_s`` is the process's CPU seconds
   (all its threads, read from /proc) over the first 5 s (the bodies fall, the help is up),
   ``rest_cpu_s`` over 5 s from REST_AFTER_S on (the default scene's bodies are asleep);
2. `m` three times (every solver, back to the scene's own), 0.5 s apart;
3. Tab through every scene, each time waiting until the next scene is on screen, and so back
   to the first;
4. Esc (``esc_s``: from sending the key to the process's end).

It prints, from the program's ``--profile`` report and its own clocks: ``startup_s`` (the
progress frame, since the process started), ``scene_s`` (the first scene frame), ``compiled_s``
(cold: when the compiled engine took over from the interpreted one), ``frame_ms_max`` (the
longest frame after the first scene frame), ``idle_cpu_s``, ``rest_cpu_s``, ``esc_s``,
``shown`` (scenes that came on screen, of ``expected``) and the slowest frames. ``--cold`` runs
with an empty numba cache (``NUMBA_CACHE_DIR`` a new folder): the warm-up child compiles while
the program runs; a cold round first starts the program once more and presses Esc 3 s into
the compile (``esc_compiling_s``).

The program run is the tree this module is imported from (its ``demo`` package), so the same
file measures another checkout: ``PYTHONPATH=OTHER python path/to/program.py``. Needs Xvfb and
xdotool. Timings depend on the machine's load: the load average is printed with each round.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

#: Seconds of no input measured for the idle cost, and when (s after the scene came on) the
#: second measure starts: the default scene's bodies are asleep by then (about 16 s).
IDLE_S, REST_AFTER_S = 5.0, 20.0
#: Seconds between the `m` presses (each changes the solver of the running scene).
SOLVER_PRESS_GAP_S = 0.5
#: Seconds after a scene comes on before the next Tab (a user sees each scene).
SCENE_LOOK_S = 0.3
#: How long a scene may take to come on: warm (loaded from the cache) and cold (compiled first).
WARM_WAIT_S, COLD_WAIT_S = 120.0, 1800.0
#: With --cold, Esc is pressed this long after the window appears, while the engine compiles.
ESC_DURING_COMPILE_S = 3.0


def _tree() -> Path:
    """The folder holding the ``demo`` package this module belongs to."""
    import demo  # noqa: PLC0415

    return Path(demo.__file__).resolve().parent.parent


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Xvfb:
    """An Xvfb server on a free display number, for the duration of a ``with``."""

    def __enter__(self) -> str:
        self.server = subprocess.Popen(
            ["Xvfb", "-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.server.stdout is not None
        number = self.server.stdout.readline().strip()
        if not number.isdigit():
            self.server.kill()
            raise RuntimeError("Xvfb did not start")
        self.display = f":{number}"
        return self.display

    def __exit__(self, *_exc: object) -> None:
        self.server.terminate()
        self.server.wait(timeout=10)


class ProgramEvents:
    """The JSON objects a process prints, one a line, collected by a thread as they come:
    ``events`` as (time.monotonic() of arrival, object)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.events: list[tuple[float, dict[str, Any]]] = []
        self._arrived = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                with self._arrived:
                    self.events.append((time.monotonic(), event))
                    self._arrived.notify_all()

    def wait_until(self, done: Callable[[list[dict[str, Any]]], bool], timeout: float) -> bool:
        """Wait until ``done(the objects so far)``; whether it came before ``timeout`` s and the
        process's end."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while not done([event for _, event in self.events]):
                left = deadline - time.monotonic()
                if left <= 0.0 or self.process.poll() is not None:
                    return False
                self._arrived.wait(min(left, 0.5))
        return True

    def wait_for(self, key: str, count: int, timeout: float) -> bool:
        """Wait until ``count`` objects carry ``key``; whether they came."""
        return self.wait_until(lambda events: sum(key in event for event in events) >= count, timeout)


class _Program:
    """``python -m demo --profile`` of the measured tree in a window on ``display``; its output
    lines (JSON objects) collected as they come, with the time each arrived."""

    def __init__(self, display: str, folder: str, cache: str | None) -> None:
        env = dict(os.environ, DISPLAY=display)
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("PYOPENGL_PLATFORM", None)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_tree()), env.get("PYTHONPATH", "")) if p)
        if cache is not None:
            env["NUMBA_CACHE_DIR"] = cache
        self.display = display
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "demo", "--profile", "--screenshot-dir", folder],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.output = ProgramEvents(self.process)
        self.events = self.output.events
        self.wait_for = self.output.wait_for

    def xdotool(self, *args: str) -> str:
        result = subprocess.run(
            ["xdotool", *args],
            capture_output=True,
            text=True,
            env=dict(os.environ, DISPLAY=self.display),
            timeout=WARM_WAIT_S,
            check=False,
        )
        return result.stdout.strip()

    def focus(self) -> None:
        window = self.xdotool("search", "--sync", "--onlyvisible", "--name", "^polycolly$").split()
        if not window:
            raise RuntimeError("the program's window never appeared")
        self.xdotool("windowfocus", "--sync", window[0])

    def escape(self) -> float:
        """Press Esc; seconds until the process has ended."""
        t0 = time.monotonic()
        self.xdotool("key", "Escape")
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return float("inf")
        return time.monotonic() - t0

    def close(self) -> str:
        """Kill it if it still runs; its error output."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.output.reader.join(timeout=10)
        return self.process.stderr.read() if self.process.stderr is not None else ""


def _esc_during_compile(folder: str) -> float:
    """A cold start, Esc pressed ESC_DURING_COMPILE_S after the window appears: seconds to the end."""
    with _Xvfb() as display, tempfile.TemporaryDirectory(prefix="polycolly-cold-") as cache:
        program = _Program(display, folder, cache)
        try:
            program.focus()
            time.sleep(ESC_DURING_COMPILE_S)
            return program.escape()
        finally:
            program.close()


def program_round(cold: bool = False) -> dict[str, Any]:
    """One round (see the module docstring); the measured figures as a dict."""
    from demo import catalog  # noqa: PLC0415 - the scene list, without the engine

    names = catalog.scene_names()
    wait = COLD_WAIT_S if cold else WARM_WAIT_S
    load_before = os.getloadavg()[0]
    result: dict[str, Any] = {"cold": cold}
    with tempfile.TemporaryDirectory(prefix="polycolly-bench-") as folder:
        if cold:
            result["esc_compiling_s"] = round(_esc_during_compile(folder), 3)
        cache = tempfile.mkdtemp(prefix="polycolly-cold-", dir=folder) if cold else None
        with _Xvfb() as display:
            program = _Program(display, folder, cache)
            try:
                program.focus()
                if not program.wait_for("scene_shown", 1, wait):
                    raise RuntimeError(f"the first scene never came on: {program.close()[-2000:]}")
                on_screen, pid = time.monotonic(), program.process.pid
                cpu0 = _cpu_seconds(pid)
                time.sleep(IDLE_S)
                result["idle_cpu_s"] = round(_cpu_seconds(pid) - cpu0, 2)
                time.sleep(max(on_screen + REST_AFTER_S - time.monotonic(), 0.0))
                cpu0 = _cpu_seconds(pid)
                time.sleep(IDLE_S)
                result["rest_cpu_s"] = round(_cpu_seconds(pid) - cpu0, 2)
                for _ in range(3):
                    program.xdotool("key", "m")
                    time.sleep(SOLVER_PRESS_GAP_S)
                for k in range(len(names)):
                    program.xdotool("key", "Tab")
                    if not program.wait_for("scene_shown", k + 2, wait):
                        break
                    time.sleep(SCENE_LOOK_S)
                result["esc_s"] = round(program.escape(), 3)
            finally:
                errors = program.close()
    report = next((e for _, e in reversed(program.events) if "frame_ms_max" in e), None)
    if report is None:
        raise RuntimeError(f"the program printed no profile: {errors.strip()[-2000:]}")
    shown = [event["scene_shown"] for _, event in program.events if "scene_shown" in event]
    result.update(
        startup_s=report["startup_s"],
        scene_s=report["scene_s"],
        compiled_s=report.get("compiled_s"),
        interpreted_frames=report.get("interpreted_frames"),
        jobs_loaded=report.get("jobs_loaded"),
        warmup_failure=report.get("warmup_failure"),
        frame_ms_max=report["frame_ms_max"],
        frame_ms_median=report["frame_ms_median"],
        shown=len(shown),
        expected=len(names) + 1,
        in_order=shown == [*names, names[0]][: len(shown)],
        slowest_frames=report["slowest_frames"][:4],
        load=[round(load_before, 2), round(os.getloadavg()[0], 2)],
    )
    return result


def describe(measured: dict[str, Any]) -> str:
    """A round as text: the figures on one line, then the slowest frames."""
    cold = "cold" if measured["cold"] else "warm"
    head = [
        f"program ({cold}): progress frame {measured['startup_s']} s, scene {measured['scene_s']} s, "
        + (f"compiled engine from {measured['compiled_s']} s, " if measured["cold"] else "")
        + f"frame_ms_max {measured['frame_ms_max']} (median {measured['frame_ms_median']}), "
        f"idle {IDLE_S:.0f} s {measured['idle_cpu_s']} CPU-s (at rest {measured['rest_cpu_s']}), "
        f"Esc {measured['esc_s']} s"
        + (f" (while compiling {measured['esc_compiling_s']} s)" if "esc_compiling_s" in measured else "")
        + f", scenes shown {measured['shown']}/{measured['expected']}"
        + ("" if measured["in_order"] else " (out of order)")
        + f"; load average {measured['load'][0]:.1f} -> {measured['load'][1]:.1f} on {os.cpu_count()} cores"
    ]
    head += [f"  {ms:7.1f} ms  {what}  {parts}" for ms, what, parts in measured["slowest_frames"]]
    return "\n".join(head)


def compare(
    rounds: int, cold: bool, as_json: bool, out: TextIO, progress: TextIO | None
) -> list[dict[str, Any]]:
    """``rounds`` rounds one after the other, each printed as it ends."""
    results = []
    for k in range(rounds):
        if progress is not None:
            print(
                f"program round {k + 1}/{rounds} ({'cold' if cold else 'warm'}) ...",
                file=progress,
                flush=True,
            )
        measured = program_round(cold)
        results.append(measured)
        print(json.dumps(measured) if as_json else describe(measured), file=out, flush=True)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """``python path/to/program.py [--cold] [--json]``: one round of the tree on PYTHONPATH."""
    args = list(sys.argv[1:] if argv is None else argv)
    compare(1, "--cold" in args, "--json" in args, sys.stdout, sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
