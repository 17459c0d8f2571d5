"""Data-parallel training on the CPU: two processes, the gloo backend, gradients all-reduced.

Notebook 04 runs this to show the shape of ``DistributedDataParallel`` (DDP) without a GPU:

* ``run_ranks(...)`` starts ``world_size`` processes. Each joins one process group (gloo,
  rendezvous through a file), wraps the same seeded MLP in ``DistributedDataParallel``, reads
  its own share of the data through a ``DistributedSampler`` (05), and trains; after every
  ``backward`` DDP has averaged the gradients across the processes (an all-reduce), so every
  process takes the same step. Each process also all-reduces its batch loss, to report the
  loss of the global batch, and counts the all-reduces DDP performs (a communication hook).
  ``accumulate`` > 1 splits each process's batch into micro-batches whose gradients add up
  before one step; ``no_sync=True`` skips the all-reduce on all but the last of them.
* ``single_process(...)`` trains the same model in one process on the global batches (each
  step's rows of all processes together, in the order the samplers give them): what the
  processes compute together.

The worker is a module-level function because a started process must find it by name (05:
a function defined in a notebook lives in ``__main__``, which a spawned process cannot
import). Linux forks the processes (fast); elsewhere they are spawned.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import tempfile
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from helpers.loss_curves import mlp


@dataclass
class RankResult:
    """What one process saw: its own batch losses, the global batch's (all-reduced) losses,
    how many all-reduces DDP ran in each step, and the weights it ended with."""
    rank: int
    local_losses: list[float] = field(default_factory=list)
    global_losses: list[float] = field(default_factory=list)
    allreduces_per_step: list[int] = field(default_factory=list)
    weights: dict[str, torch.Tensor] = field(default_factory=dict)


def _check(world_size: int, batch_size: int, accumulate: int, rows: int) -> None:
    if world_size < 1 or batch_size < 1 or accumulate < 1:
        raise ValueError("world_size, batch_size and accumulate must be at least 1")
    if batch_size % accumulate:
        raise ValueError(f"a batch of {batch_size} does not split into {accumulate} equal micro-batches")
    if rows % (world_size * batch_size):
        raise ValueError(f"{rows} rows do not make whole batches of {batch_size} on {world_size} "
                         "processes: the last batches would differ in size")


def _counting_allreduce(counter: list[int]):
    """DDP's default communication (average the bucket's gradients), counted."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    def hook(state, bucket):
        counter[0] += 1
        return default_hooks.allreduce_hook(state, bucket)
    return hook


def _train(model_seed: int, rank: int, world_size: int, X: torch.Tensor, y: torch.Tensor,
           settings: dict, accumulate: int, no_sync: bool) -> RankResult:
    """One training run of this process, inside the process group."""
    model = nn.parallel.DistributedDataParallel(mlp(settings["hidden"], seed=model_seed))
    calls = [0]
    model.register_comm_hook(None, _counting_allreduce(calls))
    optimizer = torch.optim.SGD(model.parameters(), lr=settings["lr"])
    data = TensorDataset(X, y)
    sampler = DistributedSampler(data, num_replicas=world_size, rank=rank, shuffle=True,
                                 seed=settings["seed"])
    loader = DataLoader(data, batch_size=settings["batch_size"], sampler=sampler)
    result = RankResult(rank)
    micro = settings["batch_size"] // accumulate
    for epoch in range(settings["epochs"]):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every process
        for xb, yb in loader:
            calls[0] = 0
            optimizer.zero_grad()
            total = 0.0
            for k in range(accumulate):
                part = slice(k * micro, (k + 1) * micro)
                # no_sync must cover the forward pass too: DDP prepares the all-reduce there
                quiet = model.no_sync() if no_sync and k < accumulate - 1 else contextlib.nullcontext()
                with quiet:  # inside no_sync the gradient only adds up here; nothing is sent
                    loss = nn.functional.cross_entropy(model(xb[part]), yb[part]) / accumulate
                    loss.backward()
                total += loss.item()
            optimizer.step()
            mean = torch.tensor(total)
            dist.all_reduce(mean)  # the processes' losses summed (not counted: not DDP's)
            result.local_losses.append(total)
            result.global_losses.append(mean.item() / world_size)
            result.allreduces_per_step.append(calls[0])
    result.weights = {k: v.clone() for k, v in model.module.state_dict().items()}
    return result


def _worker(rank: int, world_size: int, store: str, out_dir: str, X: torch.Tensor,
            y: torch.Tensor, settings: dict) -> None:
    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # no network is needed, or wanted
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank,
                            world_size=world_size, timeout=datetime.timedelta(seconds=60))
    try:
        results = [_train(settings["seed"], rank, world_size, X, y, settings, accumulate, no_sync).__dict__
                   for accumulate, no_sync in settings["variants"]]
        torch.save(results, os.path.join(out_dir, f"rank{rank}.pt"))
    finally:
        dist.destroy_process_group()


def run_ranks(X: torch.Tensor, y: torch.Tensor, world_size: int = 2, batch_size: int = 32,
              epochs: int = 1, lr: float = 0.1, hidden: tuple[int, ...] = (32,), seed: int = 0,
              variants: tuple[tuple[int, bool], ...] = ((1, False),),
              start_method: str | None = None) -> list[list[RankResult]]:
    """Train ``mlp(hidden)`` on (X, y) in ``world_size`` processes, ``batch_size`` rows per
    process per step, once per variant ``(accumulate, no_sync)``, all in one process group
    (processes start once). For each variant, one ``RankResult`` per process, in rank order.
    ``start_method``: "fork" (Linux's default here) or "spawn" (the default elsewhere)."""
    for accumulate, _ in variants:
        _check(world_size, batch_size, accumulate, len(X))
    settings = dict(batch_size=batch_size, epochs=epochs, lr=lr, hidden=tuple(hidden), seed=seed,
                    variants=[(int(a), bool(n)) for a, n in variants])
    # forkserver: the processes fork from a fresh server, not from this one (whose thread
    # pools a forked child would inherit half-made); spawn where there is no fork
    # Linux forks the processes from this one: a fork starts in a fraction of a second, a
    # spawned process imports torch again. DDP's constructor reads torch._dynamo, which
    # imports seconds of modules: imported here once, the forked processes share it.
    import torch._dynamo  # noqa: F401
    method = start_method or ("fork" if sys.platform.startswith("linux") else "spawn")
    with tempfile.TemporaryDirectory(prefix="ddp_") as out_dir:
        mp.start_processes(_worker, args=(world_size, os.path.join(out_dir, "store"), out_dir,
                                          X, y, settings),
                           nprocs=world_size, join=True, start_method=method)
        per_rank = [torch.load(os.path.join(out_dir, f"rank{r}.pt"), weights_only=True)
                    for r in range(world_size)]
    return [[RankResult(**per_rank[r][v]) for r in range(world_size)] for v in range(len(variants))]


def global_batches(rows: int, world_size: int, batch_size: int, epochs: int, seed: int = 0):
    """The rows of each step's global batch: every process's batch of that step, in rank
    order, as the DistributedSamplers of ``run_ranks`` hand them out."""
    samplers = [DistributedSampler(range(rows), num_replicas=world_size, rank=r, shuffle=True,
                                   seed=seed) for r in range(world_size)]
    for epoch in range(epochs):
        orders = []
        for sampler in samplers:
            sampler.set_epoch(epoch)
            orders.append(list(sampler))
        for start in range(0, len(orders[0]), batch_size):
            yield [i for order in orders for i in order[start:start + batch_size]]


def single_process(X: torch.Tensor, y: torch.Tensor, world_size: int = 2, batch_size: int = 32,
                   epochs: int = 1, lr: float = 0.1, hidden: tuple[int, ...] = (32,),
                   seed: int = 0) -> tuple[list[float], dict[str, torch.Tensor]]:
    """The same training in one process on the global batches (world_size·batch_size rows
    a step): its losses and final weights."""
    _check(world_size, batch_size, 1, len(X))
    model = mlp(hidden, seed=seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for rows in global_batches(len(X), world_size, batch_size, epochs, seed):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(X[rows]), y[rows])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, {k: v.clone() for k, v in model.state_dict().items()}


def largest_difference(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    """The largest absolute difference between two state_dicts' entries."""
    if a.keys() != b.keys():
        raise ValueError("the two state_dicts have different keys")
    return max((a[k].double() - b[k].double()).abs().max().item() for k in a) if a else 0.0
