"""collision.interpreter: the engine interpreted as plain Python while its kernels are not
compiled. A world stepped interpreted in a process with an empty numba cache compiles nothing
and ends bit-identical to the same world stepped compiled; install and uninstall leave every
module as it was; one thread can run compiled while the others run interpreted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import types
from pathlib import Path

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from collision import World, geometry, interpreter

ROOT = Path(__file__).resolve().parents[2]

#: The start of a child process's script: every kernel numba compiles there lands in ``compiled``.
COUNT_COMPILES = textwrap.dedent(
    """
    from numba.core import event

    compiled = []

    class Count(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            compiled.append(str(ev.data.get("dispatcher")))

    event.register("numba:compile", Count())
    """
)

#: A small scene with resting, sliding and colliding bodies, built the same way here and in
#: the child process.
SCENE = """
import numpy as np
from collision import World
from collision.shapes import Polygon

def scene():
    world = World(gravity=(0.0, -10.0))
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    world.add_body(Polygon.box(1.0, 6.0), (-6.0, 3.0), angle=0.2, static=True)
    for i in range(5):
        world.add_body(Polygon.box(1.0, 1.0), (0.05 * i, 0.5 + 1.02 * i))
    world.add_body(Polygon.regular(3, 0.7), (3.0, 4.0), angle=0.3, velocity=(-2.0, -5.0), angular_velocity=4)
    world.add_body(Polygon.regular(6, 0.5), (-3.0, 2.0), velocity=(6.0, 0.0))
    return world
"""


def _scene() -> World:
    namespace: dict[str, object] = {}
    exec(SCENE, namespace)  # noqa: S102 - the same source as the child's
    return namespace["scene"]()  # type: ignore[operator]


def _step(world: World, steps: int) -> None:
    for _ in range(steps):
        world.step(1.0 / 60.0)


def test_an_interpreted_world_compiles_nothing_and_matches_the_compiled_one(tmp_path: Path) -> None:
    """In a process with an empty numba cache: install, build, 120 steps. No kernel is
    compiled, the bodies touched, and the state is bit for bit the compiled world's."""
    child = (
        COUNT_COMPILES
        + textwrap.dedent(
            """
            import json
            from collision import interpreter
            interpreter.install()
            """
        )
        + SCENE
        + textwrap.dedent(
            """
        world = scene()
        contacts = 0
        for _ in range(120):
            world.step(1.0 / 60.0)
            contacts = max(contacts, len(world.contacts))
        print(json.dumps({"hash": world.state_hash(), "compiled": compiled, "contacts": contacts}))
        """
        )
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["compiled"] == [], "the interpreted step compiled kernels"
    assert result["contacts"] >= 5, "the bodies never touched: the comparison would prove little"
    world = _scene()
    _step(world, 120)
    assert result["hash"] == world.state_hash()


@pytest.fixture
def installed() -> object:
    interpreter.install()
    try:
        yield interpreter
    finally:
        interpreter.uninstall()


def _kernel_references() -> dict[tuple[str, str], object]:
    """Every module attribute that is an engine kernel or a Switch: (module, name) -> value."""
    found = {}
    for module in list(sys.modules.values()):
        if not isinstance(module, types.ModuleType):
            continue
        for name, value in list(vars(module).items()):
            # python_entry's kernels are made by exec: no module.
            home = (value.py_func.__module__ or "") if isinstance(value, CPUDispatcher) else ""
            engine = home.startswith("collision")
            if engine or isinstance(value, interpreter.Switch):
                found[(module.__name__, name)] = value
    return found


def test_install_switches_every_reference_and_uninstall_restores_them() -> None:
    from collision.solvers import iterative

    before = _kernel_references()
    assert before and not interpreter.is_installed()
    interpreter.install()
    try:
        assert interpreter.is_installed()
        during = _kernel_references()
        assert set(before) <= set(during)
        for key, value in before.items():
            switch = during[key]
            assert isinstance(switch, interpreter.Switch), key
            assert switch.dispatcher is value
        # Attributes other than the call are the kernel's.
        assert iterative.iterative_step.py_func is before[(iterative.__name__, "iterative_step")].py_func
        # A module importing a kernel now gets the switch.
        late = types.ModuleType("late_importer")
        exec("from collision.geometry import wrap_angles", vars(late))  # noqa: S102
        assert isinstance(vars(late)["wrap_angles"], interpreter.Switch)
    finally:
        interpreter.uninstall()
    assert not interpreter.is_installed()
    after = _kernel_references()
    assert all(not isinstance(value, interpreter.Switch) for value in after.values())
    for key, value in before.items():
        assert after[key] is value, key


def test_install_passes_over_a_kernel_made_outside_any_module() -> None:
    # python_entry's kernels are made by exec: their function has no module.
    from collision.kernels import python_entry
    from collision.solvers.iterative.colours import keep_order

    holder = types.ModuleType("holds_a_python_entry")
    holder.entry = python_entry(keep_order)  # type: ignore[attr-defined]
    assert holder.entry.py_func.__module__ is None  # type: ignore[attr-defined]
    sys.modules[holder.__name__] = holder
    try:
        interpreter.install()
        try:
            assert interpreter.is_installed()
            assert isinstance(holder.entry, CPUDispatcher)  # type: ignore[attr-defined]
        finally:
            interpreter.uninstall()
    finally:
        del sys.modules[holder.__name__]


def test_a_thread_in_compiled_here_runs_compiled_while_the_others_interpret(installed: object) -> None:
    """numpy keeps float32 arithmetic in float32; the compiled kernel returns a Python float:
    the result's type tells which form ran."""
    assert isinstance(geometry.wrap_angle, interpreter.Switch)
    seen: dict[str, object] = {}

    def compiled() -> None:
        with interpreter.compiled_here():
            seen["compiled"] = geometry.wrap_angle(np.float32(4.0))
        seen["after"] = geometry.wrap_angle(np.float32(4.0))

    thread = threading.Thread(target=compiled)
    thread.start()
    seen["main"] = geometry.wrap_angle(np.float32(4.0))
    thread.join()
    assert type(seen["compiled"]) is float
    assert type(seen["main"]) is np.float32
    assert type(seen["after"]) is np.float32, "compiled_here leaked out of its block"
    assert seen["compiled"] == pytest.approx(4.0 - 2.0 * np.pi, abs=1e-6)
    assert float(seen["main"]) == pytest.approx(4.0 - 2.0 * np.pi, abs=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_interpreted_level_schedules_are_the_compiled_ones(installed: object, seed: int) -> None:
    """The levels a small world's passes take, interpreted (the program's first minute) and
    compiled: the same order (numpy's bools and integers are not numba's)."""
    from collision.kernels import python_entry
    from collision.solvers.iterative import colours

    rng = np.random.default_rng(seed)
    n, groups = 60, 300
    a = rng.integers(0, n, groups)
    original = np.zeros((groups, 4), dtype=np.int64)
    original[:, 0], original[:, 1] = a, (a + rng.integers(1, n, groups)) % n
    moves = rng.random(n) > 0.1
    for name in ("level_order", "balanced_levels"):
        schedule = getattr(colours, name)
        assert isinstance(schedule, interpreter.Switch), name
        interpreted = schedule(original, moves, colours.SOLVE_STREAMS)
        compiled = python_entry(schedule.dispatcher)(original, moves, colours.SOLVE_STREAMS)
        for got, want in zip(interpreted, compiled, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_a_kernel_compiled_while_installed_calls_the_kernels_it_names(tmp_path: Path) -> None:
    """With an empty cache, a kernel compiled inside compiled_here (the program's fallback
    when its warm-up process fails) finds switches among its globals and compiles anyway."""
    child = textwrap.dedent(
        """
        import json
        import numpy as np
        from collision import geometry, interpreter
        interpreter.install()
        angles = np.array([4.0, -4.0, 1.0])
        with interpreter.compiled_here():
            geometry.wrap_angles(angles)
        print(json.dumps({"angles": angles.tolist(), "signatures": len(geometry.wrap_angles.signatures)}))
        """
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["signatures"] == 1, "it ran interpreted instead of compiling"
    assert result["angles"] == pytest.approx([4.0 - 2.0 * np.pi, -4.0 + 2.0 * np.pi, 1.0], abs=1e-12)
