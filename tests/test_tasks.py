"""helpers.data_tasks and helpers.compile_tasks, the checks 05's and 06's test cells share:
each passes what a right answer produces and names the misconception of a wrong one; the
constants they hold agree with what torch computes."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import DistributedSampler

from helpers import checks, compile_tasks, data_tasks


def test_check_batch_form_names_what_no_answer_can_be():
    """The form any answer of Exercise 7 has (the right answers are in the hidden judge; the
    round trip and nbmake check them against the reference and the wrong variants)."""
    compile_tasks.check_batch_form(None, "a case", 64)
    compile_tasks.check_batch_form(32, "a case", 64)
    for value, marker in ((128, "roofline.never-compute-bound"), (0, "roofline.never-compute-bound"),
                          (48, "roofline.batch-powers"), (8.0, "roofline.never-compute-bound")):
        with pytest.raises(checks.CheckFailed) as failed:
            compile_tasks.check_batch_form(value, "a case", 64)
        assert failed.value.misconception == marker, value


def test_check_gather_passes_the_right_order_and_names_concatenation_and_padding():
    values = [f"p{i}" for i in range(10)]
    per_rank = data_tasks.per_rank_values(values, 4)
    assert [len(r) for r in per_rank] == [len(DistributedSampler(range(10), num_replicas=4, rank=r, shuffle=False))
                                          for r in range(4)]
    data_tasks.check_gather(list(values), values, 4)
    for wrong, marker in ((sum(per_rank, [])[:10], "data.gather-rank-order"),
                          ([v[k] for k in range(3) for v in per_rank], "data.gather-keeps-padding")):
        with pytest.raises(checks.CheckFailed) as failed:
            data_tasks.check_gather(wrong, values, 4)
        assert failed.value.misconception == marker


def test_check_pad_collate_names_a_float_buffer_and_a_mask_read_from_values():
    batch = [(torch.tensor([7]), 0), (torch.tensor([4, 0, 6, 1, 2, 3, 5, 8, 9]), 2)]
    padded = torch.zeros(2, 16, dtype=torch.int64)
    padded[0, :1], padded[1, :9] = batch[0][0], batch[1][0]
    mask = torch.arange(16) < torch.tensor([1, 9])[:, None]
    data_tasks.check_pad_collate((padded, mask, torch.tensor([0, 2])), batch)
    for result, marker in (((padded.float(), mask, torch.tensor([0, 2])), "data.pad-default-dtype"),
                           ((padded, padded != 0, torch.tensor([0, 2])), "data.mask-from-values"),
                           ((padded, mask.float(), torch.tensor([0, 2])), "data.mask-float")):
        with pytest.raises(checks.CheckFailed) as failed:
            data_tasks.check_pad_collate(result, batch)
        assert failed.value.misconception == marker


def test_check_buckets_names_an_iterator_made_once_and_a_fixed_plan():
    lengths = torch.randint(1, 60, (200,), generator=torch.Generator().manual_seed(0))
    order = sorted(range(200), key=lambda i: int(lengths[i]))
    plan = [order[k:k + 8] for k in range(0, 200, 8)]
    shuffled = [plan[k] for k in torch.randperm(25, generator=torch.Generator().manual_seed(1)).tolist()]
    with pytest.raises(checks.CheckFailed) as failed:
        data_tasks.check_buckets([shuffled, []], [shuffled, []], lengths, 8, 25)
    assert failed.value.misconception == "data.sampler-iterator-once"
    with pytest.raises(checks.CheckFailed) as failed:
        data_tasks.check_buckets([shuffled, shuffled], [shuffled, shuffled], lengths, 8, 25)
    assert failed.value.misconception == "data.buckets-same-every-epoch"


def test_the_bucket_runs_keep_a_default_dtype_buffer_apart():
    def into_float32(compiled_fn, x, buckets):
        size = min(b for b in buckets if b >= len(x))
        padded = torch.zeros(size)
        padded[:len(x)] = x
        return compiled_fn(padded)[:len(x)]

    seen = compile_tasks.bucketed_runs(into_float32, (3, 5, 9), (4, 2), torch.float64, 1)
    with pytest.raises(checks.CheckFailed) as failed:
        compile_tasks.check_bucketed(seen, (3, 5, 9), (4, 2), torch.float64, 1)
    assert failed.value.misconception == "compile.pad-default-dtype"


def test_a_python_min_clip_has_a_nan_gradient_only_when_compiled():
    def clip_min(x, limit):
        return x * min(1.0, limit / torch.linalg.vector_norm(x))

    eager = compile_tasks.gradient(clip_min, torch.zeros(4), 1.0)
    compiled = compile_tasks.gradient(compile_tasks.whole(clip_min), torch.zeros(4), 1.0)
    assert torch.isfinite(eager).all() and not torch.isfinite(compiled).all()


def test_robust_scale_breaks_twice_by_default_and_the_check_names_each_break():
    seen = compile_tasks.breaks(compile_tasks.robust_scale, torch.randn(41))
    assert seen["graphs"] == 3 and len(seen["breaks"]) == 2
    with pytest.raises(checks.CheckFailed) as failed:
        compile_tasks.check_one_graph(seen, "x")
    assert failed.value.misconception == "compile.item-avoids-break"
