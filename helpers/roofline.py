"""Work, traffic and fixed cost of an operation: which of the three regimes it is in.

Every call of an operation costs at least three things, and whichever is largest bounds it:

* **overhead**: a fixed cost per call (Python, the dispatcher, launching a kernel), the same
  for 10 elements as for 1,000;
* **memory**: the bytes it must move to and from memory, divided by the bandwidth;
* **compute**: its floating-point operations (FLOPs), divided by the peak FLOP/s.

The ratio FLOPs / bytes is the operation's **arithmetic intensity**. On a roofline (achieved
FLOP/s against intensity, both axes logarithmic) the memory bound is a sloped line and the
compute bound a flat one; they meet at the device's **ridge** (peak FLOP/s ÷ bandwidth).

Three layers:

* model   ``matmul_cost``, ``elementwise_cost`` (the textbook minimum: each input read
  once, each output written once; eager PyTorch runs a chain of k elementwise ops as k
  round trips to memory, a fused kernel as one), ``Roof`` (a device's three numbers),
  ``DATASHEET`` (the vendor's peaks of a few GPUs, with source and year), ``bounds`` (the
  three times and which one binds), ``view`` (the instrument's experiment).
* draw    ``draw_roofline`` (measured points under a roof), ``draw_view``.
* explore ``explore(op=..., n=..., gpu=...)``: pick an operation and a size, see which roof
  binds on this machine (measured) and on a GPU (datasheet).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from matplotlib.figure import Figure

from helpers import timing

# ---------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Cost:
    """What an operation must do: floating-point operations and bytes moved."""
    label: str
    flops: float
    bytes: float

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes


def matmul_cost(m: int, k: int, n: int, itemsize: int = 4) -> Cost:
    """(m, k) @ (k, n): m·n outputs, each k multiplies and k adds, so 2·m·k·n FLOPs;
    both inputs read once and the output written once."""
    for name, value in (("m", m), ("k", k), ("n", n), ("itemsize", itemsize)):
        if int(value) != value or value < 1:
            raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    return Cost(f"matmul {m}×{k} @ {k}×{n}", 2.0 * m * k * n,
                float(itemsize) * (m * k + k * n + m * n))


def elementwise_cost(numel: int, ops: int, itemsize: int = 4, fused: bool = False) -> Cost:
    """A chain of ``ops`` one-input elementwise operations on ``numel`` elements.

    Each op is one FLOP per element. Unfused, every op reads its input and writes its
    result (2·numel·itemsize bytes per op); fused, the chain reads once and writes once.
    """
    if int(numel) != numel or numel < 1 or int(ops) != ops or ops < 1:
        raise ValueError(f"numel and ops must be positive whole numbers, got {numel!r}, {ops!r}")
    trips = 1 if fused else ops
    return Cost(f"{ops} elementwise ops on {numel:,} ({'fused' if fused else 'eager'})",
                float(numel * ops), 2.0 * numel * itemsize * trips)


@dataclass(frozen=True)
class Roof:
    """A device's three numbers: peak (or measured) FLOP/s, bytes/s of main memory, and the
    fixed cost of one call in seconds (None where nobody measured it). ``cache_bytes_per_s``:
    the bandwidth of data that stays in the CPU's caches, where it was measured; a second,
    higher memory roof for an operation whose data fits there."""
    name: str
    flops: float
    bytes_per_s: float
    overhead_s: float | None = None
    source: str = ""
    cache_bytes_per_s: float | None = None

    @property
    def ridge(self) -> float:
        """The intensity (FLOP/byte) where the memory roof meets the compute roof."""
        return self.flops / self.bytes_per_s


@dataclass(frozen=True)
class Sheet:
    """One GPU's peaks as its vendor's datasheet states them (dense, no sparsity)."""
    name: str
    match: str                  # what torch.cuda.get_device_name() contains
    float32: float              # FLOP/s on the CUDA cores (no tensor cores)
    tensor16: float | None      # FLOP/s of the 16-bit tensor cores, dense
    tensor16_dtype: str         # which 16-bit format that figure is for
    bytes_per_s: float
    source: str

    def roof(self, overhead_s: float | None = None) -> Roof:
        return Roof(f"{self.name} (datasheet)", self.float32, self.bytes_per_s, overhead_s,
                    self.source)


# Figures as printed in each vendor datasheet (the year is the datasheet's product year).
# Tensor-core figures are the dense ones: the datasheets print the 2:4-sparsity figure,
# twice as large, with an asterisk.
DATASHEET = (
    Sheet("NVIDIA T4", "T4", 8.1e12, 65e12, "float16", 320e9, "NVIDIA T4 datasheet, 2018"),
    Sheet("NVIDIA L4", "L4", 30.3e12, 121e12, "bfloat16", 300e9, "NVIDIA L4 datasheet, 2023"),
    Sheet("NVIDIA A100 SXM 80GB", "A100-SXM4-80GB", 19.5e12, 312e12, "bfloat16", 2039e9,
          "NVIDIA A100 datasheet, 2020"),
    Sheet("NVIDIA H100 SXM", "H100 80GB HBM3", 67e12, 989e12, "bfloat16", 3.35e12,
          "NVIDIA H100 datasheet, 2022"),
)
SHEETS = {s.name: s for s in DATASHEET}


def peak_for(device_name: str, dtype: str = "float32") -> tuple[float | None, float | None]:
    """(peak FLOP/s, peak bytes/s) of a GPU in the datasheet table, or (None, None)."""
    for sheet in DATASHEET:
        if sheet.match.lower() in device_name.lower():
            flops = sheet.float32 if dtype == "float32" else (
                sheet.tensor16 if dtype == sheet.tensor16_dtype else None)
            return flops, sheet.bytes_per_s
    return None, None


def format_datasheet() -> str:
    """The datasheet table as text, labelled as vendor figures."""
    lines = ["Vendor datasheet peaks (not measured here; dense, no sparsity):",
             f"{'GPU':<22} {'float32':>9} {'16-bit tensor':>19} {'memory':>10} "
             f"{'ridge fp32':>11}  source"]
    for s in DATASHEET:
        tensor = f"{s.tensor16 / 1e12:.0f} ({s.tensor16_dtype})" if s.tensor16 else "-"
        lines.append(f"{s.name:<22} {s.float32 / 1e12:>6.1f} TF {tensor:>16} TF "
                     f"{s.bytes_per_s / 1e9:>6.0f} GB/s {s.float32 / s.bytes_per_s:>6.1f} F/B  "
                     f"{s.source}")
    return "\n".join(lines)


CACHE_NUMEL = 2**16   # 256 KiB of float32: what a core's L2 cache can hold


@functools.lru_cache(maxsize=None)
def machine_roof(n: int = 256, numel: int = 2**23, repeats: int = 15) -> Roof:
    """This machine's numbers, measured once per session on one thread (the setting of every
    timing in notebook 06):

    * the fixed cost of one eager call: ``t.add_(1)`` on a one-element tensor, whose memory
      and arithmetic are negligible;
    * bytes/s of copying ``numel`` float32 values (read once, written once), more than the
      CPU's caches hold, so that they come from and go to main memory. The source holds
      data: untouched memory (``torch.empty``) reads from a page the system shares, not
      from main memory;
    * bytes/s of the same copy on ``CACHE_NUMEL`` values, which stay in the caches between
      calls: the roof of an operation whose data is that small (it beats main memory);
    * FLOP/s of an n×n float32 matmul, the compute roof (one thread, n³: other sizes and
      more threads reach other rates, so a verdict names this roof).

    Each is the fastest of its repeats: a bound says what the machine can do, and other
    programs on a shared machine only ever slow a repeat down. The copies and the matmul are
    timed one call per sample and kept short (a few ms and under 1 ms): on a busy machine
    a call longer than the slice of time a process gets before another runs is interrupted
    in every repeat, and its fastest repeat is then no bound at all (a 512³ matmul timed in
    blocks measured 37 GFLOP/s at load 5 and 104 at load 0.5; these defaults measured 103
    GFLOP/s and 18.8 GB/s at load 4.7, 104 and 21.6 at load 2). Measured values, not peaks:
    a better kernel or more threads can exceed them."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        one = torch.ones(1)
        overhead = timing.measure(lambda: one.add_(1), repeats=7)
        a = torch.randn(n, n)
        mm = timing.time_calls(lambda: a @ a, warmup=2, repeats=repeats)
        x, y = torch.ones(numel), torch.zeros(numel)
        copy = timing.time_calls(lambda: y.copy_(x), warmup=1, repeats=repeats)
        small = min(numel, CACHE_NUMEL)
        xs, ys = torch.ones(small), torch.zeros(small)
        cached = timing.measure(lambda: ys.copy_(xs), repeats=repeats)
    finally:
        torch.set_num_threads(threads)
    return Roof("this machine (measured, one thread)", matmul_cost(n, n, n).flops / min(mm.samples),
                elementwise_cost(numel, 1).bytes / min(copy.samples), min(overhead.samples),
                f"measured on one thread: t.add_(1) on 1 element, copy of {numel:,} floats "
                f"(main memory) and of {small:,} (caches), {n}³ matmul",
                elementwise_cost(small, 1).bytes / min(cached.samples))


REGIMES = ("overhead", "memory", "compute")


@dataclass(frozen=True)
class Bounds:
    """The three lower bounds on one call's time, in seconds."""
    overhead_s: float
    memory_s: float
    compute_s: float

    @property
    def seconds(self) -> dict[str, float]:
        return dict(zip(REGIMES, (self.overhead_s, self.memory_s, self.compute_s)))

    @property
    def bound(self) -> str:
        """The regime: the name of the largest of the three."""
        times = self.seconds
        return max(REGIMES, key=times.__getitem__)

    @property
    def floor_s(self) -> float:
        return max(self.seconds.values())


def bounds(cost: Cost, roof: Roof) -> Bounds:
    """What ``cost`` needs at least on ``roof``: its fixed cost, its bytes at the roof's
    bandwidth and its FLOPs at the roof's FLOP/s (an unknown overhead counts as 0)."""
    return Bounds(roof.overhead_s or 0.0, cost.bytes / roof.bytes_per_s, cost.flops / roof.flops)


def regime(cost: Cost, roof: Roof) -> str:
    """'overhead', 'memory' or 'compute': which of the three bounds is largest."""
    return bounds(cost, roof).bound


@dataclass(frozen=True)
class Point:
    label: str
    intensity: float        # FLOP per byte
    flops_per_s: float      # achieved
    bytes_per_s: float      # achieved


def roofline_point(cost: Cost, seconds: float, label: str | None = None) -> Point:
    if not seconds > 0:
        raise ValueError(f"a time must be positive, got {seconds!r}")
    return Point(label or cost.label, cost.intensity, cost.flops / seconds, cost.bytes / seconds)


def attainable(intensity: float, peak_flops: float, peak_bytes: float) -> float:
    """The roofline itself: the most FLOP/s a device can reach at this intensity."""
    return min(peak_flops, intensity * peak_bytes)


# The instrument's operations: name -> (cost of size n, what n counts, largest sensible n).
OPS = {
    "x + 1 (one elementwise op)": (lambda n: elementwise_cost(n, 1), "elements", 2**30),
    "chain of 8 elementwise, eager": (lambda n: elementwise_cost(n, 8), "elements", 2**30),
    "chain of 8 elementwise, fused": (lambda n: elementwise_cost(n, 8, fused=True), "elements",
                                      2**30),
    "matrix-vector (n×n) @ (n)": (lambda n: matmul_cost(n, n, 1), "rows and columns", 2**16),
    "matmul (n×n) @ (n×n)": (lambda n: matmul_cost(n, n, n), "rows and columns", 2**16),
}
SIZES = [2**k for k in range(0, 31)]


@dataclass
class View:
    """One setting of the roofline explorer: an operation at a size on two devices."""
    op: str
    n: int
    cost: Cost
    here: Roof
    gpu: Roof
    bounds_here: Bounds
    bounds_gpu: Bounds
    points: list = field(default_factory=list)   # measured on this machine, for the picture

    @property
    def note(self) -> str:
        return (f"{self.cost.flops:,.0f} FLOPs, {self.cost.bytes:,.0f} bytes: "
                f"{self.cost.intensity:.3g} FLOP/byte. Under {self.here.name}'s roof (ridge "
                f"{self.here.ridge:.3g}): {self.bounds_here.bound}-bound. "
                f"{self.gpu.name} (ridge {self.gpu.ridge:.3g}): {self.bounds_gpu.bound}-bound "
                f"(its overhead bar is this machine's: the host CPU dispatches a GPU's kernels).")


def view(op: str, n: int, gpu: str, here: Roof, points=()) -> View:
    """The instrument's model: ``op`` at size ``n`` on ``here`` (this machine's measured roof)
    and on the datasheet roof of ``gpu``, with the host's overhead for both."""
    if op not in OPS:
        raise ValueError(f"unknown operation {op!r}: choose one of {', '.join(OPS)}")
    if gpu not in SHEETS:
        raise ValueError(f"no datasheet for {gpu!r}: choose one of {', '.join(SHEETS)}")
    make, counts, largest = OPS[op]
    if int(n) != n or n < 1:
        raise ValueError(f"n counts {counts}: a positive whole number, got {n!r}")
    if n > largest:
        cost = make(largest)
        raise ValueError(f"n = {n:,} is too large for {op}: at n = {largest:,} it already moves "
                         f"{cost.bytes / 2**30:,.0f} GiB. Choose n ≤ {largest:,}.")
    cost = make(int(n))
    gpu_roof = SHEETS[gpu].roof(here.overhead_s)
    return View(op, int(n), cost, here, gpu_roof, bounds(cost, here), bounds(cost, gpu_roof),
                list(points))


# ---------------------------------------------------------------------------- draw

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
REGIME_COLOURS = {"overhead": "#7f7f7f", "memory": "#1f77b4", "compute": "#d62728"}


def _roof_line(ax, roof: Roof, lo: float, hi: float, **style) -> None:
    """A roofline is straight on log-log axes on either side of the ridge: three points."""
    xs = [lo] + ([roof.ridge] if lo < roof.ridge < hi else []) + [hi]
    ax.plot(xs, [attainable(i, roof.flops, roof.bytes_per_s) for i in xs], **style)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_ten(value: float, _position=None) -> str:
    """10⁻⁷ as plain text: mathtext labels are laid out anew for every picture."""
    import math
    if value <= 0:
        return ""
    exponent = math.log10(value)
    if abs(exponent - round(exponent)) > 1e-6:
        return ""
    return "10" + str(round(exponent)).translate(_SUPERSCRIPT)


def _log_axes(ax, x: bool = True, y: bool = True) -> None:
    """Log scale with plain-text labels on the decades and no minor ticks (each tick is a
    few artists to build and draw)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
    for axis, wanted, scale in ((ax.xaxis, x, ax.set_xscale), (ax.yaxis, y, ax.set_yscale)):
        if wanted:
            scale("log")
            axis.set_major_locator(LogLocator(base=10, numticks=8))
            axis.set_major_formatter(FuncFormatter(_power_of_ten))
            axis.set_minor_locator(NullLocator())


def _cache_roof(roof: Roof) -> Roof | None:
    """The roof of data that stays in the caches: the same compute roof, the caches' bandwidth."""
    if not roof.cache_bytes_per_s:
        return None
    return Roof(f"{roof.name}, caches", roof.flops, roof.cache_bytes_per_s, roof.overhead_s)


CACHE_NOTE = "caches (measured; data that fits stays there between calls)"


def draw_roofline(points: list[Point], roof: Roof | None = None, ax=None):
    """Achieved FLOP/s against intensity (log-log) under the roof, when the roof is known:
    main memory's (solid) and, where it was measured, the caches' (dotted), which bounds an
    operation whose data stays in the caches between calls."""
    if ax is None:
        ax = Figure(figsize=(9.5, 4.2)).add_subplot()
    xs = [p.intensity for p in points]
    lo, hi = min(xs + [0.1]) / 3, max(xs + [10.0]) * 3
    if roof is not None:
        _roof_line(ax, roof, lo, hi, color="black", lw=1.5, label="roof: main memory, then compute")
        ax.axvline(roof.ridge, color="grey", ls=":", lw=1)
        cached = _cache_roof(roof)
        if cached is not None:
            _roof_line(ax, cached, lo, hi, color="black", lw=1.2, ls=":", label=CACHE_NOTE)
    for k, p in enumerate(points):
        ax.scatter([p.intensity], [p.flops_per_s], s=40, color=COLOURS[k % len(COLOURS)],
                   label=f"{p.label}: {p.flops_per_s / 1e9:.2g} GFLOP/s", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
    ax.set_ylabel("achieved FLOP/s")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    if roof is not None:
        ax.set_title("roof: one thread, main memory and caches measured by copies, compute by a "
                     "256³ matmul" if roof.cache_bytes_per_s else roof.name, fontsize=9, loc="left")
    fig = ax.figure
    fig.subplots_adjust(left=0.08, right=0.5, bottom=0.12, top=0.9)
    return fig


def _seconds(s: float) -> str:
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def draw_view(v: View, ax=None):
    """Left: both roofs and where the operation's intensity meets them. Right: the three
    lower bounds on its time on each device, the binding one in colour."""
    if ax is None:
        ax = Figure(figsize=(9.0, 3.8)).add_subplot()
    fig = ax.figure
    ax.set_position([0.08, 0.14, 0.44, 0.74])
    x = v.cost.intensity
    lo = min(x, 0.05) / 4
    hi = max(x, v.here.ridge, v.gpu.ridge, 100.0) * 4
    _roof_line(ax, v.here, lo, hi, color="black", lw=1.6, label=v.here.name)
    cached = _cache_roof(v.here)
    if cached is not None:
        _roof_line(ax, cached, lo, hi, color="black", lw=1.0, ls=":",
                   label="here, data in the caches")
    _roof_line(ax, v.gpu, lo, hi, color="#9467bd", lw=1.6, ls="--", label=v.gpu.name)
    ax.axvline(x, color="#ff7f0e", lw=1.2)
    # markers as lines without a line: a scatter's PathCollection costs several times as
    # much to build, and an update draws five of them
    for roof, marker in ((v.here, "o"), (v.gpu, "s")):
        ax.plot([x], [attainable(x, roof.flops, roof.bytes_per_s)], marker=marker, ms=7,
                ls="none", color="#ff7f0e", mec="black", zorder=4)
    if v.points:
        ax.plot([p.intensity for p in v.points], [p.flops_per_s for p in v.points], "o", ms=4,
                color="#2ca02c", zorder=3, label="measured on this page")
    _log_axes(ax)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("FLOP per byte (orange: this operation)")
    ax.set_ylabel("FLOP/s at most")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right", framealpha=0.9)
    ax.set_title(f"{v.op}, n = {v.n:,}", fontsize=9)

    _draw_bounds(fig, v, left=0.70, right=0.97, bottom=0.14, top=0.88)
    return fig


def _draw_bounds(fig, v: View, left: float, right: float, bottom: float, top: float) -> None:
    """The six lower bounds as bars on a log scale, drawn straight on the figure (a second
    Axes with its ticks would be most of an update's time)."""
    import math

    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    rows = []
    for device, b in (("here", v.bounds_here), ("GPU", v.bounds_gpu)):
        for name, seconds in b.seconds.items():
            rows.append((f"{device}: {name}", max(seconds, 1e-12),
                         REGIME_COLOURS[name] if name == b.bound else "#d9d9d9"))
    first = math.floor(math.log10(min(t for _, t, _ in rows)))
    last = math.ceil(math.log10(max(t for _, t, _ in rows)))
    last += last == first

    def x_at(seconds: float) -> float:
        return left + (right - left) * (math.log10(seconds) - first) / (last - first)

    pitch = (top - bottom) / len(rows)
    for k, (label, seconds, colour) in enumerate(rows):
        y = top - (k + 0.5) * pitch
        fig.add_artist(Rectangle((left, y - 0.35 * pitch), x_at(seconds) - left, 0.7 * pitch,
                                 transform=fig.transFigure, facecolor=colour, edgecolor="none"))
        fig.text(left - 0.01, y, label, ha="right", va="center", fontsize=9)
    step = max(1, math.ceil((last - first) / 5))
    for exponent in range(first, last + 1, step):
        x = x_at(10.0 ** exponent)
        fig.add_artist(Line2D([x, x], [bottom, top], transform=fig.transFigure, color="#cccccc",
                              lw=0.8, zorder=0))
        fig.text(x, bottom - 0.015, _power_of_ten(10.0 ** exponent), ha="center", va="top",
                 fontsize=9)
    fig.add_artist(Line2D([left, left], [bottom, top], transform=fig.transFigure, color="black",
                          lw=0.8))
    fig.text((left + right) / 2, bottom - 0.09, "seconds per call, at least", ha="center",
             va="top", fontsize=9)
    fig.text((left + right) / 2, top + 0.03,
             f"here {_seconds(v.bounds_here.floor_s)}, GPU {_seconds(v.bounds_gpu.floor_s)}",
             ha="center", va="bottom", fontsize=9)


# ---------------------------------------------------------------------------- explore


def explore(op: str = "chain of 8 elementwise, eager", n: int = 2**20,
            gpu: str = "NVIDIA H100 SXM", here: Roof | None = None, points=()):
    """Pick an operation, a size and a GPU: which roof binds here (measured) and there
    (datasheet). ``here`` defaults to this machine's measured roof (``machine_roof``)."""
    import ipywidgets as widgets

    from helpers.explorer import Explorer

    if here is None:
        here = machine_roof()
    controls = {
        "op": widgets.Dropdown(options=list(OPS), value=op, description="operation",
                               layout=widgets.Layout(width="330px")),
        "n": widgets.SelectionSlider(options=SIZES, value=n, description="n",
                                     continuous_update=False,
                                     layout=widgets.Layout(width="330px")),
        "gpu": widgets.Dropdown(options=list(SHEETS), value=gpu, description="GPU",
                                layout=widgets.Layout(width="290px")),
    }

    def model(op, n, gpu):
        return view(op, n, gpu, here, points)

    return Explorer(controls, model, draw_view, figsize=(9.0, 3.8),
                    title="Roofline explorer: which bound binds, here and on a GPU")
