"""Plausible wrong answers (code, a phrase their test output must contain, the misconception
id) and other correct answers for notebook 05; see graders/submissions.py. Every class of
wrong answer its tests must catch is one WRONG entry."""

# the lines several answers share (each answer below is one of these plus its own lines)
STREAM = ("class ChunkedStream(IterableDataset):\n"
          "    def __init__(self, records):\n"
          "        self.records = records\n"
          "    def __iter__(self):\n")
SHARDED_STREAM = STREAM + ("        info = get_worker_info()\n"
                           "        if info is None:\n"
                           "            return iter(self.records)\n")
FIT_LOOP = ("def fit_epoch(model, loader, optimizer, loss_fn):\n"
            "    model.train()\n"
            "    total, count = 0.0, 0\n"
            "    for inputs, targets in loader:\n")
FIVE_STEPS = ("        optimizer.zero_grad()\n"
              "        loss = loss_fn(model(inputs), targets)\n"
              "        loss.backward()\n"
              "        optimizer.step()\n")
SEEDED_GROUPS = ("def group_split(dataset, groups, n_val_groups, seed):\n"
                 "    names = sorted(set(int(g) for g in groups))\n"
                 "    order = torch.randperm(len(names), generator=torch.Generator().manual_seed(seed))\n"
                 "    chosen = {names[k] for k in order[:n_val_groups].tolist()}\n"
                 "    val = [i for i, g in enumerate(groups) if int(g) in chosen]\n")

COLLATE = ("def pad_collate(batch):\n"
           "    lengths = torch.tensor([len(tokens) for tokens, _ in batch])\n"
           "    width = -(-int(lengths.max()) // 8) * 8\n"
           "    padded = torch.zeros(len(batch), width, dtype=torch.int64)\n"
           "    for row, (tokens, _) in enumerate(batch):\n"
           "        padded[row, :len(tokens)] = tokens\n"
           "    mask = torch.arange(width) < lengths[:, None]\n"
           "    labels = torch.tensor([label for _, label in batch], dtype=torch.int64)\n"
           "    return padded, mask, labels\n")
BUCKETS = ("class BucketSampler(Sampler):\n"
           "    def __init__(self, lengths, batch_size, generator):\n"
           "        self.lengths = torch.as_tensor(lengths)\n"
           "        self.batch_size, self.generator = batch_size, generator\n"
           "    def __len__(self):\n"
           "        return math.ceil(len(self.lengths) / self.batch_size)\n"
           "    def __iter__(self):\n"
           "        order = torch.randperm(len(self.lengths), generator=self.generator)\n"
           "        batches = []\n"
           "        for bucket in order.split(8 * self.batch_size):\n"
           "            by_length = bucket[torch.argsort(self.lengths[bucket], stable=True)]\n"
           "            batches += [batch.tolist() for batch in by_length.split(self.batch_size)]\n"
           "        for k in torch.randperm(len(batches), generator=self.generator).tolist():\n"
           "            yield batches[k]\n")

WINDOWS = ("class Windows(Dataset):\n"
           "    def __init__(self, series, width):\n"
           "        self.series, self.width = series, width\n")

WRONG = {
    "05_data-dataset": [
        (WINDOWS +
         "    def __len__(self):\n"
         "        return len(self.series) - self.width\n"
         "    def __getitem__(self, i):\n"
         "        return (torch.from_numpy(self.series[i:i + self.width]),\n"
         "                torch.as_tensor(self.series[i + self.width]))\n",
         "float64", "data.numpy-float64"),
        (WINDOWS +
         "    def __len__(self):\n"
         "        return len(self.series) - self.width\n"
         "    def __getitem__(self, i):\n"
         "        return (torch.as_tensor(self.series[i:i + self.width], dtype=torch.float32),\n"
         "                float(self.series[i + self.width]))\n",
         "batches those as float64", "data.numpy-float64"),
        (WINDOWS +
         "    def __len__(self):\n"
         "        return len(self.series)\n"
         "    def __getitem__(self, i):\n"
         "        return (torch.as_tensor(self.series[i:i + self.width], dtype=torch.float32),\n"
         "                torch.as_tensor(self.series[min(i + self.width, len(self.series) - 1)],\n"
         "                                dtype=torch.float32))\n",
         "the number of readings", "data.windows-count"),
        (WINDOWS +
         "    def __len__(self):\n"
         "        return len(self.series) - self.width + 1\n"
         "    def __getitem__(self, i):\n"
         "        return (torch.as_tensor(self.series[i:i + self.width], dtype=torch.float32),\n"
         "                torch.as_tensor(self.series[i + self.width - 1], dtype=torch.float32))\n",
         "is no example", "data.windows-count"),
        (WINDOWS +
         "    def __len__(self):\n"
         "        return len(self.series) - self.width\n"
         "    def __getitem__(self, i):\n"
         "        return (torch.as_tensor(self.series[i:i + self.width], dtype=torch.float32),\n"
         "                torch.as_tensor(self.series[i + self.width - 1], dtype=torch.float32))\n",
         "own last reading", "data.window-target"),
        (WINDOWS +
         "    def __len__(self):\n"
         "        return len(self.series) - self.width\n"
         "    def __getitem__(self, i):\n"
         "        return (torch.as_tensor(self.series[i + 1:i + 1 + self.width], dtype=torch.float32),\n"
         "                torch.as_tensor(self.series[i + self.width], dtype=torch.float32))\n",
         "starting with reading 4", "data.dataset-protocol"),
    ],
    "05_data-group-split": [
        ("def group_split(dataset, groups, n_val_groups, seed):\n"
         "    n_val = len(dataset) * n_val_groups // len(set(int(g) for g in groups))\n"
         "    return random_split(dataset, [len(dataset) - n_val, n_val],\n"
         "                        generator=torch.Generator().manual_seed(seed))\n",
         "in train and in val", "data.split-leaks-groups"),
        ("def group_split(dataset, groups, n_val_groups, seed):\n"
         "    names = sorted(set(int(g) for g in groups))\n"
         "    chosen = {names[k] for k in torch.randperm(len(names))[:n_val_groups].tolist()}\n"
         "    val = [i for i, g in enumerate(groups) if int(g) in chosen]\n"
         "    train = [i for i, g in enumerate(groups) if int(g) not in chosen]\n"
         "    return Subset(dataset, train), Subset(dataset, val)\n",
         "same seed chose different groups", "data.split-unseeded"),
        ("def group_split(dataset, groups, n_val_groups, seed):\n"
         "    chosen = set(sorted(set(int(g) for g in groups))[:n_val_groups])\n"
         "    val = [i for i, g in enumerate(groups) if int(g) in chosen]\n"
         "    train = [i for i, g in enumerate(groups) if int(g) not in chosen]\n"
         "    return Subset(dataset, train), Subset(dataset, val)\n",
         "choose the groups at random", "data.split-not-random"),
        ("def group_split(dataset, groups, n_val_groups, seed):\n"
         "    names = sorted(set(int(g) for g in groups))\n"
         "    order = torch.randperm(len(names), generator=torch.Generator().manual_seed(seed))\n"
         "    chosen = {names[k] for k in order[:n_val_groups * len(names)].tolist()}\n"
         "    val = [i for i, g in enumerate(groups) if int(g) in chosen]\n"
         "    train = [i for i, g in enumerate(groups) if int(g) not in chosen]\n"
         "    return Subset(dataset, train), Subset(dataset, val)\n",
         "every example of one group", "data.split-groups-vs-examples"),
        (SEEDED_GROUPS +
         "    return Subset(dataset, list(range(len(dataset)))), Subset(dataset, val)\n",
         "exactly once", "data.split-protocol"),
        (SEEDED_GROUPS +
         "    train = [i for i, g in enumerate(groups) if int(g) not in chosen]\n"
         "    return Subset(dataset, val), Subset(dataset, train)\n",
         "in that order", "data.split-protocol"),
        ("def group_split(dataset, groups, n_val_groups, seed):\n"
         "    names = sorted(set(groups))\n"
         "    order = torch.randperm(len(names), generator=torch.Generator().manual_seed(seed))\n"
         "    chosen = {names[k] for k in order[:n_val_groups].tolist()}\n"
         "    val = [i for i, g in enumerate(groups) if g in chosen]\n"
         "    train = [i for i, g in enumerate(groups) if g not in chosen]\n"
         "    return Subset(dataset, train), Subset(dataset, val)\n",
         "0-d tensors", "data.split-tensor-groups"),
    ],
    "05_data-quiz-dropped": [("quiz_dropped = 56", "need to be full", "data.dropped-is-missing"),
                             ("quiz_dropped = 0", "neither pads", "data.drop-last-pads"),
                             ("quiz_dropped = 10", "number of full batches", "data.dropped-counts-batches"),
                             ("quiz_dropped = 960", "examples are seen", "data.dropped-counts-kept"),
                             ("quiz_dropped = 40.5", "whole number", "data.quiz-number")],
    "05_data-quiz-unbatched": [
        ("quiz_unbatched_shape = (1, 3)", "That is batch_size=1", "data.unbatched-adds-dim"),
        ("quiz_unbatched_shape = (6, 3)", "one batch of everything", "data.unbatched-whole"),
        ("quiz_unbatched_shape = ()", "does not take items apart", "data.unbatched-scalar"),
        ("quiz_unbatched_shape = 3", "a tuple of ints", "data.quiz-shape"),
    ],
    "05_data-balance": [
        ("def tempered_weights(labels, alpha):\n"
         "    counts = torch.bincount(labels).double()\n"
         "    return counts ** alpha / counts\n",
         "one per class", "data.weights-per-class"),
        ("def tempered_weights(labels, alpha):\n"
         "    return torch.bincount(labels).double()[labels] ** alpha\n",
         "total of its examples' weights", "data.weights-class-total"),
        ("def tempered_weights(labels, alpha):\n"
         "    return 1.0 / torch.bincount(labels).double()[labels]\n",
         "balance the classes exactly", "data.weights-alpha-ignored"),
        ("def tempered_weights(labels, alpha):\n"
         "    return torch.ones(len(labels))\n",
         "as often as they occur", "data.weights-uniform"),
        ("def tempered_weights(labels, alpha):\n"
         "    return torch.bincount(labels).double()[labels] ** -alpha\n",
         "the power goes the wrong way", "data.weights-inverted"),
        ("def tempered_weights(labels, alpha):\n"
         "    counts = torch.bincount(labels).double()\n"
         "    return counts[labels] ** (alpha - 2)\n",
         "in proportion to n_c ** alpha", "data.weights-not-proportional"),
        ("def tempered_weights(labels, alpha):\n"
         "    classes, counts = labels.unique(return_counts=True)\n"
         "    return counts[labels].double() ** (alpha - 1)\n",
         "label's value", "data.weights-class-ids"),
        ("def tempered_weights(labels, alpha):\n"
         "    return torch.bincount(labels)[labels] ** (alpha - 1)\n",
         "negative power", "data.weights-integer-power"),
    ],
    "05_data-collate": [
        (COLLATE.replace("-(-int(lengths.max()) // 8) * 8", "int(lengths.max())"),
         "the longest length itself", "data.pad-not-rounded"),
        (COLLATE.replace("-(-int(lengths.max()) // 8) * 8", "(int(lengths.max()) // 8 + 1) * 8"),
         "already a multiple of 8", "data.pad-round-again"),
        (COLLATE.replace("torch.zeros(len(batch), width, dtype=torch.int64)", "torch.zeros(len(batch), width)"),
         "takes torch's default", "data.pad-default-dtype"),
        (COLLATE.replace("mask = torch.arange(width) < lengths[:, None]",
                         "mask = (torch.arange(width) < lengths[:, None]).float()"),
         "adds a float mask", "data.mask-float"),
        (COLLATE.replace("mask = torch.arange(width) < lengths[:, None]", "mask = padded != 0"),
         "cannot tell a token 0", "data.mask-from-values"),
        (COLLATE.replace("return padded, mask, labels", "return padded.T, mask, labels"),
         "puts time first", "data.pad-time-first"),
        (COLLATE.replace("    lengths = torch.tensor(",
                         "    batch = sorted(batch, key=lambda e: -len(e[0]))\n    lengths = torch.tensor("),
         "sorted by length", "data.collate-reorders"),
        (COLLATE.replace("padded[row, :len(tokens)] = tokens", "padded[row, width - len(tokens):] = tokens"),
         "from the first column on", "data.pad-value"),
        (COLLATE.replace("torch.tensor([label for _, label in batch], dtype=torch.int64)",
                         "[label for _, label in batch]"),
         "three tensors", "data.collate-protocol"),
    ],
    "05_data-buckets": [
        (BUCKETS.replace("    def __iter__(self):\n", "    def __iter__(self):\n"
                         "        if not hasattr(self, 'once'):\n"
                         "            self.once = self.epoch()\n"
                         "        return self.once\n"
                         "    def epoch(self):\n"),
         "second epoch yielded no batch", "data.sampler-iterator-once"),
        (BUCKETS.replace("    def __iter__(self):\n", "    def __iter__(self):\n"
                         "        if not hasattr(self, 'plan'):\n"
                         "            self.plan = list(self.epoch())\n"
                         "        return iter(self.plan)\n"
                         "    def epoch(self):\n"),
         "same batches in the same order", "data.buckets-same-every-epoch"),
        (BUCKETS.replace("order.split(8 * self.batch_size)", "[order]")
                .replace("torch.randperm(len(batches), generator=self.generator).tolist()", "range(len(batches))"),
         "sorted by length", "data.buckets-sorted-order"),
        (BUCKETS.replace("torch.randperm(len(self.lengths), generator=self.generator)",
                         "torch.arange(len(self.lengths))").replace("order.split(8 * self.batch_size)", "[order]"),
         "only in another order", "data.buckets-fixed-batches"),
        (BUCKETS.replace(", generator=self.generator", ""),
         "seeded alike yielded different", "data.buckets-global-rng"),
        (BUCKETS.replace("for batch in by_length.split(self.batch_size)]",
                         "for batch in by_length.split(self.batch_size) if len(batch) == self.batch_size]"),
         "every index, once", "data.buckets-drops-rest"),
        (BUCKETS.replace("bucket[torch.argsort(self.lengths[bucket], stable=True)]", "bucket"),
         "short and long sequences share batches", "data.buckets-mixed-lengths"),
        (BUCKETS.replace("yield batches[k]", "yield [int(self.lengths[i]) for i in batches[k]]"),
         "lengths themselves", "data.buckets-lengths"),
        (BUCKETS.replace("math.ceil(len(self.lengths) / self.batch_size)", "len(self.lengths) // self.batch_size"),
         "len(sampler)", "data.buckets-protocol"),
    ],
    "05_data-quiz-ready": [
        ("quiz_ready = 2", "counts per worker", "data.prefetch-per-loader"),
        ("quiz_ready = 6", "whole epoch", "data.prefetch-unbounded"),
        ("quiz_ready = 1", "requests batches ahead", "data.prefetch-none"),
        ("quiz_ready = 8", "multiply once", "data.prefetch-multiplied"),
    ],
    "05_data-quiz-workers": [("quiz_same_noise = False", "same state", "data.workers-own-rng"),
                             ('quiz_same_noise = "yes"', "True or False", "data.quiz-bool")],
    "05_data-seed-worker": [
        ("def seed_worker(worker_id):\n"
         "    np.random.seed(get_worker_info().seed % 2**32)\n",
         "still draw the same", "data.workers-own-rng"),
        ("def seed_worker(worker_id):\n"
         "    get_worker_info().dataset.rng = np.random.default_rng(worker_id)\n",
         "another worker seed", "data.seed-from-worker-id"),
        ("def seed_worker(worker_id):\n"
         "    get_worker_info().dataset.rng = np.random.default_rng()\n",
         "gave different noise", "data.seed-not-reproducible"),
        ("def seed_worker(worker_id):\n"
         "    dataset.rng = np.random.default_rng(get_worker_info().seed)\n",
         "get_worker_info() says which", "data.seed-worker-protocol"),
    ],
    "05_data-chunks": [
        (STREAM +
         "        return iter(self.records)\n",
         "yields every record", "data.stream-not-sharded"),
        (SHARDED_STREAM +
         "        return iter(self.records[info.id::info.num_workers])\n",
         "strided", "data.shard-strided"),
        (SHARDED_STREAM +
         "        per = len(self.records) // info.num_workers\n"
         "        return iter(self.records[info.id * per:(info.id + 1) * per])\n",
         "lose the rest", "data.shard-drops-remainder"),
        (SHARDED_STREAM +
         "        per = math.ceil(len(self.records) / info.num_workers)\n"
         "        return iter(self.records[info.id * per:(info.id + 1) * per])\n",
         "differ by more than one", "data.shard-unbalanced"),
        (STREAM +
         "        info = get_worker_info()\n"
         "        n, k, w = len(self.records), info.num_workers, info.id\n"
         "        return iter(self.records[w * n // k:(w + 1) * n // k])\n",
         "is None in the main process", "data.stream-main-process"),
        (SHARDED_STREAM +
         "        n, k, w = len(self.records), info.num_workers, info.id\n"
         "        yield from self.records[w * n // k:(w + 1) * n // k]\n",
         "yielded nothing", "data.stream-main-process"),
        (SHARDED_STREAM +
         "        n, k, w = len(self.records), info.num_workers, info.id\n"
         "        per = n // k\n"
         "        return iter(self.records[w * per:n if w == k - 1 else (w + 1) * per])\n",
         "3 records, 5 workers", "data.shard-unbalanced"),
        (SHARDED_STREAM +
         "        n, k, w = len(self.records), info.num_workers, info.id\n"
         "        return iter(self.records[w * n // k:(w + 1) * n // k + 1])\n",
         "no record twice", "data.shard-not-partition"),
        # one iterator, made on the first call and handed out again: the next epoch is empty
        (STREAM +
         "        if not hasattr(self, 'stream'):\n"
         "            info = get_worker_info()\n"
         "            n, k, w = len(self.records), *((1, 0) if info is None else (info.num_workers, info.id))\n"
         "            self.stream = iter(self.records[w * n // k:(w + 1) * n // k])\n"
         "        return self.stream\n",
         "used up after one epoch", "data.stream-iterator-once"),
    ],
    "05_data-quiz-four": [("quiz_four_faster = False", "needs no core", "data.workers-need-cores"),
                          ('quiz_four_faster = "yes"', "True or False", "data.quiz-bool")],
    "05_data-quiz-ranks": [("quiz_per_rank = 16666", "pads the index list", "data.dist-floor"),
                           ("quiz_per_rank = 50000", "not the whole dataset", "data.dist-everything")],
    "05_data-shard": [
        ("def gather_in_order(per_rank, n):\n"
         "    return sum(per_rank, [])[:n]\n",
         "one after the other", "data.gather-rank-order"),
        ("def gather_in_order(per_rank, n):\n"
         "    return [values[k] for k in range(len(per_rank[0])) for values in per_rank]\n",
         "not examples of their own", "data.gather-keeps-padding"),
        ("def gather_in_order(per_rank, n):\n"
         "    interleaved = [values[k] for k in range(len(per_rank[0])) for values in per_rank]\n"
         "    return list(dict.fromkeys(interleaved))\n",
         "cannot be found by comparing values", "data.gather-by-value"),
        ("def gather_in_order(per_rank, n):\n"
         "    interleaved = [values[k] for k in range(len(per_rank[0])) for values in per_rank]\n"
         "    return interleaved[len(interleaved) - n:]\n",
         "as its (i // world_size)-th", "data.dist-rule"),
    ],
    "05_data-fit-epoch": [
        ("def fit_epoch(model, loader, optimizer, loss_fn):\n"
         "    model.train()\n"
         "    losses = []\n"
         "    for inputs, targets in loader:\n"
         + FIVE_STEPS +
         "        losses.append(loss.item())\n"
         "    return sum(losses) / len(losses)\n",
         "mean of the 3 batch losses", "data.mean-of-batch-means"),
        ("def fit_epoch(model, loader, optimizer, loss_fn):\n"
         "    model.train()\n"
         "    total, count = 0.0, 0\n"
         "    for _ in range(len(loader)):\n"
         "        inputs, targets = next(iter(loader))\n"
         + FIVE_STEPS +
         "        total += loss.item() * len(targets)\n"
         "        count += len(targets)\n"
         "    return total / count\n",
         "next(iter(loader))", "data.iter-every-step"),
        ("def fit_epoch(model, loader, optimizer, loss_fn):\n"
         "    total, count = 0.0, 0\n"
         "    for inputs, targets in loader:\n"
         + FIVE_STEPS +
         "        total += loss.item() * len(targets)\n"
         "        count += len(targets)\n"
         "    return total / count\n",
         "training mode", "data.fit-train-mode"),
        (FIT_LOOP + FIVE_STEPS +
         "        total = total + loss * len(targets)\n"
         "        count += len(targets)\n"
         "    return total / count\n",
         "Python float", "data.fit-returns-tensor"),
        (FIT_LOOP +
         "        loss = loss_fn(model(inputs), targets)\n"
         "        loss.backward()\n"
         "        optimizer.step()\n"
         "        total += loss.item() * len(targets)\n"
         "        count += len(targets)\n"
         "    return total / count\n",
         "still held the previous batch's", "data.fit-steps"),
        ("def fit_epoch(model, loader, optimizer, loss_fn):\n"
         "    model.train()\n"
         "    for inputs, targets in loader:\n"
         "        optimizer.zero_grad()\n"
         "        loss_fn(model(inputs), targets).backward()\n"
         "        optimizer.step()\n",
         "mean loss, a Python float", "data.fit-protocol"),
        ("def fit_epoch(model, loader, optimizer, loss_fn):\n"
         "    model.train()\n"
         "    total = 0.0\n"
         "    for inputs, targets in loader:\n"
         + FIVE_STEPS +
         "        total += loss.item() * len(targets)\n"
         "    return total / len(loader.dataset)\n",
         "trained on 20 examples", "data.mean-over-dataset"),
        (FIT_LOOP +
         "        optimizer.zero_grad()\n"
         "        loss = loss_fn(model(inputs), targets)\n"
         "        optimizer.step()\n"
         "        loss.backward()\n"
         "        total += loss.item() * len(targets)\n"
         "        count += len(targets)\n"
         "    return total / count\n",
         "found no gradient", "data.fit-steps"),
        (FIT_LOOP + FIVE_STEPS +
         "        total += loss.item() * loader.batch_size\n"
         "        count += len(targets)\n"
         "    return total / count\n",
         "Weight each batch's loss", "data.mean-of-batch-means"),
    ],
}

ALTERNATIVE = {
    "05_data-dataset": (
        "class Windows(Dataset):\n"
        "    def __init__(self, series, width):\n"
        "        self.x = torch.tensor(series, dtype=torch.float32)\n"
        "        self.width = width\n"
        "    def __len__(self):\n"
        "        return max(0, self.x.shape[0] - self.width)\n"
        "    def __getitem__(self, i):\n"
        "        return self.x[i:i + self.width], self.x[i + self.width]\n"),
    "05_data-group-split": (
        "import random\n"
        "def group_split(dataset, groups, n_val_groups, seed):\n"
        "    groups = torch.as_tensor(groups)\n"
        "    chosen = random.Random(seed).sample(sorted(groups.unique().tolist()), n_val_groups)\n"
        "    in_val = torch.isin(groups, torch.tensor(chosen))\n"
        "    return (Subset(dataset, torch.nonzero(~in_val).flatten().tolist()),\n"
        "            Subset(dataset, torch.nonzero(in_val).flatten().tolist()))\n"),
    "05_data-quiz-dropped": "quiz_dropped = 1000 % 96",
    "05_data-quiz-unbatched": "quiz_unbatched_shape = torch.Size([3])",
    "05_data-balance": (
        "def tempered_weights(labels, alpha):\n"
        "    sizes = {c: int((labels == c).sum()) for c in labels.unique().tolist()}\n"
        "    weights = torch.tensor([sizes[c] ** alpha / sizes[c] for c in labels.tolist()])\n"
        "    return weights / weights.sum()\n"),
    "05_data-collate": (
        "def pad_collate(batch):\n"
        "    sequences = [tokens for tokens, _ in batch]\n"
        "    padded = pad_sequence(sequences, batch_first=True)\n"
        "    width = math.ceil(padded.shape[1] / 8) * 8\n"
        "    padded = torch.cat([padded, padded.new_zeros(len(batch), width - padded.shape[1])], dim=1)\n"
        "    mask = torch.zeros(padded.shape, dtype=torch.bool)\n"
        "    for row, tokens in enumerate(sequences):\n"
        "        mask[row, :len(tokens)] = True\n"
        "    return padded, mask, torch.tensor([label for _, label in batch])\n"),
    "05_data-buckets": (
        "class BucketSampler(Sampler):\n"
        "    def __init__(self, lengths, batch_size, generator):\n"
        "        self.lengths = torch.as_tensor(lengths)\n"
        "        self.batch_size, self.generator = batch_size, generator\n"
        "    def __len__(self):\n"
        "        return (len(self.lengths) + self.batch_size - 1) // self.batch_size\n"
        "    def __iter__(self):\n"
        "        size = self.batch_size\n"
        "        shuffled = torch.randperm(len(self.lengths), generator=self.generator).tolist()\n"
        "        batches = []\n"
        "        for start in range(0, len(shuffled), 8 * size):\n"
        "            bucket = sorted(shuffled[start:start + 8 * size], key=lambda i: int(self.lengths[i]))\n"
        "            batches.extend(bucket[k:k + size] for k in range(0, len(bucket), size))\n"
        "        order = torch.randperm(len(batches), generator=self.generator).tolist()\n"
        "        return iter([batches[k] for k in order])\n"),
    "05_data-quiz-ready": "quiz_ready = 2 * 2",
    "05_data-quiz-workers": "quiz_same_noise = not False",
    "05_data-seed-worker": (
        "def seed_worker(worker_id):\n"
        "    info = torch.utils.data.get_worker_info()\n"
        "    info.dataset.rng = np.random.default_rng([worker_id, torch.initial_seed()])\n"),
    "05_data-chunks": (
        "class ChunkedStream(IterableDataset):\n"
        "    def __init__(self, records):\n"
        "        self.records = records\n"
        "    def __iter__(self):\n"
        "        info = get_worker_info()\n"
        "        k, w = (1, 0) if info is None else (info.num_workers, info.id)\n"
        "        base, extra = divmod(len(self.records), k)\n"
        "        start = w * base + min(w, extra)\n"
        "        yield from self.records[start:start + base + (1 if w < extra else 0)]\n"),
    "05_data-quiz-four": "quiz_four_faster = 4 > 2",
    "05_data-quiz-ranks": "quiz_per_rank = -(-50_000 // 3)",
    "05_data-shard": (
        "def gather_in_order(per_rank, n):\n"
        "    world = len(per_rank)\n"
        "    out = [None] * n\n"
        "    for rank, values in enumerate(per_rank):\n"
        "        for step, value in enumerate(values):\n"
        "            if rank + step * world < n:\n"
        "                out[rank + step * world] = value\n"
        "    return out\n"),
    "05_data-fit-epoch": (
        "def fit_epoch(model, loader, optimizer, loss_fn):\n"
        "    model.train(True)\n"
        "    total = torch.zeros(())\n"
        "    seen = 0\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad(set_to_none=True)\n"
        "        out = model(x)\n"
        "        loss = loss_fn(out, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        total += loss.detach() * y.shape[0]\n"
        "        seen += y.shape[0]\n"
        "    return float(total / seen)\n"),
}
