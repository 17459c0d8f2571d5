"""The misconceptions that notebook 05_data's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
    # a Dataset over arrays
    "data.dataset-protocol": Misconception(
        "a Dataset item is something other than (input of example i, target of example i)",
        ("05_data-dataset",)),
    "data.windows-count": Misconception(
        "len(dataset) counts the readings the examples are cut from, not the examples",
        ("05_data-dataset",)),
    "data.window-target": Misconception(
        "the target of a window is its own last reading, not the reading after it", ("05_data-dataset",)),
    "data.numpy-float64": Misconception(
        "NumPy data (or a Python float) can go to a float32 model as it is (it batches as float64)",
        ("05_data-dataset",)),
    # splitting by group
    "data.split-protocol": Misconception(
        "a split need not cover the dataset once", ("05_data-group-split",)),
    "data.split-leaks-groups": Misconception(
        "a random split by example keeps validation independent of training when examples "
        "come in groups", ("05_data-group-split",)),
    "data.split-groups-vs-examples": Misconception(
        "the number of validation groups is a number of examples", ("05_data-group-split",)),
    "data.split-unseeded": Misconception(
        "a split drawn from the global random state repeats on every call", ("05_data-group-split",)),
    "data.split-not-random": Misconception(
        "a fixed choice of groups (the first ones) is a random split", ("05_data-group-split",)),
    # quizzes: the answer's type
    "data.split-tensor-groups": Misconception(
        "the items of a tensor are ints (a set of 0-d tensors tells them apart by identity)",
        ("05_data-group-split",)),
    "data.quiz-number": Misconception(
        "a count can be answered with a float or a string",
        ("05_data-quiz-dropped", "05_data-quiz-ranks", "05_data-quiz-ready")),
    "data.quiz-bool": Misconception(
        "a yes/no answer can be a string or a number", ("05_data-quiz-workers", "05_data-quiz-four")),
    "data.quiz-shape": Misconception(
        "a shape can be answered with something other than a tuple of ints", ("05_data-quiz-unbatched",)),
    # drop_last
    "data.dropped-is-missing": Misconception(
        "drop_last leaves out the examples the last batch lacks, not the ones it holds",
        ("05_data-quiz-dropped",)),
    "data.drop-last-pads": Misconception(
        "drop_last pads or wraps around, so no example is left out", ("05_data-quiz-dropped",)),
    "data.dropped-counts-batches": Misconception(
        "what drop_last leaves out is counted in batches", ("05_data-quiz-dropped",)),
    "data.dropped-counts-kept": Misconception(
        "the examples left out are the ones the full batches hold", ("05_data-quiz-dropped",)),
    # batch_size=None
    "data.unbatched-adds-dim": Misconception(
        "batch_size=None still adds a batch dimension (it is batch_size=1)", ("05_data-quiz-unbatched",)),
    "data.unbatched-whole": Misconception(
        "batch_size=None makes one batch of the whole dataset", ("05_data-quiz-unbatched",)),
    "data.unbatched-scalar": Misconception(
        "batch_size=None yields single numbers rather than whole items", ("05_data-quiz-unbatched",)),
    # samplers
    "data.weights-per-class": Misconception(
        "WeightedRandomSampler takes one weight per class", ("05_data-balance",)),
    "data.weights-negative": Misconception(
        "sampling weights may be negative", ("05_data-balance",)),
    "data.weights-inverted": Misconception(
        "the class size's power in a tempered weight goes the other way (n_c ** -alpha)",
        ("05_data-balance",)),
    "data.weights-uniform": Misconception(
        "equal weights soften a class imbalance (they keep it as it is)", ("05_data-balance",)),
    "data.weights-alpha-ignored": Misconception(
        "1 / class size tempers the imbalance for any alpha (it balances exactly)", ("05_data-balance",)),
    "data.weights-class-total": Misconception(
        "a class's chance is one example's weight, not the total of its examples' weights",
        ("05_data-balance",)),
    "data.weights-integer-power": Misconception(
        "an int64 count can be raised to any power (torch refuses a negative integer power)",
        ("05_data-balance",)),
    # collate_fn
    "data.weights-not-proportional": Misconception(
        "any weights that shrink as the class grows give the asked-for class shares",
        ("05_data-balance",)),
    "data.weights-class-ids": Misconception(
        "class labels are positions 0..C-1 of a per-class table (no class id is ever missing)",
        ("05_data-balance",)),
    "data.collate-protocol": Misconception(
        "a collate_fn returns lists, or something other than batch tensors in batch order",
        ("05_data-collate",)),
    "data.pad-time-first": Misconception(
        "pad_sequence returns (batch, length) without batch_first=True", ("05_data-collate",)),
    "data.pad-not-rounded": Misconception(
        "padding to the batch's own longest length keeps the number of shapes small",
        ("05_data-collate",)),
    "data.pad-round-again": Misconception(
        "rounding up to a multiple moves a length that already is one", ("05_data-collate",)),
    "data.pad-default-dtype": Misconception(
        "a buffer made without dtype= can hold token ids (it is float32)", ("05_data-collate",)),
    "data.mask-float": Misconception(
        "any 0/1 mask selects positions in attention (a float mask is added to the scores)",
        ("05_data-collate",)),
    "data.mask-from-values": Misconception(
        "which positions are padding can be read from the padded values (a real token can be 0)",
        ("05_data-collate",)),
    "data.pad-value": Misconception(
        "padding can go before the sequence or use another value than zero", ("05_data-collate",)),
    # batch_sampler buckets
    "data.collate-reorders": Misconception(
        "a collate_fn may reorder the batch (by length, say) and the rows still match their labels",
        ("05_data-collate",)),
    "data.buckets-protocol": Misconception(
        "a batch sampler may yield batches larger than the batch size, or anything but index lists",
        ("05_data-buckets",)),
    "data.buckets-lengths": Misconception(
        "a batch sampler yields the sorted lengths rather than the indices", ("05_data-buckets",)),
    "data.buckets-drops-rest": Misconception(
        "floor(N / B) batches cover every example", ("05_data-buckets",)),
    "data.buckets-mixed-lengths": Misconception(
        "which sequences share a batch does not change the padding", ("05_data-buckets",)),
    "data.sampler-iterator-once": Misconception(
        "a batch sampler's iterator can be made once and serve every epoch", ("05_data-buckets",)),
    "data.buckets-same-every-epoch": Misconception(
        "batches worked out once are shuffled enough for every epoch", ("05_data-buckets",)),
    "data.buckets-sorted-order": Misconception(
        "length-sorted batches can be yielded in sorted order (short ones first every epoch)",
        ("05_data-buckets",)),
    "data.buckets-fixed-batches": Misconception(
        "shuffling the order of fixed batches shuffles enough (a sequence keeps its companions)",
        ("05_data-buckets",)),
    "data.buckets-global-rng": Misconception(
        "random numbers drawn from the global generator repeat with the sampler's own seed",
        ("05_data-buckets",)),
    # workers
    "data.prefetch-per-loader": Misconception(
        "prefetch_factor counts batches per loader, not per worker", ("05_data-quiz-ready",)),
    "data.prefetch-unbounded": Misconception(
        "workers load ahead through the whole epoch", ("05_data-quiz-ready",)),
    "data.prefetch-none": Misconception(
        "workers load only the batch the loop asks for", ("05_data-quiz-ready",)),
    "data.prefetch-multiplied": Misconception(
        "each worker loads prefetch_factor batches for every worker", ("05_data-quiz-ready",)),
    "data.workers-need-cores": Misconception(
        "more workers than cores cannot help, even when the workers wait for their items",
        ("05_data-quiz-four",)),
    "data.workers-own-rng": Misconception(
        "DataLoader workers reseed a random generator that the dataset owns",
        ("05_data-quiz-workers", "05_data-seed-worker")),
    "data.seed-worker-protocol": Misconception(
        "a worker_init_fn can reach the worker's dataset other than through get_worker_info()",
        ("05_data-seed-worker",)),
    "data.seed-from-worker-id": Misconception(
        "the worker id alone seeds a worker (the same numbers every epoch)", ("05_data-seed-worker",)),
    "data.seed-not-reproducible": Misconception(
        "a worker's generator can be seeded from fresh entropy and still repeat with the loader's seed",
        ("05_data-seed-worker",)),
    "data.stream-not-sharded": Misconception(
        "each worker of an iterable dataset yields only its part without being told",
        ("05_data-chunks",)),
    "data.stream-iterator-once": Misconception(
        "an iterable dataset's iterator can be made once and serve every epoch", ("05_data-chunks",)),
    "data.stream-main-process": Misconception(
        "get_worker_info() describes a worker also when num_workers=0", ("05_data-chunks",)),
    "data.shard-strided": Misconception(
        "strided shards are contiguous blocks", ("05_data-chunks",)),
    "data.shard-drops-remainder": Misconception(
        "blocks of N // k records cover every record", ("05_data-chunks",)),
    "data.shard-unbalanced": Misconception(
        "blocks of ceil(N / k) records share the work evenly", ("05_data-chunks",)),
    # DistributedSampler
    "data.shard-not-partition": Misconception(
        "workers' blocks may overlap, skip records or come out of order", ("05_data-chunks",)),
    "data.dist-floor": Misconception(
        "DistributedSampler gives each rank floor(N / world_size) indices", ("05_data-quiz-ranks",)),
    "data.dist-everything": Misconception(
        "every rank sees the whole dataset in an epoch", ("05_data-quiz-ranks",)),
    "data.dist-rule": Misconception(
        "a rank's share follows some rule other than strided and padded", ("05_data-shard",)),
    "data.gather-rank-order": Misconception(
        "the ranks' result lists, one after the other, are in dataset order (they interleave)",
        ("05_data-shard",)),
    "data.gather-keeps-padding": Misconception(
        "the indices DistributedSampler repeats to pad are examples of their own", ("05_data-shard",)),
    "data.gather-by-value": Misconception(
        "the padding's repeats can be found by comparing values (predictions repeat)",
        ("05_data-shard",)),
    # the loader in a training loop
    "data.fit-protocol": Misconception(
        "fit_epoch need not return the epoch's loss", ("05_data-fit-epoch",)),
    "data.fit-returns-tensor": Misconception(
        "an epoch's loss can be returned as a tensor (which holds its graph)", ("05_data-fit-epoch",)),
    "data.iter-every-step": Misconception(
        "next(iter(loader)) in the loop walks through the epoch", ("05_data-fit-epoch",)),
    "data.fit-train-mode": Misconception(
        "a model trains in training mode whatever mode it was handed over in", ("05_data-fit-epoch",)),
    "data.fit-steps": Misconception(
        "the five steps can be skipped or reordered for some batches", ("05_data-fit-epoch",)),
    "data.mean-of-batch-means": Misconception(
        "the mean of the batch losses is the mean loss per example (a ragged last batch counts "
        "as much as a full one)", ("05_data-fit-epoch",)),
    "data.mean-over-dataset": Misconception(
        "every epoch trains on len(loader.dataset) examples (drop_last skips some)",
        ("05_data-fit-epoch",)),
}
