"""`course feedback`: nbgrader's GenerateFeedback, configured by the course's config.

Writes DIR/feedback/<student>/<assignment>/<assignment>.html for every student with a
row in DIR/grading_status.json, whatever its status: `course autograde` leaves an
autograded notebook for each (for missing and invalid ones, the test cells say why). The
course's nbgrader_config.py lists the preprocessors (graders.course.config): hidden tests
scrubbed (graders.feedback.scrub), the status on top (graders.feedback.banner), nbgrader's
GetGrades, so the formgrader's button writes the same pages.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from nbgrader.apps import NbGraderAPI

from graders.autograde.status import StatusStore
from graders.course.config import Course
from graders.course.layout import CourseError, ensure_course_dir, released_assignments

from .banner import SAYS


def feedback(course_dir: Path, assignments: list[str] | None = None) -> list[Path]:
    course = Course(ensure_course_dir(course_dir))
    api = NbGraderAPI(config=course.config)
    api.log.setLevel(logging.ERROR)
    store = StatusStore(course.dir)
    written = []
    for assignment in released_assignments(course.dir, assignments):
        result = api.generate_feedback(assignment, force=True)
        if not result["success"]:
            raise CourseError(f"nbgrader could not write feedback for {assignment}:\n"
                              f"{result.get('log', '')}\n{result.get('error', '')}")
        for record in store.records.values():
            page = course.dir / "feedback" / record.student / assignment / f"{assignment}.html"
            if record.assignment == assignment and not page.exists():
                # graded before autograde left a notebook for every row: the status alone
                page.parent.mkdir(parents=True, exist_ok=True)
                page.write_text(_status_page(record))
        written += sorted((course.dir / "feedback").glob(f"*/{assignment}/{assignment}.html"))
    return written


def _status_page(record) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{record.assignment}</title></head>"
            f"<body><h1>{record.assignment}</h1><p><b>Grading status: {record.status}.</b> "
            f"{SAYS.get(record.status, '')}</p><p>Why: {html.escape(record.reason)}</p>"
            f"<p>Score: {record.score:g} / {record.max_score:g}</p></body></html>\n")
