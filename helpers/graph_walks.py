"""Walk counter: how many node calls a backward walk makes, following every path or calling
each node once, as a graph grows deeper.

Three layers:

* model   ``chain(kind, depth, x)`` records a real autograd graph by repeating one step
  (``y = y·y``, ``y = y·y + y`` or ``y = sin(y)``) ``depth`` times. ``read_graph(output)``
  reads its operation nodes and edges from ``grad_fn`` / ``next_functions`` (an input used
  twice is two edges). ``path_calls(graph)`` counts the calls of a walk that calls a node
  each time an adjoint arrives, that is once per path from the output to it; ``node_calls``
  counts those of a walk that first sums what arrives and then calls each node once. Both
  are counted on the graph (paths by dynamic programming), without walking it.
  ``counts(kind, depth)`` gives both for every depth from 1 to ``depth``.
  ``engine_calls(output, inputs)`` runs ``torch.autograd.grad`` and counts the calls its
  engine makes (a pre-hook on every node).
  For the tests of a hand-written walk, ``counted_chain(depth, skip)`` records a chain of
  custom nodes that count how often a walk calls them (and refuse past a budget).
* draw    ``draw_counts(result, ax=None)``: both counts against depth, on a log scale (the
  wider per-path line stays visible where the two counts are equal).
* explore ``explore()``: the repeated step and the depth.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

# ---------------------------------------------------------------------------- model

STEPS = {
    "y = y·y": lambda y: y * y,
    "y = y·y + y": lambda y: y * y + y,
    "y = sin(y)": torch.sin,
}
MAX_DEPTH = 24


def chain(kind: str, depth: int, x: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """(output, leaf): the step ``kind`` applied ``depth`` times to a float64 leaf x."""
    if kind not in STEPS:
        raise ValueError(f"unknown step {kind!r}; choose one of {', '.join(STEPS)}")
    if depth < 1:
        raise ValueError(f"depth {depth}: a chain needs at least one step")
    leaf = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    y = leaf
    for _ in range(depth):
        y = STEPS[kind](y)
    return y, leaf


@dataclass(frozen=True)
class Graph:
    ops: tuple[object, ...]                 # operation nodes (grad_fn), output's first
    edges: tuple[tuple[int, int], ...]      # (consumer, input) by position in ops; leaves -1


def read_graph(output: torch.Tensor) -> Graph:
    """The operation nodes reachable from ``output.grad_fn`` and the edges between them; an
    edge into a leaf's AccumulateGrad points to -1, an input that needs no gradient is left
    out (its entry in next_functions is None)."""
    if output.grad_fn is None:
        raise ValueError("the output has no grad_fn: there is no graph to walk")
    index: dict[object, int] = {output.grad_fn: 0}
    ops, edges, todo = [output.grad_fn], [], [output.grad_fn]
    while todo:
        node = todo.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if hasattr(child, "variable"):      # AccumulateGrad: the walk adds, calls nothing
                edges.append((index[node], -1))
                continue
            if child not in index:
                index[child] = len(ops)
                ops.append(child)
                todo.append(child)
            edges.append((index[node], index[child]))
    return Graph(tuple(ops), tuple(edges))


def paths_to(graph: Graph) -> list[int]:
    """For each operation node, the number of paths from the output's node to it."""
    consumers: dict[int, list[int]] = {i: [] for i in range(len(graph.ops))}
    for src, dst in graph.edges:
        if dst >= 0:
            consumers[dst].append(src)
    paths: dict[int, int] = {0: 1}

    def count(i: int) -> int:          # iterative: a deep chain must not hit the recursion limit
        stack = [i]
        while stack:
            j = stack[-1]
            missing = [c for c in consumers[j] if c not in paths]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            paths.setdefault(j, sum(paths[c] for c in consumers[j]))
        return paths[i]
    return [count(i) for i in range(len(graph.ops))]


def path_calls(graph: Graph) -> int:
    """Node calls of a walk that calls a node once for every adjoint that arrives."""
    return sum(paths_to(graph))


def node_calls(graph: Graph) -> int:
    """Node calls of a walk that sums the arriving adjoints and calls each node once."""
    return len(graph.ops)


def engine_calls(output: torch.Tensor, inputs) -> tuple[tuple, int]:
    """``torch.autograd.grad(output, inputs)`` and the number of operation-node calls its
    engine made, counted by a pre-hook on each node (removed afterwards)."""
    calls = [0]

    def count(_grads):
        calls[0] += 1
    handles = [node.register_prehook(count) for node in read_graph(output).ops]
    try:
        grads = torch.autograd.grad(output, inputs)
    finally:
        for handle in handles:
            handle.remove()
    return grads, calls[0]


class BudgetSpent(RuntimeError):
    """A counted chain's nodes were called more often than the budget allows."""


@dataclass
class CountedChain:
    output: torch.Tensor
    leaf: torch.Tensor
    nodes: int                       # operation nodes in the graph
    counter: list                    # [calls so far]

    @property
    def calls(self) -> int:
        return self.counter[0]


def counted_chain(depth: int, skip: bool = False, budget: int | None = None,
                  x: float = 1.0) -> CountedChain:
    """``y ← y + y`` repeated ``depth`` times (each node uses the one below it twice), or
    with ``skip`` ``y ← ½·(½·y) + y`` (a path two nodes longer beside a direct edge), made of
    custom autograd nodes that count every call a walk makes (``node(adjoint)`` works on them
    as on torch's own nodes) and raise ``BudgetSpent`` past ``budget`` calls (default: ten
    times the number of nodes), so that a walk whose work grows with the number of paths
    stops early."""
    counter = [0]
    limit = budget if budget is not None else 10 * depth * (3 if skip else 1)

    def tick():
        counter[0] += 1
        if counter[0] > limit:
            raise BudgetSpent(f"the walk called this graph's nodes more than {limit} times "
                              "(the budget of the grader's counted graph)")

    class Add(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            tick()
            return g, g

    class Half(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 0.5

        @staticmethod
        def backward(ctx, g):
            tick()
            return g * 0.5

    for function in (Add, Half):     # a custom node is not callable; torch's own nodes are
        function._backward_cls.__call__ = lambda self, *grads: self.apply(*grads)
    leaf = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    y = leaf
    for _ in range(depth):
        y = Add.apply(Half.apply(Half.apply(y)), y) if skip else Add.apply(y, y)
    return CountedChain(y, leaf, depth * (3 if skip else 1), counter)


@dataclass(frozen=True)
class Counts:
    kind: str
    depth: int                         # the depth picked; the lists run from depth 1 up
    every_path: tuple[int, ...]
    each_node: tuple[int, ...]


def counts(kind: str = "y = y·y", depth: int = 10) -> Counts:
    """Both walks' node calls on the chain ``kind`` at every depth from 1 to ``depth``."""
    depth = int(depth)
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth {depth}: choose 1 to {MAX_DEPTH}")
    leaf = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    levels, y = [], leaf
    for _ in range(depth):          # one chain: the output of level d is the chain of depth d
        if kind not in STEPS:
            raise ValueError(f"unknown step {kind!r}; choose one of {', '.join(STEPS)}")
        y = STEPS[kind](y)
        levels.append(y)
    graphs = [read_graph(level) for level in levels]
    return Counts(kind, depth, tuple(path_calls(g) for g in graphs),
                  tuple(node_calls(g) for g in graphs))


# ----------------------------------------------------------------------------- draw

EVERY_PATH, EACH_NODE = "#b00020", "#3465a4"


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def draw_counts(result: Counts, ax=None):
    """Node calls against depth on a log scale (log10 drawn on a linear axis, its ticks by
    hand: matplotlib's log locator is most of an update's time): one line per walk, the
    chosen depth's counts in the heading."""
    import math

    from matplotlib.figure import Figure

    from helpers import hand_axes

    if ax is None:
        ax = Figure(figsize=(8, 3.8), dpi=96).add_subplot()
    fig = ax.figure
    ax.set_position([0.11, 0.17, 0.86, 0.64])
    depths = list(range(1, result.depth + 1))
    top = max(2, math.ceil(math.log10(max(result.every_path[-1], 10))) + 1)
    ax.set_xlim(0.5, result.depth + 0.5)
    ax.set_ylim(-0.15, top + 0.3)
    for counts, colour, marker, width, label in [   # the wider red line shows under the blue
            (result.every_path, EVERY_PATH, "o", 3.0, "calls a node once per path"),
            (result.each_node, EACH_NODE, "s", 1.5, "sums, then calls each node once")]:
        ax.plot(depths, [math.log10(c) for c in counts], marker + "-", color=colour, ms=3,
                lw=width, label=label)
    hand_axes.frame(ax)
    step = 1 if top <= 6 else 2
    exponents = list(range(0, top + 1, step))
    hand_axes.x_axis(ax, "depth (times the step is repeated)",
                     ticks=[d for d in hand_axes.ticks_between(1, result.depth) if d == int(d)])
    place = ax.get_yaxis_transform()
    ax.hlines(exponents, -hand_axes.TICK, 0, transform=place, colors="black", lw=0.8, clip_on=False)
    for e in exponents:
        fig.text(-hand_axes.GAP, e, "10" + str(e).translate(_SUPERSCRIPT), transform=place,
                 fontsize=9, ha="right", va="center")
    fig.text(0.025, 0.49, "node calls", rotation=90, ha="center", va="center", fontsize=9)
    ax.legend(loc="upper left", fontsize=9, frameon=False)
    fig.text(0.5, 0.95, f"{result.kind}, depth {result.depth}:  "
             f"every path {result.every_path[-1]:,} calls,  each node once "
             f"{result.each_node[-1]:,} calls", ha="center", va="top", fontsize=9)
    fig.text(0.5, 0.88, f"the graph has {result.each_node[-1]} operation nodes",
             ha="center", va="top", fontsize=9, color="#555555")
    return fig


# -------------------------------------------------------------------------- explore

def explore(kind: str = "y = y·y", depth: int = 10):
    """The walk counter: pick the repeated step and the depth."""
    import ipywidgets as widgets

    from helpers.explorer import Explorer

    controls = {
        "kind": widgets.Dropdown(options=list(STEPS), value=kind, description="step"),
        "depth": widgets.IntSlider(value=depth, min=1, max=MAX_DEPTH, description="depth"),
    }
    return Explorer(controls, counts, draw_counts,
                    title="Walk counter: node calls of two backward walks", figsize=(8, 3.8))
