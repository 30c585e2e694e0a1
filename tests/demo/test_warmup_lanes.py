"""The warm-up's two lanes sharing the jobs (demo.warmup_lanes.run_jobs): each job runs once, jobs of
one family (a solver's and its coverage's, which compile the same kernels) not at the same
time while there is other work, and a job a lane could not finish runs here. The lane here is
a thread standing in for the lane process (the real one is run by the first-run window tests);
what is checked is the sharing."""

from __future__ import annotations

import io
import queue
import threading
import time
from typing import Any

from demo import warmup, warmup_lanes
from demo.warmup import Job, Tally
from demo.warmup_lanes import Wanted, run_jobs

START = "rigid"
#: How long jobs take, in the proportions of a cold start: the first scene's job (its step),
#: then a solver's jobs, are long; the rest, whose kernels are mostly compiled by then, short.
SECONDS = {"scene:rigid": 0.3, "solver:tutorial": 0.2, "solver:arcade": 0.2}


class Recorder:
    """Runs jobs by sleeping a little, recording which ran where and what overlapped."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ran: list[tuple[str, str]] = []
        self.running: list[Job] = []
        self.overlaps: list[tuple[str, str]] = []

    def run(self, job: Job, where: str) -> None:
        with self.lock:
            self.overlaps += [(other.key, job.key) for other in self.running if other.family == job.family]
            self.running.append(job)
        time.sleep(SECONDS.get(job.key, 0.01))
        with self.lock:
            self.running.remove(job)
            self.ran.append((where, job.key))


class ThreadLane:
    """What run_jobs needs of a lane, as a thread: ``send`` a job line, ``result`` when done;
    ``dies_on`` a job key it ends on instead of running."""

    def __init__(self, recorder: Recorder, dies_on: str | None = None) -> None:
        self.recorder = recorder
        self.dies_on = dies_on
        self.results: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def send(self, line: str) -> bool:
        kind, _, key = line.partition(" ")
        assert kind == "job"
        if key == self.dies_on:
            self.results.put(None)
            return True

        def work() -> None:
            self.recorder.run(Job.from_key(key, START), "lane")
            self.results.put({"job": key, "seconds": 0.01, "compiled": 0})

        threading.Thread(target=work, daemon=True).start()
        return True

    def result(self) -> dict[str, Any] | None:
        return self.results.get(timeout=30)


def _share(jobs: list[Job], lane: ThreadLane | None, recorder: Recorder) -> list[str]:
    out = io.StringIO()
    run_jobs(list(jobs), Wanted(None), lane, lambda job: recorder.run(job, "here"), Tally(out))  # type: ignore[arg-type]
    return [line for line in out.getvalue().splitlines() if '"done"' in line]


def test_each_job_runs_once_in_one_lane_or_the_other_and_families_take_turns() -> None:
    jobs = warmup.plan(START, ["rigid", "sat", "pile", "crack"], "iterative")
    recorder = Recorder()
    done = _share(jobs, ThreadLane(recorder), recorder)
    assert sorted(key for _, key in recorder.ran) == sorted(job.key for job in jobs)
    assert len(done) == len(jobs)
    assert {where for where, _ in recorder.ran} == {"here", "lane"}  # both did some
    # solver:tutorial and coverage:tutorial (and arcade's, iterative's) never ran at once.
    assert recorder.overlaps == []


def test_a_job_the_lane_could_not_finish_runs_here() -> None:
    jobs = warmup.plan(START, ["rigid", "sat"], "iterative")
    recorder = Recorder()
    _share(jobs, ThreadLane(recorder, dies_on="solver:tutorial"), recorder)
    assert sorted(key for _, key in recorder.ran) == sorted(job.key for job in jobs)
    assert ("here", "solver:tutorial") in recorder.ran


def test_without_a_lane_every_job_runs_here_in_the_plan_order() -> None:
    jobs = warmup.plan(START, ["rigid", "sat", "pile"], "iterative")
    recorder = Recorder()
    _share(jobs, None, recorder)
    assert recorder.ran == [("here", job.key) for job in jobs]


class PartLane(ThreadLane):
    """A lane that is first on a part of the step (``part NAME SOLVER``) for ``seconds``."""

    def __init__(self, recorder: Recorder, seconds: float) -> None:
        super().__init__(recorder)
        self.seconds = seconds
        self.parts: list[str] = []

    def send(self, line: str) -> bool:
        kind, _, rest = line.partition(" ")
        if kind != "part":
            return super().send(line)
        self.parts.append(rest)

        def work() -> None:
            time.sleep(self.seconds)
            self.results.put({"part": rest.split()[0], "seconds": self.seconds, "compiled": 0})

        threading.Thread(target=work, daemon=True).start()
        return True


class FakeWorld:
    """What precompile_first_step needs of a world: its solver, its parts, precompile."""

    def __init__(self, solver: str) -> None:
        self.solver = solver
        self.precompile_parts = ("contacts", "response") if solver == "iterative" else ()
        self.compiled: list[str] = []

    def precompile(self, part: str) -> None:
        self.compiled.append(part)


def test_the_lane_starts_on_the_second_part_and_the_first_is_compiled_here() -> None:
    lane = PartLane(Recorder(), seconds=0.2)
    sent = warmup_lanes.start_second_part(lane, "iterative")  # type: ignore[arg-type]
    assert sent == "iterative" and lane.parts == ["response iterative"]
    world = FakeWorld("iterative")
    t0 = time.perf_counter()
    assert warmup_lanes.precompile_first_step(world, lane, sent) is False  # type: ignore[arg-type]
    assert world.compiled == ["contacts"]
    assert time.perf_counter() - t0 >= 0.2  # it waited for the lane's part
    # No solver named: the one whose step has parts. A solver without parts sends nothing.
    other = PartLane(Recorder(), seconds=0.0)
    assert warmup_lanes.start_second_part(other, None) == "iterative"  # type: ignore[arg-type]
    assert other.parts == ["response iterative"]
    assert warmup_lanes.start_second_part(PartLane(Recorder(), 0.0), "tutorial") is None  # type: ignore[arg-type]


def test_a_scene_of_another_solver_does_not_wait_for_the_lane_s_part() -> None:
    """The lane's part is for the solver with parts; the first scene steps with another: its
    jobs start here at once, and the lane takes jobs once its part is done."""
    recorder = Recorder()
    lane = PartLane(recorder, seconds=0.3)
    sent = warmup_lanes.start_second_part(lane, "iterative")  # type: ignore[arg-type]
    world = FakeWorld("tutorial")
    t0 = time.perf_counter()
    busy = warmup_lanes.precompile_first_step(world, lane, sent)  # type: ignore[arg-type]
    assert busy is True and world.compiled == [] and time.perf_counter() - t0 < 0.1
    jobs = warmup.plan("sat", ["sat", "rigid", "pile"], "tutorial")
    started: list[tuple[str, float]] = []

    def run(job: Job) -> None:
        started.append((job.key, time.perf_counter() - t0))
        recorder.run(job, "here")

    run_jobs(list(jobs), Wanted(None), lane, run, Tally(io.StringIO()), busy)  # type: ignore[arg-type]
    assert sorted(key for _, key in recorder.ran) == sorted(job.key for job in jobs)
    assert started[0][1] < 0.1  # the first job here did not wait for the part
    assert {where for where, _ in recorder.ran} == {"here", "lane"}
