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

ONE_HOT_ROWS = (            # the loop over J's rows; the variants differ before and inside it
    "    rows = []\n"
    "    for i in range(y.numel()):\n"
    "        v = torch.zeros_like(y)\n"
    "        v[i] = 1.0\n"
)
RETAINED_ROW = "        rows.append(torch.autograd.grad(y, x, grad_outputs=v, retain_graph=True)[0])\n"
JACOBIAN_ROWS = "def jacobian(f, x):\n    x = x.detach().requires_grad_(True)\n    y = f(x)\n" + ONE_HOT_ROWS
SET_ASIDE = (                # the caller's .grad set aside and put back; {loss}: one chunk's loss
    "def full_batch_grad(w, X, Y, chunk):\n"
    "    saved, w.grad = w.grad, None\n"
    "    for start in range(0, len(X), chunk):\n"
    "        xb, yb = X[start:start + chunk], Y[start:start + chunk]\n"
    "        ({loss}).backward()\n"
    "    total, w.grad = w.grad, saved\n"
    "    return total\n"
)
CHUNK_LOOP = (
    "    for start in range(0, len(X), chunk):\n"
    "        xb, yb = X[start:start + chunk], Y[start:start + chunk]\n"
    "        (((xb @ w - yb) ** 2).sum() / len(X)).backward()\n"
)

WRONG = {
    "02_autograd-quiz-leaves": [
        ("answer_leaves = 1", "has no grad_fn, so it is a leaf too", "autograd.leaf-needs-grad"),
        ("answer_leaves = 2", "Being computed does not make", "autograd.computed-is-intermediate"),
        ("answer_leaves = 4", "y has a grad_fn", "autograd.all-leaves"),
        ("answer_leaves = 5", "not one of the choices", None),
    ],
    "02_autograd-quiz-seed": [
        ("answer_seed_grad = 0.0", "silences only the path", "autograd.one-path"),
        ("answer_seed_grad = 3.0", "moves with b", "autograd.frozen-formula"),
        ("answer_seed_grad = -2.0", "add to 4, not 0", "autograd.adjoint-add"),
        ("answer_seed_grad = 1.0", "find where the sum is 0", "autograd.chain-rule"),
    ],
    "02_autograd-quiz-accumulate": [
        ("answer_accumulated = 4.0", "accumulate", "autograd.grad-overwrites"),
        ("answer_accumulated = 64.0", "does not multiply", "autograd.accumulate-multiplies"),
        ("answer_accumulated = 8", "three of them", "autograd.local-derivative"),
        ("answer_accumulated = 16.0", "Three backwards each add", "autograd.grad-overwrites"),
    ],
    "02_autograd-quiz-no-grad": [
        ("answer_no_grad = (True, True, True, False)", "nothing is recorded",
         "autograd.no-grad-inherits"),
        ("answer_no_grad = (False, False, False, False)", "x still requires grad",
         "autograd.no-grad-switches-off"),
        ("answer_no_grad = (False, True, False, False)", "computed after the block",
         "autograd.no-grad-lasts"),
        ("answer_no_grad = (False, True, True, True)", "adding 1 records nothing",
         "autograd.detach-rejoins"),
        ("answer_no_grad = (True, False, True, False)", "a has no grad_fn",   # hidden tests
         "autograd.no-grad-inherits"),
        ("answer_no_grad = False", "should be a tuple", None),
    ],
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
        ("fanout_grad = 2.0 * 2.0 * 3.0", "they do not multiply", "autograd.product-rule"),
        ("fanout_grad = 7.0", "Sum the adjoints of all three edges", "autograd.one-path"),
        ("fanout_grad = torch.tensor(8.0)", "should be a number", None),
    ],
    "02_autograd-vjp": [
        ("def jacobian(f, x):\n"
         "    x = x.detach().requires_grad_(True)\n"
         "    y = f(x)\n"
         "    row = torch.autograd.grad(y.sum(), x)[0]\n"
         "    return torch.stack([row] * y.numel())\n", "gradient of y.sum()", "vjp.sum-is-vjp"),
        (JACOBIAN_ROWS +
         "        rows.append(torch.autograd.grad(y, x, grad_outputs=v)[0])\n"
         "    return torch.stack(rows)\n", "retain_graph=True", "vjp.retain-graph"),
        ("def jacobian(f, x):\n"
         "    x = x.detach().requires_grad_(True)\n"
         "    y = f(x)\n"
         "    rows = []\n"
         "    for i in range(y.numel()):\n"
         "        y[i].backward(retain_graph=True)\n"
         "        rows.append(x.grad.clone())\n"
         "    return torch.stack(rows)\n", "sum of rows 0", "vjp.rows-accumulate"),
        (JACOBIAN_ROWS + RETAINED_ROW +
         "    return torch.stack(rows, dim=1)\n", "one ROW per output", "vjp.rows-are-outputs"),
        ("def jacobian(f, x):\n"
         "    return torch.autograd.functional.jacobian(f, x)\n", "library Jacobian",
         "vjp.full-jacobian"),
        ("def jacobian(f, x):\n    x.requires_grad_(True)\n    y = f(x)\n" + ONE_HOT_ROWS +
         RETAINED_ROW + "    return torch.stack(rows)\n", "caller's x", "vjp.caller-grad"),
        ("def jacobian(f, x):\n    y = f(x)\n" + ONE_HOT_ROWS +
         RETAINED_ROW + "    return torch.stack(rows)\n", "fresh leaf", "vjp.leaf"),
    ],
    "02_autograd-accumulate": [
        ("def full_batch_grad(w, X, Y, chunk):\n"
         "    w.grad = None\n"
         + CHUNK_LOOP +
         "    return w.grad.clone()\n", "put its w.grad back", "accumulate.restore-grad"),
        ("def full_batch_grad(w, X, Y, chunk):\n"
         "    saved = w.grad.clone() if w.grad is not None else None\n"
         + CHUNK_LOOP +
         "    total = w.grad.clone()\n"
         "    w.grad = saved\n"
         "    return total\n", "caller's gradient is inside the result", "accumulate.stale-grad"),
        (SET_ASIDE.format(loss="((xb @ w - yb) ** 2).mean()"),
         "equal weight", "accumulate.unweighted-means"),
        ("def full_batch_grad(w, X, Y, chunk):\n"
         "    saved = w.grad\n"
         "    if w.grad is not None:\n"
         "        w.grad.zero_()\n"
         + CHUNK_LOOP +
         "    total = w.grad.clone()\n"
         "    w.grad = saved\n"
         "    return total\n", "put its w.grad back", "accumulate.restore-grad"),
        ("def full_batch_grad(w, X, Y, chunk):\n"
         "    return torch.autograd.grad(((X @ w - Y) ** 2).mean(), w)[0]\n",
         "rows at once", "accumulate.one-pass-per-chunk"),
        # weighted by the nominal chunk size: wrong only for the shorter last chunk
        (SET_ASIDE.format(loss="((xb @ w - yb) ** 2).mean() * chunk / len(X)"),
         "only 2 rows", "accumulate.last-chunk"),
        (SET_ASIDE.format(loss="((xb @ w - yb) ** 2).sum() / chunk"),
         "number of all rows", "accumulate.weighting"),
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
        ("def make_weight(values):\n"
         "    t = torch.tensor(values, requires_grad=True)\n"
         "    return t.detach().double().requires_grad_()\n",
         "Only floating-point tensors", "autograd.int-requires-grad"),
    ],
    "02_autograd-ste": [
        ("def ste_round(x):\n    return torch.round(x)\n", "torch.round is flat", "ste.round-flat"),
        ("def ste_round(x):\n    return torch.round(x.detach())\n", "cut from the graph",
         "ste.detached-all"),
        ("def ste_round(x):\n    return x + (torch.floor(x + 0.5) - x).detach()\n",
         "halves round to even", "ste.value"),
        ("def ste_round(x):\n    return torch.round(x) + x.sum() - x.sum().detach()\n",
         "gradient must be 1", "ste.detach-part"),
        # the rounding is detached (no_grad) but the -x is not: the two x's cancel
        ("def ste_round(x):\n"
         "    with torch.no_grad():\n"
         "        rounded = torch.round(x)\n"
         "    return x + (rounded - x)\n", "cancels x", "ste.round-flat"),
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
        # divided by K, the outputs per row: a mean over N·K needs N as well
        (MLP_FORWARD +
         "    dy = 2 * (y - t) / t.shape[1]\n"
         "    dz = (dy @ W2) * (z > 0)\n"
         "    return dz.T @ x, dz.sum(0), dy.T @ h, dy.sum(0)\n",
         "N times too large", "mlp.mean-factor"),
        # a bias gradient averaged over the batch
        (MLP_FORWARD +
         "    dy = 2 * (y - t) / y.numel()\n"
         "    dz = (dy @ W2) * (z > 0)\n"
         "    return dz.T @ x, dz.mean(0), dy.T @ h, dy.mean(0)\n",
         "batch MEAN of the adjoint", "mlp.bias-sum"),
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
    "02_autograd-quiz-no-grad": "answer_no_grad = [False, True, True, False]",
    "02_autograd-vjp": (
        "def jacobian(f, x):\n"
        "    rows = []\n"
        "    for i in range(f(x).numel()):\n"
        "        leaf = x.detach().clone().requires_grad_()\n"
        "        y = f(leaf)\n"
        "        y.backward(gradient=torch.eye(y.numel(), dtype=y.dtype)[i])\n"
        "        rows.append(leaf.grad)\n"
        "    return torch.stack(rows)\n"),
    "02_autograd-accumulate": (
        "def full_batch_grad(w, X, Y, chunk):\n"
        "    total = torch.zeros_like(w)\n"
        "    for xb, yb in zip(X.split(chunk), Y.split(chunk)):\n"
        "        loss = ((xb @ w - yb) ** 2).mean() * len(xb) / len(X)\n"
        "        total = total + torch.autograd.grad(loss, w)[0]\n"
        "    return total\n"),
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
