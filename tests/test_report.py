"""`course report` on classes graded by the real harness, where each student's outcome per
exercise is known in advance: the CSV's counts equal the known counts exactly, the HTML is
self-contained and every plot renders in headless Chromium, and bad input exits with 2."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import grading_course
from authoring import submissions
from conftest import REPO, require_program
from graders.autograde import batch as harness
from graders.course import layout as coursedir
from graders.sandbox.limits import Limits
from report_counts import RESERVED, WHOLE, assert_counts, csv_counts, read_csv, wrong_outcome

# its module fixtures build a graded course: under xdist, one worker builds it once
pytestmark = pytest.mark.xdist_group("test_report")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = REPO / "artifacts" / "report"

# -- a small course whose checks carry identifiers ---------------------------------------

MC = "mc"
MC_SPEC = [
    ("code", None, 0, "import time\nimport torch\nfrom helpers import checks"),
    ("solution", "mc-rows", 0,
     "def mean_rows(t):\n    ### BEGIN SOLUTION\n    return t.mean(dim=1)\n    ### END SOLUTION"),
    ("test", "mc-rows-test", 2,
     "x = torch.arange(6.0).reshape(2, 3)\n"
     "with checks.explain_errors({}, name='mean_rows(x)'):\n"
     "    got = mean_rows(x)\n"
     "checks.reject_close(got, {\n"
     "    x.mean(dim=0): '[mc:tiny.wrong-dim] dim=0 averages down each column; a row mean runs along dim=1.',\n"
     "    x.mean(): '[mc:tiny.everything] without dim, mean reduces every element to one number.'},\n"
     "    name='mean_rows(x)')\n"
     "checks.expect_close(got, x.mean(dim=1), name='mean_rows(x)')"),
    ("solution", "mc-count", 0, "### BEGIN SOLUTION\nanswer = 6\n### END SOLUTION"),
    ("test", "mc-count-test", 1,
     "checks.expect_equal(answer, 6, name='answer', wrong={\n"
     "    5: '[mc:tiny.off-by-one] range(a, b) stops before b.',\n"
     "    9: '[mc:tiny.squared] the size of a 2-d grid is rows times columns.'})"),
    ("solution", "mc-old", 0,
     "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
    # as an older release wrote tests: a plain assert, no identifier
    ("test", "mc-old-test", 1, "assert double(2) == 4, 'double(2) should be 4'"),
]
WRONG = {  # the variants contract: (code, phrase, misconception id)
    "mc-rows": [("def mean_rows(t):\n    return t.mean(dim=0)", "averages down each column", "tiny.wrong-dim"),
                ("def mean_rows(t):\n    return t.mean()", "every element", "tiny.everything")],
    "mc-count": [("answer = 5", "stops before", "tiny.off-by-one"),
                 ("answer = 9", "rows times columns", "tiny.squared")],
    "mc-old": [("def double(x):\n    return x + x + 1", "should be 4")],
}
SLOW = "time.sleep(600)\nanswer = 6"  # stops the run in a solution cell: a timeout
# student -> (answers replacing the reference, outcome of each exercise); None: blank copy
CLASS = {
    "ref": ({}, {}),
    "blank": (None, dict.fromkeys(("mc-rows", "mc-count", "mc-old"), "unanswered")),
    "dim0": ({"mc-rows": WRONG["mc-rows"][0][0]}, {"mc-rows": "tiny.wrong-dim"}),
    "dim0_off": ({"mc-rows": WRONG["mc-rows"][0][0], "mc-count": WRONG["mc-count"][0][0]},
                 {"mc-rows": "tiny.wrong-dim", "mc-count": "tiny.off-by-one"}),
    "all_wrong": ({"mc-rows": WRONG["mc-rows"][1][0], "mc-count": WRONG["mc-count"][1][0],
                   "mc-old": WRONG["mc-old"][0][0]},
                  {"mc-rows": "tiny.everything", "mc-count": "tiny.squared", "mc-old": "unclassified"}),
    "old_only": ({"mc-old": WRONG["mc-old"][0][0]}, {"mc-old": "unclassified"}),
    "slow": ({"mc-count": SLOW}, {"mc-count": "not graded", "mc-old": "not graded"}),
}
BROKEN = {"ghost": "missing", "broken": "invalid"}  # not graded in every exercise
EXERCISES = ["mc-rows", "mc-count", "mc-old"]


def course_report(course: Path, *assignments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders.cli", "report", *assignments,
                           "--course-dir", str(course)], capture_output=True, text=True, cwd=REPO)


@pytest.fixture(scope="module")
def mc_class(tmp_path_factory):
    """The small course, graded by `course autograde` (sandboxed, 2 workers), then reported."""
    course = tmp_path_factory.mktemp("report") / "course"
    (source, released), = grading_course.release(course, {MC: grading_course.build(MC, MC_SPEC)}).values()
    for student, (answers, _) in CLASS.items():
        nb = released if answers is None else submissions.fill(
            released, {**submissions.solution_cells(source), **answers})
        submissions.submit(course, student, MC, nb)
    (course / "submitted" / "ghost").mkdir(parents=True)
    submissions.submit(course, "broken", MC, text='{"cells": [ cut short')
    records = harness.autograde(course, [MC], workers=2, sandbox=True, progress=False,
                                limits=Limits(cell_timeout_s=20))
    statuses = {r.student: r.status for r in records}
    assert statuses == {**dict.fromkeys(CLASS, "ok"), "slow": "timeout", **BROKEN}, statuses
    done = course_report(course, MC)
    assert done.returncode == 0, done.stderr
    return course


@pytest.mark.slow
def test_counts_equal_the_known_outcomes(mc_class):
    known = {s: outcomes for s, (_, outcomes) in CLASS.items()}
    known.update({s: dict.fromkeys(EXERCISES, "not graded") for s in BROKEN})
    assert_counts(mc_class, MC, EXERCISES, known)
    # spelled out once, so a reader sees what the class looked like
    got, _ = csv_counts(mc_class / "reports" / f"{MC}.csv")
    assert got["mc-rows", "tiny.wrong-dim"] == 2 and got[WHOLE, "unclassified"] == 2
    assert got[WHOLE, "not graded"] == 3 and got[WHOLE, "correct"] == 1


@pytest.mark.slow
def test_wrong_answers_fail_with_their_phrase_and_marker(mc_class):
    import nbformat
    for student, (answers, _) in CLASS.items():
        for exercise, code in (answers or {}).items():
            for variant in WRONG.get(exercise, []):
                if variant[0] != code:
                    continue
                nb = nbformat.read(str(mc_class / "autograded" / student / MC / f"{MC}.ipynb"), as_version=4)
                cell, = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"{exercise}-test"]
                evalue = " ".join(o.get("evalue", "") for o in cell.outputs if o.output_type == "error")
                _, phrase, identifier = submissions.unpack(variant)
                assert phrase in evalue, (student, exercise, evalue)
                assert identifier is None or evalue.endswith(f"[mc:{identifier}]"), (student, exercise, evalue)


@pytest.mark.slow
def test_every_row_is_there_even_at_zero_and_misconceptions_come_largest_first(mc_class):
    rows = read_csv(mc_class / "reports" / f"{MC}.csv")
    for exercise in ("mc-rows", "mc-count", "mc-old", WHOLE):
        mine = [r for r in rows if r["exercise"] == exercise]
        outcomes = [r["misconception"] for r in mine]
        assert outcomes[-4:] == list(RESERVED), exercise
        counts = [int(r["students"]) for r in mine[:-4]]
        assert counts == sorted(counts, reverse=True), exercise
    uncatalogued = {r["description"] for r in rows if r["misconception"] == "tiny.wrong-dim"}
    assert uncatalogued == {"(not in the catalogue)"}


@pytest.mark.slow
def test_html_names_whom_to_look_at_and_is_self_contained(mc_class):
    text = (mc_class / "reports" / f"{MC}.html").read_text()
    section = text.split("Students to look at", 1)[1]
    for student, status in {**BROKEN, "slow": "timeout"}.items():
        assert re.search(rf"<td>{student}</td><td>{status}</td><td>[^<]*</td><td>[^<]+</td>", section), student
    assert "per-cell limit of 20 s" in section  # the harness's reason, as recorded
    for student in ("ref", "dim0", "all_wrong"):
        assert f"<td>{student}</td>" not in section
    assert not re.search(r"(src|href)=\"(https?:)?//", text), "the report must not need the network"
    assert text.count("data:image/png;base64,") == 2 + 1 + 3  # scores x2, common, 3 exercises


def test_an_exercise_without_identifiers_counts_as_unclassified():
    from nbformat.v4 import new_code_cell, new_output

    from graders.report.model import UNCLASSIFIED, cell_outcome

    cell = new_code_cell("assert double(2) == 4")
    cell.outputs = [new_output("error", ename="AssertionError", evalue="double(2) should be 4", traceback=[])]
    assert cell_outcome(cell) == UNCLASSIFIED
    cell.outputs[0]["evalue"] += " [mc:tiny.off-by-one]"
    assert cell_outcome(cell) == "tiny.off-by-one"


# -- the demo class (make grade-demo's submissions, one notebook) ------------------------

DEMO_STEM = coursedir.available_assignments()[0]


@pytest.fixture(scope="module")
def demo_class(tmp_path_factory):
    """authoring.demo.build into a temporary course, for one notebook, graded and reported."""
    from authoring import demo

    course = tmp_path_factory.mktemp("demo") / "course"
    demo.build(course, [DEMO_STEM])
    records = harness.autograde(course, [DEMO_STEM], workers=2, sandbox=True, progress=False)
    statuses = {r.student: r.status for r in records}
    assert statuses == {"reference": "ok", "blank": "ok", "alternative": "ok", "partly_wrong": "ok",
                        "broken": "invalid"}, statuses
    done = course_report(course, DEMO_STEM)
    assert done.returncode == 0, done.stderr
    return course


@pytest.mark.slow
def test_demo_class_counts(demo_class):
    source = submissions.read(demo_class / "source" / DEMO_STEM / f"{DEMO_STEM}.ipynb")
    exercises = list(submissions.solution_cells(source))
    _, wronged = submissions.partly_wrong(DEMO_STEM, source, source)
    wrong, _ = submissions.load_variants(DEMO_STEM)
    partly = {g: wrong_outcome(source, g, wrong[g][0]) for g in wronged}
    known = {"reference": {}, "alternative": {}, "blank": dict.fromkeys(exercises, "unanswered"),
             "broken": dict.fromkeys(exercises, "not graded"),
             "partly_wrong": {g: o for g, o in partly.items() if o is not None}}
    assert_counts(demo_class, DEMO_STEM, exercises, known, unknown={g for g, o in partly.items() if o is None})


# -- in a browser ------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("which", ["demo_class", "mc_class"])
def test_report_renders_every_plot_in_chromium(which, request):
    require_program(CHROMIUM, "chromium")
    from playwright.sync_api import sync_playwright

    course = request.getfixturevalue(which)
    stem = DEMO_STEM if which == "demo_class" else MC
    page_path = course / "reports" / f"{stem}.html"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 1400})
            requested = []
            context.route("**/*", lambda route: (requested.append(route.request.url),
                                                 route.continue_() if route.request.url.startswith(("file:", "data:"))
                                                 else route.abort()))
            page = context.new_page()
            page.goto(page_path.as_uri())
            page.wait_for_load_state("load")
            sizes = page.eval_on_selector_all(
                "img.plot", "imgs => imgs.map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight])")
            page.screenshot(path=str(ARTIFACTS / f"{which}-{stem}.png"), full_page=True)
        finally:
            browser.close()
    assert sizes, "the report has no plots"
    broken = [alt for alt, complete, width, height in sizes if not (complete and width > 0 and height > 0)]
    assert not broken, f"plots that did not render: {broken}"
    offsite = [u for u in requested if not u.startswith(("file:", "data:"))]
    assert not offsite, f"the report fetched from the network: {offsite}"


# -- bad input ---------------------------------------------------------------------------

def test_a_course_without_a_gradebook_exits_2(tmp_path):
    done = course_report(tmp_path / "nowhere")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no gradebook" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "nowhere" / "gradebook.db").exists(), "a report must not create a gradebook"
    (tmp_path / "garbled").mkdir()
    (tmp_path / "garbled" / "gradebook.db").write_text("not a database")
    done = course_report(tmp_path / "garbled", "01_tensors")
    assert done.returncode == 2 and "cannot read the gradebook" in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.slow
def test_an_assignment_never_graded_exits_2(tmp_path):
    course = tmp_path / "course"
    # released (so in the gradebook) but nothing submitted or graded
    grading_course.release(course, {"tiny": grading_course.build("tiny", grading_course.TINY)})
    for args in ((), ("tiny",)):
        done = course_report(course, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr, done.stderr
    assert "nothing graded yet" in course_report(course).stderr
    assert not (course / "reports").exists()
    # once graded, a name the gradebook does not know still stops the whole run, before writing
    (source, released), = grading_course.release(
        course, {"tiny": grading_course.build("tiny", grading_course.TINY)}).values()
    submissions.submit(course, "ref", "tiny", submissions.reference(source, released))
    harness.autograde(course, ["tiny"], workers=1, sandbox=True, progress=False)
    for args in (("nosuch",), ("tiny", "nosuch")):
        done = course_report(course, *args)
        assert done.returncode == 2, args
        assert "nosuch was never graded" in done.stderr and done.stderr.strip().count("\n") == 0, done.stderr
    assert not (course / "reports").exists()
    assert course_report(course).returncode == 0 and (course / "reports" / "tiny.csv").exists()
