"""`course autograde`: nbgrader's autograde, with execution spread over grading threads
(each submission in a sandbox of its own) or Dask workers.

Per submission, three steps, as nbgrader's Autograde does them, split across processes:
1. main process: nbgrader's API runs Autograde with only its sanitize preprocessors
   (ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, CheckCellMetadata);
   this also registers the student and submission in the gradebook;
   the integrity canaries are added (graders.autograde.integrity);
2. a worker (graders.autograde.worker): graders.sandbox executes it, sandboxed and limited;
   a local grading thread (LocalPool) or, with ``scheduler``, a Dask worker
   (graders.autograde.cluster); an assignment that compiles gets a private copy of its
   warmed compile cache, which a thread of the main process builds while the other
   assignments are graded (those that compile are graded last);
3. main process: the canaries are read and removed; FinishAutograde runs the rest of the
   course's autograde preprocessors on the executed notebook and SaveAutoGrades commits the
   grades; then the status record is written.
A submission that cannot be graded (missing, unreadable, tampering) scores 0 in every cell
and still leaves a notebook in DIR/autograded, so that its feedback page says why.
Only the main process writes the gradebook, one submission at a time, so a killed run
loses at most the submissions in flight, which the next run grades again.
"""

from __future__ import annotations

import getpass
import itertools
import json
import logging
import os
import re
import shutil
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.utils import is_grade
from sqlalchemy.exc import SAWarning
from tqdm import tqdm

from graders.course import compile_cache
from graders.course.config import Course
from graders.course.layout import CourseError, ensure_course_dir, released_assignments
from graders.sandbox.bwrap import SandboxUnavailable, require_bwrap
from graders.sandbox.execute import Outcome
from graders.sandbox.limits import Limits

from . import integrity
from .finish import FinishAutograde, sanitizing_preprocessors
from .jobs import Job, find_jobs, submitted_path
from .local import LocalPool
from .preprocessors import FirstHalfEnds
from .status import Record, StatusStore, fingerprint

# nbgrader's Gradebook builds a new submission with backrefs to its student and assignment,
# which SQLAlchemy 2 no longer cascades, and adds it to the session itself: the warning it
# gives for every new submission (plain `nbgrader autograde` prints it too) is noise here.
_NEW_SUBMISSION_NOISE = r"Object of type <Submitted\w+> not in session"


class Grader:
    """The main process's side: sanitize, hand out, finish, record."""

    def __init__(self, course: Course, limits: Limits, sandbox: bool):
        warnings.filterwarnings("ignore", message=_NEW_SUBMISSION_NOISE, category=SAWarning)
        self.course_dir = course.dir
        self.limits, self.sandbox = limits, sandbox
        # the first half only: workers execute, FinishAutograde runs the course's second half
        config = course.nbgrader(Autograde={
            "autograde_preprocessors": [FirstHalfEnds],
            "sanitize_preprocessors": sanitizing_preprocessors(course.config.Autograde.get("sanitize_preprocessors"))})
        self.api = NbGraderAPI(config=config)
        self.api.log.setLevel(logging.ERROR)
        self.finisher = FinishAutograde(coursedir=self.api.coursedir, parent=self.api,
                                        steps=course.config.Autograde.get("autograde_preprocessors"))
        self.store = StatusStore(self.course_dir)
        self.gradebook = Gradebook(self.api.coursedir.db_url, self.api.coursedir.course_id)

    def close(self) -> None:
        self.gradebook.close()

    # -- step 1 -----------------------------------------------------------------------------
    def sanitize(self, job: Job) -> Record | tuple[Path, object]:
        """The sanitized notebook's path and content, or the final Record when nothing can run."""
        path = submitted_path(self.course_dir, job)
        if not path.exists():
            return self.zero(job, "missing", f"no {path.name} in submitted/{job.student}/{job.assignment}/")
        try:
            nbformat.read(str(path), as_version=4)
        except Exception as error:
            return self.zero(job, "invalid", f"unreadable notebook: {type(error).__name__}: {_first_line(error)}")
        result = self.api.autograde(job.assignment, job.student, force=True, create=True)
        target = self.course_dir / "autograded" / job.student / job.assignment / path.name
        if not result["success"] or not target.exists():
            return self.zero(job, "invalid", "nbgrader could not sanitize it: " + _nbgrader_error(result))
        nb = nbformat.read(str(target), as_version=4)
        missing = self._unrestored_cells(job, nb)
        if missing:
            return self.zero(job, "invalid", f"test cells missing and not restorable: {', '.join(missing)}", nb=nb)
        return target, nb

    def _unrestored_cells(self, job: Job, nb) -> list[str]:
        present = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
        expected = [g.name for g in self.gradebook.find_notebook(job.assignment, job.assignment).grade_cells]
        self.gradebook.db.commit()
        return [name for name in expected if name not in present]

    # -- step 3 -----------------------------------------------------------------------------
    def finish(self, job: Job, outcome: Outcome, check: integrity.Check) -> Record:
        outcome = integrity.conclude(outcome, check)
        if outcome.findings:
            return self.zero(job, "invalid", "tampering: " + "; ".join(outcome.findings), outcome.seconds,
                             nb=outcome.notebook)
        if outcome.notebook is None:
            return self.zero(job, outcome.status, outcome.reason, outcome.seconds)
        self.finisher.finish(outcome.notebook, job.assignment, job.student,
                             {"status": outcome.status, "reason": outcome.reason})
        return self.record(job, outcome.status, outcome.reason, outcome.seconds)

    def zero(self, job: Job, status: str, reason: str, seconds: float = 0.0, nb=None) -> Record:
        """Score 0 for every cell, as nbgrader does for a missing notebook, so every student
        and assignment appears in the gradebook and the export; the autograded notebook
        (``nb``, else the released one) has every test cell say why, for the feedback."""
        gb = self.gradebook
        gb.update_or_create_student(job.student)
        submission = gb.update_or_create_submission(job.assignment, job.student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
        gb.db.commit()
        self._write_ungraded(job, status, reason, nb)
        return self.record(job, status, reason, seconds)

    def _write_ungraded(self, job: Job, status: str, reason: str, nb) -> None:
        folder = self.course_dir / "autograded" / job.student / job.assignment
        # a stale autograded copy from an earlier run must not feed the feedback
        shutil.rmtree(folder, ignore_errors=True)
        if nb is None:
            released = self.course_dir / "release" / job.assignment / f"{job.assignment}.ipynb"
            if not released.exists():
                return
            nb = nbformat.read(str(released), as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and is_grade(cell):
                cell.outputs = [o for o in cell.get("outputs", []) if o.get("output_type") != "error"]
                cell.outputs.append(new_output("error", ename="NotRun",
                                               evalue=f"not graded ({status}): {reason}", traceback=[]))
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(folder / f"{job.assignment}.ipynb"))

    def record(self, job: Job, status: str, reason: str, seconds: float) -> Record:
        gb = self.gradebook
        gb.db.commit()  # end any read transaction so SaveAutoGrades' commit is visible
        submission = gb.find_submission(job.assignment, job.student)
        record = Record(job.student, job.assignment, status, float(submission.score),
                        float(submission.max_score), round(seconds, 2), reason,
                        fingerprint(submitted_path(self.course_dir, job)))
        gb.db.commit()
        self.store.put(record)
        return record

    def stored(self, job: Job) -> Record | None:
        """The stored record, its score re-read from the gradebook (a manual grade counts),
        when graded before on the same file and still in the gradebook; else None."""
        record = self.store.get(job.student, job.assignment)
        if record is None or record.fingerprint != fingerprint(submitted_path(self.course_dir, job)):
            return None
        try:
            submission = self.gradebook.find_submission(job.assignment, job.student)
            record.score, record.max_score = float(submission.score), float(submission.max_score)
            return record
        except MissingEntry:
            return None
        finally:
            self.gradebook.db.commit()


def autograde(course_dir: Path, assignments: list[str] | None = None, workers: int | None = None,
              sandbox: bool = True, limits: Limits | None = None, force: bool = False,
              progress: bool = True, scheduler: str | None = None, pool=None) -> list[Record]:
    """Grade every submission of ``assignments``; return one Record per (student, assignment).
    ``limits``: the course's (c.Limits.*, c.Execute.timeout) when None. ``scheduler``: a Dask
    scheduler's address (graders.autograde.cluster) instead of ``workers`` local processes.
    ``pool``: one already started (graders.autograde.local.start, which `course autograde`
    calls before importing this module); the batch closes it, however it ends."""
    try:
        course = Course(ensure_course_dir(course_dir))
        _check_sandbox(sandbox, local=scheduler is None)
        jobs = find_jobs(course.dir, released_assignments(course.dir, assignments))
        if limits is None:
            limits = course.limits()
        course.config.Execute.timeout = int(limits.cell_timeout_s)  # one per-cell limit everywhere
        if pool is None and scheduler is not None:
            from .cluster import DaskPool
            pool = DaskPool(scheduler, sandbox, limits.values())  # fails here, before the gradebook is touched
        elif pool is None:
            pool = LocalPool(workers or os.cpu_count(), limits, sandbox)
        grader = Grader(course, limits, sandbox)
    except BaseException:
        if pool is not None:
            pool.close()
        raise
    records: dict[str, Record] = {}
    todo = []
    for job in jobs:
        done = None if force else grader.stored(job)
        if done is not None:
            records[job.key] = done
        else:
            todo.append(job)
    if todo and hasattr(pool, "warm"):
        pool.warm()
    # The compile caches warm (one reference run each, about 30 s for 06) beside the batch:
    # the assignments that need none are graded meanwhile, those that do come last and wait.
    compiling = compile_cache.needing_warm_up(course, sorted({job.assignment for job in todo}))
    todo = interleaved(todo, last=compiling)
    warming = _Warming(course, compiling, limits, sandbox)
    bar = tqdm(total=len(todo), desc="autograde", unit="nb", disable=not progress)
    running = {}

    timings = TimingLog(os.environ.get("GRADERS_TIMING_LOG"))

    def collect(done) -> None:
        for future in done:
            job, check, started, sanitized = running.pop(future)
            try:
                outcome = pool.outcome(future, time.monotonic() - started)
            except CourseError:
                raise
            except Exception as error:  # a grader bug must not end the batch either
                outcome = Outcome("crashed", f"the grader failed on it: {type(error).__name__}: "
                                  f"{_first_line(error)}", time.monotonic() - started)
            clock = timings.clock()
            records[job.key] = grader.finish(job, outcome, check)
            timings.write(job, outcome.timing, sanitized, clock.read())
            bar.update()

    try:
        for job in todo:
            clock = timings.clock()
            prepared = grader.sanitize(job)
            if isinstance(prepared, Record):
                records[job.key] = prepared
                bar.update()
            else:
                target, nb = prepared
                run_nb, check = integrity.instrument(nb)
                sanitized = clock.read()
                cache = warming.cache(job.assignment, lambda: collect(pool.ready(running, block=False)))
                future = pool.submit(f"autograde-{job.key}-{check.nonce[:12]}", target.parent, run_nb,
                                     limits.values(), sandbox, check.prologue, cache)
                running[future] = (job, check, time.monotonic(), sanitized)
            # finish whatever is ready between sanitizing, so workers never wait on us long
            collect(pool.ready(running, block=False))
        while running:
            collect(pool.ready(running, block=True))
    finally:
        bar.close()
        warming.close()
        pool.close()
        grader.close()
    return [records[job.key] for job in jobs]


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
    """The compile caches of ``assignments``, warmed in a thread of their own."""

    def __init__(self, course: Course, assignments: list[str], limits: Limits, sandbox: bool):
        self.assignments = assignments
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="compile-cache")
        self.future = self.executor.submit(compile_cache.warm, course, assignments, limits, sandbox,
                                           log=compile_cache.stderr) if assignments else None

    def cache(self, assignment: str, meanwhile) -> Path | None:
        """``assignment``'s warmed cache (None: compile cold), calling ``meanwhile()`` while
        waiting for it, so that finished submissions are recorded in the meantime."""
        if self.future is None or assignment not in self.assignments:
            return None
        while not self.future.done():
            meanwhile()
            wait([self.future], timeout=0.2)
        try:
            return self.future.result().get(assignment)
        except Exception as error:  # no cache is a slower grading, not a failed one
            compile_cache.stderr(f"no warmed compile cache: {type(error).__name__}: {_first_line(error)}; "
                                 "submissions will compile cold")
            self.future = None
            return None

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class _Clock:
    def __init__(self):
        self.start = time.monotonic(), time.process_time()

    def read(self) -> list[float]:
        return [time.monotonic() - self.start[0], time.process_time() - self.start[1]]


class TimingLog:
    """With GRADERS_TIMING_LOG=FILE (benchmarks/grading.py), one JSON line per executed
    submission: the worker's phases and the main process's two nbgrader passes."""

    def __init__(self, path: str | None):
        self.path = path

    def clock(self) -> _Clock:
        return _Clock()

    def write(self, job: Job, phases: dict, sanitized: list[float], finished: list[float]) -> None:
        if self.path:
            line = {"key": job.key, "phases": {**phases, "main: sanitize (nbgrader pass 1)": sanitized,
                                               "main: finish (nbgrader pass 2, gradebook)": finished}}
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


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]


_EXCEPTION = re.compile(r"[A-Za-z_][\w.]*(: \S|(Error|Exception)$)")


def _nbgrader_error(result: dict) -> str:
    """The most telling line of nbgrader's captured log and traceback: its first error, and
    when that is a traceback, the exception that ends it."""
    text = (result.get("log") or "") + "\n" + (result.get("error") or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        if not line.startswith("[ERROR]") or "error processing" in line or "see the" in line.lower():
            continue
        line = line.removeprefix("[ERROR] ")
        if line.startswith("Traceback (most recent call last)"):
            block = itertools.takewhile(lambda later: not later.startswith("["), lines[k + 1:])
            line = ([later for later in block if _EXCEPTION.match(later)] or [line])[-1]
        return line[:300]
    return (lines[-1] if lines else "unknown error")[:300]
