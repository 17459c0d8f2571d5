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
#   `fullgraph=True`) and remove them;
# - predict and count recompilations (guards, dynamic shapes, `mark_dynamic`), and keep
#   their number bounded;
# - time code correctly (warm-up, synchronisation, repeats) and read compile time, cache
#   hits and steady state apart;
# - compile a training step and an attention block, profile them with `torch.profiler`,
#   and place a measurement on a roofline.
#
# **Prerequisites:** notebooks 01 (tensors, dtypes), 02 (the graph autograd records) and
# 04 (the training loop). No GPU is needed: GPU cells say when they were skipped.
#
# **How this notebook works.** Quick quizzes ask you to *predict* before a cell shows the
# answer; numbered exercises (points in the heading) are graded. Run the test cell under an
# answer: when it fails, its message says what you probably believed and what to check.
#
# **Public and internal API.** `torch.compile` (with its `backend`, `fullgraph`, `dynamic`
# and `mode` arguments), `torch.compiler.reset()`, `set_stance` and `disable`, `torch.cond`,
# `torch.profiler` and the `TORCH_LOGS` environment variable are public, and so, although its
# module has an underscore, is `torch._dynamo.mark_dynamic`, which the documentation
# teaches. Other names with an underscore (`torch._dynamo.explain`, `torch._logging.set_logs`,
# `torch._inductor.config`) are internal: useful, but they may change between versions.

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
import helpers.compile_tasks
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
# that dominates. The three numbers of this machine, measured now on one thread (as every
# timing on this page), each the fastest of its repeats (a bound says what the machine
# *can* do; other programs only ever slow a repeat down): the time of `t.add_(1)` on a
# one-element tensor, the bandwidth of a copy too large for the CPU's caches, and the FLOP/s
# of a 256×256 matmul. They are measurements, not the processor's datasheet peaks: more
# threads or another matmul size can go faster, so a verdict below names this roof.

# %%
here = helpers.roofline.machine_roof()
print(f"overhead: {here.overhead_s * 1e6:6.2f} µs per eager call")
print(f"memory:   {here.bytes_per_s / 1e9:6.1f} GB/s (main memory; "
      f"{here.cache_bytes_per_s / 1e9:.0f} GB/s for 256 KiB, which stays in the caches)")
print(f"compute:  {here.flops / 1e9:6.1f} GFLOP/s (float32 256³ matmul, one thread)")

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
from helpers.grading import probe
probe.answer("answer_regimes")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_regimes"]
with checks.because("[mc:regime.answer-form] Answer with a pair of words, each 'overhead', "
                    "'memory' or 'compute'."):
    checks.expect_true(type(_answer) in (tuple, list) and len(_answer) == 2
                       and all(type(a) is str and a in ("overhead", "memory", "compute") for a in _answer),
                       f"answer_regimes is {checks.show(_answer)}, not a pair of those words.")
checks.answer("06_compile-quiz-regime", tuple(_answer), "answer_regimes")
# 100 elements: 800 bytes, a fraction of a microsecond at any memory bandwidth, under the µs
# of a call; 10,000,000: 80 MB take milliseconds to move, while their 10^7 FLOPs need a tenth
# of that at a CPU's FLOP/s. Constants, on any machine this runs on.
checks.expect_true(tuple(_answer) == ("overhead", "memory"),
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
# | compute-bound | FLOPs | faster arithmetic (tensor cores, 16-bit formats, §11); compiling does not remove FLOPs |
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
from helpers.grading import probe
probe.answer("answer_graphs")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_graphs"]
with checks.because("[mc:compile.quiz-type] The answer is a count, a whole number."):
    checks.answer("06_compile-quiz-graphs", _answer, "answer_graphs", kind=int)
checks.expect_true(_answer == 2,
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
from helpers.grading import probe
probe.answer("answer_where_grad")
### JUDGE
import math
from helpers.grading.probe import got
_answer = got["answer_where_grad"]
with checks.because("[mc:compile.quiz-type] The answer is a number."):
    checks.answer("06_compile-quiz-where", _answer, "answer_where_grad", kind=(int, float))
checks.expect_true(isinstance(_answer, float) and math.isnan(_answer),
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
# a gradient of 0 to the branch it did not pick, and `sqrt`'s backward computes
# 0 / (2·sqrt(x)): at x = −1 that is 0 / NaN, at x = 0 it is 0 / 0, and both are NaN. The safe form
# masks the *input* of the unsafe branch too, so that branch computes something harmless
# (`sqrt(1.0)`) where its result is thrown away.
#
# `torch.cond(pred, true_fn, false_fn, operands)` is the other way to keep a branch on one
# value in the graph: Dynamo captures both functions as subgraphs, and each call runs only
# the one `pred` chooses, forward and backward (both must return tensors of the same shape
# and dtype). `normalise` both ways, at x = 0, where `x / peak` is 0 / 0:

# %%
def normalise_cond(x):
    peak = x.abs().max()
    return torch.cond(peak > 1, lambda x: x / peak, lambda x: x.clone(), (x,))


for fn in (normalise_where, normalise_cond):
    x = torch.zeros(2, requires_grad=True)
    torch.compile(fn, backend="eager", fullgraph=True)(x).sum().backward()
    print(f"{fn.__name__:>15}: gradient at x = 0 {x.grad.tolist()}")

# %% [markdown]
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
#   `limit`, **including `x` = 0** (all zeros), where the norm is 0, whether it runs eagerly
#   or compiled.

# %% solution 06_compile-graph-break
def clip_norm_nobreak(x, limit):
    ### BEGIN SOLUTION
    norm = torch.linalg.vector_norm(x)
    over = norm > limit
    safe_norm = torch.where(over, norm, limit)   # never 0 on the branch that is thrown away
    return torch.where(over, x * (limit / safe_norm), x)
    ### END SOLUTION

# %% test 06_compile-graph-break-test points=2
_big, _small, _zero = torch.tensor([3.0, 4.0]), torch.tensor([0.6, 0.8]), torch.zeros(4)   # norms 5, 1, 0
with checks.explain_errors({"": helpers.compile_tasks.BREAK}, "clip_norm_nobreak, eager and compiled"):
    _seen = {"small": clip_norm_nobreak(_small, 2.0), "big": clip_norm_nobreak(_big, 2.0),
             "compiled big": helpers.compile_tasks.whole(clip_norm_nobreak)(_big, 2.0),
             "gradient at 0": helpers.compile_tasks.gradient(clip_norm_nobreak, _zero, 1.0),
             "compiled gradient at 0": helpers.compile_tasks.gradient(
                 helpers.compile_tasks.whole(clip_norm_nobreak), _zero, 1.0)}
helpers.compile_tasks.check_clip(_seen)
### BEGIN HIDDEN TESTS
import torch
import helpers.compile_tasks as _tasks
from helpers.grading import probe
probe.needs("clip_norm_nobreak")
_whole = _tasks.whole(clip_norm_nobreak)
_visible = {"small": (torch.tensor([0.6, 0.8]), 2.0), "big": (torch.tensor([3.0, 4.0]), 2.0)}
for _name, (_x, _limit) in _visible.items():
    probe.call(f"clip_norm_nobreak ({_name})", clip_norm_nobreak, _x, _limit)
probe.observe("clip_norm_nobreak compiled whole ([3, 4], 2.0)", lambda: _whole(torch.tensor([3.0, 4.0]), 2.0))
torch.manual_seed(6)
_inputs = {"7 values": torch.randn(7) * 5, "3 × 4, small": torch.randn(3, 4) * 0.01, "4 zeros": torch.zeros(4),
           "2 × 3 zeros": torch.zeros(2, 3), "float64": torch.randn(5, dtype=torch.float64) * 3,
           "3 × 3": torch.randn(3, 3)}
for _name, _x in _inputs.items():
    for _limit in (0.5, 2.0, 1.0):
        probe.call(f"clip_norm_nobreak({_name}, {_limit})", clip_norm_nobreak, _x, _limit)
        probe.call(f"the gradient at {_name}, {_limit}", _tasks.gradient, clip_norm_nobreak, _x, _limit)
        probe.observe(f"compiled whole, at {_name}, {_limit}", lambda: _whole(_x, _limit))
        probe.observe(f"the compiled gradient at {_name}, {_limit}", lambda: _tasks.gradient(_whole, _x, _limit))
### JUDGE
import torch
import helpers.compile_tasks as _tasks
from helpers.grading.probe import got
_hint = {"": "[mc:compile.branch-dropped] Call it as clip_norm_nobreak(x, limit) with a float tensor x."}
_seen = {"small": got.value("clip_norm_nobreak (small)", _hint[""]),
         "big": got.value("clip_norm_nobreak (big)", _hint[""]),
         "compiled big": got.value("clip_norm_nobreak compiled whole ([3, 4], 2.0)", _tasks.BREAK),
         "gradient at 0": got.value("the gradient at 4 zeros, 1.0", _hint[""]),
         "compiled gradient at 0": got.value("the compiled gradient at 4 zeros, 1.0", _tasks.BREAK)}
_tasks.check_clip(_seen)
torch.manual_seed(6)
_inputs = {"7 values": torch.randn(7) * 5, "3 × 4, small": torch.randn(3, 4) * 0.01, "4 zeros": torch.zeros(4),
           "2 × 3 zeros": torch.zeros(2, 3), "float64": torch.randn(5, dtype=torch.float64) * 3,
           "3 × 3": torch.randn(3, 3)}
for _name, _x in _inputs.items():
    for _limit in (0.5, 2.0, 1.0):
        _want = _tasks.clip_norm(_x, _limit)
        _grad = _tasks.gradient(_tasks.clip_norm, _x, _limit)
        for _key, _expected in ((f"clip_norm_nobreak({_name}, {_limit})", _want),
                                (f"compiled whole, at {_name}, {_limit}", _want)):
            _value = got.value(_key, _tasks.BREAK if "compiled" in _key else _hint[""])
            checks.expect_true(_value.dtype == _x.dtype,
                               f"{_key} has dtype {_value.dtype} for a {_x.dtype} x. [mc:compile.clip-scale] "
                               "clip_norm keeps x's dtype.")
            checks.expect_close(_value, _expected, _key, rtol=1e-5, atol=1e-7,
                                hint="[mc:compile.clip-scale] clip_norm_nobreak must return clip_norm's "
                                     "values: x unchanged within the limit, x scaled to a Euclidean norm "
                                     "of exactly limit above it.")
        for _key in (f"the gradient at {_name}, {_limit}", f"the compiled gradient at {_name}, {_limit}"):
            checks.expect_close(got.value(_key, _tasks.BREAK if "compiled" in _key else _hint[""]), _grad, _key,
                                rtol=1e-5, atol=1e-7,
                                hint="[mc:compile.unused-branch-gradient] The gradient must match "
                                     "clip_norm's, eager and compiled, also where the norm is 0.")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2: find the breaks, then remove them (3 points)
#
# *Misconceptions targeted: believing `.item()` or a boolean selection `x[mask]` stays in
# the graph; replacing a statistic over the selected values by one over all of them (or by
# another formula); believing a new function may round in another dtype.*
#
# `robust_scale` standardises a tensor the way a data pipeline might: it subtracts the
# median and divides by the standard deviation of the values that are not outliers (those
# within 3 median absolute deviations of the median), then clips to ±3. It runs, and
# compiled it runs too, but not as one graph:

# %%
def robust_scale(x):
    centre = x.median()
    spread = (x - centre).abs().median().item()
    inliers = x[(x - centre).abs() <= 3 * spread]
    return torch.clamp((x - centre) / inliers.std(), -3.0, 3.0)


pieces = Recorder()
with torch_log.quiet():   # torch's own warning would give part of the exercise away
    torch.compile(robust_scale, backend=pieces)(torch.randn(50, generator=torch.Generator().manual_seed(0)))
print(f"robust_scale compiled: {pieces.count} graphs")

# %% [markdown]
# Find out where and why it breaks: run it compiled inside
# `torch_log.shown(graph_breaks=True, brief=True)` (§4's cell shows how). Then write
# `robust_scale_whole(x)` that returns the same values as `robust_scale` in the same dtype,
# for any float tensor `x` (of any shape) whose values are not mostly equal, and that
# `torch.compile` at its default settings captures as **one** graph, as the recorder above
# counts them. Note that `inliers.std()` divides by n − 1, the number of kept values minus
# one (Bessel's correction, `torch.std`'s default): a standard deviation you write out
# must do the same.

# %% solution 06_compile-graph-breaks
def robust_scale_whole(x):
    ### BEGIN SOLUTION
    centre = x.median()
    spread = (x - centre).abs().median()            # a tensor: no .item()
    keep = (x - centre).abs() <= 3 * spread         # a mask instead of a selection
    count = keep.sum()
    mean = torch.where(keep, x, 0).sum() / count
    variance = torch.where(keep, (x - mean) ** 2, 0).sum() / (count - 1)   # std's n - 1
    return torch.clamp((x - centre) / variance.sqrt(), -3.0, 3.0)
    ### END SOLUTION

# %% test 06_compile-graph-breaks-test points=3
_x = helpers.compile_tasks.robust_inputs()["41 values with two outliers"]
with checks.explain_errors({"": "[mc:compile.item-avoids-break] robust_scale_whole(x) takes a float "
                                "tensor and returns one."}, "robust_scale_whole(x), eager and compiled"):
    _eager = robust_scale_whole(_x)
    _breaks = helpers.compile_tasks.breaks(robust_scale_whole, _x)
    _compiled = torch.compile(helpers.capture.fresh_copy(robust_scale_whole, "robust_visible"), backend="eager")(_x)
helpers.compile_tasks.check_robust(_eager, _x, "41 values with two outliers")
helpers.compile_tasks.check_one_graph(_breaks, "41 values with two outliers")
helpers.compile_tasks.check_robust(_compiled, _x, "41 values with two outliers, compiled")
### BEGIN HIDDEN TESTS
import torch
import helpers.capture
import helpers.compile_tasks as _tasks
from helpers.grading import probe
probe.needs("robust_scale_whole")
_compiled = torch.compile(helpers.capture.fresh_copy(robust_scale_whole, "robust_probe"), backend="eager")
for _name, _x in _tasks.robust_inputs().items():
    probe.call(f"robust_scale_whole({_name})", robust_scale_whole, _x)
    probe.observe(f"robust_scale_whole({_name}), compiled", lambda: _compiled(_x))
    probe.observe(f"how Dynamo captures robust_scale_whole({_name})", lambda: _tasks.breaks(robust_scale_whole, _x))
### JUDGE
import helpers.compile_tasks as _tasks
from helpers.grading.probe import got
_hint = "[mc:compile.item-avoids-break] robust_scale_whole(x) takes a float tensor and returns one."
for _name, _x in _tasks.robust_inputs().items():
    _tasks.check_robust(got.value(f"robust_scale_whole({_name})", _hint), _x, _name)
    _tasks.check_one_graph(got.value(f"how Dynamo captures robust_scale_whole({_name})", _hint), _name)
    _tasks.check_robust(got.value(f"robust_scale_whole({_name}), compiled", _hint), _x, f"{_name}, compiled")
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
from helpers.grading import probe
probe.answer("answer_recompiles")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_recompiles"]
with checks.because("[mc:compile.quiz-type] The answer is a count, a whole number."):
    checks.answer("06_compile-quiz-recompiles", _answer, "answer_recompiles", kind=int)
checks.expect_true(_answer == 4,   # (3,) float32 "double"; "add"; (5,); float64
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
# When you know that a dimension will vary, say so before the first compile:
# `torch._dynamo.mark_dynamic(t, dim)` marks dimension `dim` of the tensor `t`, and the graph
# compiled from a call with `t` has that size as a symbol, even under `dynamic=False`.

# %%
counter = Recorder()
compiled_poly = torch.compile(helpers.capture.fresh_copy(poly, "poly_marked"), backend=counter,
                              dynamic=False)
first = torch.ones(2)
torch._dynamo.mark_dynamic(first, 0)
for x in (first, torch.ones(3), torch.ones(40)):
    compiled_poly(x)
print(f"dynamic=False, the first input's length marked: {counter.count} graph for three lengths")

# %% [markdown]
# Python numbers the code uses are guarded too, and what a changing one costs depends on
# the `dynamic` setting. With `dynamic=False`, every new value is a new graph; with the
# default, automatic dynamic shapes make it symbolic after the first change; passed as a
# 0-d tensor (`torch.tensor(float(step))`), it is data, like any tensor's values:

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
# ### Exercise 3: a recompile storm (2 points)
#
# *Misconceptions targeted: believing that marking one varying dimension covers the others;
# believing a changing Python float is no change (a guard holds its value); believing that
# padding to one shape leaves every result unchanged.*
#
# A server scores requests with a compiled `score(tokens, temperature)`. Each request has its
# own batch size, its own sequence length and its own temperature, and the function is
# compiled with `dynamic=False` (say, to keep every graph's kernels static by default):

# %%
torch.manual_seed(0)
embed, scorer = nn.Embedding(100, 16), nn.Linear(16, 3)


def score(tokens, temperature):
    """Class probabilities for each sequence of a batch, sharpened or softened by temperature."""
    return torch.softmax(scorer(embed(tokens).mean(1)) / temperature, dim=-1)


shapes = [(4, 9, 0.7), (3, 12, 1.0), (6, 5, 0.5), (2, 30, 0.9), (5, 7, 1.3), (7, 11, 0.8)]
requests = [(torch.randint(0, 100, (b, n)), t) for b, n, t in shapes]
storm = Recorder()
serving = torch.compile(helpers.capture.fresh_copy(score, "score_storm"), backend=storm, dynamic=False)
for tokens, temperature in requests:
    serving(tokens, temperature)
print(f"{len(requests)} requests: {storm.count} graphs compiled")

# %% [markdown]
# Find out why with `torch_log.shown(recompiles=True, brief=True)`. Then write
# `serve(compiled_score, requests)`: call `compiled_score` once per request
# `(tokens, temperature)` (an int64 tensor of shape (batch, length), both at least 2, and a
# Python float), in order, and return the list of its results, each equal to
# `score(tokens, temperature)`, such that a `compiled_score` compiled with `dynamic=False`
# (which you do not change) compiles **one** graph however many requests come.

# %% solution 06_compile-storm allow=private:torch._dynamo.mark_dynamic
def serve(compiled_score, requests):
    ### BEGIN SOLUTION
    results = []
    for tokens, temperature in requests:
        torch._dynamo.mark_dynamic(tokens, 0)       # batch size: a symbol
        torch._dynamo.mark_dynamic(tokens, 1)       # length: a symbol
        # a Python float is guarded by its value; a 0-d tensor's value is data
        results.append(compiled_score(tokens, torch.tensor(temperature)))
    return results
    ### END SOLUTION

# %% test 06_compile-storm-test points=2
_requests = helpers.compile_tasks.storm_requests(helpers.compile_tasks.STORM_REQUESTS[:7])
with checks.explain_errors({"": "[mc:compile.storm-protocol] serve(compiled_score, requests) calls "
                                "compiled_score(tokens, temperature) once per request and returns "
                                "the list of results."}, "serve(compiled_score, requests)"):
    _seen = helpers.compile_tasks.serve_watched(serve, _requests)
_score = helpers.compile_tasks.make_score()
helpers.compile_tasks.check_storm(_seen, [_score(t, temp) for t, temp in _requests], len(_requests))
### BEGIN HIDDEN TESTS
import helpers.compile_tasks as _tasks
from helpers.grading import probe
probe.needs("serve")
for _count, _seed in ((7, 1), (12, 2), (1, 3)):
    probe.observe(f"serve({_count} requests, seed {_seed})",
                  lambda: _tasks.serve_watched(serve, _tasks.storm_requests(_tasks.STORM_REQUESTS[:_count], _seed)))
### JUDGE
import helpers.compile_tasks as _tasks
from helpers.grading.probe import got
_score = _tasks.make_score()
for _count, _seed in ((7, 1), (12, 2), (1, 3)):
    _requests = _tasks.storm_requests(_tasks.STORM_REQUESTS[:_count], _seed)
    _tasks.check_storm(got.value(f"serve({_count} requests, seed {_seed})",
                                 "[mc:compile.storm-protocol] serve(compiled_score, requests) returns the "
                                 "list of results."),
                       [_score(t, temp) for t, temp in _requests], _count)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 4: pad to a few lengths (2 points)
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
# raise a `ValueError` that says so. `F.pad` appends the zeros: its second argument gives,
# from the last dimension back, how many to add before and after:

# %%
print(F.pad(torch.tensor([1.0, 2.0, 3.0]), (0, 2)), F.pad(torch.ones(2, 2), (0, 0, 0, 1)))

# %% [markdown]
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
with checks.explain_errors({"": "[mc:compile.bucket-call] run_bucketed(compiled_fn, x, buckets) pads x "
                                "with zeros up to the smallest bucket that fits (a length equal to a "
                                "bucket's fits it) and calls compiled_fn once on the padded tensor."},
                           "run_bucketed(compiled_fn, x of lengths 1 to 16, (4, 8, 16))"):
    _seen = helpers.compile_tasks.bucketed_runs(run_bucketed, (4, 8, 16), range(1, 17))
helpers.compile_tasks.check_bucketed(_seen, (4, 8, 16), range(1, 17))
### BEGIN HIDDEN TESTS
import torch
import helpers.compile_tasks as _tasks
from helpers.grading import probe
probe.needs("run_bucketed")
probe.observe("run_bucketed, lengths 1 to 16, buckets (4, 8, 16)",
              lambda: _tasks.bucketed_runs(run_bucketed, (4, 8, 16), range(1, 17)))
probe.observe("run_bucketed, float64 lengths 1 to 9, buckets (3, 5, 9)",
              lambda: _tasks.bucketed_runs(run_bucketed, (3, 5, 9), (9, 1, 5, 4, 2, 3, 7, 6, 8), torch.float64, 1))
### JUDGE
import torch
import helpers.compile_tasks as _tasks
from helpers.grading.probe import got
_hint = ("[mc:compile.bucket-call] run_bucketed must work for any buckets and lengths up to the largest "
         "bucket: pad to the smallest bucket that fits (a length equal to a bucket's fits it).")
_tasks.check_bucketed(got.value("run_bucketed, lengths 1 to 16, buckets (4, 8, 16)", _hint), (4, 8, 16), range(1, 17))
_tasks.check_bucketed(got.value("run_bucketed, float64 lengths 1 to 9, buckets (3, 5, 9)", _hint), (3, 5, 9),
                      (9, 1, 5, 4, 2, 3, 7, 6, 8), torch.float64, 1)
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
# ### Exercise 5: a correct timing loop (2 points)
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
with checks.explain_errors({"": "[mc:bench.no-sync] time_samples(fn, warmup, repeats, clock, sync) "
                                "calls fn(), clock() and sync() with no arguments."}, "time_samples"):
    _seen = helpers.compile_tasks.timing_run(time_samples, [5.0, 0.5, 0.004, 0.002, 0.003, 0.020, 0.002], 2, 5)
helpers.compile_tasks.check_timing(_seen)
### BEGIN HIDDEN TESTS
import helpers.compile_tasks as _tasks
from helpers.grading import probe
probe.needs("time_samples")
for _durations, _warmup, _repeats in (((5.0, 0.5, 0.004, 0.002, 0.003, 0.020, 0.002), 2, 5),
                                      ((1.0, 0.01, 0.03, 0.02), 1, 3), ((0.25, 0.5), 0, 1)):
    probe.observe(f"time_samples on {_durations}, warmup={_warmup}, repeats={_repeats}",
                  lambda: _tasks.timing_run(time_samples, _durations, _warmup, _repeats))
### JUDGE
import torch
import helpers.compile_tasks as _tasks
from helpers.grading.probe import got
_hint = ("[mc:bench.no-sync] time_samples(fn, warmup, repeats, clock, sync) calls fn(), clock() and "
         "sync() with no arguments.")
_seen = got.value("time_samples on (5.0, 0.5, 0.004, 0.002, 0.003, 0.02, 0.002), warmup=2, repeats=5", _hint)
_tasks.check_timing(_seen)
_steady = [0.004, 0.002, 0.003, 0.020, 0.002]
_rounded = [round(v, 9) for v in _seen["samples"]]
checks.expect_true(not (sorted(_rounded) == sorted(_steady) and _rounded != _steady),
                   f"time_samples returned {list(_seen['samples'])}. [mc:bench.order-lost] Return the "
                   "samples in the order measured: the order shows when a slow call happened "
                   "(warm-up left over, another program starting).")
checks.expect_close(torch.tensor(list(_seen["samples"]), dtype=torch.float64), torch.tensor(_steady, dtype=torch.float64),
                    "time_samples(run, warmup=2, repeats=5, ...)",
                    hint="[mc:bench.no-sync] Each sample is one call's duration, from a clock read "
                         "after sync() to one read after the call and sync().")
_seen = got.value("time_samples on (1.0, 0.01, 0.03, 0.02), warmup=1, repeats=3", _hint)
checks.expect_close(torch.tensor(list(_seen["samples"]), dtype=torch.float64),
                    torch.tensor([0.01, 0.03, 0.02], dtype=torch.float64), "time_samples(run, warmup=1, repeats=3, ...)",
                    hint="[mc:bench.no-sync] The first timed sample included the warm-up call still "
                         "queued on the device: sync() before starting the clock as well as before "
                         "stopping it.")
_seen = got.value("time_samples on (0.25, 0.5), warmup=0, repeats=1", _hint)
checks.expect_close(torch.tensor(list(_seen["samples"]), dtype=torch.float64), torch.tensor([0.25], dtype=torch.float64),
                    "time_samples(run, warmup=0, repeats=1, ...)",
                    hint="[mc:bench.extra-calls] With warmup=0 the very first call is the one timed.")
checks.expect_true(_seen["calls"] == 1, f"fn ran {_seen['calls']} times for warmup=0, repeats=1. "
                                        "[mc:bench.extra-calls] One call, no more.")
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
# and the ratio grows. (A CPU's caches are faster than the main memory §1 measured, and the
# smallest tensors here may fit in them: their times can be shorter than §1's bandwidth
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
import helpers.bench  # so that this cell also runs on its own after a restart

helpers.bench.explore()

# %% [markdown]
# **When does compiling pay?** With compile time C and per-call times E (eager) and F
# (compiled), n calls cost C + n·F compiled and n·E eager: compiling has paid from
# n = ⌈C / (E − F)⌉ calls on, and never when F ≥ E. With what this run measured for the
# static chain (its first call, however the cache answered it, and its steady state against
# eager's):

# %%
saving, compile_s = eager_timing.median - compiled_timing.median, compiled_timing.first_call
print(f"first call {compile_s:.2f} s ({compiled_timing.first_events.describe()}); saving "
      f"{saving * 1e6:.1f} µs per call: " + (f"compiling has paid after {math.ceil(compile_s / saving):,} calls"
                                             if saving > 0 else "no number of calls pays it back"))

# %% [markdown]
# ### `mode="max-autotune"`: searching for the fastest kernel
#
# By default Inductor generates code for the operations it fuses and calls a library for a
# matmul or a convolution. `mode="max-autotune"` makes it *time* candidates for those
# operations (on a GPU, Triton matmul kernels in many tile sizes; on a CPU, C++ matmul
# templates it generates, beside the library's kernel) and keep the fastest, and on a GPU it
# also records CUDA graphs (§8). Every candidate is compiled and run during the first call.
# The cell compiles one linear layer for inference both ways (on a CPU the templates need
# the weights frozen into constants, an internal setting) and prints what the search timed:

# %%
for result in helpers.bench.autotune_first_calls():
    print(f"{result.mode:<27} first call {result.first_call:5.2f} s, then "
          f"{result.steady.median * 1e6:6.1f} µs per call")
    for line in result.report:
        print("    " + line)

# %% [markdown]
# The search is paid once per shape, in compile time, and the lines above say which kernel
# won here and by how much. It is meant for long-running jobs whose time goes into matmuls
# (compute-bound, §9), where a few per cent over hours repay minutes of search.

# %% [markdown]
# ## 8. Remedies for overhead, and a compiled training step
#
# **CUDA graphs** (`mode="reduce-overhead"`). On a GPU, eager PyTorch launches every kernel
# from Python, one at a time: when kernels are small, the GPU finishes each one before the
# CPU has launched the next, and waits. The GPU is then overhead-bound, however fast it
# is. A CUDA graph records a whole sequence of kernel launches once and replays it with a
# single launch. `torch.compile(model, mode="reduce-overhead")` makes Inductor do that.
# The price: a recorded graph replays fixed shapes and fixed memory addresses, so each new
# shape records a new graph (bucketing, Exercise 4, keeps them few), inputs are copied into
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
with checks.explain_errors(helpers.compile_tasks.TRAIN_HINTS,
                           "train_compiled(model, batches of 16, 16, 16 and 5 rows, 0.1, compile_fn)"):
    _seen = helpers.compile_tasks.train_watched(train_compiled, 60, (16, 16, 16, 5), 1)
helpers.compile_tasks.check_training(_seen, 60, (16, 16, 16, 5), 1)
### BEGIN HIDDEN TESTS
import helpers.compile_tasks as _tasks
from helpers.grading import probe
probe.needs("train_compiled")
for _seed, _sizes, _outputs, _zero_row in ((60, (16, 16, 16, 5), 1, False), (61, (8, 8, 1), 3, False),
                                           (62, (8, 8, 8), 2, False), (63, (12, 7), 2, True),
                                           (64, (6,), 1, False), (65, (20, 20, 3), 1, False)):
    probe.observe(f"train_compiled, seed {_seed}, batches of {_sizes} rows, {_outputs} outputs"
                  + (", a real row of zeros" if _zero_row else ""),
                  lambda: _tasks.train_watched(train_compiled, _seed, _sizes, _outputs, _zero_row))
### JUDGE
import helpers.compile_tasks as _tasks
from helpers.grading.probe import got
for _seed, _sizes, _outputs, _zero_row in ((60, (16, 16, 16, 5), 1, False), (61, (8, 8, 1), 3, False),
                                           (62, (8, 8, 8), 2, False), (63, (12, 7), 2, True),
                                           (64, (6,), 1, False), (65, (20, 20, 3), 1, False)):
    _key = (f"train_compiled, seed {_seed}, batches of {_sizes} rows, {_outputs} outputs"
            + (", a real row of zeros" if _zero_row else ""))
    _tasks.check_training(_tasks.explained(got, _key, _tasks.TRAIN_HINTS), _seed, _sizes, _outputs, _zero_row)
### END HIDDEN TESTS

# %% [markdown]
# ### The optimizer's step: one kernel per parameter, or a few
#
# An optimizer updates every parameter tensor, and Adam's update is a handful of elementwise
# operations per tensor: for a model of many small layers, a step of many small calls, the
# overhead regime again. `foreach=True` groups the tensors and runs each operation once over
# the whole group (PyTorch's "multi-tensor" kernels); `fused=True` runs the whole update of
# a group in one kernel, one pass over its memory. Adam's default picks `foreach` only when
# every tensor is on a GPU; on a CPU it loops (compare the first two rows). One step on a
# model of 24 linear layers of 64 × 64, with gradients already in place:

# %%
layers = nn.Sequential(*[nn.Linear(64, 64) for _ in range(24)])
for p in layers.parameters():
    p.grad = torch.randn_like(p)
for setting in ({}, {"foreach": False}, {"foreach": True}, {"fused": True}):
    adam = torch.optim.Adam(layers.parameters(), lr=1e-3, **setting)
    timing = helpers.bench.measure(adam.step, repeats=7, block=0.02)
    print(f"Adam({', '.join(f'{k}=True' if v else f'{k}=False' for k, v in setting.items()) or 'default'}):"
          f" {timing.median * 1e6:7.1f} µs per step")

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
from helpers.grading import probe
probe.answer("answer_flops")
### JUDGE
from helpers.grading.probe import got
_answer = got["answer_flops"]
with checks.because("[mc:compile.quiz-type] The answer is a count, a whole number."):
    checks.answer("06_compile-quiz-flops", _answer, "answer_flops", kind=int)
checks.expect_true(_answer in (2 * 64 * 128 * 32, 64 * 32 * (2 * 128 - 1)),
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
helpers.bench.picture(helpers.roofline.draw_roofline(points, here))

# %% [markdown]
# The fused chain sits eight times further right than the eager one: the same FLOPs, an
# eighth of the bytes. Its 65,536 floats (256 KiB) stay in the CPU's caches between calls,
# so its points may rise above main memory's sloped roof; the dotted roof, a copy of the
# same size measured in §1's cell, bounds data that stays in the caches.
#
# The **roofline explorer** puts an operation of your choice on two roofs: this machine's
# (measured, black; dotted for data in the caches) and a GPU's from its vendor's datasheet
# (dashed; the figures and their sources are printed in §11). The bars on the right are the
# three lower bounds on one call's time on each device; the coloured one binds. Try:
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
import helpers.roofline  # so that this cell also runs on its own after a restart

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
# of two, included) for which this float32 matmul is compute-bound on `roof`, or `None` if
# no such B exists up to `max_batch`. Compute-bound means that its time at `roof.flops`
# FLOP/s exceeds both its bytes' time at `roof.bytes_per_s` (main memory) and the fixed
# cost `roof.overhead_s`. Count the FLOPs and the bytes yourself: `helpers.roofline`'s
# functions are switched off while the tests call yours.

# %% solution 06_compile-batch
def first_compute_bound_batch(d_in, d_out, roof, max_batch):
    ### BEGIN SOLUTION
    batch = 1
    while batch <= max_batch:
        flops = 2 * batch * d_in * d_out
        moved = 4 * (batch * d_in + d_in * d_out + batch * d_out)   # inputs, weights, outputs
        compute_s = flops / roof.flops
        if compute_s > moved / roof.bytes_per_s and compute_s > roof.overhead_s:
            return batch
        batch *= 2
    return None
    ### END SOLUTION

# %% test 06_compile-batch-test points=2
_cases = helpers.compile_tasks.batch_cases()
for _name in ("1024 × 1024, roof", "64 × 64, slow calls", "8 × 8, roof"):
    _d_in, _d_out, _flops, _bw, _overhead, _max = _cases[_name]
    _roof = helpers.roofline.Roof(_name, flops=_flops, bytes_per_s=_bw, overhead_s=_overhead)
    with helpers.compile_tasks.roofline_switched_off(), checks.explain_errors(
            helpers.compile_tasks.BATCH_HINTS, f"first_compute_bound_batch({_name})"):
        _got = first_compute_bound_batch(_d_in, _d_out, _roof, _max)
    helpers.compile_tasks.check_batch_form(_got, _name, _max)
    checks.answer("06_compile-batch", (_name, _got), f"first_compute_bound_batch({_name})")
### BEGIN HIDDEN TESTS
import helpers.compile_tasks as _tasks
import helpers.roofline
from helpers.grading import probe
probe.needs("first_compute_bound_batch")
for _name, (_d_in, _d_out, _flops, _bw, _overhead, _max) in _tasks.batch_cases().items():
    _roof = helpers.roofline.Roof(_name, flops=_flops, bytes_per_s=_bw, overhead_s=_overhead)
    with _tasks.roofline_switched_off():
        probe.call(f"first_compute_bound_batch({_name})", first_compute_bound_batch, _d_in, _d_out, _roof, _max)
### JUDGE
import helpers.compile_tasks as _tasks
from helpers.grading.probe import got

# each case's answer, worked out from the task's words (nbmake checks the reference against them)
ANSWERS = {"1024 × 1024, roof": 32, "64 × 64, slow calls": 128, "8 × 8, roof": None,
           "64 × 64, slow arithmetic": 1, "16 × 4096, outputs count": 32, "4096 × 16, outputs count": 32,
           "1024 × 1024, up to 16": None, "1024 × 1024, up to 32": 32, "4096 × 4096, H100": 64,
           "300 × 700, H100": 1024, "512 × 2048, H100": 256}


def _search(d_in, d_out, flops, bytes_per_s, overhead_s, max_batch, *, weights=True, outputs=True,
            multiplies=2.0, overhead=True, first=1, included=True, summed=False):
    """The search with one ingredient changed: how a wrong answer came about."""
    b = first
    while b <= max_batch if included else b < max_batch:
        compute = multiplies * b * d_in * d_out / flops
        memory = 4.0 * (b * d_in + (d_in * d_out if weights else 0) + (b * d_out if outputs else 0)) / bytes_per_s
        fixed = overhead_s if overhead else 0.0
        if (compute > memory + fixed) if summed else (compute > memory and compute > fixed):
            return b
        b *= 2
    return None


for _name, _case in _tasks.batch_cases().items():
    _value = got.value(f"first_compute_bound_batch({_name})", _tasks.BATCH_HINTS)
    _tasks.check_batch_form(_value, _name, _case[5])
    _want = ANSWERS[_name]
    if _value == _want:
        continue
    _said = f"first_compute_bound_batch({_name}) is {checks.show(_value)}"
    for _answer, _reason in [
        (_search(*_case, first=2), "[mc:roofline.batch-from-two] The search starts at B = 1: here a "
                                   "single input is already compute-bound."),
        (_search(*_case, outputs=False), "[mc:roofline.outputs-free] Count the output's bytes too: the "
                                         "matmul writes B·d_out results, which moves as many bytes as "
                                         "reading them would."),
        (_search(*_case, weights=False), "[mc:roofline.weights-free] Count the weight matrix's bytes too: "
                                         "every call reads d_in·d_out weights, which is why a small batch "
                                         "is memory-bound."),
        (_search(*_case, included=False), "[mc:roofline.batch-intensity] Try B up to max_batch, included."),
        (_search(*_case, multiplies=1.0), "[mc:roofline.flops-multiplies-only] A matmul does 2·B·d_in·d_out "
                                          "FLOPs: a multiplication and an addition per step of each dot product."),
        (_search(*_case, overhead=False), "[mc:regime.no-overhead] Compare the compute time with the fixed "
                                          "cost of a call too: below it, the call is overhead-bound."),
        (_search(*_case, summed=True), "[mc:roofline.bound-sum] Compute-bound means the compute time is the "
                                       "largest of the three, not larger than the other two added."),
        (_want // 2 if _want else None, "[mc:roofline.batch-before] Return the first batch at which it is "
                                        "compute-bound, not the last one before."),
        (_case[5] if _want is None else None, "[mc:roofline.never-compute-bound] When no batch up to "
                                              "max_batch is compute-bound, return None."),
    ]:
        if _answer != _want and _value == _answer:
            checks.expect_true(False, f"{_said}. {_reason}")
    checks.expect_true(False, f"{_said}. [mc:roofline.batch-intensity] The layer does 2·B·d_in·d_out "
                              "FLOPs and moves 4·(B·d_in + d_in·d_out + B·d_out) bytes; try B = 1, 2, "
                              "4, ... up to max_batch and return the first whose compute time exceeds "
                              "both the bytes' time and the fixed cost, or None.")
### END HIDDEN TESTS

# %% wrong 06_compile-batch
{  # the visible cases' known wrong answers, as (case, value): the right ones stay in the judge
    ("1024 × 1024, roof", 1): "[mc:roofline.weights-free] Count the weight matrix's bytes too: every "
                              "call reads d_in·d_out weights, which is why a small batch is memory-bound.",
    ("1024 × 1024, roof", 64): "[mc:roofline.flops-multiplies-only] A matmul does 2·B·d_in·d_out FLOPs: "
                               "a multiplication and an addition per step of each dot product.",
    ("1024 × 1024, roof", 16): "[mc:roofline.batch-before] Return the first batch at which it is "
                               "compute-bound, not the last one before.",
    ("64 × 64, slow calls", None): "[mc:roofline.flops-multiplies-only] A matmul does 2·B·d_in·d_out "
                                   "FLOPs: a multiplication and an addition per step of each dot product.",
    ("64 × 64, slow calls", 64): "[mc:regime.no-overhead] Compare the compute time with the fixed cost "
                                 "of a call too: below it, the call is overhead-bound.",
    ("64 × 64, slow calls", 512): "[mc:roofline.bound-sum] Compute-bound means the compute time is the "
                                  "largest of the three, not larger than the other two added.",
    ("8 × 8, roof", 65536): "[mc:roofline.never-compute-bound] When no batch up to max_batch is "
                            "compute-bound, return None.",
}

# %% [markdown]
# ## 10. An attention block, compiled and profiled
#
# Notebook 05 trained a classifier around one attention layer: queries, keys and values
# from one linear layer, and a bool mask that keeps padding out. A transformer repeats a
# *block* built around that layer: layer norms, residual connections, several heads, and an
# MLP. This is the canonical workload for `torch.compile`, so here is one, small: 64
# features, 4 heads, in inference. It is compiled once for every length: the length
# dimension of the first inputs is marked dynamic (§5). The first call also asks Inductor
# (internal setting) to name each kernel it generates in a profile.

# %%
class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, mask):                          # (B, T, dim) and (B, T) bool
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        mixed = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])
        x = x + self.out(mixed.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


torch.manual_seed(0)
block = Block(dim=64, heads=4).eval()
block_inputs = {}
for name, (batch, length) in (("8 × 32", (8, 32)), ("8 × 256", (8, 256))):
    real = torch.randint(length // 4, length + 1, (batch, 1))   # each sequence's real length
    block_inputs[name] = (torch.randn(batch, length, 64), torch.arange(length) < real)
compiled_block = torch.compile(block)
x, mask = block_inputs["8 × 32"]
torch._dynamo.mark_dynamic(x, 1)
torch._dynamo.mark_dynamic(mask, 1)
with torch.no_grad(), torch._inductor.config.patch({"cpp.enable_kernel_profile": True}):
    block_first = helpers.bench.measure(lambda: compiled_block(x, mask), time_first=True, repeats=3)
print(f"first call: {block_first.first_call:.1f} s ({block_first.first_events.describe()})")

# %% [markdown]
# **Where the time goes.** `torch.profiler.profile` records every operation (and, with the
# setting above, every generated kernel) run inside it; `key_averages().table(...)` sums them
# by name. Five calls of each version at the longer length, sorted by the time spent in
# each operation itself:

# %%
x, mask = block_inputs["8 × 256"]
for label, run in (("eager", block), ("compiled", compiled_block)):
    # quiet_stderr: the profiler's C++ side writes a line to the error stream at start and stop
    with helpers.bench.quiet_stderr(), torch.no_grad(), \
            torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(5):
            run(x, mask)
    print(f"{label}:\n" + prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=7,
                                                      max_name_column_width=38))
fused_kernels = sorted({event.key for event in prof.key_averages() if "cpp_fused" in event.key})
print("kernels Inductor generated:", *fused_kernels, sep="\n  ")

# %% [markdown]
# Read the two tables row by row. The attention (`_scaled_dot_product_flash_attention…`)
# and the linear layers (`addmm`) are library calls in both: Inductor hands a matmul to the
# library unless told to search (§7's max-autotune). What it generated are the
# `cpp_fused_…` kernels, named after the operations each one fuses (a layer norm with the
# residual addition before it, the GELU with the reshape around it); `Torch-Compiled Region`
# and `TorchDynamo Cache Lookup` are the wrapper's fixed costs. Now both lengths, timed,
# with the FLOPs counted by `FlopCounterMode` (under the plain "math" attention, which
# computes the same products with matmuls it counts) and the bytes a block must move at
# least (its weights, its input and its output, once each):

# %%
block_points = []
for name, (x, mask) in block_inputs.items():
    with torch.no_grad():
        eager_t = helpers.bench.measure(lambda: block(x, mask), repeats=5)
        compiled_t = helpers.bench.measure(lambda: compiled_block(x, mask), repeats=5)
        difference = (compiled_block(x, mask) - block(x, mask)).abs().max().item()
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH), \
                FlopCounterMode(display=False) as counted:
            block(x, mask)
    weights = sum(p.numel() * p.element_size() for p in block.parameters())
    cost = helpers.roofline.Cost(f"block {name}", counted.get_total_flops(),
                                 weights + 2 * x.numel() * x.element_size() + mask.numel())
    print(f"{name}: eager {eager_t.median * 1e3:6.2f} ms, compiled {compiled_t.median * 1e3:6.2f} ms "
          f"({eager_t.median / compiled_t.median:.2f}×, {helpers.bench.verdict(eager_t.median, compiled_t.median)});"
          f" largest difference {difference:.1g}")
    print(f"{'':>9}{cost.flops / 1e6:,.0f} MFLOP, {cost.bytes / 1e6:.2f} MB: {cost.intensity:.0f} FLOP/byte, "
          f"{helpers.roofline.regime(cost, here)}-bound under §1's roof (one thread, 256³ matmul)")
    block_points += [helpers.roofline.roofline_point(cost, eager_t.median, f"block {name}, eager"),
                     helpers.roofline.roofline_point(cost, compiled_t.median, f"block {name}, compiled")]
helpers.bench.picture(helpers.roofline.draw_roofline(block_points, here))

# %% [markdown]
# Compare the two lengths on the roofline. Far right of the ridge, the block is
# compute-bound under this roof: its matmuls and its attention, which compiling leaves to
# the same library kernels, set most of its time, and the speedup can only come from the
# rest, the share the profile gave to the small operations Inductor fused. At the shorter
# length every operation is smaller and the fixed costs weigh more. (The roof is one
# thread's 256³ matmul: a block's matmuls of other shapes, on more threads, could go
# faster.)

# %% [markdown]
# ## 11. GPUs: datasheets, measurements and memory
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
# ## 12. Common mistakes
#
# **1. Timing the first call of a compiled function.** It includes compiling, or loading
# from the cache, depending on the run. Section 7 measured both: report the first call as
# compile time (saying whether the cache answered) and the median after warm-up as the
# steady state, separately.
#
# **2. A Python number that changes on every call.** Dynamo guards on the Python values
# the code uses: with `dynamic=False` every new value is a new graph (§5's `decay` cell
# counted one graph per step). Pass a number that changes as a 0-d tensor, which is data.

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
# When the helper must stay where it is, `torch.compiler.disable` marks it as code Dynamo
# does not enter: the break remains (and `fullgraph=True` still refuses it), but Dynamo no
# longer tries to trace into the helper, and the log says the break is deliberate:

# %%
quiet_log_mean = torch.compiler.disable(log_mean)


def layer_logged(x):
    return quiet_log_mean(torch.tanh(x)) * 2


logged = Recorder()
with torch_log.shown(graph_breaks=True, brief=True):
    torch.compile(layer_logged, backend=logged)(torch.ones(3))
print(f"{logged.count} graphs")

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
#   its regime, and the regime says which remedy can help. A measured roof names how it was
#   measured (here: one thread, a 256³ matmul, copies in and out of the caches).
# - `torch.compile` = Dynamo (captures graphs from bytecode, with guards) + a backend
#   (Inductor generates fused code; `"eager"` and a recording backend only capture).
# - Graph breaks come from what Dynamo cannot record (a `print`, `.item()`, a Python `if`
#   on a tensor's value, a selection of data-dependent size): `TORCH_LOGS="graph_breaks"`
#   shows them, `fullgraph=True` forbids them, `torch.where` (mask the unsafe branch's
#   input) and `torch.cond` keep a choice in the graph, `torch.compiler.disable` marks a
#   break as deliberate.
# - A failed guard recompiles: new shapes (unless symbolic), dtypes, devices, and the
#   Python values the code used. `TORCH_LOGS="recompiles"` explains them, `mark_dynamic`
#   and tensors instead of Python numbers prevent them, buckets bound them,
#   `set_stance("fail_on_recompile")` forbids them.
# - Time with warm-up, synchronisation and repeats; report the minimum for a bound, the
#   median for a typical call; count the compile time and the cache's part in it.
# - Fusion cuts memory traffic and calls, not FLOPs: a compiled training step or
#   attention block speeds up by the share of its time outside the matmuls, which
#   `torch.profiler` shows; `max-autotune` searches the matmuls' kernels at a compile-time
#   price; foreach and fused optimizers cut the step's calls; CUDA graphs cut launch
#   overhead on a GPU.
#
# **Next:** profile your own training step with `torch.profiler` before compiling it,
# find its regime, and measure before and after.

# %%
print(f"This notebook ran top to bottom in {time.perf_counter() - NOTEBOOK_STARTED:.0f} s "
      f"on this machine.")
