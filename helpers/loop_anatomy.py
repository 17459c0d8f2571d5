"""The training-loop anatomy: what each of the five lines leaves behind.

Three layers:

* model   ``record(order, iterations, lr, set_to_none)`` runs the lines of a training
  loop in the order given, on a real ``nn.Linear(2, 1)`` with an SGD optimizer, and after
  every line reads the state from torch itself: whether a graph exists and how many
  autograd nodes it has, whether backward has freed its saved tensors, each parameter's
  ``.grad`` (None, zeros or values) and how far the line moved each parameter.
* draw    ``draw_anatomy(anatomy, ax=None)``: one row per executed line.
* explore ``explore(order=..., upto=..., set_to_none=...)``: type an order (drop or swap
  lines) and step through the rows with a slider.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from torch import nn

LINES = ("zero_grad", "forward", "loss", "backward", "step")
CODE = {
    "zero_grad": "optimizer.zero_grad()",
    "forward": "out = model(x)",
    "loss": "loss = loss_fn(out, y)",
    "backward": "loss.backward()",
    "step": "optimizer.step()",
}
DEFAULT_ORDER = ", ".join(LINES)
FIGSIZE = (9.5, 3.9)

# ---------------------------------------------------------------------------- model


@dataclass
class ParamState:
    name: str
    grad: str                          # "None", "zeros" or "values"
    grad_value: torch.Tensor | None = field(repr=False)
    value: torch.Tensor = field(repr=False)
    moved: float                       # size (L2 norm) of this line's change to the parameter


@dataclass
class LineState:
    iteration: int                     # 1, 2, ...
    line: str                          # one of LINES
    graph_nodes: int                   # autograd nodes reachable from the newest of out, loss; 0: none
    graph_freed: bool                  # backward released the graph's saved tensors
    params: list[ParamState]
    loss: float | None

    def param(self, name: str) -> ParamState:
        return next(p for p in self.params if p.name == name)


@dataclass
class Anatomy:
    order: tuple[str, ...]
    lr: float
    set_to_none: bool
    states: list[LineState]


def parse_order(text: str) -> tuple[str, ...]:
    """``"zero_grad, forward, loss, backward, step"`` -> a checked tuple of line names.

    Lines may be dropped or swapped, but a loss needs a forward before it and backward
    needs a loss before it (in the same iteration); each line appears at most once.
    """
    words = tuple(w.strip().lower().removeprefix("optimizer.").removesuffix("()")
                  for w in text.replace(";", ",").split(",") if w.strip())
    if not words:
        raise ValueError("type at least one line, e.g. " + DEFAULT_ORDER)
    for word in words:
        if word not in LINES:
            raise ValueError(f"unknown line {word!r}: use {', '.join(LINES)}")
    for word in set(words):
        if words.count(word) > 1:
            raise ValueError(f"{word} appears {words.count(word)} times: one of each line per iteration")
    if "loss" in words and ("forward" not in words or words.index("forward") > words.index("loss")):
        raise ValueError("the loss needs the model's output: put forward before loss")
    if "backward" in words and ("loss" not in words or words.index("loss") > words.index("backward")):
        raise ValueError("backward needs a loss to start from: put loss before backward")
    return words


def count_nodes(tensor: torch.Tensor | None) -> int:
    """Autograd nodes reachable from ``tensor.grad_fn`` (AccumulateGrad nodes included)."""
    return sum(1 for _ in _graph_nodes(tensor))


def _graph_nodes(tensor: torch.Tensor | None):
    """Every node reachable from ``tensor.grad_fn``, each once."""
    if tensor is None or tensor.grad_fn is None:
        return
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        yield fn
        todo.extend(child for child, _ in fn.next_functions)


def saved_tensors_freed(tensor: torch.Tensor | None) -> bool:
    """True when some node of the graph had saved tensors that backward has released.

    Torch raises when a freed saved tensor is read, which is what this asks.
    """
    for fn in _graph_nodes(tensor):
        for attr in dir(fn):
            if attr.startswith("_saved_"):
                try:
                    getattr(fn, attr)
                except RuntimeError:
                    return True
    return False


def _grad_state(p: torch.Tensor) -> str:
    if p.grad is None:
        return "None"
    return "zeros" if not p.grad.any() else "values"


def tiny_problem():
    """The model and data every recording uses: Linear(2, 1) on three points, MSE."""
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.5, -0.3]]))
        model.bias.copy_(torch.tensor([0.1]))
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.5]])
    y = torch.tensor([[1.0], [0.0], [2.0]])
    return model, x, y


def record(order: str | tuple[str, ...] = LINES, iterations: int = 2, lr: float = 0.1,
           set_to_none: bool = True) -> Anatomy:
    """Run the lines in ``order`` for ``iterations`` iterations and record each line's state."""
    if isinstance(order, str):
        order = parse_order(order)
    else:
        order = parse_order(", ".join(order))
    if not lr > 0:
        raise ValueError(f"the learning rate must be positive, got {lr}")
    model, x, y = tiny_problem()
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    named = list(model.named_parameters())
    out = loss = newest = None  # like a real loop: they live on until reassigned
    states = []
    for iteration in range(1, iterations + 1):
        for line in order:
            before = {name: p.detach().clone() for name, p in named}
            if line == "zero_grad":
                optimizer.zero_grad(set_to_none=set_to_none)
            elif line == "forward":
                out = newest = model(x)
            elif line == "loss":
                loss = newest = loss_fn(out, y)
            elif line == "backward":
                loss.backward()
            elif line == "step":
                optimizer.step()
            params = [ParamState(name, _grad_state(p),
                                 None if p.grad is None else p.grad.detach().clone(),
                                 p.detach().clone(),
                                 float((p.detach() - before[name]).norm()))
                      for name, p in named]
            states.append(LineState(iteration, line, count_nodes(newest),
                                    saved_tensors_freed(newest), params,
                                    None if loss is None else loss.item()))
    return Anatomy(order, lr, set_to_none, states)


# ---------------------------------------------------------------------------- draw

COLOURS = {"None": "#e0e0e0", "zeros": "#fff2b3", "values": "#cfe3ff"}
MOVED = "#c8eccb"


def _fmt(t: torch.Tensor | None) -> str:
    if t is None:
        return "None"
    return "[" + ", ".join(f"{v:+.3f}" for v in t.flatten().tolist()) + "]"


def draw_anatomy(anatomy: Anatomy, ax=None, upto: int | None = None):
    """A table: one row per executed line, the newest (row ``upto``) highlighted."""
    if ax is None:
        ax = Figure(figsize=FIGSIZE).add_subplot()
    ax.set_position([0.01, 0.01, 0.98, 0.9])  # a table: no axes to leave room for
    ax.set_axis_off()
    states = anatomy.states
    shown = len(states) if upto is None else max(1, min(upto, len(states)))
    columns = ["#", "line (iteration: code)", "graph", "weight.grad", "bias.grad", "Δ weight", "Δ bias"]
    # the highlight box of the newest row spans 0.0..0.935, the text starts 0.008 inside it
    xs = [0.008, 0.038, 0.283, 0.413, 0.593, 0.728, 0.828]
    ends = xs[1:] + [0.928]
    rows = len(states) + 1
    height = 1.0 / (rows + 0.5)
    size = 9
    for x, name in zip(xs, columns):
        _text(ax, x, 1 - height / 2, name, fontsize=size, fontweight="bold", va="center")
    for i, state in enumerate(states):
        y = 1 - (i + 1.5) * height
        faded = i >= shown
        alpha = 0.25 if faded else 1.0
        if i == shown - 1:
            _box(ax, 0.0, y - height / 2, 0.935, height, "#fff7e0", 1.0, edge="#e09000")
        if state.graph_nodes == 0:
            graph = "no graph"
        else:
            graph = f"{state.graph_nodes} nodes" + (", freed" if state.graph_freed else ", alive")
        w, b = state.param("weight"), state.param("bias")
        cells = [(str(i + 1), None), (f"{state.iteration}: {CODE[state.line]}", None),
                 (graph, None),
                 (_fmt(w.grad_value), COLOURS[w.grad]), (_fmt(b.grad_value), COLOURS[b.grad]),
                 (f"{w.moved:.3f}", MOVED if w.moved > 0 else None),
                 (f"{b.moved:.3f}", MOVED if b.moved > 0 else None)]
        for k, (text, colour) in enumerate(cells):
            if colour and not faded:
                _box(ax, xs[k] - 0.005, y - height * 0.42, ends[k] - xs[k] - 0.005,
                     height * 0.84, colour, alpha)
            _text(ax, xs[k], y, text, fontsize=size, va="center", alpha=alpha,
                  family="monospace" if k in (1, 3, 4) else None)
    ax.set_title(f"order: {', '.join(anatomy.order)}   (SGD lr {anatomy.lr:g}, "
                 f"zero_grad sets {'None' if anatomy.set_to_none else 'zeros'})", fontsize=9)
    return ax.figure


# The table's texts and boxes are placed in the Axes' coordinates but held by the figure:
# an Axes clips every text and patch it holds to its own outline, and setting up those clip
# paths for some eighty artists was most of this picture's drawing time (the Axes is off
# and the table lies inside it, so nothing needs clipping).


def _text(ax, x, y, text, **style):
    return ax.figure.add_artist(Text(x, y, text, transform=ax.transAxes, **style))


def _box(ax, x, y, w, h, colour, alpha, edge=None):
    return ax.figure.add_artist(Rectangle((x, y), w, h, facecolor=colour, alpha=alpha,
                                          transform=ax.transAxes, edgecolor=edge or "none",
                                          linewidth=1 if edge else 0))


# ---------------------------------------------------------------------------- explore


ITERATIONS = 2  # the explorer records two iterations of the loop


def rows_of(order: str) -> int:
    """How many rows the table has for ``order``: one per line, per iteration."""
    return ITERATIONS * len(parse_order(order))


def explore(order: str = DEFAULT_ORDER, upto: int = 10, set_to_none: bool = True,
            lr: float = 0.1):
    """Type an order of lines and step through two iterations of the loop."""
    import ipywidgets as widgets

    from helpers.explorer import Explorer

    try:
        rows = rows_of(order)
    except ValueError:  # the explorer says why; the slider offers every row a loop can have
        rows = ITERATIONS * len(LINES)
    controls = {
        "order": widgets.Text(value=order, description="order", continuous_update=False,
                              layout=widgets.Layout(width="430px")),
        "upto": widgets.IntSlider(value=min(upto, rows), min=1, max=rows, description="show rows"),
        "set_to_none": widgets.Checkbox(value=set_to_none, description="zero_grad sets None"),
    }

    def rows_follow_the_order(change):
        # the slider ends at the last row this order has (two iterations of its lines); one
        # that showed every row still does. (Observed before the Explorer's own observer.)
        slider = controls["upto"]
        try:
            new = rows_of(change["new"])
        except ValueError:  # the explorer says why; the slider stays as it was
            return
        showed_all = slider.value == slider.max
        if new > slider.max:
            slider.max = new
        slider.value = new if showed_all else min(slider.value, new)
        slider.max = new
    controls["order"].observe(rows_follow_the_order, names="value")

    def model(order, upto, set_to_none):
        return record(order, ITERATIONS, lr, set_to_none), upto

    def draw(result, ax=None):
        anatomy, shown = result
        return draw_anatomy(anatomy, ax=ax, upto=shown)

    return Explorer(controls, model, draw,
                    title="Training-loop anatomy: two iterations on nn.Linear(2, 1), MSE loss",
                    figsize=FIGSIZE)
