"""Timing done right, and eager against compiled measured on this machine.

Three layers:

* model   the timing primitives of ``helpers.timing`` (``time_calls``, ``measure``,
  ``compile_events``, ``SimulatedDevice``), re-exported, and ``machine_roof`` (this machine's
  roof, measured by ``helpers.roofline``); ``cold_compile``, ``compiled``
  (one Inductor-compiled function per workload, reused), ``speedup`` (the explorer's
  experiment), ``add_sweep`` (the regimes seen in one op's time), ``gpu_reference`` (the
  GPU table, when one was measured).
* draw    ``draw_speedup`` (eager vs compiled bars with their spread),
  ``draw_speedup_vs_size``, ``draw_add_sweep``, ``draw_gpu_table``; the roofline lives in
  ``helpers.roofline``.
* explore ``explore(size=..., dtype=..., device=..., compile=...)``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from matplotlib.figure import Figure

from helpers import capture, roofline
from helpers.loader_verdicts import compare

# the timing primitives live in helpers.timing (roofline measures the roof with them too);
# they are bench's names as well, as notebook 06 calls them
from helpers.timing import (  # noqa: F401
    CompileEvents,
    SimulatedDevice,
    Timing,
    compile_events,
    measure,
    no_sync,
    sync_for,
    time_calls,
)

machine_roof = roofline.machine_roof   # this machine's three numbers (helpers.roofline)

# beside the module, so that it is wherever helpers is: the grading sandbox mounts only the
# packages, not notebooks/
REFERENCE = Path(__file__).resolve().parent / "gpu_reference.json"

# ---------------------------------------------------------------------------- model


def verdict(eager_s: float, compiled_s: float) -> str:
    """How a compiled time compares with the eager one, in words, with notebook 05's
    threshold: clearly faster below 0.8× the eager time, clearly slower above 1/0.8×."""
    return {"shorter": "faster than eager", "longer": "slower than eager",
            "about the same": "about as fast as eager"}[compare(eager_s, compiled_s)]


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


ADD_SIZES = (10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000)


@dataclass
class AddSweep:
    """``x.add_(1)`` timed at several sizes, beside what the three bounds predict."""
    sizes: list[int]
    timings: list[Timing]
    roof: roofline.Roof

    def bounds(self, size: int) -> roofline.Bounds:
        return roofline.bounds(roofline.elementwise_cost(size, 1), self.roof)

    @property
    def seconds(self) -> list[float]:
        """Each size's fastest repeat: set beside lower bounds, the least disturbed time."""
        return [min(t.samples) for t in self.timings]

    def rows(self) -> list[tuple[int, float, str]]:
        """(elements, fastest seconds per call, the largest bound's regime)."""
        return [(s, t, self.bounds(s).bound) for s, t in zip(self.sizes, self.seconds)]


def add_sweep(sizes=ADD_SIZES, roof: roofline.Roof | None = None) -> AddSweep:
    """Time ``x.add_(1)`` (eager, float32, in place) at each size. In place, so that no call
    asks the operating system for fresh memory: a new 40 MB result every call costs more in
    page faults than in moving its bytes."""
    roof = roof or machine_roof()
    timings = []
    for size in sizes:
        x = torch.randn(size)
        timings.append(measure(functools.partial(torch.Tensor.add_, x, 1), f"{size:,}", repeats=7))
    return AddSweep(list(sizes), timings, roof)


def chain(x: torch.Tensor) -> torch.Tensor:
    """Eight one-input elementwise ops in a row: eager PyTorch runs eight kernels, each
    reading its input from memory and writing a new tensor back; a fusing compiler can
    run one kernel that reads x once and writes the result once.

    Each op costs the CPU a few instructions per element, so that moving the bytes, not
    the arithmetic, is what fusion saves. (tanh and sin, in an earlier version, cost tens
    of instructions each: eager tanh alone took more than half of the chain's time, and
    the chain was no example of a memory-bound function.) The sqrt keeps the lesson that
    compiled code may round differently: without it Inductor's result equals eager's bit
    for bit here."""
    y = x * 0.5
    y = y + 1.0
    y = torch.abs(y)
    y = y * 3.0
    y = torch.sqrt(y)
    y = y - 0.25
    y = torch.relu(y)
    return y * 2.0


CHAIN_OPS = 8

_COMPILED: dict[tuple[str, bool | None], Callable] = {}
DYNAMIC_NAMES = {True: "symbolic", False: "static", None: "automatic"}
WORKLOADS = {"chain": chain}


def compile_setup() -> None:
    """Two of Inductor's internal settings (``torch._inductor.config``), for a notebook that
    compiles a few small kernels on a busy 2-core machine:

    * ``compile_threads = 1``: compile in this process, with no pool of worker processes
      to start;
    * ``cpp.vec_isa_ok = True``: use the vector instruction sets the CPU lists (AVX-512,
      AVX2) without first compiling a test program against each set's vector headers:
      three C++ compiler runs of about 3 s each at load 5, in a process's first compile
      (the smaller checks of single instructions still run). The kernels are the same
      either way; only a machine whose CPU lists an instruction set that its compiler
      cannot build would notice."""
    import torch._inductor.config as inductor_config
    inductor_config.compile_threads = 1
    inductor_config.cpp.vec_isa_ok = True


def compiled(name: str = "chain", dynamic: bool | None = True) -> Callable:
    """The Inductor-compiled workload, compiled once per session and reused, so that the
    notebook and the explorer pay for code generation once. ``dynamic=True`` (the default
    here): one graph with a symbolic size serves every size."""
    key = (name, dynamic)
    if key not in _COMPILED:
        compile_setup()
        # a copy of its own: a torch.compile of the function itself elsewhere (with other
        # settings) must neither reuse nor replace these graphs
        own = capture.fresh_copy(WORKLOADS[name], f"{name}_{DYNAMIC_NAMES[dynamic]}")
        _COMPILED[key] = torch.compile(own, dynamic=dynamic)
    return _COMPILED[key]


def cold_compile(fn: Callable, *args) -> tuple[float, CompileEvents]:
    """Seconds of the first call of ``torch.compile(fn)`` (Inductor) with Inductor's caches
    switched off, so nothing is loaded from an earlier run: what compiling costs when no
    cache has it, in a process that has compiled before (a process's very first compile
    also pays for setting Inductor up)."""
    import torch._inductor.config as inductor_config

    compile_setup()
    fresh = torch.compile(capture.fresh_copy(fn, f"{fn.__name__}_cold"))
    with warnings.catch_warnings(), inductor_config.patch(force_disable_caches=True):
        warnings.simplefilter("ignore")   # torch warns that the caches are off: we asked
        with compile_events() as events:
            start = time.perf_counter()
            fresh(*args)
            seconds = time.perf_counter() - start
    return seconds, events


@dataclass
class Autotuned:
    """One ``torch.compile`` mode's first call (seconds, what it compiled), the lines Inductor
    printed about the candidates it timed, and the steady state after it."""
    mode: str
    first_call: float
    events: CompileEvents
    report: list[str]
    steady: Timing


def autotune_first_calls(n: int = 256, batch: int = 64,
                         modes=("default", "max-autotune-no-cudagraphs")) -> list[Autotuned]:
    """Compile an ``nn.Linear(n, n)`` for inference on a (batch, n) input once per mode and
    time each first call. With Inductor's ``freezing`` on (an internal setting: the weights
    become constants, which its C++ matmul templates need on a CPU), ``max-autotune`` times
    its candidate kernels for the matmul (MKL's, and C++ templates it generates and
    compiles) and keeps the fastest; the default mode takes ATen's kernel without timing
    anything. ``-no-cudagraphs``: the same search without CUDA graphs, which a CPU has not."""
    import contextlib
    import io

    import torch._inductor.config as inductor_config
    from torch import nn

    compile_setup()
    torch.manual_seed(0)
    layer, x = nn.Linear(n, n).eval(), torch.randn(batch, n)
    results = []
    for mode in modes:
        fresh = torch.compile(capture.fresh_copy(lambda t, layer=layer: layer(t), f"linear_{len(results)}"),
                              mode=None if mode == "default" else mode)
        printed = io.StringIO()
        with torch.no_grad(), inductor_config.patch(freezing=True), warnings.catch_warnings(), \
                contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            warnings.simplefilter("ignore")
            with compile_events() as events:
                start = time.perf_counter()
                fresh(x)
                seconds = time.perf_counter() - start
            steady = measure(lambda fresh=fresh: fresh(x), mode, repeats=5)
        lines = printed.getvalue().splitlines()
        report = [line.rstrip() for k, line in enumerate(lines)
                  if line.startswith("AUTOTUNE") or (k and "ms" in line and "%" in line)]
        results.append(Autotuned(mode, seconds, events, report, steady))
    return results


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

    @property
    def note(self) -> str:
        if not self.compiled or self.compiled.first_call is None:
            return ""
        return (f"First compiled call at this setting: {self.compiled.first_call:.3f} s "
                f"({self.compiled.first_events.describe()}).")


NO_GPU = ("There is no CUDA GPU on this machine, so nothing can be measured on cuda: choose "
          "cpu. (Section 10 shows what a GPU changes.)")


def speedup(size: int = 2**16, dtype: str = "float32", device: str = "cpu",
            compile: bool = True, repeats: int = 9) -> Speedup:
    """Time ``chain`` on ``size`` elements eager and compiled (Inductor, symbolic size)."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}: choose one of {', '.join(DTYPES)}")
    if device != "cpu" and not (device == "cuda" and torch.cuda.is_available()):
        raise ValueError(NO_GPU)
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
    mib = 2**20
    memory = {"memory_allocated_mib": round(torch.cuda.memory_allocated() / mib, 1),
              "max_memory_allocated_mib": round(torch.cuda.max_memory_allocated() / mib, 1),
              "memory_reserved_mib": round(torch.cuda.memory_reserved() / mib, 1)}
    return {"status": "measured", "device": info["name"], "torch": torch.__version__,
            "date": datetime.date.today().isoformat(), "cpu": _cpu_name(),
            "cpu_threads": torch.get_num_threads(), "rows": rows, "memory": memory,
            "note": "float32 n×n @ n×n, median of repeats after warm-up (torch.utils.benchmark)"}


def format_reference(data: dict) -> str:
    """The reference table as text: its label line, then one row per matmul size; or, when
    none was measured, a plain statement of that."""
    if data["status"] != "measured":
        return ("No measured GPU table exists for this course: no GPU was available when it "
                "was written, so this page shows no GPU measurements. " + data.get("note", "")).strip()
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
    """Median time per call, eager and compiled, with the quartiles as error bars. Each
    bar's numbers are in its row label, clear of the bars and their error bars."""
    if ax is None:
        ax = Figure(figsize=(7.5, 3.6)).add_subplot()
    timings = [result.eager] + ([result.compiled] if result.compiled else [])
    colours = ["#1f77b4", "#d62728"]
    labels = []
    for k, t in enumerate(timings):
        q1, q3 = t.quartiles
        ax.barh(k, _us(t.median), color=colours[k], alpha=0.85,
                xerr=[[_us(t.median - q1)], [_us(q3 - t.median)]], capsize=4)
        gbs = result.points[k].bytes_per_s / 1e9
        labels.append(f"{t.label}\n{_us(t.median):.1f} µs\n{gbs:.1f} GB/s")
    ax.set_yticks(range(len(timings)), labels, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, _us(max(t.quartiles[1] for t in timings)) * 1.15)
    ax.set_xlabel("median µs per call (error bars: quartiles of the repeats)")
    title = f"chain on {result.size:,} {result.dtype} elements, {result.device}"
    if result.ratio:
        title += f": compiled runs {result.ratio:.2f}× as fast as eager"
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, axis="x")
    fig = ax.figure
    fig.subplots_adjust(left=0.17, right=0.97, bottom=0.15, top=0.9)
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
    ax.text(sizes[0], 1.0, " same speed", va="top", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xlim(sizes[0] / 2, sizes[-1] * 2)
    ax.set_xlabel("elements")
    ax.set_ylabel("speedup (eager ÷ compiled)")
    ax.set_ylim(0, max(ratios + [1.0]) * 1.3)
    ax.set_title(f"chain, {results[0].dtype}, {results[0].device}: compiled vs eager",
                 fontsize=9)
    ax.grid(alpha=0.3)
    fig = ax.figure
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9)
    return fig


def draw_add_sweep(result: AddSweep, ax=None):
    """Measured time of ``x.add_(1)`` against size (log-log), with the three bounds: the flat
    overhead, the memory line, the compute line far below."""
    if ax is None:
        ax = Figure(figsize=(7.5, 3.6)).add_subplot()
    sizes = result.sizes
    times = result.seconds
    b = [result.bounds(s) for s in sizes]
    ax.plot(sizes, [x.overhead_s for x in b], color=roofline.REGIME_COLOURS["overhead"], ls="--",
            label="overhead bound (fixed per call)")
    ax.plot(sizes, [x.memory_s for x in b], color=roofline.REGIME_COLOURS["memory"], ls="--",
            label="memory bound (bytes ÷ bandwidth)")
    ax.plot(sizes, [x.compute_s for x in b], color=roofline.REGIME_COLOURS["compute"], ls="--",
            label="compute bound (FLOPs ÷ FLOP/s)")
    ax.plot(sizes, times, "o-", color="black", label="measured (fastest repeat), eager x.add_(1)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("elements")
    ax.set_ylabel("seconds per call")
    ax.grid(alpha=0.3, which="major")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("x.add_(1), float32, one thread: where each size spends its time", fontsize=9)
    fig = ax.figure
    fig.subplots_adjust(left=0.11, right=0.97, bottom=0.14, top=0.9)
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


@contextlib.contextmanager
def quiet_stderr():
    """Run a block with the process's error stream (file descriptor 2) sent nowhere: the
    profiler's C++ side writes a line there at every start and stop, which a notebook would
    paint red. Python's own ``sys.stderr`` is flushed before and after; in a notebook it is a
    stream of its own, which this leaves alone."""
    import sys

    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as nowhere:
            os.dup2(nowhere.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


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

    controls = {
        "size": widgets.SelectionSlider(options=[2**k for k in range(10, 23)], value=size,
                                        description="elements", continuous_update=False),
        "dtype": widgets.Dropdown(options=list(DTYPES), value=dtype, description="dtype"),
        "device": widgets.Dropdown(options=["cpu", "cuda"], value=device, description="device"),
        "compile": widgets.Checkbox(value=compile, description="torch.compile (Inductor)"),
    }
    return Explorer(controls, _explorer_model, draw_speedup,
                    title="Speedup explorer: chain eager vs compiled, measured now")
