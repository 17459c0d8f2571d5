"""helpers.bench and helpers.roofline: the timing model's structure (warm-up, a sync around
every timed call, the median of the samples) checked with a counting clock, never with
wall-clock thresholds; FLOP and byte counts against hand-written formulas and torch."""

import json
import math
import statistics

import matplotlib
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

matplotlib.use("Agg")

from helpers import bench, roofline, timing  # noqa: E402


class Recorder:
    """fn, clock and sync that log the order of events; the clock ticks by given steps."""

    def __init__(self, ticks):
        self.events, self.ticks, self.now = [], list(ticks), 0.0

    def fn(self):
        self.events.append("fn")

    def sync(self):
        self.events.append("sync")

    def clock(self):
        self.events.append("clock")
        value = self.now
        if self.ticks:
            self.now += self.ticks.pop(0)
        return value


def test_time_calls_warms_up_then_brackets_every_call_with_sync():
    rec = Recorder([0.5, 0, 0.125, 0, 0.25, 0])
    timing = bench.time_calls(rec.fn, warmup=2, repeats=3, clock=rec.clock, sync=rec.sync)
    assert rec.events[:2] == ["fn", "fn"], "warm-up calls come first, untimed"
    timed = rec.events[2:]
    assert timed[0] == "sync", "the queue left by the warm-up must be drained before timing"
    per_call = ["sync", "clock", "fn", "sync", "clock"]
    body = timed[1:]
    assert body == per_call * 3
    assert rec.events.count("fn") == 5
    assert timing.samples == [0.5, 0.125, 0.25] and timing.median == 0.25 and timing.warmup == 2


@given(st.lists(st.floats(0, 10, allow_nan=False), min_size=1, max_size=30))
def test_median_and_quartiles_of_given_samples(samples):
    timing = bench.Timing("x", samples)
    assert timing.median == statistics.median(samples)
    q1, q3 = timing.quartiles
    assert min(samples) <= q1 <= timing.median <= q3 <= max(samples)


def test_time_calls_rejects_impossible_counts():
    with pytest.raises(ValueError):
        bench.time_calls(lambda: None, warmup=-1)
    with pytest.raises(ValueError):
        bench.time_calls(lambda: None, repeats=0)


def test_simulated_device_queues_until_sync():
    dev = bench.SimulatedDevice([1.0, 0.25])
    start = dev.clock()
    dev.run()
    assert dev.clock() - start == 0.0, "run() only queues, like a CUDA launch"
    dev.sync()
    assert dev.clock() == 1.0
    dev.run()
    dev.run()                       # the last duration repeats
    dev.sync()
    assert dev.clock() == 1.5 and dev.calls == 3 and dev.syncs == 2
    with pytest.raises(ValueError):
        bench.SimulatedDevice([])


def test_sync_for_cpu_is_a_no_op_and_cuda_synchronises():
    assert bench.sync_for("cpu") is bench.no_sync
    assert bench.sync_for("cuda") is torch.cuda.synchronize


def test_measure_counts_warmup_and_times_the_first_call():
    calls = []
    timing = bench.measure(lambda: calls.append(1), repeats=3, block=1e-4, warmup=2,
                           time_first=True)
    assert len(timing.samples) == 3 and timing.first_call is not None
    assert all(s > 0 for s in timing.samples)
    assert len(calls) >= 2 + 3, "warm-up and every block's calls run"


@given(st.integers(1, 64), st.integers(1, 64), st.integers(1, 64), st.sampled_from([2, 4, 8]))
@settings(max_examples=30, deadline=None)
def test_matmul_cost_against_hand_formula_and_torch(m, k, n, itemsize):
    cost = roofline.matmul_cost(m, k, n, itemsize)
    assert cost.flops == 2 * m * k * n
    assert cost.bytes == itemsize * (m * k + k * n + m * n)
    a, b = torch.randn(m, k), torch.randn(k, n)
    # k multiplies and k adds per output: the product really has m·n outputs of length-k dots
    assert (a @ b).numel() * 2 * k == cost.flops
    assert (a.numel() + b.numel() + (a @ b).numel()) * 4 * itemsize // 4 == cost.bytes


@given(st.integers(1, 10**6), st.integers(1, 20), st.sampled_from([torch.float16, torch.float32, torch.float64]))
def test_elementwise_cost_eager_and_fused(numel, ops, dtype):
    itemsize = torch.empty((), dtype=dtype).element_size()
    eager = roofline.elementwise_cost(numel, ops, itemsize)
    fused = roofline.elementwise_cost(numel, ops, itemsize, fused=True)
    assert eager.flops == fused.flops == numel * ops, "fusion changes traffic, not arithmetic"
    assert eager.bytes == 2 * numel * itemsize * ops
    assert fused.bytes == 2 * numel * itemsize
    assert math.isclose(fused.intensity, eager.intensity * ops)


@pytest.mark.parametrize("args", [(0, 1, 1), (2, -1, 3), (1.5, 2, 2)])
def test_impossible_matmul_sizes_say_why(args):
    with pytest.raises(ValueError, match="positive whole number"):
        roofline.matmul_cost(*args)


def test_roofline_point_and_roof():
    cost = roofline.matmul_cost(4, 4, 4)
    point = roofline.roofline_point(cost, 2.0)
    assert point.flops_per_s == cost.flops / 2 and point.bytes_per_s == cost.bytes / 2
    assert point.intensity == cost.flops / cost.bytes
    assert roofline.attainable(0.5, 100.0, 10.0) == 5.0
    assert roofline.attainable(50.0, 100.0, 10.0) == 100.0
    with pytest.raises(ValueError):
        roofline.roofline_point(cost, 0.0)


def test_peaks_known_and_unknown():
    flops, bw = roofline.peak_for("NVIDIA H100 80GB HBM3")
    assert flops == 67e12 and bw == 3.35e12
    assert roofline.peak_for("AMD EPYC 7B13") == (None, None)


def test_chain_is_eight_elementwise_ops_and_compiles_to_the_same_values():
    x = torch.linspace(-3, 3, 101)
    y = x * 0.5
    y = y + 1.0
    y = torch.abs(y) * 3.0
    y = torch.relu(torch.sqrt(y) - 0.25) * 2.0
    assert torch.allclose(bench.chain(x), y)
    eager_backend = torch.compile(bench.chain, backend="eager")
    assert torch.allclose(eager_backend(x), y)


def test_speedup_refuses_impossible_settings_with_reasons():
    with pytest.raises(ValueError, match="dtype"):
        bench.speedup(2**10, "int8", compile=False)
    with pytest.raises(ValueError, match="between"):
        bench.speedup(10, compile=False)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU on this machine, so nothing can be measured"):
            bench.speedup(2**10, device="cuda", compile=False)


def test_speedup_eager_only_and_its_drawing():
    result = bench.speedup(2**10, compile=False, repeats=3)
    assert result.compiled is None and result.ratio is None and len(result.points) == 1
    assert result.points[0].intensity == pytest.approx(1 / 8)   # 8 FLOPs per 64 bytes
    fig = bench.draw_speedup(result)
    assert fig.axes and fig.axes[0].patches


def test_reference_file_is_valid_and_its_state_is_said():
    data = bench.gpu_reference()
    text = bench.format_reference(data)
    if data["status"] == "not yet measured":
        assert text.startswith("No measured GPU table exists") and not data["rows"]
        assert "gpu_reference.py --write" in text
    else:
        assert data["device"] and data["torch"] and data["date"] and data["rows"]
        assert data["device"] in text


def test_format_reference_of_a_measured_table(tmp_path):
    data = {"status": "measured", "device": "NVIDIA X", "torch": "2.13.0", "date": "2026-11-22",
            "rows": [{"n": 256, "cpu_ms": 2.0, "gpu_ms": 0.5, "gpu_tflops": 0.07}],
            "memory": {"max_memory_allocated_mib": 1.5}}
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(data))
    text = bench.format_reference(bench.gpu_reference(path))
    assert "NVIDIA X" in text and "2026-11-22" in text and "4.0×" in text
    assert bench.draw_gpu_table(data).axes
    path.write_text(json.dumps({"status": "guessed"}))
    with pytest.raises(ValueError, match="status"):
        bench.gpu_reference(path)


def test_explorer_says_there_is_no_gpu_and_recovers():
    explorer = bench.explore(size=2**10, compile=False)
    assert explorer.error is None
    assert explorer.controls["device"].options == ("cpu", "cuda"), "short, whole labels"
    if not torch.cuda.is_available():
        explorer.controls["device"].value = "cuda"
        assert explorer.error and "no CUDA GPU" in explorer.error
        assert "disabled" not in explorer.error, "the choice can be selected: it is not disabled"
        explorer.controls["device"].value = "cpu"
        assert explorer.error is None


def test_speedup_labels_sit_in_the_row_labels_clear_of_the_error_bars():
    """Once seen: '833.7 µs' written from the end of an error bar, over its cap."""
    from helpers.lab import picture_check
    result = bench.speedup(2**10, compile=False, repeats=3)
    eager = result.eager
    compiled = bench.Timing("compiled", [s / 3 for s in eager.samples], first_call=0.5,
                            first_events=bench.CompileEvents(1, 0, 1))
    result = bench.Speedup(result.size, result.dtype, result.device, eager, compiled,
                           result.points * 2)
    fig = bench.draw_speedup(result)
    assert picture_check.problems(fig) == []
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "µs" in labels[0] and "GB/s" in labels[0] and labels[1].startswith("compiled")
    assert "1 compiled by Inductor now" in result.note


def test_compile_events_count_graphs_and_say_when_nothing_compiled():
    def f(x):
        return torch.sin(x) + 1

    compiled = torch.compile(f, backend="eager")
    with bench.compile_events() as first:
        compiled(torch.ones(3))
    with bench.compile_events() as again:
        compiled(torch.ones(3))
    with bench.compile_events() as new_dtype:
        compiled(torch.ones(3, dtype=torch.float64))
    assert (first.graphs, again.graphs, new_dtype.graphs) == (1, 0, 1)
    assert first.cache_hits == first.cache_misses == 0, "the eager backend never asks Inductor"
    assert "nothing compiled" in again.describe() and "1 graph captured" in first.describe()


def test_machine_roof_is_measured_once_and_is_positive():
    roof = bench.machine_roof()
    assert bench.machine_roof() is roof, "measured once per session"
    assert roof.flops > 0 and roof.bytes_per_s > 0 and roof.overhead_s > 0
    assert roof.ridge == roof.flops / roof.bytes_per_s


def test_add_sweep_reports_each_sizes_fastest_repeat_and_its_bound():
    roof = roofline.Roof("toy", flops=1e10, bytes_per_s=1e9, overhead_s=1e-5)
    result = bench.add_sweep((10, 10**6), roof)
    (small, t_small, b_small), (big, t_big, b_big) = result.rows()
    assert (small, big) == (10, 10**6)
    assert t_small == min(result.timings[0].samples) and t_big == min(result.timings[1].samples)
    assert b_small == "overhead" and b_big == "memory", "8 MB at 1 GB/s beats 10 µs"
    assert bench.draw_add_sweep(result).axes


def test_verdict_uses_the_clear_threshold_on_both_sides():
    assert bench.verdict(1.0, 0.79) == "faster than eager"
    assert bench.verdict(1.0, 0.81) == "about as fast as eager"
    assert bench.verdict(1.0, 1.24) == "about as fast as eager"
    assert bench.verdict(1.0, 1.26) == "slower than eager"


def test_machine_roof_times_its_matmul_and_copy_one_call_per_sample(monkeypatch):
    timed = []
    real = timing.time_calls

    def spy(fn, warmup=3, repeats=20, **kwargs):
        timing = real(fn, warmup, repeats, **kwargs)
        timed.append(len(timing.samples))
        return timing

    monkeypatch.setattr(timing, "time_calls", spy)
    bench.machine_roof.cache_clear()
    try:
        roof = bench.machine_roof(n=64, numel=2**16, repeats=3)
    finally:
        bench.machine_roof.cache_clear()
    assert timed == [3, 3], "the matmul and the copy, one call per sample"
    assert roof.flops > 0 and roof.bytes_per_s > 0 and roof.overhead_s > 0
    assert "64³ matmul" in roof.source and "65,536 floats" in roof.source
    assert "one thread" in roof.source, "a compute-bound verdict names the roof it is under"
    assert roof.cache_bytes_per_s > 0


def _imports(module: str) -> set[str]:
    """The helpers modules ``module`` imports anywhere in its file, lazily inside a function
    included (a lazy import is still a circle)."""
    import ast
    from pathlib import Path

    tree = ast.parse((Path(__file__).resolve().parent.parent / "helpers" / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "helpers":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helpers."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("helpers.")}
    return found


def test_bench_roofline_and_timing_import_one_way_only():
    graph = {m: _imports(m) & {"bench", "roofline", "timing"} for m in ("bench", "roofline", "timing")}

    def reaches(start, goal, seen=()):
        return any(n == goal or (n not in seen and reaches(n, goal, (*seen, n))) for n in graph[start])

    assert not any(reaches(m, m) for m in graph), f"an import circle among {graph}"
    assert graph["timing"] == set() and "bench" not in graph["roofline"]
    assert bench.machine_roof is roofline.machine_roof and bench.measure is timing.measure


def test_quiet_stderr_drops_what_the_process_writes_to_descriptor_2(capfd):
    import os
    import sys

    with bench.quiet_stderr():
        os.write(2, b"from C\n")          # what the profiler's C++ side does
        print("from Python", file=sys.stderr)
    os.write(2, b"after\n")
    _, err = capfd.readouterr()
    assert "from C" not in err and "after" in err
    assert "from Python" in err, "Python's sys.stderr (a Jupyter stream, here pytest's) is left alone"
