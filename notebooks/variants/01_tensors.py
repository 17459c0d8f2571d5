"""Plausible wrong answers and other correct answers for notebook 01; see graders/submissions.py.

WRONG entries are (code, a phrase the test output must contain, the misconception id its
message carries). Every wrong-answer class the issue-10 review found is one entry here.
"""

WRONG = {
    "01_tensors-quiz-dtype": [('quiz_dtype = "float16"', "65504", "dtype.float16-range")],
    "01_tensors-quiz-offset": [
        ("quiz_offset = 7", "reverse order", "strides.reversed-order"),
        ("quiz_offset = 3", "not simply added", "strides.add-indices"),
        ("quiz_offset = 2", "not multiplied together", "strides.multiply-indices"),
    ],
    "01_tensors-quiz-contiguous": [
        ("quiz_contiguous = True", "jumps over", "strides.slice-is-contiguous")],
    "01_tensors-quiz-broadcast": [
        ("quiz_numel = 14", "does not add up", "broadcast.numel-add"),
        ("quiz_numel = 9", "multiplied to count", "broadcast.numel-add"),
        ("quiz_numel = 12", "not simply the larger operand", "broadcast.bigger-operand"),
        ("quiz_numel = 6", "missing leading axis", "broadcast.drop-leading"),
    ],
    "01_tensors-quiz-failing-axis": [
        ("quiz_failing_axis = -1", "a size 1 stretches", "broadcast.one-is-mismatch"),
        ("quiz_failing_axis = -3", "aligned the shapes on the left", "broadcast.align-left"),
        ("quiz_failing_axis = 1", "count from the right", "broadcast.axis-counting"),
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
    ],
    "01_tensors-offset": [
        ("def storage_position(t, index):\n"
         "    return sum(i * s for i, s in zip(index, t.stride()))\n", "storage_offset",
         "strides.offset-ignored"),
        ("def storage_position(t, index):\n"
         "    shape, pos = t.shape, 0\n"
         "    for k, i in enumerate(index):\n"
         "        pos = pos * shape[k] + i\n"
         "    return t.storage_offset() + pos\n", "strides of a contiguous tensor",
         "strides.assume-contiguous"),
    ],
    "01_tensors-views": [
        ("def shares_storage(a, b):\n"
         "    return a.data_ptr() == b.data_ptr()\n", "compare the storages", "views.data-ptr"),
        ("def shares_storage(a, b):\n"
         "    return torch.equal(a, b)\n", "equal values do not mean shared memory",
         "views.equal-values"),
        ("def shares_storage(a, b):\n"
         "    a0, b0 = a.data_ptr(), b.data_ptr()\n"
         "    a1 = a0 + a.numel() * a.element_size()\n"
         "    b1 = b0 + b.numel() * b.element_size()\n"
         "    return a0 < b1 and b0 < a1\n", "ranges do not overlap", "views.overlap"),
        ("def shares_storage(a, b):\n"
         "    start = b.data_ptr()\n"
         "    return start <= a.data_ptr() < start + b.numel() * b.element_size()\n",
         "must not depend on the argument order", "views.one-direction"),
    ],
    "01_tensors-permute-view": [
        ("def columns_flat(m):\n"
         "    return m.t().view(-1)\n", "is not contiguous", "views.view-needs-contiguous"),
        ("def columns_flat(m):\n"
         "    return m.reshape(-1)\n", "row by row", "views.reshape-not-transpose"),
        ("def columns_flat(m):\n"
         "    return m.t()\n", "one entry per element", "views.flatten-shape"),
    ],
    "01_tensors-broadcast": [
        ("def broadcast_shape(a, b):\n"
         "    if len(a) != len(b):\n"
         "        raise ValueError('different lengths')\n"
         "    out = []\n"
         "    for x, y in zip(a, b):\n"
         "        if x != y and 1 not in (x, y):\n"
         "            raise ValueError('mismatch')\n"
         "        out.append(max(x, y))\n"
         "    return tuple(out)\n", "align them on the right", "broadcast.align-left"),
        ("def broadcast_shape(a, b):\n"
         "    n = max(len(a), len(b))\n"
         "    a = (1,) * (n - len(a)) + tuple(a)\n"
         "    b = (1,) * (n - len(b)) + tuple(b)\n"
         "    return tuple(min(x, y) for x, y in zip(a, b))\n", "take the larger one",
         "broadcast.take-min"),
        ("def broadcast_shape(a, b):\n"
         "    n = max(len(a), len(b))\n"
         "    a = (1,) * (n - len(a)) + tuple(a)\n"
         "    b = (1,) * (n - len(b)) + tuple(b)\n"
         "    return tuple(max(x, y) for x, y in zip(a, b))\n", "refuses them",
         "broadcast.mismatch-allowed"),
    ],
    "01_tensors-outer": [
        ("mse_fixed = ((pred_64 - target_64) ** 2).mean()", "outer product", "broadcast.outer-product"),
        ("mse_fixed = ((pred_64 - target_64) ** 2).mean(dim=0)", "outer product",
         "broadcast.outer-product"),
        ("mse_fixed = ((pred_64 - target_64.squeeze(1)) ** 2).sum()", "the mean divides",
         "mse.sum-not-mean"),
    ],
    "01_tensors-pairwise": [
        ("def pairwise_sq_dists(a, b):\n"
         "    return ((a - b) ** 2).sum(-1)\n", "pairs row i of a with row i of b",
         "broadcast.rowwise-not-pairwise"),
        ("def pairwise_sq_dists(a, b):\n"
         "    return (a[:, None, :] - b[None, :, :]).sum(-1) ** 2\n", "squared the sum",
         "pairwise.square-after-sum"),
        ("def pairwise_sq_dists(a, b):\n"
         "    return torch.cdist(a, b)\n", "leave out the square root", "pairwise.root"),
        ("def pairwise_sq_dists(a, b):\n"
         "    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(0)\n", "summed over the points",
         "reduce.wrong-dim"),
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
    ],
    "01_tensors-relu": [
        ("def relu_copy(x):\n"
         "    x[x < 0] = 0\n"
         "    return x\n", "in place", "inplace.edits-caller"),
        ("def relu_copy(x):\n"
         "    return x.clamp_(min=0)\n", "in place", "inplace.edits-caller"),
        ("def relu_copy(x):\n"
         "    return x.clamp(max=0)\n", "caps values from above", "relu.clamp-direction"),
    ],
    "01_tensors-numpy": [
        ("def to_numpy(t):\n"
         "    return t.numpy()\n", "detach", "numpy.needs-detach"),
        ("def to_numpy(t):\n"
         "    return t.detach().numpy()\n", "copy it with .cpu() first", "numpy.gpu-needs-cpu"),
        ("def to_numpy(t):\n"
         "    return t.detach().cpu().numpy().astype('float64')\n", "keeps the tensor's dtype",
         "numpy.dtype-kept"),
    ],
    "01_tensors-gather": [
        ("picked = logits_5[:, labels_5]", "every row", "gather.every-row"),
        ("picked = logits_5.max(dim=1).values", "largest logits", "gather.max-not-label"),
        ("picked = logits_5.gather(1, labels_5.unsqueeze(1))", "squeeze(1)", "gather.keep-index-dim"),
        ("picked = logits_5[labels_5]", "whole ROWS", "gather.rows-not-columns"),
    ],
}

# Other correct answers (a loop for a vectorised form, reshape for view, ...): full marks.
ALTERNATIVE = {
    "01_tensors-quiz-dtype": "import torch\nquiz_dtype = torch.bfloat16",
    "01_tensors-strides": (
        "import math\n"
        "def row_major_strides(shape):\n"
        "    return tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))\n"),
    "01_tensors-offset": (
        "def storage_position(t, index):\n"
        "    position = t.storage_offset()\n"
        "    for k in range(t.dim()):\n"
        "        position += index[k] * t.stride(k)\n"
        "    return position\n"),
    "01_tensors-views": (
        "def shares_storage(a, b):\n"
        "    root_a = a if a._base is None else a._base\n"
        "    root_b = b if b._base is None else b._base\n"
        "    return root_a is root_b\n"),
    "01_tensors-permute-view": (
        "def columns_flat(m):\n"
        "    return m.t().contiguous().view(-1)\n"),
    "01_tensors-broadcast": (
        "def broadcast_shape(a, b):\n"
        "    try:\n"
        "        return tuple(torch.broadcast_shapes(tuple(a), tuple(b)))\n"
        "    except RuntimeError as error:\n"
        "        raise ValueError(str(error)) from None\n"),
    "01_tensors-outer": (
        "import torch.nn.functional as F\n"
        "mse_fixed = F.mse_loss(pred_64.unsqueeze(1), target_64).item()"),
    "01_tensors-pairwise": (
        "def pairwise_sq_dists(a, b):\n"
        "    out = torch.zeros(len(a), len(b))\n"
        "    for i in range(len(a)):\n"
        "        for j in range(len(b)):\n"
        "            out[i, j] = ((a[i] - b[j]) ** 2).sum()\n"
        "    return out\n"),
    "01_tensors-shapes": (
        "flat = images.view(images.shape[0], -1)\n"
        "tokens = images.flatten(2).transpose(1, 2).contiguous()\n"
        "pooled = images.mean(3).mean(2)"),
    "01_tensors-relu": (
        "def relu_copy(x):\n"
        "    y = x.clone()\n"
        "    y[y < 0] = 0\n"
        "    return y\n"),
    "01_tensors-numpy": (
        "def to_numpy(t):\n"
        "    return t.detach().to('cpu').numpy().copy()\n"),
    "01_tensors-gather": "picked = logits_5.gather(1, labels_5.unsqueeze(1)).squeeze(1)",
}
