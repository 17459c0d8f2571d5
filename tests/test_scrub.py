"""graders.feedback.scrub on a judged test cell: the judge's message may quote its own string
literals (a case named by its code), every other output still loses any hidden line."""
import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from graders.feedback.scrub import REMOVED, ScrubHiddenTests, judge_strings

SOURCE = """checks.expect_true(True, "visible")
### BEGIN HIDDEN TESTS
def swap(t):
    t[[0, 1]] = t[[1, 0]]
    return t
probe.observe("modifies_input for t[[0, 1]] = t[[1, 0]] (a swap)", lambda: modifies_input(swap, plain))
### JUDGE
_cases = [("t[[0, 1]] = t[[1, 0]] (a swap)", True)]
checks.expect_true(False, f"modifies_input for {_cases[0][0]} returned False")
### END HIDDEN TESTS"""


def judged_cell(judge_verdict="fail"):
    cell = new_code_cell(SOURCE, execution_count=3, outputs=[
        new_output("stream", name="stdout", text="peek: t[[0, 1]] = t[[1, 0]]\n"),
        new_output("error", ename="CheckFailed", traceback=[],
                   evalue="modifies_input for t[[0, 1]] = t[[1, 0]] (a swap) returned False\n"
                          "and here: def swap(t):"),
        new_output("error", ename="CheckFailed", traceback=[], evalue="kernel: t[[0, 1]] = t[[1, 0]]"),
    ])
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "x-test", "points": 1, "solution": False}
    cell.metadata["graders"] = {"verdict": {"judge": judge_verdict, "kernel": "fail"}}
    return cell


def scrub(cell):
    nb = new_notebook(cells=[cell])
    ScrubHiddenTests().preprocess(nb, {})
    return nb.cells[0]


def test_the_judges_message_keeps_what_its_literals_say_and_nothing_else_hidden():
    cell = scrub(judged_cell())
    stream, judge, kernel = cell.outputs
    assert REMOVED in stream.text and "t[[0, 1]]" not in stream.text  # a student cell's print
    lines = judge.evalue.splitlines()
    assert lines[0] == "modifies_input for t[[0, 1]] = t[[1, 0]] (a swap) returned False"
    assert lines[1] == REMOVED  # 'def swap(t):' is probe code no literal of the judge says
    assert kernel.evalue == REMOVED  # the kernel's own error is scrubbed as before
    assert "BEGIN HIDDEN" not in cell.source and "swap" not in cell.source


def test_a_cell_whose_judge_passed_or_never_judged_exempts_nothing():
    for verdict in ("pass", None):
        cell = judged_cell(verdict)
        if verdict is None:
            del cell.metadata["graders"]
        first_error = scrub(cell).outputs[1]
        assert first_error.evalue.splitlines()[0] == REMOVED


def test_judge_strings_reads_the_judge_part_only():
    hidden = SOURCE.split("### BEGIN HIDDEN TESTS\n")[1].split("\n### END")[0].splitlines()
    found = judge_strings(hidden)
    assert "t[[0, 1]] = t[[1, 0]] (a swap)" in found and " returned False" in found
    assert "modifies_input for t[[0, 1]] = t[[1, 0]] (a swap)" not in found  # the probe's
    assert judge_strings(["x = 1"]) == [] and judge_strings(["### JUDGE", "x = ("]) == []


def test_the_notebook_still_validates():
    nbformat.validate(new_notebook(cells=[scrub(judged_cell())]))


def test_a_hidden_line_the_notebook_also_shows_is_not_removed():
    visible = new_code_cell("def swap(t):\n    t[[0, 1]] = t[[1, 0]]   # shown to the student\n")
    cell = judged_cell()
    nb = new_notebook(cells=[visible, cell])
    ScrubHiddenTests().preprocess(nb, {})
    stream, judge, kernel = nb.cells[1].outputs
    assert stream.text == "peek: t[[0, 1]] = t[[1, 0]]\n" and kernel.evalue == "kernel: t[[0, 1]] = t[[1, 0]]"
    assert judge.evalue.splitlines()[1] == "and here: def swap(t):"  # shown above as well
    assert "probe.observe" not in nb.cells[1].source
