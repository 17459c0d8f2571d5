"""SaveAutoGradesInOneCommit writes what nbgrader's SaveAutoGrades writes, in one commit."""

from __future__ import annotations

import contextlib
import copy

import pytest
from nbformat.v4 import new_output
from nbgrader.api import Gradebook
from nbgrader.preprocessors import SaveAutoGrades
from sqlalchemy import event
from sqlalchemy.engine import Engine

import grading_course as gc
from graders.autograde.preprocessors import SaveAutoGradesInOneCommit


@contextlib.contextmanager
def counted_commits():
    commits = []

    def count(connection):
        commits.append(connection)
    event.listen(Engine, "commit", count)
    try:
        yield commits
    finally:
        event.remove(Engine, "commit", count)


def executed(release_nb):
    """A submission as a worker returns it: add answered, its test failed; mul untouched, its
    test passed (so mul's solution cell still has the released checksum: "No response.")."""
    nb = gc.answers(release_nb, **{"tiny-add": "def add(a, b):\n    return a - b"})
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == "tiny-add-test":
            cell.outputs = [new_output("error", ename="AssertionError", evalue="add(1, 2) should be 3",
                                       traceback=[])]
        elif cell.cell_type == "code":
            cell.outputs = []
    return nb


def graded(tmp_path, name, preprocessor, manual: dict):
    course = tmp_path / name
    _, release_nb = gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})["tiny"]
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(db_url) as gb:
        gb.add_student("al")
        gb.add_submission("tiny", "al")
        for grade_id, score in manual.items():  # a grader's earlier manual score must survive
            gb.find_grade(grade_id, "tiny", "tiny", "al").manual_score = score
        gb.db.commit()
    resources = {"nbgrader": {"notebook": "tiny", "assignment": "tiny", "student": "al", "db_url": db_url}}
    with counted_commits() as opening:
        Gradebook(db_url).close()
    with counted_commits() as commits:
        preprocessor().preprocess(copy.deepcopy(executed(release_nb)), resources)
    with Gradebook(db_url) as gb:
        notebook = gb.find_submission_notebook("tiny", "tiny", "al")
        grades = sorted((g.name, g.auto_score, g.manual_score, g.needs_manual_grade) for g in notebook.grades)
        comments = sorted((c.name, c.auto_comment) for c in notebook.comments)
    return grades, comments, len(commits) - len(opening)  # the cells' commits


@pytest.mark.parametrize("manual", [{}, {"tiny-mul-test": 1.5}], ids=["autograded only", "a manual score kept"])
def test_the_same_grades_and_comments_in_one_commit(tmp_path, manual):
    theirs = graded(tmp_path, "theirs", SaveAutoGrades, manual)
    ours = graded(tmp_path, "ours", SaveAutoGradesInOneCommit, manual)
    assert ours[:2] == theirs[:2]
    assert ("tiny-add-test", 0.0) in [g[:2] for g in ours[0]] and ("tiny-mul", "No response.") in ours[1]
    # TINY has two test cells and two solution cells: a commit each, or one in all
    assert (ours[2], theirs[2]) == (1, 4)


def test_the_finishing_half_saves_in_one_commit_after_the_stderr_fix():
    from graders.autograde.finish import finishing_preprocessors
    from graders.autograde.preprocessors import KeepPointsOnWarnings
    steps = finishing_preprocessors()
    assert SaveAutoGrades not in steps
    assert steps.index(KeepPointsOnWarnings) + 1 == steps.index(SaveAutoGradesInOneCommit)
    class Mine(SaveAutoGrades):  # an instructor's own subclass is theirs to keep
        pass
    assert finishing_preprocessors([Mine]) == [Mine]
