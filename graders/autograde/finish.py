"""nbgrader's Autograde, second half only: grade a notebook that a worker already executed.

Autograde runs ``sanitize_preprocessors`` and then ``autograde_preprocessors`` (which start
with Execute). A worker (graders.autograde.pipeline) runs the first half on its scratch course
(graders.autograde.scratch), executes in the sandbox, then this converter runs the course's second half
(``c.Autograde.autograde_preprocessors`` when the course sets it, else nbgrader's default)
with Execute replaced by ExecutedElsewhere, so IgnorePattern, LimitOutput, SaveAutoGrades,
late penalties, the metadata check and any preprocessor the instructor added are nbgrader's
own, configured by the course's config. In both halves nbgrader's CheckCellMetadata becomes
CachedCheckCellMetadata (the same check, its schema compiled once), and SaveAutoGrades
SaveAutoGradesInOneCommit (the same grades, one transaction per notebook).
"""

from __future__ import annotations

import stat
from pathlib import Path

from nbconvert.writers import FilesWriter
from nbgrader.converters import Autograde
from nbgrader.preprocessors import CheckCellMetadata, Execute, SaveAutoGrades
from traitlets.utils.importstring import import_item

from .preprocessors import CachedCheckCellMetadata, ExecutedElsewhere, KeepPointsOnWarnings, SaveAutoGradesInOneCommit

# nbgrader's step -> ours: the same result, cheaper (graders.autograde.preprocessors)
EQUIVALENTS = {CheckCellMetadata: CachedCheckCellMetadata, SaveAutoGrades: SaveAutoGradesInOneCommit}


def _resolved(steps: list | None, trait: str) -> list:
    """The steps (default: nbgrader's), import strings resolved, each swapped for its equivalent."""
    if steps is None:
        steps = Autograde.class_traits()[trait].default()
    steps = [import_item(step) if isinstance(step, str) else step for step in steps]
    return [EQUIVALENTS.get(step, step) for step in steps]


def sanitizing_preprocessors(steps: list | None = None) -> list:
    """The sanitize steps, with the equivalents."""
    return _resolved(steps, "sanitize_preprocessors")


def finishing_preprocessors(steps: list | None = None) -> list:
    """The autograde steps, with the equivalents, Execute swapped out, the stderr fix before saving."""
    finishing = []
    for step in _resolved(steps, "autograde_preprocessors"):
        if isinstance(step, type) and issubclass(step, Execute):
            step = ExecutedElsewhere
        if step is SaveAutoGradesInOneCommit:
            finishing.append(KeepPointsOnWarnings)
        finishing.append(step)
    return finishing


class FinishAutograde(Autograde):
    def __init__(self, steps: list | None = None, **kwargs):
        super().__init__(**kwargs)
        self._finishing = finishing_preprocessors(steps)

    def start(self) -> None:  # never walks the submitted folder; finish() is the entry point
        raise NotImplementedError("use finish()")

    def finish(self, nb, assignment: str, student: str, outcome: dict) -> None:
        """Grade ``nb`` (executed) into the gradebook and write DIR/autograded/... like nbgrader."""
        self.autograde_preprocessors = self._finishing
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
        # (nbgrader sets NBGRADER_EXECUTION=autograde here for Execute's kernel; nothing runs in
        # this half, and the variable is the process's, shared by the grading threads)
        output, resources = self.exporter.from_notebook_node(nb, resources=resources)
        # the first half left the file read-only (c.Autograde.permissions, 444): only root
        # could write it again; it gets the same permissions back once written
        target = Path(self._format_dest(assignment, student)) / f"{assignment}.ipynb"
        if target.exists():
            target.chmod(target.stat().st_mode | stat.S_IWUSR)
        self.write_single_notebook(output, resources)
        self.set_permissions(assignment, student)
