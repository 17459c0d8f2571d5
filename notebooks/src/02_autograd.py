# %% [markdown]
# # 02 Autograd: the dynamic graph
#
# Every training step ends with `loss.backward()`, and after it every parameter has a
# `.grad`. That one line hides a data structure: while your code runs, PyTorch records
# each operation in a graph, and `backward` walks that graph from the loss back to the
# parameters applying the chain rule. When you can see the graph, the surprises of
# autograd (a gradient that is `None`, a graph that is already freed, an in-place error)
# stop being surprises.
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
import time
import warnings

import numpy as np
import torch

import helpers.autograd_graph
from helpers import checks

notebook_started = time.perf_counter()   # the last cell reports this notebook's run time
torch.manual_seed(0)

# %% [markdown]
# ## 1. requires_grad, leaves and intermediates
#
# A tensor you create yourself with `requires_grad=True` is a **leaf**: autograd will
# store its gradient in `.grad`. A result computed from it (while autograd is recording,
# as it is by default) is an **intermediate**: it has a `grad_fn`, the backward node
# that knows how to push a gradient to its inputs.
# `t.requires_grad_()` switches gradient tracking on for an existing leaf, in place, and
# `t.detach()` returns a tensor with `t`'s values that does not require grad (section 7
# says more).

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
# leaf the node is an `AccumulateGrad`, whose `.variable` is the leaf itself: this is the
# node that hands the gradient to the leaf's `.grad`.

# %%
print(c.grad_fn.next_functions)
print(c.grad_fn.next_functions[0][0].variable is a, c.grad_fn.next_functions[1][0].variable is b)

# %% [markdown]
# **Quick quiz (predict, then run the cell after the test).** After
#
# ```python
# x = torch.randn(3, requires_grad=True)
# y = x * 2
# z = y.detach()
# u = z + 1
# ```
#
# how many of `x`, `y`, `z`, `u` are leaves (`is_leaf` is True)? Put a whole number in
# `answer_leaves`.

# %% solution 02_autograd-quiz-leaves
### BEGIN SOLUTION
answer_leaves = 3
### END SOLUTION

# %% test 02_autograd-quiz-leaves-test points=1
with checks.because("[mc:autograd.quiz-type] The answer is a count, a whole number."):
    checks.answer("02_autograd-quiz-leaves", answer_leaves, "answer_leaves", kind=int,
                  choices=range(5))
### BEGIN HIDDEN TESTS
_x = torch.randn(3, requires_grad=True)
_y = _x * 2
_z = _y.detach()
checks.expect_true(answer_leaves == sum(t.is_leaf for t in (_x, _y, _z, _z + 1)),
                   "[mc:autograd.leaf-definition] A leaf is a tensor with no grad_fn: check each "
                   "of x, y, z and u for an operation that autograd recorded.")
### END HIDDEN TESTS

# %% wrong 02_autograd-quiz-leaves
{
    1: "[mc:autograd.leaf-needs-grad] Not only x: a tensor that does not require grad has no "
       "grad_fn, so it is a leaf too. Which of the others require grad?",
    2: "[mc:autograd.computed-is-intermediate] Being computed does not make a tensor an "
       "intermediate: autograd records an operation only when an input requires grad. Check "
       "z = y.detach() and u = z + 1 again.",
    4: "[mc:autograd.all-leaves] y = x * 2 was computed from x, which requires grad: autograd "
       "recorded the multiplication, so y has a grad_fn and is not a leaf.",
    0: "[mc:autograd.all-leaves] x was created by you with requires_grad=True: that is the "
       "textbook leaf.",
}

# %% [markdown]
# The four tensors, with what decides: compare the count of `is_leaf=True` with your answer.
# A tensor is a leaf exactly when it has no `grad_fn`, so a tensor that does not require
# grad is a leaf too: nothing recorded an operation for it.

# %%
x = torch.randn(3, requires_grad=True)
y = x * 2
z = y.detach()
u = z + 1
for name, t in [("x", x), ("y", y), ("z", z), ("u", u)]:
    print(f"{name}: is_leaf={t.is_leaf!s:5}  requires_grad={t.requires_grad!s:5}  grad_fn={t.grad_fn}")

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
# The visualizer below draws the graph `branchy` records at the x you set: leaves in green,
# operations in blue, the output in orange, forward values in black, and in red the
# adjoint that flows back along each edge (how much the output changes per unit change of
# the value at the edge's start). Tasks:
#
# 1. Move the slider across 0: notice the recorded node change from `Mul` (two edges from
#    x: x·x uses x twice) to `Exp`, as the cell above printed. Explain why one Python
#    function records two different graphs.
# 2. Predict x.grad at x = 1 and at x = −1, set each and read it: notice that at x = 1 the
#    gradient is the sum of two edges' adjoints, one per use of x.
# 3. Which branch runs at x = 0 exactly? Predict from the code, then type 0 in the number
#    box and check.

# %%
helpers.autograd_graph.explore(branchy, x=(-2, 2, 0.1, 1.5))

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
# **Quick quiz (predict; the visualizer below checks it).** Keep a = 2 and let b move. For
# which value of b is a.grad = 0? Write a.grad as a function of b from the three rules
# above (with d = ab + a), then put the number in `answer_seed_grad`.

# %% solution 02_autograd-quiz-seed
### BEGIN SOLUTION
answer_seed_grad = -1.0
### END SOLUTION

# %% test 02_autograd-quiz-seed-test points=1
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.answer("02_autograd-quiz-seed", answer_seed_grad, "answer_seed_grad", kind=float)
### BEGIN HIDDEN TESTS
_a = torch.tensor(2.0, requires_grad=True)
((_a * float(answer_seed_grad) + _a) ** 2).backward()
checks.expect_true(abs(_a.grad.item()) < 1e-6,
                   f"At b = {answer_seed_grad}, a.grad is {_a.grad.item():g}. "
                   "[mc:autograd.chain-rule] Add a's two paths: 2d·b through c = a·b and 2d "
                   "directly, with d = 2b + 2 at a = 2; find where the sum is 0.")
### END HIDDEN TESTS

# %% wrong 02_autograd-quiz-seed
{
    0: "[mc:autograd.one-path] b = 0 silences only the path through c = a·b: the direct "
       "path d = c + a still carries 2d = 4 to a.",
    3: "[mc:autograd.frozen-formula] At b = 3, a.grad is 64: the adjoint 2d moves with b.",
    -2: "[mc:autograd.adjoint-add] At b = -2, d = -2: the path through c carries 2d·b = 8 "
        "and the direct path 2d = -4. They add to 4, not 0.",
}

# %% [markdown]
# The visualizer draws the seed graph from `grad_fn` at the a and b you set: forward
# values on the nodes, adjoints in red on the edges, and at `a` the sum of its two paths.
# Tasks:
#
# 1. Check the quiz: keep a = 2 and set b to your answer. Notice which other node's value
#    is 0 there, and explain why both of a's paths vanish together.
# 2. Predict a.grad at b = 0, then set it: notice that the edge from `Mul` (c = a·b) to
#    a carries 0, yet a.grad is not 0. Which path still carries it?
# 3. Predict b.grad at a = 0, b = 3, then set it, and explain from the graph what you read.

# %%
import helpers.autograd_graph  # so that this cell also runs on its own after a restart

helpers.autograd_graph.explore()

# %% [markdown]
# In symbols: a.grad = 2d·b + 2d = 2d·(b + 1) with d = ab + a. Some texts say a.grad
# "follows 16b + 16"; that holds only where 2d·(b + 1) = 16b + 16, which at a = 2 means
# 4(b + 1)² = 16(b + 1): at b = 3 and at b = −1. The cell compares the three at a few b:

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
    checks.answer("02_autograd-fanout", fanout_grad, "fanout_grad", kind=float)
### BEGIN HIDDEN TESTS
_x = torch.tensor(2.0, requires_grad=True)
_q = _x * -1.0 + _x ** 2
(_q * _x).backward()
checks.expect_close(fanout_grad, _x.grad.item(), "fanout_grad",
                    hint="[mc:autograd.one-path] Sum the adjoints of all three edges from x: "
                         "d out/dx = q + x·(y + 2x).")
### END HIDDEN TESTS

# %% wrong 02_autograd-fanout
{
    6: "[mc:autograd.one-path] That is only the path through q: x also multiplies q directly "
       "(out = q·x), and the adjoints of all paths add up.",
    2: "[mc:autograd.one-path] That is only the direct path (out = q·x gives q): x also "
       "reaches out through q.",
    10: "[mc:autograd.fanout-inside-q] Inside q, x appears twice (x·y and x²): both terms "
        "contribute to dq/dx = y + 2x.",
    0: "[mc:autograd.fanout-inside-q] Inside q, x appears twice (x·y and x²): both terms "
       "contribute to dq/dx = y + 2x.",
    12: "[mc:autograd.product-rule] d(q·x)/dx = q + x·dq/dx: the two parts ADD (product "
        "rule); they do not multiply.",
}

# %% [markdown]
# The same function in the visualizer. Tasks:
#
# 1. Check Exercise 1 at x = 2, y = −1: find your answer as the sum written in x's box,
#    and the three adjoints it adds on the edges leaving x.
# 2. Predict the sign of each of x's three adjoints at x = −1, y = 2, then set them:
#    notice that they do not all share the sign of x.grad.
# 3. With x = 2, find a y at which x.grad = 0 (predict it from your formula first): notice
#    that none of the three adjoints is 0 there. Explain what cancels.

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
# ## 4. Gradients accumulate
#
# Every backward so far ran once, into a `.grad` that was still empty. Training runs
# backward once per step on the same parameters, so what a second backward does to a
# `.grad` that already holds a gradient matters.
#
# **Quick quiz (predict, then run the cell after the test).** With
# `x = torch.tensor(2.0, requires_grad=True)`, the line `(x ** 2).backward()` runs three
# times (each run records a new graph). What is `x.grad` then? Put the number in
# `answer_accumulated`.

# %% solution 02_autograd-quiz-accumulate
### BEGIN SOLUTION
answer_accumulated = 12.0
### END SOLUTION

# %% test 02_autograd-quiz-accumulate-test points=1
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.answer("02_autograd-quiz-accumulate", answer_accumulated, "answer_accumulated", kind=float)
### BEGIN HIDDEN TESTS
_x = torch.tensor(2.0, requires_grad=True)
for _ in range(3):
    (_x ** 2).backward()
checks.expect_close(answer_accumulated, _x.grad.item(), "answer_accumulated",
                    hint="[mc:autograd.grad-overwrites] Three backwards each add 2x = 4.")
### END HIDDEN TESTS

# %% wrong 02_autograd-quiz-accumulate
{
    4: "[mc:autograd.grad-overwrites] Each backward does not replace x.grad: gradients "
       "accumulate (add up) until you reset them.",
    64: "[mc:autograd.accumulate-multiplies] Accumulation ADDS each backward's gradient "
        "(2x = 4) to .grad; it does not multiply.",
    6: "[mc:autograd.local-derivative] d(x²)/dx = 2x = 4 at x = 2, and that is what each "
       "backward adds.",
    8: "[mc:autograd.local-derivative] Each backward adds d(x²)/dx = 2x = 4 at x = 2, and there "
       "are three of them.",
}

# %% [markdown]
# The same three calls: compare the last line with your answer.

# %%
x = torch.tensor(2.0, requires_grad=True)
for call in range(3):
    (x ** 2).backward()
    print(f"after backward #{call + 1}: x.grad = {x.grad.item()}")

# %% [markdown]
# `backward` **adds** into `.grad`; it does not overwrite, so three calls leave three times
# the gradient of one. Training loops therefore reset `.grad` before each backward:
# `optimizer.zero_grad()` (by default it sets `.grad` to `None`) or `w.grad = None`.

# %%
w = torch.tensor(1.5, requires_grad=True)
(3 * w).backward()
(3 * w).backward()
print("after two backward calls: w.grad =", w.grad.item())
optimizer = torch.optim.SGD([w], lr=0.1)
optimizer.zero_grad()
print("after optimizer.zero_grad():", w.grad)
(3 * w).backward()
print("one more backward:", w.grad.item())

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
# ### Exercise 3: a full-batch gradient that leaves .grad alone (2 points)
#
# *Misconception targeted: `.grad` already holds something when your function is called,
# and micro-batch means add up to the full-batch mean only when weighted.*
#
# Complete `full_batch_grad(w, X, Y, chunk)` returning the gradient of the full-batch loss
# `((X @ w - Y) ** 2).mean()` with respect to the leaf `w`, computed one chunk of `chunk`
# rows at a time (one backward pass per chunk; the last chunk may be smaller), as a tensor
# shaped like `w`. The caller is in the middle of its own accumulation: when your function
# returns, `w.grad` must be exactly what it was when it was called, `None` included.

# %% solution 02_autograd-accumulate
def full_batch_grad(w, X, Y, chunk):
    ### BEGIN SOLUTION
    saved = w.grad
    w.grad = None
    for start in range(0, len(X), chunk):
        xb, yb = X[start:start + chunk], Y[start:start + chunk]
        (((xb @ w - yb) ** 2).sum() / len(X)).backward()
    total = w.grad
    w.grad = saved
    return total
    ### END SOLUTION

# %% test 02_autograd-accumulate-test points=2
class _Rows(torch.Tensor):
    """X as a tensor that records how many rows each product with w used."""
    used: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("matmul", "__matmul__", "mm", "mv", "__rmatmul__"):
            cls.used += [a.shape[0] for a in args if isinstance(a, _Rows) and a.dim() == 2]
        return super().__torch_function__(func, types, args, kwargs or {})


def _true_grad(w, X, Y):
    leaf = w.detach().clone().requires_grad_()
    return torch.autograd.grad(((X @ leaf - Y) ** 2).mean(), leaf)[0]


_gen = torch.Generator().manual_seed(5)
_X = torch.randn(10, 3, dtype=torch.float64, generator=_gen)
_Y = torch.randn(10, dtype=torch.float64, generator=_gen)
_w = torch.randn(3, dtype=torch.float64, generator=_gen).requires_grad_()
_true = _true_grad(_w, _X, _Y)
_stale = torch.full_like(_true, 5.0)
_w.grad = _stale.clone()
_hint = ("[mc:accumulate.weighting] The full-batch mean gives every row the weight 1 / len(X), "
         "whichever chunk it is in; backward adds into w.grad, and w.grad belongs to the caller.")
with checks.explain_errors({"": _hint}, "full_batch_grad(w, X, Y, 4) with 10 rows"):
    _got = full_batch_grad(_w, _X, _Y, 4)
with checks.because(_hint):
    checks.expect_type(_got, torch.Tensor, "full_batch_grad(w, X, Y, 4)")
    checks.expect_shape(_got, (3,), "full_batch_grad(w, X, Y, 4)")
_parts = [((_X[i:i + 4] @ _w - _Y[i:i + 4]) ** 2).mean() for i in range(0, 10, 4)]
_parts_grads = [torch.autograd.grad(p, _w)[0] for p in _parts]
_unweighted = sum(_parts_grads)
checks.reject_close(_got, {
    _true + _stale: "[mc:accumulate.stale-grad] The caller's gradient is inside the result: "
                    "backward adds to w.grad, so set it aside (and to None) before the chunks.",
    _unweighted: "[mc:accumulate.unweighted-means] Each chunk's mean was added with equal weight: "
                 "a row of the 2-row chunk then counts twice as much as a row of a 4-row chunk.",
    _unweighted / 3: "[mc:accumulate.unweighted-means] Dividing by the number of chunks still "
                     "weights a 2-row chunk like a 4-row one: every row must count the same.",
    sum(p * 4 / 10 for p in _parts_grads): "[mc:accumulate.last-chunk] Every chunk was weighted "
                                           "4 / 10, the last one too, though it has only 2 rows: "
                                           "a chunk's weight is its own number of rows.",
    _true * 10 / 4: "[mc:accumulate.weighting] Each chunk's sum was divided by chunk (4): the "
                    "full-batch mean divides every row's squared error by len(X), the number of "
                    "all rows.",
}, "full_batch_grad(w, X, Y, 4)")
checks.expect_true(_w.grad is not None and torch.equal(_w.grad, _stale),
                   f"After the call w.grad is {checks.show(_w.grad)}, not the caller's "
                   f"{checks.show(_stale)}. [mc:accumulate.restore-grad] The caller was "
                   "accumulating: put its w.grad back before returning.")
### BEGIN HIDDEN TESTS
checks.expect_close(_got, _true, "full_batch_grad(w, X, Y, 4)", hint=_hint)
for _chunk, _before in [(3, None), (1, torch.ones(3, dtype=torch.float64)), (25, None)]:
    _w2 = torch.randn(3, dtype=torch.float64, generator=_gen).requires_grad_()
    _w2.grad = None if _before is None else _before.clone()
    _Rows.used = []
    _name = f"full_batch_grad with chunk {_chunk} and w.grad {'None' if _before is None else 'ones'}"
    with checks.explain_errors({"": _hint}, _name):
        _got2 = full_batch_grad(_w2, _X.as_subclass(_Rows), _Y, _chunk)
    checks.expect_close(_got2.as_subclass(torch.Tensor), _true_grad(_w2, _X, _Y), _name, hint=_hint)
    checks.expect_true((_w2.grad is None) if _before is None else
                       (_w2.grad is not None and torch.equal(_w2.grad, _before)),
                       f"{_name}: w.grad was not put back as it was (None stays None). "
                       "[mc:accumulate.restore-grad] Restore exactly what the caller had.")
    checks.expect_true(_Rows.used and max(_Rows.used) <= _chunk,
                       f"{_name}: a product used {max(_Rows.used or [0])} rows at once. "
                       "[mc:accumulate.one-pass-per-chunk] Compute each chunk's loss from its own "
                       "rows only: the point of accumulating is that a full batch need not fit.")
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Vector-Jacobian products
#
# For y = f(x) with n inputs and m outputs, the **Jacobian** J is the m×n table of partial
# derivatives, J[i, j] = ∂y_i/∂x_j. `backward()` with no argument needs a one-element
# output, such as a scalar loss.
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
# *returns* it (a tuple, one entry per input) and leaves `.grad` alone. To take
# gradients with respect to a tensor that does not require grad, without touching the
# caller's tensor, make a fresh leaf from it: `x.detach().requires_grad_()`.

# %%
x_plain = torch.tensor([1.0, 2.0, 3.0])                 # does not require grad
leaf = x_plain.detach().requires_grad_()
(g,) = torch.autograd.grad(leaf * leaf, leaf, grad_outputs=v)
print("vᵀJ =", g, "| leaf.grad stays", leaf.grad, "| x_plain.requires_grad", x_plain.requires_grad)

# %% [markdown]
# A backward pass frees the tensors the graph saved for it (here `leaf`, which the product
# saved), so a second pass through the same graph fails, unless the first one was asked to
# keep them with `retain_graph=True`:

# %%
y_twice = leaf * leaf
torch.autograd.grad(y_twice, leaf, grad_outputs=v)
with checks.expect_error(RuntimeError):
    torch.autograd.grad(y_twice, leaf, grad_outputs=v)
y_twice = leaf * leaf
first = torch.autograd.grad(y_twice, leaf, grad_outputs=v, retain_graph=True)
second = torch.autograd.grad(y_twice, leaf, grad_outputs=torch.ones(3))
print("two passes with retain_graph=True:", first[0], second[0])

# %% [markdown]
# ### Exercise 4: per-sample gradients (2 points)
#
# *Misconception targeted: one backward pass gives vᵀJ, a single weighted sum over the
# outputs, so the gradient of a summed loss is not each sample's gradient.*
#
# Some tools need each sample's own gradient rather than the batch's: the size of each
# sample's gradient finds the samples that pull hardest on a model, and differentially
# private training clips each one before adding them. Complete `per_sample_grads(loss_fn, w)`:
# `loss_fn(w)` returns a 1-D tensor of N losses, one per sample, for a 1-D parameter `w` of
# P entries; return the N×P tensor whose row n is the gradient of loss n alone with
# respect to `w`, for any N ≥ 1 and P ≥ 1. Use the vector-Jacobian products of this
# section (not `torch.autograd.functional` or `torch.func`). The caller's `w` might not
# require grad: leave it as it was (the same `requires_grad`, no `.grad` on it).

# %% solution 02_autograd-vjp
def per_sample_grads(loss_fn, w):
    ### BEGIN SOLUTION
    w = w.detach().requires_grad_(True)
    losses = loss_fn(w)
    rows = []
    for n in range(losses.numel()):
        v = torch.zeros_like(losses)
        v[n] = 1.0
        (row,) = torch.autograd.grad(losses, w, grad_outputs=v, retain_graph=True)
        rows.append(row)
    return torch.stack(rows)
    ### END SOLUTION

# %% test 02_autograd-vjp-test points=2
_Xs = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [-1.5, 1.0, 0.5], [2.0, -0.5, 1.0]])
_Ys = torch.tensor([0.5, -1.0, 2.0, 0.0])


def _f(w):
    """Four samples' squared errors of a linear model with the 3-entry weight w."""
    return (_Xs @ w - _Ys) ** 2


class _NoJacobian:
    """Inside the block, the library's whole-Jacobian functions refuse: the task forbids them."""

    def __enter__(self):
        import torch.func
        self._saved = (torch.autograd.functional.jacobian, torch.func.jacrev, torch.func.jacfwd)

        def refuse(*args, **kwargs):
            raise checks.CheckFailed("per_sample_grads called torch.autograd.functional or "
                                     "torch.func. [mc:vjp.full-jacobian] Build the rows yourself "
                                     "from vector-Jacobian products, as the task asks.")
        torch.autograd.functional.jacobian = torch.func.jacrev = torch.func.jacfwd = refuse

    def __exit__(self, *exc):
        (torch.autograd.functional.jacobian, torch.func.jacrev, torch.func.jacfwd) = self._saved


_w0 = torch.tensor([1.0, 2.0, 0.5])
_J = 2 * (_Xs @ _w0 - _Ys)[:, None] * _Xs               # row n: d(x_n·w - y_n)²/dw, by hand
_hint = ("[mc:vjp.rows] Row n is the gradient of loss n alone: a vector-Jacobian product whose "
         "v keeps loss n and drops the others, through a graph that records w.")
with _NoJacobian(), checks.explain_errors({
        "second time": "[mc:vjp.retain-graph] Each row is a backward pass through the same "
                       "graph, whose saved tensors the first pass frees: pass retain_graph=True "
                       "(or run loss_fn again for each row).",
        "does not require grad": "[mc:vjp.leaf] w does not require grad here: differentiate "
                                 "with respect to a fresh leaf, w.detach().requires_grad_().",
        "": _hint}, "per_sample_grads(loss_fn, w) for 4 samples and a 3-entry w"):
    _got = per_sample_grads(_f, _w0)
with checks.because(_hint):
    checks.expect_type(_got, torch.Tensor, "per_sample_grads(loss_fn, w)")
with checks.because("[mc:vjp.rows-are-outputs] The result has one ROW per sample (4) and one "
                    "column per entry of w (3)."):
    checks.expect_shape(_got, (4, 3), "per_sample_grads(loss_fn, w)")
checks.reject_close(_got, {
    _J.sum(0).expand(4, 3): "[mc:vjp.sum-is-vjp] Every row is the gradient of the summed loss "
                            "(v = ones): that is the batch's gradient, the sum of the rows. "
                            "Row n needs a v that keeps loss n alone.",
    _J.cumsum(0): "[mc:vjp.rows-accumulate] Row n came out as the sum of rows 0 … n: backward "
                  "ADDS into w.grad. Reset it between rows, or use torch.autograd.grad, which "
                  "returns the gradient instead of adding it."}, "per_sample_grads(loss_fn, w)")
checks.expect_true(_w0.grad is None and not _w0.requires_grad,
                   "per_sample_grads changed the caller's w (it now requires grad or holds a "
                   ".grad). [mc:vjp.caller-grad] Work on a fresh leaf: w.detach().requires_grad_().")
### BEGIN HIDDEN TESTS
checks.expect_close(_got, _J, "per_sample_grads(loss_fn, w)", hint=_hint)
_g = torch.Generator().manual_seed(3)
_A = torch.randn(2, 5, dtype=torch.float64, generator=_g)
_w = torch.randn(5, dtype=torch.float64, generator=_g)
for _name, _fn, _at in [("2 losses of a 5-entry w", lambda t: _A @ torch.tanh(t), _w),
                        ("one sample (N = 1)", lambda t: (t ** 3).sum().reshape(1), _w),
                        ("a 1-entry w (P = 1)", lambda t: torch.cat([t, t.exp(), t * t]),
                         torch.tensor([0.3], dtype=torch.float64))]:
    _want = torch.autograd.functional.jacobian(_fn, _at)
    with _NoJacobian(), checks.explain_errors({"": _hint}, f"per_sample_grads for {_name}"):
        _mine = per_sample_grads(_fn, _at)
    with checks.because(_hint):
        checks.expect_close(_mine, _want, f"per_sample_grads for {_name}", hint=_hint)
_leaf = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)   # a caller's leaf that requires grad
with _NoJacobian():
    per_sample_grads(_f, _leaf)
checks.expect_true(_leaf.grad is None and _leaf.requires_grad,
                   "per_sample_grads left a .grad on the caller's w, which requires grad, or "
                   "switched its requires_grad off. [mc:vjp.caller-grad] Work on a fresh leaf: "
                   "w.detach().requires_grad_().")
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
# **Quick quiz (predict, then run the cell after the test).** After
#
# ```python
# x = torch.ones(2, requires_grad=True)
# with torch.no_grad():
#     a = x * 2
#     x.mul_(0.5)          # an update, as an optimizer step makes
# b = a * x
# c = x.detach() + b
# ```
#
# what are `a.requires_grad`, `x.requires_grad`, `b.requires_grad` and `c.requires_grad`?
# Put the four booleans in a tuple, in that order, in `answer_no_grad`.

# %% solution 02_autograd-quiz-no-grad
### BEGIN SOLUTION
answer_no_grad = (False, True, True, True)
### END SOLUTION

# %% test 02_autograd-quiz-no-grad-test points=1
with checks.because("[mc:autograd.quiz-type] Answer with four booleans, one per tensor."):
    checks.answer("02_autograd-quiz-no-grad", answer_no_grad, "answer_no_grad", kind=(tuple, list))
    checks.expect_true(len(answer_no_grad) == 4 and all(isinstance(v, bool) for v in answer_no_grad),
                       f"answer_no_grad = {answer_no_grad!r} is not four booleans.")
### BEGIN HIDDEN TESTS
_x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    _a = _x * 2
    _x.mul_(0.5)
_b = _a * _x
_c = _x.detach() + _b
for _name, _t, _said, _why in [
        ("a", _a, answer_no_grad[0], "[mc:autograd.no-grad-inherits] Inside no_grad nothing is "
                                     "recorded: a has no grad_fn and does not require grad."),
        ("x", _x, answer_no_grad[1], "[mc:autograd.no-grad-switches-off] no_grad changes what is "
                                     "recorded, not the leaf: x still requires grad after the update."),
        ("b", _b, answer_no_grad[2], "[mc:autograd.no-grad-lasts] b is computed after the block, "
                                     "from x, which requires grad: it is recorded."),
        ("c", _c, answer_no_grad[3], "[mc:autograd.detach-cuts-all] x.detach() is cut from the "
                                     "graph but b is not: c = x.detach() + b has an input that "
                                     "requires grad, so the addition is recorded.")]:
    checks.expect_true(_said == _t.requires_grad, f"{_name}.requires_grad: {_why}")
### END HIDDEN TESTS

# %% wrong 02_autograd-quiz-no-grad
{
    (True, True, True, True): "[mc:autograd.no-grad-inherits] Inside no_grad nothing is recorded: "
                              "a = x * 2 there has no grad_fn and does not require grad, whatever "
                              "its inputs.",
    (False, False, False, False): "[mc:autograd.no-grad-switches-off] no_grad changes what is "
                                  "recorded inside the block, not the tensors: x still requires "
                                  "grad after its update, and b = a * x, computed after the "
                                  "block, is recorded.",
    (False, True, False, False): "[mc:autograd.no-grad-lasts] b is computed after the block: one "
                                 "of its inputs, x, requires grad, so the product is recorded.",
    (False, False, True, True): "[mc:autograd.no-grad-switches-off] An update under no_grad "
                                "leaves x a leaf that requires grad (that is how an optimizer "
                                "step keeps training possible).",
    (False, True, True, False): "[mc:autograd.detach-cuts-all] x.detach() is cut from the graph, "
                                "but b is not: c = x.detach() + b has an input that requires "
                                "grad, so the addition is recorded and c requires grad.",
}

# %% [markdown]
# The same lines, then each tensor's flags: compare the `requires_grad` column with your
# four answers.

# %%
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    a = x * 2
    x.mul_(0.5)
b = a * x
c = x.detach() + b
for name, t in [("a", a), ("x", x), ("b", b), ("c", c)]:
    print(f"{name}: requires_grad={t.requires_grad!s:5}  grad_fn={t.grad_fn}")
print("x.detach() shares x's memory:", x.detach().data_ptr() == x.data_ptr())

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
# that it returns a float64 tensor holding `values` (a number or a nested list of numbers,
# whole numbers included) whose `.grad` `loss.backward()` fills.

# %% solution 02_autograd-why-none
def make_weight(values):
    ### BEGIN SOLUTION
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ### END SOLUTION

# %% test 02_autograd-why-none-test points=2
_make_hint = {"floating point": "[mc:autograd.int-requires-grad] Only floating-point tensors can "
                                "require grad: torch.tensor([1, 2, 3]) is int64, so give the "
                                "dtype in the same call that asks for gradients.",
              "": "[mc:autograd.leaf-creation] Build the tensor with torch.tensor(values, ...)."}
with checks.explain_errors(_make_hint, "make_weight([1.0, 2.0, 3.0])"):
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
with checks.explain_errors(_make_hint, "make_weight([1, 2, 3]) (whole numbers)"):
    _wi = make_weight([1, 2, 3])
checks.expect_true(isinstance(_wi, torch.Tensor) and _wi.dtype == torch.float64 and _wi.is_leaf
                   and _wi.requires_grad,
                   "make_weight([1, 2, 3]) must be a float64 leaf that requires grad, like "
                   "make_weight([1.0, 2.0, 3.0]). [mc:autograd.int-requires-grad] Give the dtype "
                   "in the call that creates the tensor.")
### BEGIN HIDDEN TESTS
checks.expect_true(_w.grad is not None, "[mc:autograd.op-after-requires-grad] backward left "
                   "make_weight's tensor without a .grad.")
checks.expect_close(_w.grad, 2 * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), "w.grad",
                    hint="[mc:autograd.leaf-values] The tensor must hold exactly the given values.")
for _values, _shape in [([[0.5, -1]], (1, 2)), (3, ()), ([[1, 2], [3, 4]], (2, 2))]:
    with checks.explain_errors(_make_hint, f"make_weight({_values})"):
        _w2 = make_weight(_values)
    checks.expect_true(isinstance(_w2, torch.Tensor) and _w2.is_leaf and _w2.requires_grad
                       and tuple(_w2.shape) == _shape and _w2.dtype == torch.float64
                       and torch.equal(_w2.detach(), torch.tensor(_values, dtype=torch.float64)),
                       f"make_weight({_values}) must be a float64 leaf of shape {_shape} holding "
                       "those values that requires grad. [mc:autograd.leaf-values]")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 6: a straight-through estimator with detach (2 points)
#
# *Misconception targeted: `round` has zero gradient almost everywhere, and `.detach()`
# decides which part of an expression gradients flow through.*
#
# Complete `ste_round(x)` so that its **value** is `torch.round(x)` but backward treats it
# as the identity: whatever gradient arrives at the output passes to `x` unchanged, for an
# `x` of any shape and floating dtype. Hint: x + (something detached) has the gradient of x.

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
checks.reject_close(_x.grad, {torch.zeros(3): "[mc:ste.round-flat] The gradient is 0: torch.round "
                              "is flat, and a -x outside the detached part cancels x. Only x "
                              "itself may stay outside it."},
                    "x.grad")
### BEGIN HIDDEN TESTS
checks.expect_close(_y.detach(), torch.round(_x.detach()), "ste_round(x) values",
                    hint="[mc:ste.value] The value must be torch.round(x) exactly.")
checks.expect_close(_x.grad, torch.ones(3), "x.grad",
                    hint="[mc:ste.detach-part] The gradient must be 1: only x itself should be "
                         "outside the detached part.")
_x2 = torch.tensor([[0.5, 1.5, -0.5], [2.49, -7.51, 3.0]], dtype=torch.float64, requires_grad=True)
_up = torch.tensor([[2.0, -1.0, 0.5], [3.0, 0.0, -4.0]], dtype=torch.float64)
with checks.explain_errors({"": "[mc:ste.detach-part] Return x plus a detached correction."},
                           "ste_round on a 2×3 float64 input"):
    _y2 = ste_round(_x2)
checks.expect_close(_y2.detach(), torch.round(_x2.detach()), "ste_round on a 2×3 float64 input",
                    hint="[mc:ste.value] The value must be torch.round(x) exactly (halves round "
                         "to even, as torch.round does).")
(_y2 * _up).sum().backward()
checks.expect_close(_x2.grad, _up, "x.grad for an upstream gradient that is not all ones",
                    hint="[mc:ste.identity-backward] Backward must pass the incoming gradient "
                         "through unchanged, as the identity would: no constant, no sign.")
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
# ### Exercise 7: a custom Function with two inputs (2 points)
#
# *Misconception targeted: backward returns one gradient per input of forward, each the
# incoming gradient times the output's derivative with respect to that input.*
#
# An activation with a learnable range computes y = s·tanh(x): x is a float64 tensor of
# any shape and s a one-element tensor of shape `()` that the model learns, so both
# require grad. Complete `ScaledTanh` so that `ScaledTanh.apply(x, s)` computes y and
# its backward gives the correct gradients to x and to s; derive both derivatives
# yourself. The test runs `gradcheck` on both inputs.

# %% solution 02_autograd-function
class ScaledTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s):
        ### BEGIN SOLUTION
        t = torch.tanh(x)
        ctx.save_for_backward(t, s)
        return s * t
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad_out):
        ### BEGIN SOLUTION
        t, s = ctx.saved_tensors
        grad_x = grad_out * s * (1 - t * t)      # d tanh(x)/dx = 1 - tanh(x)²
        grad_s = (grad_out * t).sum()            # s multiplies every entry: its adjoints add
        return grad_x, grad_s
        ### END SOLUTION

# %% test 02_autograd-function-test points=2
_x = torch.linspace(-2, 3, 7, dtype=torch.float64, requires_grad=True)
_s = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
_t = torch.tanh(_x.detach())
_saved_hint = ("[mc:function.save-for-backward] backward found nothing (or the wrong number of "
               "things) in ctx.saved_tensors: forward must call ctx.save_for_backward(...) on "
               "what backward unpacks.")
_arity_hint = ("[mc:function.one-grad-per-input] backward returns one gradient per input of "
               "forward, in forward's order, each shaped like its input: (one for x, one for s).")
_none_hint = ("[mc:function.scale-grad] backward returned no gradient for s (None): s requires "
              "grad, and the model learns it from that gradient.")
_hint = ("[mc:function.backward] For each input, backward returns grad_out times the "
         "derivative of y with respect to that input.")
with checks.explain_errors({"": "[mc:function.forward] forward computes s·tanh(x)."},
                           "ScaledTanh.apply(x, s)"):
    _fwd = ScaledTanh.apply(_x, _s)
with checks.because("[mc:function.forward] forward must return s·tanh(x)."):
    checks.expect_close(_fwd, 1.5 * _t, "ScaledTanh forward")
_up = torch.full((7,), 2.0, dtype=torch.float64)
with checks.explain_errors({"unpack": _saved_hint, "saved": _saved_hint,
                            "number of gradients": _arity_hint, "invalid gradient": _arity_hint,
                            "not have been used": _none_hint, "": _hint},
                           "ScaledTanh's backward"):
    _gx, _gs = torch.autograd.grad(ScaledTanh.apply(_x, _s), (_x, _s), _up)
    _gx1, _gs1 = torch.autograd.grad(ScaledTanh.apply(_x, _s), (_x, _s),
                                     torch.ones(7, dtype=torch.float64))
checks.reject_close(_gx, {
    _gx1: "[mc:function.ignores-grad-out] x's gradient ignores grad_out: by the chain rule it "
          "must multiply the local derivative by the incoming gradient.",
    2 * (1 - _t ** 2): "[mc:function.scale-factor] x's gradient misses the factor s: "
                       "y = s·tanh(x), so dy/dx carries s.",
    2 * 1.5 * (1 - _t): "[mc:function.wrong-derivative] d tanh(x)/dx is 1 - tanh(x)², not "
                        "1 - tanh(x).",
    2 * 1.5 * (1 - _x.detach() ** 2): "[mc:function.wrong-derivative] d tanh(x)/dx is "
                                      "1 - tanh(x)², not 1 - x²."},
    "x's gradient for an upstream gradient of 2")
checks.reject_close(_gs, {
    _gs1: "[mc:function.ignores-grad-out] s's gradient ignores grad_out: by the chain rule it "
          "must multiply the local derivative by the incoming gradient.",
    (2 * _t).mean(): "[mc:function.scale-grad] s's gradient is the MEAN over the entries: s "
                     "multiplies every entry of tanh(x), so like any value used many times its "
                     "adjoints add up (a sum)."},
    "s's gradient for an upstream gradient of 2")
checks.expect_true(torch.autograd.gradcheck(ScaledTanh.apply, (_x, _s), raise_exception=False),
                   "gradcheck failed: backward disagrees with finite differences. "
                   "[mc:function.wrong-derivative] Check each input's derivative of s·tanh(x).")
### BEGIN HIDDEN TESTS
checks.expect_close(_gx, 2 * 1.5 * (1 - _t ** 2), "x's gradient", hint=_hint)
checks.expect_close(_gs, (2 * _t).sum(), "s's gradient", hint=_hint)
_x2 = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
_s2 = torch.tensor(-0.7, dtype=torch.float64, requires_grad=True)
with checks.explain_errors({"": _hint}, "gradcheck of ScaledTanh on a 3×2 x and s = -0.7"):
    _passed = torch.autograd.gradcheck(ScaledTanh.apply, (_x2, _s2), raise_exception=False)
checks.expect_true(_passed, "gradcheck failed on a random 3×2 x with s = -0.7. "
                   "[mc:function.wrong-derivative] Each gradient must hold for any shape of x "
                   "and any sign of s.")
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
# ### Exercise 8: backward of a network that uses one weight twice (3 points)
#
# *Misconception targeted: giving a weight used in two places the gradient of one use
# only, or the same transpose in both uses; forgetting the ReLU's mask, or the mean's 1/M
# and factor 2.*
#
# A tied autoencoder compresses each row of x into H numbers and rebuilds it from them
# with the **same** matrix W, read the other way round:
# z = x Wᵀ + b1, h = relu(z), y = h W + b2, and loss = mean((y − x)²) over all N·D
# elements. Shapes: x (N, D), W (H, D), b1 (H,), b2 (D,). Complete
# `tied_grads(x, W, b1, b2)` returning `(dW, db1, db2)`, the gradients of the loss,
# computed with tensor algebra only (the test calls it under `torch.no_grad()`).

# %% solution 02_autograd-mlp-backward
def tied_grads(x, W, b1, b2):
    z = x @ W.T + b1
    h = torch.relu(z)
    y = h @ W + b2
    ### BEGIN SOLUTION
    dy = 2 * (y - x) / y.numel()
    db2 = dy.sum(0)
    dW_decoder = h.T @ dy                 # y = h W: W plays Wᵀ's part of the Linear rule
    dz = (dy @ W.T) * (z > 0)
    dW_encoder = dz.T @ x
    db1 = dz.sum(0)
    dW = dW_encoder + dW_decoder          # W fans out: the two uses' gradients add
    ### END SOLUTION
    return dW, db1, db2

# %% test 02_autograd-mlp-backward-test points=3
def _tied_case(seed, n=6, d=4, hidden=3):
    gen = torch.Generator().manual_seed(seed)
    shapes = [(n, d), (hidden, d), (hidden,), (d,)]
    return tuple(torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes)


def _tied_reference(x, W, b1, b2):
    params = [p.clone().requires_grad_() for p in (W, b1, b2)]
    y = torch.relu(x @ params[0].T + params[1]) @ params[0] + params[2]
    return torch.autograd.grad(((y - x) ** 2).mean(), params)


_x, _W, _b1, _b2 = _tied_case(1)
_hint = ("[mc:mlp.linear-rules] Work back from dy = 2(y - x)/(N·D): each use of W is a Linear "
         "layer whose rule you can read off its shapes, the ReLU multiplies by (z > 0), and "
         "where W is used twice the two gradients add.")
_transposed = ("[mc:mlp.weight-grad-transpose] Shapes do not fit: y = h W uses W the other way "
               "round from z = x Wᵀ + b1, so its rule is transposed too. Write each tensor's "
               "shape beside it.")
with torch.no_grad(), checks.explain_errors({"shapes cannot be multiplied": _transposed,
                                             "must match the size": _transposed, "": _hint},
                                            "tied_grads(x, W, b1, b2) with N = 6, D = 4, H = 3"):
    _mine = tied_grads(_x, _W, _b1, _b2)
with checks.because(_hint):
    checks.expect_type(_mine, (tuple, list), "tied_grads(...)")
    checks.expect_equal(len(_mine), 3, "the number of returned gradients")
_shape_why = {"dW": "[mc:mlp.weight-grad-transpose] A gradient has its parameter's shape, "
                    "(H, D) for W: check which way round each use of W multiplies.",
              "db1": "[mc:mlp.bias-sum] A bias is added to every row, so its gradient sums the "
                     "adjoint over the batch.",
              "db2": "[mc:mlp.bias-sum] A bias is added to every row, so its gradient sums the "
                     "adjoint over the batch."}
for _name, _g, _p in zip(("dW", "db1", "db2"), _mine, (_W, _b1, _b2)):
    with checks.because(_shape_why[_name]):
        checks.expect_shape(_g, tuple(_p.shape), _name)
_ref = _tied_reference(_x, _W, _b1, _b2)
_z = _x @ _W.T + _b1
_dy = 2 * (torch.relu(_z) @ _W + _b2 - _x) / _x.numel()
_dW_dec = torch.relu(_z).T @ _dy
_dW_enc = ((_dy @ _W.T) * (_z > 0)).T @ _x
checks.reject_close(_mine[0], {
    _dW_enc: "[mc:mlp.tied-one-path] dW holds only the encoder's use of W (z = x Wᵀ + b1): W is "
             "used twice, and the decoder's use (y = h W) adds its own gradient.",
    _dW_dec: "[mc:mlp.tied-one-path] dW holds only the decoder's use of W (y = h W): W is used "
             "twice, and the encoder's use (z = x Wᵀ + b1) adds its own gradient.",
    _dW_dec + ((_dy @ _W.T).T @ _x): "[mc:mlp.relu-mask] The encoder's share of dW ignores the "
                                     "ReLU: multiply the adjoint by its derivative, the mask "
                                     "(z > 0).",
    _ref[0] * _x.numel(): "[mc:mlp.mean-factor] dW is N·D times too large: the loss is a mean "
                          "over all elements, so dy carries 1/(N·D).",
    _ref[0] * _x.shape[1]: "[mc:mlp.mean-factor] dW is D times too large: the loss is a mean "
                           "over all N·D elements, not over the N rows.",
    _ref[0] * _x.shape[0]: "[mc:mlp.mean-factor] dW is N times too large: the loss is a mean "
                           "over all N·D elements, not over the D columns.",
    _ref[0] / 2: "[mc:mlp.missing-factor-2] dW is half the true gradient: the derivative of "
                 "(y - x)² is 2(y - x).",
}, "dW")
for _name, _k in (("db1", 1), ("db2", 2)):
    checks.reject_close(_mine[_k], {
        _ref[_k] / _x.shape[0]: f"[mc:mlp.bias-sum] {_name} is the batch MEAN of the adjoint: "
                                "the bias is added to every row, so its gradient is the sum "
                                "over the batch."}, _name)
### BEGIN HIDDEN TESTS
for _name, _g, _r in zip(("dW", "db1", "db2"), _mine, _ref):
    checks.expect_close(_g, _r, _name, rtol=1e-6, atol=1e-9, hint=_hint)
for _seed, _sizes in ((7, (5, 3, 6)), (11, (1, 2, 2))):   # H > D; one row, H = D
    _case = _tied_case(_seed, *_sizes)
    _what = f"tied_grads with (N, D, H) = {_sizes}"
    with torch.no_grad(), checks.explain_errors({"": _hint}, _what):
        _mine_k = tied_grads(*_case)
    for _name, _g, _r in zip(("dW", "db1", "db2"), _mine_k, _tied_reference(*_case)):
        with checks.because(_hint):
            checks.expect_close(_g, _r, f"{_name} of {_what}", rtol=1e-6, atol=1e-9, hint=_hint)
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
# - Leaves are tensors with no `grad_fn`: those you create, and any result computed from
#   tensors none of which requires grad. Intermediates carry a `grad_fn`, linked by
#   `next_functions` down to `AccumulateGrad` nodes of the leaves.
# - The graph is recorded as code runs; Python control flow shapes it.
# - Backward is the reverse-mode chain rule: each node turns its output's adjoint into its
#   inputs' adjoints, and adjoints **add** where a value fans out. For a non-scalar output
#   you supply v and get vᵀJ; one pass per one-hot v gives J row by row.
# - `.grad` accumulates: reset it (`zero_grad`, `grad = None`), exploit it for gradient
#   accumulation with weighted micro-batches, and leave a caller's `.grad` as you found it.
# - `no_grad` records nothing inside its block and changes no tensor's flags; `detach`
#   cuts a tensor from the graph; `.data` hides changes from autograd and can give silently
#   wrong gradients.
# - An in-place edit of a leaf that requires grad raises at once (outside `no_grad`); an
#   in-place edit of a tensor saved for backward raises when backward runs. Update
#   parameters under `no_grad`, or compute out of place.
# - A Linear layer's backward is dW = dyᵀh, db = Σdy, dh = dy W; a custom `Function`
#   defines forward and backward, and `gradcheck` tests it at sample points.
#
# **Next:** 03_modules packages parameters (leaves with `requires_grad=True`) into
# `nn.Module`, and 04 turns backward plus an update into a training loop.
#
# **Run time.** The cell below says how long this notebook took from its first cell to here
# (`benchmarks/notebooks.py` measures the same, top to bottom, without a browser).

# %%
print(f"this notebook ran in {time.perf_counter() - notebook_started:.1f} s")
