"""What a batch grades: every student folder under submitted/ against every assignment.

Light on purpose (no nbgrader): ``course autograde`` reads it before importing nbgrader, to
decide whether to start its workers and their templates at once (graders.autograde.local).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .status import StatusStore, fingerprint


class SubmissionLost(Exception):
    """A worker pool's word that a submission's workers died, too often to try it again."""


@dataclass
class Job:
    student: str
    assignment: str

    @property
    def key(self) -> str:
        return f"{self.student}/{self.assignment}"


def find_jobs(course_dir: Path, assignments: list[str]) -> list[Job]:
    """Every student folder under submitted/ against every assignment: absent ones are `missing`."""
    submitted = course_dir / "submitted"
    students = sorted(p.name for p in submitted.iterdir() if p.is_dir()) if submitted.is_dir() else []
    return [Job(s, a) for a in assignments for s in students]


def submitted_path(course_dir: Path, job: Job) -> Path:
    return course_dir / "submitted" / job.student / job.assignment / f"{job.assignment}.ipynb"


def likely_to_execute(course_dir: Path, jobs: list[Job], force: bool) -> bool:
    """Whether some job will probably be executed: forced, or a submitted notebook with no
    status record of that very file. (The batch decides for certain, with the gradebook.)"""
    try:
        store = StatusStore(course_dir)
    except (OSError, ValueError, TypeError):
        return True  # the batch reads it again and says what is wrong with it
    for job in jobs:
        path = submitted_path(course_dir, job)
        if not path.exists():
            continue  # scored 0 without executing anything
        record = None if force else store.get(job.student, job.assignment)
        if record is None or record.fingerprint != fingerprint(path):
            return True
    return False
