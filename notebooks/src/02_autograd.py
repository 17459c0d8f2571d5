# %% [markdown]
# # 02 Autograd: the dynamic graph
#
# Every training step ends with `loss.backward()`, and after it every parameter has a
# `.grad`. That one line hides a data structure: while your code runs, PyTorch records
# each operation in a graph, and `backward` walks that graph from the loss back to the
# parameters applying the chain rule. When you can see the graph, the surprises of
# autograd (a gradient that is `None`, a graph that is already freed, an in-place error, a
# NaN from nowhere) stop being surprises.
#
# **You will learn to**
# - tell leaves from intermediates and read `grad_fn` / `next_functions`;
# - compute a backward pass by hand, check it three ways, and walk the graph yourself;
# - use vector-Jacobian products, per-sample gradients (`torch.func`) and higher-order
#   gradients;
# - control what backward records and keeps: `.grad` across calls, `retain_grad`, hooks,
#   `no_grad`, `detach`;
# - find in-place errors and NaN gradients, and test a custom `autograd.Function`.
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
import helpers.autograd_tasks
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
# `t.detach()` returns a tensor with `t`'s values that does not require grad (section 8
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
from helpers.grading import probe
probe.answer("answer_leaves")
### JUDGE
from helpers.grading.probe import got
with checks.because("[mc:autograd.quiz-type] The answer is a count, a whole number."):
    checks.answer("02_autograd-quiz-leaves", got["answer_leaves"], "answer_leaves", kind=int,
                  choices=range(5))
checks.expect_true(got["answer_leaves"] == 3,
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
# ## 2. Define-by-run
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
# adjoint that flows back along each edge: that edge's share of the gradient of the output
# with respect to the value at its start. A node's whole gradient is the sum over its
# outgoing edges. Tasks:
#
# 1. Move the slider across 0: notice the recorded node change from `Mul` (two edges from
#    x: x·x uses x twice) to `Exp`, as the cell above printed. Explain why one Python
#    function records two different graphs.
# 2. Predict x.grad at x = 1 and at x = −1, set each and read it: notice that at x = 1 the
#    gradient is the sum of two edges' adjoints, one per use of x.
# 3. Which branch runs at x = 0 exactly? Predict from the code, then type 0 in the number
#    box and check.

# %%
import helpers.autograd_graph  # so that this cell also runs on its own after a restart

helpers.autograd_graph.explore(branchy, x=(-2, 2, 0.1, 1.5))

# %% [markdown]
# ## 3. Backward and the chain rule
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
from helpers.grading import probe
probe.answer("answer_seed_grad")
### JUDGE
from helpers.grading.probe import got
_b = got["answer_seed_grad"]
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.answer("02_autograd-quiz-seed", _b, "answer_seed_grad", kind=float)
_d = 2 * _b + 2                                   # d = ab + a at a = 2
checks.expect_true(abs(2 * _d * _b + 2 * _d) < 1e-6,
                   f"At b = {_b}, a.grad is {2 * _d * _b + 2 * _d:g}. [mc:autograd.chain-rule] Add "
                   "a's two paths: 2d·b through c = a·b and 2d directly, with d = 2b + 2 at a = 2; "
                   "find where the sum is 0.")
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
# ### Exercise 1: predict a gradient through fan-out (2 points)
#
# *Misconception targeted: following only one path from a variable to the output.*
#
# With x = 2 and y = −1, let q = x·y + x², and out = q·x. Compute d out / dx **by hand**
# (no autograd) and store it as a number in `fanout_grad`.

# %%
def fanout(x, y):
    q = x * y + x ** 2
    return q * x

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
from helpers.grading import probe
probe.answer("fanout_grad")
### JUDGE
from helpers.grading.probe import got
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.answer("02_autograd-fanout", got["fanout_grad"], "fanout_grad", kind=float)
checks.expect_close(got["fanout_grad"], 8.0, "fanout_grad",
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
import helpers.autograd_graph  # so that this cell also runs on its own after a restart

helpers.autograd_graph.explore(fanout, x=(-3, 3, 0.1, 2.0), y=(-3, 3, 0.1, -1.0))

# %% [markdown]
# **Calling the nodes yourself.** A `grad_fn` node is callable: given the adjoint of its
# output it returns the adjoints of its inputs, one per entry of `next_functions` (a
# single tensor when the node has one input, a tuple otherwise). Backward does this for
# every node of the graph; what is left to decide is the order of the calls, and how many
# there are.

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
# The simplest walk calls the output's node on the adjoint 1 and sends each returned adjoint
# straight down its edge, calling the node there at once; at a leaf's `AccumulateGrad` the
# walk keeps the sum of what reached it in this pass. A node that two consumers use is
# reached twice, and called twice. The walk counts its node calls:

# %%
def walk_every_path(output, leaves):
    """The leaves' gradients, calling a node each time an adjoint reaches it; and the count."""
    totals, calls = {}, 0

    def visit(node, adjoint):
        nonlocal calls
        if hasattr(node, "variable"):               # AccumulateGrad: add to the leaf's total
            totals[id(node.variable)] = totals.get(id(node.variable), 0) + adjoint
            return
        calls += 1
        adjoints = node(adjoint)
        if isinstance(adjoints, torch.Tensor):      # one input: a tensor, not a tuple
            adjoints = (adjoints,)
        for (child, _), g in zip(node.next_functions, adjoints):
            if child is not None and g is not None:   # None: an input that needs no gradient
                visit(child, g)

    visit(output.grad_fn, torch.ones_like(output))
    return [totals.get(id(leaf)) for leaf in leaves], calls


grads, calls = walk_every_path(L, [a, b])
print("seed graph: a.grad, b.grad =", [g.item() for g in grads], "in", calls, "node calls")

# %% [markdown]
# **Quick quiz (predict, then run the cell after the test).** Square a leaf ten times:
#
# ```python
# x = torch.tensor(1.0, requires_grad=True)
# y = x
# for _ in range(10):
#     y = y * y
# ```
#
# The graph has ten `Mul` nodes, each using the one before it twice. How many node calls
# does `walk_every_path(y, [x])` make? Put a whole number in `answer_walk_calls`.

# %% solution 02_autograd-quiz-walk-calls
### BEGIN SOLUTION
answer_walk_calls = 1023
### END SOLUTION

# %% test 02_autograd-quiz-walk-calls-test points=1
with checks.because("[mc:autograd.quiz-type] The answer is a count, a whole number."):
    checks.answer("02_autograd-quiz-walk-calls", answer_walk_calls, "answer_walk_calls", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_walk_calls")
### JUDGE
from helpers.grading.probe import got
with checks.because("[mc:autograd.quiz-type] The answer is a count, a whole number."):
    checks.answer("02_autograd-quiz-walk-calls", got["answer_walk_calls"], "answer_walk_calls",
                  kind=int)
checks.expect_true(got["answer_walk_calls"] == 2 ** 10 - 1,
                   "[mc:walk.every-path] The walk calls a node once per path from the output down "
                   "to it: once for the top Mul, twice for the next, four times for the third.")
### END HIDDEN TESTS

# %% wrong 02_autograd-quiz-walk-calls
{
    10: "[mc:walk.calls-per-node] The walk calls a node each time an adjoint reaches it, not "
        "once: the second Mul from the top is reached along two edges, the third along four.",
    20: "[mc:walk.calls-per-node] Two calls per node would hold if only the top node fanned "
        "out: every node reached twice sends two adjoints down EACH of its two edges.",
    1024: "[mc:walk.paths-double] The top node is called once, the next twice, and so on down "
          "to 512 for the tenth: add 1 + 2 + … + 512.",
    512: "[mc:walk.paths-double] 512 is the calls of the lowest Mul alone: the nine above it "
         "are called too (1 + 2 + … + 256 times).",
    2047: "[mc:walk.leaf-calls] The leaf is reached 1024 times, but its AccumulateGrad only "
          "adds: the count is of operation nodes called.",
}

# %% [markdown]
# The chain, walked: compare the count with your answer. A node is called once per path from
# the output down to it.

# %%
x = torch.tensor(1.0, requires_grad=True)
y = x
for _ in range(10):
    y = y * y
(grad_x,), calls = walk_every_path(y, [x])
print(f"x.grad = {grad_x.item():g} (2 to the 10th), node calls: {calls}")

# %% [markdown]
# The **walk counter** counts, on the recorded graph itself, the calls of this walk and of
# a walk that first sums every adjoint reaching a node and then calls it once. Tasks:
#
# 1. Check the quiz at depth 10. Predict the count at depth 20, then set it.
# 2. Switch the step to `y = y·y + y`. Predict how much the count grows from one depth to
#    the next (count the paths from one level's `Add` node down to the level below), then
#    check.
# 3. Switch to `y = sin(y)`: notice that both walks make the same calls. Explain what a
#    graph needs for the per-path walk to cost more than one call per node.

# %%
import helpers.graph_walks  # so that this cell also runs on its own after a restart

helpers.graph_walks.explore()

# %% [markdown]
# Counts are not times. The cell runs the per-path walk at three depths, and beside it
# `torch.autograd.grad` on the same graph, counting the calls autograd's engine makes (a
# hook on every node counts them):

# %%
import helpers.graph_walks  # the chain and the engine's count

for depth in (8, 12, 16):
    y, x = helpers.graph_walks.chain("y = y·y", depth)
    start = time.perf_counter()
    _, walked = walk_every_path(y, [x])
    walk_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    _, engine = helpers.graph_walks.engine_calls(y, x)
    engine_ms = (time.perf_counter() - start) * 1e3
    print(f"depth {depth:2}: per-path walk {walked:6} calls, {walk_ms:7.1f} ms | "
          f"autograd's engine {engine:2} calls, {engine_ms:4.1f} ms")

# %% [markdown]
# ### Exercise 2: walk the graph once per node (3 points)
#
# *Misconception targeted: following every path is how backward works (then its cost
# would double with every level of fan-out), and a node may be called as soon as one
# adjoint reaches it.*
#
# Complete `walk_grads(output, leaves)`. It returns what `walk_every_path` returns for the
# leaves, without the count (a leaf that the output does not depend on gets `None`), but it
# calls every operation node **once**, on the **sum** of the adjoints its consumers send it.
# So a node may be called only after every node that uses its output has been called: the
# nodes must be called in a *topological order* of the graph, read from the output. Work
# that order out from `next_functions` before you call any node: a depth-first search that
# lists a node only after all of its inputs lists every node after everything it depends
# on, so read backwards that list puts each node after all of its consumers. Do not call
# `backward` or `torch.autograd.grad`. The test counts the node calls on a chain 30 levels
# deep.

# %% solution 02_autograd-walk
def walk_grads(output, leaves):
    ### BEGIN SOLUTION
    order, seen, stack = [], set(), [(output.grad_fn, False)]
    while stack:                              # depth-first: a node after all of its inputs
        node, inputs_placed = stack.pop()
        if inputs_placed:
            order.append(node)
        elif node is not None and node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((child, False) for child, _ in node.next_functions)
    pending = {output.grad_fn: torch.ones_like(output)}   # node -> sum of adjoints so far
    totals = {}
    for node in reversed(order):              # every consumer of a node comes before it
        adjoint = pending.pop(node, None)
        if adjoint is None:
            continue
        if hasattr(node, "variable"):
            totals[id(node.variable)] = adjoint
            continue
        adjoints = node(adjoint)
        if isinstance(adjoints, torch.Tensor):
            adjoints = (adjoints,)
        for (child, _), g in zip(node.next_functions, adjoints):
            if child is not None and g is not None:
                pending[child] = pending[child] + g if child in pending else g
    return [totals.get(id(leaf)) for leaf in leaves]
    ### END SOLUTION

# %% test 02_autograd-walk-test points=3
from helpers import graph_walks as _walks
from helpers.refuse import refusing as _refusing

_a = torch.tensor(2.0, requires_grad=True)
_b = torch.tensor(3.0, requires_grad=True)
_L = (_a * _b + _a) ** 2
_hint = ("[mc:walk.node-call] Call node(adjoint); wrap a single returned tensor in a tuple; zip "
         "the adjoints with node.next_functions and skip the entries that are None.")
_every_path = ("[mc:walk.every-path] A node was called once per path from the output down to "
               "it, so the calls double at every level of fan-out: sum what reaches a node first, "
               "and call it once.")
_hints = {"called backward or torch.autograd.grad": "[mc:walk.used-autograd] Call the nodes "
                                                     "yourself: node(adjoint) returns its "
                                                     "inputs' adjoints.",
          "budget": _every_path, "": _hint}
_no_backward = (["torch.Tensor.backward", "torch.autograd.grad"],
                "walk_grads called backward or torch.autograd.grad")
with _refusing(*_no_backward), checks.explain_errors(_hints, "walk_grads(L, [a, b])"):
    _got = walk_grads(_L, [_a, _b])
with checks.because(_hint):
    checks.expect_type(_got, (list, tuple), "walk_grads(L, [a, b])")
    checks.expect_equal(len(_got), 2, "the number of gradients returned")
checks.expect_true(_got[1] is not None, "b got no gradient. [mc:walk.first-input-only] Follow "
                   "EVERY entry of next_functions, not only the first.")
checks.expect_true(_got[0] is not None, "a got no gradient. [mc:walk.leaf-total] At an "
                   "AccumulateGrad node, keep the adjoint for the leaf node.variable.")
checks.reject_close(torch.as_tensor(_got[0]).detach(), {
    48.0: "[mc:autograd.fanout-overwrite] a's total is only the path through c: a reaches L "
          "along two paths, and their adjoints must be ADDED, not overwritten.",
    16.0: "[mc:autograd.fanout-overwrite] a's total is only the direct path: a reaches L along "
          "two paths, and their adjoints must be ADDED, not overwritten."}, "a's gradient")
_chain = _walks.counted_chain(30)
with _refusing(*_no_backward), checks.explain_errors(_hints, "walk_grads on y ← y + y, 30 levels"):
    walk_grads(_chain.output, [_chain.leaf])
checks.expect_true(_chain.calls <= _chain.nodes, f"walk_grads made {_chain.calls} node calls on "
                   f"a graph of {_chain.nodes} nodes. {_every_path}")
(_mine,), (_autograd,) = walk_grads(_chain.output, [_chain.leaf]), torch.autograd.grad(
    _chain.output, _chain.leaf)
checks.expect_true(_mine is not None and torch.allclose(torch.as_tensor(_mine).detach().double(), _autograd),
                   f"walk_grads on y ← y + y gave {_mine}, autograd {_autograd}. [mc:walk.order] "
                   "A node was called before all of its adjoints had arrived (or the later ones "
                   "were dropped): call each node once, on the sum of what reached it.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
from helpers import graph_walks
from helpers.refuse import refusing


def walked(output, leaves):
    with refusing(["torch.Tensor.backward", "torch.autograd.grad"],
                  "walk_grads called backward or torch.autograd.grad"):
        return walk_grads(output, leaves)


a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
probe.observe("walk_grads(L, [a, b]) on the seed graph", lambda: walked((a * b + a) ** 2, [a, b]))
for skip, name in ((False, "y ← y + y, 30 levels"), (True, "y ← ½·(½·y) + y, 30 levels")):
    chain = graph_walks.counted_chain(30, skip=skip)
    probe.observe(f"walk_grads on {name}", lambda: walked(chain.output, [chain.leaf]))
    probe.value(f"node calls on {name}", chain.calls)
x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
y = torch.tensor(-1.3, dtype=torch.float64, requires_grad=True)
probe.observe("walk_grads(sin(x·y)·x + y², [x, y])", lambda: walked(torch.sin(x * y) * x + y * y, [x, y]))
v = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
c = torch.tensor([3.0, 0.5, -2.0], dtype=torch.float64)          # needs no gradient
z = torch.tensor(4.0, dtype=torch.float64, requires_grad=True)   # the output does not use it
probe.observe("walk_grads((v·c + v).sum(), [v, z])", lambda: walked((v * c + v).sum(), [v, z]))
### JUDGE
import math

from helpers.grading.probe import got

_hint = ("[mc:walk.node-call] Call node(adjoint); wrap a single returned tensor in a tuple; zip "
         "the adjoints with node.next_functions and skip the entries that are None.")
_every_path = ("[mc:walk.every-path] A node was called once per path from the output down to "
               "it, so the calls double at every level of fan-out: sum what reaches a node first, "
               "and call it once.")
_order = ("[mc:walk.order] A node was called before all of its adjoints had arrived (or the later "
          "ones were dropped): on y ← ½·(½·y) + y, y's node is reached along the direct edge two "
          "levels before the other path reaches it. Call the nodes in a topological order, each "
          "once, on the sum of what reached it.")
_hints = {"called backward or torch.autograd.grad": "[mc:walk.used-autograd] Call the nodes "
                                                     "yourself: node(adjoint) returns its "
                                                     "inputs' adjoints.",
          "budget": _every_path, "": _hint}


def _grads(key, count, hints=_hints):
    found = got.value(key, hints)
    with checks.because(_hint):
        checks.expect_type(found, (list, tuple), key)
        checks.expect_equal(len(found), count, f"the number of gradients {key} returned")
    return [None if g is None else torch.as_tensor(g, dtype=torch.float64) for g in found]


_ga, _gb = _grads("walk_grads(L, [a, b]) on the seed graph", 2)
checks.expect_true(_gb is not None, "b got no gradient. [mc:walk.first-input-only] Follow EVERY "
                   "entry of next_functions, not only the first.")
checks.expect_true(_ga is not None, "a got no gradient. [mc:walk.leaf-total] At an "
                   "AccumulateGrad node, keep the adjoint for the leaf node.variable.")
checks.reject_close(_ga, {
    48.0: "[mc:autograd.fanout-overwrite] a's total is only the path through c: a reaches L "
          "along two paths, and their adjoints must be ADDED, not overwritten.",
    16.0: "[mc:autograd.fanout-overwrite] a's total is only the direct path: a reaches L along "
          "two paths, and their adjoints must be ADDED, not overwritten."}, "a's gradient")
checks.expect_close(_ga, torch.tensor(64.0, dtype=torch.float64), "a's gradient", hint=_hint)
checks.expect_close(_gb, torch.tensor(32.0, dtype=torch.float64), "b's gradient", hint=_hint)
for _name, _nodes, _want, _why in [("y ← y + y, 30 levels", 30, 2.0 ** 30, _every_path),
                                   ("y ← ½·(½·y) + y, 30 levels", 90, 1.25 ** 30, _order)]:
    (_g,) = _grads(f"walk_grads on {_name}", 1, {**_hints, "budget": _why})
    _calls = got[f"node calls on {_name}"]
    checks.expect_true(_calls <= _nodes, f"walk_grads made {_calls} node calls on {_name}, a "
                       f"graph of {_nodes} nodes. {_why}")
    checks.expect_true(_g is not None and math.isclose(_g.item(), _want, rel_tol=1e-9),
                       f"walk_grads on {_name} gave the leaf {_g}: each node's adjoint is the "
                       f"sum of everything that reaches it. {_order}")
_x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
_y = torch.tensor(-1.3, dtype=torch.float64, requires_grad=True)
for _name, _g, _r in zip("xy", _grads("walk_grads(sin(x·y)·x + y², [x, y])", 2),
                         torch.autograd.grad(torch.sin(_x * _y) * _x + _y * _y, [_x, _y])):
    checks.expect_true(_g is not None, f"{_name} got no gradient from walk_grads(sin(x·y)·x + y², "
                       f"[x, y]). {_hint}")
    checks.expect_close(_g, _r, f"{_name}'s gradient of sin(x·y)·x + y²", hint=_hint)
_gv, _gz = _grads("walk_grads((v·c + v).sum(), [v, z])", 2)
checks.expect_true(_gv is not None, f"v got no gradient from walk_grads((v·c + v).sum(), [v, z]). {_hint}")
checks.expect_close(_gv, torch.tensor([4.0, 1.5, -1.0], dtype=torch.float64),
                    "v's gradient of (v·c + v).sum()", hint=_hint)
checks.expect_true(_gz is None, f"walk_grads((v·c + v).sum(), [v, z]) gave z, which the output "
                   f"does not use, the gradient {_gz}. [mc:walk.unused-leaf] A leaf that no path "
                   "reaches gets None, as walk_every_path gives it.")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. A second backward into the same .grad
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
from helpers.grading import probe
probe.answer("answer_accumulated")
### JUDGE
from helpers.grading.probe import got
with checks.because("[mc:autograd.quiz-type] The answer is a number."):
    checks.answer("02_autograd-quiz-accumulate", got["answer_accumulated"], "answer_accumulated",
                  kind=float)
checks.expect_close(got["answer_accumulated"], 12.0, "answer_accumulated",
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
_parts = [torch.autograd.grad(((_X[i:i + 4] @ _w - _Y[i:i + 4]) ** 2).mean(), _w)[0]
          for i in range(0, 10, 4)]
checks.reject_close(_got, {
    _true + _stale: "[mc:accumulate.stale-grad] The caller's gradient is inside the result: "
                    "backward adds to w.grad, so set it aside (and to None) before the chunks.",
    sum(_parts): "[mc:accumulate.unweighted-means] Each chunk's mean was added with equal "
                 "weight: a row of a short chunk then counts more than a row of a full one.",
    sum(_parts) / 3: "[mc:accumulate.unweighted-means] Dividing by the number of chunks still "
                     "weights a short chunk like a full one: every row must count the same.",
    sum(p * 4 / 10 for p in _parts): "[mc:accumulate.last-chunk] Every chunk was weighted chunk / "
                                     "len(X), the last one too, though it has only the rows that "
                                     "were left: a chunk's weight is its own number of rows.",
    _true * 10 / 4: "[mc:accumulate.weighting] Each chunk's sum was divided by chunk: the "
                    "full-batch mean divides every row's squared error by len(X), the number of "
                    "all rows.",
}, "full_batch_grad(w, X, Y, 4)")
checks.expect_true(_w.grad is not None and torch.equal(_w.grad, _stale),
                   f"After the call w.grad is {checks.show(_w.grad)}, not the caller's "
                   f"{checks.show(_stale)}. [mc:accumulate.restore-grad] The caller was "
                   "accumulating: put its w.grad back before returning.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe


class Rows(torch.Tensor):
    """X as a tensor that records how many rows each product with w used."""
    used: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("matmul", "__matmul__", "mm", "mv", "__rmatmul__"):
            cls.used += [a.shape[0] for a in args if isinstance(a, Rows) and a.dim() == 2]
        return super().__torch_function__(func, types, args, kwargs or {})


def run(chunk, before):
    gen = torch.Generator().manual_seed(5)
    X = torch.randn(10, 3, dtype=torch.float64, generator=gen)
    Y = torch.randn(10, dtype=torch.float64, generator=gen)
    w = torch.randn(3, dtype=torch.float64, generator=gen).requires_grad_()
    w.grad = None if before is None else torch.full((3,), float(before), dtype=torch.float64)
    Rows.used = []
    result = full_batch_grad(w, X.as_subclass(Rows), Y, chunk)
    if isinstance(result, torch.Tensor):
        result = result.as_subclass(torch.Tensor).detach()
    return {"result": result, "w.grad after": None if w.grad is None else w.grad.detach().clone(),
            "rows at once": max(Rows.used, default=0)}


for chunk, before in [(4, 5.0), (3, None), (1, 1.0), (25, None)]:
    probe.call(f"full_batch_grad(w, X, Y, {chunk}) with w.grad {before}", run, chunk, before)
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:accumulate.weighting] The full-batch mean gives every row the weight 1 / len(X), "
         "whichever chunk it is in; backward adds into w.grad, and w.grad belongs to the caller.")
_gen = torch.Generator().manual_seed(5)
_X = torch.randn(10, 3, dtype=torch.float64, generator=_gen)
_Y = torch.randn(10, dtype=torch.float64, generator=_gen)
_w = torch.randn(3, dtype=torch.float64, generator=_gen).requires_grad_()
_true = torch.autograd.grad(((_X @ _w - _Y) ** 2).mean(), _w)[0]
for _chunk, _before in [(4, 5.0), (3, None), (1, 1.0), (25, None)]:
    _key = f"full_batch_grad(w, X, Y, {_chunk}) with w.grad {_before}"
    _seen = got.value(_key, {"": _hint})
    _got = _seen["result"]
    with checks.because(_hint):
        checks.expect_type(_got, torch.Tensor, _key)
        checks.expect_shape(_got, (3,), _key)
    _starts = range(0, 10, _chunk)
    _parts = [torch.autograd.grad(((_X[i:i + _chunk] @ _w - _Y[i:i + _chunk]) ** 2).mean(), _w)[0]
              for i in _starts]
    _wrong = {
        sum(_parts): "[mc:accumulate.unweighted-means] Each chunk's mean was added with equal "
                     "weight: a row of a short chunk then counts more than a row of a full one.",
        sum(_parts) / len(_parts): "[mc:accumulate.unweighted-means] Dividing by the number of "
                                   "chunks still weights a short chunk like a full one: every "
                                   "row must count the same.",
        sum(p * _chunk / 10 for p in _parts): "[mc:accumulate.last-chunk] Every chunk was weighted "
                                              "chunk / len(X), the last one too, though it has "
                                              "only the rows that were left: a chunk's weight is "
                                              "its own number of rows.",
        _true * 10 / _chunk: "[mc:accumulate.weighting] Each chunk's sum was divided by chunk: "
                             "the full-batch mean divides every row's squared error by len(X), "
                             "the number of all rows."}
    if _before is not None:
        _wrong[_true + _before] = ("[mc:accumulate.stale-grad] The caller's gradient is inside "
                                   "the result: backward adds to w.grad, so set it aside (and to "
                                   "None) before the chunks.")
    checks.reject_close(_got, {k: v for k, v in _wrong.items() if not torch.allclose(k, _true)}, _key)
    checks.expect_close(_got, _true, _key, hint=_hint)
    _after = _seen["w.grad after"]
    checks.expect_true((_after is None) if _before is None else
                       (isinstance(_after, torch.Tensor) and bool((_after == _before).all())),
                       f"{_key}: after the call w.grad is {checks.show(_after)}, not the caller's "
                       f"{_before}. [mc:accumulate.restore-grad] The caller was accumulating: put "
                       "its w.grad back before returning (None stays None).")
    checks.expect_true(0 < _seen["rows at once"] <= _chunk,
                       f"{_key}: a product used {_seen['rows at once']} rows at once. "
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
from helpers.refuse import refusing as _refusing

_Xs = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [-1.5, 1.0, 0.5], [2.0, -0.5, 1.0]])
_Ys = torch.tensor([0.5, -1.0, 2.0, 0.0])


def _f(w):
    """Four samples' squared errors of a linear model with the 3-entry weight w."""
    return (_Xs @ w - _Ys) ** 2


_libraries = (["torch.autograd.functional.jacobian", "torch.func.jacrev", "torch.func.jacfwd",
               "torch.func.vmap", "torch.vmap"], "per_sample_grads called a library's Jacobian")
_w0 = torch.tensor([1.0, 2.0, 0.5])
_J = 2 * (_Xs @ _w0 - _Ys)[:, None] * _Xs               # row n: d(x_n·w - y_n)²/dw, by hand
_hint = ("[mc:vjp.rows] Row n is the gradient of loss n alone: a vector-Jacobian product whose "
         "v keeps loss n and drops the others, through a graph that records w.")
_hints = {"second time": "[mc:vjp.retain-graph] Each row is a backward pass through the same "
                         "graph, whose saved tensors the first pass frees: pass retain_graph=True "
                         "(or run loss_fn again for each row).",
          "does not require grad": "[mc:vjp.leaf] w does not require grad here: differentiate "
                                   "with respect to a fresh leaf, w.detach().requires_grad_().",
          "a library's Jacobian": "[mc:vjp.full-jacobian] Build the rows yourself from "
                                  "vector-Jacobian products, as the task asks (not "
                                  "torch.autograd.functional or torch.func).",
          "": _hint}
with _refusing(*_libraries), checks.explain_errors(_hints, "per_sample_grads(loss_fn, w) for 4 "
                                                   "samples and a 3-entry w"):
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
from helpers.grading import probe
from helpers.refuse import refusing

X = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [-1.5, 1.0, 0.5], [2.0, -0.5, 1.0]])
Y = torch.tensor([0.5, -1.0, 2.0, 0.0])
gen = torch.Generator().manual_seed(3)
A = torch.randn(2, 5, dtype=torch.float64, generator=gen)
cases = [("4 squared errors of a 3-entry w", lambda t: (X @ t - Y) ** 2, torch.tensor([1.0, 2.0, 0.5])),
         ("2 losses of a 5-entry w", lambda t: A @ torch.tanh(t),
          torch.randn(5, dtype=torch.float64, generator=gen)),
         ("one sample (N = 1)", lambda t: (t ** 3).sum().reshape(1),
          torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)),
         ("a 1-entry w (P = 1)", lambda t: torch.cat([t, t.exp(), t * t]),
          torch.tensor([0.3], dtype=torch.float64)),
         ("a caller's w that requires grad", lambda t: (X @ t - Y) ** 2,
          torch.tensor([0.5, -1.0, 2.0], requires_grad=True))]
for name, fn, w in cases:
    with refusing(["torch.autograd.functional.jacobian", "torch.func.jacrev", "torch.func.jacfwd",
                   "torch.func.vmap", "torch.vmap"], "per_sample_grads called a library's Jacobian"):
        probe.call(f"per_sample_grads for {name}", per_sample_grads, fn, w)
    probe.value(f"w after per_sample_grads for {name}", (w.requires_grad, w.grad is None))
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:vjp.rows] Row n is the gradient of loss n alone: a vector-Jacobian product whose "
         "v keeps loss n and drops the others, through a graph that records w.")
_hints = {"second time": "[mc:vjp.retain-graph] Each row is a backward pass through the same "
                         "graph, whose saved tensors the first pass frees: pass retain_graph=True "
                         "(or run loss_fn again for each row).",
          "does not require grad": "[mc:vjp.leaf] w does not require grad here: differentiate "
                                   "with respect to a fresh leaf, w.detach().requires_grad_().",
          "a library's Jacobian": "[mc:vjp.full-jacobian] Build the rows yourself from "
                                  "vector-Jacobian products, as the task asks (not "
                                  "torch.autograd.functional or torch.func).",
          "": _hint}
_X = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [-1.5, 1.0, 0.5], [2.0, -0.5, 1.0]])
_Y = torch.tensor([0.5, -1.0, 2.0, 0.0])
_gen = torch.Generator().manual_seed(3)
_A = torch.randn(2, 5, dtype=torch.float64, generator=_gen)
_cases = [("4 squared errors of a 3-entry w", lambda t: (_X @ t - _Y) ** 2, torch.tensor([1.0, 2.0, 0.5]), False),
          ("2 losses of a 5-entry w", lambda t: _A @ torch.tanh(t),
           torch.randn(5, dtype=torch.float64, generator=_gen), False),
          ("one sample (N = 1)", lambda t: (t ** 3).sum().reshape(1),
           torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64), False),
          ("a 1-entry w (P = 1)", lambda t: torch.cat([t, t.exp(), t * t]),
           torch.tensor([0.3], dtype=torch.float64), False),
          ("a caller's w that requires grad", lambda t: (_X @ t - _Y) ** 2,
           torch.tensor([0.5, -1.0, 2.0]), True)]
for _name, _fn, _w, _required in _cases:
    _key = f"per_sample_grads for {_name}"
    _mine = got.value(_key, _hints)
    _want = torch.autograd.functional.jacobian(_fn, _w)
    with checks.because(_hint):
        checks.expect_type(_mine, torch.Tensor, _key)
    with checks.because("[mc:vjp.rows-are-outputs] The result has one ROW per sample and one "
                        "column per entry of w."):
        checks.expect_shape(_mine, tuple(_want.shape), _key)
    checks.reject_close(_mine, {
        _want.sum(0).expand_as(_want): "[mc:vjp.sum-is-vjp] Every row is the gradient of the "
                                       "summed loss (v = ones): that is the batch's gradient, the "
                                       "sum of the rows. Row n needs a v that keeps loss n alone.",
        _want.cumsum(0): "[mc:vjp.rows-accumulate] Row n came out as the sum of rows 0 … n: "
                         "backward ADDS into w.grad. Reset it between rows, or use "
                         "torch.autograd.grad, which returns the gradient instead of adding it."}
                        if _want.shape[0] > 1 else {}, _key)
    checks.expect_close(_mine, _want, _key, hint=_hint)
    checks.expect_true(got[f"w after per_sample_grads for {_name}"] == (_required, True),
                       f"per_sample_grads changed the caller's w for {_name} (its requires_grad, "
                       "or a .grad on it). [mc:vjp.caller-grad] Work on a fresh leaf: "
                       "w.detach().requires_grad_().")
### END HIDDEN TESTS

# %% [markdown]
# **The same rows with `torch.func`.** `torch.func` transforms functions instead of
# recording on tensors: `grad(f)` is a new function that returns the gradient of f (which
# must return a 0-d tensor, a scalar: a shape (1,) result is refused) with respect to its
# first argument, and
# `vmap(g, in_dims=...)` runs g over one dimension of its arguments as a loop would, in one
# call. So per-sample gradients are written for a single sample, then mapped over the batch
# (`in_dims=(None, 0, 0)`: w is shared, x and y are split along dim 0):

# %%
from torch.func import grad, vmap

X_ps = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [-1.5, 1.0, 0.5]])
y_ps = torch.tensor([0.5, -1.0, 2.0])
w_ps = torch.tensor([1.0, 2.0, 0.5])


def sample_loss(w, x, y):                  # one sample: x has shape (3,), y is a number
    return (x @ w - y) ** 2


rows = vmap(grad(sample_loss), in_dims=(None, 0, 0))(w_ps, X_ps, y_ps)
w_leaf = w_ps.clone().requires_grad_()
(batch_grad,) = torch.autograd.grad(((X_ps @ w_leaf - y_ps) ** 2).sum(), w_leaf)
print(rows)
print("the rows add up to the summed loss's gradient:", torch.allclose(rows.sum(0), batch_grad))

# %% [markdown]
# ## 6. Higher-order gradients
#
# A backward pass is itself made of tensor operations. With `create_graph=True`,
# `torch.autograd.grad` records them, so the gradient it returns has a `grad_fn` and can be
# differentiated again. For f(x) = x³ at x = 3, f′ = 3x² = 27 and f″ = 6x = 18:

# %%
x = torch.tensor(3.0, requires_grad=True)
(first,) = torch.autograd.grad(x ** 3, x, create_graph=True)
(second,) = torch.autograd.grad(first, x)
print(f"f'(3) = {first.item():g}, grad_fn {first.grad_fn} | f''(3) = {second.item():g}")
(plain,) = torch.autograd.grad(x ** 3, x)
print("without create_graph:", plain, "requires_grad", plain.requires_grad)

# %% [markdown]
# For a function of n inputs the second derivatives form the Hessian H, an n×n matrix.
# Newton-type optimizers, curvature estimates and influence functions need products H·v,
# for n in the millions, where H itself would never fit in memory. H·v is the gradient of
# the number ∇f(x)·v (the gradient dotted with a v held fixed), so it costs two backward
# passes and no H.
#
# ### Exercise 5: a Hessian-vector product without the Hessian (2 points)
#
# *Misconception targeted: a gradient, once computed, is a constant (with `create_graph`
# it is a function of x that autograd can differentiate again), and H·v is neither H·1
# nor ∇f·v.*
#
# Complete `hvp(f, x, v)`: `f` maps a 1-D float tensor to a one-element tensor, and `x`
# and `v` are 1-D tensors of the same length n. Return H·v at x, a tensor of shape (n,),
# with `torch.autograd.grad` and without forming H, row by row or otherwise (the test
# counts the tensor operations your code runs for n = 1000, where a row of H costs a
# backward pass of its own). The caller's `x` might not require grad: leave it as it was.

# %% solution 02_autograd-hvp
def hvp(f, x, v):
    ### BEGIN SOLUTION
    x = x.detach().requires_grad_()
    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    (hv,) = torch.autograd.grad(g @ v, x)
    return hv
    ### END SOLUTION

# %% test 02_autograd-hvp-test points=2
from helpers.refuse import refusing as _refusing

_x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
_v = torch.tensor([0.5, 1.0, -1.0], dtype=torch.float64)


def _cubic(t):
    """Σ t³ + t₀·t₁: its Hessian is diag(6t) plus 1 at (0, 1) and (1, 0)."""
    return (t ** 3).sum() + t[0] * t[1]


_H = torch.diag(6 * _x) + torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                                        dtype=torch.float64)
_grad = 3 * _x ** 2 + torch.stack([_x[1], _x[0], torch.zeros((), dtype=torch.float64)])
_hint = ("[mc:hvp.rule] Differentiate the number (∇f(x)·v) once more with respect to x: the "
         "first gradient must itself be recorded for that.")
_hints = {"does not require grad": "[mc:hvp.create-graph] The gradient was computed without a "
                                   "graph, so it cannot be differentiated again: pass "
                                   "create_graph=True to the first torch.autograd.grad.",
          "a library's Hessian": "[mc:hvp.library] Use torch.autograd.grad twice, as the task "
                                 "asks, not torch.autograd.functional's hvp or hessian.",
          "": _hint}
_libraries = (["torch.autograd.functional.hvp", "torch.autograd.functional.vhp",
               "torch.autograd.functional.hessian", "torch.func.hessian"],
              "hvp called a library's Hessian or Hessian-vector product")
with _refusing(*_libraries), checks.explain_errors(_hints, "hvp(f, x, v) with n = 3"):
    _got = hvp(_cubic, _x, _v)
with checks.because(_hint):
    checks.expect_type(_got, torch.Tensor, "hvp(f, x, v)")
    checks.expect_shape(_got, (3,), "hvp(f, x, v)")
checks.reject_close(_got, {
    _H.sum(1): "[mc:hvp.ones] That is H·1, the gradient of ∇f(x).sum(): the number to "
               "differentiate again is ∇f(x)·v.",
    _grad * _v: "[mc:hvp.first-order] These are first derivatives times v, entry by entry: H·v "
                "needs the second derivatives, a gradient of the gradient."}, "hvp(f, x, v)")
checks.expect_true(not _x.requires_grad, "hvp switched requires_grad on for the caller's x. "
                   "[mc:hvp.caller-x] Work on a fresh leaf: x.detach().requires_grad_().")
### BEGIN HIDDEN TESTS
from torch.utils._python_dispatch import TorchDispatchMode

from helpers.grading import probe
from helpers.refuse import refusing


class Ops(TorchDispatchMode):
    """Counts the tensor operations run inside the block, and stops at a budget."""

    def __init__(self, budget):
        super().__init__()
        self.count, self.budget = 0, budget

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        if self.count > self.budget:
            raise RuntimeError(f"more than {self.budget} tensor operations")
        return func(*args, **(kwargs or {}))


def run(f, x, v):
    with refusing(["torch.autograd.functional.hvp", "torch.autograd.functional.vhp",
                   "torch.autograd.functional.hessian", "torch.func.hessian"],
                  "hvp called a library's Hessian or Hessian-vector product"), Ops(2000) as ops:
        result = hvp(f, x, v)
    return result.detach() if isinstance(result, torch.Tensor) else result


gen = torch.Generator().manual_seed(11)
x3 = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
v3 = torch.tensor([0.5, 1.0, -1.0], dtype=torch.float64)
probe.call("hvp(Σt³ + t₀t₁, x, v) with n = 3", run, lambda t: (t ** 3).sum() + t[0] * t[1], x3, v3)
x = torch.randn(1000, dtype=torch.float64, generator=gen)
v = torch.randn(1000, dtype=torch.float64, generator=gen)
probe.call("hvp(Σ sin(t)·t² + (Σt)³, x, v) with n = 1000", run,
           lambda t: (torch.sin(t) * t ** 2).sum() + t.sum() ** 3, x, v)
probe.call("hvp(logsumexp, x, v) with n = 1000, returning shape (1,)", run,
           lambda t: torch.logsumexp(t, 0).reshape(1), x, v)
caller = torch.tensor([0.3, 0.7], requires_grad=True)
probe.call("hvp(t₀²·t₁, x, v) for a float32 x that requires grad", run,
           lambda t: t[0] ** 2 * t[1], caller, torch.tensor([1.0, -1.0]))
probe.value("x after hvp for a float32 x that requires grad",
            (caller.requires_grad, caller.grad is None, caller.detach().tolist()))
probe.value("x after hvp with n = 3", (x3.requires_grad, x3.tolist()))
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:hvp.rule] Differentiate the number (∇f(x)·v) once more with respect to x: the "
         "first gradient must itself be recorded for that.")
_hints = {"does not require grad": "[mc:hvp.create-graph] The gradient was computed without a "
                                   "graph, so it cannot be differentiated again: pass "
                                   "create_graph=True to the first torch.autograd.grad.",
          "a library's Hessian": "[mc:hvp.library] Use torch.autograd.grad twice, as the task "
                                 "asks, not torch.autograd.functional's hvp or hessian.",
          "tensor operations": "[mc:hvp.built-hessian] hvp made more than 2000 tensor operations "
                               "for n = 1000: it built H (or its rows), one backward pass per "
                               "entry. H·v takes two backward passes, and no n×n tensor.",
          "": _hint}
_gen = torch.Generator().manual_seed(11)
_x = torch.randn(1000, dtype=torch.float64, generator=_gen)
_v = torch.randn(1000, dtype=torch.float64, generator=_gen)
_cases = [("hvp(Σt³ + t₀t₁, x, v) with n = 3", lambda t: (t ** 3).sum() + t[0] * t[1],
           torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64),
           torch.tensor([0.5, 1.0, -1.0], dtype=torch.float64)),
          ("hvp(Σ sin(t)·t² + (Σt)³, x, v) with n = 1000",
           lambda t: (torch.sin(t) * t ** 2).sum() + t.sum() ** 3, _x, _v),
          ("hvp(logsumexp, x, v) with n = 1000, returning shape (1,)",
           lambda t: torch.logsumexp(t, 0).reshape(1), _x, _v),
          ("hvp(t₀²·t₁, x, v) for a float32 x that requires grad", lambda t: t[0] ** 2 * t[1],
           torch.tensor([0.3, 0.7]), torch.tensor([1.0, -1.0]))]
for _key, _f, _at, _dir in _cases:
    _mine = got.value(_key, _hints)
    _leaf = _at.clone().requires_grad_()
    (_g,) = torch.autograd.grad(_f(_leaf).sum(), _leaf, create_graph=True)
    (_want,) = torch.autograd.grad(_g @ _dir, _leaf, retain_graph=True)
    (_ones,) = torch.autograd.grad(_g.sum(), _leaf)
    with checks.because(_hint):
        checks.expect_type(_mine, torch.Tensor, _key)
        checks.expect_shape(_mine, tuple(_at.shape), _key)
    checks.reject_close(_mine, {
        _ones: "[mc:hvp.ones] That is H·1, the gradient of ∇f(x).sum(): the number to "
               "differentiate again is ∇f(x)·v.",
        _g.detach() * _dir: "[mc:hvp.first-order] These are first derivatives times v, entry by "
                            "entry: H·v needs the second derivatives, a gradient of the "
                            "gradient."}, _key)
    checks.expect_close(_mine, _want, _key, rtol=1e-6, atol=1e-6, hint=_hint)
_plain, _plain_values = got["x after hvp with n = 3"]
_kept, _no_grad, _values = got["x after hvp for a float32 x that requires grad"]
checks.expect_true(_plain is False and _plain_values == [1.0, -2.0, 0.5] and _kept is True
                   and _no_grad is True and torch.allclose(torch.tensor(_values), torch.tensor([0.3, 0.7])),
                   "hvp changed the caller's x (its requires_grad, its values, or a .grad on it). "
                   "[mc:hvp.caller-x] Work on a fresh leaf: x.detach().requires_grad_().")
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Gradients of intermediates: retain_grad and hooks
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
with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # reading c.grad warns that c is not a leaf
    print("c.grad:", c.grad, "| d.grad (retained):", d.grad.item())

# %% [markdown]
# `t.register_hook(fn)` calls `fn` on the gradient of `t` while backward computes it; when
# `fn` returns a tensor, that tensor replaces the gradient from there on, on its way to the
# nodes before `t`. A hook can show a gradient in flight, or change it (clip it, say);
# `register_hook` returns a handle whose `remove()` takes the hook off. Hooks run in the
# order they were registered:

# %%
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
d = a * b + a
show = d.register_hook(lambda g: print("dL/dd arriving at d:", g.item()))
clip = d.register_hook(lambda g: g.clamp(-10, 10))      # replaces d's gradient by a clipped one
(d ** 2).backward()
print("with the clip: a.grad =", a.grad.item(), " b.grad =", b.grad.item())
show.remove()
clip.remove()

# %% [markdown]
# ## 8. Stopping the graph: no_grad, detach, and the legacy .data
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
from helpers.grading import probe
probe.answer("answer_no_grad")
### JUDGE
from helpers.grading.probe import got
_said = got["answer_no_grad"]
with checks.because("[mc:autograd.quiz-type] Answer with four booleans, one per tensor."):
    checks.answer("02_autograd-quiz-no-grad", _said, "answer_no_grad", kind=(tuple, list))
    checks.expect_true(len(_said) == 4 and all(type(v) is bool for v in _said),
                       f"answer_no_grad = {_said!r} is not four booleans.")
for _name, _said_k, _want, _why in [
        ("a", _said[0], False, "[mc:autograd.no-grad-inherits] Inside no_grad nothing is recorded: "
                               "a has no grad_fn and does not require grad."),
        ("x", _said[1], True, "[mc:autograd.no-grad-switches-off] no_grad changes what is "
                              "recorded, not the leaf: x still requires grad after the update."),
        ("b", _said[2], True, "[mc:autograd.no-grad-lasts] b is computed after the block, from x, "
                              "which requires grad: it is recorded."),
        ("c", _said[3], True, "[mc:autograd.detach-cuts-all] x.detach() is cut from the graph but "
                              "b is not: c = x.detach() + b has an input that requires grad, so "
                              "the addition is recorded.")]:
    checks.expect_true(_said_k == _want, f"{_name}.requires_grad: {_why}")
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
# ### Exercise 6: a straight-through estimator for sign (2 points)
#
# *Misconception targeted: an expression's gradient follows from its value (it follows
# from the operations autograd recorded, and `.detach()` decides which of those count).*
#
# Binarized networks compute with `torch.sign(x)` (−1, 0 or 1), whose derivative is 0
# wherever it exists, so no gradient would ever reach x. The usual fix is a
# *straight-through estimator*: the forward value is `torch.sign(x)` exactly, while
# backward acts as if the function had been `x.clamp(-1, 1)`: the gradient arriving at
# the output passes to x unchanged where −1 ≤ x ≤ 1, and is 0 where x lies outside.
# Complete `sign_ste(x)` for an x of any shape and floating dtype that requires grad.

# %% solution 02_autograd-ste
def sign_ste(x):
    ### BEGIN SOLUTION
    window = x.clamp(-1, 1)                   # its gradient: 1 inside [-1, 1], 0 outside
    return window + (torch.sign(x) - window).detach()
    ### END SOLUTION

# %% test 02_autograd-ste-test points=2
_x = torch.tensor([-1.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.0], requires_grad=True)
_hint = ("[mc:ste.rule] The value must be torch.sign(x), the gradient that of x.clamp(-1, 1): "
         "autograd differentiates the operations it recorded, not the value they give.")
with checks.explain_errors({"": _hint}, "sign_ste(x)"):
    _y = sign_ste(_x)
with checks.because(_hint):
    checks.expect_type(_y, torch.Tensor, "sign_ste(x)")
checks.expect_true(_y.requires_grad, "sign_ste(x) does not require grad: it is cut from the graph "
                   "(detached whole, or built under no_grad). [mc:ste.detached-all] Detach only "
                   "the part whose gradient must not count.")
checks.expect_true(torch.equal(_y.detach(), torch.sign(_x.detach())),
                   "sign_ste(x) does not hold torch.sign(x) exactly. [mc:ste.value] The forward "
                   "value is the sign; only the gradient follows the clamp.")
_y.sum().backward()
_inside = ((_x.detach() >= -1) & (_x.detach() <= 1)).float()
checks.reject_close(_x.grad, {
    torch.zeros(7): "[mc:ste.sign-flat] x.grad is 0 everywhere: sign's derivative is 0, so the "
                    "gradient must come from another expression.",
    torch.ones(7): "[mc:ste.unclipped] The gradient passes outside [-1, 1] too: it must be 0 where "
                   "x lies outside.",
    _inside * (_x.detach().abs() < 1): "[mc:ste.window-edges] At x = −1 and 1 the gradient is 0: "
                                       "the window [-1, 1] includes its ends, as clamp's does.",
    1 - torch.tanh(_x.detach()) ** 2: "[mc:ste.identity-backward] Inside the window the gradient "
                                      "must pass unchanged (times 1), not scaled by a slope."},
    "x.grad")
### BEGIN HIDDEN TESTS
from helpers.grading import probe


def run(x, upstream):
    x = x.clone().requires_grad_()
    y = sign_ste(x)
    seen = {"value": y.detach(), "requires_grad": y.requires_grad}
    if y.requires_grad:
        (y * upstream).sum().backward()
    seen["grad"] = None if x.grad is None else x.grad.detach()
    return seen


x7 = torch.tensor([-1.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.0])
probe.call("sign_ste on 7 float32 values", run, x7, torch.ones(7))
x23 = torch.tensor([[0.5, 1.0, -0.999], [2.5, -1.0, -3.0]], dtype=torch.float64)
up23 = torch.tensor([[2.0, -1.0, 0.5], [3.0, 4.0, -4.0]], dtype=torch.float64)
probe.call("sign_ste on a 2×3 float64 x, upstream gradient not ones", run, x23, up23)
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:ste.rule] The value must be torch.sign(x), the gradient that of x.clamp(-1, 1): "
         "autograd differentiates the operations it recorded, not the value they give.")
for _key, _x, _up in [("sign_ste on 7 float32 values", torch.tensor([-1.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.0]),
                       torch.ones(7)),
                      ("sign_ste on a 2×3 float64 x, upstream gradient not ones",
                       torch.tensor([[0.5, 1.0, -0.999], [2.5, -1.0, -3.0]], dtype=torch.float64),
                       torch.tensor([[2.0, -1.0, 0.5], [3.0, 4.0, -4.0]], dtype=torch.float64))]:
    _seen = got.value(_key, {"": _hint})
    checks.expect_true(_seen["requires_grad"] is True, f"{_key}: the result does not require "
                       "grad: it is cut from the graph (detached whole, or built under no_grad). "
                       "[mc:ste.detached-all] Detach only the part whose gradient must not count.")
    checks.expect_true(isinstance(_seen["value"], torch.Tensor) and _seen["value"].dtype == _x.dtype
                       and torch.equal(_seen["value"], torch.sign(_x)),
                       f"{_key}: the result does not hold torch.sign(x) exactly, in x's dtype. "
                       "[mc:ste.value] The forward value is the sign; only the gradient follows "
                       "the clamp.")
    _inside = ((_x >= -1) & (_x <= 1)).to(_x.dtype)
    _grad = _seen["grad"]
    checks.expect_true(isinstance(_grad, torch.Tensor), f"{_key}: x got no gradient. {_hint}")
    checks.reject_close(_grad, {
        torch.zeros_like(_x): "[mc:ste.sign-flat] x.grad is 0 everywhere: sign's derivative is 0, "
                              "so the gradient must come from another expression.",
        _up: "[mc:ste.unclipped] The gradient passes outside [-1, 1] too: it must be 0 where x "
             "lies outside.",
        _up * _inside * (_x.abs() < 1): "[mc:ste.window-edges] At x = −1 and 1 the gradient is 0: "
                                        "the window [-1, 1] includes its ends, as clamp's does.",
        _up * (1 - torch.tanh(_x) ** 2): "[mc:ste.identity-backward] Inside the window the "
                                         "gradient must pass unchanged (times 1), not scaled by a "
                                         "slope."}, f"x.grad for {_key}")
    checks.expect_close(_grad, _up * _inside, f"x.grad for {_key}",
                        hint="[mc:ste.identity-backward] The gradient arriving at the output must "
                             "reach x unchanged inside [-1, 1], and 0 outside.")
### END HIDDEN TESTS

# %% [markdown]
# ## 9. In-place operations and their two errors
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
# ## 10. gradcheck and a custom autograd.Function
#
# `torch.autograd.gradcheck` compares the Jacobian your backward produces with finite
# differences at exactly the inputs you give (use float64). Passing is strong evidence at
# those points, not a proof elsewhere, so test at a few inputs. A custom `Function` supplies
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
from helpers.grading import probe


def grads(x, s, up):
    x, s = x.clone().requires_grad_(), s.clone().requires_grad_()
    out = ScaledTanh.apply(x, s)
    gx, gs = torch.autograd.grad(out, (x, s), up)
    return {"forward": out.detach(), "x": gx, "s": gs}


gen = torch.Generator().manual_seed(9)
probe.call("ScaledTanh on 7 points, s = 1.5, upstream 2", grads,
           torch.linspace(-2, 3, 7, dtype=torch.float64), torch.tensor(1.5, dtype=torch.float64),
           torch.full((7,), 2.0, dtype=torch.float64))
probe.call("ScaledTanh on a 3×2 x, s = -0.7, a random upstream", grads,
           torch.randn(3, 2, dtype=torch.float64, generator=gen),
           torch.tensor(-0.7, dtype=torch.float64),
           torch.randn(3, 2, dtype=torch.float64, generator=gen))
### JUDGE
from helpers.grading.probe import got

_saved_hint = ("[mc:function.save-for-backward] backward found nothing (or the wrong number of "
               "things) in ctx.saved_tensors: forward must call ctx.save_for_backward(...) on "
               "what backward unpacks.")
_arity_hint = ("[mc:function.one-grad-per-input] backward returns one gradient per input of "
               "forward, in forward's order, each shaped like its input: (one for x, one for s).")
_none_hint = ("[mc:function.scale-grad] backward returned no gradient for s (None): s requires "
              "grad, and the model learns it from that gradient.")
_hint = ("[mc:function.backward] For each input, backward returns grad_out times the "
         "derivative of y with respect to that input.")
_hints = {"unpack": _saved_hint, "saved": _saved_hint, "number of gradients": _arity_hint,
          "invalid gradient": _arity_hint, "not have been used": _none_hint, "": _hint}
_gen = torch.Generator().manual_seed(9)
_x3 = torch.randn(3, 2, dtype=torch.float64, generator=_gen)
_up3 = torch.randn(3, 2, dtype=torch.float64, generator=_gen)
for _key, _x, _s, _up in [
        ("ScaledTanh on 7 points, s = 1.5, upstream 2", torch.linspace(-2, 3, 7, dtype=torch.float64),
         1.5, torch.full((7,), 2.0, dtype=torch.float64)),
        ("ScaledTanh on a 3×2 x, s = -0.7, a random upstream", _x3, -0.7, _up3)]:
    _seen = got.value(_key, _hints)
    _t = torch.tanh(_x)
    with checks.because("[mc:function.forward] forward must return s·tanh(x)."):
        checks.expect_close(_seen["forward"], _s * _t, f"ScaledTanh forward ({_key})")
    checks.reject_close(_seen["x"], {
        _s * (1 - _t ** 2): "[mc:function.ignores-grad-out] x's gradient ignores grad_out: by the "
                            "chain rule it must multiply the local derivative by the incoming "
                            "gradient.",
        _up * (1 - _t ** 2): "[mc:function.scale-factor] x's gradient misses the factor s: "
                             "y = s·tanh(x), so dy/dx carries s.",
        _up * _s * (1 - _t): "[mc:function.wrong-derivative] d tanh(x)/dx is 1 - tanh(x)², not "
                             "1 - tanh(x).",
        _up * _s * (1 - _x ** 2): "[mc:function.wrong-derivative] d tanh(x)/dx is "
                                  "1 - tanh(x)², not 1 - x²."}, f"x's gradient ({_key})")
    checks.reject_close(_seen["s"], {
        _t.sum(): "[mc:function.ignores-grad-out] s's gradient ignores grad_out: by the chain "
                  "rule it must multiply the local derivative by the incoming gradient.",
        (_up * _t).mean(): "[mc:function.scale-grad] s's gradient is the MEAN over the entries: "
                           "s multiplies every entry of tanh(x), so like any value used many "
                           "times its adjoints add up (a sum)."}, f"s's gradient ({_key})")
    checks.expect_close(_seen["x"], _up * _s * (1 - _t ** 2), f"x's gradient ({_key})", hint=_hint)
    checks.expect_close(_seen["s"], (_up * _t).sum(), f"s's gradient ({_key})", hint=_hint)
### END HIDDEN TESTS

# %% [markdown]
# ## 11. The backward of a Linear layer, derived and checked
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
# computed with tensor algebra only (the test calls it under `torch.no_grad()`, and
# refuses `backward` and `torch.autograd.grad`).

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
_x, _W, _b1, _b2 = helpers.autograd_tasks.tied_case(1)
with torch.no_grad(), helpers.autograd_tasks.without_autograd(), checks.explain_errors(
        helpers.autograd_tasks.TIED_ERRORS, "tied_grads(x, W, b1, b2) with N = 6, D = 4, H = 3"):
    _mine = tied_grads(_x, _W, _b1, _b2)
helpers.autograd_tasks.check_tied(_mine, _x, _W, _b1, _b2, "tied_grads(x, W, b1, b2)")
### BEGIN HIDDEN TESTS
import helpers.autograd_tasks
from helpers.grading import probe


def run(*tensors):
    with torch.no_grad(), helpers.autograd_tasks.without_autograd():
        return tied_grads(*tensors)


for seed, sizes in ((1, (6, 4, 3)), (7, (5, 3, 6)), (11, (1, 2, 2))):   # as shown; H > D; one row, H = D
    probe.call(f"tied_grads with (N, D, H) = {sizes}", run, *helpers.autograd_tasks.tied_case(seed, *sizes))
### JUDGE
import helpers.autograd_tasks
from helpers.grading.probe import got

for _seed, _sizes in ((1, (6, 4, 3)), (7, (5, 3, 6)), (11, (1, 2, 2))):
    _key = f"tied_grads with (N, D, H) = {_sizes}"
    _case = helpers.autograd_tasks.tied_case(_seed, *_sizes)
    _mine = got.value(_key, helpers.autograd_tasks.TIED_ERRORS)
    _ref = helpers.autograd_tasks.check_tied(_mine, *_case, _key)
    for _name, _g, _r in zip(("dW", "db1", "db2"), _mine, _ref):
        checks.expect_close(_g, _r, f"{_name} of {_key}", rtol=1e-6, atol=1e-9, hint=helpers.autograd_tasks.TIED_HINT)
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# Three are reproduced above: a `.grad` never reset (section 4), a second backward through
# a freed graph (section 5), an in-place change to a leaf or to a saved tensor (section 9).
# Two more:
#
# **An operation after `requires_grad=True`.** The weight below was meant to be a
# float64 leaf, but `.double()` is an operation: `w` is its result, an intermediate, and
# backward leaves its `.grad` empty. Give the dtype when you create the tensor.

# %%
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).double()
(w * w).sum().backward()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # reading this .grad warns; the None is the point
    print("is_leaf", w.is_leaf, "| grad_fn", w.grad_fn.name(), "| w.grad", w.grad)
w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
(w * w).sum().backward()
print("fix: is_leaf", w.is_leaf, "| w.grad", w.grad)

# %% [markdown]
# **A NaN gradient from a finite loss.** Multiplying by 0 was meant to switch entry 0
# off, but backward still goes through `sqrt` there, whose derivative 1/(2√x) is infinite
# at 0, and 0 · ∞ is NaN. `torch.autograd.detect_anomaly()` makes backward stop at the
# first node that returns a NaN, names it, and warns with the line of the forward pass
# that created it (it slows every operation: use it to debug, not to train). The fix is
# to keep the bad point out of `sqrt`'s input (`torch.where(x > 0, x, 1.0)`).

# %%
x = torch.tensor([0.0, 4.0], requires_grad=True)
mask = torch.tensor([0.0, 1.0])
(torch.sqrt(x) * mask).sum().backward()
print("x.grad:", x.grad)
with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
    warnings.simplefilter("always")
    with checks.expect_error(RuntimeError):
        (torch.sqrt(x) * mask).sum().backward()
for found in caught:
    if "Error detected" in str(found.message):      # the node, then the forward line that made it
        lines = str(found.message).splitlines()
        print(lines[0], "|", lines[-2].strip())
x.grad = None
(torch.sqrt(torch.where(x > 0, x, 1.0)) * mask).sum().backward()
print("fix: x.grad:", x.grad)

# %% [markdown]
# ## Summary
#
# - Leaves are tensors with no `grad_fn`; intermediates carry one, linked by
#   `next_functions` down to the leaves' `AccumulateGrad` nodes. The graph is recorded as
#   code runs, so Python control flow shapes it.
# - Backward is the reverse-mode chain rule: each node turns its output's adjoint into its
#   inputs' adjoints, adjoints **add** where a value fans out, and the engine calls each
#   node once, in topological order, on the sum of what reached it.
# - A non-scalar output needs a v (backward gives vᵀJ); one pass per one-hot v, or
#   `vmap(grad(f))`, gives per-sample gradients; `create_graph=True` makes a gradient
#   differentiable again (H·v in two passes).
# - `.grad` accumulates until reset; `retain_grad` keeps an intermediate's gradient and a
#   hook sees or replaces one in flight; `no_grad` records nothing, `detach` cuts a tensor
#   from the graph (a straight-through estimator detaches a correction), `.data` hides
#   changes from autograd.
# - In-place edits of a leaf or a saved tensor raise; `detect_anomaly` names the node where
#   a NaN appears; a custom `Function` defines both passes and `gradcheck` tests them.
#
# **Next:** 03_modules packages parameters (leaves with `requires_grad=True`) into
# `nn.Module`, and 04 turns backward plus an update into a training loop.
#
# **Run time.** The cell below says how long this notebook took from its first cell to here
# (`benchmarks/notebooks.py` measures the same, top to bottom, without a browser).

# %%
print(f"this notebook ran in {time.perf_counter() - notebook_started:.1f} s")
