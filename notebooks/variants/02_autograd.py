"""Plausible wrong answers and other correct answers for notebook 02; see graders/submissions.py.

WRONG entries are (code, a phrase the test output must contain, the misconception id its
message carries). Every wrong-answer class the issue-10 review found is one entry here.
"""

# A correct forward and the start of backward; most wrong variants differ in the last line.
TANH_UP_TO_BACKWARD = (
    "class ScaledTanh(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x, s):\n"
    "        t = torch.tanh(x)\n"
    "        ctx.save_for_backward(x, t, s)\n"
    "        return s * t\n\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad_out):\n"
    "        x, t, s = ctx.saved_tensors\n"
)

TIED_FORWARD = (
    "def tied_grads(x, W, b1, b2):\n"
    "    z = x @ W.T + b1\n"
    "    h = torch.relu(z)\n"
    "    y = h @ W + b2\n"
)
TIED_RETURN = "    return dz.T @ x + h.T @ dy, dz.sum(0), dy.sum(0)\n"
MASKED = "    dz = (dy @ W.T) * (z > 0)\n"

# The reference's depth-first order, then a walk over it; most wrong walks change one line.
TOPO_ORDER = (
    "def walk_grads(output, leaves):\n"
    "    order, seen = [], set()\n\n"
    "    def place(node):\n"
    "        if node is None or node in seen:\n"
    "            return\n"
    "        seen.add(node)\n"
    "        for child, _ in node.next_functions:\n"
    "            place(child)\n"
    "        order.append(node)\n\n"
    "    place(output.grad_fn)\n"
    "    pending, totals = {{output.grad_fn: torch.ones_like(output)}}, {{}}\n"
    "    for node in reversed(order):\n"
    "        adjoint = pending.pop(node, None)\n"
    "        if adjoint is None:\n"
    "            continue\n"
    "        if hasattr(node, 'variable'):\n"
    "            totals[id(node.variable)] = adjoint\n"
    "            continue\n"
    "        adjoints = node(adjoint)\n"
    "{wrap}"
    "{children}"
    "    return [totals.get(id(leaf)) for leaf in leaves]\n"
)
_WRAP = ("        if isinstance(adjoints, torch.Tensor):\n"
         "            adjoints = (adjoints,)\n")
_SUM = ("        for (child, _), g in zip(node.next_functions, adjoints):\n"
        "            if child is not None and g is not None:\n"
        "                pending[child] = pending[child] + g if child in pending else g\n")
# the previous reference: recursive, one call per path
EVERY_PATH = (
    "def walk_grads(output, leaves):\n"
    "    totals = {}\n\n"
    "    def visit(node, adjoint):\n"
    "        if hasattr(node, 'variable'):\n"
    "            totals[id(node.variable)] = totals.get(id(node.variable), 0) + adjoint\n"
    "            return\n"
    "        adjoints = node(adjoint)\n"
    "        if isinstance(adjoints, torch.Tensor):\n"
    "            adjoints = (adjoints,)\n"
    "        for (child, _), g in zip(node.next_functions, adjoints):\n"
    "            if child is not None and g is not None:\n"
    "                visit(child, g)\n\n"
    "    visit(output.grad_fn, torch.ones_like(output))\n"
    "    return [totals.get(id(leaf)) for leaf in leaves]\n"
)
# once per node, but a node runs on the first adjoint to arrive; later ones are dropped
FIRST_ARRIVAL = EVERY_PATH.replace(
    "    totals = {}\n\n", "    totals, seen = {}, set()\n\n").replace(
    "            return\n        adjoints", "            return\n"
    "        if node in seen:\n            return\n        seen.add(node)\n        adjoints")
# breadth-first with sums: a node reached again after it ran is queued and run again
BREADTH_FIRST = (
    "def walk_grads(output, leaves):\n"
    "    pending, totals = {output.grad_fn: torch.ones_like(output)}, {}\n"
    "    queue = [output.grad_fn]\n"
    "    while queue:\n"
    "        node = queue.pop(0)\n"
    "        adjoint = pending.pop(node)\n"
    "        if hasattr(node, 'variable'):\n"
    "            totals[id(node.variable)] = totals.get(id(node.variable), 0) + adjoint\n"
    "            continue\n"
    "        adjoints = node(adjoint)\n"
    "        if isinstance(adjoints, torch.Tensor):\n"
    "            adjoints = (adjoints,)\n"
    "        for (child, _), g in zip(node.next_functions, adjoints):\n"
    "            if child is None or g is None:\n"
    "                continue\n"
    "            if child not in pending:\n"
    "                queue.append(child)\n"
    "            pending[child] = pending[child] + g if child in pending else g\n"
    "    return [totals.get(id(leaf)) for leaf in leaves]\n"
)

ONE_HOT_ROWS = (            # the loop over the samples; the variants differ before and inside it
    "    rows = []\n"
    "    for n in range(losses.numel()):\n"
    "        v = torch.zeros_like(losses)\n"
    "        v[n] = 1.0\n"
)
RETAINED_ROW = ("        rows.append(torch.autograd.grad(losses, w, grad_outputs=v, "
                "retain_graph=True)[0])\n")
PER_SAMPLE = "def per_sample_grads(loss_fn, w):\n"
SAMPLE_ROWS = (PER_SAMPLE + "    w = w.detach().requires_grad_(True)\n    losses = loss_fn(w)\n"
               + ONE_HOT_ROWS)
SET_ASIDE = (                # the caller's .grad set aside and put back; {loss}: one chunk's loss
    "def full_batch_grad(w, X, Y, chunk):\n"
    "    saved, w.grad = w.grad, None\n"
    "    for start in range(0, len(X), chunk):\n"
    "        xb, yb = X[start:start + chunk], Y[start:start + chunk]\n"
    "        ({loss}).backward()\n"
    "    total, w.grad = w.grad, saved\n"
    "    return total\n"
)
HVP_LEAF = "def hvp(f, x, v):\n    x = x.detach().requires_grad_()\n"
HVP_SECOND = "    (hv,) = torch.autograd.grad(g @ v, x)\n    return hv\n"
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
        ("answer_no_grad = (True, True, True, True)", "nothing is recorded",
         "autograd.no-grad-inherits"),
        ("answer_no_grad = (False, False, False, False)", "x still requires grad",
         "autograd.no-grad-switches-off"),
        ("answer_no_grad = (False, True, False, False)", "computed after the block",
         "autograd.no-grad-lasts"),
        ("answer_no_grad = (False, True, True, False)", "the addition is recorded",
         "autograd.detach-cuts-all"),
        ("answer_no_grad = (True, False, True, True)", "a has no grad_fn",   # hidden tests
         "autograd.no-grad-inherits"),
        ("answer_no_grad = False", "should be a tuple", None),
    ],
    "02_autograd-quiz-walk-calls": [
        ("answer_walk_calls = 10", "each time an adjoint reaches it", "walk.calls-per-node"),
        ("answer_walk_calls = 1024", "add 1 + 2", "walk.paths-double"),
        ("answer_walk_calls = 2047", "only adds", "walk.leaf-calls"),
        ("answer_walk_calls = 100", "once per path", "walk.every-path"),   # hidden tests
        ("answer_walk_calls = 1023.0", "whole number", None),
    ],
    "02_autograd-walk": [
        (EVERY_PATH, "once per path", "walk.every-path"),
        (FIRST_ARRIVAL, "before all of its adjoints had arrived", "walk.order"),
        (BREADTH_FIRST, "before all of its adjoints had arrived", "walk.order"),
        (TOPO_ORDER.format(wrap=_WRAP, children=_SUM.replace(
            "pending[child] + g if child in pending else g", "g")),
         "ADDED, not overwritten", "autograd.fanout-overwrite"),
        (TOPO_ORDER.format(wrap=_WRAP, children=(
            "        child, _ = node.next_functions[0]\n"
            "        if child is not None:\n"
            "            pending[child] = pending[child] + adjoints[0] if child in pending "
            "else adjoints[0]\n")),
         "EVERY entry of next_functions", "walk.first-input-only"),
        (TOPO_ORDER.format(wrap="", children=_SUM), "wrap a single returned tensor",
         "walk.node-call"),
        ("def walk_grads(output, leaves):\n"
         "    return list(torch.autograd.grad(output, leaves, allow_unused=True))\n",
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
        (PER_SAMPLE +
         "    w = w.detach().requires_grad_(True)\n"
         "    losses = loss_fn(w)\n"
         "    row = torch.autograd.grad(losses.sum(), w)[0]\n"
         "    return torch.stack([row] * losses.numel())\n", "gradient of the summed loss",
         "vjp.sum-is-vjp"),
        (SAMPLE_ROWS +
         "        rows.append(torch.autograd.grad(losses, w, grad_outputs=v)[0])\n"
         "    return torch.stack(rows)\n", "retain_graph=True", "vjp.retain-graph"),
        (PER_SAMPLE +
         "    w = w.detach().requires_grad_(True)\n"
         "    losses = loss_fn(w)\n"
         "    rows = []\n"
         "    for n in range(losses.numel()):\n"
         "        losses[n].backward(retain_graph=True)\n"
         "        rows.append(w.grad.clone())\n"
         "    return torch.stack(rows)\n", "sum of rows 0", "vjp.rows-accumulate"),
        (SAMPLE_ROWS + RETAINED_ROW +
         "    return torch.stack(rows, dim=1)\n", "one ROW per sample", "vjp.rows-are-outputs"),
        (PER_SAMPLE +
         "    return torch.autograd.functional.jacobian(loss_fn, w)\n", "Build the rows yourself",
         "vjp.full-jacobian"),
        (PER_SAMPLE + "    w.requires_grad_(True)\n    losses = loss_fn(w)\n" + ONE_HOT_ROWS +
         RETAINED_ROW + "    return torch.stack(rows)\n", "caller's w", "vjp.caller-grad"),
        (PER_SAMPLE + "    losses = loss_fn(w)\n" + ONE_HOT_ROWS +
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
         "rows that were left", "accumulate.last-chunk"),
        (SET_ASIDE.format(loss="((xb @ w - yb) ** 2).sum() / chunk"),
         "number of all rows", "accumulate.weighting"),
    ],
    "02_autograd-hvp": [
        (HVP_LEAF + "    (g,) = torch.autograd.grad(f(x).sum(), x)\n" + HVP_SECOND,
         "create_graph=True", "hvp.create-graph"),
        (HVP_LEAF + "    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)\n"
         "    (hv,) = torch.autograd.grad(g.sum(), x)\n    return hv\n", "H·1", "hvp.ones"),
        (HVP_LEAF + "    (g,) = torch.autograd.grad(f(x).sum(), x)\n    return g * v\n",
         "first derivatives", "hvp.first-order"),
        ("def hvp(f, x, v):\n"
         "    return torch.autograd.functional.hvp(lambda t: f(t).sum(), x, v)[1]\n",
         "torch.autograd.functional", "hvp.library"),
        (HVP_LEAF + "    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)\n"
         "    rows = [torch.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(len(x))]\n"
         "    return torch.stack(rows) @ v\n", "n×n", "hvp.built-hessian"),
        ("def hvp(f, x, v):\n"
         "    x.requires_grad_()\n"
         "    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)\n" + HVP_SECOND,
         "caller's x", "hvp.caller-x"),
    ],
    "02_autograd-ste": [
        ("def sign_ste(x):\n    return torch.sign(x)\n", "derivative is 0", "ste.sign-flat"),
        ("def sign_ste(x):\n    return x + (torch.sign(x) - x).detach()\n", "outside",
         "ste.unclipped"),
        ("def sign_ste(x):\n    return x.clamp(-1, 1)\n", "torch.sign(x) exactly", "ste.value"),
        ("def sign_ste(x):\n    return torch.sign(x).detach()\n", "cut from the graph",
         "ste.detached-all"),
        # the window without its ends
        ("def sign_ste(x):\n"
         "    inside = x * (x.abs() < 1)\n"
         "    return inside + (torch.sign(x) - inside).detach()\n", "−1 and 1",
         "ste.window-edges"),
        # a smooth surrogate: tanh's slope instead of 1
        ("def sign_ste(x):\n"
         "    soft = torch.tanh(x)\n"
         "    return soft + (torch.sign(x) - soft).detach()\n", "unchanged",
         "ste.identity-backward"),
    ],
    "02_autograd-function": [
        (TANH_UP_TO_BACKWARD + "        return s * (1 - t * t), t.sum()\n",
         "ignores grad_out", "function.ignores-grad-out"),
        (TANH_UP_TO_BACKWARD + "        return grad_out * s * (1 - t * t), t.sum()\n",
         "s's gradient ignores grad_out", "function.ignores-grad-out"),
        (TANH_UP_TO_BACKWARD + "        return grad_out * (1 - t * t), (grad_out * t).sum()\n",
         "misses the factor s", "function.scale-factor"),
        (TANH_UP_TO_BACKWARD + "        return grad_out * s * (1 - t), (grad_out * t).sum()\n",
         "not 1 - tanh(x).", "function.wrong-derivative"),
        (TANH_UP_TO_BACKWARD + "        return grad_out * s * (1 - x * x), (grad_out * t).sum()\n",
         "not 1 - x²", "function.wrong-derivative"),
        (TANH_UP_TO_BACKWARD + "        return grad_out * s * (1 - t * t)\n",
         "one gradient per input", "function.one-grad-per-input"),
        (TANH_UP_TO_BACKWARD + "        return grad_out * s * (1 - t * t), None\n",
         "no gradient for s", "function.scale-grad"),
        (TANH_UP_TO_BACKWARD + "        return grad_out * s * (1 - t * t), (grad_out * t).mean()\n",
         "the MEAN", "function.scale-grad"),
        # the order of forward's inputs swapped
        (TANH_UP_TO_BACKWARD + "        return (grad_out * t).sum(), grad_out * s * (1 - t * t)\n",
         "in forward's order", "function.one-grad-per-input"),
        ("class ScaledTanh(torch.autograd.Function):\n"
         "    @staticmethod\n"
         "    def forward(ctx, x, s):\n"
         "        return s * torch.tanh(x)\n\n"
         "    @staticmethod\n"
         "    def backward(ctx, grad_out):\n"
         "        x, s = ctx.saved_tensors\n"
         "        t = torch.tanh(x)\n"
         "        return grad_out * s * (1 - t * t), (grad_out * t).sum()\n",
         "ctx.save_for_backward(", "function.save-for-backward"),
    ],
    "02_autograd-mlp-backward": [
        (TIED_FORWARD + "    dy = 2 * (y - x) / y.numel()\n" + MASKED +
         "    return dz.T @ x, dz.sum(0), dy.sum(0)\n",
         "only the encoder's use", "mlp.tied-one-path"),
        (TIED_FORWARD + "    dy = 2 * (y - x) / y.numel()\n" + MASKED +
         "    return h.T @ dy, dz.sum(0), dy.sum(0)\n",
         "only the decoder's use", "mlp.tied-one-path"),
        (TIED_FORWARD + "    dy = 2 * (y - x) / y.numel()\n"
         "    dz = dy @ W.T\n" + TIED_RETURN, "ignores the ReLU", "mlp.relu-mask"),
        (TIED_FORWARD + "    dy = 2 * (y - x) / len(x)\n" + MASKED + TIED_RETURN,
         "D times too large", "mlp.mean-factor"),
        # divided by D, the entries per row: a mean over N·D needs N as well
        (TIED_FORWARD + "    dy = 2 * (y - x) / x.shape[1]\n" + MASKED + TIED_RETURN,
         "N times too large", "mlp.mean-factor"),
        (TIED_FORWARD + "    dy = (y - x) / y.numel()\n" + MASKED + TIED_RETURN,
         "is 2(y - x)", "mlp.missing-factor-2"),
        # the encoder's rule copied for the decoder: dh = dy W does not fit (N, D) @ (H, D)
        (TIED_FORWARD + "    dy = 2 * (y - x) / y.numel()\n"
         "    dz = (dy @ W) * (z > 0)\n" + TIED_RETURN,
         "the other way round", "mlp.weight-grad-transpose"),
        # the decoder's share with the encoder's rule dyᵀh: (D, H), not W's (H, D)
        (TIED_FORWARD + "    dy = 2 * (y - x) / y.numel()\n" + MASKED +
         "    return dz.T @ x + dy.T @ h, dz.sum(0), dy.sum(0)\n",
         "the other way round", "mlp.weight-grad-transpose"),
        # a bias gradient averaged over the batch
        (TIED_FORWARD + "    dy = 2 * (y - x) / y.numel()\n" + MASKED +
         "    return dz.T @ x + h.T @ dy, dz.mean(0), dy.mean(0)\n",
         "batch MEAN of the adjoint", "mlp.bias-sum"),
        # autograd switched back on inside the test's no_grad, not derived by hand
        ("def tied_grads(x, W, b1, b2):\n"
         "    with torch.enable_grad():\n"
         "        params = [p.clone().requires_grad_() for p in (W, b1, b2)]\n"
         "        y = torch.relu(x @ params[0].T + params[1]) @ params[0] + params[2]\n"
         "        return torch.autograd.grad(((y - x) ** 2).mean(), params)\n",
         "Derive each gradient by hand", "mlp.used-autograd"),
    ],
}

# Other correct answers (an explicit stack for recursion, backward for autograd.grad, ...).
ALTERNATIVE = {
    "02_autograd-quiz-seed": "answer_seed_grad = -1",
    "02_autograd-walk": (         # Kahn's order: a node runs when its last consumer has sent
        "from collections import deque\n"
        "def walk_grads(output, leaves):\n"
        "    users, seen, stack = {}, {output.grad_fn}, [output.grad_fn]\n"
        "    while stack:\n"
        "        node = stack.pop()\n"
        "        for child, _ in node.next_functions:\n"
        "            if child is None:\n"
        "                continue\n"
        "            users[child] = users.get(child, 0) + 1\n"
        "            if child not in seen:\n"
        "                seen.add(child)\n"
        "                stack.append(child)\n"
        "    sums, result = {output.grad_fn: torch.ones_like(output)}, {}\n"
        "    ready = deque([output.grad_fn])\n"
        "    while ready:\n"
        "        node = ready.popleft()\n"
        "        g_node = sums.pop(node)\n"
        "        if type(node).__name__ == 'AccumulateGrad':\n"
        "            result[id(node.variable)] = g_node\n"
        "            continue\n"
        "        outs = node(g_node)\n"
        "        outs = outs if isinstance(outs, tuple) else (outs,)\n"
        "        for (child, _), g in zip(node.next_functions, outs):\n"
        "            if child is None:\n"
        "                continue\n"
        "            if g is not None:\n"
        "                sums[child] = sums[child] + g if child in sums else g\n"
        "            users[child] -= 1\n"
        "            if users[child] == 0 and child in sums:\n"
        "                ready.append(child)\n"
        "    return [result.get(id(leaf)) for leaf in leaves]\n"),
    "02_autograd-fanout": "fanout_grad = 8",
    "02_autograd-quiz-no-grad": "answer_no_grad = [False, True, True, True]",
    "02_autograd-vjp": (          # one fresh graph per sample, backward with an identity row
        "def per_sample_grads(loss_fn, w):\n"
        "    rows = []\n"
        "    for n in range(loss_fn(w).numel()):\n"
        "        leaf = w.detach().clone().requires_grad_()\n"
        "        losses = loss_fn(leaf)\n"
        "        losses.backward(gradient=torch.eye(losses.numel(), dtype=losses.dtype)[n])\n"
        "        rows.append(leaf.grad)\n"
        "    return torch.stack(rows)\n"),
    "02_autograd-accumulate": (
        "def full_batch_grad(w, X, Y, chunk):\n"
        "    total = torch.zeros_like(w)\n"
        "    for xb, yb in zip(X.split(chunk), Y.split(chunk)):\n"
        "        loss = ((xb @ w - yb) ** 2).mean() * len(xb) / len(X)\n"
        "        total = total + torch.autograd.grad(loss, w)[0]\n"
        "    return total\n"),
    "02_autograd-hvp": (          # a vector-Jacobian product of the gradient: Hᵀv = Hv
        "def hvp(f, x, v):\n"
        "    leaf = x.clone().detach().requires_grad_(True)\n"
        "    grad_f, = torch.autograd.grad(f(leaf).sum(), leaf, create_graph=True)\n"
        "    return torch.autograd.grad(grad_f, leaf, grad_outputs=v)[0]\n"),
    "02_autograd-ste": (          # inside the window x plus a detached step; outside sign itself
        "def sign_ste(x):\n"
        "    return torch.where(x.abs() <= 1, x + (torch.sign(x) - x).detach(), torch.sign(x))\n"),
    "02_autograd-quiz-walk-calls": "answer_walk_calls = 2 ** 10 - 1",
    "02_autograd-function": (        # saves x, recomputes tanh, 1/cosh², s's gradient by a dot
        "class ScaledTanh(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x, s):\n"
        "        ctx.save_for_backward(x, s)\n"
        "        return torch.tanh(x) * s\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_out):\n"
        "        x, s = ctx.saved_tensors\n"
        "        return (grad_out * s / torch.cosh(x) ** 2,\n"
        "                torch.dot(grad_out.flatten(), torch.tanh(x).flatten()))\n"),
    "02_autograd-mlp-backward": (         # both uses of W summed by einsum, mask by where
        "def tied_grads(x, W, b1, b2):\n"
        "    z = torch.addmm(b1, x, W.t())\n"
        "    h = z.clamp(min=0)\n"
        "    g = (torch.addmm(b2, h, W) - x) * (2.0 / x.numel())\n"
        "    gz = torch.where(z > 0, g @ W.t(), torch.zeros_like(z))\n"
        "    dW = torch.einsum('nh,nd->hd', gz, x) + torch.einsum('nh,nd->hd', h, g)\n"
        "    return dW, gz.sum(dim=0), g.sum(dim=0)\n"),
}
