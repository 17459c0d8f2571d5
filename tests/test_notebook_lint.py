"""Static checks over every source notebook: format, nbgrader markup, pairing, coverage."""

import re
from pathlib import Path

import nbformat
import pytest

from authoring import build as authoring
from authoring import submissions

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
STEMS = [p.stem for p in NOTEBOOKS]
REQUIRED = {"grade", "grade_id", "locked", "schema_version", "solution", "task"}
MIN_EXERCISES, MIN_QUIZZES = 6, 3


def nbgrader_cells(nb):
    return [c for c in nb.cells if "nbgrader" in c.metadata]


def is_quiz(grade_id: str) -> bool:
    return "-quiz-" in grade_id


@pytest.fixture(params=NOTEBOOKS, ids=STEMS)
def notebook(request):
    return request.param, nbformat.read(str(request.param), as_version=4)


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no .ipynb"


def test_valid_nbformat_4(notebook):
    path, nb = notebook
    assert nb.nbformat == 4
    nbformat.validate(nb)


def test_no_outputs_committed(notebook):
    path, nb = notebook
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
             and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs or execution counts"


def test_built_from_its_source():
    assert authoring.main(["--check"]) == 0, "run `make notebooks` and commit the result"
    assert sorted(p.stem for p in authoring.SOURCES.glob("*.py")) == STEMS


def test_nbgrader_metadata_schema_v3(notebook):
    path, nb = notebook
    for cell in nbgrader_cells(nb):
        meta = cell.metadata.nbgrader
        assert REQUIRED <= set(meta), f"{meta.get('grade_id')}: missing {REQUIRED - set(meta)}"
        assert meta["schema_version"] == 3
        assert re.fullmatch(rf"{re.escape(path.stem)}-[a-z0-9_-]+", meta["grade_id"]), meta["grade_id"]
        if meta["solution"]:
            assert cell.cell_type == "code" and not meta["grade"] and not meta["locked"]
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
        if meta["grade"]:
            assert cell.cell_type == "code" and meta["locked"]
            assert meta["points"] > 0, f"{meta['grade_id']} has no points"
            assert meta["grade_id"].endswith("-test")


def test_grade_ids_unique_across_course():
    seen = {}
    for path in NOTEBOOKS:
        for cell in nbgrader_cells(nbformat.read(str(path), as_version=4)):
            grade_id = cell.metadata.nbgrader["grade_id"]
            assert grade_id not in seen, f"{grade_id} in both {seen[grade_id]} and {path.name}"
            seen[grade_id] = path.name


def test_every_solution_followed_by_its_test(notebook):
    path, nb = notebook
    pairs = submissions.tests_of(nb)
    for solution, tests in pairs.items():
        assert tests == [f"{solution}-test"], f"{solution} is followed by tests {tests}"
    tests = set(submissions.test_cells(nb))
    orphans = tests - {f"{s}-test" for s in pairs}
    assert not orphans, f"test cells without a solution: {orphans}"


def test_enough_exercises_and_quizzes(notebook):
    path, nb = notebook
    ids = list(submissions.solution_cells(nb))
    exercises = [i for i in ids if not is_quiz(i)]
    quizzes = [i for i in ids if is_quiz(i)]
    assert len(exercises) >= MIN_EXERCISES, f"{path.stem}: {len(exercises)} exercises"
    assert len(quizzes) >= MIN_QUIZZES, f"{path.stem}: {len(quizzes)} quizzes"


def test_variants_cover_every_exercise(notebook):
    path, nb = notebook
    wrong, alternative = submissions.load_variants(path.stem)
    ids = set(submissions.solution_cells(nb))
    assert set(wrong) == ids, f"WRONG lacks {ids - set(wrong)} / has unknown {set(wrong) - ids}"
    assert all(wrong[i] for i in ids), "every exercise needs at least one wrong variant"
    needed = {i for i in ids if not is_quiz(i)}
    assert needed <= set(alternative), f"ALTERNATIVE lacks {needed - set(alternative)}"
    assert set(alternative) <= ids


def _silent_asserts(source: str) -> list[int]:
    """Line numbers of `assert x` (no message) and of bare `raise AssertionError`."""
    import ast

    # IPython magics are not Python: blank them out, keeping the line numbers
    lines = ["" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines()]
    tree = ast.parse("\n".join(lines))
    silent = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.msg is None:
            silent.append(node.lineno)
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc
            name = exc.func if isinstance(exc, ast.Call) else exc
            if isinstance(name, ast.Name) and name.id == "AssertionError" and not (
                    isinstance(exc, ast.Call) and (exc.args or exc.keywords)):
                silent.append(node.lineno)
    return silent


def test_test_cells_assert_with_a_message(notebook):
    """A failing assert in a test cell (hidden ones included) must say why: a bare
    AssertionError tells a student nothing about what they believed."""
    path, nb = notebook
    found = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            silent = _silent_asserts(cell.source)
            if silent:
                found[meta["grade_id"]] = silent
    assert not found, (f"{path.name}: asserts without a message (grade_id: cell lines) {found}; "
                       "give each a message naming the misconception, or use helpers.checks")


def test_silent_assert_lint_sees_them():
    """The lint itself: it flags the silent forms and passes the explained ones."""
    assert _silent_asserts("assert x == 1\nraise AssertionError\nraise AssertionError()") == [1, 2, 3]
    assert _silent_asserts("assert x, 'why'\nraise AssertionError('why')") == []
    assert _silent_asserts("%time f()\nassert (x, 'a tuple is always true')") == [2]
