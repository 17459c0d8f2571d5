"""How each (student, assignment) ended: status, score, reason, seconds — kept durably.

nbgrader's gradebook holds scores but has no place for "timed out" or "tampered", so the
harness keeps one JSON file per course, DIR/grading_status.json. It is rewritten atomically
(temp file + fsync + rename) after each submission's gradebook commit, so a run killed at
any moment leaves either the old or the new record, never a torn file; a submission whose
record is missing or stale (the submitted file changed) is simply graded again.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

STATUSES = ("ok", "timeout", "memory", "crashed", "invalid", "missing")
FILENAME = "grading_status.json"


@dataclass
class Record:
    student: str
    assignment: str
    status: str
    score: float
    max_score: float
    seconds: float
    reason: str
    fingerprint: str  # sha256 of the submitted notebook ("" when missing)

    @property
    def key(self) -> str:
        return f"{self.student}/{self.assignment}"


def fingerprint(path: Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


class StatusStore:
    def __init__(self, course_dir: Path):
        self.path = Path(course_dir) / FILENAME
        self.records: dict[str, Record] = {}
        if self.path.exists():
            for key, value in json.loads(self.path.read_text()).items():
                self.records[key] = Record(**value)

    def get(self, student: str, assignment: str) -> Record | None:
        return self.records.get(f"{student}/{assignment}")

    def put(self, record: Record) -> None:
        self.records[record.key] = record
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as handle:
            json.dump({k: asdict(r) for k, r in sorted(self.records.items())}, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)


def table(records: list[Record]) -> str:
    """The end-of-run summary: one line per submission, reasons last so they may run long."""
    rows = [("student", "assignment", "status", "score", "seconds", "reason")]
    for r in sorted(records, key=lambda r: (r.assignment, r.student)):
        rows.append((r.student, r.assignment, r.status, f"{r.score:g}/{r.max_score:g}",
                     f"{r.seconds:.1f}", r.reason))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths)) + "  " + row[5]
             for row in rows]
    return "\n".join(line.rstrip() for line in lines)
