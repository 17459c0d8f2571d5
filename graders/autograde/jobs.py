"""What a batch grades: every student folder under submitted/ against every assignment.

Light on purpose (no nbgrader): ``course autograde`` reads it before importing nbgrader, to
decide whether to start its workers and their templates at once (graders.autograde.local).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from graders.sandbox.limits import Limits

from .status import StatusStore, fingerprint

# Preloaded modules that only some notebooks need, and how their code shows it: torch._dynamo
# (1.45 CPU-s of the template's start) comes with torch.compile and with an optimizer's first
# step. Left out of the template for a batch whose notebooks do neither (a batch of 6 copies
# of 01: its template was ready 1 s sooner, the batch done 1.5-2 s sooner, measured); a wrong
# guess costs a kernel that import, never a grade.
ONLY_FOR = {"torch._dynamo": re.compile(r"\btorch\.(optim|compile|_dynamo)\b|\boptim\.[A-Z]|\b_dynamo\b")}


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


def batch_limits(limits: Limits, course_dir: Path, assignments: list[str]) -> Limits:
    """``limits`` with the template's preload cut to what ``assignments``' source notebooks
    may use (ONLY_FOR): the same for the pool's template and every submission's."""
    code = [_code(Path(course_dir) / "source" / a / f"{a}.ipynb") for a in assignments]
    preload = [m for m in limits.preload if m not in ONLY_FOR or any(ONLY_FOR[m].search(c) for c in code)]
    return limits if preload == list(limits.preload) else Limits(**{**limits.values(), "preload": preload})


def _code(path: Path) -> str:
    """The code cells of a notebook; everything it says when it cannot be read (keep all)."""
    try:
        cells = json.loads(path.read_text())["cells"]
        return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                         for c in cells if c.get("cell_type") == "code")
    except (OSError, ValueError, KeyError, TypeError):
        return "torch.compile"


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
