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
# - switch `train()` / `eval()` (dropout, batch norm) for a model *and each submodule*,
#   and choose between `torch.no_grad()` and `torch.inference_mode()`;
# - save and load a `state_dict` safely: `weights_only`, strict key matching, allow-listed
#   classes, `map_location`;
# - freeze parameters, choose between functional and object layers, write a layer with its
#   own Parameters, read activations with forward hooks;
# - initialise parameters with `nn.init` and `module.apply`, and read what an
#   initialisation does to each layer's activations and gradients.
#
# **Prerequisites:** 01 (tensors, shapes, matrix products), 02 (leaves, `requires_grad`,
# `.grad`, `torch.no_grad()`).
#
# **How this notebook works.** Quick quizzes ask you to *predict*: answer first, then run
# the cell after the quiz, which shows what really happens. Numbered exercises (points in
# the heading) are graded; each answer cell gives you the signature to complete, and a
# failing test says what you probably believed.

# %%
import copy
import inspect
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
checks.answer("03_modules-quiz-param-count", answer_param_count, "answer_param_count", kind=int)
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
class QuizModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 4))
        self.b = torch.zeros(4)
        self.register_buffer("m", torch.zeros(4))
        self.lin = nn.Linear(4, 2)


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
checks.answer("03_modules-quiz-to-inplace", answer_to_dtypes, "answer_to_dtypes",
              kind=(tuple, list))
### BEGIN HIDDEN TESTS
_lin, _w = nn.Linear(2, 2), torch.zeros(2)
_lin.to(torch.float64)
_w.to(torch.float64)
with checks.because("[mc:to.tensor-in-place] Module.to converts the module's own parameters "
                    "and returns the same module; Tensor.to returns a new tensor."):
    checks.expect_equal(tuple(answer_to_dtypes),
                        (_lin.weight.dtype == torch.float64, _w.dtype == torch.float64),
                        "answer_to_dtypes")
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

# %% [markdown]
# Compare with your answer: a module is changed where it stands, a tensor is not, so
# `x = x.to(device)` needs the assignment and `model.to(device)` does not. A device moves
# every parameter and buffer of the module and its submodules; a dtype converts the
# floating-point ones only, so batch norm's counter `num_batches_tracked` stays int64.
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
_mean, _std = torch.tensor([1.0, -2.0, 0.5]), torch.tensor([0.5, 4.0, 2.0])
with checks.explain_errors({"before Module.__init__": "[mc:modules.no-super-init] Call "
                            "super().__init__() first."}, "FixedStandardise(mean, std)"):
    _fs = FixedStandardise(_mean.clone(), _std.clone())
_params = {name for name, _ in _fs.named_parameters()}
_saved = set(_fs.state_dict())
_buffers = {name for name, _ in _fs.named_buffers()}
checks.expect_true("gain" not in _buffers,
                   "[mc:buffers.learned-buffer] gain is a buffer: parameters() leaves buffers "
                   "out, so no optimizer would train it. Make it an nn.Parameter.")
checks.expect_true("gain" in _params,
                   "[mc:modules.plain-tensor] gain is not in parameters(): a tensor with "
                   "requires_grad=True assigned to an attribute is not registered, so no "
                   "optimizer trains it. Wrap it in nn.Parameter(...).")
checks.expect_true(not {"mean", "std"} & _params,
                   "[mc:buffers.stats-as-parameter] parameters() lists mean and std, so an "
                   "optimizer built from it would hold them: they are measured once, not "
                   "learned. Register them as buffers.")
checks.expect_true(not {"mean", "std"} <= _buffers or {"mean", "std"} <= _saved,
                   "[mc:buffers.persistent] mean and std are buffers registered with "
                   "persistent=False, so state_dict() leaves them out: statistics measured "
                   "once must be saved with the model.")
checks.expect_true({"mean", "std"} <= _saved,
                   "[mc:buffers.plain-tensor] mean and std are not in state_dict(): plain tensor "
                   "attributes are neither saved nor moved by .to(). Register them as buffers.")
checks.expect_true("largest" in _buffers,
                   "[mc:buffers.plain-tensor] largest is not a buffer, so .to(...) leaves it "
                   "behind: register it with register_buffer.")
checks.expect_true("largest" not in _saved,
                   "[mc:buffers.persistent] largest is saved in state_dict(), but every forward "
                   "pass rebuilds it: register it with persistent=False.")
_x = torch.randn(5, 3)
with checks.explain_errors({}, "FixedStandardise(mean, std)(x)"):
    _out = _fs(_x)
checks.expect_close(_out, (_x - _mean) / _std, "FixedStandardise(mean, std)(x) with gain 1",
                    hint="[mc:buffers.forward] Keep Standardise's forward: (x - mean) / std * gain.")
### BEGIN HIDDEN TESTS
checks.expect_true(_params == {"gain"}, f"[mc:buffers.stats-as-parameter] parameters() lists "
                   f"{sorted(_params)}: only gain is learned.")
checks.expect_true(_saved == {"gain", "mean", "std"}, f"[mc:buffers.persistent] state_dict() "
                   f"holds {sorted(_saved)}: gain, mean and std, and nothing rebuilt by forward.")
_fs.to(torch.float64)
_dtypes = {name: getattr(_fs, name).dtype for name in ("mean", "std", "gain", "largest")}
checks.expect_true(set(_dtypes.values()) == {torch.float64},
                   f"[mc:buffers.plain-tensor] After .to(torch.float64) the dtypes are {_dtypes}: "
                   "every tensor the module needs must follow .to(...).")
_y = _fs(_x.double())
_y.sum().backward()
checks.expect_true(_fs.gain.grad is not None and _fs.mean.grad is None,
                   "[mc:buffers.stats-as-parameter] backward must reach gain only.")
_copy = FixedStandardise(torch.zeros(3), torch.ones(3))
with checks.explain_errors({"": "[mc:buffers.persistent] The saved state_dict must load "
                            "strictly into a new FixedStandardise."}, "load_state_dict"):
    _copy.load_state_dict(_fs.state_dict())
checks.expect_close(_copy.mean, _mean.double(), "mean after a save/load round trip",
                    hint="[mc:buffers.plain-tensor] mean must travel in state_dict().")
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
# here, but in a model that also has one registered layer, training updates that layer
# alone while the listed ones stay at their random start (reproduced under "Common
# mistakes" at the end). `nn.ModuleList` registers each element under its index;
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
torch.manual_seed(1)
_block = nn.Linear(5, 5)
_block_before = [p.detach().clone() for p in _block.parameters()]
_x = torch.randn(6, 5)
with torch.no_grad():
    _want = _block(_block(_block(_x)))
with checks.explain_errors({"before Module.__init__": "[mc:modules.no-super-init] Call "
                            "super().__init__() first in __init__: it creates the registries."},
                           "Stack(nn.Linear(5, 5), 3)"):
    _stack = Stack(_block, 3)
checks.expect_true(hasattr(_stack, "layers") and isinstance(_stack.layers, nn.Module),
                   "[mc:modules.python-list] Keep the copies in the attribute `layers`, in a "
                   "registering container (nn.ModuleList or nn.Sequential): a Python list is "
                   "invisible to the module, so parameters() would not list them.")
_count = sum(p.numel() for p in _stack.parameters())
checks.expect_true(_count != 30, "[mc:modules.shared-copies] Stack(nn.Linear(5, 5), 3) has 30 "
                   "parameters: its three layers share one weight and one bias (one module object "
                   "three times, or shallow copies of it). parameters() lists each tensor once, "
                   "and all three positions would train the same numbers. Give each position "
                   "tensors of its own (copy.deepcopy(block) copies them).")
_copies = list(_stack.layers)
checks.expect_true(len(_copies) == 3, f"[mc:stack.depth] Stack(block, 3) holds {len(_copies)} "
                   "layers: depth copies, no more and no fewer.")
with checks.because("[mc:modules.shared-copies] Three copies of 30 parameters each, none "
                    "shared."):
    checks.expect_equal(_count, 90, "parameters of Stack(nn.Linear(5, 5), 3)")
checks.expect_true(all(c is not _block for c in _copies),
                   "[mc:stack.block-reused] `block` itself is one of the layers, so training the "
                   "stack would change the module you were given: every layer must be a copy.")
checks.expect_true(all(isinstance(c, nn.Linear) and torch.equal(c.weight, _block.weight)
                       and torch.equal(c.bias, _block.bias) for c in _copies),
                   "[mc:stack.fresh-copies] The layers do not start from block's values: a new "
                   "layer draws new random numbers. Copy block (copy.deepcopy keeps its values).")
with checks.explain_errors({}, "Stack(nn.Linear(5, 5), 3)(x)"):
    _out = _stack(_x)
checks.expect_shape(_out, (6, 5), "Stack(nn.Linear(5, 5), 3)(x)")
### BEGIN HIDDEN TESTS
checks.expect_close(_out, _want, "Stack(nn.Linear(5, 5), 3)(x)",
                    hint="[mc:stack.forward] At the start the stack computes block(block(block(x))): "
                         "apply every layer, one after another, to the previous output.")
with torch.no_grad():
    _copies[0].weight.add_(1.0)
checks.expect_true(all(torch.equal(a, b) for a, b in zip(_block_before, _block.parameters())),
                   "[mc:stack.block-reused] Changing the first layer changed block: the layers must "
                   "not share tensors with the module you were given.")
checks.expect_true(not torch.equal(_copies[0].weight, _copies[1].weight),
                   "[mc:modules.shared-copies] Changing the first layer changed the second: each "
                   "copy needs parameters of its own.")
_normed = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
_deep = Stack(_normed, 4)
with checks.because("[mc:modules.shared-copies] Stack(Linear(3, 3) + BatchNorm1d(3), 4): four "
                    "copies, each with its own parameters and its own batch norm buffers."):
    checks.expect_equal(sum(p.numel() for p in _deep.parameters()), 4 * (12 + 6),
                        "parameters of Stack(Linear(3, 3) + BatchNorm1d(3), 4)")
    checks.expect_equal(len(_deep.state_dict()), 4 * len(_normed.state_dict()),
                        "entries of Stack(Linear(3, 3) + BatchNorm1d(3), 4).state_dict()")
_deep.train()
_deep(torch.randn(8, 3))
checks.expect_true(not _normed[1].running_mean.any(),
                   "[mc:stack.block-reused] A training pass through the stack moved the running "
                   "mean of the block you were given: copy its buffers too.")
with checks.because("[mc:stack.depth] Stack(block, 1) is one copy of block."):
    checks.expect_equal(len(list(Stack(nn.Linear(2, 2), 1).parameters())), 2,
                        "parameter tensors of Stack(nn.Linear(2, 2), 1)")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Inside a Linear layer: weight layout and parameter counts
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
with checks.because("[mc:linear.flattens-batch] nn.Linear maps the last dimension from d_in "
                    "to d_out and keeps every leading dimension."):
    checks.expect_equal(tuple(answer_batch_shape) if not isinstance(answer_batch_shape, str)
                        else answer_batch_shape,
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


def _mlp_params(d_in, h, d_out):
    """Parameters of the exercise's MLP, counted by torch (on the meta device: no memory)."""
    mlp = nn.Sequential(nn.Linear(d_in, h, device="meta"), nn.Linear(h, d_out, device="meta"))
    return sum(p.numel() for p in mlp.parameters())


with checks.explain_errors({}, "widest_hidden(20, 3, 1000)"):
    _h = widest_hidden(20, 3, 1000)
checks.expect_true(isinstance(_h, int) and not isinstance(_h, bool),
                   f"[mc:budget.whole-units] widest_hidden returned {type(_h).__name__} {_h!r}: "
                   "a width is a whole number of units, a Python int (use // or int()).")
checks.expect_true(_h >= 1, f"[mc:budget.negative] widest_hidden(20, 3, 1000) = {_h}, but "
                   "a width of 1 fits easily in 1000 parameters.")
_over = _mlp_params(20, _h, 3) > 1000
checks.expect_true(not _over or _mlp_params(20, _h - 1, 3) > 1000,
                   f"[mc:budget.round-up] With h = {_h} the MLP has {_mlp_params(20, _h, 3)} "
                   f"parameters, over the budget of 1000, and h = {_h - 1} fits: \"at most\" "
                   "means rounding down, not to the nearest width.")
checks.expect_true(not _over,
                   f"[mc:params.forget-bias] With h = {_h} the MLP has {_mlp_params(20, _h, 3)} "
                   "parameters, over the budget of 1000: did you leave out the biases "
                   "(d_out·(d_in + 1) per Linear)?")
checks.expect_true(_mlp_params(20, _h + 1, 3) > 1000,
                   f"[mc:params.bias-per-input] h = {_h + 1} also fits in 1000 parameters, and "
                   "the answer is the widest h that fits: count one bias per *output* unit of "
                   "each layer.")
### BEGIN HIDDEN TESTS
_gen = torch.Generator().manual_seed(31)
_cases = [(784, 10, 101_770), (784, 10, 101_769), (5, 3, 11), (5, 3, 12), (5, 3, 2), (1, 1, 0)]
_cases += [tuple(int(v) for v in torch.randint(1, 300, (2,), generator=_gen))
           + (int(torch.randint(0, 200_000, (), generator=_gen)),) for _ in range(20)]
for _d_in, _d_out, _budget in _cases:
    with checks.explain_errors({}, f"widest_hidden({_d_in}, {_d_out}, {_budget})"):
        _h = widest_hidden(_d_in, _d_out, _budget)
    _name = f"widest_hidden({_d_in}, {_d_out}, {_budget})"
    checks.expect_true(isinstance(_h, int) and not isinstance(_h, bool),
                       f"[mc:budget.whole-units] {_name} returned {type(_h).__name__}: return a "
                       "Python int.")
    checks.expect_true(_h >= 0, f"[mc:budget.negative] {_name} = {_h}: when not even h = 1 "
                       "fits, the answer is 0, not a negative width.")
    checks.expect_true(_h == 0 or _mlp_params(_d_in, 1, _d_out) <= _budget,
                       f"[mc:budget.negative] {_name} = {_h}, but not even h = 1 fits in "
                       f"{_budget} parameters: the answer is then 0.")
    _fits = _h == 0 or _mlp_params(_d_in, _h, _d_out) <= _budget
    checks.expect_true(_fits, f"[mc:params.forget-bias] {_name} = {_h} goes over the budget: "
                       "count every weight and every bias (the output layer's too), and round "
                       "down.")
    checks.expect_true(_mlp_params(_d_in, _h + 1, _d_out) > _budget,
                       f"[mc:budget.at-most] {_name} = {_h}, but h = {_h + 1} also fits: "
                       "\"at most\" includes a budget spent exactly.")
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
_before = [p.detach().clone() for p in (*_first.parameters(), *_second.parameters())]
_layout = ("[mc:linear.weight-layout] Each weight is stored as (d_out, d_in) and a layer "
           "computes x Wᵀ + b: write second(first(x)) out with that formula, term by term, "
           "and follow each term's shape.")
_shapes_hint = ("[mc:merge.shapes] The shapes do not fit together: expand second(first(x)) "
                "into a term in x and a constant, and follow each term's shape; here the "
                "merged weight is (2, 3) and the merged bias (2,).")
_x = torch.randn(6, 3)
with torch.no_grad():  # computed before the call, which may (wrongly) change the layers
    _want = _second(_first(_x))
    _no_first_bias = _x @ (_second.weight @ _first.weight).T + _second.bias
with checks.explain_errors({"mat1 and mat2": _layout, "size of tensor": _shapes_hint,
                            "must match": _shapes_hint,
                            "cannot assign": "[mc:merge.assign-tensor] A Parameter cannot be "
                            "replaced by a plain tensor: copy the values in under torch.no_grad() "
                            "(merged.weight.copy_(...)) or wrap them in nn.Parameter.",
                            "leaf Variable": "[mc:init.in-place-grad] Autograd refuses an "
                            "in-place write into a Parameter that requires grad: write under "
                            "torch.no_grad(), as the task says."},
                           "merge_linears(Linear(3, 5), Linear(5, 2))"):
    _merged = merge_linears(_first, _second)
_after = [p.detach() for p in (*_first.parameters(), *_second.parameters())]
checks.expect_true(len(_after) == len(_before) and all(
    a.shape == b.shape and torch.equal(a, b) for a, b in zip(_before, _after)),
                   "[mc:merge.modified-inputs] first or second changed: build a new layer and "
                   "leave the two you were given as they were.")
checks.expect_true(isinstance(_merged, nn.Linear),
                   f"[mc:merge.not-one-layer] merge_linears returned a {type(_merged).__name__}: "
                   "return one nn.Linear that does the work of both.")
checks.expect_shape(_merged.weight, (2, 3), "merged.weight")
with torch.no_grad():
    _got = _merged(_x)
checks.reject_close(_got, {_no_first_bias: "[mc:merge.bias] The first layer's bias is missing: "
                           "it reaches the output through the second layer's weights."},
                    "merged(x)")
### BEGIN HIDDEN TESTS
checks.expect_close(_got, _want, "merged(x)", rtol=1e-5, atol=1e-6,
                    hint="[mc:merge.bias] merged(x) must equal second(first(x)).")
_a, _b = nn.Linear(4, 4), nn.Linear(4, 4)
_m2 = merge_linears(_a, _b)
_x4 = torch.randn(5, 4)
with torch.no_grad():
    checks.expect_close(_m2(_x4), _b(_a(_x4)), "merge of two square layers",
                        hint=_layout + " With square weights the other order runs and is wrong.")
checks.expect_true(all(isinstance(p, nn.Parameter) and p.is_leaf and p.requires_grad
                       for p in _m2.parameters()),
                   "[mc:merge.assign-tensor] The merged layer's weight and bias must be trainable "
                   "leaf Parameters.")
with torch.no_grad():
    _a.weight.add_(1.0)
checks.expect_true(not torch.equal(_m2(_x4), _b(_a(_x4))),
                   "[mc:merge.modified-inputs] The merged layer must own its numbers: changing the "
                   "first layer afterwards should not change it.")
### END HIDDEN TESTS

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
_drop = nn.Dropout(0.2)
_drop.train()
torch.manual_seed(6)
_kept = _drop(torch.ones(1000))
checks.expect_close(answer_dropout_value, _kept[_kept != 0][0].item(), "answer_dropout_value",
                    rtol=1e-5, hint="[mc:dropout.no-rescale] A survivor v must make the "
                    "expected value (1 − p)·v equal the input 1.")
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
checks.answer("03_modules-quiz-eval-freezes", answer_eval_freezes, "answer_eval_freezes",
              kind=bool)
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

# %% wrong 03_modules-quiz-eval-freezes
{
    True: "[mc:mode.eval-freezes] eval() only switches dropout and batch norm to their "
          "evaluation behaviour; requires_grad is unchanged, so backward fills .grad and the "
          "step updates the weights.",
}

# %% [markdown]
# Run it:

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
# Compare with your answer: `eval()` leaves `requires_grad` alone, backward still fills
# `.grad`, and the step still moves the weights. It changes the behaviour of dropout and
# batch norm only; stopping the graph is another switch.
#
# ### `torch.no_grad()` and `torch.inference_mode()`
#
# Both stop autograd from recording a graph. `torch.inference_mode()` goes further: the
# tensors it creates are *inference tensors*, which autograd refuses to use later, so
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

# %% [markdown]
# `train(was)` switched the batch norm back to training; assigning `.training` changed the
# top-level flag alone and left the dropout in `eval()`. Restoring a mode means restoring
# each submodule's own flag (`model.modules()` lists them all).
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
_net = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
                     nn.Linear(16, 2))
_net(torch.randn(32, 4))  # some running statistics
_net.train()
_seen = []  # the dropout's own mode when it runs (m: also in a copy of the model)
_hook = _net[3].register_forward_hook(
    lambda m, i, o: _seen.append((m.training, torch.is_grad_enabled())))
_x = torch.randn(6, 4)
try:
    with (helpers.modes.calls_recorded() as _delegated,
          checks.explain_errors({}, "predict(model, x)")):
        _out = predict(_net, _x)
finally:
    _hook.remove()
    _grad_left_on = torch.is_grad_enabled()
    torch.set_grad_enabled(True)  # so that the checks below and the rest of the page run
checks.expect_true(not _delegated, "[mc:predict.delegates] predict calls helpers.modes ("
                   + ", ".join(_delegated) + "), which does this exercise for you: save each "
                   "submodule's flag and put it back yourself.")
checks.expect_true(bool(_seen), "[mc:predict.model-not-called] predict never called the model: "
                   "return model(x).")
checks.expect_true(not _seen[-1][0], "[mc:predict.dropout-active] The model ran in training "
                   "mode, so dropout zeroed activations at random: call model.eval() first.")
checks.expect_true(not _seen[-1][1], "[mc:predict.graph-recorded] Autograd recorded a graph: "
                   "run the model inside `with torch.no_grad():` (or torch.inference_mode()).")
checks.expect_true(_grad_left_on, "[mc:predict.grad-mode-left] After predict, autograd is off "
                   "for everything that follows: torch.set_grad_enabled(False) stays in force "
                   "until it is switched back. A `with torch.no_grad():` block ends by itself.")
checks.expect_true(isinstance(_out, torch.Tensor), "[mc:predict.output-changed] predict "
                   f"returned an object of type {type(_out).__name__}: return what model(x) "
                   "returns, a tensor.")
_left = [m for m in _net.modules() if not m.training]
checks.expect_true(not _left, f"[mc:predict.mode-not-restored] The model was in training mode "
                   f"and {len(_left)} of its submodules are in evaluation mode after predict: "
                   "give every submodule its mode back.")
_net[1].eval()  # the fine-tuning case: batch norm kept in eval while the rest trains
with checks.explain_errors({}, "predict(model with its batch norm in eval, x)"):
    predict(_net, _x)
checks.expect_true(not _net[1].training and _net[3].training,
                   "[mc:predict.one-flag-restored] The batch norm was in eval() and the rest in "
                   "train() before the call, and predict changed that: remember each "
                   "submodule's own flag (model.modules()), not only model.training.")
### BEGIN HIDDEN TESTS
_net.eval()
with torch.no_grad():
    _ref = _net(_x)
checks.expect_close(_out, _ref, "predict(model, x)",
                    hint="[mc:predict.dropout-active] The output in eval mode, for this x.")
_nested = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Dropout(0.3), nn.BatchNorm1d(4)))
# from all-train, all-eval and mixed modes, nested submodules included
_problems = helpers.modes.mode_changes(predict, _nested, torch.randn(3, 4))
checks.expect_true(not _problems, "[mc:predict.one-flag-restored] predict must leave every "
                   "submodule in its own mode; " + (_problems[0] if _problems else ""))
checks.expect_true(not helpers.modes.mode_changes(predict, _net, _x),
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
# `.module`; `torch.compile`'s wrapper keeps it in `._orig_mod`:

# %%
wrapped = nn.DataParallel(copy.deepcopy(source))  # a copy: with a GPU it would move its model
print(list(wrapped.state_dict())[:3])
with checks.expect_error(RuntimeError):
    copy_model.load_state_dict(wrapped.state_dict())

# %% [markdown]
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


try:
    torch.load(untrusted, weights_only=True)
except pickle.UnpicklingError as error:
    print("weights_only=True refused it:", refusal(error)[:110])
try:
    torch.load(untrusted)
except pickle.UnpicklingError:
    print("torch.load with no weights_only argument refused it too: True is the default")
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
_tripwire = []


def _trip(message):
    _tripwire.append(message)


class _Payload:
    def __reduce__(self):
        return (_trip, ("loaded",))


def _write_checkpoint(where, state, config, epoch=7):
    torch.save({"config": config, "epoch": epoch,
                "model": {"_orig_mod." + k: v for k, v in state.items()}}, where)


torch.manual_seed(5)
_trained = make_model(TrainConfig(6, 0.1))
_trained(torch.randn(16, 4))  # moves batch norm's running statistics away from their start
_state = _trained.state_dict()
_good = os.path.join(workdir, "good.pt")
_write_checkpoint(_good, _state, TrainConfig(6, 0.1))
_hints = {"Unsupported global": "[mc:load.allow-list] The file holds a TrainConfig, which "
          "weights_only loading refuses until you allow it: load inside "
          "`with torch.serialization.safe_globals([TrainConfig]):`.",
          "Missing key": "[mc:load.prefix] The keys in the file begin with '_orig_mod.', "
          "the model's do not: remove that prefix from every key before loading.",
          "Unexpected key": "[mc:load.prefix] The keys in the file begin with '_orig_mod.', "
          "the model's do not: remove that prefix from every key before loading.",
          "size mismatch": "[mc:load.config] The file's weights have other shapes than the "
          "model you built: build it with make_model(...) of the file's own config."}
with checks.explain_errors(_hints, "load_checkpoint(path)"):
    _result = load_checkpoint(_good)
checks.expect_true(isinstance(_result, tuple) and len(_result) == 2
                   and isinstance(_result[0], nn.Module),
                   "[mc:load.return-pair] Return a pair: the loaded model and the epoch "
                   "from the file.")
_model, _epoch = _result
checks.expect_true(_epoch == 7 and type(_epoch) is int,
                   f"[mc:load.return-pair] The epoch returned is {_epoch!r}: return the "
                   "file's \"epoch\" entry as it is.")
checks.expect_true(not any(m.training for m in _model.modules()),
                   "[mc:state-dict.mode] The loaded model is still in training mode: call "
                   "model.eval() before returning it, or batch norm and dropout behave as in "
                   "training.")
_missing = os.path.join(workdir, "missing.pt")
_write_checkpoint(_missing, {k: v for k, v in _state.items() if not k.startswith("4.")},
                  TrainConfig(6, 0.1))
checks.expect_raises(Exception, load_checkpoint, _missing,
                     name="load_checkpoint(a checkpoint without the last layer)",
                     why="[mc:load.strict-false] The last layer would keep its random "
                         "start and nothing would say so: load strictly (strict=True, the "
                         "default) so that a missing key raises.")
_evil = os.path.join(workdir, "evil.pt")
_write_checkpoint(_evil, _state, _Payload())
_tripwire.clear()
checks.expect_raises(Exception, load_checkpoint, _evil, name="load_checkpoint(untrusted file)",
                     why="[mc:state-dict.trust-pickle] Load with weights_only=True: it refuses "
                         "objects that are not tensors or allowed classes.")
checks.expect_true(not _tripwire,
                   "[mc:state-dict.trust-pickle] Loading the untrusted file called a function "
                   "it named: that is what weights_only=False allows. Use weights_only=True and "
                   "allow TrainConfig alone.")
### BEGIN HIDDEN TESTS
_bare = getattr(_model, "_orig_mod", _model)  # a model returned inside torch.compile's wrapper
with checks.because("[mc:state-dict.not-loaded] Every parameter and buffer must come from "
                    "the file."):
    for _k, _v in _state.items():
        checks.expect_equal(_bare.state_dict().get(_k), _v, f"state_dict()[{_k!r}]")
_wide = os.path.join(workdir, "wide.pt")
_wide_model = make_model(TrainConfig(9, 0.3))
_write_checkpoint(_wide, _wide_model.state_dict(), TrainConfig(9, 0.3), epoch=12)
with checks.explain_errors(_hints, "load_checkpoint(a checkpoint with hidden=9)"):
    _loaded, _ep = load_checkpoint(_wide)
checks.expect_true(getattr(_loaded, "_orig_mod", _loaded)[0].out_features == 9 and _ep == 12,
                   "[mc:load.config] Build the model from the file's own config and return "
                   "the file's own epoch.")
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

# %%
torch.manual_seed(11)
regularised = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
                            nn.Linear(16, 4))
regularised(torch.randn(64, 8))  # one training batch: batch norm has running statistics
fine_tuned = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
                           nn.Linear(16, 4))
fine_tuned[1].eval()
helpers.modules.explore({"MLP with dropout and batch norm": regularised,
                         "fine-tuned, batch norm in eval": fine_tuned,
                         "fine-tuning net": tuned, "TwoLayer": net})

# %% [markdown]
# ### Exercise 7: fine-tune the last layer, and nothing else (2 points)
#
# Write `freeze_all_but_last(model)` for an `nn.Sequential` that has been training until
# now: it is in training mode, and its last backward pass left gradients in its
# parameters' `.grad`. Prepare it for fine-tuning its last layer (`model[-1]`): every
# parameter before the last layer is frozen and the last layer's stay trainable, so that the
# next training step, exactly
#
# ```python
# F.mse_loss(model(x), y).backward()
# sgd_step(model, lr)  # section 5
# ```
#
# changes no entry of `model.state_dict()` outside the last layer, and still trains the
# last layer. Dropout keeps working as it does in training. Return the number of trainable
# parameter *elements* as an `int`.

# %% solution 03_modules-freeze
def freeze_all_but_last(model):
    ### BEGIN SOLUTION
    for p in model[:-1].parameters():
        p.requires_grad_(False)
        p.grad = None  # a frozen parameter keeps its last gradient, and sgd_step would apply it
    for module in model[:-1].modules():
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
            module.eval()  # in training mode every forward pass moves its running statistics
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
    ### END SOLUTION

# %% test 03_modules-freeze-test points=2
_answered = (freeze_all_but_last,)


def _has_trained(model, d_in, d_out):
    """The model as a training run leaves it: training mode, .grad from the last backward."""
    model.train()
    F.mse_loss(model(torch.randn(16, d_in)), torch.randn(16, d_out)).backward()
    return model


def _changes_of_one_step(model, d_in, d_out):
    """The state_dict entries that one training step (the task's two lines) changes."""
    before = {k: v.clone() for k, v in model.state_dict().items()}
    F.mse_loss(model(torch.randn(16, d_in)), torch.randn(16, d_out)).backward()
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p -= 0.1 * p.grad
    return sorted(k for k, v in model.state_dict().items() if not torch.equal(before[k], v))


torch.manual_seed(12)
_seq = _has_trained(nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Dropout(0.2),
                                  nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 3)), 6, 3)
with checks.explain_errors({}, "freeze_all_but_last(model)"):
    _n = freeze_all_but_last(_seq)
_flags = {name: p.requires_grad for name, p in _seq.named_parameters()}
checks.expect_true(not all(_flags.values()),
                   "[mc:freeze.module-attribute] Every parameter still requires grad. Freezing "
                   "is a flag on each parameter: call requires_grad_(False) on the module or "
                   "set p.requires_grad = False on each parameter. module.requires_grad = False "
                   "only adds an attribute, and eval() and torch.no_grad() leave the flags as "
                   "they are.")
checks.expect_true(_flags["6.weight"] and _flags["6.bias"],
                   "[mc:freeze.last-frozen] The last layer's weight and bias must stay "
                   "trainable: it is the part that is fine-tuned.")
checks.expect_true(not any(v for k, v in _flags.items() if k.startswith(("0.", "4."))),
                   "[mc:freeze.partial] Some parameters before the last layer still train: "
                   "freeze every layer's weight and bias, not only the first.")
checks.expect_true(not _flags["1.weight"] and not _flags["1.bias"],
                   "[mc:freeze.partial] Batch norm's weight and bias are parameters too: every "
                   "parameter before the last layer is frozen, whatever layer holds it.")
_params = set(_flags)
_changed = _changes_of_one_step(_seq, 6, 3)
_moved = [k for k in _changed if k in _params and not k.startswith("6.")]
checks.expect_true(not _moved,
                   f"[mc:freeze.stale-grad] The training step changed the frozen {', '.join(_moved)}. "
                   "requires_grad=False stops new gradients, but a frozen parameter still holds "
                   "the .grad of the last backward pass, and sgd_step applies every .grad it "
                   "finds: clear them (p.grad = None).")
_buffers = [k for k in _changed if k not in _params]
checks.expect_true(not _buffers,
                   f"[mc:freeze.buffers-move] The training step changed {', '.join(_buffers)}: "
                   "batch norm's running statistics are buffers, which requires_grad does not "
                   "reach; in training mode every forward pass updates them, frozen or not. "
                   "Keep them as they are, as section 5's fine-tuning example does.")
checks.expect_true("6.weight" in _changed,
                   "[mc:freeze.last-frozen] The training step did not change the last layer: "
                   "it must still train.")
### BEGIN HIDDEN TESTS
with checks.because("[mc:freeze.count] Return the number of elements of the trainable "
                    "parameters (sum of p.numel()), as an int."):
    checks.expect_type(_n, int, "freeze_all_but_last(model)")
    checks.expect_equal(_n, 4 * 3 + 3, "freeze_all_but_last(model)")
checks.expect_true(_seq[3].training,
                   "[mc:freeze.mode-changed] The dropout layer is in evaluation mode: fine-tuning "
                   "still uses dropout. Only batch norm's statistics must stop moving.")
_bn_seq = _has_trained(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(),
                                     nn.Linear(4, 2)), 3, 2)
freeze_all_but_last(_bn_seq)
checks.expect_true(not _bn_seq[1].weight.requires_grad and not _bn_seq[1].bias.requires_grad,
                   "[mc:freeze.partial] Batch norm's weight and bias are parameters too: every "
                   "parameter before the last layer is frozen, whatever layer holds it.")
_nested = _has_trained(nn.Sequential(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU()),
                                     nn.Dropout(0.1), nn.Linear(4, 2)), 3, 2)
with checks.explain_errors({}, "freeze_all_but_last(a model with a nested batch norm)"):
    freeze_all_but_last(_nested)
_nested_params = {name for name, _ in _nested.named_parameters()}
_nested_changed = [k for k in _changes_of_one_step(_nested, 3, 2) if k not in _nested_params]
checks.expect_true(not _nested_changed,
                   f"[mc:freeze.buffers-move] With the batch norm inside a nested Sequential the "
                   f"step changed {', '.join(_nested_changed)}: every batch norm before the last "
                   "layer, at any depth, must keep its statistics.")
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
# ### Exercise 8: a gated linear layer (3 points)
#
# Write `GatedLinear(d_in, d_out)` with four `nn.Parameter` attributes: `weight_value` and
# `weight_gate` of shape (d_out, d_in), `bias_value` and `bias_gate` of shape (d_out,),
# and a `forward` computing the formula above. Initialise the weights with random values of
# standard deviation 1/√d_in (e.g. `torch.randn(d_out, d_in) / d_in ** 0.5`) and the biases
# with zeros.

# %% solution 03_modules-gated
class GatedLinear(nn.Module):
    def __init__(self, d_in, d_out):
        ### BEGIN SOLUTION
        super().__init__()
        self.weight_value = nn.Parameter(torch.randn(d_out, d_in) / d_in ** 0.5)
        self.bias_value = nn.Parameter(torch.zeros(d_out))
        self.weight_gate = nn.Parameter(torch.randn(d_out, d_in) / d_in ** 0.5)
        self.bias_gate = nn.Parameter(torch.zeros(d_out))
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
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
_plain = sorted(n for n in _wanted - _names if isinstance(getattr(_glu, n, None), torch.Tensor)
                and not isinstance(getattr(_glu, n), nn.Parameter))
checks.expect_true(not _plain,
                   f"[mc:modules.plain-tensor] {', '.join(_plain)}: a plain tensor, not a "
                   "Parameter. An operation on a Parameter (nn.Parameter(w) / d_in ** 0.5) "
                   "returns an ordinary tensor: compute the values first, then wrap them in "
                   "nn.Parameter(...).")
_shared = sorted(n for n in _wanted - _names if isinstance(getattr(_glu, n, None), nn.Parameter))
checks.expect_true(not _shared,
                   f"[mc:gated.names] {', '.join(_shared)}: the same Parameter object as another "
                   "attribute, so named_parameters() lists it once. The value and the gate each "
                   "need their own weights and biases.")
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
_wide_glu = GatedLinear(400, 300)
_stds = [_wide_glu.weight_value.std().item() * 20, _wide_glu.weight_gate.std().item() * 20]
checks.expect_true(all(0.9 < s < 1.1 for s in _stds),
                   f"[mc:gated.init-scale] In GatedLinear(400, 300) the weights' standard "
                   f"deviations are {_stds[0]:.3g}/√400 and {_stds[1]:.3g}/√400: draw them "
                   "with standard deviation 1/√d_in, as the task says.")
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
    checks.expect_equal(float(_glu.bias_value.detach().abs().sum()), 0.0, "bias_value at init")
_means = [_wide_glu.weight_value.mean().item(), _wide_glu.weight_gate.mean().item()]
checks.expect_true(all(abs(m) < 0.01 for m in _means),
                   "[mc:gated.init-scale] The weights' random values are centred on 0.")
_small = GatedLinear(9, 4000)
checks.expect_true(0.9 < _small.weight_value.std().item() * 3 < 1.1,
                   "[mc:gated.init-scale] The scale follows d_in (1/√9 for GatedLinear(9, 4000)), "
                   "not d_out.")
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


class _Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(6, 6)
        self.act = nn.Tanh()
        self.outer = nn.Linear(6, 2)

    def forward(self, x):
        return self.outer(self.act(self.inner(x)) * x)


torch.manual_seed(14)
_res = _Gated()
_x = torch.randn(8, 6) + 1
_res(torch.randn(3, 6)).sum().backward()  # the gradients a training step left behind
_grads_before = {name: p.grad.clone() for name, p in _res.named_parameters()}
_no_graph = ("[mc:hooks.no-graph] The pass recorded no graph: a gradient needs one, so do not "
             "run the model under torch.no_grad().")
_hooks_errors = {
    "element 0 of tensors": _no_graph, "retain_grad": _no_graph,
    "differentiated Tensors": "[mc:hooks.detached] A tensor the hooks kept is not on the path "
    "from the children's outputs to L (a detached copy?): keep the output itself.",
}
with checks.explain_errors(_hooks_errors, "output_grad_rms(model, x)"):
    _rms = output_grad_rms(_res, _x)
checks.expect_type(_rms, dict, "output_grad_rms(model, x)")
checks.expect_true(set(_rms) != {"outer"},
                   "[mc:hooks.late-binding] Only the last child's name is in the dict: a hook "
                   "defined in a loop reads the loop variable when it runs, after the loop "
                   "ended. Bind the name when the hook is made (def hook(..., name=name)).")
checks.expect_true(set(_rms) == {"inner", "act", "outer"},
                   f"[mc:hooks.names] The keys are {sorted(_rms)}: use the names from "
                   "model.named_children() (here inner, act, outer).")
_left = sum(len(m._forward_hooks) for m in _res.modules())
checks.expect_true(_left == 0,
                   f"[mc:hooks.handle-left] {_left} forward hook(s) are still registered: keep "
                   "the handles register_forward_hook returns and call handle.remove() on each.")
_kinds = sorted({type(v).__name__ for v in _rms.values()})
checks.expect_true(_kinds == ["float"],
                   f"[mc:hooks.tensor-not-float] The values are of type {', '.join(_kinds)}: a "
                   "0-d tensor is not a Python float (and keeps its graph alive); use .item().")
_changed = [name for name, p in _res.named_parameters()
            if p.grad is None or not torch.equal(p.grad, _grads_before[name])]
checks.expect_true(not _changed,
                   f"[mc:hooks.param-grads-left] The .grad of {', '.join(_changed)} changed: "
                   "backward() adds into every parameter's .grad, and the training step that "
                   "follows would use the sum. Ask autograd for the gradients you need instead "
                   "(02), or put the .grad back as it was.")
checks.reject_close(_rms["outer"], {4.0: "[mc:hooks.norm-not-rms] That is the norm "
                    "√(sum of squares); the root mean square divides by the number of entries "
                    "before the square root."}, "the value for 'outer'")
with torch.no_grad():
    _replayed = (torch.ones(8, 2) @ _res.outer.weight).pow(2).mean().sqrt().item()
checks.reject_close(_rms["act"], {_replayed: "[mc:hooks.replay-children] That is what act "
                    "gets when the children run one after another; forward multiplies by x "
                    "first. Hooks see what forward really computes."}, "the value for 'act'")
### BEGIN HIDDEN TESTS
with torch.no_grad():
    _h = _res.act(_res.inner(_x))
    _g_act = (torch.ones(8, 2) @ _res.outer.weight) * _x
    _true = {"outer": 1.0, "act": _g_act.pow(2).mean().sqrt().item(),
             "inner": (_g_act * (1 - _h ** 2)).pow(2).mean().sqrt().item()}
for _k, _v in _true.items():
    checks.expect_close(_rms[_k], _v, f"the value for {_k!r}", rtol=1e-4,
                        hint="[mc:hooks.wrong-tensor] For each child, the gradient of L with "
                             "respect to that child's output in this pass (a forward hook's "
                             "third argument), as √(mean of squares).")
_seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
with checks.explain_errors(_hooks_errors, "output_grad_rms(a model that has no .grad yet, x)"):
    _seq_rms = output_grad_rms(_seq, torch.randn(5, 3))
checks.expect_true(all(p.grad is None for p in _seq.parameters()),
                   "[mc:hooks.param-grads-left] A model with no gradients must be left with none.")
checks.expect_true(sum(len(m._forward_hooks) for m in _seq.modules()) == 0,
                   "[mc:hooks.handle-left] Remove every hook before returning.")
checks.expect_close(_seq_rms.get("2"), 1.0, "the value for the last layer of a Sequential",
                    hint="[mc:hooks.wrong-tensor] L is the sum of the output, so ∂L/∂(last "
                         "output) is all ones.")
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
# The explorer builds a deep MLP of width 64 (Linear then activation, repeated), sends 256
# random inputs through it and reads every activation's output with forward hooks. Then it
# sends the same fixed random gradient back from the last layer (the same in every setting,
# a stand-in for a loss's gradient) and shows, per layer, the gradient that reaches the
# activation's output (∂L/∂a, grey) and the gradient of the Linear weights just before it
# (∂L/∂W, purple: what an optimizer would use), as root mean squares on a log axis. It
# offers two initialisations: weights normal with std scale/√fan_in and biases 0, or
# `nn.Linear`'s own default with the weights then multiplied by scale.
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
_run = helpers.activations.run(depth=6, activation="ReLU", init_scale=1.0)
with checks.because("[mc:init.relu-preserves] Compare the std of layer 1 and layer 6 in the "
                    "explorer."):
    checks.expect_equal(answer_relu_depth, "smaller" if _run.layers[-1].std < 0.8 * _run.layers[0].std
                        else "larger" if _run.layers[-1].std > 1.25 * _run.layers[0].std
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
_run = helpers.activations.run(depth=6, activation="ReLU", init_scale=1.0)
_ratio = _run.layers[0].grad_rms / _run.layers[-1].grad_rms
with checks.because("[mc:init.grad-preserved] Compare the grey bars of layer 1 and layer 6."):
    checks.expect_equal(answer_grad_depth, "smaller" if _ratio < 0.8 else "larger" if _ratio > 1.25
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
# ### Exercise 10: Kaiming initialisation for a whole model (2 points)
#
# Write `kaiming_init_(model)` that re-initialises every `nn.Linear` inside `model`, at any
# depth, with weights of standard deviation √(2/fan_in) centred on 0 (fan_in: the layer's
# input width) and biases 0; leaves every other module's parameters and buffers as they
# were; and returns `model`.

# %% solution 03_modules-init-relu
def kaiming_init_(model):
    ### BEGIN SOLUTION
    def init(module):
        if isinstance(module, nn.Linear):
            nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            if module.bias is not None:
                nn.init.zeros_(module.bias)
    return model.apply(init)
    ### END SOLUTION

# %% test 03_modules-init-relu-test points=2
_answered = (kaiming_init_,)
torch.manual_seed(17)
_inner = nn.Sequential(nn.Linear(300, 200), nn.ReLU(), nn.BatchNorm1d(200))
_model = nn.Sequential(nn.Linear(500, 300), nn.ReLU(), _inner, nn.Linear(200, 2000))
with torch.no_grad():
    _inner[2].weight.fill_(0.5)
    _inner[2].running_mean.fill_(3.0)
_kept = {k: v.clone() for k, v in _model.state_dict().items() if k.startswith("2.2.")}
_nested_before = _inner[0].weight.detach().clone()
with checks.explain_errors({"leaf Variable": "[mc:init.in-place-grad] Refill a parameter under "
                            "torch.no_grad(), or with nn.init's functions (they do it for you).",
                            "fewer than 2 dimensions": "[mc:init.other-modules] Batch norm has a "
                            "weight too, one number per feature: re-initialise the nn.Linear "
                            "layers only."},
                           "kaiming_init_(model)"):
    _ret = kaiming_init_(_model)
checks.expect_true(_ret is _model, "[mc:init.return] Return the model you were given (apply "
                   "returns it too).")
checks.expect_true(not torch.equal(_inner[0].weight, _nested_before),
                   "[mc:init.nested] The Linear inside the inner Sequential kept its old weights: "
                   "model.apply(fn) visits every submodule at every depth, a loop over "
                   "model.children() only the top level.")
for _name, _lin in (("layer 0 (fan_in 500)", _model[0]), ("layer 2.0 (fan_in 300)", _inner[0]),
                    ("layer 3 (fan_in 200)", _model[3])):
    _std = _lin.weight.std().item()
    _rel = _std / (2 / _lin.in_features) ** 0.5
    checks.expect_true(0.9 < _rel < 1.1 or not 0.64 < _rel < 0.78,
                       f"[mc:init.relu-gain] In {_name} the weights' std is {_rel:.2f} × √(2/fan_in), "
                       "close to 1/√fan_in: Kaiming's initialisation for ReLU doubles that "
                       "variance, std √(2/fan_in).")
    checks.expect_true(0.9 < _rel < 1.1 or not 0.9 < _std / (2 / _lin.out_features) ** 0.5 < 1.1,
                       f"[mc:init.fan-out] In {_name} the std is √(2/fan_out): fan_in is the "
                       "layer's input width, in_features (nn.init's default mode='fan_in').")
    checks.expect_true(0.9 < _rel < 1.1 or not 0.9 < _std / (2 / _lin.in_features) < 1.1,
                       f"[mc:init.variance-as-std] In {_name} the weights' std is 2/fan_in: that "
                       "is the variance Kaiming's initialisation asks for, and the std is its "
                       "square root, √(2/fan_in).")
    checks.expect_true(0.9 < _rel < 1.1, f"[mc:init.relu-gain] In {_name} the weights' std is "
                       f"{_rel:.2f} × √(2/fan_in), not √(2/fan_in).")
    checks.expect_true(not _lin.bias.detach().any(), f"[mc:init.bias] The biases of {_name} are "
                       "not all 0: set them with nn.init.zeros_.")
checks.expect_true(all(torch.equal(_model.state_dict()[k], v) for k, v in _kept.items()),
                   "[mc:init.other-modules] The batch norm's weight or running statistics "
                   "changed: re-initialise the Linear layers only.")
### BEGIN HIDDEN TESTS
checks.expect_true(all(abs(m.weight.mean().item()) < 0.01 for m in (_model[0], _inner[0], _model[3])),
                   "[mc:init.relu-gain] The weights are centred on 0.")
_alone = nn.Linear(400, 100)
with checks.explain_errors({}, "kaiming_init_(nn.Linear(400, 100))"):
    kaiming_init_(_alone)
checks.expect_true(0.9 < _alone.weight.std().item() / (2 / 400) ** 0.5 < 1.1
                   and not _alone.bias.detach().any(),
                   "[mc:init.nested] A model that is itself one nn.Linear must be re-initialised "
                   "too: apply visits the module itself, after its children.")
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
# | `strict=False` to make a load "work" | a missing layer keeps its random start (section 6) | strict loading; read `missing_keys` |
# | `torch.load` of someone else's file with `weights_only=False` | the file runs code while it loads (section 6) | `weights_only=True`; allow-list your own classes |
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
#   through `register_buffer` (saved unless `persistent=False`). Plain tensors and Python
#   lists of layers are invisible to `parameters()`, `state_dict()` and `.to(...)`.
# - `module.to(...)` converts the module in place (a dtype reaches its floating-point
#   tensors only); `tensor.to(...)` returns a new tensor.
# - `nn.Linear(d_in, d_out)` stores its weight as (d_out, d_in), computes x Wᵀ + b on the
#   last dimension of any input and has d_out·(d_in + 1) parameters: 784 → 128 → 10 has
#   101,770.
# - `train()`/`eval()` switch dropout and batch norm, one flag per submodule, and a helper
#   that changes them restores each one; `torch.no_grad()` and `torch.inference_mode()`
#   stop the graph; `requires_grad_(False)` freezes. They are different switches.
# - Save `state_dict()`; load it with `weights_only=True` (allow-list your own classes),
#   strictly, with `map_location` when the devices differ.
# - A custom layer declares its Parameters in `__init__`; forward hooks read what a running
#   model computes, and their handles must be removed.
# - An initialisation sets how a signal's spread changes from layer to layer, forward and
#   back: std √2/√fan_in keeps a ReLU stack level, and `nn.Linear`'s default does not.
#
# **Next:** 04_training_loop puts a module, a loss and an optimizer into the five steps of
# a training loop.
#
# **Closing note.** Measured on the machine that ran this page (the median of three updates
# of each instrument, model + draw, as `benchmarks/instruments.py` measures them; fresh
# instruments, timed here and not displayed):

# %%
make_inspector = helpers.modules.explore
make_activations = helpers.activations.explore
for label, make in [("module inspector", lambda: make_inspector(inspector_models)),
                    ("activation explorer, depth 6", lambda: make_activations(depth=6)),
                    ("activation explorer, depth 12", lambda: make_activations(depth=12))]:
    print(f"{label}: median update (model + draw) "
          f"{helpers.update_time.median_update_ms(make()):.0f} ms")
print(f"this notebook ran top to bottom in {time.perf_counter() - notebook_start:.1f} s")
