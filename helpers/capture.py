"""A torch.compile backend that keeps what Dynamo hands it, for counting and reading graphs.

A backend is any callable ``backend(graph_module, example_inputs)`` returning a function
that runs the graph: that is public API (``torch.compile(fn, backend=...)``). ``Recorder``
is such a backend. It runs every graph as captured (ordinary PyTorch ops, no code
generation), so counting costs only Dynamo's capture.

With ``backward=True`` each graph first goes through AOTAutograd, the step of
``torch.compile`` that traces the backward pass ahead of time and splits the work into a
forward graph and a backward graph; both are kept. (That wrapper,
``torch._dynamo.backends.common.aot_autograd``, is internal API: it may change between
versions.)
"""

from __future__ import annotations

import types
from collections.abc import Callable

import torch


def _ops(graph_module) -> int:
    return sum(1 for node in graph_module.graph.nodes if node.op == "call_function")


class Recorder:
    """``torch.compile(fn, backend=Recorder())``: ``graphs`` holds every graph Dynamo
    captured, in order; with ``backward=True``, ``forward_graphs`` and ``backward_graphs``
    hold what AOTAutograd made of them (a backward graph appears at the first backward)."""

    def __init__(self, backward: bool = False):
        self.backward = backward
        self.graphs: list[torch.fx.GraphModule] = []
        self.forward_graphs: list[torch.fx.GraphModule] = []
        self.backward_graphs: list[torch.fx.GraphModule] = []

    @property
    def count(self) -> int:
        """Graphs compiled so far: each one is a first compilation or a recompilation."""
        return len(self.graphs)

    @property
    def ops(self) -> list[int]:
        """Operations (call_function nodes) in each captured graph."""
        return [_ops(g) for g in self.graphs]

    def __call__(self, graph_module, example_inputs):
        self.graphs.append(graph_module)
        if not self.backward:
            return graph_module.forward
        from torch._dynamo.backends.common import aot_autograd
        from torch._functorch.aot_autograd import make_boxed_func

        def keep(into):
            def compiler(graph, _inputs):
                into.append(graph)
                # AOTAutograd calls with one list of arguments (so it can free them early)
                return make_boxed_func(graph.forward)
            return compiler

        return aot_autograd(fw_compiler=keep(self.forward_graphs),
                            bw_compiler=keep(self.backward_graphs))(graph_module, example_inputs)

    def summary(self) -> str:
        said = f"{self.count} graph{'s' if self.count != 1 else ''} captured ({', '.join(map(str, self.ops))} ops)"
        if self.backward:
            said += (f"; AOTAutograd: {len(self.forward_graphs)} forward, "
                     f"{len(self.backward_graphs)} backward graph"
                     f"{'s' if len(self.backward_graphs) != 1 else ''} "
                     f"({', '.join(str(_ops(g)) for g in self.backward_graphs) or 'none'} ops)")
        return said


class StaticCompile:
    """A ``compile_fn`` to hand to code under test: ``compile_fn(fn)`` is
    ``torch.compile(fn, backend=self.recorder, dynamic=False)`` (static shapes, as CUDA
    graphs need), and every call of the compiled function records the shapes of the
    tensors it was given (``self.calls``), so that a test can tell a call on a new shape
    from a recompilation that a changed Python value caused."""

    def __init__(self):
        self.recorder = Recorder(backward=True)
        self.calls: list[tuple[tuple[int, ...], ...]] = []

    def __call__(self, fn):
        compiled = torch.compile(fn, backend=self.recorder, dynamic=False)

        def call(*args, **kwargs):
            self.calls.append(tuple(tuple(a.shape) for a in (*args, *kwargs.values())
                                    if isinstance(a, torch.Tensor)))
            return compiled(*args, **kwargs)
        return call

    @property
    def shapes(self) -> set[tuple[tuple[int, ...], ...]]:
        """The distinct tensor shapes the compiled function was called with."""
        return set(self.calls)


def fresh_copy(fn: Callable, name: str) -> Callable:
    """``fn`` with a code object of its own. Dynamo keeps compiled code on the function's
    code object, so every ``torch.compile`` of the same function shares it (whichever
    wrapper compiled it); a fresh copy starts with nothing compiled."""
    return types.FunctionType(fn.__code__.replace(co_name=name), fn.__globals__, name,
                              fn.__defaults__, fn.__closure__)
