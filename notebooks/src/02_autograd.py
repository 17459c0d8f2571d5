# %% [markdown]
# # 02 Autograd: the dynamic graph
#
# Every training step ends with `loss.backward()`, and after it every parameter has a
# `.grad`. That one line hides a data structure: while your code runs, PyTorch records
# each operation in a graph, and `backward` walks that graph from the loss back to the
# parameters applying the chain rule. When you can see the graph, the surprises of
# autograd (a gradient that is `None`, one that doubles, an in-place error) stop being
# surprises.
#
# **You will learn to**
# - tell leaves from intermediates and read `grad_fn` / `next_functions`;
# - compute a backward pass by hand (adjoints add over paths) and check it three ways;
# - use vector-Jacobian products, gradient accumulation, `retain_grad`, `no_grad`, `detach`;
# - recognise and fix the two in-place errors;
# - write a custom `autograd.Function` and prove its backward with `gradcheck`.
#
# **Prerequisites:** notebook 01 (tensors, shapes, broadcasting), the chain rule from calculus.

# %%
import math
import warnings

import numpy as np
import torch

import helpers.autograd_graph
from helpers import checks

torch.manual_seed(0)

# %% [markdown]
# ## 1. requires_grad, leaves and intermediates
#
# A tensor you create yourself with `requires_grad=True` is a **leaf**: autograd will
# store its gradient in `.grad`. Every result computed from it is an **intermediate**: it
# has a `grad_fn`, the backward node that knows how to push a gradient to its inputs.
# Tensors that do not require grad are leaves too, but nothing is recorded for them.

# %%
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
for name, t in [("a", a), ("b", b), ("c", c)]:
    print(f"{name}: is_leaf={t.is_leaf}, requires_grad={t.requires_grad}, grad_fn={t.grad_fn}")

# %% [markdown]
# `grad_fn.next_functions` links each node to the nodes of its inputs. For a leaf that
# node is an `AccumulateGrad`, whose `.variable` is the leaf itself: this is where the
# gradient is finally added into `.grad`.

# %%
print(c.grad_fn.next_functions)
print(c.grad_fn.next_functions[0][0].variable is a)

# %% [markdown]
# **Quick quiz.** After `x = torch.randn(3, requires_grad=True)`, `y = x * 2` and
# `z = y.detach()`, how many of `x`, `y`, `z` are leaves (`is_leaf` is True)?
# Put a whole number in `answer_leaves`.

# %% solution 02_autograd-quiz-leaves
### BEGIN SOLUTION
answer_leaves = 2
### END SOLUTION

# %% test 02_autograd-quiz-leaves-test points=1
checks.expect_type(answer_leaves, int, "answer_leaves")
checks.reject(answer_leaves, {
    1: "Only x? A tensor that does not require grad is also a leaf: it has no grad_fn.",
    3: "y was computed by an operation on a tensor that requires grad, so it has a grad_fn.",
}, "answer_leaves")
### BEGIN HIDDEN TESTS
_x = torch.randn(3, requires_grad=True)
_y = _x * 2
assert answer_leaves == sum(t.is_leaf for t in (_x, _y, _y.detach()))
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Define-by-run: the graph is built as the code runs
#
# There is no graph before the forward pass. Each operation appends a node as it
# executes, so ordinary Python `if`s and loops decide the graph's shape: two calls of
# the same function can record different graphs.

# %%
def branchy(x):
    if x > 0:
        return x * x
    return torch.exp(x)


for value in (1.5, -1.5):
    out = branchy(torch.tensor(value, requires_grad=True))
    print(f"x = {value:+}: grad_fn = {out.grad_fn.name()}")

# %% [markdown]
# Move the slider across 0 and watch the recorded graph change.

# %%
helpers.autograd_graph.explore(branchy, x=(-2, 2, 0.1, 1.0))

# %% [markdown]
# ## 3. Backward is the reverse-mode chain rule
#
# Take the seed graph c = a·b, d = c + a, L = d² at a = 2, b = 3. Walk it backwards,
# carrying the **adjoint** of each node (dL/d node):
#
# - dL/dL = 1, dL/dd = 2d;
# - d = c + a passes its adjoint unchanged to both c and a;
# - c = a·b sends dL/dc·b to a and dL/dc·a to b.
#
# `a` is used twice (it **fans out**), so its gradient is the **sum** over both paths.
# First by hand in NumPy:

# %%
a_np, b_np = np.float64(2.0), np.float64(3.0)
c_np = a_np * b_np
d_np = c_np + a_np
L_np = d_np ** 2
gL_d = 2 * d_np                 # dL/dd
gL_c = gL_d * 1.0               # through d = c + a
path_via_c = gL_c * b_np        # a's share through c = a·b
path_direct = gL_d * 1.0        # a's share through d = c + a
grad_a_np = path_via_c + path_direct
grad_b_np = gL_c * a_np
print(f"L = {L_np}, dL/dd = {gL_d}")
print(f"a.grad = {path_via_c} (via c) + {path_direct} (direct) = {grad_a_np}")
print(f"b.grad = {grad_b_np}")

# %% [markdown]
# Then with autograd:

# %%
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
L = (a * b + a) ** 2
L.backward()
print(f"L = {L.item()}, a.grad = {a.grad.item()}, b.grad = {b.grad.item()}")

# %% [markdown]
# And with a finite-difference check, (f(x + h) − f(x − h)) / 2h, which needs no
# calculus at all (float64 keeps rounding error far below the difference we measure):

# %%
def seed_L(a, b):
    return (a * b + a) ** 2


h = 1e-6
fd_a = (seed_L(2.0 + h, 3.0) - seed_L(2.0 - h, 3.0)) / (2 * h)
fd_b = (seed_L(2.0, 3.0 + h) - seed_L(2.0, 3.0 - h)) / (2 * h)
print(f"finite differences: dL/da ≈ {fd_a:.6f}, dL/db ≈ {fd_b:.6f}")

# %% [markdown]
# The visualizer draws the same graph from `grad_fn`: forward values on the nodes,
# adjoints in red on the edges, and the fan-out of `a` summed. Some texts say a.grad
# "follows 16b + 16"; that is only true at b = 3, because d changes with b. The truth is
# a.grad = 2d·(b + 1). Move b and compare.

# %%
helpers.autograd_graph.explore()

# %%
for b_value in (3.0, 1.0, -2.0):
    g = helpers.autograd_graph.seed_graph(2.0, b_value)
    d_value = 2.0 * b_value + 2.0
    print(f"b = {b_value:+}: a.grad = {g.leaf('a').grad.item():g}, "
          f"2d(b+1) = {2 * d_value * (b_value + 1):g}, 16b+16 = {16 * b_value + 16:g}")

# %% [markdown]
# **Quick quiz.** In the seed graph at a = 2, b = 1, what is a.grad? (Use the
# instrument or work it out.) Put the number in `answer_seed_grad`.

# %% solution 02_autograd-quiz-seed
### BEGIN SOLUTION
answer_seed_grad = 16.0
### END SOLUTION

# %% test 02_autograd-quiz-seed-test points=1
checks.reject(answer_seed_grad, {
    32: "16b + 16 was derived at b = 3 only: d = a·b + a changes with b, and so does its adjoint 2d.",
    8: "That is only one path: a reaches L through c and directly, and the adjoints add.",
}, "answer_seed_grad")
### BEGIN HIDDEN TESTS
_a = torch.tensor(2.0, requires_grad=True)
((_a * 1.0 + _a) ** 2).backward()
assert math.isclose(float(answer_seed_grad), _a.grad.item())
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 1: predict a gradient through fan-out (2 points)
#
# *Misconception targeted: following only one path from a variable to the output.*
#
# With x = 2 and y = −1, let q = x·y + x², and out = q·x. Compute d out / dx **by hand**
# (no autograd) and store it as a number in `fanout_grad`. Hint: x reaches `out` along
# three edges.

# %% solution 02_autograd-fanout
### BEGIN SOLUTION
x_val, y_val = 2.0, -1.0
q_val = x_val * y_val + x_val ** 2
fanout_grad = q_val + x_val * (y_val + 2 * x_val)
### END SOLUTION

# %% test 02_autograd-fanout-test points=2
checks.reject_close(fanout_grad, {
    6.0: "That is only the path through q: x also multiplies q directly (out = q·x), "
         "and the adjoints of all paths add up.",
    2.0: "That is only the direct path (out = q·x gives q): x also reaches out through q.",
    10.0: "Inside q, x appears twice (x·y and x²): both terms contribute to dq/dx.",
    0.0: "Inside q, x appears twice (x·y and x²): both terms contribute to dq/dx.",
}, "fanout_grad")
### BEGIN HIDDEN TESTS
_x = torch.tensor(2.0, requires_grad=True)
_q = _x * -1.0 + _x ** 2
(_q * _x).backward()
checks.expect_close(fanout_grad, _x.grad.item(), "fanout_grad")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Vector-Jacobian products
#
# `backward()` with no argument only works on a scalar. For a vector output y = f(x),
# autograd never builds the Jacobian J: it computes **vᵀJ** for a vector v you supply
# (`y.backward(gradient=v)`). A scalar loss is the case v = 1.

# %%
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
with checks.expect_error(RuntimeError):
    y.backward()
v = torch.tensor([1.0, 0.5, -1.0])
y.backward(gradient=v)
print("x.grad =", x.grad, " (2x·v =", 2 * x.detach() * v, ")")

# %% [markdown]
# ### Exercise 2: a vector-Jacobian product (2 points)
#
# *Misconception targeted: `y.sum().backward()` is not vᵀJ for a general v.*
#
# Write `vjp(f, x, v)` returning vᵀ·∂f/∂x (a tensor shaped like `x`) for a function `f`
# from a 1-D tensor to a 1-D tensor. `x` may not require grad; do not build the Jacobian,
# and do not leave anything in the caller's `x.grad`.

# %% solution 02_autograd-vjp
### BEGIN SOLUTION
def vjp(f, x, v):
    x = x.detach().requires_grad_(True)
    y = f(x)
    (grad,) = torch.autograd.grad(y, x, grad_outputs=v)
    return grad
### END SOLUTION

# %% test 02_autograd-vjp-test points=2
def _f(x):
    return torch.stack([x[0] * x[1], x[1] ** 2, torch.sin(x[2]), x.sum()])


_x0 = torch.tensor([1.0, 2.0, 0.5])
_v = torch.tensor([1.0, -2.0, 0.5, 3.0])
_got = vjp(_f, _x0, _v)
checks.expect_type(_got, torch.Tensor, "vjp(f, x, v)")
checks.expect_shape(_got, (3,), "vjp(f, x, v)")
_J = torch.autograd.functional.jacobian(_f, _x0)
checks.reject_close(_got, {_J.sum(0): "This is the gradient of y.sum(), i.e. v = ones: "
                                     "multiply by the given v (backward's gradient argument)."},
                    "vjp(f, x, v)")
assert _x0.grad is None, "vjp left a gradient in the caller's x.grad"
### BEGIN HIDDEN TESTS
checks.expect_close(_got, _v @ _J, "vjp(f, x, v)")
_w = torch.randn(5, dtype=torch.float64)
_A = torch.randn(2, 5, dtype=torch.float64)
_u = torch.randn(2, dtype=torch.float64)
checks.expect_close(vjp(lambda t: _A @ torch.tanh(t), _w, _u),
                    _u @ torch.autograd.functional.jacobian(lambda t: _A @ torch.tanh(t), _w),
                    "vjp on a 2×5 map")
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Gradients accumulate
#
# `backward` **adds** into `.grad`; it never overwrites. Call it twice and the gradient
# doubles. That is why training loops call `optimizer.zero_grad()` (which sets
# `.grad = None` by default) before each backward.

# %%
w = torch.tensor(1.5, requires_grad=True)
for step in range(3):
    (3 * w).backward()
    print(f"after backward #{step + 1}: w.grad = {w.grad.item()}")
w.grad = None
(3 * w).backward()
print("after resetting to None and one more backward:", w.grad.item())

# %% [markdown]
# The legitimate use is **gradient accumulation**: when a batch does not fit in memory,
# run backward on several micro-batches, each loss weighted by its share of the batch,
# and step once. The sum equals the full-batch gradient:

# %%
X, Y = torch.randn(8, 3), torch.randn(8)
w = torch.zeros(3, requires_grad=True)
((X @ w - Y) ** 2).mean().backward()
full = w.grad.clone()
w.grad = None
for xb, yb in ((X[:4], Y[:4]), (X[4:], Y[4:])):
    (((xb @ w - yb) ** 2).mean() * len(xb) / len(X)).backward()
print("full batch:  ", full)
print("accumulated: ", w.grad)
print("equal:", torch.allclose(full, w.grad))

# %% [markdown]
# **Quick quiz.** `x = torch.tensor(1.0, requires_grad=True)`, `y = 3 * x`, then
# `y.backward(retain_graph=True)` twice. What is `x.grad`? Put the number in
# `answer_accumulated`.

# %% solution 02_autograd-quiz-accumulate
### BEGIN SOLUTION
answer_accumulated = 6.0
### END SOLUTION

# %% test 02_autograd-quiz-accumulate-test points=1
checks.reject(answer_accumulated, {
    3: "The second backward does not replace x.grad: gradients accumulate (add up).",
}, "answer_accumulated")
### BEGIN HIDDEN TESTS
_x = torch.tensor(1.0, requires_grad=True)
_y = 3 * _x
_y.backward(retain_graph=True)
_y.backward()
assert math.isclose(float(answer_accumulated), _x.grad.item())
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 3: gradient accumulation (2 points)
#
# *Misconception targeted: forgetting that `.grad` already holds something, or summing
# micro-batch means without weighting them.*
#
# Write `accumulated_grad(w, X, Y, chunk)` that returns the gradient of the full-batch
# loss `((X @ w - Y) ** 2).mean()` with respect to the leaf `w`, computed by calling
# `backward` once per chunk of `chunk` rows (the last chunk may be smaller). `w.grad` may
# hold a stale value when it is called. Return a tensor shaped like `w`.

# %% solution 02_autograd-accumulate
### BEGIN SOLUTION
def accumulated_grad(w, X, Y, chunk):
    w.grad = None
    for start in range(0, len(X), chunk):
        xb, yb = X[start:start + chunk], Y[start:start + chunk]
        (((xb @ w - yb) ** 2).sum() / len(X)).backward()
    return w.grad.clone()
### END SOLUTION

# %% test 02_autograd-accumulate-test points=2
_X, _Y = torch.randn(10, 3, dtype=torch.float64), torch.randn(10, dtype=torch.float64)
_w = torch.randn(3, dtype=torch.float64, requires_grad=True)
((_X @ _w - _Y) ** 2).mean().backward()
_true = _w.grad.clone()
_stale = torch.full_like(_true, 5.0)
_w.grad = _stale.clone()
_got = accumulated_grad(_w, _X, _Y, 4)
checks.expect_shape(_got, (3,), "accumulated_grad")
_parts = [((_X[i:i + 4] @ _w - _Y[i:i + 4]) ** 2).mean() for i in range(0, 10, 4)]
_unweighted = torch.autograd.grad(sum(_parts), _w)[0]
checks.reject_close(_got, {
    _true + _stale: "The stale gradient is still in there: backward adds to w.grad, so "
                    "reset it (w.grad = None or w.grad.zero_()) first.",
    _unweighted: "Each chunk's mean was added with equal weight: weight every chunk's "
                 "loss by its share of the rows (len(chunk) / len(X)).",
}, "accumulated_grad")
### BEGIN HIDDEN TESTS
checks.expect_close(_got, _true, "accumulated_grad")
_w2 = torch.randn(3, dtype=torch.float64, requires_grad=True)
((_X @ _w2 - _Y) ** 2).mean().backward()
_true2 = _w2.grad.clone()
_w2.grad = None
checks.expect_close(accumulated_grad(_w2, _X, _Y, 3), _true2, "accumulated_grad, chunk 3")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. retain_grad: gradients of intermediates
#
# Only leaves keep `.grad`. Reading `.grad` of an intermediate gives `None` (and a
# warning). Ask for it with `retain_grad()` before backward.

# %%
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
d = c + a
d.retain_grad()
L = d ** 2
L.backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("c.grad:", c.grad)
print("warning:", str(caught[0].message)[:90] + "…" if caught else "(none)")
print("d.grad (retained):", d.grad.item())

# %% [markdown]
# ## 7. Stopping the graph: no_grad, detach, and the legacy .data
#
# - `with torch.no_grad():` records nothing inside the block (evaluation, weight updates);
# - `t.detach()` returns a tensor that shares memory with `t` but is cut from the graph;
# - `t.data` does the same but hides in-place changes from autograd: gradients can
#   come out silently wrong. Prefer `detach()`.

# %%
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y_ng = x * 2
y_det = (x * 2).detach()
print("no_grad:", y_ng.requires_grad, y_ng.grad_fn, "| detach:", y_det.requires_grad,
      "| shares memory with x:", x.detach().data_ptr() == x.data_ptr())

# %% [markdown]
# Modify a saved result through `detach()` and autograd notices; through `.data` it
# does not, and the gradient is wrong (exp's derivative is exp(x), never 0):

# %%
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.detach().zero_()
with checks.expect_error(RuntimeError):
    y.sum().backward()

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.data.zero_()
y.sum().backward()
print("x.grad after .data edit:", x.grad, " true exp(x):", torch.exp(x.detach()))

# %% [markdown]
# **Quick quiz.** True or false: a tensor computed inside `with torch.no_grad():` from a
# tensor that requires grad has `requires_grad=True`. Put `True` or `False` in
# `answer_no_grad`.

# %% solution 02_autograd-quiz-no-grad
### BEGIN SOLUTION
answer_no_grad = False
### END SOLUTION

# %% test 02_autograd-quiz-no-grad-test points=1
checks.expect_type(answer_no_grad, bool, "answer_no_grad")
checks.reject(answer_no_grad, {
    True: "Inside no_grad nothing is recorded: results have no grad_fn and do not require grad.",
}, "answer_no_grad")
### BEGIN HIDDEN TESTS
with torch.no_grad():
    _r = torch.ones(1, requires_grad=True) * 2
assert answer_no_grad == _r.requires_grad
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 4: why is this gradient None? (2 points)
#
# *Misconception targeted: an operation after `requires_grad=True` makes a non-leaf.*
#
# This code leaves `w.grad` as `None` after backward:
#
# ```python
# w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).double()
# ```
#
# `.double()` is an operation, so `w` is its result, not the tensor that will collect
# the gradient. Write `make_weight(values)` that returns a float64 **leaf** holding
# `values` that receives a gradient from `loss.backward()`.

# %% solution 02_autograd-why-none
### BEGIN SOLUTION
def make_weight(values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)
### END SOLUTION

# %% test 02_autograd-why-none-test points=2
_w = make_weight([1.0, 2.0, 3.0])
checks.expect_type(_w, torch.Tensor, "make_weight(...)")
if not _w.requires_grad:
    checks.reject(True, {True: "make_weight returned a tensor that does not require grad: "
                               "backward will never fill its .grad."}, "requires_grad")
if not _w.is_leaf:
    checks.reject(True, {True: "make_weight returned a non-leaf: an operation (.double(), "
                               ".to(), * 1) after requires_grad=True has a grad_fn, and only "
                               "leaves keep .grad. Create the tensor with the right dtype "
                               "and then ask for gradients."}, "is_leaf")
checks.expect_equal(_w.dtype, torch.float64, "dtype")
(_w * _w).sum().backward()
### BEGIN HIDDEN TESTS
assert _w.grad is not None
checks.expect_close(_w.grad, 2 * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), "w.grad")
_w2 = make_weight([[0.5, -1.0]])
assert _w2.is_leaf and _w2.shape == (1, 2)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 5: a straight-through estimator with detach (2 points)
#
# *Misconception targeted: `round` has zero gradient almost everywhere, and `.detach()`
# decides which part of an expression gradients flow through.*
#
# Write `ste_round(x)` whose **value** is `torch.round(x)` but whose gradient with
# respect to `x` is 1 everywhere (as if rounding were the identity).

# %% solution 02_autograd-ste
### BEGIN SOLUTION
def ste_round(x):
    return x + (torch.round(x) - x).detach()
### END SOLUTION

# %% test 02_autograd-ste-test points=2
_x = torch.tensor([0.2, 1.7, -2.4], requires_grad=True)
_y = ste_round(_x)
checks.expect_type(_y, torch.Tensor, "ste_round(x)")
if not _y.requires_grad:
    checks.reject(True, {True: "The result is cut from the graph (detached or built under "
                               "no_grad): no gradient can reach x."}, "ste_round(x)")
_y.sum().backward()
checks.reject_close(_x.grad, {torch.zeros(3): "The gradient is 0: torch.round is flat, so "
                                              "rounding must sit inside the detached part."},
                    "x.grad")
### BEGIN HIDDEN TESTS
checks.expect_close(_y.detach(), torch.round(_x.detach()), "ste_round(x) values")
checks.expect_close(_x.grad, torch.ones(3), "x.grad")
### END HIDDEN TESTS

# %% [markdown]
# ## 8. In-place operations and their two errors
#
# Autograd refuses two kinds of in-place change. An in-place operation **on a leaf**
# that requires grad would overwrite the very value gradients are taken against:

# %%
w = torch.tensor([-1.0, 2.0], requires_grad=True)
with checks.expect_error(RuntimeError):
    w.relu_()
with torch.no_grad():           # the fix for an intended update, e.g. an optimizer step
    w.mul_(0.5)
print("updated under no_grad:", w)

# %% [markdown]
# And an in-place change to a tensor **saved for backward** (exp saves its result) is
# detected through its version counter when backward runs:

# %%
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.exp(x)
y.add_(1)
with checks.expect_error(RuntimeError):
    y.sum().backward()
y = torch.exp(x) + 1            # fix: out of place
y.sum().backward()
print("x.grad =", x.grad)

# %% [markdown]
# ## 9. gradcheck and a custom autograd.Function
#
# `torch.autograd.gradcheck` compares the analytical Jacobian from backward with finite
# differences (use float64). A custom `Function` supplies both passes: `forward` saves
# what backward needs with `ctx.save_for_backward`, and `backward` receives the
# gradient of the output and returns one gradient per input (chain rule: multiply).

# %%
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 2 * x


class BadSquare(Square):
    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 2 * x                # forgets grad_out


xs = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("Square passes gradcheck:", torch.autograd.gradcheck(Square.apply, (xs,)))
print("BadSquare passes gradcheck:",
      torch.autograd.gradcheck(BadSquare.apply, (xs,), raise_exception=False))

# %% [markdown]
# ### Exercise 6: a custom Function for softplus (2 points)
#
# *Misconception targeted: backward must multiply by the incoming gradient.*
#
# softplus(x) = log(1 + eˣ), and its derivative is the sigmoid σ(x). Complete
# `Softplus` so that `Softplus.apply(x)` matches `torch.nn.functional.softplus(x)` and
# passes `gradcheck`.

# %% solution 02_autograd-function
### BEGIN SOLUTION
class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.nn.functional.softplus(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * torch.sigmoid(x)
### END SOLUTION

# %% test 02_autograd-function-test points=2
_x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
checks.expect_close(Softplus.apply(_x), torch.nn.functional.softplus(_x), "Softplus forward")
_up = torch.full((7,), 2.0, dtype=torch.float64)
(_g,) = torch.autograd.grad(Softplus.apply(_x), _x, _up)
(_g1,) = torch.autograd.grad(Softplus.apply(_x), _x, torch.ones(7, dtype=torch.float64))
checks.reject_close(_g, {_g1: "backward ignores grad_out: by the chain rule it must "
                              "multiply the local derivative by the incoming gradient."},
                    "the gradient for an upstream gradient of 2")
if not torch.autograd.gradcheck(Softplus.apply, (_x,), raise_exception=False):
    checks.reject(True, {True: "backward disagrees with finite differences (gradcheck): "
                               "the derivative of log(1 + e^x) is the sigmoid."}, "gradcheck")
### BEGIN HIDDEN TESTS
checks.expect_close(_g, 2 * torch.sigmoid(_x.detach()), "Softplus backward")
assert torch.autograd.gradcheck(Softplus.apply, (torch.randn(3, 2, dtype=torch.float64, requires_grad=True),))
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 7: backward of a two-layer MLP by hand (3 points)
#
# *Misconception targeted: forgetting the ReLU's mask, the mean's 1/N, or the transpose
# in a weight gradient.*
#
# For h = relu(x W1ᵀ + b1), y = h W2ᵀ + b2 and loss = mean((y − t)²) over all elements,
# write `mlp_grads(x, t, W1, b1, W2, b2)` returning `(dW1, db1, dW2, db2)` computed with
# tensor algebra only (the test calls it under `torch.no_grad()`). Shapes: x (N, D),
# W1 (H, D), b1 (H,), W2 (K, H), b2 (K,), t (N, K).

# %% solution 02_autograd-mlp-backward
### BEGIN SOLUTION
def mlp_grads(x, t, W1, b1, W2, b2):
    z = x @ W1.T + b1
    h = torch.relu(z)
    y = h @ W2.T + b2
    dy = 2 * (y - t) / y.numel()
    dW2 = dy.T @ h
    db2 = dy.sum(0)
    dh = dy @ W2
    dz = dh * (z > 0)
    dW1 = dz.T @ x
    db1 = dz.sum(0)
    return dW1, db1, dW2, db2
### END SOLUTION

# %% test 02_autograd-mlp-backward-test points=3
def _mlp_case(seed):
    gen = torch.Generator().manual_seed(seed)
    shapes = [(6, 4), (6, 3), (5, 4), (5,), (3, 5), (3,)]
    x, t, W1, b1, W2, b2 = (torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes)
    return x, t, W1, b1, W2, b2


_x, _t, _W1, _b1, _W2, _b2 = _mlp_case(1)
with torch.no_grad():
    _mine = mlp_grads(_x, _t, _W1, _b1, _W2, _b2)
checks.expect_type(_mine, (tuple, list), "mlp_grads(...)")
checks.expect_equal(len(_mine), 4, "the number of returned gradients")
for _name, _g, _p in zip(("dW1", "db1", "dW2", "db2"), _mine, (_W1, _b1, _W2, _b2)):
    checks.expect_shape(_g, tuple(_p.shape), _name)
_params = [p.clone().requires_grad_() for p in (_W1, _b1, _W2, _b2)]
_z = _x @ _params[0].T + _params[1]
_loss = ((torch.relu(_z) @ _params[2].T + _params[3] - _t) ** 2).mean()
_ref = torch.autograd.grad(_loss, _params)
_dy = (2 * (torch.relu(_z) @ _W2.T + _b2 - _t) / _t.numel()).detach()
_dz_nomask = _dy @ _W2
checks.reject_close(_mine[0], {
    _dz_nomask.T @ _x: "dW1 ignores the ReLU: multiply by its derivative, the mask (z > 0).",
    _ref[0] * _t.numel(): "dW1 is N·K times too large: the loss is a mean over all elements.",
    _ref[0] * _t.shape[1]: "dW1 is K times too large: the loss is a mean over all N·K elements, not N.",
}, "dW1")
### BEGIN HIDDEN TESTS
for _name, _g, _r in zip(("dW1", "db1", "dW2", "db2"), _mine, _ref):
    checks.expect_close(_g, _r, _name, rtol=1e-6, atol=1e-9)
_case = _mlp_case(7)
with torch.no_grad():
    _mine7 = mlp_grads(*_case)
_p7 = [p.clone().requires_grad_() for p in _case[2:]]
_l7 = ((torch.relu(_case[0] @ _p7[0].T + _p7[1]) @ _p7[2].T + _p7[3] - _case[1]) ** 2).mean()
for _name, _g, _r in zip(("dW1", "db1", "dW2", "db2"), _mine7, torch.autograd.grad(_l7, _p7)):
    checks.expect_close(_g, _r, _name, rtol=1e-6, atol=1e-9)
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# **1. Forgetting to reset `.grad`.** The second step's gradient includes the first:

# %%
w = torch.tensor(1.0, requires_grad=True)
for _ in range(2):
    (w * 4).backward()
print("without reset:", w.grad.item())
w.grad = None
(w * 4).backward()
print("with w.grad = None before backward:", w.grad.item())

# %% [markdown]
# **2. Calling backward twice on the same graph.** The saved tensors are freed after the
# first backward; keep them with `retain_graph=True` only when you really need two passes.

# %%
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
y.backward()
with checks.expect_error(RuntimeError):
    y.backward()
y = x ** 3
y.backward(retain_graph=True)
y.backward()
print("two passes with retain_graph:", x.grad.item())

# %% [markdown]
# **3. Backward on a non-scalar.** Reduce to a scalar loss, or pass `gradient=`:

# %%
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = 3 * x
with checks.expect_error(RuntimeError):
    y.backward()
y.sum().backward()
print("x.grad:", x.grad)

# %% [markdown]
# **4. An in-place update of a parameter outside no_grad.** Reproduced in section 8
# (`w.relu_()` on a leaf); the fix is `with torch.no_grad(): ...`.
#
# **5. Expecting `.grad` on an intermediate.** It stays `None` unless you call
# `retain_grad()` (section 6); only leaves keep gradients.

# %%
x = torch.tensor(1.0, requires_grad=True)
h = x * 5
with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # the warning is the mistake; shown in section 6
    print("h.grad without retain_grad:", h.grad)
h = x * 5
h.retain_grad()
(h * h).backward()
print("h.grad with retain_grad:", h.grad.item())

# %% [markdown]
# ## Summary
#
# - Leaves are tensors you create; intermediates carry a `grad_fn`, linked by
#   `next_functions` down to `AccumulateGrad` nodes of the leaves.
# - The graph is recorded as code runs; Python control flow shapes it.
# - Backward is the reverse-mode chain rule: adjoints flow from the output and **add**
#   where a value fans out. For a non-scalar output you supply v and get vᵀJ.
# - `.grad` accumulates: reset it (`zero_grad`, `grad = None`), or exploit it for
#   gradient accumulation with weighted micro-batches.
# - `no_grad` records nothing; `detach` cuts a tensor from the graph; `.data` hides
#   changes from autograd and can give silently wrong gradients.
# - In-place edits of leaves or saved tensors raise errors: update under `no_grad`,
#   or compute out of place.
# - A custom `Function` defines forward and backward; `gradcheck` verifies it.
#
# **Next:** 03_modules packages parameters (leaves with `requires_grad=True`) into
# `nn.Module`, and 04 turns backward plus an update into a training loop.
