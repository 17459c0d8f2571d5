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
* draw    ``draw_counts(result, ax=None)``: both counts against depth, on a log scale.
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
    graphs = [read_graph(chain(kind, d)[0]) for d in range(1, depth + 1)]
    return Counts(kind, depth, tuple(path_calls(g) for g in graphs),
                  tuple(node_calls(g) for g in graphs))


# ----------------------------------------------------------------------------- draw

EVERY_PATH, EACH_NODE = "#b00020", "#3465a4"


def draw_counts(result: Counts, ax=None):
    """Node calls against depth, log scale: one line per walk, the chosen depth marked."""
    from matplotlib.figure import Figure

    if ax is None:
        ax = Figure(figsize=(8, 3.8), dpi=96).add_subplot()
    fig = ax.figure
    ax.set_position([0.11, 0.15, 0.86, 0.66])
    depths = range(1, result.depth + 1)
    ax.semilogy(depths, result.every_path, "o-", color=EVERY_PATH, ms=3,
                label="calls a node once per path")
    ax.semilogy(depths, result.each_node, "s-", color=EACH_NODE, ms=3,
                label="sums, then calls each node once")
    top = max(result.every_path[-1], 10)
    ax.set_ylim(0.7, top * 30)
    ax.set_xlim(0.5, result.depth + 0.5)
    ax.set_xlabel("depth (times the step is repeated)")
    ax.set_ylabel("node calls")
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
