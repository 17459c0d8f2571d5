"""Activation explorer: what each layer of a deep MLP outputs on the way forward, and what
gradient reaches it on the way back, for the initialisation you pick.

Three layers:

* model   ``deep_mlp(depth, activation, init_scale, init=...)`` builds the network, either
  with weights of std init_scale/sqrt(fan_in) and zero biases ("normal") or with
  ``nn.Linear``'s own default initialisation, weights then multiplied by init_scale
  ("default": weights uniform in ±1/sqrt(fan_in), so std 1/sqrt(3·fan_in), biases uniform
  in the same range). ``collect(model, x, upstream=...)`` registers a forward hook on every
  activation module (and on every Linear, to know which one fed it), runs one forward pass,
  removes every hook (also when the pass fails) and returns ``LayerStats`` per layer:
  standard deviation, units dead for the whole batch, saturated share, a histogram, and,
  given an ``upstream`` gradient for the output, the gradient that reaches the layer's
  output (∂L/∂a) and the weights of the Linear that fed it (∂L/∂W), from
  ``torch.autograd.grad`` (the model's ``.grad`` fields are left alone). ``run(...)`` is the
  instrument's experiment from its control values.
* draw    ``draw_activations(result, ax=None)``: one histogram per layer, stacked, with the
  two gradients per layer on a log axis beside them.
* explore ``explore()``: depth, activation, initialisation and scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory
from torch import nn

from helpers import hand_axes

ACTIVATIONS = {"ReLU": nn.ReLU, "tanh": nn.Tanh, "GELU": nn.GELU}
# the two initialisations the explorer offers (the dropdown's texts)
NORMAL = "normal, std = scale/√fan_in"
DEFAULT = "nn.Linear default × scale"
INITS = {NORMAL: "normal", DEFAULT: "default"}
SATURATED = 0.99      # |tanh| above this: the unit's local slope is below 0.02
BINS = 40
NAN = float("nan")

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
    grad_rms: float = NAN         # root mean square of ∂L/∂(this layer's output)
    weight_grad_rms: float = NAN  # root mean square of ∂L/∂W of the Linear that fed it
    fed_by: str = ""              # that Linear's name ("" when no Linear fed it)


@dataclass
class Activations:
    activation: str
    init_scale: float
    layers: list[LayerStats]
    note: str = ""
    init: str = "normal"


def deep_mlp(depth: int = 6, activation: str = "ReLU", init_scale: float = 1.0,
             width: int = 64, seed: int = 0, init: str = "normal") -> nn.Sequential:
    """``depth`` Linear+activation blocks.

    ``init="normal"``: weights drawn with std init_scale/sqrt(fan_in), biases 0 (so
    init_scale = sqrt(2) is Kaiming's ReLU initialisation). ``init="default"``: each
    ``nn.Linear`` keeps the initialisation torch gives it (seeded), weights then multiplied
    by init_scale (1 is torch's default itself)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation is one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if init not in INITS.values():
        raise ValueError(f"init is one of {', '.join(INITS.values())}, got {init!r}")
    if not 1 <= int(depth) <= 50:
        raise ValueError(f"depth must be between 1 and 50 layers, got {depth}")
    if not (math.isfinite(init_scale) and init_scale > 0):
        raise ValueError(f"the initialisation scale must be a positive number, got {init_scale}: "
                         "with 0 every weight is 0 and every layer outputs the same value")
    gen = torch.Generator().manual_seed(seed)
    layers = []
    # torch's default initialisation draws from the global generator: seed a fork of it, so
    # the picture is repeatable and the notebook's own random numbers are not disturbed
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for _ in range(int(depth)):
            linear = nn.Linear(width, width)
            with torch.no_grad():
                if init == "normal":
                    linear.weight.copy_(torch.randn(width, width, generator=gen)
                                        * init_scale / math.sqrt(width))
                    linear.bias.zero_()
                else:
                    linear.weight.mul_(init_scale)
            layers += [linear, ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


def _stats(names: list[str], outs: list[torch.Tensor], lo: float, hi: float) -> list[LayerStats]:
    """Statistics of layers whose outputs have one shape, computed for all of them at once
    in the outputs' own dtype (a float64 copy of every output, and one temporary per
    statistic, were most of an update's model time at depth 12)."""
    flat = torch.stack([out.detach().reshape(len(out), -1) for out in outs])
    n, units = len(outs), flat.shape[2]
    # two passes (mean, then the squares of the deviations): a tenth of var_mean's time here
    mean = flat.mean(dim=(1, 2), keepdim=True)
    var = (flat - mean).square_().sum(dim=(1, 2)) / max(1, flat[0].numel() - 1)
    size = flat.abs()
    dead = (size.amax(dim=1) == 0).sum(dim=1).tolist()  # 0 for the whole batch
    saturated = ((size > SATURATED).sum(dim=(1, 2)) / size[0].numel()).tolist()
    # values beyond the drawn range land in the edge bins, so every value is counted
    # bin = ⌊v·scale + shift⌋, with shift = -lo·scale rounded once: a value on a bin's edge
    # (0 in a symmetric range, exactly 20) lands where float64 and torch.histc put it
    scale = BINS / (hi - lo)
    which = flat.clamp(lo, hi).mul_(scale).add_(-lo * scale).long().clamp_(0, BINS - 1)
    which += torch.arange(n).view(n, 1, 1) * BINS
    counts = torch.bincount(which.flatten(), minlength=n * BINS).view(n, BINS).tolist()
    means, stds = mean.flatten().tolist(), var.sqrt().tolist()
    edges = torch.linspace(lo, hi, BINS + 1).tolist()
    return [LayerStats(names[k], means[k], stds[k], int(dead[k]), saturated[k], units, counts[k],
                       edges) for k in range(n)]


def _rms(tensors: list[torch.Tensor | None]) -> list[float]:
    """Root mean square of each tensor (NaN for None): one norm each, in float64."""
    present = [t for t in tensors if t is not None]
    norms = iter(torch.stack([torch.linalg.vector_norm(t.detach(), dtype=torch.float64)
                              / math.sqrt(t.numel()) for t in present]).tolist() if present else [])
    return [NAN if t is None else next(norms) for t in tensors]


def _range(outs: list[torch.Tensor], q: float) -> tuple[float, float]:
    """(-top, top), or (0, top) when no output is negative, where top is the largest of the
    layers' q-quantiles of |output| (the ceil(q·n)-th smallest of n, read as the
    (n - ceil(q·n) + 1)-th largest: topk of a few values is a tenth of kthvalue's time; one
    call for all layers of one size)."""
    top, negative = 0.0, False
    for size in {out.numel() for out in outs}:
        same = torch.stack([out.detach().flatten() for out in outs if out.numel() == size])
        largest = size - max(1, math.ceil(q * size)) + 1
        top = max(top, same.abs().topk(largest, dim=1).values[:, -1].max().item())
        negative = negative or bool(same.min() < 0)
    return (-top if negative else 0.0, top if outs else 1.0)


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
            range_: tuple[float, float] | None = None,
            upstream: torch.Tensor | None = None) -> list[LayerStats]:
    """Statistics of every ``kinds`` module's output in one forward pass, via forward hooks.

    With ``upstream`` (the gradient of a loss with respect to the model's output, same
    shape), also each layer's ∂L/∂a and the ∂L/∂W of the Linear whose output it received.
    Every hook is removed before returning, also when the forward pass raises."""
    kinds = tuple(ACTIVATIONS.values()) if kinds is None else kinds
    outputs: list[tuple[str, torch.Tensor, tuple[str, nn.Linear] | None]] = []
    made_by: dict[int, tuple[str, nn.Linear, torch.Tensor]] = {}  # keeps each output alive
    handles = []

    def linear_hook(module, inputs, out, name):
        made_by[id(out)] = (name, module, out)

    def activation_hook(module, inputs, out, name):
        feeder = made_by.get(id(inputs[0]))
        outputs.append((name, out, feeder[:2] if feeder else None))

    try:
        for name, module in model.named_modules():
            if isinstance(module, kinds):
                handles.append(module.register_forward_hook(
                    lambda mod, inputs, out, name=name: activation_hook(mod, inputs, out, name)))
            elif isinstance(module, nn.Linear):
                handles.append(module.register_forward_hook(
                    lambda mod, inputs, out, name=name: linear_hook(mod, inputs, out, name)))
        with torch.set_grad_enabled(upstream is not None):
            y = model(x)
    finally:
        for handle in handles:
            handle.remove()
    made_by.clear()
    grads: list[torch.Tensor | None] = [None] * (2 * len(outputs))
    if upstream is not None:
        wanted = [o for _, o, _ in outputs] + [f[1].weight if f else o for _, o, f in outputs]
        grads = list(torch.autograd.grad(y, wanted, upstream, allow_unused=True))
    # the 99.5th percentile, not the maximum: one outlier would squeeze every histogram
    lo, hi = _range([o for _, o, _ in outputs], 0.995) if range_ is None else range_
    if not hi > lo:
        hi = lo + 1.0
    stats: list[LayerStats | None] = [None] * len(outputs)
    for shape in {o.shape for _, o, _ in outputs}:
        group = [k for k, (_, o, _) in enumerate(outputs) if o.shape == shape]
        for k, layer in zip(group, _stats([outputs[k][0] for k in group],
                                          [outputs[k][1] for k in group], lo, hi)):
            stats[k] = layer
    rms = _rms(grads)
    for k, (layer, (_, _, feeder)) in enumerate(zip(stats, outputs)):
        layer.grad_rms = rms[k]
        if feeder is not None:
            layer.fed_by = feeder[0]
            layer.weight_grad_rms = rms[len(outputs) + k]
    return stats


def upstream_gradient(shape: tuple[int, ...], seed: int = 0) -> torch.Tensor:
    """The gradient the explorer sends into the last layer: standard normal values divided by
    the batch size (a stand-in for any loss averaged over a batch). It is the same for every
    setting, so what changes from layer to layer is what the layers do to it."""
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed + 2)) / shape[0]


def run(depth: int = 6, activation: str = "ReLU", init_scale: float = 1.0,
        width: int = 64, batch: int = 256, seed: int = 0, init: str = "normal") -> Activations:
    """The instrument's experiment: a batch of standard-normal inputs through ``deep_mlp``,
    forward and back."""
    init = INITS.get(init, init)
    model = deep_mlp(depth, activation, init_scale, width, seed, init)
    x = torch.randn(batch, width, generator=torch.Generator().manual_seed(seed + 1))
    layers = collect(model, x, upstream=upstream_gradient((batch, width), seed))
    first, last = layers[0], layers[-1]
    n = len(layers)
    note = (f"output std: layer 1 {first.std:.3g}, layer {n} {last.std:.3g} · "
            f"gradient at the outputs (RMS ∂L/∂a): layer 1 {first.grad_rms:.2g}, "
            f"layer {n} {last.grad_rms:.2g}")
    if activation == "ReLU":
        note += f" · dead units in layer {n}: {last.dead_units} of {last.units}"
    if activation == "tanh":
        note += f" · saturated in layer {n}: {last.saturated:.0%}"
    return Activations(activation, init_scale, layers, note, init)


def init_label(init: str, scale: float) -> str:
    """What the weights were drawn from, in words (for the picture's title)."""
    if init == "default":
        return (f"nn.Linear default × {scale:.3g}: weights U(±{scale:.3g}/√fan_in), "
                f"std {scale / math.sqrt(3):.3g}/√fan_in, biases U(±1/√fan_in)")
    return f"weights normal, std {scale:.3g}/√fan_in, biases 0"


# ---------------------------------------------------------------------------- draw

GRAD_COLOURS = {"a": "#7f7f7f", "W": "#6a3d9a"}
GRAD_PANEL = (0.72, 0.97)  # figure x of the gradient panel's log axis, left and right
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def draw_activations(result: Activations, ax=None):
    """One histogram row per layer (layer 1 on top) with its std and dead/saturated counts;
    on the right, per layer, the RMS of ∂L/∂a and of ∂L/∂W on a log axis."""
    if ax is None:
        ax = Figure(figsize=(9.5, 5)).add_subplot()
    fig = ax.figure
    ax.set_position([0.075, 0.1, 0.42, 0.74])
    n = len(result.layers)
    colour = {"ReLU": "#1f4e9c", "tanh": "#b35806", "GELU": "#1b7f5b"}[result.activation]
    # one collection for all bars and one for all baselines, labels as figure texts (no clip
    # path to set) and the x axis drawn by hand (helpers.hand_axes): per-layer artists and
    # matplotlib's tick objects were most of an update's drawing time at depth 12
    polygons, labels = [], ax.get_yaxis_transform()
    for k, layer in enumerate(result.layers):
        base = n - 1 - k
        counts = torch.tensor(layer.counts, dtype=torch.float64)
        # square-root heights: ReLU's spike at 0 would otherwise flatten everything else
        height = (counts.sqrt() / counts.max().clamp(min=1).sqrt() * 0.9).tolist()
        # the layer's bars as one outline (a step along the bins): one path per layer, not
        # one per bar
        edges, outline = layer.edges, [(layer.edges[0], base)]
        for left, right, h in zip(edges[:-1], edges[1:], height):
            outline += [(left, base + h), (right, base + h)]
        polygons.append(outline + [(edges[-1], base)])
        extra = ""
        if result.activation == "ReLU":
            extra = f" dead {layer.dead_units}"
        elif result.activation == "tanh":
            extra = f" sat {layer.saturated:.0%}"
        fig.text(1.02, base + 0.4, f"std {layer.std:.2g}{extra}", transform=labels,
                 fontsize=9, va="center", family="monospace")
        fig.text(-0.01, base + 0.4, f"layer {k + 1}", transform=labels, fontsize=9,
                 va="center", ha="right")
    ax.add_collection(PolyCollection(polygons, facecolors=colour, alpha=0.75, linewidths=0))
    ax.hlines(range(n), 0, 1, transform=labels, colors="#bbbbbb", lw=0.5)
    ax.set_xlim(result.layers[0].edges[0], result.layers[0].edges[-1])
    ax.set_ylim(-0.1, n)
    hand_axes.frame(ax)
    hand_axes.x_axis(ax, "activation value (bar height ∝ √count, per layer)")
    fig.text(0.075, 0.86, "forward: each layer's outputs", fontsize=10, va="bottom")
    _draw_gradients(ax, result)
    fig.text(0.01, 0.975, f"{result.activation}, {n} layers · {init_label(result.init, result.init_scale)}",
             fontsize=10, fontweight="bold", va="top")
    return fig


def decades(values: list[float]) -> tuple[int, int]:
    """The whole powers of ten around ``values`` (at least two decades, so the axis always
    has three labelled ticks)."""
    finite = [v for v in values if math.isfinite(v) and v > 0] or [1.0]
    lo, hi = math.floor(math.log10(min(finite))), math.ceil(math.log10(max(finite)))
    return (hi - 2, hi) if hi - lo < 2 else (lo, hi)


def _draw_gradients(ax, result: Activations) -> None:
    """Two thin bars per layer, RMS of ∂L/∂a (the layer's output) and of ∂L/∂W, on a log
    axis drawn by hand in figure x and the histograms' y: a second Axes with a log scale
    tripled the update's drawing time."""
    fig, n = ax.figure, len(result.layers)
    place = blended_transform_factory(fig.transFigure, ax.transData)
    x0, x1 = GRAD_PANEL
    values = [v for s in result.layers for v in (s.grad_rms, s.weight_grad_rms)]
    lo, hi = decades(values)

    def x(v):
        return x0 + (math.log10(v) - lo) / (hi - lo) * (x1 - x0)

    bars = {"a": [], "W": []}
    for k, layer in enumerate(result.layers):
        base = n - 1 - k
        for key, value, offset in (("a", layer.grad_rms, 0.5), ("W", layer.weight_grad_rms, 0.15)):
            if math.isfinite(value) and value > 0:
                right = x(min(max(value, 10.0 ** lo), 10.0 ** hi))
                bars[key].append([(x0, base + offset), (x0, base + offset + 0.3),
                                  (right, base + offset + 0.3), (right, base + offset)])
    for key, polygons in bars.items():
        fig.add_artist(PolyCollection(polygons, facecolors=GRAD_COLOURS[key], linewidths=0,
                                      transform=place))
    fig.add_artist(Line2D([x0, x1], [-0.1, -0.1], color="#444444", lw=0.8, transform=place))
    for decade in range(lo, hi + 1):
        fig.add_artist(Line2D([x(10.0 ** decade)] * 2, [-0.1, n], color="#dddddd", lw=0.5,
                              transform=place, zorder=0))
        fig.text(x(10.0 ** decade), 0.085, f"10{str(decade).translate(SUPERSCRIPT)}",
                 fontsize=9, ha="center", va="top")
    fig.text((x0 + x1) / 2, 0.02, "RMS gradient (log scale)", fontsize=9, ha="center", va="bottom")
    fig.text(x0, 0.86, "backward: gradient reaching it", fontsize=10, va="bottom")
    fig.text(x0, 0.905, "■ ∂L/∂a", color=GRAD_COLOURS["a"], fontsize=9, va="bottom")
    fig.text(x0 + 0.1, 0.905, "■ ∂L/∂W (its Linear)", color=GRAD_COLOURS["W"], fontsize=9,
             va="bottom")


# ---------------------------------------------------------------------------- explore


def explore(depth: int = 6, activation: str = "ReLU", init_scale: float = 1.0,
            init: str = NORMAL):
    """Depth, activation, initialisation and its scale -> per-layer activation histograms
    and per-layer gradients."""
    import ipywidgets as widgets

    from .explorer import Explorer

    controls = {
        "depth": widgets.IntSlider(value=depth, min=1, max=12, description="depth"),
        "activation": widgets.Dropdown(options=list(ACTIVATIONS), value=activation,
                                       description="activation",
                                       layout=widgets.Layout(width="200px")),
        "init": widgets.Dropdown(options=list(INITS), value=init, description="init",
                                 layout=widgets.Layout(width="310px")),
        "init_scale": widgets.FloatSlider(value=init_scale, min=0.0, max=4.0, step=0.05,
                                          description="scale"),
    }
    return Explorer(controls, single_threaded(run), draw_activations,
                    title="Activation explorer: each layer's outputs (forward hooks) and "
                          "the gradients that reach it",
                    figsize=(9.5, 5))
