"""Small courses for the grading tests: a few cells each, so a batch runs in seconds."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader.apps import NbGraderAPI

from authoring import submissions
from authoring.build import KERNELSPEC
from graders.course.config import Course
from graders.course.layout import ensure_course_dir

LEAK_MARK = "add(-7, 7)"  # appears only in the hidden test's source

TINY = [
    ("code", None, 0, "import warnings"),
    ("solution", "tiny-add", 0,
     "def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION"),
    ("test", "tiny-add-test", 2,
     'assert add(1, 2) == 3, "add(1, 2) should be 3"\n### BEGIN HIDDEN TESTS\n'
     'assert add(-7, 7) == 0, "hidden check failed"\n### END HIDDEN TESTS'),
    ("solution", "tiny-mul", 0,
     "def mul(a, b):\n    ### BEGIN SOLUTION\n    return a * b\n    ### END SOLUTION"),
    ("test", "tiny-mul-test", 3, 'assert mul(2, 3) == 6, "mul(2, 3) should be 6: did you add?"'),
]

# A correct answer on which torch and the warnings module both write to stderr.
WARNY = [
    ("code", None, 0, "import warnings\nimport torch"),
    ("solution", "warny-copy", 0,
     "def copy(t):\n    ### BEGIN SOLUTION\n    warnings.warn('copy: this is only a warning')\n"
     "    return torch.tensor(t)\n    ### END SOLUTION"),
    ("test", "warny-copy-test", 2, "assert copy(torch.ones(2)).sum() == 2"),
]


def build(stem: str, spec) -> nbformat.NotebookNode:
    nb = new_notebook(metadata={"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}})
    for kind, grade_id, points, source in spec:
        cell = new_code_cell(source)
        if grade_id:
            meta = {"grade": kind == "test", "grade_id": grade_id, "locked": kind == "test",
                    "schema_version": 3, "solution": kind == "solution", "task": False}
            if kind == "test":
                meta["points"] = points
            cell.metadata["nbgrader"] = meta
            cell.id = grade_id
        nb.cells.append(cell)
    return nb


def release(course: Path, notebooks: dict[str, nbformat.NotebookNode]) -> dict[str, tuple]:
    """Put the notebooks in DIR/source and run nbgrader generate_assignment; (source, release) each."""
    ensure_course_dir(course)
    api = NbGraderAPI(config=Course(course).config)
    api.log.setLevel(logging.ERROR)
    out = {}
    for stem, nb in notebooks.items():
        (course / "source" / stem).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(course / "source" / stem / f"{stem}.ipynb"))
        result = api.generate_assignment(stem, force=True, create=True)
        assert result["success"], result
        out[stem] = (nb, submissions.read(course / "release" / stem / f"{stem}.ipynb"))
    return out


submit = submissions.submit


def answers(release_nb, **code):
    return submissions.fill(release_nb, code)


def gradebook_rows(course: Path) -> list[tuple]:
    """Every grade row of the gradebook, for comparing runs."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        rows = []
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        rows.append((submission.student_id, assignment.name, grade.name, grade.id,
                                     grade.auto_score, grade.manual_score, grade.needs_manual_grade))
        return sorted(rows)


def scores(course: Path) -> dict[tuple, float]:
    return {(s, a, g): auto for s, a, g, _, auto, _, _ in gradebook_rows(course)}


def json_text(nb) -> str:
    return json.dumps(nb)
