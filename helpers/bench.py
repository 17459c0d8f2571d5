"""Timing done right, and eager against compiled measured on this machine.

Three layers:

* model   ``time_calls`` (warm-up, a synchronisation around every timed call, the median
  and spread of the repeats: the clock and sync are arguments, so tests can count them),
  ``measure`` (the same with ``torch.utils.benchmark``), ``describe_device``,
  ``compiled`` (one Inductor-compiled function per workload, reused), ``speedup``
  (the explorer's experiment) and ``gpu_reference`` (the table measured on a GPU).
* draw    ``draw_speedup`` (eager vs compiled bars with their spread),
  ``draw_speedup_vs_size``; the roofline lives in ``helpers.roofline``.
* explore ``explore(size=..., dtype=..., device=..., compile=...)``.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from matplotlib.figure import Figure

from helpers import roofline

# beside the module, so that it is wherever helpers is: the grading sandbox mounts only the
# packages, not notebooks/
REFERENCE = Path(__file__).resolve().parent / "gpu_reference.json"

# ---------------------------------------------------------------------------- model


@dataclass
class Timing:
    """Seconds per call of the timed repeats (warm-up calls excluded)."""
    label: str
    samples: list[float]
    warmup: int = 0
    first_call: float | None = None   # seconds of the very first call, when it was timed

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def quartiles(self) -> tuple[float, float]:
        if len(self.samples) < 2:
            return self.samples[0], self.samples[0]
        q1, _, q3 = statistics.quantiles(self.samples, n=4, method="inclusive")
        return q1, q3


def no_sync() -> None:
    """A CPU runs an op before the call returns: there is nothing to wait for."""


def sync_for(device: str | torch.device) -> Callable[[], None]:
    """What to call before reading the clock: a GPU runs kernels asynchronously, so the
    clock must wait until every queued kernel has finished."""
    if torch.device(device).type == "cuda":
        return torch.cuda.synchronize
    return no_sync


def time_calls(fn: Callable[[], object], warmup: int = 3, repeats: int = 20,
               clock: Callable[[], float] = time.perf_counter,
               sync: Callable[[], None] = no_sync, label: str = "") -> Timing:
    """Call ``fn`` ``warmup`` times untimed, then time ``repeats`` calls one by one.

    Each timed call is bracketed by ``sync()`` so that the clock starts after earlier
    work has finished and stops after this call's work has. The warm-up absorbs one-off
    costs (compilation, caches, allocator growth) that are not the steady state.
    """
    if warmup < 0 or repeats < 1:
        raise ValueError(f"need warmup ≥ 0 and repeats ≥ 1, got {warmup}, {repeats}")
    for _ in range(warmup):
        fn()
    sync()
    samples = []
    for _ in range(repeats):
        sync()
        start = clock()
        fn()
        sync()
        samples.append(clock() - start)
    return Timing(label, samples, warmup)


class SimulatedDevice:
    """An asynchronous device in miniature, for showing and testing timing code on a CPU.

    ``run()`` queues a task and returns at once, as a CUDA kernel launch does; its
    duration is the next entry of ``durations`` (the last one repeats). ``sync()`` waits
    until the queue is empty, advancing the device's ``clock()`` by the queued work.
    """

    def __init__(self, durations):
        self.durations = [float(d) for d in durations]
        if not self.durations or min(self.durations) < 0:
            raise ValueError("durations must be a non-empty list of non-negative seconds")
        self.now = 0.0
        self.queued = 0.0
        self.calls = 0
        self.syncs = 0

    def run(self) -> None:
        self.queued += self.durations[min(self.calls, len(self.durations) - 1)]
        self.calls += 1

    def sync(self) -> None:
        self.now += self.queued
        self.queued = 0.0
        self.syncs += 1

    def clock(self) -> float:
        return self.now


def measure(fn: Callable[[], object], label: str = "", repeats: int = 9,
            block: float = 0.005, warmup: int = 1, time_first: bool = False) -> Timing:
    """Steady-state seconds per call with ``torch.utils.benchmark.Timer``, which
    synchronises CUDA itself. Each of the ``repeats`` samples times a block of calls
    lasting about ``block`` seconds (one call of a fast function is too short for the
    clock), so the samples' spread is the run-to-run spread.

    With ``time_first`` the first call is timed on its own and kept as ``first_call``;
    it then counts as one of the warm-up calls.
    """
    from torch.utils import benchmark

    first = None
    if time_first:
        start = time.perf_counter()
        fn()
        first = time.perf_counter() - start
        warmup = max(warmup - 1, 0)
    for _ in range(warmup):
        fn()
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    one = timer.timeit(1).median
    number = max(1, int(block / max(one, 1e-9)))
    samples = [timer.timeit(number).median for _ in range(repeats)]
    return Timing(label, samples, warmup + 1 + (1 if time_first else 0), first)


def describe_device(device: str | torch.device = "cpu") -> dict:
    """What the numbers were measured on."""
    device = torch.device(device)
    info = {"device": str(device), "torch": torch.__version__}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(name=props.name, memory_gib=round(props.total_memory / 2**30, 1),
                    capability=f"{props.major}.{props.minor}")
    else:
        info.update(name=_cpu_name(), threads=torch.get_num_threads(),
                    cores_visible=len(os.sched_getaffinity(0)))
    info["peak_float32_flops"], info["peak_bytes_per_s"] = roofline.peak_for(info["name"])
    return info


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def chain(x: torch.Tensor) -> torch.Tensor:
    """Eight one-input elementwise ops in a row: eager PyTorch runs eight kernels, each
    reading its input from memory and writing a new tensor back; a fusing compiler can
    run one kernel that reads x once and writes the result once."""
    y = x * 0.5
    y = y + 1.0
    y = torch.tanh(y)
    y = y * 3.0
    y = torch.sin(y)
    y = y - 0.25
    y = torch.relu(y)
    return y * 2.0


CHAIN_OPS = 8

_COMPILED: dict[str, Callable] = {}


def compiled(name: str = "chain") -> Callable:
    """The Inductor-compiled workload, compiled once per session and reused, so that the
    notebook and the explorer pay for code generation once."""
    if name not in _COMPILED:
        # One compile thread: no pool of worker processes to start for a few small kernels.
        import torch._inductor.config as inductor_config
        inductor_config.compile_threads = 1
        # dynamic=True: one graph with a symbolic size serves every size (one compilation
        # for the notebook's measurements, the sweep and the explorer together).
        _COMPILED[name] = torch.compile({"chain": chain}[name], dynamic=True)
    return _COMPILED[name]


@dataclass
class Roof:
    """A roof measured here: what a large matmul reached, and what a large copy moved."""
    flops: float
    bytes_per_s: float


def measured_roof(n: int = 512, numel: int = 2**22) -> Roof:
    """Achieved FLOP/s of an n×n matmul and bytes/s of copying ``numel`` float32 values:
    a lower bound of the machine's peaks, used as the roof when no datasheet peak is known."""
    a = torch.randn(n, n)
    mm = measure(lambda: a @ a, repeats=5)
    x = torch.empty(numel)
    y = torch.empty(numel)
    copy = measure(lambda: y.copy_(x), repeats=5)
    return Roof(roofline.matmul_cost(n, n, n).flops / mm.median,
                roofline.elementwise_cost(numel, 1).bytes / copy.median)


DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16}


@dataclass
class Speedup:
    """One experiment of the explorer: the same workload eager and (optionally) compiled."""
    size: int
    dtype: str
    device: str
    eager: Timing
    compiled: Timing | None = None
    points: list = field(default_factory=list)   # roofline points (eager, compiled)

    @property
    def ratio(self) -> float | None:
        return self.eager.median / self.compiled.median if self.compiled else None


def speedup(size: int = 2**16, dtype: str = "float32", device: str = "cpu",
            compile: bool = True, repeats: int = 9) -> Speedup:
    """Time ``chain`` on ``size`` elements eager and compiled (Inductor)."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}: choose one of {', '.join(DTYPES)}")
    if device != "cpu" and not (device == "cuda" and torch.cuda.is_available()):
        raise ValueError("there is no CUDA GPU on this machine, so the GPU choice is "
                         "disabled here; the notebook's GPU section shows the reference "
                         "table kept in the repository instead.")
    if not 2**10 <= size <= 2**22:
        raise ValueError(f"size must be between 2**10 and 2**22 elements, got {size:,}")
    x = torch.randn(size, dtype=DTYPES[dtype], device=device)
    eager = measure(lambda: chain(x), "eager", repeats)
    itemsize = x.element_size()
    points = [roofline.roofline_point(roofline.elementwise_cost(size, CHAIN_OPS, itemsize),
                                      eager.median, "eager")]
    fast = None
    if compile:
        fn = compiled()
        fast = measure(lambda: fn(x), "compiled", repeats, time_first=True)
        points.append(roofline.roofline_point(
            roofline.elementwise_cost(size, CHAIN_OPS, itemsize, fused=True), fast.median,
            "compiled"))
    return Speedup(size, dtype, device, eager, fast, points)


def sweep(sizes, dtype: str = "float32", repeats: int = 9) -> list[Speedup]:
    """``speedup`` at every size (the speedup-vs-size plot)."""
    return [speedup(int(s), dtype, "cpu", True, repeats) for s in sizes]


def gpu_reference(path: Path = REFERENCE) -> dict:
    """The GPU table kept in the repository: measured on a GPU, or marked not yet measured."""
    data = json.loads(Path(path).read_text())
    if data.get("status") not in ("measured", "not yet measured"):
        raise ValueError(f"{path}: status must be 'measured' or 'not yet measured'")
    return data


def gpu_matmul_table(sizes=(256, 512, 1024, 2048, 4096), repeats: int = 5) -> dict:
    """CPU vs GPU float32 matmul across sizes, and the GPU's memory statistics, in the
    schema of the reference file (status "measured")."""
    import datetime

    if not torch.cuda.is_available():
        raise ValueError("no CUDA GPU on this machine")
    rows = []
    torch.cuda.reset_peak_memory_stats()
    for n in sizes:
        a_cpu = torch.randn(n, n)
        a_gpu = a_cpu.cuda()
        cpu = measure(functools.partial(torch.matmul, a_cpu, a_cpu), repeats=repeats, block=0.02)
        gpu = measure(functools.partial(torch.matmul, a_gpu, a_gpu), repeats=repeats, block=0.02)
        flops = roofline.matmul_cost(n, n, n).flops
        rows.append({"n": n, "cpu_ms": cpu.median * 1e3, "gpu_ms": gpu.median * 1e3,
                     "gpu_tflops": flops / gpu.median / 1e12})
        del a_gpu
    info = describe_device("cuda")
    memory = {"memory_allocated_mib": round(torch.cuda.memory_allocated() / 2**20, 1),
              "max_memory_allocated_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1)}
    return {"status": "measured", "device": info["name"], "torch": torch.__version__,
            "date": datetime.date.today().isoformat(), "cpu": _cpu_name(),
            "cpu_threads": torch.get_num_threads(), "rows": rows, "memory": memory,
            "note": "float32 n×n @ n×n, median of repeats after warm-up (torch.utils.benchmark)"}


def format_reference(data: dict) -> str:
    """The reference table as text: its label line, then one row per matmul size."""
    if data["status"] != "measured":
        return f"GPU reference table: not yet measured. {data.get('note', '')}".strip()
    lines = [f"Measured on {data['device']} with torch {data['torch']} on {data['date']}",
             f"{'n':>6} {'CPU ms':>9} {'GPU ms':>9} {'speedup':>8} {'GPU TFLOP/s':>12}"]
    for row in data["rows"]:
        lines.append(f"{row['n']:>6} {row['cpu_ms']:>9.3f} {row['gpu_ms']:>9.3f} "
                     f"{row['cpu_ms'] / row['gpu_ms']:>7.1f}× {row['gpu_tflops']:>12.2f}")
    if data.get("memory"):
        lines.append("memory: " + ", ".join(f"{k} = {v}" for k, v in data["memory"].items()))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- draw


def _us(seconds: float) -> float:
    return seconds * 1e6


def draw_speedup(result: Speedup, ax=None):
    """Median time per call, eager and compiled, with the quartiles as error bars."""
    if ax is None:
        ax = Figure(figsize=(7.5, 3.6)).add_subplot()
    timings = [result.eager] + ([result.compiled] if result.compiled else [])
    colours = ["#1f77b4", "#d62728"]
    for k, t in enumerate(timings):
        q1, q3 = t.quartiles
        ax.barh(k, _us(t.median), color=colours[k], alpha=0.85,
                xerr=[[_us(t.median - q1)], [_us(q3 - t.median)]], capsize=4)
        gbs = result.points[k].bytes_per_s / 1e9
        ax.text(_us(q3), k, f"   {_us(t.median):.1f} µs, {gbs:.1f} GB/s moved",
                va="center", fontsize=9)
    ax.set_yticks(range(len(timings)), [t.label for t in timings])
    ax.invert_yaxis()
    ax.set_xlim(0, _us(max(t.quartiles[1] for t in timings)) * 1.6)
    ax.set_xlabel("median µs per call (bars: quartiles of the repeats)")
    title = f"chain on {result.size:,} {result.dtype} elements, {result.device}"
    if result.ratio:
        title += f": compiled is {result.ratio:.2f}× the speed of eager"
        if result.compiled.first_call is not None:
            title += f"\n(first compiled call of this setting: {result.compiled.first_call:.2f} s)"
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, axis="x")
    fig = ax.figure
    fig.subplots_adjust(left=0.13, right=0.97, bottom=0.15, top=0.84)
    return fig


def draw_speedup_vs_size(results: list[Speedup], ax=None):
    """eager time / compiled time against the number of elements (log x)."""
    if ax is None:
        ax = Figure(figsize=(7.5, 3.4)).add_subplot()
    sizes = [r.size for r in results]
    ratios = [r.ratio for r in results]
    ax.plot(sizes, ratios, "o-", color="#d62728")
    for s, q in zip(sizes, ratios):
        ax.annotate(f"{q:.2f}×", (s, q), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    ax.axhline(1.0, color="black", lw=1, ls="--")
    ax.text(sizes[0], 1.0, " same speed", va="bottom", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements")
    ax.set_ylabel("speedup (eager ÷ compiled)")
    ax.set_ylim(0, max(ratios + [1.0]) * 1.25)
    ax.set_title(f"chain, {results[0].dtype}, {results[0].device}: compiled vs eager",
                 fontsize=9)
    ax.grid(alpha=0.3)
    fig = ax.figure
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9)
    return fig


def draw_gpu_table(data: dict, ax=None):
    """GPU speedup over the CPU for each matmul size of a measured table."""
    if ax is None:
        ax = Figure(figsize=(7.5, 3.4)).add_subplot()
    ns = [row["n"] for row in data["rows"]]
    ratios = [row["cpu_ms"] / row["gpu_ms"] for row in data["rows"]]
    ax.plot(ns, ratios, "o-", color="#2ca02c")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (float32 n×n @ n×n)")
    ax.set_ylabel("speedup (CPU ms ÷ GPU ms)")
    ax.set_title(f"{data['device']} vs CPU, torch {data['torch']}, {data['date']}", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    fig = ax.figure
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9)
    return fig


def picture(figure, dpi: int = 100):
    """A figure as an image a notebook shows (a bare Figure shows only its repr)."""
    import io

    from IPython.display import Image
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return Image(buffer.getvalue())


# ---------------------------------------------------------------------------- explore


def _explorer_model(size, dtype, device, compile):
    """``speedup`` with fewer repeats (the widget answers sooner) on one CPU thread: on a
    shared machine a second thread mostly measures waiting for a core."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return speedup(size, dtype, device, compile, repeats=5)
    finally:
        torch.set_num_threads(threads)


def explore(size: int = 2**16, dtype: str = "float32", device: str = "cpu",
            compile: bool = True):
    """Size, dtype, device, compile on/off -> measured times and the bar chart."""
    import ipywidgets as widgets

    from helpers.explorer import Explorer

    gpu = torch.cuda.is_available()
    devices = [("cpu", "cpu"), ("cuda" if gpu else "cuda (no GPU on this machine)", "cuda")]
    controls = {
        "size": widgets.SelectionSlider(options=[2**k for k in range(10, 23)], value=size,
                                        description="elements", continuous_update=False),
        "dtype": widgets.Dropdown(options=list(DTYPES), value=dtype, description="dtype"),
        "device": widgets.Dropdown(options=devices, value=device, description="device"),
        "compile": widgets.Checkbox(value=compile, description="torch.compile (Inductor)"),
    }
    return Explorer(controls, _explorer_model, draw_speedup,
                    title="Speedup explorer: chain eager vs compiled, measured now")
