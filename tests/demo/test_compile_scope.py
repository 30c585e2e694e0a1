"""What the default scene compiles: its own solver's kernels, each for one argument type only.

A cold start compiles every kernel the first step reaches (most of a minute on two cores), so
the default scene must not reach the other solvers' kernels, and no kernel may be compiled twice
because its callers disagree on a dtype, a layout, a record's field types or an int literal
(numba compiles a kernel again for each literal value it is passed, even one that a later
assignment replaces). The probe runs one step of ``python -m demo``'s default scene in a fresh
process with an empty numba cache (a kernel loaded from the cache does not load the kernels it
calls into their dispatchers, so only a compile shows them all) and lists every engine kernel
with the argument types it was compiled for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from numba.core.registry import CPUDispatcher
from demo.__main__ import main

main(["--stats", "--steps", "1"])
compiled = {}
for name, module in list(sys.modules.items()):
    if name != "collision" and not name.startswith("collision."):
        continue
    for attr, value in vars(module).items():
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name and value.signatures:
            compiled[name + "." + attr] = [str(s) for s in value.signatures]
print(json.dumps(compiled))
"""

#: Modules of the solvers the default scene does not use.
OTHER_SOLVERS = ("collision.solvers.tutorial.", "collision.solvers.arcade.")


def _compiled_by_default_scene(cache: Path) -> dict[str, list[str]]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=1800, check=False, env=env
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def test_default_scene_compiles_its_solver_once_per_kernel_and_no_other_solver(tmp_path: Path) -> None:
    compiled = _compiled_by_default_scene(tmp_path)
    # The probe sees the step's entry points and the kernels they call (else the checks below
    # would pass on nothing).
    assert "collision.bodies.begin_step" in compiled
    assert "collision.solvers.iterative.iterative_step" in compiled
    assert "collision.manifold._closest_features" in compiled
    others = sorted(name for name in compiled if name.startswith(OTHER_SOLVERS))
    assert not others, f"the default scene compiled other solvers' kernels: {others}"
    twice = {name: types for name, types in compiled.items() if len(set(types)) > 1}
    assert not twice, f"kernels compiled for more than one argument type: {twice}"
