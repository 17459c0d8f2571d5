# %% [markdown]
# # 03 Modules: how `nn.Module` keeps track of a model
#
# In 02 the parameters were leaves you made by hand, and you had to remember each one.
# `nn.Module` remembers them for you: assign a layer or an `nn.Parameter` to an attribute
# and the module registers it, so that `parameters()`, the optimizer, `state_dict()`,
# `.to(...)` and `train()`/`eval()` all reach it. This notebook shows that registration at
# work, and what happens to the tensors and layers it does not see: they are not trained,
# not saved and not moved, and nothing warns you. It ends with the numbers a module starts
# from, its initialisation, and what a bad start does to the activations and gradients.
#
# **You will learn to**
# - write a module (`super().__init__()`, attributes, `forward`) and read its
#   `named_parameters()`, buffers (persistent or not) and submodules;
# - say what `.to(device)` moves and what it leaves behind;
# - keep layers in `nn.ModuleList` / `nn.Sequential` / `nn.ModuleDict`, not in a Python list;
# - count parameters (d_out·(d_in + 1) per Linear) and reason with y = x Wᵀ + b;
# - read `nn.Conv2d`'s and `nn.Embedding`'s weights and gradients, and `channels_last` strides;
# - switch `train()` / `eval()` (dropout, batch norm) for a model *and each submodule*,
#   and choose between `torch.no_grad()` and `torch.inference_mode()`;
# - save and load a `state_dict` safely: `weights_only`, strict key matching, allow-listed
#   classes, `map_location`, a compiled model's keys; save a program with `torch.export`;
# - freeze parameters, choose between functional and object layers, write a layer with its
#   own Parameters, read activations with forward hooks;
# - initialise parameters with `nn.init` and `module.apply`, and read what an
#   initialisation does to each layer's activations and gradients.
#
# **Prerequisites:** 01 (tensors, shapes, matrix products), 02 (leaves, `requires_grad`,
# `.grad`, `torch.no_grad()`).
#
# **How this notebook works.** Quick quizzes ask you to *predict*, then the next cell shows
# what happens. Numbered exercises (points in the heading) are graded; each answer cell
# gives the signature to complete, and a failing test says what you probably believed.

# %%
import contextlib
import copy
import inspect
import io
import logging
import os
import pickle
import tempfile
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

import helpers.activations
import helpers.modes
import helpers.modules
import helpers.update_time
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
    print(f"{name:15s} {p.numel():3d} numbers  requires_grad={p.requires_grad}")
print("output shape:", tuple(net(torch.randn(5, 4)).shape))

# %% [markdown]
# The names come from the attributes: `self.hidden = nn.Linear(...)` went through
# `nn.Module.__setattr__`, which saw a module and put it in the registry `_modules` under the
# name `hidden`; the Linear's own weight and bias sit in its `_parameters`.

# %%
print("net._modules:", list(net._modules), "| net.hidden._parameters:", list(net.hidden._parameters))

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
# - an **`nn.Parameter`**: a tensor that the module registers when you assign it. It
#   requires grad unless you say otherwise (`nn.Parameter(t, requires_grad=False)`, or
#   freezing it later, section 7). `parameters()` lists it, so the optimizer updates it
#   (when it has a gradient), and `state_dict()` saves it;
# - a **buffer**, registered with `self.register_buffer(name, tensor)`: moved by
#   `.to(...)`, not listed by `parameters()`, so never trained. It is saved in
#   `state_dict()` unless registered with `persistent=False` (a value rebuilt at every
#   forward pass need not be saved). Batch norm's running mean is a persistent buffer;
# - a **plain tensor** attribute: none of the above. The module does not know it is there.

# %%
class Scaler(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(d))        # trained
        self.shift = torch.zeros(d)                     # plain tensor: unseen
        self.register_buffer("calls", torch.zeros(()))  # saved and moved, not trained
        self.register_buffer("last_mean", torch.zeros(d), persistent=False)  # moved, not saved

    def forward(self, x):
        self.calls += 1
        self.last_mean = x.detach().mean(0)  # assigning to a buffer's name replaces the buffer
        return x * self.scale + self.shift


scaler = Scaler(3)
print("parameters():  ", [name for name, _ in scaler.named_parameters()])
print("buffers():     ", [name for name, _ in scaler.named_buffers()])
print("state_dict():  ", list(scaler.state_dict()))

# %% [markdown]
# **Quick quiz (predict).** Here is a module that holds one of each, and a submodule:

# %%
class QuizModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 4))
        self.b = torch.zeros(4)
        self.register_buffer("m", torch.zeros(4))
        self.lin = nn.Linear(4, 2)

# %% [markdown]
# What is `sum(p.numel() for p in QuizModule().parameters())`? Put the number in
# `answer_param_count`.

# %% solution 03_modules-quiz-param-count
### BEGIN SOLUTION
answer_param_count = 22
### END SOLUTION

# %% test 03_modules-quiz-param-count-test points=1
checks.answer("03_modules-quiz-param-count", answer_param_count, "answer_param_count", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_param_count")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_param_count"]
checks.answer("03_modules-quiz-param-count", _answer, "answer_param_count", kind=int)


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
    checks.expect_equal(_answer, sum(p.numel() for p in _Quiz().parameters()), "answer_param_count")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-param-count
{
    26: "[mc:modules.plain-tensor-registered] That counts self.b: a plain tensor attribute "
        "is not registered, so parameters() does not list it.",
    30: "[mc:modules.buffer-is-parameter] That counts the plain tensor and the buffer: a "
        "buffer is saved in state_dict() but parameters() leaves it out.",
    16: "[mc:modules.buffer-is-parameter] That counts the buffer m: buffers are listed by "
        "buffers(), not by parameters().",
    12: "[mc:modules.submodule-not-counted] parameters() also walks the submodules: the "
        "Linear's weight and bias count too.",
    20: "[mc:modules.submodule-not-counted] nn.Linear(4, 2) has a weight and a bias; count "
        "both, and self.w.",
}

# %% [markdown]
# Run the quiz's module and count:

# %%
quiz_module = QuizModule()
for name, p in quiz_module.named_parameters():
    print(f"{name:10s} {p.numel():3d}")
print("total:", sum(p.numel() for p in quiz_module.parameters()),
      "| buffers:", [name for name, _ in quiz_module.named_buffers()])

# %% [markdown]
# Compare with your answer: the total walks into the submodule `lin`, and leaves out both
# the buffer and the plain tensor.
#
# ### What `.to(...)` moves
#
# Modules and tensors both have a `.to` method, taking the same arguments: a device
# (`"cpu"`, `"cuda"`), a dtype (`torch.float64`), or both.
#
# **Quick quiz (predict).** After
#
# ```python
# lin = nn.Linear(2, 2)
# w = torch.zeros(2)
# lin.to(torch.float64)
# w.to(torch.float64)
# ```
#
# is `lin.weight` float64, and is `w` float64? Put two booleans in `answer_to_dtypes`, in
# that order: `(lin.weight is float64, w is float64)`.

# %% solution 03_modules-quiz-to-inplace
### BEGIN SOLUTION
answer_to_dtypes = (True, False)
### END SOLUTION

# %% test 03_modules-quiz-to-inplace-test points=1
checks.answer("03_modules-quiz-to-inplace", answer_to_dtypes, "answer_to_dtypes", kind=(tuple, list))
for _entry in answer_to_dtypes:
    checks.expect_type(_entry, bool, "each entry of answer_to_dtypes")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_to_dtypes")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_to_dtypes"]
checks.answer("03_modules-quiz-to-inplace", _answer, "answer_to_dtypes", kind=(tuple, list))
checks.expect_true(len(_answer) == 2, f"answer_to_dtypes holds {len(_answer)} entries: two "
                   "booleans, (lin.weight is float64, w is float64).")
for _entry in _answer:  # 1 and 0 are not True and False: a tuple compares them as equal
    checks.expect_type(_entry, bool, "each entry of answer_to_dtypes")
_lin, _w = nn.Linear(2, 2), torch.zeros(2)
_lin.to(torch.float64)
_w.to(torch.float64)
with checks.because("[mc:to.tensor-in-place] Module.to converts the module's own parameters "
                    "and returns the same module; Tensor.to returns a new tensor."):
    checks.expect_equal(tuple(_answer), (_lin.weight.dtype == torch.float64,
                                         _w.dtype == torch.float64), "answer_to_dtypes")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-to-inplace
{
    (True, True): "[mc:to.tensor-in-place] Tensor.to returns a new tensor and leaves w as it "
                  "was (write w = w.to(...)); Module.to changes the module itself.",
    (False, False): "[mc:to.module-copy] Module.to does not make a copy: it converts the "
                    "module's own floating-point parameters and buffers and returns the same "
                    "module.",
    (False, True): "[mc:to.module-copy] The other way round: Module.to converts the module "
                   "in place, Tensor.to returns a new tensor.",
}

# %% [markdown]
# Run it:

# %%
lin = nn.Linear(2, 2)
w = torch.zeros(2)
returned = lin.to(torch.float64)
w.to(torch.float64)
print("lin.weight:", lin.weight.dtype, "| lin.to(...) returned lin itself:", returned is lin)
print("w:", w.dtype, "| w.to(...) made a new tensor:", w.to(torch.float64).dtype)
norm = nn.BatchNorm1d(2).to(torch.float64)
print("BatchNorm1d after .to(float64):", {name: str(b.dtype) for name, b in norm.named_buffers()})
kept = nn.Linear(2, 2)
twin = copy.deepcopy(kept).to(torch.float64)  # convert a copy, keep the original
print("deepcopy: a new weight tensor:", twin.weight is not kept.weight, "| same values:",
      torch.equal(twin.weight, kept.weight.double()), "| the original is still", kept.weight.dtype)

# %% [markdown]
# Compare with your answer: a module is changed where it stands, a tensor is not, so
# `x = x.to(device)` needs the assignment and `model.to(device)` does not. A device moves
# every parameter and buffer of the module and its submodules; a dtype converts the
# floating-point ones only, so batch norm's counter `num_batches_tracked` stays int64. To
# keep the original, convert a copy: `copy.deepcopy(module)` builds a new module whose
# parameters, buffers and submodules are new tensors and modules with the same values.
#
# What `.to` does *not* reach is a plain tensor attribute. A CPU-only machine can still move
# a module to another device: `"meta"` holds shapes and dtypes but no values, and on a
# machine with a GPU the cell below uses `"cuda"` instead. The plain tensor `shift` stays
# behind on the CPU, and `forward` fails:

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "meta")
moved = Scaler(3).to(device)
for name in ("scale", "calls", "last_mean", "shift"):
    print(f"{name:9s} on {getattr(moved, name).device}")
with checks.expect_error(RuntimeError):
    moved(torch.ones(2, 3, device=device))

# %% [markdown]
# A tensor the module needs belongs in a Parameter (learned) or a buffer (not learned).
#
# ### Exercise 1: register what the module holds (2 points)
#
# `Standardise` below standardises features with statistics measured once on the training
# data, multiplies by a learned gain, and keeps the largest |z| of the last batch for
# monitoring. It runs, but the module registers nothing:

# %%
class Standardise(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = mean                                       # measured once: never trained
        self.std = std
        self.gain = torch.ones(len(mean), requires_grad=True)  # learned
        self.largest = torch.zeros(len(mean))                  # rebuilt by every forward pass

    def forward(self, x):
        z = (x - self.mean) / self.std
        self.largest = z.detach().abs().amax(0)
        return z * self.gain


broken = Standardise(torch.tensor([1.0, -2.0]), torch.tensor([0.5, 4.0]))
print("output:", broken(torch.tensor([[2.0, 2.0]])))
print("parameters():", list(broken.parameters()), "| state_dict():", dict(broken.state_dict()))
print("after .to(float64), mean is still", broken.to(torch.float64).mean.dtype)

# %% [markdown]
# Write `FixedStandardise(mean, std)` with the same `forward` (same attribute names) so
# that: `gain` is trained; `mean` and `std` are saved in `state_dict()` and follow
# `.to(...)`, but are not trained; `largest` follows `.to(...)` but is not saved. Nothing
# else is a parameter.

# %% solution 03_modules-fix-tensors
class FixedStandardise(nn.Module):
    def __init__(self, mean, std):
        ### BEGIN SOLUTION
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.gain = nn.Parameter(torch.ones(len(mean)))
        self.register_buffer("largest", torch.zeros(len(mean)), persistent=False)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        z = (x - self.mean) / self.std
        self.largest = z.detach().abs().amax(0)
        return z * self.gain
        ### END SOLUTION

# %% test 03_modules-fix-tensors-test points=2
_answered = (FixedStandardise,)
with checks.explain_errors({"before Module.__init__": "[mc:modules.no-super-init] Call "
                            "super().__init__() first."}, "FixedStandardise(mean, std)"):
    _fs = FixedStandardise(torch.tensor([1.0, -2.0, 0.5]), torch.tensor([0.5, 4.0, 2.0]))
_params = {name for name, _ in _fs.named_parameters()}
_buffers = {name for name, _ in _fs.named_buffers()}
checks.expect_true("gain" not in _buffers, "[mc:buffers.learned-buffer] gain is a buffer: "
                   "parameters() leaves buffers out, so no optimizer would train it.")
checks.expect_true("gain" in _params, "[mc:modules.plain-tensor] gain is not in parameters(): a "
                   "tensor assigned to an attribute is not registered. Wrap it in nn.Parameter(...).")
checks.expect_true(not {"mean", "std"} & _params, "[mc:buffers.stats-as-parameter] parameters() "
                   "lists mean and std: they are measured once, not learned. Register them as buffers.")
checks.expect_true(not {"mean", "std"} <= _buffers or {"mean", "std"} <= set(_fs.state_dict()),
                   "[mc:buffers.persistent] mean and std are buffers with persistent=False, so "
                   "state_dict() leaves them out: measured statistics are saved with the model.")
checks.expect_true({"mean", "std"} <= set(_fs.state_dict()), "[mc:buffers.plain-tensor] mean and "
                   "std are not in state_dict(): plain tensor attributes are neither saved nor "
                   "moved by .to(). Register them as buffers.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("FixedStandardise")
_mean, _std = torch.tensor([1.0, -2.0, 0.5]), torch.tensor([0.5, 4.0, 2.0])
_fs = probe.observe("FixedStandardise(mean, std)", lambda: FixedStandardise(_mean.clone(), _std.clone()))
probe.value("parameters()", sorted(name for name, _ in _fs.named_parameters()))
probe.value("buffers()", sorted(name for name, _ in _fs.named_buffers()))
probe.value("state_dict()", sorted(_fs.state_dict()))
_x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
probe.call("FixedStandardise(mean, std)(x)", lambda: _fs(_x).detach())
_fs.to(torch.float64)
probe.value("dtypes after .to(torch.float64)",
            {name: str(getattr(_fs, name, None).dtype) for name in ("mean", "std", "gain", "largest")})
probe.observe("after backward: (gain.grad set, mean.grad set)",
              lambda: (_fs(_x.double()).sum().backward(), _fs.gain.grad is not None,
                       _fs.mean.grad is not None)[1:])
_copy = FixedStandardise(torch.zeros(3), torch.ones(3))
probe.observe("mean after load_state_dict into a new FixedStandardise",
              lambda: (_copy.load_state_dict(_fs.state_dict()), _copy.mean.detach().clone())[1])
### JUDGE
from helpers.grading.probe import got
got.value("FixedStandardise(mean, std)", "[mc:modules.no-super-init] Call super().__init__() "
          "first, and build the registrations from mean and std.")
_params, _buffers, _saved = set(got["parameters()"]), set(got["buffers()"]), set(got["state_dict()"])
checks.expect_true("gain" not in _buffers, "[mc:buffers.learned-buffer] gain is a buffer: "
                   "parameters() leaves buffers out, so no optimizer would train it. Make it an "
                   "nn.Parameter.")
checks.expect_true("gain" in _params, "[mc:modules.plain-tensor] gain is not in parameters(): a "
                   "tensor with requires_grad=True assigned to an attribute is not registered, so "
                   "no optimizer trains it. Wrap it in nn.Parameter(...).")
checks.expect_true(not {"mean", "std"} & _params, "[mc:buffers.stats-as-parameter] parameters() "
                   "lists mean and std, so an optimizer built from it would hold them: they are "
                   "measured once, not learned. Register them as buffers.")
checks.expect_true(not {"mean", "std"} <= _buffers or {"mean", "std"} <= _saved,
                   "[mc:buffers.persistent] mean and std are buffers registered with "
                   "persistent=False, so state_dict() leaves them out: statistics measured once "
                   "must be saved with the model.")
checks.expect_true({"mean", "std"} <= _saved, "[mc:buffers.plain-tensor] mean and std are not in "
                   "state_dict(): plain tensor attributes are neither saved nor moved by .to(). "
                   "Register them as buffers.")
checks.expect_true("largest" in _buffers, "[mc:buffers.plain-tensor] largest is not a buffer, so "
                   ".to(...) leaves it behind: register it with register_buffer.")
checks.expect_true("largest" not in _saved, "[mc:buffers.persistent] largest is saved in "
                   "state_dict(), but every forward pass rebuilds it: register it with "
                   "persistent=False.")
checks.expect_true(_params == {"gain"}, f"[mc:buffers.stats-as-parameter] parameters() lists "
                   f"{sorted(_params)}: only gain is learned.")
checks.expect_true(_saved == {"gain", "mean", "std"}, f"[mc:buffers.persistent] state_dict() "
                   f"holds {sorted(_saved)}: gain, mean and std, and nothing rebuilt by forward.")
_x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
_want = (_x - torch.tensor([1.0, -2.0, 0.5])) / torch.tensor([0.5, 4.0, 2.0])
checks.expect_close(got["FixedStandardise(mean, std)(x)"], _want, "FixedStandardise(mean, std)(x) "
                    "with gain 1", hint="[mc:buffers.forward] Keep Standardise's forward: "
                    "(x - mean) / std * gain.")
_dtypes = got["dtypes after .to(torch.float64)"]
checks.expect_true(set(_dtypes.values()) == {"torch.float64"}, f"[mc:buffers.plain-tensor] After "
                   f".to(torch.float64) the dtypes are {_dtypes}: every tensor the module needs "
                   "must follow .to(...).")
checks.expect_true(got["after backward: (gain.grad set, mean.grad set)"] == (True, False),
                   "[mc:buffers.stats-as-parameter] backward must reach gain only.")
checks.expect_close(got.value("mean after load_state_dict into a new FixedStandardise",
                              "[mc:buffers.persistent] The saved state_dict must load strictly "
                              "into a new FixedStandardise."),
                    torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64), "mean after a save/load "
                    "round trip", hint="[mc:buffers.plain-tensor] mean must travel in state_dict().")
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Containers: ModuleList, Sequential, ModuleDict, and the Python-list bug
#
# A model with a variable number of layers needs a container. A Python list looks like
# one, but `__setattr__` sees a list, not a module, and registers nothing:

# %%
class ListMLP(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = list(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


layers = [nn.Linear(4, 8), nn.Linear(8, 3)]
buggy = ListMLP(layers)
print("forward works:", tuple(buggy(torch.randn(2, 4)).shape))
print("parameters():", list(buggy.parameters()))
print("state_dict():", buggy.state_dict())
with checks.expect_error(ValueError):
    torch.optim.SGD(buggy.parameters(), lr=0.1)

# %% [markdown]
# The forward pass runs, so the bug hides until training: `SGD` refuses an empty list
# here, but a model that also has one registered layer gives it a list that is not empty,
# and the optimizer, which updates what `parameters()` lists, never touches the layers in
# the Python list. `nn.ModuleList` registers each element under its index;
# `nn.Sequential` does the same and also chains them in `forward`; `nn.ModuleDict`
# registers them under string keys. Below, `fixed` holds the very same two layer objects
# as `buggy`, in a ModuleList:

# %%
class ModuleListMLP(ListMLP):
    def __init__(self, layers):
        super().__init__(layers)
        self.layers = nn.ModuleList(layers)  # the same layers, now registered


fixed = ModuleListMLP(layers)
print("the same layer objects:", fixed.layers[0] is buggy.layers[0])
print([name for name, _ in fixed.named_parameters()])
seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
print([name for name, _ in seq.named_parameters()])
heads = nn.ModuleDict({"digit": nn.Linear(8, 10), "parity": nn.Linear(8, 2)})
print([name for name, _ in heads.named_parameters()])
seq[1] = nn.Tanh()  # replaces an entry
heads.register_module("parity", nn.Linear(8, 3))  # replaces the child of that name, in any module
print([type(m).__name__ for m in seq], "| heads.parity:", heads.parity)

# %% [markdown]
# ### The module inspector
#
# The inspector draws a model's registration tree: every submodule with its mode and its
# own parameters (blue, with shape and count; grey when frozen), its buffers (green) and the
# tensors or layers it holds *without* registering them (red: what `parameters()`, the
# optimizer and `state_dict()` do not see), with parameter totals per subtree. On the right
# it sends one input through the model twice (more on that in section 5).
#
# **Try this**
# 1. Predict what colour the row of `layers` has and what total the tree gives, then pick
#    "layers in a Python list". Notice the red row. Explain why `SGD` above found an empty
#    list.
# 2. Predict the total number of parameters of its two layers, `Linear(4, 8)` and
#    `Linear(8, 3)`, then pick "the same layers in a ModuleList". Notice that the two passes
#    on the right are the ones of the list version (same layers, same input), while the
#    totals differ. Explain where the `0` and `1` in `layers.0.weight` come from.
# 3. Predict which of `scale`, `shift`, `calls` and `last_mean` is blue, green and red, then
#    pick "Scaler". Explain which of them `state_dict()` saves and which `.to(...)` moves.

# %%
import helpers.modules
import torch

inspector_input = torch.randn(4, 4)
inspector_models = {
    "layers in a Python list": (buggy, inspector_input),
    "the same layers in a ModuleList": (fixed, inspector_input),
    "Scaler": (Scaler(3), torch.randn(4, 3)),
    "TwoLayer": net,
}
helpers.modules.explore(inspector_models)

# %% [markdown]
# ### Exercise 2: a stack of independent copies (2 points)
#
# A deep model often repeats one block: the same architecture `depth` times, each copy with
# weights of its own. Here is a first try, with one block of 30 parameters stacked three
# times:

# %%
class SharedStack(nn.Module):
    def __init__(self, block, depth):
        super().__init__()
        self.layers = nn.ModuleList([block] * depth)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


block = nn.Linear(5, 5)
shared = SharedStack(block, 3)
print("one block:", sum(p.numel() for p in block.parameters()), "parameters | layers in the stack:",
      len(shared.layers), "| the stack's parameters():", sum(p.numel() for p in shared.parameters()))

# %% [markdown]
# Three layers of 30 parameters each, and `parameters()` counts 30. Find out why, then
# write `Stack(block, depth)`: `depth` copies of the module `block`, applied one after
# another in `forward`, kept in an attribute named `layers` in a container that registers
# them. Every copy starts from `block`'s values and has parameters (and buffers) of its own,
# so that training one copy changes neither the other copies nor `block` itself.
# `Stack(nn.Linear(5, 5), 3)` has 90 parameters.

# %% solution 03_modules-fix-list
class Stack(nn.Module):
    def __init__(self, block, depth):
        ### BEGIN SOLUTION
        super().__init__()
        self.layers = nn.ModuleList(copy.deepcopy(block) for _ in range(depth))
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        for layer in self.layers:
            x = layer(x)
        return x
        ### END SOLUTION

# %% test 03_modules-fix-list-test points=2
_answered = (Stack,)  # a NameError here reads as "not answered yet"
with checks.explain_errors({"before Module.__init__": "[mc:modules.no-super-init] Call "
                            "super().__init__() first in __init__: it creates the registries."},
                           "Stack(nn.Linear(5, 5), 3)"):
    _stack = Stack(nn.Linear(5, 5), 3)
checks.expect_true(isinstance(getattr(_stack, "layers", None), nn.Module),
                   "[mc:modules.python-list] Keep the copies in the attribute `layers`, in a "
                   "registering container (nn.ModuleList or nn.Sequential): a Python list is "
                   "invisible to the module, so parameters() would not list them.")
checks.expect_true(sum(p.numel() for p in _stack.parameters()) != 30, "[mc:modules.shared-copies] "
                   "Stack(nn.Linear(5, 5), 3) has 30 parameters: its three layers share one weight "
                   "and one bias (one module object three times, or shallow copies of it). Give "
                   "each position tensors of its own (copy.deepcopy(block) copies them).")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("Stack")
torch.manual_seed(1)
_block = nn.Linear(5, 5)
_x = torch.randn(6, 5)
_stack = probe.observe("Stack(nn.Linear(5, 5), 3)", lambda: Stack(_block, 3))
probe.value("the container of layers", type(getattr(_stack, "layers", None)).__name__)
probe.value("parameters()", sum(p.numel() for p in _stack.parameters()))
_copies = list(_stack.layers) if isinstance(getattr(_stack, "layers", None), nn.Module) else []
probe.value("each layer: (is block, a Linear, its state_dict)",
            [(c is _block, isinstance(c, nn.Linear), dict(c.state_dict())) for c in _copies])
probe.call("Stack(nn.Linear(5, 5), 3)(x)", lambda: _stack(_x).detach())
if _copies:
    with torch.no_grad():
        _copies[0].weight.add_(1.0)
    probe.value("after adding 1 to the first layer's weight: (block's weight, the layers' weights)",
                (_block.weight.detach().clone(), [c.weight.detach().clone() for c in _copies]))
_normed = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
_deep = probe.observe("Stack(Linear(3, 3) + BatchNorm1d(3), 4)", lambda: Stack(_normed, 4))
probe.value("Stack(Linear(3, 3) + BatchNorm1d(3), 4): (parameters, state_dict entries)",
            (sum(p.numel() for p in _deep.parameters()), len(_deep.state_dict())))
_deep.train()
_deep(torch.randn(8, 3))
probe.value("the given batch norm's running mean after a training pass", _normed[1].running_mean.clone())
probe.call("parameter tensors of Stack(nn.Linear(2, 2), 1)",
           lambda: len(list(Stack(nn.Linear(2, 2), 1).parameters())))
### JUDGE
from helpers.grading.probe import got
got.value("Stack(nn.Linear(5, 5), 3)", "[mc:modules.no-super-init] Call super().__init__() first "
          "in __init__: it creates the registries.")
checks.expect_true(got["the container of layers"] in ("ModuleList", "Sequential"),
                   "[mc:modules.python-list] Keep the copies in the attribute `layers`, in a "
                   "registering container (nn.ModuleList or nn.Sequential): a Python list is "
                   "invisible to the module, so parameters() would not list them.")
_count, _layers = got["parameters()"], got["each layer: (is block, a Linear, its state_dict)"]
checks.expect_true(_count != 30, "[mc:modules.shared-copies] Stack(nn.Linear(5, 5), 3) has 30 "
                   "parameters: its three layers share one weight and one bias (one module object "
                   "three times, or shallow copies of it). parameters() lists each tensor once, and "
                   "all three positions would train the same numbers. Give each position tensors "
                   "of its own (copy.deepcopy(block) copies them).")
checks.expect_true(len(_layers) == 3, f"[mc:stack.depth] Stack(block, 3) holds {len(_layers)} "
                   "layers: depth copies, no more and no fewer.")
with checks.because("[mc:modules.shared-copies] Three copies of 30 parameters each, none shared."):
    checks.expect_equal(_count, 90, "parameters of Stack(nn.Linear(5, 5), 3)")
checks.expect_true(not any(is_block for is_block, _, _ in _layers), "[mc:stack.block-reused] "
                   "`block` itself is one of the layers, so training the stack would change the "
                   "module you were given: every layer must be a copy.")
torch.manual_seed(1)
_start = dict(nn.Linear(5, 5).state_dict())  # the probe's block, made again
_x = torch.randn(6, 5)
checks.expect_true(all(linear and state.keys() == _start.keys()
                       and all(torch.equal(state[k], _start[k]) for k in state)
                       for _, linear, state in _layers),
                   "[mc:stack.fresh-copies] The layers do not start from block's values: a new "
                   "layer draws new random numbers. Copy block (copy.deepcopy keeps its values).")
_want = _x
for _ in range(3):
    _want = _want @ _start["weight"].T + _start["bias"]
checks.expect_close(got["Stack(nn.Linear(5, 5), 3)(x)"], _want, "Stack(nn.Linear(5, 5), 3)(x)",
                    hint="[mc:stack.forward] At the start the stack computes block(block(block(x))): "
                         "apply every layer, one after another, to the previous output.")
_block_w, _weights = got["after adding 1 to the first layer's weight: (block's weight, the layers' weights)"]
checks.expect_true(torch.equal(_block_w, _start["weight"]), "[mc:stack.block-reused] Changing the "
                   "first layer changed block: the layers must not share tensors with the module "
                   "you were given.")
checks.expect_true(not torch.equal(_weights[0], _weights[1]), "[mc:modules.shared-copies] Changing "
                   "the first layer changed the second: each copy needs parameters of its own.")
with checks.because("[mc:modules.shared-copies] Stack(Linear(3, 3) + BatchNorm1d(3), 4): four "
                    "copies, each with its own parameters and its own batch norm buffers."):
    got.value("Stack(Linear(3, 3) + BatchNorm1d(3), 4)")
    checks.expect_equal(got["Stack(Linear(3, 3) + BatchNorm1d(3), 4): (parameters, state_dict entries)"],
                        (4 * (12 + 6), 4 * 7), "(parameters, state_dict entries) of that stack")
checks.expect_true(not got["the given batch norm's running mean after a training pass"].any(),
                   "[mc:stack.block-reused] A training pass through the stack moved the running "
                   "mean of the block you were given: copy its buffers too.")
with checks.because("[mc:stack.depth] Stack(block, 1) is one copy of block."):
    checks.expect_equal(got["parameter tensors of Stack(nn.Linear(2, 2), 1)"], 2,
                        "parameter tensors of Stack(nn.Linear(2, 2), 1)")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Inside a layer: weight layouts and parameter counts
#
# `nn.Linear(d_in, d_out)` computes y = x Wᵀ + b: for a batch x of shape (N, d_in) it
# returns (N, d_out).
#
# **Quick quiz (predict).** `layer = nn.Linear(20, 7)` receives `x` of shape (4, 9, 20):
# four sequences of nine vectors each. What does `layer(x)` return? Put its shape in
# `answer_batch_shape` as a tuple, or the string `"error"` if you expect it to fail.

# %% solution 03_modules-quiz-batch-shape
### BEGIN SOLUTION
answer_batch_shape = (4, 9, 7)
### END SOLUTION

# %% test 03_modules-quiz-batch-shape-test points=1
checks.answer("03_modules-quiz-batch-shape", answer_batch_shape, "answer_batch_shape",
              kind=(tuple, str))
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_batch_shape")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_batch_shape"]
checks.answer("03_modules-quiz-batch-shape", _answer, "answer_batch_shape", kind=(tuple, str))
with checks.because("[mc:linear.flattens-batch] nn.Linear maps the last dimension from d_in "
                    "to d_out and keeps every leading dimension."):
    checks.expect_equal(_answer if isinstance(_answer, str) else tuple(_answer),
                        tuple(nn.Linear(20, 7)(torch.zeros(4, 9, 20)).shape), "answer_batch_shape")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-batch-shape
{
    "error": "[mc:linear.needs-2d] nn.Linear accepts input of any shape (*, d_in): every "
             "dimension before the last is a batch dimension.",
    (4, 7): "[mc:linear.flattens-batch] The nine vectors of each sequence are not merged: "
            "Linear acts on the last dimension and keeps all the others.",
    (36, 7): "[mc:linear.flattens-batch] Linear keeps the leading dimensions as they are: "
             "it does not flatten them into one.",
    (4, 9, 20): "[mc:linear.keeps-width] The last dimension is the one that changes: d_in "
                "in, d_out out.",
    (7, 20): "[mc:linear.weight-not-output] (7, 20) is the layer's weight, not its output.",
}

# %% [markdown]
# Run it, and check y = x Wᵀ + b against the layer itself:

# %%
layer = nn.Linear(20, 7)
x = torch.randn(4, 9, 20)
print("weight", tuple(layer.weight.shape), "bias", tuple(layer.bias.shape))
print("layer(x):", tuple(layer(x).shape))
by_hand = x @ layer.weight.T + layer.bias
print("x Wᵀ + b equals layer(x):", torch.allclose(by_hand, layer(x), atol=1e-6))

# %% [markdown]
# Compare with your answer: the weight is stored as (d_out, d_in), one row per output
# unit, and `x @ W.T` works on the last dimension only, like every matrix product with a
# batch of leading dimensions.
#
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
# ### Exercise 3: the widest hidden layer a budget allows (2 points)
#
# You may spend at most `budget` parameters on a one-hidden-layer MLP
# `nn.Sequential(nn.Linear(d_in, h), nn.ReLU(), nn.Linear(h, d_out))`. Write
# `widest_hidden(d_in, d_out, budget)` that returns the largest width `h` that fits, as a
# Python `int`, and `0` when not even `h = 1` fits. Compute it; do not try widths one by one.

# %% solution 03_modules-param-budget
def widest_hidden(d_in, d_out, budget):
    ### BEGIN SOLUTION
    # h·(d_in + 1) + d_out·(h + 1) <= budget
    return max(0, (budget - d_out) // (d_in + 1 + d_out))
    ### END SOLUTION

# %% test 03_modules-param-budget-test points=2
_answered = (widest_hidden,)


def _mlp_params(d_in, h, d_out):  # counted by torch, on the meta device (no memory)
    mlp = nn.Sequential(nn.Linear(d_in, h, device="meta"), nn.Linear(h, d_out, device="meta"))
    return sum(p.numel() for p in mlp.parameters())


with checks.explain_errors({}, "widest_hidden(20, 3, 1000)"):
    _h = widest_hidden(20, 3, 1000)
checks.expect_true(type(_h) is int, f"[mc:budget.whole-units] widest_hidden returned "
                   f"{type(_h).__name__} {_h!r}: a width is a whole number of units, a Python int "
                   "(use // or int()).")
_over = _h >= 1 and _mlp_params(20, _h, 3) > 1000
checks.expect_true(not _over or _mlp_params(20, _h - 1, 3) > 1000, f"[mc:budget.round-up] With "
                   f"h = {_h} the MLP is over the budget of 1000, and h = {_h - 1} fits: \"at most\" "
                   "means rounding down, not to the nearest width.")
checks.expect_true(not _over, f"[mc:params.forget-bias] With h = {_h} the MLP has "
                   f"{_mlp_params(20, max(_h, 1), 3)} parameters, over the budget of 1000: did you "
                   "leave out the biases (d_out·(d_in + 1) per Linear)?")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("widest_hidden")
_gen = torch.Generator().manual_seed(31)
_cases = [(20, 3, 1000), (784, 10, 101_770), (784, 10, 101_769), (5, 3, 11), (5, 3, 12), (5, 3, 2),
          (1, 1, 0)]
_cases += [tuple(int(v) for v in torch.randint(1, 300, (2,), generator=_gen))
           + (int(torch.randint(0, 200_000, (), generator=_gen)),) for _ in range(20)]
for _d_in, _d_out, _budget in _cases:
    probe.call(f"widest_hidden({_d_in}, {_d_out}, {_budget})", widest_hidden, _d_in, _d_out, _budget)
### JUDGE
from helpers.grading.probe import got


def _mlp_params(d_in, h, d_out):
    mlp = nn.Sequential(nn.Linear(d_in, h, device="meta"), nn.Linear(h, d_out, device="meta"))
    return sum(p.numel() for p in mlp.parameters())


_h = got["widest_hidden(20, 3, 1000)"]
checks.expect_true(type(_h) is int, f"[mc:budget.whole-units] widest_hidden returned "
                   f"{type(_h).__name__} {_h!r}: a width is a whole number of units, a Python int "
                   "(use // or int()).")
checks.expect_true(_h >= 1, f"[mc:budget.negative] widest_hidden(20, 3, 1000) = {_h}, but a width "
                   "of 1 fits easily in 1000 parameters.")
_over = _mlp_params(20, _h, 3) > 1000
checks.expect_true(not _over or _mlp_params(20, _h - 1, 3) > 1000,
                   f"[mc:budget.round-up] With h = {_h} the MLP has {_mlp_params(20, _h, 3)} "
                   f"parameters, over the budget of 1000, and h = {_h - 1} fits: \"at most\" means "
                   "rounding down, not to the nearest width.")
checks.expect_true(not _over, f"[mc:params.forget-bias] With h = {_h} the MLP has "
                   f"{_mlp_params(20, _h, 3)} parameters, over the budget of 1000: did you leave "
                   "out the biases (d_out·(d_in + 1) per Linear)?")
checks.expect_true(_mlp_params(20, _h + 1, 3) > 1000, f"[mc:params.bias-per-input] h = {_h + 1} "
                   "also fits in 1000 parameters, and the answer is the widest h that fits: count "
                   "one bias per *output* unit of each layer.")
_gen = torch.Generator().manual_seed(31)
_cases = [(784, 10, 101_770), (784, 10, 101_769), (5, 3, 11), (5, 3, 12), (5, 3, 2), (1, 1, 0)]
_cases += [tuple(int(v) for v in torch.randint(1, 300, (2,), generator=_gen))
           + (int(torch.randint(0, 200_000, (), generator=_gen)),) for _ in range(20)]
for _d_in, _d_out, _budget in _cases:
    _name = f"widest_hidden({_d_in}, {_d_out}, {_budget})"
    _h = got[_name]
    checks.expect_true(type(_h) is int, f"[mc:budget.whole-units] {_name} returned "
                       f"{type(_h).__name__}: return a Python int.")
    checks.expect_true(_h >= 0, f"[mc:budget.negative] {_name} = {_h}: when not even h = 1 fits, "
                       "the answer is 0, not a negative width.")
    checks.expect_true(_h == 0 or _mlp_params(_d_in, 1, _d_out) <= _budget, f"[mc:budget.negative] "
                       f"{_name} = {_h}, but not even h = 1 fits in {_budget} parameters: the answer "
                       "is then 0.")
    checks.expect_true(_h == 0 or _mlp_params(_d_in, _h, _d_out) <= _budget, f"[mc:params.forget-bias] "
                       f"{_name} = {_h} goes over the budget: count every weight and every bias (the "
                       "output layer's too), and round down.")
    checks.expect_true(_mlp_params(_d_in, _h + 1, _d_out) > _budget, f"[mc:budget.at-most] {_name} = "
                       f"{_h}, but h = {_h + 1} also fits: \"at most\" includes a budget spent exactly.")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 4: merge two Linear layers (2 points)
#
# Two Linear layers with nothing between them compute one affine map, so one Linear layer
# can replace them. Write `merge_linears(first, second)` that returns a new `nn.Linear`
# (with a bias) such that `merged(x)` equals `second(first(x))` for every x, and leaves
# `first` and `second` as they were. The merged layer's parameters must be its own
# trainable Parameters (write into them under `torch.no_grad()`, as in 02, or assign new
# `nn.Parameter`s, section 2).

# %% solution 03_modules-merge-linear
def merge_linears(first, second):
    ### BEGIN SOLUTION
    merged = nn.Linear(first.in_features, second.out_features)
    with torch.no_grad():
        # second(first(x)) = (x W1ᵀ + b1) W2ᵀ + b2 = x (W2 W1)ᵀ + (W2 b1 + b2)
        merged.weight.copy_(second.weight @ first.weight)
        merged.bias.copy_(second.weight @ first.bias + second.bias)
    return merged
    ### END SOLUTION

# %% test 03_modules-merge-linear-test points=2
_answered = (merge_linears,)
torch.manual_seed(21)
_first, _second = nn.Linear(3, 5), nn.Linear(5, 2)
_x = torch.randn(6, 3)
_hints = {"mat1 and mat2": "[mc:linear.weight-layout] Each weight is stored as (d_out, d_in) and "
          "a layer computes x Wᵀ + b: write second(first(x)) out with that formula, term by term, "
          "and follow each term's shape.",
          "size of tensor": "[mc:merge.shapes] The shapes do not fit together: expand "
          "second(first(x)) into a term in x and a constant, and follow each term's shape.",
          "cannot assign": "[mc:merge.assign-tensor] A Parameter cannot be replaced by a plain "
          "tensor: copy the values in under torch.no_grad() (merged.weight.copy_(...)) or wrap "
          "them in nn.Parameter.",
          "leaf Variable": "[mc:init.in-place-grad] Autograd refuses an in-place write into a "
          "Parameter that requires grad: write under torch.no_grad(), as the task says."}
with torch.no_grad():
    _no_first_bias = _x @ (_second.weight @ _first.weight).T + _second.bias
with checks.explain_errors(_hints, "merge_linears(Linear(3, 5), Linear(5, 2))"):
    _merged = merge_linears(_first, _second)
checks.expect_true(isinstance(_merged, nn.Linear), f"[mc:merge.not-one-layer] merge_linears "
                   f"returned a {type(_merged).__name__}: return one nn.Linear that does the work "
                   "of both.")
with torch.no_grad():
    checks.reject_close(_merged(_x), {_no_first_bias: "[mc:merge.bias] The first layer's bias is "
                                      "missing: it reaches the output through the second layer's "
                                      "weights."}, "merged(x)")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("merge_linears")


def _merge_report(d_in, d_mid, d_out, seed):
    """merge_linears on two seeded layers: what it returned, its output on x, the two layers
    after the call, and whether the merged layer follows a later change of the first."""
    torch.manual_seed(seed)
    first, second = nn.Linear(d_in, d_mid), nn.Linear(d_mid, d_out)
    x = torch.randn(6, d_in)
    merged = merge_linears(first, second)
    report = {"type": type(merged).__name__,
              "parameters": [(tuple(p.shape), type(p).__name__, p.is_leaf, p.requires_grad)
                             for p in merged.parameters()]}
    with torch.no_grad():
        report["merged(x)"] = merged(x).clone()
        report["layers after"] = [p.detach().clone() for p in (*first.parameters(), *second.parameters())]
        first.weight.add_(1.0)
        report["merged(x) after first changed"] = merged(x).clone()
    return report


probe.call("merge_linears(Linear(3, 5), Linear(5, 2))", _merge_report, 3, 5, 2, 21)
probe.call("merge_linears(Linear(4, 4), Linear(4, 4))", _merge_report, 4, 4, 4, 22)
### JUDGE
from helpers.grading.probe import Raised, got
_hints = {"mat1 and mat2": "[mc:linear.weight-layout] Each weight is stored as (d_out, d_in) and "
          "a layer computes x Wᵀ + b: write second(first(x)) out with that formula, term by term, "
          "and follow each term's shape.",
          "size of tensor": "[mc:merge.shapes] The shapes do not fit together: expand "
          "second(first(x)) into a term in x and a constant, and follow each term's shape.",
          "must match": "[mc:merge.shapes] The shapes do not fit together: expand "
          "second(first(x)) into a term in x and a constant, and follow each term's shape.",
          "cannot assign": "[mc:merge.assign-tensor] A Parameter cannot be replaced by a plain "
          "tensor: copy the values in under torch.no_grad() (merged.weight.copy_(...)) or wrap "
          "them in nn.Parameter.",
          "leaf Variable": "[mc:init.in-place-grad] Autograd refuses an in-place write into a "
          "Parameter that requires grad: write under torch.no_grad(), as the task says."}
for _shape, _seed in (((3, 5, 2), 21), ((4, 4, 4), 22)):
    _key = "merge_linears(Linear({}, {}), Linear({}, {}))".format(_shape[0], _shape[1], _shape[1], _shape[2])
    _out = got.outcome(_key)
    if isinstance(_out, Raised):
        checks.reject(True, {True: next((h for f, h in _hints.items() if f.lower() in _out.message.lower()),
                                        "[mc:merge.shapes] Build one nn.Linear from the two.")
                             + f" (merge_linears raised {_out})"}, _key)
    torch.manual_seed(_seed)
    _first, _second = nn.Linear(_shape[0], _shape[1]), nn.Linear(_shape[1], _shape[2])
    _x = torch.randn(6, _shape[0])
    _before = [p.detach() for p in (*_first.parameters(), *_second.parameters())]
    with torch.no_grad():
        _want = _second(_first(_x))
        _no_first_bias = _x @ (_second.weight @ _first.weight).T + _second.bias
    checks.expect_true(len(_out["layers after"]) == 4 and all(
        a.shape == b.shape and torch.equal(a, b) for a, b in zip(_before, _out["layers after"])),
                       "[mc:merge.modified-inputs] first or second changed: build a new layer and "
                       "leave the two you were given as they were.")
    checks.expect_true(_out["type"] == "Linear", f"[mc:merge.not-one-layer] merge_linears returned "
                       f"a {_out['type']}: return one nn.Linear that does the work of both.")
    checks.reject_close(_out["merged(x)"], {_no_first_bias: "[mc:merge.bias] The first layer's bias "
                        "is missing: it reaches the output through the second layer's weights."},
                        f"merged(x) for {_key}")
    checks.expect_close(_out["merged(x)"], _want, f"merged(x) for {_key}", rtol=1e-5, atol=1e-6,
                        hint=_hints["mat1 and mat2"] + " With square weights the other order runs "
                             "and is wrong.")
    checks.expect_true(all(kind == "Parameter" and leaf and grad for _, kind, leaf, grad
                           in _out["parameters"]), "[mc:merge.assign-tensor] The merged layer's "
                       "weight and bias must be trainable leaf Parameters.")
    checks.expect_true(torch.equal(_out["merged(x) after first changed"], _out["merged(x)"]),
                       "[mc:merge.modified-inputs] The merged layer must own its numbers: changing "
                       "the first layer afterwards should not change it.")
### END HIDDEN TESTS

# %% [markdown]
# ### Layers beyond Linear: `nn.Conv2d`
#
# A batch of images is a tensor (N, C, H, W): N images of C channels (3 for colour, 1 for
# 04's 8×8 digits) and H×W pixels. `nn.Conv2d(in_channels, out_channels, kernel_size)`
# slides a kernel_size × kernel_size window over each image. At each position every output
# channel is a weighted sum of all the values in the window, across all input channels,
# plus that output channel's bias, and the same weights serve at every position: one
# pattern per output channel, looked for everywhere in the image.
#
# **Quick quiz (predict).** `conv = nn.Conv2d(3, 16, kernel_size=5)` receives colour
# images of 32×32 pixels, a batch of shape (8, 3, 32, 32). How many parameters does `conv`
# have? Put the number in `answer_conv_params`.

# %% solution 03_modules-quiz-conv-params
### BEGIN SOLUTION
answer_conv_params = 1216
### END SOLUTION

# %% test 03_modules-quiz-conv-params-test points=1
checks.answer("03_modules-quiz-conv-params", answer_conv_params, "answer_conv_params", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_conv_params")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_conv_params"]
checks.answer("03_modules-quiz-conv-params", _answer, "answer_conv_params", kind=int)
with checks.because("[mc:conv.weights-per-position] One filter of in_channels × 5 × 5 "
                    "weights per output channel, and one bias each, whatever the image size."):
    checks.expect_equal(_answer, sum(p.numel() for p in nn.Conv2d(3, 16, kernel_size=5).parameters()),
                        "answer_conv_params")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-conv-params
{
    1200: "[mc:conv.no-bias] Each output channel also has a bias, added after the weighted "
          "sum: one number per output channel.",
    416: "[mc:conv.one-input-channel] An output channel's window spans every input channel: "
         "its filter has 3 × 5 × 5 weights, not 5 × 5.",
    1203: "[mc:conv.bias-per-input] The bias belongs to the output channel (one per filter), "
          "not to the input channel.",
    953344: "[mc:conv.weights-per-position] The same weights serve at every position of the "
            "window: the count does not depend on the image size.",
}

# %% [markdown]
# Run it, and read the convolution as a matrix product over windows:

# %%
conv = nn.Conv2d(3, 16, kernel_size=5)
images = torch.randn(8, 3, 32, 32)
print("weight", tuple(conv.weight.shape), "bias", tuple(conv.bias.shape), "| parameters:",
      sum(p.numel() for p in conv.parameters()), "| output", tuple(conv(images).shape),
      "| with padding=2:", tuple(nn.Conv2d(3, 16, 5, padding=2)(images).shape))
windows = F.unfold(images, kernel_size=5)  # every 5×5 window of the 3 channels, as a column
print("windows:", tuple(windows.shape))
as_product = (conv.weight.view(16, -1) @ windows + conv.bias[:, None]).view(8, 16, 28, 28)
print("weight.view(16, 75) @ windows + bias equals conv(images):",
      torch.allclose(as_product, conv(images), atol=1e-5))
print(f"a Linear from the 3·32·32 inputs to the same 16·28·28 outputs: "
      f"{16 * 28 * 28 * (3 * 32 * 32 + 1):,} parameters")

# %% [markdown]
# Compare with your answer: the weight is (out_channels, in_channels, kh, kw), one filter
# per output channel across every input channel, plus a bias each: out·(in·kh·kw + 1)
# parameters, whatever the image size. As (16, 75) it is a Linear layer's (d_out, d_in)
# weight applied to each of the 28·28 windows (5 fits 32 − 5 + 1 times; `padding=2` keeps 32).
#
# **Memory layout: `channels_last`.** In 01 a contiguous tensor was stored row-major, so an
# (N, C, H, W) batch has strides (C·H·W, H·W, W, 1): the channels of one pixel lie H·W
# elements apart. `x.to(memory_format=torch.channels_last)` keeps the shape and the values
# and stores each pixel's channels side by side (the order N, H, W, C), the layout many
# convolution kernels on CPUs and GPUs are written for. Only the strides tell:

# %%
small = torch.arange(2 * 3 * 4 * 5.0).view(2, 3, 4, 5)
nhwc = small.to(memory_format=torch.channels_last)
print("shape", tuple(nhwc.shape), "| strides: contiguous", small.stride(),
      "channels_last", nhwc.stride(), "| same values:", torch.equal(small, nhwc))
print("is_contiguous():", nhwc.is_contiguous(), "| is_contiguous(memory_format=channels_last):",
      nhwc.is_contiguous(memory_format=torch.channels_last))
for name, t in (("contiguous", small), ("channels_last", nhwc)):  # offset = Σ index · stride (01)
    print(f"{name:13s} pixel (0, :, 0, 1): storage offsets",
          [c * t.stride(1) + 1 * t.stride(3) for c in range(3)])
nhwc_conv = copy.deepcopy(conv).to(memory_format=torch.channels_last)  # 4-D weights too
out_nhwc = nhwc_conv(images.to(memory_format=torch.channels_last))
print("conv weight strides", conv.weight.stride(), "->", nhwc_conv.weight.stride(),
      "| output channels_last:", out_nhwc.is_contiguous(memory_format=torch.channels_last),
      "| same output:", torch.allclose(out_nhwc, conv(images), atol=1e-5))

# %% [markdown]
# ### Layers beyond Linear: `nn.Embedding`
#
# Words, characters and item ids arrive as integers, not vectors. `nn.Embedding(num_embeddings,
# embedding_dim)` holds a table, its weight of shape (num_embeddings, embedding_dim) drawn
# from N(0, 1), and replaces each integer of a LongTensor of any shape (…) by its row, giving
# (…, embedding_dim). The lookup is a gather, the integer indexing of 01, and the same as a
# Linear layer without bias applied to one-hot vectors, without building them:

# %%
emb = nn.Embedding(10, 4)
tokens = torch.tensor([[2, 5, 5], [9, 0, 2]])  # two sequences of three token ids
print("weight", tuple(emb.weight.shape), "| tokens", tuple(tokens.shape), "-> output",
      tuple(emb(tokens).shape))
print("emb(tokens) equals emb.weight[tokens]:", torch.equal(emb(tokens), emb.weight[tokens]),
      "| equals one_hot(tokens) @ weight:",
      torch.allclose(F.one_hot(tokens, 10).float() @ emb.weight, emb(tokens)))

# %% [markdown]
# **Quick quiz (predict).** A fresh `emb = nn.Embedding(10, 4)` receives
# `tokens = torch.tensor([[1, 3, 3], [7, 1, 0]])`, and `emb(tokens).sum().backward()` runs.
# How many of the 10 rows of `emb.weight.grad` hold a number that is not zero? Put the
# count in `answer_embedding_rows`.

# %% solution 03_modules-quiz-embedding-rows
### BEGIN SOLUTION
answer_embedding_rows = 4
### END SOLUTION

# %% test 03_modules-quiz-embedding-rows-test points=1
checks.answer("03_modules-quiz-embedding-rows", answer_embedding_rows, "answer_embedding_rows",
              kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_embedding_rows")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_embedding_rows"]
checks.answer("03_modules-quiz-embedding-rows", _answer, "answer_embedding_rows", kind=int)
_emb = nn.Embedding(10, 4)
_emb(torch.tensor([[1, 3, 3], [7, 1, 0]])).sum().backward()
with checks.because("[mc:embedding.dense-grad] A row gets a gradient where a token read it, "
                    "and only there."):
    checks.expect_equal(_answer, int(_emb.weight.grad.any(dim=1).sum()), "answer_embedding_rows")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-embedding-rows
{
    6: "[mc:embedding.row-per-token] A token read twice sends its two gradients to the same "
       "row, where they add up: count the rows that were read, not the reads.",
    10: "[mc:embedding.dense-grad] The lookup only reads some rows; the gradient of a row "
        "nobody read is exactly zero.",
    3: "[mc:embedding.zero-is-padding] Token 0 is an ordinary token: only "
       "nn.Embedding(..., padding_idx=0) would keep its row out of the gradient.",
    2: "[mc:embedding.row-per-token] The gradient has one row per table entry, not per "
       "sequence: count the table rows that some token read.",
}

# %% [markdown]
# Run it, densely and with `sparse=True`:

# %%
emb = nn.Embedding(10, 4)
tokens = torch.tensor([[1, 3, 3], [7, 1, 0]])
emb(tokens).sum().backward()
print("rows with a nonzero gradient:", emb.weight.grad.any(dim=1).nonzero().flatten().tolist())
print("first column of the gradient, rows 0 to 9:", emb.weight.grad[:, 0].tolist())
sparse_emb = nn.Embedding(10, 4, sparse=True)
sparse_emb(tokens).sum().backward()
grad = sparse_emb.weight.grad.coalesce()
print(f"sparse=True: {grad.layout}, rows stored {grad.indices().flatten().tolist()}, values "
      f"{tuple(grad.values().shape)} | SGD steps it:")
torch.optim.SGD(sparse_emb.parameters(), lr=0.1).step()
with checks.expect_error(RuntimeError):
    torch.optim.Adam(sparse_emb.parameters()).step()

# %% [markdown]
# Compare with your answer: row r's gradient sums the output's gradients at every place
# token r was read (rows 1 and 3 twice, rows 0 and 7 once), and the six rows no token read
# stay exactly zero, however large the table. With `sparse=True` the gradient stores only
# the rows read, small even for a million rows; SGD accepts it, Adam does not
# (`torch.optim.SparseAdam` does). 05's batches add a padding token, whose row should never
# train.

# %% [markdown]
# ## 5. `train()` and `eval()`: dropout and batch norm
#
# Every module has a flag `training`; `model.train()` and `model.eval()` set it on the
# model and all its submodules. Two layers behave differently in the two modes:
#
# - **Dropout(p)**: in training, each element is zeroed with probability p, independently
#   of the others; in evaluation it passes its input through unchanged.
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
checks.answer("03_modules-quiz-dropout-value", answer_dropout_value, "answer_dropout_value",
              kind=float)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_dropout_value")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_dropout_value"]
checks.answer("03_modules-quiz-dropout-value", _answer, "answer_dropout_value", kind=float)
_kept = nn.Dropout(0.2).train()(torch.ones(1000))
checks.expect_close(_answer, _kept[_kept != 0][0].item(), "answer_dropout_value", rtol=1e-5,
                    hint="[mc:dropout.no-rescale] A survivor v must make the expected value "
                         "(1 − p)·v equal the input 1.")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-dropout-value
{
    1.0: "[mc:dropout.no-rescale] If the survivors stayed at 1, the expected output would be "
         "(1 − p)·1 = 0.8, not the input 1: dropout rescales them in training.",
    0.8: "[mc:dropout.multiply-keep] Multiplying by the keep probability makes the expected "
         "value smaller still; the survivors must be scaled up, not down.",
    0.2: "[mc:dropout.multiply-keep] p is the probability of being zeroed; the survivors are "
         "scaled up so that the expected value stays 1.",
    5.0: "[mc:dropout.divide-by-p] Dividing by p would make the expected value (1 − p)/p = 4: "
         "the scale comes from the keep probability 1 − p.",
}

# %% [markdown]
# Run both layers in both modes:

# %%
drop = nn.Dropout(p=0.2)
torch.manual_seed(7)
print("train():", drop(torch.ones(10)))
drop.eval()
print("eval(): ", drop(torch.ones(10)))

bn = nn.BatchNorm1d(3)
batch = torch.randn(64, 3) * 2 + 5
print("batch mean:", batch.mean(0), "| momentum:", bn.momentum)
print("running_mean before:", bn.running_mean)
bn(batch)  # training mode: batch statistics, and the running averages move
print("running_mean after one training batch:", bn.running_mean)
bn.eval()
one = batch[:1]
print("eval: a sample alone and inside its batch give the same output:",
      torch.allclose(bn(one), bn(batch)[:1]))
bn.train()
print("train: the same comparison:", torch.allclose(bn(batch[:2])[:1], bn(batch)[:1]))
print("bn.training after bn.train(False):", bn.train(False).training)

# %% [markdown]
# Compare with your answer: the survivors are 1/(1 − p) = 1.25, so that each element's
# expected value in training, 0.8 · 1.25 = 1, equals its input, which is what `eval()`
# passes on: the next layer sees inputs of the same size on average in both modes. The
# running mean moved a fraction `bn.momentum` of the way from 0
# towards the batch mean (both printed above). `model.train(False)` is the same as
# `model.eval()`, and `model.train(mode)` sets the flag to `mode`; `model.training` reads it.
#
# A gradient step, as in 02, moves each parameter against its gradient under
# `torch.no_grad()`. An optimizer (04) does exactly this to every tensor that
# `model.parameters()` lists:

# %%
def sgd_step(model, lr):
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p -= lr * p.grad

# %% [markdown]
# **Quick quiz (predict).** True or false: after `model.eval()`, a call of
# `loss.backward()` followed by `sgd_step(model, 0.1)` leaves the model's weights
# unchanged. Put `True` or `False` in `answer_eval_freezes`.

# %% solution 03_modules-quiz-eval-freezes
### BEGIN SOLUTION
answer_eval_freezes = False
### END SOLUTION

# %% test 03_modules-quiz-eval-freezes-test points=1
checks.answer("03_modules-quiz-eval-freezes", answer_eval_freezes, "answer_eval_freezes",
              kind=bool)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_eval_freezes")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_eval_freezes"]
checks.answer("03_modules-quiz-eval-freezes", _answer, "answer_eval_freezes", kind=bool)
_m = nn.Linear(2, 1).eval()
_before = _m.weight.detach().clone()
_m(torch.ones(1, 2)).sum().backward()
with torch.no_grad():
    for _p in _m.parameters():
        _p -= 0.1 * _p.grad
with checks.because("[mc:mode.eval-freezes] eval() does not freeze parameters."):
    checks.expect_equal(_answer, torch.equal(_before, _m.weight.detach()), "answer_eval_freezes")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-eval-freezes
{
    True: "[mc:mode.eval-freezes] eval() only switches dropout and batch norm to their "
          "evaluation behaviour; requires_grad is unchanged, so backward fills .grad and the "
          "step updates the weights.",
}

# %% [markdown]
# Run it:

# %%
probe_layer = nn.Linear(2, 1).eval()
before = probe_layer.weight.detach().clone()
probe_layer(torch.ones(1, 2)).sum().backward()
sgd_step(probe_layer, 0.1)
print("training flag:", probe_layer.training, "| requires_grad:", probe_layer.weight.requires_grad,
      "| weights changed by the step:", not torch.equal(before, probe_layer.weight))

# %% [markdown]
# Compare with your answer: `eval()` leaves `requires_grad` alone, backward still fills
# `.grad`, and the step still moves the weights. It changes the behaviour of dropout and
# batch norm only; stopping the graph is another switch. What trains is decided by
# registration: what `parameters()` lists and its `requires_grad`.
#
# ### `torch.no_grad()` and `torch.inference_mode()`
#
# Both stop autograd from recording a graph. `torch.inference_mode()` goes further: the
# tensors it creates are *inference tensors*, which autograd refuses to save for a backward
# pass later, so
# PyTorch can skip the bookkeeping it keeps for tensors that might be (version counters,
# view tracking). Use it where the results never meet autograd again; use `no_grad` where
# they might:

# %%
weights = torch.ones(3, requires_grad=True)
with torch.no_grad():
    under_no_grad = probe_layer(torch.randn(2, 2)).expand(2, 3)
with torch.inference_mode():
    under_inference = probe_layer(torch.randn(2, 2)).expand(2, 3)
print("requires_grad:", under_no_grad.requires_grad, under_inference.requires_grad,
      "| inference tensors:", torch.is_inference(under_no_grad), torch.is_inference(under_inference))
(under_no_grad * weights).sum().backward()
print("a no_grad result can feed a graph later: weights.grad =", weights.grad)
with checks.expect_error(RuntimeError):
    (under_inference * weights).sum().backward()

# %% [markdown]
# ### One mode per submodule
#
# `model.train(flag)` sets the flag of *every* submodule, but each submodule keeps its own
# flag, so a model can be in mixed modes. Fine-tuning often trains a network while its batch
# norm layers stay in `eval()` (their statistics kept from pretraining). Two ways of
# "putting the mode back" then go wrong in different directions:

# %%
def flags(model):
    return " ".join(f"{type(m).__name__}:{'train' if m.training else 'eval'}" for m in model.modules())


tuned_bn = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 2))
tuned_bn.train()
tuned_bn[1].eval()  # batch norm statistics frozen for fine-tuning
print("as set:                ", flags(tuned_bn))
was_training = tuned_bn.training
tuned_bn.eval()
tuned_bn.train(was_training)
print("after train(was):      ", flags(tuned_bn))
tuned_bn[1].eval()
tuned_bn.eval()
tuned_bn.training = was_training
print("after .training = was: ", flags(tuned_bn))
print("named_children():      ", [(name, type(child).__name__) for name, child in tuned_bn.named_children()])

# %% [markdown]
# `train(was)` switched the batch norm back to training; assigning `.training` changed the
# top-level flag alone and left the dropout in `eval()`. Restoring a mode means restoring
# each submodule's own flag (`model.modules()` lists them all, the model first, nested ones
# included; `model.named_children()` gives only the direct children, with their names,
# as the cell's last line printed).
#
# A model used for predictions runs in `eval()` mode and without recording a graph (faster,
# less memory). A helper that does this should put the model back as it found it, so that a
# training loop calling it keeps training with dropout, and a fine-tuning loop keeps its
# frozen batch norm.
#
# ### Exercise 5: predict without side effects (2 points)
#
# Write `predict(model, x)`: return `model(x)` computed in evaluation mode without
# recording a graph, and leave `model` *and every submodule in it* in the mode it was in
# before the call. Write the saving and restoring yourself: `helpers.modes` (which 04 uses)
# does it for you, and this exercise is what it does.

# %% solution 03_modules-predict
def predict(model, x):
    ### BEGIN SOLUTION
    modes = {module: module.training for module in model.modules()}
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        for module, was_training in modes.items():
            module.training = was_training
    ### END SOLUTION

# %% test 03_modules-predict-test points=2
_answered = (predict,)
torch.manual_seed(8)
_net = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 2))
_net.train()
_seen = []  # the dropout's own mode, and autograd's, when it runs (also in a copy of the model)
_net[3].register_forward_hook(lambda m, i, o: _seen.append((m.training, torch.is_grad_enabled())))
try:
    with checks.explain_errors({}, "predict(model, x)"):
        predict(_net, torch.randn(6, 4))
finally:
    _grad_left_on = torch.is_grad_enabled()
    torch.set_grad_enabled(True)  # so that the rest of the page runs
checks.expect_true(bool(_seen) and not _seen[-1][0], "[mc:predict.dropout-active] The model ran in "
                   "training mode, so dropout zeroed activations at random: call model.eval() first.")
checks.expect_true(not _seen[-1][1], "[mc:predict.graph-recorded] Autograd recorded a graph: run the "
                   "model inside `with torch.no_grad():` (or torch.inference_mode()).")
checks.expect_true(all(m.training for m in _net.modules()), "[mc:predict.mode-not-restored] The "
                   "model was in training mode and some of its submodules are in evaluation mode "
                   "after predict: give every submodule its mode back.")
### BEGIN HIDDEN TESTS
import helpers.modes
from helpers.grading import probe
probe.needs("predict")
torch.manual_seed(8)
_net = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 2))
_net(torch.randn(32, 4))  # some running statistics
_net.train()
_seen = []
_net[3].register_forward_hook(lambda m, i, o: _seen.append((m.training, torch.is_grad_enabled())))
_x = torch.randn(6, 4)
try:
    with helpers.modes.calls_recorded() as _delegated:
        probe.call("predict(model, x)", predict, _net, _x)
    probe.value("autograd on after predict", torch.is_grad_enabled())
    torch.set_grad_enabled(True)
    probe.value("helpers.modes functions predict called", list(_delegated))
    probe.value("each dropout run: (its training flag, autograd recording)", list(_seen))
    probe.value("modes after predict, from train()", [m.training for m in _net.modules()])
    _net[1].eval()  # the fine-tuning case: batch norm kept in eval while the rest trains
    probe.call("predict(model with its batch norm in eval, x)", predict, _net, _x)
    probe.value("modes after predict, batch norm in eval", [m.training for m in _net.modules()])
    _nested = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Dropout(0.3), nn.BatchNorm1d(4)))
    probe.call("predict from all-train, all-eval and mixed modes (nested)", helpers.modes.mode_changes,
               predict, _nested, torch.randn(3, 4))
    probe.call("predict from all-train, all-eval and mixed modes", helpers.modes.mode_changes,
               predict, _net, _x)
finally:
    torch.set_grad_enabled(True)  # whatever predict did, the rest of the notebook records graphs
### JUDGE
from helpers.grading.probe import got, ref
_out = got["predict(model, x)"]
_delegated = got["helpers.modes functions predict called"]
checks.expect_true(not _delegated, "[mc:predict.delegates] predict calls helpers.modes ("
                   + ", ".join(_delegated) + "), which does this exercise for you: save each "
                   "submodule's flag and put it back yourself.")
_seen = got["each dropout run: (its training flag, autograd recording)"]
checks.expect_true(bool(_seen), "[mc:predict.model-not-called] predict never called the model: "
                   "return model(x).")
checks.expect_true(not _seen[0][0], "[mc:predict.dropout-active] The model ran in training mode, "
                   "so dropout zeroed activations at random: call model.eval() first.")
checks.expect_true(not _seen[0][1], "[mc:predict.graph-recorded] Autograd recorded a graph: run the "
                   "model inside `with torch.no_grad():` (or torch.inference_mode()).")
checks.expect_true(got["autograd on after predict"] is True, "[mc:predict.grad-mode-left] After "
                   "predict, autograd is off for everything that follows: torch.set_grad_enabled(False) "
                   "stays in force until it is switched back. A `with torch.no_grad():` block ends "
                   "by itself.")
checks.expect_true(isinstance(_out, torch.Tensor), "[mc:predict.output-changed] predict returned an "
                   f"object of type {type(_out).__name__}: return what model(x) returns, a tensor.")
_left = got["modes after predict, from train()"].count(False)
checks.expect_true(not _left, f"[mc:predict.mode-not-restored] The model was in training mode and "
                   f"{_left} of its submodules are in evaluation mode after predict: give every "
                   "submodule its mode back.")
got["predict(model with its batch norm in eval, x)"]
_modes = got["modes after predict, batch norm in eval"]
checks.expect_true(not _modes[2] and _modes[4], "[mc:predict.one-flag-restored] The batch norm was "
                   "in eval() and the rest in train() before the call, and predict changed that: "
                   "remember each submodule's own flag (model.modules()), not only model.training.")
checks.expect_close(_out, ref["predict(model, x)"], "predict(model, x)",
                    hint="[mc:predict.dropout-active] The output in eval mode, for this x.")
_problems = got["predict from all-train, all-eval and mixed modes (nested)"]
checks.expect_true(not _problems, "[mc:predict.one-flag-restored] predict must leave every "
                   "submodule in its own mode; " + (str(_problems[0]) if _problems else ""))
checks.expect_true(not got["predict from all-train, all-eval and mixed modes"],
                   "[mc:predict.mode-not-restored] A model in evaluation mode must stay in "
                   "evaluation mode, one in training mode in training mode.")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Saving and loading: `state_dict`, and why not to unpickle strangers' files
#
# `state_dict()` maps each registered name to its tensor: parameters and persistent
# buffers, nothing else (not the code, not the optimizer). The usual way to save a model
# is to save that dictionary, and to load it into a freshly built model of the same class:

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
# ### Keys must match
#
# `load_state_dict` is strict: a key the model does not have, or one it lacks, is an error.
# Here the model has no batch norm, so its names are shifted:

# %%
other = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
with checks.expect_error(RuntimeError):
    other.load_state_dict(torch.load(path, weights_only=True))

# %% [markdown]
# The names are attribute paths (section 1), so a model saved while it sat inside a wrapper
# carries the wrapper's attribute in every key. `nn.DataParallel` keeps its model in
# `.module`, and `torch.compile(model)` returns a wrapper too (06 compiles); `model.compile()`
# compiles the module where it stands:

# %%
wrapped = nn.DataParallel(copy.deepcopy(source))  # a copy: with a GPU it would move its model
print("DataParallel:  ", list(wrapped.state_dict())[:2])
with checks.expect_error(RuntimeError):
    copy_model.load_state_dict(wrapped.state_dict())
compiled = torch.compile(copy.deepcopy(source))  # nothing is compiled before the first call
print(f"torch.compile: {list(compiled.state_dict())[:2]} | {type(compiled).__name__}._orig_mod "
      f"is the {type(compiled._orig_mod).__name__}")
in_place = copy.deepcopy(source)
in_place.compile()  # the module itself is compiled (at its first call): no wrapper
print(f"model.compile(): {list(in_place.state_dict())[:2]} | still a {type(in_place).__name__}")

# %% [markdown]
# A checkpoint saved from `torch.compile(model)` has `_orig_mod.` before every key and does
# not load into the bare model; one saved after `model.compile()` does.
#
# `load_state_dict(state, strict=False)` loads the keys that match and returns the ones it
# skipped instead of raising. That is easy to overlook: below, a checkpoint that lacks the
# last layer "loads", and the last layer silently keeps its random start.

# %%
backbone_only = {k: v for k, v in source.state_dict().items() if not k.startswith("3.")}
partial = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
report = partial.load_state_dict(backbone_only, strict=False)
print(report)
print("last layer equals the saved one:", torch.equal(partial[3].weight, source[3].weight))

# %% [markdown]
# Keep `strict=True` (the default) unless you mean to load part of a model, and then check
# `missing_keys` and `unexpected_keys` yourself.
#
# **Where the tensors land.** A checkpoint saved on a GPU holds CUDA tensors, and loading it
# on a machine without one fails unless `torch.load(path, map_location="cpu")` says where
# every tensor should go. The same argument sends them anywhere, here to `"meta"`:

# %%
print({k: str(v.device) for k, v in list(torch.load(path, map_location="meta", weights_only=True).items())[:2]})

# %% [markdown]
# ### Pickle runs code
#
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


def refusal(error):
    """The line of an UnpicklingError that names what weights_only loading refused."""
    return next((line.strip() for line in str(error).splitlines() if "Unsupported global" in line),
                "UnpicklingError")


for how, kwargs in (("weights_only=True", {"weights_only": True}), ("no argument (the default)", {})):
    try:
        torch.load(untrusted, **kwargs)
    except pickle.UnpicklingError as error:
        print(f"{how} refused it:", refusal(error)[:100])
print("weights_only=False ran it:", torch.load(untrusted, weights_only=False))

# %% [markdown]
# With `weights_only=False` the `print` ran during loading, before your code saw the
# result. Load files you did not make yourself with `weights_only=True`.
#
# **Allow-listing a class.** A checkpoint often stores more than tensors: the epoch, and the
# settings the model was built with. An object of your own class is refused too, even a
# harmless one. `torch.serialization.safe_globals([RunInfo])` is a `with` block that allows
# that class, and nothing else, for the loads inside it (`add_safe_globals` allows it for
# the rest of the session):

# %%
@dataclass
class RunInfo:
    seed: int
    note: str


run_file = os.path.join(workdir, "run.pt")
torch.save({"info": RunInfo(3, "first try"), "weights": source.state_dict()}, run_file)
try:
    torch.load(run_file, weights_only=True)
except pickle.UnpicklingError as error:
    print("refused:", refusal(error)[:110])
with torch.serialization.safe_globals([RunInfo]):
    print("allowed:", torch.load(run_file, weights_only=True)["info"])
    try:
        torch.load(untrusted, weights_only=True)
    except pickle.UnpicklingError:
        print("inside the same block, the file that names print() is still refused")

# %% [markdown]
# ### Exercise 6: load a checkpoint from a compiled run (3 points)
#
# A training run of yours saved checkpoints as dictionaries with three entries: `"config"`,
# a `TrainConfig` (below) holding the settings the model was built with; `"epoch"`, an int;
# and `"model"`, the state_dict of the model taken while it sat inside `torch.compile`'s
# wrapper, so every key begins with `"_orig_mod."`.
#
# Write `load_checkpoint(path)` that loads such a file without letting it run code (allow
# `TrainConfig` and nothing more), builds `make_model(config)` with the file's config,
# loads the weights so that every parameter and buffer comes from the file (a file that
# lacks any of them must make `load_checkpoint` raise), puts the model in evaluation mode,
# and returns `(model, epoch)`.

# %%
@dataclass
class TrainConfig:
    hidden: int
    dropout: float


def make_model(config):
    return nn.Sequential(nn.Linear(4, config.hidden), nn.BatchNorm1d(config.hidden), nn.ReLU(),
                         nn.Dropout(config.dropout), nn.Linear(config.hidden, 2))

# %% solution 03_modules-load-checkpoint
def load_checkpoint(path):
    ### BEGIN SOLUTION
    with torch.serialization.safe_globals([TrainConfig]):
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    prefix = "_orig_mod."
    state = {key.removeprefix(prefix): value for key, value in checkpoint["model"].items()}
    model = make_model(checkpoint["config"])
    model.load_state_dict(state)  # strict: a missing or extra key raises
    model.eval()
    return model, checkpoint["epoch"]
    ### END SOLUTION

# %% test 03_modules-load-checkpoint-test points=3
_answered = (load_checkpoint,)
torch.manual_seed(5)
_good = os.path.join(workdir, "good.pt")
torch.save({"config": TrainConfig(6, 0.1), "epoch": 7, "model": {
    "_orig_mod." + k: v for k, v in make_model(TrainConfig(6, 0.1)).state_dict().items()}}, _good)
_hints = {"Unsupported global": "[mc:load.allow-list] The file holds a TrainConfig, which "
          "weights_only loading refuses until you allow it: load inside "
          "`with torch.serialization.safe_globals([TrainConfig]):`.",
          "key": "[mc:load.prefix] The keys in the file begin with '_orig_mod.', the model's do "
          "not: remove that prefix from every key before loading."}
with checks.explain_errors(_hints, "load_checkpoint(path)"):
    _result = load_checkpoint(_good)
checks.expect_true(isinstance(_result, tuple) and len(_result) == 2, "[mc:load.return-pair] Return "
                   "a pair: the loaded model and the epoch from the file.")
### BEGIN HIDDEN TESTS
import contextlib
import io
import os
import tempfile

from helpers.grading import probe
probe.needs("load_checkpoint")


class _Payload:
    def __reduce__(self):  # unpickling calls print (found by name: builtins.print)
        return (print, ("TRIPWIRE: the file ran code while it loaded",))


def _write_checkpoint(where, state, config, epoch=7):
    torch.save({"config": config, "epoch": epoch,
                "model": {"_orig_mod." + k: v for k, v in state.items()}}, where)


def _loaded(path):
    """What load_checkpoint(path) returned (its shape, the model's state and modes), or the
    whole message of what it raised; and whatever the loading printed."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        try:
            result = load_checkpoint(path)
        except NotImplementedError:
            raise  # the release's stub: not answered yet
        except Exception as error:
            return {"raised": f"{type(error).__name__}: {error}"[:3000], "printed": printed.getvalue()}
    if not (type(result) is tuple and len(result) == 2 and isinstance(result[0], nn.Module)):
        return {"pair": False, "printed": printed.getvalue()}
    model = getattr(result[0], "_orig_mod", result[0])  # a model returned inside torch.compile's wrapper
    return {"pair": True, "epoch": result[1], "training": [m.training for m in model.modules()],
            "state": dict(model.state_dict()), "out_features": model[0].out_features,
            "printed": printed.getvalue()}


_dir = tempfile.TemporaryDirectory()
torch.manual_seed(5)
_trained = make_model(TrainConfig(6, 0.1))
_trained(torch.randn(16, 4))  # moves batch norm's running statistics away from their start
_state = _trained.state_dict()
_files = {name: os.path.join(_dir.name, name + ".pt") for name in ("good", "missing", "evil", "wide")}
_write_checkpoint(_files["good"], _state, TrainConfig(6, 0.1))
_write_checkpoint(_files["missing"], {k: v for k, v in _state.items() if not k.startswith("4.")},
                  TrainConfig(6, 0.1))
_write_checkpoint(_files["evil"], _state, _Payload())
_write_checkpoint(_files["wide"], make_model(TrainConfig(9, 0.3)).state_dict(), TrainConfig(9, 0.3), epoch=12)
probe.call("load_checkpoint(path)", _loaded, _files["good"])
probe.call("load_checkpoint(a checkpoint without the last layer)", _loaded, _files["missing"])
probe.call("load_checkpoint(untrusted file)", _loaded, _files["evil"])
probe.call("load_checkpoint(a checkpoint with hidden=9)", _loaded, _files["wide"])
### JUDGE
from helpers.grading.probe import got, ref
_hints = {"Unsupported global": "[mc:load.allow-list] The file holds a TrainConfig, which "
          "weights_only loading refuses until you allow it: load inside "
          "`with torch.serialization.safe_globals([TrainConfig]):`.",
          "Missing key": "[mc:load.prefix] The keys in the file begin with '_orig_mod.', the "
          "model's do not: remove that prefix from every key before loading.",
          "Unexpected key": "[mc:load.prefix] The keys in the file begin with '_orig_mod.', the "
          "model's do not: remove that prefix from every key before loading.",
          "size mismatch": "[mc:load.config] The file's weights have other shapes than the model "
          "you built: build it with make_model(...) of the file's own config."}
for _key in ("load_checkpoint(path)", "load_checkpoint(a checkpoint with hidden=9)"):
    _out = got[_key]
    if "raised" in _out:
        checks.reject(True, {True: f"{_key} raised {_out['raised'].splitlines()[0]} " + next(
            (h for f, h in _hints.items() if f.lower() in _out["raised"].lower()), "")}, _key)
    checks.expect_true(_out["pair"], "[mc:load.return-pair] Return a pair: the loaded model and the "
                       "epoch from the file.")
_good = got["load_checkpoint(path)"]
checks.expect_true(_good["epoch"] == 7 and type(_good["epoch"]) is int, f"[mc:load.return-pair] The "
                   f"epoch returned is {_good['epoch']!r}: return the file's \"epoch\" entry as it is.")
checks.expect_true(not any(_good["training"]), "[mc:state-dict.mode] The loaded model is still in "
                   "training mode: call model.eval() before returning it, or batch norm and dropout "
                   "behave as in training.")
checks.expect_true("raised" in got["load_checkpoint(a checkpoint without the last layer)"],
                   "[mc:load.strict-false] load_checkpoint returned a model for a file without the "
                   "last layer, which would keep its random start and nothing would say so: load "
                   "strictly (strict=True, the default) so that a missing key raises.")
_evil = got["load_checkpoint(untrusted file)"]
checks.expect_true("TRIPWIRE" not in _evil["printed"], "[mc:state-dict.trust-pickle] "
                   "Loading the untrusted file called a function it named: that is what "
                   "weights_only=False allows. Use weights_only=True and allow TrainConfig alone.")
checks.expect_true("raised" in _evil, "[mc:state-dict.trust-pickle] load_checkpoint accepted a file "
                   "holding an object that is neither a tensor nor TrainConfig: load with "
                   "weights_only=True, which refuses it.")
_want = ref["load_checkpoint(path)"]["state"]
with checks.because("[mc:state-dict.not-loaded] Every parameter and buffer must come from the file."):
    for _k, _v in _want.items():
        checks.expect_equal(_good["state"].get(_k), _v, f"state_dict()[{_k!r}]")
_wide = got["load_checkpoint(a checkpoint with hidden=9)"]
checks.expect_true(_wide["out_features"] == 9 and _wide["epoch"] == 12, "[mc:load.config] Build the "
                   "model from the file's own config and return the file's own epoch.")
### END HIDDEN TESTS

# %% [markdown]
# ### Saving the program as well: `torch.export`
#
# A state_dict holds numbers; using them needs the Python class that built the model.
# `torch.export.export(model, example_inputs)` runs `forward` on the example and records
# the operations it performs as a graph of ATen operations (the library of operations
# under every torch function), the parameters and buffers as the graph's inputs. The
# result, an `ExportedProgram`, is saved with `torch.export.save` to a `.pt2` file, loaded
# with `torch.export.load` without the model's class, and run through `.module()`.
# (TorchScript, the older way, is in maintenance; `torch.export` is the current one.)

# %%
frozen_source = copy.deepcopy(source).eval()
exported = torch.export.export(frozen_source, (torch.randn(5, 4),))
print("operations:", [str(node.target) for node in exported.graph.nodes if node.op == "call_function"])
print("inputs:", [f"{spec.kind.name}:{spec.target or spec.arg.name}"
                  for spec in exported.graph_signature.input_specs])
program_file = os.path.join(workdir, "small.pt2")
torch.export.save(exported, program_file)
reloaded = torch.export.load(program_file).module()
x5 = torch.randn(5, 4)
print("the loaded program computes what the model does:", torch.allclose(reloaded(x5), frozen_source(x5)))
with checks.expect_error(Exception):
    reloaded(torch.randn(7, 4))
any_batch = torch.export.export(frozen_source, (x5,), dynamic_shapes=({0: torch.export.Dim("batch")},))
print("exported with a dynamic batch dimension, 7 rows give", tuple(any_batch.module()(torch.randn(7, 4)).shape))

# %% [markdown]
# The graph is fixed: the batch size of the example became part of it until a dimension
# was declared dynamic. It has no Python left in it either, so a `forward` whose path
# depends on the *values* of a tensor cannot become one graph, and export refuses it
# (`torch.cond` writes such a branch as an operation the graph can hold):

# %%
class SignFlip(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # which branch runs depends on the numbers in x
            return x
        return -x


logging.disable(logging.WARNING)  # export logs and prints what it tried; its error says enough
with (checks.expect_error(Exception), contextlib.redirect_stdout(io.StringIO()),
      contextlib.redirect_stderr(io.StringIO())):
    torch.export.export(SignFlip(), (torch.randn(3),))
logging.disable(logging.NOTSET)

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
unfrozen = tuned[0].requires_grad_(True)  # it returns the module: kept, not printed
print("trainable after unfreezing:", trainable(tuned))

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
# them; a function is fine for stateless operations such as ReLU. A function knows no
# mode: `F.dropout` drops whenever its `training` argument says so (default True), and
# `F.batch_norm(x, running_mean, running_var, weight, bias, training=False)` normalises with
# the statistics it is given, whatever mode the module that calls it is in.

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
norm = nn.BatchNorm1d(3)
norm(torch.randn(64, 3) * 2 + 5)  # a training batch: the running statistics move
rows = torch.randn(4, 3) * 2 + 5
by_function = F.batch_norm(rows, norm.running_mean, norm.running_var, norm.weight, norm.bias,
                           training=False)
print("F.batch_norm(..., training=False) equals the layer in eval():",
      torch.allclose(by_function, norm.eval()(rows)))

# %% [markdown]
# ### The inspector again: modes and frozen parameters
#
# **Try this**
# 1. Predict whether two passes of one input through "MLP with dropout and batch norm"
#    agree in `train` mode, and in `eval` mode; then pick it and switch between the two.
#    Explain which two layers make the difference.
# 2. Predict the mode written on each row of "fine-tuned, batch norm in eval" with mode
#    `as set`, and whether its two passes differ; then pick it. Click `train`, then
#    `as set` again. Explain why `model.train(was_training)` would not have put this model
#    back.
# 3. Predict how far the trainable count of "fine-tuning net" falls when its layer `2` is
#    frozen, then set "freeze" to `2`. Notice the grey rows; then toggle `train` and `eval`
#    and watch the count. Explain the drop with d_out·(d_in + 1), and what the toggle says
#    about the `eval()` quiz.
# 4. "digits conv net" is the convolutional net 04 trains on the 8×8 digits. Predict the
#    parameter counts of its layers `1`, `Conv2d(1, 16, 3, padding=1)`, and `5`,
#    `Conv2d(16, 32, 3, padding=1)`, and whether its two passes differ in `train` mode (it
#    has a batch norm and no dropout); then pick it. Explain why its Linear, `9`, takes
#    32·2·2 = 128 inputs: follow an 8×8 image through the two poolings (`nn.MaxPool2d(2)`
#    keeps the largest of each 2×2 block, halving the height and the width).

# %%
import helpers.loss_curves
import helpers.modules
import torch
from torch import nn

torch.manual_seed(11)
regularised = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
                            nn.Linear(16, 4))
regularised(torch.randn(64, 8))  # one training batch: batch norm has running statistics
fine_tuned = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
                           nn.Linear(16, 4))
fine_tuned[1].eval()
helpers.modules.explore({"MLP with dropout and batch norm": regularised,
                         "fine-tuned, batch norm in eval": fine_tuned,
                         "fine-tuning net": tuned, "digits conv net": helpers.loss_curves.conv_net()})

# %% [markdown]
# ### Exercise 7: fine-tune the last entry, and nothing else (3 points)
#
# `freeze_all_but_last(model)` receives an `nn.Sequential` that has been training until
# now: it is in training mode, and the last backward pass left gradients in its
# parameters' `.grad`. Prepare it for fine-tuning its last entry, `model[-1]` (a layer or a
# block of layers), by this loop, which like most training loops calls `model.train()` at
# the start of every epoch:
#
# ```python
# for epoch in range(2):
#     model.train()
#     for x, y in batches:
#         F.mse_loss(model(x), y).backward()
#         sgd_step(model, lr)  # section 5
#         model.zero_grad()
# ```
#
# The loop must change no entry of `model.state_dict()` outside `model[-1]`, and the keys
# stay as they are (a checkpoint of the fine-tuned model loads into the original
# architecture). Batch norm's running statistics are entries too: they are buffers, and in
# training mode every forward pass updates them, whatever `requires_grad` says. So every
# batch norm before the last entry normalises with its stored statistics, as in `eval()`,
# although the loop calls `model.train()`; dropout keeps working as in training; `model[-1]`
# trains. Return the number of trainable parameter *elements*, as an `int`.

# %% solution 03_modules-freeze
def freeze_all_but_last(model):
    ### BEGIN SOLUTION
    class FrozenNorm(nn.Module):
        """Batch norm that only reads its statistics: no mode, the same state_dict keys."""

        def __init__(self, norm):
            super().__init__()
            for name, tensor in norm.state_dict().items():
                self.register_buffer(name, tensor.detach().clone())
            self.eps = norm.eps

        def forward(self, x):
            return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                                training=False, eps=self.eps)

    def frozen(module):
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
            return FrozenNorm(module)
        for name, child in module.named_children():
            module.register_module(name, frozen(child))  # replaces the child of that name
        return module

    for i in range(len(model) - 1):
        model[i] = frozen(model[i])  # model.train() cannot switch a batch norm that is gone
        for p in model[i].parameters():
            p.requires_grad_(False)
            p.grad = None  # a frozen parameter keeps its last gradient, and sgd_step would apply it
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
    ### END SOLUTION

# %% test 03_modules-freeze-test points=3
_answered = (freeze_all_but_last,)
torch.manual_seed(12)
_seq = nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Dropout(0.2), nn.Linear(5, 3))
F.mse_loss(_seq(torch.randn(16, 6)), torch.randn(16, 3)).backward()  # as training left it
_params = {k for k, _ in _seq.named_parameters()}
with checks.explain_errors({}, "freeze_all_but_last(model)"):
    freeze_all_but_last(_seq)
_trainable = {k for k, p in _seq.named_parameters() if p.requires_grad}
_bn_eval = isinstance(_seq[1], nn.BatchNorm1d) and not _seq[1].training
checks.expect_true(_trainable != _params, "[mc:freeze.module-attribute] Every parameter still "
                   "requires grad: freezing is a flag on each parameter (requires_grad_(False)); "
                   "module.requires_grad = False only adds an attribute, and eval() and "
                   "torch.no_grad() leave the flags as they are.")
checks.expect_true({"4.weight", "4.bias"} <= _trainable, "[mc:freeze.last-frozen] The last "
                   "entry, model[-1], no longer trains: it is the part that is fine-tuned.")
checks.expect_true(_trainable <= {"4.weight", "4.bias"}, f"[mc:freeze.partial] "
                   f"{', '.join(sorted(_trainable - {'4.weight', '4.bias'}))} still train: every "
                   "parameter before the last entry is frozen, whatever layer holds them.")
_before = {k: v.clone() for k, v in _seq.state_dict().items()}
for _epoch in range(2):  # the task's loop
    _seq.train()
    for _ in range(2):
        F.mse_loss(_seq(torch.randn(16, 6)), torch.randn(16, 3)).backward()
        sgd_step(_seq, 0.1)
        _seq.zero_grad()
_after = _seq.state_dict()
checks.expect_true(_after.keys() == _before.keys(), "[mc:freeze.keys-changed] The state_dict's keys "
                   "changed: a checkpoint of the fine-tuned model must load into the original "
                   "architecture.")
_changed = [k for k in _before if not k.startswith("4.") and not torch.equal(_before[k], _after[k])]
checks.expect_true(not set(_changed) & _params, f"[mc:freeze.stale-grad] The loop changed the "
                   f"frozen {', '.join(sorted(set(_changed) & _params))}: a frozen parameter still "
                   "holds the .grad of the last backward pass, and sgd_step applies every .grad it "
                   "finds. Clear them (p.grad = None).")
checks.expect_true(not (_changed and _bn_eval), "[mc:freeze.train-undoes-eval] The batch norm "
                   "was in eval() when freeze_all_but_last returned, and the loop's model.train() "
                   f"switched it back: the loop changed {', '.join(_changed)}. A mode lasts until "
                   "the next train().")
checks.expect_true(not _changed, f"[mc:freeze.buffers-move] The loop changed {', '.join(_changed)}: "
                   "batch norm's running statistics are buffers, and the loop's model.train() puts "
                   "every batch norm in training mode, where each forward pass updates them.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("freeze_all_but_last")


def _sgd(model):
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p -= 0.1 * p.grad


def _probe_freeze(name, model, d_in, d_out):
    """freeze_all_but_last on a model as training left it, then the task's loop: what it
    returned, what trains, the modes, two passes in train(), the state before and after."""
    torch.manual_seed(20)
    model.train()
    F.mse_loss(model(torch.randn(16, d_in)), torch.randn(16, d_out)).backward()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    probe.value(f"{name}: parameters before the call", [k for k, _ in model.named_parameters()])
    probe.call(f"freeze_all_but_last({name})", freeze_all_but_last, model)
    probe.value(f"{name}: trainable parameters", [k for k, p in model.named_parameters() if p.requires_grad])
    probe.value(f"{name}: batch norms in eval() after the call",
                [not m.training for m in model.modules() if isinstance(m, nn.BatchNorm1d)])
    model.train()
    x = torch.randn(8, d_in, generator=torch.Generator().manual_seed(2))
    passes = []
    for seed in (3, 4):
        torch.manual_seed(seed)
        passes.append(model(x).detach())
    probe.value(f"{name}: two passes in train()", passes)
    for epoch in range(2):
        model.train()
        for b in range(2):
            torch.manual_seed(30 + 2 * epoch + b)
            loss = F.mse_loss(model(torch.randn(16, d_in)), torch.randn(16, d_out))
            if loss.requires_grad:  # (nothing left to train: nothing to back-propagate)
                loss.backward()
            _sgd(model)
            model.zero_grad()
    probe.value(f"{name}: state_dict before and after the loop", (before, dict(model.state_dict())))


torch.manual_seed(12)
_probe_freeze("a Sequential with batch norm and dropout", nn.Sequential(
    nn.Linear(6, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Dropout(0.2), nn.Linear(5, 4), nn.ReLU(),
    nn.Linear(4, 3)), 6, 3)
_probe_freeze("a batch norm nested in a block", nn.Sequential(
    nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU()), nn.Dropout(0.1), nn.Linear(4, 2)), 3, 2)
_probe_freeze("a model ending in a block", nn.Sequential(
    nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))), 3, 2)
### JUDGE
from helpers.grading.probe import got, ref
for _name, _last in (("a Sequential with batch norm and dropout", "6."),
                     ("a batch norm nested in a block", "2."), ("a model ending in a block", "3.")):
    _n = got[f"freeze_all_but_last({_name})"]
    _trainable = set(got[f"{_name}: trainable parameters"])
    _params = set(ref[f"{_name}: parameters before the call"])
    _last_params = set(ref[f"{_name}: trainable parameters"])  # model[-1]'s
    checks.expect_true(_trainable != _params, "[mc:freeze.module-attribute] Every parameter still "
                       "requires grad. Freezing is a flag on each parameter: call "
                       "requires_grad_(False) on the module or set p.requires_grad = False on each "
                       "parameter. module.requires_grad = False only adds an attribute, and eval() "
                       "and torch.no_grad() leave the flags as they are.")
    _lost = sorted(_last_params - _trainable)
    if _last == "3." and _lost and _lost != sorted(_last_params):
        checks.reject(True, {True: f"[mc:freeze.last-leaf] In {_name}, {', '.join(_lost)} no "
                                   "longer train: the last entry, model[-1], is a block of layers "
                                   "here, and all of it is fine-tuned, not only the last layer "
                                   "that model.modules() lists."}, "what trains")
    checks.expect_true(not _lost, f"[mc:freeze.last-frozen] In {_name}, {', '.join(_lost)} no longer "
                       "train: the last entry, model[-1], is the part that is fine-tuned.")
    _early = sorted(_trainable - _last_params)
    checks.expect_true(not _early, f"[mc:freeze.partial] In {_name}, {', '.join(_early)} still train: "
                       "every parameter before the last entry is frozen, batch norm's weight and "
                       "bias too, whatever layer holds them.")
    _before, _after = got[f"{_name}: state_dict before and after the loop"]
    checks.expect_true(_after.keys() == _before.keys(), f"[mc:freeze.keys-changed] In {_name}, the "
                       f"state_dict's keys changed ({', '.join(sorted(set(_after) ^ set(_before)))}): "
                       "a checkpoint of the fine-tuned model must load into the original "
                       "architecture. Keep every registered name.")
    _changed = [k for k in _before if not k.startswith(_last) and not torch.equal(_before[k], _after[k])]
    _moved = [k for k in _changed if k in _params]
    checks.expect_true(not _moved, f"[mc:freeze.stale-grad] In {_name}, the fine-tuning loop changed "
                       f"the frozen {', '.join(_moved)}. requires_grad=False stops new gradients, but "
                       "a frozen parameter still holds the .grad of the last backward pass, and "
                       "sgd_step applies every .grad it finds: clear them (p.grad = None).")
    if _changed and all(got[f"{_name}: batch norms in eval() after the call"]):
        checks.reject(True, {True: f"[mc:freeze.train-undoes-eval] In {_name}, the batch norms "
                                   "were in eval() when freeze_all_but_last returned, and the loop's "
                                   f"model.train() switched them back: the loop changed "
                                   f"{', '.join(_changed)}. A mode lasts until the next train(); "
                                   "make the batch norms before the last entry normalise with "
                                   "their stored statistics whatever the mode (section 7: "
                                   "F.batch_norm(..., training=False))."}, "the loop's changes")
    checks.expect_true(not _changed, f"[mc:freeze.buffers-move] In {_name}, the fine-tuning loop "
                       f"changed {', '.join(_changed)}: batch norm's running statistics are "
                       "buffers, which requires_grad does not reach, and in training mode every "
                       "forward pass updates them.")
    checks.expect_true(any(not torch.equal(_before[k], _after[k]) for k in _before if k.startswith(_last)),
                       f"[mc:freeze.last-frozen] In {_name}, the loop did not change the last entry: "
                       "it must still train.")
    _passes = got[f"{_name}: two passes in train()"]
    if _last != "3.":  # the models with dropout
        checks.expect_true(not torch.equal(_passes[0], _passes[1]), f"[mc:freeze.mode-changed] In "
                           f"{_name}, dropout no longer drops in train(): fine-tuning still uses "
                           "dropout. Only batch norm's statistics must stop moving.")
    checks.expect_close(_passes[0], ref[f"{_name}: two passes in train()"][0], f"{_name}: the output "
                        "in train()", rtol=1e-4, atol=1e-5, hint="[mc:freeze.buffers-move] After "
                        "model.train(), every batch norm before the last entry still normalises "
                        "with its stored statistics, as in eval().")
    with checks.because("[mc:freeze.count] Return the number of elements of the trainable "
                        "parameters (sum of p.numel()), as an int."):
        checks.expect_type(_n, int, f"freeze_all_but_last({_name})")
        checks.expect_equal(_n, ref[f"freeze_all_but_last({_name})"], f"freeze_all_but_last({_name})")
### END HIDDEN TESTS

# %% [markdown]
# ## 8. A custom layer with its own Parameters
#
# A layer of your own declares its tensors as `nn.Parameter` in `__init__` and uses them in
# `forward`, often through `F`'s functions. A **gated linear unit** computes two linear maps
# of the same input and lets one of them, squashed by a sigmoid into (0, 1), scale the other
# element by element: out = (x W_vᵀ + b_v) ⊙ σ(x W_gᵀ + b_g). Stacking W_v above W_g makes
# one (2·d_out, d_in) weight, so one matrix product computes both maps:

# %%
class GatedLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2 * d_out, d_in) / d_in ** 0.5)  # W_v, then W_g
        self.bias = nn.Parameter(torch.zeros(2 * d_out))

    def forward(self, x):
        value, gate = F.linear(x, self.weight, self.bias).chunk(2, dim=-1)
        return value * torch.sigmoid(gate)


glu, x_glu = GatedLinear(5, 3), torch.randn(4, 5)
print([(name, tuple(p.shape)) for name, p in glu.named_parameters()], "| output", tuple(glu(x_glu).shape),
      "| equals F.glu:", torch.allclose(glu(x_glu), F.glu(F.linear(x_glu, glu.weight, glu.bias), dim=-1)))

# %% [markdown]
# ### Exercise 8: the mean of a sentence's embeddings (3 points)
#
# A simple text classifier represents a sentence by the mean of its tokens' embeddings. The
# sentences of a batch have different lengths, so the shorter ones are padded to the
# longest with a token id `pad` that stands for nothing (05 builds such batches).
#
# Write `MeanEmbedding(num_embeddings, dim, pad)`: a layer whose one parameter, `weight`,
# is a table of shape (num_embeddings, dim) drawn from N(0, 1), like `nn.Embedding`'s.
# `forward(tokens)` takes a LongTensor (N, L) and returns (N, dim): row i is the mean of the
# embeddings of the tokens of sentence i that are not `pad`, and zeros for a sentence that
# is only padding. Row `pad` stands for nothing, so its gradient is zero whatever the loss:
# training never changes it. Work from the table's rows yourself: `F.embedding_bag` does all
# of this in one call, and the tests compare your layer with it.

# %% solution 03_modules-mean-embedding
class MeanEmbedding(nn.Module):
    def __init__(self, num_embeddings, dim, pad):
        ### BEGIN SOLUTION
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, dim))
        self.pad = pad
        ### END SOLUTION

    def forward(self, tokens):
        ### BEGIN SOLUTION
        keep = (tokens != self.pad).unsqueeze(-1).to(self.weight.dtype)  # (N, L, 1)
        total = (self.weight[tokens] * keep).sum(dim=1)  # padding adds 0, and gets 0 back
        return total / keep.sum(dim=1).clamp(min=1)      # an all-padding row: 0 / 1
        ### END SOLUTION

# %% test 03_modules-mean-embedding-test points=3
_answered = (MeanEmbedding,)
torch.manual_seed(13)
with checks.explain_errors({}, "MeanEmbedding(12, 3, pad=0)"):
    _bag = MeanEmbedding(12, 3, 0)
_names = [n for n, _ in _bag.named_parameters()]
checks.expect_true(bool(_names), "[mc:modules.plain-tensor] named_parameters() lists nothing: a "
                   "tensor with requires_grad=True assigned to an attribute is not registered. Wrap "
                   "the table in nn.Parameter(...).")
checks.expect_true(_names == ["weight"], f"[mc:embedding.table-name] named_parameters() lists "
                   f"{_names}: the layer's one parameter is its own table, an nn.Parameter in the "
                   "attribute weight.")
checks.expect_true(tuple(_bag.weight.shape) == (12, 3), f"[mc:embedding.table-shape] weight has "
                   f"shape {tuple(_bag.weight.shape)}: one row of dim numbers per token id, "
                   "(num_embeddings, dim) = (12, 3).")
_tokens = torch.tensor([[4, 2, 2, 0, 0], [0, 0, 0, 0, 0]])
with checks.explain_errors({}, "MeanEmbedding(12, 3, pad=0)(tokens)"):
    _out = _bag(_tokens)
checks.expect_shape(_out, (2, 3), "MeanEmbedding(12, 3, pad=0)(tokens)")
checks.expect_true(not _out.isnan().any(), "[mc:embedding.empty-nan] The sentence made only of "
                   "padding gives nan: its mean is over no tokens, 0 / 0. Return zeros for it, as the "
                   "task says.")
checks.reject_close(_out[0], {_bag.weight[_tokens[0]].detach().mean(0): "[mc:embedding.pad-counted] "
                    "The padding tokens were counted in the mean: sentence 0 has 3 real tokens, "
                    "not 5."}, "the first sentence's mean")
### BEGIN HIDDEN TESTS
from torch.overrides import TorchFunctionMode

from helpers.grading import probe
probe.needs("MeanEmbedding")


class _Calls(TorchFunctionMode):
    """Records the torch functions a forward pass calls."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


_cases = {0: torch.tensor([[4, 2, 2, 0, 0], [0, 0, 0, 0, 0], [7, 11, 5, 3, 1], [0, 9, 0, 9, 0]]),
          11: torch.tensor([[0, 0, 11, 11], [5, 0, 3, 11], [11, 11, 11, 11]])}
for _pad, _tokens in _cases.items():
    _key = f"MeanEmbedding(12, 3, pad={_pad})"
    torch.manual_seed(_pad)
    _layer = probe.observe(_key, lambda: MeanEmbedding(12, 3, _pad))
    probe.value(f"{_key}: parameters", [(n, tuple(p.shape), type(p).__name__)
                                        for n, p in _layer.named_parameters()])
    probe.value(f"{_key}: weight", getattr(_layer, "weight", torch.empty(0)).detach().clone())
    with _Calls() as _seen:
        _out = probe.call(f"{_key}(tokens)", _layer, _tokens)
    probe.value(f"{_key}: torch functions forward called", sorted(set(_seen.names)))
    _upstream = torch.randn(len(_tokens), 3, generator=torch.Generator().manual_seed(_pad))
    (_out * _upstream).sum().backward()
    probe.value(f"{_key}: weight.grad", _layer.weight.grad)
torch.manual_seed(1)
probe.observe("MeanEmbedding(5000, 8, pad=3).weight", lambda: MeanEmbedding(5000, 8, 3).weight.detach())
### JUDGE
from helpers.grading.probe import got
_cases = {0: torch.tensor([[4, 2, 2, 0, 0], [0, 0, 0, 0, 0], [7, 11, 5, 3, 1], [0, 9, 0, 9, 0]]),
          11: torch.tensor([[0, 0, 11, 11], [5, 0, 3, 11], [11, 11, 11, 11]])}
for _pad, _tokens in _cases.items():
    _key = f"MeanEmbedding(12, 3, pad={_pad})"
    got.value(_key, "[mc:modules.no-super-init] Call super().__init__() first.")
    _params = got[f"{_key}: parameters"]
    checks.expect_true(bool(_params), "[mc:modules.plain-tensor] named_parameters() lists nothing: "
                       "a tensor with requires_grad=True assigned to an attribute is not registered. "
                       "Wrap the table in nn.Parameter(...).")
    checks.expect_true([n for n, _, _ in _params] == ["weight"], f"[mc:embedding.table-name] "
                       f"named_parameters() lists {[n for n, _, _ in _params]}: the layer's one "
                       "parameter is its own table, an nn.Parameter in the attribute weight.")
    checks.expect_true(_params[0][1] == (12, 3), f"[mc:embedding.table-shape] weight has shape "
                       f"{_params[0][1]}: one row of dim numbers per token id, (num_embeddings, dim) "
                       "= (12, 3).")
    _calls = got[f"{_key}: torch functions forward called"]
    checks.expect_true("embedding_bag" not in _calls, "[mc:embedding.bag-called] forward calls "
                       "F.embedding_bag (or nn.EmbeddingBag), which does the exercise in one call: "
                       "gather the table's rows and take the mean yourself.")
    _w = got[f"{_key}: weight"].detach().requires_grad_()
    _want = F.embedding_bag(_tokens, _w, mode="mean", padding_idx=_pad)
    _upstream = torch.randn(len(_tokens), 3, generator=torch.Generator().manual_seed(_pad))
    (_want * _upstream).sum().backward()
    _out = got.value(f"{_key}(tokens)", "[mc:embedding.forward] forward(tokens) takes a (N, L) "
                     "LongTensor and returns (N, dim).")
    checks.expect_shape(_out, (len(_tokens), 3), f"{_key}(tokens)")
    checks.expect_true(not _out.isnan().any(), "[mc:embedding.empty-nan] A sentence made only of "
                       "padding gives nan: its mean is over no tokens, 0 / 0. Return zeros for it, "
                       "as the task says.")
    _rows = _w.detach()[_tokens]
    _real = (_tokens != _pad).unsqueeze(-1).float()
    _wrong = {_rows.mean(1): "[mc:embedding.pad-counted] The padding tokens were counted in the "
                             "mean: divide by the number of tokens that are not pad.",
              (_rows * _real).sum(1): "[mc:embedding.sum-not-mean] That is the sum of the "
                                      "embeddings; the task asks for their mean."}
    if _pad != 0:
        _wrong[F.embedding_bag(_tokens, _w.detach(), mode="mean", padding_idx=0)] = (
            f"[mc:embedding.zero-is-padding] Token 0 was treated as padding, but here pad is {_pad}: "
            "0 is an ordinary token id.")
    checks.reject_close(_out, _wrong, f"{_key}(tokens)")
    checks.expect_close(_out, _want, f"{_key}(tokens)", rtol=1e-5, atol=1e-6,
                        hint="[mc:embedding.pad-counted] Row i is the mean of the embeddings of "
                             "sentence i's tokens that are not pad, zeros when there are none.")
    _grad = got[f"{_key}: weight.grad"]
    checks.expect_true(isinstance(_grad, torch.Tensor) and not _grad[_pad].any(),
                       f"[mc:embedding.pad-trained] Row {_pad}, the padding row, gets a gradient, "
                       "so training would change it: a row the forward pass reads sends its gradient "
                       "back, even when its values are zero. Leave padding out of the sum (multiply "
                       "by a mask), and its row gets none.")
    checks.expect_close(_grad, _w.grad, f"{_key}: weight.grad", rtol=1e-5, atol=1e-6,
                        hint="[mc:embedding.pad-trained] Only the rows read by real tokens get a "
                             "gradient.")
_table = got["MeanEmbedding(5000, 8, pad=3).weight"]
_others = torch.cat([_table[:3], _table[4:]])
checks.expect_true(abs(_others.mean().item()) < 0.05 and 0.95 < _others.std().item() < 1.05,
                   f"[mc:embedding.init] The table's entries have mean {_others.mean().item():.3f} "
                   f"and standard deviation {_others.std().item():.3f}: draw them from N(0, 1), as "
                   "nn.Embedding does (torch.randn).")
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
# ### Exercise 9: the gradient that reaches each layer (2 points)
#
# Write `output_grad_rms(model, x)`: run `model(x)` once, let L be the sum of that output,
# and return a dict that maps the name of each direct child (`model.named_children()`) to
# the root mean square of ∂L/∂(that child's output *in this pass*), √(mean of its squared
# entries), as a Python float (not a tensor). Use forward hooks, and remove every hook before
# returning. The model may be in the middle of training: leave every parameter's `.grad`
# as it was. (A model's `forward` may use its children in any order and combine their
# outputs, so running the children one after another is not the same thing.)

# %% solution 03_modules-hook-means
def output_grad_rms(model, x):
    ### BEGIN SOLUTION
    outputs = {}
    handles = []
    for name, child in model.named_children():
        def record(module, inputs, output, name=name):
            outputs[name] = output
        handles.append(child.register_forward_hook(record))
    try:
        loss = model(x).sum()
    finally:
        for handle in handles:
            handle.remove()
    names = list(outputs)
    # autograd.grad returns the gradients instead of adding them to the parameters' .grad
    grads = torch.autograd.grad(loss, [outputs[name] for name in names])
    return {name: g.pow(2).mean().sqrt().item() for name, g in zip(names, grads)}
    ### END SOLUTION

# %% test 03_modules-hook-means-test points=2
_answered = (output_grad_rms,)
torch.manual_seed(14)
_seq = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2))
_no_graph = ("[mc:hooks.no-graph] The pass recorded no graph: a gradient needs one, so do not run "
             "the model under torch.no_grad().")
_hooks_errors = {"element 0 of tensors": _no_graph, "retain_grad": _no_graph,
                 "differentiated Tensors": "[mc:hooks.detached] A tensor the hooks kept is not on "
                 "the path from the children's outputs to L (a detached copy?): keep the output itself."}
with checks.explain_errors(_hooks_errors, "output_grad_rms(model, x)"):
    _rms = output_grad_rms(_seq, torch.randn(8, 6))
checks.expect_type(_rms, dict, "output_grad_rms(model, x)")
checks.expect_true(set(_rms) != {"2"}, "[mc:hooks.late-binding] Only the last child's name is in the "
                   "dict: a hook defined in a loop reads the loop variable when it runs, after the loop "
                   "ended. Bind the name when the hook is made (def hook(..., name=name)).")
checks.expect_true(sum(len(m._forward_hooks) for m in _seq.modules()) == 0, "[mc:hooks.handle-left] "
                   "Forward hooks are still registered: keep the handles register_forward_hook "
                   "returns and call handle.remove() on each.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("output_grad_rms")


class _Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(6, 6)
        self.act = nn.Tanh()
        self.outer = nn.Linear(6, 2)

    def forward(self, x):
        return self.outer(self.act(self.inner(x)) * x)


def _report(model, x):
    """output_grad_rms(model, x), the hooks it left and the .grad it left."""
    before = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
    rms = output_grad_rms(model, x)
    after = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
    return {"rms": rms, "hooks left": sum(len(m._forward_hooks) for m in model.modules()),
            ".grad unchanged": all((before[n] is None and after[n] is None) or (
                before[n] is not None and after[n] is not None and torch.equal(before[n], after[n]))
                for n in before)}


torch.manual_seed(14)
_gated = _Gated()
_x = torch.randn(8, 6) + 1
_gated(torch.randn(3, 6)).sum().backward()  # the gradients a training step left behind
probe.call("output_grad_rms(model, x)", _report, _gated, _x)
probe.call("output_grad_rms(a Sequential that has no .grad yet, x)", _report,
           nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), torch.randn(5, 3))
### JUDGE
from helpers.grading.probe import Raised, got


class _Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(6, 6)
        self.act = nn.Tanh()
        self.outer = nn.Linear(6, 2)

    def forward(self, x):
        return self.outer(self.act(self.inner(x)) * x)


_no_graph = ("[mc:hooks.no-graph] The pass recorded no graph: a gradient needs one, so do not run "
             "the model under torch.no_grad().")
_hooks_errors = {"element 0 of tensors": _no_graph, "retain_grad": _no_graph,
                 "differentiated Tensors": "[mc:hooks.detached] A tensor the hooks kept is not on "
                 "the path from the children's outputs to L (a detached copy?): keep the output itself."}
for _key in ("output_grad_rms(model, x)", "output_grad_rms(a Sequential that has no .grad yet, x)"):
    _out = got.outcome(_key)
    if isinstance(_out, Raised):
        checks.reject(True, {True: f"{_key} raised {_out}. " + next(
            (h for f, h in _hooks_errors.items() if f.lower() in _out.message.lower()), "")}, _key)
    checks.expect_true(_out["hooks left"] == 0, f"[mc:hooks.handle-left] {_out['hooks left']} forward "
                       "hook(s) are still registered: keep the handles register_forward_hook returns "
                       "and call handle.remove() on each.")
    checks.expect_true(_out[".grad unchanged"], "[mc:hooks.param-grads-left] The parameters' .grad "
                       "changed: backward() adds into every parameter's .grad, and the training step "
                       "that follows would use the sum. Ask autograd for the gradients you need "
                       "instead (02), or put the .grad back as it was.")
_rms = got["output_grad_rms(model, x)"]["rms"]
checks.expect_type(_rms, dict, "output_grad_rms(model, x)")
checks.expect_true(set(_rms) != {"outer"}, "[mc:hooks.late-binding] Only the last child's name is in "
                   "the dict: a hook defined in a loop reads the loop variable when it runs, after the "
                   "loop ended. Bind the name when the hook is made (def hook(..., name=name)).")
checks.expect_true(set(_rms) == {"inner", "act", "outer"}, f"[mc:hooks.names] The keys are "
                   f"{sorted(_rms)}: use the names from model.named_children() (here inner, act, outer).")
_kinds = sorted({type(v).__name__ for v in _rms.values()})
checks.expect_true(_kinds == ["float"], f"[mc:hooks.tensor-not-float] The values are of type "
                   f"{', '.join(_kinds)}: a 0-d tensor is not a Python float (and keeps its graph "
                   "alive); use .item().")
torch.manual_seed(14)
_gated = _Gated()
_x = torch.randn(8, 6) + 1
with torch.no_grad():
    _h = _gated.act(_gated.inner(_x))
    _g_act = (torch.ones(8, 2) @ _gated.outer.weight) * _x
    _replayed = (torch.ones(8, 2) @ _gated.outer.weight).pow(2).mean().sqrt().item()
    _true = {"outer": 1.0, "act": _g_act.pow(2).mean().sqrt().item(),
             "inner": (_g_act * (1 - _h ** 2)).pow(2).mean().sqrt().item()}
checks.reject_close(_rms["outer"], {4.0: "[mc:hooks.norm-not-rms] That is the norm √(sum of squares); "
                    "the root mean square divides by the number of entries before the square root."},
                    "the value for 'outer'")
checks.reject_close(_rms["act"], {_replayed: "[mc:hooks.replay-children] That is what act gets when "
                    "the children run one after another; forward multiplies by x first. Hooks see "
                    "what forward really computes."}, "the value for 'act'")
for _k, _v in _true.items():
    checks.expect_close(_rms[_k], _v, f"the value for {_k!r}", rtol=1e-4,
                        hint="[mc:hooks.wrong-tensor] For each child, the gradient of L with respect "
                             "to that child's output in this pass (a forward hook's third argument), "
                             "as √(mean of squares).")
checks.expect_close(got["output_grad_rms(a Sequential that has no .grad yet, x)"]["rms"].get("2"), 1.0,
                    "the value for the last layer of a Sequential", hint="[mc:hooks.wrong-tensor] L is "
                    "the sum of the output, so ∂L/∂(last output) is all ones.")
### END HIDDEN TESTS

# %% [markdown]
# ## 10. Initialisation: the numbers a module starts from
#
# Every layer starts from random numbers, and their size decides whether a signal survives
# a deep network. Here is what `nn.Linear` does when it is built (its own source), and the
# spread of the weights it draws:

# %%
print(inspect.getsource(nn.Linear.reset_parameters))
for fan_in in (16, 256, 4096):
    fresh = nn.Linear(fan_in, 64)
    print(f"fan_in {fan_in:5d}: weight std × √fan_in = {fresh.weight.std().item() * fan_in ** 0.5:.3f}, "
          f"largest |weight| × √fan_in = {fresh.weight.abs().max().item() * fan_in ** 0.5:.3f}, "
          f"output std for inputs of std 1: {fresh(torch.randn(512, fan_in)).std().item():.3f}")
print(f"1/√3 = {3 ** -0.5:.3f}")

# %% [markdown]
# `kaiming_uniform_` with `a=√5`, as the comment says, works out to weights drawn uniformly
# in ±1/√fan_in, so their standard deviation is 1/√(3·fan_in) ≈ 0.577/√fan_in (printed
# above), and biases uniform in the same range. Scaling the bound with 1/√fan_in is the
# point: an output sums fan_in products, so its spread stays the same whatever the layer's
# width (the last column). The constant 1/√3 is not matched to any activation function.
#
# ### The activation explorer
#
# The explorer sends 256 random inputs through a deep MLP of width 64 (Linear, then an
# activation, repeated), reads each activation's output with forward hooks, and sends one
# fixed random gradient back from the last layer (a stand-in for a loss's). Per layer it
# shows the root mean square of ∂L/∂a at the activation's output (grey) and of ∂L/∂W for
# the Linear before it (purple: what an optimizer uses), on a log axis. Initialisation:
# weights normal with std scale/√fan_in and biases 0, or `nn.Linear`'s default × scale.
#
# **Quick quiz (predict).** ReLU, weights normal with std 1/√fan_in (scale 1.0), biases 0,
# depth 6: compared with layer 1, is the standard deviation of layer 6's *outputs*
# `"smaller"`, `"about the same"` or `"larger"`? Put the string in `answer_relu_depth`.

# %% solution 03_modules-quiz-relu-depth
### BEGIN SOLUTION
answer_relu_depth = "smaller"
### END SOLUTION

# %% test 03_modules-quiz-relu-depth-test points=1
checks.answer("03_modules-quiz-relu-depth", answer_relu_depth, "answer_relu_depth", kind=str,
              choices=("smaller", "about the same", "larger"))
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_relu_depth")
### JUDGE
import helpers.activations
from helpers.grading.probe import got
_answer = got["answer_relu_depth"]
checks.answer("03_modules-quiz-relu-depth", _answer, "answer_relu_depth", kind=str,
              choices=("smaller", "about the same", "larger"))
_run = helpers.activations.run(depth=6, activation="ReLU", init_scale=1.0)
_ratio = _run.layers[-1].std / _run.layers[0].std
with checks.because("[mc:init.relu-preserves] Compare the std of layer 1 and layer 6 in the "
                    "explorer."):
    checks.expect_equal(_answer.strip(), "smaller" if _ratio < 0.8 else "larger" if _ratio > 1.25
                        else "about the same", "answer_relu_depth")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-relu-depth
{
    "about the same": "[mc:init.relu-preserves] ReLU sets the negative half of each "
                      "pre-activation to zero, so each layer passes on about half the "
                      "mean square; with std 1/√fan_in the weights do not make up for it.",
    "larger": "[mc:init.relu-grows] With std 1/√fan_in a Linear layer keeps the mean square "
              "of its input, and ReLU removes about half of it: nothing makes it grow.",
}

# %% [markdown]
# **Quick quiz (predict).** Same network, on the way back: is the gradient that reaches
# layer 1's outputs (RMS of ∂L/∂a) `"smaller"`, `"about the same"` or `"larger"` than the
# one that reaches layer 6's? Put the string in `answer_grad_depth`.

# %% solution 03_modules-quiz-grad-depth
### BEGIN SOLUTION
answer_grad_depth = "smaller"
### END SOLUTION

# %% test 03_modules-quiz-grad-depth-test points=1
checks.answer("03_modules-quiz-grad-depth", answer_grad_depth, "answer_grad_depth", kind=str,
              choices=("smaller", "about the same", "larger"))
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("answer_grad_depth")
### JUDGE
import helpers.activations
from helpers.grading.probe import got
_answer = got["answer_grad_depth"]
checks.answer("03_modules-quiz-grad-depth", _answer, "answer_grad_depth", kind=str,
              choices=("smaller", "about the same", "larger"))
_run = helpers.activations.run(depth=6, activation="ReLU", init_scale=1.0)
_ratio = _run.layers[0].grad_rms / _run.layers[-1].grad_rms
with checks.because("[mc:init.grad-preserved] Compare the grey bars of layer 1 and layer 6."):
    checks.expect_equal(_answer.strip(), "smaller" if _ratio < 0.8 else "larger" if _ratio > 1.25
                        else "about the same", "answer_grad_depth")
### END HIDDEN TESTS

# %% wrong 03_modules-quiz-grad-depth
{
    "about the same": "[mc:init.grad-preserved] On the way back each ReLU passes the gradient "
                      "only where its unit was active, and each Linear multiplies by Wᵀ of std "
                      "1/√fan_in: the gradient loses about half its mean square per layer too.",
    "larger": "[mc:init.grad-grows] Backward goes through the same weights (transposed) and the "
              "same ReLU masks as forward: with std 1/√fan_in nothing amplifies it.",
}

# %% [markdown]
# Check both predictions, then explore:
#
# **Try this**
# 1. With the settings it opens with (ReLU, normal, scale 1.0, depth 6), read the std column
#    and the grey bars for the two quizzes. Then notice the purple bars: nearly level from
#    layer to layer. Explain with ∂L/∂W = (∂L/∂y)ᵀ · (the layer's input): one factor shrinks
#    on the way up, the other on the way down.
# 2. Predict what doubling the weights' variance (scale √2 ≈ 1.41) does to the std column
#    and the grey bars, then set it. Notice both level off, at any depth up to 12. Explain
#    why that factor suits a ReLU.
# 3. Predict first, then pick `nn.Linear default × scale` at scale 1: does the std fall
#    faster or slower than with normal weights at scale 1? Notice the dead units. Explain
#    both with the weights' std in the title (0.577/√fan_in) and the biases.

# %%
import helpers.activations

helpers.activations.explore()

# %% [markdown]
# The same measurements as numbers, at depth 6, for the normal weights at scales 1 and √2
# and for `nn.Linear`'s default:

# %%
for init, scale in (("normal", 1.0), ("normal", 2 ** 0.5), ("default", 1.0)):
    result = helpers.activations.run(depth=6, activation="ReLU", init_scale=scale, init=init)
    stds = [s.std for s in result.layers]
    grads = [s.grad_rms for s in result.layers]
    print(f"{init} × {scale:.3g}: output std  ", " ".join(f"{v:7.3g}" for v in stds))
    print(f"{'':15s}∂L/∂a RMS   ", " ".join(f"{v:7.2g}" for v in grads))
    print(f"{'':15s}∂L/∂W RMS   ", " ".join(f"{s.weight_grad_rms:7.2g}" for s in result.layers))
    print(f"{'':15s}dead units  ", " ".join(f"{s.dead_units:7d}" for s in result.layers))
    print(f"{'':15s}ratio per layer (geometric mean): std {(stds[-1] / stds[0]) ** (1 / 5):.3f}, "
          f"∂L/∂a going back {(grads[0] / grads[-1]) ** (1 / 5):.3f}")

# %% [markdown]
# Compare with your answers: at scale 1 each layer keeps about 1/√2 ≈ 0.71 of the spread
# (the ratio printed above), forward and back, because a ReLU zeroes about half of what it
# receives. Kaiming He's initialisation for ReLU networks doubles the weights' variance,
# std √2/√fan_in, and the spread holds. `nn.Linear`'s default, std 0.577/√fan_in, shrinks
# it faster (compare layer 2) until its random biases, which do not shrink, dominate and
# units go dead; on the way back its gradient shrinks faster still. The gradient an optimizer
# receives for each layer's weights (∂L/∂W) is the product of a forward and a backward
# factor, so at scale 1 it is level across layers, but small everywhere.
#
# ### `nn.init` and `module.apply`
#
# `torch.nn.init` has functions that refill a tensor in place (without recording a graph):
# `normal_`, `uniform_`, `zeros_`, `kaiming_normal_` (std √2/√fan_in by default, the ReLU
# choice), `xavier_uniform_` (for tanh, with `gain=nn.init.calculate_gain("tanh")`), and
# more. `module.apply(fn)` calls `fn` on every submodule, children before their parent, the
# module itself last; below, `fn` only records what it visits. Then `nn.init` refills one
# layer of a tanh network, and a weight of fan_in 512:

# %%
def record_visit(module):
    visited.append(type(module).__name__)


visited = []
tanh_net = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Sequential(nn.Linear(64, 64), nn.Tanh()))
returned = tanh_net.apply(record_visit)
print("apply visited:", visited, "| returned the model:", returned is tanh_net)
nn.init.xavier_uniform_(tanh_net[0].weight, gain=nn.init.calculate_gain("tanh"))
nn.init.zeros_(tanh_net[0].bias)
print(f"tanh_net[0]: weight std {tanh_net[0].weight.std().item():.3f}, biases zero:",
      not tanh_net[0].bias.any())
wide = nn.Linear(512, 256)
refilled = nn.init.kaiming_normal_(wide.weight)
print(f"kaiming_normal_: weight std × √fan_in = {wide.weight.std().item() * 512 ** 0.5:.3f} "
      f"(√2 = {2 ** 0.5:.3f}) | the same Parameter, still a leaf that requires grad:",
      refilled is wide.weight and wide.weight.is_leaf and wide.weight.requires_grad)

# %% [markdown]
# ### Exercise 10: an initialisation measured on the data (3 points)
#
# Kaiming's factor √2 is worked out for ReLU. A model that mixes activations, or has other
# layers between its Linears, needs other factors. Mishkin and Matas's LSUV initialisation
# ("layer-sequential unit variance") measures them instead: it sends a batch through the
# model and rescales each layer's weights until that layer's output has standard deviation
# 1, one layer after the other, in the order the forward pass uses them (rescaling a layer
# changes the inputs of every layer after it).
#
# Write `lsuv_init_(model, x)`: for every `nn.Linear` inside `model`, at any depth, in the
# order the model's forward pass calls them (each is called once), set its bias to zero if
# it has one, and multiply its weight by one number, so that the layer's output on the
# batch `x` has standard deviation 1 when the model runs in evaluation mode. Leave
# everything else as it was: the other modules' parameters and buffers, the mode of every
# submodule, every `.grad`, and no hook behind. Return `model`.

# %% solution 03_modules-lsuv
def lsuv_init_(model, x):
    ### BEGIN SOLUTION
    modes = {module: module.training for module in model.modules()}
    outputs = {}  # a dict keeps insertion order: the first pass lists the layers as forward calls them

    def record(module, inputs, output):
        outputs[module] = output

    handles = [m.register_forward_hook(record) for m in model.modules() if isinstance(m, nn.Linear)]
    model.eval()
    try:
        with torch.no_grad():
            model(x)
            for layer in list(outputs):
                if layer.bias is not None:
                    layer.bias.zero_()
                model(x)  # this layer's output, with the layers before it already rescaled
                layer.weight.div_(outputs[layer].std())
    finally:
        for handle in handles:
            handle.remove()
        for module, was_training in modes.items():
            module.training = was_training
    return model
    ### END SOLUTION

# %% test 03_modules-lsuv-test points=3
_answered = (lsuv_init_,)
torch.manual_seed(17)
_net = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 64, bias=False), nn.ReLU(), nn.Linear(64, 10))
_x = torch.randn(256, 32) * 3
_hints = {"leaf Variable": "[mc:init.in-place-grad] Rescale a parameter under torch.no_grad().",
          "NoneType": "[mc:lsuv.bias-none] A Linear built with bias=False has bias None: set the "
          "bias to zero only where there is one."}
with checks.explain_errors(_hints, "lsuv_init_(model, x)"):
    _ret = lsuv_init_(_net, _x)
checks.expect_true(_ret is _net, "[mc:init.return] Return the model you were given.")
checks.expect_true(sum(len(m._forward_hooks) for m in _net.modules()) == 0, "[mc:lsuv.hooks-left] "
                   "Hooks are still registered on the model: remove each (handle.remove()).")
checks.expect_true(not _net[0].bias.detach().any(), "[mc:lsuv.bias-kept] Layer 0's bias is not "
                   "zero: with a bias, multiplying the weight by c does not multiply the output's "
                   "spread by c. Set it to zero first.")
_stds = []
_handles = [m.register_forward_hook(lambda m, i, o: _stds.append(round(o.std().item(), 3)))
            for m in _net if isinstance(m, nn.Linear)]
with torch.no_grad():
    _net(_x)
for _h in _handles:
    _h.remove()
checks.expect_true(all(abs(s - 1) < 0.01 for s in _stds), f"[mc:lsuv.std-not-one] The Linear "
                   f"layers' outputs on x have standard deviations {_stds}: each should be 1. "
                   "Measure each layer's output (a forward hook), after the layers before it were "
                   "rescaled, and divide its weight by that std.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.needs("lsuv_init_")


class _Reversed(nn.Module):
    """Registers `second` before `first`; forward calls first, then second."""

    def __init__(self):
        super().__init__()
        self.second = nn.Linear(16, 8)
        self.first = nn.Linear(12, 16, bias=False)

    def forward(self, x):
        return self.second(torch.tanh(self.first(x)))


def _lsuv_report(model, x):
    """lsuv_init_(model, x): what it returned and what it left: state, modes, .grad, hooks."""
    modes = [m.training for m in model.modules()]
    grads = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
    state = {k: v.clone() for k, v in model.state_dict().items()}
    returned = lsuv_init_(model, x)
    return {"returned the model": returned is model, "state before": state,
            "state after": dict(model.state_dict()),
            "modes before and after": (modes, [m.training for m in model.modules()]),
            ".grad unchanged": all((grads[n] is None) == (p.grad is None) and (
                p.grad is None or torch.equal(grads[n], p.grad)) for n, p in model.named_parameters()),
            "hooks left": sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())}


torch.manual_seed(17)
_mixed = nn.Sequential(nn.Linear(32, 64), nn.Tanh(),
                       nn.Sequential(nn.Linear(64, 64, bias=False), nn.ReLU(), nn.BatchNorm1d(64)),
                       nn.Dropout(0.3), nn.Linear(64, 10))
with torch.no_grad():
    _mixed[2][2].running_mean.fill_(0.5)
    _mixed[2][2].running_var.fill_(2.0)
    _mixed[2][2].weight.fill_(1.5)
_mixed(torch.randn(4, 32)).sum().backward()  # .grad left by training
_mixed.train()
_mixed[2][2].eval()  # mixed modes: a frozen batch norm
probe.call("lsuv_init_(a Sequential with a nested block, x)", _lsuv_report, _mixed,
           torch.randn(256, 32, generator=torch.Generator().manual_seed(1)) * 3)
torch.manual_seed(18)
probe.call("lsuv_init_(a model whose forward calls its layers in another order, x)", _lsuv_report,
           _Reversed(), torch.randn(256, 12, generator=torch.Generator().manual_seed(2)) * 0.2)
### JUDGE
from helpers.grading.probe import Raised, got


class _Reversed(nn.Module):
    def __init__(self):
        super().__init__()
        self.second = nn.Linear(16, 8)
        self.first = nn.Linear(12, 16, bias=False)

    def forward(self, x):
        return self.second(torch.tanh(self.first(x)))


_hints = {"leaf Variable": "[mc:init.in-place-grad] Rescale a parameter under torch.no_grad().",
          "NoneType": "[mc:lsuv.bias-none] A Linear built with bias=False has bias None: set the "
          "bias to zero only where there is one."}
_models = {"a Sequential with a nested block": (lambda: nn.Sequential(
               nn.Linear(32, 64), nn.Tanh(), nn.Sequential(nn.Linear(64, 64, bias=False), nn.ReLU(),
                                                           nn.BatchNorm1d(64)),
               nn.Dropout(0.3), nn.Linear(64, 10)),
               torch.randn(256, 32, generator=torch.Generator().manual_seed(1)) * 3),
           "a model whose forward calls its layers in another order": (
               _Reversed, torch.randn(256, 12, generator=torch.Generator().manual_seed(2)) * 0.2)}
for _name, (_make, _x) in _models.items():
    _key = f"lsuv_init_({_name}, x)"
    _out = got.outcome(_key)
    if isinstance(_out, Raised):
        checks.reject(True, {True: f"{_key} raised {_out}. " + next(
            (h for f, h in _hints.items() if f.lower() in _out.message.lower()), "")}, _key)
    checks.expect_true(_out["returned the model"], "[mc:init.return] Return the model you were given.")
    checks.expect_true(_out["hooks left"] == 0, f"[mc:lsuv.hooks-left] In {_name}, "
                       f"{_out['hooks left']} hook(s) are still registered: remove each "
                       "(handle.remove()), or every later forward pass runs them.")
    _modes_before, _modes_after = _out["modes before and after"]
    checks.expect_true(_modes_after == _modes_before, f"[mc:lsuv.mode-not-restored] In {_name}, the "
                       "submodules' modes changed: measure in eval(), then give every submodule its "
                       "own mode back (03's rule).")
    checks.expect_true(_out[".grad unchanged"], "[mc:lsuv.grad-changed] The parameters' .grad "
                       "changed: measuring needs no backward; run the passes under torch.no_grad().")
    _before, _after = _out["state before"], _out["state after"]
    checks.expect_true(_after.keys() == _before.keys(), f"[mc:init.other-modules] In {_name}, the "
                       "state_dict's keys changed: rescale the Linear layers' own weights.")
    _model = _make()
    _linears = {n for n, m in _model.named_modules() if isinstance(m, nn.Linear)}
    _others = [k for k in _before if k.rsplit(".", 1)[0] not in _linears
               and not torch.equal(_before[k], _after[k])]
    checks.expect_true(not _others, f"[mc:lsuv.train-mode] In {_name}, {', '.join(_others)} changed: "
                       "a forward pass in training mode moves batch norm's running statistics. "
                       "Measure with the model in eval(), and leave everything but the Linear "
                       "layers as it was.")
    for _lin in sorted(_linears):
        _w0, _w1 = _before[_lin + ".weight"], _after[_lin + ".weight"]
        _scale = (_w1 * _w0).sum() / (_w0 * _w0).sum()
        checks.expect_true(_scale > 0 and torch.allclose(_w1, _scale * _w0, rtol=1e-4, atol=1e-6),
                           f"[mc:lsuv.reinit] In {_name}, layer {_lin}'s new weight is not its old "
                           "weight times one number: LSUV rescales the weights it finds, it does not "
                           "draw new ones.")
        if _lin + ".bias" in _after:
            checks.expect_true(not _after[_lin + ".bias"].any(), f"[mc:lsuv.bias-kept] In {_name}, "
                               f"layer {_lin}'s bias is not zero: with a bias, multiplying the "
                               "weight by c does not multiply the output's spread by c. Set it to "
                               "zero first.")
    _model.load_state_dict(_after)
    _model.eval()
    _stds = {}
    for _lin in _linears:
        _model.get_submodule(_lin).register_forward_hook(
            lambda m, i, o, name=_lin: _stds.update({name: o.std().item()}))
    with torch.no_grad():
        _model(_x)
    _off = {k: round(v, 3) for k, v in sorted(_stds.items()) if abs(v - 1) > 1e-3}
    if _name.startswith("a model whose") and set(_off) == {"second"}:
        checks.reject(True, {True: "[mc:lsuv.order] The layer that forward calls last (second, "
                                   f"registered first) ends with std {_off['second']}: the layers "
                                   "were rescaled in registration order, model.modules()'s, so "
                                   "rescaling `first` afterwards changed second's input. Follow the "
                                   "order the forward pass calls them (record it with forward "
                                   "hooks)."}, "the order of the layers")
    checks.expect_true(not _off, f"[mc:lsuv.std-not-one] In {_name}, with the model in eval() the "
                       f"outputs of {', '.join(_off)} have standard deviations {_off}: each Linear's "
                       "output on x should have std 1. Measure each layer's output (a forward hook) "
                       "after the layers before it were rescaled, and divide its weight by that std.")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# Each one was reproduced above; here they are side by side with their fixes.
#
# | mistake | what you see | fix |
# |---|---|---|
# | no `super().__init__()` | `AttributeError` at the first layer assigned (section 1) | call it first |
# | a plain tensor attribute | not trained, not saved, left behind by `.to` (section 2) | `nn.Parameter` or `register_buffer` |
# | `x.to(device)` without `x =` | `x` has not moved: a tensor's `.to` returns a new one (section 2) | `x = x.to(device)` |
# | layers in a Python list | `parameters()` empty or short; layers never train (section 3) | `nn.ModuleList` / `nn.Sequential` |
# | evaluating in training mode | dropout noise, batch statistics (section 5) | `model.eval()` + `torch.no_grad()` |
# | restoring one flag after `eval()` | `model.training = was` leaves dropout off; `model.train(was)` resets a frozen batch norm (section 5) | restore each submodule's own flag |
# | a `torch.compile(model)` checkpoint loaded into the bare model | every key begins with `_orig_mod.` (section 6) | `model.compile()`, or strip the prefix |
# | `strict=False` to make a load "work" | a missing layer keeps its random start (section 6) | strict loading; read `missing_keys` |
# | `torch.load` of someone else's file with `weights_only=False` | the file runs code while it loads (section 6) | `weights_only=True`; allow-list your own classes |
# | `module.requires_grad = False` | nothing is frozen (section 7) | `module.requires_grad_(False)` |
# | `F.dropout(x, p)` inside a module | dropout stays on in `eval()` (section 7) | `training=self.training` or `nn.Dropout` |
# | hooks never removed | they run on every later call (section 9) | keep the handles; `handle.remove()` |

# %% [markdown]
# ## Summary
#
# - A module registers what you assign to it: submodules, `nn.Parameter`s, and buffers
#   through `register_buffer` (saved unless `persistent=False`). Plain tensors and Python
#   lists of layers are invisible to `parameters()`, `state_dict()` and `.to(...)`.
# - `module.to(...)` converts the module in place; `tensor.to(...)` returns a new tensor.
# - `nn.Linear(d_in, d_out)` stores its weight as (d_out, d_in), computes x Wᵀ + b on the
#   last dimension of any input and has d_out·(d_in + 1) parameters: 784 → 128 → 10 has
#   101,770.
# - `train()`/`eval()` switch dropout and batch norm, one flag per submodule, and a helper
#   that changes them restores each one; `torch.no_grad()` and `torch.inference_mode()`
#   stop the graph; `requires_grad_(False)` freezes. They are different switches.
# - `nn.Conv2d` stores one (in, kh, kw) filter per output channel, (out, in, kh, kw) in
#   all, and its count does not depend on the image size; `channels_last` changes strides,
#   not shapes. `nn.Embedding` gathers rows, and only the rows read get a gradient.
# - Save `state_dict()`; load it with `weights_only=True` (allow-list your own classes),
#   strictly, with `map_location` when the devices differ. `torch.export` saves the
#   program as a graph, for the input shapes it was told about.
# - A custom layer declares its Parameters in `__init__`; forward hooks read a running
#   model and must be removed. Initialisation sets how a signal's spread changes from layer
#   to layer, forward and back: √2/√fan_in keeps a ReLU stack level.
#
# **Next:** 04_training_loop puts a module, a loss and an optimizer into a training loop.
#
# **Closing note.** Measured on the machine that ran this page (median of three updates of
# fresh instruments, model + draw, as `benchmarks/instruments.py` measures them):

# %%
make_inspector = helpers.modules.explore
make_activations = helpers.activations.explore
for label, make in [("module inspector", lambda: make_inspector(inspector_models)),
                    ("activation explorer, depth 6", lambda: make_activations(depth=6)),
                    ("activation explorer, depth 12", lambda: make_activations(depth=12))]:
    print(f"{label}: median update (model + draw) "
          f"{helpers.update_time.median_update_ms(make()):.0f} ms")
print(f"this notebook ran top to bottom in {time.perf_counter() - notebook_start:.1f} s")
