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

import functools
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


# Everything below is measured in points (1/72 in): text is measured at the size it is
# drawn, boxes are made to hold it, and the gaps between columns to hold the edge labels
# clear of both boxes and of the arrowheads.
FONT_PT = 9          # the explorer's smallest text; nothing is drawn smaller
LINE_PT = 1.3 * FONT_PT
PAD_X, PAD_Y = 8.0, 6.0      # inside a node's box, around its text
ROW_GAP = 20.0               # between boxes of one column
ARROW_ROOM = 16.0            # between a label and the box on either side of a gap
LANE_GAP = 16.0              # a long edge's lane above (or below) the boxes it passes
HEAD_PT = 9                  # arrowhead size (mutation scale)


def text_width(text: str, size: float = FONT_PT) -> float:
    """Width in points of the widest line of ``text`` at ``size``, as matplotlib draws it."""
    return max(_line_width(line, size) for line in text.split("\n"))


@functools.lru_cache(maxsize=4096)
def _line_width(line: str, size: float) -> float:
    # a slider's redraw measures the same few labels again: once each per kernel
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    return text_to_path.get_text_width_height_descent(line, FontProperties(size=size), ismath=False)[0]


@dataclass
class Box:
    x: float   # centre, points
    y: float
    w: float
    h: float

    @property
    def left(self) -> float:
        return self.x - self.w / 2

    @property
    def right(self) -> float:
        return self.x + self.w / 2

    @property
    def top(self) -> float:
        return self.y + self.h / 2

    @property
    def bottom(self) -> float:
        return self.y - self.h / 2


def geometry(graph: Graph, texts: Mapping[int, str] | None = None,
             labels: Mapping[int, str] | None = None) -> dict[int, Box]:
    """Each node's box in points: columns from ``layout``, each as wide as its widest text,
    the gap after a column as wide as the widest edge label crossing it plus room for the
    arrowheads, rows as tall as the tallest box."""
    texts = texts or {n.id: _node_text(graph, n) for n in graph.nodes.values()}
    labels = labels or {}
    coords = layout(graph)
    size = {n: (text_width(t) + 2 * PAD_X, LINE_PT * (t.count("\n") + 1) + 2 * PAD_Y)
            for n, t in texts.items()}
    columns = sorted({x for x, _ in coords.values()})
    col_w = {c: max(size[n][0] for n, (x, _) in coords.items() if x == c) for c in columns}
    pitch = max(h for _, h in size.values()) + ROW_GAP
    gap = {c: 0.0 for c in columns}
    for i, edge in enumerate(graph.edges):
        c = coords[edge.src][0]
        gap[c] = max(gap[c], text_width(labels.get(i, "0.000")) + 2 * ARROW_ROOM)
    left, x_of = 0.0, {}
    for c in columns:
        x_of[c] = left + col_w[c] / 2
        left += col_w[c] + max(gap[c], 2 * ARROW_ROOM + 20)
    return {n: Box(x_of[x], y * pitch, *size[n]) for n, (x, y) in coords.items()}


def edge_route(boxes: Mapping[int, Box], src: int, dst: int, k: int = 0, many: int = 1,
               lane_rank: int = 0):
    """The drawn path of an edge (points) and the points along it where its label may sit
    (best first).

    Between neighbouring columns the edge stays in the gap (parallel edges, as in x * x,
    fan apart) and its label sits in the gap, clear of both boxes. An edge that skips
    columns runs in the gaps beside its ends and along a lane above (or below) every box in
    the columns it skips, so it never crosses a node; its label sits on the lane.
    """
    a, b = boxes[src], boxes[dst]
    start, end = (a.right, a.y), (b.left, b.y)
    between = [box for box in boxes.values() if a.x < box.x < b.x]
    if between:
        above = max(box.top for box in between) + LANE_GAP * (1 + lane_rank)
        below = min(box.bottom for box in between) - LANE_GAP * (1 + lane_rank)
        middle = (a.y + b.y) / 2
        lane = above if abs(above - middle) <= abs(below - middle) else below
        leave = min(a.h / 2 - PAD_Y, 0.3 * a.h) * (1 if lane > middle else -1)
        enter = min(b.h / 2 - PAD_Y, 0.3 * b.h) * (1 if lane > middle else -1)
        gx0 = a.right + ARROW_ROOM
        gx1 = b.left - ARROW_ROOM
        start, end = (a.right, a.y + leave), (b.left, b.y + enter)
        points = [start, (gx0, start[1]), (gx0, lane), (gx1, lane), (gx1, end[1]), end]
        spots = [(gx0 + t * (gx1 - gx0), lane) for t in (0.5, 0.3, 0.7, 0.15, 0.85)]
        return Path(points, [Path.MOVETO] + [Path.LINETO] * (len(points) - 1)), spots
    bend = (k - (many - 1) / 2) * 0.45 * max(a.h, b.h) if many > 1 else 0.0
    control = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + bend)
    path = Path([start, control, end], [Path.MOVETO, Path.CURVE3, Path.CURVE3])

    def at(t):
        u = 1 - t
        return (u * u * start[0] + 2 * u * t * control[0] + t * t * end[0],
                u * u * start[1] + 2 * u * t * control[1] + t * t * end[1])
    return path, [at(t) for t in (0.5, 0.38, 0.62, 0.3, 0.7)]


def _label_box(x: float, y: float, text: str) -> tuple[float, float, float, float]:
    w, h = text_width(text) + 4, LINE_PT + 2
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def _hits(r, others) -> bool:
    return any(r[0] < o[2] and o[0] < r[2] and r[1] < o[3] and o[1] < r[3] for o in others)


def draw_graph(graph: Graph, ax=None, title: str | None = None):
    """Leaves (green), operations (blue), output (orange); forward values on nodes,
    adjoints (red) on the edges they flow back along; a fan-out node shows their sum.

    The figure is sized to the graph (at least the explorer's 8 in wide), so that text is
    drawn at FONT_PT and never leaves its box."""
    if ax is None:
        ax = Figure(figsize=(8, 3.8)).add_subplot()
    fig = ax.figure
    texts = {n.id: _node_text(graph, n) for n in graph.nodes.values()}
    labels = {i: fmt(e.adjoint) for i, e in enumerate(graph.edges)}
    boxes = geometry(graph, texts, labels)
    taken = [(b.left, b.bottom, b.right, b.top) for b in boxes.values()]
    for node in graph.nodes.values():
        b = boxes[node.id]
        style = "round,pad=0,rounding_size=5" if node.kind != "op" else "round,pad=0,rounding_size=12"
        ax.add_artist(FancyBboxPatch((b.left, b.bottom), b.w, b.h, boxstyle=style,
                                     facecolor=COLOURS[node.kind], edgecolor=EDGES[node.kind],
                                     linewidth=2.2 if node.kind != "op" else 1.2, zorder=3))
        ax.text(b.x, b.y, texts[node.id], ha="center", va="center", fontsize=FONT_PT,
                linespacing=1.3, zorder=4)
    pairs: dict[tuple[int, int], int] = {}
    for edge in graph.edges:
        pairs[(edge.src, edge.dst)] = pairs.get((edge.src, edge.dst), 0) + 1
    rank: dict[tuple[int, int], int] = {}
    lanes = 0
    extent = [min(b.left for b in boxes.values()), min(b.bottom for b in boxes.values()),
              max(b.right for b in boxes.values()), max(b.top for b in boxes.values())]
    for i, edge in enumerate(graph.edges):
        k = rank.get((edge.src, edge.dst), 0)
        rank[(edge.src, edge.dst)] = k + 1
        skips = any(boxes[edge.src].x < b.x < boxes[edge.dst].x for b in boxes.values())
        path, spots = edge_route(boxes, edge.src, edge.dst, k, pairs[(edge.src, edge.dst)],
                                 lane_rank=lanes if skips else 0)
        lanes += skips
        bounds = path.get_extents()
        extent = [min(extent[0], bounds.x0), min(extent[1], bounds.y0),
                  max(extent[2], bounds.x1), max(extent[3], bounds.y1)]
        ax.add_artist(FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=HEAD_PT,
                                      color="#555555", linewidth=1.0, zorder=2,
                                      shrinkA=0, shrinkB=0))
        # the first spot along the edge where the label covers no box and no other label
        spot = next((s for s in spots if not _hits(_label_box(*s, labels[i]), taken)), spots[0])
        taken.append(_label_box(*spot, labels[i]))
        extent = [min(extent[0], taken[-1][0]), min(extent[1], taken[-1][1]),
                  max(extent[2], taken[-1][2]), max(extent[3], taken[-1][3])]
        ax.text(*spot, labels[i], ha="center", va="center", fontsize=FONT_PT, color=ADJOINT,
                zorder=5, bbox=dict(boxstyle="round,pad=0.15", facecolor="white",
                                    edgecolor="none", alpha=0.85))
    margin, head = 10.0, 2 * LINE_PT + 14   # around the graph; the title's two lines
    width_pt = max(8 * 72, extent[2] - extent[0] + 2 * margin)
    height_pt = extent[3] - extent[1] + 2 * margin + head
    fig.set_size_inches(width_pt / 72, height_pt / 72)
    ax.set_position([0, 0, 1, (height_pt - head) / height_pt])
    cx = (extent[0] + extent[2]) / 2
    ax.set_xlim(cx - width_pt / 2, cx + width_pt / 2)
    ax.set_ylim(extent[1] - margin, extent[3] + margin)
    ax.set_aspect("equal", adjustable="box", anchor="C")
    ax.set_axis_off()
    if title is None:
        leaves = ";  ".join(f"{n.label}.grad = {fmt(n.grad)}" for n in graph.leaves())
        out = graph.nodes[graph.output]
        title = f"{out.label} = {fmt(out.value)};  {leaves}"
    fig.text(0.5, 1 - 6 / height_pt, title + "\n(black: forward value; red: adjoint flowing back "
             "along the edge)", ha="center", va="top", fontsize=FONT_PT, linespacing=1.3)
    return fig


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
                        title="the seed graph: c = a·b, d = c + a, L = d²",
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
