"""helpers.roofline's regimes and its explorer: costs against torch's own FLOP counter and
tensor sizes, the three bounds against a brute-force reading of their definition, the
datasheet table labelled as such, impossible settings answered inside the widget."""

from __future__ import annotations

import matplotlib
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.flop_counter import FlopCounterMode

matplotlib.use("Agg")

from helpers import roofline  # noqa: E402
from helpers.lab import picture_check  # noqa: E402

ROOF = roofline.Roof("toy", flops=1e11, bytes_per_s=1e10, overhead_s=5e-6)


@given(st.integers(1, 48), st.integers(1, 48), st.integers(1, 48))
@settings(max_examples=25, deadline=None)
def test_matmul_cost_agrees_with_torchs_flop_counter_and_tensor_sizes(m, k, n):
    a, b = torch.randn(m, k), torch.randn(k, n)
    with FlopCounterMode(display=False) as counter:
        out = a @ b
    cost = roofline.matmul_cost(m, k, n)
    assert cost.flops == counter.get_total_flops()
    assert cost.bytes == a.nbytes + b.nbytes + out.nbytes


@given(st.floats(1, 1e13), st.floats(1, 1e13), st.floats(1e-7, 1e-3))
def test_bounds_name_the_largest_of_the_three_times(flops, nbytes, overhead):
    roof = roofline.Roof("r", flops=1e11, bytes_per_s=1e10, overhead_s=overhead)
    b = roofline.bounds(roofline.Cost("op", flops, nbytes), roof)
    times = {"overhead": overhead, "memory": nbytes / 1e10, "compute": flops / 1e11}
    assert b.seconds == pytest.approx(times)
    assert times[b.bound] == max(times.values()) and b.floor_s == max(times.values())
    assert roofline.regime(roofline.Cost("op", flops, nbytes), roof) == b.bound


def test_an_elementwise_op_is_overhead_then_memory_bound_never_compute():
    regimes = [roofline.regime(roofline.elementwise_cost(n, 1), ROOF) for n in (10, 10**4, 10**8)]
    assert regimes == ["overhead", "memory", "memory"]
    # fusing eight ops divides the bytes by eight, not the FLOPs
    eager, fused = roofline.elementwise_cost(2**20, 8), roofline.elementwise_cost(2**20, 8, fused=True)
    assert fused.flops == eager.flops and fused.bytes * 8 == eager.bytes


def test_a_roof_without_a_measured_overhead_counts_none():
    roof = roofline.Roof("datasheet only", flops=1e12, bytes_per_s=1e11)
    assert roofline.bounds(roofline.elementwise_cost(1, 1), roof).overhead_s == 0.0


def test_datasheet_rows_are_labelled_with_source_and_year_and_dense_figures():
    text = roofline.format_datasheet()
    assert "datasheet" in text.lower() and "not measured here" in text
    for sheet in roofline.DATASHEET:
        assert sheet.name in text and sheet.source in text
        assert "datasheet" in sheet.source and any(ch.isdigit() for ch in sheet.source)
        assert sheet.float32 < (sheet.tensor16 or float("inf")), "tensor cores beat CUDA cores"
    h100 = roofline.SHEETS["NVIDIA H100 SXM"]
    assert (h100.float32, h100.tensor16, h100.bytes_per_s) == (67e12, 989e12, 3.35e12)
    assert roofline.peak_for("NVIDIA H100 80GB HBM3") == (67e12, 3.35e12)
    assert roofline.peak_for("NVIDIA H100 80GB HBM3", "bfloat16") == (989e12, 3.35e12)
    assert roofline.peak_for("AMD EPYC 7B13") == (None, None)


def test_view_puts_one_operation_on_both_roofs():
    v = roofline.view("matrix-vector (n×n) @ (n)", 4096, "NVIDIA H100 SXM", ROOF)
    assert v.cost == roofline.matmul_cost(4096, 4096, 1)
    assert v.gpu.overhead_s == ROOF.overhead_s, "the host's overhead, said so in the note"
    assert v.bounds_here.bound == "memory" and v.bounds_gpu.bound == "memory"
    assert "memory-bound" in v.note and "datasheet" in v.note and "host" in v.note
    square = roofline.view("matmul (n×n) @ (n×n)", 4096, "NVIDIA H100 SXM", ROOF)
    assert square.bounds_here.bound == "compute"


@pytest.mark.parametrize("op, n, gpu, why", [
    ("matmul (n×n) @ (n×n)", 2**20, "NVIDIA H100 SXM", "too large"),
    ("softmax", 64, "NVIDIA H100 SXM", "unknown operation"),
    ("matmul (n×n) @ (n×n)", 64, "a GPU nobody made", "no datasheet"),
    ("matmul (n×n) @ (n×n)", 0, "NVIDIA H100 SXM", "positive whole number"),
])
def test_impossible_views_say_why(op, n, gpu, why):
    with pytest.raises(ValueError, match=why):
        roofline.view(op, n, gpu, ROOF)


def test_every_operation_and_gpu_draws_a_clean_picture():
    for op in roofline.OPS:
        for gpu in roofline.SHEETS:
            for n in (1, 4096):
                fig = roofline.draw_view(roofline.view(op, n, gpu, ROOF))
                assert picture_check.problems(fig) == [], (op, gpu, n)


def test_explorer_answers_an_impossible_size_in_the_widget_and_recovers():
    points = [roofline.roofline_point(roofline.matmul_cost(8, 8, 8), 1e-6, "measured")]
    explorer = roofline.explore(here=ROOF, points=points)
    assert explorer.error is None and explorer.result.points == points
    explorer.controls["op"].value = "matmul (n×n) @ (n×n)"
    assert explorer.error and "too large" in explorer.error   # n = 2**20 rows
    explorer.controls["n"].value = 1024
    assert explorer.error is None and explorer.result.bounds_here.bound == "compute"
    explorer.controls["gpu"].value = "NVIDIA T4"
    assert explorer.result.gpu.name == "NVIDIA T4 (datasheet)"


def _line_heights(fig, label):
    """The y values of the line drawn with ``label``, over its x values."""
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == label]
    return dict(zip(line.get_xdata(), line.get_ydata()))


def test_the_picture_draws_the_caches_roof_that_bounds_a_cache_resident_point():
    """A point above main memory's sloped roof (data that stayed in the caches) is under the
    dotted roof of the caches, which the picture draws and names."""
    roof = roofline.Roof("toy", flops=1e11, bytes_per_s=1e10, overhead_s=5e-6, source="toy roof",
                         cache_bytes_per_s=5e10)
    cost = roofline.elementwise_cost(2**16, 8, fused=True)
    seconds = cost.bytes / 3e10                      # 30 GB/s: above main memory, under the caches
    point = roofline.roofline_point(cost, seconds, "cache-resident")
    assert point.flops_per_s > roofline.attainable(point.intensity, roof.flops, roof.bytes_per_s)
    assert point.flops_per_s < roofline.attainable(point.intensity, roof.flops, roof.cache_bytes_per_s)
    fig = roofline.draw_roofline([point], roof)
    cached = _line_heights(fig, roofline.CACHE_NOTE)
    lo = min(cached)
    assert cached[lo] == pytest.approx(lo * roof.cache_bytes_per_s), "the dotted roof is the caches' slope"
    assert not picture_check.problems(fig), picture_check.problems(fig)
    view = roofline.view("chain of 8 elementwise, fused", 2**16, "NVIDIA H100 SXM", roof, [point])
    fig = roofline.draw_view(view)
    assert any(ln.get_label() == "here, data in the caches" for ln in fig.axes[0].get_lines())
    assert not picture_check.problems(fig), picture_check.problems(fig)


def test_a_roof_without_a_caches_figure_draws_one_memory_roof():
    fig = roofline.draw_roofline([roofline.roofline_point(roofline.matmul_cost(8, 8, 8), 1e-5)], ROOF)
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert roofline.CACHE_NOTE not in labels and "roof: main memory, then compute" in labels
