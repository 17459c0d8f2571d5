"""`course export`: DIR/grades.csv written by nbgrader's own CSV export plugin.

Every (student, assignment) graded by `course autograde` has a submission in the gradebook
(missing and invalid ones with zero scores), so the plugin's rows cover the whole batch.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.plugins import CsvExportPlugin

from .config import Course


def export(course_dir: Path) -> Path:
    course_dir = Path(course_dir).resolve()
    target = course_dir / "grades.csv"
    plugin = CsvExportPlugin(to=str(target))
    course = Course(course_dir)
    with Gradebook(course.db_url, course.config.CourseDirectory.course_id) as gb:
        plugin.export(gb)
    return target
