"""nbgrader's Autograde, second half only: grade a notebook that a worker already executed.

Autograde runs ``sanitize_preprocessors`` and then ``autograde_preprocessors`` (which start
with Execute). The main process runs the first half through nbgrader's own API with an empty
second half; workers execute; this converter then runs the second half with Execute replaced
by ExecutedElsewhere, so IgnorePattern, LimitOutput, SaveAutoGrades, late penalties and the
metadata check are nbgrader's own, configured by the same traitlets config.
"""

from __future__ import annotations

from nbconvert.writers import FilesWriter
from nbgrader import utils
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute, SaveAutoGrades

from .autograde_preprocessors import ExecutedElsewhere, KeepPointsOnWarnings


def finishing_preprocessors() -> list:
    """Autograde's default second half, Execute swapped out, the stderr fix before saving."""
    steps = []
    for step in Autograde.class_traits()["autograde_preprocessors"].default():
        if step is Execute:
            step = ExecutedElsewhere
        if step is SaveAutoGrades:
            steps.append(KeepPointsOnWarnings)
        steps.append(step)
    return steps


class FinishAutograde(Autograde):
    def start(self) -> None:  # never walks the submitted folder; finish() is the entry point
        raise NotImplementedError("use finish()")

    def finish(self, nb, assignment: str, student: str, outcome: dict) -> None:
        """Grade ``nb`` (executed) into the gradebook and write DIR/autograded/... like nbgrader."""
        self.autograde_preprocessors = finishing_preprocessors()
        self.writer = FilesWriter(parent=self, config=self.config)
        self.exporter = self.exporter_class(parent=self, config=self.config)
        self._sanitizing = False
        self._init_preprocessors()
        resources = {
            "unique_key": assignment,
            "output_files_dir": f"{assignment}_files",
            "nbgrader": {"student": student, "assignment": assignment, "notebook": assignment,
                         "db_url": self.coursedir.db_url},
            "graders": outcome,
        }
        with utils.setenv(NBGRADER_EXECUTION="autograde"):
            output, resources = self.exporter.from_notebook_node(nb, resources=resources)
        self.write_single_notebook(output, resources)
