"""The main process's writes, once a worker has graded a submission: its DIR/autograded
folder, its grades in the gradebook, its status record. This process alone writes them, in
the order results arrive.

Whatever is ready is absorbed as one group: the group's grades in one gradebook transaction
(one commit), its status records in one journal write (graders.autograde.status), each
after what it depends on, so that a run killed at any moment has recorded a status only for
submissions whose grades are committed; the rest are graded again by the next run. A
record carries the static review's flags (graders.autograde.review) as the worker quoted them. Grouped,
a submission costs the main process a few milliseconds whatever the size of the class: this
is the serial share of a batch on a cluster (benchmarks/serial_share.py measures it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.converters import Autograde
from nbgrader.coursedir import CourseDirectory

from . import recorded
from .jobs import Job, submitted_path
from .pipeline import Graded
from .status import Record, StatusStore, fingerprint
from .worker import write_files


class Intake:
    def __init__(self, config):
        """``config``: the course's (graders.course.config.Course.config)."""
        self.coursedir = CourseDirectory(config=config)
        self.course_dir = Path(self.coursedir.root)
        self.store = StatusStore(self.course_dir)
        self.gradebook = Gradebook(self.coursedir.db_url, self.coursedir.course_id)
        # the assignments' rows, loaded once, stay loaded across commits (only this process
        # writes; a written submission's rows are let go once committed)
        self.gradebook.db().expire_on_commit = False
        self.max_scores: dict[str, float] = {}
        # nbgrader leaves autograded files read-only (c.Autograde.permissions): so do we
        self.mode = int(str(Autograde(coursedir=self.coursedir, config=config).permissions), 8)

    def folder(self, job: Job) -> Path:
        return Path(self.coursedir.format_path(self.coursedir.autograded_directory, job.student, job.assignment))

    def absorb(self, done: list[tuple[Job, Graded, str]]) -> list[Record]:
        """Write ``done`` ((job, what came back, the submitted file's fingerprint) each)."""
        if not done:
            return []
        written = []
        for job, graded, _ in done:
            folder = self.folder(job)
            shutil.rmtree(folder, ignore_errors=True)  # a stale copy must not feed the feedback
            if graded.files:
                write_files(folder, graded.files)
                for name in graded.files:
                    os.chmod(folder / name, self.mode)
            if graded.state is None:
                written.append(recorded.write_zero(self.gradebook, job.assignment, job.student))
            else:
                written.append(recorded.write_autograded(self.gradebook, job.assignment, job.student, graded.state))
        self.gradebook.db.commit()
        records = [Record(job.student, job.assignment, graded.status, recorded.score(submission),
                          self.max_score(job.assignment), round(graded.seconds, 2), graded.reason, print_,
                          list(graded.flags))
                   for (job, graded, print_), submission in zip(done, written)]
        for submission in written:
            recorded.forget(self.gradebook, submission)
        self.store.put_many(records)
        return records

    def missing(self, job: Job, reason: str) -> Record:
        """No notebook submitted: 0 in every cell, no autograded notebook (nor a page)."""
        shutil.rmtree(self.folder(job), ignore_errors=True)
        submission = recorded.write_zero(self.gradebook, job.assignment, job.student)
        self.gradebook.db.commit()
        record = Record(job.student, job.assignment, "missing", recorded.score(submission),
                        self.max_score(job.assignment), 0.0, reason, "")
        recorded.forget(self.gradebook, submission)
        self.store.put(record)
        return record

    def max_score(self, assignment: str) -> float:
        if assignment not in self.max_scores:
            self.max_scores[assignment] = float(self.gradebook.find_assignment(assignment).max_score)
        return self.max_scores[assignment]

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

    def close(self) -> None:
        self.store.compact()
        self.gradebook.close()
