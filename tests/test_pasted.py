"""Cells pasted with their nbgrader markings (JupyterLab copies a cell's metadata): the
notebook is graded, each such cell runs as an ordinary one, and the grader is told which
cell and why (graders.autograde.pasted)."""

import copy

import nbformat

import grading_course as gc
from graders.autograde import batch, pasted


def marked(grade_id, **marks):
    cell = nbformat.v4.new_code_cell("x = 1")
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "schema_version": 3, **marks}
    return cell


def test_repair_keeps_the_first_and_names_the_rest():
    nb = nbformat.v4.new_notebook(cells=[marked("a", solution=True), marked("a", solution=True),
                                         marked("other", grade=True), marked("", locked=True),
                                         nbformat.v4.new_code_cell("y = 2"), marked("b", grade=True)])
    nb.cells[4].metadata["nbgrader"] = {}  # what nbgrader's DeduplicateIds leaves behind
    notes = pasted.repair(nb, {"a", "b"})
    assert [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells] == ["a", None, None, None, None, "b"]
    assert notes == [
        "cell #2 repeats the cell a (a pasted copy keeps its markings); the first one is graded: "
        "it ran as an ordinary cell",
        "cell #3 carries the id other, which this assignment does not have (pasted from another notebook?): "
        "it ran as an ordinary cell",
        "cell #4 has nbgrader's markings but no grade id: it ran as an ordinary cell"]
    assert pasted.repair(nbformat.v4.new_notebook(cells=[marked("a", solution=True)]), {"a"}) == []


def test_a_notebook_with_pasted_cells_is_graded_and_says_which(tmp_path):
    course = tmp_path / "course"
    _, released = gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})["tiny"]
    right = gc.answers(released, **{"tiny-add": "def add(a, b):\n    return a + b",
                                    "tiny-mul": "def mul(a, b):\n    return a * b"})
    answer, test = right.cells[1], right.cells[2]
    for student, index, cell, grade_id in (("answer-twice", 2, answer, None), ("test-twice", 3, test, None),
                                           ("foreign", 2, answer, "tiny-other")):
        nb = copy.deepcopy(right)
        pasted_cell = copy.deepcopy(cell)
        pasted_cell.id = f"pasted-{student}"
        if grade_id:
            pasted_cell.metadata["nbgrader"]["grade_id"] = grade_id
        nb.cells.insert(index, pasted_cell)
        gc.submit(course, student, "tiny", nb)
    records = {r.student: r for r in batch.autograde(course, ["tiny"], workers=2, sandbox=True, progress=False)}
    assert {s: (r.status, r.score) for s, r in records.items()} == {
        "answer-twice": ("ok", 5), "test-twice": ("ok", 5), "foreign": ("ok", 5)}
    assert "cell #3 repeats the cell tiny-add" in records["answer-twice"].reason
    assert "cell #4 repeats the cell tiny-add-test" in records["test-twice"].reason
    assert "carries the id tiny-other" in records["foreign"].reason
    # the student's own file is left as it was
    kept = nbformat.read(str(course / "submitted" / "foreign" / "tiny" / "tiny.ipynb"), as_version=4)
    assert kept.cells[2].metadata["nbgrader"]["grade_id"] == "tiny-other"
