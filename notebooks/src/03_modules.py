# %% [markdown]
# # 03 Modules: how `nn.Module` keeps track of a model
#
# In 02 the parameters were leaves you made by hand, and you had to remember each one.
# `nn.Module` remembers them for you: assign a layer or an `nn.Parameter` to an attribute
# and the module registers it, so that `parameters()`, the optimizer, `state_dict()`,
# `.to(...)` and `train()`/`eval()` all reach it. This notebook shows that registration at
# work, and what happens to the tensors and layers it does not see: they are not trained,
# not saved and not moved, and nothing warns you.
#
# **You will learn to**
# - write a module (`super().__init__()`, attributes, `forward`) and read its
#   `named_parameters()`, buffers and submodules;
# - keep layers in `nn.ModuleList` / `nn.Sequential` / `nn.ModuleDict`, not in a Python list;
# - count parameters (d_out·(d_in + 1) per Linear) and compute a Linear layer by hand;
# - save and load a `state_dict` safely (`torch.load(..., weights_only=True)`);
# - switch `train()` / `eval()` (dropout, batch norm), freeze parameters, choose between
#   functional and object layers, write a layer with its own Parameters;
# - read activations with forward hooks, and remove the hooks afterwards.
#
# **Prerequisites:** 01 (tensors, shapes, matrix products), 02 (leaves, `requires_grad`,
# `.grad`, `torch.no_grad()`).
#
# **How this notebook works.** Quick quizzes ask you to *predict* before a cell shows the
# answer; numbered exercises (points in the heading) are graded, and each answer cell gives
# you the signature to complete. A failing test says what you probably believed.

# %%
import os
import pickle
import tempfile
import time

import torch
import torch.nn.functional as F
from torch import nn

import helpers.activations
import helpers.modules
from helpers import checks

notebook_start = time.perf_counter()
torch.manual_seed(0)
torch.set_num_threads(1)  # these models are tiny: a second thread only waits for a busy core
scratch = tempfile.TemporaryDirectory(prefix="03_modules_")  # deleted when the kernel stops
workdir = scratch.name  # every file this page writes goes here

# %% [markdown]
# ## 1. A module is a class that registers what you assign
#
# A module subclasses `nn.Module`, calls `super().__init__()` first (that creates the
# registries), assigns its layers as attributes, and says in `forward` how an input flows
# through them. Calling the module, `model(x)`, runs `forward` (plus any hooks, section 9).

# %%
class TwoLayer(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.hidden = nn.Linear(d_in, d_hidden)
        self.out = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


net = TwoLayer(4, 8, 3)
print(net)
for name, p in net.named_parameters():
    print(f"{name:15s} shape {tuple(p.shape)}  requires_grad={p.requires_grad}")
print("output shape:", tuple(net(torch.randn(5, 4)).shape))

# %% [markdown]
# The names come from the attributes: `self.hidden = nn.Linear(...)` went through
# `nn.Module.__setattr__`, which saw a module and put it in the registry `_modules` under the
# name `hidden`; the Linear's own weight and bias sit in its `_parameters`.

# %%
print("net._modules:", list(net._modules))
print("net.hidden._parameters:", list(net.hidden._parameters))

# %% [markdown]
# Without `super().__init__()` those registries do not exist yet, and the first assignment
# of a layer fails:

# %%
class NoInit(nn.Module):
    def __init__(self):
        self.layer = nn.Linear(2, 2)


with checks.expect_error(AttributeError):
    NoInit()

# %% [markdown]
# ## 2. `nn.Parameter`, plain tensors and buffers
#
# A module holds three kinds of tensors:
#
# - an **`nn.Parameter`** (a tensor with `requires_grad=True` that the module registers):
#   listed by `parameters()`, so the optimizer updates it, and saved in `state_dict()`;
# - a **buffer**, registered with `self.register_buffer(name, tensor)`: saved in
#   `state_dict()` and moved by `.to(...)`, but not a parameter, so not trained (batch
#   norm's running mean is one);
# - a **plain tensor** attribute: none of the above. The module does not know it is there.

# %%
class Scaler(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(d))        # trained
        self.shift = torch.zeros(d)                     # plain tensor: unseen
        self.register_buffer("calls", torch.zeros(()))  # saved and moved, not trained

    def forward(self, x):
        self.calls += 1
        return x * self.scale + self.shift


scaler = Scaler(3)
print("parameters():  ", [name for name, _ in scaler.named_parameters()])
print("buffers():     ", [name for name, _ in scaler.named_buffers()])
print("state_dict():  ", list(scaler.state_dict()))
doubled = scaler.to(torch.float64)
print("after .to(float64): scale", doubled.scale.dtype, "| calls", doubled.calls.dtype,
      "| shift", doubled.shift.dtype)

# %% [markdown]
# `.to(torch.float64)` converted the parameter and the buffer and left the plain tensor
# as float32: on a GPU the same thing leaves `shift` on the CPU, and `forward` fails with
# a device mismatch. A tensor the module needs belongs in a Parameter or a buffer.
#
# **Quick quiz (predict).** A module's `__init__` (after `super().__init__()`) does
#
# ```python
# self.w = nn.Parameter(torch.randn(3, 4))
# self.b = torch.zeros(4)
# self.register_buffer("m", torch.zeros(4))
# self.lin = nn.Linear(4, 2)
# ```
#
# What is `sum(p.numel() for p in module.parameters())`? Put the number in
# `answer_param_count`.

# %% solution 03_modules-quiz-param-count
### BEGIN SOLUTION
answer_param_count = 22
### END SOLUTION

# %% test 03_modules-quiz-param-count-test points=1
checks.reject(answer_param_count, {
    26: "[mc:modules.plain-tensor-registered] That counts self.b: a plain tensor attribute "
        "is not registered, so parameters() does not list it.",
    30: "[mc:modules.buffer-is-parameter] That counts the plain tensor and the buffer: a "
        "buffer is saved in state_dict() but parameters() leaves it out.",
    12: "[mc:modules.submodule-not-counted] parameters() also walks the submodules: the "
        "Linear's weight and bias count too.",
    20: "[mc:modules.submodule-not-counted] nn.Linear(4, 2) has a weight and a bias; count "
        "both, and self.w.",
}, "answer_param_count")
### BEGIN HIDDEN TESTS
class _Quiz(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 4))
        self.b = torch.zeros(4)
        self.register_buffer("m", torch.zeros(4))
        self.lin = nn.Linear(4, 2)


with checks.because("[mc:modules.plain-tensor-registered] Count the elements of the "
                    "Parameter and of the Linear's weight and bias; plain tensors and "
                    "buffers are not parameters."):
    checks.expect_equal(answer_param_count, sum(p.numel() for p in _Quiz().parameters()),
                        "answer_param_count")
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Containers: ModuleList, Sequential, ModuleDict, and the Python-list bug
#
# A model with a variable number of layers needs a container. A Python list looks like
# one, but `__setattr__` sees a list, not a module, and registers nothing:

# %%
class ListMLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


buggy = ListMLP([4, 8, 3])
print("forward works:", tuple(buggy(torch.randn(2, 4)).shape))
print("parameters():", list(buggy.parameters()))
print("state_dict():", buggy.state_dict())
with checks.expect_error(ValueError):
    torch.optim.SGD(buggy.parameters(), lr=0.1)

# %% [markdown]
# The forward pass runs, so the bug hides until training: `SGD` refuses an empty list
# here, but in a model that also has one registered layer, training updates that layer
# alone while the listed ones stay at their random start (reproduced under "Common
# mistakes" at the end). `nn.ModuleList`
# registers each element under its index; `nn.Sequential` does the same and also chains
# them in `forward`; `nn.ModuleDict` registers them under string keys.

# %%
class ModuleListMLP(ListMLP):
    def __init__(self, sizes):
        super().__init__(sizes)
        self.layers = nn.ModuleList(self.layers)  # the same layers, now registered


fixed = ModuleListMLP([4, 8, 3])
print([name for name, _ in fixed.named_parameters()])
seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
print([name for name, _ in seq.named_parameters()])
heads = nn.ModuleDict({"digit": nn.Linear(8, 10), "parity": nn.Linear(8, 2)})
print([name for name, _ in heads.named_parameters()])

# %% [markdown]
# ### The module inspector
#
# The inspector draws a model's registration tree: every submodule with its own
# parameters (blue, with shape and count; grey when frozen), its buffers (green) and the
# tensors or layers it holds *without* registering them (red: what `parameters()`, the
# optimizer and `state_dict()` do not see), with parameter totals per subtree. On the right
# it sends one input through the model twice (more on that in section 5).
#
# **Try this**
# 1. Pick "layers in a Python list". Notice the red row and the total of 0 parameters.
#    Explain why `SGD` above found an empty list.
# 2. Pick "the same layers in a ModuleList". Notice the names `layers.0`, `layers.1` and the
#    total. Explain where the `0` and `1` in `layers.0.weight` come from.
# 3. Pick "Scaler". Notice which of `scale`, `shift` and `calls` is blue, green and red.
#    Explain which of them `state_dict()` saves, and check your quiz answer above with it.

# %%
inspector_models = {
    "layers in a Python list": (buggy, torch.randn(4, 4)),
    "the same layers in a ModuleList": (fixed, torch.randn(4, 4)),
    "Scaler": (Scaler(3), torch.randn(4, 3)),
    "TwoLayer": net,
}
helpers.modules.explore(inspector_models)

# %% [markdown]
# ### Exercise 1: register the layers (2 points)
#
# Write `Tower(sizes)`: a Linear layer between each pair of consecutive sizes, kept in an
# attribute named `layers` in a container that registers them, with a ReLU after every
# Linear except the last. `Tower([5, 7, 3])` maps (N, 5) to (N, 3).

# %% solution 03_modules-fix-list
### BEGIN SOLUTION
class Tower(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x):
        for k, layer in enumerate(self.layers):
            x = layer(x)
            if k < len(self.layers) - 1:
                x = torch.relu(x)
        return x
### END SOLUTION

# %% test 03_modules-fix-list-test points=2
_answered = (Tower,)  # a NameError here reads as "not answered yet"
torch.manual_seed(1)
with checks.explain_errors({"before Module.__init__": "[mc:modules.no-super-init] Call "
                            "super().__init__() first in __init__: it creates the registries."},
                           "Tower([5, 7, 3])"):
    _tower = Tower([5, 7, 3])
_linears = [m for m in _tower.modules() if isinstance(m, nn.Linear)]
checks.expect_true(len(_linears) == 2,
                   "[mc:modules.python-list] Tower([5, 7, 3]) registers "
                   f"{len(_linears)} Linear layers instead of 2: layers kept in a Python list "
                   "are invisible to the module. Use nn.ModuleList (or nn.Sequential).")
checks.expect_true(hasattr(_tower, "layers") and isinstance(_tower.layers, nn.Module),
                   "[mc:modules.python-list] Keep the layers in the attribute `layers`, as a "
                   "registering container (nn.ModuleList or nn.Sequential), not a Python list.")
_x = torch.randn(6, 5)
with checks.explain_errors({"shape": "[mc:modules.layer-sizes] Each Linear goes from "
                            "sizes[k] to sizes[k + 1]."}, "Tower([5, 7, 3])(x)"):
    _out = _tower(_x)
checks.expect_shape(_out, (6, 3), "Tower([5, 7, 3])(x)")
### BEGIN HIDDEN TESTS
_expected = _linears[1](torch.relu(_linears[0](_x)))
checks.expect_close(_out, _expected, "Tower([5, 7, 3])(x)",
                    hint="[mc:modules.relu-placement] A ReLU after every Linear except the last.")
_big = Tower([3, 4, 5, 2])
with checks.because("[mc:modules.python-list] Every Linear must be registered: the optimizer "
                    "trains what parameters() lists."):
    checks.expect_equal(sum(p.numel() for p in _big.parameters()), 4 * 4 + 5 * 5 + 2 * 6,
                        "parameters of Tower([3, 4, 5, 2])")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Inside a Linear layer: weight layout and parameter counts
#
# `nn.Linear(d_in, d_out)` computes y = x Wᵀ + b for a batch x of shape (N, d_in).
#
# **Quick quiz (predict).** What is the shape of `nn.Linear(20, 7).weight`? Put it in
# `answer_weight_shape` as a tuple.

# %% solution 03_modules-quiz-weight-shape
### BEGIN SOLUTION
answer_weight_shape = (7, 20)
### END SOLUTION

# %% test 03_modules-quiz-weight-shape-test points=1
checks.reject(answer_weight_shape, {
    (20, 7): "[mc:linear.weight-layout] The weight is stored as (d_out, d_in), one row per "
             "output unit; y = x Wᵀ + b transposes it.",
    (7,): "[mc:linear.bias-shape] (7,) is the bias; the weight has two dimensions.",
}, "answer_weight_shape")
### BEGIN HIDDEN TESTS
with checks.because("[mc:linear.weight-layout] The weight has one row per output unit: "
                    "(d_out, d_in)."):
    checks.expect_equal(tuple(answer_weight_shape), tuple(nn.Linear(20, 7).weight.shape),
                        "answer_weight_shape")
### END HIDDEN TESTS

# %% [markdown]
# Check it, and check the formula against the layer itself:

# %%
layer = nn.Linear(20, 7)
x = torch.randn(5, 20)
print("weight", tuple(layer.weight.shape), "bias", tuple(layer.bias.shape))
by_hand = x @ layer.weight.T + layer.bias
print("x Wᵀ + b equals layer(x):", torch.allclose(by_hand, layer(x)))

# %% [markdown]
# Each output unit has d_in weights and one bias, so a Linear layer has d_out·(d_in + 1)
# parameters. For the classic MNIST classifier 784 → 128 → 10:

# %%
mnist = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
for name, p in mnist.named_parameters():
    print(f"{name:9s} {str(tuple(p.shape)):11s} {p.numel():>7,}")
counted = sum(p.numel() for p in mnist.parameters())
formula = 128 * (784 + 1) + 10 * (128 + 1)
print(f"numel total {counted:,}; formula 128·785 + 10·129 = {formula:,}")

# %% [markdown]
# ### Exercise 2: count an MLP's parameters (2 points)
#
# Write `mlp_param_count(sizes)` that returns, as a Python `int`, the number of parameters
# of Linear layers between consecutive `sizes` (ReLUs have none). For `[784, 128, 10]` it
# returns the total above.

# %% solution 03_modules-count-params
### BEGIN SOLUTION
def mlp_param_count(sizes):
    return sum(d_out * (d_in + 1) for d_in, d_out in zip(sizes[:-1], sizes[1:]))
### END SOLUTION

# %% test 03_modules-count-params-test points=2
_answered = (mlp_param_count,)
with checks.explain_errors({}, "mlp_param_count([3, 4, 2])"):
    _count = mlp_param_count([3, 4, 2])
checks.expect_type(_count, int, "mlp_param_count([3, 4, 2])")
checks.reject(_count, {
    20: "[mc:params.forget-bias] That counts the weights only: each output unit also has a "
        "bias, d_out·(d_in + 1) per layer.",
    27: "[mc:params.bias-per-input] The bias has one entry per output unit (d_out), not per "
        "input: d_out·(d_in + 1).",
    29: "[mc:params.input-bias] Each layer's bias has d_out entries: count them once per "
        "Linear, not once per size in the list.",
}, "mlp_param_count([3, 4, 2])")
### BEGIN HIDDEN TESTS
_gen = torch.Generator().manual_seed(3)
for _depth in (1, 2, 4):
    _sizes = [int(s) for s in torch.randint(1, 40, (_depth + 1,), generator=_gen)]
    _net = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(_sizes[:-1], _sizes[1:])])
    with checks.because("[mc:params.forget-bias] Each Linear has d_out·(d_in + 1) parameters; "
                        "compare with sum(p.numel() for p in model.parameters())."):
        checks.expect_equal(mlp_param_count(_sizes), sum(p.numel() for p in _net.parameters()),
                            f"mlp_param_count({_sizes})")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 3: a Linear layer by hand (2 points)
#
# Write `linear_forward(x, weight, bias)` that returns what `nn.Linear` returns for a batch
# `x` of shape (N, d_in), given its `weight` and `bias`, using matrix products (not
# `nn.Linear` itself).

# %% solution 03_modules-linear-by-hand
### BEGIN SOLUTION
def linear_forward(x, weight, bias):
    return x @ weight.T + bias
### END SOLUTION

# %% test 03_modules-linear-by-hand-test points=2
_answered = (linear_forward,)
torch.manual_seed(2)
_layer = nn.Linear(4, 3)
_x = torch.randn(5, 4)
_layout = ("[mc:linear.weight-layout] weight has shape (d_out, d_in): multiply x by its "
           "transpose, x @ weight.T.")
with checks.explain_errors({"mat1 and mat2": _layout, "size of tensor": _layout},
                           "linear_forward(x, weight, bias)"):
    _y = linear_forward(_x, _layer.weight, _layer.bias)
checks.expect_shape(_y, (5, 3), "linear_forward(x, weight, bias)")
with torch.no_grad():
    _no_bias = _x @ _layer.weight.T
checks.reject_close(_y.detach(), {_no_bias: "[mc:linear.no-bias] The bias is missing: "
                                  "nn.Linear adds b to every row."}, "linear_forward(...)")
### BEGIN HIDDEN TESTS
_square = nn.Linear(3, 3)
_xs = torch.randn(4, 3)
with checks.explain_errors({"": _layout}, "linear_forward on a square layer"):
    _ys = linear_forward(_xs, _square.weight, _square.bias)
checks.expect_close(_ys, _square(_xs), "linear_forward on a square (3, 3) layer",
                    hint=_layout + " With a square weight, x @ weight runs and is wrong.")
checks.expect_close(_y, _layer(_x), "linear_forward(x, weight, bias)", hint=_layout)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. `train()` and `eval()`: dropout and batch norm
#
# Every module has a flag `training`; `model.train()` and `model.eval()` set it on the
# model and all its submodules. Two layers behave differently in the two modes:
#
# - **Dropout(p)**: in training, each element is zeroed with probability p and the
#   survivors are multiplied by 1/(1 − p), so that the expected value is unchanged; in
#   evaluation it passes its input through.
# - **BatchNorm**: in training it normalises with the mean and variance of the current
#   batch and updates its running averages (buffers); in evaluation it uses the running
#   averages, so one sample's output no longer depends on the rest of the batch.
#
# **Quick quiz (predict).** `nn.Dropout(p=0.2)` in training mode receives `torch.ones(10)`.
# What value do the elements that are not zeroed have? Put the number in
# `answer_dropout_value`.

# %% solution 03_modules-quiz-dropout-value
### BEGIN SOLUTION
answer_dropout_value = 1.25
### END SOLUTION

# %% test 03_modules-quiz-dropout-value-test points=1
checks.reject_close(answer_dropout_value, {
    1.0: "[mc:dropout.no-rescale] Dropout rescales the survivors by 1/(1 − p) in training, "
         "so that the expected output equals the input.",
    0.8: "[mc:dropout.multiply-keep] The survivors are divided by the keep probability "
         "1 − p, not multiplied by it.",
    0.2: "[mc:dropout.multiply-keep] p is the probability of zeroing; survivors are scaled "
         "by 1/(1 − p).",
    5.0: "[mc:dropout.divide-by-p] The scale is 1/(1 − p), the inverse of the keep "
         "probability, not 1/p.",
}, "answer_dropout_value")
### BEGIN HIDDEN TESTS
_drop = nn.Dropout(0.2)
_drop.train()
torch.manual_seed(6)
_kept = _drop(torch.ones(1000))
checks.expect_close(answer_dropout_value, _kept[_kept != 0][0].item(), "answer_dropout_value",
                    rtol=1e-5, hint="[mc:dropout.no-rescale] Survivors are scaled by 1/(1 − p).")
### END HIDDEN TESTS

# %%
drop = nn.Dropout(p=0.2)
torch.manual_seed(7)
print("train():", drop(torch.ones(10)))
drop.eval()
print("eval(): ", drop(torch.ones(10)))

bn = nn.BatchNorm1d(3)
batch = torch.randn(64, 3) * 2 + 5
print("running_mean before:", bn.running_mean)
bn(batch)  # training mode: batch statistics, and the running averages move
print("running_mean after one training batch:", bn.running_mean)
bn.eval()
one = batch[:1]
print("eval: a sample alone and inside its batch give the same output:",
      torch.allclose(bn(one), bn(batch)[:1]))
bn.train()
print("train: the same comparison:", torch.allclose(bn(batch[:2])[:1], bn(batch)[:1]))
print("momentum:", bn.momentum, "| batch mean:", batch.mean(0))
print("bn.training after bn.train(False):", bn.train(False).training)

# %% [markdown]
# The running mean moved a fraction `bn.momentum` of the way from 0 towards the batch
# mean (printed below). `model.train(False)` is the same as `model.eval()`, and
# `model.train(mode)` sets the flag to `mode`; `model.training` reads it.
#
# A gradient step, as in 02, moves each parameter against its gradient under
# `torch.no_grad()`. An optimizer (04) does exactly this to every tensor that
# `model.parameters()` lists, which is why registration decides what trains:
#
# ```python
# def sgd_step(model, lr):
#     with torch.no_grad():
#         for p in model.parameters():
#             if p.grad is not None:
#                 p -= lr * p.grad
# ```
#
# **Quick quiz (predict).** True or false: after `model.eval()`, a call of
# `loss.backward()` followed by `sgd_step(model, 0.1)` leaves the model's weights
# unchanged. Put `True` or `False` in `answer_eval_freezes`.

# %% solution 03_modules-quiz-eval-freezes
### BEGIN SOLUTION
answer_eval_freezes = False
### END SOLUTION

# %% test 03_modules-quiz-eval-freezes-test points=1
checks.expect_type(answer_eval_freezes, bool, "answer_eval_freezes")
checks.reject(answer_eval_freezes, {
    True: "[mc:mode.eval-freezes] eval() only switches dropout and batch norm to their "
          "evaluation behaviour; requires_grad is unchanged, so backward fills .grad and "
          "step() updates the weights.",
}, "answer_eval_freezes")
### BEGIN HIDDEN TESTS
_m = nn.Linear(2, 1)
_m.eval()
_before = _m.weight.detach().clone()
_m(torch.ones(1, 2)).sum().backward()
with torch.no_grad():
    for _p in _m.parameters():
        _p -= 0.1 * _p.grad
with checks.because("[mc:mode.eval-freezes] eval() does not freeze parameters."):
    checks.expect_equal(answer_eval_freezes, torch.equal(_before, _m.weight.detach()),
                        "answer_eval_freezes")
### END HIDDEN TESTS

# %% [markdown]
# The answer, run: `eval()` leaves `requires_grad` alone, backward still fills `.grad`,
# and the step still moves the weights. It changes the behaviour of dropout and batch norm
# only; `torch.no_grad()` is what stops the graph.

# %%
def sgd_step(model, lr):
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p -= lr * p.grad


probe_layer = nn.Linear(2, 1).eval()
before = probe_layer.weight.detach().clone()
probe_layer(torch.ones(1, 2)).sum().backward()
sgd_step(probe_layer, 0.1)
print("training flag:", probe_layer.training, "| requires_grad:", probe_layer.weight.requires_grad,
      "| weights changed by the step:", not torch.equal(before, probe_layer.weight))

# %% [markdown]
# A model used for predictions runs in `eval()` mode and under `torch.no_grad()` (no
# graph is recorded: faster, less memory). A helper that does this should put the model
# back in the mode it found it in, so that a training loop calling it keeps training with
# dropout.
#
# ### Exercise 4: predict without side effects (2 points)
#
# Write `predict(model, x)`: return `model(x)` computed in evaluation mode without
# recording a graph, and leave `model` in the mode it was in before the call (training or
# evaluation; `model.training` tells which).

# %% solution 03_modules-predict
### BEGIN SOLUTION
def predict(model, x):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = model(x)
    model.train(was_training)
    return out
### END SOLUTION

# %% test 03_modules-predict-test points=2
_answered = (predict,)
torch.manual_seed(8)
_net = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
                     nn.Linear(16, 2))
_net(torch.randn(32, 4))  # some running statistics
_net.train()
_seen = []
_hook = _net[0].register_forward_hook(
    lambda m, i, o: _seen.append((_net[3].training, torch.is_grad_enabled())))
_x = torch.randn(6, 4)
try:
    with checks.explain_errors({}, "predict(model, x)"):
        _out = predict(_net, _x)
finally:
    _hook.remove()
checks.expect_true(bool(_seen), "[mc:predict.model-not-called] predict never called the model: "
                   "return model(x).")
checks.expect_true(not _seen[-1][0], "[mc:predict.dropout-active] The model ran in training "
                   "mode, so dropout zeroed activations at random: call model.eval() first.")
checks.expect_true(not _seen[-1][1], "[mc:predict.graph-recorded] Autograd recorded a graph: "
                   "run the model inside `with torch.no_grad():`.")
checks.expect_true(_net.training, "[mc:predict.mode-not-restored] The model was in training "
                   "mode before predict and is in evaluation mode after it: remember "
                   "model.training and restore it with model.train(was_training).")
### BEGIN HIDDEN TESTS
_net.eval()
with torch.no_grad():
    _ref = _net(_x)
checks.expect_close(_out, _ref, "predict(model, x)",
                    hint="[mc:predict.dropout-active] The output in eval mode, for this x.")
with checks.explain_errors({}, "predict(model in eval mode, x)"):
    predict(_net, _x)
checks.expect_true(not _net.training, "[mc:predict.mode-not-restored] A model in evaluation "
                   "mode must stay in evaluation mode: restore the mode it had, do not "
                   "always call model.train().")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Saving and loading: `state_dict`, and why not to unpickle strangers' files
#
# `state_dict()` maps each registered name to its tensor: parameters and buffers, nothing
# else (not the code, not the optimizer). The usual way to save a model is to save that
# dictionary, and to load it into a freshly built model of the same class:

# %%
torch.manual_seed(4)
source = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
print({k: tuple(v.shape) for k, v in source.state_dict().items()})
path = os.path.join(workdir, "small.pt")
torch.save(source.state_dict(), path)

copy_model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
print(copy_model.load_state_dict(torch.load(path, weights_only=True)))
print("same weights:", all(torch.equal(a, b) for a, b in
                           zip(source.state_dict().values(), copy_model.state_dict().values())))

# %% [markdown]
# `load_state_dict` is strict: a key the model does not have, or one it lacks, is an error
# (here the file has no batch norm, so the names are shifted):

# %%
other = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
with checks.expect_error(RuntimeError):
    other.load_state_dict(torch.load(path, weights_only=True))

# %% [markdown]
# `torch.save` writes a Python **pickle**, and unpickling can call any function the file
# names: an object's `__reduce__` tells pickle "to rebuild me, call this function with
# these arguments". Here the function is a harmless `print`, but a file from the internet
# could name `os.system` just as well. `torch.load(..., weights_only=True)` (the default
# since PyTorch 2.6) only rebuilds tensors, numbers, strings, containers and a short list
# of other safe types, and refuses everything else:

# %%
class Note:
    def __reduce__(self):
        return (print, ("print() was called while the file was being loaded",))


untrusted = os.path.join(workdir, "untrusted.pt")
torch.save({"weight": torch.ones(2), "note": Note()}, untrusted)
try:
    torch.load(untrusted, weights_only=True)
except pickle.UnpicklingError as error:
    reason = [line.strip() for line in str(error).splitlines() if "Unsupported global" in line]
    print("weights_only=True refused it:", reason[0] if reason else "UnpicklingError")
try:
    torch.load(untrusted)
except pickle.UnpicklingError:
    print("torch.load with no weights_only argument refused it too: True is the default")
print("weights_only=False ran it:", torch.load(untrusted, weights_only=False))

# %% [markdown]
# With `weights_only=False` the `print` ran during loading, before your code saw the
# result. Load files you did not make yourself with `weights_only=True`.
#
# ### Exercise 5: load weights safely (2 points)
#
# Write `load_weights(path, make_model)`: build a new model with `make_model()`, load the
# state_dict saved at `path` into it without running code from the file, put it in
# evaluation mode (a model loaded for use makes predictions) and return it. A file that holds anything other than tensors and containers must
# make `load_weights` raise an error.

# %% solution 03_modules-load-safely
### BEGIN SOLUTION
def load_weights(path, make_model):
    model = make_model()
    model.load_state_dict(torch.load(path, weights_only=True))
    model.eval()
    return model
### END SOLUTION

# %% test 03_modules-load-safely-test points=2
_answered = (load_weights,)
_tripwire = []


def _trip(message):
    _tripwire.append(message)


class _Payload:
    def __reduce__(self):
        return (_trip, ("loaded",))


def _make():
    return nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 2))


torch.manual_seed(5)
_saved = _make()
_saved.train()
_saved(torch.randn(16, 3))  # moves batch norm's running statistics away from their start
_good = os.path.join(workdir, "good.pt")
torch.save(_saved.state_dict(), _good)
with checks.explain_errors({"weights only": "[mc:state-dict.trust-pickle] A file of tensors "
                            "loads with weights_only=True."}, "load_weights(path, make_model)"):
    _loaded = load_weights(_good, _make)
checks.expect_true(isinstance(_loaded, nn.Module),
                   "[mc:state-dict.returns-dict] Return the model you loaded the weights into, "
                   "not the state_dict.")
checks.expect_true(not _loaded.training,
                   "[mc:state-dict.mode] The loaded model is still in training mode: call "
                   "model.eval() before returning it, or batch norm and dropout behave as in "
                   "training.")
_evil = os.path.join(workdir, "evil.pt")
torch.save({"0.weight": torch.zeros(5, 3), "note": _Payload()}, _evil)
_tripwire.clear()
checks.expect_raises(Exception, load_weights, _evil, _make, name="load_weights(untrusted file)",
                     why="[mc:state-dict.trust-pickle] Load with torch.load(path, "
                         "weights_only=True): it refuses objects that are not tensors.")
checks.expect_true(not _tripwire,
                   "[mc:state-dict.trust-pickle] Loading the untrusted file called a function "
                   "it named: that is what weights_only=False allows. Use weights_only=True.")
### BEGIN HIDDEN TESTS
with checks.because("[mc:state-dict.not-loaded] Every parameter and buffer must come from "
                    "the file: model.load_state_dict(torch.load(path, weights_only=True))."):
    for _k, _v in _saved.state_dict().items():
        checks.expect_equal(_loaded.state_dict()[_k], _v, f"state_dict()[{_k!r}]")
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Freezing parameters, and functional versus object layers
#
# To **freeze** a parameter is to stop training it: with `requires_grad=False`, backward
# leaves its `.grad` at None and the optimizer skips it. `module.requires_grad_(False)`
# does it for every parameter of a submodule. Fine-tuning a pretrained network often
# freezes everything but the last layer:

# %%
torch.manual_seed(9)
tuned = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
def trainable(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print("trainable before:", trainable(tuned))
tuned[0].requires_grad_(False)
print("trainable after freezing tuned[0]:", trainable(tuned))
tuned(torch.randn(4, 8)).sum().backward()
print("tuned[0].weight.grad:", tuned[0].weight.grad, "| tuned[2].weight.grad shape:",
      tuple(tuned[2].weight.grad.shape))
tuned[0].requires_grad_(True)  # unfreeze again

# %% [markdown]
# Setting an *attribute* `requires_grad` on a module is not the same thing: the module has
# no such flag, Python just stores a new attribute, and every parameter keeps training:

# %%
tuned[0].requires_grad = False  # a new, unused attribute on the module
print("trainable after `tuned[0].requires_grad = False`:", trainable(tuned))
del tuned[0].requires_grad

# %% [markdown]
# **Functional versus object layers.** `torch.nn.functional` (imported as `F`) has the
# same operations as functions: `F.relu(x)`, `F.linear(x, weight, bias)`,
# `F.dropout(x, p, training)`. Use an object layer (`nn.Linear`, `nn.Dropout`) when the
# operation owns parameters, buffers or a mode, so that the module registers and switches
# them; a function is fine for stateless operations such as ReLU. The trap is `F.dropout`:
# its `training` argument defaults to True and knows nothing of the module's mode.

# %%
class FunctionalDrop(nn.Module):
    def forward(self, x):
        return F.dropout(x, p=0.5)                          # the mistake


class ModeAwareDrop(nn.Module):
    def forward(self, x):
        return F.dropout(x, p=0.5, training=self.training)  # follows train()/eval()


torch.manual_seed(10)
for model in (FunctionalDrop().eval(), ModeAwareDrop().eval(), nn.Dropout(0.5).eval()):
    print(f"{type(model).__name__:15s} in eval():", model(torch.ones(6)))
print("F.linear equals the layer:", torch.allclose(F.linear(x, layer.weight, layer.bias), layer(x)))

# %% [markdown]
# ### The inspector again: modes and frozen parameters
#
# **Try this**
# 1. Pick "MLP with dropout and batch norm" in `train` mode. Notice that the two passes
#    over the same input give different outputs. Switch to `eval` and notice they agree.
#    Explain which two layers make the difference.
# 2. Set "freeze" to `0`. Notice the grey rows and how far the trainable count falls.
#    Explain the drop with d_out·(d_in + 1).
# 3. With nothing frozen, toggle `train` and `eval`. Notice the trainable count. Explain
#    what this says about your answer to the `eval()` quiz.

# %%
torch.manual_seed(11)
regularised = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
                            nn.Linear(16, 4))
regularised(torch.randn(64, 8))  # one training batch: batch norm has running statistics
helpers.modules.explore({"MLP with dropout and batch norm": regularised,
                         "fine-tuning net": tuned, "TwoLayer": net})

# %% [markdown]
# ### Exercise 6: freeze all but the last layer (2 points)
#
# Write `freeze_all_but_last(model)` for an `nn.Sequential`: freeze every parameter except
# those of its last layer (`model[-1]`), which stay trainable, and return the number of
# trainable parameter *elements* as an `int`.

# %% solution 03_modules-freeze
### BEGIN SOLUTION
def freeze_all_but_last(model):
    for p in model.parameters():
        p.requires_grad_(False)
    for p in model[-1].parameters():
        p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
### END SOLUTION

# %% test 03_modules-freeze-test points=2
_answered = (freeze_all_but_last,)
torch.manual_seed(12)
_seq = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 3))
with checks.explain_errors({}, "freeze_all_but_last(model)"):
    _n = freeze_all_but_last(_seq)
_flags = {name: p.requires_grad for name, p in _seq.named_parameters()}
checks.expect_true(not all(_flags.values()),
                   "[mc:freeze.module-attribute] Every parameter still requires grad. Setting "
                   "module.requires_grad = False only adds an attribute, and eval() freezes "
                   "nothing: call requires_grad_(False) on the module or set p.requires_grad "
                   "= False on each parameter.")
checks.expect_true(_flags["4.weight"] and _flags["4.bias"],
                   "[mc:freeze.last-frozen] The last layer's weight and bias must stay "
                   "trainable: it is the part that is fine-tuned.")
checks.expect_true(not any(v for k, v in _flags.items() if not k.startswith("4.")),
                   "[mc:freeze.partial] Some parameters before the last layer still train: "
                   "freeze every layer's weight and bias, not only the first.")
### BEGIN HIDDEN TESTS
with checks.because("[mc:freeze.count] Return the number of elements of the trainable "
                    "parameters (sum of p.numel()), as an int."):
    checks.expect_type(_n, int, "freeze_all_but_last(model)")
    checks.expect_equal(_n, 4 * 3 + 3, "freeze_all_but_last(model)")
### END HIDDEN TESTS

# %% [markdown]
# ## 8. A custom layer with its own Parameters
#
# A layer of your own declares its tensors as `nn.Parameter` in `__init__` and uses them in
# `forward`, often through `F`'s functions. A **gated linear unit** computes two linear maps
# of the same input and lets one of them, squashed by a sigmoid into (0, 1), scale the other
# element by element:
#
# out = (x W_vᵀ + b_v) ⊙ σ(x W_gᵀ + b_g)
#
# ### Exercise 7: a gated linear layer (3 points)
#
# Write `GatedLinear(d_in, d_out)` with four `nn.Parameter` attributes: `weight_value` and
# `weight_gate` of shape (d_out, d_in), `bias_value` and `bias_gate` of shape (d_out,),
# and a `forward` computing the formula above. Initialise the weights with random values
# scaled by 1/√d_in (e.g. `torch.randn(d_out, d_in) / d_in ** 0.5`) and the biases with
# zeros.

# %% solution 03_modules-gated
### BEGIN SOLUTION
class GatedLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight_value = nn.Parameter(torch.randn(d_out, d_in) / d_in ** 0.5)
        self.bias_value = nn.Parameter(torch.zeros(d_out))
        self.weight_gate = nn.Parameter(torch.randn(d_out, d_in) / d_in ** 0.5)
        self.bias_gate = nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        value = x @ self.weight_value.T + self.bias_value
        gate = torch.sigmoid(x @ self.weight_gate.T + self.bias_gate)
        return value * gate
### END SOLUTION

# %% test 03_modules-gated-test points=3
_answered = (GatedLinear,)
torch.manual_seed(13)
with checks.explain_errors({"before Module.__init__": "[mc:modules.no-super-init] Call "
                            "super().__init__() first."}, "GatedLinear(5, 3)"):
    _glu = GatedLinear(5, 3)
_names = {name for name, _ in _glu.named_parameters()}
_wanted = {"weight_value", "bias_value", "weight_gate", "bias_gate"}
checks.expect_true(bool(_names),
                   "[mc:modules.plain-tensor] named_parameters() lists nothing: a tensor with "
                   "requires_grad=True assigned to an attribute is not registered. Wrap each "
                   "in nn.Parameter(...).")
checks.expect_true(_wanted <= _names,
                   f"[mc:gated.names] named_parameters() lists {sorted(_names)}: declare the "
                   "four nn.Parameter attributes weight_value, bias_value, weight_gate and "
                   "bias_gate on the layer itself.")
_shapes = {name: tuple(p.shape) for name, p in _glu.named_parameters()}
checks.expect_true(_shapes["weight_value"] == (3, 5) and _shapes["weight_gate"] == (3, 5),
                   f"[mc:linear.weight-layout] The weights have shapes {_shapes['weight_value']} "
                   f"and {_shapes['weight_gate']}: store them as (d_out, d_in), like nn.Linear.")
checks.expect_true(_shapes["bias_value"] == (3,) and _shapes["bias_gate"] == (3,),
                   "[mc:linear.bias-shape] Each bias has one entry per output unit: (d_out,).")
_x = torch.randn(4, 5)
with checks.explain_errors({"mat1 and mat2": "[mc:linear.weight-layout] Multiply x by the "
                            "transposed weight."}, "GatedLinear(5, 3)(x)"):
    _y = _glu(_x)
checks.expect_shape(_y, (4, 3), "GatedLinear(5, 3)(x)")
with torch.no_grad():
    _value = _x @ _glu.weight_value.T + _glu.bias_value
    _gate_raw = _x @ _glu.weight_gate.T + _glu.bias_gate
checks.reject_close(_y.detach(), {
    _value * _gate_raw: "[mc:gated.no-sigmoid] The gate goes through a sigmoid first, so "
                        "that it lies between 0 and 1.",
    _value: "[mc:gated.no-gate] The value is multiplied by the gate.",
}, "GatedLinear(5, 3)(x)")
### BEGIN HIDDEN TESTS
checks.expect_close(_y, _value * torch.sigmoid(_gate_raw), "GatedLinear(5, 3)(x)",
                    hint="[mc:gated.no-sigmoid] out = (x W_vᵀ + b_v) ⊙ σ(x W_gᵀ + b_g).")
_y.sum().backward()
checks.expect_true(all(p.grad is not None for p in _glu.parameters()),
                   "[mc:modules.plain-tensor] Every Parameter must take part in forward, so "
                   "that backward gives it a gradient.")
with checks.because("[mc:modules.plain-tensor] Two Linear maps: 2·d_out·(d_in + 1) "
                    "parameters in all, no others."):
    checks.expect_equal(sum(p.numel() for p in GatedLinear(7, 2).parameters()), 2 * 2 * 8,
                        "parameters of GatedLinear(7, 2)")
with checks.because("[mc:gated.init] Biases start at zero."):
    checks.expect_equal(float(_glu.bias_gate.detach().abs().sum()), 0.0, "bias_gate at init")
### END HIDDEN TESTS

# %% [markdown]
# ## 9. Forward hooks: looking inside a running model
#
# `module.register_forward_hook(fn)` makes the module call `fn(module, inputs, output)`
# after each forward pass; the call returns a **handle**, and `handle.remove()` takes the
# hook off again. A hook left behind keeps running (and keeps whatever it stores alive)
# on every later call. Here hooks record each layer's output shape:

# %%
shapes = []
handles = [child.register_forward_hook(
               lambda module, inputs, output, name=name: shapes.append((name, tuple(output.shape))))
           for name, child in mnist.named_children()]
mnist(torch.randn(2, 784))
for handle in handles:
    handle.remove()
print(shapes)
print("hooks left on mnist:", sum(len(m._forward_hooks) for m in mnist.modules()))

calls = []
forgotten = mnist[0].register_forward_hook(lambda module, inputs, output: calls.append(1))
for _ in range(3):
    mnist(torch.randn(1, 784))
print("a hook that was not removed ran on each of 3 later calls:", len(calls))
forgotten.remove()

# %% [markdown]
# The `name=name` default argument matters: a lambda that used `name` directly would read
# the loop variable when it *runs*, after the loop ended, and every record would carry the
# last name.
#
# ### The activation explorer
#
# The explorer builds a deep MLP (width 64, weights drawn with standard deviation
# scale/√fan_in, biases 0), sends 256 random inputs through it, and reads every
# activation layer's output with forward hooks (removed after the pass). Each row is one
# layer's histogram; on the right, its standard deviation and, for ReLU, the units that
# output 0 for every input (dead), for tanh the share of outputs with |a| > 0.99
# (saturated: tanh's slope there is below 0.02, so little gradient flows back).
#
# **Quick quiz (predict).** ReLU, init scale 1.0, depth 6: compared with layer 1, is the
# standard deviation of layer 6's outputs `"smaller"`, `"about the same"` or `"larger"`?
# Put the string in `answer_relu_depth`.

# %% solution 03_modules-quiz-relu-depth
### BEGIN SOLUTION
answer_relu_depth = "smaller"
### END SOLUTION

# %% test 03_modules-quiz-relu-depth-test points=1
checks.expect_true(answer_relu_depth in ("smaller", "about the same", "larger"),
                   "[mc:init.quiz-format] Answer with one of the strings \"smaller\", \"about the "
                   "same\" or \"larger\".")
checks.reject(answer_relu_depth, {
    "about the same": "[mc:init.relu-preserves] ReLU sets the negative half of each "
                      "pre-activation to zero, so each layer passes on about half the "
                      "variance; with std 1/√fan_in the weights do not make up for it.",
    "larger": "[mc:init.relu-grows] With std 1/√fan_in a Linear layer keeps the mean square "
              "of its input, and ReLU removes about half of it: the spread shrinks.",
}, "answer_relu_depth")
### BEGIN HIDDEN TESTS
_run = helpers.activations.run(depth=6, activation="ReLU", init_scale=1.0)
with checks.because("[mc:init.relu-preserves] Compare the std of layer 1 and layer 6 in the "
                    "explorer."):
    checks.expect_equal(answer_relu_depth, "smaller" if _run.layers[-1].std < 0.8 * _run.layers[0].std
                        else "larger" if _run.layers[-1].std > 1.25 * _run.layers[0].std
                        else "about the same", "answer_relu_depth")
### END HIDDEN TESTS

# %% [markdown]
# **Try this**
# 1. With ReLU and init scale 1.0, move depth from 1 to 12. Notice the std column shrink
#    from layer to layer and check the quiz. Explain why with the fraction of a ReLU's
#    inputs it sets to 0.
# 2. Set the init scale to 1.41 (√2, the "Kaiming" initialisation for ReLU). Notice the std
#    staying roughly level with depth. Explain why doubling the weights' variance fits.
# 3. Pick tanh and move the scale from 0.5 to 3. Notice the histograms pile up at −1 and 1
#    and the saturated share grow. Explain what a saturated unit does to the gradient.

# %%
helpers.activations.explore()

# %% [markdown]
# The same statistics as numbers, for the two ReLU settings of tasks 1 and 2:

# %%
for scale in (1.0, 2 ** 0.5):
    result = helpers.activations.run(depth=12, activation="ReLU", init_scale=scale)
    print(f"scale {scale:.3g}: std per layer", " ".join(f"{s.std:.3f}" for s in result.layers))
    print(f"           dead units per layer", " ".join(f"{s.dead_units:5d}" for s in result.layers))
print(f"tanh's slope 1 − a² at |a| = {helpers.activations.SATURATED}: "
      f"{1 - helpers.activations.SATURATED ** 2:.4f}")

# %% [markdown]
# The dead units are the same at both scales: with zero biases, scaling every weight
# scales every pre-activation by the same positive factor, which changes no sign. The
# scale decides the spread; it does not bring a dead unit back.
#
# ### Exercise 8: per-layer output means with hooks (2 points)
#
# Write `output_means(model, x)`: run `model(x)` once under `torch.no_grad()` and return a
# dict that maps the name of each direct child (`model.named_children()`) to the mean of
# that child's output *during this forward pass*, as a Python float. Use forward hooks,
# and remove every hook before returning. (A model's `forward` may use its children in
# any order and combine their outputs, so running the children one after another is not
# the same thing.)

# %% solution 03_modules-hook-means
### BEGIN SOLUTION
def output_means(model, x):
    means = {}
    handles = []
    for name, child in model.named_children():
        def record(module, inputs, output, name=name):
            means[name] = output.mean().item()
        handles.append(child.register_forward_hook(record))
    try:
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return means
### END SOLUTION

# %% test 03_modules-hook-means-test points=2
_answered = (output_means,)


class _Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(6, 6)
        self.act = nn.Tanh()
        self.outer = nn.Linear(6, 2)

    def forward(self, x):
        return self.outer(x + self.act(self.inner(x)))


torch.manual_seed(14)
_res = _Residual()
_x = torch.randn(8, 6) + 1
with checks.explain_errors({}, "output_means(model, x)"):
    _means = output_means(_res, _x)
checks.expect_type(_means, dict, "output_means(model, x)")
checks.expect_true(set(_means) != {"outer"},
                   "[mc:hooks.late-binding] Only the last child's name is in the dict: a hook "
                   "defined in a loop reads the loop variable when it runs, after the loop "
                   "ended. Bind the name when the hook is made (def hook(..., name=name)).")
checks.expect_true(set(_means) == {"inner", "act", "outer"},
                   f"[mc:hooks.names] The keys are {sorted(_means)}: use the names from "
                   "model.named_children() (here inner, act, outer).")
_left = sum(len(m._forward_hooks) for m in _res.modules())
checks.expect_true(_left == 0,
                   f"[mc:hooks.handle-left] {_left} forward hook(s) are still registered: keep "
                   "the handles register_forward_hook returns and call handle.remove() on each.")
with torch.no_grad():
    _h = _res.act(_res.inner(_x))
    _true = {"inner": _res.inner(_x).mean().item(), "act": _h.mean().item(),
             "outer": _res.outer(_x + _h).mean().item()}
    _replayed = _res.outer(_h).mean().item()
checks.reject_close(_means["outer"], {_replayed: "[mc:hooks.replay-children] That is what "
                    "outer gives when the children run one after another; forward adds x "
                    "first. Hooks see what forward really computes."}, "the mean for 'outer'")
### BEGIN HIDDEN TESTS
with checks.because("[mc:hooks.late-binding] Each child's mean goes under its own name: a hook "
                    "defined in a loop reads the loop variable when it runs; bind it with "
                    "name=name."):
    for _k, _v in _true.items():
        checks.expect_close(_means[_k], _v, f"the mean for {_k!r}", rtol=1e-5)
_seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
output_means(_seq, torch.randn(2, 3, requires_grad=True))
checks.expect_true(sum(len(m._forward_hooks) for m in _seq.modules()) == 0,
                   "[mc:hooks.handle-left] Remove every hook before returning.")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# Each one was reproduced above; here they are side by side with their fixes.
#
# | mistake | what you see | fix |
# |---|---|---|
# | no `super().__init__()` | `AttributeError` at the first layer assigned (section 1) | call it first |
# | layers in a Python list | `parameters()` empty or short; layers never train (section 3) | `nn.ModuleList` / `nn.Sequential` |
# | a plain tensor attribute | not trained, not saved, not moved by `.to` (section 2) | `nn.Parameter` or `register_buffer` |
# | `torch.load` of someone else's file with `weights_only=False` | the file runs code while it loads (section 6) | `weights_only=True` |
# | evaluating in training mode | dropout noise, batch statistics (section 5) | `model.eval()` + `torch.no_grad()` |
# | `module.requires_grad = False` | nothing is frozen (section 7) | `module.requires_grad_(False)` |
# | `F.dropout(x, p)` inside a module | dropout stays on in `eval()` (section 7) | `training=self.training` or `nn.Dropout` |
# | hooks never removed | they run on every later call (section 9) | keep the handles; `handle.remove()` |
#
# One of them live once more: the model below keeps its hidden layer in a Python list and
# trains for 50 steps of `sgd_step` (section 5), which like any optimizer updates what
# `parameters()` lists. Only the output layer moves.

# %%
class HalfRegistered(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = [nn.Linear(4, 8)]   # the mistake
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden[0](x)))


torch.manual_seed(15)
half = HalfRegistered()
start = half.hidden[0].weight.detach().clone(), half.out.weight.detach().clone()
xs, ys = torch.randn(32, 4), torch.randn(32, 1)
for _ in range(50):
    half.zero_grad()
    F.mse_loss(half(xs), ys).backward()
    sgd_step(half, 0.1)
print("hidden weight changed:", not torch.equal(start[0], half.hidden[0].weight))
print("output weight changed:", not torch.equal(start[1], half.out.weight))
print("hidden weight has a .grad (computed, never applied):", half.hidden[0].weight.grad is not None)

# %% [markdown]
# ## Summary
#
# - A module registers what you assign to it: submodules, `nn.Parameter`s, and buffers
#   through `register_buffer`. Plain tensors and Python lists of layers are invisible to
#   `parameters()`, `state_dict()` and `.to(...)`.
# - `nn.Linear(d_in, d_out)` stores its weight as (d_out, d_in), computes x Wᵀ + b and has
#   d_out·(d_in + 1) parameters: 784 → 128 → 10 has 101,770.
# - Save `state_dict()`; load it with `torch.load(path, weights_only=True)`, which refuses
#   files that would run code.
# - `train()`/`eval()` switch dropout and batch norm; `torch.no_grad()` stops the graph;
#   `requires_grad_(False)` freezes. They are three different switches.
# - A custom layer declares its Parameters in `__init__`; forward hooks read what a running
#   model computes, and their handles must be removed.
#
# **Next:** 04_training_loop puts a module, a loss and an optimizer into the five steps of
# a training loop.

# %%
print(f"This notebook ran in {time.perf_counter() - notebook_start:.1f} s.")
