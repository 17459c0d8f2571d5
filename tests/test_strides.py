"""The stride model against torch: layouts, element -> storage mapping, impossible views."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import strides as S
from helpers.lab.picture_check import problems

shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def torch_apply(t: torch.Tensor, op: str, args: tuple) -> torch.Tensor:
    if op == "view":
        return t.view(*args)
    if op == "transpose":
        return t.transpose(*args)
    if op == "permute":
        return t.permute(*args)
    if op == "slice":
        dim, start, stop, *step = args
        index = [slice(None)] * t.dim()
        index[dim] = slice(start, stop, step[0] if step else 1)
        return t[tuple(index)]
    if op == "expand":
        return t.expand(*args)
    raise AssertionError(op)


@st.composite
def op_for(draw, shape):
    """An op and arguments: mostly valid ones, sometimes impossible ones."""
    ndim = len(shape)
    numel = math.prod(shape)
    op = draw(st.sampled_from(["view", "transpose", "permute", "slice", "expand"]))
    if op == "view":
        # factor numel into a random shape, sometimes with one -1
        sizes, rest = [], numel
        for _ in range(draw(st.integers(0, 3))):
            divisors = [d for d in range(1, rest + 1) if rest % d == 0]
            d = draw(st.sampled_from(divisors))
            sizes.append(d)
            rest //= d
        sizes.append(rest)
        sizes = draw(st.permutations(sizes))
        if draw(st.booleans()):
            sizes[draw(st.integers(0, len(sizes) - 1))] = -1
        return op, tuple(sizes)
    if op == "transpose":
        return op, (draw(st.integers(-ndim, ndim - 1)), draw(st.integers(-ndim, ndim - 1)))
    if op == "permute":
        return op, tuple(draw(st.permutations(range(ndim))))
    if op == "slice":
        dim = draw(st.integers(0, ndim - 1))
        size = shape[dim]
        start = draw(st.integers(-size, size - 1))
        stop = draw(st.integers(-size, size + 1))
        step = draw(st.integers(1, 3))
        return op, (dim, start, stop, step)
    lead = draw(st.lists(st.integers(1, 3), max_size=2))
    sizes = [draw(st.sampled_from([s, -1, 3] if s == 1 else [s, -1, s, 2])) for s in shape]
    return op, tuple(lead) + tuple(sizes)


@st.composite
def programs(draw):
    shape = draw(shapes)
    ops, current = [], shape
    for _ in range(draw(st.integers(1, 4))):
        op, args = draw(op_for(current))
        ops.append((op, args))
        t = torch_apply(torch.empty(current), op, args) if _torch_ok(current, op, args) else None
        if t is None or t.numel() == 0:
            break
        current = tuple(t.shape)
    return shape, ops


def _torch_ok(shape, op, args) -> bool:
    try:
        torch_apply(torch.empty(shape), op, args)
        return True
    except RuntimeError:
        return False


def agree(layout: S.Layout, t: torch.Tensor) -> None:
    assert layout.shape == tuple(t.shape)
    assert layout.strides == t.stride()
    assert layout.offset == t.storage_offset()
    assert layout.contiguous == t.is_contiguous()


@settings(max_examples=300, deadline=None)
@given(programs())
def test_op_sequences_agree_with_torch(program):
    shape, ops = program
    base = torch.arange(math.prod(shape)).view(shape)
    t, layout = base, S.contiguous(shape)
    for op, args in ops:
        try:
            t_next = torch_apply(t, op, args)
        except RuntimeError:
            with pytest.raises(ValueError):
                S.apply_op(layout, op, args)
            return
        if t_next.numel() == 0:  # the model refuses empty slices on purpose
            with pytest.raises(ValueError, match="empty"):
                S.apply_op(layout, op, args)
            return
        t, layout = t_next, S.apply_op(layout, op, args)
        agree(layout, t)
        assert t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    # element -> storage cell, checked through as_strided on the arange storage
    cells = S.storage_cells(layout)
    rebuilt = torch.as_strided(base, layout.shape, layout.strides, layout.offset)
    assert torch.equal(rebuilt, t)
    for index, cell in cells.items():
        assert t[index].item() == cell


@settings(max_examples=200, deadline=None)
@given(shapes, st.data())
def test_views_of_permuted_tensors_fail_exactly_when_torch_fails(shape, data):
    order = tuple(data.draw(st.permutations(range(len(shape)))))
    t = torch.empty(shape).permute(order)
    layout = S.apply_op(S.contiguous(shape), "permute", order)
    new_shape = data.draw(op_for(tuple(t.shape)).filter(lambda o: o[0] == "view"))[1]
    try:
        expected = t.view(new_shape)
    except RuntimeError:
        with pytest.raises(ValueError, match="reshape"):
            S.apply_op(layout, "view", new_shape)
        return
    agree(S.apply_op(layout, "view", new_shape), expected)


@given(shapes)
def test_contiguous_strides(shape):
    assert S.contiguous_strides(shape) == torch.empty(shape).stride()


@given(shapes, st.lists(st.integers(0, 5), min_size=4, max_size=4), st.integers(0, 7))
def test_is_contiguous_on_arbitrary_strides(shape, strides, offset):
    strides = tuple(strides[: len(shape)])
    storage = torch.empty(200)
    t = storage.as_strided(shape, strides, offset)
    assert S.is_contiguous(shape, strides) == t.is_contiguous()
    cells = S.storage_cells(S.Layout(shape, strides, offset))
    numbered = torch.arange(200).as_strided(shape, strides, offset)
    assert all(numbered[i].item() == c for i, c in cells.items())


def test_worked_example_from_the_notebook():
    layout = S.contiguous((2, 3))
    assert layout.strides == (3, 1)
    assert S.offset_of((1, 2), layout.strides) == 5
    assert not S.apply_op(layout, "transpose", (0, 1)).contiguous
    assert S.apply_op(layout, "expand", (4, 2, 3)).strides == (0, 3, 1)


@pytest.mark.parametrize("shape, op, args, phrase", [
    ((2, 3), "view", (4, -1), "not divisible"),
    ((2, 3), "view", (-1, -1), "only one"),
    ((2, 3), "view", (7,), "7 elements"),
    ((2, 3), "transpose", (0, 2), "out of range"),
    ((2, 3), "permute", (0, 0), "repeats"),
    ((2, 3), "permute", (0,), "all 2 dims"),
    ((2, 3), "slice", (1, 0, 3, 0), "positive"),
    ((2, 3), "slice", (1, 2, 1), "empty"),
    ((2, 3), "expand", (4, 3), "size 1"),
    ((2, 3), "expand", (3,), "at least 2"),
    ((2, 3), "expand", (-1, 2, 3), "positive"),
    ((2, 3), "unsqueeze", (0,), "unknown op"),
])
def test_impossible_ops_say_why(shape, op, args, phrase):
    with pytest.raises(ValueError, match=phrase):
        S.apply_op(S.contiguous(shape), op, args)


@pytest.mark.parametrize("kwargs, phrase", [
    ({"shape": "2, 0"}, "positive"),
    ({"shape": "2, -3"}, "positive"),
    ({"shape": "two, 3"}, "not a list of integers"),
    ({"shape": ""}, "at least one"),
    ({"shape": "20, 20"}, "too many"),
    ({"op": "transpose", "then": "view", "then_args": "6", "index": "0"}, "reshape"),
])
def test_model_rejects_impossible_settings(kwargs, phrase):
    with pytest.raises(ValueError, match=phrase):
        S.model(**kwargs)


def test_formula_of_the_default_setting():
    result = S.model()
    assert result.position == 5
    assert result.formula().endswith("= 5")


@pytest.mark.parametrize("kwargs, shown", [
    ({"op": "none", "index": "2, 1"}, (1, 1)),          # out of range: clamped into dim 0
    ({"op": "none", "index": "1"}, (1, 0)),             # too few numbers: the rest are 0
    ({"op": "none", "index": "0, 1, 2"}, (0, 1)),       # too many: the extra ones dropped
    # 01's task 2: x.t().view(3, 2, 1) exists, and the index typed for (3, 2) still draws
    ({"op": "transpose", "args": "0, 1", "then": "view", "then_args": "3, 2, 1", "index": "2, 1"},
     (2, 1, 0)),
])
def test_an_index_that_does_not_fit_the_shape_is_adapted_and_said(kwargs, shown):
    """An index left from the shape before an op changed it keeps the picture: the nearest
    index that fits is drawn, and the note says so (a message, not a refusal)."""
    result = S.model(**kwargs)
    assert result.index == shown
    assert "does not fit" in result.note and str(shown) in result.note


def test_an_index_that_does_not_fit_is_said_while_an_op_waits_for_its_arguments():
    """Issue 38: with "then: slice" waiting for its arguments, index (9, 9) was drawn as
    (4, 3) with no note. Both are said: what is shown instead, and what to type."""
    result = S.model(shape="4, 5", op="transpose", args="0, 1", then="slice", then_args="", index="9, 9")
    assert result.index == (4, 3) and result.layout.shape == (5, 4)
    assert result.note.startswith("Index (9, 9) does not fit shape (5, 4): showing (4, 3)"), result.note
    assert "type the arguments of slice" in result.note
    explorer = S.explore(shape="4, 5", then="slice", index="9, 9")
    assert "does not fit shape (5, 4): showing (4, 3)" in explorer.message.value


def test_the_view_of_task_2_agrees_with_torch():
    """01's stride explorer task 2: view(6) of the transpose is refused, view(3, 2, 1) works."""
    t = torch.arange(6).view(2, 3).t()
    with pytest.raises(ValueError, match="reshape"):
        S.model(op="transpose", args="0, 1", then="view", then_args="6", index="0")
    result = S.model(op="transpose", args="0, 1", then="view", then_args="3, 2, 1", index="2, 1, 0")
    agree(result.layout, t.view(3, 2, 1))
    assert result.note == "" and result.position == t.view(3, 2, 1)[2, 1, 0].item()


@pytest.mark.parametrize("kwargs", [
    {}, {"shape": "1, 3", "op": "expand", "args": "4, 3", "index": "0, 0"},
    {"shape": "96", "op": "none", "index": "5"},
    {"shape": "8, 12", "op": "transpose", "args": "0, 1", "index": "1, 1"},
    {"shape": "4, 6", "op": "slice", "args": "1, 0, 6, 2", "then": "expand", "then_args": "3, 4, 3",
     "index": "0, 0, 0"},
    {"shape": "2, 3, 4", "op": "permute", "args": "2, 0, 1", "index": "1, 1, 1"},
    {"shape": "4, 24", "op": "slice", "args": "1, 1, 24, 2", "index": "3, 11"},
])
def test_the_picture_reads_cleanly(kwargs):
    """Numbers inside their squares with room to spare, "×k" marks above the storage cells
    they count, nothing outside the figure (issue 30: the expand view's numbers filled their
    squares edge to edge)."""
    import matplotlib
    matplotlib.use("Agg")
    explorer = S.explore(**kwargs)
    assert explorer.error is None
    assert problems(explorer.figure) == []


def test_a_storage_cell_read_twice_is_marked_with_its_count():
    explorer = S.explore(shape="1, 3", op="expand", args="4, 3", index="0, 0")
    marks = [t.get_text() for t in explorer.figure.axes[0].texts if t.get_text().startswith("×")]
    assert marks == ["×4", "×4", "×4"]
