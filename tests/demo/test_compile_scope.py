"""What the default scene compiles: its own solver's kernels, each for one argument type only.

A cold start compiles every kernel the first step reaches, so the default scene must not reach
the other solvers' kernels, and no kernel may be compiled twice because its callers disagree on
a dtype, a layout, a record's field types or an int literal (numba compiles a kernel again for
each literal value it is passed, even one that a later assignment replaces). The probe is
``python -m demo bench --compile``'s round, as the program's warm-up runs it: with an empty
numba cache, the parts of the default scene's step compiled by two processes at the same time
(``World.precompile``: one builds the scene first, the other, a lane, starts at once on a world
without bodies), then one step in the first; each process lists every engine kernel it
compiled with the argument types it compiled it for (a kernel loaded from the cache does not
load the kernels it calls into their dispatchers, so only compiles show them all).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from demo.bench import compile as cold

#: Modules of the solvers the default scene does not use.
OTHER_SOLVERS = ("collision.solvers.tutorial.", "collision.solvers.arcade.")
#: numba's string kernels and the error text of a copy between arrays of other shapes.
TEXT_KERNELS = ("numba.cpython.unicode.", "numba.np.arrayobj.ol_raise_with_shape_context")


def test_default_scene_compiles_its_solver_once_per_kernel_and_no_other_solver() -> None:
    measured = cold.cold_round(lanes=2)
    compiled = measured["signatures"]
    # The probe sees the step's entry points and the kernels they call (else the checks below
    # would pass on nothing).
    assert "collision.bodies.open_step" in compiled
    assert "collision.solvers.iterative.iterative_step" in compiled
    assert "collision.manifold._closest_features" in compiled
    others = sorted(name for name in compiled if name.startswith(OTHER_SOLVERS))
    assert not others, f"the default scene compiled other solvers' kernels: {others}"
    # Over the part processes and the step's: a kernel the step passes other argument types
    # than its part did would be compiled again, for them.
    twice = {name: types for name, types in compiled.items() if len(set(types)) > 1}
    assert not twice, f"kernels compiled for more than one argument type: {twice}"
    # numba formats the error of an array copied whole into a slice or row of another shape
    # (``a[:k] = b[:k]``, ``a[i] = a[j]``) with its string kernels: some twenty kernels and 2 s
    # of a cold start for a message no step can raise (the copies are written element by
    # element).
    text = sorted(name for name in measured["own_s"] if name.startswith(TEXT_KERNELS))
    assert not text, f"the default scene compiled numba's text kernels: {text}"
    # The parts (World.precompile) compiled all the step calls: the step only its own kernel.
    assert [lane["part"] for lane in measured["lanes"]] == ["contacts", "response"]
    step_compiled = {name for name in measured["step_process"]["compiled"] if name.startswith("collision.")}
    assert step_compiled == {"collision.solvers.iterative.iterative_step"}
    # The measure's own accounting: every engine kernel compiled shows in the compile events
    # (each with its own time), and the own times of all compiles fit in the processes' times.
    assert measured["scene"] == "rigid" and measured["solver"] == "iterative"
    assert set(compiled) <= set(measured["own_s"])
    assert measured["specialisations"] >= sum(len(types) for types in compiled.values())
    walls = measured["step_process"]["wall_s"] + sum(lane["wall_s"] for lane in measured["lanes"])
    assert 0.0 < sum(measured["own_s"].values()) <= walls


#: A few steps of every solver on a small stack, in a fresh process, listing the text kernels
#: (TEXT_KERNELS) each solver's compile reached.
_EVERY_SOLVER = """
import json
from numba.core import event
from collision import Polygon, World
from collision.solvers import SOLVERS

compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        dispatcher = ev.data.get("dispatcher")
        if dispatcher is not None:
            compiled.append(dispatcher.py_func.__module__ + "." + dispatcher.py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Listener())
text = {}
for solver in SOLVERS:
    compiled.clear()
    world = World(solver=solver)
    world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
    for i in range(5):
        world.add_body(Polygon.box(1.0, 1.0), (0.1 * i, 0.5 + 1.05 * i))
    for _ in range(30):
        world.step(1 / 60)
    text[solver] = sorted({name for name in compiled if name.startswith(%r)})
print(json.dumps(text))
"""


def test_no_solver_compiles_numbas_text_kernels(tmp_path: Path) -> None:
    """Every solver's step, compiled into an empty cache, reaches none of numba's string kernels
    (see the test above): the tutorial's dropped impact point and the arcade's pending hits
    copied rows whole, and compiled them (17 kernels)."""
    script = _EVERY_SOLVER % (TEXT_KERNELS,)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    text = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(text) == {"tutorial", "arcade", "iterative"}
    assert all(not names for names in text.values()), f"numba's text kernels compiled: {text}"
