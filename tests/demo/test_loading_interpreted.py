"""A first run's loader (demo.loading.Loader with ``interpret``), without a window, in a process
with an empty numba cache: the engine is interpreted at once, scenes asked for are built
before any warm-up job is compiled, a small scene may run at once and a large one may not, the
compiled engine does not take over before the scene's jobs are loaded, and closing the loader
puts the compiled kernels back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.collision.test_interpreter import COUNT_COMPILES

ROOT = Path(__file__).resolve().parents[2]

CHILD = COUNT_COMPILES + textwrap.dedent(
    """
    import json
    import time

    from collision import interpreter
    from demo import scenes
    from demo.loading import INTERPRETED_MAX_BODIES, Loader

    loader = Loader("rigid", interpret=True)
    loader.start()
    small = loader.submit("rigid", lambda: scenes.build_scene("rigid"), ("scene:rigid",), interpreted=True)
    large = loader.submit("pile", lambda: scenes.build_scene("pile"), ("scene:pile",), interpreted=True)
    deadline = time.monotonic() + 120.0
    while not (small.done and large.done) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert small.error is None and large.error is None, (small.error, large.error)
    progress = loader.progress()
    world = small.result.world
    out = {
        "installed": interpreter.is_installed(),
        "compiled_jobs": sorted(progress.compiled_jobs),
        "small_bodies": world.body_count,
        "large_bodies": large.result.world.body_count,
        "limit": INTERPRETED_MAX_BODIES,
        "small_shows": loader.shows_now(world, ("scene:rigid",)),
        "large_shows": loader.shows_now(large.result.world, ("scene:pile",)),
        "takes_over": loader.use_compiled(("scene:rigid",)),
    }
    for _ in range(30):
        world.step(1.0 / 60.0)
    out["still_installed"] = interpreter.is_installed()
    out["compiled_here"] = list(compiled)
    loader.close()
    out["after_close"] = interpreter.is_installed()
    print(json.dumps(out))
    """
)


def test_a_first_runs_loader_builds_and_runs_small_scenes_before_any_compile(tmp_path: Path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["installed"]
    # Both scenes were built before the warm-up finished its first job (a minute or more).
    assert result["compiled_jobs"] == []
    assert result["small_bodies"] <= result["limit"] < result["large_bodies"]
    assert result["small_shows"] is True
    assert result["large_shows"] is False, "a large scene would run interpreted at seconds a frame"
    assert result["takes_over"] is False, "the compiled engine took over before the scene's job was loaded"
    assert result["still_installed"]
    assert result["compiled_here"] == [], "this process compiled kernels itself"
    assert result["after_close"] is False


def test_the_start_up_frame_does_not_wait_for_the_engine() -> None:
    """What the window program imports before its first frame (demo.run, demo.loading) leaves
    numba and the engine out: importing them takes about half a second."""
    check = (
        "import sys, demo.run, demo.loading\nprint([m for m in ('numba', 'collision') if m in sys.modules])"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
