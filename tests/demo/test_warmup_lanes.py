"""The warm-up's two lanes sharing the jobs (demo.warmup.run_jobs): each job runs once, jobs of
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

from demo import warmup
from demo.warmup import Job, Tally, Wanted, run_jobs

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
