"""Plausible wrong answers and other correct answers for notebook 02; see graders/submissions.py.

WRONG entries are (code, a phrase the test output must contain, the misconception id its
message carries). Every wrong-answer class the issue-10 review found is one entry here.
"""

# A correct forward and the start of backward; some wrong variants differ in the last line.
SOFTPLUS_UP_TO_BACKWARD = (
    "class Softplus(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        ctx.save_for_backward(x)\n"
    "        return torch.log1p(torch.exp(x))\n\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad_out):\n"
    "        (x,) = ctx.saved_tensors\n"
)

MLP_FORWARD = (
    "def mlp_grads(x, t, W1, b1, W2, b2):\n"
    "    z = x @ W1.T + b1\n"
    "    h = torch.relu(z)\n"
    "    y = h @ W2.T + b2\n"
)

WALK_FRAME = (
    "def walk_grads(output, leaves):\n"
    "    totals = {{}}\n\n"
    "    def visit(node, adjoint):\n"
    "        if hasattr(node, 'variable'):\n"
    "            key = id(node.variable)\n"
    "{leaf}"
    "            return\n"
    "        adjoints = node(adjoint)\n"
    "{wrap}"
    "{children}"
    "    visit(output.grad_fn, torch.ones_like(output))\n"
    "    return [totals.get(id(leaf)) for leaf in leaves]\n"
)
_ADD = "            totals[key] = totals.get(key, 0) + adjoint\n"
_WRAP = ("        if isinstance(adjoints, torch.Tensor):\n"
         "            adjoints = (adjoints,)\n")
_ALL = ("        for (child, _), g in zip(node.next_functions, adjoints):\n"
        "            if child is not None and g is not None:\n"
        "                visit(child, g)\n\n")

WRONG = {
    "02_autograd-quiz-leaves": [
        ("answer_leaves = 1", "is also a leaf", "autograd.leaf-needs-grad"),
        ("answer_leaves = 3", "it is not a leaf", "autograd.all-leaves"),
    ],
    "02_autograd-quiz-seed": [
        ("answer_seed_grad = 0.0", "silences only the path", "autograd.one-path"),
        ("answer_seed_grad = 3.0", "moves with b", "autograd.frozen-formula"),
    ],
    "02_autograd-quiz-accumulate": [
        ("answer_accumulated = 4.0", "accumulate", "autograd.grad-overwrites"),
        ("answer_accumulated = 64.0", "does not multiply", "autograd.accumulate-multiplies"),
    ],
    "02_autograd-quiz-no-grad": [("answer_no_grad = True", "nothing is recorded",
                                  "autograd.no-grad-inherits")],
    "02_autograd-walk": [
        (WALK_FRAME.format(leaf="            totals[key] = adjoint\n", wrap=_WRAP, children=_ALL),
         "ADDED, not overwritten", "autograd.fanout-overwrite"),
        (WALK_FRAME.format(leaf=_ADD, wrap=_WRAP, children=(
            "        child, _ = node.next_functions[0]\n"
            "        visit(child, adjoints[0])\n\n")),
         "EVERY entry of next_functions", "walk.first-input-only"),
        (WALK_FRAME.format(leaf=_ADD, wrap="", children=_ALL),
         "wrap a single returned tensor", "walk.node-call"),
        ("def walk_grads(output, leaves):\n"
         "    return list(torch.autograd.grad(output, leaves))\n",
         "Call the nodes yourself", "walk.used-autograd"),
    ],
    "02_autograd-fanout": [
        ("fanout_grad = 2.0 * (-1.0 + 2 * 2.0)", "only the path through q", "autograd.one-path"),
        ("fanout_grad = (2.0 * -1.0 + 2.0 ** 2)", "only the direct path", "autograd.one-path"),
        ("fanout_grad = 2.0 + 2.0 * 2 * 2.0", "appears twice", "autograd.fanout-inside-q"),
    ],
    "02_autograd-vjp": [
        ("def vjp(f, x, v):\n"
         "    x = x.detach().requires_grad_(True)\n"
         "    f(x).sum().backward()\n"
         "    return x.grad\n",
         "gradient of y.sum()", "vjp.sum-is-vjp"),
        ("def vjp(f, x, v):\n"
         "    J = torch.autograd.functional.jacobian(f, x)\n"
         "    return v @ J\n",
         "built the full Jacobian", "vjp.full-jacobian"),
        ("def vjp(f, x, v):\n"
         "    x = x.detach().requires_grad_(True)\n"
         "    f(x).sum().backward()\n"
         "    return x.grad * v\n",
         "one entry per OUTPUT", "vjp.shapes"),
        ("def vjp(f, x, v):\n"
         "    x.requires_grad_(True)\n"
         "    f(x).backward(gradient=v)\n"
         "    return x.grad\n",
         "caller's x.grad", "vjp.caller-grad"),
    ],
    "02_autograd-accumulate": [
        ("def accumulated_grad(w, X, Y, chunk):\n"
         "    for start in range(0, len(X), chunk):\n"
         "        xb, yb = X[start:start + chunk], Y[start:start + chunk]\n"
         "        (((xb @ w - yb) ** 2).sum() / len(X)).backward()\n"
         "    return w.grad.clone()\n",
         "stale gradient", "accumulate.stale-grad"),
        ("def accumulated_grad(w, X, Y, chunk):\n"
         "    w.grad = None\n"
         "    for start in range(0, len(X), chunk):\n"
         "        xb, yb = X[start:start + chunk], Y[start:start + chunk]\n"
         "        ((xb @ w - yb) ** 2).mean().backward()\n"
         "    return w.grad.clone()\n",
         "equal weight", "accumulate.unweighted-means"),
    ],
    "02_autograd-why-none": [
        ("def make_weight(values):\n"
         "    return torch.tensor(values, requires_grad=True).double()\n",
         "non-leaf", "autograd.op-after-requires-grad"),
        ("def make_weight(values):\n"
         "    return torch.tensor(values, dtype=torch.float64)\n",
         "requires_grad=False", "autograd.no-requires-grad"),
        ("def make_weight(values):\n"
         "    return torch.tensor(values, requires_grad=True)\n",
         "must be float64", "autograd.leaf-dtype"),
    ],
    "02_autograd-ste": [
        ("def ste_round(x):\n    return torch.round(x)\n", "torch.round is flat", "ste.round-flat"),
        ("def ste_round(x):\n    return torch.round(x.detach())\n", "cut from the graph",
         "ste.detached-all"),
    ],
    "02_autograd-function": [
        (SOFTPLUS_UP_TO_BACKWARD + "        return torch.sigmoid(x)\n",
         "ignores grad_out", "function.ignores-grad-out"),
        (SOFTPLUS_UP_TO_BACKWARD + "        return grad_out * torch.exp(x)\n",
         "not of log(1 + e^x)", "function.wrong-derivative"),
        ("class Softplus(torch.autograd.Function):\n"
         "    @staticmethod\n"
         "    def forward(ctx, x):\n"
         "        return torch.nn.functional.softplus(x)\n\n"
         "    @staticmethod\n"
         "    def backward(ctx, grad_out):\n"
         "        (x,) = ctx.saved_tensors\n"
         "        return grad_out * torch.sigmoid(x)\n",
         "ctx.save_for_backward(x)", "function.save-for-backward"),
        ("class Softplus(torch.autograd.Function):\n"
         "    @staticmethod\n"
         "    def forward(ctx, x):\n"
         "        y = torch.nn.functional.softplus(x)\n"
         "        ctx.save_for_backward(y)\n"
         "        return y\n\n"
         "    @staticmethod\n"
         "    def backward(ctx, grad_out):\n"
         "        (y,) = ctx.saved_tensors\n"
         "        return grad_out * torch.sigmoid(y)\n",
         "the OUTPUT softplus(x)", "function.saved-output"),
    ],
    "02_autograd-mlp-backward": [
        (MLP_FORWARD +
         "    dy = 2 * (y - t) / y.numel()\n"
         "    dh = dy @ W2\n"
         "    return dh.T @ x, dh.sum(0), dy.T @ h, dy.sum(0)\n",
         "ignores the ReLU", "mlp.relu-mask"),
        (MLP_FORWARD +
         "    dy = 2 * (y - t) / len(x)\n"
         "    dz = (dy @ W2) * (z > 0)\n"
         "    return dz.T @ x, dz.sum(0), dy.T @ h, dy.sum(0)\n",
         "K times too large", "mlp.mean-factor"),
        (MLP_FORWARD +
         "    dy = 2 * (y - t) / y.numel()\n"
         "    dz = (dy @ W2) * (z > 0)\n"
         "    return x.T @ dz, dz.sum(0), dy.T @ h, dy.sum(0)\n",
         "dW = dyᵀ h", "mlp.weight-grad-transpose"),
        (MLP_FORWARD +
         "    dy = (y - t) / y.numel()\n"
         "    dz = (dy @ W2) * (z > 0)\n"
         "    return dz.T @ x, dz.sum(0), dy.T @ h, dy.sum(0)\n",
         "is 2(y - t)", "mlp.missing-factor-2"),
    ],
}

# Other correct answers (an explicit stack for recursion, backward for autograd.grad, ...).
ALTERNATIVE = {
    "02_autograd-quiz-seed": "answer_seed_grad = -1",
    "02_autograd-walk": (
        "def walk_grads(output, leaves):\n"
        "    totals = {id(leaf): None for leaf in leaves}\n"
        "    stack = [(output.grad_fn, torch.ones_like(output))]\n"
        "    while stack:\n"
        "        node, adjoint = stack.pop()\n"
        "        if node is None:\n"
        "            continue\n"
        "        if type(node).__name__ == 'AccumulateGrad':\n"
        "            key = id(node.variable)\n"
        "            totals[key] = adjoint if totals.get(key) is None else totals[key] + adjoint\n"
        "            continue\n"
        "        adjoints = node(adjoint)\n"
        "        if not isinstance(adjoints, tuple):\n"
        "            adjoints = (adjoints,)\n"
        "        stack.extend((child, g) for (child, _), g in zip(node.next_functions, adjoints)\n"
        "                     if g is not None)\n"
        "    return [totals[id(leaf)] for leaf in leaves]\n"),
    "02_autograd-fanout": "fanout_grad = 8",
    "02_autograd-vjp": (
        "def vjp(f, x, v):\n"
        "    leaf = x.clone().requires_grad_()\n"
        "    f(leaf).backward(gradient=v)\n"
        "    return leaf.grad\n"),
    "02_autograd-accumulate": (
        "def accumulated_grad(w, X, Y, chunk):\n"
        "    if w.grad is not None:\n"
        "        w.grad.zero_()\n"
        "    for xb, yb in zip(X.split(chunk), Y.split(chunk)):\n"
        "        (((xb @ w - yb) ** 2).mean() * len(xb) / len(X)).backward()\n"
        "    return w.grad.detach().clone()\n"),
    "02_autograd-why-none": (
        "def make_weight(values):\n"
        "    return torch.tensor(values).double().requires_grad_()\n"),
    "02_autograd-ste": (
        "def ste_round(x):\n"
        "    return x - x.detach() + torch.round(x.detach())\n"),
    "02_autograd-function": (
        "class Softplus(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        y = torch.nn.functional.softplus(x)\n"
        "        ctx.save_for_backward(y)\n"
        "        return y\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_out):\n"
        "        (y,) = ctx.saved_tensors\n"
        "        return grad_out * (1 - torch.exp(-y))\n"),
    "02_autograd-mlp-backward": (
        "def mlp_grads(x, t, W1, b1, W2, b2):\n"
        "    N, K = t.shape\n"
        "    z = torch.addmm(b1, x, W1.t())\n"
        "    h = z.clamp(min=0)\n"
        "    err = torch.addmm(b2, h, W2.t()) - t\n"
        "    g = err * (2.0 / (N * K))\n"
        "    gz = torch.where(z > 0, g @ W2, torch.zeros_like(z))\n"
        "    return (torch.einsum('nh,nd->hd', gz, x), gz.sum(dim=0),\n"
        "            torch.einsum('nk,nh->kh', g, h), g.sum(dim=0))\n"),
}
