"""What notebook 02's test cells share between their two halves (as helpers.training_tasks
does for 04): the visible check runs the student's function in the kernel, the judge checks
what the hidden probe reported, and both name a misconception through the same function.

Nothing here is an answer: ``check_tied`` says which known wrong gradient a result is, and
the right one comes from autograd."""

from __future__ import annotations

import torch

from helpers import checks
from helpers.refuse import refusing

TIED_HINT = ("[mc:mlp.linear-rules] Work back from dy = 2(y - x)/(N·D): each use of W is a Linear "
             "layer whose rule you can read off its shapes, the ReLU multiplies by (z > 0), and "
             "where W is used twice the two gradients add.")
_TRANSPOSED = ("[mc:mlp.weight-grad-transpose] Shapes do not fit: y = h W uses W the other way "
               "round from z = x Wᵀ + b1, so its rule is transposed too. Write each tensor's "
               "shape beside it.")
_CALLED_AUTOGRAD = "tied_grads called autograd (backward, torch.autograd.grad or torch.func)"
# what an error raised inside tied_grads means (checks.explain_errors, got.value)
TIED_ERRORS = {_CALLED_AUTOGRAD: "[mc:mlp.used-autograd] Derive each gradient by hand with the chain rule: "
                                 "autograd is what the test checks your gradients against.",
               "shapes cannot be multiplied": _TRANSPOSED, "must match the size": _TRANSPOSED, "": TIED_HINT}
_BIAS_SUM = "[mc:mlp.bias-sum] A bias is added to every row, so its gradient sums the adjoint over the batch."
_SHAPE_WHY = {"dW": "[mc:mlp.weight-grad-transpose] A gradient has its parameter's shape, "
                    "(H, D) for W: check which way round each use of W multiplies.",
              "db1": _BIAS_SUM, "db2": _BIAS_SUM}


def without_autograd() -> refusing:
    """A block in which backward, torch.autograd.grad and torch.func's transforms refuse, so
    that tied_grads' gradients are its own (torch.no_grad() alone can be switched back on)."""
    return refusing(["torch.autograd.grad", "torch.autograd.backward", "torch.Tensor.backward",
                     "torch.func.grad", "torch.func.vjp", "torch.func.jacrev"], _CALLED_AUTOGRAD)


def tied_case(seed: int, n: int = 6, d: int = 4, hidden: int = 3) -> tuple:
    """x (n, d), W (hidden, d), b1 (hidden,), b2 (d,) in float64, drawn from ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(s, generator=gen, dtype=torch.float64) for s in [(n, d), (hidden, d), (hidden,), (d,)])


def tied_reference(x, W, b1, b2) -> tuple:
    """The gradients of mean((relu(x Wᵀ + b1) W + b2 - x)²) for W, b1 and b2, by autograd."""
    params = [p.clone().requires_grad_() for p in (W, b1, b2)]
    y = torch.relu(x @ params[0].T + params[1]) @ params[0] + params[2]
    return torch.autograd.grad(((y - x) ** 2).mean(), params)


def check_tied(mine, x, W, b1, b2, what: str) -> tuple:
    """tied_grads(x, W, b1, b2) returned ``mine`` (``what`` names the call): three gradients of
    the parameters' shapes, none of them a known wrong one. Returns autograd's gradients."""
    with checks.because(TIED_HINT):
        checks.expect_type(mine, (tuple, list), what)
        checks.expect_equal(len(mine), 3, f"the number of gradients {what} returned")
    for name, g, p in zip(("dW", "db1", "db2"), mine, (W, b1, b2)):
        with checks.because(_SHAPE_WHY[name]):
            checks.expect_shape(g, tuple(p.shape), f"{name} of {what}")
    n, d = x.shape
    ref = tied_reference(x, W, b1, b2)
    z = x @ W.T + b1
    dy = 2 * (torch.relu(z) @ W + b2 - x) / x.numel()
    decoder = torch.relu(z).T @ dy
    wrong = {
        ((dy @ W.T) * (z > 0)).T @ x: "[mc:mlp.tied-one-path] dW holds only the encoder's use of W "
                                      "(z = x Wᵀ + b1): W is used twice, and the decoder's use (y = h W) "
                                      "adds its own gradient.",
        decoder: "[mc:mlp.tied-one-path] dW holds only the decoder's use of W (y = h W): W is "
                 "used twice, and the encoder's use (z = x Wᵀ + b1) adds its own gradient.",
        decoder + ((dy @ W.T).T @ x): "[mc:mlp.relu-mask] The encoder's share of dW ignores "
                                      "the ReLU: multiply the adjoint by its derivative, the "
                                      "mask (z > 0).",
        ref[0] * x.numel(): "[mc:mlp.mean-factor] dW is N·D times too large: the loss is a "
                            "mean over all elements, so dy carries 1/(N·D).",
        ref[0] * d: "[mc:mlp.mean-factor] dW is D times too large: the loss is a mean over "
                    "all N·D elements, not over the N rows.",
        ref[0] * n: "[mc:mlp.mean-factor] dW is N times too large: the loss is a mean over "
                    "all N·D elements, not over the D columns.",
        ref[0] / 2: "[mc:mlp.missing-factor-2] dW is half the true gradient: the derivative of "
                    "(y - x)² is 2(y - x)."}
    # on a small case a wrong rule can give the right number (D = 1, N = 1): never blame it
    checks.reject_close(mine[0], {k: v for k, v in wrong.items() if not torch.allclose(k, ref[0])},
                        f"dW of {what}")
    for name, k in (("db1", 1), ("db2", 2)):
        # the mean equals the sum when N = 1 or when the gradient is 0 (every ReLU off)
        checks.reject_close(mine[k], {
            ref[k] / n: f"[mc:mlp.bias-sum] {name} is the batch MEAN of the adjoint: the "
                        "bias is added to every row, so its gradient is the sum over the "
                        "batch."} if not torch.allclose(ref[k] / n, ref[k]) else {}, f"{name} of {what}")
    return ref
