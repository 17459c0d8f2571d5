"""helpers.capture.Recorder counts what Dynamo compiles exactly as torch's own counting
backend does, keeps AOTAutograd's forward and backward graphs, and runs them unchanged."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch._dynamo.testing import CompileCounter

from helpers.capture import Recorder, StaticCompile, fresh_copy


def _scale(x, mode):
    if mode == "double":
        return x * 2
    return torch.sin(x) + 1


calls = st.lists(st.tuples(st.integers(1, 4), st.sampled_from(["double", "add"]),
                           st.sampled_from([torch.float32, torch.float64])), min_size=1, max_size=6)


@given(calls, st.sampled_from([False, None, True]))
@settings(max_examples=15, deadline=None)
def test_recorder_counts_as_torchs_compile_counter(sequence, dynamic):
    ours, theirs = Recorder(), CompileCounter()
    for backend in (ours, theirs):
        torch.compiler.reset()
        compiled = torch.compile(_scale, backend=backend, dynamic=dynamic)
        for n, mode, dtype in sequence:
            x = torch.arange(float(n), dtype=dtype)
            torch.testing.assert_close(compiled(x, mode), _scale(x, mode))
    assert ours.count == theirs.frame_count
    assert sum(ours.ops) == theirs.op_count


def test_backward_graphs_are_kept_and_gradients_unchanged():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = torch.randn(5, 3), torch.randn(5, 1)
    recorder = Recorder(backward=True)
    loss = torch.compile(lambda: F.mse_loss(model(x), y), backend=recorder)()
    assert loss.grad_fn.name() == "CompiledFunctionBackward"
    assert (recorder.count, len(recorder.forward_graphs), len(recorder.backward_graphs)) == (1, 1, 0)
    loss.backward()
    assert len(recorder.backward_graphs) == 1, "the backward graph is compiled at the first backward"
    compiled_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    F.mse_loss(model(x), y).backward()
    for ours, eager in zip(compiled_grads, (p.grad for p in model.parameters())):
        torch.testing.assert_close(ours, eager)
    assert "1 forward, 1 backward graph" in recorder.summary()


def test_a_fresh_copy_compiles_on_its_own():
    def f(x):
        return x * 3

    recorder = Recorder()
    torch.compile(f, backend=recorder)(torch.ones(2))
    torch.compile(f, backend=recorder)(torch.ones(2))
    assert recorder.count == 1, "two wrappers of one function share its compiled code"
    copy = fresh_copy(f, "f_again")
    assert copy.__code__ is not f.__code__ and copy.__name__ == "f_again"
    torch.compile(copy, backend=recorder)(torch.ones(2))
    assert recorder.count == 2, "a fresh copy starts with nothing compiled"
    assert torch.equal(copy(torch.ones(2)), f(torch.ones(2)))


def test_static_compile_records_shapes_and_recompiles_for_a_new_one_or_a_new_int():
    compile_fn = StaticCompile()
    model = nn.Linear(3, 2)
    fast = compile_fn(lambda x, k: model(x) * k)
    for rows, k in ((4, 2), (4, 2), (5, 2), (4, 3)):
        x = torch.randn(rows, 3)
        torch.testing.assert_close(fast(x, k), model(x) * k)
    assert compile_fn.calls == [((4, 3),), ((4, 3),), ((5, 3),), ((4, 3),)]
    assert compile_fn.shapes == {((4, 3),), ((5, 3),)}
    # dynamic=False: the new row count and the new Python int each compile a graph
    assert compile_fn.recorder.count == 3
    fast(torch.randn(4, 3), 2).sum().backward()
    assert len(compile_fn.recorder.backward_graphs) >= 1
