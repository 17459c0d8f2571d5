"""What notebook 05's test cells run the student's code under: a spied training epoch, a
worker simulated around ``seed_worker``, a stream read by every worker in turn, the padding
of a set of batches. The visible checks and the hidden probes both call these, so that the
two halves watch the same things; each returns plain data (lists, numbers, tensors), which
is what a probe may report (helpers.grading.wire).

Nothing here is an answer: each function runs code the student wrote and records what it
did.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.utils.data import DataLoader

from helpers import datasets


def padding(batches, lengths) -> int:
    """Padded positions of ``batches`` (lists of indices) over sequences of ``lengths``:
    each batch padded to its longest."""
    lengths = [int(v) for v in lengths]
    return sum(len(b) * max(lengths[i] for i in b) for b in batches if len(b)) - sum(
        lengths[i] for b in batches for i in b)


def epochs(sampler, count: int = 2) -> list[list[list[int]]]:
    """``count`` epochs of a batch sampler, as a DataLoader runs it: ``iter()`` once per
    epoch; each batch as a list of ints."""
    return [[[int(i) for i in batch] for batch in sampler] for _ in range(count)]


def loaded_epochs(sampler, n: int, count: int = 2) -> list[list[list[int]]]:
    """The same through a real DataLoader over ``range(n)`` with ``batch_sampler=sampler``."""
    loader = DataLoader(range(n), batch_sampler=sampler)
    return [[batch.tolist() for batch in loader] for _ in range(count)]


def worker_noise(seed_worker, seed: int, worker_id: int, workers: int = 2, items: int = 3) -> list[float]:
    """The noise a ``NoisyItems`` copy draws after ``seed_worker(worker_id)`` ran as worker
    ``worker_id`` of ``workers`` with the worker seed ``seed``."""
    copy_ = datasets.NoisyItems(4)
    with datasets.as_worker(worker_id, workers, seed=seed, dataset=copy_):
        seed_worker(worker_id)
    return [float(copy_[i][1]) for i in range(items)]


def blocks(stream, workers: int) -> list[list]:
    """What ``iter(stream)`` yields in each worker of ``workers``, in worker order."""
    out = []
    for w in range(workers):
        with datasets.as_worker(w, workers, dataset=stream):
            out.append(list(stream))
    return out


def small_net(seed: int) -> nn.Module:
    """The network Exercise 9's tests train: every submodule kind whose mode matters."""
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))


def watched_fit(fit_epoch, make_loader, seed: int) -> dict:
    """``fit_epoch`` on ``small_net(seed)`` handed over in eval mode, every call watched: the
    mode each submodule ran in, the rows the first layer saw, each loss with its batch size,
    whether the gradients at each optimizer step were none, fresh or stale (after a step they
    are marked with NaN, so that a gradient not zeroed before the next backward shows), the
    weights afterwards and what ``fit_epoch`` returned. Plain data only."""
    net = small_net(seed)
    net.eval()
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
    returned = fit_epoch(net, make_loader(), optimizer, loss_fn)
    seen["returned"] = returned
    seen["weights"] = torch.cat([p.detach().flatten() for p in net.parameters()])
    return seen


def sentences_batch(pad_collate, examples) -> tuple:
    """``pad_collate`` through a real DataLoader, one batch of every example."""
    return next(iter(DataLoader(examples, batch_size=len(examples), collate_fn=pad_collate)))


# ---------------------------------------------------------------- the visible checks
# Each takes what the student's code produced (plain data) and fails with the misconception
# it shows; a test cell's visible part calls it on the kernel's values, its judge on what
# the probe reported for the same inputs (and adds the hidden cases).

def check_windows(length, item) -> None:
    """``Windows(np.arange(10.0) * 1.5, 3)``: its length and item 4."""
    from helpers import checks

    checks.expect_true(length != 10, "[mc:data.windows-count] len(ds) is 10, the number of readings: "
                                     "len counts the examples, and a window near the end of the series "
                                     "has no reading after it to predict.")
    checks.expect_true(length != 8, "[mc:data.windows-count] len(ds) is 8: the window that ends with "
                                    "the last reading has no reading after it, so it is no example.")
    checks.expect_true(length == 7, f"[mc:data.windows-count] len(ds) is {length}: count the windows "
                                    "that have a reading after them.")
    pair = "[mc:data.dataset-protocol] Item i is a pair: (a float32 tensor of width readings, the reading after them)."
    checks.expect_true(isinstance(item, (tuple, list)) and len(item) == 2, pair)
    x, y = item
    with checks.because(pair):
        checks.expect_type(x, torch.Tensor, "ds[4][0]")
    checks.expect_true(x.dtype != torch.float64,
                       "[mc:data.numpy-float64] ds[4][0] is float64, as NumPy arrays are (and "
                       "torch.from_numpy keeps that); a model's weights are float32.")
    checks.expect_true(x.dtype == torch.float32, f"[mc:data.numpy-float64] ds[4][0] has dtype "
                                                 f"{x.dtype}; the model expects float32 inputs.")
    with checks.because("[mc:data.dataset-protocol] ds[4][0] should be 3 consecutive readings, "
                        "starting with reading 4."):
        checks.expect_close(x, torch.tensor([6.0, 7.5, 9.0]), "ds[4][0]")
    checks.expect_true(not isinstance(y, float) and type(y).__module__ != "numpy",
                       "[mc:data.numpy-float64] The target is a Python or NumPy float: the loader "
                       "batches those as float64. Return a 0-d float32 tensor.")
    with checks.because("[mc:data.dataset-protocol] The target is a 0-d float32 tensor."):
        checks.expect_type(y, torch.Tensor, "ds[4][1]")
    checks.expect_true(not (y.numel() == 1 and float(y) == 9.0),
                       "[mc:data.window-target] ds[4][1] is 9.0, the window's own last reading: the "
                       "model already sees it. The target is the reading that comes after the window.")
    checks.expect_true(y.dtype == torch.float32 and y.ndim == 0 and float(y) == 10.5,
                       f"[mc:data.window-target] ds[4][1] is {checks.show(y)}: it should be the "
                       "reading right after the window, a 0-d float32 tensor.")


def check_group_split(splits, writers) -> None:
    """Five calls ``group_split(dataset of 12, writers, 1, 0)``, each as [train ids, val ids]."""
    from helpers import checks

    train, val = splits[0]
    checks.expect_true(sorted(train + val) == list(range(len(writers))),
                       "[mc:data.split-protocol] train and val together should hold every example "
                       "exactly once.")
    shared = sorted({writers[i] for i in train} & {writers[i] for i in val})
    checks.expect_true(not shared, f"[mc:data.split-leaks-groups] Group(s) {shared} have examples in "
                                   "train and in val: the model would be validated on near-copies of "
                                   "what it trained on. Choose whole groups for val.")
    groups = len({writers[i] for i in val})
    checks.expect_true(not (len({writers[i] for i in train}) == 1 and groups == 3),
                       "[mc:data.split-protocol] train holds one whole group and val the other three: "
                       "return (train, val), in that order.")
    checks.expect_true(groups == 1, f"[mc:data.split-groups-vs-examples] val holds {len(val)} "
                                    f"examples from {groups} groups; n_val_groups=1 asks for "
                                    "every example of one group.")
    checks.expect_true(all(sorted(s[1]) == sorted(val) for s in splits),
                       "[mc:data.split-unseeded] Five calls with the same seed chose different groups: "
                       "draw from a generator seeded with seed (torch.Generator().manual_seed(seed)), "
                       "not from the global random state.")


def _class_totals(weights, labels, classes) -> torch.Tensor:
    from helpers import checks

    weights = torch.as_tensor(weights, dtype=torch.float64)
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


def tempered_hints(labels, alpha) -> dict:
    """What an error from ``tempered_weights(labels, alpha)`` most likely means."""
    return {"negative integer powers": "[mc:data.weights-integer-power] The class sizes are int64, and "
                                       "torch refuses an integer to a negative power (alpha = "
                                       f"{alpha} here): make the sizes floats first.",
            "": "[mc:data.weights-class-ids] Look up each example's class size by its label's value "
                f"(the labels here are {sorted(set(labels.tolist()))})."}


def check_tempered(weights, labels, alpha) -> None:
    """The weights ``tempered_weights(labels, alpha)`` returned: each class drawn in proportion
    to n_c ** alpha, with the usual wrong powers named."""
    from helpers import checks

    def like(totals, target):
        return torch.allclose(totals / totals.sum(), target / target.sum(), rtol=1e-4, atol=1e-9)

    classes = sorted(set(labels.tolist()))
    sizes = torch.tensor([float((labels == c).sum()) for c in classes], dtype=torch.float64)
    totals = _class_totals(weights, labels, classes)
    shares = [round(t, 3) for t in (totals / totals.sum()).tolist()]
    checks.expect_true(alpha == 0 or not like(totals, torch.ones_like(sizes)),
                       f"[mc:data.weights-alpha-ignored] alpha = {alpha}, but these weights balance "
                       "the classes exactly (each class's weights add up to the same total), as "
                       "alpha = 0 would: the classes should be drawn in proportion to n_c ** alpha.")
    checks.expect_true(alpha == 1 or not like(totals, sizes),
                       f"[mc:data.weights-uniform] alpha = {alpha}, but these weights draw the classes "
                       "as often as they occur, as alpha = 1 would: rare classes need larger "
                       "weights per example.")
    checks.expect_true(not like(totals, sizes ** (alpha + 1)),
                       f"[mc:data.weights-class-total] These weights draw the classes in the shares "
                       f"{shares}, in proportion to n_c ** (alpha + 1), not n_c ** alpha: a class is "
                       "drawn as often as the total of its examples' weights says.")
    checks.expect_true(alpha == 0.5 or not like(totals, sizes ** (1 - alpha)),
                       f"[mc:data.weights-inverted] With alpha = {alpha} these weights draw the "
                       "classes in proportion to n_c ** (1 - alpha): the power goes the wrong way.")
    checks.expect_true(like(totals, sizes ** alpha),
                       f"[mc:data.weights-not-proportional] With alpha = {alpha} the classes (sizes "
                       f"{sizes.int().tolist()}) would be drawn in the shares {shares}; they should "
                       "be drawn in proportion to n_c ** alpha.")


def check_pad_collate(result, batch) -> None:
    """``pad_collate(batch)`` for a list of (int64 tokens, label): (padded, mask, labels), the
    width the longest length rounded up to a multiple of 8."""
    from helpers import checks

    protocol = ("[mc:data.collate-protocol] pad_collate gets a list of (tokens, label) pairs and "
                "returns (padded, mask, labels), three tensors.")
    checks.expect_true(isinstance(result, (tuple, list)) and len(result) == 3, protocol)
    padded, mask, labels = result
    with checks.because(protocol):
        for name, value in (("padded", padded), ("mask", mask), ("labels", labels)):
            checks.expect_type(value, torch.Tensor, name)
    own = [len(tokens) for tokens, _ in batch]
    longest, width = max(own), -(-max(own) // 8) * 8
    checks.expect_true(not (padded.ndim == 2 and padded.shape[0] != len(batch)
                            and padded.shape[1] == len(batch)),
                       "[mc:data.pad-time-first] padded is (length, batch): pad_sequence puts time "
                       "first unless batch_first=True.")
    checks.expect_true(not (padded.ndim == 2 and padded.shape[1] == longest and longest != width),
                       f"[mc:data.pad-not-rounded] padded has {longest} columns, the longest length "
                       f"itself: round it up to a multiple of 8 ({width} here), so that batches come "
                       "in few shapes.")
    checks.expect_true(not (padded.ndim == 2 and padded.shape[1] == longest + 8 and longest % 8 == 0),
                       f"[mc:data.pad-round-again] padded has {longest + 8} columns for a longest "
                       f"length of {longest}, already a multiple of 8: rounding up leaves it as it is "
                       "(-(-n // 8) * 8, or math.ceil(n / 8) * 8).")
    checks.expect_shape(padded, (len(batch), width), "padded")
    checks.expect_true(padded.dtype == torch.int64,
                       f"[mc:data.pad-default-dtype] padded has dtype {padded.dtype}: a buffer made "
                       "without dtype= takes torch's default, float32, and token ids are int64 (an "
                       "Embedding refuses anything else). Give the buffer the tokens' dtype.")
    rows_in_order = all(padded[i, :n].tolist() == tokens.tolist() for i, (tokens, n) in
                        enumerate(zip([t for t, _ in batch], own)))
    rows_sorted = sorted(range(len(batch)), key=lambda i: -own[i])
    checks.expect_true(rows_in_order or not all(
        padded[k, :own[i]].tolist() == batch[i][0].tolist() for k, i in enumerate(rows_sorted)),
        "[mc:data.collate-reorders] The rows come sorted by length: keep the examples in the "
        "order the batch gives them, so that row i, mask[i] and labels[i] belong to example i.")
    checks.expect_true(rows_in_order and all(not padded[i, n:].any() for i, n in enumerate(own)),
                       "[mc:data.pad-value] Each row of padded should be its sequence, from the "
                       "first column on, followed by zeros.")
    checks.expect_true(mask.dtype == torch.bool,
                       f"[mc:data.mask-float] mask has dtype {mask.dtype}: an attention layer "
                       "adds a float mask to its scores (adding 1 or 0 keeps every position) and "
                       "selects with a bool one. Make it bool: True at a real token.")
    checks.expect_shape(mask, (len(batch), width), "mask")
    truth = torch.arange(width) < torch.tensor(own)[:, None]
    checks.expect_true(not torch.equal(mask, padded != 0) or torch.equal(mask, truth),
                       "[mc:data.mask-from-values] mask is False at a real token 0: a mask read from "
                       "the values cannot tell a token 0 from padding. Build it from the lengths.")
    checks.expect_true(torch.equal(mask, truth),
                       "[mc:data.mask-from-values] mask should be True exactly at each row's first "
                       "len(tokens) positions, the real tokens.")
    checks.expect_true(labels.dtype == torch.int64 and labels.tolist() == [y for _, y in batch],
                       "[mc:data.collate-protocol] labels should be an int64 tensor of the labels, "
                       "in batch order.")


def shuffled_padding(lengths, batch_size: int, trials: int = 20) -> float:
    """Mean padding of shuffled batches of ``batch_size`` over ``trials`` random orders."""
    g = torch.Generator().manual_seed(1234)
    total = 0
    for _ in range(trials):
        order = torch.randperm(len(lengths), generator=g).tolist()
        total += padding([order[k:k + batch_size] for k in range(0, len(order), batch_size)], lengths)
    return total / trials


def check_buckets(seen, again, lengths, batch_size: int, size=None) -> None:
    """Two epochs of one ``BucketSampler(lengths, batch_size, generator seeded s)`` (``seen``),
    two of another built alike (``again``), and ``len(sampler)`` (``size``)."""
    from helpers import checks

    n = len(lengths)
    lengths = [int(v) for v in lengths]
    checks.expect_true(len(seen[0]) > 0, "[mc:data.buckets-protocol] The first epoch yielded no batch.")
    checks.expect_true(len(seen[1]) > 0,
                       "[mc:data.sampler-iterator-once] The second epoch yielded no batch: the sampler "
                       "handed out one iterator that the first epoch used up. A DataLoader calls "
                       "iter() on its batch sampler every epoch: __iter__ must start a new epoch "
                       "each time it is called.")
    for epoch, batches in enumerate(seen):
        flat = sorted(i for b in batches for i in b)
        checks.expect_true(flat != sorted(lengths) or flat == list(range(n)),
                           "[mc:data.buckets-lengths] The batches hold the lengths themselves: a "
                           "batch sampler yields indices into the dataset.")
        checks.expect_true(set(flat) <= set(range(n)) and len(set(flat)) == len(flat),
                           f"[mc:data.buckets-protocol] Epoch {epoch + 1}: every entry should be an "
                           f"index 0..{n - 1}, each at most once.")
        checks.expect_true(len(flat) == n, f"[mc:data.buckets-drops-rest] Epoch {epoch + 1} holds "
                                           f"{len(flat)} of the {n} indices: every index, once.")
        sizes = sorted(len(b) for b in batches)
        checks.expect_true(sizes[1:] == [batch_size] * (len(sizes) - 1) and sizes[-1] == batch_size
                           or len(sizes) == 1,
                           f"[mc:data.buckets-protocol] Batch sizes {[len(b) for b in batches]}: every "
                           f"batch holds batch_size ({batch_size}) indices except at most one shorter.")
    if size is not None:
        checks.expect_true(size == math.ceil(n / batch_size),
                           f"[mc:data.buckets-protocol] len(sampler) is {size!r}: the number of batches "
                           f"in an epoch, {math.ceil(n / batch_size)} for {n} sequences in batches of "
                           f"{batch_size}.")
    if len(seen[0]) >= 4:
        first = seen[0]
        checks.expect_true(seen[0] != seen[1],
                           "[mc:data.buckets-same-every-epoch] Both epochs yielded the same batches in "
                           "the same order: each iter() must draw a new random order from the "
                           "generator (which moves on with every draw).")
        tops = [max(lengths[i] for i in b) for b in first]
        checks.expect_true(tops != sorted(tops) and tops != sorted(tops, reverse=True),
                           "[mc:data.buckets-sorted-order] The batches come sorted by length: the "
                           "early steps of every epoch would see only short (or long) sequences. "
                           "Shuffle the order of the batches.")
        checks.expect_true(n <= 8 * batch_size   # one bucket: only ties can move between batches
                           or {frozenset(b) for b in seen[0]} != {frozenset(b) for b in seen[1]},
                           "[mc:data.buckets-fixed-batches] Both epochs hold the same batches, only "
                           "in another order: a sequence always shares its batch with the same "
                           "companions. Draw a new random order of the indices before cutting buckets.")
    checks.expect_true(again == seen,
                       "[mc:data.buckets-global-rng] Two samplers whose generators were seeded alike "
                       "yielded different epochs: draw every random number from self.generator "
                       "(torch.randperm(..., generator=self.generator)), not from the global one.")
    if n >= 8 * batch_size:
        mine, shuffled = padding(seen[0], lengths), shuffled_padding(lengths, batch_size)
        checks.expect_true(mine <= 0.5 * shuffled,
                           f"[mc:data.buckets-mixed-lengths] Epoch 1 pads {mine} positions, shuffled "
                           f"batches about {shuffled:.0f}: short and long sequences share batches. "
                           "Sort each bucket by length before cutting it into batches.")


def check_seed_worker(w0, w1, next_epoch, again) -> None:
    """The noise of worker 0 and worker 1 with base seed s, of worker 0 with another base seed
    (the next epoch), and of worker 0 again with s."""
    from helpers import checks

    checks.expect_true(w0 != w1, "[mc:data.workers-own-rng] Two workers' copies still draw the same "
                                 "noise: the generator NoisyItems draws from is the rng of the "
                                 "dataset copy in this worker, and that is the one to replace.")
    checks.expect_true(next_epoch != w0,
                       "[mc:data.seed-from-worker-id] Worker 0 drew the same noise with another worker "
                       "seed, as it would in the next epoch: the worker id is the same every epoch, "
                       "the worker's seed is not.")
    checks.expect_true(again == w0,
                       "[mc:data.seed-not-reproducible] The same worker seed gave different noise: "
                       "seed the new generator from the worker's seed, so that a loader with a seeded "
                       "generator repeats its noise.")


def check_chunks(alone, twice, three, records) -> None:
    """``list(ChunkedStream(records))`` in the main process, the same stream iterated a second
    time (the next epoch), and the three blocks of 3 workers."""
    from helpers import checks

    checks.expect_true(alone == records or alone,
                       "[mc:data.stream-main-process] With no workers the stream yielded nothing; it "
                       "should yield every record, in order. (A function that contains yield is a "
                       "generator: a return in it ends the iteration instead of handing over an "
                       "iterator, so use yield from in every branch, or return in every branch.)")
    checks.expect_true(alone == records, f"[mc:data.stream-main-process] With no workers the stream "
                                         f"yielded {len(alone)} records; it should yield every record, "
                                         "in order.")
    checks.expect_true(twice == records,
                       f"[mc:data.stream-iterator-once] Iterated a second time (the next epoch) the "
                       f"stream yielded {len(twice)} records: an iterator made once (in __init__, or "
                       "kept from the first call) is used up after one epoch. __iter__ must start "
                       "afresh on every call.")
    checks.expect_true(sum(map(len, three)) != 3 * len(records),
                       "[mc:data.stream-not-sharded] Every worker yields every record: with 3 workers "
                       "each record would arrive three times. Yield only this worker's block.")
    checks.expect_true(three != [records[w::3] for w in range(3)],
                       "[mc:data.shard-strided] These shards are strided (every third record); "
                       "each worker should read one contiguous block.")
    checks.expect_true(sum(map(len, three)) >= len(records),
                       f"[mc:data.shard-drops-remainder] The blocks hold {sum(map(len, three))} of "
                       f"{len(records)} records: blocks of {len(records)} // 3 lose the rest. Spread "
                       "the remainder.")
    checks.expect_true(sum(three, []) == records,
                       "[mc:data.shard-not-partition] Worker 0's block, then worker 1's, then worker "
                       "2's should be exactly the records, in order: no record twice, none skipped.")
    checks.expect_true(max(map(len, three)) - min(map(len, three)) <= 1,
                       f"[mc:data.shard-unbalanced] Block sizes {[len(b) for b in three]} differ by "
                       "more than one: spread the records evenly over the workers.")


def per_rank_values(values: list, world_size: int) -> list[list]:
    """What each rank computes for its DistributedSampler share (shuffle=False) when the value
    for example i is ``values[i]``."""
    from torch.utils.data import DistributedSampler

    return [[values[i] for i in DistributedSampler(range(len(values)), num_replicas=world_size,
                                                    rank=r, shuffle=False)]
            for r in range(world_size)]


def check_gather(result, values: list, world_size: int) -> None:
    """``gather_in_order(per_rank_values(values, world_size), len(values))``."""
    from helpers import checks

    n, per_rank = len(values), per_rank_values(values, world_size)
    where = f"({n} examples, {world_size} ranks)"
    checks.expect_true(isinstance(result, list),
                       f"[mc:data.dist-rule] gather_in_order returned a {type(result).__name__} "
                       f"{where}: return a list of the n values.")
    checks.expect_true(result != sum(per_rank, [])[:n] or result == values,
                       f"[mc:data.gather-rank-order] {where} These are the ranks' lists one after "
                       "the other: rank r computed the indices r, r + world_size, ..., so the lists "
                       "interleave. Value i sits in rank i % world_size's list at position "
                       "i // world_size.")
    checks.expect_true(len(result) <= n,
                       f"[mc:data.gather-keeps-padding] {where} {len(result)} values for {n} examples: "
                       "the sampler padded the index list with repeats of its first indices so that "
                       "every rank had as many; those repeats are not examples of their own.")
    checks.expect_true(len(result) >= n,
                       f"[mc:data.gather-by-value] {where} {len(result)} values for {n} examples: "
                       "predictions repeat (two examples can get the same one), so repeats cannot "
                       "be found by comparing values. Find the padding by its position.")
    checks.expect_true(result == values,
                       f"[mc:data.dist-rule] {where} value i should be the one computed for example i: "
                       "DistributedSampler gave index i to rank i % world_size, as its "
                       "(i // world_size)-th.")


FIT_HINTS = {"inplace operation": "[mc:data.fit-steps] optimizer.step() changed the weights in place "
                                  "before backward() used them: on every batch, backward comes before step.",
             "": "[mc:data.fit-protocol] fit_epoch(model, loader, optimizer, loss_fn) trains for one "
                 "epoch and returns a float."}


def check_fit(seen, rows, batch_sizes) -> None:
    """What ``watched_fit`` saw of one epoch over a loader that yields ``rows`` in batches of
    ``batch_sizes`` (in order, not shuffled)."""
    from helpers import checks

    returned = seen["returned"]
    checks.expect_true(not isinstance(returned, (torch.Tensor, list, tuple)),
                       f"[mc:data.fit-returns-tensor] fit_epoch returned a {checks.type_name(returned)}: "
                       "return one Python float, built from loss.item() (a tensor would hold its graph).")
    with checks.because("[mc:data.fit-protocol] fit_epoch returns the epoch's mean loss, a Python float."):
        checks.expect_type(returned, float, "fit_epoch(...)")
    batches, got_rows = len(batch_sizes), seen["rows"]
    checks.expect_true(len(got_rows) == batches and torch.equal(torch.cat(got_rows), rows),
                       f"[mc:data.iter-every-step] The model saw {sum(len(r) for r in got_rows)} rows "
                       f"in {len(got_rows)} batches, not the {len(rows)} rows once in the loader's "
                       f"{batches} batches {tuple(batch_sizes)}: iterate over the loader (for inputs, "
                       "targets in loader); next(iter(loader)) starts it again and yields its first batch.")
    checks.expect_true(all(seen["modes"]), "[mc:data.fit-train-mode] A submodule ran in eval mode: the "
                                           "model arrived in eval mode, so put it in training mode "
                                           "(model.train()) before the steps.")
    steps = seen["steps"]
    checks.expect_true(len(steps) == batches, f"[mc:data.fit-steps] optimizer.step() ran {len(steps)} "
                                              f"times for the loader's {batches} batches: one step per batch.")
    checks.expect_true("none" not in steps,
                       f"[mc:data.fit-steps] At step {steps.index('none') + 1 if 'none' in steps else 0} "
                       "the optimizer found no gradient to use: on every batch, backward() comes "
                       "before step().")
    checks.expect_true("stale" not in steps,
                       f"[mc:data.fit-steps] At step {steps.index('stale') + 1 if 'stale' in steps else 0} "
                       "the gradients still held the previous batch's (backward adds to .grad): zero "
                       "them on every batch, before backward.")
    losses = seen["losses"]
    plain = sum(v for v, _ in losses) / max(len(losses), 1)
    weighted = sum(v * n for v, n in losses) / max(sum(n for _, n in losses), 1)
    checks.expect_true(not math.isclose(returned, plain, rel_tol=1e-6) or math.isclose(plain, weighted, rel_tol=1e-6),
                       f"[mc:data.mean-of-batch-means] This is the mean of the {batches} batch losses: "
                       f"the last batch holds {batch_sizes[-1]} examples, not {batch_sizes[0]}, so "
                       "weight each batch's loss by its size.")
    checks.expect_close(returned, weighted, "fit_epoch(...)", rtol=1e-5,
                        hint="[mc:data.mean-of-batch-means] Weight each batch's loss by its number of "
                             "examples, and divide by the number of examples.")


def explained(observed, key: str, hints: dict):
    """``observed[key]`` (a judge's ``got``), or, when the student's code raised, a failed
    check that names the hint whose fragment the error's message holds ("" matches any), as
    ``checks.explain_errors`` does in the visible part."""
    from helpers import checks
    from helpers.grading.probe import Raised

    found = observed.outcome(key)
    if isinstance(found, Raised):
        text = f"{found.type_name}: {found.message}".lower()
        reason = next((why for fragment, why in hints.items() if fragment.lower() in text), "")
        said = f"{key} raised {found}"
        said = said if said.endswith((".", "!", "?")) else said + "."
        checks.expect_true(False, f"{said} {reason}".strip())
    return found


# ---------------------------------------------------------------- the graders' inputs

def tempered_cases() -> dict[str, tuple[torch.Tensor, tuple]]:
    """Labels by name, with the alphas tried on each: gaps in the class ids, 0 and 1 as ints
    and as floats."""
    from helpers import data

    shuffled = torch.tensor(data.toy_labels(200))[torch.randperm(200, generator=torch.Generator().manual_seed(3))]
    return {"ten labels": (torch.tensor([2, 0, 0, 1, 0, 0, 1, 0, 0, 0]), (0.5,)),
            "200 shuffled labels": (shuffled, (0.25, 0.8, 0, 1, 0.0, 1.0, 0.5)),
            "labels 0, 2 and 5 only": (torch.tensor([5, 0, 5, 2, 2, 5, 5, 0, 5, 5]), (0.25, 0))}


def collate_cases() -> dict[str, list]:
    """Batches of (tokens, label) by name: real tokens 0, a longest length that is a multiple
    of 8, one token, lengths past 16, random lengths with trailing zeros."""
    g = torch.Generator().manual_seed(9)
    random_lengths = [(torch.randint(0, 4, (int(k),), generator=g), int(k) % 3)
                      for k in torch.randint(1, 12, (9,), generator=g)]
    return {"a token 0, lengths 1 and 9": [(torch.tensor([7]), 0), (torch.tensor([4, 0, 6, 1, 2, 3, 5, 8, 9]), 2)],
            "lengths 8 and 3": [(torch.arange(8), 1), (torch.tensor([3, 0, 0]), 0)],
            "one token": [(torch.tensor([0]), 2)],
            "lengths up to 17": [(torch.arange(17) % 5, 1), (torch.tensor([6] * 16), 0), (torch.tensor([2]), 2)],
            "eleven random, trailing zeros": random_lengths + [(torch.tensor([3, 0, 0]), 1), (torch.tensor([0]), 2)]}


def gather_cases() -> dict[str, tuple[list, int]]:
    """(the value of each example, world size) by name: more ranks than examples, no padding,
    one rank, predictions that repeat."""
    return {"10 named values, 4 ranks": ([f"prediction {i}" for i in range(10)], 4),
            "10 named values, 3 ranks": ([f"prediction {i}" for i in range(10)], 3),
            "12 values, 3 ranks": (list(range(100, 112)), 3),
            "3 values, 5 ranks": (["a", "b", "c"], 5),
            "1 value, 1 rank": ([7], 1),
            "5 values, 12 ranks": ([0.5, 0.25, 0.125, 1.0, 2.0], 12),
            "100 class predictions, 8 ranks": ([i * 7 % 3 for i in range(100)], 8),
            "7 repeated labels, 2 ranks": ([1, 0, 1, 1, 0, 0, 1], 2)}
