"""StatusBanner: the feedback page starts with how grading went, in the student's words.

A preprocessor of GenerateFeedback (listed in the course's nbgrader_config.py), so the
formgrader's "Generate Feedback" button writes the same page as `course feedback`. It reads
the status `course autograde` recorded (DIR/grading_status.json); a notebook without a
record (graded by plain nbgrader) gets no banner.
"""

from __future__ import annotations

import html

from nbformat.v4 import new_markdown_cell
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

from graders.autograde.status import StatusStore

SAYS = {
    "ok": "Your notebook ran to the end; every test cell below was graded.",
    "timeout": "Your notebook was stopped because it ran too long: test cells after that "
               "point did not run and score 0.",
    "memory": "Your notebook used more memory than allowed and was stopped: test cells "
              "after that point did not run and score 0.",
    "crashed": "Your notebook's Python process stopped before the end: test cells after "
               "that point did not run and score 0.",
    "invalid": "Your submission could not be graded as it is, so every test cell scores 0. "
               "Ask your instructor if the reason below is unclear.",
    "missing": "No notebook was found for this assignment, so every test cell scores 0.",
}


def banner(status: str, reason: str) -> str:
    """The banner's markdown; ``reason`` is escaped (a submission can put text into it)."""
    text = f"**Grading status: {status}.** {SAYS.get(status, '')}"
    if status != "ok":
        text += f"\n\nWhy: {html.escape(reason)}"
    return text


class StatusBanner(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        root = CourseDirectory(parent=self).root
        record = StatusStore(root).get(info.get("student", ""), info.get("assignment", ""))
        if record is not None:
            cell = new_markdown_cell(banner(record.status, record.reason))
            cell.metadata["graders_banner"] = True
            nb.cells.insert(0, cell)
        return nb, resources
