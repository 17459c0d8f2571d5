"""The student copy's extra release steps: cells that may fail are tagged
``raises-exception``; test cells lose their misconception markers.

An untouched student copy has a ``raise NotImplementedError()`` in every answer cell, and its
test cells fail until the answers are written. JupyterLab sends a cell tagged
``raises-exception`` with ``stop_on_error: false`` (and nbclient lets such a cell fail), so
"Run All" goes on past it: every instrument below renders and every test cell shows its one
line (``helpers.checks`` turns the stub into "not answered yet"). Grading is unchanged:
nbgrader executes every cell whatever its tags, and a test cell that fails still scores 0.

nbgrader's ``ClearSolutions.code_stub`` stays its default (``raise NotImplementedError()``):
an answer cell must fail until it is answered, or Validate would pass it.

A test cell's messages carry ``[mc:identifier]`` markers for the instructor's report; on the
student's screen (the cell's code, Validate) they are noise, so the student copy's test cells
are written without them (``ClearMarkers``, with the cell's checksum recomputed: Validate and
the integrity check compare against it). Grading keeps them: autograde restores test cells
from the gradebook, which holds the instructor's version.
"""

from __future__ import annotations

import re

from nbgrader.converters import GenerateAssignment
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import compute_checksum, is_grade, is_solution

from helpers.misconceptions import MARKER

TAG = "raises-exception"


class TagCellsThatMayFail(NbGraderPreprocessor):
    """Tag answer cells and autograded test cells (code cells only) ``raises-exception``."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and (is_solution(cell) or is_grade(cell)):
            tags = list(cell.metadata.get("tags", []))
            if TAG not in tags:
                cell.metadata["tags"] = tags + [TAG]
        return cell, resources


# a marker that opens a string takes the space after it along: "[mc:a.b] The …" -> "The …"
OPENING_MARKER = re.compile(r"""(?<=["'])\s*\[mc:[^\]\s]+\]\s*""")


def without_markers(source: str) -> str:
    return MARKER.sub("", OPENING_MARKER.sub("", source))


class ClearMarkers(NbGraderPreprocessor):
    """Remove ``[mc:...]`` markers from test cells (code, graded, not answers)."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and is_grade(cell) and not is_solution(cell):
            clean = without_markers(cell.source)
            if clean != cell.source:
                cell.source = clean
                if "checksum" in cell.metadata.get("nbgrader", {}):
                    cell.metadata.nbgrader.checksum = compute_checksum(cell)
        return cell, resources


def preprocessors() -> list:
    """generate_assignment's own preprocessors, then the markers cleared and the tagging
    (tags are not checksummed). The course's nbgrader_config.py lists the same
    (graders.course.config)."""
    return list(GenerateAssignment.class_traits()["preprocessors"].default()) + [ClearMarkers, TagCellsThatMayFail]
