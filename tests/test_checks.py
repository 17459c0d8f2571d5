"""helpers.checks: every failure message names the misconception; correct answers pass
silently (nothing on stderr, which nbgrader would score as 0)."""

import pytest
import torch

from helpers import checks


def fails_with(phrase, call, *args, **kwargs):
    with pytest.raises(checks.CheckFailed, match=phrase):
        call(*args, **kwargs)


def test_shape_diagnoses():
    fails_with("transpose", checks.expect_shape, torch.zeros(3, 2), (2, 3))
    fails_with("wrong order", checks.expect_shape, torch.zeros(4, 2, 3), (2, 3, 4))
    fails_with("outer product", checks.expect_shape, torch.zeros(64, 64), (64,))
    fails_with("size-1", checks.expect_shape, torch.zeros(32, 3, 1, 1), (32, 3))
    fails_with("merge or split", checks.expect_shape, torch.zeros(6, 4), (3, 8))
    fails_with("batch dimension", checks.expect_shape, torch.zeros(3, 5), (2, 3, 5))
    checks.expect_shape(torch.zeros(2, 3), (2, 3))


def test_equal_and_reject_name_the_reason():
    fails_with("reverse order", checks.expect_equal, 7, 11, "quiz", wrong={7: "reverse order"})
    fails_with("reverse order", checks.reject, 7, {7: "reverse order"}, "quiz")
    checks.reject(11, {7: "reverse order"})
    fails_with("expected True", checks.expect_equal, 1, True)  # 1 is not the bool True


def test_reject_does_not_reveal_the_answer():
    with pytest.raises(checks.CheckFailed) as failure:
        checks.reject(3, {3: "each axis takes the larger size"}, "quiz_numel")
    assert "6" not in str(failure.value)


def test_a_bool_is_not_a_number_inside_a_tuple_either():
    """True == 1 in Python; an answer of 1 for True is named, in a tuple as alone."""
    checks.reject((1, 0), {(True, False): "[mc:x.y] a bool was expected"})  # not the same answer: no failure
    fails_with("a bool was expected", checks.reject, (True, False), {(True, False): "[mc:x.y] a bool was expected"})
    fails_with("expected", checks.expect_equal, (1, 0), (True, False))
    checks.expect_equal([1, (2, 3)], (1, (2, 3)))  # a list is the sequence a tuple is


def test_reject_close_tolerates_rounding():
    wrong = torch.tensor(1.0)
    fails_with("outer product", checks.reject_close, 1.0 + 1e-7, {wrong: "outer product"})
    checks.reject_close(torch.tensor(2.0), {wrong: "outer product"})


def test_explain_errors_maps_messages_to_misconceptions():
    with pytest.raises(checks.CheckFailed, match="detach"):
        with checks.explain_errors({"requires grad": "call .detach() first"}, "to_numpy(w)"):
            torch.ones(2, requires_grad=True).numpy()
    with pytest.raises(checks.CheckFailed, match="align them on the right"):
        with checks.explain_errors({"": "align them on the right"}):
            raise ValueError("mismatch")
    with checks.explain_errors({"": "unused"}):
        pass


def test_expect_raises():
    def silent(a, b):
        return a
    fails_with("neither is 1", checks.expect_raises, ValueError, silent, 3, 4, why="neither is 1")
    fails_with("raised KeyError", checks.expect_raises, ValueError, {}.__getitem__, 1)
    checks.expect_raises(ValueError, int, "x")


def test_expect_untouched_names_in_place_writes():
    x = torch.tensor([-1.0, 2.0])
    saved = x.clone()
    x[x < 0] = 0
    fails_with("in place", checks.expect_untouched, x, saved)
    checks.expect_untouched(saved.clone(), saved)


def test_expect_untouched_sees_an_untouched_nan_as_untouched():
    """torch.equal calls NaN != NaN: a NaN the function left alone is not a write, a NaN it
    wrote (or an inf it turned into a finite value) is."""
    saved = torch.tensor([1.0, float("nan"), float("inf")])
    checks.expect_untouched(saved.clone(), saved)
    fails_with("in place", checks.expect_untouched, torch.tensor([1.0, 2.0, float("inf")]), saved)
    fails_with("in place", checks.expect_untouched, torch.tensor([1.0, float("nan"), 3.4e38]), saved)


def test_shares_memory():
    x = torch.arange(6)
    checks.expect_shares_memory(x[2:], x)
    fails_with("copy", checks.expect_shares_memory, x.clone(), x)


def test_expect_error_reports_without_stopping(capsys):
    with checks.expect_error(RuntimeError):
        torch.zeros(3) + torch.zeros(4)
    with checks.expect_error(RuntimeError):
        pass
    out = capsys.readouterr()
    assert "RuntimeError: The size of tensor a (3)" in out.out
    assert "(no error was raised)" in out.out
    assert out.err == ""


def test_checks_write_nothing_to_stderr(capsys):
    checks.expect_close(torch.ones(2), torch.ones(2))
    checks.expect_type(1, int)
    checks.expect_equal((2, 3), torch.Size([2, 3]))
    assert capsys.readouterr().err == ""


# --- what a student sees of a failure ----------------------------------------------------

def rendered(error) -> str:
    return "\n".join(error._render_traceback_())


def test_a_failure_renders_as_its_message_alone():
    with pytest.raises(checks.CheckFailed) as failure:
        checks.expect_equal((5, 6, 1), (30, 6, 1), "row_major_strides((5, 6, 1))", wrong={
            (5, 6, 1): "[mc:strides.next-only] A dim's stride is the product of all the sizes "
                       "after it, not just the next one, so multiply every size to its right."})
    error = failure.value
    assert str(error).endswith("[mc:strides.next-only]")  # the evalue keeps the marker
    lines = error._render_traceback_()
    text = rendered(error)
    assert "[mc:" not in text and "Traceback" not in text and "checks.py" not in text
    assert len(lines) >= 2, "a long message is wrapped"
    assert all(len(line.replace("\x1b[1;31m", "").replace("\x1b[0m", "")) <= checks.WRAP for line in lines)
    plain = " ".join(line.replace("\x1b[1;31m", "").replace("\x1b[0m", "") for line in lines)
    assert plain == f"Check failed: {error.message}", "wrapping lost or split a word"


def test_the_stub_reads_as_not_answered_in_every_check_that_calls_student_code():
    namespace = {}
    exec(compile("def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n",
                 "<cell>", "exec"), namespace)
    f = namespace["f"]
    with pytest.raises(checks.CheckFailed) as failure:
        with checks.explain_errors({"": "a misconception that must not be named"}, "f(2)"):
            f(2)
    assert failure.value.misconception == checks.UNANSWERED
    assert "misconception" not in failure.value.message and "f()" in failure.value.message
    # NotImplementedError is a RuntimeError: the stub must not pass expect_raises(RuntimeError)
    with pytest.raises(checks.CheckFailed, match="Not answered yet") as failure:
        checks.expect_raises(RuntimeError, f, 2, name="f(2)")
    assert str(failure.value).endswith("[mc:unanswered]")
    assert rendered(failure.value).count("\n") == 0, "not answered yet is one line"
    # a method is named with its class ("write __init__() above" named no class)
    exec(compile("class ArrayDataset:\n    def __init__(self, x):\n        raise NotImplementedError()\n",
                 "<cell>", "exec"), namespace)
    with pytest.raises(checks.CheckFailed, match=r"write ArrayDataset\.__init__\(\) above"):
        with checks.explain_errors({}, "ArrayDataset(x)"):
            namespace["ArrayDataset"](2)


def test_a_library_not_implemented_error_is_not_the_stub():
    def library_function():  # defined in a module file, not in a notebook cell
        raise NotImplementedError()
    with pytest.raises(checks.CheckFailed) as failure:
        with checks.explain_errors({"": "hint"}, "call"):
            library_function()
    assert failure.value.misconception != checks.UNANSWERED
    with pytest.raises(checks.CheckFailed) as failure:
        with checks.explain_errors({"": "hint"}, "call"):
            exec(compile("raise NotImplementedError('sparse tensors')", "<cell>", "exec"))
    assert failure.value.misconception != checks.UNANSWERED  # a message: not the stub


def test_in_a_kernel_unanswered_cells_fail_with_one_line_and_the_marker():
    """A real IPython kernel (nbclient): the stub and a test cell's NameError on the unanswered
    name become one "not answered yet" line whose evalue ends with [mc:unanswered]; the cells
    still fail (so nbgrader scores them 0); an ordinary NameError in a scratch cell stays one."""
    import nbformat
    from nbclient import NotebookClient

    from conftest import REPO

    sources = ["from helpers import checks",
               "# YOUR CODE HERE\nraise NotImplementedError()",
               "checks.expect_type(quiz_dtype, str, 'quiz_dtype')",
               "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()",
               "f(2) == 3",
               "checks.expect_equal(len((5, 6, 1)), 2, 'len', wrong={3: '[mc:a.b] three is wrong'})",
               "scratch_name + 1",
               "assert 1 == 2, '[mc:c.d] one is not two: check the sum'  # checks.",
               "assert 1 == 2, 'a scratch assert keeps its traceback'"]
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(s, metadata={"tags": ["raises-exception"]}) for s in sources])
    NotebookClient(nb, kernel_name="python3", timeout=120,
                   resources={"metadata": {"path": str(REPO)}}).execute()
    errors = [[o for o in c.outputs if o.output_type == "error"] for c in nb.cells]
    assert errors[0] == [] and errors[3] == []
    for k in (1, 2, 4):
        (error,) = errors[k]
        assert error.ename == "CheckFailed" and error.evalue.endswith("[mc:unanswered]"), error
        assert len(error.traceback) == 1 and "Not answered yet" in error.traceback[0]
        assert "NotImplementedError()" in error.traceback[0] if k == 1 else True
    assert "quiz_dtype" in errors[2][0].evalue and "f()" in errors[4][0].evalue
    (wrong,) = errors[5]
    assert wrong.evalue.endswith("[mc:a.b]") and "[mc:" not in "".join(wrong.traceback)
    assert "helpers" not in "".join(wrong.traceback)
    (scratch,) = errors[6]
    assert scratch.ename == "NameError"
    (own_assert,) = errors[7]
    assert own_assert.evalue == "one is not two: check the sum [mc:c.d]"
    assert len(own_assert.traceback) == 1 and "[mc:" not in own_assert.traceback[0]
    (scratch_assert,) = errors[8]
    assert scratch_assert.ename == "AssertionError" and len(scratch_assert.traceback) > 1


def test_a_large_value_is_summarised_not_printed():
    big = torch.randn(4, 16, 3)
    with pytest.raises(checks.CheckFailed) as failure:
        checks.reject(big, {big: "[mc:x.y] regrouped memory"}, "tokens")
    assert "a tensor of shape (4, 16, 3) (float32)" in failure.value.message
    assert len(failure.value.message) < 120
    with pytest.raises(checks.CheckFailed, match=r"is \(2, 3\), expected \(3, 2\)"):
        checks.expect_equal((2, 3), (3, 2))  # short values are quoted as they are


def test_the_pass_line_says_which_checks_passed():
    visible = "checks.expect_equal(x, 3, 'x')"
    graded = visible + "\n### BEGIN HIDDEN TESTS\nchecks.expect_true(x == 3, 'no')\n### END HIDDEN TESTS"
    assert checks.pass_line(visible, 1, True) == checks.PASS_VISIBLE
    assert "hidden checks run when the notebook is graded" in checks.PASS_VISIBLE
    assert checks.pass_line(graded, 2, True) == checks.PASS_ALL
    assert checks.pass_line(visible, 1, False) is None  # a failure speaks for itself
    assert checks.pass_line("print(1)", 0, True) is None  # no check ran: not a test cell


def test_reject_close_names_a_value_that_is_not_a_number():
    fails_with("should be a number or a tensor of numbers, got str 'abc'",
               checks.reject_close, "abc", {1.0: "one"}, "y")
    fails_with("got NoneType", checks.reject_close, None, {1.0: "one"}, "y")
    fails_with("got bool", checks.reject_close, True, {1.0: "one"}, "y")


def test_in_a_kernel_a_passing_test_cell_says_so_and_other_cells_stay_silent():
    """A real kernel: the pass line is the cell's last output when its checks pass, names the
    hidden checks where they ran, and is absent after a failure and in cells without checks
    (a common-mistake cell's expect_error is not a check)."""
    import nbformat
    from nbclient import NotebookClient

    from conftest import REPO

    sources = ["from helpers import checks\nx = 3",
               "checks.expect_equal(x, 3, 'x')",
               "checks.expect_equal(x, 3, 'x')\n### BEGIN HIDDEN TESTS\nchecks.expect_true(x == 3, 'h')\n"
               "### END HIDDEN TESTS",
               "checks.expect_equal(x, 4, 'x')",
               "with checks.expect_error(ValueError):\n    raise ValueError('shown')",
               "print('plain')"]
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(s, metadata={"tags": ["raises-exception"]}) for s in sources])
    NotebookClient(nb, kernel_name="python3", timeout=120,
                   resources={"metadata": {"path": str(REPO)}}).execute()
    texts = ["".join(o.get("text", "") for o in c.outputs if o.output_type == "stream") for c in nb.cells]
    assert texts[0] == ""
    assert texts[1] == checks.PASS_VISIBLE + "\n"
    assert texts[2] == checks.PASS_ALL + "\n"
    assert texts[3] == "" and nb.cells[3].outputs[0].output_type == "error"
    assert texts[4] == "ValueError: shown\n" and texts[5] == "plain\n"


def test_under_nbgrader_an_unanswered_cell_shows_its_message_once():
    """nbgrader's Execute (autograde, Validate) adds the kernel's reply as a second error
    output when no output has the reply's error name: the reply must name the error shown
    ("Not answered yet", a CheckFailed), not the stub's or the NameError it replaced."""
    import nbformat
    from nbgrader.preprocessors import Execute

    from conftest import REPO

    sources = ["from helpers import checks\ndef sub(a, b):\n    raise NotImplementedError()",
               "checks.expect_equal(sub(3, 1), 2, 'sub(3, 1)')",      # the stub, in a test cell
               "checks.expect_equal(never_defined, 2, 'answer')",     # a name never answered
               "checks.expect_true(True, 'x')\nassert 1 == 2, 'a plain assert with a message'"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    executed, _ = Execute(timeout=120, allow_errors=True).preprocess(
        nb, {"metadata": {"path": str(REPO)}})
    for cell in executed.cells[1:]:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert [e.ename for e in errors] == ["CheckFailed"], (cell.source, errors)


# --- silence is never a verdict -------------------------------------------------------------

def notebook_test_cells():
    """(stem, grade_id, visible source) of every autograded test cell of the built notebooks."""
    import nbformat

    from conftest import REPO

    found = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(str(path), as_version=4).cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
                found.append((path.stem, meta["grade_id"], cell.source.split(checks.HIDDEN_DELIMITER)[0]))
    return found


def python_of(source: str) -> str:
    """A cell's source without IPython's magic and shell lines (which ast cannot read)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def test_every_visible_test_calls_a_check_that_counts():
    """The pass line needs a counted check in the cell: a visible test made only of plain
    asserts, of checks.because or expect_error, or of nothing (all hidden) would stay silent
    when it passes, which is what a correct answer would also show."""
    import ast

    silent = []
    for _stem, grade_id, visible in notebook_test_cells():
        called = {node.func.attr for node in ast.walk(ast.parse(python_of(visible)))
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and isinstance(node.func.value, ast.Name) and node.func.value.id == "checks"}
        if not called & checks.COUNTED:
            silent.append(f"{grade_id}: calls {sorted(called) or 'no check'}")
    assert notebook_test_cells(), "no test cells found"
    assert not silent, ("visible tests that call none of " + ", ".join(sorted(checks.COUNTED)) + ":\n"
                        + "\n".join(silent))


def test_a_wrong_answer_the_visible_test_does_not_know_hears_the_honest_pass_line():
    """Every quiz answered through checks.answer, given a wrong value its table does not list
    (01's quiz_offset = 9, 04's answer_sgd_theta = 1.0 were silent before), ends its test cell
    with the pass line that says the hidden checks are still to come: never with nothing."""
    import nbformat
    from nbclient import NotebookClient

    from conftest import REPO
    from quizzes import quizzes

    tried = [q for path in sorted((REPO / "notebooks").glob("*.ipynb"))
             for q in quizzes(nbformat.read(str(path), as_version=4))]
    assert len(tried) >= 6, f"too few quizzes to try: {tried}"
    cells = [nbformat.v4.new_code_cell("import math\nimport torch\nfrom helpers import checks")]
    for quiz in tried:
        cells += [nbformat.v4.new_code_cell(f"{quiz.name} = {quiz.wrong!r}"), nbformat.v4.new_code_cell(quiz.visible)]
    nb = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(nb, kernel_name="python3", timeout=120, allow_errors=True,
                   resources={"metadata": {"path": str(REPO)}}).execute()
    shown = {q.test_id: "".join(o.get("text", "") + "\n".join(o.get("traceback", [])) for o in cell.outputs)
             for q, cell in zip(tried, nb.cells[2::2])}
    silent = {g: text for g, text in shown.items() if text != checks.PASS_VISIBLE + "\n"}
    assert not silent, (f"of {len(tried)} quizzes given an unlisted wrong answer, these did not "
                        f"end with the pass line: {silent}")


def test_an_explained_error_ends_its_sentence_once():
    with pytest.raises(checks.CheckFailed) as failure:
        with checks.explain_errors({"view": "Use reshape."}, "f(m)"):
            raise RuntimeError("view size is not compatible: use .reshape(...) instead.")
    assert failure.value.message == ("f(m) raised RuntimeError: view size is not compatible: "
                                     "use .reshape(...) instead. Use reshape.")


def test_only_test_cells_call_the_checks_that_print_the_pass_line():
    """The pass line says "the hidden checks run when the notebook is graded": in any other
    cell it would promise a grading that never comes (a common mistake shown live uses
    checks.expect_error, which is not counted)."""
    import ast

    import nbformat

    from conftest import REPO

    promising = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for index, cell in enumerate(nbformat.read(str(path), as_version=4).cells):
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type != "code" or (meta.get("grade") and not meta.get("solution")):
                continue
            called = {node.func.attr for node in ast.walk(ast.parse(python_of(cell.source)))
                      if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and isinstance(node.func.value, ast.Name) and node.func.value.id == "checks"}
            if called & checks.COUNTED:
                promising.append(f"{path.stem} cell {index}: {sorted(called & checks.COUNTED)}")
    assert not promising, "cells that are not test cells call counted checks:\n" + "\n".join(promising)


def test_expect_type_names_the_kind_in_words():
    fails_with("quiz_n should be a whole number .an int., got str", checks.expect_type, "3", int, "quiz_n")
    fails_with("should be a Tensor, got list", checks.expect_type, [1], __import__("torch").Tensor, "w")
    fails_with("should be a string or a tuple, got int", checks.expect_type, 3, (str, tuple), "x")
