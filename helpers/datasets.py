"""Datasets and helpers that DataLoader worker processes use (notebook 05).

Why a module and not notebook cells: a worker process must get the dataset, the collate
function and the ``worker_init_fn``. Under the "fork" start method (Linux's default up to
Python 3.13) it inherits them; under "spawn" (macOS and Windows) and "forkserver" (Linux's
default from Python 3.14) they are pickled, and pickle stores a class or function *by
reference*: its module and name, to be imported again in the worker. A class defined in a
notebook lives in ``__main__``, which a spawned worker cannot import, so it fails there.
Everything here is importable as ``helpers.datasets.<name>``.

``NoisyItems`` owns a generator that every worker receives a copy of, in the same state and
never reseeded by the loader: notebook 05 prints its source above a quiz on exactly that, so
its own docstring says what it is, not what follows from it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
import traceback
from dataclasses import dataclass

import numpy as np
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info


class TinyItems(Dataset):
    """Items that cost almost nothing to make: a 16-float tensor per index."""

    def __init__(self, n: int, width: int = 16):
        self.n, self.width = n, width

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        return torch.full((self.width,), float(i))


class WaitingItems(TinyItems):
    """Items that wait ``wait_s`` before they arrive, like a read from a slow disk or a
    network file system: the process sleeps, the CPU is free for others."""

    def __init__(self, n: int, wait_s: float = 0.002, width: int = 16):
        super().__init__(n, width)
        self.wait_s = wait_s

    def __getitem__(self, i):
        time.sleep(self.wait_s)
        return super().__getitem__(i)


class ComputingItems(TinyItems):
    """Items that cost CPU work to make (about 2 ms on one core here), like decoding an
    image: a worker only speeds this up when a core is free for it."""

    def __init__(self, n: int, rounds: int = 5, width: int = 16):
        super().__init__(n, width)
        self.rounds = rounds

    def __getitem__(self, i):
        x = torch.full((96, 96), 1.0 / (1 + i))
        for _ in range(self.rounds):
            x = torch.tanh(x @ x)
        return x[0, :self.width].clone()


class NoisyItems(Dataset):
    """Item i is ``[i, noise]``, the noise drawn from a NumPy generator the dataset owns."""

    def __init__(self, n: int, seed: int = 0):
        self.n = n
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i), round(float(self.rng.normal()), 4)])


class RangeStream(IterableDataset):
    """The integers start..stop-1 as a stream (an iterable-style dataset).

    With ``shard=True`` each worker yields only its own slice; with ``shard=False`` every
    worker replays the whole stream, so a loader with two workers yields each item twice.
    """

    def __init__(self, start: int, stop: int, shard: bool = True):
        self.start, self.stop, self.shard = start, stop, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.start, self.stop))
        return iter(range(self.start + info.id, self.stop, info.num_workers))


class MemmapRows(Dataset):
    """Rows of a float32 array stored in a file, read on demand with ``np.memmap``.

    The file is opened lazily in each process: a memmap pickled for a spawned worker would
    be copied into memory whole, and an open map is not what a fork should share.
    """

    def __init__(self, path: str, shape: tuple[int, int]):
        self.path, self.shape = str(path), tuple(shape)
        self._rows = None

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, i):
        if self._rows is None:
            self._rows = np.memmap(self.path, dtype=np.float32, mode="r", shape=self.shape)
        return torch.from_numpy(np.array(self._rows[i]))

    def __getstate__(self):
        return {**self.__dict__, "_rows": None}


class Augmented(Dataset):
    """A dataset whose items pass through ``transform`` as they are fetched: ``(transform(x), y)``.

    The transform runs in ``__getitem__``, so a random transform makes a new variant of an
    example every time it is fetched: every epoch sees new ones."""

    def __init__(self, base: Dataset, transform):
        self.base, self.transform = base, transform

    def __len__(self) -> int:
        return len(self.base)

    def __getitem__(self, i):
        x, y = self.base[i]
        return self.transform(x), y


def jitter(pixels: torch.Tensor) -> torch.Tensor:
    """A random variant of an 8x8 digit given as 64 pixels in [0, 1]: moved by up to one pixel
    in each direction (the edge filled with 0), plus a little noise. Draws from torch's global
    generator."""
    dy, dx = torch.randint(-1, 2, (2,)).tolist()
    image = torch.zeros(10, 10)
    image[1:9, 1:9] = pixels.view(8, 8)
    moved = image[1 + dy:9 + dy, 1 + dx:9 + dx]
    return (moved + 0.05 * torch.randn(8, 8)).clamp(0, 1).flatten()


def draw_digits(images, titles, ax=None):
    """A row of 8x8 images (64 pixels each) with a title under each."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(1.1 * len(images), 1.5))
    for k, (image, title) in enumerate(zip(images, titles)):
        axis = figure.add_subplot(1, len(images), k + 1)
        axis.imshow(torch.as_tensor(image).view(8, 8), cmap="gray_r", vmin=0, vmax=1)
        axis.set_xticks([])
        axis.set_yticks([])
        axis.set_xlabel(title, fontsize=8)
    figure.subplots_adjust(left=0.02, right=0.98, top=0.98, bottom=0.2, wspace=0.15)
    return figure


class WorkerView(Dataset):
    """Item i is what the process that fetched it knows about itself:
    ``(i, worker id, num_workers, the worker's seed, torch.initial_seed())``; -1 and the
    main process's torch seed when no worker fetched it."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        info = get_worker_info()
        if info is None:
            return i, -1, 0, -1, torch.initial_seed()
        return i, info.id, info.num_workers, info.seed, torch.initial_seed()


@contextlib.contextmanager
def as_worker(worker_id: int, num_workers: int, seed: int = 0, dataset=None):
    """Run a block as DataLoader worker ``worker_id`` of ``num_workers`` would: inside it,
    ``get_worker_info()`` answers with these values (tests use it to call a
    ``worker_init_fn`` or an ``__iter__`` without starting processes)."""
    import random

    from torch.utils.data._utils import worker

    previous = worker._worker_info
    states = torch.get_rng_state(), random.getstate()
    worker._worker_info = worker.WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                            dataset=dataset)
    # a real worker starts with torch's and Python's generators seeded with its seed
    torch.manual_seed(seed)
    random.seed(seed)
    try:
        yield worker._worker_info
    finally:
        worker._worker_info = previous
        torch.set_rng_state(states[0])
        random.setstate(states[1])


def show_source(obj) -> None:
    """Print the code of a class or function (what this module's worker-side code is)."""
    import inspect

    print(inspect.getsource(obj).rstrip())


def live(run) -> None:
    """Run a demonstration that uses an exercise's answer, in workers where it needs them: an
    unanswered exercise, or an answer that fails, is said in one line; the cell goes on."""
    try:
        with workers_explained():
            run()
    except NotImplementedError:
        print("Not answered yet: answer the exercise above, then run this cell again.")
    except Exception as error:  # the exercise's test cell says what is wrong; this only shows it
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        print(f"Your answer raised {type(error).__name__}: {first[:200]}")


# --------------------------------------------------------------- starting workers safely

WORKER_TROUBLE = ("dataloader worker", "timed out", "shared memory", "permission denied",
                  "resource temporarily unavailable", "can't start new thread",
                  "too many open files", "cannot allocate memory")


@dataclass
class WorkerRun:
    ok: bool = True
    reason: str = ""


def worker_trouble(error: BaseException) -> bool:
    """Whether ``error`` says that worker processes could not start or run here."""
    if isinstance(error, (PermissionError, BlockingIOError, MemoryError)):
        return True
    text = f"{type(error).__name__}: {error}".lower()
    return isinstance(error, (OSError, RuntimeError)) and any(t in text for t in WORKER_TROUBLE)


@contextlib.contextmanager
def workers_explained():
    """Run a block that starts DataLoader workers; if they cannot start, say why and go on.

    Workers need to fork processes and a writable ``/dev/shm`` (multiprocessing's locks
    and torch's shared-memory batches live there). A grading sandbox or a container may
    allow neither: then this prints a short explanation instead of a traceback, and the
    yielded ``WorkerRun`` has ``ok = False``. Pair it with ``timeout=`` on the DataLoader so
    that a worker that never answers becomes an error rather than a hang.
    """
    run = WorkerRun()
    # a loader whose workers failed to start complains from its __del__; that is the
    # same failure said twice, in a traceback's words, so it is silenced here
    previous = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    try:
        yield run
    except Exception as error:
        if not worker_trouble(error):
            raise
        # The half-built loader iterator lives on in the traceback's frames; clearing them
        # lets its __del__ run now, while its complaint is still silenced.
        traceback.clear_frames(error.__traceback__)
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        run.ok, run.reason = False, f"{type(error).__name__}: {first}"
        print(f"Worker processes could not run here ({run.reason[:160]}).\n"
              "Workers need to start processes and to write to /dev/shm, which a grading "
              "sandbox or a locked-down container may forbid; under the spawn or forkserver "
              "start methods they also import what they run, and a class or function defined "
              "in a notebook cannot be imported (a .py module can). num_workers=0 loads in "
              "this process and works anywhere.")
    finally:
        gc.collect()
        sys.unraisablehook = previous


def seconds_per_epoch(loader, repeat: int = 3) -> float:
    """Median wall time of one full pass over ``loader``, worker start-up included."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _batch in loader:
            pass
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def cpu_count() -> int:
    """CPU cores this process may use (the affinity mask, not the machine's total)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# ------------------------------------------------------------------ when workers pay off

def startup_seconds(zero_workers: float, k_workers: float, k: int) -> float:
    """The fixed cost of an epoch with ``k`` workers, from two measured epoch times: with k
    workers an epoch takes about S + L / k, where L is the epoch with none."""
    return max(0.0, k_workers - zero_workers / k)


def break_even_seconds(startup: float, k: int) -> float:
    """The loading time per epoch (with 0 workers) above which ``k`` workers are faster:
    S + L / k < L exactly when L > S * k / (k - 1)."""
    if k < 2:
        raise ValueError("one worker only moves the loading to another process: it never divides it")
    return startup * k / (k - 1)


# ------------------------------------------------- what a forked worker copies on reading

def private_mib() -> float | None:
    """This process's private memory in MiB (Linux: Private_Clean + Private_Dirty of
    /proc/self/smaps_rollup): pages no other process shares, copies made by writing to a
    page a fork shared included. None where the file does not exist."""
    try:
        with open("/proc/self/smaps_rollup") as rollup:
            kib = sum(int(line.split()[1]) for line in rollup
                      if line.startswith(("Private_Clean:", "Private_Dirty:")))
    except OSError:
        return None
    return kib / 1024


class ReadEverything(Dataset):
    """Item k reads every element of chunk k of ``values`` (a list, an array, a tensor) and
    returns ``(private MiB before, private MiB after, the chunk's sum)``: a worker that
    fetches every item reads the whole container, as an epoch over it would."""

    def __init__(self, values, chunks: int = 10):
        self.values, self.chunks = values, chunks
        self.size = -(-len(values) // chunks)

    def __len__(self) -> int:
        return self.chunks

    def __getitem__(self, k):
        before = private_mib()
        start, stop = k * self.size, min((k + 1) * self.size, len(self.values))
        if isinstance(self.values, list):      # element by element, as __getitem__ would
            total = sum(self.values[i] for i in range(start, stop))
        else:                                   # one array: no Python object per element
            total = self.values[start:stop].sum()
        return before, private_mib(), float(total)


def read_growth_mib(values, chunks: int = 10) -> float | None:
    """How much a forked DataLoader worker's private memory grows while it reads every
    element of ``values`` (MiB), or None where it cannot be measured (no fork, no
    /proc/self/smaps_rollup). Raises what starting the worker raises (see
    ``workers_explained``)."""
    import multiprocessing

    from torch.utils.data import DataLoader

    if "fork" not in multiprocessing.get_all_start_methods() or private_mib() is None:
        return None
    loader = DataLoader(ReadEverything(values, chunks), batch_size=None, num_workers=1,
                        multiprocessing_context="fork", timeout=60)
    rows = list(loader)
    return rows[-1][1] - rows[0][0]


# ---------------------------------------------------------------- copies to a GPU

def pinned_copy_times(megabytes: int = 64, repeat: int = 10) -> str:
    """Median times to copy a float32 batch of ``megabytes`` to the GPU, from pageable memory,
    from pinned memory, and from pinned memory with ``non_blocking=True`` (until the call
    returns, and until the copy is done); without a CUDA GPU, the reason it was skipped."""
    if not torch.cuda.is_available():
        return ("GPU copy times skipped: torch.cuda.is_available() is False on this machine, so "
                "there is no GPU to copy to (pinned memory needs one).")
    rows = megabytes * 2**20 // (4 * 1024)
    pageable = torch.randn(rows, 1024)
    pinned = pageable.pin_memory()
    device = torch.device("cuda")

    def median_ms(copy, wait):
        times = []
        for _ in range(repeat + 2):            # two warm-up rounds are dropped
            torch.cuda.synchronize()
            start = time.perf_counter()
            copy()
            if wait:
                torch.cuda.synchronize()
            times.append((time.perf_counter() - start) * 1000)
        return sorted(times[2:])[repeat // 2]

    lines = [f"{torch.cuda.get_device_name()}: copying {megabytes} MiB to the GPU, median of {repeat}"]
    for label, source, non_blocking in [("pageable, .to(cuda)", pageable, False),
                                        ("pinned, .to(cuda)", pinned, False),
                                        ("pinned, non_blocking=True", pinned, True)]:
        def copy(source=source, non_blocking=non_blocking):
            source.to(device, non_blocking=non_blocking)
        returned = median_ms(copy, wait=False)
        done = median_ms(copy, wait=True)
        lines.append(f"  {label:<28} call returns after {returned:7.2f} ms, copy done after "
                     f"{done:7.2f} ms ({megabytes / 1024 / done * 1000:.1f} GiB/s)")
    return "\n".join(lines)
