"""Activation explorer: what each layer of a deep MLP outputs, read by forward hooks.

Three layers:

* model   ``deep_mlp(depth, activation, init_scale)`` builds the network;
  ``collect(model, x)`` registers a forward hook on every activation module, runs one
  forward pass, removes every hook (also when the pass fails) and returns ``LayerStats``
  per layer: standard deviation, units dead for the whole batch, saturated share, a
  histogram. ``run(...)`` is the instrument's experiment from its control values.
* draw    ``draw_activations(result, ax=None)``: one histogram per layer, stacked.
* explore ``explore()``: depth, activation and initialisation scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from torch import nn

ACTIVATIONS = {"ReLU": nn.ReLU, "tanh": nn.Tanh, "GELU": nn.GELU}
SATURATED = 0.99      # |tanh| above this: the unit's local slope is below 0.02
BINS = 40

# ---------------------------------------------------------------------------- model


@dataclass
class LayerStats:
    name: str                 # the activation module's name in the model
    mean: float
    std: float
    dead_units: int           # units whose output is exactly 0 for every input in the batch
    saturated: float          # share of outputs with |a| > SATURATED
    units: int
    counts: list[int] = field(default_factory=list)
    edges: list[float] = field(default_factory=list)


@dataclass
class Activations:
    activation: str
    init_scale: float
    layers: list[LayerStats]
    note: str = ""


def deep_mlp(depth: int = 6, activation: str = "ReLU", init_scale: float = 1.0,
             width: int = 64, seed: int = 0) -> nn.Sequential:
    """``depth`` Linear+activation blocks; weights drawn with std init_scale/sqrt(fan_in),
    biases 0 (so init_scale = sqrt(2) is Kaiming's ReLU initialisation)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation is one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if not 1 <= int(depth) <= 50:
        raise ValueError(f"depth must be between 1 and 50 layers, got {depth}")
    if not (math.isfinite(init_scale) and init_scale > 0):
        raise ValueError(f"the initialisation scale must be a positive number, got {init_scale}: "
                         "with 0 every weight is 0 and every layer outputs the same value")
    gen = torch.Generator().manual_seed(seed)
    layers = []
    for _ in range(int(depth)):
        linear = nn.Linear(width, width)
        with torch.no_grad():
            linear.weight.copy_(torch.randn(width, width, generator=gen) * init_scale / math.sqrt(width))
            linear.bias.zero_()
        layers += [linear, ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


def _stats(name: str, out: torch.Tensor, lo: float, hi: float) -> LayerStats:
    flat = out.detach().reshape(len(out), -1).to(torch.float64)
    # values beyond the drawn range land in the edge bins, so every value is counted
    counts = torch.histc(flat.clamp(lo, hi), bins=BINS, min=lo, max=hi)
    return LayerStats(name, flat.mean().item(), flat.std().item(),
                      int((flat == 0).all(dim=0).sum()), (flat.abs() > SATURATED).double().mean().item(),
                      flat.shape[1], [int(c) for c in counts.tolist()],
                      torch.linspace(lo, hi, BINS + 1).tolist())


def _percentile_abs(out: torch.Tensor, q: float) -> float:
    """The q-quantile of |out| (kthvalue: a selection, not quantile's full sort)."""
    flat = out.abs().flatten()
    return flat.kthvalue(max(1, math.ceil(q * flat.numel()))).values.item()


def single_threaded(function):
    """Run ``function`` with one torch thread: these tensors are small, and on a busy
    machine a second thread mostly waits for a core (4-10x slower updates measured)."""
    import functools

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return function(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)
    return wrapper


def collect(model: nn.Module, x: torch.Tensor, kinds: tuple | None = None,
            range_: tuple[float, float] | None = None) -> list[LayerStats]:
    """Statistics of every ``kinds`` module's output in one forward pass, via forward hooks.

    Every hook is removed before returning, also when the forward pass raises."""
    kinds = tuple(ACTIVATIONS.values()) if kinds is None else kinds
    outputs: list[tuple[str, torch.Tensor]] = []
    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, kinds):
                handles.append(module.register_forward_hook(
                    lambda mod, inputs, out, name=name: outputs.append((name, out.detach()))))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    if range_ is None:
        # the 99.5th percentile, not the maximum: one outlier would squeeze every histogram
        top = max((_percentile_abs(o, 0.995) for _, o in outputs), default=1.0)
        range_ = (-top, top) if any(o.min() < 0 for _, o in outputs) else (0.0, top)
    lo, hi = range_
    if hi <= lo:
        hi = lo + 1.0
    return [_stats(name, out, lo, hi) for name, out in outputs]


def run(depth: int = 6, activation: str = "ReLU", init_scale: float = 1.0,
        width: int = 64, batch: int = 256, seed: int = 0) -> Activations:
    """The instrument's experiment: a batch of standard-normal inputs through ``deep_mlp``."""
    model = deep_mlp(depth, activation, init_scale, width, seed)
    x = torch.randn(batch, width, generator=torch.Generator().manual_seed(seed + 1))
    layers = collect(model, x)
    first, last = layers[0], layers[-1]
    note = f"std of the outputs: layer 1 {first.std:.3g}, layer {len(layers)} {last.std:.3g}"
    if activation == "ReLU":
        note += f"; dead units in the last layer: {last.dead_units} of {last.units}"
    if activation == "tanh":
        note += f"; saturated (|a| > {SATURATED}) in the last layer: {last.saturated:.0%}"
    return Activations(activation, init_scale, layers, note)


# ---------------------------------------------------------------------------- draw


def draw_activations(result: Activations, ax=None):
    """One histogram row per layer (layer 1 on top), with std and dead/saturated counts."""
    if ax is None:
        ax = Figure(figsize=(8, 4.6)).add_subplot()
    fig = ax.figure
    ax.set_position([0.1, 0.11, 0.6, 0.77])
    n = len(result.layers)
    colour = {"ReLU": "#1f4e9c", "tanh": "#b35806", "GELU": "#1b7f5b"}[result.activation]
    # one collection for all bars and one for all baselines, labels as plain text: per-layer
    # artists and y ticks were most of an update's time at depth 12
    polygons, labels = [], ax.get_yaxis_transform()
    for k, layer in enumerate(result.layers):
        base = n - 1 - k
        counts = torch.tensor(layer.counts, dtype=torch.float64)
        # square-root heights: ReLU's spike at 0 would otherwise flatten everything else
        height = (counts.sqrt() / counts.max().clamp(min=1).sqrt() * 0.9).tolist()
        edges = layer.edges
        for left, right, h in zip(edges[:-1], edges[1:], height):
            if h > 0:
                polygons.append([(left, base), (left, base + h), (right, base + h), (right, base)])
        extra = ""
        if result.activation == "ReLU":
            extra = f" · dead {layer.dead_units}/{layer.units}"
        elif result.activation == "tanh":
            extra = f" · saturated {layer.saturated:.0%}"
        ax.text(1.02, base + 0.35, f"std {layer.std:.3g}{extra}", transform=labels,
                fontsize=9, va="center", family="monospace")
        ax.text(-0.02, base + 0.35, f"layer {k + 1}", transform=labels, fontsize=9,
                va="center", ha="right")
    ax.add_collection(PolyCollection(polygons, facecolors=colour, alpha=0.75, linewidths=0))
    ax.hlines(range(n), 0, 1, transform=labels, colors="#bbbbbb", lw=0.5)
    ax.set_xlim(result.layers[0].edges[0], result.layers[0].edges[-1])
    ax.set_yticks([])
    ax.set_ylim(-0.1, n)
    ax.set_xlabel("activation value (one axis for all layers; bar height ∝ √count, per layer)",
                  fontsize=9)
    fig.text(0.01, 0.97, f"{result.activation}, weights std = {result.init_scale:.3g}/√fan_in, "
             f"{n} layers: histogram of each layer's outputs", fontsize=10,
             fontweight="bold", va="top")
    return fig


# ---------------------------------------------------------------------------- explore


def explore(depth: int = 6, activation: str = "ReLU", init_scale: float = 1.0):
    """Depth, activation and initialisation scale -> per-layer activation histograms."""
    import ipywidgets as widgets

    from .explorer import Explorer

    controls = {
        "depth": widgets.IntSlider(value=depth, min=1, max=12, description="depth"),
        "activation": widgets.Dropdown(options=list(ACTIVATIONS), value=activation,
                                       description="activation",
                                       layout=widgets.Layout(width="220px")),
        "init_scale": widgets.FloatSlider(value=init_scale, min=0.0, max=4.0, step=0.05,
                                          description="init scale"),
    }
    return Explorer(controls, single_threaded(run), draw_activations,
                    title="Activation explorer: each layer's outputs, read by forward hooks",
                    figsize=(8, 4.6))
