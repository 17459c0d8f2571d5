"""`course feedback`: nbgrader's GenerateFeedback, with hidden tests scrubbed first.

Writes DIR/feedback/<student>/<assignment>/<assignment>.html for every autograded
submission (missing ones have nothing to show and get no file).
"""

from __future__ import annotations

import logging
from pathlib import Path

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.apps import NbGraderAPI
from nbgrader.preprocessors import GetGrades

from . import coursedir
from .autograde import course_assignments
from .feedback_scrub import ScrubHiddenTests


def feedback(course_dir: Path, assignments: list[str] | None = None) -> list[Path]:
    course_dir = coursedir.ensure_course_dir(course_dir)
    config = coursedir.nbgrader_config(
        course_dir, GenerateFeedback={"preprocessors": [ScrubHiddenTests, GetGrades, CSSHTMLHeaderPreprocessor]})
    api = NbGraderAPI(config=config)
    api.log.setLevel(logging.ERROR)
    written = []
    for assignment in course_assignments(course_dir, assignments):
        result = api.generate_feedback(assignment, force=True)
        if not result["success"]:
            raise SystemExit(f"nbgrader could not write feedback for {assignment}:\n"
                             f"{result.get('log', '')}\n{result.get('error', '')}")
        written += sorted((course_dir / "feedback").glob(f"*/{assignment}/{assignment}.html"))
    return written
