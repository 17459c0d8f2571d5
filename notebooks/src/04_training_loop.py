# %% [markdown]
# # 04 The training loop: five lines and what goes wrong in them
#
# Every model in PyTorch learns through the same five lines, repeated: clear the old
# gradients, run the model, measure the loss, back-propagate, update the weights. The
# lines are short, and each one can be forgotten, swapped or fed the wrong thing without
# an error message: the loop runs and the model quietly fails to learn. This notebook
# takes the loop apart line by line, trains a real classifier on handwritten digits while
# you watch its loss curves, and then adds what a loop needs in practice: evaluation,
# early stopping, clipping, NaN detection, checkpoints, gradient accumulation and mixed
# precision.
#
# **You will learn to**
# - write the five steps in the right order and say what each leaves behind;
# - feed `CrossEntropyLoss` what it expects (raw logits, int64 class indices);
# - evaluate with `eval()` and `no_grad()`, and log with `.item()`;
# - stop early, clip gradients, stop on a NaN, checkpoint and resume exactly;
# - debug with "overfit one batch", accumulate gradients, and use `torch.autocast`.
#
# **Prerequisites:** 01 (tensors), 02 (autograd: `.grad` accumulates), 03 (`nn.Module`,
# `parameters()`, `state_dict`, `train()`/`eval()`).

# %%
import copy
import math
import os
import tempfile
import time

import torch
from torch import nn
from tqdm.auto import tqdm

import helpers.loop_anatomy
import helpers.loss_curves
from helpers import checks

notebook_start = time.perf_counter()
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)  # the same numbers on every run of this page
torch.set_num_threads(1)  # these models are small: a second thread only waits for a busy core

# %% [markdown]
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
# **Quick quiz.** θ = 1.0, its gradient is −2.0, and SGD runs with lr = 0.5. What is θ
# after one `step()`? Put the number in `answer_sgd_theta`.

# %% solution 04_training_loop-quiz-sgd
### BEGIN SOLUTION
answer_sgd_theta = 2.0
### END SOLUTION

# %% test 04_training_loop-quiz-sgd-test points=1
checks.reject_close(answer_sgd_theta, {
    0.0: "[mc:sgd.step-adds-gradient] The step goes against the gradient: θ − η·g, and with "
         "a negative gradient that increases θ.",
    -1.0: "[mc:sgd.forgets-theta] The update changes θ by −η·g; it does not replace θ with it.",
}, "answer_sgd_theta")
### BEGIN HIDDEN TESTS
_theta = nn.Parameter(torch.tensor(1.0))
_theta.grad = torch.tensor(-2.0)
torch.optim.SGD([_theta], lr=0.5).step()
checks.expect_close(answer_sgd_theta, _theta.item(), "answer_sgd_theta",
                    hint="[mc:sgd.step-adds-gradient] θ ← θ − η·g.")
### END HIDDEN TESTS

# %% [markdown]
# ### Momentum, Adam and AdamW
#
# Other optimizers change only step 5. **Momentum** keeps a decaying sum of past
# gradients (buffer ← 0.9·buffer + grad) and steps along it. **Adam** divides each gradient by a running estimate of its size,
# so its steps have roughly the size of the learning rate whatever the gradient's scale.
# **AdamW** is Adam plus weight decay applied to the weights directly (θ shrinks by
# lr·wd·θ each step), not mixed into the gradient. One step from θ = 2.0 with lr 0.2:

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
# ### The loop, line by line
#
# The instrument below runs two iterations of the five lines on a real `nn.Linear(2, 1)`
# with SGD (lr 0.1), and after each line reads from torch: how many autograd nodes the
# newest graph has and whether backward has freed it, each parameter's `.grad` (None,
# zeros or values), and how far the line moved each parameter. Type another order in
# the box (drop a line, or swap two) and move "show rows" to step through it.
#
# **Try this**
# 1. With the five steps in order, move "show rows" from 1 to 5. Notice that `.grad`
#    is None until `backward` and that only `step` moves the weights, by lr × |grad|
#    (0.1 × |(2.35, −2.70)| ≈ 0.358). Explain why the graph reads "freed" after backward.
# 2. Drop `zero_grad` (type `forward, loss, backward, step`). Notice row 7, the second
#    backward: `weight.grad` is now the sum of both iterations' gradients, and the second
#    step is larger. Explain where the first gradient came from.
# 3. Put `step` before `backward` (`zero_grad, forward, loss, step, backward`). Notice
#    the Δ columns. Explain what `step` finds in `.grad` when it runs.

# %%
helpers.loop_anatomy.explore()

# %% [markdown]
# **Quick quiz.** A loop forgets `zero_grad`. The loss is 2·w, so the gradient of each
# iteration's loss is 2.0. Starting at w = 1.0, three iterations of forward, loss,
# backward, step run with SGD (lr 0.1). What is w afterwards? Put the number in
# `answer_no_zero_grad_w`.

# %% solution 04_training_loop-quiz-no-zero-grad
### BEGIN SOLUTION
answer_no_zero_grad_w = -0.2
### END SOLUTION

# %% test 04_training_loop-quiz-no-zero-grad-test points=1
checks.reject_close(answer_no_zero_grad_w, {
    0.4: "[mc:loop.grad-overwritten] That is three steps with a gradient of 2.0 each: "
         "without zero_grad, backward adds to .grad, so the steps use 2, 4 and 6.",
    1.0: "[mc:loop.grad-overwritten] The weights do move: step runs after every backward.",
}, "answer_no_zero_grad_w")
### BEGIN HIDDEN TESTS
_w = nn.Parameter(torch.tensor(1.0))
_opt = torch.optim.SGD([_w], lr=0.1)
for _ in range(3):
    (2 * _w).backward()
    _opt.step()
checks.expect_close(answer_no_zero_grad_w, _w.item(), "answer_no_zero_grad_w", rtol=1e-4,
                    hint="[mc:loop.grad-overwritten] .grad holds 2, then 4, then 6.")
### END HIDDEN TESTS

# %% [markdown]
# **Quick quiz.** True or false: in a loop whose every iteration runs `zero_grad`,
# forward, loss, `step`, `backward` in that order (step before backward), SGD never
# changes the weights. Put `True` or `False` in `answer_step_first_frozen`.

# %% solution 04_training_loop-quiz-step-first
### BEGIN SOLUTION
answer_step_first_frozen = True
### END SOLUTION

# %% test 04_training_loop-quiz-step-first-test points=1
checks.expect_type(answer_step_first_frozen, bool, "answer_step_first_frozen")
checks.reject(answer_step_first_frozen, {
    False: "[mc:loop.step-waits-for-backward] step() uses whatever .grad holds when it runs: "
           "zero_grad has just set it to None, and SGD skips parameters whose .grad is None. "
           "The gradient backward computes is then erased by the next zero_grad.",
}, "answer_step_first_frozen")
### BEGIN HIDDEN TESTS
_rec = helpers.loop_anatomy.record("zero_grad, forward, loss, step, backward", iterations=3)
checks.expect_equal(answer_step_first_frozen,
                    all(p.moved == 0 for s in _rec.states for p in s.params),
                    "answer_step_first_frozen")
### END HIDDEN TESTS

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

# %% [markdown]
# ## 3. CrossEntropyLoss: raw logits in, class indices as targets
#
# For classification into C classes the model ends in a `Linear` layer with C outputs,
# the **logits**: any real numbers, no softmax. `nn.CrossEntropyLoss` applies
# `log_softmax` itself and picks out the log-probability of the right class:
# loss = −mean(log_softmax(logits)[i, y_i]). The targets are **class indices** (int64),
# one per row, not one-hot vectors and not floats.

# %%
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
targets = torch.tensor([0, 2])
by_hand = -torch.log_softmax(logits, dim=1)[torch.arange(2), targets].mean()
print("CrossEntropyLoss:", nn.CrossEntropyLoss()(logits, targets).item(), "| by hand:", by_hand.item())
print("target dtype:", targets.dtype)

# %% [markdown]
# Class indices stored as floats are refused (a float target is read as class
# *probabilities*, which must have the logits' shape):

# %%
with checks.expect_error(RuntimeError):
    nn.CrossEntropyLoss()(logits, targets.float())
print("fix: targets.long() ->", nn.CrossEntropyLoss()(logits, targets.float().long()).item())

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
checks.reject_close(answer_double_softmax_loss, {
    0.0: "[mc:loss.ce-takes-probabilities] CrossEntropyLoss does not take probabilities: it "
         "applies log_softmax to its input, so (1, 0) is treated as logits and becomes "
         "probabilities (0.73, 0.27).",
    0.6931: "[mc:loss.ce-takes-probabilities] log 2 is the loss of equal logits; (1, 0) as "
            "logits already favours class 0 a little.",
}, "answer_double_softmax_loss", atol=1e-3)
### BEGIN HIDDEN TESTS
checks.expect_close(answer_double_softmax_loss,
                    nn.CrossEntropyLoss()(torch.tensor([[1.0, 0.0]]), torch.tensor([0])).item(),
                    "answer_double_softmax_loss", atol=1e-3,
                    hint="[mc:loss.ce-takes-probabilities] −log(e¹ / (e¹ + e⁰)).")
### END HIDDEN TESTS

# %% [markdown]
# That is the **double-softmax bug**: softmax in the model, and again inside the loss.
# Probabilities lie in [0, 1], so the logits the loss sees differ by at most 1, and the
# loss cannot go below a floor even for a perfect prediction. For 10 classes:

# %%
perfect = torch.zeros(1, 10)
perfect[0, 3] = 1.0
print("2 classes, perfect:", round(nn.CrossEntropyLoss()(torch.tensor([[1.0, 0.0]]), torch.tensor([0])).item(), 4))
print("10 classes, perfect: loss", round(nn.CrossEntropyLoss()(perfect, torch.tensor([3])).item(), 4),
      "= log((e + 9) / e) =", round(math.log((math.e + 9) / math.e), 4))

# %% [markdown]
# The gradients are squashed by the extra softmax as well, so training is slower. The
# common-mistakes section shows the bug's curve next to a correct one.
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
# `.item()` turns a one-element tensor into a Python number. Keep **numbers** in your
# logs, not loss tensors: a tensor keeps its graph reachable. A running total built from
# tensors links every step's graph into one chain, and a loss computed without
# `no_grad` and never back-propagated (a validation loss) keeps every activation its
# graph saved. Counting what the graphs hold:

# %%
def saved_bytes(fn):
    """Bytes of tensors autograd saves for backward while fn runs."""
    total = [0]

    def pack(t):
        total[0] += t.numel() * t.element_size()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return total[0]


net.train()
val_losses_kept = []
per_batch = saved_bytes(lambda: val_losses_kept.append(nn.functional.cross_entropy(net(X_val), y_val)))
print(f"one validation loss kept as a tensor holds {per_batch / 1024:.0f} KiB of saved tensors")
with torch.no_grad():
    print("the same under no_grad:", saved_bytes(lambda: nn.functional.cross_entropy(net(X_val), y_val)), "bytes")
running, running_item = 0, 0.0
for _ in range(20):
    batch_loss = nn.functional.cross_entropy(net(X_val[:8]), y_val[:8])
    running = running + batch_loss
    running_item += batch_loss.item()
print("a running total of 20 loss tensors reaches", helpers.loop_anatomy.count_nodes(running),
      "autograd nodes; the total of their .item() values is a", type(running_item).__name__)
del val_losses_kept, running

# %% [markdown]
# A pass over the data (an **epoch**) in mini-batches takes the rows in slices of
# `batch_size`; the last slice is whatever is left:

# %%
rows, batch = 10, 4
print([len(torch.arange(rows)[start:start + batch]) for start in range(0, rows, batch)])

# %% [markdown]
# ### Exercise 1: write the training loop (3 points)
#
# *Misconception targeted: forgetting `zero_grad`, stepping before `backward`, or
# logging loss tensors instead of numbers.*
#
# Write `train_epoch(model, loss_fn, optimizer, X, y, batch_size)` that makes one pass
# over `X` and `y` **in order** (no shuffling) in batches of `batch_size` rows (the last
# batch may be smaller), runs the five steps on each batch, and returns the list of the
# batches' losses as Python floats.

# %% solution 04_training_loop-train-epoch
### BEGIN SOLUTION
def train_epoch(model, loss_fn, optimizer, X, y, batch_size):
    model.train()
    losses = []
    for start in range(0, len(X), batch_size):
        xb, yb = X[start:start + batch_size], y[start:start + batch_size]
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
### END SOLUTION

# %% test 04_training_loop-train-epoch-test points=3
class _SpySGD(torch.optim.SGD):
    """SGD that remembers the parameters and gradients it saw at every step."""

    def __init__(self, params, lr):
        super().__init__(params, lr=lr)
        self.seen = []

    def step(self, closure=None):
        ps = [p for g in self.param_groups for p in g["params"]]
        self.seen.append(([p.detach().clone() for p in ps],
                          [None if p.grad is None else p.grad.detach().clone() for p in ps]))
        return super().step(closure)


def _batch_grad(model, loss_fn, params, xb, yb):
    """Gradient and loss of one batch at the given parameter values."""
    twin = copy.deepcopy(model)
    with torch.no_grad():
        for p, v in zip(twin.parameters(), params):
            p.copy_(v)
    loss = loss_fn(twin(xb), yb)
    return torch.autograd.grad(loss, list(twin.parameters())), loss.item()


_answered = (train_epoch,)  # a NameError here reads as "not answered yet"
_gen = torch.Generator().manual_seed(1)
_X, _y = torch.randn(12, 4, generator=_gen), torch.randint(0, 3, (12,), generator=_gen)
torch.manual_seed(1)
_model = nn.Linear(4, 3)
_spy = _SpySGD(_model.parameters(), lr=0.5)
with checks.explain_errors({}, "train_epoch(...)"):
    _losses = train_epoch(_model, nn.CrossEntropyLoss(), _spy, _X, _y, 5)
checks.expect_type(_losses, list, "train_epoch(...)")
if any(isinstance(v, torch.Tensor) for v in _losses):
    checks.reject(True, {True: "[mc:loop.tensor-losses] The list holds loss tensors: each one "
                               "keeps its graph reachable. Log loss.item(), a Python float."},
                  "tensors in the list")
checks.reject(len(_losses), {2: "[mc:loop.drops-last-batch] 12 rows in batches of 5 make 3 "
                                "batches: 5, 5 and a last one of 2."}, "len(losses)")
if len(_losses) != 3:
    checks.reject(True, {True: f"[mc:loop.one-loss-per-batch] train_epoch returned {len(_losses)} "
                               "losses for 3 batches (12 rows in batches of 5): one loss per "
                               "batch, the last batch included."}, "len(losses)")
if len(_spy.seen) != 3:
    checks.reject(True, {True: f"[mc:loop.one-step-per-batch] optimizer.step() ran "
                               f"{len(_spy.seen)} times for 3 batches: one step per batch."},
                  "the number of optimizer.step() calls")
if any(g is None for _, grads in _spy.seen for g in grads):
    checks.reject(True, {True: "[mc:loop.step-before-backward] optimizer.step() ran while .grad "
                               "was None: step must come after backward, or it uses no gradient "
                               "(or last batch's)."}, "the order of the lines")
_earlier = None
for _k, (_params, _grads) in enumerate(_spy.seen):
    _true, _loss_k = _batch_grad(_model, nn.CrossEntropyLoss(), _params, _X[5 * _k:5 * _k + 5],
                                 _y[5 * _k:5 * _k + 5])
    if _earlier is not None:
        checks.reject_close(_grads[0], {_true[0] + _earlier[0]:
                                        "[mc:loop.no-zero-grad] The gradient at this step is the "
                                        "sum of this batch's and the previous batches': "
                                        "backward adds into .grad, so call optimizer.zero_grad() "
                                        "first in every iteration."},
                            f"the weight gradient used by step {_k + 1}")
    checks.expect_close(_grads[0], _true[0], f"the weight gradient used by step {_k + 1}",
                        hint="[mc:loop.wrong-batch] It should be the gradient of batch "
                             f"{_k + 1}'s loss alone: rows {5 * _k} to {5 * _k + 4}, in order.")
    checks.expect_close(_losses[_k], _loss_k, f"losses[{_k}]", rtol=1e-5,
                        hint="[mc:loop.loss-after-step] Record the loss you called backward "
                             "on: the batch's loss before its step.")
    _earlier = _true
### BEGIN HIDDEN TESTS
_X2, _y2 = torch.randn(10, 3, generator=_gen), torch.randn(10, 1, generator=_gen)
torch.manual_seed(2)
_m2 = nn.Linear(3, 1)
_ref = copy.deepcopy(_m2)
_got = train_epoch(_m2, nn.MSELoss(), torch.optim.SGD(_m2.parameters(), lr=0.1), _X2, _y2, 4)
_ref_opt = torch.optim.SGD(_ref.parameters(), lr=0.1)
_want = []
for _s in range(0, 10, 4):
    _ref_opt.zero_grad()
    _l = nn.MSELoss()(_ref(_X2[_s:_s + 4]), _y2[_s:_s + 4])
    _l.backward()
    _ref_opt.step()
    _want.append(_l.item())
checks.expect_close(torch.tensor(_got), torch.tensor(_want), "losses on a regression problem",
                    hint="[mc:loop.no-zero-grad] Run the five steps on every batch, in order.")
checks.expect_close(_m2.weight.detach(), _ref.weight.detach(), "weights after one epoch",
                    hint="[mc:loop.no-zero-grad] Run the five steps on every batch, in order.")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2: evaluate a model (2 points)
#
# *Misconception targeted: evaluating in training mode (dropout still on), or with
# autograd still recording.*
#
# Write `evaluate_model(model, loss_fn, X, y)` returning `(loss, accuracy)` as two Python
# floats: the mean loss over all of `X` and the fraction (0 to 1) of rows whose largest
# logit is the true class. Run the model in eval mode with autograd off.

# %% solution 04_training_loop-evaluate
### BEGIN SOLUTION
def evaluate_model(model, loss_fn, X, y):
    model.eval()
    with torch.no_grad():
        logits = model(X)
        loss = loss_fn(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    return loss, accuracy
### END SOLUTION

# %% test 04_training_loop-evaluate-test points=2
_answered = (evaluate_model,)  # a NameError here reads as "not answered yet"
torch.manual_seed(4)
_net = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 10))
_net.train()
_calls = []
_net.register_forward_hook(lambda m, i, o: _calls.append((m.training, torch.is_grad_enabled())))
with checks.explain_errors({}, "evaluate_model(...)"):
    _result = evaluate_model(_net, nn.CrossEntropyLoss(), X_val, y_val)
checks.expect_type(_result, (tuple, list), "evaluate_model(...)")
checks.expect_equal(len(_result), 2, "the number of returned values")
if any(isinstance(v, torch.Tensor) for v in _result):
    checks.reject(True, {True: "[mc:eval.tensor-result] Return Python floats (.item()), not "
                               "tensors."}, "the returned values")
if not _calls:
    checks.reject(True, {True: "[mc:eval.model-not-called] evaluate_model never ran the model "
                               "it was given: compute the logits with model(X)."}, "model calls")
if any(training for training, _ in _calls):
    checks.reject(True, {True: "[mc:eval.train-mode] The model ran in training mode: dropout "
                               "still zeroed activations at random. Call model.eval() first."},
                  "model.training during evaluation")
if any(grad for _, grad in _calls):
    checks.reject(True, {True: "[mc:eval.grad-enabled] Autograd was recording during "
                               "evaluation: wrap the forward pass in torch.no_grad()."},
                  "torch.is_grad_enabled() during evaluation")
if _result[1] > 1:
    checks.reject(True, {True: "[mc:eval.percent] The accuracy should be a fraction between 0 "
                               "and 1, not a percentage."}, "accuracy > 1")
### BEGIN HIDDEN TESTS
_net.eval()
with torch.no_grad():
    _logits = _net(X_val)
checks.expect_close(_result[0], nn.functional.cross_entropy(_logits, y_val).item(), "loss",
                    rtol=1e-5, hint="[mc:eval.train-mode] The mean loss over all rows, in eval mode.")
checks.expect_close(_result[1], (_logits.argmax(1) == y_val).float().mean().item(), "accuracy",
                    rtol=1e-5, hint="[mc:eval.percent] The fraction of rows whose largest logit is the label.")
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
        board.log_train(loss.item())
    model.eval()
    with torch.no_grad():
        val_logits = model(X_val)
        board.log_val(loss_fn(val_logits, y_val).item(),
                      (val_logits.argmax(1) == y_val).float().mean().item())
train_seconds = time.perf_counter() - start
history = board.close()

# %%
model.eval()
with torch.no_grad():
    test_accuracy = (model(X_test).argmax(1) == y_test).float().mean().item()
print(f"training took {train_seconds:.2f} s for {len(history.train_loss)} steps")
print(f"test accuracy: {test_accuracy:.1%} on {len(X_test)} held-out digits")
print("history.val_loss:", [round(v, 3) for v in history.val_loss])

# %% [markdown]
# ## 6. Live loss curves: optimizer and learning rate
#
# The instrument trains a fresh MLP on the digits (batches of 128, seed 0) with the
# optimizer and learning rate you choose, and draws the training loss of every step and
# the validation loss of every epoch on a log scale. Long runs redraw while they train.
#
# **Try this**
# 1. With SGD, compare lr 0.1 and lr 1.0. Notice how far each validation curve gets in
#    10 epochs. Explain why the small rate is slow rather than wrong.
# 2. Choose Adam and compare lr 0.01 with lr 1.0. Notice that a rate that suits SGD can
#    wreck Adam. Explain with the one-step table of section 1 (Adam's steps are about lr
#    in size for every weight).
# 3. Choose SGD, type `64, 64, 64, 64` as hidden sizes and drag lr to its maximum (31.6).
#    Notice the red line and the message naming the step where the loss became nan.
#    Explain how a loss can become nan (overflow to inf, then inf − inf).

# %%
helpers.loss_curves.explore()

# %% [markdown]
# **Quick quiz.** In the instrument with SGD, hidden `64` and 10 epochs: does lr = 1.0
# end with a lower validation loss than lr = 0.1? Put `True` or `False` in
# `answer_larger_lr_lower_loss`.

# %% solution 04_training_loop-quiz-learning-rate
### BEGIN SOLUTION
answer_larger_lr_lower_loss = True
### END SOLUTION

# %% test 04_training_loop-quiz-learning-rate-test points=1
checks.expect_type(answer_larger_lr_lower_loss, bool, "answer_larger_lr_lower_loss")
checks.reject(answer_larger_lr_lower_loss, {
    False: "[mc:lr.smaller-is-better] A small rate is safe but slow: after 10 epochs SGD "
           "at lr 0.1 is still far above the loss lr 1.0 reaches. Too large a rate diverges "
           "(task 3), but 1.0 is not too large for this model.",
}, "answer_larger_lr_lower_loss")
### BEGIN HIDDEN TESTS
_slow = helpers.loss_curves.run("SGD", 0.1, "64", 10).val_loss[-1]
_fast = helpers.loss_curves.run("SGD", 1.0, "64", 10).val_loss[-1]
checks.expect_equal(answer_larger_lr_lower_loss, _fast < _slow, "answer_larger_lr_lower_loss",
                    wrong={False: "[mc:lr.smaller-is-better] Compare the two runs' last "
                                  "validation losses."})
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Early stopping
#
# The validation loss usually falls, flattens, and then rises again as the model starts
# to memorise the training set. **Early stopping** watches it: keep the weights of the
# best epoch so far (`copy.deepcopy(model.state_dict())`), and stop once `patience`
# epochs in a row have brought no new best. Only a strictly lower loss is an
# improvement. For example, with validation losses [1.0, 0.8, 0.85, 0.9, 0.7] and
# patience 2, epochs 3 and 4 bring nothing new after epoch 2, so training stops after
# epoch 4 and keeps epoch 2's weights: the 0.7 of epoch 5 is never seen.
#
# ### Exercise 3: early stopping on a history (2 points)
#
# *Misconception targeted: counting a tie as an improvement, or stopping one epoch late.*
#
# Write `early_stop(val_losses, patience)` returning `(best_epoch, stop_epoch)` with
# epochs numbered from 1: `stop_epoch` is the epoch after which training stops
# (`len(val_losses)` if the patience never runs out), and `best_epoch` the epoch with
# the lowest loss up to then (the first one on a tie).

# %% solution 04_training_loop-early-stop
### BEGIN SOLUTION
def early_stop(val_losses, patience):
    best, best_epoch, waited = math.inf, 0, 0
    for epoch, loss in enumerate(val_losses, start=1):
        if loss < best:
            best, best_epoch, waited = loss, epoch, 0
        else:
            waited += 1
            if waited == patience:
                return best_epoch, epoch
    return best_epoch, len(val_losses)
### END SOLUTION

# %% test 04_training_loop-early-stop-test points=2
_answered = (early_stop,)  # a NameError here reads as "not answered yet"
_curve = [0.9, 0.7, 0.7, 0.72, 0.6, 0.65, 0.66, 0.67]
with checks.explain_errors({}, "early_stop(...)"):
    _got = early_stop(_curve, 2)
checks.expect_type(_got, (tuple, list), "early_stop(...)")
checks.reject(tuple(_got), {
    (5, 7): "[mc:early-stop.ties-improve] A loss equal to the best is not an improvement: "
            "epoch 3's 0.7 ties epoch 2's, so it counts towards the patience.",
    (5, 8): "[mc:early-stop.off-by-one] Training stops after patience epochs without a new "
            "best, not patience + 1.",
    (1, 3): "[mc:early-stop.zero-based] Epochs are numbered from 1 here.",
    (4, 4): "[mc:early-stop.last-not-best] The best epoch is the one with the lowest loss, "
            "not the epoch where training stopped.",
}, "early_stop(curve, 2)")
### BEGIN HIDDEN TESTS
def _reference_stop(losses, patience):
    best, at, waited = math.inf, 0, 0
    for e, v in enumerate(losses, 1):
        if v < best:
            best, at, waited = v, e, 0
        else:
            waited += 1
            if waited == patience:
                return at, e
    return at, len(losses)


for _losses, _patience in [(_curve, 2), (history.val_loss, 1), (history.val_loss, 3),
                           ([3.0, 2.0, 1.0], 2), ([1.0, 1.0, 1.0, 0.5], 3)]:
    _mine = tuple(early_stop(list(_losses), _patience))
    if _mine != _reference_stop(_losses, _patience):
        checks.reject(True, {True: f"[mc:early-stop.rule] On {len(_losses)} epochs with patience "
                                   f"{_patience} your answer {_mine} is not right: count the epochs "
                                   "since the last strictly lower loss, stop when the count "
                                   "reaches patience, and number epochs from 1."}, "early_stop")
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Gradient clipping and NaN detection
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
# A loss that becomes `nan` or `inf` poisons every weight at the next step, and the
# curves of a long run only show it later. Check `torch.isfinite(loss)` before backward
# and stop with a message that names the step, as the instrument does:

# %%
big = torch.tensor(3e38)
print("3e38 * 10 =", (big * 10).item(), "| inf - inf =", (big * 10 - big * 10).item())


def check_loss(loss, step):
    if not torch.isfinite(loss):
        raise FloatingPointError(f"the loss became {loss.item()} at step {step}")


with checks.expect_error(FloatingPointError):
    for step, value in enumerate([2.3, 1.9, float("nan"), 1.2], start=1):
        check_loss(torch.tensor(value), step)

# %% [markdown]
# ### Exercise 4: a guarded step (2 points)
#
# *Misconception targeted: back-propagating a NaN loss, or clipping after the weights
# have already moved.*
#
# Write `guarded_step(model, loss, optimizer, step, max_norm)`. The caller has already run
# `zero_grad` and the forward pass. If `loss` is not finite, raise `FloatingPointError`
# with a message containing the step number, and leave the weights alone. Otherwise run
# backward, clip the gradients' total norm to `max_norm`, step, and return the norm
# before clipping as a Python float.

# %% solution 04_training_loop-guarded-step
### BEGIN SOLUTION
def guarded_step(model, loss, optimizer, step, max_norm):
    if not torch.isfinite(loss):
        raise FloatingPointError(f"non-finite loss {loss.item()} at step {step}")
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return norm.item()
### END SOLUTION

# %% test 04_training_loop-guarded-step-test points=2
_answered = (guarded_step,)  # a NameError here reads as "not answered yet"
torch.manual_seed(5)
_m = nn.Linear(3, 2)
_start = copy.deepcopy(_m.state_dict())
_opt = torch.optim.SGD(_m.parameters(), lr=0.1)
_x = torch.randn(6, 3)
_bad = _m(_x).sum() * float("nan")
try:
    guarded_step(_m, _bad, _opt, 17, 1.0)
except FloatingPointError as _error:
    if "17" not in str(_error):
        checks.reject(True, {True: "[mc:nan.step-not-named] The error should name the step "
                                   f"(17) so the run can be traced; it said: {_error}"},
                      "the FloatingPointError message")
except Exception as _error:
    checks.reject(True, {True: "[mc:nan.not-detected] A NaN loss should raise FloatingPointError "
                               f"before backward; got {type(_error).__name__}: {_error}"},
                  "guarded_step with a NaN loss")
else:
    checks.reject(True, {True: "[mc:nan.not-detected] guarded_step returned for a NaN loss: "
                               "check torch.isfinite(loss) before backward and raise."},
                  "guarded_step with a NaN loss")
if any(not torch.equal(_m.state_dict()[k], v) for k, v in _start.items()):
    checks.reject(True, {True: "[mc:nan.not-detected] The weights changed on a NaN loss: "
                               "raise before backward and step."}, "the weights")
_opt.zero_grad()
_loss = (_m(_x) * 50).pow(2).mean()
_twin = copy.deepcopy(_m)
_twin_loss = (_twin(_x) * 50).pow(2).mean()
_twin_loss.backward()
_true_norm = torch.cat([p.grad.flatten() for p in _twin.parameters()]).norm().item()
_unclipped = [p.detach() - 0.1 * p.grad for p in _twin.parameters()]
with checks.explain_errors({}, "guarded_step(...)"):
    _norm = guarded_step(_m, _loss, _opt, 1, 1.0)
checks.reject_close(_m.weight.detach(), {_unclipped[0]:
                    "[mc:clip.not-applied] The weights moved by the full, unclipped gradient: "
                    "clip_grad_norm_ must run between backward and step."}, "the weights after the step")
checks.reject_close(_norm, {1.0: "[mc:clip.norm-after-clipping] Return the norm before "
                                 "clipping (what clip_grad_norm_ returns), not max_norm."},
                    "the returned norm")
### BEGIN HIDDEN TESTS
_scale = min(1.0, 1.0 / (_true_norm + 1e-6))
checks.expect_close(_norm, _true_norm, "the returned norm", rtol=1e-4,
                    hint="[mc:clip.norm-after-clipping] The total norm before clipping.")
checks.expect_close(_m.weight.detach(), _start["weight"] - 0.1 * _scale * _twin.weight.grad,
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
# loading could run code). Resuming then gives exactly the losses an uninterrupted run gives:

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
# A loop that **shuffles** also depends on its random generator: the next epoch's order
# comes from its state. `generator.get_state()` returns that state as a tensor and
# `generator.set_state(state)` puts it back:

# %%
g = torch.Generator().manual_seed(0)
torch.randperm(5, generator=g)
state = g.get_state()
print("next order:", torch.randperm(5, generator=g).tolist())
g.set_state(state)
print("after set_state, again:", torch.randperm(5, generator=g).tolist())

# %% [markdown]
# ### Exercise 5: checkpoint a shuffling loop (2 points)
#
# *Misconception targeted: a checkpoint of the model alone, without the optimizer's state
# or the shuffling generator's.*
#
# Write `save_checkpoint(path, model, optimizer, generator, epoch)` and
# `load_checkpoint(path, model, optimizer, generator)`, which restores all three objects
# in place and returns the saved epoch, so that a resumed run produces exactly the
# losses of an uninterrupted one. Load with `weights_only=True`.

# %% solution 04_training_loop-checkpoint
### BEGIN SOLUTION
def save_checkpoint(path, model, optimizer, generator, epoch):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "generator": generator.get_state(), "epoch": epoch}, path)


def load_checkpoint(path, model, optimizer, generator):
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    generator.set_state(checkpoint["generator"])
    return checkpoint["epoch"]
### END SOLUTION

# %% test 04_training_loop-checkpoint-test points=2
_answered = (save_checkpoint, load_checkpoint,)  # a NameError here reads as "not answered yet"


def _setup_run():
    torch.manual_seed(3)
    m = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    return m, torch.optim.Adam(m.parameters(), lr=1e-2), torch.Generator().manual_seed(5)


def _shuffled_epoch(m, opt, gen):
    order, out = torch.randperm(256, generator=gen), []
    for i in range(0, 256, 64):
        idx = order[i:i + 64]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(m(X_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


_scratch = tempfile.TemporaryDirectory()
_path = os.path.join(_scratch.name, "student.pt")
_m, _o, _g = _setup_run()
_shuffled_epoch(_m, _o, _g)
_saved = (copy.deepcopy(_m.state_dict()), copy.deepcopy(_o.state_dict()), _g.get_state())
with checks.explain_errors({}, "save_checkpoint(...)"):
    save_checkpoint(_path, _m, _o, _g, 1)
_expected = _shuffled_epoch(_m, _o, _g)
_m2, _o2, _g2 = _setup_run()
with checks.explain_errors({"weights_only": "Save only tensors, numbers and dicts of them "
                                            "(state_dicts, get_state()) so weights_only "
                                            "loading accepts the file."}, "load_checkpoint(...)"):
    _epoch = load_checkpoint(_path, _m2, _o2, _g2)
_got = _shuffled_epoch(_m2, _o2, _g2)


def _variant(model_state, optimizer_state, generator_state):
    m, o, g = _setup_run()
    if model_state is not None:
        m.load_state_dict(model_state)
    if optimizer_state is not None:
        o.load_state_dict(optimizer_state)
    if generator_state is not None:
        g.set_state(generator_state)
    return _shuffled_epoch(m, o, g)


checks.reject(_got, {
    tuple(_variant(_saved[0], _saved[1], None)): "[mc:checkpoint.generator-state] The batches "
        "came in a different order: save generator.get_state() and restore it with set_state().",
    tuple(_variant(_saved[0], None, _saved[2])): "[mc:checkpoint.optimizer-state] Adam restarted "
        "from scratch: save optimizer.state_dict() and load it too.",
}, "the losses after resuming")
checks.expect_equal(_epoch, 1, "the epoch load_checkpoint returned",
                    wrong={None: "[mc:checkpoint.epoch] Return the saved epoch so the loop "
                                 "knows where to continue."})
### BEGIN HIDDEN TESTS
if _got != _expected:
    checks.reject(True, {True: "[mc:checkpoint.incomplete] The resumed losses differ from the "
                               "uninterrupted run's: restore the model's state_dict, the "
                               "optimizer's state_dict and the generator's state."},
                  "the losses after resuming")
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
# ### Exercise 6: one step from accumulated gradients (2 points)
#
# *Misconception targeted: adding micro-batch means without weighting them, or stepping
# after every micro-batch.*
#
# Write `accumulate_step(model, loss_fn, optimizer, X, y, micro_batch)` that makes
# **one** optimizer step whose gradient equals the gradient of `loss_fn(model(X), y)`
# over all rows, computed with one backward per chunk of `micro_batch` rows (the last
# chunk may be smaller; `loss_fn` takes the mean over its rows). `.grad` may hold
# something stale when it is called. Return the large-batch loss as a Python float.

# %% solution 04_training_loop-accumulate
### BEGIN SOLUTION
def accumulate_step(model, loss_fn, optimizer, X, y, micro_batch):
    optimizer.zero_grad()
    total = 0.0
    for start in range(0, len(X), micro_batch):
        xb, yb = X[start:start + micro_batch], y[start:start + micro_batch]
        part = loss_fn(model(xb), yb) * len(xb) / len(X)
        part.backward()
        total += part.item()
    optimizer.step()
    return total
### END SOLUTION

# %% test 04_training_loop-accumulate-test points=2
_answered = (accumulate_step,)  # a NameError here reads as "not answered yet"
_gen = torch.Generator().manual_seed(8)
_X, _y = torch.randn(10, 5, generator=_gen), torch.randint(0, 3, (10,), generator=_gen)
torch.manual_seed(8)
_m = nn.Linear(5, 3)
for _p in _m.parameters():
    _p.grad = torch.ones_like(_p)              # stale
_spy = _SpySGD(_m.parameters(), lr=0.5)
_twin = copy.deepcopy(_m)
_ce = nn.CrossEntropyLoss()
_full = torch.autograd.grad(_ce(_twin(_X), _y), list(_twin.parameters()))
_chunks = [(_X[i:i + 4], _y[i:i + 4]) for i in range(0, 10, 4)]
_means = [torch.autograd.grad(_ce(_twin(a), b), list(_twin.parameters())) for a, b in _chunks]
with checks.explain_errors({}, "accumulate_step(...)"):
    _ret = accumulate_step(_m, _ce, _spy, _X, _y, 4)
if len(_spy.seen) != 1:
    checks.reject(True, {True: f"[mc:accumulation.step-per-micro-batch] optimizer.step() ran "
                               f"{len(_spy.seen)} times: accumulate all chunks, then step once."},
                  "the number of steps")
_used = _spy.seen[0][1][0]
checks.reject_close(_used, {
    _full[0] + 1: "[mc:accumulation.stale-grad] The stale .grad was still there: zero it before "
                  "the first backward.",
    sum(g[0] for g in _means): "[mc:accumulation.unscaled] Each chunk's mean loss was added at full "
                               "weight: scale it by len(chunk) / len(X).",
    sum(g[0] for g in _means) / 3: "[mc:accumulation.equal-weights] Dividing by the number of "
                                   "chunks weights the short last chunk (2 rows) like the others "
                                   "(4 rows): scale by len(chunk) / len(X).",
}, "the weight gradient used by the step")
### BEGIN HIDDEN TESTS
checks.expect_close(_used, _full[0], "the weight gradient used by the step", rtol=1e-4, atol=1e-6,
                    hint="[mc:accumulation.unscaled] It should equal the large-batch gradient.")
checks.expect_close(_ret, _ce(_twin(_X), _y).item(), "the returned loss", rtol=1e-4,
                    hint="[mc:accumulation.unscaled] The sum of the weighted chunk losses.")
### END HIDDEN TESTS

# %% [markdown]
# ### Mixed precision with torch.autocast
#
# Inside `torch.autocast(device_type, dtype)`, operations that tolerate low precision
# (matrix multiplications, `Linear`) run in that dtype, and precision-sensitive ones
# stay in float32. On a CPU autocast's default low-precision type is bfloat16: it keeps
# float32's range (so no loss scaling is needed) with fewer mantissa bits. The older
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
#
# ## 11. Exercise 7: the bug hunt (5 points)
#
# *Misconceptions targeted: layers in a Python list, softmax before `CrossEntropyLoss`,
# float targets, a missing `zero_grad`, evaluation without `eval()` and `no_grad()`.*
#
# This code has five bugs. Each one is a mistake from this notebook or from 03.

# %%
class BuggyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(64, 64), nn.Linear(64, 10)]
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        x = self.dropout(torch.relu(self.layers[0](x)))
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
# architecture (Linear(64, 64), ReLU, Dropout(0.2), Linear(64, 10)) and full-batch Adam.
# Fix one error at a time: each fix lets the code run further and shows the next symptom.
# The test trains your fixed model and checks that it learns.

# %% solution 04_training_loop-bug-hunt
### BEGIN SOLUTION
class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 64), nn.Linear(64, 10)])
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        x = self.dropout(torch.relu(self.layers[0](x)))
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
    model.eval()
    with torch.no_grad():
        return (model(X).argmax(1) == y).float().mean().item()
### END SOLUTION

# %% test 04_training_loop-bug-hunt-test points=5
_answered = (DigitNet, train_digits, digit_accuracy,)  # a NameError here reads as "not answered yet"
with checks.explain_errors({}, "DigitNet()"):
    _net = DigitNet()
if len(list(_net.parameters())) < 4:
    checks.reject(True, {True: "[mc:bughunt.python-list] DigitNet().parameters() misses the "
                               "Linear layers (symptom: 'optimizer got an empty parameter "
                               "list'): a plain Python list hides them; use nn.ModuleList."},
                  "the parameters of DigitNet")
_net.eval()
with torch.no_grad():
    _out = _net(X_val[:20])
if bool((_out >= 0).all()) and torch.allclose(_out.sum(1), torch.ones(20), atol=1e-4):
    checks.reject(True, {True: "[mc:bughunt.double-softmax] DigitNet returns probabilities "
                               "(symptom: the loss cannot fall below about 1.46): "
                               "CrossEntropyLoss applies log_softmax itself, so return the "
                               "raw logits."}, "DigitNet's output")
_net.train()
_twin = copy.deepcopy(_net)
torch.manual_seed(11)
with checks.explain_errors({"dtype": "[mc:bughunt.float-target] (symptom: 'expected target "
                                     "dtype to be Long') CrossEntropyLoss takes int64 class "
                                     "indices: drop .float()."}, "train_digits(...)"):
    train_digits(_net, X_train, y_train, steps=3, lr=0.01)


def _loop(model, zero):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
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
_calls = []
_net.register_forward_hook(lambda m, i, o: _calls.append((m.training, torch.is_grad_enabled())))
_net.train()
with checks.explain_errors({}, "digit_accuracy(...)"):
    _acc = digit_accuracy(_net, X_val, y_val)
if any(t for t, _ in _calls):
    checks.reject(True, {True: "[mc:bughunt.eval-mode] digit_accuracy ran with dropout on "
                               "(symptom: two calls give different accuracies): call "
                               "model.eval() first."}, "model.training during digit_accuracy")
if any(g for _, g in _calls):
    checks.reject(True, {True: "[mc:bughunt.no-grad] digit_accuracy recorded a graph: "
                               "wrap it in torch.no_grad()."}, "grad mode during digit_accuracy")
### BEGIN HIDDEN TESTS
checks.expect_close(_mine, _right, "the weights after 3 steps of train_digits", rtol=1e-4,
                    atol=1e-6, hint="[mc:bughunt.no-zero-grad] Full-batch Adam with zero_grad, "
                                    "forward, loss, backward, step.")
torch.manual_seed(12)
_fresh = DigitNet()
train_digits(_fresh, X_train, y_train, steps=150, lr=0.01)
_final = digit_accuracy(_fresh, X_test, y_test)
checks.expect_type(_final, float, "digit_accuracy(...)")
if _final < 0.9:
    checks.reject(True, {True: f"[mc:bughunt.double-softmax] The fixed model reached only "
                               f"{_final:.1%} test accuracy after 150 steps: a bug remains."},
                  "the fixed model's accuracy")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# **1. Forgetting `optimizer.zero_grad()`**, and **2. softmax before `CrossEntropyLoss`**,
# shown by their curves next to a correct run (the same MLP, 10 epochs):

# %%
def curve_run(label, tail=(), zero_grad=True, lr=0.01):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10), *tail)
    return helpers.loss_curves.fit(net, torch.optim.Adam(net.parameters(), lr=lr),
                                   (X_train, y_train, X_val, y_val), epochs=10, label=label,
                                   zero_grad=zero_grad)


runs = [curve_run("correct"), curve_run("no zero_grad", zero_grad=False),
        curve_run("softmax before the loss", tail=[nn.Softmax(dim=1)])]
for run in runs:
    print(f"{run.label:24s} final validation loss {run.val_loss[-1]:.3f}, accuracy {run.val_acc[-1]:.1%}")
helpers.loss_curves.show(helpers.loss_curves.draw_comparison(runs))

# %% [markdown]
# Without `zero_grad` every step follows the sum of all past gradients: the loss jumps
# and stalls far above the correct run's. With the extra softmax the loss stays above
# its floor of 1.46 (section 3) even though the accuracy can look fine.
#
# **3. Float class indices.** Reproduced in section 3:
# `CrossEntropyLoss()(logits, targets.float())` raises; targets must be int64.
#
# **4. Evaluating in training mode.** Dropout makes the "accuracy" change from call to call:

# %%
torch.manual_seed(0)
dropper = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 10))
dropper.train()
with torch.no_grad():
    print("train mode:", [round((dropper(X_val).argmax(1) == y_val).float().mean().item(), 3) for _ in range(3)])
dropper.eval()
with torch.no_grad():
    print("eval mode: ", [round((dropper(X_val).argmax(1) == y_val).float().mean().item(), 3) for _ in range(3)])

# %% [markdown]
# **5. Logging loss tensors.** Section 4 measured what a kept validation loss holds;
# `.item()` is the fix.
#
# ## Summary
#
# - One iteration: `zero_grad` → forward → loss → `backward` → `step`. Gradients add up
#   unless cleared; `step` uses whatever `.grad` holds when it runs.
# - SGD moves θ by −η·∇ (2.0 − 0.2 × 3.0 = 1.4); momentum, Adam and AdamW change only
#   that update, and each needs its own learning rate.
# - `CrossEntropyLoss` takes raw logits and int64 class indices; `MSELoss` suits
#   regression.
# - Measure with `eval()` and `no_grad()`; log `.item()`.
# - Early stopping keeps the best epoch's weights; `clip_grad_norm_` bounds a step;
#   check `torch.isfinite(loss)` and stop naming the step.
# - A checkpoint holds the model, the optimizer and the generator state; resuming then
#   repeats the uninterrupted run's losses exactly.
# - Overfit one batch to find bugs fast; accumulate weighted micro-batch gradients when
#   a batch does not fit; `torch.autocast("cpu", dtype=torch.bfloat16)` for mixed precision.
#
# **Next:** 05_data replaces the hand-made index batches with `Dataset` and `DataLoader`.
#
# **Closing note.** Measured on the machine that ran this page:

# %%
def median_update_ms(explorer, repeat=3):
    times = []
    for _ in range(repeat):
        explorer.compute()
        times.append((explorer.timings["model"] + explorer.timings["draw"]) * 1000)
    return sorted(times)[len(times) // 2]


for label, make in [("loop anatomy", helpers.loop_anatomy.explore),
                    ("live loss curves", helpers.loss_curves.explore)]:
    print(f"{label}: median update (model + draw) {median_update_ms(make()):.0f} ms")
print(f"the digits MLP reached {test_accuracy:.1%} test accuracy in {train_seconds:.2f} s")
print(f"this notebook ran top to bottom in {time.perf_counter() - notebook_start:.1f} s")
