"""The walk counter against real walks over real autograd graphs.

Two walks are written here (the notebook's per-path walk, and a walk in topological order
that calls each node once); each counts the node calls it makes, and both must give
autograd's own gradients. The model's counts, made on the graph without walking it, must
equal what the walks counted."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import graph_walks as G
from helpers.refuse import Refused, refusing


def _as_tuple(adjoints):
    return adjoints if isinstance(adjoints, tuple) else (adjoints,)


def walk_every_path(output, leaves):
    """Call a node each time an adjoint reaches it (the notebook's per-path walk)."""
    totals, calls = {}, [0]

    def visit(node, adjoint):
        if hasattr(node, "variable"):
            totals[id(node.variable)] = totals.get(id(node.variable), 0) + adjoint
            return
        calls[0] += 1
        for (child, _), g in zip(node.next_functions, _as_tuple(node(adjoint))):
            if child is not None and g is not None:
                visit(child, g)

    visit(output.grad_fn, torch.ones_like(output))
    return [totals.get(id(leaf)) for leaf in leaves], calls[0]


def walk_each_node(output, leaves):
    """Sum what reaches a node, then call it once, in topological order."""
    order, seen = [], set()
    stack = [(output.grad_fn, False)]
    while stack:                          # post-order depth-first search, without recursion
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        stack.extend((child, False) for child, _ in node.next_functions if child is not None)
    pending, totals, calls = {output.grad_fn: torch.ones_like(output)}, {}, 0
    for node in reversed(order):
        adjoint = pending.pop(node, None)
        if adjoint is None:
            continue
        if hasattr(node, "variable"):
            totals[id(node.variable)] = adjoint
            continue
        calls += 1
        for (child, _), g in zip(node.next_functions, _as_tuple(node(adjoint))):
            if child is not None and g is not None:
                pending[child] = pending[child] + g if child in pending else g
    return [totals.get(id(leaf)) for leaf in leaves], calls


@pytest.mark.parametrize("kind", list(G.STEPS))
@pytest.mark.parametrize("depth", [1, 2, 5, 8])
def test_counts_equal_the_calls_real_walks_make(kind, depth):
    output, leaf = G.chain(kind, depth, x=0.9)
    graph = G.read_graph(output)
    (slow,), slow_calls = walk_every_path(output, [leaf])
    (fast,), fast_calls = walk_each_node(output, [leaf])
    (want,) = torch.autograd.grad(output, leaf, retain_graph=True)
    assert torch.allclose(slow.detach(), want) and torch.allclose(fast.detach(), want)
    assert G.path_calls(graph) == slow_calls
    assert G.node_calls(graph) == fast_calls
    (engine,), engine_calls = G.engine_calls(output, leaf)
    assert torch.equal(engine, want) and engine_calls == fast_calls
    result = G.counts(kind, depth)
    assert (result.every_path[-1], result.each_node[-1]) == (slow_calls, fast_calls)


def test_the_doubling_chain_and_the_chain_without_fanout():
    doubling = G.counts("y = y·y", 16)
    assert [doubling.every_path[d - 1] for d in (8, 12, 16)] == [2 ** 8 - 1, 2 ** 12 - 1, 2 ** 16 - 1]
    assert [doubling.each_node[d - 1] for d in (8, 12, 16)] == [8, 12, 16]
    plain = G.counts("y = sin(y)", 12)
    assert plain.every_path == plain.each_node == tuple(range(1, 13))


_OPS = [
    lambda a, b: a * b, lambda a, b: a + b, lambda a, b: a - b * 0.5,
    lambda a, b: torch.sin(a) * b, lambda a, b: torch.tanh(a + b),
]


@st.composite
def expressions(draw):
    """A random graph over two leaves: each new value combines two earlier ones."""
    choices = draw(st.lists(st.tuples(st.integers(0, len(_OPS) - 1), st.integers(0, 99),
                                      st.integers(0, 99)), min_size=1, max_size=9))
    return choices


@settings(max_examples=60, deadline=None)
@given(expressions())
def test_random_graphs(choices):
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(-0.4, dtype=torch.float64, requires_grad=True)
    values = [x, y]
    for op, i, j in choices:
        values.append(_OPS[op](values[i % len(values)], values[j % len(values)]))
    out = values[-1]
    if out.grad_fn is None:
        return
    graph = G.read_graph(out)
    slow, slow_calls = walk_every_path(out, [x, y])
    fast, fast_calls = walk_each_node(out, [x, y])
    want = torch.autograd.grad(out, [x, y], allow_unused=True, retain_graph=True)
    for s, f, w in zip(slow, fast, want):
        if w is None:
            assert s is None and f is None
        else:
            assert torch.allclose(s.detach(), w) and torch.allclose(f.detach(), w)
    assert G.path_calls(graph) == slow_calls
    assert G.node_calls(graph) == fast_calls
    if all(w is not None for w in want):
        assert G.engine_calls(out, [x, y])[1] == fast_calls


def test_an_input_that_needs_no_gradient_is_no_edge():
    x = torch.tensor(2.0, requires_grad=True)
    out = (x * torch.tensor(3.0)) * x
    graph = G.read_graph(out)
    assert G.node_calls(graph) == 2 and G.path_calls(graph) == 2


@pytest.mark.parametrize("call, why", [
    (lambda: G.counts("y = y·y", 0), "choose 1 to"),
    (lambda: G.counts("y = y·y", G.MAX_DEPTH + 1), "choose 1 to"),
    (lambda: G.chain("y = y·y", 0), "at least one step"),
    (lambda: G.counts("y = y³", 3), "unknown step"),
    (lambda: G.read_graph(torch.tensor(1.0)), "no grad_fn"),
])
def test_impossible_settings_say_why(call, why):
    with pytest.raises(ValueError, match=why):
        call()


def test_the_explorer_follows_its_controls():
    explorer = G.explore()
    explorer.controls["depth"].value = 18
    assert explorer.error is None and explorer.result.every_path[-1] == 2 ** 18 - 1
    explorer.controls["kind"].value = "y = sin(y)"
    assert explorer.error is None and explorer.result.every_path[-1] == 18


@pytest.mark.parametrize("skip", [False, True])
def test_a_counted_chain_counts_each_call_and_stops_a_walk_along_every_path(skip):
    chain = G.counted_chain(12, skip=skip)
    (fast,), fast_calls = walk_each_node(chain.output, [chain.leaf])
    assert chain.calls == fast_calls == chain.nodes
    want = 2.0 ** 12 if not skip else 1.25 ** 12
    assert math.isclose(fast.item(), want)
    (engine,), _ = G.engine_calls(chain.output, chain.leaf)
    assert math.isclose(engine.item(), want)
    chain = G.counted_chain(30, skip=skip)
    with pytest.raises(G.BudgetSpent, match="more than"):
        walk_every_path(chain.output, [chain.leaf])
    assert chain.calls == 10 * chain.nodes + 1


def test_refusing_refuses_and_restores():
    x = torch.tensor(1.0, requires_grad=True)
    backward, grad = torch.Tensor.backward, torch.autograd.grad
    with refusing(["torch.Tensor.backward", "torch.autograd.grad"], "call the nodes"):
        with pytest.raises(Refused, match="call the nodes"):
            (x * 2).backward()
        with pytest.raises(Refused, match="call the nodes"):
            torch.autograd.grad(x * 2, x)
        (calls,) = walk_each_node(x * 3, [x])[0]
    assert calls.item() == 3
    assert torch.Tensor.backward is backward and torch.autograd.grad is grad
    with pytest.raises(ZeroDivisionError):
        with refusing(["torch.func.vmap", "torch.autograd.functional.jacobian"], "no"):
            raise ZeroDivisionError
    assert torch.func.vmap.__name__ == "vmap"
    with pytest.raises(ValueError, match="names nothing"):
        refusing(["nowhere.at_all"], "no")
