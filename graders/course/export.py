"""`course export`: DIR/grades.csv written by nbgrader's own CSV export plugin.

Students are listed by last name, first name and then id: nbgrader orders by the names
alone, and students without recorded names tie, which SQLite
breaks by insertion and PostgreSQL by whatever its plan gives, so the same class exported
from the two databases differed in row order.

Every (student, assignment) graded by `course autograde` has a submission in the gradebook
(missing and invalid ones with zero scores), so the plugin's rows cover the whole batch.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.api import Gradebook, Student
from nbgrader.plugins import CsvExportPlugin

from .config import Course


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
    return target
