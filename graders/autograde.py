"""`course autograde`: nbgrader's autograde, with execution spread over worker processes.

Per submission, three steps, as nbgrader's Autograde does them, split across processes:
1. main process: nbgrader's API runs Autograde with only its sanitize preprocessors
   (ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, CheckCellMetadata);
   this also registers the student and submission in the gradebook;
2. a worker: graders.execution.execute runs the sanitized notebook (sandboxed, limited);
3. main process: FinishAutograde runs the rest of nbgrader's preprocessors on the executed
   notebook and SaveAutoGrades commits the grades; then the status record is written.
Only the main process writes the gradebook, one submission at a time, so a killed run
loses at most the submissions in flight, which the next run grades again.
"""

from __future__ import annotations

import getpass
import logging
import multiprocessing
import os
import shutil
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from tqdm import tqdm

from . import autograde_worker, coursedir
from .autograde_finish import FinishAutograde
from .execution import Limits, Outcome
from .sandbox import SandboxUnavailable, require_bwrap
from .status import Record, StatusStore, fingerprint


@dataclass
class Job:
    student: str
    assignment: str

    @property
    def key(self) -> str:
        return f"{self.student}/{self.assignment}"


def course_assignments(course_dir: Path, names: list[str] | None) -> list[str]:
    """The assignments to grade: those named, else every released one in the course."""
    released = sorted(p.name for p in (course_dir / "source").iterdir() if p.is_dir()) \
        if (course_dir / "source").is_dir() else []
    unknown = [n for n in names or [] if n not in released]
    if unknown:
        raise SystemExit(f"not released in {course_dir}: {', '.join(unknown)} (run `course release` first)")
    return list(names) if names else released


def find_jobs(course_dir: Path, assignments: list[str]) -> list[Job]:
    """Every student folder under submitted/ against every assignment: absent ones are `missing`."""
    submitted = course_dir / "submitted"
    students = sorted(p.name for p in submitted.iterdir() if p.is_dir()) if submitted.is_dir() else []
    return [Job(s, a) for a in assignments for s in students]


def submitted_path(course_dir: Path, job: Job) -> Path:
    return course_dir / "submitted" / job.student / job.assignment / f"{job.assignment}.ipynb"


class Grader:
    """The main process's side: sanitize, hand out, finish, record."""

    def __init__(self, course_dir: Path, limits: Limits, sandbox: bool):
        self.course_dir = course_dir
        self.limits, self.sandbox = limits, sandbox
        config = coursedir.nbgrader_config(
            course_dir,
            # the first half only: workers execute, FinishAutograde does the rest
            Autograde={"autograde_preprocessors": []},
            # deleted test cells come back from the gradebook rather than silently scoring nothing
            OverwriteCells={"add_missing_cells": True},
        )
        self.api = NbGraderAPI(config=config)
        self.api.log.setLevel(logging.ERROR)
        self.finisher = FinishAutograde(coursedir=self.api.coursedir, parent=self.api)
        self.store = StatusStore(course_dir)
        self.gradebook = Gradebook(self.api.coursedir.db_url, coursedir.COURSE_ID)

    def close(self) -> None:
        self.gradebook.close()

    # -- step 1 -----------------------------------------------------------------------------
    def sanitize(self, job: Job) -> Record | Path:
        """Return the sanitized notebook's path, or the final Record when nothing can run."""
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
        missing = self._unrestored_cells(job, target)
        if missing:
            return self.zero(job, "invalid", f"test cells missing and not restorable: {', '.join(missing)}")
        return target

    def _unrestored_cells(self, job: Job, target: Path) -> list[str]:
        nb = nbformat.read(str(target), as_version=4)
        present = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
        expected = [g.name for g in self.gradebook.find_notebook(job.assignment, job.assignment).grade_cells]
        self.gradebook.db.commit()
        return [name for name in expected if name not in present]

    # -- step 3 -----------------------------------------------------------------------------
    def finish(self, job: Job, outcome: Outcome) -> Record:
        if outcome.findings:
            return self.zero(job, "invalid", "tampering: " + "; ".join(outcome.findings), outcome.seconds)
        if outcome.notebook is None:
            return self.zero(job, outcome.status, outcome.reason, outcome.seconds)
        self.finisher.finish(outcome.notebook, job.assignment, job.student,
                             {"status": outcome.status, "reason": outcome.reason})
        return self.record(job, outcome.status, outcome.reason, outcome.seconds)

    def zero(self, job: Job, status: str, reason: str, seconds: float = 0.0) -> Record:
        """Score 0 for every cell, as nbgrader does for a missing notebook, so every student
        and assignment appears in the gradebook and the export."""
        gb = self.gradebook
        gb.update_or_create_student(job.student)
        submission = gb.update_or_create_submission(job.assignment, job.student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
        gb.db.commit()
        # a stale autograded copy from an earlier run would feed the feedback: drop it
        shutil.rmtree(self.course_dir / "autograded" / job.student / job.assignment, ignore_errors=True)
        return self.record(job, status, reason, seconds)

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

    def is_done(self, job: Job) -> bool:
        """Graded before, on the same file, and still in the gradebook."""
        record = self.store.get(job.student, job.assignment)
        if record is None or record.fingerprint != fingerprint(submitted_path(self.course_dir, job)):
            return False
        try:
            self.gradebook.find_submission(job.assignment, job.student)
            return True
        except MissingEntry:
            return False
        finally:
            self.gradebook.db.commit()


def autograde(course_dir: Path, assignments: list[str] | None = None, workers: int | None = None,
              sandbox: bool = True, limits: Limits = Limits(), force: bool = False,
              progress: bool = True) -> list[Record]:
    """Grade every submission of ``assignments``; return one Record per (student, assignment)."""
    course_dir = coursedir.ensure_course_dir(course_dir)
    _check_sandbox(sandbox)
    jobs = find_jobs(course_dir, course_assignments(course_dir, assignments))
    grader = Grader(course_dir, limits, sandbox)
    records: dict[str, Record] = {}
    todo = []
    for job in jobs:
        if not force and grader.is_done(job):
            records[job.key] = grader.store.get(job.student, job.assignment)
        else:
            todo.append(job)
    bar = tqdm(total=len(todo), desc="autograde", unit="nb", disable=not progress)
    # spawn, not fork: workers must not inherit the main process's open SQLite connections
    context = multiprocessing.get_context("spawn")
    try:
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count(), mp_context=context) as pool:
            running = {}

            def collect(done) -> None:
                for future in done:
                    job, started = running.pop(future)
                    try:
                        outcome = future.result()
                    except BrokenProcessPool:
                        outcome = Outcome("crashed", "the grading worker process died",
                                          time.monotonic() - started)
                    except Exception as error:  # a grader bug must not end the batch either
                        outcome = Outcome("crashed", f"the grader failed on it: {type(error).__name__}: "
                                          f"{_first_line(error)}", time.monotonic() - started)
                    records[job.key] = grader.finish(job, outcome)
                    bar.update()

            for job in todo:
                prepared = grader.sanitize(job)
                if isinstance(prepared, Record):
                    records[job.key] = prepared
                    bar.update()
                else:
                    future = pool.submit(autograde_worker.run, str(prepared), limits, sandbox)
                    running[future] = (job, time.monotonic())
                # finish whatever is ready between sanitizing, so workers never wait on us long
                collect(wait(running, timeout=0, return_when=FIRST_COMPLETED).done)
            while running:
                collect(wait(running, return_when=FIRST_COMPLETED).done)
    finally:
        bar.close()
        grader.close()
    return [records[job.key] for job in jobs]


def _check_sandbox(sandbox: bool) -> None:
    """Refuse to run untrusted code unconfined unless asked to, and say so on every such run."""
    if sandbox:
        try:
            require_bwrap()
        except SandboxUnavailable as error:
            raise SystemExit(f"course autograde: {error}") from None
    else:
        print("WARNING: --no-sandbox: student code runs unconfined, as "
              f"{getpass.getuser()}, with access to this machine's files and network.",
              file=sys.stderr)


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]


def _nbgrader_error(result: dict) -> str:
    """The most telling line of nbgrader's captured log and traceback."""
    text = (result.get("log") or "") + "\n" + (result.get("error") or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("[ERROR]") and "error processing" not in line
              and "see the" not in line.lower()]
    picked = errors[0] if errors else (lines[-1] if lines else "unknown error")
    return picked.removeprefix("[ERROR] ")[:300]
