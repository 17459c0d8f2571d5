"""Verdicts judged outside the kernel (graders.autograde.judging, graders.course.reference):
a test cell's points follow its judge, which runs in the grader on data; the kernel's own
verdict decides nothing; the expected values never enter the kernel."""

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader.utils import determine_grade

import grading_course as gc
from graders.autograde import batch, judging
from graders.course import reference
from helpers import checks
from helpers.grading import probe, wire

HIDDEN = ("checks.expect_true(add(1, 2) == 3, 'add(1, 2) should be 3')\n"
          "### BEGIN HIDDEN TESTS\n"
          "from helpers.grading import probe\n"
          "for a, b in [(1, 2), (-7, 7), (2.5, 0.5)]:\n"
          "    probe.call(f'add({a}, {b})', add, a, b)\n"
          "### JUDGE\n"
          "from helpers.grading.probe import got, ref\n"
          "for key in ref.keys():\n"
          "    checks.expect_type(got[key], type(ref[key]), key)\n"
          "    checks.expect_true(got[key] == ref[key], f'[mc:add.sign] {key} should be {ref[key]}')\n"
          "### END HIDDEN TESTS")
QUIZ = ("checks.expect_type(q, int, 'q')\n"
        "### BEGIN HIDDEN TESTS\n"
        "from helpers.grading import probe\n"
        "probe.answer('q')\n"
        "### JUDGE\n"
        "from helpers.grading.probe import got\n"
        "checks.expect_type(got['q'], int, 'q')\n"
        "checks.expect_true(got['q'] == 6 * 7, '[mc:quiz.life] q is not the answer')\n"
        "### END HIDDEN TESTS")
JUDGED = [
    ("code", None, 0, "from helpers import checks"),
    ("solution", "j-add", 0, "def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION"),
    ("test", "j-add-test", 2, HIDDEN),
    ("solution", "j-quiz", 0, "### BEGIN SOLUTION\nq = 42\n### END SOLUTION"),
    ("test", "j-quiz-test", 1, QUIZ),
]


def test_split_finds_the_three_parts():
    parts = judging.split(HIDDEN)
    assert parts.visible == "checks.expect_true(add(1, 2) == 3, 'add(1, 2) should be 3')"
    assert parts.probe.startswith("from helpers.grading import probe") and "ref" not in parts.probe
    assert parts.judge.startswith("from helpers.grading.probe import got, ref") and "probe.call" not in parts.judge
    assert judging.split("assert 1\n### BEGIN HIDDEN TESTS\nassert 2\n### END HIDDEN TESTS") is None
    assert judging.split("assert 1") is None


def test_prepare_keeps_the_judge_out_of_the_kernel():
    nb = gc.build("j", JUDGED)
    run_nb, plan = judging.prepare(nb)
    kernel_code = "\n".join(c.source for c in run_nb.cells)
    assert "6 * 7" not in kernel_code and "### JUDGE" not in kernel_code  # the expected value stays out
    probes = [c for c in run_nb.cells if c.metadata.get("graders_probe")]
    assert [c.metadata["graders_probe"] for c in probes] == ["j-add-test", "j-quiz-test"]
    assert set(plan.judges) == {"j-add-test", "j-quiz-test"} and plan.sources["j-add-test"] == HIDDEN
    test_cell = next(c for c in run_nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "j-add-test")
    assert test_cell.source == judging.split(HIDDEN).visible


def observed(**values) -> probe.Observed:
    return probe.Observed({k: wire.encode(v) for k, v in values.items()})


def test_judge_reads_data_and_names_what_went_wrong():
    code = judging.split(QUIZ).judge
    assert judging.judge("j-quiz-test", code, observed(q=42), observed(q=42)).passed
    wrong = judging.judge("j-quiz-test", code, observed(q=41), observed(q=42))
    assert not wrong.passed and wrong.message == "q is not the answer [mc:quiz.life]"
    unanswered = probe.Observed({"q": {"t": "unanswered", "name": "q"}})
    said = judging.judge("j-quiz-test", code, unanswered, observed(q=42)).message
    assert said.startswith("Not answered yet: q is not defined") and said.endswith("[mc:unanswered]")
    missing = judging.judge("j-quiz-test", code, probe.Observed({}, stopped="NameError: x"), observed(q=42))
    assert "did not run" in missing.message and "NameError: x" in missing.message
    broken = judging.judge("j-quiz-test", "undefined_name + 1", observed(q=42), observed(q=42))
    assert not broken.passed and broken.grader_error.startswith("NameError")


def test_a_raised_exception_is_reported_in_words():
    raised = probe.Observed({"f(0)": {"t": "raised", "type": "ZeroDivisionError",
                                      "bases": ["ZeroDivisionError", "ArithmeticError", "Exception"],
                                      "message": "division by zero"}})
    with pytest.raises(checks.CheckFailed, match=r"f\(0\) raised ZeroDivisionError: division by zero"):
        raised["f(0)"]
    outcome = raised.outcome("f(0)")
    assert outcome.is_a(ArithmeticError) and not outcome.is_a(ValueError)


def cell(outputs, source=HIDDEN, grade_id="j-add-test"):
    c = nbformat.v4.new_code_cell(judging.split(source).visible, execution_count=3)
    c.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, "points": 2,
                              "locked": True, "schema_version": 3, "task": False}
    c.outputs = [nbformat.from_dict(o) for o in outputs]
    return c


def test_apply_makes_the_outputs_say_the_judges_verdict():
    stdout = {"output_type": "stream", "name": "stdout", "text": "printed by the student\n"}
    passed = {"output_type": "stream", "name": "stdout", "text": checks.PASS_ALL + "\n"}
    kernel_error = {"output_type": "error", "ename": "CheckFailed", "evalue": "add(1, 2) should be 3",
                    "traceback": ["Check failed: add(1, 2) should be 3"]}
    number = {"output_type": "execute_result", "execution_count": 3, "metadata": {},
              "data": {"text/plain": "2.0"}}  # nbgrader would read it as a partial score
    plan = judging.Plan({"j-add-test": HIDDEN}, {"j-add-test": "pass"})
    # the kernel passed (a forged check, say), the judge failed: 0 points
    nb = nbformat.v4.new_notebook(cells=[cell([stdout, passed, number])])
    judging.apply(nb, plan, {"j-add-test": judging.Verdict(False, "[mc:add.sign] add(-7, 7) should be 0")})
    outputs = nb.cells[0].outputs
    assert nb.cells[0].source == HIDDEN
    assert [o.output_type for o in outputs] == ["stream", "error"] and outputs[0].text == "printed by the student\n"
    assert outputs[1].evalue == "add(-7, 7) should be 0 [mc:add.sign]"
    assert nb.cells[0].metadata["graders"]["verdict"] == {"judge": "fail", "kernel": "pass"}
    # the kernel failed too, with the same words: said once
    nb = nbformat.v4.new_notebook(cells=[cell([kernel_error])])
    judging.apply(nb, plan, {"j-add-test": judging.Verdict(False, "add(1, 2) should be 3")})
    assert [o.output_type for o in nb.cells[0].outputs] == ["error"]
    # with other words: the judge's verdict first (what course report counts), the kernel's after
    nb = nbformat.v4.new_notebook(cells=[cell([kernel_error])])
    judging.apply(nb, plan, {"j-add-test": judging.Verdict(False, "[mc:add.sign] add(-7, 7) should be 0")})
    assert [o.evalue for o in nb.cells[0].outputs] == ["add(-7, 7) should be 0 [mc:add.sign]", "add(1, 2) should be 3"]
    # the judge passed: the kernel's error decides nothing
    nb = nbformat.v4.new_notebook(cells=[cell([kernel_error])])
    judging.apply(nb, plan, {"j-add-test": judging.Verdict(True)})
    assert [o.output_type for o in nb.cells[0].outputs] == ["stream"]
    # a value the cell displayed (its last expression, or a display hook the student
    # registered) is shown, not scored: nbgrader would give full marks for the first
    # execute_result that is not a number, before it reads the judge's error
    shown = {"output_type": "execute_result", "execution_count": 4, "metadata": {},
             "data": {"text/plain": "AdamW (Parameter Group 0 ...)"}}
    nb = nbformat.v4.new_notebook(cells=[cell([shown])])
    assert determine_grade(nb.cells[0]) == (2.0, 2.0)           # what nbgrader alone gives
    judging.apply(nb, plan, {"j-add-test": judging.Verdict(False, "[mc:add.sign] add(-7, 7) should be 0")})
    assert [o.output_type for o in nb.cells[0].outputs] == ["display_data", "error"]
    assert nb.cells[0].outputs[0].data["text/plain"].startswith("AdamW")
    assert determine_grade(nb.cells[0]) == (0, 2.0)
    # the judge itself failed: 0 and graded by hand
    nb = nbformat.v4.new_notebook(cells=[cell([])])
    failed = {"j-add-test": judging.Verdict(False, grader_error="NameError: x")}
    assert judging.apply(nb, plan, failed) == ["j-add-test"]
    assert nb.cells[0].outputs[0].ename == "GraderError"


def test_collect_refuses_observations_reported_twice_or_malformed():
    probe_cell = judging.probe_cell("j-add-test", "pass")
    probe_cell.execution_count = 4
    payload = {"key": "add(1, 2)", "value": {"t": "int", "v": 3}}
    probe_cell.outputs = [nbformat.v4.new_output("display_data", data={probe.MIME: payload}),
                          nbformat.v4.new_output("display_data", data={probe.MIME: payload}),
                          nbformat.v4.new_output("display_data", data={probe.MIME: {"key": 3}})]
    found = judging.collect(nbformat.v4.new_notebook(cells=[probe_cell]))
    assert found.cells["j-add-test"] == {"add(1, 2)": {"t": "int", "v": 3}}
    assert any("reported twice" in f for f in found.findings) and any("malformed" in f for f in found.findings)


def test_in_a_plain_kernel_the_reference_passes_its_own_judges_and_a_wrong_constant_fails(tmp_path):
    """nbmake runs the instructor's notebook as it is: probe and judge in one cell, got and
    ref both this cell's observations."""
    nb = gc.build("j", JUDGED)
    NotebookClient(nb, kernel_name="python3", allow_errors=True).execute()
    assert [o.output_type for c in nb.cells for o in c.outputs] == ["stream", "stream"]
    nb = gc.build("j", JUDGED)
    nb.cells[3].source = nb.cells[3].source.replace("42", "41")
    NotebookClient(nb, kernel_name="python3", allow_errors=True).execute()
    assert nb.cells[4].outputs[-1].evalue == "q is not the answer [mc:quiz.life]"


LIAR = ("class L(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = tmp_path_factory.mktemp("judged") / "course"
    _, released = gc.release(course, {"j": gc.build("j", JUDGED)})["j"]
    submissions = {
        "right": {"j-add": "def add(a, b):\n    return b + a", "j-quiz": "q = 42"},
        "wrong": {"j-add": "def add(a, b):\n    return a - b", "j-quiz": "q = 41"},
        "liar": {"j-add": LIAR + "def add(a, b):\n    return L(0)", "j-quiz": LIAR + "q = L(0)"},
    }
    for student, code in submissions.items():
        gc.submit(course, student, "j", gc.answers(released, **code))
    gc.submit(course, "blank", "j", released)
    records = {r.student: r for r in batch.autograde(course, ["j"], workers=2, sandbox=True, progress=False)}
    return course, records


def outputs(course, student, grade_id):
    nb = nbformat.read(str(course / "autograded" / student / "j" / "j.ipynb"), as_version=4)
    found = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return found


def test_a_batch_is_scored_by_the_judges(graded):
    course, records = graded
    assert {s: (r.status, r.score) for s, r in records.items()} == {
        "right": ("ok", 3), "wrong": ("ok", 0), "liar": ("ok", 0), "blank": ("ok", 0)}
    assert gc.scores(course)[("right", "j", "j-add-test")] == 2
    # the lying int passed the kernel's own check, and earned nothing
    liar = outputs(course, "liar", "j-quiz-test")
    assert liar.metadata["graders"]["verdict"] == {"judge": "fail", "kernel": "pass"}
    assert "got L (a subclass of int, which is not accepted" in liar.outputs[-1].evalue
    wrong = outputs(course, "wrong", "j-add-test")
    assert wrong.source == HIDDEN  # nbgrader's cell, whole again
    assert any("[mc:add.sign]" in o.get("evalue", "") or "should be 3" in o.get("evalue", "")
               for o in wrong.outputs)
    blank = outputs(course, "blank", "j-quiz-test")
    assert [o.evalue for o in blank.outputs if o.output_type == "error"] == [
        "Not answered yet: q is not defined (write your answer above, run its cell). [mc:unanswered]"]
    right = outputs(course, "right", "j-add-test")
    assert [o.text for o in right.outputs] == [checks.PASS_ALL + "\n"]


def test_the_reference_run_is_kept_and_reused(graded):
    course, _ = graded
    source = nbformat.read(str(course / "source" / "j" / "j.ipynb"), as_version=4)
    kept = reference.fresh(course, "j", source)
    assert kept is not None and set(kept.cells) == {"j-add-test", "j-quiz-test"}
    assert wire.decode(kept.cells["j-quiz-test"]["q"]) == 42
    said = []
    again = reference.prepare(course, "j", log=said.append)
    assert said == [] and again.observations.cells == kept.cells  # no second run


def test_a_reference_that_fails_its_own_judge_stops_grading(tmp_path):
    course = tmp_path / "course"
    broken = [row if row[1] != "j-quiz" else ("solution", "j-quiz", 0, "### BEGIN SOLUTION\nq = 41\n### END SOLUTION")
              for row in JUDGED]
    gc.release(course, {"j": gc.build("j", broken)})
    with pytest.raises(reference.ReferenceFailed, match="j-quiz-test: q is not the answer"):
        reference.prepare(course, "j", log=lambda *_: None)


def test_the_feedback_page_says_the_judges_verdict_and_shows_no_judge(graded):
    """What a student reads: the outside verdict's message in the test cell, no hidden code,
    neither the probe nor the judge."""
    from graders.feedback.pages import feedback
    course, _ = graded
    feedback(course, ["j"], workers=1)
    page = (course / "feedback" / "wrong" / "j" / "j.html").read_text()
    assert "q is not the answer" in page and "[mc:" not in page
    for hidden in ("6 * 7", "probe.answer", "### JUDGE", "got["):
        assert hidden not in page, hidden
    liar = (course / "feedback" / "liar" / "j" / "j.html").read_text()
    assert "a subclass of int, which is not accepted" in liar


def test_nbgraders_own_autograde_is_sandboxed_and_judged(graded):
    """The formgrader's Autograde button (nbgrader's API, nbgrader's Autograde converter) runs
    the course's SandboxedExecute: the submission is contained and the judges decide."""
    from nbgrader.apps import NbGraderAPI

    from graders.course.config import Course
    course, _ = graded
    snoop = (f"import os\nprint('EXISTS', os.path.exists({str(course / 'gradebook.db')!r}))\n"
             "def add(a, b):\n    return a + b")
    released = nbformat.read(str(course / "release" / "j" / "j.ipynb"), as_version=4)
    gc.submit(course, "snoop", "j", gc.answers(released, **{"j-add": snoop, "j-quiz": LIAR + "q = L(42)"}))
    api = NbGraderAPI(config=Course(course).config)
    for student in ("snoop", "liar"):
        result = api.autograde("j", student)
        assert result["success"], result.get("error") or result.get("log")
    scores = gc.scores(course)
    assert scores[("snoop", "j", "j-add-test")] == 2 and scores[("snoop", "j", "j-quiz-test")] == 0
    assert scores[("liar", "j", "j-add-test")] == 0
    printed = "".join(o.get("text", "") for c in nbformat.read(
        str(course / "autograded" / "snoop" / "j" / "j.ipynb"), as_version=4).cells for o in c.get("outputs", []))
    assert "EXISTS False" in printed  # the course directory does not exist in the sandbox
