# %% [markdown]
# # 05 · Data: Dataset, DataLoader, samplers and workers
#
# A training loop sees its data one batch at a time, and which rows end up in which batch,
# and when they arrive, is decided by a small machine: a `Dataset` that turns an index into
# an example, a `Sampler` that orders the indices, and a `DataLoader` that groups them into
# batches, collates them into tensors and may load them in other processes while the model
# computes. Most data bugs are silent: a last batch smaller than you assumed, a split that
# leaks near-copies into validation, random augmentations less random than they look, a
# stream that every worker replays, ranks that see some examples twice, a loop that spends
# more time waiting for data than computing. This notebook takes the machine apart so that you can
# predict each of them, then puts the loader inside notebook 04's training loop and measures
# where each step's time goes.
#
# **You will be able to**
# - write map-style and iterable datasets and per-item transforms; split without leaking groups;
# - predict a `DataLoader`'s batches: steps per epoch, the ragged last batch, `drop_last`,
#   `batch_size=None`;
# - choose a sampler or a batch sampler: shuffle, class-balancing weights, length buckets,
#   `DistributedSampler`'s share per rank;
# - write a `collate_fn` that pads variable-length sequences with a mask, and bucket them so
#   that a sequence model computes little padding;
# - use worker processes correctly: what they receive (and copy), how to seed them, how to
#   shard a stream;
# - train from a `DataLoader`, resume it mid-epoch, and measure, per step, the time spent
#   waiting for data against the time spent computing; decide with a measurement when
#   workers (and `pin_memory`) help.
#
# **Prerequisites**: 01 (tensors) and 04 (the training loop: this notebook replaces its
# hand-made index batches with a `DataLoader`). No GPU needed.
#
# **How this notebook works.** Quick quizzes ask you to *predict* before a cell shows the
# answer; numbered exercises (points in the heading) are graded, and a failing test says
# what you probably believed. **Run time:** the last cell prints how long this run took top
# to bottom and how busy the machine was.

# %%
import math
import os
import pickle
import sys
import tempfile
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (BatchSampler, DataLoader, Dataset, DistributedSampler,
                              IterableDataset, RandomSampler, Sampler, Subset, TensorDataset,
                              WeightedRandomSampler, get_worker_info, random_split)

import helpers.data
import helpers.data_tasks
import helpers.datasets
import helpers.loader_timeline
import helpers.loader_verdicts
import helpers.loss_curves
from helpers import checks

notebook_start = time.perf_counter()
torch.manual_seed(0)
torch.set_num_threads(1)  # these models are small: a second thread only waits for a busy core
# DataLoader warns when num_workers exceeds the cores it counts; sections 7 and 12 run such loaders
warnings.filterwarnings("ignore", message=".*worker processes in total.*")
print("torch", torch.__version__)

# %% [markdown]
# ## 1. Datasets
#
# A **map-style dataset** is any object with `__len__` (how many examples) and
# `__getitem__(i)` (example number `i`). Subclassing `torch.utils.data.Dataset` documents
# the intent; the loader itself only calls those two methods.

# %%
class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i      # (input, target)


squares = Squares(5)
print(len(squares), squares[3])

# %% [markdown]
# Data often arrives as NumPy arrays. NumPy's default float is float64, while a model's
# weights are float32: convert while you index, with `torch.as_tensor(..., dtype=...)`,
# which copies only when the dtype changes.

# %%
features = np.random.default_rng(0).normal(size=(4, 3))
print(features.dtype, torch.as_tensor(features[0]).dtype,
      torch.as_tensor(features[0], dtype=torch.float32).dtype)

# %% [markdown]
# When the data is already a set of tensors with the same first dimension,
# `TensorDataset` is that dataset: item `i` is the tuple of row `i` of each tensor.

# %%
X = torch.randn(6, 3)
y = torch.arange(6)
pairs = TensorDataset(X, y)
print(len(pairs), pairs[2][0].shape, pairs[2][1])

# %% [markdown]
# An **iterable-style dataset** (`IterableDataset`) has `__iter__` instead: a stream with
# no index, such as lines of a log file or records arriving from a queue. The loader can
# only read it in order; shuffling and samplers do not apply.

# %%
stream = helpers.datasets.RangeStream(0, 5)
print(isinstance(stream, IterableDataset), list(stream))

# %% [markdown]
# ### Exercise 1: a Dataset of windows (2 points)
#
# A sensor records one reading per second, a NumPy float64 array `series` of shape (T,). A
# model is to predict each reading from the `width` readings just before it. Write
# `Windows(series, width)`, a map-style dataset (1 ≤ `width` ≤ T) whose examples are all
# such pairs the series holds, in time order: item `i` is `(window, target)`, `window` a
# **float32** tensor of shape (`width`,) holding `width` consecutive readings, and `target`
# a 0-d float32 tensor holding the reading that comes right after them. *Misconceptions it
# targets*: `__len__` counts the examples, not the readings they are cut from; the target
# is the reading after the window, not its last one; NumPy's float64 (and a Python float,
# which the loader batches as float64) is not the float32 a model expects.

# %% solution 05_data-dataset
class Windows(Dataset):
    def __init__(self, series, width):
        ### BEGIN SOLUTION
        self.series, self.width = series, width
        ### END SOLUTION

    def __len__(self):
        ### BEGIN SOLUTION
        return max(0, len(self.series) - self.width)
        ### END SOLUTION

    def __getitem__(self, i):
        ### BEGIN SOLUTION
        window = torch.as_tensor(self.series[i:i + self.width], dtype=torch.float32)
        return window, torch.as_tensor(self.series[i + self.width], dtype=torch.float32)
        ### END SOLUTION

# %% test 05_data-dataset-test points=2
_series = np.arange(10.0) * 1.5                    # 10 readings: 0.0, 1.5, ..., 13.5
with checks.explain_errors({"": "[mc:data.dataset-protocol] Windows(series, width) should store "
                                "the series, and ds[i] should return (window i, its target)."},
                           "Windows(series, 3)[4]"):
    _ds = Windows(_series, 3)
    _item, _n = _ds[4], len(_ds)
helpers.data_tasks.check_windows(_n, _item)
### BEGIN HIDDEN TESTS
import numpy as np
from torch.utils.data import DataLoader
from helpers.grading import probe
probe.needs("Windows")
_readings = np.arange(10.0) * 1.5
probe.observe("len(Windows(10 readings, 3))", lambda: len(Windows(_readings, 3)))
probe.observe("Windows(10 readings, 3)[4]", lambda: Windows(_readings, 3)[4])
_S2 = np.random.default_rng(5).normal(size=12)
probe.observe("len(Windows(12 readings, 4))", lambda: len(Windows(_S2, 4)))
probe.observe("one batch of Windows(12 readings, 4)",
              lambda: list(next(iter(DataLoader(Windows(_S2, 4), batch_size=8)))))
for _T, _w in [(5, 5), (5, 4), (1, 1), (6, 1)]:
    probe.observe(f"len(Windows({_T} readings, {_w}))", lambda: len(Windows(np.arange(float(_T)), _w)))
    probe.observe(f"the last target of Windows({_T} readings, {_w})",
                  lambda: float(Windows(np.arange(float(_T)), _w)[_T - _w - 1][1]) if _T > _w else None)
### JUDGE
import numpy as np
import helpers.data_tasks
from helpers.grading.probe import got
_hint = "[mc:data.dataset-protocol] ds[i] should return (window i, its target)."
helpers.data_tasks.check_windows(got.value("len(Windows(10 readings, 3))", _hint),
                                 got.value("Windows(10 readings, 3)[4]", _hint))
checks.expect_true(got["len(Windows(12 readings, 4))"] == 8,
                   "[mc:data.windows-count] 12 readings, windows of 4: 8 windows have a reading "
                   "after them.")
_S2 = np.random.default_rng(5).normal(size=12)
_bx, _by = got.value("one batch of Windows(12 readings, 4)", _hint)
checks.expect_true(_bx.dtype == torch.float32 and tuple(_bx.shape) == (8, 4),
                   "[mc:data.numpy-float64] a batch of windows should be float32, (8, 4).")
checks.expect_true(_by.dtype == torch.float32 and tuple(_by.shape) == (8,),
                   "[mc:data.numpy-float64] a batch of targets should be float32 of shape (8,).")
checks.expect_true(torch.allclose(_bx.double(), torch.from_numpy(np.stack([_S2[i:i + 4] for i in range(8)])),
                                  atol=1e-6),
                   "[mc:data.dataset-protocol] window i should be readings i, ..., i + width - 1, for every i.")
checks.expect_true(torch.allclose(_by.double(), torch.from_numpy(_S2[4:]), atol=1e-6),
                   "[mc:data.window-target] target i should be reading i + width, for every i.")
for _T, _w in [(5, 5), (5, 4), (1, 1), (6, 1)]:
    checks.expect_true(got[f"len(Windows({_T} readings, {_w}))"] == _T - _w,
                       f"[mc:data.windows-count] {_T} readings, windows of {_w}: {_T - _w} examples.")
    checks.expect_true(_T == _w or got[f"the last target of Windows({_T} readings, {_w})"] == _T - 1,
                       f"[mc:data.window-target] {_T} readings, windows of {_w}: the last example's "
                       "target is the last reading.")
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Transforms: work done per item
#
# A **transform** is a function applied to each item as it is fetched: decoding a file,
# scaling pixels, and **augmentation**, a random change that keeps the label (a shifted or
# noisier digit is still that digit). Because it runs in `__getitem__`, a random transform
# makes a new variant every time an example is fetched, so every epoch trains on new ones,
# and its cost is paid per item, per epoch. The wrapper and the transform used below live in
# `helpers/datasets.py` (section 7 says why a module); here is their code:

# %%
helpers.datasets.show_source(helpers.datasets.Augmented)
helpers.datasets.show_source(helpers.datasets.jitter)

# %% [markdown]
# The 8×8 digits of notebook 04, wrapped: the same example fetched three times gives three
# variants, while the dataset underneath is unchanged.

# %%
X_train, y_train, X_val, y_val, X_test, y_test = helpers.loss_curves.digits(seed=0)
digits = TensorDataset(X_train, y_train)
augmented = helpers.datasets.Augmented(digits, helpers.datasets.jitter)
variants = [augmented[0][0] for _ in range(3)]
print("label", int(augmented[0][1]), "| pixels that differ from the original:",
      [int((v - digits[0][0]).abs().gt(0.1).sum()) for v in variants], "of 64")
helpers.loss_curves.show(helpers.datasets.draw_digits(
    [digits[0][0]] + variants, ["original"] + [f"fetch {k + 1}" for k in range(3)]))

# %% [markdown]
# `jitter` draws from torch's *global* random generator (`torch.randint`, `torch.randn`).
#
# ## 3. Splitting: `random_split`, and groups
#
# `random_split(dataset, lengths, generator=...)` returns `Subset`s: views that hold the
# dataset and a list of its indices, not copies of the data (`Subset(dataset, indices)`
# makes one by hand). Without a `generator`, the
# split comes from the global random state, so it changes whenever anything before it used
# random numbers; with a seeded generator it is the same split on every run.

# %%
numbers = TensorDataset(torch.arange(10))
train, val = random_split(numbers, [8, 2], generator=torch.Generator().manual_seed(0))
print(type(train).__name__, len(train), len(val), "val indices", val.indices)
by_hand = Subset(numbers, [7, 1])                      # a Subset is (dataset, indices)
print("Subset(numbers, [7, 1]):", len(by_hand), "items; item 0 is numbers[7] =", by_hand[0])
again = random_split(numbers, [8, 2], generator=torch.Generator().manual_seed(0))[1].indices
unseeded = [random_split(numbers, [8, 2])[1].indices for _ in range(3)]
print("same seed, same split:", again == val.indices)
print("no generator, three calls:", unseeded)

# %% [markdown]
# A random split by *example* has a trap. Often several examples come from one source:
# photos of one patient, sentences of one document, frames of one video, digits written by
# one person. Split those examples at random and most sources land on both sides: the
# model is then validated on near-copies of what it trained on, and the validation score
# flatters it. Here 12 examples come from 4 writers, and a random 9 / 3 split by example:

# %%
writers = [5, 5, 5, 2, 2, 9, 9, 9, 9, 4, 4, 4]          # writer of each example
by_example = random_split(TensorDataset(torch.arange(12)), [9, 3],
                          generator=torch.Generator().manual_seed(1))
seen_in_train = {writers[i] for i in by_example[0].indices}
print("writers in val:", sorted({writers[i] for i in by_example[1].indices}),
      "| of those, also in train:", sorted({writers[i] for i in by_example[1].indices} & seen_in_train))

# %% [markdown]
# ### Exercise 2: a split by group (2 points)
#
# Write `group_split(dataset, groups, n_val_groups, seed)` returning `(train, val)`, two
# `Subset`s of `dataset`. `groups` is a list or a 1-d tensor of ints, `groups[i]` the group of
# example `i`. `val` must hold every example of `n_val_groups` groups chosen at random, and
# `train` every other example; the same `seed` must give the same split on every call, and
# different seeds may choose different groups. *Misconceptions*: a split by example leaks a
# group into both sides; a split drawn from the global random state is not reproducible;
# `n_val_groups` counts groups, not examples; the items of a tensor are tensors, not ints.

# %% solution 05_data-group-split
def group_split(dataset, groups, n_val_groups, seed):
    ### BEGIN SOLUTION
    groups = [int(g) for g in groups]
    names = sorted(set(groups))
    order = torch.randperm(len(names), generator=torch.Generator().manual_seed(seed)).tolist()
    chosen = {names[k] for k in order[:n_val_groups]}
    val = [i for i, g in enumerate(groups) if g in chosen]
    train = [i for i, g in enumerate(groups) if g not in chosen]
    return Subset(dataset, train), Subset(dataset, val)
    ### END SOLUTION

# %% test 05_data-group-split-test points=2
def _ids(subset):
    return [int(subset[i][0]) for i in range(len(subset))]


_writers = [5, 5, 5, 2, 2, 9, 9, 9, 9, 4, 4, 4]
with checks.explain_errors({"": "[mc:data.split-protocol] group_split should return two Subsets, "
                                "(train, val)."}, "group_split(dataset, groups, 1, 0)"):
    _splits = [[_ids(s) for s in group_split(TensorDataset(torch.arange(12)), _writers, 1, 0)]
               for _ in range(5)]
helpers.data_tasks.check_group_split(_splits, _writers)
### BEGIN HIDDEN TESTS
import torch
from torch.utils.data import TensorDataset
from helpers.grading import probe
probe.needs("group_split")


def _items_of(subset):
    return [int(subset[i][0]) for i in range(len(subset))]


_twelve = TensorDataset(torch.arange(12))
probe.observe("group_split(12 examples, 4 writers, 1, 0), five calls",
              lambda: [[_items_of(s) for s in group_split(_twelve, [5, 5, 5, 2, 2, 9, 9, 9, 9, 4, 4, 4], 1, 0)]
                       for _ in range(5)])
_g40 = torch.tensor([7, 3, 11, 3, 8, 20, 7, 1, 11, 8] * 4)
_forty = TensorDataset(torch.arange(40))
probe.observe("group_split(40 examples, groups as a list, 2, 0)",
              lambda: [_items_of(s) for s in group_split(_forty, _g40.tolist(), 2, 0)])
probe.observe("group_split(40 examples, groups as a tensor, 2, seed), seeds 0 to 11, twice each",
              lambda: [[[_items_of(s) for s in group_split(_forty, _g40, 2, seed)] for _ in range(2)]
                       for seed in range(12)])
### JUDGE
import torch
import helpers.data_tasks
from helpers.grading.probe import got
_protocol = "[mc:data.split-protocol] group_split should return two Subsets, (train, val)."
helpers.data_tasks.check_group_split(got.value("group_split(12 examples, 4 writers, 1, 0), five calls", _protocol),
                                     [5, 5, 5, 2, 2, 9, 9, 9, 9, 4, 4, 4])
_g40 = [7, 3, 11, 3, 8, 20, 7, 1, 11, 8] * 4
_as_list = sorted(got.value("group_split(40 examples, groups as a list, 2, 0)", _protocol)[1])
_runs = got.value("group_split(40 examples, groups as a tensor, 2, seed), seeds 0 to 11, twice each", _protocol)
checks.expect_true(sorted(_runs[0][0][1]) == _as_list,
                   "[mc:data.split-tensor-groups] groups given as a tensor split differently from "
                   "the same groups as a list: a tensor's items are 0-d tensors, and a set or dict "
                   "tells them apart by identity, not value. Compare int(g).")
_chosen = []
for (_t, _v), (_t2, _v2) in _runs:
    checks.expect_true(sorted(_t + _v) == list(range(40)),
                       "[mc:data.split-protocol] every example once, in train or val.")
    checks.expect_true(not ({_g40[i] for i in _t} & {_g40[i] for i in _v}),
                       "[mc:data.split-leaks-groups] a group on both sides (groups given as a tensor).")
    checks.expect_true(len({_g40[i] for i in _v}) == 2,
                       "[mc:data.split-groups-vs-examples] n_val_groups=2 means two whole groups in val.")
    checks.expect_true(sorted(_v2) == sorted(_v), "[mc:data.split-unseeded] the same seed must give the same split.")
    _chosen.append(frozenset(_g40[i] for i in _v))
checks.expect_true(len(set(_chosen)) >= 3,
                   f"[mc:data.split-not-random] 12 seeds chose only {len(set(_chosen))} different "
                   "pairs of groups: choose the groups at random from the seed.")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. The DataLoader: batches and steps per epoch
#
# `DataLoader(dataset, batch_size=B, shuffle=..., drop_last=...)` asks a sampler for
# indices, groups them B at a time, fetches each example with `dataset[i]` and **collates**
# the examples into batch tensors (the default stacks them along a new first dimension).
# `len(loader)` is the number of batches, the steps of one epoch. Six examples in batches
# of four:

# %%
loader = DataLoader(pairs, batch_size=4, shuffle=False)
for xb, yb in loader:
    print(xb.shape, yb)
print("len(loader) =", len(loader))

# %% [markdown]
# The last batch holds what is left. With `drop_last=True` the loader skips a last batch
# that is shorter than `batch_size`; the examples in it are not seen in that epoch.
#
# **Quick quiz.** A dataset has 1,000 examples, the batch size is 96 and `drop_last=True`.
# How many examples does one epoch leave out? Set `quiz_dropped` to an integer.

# %% solution 05_data-quiz-dropped
### BEGIN SOLUTION
quiz_dropped = 40
### END SOLUTION

# %% test 05_data-quiz-dropped-test points=1
with checks.because("[mc:data.quiz-number] The answer is a count of examples, a whole number."):
    checks.answer("05_data-quiz-dropped", quiz_dropped, "quiz_dropped", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_dropped")
### JUDGE
from helpers.grading.probe import got
_answer = got["quiz_dropped"]
with checks.because("[mc:data.quiz-number] The answer is a count of examples, a whole number."):
    checks.answer("05_data-quiz-dropped", _answer, "quiz_dropped", kind=int)
checks.expect_true(_answer == 1000 - (1000 // 96) * 96,
                   "[mc:data.dropped-is-missing] The full batches hold the kept examples; the "
                   "ones after the last full batch are left out.")
### END HIDDEN TESTS

# %% wrong 05_data-quiz-dropped
{
    56: "[mc:data.dropped-is-missing] That is how many examples the short last batch would "
        "need to be full; drop_last skips that batch, so the examples it holds are the ones "
        "left out.",
    0: "[mc:data.drop-last-pads] drop_last neither pads nor wraps around: the short last "
       "batch is skipped, and its examples are not seen in this epoch.",
    10: "[mc:data.dropped-counts-batches] That is the number of full batches, the steps of "
        "the epoch; the question asks for the examples left out.",
    11: "[mc:data.dropped-counts-batches] That is the number of batches without drop_last; "
        "the question asks for the examples left out.",
    960: "[mc:data.dropped-counts-kept] That many examples are seen; the question asks how "
         "many are left out.",
}

# %% [markdown]
# The loader itself answers (a loader over `range(N)` yields batches of indices):

# %%
dropping = DataLoader(range(1000), batch_size=96, drop_last=True)
seen = sum(len(batch) for batch in dropping)
print(f"{len(dropping)} steps, {seen} examples seen, {1000 - seen} left out; without drop_last "
      f"the last batch would hold {len(list(DataLoader(range(1000), batch_size=96))[-1])}")

# %% [markdown]
# Compare with your answer: the left-out examples are exactly what the short last batch
# would have held. In general, N examples in batches of B make ⌈N / B⌉ steps, the last
# holding N − (steps − 1)·B; with `drop_last=True`, ⌊N / B⌋ steps. For N = 10,000 and B = 128:

# %%
N, B = 10_000, 128
full = DataLoader(range(N), batch_size=B)
batches = list(full)
print("ceil(N / B) =", math.ceil(N / B), "| len(loader) =", len(full),
      "| last batch holds", len(batches[-1]), "=", N - (math.ceil(N / B) - 1) * B)
print("with drop_last:", len(DataLoader(range(N), batch_size=B, drop_last=True)), "steps")

# %% [markdown]
# ### The DataLoader explorer
#
# Each row is one batch and each block one index, in the order the loader yields them; the
# last batch is outlined in red, and the indices `drop_last` throws away appear as a grey
# row. The plan is computed with torch's own generators, so with a seed it is exactly what
# `DataLoader(..., generator=torch.Generator().manual_seed(seed))` yields.
#
# - Set N = 10 and batch size 4, tick `drop_last`: notice the grey row. Predict which
#   indices it holds with `shuffle` ticked, then tick it and change the seed.
# - Set N = 10000 and batch size 128: notice the steps and the last batch in the title.
#   Predict both for batch size 125, then set it and explain what you see.
# - With `shuffle`, change the seed: the batches change, the number of steps does not.

# %%
import helpers.data  # so that this cell also runs on its own after a restart

helpers.data.explore(n=10, batch_size=4)

# %% [markdown]
# ### `batch_size=None`
#
# **Quick quiz.** What is the shape of the first thing
# `DataLoader(torch.zeros(6, 3), batch_size=None)` yields? Set `quiz_unbatched_shape` to a
# tuple of ints (`()` for a 0-d tensor).

# %% solution 05_data-quiz-unbatched
### BEGIN SOLUTION
quiz_unbatched_shape = (3,)
### END SOLUTION

# %% test 05_data-quiz-unbatched-test points=1
with checks.because("[mc:data.quiz-shape] The answer is a shape: a tuple of ints such as (2, 5)."):
    checks.answer("05_data-quiz-unbatched", tuple(quiz_unbatched_shape)
                  if isinstance(quiz_unbatched_shape, (list, torch.Size)) else quiz_unbatched_shape,
                  "quiz_unbatched_shape", kind=tuple)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_unbatched_shape")
### JUDGE
from helpers.grading.probe import got
_answer = got["quiz_unbatched_shape"]
_answer = tuple(_answer) if type(_answer) in (list, torch.Size) else _answer
with checks.because("[mc:data.quiz-shape] The answer is a shape: a tuple of ints such as (2, 5)."):
    checks.answer("05_data-quiz-unbatched", _answer, "quiz_unbatched_shape", kind=tuple)
checks.expect_true(_answer == (3,),
                   "[mc:data.unbatched-adds-dim] batch_size=None yields each item as the dataset "
                   "returns it: one row of 3, with no batch dimension.")
### END HIDDEN TESTS

# %% wrong 05_data-quiz-unbatched
{
    (1, 3): "[mc:data.unbatched-adds-dim] That is batch_size=1, a batch of one row. "
            "batch_size=None turns batching off: there is no batch dimension to add.",
    (6, 3): "[mc:data.unbatched-whole] batch_size=None does not mean one batch of everything: "
            "it means no batching, one item at a time.",
    (): "[mc:data.unbatched-scalar] The items of a (6, 3) tensor are its rows, each of 3 "
        "numbers; None turns batching off, it does not take items apart.",
    (3, 1): "[mc:data.unbatched-adds-dim] No dimension is added anywhere: the item is yielded "
            "as the dataset returns it.",
}

# %% [markdown]
# The loader, with and without automatic batching:

# %%
rows = torch.zeros(6, 3)
print("batch_size=None:", next(iter(DataLoader(rows, batch_size=None))).shape,
      "| batch_size=1:", next(iter(DataLoader(rows, batch_size=1))).shape,
      "| batch_size=4:", next(iter(DataLoader(rows, batch_size=4))).shape)
print("a stream, unbatched:", list(DataLoader(helpers.datasets.RangeStream(0, 4), batch_size=None)))

# %% [markdown]
# Compare with your answer. `batch_size=None` turns automatic batching off: the loader
# fetches one item per index, converts NumPy arrays and numbers to tensors, and yields it
# as it is, with no batch dimension (a `collate_fn` you pass is still applied to each item;
# the default one only converts). It is what you want when items
# already are batches: a stream that yields whole batches, or a sampler that yields whole
# lists of indices (section 10 uses that).
#
# ## 5. Samplers: who decides the order
#
# `shuffle=True` is shorthand for `sampler=RandomSampler(dataset)`; `shuffle=False` for a
# `SequentialSampler`. Any other order comes from passing a `sampler=` yourself, and then
# `shuffle` must stay False, because the sampler alone decides:

# %%
with checks.expect_error(ValueError):
    DataLoader(range(10), sampler=range(10), shuffle=True)

# %% [markdown]
# A `WeightedRandomSampler(weights, num_samples, replacement=True)` draws index `i` with
# probability proportional to `weights[i]`. To **balance classes**, give every example the
# weight 1 / (size of its class): each class then has the same total weight and is drawn
# equally often, the rare examples several times per epoch. Here are 100 labels with a
# 60 / 30 / 10 imbalance, and the class counts of 3,000 draws with and without weights:

# %%
labels = torch.tensor(helpers.data.toy_labels(100))
print("class sizes", torch.bincount(labels).tolist())
uniform = WeightedRandomSampler(torch.ones(100), 3000, generator=torch.Generator().manual_seed(0))
print("equal weights:", torch.bincount(labels[list(uniform)]).tolist())
hand_weights = torch.tensor([1 / 60] * 60 + [1 / 30] * 30 + [1 / 10] * 10)
weighted = WeightedRandomSampler(hand_weights, 3000, generator=torch.Generator().manual_seed(0))
print("1 / class size:", torch.bincount(labels[list(weighted)]).tolist())

# %% [markdown]
# In the explorer above, pick the sampler "weighted by class" (with `shuffle` unticked) and
# set N = 40, batch size 8: the blocks are coloured by class. Notice how often the 4
# examples of class C appear in one epoch, and which indices repeat. Then tick `shuffle`:
# the explorer shows the same refusal as the `DataLoader`.
#
# ### Exercise 3: a sampler that softens the imbalance (2 points)
#
# Exact balance shows each rare example many times per epoch, which a model can learn by
# heart. A common compromise draws each class in proportion to a power of its size: class
# `c`, with `n_c` examples, is drawn with probability proportional to `n_c ** alpha`.
# `alpha = 1` keeps the classes as they occur, `alpha = 0` balances them, and values in
# between soften the imbalance. Write `tempered_weights(labels, alpha)` taking an int64
# tensor of class labels (class ids are whole numbers ≥ 0, not necessarily consecutive) and
# a number `0 ≤ alpha ≤ 1` (0 and 1 included, as ints or floats), returning one weight per
# example (a tensor of the same length) such that a `WeightedRandomSampler` over them draws
# class `c` with probability proportional to `n_c ** alpha`. *Misconceptions*: the sampler
# wants a weight per **example**, not per class; a class is drawn as often as one of its
# examples' weight says; a class id is a row of a table of the classes present; an int64
# count can be raised to any power.

# %% solution 05_data-balance
def tempered_weights(labels, alpha):
    ### BEGIN SOLUTION
    counts = torch.bincount(labels).double()
    return counts[labels] ** (alpha - 1)
    ### END SOLUTION

# %% test 05_data-balance-test points=2
_labels = torch.tensor([2, 0, 0, 1, 0, 0, 1, 0, 0, 0])
with checks.explain_errors(helpers.data_tasks.tempered_hints(_labels, 0.5), "tempered_weights(labels, 0.5)"):
    _weights = tempered_weights(_labels, 0.5)
helpers.data_tasks.check_tempered(_weights, _labels, 0.5)
### BEGIN HIDDEN TESTS
import helpers.data_tasks
from helpers.grading import probe
probe.needs("tempered_weights")
for _name, (_labels, _alphas) in helpers.data_tasks.tempered_cases().items():
    for _alpha in _alphas:
        probe.call(f"tempered_weights({_name}, {_alpha!r})", tempered_weights, _labels, _alpha)
### JUDGE
import torch
import helpers.data_tasks
from torch.utils.data import WeightedRandomSampler
from helpers.grading.probe import got
_cases = helpers.data_tasks.tempered_cases()
for _name, (_labels, _alphas) in _cases.items():
    for _alpha in _alphas:
        _key = f"tempered_weights({_name}, {_alpha!r})"
        _weights = helpers.data_tasks.explained(got, _key, helpers.data_tasks.tempered_hints(_labels, _alpha))
        helpers.data_tasks.check_tempered(_weights, _labels, _alpha)
_big = _cases["200 shuffled labels"][0]
_wb = torch.as_tensor(got["tempered_weights(200 shuffled labels, 0.5)"], dtype=torch.float64)
_drawn = _big[list(WeightedRandomSampler(_wb, 6000, generator=torch.Generator().manual_seed(4)))]
_share = torch.bincount(_drawn, minlength=3).double() / 6000
_want = torch.bincount(_big).double() ** 0.5
checks.expect_true(bool(((_share - _want / _want.sum()).abs() < 0.04).all()),
                   f"[mc:data.weights-not-proportional] alpha = 0.5: class shares drawn "
                   f"{[round(s, 3) for s in _share.tolist()]}, expected near "
                   f"{[round(s, 3) for s in (_want / _want.sum()).tolist()]}.")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. collate_fn and batch_sampler: from examples to a batch
#
# The default collate function stacks the examples' tensors, which needs them all to have
# the same shape. Sequences of different lengths (sentences, audio clips) do not:

# %%
sequences = [(torch.tensor([5, 6, 7]), 1), (torch.tensor([8]), 0), (torch.tensor([9, 10]), 1)]
with checks.expect_error(RuntimeError):
    next(iter(DataLoader(sequences, batch_size=3)))

# %% [markdown]
# A `collate_fn` receives the list of examples of one batch and returns the batch. For
# sequences, pad them to the longest one in the batch. `pad_sequence` does the padding;
# with `batch_first=True` the result is (batch, longest length), with the default
# `batch_first=False` it is (longest length, batch). A model that must ignore the padding
# (an RNN with `pack_padded_sequence`, an attention mask) also needs each sequence's
# **original** length, which padding erases, so the collate function returns it too.

# %%
seqs = [s for s, _ in sequences]
print(pad_sequence(seqs, batch_first=True))
print(pad_sequence(seqs).shape, "without batch_first")
print("lengths before padding:", [len(s) for s in seqs])

# %% [markdown]
# ### Exercise 4: padding to a few shapes, with a mask (2 points)
#
# A compiled model (notebook 06) compiles again for every new input shape, and batches padded
# to their own longest sequence come in as many shapes as there are lengths. Write
# `pad_collate(batch)` for examples `(tokens, label)`, `tokens` a 1-d int64 tensor of any
# length ≥ 1 holding any token ids (0 included), returning `(padded, mask, labels)`:
# - `padded`: an int64 tensor of shape (batch, T), T the longest length in the batch rounded
#   up to a multiple of 8 (a longest length of 8 stays 8, one of 9 gives 16), each row its
#   sequence followed by zeros;
# - `mask`: a **bool** tensor of the same shape, True exactly at the real tokens;
# - `labels`: an int64 tensor; every row in the batch's order.
#
# *Misconceptions*: the mask can be read back from the values (a real token can be 0);
# rounding up moves a length that is already a multiple; any 0/1 mask will do (an attention
# layer *adds* a float mask to its scores and selects with a bool one); a buffer made with
# torch's default dtype (float32) can hold token ids.

# %% solution 05_data-collate
def pad_collate(batch):
    ### BEGIN SOLUTION
    lengths = torch.tensor([len(tokens) for tokens, _ in batch])
    width = -(-int(lengths.max()) // 8) * 8
    padded = torch.zeros(len(batch), width, dtype=torch.int64)
    for row, (tokens, _) in enumerate(batch):
        padded[row, :len(tokens)] = tokens
    mask = torch.arange(width) < lengths[:, None]
    labels = torch.tensor([label for _, label in batch], dtype=torch.int64)
    return padded, mask, labels
    ### END SOLUTION

# %% test 05_data-collate-test points=2
_batch = [(torch.tensor([7]), 0), (torch.tensor([4, 0, 6, 1, 2, 3, 5, 8, 9]), 2)]   # a real token 0
with checks.explain_errors({"": "[mc:data.collate-protocol] pad_collate gets a list of "
                                "(tokens, label) pairs and returns (padded, mask, labels)."},
                           "pad_collate(batch)"):
    _result = pad_collate(_batch)
helpers.data_tasks.check_pad_collate(_result, _batch)
### BEGIN HIDDEN TESTS
import torch
import helpers.data_tasks
from helpers.grading import probe
probe.needs("pad_collate")
for _name, _examples in helpers.data_tasks.collate_cases().items():
    probe.call(f"pad_collate({_name})", pad_collate, _examples)
    probe.observe(f"a DataLoader batch through pad_collate ({_name})",
                  lambda: list(helpers.data_tasks.sentences_batch(pad_collate, _examples)))
### JUDGE
import torch
import helpers.data_tasks
from helpers.grading.probe import got
_protocol = {"": "[mc:data.collate-protocol] pad_collate gets a list of (tokens, label) pairs and "
                 "returns (padded, mask, labels)."}
for _name, _examples in helpers.data_tasks.collate_cases().items():
    helpers.data_tasks.check_pad_collate(helpers.data_tasks.explained(got, f"pad_collate({_name})", _protocol),
                                         _examples)
    helpers.data_tasks.check_pad_collate(
        helpers.data_tasks.explained(got, f"a DataLoader batch through pad_collate ({_name})", _protocol), _examples)
### END HIDDEN TESTS

# %% [markdown]
# **Padding costs compute.** Every padded position still goes through the model. How much
# of a padded batch is padding depends on which sequences share it. A `batch_sampler`
# decides that: it is any iterable of index lists, one list per batch, and it replaces
# `batch_size`, `shuffle`, `sampler` and `drop_last`. The loader calls `iter()` on it at the
# start of every epoch:

# %%
plan = [[0, 1, 2], [3, 4], [5, 6, 7, 8, 9]]
by_hand = DataLoader(range(100, 110), batch_sampler=plan)
print("two epochs:", [[batch.tolist() for batch in by_hand] for epoch in range(2)])
order_maker = torch.Generator().manual_seed(0)
print("torch.randperm(6, generator=g), twice:", [torch.randperm(6, generator=order_maker).tolist()
                                                  for _ in range(2)])
lengths = torch.randint(1, 40, (64,), generator=torch.Generator().manual_seed(0))
shuffled = DataLoader(range(64), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(0))
cells = sum(len(b) * int(lengths[b].max()) for b in shuffled)
print(f"64 sequences of 1 to 39 tokens in shuffled batches of 8: {cells} padded positions, "
      f"{cells - int(lengths.sum())} of them padding ({1 - int(lengths.sum()) / cells:.0%})")

# %% [markdown]
# ### Exercise 5: a bucketing batch sampler (2 points)
#
# Sorting the sequences by length and cutting the sorted order into batches pads least, but
# every epoch then gets the same batches, the shortest first: the early steps of every epoch
# see only short sequences, and a batch's companions never change. The usual compromise is
# **bucketing**. Each epoch: draw a random order of the indices; cut it into buckets of
# `8 * batch_size`; sort each bucket by length and cut it into batches; then shuffle the order
# of all the batches.
#
# Complete `BucketSampler(lengths, batch_size, generator)`, a batch sampler:
# `len(sampler)` is the number of batches in an epoch, and every `iter(sampler)` is a new
# epoch of batches (lists of int indices into `lengths`) built as above, every random number
# drawn from `self.generator`. So: every index appears exactly once per epoch; every batch
# holds `batch_size` indices except at most one shorter batch; the next epoch has other
# batches in another order; two samplers whose generators were seeded alike yield the same
# epochs; and padding stays low (the tests draw random lengths and accept at most half of
# what shuffled batches pad). *Misconceptions*: batches worked out once repeat every epoch
# (or, kept as one iterator, run dry after the first); sorted batches shortest first are
# shuffled enough; random numbers from the global generator repeat with the sampler's seed;
# cutting ⌊N / B⌋ batches loses the rest.

# %% solution 05_data-buckets
class BucketSampler(Sampler):
    def __init__(self, lengths, batch_size, generator):
        self.lengths = torch.as_tensor(lengths)
        self.batch_size, self.generator = batch_size, generator

    def __len__(self):
        ### BEGIN SOLUTION
        return math.ceil(len(self.lengths) / self.batch_size)
        ### END SOLUTION

    def __iter__(self):
        ### BEGIN SOLUTION
        order = torch.randperm(len(self.lengths), generator=self.generator)
        batches = []
        for bucket in order.split(8 * self.batch_size):
            by_length = bucket[torch.argsort(self.lengths[bucket], stable=True)]
            batches += [batch.tolist() for batch in by_length.split(self.batch_size)]
        for k in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[k]
        ### END SOLUTION

# %% test 05_data-buckets-test points=2
_lens = torch.randint(1, 60, (200,), generator=torch.Generator().manual_seed(0))
with checks.explain_errors({"": "[mc:data.buckets-protocol] BucketSampler(lengths, batch_size, "
                                "generator): len() counts an epoch's batches, and iter() yields "
                                "them as lists of indices."}, "BucketSampler(lengths, 8, generator)"):
    _sampler = BucketSampler(_lens, 8, torch.Generator().manual_seed(1))
    _seen, _size = helpers.data_tasks.epochs(_sampler), len(_sampler)
    _again = helpers.data_tasks.epochs(BucketSampler(_lens, 8, torch.Generator().manual_seed(1)))
helpers.data_tasks.check_buckets(_seen, _again, _lens, 8, _size)
### BEGIN HIDDEN TESTS
import torch
import helpers.data_tasks
from helpers.grading import probe
probe.needs("BucketSampler")
for _n, _b in [(200, 8), (64, 8), (37, 5), (3, 8), (1, 1), (50, 50), (300, 4)]:
    _lx = torch.randint(1, 60, (_n,), generator=torch.Generator().manual_seed(_n))
    for _seed, _what in ((1, "epochs"), (1, "epochs again"), (2, "DataLoader epochs")):
        probe.observe(f"BucketSampler({_n} lengths, {_b}, seed {_seed}): two {_what}",
                      lambda: (helpers.data_tasks.loaded_epochs(BucketSampler(_lx, _b, torch.Generator().manual_seed(_seed)), _n)
                               if _what.startswith("DataLoader") else
                               helpers.data_tasks.epochs(BucketSampler(_lx, _b, torch.Generator().manual_seed(_seed)))))
    probe.observe(f"len(BucketSampler({_n} lengths, {_b}))", lambda: len(BucketSampler(_lx, _b, torch.Generator())))
_state = torch.get_rng_state()
torch.manual_seed(123)
probe.observe("BucketSampler(200 lengths, 8, seed 1) under another global seed",
              lambda: helpers.data_tasks.epochs(BucketSampler(torch.randint(1, 60, (200,), generator=torch.Generator().manual_seed(200)),
                                                              8, torch.Generator().manual_seed(1))))
torch.set_rng_state(_state)
### JUDGE
import torch
import helpers.data_tasks
from helpers.grading.probe import got
_protocol = {"": "[mc:data.buckets-protocol] BucketSampler(lengths, batch_size, generator): len() counts "
                 "an epoch's batches, and iter() yields them as lists of indices."}
for _n, _b in [(200, 8), (64, 8), (37, 5), (3, 8), (1, 1), (50, 50), (300, 4)]:
    _lx = torch.randint(1, 60, (_n,), generator=torch.Generator().manual_seed(_n))
    _key = f"BucketSampler({_n} lengths, {_b}, seed 1): two "
    _seen = helpers.data_tasks.explained(got, _key + "epochs", _protocol)
    _size = helpers.data_tasks.explained(got, f"len(BucketSampler({_n} lengths, {_b}))", _protocol)
    helpers.data_tasks.check_buckets(_seen, got[_key + "epochs again"], _lx, _b, _size)
    _loaded = helpers.data_tasks.explained(got, f"BucketSampler({_n} lengths, {_b}, seed 2): two DataLoader epochs",
                                           _protocol)
    checks.expect_true(len(_loaded[1]) > 0,
                       f"[mc:data.sampler-iterator-once] A DataLoader with batch_sampler=BucketSampler(...) "
                       f"over {_n} sequences yielded nothing in its second epoch: __iter__ must start a "
                       "new epoch every time it is called.")
    helpers.data_tasks.check_buckets(_loaded, _loaded, _lx, _b, _size)
checks.expect_true(got["BucketSampler(200 lengths, 8, seed 1) under another global seed"]
                   == got["BucketSampler(200 lengths, 8, seed 1): two epochs"],
                   "[mc:data.buckets-global-rng] The epochs changed with torch's global seed: draw "
                   "every random number from self.generator, so that the sampler's seed alone "
                   "decides them.")
### END HIDDEN TESTS

# %% [markdown]
# ### Variable-length batches in a model
#
# Padding, masks and buckets pay only if a model uses them. A small classifier of token
# sequences: `nn.Embedding(vocab, dim)` turns each token id into a learned vector of `dim`
# numbers (a lookup in a table of `vocab` rows), one self-attention layer lets every
# position mix in the others, the mean over the real positions summarises the sequence, and
# a linear layer scores the classes. The mask keeps the padding out twice: a **bool**
# `attn_mask` lets each position attend only to keys where it is True (shape (B, 1, T): the
# same real keys for every query of a sequence), and the mean counts the real positions
# only. (A recurrent model gets the same from `pack_padded_sequence`, which takes the
# lengths.) The check below the class: a sentence alone and the same sentence padded in a
# batch get the same scores, up to rounding.

# %%
class AttentionClassifier(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens, mask):                 # (B, T) int64 and (B, T) bool
        q, k, v = self.qkv(self.embed(tokens)).chunk(3, dim=-1)
        mixed = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, :])
        summary = (mixed * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return self.head(summary)


torch.manual_seed(0)
classifier = AttentionClassifier(vocab=32, dim=32, classes=2)
alone = torch.tensor([[5, 1, 0, 7]])
padded_too = torch.tensor([[5, 1, 0, 7, 0, 0, 0, 0], [3] * 8])
mask_too = torch.tensor([[True] * 4 + [False] * 4, [True] * 8])
with torch.no_grad():
    print("alone:", classifier(alone, torch.ones(1, 4, dtype=torch.bool))[0].tolist())
    print("in a padded batch:", classifier(padded_too, mask_too)[0].tolist())

# %% [markdown]
# The data: 2,560 "sentences" of token ids from a vocabulary of 32, most of them short and a
# few long, as text is (`helpers.data.toy_sentences`); the label says whether token 1 occurs
# more often than token 2. The cell below trains the classifier on 2,048 of them for two
# epochs, twice from the same start: from shuffled batches of 32, then from your
# `BucketSampler`, both collated by your `pad_collate`. It counts the positions each epoch
# pads and times each epoch, then scores the other 512 sentences.

# %%
sentences = helpers.data.toy_sentences(2560, seed=0)
train_sentences, test_sentences = sentences[:2048], sentences[2048:]
sentence_lengths = [len(tokens) for tokens, _ in train_sentences]


def train_classifier(loader, epochs=2):
    """Train a fresh classifier; per epoch: seconds, padded positions, all positions, mean loss."""
    torch.manual_seed(0)
    model = AttentionClassifier(vocab=32, dim=32, classes=2)
    adam = torch.optim.Adam(model.parameters(), lr=3e-3)
    epochs_seen = []
    for epoch in range(epochs):
        start, padding, positions, total = time.perf_counter(), 0, 0, 0.0
        for tokens, mask, labels in loader:
            adam.zero_grad()
            loss = F.cross_entropy(model(tokens, mask), labels)
            loss.backward()
            adam.step()
            padding, positions = padding + int((~mask).sum()), positions + mask.numel()
            total += loss.item() * len(labels)
        epochs_seen.append((time.perf_counter() - start, padding, positions, total / len(loader.dataset)))
    with torch.no_grad():
        tokens, mask, labels = pad_collate(test_sentences)
        accuracy = (model(tokens, mask).argmax(1) == labels).float().mean().item()
    return epochs_seen, accuracy


def bucketing_table():
    loaders = {
        "shuffled batches": DataLoader(train_sentences, batch_size=32, shuffle=True, collate_fn=pad_collate,
                                       generator=torch.Generator().manual_seed(0)),
        "BucketSampler": DataLoader(train_sentences, collate_fn=pad_collate, batch_sampler=BucketSampler(
            sentence_lengths, 32, torch.Generator().manual_seed(0))),
    }
    print(f"{'batching':<18} {'epoch':>5} {'seconds':>8} {'positions':>10} {'padding':>9} {'loss':>7}")
    for name, loader in loaders.items():
        epochs_seen, accuracy = train_classifier(loader)
        for epoch, (seconds, padding, positions, loss) in enumerate(epochs_seen):
            print(f"{name:<18} {epoch:>5} {seconds:>8.2f} {positions:>10,} {padding / positions:>9.0%} {loss:>7.3f}")
        print(f"{name:<18} test accuracy after {len(epochs_seen)} epochs: {accuracy:.1%}")
    print(f"{sum(sentence_lengths):,} real tokens per epoch")


helpers.datasets.live(bucketing_table)

# %% [markdown]
# Read the rows in pairs. The real tokens are the same in every epoch, so every position
# beyond them is padding that the model embeds, attends over and differentiates for
# nothing, and the seconds follow the positions. The accuracy lines say whether the
# randomness your sampler keeps was enough for the model to learn as well.

# %% [markdown]
# ## 7. Workers: loading in other processes
#
# With `num_workers=0` the loader fetches and collates every batch in your own process,
# between training steps. With `num_workers=k` it starts k worker processes; each builds
# whole batches and sends them back through a queue, so loading can overlap the training
# step. The other arguments tune that machinery:
#
# | argument | buys | costs |
# |---|---|---|
# | `num_workers=k` | k batches prepared in parallel with training | k processes to start every epoch; each batch travels back through a queue (its tensors through shared memory) |
# | `persistent_workers=True` | workers kept alive between epochs (no restart) | their memory stays in use; the dataset object in them is not refreshed |
# | `prefetch_factor=p` | batches loaded ahead of the loop, up to a bound that p sets (the cell below prints its default) | memory to hold them |
# | `pin_memory=True` | faster, asynchronous copies to a CUDA GPU (section 11) | page-locked host memory; no use without a GPU |
# | `timeout=s` | a worker that does not answer in s seconds raises an error instead of hanging | needs `num_workers > 0` |
#
# `timeout` has no meaning without workers, and this version of PyTorch refuses it:

# %%
with checks.expect_error(AssertionError, ValueError):
    next(iter(DataLoader(range(4), timeout=5)))
print("prefetch_factor of a loader with workers, left at its default:",
      DataLoader(range(4), num_workers=2).prefetch_factor)

# %% [markdown]
# **What a worker receives.** On Linux up to Python 3.13 a worker is started by `fork` and
# inherits a copy of your process, dataset included. Under `spawn` (macOS, Windows) and
# `forkserver` (Linux's default from Python 3.14) the dataset, the `collate_fn` and the
# `worker_init_fn` are pickled, and pickle stores a class or a function **by reference**:
# its module and its name, imported again in the worker. A class defined in a notebook
# belongs to the module `__main__`, which a spawned worker cannot import. That is why the
# worker-side classes of this page live in `helpers/datasets.py`. The code you write in the
# exercises below is tested in this process, and runs in real workers where they are
# forked (the start method is printed here):

# %%
print("start method here:", torch.multiprocessing.get_start_method())
print(pickle.dumps(helpers.datasets.NoisyItems))
print(pickle.dumps(Squares))

# %% [markdown]
# **What a forked worker copies.** After a `fork` the worker shares every page of memory
# with the main process, and the system copies a page only when one of them writes to it
# (*copy-on-write*). Reading a Python object writes to it: every object carries a reference
# count, which changes whenever a name, a list or a function argument takes hold of it. So a
# worker that reads every item of a dataset kept as a list of Python objects copies every
# page those objects live on: in every worker, the dataset's memory again, and it looks like
# a leak that grows through the first epoch. A NumPy array or a tensor is one object, whose
# elements carry no counts: reading them writes nothing. One worker reads every element of
# the same million floats, kept three ways (`helpers.datasets.ReadEverything`; the private
# memory is read from `/proc/self/smaps_rollup` in the worker):

# %%
def read_growth_table():
    values = np.random.default_rng(0).normal(size=1_000_000)
    kept = {"list of Python floats": values.tolist(), "NumPy array": values,
            "tensor": torch.from_numpy(values)}
    print(f"the list's floats: {len(values):,} objects of {sys.getsizeof(1.5)} bytes, "
          f"{len(values) * sys.getsizeof(1.5) / 2**20:.1f} MiB; the array: {values.nbytes / 2**20:.1f} MiB")
    for name, container in kept.items():
        grown = helpers.datasets.read_growth_mib(container)
        said = "not measurable here (no fork or no /proc)" if grown is None else f"{grown:6.1f} MiB"
        print(f"the worker's private memory grew by {said} while it read a {name}")


with helpers.datasets.workers_explained():
    read_growth_table()

# %% [markdown]
# Where the table shows a growth, it can exceed the floats' own bytes: the system copies
# whole pages, and those also hold the allocator's bookkeeping and the gaps between objects.
# The remedy
# follows: keep what workers read in arrays or tensors (token ids concatenated
# in one array with an array of offsets, rather than a list of lists), or in files opened
# lazily in each worker (section 9), not in lists and dicts of Python objects.

# %% [markdown]
# ### Loading ahead
#
# With workers, the loader does not wait for the loop to ask for a batch: it hands indices to
# the workers ahead of time, so that a batch can be ready when the loop wants it. How far
# ahead it goes is bounded, and `prefetch_factor` sets the bound.
#
# **Quick quiz.** Two workers, the default `prefetch_factor` (2), items that sleep 1 ms
# (a batch of 4 takes a worker about 4 ms), and a slow training step of 40 ms. While the
# loop computes a step, the workers load ahead. At most how many batches are done and
# waiting for the loop at one moment? Set `quiz_ready` to an integer.

# %% solution 05_data-quiz-ready
### BEGIN SOLUTION
quiz_ready = 4
### END SOLUTION

# %% test 05_data-quiz-ready-test points=1
with checks.because("[mc:data.quiz-number] The answer is a count of batches, a whole number."):
    checks.answer("05_data-quiz-ready", quiz_ready, "quiz_ready", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_ready")
### JUDGE
from helpers.grading.probe import got
_answer = got["quiz_ready"]
with checks.because("[mc:data.quiz-number] The answer is a count of batches, a whole number."):
    checks.answer("05_data-quiz-ready", _answer, "quiz_ready", kind=int)
checks.expect_true(_answer == 2 * 2,    # torch's default prefetch_factor (2) per worker, 2 workers
                   "[mc:data.prefetch-per-loader] Each worker may have prefetch_factor batches "
                   "requested ahead of the loop: 2 workers x 2.")
### END HIDDEN TESTS

# %% wrong 05_data-quiz-ready
{
    2: "[mc:data.prefetch-per-loader] prefetch_factor counts per worker: each of the two "
       "workers may have two batches requested ahead of the loop.",
    6: "[mc:data.prefetch-unbounded] Workers do not run ahead through the whole epoch: the "
       "loader requests only prefetch_factor batches per worker beyond what the loop has taken.",
    24: "[mc:data.prefetch-unbounded] Workers do not run ahead through the whole epoch: the "
        "loader requests only prefetch_factor batches per worker beyond what the loop has taken.",
    1: "[mc:data.prefetch-none] With a 40 ms step and 4 ms batches, the workers finish more "
       "than one batch while the loop computes: the loader requests batches ahead.",
    0: "[mc:data.prefetch-none] Workers load while the loop computes: that is what they are for.",
    8: "[mc:data.prefetch-multiplied] Each worker may have prefetch_factor (2) batches requested "
       "ahead, no more: the two numbers multiply once, not twice.",
}

# %% [markdown]
# ### The DataLoader explorer, timeline view
#
# Which process loads which batch, and when? Text cannot show it, so this instrument
# measures it. Each change of a control runs a real `DataLoader` for two epochs of six
# steps: 24 items, batches of 4, each item costing `item ms` either asleep (like a read from
# a slow disk) or computing (like decoding an image), and a loop that takes each batch and
# computes for `step ms`, as a training step would. Every bar is drawn from timestamps taken
# in the processes themselves: one row for the main process (the training loop: blue steps,
# red waits for the next batch) and one per worker (orange or green loading, a white mark
# between items, hatched start-up). The strip at the bottom counts the batches that are done
# and not yet taken by the loop. A measurement takes a second or so (the widget says so while
# it measures), and times vary a little from run to run. It opens at the quiz's settings:

# %%
import helpers.loader_timeline  # so that this cell also runs on its own after a restart

timeline_view = helpers.loader_timeline.explore(num_workers=2, item_ms=1, step_ms=40)
timeline_view

# %% [markdown]
# Compare the highest count in the bottom strip (its label says it) with your answer. The
# loader keeps at most `prefetch_factor` batches per worker requested beyond what the loop
# has taken; when the step is slow they are all done and wait. Predict the count with
# `prefetch_factor` 1, or with 1 worker, then set it and check. Prefetching hides how long
# *one* batch takes, but it cannot make the workers produce batches faster than they can:
# with slow items the loop waits (red) whatever `prefetch_factor` is. Then:
#
# - Set `num_workers` to 0: the main process loads each batch, then steps; nothing
#   overlaps. Predict epoch 1's length from the item, batch and step times, then check the
#   title.
# - Set 2 workers, `item ms` 10 and `step ms` 10: notice the hatched start-up before the
#   first batch, and loading that overlaps the steps. Epoch 2 starts its workers again:
#   predict what `persistent_workers` changes in epoch 2's first wait, tick it, and compare
#   the title.
#
# ### Workers and random numbers
#
# `helpers.datasets.NoisyItems` returns `[index, noise]`, the noise drawn from a NumPy
# generator it makes in `__init__`:

# %%
helpers.datasets.show_source(helpers.datasets.NoisyItems)

# %% [markdown]
# **Quick quiz.** A loader over `NoisyItems(8)` has `batch_size=2` and `num_workers=2`
# (worker 0 builds batches 0 and 2, worker 1 batches 1 and 3). Do batch 0 and batch 1 carry
# the same noise values? Set `quiz_same_noise` to `True` or `False`.

# %% solution 05_data-quiz-workers
### BEGIN SOLUTION
quiz_same_noise = True
### END SOLUTION

# %% test 05_data-quiz-workers-test points=1
with checks.because("[mc:data.quiz-bool] Answer True or False."):
    checks.answer("05_data-quiz-workers", quiz_same_noise, "quiz_same_noise", kind=bool)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_same_noise")
### JUDGE
from helpers.grading.probe import got
_answer = got["quiz_same_noise"]
with checks.because("[mc:data.quiz-bool] Answer True or False."):
    checks.answer("05_data-quiz-workers", _answer, "quiz_same_noise", kind=bool)
checks.expect_true(_answer is True,
                   "[mc:data.workers-own-rng] Both workers hold a copy of the same generator in "
                   "the same state, and the loader does not reseed it.")
### END HIDDEN TESTS

# %% wrong 05_data-quiz-workers
{
    False: "[mc:data.workers-own-rng] The loader reseeds the global generators in each worker, "
           "not a generator your dataset holds: both workers get a copy of the same "
           "np.random.default_rng(0), in the same state, and draw the same noise.",
}

# %% [markdown]
# Here it is, live, for two epochs. `workers_explained()` runs the block and, on a machine
# where worker processes cannot start (a grading sandbox, say), prints why instead of
# failing; `timeout=` turns a worker that never answers into an error rather than a hang.

# %%
noisy = DataLoader(helpers.datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=60)
with helpers.datasets.workers_explained():
    for epoch in range(2):
        print(f"epoch {epoch}:", [batch[:, 1].tolist() for batch in noisy])

# %% [markdown]
# Compare with your answer: batch 0 and batch 1 carry the same noise, and so do 2 and 3.
# The noise also repeats across epochs, because each epoch starts its workers afresh from
# the same copy. Why: in each worker the loader seeds torch's, Python's and NumPy's
# *global* generators with seeds of its own, made from a base seed it draws each time it
# starts its workers (every epoch, unless they are kept), from the loader's `generator=`
# when you give one, plus the worker id. `get_worker_info()`,
# called inside a worker, tells that worker who it is (`id`, `num_workers`, `seed`), and its
# `dataset` is that worker's own copy. A loader's `worker_init_fn=f` calls `f(worker_id)` in
# each worker once the loader has seeded it, before the worker's first item. What each worker
# knows, live, from a dataset whose items report it:

# %%
helpers.datasets.show_source(helpers.datasets.WorkerView)
with helpers.datasets.workers_explained():
    for item in DataLoader(helpers.datasets.WorkerView(4), batch_size=None, num_workers=2,
                           timeout=60, generator=torch.Generator().manual_seed(0)):
        index, worker, workers, seed, torch_seed = item
        print(f"item {index}: worker {worker} of {workers}, get_worker_info().seed = {seed}, "
              f"torch.initial_seed() there = {torch_seed}")

# %% [markdown]
# So `jitter` (section 2), which draws from torch's global generator, gets different numbers
# in every worker and every epoch. A generator your dataset *owns* is not reseeded: it is
# a copy, in the state it had when it was copied.
#
# ### Exercise 6: seed each worker's generator (2 points)
#
# Write `seed_worker(worker_id)`, a `worker_init_fn` for `NoisyItems`: it gives the worker's
# copy of the dataset a NumPy generator of its own (`np.random.default_rng(...)`, stored in
# the copy's `rng`), seeded from this worker's seed, so that the two workers draw different
# noise, each epoch draws new noise, and a loader with a seeded `generator=` repeats its
# noise exactly when run again. *Misconceptions*: the loader reseeds generators a dataset
# owns; seeding NumPy's global generator reaches the dataset's own; the worker id alone is
# a seed.

# %% solution 05_data-seed-worker
def seed_worker(worker_id):
    ### BEGIN SOLUTION
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)
    ### END SOLUTION

# %% test 05_data-seed-worker-test points=2
_base, _next_epoch = 900450186894289455, 4137012447093562021    # base seeds as a loader draws them
with checks.explain_errors({"": "[mc:data.seed-worker-protocol] seed_worker(worker_id) runs inside a "
                                "worker: get_worker_info() says which, and its dataset is that "
                                "worker's copy."}, "seed_worker(worker_id)"):
    _noise = [helpers.data_tasks.worker_noise(seed_worker, s, w)
              for s, w in ((_base, 0), (_base + 1, 1), (_next_epoch, 0), (_base, 0))]
helpers.data_tasks.check_seed_worker(*_noise)
### BEGIN HIDDEN TESTS
import torch
import helpers.data_tasks
import helpers.datasets
from torch.utils.data import DataLoader
from helpers.grading import probe
probe.needs("seed_worker")
for _seed, _worker, _workers in ((900450186894289455, 0, 2), (900450186894289456, 1, 2), (4137012447093562021, 0, 2),
                                 (5, 0, 4), (6, 1, 4), (7, 2, 4), (8, 3, 4)):
    probe.observe(f"the noise of worker {_worker} of {_workers} with seed {_seed}",
                  lambda: helpers.data_tasks.worker_noise(seed_worker, _seed, _worker, _workers))
probe.observe("the noise of worker 0 of 2 with seed 900450186894289455, again",
              lambda: helpers.data_tasks.worker_noise(seed_worker, 900450186894289455, 0, 2))


def _epochs(seed):
    loader = DataLoader(helpers.datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=60,
                        worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(seed))
    return [[b[:, 1].tolist() for b in loader] for _ in range(2)]


with helpers.datasets.workers_explained() as _run:
    _first, _again = _epochs(3), _epochs(3)
if _run.ok:
    probe.value("two epochs with real workers, seeded 3, twice", [_first, _again])
### JUDGE
import helpers.data_tasks
from helpers.grading.probe import got
_hint = ("[mc:data.seed-worker-protocol] seed_worker(worker_id) runs inside a worker: "
         "get_worker_info() says which, and its dataset is that worker's copy.")
_noise = [got.value(f"the noise of worker {w} of 2 with seed {s}", _hint)
          for s, w in ((900450186894289455, 0), (900450186894289456, 1), (4137012447093562021, 0))]
helpers.data_tasks.check_seed_worker(*_noise, got["the noise of worker 0 of 2 with seed 900450186894289455, again"])
checks.expect_true(len({tuple(got[f"the noise of worker {w} of 4 with seed {5 + w}"]) for w in range(4)}) == 4,
                   "[mc:data.workers-own-rng] four workers should draw four different noises.")
if "two epochs with real workers, seeded 3, twice" in got:
    _first, _again = got["two epochs with real workers, seeded 3, twice"]
    checks.expect_true(_first[0][0] != _first[0][1],
                       "[mc:data.workers-own-rng] with real workers, batches 0 and 1 still share noise.")
    checks.expect_true(_first[0] != _first[1],
                       "[mc:data.seed-from-worker-id] with real workers, epoch 2 repeats epoch 1's noise.")
    checks.expect_true(_first == _again,
                       "[mc:data.seed-not-reproducible] a loader with the same seeded generator should "
                       "repeat its noise.")
### END HIDDEN TESTS

# %% [markdown]
# Your `seed_worker`, live (the same loader as above, with `worker_init_fn=seed_worker` and a
# seeded `generator`, run twice):

# %%
def seeded_noise():
    loader = DataLoader(helpers.datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=60,
                        worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(0))
    runs = [[batch[:, 1].tolist() for batch in loader] for epoch in range(2)]
    print("epoch 0:", runs[0])
    print("epoch 1:", runs[1])
    print("a new loader with seed 0 repeats epoch 0:", runs[0] == [
        batch[:, 1].tolist() for batch in DataLoader(
            helpers.datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=60,
            worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(0))])


helpers.datasets.live(seeded_noise)

# %% [markdown]
# ### Streams in workers: sharding
#
# An **iterable** dataset has the same trap in another form: every worker gets a copy of
# the stream and iterates it, so unless `__iter__` asks `get_worker_info()` which part is
# its own, every worker yields all of it. `helpers.datasets.RangeStream` shards when
# `shard=True`:

# %%
helpers.datasets.show_source(helpers.datasets.RangeStream.__iter__)
with helpers.datasets.workers_explained():
    for shard in (False, True):
        got = [int(x) for x in DataLoader(helpers.datasets.RangeStream(0, 6, shard=shard),
                                          batch_size=None, num_workers=2, timeout=60)]
        print(f"shard={shard}:", got)

# %% [markdown]
# Without sharding, each number arrives twice; with it, worker k yields every second number
# starting at k, and the loader interleaves the workers' outputs. `get_worker_info()` is
# `None` in the main process, which is where `__iter__` runs when `num_workers=0`.
#
# ### Exercise 7: a stream read in contiguous blocks (2 points)
#
# A file read sequentially is best split into contiguous blocks: each worker seeks once to
# the start of its own block. Write `ChunkedStream(records)`, an `IterableDataset` over a
# list `records`, whose `__iter__` yields records in order: with no workers, all of them;
# in worker w of k, one contiguous block, such that the blocks of workers 0, 1, ..., k−1,
# one after the other, are exactly `records`, and their sizes differ by at most one (with
# more workers than records, some blocks are empty). *Misconceptions*: every worker replays
# the whole stream; strided shards are not contiguous; ⌊N / k⌋-sized blocks lose the rest;
# `get_worker_info()` is `None` without workers.

# %% solution 05_data-chunks
class ChunkedStream(IterableDataset):
    def __init__(self, records):
        self.records = records

    def __iter__(self):
        ### BEGIN SOLUTION
        info = get_worker_info()
        if info is None:
            return iter(self.records)
        n, k, w = len(self.records), info.num_workers, info.id
        return iter(self.records[w * n // k:(w + 1) * n // k])
        ### END SOLUTION

# %% test 05_data-chunks-test points=2
_recs = [f"r{i}" for i in range(10)]
with checks.explain_errors({"nonetype": "[mc:data.stream-main-process] get_worker_info() is None in "
                                        "the main process (num_workers=0): then yield every record."},
                           "iterating ChunkedStream(records)"):
    _stream = ChunkedStream(_recs)
    _alone, _twice = list(_stream), list(_stream)
    _three = helpers.data_tasks.blocks(ChunkedStream(_recs), 3)
helpers.data_tasks.check_chunks(_alone, _twice, _three, _recs)
### BEGIN HIDDEN TESTS
import helpers.data_tasks
import helpers.datasets
from torch.utils.data import DataLoader
from helpers.grading import probe
probe.needs("ChunkedStream")
_records = [f"r{i}" for i in range(10)]
_once = ChunkedStream(_records)
probe.observe("list(ChunkedStream(10 records)), no workers", lambda: list(_once))
probe.observe("list(ChunkedStream(10 records)) again, the next epoch", lambda: list(_once))
probe.observe("ChunkedStream(10 records) in 3 workers", lambda: helpers.data_tasks.blocks(ChunkedStream(_records), 3))
for _n, _k in [(7, 2), (4, 4), (3, 5), (100, 7), (1, 3), (0, 2), (12, 3)]:
    _stream = ChunkedStream(list(range(_n)))
    probe.observe(f"ChunkedStream({_n} records) in {_k} workers, two epochs",
                  lambda: [helpers.data_tasks.blocks(_stream, _k) for _ in range(2)])
with helpers.datasets.workers_explained() as _run:
    _real = [int(x) for x in DataLoader(ChunkedStream(list(range(11))), batch_size=None,
                                        num_workers=2, timeout=60)]
if _run.ok:
    probe.value("ChunkedStream(11 records) through a DataLoader with 2 real workers", _real)
### JUDGE
import helpers.data_tasks
from helpers.grading.probe import got
_hints = {"nonetype": "[mc:data.stream-main-process] get_worker_info() is None in the main process "
                      "(num_workers=0): then yield every record."}
_records = [f"r{i}" for i in range(10)]
helpers.data_tasks.check_chunks(
    helpers.data_tasks.explained(got, "list(ChunkedStream(10 records)), no workers", _hints),
    helpers.data_tasks.explained(got, "list(ChunkedStream(10 records)) again, the next epoch", _hints),
    helpers.data_tasks.explained(got, "ChunkedStream(10 records) in 3 workers", _hints), _records)
for _n, _k in [(7, 2), (4, 4), (3, 5), (100, 7), (1, 3), (0, 2), (12, 3)]:
    _first, _second = got[f"ChunkedStream({_n} records) in {_k} workers, two epochs"]
    checks.expect_true(sum(_first, []) == list(range(_n)),
                       f"[mc:data.shard-drops-remainder] {_n} records, {_k} workers: the blocks in "
                       "worker order should be the records.")
    checks.expect_true(max(map(len, _first)) - min(map(len, _first)) <= 1,
                       f"[mc:data.shard-unbalanced] {_n} records, {_k} workers: sizes "
                       f"{[len(b) for b in _first]}.")
    checks.expect_true(_second == _first,
                       f"[mc:data.stream-iterator-once] {_n} records, {_k} workers: the next epoch "
                       "yielded other blocks: __iter__ must start afresh on every call.")
if "ChunkedStream(11 records) through a DataLoader with 2 real workers" in got:
    checks.expect_true(sorted(got["ChunkedStream(11 records) through a DataLoader with 2 real workers"])
                       == list(range(11)),
                       "[mc:data.stream-not-sharded] with 2 real workers, every record exactly once.")
### END HIDDEN TESTS

# %% [markdown]
# ## 8. DistributedSampler: one dataset, several processes
#
# In data-parallel training, each of `world_size` processes (ranks) trains on its own part
# of every epoch, and after every step the ranks average their gradients.
# `DistributedSampler(dataset, num_replicas=world_size, rank=r)` builds one list of indices
# for the epoch and gives rank r every `world_size`-th position of it, starting at r. Passing `num_replicas` and `rank` explicitly means
# no process group is needed, so one process can show every rank's share.
#
# **Quick quiz.** With N = 50,000 examples and a world size of 3 (`shuffle=False`), how
# many indices does rank 2 get per epoch? Set `quiz_per_rank` to an integer.

# %% solution 05_data-quiz-ranks
### BEGIN SOLUTION
quiz_per_rank = 16667
### END SOLUTION

# %% test 05_data-quiz-ranks-test points=1
with checks.because("[mc:data.quiz-number] The answer is a count of indices, a whole number."):
    checks.answer("05_data-quiz-ranks", quiz_per_rank, "quiz_per_rank", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_per_rank")
### JUDGE
from helpers.grading.probe import got
_answer = got["quiz_per_rank"]
with checks.because("[mc:data.quiz-number] The answer is a count of indices, a whole number."):
    checks.answer("05_data-quiz-ranks", _answer, "quiz_per_rank", kind=int)
checks.expect_true(_answer == math.ceil(50_000 / 3),
                   "[mc:data.dist-floor] every rank gets ceil(N / world_size) indices.")
### END HIDDEN TESTS

# %% wrong 05_data-quiz-ranks
{
    16666: "[mc:data.dist-floor] Rank 2 would get 2, 5, ..., 49997, one index fewer than ranks "
           "0 and 1, and take one step fewer: DistributedSampler pads the index list so that "
           "every rank gets the same number.",
    50000: "[mc:data.dist-everything] Each rank gets its own share of the epoch, not the whole "
           "dataset.",
    25000: "[mc:data.dist-floor] A share is about N / world_size, rounded so that every rank "
           "gets the same number.",
}

# %% [markdown]
# How many indices each rank gets for N = 50,000, and every rank's share for N = 10 (the
# same world size of 3), without and with shuffling:

# %%
print("N = 50,000:", [len(DistributedSampler(range(50_000), num_replicas=3, rank=r, shuffle=False))
                      for r in range(3)], "indices for ranks 0, 1, 2")
for shuffle in (False, True):
    shares = [list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=shuffle, seed=0))
              for r in range(3)]
    print(f"shuffle={shuffle}:", shares)

# %% [markdown]
# Compare with your answer. For N = 10, rank 2 gets 2, 5, 8 **and 1**, and rank 1 gets
# index 0, which rank 0 also gets: 0 and 1 are read twice in this epoch. Every rank must take
# the same number of steps: at each gradient average a rank waits for all the others, and
# a rank that ran out of data would leave them waiting for ever. So the sampler pads the
# index list with repeats of its first indices up to a multiple of `world_size`: every rank
# gets ⌈N / world_size⌉ indices, and some examples are seen twice per epoch (its
# `drop_last=True` drops the tail instead). In the explorer of section 4, choose the sampler
# "distributed", N = 10, world size 4, and step the rank from 0 to 3: notice the hatched
# padding in the top strip and which ranks receive it.
#
# With `shuffle=True` every rank must call `sampler.set_epoch(epoch)` before each epoch: the
# permutation is seeded with `seed + epoch`, so without it every epoch repeats the first
# order.

# %%
sampler = DistributedSampler(range(10), num_replicas=3, rank=0, shuffle=True, seed=0)
print("rank 0, epochs 0, 0, 1:", list(sampler), list(sampler), end=" ")
sampler.set_epoch(1)
print(list(sampler))

# %% [markdown]
# ### Exercise 8: evaluation results back in dataset order (2 points)
#
# Distributed evaluation runs the same sampler: each rank computes a prediction for every
# index of its share, and the ranks then gather their lists into one process
# (`torch.distributed.all_gather_object`). What arrives is one list per rank, in its
# sampler's order, padding included, and it must become one prediction per example before
# any metric is computed. Write `gather_in_order(per_rank, n)`: `per_rank[r]` is the list of
# values rank r computed, one for each index `DistributedSampler(range(n),
# num_replicas=len(per_rank), rank=r, shuffle=False)` gave it, in that order. Return the
# list of n values in dataset order: item i is the value computed for example i, each
# example once. *Misconceptions*: the ranks' lists one after the other are in dataset
# order; the repeats can stay (or be found by comparing values, which repeat in real
# predictions); the padding wraps round at most once (with more ranks than examples it
# wraps several times).

# %% solution 05_data-shard
def gather_in_order(per_rank, n):
    ### BEGIN SOLUTION
    world_size = len(per_rank)
    # the padded index list put position p at rank p % world_size, step p // world_size,
    # and its first n positions are the examples 0 .. n-1 in order
    return [per_rank[p % world_size][p // world_size] for p in range(n)]
    ### END SOLUTION

# %% test 05_data-shard-test points=2
_values = [f"prediction {i}" for i in range(10)]
for _world in (4, 3):
    _per_rank = helpers.data_tasks.per_rank_values(_values, _world)
    with checks.explain_errors({"": "[mc:data.dist-rule] gather_in_order(per_rank, n) takes the ranks' "
                                    "lists and the number of examples, and returns a list."},
                               f"gather_in_order(per_rank of {_world} ranks, 10)"):
        _gathered = gather_in_order(_per_rank, 10)
    helpers.data_tasks.check_gather(_gathered, _values, _world)
### BEGIN HIDDEN TESTS
import helpers.data_tasks
from helpers.grading import probe
probe.needs("gather_in_order")
_cases = helpers.data_tasks.gather_cases()
for _name, (_values, _world) in _cases.items():
    probe.call(f"gather_in_order({_name})", gather_in_order,
               helpers.data_tasks.per_rank_values(_values, _world), len(_values))
### JUDGE
import helpers.data_tasks
from helpers.grading.probe import got
_cases = helpers.data_tasks.gather_cases()
for _name, (_values, _world) in _cases.items():
    helpers.data_tasks.check_gather(got.value(f"gather_in_order({_name})", "[mc:data.dist-rule] gather_in_order"
                                              "(per_rank, n) returns the n values in dataset order."),
                                    _values, _world)
### END HIDDEN TESTS

# %% [markdown]
# ## 9. Data larger than memory: `np.memmap`
#
# A dataset need not fit in memory: only the examples of the current batch must. Store the
# array in a file of raw numbers and open it with `np.memmap`: indexing reads just those
# rows' pages from disk (the operating system caches what is used often), so the file may
# be larger than RAM. `helpers.datasets.MemmapRows` opens the file lazily in each process
# that reads it. Here a 20,000 × 256 float32 file is written to a temporary directory:

# %%
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "rows.f32")
n_rows, width = 20_000, 256
writer = np.memmap(path, dtype=np.float32, mode="w+", shape=(n_rows, width))
for start in range(0, n_rows, 5_000):          # written in chunks, as one would from a stream
    writer[start:start + 5_000] = np.arange(start, start + 5_000, dtype=np.float32)[:, None]
writer.flush()
del writer
print("file size", os.path.getsize(path) / 2**20, "MiB")
on_disk = helpers.datasets.MemmapRows(path, (n_rows, width))
batch = next(iter(DataLoader(on_disk, batch_size=4, shuffle=True,
                             generator=torch.Generator().manual_seed(0))))
print(batch.shape, batch.dtype, "first column:", batch[:, 0].tolist())
tmp.cleanup()

# %% [markdown]
# ## 10. The loader inside a training loop
#
# Notebook 04 cut its batches by hand, `X[start:start + batch_size]`. A `DataLoader` does
# that job, reshuffles every epoch (from the `generator=` you pass, else from torch's global
# one), applies per-item transforms, and
# hands over the ragged last batch like any other. The loop itself keeps its five steps:
# the loader only replaces the slicing. Here is an epoch function as someone wrote it, and
# three epochs of it on the digits (a model with dropout, handed over as it came back from
# an evaluation):

# %%
def fit_epoch_as_found(model, loader, optimizer, loss_fn):
    """Train model for one epoch over loader; return the epoch's mean loss per example."""
    total = 0.0
    for _ in range(len(loader)):
        inputs, targets = next(iter(loader))
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


torch.manual_seed(0)
found_mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 10)).eval()
found_sgd = torch.optim.SGD(found_mlp.parameters(), lr=0.01)
for epoch in range(3):
    reported = fit_epoch_as_found(found_mlp, DataLoader(digits, batch_size=64), found_sgd,
                                  nn.CrossEntropyLoss())
    print(f"epoch {epoch}: reported mean loss {reported:.4f}")
with torch.no_grad():
    print(f"test accuracy after 3 epochs: {(found_mlp(X_test).argmax(1) == y_test).float().mean():.1%}")

# %% [markdown]
# It runs without an error, and the loss it reports falls. That is not evidence that it is
# right.
#
# ### Exercise 9: one epoch from a loader, repaired (3 points)
#
# Find what is wrong with `fit_epoch_as_found` (read it line by line against the contract
# below; hooks on the model or a spy on the optimizer can show you what it does) and write
# `fit_epoch(model, loader, optimizer, loss_fn)`, which keeps this contract: for any `loader`
# that yields `(inputs, targets)` batches (shuffled or not, with or without `drop_last`), it
# trains `model`, whatever mode the model arrives in, for exactly one epoch, with notebook
# 04's five steps: one optimizer step per batch, in the order the loader yields them, each
# step from that batch's gradient alone; it returns the epoch's mean loss **per example**
# (`loss_fn` returns a batch's mean) over the examples the epoch trained on, as a Python
# float. *Misconceptions*: about which batches a loop over a loader visits, what a step's
# gradient holds, which mode a model trains in, and what an epoch's mean is taken over.

# %% solution 05_data-fit-epoch
def fit_epoch(model, loader, optimizer, loss_fn):
    ### BEGIN SOLUTION
    model.train()
    total, count = 0.0, 0
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(targets)
        count += len(targets)
    return total / count
    ### END SOLUTION

# %% test 05_data-fit-epoch-test points=3
_gx = torch.Generator().manual_seed(4)
_XS, _YS = torch.randn(10, 4, generator=_gx), torch.randint(0, 3, (10,), generator=_gx)
with checks.explain_errors(helpers.data_tasks.FIT_HINTS, "fit_epoch(model, loader, optimizer, loss_fn)"):
    _seen = helpers.data_tasks.watched_fit(fit_epoch, lambda: DataLoader(TensorDataset(_XS, _YS), batch_size=4), 0)
helpers.data_tasks.check_fit(_seen, _XS, (4, 4, 2))
### BEGIN HIDDEN TESTS
import torch
import helpers.data_tasks
from torch.utils.data import DataLoader, TensorDataset
from helpers.grading import probe
probe.needs("fit_epoch")
_g = torch.Generator().manual_seed(4)
_X10, _Y10 = torch.randn(10, 4, generator=_g), torch.randint(0, 3, (10,), generator=_g)
_X23, _Y23 = torch.randn(23, 4, generator=_g), torch.randint(0, 3, (23,), generator=_g)
probe.observe("fit_epoch over 10 rows in batches of 4",
              lambda: helpers.data_tasks.watched_fit(fit_epoch, lambda: DataLoader(TensorDataset(_X10, _Y10), batch_size=4), 0))
probe.observe("fit_epoch over 23 rows, shuffled batches of 5, drop_last",
              lambda: helpers.data_tasks.watched_fit(fit_epoch, lambda: DataLoader(
                  TensorDataset(_X23, _Y23), batch_size=5, shuffle=True, drop_last=True,
                  generator=torch.Generator().manual_seed(8)), 1))
### JUDGE
import math
import torch
import helpers.data_tasks
from helpers.grading.probe import got, ref
_seen = helpers.data_tasks.explained(got, "fit_epoch over 10 rows in batches of 4", helpers.data_tasks.FIT_HINTS)
_g = torch.Generator().manual_seed(4)
_X10 = torch.randn(10, 4, generator=_g)
helpers.data_tasks.check_fit(_seen, _X10, (4, 4, 2))
checks.expect_close(_seen["weights"], ref["fit_epoch over 10 rows in batches of 4"]["weights"],
                    "the weights after one epoch", rtol=1e-5, atol=1e-6,
                    hint="[mc:data.fit-steps] the weights after one epoch differ from zero_grad, "
                         "forward, loss, backward, step on every batch, in the loader's order.")
_seen = helpers.data_tasks.explained(got, "fit_epoch over 23 rows, shuffled batches of 5, drop_last",
                                     helpers.data_tasks.FIT_HINTS)
_want = ref["fit_epoch over 23 rows, shuffled batches of 5, drop_last"]
checks.expect_true(len(_seen["rows"]) == 4 and len(torch.cat(_seen["rows"]).unique(dim=0)) == 20,
                   "[mc:data.iter-every-step] a shuffled loader with drop_last: 4 batches of 5 "
                   "different rows.")
checks.expect_true(all(_seen["modes"]), "[mc:data.fit-train-mode] every submodule should train in "
                                        "training mode.")
checks.expect_close(_seen["weights"], _want["weights"], "the weights after a shuffled epoch", rtol=1e-5, atol=1e-6,
                    hint="[mc:data.fit-steps] a shuffled epoch: zero_grad, forward, loss, backward, "
                         "step on every batch, in the loader's order.")
checks.expect_true(not (isinstance(_seen["returned"], float) and
                        math.isclose(_seen["returned"], _want["returned"] * 20 / 23, rel_tol=1e-6)),
                   "[mc:data.mean-over-dataset] You divided by len(loader.dataset) (23), but with "
                   "drop_last=True the epoch trained on 20 examples: divide by the examples the "
                   "epoch used.")
checks.expect_close(_seen["returned"], _want["returned"], "fit_epoch(...)", rtol=1e-5,
                    hint="[mc:data.mean-of-batch-means] weight each batch's loss by its size.")
### END HIDDEN TESTS

# %% [markdown]
# ### Where does a step's time go?
#
# The same loop with a clock: before asking the loader for a batch, after getting it, and
# after the step. Time between the first two is time the step **waits** for data; between
# the last two, time it **computes**.

# %%
def timed_epoch(model, loader, optimizer, loss_fn):
    """One epoch of the five steps; per step, the seconds spent waiting for the batch and computing."""
    model.train()
    waited, computed = [], []
    asked = time.perf_counter()
    for inputs, targets in loader:
        got = time.perf_counter()
        optimizer.zero_grad()
        loss_fn(model(inputs), targets).backward()
        optimizer.step()
        done = time.perf_counter()
        waited.append(got - asked)
        computed.append(done - got)
        asked = done
    return waited, computed

# %% [markdown]
# Four loaders for notebook 04's digits MLP (64 → 128 → 10, batches of 64), three epochs
# each, the medians taken over the steps of the last two: items fetched one by one from a
# `TensorDataset` (the default); the same with `jitter` applied to each item; that in two
# worker processes (kept between epochs); and whole batches fetched with one indexing
# operation, by a `BatchSampler` over a `RandomSampler` and `batch_size=None` (a
# `TensorDataset` indexed with a list of indices returns the rows as one batch).

# %%
def digits_loaders():
    shuffle = torch.Generator().manual_seed(0)
    return {
        "per item": DataLoader(digits, batch_size=64, shuffle=True, generator=shuffle),
        "per item + jitter": DataLoader(augmented, batch_size=64, shuffle=True, generator=shuffle),
        "jitter, 2 workers": DataLoader(augmented, batch_size=64, shuffle=True, generator=shuffle,
                                        num_workers=2, persistent_workers=True, timeout=60),
        "whole batches": DataLoader(digits, batch_size=None, sampler=BatchSampler(
            RandomSampler(digits, generator=shuffle), batch_size=64, drop_last=False)),
    }


def digits_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


step_ms = {}
with helpers.datasets.workers_explained():
    for name, digit_loader in digits_loaders().items():
        mlp = digits_mlp()
        adam = torch.optim.Adam(mlp.parameters(), lr=0.01)
        waited, computed = [], []
        for epoch in range(3):
            epoch_waits, epoch_computes = timed_epoch(mlp, digit_loader, adam, nn.CrossEntropyLoss())
            if epoch > 0:                       # the first epoch warms up (and starts the workers)
                waited += epoch_waits
                computed += epoch_computes
        step_ms[name] = (np.median(waited) * 1000, np.median(computed) * 1000)
        print(f"{name:<18} {len(digit_loader)} steps an epoch; per step (median): waits "
              f"{step_ms[name][0]:5.2f} ms, computes {step_ms[name][1]:5.2f} ms "
              f"(waiting {step_ms[name][0] / sum(step_ms[name]):4.0%} of the step)")
        if name == "per item":
            with torch.no_grad():
                plain_accuracy = (mlp.eval()(X_test).argmax(1) == y_test).float().mean().item()
print(f"the MLP trained 3 epochs from the per-item loader: {plain_accuracy:.1%} test accuracy")
print(helpers.loader_verdicts.machine_line())

# %% [markdown]
# Read the table by rows: where does each loader's step spend its time? The medians vary
# from run to run, and with what else the machine is doing (the last line says how busy it
# was). What this run measured:

# %%
for line in helpers.loader_verdicts.step_verdicts(step_ms["per item"], step_ms["per item + jitter"],
                                                 step_ms["jitter, 2 workers"], step_ms["whole batches"]):
    print(line)

# %% [markdown]
# For data that already sits in memory as tensors, one indexing operation per batch needs no
# worker. Workers can take per-item work such as `jitter` off the main process, but they run
# on the same cores as the training step, and each batch they make must travel back through
# a queue: whether that pays depends on the machine and on how busy it is, which is why the
# verdict above is computed from this run. Section 12 measures workers on items that cost
# time without computing, as a read from a disk or the network does.

# %% [markdown]
# ### Resuming in the middle of an epoch
#
# A long epoch can be cut short (a preempted machine, a crash) and training restarted from a
# checkpoint. Model and optimizer state (notebook 04) are not enough to carry on as if
# nothing happened: the loader must also start where it stopped, in the same order, or the
# resumed epoch sees some examples twice and others never. Its state is what decides the
# order (the seed and the epoch number, from which this sampler draws its permutation) and
# the position in it. The position must be counted by the **loop**, in batches it took:
# with workers, the loader has already asked the sampler for the batches it prefetches.

# %%
class ResumableSampler(Sampler):
    """A new random order each epoch, drawn from (seed, epoch), that can start part-way.
    Call set_epoch(e) before each epoch, as with DistributedSampler."""

    def __init__(self, n, seed):
        self.n, self.seed, self.epoch, self.start, self.handed_out = n, seed, 0, 0, 0

    def set_epoch(self, epoch):
        self.epoch, self.start = epoch, 0          # only a resumed epoch skips its beginning

    def __len__(self):
        return self.n - self.start

    def __iter__(self):
        # start stays until the next set_epoch: a second crash in a resumed epoch counts from it
        order = torch.randperm(self.n, generator=torch.Generator().manual_seed(self.seed + self.epoch))
        for index in order[self.start:].tolist():
            self.handed_out += 1
            yield index

    def state_dict(self, batches_taken, batch_size):
        return {"seed": self.seed, "epoch": self.epoch, "start": self.start + batches_taken * batch_size}

    def load_state_dict(self, state):
        self.seed, self.epoch, self.start = state["seed"], state["epoch"], state["start"]


def resume_demo(workers):
    sampler = ResumableSampler(24, seed=7)
    loader = DataLoader(range(24), batch_size=4, sampler=sampler, num_workers=workers,
                        timeout=60 if workers else 0)
    batches = iter(loader)
    before = [next(batches).tolist() for _ in range(3)]          # three steps, then a crash
    state = sampler.state_dict(batches_taken=3, batch_size=4)
    print(f"{workers} workers: the loop took 12 indices, the sampler had handed out "
          f"{sampler.handed_out}; saved {state}")
    del batches
    fresh = ResumableSampler(24, seed=0)                          # a new process...
    fresh.load_state_dict(state)                                  # ...and the checkpoint
    after = [b.tolist() for b in DataLoader(range(24), batch_size=4, sampler=fresh)]
    whole = [b.tolist() for b in DataLoader(range(24), batch_size=4, sampler=ResumableSampler(24, 7))]
    print("   before + after the restart == one uninterrupted epoch:", before + after == whole)


with helpers.datasets.workers_explained():
    for workers in (0, 2):
        resume_demo(workers)

# %% [markdown]
# Had the state been taken from the sampler's own count, the resumed epoch would have
# skipped the batches the workers had loaded ahead. Random transforms draw from generators
# too: for an exact replay, save their state as well (`torch.get_rng_state()`, a
# generator's `get_state()`). torchdata's `StatefulDataLoader` is a `DataLoader` with a
# `state_dict()` that does this bookkeeping for the sampler, the workers and the dataset.

# %% [markdown]
# ## 11. pin_memory and non_blocking: feeding a GPU
#
# A batch is made in ordinary (pageable) host memory. A copy to a CUDA GPU is done by the
# GPU's copy engine, which can read only **page-locked** ("pinned") memory, which the
# operating system will not move; so a copy from pageable memory first goes through a
# pinned staging buffer, and `.to("cuda")` returns only when the copy has finished.
# `DataLoader(..., pin_memory=True)` puts each batch in pinned memory as it arrives (in a
# thread of the main process when workers load, inline otherwise). From pinned memory, `batch.to("cuda", non_blocking=True)`
# only *queues* the copy and returns at once, so the CPU can go on (to the next batch, to
# queuing the forward pass) while the copy runs. That is safe for the model: work queued
# on the same CUDA stream runs in order, so the forward pass starts after its input has
# arrived. It is not safe to read a tensor on the CPU that a non-blocking copy from the GPU
# is still writing: synchronise first. What `pin_memory` does on the machine running this
# page:

# %%
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    pinned_batch = next(iter(DataLoader(digits, batch_size=64, pin_memory=True)))[0]
print("pinned:", pinned_batch.is_pinned(), "| DataLoader said:",
      [str(w.message) for w in caught if "pin" in str(w.message)])
print("the loop on a GPU:  for inputs, targets in loader:  "
      "inputs = inputs.to('cuda', non_blocking=True) ...")
print(helpers.datasets.pinned_copy_times())

# %% [markdown]
# ## 12. When do workers help? A measurement
#
# Workers overlap loading with everything else, but they are not free: starting them takes
# time every epoch (unless `persistent_workers=True`), every batch is pickled and passed back,
# and they run on the same CPU cores as training. So the question is not whether workers are
# faster, but from which amount of loading per epoch. The measurement below times whole
# epochs (median of three) of items that each take 8 ms to arrive, as a read from a slow
# disk may (`helpers.datasets.WaitingItems`, whose `__getitem__` calls `time.sleep`): 64
# items (8 batches of 8) with 0 workers, 2 workers started every epoch, and 2 or 4
# workers kept between epochs (`persistent_workers=True`, so the median epoch is
# one without start-up); and 8 items (one batch) with 0 and 2 workers.
#
# **Quick quiz.** On a machine with 2 cores, with those 64 items and the workers kept, is an
# epoch with 4 workers faster than one with 2? Set `quiz_four_faster` to `True` or `False`.

# %% solution 05_data-quiz-four
### BEGIN SOLUTION
quiz_four_faster = True
### END SOLUTION

# %% test 05_data-quiz-four-test points=1
with checks.because("[mc:data.quiz-bool] Answer True or False."):
    checks.answer("05_data-quiz-four", quiz_four_faster, "quiz_four_faster", kind=bool)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_four_faster")
### JUDGE
from helpers.grading.probe import got
_answer = got["quiz_four_faster"]
with checks.because("[mc:data.quiz-bool] Answer True or False."):
    checks.answer("05_data-quiz-four", _answer, "quiz_four_faster", kind=bool)
# graded against the lesson, not against this machine's timings: a worker waiting for its
# item sleeps, so four of them wait for four items at once whatever the number of cores
checks.expect_true(_answer is True,
                   "[mc:data.workers-need-cores] A worker waiting for its item sleeps: it needs no "
                   "core while it waits, so 4 workers wait for 4 items at once, even on 2 cores.")
### END HIDDEN TESTS

# %% wrong 05_data-quiz-four
{
    False: "[mc:data.workers-need-cores] More workers than cores is no limit for items that "
           "wait: a worker waiting for its item sleeps and needs no core, so 4 workers wait for "
           "4 items at once.",
}

# %% [markdown]
# The measurement (the cell prints how long it took):

# %%
def epoch_seconds(dataset, workers, persistent=False):
    loader = DataLoader(dataset, batch_size=8, num_workers=workers, timeout=60 if workers else 0,
                        persistent_workers=persistent)
    return helpers.datasets.seconds_per_epoch(loader, repeat=3)


wait_s = 0.008
epochs = {}
measure_start = time.perf_counter()
with helpers.datasets.workers_explained():
    small, large = helpers.datasets.WaitingItems(8, wait_s), helpers.datasets.WaitingItems(64, wait_s)
    epochs[8] = {"0": epoch_seconds(small, 0), "2": epoch_seconds(small, 2)}
    epochs[64] = {"0": epoch_seconds(large, 0), "2": epoch_seconds(large, 2),
                  "2 kept": epoch_seconds(large, 2, persistent=True),
                  "4 kept": epoch_seconds(large, 4, persistent=True)}
    print(helpers.loader_verdicts.epoch_table(epochs, wait_s))
print(helpers.loader_verdicts.machine_line())
print(f"this measurement took {time.perf_counter() - measure_start:.1f} s")

# %% [markdown]
# Compare the `2 kept` and `4 kept` columns of the 64-item row with your answer. Each ratio is
# the speed against 0 workers (below 1: the workers slowed the epoch down). A worker waiting
# for its item sleeps; it needs a core only to ask for the item and to hand the batch back.
#
# Where is the line for workers started every epoch? With k of them an epoch costs about a
# fixed start-up S plus the loading time L (the 0-worker epoch) divided by k, so they win
# once S + L / k < L, that is once L > S · k / (k − 1). S comes from the 64-item row, and
# the 8-item row checks the line. What this run measured:

# %%
if 64 in epochs:
    for line in helpers.loader_verdicts.worker_verdicts(epochs, wait_s, helpers.datasets.cpu_count()):
        print(line)

# %% [markdown]
# Kept workers pay the start-up once instead of every epoch, which moves the line down to the
# cost of passing batches back. Items
# that *compute* (decoding, augmenting) are another matter: such a worker needs a core for
# the whole item, and section 10 measured what two workers did for `jitter` on this machine.
# Measure on the machine you train on before choosing `num_workers`.
#
# ## 13. Common mistakes
#
# The first two reproduced live, then fixed; the last two were shown in section 7.
#
# **1. Dividing by the nominal batch size.** A per-batch statistic that divides by
# `batch_size` is wrong for the ragged last batch:

# %%
values = torch.arange(10.0)
wrong_means = [batch.sum().item() / 4 for batch in DataLoader(values, batch_size=4)]
right_means = [batch.mean().item() for batch in DataLoader(values, batch_size=4)]
print("divided by batch_size:", wrong_means, "| by the batch's length:", right_means)

# %% [markdown]
# **2. `next(iter(loader))` inside the loop.** Each call builds a new iterator (and, with
# workers, starts them again), so without shuffling every step gets the first batch:

# %%
stuck = DataLoader(range(8), batch_size=2)
print("next(iter(loader)) three times:", [next(iter(stuck)).tolist() for _ in range(3)])
batches_iter = iter(stuck)
print("fix, one iterator:             ", [next(batches_iter).tolist() for _ in range(3)])

# %% [markdown]
# **3. The same "random" augmentation in every worker** (section 7): a generator made in
# `__init__` is copied into every worker and never reseeded; reseed it in a
# `worker_init_fn` from `get_worker_info().seed` (exercise 6), or draw from torch's global
# generator, which the loader seeds per worker. **4. Every worker replays a stream**
# (section 7): shard it in `__iter__` with `get_worker_info()` (exercise 7).
#
# ## Summary
#
# - A map-style dataset is `__len__` + `__getitem__`; an iterable dataset is `__iter__`.
#   Transforms run per item, at fetch time. `random_split` needs a seeded `generator` to
#   repeat; examples from one source (a writer, a patient) belong on one side of a split.
# - An epoch has ⌈N / B⌉ steps, the last one ragged; `drop_last=True` skips it (⌊N / B⌋).
#   `batch_size=None` turns batching off: items come as they are.
# - The sampler decides the order: shuffle, class-balancing weights (1 / class size, one
#   weight per example), or `DistributedSampler`'s strided, padded share per rank; a
#   `batch_sampler` decides whole batches (length buckets cut padding).
# - A `collate_fn` turns a list of examples into a batch: pad sequences and keep a mask; a
#   model uses the mask, and buckets shuffled within and between them cut the padding it
#   computes.
# - Workers are separate processes: code they run must be importable under spawn; generators
#   a dataset owns must be reseeded per worker; streams must be sharded; each worker may
#   have `prefetch_factor` batches requested ahead; a forked worker copies the pages of the
#   Python objects it reads (keep arrays). A resumed epoch needs the order's seed and the
#   position the loop reached.
# - In a training loop, measure per step the time waiting for data against computing;
#   for in-memory tensors fetch whole batches. Workers that wait for their items need no
#   core, so more of them than cores can still help; started every epoch, they pay off above
#   a break-even amount of loading, which this page measured for its own machine;
#   `pin_memory` with `non_blocking=True` overlaps copies to a GPU.
#
# **Next**: notebook 06 looks at what happens after the batch arrives: define-by-run
# execution, `torch.compile` and measuring speed correctly.
#
# **Closing note.** Measured on the machine that ran this page:

# %%
import helpers.update_time

make_explorer = helpers.data.explore  # a fresh explorer, timed here and never displayed
print(f"DataLoader explorer: median update (model + draw) "
      f"{helpers.update_time.median_update_ms(make_explorer()):.0f} ms")
# the timeline measures a DataLoader run at every update: its first update, in section 7, is the one timed
print(f"timeline view: one update (a measured run, then the picture) "
      f"{(timeline_view.timings['model'] + timeline_view.timings['draw']) * 1000:.0f} ms")
print(helpers.loader_verdicts.machine_line())
print(f"this notebook ran top to bottom in {time.perf_counter() - notebook_start:.1f} s")
