"""Per-stage step times: the stage names, a clock compiled code can read, and World.profile.

A solver's compiled step marks the end of each stage with :func:`lap`; with the world's
``profiling`` switch off, ``lap`` is one branch and reads no clock. The clock is the
processor's time-stamp counter (one instruction, no system call: cheap enough to read around
every pass of every substep), turned into seconds by :func:`ticks_per_second`, measured once
against ``time.perf_counter``. With ``NUMBA_DISABLE_JIT=1`` the clock is ``perf_counter_ns``.

Stage names follow Box2D v3's profile; a solver fills those it has and leaves the rest at 0.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit, types
from numba.core import config
from numba.extending import intrinsic

from collision import checks, interpreter
from collision.geometry import Index
from collision.kernels import compiled_only

#: The stages of a step, in the order the iterative solver runs them (Box2D v3's names where
#: it has the stage): ``wake`` bodies disturbed since the last step; ``broadphase`` candidate
#: pairs; ``narrowphase`` contact points; ``prepare`` points matched with last step's and
#: their masses and rows packed; ``integrate_velocities`` gravity, per substep; ``warm_start``;
#: ``solve`` the passes with the soft push-out; ``integrate_positions``; ``relax`` the passes
#: without it; ``restitution``; ``continuous`` fast bodies put back at the static body they
#: first touch; ``sleep`` islands; ``store`` the contacts kept for drawing and the next step.
STAGES = (
    "wake",
    "broadphase",
    "narrowphase",
    "prepare",
    "integrate_velocities",
    "warm_start",
    "solve",
    "integrate_positions",
    "relax",
    "restitution",
    "continuous",
    "sleep",
    "store",
)
(
    WAKE,
    BROADPHASE,
    NARROWPHASE,
    PREPARE,
    INTEGRATE_VELOCITIES,
    WARM_START,
    SOLVE,
    INTEGRATE_POSITIONS,
    RELAX,
    RESTITUTION,
    CONTINUOUS,
    SLEEP,
    STORE,
) = (np.int64(stage) for stage in range(len(STAGES)))  # not literals: lap compiles once
#: What ``World.profile`` reports beside the stages: the whole ``World.step`` call, measured
#: in Python around it (so it also holds the checks and the Python side of the solver).
STEP = "step"


@intrinsic
def _read_cycle_counter(typingctx: Any) -> Any:
    """The time-stamp counter (``llvm.readcyclecounter``: rdtsc on x86-64), int64 ticks."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        from llvmlite import ir  # noqa: PLC0415

        function_type = ir.FunctionType(ir.IntType(64), [])
        counter = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=function_type)
        return builder.call(counter, [])

    return types.int64(), codegen


if config.DISABLE_JIT:  # type: ignore[attr-defined]

    def clock() -> int:
        """Now, in ticks (nanoseconds: the JIT is off)."""
        return time.perf_counter_ns()

else:

    @njit(cache=True)
    def clock() -> int:
        """Now, in ticks of the time-stamp counter (see :func:`ticks_per_second`)."""
        return _read_cycle_counter()  # type: ignore[call-arg]  # numba supplies typingctx

    def _interpreted_clock() -> int:
        """:func:`clock` while the engine is interpreted (the counter is an LLVM intrinsic)."""
        return int(time.perf_counter_ns() * ticks_per_second() * 1e-9)

    interpreter.stand_in(clock, _interpreted_clock)


@compiled_only()
def start_clock(ticks: np.ndarray) -> int:
    """Now, for the first :func:`lap` of a run of stages; 0 when ``ticks`` is empty (profiling
    is off: no clock is read)."""
    if ticks.shape[0] == 0:
        return 0
    return clock()


@compiled_only()
def lap(ticks: np.ndarray, stage: Index, since: int) -> int:
    """End ``stage`` (an index into STAGES): add the ticks since ``since`` to ``ticks[stage]``
    and return now. ``ticks (len(STAGES),) int64`` empty (shape 0) means profiling is off:
    nothing is read, 0 returned."""
    if ticks.shape[0] == 0:
        return 0
    now = clock()
    ticks[stage] += now - since
    return now


_RATE: list[float] = []
#: The tick counters of a step that is not profiled (empty: :func:`lap` reads no clock).
NOT_PROFILED = np.zeros(0, dtype=np.int64)


def ticks_per_second() -> float:
    """Ticks of :func:`clock` per second: measured once per process over 20 ms against
    ``time.perf_counter`` (the counter runs at a constant rate on current x86-64 processors)."""
    if not _RATE:
        if config.DISABLE_JIT:  # type: ignore[attr-defined]
            _RATE.append(1e9)
        else:
            with interpreter.compiled_here():  # the counter itself, even while interpreted
                clock()  # load or compile it before timing it
                t0 = time.perf_counter()
                c0 = clock()
                time.sleep(0.02)
                c1 = clock()
                t1 = time.perf_counter()
            _RATE.append((c1 - c0) / (t1 - t0))
    return _RATE[0]


class Profile:
    """Seconds per stage (:data:`STAGES`, plus :data:`STEP`, the whole ``World.step``) of the
    last profiled step (``last``) and summed over every profiled step since the last
    :meth:`reset` (``total``, over ``steps`` steps). A stage a solver does not have stays 0.

    Turn it on with ``world.profile.enabled = True`` (default off: a step then reads no clock
    and is not counted).

    >>> from collision import Polygon, World
    >>> world = World()
    >>> world.add_body(Polygon.box(1.0, 1.0), (0.0, 0.0))
    0
    >>> world.profile.enabled = True
    >>> world.step(1 / 60)
    >>> world.profile.steps, sorted(world.profile.last)[:3]
    (1, ['broadphase', 'continuous', 'integrate_positions'])
    """

    def __init__(self) -> None:
        self.ticks = np.zeros(len(STAGES), dtype=np.int64)
        self._total = np.zeros(len(STAGES) + 1)
        self._last = np.zeros(len(STAGES) + 1)
        self.steps = 0
        self._enabled = False
        self._start = 0.0

    @property
    def enabled(self) -> bool:
        """Time the stages of every step (default False)."""
        return self._enabled

    @enabled.setter
    def enabled(self, value: Any) -> None:
        self._enabled = checks.boolean(value, "profile.enabled")

    def reset(self) -> None:
        """Forget the totals and the last step."""
        self._total[:] = 0.0
        self._last[:] = 0.0
        self.steps = 0

    def begin(self) -> np.ndarray:
        """A step starts (the world calls this): the tick counters for its step context, zeroed,
        or an empty array when profiling is off."""
        if not self._enabled:
            return NOT_PROFILED
        self._start = time.perf_counter()
        self.ticks[:] = 0
        return self.ticks

    def end(self) -> None:
        """The step begun has ended (the world calls this when the step completes; a step that
        raised is not counted): its stages and its time recorded."""
        if not self._enabled:
            return
        self._last[-1] = time.perf_counter() - self._start
        self._last[:-1] = self.ticks / ticks_per_second()
        self._total += self._last
        self.steps += 1

    def __enter__(self) -> np.ndarray:
        """``with world.profile as ticks:`` around a step: :meth:`begin`, then :meth:`end` if
        the step completes (a step that raised is not counted)."""
        return self.begin()

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if kind is None:
            self.end()

    @staticmethod
    def _named(values: np.ndarray) -> dict[str, float]:
        return dict(zip((*STAGES, STEP), map(float, values), strict=True))

    @property
    def last(self) -> dict[str, float]:
        """Seconds per stage of the last profiled step, and ``"step"``."""
        return self._named(self._last)

    @property
    def total(self) -> dict[str, float]:
        """Seconds per stage summed over the profiled steps, and ``"step"``."""
        return self._named(self._total)

    def table(self) -> str:
        """The totals as a text table (see :func:`stage_table`)."""
        if self.steps == 0:
            return "no profiled steps (world.profile.enabled = True turns the profile on)"
        return stage_table(self.total, self.steps)


def stage_table(total: dict[str, float], steps: int, indent: str = "") -> str:
    """``total`` (seconds per stage and ``"step"`` over ``steps`` steps, as ``Profile.total``)
    as text: per stage ms/step and its share of the step; the last line says what the stages
    leave out (the Python side of the step)."""
    step = total.get(STEP, 0.0)
    lines = [f"{indent}{'stage':22s}{'ms/step':>10s}{'share':>8s}"]
    for name, seconds in total.items():
        share = seconds / step if step > 0.0 else 0.0
        lines.append(f"{indent}{name:22s}{seconds * 1e3 / steps:10.4f}{share:8.1%}")
    outside = step - sum(v for k, v in total.items() if k != STEP)
    lines.append(f"{indent}{'(outside the stages)':22s}{outside * 1e3 / steps:10.4f}")
    return "\n".join(lines)
