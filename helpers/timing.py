"""Timing done right: warm-up, a synchronisation around every timed call, the samples.

``time_calls`` takes the clock and the sync as arguments, so that tests can count them;
``measure`` does the same with ``torch.utils.benchmark`` (blocks of calls, CUDA synchronised);
``SimulatedDevice`` is an asynchronous device in miniature, for showing a missing sync on a
CPU; ``compile_events`` says what a block compiled and whether Inductor's cache answered.

This module imports nothing else of ``helpers``: ``roofline`` (which measures this machine's
roof with it) and ``bench`` (the notebook's experiments) both build on it, one way only.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass
class Timing:
    """Seconds per call of the timed repeats (warm-up calls excluded)."""
    label: str
    samples: list[float]
    warmup: int = 0
    first_call: float | None = None   # seconds of the very first call, when it was timed
    first_events: CompileEvents | None = None   # what that first call compiled

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


@dataclass
class CompileEvents:
    """What happened during a block: graphs Dynamo captured, and for Inductor's graphs
    whether the compiled code came from its on-disk cache (the FX graph cache) or was
    generated and compiled now. Read from torch's internal counters
    (``torch._dynamo.utils.counters``: no public API reports them)."""
    graphs: int = 0
    cache_hits: int = 0
    cache_misses: int = 0

    def describe(self) -> str:
        if not self.graphs:
            return "nothing compiled: a graph compiled earlier was reused"
        said = f"{self.graphs} graph{'s' if self.graphs != 1 else ''} captured"
        if self.cache_misses:
            said += f", {self.cache_misses} compiled by Inductor now (not in its cache)"
        if self.cache_hits:
            said += f", {self.cache_hits} loaded from Inductor's cache"
        return said


def _counts() -> tuple[int, int, int]:
    from torch._dynamo.utils import counters
    return (counters["stats"]["unique_graphs"], counters["inductor"]["fxgraph_cache_hit"],
            counters["inductor"]["fxgraph_cache_miss"])


@contextlib.contextmanager
def compile_events():
    """``with compile_events() as seen:`` fills ``seen`` (a CompileEvents) when the block
    ends."""
    seen = CompileEvents()
    before = _counts()
    try:
        yield seen
    finally:
        after = _counts()
        seen.graphs, seen.cache_hits, seen.cache_misses = (a - b for a, b in zip(after, before))


def measure(fn: Callable[[], object], label: str = "", repeats: int = 9,
            block: float = 0.005, warmup: int = 1, time_first: bool = False) -> Timing:
    """Steady-state seconds per call with ``torch.utils.benchmark.Timer``, which
    synchronises CUDA itself. Each of the ``repeats`` samples times a block of calls
    lasting about ``block`` seconds (one call of a fast function is too short for the
    clock), so the samples' spread is the run-to-run spread.

    With ``time_first`` the first call is timed on its own and kept as ``first_call``, with
    what it compiled (``first_events``); it then counts as one of the warm-up calls.
    """
    from torch.utils import benchmark

    first, events = None, None
    if time_first:
        with compile_events() as events:
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
    return Timing(label, samples, warmup + 1 + (1 if time_first else 0), first, events)
