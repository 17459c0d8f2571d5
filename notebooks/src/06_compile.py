# %% [markdown]
# # 06 Compile: where time goes, torch.compile, and speedups measured
#
# Everything so far ran **eagerly**: each line of Python called one PyTorch operation,
# which ran at once and returned a tensor. That is what makes PyTorch easy to debug, and
# it has costs: every operation is a separate trip through Python, and every elementwise
# operation a separate pass over memory. `torch.compile` captures your Python code as a
# graph and generates fused code for it. Whether that pays off depends on *what limits*
# the code: a fixed cost per call, moving bytes, or arithmetic. This notebook names those
# three regimes first and measures everything else against them, on the machine you are
# using: nothing is claimed that a cell does not measure.
#
# **You will learn to**
# - tell whether an operation is overhead-, memory- or compute-bound, and which remedy fits;
# - tell define-by-run from define-and-run, and see why data-dependent control flow needs
#   the first;
# - say what Dynamo captures and what Inductor generates; find graph breaks (`TORCH_LOGS`,
#   `fullgraph=True`) and remove them without the `torch.where` gradient trap;
# - predict and count recompilations (guards, dynamic shapes), and keep their number bounded;
# - time code correctly (warm-up, synchronisation, repeats) and read compile time, cache
#   hits and steady state apart;
# - compile a training step (forward and backward) and place a measurement on a roofline.
#
# **Prerequisites:** notebooks 01 (tensors, dtypes), 02 (the graph autograd records) and
# 04 (the training loop). No GPU is needed: GPU cells say when they were skipped.
#
# **How this notebook works.** Quick quizzes ask you to *predict* before a cell shows the
# answer; numbered exercises (points in the heading) are graded. Run the test cell under an
# answer: when it fails, its message says what you probably believed and what to check.
#
# **Public and internal API.** `torch.compile` (with its `backend`, `fullgraph`, `dynamic`
# and `mode` arguments), `torch.compiler.reset()`, `torch.compiler.set_stance` and the
# `TORCH_LOGS` environment variable are public. Names with an underscore
# (`torch._dynamo.explain`, `torch._logging.set_logs`, `torch._dynamo.utils.counters`) are
# internal: useful, but they may change between versions. Each is marked where it appears.

# %%
import contextlib
import copy
import io
import math
import statistics
import time

import torch
import torch.fx
import torch.nn.functional as F
from IPython.display import display
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

import helpers.bench
import helpers.capture
import helpers.roofline
from helpers import checks, torch_log
from helpers.capture import Recorder

NOTEBOOK_STARTED = time.perf_counter()
torch.manual_seed(0)
# Every timing below uses one CPU thread: on a machine shared with other programs, a
# second thread often waits for a core, and that waiting would be most of what we measure.
torch.set_num_threads(1)
helpers.bench.compile_setup()   # two internal Inductor settings for a busy 2-core machine
print("torch", torch.__version__, "on", helpers.bench.describe_device()["name"])

# %% [markdown]
# ## 1. Where time goes: three regimes
#
# Every call of an operation pays for three things, and the largest of the three sets its
# time:
#
# - **overhead**: a fixed cost per call: Python, PyTorch's dispatcher choosing a kernel,
#   allocating the result, and on a GPU launching the kernel. It is the same for a tensor
#   of 10 elements as for one of 1,000.
# - **memory**: the bytes the operation must read and write, divided by the memory
#   bandwidth (bytes per second).
# - **compute**: the floating-point operations (FLOPs) it performs, divided by the FLOP/s
#   the hardware reaches.
#
# An operation is **overhead-bound**, **memory-bound** or **compute-bound** after the one
# that dominates. The three numbers of this machine, measured now, each the fastest of its
# repeats (a bound says what the machine *can* do; other programs only ever slow a repeat
# down): the time of `t.add_(1)` on a one-element tensor, the bandwidth of a copy too large
# for the CPU's caches, and the FLOP/s of a 256×256 matmul. They are measurements, not the
# datasheet peak of the processor: a better kernel or more threads can go faster.

# %%
here = helpers.bench.machine_roof()
print(f"overhead: {here.overhead_s * 1e6:6.2f} µs per eager call")
print(f"memory:   {here.bytes_per_s / 1e9:6.1f} GB/s")
print(f"compute:  {here.flops / 1e9:6.1f} GFLOP/s")

# %% [markdown]
# **Quick quiz.** `x.add_(1)` adds 1 to every element of a float32 tensor `x`, in place.
# On this machine, which of the three costs is largest when `x` has 100 elements, and
# which when it has 10,000,000? Set `answer_regimes` to a pair of words, each one of
# `"overhead"`, `"memory"`, `"compute"`: `(for 100 elements, for 10,000,000 elements)`.

# %% solution 06_compile-quiz-regime
### BEGIN SOLUTION
answer_regimes = ("overhead", "memory")
### END SOLUTION

# %% test 06_compile-quiz-regime-test points=1
with checks.because("[mc:regime.answer-form] Answer with a pair of words, each 'overhead', "
                    "'memory' or 'compute'."):
    checks.expect_true(isinstance(answer_regimes, (tuple, list)) and len(answer_regimes) == 2
                       and all(a in helpers.roofline.REGIMES for a in answer_regimes),
                       f"answer_regimes is {answer_regimes!r}, not a pair of those words.")
checks.answer("06_compile-quiz-regime", tuple(answer_regimes), "answer_regimes")
### BEGIN HIDDEN TESTS
_truth = tuple(helpers.roofline.regime(helpers.roofline.elementwise_cost(n, 1), here)
               for n in (100, 10_000_000))
checks.expect_true(tuple(answer_regimes) == _truth,
                   "[mc:regime.no-overhead] Compare each size's three costs with the numbers "
                   "above: x.add_(1) reads and writes 4 bytes per element and does 1 FLOP per "
                   "element, and every call pays the fixed overhead.")
### END HIDDEN TESTS

# %% wrong 06_compile-quiz-regime
{
    ("memory", "memory"): "[mc:regime.no-overhead] Every call also pays a fixed cost, however "
                          "small its tensor: set 100 elements' bytes ÷ bandwidth beside the "
                          "fixed cost of a call measured above.",
    ("compute", "memory"): "[mc:regime.no-overhead] Every call also pays a fixed cost, however "
                           "small its tensor: set 100 additions at the FLOP/s above beside the "
                           "fixed cost of a call measured above.",
    ("overhead", "compute"): "[mc:regime.big-is-compute] Size alone does not make an operation "
                             "compute-bound: for 10,000,000 elements, set FLOPs ÷ FLOP/s beside "
                             "bytes ÷ bandwidth (x.add_(1) reads and writes 4 bytes per element "
                             "and does 1 FLOP).",
    ("compute", "compute"): "[mc:regime.big-is-compute] Size alone does not make an operation "
                            "compute-bound: at each size, set FLOPs ÷ FLOP/s beside bytes ÷ "
                            "bandwidth and the fixed cost of a call.",
    ("memory", "compute"): "[mc:regime.big-is-compute] Size alone does not make an operation "
                           "compute-bound: at each size, set FLOPs ÷ FLOP/s beside bytes ÷ "
                           "bandwidth and the fixed cost of a call.",
    ("overhead", "overhead"): "[mc:regime.overhead-always] The fixed cost stays the same while "
                              "the bytes grow with the tensor: work out how long 10,000,000 "
                              "elements' reads and writes take at the bandwidth above.",
}

# %% [markdown]
# The cell times `x.add_(1)` at seven sizes and draws it beside the three bounds (dashed):
# the flat overhead, bytes ÷ bandwidth (4 bytes read and 4 written per element), and
# FLOPs ÷ FLOP/s (1 FLOP per element).

# %%
adds = helpers.bench.add_sweep()
for size, seconds, bound in adds.rows():
    print(f"{size:>12,} elements: {seconds * 1e6:9.1f} µs per call; largest bound: {bound}")
helpers.bench.picture(helpers.bench.draw_add_sweep(adds))

# %% [markdown]
# Compare the measured line with the dashed ones: flat while the fixed cost dominates,
# rising with the size once the bytes take longer, and never near the compute bound (1
# FLOP per 8 bytes). Where it runs *under* the memory line, the tensor stayed in the
# CPU's caches between calls, which are faster than the main memory the copy measured.
#
# The regime says which remedy can help:
#
# | regime | what limits it | remedies shown in this notebook |
# |---|---|---|
# | overhead-bound | calls, not data | fewer, larger calls: fusing ops into one kernel (§7); CUDA graphs, `mode="reduce-overhead"` (§8) |
# | memory-bound | bytes moved | fusing a chain of elementwise ops so the data makes one trip instead of many (§7) |
# | compute-bound | FLOPs | faster arithmetic (tensor cores, 16-bit formats, §10); compiling does not remove FLOPs |
#
# ## 2. Define-by-run and define-and-run
#
# PyTorch is **define-by-run**: the graph autograd uses (notebook 02) is recorded while
# the code runs, so ordinary Python decides what happens. Here the number of halvings
# depends on the *values* in `x`, and so does the recorded graph:

# %%
def shrink(x):
    """Halve x until every entry lies within [-1, 1]."""
    while x.abs().max() > 1:
        x = x / 2
    return x


for peak in (0.5, 3.0, 100.0):
    x = torch.tensor([peak, -0.25], requires_grad=True)
    out = shrink(x)
    node, divisions = out.grad_fn, 0
    while node is not None and node.name() == "DivBackward0":
        divisions += 1
        node = node.next_functions[0][0]
    print(f"peak {peak:>5}: {divisions} divisions recorded, result {out.detach().tolist()}")

# %% [markdown]
# A **define-and-run** system (TensorFlow 1's graphs, and `torch.fx.symbolic_trace`)
# first builds a graph from symbolic placeholders that have no values, then runs that
# graph on data. It can optimise the whole graph before running it, but a branch on a
# value cannot be decided while tracing:

# %%
with checks.expect_error(torch.fx.proxy.TraceError):
    torch.fx.symbolic_trace(shrink)

# %% [markdown]
# A function without data-dependent control flow traces into a graph whose generated
# code you can read:

# %%
def scaled_relu(x, w):
    return torch.relu(x @ w) * 2.0


print(torch.fx.symbolic_trace(scaled_relu).code)

# %% [markdown]
# ## 3. torch.compile: Dynamo captures, a backend compiles
#
# `torch.compile(fn)` returns a wrapper. On a call, **Dynamo** reads the Python bytecode
# of `fn` as it is about to run with these inputs and records the tensor operations into
# an FX graph, like the one above. It hands the graph to a **backend**:
#
# - `"inductor"` (the default) generates code: C++ with OpenMP on a CPU, Triton kernels
#   on a GPU, with chains of elementwise ops fused into single loops;
# - `"eager"` runs the captured graph with ordinary PyTorch ops (no code generation): it
#   costs only Dynamo's capture, which is why most cells here use it;
# - any function `backend(graph_module, example_inputs)` that returns a callable, for
#   example one that keeps the graph so that we can look at it.
#
# Dynamo also records **guards**: the conditions under which the captured graph is valid
# (the shapes, dtypes and devices of the input tensors, and the Python values the code
# used, such as a string it branched on or a number in a formula). The next call checks
# the guards; if they all hold, the cached code runs, otherwise Dynamo captures again (a
# **recompilation**).

# %%
graphs = []


def record(graph_module, example_inputs):
    graphs.append(graph_module)
    return graph_module.forward   # run the captured graph as it is


compiled_relu = torch.compile(scaled_relu, backend=record)
compiled_relu(torch.randn(4, 3), torch.randn(3, 2))
print(f"{len(graphs)} graph captured:")
print(graphs[0].code)

# %% [markdown]
# `helpers.capture.Recorder` is the same kind of backend, with a count: `Recorder()` keeps
# every graph it is given (`.graphs`, `.count`, operations per graph in `.ops`).
#
# ## 4. Graph breaks, found and removed
#
# A graph holds tensor operations. Where Dynamo meets code it cannot record as one (a
# `print`, a Python branch on a tensor's value, a call into a library it does not
# understand) it stops, lets Python run that code as usual, and resumes capturing
# after it: a **graph break**.
#
# **Quick quiz.** How many graphs does Dynamo capture from this function? Put a whole
# number in `answer_graphs`.
#
# ```python
# def chatty(x):
#     print("start")
#     y = torch.sin(x) * 2
#     print("halfway")
#     return torch.cos(y) + 1
# ```

# %% solution 06_compile-quiz-graphs
### BEGIN SOLUTION
answer_graphs = 2
### END SOLUTION

# %% test 06_compile-quiz-graphs-test points=1
with checks.because("[mc:compile.quiz-type] The answer is a count, a whole number."):
    checks.answer("06_compile-quiz-graphs", answer_graphs, "answer_graphs", kind=int)
### BEGIN HIDDEN TESTS
def _chatty(x):
    print("start")
    y = torch.sin(x) * 2
    print("halfway")
    return torch.cos(y) + 1


_seen = Recorder()
with contextlib.redirect_stdout(io.StringIO()):   # its prints are not the test's output
    torch.compile(_chatty, backend=_seen)(torch.ones(3))
checks.expect_true(answer_graphs == _seen.count,
                   "[mc:compile.empty-graph] A graph holds the tensor operations between two "
                   "breaks; a stretch with none makes no graph.")
### END HIDDEN TESTS

# %% wrong 06_compile-quiz-graphs
{
    1: "[mc:compile.print-in-graph] A print is not a tensor operation: Dynamo cannot record "
       "it in a graph, so it splits the function around it.",
    3: "[mc:compile.empty-graph] A graph holds tensor operations: look at what each stretch "
       "between the breaks contains.",
    4: "[mc:compile.break-is-graph] A print runs as ordinary Python between the graphs; it "
       "is not a graph of its own.",
    5: "[mc:compile.break-is-graph] A print runs as ordinary Python between the graphs; it "
       "is not a graph of its own.",
}

# %% [markdown]
# The cell compiles `chatty` with a `Recorder` and prints Dynamo's graph-break log.
# `TORCH_LOGS="graph_breaks"` in the environment turns that log on for a whole program;
# `torch_log.shown(graph_breaks=True, brief=True)` turns it on for one block and prints
# where and why each break happened as plain output (it calls the documented but internal
# `torch._logging.set_logs`).

# %%
def chatty(x):
    print("start")
    y = torch.sin(x) * 2
    print("halfway")
    return torch.cos(y) + 1


seen = Recorder()
with torch_log.shown(graph_breaks=True, brief=True):
    torch.compile(chatty, backend=seen)(torch.ones(3))
print(f"{seen.count} graphs, with {seen.ops} operations")

# %% [markdown]
# Compare with your answer: two breaks, one per `print`, but the stretch before the
# first `print` has no tensor operation, so it makes no graph.
#
# A break costs a trip back to Python and splits the work that could have been fused.
# `fullgraph=True` turns a break into an error, so that you hear about it:

# %%
with checks.expect_error(Exception):
    torch.compile(chatty, backend="eager", fullgraph=True)(torch.ones(3))

# %% [markdown]
# Data-dependent control flow is the common cause in real code. `normalise` scales `x`
# so that its largest magnitude is 1, unless it is already within [-1, 1]. The `if`
# needs the *value* of `peak > 1` as a Python bool, which does not exist while tracing:

# %%
def normalise(x):
    peak = x.abs().max()
    if peak > 1:
        return x / peak
    return x


with checks.expect_error(Exception):
    torch.compile(normalise, backend="eager", fullgraph=True)(torch.tensor([3.0, -6.0]))

# %% [markdown]
# One way out keeps the decision inside the graph as a tensor operation:
# `torch.where(condition, a, b)` computes both `a` and `b` and the condition picks, per
# element (or here for all elements at once, since the condition is one value). Now the
# whole function is one graph:

# %%
def normalise_where(x):
    peak = x.abs().max()
    return torch.where(peak > 1, x / peak, x)


compiled_normalise = torch.compile(normalise_where, backend="eager", fullgraph=True)
for sample in (torch.tensor([3.0, -6.0]), torch.tensor([0.5, -0.25])):
    print(sample.tolist(), "->", normalise(sample).tolist(), "and",
          compiled_normalise(sample).tolist())

# %% [markdown]
# `torch._dynamo.explain(fn)(*args)` (internal API) runs Dynamo once and reports the
# graphs and breaks without raising; `fullgraph=True` and the `graph_breaks` log are the
# public ways to the same facts. For the two versions:

# %%
for fn in (normalise, normalise_where):
    report = torch._dynamo.explain(fn)(torch.tensor([3.0, -6.0]))
    print(f"{fn.__name__}: graphs {report.graph_count}, graph breaks {report.graph_break_count}")

# %% [markdown]
# **Quick quiz.** Predict `x.grad[0]` after these lines: the gradient at x = −1, where the
# output is the constant 0. Put the value that `x.grad[0].item()` returns, a Python float,
# in `answer_where_grad`.
#
# ```python
# x = torch.tensor([-1.0, 4.0], requires_grad=True)
# y = torch.where(x > 0, torch.sqrt(x), 0.0)
# y.sum().backward()
# ```

# %% solution 06_compile-quiz-where
### BEGIN SOLUTION
answer_where_grad = float("nan")
### END SOLUTION

# %% test 06_compile-quiz-where-test points=1
with checks.because("[mc:compile.quiz-type] The answer is a number."):
    checks.answer("06_compile-quiz-where", answer_where_grad, "answer_where_grad",
                  kind=(int, float))
### BEGIN HIDDEN TESTS
_x = torch.tensor([-1.0, 4.0], requires_grad=True)
torch.where(_x > 0, torch.sqrt(_x), 0.0).sum().backward()
checks.expect_true(math.isnan(answer_where_grad) and math.isnan(_x.grad[0].item()),
                   "[mc:compile.where-masks-gradient] The backward pass runs through both "
                   "branches at every element: where sends 0 to the unpicked one, and sqrt's "
                   "backward divides it by 2·sqrt(-1), which is NaN.")
### END HIDDEN TESTS

# %% wrong 06_compile-quiz-where
{
    0: "[mc:compile.where-masks-gradient] The output there is a constant, but the backward "
       "pass differentiates both branches at every element and multiplies the unpicked "
       "one's gradient by 0. What is sqrt's derivative at -1, and what is 0 times it?",
    0.25: "[mc:compile.where-masks-gradient] 0.25 is the gradient at x = 4. At x = -1 the "
          "backward pass differentiates sqrt(x) too and multiplies that by 0: what is "
          "sqrt's derivative at -1, and what is 0 times it?",
    -0.5: "[mc:compile.where-masks-gradient] sqrt has no real derivative at -1, and the "
          "backward pass computes it anyway before multiplying it by 0: what does float "
          "arithmetic give for it, and for 0 times it?",
    1e999: "[mc:compile.where-masks-gradient] inf is sqrt's derivative at 0. At -1 sqrt(x) "
           "itself has no real value: what does float arithmetic give for it, its derivative, "
           "and 0 times that?",
}

# %%
x = torch.tensor([-1.0, 4.0], requires_grad=True)
torch.where(x > 0, torch.sqrt(x), 0.0).sum().backward()
print("gradient with torch.where:         ", x.grad.tolist())

x = torch.tensor([-1.0, 4.0], requires_grad=True)
safe_input = torch.where(x > 0, x, 1.0)      # the unsafe branch never sees x <= 0
torch.where(x > 0, torch.sqrt(safe_input), 0.0).sum().backward()
print("gradient with the input masked too:", x.grad.tolist())

# %% [markdown]
# Compare the first line with your answer. The forward pass throws the unpicked values
# away, but the backward pass runs through both branches at every element: `where` sends
# a gradient of 0 to the branch it did not pick, and `sqrt`'s backward divides that 0 by
# 2·sqrt(x), which is NaN at x = −1 (and 0 at x = 0: 0 / 0 is NaN as well). The safe form
# masks the *input* of the unsafe branch too, so that branch computes something harmless
# (`sqrt(1.0)`) where its result is thrown away.
#
# ### Exercise 1: a norm clip that compiles whole and trains (2 points)
#
# *Misconception targeted: dropping a branch to remove an `if`; believing an `if` on
# `.item()` keeps the graph whole; believing a value the forward pass throws away cannot
# spoil the gradient.*
#
# `clip_norm(x, limit)` rescales `x` so that its Euclidean norm is at most `limit`, as
# gradient clipping does:
#
# ```python
# def clip_norm(x, limit):
#     norm = torch.linalg.vector_norm(x)
#     if norm > limit:
#         return x * (limit / norm)
#     return x
# ```
#
# Write `clip_norm_nobreak(x, limit)` that, for every float tensor `x` and positive float
# `limit`,
# - returns the same values as `clip_norm`;
# - compiles with `torch.compile(clip_norm_nobreak, fullgraph=True)`, that is, with no
#   graph break;
# - has the same gradient with respect to `x` as `clip_norm` wherever the norm differs from
#   `limit`, **including `x` = 0** (all zeros), where the norm is 0.

# %% solution 06_compile-graph-break
def clip_norm_nobreak(x, limit):
    ### BEGIN SOLUTION
    norm = torch.linalg.vector_norm(x)
    over = norm > limit
    safe_norm = torch.where(over, norm, limit)   # never 0 on the branch that is thrown away
    return torch.where(over, x * (limit / safe_norm), x)
    ### END SOLUTION

# %% test 06_compile-graph-break-test points=2
def _clip_norm(x, limit):
    norm = torch.linalg.vector_norm(x)
    if norm > limit:
        return x * (limit / norm)
    return x


def _gradient(fn, x, limit):
    x = x.clone().requires_grad_(True)
    (fn(x, limit) * torch.arange(1.0, x.numel() + 1).reshape(x.shape)).sum().backward()
    return x.grad


_big, _small = torch.tensor([3.0, 4.0]), torch.tensor([0.6, 0.8])   # norms 5 and 1
with checks.explain_errors({"": "[mc:compile.branch-dropped] Call it the way the test "
                                "does: clip_norm_nobreak(x, limit) with a float tensor x."},
                           "clip_norm_nobreak(x, 2.0)"):
    _got_big, _got_small = clip_norm_nobreak(_big, 2.0), clip_norm_nobreak(_small, 2.0)
checks.expect_close(_got_small, _clip_norm(_small, 2.0), "clip_norm_nobreak([0.6, 0.8], 2.0)",
                    hint="[mc:compile.branch-dropped] A norm already within the limit must "
                         "leave x unchanged: removing the if must keep both branches.")
checks.expect_true(not torch.allclose(_got_big, _big),
                   "clip_norm_nobreak([3.0, 4.0], 2.0) returned x unchanged. "
                   "[mc:compile.branch-dropped] A norm above the limit must be scaled down: "
                   "removing the if must keep both branches.")
checks.expect_close(_got_big, _clip_norm(_big, 2.0), "clip_norm_nobreak([3.0, 4.0], 2.0)",
                    hint="[mc:compile.clip-scale] Above the limit, clip_norm scales x so that "
                         "its Euclidean norm (torch.linalg.vector_norm) becomes the limit "
                         "itself.")
with checks.explain_errors({"": "[mc:compile.item-avoids-break] torch.compile(..., "
                                "fullgraph=True) stopped at a graph break: a Python if on a "
                                "tensor's value (also through .item()) needs a value Dynamo "
                                "does not have while tracing. Express the choice as tensor "
                                "operations."},
                           "torch.compile(clip_norm_nobreak, backend='eager', fullgraph=True)"):
    _whole = torch.compile(clip_norm_nobreak, backend="eager", fullgraph=True)
    _compiled_big = _whole(_big, 2.0)
checks.expect_close(_compiled_big, _clip_norm(_big, 2.0), "the compiled clip_norm_nobreak",
                    hint="[mc:compile.branch-dropped] Compiling must not change the values.")
_at_zero = _gradient(clip_norm_nobreak, torch.zeros(4), 1.0)
checks.expect_true(bool(torch.isfinite(_at_zero).all()),
                   f"The gradient at x = 0 is {_at_zero.tolist()}. "
                   "[mc:compile.unused-branch-gradient] At x = 0 the norm is 0: the branch "
                   "you throw away divides by it, "
                   "and the backward pass still runs through that branch (its gradient times "
                   "0 is NaN when it is inf or NaN). Make sure the discarded branch never "
                   "divides by 0, for example by masking its input too.")
### BEGIN HIDDEN TESTS
torch.manual_seed(6)
with checks.explain_errors({"": "[mc:compile.branch-dropped] clip_norm_nobreak must accept "
                                "any float tensor and a positive float limit."},
                           "clip_norm_nobreak"):
    for _x in (torch.randn(7) * 5, torch.randn(3, 4) * 0.01, torch.zeros(4), torch.zeros(2, 3),
               torch.randn(5, dtype=torch.float64) * 3):
        for _limit in (0.5, 2.0):
            checks.expect_close(clip_norm_nobreak(_x, _limit), _clip_norm(_x, _limit),
                                f"clip_norm_nobreak(x of shape {tuple(_x.shape)}, {_limit})",
                                hint="[mc:compile.clip-scale] clip_norm_nobreak must "
                                     "return clip_norm's values: x unchanged within the "
                                     "limit, x scaled to a Euclidean norm of exactly limit "
                                     "above it.")
            checks.expect_close(_gradient(clip_norm_nobreak, _x, _limit),
                                _gradient(_clip_norm, _x, _limit),
                                f"the gradient of clip_norm_nobreak at x of shape "
                                f"{tuple(_x.shape)}, limit {_limit}",
                                hint="[mc:compile.unused-branch-gradient] The gradient must "
                                     "match clip_norm's, also where the norm is 0.")
with checks.explain_errors({"": "[mc:compile.item-avoids-break] clip_norm_nobreak must "
                                "compile with fullgraph=True for any shape."},
                           "the fullgraph compile on a 2-D tensor"):
    _whole(torch.randn(3, 3), 0.5)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Guards and recompilation, counted
#
# `torch.compiler.reset()` makes Dynamo forget every compiled graph and what it
# remembered about earlier calls, so that a count starts from zero. `dynamic=False` asks
# Dynamo to treat every shape as a constant: a new shape fails a guard and recompiles.
#
# **Quick quiz.** Predict `counter.count` after these six calls: how many graphs the
# backend has been handed, the first compile included. Put a whole number in
# `answer_recompiles`. (The cell after the quiz runs them.)
#
# ```python
# def scale(x, mode):
#     if mode == "double":
#         return x * 2
#     return x + 1
#
# torch.compiler.reset()
# counter = Recorder()
# fast = torch.compile(scale, backend=counter, dynamic=False)
# fast(torch.ones(3), "double")
# fast(torch.zeros(3), "double")
# fast(torch.ones(3), "add")
# fast(torch.ones(5), "add")
# fast(torch.ones(3, dtype=torch.float64), "add")
# fast(torch.ones(3), "double")
# ```

# %% solution 06_compile-quiz-recompiles
### BEGIN SOLUTION
answer_recompiles = 4
### END SOLUTION

# %% test 06_compile-quiz-recompiles-test points=1
with checks.because("[mc:compile.quiz-type] The answer is a count, a whole number."):
    checks.answer("06_compile-quiz-recompiles", answer_recompiles, "answer_recompiles", kind=int)
### BEGIN HIDDEN TESTS
def _scale(x, mode):
    if mode == "double":
        return x * 2
    return x + 1


_counter = Recorder()
_fast = torch.compile(_scale, backend=_counter, dynamic=False)
for _args in ((torch.ones(3), "double"), (torch.zeros(3), "double"), (torch.ones(3), "add"),
              (torch.ones(5), "add"), (torch.ones(3, dtype=torch.float64), "add"),
              (torch.ones(3), "double")):
    _fast(*_args)
checks.expect_true(answer_recompiles == _counter.count,
                   "[mc:compile.shape-unguarded] Go through the calls one by one: a call "
                   "compiles when its shape, dtype or mode differs from every earlier call's.")
### END HIDDEN TESTS

# %% wrong 06_compile-quiz-recompiles
{
    6: "[mc:compile.every-call] A call whose guards all hold reuses the cached graph: only "
       "calls that fail a guard compile.",
    5: "[mc:compile.values-guarded] Guards check a tensor's shape, dtype and device, not its "
       "values: ones and zeros of the same shape share a graph.",
    3: "[mc:compile.dtype-unguarded] Count every graph, the first one included; and a "
       "float64 tensor needs different code from a float32 one, so the dtype is guarded too.",
    2: "[mc:compile.shape-unguarded] With dynamic=False every new shape fails a guard, and "
       "so does the string mode the code branched on.",
    1: "[mc:compile.shape-unguarded] A graph is valid only while its guards hold: a new "
       "shape, dtype or branch taken on mode compiles again.",
}

# %% [markdown]
# Now run it with Dynamo's recompile log on (`TORCH_LOGS="recompiles"` for a whole
# program): for each recompilation it names the guard that failed, and for a Python value,
# the line that branched on it.

# %%
def scale(x, mode):
    if mode == "double":
        return x * 2
    return x + 1


torch.compiler.reset()
counter = Recorder()
fast = torch.compile(scale, backend=counter, dynamic=False)
with torch_log.shown(recompiles=True, brief=True):
    for args in ((torch.ones(3), "double"), (torch.zeros(3), "double"), (torch.ones(3), "add"),
                 (torch.ones(5), "add"), (torch.ones(3, dtype=torch.float64), "add"),
                 (torch.ones(3), "double")):
        fast(*args)
        print(f"after fast{tuple(args[0].shape), str(args[0].dtype), args[1]}: "
              f"{counter.count} graphs compiled")

# %% [markdown]
# Compare the count after each call with your reasoning: the zeros reuse the ones' graph
# (values are not guarded), and the last call finds its graph in the cache.
#
# ### Dynamic shapes, and a stance that refuses to recompile
#
# Left at its default (`dynamic=None`), `torch.compile` first compiles for the exact
# shape it sees. When a later call brings a new size, it recompiles **once** with that
# dimension symbolic (*automatic dynamic shapes*), and the new graph serves every later
# size. `dynamic=True` makes shapes symbolic from the first call. (Sizes 0 and 1 are still
# treated as special.)

# %%
def poly(x):
    return x * x + 1


for setting in (False, None, True):
    torch.compiler.reset()
    counter = Recorder()
    compiled_poly = torch.compile(poly, backend=counter, dynamic=setting)
    for n in (2, 3, 4, 5, 6):
        compiled_poly(torch.ones(n))
    print(f"dynamic={setting}: {counter.count} graph{'s' * (counter.count != 1)} for five lengths")

# %% [markdown]
# In a server or a training loop, an unexpected recompilation costs a fresh compile (§7
# times one) every time it happens, and once a function has
# `torch._dynamo.config.recompile_limit` graphs (printed below) Dynamo stops compiling it
# and runs it eagerly, with a warning. `torch.compiler.set_stance("fail_on_recompile")`
# turns a recompilation into an error that names the failed guard, so a test can catch it:

# %%
torch.compiler.reset()
compiled_poly = torch.compile(poly, backend="eager", dynamic=True)
compiled_poly(torch.ones(8))               # compiles once
with torch.compiler.set_stance("fail_on_recompile"):
    compiled_poly(torch.ones(100))         # symbolic length: no recompilation
    with checks.expect_error(RuntimeError):
        compiled_poly(torch.ones(100, dtype=torch.float64))   # a new dtype must recompile
print("graphs per function before Dynamo falls back to eager:", torch._dynamo.config.recompile_limit)

# %% [markdown]
# ### Exercise 2: pad to a few lengths (2 points)
#
# *Misconception targeted: believing a static-shape compile serves a new length without
# recompiling; padding to a length that is not the smallest one that fits (or one that
# does not fit); leaving the padding in the result.*
#
# Sometimes shapes must stay static: CUDA graphs (§8) replay one recorded shape, and a
# static kernel can be faster than a symbolic one (§7). Inputs of many lengths (sentences,
# the ragged last batch of notebook 05) are then padded up to a few fixed lengths,
# **buckets**, so that at most one graph per bucket is ever compiled.
#
# Write `run_bucketed(compiled_fn, x, buckets)`. `x` is a 1-D float tensor of length
# L ≥ 1 and `buckets` a tuple of lengths in increasing order. Append zeros to `x` up to the
# smallest bucket length that is at least L, call `compiled_fn` once on the padded tensor,
# and return the first L values of its result. When L is longer than the largest bucket,
# raise a `ValueError` that says so. (`F.pad(x, (0, k))` appends k zeros to a 1-D tensor.)
#
# The test compiles, with `dynamic=False`, a function whose output at position i depends
# only on positions up to i (a running sum), so zeros appended at the end do not change
# the first L values.

# %% solution 06_compile-buckets
def run_bucketed(compiled_fn, x, buckets):
    ### BEGIN SOLUTION
    length = x.shape[0]
    fits = [b for b in buckets if b >= length]
    if not fits:
        raise ValueError(f"length {length} is longer than the largest bucket, {max(buckets)}")
    padded = F.pad(x, (0, fits[0] - length))
    return compiled_fn(padded)[:length]
    ### END SOLUTION

# %% test 06_compile-buckets-test points=2
def _running(x):
    return torch.cumsum(x, 0) * 0.5 + 1.0


_recorder = Recorder()
_compiled = torch.compile(_running, backend=_recorder, dynamic=False)
_buckets = (4, 8, 16)
for _length in range(1, 17):
    _x = torch.arange(1.0, _length + 1)
    _hint = ("[mc:compile.bucket-edge] A length equal to a bucket's fits that bucket: pad to "
             "the smallest bucket length that is at least L." if _length in _buckets else
             "[mc:compile.bucket-call] run_bucketed(compiled_fn, x, buckets) pads x with zeros "
             "and calls compiled_fn once on the padded tensor.")
    with checks.explain_errors({"": _hint}, f"run_bucketed(compiled_fn, x of length {_length}, "
                                            f"{_buckets})"):
        _out = run_bucketed(_compiled, _x, _buckets)
    with checks.because("[mc:compile.padding-kept] Return the first L values only: the padding "
                        "is not part of the answer."):
        checks.expect_shape(_out, (_length,), f"the result for length {_length}")
    checks.expect_close(_out, _running(_x), f"the result for length {_length}",
                        hint="[mc:compile.bucket-call] Append the zeros at the end of x and "
                             "keep the first L values of the result: those are the unpadded "
                             "input's.")
checks.expect_true(_recorder.count <= len(_buckets),
                   f"Lengths 1 to 16 compiled {_recorder.count} graphs. "
                   "[mc:compile.static-new-length] With dynamic=False every new length fails a "
                   "shape guard: call compiled_fn only on padded tensors, whose lengths are "
                   "bucket lengths.")
checks.expect_true(_recorder.count == len(_buckets),
                   f"Lengths 1 to 16 compiled {_recorder.count} graph(s), not one per bucket. "
                   "[mc:compile.pad-to-largest] Padding everything to the largest bucket makes "
                   "every short input pay for the longest length: pad to the smallest bucket "
                   "that fits.")
checks.expect_raises(ValueError, run_bucketed, _compiled, torch.ones(17), _buckets,
                     name="run_bucketed(compiled_fn, x of length 17, (4, 8, 16))",
                     why="[mc:compile.no-bucket-fits] A length longer than every bucket has "
                         "no bucket to go to: raise a ValueError that says so (not another "
                         "error, and no result padded to some other length).")
### BEGIN HIDDEN TESTS
_recorder = Recorder()
_compiled = torch.compile(helpers.capture.fresh_copy(_running, "_running_hidden"),
                          backend=_recorder, dynamic=False)
_calls = []


def _counting(x):
    _calls.append(x.shape[0])
    return _compiled(x)


_buckets = (3, 5, 9)
for _length in (9, 1, 5, 4, 2, 3, 7, 6, 8):
    _x = torch.randn(_length, dtype=torch.float64)
    _saved = _x.clone()
    _calls.clear()
    with checks.explain_errors({"": "[mc:compile.bucket-call] run_bucketed must work for any "
                                    "buckets and lengths up to the largest bucket."},
                               f"run_bucketed(fn, x of length {_length}, {_buckets})"):
        _out = run_bucketed(_counting, _x, _buckets)
    checks.expect_true(len(_calls) == 1,
                       f"For length {_length} compiled_fn was called {len(_calls)} times. "
                       "[mc:compile.bucket-call] Call it once per input, on the padded x.")
    checks.expect_true(_calls == [min(b for b in _buckets if b >= _length)],
                       f"For length {_length} compiled_fn was called on length {_calls[0]}. "
                       "[mc:compile.bucket-edge] Pad to the smallest bucket length that is at "
                       "least L.")
    checks.expect_close(_out, _running(_saved), f"the result for length {_length}",
                        hint="[mc:compile.padding-kept] Return the first L values of "
                             "compiled_fn's result on the padded input.")
    checks.expect_untouched(_x, _saved, "x")
checks.expect_true(_recorder.count == len(_buckets),
                   f"Nine lengths compiled {_recorder.count} graphs for three buckets. "
                   "[mc:compile.static-new-length] One graph per bucket.")
checks.expect_raises(ValueError, run_bucketed, _compiled, torch.ones(10), _buckets,
                     name="run_bucketed(fn, x of length 10, (3, 5, 9))",
                     why="[mc:compile.no-bucket-fits] No bucket fits a length of 10.")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Timing done right
#
# A measurement of "how long does this take" goes wrong in three common ways:
#
# 1. **No warm-up.** The first call of a compiled function includes compiling it; the
#    first call of anything can include allocating memory and filling caches. Call the
#    function a few times before you start the clock.
# 2. **No synchronisation.** A GPU runs kernels *asynchronously*: the Python call returns
#    as soon as the kernel is queued. Reading the clock then measures the queueing, not
#    the work. `torch.cuda.synchronize()` waits until the queue is empty. (A CPU op has
#    finished when the call returns, so there is nothing to wait for.)
# 3. **One sample.** Other programs, interrupts and frequency changes make some repeats
#    slow. Repeat, and summarise the repeats with a statistic chosen for the question
#    (below).
#
# A CPU-only machine cannot show mistake 2 on real hardware, so `helpers.bench` has a
# small **simulated device**: calling `device.run()` queues a task of known duration and
# returns at once, `device.sync()` waits until the queue is empty, and `device.clock()`
# is its clock, which moves only while queued work runs. Timing it without a sync
# measures nothing, and the work is still there:

# %%
device = helpers.bench.SimulatedDevice([0.010])
start = device.clock()
device.run()
print(f"clock after run(), no sync: {device.clock() - start:.3f} s later")
device.sync()
print(f"clock after sync():         {device.clock() - start:.3f} s later")

# %% [markdown]
# ### Exercise 3: a correct timing loop (2 points)
#
# *Misconception targeted: timing without warm-up; starting or stopping the clock while
# work is still queued; calling the function more often than asked.*
#
# Write `time_samples(fn, warmup, repeats, clock, sync)`: call `fn()` `warmup` times
# without timing, then time `repeats` calls one at a time, each measured from `clock()` to
# `clock()`, with `sync()` placed so that neither work queued *before* the start nor the
# timed call's own work escapes the measurement. Return the list of the `repeats`
# durations in seconds, in the order measured. (The test passes a `SimulatedDevice`'s
# `run`, `clock` and `sync`; on a GPU they would be your function, `time.perf_counter`
# and `torch.cuda.synchronize`.)

# %% solution 06_compile-timing
def time_samples(fn, warmup, repeats, clock, sync):
    ### BEGIN SOLUTION
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        sync()
        start = clock()
        fn()
        sync()
        samples.append(clock() - start)
    return samples
    ### END SOLUTION

# %% test 06_compile-timing-test points=2
# a slow first call (compiling), then steady calls with one outlier
_dev = helpers.bench.SimulatedDevice([5.0, 0.5, 0.004, 0.002, 0.003, 0.020, 0.002])
_reads = []


def _clock():
    _reads.append(_dev.clock())
    return _dev.clock()


with checks.explain_errors({"": "[mc:bench.no-sync] time_samples(fn, warmup, repeats, clock, "
                                "sync) calls fn(), clock() and sync() with no arguments."},
                           "time_samples"):
    _got = time_samples(_dev.run, 2, 5, _clock, _dev.sync)
with checks.because("[mc:bench.one-number] Return the list of the repeats' durations: which "
                    "summary to report is a separate choice."):
    checks.expect_type(_got, (list, tuple), "time_samples(run, warmup=2, repeats=5, ...)")
    checks.expect_true(len(_got) == 5, f"time_samples returned {len(_got)} durations for "
                                       "repeats=5.")
checks.expect_true(len(_reads) > 0,
                   "time_samples never read the clock it was given. [mc:bench.wrong-clock] "
                   "Read clock(): it is the device's own clock, which goes with sync(); "
                   "time.perf_counter() here sees only how long Python took to queue the work.")
checks.expect_true(max(_got) <= 5.531,
                   f"One duration is {max(_got):.4g} s, more than all the work the device was "
                   "given (5.531 s). [mc:bench.units] Return seconds, as clock() reads them.")
checks.reject_close(list(_got), {
    (0.0, 0.0, 0.0, 0.0, 0.0): "[mc:bench.no-sync] Every duration was zero: the device had "
                               "only queued the work when the clock stopped. Call sync() "
                               "before reading the clock.",
}, "time_samples(run, warmup=2, repeats=5, ...)")
checks.expect_true(len(set(_got)) > 1,
                   f"All five durations are {_got[0]:.4g} s. [mc:bench.block-average] One clock "
                   "interval around all the calls, divided by their number, hides the spread: "
                   "time each call on its own.")
checks.expect_true(not (_got[0] >= 0.5 and _got[1] >= 0.5),
                   f"The first two samples took {_got[0]:.3g} s and {_got[1]:.3g} s, as long as "
                   "the slow first calls. [mc:bench.no-warmup] The slow first calls (compiling, "
                   "in real life) were timed: call fn() warmup times before timing.")
checks.expect_true(_got[0] < 0.5,
                   f"The first sample took {_got[0]:.3g} s, far more than any timed call. "
                   "[mc:bench.no-sync] It included the warm-up calls still queued on the device: "
                   "sync() before starting the clock as well as before stopping it.")
checks.expect_close(_dev.calls, 7, "calls of fn for warmup=2, repeats=5", rtol=0, atol=0,
                    hint="[mc:bench.extra-calls] fn runs warmup times untimed, then repeats "
                         "times timed: 2 + 5 calls, no more.")
### BEGIN HIDDEN TESTS
_steady = [0.004, 0.002, 0.003, 0.020, 0.002]
_rounded = [round(v, 9) for v in _got]
checks.expect_true(not (sorted(_rounded) == sorted(_steady) and _rounded != _steady),
                   f"time_samples returned {list(_got)}. [mc:bench.order-lost] Return the "
                   "samples in the order measured: the order shows when a slow call happened "
                   "(warm-up left over, another program starting).")
checks.expect_close(torch.tensor(list(_got), dtype=torch.float64),
                    torch.tensor(_steady, dtype=torch.float64),
                    "time_samples(run, warmup=2, repeats=5, ...)",
                    hint="[mc:bench.no-sync] Each sample is one call's duration, from a clock "
                         "read after sync() to one read after the call and sync().")
_dev = helpers.bench.SimulatedDevice([1.0, 0.01, 0.03, 0.02])
_got = time_samples(_dev.run, 1, 3, _dev.clock, _dev.sync)
checks.expect_close(torch.tensor(list(_got), dtype=torch.float64),
                    torch.tensor([0.01, 0.03, 0.02], dtype=torch.float64),
                    "time_samples(run, warmup=1, repeats=3, ...)",
                    hint="[mc:bench.no-sync] The first timed sample included the warm-up "
                         "call still queued on the device: sync() before starting the clock "
                         "as well as before stopping it.")
_dev = helpers.bench.SimulatedDevice([0.25, 0.5])
_got = time_samples(_dev.run, 0, 1, _dev.clock, _dev.sync)
checks.expect_close(torch.tensor(list(_got), dtype=torch.float64),
                    torch.tensor([0.25], dtype=torch.float64),
                    "time_samples(run, warmup=0, repeats=1, ...)",
                    hint="[mc:bench.extra-calls] With warmup=0 the very first call is the one "
                         "timed.")
checks.expect_close(_dev.calls, 1, "calls of fn for warmup=0, repeats=1", rtol=0, atol=0,
                    hint="[mc:bench.extra-calls] One call, no more.")
### END HIDDEN TESTS

# %% [markdown]
# `helpers.bench.time_calls` is the same loop. Here it times a 128×128 matmul 200 times,
# and the cell summarises the durations three ways:

# %%
a = torch.randn(128, 128)
samples = helpers.bench.time_calls(lambda: a @ a, warmup=5, repeats=200).samples
print(f"minimum {min(samples) * 1e6:7.1f} µs")
print(f"median  {statistics.median(samples) * 1e6:7.1f} µs")
print(f"mean    {statistics.mean(samples) * 1e6:7.1f} µs")
print(f"maximum {max(samples) * 1e6:7.1f} µs")

# %% [markdown]
# Which summary to report depends on the question:
#
# - the **minimum** is what the code costs when nothing else interferes: noise only ever
#   adds time. Python's `timeit` documentation recommends it for comparing two snippets.
#   It is also the right estimate of a *bound* (§1 used it for this machine's numbers).
# - the **median** is what a typical call costs: half the calls are faster. One slow
#   outlier does not move it. `torch.utils.benchmark` reports it.
# - the **mean** is the total time divided by the calls: what a long job pays per call,
#   outliers included.
#
# The rest of this notebook reports medians with their quartiles (the typical call, and
# how much it varies), measured with `helpers.bench.measure`, which wraps
# `torch.utils.benchmark.Timer`: it synchronises CUDA itself and times blocks of calls,
# so that a call too short for the clock is still measured.
#
# ## 7. Inductor: compile time, caches and steady state
#
# Now the real compiler. `helpers.bench.chain` is built to be memory-bound (§9 works out
# its three bounds): eight cheap elementwise operations in a row (multiply, add, abs,
# multiply, sqrt, subtract, relu, multiply). Eager PyTorch runs eight kernels and writes
# seven intermediate tensors;
# Inductor can generate one loop that reads `x` once and writes the result once:
# **fusion**, the remedy for the memory-bound regime.
#
# The first call of the compiled function pays for Dynamo's capture, Inductor's lowering
# and code generation, and a C++ compiler run; later calls with the same guards run the
# cached machine code. Both are measured here, on this machine, right now. Inductor's
# code may round differently from eager (its generated code can compute an operation in
# another way than eager's kernel does, or in another order), so the results are compared
# with a tolerance, not for equality.

# %%
chain = helpers.bench.chain
x = torch.randn(2**16)
chain_static = torch.compile(chain)      # the default: static shapes until a new size comes
eager_timing = helpers.bench.measure(lambda: chain(x), "eager")
compiled_timing = helpers.bench.measure(lambda: chain_static(x), "compiled", time_first=True)
print(f"first compiled call: {compiled_timing.first_call:.2f} s "
      f"({compiled_timing.first_events.describe()})")
print(f"eager:    median {eager_timing.median * 1e6:8.1f} µs per call")
print(f"compiled: median {compiled_timing.median * 1e6:8.1f} µs per call")
print(f"speedup in steady state: {eager_timing.median / compiled_timing.median:.2f}×, "
      f"{helpers.bench.verdict(eager_timing.median, compiled_timing.median)}")
difference = (chain_static(x) - chain(x)).abs().max().item()
print(f"largest difference from eager: {difference:.2g}; bitwise equal: "
      f"{torch.equal(chain_static(x), chain(x))}")

# %% [markdown]
# How long "the first call" takes depends on what is cached. Inductor keeps the code it
# builds in an on-disk cache (the *FX graph cache*); when a later process compiles the same
# graph, it loads the code instead of generating and compiling it. The line above says
# which happened in this run: run the notebook twice and the first call gets much
# shorter. In a fresh process the very first compile also pays for setting Inductor up.
#
# When a lesson needs the cost of compiling itself, measure it with the caches off.
# `helpers.bench.cold_compile` compiles a fresh copy of `chain` with Inductor's caches
# disabled (an internal setting) and times its first call:

# %%
cold_s, cold_events = helpers.bench.cold_compile(chain, x)
print(f"cold compile of chain, Inductor's caches off: {cold_s:.2f} s ({cold_events.describe()})")

# %% [markdown]
# The compiled chain above is **static**: its kernel has the size 65,536 built in. With
# `dynamic=True` one kernel with a **symbolic** size serves every size; it computes the
# loop bounds at run time, which can make it slower than a static kernel (how much depends
# on the kernel and the machine). Both, on the same input:

# %%
chain_symbolic = helpers.bench.compiled("chain", dynamic=True)   # torch.compile(chain, dynamic=True), kept
symbolic_timing = helpers.bench.measure(lambda: chain_symbolic(x), "symbolic", time_first=True)
print(f"first call: {symbolic_timing.first_call:.2f} s ({symbolic_timing.first_events.describe()})")
print(f"static kernel:   median {compiled_timing.median * 1e6:8.1f} µs per call")
print(f"symbolic kernel: median {symbolic_timing.median * 1e6:8.1f} µs per call "
      f"({symbolic_timing.median / compiled_timing.median:.2f}× the static time)")

# %% [markdown]
# ### Speedup against size, and the explorer
#
# The symbolic chain at several sizes (one compilation serves them all):

# %%
sweep = helpers.bench.sweep([2**10, 2**14, 2**18])
for result in sweep:
    print(f"{result.size:>8,} elements: eager {result.eager.median * 1e6:8.1f} µs, compiled "
          f"{result.compiled.median * 1e6:8.1f} µs, {result.ratio:.2f}×: "
          f"{helpers.bench.verdict(result.eager.median, result.compiled.median)}")
print(f"eager at 2**10: {sweep[0].eager.median / 8 * 1e6:.1f} µs per operation; the fixed cost "
      f"of a call (§1): {here.overhead_s * 1e6:.1f} µs")
helpers.bench.picture(helpers.bench.draw_speedup_vs_size(sweep))

# %% [markdown]
# Read it with the regimes. At 2**10 elements each of eager's eight operations takes
# about the fixed cost of a call (the last line): overhead-bound. The compiled function
# makes one call instead of eight, but that call has fixed costs of its own (checking
# guards, the wrapper Dynamo puts around the kernel), and the first row says which side
# won in this run. As the size grows, moving bytes takes over: eager makes eight passes
# over memory and allocates seven intermediate tensors, the fused kernel makes one pass,
# and the ratio grows. (Tensors of at most 1 MiB can stay in a CPU's caches, which are
# faster than the main memory §1 measured: the times can be shorter than §1's bandwidth
# predicts.)
#
# The **speedup explorer** measures again whenever a control changes; the line under its
# controls says what the first compiled call at that setting compiled. Try:
#
# 1. Predict the ratio at 2**22 elements from the plot above (it stops at 2**18). Set
#    *elements* to 2**10, then to 2**22, and name the regime at each end.
# 2. Predict first: at a size you have not used yet (compile on), does the first call
#    compile? Set it and read the line. Then predict what a new dtype does, set *dtype*
#    to float64, read the line again, and explain it with §5's guards.
# 3. Untick *torch.compile* and tick it again at the same size: the eager bar is measured
#    afresh each time. Notice how much two measurements of the same thing differ: a
#    difference between eager and compiled smaller than that is noise. (The *device* list
#    has cuda: without a GPU the explorer says so inside the widget.)

# %%
helpers.bench.explore()

# %% [markdown]
# ### Exercise 4: compile, then check numerics and speed (3 points)
#
# *Misconception targeted: expecting compiled results to equal eager ones to the last
# bits; timing the first call, which includes compiling; turning the speedup ratio upside
# down.*
#
# Write `compare_compiled(fn, x)` that compiles `fn` with Inductor (`torch.compile`'s
# default backend) and returns a dict with
# - `"max_abs_error"`: the largest absolute difference between the compiled and the eager
#   result on `x`, as a Python float;
# - `"close"`: True when the two results agree within the tolerance that
#   `torch.testing.assert_close(actual, expected)` chooses for their dtype (it returns
#   nothing when they do, and raises `AssertionError` when they do not), else False;
# - `"speedup"`: the eager median time per call divided by the compiled median time per
#   call, both in steady state, each measured with `helpers.bench.measure` (its warm-up
#   call absorbs the compiling). The ratio of the fastest samples is accepted too: §6 says
#   what each statistic answers.
#
# The test passes a fresh copy of `chain` (nothing compiled yet) and a float32 tensor.

# %% solution 06_compile-inductor
def compare_compiled(fn, x):
    ### BEGIN SOLUTION
    compiled_fn = torch.compile(fn)
    expected, got = fn(x), compiled_fn(x)         # this first compiled call compiles
    try:
        torch.testing.assert_close(got, expected)
        close = True
    except AssertionError:
        close = False
    eager = helpers.bench.measure(lambda: fn(x))
    fast = helpers.bench.measure(lambda: compiled_fn(x))
    return {"max_abs_error": (got - expected).abs().max().item(), "close": close,
            "speedup": eager.median / fast.median}
    ### END SOLUTION

# %% test 06_compile-inductor-test points=3
# The test watches, without changing them, the calls compare_compiled makes to
# torch.compile (which backend) and to helpers.bench.measure (which function, which timing).
_compile, _measure = torch.compile, helpers.bench.measure
_backends, _measured, _compiled_calls = [], [], [0]


def _watched_compile(fn, *args, **kwargs):
    _backends.append(kwargs.get("backend", args[1] if len(args) > 1 else "inductor"))
    compiled = _compile(fn, *args, **kwargs)

    def counted(*a, **k):
        _compiled_calls[0] += 1
        return compiled(*a, **k)
    return counted


def _watched_measure(fn, *args, **kwargs):
    timing = _measure(fn, *args, **kwargs)
    _measured.append((fn, timing))
    return timing


_fn = helpers.capture.fresh_copy(helpers.bench.chain, "chain_for_exercise_4")
_x = torch.randn(2**16, generator=torch.Generator().manual_seed(4))
torch.compile, helpers.bench.measure = _watched_compile, _watched_measure
try:
    with checks.explain_errors({"": "[mc:compile.compare-call] compare_compiled(fn, x) compiles "
                                    "fn and returns a dict with 'max_abs_error', 'close' and "
                                    "'speedup'."}, "compare_compiled(chain, x)"):
        _report = compare_compiled(_fn, _x)
finally:
    torch.compile, helpers.bench.measure = _compile, _measure
with checks.because("[mc:compile.compare-call] Return a dict with the keys 'max_abs_error', "
                    "'close' and 'speedup'."):
    checks.expect_type(_report, dict, "compare_compiled(...)")
    checks.expect_true(set(_report) >= {"max_abs_error", "close", "speedup"},
                       f"compare_compiled returned the keys {sorted(_report)}.")
checks.expect_true(any(b in ("inductor", None) for b in _backends),
                   f"torch.compile was called with the backends {_backends}. "
                   "[mc:compile.compare-call] Inductor compiled nothing: compile fn with "
                   "torch.compile's default backend.")
checks.expect_true(_report["close"] is True,
                   f"'close' is {_report['close']!r}. [mc:compile.bitwise-equal] Compiled code "
                   "may round differently from eager: torch.equal and == ask for every bit to "
                   "agree. Use torch.testing.assert_close, whose tolerance fits the dtype.")
checks.expect_true(isinstance(_report["max_abs_error"], float)
                   and 0 <= _report["max_abs_error"] < 1e-4,
                   f"'max_abs_error' is {_report['max_abs_error']!r}. "
                   "[mc:compile.compare-call] Give the largest absolute difference as a Python "
                   "float (.abs().max().item()).")
_kinds = []
for _timed, _timing in _measured:   # which measured function calls the compiled one?
    _before = _compiled_calls[0]
    _timed()
    _kinds.append(("compiled" if _compiled_calls[0] > _before else "eager", _timing))
_eager_t = [t for k, t in _kinds if k == "eager"]
_compiled_t = [t for k, t in _kinds if k == "compiled"]
checks.expect_true(_eager_t and _compiled_t,
                   "compare_compiled did not time both fn and the compiled function with "
                   "helpers.bench.measure, as the task asks. [mc:compile.first-call-timed] "
                   "A clock around the first compiled call includes compiling; measure warms "
                   "up first and reports steady-state calls.")
# the medians' ratio, and the fastest samples' (a defensible choice, §6)
_ratios = [_eager_t[-1].median / _compiled_t[-1].median,
           min(_eager_t[-1].samples) / min(_compiled_t[-1].samples)]
_firsts = [t.first_call for t in _compiled_t if t.first_call]
checks.expect_true(not any(math.isclose(_report["speedup"], _eager_t[-1].median / f, rel_tol=1e-9)
                           for f in _firsts),
                   f"'speedup' is {_report['speedup']:.3g}: the eager time over the first "
                   "compiled call. [mc:compile.first-call-timed] The first call includes "
                   "compiling; compare steady states.")
checks.expect_true(not any(math.isclose(_report["speedup"], 1 / r, rel_tol=1e-9)
                           and not math.isclose(r, 1.0, rel_tol=1e-9) for r in _ratios),
                   f"'speedup' is {_report['speedup']:.3g}, the compiled time over the eager "
                   "one. [mc:compile.speedup-inverted] Divide the eager time by the compiled "
                   "time: a speedup above 1 means the compiled code is faster.")
### BEGIN HIDDEN TESTS
checks.expect_true(any(math.isclose(_report["speedup"], r, rel_tol=1e-9) for r in _ratios),
                   f"'speedup' is {_report['speedup']!r}, neither the ratio of the medians nor "
                   "that of the fastest samples of the timings helpers.bench.measure gave. "
                   "[mc:compile.first-call-timed] Compare steady states: the eager time per "
                   "call over the compiled one, as measure reports them.")
_expected, _got = _fn(_x), torch.compile(_fn)(_x)
checks.expect_close(_report["max_abs_error"], (_got - _expected).abs().max().item(),
                    "'max_abs_error'", rtol=1e-6, atol=1e-12,
                    hint="[mc:compile.compare-call] The largest |compiled - eager| over every "
                         "element, not a mean or a sum.")
### END HIDDEN TESTS

# %% [markdown]
# Whether compiling pays depends on how many calls follow: with compile time C and
# per-call times E (eager) and F (compiled), n calls cost C + n·F compiled and n·E eager.
#
# ### Exercise 5: when does compiling pay? (2 points)
#
# *Misconception targeted: "compiled is faster" without counting the compile time, or
# for a function the compiler does not speed up.*
#
# Write `break_even_calls(compile_s, eager_s, compiled_s)` returning the smallest whole
# number of calls n ≥ 1 for which compile_s + n·compiled_s ≤ n·eager_s, or `math.inf`
# when no number of calls makes compiling pay.

# %% solution 06_compile-break-even
def break_even_calls(compile_s, eager_s, compiled_s):
    ### BEGIN SOLUTION
    saving = eager_s - compiled_s
    if saving <= 0:
        return math.inf
    return max(1, math.ceil(compile_s / saving))
    ### END SOLUTION

# %% test 06_compile-break-even-test points=2
with checks.explain_errors({"": "[mc:compile.always-faster] break_even_calls(compile_s, "
                                "eager_s, compiled_s) takes three numbers of seconds."},
                           "break_even_calls"):
    _n = break_even_calls(10.0, 0.005, 0.002)
    _slower = break_even_calls(10.0, 0.002, 0.003)
checks.reject(_n, {
    1: "[mc:compile.free-speedup] Compiling is not free: the 10 s of compile time must be "
       "won back by the 0.003 s saved per call.",
    2000: "[mc:compile.free-speedup] Divide the compile time by the time saved per call "
          "(eager − compiled), not by the eager time.",
    5000: "[mc:compile.free-speedup] Divide the compile time by the time saved per call "
          "(eager − compiled), not by the compiled time.",
}, "break_even_calls(10.0, 0.005, 0.002)")
checks.reject(_slower, {
    -10000: "[mc:compile.always-faster] Here compiled calls are slower than eager ones: "
            "no number of calls wins the compile time back.",
    10000: "[mc:compile.always-faster] Here compiled calls are slower than eager ones: "
           "no number of calls wins the compile time back.",
}, "break_even_calls(10.0, 0.002, 0.003)")
checks.expect_true(_n == math.inf or (isinstance(_n, (int, float)) and float(_n).is_integer()),
                   f"break_even_calls(10.0, 0.005, 0.002) is {_n!r}. [mc:compile.free-speedup] A "
                   "number of calls is a whole number: the first whole n at which compiling "
                   "has paid.")
### BEGIN HIDDEN TESTS
checks.expect_close(_n, 3334, "break_even_calls(10.0, 0.005, 0.002)", rtol=0, atol=0,
                    hint="[mc:compile.free-speedup] n calls save n·(eager − compiled) "
                         "seconds; the smallest whole n whose saving covers the compile "
                         "time is the answer (round up).")
checks.expect_close(_slower, math.inf, "break_even_calls(10.0, 0.002, 0.003)", rtol=0, atol=0,
                    hint="[mc:compile.always-faster] When compiled calls are not faster, "
                         "no number of calls pays: return math.inf.")
for _args, _want, _hint in (
        ((3.0, 0.0011, 0.0004), 4286, "[mc:compile.free-speedup] Round up to the first whole "
                                      "number of calls that pays."),
        ((0.5, 0.01, 0.001), 56, "[mc:compile.free-speedup] Round up."),
        # 2 calls save exactly the 1 s of compiling: paying exactly counts
        ((1.0, 0.75, 0.25), 2, "[mc:compile.free-speedup] n·compiled + compile ≤ n·eager: a "
                               "saving that exactly covers the compile time has paid."),
        ((0.0, 0.002, 0.001), 1, "[mc:compile.free-speedup] n counts calls from 1: with nothing "
                                 "to win back, the first call already pays."),
        ((2.0, 0.001, 0.001), math.inf, "[mc:compile.always-faster] With equal per-call times "
                                        "compiling never pays: return math.inf.")):
    with checks.explain_errors({"": _hint}, f"break_even_calls{_args}"):
        _got = break_even_calls(*_args)
    checks.expect_close(_got, _want, f"break_even_calls{_args}", rtol=0, atol=0, hint=_hint)
### END HIDDEN TESTS

# %% [markdown]
# With what this machine measured, the cold compile time and the static kernel's steady
# state against eager (a compile that the cache answers pays back sooner):

# %%
per_call_eager, per_call_compiled = eager_timing.median, compiled_timing.median
for n in (1, 1_000, 100_000, 10_000_000):
    print(f"{n:>10,} calls: eager {n * per_call_eager:9.3f} s, "
          f"compiled {cold_s + n * per_call_compiled:9.3f} s")

# %% [markdown]
# ## 8. Remedies for overhead, and a compiled training step
#
# **CUDA graphs** (`mode="reduce-overhead"`). On a GPU, eager PyTorch launches every kernel
# from Python, one at a time: when kernels are small, the GPU finishes each one before the
# CPU has launched the next, and waits. The GPU is then overhead-bound, however fast it
# is. A CUDA graph records a whole sequence of kernel launches once and replays it with a
# single launch. `torch.compile(model, mode="reduce-overhead")` makes Inductor do that.
# The price: a recorded graph replays fixed shapes and fixed memory addresses, so each new
# shape records a new graph (bucketing, Exercise 2, keeps them few), inputs are copied into
# the recorded buffers, and an output is overwritten by the next replay (clone what you
# keep). CUDA graphs exist only for CUDA devices: the cell runs where a GPU is present.

# %%
if torch.cuda.is_available():
    small = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10)).cuda().eval()
    inputs = torch.randn(8, 64, device="cuda")
    with torch.no_grad():
        eager_gpu = helpers.bench.measure(lambda: small(inputs), "eager")
        print(f"eager: median {eager_gpu.median * 1e6:.1f} µs per call")
        for mode in ("default", "reduce-overhead"):
            fn = torch.compile(small, mode=mode)
            timing = helpers.bench.measure(lambda fn=fn: fn(inputs), mode, time_first=True)
            print(f"{mode}: median {timing.median * 1e6:.1f} µs per call "
                  f"(first call {timing.first_call:.1f} s)")
else:
    print("No CUDA GPU on this machine: mode='reduce-overhead' (CUDA graphs) was not run.")

# %% [markdown]
# **A training step, compiled.** `torch.compile` of a function that computes a loss
# compiles the forward pass, and because AOTAutograd traces the backward pass ahead of
# time, `loss.backward()` runs compiled code too: the loss's backward node is
# `CompiledFunctionBackward`. (`torch.compile(model)` works the same way for a module.) The
# cell times one step (forward, loss, backward; the optimizer's step would come after) of
# the smallest model with weights, one linear layer classifying 64 features into 10
# classes, eagerly and compiled. (Each kernel Inductor generates costs a run of the C++
# compiler; a deeper model makes more kernels, not a different lesson.)

# %%
mlp = nn.Sequential(nn.Linear(64, 10))
batch_x, batch_y = torch.randn(32, 64), torch.randint(0, 10, (32,))


def loss_of(net, x, y):
    return F.cross_entropy(net(x), y)


compiled_loss_of = torch.compile(loss_of)


def train_step(loss_fn):
    mlp.zero_grad(set_to_none=True)
    loss = loss_fn(mlp, batch_x, batch_y)
    loss.backward()
    return loss


step_eager = helpers.bench.measure(lambda: train_step(loss_of), "eager step")
step_compiled = helpers.bench.measure(lambda: train_step(compiled_loss_of), "compiled step",
                                      time_first=True)
loss_eager, loss_compiled = train_step(loss_of), train_step(compiled_loss_of)
print(f"first compiled step: {step_compiled.first_call:.2f} s "
      f"({step_compiled.first_events.describe()})")
print(f"eager step {step_eager.median * 1e6:.0f} µs, compiled step "
      f"{step_compiled.median * 1e6:.0f} µs: {step_eager.median / step_compiled.median:.2f}×, "
      f"{helpers.bench.verdict(step_eager.median, step_compiled.median)}")
print(f"losses {loss_eager.item():.6f} and {loss_compiled.item():.6f}; the compiled loss's "
      f"backward node: {loss_compiled.grad_fn.name()}")

# %% [markdown]
# A `Recorder(backward=True)` shows the two graphs AOTAutograd makes of the one Dynamo
# captured: the forward, and the backward it derived (one graph, run by `loss.backward()`):

# %%
recorder = Recorder(backward=True)
train_step(torch.compile(helpers.capture.fresh_copy(loss_of, "loss_of_recorded"), backend=recorder))
print(recorder.summary())

# %% [markdown]
# Where does the eager step's time go? `torch.utils.flop_counter.FlopCounterMode` counts
# the FLOPs of everything run inside it. At this machine's measured matmul rate, those
# FLOPs alone need:

# %%
with FlopCounterMode(display=False) as flop_counter:
    train_step(loss_of)
step_flops = flop_counter.get_total_flops()
compute_floor = step_flops / here.flops
print(f"{step_flops:,} FLOPs in one step: {compute_floor * 1e6:.0f} µs at {here.flops / 1e9:.0f} "
      f"GFLOP/s, {compute_floor / step_eager.median:.0%} of the eager step's "
      f"{step_eager.median * 1e6:.0f} µs")

# %% [markdown]
# Compare the share with the ratio above. The rest of the eager step is the fixed cost of
# its small operations and their passes over memory (the loss's softmax, log and
# average, the backward of each, the gradients' sums): that is the part compiling can
# shrink, since it does not reduce the FLOPs. Compiling also adds fixed costs of its own
# to every call (checking guards, the wrapper around the compiled forward and backward).
# The line above says which side won in this run; rerun the cell to see whether a step
# this small stays on that side. (One-thread CPU numbers for one small model; measure
# yours.)
#
# ### Exercise 6: a static-shape training step and a short last batch (2 points)
#
# *Misconception targeted: believing a static-shape compile serves a smaller batch without
# compiling again; passing the number of real rows as a Python number (a guard on its
# value); padding without masking, so that padded rows enter the loss and its gradient;
# and the loop mistakes of notebook 04 (gradients accumulating, no optimizer step).*
#
# A DataLoader without `drop_last` (notebook 05) ends every epoch with a shorter batch.
# Where shapes are static (`dynamic=False`; CUDA graphs also record one graph per shape),
# that batch fails a shape guard and compiles a second forward and backward graph. Padding it to the full
# size keeps one pair of graphs, but padded rows are not data: they must change neither
# the loss nor the gradients.
#
# Write `train_compiled(model, batches, lr, compile_fn)`: train `model` in place with
# `torch.optim.SGD(model.parameters(), lr=lr)`, one step per `(x, y)` pair in the list
# `batches` (2-D tensors; every batch has as many rows as the first, except that the last
# may have fewer). Run the model inside **one** function compiled with `compile_fn(fn)`
# (the test passes `torch.compile` with `dynamic=False` and a `Recorder`; the loss may be
# computed inside that function or after it), and call it only on tensors of the first
# batch's shapes: give a short batch rows of zeros up to the full size
# (`F.pad(t, (0, 0, 0, k))` appends k rows of zeros to a 2-D tensor). Each step's loss is
# the mean squared error over the batch's real rows, as `F.mse_loss(model(x), y)` gives
# it on the unpadded batch; call `backward()` and the optimizer's step outside the
# compiled function. Return the steps' losses as a list of Python floats.

# %% solution 06_compile-train-step
def train_compiled(model, batches, lr, compile_fn):
    ### BEGIN SOLUTION
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    rows = batches[0][0].shape[0]

    def masked_mse(x, y, real):
        # real is 1.0 on the batch's own rows and 0.0 on padding: padding adds nothing
        squared = (model(x) - y) ** 2 * real
        return squared.sum() / (real.sum() * y.shape[1])

    loss_of = compile_fn(masked_mse)
    losses = []
    for x, y in batches:
        short = rows - x.shape[0]
        real = F.pad(torch.ones(x.shape[0], 1, dtype=x.dtype), (0, 0, 0, short))
        optimizer.zero_grad()
        loss = loss_of(F.pad(x, (0, 0, 0, short)), F.pad(y, (0, 0, 0, short)), real)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
    ### END SOLUTION

# %% test 06_compile-train-step-test points=2
def _eager_training(model, batches, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def _train_both(seed, sizes, features, zero_row=False, lr=0.1):
    """Train a model and its twin, compiled (the student's way) and eager; return what a
    check needs: the losses, the models and the compile_fn's record."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, features))
    twin = copy.deepcopy(model)
    batches = [(torch.randn(n, 3), torch.randn(n, features)) for n in sizes]
    if zero_row:   # a real row of zeros: data, not padding
        batches[-1][0][0] = 0.0
    saved = [(x.clone(), y.clone()) for x, y in batches]
    with torch.no_grad():   # each batch's loss if the parameters never moved
        untrained = [F.mse_loss(model(x), y).item() for x, y in batches]
    compile_fn = helpers.capture.StaticCompile()
    with checks.explain_errors({"does not require grad": "[mc:compile.no-grad-forward] The loss "
                                                         "has no graph to run backward "
                                                         "through: compute it with gradients "
                                                         "on.",
                                "fake tensor": "[mc:compile.static-new-length] The compiled "
                                               "function failed on the shapes it was given: "
                                               "every tensor it gets, x and y alike, must "
                                               "have the first batch's shapes, with the rows "
                                               "added at the end.",
                                "": "[mc:compile.uncompiled-call] train_compiled(model, "
                                    "batches, lr, compile_fn) trains model and returns the "
                                    "losses."},
                               f"train_compiled(model, batches of {list(sizes)} rows, {lr}, "
                               "compile_fn)"):
        losses = train_compiled(model, batches, lr, compile_fn)
    for (x, y), (x0, y0) in zip(batches, saved):
        checks.expect_untouched(x, x0, "a batch's x")
        checks.expect_untouched(y, y0, "a batch's y")
    return losses, _eager_training(twin, saved, lr), untrained, model, twin, compile_fn


_sizes = (16, 16, 16, 5)
_losses, _want, _untrained, _model, _twin, _seen = _train_both(60, _sizes, 1)
with checks.because("[mc:compile.uncompiled-call] Return the list of the steps' losses as "
                    "Python floats."):
    checks.expect_type(_losses, (list, tuple), "train_compiled(...)")
    checks.expect_true(len(_losses) == len(_sizes) and all(isinstance(v, float) for v in _losses),
                       f"train_compiled returned {_losses!r} for {len(_sizes)} batches.")
checks.expect_true(_seen.recorder.count >= 1 or not _seen.calls,
                   "The compiled function ran, but Dynamo captured no graph from it. "
                   "[mc:compile.item-avoids-break] Something in it needs a tensor's value as "
                   "a Python number (slicing by a count held in a tensor does, through "
                   ".item()): a graph break, after which your code ran as plain Python. Leave "
                   "the padded rows out with tensor operations instead.")
checks.expect_true(_seen.recorder.count >= 1,
                   "compile_fn compiled nothing. [mc:compile.uncompiled-call] Call the "
                   "function compile_fn returned, not the original.")
checks.expect_true(len(_seen.shapes) == 1,
                   f"The compiled function was called on tensors of shapes {sorted(_seen.shapes)}. "
                   "[mc:compile.static-new-length] With dynamic=False a batch of 5 rows fails "
                   "the shape guard of a graph compiled for 16: pad the short batch to the "
                   "first batch's rows before the call.")
checks.expect_true(_seen.recorder.count == 1,
                   f"The compiled function always got tensors of one shape, yet compiled "
                   f"{_seen.recorder.count} graphs. [mc:compile.python-number-guarded] With "
                   "dynamic=False a Python number it is given (or reads) is guarded by its "
                   "value: one that changes with the batch compiles a new graph. Pass what "
                   "changes as a tensor.")
checks.expect_true(abs(_losses[0] - _want[0]) < 1e-4 * max(1.0, abs(_want[0])),
                   f"The first loss is {_losses[0]:.6g}, not the model's mean squared error on "
                   "the first batch. [mc:compile.uncompiled-call] The loss is the mean of "
                   "(model(x) - y)² over the batch.")
checks.expect_true(not all(abs(v - w) < 1e-6 for v, w in zip(_losses[1:], _untrained[1:])),
                   "[mc:compile.no-step] Every loss is the untrained model's loss on its batch: "
                   "the parameters never changed. Call optimizer.step() after backward().")
checks.expect_close(torch.tensor(_losses[:-1]), torch.tensor(_want[:-1]),
                    "the losses of the full batches", rtol=1e-4, atol=1e-6,
                    hint="[mc:compile.grads-accumulate] The losses differ from one-step-per-"
                         "batch SGD: zero the gradients before every backward() (notebook "
                         "04), and step once per batch.")
checks.expect_close(_losses[-1], _want[-1], "the loss of the last batch (5 real rows)",
                    rtol=1e-4, atol=1e-6,
                    hint="[mc:compile.padding-in-loss] The padded rows changed the loss: they "
                         "must add nothing to the sum of squared errors, and the mean divides "
                         "by the real rows' elements only.")
### BEGIN HIDDEN TESTS
def _same_models(model, twin, what):
    for (_name, _p), _q in zip(model.named_parameters(), twin.parameters()):
        checks.expect_close(_p.detach(), _q.detach(), f"the trained model's {_name} ({what})",
                            rtol=1e-4, atol=1e-6,
                            hint="[mc:compile.padding-in-loss] The model must end as plain SGD "
                                 "on the unpadded batches leaves it: the padded rows must not "
                                 "reach the gradients either.")


def _one_pair(seen, what, rows):
    checks.expect_true(all(shape[0] == rows for call in seen.calls for shape in call if shape),
                       f"{what}: the compiled function was called on shapes "
                       f"{sorted(seen.shapes)}. [mc:compile.static-new-length] Pad to the "
                       f"first batch's rows ({rows} here), whatever they are.")
    checks.expect_true(seen.recorder.count == 1 and len(seen.shapes) == 1,
                       f"{what}: {seen.recorder.count} forward graphs for calls on shapes "
                       f"{sorted(seen.shapes)}. [mc:compile.static-new-length] Compile once and "
                       "call the compiled function on the first batch's shapes only.")
    checks.expect_true(len(seen.recorder.backward_graphs) == 1,
                       f"{what}: {len(seen.recorder.backward_graphs)} backward graphs. "
                       "[mc:compile.no-grad-forward] The compiled function must run the model "
                       "with gradients on, so that AOTAutograd derives its backward graph.")


_same_models(_model, _twin, "batches of 16, 16, 16 and 5 rows")
_one_pair(_seen, "batches of 16, 16, 16 and 5 rows", 16)
for _seed, _sizes, _outputs, _zero_row in ((61, (8, 8, 1), 3, False), (62, (8, 8, 8), 2, False),
                                           (63, (12, 7), 2, True), (64, (6,), 1, False),
                                           (65, (20, 20, 3), 1, False)):
    _losses, _want, _, _model, _twin, _seen = _train_both(_seed, _sizes, _outputs, _zero_row)
    _what = f"batches of {', '.join(map(str, _sizes))} rows, {_outputs} outputs" + (
        ", a real row of zeros" if _zero_row else "")
    checks.expect_close(torch.tensor(_losses), torch.tensor(_want), f"the losses ({_what})",
                        rtol=1e-4, atol=1e-6,
                        hint="[mc:compile.padding-in-loss] " + (
                            "A real row of zeros is data: tell the padding apart by its "
                            "position, not by its value." if _zero_row else
                            "Each loss is the mean squared error over the batch's real rows "
                            "and every output column."))
    _same_models(_model, _twin, _what)
    _one_pair(_seen, _what, _sizes[0])
### END HIDDEN TESTS

# %% [markdown]
# ## 9. FLOPs, bytes and the roofline
#
# Two numbers describe what an operation asks of the hardware: the floating-point
# operations it performs and the bytes it moves to and from memory. The last section let
# torch count a step's FLOPs. Count one matmul's yourself first.
#
# **Quick quiz.** How many FLOPs does `FlopCounterMode` count for a (64×128) @ (128×32)
# matmul? Put a whole number in `answer_flops`.

# %% solution 06_compile-quiz-flops
### BEGIN SOLUTION
answer_flops = 2 * 64 * 128 * 32
### END SOLUTION

# %% test 06_compile-quiz-flops-test points=1
with checks.because("[mc:compile.quiz-type] The answer is a count, a whole number."):
    checks.answer("06_compile-quiz-flops", answer_flops, "answer_flops", kind=int)
### BEGIN HIDDEN TESTS
with FlopCounterMode(display=False) as _flops:
    torch.randn(64, 128) @ torch.randn(128, 32)
checks.expect_true(answer_flops in (_flops.get_total_flops(), 64 * 32 * (2 * 128 - 1)),
                   "[mc:roofline.flops-multiplies-only] 64·32 outputs, each a dot product of "
                   "length 128: 128 multiplications and (about) 128 additions.")
### END HIDDEN TESTS

# %% wrong 06_compile-quiz-flops
{
    262144: "[mc:roofline.flops-multiplies-only] You counted the multiplications: what else "
            "does each step of a dot product do?",
    2048: "[mc:roofline.flops-outputs] That is the number of outputs; each output costs a "
          "dot product of length 128.",
    4096: "[mc:roofline.flops-outputs] Each output costs a dot product of length 128, "
          "not two operations.",
    12288: "[mc:roofline.flops-outputs] That counts the input elements: each of the 64·32 "
           "outputs reads a row and a column of 128.",
}

# %%
with FlopCounterMode(display=False) as flop_counter:
    torch.randn(64, 128) @ torch.randn(128, 32)
print(f"FlopCounterMode counts {flop_counter.get_total_flops():,} FLOPs")
print(f"2·m·k·n = {2 * 64 * 128 * 32:,}; m·n·(2k − 1) = {64 * 32 * (2 * 128 - 1):,}")

# %% [markdown]
# Compare with your count. Each of the m·n = 64·32 outputs is a dot product of length
# k = 128: 128 multiplications and 127 additions, which the convention rounds to 2k (a
# fused multiply-add counts as two). So a matmul costs 2·m·k·n FLOPs, while it reads m·k +
# k·n elements and writes m·n. An elementwise op on n elements does n FLOPs (counting
# `sqrt` as one) and reads and writes n elements each.
#
# The ratio FLOPs per byte is the operation's **arithmetic intensity**. On a **roofline**
# (achieved FLOP/s against intensity, both axes logarithmic) the memory bound is a sloped
# line (intensity × bandwidth) and the compute bound a flat one; they meet at the
# **ridge**. Left of the ridge an operation is memory-bound (unless overhead-bound), right
# of it compute-bound. Here are the points measured on this page under this machine's
# measured roof (a matmul of 256³ and a copy, not datasheet peaks):

# %%
points = [helpers.roofline.roofline_point(helpers.roofline.matmul_cost(128, 128, 128),
                                          statistics.median(samples), "matmul 128³ (§6)"),
          *[helpers.roofline.roofline_point(cost, timing.median, label) for cost, timing, label in (
              (helpers.roofline.elementwise_cost(2**16, 8), eager_timing, "chain, eager (§7)"),
              (helpers.roofline.elementwise_cost(2**16, 8, fused=True), compiled_timing,
               "chain, compiled (§7)"))]]
for p in points:
    print(f"{p.label:>22}: {p.intensity:7.3f} FLOP/byte, {p.flops_per_s / 1e9:7.2f} GFLOP/s")
print(f"ridge of this machine: {here.ridge:.1f} FLOP/byte")
helpers.bench.picture(helpers.roofline.draw_roofline(points, here.flops, here.bytes_per_s,
                                                     "measured on this machine"))

# %% [markdown]
# The fused chain sits eight times further right than the eager one: the same FLOPs, an
# eighth of the bytes. (The byte counts assume every pass goes to main memory; 65,536
# floats, 256 KiB, can stay in a CPU's caches, so a point may sit above the sloped line.)
#
# The **roofline explorer** puts an operation of your choice on two roofs: this machine's
# (measured, black) and a GPU's from its vendor's datasheet (dashed; the figures and their
# sources are printed in §10). The bars on the right are the three lower bounds on one
# call's time on each device; the coloured one binds. Try:
#
# 1. Predict which bound binds for a matrix-vector product at n = 4096, here and on the
#    H100. Set it and check. Then switch to the square matmul at the same n.
# 2. Move n for the square matmul from 1 upwards. Notice where the binding bound changes
#    here and on the GPU. Explain why a GPU needs a larger matmul than this CPU to be
#    compute-bound (compare the ridges).
# 3. At n = 2**24, predict what fusing the chain of 8 does to its intensity and to the
#    bound that binds here. Switch "chain of 8 elementwise, eager" to "fused" and check.
#    Explain what fusion saves, in the bars on the right.

# %%
helpers.roofline.explore(points=points)

# %% [markdown]
# `helpers.roofline.bounds(cost, roof)` gives the three lower bounds of a `Cost` on a
# `Roof` (`.overhead_s`, `.memory_s`, `.compute_s`, and `.bound`, the largest one's name),
# and `helpers.roofline.regime(cost, roof)` that name alone. For the two chains measured
# above, on this machine:

# %%
for fused in (False, True):
    cost = helpers.roofline.elementwise_cost(2**16, 8, fused=fused)
    b = helpers.roofline.bounds(cost, here)
    print(f"chain of 8 on 2**16, {'fused' if fused else 'eager'}: overhead "
          f"{b.overhead_s * 1e6:.1f} µs, memory {b.memory_s * 1e6:.1f} µs, compute "
          f"{b.compute_s * 1e6:.1f} µs -> {b.bound}-bound")

# %% [markdown]
# ### Exercise 7: how large a batch before a layer is compute-bound? (2 points)
#
# *Misconception targeted: believing a layer's bytes are only its activations (the weights
# are read on every call too); ignoring the fixed cost of a call; counting a matmul's
# FLOPs as m·k·n.*
#
# A linear layer's forward pass on a batch of B inputs is the matmul
# (B × d_in) @ (d_in × d_out). Write `first_compute_bound_batch(d_in, d_out, roof,
# max_batch)`: the smallest batch size B among 1, 2, 4, 8, ... up to `max_batch` (a power
# of two) for which this float32 matmul is compute-bound on `roof` (its compute bound is
# the largest of the three), or `None` if no such B exists up to `max_batch`. The
# helpers above may be used.

# %% solution 06_compile-batch
def first_compute_bound_batch(d_in, d_out, roof, max_batch):
    ### BEGIN SOLUTION
    batch = 1
    while batch <= max_batch:
        cost = helpers.roofline.matmul_cost(batch, d_in, d_out)
        if helpers.roofline.regime(cost, roof) == "compute":
            return batch
        batch *= 2
    return None
    ### END SOLUTION

# %% test 06_compile-batch-test points=2
_roof = helpers.roofline.Roof("test device", flops=1e12, bytes_per_s=1e11, overhead_s=1e-6)
_slow_calls = helpers.roofline.Roof("slow calls", flops=1e11, bytes_per_s=1e10, overhead_s=1e-5)
with checks.explain_errors({"": "[mc:roofline.weights-free] first_compute_bound_batch(d_in, "
                                "d_out, roof, max_batch) returns a batch size or None."},
                           "first_compute_bound_batch"):
    _wide = first_compute_bound_batch(1024, 1024, _roof, 2**16)
    _narrow = first_compute_bound_batch(64, 64, _slow_calls, 2**16)
    _tiny = first_compute_bound_batch(8, 8, _roof, 2**16)
for _name, _value in (("first_compute_bound_batch(1024, 1024, roof, 2**16)", _wide),
                      ("first_compute_bound_batch(64, 64, slow_calls, 2**16)", _narrow),
                      ("first_compute_bound_batch(8, 8, roof, 2**16)", _tiny)):
    checks.expect_true(_value is None or (isinstance(_value, int) and 1 <= _value <= 2**16),
                       f"{_name} is {_value!r}. [mc:roofline.never-compute-bound] Return a "
                       "batch size from 1 up to max_batch, or None when none of them is "
                       "compute-bound.")
    checks.expect_true(_value is None or _value & (_value - 1) == 0,
                       f"{_name} is {_value!r}. [mc:roofline.batch-powers] The task tries "
                       "B = 1, 2, 4, 8, ...: return one of those powers of two.")


def _first_and_only_first(value, d, roof, name):
    """The batch returned must be compute-bound on roof, and half of it must not be."""
    if not isinstance(value, int) or value < 1:
        return
    at = helpers.roofline.regime(helpers.roofline.matmul_cost(value, d, d), roof)
    checks.expect_true(at == "compute",
                       f"At B = {value} the {d}×{d} layer is still {at}-bound on {name}. "
                       "[mc:roofline.batch-before] Return the first batch at which it is "
                       "compute-bound, not the last one before.")
    checks.expect_true(value == 1 or helpers.roofline.regime(
                           helpers.roofline.matmul_cost(value // 2, d, d), roof) != "compute",
                       f"At B = {value // 2} the {d}×{d} layer is already compute-bound on "
                       f"{name} (its compute bound is the largest of the three). "
                       "[mc:roofline.bound-sum] Return the first such batch.")


checks.reject(_wide, {
    1: "[mc:roofline.weights-free] Count the weight matrix's bytes too: every call reads "
       "d_in·d_out weights, which is why a small batch is memory-bound.",
    64: "[mc:roofline.flops-multiplies-only] A matmul does 2·B·d_in·d_out FLOPs: a "
        "multiplication and an addition per step of each dot product.",
}, "first_compute_bound_batch(1024, 1024, roof, 2**16)")
_first_and_only_first(_wide, 1024, _roof, "roof")
checks.reject(_narrow, {
    64: "[mc:regime.no-overhead] At B = 64 the compute time (5 µs) is still below the 10 µs "
        "every call costs: compare with the fixed cost too.",
}, "first_compute_bound_batch(64, 64, slow_calls, 2**16)")
_first_and_only_first(_narrow, 64, _slow_calls, "slow_calls")
checks.reject(_tiny, {
    2**16: "[mc:roofline.never-compute-bound] An 8×8 layer is not compute-bound at B = 65,536 "
           "either: when no batch up to max_batch is, return None.",
}, "first_compute_bound_batch(8, 8, roof, 2**16)")
### BEGIN HIDDEN TESTS
def _reference_batch(d_in, d_out, roof, max_batch):
    b = 1
    while b <= max_batch:
        if helpers.roofline.bounds(helpers.roofline.matmul_cost(b, d_in, d_out), roof).bound == "compute":
            return b
        b *= 2
    return None


_h100 = helpers.roofline.SHEETS["NVIDIA H100 SXM"].roof(here.overhead_s)
for _args in ((1024, 1024, _roof, 2**16), (64, 64, _slow_calls, 2**16), (8, 8, _roof, 2**16),
              (4096, 4096, _h100, 2**16), (512, 2048, here, 2**12), (1024, 1024, _roof, 16),
              (1024, 1024, _roof, 32), (300, 700, _h100, 2**20)):
    _want = _reference_batch(*_args)
    _got = first_compute_bound_batch(*_args)
    checks.expect_true(_got == _want,
                       f"first_compute_bound_batch{(_args[0], _args[1], _args[2].name, _args[3])} "
                       f"is {_got!r}. [mc:roofline.batch-intensity] The layer does "
                       "2·B·d_in·d_out FLOPs and moves 4·(B·d_in + d_in·d_out + B·d_out) bytes; "
                       "try B = 1, 2, 4, ... up to max_batch (included) and return the first "
                       "whose compute bound is the largest of the three, or None.")
### END HIDDEN TESTS

# %% [markdown]
# ## 10. GPUs: datasheets, measurements and memory
#
# A GPU raises all three numbers of §1 and changes their balance. Here are the vendor's
# figures for a few common GPUs (**datasheet peaks, not measurements**: sustained rates
# are lower). The float32 column is what a float32 matmul gets in PyTorch at the default
# matmul precision, "highest" (the cell prints it); the 16-bit tensor-core column needs
# bfloat16 or float16 inputs. (`torch.set_float32_matmul_precision("high")` lets float32
# matmuls use the TF32 tensor-core format, between the two.)

# %%
print(helpers.roofline.format_datasheet())
print("float32 matmul precision here:", torch.get_float32_matmul_precision())

# %% [markdown]
# On a machine with a CUDA GPU the next cell measures a float32 matmul on the CPU and on
# the GPU across sizes (`torch.utils.benchmark` synchronises for you) and reads the GPU's
# memory counters. Without a GPU it prints the table measured on a GPU if the repository
# holds one, and says plainly when it does not: this page shows no GPU numbers that were
# not measured.
#
# The memory counters mean: `torch.cuda.memory_allocated()` is the bytes held by live
# tensors now; `torch.cuda.max_memory_allocated()` the peak of that since the last
# `torch.cuda.reset_peak_memory_stats()`; `torch.cuda.memory_reserved()` the bytes
# PyTorch's caching allocator holds from the GPU, which include freed blocks kept for
# reuse (asking the driver for memory is slow), so it is at least the allocated amount.
# Tools outside PyTorch (`nvidia-smi`) see the reserved memory as used;
# `torch.cuda.empty_cache()` gives the unused blocks back.

# %%
if torch.cuda.is_available():
    gpu_table = helpers.bench.gpu_matmul_table()
    print(helpers.bench.format_reference(gpu_table))
    display(helpers.bench.picture(helpers.bench.draw_gpu_table(gpu_table)))
else:
    print("No CUDA GPU on this machine: the GPU measurements were skipped.")
    print(helpers.bench.format_reference(helpers.bench.gpu_reference()))

# %% [markdown]
# ## 11. Common mistakes
#
# **1. Timing the first call of a compiled function.** It includes compiling, or loading
# from the cache, depending on the run. Section 7 measured both: report the first call as
# compile time (saying whether the cache answered) and the median after warm-up as the
# steady state, separately.
#
# **2. A Python number that changes on every call.** Dynamo guards on the Python values
# the code uses, and what a changing one costs depends on the `dynamic` setting. With
# `dynamic=False`, every new value is a new graph; with the default, automatic dynamic
# shapes make it symbolic after the first change; passed as a tensor, it is data:

# %%
def decay(x, step):
    return x * 0.9 ** step


for k, (setting, as_tensor) in enumerate(((False, False), (None, False), (False, True))):
    counter = Recorder()
    # a fresh copy each time: Dynamo remembers which arguments varied in earlier compiles
    # of the same function, and would start the default setting already dynamic
    decay_compiled = torch.compile(helpers.capture.fresh_copy(decay, f"decay_{k}"),
                                   backend=counter, dynamic=setting)
    for step in range(5):
        decay_compiled(torch.ones(3), torch.tensor(float(step)) if as_tensor else step)
    print(f"dynamic={setting}, step as a {'tensor' if as_tensor else 'Python int'}: "
          f"{counter.count} graph{'s' * (counter.count != 1)} for 5 calls")

# %% [markdown]
# **3. A graph break hidden in a helper.** A `print`, a Python `if` on a tensor's value
# or `.tolist()` inside code you compile splits the graph silently, also when it sits in
# a helper function the compiled code calls. `fullgraph=True` makes it an error:

# %%
def log_mean(t):
    print(f"mean activation {t.mean():.3f}")   # logging: not a tensor operation
    return t


def layer(x):
    return log_mean(torch.tanh(x)) * 2


with checks.expect_error(Exception):
    torch.compile(layer, backend="eager", fullgraph=True)(torch.ones(3))


def layer_fixed(x):
    return torch.tanh(x) * 2       # log outside the compiled code, from its outputs


print(torch.compile(layer_fixed, backend="eager", fullgraph=True)(torch.ones(3)))

# %% [markdown]
# **4. `torch.where` as a free way out of an `if`.** Both branches are differentiated:
# mask the unsafe branch's input too (§4, Exercise 1).
#
# **5. Believing a fixed speedup figure.** Earlier versions of PyTorch's documentation
# quoted "30% to 2x speedups" for `torch.compile` on real-world models, from benchmarks run
# on GPUs. This notebook measured its own numbers on this machine, and they depend on the
# regime: the size (§7's plot), the function (compare §7's ratio for the chain with §8's
# for the training step) and the dtype (the explorer). Measure yours.
#
# ## Summary
#
# - Every call pays a fixed overhead, a memory cost and a compute cost; the largest sets
#   its regime, and the regime says which remedy can help.
# - Eager PyTorch is define-by-run: Python control flow decides the graph at run time.
# - `torch.compile` = Dynamo (captures graphs from bytecode, with guards) + a backend
#   (Inductor generates fused code; `"eager"` and a recording backend only capture).
#   Inductor's FX graph cache makes a later first call cheap: say when it answered.
# - Graph breaks come from what Dynamo cannot record (a `print`, a Python `if` on a
#   tensor's value); `TORCH_LOGS="graph_breaks"` shows
#   them and `fullgraph=True` forbids them. `torch.where` keeps a choice in the graph, but
#   differentiates both branches: mask the unsafe branch's input.
# - A failed guard recompiles: new shapes (unless symbolic), dtypes, devices, and the
#   Python values the code used. `TORCH_LOGS="recompiles"` explains them,
#   `set_stance("fail_on_recompile")` forbids them, buckets bound them.
# - Time with warm-up, synchronisation and repeats; report the minimum for a bound, the
#   median for a typical call. Compile time pays back after `break_even_calls` calls, if
#   ever.
# - A compiled training step compiles the backward too. Fusion cuts memory traffic, not
#   FLOPs; CUDA graphs cut launch overhead on a GPU.
#
# **Next:** profile your own training step with `torch.profiler` before compiling it,
# find its regime, and measure before and after.

# %%
print(f"This notebook ran top to bottom in {time.perf_counter() - NOTEBOOK_STARTED:.0f} s "
      f"on this machine.")
