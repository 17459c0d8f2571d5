"""`course collect`: submissions into DIR/submitted, from the exchange or from an LMS archive.

Both ways are nbgrader's own: the exchange's collect (NbGraderAPI.collect: each student's
latest submission, its timestamp.txt kept, a folder owned by someone else than the student
it names reported as nbgrader reports it) and the zip collector (ZipCollectApp with the
course's ``c.FileNameCollectorPlugin.named_regexp``, else ``CANVAS``). Nothing is dropped
for being late: each collected submission is listed with its timestamp and how late it is
against the gradebook's due date for the assignment (set in the formgrader or with
``nbgrader db assignment add ... --duedate``), and the timestamps go on to the gradebook when
`course autograde` grades them.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc

from .config import Course
from .exchange import api, checked
from .layout import CourseError

# Canvas's "Download Submissions": <name>_[LATE_]<user id>_<submission id>_<file>[-<n>].ipynb
# (-<n> when the student uploaded the file again). The name is Canvas's lastnamefirstname;
# matched against the whole path, as nbgrader's FileNameCollectorPlugin does.
CANVAS = (r".*/(?P<student_id>[^/_]+)_(?:(?P<late>late|LATE)_)?\d+_\d+_"
          r"(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$")


@dataclass
class Collected:
    student: str
    timestamp: datetime | None
    late_s: float   # seconds past the due date; 0 when on time or when there is no due date
    note: str       # "new", "updated", "unchanged" (the exchange) or "from <archive>"


def _timestamps(course: Course, assignment: str) -> dict[str, datetime | None]:
    found = {}
    for folder in sorted((course.dir / "submitted").glob(f"*/{assignment}")):
        stamp = folder / "timestamp.txt"
        found[folder.parent.name] = parse_utc(stamp.read_text().strip()) if stamp.exists() else None
    return found


def due_date(course: Course, assignment: str) -> datetime | None:
    with Gradebook(course.db_url, course.config.CourseDirectory.course_id) as gb:
        try:
            return gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None


def _report(course: Course, assignment: str, before: dict, notes: dict[str, str] | None = None) -> list[Collected]:
    due = due_date(course, assignment)
    rows = []
    for student, stamp in _timestamps(course, assignment).items():
        late = max(0.0, (stamp - due).total_seconds()) if stamp and due else 0.0
        if notes is not None:
            if student not in notes:
                continue
            note = notes[student]
        else:
            note = "new" if student not in before else "unchanged" if before[student] == stamp else "updated"
        rows.append(Collected(student, stamp, late, note))
    return rows


def from_exchange(course: Course, assignment: str) -> tuple[list[Collected], list[str]]:
    """nbgrader's collect of every student's latest submission; (the submissions now in
    DIR/submitted, nbgrader's warnings, e.g. a submission owned by another user)."""
    before = _timestamps(course, assignment)
    result = checked(api(course).collect(assignment, update=True), f"collect {assignment}")
    warnings = [line for line in result.get("log", "").splitlines() if line.startswith(("[WARNING]", "[ERROR]"))]
    return _report(course, assignment, before), warnings


def from_archive(course: Course, assignment: str, archive: Path) -> tuple[list[Collected], list[str]]:
    """nbgrader's zip collector on one archive (or a single notebook) downloaded from an LMS;
    a student's earlier submitted copy is replaced. (submissions collected, files skipped)."""
    from nbgrader.apps.zipcollectapp import ZipCollectApp
    from nbgrader.utils import capture_log, temp_attrs

    archive = Path(archive).resolve()
    if not archive.is_file():
        raise CourseError(f"no such file: {archive}")
    regexp = course.config.get("FileNameCollectorPlugin", {}).get("named_regexp") or CANVAS
    folder = course.dir / "downloaded" / assignment / "archive"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(archive, folder / archive.name)
    nbgrader = api(course, ZipCollectApp={"force": True}, ExtractorPlugin={"force": True},
                   FileNameCollectorPlugin={"named_regexp": regexp})
    with temp_attrs(nbgrader.coursedir, assignment_id=assignment):
        app = ZipCollectApp(coursedir=nbgrader.coursedir, parent=nbgrader)
        result = checked(capture_log(app), f"collect {archive.name}")
    taken = {}
    for line in result.get("log", "").splitlines():
        # nbgrader logs "Copying to: <DIR/submitted/<student>/<assignment>/<file>" for each
        found = re.search(r"Copying to: .*/submitted/([^/]+)/" + re.escape(assignment) + "/", line)
        if found:
            taken[found.group(1)] = f"from {archive.name}"
    extracted = course.dir / "downloaded" / assignment / "extracted"
    for path in extracted.rglob("*.ipynb"):
        match = re.match(regexp, str(path))
        if match and match.groupdict().get("late") and match["student_id"] in taken:
            taken[match["student_id"]] += ", marked late by the LMS"
    skipped = [line for line in result.get("log", "").splitlines() if "Skipped" in line or "did not match" in line]
    return _report(course, assignment, {}, taken), skipped


def table(rows: list[Collected]) -> str:
    lines = [f"{'student':<20} {'submitted (UTC)':<26} {'late':>10}  note"]
    for row in rows:
        late = f"{row.late_s:.0f} s" if row.late_s else ""
        stamp = row.timestamp.isoformat(" ", "seconds") if row.timestamp else "(no timestamp)"
        lines.append(f"{row.student:<20} {stamp:<26} {late:>10}  {row.note}")
    late = sum(1 for row in rows if row.late_s)
    lines.append(f"{len(rows)} submission(s), {late} late" + (" (kept and graded; the gradebook records how late)"
                                                              if late else ""))
    return "\n".join(lines)
