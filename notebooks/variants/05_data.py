"""Plausible wrong answers (code, a phrase their test output must contain, the misconception
id) and other correct answers for notebook 05; see graders/submissions.py."""

WRONG = {
    "05_data-dataset": [
        ("class ArrayPairs(Dataset):\n"
         "    def __init__(self, features, labels):\n"
         "        self.features, self.labels = features, labels\n"
         "    def __len__(self):\n"
         "        return len(self.features)\n"
         "    def __getitem__(self, i):\n"
         "        return torch.from_numpy(self.features[i]), int(self.labels[i])\n",
         "float64", "data.numpy-float64"),
        ("class ArrayPairs(Dataset):\n"
         "    def __init__(self, features, labels):\n"
         "        self.features, self.labels = features, labels\n"
         "    def __len__(self):\n"
         "        return self.features.shape[1]\n"
         "    def __getitem__(self, i):\n"
         "        return torch.tensor(self.features[i], dtype=torch.float32), int(self.labels[i])\n",
         "number of examples", "data.len-is-features"),
    ],
    "05_data-split": [
        ("def split_80_20(dataset, seed):\n"
         "    n_train = int(0.8 * len(dataset))\n"
         "    return random_split(dataset, [n_train, len(dataset) - n_train])\n",
         "generator", "data.split-unseeded"),
        ("def split_80_20(dataset, seed):\n"
         "    n_val = int(0.8 * len(dataset))\n"
         "    return random_split(dataset, [len(dataset) - n_val, n_val],\n"
         "                        generator=torch.Generator().manual_seed(seed))\n",
         "swapped", "data.split-sizes"),
    ],
    "05_data-quiz-dropped": [("quiz_dropped = 56", "lacks", "data.dropped-is-missing"),
                             ("quiz_dropped = 0", "neither pads", "data.drop-last-pads")],
    "05_data-steps": [
        ("def steps_per_epoch(n, batch_size, drop_last=False):\n"
         "    return n // batch_size\n", "round up", "data.floor-steps"),
        ("def steps_per_epoch(n, batch_size, drop_last=False):\n"
         "    return math.ceil(n / batch_size)\n", "round down", "data.drop-last-ignored"),
    ],
    "05_data-balance": [
        ("def balancing_weights(labels):\n"
         "    return torch.bincount(labels)[labels].double()\n",
         "majority class", "data.weights-inverted"),
        ("def balancing_weights(labels):\n"
         "    return 1.0 / torch.bincount(labels).double()\n",
         "one weight per class", "data.weights-per-class"),
    ],
    "05_data-collate": [
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
         "    lengths = torch.tensor([len(row) for row in padded])\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "after padding", "data.lengths-after-padding"),
        ("def pad_collate(batch):\n"
         "    padded = pad_sequence([s for s, _ in batch])\n"
         "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
         "    labels = torch.tensor([y for _, y in batch])\n"
         "    return padded, lengths, labels\n",
         "batch_first", "data.pad-time-first"),
    ],
    "05_data-quiz-workers": [("quiz_same_noise = False", "same state", "data.workers-own-rng")],
    "05_data-quiz-ranks": [("quiz_per_rank = 3", "pads the list", "data.dist-floor")],
    "05_data-shard": [
        ("def rank_indices(n, world_size, rank):\n"
         "    return list(range(rank, n, world_size))\n",
         "Without padding", "data.dist-no-padding"),
        ("def rank_indices(n, world_size, rank):\n"
         "    per = math.ceil(n / world_size)\n"
         "    return list(range(rank * per, min(n, (rank + 1) * per)))\n",
         "contiguous chunk", "data.dist-contiguous"),
    ],
}

ALTERNATIVE = {
    "05_data-dataset": (
        "class ArrayPairs(Dataset):\n"
        "    def __init__(self, features, labels):\n"
        "        self.x = torch.tensor(features, dtype=torch.float32)\n"
        "        self.y = torch.tensor(labels, dtype=torch.int64)\n"
        "    def __len__(self):\n"
        "        return self.x.shape[0]\n"
        "    def __getitem__(self, i):\n"
        "        return self.x[i], self.y[i]\n"),
    "05_data-split": (
        "def split_80_20(dataset, seed):\n"
        "    order = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(seed)).tolist()\n"
        "    cut = int(0.8 * len(dataset))\n"
        "    return Subset(dataset, order[:cut]), Subset(dataset, order[cut:])\n"),
    "05_data-quiz-dropped": "quiz_dropped = 1000 % 96",
    "05_data-steps": (
        "def steps_per_epoch(n, batch_size, drop_last=False):\n"
        "    if drop_last:\n"
        "        return n // batch_size\n"
        "    return (n + batch_size - 1) // batch_size\n"),
    "05_data-balance": (
        "def balancing_weights(labels):\n"
        "    sizes = {c: int((labels == c).sum()) for c in labels.unique().tolist()}\n"
        "    weights = torch.tensor([1.0 / sizes[c] for c in labels.tolist()])\n"
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
    "05_data-quiz-workers": "quiz_same_noise = not False",
    "05_data-quiz-ranks": "quiz_per_rank = -(-10 // 3)",
    "05_data-shard": (
        "def rank_indices(n, world_size, rank):\n"
        "    per_rank = math.ceil(n / world_size)\n"
        "    return [(rank + k * world_size) % n for k in range(per_rank)]\n"),
}
