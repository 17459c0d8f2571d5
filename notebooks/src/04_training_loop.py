# %% [markdown]
# # 04 The training loop: five lines and what goes wrong in them
#
# Every model in PyTorch learns through the same five lines, repeated: clear the old
# gradients, run the model, measure the loss, back-propagate, update the weights. The
# lines are short, and each one can be forgotten, swapped or fed the wrong thing without
# an error message: the loop runs and the model quietly fails to learn. This notebook
# takes the loop apart line by line, trains a real classifier on handwritten digits while
# you watch its loss curves, and then adds what a loop needs in practice: evaluation,
# learning-rate schedules, weight-decay groups, early stopping, clipping, NaN detection,
# checkpoints that resume exactly, gradient accumulation and mixed precision.
#
# **You will learn to**
# - write the five steps in the right order and say what each leaves behind;
# - predict what SGD, momentum, Adam and AdamW do to a weight;
# - feed `CrossEntropyLoss` what it expects (raw logits, int64 class indices, -100 for a
#   row without a label) and sanity-check an untrained model's first loss;
# - evaluate with `eval()` and `no_grad()`, batch by batch, restore every submodule's mode
#   afterwards, and log with `.item()` (knowing what it costs on a GPU);
# - schedule the learning rate (`torch.optim.lr_scheduler`, warm-up, one-cycle) and keep
#   weight decay off biases and normalisation weights (parameter groups);
# - stop early without losing the best weights, clip gradients, stop on a non-finite loss;
# - checkpoint a run so that it resumes exactly, and say what "exactly" requires;
# - debug with "overfit one batch", accumulate gradients, use `torch.autocast`, and know
#   when `GradScaler` is needed.
#
# **Prerequisites:** 01 (tensors), 02 (autograd: `.grad` accumulates), 03 (`nn.Module`,
# `parameters()`, `state_dict`, `train()`/`eval()` and restoring a model's mode).
#
# **How this notebook works.** Quick quizzes ask you to *predict* before a cell shows the
# answer; numbered exercises (points in the heading) are graded, and a failing test says
# what you probably believed. **Run time:** the last cell prints how long this run took
# from top to bottom (`benchmarks/notebooks.py` measures it on the course machine).

# %%
import copy
import functools
import math
import os
import tempfile
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm.auto import tqdm

import helpers.loop_anatomy
import helpers.loss_curves
import helpers.modes
import helpers.training_tasks
import helpers.update_time
from helpers import checks

notebook_start = time.perf_counter()
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
torch.set_num_threads(1)

# %% [markdown]
# The last two lines of that cell make this page's numbers the same on every run, which
# section 9 relies on. Floating-point addition is not associative, so a sum's last bits
# depend on the order in which it is added up, and a sum split across threads is added up
# in another order:

# %%
print("(0.1 + 0.2) + 0.3 == 0.1 + (0.2 + 0.3):", (0.1 + 0.2) + 0.3 == 0.1 + (0.2 + 0.3))
values = torch.rand(100_000, generator=torch.Generator().manual_seed(0))
for threads in (1, 2):
    torch.set_num_threads(threads)
    print(f"the same float32 sum computed with {threads} thread(s): {values.sum().item()}")
torch.set_num_threads(1)

# %% [markdown]
# Some kernels, mostly on GPUs (`scatter_add_` and `index_add_` on CUDA), add in whatever
# order their threads finish, so two runs can drift apart. `torch.use_deterministic_algorithms(True)`
# picks implementations that give the same bits every time (or raises where there is none),
# and one thread adds every sum up in one order.
#
# ## 1. The five steps
#
# One iteration of training is:
#
# ```python
# optimizer.zero_grad()        # 1. forget the previous batch's gradients
# out = model(x)               # 2. forward: build the graph
# loss = loss_fn(out, y)       # 3. one number to minimise
# loss.backward()              # 4. fill every parameter's .grad
# optimizer.step()             # 5. move the parameters against .grad
# ```
#
# Here they are fitting a line to noisy points made from y = 3x + 1, with the mean squared
# error (`nn.MSELoss`), the usual loss for regression:

# %%
gen = torch.Generator().manual_seed(0)
x_line = torch.linspace(-1, 1, 50).unsqueeze(1)
y_line = 3 * x_line + 1 + 0.1 * torch.randn(50, 1, generator=gen)
line = nn.Linear(1, 1)
optimizer = torch.optim.SGD(line.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for step in range(201):
    optimizer.zero_grad()
    out = line(x_line)
    loss = loss_fn(out, y_line)
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step:3d}: loss {loss.item():.4f}")
print(f"learned weight {line.weight.item():.3f}, bias {line.bias.item():.3f}")

# %% [markdown]
# ### What `optimizer.step()` does
#
# Plain SGD moves every parameter against its gradient, scaled by the learning rate η:
# θ ← θ − η·∇θ. With θ = 2.0, a gradient of 3.0 and η = 0.2:

# %%
theta = nn.Parameter(torch.tensor(2.0))
sgd = torch.optim.SGD([theta], lr=0.2)
(3.0 * theta).backward()                  # d(3θ)/dθ = 3
print("grad:", theta.grad.item())
sgd.step()
print(f"after one step: θ = {theta.item():.4f}   (2.0 − 0.2 × 3.0 = {2.0 - 0.2 * 3.0:.4f})")

# %% [markdown]
# **Quick quiz.** Now the loss is θ², whose gradient 2θ changes as θ moves. Start again at
# θ = 2.0 and run SGD with lr = 0.75: three iterations of `zero_grad`, forward, loss,
# `backward`, `step`. What is θ after the third step? Put the number in
# `answer_sgd_theta`.

# %% solution 04_training_loop-quiz-sgd
### BEGIN SOLUTION
answer_sgd_theta = -0.25
### END SOLUTION

# %% test 04_training_loop-quiz-sgd-test points=1
with checks.because("[mc:sgd.gradient-fixed] The answer is θ after three steps, a number."):
    checks.answer("04_training_loop-quiz-sgd", answer_sgd_theta, "answer_sgd_theta", kind=float)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_sgd_theta")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_sgd_theta"]
with checks.because("[mc:sgd.gradient-fixed] The answer is θ after three steps, a number."):
    checks.answer("04_training_loop-quiz-sgd", _answer, "answer_sgd_theta", kind=float)
_theta = nn.Parameter(torch.tensor(2.0))
_opt = torch.optim.SGD([_theta], lr=0.75)
for _ in range(3):
    _opt.zero_grad()
    (_theta ** 2).backward()
    _opt.step()
checks.expect_true(math.isclose(_answer, _theta.item(), abs_tol=1e-4),
                   "[mc:sgd.gradient-fixed] Each step uses the gradient at the current θ: "
                   "θ ← θ − 0.75·2θ, three times.")
### END HIDDEN TESTS

# %% wrong 04_training_loop-quiz-sgd
{
    -7: "[mc:sgd.gradient-fixed] That keeps the first gradient (4.0) for all three steps: "
        "backward computes 2θ again at the new θ each time.",
    0.25: "[mc:sgd.no-overshoot] The size is right but not the sign: with lr·2 = 1.5 each "
          "step jumps past the minimum at 0 to the other side.",
    31.25: "[mc:sgd.step-adds-gradient] The step goes against the gradient, θ − η·g: "
           "adding it climbs the loss.",
    -1: "[mc:sgd.step-count] That is θ after one step; the question asks after three.",
    0.5: "[mc:sgd.step-count] That is θ after two steps; the question asks after three.",
}

# %% [markdown]
# Run it:

# %%
theta = nn.Parameter(torch.tensor(2.0))
sgd = torch.optim.SGD([theta], lr=0.75)
for step in range(1, 4):
    sgd.zero_grad()
    (theta ** 2).backward()
    grad = theta.grad.item()
    sgd.step()
    print(f"step {step}: gradient {grad:+.2f}, θ becomes {theta.item():+.4f}")
for lr in (0.25, 1.25):
    theta = nn.Parameter(torch.tensor(2.0))
    sgd = torch.optim.SGD([theta], lr=lr)
    for _ in range(3):
        sgd.zero_grad()
        (theta ** 2).backward()
        sgd.step()
    print(f"lr {lr}: θ after three steps {theta.item():+.4f}")

# %% [markdown]
# Compare with your answer. Each step multiplies θ by 1 − 2·lr: with lr 0.75 that is
# −0.5, so θ jumps across the minimum at 0 every step and shrinks by half. With lr 0.25 it
# creeps towards 0 from one side; with lr 1.25 the factor is −1.5, so θ grows with every
# step: the loss diverges. The same loss, three behaviours, set by the learning rate
# alone.
#
# ### Momentum, Adam and AdamW
#
# Other optimizers change only step 5. **Momentum** keeps a buffer of past gradients,
# b ← μ·b + g, and steps along it: θ ← θ − η·b. Under a gradient that stays the same, b
# grows towards g / (1 − μ), so with μ = 0.9 the steps grow towards ten times plain
# SGD's. The buffer is part of the optimizer's state; here it is, read from
# `optimizer.state`:

# %%
w = nn.Parameter(torch.tensor(0.0))
heavy = torch.optim.SGD([w], lr=0.1, momentum=0.9)
moves = []
for _ in range(30):
    w.grad = torch.tensor(1.0)             # the same gradient at every step
    before = w.item()
    heavy.step()
    moves.append(before - w.item())
print("sizes of the first five steps:", [round(m, 3) for m in moves[:5]])
print(f"size of step 30: {moves[-1]:.3f} (limit lr·g / (1 − μ) = {0.1 * 1.0 / (1 - 0.9):.3f})"
      f"   | buffer: {heavy.state[w]['momentum_buffer'].item():.3f} (limit g / (1 − μ) = "
      f"{1.0 / (1 - 0.9):.1f})")

# %% [markdown]
# **Adam** divides each gradient by a running estimate of its size, so its steps have
# roughly the size of the learning rate whatever the gradient's scale. **AdamW** is Adam
# plus weight decay applied to the weights directly (θ shrinks by lr·wd·θ each step), not
# mixed into the gradient. One step from θ = 2.0 with lr 0.2:

# %%
def one_step(make_optimizer, grad):
    p = nn.Parameter(torch.tensor(2.0))
    opt = make_optimizer([p])
    p.grad = torch.tensor(grad)
    opt.step()
    return 2.0 - p.item()


for name, make in [("SGD", lambda ps: torch.optim.SGD(ps, lr=0.2)),
                   ("Adam", lambda ps: torch.optim.Adam(ps, lr=0.2)),
                   ("AdamW wd=0.1", lambda ps: torch.optim.AdamW(ps, lr=0.2, weight_decay=0.1))]:
    moves = [one_step(make, g) for g in (3.0, 300.0, 0.0)]
    print(f"{name:13s} moves θ by {moves[0]:.4f} for grad 3, {moves[1]:.4f} for grad 300, "
          f"{moves[2]:.4f} for grad 0")

# %% [markdown]
# SGD's step grows with the gradient; Adam's first step is lr whatever the gradient
# (and 0 for a zero gradient); AdamW also shrinks θ by 0.2 · 0.1 · 2.0 = 0.04 with no
# gradient at all.
#
# `Adam(weight_decay=…)` does something else: it adds wd·θ to the gradient, which Adam then
# divides by its estimate of the gradient's size. Two weights start at 1.0, with gradients
# 1.0 (steep) and 0.001 (flat) at every step; after 50 steps at lr 0.01, what the decay
# changed in each, against the same run without decay:

# %%
def decay_share(make, steps=50):
    """θ after `steps` steps with weight_decay=0.1, minus θ after the same steps without."""
    ends = []
    for wd in (0.1, 0.0):
        theta = nn.Parameter(torch.tensor([1.0, 1.0]))
        opt = make([theta], wd)
        for _ in range(steps):
            theta.grad = torch.tensor([1.0, 0.001])
            opt.step()
        ends.append(theta.detach())
    return (ends[0] - ends[1]).tolist()


for name, make in [("Adam(weight_decay=0.1)", lambda ps, wd: torch.optim.Adam(ps, lr=0.01, weight_decay=wd)),
                   ("AdamW(weight_decay=0.1)", lambda ps, wd: torch.optim.AdamW(ps, lr=0.01, weight_decay=wd))]:
    steep, flat = decay_share(make)
    print(f"{name:24s} the decay moved the steep weight by {steep:+.4f}, the flat one by {flat:+.4f}")

# %% [markdown]
# AdamW shrinks both weights alike, by lr·wd·θ a step. Adam's penalty went through the
# division: beside the steep gradient it almost vanished, and the flat weight even ended
# *higher* (Adam remembered the penalty's larger early values, so its later steps were
# smaller). A decay that each weight's gradient can cancel is not a decay: hence AdamW.
#
# ### The loop, line by line
#
# **Quick quiz.** A loop forgets `zero_grad`. Its loss is 2·w, so each `backward`
# computes a gradient of 2.0. Starting at w = 1.0, four iterations of forward, loss,
# `backward`, `step` run with SGD (lr 0.1). What is w afterwards? Put the number in
# `answer_no_zero_grad_w`.

# %% solution 04_training_loop-quiz-no-zero-grad
### BEGIN SOLUTION
answer_no_zero_grad_w = -1.0
### END SOLUTION

# %% test 04_training_loop-quiz-no-zero-grad-test points=1
with checks.because("[mc:loop.grad-overwritten] The answer is w after four iterations, a number."):
    checks.answer("04_training_loop-quiz-no-zero-grad", answer_no_zero_grad_w,
                  "answer_no_zero_grad_w", kind=float)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_no_zero_grad_w")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_no_zero_grad_w"]
with checks.because("[mc:loop.grad-overwritten] The answer is w after four iterations, a number."):
    checks.answer("04_training_loop-quiz-no-zero-grad", _answer, "answer_no_zero_grad_w", kind=float)
_w = nn.Parameter(torch.tensor(1.0))
_opt = torch.optim.SGD([_w], lr=0.1)
for _ in range(4):
    (2 * _w).backward()
    _opt.step()
checks.expect_true(math.isclose(_answer, _w.item(), abs_tol=1e-4),
                   "[mc:loop.grad-overwritten] Without zero_grad each backward adds 2.0 to "
                   ".grad, and each step uses the total so far.")
### END HIDDEN TESTS

# %% wrong 04_training_loop-quiz-no-zero-grad
{
    0.2: "[mc:loop.grad-overwritten] That is four steps with a gradient of 2.0 each: "
         "without zero_grad, backward adds into .grad, so the steps use 2, 4, 6 and 8.",
    1: "[mc:loop.grad-overwritten] The weights do move: step runs after every backward.",
    -2: "[mc:loop.grad-doubles] backward adds this iteration's gradient (2.0) to .grad; it "
        "does not double what .grad already holds.",
}

# %% [markdown]
# Run it, printing what `.grad` holds when each step reads it:

# %%
w = nn.Parameter(torch.tensor(1.0))
forgetful = torch.optim.SGD([w], lr=0.1)
for iteration in range(1, 5):
    (2 * w).backward()                     # no zero_grad before it
    used = w.grad.item()
    forgetful.step()
    print(f"iteration {iteration}: step uses .grad = {used:.1f}, w becomes {w.item():+.2f}")
print(f"w moved {1.0 - w.item():.1f} in all; four steps of 0.1 × 2.0 would move it "
      f"{4 * 0.1 * 2.0:.1f}")

# %% [markdown]
# Compare: `.grad` holds 2, 4, 6, 8, so the steps grow although the loss's gradient never
# changed, and w moves 0.1 × 20 = 2 in all instead of 0.8.
#
# **Quick quiz.** Another loop moves `step` to the *top* of each iteration:
# `step, zero_grad, forward, loss, backward`. In three iterations it calls `step()` three
# times. How many of those three calls move the weights? Put a whole number in
# `answer_step_top_moves`.

# %% solution 04_training_loop-quiz-step-top
### BEGIN SOLUTION
answer_step_top_moves = 2
### END SOLUTION

# %% test 04_training_loop-quiz-step-top-test points=1
with checks.because("[mc:loop.step-waits-for-backward] The answer counts step() calls."):
    checks.answer("04_training_loop-quiz-step-top", answer_step_top_moves,
                  "answer_step_top_moves", kind=int, choices=(0, 1, 2, 3))
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_step_top_moves")
### JUDGE
import helpers.loop_anatomy
from helpers.grading.probe import got
_answer = got["answer_step_top_moves"]
with checks.because("[mc:loop.step-waits-for-backward] The answer counts step() calls."):
    checks.answer("04_training_loop-quiz-step-top", _answer, "answer_step_top_moves", kind=int,
                  choices=(0, 1, 2, 3))
_rec = helpers.loop_anatomy.record("step, zero_grad, forward, loss, backward", iterations=3)
_moved = sum(1 for _s in _rec.states if _s.line == "step" and any(p.moved > 0 for p in _s.params))
checks.expect_true(_answer == _moved,
                   "[mc:loop.step-waits-for-backward] step() uses whatever .grad holds when it "
                   "runs: at the top of an iteration that is the previous iteration's gradient.")
### END HIDDEN TESTS

# %% wrong 04_training_loop-quiz-step-top
{
    0: "[mc:loop.step-top-frozen] Here zero_grad comes after step, so from the second "
       "iteration on, step finds the gradient the previous backward left in .grad.",
    3: "[mc:loop.step-waits-for-backward] step() does not wait for this iteration's "
       "backward: the first step finds .grad still None and moves nothing.",
    1: "[mc:loop.step-top-frozen] Only the first step finds .grad empty; every later one "
       "finds the previous iteration's gradient.",
}

# %% [markdown]
# The recorder behind the instrument below runs three iterations of that order; each
# `step` row says what `.grad` held and how far the weight moved:

# %%
top = helpers.loop_anatomy.record("step, zero_grad, forward, loss, backward", iterations=3)
for state in top.states:
    if state.line == "step":
        weight = state.param("weight")
        print(f"iteration {state.iteration}: step found weight.grad {weight.grad:6s} "
              f"and moved the weight by {weight.moved:.3f}")

# %% [markdown]
# Compare: the loop trains, one batch late. Each step uses the gradient of the *previous*
# iteration's batch, and the last backward's gradient is never used. Every update is
# computed at weights that have since moved; the
# order `zero_grad, forward, loss, backward, step` has no such lag.
#
# The instrument below runs the lines on a real `nn.Linear(2, 1)` with SGD (lr 0.1), two
# iterations, and after each line reads from torch: how many autograd nodes the newest
# graph has and whether backward has freed it, each parameter's `.grad` (None, zeros or
# values), and how far the line moved each parameter. Type another order in the box
# (drop a line, or swap two) and move "show rows" to step through it.
#
# **Try this**
# 1. With the five steps in order, move "show rows" from 1 to 5. Notice that `.grad`
#    is None until `backward` and that only `step` moves the weights: compare "Δ weight"
#    (the length of the change) with 0.1 × the length of the `weight.grad` on the row
#    above it. Explain why the graph reads "freed" after backward.
# 2. Drop `zero_grad` (type `forward, loss, backward, step`). Notice row 7, the second
#    backward: `weight.grad` is the sum of both iterations' gradients. Explain why the
#    second step is larger than the first.
# 3. Put `step` just before `backward` (`zero_grad, forward, loss, step, backward`).
#    Notice the Δ columns stay 0. Explain what `step` finds in `.grad` when it runs, and
#    why this order freezes the weights while the quiz's order (step at the top) does not.

# %%
import helpers.loop_anatomy  # so that this cell also runs on its own after a restart

helpers.loop_anatomy.explore()

# %% [markdown]
# ## 2. Real data: the 8×8 digits
#
# scikit-learn ships 1,797 handwritten digits as 8×8 grey images (values 0 to 16) inside
# the package, so nothing is downloaded: `sklearn.datasets.load_digits()` returns them.
# `helpers.loss_curves.digits()` reads the same file, flattens the images to 64 features
# scaled to [0, 1], shuffles them with a fixed seed and splits them into training,
# validation and test sets.

# %%
X_train, y_train, X_val, y_val, X_test, y_test = helpers.loss_curves.digits(seed=0)
print("digits in all:", len(X_train) + len(X_val) + len(X_test),
      "| raw values are whole numbers up to", (X_train * 16).max().item(),
      ":", torch.equal(X_train * 16, (X_train * 16).round()))
print("train", tuple(X_train.shape), X_train.dtype, "| labels", tuple(y_train.shape), y_train.dtype)
print("validation", tuple(X_val.shape), "| test", tuple(X_test.shape))
print("classes:", sorted(set(y_train.tolist())), "| pixel range:", X_train.min().item(), "to", X_train.max().item())
print("examples per class in the training set:", torch.bincount(y_train).tolist())

# %% [markdown]
# ## 3. CrossEntropyLoss: raw logits in, class indices as targets
#
# For classification into C classes the model ends in a `Linear` layer with C outputs,
# the **logits**: any real numbers, no softmax. `nn.CrossEntropyLoss` takes those logits
# as they are (what it computes from them comes after the quiz below). The targets are
# **class indices** (int64), one per row, not one-hot vectors and not floats.

# %%
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
targets = torch.tensor([0, 2])
print("CrossEntropyLoss:", nn.CrossEntropyLoss()(logits, targets).item(), "| target dtype:", targets.dtype)

# %% [markdown]
# Class indices stored as floats are refused. The target's **shape** decides how it is
# read, not its dtype: a target with the logits' shape, (N, C), is read as class
# probabilities (floats), one distribution per row; a target of shape (N,) is read as
# class indices, and that path accepts only integer dtypes:

# %%
with checks.expect_error(RuntimeError):
    nn.CrossEntropyLoss()(logits, targets.float())
print("fix: targets.long() ->", nn.CrossEntropyLoss()(logits, targets.float().long()).item())
print("a float target of the logits' shape", tuple(logits.shape), "is read as probabilities ->",
      nn.CrossEntropyLoss()(logits, F.one_hot(targets, 3).float()).item())

# %% [markdown]
# A row can also have no label: padding that makes sequences of different lengths into
# one batch, or an example nobody labelled. Give it the target -100 and the loss leaves it
# out (`ignore_index=-100` is the default): the mean is taken over the labelled rows
# only, so a batch without a labelled row has no mean at all.

# %%
ce = nn.CrossEntropyLoss()
print("ignore_index:", ce.ignore_index)
print("targets (0, -100):", ce(logits, torch.tensor([0, -100])).item(),
      "| row 0 alone:", ce(logits[:1], targets[:1]).item())
print("targets (-100, -100):", ce(logits, torch.tensor([-100, -100])).item())

# %% [markdown]
# **Quick quiz.** A model ends in `softmax` and its output for one example of a 2-class
# problem is the perfect prediction (1.0, 0.0) for class 0. That output goes into
# `nn.CrossEntropyLoss` with target 0. What loss does it report (4 decimals)? Put the
# number in `answer_double_softmax_loss`.

# %% solution 04_training_loop-quiz-double-softmax
### BEGIN SOLUTION
answer_double_softmax_loss = 0.3133
### END SOLUTION

# %% test 04_training_loop-quiz-double-softmax-test points=1
with checks.because("[mc:loss.ce-takes-probabilities] The answer is the reported loss, a number."):
    checks.answer("04_training_loop-quiz-double-softmax", answer_double_softmax_loss,
                  "answer_double_softmax_loss", kind=float)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_double_softmax_loss")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_double_softmax_loss"]
with checks.because("[mc:loss.ce-takes-probabilities] The answer is the reported loss, a number."):
    checks.answer("04_training_loop-quiz-double-softmax", _answer, "answer_double_softmax_loss", kind=float)
checks.expect_true(math.isclose(_answer, nn.CrossEntropyLoss()(torch.tensor([[1.0, 0.0]]),
                                                               torch.tensor([0])).item(), abs_tol=1e-3),
                   "[mc:loss.ce-takes-probabilities] CrossEntropyLoss applies log_softmax to "
                   "(1, 0): the loss is −log(e¹ / (e¹ + e⁰)).")
### END HIDDEN TESTS

# %% wrong 04_training_loop-quiz-double-softmax
{
    0: "[mc:loss.ce-takes-probabilities] CrossEntropyLoss does not take probabilities: it "
       "applies log_softmax to its input, so (1, 0) is treated as logits and becomes "
       "probabilities (0.73, 0.27).",
    0.6931: "[mc:loss.ce-takes-probabilities] log 2 is the loss of equal logits; (1, 0) as "
            "logits already favours class 0 a little.",
    0.6932: "[mc:loss.ce-takes-probabilities] log 2 is the loss of equal logits; (1, 0) as "
            "logits already favours class 0 a little.",
    1.3133: "[mc:loss.ce-wrong-class] That is the loss for target 1; the target is class 0.",
}

# %% [markdown]
# What the loss computes: it applies `log_softmax` to its input and picks out the
# log-probability of each row's target class, loss = −mean(log_softmax(logits)[i, y_i]).
# By hand beside the loss, for the first cell's logits, then the quiz's case for two
# classes and for ten:

# %%
by_hand = -torch.log_softmax(logits, dim=1)[torch.arange(2), targets].mean()
print("CrossEntropyLoss:", nn.CrossEntropyLoss()(logits, targets).item(), "| by hand:", by_hand.item())
perfect = torch.zeros(1, 10)
perfect[0, 3] = 1.0
print("2 classes, perfect:", round(nn.CrossEntropyLoss()(torch.tensor([[1.0, 0.0]]), torch.tensor([0])).item(), 4))
print("10 classes, perfect: loss", round(nn.CrossEntropyLoss()(perfect, torch.tensor([3])).item(), 4),
      "= log((e + 9) / e) =", round(math.log((math.e + 9) / math.e), 4))

# %% [markdown]
# Compare: the loss treats (1, 0) as logits, so even a perfect probability vector
# scores a loss of 0.3133. That is the **double-softmax bug**: softmax in the model, and
# again inside the loss. Probabilities lie in [0, 1], so the logits the loss sees differ
# by at most 1, and the loss cannot go below a floor even for a perfect prediction (1.4612
# for 10 classes). The gradients are squashed by the extra softmax as well: section 10's
# "overfit one batch" shows the floor.
#
# **Why one fused function.** softmax(z)ᵢ = e^zᵢ / Σⱼ e^zⱼ, and float32 overflows above
# about e^88.7. log_softmax computes zᵢ − log Σⱼ e^zⱼ, the log-sum-exp as m + log Σⱼ e^(zⱼ − m)
# with m = max(z), so no exponent is positive. For large logits (a confident model), softmax
# and then log is not the same thing in float32:

# %%
wild = torch.tensor([[200.0, 0.0, -20.0]], requires_grad=True)
print("exp(89) in float32:", torch.exp(torch.tensor(89.0)).item(),
      "| the formula, as written:", torch.log(torch.exp(wild) / torch.exp(wild).sum()).tolist())
for name, log_probs in (("log(softmax(z))", torch.log(torch.softmax(wild, dim=1))),
                        ("log_softmax(z) ", torch.log_softmax(wild, dim=1))):
    loss = F.nll_loss(log_probs, torch.tensor([1]))  # target: class 1
    (grad,) = torch.autograd.grad(loss, wild)
    print(f"{name}: {log_probs.tolist()} -> loss {loss.item()}, gradient {grad.tolist()}")
print("torch.logsumexp(z):", torch.logsumexp(wild, dim=1).item(), "| cross_entropy(z, 1):",
      F.cross_entropy(wild, torch.tensor([1])).item())

# %% [markdown]
# `softmax` subtracts the maximum, but its small probabilities round to 0, and log(0) = −inf:
# loss inf, gradient nan. `log_softmax` (and `CrossEntropyLoss`) never form them: loss 200,
# gradient softmax(z) − one_hot(y).
#
# ### A sanity check before training: the first loss
#
# **Quick quiz.** Take a classifier for the ten digit classes, 64 → 128 → 10 with a ReLU
# between (the model section 5 trains), built with `nn.Linear`'s default initialisation.
# Before any training, what cross-entropy loss does it have on the training digits, to
# two decimals? Put it in `answer_initial_loss`.

# %% solution 04_training_loop-quiz-initial-loss
### BEGIN SOLUTION
answer_initial_loss = 2.30
### END SOLUTION

# %% test 04_training_loop-quiz-initial-loss-test points=1
with checks.because("[mc:sanity.initial-loss] The answer is a loss, a number."):
    checks.answer("04_training_loop-quiz-initial-loss", answer_initial_loss,
                  "answer_initial_loss", kind=float)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_initial_loss")
### JUDGE
import helpers.loss_curves
from helpers.grading.probe import got
_answer = got["answer_initial_loss"]
with checks.because("[mc:sanity.initial-loss] The answer is a loss, a number."):
    checks.answer("04_training_loop-quiz-initial-loss", _answer, "answer_initial_loss", kind=float)
_X, _y = helpers.loss_curves.digits(seed=0)[:2]
torch.manual_seed(0)
_fresh = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
with torch.no_grad():
    _first = nn.functional.cross_entropy(_fresh(_X), _y).item()
checks.expect_true(abs(_answer - _first) <= 0.06,
                   "[mc:sanity.initial-loss] Small logits give every class a probability near "
                   "1/10, and the loss is −log of the true class's probability.")
### END HIDDEN TESTS

# %% wrong 04_training_loop-quiz-initial-loss
{
    0: "[mc:sanity.untrained-zero] A loss of 0 means certain, correct predictions: an "
       "untrained model is closer to guessing.",
    0.1: "[mc:sanity.probability-not-loss] 1/10 is the probability a guess gives the true "
         "class; the loss is −log of that probability.",
    0.9: "[mc:sanity.probability-not-loss] 0.9 is a guess's error rate; the loss is −log of "
         "the probability given to the true class.",
    1: "[mc:sanity.probability-not-loss] The loss is −log of the true class's probability, "
       "not a probability.",
    10: "[mc:sanity.probability-not-loss] With 10 classes a guess gives each class a "
        "probability of 1/10; the loss is −log of that, not the number of classes.",
    0.69: "[mc:sanity.two-classes] ln 2 is the first loss of a 2-class model; here there "
          "are 10 classes.",
    0.693: "[mc:sanity.two-classes] ln 2 is the first loss of a 2-class model; here there "
           "are 10 classes.",
    0.6931: "[mc:sanity.two-classes] ln 2 is the first loss of a 2-class model; here there "
            "are 10 classes.",
}

# %% [markdown]
# The reveal: ln C for C = 10, and the first loss of that model (seed 0), beside a copy
# whose last layer starts with weights 20 times larger:

# %%
torch.manual_seed(0)
fresh = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
loud = copy.deepcopy(fresh)
with torch.no_grad():
    loud[2].weight.mul_(20)
    first_loss = nn.functional.cross_entropy(fresh(X_train), y_train).item()
    loud_loss = nn.functional.cross_entropy(loud(X_train), y_train).item()
    spread = fresh(X_train).std().item()
print(f"ln 10 = {math.log(10):.4f} | first loss, default init: {first_loss:.4f}"
      f" (its logits' standard deviation {spread:.3f})")
print(f"first loss with the last layer's weights × 20: {loud_loss:.4f}")

# %% [markdown]
# Compare: small logits give each class a probability near 1/C, so a balanced C-class
# problem starts at a loss near ln C (the digits are close to balanced, about 120 per
# class). A first loss far above ln C says the model starts confident and wrong (large
# logits: an initialisation or input-scale problem) and will spend its first steps
# undoing that; one far below says the labels leak into the inputs or the loss is not
# the one you meant. It costs one forward pass to check.
#
# ## 4. Evaluation: eval(), no_grad() and .item()
#
# Two switches matter when you measure a model. `model.eval()` changes how layers
# behave: dropout stops dropping, batch norm uses its running statistics. And
# `torch.no_grad()` stops autograd from recording, so no graph is built and no
# activations are kept for a backward that will never come. Neither implies the other:

# %%
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 10))
net.train()
first, second = net(X_val[:1]), net(X_val[:1])
print("train mode, same input twice, equal outputs:", torch.equal(first, second))
net.eval()
print("eval mode, equal outputs:", torch.equal(net(X_val[:1]), net(X_val[:1])),
      "| graph recorded:", net(X_val[:1]).grad_fn is not None)
with torch.no_grad():
    print("eval + no_grad, graph recorded:", net(X_val[:1]).grad_fn is not None)
    logits = net(X_val)
# accuracy: the share of rows whose largest logit sits at the true class
predicted = logits.argmax(dim=1)
print("predicted", predicted[:8].tolist(), "true", y_val[:8].tolist(),
      f"| accuracy of this untrained net: {(predicted == y_val).float().mean().item():.1%}")

# %% [markdown]
# An evaluation helper is called from inside a training loop, so it must give the model
# back as it found it: 03's rule, each submodule its own mode. It matters in practice:
# fine-tuning often trains a model while a pretrained part's batch norm stays in eval mode
# (its running statistics frozen), and `model.train(was_training)` would unfreeze it.
# `helpers.modes.modes(model)` reads every submodule's flag:

# %%
torch.manual_seed(0)
tuned = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 10))
tuned.train()
tuned[1].eval()                            # frozen statistics while the rest trains
print("before evaluation:        ", helpers.modes.modes(tuned))
was_training = tuned.training
tuned.eval()
tuned.train(was_training)                  # restores the top-level flag only
print("after train(was_training):", helpers.modes.modes(tuned))
before = tuned[1].running_mean.clone()
tuned(X_train[:64])
print("the frozen batch norm's running mean changed on the next batch:",
      not torch.equal(before, tuned[1].running_mean))

# %% [markdown]
# 03's exercise wrote the restore by hand; `helpers.modes` has it written once:
# `with helpers.modes.evaluating(model):` runs its block in eval mode and afterwards gives
# every submodule its own mode back, also when the block raises. `helpers.loss_curves.evaluate`
# (the evaluation this page's training loops use) is built on it:

# %%
tuned.train()
tuned[1].eval()
saved = helpers.modes.modes(tuned)
with helpers.modes.evaluating(tuned):
    print("inside the block, any submodule training:", any(helpers.modes.modes(tuned).values()))
print("after the block, every mode as before:", helpers.modes.modes(tuned) == saved)
print("loss, accuracy:", helpers.loss_curves.evaluate(tuned, X_val, y_val),
      "| every mode as before:", helpers.modes.modes(tuned) == saved)

# %% [markdown]
# `.item()` turns a one-element tensor into a Python number. Keep **numbers** in your
# logs, not loss tensors: a tensor keeps its graph reachable, and a running total built
# from tensors links every step's graph into one chain:

# %%
net.train()
running, running_item = 0, 0.0
for _ in range(20):
    batch_loss = nn.functional.cross_entropy(net(X_val[:8]), y_val[:8])
    running = running + batch_loss
    running_item += batch_loss.item()
print("a running total of 20 loss tensors reaches", helpers.loop_anatomy.count_nodes(running),
      "autograd nodes; the total of their .item() values is a", type(running_item).__name__)
del running

# %% [markdown]
# **`.item()` on a GPU.** CUDA runs asynchronously: Python queues kernels and moves on.
# `.item()` needs the number on the CPU, so it waits for the queue to drain (a
# synchronisation), and the GPU idles while Python catches up. Log every k steps, or add
# the detached losses up on the device (`loss.detach()` keeps the number, drops the graph):

# %%
device_total = torch.zeros(())
for _ in range(20):
    batch_loss = nn.functional.cross_entropy(net(X_val[:8]), y_val[:8])
    device_total += batch_loss.detach()    # no graph, no synchronisation
print("autograd nodes behind the detached total:", helpers.loop_anatomy.count_nodes(device_total),
      f"| one .item() at the end: {device_total.item() / 20:.4f}")

# %% [markdown]
# A pass over the data (an **epoch**) in mini-batches takes the rows in slices of
# `batch_size`; the last slice is whatever is left:

# %%
rows, batch = 10, 4
print([len(torch.arange(rows)[start:start + batch]) for start in range(0, rows, batch)])

# %% [markdown]
# ### Exercise 1: evaluate in batches, and give the model back as you found it (2 points)
#
# *Misconception targeted: averaging the batches' mean losses as if every batch were full,
# evaluating in training mode or with autograd recording, or restoring only the top-level
# mode.*
#
# A model or a data set too large for one forward pass is evaluated in batches. Write
# `evaluate_model(model, loss_fn, X, y, batch_size)` returning `(loss, accuracy)` as two
# Python floats for all of `X`: the mean loss over its rows, and the fraction (0 to 1) of
# its rows whose largest logit is the true class. Run the model on at most `batch_size`
# rows at a time (the last batch may be smaller); `loss_fn` returns the mean over the rows
# it is given. Run every submodule in eval mode with autograd off, and leave each
# submodule in the mode it had before the call.

# %% solution 04_training_loop-evaluate
### BEGIN SOLUTION
def evaluate_model(model, loss_fn, X, y, batch_size):
    before = [m.training for m in model.modules()]
    model.eval()
    try:
        total_loss, correct = 0.0, 0
        with torch.no_grad():
            for start in range(0, len(X), batch_size):
                xb, yb = X[start:start + batch_size], y[start:start + batch_size]
                logits = model(xb)
                total_loss = total_loss + loss_fn(logits, yb) * len(xb)   # summed on the device:
                correct = correct + (logits.argmax(dim=1) == yb).sum()     # one .item() at the end
    finally:
        for m, mode in zip(model.modules(), before):                      # parents first
            m.train(mode)
    return (total_loss / len(X)).item(), (correct / len(X)).item()
### END SOLUTION

# %% test 04_training_loop-evaluate-test points=2
_answered = (evaluate_model,)  # a NameError here reads as "not answered yet"
_net = helpers.training_tasks.mode_net(X_train, 4)
_before = [m.training for m in _net.modules()]
_calls = helpers.training_tasks.spy_forward(_net)
try:
    with checks.explain_errors({}, "evaluate_model(model, loss_fn, X_val, y_val, 64)"):
        _result = evaluate_model(_net, nn.CrossEntropyLoss(), X_val, y_val, 64)
finally:
    _grad_left_on = torch.is_grad_enabled()
    torch.set_grad_enabled(True)  # so that the rest of the page runs
_after, _calls = [m.training for m in _net.modules()], list(_calls)  # before the spy sees batch_means
helpers.training_tasks.check_evaluation(_result, _calls, _grad_left_on, _before, _after,
                                        helpers.training_tasks.batch_means(_net, X_val, y_val, 64), len(X_val))
### BEGIN HIDDEN TESTS
import helpers.loss_curves
import helpers.modes
import helpers.training_tasks
from helpers.grading import probe
probe.needs("evaluate_model")
_Xt, _, _Xv, _yv = helpers.loss_curves.digits(seed=0)[:4]
_net = helpers.training_tasks.mode_net(_Xt, 4)
_before = [m.training for m in _net.modules()]
_calls = helpers.training_tasks.spy_forward(_net)
probe.call("evaluate_model(model, loss_fn, X_val, y_val, 64)", evaluate_model, _net, nn.CrossEntropyLoss(),
           _Xv, _yv, 64)
probe.value("autograd on after evaluate_model", torch.is_grad_enabled())
torch.set_grad_enabled(True)
probe.value("each forward: (rows, a submodule training, autograd recording)", _calls)
probe.value("each submodule's mode before", _before)
probe.value("each submodule's mode after", [m.training for m in _net.modules()])
probe.value("the plain average of the batches' loss and accuracy",
            helpers.training_tasks.batch_means(_net, _Xv, _yv, 64))
probe.value("rows of X", len(_Xv))
for _bs, _n in ((64, 300), (7, 20), (500, 300), (1, 5)):
    probe.call(f"evaluate_model on {_n} rows in batches of {_bs}", evaluate_model, _net, nn.CrossEntropyLoss(),
               _Xv[:_n], _yv[:_n], _bs)
    torch.set_grad_enabled(True)
_nested = nn.Sequential(nn.Linear(64, 16), nn.Sequential(nn.Dropout(0.3), nn.BatchNorm1d(16)), nn.Linear(16, 10))
# from all-train, all-eval and two mixtures, nested submodules included
probe.call("evaluate_model from four mixtures of modes", helpers.modes.mode_changes, evaluate_model, _nested,
           nn.CrossEntropyLoss(), _Xv, _yv, 64)
torch.set_grad_enabled(True)
### JUDGE
import helpers.training_tasks
from helpers.grading.probe import got, ref
helpers.training_tasks.check_evaluation(
    got["evaluate_model(model, loss_fn, X_val, y_val, 64)"],
    got["each forward: (rows, a submodule training, autograd recording)"],
    got["autograd on after evaluate_model"], got["each submodule's mode before"],
    got["each submodule's mode after"], ref["the plain average of the batches' loss and accuracy"],
    ref["rows of X"])
for _bs, _n in ((64, 300), (7, 20), (500, 300), (1, 5)):
    _key = f"evaluate_model on {_n} rows in batches of {_bs}"
    _got, _want = got[_key], ref[_key]
    checks.expect_true(isinstance(_got, (tuple, list)) and len(_got) == 2
                       and all(isinstance(v, float) and math.isclose(v, w, rel_tol=1e-5, abs_tol=1e-7)
                               for v, w in zip(_got, _want)),
                       f"[mc:eval.mean-of-batch-means] On {_n} rows in batches of {_bs}, "
                       f"(loss, accuracy) should be those of all {_n} rows, each row counted "
                       f"once, in eval mode: {tuple(round(v, 5) for v in _want)}; got {_got!r}.")
_problems = got["evaluate_model from four mixtures of modes"]
checks.expect_true(not _problems, "[mc:eval.mode-not-restored] evaluate_model must leave "
                   "every submodule in the mode it had, whatever that was; "
                   + (str(_problems[0]) if _problems else ""))
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Training the digits classifier, live
#
# Everything so far in one loop: shuffled mini-batches, the five steps, `.item()` for the
# log, and evaluation after every epoch. `LiveCurves` redraws the picture in place while
# the loop runs (at most every 0.3 s) and `tqdm` shows the progress; the numbers land in
# `board.history`, a plain Python object with lists of floats.

# %%
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()
batch_size, epochs = 64, 10
board = helpers.loss_curves.LiveCurves("digits MLP 64-128-10, Adam lr 0.01",
                                       steps_per_epoch=math.ceil(len(X_train) / batch_size))
shuffler = torch.Generator().manual_seed(0)
start = time.perf_counter()
for epoch in tqdm(range(epochs), desc="epochs"):
    model.train()
    order = torch.randperm(len(X_train), generator=shuffler)
    for i in range(0, len(X_train), batch_size):
        idx = order[i:i + batch_size]
        optimizer.zero_grad()
        loss = loss_fn(model(X_train[idx]), y_train[idx])
        loss.backward()
        optimizer.step()
        board.log_train(loss.item(), optimizer.param_groups[0]["lr"])
    board.log_val(*helpers.loss_curves.evaluate(model, X_val, y_val))
train_seconds = time.perf_counter() - start
history = board.close()

# %%
test_loss, test_accuracy = helpers.loss_curves.evaluate(model, X_test, y_test)
print(f"training took {train_seconds:.2f} s for {len(history.train_loss)} steps")
print(f"test accuracy: {test_accuracy:.1%} on {len(X_test)} held-out digits")
print("history.val_loss:", [round(v, 3) for v in history.val_loss])

# %% [markdown]
# ### A convolutional net beside the MLP
#
# 03's inspector showed a small convolutional net for these digits,
# `helpers.loss_curves.conv_net()`: it views each row of 64 pixels as a 1×8×8 image (`nn.Unflatten`), applies two 3×3
# convolutions, each with a ReLU and a 2×2 max-pooling, and ends in one Linear layer.
# `helpers.loss_curves.fit` runs the loop above (a validation pass after each epoch, no
# picture) on both, with the same shuffled batches, and times it:

# %%
torch.manual_seed(0)
contenders = {"MLP 64-128-10": nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)),
              "conv net": helpers.loss_curves.conv_net()}
print(contenders["conv net"])
print(f"{'model':14s} {'parameters':>10s} {'test accuracy':>14s} {'s per epoch':>12s}")
for name, net in contenders.items():
    run = helpers.loss_curves.fit(net, torch.optim.Adam(net.parameters(), lr=1e-2),
                                  (X_train, y_train, X_val, y_val), epochs=10, batch_size=64)
    accuracy = helpers.loss_curves.evaluate(net, X_test, y_test)[1]
    print(f"{name:14s} {sum(p.numel() for p in net.parameters()):>10,} {accuracy:>14.1%} "
          f"{run.seconds / 10:>12.3f}")

# %% [markdown]
# Compare the two rows: the conv net has fewer parameters and misclassifies fewer held-out
# digits, and each epoch takes several times as long: a convolution computes at every
# position. On larger images an MLP's first layer grows with the pixels, a convolution's
# weights do not (03).
#
# ## 6. The learning rate over time: schedules and warm-up
#
# The learning rate need not stay fixed. `torch.optim.lr_scheduler` holds **schedules**:
# objects that wrap an optimizer and, each time you call `scheduler.step()` (after
# `optimizer.step()`), set the `lr` of every parameter group for the next step. Here a
# scheduler is stepped once per batch, so its length counts batches; recipes that step it
# once per epoch count epochs instead. Three schedules for a run of 100 steps with a peak
# rate of 0.1 (`helpers.loss_curves.make_scheduler` builds them):
#
# - **constant**: no scheduler;
# - **step** (`MultiStepLR`): multiply the rate by `gamma=0.1` at the step counts in
#   `milestones` (here 50 and 75);
# - **one-cycle** (`OneCycleLR`): a **warm-up** from peak/25 up to the peak over the first
#   30 % of the steps (`pct_start=0.3`), then down along a cosine to peak/25/10⁴. By default
#   it also cycles the optimizer's momentum; `cycle_momentum=False` leaves it as you set it.
#
# `LambdaLR(optimizer, f)` takes any rule: the rate becomes each group's initial rate
# times `f(n)`, where n counts the `scheduler.step()` calls so far (0 before the first).

# %%
def rates(schedule, steps=100, peak=0.1):
    """The rate each of `steps` optimizer steps uses under a schedule."""
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=peak)
    scheduler = helpers.loss_curves.make_scheduler(schedule, opt, steps)
    used = []
    for _ in range(steps):
        used.append(opt.param_groups[0]["lr"])
        opt.step()
        if scheduler is not None:
            scheduler.step()
    return used


shown_steps = (1, 10, 30, 31, 50, 51, 75, 76, 100)
print("step:      " + "".join(f"{s:>9d}" for s in shown_steps))
for schedule in ("constant", "step", "one-cycle"):
    used = rates(schedule)
    print(f"{schedule:10s} " + "".join(f"{used[s - 1]:9.4f}" for s in shown_steps))

halving = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
every_two = torch.optim.lr_scheduler.LambdaLR(halving, lambda n: 0.5 ** (n // 2))
lambda_rates = []
for _ in range(6):
    lambda_rates.append(halving.param_groups[0]["lr"])
    halving.step()
    every_two.step()
print("LambdaLR with f(n) = 0.5 ** (n // 2):", lambda_rates)
print("a scheduler's state, for checkpoints:", sorted(every_two.state_dict()))
print(f"one-cycle's last rate {rates('one-cycle')[-1]:.1e} = peak / 25 / 10⁴ = {0.1 / 25 / 1e4:.1e}")

# %% [markdown]
# **Quick quiz.** Train the digits MLP (hidden layer of 64, batches of 128, 10 epochs)
# with Adam at a peak rate of 0.316, three times: with a constant rate, with the step
# schedule, and with one-cycle. Which run ends with the lowest validation loss? Put
# `"constant"`, `"step"` or `"one-cycle"` in `answer_best_schedule`.

# %% solution 04_training_loop-quiz-schedule
### BEGIN SOLUTION
answer_best_schedule = "one-cycle"
### END SOLUTION

# %% test 04_training_loop-quiz-schedule-test points=1
with checks.because("[mc:lr.decay-rescues] The answer is one of the three schedules' names."):
    checks.answer("04_training_loop-quiz-schedule", answer_best_schedule, "answer_best_schedule",
                  kind=str, choices=("constant", "step", "one-cycle"))
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_best_schedule")
### JUDGE
import helpers.loss_curves
from helpers.grading.probe import got
_answer = got["answer_best_schedule"]
with checks.because("[mc:lr.decay-rescues] The answer is one of the three schedules' names."):
    checks.answer("04_training_loop-quiz-schedule", _answer, "answer_best_schedule",
                  kind=str, choices=("constant", "step", "one-cycle"))
_finals = {_s: helpers.loss_curves.run("Adam", 0.316, "64", 10, _s).val_loss[-1]
           for _s in ("constant", "step", "one-cycle")}
checks.expect_true(_answer.strip() == min(_finals, key=_finals.get),
                   "[mc:lr.decay-rescues] Compare the three runs' last validation losses.")
### END HIDDEN TESTS

# %% wrong 04_training_loop-quiz-schedule
{
    "constant": "[mc:lr.schedule-wastes-steps] A schedule does not only spend steps at a "
                "lower rate: one of them changes the steps where this run goes wrong.",
    "step": "[mc:lr.decay-rescues] Lowering the rate in the second half comes after the "
            "first steps at the full 0.316; what those steps did is not undone by smaller "
            "ones later.",
}

# %% [markdown]
# The reveal: the three runs, and how large the initial weights are beside the size of
# Adam's first steps (about lr, section 1):

# %%
for schedule in ("constant", "step", "one-cycle"):
    trial = helpers.loss_curves.run("Adam", 0.316, "64", 10, schedule)
    print(f"{schedule:10s} first step's lr {trial.lr[0]:.4f}   highest training loss in epoch 1 "
          f"{max(trial.train_loss[:trial.steps_per_epoch]):6.2f}   final validation loss "
          f"{trial.val_loss[-1]:.3f}, accuracy {trial.val_acc[-1]:.1%}")
print("largest initial weight of the first layer:",
      round(helpers.loss_curves.mlp((64,))[0].weight.abs().max().item(), 4))

# %% [markdown]
# Compare: with a constant rate and with the step schedule, the first steps move every
# weight by about 0.3, more than the largest initial weight. The network is scrambled in
# the first epoch, and in this run neither the rest of the constant run nor the step
# schedule's smaller rates bring it back. One-cycle's first steps are 25 times smaller;
# by the time the rate reaches its peak, the weights and Adam's running estimates of each
# gradient's size have settled enough to take it. That is what a **warm-up** is for.
#
# ### Live loss curves: optimizer, learning rate and schedule
#
# The instrument trains a fresh MLP on the digits (batches of 128, seed 0) with the
# optimizer, peak learning rate and schedule you choose, and draws the training loss of
# every step and the validation loss of every epoch on a log scale, with the rate each
# step used beneath. A run that takes more than half a second is redrawn while it trains;
# a setting you have already run comes back at once.
#
# **Try this**
# 1. With SGD, compare lr 0.1 and lr 1.0 (constant). Notice how far each validation curve
#    gets in 10 epochs. Explain why the small rate is slow rather than wrong.
# 2. Choose SGD + momentum 0.9 at lr 1.0, first constant, then one-cycle. Notice the
#    training loss's noise and the lr panel. Explain with section 1's limit lr·g / (1 − μ):
#    what step size does a constant lr 1.0 with momentum 0.9 approach?
# 3. Choose SGD (constant), type `64, 64, 64, 64` as hidden sizes and drag lr to its
#    maximum. Notice the red line and the message naming the step where the loss
#    became nan. Explain how a loss can become nan (overflow to inf, then inf − inf). Then
#    choose one-cycle: notice where the nan comes now, against the lr panel.

# %%
import helpers.loss_curves  # so that this cell also runs on its own after a restart

helpers.loss_curves.explore()

# %% [markdown]
# ### Parameter groups: weight decay where it belongs
#
# An optimizer keeps its parameters in **groups** (`optimizer.param_groups`), each a dict
# holding the parameters and their settings. Pass a list of dicts instead of
# `model.parameters()` to choose settings per group; a setting a dict leaves out takes the
# optimizer's default. For example, a small rate for a pretrained body and the default
# for a new head:

# %%
body, head = nn.Linear(64, 32), nn.Linear(32, 10)
grouped = torch.optim.AdamW([{"params": body.parameters(), "lr": 1e-4},
                             {"params": head.parameters()}], lr=1e-2, weight_decay=0.01)
for k, group in enumerate(grouped.param_groups):
    print(f"group {k}: {len(group['params'])} tensors, lr {group['lr']}, "
          f"weight_decay {group['weight_decay']}")

# %% [markdown]
# Weight decay pulls every weight it is applied to towards 0 at every step (AdamW shrinks
# θ by lr·wd·θ). That pull is meant for the weight matrices that multiply the inputs,
# where large values make a model sensitive to small input changes. A bias only shifts an
# output, and a normalisation layer's weight (the per-feature scale of `LayerNorm` and
# `BatchNorm`, which starts at 1) sets the size of the normalised activations: pulling it
# towards 0 works against the normalisation instead of regularising anything. The usual
# recipe puts biases and normalisation weights in a group with `weight_decay=0.0`. Their
# names and shapes, in a small model:

# %%
normed = nn.Sequential(nn.Linear(64, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 10))
for name, p in normed.named_parameters():
    print(f"{name:10s} {type(normed[int(name.split('.')[0])]).__name__:10s} shape {tuple(p.shape)}")

# %% [markdown]
# ### Exercise 2: weight decay groups (2 points)
#
# *Misconception targeted: decaying every parameter, or picking the no-decay parameters
# by the name "bias" and so decaying normalisation weights.*
#
# Write `decay_groups(model, weight_decay)` returning a list of two parameter-group dicts
# for `torch.optim.AdamW`: the first with `weight_decay` and the second with
# `weight_decay` 0.0. Biases, and the weights of normalisation layers (`nn.LayerNorm`,
# `nn.BatchNorm1d`), go in the second; every other parameter in the first. Each parameter
# of the model must appear exactly once.

# %% solution 04_training_loop-decay-groups
### BEGIN SOLUTION
def decay_groups(model, weight_decay):
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0}]
### END SOLUTION

# %% test 04_training_loop-decay-groups-test points=2
_answered = (decay_groups,)  # a NameError here reads as "not answered yet"
torch.manual_seed(0)
_mlp = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.ReLU(), nn.Linear(16, 4))
with checks.explain_errors({}, "decay_groups(a Linear-LayerNorm MLP, 0.05)"):
    _placed = helpers.training_tasks.observe_groups(decay_groups, _mlp)
helpers.training_tasks.check_groups(_placed, "a Linear-LayerNorm MLP", {
    "0.weight": "matrix", "0.bias": "bias", "1.weight": "norm", "1.bias": "bias", "3.weight": "matrix",
    "3.bias": "bias"})
_ = torch.optim.AdamW(decay_groups(_mlp, 0.05), lr=1e-3)     # accepted by the optimizer as it is
### BEGIN HIDDEN TESTS
import helpers.training_tasks
from helpers.grading import probe
probe.needs("decay_groups")


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(6, 6, bias=False)
        self.norm = nn.BatchNorm1d(6)
        self.out = nn.Linear(6, 3)

    def forward(self, x):
        return self.out(self.norm(self.inner(x)))


torch.manual_seed(0)
for _label, _model in (("a Linear-LayerNorm MLP",
                        nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.ReLU(), nn.Linear(16, 4))),
                       ("a nested model", nn.Sequential(nn.Linear(5, 6), _Block(), nn.LayerNorm(3)))):
    probe.observe(f"decay_groups({_label}, 0.05)",
                  lambda: helpers.training_tasks.observe_groups(decay_groups, _model))


class _Tied(nn.Module):
    """A small sequence model whose output layer reuses the embedding table (tied weights)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.position = nn.Embedding(8, 4)
        self.conv = nn.Conv1d(4, 4, 3, padding=1)
        self.norm = nn.LayerNorm(4)
        self.out = nn.Linear(4, 10)
        self.out.weight = self.embed.weight


probe.observe("decay_groups(an Embedding tied to the output Linear, 0.05)",
              lambda: helpers.training_tasks.observe_groups(decay_groups, _Tied()))
### JUDGE
import helpers.training_tasks
from helpers.grading.probe import got


def _check_groups(label, roles):
    helpers.training_tasks.check_groups(
        got.value(f"decay_groups({label}, 0.05)", "[mc:groups.structure] Return a list of two dicts, each "
                  "with a 'params' list and a 'weight_decay', which torch.optim.AdamW accepts."), label, roles)


_check_groups("a Linear-LayerNorm MLP", {"0.weight": "matrix", "0.bias": "bias", "1.weight": "norm",
                                         "1.bias": "bias", "3.weight": "matrix", "3.bias": "bias"})
_check_groups("a nested model", {"0.weight": "matrix", "0.bias": "bias", "1.inner.weight": "matrix",
                                 "1.norm.weight": "norm", "1.norm.bias": "bias", "1.out.weight": "matrix",
                                 "1.out.bias": "bias", "2.weight": "norm", "2.bias": "bias"})
_check_groups("an Embedding tied to the output Linear", {
    "embed.weight": "matrix", "position.weight": "matrix", "conv.weight": "matrix", "conv.bias": "bias",
    "norm.weight": "norm",
    "norm.bias": "bias", "out.bias": "bias"})
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 3: repair a warm-up (2 points)
#
# *Misconception targeted: a warm-up whose first step has a rate of 0, a rule that
# returns a rate where the scheduler expects a factor, a rule that reaches only the
# first parameter group, or a warm-up that never stops.*
#
# A colleague wrote the warm-up below for an optimizer with parameter groups (a
# pretrained body at a small rate, a new head at a larger one). It is meant to return a
# scheduler, stepped once after every `optimizer.step()`, under which the k-th optimizer
# step (k = 1, 2, 3, …) of every group uses that group's rate × k / `warmup_steps` while
# k ≤ `warmup_steps`, and the group's full rate afterwards. It runs without an error, and
# it is wrong in more than one way. Measure before you fix: give it an SGD with two groups
# at different rates and print the rates the first steps use.

# %%
def rushed_warmup(optimizer, warmup_steps):
    peak = optimizer.param_groups[0]["lr"]
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda n: peak * n / warmup_steps)


# %% [markdown]
# Write `warmup(optimizer, warmup_steps)` that does what `rushed_warmup` means to do.

# %% solution 04_training_loop-warmup
### BEGIN SOLUTION
def warmup(optimizer, warmup_steps):
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda n: min(1.0, (n + 1) / warmup_steps))
### END SOLUTION

# %% test 04_training_loop-warmup-test points=2
_answered = (warmup,)  # a NameError here reads as "not answered yet"
with checks.explain_errors({}, "warmup(optimizer, 4), then scheduler.step()"):
    _one = helpers.training_tasks.observe_rates(warmup, (0.1,), 4, 6)
    _two = helpers.training_tasks.observe_rates(warmup, (0.1, 0.01), 4, 6)
helpers.training_tasks.check_warmup_start(_one, _two)
### BEGIN HIDDEN TESTS
import helpers.training_tasks
from helpers.grading import probe
probe.needs("warmup")
for _what, _lrs, _warm, _steps in (("warmup(optimizer, 4), one group at 0.1", (0.1,), 4, 6),
                                   ("warmup(optimizer, 4), groups at 0.1 and 0.01", (0.1, 0.01), 4, 6),
                                   ("warmup(optimizer, 10), one group at 0.3", (0.3,), 10, 12)):
    probe.observe(f"the rates under {_what}",
                  lambda: helpers.training_tasks.observe_rates(warmup, _lrs, _warm, _steps))
### JUDGE
import helpers.training_tasks
from helpers.grading.probe import got
_two = got["the rates under warmup(optimizer, 4), groups at 0.1 and 0.01"]
helpers.training_tasks.check_warmup_start(got["the rates under warmup(optimizer, 4), one group at 0.1"], _two)
_want = [tuple(lr * min(1.0, k / 4) for lr in (0.1, 0.01)) for k in range(1, 7)]
checks.expect_true(len(_two) == len(_want) and all(math.isclose(a, b, rel_tol=1e-6) for got_, want in zip(_two, _want)
                                                   for a, b in zip(got_, want)),
                   "[mc:warmup.off-by-one] The k-th step should use rate × "
                   "k / warmup_steps (0.025, 0.05, 0.075, 0.1 for a rate of 0.1 and 4 warm-up "
                   f"steps), then the full rate; the rates were {[r[0] for r in _two]}.")
_long = helpers.training_tasks.check_rates(got["the rates under warmup(optimizer, 10), one group at 0.3"])
checks.expect_true(all(math.isclose(r[0], 0.3 * min(1.0, k / 10), rel_tol=1e-6)
                       for k, r in enumerate(_long, 1)),
                   "[mc:warmup.off-by-one] With 10 warm-up steps, step k uses 0.3 × k / 10 "
                   "up to step 10, then 0.3.")
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Early stopping
#
# The validation loss usually falls, flattens, and then rises again as the model starts
# to memorise the training set. **Early stopping** watches it: remember the weights of the
# best epoch so far, stop once `patience` epochs in a row have brought no new best, and
# finish with the best weights. Only a strictly lower loss is a new best. With validation
# losses [1.0, 0.8, 0.85, 0.9, 0.7] and patience 2, epochs 3 and 4 bring nothing new after
# epoch 2, so training stops after epoch 4 and keeps epoch 2's weights: the 0.7 of epoch 5
# is never seen.
#
# **Quick quiz.** A loop remembers the best weights with `best = model.state_dict()`.
# Training then goes on: another `optimizer.step()` changes the model's weights. True or
# false: after that step, `best["weight"]` still holds the weights from before it? Put
# `True` or `False` in `answer_best_survives_step`.

# %% solution 04_training_loop-quiz-state-dict
### BEGIN SOLUTION
answer_best_survives_step = False
### END SOLUTION

# %% test 04_training_loop-quiz-state-dict-test points=1
with checks.because("[mc:early-stop.state-dict-copy] The answer is True or False."):
    checks.answer("04_training_loop-quiz-state-dict", answer_best_survives_step,
                  "answer_best_survives_step", kind=bool)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_best_survives_step")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_best_survives_step"]
with checks.because("[mc:early-stop.state-dict-copy] The answer is True or False."):
    checks.answer("04_training_loop-quiz-state-dict", _answer, "answer_best_survives_step", kind=bool)
_layer = nn.Linear(3, 1)
_layer_opt = torch.optim.SGD(_layer.parameters(), lr=0.1)
_best = _layer.state_dict()
_old = _layer.weight.detach().clone()
_layer(torch.ones(2, 3)).sum().backward()
_layer_opt.step()
checks.expect_true(_answer == torch.equal(_best["weight"], _old),
                   "[mc:early-stop.state-dict-copy] state_dict() holds the parameters' own "
                   "tensors, which the step updates in place.")
### END HIDDEN TESTS

# %% wrong 04_training_loop-quiz-state-dict
{
    True: "[mc:early-stop.state-dict-copy] state_dict() is not a snapshot: its tensors share "
          "memory with the parameters, and optimizer.step() updates those in place.",
}

# %% [markdown]
# Run it, beside a deep copy taken at the same moment:

# %%
torch.manual_seed(0)
probe = nn.Linear(3, 1)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)
best = probe.state_dict()
kept = copy.deepcopy(probe.state_dict())
before = probe.weight.detach().clone()
probe(torch.ones(4, 3)).sum().backward()
probe_opt.step()
print("best['weight'] still holds the old weights:", torch.equal(best["weight"], before))
print("best['weight'] holds the new weights:      ", torch.equal(best["weight"], probe.weight))
print("best['weight'] and the parameter share memory:",
      best["weight"].data_ptr() == probe.weight.data_ptr())
print("the deep copy holds the old weights:       ", torch.equal(kept["weight"], before))

# %% [markdown]
# Compare: `state_dict()` returns the parameters' own tensors (detached, sharing their
# memory), and `optimizer.step()` updates those tensors in place. A "best" kept that way
# silently follows the model, and loading it at the end changes nothing. Keep
# `copy.deepcopy(model.state_dict())` (or clone each tensor) instead.
#
# ### Exercise 4: early stopping (3 points)
#
# *Misconception targeted: a "best" checkpoint that follows the model, a patience counter
# that is not reset by a new best, counting a tie as an improvement, or stopping one
# epoch late.*
#
# Write `fit_early_stopping(model, train_one_epoch, validation_loss, max_epochs,
# patience)`. Epochs are numbered from 1. In each epoch call `train_one_epoch()` (it
# trains `model` in place) and then `validation_loss()` (it returns a Python float). Stop
# after the epoch that makes `patience` epochs in a row without a strictly lower loss
# than the best so far, or after `max_epochs`. Leave `model` holding the weights of the
# best epoch (the first one, on a tie) and return `(best_epoch, stop_epoch)`.

# %% solution 04_training_loop-early-stop
### BEGIN SOLUTION
def fit_early_stopping(model, train_one_epoch, validation_loss, max_epochs, patience):
    best_loss, best_epoch, best_state, waited = math.inf, 0, None, 0
    for epoch in range(1, max_epochs + 1):
        train_one_epoch()
        loss = validation_loss()
        if loss < best_loss:
            best_loss, best_epoch, waited = loss, epoch, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            waited += 1
            if waited == patience:
                break
    if best_state is not None:                # None only if no loss was a number (all NaN)
        model.load_state_dict(best_state)
    return best_epoch, epoch
### END SOLUTION

# %% test 04_training_loop-early-stop-test points=3
_answered = (fit_early_stopping,)  # a NameError here reads as "not answered yet"
for _curve, _check in ((helpers.training_tasks.TIE_CURVE, helpers.training_tasks.check_tie_curve),
                       (helpers.training_tasks.RESET_CURVE, helpers.training_tasks.check_reset_curve)):
    with checks.explain_errors({}, "fit_early_stopping(...)"):
        _seen = helpers.training_tasks.observe_early_stopping(fit_early_stopping, *_curve)
    _check(_seen)
### BEGIN HIDDEN TESTS
import helpers.training_tasks
from helpers.grading import probe
probe.needs("fit_early_stopping")
CURVES = [([0.9, 0.7, 0.7, 0.72, 0.6, 0.65, 0.66, 0.67], 2, 8),
          ([1.0, 0.9, 0.95, 0.8, 0.85, 0.7, 0.75, 0.76, 0.77], 2, 9),
          ([2.1, 1.2, 0.9, 0.81, 0.8, 0.82, 0.79, 0.83, 0.85, 0.88], 1, 10),
          ([2.1, 1.2, 0.9, 0.81, 0.8, 0.82, 0.79, 0.83, 0.85, 0.88], 3, 10),
          ([3.0, 2.0, 1.0], 2, 3), ([1.0, 1.0, 1.0, 0.5], 3, 4),
          ([2.0, 1.0, 1.5, 1.4, 1.3, 1.2, 0.5], 5, 6), ([1.0, 0.5, 0.9, 0.8, 0.7, 0.6, 0.55], 3, 7)]
for _curve, _patience, _max in CURVES:
    probe.observe(f"fit_early_stopping on {_curve}, patience {_patience}, max_epochs {_max}",
                  lambda: helpers.training_tasks.observe_early_stopping(fit_early_stopping, _curve, _patience, _max))
### JUDGE
import helpers.training_tasks
from helpers.grading.probe import got
CURVES = [([0.9, 0.7, 0.7, 0.72, 0.6, 0.65, 0.66, 0.67], 2, 8),
          ([1.0, 0.9, 0.95, 0.8, 0.85, 0.7, 0.75, 0.76, 0.77], 2, 9),
          ([2.1, 1.2, 0.9, 0.81, 0.8, 0.82, 0.79, 0.83, 0.85, 0.88], 1, 10),
          ([2.1, 1.2, 0.9, 0.81, 0.8, 0.82, 0.79, 0.83, 0.85, 0.88], 3, 10),
          ([3.0, 2.0, 1.0], 2, 3), ([1.0, 1.0, 1.0, 0.5], 3, 4),
          ([2.0, 1.0, 1.5, 1.4, 1.3, 1.2, 0.5], 5, 6), ([1.0, 0.5, 0.9, 0.8, 0.7, 0.6, 0.55], 3, 7)]


def _expected(losses, patience, max_epochs):
    best, at, waited = math.inf, 0, 0
    for e, v in enumerate(losses[:max_epochs], 1):
        if v < best:
            best, at, waited = v, e, 0
        else:
            waited += 1
            if waited == patience:
                return at, e
    return at, max_epochs


def _run(curve, patience, max_epochs):
    return got[f"fit_early_stopping on {curve}, patience {patience}, max_epochs {max_epochs}"]


helpers.training_tasks.check_tie_curve(_run(*CURVES[0]))
helpers.training_tasks.check_reset_curve(_run(*CURVES[1]))
checks.reject(helpers.training_tasks.early_stop_run(_run(*CURVES[-1]))[0], {
    (2, 7): "[mc:early-stop.previous-not-best] After epoch 2's 0.5, each loss fell below the one "
            "before it but none below 0.5, and training never stopped: patience counts epochs "
            "without a new *best*, not epochs that are worse than the previous one.",
}, "fit_early_stopping on a curve that falls slowly after its best")
for _curve, _patience, _max in CURVES:
    _want = _expected(_curve, _patience, _max)
    _mine, _held, _trained = helpers.training_tasks.early_stop_run(_run(_curve, _patience, _max))
    checks.expect_true(_mine == _want, f"[mc:early-stop.rule] On {len(_curve)} losses with "
                       f"patience {_patience} and max_epochs {_max} your answer {_mine} is not "
                       "right: count the epochs since the last strictly lower loss, reset the "
                       "count at every new best, stop when it reaches patience, number epochs "
                       "from 1.")
    checks.expect_true(_held == _want[0] and _trained == _want[1],
                       f"[mc:early-stop.state-dict-alias] After {_want[1]} epochs the model "
                       f"should hold epoch {_want[0]}'s weights; it holds epoch {_held}'s "
                       f"after {_trained} epochs of training.")
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Gradient clipping and non-finite losses
#
# A single bad batch can produce a huge gradient and throw the weights far away.
# `nn.utils.clip_grad_norm_(params, max_norm)` measures the norm of all gradients
# together and, when it exceeds `max_norm`, scales them all down to that norm: the
# direction is kept. It returns the norm **before** clipping, worth logging. It goes
# between `backward` and `step`.

# %%
torch.manual_seed(0)
clipped = nn.Linear(4, 2)
(clipped(torch.randn(8, 4)) * 50).pow(2).mean().backward()
before = torch.cat([p.grad.flatten() for p in clipped.parameters()])
returned = nn.utils.clip_grad_norm_(clipped.parameters(), max_norm=1.0)
after = torch.cat([p.grad.flatten() for p in clipped.parameters()])
print(f"returned norm {returned.item():.2f} (before: {before.norm().item():.2f}), after: {after.norm().item():.4f}")
print("same direction:", torch.allclose(before / before.norm(), after / after.norm()))

# %% [markdown]
# A loss can stop being a finite number: float32 overflows to `inf` above about 3.4e38,
# and `inf − inf` or `0 × inf` is `nan`. `torch.isfinite` is False for both kinds, while
# `torch.isnan` sees only one:

# %%
big = torch.tensor(3e38)
print("largest float32:", torch.finfo(torch.float32).max, "| 3e38 * 10 =", (big * 10).item(),
      "| inf - inf =", (big * 10 - big * 10).item())
special = torch.tensor([1.0, math.inf, -math.inf, math.nan])
print("values:        ", special.tolist())
print("torch.isfinite:", torch.isfinite(special).tolist())
print("torch.isnan:   ", torch.isnan(special).tolist())

# %% [markdown]
# What one step on an infinite loss does to a model, with clipping in place:

# %%
torch.manual_seed(0)
victim = nn.Linear(3, 2)
victim_opt = torch.optim.SGD(victim.parameters(), lr=0.1)
x_probe = torch.ones(1, 3)
inf_loss = victim(x_probe).pow(2).sum() * math.inf
inf_loss.backward()
print("loss:", inf_loss.item(), "| weight.grad:", victim.weight.grad.flatten().tolist())
print("clip_grad_norm_ returned", nn.utils.clip_grad_norm_(victim.parameters(), 1.0).item(),
      "| weight.grad after clipping:", victim.weight.grad.flatten().tolist())
victim_opt.step()
print("weights after the step:", victim.weight.detach().flatten().tolist())
print("the next loss:", victim(x_probe).pow(2).sum().item())

# %% [markdown]
# Clipping cannot repair it (an infinite norm scales every gradient by 0, and
# `inf × 0 = nan`), and after one step every later loss is nan. Test the loss **before**
# `backward`, and stop with a message that says at which step it happened, so the run can
# be traced back to its batch. (`clip_grad_norm_` also takes `error_if_nonfinite=True`,
# which raises after backward has already run.)
#
# A finite loss does not promise finite gradients, though. Backward can overflow where
# the forward pass did not (in float16 especially), or meet a function whose slope is
# infinite at that point, like √x at 0:

# %%
corner = nn.Parameter(torch.tensor([0.0, 4.0]))
root_loss = torch.sqrt(corner).sum()
root_loss.backward()
print("loss:", root_loss.item(), "| finite:", torch.isfinite(root_loss).item(),
      "| gradient:", corner.grad.tolist())

# %% [markdown]
# ### Exercise 5: a guarded step that skips a bad gradient (2 points)
#
# *Misconception targeted: trusting a finite loss to have finite gradients, checking for
# NaN only where the task says "not finite", "skipping" a step by zeroing the gradients
# and stepping anyway, leaving a bad gradient in `.grad`, or back-propagating a loss
# before checking it.*
#
# Long runs often skip one bad batch rather than stop. Write
# `guarded_step(model, loss, optimizer, step, max_norm)`. The caller has already run
# `optimizer.zero_grad()` (every `.grad` is None) and the forward pass.
#
# - If `loss` is not finite, raise `FloatingPointError` with a message containing the
#   step number, before anything else: no backward (every `.grad` stays None), no change
#   to the weights.
# - Otherwise back-propagate. If any gradient is not finite, **skip** the step: leave the
#   weights and the optimizer's state (momentum buffers, Adam's running averages and its
#   step count) exactly as they were, leave every `.grad` None, and return None.
# - Otherwise clip the gradients' total norm to `max_norm`, step, and return the norm
#   before clipping as a Python float.

# %% solution 04_training_loop-guarded-step
### BEGIN SOLUTION
def guarded_step(model, loss, optimizer, step, max_norm):
    if not torch.isfinite(loss):
        raise FloatingPointError(f"non-finite loss {loss.item()} at step {step}")
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    if not torch.isfinite(norm):           # a gradient holds inf or nan
        optimizer.zero_grad()
        return None
    optimizer.step()
    return norm.item()
### END SOLUTION

# %% test 04_training_loop-guarded-step-test points=2
_answered = (guarded_step,)  # a NameError here reads as "not answered yet"
for _scale, _step, _kind in ((math.nan, 17, "NaN"), (math.inf, 3, "+inf")):
    _seen = helpers.training_tasks.observe_refusal(guarded_step, _scale, _step)
    helpers.training_tasks.check_refusal(_seen, _seen["start"], _kind, _step)
torch.manual_seed(5)
_m = nn.Linear(3, 2)
_opt = torch.optim.SGD(_m.parameters(), lr=0.1)
_x = torch.randn(6, 3)
_opt.zero_grad()
_loss = (_m(_x) * 50).pow(2).mean()
_twin = copy.deepcopy(_m)
(_twin(_x) * 50).pow(2).mean().backward()
with checks.explain_errors({}, "guarded_step(...)"):
    _norm = guarded_step(_m, _loss, _opt, 1, 1.0)
helpers.training_tasks.check_clipped(_norm, _m.weight.detach(), _twin.weight.detach() - 0.1 * _twin.weight.grad)
for _bad in ("nan", "inf"):
    with checks.explain_errors({}, "guarded_step(...)"):
        _seen = helpers.training_tasks.observe_skip(
            guarded_step, lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), _bad)
    helpers.training_tasks.check_skip(_seen, _seen["weights before"], _seen["state before"],
                                      "SGD with momentum", _bad)
### BEGIN HIDDEN TESTS
import helpers.training_tasks
from helpers.grading import probe
probe.needs("guarded_step")
for _scale, _step, _kind in ((math.nan, 17, "NaN"), (math.inf, 3, "+inf"), (-math.inf, 42, "-inf")):
    probe.observe(f"guarded_step with a {_kind} loss at step {_step}",
                  lambda: helpers.training_tasks.observe_refusal(guarded_step, _scale, _step))
for _label, _make in (("SGD with momentum", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
                      ("Adam", lambda ps: torch.optim.Adam(ps, lr=0.01))):
    for _bad in ("nan", "inf"):
        probe.observe(f"guarded_step with {_label}, a finite loss and a {_bad} gradient",
                      lambda: helpers.training_tasks.observe_skip(guarded_step, _make, _bad))
probe.observe("guarded_step with Adam, a finite loss and an inf gradient in the bias",
              lambda: helpers.training_tasks.observe_skip(guarded_step, lambda ps: torch.optim.Adam(ps, lr=0.01),
                                                          "inf", where="bias"))
torch.manual_seed(5)
_m = nn.Linear(3, 2)
_opt = torch.optim.SGD(_m.parameters(), lr=0.1)
_x = torch.randn(6, 3)
_opt.zero_grad()
_twin = copy.deepcopy(_m)
(_twin(_x) * 50).pow(2).mean().backward()
probe.value("the weights after an unclipped step", _twin.weight.detach() - 0.1 * _twin.weight.grad)
probe.call("guarded_step on a large finite gradient", guarded_step, _m, (_m(_x) * 50).pow(2).mean(), _opt, 1, 1.0)
probe.value("the weights after guarded_step on a large finite gradient", _m.weight.detach())
### JUDGE
import helpers.training_tasks
from helpers.grading.probe import got, ref
for _kind, _step in (("NaN", 17), ("+inf", 3), ("-inf", 42)):
    _key = f"guarded_step with a {_kind} loss at step {_step}"
    helpers.training_tasks.check_refusal(got[_key], ref[_key]["start"], _kind, _step)
for _label in ("SGD with momentum", "Adam"):
    for _bad in ("nan", "inf"):
        _key = f"guarded_step with {_label}, a finite loss and a {_bad} gradient"
        helpers.training_tasks.check_skip(got[_key], ref[_key]["weights before"], ref[_key]["state before"],
                                          _label, _bad)
_seen = got["guarded_step with Adam, a finite loss and an inf gradient in the bias"]
checks.expect_true(all(torch.isfinite(v).all() for v in _seen["weights"].values()),
                   "[mc:nan.first-param-only] With Adam and an inf gradient in the bias, the last "
                   "parameter, the step ran and the bias is no longer finite: check every "
                   "parameter's gradient, not only the first one's.")
checks.expect_true(_seen["returned"] is None, "[mc:nan.first-param-only] With an inf gradient in "
                   "the bias, the last parameter, the step must be skipped (None): check every "
                   f"parameter's gradient; guarded_step returned {_seen['returned']!r}.")
_norm = got["guarded_step on a large finite gradient"]
_weights = got["the weights after guarded_step on a large finite gradient"]
helpers.training_tasks.check_clipped(_norm, _weights, ref["the weights after an unclipped step"])
checks.expect_close(_norm, ref["guarded_step on a large finite gradient"], "the returned norm", rtol=1e-4,
                    hint="[mc:clip.norm-after-clipping] The total norm before clipping.")
checks.expect_close(_weights, ref["the weights after guarded_step on a large finite gradient"],
                    "the weights after the step", rtol=1e-4, atol=1e-5,
                    hint="[mc:clip.not-applied] One step with the clipped gradient.")
### END HIDDEN TESTS

# %% [markdown]
# ## 9. Checkpoint and resume
#
# A checkpoint holds everything the next step depends on: the model's `state_dict`, the
# **optimizer's** `state_dict` (Adam's running averages, momentum buffers, the step
# count), and where you are (the epoch). Save it with `torch.save` and read it back with
# `torch.load(..., weights_only=True)`, which refuses to run code hidden in a file
# (it only unpickles tensors, numbers and containers, never an arbitrary object whose
# loading could run code). A loop with no randomness in it then resumes with the same
# losses as an uninterrupted run:

# %%
def fresh():
    torch.manual_seed(7)
    m = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    return m, torch.optim.Adam(m.parameters(), lr=1e-2)


def steps(m, opt, batches):
    out = []
    for b in batches:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(m(X_train[b]), y_train[b])
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


batches = [torch.arange(i, i + 64) for i in range(0, 6 * 64, 64)]
checkpoint_dir = tempfile.TemporaryDirectory()  # deleted when the kernel stops
ckpt_path = os.path.join(checkpoint_dir.name, "demo.pt")
m, opt = fresh()
steps(m, opt, batches[:3])
torch.save({"model": m.state_dict(), "optimizer": opt.state_dict(), "epoch": 1}, ckpt_path)
uninterrupted = steps(m, opt, batches[3:])

m2, opt2 = fresh()                                  # a new process would start like this
ckpt = torch.load(ckpt_path, weights_only=True)
m2.load_state_dict(ckpt["model"])
opt2.load_state_dict(ckpt["optimizer"])
resumed = steps(m2, opt2, batches[3:])
print("uninterrupted:", uninterrupted)
print("resumed:      ", resumed)
print("exactly equal:", uninterrupted == resumed)

m3, opt3 = fresh()
m3.load_state_dict(ckpt["model"])                   # the optimizer's state forgotten
print("model only:   ", steps(m3, opt3, batches[3:]))

# %% [markdown]
# ### What "exactly" requires
#
# Those losses match to the last bit because nothing in that loop is random and this page
# runs deterministic algorithms on one thread. In general a resumed run repeats the
# uninterrupted one exactly only when
#
# 1. **every state the next step reads is restored**: the model's, the optimizer's and the
#    scheduler's `state_dict`, and the position (epoch, step);
# 2. **every random generator the loop draws from is restored**: the global CPU generator
#    (`torch.get_rng_state()` / `set_rng_state()`: dropout, `torch.randn`, a `DataLoader`
#    without a generator of its own), each `torch.Generator` you made (`get_state()` /
#    `set_state()`, e.g. a `DataLoader(..., generator=g)`'s), the CUDA generators on a GPU,
#    and Python's or NumPy's if the loop uses them;
# 3. **the same computation runs**: deterministic algorithms, the same threads, device and
#    library versions, so that every sum is added up in the same order.
#
# Between two epochs is the simple case: a shuffling `DataLoader` draws each epoch's order
# when the epoch starts (mid-epoch, you would also skip the batches already used). A loop
# with dropout, shuffled by a `DataLoader`, resumed after epoch 1 with more and more state:

# %%
shuffled = TensorDataset(X_train[:256], y_train[:256])


def dropout_run():
    torch.manual_seed(7)
    m = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 10))
    g = torch.Generator().manual_seed(1)
    loader = DataLoader(shuffled, batch_size=64, shuffle=True, generator=g)
    return m, torch.optim.Adam(m.parameters(), lr=1e-2), g, loader


def loader_epoch(m, opt, loader, scheduler=None):
    out = []
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(m(xb), yb)
        loss.backward()
        opt.step()
        if scheduler is not None:
            scheduler.step()
        out.append(loss.item())
    return out


m, opt, g, loader = dropout_run()
loader_epoch(m, opt, loader)
resume_path = os.path.join(checkpoint_dir.name, "dropout.pt")
torch.save({"model": m.state_dict(), "optimizer": opt.state_dict(),
            "loader_generator": g.get_state(), "global_rng": torch.get_rng_state()}, resume_path)
uninterrupted = loader_epoch(m, opt, loader)
for restored in (("model", "optimizer"), ("model", "optimizer", "loader_generator"),
                 ("model", "optimizer", "loader_generator", "global_rng")):
    m2, opt2, g2, loader2 = dropout_run()
    torch.manual_seed(1234)                         # a new process's generator is elsewhere
    saved = torch.load(resume_path, weights_only=True)
    m2.load_state_dict(saved["model"])
    opt2.load_state_dict(saved["optimizer"])
    if "loader_generator" in restored:
        g2.set_state(saved["loader_generator"])
    if "global_rng" in restored:
        torch.set_rng_state(saved["global_rng"])
    print(f"restored {' + '.join(restored):45s} exactly equal: "
          f"{loader_epoch(m2, opt2, loader2) == uninterrupted}")

# %% [markdown]
# ### Exercise 6: which piece went stale? (3 points)
#
# *Misconception targeted: blaming the piece whose divergence looks loudest, or reading a
# stale checkpoint's keys instead of measuring what restoring it does.*
#
# A colleague's run (`make_run()` below: dropout, a shuffling `DataLoader` with its own
# generator, Adam, a `OneCycleLR`; `loader_epoch` trains one epoch) saved a checkpoint after
# epoch 1 with all five pieces, `"model"`, `"optimizer"`, `"scheduler"`, `"loader_generator"`
# and `"global_rng"`, yet the resumed epoch 2 differs from the uninterrupted one: one piece
# was saved at the start of the run. Write `stale_piece(checkpoint, make_run, uninterrupted)`
# returning `(piece, step)`: the stale piece's name, and the first step of epoch 2 (from 1)
# whose loss differs from `uninterrupted` when a fresh `make_run()` restores everything the
# checkpoint holds and trains one epoch. `make_run()` seeds torch: a fresh run starts every
# piece where the colleague's started. `mystery` below is such a checkpoint, with
# `mystery_epoch_2`, to measure on.

# %%
def make_run():
    torch.manual_seed(3)
    m = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 10))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=8, cycle_momentum=False)
    g = torch.Generator().manual_seed(5)
    return m, opt, sched, g, DataLoader(TensorDataset(X_train[:256], y_train[:256]), batch_size=64,
                                        shuffle=True, generator=g)


def pieces(m, opt, sched, g):
    """The five pieces of state, copied as a checkpoint would hold them."""
    return copy.deepcopy({"model": m.state_dict(), "optimizer": opt.state_dict(),
                          "scheduler": sched.state_dict(), "loader_generator": g.get_state(),
                          "global_rng": torch.get_rng_state()})


m, opt, sched, g, loader = make_run()
at_start = pieces(m, opt, sched, g)
loader_epoch(m, opt, loader, sched)
mystery = {**pieces(m, opt, sched, g), "scheduler": at_start["scheduler"]}  # (don't peek)
mystery_epoch_2 = loader_epoch(m, opt, loader, sched)

# %% solution 04_training_loop-stale-piece
### BEGIN SOLUTION
def stale_piece(checkpoint, make_run, uninterrupted):
    def resumed(skip=None):
        """Epoch 2's losses after restoring every piece of the checkpoint but `skip`."""
        m, opt, sched, g, loader = make_run()
        for name, put in (("model", m.load_state_dict), ("optimizer", opt.load_state_dict),
                          ("scheduler", sched.load_state_dict), ("loader_generator", g.set_state),
                          ("global_rng", torch.set_rng_state)):
            if name != skip:
                put(copy.deepcopy(checkpoint[name]))
        return loader_epoch(m, opt, loader, sched)

    everything = resumed()
    # a fresh run starts each piece where the stale one was saved: leaving that piece
    # unrestored changes nothing, leaving any other out changes the losses
    stale = next(name for name in ("model", "optimizer", "scheduler", "loader_generator", "global_rng")
                 if resumed(skip=name) == everything)
    step = next(k for k, (a, b) in enumerate(zip(everything, uninterrupted), 1) if a != b)
    return stale, step
### END SOLUTION

# %% test 04_training_loop-stale-piece-test points=3
_answered = (stale_piece,)  # a NameError here reads as "not answered yet"
_m, _opt, _sched, _g, _loader = make_run()
_start = pieces(_m, _opt, _sched, _g)
loader_epoch(_m, _opt, _loader, _sched)
_stale_rng = {**pieces(_m, _opt, _sched, _g), "global_rng": _start["global_rng"]}
with checks.explain_errors({}, "stale_piece(a checkpoint, make_run, epoch 2's losses)"):
    _found = stale_piece(_stale_rng, make_run, loader_epoch(_m, _opt, _loader, _sched))
checks.expect_true(isinstance(_found, tuple) and len(_found) == 2 and type(_found[1]) is int,
                   "[mc:stale.return-pair] Return a pair: the stale piece's name and the first "
                   "step that differs, an int.")
checks.expect_true(_found[1] != 0, "[mc:stale.step-from-zero] Count the steps of epoch 2 from 1: "
                   "the first step is 1.")
checks.expect_true(_found[0] == "global_rng", f"[mc:stale.loudest] For a checkpoint built here "
                   f"you named {_found[0]!r}, and that is not the stale piece: measure it. Restore "
                   "everything but one piece at a time; the stale piece is the one whose absence "
                   "changes nothing.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("stale_piece")


def _case(stale):
    """A checkpoint after epoch 1 whose `stale` piece was saved at the run's start, and the
    uninterrupted epoch 2's losses."""
    m, opt, sched, g, loader = make_run()
    start = pieces(m, opt, sched, g)
    loader_epoch(m, opt, loader, sched)
    checkpoint = {**pieces(m, opt, sched, g), stale: start[stale]}
    return checkpoint, loader_epoch(m, opt, loader, sched)


for _stale in ("model", "optimizer", "scheduler", "loader_generator", "global_rng"):
    _checkpoint, _epoch_2 = _case(_stale)
    probe.call(f"stale_piece(a checkpoint whose {_stale} is stale)", stale_piece, _checkpoint, make_run,
               _epoch_2)
### JUDGE
from helpers.grading.probe import got, ref
_advice = ("measure it: restore everything the checkpoint holds but one piece at a time (a fresh "
           "make_run() leaves that piece where the run started), and the stale piece is the one "
           "whose absence changes nothing.")
for _stale in ("model", "optimizer", "scheduler", "loader_generator", "global_rng"):
    _key = f"stale_piece(a checkpoint whose {_stale} is stale)"
    _found, _want = got[_key], ref[_key]
    checks.expect_true(isinstance(_found, (tuple, list)) and len(_found) == 2 and type(_found[1]) is int,
                       "[mc:stale.return-pair] Return a pair: the stale piece's name and the first "
                       "step that differs, an int.")
    checks.expect_true(_found[0] == _stale, f"[mc:stale.loudest] With a stale {_stale} you named "
                       f"{_found[0]!r}. Several pieces make epoch 2 diverge, some at the first step, "
                       "some at the second, so the divergence alone does not name the piece; "
                       + _advice)
    checks.expect_true(_found[1] != _want[1] - 1, f"[mc:stale.step-from-zero] With a stale {_stale}, "
                       f"you answered step {_found[1]}: count the steps of epoch 2 from 1.")
    checks.expect_true(_found[1] == _want[1], f"[mc:stale.first-step] With a stale {_stale}, the "
                       f"first differing step is not {_found[1]!r}: compare the resumed losses with "
                       "the uninterrupted ones step by step and return the first step where they "
                       "differ.")
### END HIDDEN TESTS

# %% [markdown]
# ## 10. Debugging moves and memory savers
#
# ### Overfit one batch
#
# Before a long run, train on a single small batch for a few hundred steps. A correct
# model and loop drive its loss close to 0; if they cannot, there is a bug (wrong loss,
# frozen layers, labels that do not match the inputs), and it shows in a second rather
# than after an hour.

# %%
one_x, one_y = X_train[:32], y_train[:32]
for name, tail in [("correct", []), ("with a softmax at the end", [nn.Softmax(dim=1)])]:
    torch.manual_seed(0)
    probe = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10), *tail)
    probe_opt = torch.optim.Adam(probe.parameters(), lr=1e-2)
    for _ in range(200):
        probe_opt.zero_grad()
        probe_loss = nn.functional.cross_entropy(probe(one_x), one_y)
        probe_loss.backward()
        probe_opt.step()
    print(f"{name:26s}: loss on the batch after 200 steps {probe_loss.item():.4f}")

# %% [markdown]
# ### Exercise 7: a learning-rate range test (3 points)
#
# *Misconception targeted: recording the loss after the step, a "saved" state_dict that
# follows the model, a stop rule that a nan loss slips through, or one measured against
# the first loss instead of the lowest.*
#
# Which peak rate should a run use? A **range test** (Leslie Smith's; fast.ai's `lr_find`)
# takes one SGD step per batch, each at a larger rate, and records the losses: they fall
# slowly, then fast, then explode, and a good peak rate lies below the explosion. Write
# `lr_range_test(model, loss_fn, X, y, batch_size, lrs)`:
#
# - step k (k = 0, 1, …) uses rows k·batch_size to (k + 1)·batch_size of X and y (there are
#   at least `len(lrs)` such batches) and plain SGD at rate `lrs[k]`, in training mode;
# - it records that batch's loss, computed before the step, as a Python float;
# - it stops after recording a loss that is not finite or is more than 4 times the lowest
#   loss recorded so far;
# - it returns the list of `(lr, loss)` pairs recorded, and leaves the model with the
#   weights, and each submodule with the mode, it had before the call.

# %% solution 04_training_loop-lr-range
### BEGIN SOLUTION
def lr_range_test(model, loss_fn, X, y, batch_size, lrs):
    start = copy.deepcopy(model.state_dict())  # a copy: state_dict() follows the weights
    modes = [m.training for m in model.modules()]
    model.train()
    recorded, lowest = [], math.inf
    for k, lr in enumerate(lrs):
        xb, yb = X[k * batch_size:(k + 1) * batch_size], y[k * batch_size:(k + 1) * batch_size]
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        recorded.append((lr, loss.item()))
        lowest = min(lowest, loss.item())
        if not math.isfinite(loss.item()) or loss.item() > 4 * lowest:
            break
    model.load_state_dict(start)
    for m, mode in zip(model.modules(), modes):
        m.training = mode
    return recorded
### END SOLUTION

# %% test 04_training_loop-lr-range-test points=3
_answered = (lr_range_test,)  # a NameError here reads as "not answered yet"
torch.manual_seed(0)
_net = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 10))
_start, _lrs = copy.deepcopy(_net.state_dict()), [1e-3 * 2 ** k for k in range(20)]
with checks.explain_errors({}, "lr_range_test(model, loss_fn, X_train, y_train, 32, lrs)"):
    _pairs = lr_range_test(_net, nn.CrossEntropyLoss(), X_train, y_train, 32, _lrs)
checks.expect_true(isinstance(_pairs, list) and all(isinstance(v, float) for _, v in _pairs),
                   "[mc:lrfind.tensor-losses] Return a list of (lr, loss) pairs, each loss a Python "
                   "float (loss.item()).")
checks.expect_true(all(torch.equal(v, _net.state_dict()[k]) for k, v in _start.items()),
                   "[mc:lrfind.state-dict-alias] The model kept the weights the test trained: save "
                   "copy.deepcopy(model.state_dict()) first (a bare state_dict() follows the "
                   "weights as they change) and load it back at the end.")
checks.expect_true(len(_pairs) < len(_lrs), "[mc:lrfind.no-stop] All 20 rates ran, up to "
                   f"{_lrs[-1]:.0f}: stop after a loss that is not finite or above 4 × the lowest.")
### BEGIN HIDDEN TESTS
import helpers.loss_curves
import helpers.modes
from helpers.grading import probe
probe.needs("lr_range_test")


def _range_run(model, lrs, batch_size=32):
    """lr_range_test on the digits: the pairs, and whether the weights and modes came back."""
    X, y = helpers.loss_curves.digits(seed=1)[:2]
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    modes = helpers.modes.modes(model)
    pairs = lr_range_test(model, nn.CrossEntropyLoss(), X, y, batch_size, lrs)
    return {"pairs": pairs, "weights back": all(torch.equal(v, model.state_dict()[k])
                                                 for k, v in weights.items()),
            "modes after": helpers.modes.modes(model) == modes}


def _known_wrong(lrs, after_step=False, zero_grad=True):
    """The losses a range test records if it reads the loss after the step, or never clears
    .grad (for the judge's messages; read from the reference run)."""
    X, y = helpers.loss_curves.digits(seed=1)[:2]
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    out = []
    for k, lr in enumerate(lrs):
        xb, yb = X[k * 32:(k + 1) * 32], y[k * 32:(k + 1) * 32]
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        if zero_grad:
            opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        out.append(F.cross_entropy(model(xb), yb).item() if after_step else loss.item())
    return out


_rates = [1e-3 * 2 ** k for k in range(20)]
torch.manual_seed(0)
probe.call("lr_range_test(MLP, digits, rates 0.001 × 2^k)", _range_run,
           nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)), _rates)
torch.manual_seed(0)
_dropped = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 10))
_dropped.eval()  # an evaluated model: the test trains it in train() and gives eval() back
probe.call("lr_range_test(MLP with dropout, in eval mode)", _range_run, _dropped, _rates[:6])
torch.manual_seed(0)
torch.manual_seed(0)
probe.call("lr_range_test(MLP, 25 steps at 1.0, then 1.5 to 4.0)", _range_run,
           nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)),
           [1.0] * 25 + [1.5, 2.0, 2.5, 3.0, 3.5, 4.0])  # the loss falls a lot, then rises
_jump = [0.01, 0.02, 1e30, 0.01, 0.01, 0.01]  # after the third step the loss is nan
probe.call("lr_range_test(MLP, a rate of 1e30 on the way)", _range_run,
           nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)), _jump)
probe.value("known wrong: losses after the step", _known_wrong(_rates[:8], after_step=True))
probe.value("known wrong: losses without zero_grad", _known_wrong(_rates[:8], zero_grad=False))
### JUDGE
from helpers.grading.probe import got, ref


def _stop(losses, limit):
    """How many losses a range test records under a stop rule: limit(k, losses) -> bool."""
    for k in range(len(losses)):
        if limit(k, losses):
            return k + 1
    return len(losses)


def _rule(k, losses):  # the task's: not finite, or above 4 × the lowest so far
    return not math.isfinite(losses[k]) or losses[k] > 4 * min(losses[:k + 1])


for _key in ("lr_range_test(MLP, digits, rates 0.001 × 2^k)", "lr_range_test(MLP with dropout, in eval mode)",
             "lr_range_test(MLP, 25 steps at 1.0, then 1.5 to 4.0)", "lr_range_test(MLP, a rate of 1e30 on the way)"):
    _out, _want = got[_key], ref[_key]
    _pairs = _out["pairs"]
    checks.expect_true(isinstance(_pairs, list) and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and type(p[1]) is float for p in _pairs),
                       "[mc:lrfind.tensor-losses] Return a list of (lr, loss) pairs, each loss a "
                       "Python float (loss.item()).")
    checks.expect_true(_out["weights back"], "[mc:lrfind.state-dict-alias] The model kept the "
                       "weights the test trained: save copy.deepcopy(model.state_dict()) first (a "
                       "bare state_dict() follows the weights as they change) and load it back at "
                       "the end.")
    checks.expect_true(_out["modes after"], "[mc:lrfind.mode-not-restored] A submodule's mode "
                       "changed: the test runs in train(); give each submodule its own mode back.")
    _losses = [v for _, v in _pairs]
    if _key.startswith("lr_range_test(MLP, digits") and len(_losses) >= 8:
        checks.reject_close(torch.tensor(_losses[:8]), {
            torch.tensor(ref["known wrong: losses after the step"]):
                "[mc:lrfind.loss-after-step] These are the losses after each step: record the "
                "batch's loss computed before optimizer.step(), the one backward ran on.",
            torch.tensor(ref["known wrong: losses without zero_grad"]):
                "[mc:lrfind.no-zero-grad] Each step used the sum of all earlier gradients: clear "
                ".grad (zero_grad) before every backward."}, "the first eight losses")
    _due = _stop(_losses, _rule)  # where the task's rule stops on these very losses
    if len(_losses) > _due:
        checks.expect_true(math.isfinite(_losses[_due - 1]), f"[mc:lrfind.nan-not-stopped] In "
                           f"{_key}, the test went on after a loss of {_losses[_due - 1]}: nan is "
                           "not above 4 × anything (every comparison with nan is False), so test "
                           "for a finite loss (math.isfinite).")
        checks.expect_true(len(_losses) != _stop(_losses, lambda k, v: not math.isfinite(v[k])
                                                  or v[k] > 4 * v[0]),
                           f"[mc:lrfind.first-not-lowest] In {_key}, the test stopped only when a "
                           "loss passed 4 × the first loss: the limit is 4 × the lowest loss "
                           "recorded so far.")
    checks.expect_true(len(_losses) == _due, f"[mc:lrfind.no-stop] In {_key}, the test recorded "
                       f"{len(_losses)} rates; on these losses it should stop after {_due}: right "
                       "after recording a loss that is not finite or above 4 × the lowest so far.")
    checks.expect_close(torch.tensor(_losses), torch.tensor([v for _, v in _want["pairs"]]),
                        f"the losses of {_key}", rtol=1e-4, atol=1e-6,
                        hint="[mc:lrfind.loss-after-step] Step k: rows k·batch_size to "
                             "(k + 1)·batch_size, plain SGD at lrs[k], the loss before the step.")
### END HIDDEN TESTS

# %% [markdown]
# ### Gradient accumulation
#
# When a batch of B rows does not fit in memory, split it into micro-batches, call
# `backward` on each (gradients **add up** in `.grad`) and step once. With a mean loss,
# weight each micro-batch's loss by its share of the rows, len(micro) / B, and the sum
# is the large-batch gradient:

# %%
torch.manual_seed(0)
acc_model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
big_x, big_y = X_train[:256], y_train[:256]
nn.functional.cross_entropy(acc_model(big_x), big_y).backward()
full_grad = [p.grad.clone() for p in acc_model.parameters()]
acc_model.zero_grad()
for i in range(0, 256, 64):
    part = nn.functional.cross_entropy(acc_model(big_x[i:i + 64]), big_y[i:i + 64])
    (part * 64 / 256).backward()
diff = max((p.grad - f).abs().max().item() for p, f in zip(acc_model.parameters(), full_grad))
print(f"largest difference between accumulated and large-batch gradients: {diff:.2e}")
print("equal within float32 rounding:",
      all(torch.allclose(p.grad, f, atol=1e-6) for p, f in zip(acc_model.parameters(), full_grad)))

# %% [markdown]
# ### Exercise 8: one step from accumulated gradients, some rows unlabelled (3 points)
#
# *Misconception targeted: weighting each chunk by the wrong share, letting a chunk's nan
# into the gradient, or stepping after every chunk.*
#
# Write `accumulate_step(model, loss_fn, optimizer, X, y, micro_batch)` that makes
# **one** optimizer step whose gradient equals the gradient of `loss_fn(model(X), y)`,
# computed chunk by chunk: chunks of `micro_batch` rows (the last may be smaller), at
# most one backward per chunk. `loss_fn` is an `nn.CrossEntropyLoss()`, and some targets
# are -100 (rows without a label, section 3); a chunk may have no labelled row at all.
# `.grad` may hold something stale when it is called. Return the large-batch loss,
# `loss_fn(model(X), y)`, as a Python float.

# %% solution 04_training_loop-accumulate
### BEGIN SOLUTION
def accumulate_step(model, loss_fn, optimizer, X, y, micro_batch):
    optimizer.zero_grad()
    labelled = (y != loss_fn.ignore_index).sum().item()
    total = 0.0
    for start in range(0, len(X), micro_batch):
        xb, yb = X[start:start + micro_batch], y[start:start + micro_batch]
        count = (yb != loss_fn.ignore_index).sum().item()
        if count == 0:
            continue
        part = loss_fn(model(xb), yb) * count / labelled
        part.backward()
        total += part.item()
    optimizer.step()
    return total
### END SOLUTION

# %% test 04_training_loop-accumulate-test points=3
_answered = (accumulate_step,)  # a NameError here reads as "not answered yet"
# 10 rows in chunks of 4: rows 1 and 4-7 unlabelled, so the chunks hold 3, 0 and 2 labels
with checks.explain_errors({}, "accumulate_step(model, loss_fn, optimizer, X, y, 4)"):
    _seen = helpers.training_tasks.observe_accumulation(accumulate_step, 8, 10, [1, 4, 5, 6, 7], 4)
_full, _, _means = helpers.training_tasks.large_batch(8, 10, [1, 4, 5, 6, 7], 4)
helpers.training_tasks.check_accumulation(helpers.training_tasks.check_steps(_seen["gradients each step used"]),
                                          _seen["returned"], _full, _means)
### BEGIN HIDDEN TESTS
import helpers.training_tasks
from helpers.grading import probe
probe.needs("accumulate_step")
CASES = ((8, 10, [1, 4, 5, 6, 7], 4), (9, 7, [], 3), (10, 9, [0, 1, 2, 8], 3), (11, 6, [5], 10))
for _case in CASES:
    probe.observe(f"accumulate_step on {_case[1]} rows in chunks of {_case[3]}, rows {_case[2] or 'none'} unlabelled",
                  lambda: helpers.training_tasks.observe_accumulation(accumulate_step, *_case))
### JUDGE
import helpers.training_tasks
from helpers.grading.probe import got
CASES = ((8, 10, [1, 4, 5, 6, 7], 4), (9, 7, [], 3), (10, 9, [0, 1, 2, 8], 3), (11, 6, [5], 10))


def _observed(case):
    seen = got[f"accumulate_step on {case[1]} rows in chunks of {case[3]}, rows {case[2] or 'none'} unlabelled"]
    return helpers.training_tasks.check_steps(seen["gradients each step used"]), seen["returned"]


_used, _ret = _observed(CASES[0])
_full, _, _means = helpers.training_tasks.large_batch(*CASES[0])
helpers.training_tasks.check_accumulation(_used, _ret, _full, _means)
for _case in CASES:
    _used, _ret = _observed(_case)
    _full, _full_loss, _ = helpers.training_tasks.large_batch(*_case)
    _what = f"on {_case[1]} rows in chunks of {_case[3]}, rows {_case[2] or 'none'} unlabelled"
    for _g, _want, _name in zip(_used, _full, ("weight", "bias")):
        checks.expect_close(_g, _want, f"the {_name} gradient used by the step {_what}",
                            rtol=1e-4, atol=1e-6,
                            hint="[mc:accumulation.rows-not-labels] The step should use the "
                                 "large-batch gradient: one mean over the labelled rows of X.")
    checks.expect_true(isinstance(_ret, float) and math.isclose(_ret, _full_loss, rel_tol=1e-4),
                       f"[mc:accumulation.rows-not-labels] The returned loss {_what} should be "
                       f"the large-batch loss as a Python float, {_full_loss:.5f}; got {_ret!r}.")
### END HIDDEN TESTS

# %% [markdown]
# ### Data parallel: one model, two processes
#
# Data parallelism runs a copy of the model in each of N processes (one per GPU, on a
# cluster). A `DistributedSampler` (05) gives each its share of every epoch's shuffle; each
# computes the gradients of its share, and the processes **all-reduce** them: every one
# ends with their mean and takes the same step. `DistributedDataParallel` (DDP) starts the
# all-reduce during `backward`. Below, two CPU processes (gloo backend, started by
# `helpers.data_parallel`; `torchrun` on a cluster) train on 512 digits, 32 rows each per
# step, beside one process training on each step's 64 rows. Each process runs this:

# %%
import inspect

import helpers.data_parallel

print(inspect.getsource(helpers.data_parallel._train))

# %%
ddp_runs = helpers.data_parallel.run_ranks(X_train[:512], y_train[:512], batch_size=32,
                                           variants=((1, False), (2, False), (2, True)))
together, together_weights = helpers.data_parallel.single_process(X_train[:512], y_train[:512], batch_size=32)
plain = ddp_runs[0]
print("step   process 0's loss   process 1's loss   their mean (all-reduced)   one process, 64 rows")
for k in range(4):
    print(f"{k + 1:4d} {plain[0].local_losses[k]:18.6f} {plain[1].local_losses[k]:18.6f} "
          f"{plain[0].global_losses[k]:26.6f} {together[k]:22.6f}")
print(f"all {len(together)} steps: largest loss difference "
      f"{max(abs(a - b) for a, b in zip(plain[0].global_losses, together)):.1e}, largest weight "
      f"difference {helpers.data_parallel.largest_difference(plain[0].weights, together_weights):.1e}"
      f"; process 0's and 1's weights equal: "
      f"{helpers.data_parallel.largest_difference(plain[0].weights, plain[1].weights) == 0}")

# %% [markdown]
# The mean of the two processes' losses is the 64-row loss, and the weights agree to float32
# rounding. With gradient accumulation (two micro-batches of 16 per process per step), DDP
# all-reduces after every `backward`; inside `with model.no_sync():` forward and backward
# only add to the local `.grad`, and the next backward outside it all-reduces the sum: the
# same step, fewer all-reduces (counted by a hook on DDP's communication):

# %%
for label, run in (("accumulating, every backward all-reduced", ddp_runs[1]),
                   ("accumulating, no_sync on the first one", ddp_runs[2])):
    print(f"{label}: all-reduces per step {sorted(set(run[0].allreduces_per_step))}, largest "
          f"weight difference from one process "
          f"{helpers.data_parallel.largest_difference(run[0].weights, together_weights):.1e}")

# %% [markdown]
# ### Mixed precision with torch.autocast
#
# Inside `torch.autocast(device_type, dtype)`, operations that tolerate low precision
# (matrix multiplications, `Linear`) run in that dtype, and precision-sensitive ones
# stay in float32. On a CPU autocast's default low-precision type is bfloat16: it keeps
# float32's range (8 exponent bits) with fewer mantissa bits. The older
# `torch.cuda.amp.autocast()` is deprecated; write `torch.autocast("cuda")` on a GPU.

# %%
model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    low = model(X_test)
    low_loss = nn.functional.cross_entropy(low, y_test)
with torch.no_grad():
    full = model(X_test)
print("logits dtype under autocast:", low.dtype, "| loss dtype:", low_loss.dtype)
print(f"test accuracy bfloat16 {(low.argmax(1) == y_test).float().mean().item():.1%} vs float32 "
      f"{(full.argmax(1) == y_test).float().mean().item():.1%}; largest logit difference "
      f"{(low.float() - full).abs().max().item():.3f}")

# %% [markdown]
# In training, only the forward pass and the loss go inside `autocast`; `backward` and
# `step` stay outside, and the parameters and their gradients stay float32:

# %%
model.train()
optimizer.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    amp_loss = loss_fn(model(X_train[:64]), y_train[:64])
amp_loss.backward()
optimizer.step()
print("loss", amp_loss.dtype, "| weight", model[0].weight.dtype, "| grad", model[0].weight.grad.dtype)

# %% [markdown]
# ### float16 and GradScaler
#
# On CUDA GPUs, autocast is often run with `dtype=torch.float16` (older GPUs have no fast
# bfloat16). float16 has only 5 exponent bits: its smallest positive value is 2⁻²⁴
# (about 6e-8), and anything much smaller rounds to 0. Small gradients then vanish
# (**underflow**). Multiplying the loss by a large factor before `backward` scales every
# gradient by the same factor, into float16's range; dividing them back before the step
# gives the true gradient:

# %%
tiny = torch.tensor([1e-4, 1e-6, 1e-8])
print("as float16:               ", tiny.half().tolist())
print("× 2¹⁶ as float16, ÷ 2¹⁶:  ", ((tiny * 2 ** 16).half().float() / 2 ** 16).tolist())
print("2⁻²⁴ and 2⁻²⁶ as float16: ", torch.tensor([2.0 ** -24, 2.0 ** -26]).half().tolist())
print("smallest normal number:    ", {str(t).removeprefix("torch."): torch.finfo(t).tiny
                                      for t in (torch.float16, torch.bfloat16, torch.float32)})

# %% [markdown]
# `torch.amp.GradScaler` does the multiplying and dividing, and chooses the factor itself:
# `scaler.scale(loss).backward()` back-propagates the scaled loss; `scaler.step(optimizer)`
# unscales the gradients and steps, unless they hold inf or nan (the factor was too
# large), in which case it **skips** the step; `scaler.update()` then multiplies the factor
# by its backoff factor after a skipped step and by its growth factor after a run of good
# ones (the cell prints all three). Its mechanics, on two numbers:

# %%
p = nn.Parameter(torch.tensor([1.0, 2.0]))
scaled_opt = torch.optim.SGD([p], lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)
for label, make_loss in [("finite loss", lambda: (3 * p).sum()),
                         ("infinite loss", lambda: (p * math.inf).sum())]:
    scaled_opt.zero_grad()
    scaler.scale(make_loss()).backward()
    grad_seen = p.grad.tolist()
    scaler.step(scaled_opt)
    scaler.update()
    print(f"{label:13s}: .grad after backward {grad_seen}, p after step "
          f"{[round(v, 4) for v in p.tolist()]}, scale now {scaler.get_scale():.0f}")
print(f"backoff factor {scaler.get_backoff_factor()}, growth factor {scaler.get_growth_factor()} "
      f"after {scaler.get_growth_interval()} good steps in a row")

# %% [markdown]
# This PyTorch runs float16 autocast on the CPU too, so the underflow and its rescue run
# here. Late in training a loss and its gradients are small: below, the digits MLP's loss
# times 10⁻⁶, and the first layer's weight gradient after backward (unscaled by the scaler):

# %%
def first_layer_grad(scaled, dtype=torch.float16):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", enabled=scaled)
    with torch.autocast("cpu", dtype=dtype, enabled=dtype != torch.float32):
        small = nn.functional.cross_entropy(net(X_train[:64]), y_train[:64]) * 1e-6
    scaler.scale(small).backward()
    scaler.unscale_(opt)  # what step() would do first
    return net[0].weight.grad


exact = first_layer_grad(scaled=False, dtype=torch.float32)
for label, grad in (("float32", exact), ("float16, no scaler", first_layer_grad(scaled=False)),
                    ("float16 with GradScaler", first_layer_grad(scaled=True))):
    print(f"{label:24s} zero entries {(grad == 0).float().mean().item():6.1%}, largest difference "
          f"from float32 {(grad - exact).abs().max().item():.2e} (largest entry {exact.abs().max().item():.2e})")

# %% [markdown]
# Without the scaler every entry of the gradient rounded to 0 in float16's backward pass
# (float32's own zeros come from pixels that are 0 in this batch and units that do not
# fire); with it the gradient comes back, close to float32's, the difference being float16's
# rounding in the forward and backward passes. A loop with both, one epoch:

# %%
torch.manual_seed(0)
amp_model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
amp_opt = torch.optim.Adam(amp_model.parameters(), lr=1e-2)
amp_scaler = torch.amp.GradScaler("cpu")  # on a GPU: "cuda", and the same lines
for i in range(0, len(X_train), 64):
    amp_opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        amp_loss = nn.functional.cross_entropy(amp_model(X_train[i:i + 64]), y_train[i:i + 64])
    amp_scaler.scale(amp_loss).backward()
    amp_scaler.step(amp_opt)
    amp_scaler.update()
print(f"last loss {amp_loss.item():.3f} ({amp_loss.dtype}), weights {amp_model[0].weight.dtype}, "
      f"scale now {amp_scaler.get_scale():.0f}, test accuracy "
      f"{helpers.loss_curves.evaluate(amp_model, X_test, y_test)[1]:.1%}")

# %% [markdown]
# bfloat16 has float32's 8 exponent bits and so its range (the smallest normal numbers
# printed above): a scaler would have nothing to rescue, and bfloat16 runs without one.
#
# %% [markdown]
# ## 11. Exercise 9: the bug hunt (5 points)
#
# *Misconceptions targeted: layers in a Python list, softmax before `CrossEntropyLoss`,
# float targets, a missing `zero_grad`, `F.dropout` that ignores `eval()`, and evaluation
# without `eval()`, without `no_grad()` or without restoring each submodule's mode.*
#
# This code has six bugs, each a mistake from this notebook or from 03 (what is wrong with
# `buggy_accuracy` counts as one).

# %%
class BuggyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(64, 64), nn.Linear(64, 10)]

    def forward(self, x):
        x = F.dropout(torch.relu(self.layers[0](x)), 0.2)
        return torch.softmax(self.layers[1](x), dim=1)


def buggy_train(model, X, y, steps=100, lr=0.01):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(steps):
        loss = loss_fn(model(X), y.float())
        loss.backward()
        optimizer.step()
    return model


def buggy_accuracy(model, X, y):
    return (model(X).argmax(1) == y).float().mean().item()


with checks.expect_error(ValueError, RuntimeError):
    buggy_train(BuggyNet(), X_train, y_train)

# %% [markdown]
# Fix it: define `DigitNet`, `train_digits(model, X, y, steps=100, lr=0.01)` and
# `digit_accuracy(model, X, y)` doing what the buggy versions mean to do. Keep the
# architecture (Linear(64, 64), ReLU, dropout with p = 0.2, Linear(64, 10)) and
# full-batch Adam. `digit_accuracy` leaves every submodule in the mode it found it in.
# Fix one error at a time. Two bugs raise an error; the others are silent, and overfitting one
# batch and checking eval mode find them.
# The test trains your fixed model and checks that it learns.

# %% solution 04_training_loop-bug-hunt
### BEGIN SOLUTION
class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 64), nn.Linear(64, 10)])

    def forward(self, x):
        x = F.dropout(torch.relu(self.layers[0](x)), 0.2, training=self.training)
        return self.layers[1](x)


def train_digits(model, X, y, steps=100, lr=0.01):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
    return model


def digit_accuracy(model, X, y):
    before = [m.training for m in model.modules()]
    model.eval()
    with torch.no_grad():
        accuracy = (model(X).argmax(1) == y).float().mean().item()
    for m, mode in zip(model.modules(), before):
        m.training = mode
    return accuracy
### END SOLUTION

# %% test 04_training_loop-bug-hunt-test points=5
_answered = (DigitNet, train_digits, digit_accuracy,)  # a NameError here reads as "not answered yet"
with checks.explain_errors({}, "DigitNet()"):
    _net = DigitNet()
_net.eval()
with torch.no_grad():
    torch.manual_seed(1)
    _out = _net(X_val[:20])
    torch.manual_seed(2)
    _again = _net(X_val[:20])
helpers.training_tasks.check_digit_net(len(list(_net.parameters())), _out, _again)
_net.train()
_twin = copy.deepcopy(_net)
torch.manual_seed(11)
with checks.explain_errors({"dtype": "[mc:bughunt.float-target] (symptom: 'expected target "
                                     "dtype to be Long') CrossEntropyLoss takes int64 class "
                                     "indices: drop .float()."}, "train_digits(...)"):
    train_digits(_net, X_train, y_train, steps=3, lr=0.01)


def _loop(model, zero):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for _ in range(3):
        if zero:
            opt.zero_grad()
        nn.functional.cross_entropy(model(X_train), y_train).backward()
        opt.step()
    return torch.cat([p.detach().flatten() for p in model.parameters()])


_mine = torch.cat([p.detach().flatten() for p in _net.parameters()])
_skip = copy.deepcopy(_twin)
torch.manual_seed(11)
_right = _loop(_twin, True)
torch.manual_seed(11)
_stale = _loop(_skip, False)
checks.reject_close(_mine, {_stale: "[mc:bughunt.no-zero-grad] Every step used the sum of all "
                                    "earlier gradients (symptom: the loss jumps about): call "
                                    "optimizer.zero_grad() in each iteration."},
                    "the weights after 3 steps of train_digits")
_net.train()
_last = list(_net.modules())[-1]
_last.eval()                               # one submodule in eval mode, as when part is frozen
_modes_before = [m.training for m in _net.modules()]
_calls = helpers.training_tasks.spy_forward(_net)
try:
    with checks.explain_errors({}, "digit_accuracy(...)"):
        _acc = digit_accuracy(_net, X_val, y_val)
finally:
    _grad_left_on = torch.is_grad_enabled()
    torch.set_grad_enabled(True)  # so that the rest of the page runs
helpers.training_tasks.check_digit_accuracy(_calls, _grad_left_on, _modes_before,
                                            [m.training for m in _net.modules()])
### BEGIN HIDDEN TESTS
import helpers.loss_curves
import helpers.modes
import helpers.training_tasks
from helpers.grading import probe
probe.needs("DigitNet", "train_digits", "digit_accuracy")
_Xt, _yt, _Xv, _yv, _Xs, _ys = helpers.loss_curves.digits(seed=0)
_net = probe.call("DigitNet()", DigitNet)
probe.value("DigitNet's parameter shapes, in order", [tuple(p.shape) for p in _net.parameters()])
_net.eval()
with torch.no_grad():
    torch.manual_seed(1)
    probe.call("DigitNet in eval mode, a first call", _net, _Xv[:20])
    torch.manual_seed(2)
    probe.call("DigitNet in eval mode, a second call", _net, _Xv[:20])
_net.train()
probe.value("the weights before train_digits", [p.detach().clone() for p in _net.parameters()])
torch.manual_seed(11)
probe.call("train_digits(model, X_train, y_train, steps=3, lr=0.01)", train_digits, _net, _Xt, _yt, steps=3, lr=0.01)
probe.value("the weights after train_digits", [p.detach().clone() for p in _net.parameters()])
_net.train()
list(_net.modules())[-1].eval()            # one submodule in eval mode, as when part is frozen
probe.value("each submodule's mode before digit_accuracy", [m.training for m in _net.modules()])
_calls = helpers.training_tasks.spy_forward(_net)
probe.call("digit_accuracy(model, X_val, y_val)", digit_accuracy, _net, _Xv, _yv)
probe.value("autograd on after digit_accuracy", torch.is_grad_enabled())
torch.set_grad_enabled(True)
probe.value("each forward in digit_accuracy: (rows, a submodule training, autograd recording)", _calls)
probe.value("each submodule's mode after digit_accuracy", [m.training for m in _net.modules()])
_net.train()
with torch.no_grad():
    torch.manual_seed(3)
    probe.call("DigitNet in training mode, a first call", _net, _Xv[:20])
    torch.manual_seed(4)
    probe.call("DigitNet in training mode, a second call", _net, _Xv[:20])


def _dropped_share(net):
    """The share of the last Linear layer's nonzero inputs that dropout zeroes in training."""
    last = [m for m in net.modules() if isinstance(m, nn.Linear)][-1]
    seen, saved = [], helpers.modes.modes(net)
    handle = last.register_forward_pre_hook(lambda m, args: seen.append(args[0]))
    with torch.no_grad():
        net.eval()
        net(_Xv)
        net.train()
        torch.manual_seed(5)
        net(_Xv)
    handle.remove()
    helpers.modes.restore(net, saved)
    alive = seen[0] != 0
    return ((seen[1] == 0) & alive).sum().item() / alive.sum().item()


probe.call("the share of inputs dropout zeroes while training", _dropped_share, _net)
# from all-train, all-eval and two mixtures
probe.call("digit_accuracy from four mixtures of modes", helpers.modes.mode_changes, digit_accuracy, DigitNet(),
           _Xv, _yv)
torch.set_grad_enabled(True)
torch.manual_seed(7)
_known = nn.Sequential(nn.Linear(64, 10))
probe.call("digit_accuracy(a known model, X_val, y_val)", digit_accuracy, _known, _Xv, _yv)
torch.set_grad_enabled(True)
torch.manual_seed(12)
_fresh = DigitNet()
train_digits(_fresh, _Xt, _yt, steps=150, lr=0.01)
probe.call("digit_accuracy after 150 steps of train_digits, on X_test", digit_accuracy, _fresh, _Xs, _ys)
torch.set_grad_enabled(True)
### JUDGE
import helpers.loss_curves
import helpers.training_tasks
from helpers.grading.probe import got, ref
got.value("DigitNet()")
helpers.training_tasks.check_digit_net(len(got["DigitNet's parameter shapes, in order"]),
                                       got["DigitNet in eval mode, a first call"],
                                       got["DigitNet in eval mode, a second call"])
checks.expect_true(not torch.equal(got["DigitNet in training mode, a first call"],
                                   got["DigitNet in training mode, a second call"]),
                   "[mc:bughunt.dropout-removed] In training mode "
                   "two calls gave the same output: the architecture keeps its dropout "
                   "(p = 0.2), active while training.")
_share = got["the share of inputs dropout zeroes while training"]
checks.expect_true(0.15 <= _share <= 0.25, f"[mc:bughunt.dropout-rate] In training mode dropout "
                   f"zeroed {_share:.0%} of the last layer's inputs: the architecture keeps its "
                   "dropout at p = 0.2.")
got.value("train_digits(model, X_train, y_train, steps=3, lr=0.01)",
          "[mc:bughunt.float-target] (symptom: 'expected target dtype to be Long') CrossEntropyLoss "
          "takes int64 class indices: drop .float().")


def _in_order(tensors):
    """The task's four parameters by shape: Linear(64, 64)'s weight and bias, then Linear(64, 10)'s."""
    by_shape = {tuple(t.shape): t for t in tensors}
    return [by_shape[(64, 64)], by_shape[(64,)], by_shape[(10, 64)], by_shape[(10,)]]


def _three_steps(start, zero):
    """Three full-batch Adam steps of the task's architecture from the weights `start` (the
    student's dropout draws: the same generator seed, the same masks)."""
    X, y = helpers.loss_curves.digits(seed=0)[:2]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 10))
    with torch.no_grad():
        for p, value in zip(model.parameters(), start):
            p.copy_(value)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    torch.manual_seed(11)
    for _ in range(3):
        if zero:
            opt.zero_grad()
        nn.functional.cross_entropy(model(X), y).backward()
        opt.step()
    return torch.cat([p.detach().flatten() for p in model.parameters()])


_start, _after = got["the weights before train_digits"], got["the weights after train_digits"]
checks.expect_true(sorted(tuple(t.shape) for t in _start) == [(10,), (10, 64), (64,), (64, 64)],
                   "[mc:bughunt.python-list] Keep the architecture: Linear(64, 64), ReLU, dropout "
                   "with p = 0.2, Linear(64, 10).")
_mine = torch.cat([t.flatten() for t in _in_order(_after)])
checks.reject_close(_mine, {_three_steps(_in_order(_start), False):
                            "[mc:bughunt.no-zero-grad] Every step used the sum of all "
                            "earlier gradients (symptom: the loss jumps about): call "
                            "optimizer.zero_grad() in each iteration."},
                    "the weights after 3 steps of train_digits")
checks.expect_close(_mine, _three_steps(_in_order(_start), True), "the weights after 3 steps of train_digits",
                    rtol=1e-4, atol=1e-6, hint="[mc:bughunt.no-zero-grad] Full-batch Adam with zero_grad, "
                                               "forward, loss, backward, step.")
got.value("digit_accuracy(model, X_val, y_val)")
helpers.training_tasks.check_digit_accuracy(
    got["each forward in digit_accuracy: (rows, a submodule training, autograd recording)"],
    got["autograd on after digit_accuracy"], got["each submodule's mode before digit_accuracy"],
    got["each submodule's mode after digit_accuracy"])
_problems = got["digit_accuracy from four mixtures of modes"]
checks.expect_true(not _problems, "[mc:bughunt.mode-not-restored] digit_accuracy must leave "
                   "every submodule in the mode it had, whatever that was; "
                   + (str(_problems[0]) if _problems else ""))
with checks.because("[mc:bughunt.tensor-result] digit_accuracy returns a Python float, as "
                    "buggy_accuracy meant to."):
    checks.expect_type(got["digit_accuracy(a known model, X_val, y_val)"], float, "digit_accuracy(...)")
checks.expect_true(got["digit_accuracy(a known model, X_val, y_val)"] <= 1, "[mc:bughunt.percent] "
                   "digit_accuracy returned more than 1: an accuracy is the fraction of rows "
                   "classified right, between 0 and 1, not a percentage.")
checks.expect_close(got["digit_accuracy(a known model, X_val, y_val)"], ref["digit_accuracy(a known model, X_val, y_val)"],
                    "digit_accuracy of a known model", rtol=1e-6,
                    hint="[mc:bughunt.tensor-result] The fraction (0 to 1) of rows whose largest "
                         "logit is the true class.")
_final = got["digit_accuracy after 150 steps of train_digits, on X_test"]
if _final < 0.9:
    checks.reject(True, {True: f"[mc:bughunt.double-softmax] The fixed model reached only "
                               f"{_final:.1%} test accuracy after 150 steps: a bug remains."},
                  "the fixed model's accuracy")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# **1. Forgetting `optimizer.zero_grad()`.** Reproduced in section 1 and in the bug hunt:
# each step follows the sum of all past gradients. Call `optimizer.zero_grad()` in every
# iteration.
#
# **2. Softmax before `CrossEntropyLoss`.** Reproduced in section 3 (and caught by
# "overfit one batch", section 10): the loss cannot go below a floor. Return raw logits.
#
# **3. Float class indices.** Reproduced in section 3:
# `CrossEntropyLoss()(logits, targets.float())` raises; targets must be int64.
#
# **4. Evaluating in training mode.** Reproduced in section 4: with dropout on, two passes
# over the same input differ. `model.eval()` and `torch.no_grad()`, then every mode back.
#
# **5. `F.dropout` without `training=self.training`.** Reproduced in 03 (section 7) and in
# the bug hunt: the function drops in `eval()` too. Pass `training=self.training`, or use
# an `nn.Dropout` layer.
#
# **6. A "best" checkpoint that follows the model.** Reproduced in section 7:
# `best = model.state_dict()` shares memory with the parameters; keep
# `copy.deepcopy(model.state_dict())`.
#
# **7. Logging loss tensors.** Section 4 showed the graph a running total of them keeps;
# `.item()` is the fix (every k steps on a GPU, where it synchronises).
#
# ## Summary
#
# - One iteration: `zero_grad` → forward → loss → `backward` → `step`; gradients add up
#   unless cleared, and `step` uses whatever `.grad` holds. SGD moves θ by −η·∇; momentum,
#   Adam and AdamW change only that update (AdamW's decay bypasses Adam's division).
# - `CrossEntropyLoss` takes raw logits (log-sum-exp inside, finite where softmax-then-log
#   is not) and int64 class indices; an untrained C-class model starts near ln C.
# - Evaluate with `eval()` and `no_grad()`, give every mode back, log `.item()`. The same
#   loop trains an MLP and a conv net; compare parameters, accuracy and time.
# - Schedules and warm-up set the rate per step; parameter groups keep decay off biases
#   and norms; early stopping keeps a deep copy of the best weights; a guarded step raises
#   on a non-finite loss and skips non-finite gradients.
# - A checkpoint resumes exactly when it holds every state and generator the loop reads;
#   measuring the divergence names a stale piece.
# - Overfit one batch; a range test finds the rate; accumulation weights micro-batches;
#   data parallelism all-reduces gradients (`no_sync` while accumulating); float16 needs a
#   `GradScaler`, bfloat16 does not.
#
# **Next:** 05_data replaces the hand-made index batches with `Dataset` and `DataLoader`.
#
# **Closing note.** Measured on the machine that ran this page:

# %%
for label, make in [("loop anatomy", helpers.loop_anatomy.explore),
                    ("live loss curves, a new setting (trains)",
                     functools.partial(helpers.loss_curves.explore, cache=False)),
                    ("live loss curves, a setting already run", helpers.loss_curves.explore)]:
    print(f"{label}: median update (model + draw) "
          f"{helpers.update_time.median_update_ms(make()):.0f} ms")
print(f"the digits MLP reached {test_accuracy:.1%} test accuracy in {train_seconds:.2f} s")
print(f"this notebook ran top to bottom in {time.perf_counter() - notebook_start:.1f} s")
