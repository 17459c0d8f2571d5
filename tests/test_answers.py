"""Known wrong answers: written plainly in a notebook's source, sealed in helpers/answer_tables,
found by helpers.checks.answer from the student's value alone."""

import json

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from authoring import build
from helpers import answers, checks

SOURCE = """# %% solution 09_demo-quiz-n
### BEGIN SOLUTION
quiz_n = 6
### END SOLUTION

# %% test 09_demo-quiz-n-test points=1
checks.answer("09_demo-quiz-n", quiz_n, "quiz_n", kind=int)

# %% wrong 09_demo-quiz-n
{
    5: "[mc:count.off-by-one] You left out the last one.",
    12: "[mc:count.doubled] "
        "Each pair was counted twice.",
    (2, 3): "a shape, not a count",
}
"""


def test_a_wrong_cell_is_left_out_of_the_notebook_and_its_table_is_sealed(tmp_path):
    source = tmp_path / "09_demo.py"
    source.write_text(SOURCE)
    nb = build.build(source)
    assert [c.metadata["nbgrader"]["grade_id"] for c in nb.cells] == ["09_demo-quiz-n", "09_demo-quiz-n-test"]
    assert build.wrong_answers(source) == {"09_demo-quiz-n": {
        5: "[mc:count.off-by-one] You left out the last one.",
        12: "[mc:count.doubled] Each pair was counted twice.", (2, 3): "a shape, not a count"}}
    written = build.render_answers(source)
    table = json.loads(written)
    assert len(table) == 3
    for secret in ("off-by-one", "left out", "doubled", "shape"):
        assert secret not in "".join(table.values()), f"{secret!r} readable in the table"
    assert set(table) == {answers.digest("09_demo-quiz-n", v) for v in (5, 12, (2, 3))}


def test_the_check_finds_each_wrong_answer_and_passes_others(tmp_path, monkeypatch):
    source = tmp_path / "09_demo.py"
    source.write_text(SOURCE)
    (tmp_path / "09_demo.json").write_text(build.render_answers(source))
    monkeypatch.setattr(answers, "TABLES", tmp_path)
    answers.table.cache_clear()
    try:
        with pytest.raises(checks.CheckFailed) as failure:
            checks.answer("09_demo-quiz-n", 5, "quiz_n", kind=int)
        assert failure.value.misconception == "count.off-by-one"
        assert failure.value.message == "quiz_n = 5 is not right. You left out the last one."
        with pytest.raises(checks.CheckFailed, match="counted twice"):
            checks.answer("09_demo-quiz-n", 12.0, "quiz_n", kind=(int, float))  # 12.0 is 12
        with pytest.raises(checks.CheckFailed, match="a shape, not a count"):
            checks.answer("09_demo-quiz-n", [2, 3], "quiz_n")
        checks.answer("09_demo-quiz-n", 6, "quiz_n", kind=int)
        checks.answer("09_demo-quiz-n", 7, "quiz_n", kind=int)  # unknown: the hidden tests decide
    finally:
        answers.table.cache_clear()


def test_the_wrong_type_is_named_never_passed():
    with pytest.raises(checks.CheckFailed, match="should be a whole number .an int., got str '6'"):
        checks.answer("09_demo-quiz-n", "6", "quiz_n", kind=int)
    with pytest.raises(checks.CheckFailed, match="got bool True"):
        checks.answer("09_demo-quiz-n", True, "quiz_n", kind=int)
    with pytest.raises(checks.CheckFailed, match="got Tensor"):
        checks.answer("09_demo-quiz-n", torch.tensor(6), "quiz_n", kind=int)
    checks.answer("09_demo-quiz-n", 2, "quiz_x", kind=float)  # an int is a fine number
    with pytest.raises(checks.CheckFailed, match="not one of the choices .'float16', 'bfloat16'."):
        checks.answer("09_demo-quiz-d", "float32", "quiz_d", kind=str, choices=("float16", "bfloat16"))
    checks.answer("09_demo-quiz-d", " bfloat16 ", "quiz_d", kind=str, choices=("float16", "bfloat16"))
    checks.answer("09_demo-quiz-n", 2.0, "quiz_n", kind=(int, float), choices=(1, 2))  # 2.0 is the choice 2


@pytest.mark.parametrize("bad, why", [
    ("# %% wrong 09_demo-a\n[1, 2]\n", "must map values"),
    ("# %% wrong 09_demo-a\n{1: 2}\n", "must map values"),
    ("# %% wrong 09_demo-a\n{x: 'no'}\n", "not a dict literal"),
    ("# %% wrong 01_other-a\n{1: 'no'}\n", "another notebook"),
    ("# %% wrong 09_demo-a\n{1: 'a'}\n# %% wrong 09_demo-a\n{2: 'b'}\n", "two"),
    ("# %% wrong 09_demo-a\n{7: 'a', 7.0000001: 'b'}\n", "listed twice"),
])
def test_a_malformed_table_is_refused(tmp_path, bad, why):
    source = tmp_path / "09_demo.py"
    source.write_text(bad)
    with pytest.raises(ValueError, match=why):
        build.render_answers(source)


answer_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=3), max_leaves=6)


@given(answer_values, st.text(min_size=1, max_size=80))
def test_seal_then_unseal_gives_the_message_back(value, message):
    assert answers.unseal("09_demo-q", value, answers.seal("09_demo-q", value, message)) == message


@given(answer_values, answer_values)
def test_values_a_student_means_alike_share_a_digest_and_no_others(a, b):
    same = answers.canonical(a) == answers.canonical(b)
    assert (answers.digest("09_demo-q", a) == answers.digest("09_demo-q", b)) == same


def test_canonical_forms():
    assert answers.canonical(7) == answers.canonical(7.0) == answers.canonical(7.0000001)
    assert answers.canonical(True) != answers.canonical(1)
    assert answers.canonical(" bfloat16 ") == answers.canonical("bfloat16")
    assert answers.canonical(torch.Size([2, 3])) == answers.canonical((2, 3)) == answers.canonical([2, 3])
    assert answers.canonical(torch.tensor(3)) is None
    assert answers.digest("09_demo-a", 3) != answers.digest("09_demo-b", 3)  # one table per exercise


def test_committed_tables_are_built_from_the_sources():
    for source in sorted(build.SOURCES.glob("*.py")):
        assert build.answers_target_of(source).read_text() == build.render_answers(source), source.name


def test_whole_numbers_compare_exactly_and_others_to_six_digits():
    """A count of 4,194,304 is not the listed wrong 4,194,305 (six significant digits made
    them one, and a right answer heard a wrong answer's message); 7.0 is 7, -0.0 is 0, and a
    float off in its last bits is the number it stands for."""
    assert answers.digest("q", 4194304) != answers.digest("q", 4194305)
    assert answers.digest("q", 4194304) == answers.digest("q", 4194304.0)
    assert answers.digest("q", 7) == answers.digest("q", 7.0)
    assert answers.digest("q", -0.0) == answers.digest("q", 0)
    assert answers.digest("q", 2.0 - 0.2 * 3.0) == answers.digest("q", 1.4)
    assert answers.digest("q", 0.1 + 0.2) == answers.digest("q", 0.3)
    assert answers.digest("q", True) != answers.digest("q", 1)
