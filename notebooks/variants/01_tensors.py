"""Plausible wrong answers (with the phrase their test output must contain) and other
correct answers for notebook 01; see graders/submissions.py."""

WRONG = {
    "01_tensors-quiz-dtype": [('quiz_dtype = "float16"', "65504")],
    "01_tensors-quiz-offset": [("quiz_offset = 7", "reverse order")],
    "01_tensors-quiz-contiguous": [("quiz_transposed_contiguous = True", "swaps the strides")],
    "01_tensors-quiz-broadcast": [("quiz_numel = 3", "larger size")],
    "01_tensors-strides": [
        ("def row_major_strides(shape):\n"
         "    strides, step = [], 1\n"
         "    for size in shape:\n"
         "        strides.append(step)\n"
         "        step *= size\n"
         "    return tuple(strides)\n", "column-major"),
        ("def row_major_strides(shape):\n"
         "    return tuple(shape[1:]) + (1,)\n", "all the sizes after it"),
    ],
    "01_tensors-offset": [
        ("def storage_position(t, index):\n"
         "    return sum(i * s for i, s in zip(index, t.stride()))\n", "storage_offset"),
        ("def storage_position(t, index):\n"
         "    shape, pos = t.shape, 0\n"
         "    for k, i in enumerate(index):\n"
         "        pos = pos * shape[k] + i\n"
         "    return t.storage_offset() + pos\n", "strides of a contiguous tensor"),
    ],
    "01_tensors-views": [
        ("def shares_storage(a, b):\n"
         "    return a.data_ptr() == b.data_ptr()\n", "compare the storages"),
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
         "    return tuple(out)\n", "align them on the right"),
        ("def broadcast_shape(a, b):\n"
         "    n = max(len(a), len(b))\n"
         "    a = (1,) * (n - len(a)) + tuple(a)\n"
         "    b = (1,) * (n - len(b)) + tuple(b)\n"
         "    return tuple(min(x, y) for x, y in zip(a, b))\n", "take the larger one"),
    ],
    "01_tensors-outer": [
        ("mse_fixed = ((pred_64 - target_64) ** 2).mean()", "outer product"),
        ("mse_fixed = ((pred_64 - target_64) ** 2).mean(dim=0)", "outer product"),
    ],
    "01_tensors-shapes": [
        ("flat = images.reshape(32, -1)\n"
         "tokens = images.reshape(32, -1, 3)\n"
         "pooled = images.mean(dim=(2, 3))", "permute"),
        ("flat = images.reshape(32, -1)\n"
         "tokens = images.permute(0, 2, 3, 1).reshape(32, -1, 3)\n"
         "pooled = images.mean(dim=(2, 3), keepdim=True)", "size-1"),
    ],
    "01_tensors-relu": [
        ("def relu_copy(x):\n"
         "    x[x < 0] = 0\n"
         "    return x\n", "in place"),
        ("def relu_copy(x):\n"
         "    return x.clamp_(min=0)\n", "in place"),
    ],
    "01_tensors-numpy": [
        ("def to_numpy(t):\n"
         "    return t.numpy()\n", "detach"),
    ],
    "01_tensors-gather": [
        ("picked = logits_5[:, labels_5]", "every row"),
    ],
}

ALTERNATIVE = {
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
        "import numpy as np\n"
        "def shares_storage(a, b):\n"
        "    return bool(np.shares_memory(a.numpy(), b.numpy()))\n"),
    "01_tensors-broadcast": (
        "def broadcast_shape(a, b):\n"
        "    try:\n"
        "        return tuple(torch.broadcast_shapes(tuple(a), tuple(b)))\n"
        "    except RuntimeError as error:\n"
        "        raise ValueError(str(error)) from None\n"),
    "01_tensors-outer": (
        "import torch.nn.functional as F\n"
        "mse_fixed = F.mse_loss(pred_64.unsqueeze(1), target_64).item()"),
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
