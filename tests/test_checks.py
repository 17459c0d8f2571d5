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
