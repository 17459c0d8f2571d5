"""The student's Validate (helpers.validate.CourseValidator, the lab's server extension) on
real releases: each failing test cell is reported as its exercise's name and the message the
notebook shows, never the test's code or a misconception marker, each message once; the
reference answers pass. The release's test cells carry no markers (graders.course.student_copy
.ClearMarkers) while the gradebook's copy, which grading restores, keeps them.

(The dialog itself, in JupyterLab, is driven by tests/test_browser.py.)
"""

from __future__ import annotations

import json

import nbformat
import pytest
from traitlets.config import Config

from authoring import submissions
from helpers.validate import CourseValidator

STEM = "01_tensors"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    from graders.course.release import release

    root = tmp_path_factory.mktemp("validate")
    release(root / "course", [STEM])
    return root


def released(course):
    return submissions.read(course / "course" / "release" / STEM / f"{STEM}.ipynb")


def validate(course, nb, name: str) -> dict:
    path = course / f"{name}.ipynb"
    nbformat.write(nb, str(path))
    config = Config()
    config.Execute.timeout = 120
    return CourseValidator(config=config).validate(str(path))


def test_the_release_shows_no_markers_and_the_gradebook_keeps_them(course):
    from nbgrader.api import Gradebook
    from nbgrader.utils import compute_checksum, is_grade, is_solution

    tests = [c for c in released(course).cells if is_grade(c) and not is_solution(c)]
    assert tests and not [c.source for c in tests if "[mc:" in c.source]
    assert all(c.metadata.nbgrader.checksum == compute_checksum(c) for c in tests)
    with Gradebook(f"sqlite:///{course / 'course' / 'gradebook.db'}") as gradebook:
        kept = [c.source for c in gradebook.find_notebook(STEM, STEM).source_cells if "[mc:" in c.source]
    assert kept, "grading restores test cells from the gradebook: they must keep their markers"


def test_an_untouched_release_is_one_not_answered_line_per_exercise(course):
    nb = released(course)
    results = validate(course, nb, "untouched")
    failed = results["failed"]
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
              and not c.metadata.nbgrader.get("solution")]
    assert len(failed) == len(graded)
    for entry in failed:
        assert "checks." not in entry["source"] and "[mc:" not in json.dumps(entry), entry
        assert entry["source"].startswith(("Exercise ", "Quick quiz")), entry["source"]
        assert entry["raw_error"].startswith("Not answered yet") and "\n" not in entry["raw_error"], entry
        assert entry["error"].count("Not answered yet") == 1, entry["error"]
    # what the dialog shows: under 200 characters a failing cell (nbgrader's: over 1,000)
    shown = sum(len(e["source"]) + len(e["raw_error"]) for e in failed)
    assert shown < 200 * len(failed), shown


def test_wrong_answers_are_named_with_their_misconception_and_the_reference_passes(course):
    source = submissions.read(course / "course" / "source" / STEM / f"{STEM}.ipynb")
    nb, wronged = submissions.partly_wrong(STEM, source, released(course), rest_untouched=True)
    wrong, _ = submissions.load_variants(STEM)
    phrases = {g: submissions.unpack(wrong[g][0])[1] for g in wronged}
    said = " ".join(" ".join(e["raw_error"].split()) for e in validate(course, nb, "half")["failed"]).lower()
    assert [p for p in phrases.values() if p.lower() in said], (phrases, said[:600])
    assert "failed" not in validate(course, submissions.reference(source, released(course)), "done")


def test_a_marker_goes_with_the_space_that_followed_it():
    from graders.course.student_copy import without_markers

    source = ('with checks.because("[mc:a.b] The answer is a count."):\n'
              '    checks.expect_true(ok, "It is not a count [mc:a.count].")\n'
              "    checks.expect_true(ok, '[mc:a.c]Tight.')")
    assert without_markers(source) == ('with checks.because("The answer is a count."):\n'
                                       '    checks.expect_true(ok, "It is not a count.")\n'
                                       "    checks.expect_true(ok, 'Tight.')")
