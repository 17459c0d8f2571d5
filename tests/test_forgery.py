"""The forgery suite: submissions that try to earn points without answers, graded for real.

Each notebook's release gets answers that are not answers (an object equal to everything;
subclasses of int, str, tuple and Tensor whose __eq__, __hash__ and __bool__ lie), alone and
with code that reaches for the grader: the integrity verifier replaced, the checks patched
so that only the grader's own calls fail, comparisons patched, IPython hooks that patch
before a test cell and restore after it, the same obfuscated through exec, base64 and
getattr, a verdict printed by hand (tests/forgeries.py). Verdicts are judged outside the
kernel (graders.autograde.judging), so none of them may earn a point; and every submission
whose code reaches for the grader must be flagged for review (graders.autograde.review:
nbgrader's needs_manual_grade) or found by the kernel guard (status invalid)."""

import json

import pytest

import forgeries
import grading_course as gc
import nbgrading
from authoring import submissions
from graders.autograde import batch

STEMS = ["01_tensors", "04_training_loop", "06_compile"]
CASES = [(value, None) for value in forgeries.VALUES] + [("anything", attack) for attack in forgeries.ATTACKS]


def student(value, attack):
    name = value + ("-" + attack if attack else "")
    return name.replace(" ", "-").replace(",", "").replace("(", "").replace(")", "")


# one batch per notebook, all its tests on one pytest worker (the notebooks on several)
@pytest.fixture(scope="module", params=[pytest.param(s, marks=pytest.mark.xdist_group(f"forgery-{s}")) for s in STEMS])
def graded(request, tmp_path_factory):
    stem = request.param
    course = tmp_path_factory.mktemp(f"forged-{stem}") / "course"
    source, released = nbgrading.release_course(course, stem)
    for value, attack in CASES:
        gc.submit(course, student(value, attack), stem, forgeries.forged(source, released, value, attack))
    records = {r.student: r for r in batch.autograde(course, [stem], workers=2, sandbox=True, progress=False)}
    status = json.loads((course / "grading_status.json").read_text())
    return stem, course, records, status, sum(submissions.test_cells(source).values())


@pytest.mark.slow
@pytest.mark.parametrize("value, attack", CASES, ids=[student(v, a) for v, a in CASES])
def test_a_forged_submission_earns_nothing(graded, value, attack):
    stem, course, records, status, total = graded
    record = records[student(value, attack)]
    assert record.score == 0, (f"{stem}: {value} answers with {attack or 'no attack'} earned {record.score} of "
                               f"{total} ({record.status}: {record.reason})")


@pytest.mark.slow
@pytest.mark.parametrize("attack", [a for a, (_, flagged) in forgeries.ATTACKS.items() if flagged],
                         ids=lambda attack: student("anything", attack))
def test_code_that_reaches_for_the_grader_is_flagged_or_found(graded, attack):
    stem, course, records, status, _ = graded
    name = student("anything", attack)
    record = records[name]
    by_hand = {g for s, _, g, _, _, _, needs in gc.gradebook_rows(course) if s == name and needs}
    flags = status[f"{name}/{stem}"].get("flags") or []
    found = record.status == "invalid" and "tampering" in record.reason
    assert flags or found, f"{stem}: {attack} was neither flagged nor found ({record.status}: {record.reason})"
    if flags and not found:  # scored, but marked for a grader (found: 0, and the status says why)
        assert by_hand, f"{stem}: {attack} was flagged, but no grade needs a grader's look: {flags}"
