"""No array store of the engine is dropped by numba's dead-code removal.

In a kernel compiled with ``parallel=True``, numba 0.68 deletes a store into an array whose
variable it cannot link to the kernel's arguments (unpacked from a tuple inside a parallel
loop's body, say) when nothing later in the body reads that variable: the write never happens,
whatever the thread count (soft_step's threaded packing lost its softness rows this way). So
the big world's threaded step is compiled here into an empty cache with numba's dead-code
removal watched, and every array store it removed from the engine's code is an error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")

WATCH_AND_STEP = r"""
import json
from numba.core import ir, ir_utils
from numba.parfors import parfor

removed = set()

def stores(blocks):
    found = {}
    for block in blocks:
        for statement in block.body:
            if isinstance(statement, (ir.SetItem, ir.StaticSetItem)):
                found[id(statement)] = statement
            if isinstance(statement, parfor.Parfor):
                found.update(stores([statement.init_block, *statement.loop_body.values()]))
    return found

def watched(remove, blocks_of):
    def remove_watching(node, *args, **kwargs):
        before = stores(blocks_of(node))
        result = remove(node, *args, **kwargs)
        after = stores(blocks_of(node))
        for key, statement in before.items():
            if key not in after:
                removed.add(f"{statement.loc.filename}:{statement.loc.line} {statement.target.name}")
        return result
    return remove_watching

ir_utils.remove_dead_block = watched(ir_utils.remove_dead_block, lambda block: [block])
extensions = ir_utils.remove_dead_extensions
extensions[parfor.Parfor] = watched(
    extensions[parfor.Parfor], lambda node: [node.init_block, *node.loop_body.values()]
)

from tests.collision.test_threads import DT, stacked_boxes

world = stacked_boxes(40, 60, threads=2, heavy_rows=5)
world.step(DT)
print(json.dumps(sorted(removed)))
"""


@pytest.mark.skipif(not JIT, reason="watches numba's compiler: without the JIT there is none")
def test_the_threaded_step_keeps_every_array_store(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_NUM_THREADS": "2"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", WATCH_AND_STEP], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    removed = json.loads(done.stdout.strip().splitlines()[-1])
    engine = [line for line in removed if "/collision/" in line]
    assert not engine, "array stores numba dropped:\n" + "\n".join(engine)
