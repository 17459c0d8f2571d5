"""Work and traffic of an operation, and where a measurement sits on a roofline.

A roofline point is (arithmetic intensity, achieved FLOP/s): FLOPs per byte moved
to or from memory, and FLOPs per second measured. A device can do at most
``min(peak_flops, intensity * peak_bandwidth)``; points under the sloped part are
limited by memory traffic, points under the flat part by arithmetic.

The counts are the textbook minimum: a matmul reads each input once and writes its
output once, and an elementwise op reads its input and writes its output. Eager
PyTorch runs a chain of k elementwise ops as k kernels, each with its own round
trip to memory; a fused kernel (what Inductor generates) makes one.
"""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.figure import Figure

# Dense (no sparsity) peak arithmetic from the vendors' datasheets, in FLOP/s, and the
# memory bandwidth in bytes/s. Keys are what torch.cuda.get_device_name() contains.
# A CPU has no entry: its peak depends on the exact part, clocks and vector units.
PEAKS = {
    "H100 80GB HBM3": {"float32": 67e12, "bfloat16": 989e12, "float16": 989e12, "bytes_per_s": 3.35e12},
    "H200": {"float32": 67e12, "bfloat16": 989e12, "float16": 989e12, "bytes_per_s": 4.8e12},
    "A100-SXM4-80GB": {"float32": 19.5e12, "bfloat16": 312e12, "float16": 312e12, "bytes_per_s": 2.04e12},
    "A100-SXM4-40GB": {"float32": 19.5e12, "bfloat16": 312e12, "float16": 312e12, "bytes_per_s": 1.56e12},
    "Tesla T4": {"float32": 8.1e12, "float16": 65e12, "bytes_per_s": 320e9},
    "Tesla V100": {"float32": 15.7e12, "float16": 125e12, "bytes_per_s": 900e9},
    "L4": {"float32": 30.3e12, "bfloat16": 121e12, "float16": 121e12, "bytes_per_s": 300e9},
}


def peak_for(device_name: str, dtype: str = "float32") -> tuple[float | None, float | None]:
    """(peak FLOP/s, peak bytes/s) of a known device, or (None, None)."""
    for key, row in PEAKS.items():
        if key.lower() in device_name.lower():
            return row.get(dtype), row["bytes_per_s"]
    return None, None


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


# ---------------------------------------------------------------------------- draw

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def draw_roofline(points: list[Point], peak_flops: float | None = None,
                  peak_bytes: float | None = None, ceiling_label: str = "peak", ax=None):
    """Achieved FLOP/s against intensity (log-log) under the roof, when the roof is known."""
    if ax is None:
        ax = Figure(figsize=(7.5, 3.6)).add_subplot()
    xs = [p.intensity for p in points]
    lo, hi = min(xs + [0.1]) / 3, max(xs + [10.0]) * 3
    if peak_flops and peak_bytes:
        import numpy as np
        grid = np.logspace(np.log10(lo), np.log10(hi), 200)
        ax.plot(grid, [attainable(i, peak_flops, peak_bytes) for i in grid], color="black",
                lw=1.5, label=f"roof ({ceiling_label})")
        ax.axvline(peak_flops / peak_bytes, color="grey", ls=":", lw=1)
    for k, p in enumerate(points):
        ax.scatter([p.intensity], [p.flops_per_s], s=40, color=COLOURS[k % len(COLOURS)],
                   label=f"{p.label}: {p.flops_per_s / 1e9:.2g} GFLOP/s", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
    ax.set_ylabel("achieved FLOP/s")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="lower right")
    fig = ax.figure
    fig.subplots_adjust(left=0.11, right=0.97, bottom=0.14, top=0.92)
    return fig
