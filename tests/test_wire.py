"""helpers.grading.wire: values leave the kernel as data, exact types only, and come back
as torch (and Python) made them; anything else is named, never trusted."""

import math

import numpy
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import checks
from helpers.grading import wire

DTYPES = [torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.complex64, torch.int64,
          torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool]


def round_trip(value):
    return wire.decode(wire.encode(value))


scalars = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) | st.text(max_size=20)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=3), max_leaves=20)


def same(a, b) -> bool:
    """Equal, with NaN equal to NaN and types compared exactly."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


@settings(max_examples=200, deadline=None)
@given(values)
def test_python_values_come_back_with_their_exact_types(value):
    assert same(round_trip(value), value)


def bits(t):
    return t.detach().contiguous().reshape(-1).view(torch.uint8)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(DTYPES), st.lists(st.integers(0, 4), max_size=3), st.integers(0, 2**31 - 1),
       st.booleans())
def test_tensors_come_back_bit_for_bit(dtype, shape, seed, transpose):
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dtype)
    if transpose and t.dim() >= 2:
        t = t.transpose(0, 1)  # not contiguous: the data travels in logical order
    back = round_trip(t)
    assert type(back) is torch.Tensor and back.dtype == t.dtype and back.shape == t.shape
    assert torch.equal(bits(back), bits(t))  # NaNs and -0.0 included


def test_tensor_flags_sizes_dtypes_devices_parameters_and_numpy():
    w = torch.nn.Parameter(torch.ones(2, 3))
    back = round_trip(w)
    assert type(back) is torch.nn.Parameter and back.requires_grad and torch.equal(back, w)
    y = (torch.ones(2, requires_grad=True) * 2)
    assert round_trip(y).requires_grad
    assert round_trip(torch.Size([2, 3])) == torch.Size([2, 3]) and type(round_trip(torch.Size([1]))) is torch.Size
    assert round_trip(torch.bfloat16) is torch.bfloat16
    assert round_trip(torch.device("cpu")) == torch.device("cpu")
    meta = round_trip(torch.empty(3, 4, device="meta"))
    assert meta.is_meta and meta.shape == (3, 4)
    a = numpy.arange(6, dtype=numpy.int32).reshape(2, 3).T
    assert numpy.array_equal(round_trip(a), a) and round_trip(a).dtype == numpy.int32
    assert round_trip(numpy.float64(2.5)) == 2.5 and type(round_trip(numpy.float64(2.5))) is numpy.float64
    neg = torch.tensor([1 + 2j]).conj()
    assert torch.equal(round_trip(neg), neg.resolve_conj())


class LyingInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__

    def __bool__(self):
        return True


class LyingTuple(tuple):
    def __eq__(self, other):
        return True

    __hash__ = tuple.__hash__


class LyingStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class LyingTensor(torch.Tensor):
    def __eq__(self, other):
        return True


@pytest.mark.parametrize("value, base", [(LyingInt(3), "int"), (LyingTuple((1, 2)), "tuple"),
                                         (LyingStr("x"), "str"), (torch.ones(2).as_subclass(LyingTensor), "Tensor")])
def test_a_subclass_equals_nothing_and_is_named(value, base):
    back = round_trip(value)
    assert isinstance(back, wire.Foreign) and not isinstance(back, (int, tuple, str, torch.Tensor))
    assert back != value and not (back == value) and not back
    assert type(back).__name__ == type(value).__name__
    assert f"a subclass of {base}" in checks.type_name(back)
    with pytest.raises(checks.CheckFailed, match=type(value).__name__):
        checks.expect_type(back, (int, tuple, str, torch.Tensor), "answer")
    # inside a container too
    assert round_trip((1, value)) != (1, value)


def test_encoding_runs_none_of_the_students_code():
    ran = []

    class Loud(list):
        def __iter__(self):
            ran.append("iter")
            return super().__iter__()

        def __len__(self):
            ran.append("len")
            return 0

    class Sneaky(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            ran.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    assert isinstance(round_trip(Loud([1])), wire.Foreign)
    assert isinstance(round_trip(torch.ones(2).as_subclass(Sneaky)), wire.Foreign)
    assert isinstance(round_trip({LyingInt(1): 2}), dict)  # a lying key is named, as a key
    assert ran == []


def test_object_arrays_and_unknown_things_are_foreign():
    assert isinstance(round_trip(numpy.array([object()])), wire.Foreign)
    assert isinstance(round_trip(lambda: 1), wire.Foreign)
    assert isinstance(round_trip(torch.nn.Linear(2, 2)), wire.Foreign)
    assert "Linear" in checks.type_name(round_trip(torch.nn.Linear(2, 2)))


def test_too_large_is_marked_not_sent():
    big = torch.zeros(wire.MAX_BYTES // 4 + 1)
    back = round_trip(big)
    assert isinstance(back, wire.TooLarge) and "too large" in repr(back)


@pytest.mark.parametrize("data", [
    {"t": "tensor", "dtype": "float32", "shape": [2], "data": "AAAA"},             # 3 bytes for 8
    {"t": "tensor", "dtype": "object", "shape": [1], "data": ""},
    {"t": "tensor", "dtype": "float32", "shape": [-1], "data": ""},
    {"t": "ndarray", "dtype": "|O", "shape": [1], "data": "AAAAAAAAAAA="},
    {"t": "int", "v": "3"}, {"t": "bool", "v": 1}, {"t": "float", "v": 1.5},
    {"t": "list", "v": {"a": 1}}, {"t": "dict", "v": [[{"t": "list", "v": []}, {"t": "none"}]]},
    {"t": "pickle", "v": ""}, ["t", "int"], {"t": "int", "v": 2**5000},
])
def test_malformed_data_is_refused_with_wire_error(data):
    with pytest.raises(wire.WireError):
        wire.decode(data)


def test_deep_nesting_is_refused():
    data = {"t": "none"}
    for _ in range(wire.MAX_DEPTH + 5):
        data = {"t": "list", "v": [data]}
    with pytest.raises(wire.WireError):
        wire.decode(data)
