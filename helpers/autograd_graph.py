"""The autograd graph visualizer: what ``loss.backward()`` walks, with numbers on it.

Three layers:

* model   ``build_graph(output)`` walks ``output.grad_fn`` and ``next_functions`` into
  nodes (leaves, operations, the output) and edges, runs a backward pass that leaves the
  caller's ``.grad`` alone, and attaches the forward value of every node and the adjoint
  (gradient of the output) flowing along every edge. ``trace(fn, **inputs)`` runs a
  function of named scalars and records the forward values of its intermediates.
* draw    ``draw_graph(graph, ax=None)``: leaves on the left, the output on the right.
* explore ``explore()`` for the seed graph c = a·b, d = c + a, L = d², or
  ``explore(fn, x=(-2, 2), ...)`` for any small function of named scalars.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.path import Path
from torch.overrides import TorchFunctionMode

# ---------------------------------------------------------------------------- model


@dataclass
class Node:
    id: int
    kind: str                        # "leaf", "op" or "output"
    label: str                       # leaf name, op name ("Mul"), or the output's name
    fn: object = field(repr=False)   # the grad_fn (AccumulateGrad for a leaf); None for output
    value: torch.Tensor | None = None  # forward value, when known
    grad: torch.Tensor | None = None   # adjoint of this node's value: d output / d value
    variable: torch.Tensor | None = field(default=None, repr=False)  # a leaf's tensor


@dataclass
class Edge:
    src: int                 # the input side (closer to the leaves)
    dst: int                 # the node that consumed it
    slot: int                # position in dst's next_functions (a*a has two edges)
    adjoint: torch.Tensor | None = None  # gradient flowing back from dst into src


@dataclass
class Graph:
    nodes: dict[int, Node]
    edges: list[Edge]
    output: int

    def leaves(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.kind == "leaf"]

    def leaf(self, label: str) -> Node:
        for node in self.leaves():
            if node.label == label:
                return node
        raise KeyError(label)

    def into(self, node_id: int) -> list[Edge]:
        """Edges whose adjoints flow into ``node_id`` (it fans out to their consumers)."""
        return [e for e in self.edges if e.src == node_id]

    def inputs(self, node_id: int) -> list[Edge]:
        return sorted((e for e in self.edges if e.dst == node_id), key=lambda e: e.slot)


class _Recorder(TorchFunctionMode):
    """Remember each new result by its grad_fn, so ops can show forward values."""

    def __init__(self):
        super().__init__()
        self.values: dict = {}       # grad_fn -> detached value (keeps grad_fn alive)
        self.tensors: list = []      # weak references, to protect their retained .grad

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor) and out.grad_fn is not None:
            self.values.setdefault(out.grad_fn, out.detach().clone())
            self.tensors.append(weakref.ref(out))
        return out


def _op_label(fn) -> str:
    name = fn.name()
    for suffix in ("Backward0", "Backward1", "Backward2", "Backward"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _name_of(variable, names: Mapping[str, torch.Tensor]) -> str | None:
    for name, tensor in names.items():
        if tensor is variable:
            return name
    return None


def build_graph(output: torch.Tensor, names: Mapping[str, torch.Tensor] | None = None,
                values: Mapping | None = None, output_name: str = "out",
                grad_output: torch.Tensor | None = None,
                protect: list | None = None) -> Graph:
    """Walk ``output``'s graph and attach forward values and adjoints.

    ``names`` labels leaves (name -> tensor); ``values`` maps grad_fn -> forward value
    (``trace`` records it). A non-scalar output needs ``grad_output``, as ``backward``
    does. Raises ValueError when there is no graph to walk.
    """
    names = dict(names or {})
    values = dict(values or {})
    if not isinstance(output, torch.Tensor):
        raise ValueError(f"the function returned {type(output).__name__}, not a tensor")
    if output.grad_fn is None:
        if output.requires_grad:
            raise ValueError("the output is itself a leaf: no operation was recorded")
        raise ValueError("no graph: nothing the output depends on requires grad "
                         "(was it detached, or computed under no_grad?)")
    if grad_output is None:
        if output.numel() != 1:
            raise ValueError(f"the output has shape {tuple(output.shape)}, not a scalar: "
                             "backward needs a gradient argument (a vector-Jacobian product)")
        grad_output = torch.ones_like(output)

    nodes: dict[int, Node] = {}
    edges: list[Edge] = []
    key: dict = {}               # grad_fn -> node id; identity of the autograd Node
    order = [output.grad_fn]
    key[output.grad_fn] = 0
    while order:                 # breadth-first from the output towards the leaves
        fn = order.pop(0)
        node_id = key[fn]
        variable = getattr(fn, "variable", None)
        if variable is not None:
            label = _name_of(variable, names) or f"leaf{node_id}"
            nodes[node_id] = Node(node_id, "leaf", label, fn, variable.detach().clone(),
                                  variable=variable)
        else:
            value = values.get(fn)
            if value is None and fn is output.grad_fn:
                value = output.detach().clone()
            nodes[node_id] = Node(node_id, "op", _op_label(fn), fn, value)
        for slot, (child, _) in enumerate(fn.next_functions):
            if child is None:    # an input that does not require grad
                continue
            if child not in key:
                key[child] = len(key)
                order.append(child)
            edges.append(Edge(key[child], node_id, slot))
    out_id = len(key)
    nodes[out_id] = Node(out_id, "output", output_name, None, output.detach().clone(),
                         grad=grad_output.detach().clone())
    edges.append(Edge(0, out_id, 0, grad_output.detach().clone()))

    leaves = [n for n in nodes.values() if n.kind == "leaf"]
    if not leaves:
        raise ValueError("the graph has no leaf that requires grad")

    # Hooks on grad_fn nodes see (grads to their inputs, grads of their outputs): the
    # first are the edge adjoints, the second the node's own adjoint.
    seen: dict[int, tuple] = {}
    handles = []
    for fn, node_id in key.items():
        if nodes[node_id].kind == "op":
            def hook(grad_inputs, grad_outputs, node_id=node_id):
                seen[node_id] = (grad_inputs, grad_outputs)
            handles.append(fn.register_hook(hook))
    # torch.autograd.grad returns the leaves' gradients instead of accumulating them into
    # .grad, so the caller's .grad stays as it was; retained intermediates would still be
    # written, so remember theirs and put them back.
    guarded = [t for t in (protect or []) if t is not None] + [output]
    saved = [(t, t.grad) for t in guarded if t.retains_grad]
    try:
        grads = torch.autograd.grad(output, [n.variable for n in leaves], grad_output,
                                    retain_graph=True, allow_unused=True)
    except RuntimeError as error:
        raise ValueError(f"backward failed: {str(error).splitlines()[0]}") from None
    finally:
        for handle in handles:
            handle.remove()
        for tensor, grad in saved:
            tensor.grad = grad

    for node_id, (grad_inputs, grad_outputs) in seen.items():
        node = nodes[node_id]
        node.grad = grad_outputs[0].detach().clone() if grad_outputs[0] is not None else None
        for edge in edges:
            if edge.dst == node_id and edge.slot < len(grad_inputs):
                g = grad_inputs[edge.slot]
                edge.adjoint = g.detach().clone() if g is not None else None
    for node, grad in zip(leaves, grads):
        node.grad = grad.detach().clone() if grad is not None else None
    return Graph(nodes, edges, out_id)


def trace(fn: Callable, **inputs: float) -> Graph:
    """Call ``fn`` on scalar leaves named like its arguments and build its graph."""
    leaves = {name: torch.tensor(float(v), dtype=torch.float64, requires_grad=True)
              for name, v in inputs.items()}
    recorder = _Recorder()
    try:
        with recorder:
            out = fn(**leaves)
    except ValueError:
        raise
    except Exception as error:  # a student's function failing is a message, not a traceback
        raise ValueError(f"{type(error).__name__}: {str(error).splitlines()[0]}") from None
    protect = [ref() for ref in recorder.tensors]
    name = getattr(fn, "__name__", "out")
    graph = build_graph(out, names=leaves, values=recorder.values,
                        output_name="out" if name == "<lambda>" else name, protect=protect)
    check_finite(graph, inputs)
    return graph


def check_finite(graph: Graph, inputs: Mapping[str, float] | None = None) -> None:
    """A value or gradient that is inf or nan (a division by zero, log 0, ...) is a
    ValueError naming where it appears, instead of a picture full of silent nans."""
    where = ", ".join(f"{k} = {float(v):g}" for k, v in (inputs or {}).items())
    for node in graph.nodes.values():
        for what, t in (("value", node.value), ("gradient", node.grad)):
            if t is not None and not bool(torch.isfinite(t).all()):
                bad = "nan" if bool(torch.isnan(t).any()) else "inf"
                raise ValueError(f"the {what} of {node.label} is {bad}"
                                 + (f" at {where}" if where else "")
                                 + ": a division by zero (or log of 0, sqrt of a negative) "
                                   "happens here. Move a slider away from that point.")


def seed_graph(a: float = 2.0, b: float = 3.0) -> Graph:
    """c = a·b, d = c + a, L = d²: a fans out into two paths whose adjoints add up."""
    def L(a, b):
        c = a * b
        d = c + a
        return d ** 2
    return trace(L, a=a, b=b)


# ----------------------------------------------------------------------------- draw

COLOURS = {"leaf": "#d8f0d2", "op": "#dbe6f7", "output": "#fde2c4"}
EDGES = {"leaf": "#3c8d2f", "op": "#3465a4", "output": "#c25e00"}
ADJOINT = "#b00020"


def fmt(t: torch.Tensor | None) -> str:
    if t is None:
        return "?"
    if t.numel() == 1:
        return f"{t.item() + 0.0:.4g}"  # + 0.0 turns -0.0 into 0
    if t.numel() <= 3:
        return "[" + ", ".join(f"{v + 0.0:.4g}" for v in t.flatten().tolist()) + "]"
    return "×".join(str(s) for s in t.shape) + " tensor"


def layout(graph: Graph) -> dict[int, tuple[float, float]]:
    """x = longest path from a leaf; y = order within the layer (barycentre sweeps)."""
    preds: dict[int, list[int]] = {n: [] for n in graph.nodes}
    succs: dict[int, list[int]] = {n: [] for n in graph.nodes}
    for e in graph.edges:
        preds[e.dst].append(e.src)
        succs[e.src].append(e.dst)
    layer: dict[int, int] = {}

    def depth(n):
        if n not in layer:
            layer[n] = 1 + max((depth(p) for p in preds[n]), default=-1)
        return layer[n]
    # Iterative order (ids increase from the output towards the leaves), so no deep recursion.
    for n in sorted(graph.nodes, reverse=True):
        depth(n)
    # A leaf sits just before its first use, not at the far left, to keep edges short.
    for n in graph.nodes:
        if graph.nodes[n].kind == "leaf" and succs[n]:
            layer[n] = min(layer[m] for m in succs[n]) - 1
    columns: dict[int, list[int]] = {}
    for n in sorted(graph.nodes):
        columns.setdefault(layer[n], []).append(n)
    pos = {n: float(i) for col in columns.values() for i, n in enumerate(col)}
    xs = sorted(columns)
    for sweep in range(4):
        for x in (xs[1:] if sweep % 2 == 0 else xs[-2::-1]):
            near = preds if sweep % 2 == 0 else succs
            col = columns[x]
            key = {n: (sum(pos[m] for m in near[n]) / len(near[n]) if near[n] else pos[n])
                   for n in col}
            col.sort(key=lambda n: key[n])
            for i, n in enumerate(col):
                pos[n] = float(i)
    coords = {}
    for x, col in columns.items():
        for i, n in enumerate(col):
            coords[n] = (float(x), (len(col) - 1) / 2 - i)
    return coords


def _node_text(graph: Graph, node: Node) -> str:
    lines = [node.label, f"= {fmt(node.value)}"]
    fan = [e for e in graph.into(node.id) if e.adjoint is not None]
    if 1 < len(fan) <= 3 and all(e.adjoint.numel() == 1 for e in fan):
        lines.append(f"grad {fmt(node.grad)}")
        lines.append("= " + " + ".join(fmt(e.adjoint) for e in fan).replace("+ -", "− "))
    elif len(fan) > 3:
        lines.append(f"grad Σ{len(fan)} = {fmt(node.grad)}")
    else:
        lines.append(f"grad {fmt(node.grad)}")
    return "\n".join(lines)


def edge_route(coords: Mapping[int, tuple[float, float]], src: int, dst: int, k: int = 0,
               many: int = 1, width: float = 0.72, height: float = 0.62):
    """The drawn path of an edge and where its adjoint is written.

    Between neighbouring columns the edge stays in the gap (parallel edges, as in x * x,
    fan apart). An edge that skips columns runs in the gaps beside its ends and passes
    above (or below) every box in the columns it skips, so it never crosses a node.
    """
    (x0, y0), (x1, y1) = coords[src], coords[dst]
    start, end = (x0 + width / 2, y0), (x1 - width / 2, y1)
    between = [y for x, y in coords.values() if x0 < x < x1]
    if between:
        above = max(between) + height / 2 + 0.22
        below = min(between) - height / 2 - 0.22
        lane = above if abs(above - (y0 + y1) / 2) <= abs(below - (y0 + y1) / 2) else below
        gx0, gx1 = x0 + 0.5, x1 - 0.5
        # leave and enter a little towards the lane, apart from the straight edges
        side = 0.16 if lane > (y0 + y1) / 2 else -0.16
        start, end = (start[0], y0 + side), (end[0], y1 + side)
        points = [start, (gx0, start[1]), (gx0, lane), (gx1, lane), (gx1, end[1]), end]
        return (Path(points, [Path.MOVETO] + [Path.LINETO] * (len(points) - 1)),
                ((gx0 + gx1) / 2, lane))
    bend = (k - (many - 1) / 2) * 0.5 if many > 1 else 0.0
    control = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + bend)
    path = Path([start, control, end], [Path.MOVETO, Path.CURVE3, Path.CURVE3])
    # the midpoint of the quadratic curve
    return path, ((start[0] + 2 * control[0] + end[0]) / 4, (start[1] + 2 * control[1] + end[1]) / 4)


def draw_graph(graph: Graph, ax=None, title: str | None = None):
    """Leaves (green), operations (blue), output (orange); forward values on nodes,
    adjoints (red) on the edges they flow back along; a fan-out node shows their sum."""
    if ax is None:
        ax = Figure(figsize=(8, 3.8), layout="constrained").add_subplot()
    coords = layout(graph)
    width, height = 0.72, 0.62
    xmax = max(x for x, _ in coords.values())
    ys = [y for _, y in coords.values()]
    nodes_y = (min(ys), max(ys))
    columns = len({x for x, _ in coords.values()})
    # text must fit inside the boxes, which narrow as columns are added
    small = 8 if len(graph.nodes) <= 8 and columns <= 6 else (7 if columns <= 8 else 6)
    for node in graph.nodes.values():
        x, y = coords[node.id]
        style = "round,pad=0.02,rounding_size=0.12" if node.kind != "op" else "round,pad=0.02,rounding_size=0.3"
        ax.add_artist(FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                    boxstyle=style, facecolor=COLOURS[node.kind],
                                    edgecolor=EDGES[node.kind],
                                    linewidth=2.2 if node.kind != "op" else 1.2, zorder=3))
        ax.text(x, y, _node_text(graph, node), ha="center", va="center", fontsize=small,
                linespacing=1.25, zorder=4)
    pairs: dict[tuple[int, int], int] = {}
    for edge in graph.edges:
        pairs[(edge.src, edge.dst)] = pairs.get((edge.src, edge.dst), 0) + 1
    rank: dict[tuple[int, int], int] = {}
    for edge in graph.edges:
        k = rank.get((edge.src, edge.dst), 0)
        rank[(edge.src, edge.dst)] = k + 1
        path, (mx, my) = edge_route(coords, edge.src, edge.dst, k,
                                    pairs[(edge.src, edge.dst)], width, height)
        ax.add_artist(FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=9,
                                      color="#555555", linewidth=1.0, zorder=2))
        ys.append(my)
        ax.text(mx, my, fmt(edge.adjoint), ha="center", va="center",
                fontsize=small, color=ADJOINT, zorder=5,
                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none",
                          alpha=0.85))
    ax.set_xlim(-0.5, xmax + 0.5)
    ax.set_ylim(min(min(ys) - 0.25, nodes_y[0] - 0.45), max(max(ys) + 0.25, nodes_y[1] + 0.45))
    ax.set_axis_off()
    if title is None:
        leaves = ", ".join(f"{n.label}.grad = {fmt(n.grad)}" for n in graph.leaves())
        out = graph.nodes[graph.output]
        title = f"{out.label} = {fmt(out.value)}    {leaves}"
    ax.set_title(title + "\n(black: forward, red: adjoint flowing back along the edge)",
                 fontsize=8)
    return ax.figure


# -------------------------------------------------------------------------- explore


def _slider(name: str, spec, default: float | None):
    import ipywidgets as widgets
    if isinstance(spec, (int, float)):
        spec = (-abs(spec), abs(spec))
    lo, hi, *rest = spec
    step = rest[0] if rest else (hi - lo) / 80
    value = rest[1] if len(rest) > 1 else (default if default is not None else (lo + hi) / 2)
    return widgets.FloatSlider(value=value, min=lo, max=hi, step=step, description=name,
                               continuous_update=True, readout_format=".2f",
                               layout=widgets.Layout(width="300px"))


def explore(fn: Callable | None = None, **ranges):
    """Sliders for the inputs, the graph with values and adjoints redrawn on each change.

    ``explore()`` shows the seed graph c = a·b, d = c + a, L = d². ``explore(fn, x=(lo,
    hi), y=(lo, hi, step, start))`` does the same for any function of named scalars;
    arguments without a range get (-3, 3).
    """
    from helpers.explorer import Explorer

    if fn is None:
        controls = {"a": _slider("a", (-4.0, 4.0, 0.1, 2.0), None),
                    "b": _slider("b", (-4.0, 4.0, 0.1, 3.0), None)}
        return Explorer(controls, seed_graph, draw_graph,
                        title="c = a·b,  d = c + a,  L = d²   (a.grad = 2d·(b+1), b.grad = 2d·a)",
                        figsize=(8, 3.8))
    params = inspect.signature(fn).parameters
    unknown = set(ranges) - set(params)
    if unknown:
        raise TypeError(f"{sorted(unknown)} are not arguments of {fn.__name__}")
    controls = {}
    for name, param in params.items():
        default = param.default if isinstance(param.default, (int, float)) else None
        controls[name] = _slider(name, ranges.get(name, (-3.0, 3.0)), default)

    def model(**values):
        return trace(fn, **values)
    return Explorer(controls, model, draw_graph, title=f"autograd graph of {fn.__name__}",
                    figsize=(8, 3.8))
