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
Its results never depend on the thread count, so the count may change from one step to the next.

That is what ``threads = 0`` does (:class:`ThreadPace`): a step's parallel loops wait for their
slowest thread, so a thread that loses its core to another process holds up every loop of the
step. On two cores with one busy elsewhere, the 8000-body pile stepped in 24.6 ms a step on two
threads and 11.6 on one (medians over steps 150-300). The pace notices when, over a tenth of a
second of steps, the threads had less processor time than their wall-clock time asks for, tries
fewer threads for a few steps and keeps them if they are faster; on fewer threads it tries more
now and then, less often while they lose.
"""

from __future__ import annotations

import importlib
import statistics
from collections import deque
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


def step_threads(asked: int, rows: int, pace: ThreadPace | None = None) -> int | None:
    """How a step of a world of ``rows`` rows runs: None for a small world (fewer than
    THREADED_BODIES rows: body order, one thread, the one-thread kernels); else the threads
    its parallel loops may use for ``asked`` (0: as many as numba runs, NUMBA_NUM_THREADS, or
    fewer as ``pace`` finds them faster; else at most that; 1 without a fast threading layer),
    numba set to use them."""
    if rows < THREADED_BODIES:
        return None
    most = config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    threads = most if asked == 0 else min(asked, most)
    if threads < 2 or not fast_layer():
        return 1
    if asked == 0 and pace is not None:
        threads = pace.threads(threads)
    if threads != numba.get_num_threads():
        numba.set_num_threads(threads)
    return threads


#: The threads' share of their cores (the process's processor time over the wall-clock time
#: times the threads) under which they count as crowded, measured over at least
#: :data:`SHARE_WINDOW` seconds of steps: the system accounts another thread's processor time
#: in scheduler ticks (1-4 ms), so one step's share of a few milliseconds means nothing.
CORE_SHARE, SHARE_WINDOW = 0.85, 0.1
#: Steps a try of another thread count takes; the median of their times is compared.
TRY_STEPS = 3
#: The step times at the current count a try is compared with (the latest, their median).
KEPT_TIMES = 8
#: A try's median step time must be at most this share of the current count's to switch.
FASTER = 0.9
#: Steps between tries, from the first to the longest: a try that loses doubles the wait for
#: the next one in its direction, one that wins resets both.
FIRST_WAIT, LONGEST_WAIT = 16, 512
#: On fewer threads than the most, steps this many times as long as when a try of more last
#: lost (the scene grew) bring the next try forward.
GROWN = 1.5


class ThreadPace:
    """The thread count of a big world's steps under ``threads = 0``: the most allowed while
    they get their cores, fewer while a try shows fewer to be faster (see the module
    docstring). Results do not depend on the count, only the time a step takes.

    Call :meth:`threads` before a step for its count and :meth:`record` after it with its
    times. On more than one thread, a window of steps whose threads had less than
    :data:`CORE_SHARE` of their cores starts a try of half as many for :data:`TRY_STEPS`
    steps; on fewer than the most, a try of twice as many comes every so many steps
    (:data:`FIRST_WAIT` to :data:`LONGEST_WAIT`, sooner once the steps have grown by
    :data:`GROWN`). A try whose median step time is at most :data:`FASTER` times that of the
    latest steps on the current count makes its count the current one. On a quiet machine the
    threads get their cores, so the pace seldom tries fewer; it costs two clock reads a step."""

    def __init__(self) -> None:
        self.most = 0
        self.current = 0
        self._reset(0)

    def _reset(self, most: int) -> None:
        self.most = most
        self.current = most
        self.trying = 0  # the count being tried, 0: none
        self._tried: list[float] = []
        self._times: deque[float] = deque(maxlen=KEPT_TIMES)
        self._window = [0.0, 0.0]  # wall-clock and processor seconds since the share was last read
        self._up_gap = self._up_wait = FIRST_WAIT
        self._down_gap, self._down_wait = FIRST_WAIT, 0
        self._lost_at = 0.0  # the current count's median step time when a try of more last lost

    def threads(self, most: int) -> int:
        """The count for the next step, at most ``most`` (>= 1; a new ``most`` starts over
        from it)."""
        if most != self.most:
            self._reset(most)
        return self.trying or self.current

    def record(self, threads: int, wall: float, cpu: float) -> None:
        """The step :meth:`threads` was asked for ran on ``threads`` threads in ``wall`` s of
        wall-clock time, the process using ``cpu`` s of processor time meanwhile."""
        if threads != (self.trying or self.current) or wall <= 0.0:
            return  # not the step the pace chose (the count was set elsewhere)
        if self.trying:
            self._tried.append(wall)
            if len(self._tried) == TRY_STEPS:
                self._judge()
            return
        self._times.append(wall)
        ready = len(self._times) >= TRY_STEPS
        if self.current > 1:
            self._down_wait = max(self._down_wait - 1, 0)
            if self._crowded(wall, cpu) and ready and self._down_wait == 0:
                self.trying = max(1, self.current // 2)
                return
        if self.current < self.most:
            self._up_wait -= 1
            if ready and self._lost_at and statistics.median(self._times) > GROWN * self._lost_at:
                self._up_wait = 0
            if ready and self._up_wait <= 0:
                self.trying = min(self.most, 2 * self.current)

    def _crowded(self, wall: float, cpu: float) -> bool:
        """Whether the window this step closes (if it closes one) had its threads crowded."""
        self._window[0] += wall
        self._window[1] += cpu
        if self._window[0] < SHARE_WINDOW:
            return False
        share = self._window[1] / (self._window[0] * self.current)
        self._window = [0.0, 0.0]
        return share < CORE_SHARE

    def _judge(self) -> None:
        tried = statistics.median(self._tried)
        now = statistics.median(self._times)
        if tried <= FASTER * now:
            self.current = self.trying
            self._times.clear()
            self._times.extend(self._tried)
            self._up_gap = self._up_wait = FIRST_WAIT
            self._down_gap, self._down_wait = FIRST_WAIT, 0
            self._lost_at = 0.0
        elif self.trying > self.current:
            self._up_gap = min(2 * self._up_gap, LONGEST_WAIT)
            self._up_wait = self._up_gap
            self._lost_at = now
        else:
            self._down_wait = self._down_gap
            self._down_gap = min(2 * self._down_gap, LONGEST_WAIT)
        self._window = [0.0, 0.0]
        self.trying = 0
        self._tried = []
