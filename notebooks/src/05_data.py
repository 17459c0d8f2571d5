# %% [markdown]
# # 05 · Data: Dataset, DataLoader, samplers and workers
#
# A training loop sees its data one batch at a time, and which rows end up in which batch
# is decided by a small machine: a `Dataset` that turns an index into an example, a
# `Sampler` that orders the indices, and a `DataLoader` that groups them into batches,
# collates them into tensors and may fetch them in other processes. Most data bugs are
# silent: a last batch smaller than you assumed, a split that changes on every run, an
# augmentation that repeats in every worker, ranks that see some examples twice. This
# notebook takes the machine apart so that you can predict each of them.
#
# **You will be able to**
# - write map-style and iterable datasets, and use `TensorDataset` and `random_split`;
# - predict the batches of a `DataLoader`: steps per epoch, the ragged last batch, `drop_last`;
# - choose a sampler: shuffle, class-balancing weights, `DistributedSampler`'s split;
# - write a `collate_fn` that pads variable-length sequences and keeps their lengths;
# - seed workers correctly, read data larger than memory, and measure when workers help.
#
# **Prerequisites**: notebooks 01 (tensors) and 04 (the training loop). No GPU needed.

# %%
import math
import os
import pickle
import tempfile
import time

import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (DataLoader, Dataset, DistributedSampler, IterableDataset,
                              Subset, TensorDataset, WeightedRandomSampler, random_split)

import helpers.data
import helpers.datasets
from helpers import checks

torch.manual_seed(0)
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
# ### Exercise 1: a Dataset over arrays (2 points)
#
# Write a class `ArrayPairs(Dataset)` built as `ArrayPairs(features, labels)` from a NumPy
# float64 array of shape (N, D) and a NumPy integer array of shape (N,). `len` is N, and
# item `i` is a pair: row `i` as a **float32** tensor of shape (D,), and label `i` as a
# Python int or a 0-d int64 tensor. *Misconceptions it targets*: `__len__` counts
# examples, not features; NumPy's float64 is not the float32 a model expects.

# %% solution 05_data-dataset
class ArrayPairs(Dataset):
    def __init__(self, features, labels):
        ### BEGIN SOLUTION
        self.features, self.labels = features, labels
        ### END SOLUTION

    def __len__(self):
        ### BEGIN SOLUTION
        return len(self.features)
        ### END SOLUTION

    def __getitem__(self, i):
        ### BEGIN SOLUTION
        return torch.as_tensor(self.features[i], dtype=torch.float32), int(self.labels[i])
        ### END SOLUTION

# %% test 05_data-dataset-test points=2
_rng = np.random.default_rng(5)
_F, _L = _rng.normal(size=(7, 3)), np.array([0, 1, 2, 0, 1, 2, 0])
with checks.explain_errors({"": "[mc:data.dataset-protocol] ArrayPairs(features, labels) should "
                                "store the arrays, and ds[i] should return (row i, label i)."},
                           "ArrayPairs(features, labels)[4]"):
    _ds = ArrayPairs(_F, _L)
    _x, _y = _ds[4]
    _n = len(_ds)
checks.reject(_n, {3: "[mc:data.len-is-features] len(dataset) is the number of examples "
                      "(rows, 7 here), not the number of features per example (3)."}, "len(ds)")
checks.expect_equal(_n, 7, "len(ds)", wrong={
    6: "[mc:data.len-is-features] len(dataset) counts every example: rows 0 to 6 are 7."})
if not isinstance(_x, torch.Tensor):
    raise checks.CheckFailed(f"ds[4][0] is a {type(_x).__name__}. [mc:data.dataset-protocol] Item i "
                             "is a pair: (row i as a float32 tensor, label i).")
checks.reject(_x.dtype, {torch.float64: "[mc:data.numpy-float64] NumPy arrays are float64 and "
                         "torch.from_numpy keeps that; a model's weights are float32, so convert "
                         "with torch.as_tensor(row, dtype=torch.float32)."}, "ds[4][0].dtype")
if not (_x.dtype == torch.float32):
    raise checks.CheckFailed(f"[mc:data.numpy-float64] ds[4][0] has dtype "
                             f"{_x.dtype}; the model expects float32 features.")
checks.expect_shape(_x, (3,), "ds[4][0]")
if not (torch.allclose(_x.double(), torch.from_numpy(_F[4]), atol=1e-6)):
    raise checks.CheckFailed("[mc:data.dataset-protocol] ds[4][0] should be row 4 of features.")
if not (int(_y) == 1):
    raise checks.CheckFailed(f"[mc:data.dataset-protocol] ds[4][1] is {_y!r}: it should be "
                             "label 4, labels[4].")
### BEGIN HIDDEN TESTS
_F2, _L2 = _rng.normal(size=(11, 5)), _rng.integers(0, 4, size=11)
_ds2 = ArrayPairs(_F2, _L2)
_batch_x, _batch_y = next(iter(DataLoader(_ds2, batch_size=11)))
if not (len(_ds2) == 11):
    raise checks.CheckFailed("[mc:data.len-is-features] len(dataset) is the number of rows.")
if not (_batch_x.dtype == torch.float32 and tuple(_batch_x.shape) == (11, 5)):
    raise checks.CheckFailed("[mc:data.numpy-float64] a batch of features should be float32, (11, 5).")
if not (torch.allclose(_batch_x.double(), torch.from_numpy(_F2), atol=1e-6)
        and _batch_y.tolist() == _L2.tolist()):
    raise checks.CheckFailed("[mc:data.dataset-protocol] item i should be (row i, label i) for every i.")
if not (_batch_y.dtype == torch.int64):
    raise checks.CheckFailed("[mc:data.dataset-protocol] labels should batch to int64 class indices.")
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Splitting: `random_split`
#
# `random_split(dataset, lengths, generator=...)` returns `Subset`s: views that hold the
# dataset and a list of its indices, not copies of the data. Without a `generator`, the
# split comes from the global random state, so it changes whenever anything before it used
# random numbers; with a seeded generator it is the same split on every run.

# %%
numbers = TensorDataset(torch.arange(10))
train, val = random_split(numbers, [8, 2], generator=torch.Generator().manual_seed(0))
print(type(train).__name__, len(train), len(val), "val indices", val.indices)
again = random_split(numbers, [8, 2], generator=torch.Generator().manual_seed(0))[1].indices
unseeded = [random_split(numbers, [8, 2])[1].indices for _ in range(3)]
print("same seed, same split:", again == val.indices)
print("no generator, three calls:", unseeded)

# %% [markdown]
# ### Exercise 2: a reproducible split (2 points)
#
# Write `split_80_20(dataset, seed)` returning `(train, val)`: disjoint subsets covering the
# whole dataset, `train` holding `int(0.8 * len(dataset))` items and `val` the rest, chosen
# at random, and the same for the same `seed` on every call. *Misconception*: a split
# without its own generator is not reproducible.

# %% solution 05_data-split
def split_80_20(dataset, seed):
    ### BEGIN SOLUTION
    n_train = int(0.8 * len(dataset))
    return random_split(dataset, [n_train, len(dataset) - n_train],
                        generator=torch.Generator().manual_seed(seed))
    ### END SOLUTION

# %% test 05_data-split-test points=2
def _items(subset):
    return [int(subset[i][0]) for i in range(len(subset))]


_data = TensorDataset(torch.arange(53))
with checks.explain_errors({"": "[mc:data.split-protocol] split_80_20 should return two subsets "
                                "(random_split does)."}, "split_80_20(dataset, 0)"):
    _tr, _va = split_80_20(_data, 0)
    _tr2, _va2 = split_80_20(_data, 0)
checks.reject((len(_tr), len(_va)), {(11, 42): "[mc:data.split-sizes] The sizes are swapped: "
                                     "train should hold 80 % of the items."}, "(len(train), len(val))")
checks.expect_equal((len(_tr), len(_va)), (42, 11), "(len(train), len(val))", wrong={
    (43, 10): "[mc:data.split-sizes] train holds int(0.8 * 53) = 42 items (rounded down); val the rest."})
if not (sorted(_items(_tr) + _items(_va)) == list(range(53))):
    raise checks.CheckFailed("[mc:data.split-protocol] train and val together should hold every item once.")
if not (_items(_tr) == _items(_tr2) and _items(_va) == _items(_va2)):
    raise checks.CheckFailed("[mc:data.split-unseeded] Two calls with the same seed gave different splits: "
                             "without its own generator, random_split draws from the global random state. "
                             "Pass generator=torch.Generator().manual_seed(seed).")
### BEGIN HIDDEN TESTS
if not (_items(_va) != list(range(42, 53))):
    raise checks.CheckFailed("[mc:data.split-protocol] the split should be random, not the last 20 %.")
_va_other = _items(split_80_20(_data, 1)[1])
if not (_va_other != _items(_va)):
    raise checks.CheckFailed("[mc:data.split-unseeded] a different seed should give a different split.")
_tr10, _va10 = split_80_20(TensorDataset(torch.arange(10)), 7)
if not ((len(_tr10), len(_va10)) == (8, 2)):
    raise checks.CheckFailed("[mc:data.split-sizes] 10 items split into 8 and 2.")
### END HIDDEN TESTS

# %% [markdown]
# ## 3. The DataLoader: batches and steps per epoch
#
# `DataLoader(dataset, batch_size=B, shuffle=..., drop_last=...)` asks a sampler for
# indices, groups them B at a time, fetches each example with `dataset[i]` and **collates**
# the examples into batch tensors (the default stacks them along a new first dimension).
# `len(loader)` is the number of batches, the steps of one epoch.

# %%
loader = DataLoader(pairs, batch_size=4, shuffle=False)
for xb, yb in loader:
    print(xb.shape, yb)
print("len(loader) =", len(loader))

# %% [markdown]
# With N examples and batch size B, an epoch has ⌈N / B⌉ steps, and the last batch holds
# what is left, N − (steps − 1)·B. With `drop_last=True` that short last batch is skipped:
# ⌊N / B⌋ steps. For N = 10,000 and B = 128 (a loader over `range(N)` yields index batches):

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
# - Set N = 10 and batch size 4, tick `drop_last`: notice the grey row. Why are exactly
#   those two indices never seen in this epoch, and what happens to them with `shuffle`?
# - Set N = 10000 and batch size 128: notice the steps and the last batch in the title.
#   Change the batch size to 125: why is no batch ragged now?
# - Tick `shuffle` and change the seed: the batches change, the steps do not.

# %%
helpers.data.explore(n=10, batch_size=4)

# %% [markdown]
# **Quick quiz.** A dataset has 1,000 examples, the batch size is 96 and `drop_last=True`.
# How many examples does one epoch leave out? Set `quiz_dropped` to an integer.

# %% solution 05_data-quiz-dropped
### BEGIN SOLUTION
quiz_dropped = 40
### END SOLUTION

# %% test 05_data-quiz-dropped-test points=1
if not isinstance(quiz_dropped, int) or isinstance(quiz_dropped, bool):
    raise checks.CheckFailed(f"quiz_dropped is a {type(quiz_dropped).__name__}. [mc:data.quiz-number] "
                             "The answer is a count of examples, a whole number.")
checks.reject(quiz_dropped, {
    56: "[mc:data.dropped-is-missing] 56 is how many examples the short last batch lacks; "
        "drop_last skips that batch, so the examples it holds are the ones left out.",
    0: "[mc:data.drop-last-pads] drop_last neither pads nor wraps around: the short last "
       "batch is skipped, and its examples are not seen in this epoch."}, "quiz_dropped")
### BEGIN HIDDEN TESTS
if not (quiz_dropped == 1000 - len(DataLoader(range(1000), batch_size=96, drop_last=True)) * 96):
    raise checks.CheckFailed("[mc:data.dropped-is-missing] 1000 = 10 · 96 + 40: the last 40 are left out.")### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 3: steps per epoch (2 points)
#
# Write `steps_per_epoch(n, batch_size, drop_last=False)` returning the number of batches a
# `DataLoader` yields in one epoch over `n` examples, without building a loader.
# *Misconception*: integer division rounds the ragged last batch away.

# %% solution 05_data-steps
def steps_per_epoch(n, batch_size, drop_last=False):
    ### BEGIN SOLUTION
    return n // batch_size if drop_last else math.ceil(n / batch_size)
    ### END SOLUTION

# %% test 05_data-steps-test points=2
_hint = "[mc:data.steps-rule] ceil(n / batch_size) steps, or floor with drop_last=True."
for _n, _b, _d in [(10_000, 128, False), (10_000, 128, True), (640, 64, False), (5, 8, False)]:
    with checks.explain_errors({"": _hint}, f"steps_per_epoch({_n}, {_b}, {_d})"):
        _got = steps_per_epoch(_n, _b, _d)
    _want = len(DataLoader(range(_n), batch_size=_b, drop_last=_d))
    # later entries win where two wrong rules give the same number
    _wrong = {_n // _b + 1: "[mc:data.plus-one] n // batch_size + 1 counts one batch too many "
                            "when batch_size divides n: round up instead.",
              _n // _b: "[mc:data.floor-steps] Integer division drops the ragged last batch, "
                        "but the loader still yields it unless drop_last=True: round up.",
              math.ceil(_n / _b): "[mc:data.drop-last-ignored] With drop_last=True the short "
                                  "last batch is skipped: round down."}
    checks.reject(_got, {k: v for k, v in _wrong.items() if k != _want},
                  f"steps_per_epoch({_n}, {_b}, drop_last={_d})")
    if not (_got == _want):
        raise checks.CheckFailed(f"steps_per_epoch({_n}, {_b}, drop_last={_d}) = {_got!r} "
                                 f"is not right. {_hint}")
### BEGIN HIDDEN TESTS
for _n, _b, _d in [(1, 1, False), (1, 2, True), (999, 1000, False), (12345, 77, True),
                   (12345, 77, False), (300, 100, True)]:
    if not (steps_per_epoch(_n, _b, _d) == len(DataLoader(range(_n), batch_size=_b, drop_last=_d))):
        raise checks.CheckFailed(f"steps_per_epoch({_n}, {_b}, {_d}) disagrees with len(DataLoader). {_hint}")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Samplers: who decides the order
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
# ### Exercise 4: a sampler that balances classes (2 points)
#
# Write `balancing_weights(labels)` taking an int64 tensor of class labels and returning one
# weight per example (a tensor of the same length) such that a `WeightedRandomSampler` over
# them draws every class equally often. *Misconception*: the sampler wants a weight per
# **example**, not per class, and rare classes need the **large** weights.

# %% solution 05_data-balance
def balancing_weights(labels):
    ### BEGIN SOLUTION
    counts = torch.bincount(labels)
    return 1.0 / counts[labels].double()
    ### END SOLUTION

# %% test 05_data-balance-test points=2
_labels = torch.tensor([2, 0, 0, 1, 0, 0, 1, 0, 0, 0])
with checks.explain_errors({"": "[mc:data.weights-per-class] Return one weight per example: "
                                "look up each example's class size."}, "balancing_weights(labels)"):
    _w = torch.as_tensor(balancing_weights(_labels), dtype=torch.float64)
if not (_w.ndim == 1):
    raise checks.CheckFailed(f"[mc:data.weights-per-class] balancing_weights returned shape "
                             f"{tuple(_w.shape)}: one weight per example, a 1-d tensor.")
if not (len(_w) != 3):
    raise checks.CheckFailed("[mc:data.weights-per-class] You returned one weight per class "
                             "(3 here); WeightedRandomSampler wants one weight per example (10 here): index "
                             "your per-class weights with the labels.")
if not (len(_w) == 10):
    raise checks.CheckFailed(f"[mc:data.weights-per-class] {len(_w)} weights for 10 examples: "
                             "give one weight per example.")
if not (bool((_w >= 0).all())):
    raise checks.CheckFailed("[mc:data.weights-negative] Weights are probabilities "
                             "up to a scale: none can be negative.")
_totals = torch.stack([_w[_labels == c].sum() for c in range(3)])
_counts = torch.bincount(_labels).double()
if torch.allclose(_w, _counts[_labels] / _counts[_labels].sum() * _w.sum()):
    raise checks.CheckFailed("[mc:data.weights-inverted] These weights grow with the class size, so the "
                             "majority class is drawn even more often: use 1 / class size.")
if torch.allclose(_w, _w[:1].expand(10)):
    raise checks.CheckFailed("[mc:data.weights-uniform] Equal weights draw classes as often as they occur "
                             "(7 : 2 : 1 here): rare classes need larger weights.")
if not (torch.allclose(_totals, _totals.mean().expand(3))):
    raise checks.CheckFailed("[mc:data.weights-inverted] Each class's weights should add up to the same "
                             "total, so that every class is drawn equally often.")
### BEGIN HIDDEN TESTS
_big = torch.tensor(helpers.data.toy_labels(200))[torch.randperm(200, generator=torch.Generator().manual_seed(3))]
_wb = torch.as_tensor(balancing_weights(_big), dtype=torch.float64)
_drawn = _big[list(WeightedRandomSampler(_wb, 6000, generator=torch.Generator().manual_seed(4)))]
_share = torch.bincount(_drawn, minlength=3).double() / 6000
if not (bool(((_share - 1 / 3).abs() < 0.04).all())):
    raise checks.CheckFailed(f"[mc:data.weights-inverted] Class shares drawn {_share.tolist()}: each should be "
                             "near 1/3.")
### END HIDDEN TESTS

# %% [markdown]
# ## 5. collate_fn: from examples to a batch
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
# ### Exercise 5: a padding collate_fn that returns lengths (2 points)
#
# Write `pad_collate(batch)` for examples `(sequence, label)` where `sequence` is a 1-d int64
# tensor of any length. Return `(padded, lengths, labels)`: `padded` of shape (batch,
# longest length) with zeros after each sequence, `lengths` an int64 tensor of the original
# lengths and `labels` an int64 tensor. *Misconceptions*: lengths measured after padding are
# all equal; `pad_sequence` puts time first unless told otherwise.

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
_batch = [(torch.tensor([4, 5, 6]), 2), (torch.tensor([7]), 0)]
with checks.explain_errors({"": "[mc:data.collate-protocol] pad_collate gets a list of "
                                "(sequence, label) pairs and returns (padded, lengths, labels)."},
                           "pad_collate(batch)"):
    _padded, _lengths, _labels = pad_collate(_batch)
for _name, _value in (("padded", _padded), ("lengths", _lengths), ("labels", _labels)):
    if not isinstance(_value, torch.Tensor):
        raise checks.CheckFailed(f"{_name} is a {type(_value).__name__}. [mc:data.collate-protocol] "
                                 "Each of the three results is a tensor.")
checks.reject(tuple(_padded.shape), {(3, 2): "[mc:data.pad-time-first] padded is (longest length, "
              "batch): pad_sequence puts time first unless batch_first=True."}, "padded.shape")
checks.expect_shape(_padded, (2, 3), "padded")
checks.reject(tuple(_lengths.tolist()), {(3, 3): "[mc:data.lengths-after-padding] These are the lengths "
              "after padding, all equal: measure each sequence before padding it."}, "lengths")
if not (_lengths.tolist() == [3, 1]):
    raise checks.CheckFailed(f"[mc:data.lengths-after-padding] lengths is "
                             f"{_lengths.tolist()}: it should hold each sequence's own length, in batch order.")
if not (_padded.tolist() == [[4, 5, 6], [7, 0, 0]]):
    raise checks.CheckFailed(f"[mc:data.pad-value] padded is {_padded.tolist()}: each sequence stays at the "
                             "start of its row, followed by zeros.")
if not (_labels.tolist() == [2, 0] and _labels.dtype == torch.int64):
    raise checks.CheckFailed("[mc:data.collate-protocol] labels should be an int64 tensor of the labels in "
                             "batch order.")
### BEGIN HIDDEN TESTS
_g = torch.Generator().manual_seed(9)
_examples = [(torch.randint(1, 50, (int(k),), generator=_g), int(k) % 3)
             for k in torch.randint(1, 12, (9,), generator=_g)]
_p, _l, _y = next(iter(DataLoader(_examples, batch_size=9, collate_fn=pad_collate)))
if not (_l.dtype == torch.int64 and _l.tolist() == [len(s) for s, _ in _examples]):
    raise checks.CheckFailed("[mc:data.lengths-after-padding] lengths should be the original lengths.")
if not (tuple(_p.shape) == (9, max(_l.tolist()))):
    raise checks.CheckFailed("[mc:data.pad-time-first] padded should be (batch, longest length).")
if not (all(_p[i, :len(s)].tolist() == s.tolist() and not _p[i, len(s):].any()
        for i, (s, _) in enumerate(_examples))):
    raise checks.CheckFailed("[mc:data.pad-value] each row should be its sequence followed by zeros.")
if not (_y.tolist() == [c for _, c in _examples]):
    raise checks.CheckFailed("[mc:data.collate-protocol] labels should come in batch order.")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Workers: loading in other processes
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
# | `prefetch_factor=p` | each worker keeps p batches ready (default 2) | p · k batches held in memory |
# | `pin_memory=True` | faster, asynchronous copies to a CUDA GPU (`.to("cuda", non_blocking=True)`) | page-locked host memory; no use without a GPU |
# | `timeout=s` | a worker that does not answer in s seconds raises an error instead of hanging | needs `num_workers > 0` |
#
# `timeout` has no meaning without workers, and this version of PyTorch refuses it:

# %%
with checks.expect_error(AssertionError, ValueError):
    next(iter(DataLoader(range(4), timeout=5)))

# %% [markdown]
# **What a worker receives.** On Linux up to Python 3.13 a worker is started by `fork` and
# inherits a copy of your process, dataset included. Under `spawn` (macOS, Windows) and
# `forkserver` (Linux's default from Python 3.14) the dataset, the `collate_fn` and the
# `worker_init_fn` are pickled, and pickle stores a class or a function **by reference**:
# its module and its name, imported again in the worker. A class defined in a notebook
# belongs to the module `__main__`, which a spawned worker cannot import. That is why this
# notebook's worker-side code lives in `helpers/datasets.py`:

# %%
print("start method here:", torch.multiprocessing.get_start_method())
print(pickle.dumps(helpers.datasets.reseed_worker))
print(pickle.dumps(Squares))

# %% [markdown]
# **Seeding.** Each worker seeds torch's, Python's and NumPy's *global* random generators
# with seeds of its own, made from the loader's base seed and the worker id (torch's is
# their sum, `get_worker_info().seed`). A generator that your
# dataset *owns*, made in `__init__`, is a different matter: every worker receives a copy
# of that object, in the state it was in when it was copied. `helpers.datasets.NoisyItems`
# returns `[index, noise]` with the noise drawn from `np.random.default_rng(0)` made in its
# `__init__`.
#
# **Quick quiz.** A loader over `NoisyItems(8)` has `batch_size=2` and `num_workers=2`
# (worker 0 builds batches 0 and 2, worker 1 batches 1 and 3). Do batch 0 and batch 1 carry
# the same noise values? Set `quiz_same_noise` to `True` or `False`.

# %% solution 05_data-quiz-workers
### BEGIN SOLUTION
quiz_same_noise = True
### END SOLUTION

# %% test 05_data-quiz-workers-test points=1
if not isinstance(quiz_same_noise, bool):
    raise checks.CheckFailed(f"quiz_same_noise is a {type(quiz_same_noise).__name__}. "
                             "[mc:data.quiz-bool] Answer True or False.")
checks.reject(quiz_same_noise, {False: "[mc:data.workers-own-rng] The loader reseeds the global "
              "generators in each worker, not a generator your dataset holds: both workers get a "
              "copy of the same np.random.default_rng(0), in the same state, and draw the same noise."},
              "quiz_same_noise")
### BEGIN HIDDEN TESTS
_r0, _r1 = (np.random.default_rng(0) for _ in range(2))
if not (quiz_same_noise == (_r0.normal() == _r1.normal())):
    raise checks.CheckFailed("[mc:data.workers-own-rng] copies of one generator in one state draw the same numbers.")
### END HIDDEN TESTS

# %% [markdown]
# Here it is, live. `workers_explained()` runs the block and, on a machine where worker
# processes cannot start (a grading sandbox, say), prints why instead of failing; the
# `timeout=` turns a worker that never answers into an error rather than a hang. The same
# loader is run for two epochs: the noise repeats across workers **and** across epochs,
# because the workers are started afresh from the same copy each epoch.

# %%
noisy = DataLoader(helpers.datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=60)
with helpers.datasets.workers_explained():
    for epoch in range(2):
        print(f"epoch {epoch}:", [batch[:, 1].tolist() for batch in noisy])

# %% [markdown]
# The fix is a `worker_init_fn` that gives each worker's copy of the dataset a generator of
# its own, seeded from `get_worker_info().seed`, and a seeded `generator=` on the loader,
# from which the base seed of each epoch's workers is drawn. Then the noise differs between
# workers and between epochs, and a rerun with the same seed reproduces it exactly:

# %%
def noisy_loader(seed):
    return DataLoader(helpers.datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=60,
                      worker_init_fn=helpers.datasets.reseed_worker,
                      generator=torch.Generator().manual_seed(seed))


with helpers.datasets.workers_explained():
    first = noisy_loader(0)
    runs = [[batch[:, 1].tolist() for batch in first] for epoch in range(2)]
    rerun = [batch[:, 1].tolist() for batch in noisy_loader(0)]
    print("epoch 0:", runs[0])
    print("epoch 1:", runs[1])
    print("a rerun with seed 0 repeats epoch 0:", rerun == runs[0])

# %% [markdown]
# An **iterable** dataset has the same trap in another form: every worker gets a copy of
# the stream, and unless `__iter__` asks `get_worker_info()` which part is its own, every
# worker yields all of it. `RangeStream(0, 6, shard=False)` ignores the workers:

# %%
with helpers.datasets.workers_explained():
    for shard in (False, True):
        got = [int(x) for x in DataLoader(helpers.datasets.RangeStream(0, 6, shard=shard),
                                          batch_size=None, num_workers=2, timeout=60)]
        print(f"shard={shard}:", got)

# %% [markdown]
# ## 7. DistributedSampler: one dataset, several processes
#
# In data-parallel training, each of `world_size` processes (ranks) trains on its own part
# of every epoch. `DistributedSampler(dataset, num_replicas=world_size, rank=r)` gives rank
# r every `world_size`-th index starting at r. So that all ranks take the same number of
# steps, it first pads the index list with repeats of its first indices up to a multiple of
# `world_size`: each rank gets ⌈N / world_size⌉ indices. Passing `num_replicas` and `rank`
# explicitly means no process group is needed, so one process can show every rank's share.
# In the explorer, choose the sampler "distributed", N = 10, world size 4, and step the rank
# from 0 to 3: notice the hatched padding in the top strip and which ranks receive it.
#
# **Quick quiz.** With N = 10 examples and a world size of 3 (`shuffle=False`), how many
# indices does each rank get per epoch? Set `quiz_per_rank` to an integer.

# %% solution 05_data-quiz-ranks
### BEGIN SOLUTION
quiz_per_rank = 4
### END SOLUTION

# %% test 05_data-quiz-ranks-test points=1
if not isinstance(quiz_per_rank, int) or isinstance(quiz_per_rank, bool):
    raise checks.CheckFailed(f"quiz_per_rank is a {type(quiz_per_rank).__name__}. [mc:data.quiz-number] "
                             "The answer is a count of indices, a whole number.")
checks.reject(quiz_per_rank, {3: "[mc:data.dist-floor] Rounding down would leave an index to no "
                                 "rank: DistributedSampler pads the list to 12 so that every rank "
                                 "gets ceil(10 / 3) indices."}, "quiz_per_rank")
### BEGIN HIDDEN TESTS
if not (quiz_per_rank == len(DistributedSampler(range(10), num_replicas=3, rank=0))):
    raise checks.CheckFailed("[mc:data.dist-floor] each rank gets ceil(N / world_size) indices.")
### END HIDDEN TESTS

# %% [markdown]
# Every rank's share for N = 10 and a world size of 3, without and with shuffling. With
# `shuffle=True` every rank must call `sampler.set_epoch(epoch)` before each epoch: the
# permutation is seeded with `seed + epoch`, so without it every epoch repeats the first
# order.

# %%
for shuffle in (False, True):
    shares = [list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=shuffle, seed=0))
              for r in range(3)]
    print(f"shuffle={shuffle}:", shares)
sampler = DistributedSampler(range(10), num_replicas=3, rank=0, shuffle=True, seed=0)
print("rank 0, epochs 0, 0, 1:", list(sampler), list(sampler), end=" ")
sampler.set_epoch(1)
print(list(sampler))

# %% [markdown]
# ### Exercise 6: a rank's share (2 points)
#
# Write `rank_indices(n, world_size, rank)` returning, as a list of ints, the indices that
# `DistributedSampler(range(n), num_replicas=world_size, rank=rank, shuffle=False)` gives
# that rank, without using `DistributedSampler`. *Misconceptions*: ranks take strided
# indices, not contiguous chunks; the list is padded so that every rank takes the same
# number of steps.

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
    _wrong = {tuple(range(_r, _n, _w)): "[mc:data.dist-no-padding] Without padding, ranks get "
              "different numbers of indices and would take different numbers of steps: "
              "DistributedSampler repeats the first indices until every rank has ceil(n / world_size).",
              tuple(range(_r * _per, min(_n, (_r + 1) * _per))): "[mc:data.dist-contiguous] A rank "
              "does not get a contiguous chunk: index i goes to rank i % world_size."}
    checks.reject(tuple(_got), {k: v for k, v in _wrong.items() if list(k) != _want},
                  f"rank_indices({_n}, {_w}, {_r})")
    if not (_got == _want):
        raise checks.CheckFailed(f"rank_indices({_n}, {_w}, {_r}) = {_got} is not right. {_hint}")
### BEGIN HIDDEN TESTS
for _n, _w in [(1, 1), (3, 5), (7, 2), (100, 8), (13, 13), (5, 12)]:
    for _r in range(_w):
        if not ([int(i) for i in rank_indices(_n, _w, _r)]
                == list(DistributedSampler(range(_n), num_replicas=_w, rank=_r, shuffle=False))):
            raise checks.CheckFailed(f"rank_indices({_n}, {_w}, {_r}) disagrees with DistributedSampler. {_hint}")
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Data larger than memory: `np.memmap`
#
# A dataset need not fit in memory: only the examples of the current batch must. Store the
# array in a file of raw numbers and open it with `np.memmap`: indexing reads just those
# rows' pages from disk (the operating system caches what is used often), so the file may
# be larger than RAM. `helpers.datasets.MemmapRows` opens the file lazily in each process
# that reads it. Here a 20,000 × 256 float32 file is written to a temporary directory:

# %%
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "rows.f32")
rows, width = 20_000, 256
writer = np.memmap(path, dtype=np.float32, mode="w+", shape=(rows, width))
for start in range(0, rows, 5_000):          # written in chunks, as one would from a stream
    writer[start:start + 5_000] = np.arange(start, start + 5_000, dtype=np.float32)[:, None]
writer.flush()
del writer
print("file size", os.path.getsize(path) / 2**20, "MiB")
on_disk = helpers.datasets.MemmapRows(path, (rows, width))
batch = next(iter(DataLoader(on_disk, batch_size=4, shuffle=True,
                             generator=torch.Generator().manual_seed(0))))
print(batch.shape, batch.dtype, "first column:", batch[:, 0].tolist())
tmp.cleanup()

# %% [markdown]
# ## 9. When do workers help? A measurement
#
# Workers overlap loading with everything else, but they are not free: starting each one
# takes time every epoch (unless `persistent_workers=True`), every batch is pickled and
# passed back, and they compete for the same CPU cores as training. The cell times whole
# epochs (median of three) with 0 and 2 workers for two datasets: `TinyItems` (making an
# item costs almost nothing) and `WaitingItems` (each item waits 2 ms, as a read from a slow
# disk would, without using the CPU). The "2 kept" column uses `persistent_workers=True`:
# the workers start once, so the median epoch is one without start-up.

# %%
def items_per_second(dataset, workers, persistent=False):
    loader = DataLoader(dataset, batch_size=64, num_workers=workers, timeout=60 if workers else 0,
                        persistent_workers=persistent)
    return len(dataset) / helpers.datasets.seconds_per_epoch(loader, repeat=3)


print("CPU cores available:", helpers.datasets.cpu_count())
print("prefetch_factor with workers:", DataLoader(range(4), num_workers=2).prefetch_factor)
with helpers.datasets.workers_explained():
    table = {}
    for name, dataset in [("tiny items", helpers.datasets.TinyItems(2_000)),
                          ("2 ms waiting items", helpers.datasets.WaitingItems(200, 0.002))]:
        table[name] = [items_per_second(dataset, 0), items_per_second(dataset, 2),
                       items_per_second(dataset, 2, persistent=True)]
    print(f"{'dataset':<20} {'0 workers':>11} {'2 workers':>11} {'2 kept':>11}")
    for name, (zero, two, kept) in table.items():
        print(f"{name:<20} {zero:>9.0f}/s {two:>9.0f}/s {kept:>9.0f}/s   "
              f"2 workers: {two / zero:.2f}x, kept: {kept / zero:.2f}x the speed of 0 workers")

# %% [markdown]
# Read the table with the machine in mind (a ratio below 1 means the workers slowed the
# epoch down). For tiny items there is almost no work to overlap, and what workers cost
# (start-up, passing every batch between processes) remains. For items that wait (on a
# disk, a network), two workers can wait at the same time, which needs no free core, and
# kept workers no longer pay the start-up every epoch. For items that compute (decoding
# images, augmenting), workers help only when there are idle cores for them: with two
# cores that also run the training step, there are few. Measure on the machine you train
# on before choosing `num_workers`.
#
# ## 10. Common mistakes
#
# **A split that changes on every run** (section 2): `random_split` without a `generator`.
# **Stacking sequences of different lengths** (section 5): the default collate fails;
# a padding `collate_fn` fixes it. **`shuffle=True` with a sampler** (section 4): a
# `ValueError`; let the sampler decide the order. **The same augmentation in every
# worker** (section 6): a generator made in `__init__`; reseed it in `worker_init_fn`.
# **Every worker replays an iterable dataset** (section 6): shard by `get_worker_info()`.
# One more, reproduced here: assuming every batch has `batch_size` rows. A per-batch
# statistic that divides by the nominal batch size is wrong for the ragged last batch:

# %%
values = torch.arange(10.0)
wrong_means = [batch.sum().item() / 4 for batch in DataLoader(values, batch_size=4)]
right_means = [batch.mean().item() for batch in DataLoader(values, batch_size=4)]
print("divided by batch_size:", wrong_means, " by the batch's length:", right_means)

# %% [markdown]
# ## Summary
#
# - A map-style dataset is `__len__` + `__getitem__`; an iterable dataset is `__iter__`.
#   `TensorDataset` wraps tensors; `random_split` needs a seeded `generator` to repeat.
# - An epoch has ⌈N / B⌉ steps, the last one ragged; `drop_last=True` skips it (⌊N / B⌋).
# - The sampler decides the order: shuffle, class-balancing weights (1 / class size, one
#   weight per example), or `DistributedSampler`'s strided, padded share per rank.
# - A `collate_fn` turns a list of examples into a batch: pad sequences and keep lengths.
# - Workers are separate processes: code they run must be importable, generators a dataset
#   owns must be reseeded per worker, and whether they help is a measurement.
#
# **Next**: notebook 06 looks at what happens after the batch arrives: define-by-run
# execution, `torch.compile` and measuring speed correctly.
