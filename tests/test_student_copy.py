"""The untouched student copy runs to its last cell: every answer and test cell is tagged
``raises-exception`` by the release (graders/course/student_copy.py), every test cell fails with one
"not answered yet" line whose evalue carries [mc:unanswered], and every other cell succeeds.

nbclient, like JupyterLab, lets a tagged cell fail and runs on; an untagged cell that fails
stops the run, which this test reports. That the grades stay unchanged (untouched -> 0) is
tests/test_roundtrip.py's "blank" submission, graded by nbgrader with these tags in place.
"""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from conftest import REPO

# its module fixtures build a graded course: under xdist, one worker builds it once
pytestmark = pytest.mark.xdist_group("test_student_copy")

STEMS = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    from graders.course.release import release

    course = tmp_path_factory.mktemp("student-copy") / "course"
    release(course, STEMS)
    return course


def kind(cell) -> str:
    meta = cell.metadata.get("nbgrader", {})
    return "test" if meta.get("grade") and not meta.get("solution") else (
        "answer" if meta.get("solution") else "other")


@pytest.mark.parametrize("stem", STEMS)
def test_untouched_copy_runs_to_the_end(released, stem):
    nb = nbformat.read(str(released / "release" / stem / f"{stem}.ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and kind(cell) != "other":
            assert "raises-exception" in cell.metadata.get("tags", []), \
                f"{stem}: {cell.metadata['nbgrader']['grade_id']} is not tagged raises-exception"
    client = NotebookClient(nb, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(REPO / "notebooks")}})
    try:
        client.execute()
    except CellExecutionError as error:
        pytest.fail(f"{stem}: Run All stopped at an untagged cell:\n{str(error)[:3000]}")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{stem}: not every code cell ran"
    tests = 0
    for cell in code:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if kind(cell) == "test":
            tests += 1
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            assert len(errors) == 1, f"{stem}: {grade_id} did not fail: {cell.outputs}"
            (error,) = errors
            assert error.evalue.endswith("[mc:unanswered]"), \
                f"{stem}: {grade_id} reads as something else than not answered: {error.ename}: {error.evalue}"
            assert len(error.traceback) == 1 and "Not answered yet" in error.traceback[0], \
                f"{stem}: {grade_id} shows more than one line: {error.traceback}"
        elif kind(cell) == "other":
            assert not errors, f"{stem}: a cell that is not an exercise failed: {cell.source[:200]}\n{errors}"
    assert tests, f"{stem} has no test cells"
