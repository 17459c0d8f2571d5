"""`course export`: DIR/grades.csv written by nbgrader's own CSV export plugin.

Students are listed by last name, first name and then id: nbgrader orders by the names
alone, and students without recorded names tie, which SQLite
breaks by insertion and PostgreSQL by whatever its plan gives, so the same class exported
from the two databases differed in row order.

Every (student, assignment) graded by `course autograde` has a submission in the gradebook
(missing and invalid ones with zero scores), so the plugin's rows cover the whole batch.

After nbgrader's columns, one more: ``review_flags``, the static review's quoted lines for
that submission (graders.autograde.review, kept in DIR/grading_status.json), one per line of
the field; empty when none.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from nbgrader.api import Gradebook, Student
from nbgrader.plugins import CsvExportPlugin

from graders.autograde.status import StatusStore

from .config import Course

FLAGS_COLUMN = "review_flags"


class _OrderedGradebook(Gradebook):
    @property
    def students(self) -> list[Student]:
        return self.db.query(Student).order_by(Student.last_name, Student.first_name, Student.id).all()


def export(course_dir: Path) -> Path:
    course_dir = Path(course_dir).resolve()
    target = course_dir / "grades.csv"
    plugin = CsvExportPlugin(to=str(target))
    course = Course(course_dir)
    with _OrderedGradebook(course.db_url, course.config.CourseDirectory.course_id) as gb:
        plugin.export(gb)
    flags = {key: record.flags for key, record in StatusStore(course_dir).records.items()}
    target.write_text(with_flags(target.read_text(), flags))
    return target


def with_flags(text: str, flags: dict[str, list[str]]) -> str:
    """nbgrader's CSV with the review's column added; ``flags`` maps "student/assignment" to
    quoted lines. nbgrader writes its rows unquoted, assignment and student id first among
    fields without commas (assignment, duedate, timestamp, student_id), so a row is matched
    by those and left as written."""
    lines = text.splitlines()
    if not lines:
        return text
    out = [f"{lines[0]},{FLAGS_COLUMN}"]
    for line in lines[1:]:
        assignment, _, _, student = line.split(",", 4)[:4]
        out.append(f"{line},{_field(chr(10).join(flags.get(f'{student}/{assignment}', [])))}")
    return "\n".join(out) + "\n"


def _field(value: str) -> str:
    """``value`` as one CSV field, quoted where it must be (nothing when empty)."""
    if not value:
        return ""
    written = io.StringIO()
    csv.writer(written, lineterminator="").writerow([value])
    return written.getvalue()
