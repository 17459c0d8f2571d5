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
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
         "    lengths = torch.tensor([len(row) for row in padded])\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "after padding", "data.lengths-after-padding"),
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
         "    lengths = (padded != 0).sum(dim=1)\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "non-zero tokens", "data.lengths-count-nonzero"),
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch])\n"
         "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "batch_first", "data.pad-time-first"),
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True, padding_side='left')\n"
         "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "followed by zeros", "data.pad-value"),
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
         "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
         "    return padded, lengths, [y for _, y in batch]\n",
         "three results", "data.collate-protocol"),
        ("def pad_collate(batch):\n"
         "    batch = sorted(batch, key=lambda example: len(example[0]), reverse=True)\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
         "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "order the batch gives them", "data.collate-reorders"),
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
         "    lengths = torch.tensor([len(s) for s, _ in batch], dtype=torch.int32)\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "torch's dtype for counts", "data.collate-protocol"),
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
         "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, labels, lengths\n",
         "are swapped", "data.collate-protocol"),
    ],
    "05_data-buckets": [
        ("def bucket_batches(lengths, batch_size):\n"
         "    values = sorted(int(v) for v in lengths)\n"
         "    return [values[k:k + batch_size] for k in range(0, len(values), batch_size)]\n",
         "lengths themselves", "data.buckets-lengths"),
        ("def bucket_batches(lengths, batch_size):\n"
         "    order = sorted(range(len(lengths)), key=lambda i: int(lengths[i]))\n"
         "    return [order[k * batch_size:(k + 1) * batch_size] for k in range(len(order) // batch_size)]\n",
         "of the 10 indices", "data.buckets-drops-rest"),
        ("def bucket_batches(lengths, batch_size):\n"
         "    order = list(range(len(lengths)))\n"
         "    return [order[k:k + batch_size] for k in range(0, len(order), batch_size)]\n",
         "short and long sequences share batches", "data.buckets-mixed-lengths"),
        ("def bucket_batches(lengths, batch_size):\n"
         "    return [sorted(range(len(lengths)), key=lambda i: int(lengths[i]))]\n",
         "every batch holds batch_size", "data.buckets-protocol"),
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
    ],
    "05_data-quiz-four": [("quiz_four_faster = False", "needs no core", "data.workers-need-cores"),
                          ('quiz_four_faster = "yes"', "True or False", "data.quiz-bool")],
    "05_data-quiz-ranks": [("quiz_per_rank = 16666", "pads the index list", "data.dist-floor"),
                           ("quiz_per_rank = 50000", "not the whole dataset", "data.dist-everything")],
    "05_data-shard": [
        ("def rank_indices(n, world_size, rank):\n"
         "    return list(range(rank, n, world_size))\n",
         "without padding", "data.dist-no-padding"),
        ("def rank_indices(n, world_size, rank):\n"
         "    per = math.ceil(n / world_size)\n"
         "    return list(range(rank * per, min(n, (rank + 1) * per)))\n",
         "contiguous chunk", "data.dist-contiguous"),
        ("def rank_indices(n, world_size, rank):\n"
         "    per = math.ceil(n / world_size)\n"
         "    padded = list(range(n)) + list(range(per * world_size - n))\n"
         "    return padded[rank::world_size]\n",
         "disagrees with DistributedSampler", "data.dist-rule"),
        ("def rank_indices(n, world_size, rank):\n"
         "    return list(DistributedSampler(range(n), num_replicas=world_size, rank=rank, shuffle=False))\n",
         "without it", "data.dist-uses-sampler"),
    ],
    "05_data-fit-epoch": [
        ("def fit_epoch(model, loader, optimizer, loss_fn):\n"
         "    model.train()\n"
         "    losses = []\n"
         "    for inputs, targets in loader:\n"
         + FIVE_STEPS +
         "        losses.append(loss.item())\n"
         "    return sum(losses) / len(losses)\n",
         "mean of the three batch losses", "data.mean-of-batch-means"),
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
        "    longest = max(len(s) for s, _ in batch)\n"
        "    padded = torch.zeros(len(batch), longest, dtype=torch.int64)\n"
        "    for row, (s, _) in enumerate(batch):\n"
        "        padded[row, :len(s)] = s\n"
        "    lengths = torch.tensor([len(s) for s, _ in batch], dtype=torch.int64)\n"
        "    labels = torch.tensor([y for _, y in batch], dtype=torch.int64)\n"
        "    return padded, lengths, labels\n"),
    "05_data-buckets": (
        "def bucket_batches(lengths, batch_size):\n"
        "    order = torch.argsort(torch.as_tensor(lengths), descending=True, stable=True)\n"
        "    return [chunk.tolist() for chunk in torch.split(order, batch_size)]\n"),
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
        "def rank_indices(n, world_size, rank):\n"
        "    per_rank = math.ceil(n / world_size)\n"
        "    return [(rank + k * world_size) % n for k in range(per_rank)]\n"),
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
