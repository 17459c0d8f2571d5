"""A judge reads an observation with got.value (helpers.grading.probe.Observed), which names
the likely reason when the student's code raised, as checks.explain_errors does in the kernel."""

import pytest

from helpers import checks
from helpers.grading import probe, wire
from helpers.grading.probe import got


def bound(**found):
    observed = probe.Observed({k: (v if isinstance(v, dict) and "t" in v else wire.encode(v))
                               for k, v in found.items()})
    return probe.bound(observed, observed)


RAISED = {"t": "raised", "type": "RuntimeError", "bases": ["RuntimeError", "Exception"],
          "message": "element 0 of tensors does not require grad"}


def test_a_value_comes_back_as_it_was_observed():
    token = bound(**{"f(2)": (1, 2.5)})
    try:
        assert got.value("f(2)") == (1, 2.5) and got.raised("f(2)") is None
    finally:
        probe.unbind(token)


def test_a_raise_names_the_first_matching_hint_and_its_misconception():
    token = bound(**{"f(2)": RAISED})
    try:
        with pytest.raises(checks.CheckFailed) as failure:
            got.value("f(2)", {"no match here": "[mc:a.wrong] no", "REQUIRE grad": "[mc:a.right] Pass "
                                  "create_graph=True.", "": "[mc:a.any] anything"})
        assert failure.value.misconception == "a.right"
        assert failure.value.message == ("f(2) raised RuntimeError: element 0 of tensors does not "
                                         "require grad. Pass create_graph=True.")
        with pytest.raises(checks.CheckFailed, match="anything") as failure:
            got.value("f(2)", {"nothing": "[mc:a.wrong] no", "": "[mc:a.any] anything"})
        assert failure.value.misconception == "a.any"
        with pytest.raises(checks.CheckFailed, match=r"raised RuntimeError: element 0") as failure:
            got.value("f(2)")
        assert failure.value.misconception is None
        assert got.raised("f(2)").is_a(RuntimeError)
    finally:
        probe.unbind(token)


def test_an_unanswered_function_says_so():
    token = bound(**{"f(2)": {"t": "unanswered", "function": "f"}})
    try:
        with pytest.raises(checks.CheckFailed) as failure:
            got.value("f(2)", {"": "[mc:a.any] anything"})
        assert failure.value.misconception == checks.UNANSWERED
    finally:
        probe.unbind(token)
