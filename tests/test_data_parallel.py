"""helpers.data_parallel against torch itself: two real gloo processes running
DistributedDataParallel give the losses and weights of one process training on the global
batches; no_sync saves all-reduces and changes no weight; impossible settings say why."""

import pytest
import torch
from torch.utils.data import DistributedSampler

from helpers import data_parallel as dp
from helpers.loss_curves import digits

X, y = (t[:256] for t in digits()[:2])


def test_two_processes_match_one_process_on_the_global_batches():
    plain, accumulated, quiet = dp.run_ranks(X, y, batch_size=32, epochs=2, lr=0.2,
                                             variants=((1, False), (2, False), (2, True)))
    single, weights = dp.single_process(X, y, batch_size=32, epochs=2, lr=0.2)
    steps = 2 * len(X) // (2 * 32)
    for run in (plain, accumulated, quiet):
        assert [r.rank for r in run] == [0, 1]
        for rank in run:
            assert len(rank.global_losses) == len(rank.local_losses) == steps
            # every process ends with the same weights as one process on the global batches
            assert dp.largest_difference(rank.weights, weights) < 1e-6
            assert max(abs(a - b) for a, b in zip(rank.global_losses, single)) < 1e-5
        # the global loss is the mean of the processes' own losses
        mean = [(a + b) / 2 for a, b in zip(run[0].local_losses, run[1].local_losses)]
        assert max(abs(a - b) for a, b in zip(mean, run[0].global_losses)) < 1e-6
        assert run[0].local_losses != run[1].local_losses  # each process sees other rows
    # one all-reduce per backward, and no_sync leaves out all but the last micro-batch's
    assert set(plain[0].allreduces_per_step) == {1}
    assert set(accumulated[0].allreduces_per_step) == {2}
    assert set(quiet[0].allreduces_per_step) == {1}


def test_global_batches_are_the_samplers_rows_in_rank_order():
    batches = list(dp.global_batches(40, 2, 5, epochs=2, seed=3))
    assert len(batches) == 8 and all(len(b) == 10 for b in batches)
    for epoch in range(2):
        orders = []
        for rank in range(2):
            sampler = DistributedSampler(range(40), num_replicas=2, rank=rank, shuffle=True, seed=3)
            sampler.set_epoch(epoch)
            orders.append(list(sampler))
        for k in range(4):
            assert batches[4 * epoch + k] == orders[0][5 * k:5 * k + 5] + orders[1][5 * k:5 * k + 5]
        assert sorted(i for b in batches[4 * epoch:4 * epoch + 4] for i in b) == list(range(40))


def test_spawned_processes_give_the_same_numbers():
    forked, = dp.run_ranks(X[:64], y[:64], batch_size=16, start_method="fork")
    spawned, = dp.run_ranks(X[:64], y[:64], batch_size=16, start_method="spawn")
    assert forked[0].global_losses == spawned[0].global_losses
    assert dp.largest_difference(forked[1].weights, spawned[1].weights) == 0.0


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(batch_size=30), "whole batches"),
    (dict(batch_size=32, variants=((3, False),)), "equal micro-batches"),
    (dict(world_size=0), "at least 1"),
])
def test_impossible_settings_say_why(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        dp.run_ranks(X, y, **kwargs)


def test_largest_difference_compares_like_with_like():
    a = {"w": torch.zeros(2), "b": torch.ones(1)}
    assert dp.largest_difference(a, {"w": torch.tensor([0.0, 0.5]), "b": torch.ones(1)}) == 0.5
    with pytest.raises(ValueError, match="different keys"):
        dp.largest_difference(a, {"w": torch.zeros(2)})
