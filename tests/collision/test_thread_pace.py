"""The thread pace under ``threads = 0`` (collision.threads.ThreadPace): which count it picks
from the step times it is given, and a big world whose count changes from step to step
stepping bit for bit as on one thread."""

from __future__ import annotations

import math
from collections.abc import Callable

from collision.solvers.iterative import IterativeSolver
from collision.threads import (
    FIRST_WAIT,
    KEPT_TIMES,
    LONGEST_WAIT,
    SHARE_WINDOW,
    TRY_STEPS,
    ThreadPace,
    fast_layer,
)
from tests.collision.test_threads import assert_kicked_steps_alike, stacked_boxes

#: A step's time on n threads: (wall-clock s, the process's processor s).
Machine = Callable[[int], tuple[float, float]]


def quiet(n: int) -> tuple[float, float]:
    """Every thread gets its core: two threads step in 0.6 of one's time."""
    wall = 0.010 if n == 1 else 0.006
    return wall, wall * n


def busy(n: int) -> tuple[float, float]:
    """Another process holds a core: one thread steps in 11 ms, two wait for each other, 24 ms,
    each running about a third of that."""
    return (0.011, 0.011) if n == 1 else (0.024, 0.024 * 0.7)


def crowded_but_faster(n: int) -> tuple[float, float]:
    """The threads lose some of their cores' time, yet two still step faster than one."""
    return (0.010, 0.010) if n == 1 else (0.007, 0.007 * 1.4)


def counts(pace: ThreadPace, machine: Machine, steps: int, most: int = 2) -> list[int]:
    """The count the pace picks for each of ``steps`` steps on ``machine``."""
    used = []
    for _ in range(steps):
        n = pace.threads(most)
        used.append(n)
        pace.record(n, *machine(n))
    return used


def runs(used: list[int]) -> list[tuple[int, int]]:
    """``used`` as (count, steps in a row)."""
    out: list[tuple[int, int]] = []
    for n in used:
        if out and out[-1][0] == n:
            out[-1] = (n, out[-1][1] + 1)
        else:
            out.append((n, 1))
    return out


def test_quiet_machine_keeps_every_thread() -> None:
    assert set(counts(ThreadPace(), quiet, 2000)) == {2}


def test_busy_core_moves_to_one_thread_after_a_try() -> None:
    used = counts(ThreadPace(), busy, 40)
    # A window of crowded steps (SHARE_WINDOW seconds of them), then the try, which wins.
    first = math.ceil(SHARE_WINDOW / busy(2)[0] - 1e-9)
    assert used[:first] == [2] * first
    assert used[first : first + TRY_STEPS + 1] == [1] * (TRY_STEPS + 1)


def test_one_short_step_s_share_is_not_read_alone() -> None:
    """The system counts another thread's processor time in scheduler ticks: a step of a
    millisecond may show one thread's time, or five. Only a window of steps is judged."""
    pace = ThreadPace()
    for step in range(2000):
        n = pace.threads(2)
        assert n == 2, f"step {step}"
        # Ticks land on every fifth step: the share reads 0.5 four steps in five, 2.5 on the fifth.
        pace.record(n, 0.001, 0.001 if step % 5 else 0.005)


def test_tries_of_more_threads_wait_longer_while_they_lose() -> None:
    used = counts(ThreadPace(), busy, 6000)
    found = runs(used)
    # After the first switch: runs of one thread between tries of two, each try TRY_STEPS
    # long, the waits doubling from FIRST_WAIT up to LONGEST_WAIT.
    tries = [steps for n, steps in found[1:] if n == 2]
    assert tries and set(tries) == {TRY_STEPS}
    waits = [steps for n, steps in found[1:-1] if n == 1]
    expected = [FIRST_WAIT]
    while len(expected) < len(waits):
        expected.append(min(2 * expected[-1], LONGEST_WAIT))
    # The first wait also holds the try of one thread that started it.
    assert [waits[0] - TRY_STEPS, *waits[1:]] == expected
    assert LONGEST_WAIT in waits
    # What the tries cost: a small share of the steps once the waits are long.
    assert used[-2000:].count(2) <= 2000 // LONGEST_WAIT * TRY_STEPS + TRY_STEPS


def test_quiet_again_returns_to_every_thread() -> None:
    pace = ThreadPace()
    assert counts(pace, busy, 100)[-1] == 1
    used = counts(pace, quiet, LONGEST_WAIT + 2 * TRY_STEPS)
    assert used[-1] == 2
    assert set(counts(pace, quiet, 1000)) == {2}


def test_a_scene_that_grows_gets_its_try_of_more_threads_soon() -> None:
    """Small steps run faster on one thread here and the tries of two lose, so they come
    rarely; then the scene grows and two threads pay: the next try comes within a few steps,
    not after the longest wait."""
    grown_at = 3000
    step = 0

    def growing(n: int) -> tuple[float, float]:
        nonlocal step
        step += 1
        if step < grown_at:  # small steps: two threads lose their time to the launches
            return (0.0005, 0.0005) if n == 1 else (0.0008, 0.0008 * 1.2)
        return (0.010, 0.010) if n == 1 else (0.006, 0.012)

    used = counts(ThreadPace(), growing, grown_at + 40)
    assert used[grown_at - 200 : grown_at].count(1) > 190, "small steps went to one thread"
    back = used.index(2, grown_at)
    assert back - grown_at <= KEPT_TIMES and used[-10:] == [2] * 10


def test_a_losing_try_of_fewer_threads_is_not_repeated_at_once() -> None:
    used = counts(ThreadPace(), crowded_but_faster, 3000)
    found = runs(used)
    ones = [steps for n, steps in found if n == 1]
    assert ones and set(ones) == {TRY_STEPS}, "a try of one thread lost and was dropped"
    gaps = [steps for n, steps in found[1:-1] if n == 2]
    assert gaps == sorted(gaps) and gaps[-1] >= LONGEST_WAIT, "the tries came less and less often"


def test_one_thread_allowed_or_a_new_most() -> None:
    pace = ThreadPace()
    assert set(counts(pace, busy, 200, most=1)) == {1}
    assert counts(pace, busy, 30, most=4)[0] == 4  # a new most starts over from it
    # A step the pace did not pick (its count set elsewhere) is not counted.
    pace = ThreadPace()
    for _ in range(50):
        pace.threads(2)
        pace.record(1, 0.001, 0.001)
    assert pace.threads(2) == 2 and not pace.trying


class Alternating(ThreadPace):
    """A pace that changes the count every step: 2, 1, 2, 1, ..."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0

    def threads(self, most: int) -> int:
        self.steps += 1
        return 2 if self.steps % 2 else 1


def test_big_scene_changing_thread_count_every_step_is_bit_identical_to_one_thread() -> None:
    assert fast_layer(), "numba has no OpenMP or TBB threading layer here (see .ci/run)"
    one = stacked_boxes(80, 55, threads=1)
    paced = stacked_boxes(80, 55, threads=0)
    solver = paced._solver_object()
    assert isinstance(solver, IterativeSolver)
    pace = solver._pace = Alternating()
    assert_kicked_steps_alike(one, paced, 24, seed=5, every=8, first=3)
    assert pace.steps == 24
