"""The broadcasting model against torch.broadcast_shapes, a + b, and their errors."""

import math
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import broadcasting as B
from helpers.lab.picture_check import problems

sizes = st.sampled_from([0, 1, 1, 2, 3, 4])
shapes = st.lists(sizes, max_size=4).map(tuple)


@st.composite
def related_pairs(draw):
    """Pairs that often broadcast: b is a with some sizes set to 1 and a prefix dropped."""
    a = draw(shapes)
    b = [draw(st.sampled_from([s, 1, s, 3])) for s in a]
    b = b[draw(st.integers(0, len(b))):]
    return (a, tuple(b)) if draw(st.booleans()) else (tuple(b), a)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.tuples(shapes, shapes), related_pairs()))
def test_agrees_with_torch(pair):
    a, b = pair
    result = B.broadcast(a, b)
    try:
        expected = tuple(torch.broadcast_shapes(a, b))
    except RuntimeError as error:
        assert not result.ok and result.shape is None
        # "Attempting to broadcast a dimension of length 4 at -1!"
        axis = int(re.search(r" at (-\d+)!", str(error)).group(1))
        assert result.failing_axis == axis
        with pytest.raises(RuntimeError, match=f"non-singleton dimension {result.failing_dim}"):
            torch.zeros(a) + torch.zeros(b)
        return
    assert result.ok
    assert result.shape == expected
    assert tuple((torch.zeros(a) + torch.zeros(b)).shape) == expected


@given(shapes, shapes)
def test_table_is_right_aligned(a, b):
    result = B.broadcast(a, b)
    assert len(result.axes) == max(len(a), len(b))
    for column in result.axes:
        for shape, size in zip((a, b), column.sizes):
            assert size == (shape[column.axis] if len(shape) >= -column.axis else None)


@pytest.mark.parametrize("a, b, shape, verdicts", [
    ((1, 3), (2, 1), (2, 3), [B.STRETCHED, B.STRETCHED]),
    ((64, 1), (768,), (64, 768), [B.STRETCHED, B.STRETCHED]),
    ((64,), (64, 1), (64, 64), [B.STRETCHED, B.STRETCHED]),
    ((2, 3), (2, 3), (2, 3), [B.EQUAL, B.EQUAL]),
])
def test_course_examples(a, b, shape, verdicts):
    result = B.broadcast(a, b)
    assert result.shape == shape
    assert [column.verdict for column in result.axes] == verdicts


def test_three_against_four_fails_on_the_last_axis():
    result = B.broadcast((3,), (4,))
    assert result.shape is None
    assert result.failing_axis == -1 and result.failing_dim == 0
    assert result.axes[0].verdict == B.MISMATCH


@pytest.mark.parametrize("text, shape", [
    ("64, 1", (64, 1)), ("(64, 1)", (64, 1)), ("[2,3]", (2, 3)), ("768", (768,)),
    ("768,", (768,)), ("2 3 4", (2, 3, 4)), ("torch.Size([5, 1])", (5, 1)), ("", ()),
])
def test_parse(text, shape):
    assert B.model(text, "1").shapes[0] == shape


@pytest.mark.parametrize("a, b, phrase", [
    ("64, x", "1", "not a list of integers"),
    ("2.5", "1", "not a list of integers"),
    ("2, -1", "3", "negative"),
    ("1, 2, 3, 4, 5, 6, 7", "1", "too wide"),
])
def test_malformed_shapes_are_value_errors(a, b, phrase):
    with pytest.raises(ValueError, match=phrase):
        B.model(a, b)


positive = st.lists(st.sampled_from([1, 1, 2, 3, 4]), max_size=4).map(tuple)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(positive, positive), related_pairs().filter(
    lambda p: 0 not in p[0] + p[1])))
def test_stretched_operands_are_torchs_stride_0_axes(pair):
    """An operand is stretched on an axis exactly where torch.broadcast_tensors expands it:
    stride 0 on an axis of size > 1 (a missing axis included)."""
    a, b = pair
    result = B.broadcast(a, b)
    if not result.ok:
        return
    expanded = torch.broadcast_tensors(torch.zeros(a), torch.zeros(b))
    for k, column in enumerate(result.axes):
        torch_stretched = tuple(i for i, (t, shape) in enumerate(zip(expanded, (a, b)))
                                if t.shape[k] > 1 and (len(shape) < len(result.axes) - k
                                                       or shape[k - len(result.axes)] == 1))
        assert column.stretched == torch_stretched
        assert all(expanded[i].stride(k) == 0 for i in column.stretched)
    # an outer product: the result is larger than every operand
    bigger = all(math.prod(result.shape) > math.prod(s) for s in (a, b))
    assert result.outer_product == bigger


def test_the_silent_outer_product_is_flagged_and_drawn():
    result = B.broadcast((64,), (64, 1))
    assert result.outer_product
    assert result.stretch_summary() == "a on axis -2; b on axis -1"
    figure = B.draw_table(result)
    text = " ".join(t.get_text() for t in figure.texts + figure.axes[0].texts)
    cells = [c.get_text().get_text() for c in figure.axes[0].tables[0].get_celld().values()]
    assert "outer product" in text and "a on axis -2" in text
    assert "(1) → 64" in cells and "1 → 64" in cells


def test_a_plain_broadcast_is_not_an_outer_product():
    result = B.broadcast((2, 3), (3,))
    assert not result.outer_product and result.stretch_summary() == "b on axis -2"
    figure = B.draw_table(result)
    assert "outer product" not in " ".join(t.get_text() for t in figure.texts + figure.axes[0].texts)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(positive, positive), related_pairs().filter(
    lambda p: 0 not in p[0] + p[1])))
def test_strides_as_broadcast_are_torchs(pair):
    """The strides row of the table is what torch.broadcast_tensors gives each operand."""
    a, b = pair
    result = B.broadcast(a, b)
    if not result.ok:
        assert result.strides_as_broadcast(0) is None
        return
    expanded = torch.broadcast_tensors(torch.zeros(a), torch.zeros(b))
    for i, t in enumerate(expanded):
        assert result.strides_as_broadcast(i) == t.stride(), (a, b, i)


@pytest.mark.parametrize("a, b", [("64, 1", "768"), ("64", "64, 1"), ("2, 3", "2"),
                                  ("8, 1, 6, 1", "7, 1, 5"), ("4, 1, 3", "2, 1"),
                                  ("8, 3, 5", "4, 1"), ("", "3"), ("2, 3, 4, 5, 6, 7", "1, 1, 1, 1, 1"),
                                  ("2, 3, 4, 5, 6, 7", "8, 1, 1, 1, 1, 1")])
def test_the_picture_reads_cleanly(a, b):
    """No text over other text, out of its cell or out of the figure, at the explorer's size;
    the heading starts at the top (issue 30: an empty band sat above it)."""
    explorer = B.explore(a=a, b=b, index="")
    assert problems(explorer.figure) == []
    tops = [t.get_window_extent().y1 for t in explorer.figure.texts]
    assert max(tops) > explorer.figure.bbox.height - 30  # within 30 px of the top


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(positive, positive), related_pairs().filter(
    lambda p: 0 not in p[0] + p[1])), st.randoms(use_true_random=False))
def test_the_cell_each_element_reads_is_torchs(pair, rnd):
    """Each operand numbered by its storage cells (arange): the broadcast tensors hold, at
    the followed index, the cell the model says that element reads, and the operand holds it
    at the model's own index."""
    a, b = pair
    if not B.broadcast(a, b).ok:
        return
    shape = B.broadcast(a, b).shape
    index = tuple(rnd.randrange(n) for n in shape)
    result = B.broadcast(a, b, index=index)
    operands = [torch.arange(math.prod(s)).view(s) for s in (a, b)]
    expanded = torch.broadcast_tensors(*operands)
    for i, (operand, big) in enumerate(zip(operands, expanded)):
        read = result.read(i)
        assert read.strides == big.stride()
        assert big[index].item() == read.cell == operand[read.own_index].item()


def test_the_quiz_case_reads_a1_and_b20():
    result = B.model("3", "4, 1", "2, 1")
    assert result.read(0).own_index == (1,) and result.read(1).own_index == (2, 0)
    figure = B.draw_table(result)
    text = " ".join(t.get_text() for t in figure.texts)
    assert "reads a at cell 2·0 + 1·1 = 1:  a[1]" in text
    assert "reads b at cell 2·1 + 1·0 = 2:  b[2, 0]" in text


@pytest.mark.parametrize("index, phrase", [("4, 0", "does not fit"), ("1", "does not fit"),
                                           ("1, 2, 3", "does not fit"), ("-1, 0", "does not fit"),
                                           ("a", "not a list of integers")])
def test_an_index_outside_the_result_is_a_message(index, phrase):
    with pytest.raises(ValueError, match=phrase):
        B.model("3", "4, 1", index)
    explorer = B.explore(a="3", b="4, 1")
    explorer.controls["index"].value = index
    assert phrase in explorer.error


def test_no_element_to_follow_when_the_shapes_clash_or_the_result_is_empty():
    assert B.model("3", "4", "0").read(0) is None
    empty = B.model("0, 3", "3")
    assert empty.index is None and empty.read(1) is None
    text = " ".join(t.get_text() for t in B.draw_table(empty).texts)
    assert "no element to follow" in text
