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
# - write a `collate_fn` that pads variable-length sequences and keeps their lengths;
# - use worker processes correctly: what they receive, how to seed them, how to shard a stream;
# - train from a `DataLoader` and measure, per step, the time spent waiting for data against
#   the time spent computing; decide with a measurement when workers (and `pin_memory`) help.
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
import tempfile
import time
import warnings

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (BatchSampler, DataLoader, Dataset, DistributedSampler,
                              IterableDataset, RandomSampler, Subset, TensorDataset,
                              WeightedRandomSampler, get_worker_info, random_split)

import helpers.data
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
    _x, _y = _ds[4]
    _n = len(_ds)
checks.expect_true(_n != 10, "[mc:data.windows-count] len(ds) is 10, the number of readings: "
                             "len counts the examples, and a window near the end of the series "
                             "has no reading after it to predict.")
checks.expect_true(_n != 8, "[mc:data.windows-count] len(ds) is 8: the window that ends with the "
                            "last reading has no reading after it, so it is no example.")
checks.expect_true(_n == 7, f"[mc:data.windows-count] len(ds) is {_n}: count the windows that "
                            "have a reading after them.")
with checks.because("[mc:data.dataset-protocol] Item i is a pair: (a float32 tensor of width "
                    "readings, the reading after them)."):
    checks.expect_type(_x, torch.Tensor, "ds[4][0]")
checks.expect_true(_x.dtype != torch.float64,
                   "[mc:data.numpy-float64] ds[4][0] is float64, as NumPy arrays are (and "
                   "torch.from_numpy keeps that); a model's weights are float32.")
checks.expect_true(_x.dtype == torch.float32, f"[mc:data.numpy-float64] ds[4][0] has dtype "
                                              f"{_x.dtype}; the model expects float32 inputs.")
with checks.because("[mc:data.dataset-protocol] ds[4][0] should be 3 consecutive readings, "
                    "starting with reading 4."):
    checks.expect_close(_x, torch.tensor([6.0, 7.5, 9.0]), "ds[4][0]")
checks.expect_true(not isinstance(_y, (float, np.floating)),
                   "[mc:data.numpy-float64] The target is a Python or NumPy float: the loader "
                   "batches those as float64. Return a 0-d float32 tensor.")
with checks.because("[mc:data.dataset-protocol] The target is a 0-d float32 tensor."):
    checks.expect_type(_y, torch.Tensor, "ds[4][1]")
checks.expect_true(not (_y.numel() == 1 and float(_y) == 9.0),
                   "[mc:data.window-target] ds[4][1] is 9.0, the window's own last reading: the "
                   "model already sees it. The target is the reading that comes after the window.")
checks.expect_true(_y.dtype == torch.float32 and _y.ndim == 0 and float(_y) == 10.5,
                   f"[mc:data.window-target] ds[4][1] is {checks.show(_y)}: it should be the "
                   "reading right after the window, a 0-d float32 tensor.")
### BEGIN HIDDEN TESTS
_S2 = np.random.default_rng(5).normal(size=12)
_ds2 = Windows(_S2, 4)
checks.expect_true(len(_ds2) == 8, "[mc:data.windows-count] 12 readings, windows of 4: 8 windows "
                                   "have a reading after them.")
_batch_x, _batch_y = next(iter(DataLoader(_ds2, batch_size=len(_ds2))))
checks.expect_true(_batch_x.dtype == torch.float32 and tuple(_batch_x.shape) == (8, 4),
                   "[mc:data.numpy-float64] a batch of windows should be float32, (8, 4).")
checks.expect_true(_batch_y.dtype == torch.float32 and tuple(_batch_y.shape) == (8,),
                   "[mc:data.numpy-float64] a batch of targets should be float32 of shape (8,).")
checks.expect_true(torch.allclose(_batch_x.double(), torch.from_numpy(np.stack([_S2[i:i + 4] for i in range(8)])),
                                  atol=1e-6),
                   "[mc:data.dataset-protocol] window i should be readings i, ..., i + width - 1, for every i.")
checks.expect_true(torch.allclose(_batch_y.double(), torch.from_numpy(_S2[4:]), atol=1e-6),
                   "[mc:data.window-target] target i should be reading i + width, for every i.")
for _T, _w in [(5, 5), (5, 4), (1, 1), (6, 1)]:
    _edge = Windows(np.arange(float(_T)), _w)
    checks.expect_true(len(_edge) == _T - _w, f"[mc:data.windows-count] {_T} readings, windows of "
                                              f"{_w}: {_T - _w} examples.")
    checks.expect_true(len(_edge) == 0 or float(_edge[len(_edge) - 1][1]) == _T - 1,
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
# Section 7 shows why that matters once items are loaded by worker processes.
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
def _items(subset):
    return [int(subset[i][0]) for i in range(len(subset))]


_writers = [5, 5, 5, 2, 2, 9, 9, 9, 9, 4, 4, 4]
_data = TensorDataset(torch.arange(12))
with checks.explain_errors({"": "[mc:data.split-protocol] group_split should return two Subsets, "
                                "(train, val)."}, "group_split(dataset, groups, 1, 0)"):
    _splits = [group_split(_data, _writers, 1, 0) for _ in range(5)]
    _tr, _va = (_items(s) for s in _splits[0])
checks.expect_true(sorted(_tr + _va) == list(range(12)),
                   "[mc:data.split-protocol] train and val together should hold every example "
                   "exactly once.")
_shared = sorted({_writers[i] for i in _tr} & {_writers[i] for i in _va})
checks.expect_true(not _shared, f"[mc:data.split-leaks-groups] Group(s) {_shared} have examples in "
                                "train and in val: the model would be validated on near-copies of "
                                "what it trained on. Choose whole groups for val.")
_n_groups = len({_writers[i] for i in _va})
checks.expect_true(not (len({_writers[i] for i in _tr}) == 1 and _n_groups == 3),
                   "[mc:data.split-protocol] train holds one whole group and val the other three: "
                   "return (train, val), in that order.")
checks.expect_true(_n_groups == 1, f"[mc:data.split-groups-vs-examples] val holds {len(_va)} "
                                   f"examples from {_n_groups} groups; n_val_groups=1 asks for "
                                   "every example of one group.")
checks.expect_true(all(sorted(_items(s[1])) == sorted(_va) for s in _splits),
                   "[mc:data.split-unseeded] Five calls with the same seed chose different groups: "
                   "draw from a generator seeded with seed (torch.Generator().manual_seed(seed)), "
                   "not from the global random state.")
### BEGIN HIDDEN TESTS
_g40 = torch.tensor([7, 3, 11, 3, 8, 20, 7, 1, 11, 8] * 4)
_data40 = TensorDataset(torch.arange(40))
_as_list = sorted(_items(group_split(_data40, _g40.tolist(), 2, 0)[1]))
checks.expect_true(sorted(_items(group_split(_data40, _g40, 2, 0)[1])) == _as_list,
                   "[mc:data.split-tensor-groups] groups given as a tensor split differently from "
                   "the same groups as a list: a tensor's items are 0-d tensors, and a set or dict "
                   "tells them apart by identity, not value. Compare int(g).")
_chosen = []
for _seed in range(12):
    _t, _v = (_items(s) for s in group_split(_data40, _g40, 2, _seed))
    checks.expect_true(sorted(_t + _v) == list(range(40)),
                       "[mc:data.split-protocol] every example once, in train or val.")
    checks.expect_true(not ({int(_g40[i]) for i in _t} & {int(_g40[i]) for i in _v}),
                       "[mc:data.split-leaks-groups] a group on both sides (groups given as a tensor).")
    checks.expect_true(len({int(_g40[i]) for i in _v}) == 2,
                       "[mc:data.split-groups-vs-examples] n_val_groups=2 means two whole groups in val.")
    checks.expect_true(sorted(_items(group_split(_data40, _g40, 2, _seed)[1])) == sorted(_v),
                       "[mc:data.split-unseeded] the same seed must give the same split.")
    _chosen.append(frozenset(int(_g40[i]) for i in _v))
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
_kept = len(DataLoader(range(1000), batch_size=96, drop_last=True)) * 96
checks.expect_true(quiz_dropped == 1000 - _kept,
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
_first = next(iter(DataLoader(torch.zeros(6, 3), batch_size=None)))
checks.expect_true(tuple(quiz_unbatched_shape) == tuple(_first.shape),
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
def _class_totals(labels, alpha, classes):
    """Each class's total weight under tempered_weights(labels, alpha), or None with a failed check."""
    with checks.explain_errors({"negative integer powers": "[mc:data.weights-integer-power] The class "
                                                           "sizes are int64, and torch refuses an "
                                                           f"integer to a negative power (alpha = {alpha} "
                                                           "here): make the sizes floats first.",
                                "": "[mc:data.weights-class-ids] Look up each example's class size by "
                                    "its label's value (the labels here are "
                                    f"{sorted(set(labels.tolist()))})."},
                               f"tempered_weights(labels, {alpha})"):
        weights = torch.as_tensor(tempered_weights(labels, alpha), dtype=torch.float64)
    checks.expect_true(weights.ndim == 1 and len(weights) != len(classes),
                       f"[mc:data.weights-per-class] You returned {len(weights.view(-1))} weights, one "
                       f"per class; WeightedRandomSampler wants one weight per example "
                       f"({len(labels)} here).")
    checks.expect_true(weights.shape == labels.shape,
                       f"[mc:data.weights-per-class] {tuple(weights.shape)}: give one weight per "
                       f"example, a 1-d tensor of {len(labels)}.")
    checks.expect_true(bool((weights >= 0).all()), "[mc:data.weights-negative] Weights are "
                                                   "probabilities up to a scale: none can be negative.")
    return torch.stack([weights[labels == c].sum() for c in classes])


def _like(totals, target):
    return torch.allclose(totals / totals.sum(), target / target.sum(), rtol=1e-4, atol=1e-9)


def _check_tempered(labels, alpha):
    classes = sorted(set(labels.tolist()))
    sizes = torch.tensor([float((labels == c).sum()) for c in classes], dtype=torch.float64)
    totals = _class_totals(labels, alpha, classes)
    shares = [round(t, 3) for t in (totals / totals.sum()).tolist()]
    checks.expect_true(alpha == 0 or not _like(totals, torch.ones_like(sizes)),
                       f"[mc:data.weights-alpha-ignored] alpha = {alpha}, but these weights balance "
                       "the classes exactly (each class's weights add up to the same total), as "
                       "alpha = 0 would: the classes should be drawn in proportion to "
                       "n_c ** alpha.")
    checks.expect_true(alpha == 1 or not _like(totals, sizes),
                       f"[mc:data.weights-uniform] alpha = {alpha}, but these weights draw the classes "
                       "as often as they occur, as alpha = 1 would: rare classes need larger "
                       "weights per example.")
    checks.expect_true(not _like(totals, sizes ** (alpha + 1)),
                       f"[mc:data.weights-class-total] These weights draw the classes in the shares "
                       f"{shares}, in proportion to n_c ** (alpha + 1), not n_c ** alpha: a class is "
                       "drawn as often as the total of its examples' weights says.")
    checks.expect_true(alpha == 0.5 or not _like(totals, sizes ** (1 - alpha)),
                       f"[mc:data.weights-inverted] With alpha = {alpha} these weights draw the "
                       "classes in proportion to n_c ** (1 - alpha): the power goes the wrong way.")
    checks.expect_true(_like(totals, sizes ** alpha),
                       f"[mc:data.weights-not-proportional] With alpha = {alpha} the classes (sizes "
                       f"{sizes.int().tolist()}) would be drawn in the shares {shares}; they should "
                       "be drawn in proportion to n_c ** alpha.")


_check_tempered(torch.tensor([2, 0, 0, 1, 0, 0, 1, 0, 0, 0]), 0.5)
### BEGIN HIDDEN TESTS
_big = torch.tensor(helpers.data.toy_labels(200))[torch.randperm(200, generator=torch.Generator().manual_seed(3))]
for _alpha in (0.25, 0.8, 0, 1, 0.0, 1.0):
    _check_tempered(_big, _alpha)
_wb = torch.as_tensor(tempered_weights(_big, 0.5), dtype=torch.float64)
_drawn = _big[list(WeightedRandomSampler(_wb, 6000, generator=torch.Generator().manual_seed(4)))]
_share = torch.bincount(_drawn, minlength=3).double() / 6000
_want = torch.bincount(_big).double() ** 0.5
checks.expect_true(bool(((_share - _want / _want.sum()).abs() < 0.04).all()),
                   f"[mc:data.weights-not-proportional] alpha = 0.5: class shares drawn "
                   f"{[round(s, 3) for s in _share.tolist()]}, expected near "
                   f"{[round(s, 3) for s in (_want / _want.sum()).tolist()]}.")
_gaps = torch.tensor([5, 0, 5, 2, 2, 5, 5, 0, 5, 5])      # classes 0, 2 and 5: no 1, 3 or 4
for _alpha in (0.25, 0):
    _check_tempered(_gaps, _alpha)
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
# ### Exercise 4: a padding collate_fn that returns lengths (2 points)
#
# Write `pad_collate(batch)` for examples `(sequence, label)` where `sequence` is a 1-d int64
# tensor of any length holding any token ids (0 included). Return `(padded, lengths,
# labels)`: `padded` of shape (batch, longest length) with zeros after each sequence,
# `lengths` an int64 tensor of the original lengths and `labels` an int64 tensor, each in the
# batch's order. *Misconceptions*: lengths measured after padding are all equal; a length
# cannot be read back from the padded tensor (a real token can be 0); `pad_sequence` puts
# time first unless told otherwise.

# %% solution 05_data-collate
def pad_collate(batch):
    ### BEGIN SOLUTION
    sequences = [s for s, _ in batch]
    padded = pad_sequence(sequences, batch_first=True, padding_value=0)
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int64)
    labels = torch.tensor([label for _, label in batch], dtype=torch.int64)
    return padded, lengths, labels
    ### END SOLUTION

# %% test 05_data-collate-test points=2
_batch = [(torch.tensor([7]), 0), (torch.tensor([4, 0, 6]), 2)]
with checks.explain_errors({"": "[mc:data.collate-protocol] pad_collate gets a list of "
                                "(sequence, label) pairs and returns (padded, lengths, labels)."},
                           "pad_collate(batch)"):
    _padded, _lengths, _labels = pad_collate(_batch)
with checks.because("[mc:data.collate-protocol] Each of the three results is a tensor."):
    for _name, _value in (("padded", _padded), ("lengths", _lengths), ("labels", _labels)):
        checks.expect_type(_value, torch.Tensor, _name)
checks.expect_true(tuple(_padded.shape) != (3, 2),
                   "[mc:data.pad-time-first] padded is (longest length, batch): pad_sequence puts "
                   "time first unless batch_first=True.")
checks.expect_shape(_padded, (2, 3), "padded")
_own = [len(s) for s, _ in _batch]
checks.expect_true(_lengths.tolist() != [3, 3], "[mc:data.lengths-after-padding] These are the "
                                                "lengths after padding, all equal: measure each "
                                                "sequence before padding it.")
checks.expect_true(_lengths.tolist() != [int((s != 0).sum()) for s, _ in _batch],
                   "[mc:data.lengths-count-nonzero] These lengths count the non-zero tokens, "
                   "but a real token can be 0 (the second sequence holds one): measure each "
                   "sequence before padding.")
checks.expect_true(not (_labels.tolist() == _own and _lengths.tolist() == [0, 2]),
                   "[mc:data.collate-protocol] lengths and labels are swapped: return "
                   "(padded, lengths, labels), in that order.")
checks.expect_true(_lengths.tolist() != sorted(_own, reverse=True),
                   "[mc:data.collate-reorders] The batch came with its short sequence first, and "
                   "your lengths are [3, 1]: keep the examples in the order the batch gives them, so "
                   "that row i of padded, lengths[i] and labels[i] belong to example i.")
checks.expect_true(_lengths.tolist() == _own,
                   f"[mc:data.lengths-after-padding] lengths is {_lengths.tolist()}: it should hold "
                   "each sequence's own length, in batch order.")
checks.expect_true(_lengths.dtype == torch.int64,
                   f"[mc:data.collate-protocol] lengths has dtype {_lengths.dtype}: the task asks for "
                   "int64, torch's dtype for counts and indices.")
checks.expect_true(_padded.tolist() == [[7, 0, 0], [4, 0, 6]],
                   f"[mc:data.pad-value] padded is {_padded.tolist()}: each sequence stays at the "
                   "start of its row, followed by zeros.")
checks.expect_true(_labels.tolist() == [0, 2] and _labels.dtype == torch.int64,
                   "[mc:data.collate-protocol] labels should be an int64 tensor of the labels in "
                   "batch order.")
### BEGIN HIDDEN TESTS
_g = torch.Generator().manual_seed(9)
_examples = [(torch.randint(0, 4, (int(k),), generator=_g), int(k) % 3)
             for k in torch.randint(1, 12, (9,), generator=_g)]
_examples.append((torch.tensor([3, 0, 0]), 1))       # trailing zeros that are tokens
_examples.append((torch.tensor([0]), 2))
_p, _l, _y = next(iter(DataLoader(_examples, batch_size=len(_examples), collate_fn=pad_collate)))
checks.expect_true(sorted(_l.tolist()) != sorted(len(s) for s, _ in _examples)
                   or _l.tolist() == [len(s) for s, _ in _examples],
                   "[mc:data.collate-reorders] the lengths are right but in another order: keep "
                   "the batch's order.")
checks.expect_true(_l.dtype == torch.int64 and _l.tolist() == [len(s) for s, _ in _examples],
                   "[mc:data.lengths-count-nonzero] lengths should be the original lengths, "
                   "whatever the tokens (0 included).")
checks.expect_true(tuple(_p.shape) == (len(_examples), max(_l.tolist())),
                   "[mc:data.pad-time-first] padded should be (batch, longest length).")
checks.expect_true(all(_p[i, :len(s)].tolist() == s.tolist() and not _p[i, len(s):].any()
                       for i, (s, _) in enumerate(_examples)),
                   "[mc:data.pad-value] each row should be its sequence followed by zeros.")
checks.expect_true(_y.tolist() == [c for _, c in _examples],
                   "[mc:data.collate-protocol] labels should come in batch order.")
### END HIDDEN TESTS

# %% [markdown]
# **Padding costs compute.** Every padded position still goes through the model. How much
# of a padded batch is padding depends on which sequences share it. A `batch_sampler`
# decides that: it is any iterable of index lists, one list per batch, and it replaces
# `batch_size`, `shuffle`, `sampler` and `drop_last`:

# %%
by_hand = DataLoader(range(100, 110), batch_sampler=[[0, 1, 2], [3, 4], [5, 6, 7, 8, 9]])
print([batch.tolist() for batch in by_hand])
lengths = torch.randint(1, 40, (64,), generator=torch.Generator().manual_seed(0))
shuffled = DataLoader(range(64), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(0))
cells = sum(len(b) * int(lengths[b].max()) for b in shuffled)
print(f"64 sequences of 1 to 39 tokens in shuffled batches of 8: {cells} padded positions, "
      f"{cells - int(lengths.sum())} of them padding ({1 - int(lengths.sum()) / cells:.0%})")

# %% [markdown]
# ### Exercise 5: length buckets (2 points)
#
# Write `bucket_batches(lengths, batch_size)` returning a list of batches (lists of int
# indices into `lengths`) for use as a `batch_sampler`: every index exactly once, every
# batch holding `batch_size` indices except at most one shorter batch, and little padding:
# the hidden tests draw random lengths and accept your batches when they pad no more
# positions than a well-chosen batching of the same sizes. *Misconceptions*: a batch sampler
# yields indices, not lengths; cutting ⌊N / B⌋ batches loses the rest; which sequences share
# a batch does not change the padding.

# %% solution 05_data-buckets
def bucket_batches(lengths, batch_size):
    ### BEGIN SOLUTION
    order = sorted(range(len(lengths)), key=lambda i: int(lengths[i]))
    return [order[k:k + batch_size] for k in range(0, len(order), batch_size)]
    ### END SOLUTION

# %% test 05_data-buckets-test points=2
def _padding(batches, lengths):
    return sum(len(b) * max(int(lengths[i]) for i in b) for b in batches) - sum(int(v) for v in lengths)


_lens = torch.tensor([5, 30, 6, 31, 7, 29, 8, 33, 4, 28])
with checks.explain_errors({"": "[mc:data.buckets-protocol] bucket_batches(lengths, batch_size) "
                                "returns a list of lists of indices."}, "bucket_batches(lengths, 4)"):
    _bb = [[int(i) for i in b] for b in bucket_batches(_lens, 4)]
_flat = sorted(i for b in _bb for i in b)
checks.expect_true(set(_flat) != {int(v) for v in _lens},
                   "[mc:data.buckets-lengths] The batches hold the lengths themselves: a "
                   "batch_sampler yields indices into the dataset.")
checks.expect_true(set(_flat) <= set(range(10)) and len(set(_flat)) == len(_flat),
                   "[mc:data.buckets-protocol] Every entry should be an index 0..9, each at most once.")
checks.expect_true(len(_flat) == 10, f"[mc:data.buckets-drops-rest] The batches hold {len(_flat)} of "
                                     "the 10 indices: 10 sequences in batches of 4 make 3 batches, "
                                     "the last one short.")
checks.expect_true(sorted(len(b) for b in _bb)[1:] == [4] * (len(_bb) - 1) and max(map(len, _bb)) <= 4,
                   f"[mc:data.buckets-protocol] Batch sizes {[len(b) for b in _bb]}: every batch "
                   "holds batch_size indices except one shorter batch.")
_in_order = [list(range(k, min(k + 4, 10))) for k in range(0, 10, 4)]
checks.expect_true(_padding(_bb, _lens) < _padding(_in_order, _lens),
                   f"[mc:data.buckets-mixed-lengths] These batches pad {_padding(_bb, _lens)} positions, "
                   "no fewer than batches of neighbouring indices: short and long sequences share "
                   "batches. Put sequences of similar length together.")
### BEGIN HIDDEN TESTS
def _sorted_cut(lengths, size, reverse):
    order = sorted(range(len(lengths)), key=lambda i: int(lengths[i]), reverse=reverse)
    return [order[k:k + size] for k in range(0, len(order), size)]


checks.expect_true(_padding(_bb, _lens) <= max(_padding(_sorted_cut(_lens, 4, r), _lens) for r in (False, True)),
                   f"[mc:data.buckets-mixed-lengths] These batches pad {_padding(_bb, _lens)} positions: "
                   "put sequences of similar length together.")
_gl = torch.Generator().manual_seed(2)
for _n, _b in [(64, 8), (37, 5), (3, 8), (1, 1), (50, 50)]:
    _lx = torch.randint(1, 60, (_n,), generator=_gl)
    _got = [[int(i) for i in b] for b in bucket_batches(_lx, _b)]
    checks.expect_true(sorted(i for b in _got for i in b) == list(range(_n)),
                       f"[mc:data.buckets-drops-rest] {_n} sequences: every index exactly once.")
    checks.expect_true(len(_got) == math.ceil(_n / _b) and max(map(len, _got)) <= _b,
                       f"[mc:data.buckets-protocol] {_n} sequences in batches of {_b}: ceil(N / B) "
                       "batches of at most B.")
    checks.expect_true(_padding(_got, _lx) <= max(_padding(_sorted_cut(_lx, _b, r), _lx)
                                                  for r in (False, True)),
                       "[mc:data.buckets-mixed-lengths] too much padding: group similar lengths.")
    _loaded = [b.tolist() for b in DataLoader(range(_n), batch_sampler=bucket_batches(_lx, _b))]
    checks.expect_true(_loaded == _got, "[mc:data.buckets-protocol] a DataLoader should accept the "
                                        "result as its batch_sampler.")
### END HIDDEN TESTS

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
_two = DataLoader(range(24), batch_size=4, num_workers=2)   # torch's default prefetch_factor
checks.expect_true(quiz_ready == _two.prefetch_factor * _two.num_workers,
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
# - Predict whether a batch's loading bar gets longer when its items compute instead of
#   sleeping for the same `item ms`, then choose items that compute, and explain what you
#   see (section 12 prints how many cores this machine has).
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
with helpers.datasets.workers_explained() as _run:
    _noise = [b[:, 1].tolist() for b in DataLoader(helpers.datasets.NoisyItems(8), batch_size=2,
                                                      num_workers=2, timeout=60)]
if not _run.ok:   # no worker processes here: each worker would get a copy, as a deep copy makes
    import copy as _copy
    _copies = [_copy.deepcopy(helpers.datasets.NoisyItems(8)) for _ in range(2)]
    _noise = [[float(c[i][1]) for i in (2 * k, 2 * k + 1)] for k, c in enumerate(_copies)]
checks.expect_true(quiz_same_noise == (_noise[0] == _noise[1]),
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
# called inside a worker, tells that worker who it is; `dataset` is that worker's own copy.
# What each worker knows, live:

# %%
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
def _worker_noise(seed, worker_id, workers=2):
    """The noise a NoisyItems copy draws after seed_worker ran in that worker."""
    copy_ = helpers.datasets.NoisyItems(4)
    with helpers.datasets.as_worker(worker_id, workers, seed=seed, dataset=copy_):
        with checks.explain_errors({"": "[mc:data.seed-worker-protocol] seed_worker(worker_id) runs "
                                        "inside a worker: get_worker_info() says which, and its "
                                        "dataset is that worker's copy."}, f"seed_worker({worker_id})"):
            seed_worker(worker_id)
    return [float(copy_[i][1]) for i in range(3)]


_base, _next_epoch = 900450186894289455, 4137012447093562021    # base seeds as a loader draws them
_w0, _w1 = _worker_noise(_base, 0), _worker_noise(_base + 1, 1)
checks.expect_true(_w0 != _w1, "[mc:data.workers-own-rng] Two workers' copies still draw the same "
                               "noise: the generator NoisyItems draws from is the rng of the "
                               "dataset copy in this worker, and that is the one to replace.")
checks.expect_true(_worker_noise(_next_epoch, 0) != _w0,
                   "[mc:data.seed-from-worker-id] Worker 0 drew the same noise with another worker "
                   "seed, as it would in the next epoch: the worker id is the same every epoch, "
                   "the worker's seed is not.")
checks.expect_true(_worker_noise(_base, 0) == _w0,
                   "[mc:data.seed-not-reproducible] The same worker seed gave different noise: "
                   "seed the new generator from the worker's seed, so that a loader with a seeded "
                   "generator repeats its noise.")
### BEGIN HIDDEN TESTS
def _epochs(seed):
    loader = DataLoader(helpers.datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=60,
                        worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(seed))
    return [[b[:, 1].tolist() for b in loader] for _ in range(2)]


with helpers.datasets.workers_explained() as _run:
    _first, _again = _epochs(3), _epochs(3)
if _run.ok:
    checks.expect_true(_first[0][0] != _first[0][1],
                       "[mc:data.workers-own-rng] with real workers, batches 0 and 1 still share noise.")
    checks.expect_true(_first[0] != _first[1],
                       "[mc:data.seed-from-worker-id] with real workers, epoch 2 repeats epoch 1's noise.")
    checks.expect_true(_first == _again,
                       "[mc:data.seed-not-reproducible] a loader with the same seeded generator should "
                       "repeat its noise.")
checks.expect_true(len({tuple(_worker_noise(5 + w, w, 4)) for w in range(4)}) == 4,
                   "[mc:data.workers-own-rng] four workers should draw four different noises.")
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
def _blocks(stream, workers):
    out = []
    for w in range(workers):
        with helpers.datasets.as_worker(w, workers, dataset=stream):
            with checks.explain_errors({"nonetype": "[mc:data.stream-main-process] get_worker_info() "
                                                    "is None in the main process (num_workers=0): "
                                                    "then yield every record."},
                                       f"iterating ChunkedStream in worker {w} of {workers}"):
                out.append(list(stream))
    return out


_recs = [f"r{i}" for i in range(10)]
with checks.explain_errors({"nonetype": "[mc:data.stream-main-process] get_worker_info() is None "
                                        "in the main process (num_workers=0): then yield every "
                                        "record."}, "list(ChunkedStream(records))"):
    _alone = list(ChunkedStream(_recs))
checks.expect_true(_alone == _recs or _alone,
                   "[mc:data.stream-main-process] With no workers the stream yielded nothing; it "
                   "should yield every record, in order. (A function that contains yield is a "
                   "generator: a return in it ends the iteration instead of handing over an "
                   "iterator, so use yield from in every branch, or return in every branch.)")
checks.expect_true(_alone == _recs, f"[mc:data.stream-main-process] With no workers the stream "
                                    f"yielded {len(_alone)} records; it should yield every record, "
                                    "in order.")
_three = _blocks(ChunkedStream(_recs), 3)
checks.expect_true(sum(map(len, _three)) != 3 * len(_recs),
                   "[mc:data.stream-not-sharded] Every worker yields every record: with 3 workers "
                   "each record would arrive three times. Yield only this worker's block.")
checks.expect_true(_three != [_recs[w::3] for w in range(3)],
                   "[mc:data.shard-strided] These shards are strided (every third record); "
                   "each worker should read one contiguous block.")
checks.expect_true(sum(map(len, _three)) >= len(_recs),
                   f"[mc:data.shard-drops-remainder] The blocks hold {sum(map(len, _three))} of "
                   "10 records: blocks of 10 // 3 lose the rest. Spread the remainder.")
checks.expect_true(sum(_three, []) == _recs,
                   "[mc:data.shard-not-partition] Worker 0's block, then worker 1's, then worker "
                   "2's should be exactly the records, in order: no record twice, none skipped.")
checks.expect_true(max(map(len, _three)) - min(map(len, _three)) <= 1,
                   f"[mc:data.shard-unbalanced] Block sizes {[len(b) for b in _three]} differ by "
                   "more than one: spread the records evenly over the workers.")
### BEGIN HIDDEN TESTS
for _n, _k in [(7, 2), (4, 4), (3, 5), (100, 7), (1, 3), (0, 2), (12, 3)]:
    _r = list(range(_n))
    _b = _blocks(ChunkedStream(_r), _k)
    checks.expect_true(sum(_b, []) == _r, f"[mc:data.shard-drops-remainder] {_n} records, {_k} "
                                          "workers: the blocks in worker order should be the records.")
    checks.expect_true(max(map(len, _b)) - min(map(len, _b)) <= 1,
                       f"[mc:data.shard-unbalanced] {_n} records, {_k} workers: sizes "
                       f"{[len(b) for b in _b]}.")
with helpers.datasets.workers_explained() as _run:
    _real = [int(x) for x in DataLoader(ChunkedStream(list(range(11))), batch_size=None,
                                        num_workers=2, timeout=60)]
if _run.ok:
    checks.expect_true(sorted(_real) == list(range(11)),
                       "[mc:data.stream-not-sharded] with 2 real workers, every record exactly once.")
### END HIDDEN TESTS

# %% [markdown]
# Your stream, live, with 3 workers over 10 records (the loader interleaves the workers'
# blocks, so the order below mixes them):

# %%
def chunked_live():
    got = [int(x) for x in DataLoader(ChunkedStream(list(range(10))), batch_size=None,
                                      num_workers=3, timeout=60)]
    print("yielded:", got, "| each record once:", sorted(got) == list(range(10)))


helpers.datasets.live(chunked_live)

# %% [markdown]
# ## 8. DistributedSampler: one dataset, several processes
#
# In data-parallel training, each of `world_size` processes (ranks) trains on its own part
# of every epoch, and after every step the ranks average their gradients: each rank waits
# for all the others there. So every rank must take the same number of steps, or the ranks
# that run out of data first leave the others waiting forever at the next average.
# `DistributedSampler(dataset, num_replicas=world_size, rank=r)` gives rank r every
# `world_size`-th index, starting at r. Passing `num_replicas` and `rank` explicitly means
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
checks.expect_true(quiz_per_rank == len(DistributedSampler(range(50_000), num_replicas=3, rank=2)),
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
# index 0, which rank 0 also gets: 0 and 1 are read twice in this epoch. The sampler pads the index list with repeats of its first indices up to a multiple
# of `world_size`, so every rank gets ⌈N / world_size⌉ indices and some examples are seen
# twice per epoch (its `drop_last=True` drops the tail instead). In the explorer of section 4, choose the sampler "distributed",
# N = 10, world size 4, and step the rank from 0 to 3: notice the hatched padding in the top
# strip and which ranks receive it.
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
# ### Exercise 8: a rank's share (2 points)
#
# Write `rank_indices(n, world_size, rank)` returning, as a list of ints, the indices that
# `DistributedSampler(range(n), num_replicas=world_size, rank=rank, shuffle=False)` gives
# that rank, without using `DistributedSampler`. *Misconceptions*: ranks take strided
# indices, not contiguous chunks; the list is padded so that every rank takes the same
# number of steps, and the padding repeats from the start (more than once when world_size
# exceeds n).

# %% solution 05_data-shard
def rank_indices(n, world_size, rank):
    ### BEGIN SOLUTION
    per_rank = math.ceil(n / world_size)
    total = per_rank * world_size
    padded = list(range(n))
    while len(padded) < total:
        padded += list(range(n))[:total - len(padded)]
    return padded[rank:total:world_size]
    ### END SOLUTION

# %% test 05_data-shard-test points=2
_hint = ("[mc:data.dist-rule] Pad range(n) with its first indices up to a multiple of "
         "world_size, then take every world_size-th index starting at rank.")
for _n, _w, _r in [(10, 4, 3), (10, 4, 0), (12, 3, 1)]:
    with checks.explain_errors({"": _hint}, f"rank_indices({_n}, {_w}, {_r})"):
        _got = [int(i) for i in rank_indices(_n, _w, _r)]
    _want = list(DistributedSampler(range(_n), num_replicas=_w, rank=_r, shuffle=False))
    _per = math.ceil(_n / _w)
    checks.expect_true(_got == _want or _got != list(range(_r, _n, _w)),
                       f"[mc:data.dist-no-padding] rank_indices({_n}, {_w}, {_r}) has "
                       f"{len(_got)} indices: without padding, ranks get different numbers of "
                       "indices and would take different numbers of steps. DistributedSampler "
                       "repeats the first indices until every rank has ceil(n / world_size).")
    checks.expect_true(_got == _want or _got != list(range(_r * _per, min(_n, (_r + 1) * _per))),
                       "[mc:data.dist-contiguous] A rank does not get a contiguous chunk: index i "
                       "goes to rank i % world_size.")
    checks.expect_true(_got == _want, f"rank_indices({_n}, {_w}, {_r}) = {_got} is not right. {_hint}")
### BEGIN HIDDEN TESTS
_sampler_iter = DistributedSampler.__iter__


def _tripwire(self):
    raise RuntimeError("rank_indices iterated a DistributedSampler")


DistributedSampler.__iter__ = _tripwire
try:
    with checks.explain_errors({"distributedsampler": "[mc:data.dist-uses-sampler] rank_indices "
                                                      "should work the share out itself: the task "
                                                      "is to do what DistributedSampler does, "
                                                      "without it."}, "rank_indices(10, 4, 3)"):
        rank_indices(10, 4, 3)
finally:
    DistributedSampler.__iter__ = _sampler_iter
for _n, _w in [(1, 1), (3, 5), (7, 2), (100, 8), (13, 13), (5, 12)]:
    for _r in range(_w):
        checks.expect_true([int(i) for i in rank_indices(_n, _w, _r)]
                           == list(DistributedSampler(range(_n), num_replicas=_w, rank=_r, shuffle=False)),
                           f"rank_indices({_n}, {_w}, {_r}) disagrees with DistributedSampler. {_hint}")
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
def _watched_fit(make_loader, seed):
    """fit_epoch on a small net handed over in eval mode, every call watched: the mode each
    submodule ran in, the rows the first layer saw, each loss with its batch size, and the
    gradients at each optimizer step (after a step they are marked, so that a gradient that
    is not zeroed before the next backward shows)."""
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))
    net.eval()                                 # handed over in eval mode
    seen = {"modes": [], "rows": [], "losses": [], "steps": []}
    for module in net.modules():
        module.register_forward_pre_hook(lambda m, args: seen["modes"].append(m.training))
    net[0].register_forward_pre_hook(lambda m, args: seen["rows"].append(args[0].detach().clone()))

    def loss_fn(outputs, targets):
        loss = nn.functional.cross_entropy(outputs, targets)
        seen["losses"].append((loss.item(), len(targets)))
        return loss

    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    step = optimizer.step

    def watched_step(*args, **kwargs):
        grads = [p.grad for p in net.parameters()]
        seen["steps"].append("none" if all(g is None or not g.any() for g in grads) else
                             "stale" if any(g is not None and g.isnan().any() for g in grads) else "fresh")
        result = step(*args, **kwargs)
        for p in net.parameters():
            if p.grad is not None:
                p.grad.fill_(math.nan)
        return result

    optimizer.step = watched_step
    with checks.explain_errors({"inplace operation": "[mc:data.fit-steps] optimizer.step() changed "
                                                     "the weights in place before backward() used "
                                                     "them: on every batch, backward comes before step.",
                                "": "[mc:data.fit-protocol] fit_epoch(model, loader, optimizer, "
                                    "loss_fn) trains for one epoch and returns a float."},
                               "fit_epoch(model, loader, optimizer, loss_fn)"):
        got = fit_epoch(net, make_loader(), optimizer, loss_fn)
    return net, got, seen


_gx = torch.Generator().manual_seed(4)
_XS, _YS = torch.randn(10, 4, generator=_gx), torch.randint(0, 3, (10,), generator=_gx)
_net, _got, _seen = _watched_fit(lambda: DataLoader(TensorDataset(_XS, _YS), batch_size=4), seed=0)
checks.expect_true(not any(isinstance(_got, k) for k in (torch.Tensor, list, tuple)),
                   f"[mc:data.fit-returns-tensor] fit_epoch returned a {type(_got).__name__}: return "
                   "one Python float, built from loss.item() (a tensor would hold its graph).")
with checks.because("[mc:data.fit-protocol] fit_epoch returns the epoch's mean loss, a Python float."):
    checks.expect_type(_got, float, "fit_epoch(...)")
_rows = _seen["rows"]
checks.expect_true(len(_rows) == 3 and torch.equal(torch.cat(_rows), _XS),
                   f"[mc:data.iter-every-step] The model saw {sum(len(r) for r in _rows)} rows in "
                   f"{len(_rows)} batches, not the 10 rows once in the loader's 3 batches (4, 4, 2): "
                   "iterate over the loader (for inputs, targets in loader); next(iter(loader)) "
                   "starts it again and yields its first batch.")
checks.expect_true(all(_seen["modes"]), "[mc:data.fit-train-mode] A submodule ran in eval mode: the "
                                        "model arrived in eval mode, so put it in training mode "
                                        "(model.train()) before the steps.")
_steps = _seen["steps"]
checks.expect_true(len(_steps) == 3, f"[mc:data.fit-steps] optimizer.step() ran {len(_steps)} times "
                                     "for the loader's 3 batches: one step per batch.")
checks.expect_true("none" not in _steps,
                   f"[mc:data.fit-steps] At step {_steps.index('none') + 1 if 'none' in _steps else 0} "
                   "the optimizer found no gradient to use: on every batch, backward() comes before "
                   "step().")
checks.expect_true("stale" not in _steps,
                   f"[mc:data.fit-steps] At step {_steps.index('stale') + 1 if 'stale' in _steps else 0} "
                   "the gradients still held the previous batch's (backward adds to .grad): zero "
                   "them on every batch, before backward.")
_losses = _seen["losses"]
_plain = sum(v for v, _ in _losses) / max(len(_losses), 1)
_weighted = sum(v * n for v, n in _losses) / max(sum(n for _, n in _losses), 1)
checks.expect_true(not math.isclose(_got, _plain, rel_tol=1e-6) or math.isclose(_plain, _weighted, rel_tol=1e-6),
                   "[mc:data.mean-of-batch-means] This is the mean of the three batch losses: the "
                   "last batch holds 2 examples, not 4, so weight each batch's loss by its size.")
checks.expect_close(_got, _weighted, "fit_epoch(...)", rtol=1e-5,
                    hint="[mc:data.mean-of-batch-means] Weight each batch's loss by its number of "
                         "examples, and divide by the number of examples.")
### BEGIN HIDDEN TESTS
def _reference(make_loader, seed):
    torch.manual_seed(seed)
    twin = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))
    optimizer = torch.optim.SGD(twin.parameters(), lr=0.1)
    twin.train()
    sizes, losses = [], []
    for inputs, targets in make_loader():
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(twin(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        sizes.append(len(targets))
    return twin, sum(v * n for v, n in zip(losses, sizes)) / sum(sizes)


def _same_weights(net, twin):
    return torch.allclose(torch.cat([p.detach().flatten() for p in net.parameters()]),
                          torch.cat([p.detach().flatten() for p in twin.parameters()]), atol=1e-6)


checks.expect_true(_same_weights(_net, _reference(lambda: DataLoader(TensorDataset(_XS, _YS), batch_size=4),
                                                   seed=0)[0]),
                   "[mc:data.fit-steps] the weights after one epoch differ from zero_grad, forward, "
                   "loss, backward, step on every batch, in the loader's order.")
_XH, _YH = torch.randn(23, 4, generator=_gx), torch.randint(0, 3, (23,), generator=_gx)


def _dropping():
    return DataLoader(TensorDataset(_XH, _YH), batch_size=5, shuffle=True, drop_last=True,
                      generator=torch.Generator().manual_seed(8))


_net, _got, _seen = _watched_fit(_dropping, seed=1)
_twin, _want = _reference(_dropping, seed=1)
checks.expect_true(len(_seen["rows"]) == 4 and len(torch.cat(_seen["rows"]).unique(dim=0)) == 20,
                   "[mc:data.iter-every-step] a shuffled loader with drop_last: 4 batches of 5 "
                   "different rows.")
checks.expect_true(all(_seen["modes"]), "[mc:data.fit-train-mode] every submodule should train in "
                                        "training mode.")
checks.expect_true(_same_weights(_net, _twin), "[mc:data.fit-steps] a shuffled epoch: zero_grad, "
                                               "forward, loss, backward, step on every batch, in the "
                                               "loader's order.")
checks.expect_true(not math.isclose(_got, _want * 20 / 23, rel_tol=1e-6),
                   "[mc:data.mean-over-dataset] You divided by len(loader.dataset) (23), but with "
                   "drop_last=True the epoch trained on 20 examples: divide by the examples the "
                   "epoch used.")
checks.expect_close(_got, _want, "fit_epoch(...)", rtol=1e-5,
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
#
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
_sleeping, _wall, _cpu = helpers.datasets.WaitingItems(4, 0.01), time.perf_counter(), time.process_time()
for _i in range(4):
    _sleeping[_i]
_wall, _cpu = time.perf_counter() - _wall, time.process_time() - _cpu
# a waiting item leaves its core free (CPU time far below wall time), so waiting workers overlap
checks.expect_true(quiz_four_faster == (_cpu < _wall / 2),
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
# Each one reproduced live, then fixed.
#
# **1. A split that changes on every run.** `random_split` without a `generator` draws from
# the global random state (section 3):

# %%
print("unseeded:", [random_split(numbers, [8, 2])[1].indices for _ in range(2)])
print("fix:     ", [random_split(numbers, [8, 2], generator=torch.Generator().manual_seed(0))[1].indices
                    for _ in range(2)])

# %% [markdown]
# **2. `shuffle=True` together with a sampler** raises (section 5): let the sampler decide.

# %%
with checks.expect_error(ValueError):
    DataLoader(range(10), sampler=RandomSampler(range(10)), shuffle=True)
print("fix:", [b.tolist() for b in DataLoader(range(6), batch_size=3, sampler=RandomSampler(
    range(6), generator=torch.Generator().manual_seed(0)))])

# %% [markdown]
# **3. Dividing by the nominal batch size.** A per-batch statistic that divides by
# `batch_size` is wrong for the ragged last batch:

# %%
values = torch.arange(10.0)
wrong_means = [batch.sum().item() / 4 for batch in DataLoader(values, batch_size=4)]
right_means = [batch.mean().item() for batch in DataLoader(values, batch_size=4)]
print("divided by batch_size:", wrong_means, "| by the batch's length:", right_means)

# %% [markdown]
# **4. `next(iter(loader))` inside the loop.** Each call builds a new iterator (and, with
# workers, starts them again), so without shuffling every step gets the first batch:

# %%
stuck = DataLoader(range(8), batch_size=2)
print("next(iter(loader)) three times:", [next(iter(stuck)).tolist() for _ in range(3)])
batches_iter = iter(stuck)
print("fix, one iterator:             ", [next(batches_iter).tolist() for _ in range(3)])

# %% [markdown]
# **5. The same "random" augmentation in every worker** (section 7): a generator made in
# `__init__` is copied into every worker and never reseeded; reseed it in a
# `worker_init_fn` from `get_worker_info().seed` (exercise 6), or draw from torch's global
# generator, which the loader seeds per worker. **6. Every worker replays a stream**
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
# - A `collate_fn` turns a list of examples into a batch: pad sequences and keep lengths.
# - Workers are separate processes: code they run must be importable under spawn; generators
#   a dataset owns must be reseeded per worker; streams must be sharded; each worker may
#   have `prefetch_factor` batches requested ahead.
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
