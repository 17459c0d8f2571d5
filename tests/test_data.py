"""The batch plan equals what a real DataLoader yields, for random settings; the explorer
draws it and answers impossible settings inside the widget."""

import math

import matplotlib
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.data import DataLoader, DistributedSampler, WeightedRandomSampler

matplotlib.use("Agg")

from helpers import data  # noqa: E402

sizes = st.integers(1, 60)
batch_sizes = st.integers(1, 17)
seeds = st.integers(0, 2**31 - 1)


def index_batches(loader):
    return [batch.tolist() for batch in loader]


@settings(max_examples=60, deadline=None)
@given(n=sizes, b=batch_sizes, shuffle=st.booleans(), seed=seeds, drop_last=st.booleans())
def test_default_sampler_matches_dataloader(n, b, shuffle, seed, drop_last):
    loader = DataLoader(range(n), batch_size=b, shuffle=shuffle, drop_last=drop_last,
                        generator=torch.Generator().manual_seed(seed))
    got = data.plan(n, b, shuffle=shuffle, seed=seed, drop_last=drop_last)
    assert got.batches == index_batches(loader)
    assert got.steps == len(loader)
    yielded = sum(got.batches, [])
    assert sorted(yielded + got.dropped) == list(range(n))


@settings(max_examples=40, deadline=None)
@given(n=sizes, b=batch_sizes, seed=seeds, drop_last=st.booleans())
def test_weighted_sampler_matches_dataloader(n, b, seed, drop_last):
    weights = data.class_balancing(data.toy_labels(n))
    sampler = WeightedRandomSampler(weights, n, replacement=True,
                                    generator=torch.Generator().manual_seed(seed))
    loader = DataLoader(range(n), batch_size=b, sampler=sampler, drop_last=drop_last)
    got = data.plan(n, b, seed=seed, drop_last=drop_last, sampler="weighted")
    assert got.batches == index_batches(loader)
    assert got.steps == len(loader)


@settings(max_examples=40, deadline=None)
@given(n=sizes, b=batch_sizes, shuffle=st.booleans(), seed=st.integers(0, 1000),
       drop_last=st.booleans(), world=st.integers(1, 7), data_=st.data())
def test_distributed_sampler_matches_every_rank(n, b, shuffle, seed, drop_last, world, data_):
    for rank in range(world):
        sampler = DistributedSampler(range(n), num_replicas=world, rank=rank,
                                     shuffle=shuffle, seed=seed)
        loader = DataLoader(range(n), batch_size=b, sampler=sampler, drop_last=drop_last)
        got = data.plan(n, b, shuffle=shuffle, seed=seed, drop_last=drop_last,
                        sampler="distributed", world_size=world, rank=rank)
        assert got.batches == index_batches(loader), rank
        assert got.shares[rank] == list(sampler)
    assert got.padding == math.ceil(n / world) * world - n


def test_class_balancing_gives_every_class_the_same_weight():
    labels = torch.tensor(data.toy_labels(50))
    weights = data.class_balancing(labels)
    totals = [weights[labels == c].sum().item() for c in range(3)]
    assert totals == pytest.approx([1.0, 1.0, 1.0])


def test_the_curriculum_numbers():
    p = data.plan(10_000, 128)
    assert (p.steps, p.last_size, p.ragged) == (79, 16, True)
    p = data.plan(10_000, 128, drop_last=True)
    assert (p.steps, len(p.dropped)) == (78, 16)


@pytest.mark.parametrize("kwargs, words", [
    ({"n": 0}, "at least one item"),
    ({"batch_size": 0}, "positive batch size"),
    ({"sampler": "weighted", "shuffle": True}, "untick shuffle"),
    ({"sampler": "distributed", "world_size": 2, "rank": 2}, "ranks are 0 to 1"),
    ({"sampler": "distributed", "world_size": 0}, "at least one rank"),
    ({"sampler": "distributed", "world_size": 65}, "up to 64 ranks"),
    ({"n": 20_001}, "at most 20,000 items"),
    ({"seed": -1}, "whole number from 0"),
    ({"seed": 2**40}, "whole number from 0"),
])
def test_impossible_settings_say_why(kwargs, words):
    with pytest.raises(ValueError, match=words):
        data.plan(**kwargs)


def test_explorer_draws_and_explains_inside_the_widget():
    explorer = data.explore()
    assert explorer.error is None and explorer.image.value
    before = explorer.image.value
    for name, value in [("sampler", "distributed"), ("world_size", 4), ("rank", 3),
                        ("n", 10_000), ("batch_size", 128), ("sampler", "weighted")]:
        explorer.controls[name].value = value
        assert explorer.error is None, (name, explorer.error)
    assert explorer.image.value != before
    explorer.controls["shuffle"].value = True
    assert "untick shuffle" in explorer.error and "⚠" in explorer.message.value
    explorer.controls["shuffle"].value = False
    assert explorer.error is None and explorer.message.value == ""


def test_a_batch_size_far_above_n_draws_one_short_batch():
    p = data.plan(10, 10**9)
    assert (p.steps, p.last_size) == (1, 10)
    fig = data.draw_plan(p)
    assert fig.axes[0].images[0].get_array().shape[:2] == (1, 10)


@pytest.mark.parametrize("kwargs", [{}, {"n": 10_000, "batch_size": 128},
                                    {"sampler": "distributed", "world_size": 3, "n": 10},
                                    {"sampler": "weighted", "n": 30, "drop_last": True}])
def test_drawing_marks_the_last_batch(kwargs):
    p = data.plan(**kwargs)
    fig = data.draw_plan(p)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert f" last batch: {p.last_size}" in texts


def test_toy_sentences_are_seeded_varied_and_labelled_by_their_tokens():
    first, again = data.toy_sentences(300, seed=4), data.toy_sentences(300, seed=4)
    assert all(torch.equal(a, b) and la == lb for (a, la), (b, lb) in zip(first, again))
    state = torch.get_rng_state()
    data.toy_sentences(10, seed=1)
    assert torch.equal(state, torch.get_rng_state()), "the global generator is left alone"
    lengths = [len(t) for t, _ in first]
    assert min(lengths) >= 4 and max(lengths) <= 160 and len(set(lengths)) > 20
    assert sorted(lengths)[len(lengths) // 2] < sum(lengths) / len(lengths), "most short, a few long"
    for tokens, label in first:
        assert tokens.dtype == torch.int64 and tokens.min() >= 0 and tokens.max() < 32
        assert label == int((tokens == 1).sum() > (tokens == 2).sum())
    with pytest.raises(ValueError, match="vocab"):
        data.toy_sentences(5, vocab=2)
