"""Plausible wrong answers and other correct answers for notebook 01; see graders/submissions.py.

WRONG entries are (code, a phrase the test output must contain, the misconception id its
message carries). Every wrong-answer class the issue-10 review found is one entry here.
"""

WRONG = {
    "01_tensors-quiz-dtype": [
        ("quiz_dtype = (1001.0, math.inf)", "7 fraction bits", "dtype.bfloat16-step"),
        ("quiz_dtype = (1000.0, 70000.0)", "overflows to inf", "dtype.float16-range"),
        ("quiz_dtype = (1004.0, math.inf)", "NEAREST", "dtype.round-nearest"),
        ("quiz_dtype = (1000.0, 65504.0)", "does not stop", "dtype.saturate"),
        # not in the table: the hidden test names it
        ("quiz_dtype = (1000.0, 100000.0)", "2¹⁶ = 65536", "dtype.float16-range"),
        ("quiz_dtype = 1000.0", "should be a tuple", None),
    ],
    "01_tensors-quiz-offset": [
        ("quiz_offset = 7", "transpose swaps them", "strides.transpose-keeps-strides"),
        ("quiz_offset = 6", "FRESH (5, 4) tensor", "strides.assume-contiguous"),
        ("quiz_offset = 3", "not simply added", "strides.add-indices"),
        ("quiz_offset = 2", "not multiplied together", "strides.multiply-indices"),
        ("quiz_offset = 9", "swaps them to (1, 5)", "strides.offset-formula"),
    ],
    "01_tensors-quiz-contiguous": [
        ("quiz_contiguous = (True, True, True, True)", "keeps its base's strides",
         "strides.slice-is-contiguous"),
        ("quiz_contiguous = (False, False, True, False)", "offset does not matter",
         "strides.offset-breaks-contiguity"),
        ("quiz_contiguous = (True, False, False, False)", "swaps them back",
         "strides.transpose-sticks"),
        ("quiz_contiguous = (True, False, True, True)", "every other row", "strides.step-slice"),
        ("quiz_contiguous = (False, True, True, False)", "the offset does not matter",
         "strides.offset-breaks-contiguity"),
        ("quiz_contiguous = False", "should be a tuple", None),
    ],
    "01_tensors-quiz-broadcast": [
        ("quiz_entry = 12", "not a[2] + b[1]", "broadcast.first-operand-rows"),
        ("quiz_entry = 3", "lined up with the result's LAST one", "broadcast.same-index"),
        ("quiz_entry = 30", "reads a[1], and b[2, 0]", "broadcast.first-operand-rows"),
        ("quiz_entry = 11", "stride 0", "broadcast.reads"),           # hidden tests
        ("quiz_entry = 21.5", "whole number", None),
    ],
    "01_tensors-quiz-join": [
        ("quiz_join = ((3, 2, 5), (2, 15))", "not in front", "join.stack-in-front"),
        ("quiz_join = ((2, 3, 5), (6, 5))", "the 2 rows stay", "join.cat-axis"),
        ("quiz_join = ((2, 15), (2, 3, 5))", "swapped", "join.cat-vs-stack"),
        ("quiz_join = ((2, 3, 5), (2, 5))", "add up", "join.rule"),           # hidden tests
        ("quiz_join = (2, 3, 5)", "two shapes", None),
    ],
    "01_tensors-quiz-failing-axis": [
        ("quiz_failing_axis = -1", "a size 1 stretches", "broadcast.one-is-mismatch"),
        ("quiz_failing_axis = -3", "aligned the shapes on the left", "broadcast.align-left"),
        ("quiz_failing_axis = 1", "you counted from the left", "broadcast.axis-counting"),
        ("quiz_failing_axis = -4", "the first pair that differs", "broadcast.rule"),
    ],
    "01_tensors-strides": [
        ("def row_major_strides(shape):\n"
         "    strides, step = [], 1\n"
         "    for size in shape:\n"
         "        strides.append(step)\n"
         "        step *= size\n"
         "    return tuple(strides)\n", "column-major", "strides.column-major"),
        ("def row_major_strides(shape):\n"
         "    return tuple(shape[1:]) + (1,)\n", "all the sizes after it", "strides.next-size-only"),
        ("import math\n"
         "def row_major_strides(shape):\n"
         "    return tuple(math.prod(shape[k:]) for k in range(len(shape)))\n",
         "includes its own dim's size", "strides.include-own-size"),
        # the task says "without creating a tensor": a shape too large to allocate shows it
        ("def row_major_strides(shape):\n"
         "    return torch.empty(shape).stride()\n", "fails for a shape this large",
         "strides.made-a-tensor"),
        # right for every shape with a dim, one stride too many for the 0-d shape ()
        ("def row_major_strides(shape):\n"
         "    strides = [1]\n"
         "    for size in reversed(shape[1:]):\n"
         "        strides.insert(0, strides[0] * size)\n"
         "    return tuple(strides)\n", "row_major_strides(()) should be ()",
         "strides.row-major-rule"),
        # the course's own stride code called instead of written
        ("def row_major_strides(shape):\n"
         "    return helpers.strides.contiguous_strides(shape)\n", "Write it yourself", None),
    ],
    "01_tensors-offset": [
        # chunks: row i starts k elements after row i - 1
        ("def windows(x, k):\n"
         "    s = x.stride(0)\n"
         "    return torch.as_strided(x, (len(x) - k + 1, k), (k * s, s), x.storage_offset())\n",
         "do not overlap", "strides.rows-cannot-overlap"),
        # the storage read from cell 0, as section 2's cell does
        ("def windows(x, k):\n"
         "    s = x.stride(0)\n"
         "    return torch.as_strided(x, (len(x) - k + 1, k), (s, s), 0)\n",
         "storage cell 0", "strides.offset-ignored"),
        ("def windows(x, k):\n"
         "    return torch.as_strided(x, (len(x) - k + 1, k), (1, 1), x.storage_offset())\n",
         "not always 1", "strides.step-one"),
        ("def windows(x, k):\n"
         "    return torch.stack([x[i:i + k] for i in range(len(x) - k + 1)])\n",
         "is a copy", "views.copy-not-view"),
        ("def windows(x, k):\n"
         "    s = x.stride(0)\n"
         "    return torch.as_strided(x, (len(x) - k, k), (s, s), x.storage_offset())\n",
         "the last one starts", "windows.count"),
    ],
    "01_tensors-permute-view": [
        ("def tiles(img, p):\n"
         "    h, w = img.shape\n"
         "    return img.reshape(h // p, w // p, p, p)\n", "memory order",
         "views.reshape-not-transpose"),
        ("def tiles(img, p):\n"
         "    h, w = img.shape\n"
         "    return img.view(h // p, p, w // p, p).permute(0, 2, 3, 1)\n", "Each tile is transposed",
         "views.tile-transposed"),
        ("def tiles(img, p):\n"
         "    h, w = img.shape\n"
         "    return img.view(h // p, p, w // p, p).permute(0, 2, 1, 3).contiguous()\n",
         "is a copy", "views.copy-not-view"),
        ("def tiles(img, p):\n"
         "    h, w = img.shape\n"
         "    return img.view(h // p, p, w // p, p)\n", "(H/p, W/p, p, p)", "views.tiles-shape"),
    ],
    "01_tensors-broadcast": [
        # padded on the right: the shapes line up at their left ends
        ("def broadcast_strides(shape, strides, target):\n"
         "    extra = len(target) - len(shape)\n"
         "    shape, strides = tuple(shape) + (1,) * extra, tuple(strides) + (0,) * extra\n"
         "    out = []\n"
         "    for size, stride, want in zip(shape, strides, target):\n"
         "        if size != want and size != 1:\n"
         "            raise ValueError('mismatch')\n"
         "        out.append(stride if size == want else 0)\n"
         "    return tuple(out)\n", "line the shapes up on the right", "broadcast.align-left"),
        # the row-major strides of shape instead of the operand's own
        ("def broadcast_strides(shape, strides, target):\n"
         "    own, step = [], 1\n"
         "    for size in reversed(shape):\n"
         "        own.insert(0, step)\n"
         "        step *= size\n"
         "    extra = len(target) - len(shape)\n"
         "    out = [0] * extra\n"
         "    for size, stride, want in zip(shape, own, target[extra:]):\n"
         "        if size != want and size != 1:\n"
         "            raise ValueError('mismatch')\n"
         "        out.append(stride if size == want else 0)\n"
         "    return tuple(out)\n", "strides of a fresh (3, 1) tensor", "strides.assume-contiguous"),
        ("def broadcast_strides(shape, strides, target):\n"
         "    extra = len(target) - len(shape)\n"
         "    out = [0] * extra\n"
         "    for size, stride, want in zip(shape, strides, target[extra:]):\n"
         "        if size != want and size != 1:\n"
         "            raise ValueError('mismatch')\n"
         "        out.append(stride)\n"
         "    return tuple(out)\n", "its stride is 0", "broadcast.stretch-keeps-stride"),
        ("def broadcast_strides(shape, strides, target):\n"
         "    extra = len(target) - len(shape)\n"
         "    out = [1] * extra\n"
         "    for size, stride, want in zip(shape, strides, target[extra:]):\n"
         "        if size != want and size != 1:\n"
         "            raise ValueError('mismatch')\n"
         "        out.append(stride if size == want else 0)\n"
         "    return tuple(out)\n", "new axis", "broadcast.leading-stride"),
        ("def broadcast_strides(shape, strides, target):\n"
         "    extra = len(target) - len(shape)\n"
         "    out = [0] * extra\n"
         "    for size, stride, want in zip(shape, strides, target[extra:]):\n"
         "        out.append(stride if size == want else 0)\n"
         "    return tuple(out)\n", "raise ValueError", "broadcast.mismatch-allowed"),
        # the symmetric rule of two shapes: a target's 1 is taken to stretch too
        ("def broadcast_strides(shape, strides, target):\n"
         "    out = []\n"
         "    for size, stride, want in zip(reversed(shape), reversed(strides), reversed(target)):\n"
         "        if size != want and 1 not in (size, want):\n"
         "            raise ValueError('mismatch')\n"
         "        out.insert(0, stride if size == want else 0)\n"
         "    return (0,) * (len(target) - len(out)) + tuple(out)\n", "never", "broadcast.one-way"),
        # leading size-1 axes dropped to fit a target with fewer dims
        ("def broadcast_strides(shape, strides, target):\n"
         "    shape, strides = list(shape), list(strides)\n"
         "    while len(shape) > len(target) and shape[0] == 1:\n"
         "        shape.pop(0)\n"
         "        strides.pop(0)\n"
         "    if len(shape) > len(target):\n"
         "        raise ValueError('too many dims')\n"
         "    extra = len(target) - len(shape)\n"
         "    out = [0] * extra\n"
         "    for size, stride, want in zip(shape, strides, target[extra:]):\n"
         "        if size != want and size != 1:\n"
         "            raise ValueError('mismatch')\n"
         "        out.append(stride if size == want else 0)\n"
         "    return tuple(out)\n", "leading axes of size 1", "broadcast.squeeze-leading"),
        # expand does it, but the tensor must exist first
        ("def broadcast_strides(shape, strides, target):\n"
         "    try:\n"
         "        return torch.empty_strided(shape, strides).expand(target).stride()\n"
         "    except RuntimeError as error:\n"
         "        if 'expand' in str(error):\n"
         "            raise ValueError(str(error)) from None\n"
         "        raise\n", "shapes this large", "strides.made-a-tensor"),
    ],
    "01_tensors-shapes": [
        ("flat = images.reshape(32, -1)\n"
         "tokens = images.reshape(32, -1, 3)\n"
         "pooled = images.mean(dim=(2, 3))", "permute the channels last",
         "shapes.reshape-not-permute"),
        ("flat = images.reshape(32, -1)\n"
         "tokens = images.transpose(1, 3).reshape(32, -1, 3)\n"
         "pooled = images.mean(dim=(2, 3))", "swaps height and width", "shapes.transpose-swaps-hw"),
        ("flat = images.reshape(32, -1)\n"
         "tokens = images.permute(0, 2, 3, 1).reshape(32, -1, 3)\n"
         "pooled = images.mean(dim=(2, 3), keepdim=True)", "keep neither", "reduce.pool-dims"),
        # right shape, a sum instead of a mean: the hidden test names it
        ("flat = images.reshape(32, -1)\n"
         "tokens = images.permute(0, 2, 3, 1).reshape(32, -1, 3)\n"
         "pooled = images.sum(dim=(2, 3))", "mean of one channel", "reduce.pool-dims"),
    ],
    "01_tensors-relu": [
        ("def modifies_input(f, x):\n"
         "    argument = x.clone()\n"
         "    f(argument)\n"
         "    return bool(argument.sum() != x.sum())\n", "not its sum", "inplace.compare-sums"),
        ("def modifies_input(f, x):\n"
         "    argument = x.clone()\n"
         "    f(argument)\n"
         "    return not torch.equal(argument, x)\n", "NaN", "inplace.nan-unequal"),
        ("def modifies_input(f, x):\n"
         "    argument = x.clone()\n"
         "    f(argument)\n"
         "    return not torch.allclose(argument, x, equal_nan=True)\n", "tolerance",
         "inplace.tolerance"),
        ("def modifies_input(f, x):\n"
         "    before = x.clone()\n"
         "    f(x)\n"
         "    return not torch.equal(before, x)\n", "modified in place", "inplace.edits-caller"),
        ("def modifies_input(f, x):\n"
         "    argument = x.clone()\n"
         "    before = argument\n"
         "    f(argument)\n"
         "    return not torch.equal(before, argument)\n", "second name", "inplace.alias-not-copy"),
        ("def modifies_input(f, x):\n"
         "    out = f(x.clone())\n"
         "    return out is not None and not torch.equal(out, x)\n", "NEW tensor",
         "inplace.output-not-input"),
        ("def modifies_input(f, x):\n"
         "    argument = x.clone()\n"
         "    out = f(argument)\n"
         "    return out is not None and "
         "out.untyped_storage().data_ptr() == argument.untyped_storage().data_ptr()\n",
         "shares memory but writes nothing", "inplace.view-is-write"),
        # detach() shares x's memory: f's write lands in the caller's tensor
        ("def modifies_input(f, x):\n"
         "    argument = x.detach()\n"
         "    before = x.clone()\n"
         "    f(argument)\n"
         "    return not torch.equal(before, argument)\n", "modified in place",
         "inplace.edits-caller"),
    ],
    "01_tensors-cells": [
        ("def shares_cells(a, b):\n"
         "    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n",
         "different cells", "views.same-storage-same-cells"),
        ("def shares_cells(a, b):\n"
         "    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():\n"
         "        return False\n"
         "    def span(t):\n"
         "        first = t.storage_offset()\n"
         "        last = first + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))\n"
         "        return first, last\n"
         "    (a0, a1), (b0, b1) = span(a), span(b)\n"
         "    return a0 <= b1 and b0 <= a1\n", "ranges overlap", "views.range-overlap"),
        ("def shares_cells(a, b):\n"
         "    return a.data_ptr() == b.data_ptr()\n", "data_ptr", "views.data-ptr"),
        # values in common, not cells in common (equal only in a tensor made by arange)
        ("def shares_cells(a, b):\n"
         "    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():\n"
         "        return False\n"
         "    return bool(set(a.flatten().tolist()) & set(b.flatten().tolist()))\n",
         "whatever values those hold", "views.same-storage-same-cells"),
        # arithmetic on offsets and strides: overlapping spans and a common step
        ("import math\n"
         "def shares_cells(a, b):\n"
         "    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():\n"
         "        return False\n"
         "    if a.numel() == 0 or b.numel() == 0:\n"
         "        return False\n"
         "    def span(t):\n"
         "        first = t.storage_offset()\n"
         "        return first, first + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))\n"
         "    (a0, a1), (b0, b1) = span(a), span(b)\n"
         "    step = math.gcd(*[s for t in (a, b) for n, s in zip(t.shape, t.stride()) if n > 1])\n"
         "    return a0 <= b1 and b0 <= a1 and (step == 0 or (a0 - b0) % step == 0)\n",
         "cells each one actually reaches", "views.cells-arithmetic"),
        ("def shares_cells(a, b):\n"
         "    def cells(t):\n"
         "        return {t.storage_offset() + sum(i * s for i, s in zip(ix, t.stride()))\n"
         "                for ix in np.ndindex(*t.shape)}\n"
         "    return bool(cells(a) & cells(b))\n", "ANOTHER storage", "views.storage-identity"),
        # the course's own stride code called instead of written
        ("def shares_cells(a, b):\n"
         "    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():\n"
         "        return False\n"
         "    cells = [set(helpers.strides.storage_cells(helpers.strides.Layout(\n"
         "        tuple(t.shape), t.stride(), t.storage_offset())).values()) for t in (a, b)]\n"
         "    return not cells[0].isdisjoint(cells[1])\n", "Write it yourself", None),
    ],
    "01_tensors-accuracy": [
        ("def per_class_accuracy(logits, labels):\n"
         "    hits = logits.argmax(dim=1) == labels\n"
         "    classes = torch.arange(logits.shape[1])\n"
         "    in_class = labels == classes\n"
         "    return (hits * in_class).sum(0) / in_class.sum(0)\n", "line up as ONE axis",
         "broadcast.vectors-pair-up"),
        ("def per_class_accuracy(logits, labels):\n"
         "    hits = logits.argmax(dim=1) == labels\n"
         "    in_class = labels[:, None] == torch.arange(logits.shape[1])\n"
         "    return (hits * in_class).sum(0) / in_class.sum(0)\n", "LAST axis",
         "broadcast.vector-on-last-axis"),
        ("def per_class_accuracy(logits, labels):\n"
         "    hits = logits.argmax(dim=1) == labels\n"
         "    in_class = labels[:, None] == torch.arange(logits.shape[1])\n"
         "    return (hits[:, None] & in_class).float().mean(0)\n", "divided by all",
         "accuracy.per-class-denominator"),
        ("def per_class_accuracy(logits, labels):\n"
         "    pred = logits.argmax(dim=1)\n"
         "    in_class = pred[:, None] == torch.arange(logits.shape[1])\n"
         "    return ((pred == labels)[:, None] & in_class).sum(0) / in_class.sum(0)\n",
         "PREDICTED class", "accuracy.group-by-prediction"),
        ("def per_class_accuracy(logits, labels):\n"
         "    hits = logits.argmax(dim=1) == labels\n"
         "    in_class = labels[:, None] == torch.arange(logits.shape[1])\n"
         "    return (hits[:, None] & in_class).sum(0) // in_class.sum(0)\n", "not a float one",
         "accuracy.float"),
        # an absent class reads 0 instead of nan: only the hidden cases have one
        ("def per_class_accuracy(logits, labels):\n"
         "    hits = logits.argmax(dim=1) == labels\n"
         "    in_class = labels[:, None] == torch.arange(logits.shape[1])\n"
         "    return (hits[:, None] & in_class).sum(0) / in_class.sum(0).clamp(min=1)\n",
         "0 rows out of 0", "accuracy.absent-class"),
    ],
    "01_tensors-numpy": [
        ("def snapshot(t):\n"
         "    return t.detach().cpu().numpy()\n", "shares the tensor's memory", "numpy.shares-memory"),
        ("def snapshot(t):\n"
         "    return t.numpy().copy()\n", "detach", "numpy.needs-detach"),
        ("def snapshot(t):\n"
         "    return t.detach().numpy().copy()\n", "copy it with .cpu() first", "numpy.gpu-needs-cpu"),
        ("def snapshot(t):\n"
         "    return t.detach().cpu().numpy().astype('float64')\n", "keeps the tensor's dtype",
         "numpy.dtype-kept"),
    ],
    "01_tensors-rank": [
        ("def label_rank(logits, labels):\n"
         "    order = logits.argsort(dim=1, descending=True)\n"
         "    return order[torch.arange(len(labels)), labels]\n", "argsort's entry j",
         "rank.argsort-is-not-rank"),
        ("def label_rank(logits, labels):\n"
         "    return (logits >= logits.gather(1, labels[:, None])).sum(1)\n", "own logit too",
         "rank.counts-itself"),
        ("def label_rank(logits, labels):\n"
         "    at_label = logits[torch.arange(len(labels)), labels]\n"
         "    return (logits > at_label).sum(1)\n", "lines up with the COLUMNS",
         "rank.row-values-as-columns"),
        ("def label_rank(logits, labels):\n"
         "    return (logits < logits.gather(1, labels[:, None])).sum(1)\n", "SMALLER logits",
         "rank.direction"),
        # every row at every label: an (N, N) table, not one logit per row
        ("def label_rank(logits, labels):\n"
         "    return (logits > logits[:, labels]).sum(1)\n", "(N, N) table",
         "rank.row-values-as-columns"),
        ("def label_rank(logits, labels):\n"
         "    return (logits > logits.gather(1, labels[:, None])).float().mean(1)\n",
         "integer tensor", "rank.shape"),
        # a rank by sorted position: a tie is broken by where the logit sits
        ("def label_rank(logits, labels):\n"
         "    ranks = logits.argsort(dim=1, descending=True).argsort(dim=1)\n"
         "    return ranks[torch.arange(len(labels)), labels]\n", "tie", "rank.ties-by-position"),
    ],
}

# Other correct answers (a loop for a vectorised form, reshape for view, ...): full marks.
ALTERNATIVE = {
    "01_tensors-quiz-dtype": "quiz_dtype = [1000, float('inf')]",
    "01_tensors-quiz-contiguous": "quiz_contiguous = [True, False, True, False]",
    "01_tensors-cells": (
        "def shares_cells(a, b):\n"
        "    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():\n"
        "        return False\n"
        "    def cells(t):\n"     # section 2's formula, element by element
        "        return {t.storage_offset() + sum(i * s for i, s in zip(index, t.stride()))\n"
        "                for index in np.ndindex(*t.shape)}\n"
        "    return len(cells(a) & cells(b)) > 0\n"),
    "01_tensors-accuracy": (
        "def per_class_accuracy(logits, labels):\n"
        "    pred = logits.argmax(dim=1)\n"
        "    out = torch.empty(logits.shape[1])\n"
        "    for c in range(logits.shape[1]):\n"
        "        out[c] = (pred[labels == c] == c).float().mean()\n"
        "    return out\n"),
    "01_tensors-numpy": (
        "def snapshot(t):\n"
        "    return t.detach().clone().cpu().numpy()\n"),
    "01_tensors-rank": (          # C minus the logits at most the label's, by binary search
        "def label_rank(logits, labels):\n"
        "    at_label = logits.gather(1, labels[:, None])\n"
        "    ascending = logits.sort(dim=1).values\n"
        "    return logits.shape[1] - torch.searchsorted(ascending, at_label, right=True).squeeze(1)\n"),
    "01_tensors-strides": (
        "import math\n"
        "def row_major_strides(shape):\n"
        "    return tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))\n"),
    "01_tensors-offset": (
        "def windows(x, k):\n"
        "    return x.unfold(0, k, 1)\n"),
    "01_tensors-permute-view": (
        "def tiles(img, p):\n"
        "    h, w = img.shape\n"
        "    return img.view(h // p, p, w // p, p).transpose(1, 2)\n"),
    "01_tensors-broadcast": (
        "def broadcast_strides(shape, strides, target):\n"
        "    shape, strides = list(shape), list(strides)\n"
        "    if len(shape) > len(target):\n"
        "        raise ValueError('too many dims')\n"
        "    while len(shape) < len(target):\n"
        "        shape.insert(0, 1)\n"
        "        strides.insert(0, 0)\n"
        "    if any(n != t and n != 1 for n, t in zip(shape, target)):\n"
        "        raise ValueError('cannot broadcast')\n"
        "    return tuple(0 if n != t else s for n, s, t in zip(shape, strides, target))\n"),
    "01_tensors-shapes": (
        "flat = images.view(images.shape[0], -1)\n"
        "tokens = images.flatten(2).transpose(1, 2).contiguous()\n"
        "pooled = images.mean(3).mean(2)"),
    "01_tensors-relu": (          # exact comparison in which two NaNs are equal
        "def modifies_input(f, x):\n"
        "    before, argument = x.clone(), x.clone()\n"
        "    f(argument)\n"
        "    return not torch.allclose(before, argument, rtol=0, atol=0, equal_nan=True)\n"),
    "01_tensors-quiz-broadcast": "quiz_entry = 21",
    "01_tensors-quiz-join": "quiz_join = [[2, 3, 5], [2, 15]]",
}
