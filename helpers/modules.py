"""Module inspector: what an ``nn.Module`` registers, and what it only seems to hold.

Three layers:

* model   ``inspect(module)`` -> ``Inventory``: the tree of submodules as ``named_modules``
  walks it, each node with its own parameters (name, shape, count, trainable or frozen),
  its buffers, the tensors and layers it holds *without registering them* (a plain tensor
  attribute, layers kept in a Python list or dict), and totals per subtree.
  ``probe(module, mode, freeze)`` adds what the explorer shows: the same input through a
  copy of the module twice, in train() or eval() mode or with each submodule's mode as the
  model has it ("as set"), with a chosen submodule frozen. Every node carries its mode.
* draw    ``draw_inspector(inventory, ax=None)``.
* explore ``explore(models)``: pick a model, toggle as set/train/eval, freeze a submodule.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import torch
from matplotlib.figure import Figure
from torch import nn

from helpers import hand_axes

# ---------------------------------------------------------------------------- model

# Module.__dict__ entries that are torch's own registries (their contents are registered)
_REGISTRIES = {"_parameters", "_buffers", "_modules"}


@dataclass
class Entry:
    """One tensor a module owns: a parameter, a buffer, or something unregistered."""
    name: str                 # qualified, as named_parameters / named_buffers spell it
    kind: str                 # "parameter" | "buffer" | "unregistered"
    shape: tuple[int, ...]
    numel: int
    trainable: bool = False   # parameters only: requires_grad
    what: str = ""            # unregistered only: "plain tensor", "Python list of 2 modules"


@dataclass
class Node:
    """One submodule: its own entries and the totals of its subtree."""
    name: str                 # qualified name ("" for the root)
    type_name: str
    depth: int
    training: bool = True     # this submodule's own mode flag
    entries: list[Entry] = field(default_factory=list)
    children: list["Node"] = field(default_factory=list)
    total: int = 0            # parameters in this subtree (each shared one counted once)
    trainable: int = 0
    buffers: int = 0          # buffer elements in this subtree
    unregistered: int = 0     # elements the optimizer will not see in this subtree


@dataclass
class Inventory:
    root: Node
    nodes: list[Node]         # in named_modules order
    total: int
    trainable: int
    frozen: int
    buffers: int
    unregistered: int
    mode: str = ""            # "as set" | "train" | "eval" after probe()
    outputs: list[list[float]] = field(default_factory=list)  # two passes, first sample
    note: str = ""

    @property
    def parameters(self) -> list[Entry]:
        return [e for n in self.nodes for e in n.entries if e.kind == "parameter"]

    @property
    def buffer_entries(self) -> list[Entry]:
        return [e for n in self.nodes for e in n.entries if e.kind == "buffer"]

    @property
    def unregistered_entries(self) -> list[Entry]:
        return [e for n in self.nodes for e in n.entries if e.kind == "unregistered"]


def _qualified(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _hidden(value) -> tuple[str, int, tuple[int, ...]] | None:
    """(description, elements, shape) of an attribute that holds tensors or modules torch
    does not know about; None for anything else."""
    if isinstance(value, torch.Tensor):
        what = "plain tensor" if not isinstance(value, nn.Parameter) else "unregistered Parameter"
        return what, value.numel(), tuple(value.shape)
    if isinstance(value, dict):
        items, container = list(value.values()), "dict"
    elif isinstance(value, (list, tuple)):
        items, container = list(value), "list" if isinstance(value, list) else "tuple"
    else:
        return None
    modules = [v for v in items if isinstance(v, nn.Module)]
    tensors = [v for v in items if isinstance(v, torch.Tensor)]
    if not modules and not tensors:
        return None
    elements = (sum(p.numel() for m in modules for p in m.parameters())
                + sum(t.numel() for t in tensors))
    parts = []
    if modules:
        parts.append(f"{len(modules)} module{'s' * (len(modules) != 1)}")
    if tensors:
        parts.append(f"{len(tensors)} tensor{'s' * (len(tensors) != 1)}")
    return f"Python {container} of {' and '.join(parts)}", elements, (len(items),)


def inspect(module: nn.Module) -> Inventory:
    """The registration tree of ``module``, walked like ``named_modules`` (a module reached
    twice is listed once; a parameter shared by two modules is counted once)."""
    if not isinstance(module, nn.Module):
        raise ValueError(f"inspect needs an nn.Module, got {type(module).__name__}")
    seen_modules: set[int] = set()
    seen_params: set[int] = set()
    seen_buffers: set[int] = set()
    nodes: list[Node] = []

    def walk(mod: nn.Module, name: str, depth: int) -> tuple[Node, dict, dict]:
        """The node, and every parameter and buffer of its subtree by id (a subtree's
        totals count a tensor it shares with another subtree, as ``sub.parameters()`` does)."""
        seen_modules.add(id(mod))
        node = Node(name, type(mod).__name__, depth, mod.training)
        nodes.append(node)
        params = {id(p): p for p in mod._parameters.values() if p is not None}
        buffers = {id(b): b for b in mod._buffers.values() if b is not None}
        for pname, p in mod._parameters.items():
            if p is None or id(p) in seen_params:
                continue
            seen_params.add(id(p))
            node.entries.append(Entry(_qualified(name, pname), "parameter", tuple(p.shape),
                                      p.numel(), bool(p.requires_grad)))
        for bname, b in mod._buffers.items():
            if b is None or id(b) in seen_buffers:
                continue
            seen_buffers.add(id(b))
            node.entries.append(Entry(_qualified(name, bname), "buffer", tuple(b.shape), b.numel()))
        for attr, value in vars(mod).items():
            if attr in _REGISTRIES:
                continue
            hidden = _hidden(value)
            if hidden is not None:
                what, elements, shape = hidden
                node.entries.append(Entry(_qualified(name, attr), "unregistered", shape,
                                          elements, what=what))
                node.unregistered += elements
        for cname, child in mod._modules.items():
            if child is None:
                continue
            if id(child) in seen_modules:  # listed once, where named_modules lists it
                params.update((id(p), p) for p in child.parameters())
                buffers.update((id(b), b) for b in child.buffers())
                continue
            sub, sub_params, sub_buffers = walk(child, _qualified(name, cname), depth + 1)
            node.children.append(sub)
            params.update(sub_params)
            buffers.update(sub_buffers)
            node.unregistered += sub.unregistered
        node.total = sum(p.numel() for p in params.values())
        node.trainable = sum(p.numel() for p in params.values() if p.requires_grad)
        node.buffers = sum(b.numel() for b in buffers.values())
        return node, params, buffers

    root = walk(module, "", 0)[0]
    return Inventory(root, nodes, root.total, root.trainable, root.total - root.trainable,
                     root.buffers, root.unregistered)


def example_input(module: nn.Module, batch: int = 4, seed: int = 0, side: int = 8) -> torch.Tensor | None:
    """A batch for the first layer that says what it takes: a Linear or BatchNorm1d its
    width, a Conv2d or BatchNorm2d its channels (images side × side), a Conv1d its channels
    (sequences of side·2), an Embedding token ids, an Unflatten at dimension 1 the flat
    rows it unflattens. None when no layer says."""
    gen = torch.Generator().manual_seed(seed)
    for sub in module.modules():
        if isinstance(sub, nn.Embedding):
            return torch.randint(0, sub.num_embeddings, (batch, 6), generator=gen)
        if isinstance(sub, nn.Unflatten) and sub.dim in (1, -1) and isinstance(sub.unflattened_size, tuple):
            width = 1
            for size in sub.unflattened_size:
                width *= int(size)
            return torch.randn(batch, width, generator=gen)
        if isinstance(sub, (nn.Conv2d, nn.BatchNorm2d)):
            channels = sub.in_channels if isinstance(sub, nn.Conv2d) else sub.num_features
            return torch.randn(batch, channels, side, side, generator=gen)
        if isinstance(sub, nn.Conv1d):
            return torch.randn(batch, sub.in_channels, 2 * side, generator=gen)
        width = getattr(sub, "in_features", None) or (
            sub.num_features if isinstance(sub, nn.BatchNorm1d) else None)
        if width:
            return torch.randn(batch, width, generator=gen)
    return None


MODES = ("as set", "train", "eval")  # "as set": each submodule keeps the mode the model gave it


def probe(module: nn.Module, mode: str = "train", freeze: str = "(nothing)",
          x: torch.Tensor | None = None, shown: int = 8) -> Inventory:
    """``inspect`` of a copy of ``module`` set to ``mode`` with submodule ``freeze`` frozen,
    and the same input sent through it twice (seeded: the run is repeatable)."""
    if mode not in MODES:
        raise ValueError(f"mode is one of {', '.join(map(repr, MODES))}, got {mode!r}")
    if not isinstance(module, nn.Module):
        raise ValueError(f"the inspector needs an nn.Module, got {type(module).__name__}")
    work = copy.deepcopy(module)  # the notebook's own model keeps its mode and its flags
    if mode != "as set":
        work.train(mode == "train")
    if freeze not in ("(nothing)", "", None):
        names = dict(work.named_modules())
        if freeze not in names:
            raise ValueError(f"{type(module).__name__} has no submodule named {freeze!r}")
        names[freeze].requires_grad_(False)
    inventory = inspect(work)
    inventory.mode = mode
    x = example_input(work) if x is None else x
    notes = []
    if x is None:
        notes.append("no layer tells the input's shape: no forward pass shown")
    else:
        try:
            with torch.no_grad(), torch.random.fork_rng():
                passes = []
                for seed in (1, 2):
                    torch.manual_seed(seed)
                    passes.append(work(x)[0].flatten()[:shown].tolist())
            inventory.outputs = passes
            gap = max(abs(a - b) for a, b in zip(*passes))
            said = "modes as set" if mode == "as set" else f"{mode} mode"
            notes.append(f"{said}: the two passes over the same input differ by up to {gap:.3g}"
                         if gap else f"{said}: the two passes over the same input give identical outputs")
        except NotImplementedError:
            notes.append(f"{type(work).__name__} defines no forward(): nothing to run")
        except Exception as error:  # the student's model: say what went wrong, draw the tree
            notes.append(f"forward failed: {type(error).__name__}: {str(error).splitlines()[0][:90]}")
    if inventory.unregistered:
        notes.append(f"{inventory.unregistered:,} elements are not registered: parameters() "
                     "and the optimizer do not see them")
    inventory.note = "; ".join(notes)
    return inventory


# ---------------------------------------------------------------------------- draw

COLOURS = {"parameter": "#1f4e9c", "frozen": "#8a8a8a", "buffer": "#1b7f5b",
           "unregistered": "#c0392b", "module": "#222222"}
MAX_ROWS = 24


def _rows(inventory: Inventory) -> list[tuple[int, str, str, str]]:
    """(indent, left text, right text, colour key) per drawn line."""
    rows = []
    for node in inventory.nodes:
        label = f"{node.name or '(model)'}: {node.type_name} · {'train' if node.training else 'eval'}"
        rows.append((node.depth, label, f"{node.total:,} params", "module"))
        for e in node.entries:
            leaf = e.name.rsplit(".", 1)[-1]
            shape = "×".join(map(str, e.shape)) or "scalar"
            if e.kind == "parameter":
                key = "parameter" if e.trainable else "frozen"
                right = f"{e.numel:,}" + ("" if e.trainable else " · frozen")
                rows.append((node.depth + 1, f"{leaf}  ({shape})", right, key))
            elif e.kind == "buffer":
                rows.append((node.depth + 1, f"{leaf}  ({shape})  buffer", f"{e.numel:,}", "buffer"))
            else:
                rows.append((node.depth + 1, f"{leaf}: {e.what}", f"{e.numel:,} · NOT REGISTERED",
                             "unregistered"))
    return rows


def draw_inspector(inventory: Inventory, ax=None):
    """The tree with counts (left, as figure text) and, after ``probe``, the two passes'
    outputs (right, in ``ax``; without outputs ``ax`` is removed). Figure text instead of a
    second axes: each axes costs its ticks on every redraw."""
    if ax is None:
        ax = Figure(figsize=(9, 5)).add_subplot()
    fig = ax.figure
    has_outputs = bool(inventory.outputs)
    left, right, top, bottom = 0.02, (0.6 if has_outputs else 0.98), 0.86, 0.02
    rows = _rows(inventory)
    extra = len(rows) - MAX_ROWS
    if extra > 0:
        rows = rows[:MAX_ROWS - 1] + [(0, f"… {extra + 1} more lines", "", "module")]
    step = (top - bottom) / max(len(rows), 12)
    for k, (indent, text, count, key) in enumerate(rows):
        y = top - (k + 0.5) * step
        weight = "bold" if key == "module" else "normal"
        style = "italic" if key == "buffer" else "normal"
        fig.text(left + 0.02 * indent, y, text, color=COLOURS[key], fontsize=9,
                 fontweight=weight, fontstyle=style, va="center", family="monospace")
        fig.text(right, y, count, color=COLOURS[key], fontsize=9, fontweight=weight,
                 va="center", ha="right", family="monospace")
    summary = (f"{inventory.total:,} parameters: {inventory.trainable:,} trainable, "
               f"{inventory.frozen:,} frozen · {inventory.buffers:,} buffer elements")
    if inventory.unregistered:
        summary += f" · {inventory.unregistered:,} NOT registered"
    fig.text(0.01, 0.97, summary, fontsize=10, fontweight="bold", va="top")
    # " · " rather than runs of spaces: SVG text collapses repeated spaces
    fig.text(0.01, 0.915, "blue: trainable · grey: frozen · green italic: buffer · "
             "red: invisible to parameters() and state_dict()", fontsize=9, va="top",
             color="#444444")
    if not has_outputs:
        ax.remove()
        return fig
    ax.set_position([0.7, 0.14, 0.28, 0.66])
    first, second = inventory.outputs
    idx = range(len(first))
    width = 0.4
    ax.bar([i - width / 2 for i in idx], first, width, color="#1f4e9c", label="pass 1")
    ax.bar([i + width / 2 for i in idx], second, width, color="#f39c12", label="pass 2")
    ax.axhline(0, color="#444444", lw=0.6)
    ax.set_xlim(-0.6, len(first) - 0.4)
    # the axes drawn by hand: matplotlib's tick objects were half of an update's drawing
    hand_axes.frame(ax)
    hand_axes.y_axis(ax)
    hand_axes.x_axis(ax, "output value index (sample 0)", ticks=list(idx),
                     labels=[str(i) for i in idx])
    ax.text(0.5, 1.02, "same input, twice, " + ("modes as set" if inventory.mode == "as set"
                                                else f"in {inventory.mode}()"),
            transform=ax.transAxes, fontsize=10, ha="center", va="bottom")
    ax.legend(fontsize=9, loc="best")
    return fig


# ---------------------------------------------------------------------------- explore


def explore(models: dict[str, nn.Module] | None = None, mode: str = "train",
            freeze: str = "(nothing)"):
    """Pick a model, toggle train()/eval(), freeze one submodule: the tree and two passes.

    ``models`` maps a label to a module or to ``(module, input batch)`` (the notebook passes
    its own); each is copied before
    it is changed, so the notebook's models keep their mode and their requires_grad flags."""
    import ipywidgets as widgets

    from .explorer import Explorer

    if models is None:
        torch.manual_seed(0)
        models = {"MLP with dropout and batch norm": nn.Sequential(
            nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4))}
    if not models:
        raise ValueError("explore needs at least one model")
    # a label may map to (module, input) when the input width cannot be read off a layer
    inputs = {k: v[1] if isinstance(v, tuple) else None for k, v in models.items()}
    models = {k: v[0] if isinstance(v, tuple) else v for k, v in models.items()}
    first = next(iter(models))

    def submodules(label):
        return ["(nothing)"] + [n for n, _ in models[label].named_modules() if n]

    controls = {
        "model": widgets.Dropdown(options=list(models), value=first, description="model",
                                  layout=widgets.Layout(width="360px")),
        # a row, label beside the buttons: by default ipywidgets puts the label above them
        "mode": widgets.ToggleButtons(options=list(MODES), value=mode, description="mode",
                                      style={"button_width": "70px", "description_width": "initial"},
                                      layout=widgets.Layout(display="flex", flex_flow="row",
                                                            margin="2px 2px 2px 30px",
                                                            align_items="center")),
        "freeze": widgets.Dropdown(options=submodules(first), value=freeze
                                   if freeze in submodules(first) else "(nothing)",
                                   description="freeze", layout=widgets.Layout(width="260px")),
    }

    def follow(change):
        # a new model has other submodules: offer its own, starting from "(nothing)"
        controls["freeze"].options = submodules(change["new"])
        controls["freeze"].value = "(nothing)"

    controls["model"].observe(follow, names="value")

    from .activations import single_threaded

    @single_threaded
    def model(model, mode, freeze):
        if freeze not in submodules(model):
            raise ValueError(f"{model} has no submodule {freeze!r}: pick one from the list")
        return probe(models[model], mode, freeze, inputs[model])

    return Explorer(controls, model, draw_inspector,
                    title="Module inspector: what the model registers", figsize=(9, 5))


explore_inspector = explore
