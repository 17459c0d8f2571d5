"""`course autograde`: nbgrader's autograde for a class, each submission graded by a worker,
the gradebook written by this process alone.

A worker is a grading thread of this process (graders.autograde.local) or, with
``scheduler``, a thread of a Dask worker process (graders.autograde.cluster). Each runs the
whole pipeline of a submission (graders.autograde.pipeline: nbgrader's sanitize steps, the
sandboxed execution, nbgrader's finishing steps) and returns the graded notebook's folder
and the grades. This process only
- reads each submission (its bytes, its fingerprint) and what the gradebook recorded of each
  assignment (once per batch), and hands them out, a bounded number at a time;
- writes what comes back: DIR/autograded, the gradebook, the status records
  (graders.autograde.intake), in groups, as results arrive;
- scores a missing submission 0 itself, with no notebook to grade.
An assignment whose hidden tests are judged outside the kernel needs its reference
observations, and one that calls torch.compile gets a private copy of its warmed compile
cache per submission: one run of its reference notebook makes both (graders.course.reference),
in a thread of this process while the other assignments are graded (those that need it are
handed out last). A killed run loses at most the submissions in flight,
which the next run grades again.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

from nbgrader.api import MissingEntry
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import find_all_files
from tqdm import tqdm

from graders.course import compile_cache, reference
from graders.course.config import Course
from graders.course.layout import CourseError, ensure_course_dir, released_assignments
from graders.sandbox.bwrap import SandboxUnavailable, require_bwrap
from graders.sandbox.limits import Limits

from . import pipeline, recorded
from .intake import Intake
from .jobs import Job, SubmissionLost, batch_limits, find_jobs, submitted_path
from .local import LocalPool
from .pipeline import Assignment, Submission
from .status import Record
from .worker import read_files


def autograde(course_dir: Path, assignments: list[str] | None = None, workers: int | None = None,
              sandbox: bool = True, limits: Limits | None = None, force: bool = False,
              progress: bool = True, scheduler: str | None = None, pool=None) -> list[Record]:
    """Grade every submission of ``assignments``; return one Record per (student, assignment).
    ``limits``: the course's (c.Limits.*, c.Execute.timeout) when None. ``scheduler``: a Dask
    scheduler's address (graders.autograde.cluster) instead of ``workers`` local threads.
    ``pool``: one already started (graders.autograde.local.start, which `course autograde`
    calls before importing this module); the batch closes it, however it ends."""
    try:
        course = Course(ensure_course_dir(course_dir))
        _check_sandbox(sandbox, local=scheduler is None)
        released = released_assignments(course.dir, assignments)
        jobs = find_jobs(course.dir, released)
        limits = batch_limits(course.limits() if limits is None else limits, course.dir, released)
        course.config.Execute.timeout = int(limits.cell_timeout_s)  # one per-cell limit everywhere
        if pool is None and scheduler is not None:
            from .cluster import DaskPool
            pool = DaskPool(scheduler, sandbox, limits.values())  # fails here, before the gradebook is touched
        elif pool is None:
            pool = LocalPool(workers or os.cpu_count(), limits, sandbox)
        intake = Intake(course.config)
    except BaseException:
        if pool is not None:
            pool.close()
        raise
    records: dict[str, Record] = {}
    todo = []
    for job in jobs:
        done = None if force else intake.stored(job)
        if done is not None:
            records[job.key] = done
        else:
            todo.append(job)
    if todo:
        pool.warm()
    # The reference runs (one per assignment, about 30 s for 06, kept in DIR/reference) go
    # beside the batch: assignments that need none are graded meanwhile, those that do come
    # last and wait.
    needing = reference.needing(course, sorted({job.assignment for job in todo}))
    todo = interleaved(todo, last=needing)
    warming = _Warming(course, needing, limits, sandbox)
    handouts = _Handouts(course, intake, pool, limits, sandbox)
    bar = tqdm(total=len(todo), desc="autograde", unit="nb", disable=not progress)
    timings = TimingLog(os.environ.get("GRADERS_TIMING_LOG"))
    running: dict = {}

    def absorb(done) -> None:
        clock = _Clock()
        results = []
        for future in done:
            job, started, print_ = running.pop(future)
            try:
                graded = pool.result(future)
            except CourseError:
                raise
            except Exception as error:  # a grader bug, workers that died: not the end of the batch
                reason = str(error) if isinstance(error, SubmissionLost) else \
                    f"the grader failed on it: {type(error).__name__}: {_first_line(error)}"
                graded = pipeline.ungraded(handouts.assignment(job.assignment), None, "crashed", reason,
                                           started)
            results.append((job, graded, print_))
        for record in intake.absorb(results):
            records[record.key] = record
        spent = clock.read()
        for job, graded, _ in results:
            timings.write(job, graded.timing, [t / len(results) for t in spent])
        bar.update(len(results))

    def dispatch(job: Job) -> None:
        path = submitted_path(course.dir, job)
        if not path.exists():
            records[job.key] = intake.missing(job, f"no {path.name} in submitted/{job.student}/{job.assignment}/")
            bar.update()
            return
        data = path.read_bytes()
        prepared = warming.prepared(job.assignment, lambda: absorb(pool.ready(running, block=False)))
        submission = Submission(job.student, data, graders_state=handouts.graders_state(job))
        if pool.local:
            submission.folder = str(path.parent)
            warmed = str(prepared.cache) if prepared.cache else None
        else:
            submission.files = {n: b for n, b in read_files(path.parent).items() if n != path.name}
            warmed = handouts.cache(prepared.cache)
        future = pool.submit(pipeline.grade, submission, handouts.get(job.assignment), warmed,
                             handouts.reference(job.assignment, prepared.observations),
                             key=f"autograde-{job.key}-{os.urandom(6).hex()}")
        running[future] = (job, time.monotonic(), hashlib.sha256(data).hexdigest())

    try:
        for job in todo:
            while len(running) >= pool.capacity:
                absorb(pool.ready(running, block=True))
            dispatch(job)
            absorb(pool.ready(running, block=False))
        while running:
            absorb(pool.ready(running, block=True))
    finally:
        bar.close()
        warming.close()
        pool.close()
        intake.close()
    return [records[job.key] for job in jobs]


class _Handouts:
    """What the workers get once per assignment: the Assignment (graders.autograde.pipeline),
    shared through the pool (on a cluster: sent to each worker once), the grades graders gave
    by hand so far, and the warmed compile caches' files."""

    def __init__(self, course: Course, intake: Intake, pool, limits: Limits, sandbox: bool):
        self.course, self.intake, self.pool = course, intake, pool
        self.limits, self.sandbox = limits, sandbox
        self.made: dict[str, Assignment] = {}
        self.shared: dict[str, object] = {}
        self.states: dict[str, dict] = {}
        self.caches: dict[Path, object] = {}
        self.references: dict[str, object] = {}

    def assignment(self, name: str) -> Assignment:
        if name not in self.made:
            gradebook = self.intake.gradebook
            try:
                record = recorded.read_assignment(gradebook, name)
            except MissingEntry:
                raise CourseError(f"{name} is not in the gradebook: run `course release {name}` first") from None
            coursedir = CourseDirectory(config=self.course.config)
            source = Path(coursedir.format_path(coursedir.source_directory, ".", name))
            master = {str(Path(f).relative_to(source)): Path(f).read_bytes()
                      for f in find_all_files(str(source), coursedir.ignore + ["*.ipynb"])}
            released = self.course.dir / "release" / name / f"{name}.ipynb"
            self.made[name] = Assignment(name, self.course.config, record, master,
                                         released.read_text() if released.exists() else _EMPTY,
                                         self.limits.values(), self.sandbox)
            self.states[name] = recorded.graders_states(gradebook, name)
        return self.made[name]

    def get(self, name: str):
        if name not in self.shared:
            self.shared[name] = self.pool.share(self.assignment(name))
        return self.shared[name]

    def graders_state(self, job: Job) -> recorded.SubmissionState | None:
        self.assignment(job.assignment)
        return self.states[job.assignment].get(job.student)

    def reference(self, name: str, observations):
        """The assignment's reference observations (JSON), shared through the pool once."""
        if observations is None:
            return None
        if name not in self.references:
            self.references[name] = self.pool.share(observations.to_json())
        return self.references[name]

    def cache(self, folder: Path | None):
        """The warmed cache's files, shared through the pool once per batch."""
        if folder is None:
            return None
        if folder not in self.caches:
            self.caches[folder] = self.pool.share(read_files(folder))
        return self.caches[folder]


_EMPTY = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def interleaved(jobs: list[Job], last=()) -> list[Job]:
    """One submission of each assignment in turn, those of the assignments in ``last`` after
    all others. Side by side, two grading threads then mostly run different notebooks: one
    that waits (05's loaders sleep on purpose) beside one that computes, rather than two that
    wait together and two that contend together."""
    turn: dict[str, int] = {}
    order = []
    for job in jobs:
        turn[job.assignment] = turn.get(job.assignment, -1) + 1
        order.append((job.assignment in last, turn[job.assignment]))
    return [job for _, job in sorted(zip(order, jobs), key=lambda pair: pair[0])]


class _Warming:
    """The reference runs of ``assignments`` (graders.course.reference), in a thread of their own."""

    def __init__(self, course: Course, assignments: list[str], limits: Limits, sandbox: bool):
        self.assignments = assignments
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reference")
        self.future = self.executor.submit(reference.warm, course, assignments, limits, sandbox,
                                           log=compile_cache.stderr) if assignments else None

    def prepared(self, assignment: str, meanwhile) -> reference.Prepared:
        """``assignment``'s reference observations and warmed cache, calling ``meanwhile()``
        while waiting for them, so that finished submissions are recorded in the meantime. A
        reference that cannot be made stops the batch (CourseError): nothing judged against
        it would be right."""
        if self.future is None or assignment not in self.assignments:
            return reference.Prepared()
        while not self.future.done():
            meanwhile()
            wait([self.future], timeout=0.2)
        return self.future.result()[assignment]

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class _Clock:
    def __init__(self):
        self.start = time.monotonic(), time.process_time()

    def read(self) -> list[float]:
        return [time.monotonic() - self.start[0], time.process_time() - self.start[1]]


class TimingLog:
    """With GRADERS_TIMING_LOG=FILE (benchmarks/), one JSON line per graded submission: the
    worker's phases and this process's share of writing it."""

    def __init__(self, path: str | None):
        self.path = path

    def write(self, job: Job, phases: dict, intake: list[float]) -> None:
        if self.path:
            line = {"key": job.key, "phases": {**phases, "main: intake (gradebook, files, status)": intake}}
            with open(self.path, "a") as handle:
                handle.write(json.dumps(line) + "\n")


def _check_sandbox(sandbox: bool, local: bool = True) -> None:
    """Refuse to run untrusted code unconfined unless asked to, and say so on every such run.
    (On a cluster, bwrap is the workers' business: graders.autograde.cluster asks each.)"""
    if not sandbox:
        print("WARNING: --no-sandbox: student code runs unconfined, as "
              f"{getpass.getuser()}, with access to this machine's files and network.",
              file=sys.stderr)
    elif local:
        try:
            require_bwrap()
        except SandboxUnavailable as error:
            raise CourseError(str(error)) from None


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]
