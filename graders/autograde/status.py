"""How each (student, assignment) ended: status, score, reason, seconds — kept durably.

nbgrader's gradebook holds scores but has no place for "timed out" or "tampered", so the
harness keeps one JSON file per course, DIR/grading_status.json. During a batch, records are
appended (and fsynced) to a journal beside it, DIR/grading_status.journal, one JSON line
each, after the gradebook commit that holds their grades; the batch's end folds the journal
into the JSON file (temp file + fsync + rename) and removes it. Rewriting the whole file for
every submission cost the main process a time that grew with the class (3,000 records:
about a megabyte per submission). Whoever reads the store reads both, the journal last, and
a torn last line (a run killed while writing it) is skipped: that submission is simply
graded again, as is one whose submitted file changed since its record.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

STATUSES = ("ok", "timeout", "memory", "crashed", "invalid", "missing")
FILENAME = "grading_status.json"
JOURNAL = "grading_status.journal"


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
        self.journal = Path(course_dir) / JOURNAL
        self.records: dict[str, Record] = {}
        if self.path.exists():
            for key, value in json.loads(self.path.read_text()).items():
                self.records[key] = Record(**value)
        if self.journal.exists():
            for line in self.journal.read_text().splitlines():
                try:
                    record = Record(**json.loads(line))
                except (ValueError, TypeError):
                    continue  # torn by a kill mid-write: graded again
                self.records[record.key] = record

    def get(self, student: str, assignment: str) -> Record | None:
        return self.records.get(f"{student}/{assignment}")

    def put(self, record: Record) -> None:
        self.put_many([record])

    def put_many(self, records: list[Record]) -> None:
        """Journal ``records`` (one write, one fsync)."""
        if not records:
            return
        for record in records:
            self.records[record.key] = record
        with open(self.journal, "a") as handle:
            handle.write("".join(json.dumps(asdict(r)) + "\n" for r in records))
            handle.flush()
            os.fsync(handle.fileno())

    def compact(self) -> None:
        """Fold the journal into the JSON file, atomically, and remove it."""
        if not self.journal.exists():
            return
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as handle:
            json.dump({k: asdict(r) for k, r in sorted(self.records.items())}, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        self.journal.unlink()


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
