"""Plausible wrong answers (with the phrase their test output must name) and other
correct ways to write each exercise of 02_autograd."""

# A correct forward and the start of backward; the wrong variants differ in the last line.
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

WRONG = {
    "02_autograd-quiz-leaves": [("answer_leaves = 1", "does not require grad is also a leaf")],
    "02_autograd-quiz-seed": [("answer_seed_grad = 32.0", "derived at b = 3 only")],
    "02_autograd-quiz-accumulate": [("answer_accumulated = 3.0", "accumulate")],
    "02_autograd-quiz-no-grad": [("answer_no_grad = True", "nothing is recorded")],
    "02_autograd-fanout": [
        ("fanout_grad = 2.0 * (-1.0 + 2 * 2.0)", "only the path through q"),
        ("fanout_grad = (2.0 * -1.0 + 2.0 ** 2)", "only the direct path"),
    ],
    "02_autograd-vjp": [(
        "def vjp(f, x, v):\n"
        "    x = x.detach().requires_grad_(True)\n"
        "    f(x).sum().backward()\n"
        "    return x.grad\n",
        "gradient of y.sum()",
    )],
    "02_autograd-accumulate": [
        ("def accumulated_grad(w, X, Y, chunk):\n"
         "    for start in range(0, len(X), chunk):\n"
         "        xb, yb = X[start:start + chunk], Y[start:start + chunk]\n"
         "        (((xb @ w - yb) ** 2).sum() / len(X)).backward()\n"
         "    return w.grad.clone()\n",
         "stale gradient"),
        ("def accumulated_grad(w, X, Y, chunk):\n"
         "    w.grad = None\n"
         "    for start in range(0, len(X), chunk):\n"
         "        xb, yb = X[start:start + chunk], Y[start:start + chunk]\n"
         "        ((xb @ w - yb) ** 2).mean().backward()\n"
         "    return w.grad.clone()\n",
         "equal weight"),
    ],
    "02_autograd-why-none": [
        ("def make_weight(values):\n"
         "    return torch.tensor(values, requires_grad=True).double()\n",
         "non-leaf"),
        ("def make_weight(values):\n"
         "    return torch.tensor(values, dtype=torch.float64)\n",
         "does not require grad"),
    ],
    "02_autograd-ste": [
        ("def ste_round(x):\n    return torch.round(x)\n", "torch.round is flat"),
        ("def ste_round(x):\n    return torch.round(x.detach())\n", "cut from the graph"),
    ],
    "02_autograd-function": [(
        SOFTPLUS_UP_TO_BACKWARD +
        "        return torch.sigmoid(x)\n",
        "ignores grad_out",
    ), (
        SOFTPLUS_UP_TO_BACKWARD +
        "        return grad_out * torch.exp(x)\n",
        "gradcheck",
    )],
    "02_autograd-mlp-backward": [
        ("def mlp_grads(x, t, W1, b1, W2, b2):\n"
         "    z = x @ W1.T + b1\n"
         "    h = torch.relu(z)\n"
         "    y = h @ W2.T + b2\n"
         "    dy = 2 * (y - t) / y.numel()\n"
         "    dh = dy @ W2\n"
         "    return dh.T @ x, dh.sum(0), dy.T @ h, dy.sum(0)\n",
         "ignores the ReLU"),
        ("def mlp_grads(x, t, W1, b1, W2, b2):\n"
         "    z = x @ W1.T + b1\n"
         "    h = torch.relu(z)\n"
         "    y = h @ W2.T + b2\n"
         "    dy = 2 * (y - t) / len(x)\n"
         "    dz = (dy @ W2) * (z > 0)\n"
         "    return dz.T @ x, dz.sum(0), dy.T @ h, dy.sum(0)\n",
         "K times too large"),
        ("def mlp_grads(x, t, W1, b1, W2, b2):\n"
         "    z = x @ W1.T + b1\n"
         "    h = torch.relu(z)\n"
         "    y = h @ W2.T + b2\n"
         "    dy = 2 * (y - t) / y.numel()\n"
         "    dz = (dy @ W2) * (z > 0)\n"
         "    return x.T @ dz, dz.sum(0), dy.T @ h, dy.sum(0)\n",
         "transpose"),
    ],
}

ALTERNATIVE = {
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
