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

A record also keeps the static review's flags (graders.autograde.review): each a quoted line
of the submission and why a grader should read it. The score stands; the summary, `course
report` and `course export` show them.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
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
    flags: list[str] = field(default_factory=list)  # the static review's quoted lines (Flag.quote())

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
    """The end-of-run summary: one line per submission, reasons last so they may run long;
    under a flagged submission's line, a ``review:`` line per quoted line of its code."""
    ordered = sorted(records, key=lambda r: (r.assignment, r.student))
    rows = [("student", "assignment", "status", "score", "seconds", "reason")]
    rows += [(r.student, r.assignment, r.status, f"{r.score:g}/{r.max_score:g}", f"{r.seconds:.1f}", r.reason)
             for r in ordered]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for row, record in zip(rows, [None, *ordered]):
        lines.append(("  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths)) + "  " + row[5]).rstrip())
        lines += [f"    review: {quote}" for quote in (record.flags if record else [])]
    return "\n".join(lines)


def flagged_note(records: list[Record]) -> str | None:
    """One line on the flagged submissions, or None when the review flagged nothing."""
    flagged = [r for r in records if r.flags]
    if not flagged:
        return None
    return (f"{len(flagged)} submission{'s' if len(flagged) != 1 else ''} flagged by the static review "
            "(the review: lines): the score stands, and the formgrader lists the test cells concerned "
            "for a grade by hand")
