"""What the default scene compiles: its own solver's kernels, each for one argument type only.

A cold start compiles every kernel the first step reaches, so the default scene must not reach
the other solvers' kernels, and no kernel may be compiled twice because its callers disagree on
a dtype, a layout, a record's field types or an int literal (numba compiles a kernel again for
each literal value it is passed, even one that a later assignment replaces). The probe is
``python -m demo bench --compile``'s measuring child: one step of ``python -m demo``'s default
scene in a fresh process with an empty numba cache (a kernel loaded from the cache does not load
the kernels it calls into their dispatchers, so only a compile shows them all); it lists every
engine kernel with the argument types it was compiled for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Modules of the solvers the default scene does not use.
OTHER_SOLVERS = ("collision.solvers.tutorial.", "collision.solvers.arcade.")


def _cold_step(cache: Path) -> dict[str, Any]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.pop("NUMBA_DISABLE_JIT", None)
    result = subprocess.run(
        [sys.executable, "-m", "demo.bench.compile"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def test_default_scene_compiles_its_solver_once_per_kernel_and_no_other_solver(tmp_path: Path) -> None:
    measured = _cold_step(tmp_path)
    compiled = measured["signatures"]
    # The probe sees the step's entry points and the kernels they call (else the checks below
    # would pass on nothing).
    assert "collision.bodies.open_step" in compiled
    assert "collision.solvers.iterative.iterative_step" in compiled
    assert "collision.manifold._closest_features" in compiled
    others = sorted(name for name in compiled if name.startswith(OTHER_SOLVERS))
    assert not others, f"the default scene compiled other solvers' kernels: {others}"
    twice = {name: types for name, types in compiled.items() if len(set(types)) > 1}
    assert not twice, f"kernels compiled for more than one argument type: {twice}"
    # The measure's own accounting: every engine kernel compiled shows in the compile events
    # (each with its own time), and the own times of all compiles fit in the wall time.
    assert measured["scene"] == "rigid" and measured["solver"] == "iterative"
    assert set(compiled) <= set(measured["own_s"])
    assert measured["specialisations"] >= sum(len(types) for types in compiled.values())
    assert 0.0 < sum(measured["own_s"].values()) <= measured["wall_s"]
