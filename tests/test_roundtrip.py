"""Every notebook through real nbgrader: reference full marks, blank 0, wrong answers lose
exactly their exercise's points with the misconception named, alternatives keep full marks,
and `course report` counts every student's outcome as the batch declares it.

The blank submission is also the untouched student copy running to its last cell: the
release tags every answer and test cell ``raises-exception`` (graders/course/student_copy.py),
so that JupyterLab's and nbclient's Run All let such a cell fail and run on, while an
untagged cell that failed would stop them. Its graded notebook shows every code cell run,
every test cell failing first with one "not answered yet" line whose evalue carries
[mc:unanswered], and every other cell without an error. (What the student sees in the lab
is tests/test_browser.py's.)"""

from pathlib import Path

import nbformat
import pytest

import nbgrading
import report_counts
from authoring import submissions
from graders.report import report

STEMS = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_round_trip(stem, tmp_path):
    course = tmp_path / "course"
    source, released = nbgrading.release_course(course, stem)
    batch = {"reference": submissions.reference(source, released), "blank": released,
             "alternative": submissions.alternative(stem, source, released)}
    rounds = submissions.wrong_rounds(stem, source, released, ids=True)
    for k, (nb, _, _) in enumerate(rounds):
        batch[f"wrong{k}"] = nb
    for student, nb in batch.items():
        submissions.submit(course, student, stem, nb)
    grades = nbgrading.autograde(course, stem, list(batch))
    assert_untouched_copy_ran_to_the_end(course, stem, released)
    total = sum(submissions.test_cells(source).values())

    def score(student):
        return sum(s for s, _, _ in grades[student].values())

    failing = {t: text for t, (s, m, text) in grades["reference"].items() if s != m}
    assert score("reference") == total, f"reference answers lost points: {failing}"
    assert score("blank") == 0
    failing = {t: text for t, (s, m, text) in grades["alternative"].items() if s != m}
    assert score("alternative") == total, f"alternative answers lost points: {failing}"
    for k, (_, phrases, identifiers) in enumerate(rounds):
        got = grades[f"wrong{k}"]
        for test_id, (s, m, text) in got.items():
            solution = test_id.removesuffix("-test")
            if solution in phrases:
                assert s == 0, f"wrong answer to {solution} kept {s} points"
                assert phrases[solution].lower() in text.lower(), \
                    f"{test_id} output does not name the misconception {phrases[solution]!r}: {text!r}"
                if identifiers[solution]:
                    # the error's evalue keeps the marker that `course report` counts
                    assert f"[mc:{identifiers[solution]}]" in text, \
                        f"{test_id} evalue lacks [mc:{identifiers[solution]}]: {text!r}"
            else:
                assert s == m, f"round {k}: {test_id} lost points though its answer was right: {text}"
    # `course report` on this batch counts each student's outcome as known before grading
    report(course, [stem])
    exercises = list(submissions.solution_cells(source))
    wrong, _ = submissions.load_variants(stem)
    known = {"reference": {}, "alternative": {}, "blank": dict.fromkeys(exercises, "unanswered")}
    unknown = set()
    for k, (_, _, identifiers) in enumerate(rounds):
        outcomes = {g: report_counts.wrong_outcome(source, g, wrong[g][k]) for g in identifiers}
        unknown |= {g for g, outcome in outcomes.items() if outcome is None}
        known[f"wrong{k}"] = {g: outcome for g, outcome in outcomes.items() if outcome is not None}
    report_counts.assert_counts(course, stem, exercises, known, unknown)


def kind(cell) -> str:
    meta = cell.metadata.get("nbgrader", {})
    return "test" if meta.get("grade") and not meta.get("solution") else (
        "answer" if meta.get("solution") else "other")


def assert_untouched_copy_ran_to_the_end(course: Path, stem: str, released) -> None:
    for cell in released.cells:
        if cell.cell_type == "code" and kind(cell) != "other":
            assert "raises-exception" in cell.metadata.get("tags", []), \
                f"{stem}: {cell.metadata['nbgrader']['grade_id']} is not tagged raises-exception"
    graded = nbformat.read(str(course / "autograded" / "blank" / stem / f"{stem}.ipynb"), as_version=4)
    code = [c for c in graded.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{stem}: not every code cell ran"
    tests = 0
    for cell in code:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if kind(cell) == "test":
            tests += 1
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            # the first error is what the student's Run All shows; grading may add the
            # underlying exception after it (nbgrader's show_undisplayed_error)
            assert errors, f"{stem}: {grade_id} did not fail: {cell.outputs}"
            error = errors[0]
            assert error.evalue.endswith("[mc:unanswered]"), \
                f"{stem}: {grade_id} reads as something else than not answered: {error.ename}: {error.evalue}"
            assert len(error.traceback) == 1 and "Not answered yet" in error.traceback[0], \
                f"{stem}: {grade_id} shows more than one line: {error.traceback}"
        elif kind(cell) == "other":
            assert not errors, f"{stem}: a cell that is not an exercise failed: {cell.source[:200]}\n{errors}"
    assert tests, f"{stem} has no test cells"
