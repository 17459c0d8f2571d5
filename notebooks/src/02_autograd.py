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
# - write a custom `autograd.Function` and test its backward with `gradcheck`.
#
# **Prerequisites:** notebook 01 (tensors, shapes, broadcasting), the chain rule from calculus.
#
# **How this notebook works.** Quick quizzes ask you to *predict* before a cell shows the
# answer; numbered exercises (points in the heading) are graded, and each answer cell gives
# you the function's signature to complete. A failing test says what you probably believed.

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
# `t.requires_grad_()` switches gradient tracking on for an existing leaf, in place.

# %%
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
for name, t in [("a", a), ("b", b), ("c", c)]:
    print(f"{name}: is_leaf={t.is_leaf}, requires_grad={t.requires_grad}, grad_fn={t.grad_fn}")
later = torch.tensor(5.0)
print("requires_grad_():", later.requires_grad, "->", later.requires_grad_().requires_grad)

# %% [markdown]
# `grad_fn.next_functions` links each node to the nodes of its inputs, one entry per input.
# Each entry is a pair `(node, output_number)`: the node that produced that input, and
# which of that node's outputs it was (0 here, since these nodes have one output). For a
# leaf the node is an `AccumulateGrad`, whose `.variable` is the leaf itself: this is where
# the gradient is finally added into `.grad`.

# %%
print(c.grad_fn.next_functions)
print(c.grad_fn.next_functions[0][0].variable is a, c.grad_fn.next_functions[1][0].variable is b)

# %% [markdown]
# **Quick quiz.** After `x = torch.randn(3, requires_grad=True)`, `y = x * 2` and
# `z = y.detach()`, how many of `x`, `y`, `z` are leaves (`is_leaf` is True)?
# Put a whole number in `answer_leaves`.

# %% solution 02_autograd-quiz-leaves
### BEGIN SOLUTION
answer_leaves = 2
### END SOLUTION

# %% test 02_autograd-quiz-leaves-test points=1
with checks.because("[mc:autograd.quiz-type] The answer is a count, a whole number."):
    checks.expect_type(answer_leaves, int, "answer_leaves")
checks.reject(answer_leaves, {
    1: "[mc:autograd.leaf-needs-grad] Not only x: a tensor that does not require grad (such as "
       "a detached one) is also a leaf, since it has no grad_fn.",
    3: "[mc:autograd.all-leaves] y was computed by an operation on a tensor that requires grad, "
       "so it has a grad_fn: it is not a leaf.",
    0: "[mc:autograd.all-leaves] x was created by you with requires_grad=True: that is the "
       "textbook leaf.",
}, "answer_leaves")
### BEGIN HIDDEN TESTS
_x = torch.randn(3, requires_grad=True)
_y = _x * 2
checks.expect_true(answer_leaves == sum(t.is_leaf for t in (_x, _y, _y.detach())),
                   "[mc:autograd.leaf-definition] A leaf is a tensor with no grad_fn: check each "
                   "of x, y and z for a recording operation.")
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
# Tasks for the instrument below: (1) move the slider across 0 and notice the recorded
# node change from `Mul` (with two edges from x: x·x uses x twice) to `Exp`; (2) at x = 1
# read the gradient on x and check it against d(x²)/dx = 2x.

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
# And with a finite-difference check, which needs no calculus: the central difference
# (f(x + h) − f(x − h)) / 2h approaches the derivative as h shrinks. Python floats are
# float64, so with h = 1e-6 the rounding error is far smaller than the digits we compare.

# %%
def seed_L(a, b):
    return (a * b + a) ** 2


h = 1e-6
fd_a = (seed_L(2.0 + h, 3.0) - seed_L(2.0 - h, 3.0)) / (2 * h)
fd_b = (seed_L(2.0, 3.0 + h) - seed_L(2.0, 3.0 - h)) / (2 * h)
print(f"finite differences: dL/da ≈ {fd_a:.6f}, dL/db ≈ {fd_b:.6f}")
print(f"autograd:           dL/da = {a.grad.item():.6f}, dL/db = {b.grad.item():.6f}")
print("largest gap:", max(abs(fd_a - a.grad.item()), abs(fd_b - b.grad.item())))

# %% [markdown]
# The visualizer draws the same graph from `grad_fn`: forward values on the nodes,
# adjoints in red on the edges, and the fan-out of `a` summed. With b moving, the
# adjoints move too: the general formula is a.grad = 2d·(b + 1) with d = ab + a. Some texts
# say a.grad "follows 16b + 16"; that holds where 2d(b + 1) = 16b + 16, which at a = 2 is
# only at b = 3 and at b = −1. Tasks:
#
# 1. Move b until a.grad reads 0: notice which other node's value is 0 there.
# 2. Set b = 0: notice that the edge from c = a·b to a carries 0, yet a.grad is not 0.
# 3. Set a = 0 and b = 3: notice b.grad. Why is it 0?

# %%
helpers.autograd_graph.explore()

# %% [markdown]
# **Quick quiz.** In the seed graph with a = 2, at which value of b is a.grad = 0?
# Put the number in `answer_seed_grad`.

# %% solution 02_autograd-quiz-seed
### BEGIN SOLUTION
answer_seed_grad = -1.0
### END SOLUTION

# %% test 02_autograd-quiz-seed-test points=1
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.expect_type(answer_seed_grad, (int, float), "answer_seed_grad")
checks.reject_close(answer_seed_grad, {
    0.0: "[mc:autograd.one-path] b = 0 silences only the path through c = a·b: the direct "
         "path d = c + a still carries 2d = 4 to a.",
    3.0: "[mc:autograd.frozen-formula] At b = 3, a.grad is 64: the adjoint 2d moves with b.",
    -2.0: "[mc:autograd.adjoint-add] a.grad = 2d·(b + 1): at b = -2 both factors are "
          "nonzero (d = -2, b + 1 = -1), and they multiply.",
}, "answer_seed_grad")
### BEGIN HIDDEN TESTS
_a = torch.tensor(2.0, requires_grad=True)
((_a * float(answer_seed_grad) + _a) ** 2).backward()
checks.expect_true(abs(_a.grad.item()) < 1e-6,
                   f"At b = {answer_seed_grad}, a.grad is {_a.grad.item():g}. "
                   "[mc:autograd.chain-rule] a.grad = 2d·(b + 1) with d = 2b + 2: find where it is 0.")
### END HIDDEN TESTS

# %%
for b_value in (3.0, -1.0, 1.0, -2.0):
    g = helpers.autograd_graph.seed_graph(2.0, b_value)
    d_value = 2.0 * b_value + 2.0
    print(f"b = {b_value:+}: a.grad = {g.leaf('a').grad.item():g}, "
          f"2d(b+1) = {2 * d_value * (b_value + 1):g}, 16b+16 = {16 * b_value + 16:g}")

# %% [markdown]
# ### Exercise 1: predict a gradient through fan-out (2 points)
#
# *Misconception targeted: following only one path from a variable to the output.*
#
# With x = 2 and y = −1, let q = x·y + x², and out = q·x. Compute d out / dx **by hand**
# (no autograd) and store it as a number in `fanout_grad`. The cell below counts the edges
# along which x reaches `out` in the recorded graph.

# %%
def fanout(x, y):
    q = x * y + x ** 2
    return q * x


fan_graph = helpers.autograd_graph.trace(fanout, x=2.0, y=-1.0)
print("edges leaving x:", len(fan_graph.into(fan_graph.leaf("x").id)),
      "into", [fan_graph.nodes[e.dst].label for e in fan_graph.into(fan_graph.leaf("x").id)])

# %% solution 02_autograd-fanout
### BEGIN SOLUTION
x_val, y_val = 2.0, -1.0
q_val = x_val * y_val + x_val ** 2
fanout_grad = q_val + x_val * (y_val + 2 * x_val)
### END SOLUTION

# %% test 02_autograd-fanout-test points=2
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.expect_type(fanout_grad, (int, float, torch.Tensor), "fanout_grad")
checks.reject_close(fanout_grad, {
    6.0: "[mc:autograd.one-path] That is only the path through q: x also multiplies q directly "
         "(out = q·x), and the adjoints of all paths add up.",
    2.0: "[mc:autograd.one-path] That is only the direct path (out = q·x gives q): x also "
         "reaches out through q.",
    10.0: "[mc:autograd.fanout-inside-q] Inside q, x appears twice (x·y and x²): both terms "
          "contribute to dq/dx = y + 2x.",
    0.0: "[mc:autograd.fanout-inside-q] Inside q, x appears twice (x·y and x²): both terms "
         "contribute to dq/dx = y + 2x.",
    12.0: "[mc:autograd.product-rule] d(q·x)/dx = q + x·dq/dx: the two parts ADD (product "
          "rule); they do not multiply.",
}, "fanout_grad")
### BEGIN HIDDEN TESTS
_x = torch.tensor(2.0, requires_grad=True)
_q = _x * -1.0 + _x ** 2
(_q * _x).backward()
checks.expect_close(fanout_grad, _x.grad.item(), "fanout_grad",
                    hint="[mc:autograd.one-path] Sum the adjoints of all three edges from x: "
                         "d out/dx = q + x·(y + 2x).")
### END HIDDEN TESTS

# %% [markdown]
# The same function in the visualizer, to check your answer afterwards (its seven nodes:
# two leaves, four operations and the output).

# %%
helpers.autograd_graph.explore(fanout, x=(-3, 3, 0.1, 2.0), y=(-3, 3, 0.1, -1.0))

# %% [markdown]
# **Calling the nodes yourself.** A `grad_fn` node is callable: given the adjoint of its
# output it returns the adjoints of its inputs, one per entry of `next_functions` (a
# single tensor when the node has one input, a tuple otherwise). That is all `backward`
# does, node by node.

# %%
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
L = (a * b + a) ** 2
pow_node = L.grad_fn
g_d = pow_node(torch.tensor(1.0))             # one input (d): one tensor, dL/dd = 2d
add_node = pow_node.next_functions[0][0]
g_c, g_a_direct = add_node(g_d)               # two inputs (c, a): a tuple
print(pow_node.name(), g_d.item(), "|", add_node.name(), g_c.item(), g_a_direct.item(), "|",
      [(n.name(), k) for n, k in add_node.next_functions])

# %% [markdown]
# ### Exercise 2: walk grad_fn by hand (2 points)
#
# *Misconception targeted: a value used twice gets the sum of its paths' adjoints, not
# the last one to arrive.*
#
# Complete `walk_grads(output, leaves)`: starting at `output.grad_fn` with adjoint 1, call
# every node on its adjoint and pass each returned adjoint to the matching entry of
# `next_functions` (skip entries that are `None`). At an `AccumulateGrad` node (it has a
# `.variable`), add the adjoint to that leaf's total. Do not call `backward` or
# `torch.autograd.grad`. On the seed graph it must give 64 and 32.

# %% solution 02_autograd-walk
def walk_grads(output, leaves):
    totals = {}                                   # id(leaf tensor) -> summed adjoint

    def visit(node, adjoint):
        ### BEGIN SOLUTION
        if hasattr(node, "variable"):
            key = id(node.variable)
            totals[key] = totals.get(key, 0) + adjoint
            return
        adjoints = node(adjoint)
        if isinstance(adjoints, torch.Tensor):
            adjoints = (adjoints,)
        for (child, _), g in zip(node.next_functions, adjoints):
            if child is not None and g is not None:
                visit(child, g)
        ### END SOLUTION

    visit(output.grad_fn, torch.ones_like(output))
    return [totals.get(id(leaf)) for leaf in leaves]

# %% test 02_autograd-walk-test points=2
class _NoAutograd:
    """Inside the block, backward and autograd.grad refuse: the walk must call the nodes."""

    def __enter__(self):
        self._saved = torch.Tensor.backward, torch.autograd.grad

        def refuse(*args, **kwargs):
            raise checks.CheckFailed("walk_grads called backward or torch.autograd.grad. "
                                     "[mc:walk.used-autograd] Call the nodes yourself: "
                                     "node(adjoint) returns its inputs' adjoints.")
        torch.Tensor.backward, torch.autograd.grad = refuse, refuse

    def __exit__(self, *exc):
        torch.Tensor.backward, torch.autograd.grad = self._saved


_a = torch.tensor(2.0, requires_grad=True)
_b = torch.tensor(3.0, requires_grad=True)
_L = (_a * _b + _a) ** 2
_hint = ("[mc:walk.node-call] Call node(adjoint); wrap a single returned tensor in a tuple; "
         "zip the adjoints with node.next_functions and visit each child that is not None.")
with _NoAutograd(), checks.explain_errors({"": _hint}, "walk_grads(L, [a, b])"):
    _got = walk_grads(_L, [_a, _b])
with checks.because(_hint):
    checks.expect_type(_got, (list, tuple), "walk_grads(L, [a, b])")
    checks.expect_equal(len(_got), 2, "the number of gradients returned")
# The nodes' outputs may still be attached to the graph: read them as plain numbers.
_got = [g.detach() if isinstance(g, torch.Tensor) else g for g in _got]
checks.expect_true(_got[1] is not None, "b got no gradient. [mc:walk.first-input-only] Follow "
                   "EVERY entry of next_functions, not only the first.")
checks.expect_true(_got[0] is not None, "a got no gradient. [mc:walk.leaf-total] At an "
                   "AccumulateGrad node add the adjoint to totals[id(node.variable)].")
checks.reject_close(float(_got[0]), {
    48.0: "[mc:autograd.fanout-overwrite] a's total is only the path through c: a reaches L "
          "along two paths, and their adjoints must be ADDED, not overwritten.",
    16.0: "[mc:autograd.fanout-overwrite] a's total is only the direct path: a reaches L along "
          "two paths, and their adjoints must be ADDED, not overwritten."}, "a's gradient")
### BEGIN HIDDEN TESTS
checks.expect_close(float(_got[0]), 64.0, "a's gradient", hint=_hint)
checks.expect_close(float(_got[1]), 32.0, "b's gradient", hint=_hint)
_x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
_y = torch.tensor(-1.3, dtype=torch.float64, requires_grad=True)
_out = torch.sin(_x * _y) * _x + _y * _y
with _NoAutograd():
    _mine = walk_grads(_out, [_x, _y])
for _name, _g, _r in zip(("x", "y"), _mine, torch.autograd.grad(_out, [_x, _y])):
    checks.expect_true(_g is not None, f"{_name} got no gradient. {_hint}")
    checks.expect_close(float(_g.detach() if isinstance(_g, torch.Tensor) else _g), _r.item(), f"{_name}'s gradient of sin(x·y)·x + y²", hint=_hint)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Vector-Jacobian products
#
# For y = f(x) with n inputs and m outputs, the **Jacobian** J is the m×n table of partial
# derivatives, J[i, j] = ∂y_i/∂x_j. `backward()` with no argument only works on a scalar.
# For a vector output, autograd never builds J: it computes **vᵀJ** (one number per input)
# for a vector v with one entry per output, which you supply (`y.backward(gradient=v)`).
# A scalar loss is the case v = 1.

# %%
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
with checks.expect_error(RuntimeError):
    y.backward()
v = torch.tensor([1.0, 0.5, -1.0])
y.backward(gradient=v)
print("x.grad =", x.grad, " (2x·v =", 2 * x.detach() * v, ")")

# %% [markdown]
# `torch.autograd.grad(outputs, inputs, grad_outputs=v)` computes the same vᵀJ but
# *returns* it (a tuple, one entry per input) instead of adding it into `.grad`. To take
# gradients with respect to a tensor that does not require grad, without touching the
# caller's tensor, make a fresh leaf from it: `x.detach().requires_grad_()`.

# %%
x_plain = torch.tensor([1.0, 2.0, 3.0])                 # does not require grad
leaf = x_plain.detach().requires_grad_()
(g,) = torch.autograd.grad(leaf * leaf, leaf, grad_outputs=v)
print("vᵀJ =", g, "| leaf.grad stays", leaf.grad, "| x_plain.requires_grad", x_plain.requires_grad)

# %% [markdown]
# ### Exercise 3: a vector-Jacobian product (2 points)
#
# *Misconception targeted: `y.sum().backward()` is not vᵀJ for a general v.*
#
# Complete `vjp(f, x, v)` returning vᵀ·∂f/∂x (a tensor shaped like `x`) for a function `f`
# from a 1-D tensor to a 1-D tensor. `x` may not require grad. Do not build the Jacobian
# (no `torch.autograd.functional.jacobian`), and leave nothing in the caller's `x.grad`.

# %% solution 02_autograd-vjp
def vjp(f, x, v):
    ### BEGIN SOLUTION
    x = x.detach().requires_grad_(True)
    y = f(x)
    (grad,) = torch.autograd.grad(y, x, grad_outputs=v)
    return grad
    ### END SOLUTION

# %% test 02_autograd-vjp-test points=2
def _f(x):
    return torch.stack([x[0] * x[1], x[1] ** 2, torch.sin(x[2]), x.sum()])


class _NoJacobian:
    """Inside the block, building a full Jacobian refuses: the task forbids it."""

    def __enter__(self):
        import torch.func
        self._saved = (torch.autograd.functional.jacobian, torch.func.jacrev, torch.func.jacfwd)

        def refuse(*args, **kwargs):
            raise checks.CheckFailed("vjp built the full Jacobian. [mc:vjp.full-jacobian] "
                                     "Autograd computes vᵀJ without J: pass v as backward's "
                                     "gradient (or autograd.grad's grad_outputs).")
        torch.autograd.functional.jacobian = torch.func.jacrev = torch.func.jacfwd = refuse

    def __exit__(self, *exc):
        (torch.autograd.functional.jacobian, torch.func.jacrev, torch.func.jacfwd) = self._saved


_x0 = torch.tensor([1.0, 2.0, 0.5])
_v = torch.tensor([1.0, -2.0, 0.5, 3.0])
_hint = ("[mc:vjp.shapes] v has one entry per OUTPUT of f (4 here) and the result one per "
         "INPUT (3 here): make x a leaf, y = f(x), then y.backward(gradient=v) or "
         "torch.autograd.grad(y, x, grad_outputs=v).")
with _NoJacobian(), checks.explain_errors({"mismatch": _hint, "shape": _hint, "": _hint}, "vjp(f, x, v)"):
    _got = vjp(_f, _x0, _v)
with checks.because(_hint):
    checks.expect_type(_got, torch.Tensor, "vjp(f, x, v)")
    checks.expect_shape(_got, (3,), "vjp(f, x, v)")
_J = torch.autograd.functional.jacobian(_f, _x0)
checks.reject_close(_got, {_J.sum(0): "[mc:vjp.sum-is-vjp] This is the gradient of y.sum(), "
                                     "i.e. v = ones: use the given v (backward's gradient argument)."},
                    "vjp(f, x, v)")
checks.expect_true(_x0.grad is None, "vjp left a gradient in the caller's x.grad. "
                   "[mc:vjp.caller-grad] Work on a fresh leaf (x.detach().requires_grad_()).")
### BEGIN HIDDEN TESTS
checks.expect_close(_got, _v @ _J, "vjp(f, x, v)", hint=_hint)
_w = torch.randn(5, dtype=torch.float64)
_A = torch.randn(2, 5, dtype=torch.float64)
_u = torch.randn(2, dtype=torch.float64)
with _NoJacobian(), checks.explain_errors({"": _hint}, "vjp on a 2×5 map"):
    _got2 = vjp(lambda t: _A @ torch.tanh(t), _w, _u)
with checks.because(_hint):
    checks.expect_close(_got2, _u @ torch.autograd.functional.jacobian(lambda t: _A @ torch.tanh(t), _w),
                        "vjp on a 2×5 map", hint=_hint)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Gradients accumulate
#
# `backward` **adds** into `.grad`; it does not overwrite. Call it twice and the gradient
# doubles. That is why training loops call `optimizer.zero_grad()` before each backward.

# %%
w = torch.tensor(1.5, requires_grad=True)
for step in range(3):
    (3 * w).backward()
    print(f"after backward #{step + 1}: w.grad = {w.grad.item()}")
optimizer = torch.optim.SGD([w], lr=0.1)
optimizer.zero_grad()                        # the default resets .grad to None
print("after optimizer.zero_grad():", w.grad)
(3 * w).backward()
print("one more backward:", w.grad.item())

# %% [markdown]
# **Quick quiz.** `x = torch.tensor(2.0, requires_grad=True)`, `y = x ** 2`, then
# `y.backward(retain_graph=True)` three times. What is `x.grad`? Put the number in
# `answer_accumulated`.

# %% solution 02_autograd-quiz-accumulate
### BEGIN SOLUTION
answer_accumulated = 12.0
### END SOLUTION

# %% test 02_autograd-quiz-accumulate-test points=1
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.expect_type(answer_accumulated, (int, float), "answer_accumulated")
checks.reject_close(answer_accumulated, {
    4.0: "[mc:autograd.grad-overwrites] Each backward does not replace x.grad: gradients "
         "accumulate (add up) until you reset them.",
    64.0: "[mc:autograd.accumulate-multiplies] Accumulation ADDS each backward's gradient "
          "(2x = 4) to .grad; it does not multiply.",
    6.0: "[mc:autograd.local-derivative] d(x²)/dx = 2x = 4 at x = 2, and that is what each "
         "backward adds.",
}, "answer_accumulated")
### BEGIN HIDDEN TESTS
_x = torch.tensor(2.0, requires_grad=True)
_y = _x ** 2
for _ in range(3):
    _y.backward(retain_graph=True)
checks.expect_close(answer_accumulated, _x.grad.item(), "answer_accumulated",
                    hint="[mc:autograd.grad-overwrites] Three backwards each add 2x = 4.")
### END HIDDEN TESTS

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
# ### Exercise 4: gradient accumulation (2 points)
#
# *Misconception targeted: forgetting that `.grad` already holds something, or summing
# micro-batch means without weighting them.*
#
# Complete `accumulated_grad(w, X, Y, chunk)` so that it returns the gradient of the
# full-batch loss `((X @ w - Y) ** 2).mean()` with respect to the leaf `w`, computed by
# calling `backward` once per chunk of `chunk` rows (the last chunk may be smaller). `w.grad`
# may hold a stale value when it is called. Return a tensor shaped like `w`.

# %% solution 02_autograd-accumulate
def accumulated_grad(w, X, Y, chunk):
    ### BEGIN SOLUTION
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
_hint = ("[mc:accumulate.weighting] Reset w.grad, then for each chunk call backward on that "
         "chunk's loss weighted by len(chunk) / len(X); return w.grad.")
with checks.explain_errors({"": _hint}, "accumulated_grad(w, X, Y, 4)"):
    _got = accumulated_grad(_w, _X, _Y, 4)
with checks.because(_hint):
    checks.expect_type(_got, torch.Tensor, "accumulated_grad(w, X, Y, 4)")
    checks.expect_shape(_got, (3,), "accumulated_grad")
_parts = [((_X[i:i + 4] @ _w - _Y[i:i + 4]) ** 2).mean() for i in range(0, 10, 4)]
_unweighted = torch.autograd.grad(sum(_parts), _w)[0]
checks.reject_close(_got, {
    _true + _stale: "[mc:accumulate.stale-grad] The stale gradient is still in there: backward "
                    "adds to w.grad, so reset it (w.grad = None or w.grad.zero_()) first.",
    _unweighted: "[mc:accumulate.unweighted-means] Each chunk's mean was added with equal weight: "
                 "weight every chunk's loss by its share of the rows (len(chunk) / len(X)).",
    _unweighted / 3: "[mc:accumulate.unweighted-means] Dividing by the number of chunks weights a "
                     "2-row chunk like a 4-row one: weight by len(chunk) / len(X).",
}, "accumulated_grad")
### BEGIN HIDDEN TESTS
checks.expect_close(_got, _true, "accumulated_grad", hint=_hint)
_w2 = torch.randn(3, dtype=torch.float64, requires_grad=True)
((_X @ _w2 - _Y) ** 2).mean().backward()
_true2 = _w2.grad.clone()
_w2.grad = None
checks.expect_close(accumulated_grad(_w2, _X, _Y, 3), _true2, "accumulated_grad, chunk 3", hint=_hint)
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
#
# **Quick quiz (before the next cell).** True or false: a tensor computed inside
# `with torch.no_grad():` from a tensor that requires grad has `requires_grad=True`. Put
# `True` or `False` in `answer_no_grad`.

# %% solution 02_autograd-quiz-no-grad
### BEGIN SOLUTION
answer_no_grad = False
### END SOLUTION

# %% test 02_autograd-quiz-no-grad-test points=1
with checks.because("[mc:autograd.quiz-type] Answer True or False."):
    checks.expect_type(answer_no_grad, bool, "answer_no_grad")
checks.reject(answer_no_grad, {
    True: "[mc:autograd.no-grad-inherits] Inside no_grad nothing is recorded: results have no "
          "grad_fn and do not require grad, whatever their inputs.",
}, "answer_no_grad")
### BEGIN HIDDEN TESTS
with torch.no_grad():
    _r = torch.ones(1, requires_grad=True) * 2
checks.expect_true(answer_no_grad == _r.requires_grad,
                   "[mc:autograd.no-grad-inherits] Under no_grad a result has requires_grad=False.")
### END HIDDEN TESTS

# %%
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y_ng = x * 2
y_det = (x * 2).detach()
print("no_grad:", y_ng.requires_grad, y_ng.grad_fn, "| detach:", y_det.requires_grad,
      "| shares memory with x:", x.detach().data_ptr() == x.data_ptr())

# %% [markdown]
# Modify a saved result through `detach()` and autograd notices; through `.data` it
# does not, and the gradient is wrong (exp's derivative is exp(x), which is never 0):

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
# ### Exercise 5: why is this gradient None? (2 points)
#
# *Misconception targeted: which tensor is the leaf that collects the gradient.*
#
# This code was meant to create a float64 weight and get its gradient. Run it:

# %%
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).double()
(w * w).sum().backward()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # reading this .grad warns; the None is the point
    print("w.grad after backward:", w.grad)

# %% [markdown]
# Find out why (print `w.is_leaf` and `w.grad_fn`), then complete `make_weight(values)` so
# that it returns a float64 tensor holding `values` whose `.grad` `loss.backward()` fills.

# %% solution 02_autograd-why-none
def make_weight(values):
    ### BEGIN SOLUTION
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ### END SOLUTION

# %% test 02_autograd-why-none-test points=2
with checks.explain_errors({"": "[mc:autograd.leaf-creation] Build the tensor with "
                                "torch.tensor(values, ...)."}, "make_weight([1.0, 2.0, 3.0])"):
    _w = make_weight([1.0, 2.0, 3.0])
with checks.because("[mc:autograd.leaf-creation] make_weight must return a tensor."):
    checks.expect_type(_w, torch.Tensor, "make_weight(...)")
checks.expect_true(_w.requires_grad, "make_weight returned a tensor with requires_grad=False. "
                   "[mc:autograd.no-requires-grad] Backward only fills .grad of tensors that "
                   "require grad: ask for it (requires_grad=True or .requires_grad_()).")
checks.expect_true(_w.is_leaf, f"make_weight returned a non-leaf (grad_fn = {_w.grad_fn}). "
                   "[mc:autograd.op-after-requires-grad] An operation (.double(), .to(), * 1) "
                   "after requires_grad=True makes a new tensor with a grad_fn, and only leaves "
                   "keep .grad. Create the tensor with its dtype first, then ask for gradients.")
with checks.because("[mc:autograd.leaf-dtype] The weight must be float64: give the dtype when "
                    "you create it."):
    checks.expect_equal(_w.dtype, torch.float64, "dtype")
(_w * _w).sum().backward()
### BEGIN HIDDEN TESTS
checks.expect_true(_w.grad is not None, "[mc:autograd.op-after-requires-grad] backward left "
                   "make_weight's tensor without a .grad.")
checks.expect_close(_w.grad, 2 * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), "w.grad",
                    hint="[mc:autograd.leaf-values] The tensor must hold exactly the given values.")
_w2 = make_weight([[0.5, -1.0]])
checks.expect_true(_w2.is_leaf and _w2.shape == (1, 2) and _w2.requires_grad,
                   "[mc:autograd.leaf-values] make_weight([[0.5, -1.0]]) must be a (1, 2) leaf "
                   "that requires grad.")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 6: a straight-through estimator with detach (2 points)
#
# *Misconception targeted: `round` has zero gradient almost everywhere, and `.detach()`
# decides which part of an expression gradients flow through.*
#
# Complete `ste_round(x)` so that its **value** is `torch.round(x)` but its gradient with
# respect to `x` is 1 everywhere (as if rounding were the identity). Hint: x + (something
# detached) has the gradient of x.

# %% solution 02_autograd-ste
def ste_round(x):
    ### BEGIN SOLUTION
    return x + (torch.round(x) - x).detach()
    ### END SOLUTION

# %% test 02_autograd-ste-test points=2
_x = torch.tensor([0.2, 1.7, -2.4], requires_grad=True)
with checks.explain_errors({"": "[mc:ste.detach-part] Return x plus a detached correction."},
                           "ste_round(x)"):
    _y = ste_round(_x)
with checks.because("[mc:ste.detach-part] ste_round must return a tensor."):
    checks.expect_type(_y, torch.Tensor, "ste_round(x)")
checks.expect_true(_y.requires_grad, "ste_round(x) does not require grad: it is cut from the "
                   "graph (detached whole, or built under no_grad). [mc:ste.detached-all] "
                   "Detach only the correction, so that x itself stays in the expression.")
_y.sum().backward()
checks.reject_close(_x.grad, {torch.zeros(3): "[mc:ste.round-flat] The gradient is 0: "
                              "torch.round is flat, so rounding must sit inside the detached part."},
                    "x.grad")
### BEGIN HIDDEN TESTS
checks.expect_close(_y.detach(), torch.round(_x.detach()), "ste_round(x) values",
                    hint="[mc:ste.value] The value must be torch.round(x) exactly.")
checks.expect_close(_x.grad, torch.ones(3), "x.grad",
                    hint="[mc:ste.detach-part] The gradient must be 1: only x itself should be "
                         "outside the detached part.")
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
# `torch.autograd.gradcheck` compares the Jacobian your backward produces with finite
# differences at the inputs you give (use float64). Passing is strong evidence at those
# points, not a proof: it samples, so test at a few inputs. A custom `Function` supplies
# both passes: `forward` saves what backward needs with `ctx.save_for_backward`, and
# `backward` receives the gradient of the output and returns one gradient per input
# (chain rule: the local derivative times the incoming gradient).

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
# ### Exercise 7: a custom Function for softplus (2 points)
#
# *Misconception targeted: backward must multiply by the incoming gradient, and it needs
# the input that forward saved.*
#
# softplus(x) = log(1 + eˣ), and its derivative is the sigmoid σ(x). Complete
# `Softplus` so that `Softplus.apply(x)` matches `torch.nn.functional.softplus(x)` and
# passes `gradcheck`.

# %% solution 02_autograd-function
class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ### BEGIN SOLUTION
        ctx.save_for_backward(x)
        return torch.nn.functional.softplus(x)
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad_out):
        ### BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad_out * torch.sigmoid(x)
        ### END SOLUTION

# %% test 02_autograd-function-test points=2
_x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
_saved_hint = ("[mc:function.save-for-backward] backward found nothing (or the wrong number of "
               "things) in ctx.saved_tensors: forward must call ctx.save_for_backward(x) on "
               "what backward unpacks.")
_hint = "[mc:function.backward] backward returns grad_out times the derivative σ(x)."
with checks.explain_errors({"": "[mc:function.forward] forward computes log(1 + e^x)."},
                           "Softplus.apply(x)"):
    _fwd = Softplus.apply(_x)
with checks.because("[mc:function.forward] forward must return softplus(x) = log(1 + e^x)."):
    checks.expect_close(_fwd, torch.nn.functional.softplus(_x), "Softplus forward")
_up = torch.full((7,), 2.0, dtype=torch.float64)
with checks.explain_errors({"unpack": _saved_hint, "saved": _saved_hint, "": _hint},
                           "Softplus's backward"):
    (_g,) = torch.autograd.grad(Softplus.apply(_x), _x, _up)
    (_g1,) = torch.autograd.grad(Softplus.apply(_x), _x, torch.ones(7, dtype=torch.float64))
_sp = torch.nn.functional.softplus(_x.detach())
checks.reject_close(_g, {
    _g1: "[mc:function.ignores-grad-out] backward ignores grad_out: by the chain rule it must "
         "multiply the local derivative by the incoming gradient.",
    2 * torch.sigmoid(_sp): "[mc:function.saved-output] backward applied the sigmoid to the "
                            "OUTPUT softplus(x): the derivative is σ of the INPUT x, so save x "
                            "(or, from the output y, use 1 - exp(-y)).",
    2 * torch.exp(_x.detach()): "[mc:function.wrong-derivative] e^x is the derivative of "
                                "1 + e^x, not of log(1 + e^x): that is σ(x) = e^x / (1 + e^x)."},
    "the gradient for an upstream gradient of 2")
checks.expect_true(torch.autograd.gradcheck(Softplus.apply, (_x,), raise_exception=False),
                   "gradcheck failed: backward disagrees with finite differences. "
                   "[mc:function.wrong-derivative] The derivative of log(1 + e^x) is the "
                   "sigmoid σ(x), times grad_out.")
### BEGIN HIDDEN TESTS
checks.expect_close(_g, 2 * torch.sigmoid(_x.detach()), "Softplus backward", hint=_hint)
checks.expect_true(torch.autograd.gradcheck(
    Softplus.apply, (torch.randn(3, 2, dtype=torch.float64, requires_grad=True),), raise_exception=False),
    "gradcheck failed on a random 3×2 input. [mc:function.wrong-derivative] backward must be "
    "grad_out * σ(x) elementwise, for any shape.")
### END HIDDEN TESTS

# %% [markdown]
# ## 10. The backward of a Linear layer, derived and checked
#
# A linear layer computes y = h Wᵀ + b for a batch: h is (N, D), W is (K, D), b is (K,),
# y is (N, K). Write dy for the adjoint dL/dy, an (N, K) tensor. Entry by entry,
# y[n, k] = Σ_d h[n, d]·W[k, d] + b[k], so
#
# - dL/dW[k, d] = Σ_n dy[n, k]·h[n, d], that is **dW = dyᵀ h**, shape (K, D) like W;
# - dL/db[k] = Σ_n dy[n, k], that is **db = dy.sum(0)**, shape (K,) like b;
# - dL/dh[n, d] = Σ_k dy[n, k]·W[k, d], that is **dh = dy W**, shape (N, D) like h.
#
# Every gradient has the shape of the thing it is the gradient of; that is a quick test
# for a missing transpose. Two more local rules: ReLU passes the adjoint where its input
# was positive and 0 elsewhere (multiply by the mask `z > 0`), and a mean over M elements
# of (y − t)² has adjoint 2(y − t)/M. The cell checks the Linear rules against autograd,
# feeding a random dy through `backward(gradient=dy)`:

# %%
gen = torch.Generator().manual_seed(2)
h_in = torch.randn(4, 3, dtype=torch.float64, generator=gen).requires_grad_()
W_lin = torch.randn(2, 3, dtype=torch.float64, generator=gen).requires_grad_()
b_lin = torch.randn(2, dtype=torch.float64, generator=gen).requires_grad_()
dy = torch.randn(4, 2, dtype=torch.float64, generator=gen)
(h_in @ W_lin.T + b_lin).backward(gradient=dy)
for name, by_hand, auto in [("dW = dyᵀh", dy.T @ h_in.detach(), W_lin.grad),
                            ("db = Σ dy", dy.sum(0), b_lin.grad),
                            ("dh = dy W", dy @ W_lin.detach(), h_in.grad)]:
    print(f"{name:10} shape {tuple(by_hand.shape)}  matches autograd: {torch.allclose(by_hand, auto)}")

# %% [markdown]
# ### Exercise 8: backward of a two-layer MLP by hand (3 points)
#
# *Misconception targeted: forgetting the ReLU's mask, the mean's 1/M or its factor 2, or
# the transpose in a weight gradient.*
#
# For z = x W1ᵀ + b1, h = relu(z), y = h W2ᵀ + b2 and loss = mean((y − t)²) over all
# N·K elements, complete `mlp_grads(x, t, W1, b1, W2, b2)` returning `(dW1, db1, dW2, db2)`
# computed with tensor algebra only (the test calls it under `torch.no_grad()`). Shapes:
# x (N, D), W1 (H, D), b1 (H,), W2 (K, H), b2 (K,), t (N, K). Apply the Linear rules above
# twice, with the ReLU mask in between.

# %% solution 02_autograd-mlp-backward
def mlp_grads(x, t, W1, b1, W2, b2):
    z = x @ W1.T + b1
    h = torch.relu(z)
    y = h @ W2.T + b2
    ### BEGIN SOLUTION
    dy = 2 * (y - t) / y.numel()
    dW2 = dy.T @ h
    db2 = dy.sum(0)
    dh = dy @ W2
    dz = dh * (z > 0)
    dW1 = dz.T @ x
    db1 = dz.sum(0)
    ### END SOLUTION
    return dW1, db1, dW2, db2

# %% test 02_autograd-mlp-backward-test points=3
def _mlp_case(seed):
    gen = torch.Generator().manual_seed(seed)
    shapes = [(6, 4), (6, 3), (5, 4), (5,), (3, 5), (3,)]
    x, t, W1, b1, W2, b2 = (torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes)
    return x, t, W1, b1, W2, b2


_x, _t, _W1, _b1, _W2, _b2 = _mlp_case(1)
_hint = ("[mc:mlp.linear-rules] Each Linear gives dW = dyᵀh and db = dy.sum(0) and passes "
         "dh = dy W back; the ReLU multiplies by (z > 0); the loss gives dy = 2(y - t)/(N·K).")
with torch.no_grad(), checks.explain_errors({"": _hint}, "mlp_grads(...)"):
    _mine = mlp_grads(_x, _t, _W1, _b1, _W2, _b2)
with checks.because(_hint):
    checks.expect_type(_mine, (tuple, list), "mlp_grads(...)")
    checks.expect_equal(len(_mine), 4, "the number of returned gradients")
_shape_why = {"dW1": "[mc:mlp.weight-grad-transpose] A gradient has its parameter's shape: "
                     "dW = dyᵀ h (output dim first), not hᵀ dy.",
              "dW2": "[mc:mlp.weight-grad-transpose] A gradient has its parameter's shape: "
                     "dW = dyᵀ h (output dim first), not hᵀ dy.",
              "db1": "[mc:mlp.bias-sum] A bias is added to every row, so its gradient sums dy "
                     "over the batch: db = dy.sum(0).",
              "db2": "[mc:mlp.bias-sum] A bias is added to every row, so its gradient sums dy "
                     "over the batch: db = dy.sum(0)."}
for _name, _g, _p in zip(("dW1", "db1", "dW2", "db2"), _mine, (_W1, _b1, _W2, _b2)):
    with checks.because(_shape_why[_name]):
        checks.expect_shape(_g, tuple(_p.shape), _name)
_params = [p.clone().requires_grad_() for p in (_W1, _b1, _W2, _b2)]
_z = _x @ _params[0].T + _params[1]
_loss = ((torch.relu(_z) @ _params[2].T + _params[3] - _t) ** 2).mean()
_ref = torch.autograd.grad(_loss, _params)
_dy = (2 * (torch.relu(_z) @ _W2.T + _b2 - _t) / _t.numel()).detach()
_dz_nomask = _dy @ _W2
checks.reject_close(_mine[0], {
    _dz_nomask.T @ _x: "[mc:mlp.relu-mask] dW1 ignores the ReLU: multiply the adjoint by its "
                       "derivative, the mask (z > 0).",
    _ref[0] * _t.numel(): "[mc:mlp.mean-factor] dW1 is N·K times too large: the loss is a mean "
                          "over all elements, so dy carries 1/(N·K).",
    _ref[0] * _t.shape[1]: "[mc:mlp.mean-factor] dW1 is K times too large: the loss is a mean "
                           "over all N·K elements, not N.",
    _ref[0] / 2: "[mc:mlp.missing-factor-2] dW1 is half the true gradient: the derivative of "
                 "(y - t)² is 2(y - t).",
}, "dW1")
checks.reject_close(_mine[2], {
    _ref[2] / 2: "[mc:mlp.missing-factor-2] dW2 is half the true gradient: the derivative of "
                 "(y - t)² is 2(y - t).",
    _ref[2] * _t.numel(): "[mc:mlp.mean-factor] dW2 is N·K times too large: the loss is a mean "
                          "over all elements, so dy carries 1/(N·K)."}, "dW2")
### BEGIN HIDDEN TESTS
for _name, _g, _r in zip(("dW1", "db1", "dW2", "db2"), _mine, _ref):
    checks.expect_close(_g, _r, _name, rtol=1e-6, atol=1e-9, hint=_hint)
_case = _mlp_case(7)
with torch.no_grad():
    _mine7 = mlp_grads(*_case)
_p7 = [p.clone().requires_grad_() for p in _case[2:]]
_l7 = ((torch.relu(_case[0] @ _p7[0].T + _p7[1]) @ _p7[2].T + _p7[3] - _case[1]) ** 2).mean()
for _name, _g, _r in zip(("dW1", "db1", "dW2", "db2"), _mine7, torch.autograd.grad(_l7, _p7)):
    with checks.because(_hint):
        checks.expect_close(_g, _r, _name, rtol=1e-6, atol=1e-9, hint=_hint)
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
# first backward; keep them with `retain_graph=True` when you need two passes.

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
# `retain_grad()` (section 6); leaves keep gradients, intermediates do not.

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
# - Backward is the reverse-mode chain rule: each node turns its output's adjoint into its
#   inputs' adjoints, and adjoints **add** where a value fans out. For a non-scalar output
#   you supply v and get vᵀJ.
# - `.grad` accumulates: reset it (`zero_grad`, `grad = None`), or exploit it for
#   gradient accumulation with weighted micro-batches.
# - `no_grad` records nothing; `detach` cuts a tensor from the graph; `.data` hides
#   changes from autograd and can give silently wrong gradients.
# - In-place edits of leaves or saved tensors raise errors: update under `no_grad`,
#   or compute out of place.
# - A Linear layer's backward is dW = dyᵀh, db = Σdy, dh = dy W; a custom `Function`
#   defines forward and backward, and `gradcheck` tests it at sample points.
#
# **Next:** 03_modules packages parameters (leaves with `requires_grad=True`) into
# `nn.Module`, and 04 turns backward plus an update into a training loop.
