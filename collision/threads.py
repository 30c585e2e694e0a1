"""Whether a step runs its parallel loops, and on how many threads.

A world of at least ``THREADED_BODIES`` rows steps with the iterative solver's big-world
kernels (compiled the first time such a world steps, then cached like the others): contacts
solved colour by colour (collision/solvers/iterative/colours.py), the narrowphase and the
passes' big colours on as many threads as the solver's ``threads`` setting asks (1 by
default). Smaller worlds step with the one-thread kernels alone,
in body order, so the parallel code costs a small scene nothing, not even its compile.

The parallel loops run on numba's threading layer: with OpenMP or TBB a loop's launch costs a
microsecond or two; numba's own fallback (``workqueue``) takes tens of microseconds, more than
the solver's per-colour loops gain, so without a fast layer a big world steps on one thread.
Its results never depend on the thread count.
"""

from __future__ import annotations

import importlib
from functools import cache

import numba
from numba.core import config

#: Rows from which a world steps with the big-world kernels (colour order, several threads).
THREADED_BODIES = 2048


@cache
def fast_layer() -> bool:
    """Whether numba's threading layer is OpenMP or TBB (importable, and not overridden by
    ``NUMBA_THREADING_LAYER=workqueue``)."""
    if config.THREADING_LAYER == "workqueue":  # type: ignore[attr-defined]
        return False
    for pool in ("omppool", "tbbpool"):
        try:
            importlib.import_module(f"numba.np.ufunc.{pool}")
        except ImportError:
            continue
        return True
    return False


def step_threads(asked: int, rows: int) -> int | None:
    """How a step of a world of ``rows`` rows runs: None for a small world (fewer than
    THREADED_BODIES rows: body order, one thread, the one-thread kernels); else the threads
    its parallel loops may use for ``asked`` (0: as many as numba runs, NUMBA_NUM_THREADS; else
    at most that; 1 without a fast threading layer), numba set to use them."""
    if rows < THREADED_BODIES:
        return None
    most = config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    threads = most if asked == 0 else min(asked, most)
    if threads < 2 or not fast_layer():
        return 1
    if threads != numba.get_num_threads():
        numba.set_num_threads(threads)
    return threads
