# %% [markdown]
# # 06 Compile: define-by-run, torch.compile and speedups, measured
#
# Everything so far ran **eagerly**: each line of Python called one PyTorch operation,
# which ran at once and returned a tensor. That is what makes PyTorch easy to debug, and
# it has a cost: every operation is a separate trip through Python and, for elementwise
# work, a separate pass over memory. `torch.compile` captures your Python code as a graph
# and generates fused code for it. Whether that pays off depends on the function, the
# sizes and how often you call it, so in this notebook nothing is claimed that a cell
# does not measure on the machine you are using.
#
# **You will learn to**
# - tell define-by-run from define-and-run, and see why data-dependent control flow needs
#   the first;
# - say what Dynamo captures and what Inductor generates, and read a captured graph;
# - predict and **count** recompilations (guards) and find and remove graph breaks;
# - time code correctly (warm-up, synchronisation, median of repeats) and decide from
#   measured numbers whether compiling is worth its compile time;
# - place a measurement on a roofline: FLOPs, bytes moved, and why fusion helps.
#
# **Prerequisites:** notebooks 01 (tensors, dtypes) and 02 (the graph autograd records).
# Notebooks 03-05 help with the small model in section 7 but are not needed.

# %%
import math
import statistics
import time

import torch
import torch._dynamo
import torch.fx
from IPython.display import display
from torch import nn
from torch._dynamo.testing import CompileCounter

import helpers.bench
import helpers.roofline
from helpers import checks, torch_log

torch.manual_seed(0)
# Every timing below uses one CPU thread: on a machine shared with other programs, a
# second thread often waits for a core, and that waiting would be most of what we measure.
torch.set_num_threads(1)

# %% [markdown]
# ## 1. Define-by-run and define-and-run
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
# ## 2. torch.compile: Dynamo captures, a backend compiles
#
# `torch.compile(fn)` returns a wrapper. On a call, **Dynamo** reads the Python bytecode
# of `fn` as it is about to run with these inputs and records the tensor operations into
# an FX graph, like the one above. It hands the graph to a **backend**:
#
# - `"inductor"` (the default) generates code: C++ with OpenMP on a CPU, Triton kernels
#   on a GPU, with chains of elementwise ops fused into single loops;
# - `"eager"` runs the captured graph with ordinary PyTorch ops (no code generation):
#   it costs only Dynamo's capture, which is why the exercises here use it;
# - any function `backend(graph_module, example_inputs)` that returns a callable, for
#   example one that records the graph so that we can look at it.
#
# Dynamo also records **guards**: the conditions under which the captured graph is valid
# (the shapes, dtypes and devices of the input tensors, and any Python value the code
# branched on). The next call checks the guards; if they all hold, the cached code runs,
# otherwise Dynamo captures again (a **recompilation**).

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
# Where Dynamo meets something it cannot put into a graph (a `print`, a Python branch on
# a tensor's value, a call into a library it does not understand) it **breaks the
# graph**: it compiles the operations before that point as one graph, lets Python run the
# unsupported part, and starts a new graph after it.
#
# **Quick quiz.** How many graphs does Dynamo capture from this function? Put a whole
# number in `answer_graphs`. (The next section counts them.)
#
# ```python
# def noisy(x):
#     y = torch.sin(x) * 2
#     print("halfway there")
#     return torch.cos(y) + 1
# ```

# %% solution 06_compile-quiz-graphs
### BEGIN SOLUTION
answer_graphs = 2
### END SOLUTION

# %% test 06_compile-quiz-graphs-test points=1
checks.expect_type(answer_graphs, int, "answer_graphs")
checks.reject(answer_graphs, {
    1: "[mc:compile.print-in-graph] A print is not a tensor operation: Dynamo cannot "
       "record it in a graph, so it splits the function around it.",
    3: "[mc:compile.break-is-graph] The print itself runs as ordinary Python between "
       "the graphs; it is not a graph of its own.",
}, "answer_graphs")
### BEGIN HIDDEN TESTS
def _noisy(x):
    y = torch.sin(x) * 2
    print("halfway there")
    return torch.cos(y) + 1


_explained = torch._dynamo.explain(_noisy)(torch.ones(3))
checks.expect_close(answer_graphs, _explained.graph_count, "answer_graphs", rtol=0, atol=0,
                    hint="[mc:compile.print-in-graph] The operations before the print form "
                         "one graph and those after it another.")
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Graph breaks, found and removed
#
# `torch._dynamo.explain(fn)(*args)` runs Dynamo on `fn` once and reports the graphs it
# made, the breaks, and why each break happened:

# %%
def noisy(x):
    y = torch.sin(x) * 2
    print("halfway there")
    return torch.cos(y) + 1


report = torch._dynamo.explain(noisy)(torch.ones(3))
print(f"graphs: {report.graph_count}, graph breaks: {report.graph_break_count}")
for reason in report.break_reasons:
    print("  reason:", reason.reason.splitlines()[0])

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


report = torch._dynamo.explain(normalise)(torch.tensor([3.0, -6.0]))
print(f"graphs: {report.graph_count}, graph breaks: {report.graph_break_count}")
print("  reason:", report.break_reasons[0].reason.splitlines()[0])

# %% [markdown]
# The way out is to keep the decision inside the graph as a tensor operation. With
# `torch.where(condition, a, b)` both branches are computed and the condition picks one
# (per element, or here for all elements at once, since the condition is one value):

# %%
def normalise_where(x):
    peak = x.abs().max()
    return torch.where(peak > 1, x / peak, x)


report = torch._dynamo.explain(normalise_where)(torch.tensor([3.0, -6.0]))
print(f"graphs: {report.graph_count}, graph breaks: {report.graph_break_count}")
for sample in (torch.tensor([3.0, -6.0]), torch.tensor([0.5, -0.25])):
    print(sample.tolist(), "->", normalise(sample).tolist(), "and", normalise_where(sample).tolist())

# %% [markdown]
# `Tensor.item()` breaks a graph too: it turns a tensor into a Python number, which
# Dynamo does not have while tracing. Dynamo also logs a warning about it, with the
# setting that would capture the number instead; `torch_log.shown()` prints torch's log
# here as plain output (torch writes it to the error stream, which the notebook paints red).

# %%
def scale_by_total(x):
    return x * x.sum().item()


with torch_log.shown():
    report = torch._dynamo.explain(scale_by_total)(torch.ones(3))
print(f"graphs: {report.graph_count}, graph breaks: {report.graph_break_count}")
print("  reason:", report.break_reasons[0].reason.splitlines()[0])

# %% [markdown]
# Here `x * x.sum()` gives the same values and keeps the graph whole: keep conversions to
# Python values out of the code you compile, or move them to after it.
#
# ### Exercise 1: remove a graph break (2 points)
#
# *Misconception targeted: believing the `if` can simply go (dropping a branch), or that
# `.item()` is a graph-friendly way to read the condition.*
#
# `clip_norm(x, limit)` rescales `x` so that its Euclidean norm is at most `limit`:
#
# ```python
# def clip_norm(x, limit):
#     norm = torch.linalg.vector_norm(x)
#     if norm > limit:
#         return x * (limit / norm)
#     return x
# ```
#
# Write `clip_norm_nobreak(x, limit)` that returns the same values for every `x` (a float
# tensor) and positive float `limit`, and that `torch._dynamo.explain` compiles with **no**
# graph break.

# %% solution 06_compile-graph-break
def clip_norm_nobreak(x, limit):
    ### BEGIN SOLUTION
    norm = torch.linalg.vector_norm(x)
    return torch.where(norm > limit, x * (limit / norm), x)
    ### END SOLUTION

# %% test 06_compile-graph-break-test points=2
def _clip_norm(x, limit):
    norm = torch.linalg.vector_norm(x)
    if norm > limit:
        return x * (limit / norm)
    return x


_big, _small = torch.tensor([3.0, 4.0]), torch.tensor([0.3, 0.4])
with checks.explain_errors({"": "[mc:compile.branch-dropped] Call it the way the test "
                                "does: clip_norm_nobreak(x, limit) with a float tensor x."},
                           "clip_norm_nobreak(x, 1.0)"):
    _got_big, _got_small = clip_norm_nobreak(_big, 1.0), clip_norm_nobreak(_small, 1.0)
checks.expect_close(_got_small, _clip_norm(_small, 1.0), "clip_norm_nobreak([0.3, 0.4], 1.0)",
                    hint="[mc:compile.branch-dropped] A norm already within the limit must "
                         "leave x unchanged: removing the if must keep both branches "
                         "(torch.where computes both and picks one).")
checks.expect_close(_got_big, _clip_norm(_big, 1.0), "clip_norm_nobreak([3.0, 4.0], 1.0)",
                    hint="[mc:compile.branch-dropped] A norm above the limit must be scaled "
                         "down to the limit: removing the if must keep both branches.")
_explained = torch._dynamo.explain(clip_norm_nobreak)(_big, 1.0)
checks.expect_close(_explained.graph_break_count, 0, "graph breaks in clip_norm_nobreak",
                    rtol=0, atol=0,
                    hint="[mc:compile.item-avoids-break] A Python if on a tensor, .item(), "
                         ".tolist() or a print still needs a value Dynamo does not have "
                         "while tracing: express the choice as a tensor operation "
                         "(torch.where, clamp, minimum).")
### BEGIN HIDDEN TESTS
with checks.explain_errors({"": "[mc:compile.branch-dropped] clip_norm_nobreak must accept "
                                "any float tensor and a positive float limit."},
                           "clip_norm_nobreak"):
    for _x in (torch.randn(7) * 5, torch.randn(3, 4) * 0.01, torch.zeros(4)):
        for _limit in (0.5, 2.0):
            checks.expect_close(clip_norm_nobreak(_x, _limit), _clip_norm(_x, _limit),
                                f"clip_norm_nobreak(x of shape {tuple(_x.shape)}, {_limit})",
                                hint="[mc:compile.branch-dropped] Both branches must stay.")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Guards and recompilation, counted
#
# `CompileCounter` from `torch._dynamo.testing` is a backend that runs graphs eagerly and
# counts them: `frame_count` is the number of graphs compiled, `op_count` the number of
# operations in them. `torch._dynamo.reset()` makes Dynamo forget every compiled graph and
# what it remembered about earlier calls, so that a count starts from zero.
#
# `dynamic=False` asks Dynamo to treat every shape as a constant: a new shape fails a
# guard and recompiles.
#
# **Quick quiz.** Predict `counter.frame_count` after these six calls. Put a whole number
# in `answer_recompiles`. (The cell after the quiz runs them.)
#
# ```python
# def scale(x, mode):
#     if mode == "double":
#         return x * 2
#     return x + 1
#
# torch._dynamo.reset()
# counter = CompileCounter()
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
checks.expect_type(answer_recompiles, int, "answer_recompiles")
checks.reject(answer_recompiles, {
    6: "[mc:compile.every-call] A call whose guards all hold reuses the cached graph: "
       "only calls that fail a guard compile.",
    5: "[mc:compile.values-guarded] Guards check a tensor's shape, dtype and device, "
       "not its values: ones and zeros of the same shape share a graph.",
    3: "[mc:compile.dtype-unguarded] A float64 tensor needs different code from a "
       "float32 one, so the dtype is guarded as well as the shape.",
    2: "[mc:compile.shape-unguarded] With dynamic=False every new shape fails a guard, "
       "and so does the string mode the code branched on.",
}, "answer_recompiles")
### BEGIN HIDDEN TESTS
def _scale(x, mode):
    if mode == "double":
        return x * 2
    return x + 1


torch._dynamo.reset()
_counter = CompileCounter()
_fast = torch.compile(_scale, backend=_counter, dynamic=False)
for _args in ((torch.ones(3), "double"), (torch.zeros(3), "double"), (torch.ones(3), "add"),
              (torch.ones(5), "add"), (torch.ones(3, dtype=torch.float64), "add"),
              (torch.ones(3), "double")):
    _fast(*_args)
checks.expect_close(answer_recompiles, _counter.frame_count, "answer_recompiles",
                    rtol=0, atol=0,
                    hint="[mc:compile.shape-unguarded] Go through the calls one by one: a "
                         "call compiles when its shape, dtype or mode differs from every "
                         "earlier call's.")
### END HIDDEN TESTS

# %% [markdown]
# Now run it. `torch._logging.set_logs(recompiles=True)` makes Dynamo explain every
# recompilation: which guard failed, and for a Python value, which line branched on it.
# `torch_log.shown(recompiles=True)` does that for one block and prints the log as plain
# output; on your own, `set_logs(recompiles=True)` logs to the error stream until
# `set_logs()` turns it off.

# %%
def scale(x, mode):
    if mode == "double":
        return x * 2
    return x + 1


torch._dynamo.reset()
counter = CompileCounter()
fast = torch.compile(scale, backend=counter, dynamic=False)
with torch_log.shown(recompiles=True):
    for args in ((torch.ones(3), "double"), (torch.zeros(3), "double"), (torch.ones(3), "add"),
                 (torch.ones(5), "add"), (torch.ones(3, dtype=torch.float64), "add"),
                 (torch.ones(3), "double")):
        fast(*args)
        print(f"after fast{tuple(args[0].shape), str(args[0].dtype), args[1]}: "
              f"{counter.frame_count} graphs compiled")

# %% [markdown]
# ### Exercise 2: count compilations (2 points)
#
# *Misconception targeted: counting calls (or operations) instead of compilations, and
# calling the original function instead of the compiled wrapper.*
#
# Write `count_compiles(fn, calls)` that resets Dynamo, compiles `fn` with a new
# `CompileCounter` as the backend and `dynamic=False`, calls the compiled function
# once with each argument tuple in the list `calls` (`compiled(*args)`), and returns the
# number of graphs compiled, as an `int`.

# %% solution 06_compile-count
def count_compiles(fn, calls):
    ### BEGIN SOLUTION
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(fn, backend=counter, dynamic=False)
    for args in calls:
        compiled(*args)
    return counter.frame_count
    ### END SOLUTION

# %% test 06_compile-count-test points=2
def _two_ops(x, n):
    return torch.sin(x) * n


_calls = [(torch.ones(2), 1), (torch.ones(2), 1), (torch.ones(2), 2), (torch.ones(4), 2)]
with checks.explain_errors({"": "[mc:compile.every-call] count_compiles(fn, calls) calls "
                                "the compiled fn once per tuple in calls: compiled(*args)."},
                           "count_compiles(fn, calls)"):
    _got = count_compiles(_two_ops, _calls)
checks.expect_type(_got, int, "count_compiles(...)")
checks.reject(_got, {
    4: "[mc:compile.every-call] That is the number of calls: the second call repeats the "
       "first one's shapes and values, so its guards hold and nothing compiles.",
    0: "[mc:compile.uncompiled-call] No graph was compiled: call the compiled wrapper "
       "that torch.compile returned, not the original function.",
    6: "[mc:compile.op-count] op_count counts operations in the graphs; frame_count "
       "counts the graphs compiled.",
}, "count_compiles(_two_ops, calls)")
### BEGIN HIDDEN TESTS
def _poly(x):
    return x * x + 1


_lengths = [(torch.ones(_n),) for _n in (2, 3, 4, 5)]
with checks.explain_errors({"": "[mc:compile.every-call] count_compiles(fn, calls) calls "
                                "the compiled fn once per tuple in calls."},
                           "count_compiles(_poly, calls)"):
    _got = count_compiles(_poly, _lengths)
    _again = count_compiles(_poly, _lengths)
checks.reject(_got, {2: "[mc:compile.automatic-dynamic] With shapes left dynamic the "
                        "second length compiles a graph for any length: this count asks "
                        "for dynamic=False."}, "count_compiles(_poly, four lengths)")
checks.expect_close(_got, 4, "count_compiles(_poly, four lengths)", rtol=0, atol=0,
                    hint="[mc:compile.every-call] With dynamic=False each of the four lengths "
                         "fails the earlier graphs' shape guards and compiles once.")
checks.expect_close(_again, 4, "a second count_compiles(_poly, four lengths)", rtol=0, atol=0,
                    hint="[mc:compile.every-call] A second count of the same calls must give "
                         "the same number: start each count with a new counter.")
_two = count_compiles(_two_ops, [(torch.ones(3), 1), (torch.ones(3, dtype=torch.float64), 1),
                                 (torch.zeros(3), 1)])
checks.reject(_two, {4: "[mc:compile.op-count] Count graphs (frame_count), not "
                        "operations (op_count)."}, "count_compiles with a float64 call")
checks.expect_close(_two, 2, "count_compiles with a float64 call", rtol=0, atol=0,
                    hint="[mc:compile.values-guarded] Only the float64 call fails a guard: "
                         "zeros and ones of the same shape and dtype share a graph.")
### END HIDDEN TESTS

# %% [markdown]
# ### Dynamic shapes, and a stance that refuses to recompile
#
# Left at its default (`dynamic=None`), `torch.compile` first compiles for the exact
# shape it sees. When a later call brings a new size, it recompiles **once** with that
# dimension symbolic, and the new graph serves every later size. `dynamic=True` makes
# shapes symbolic from the first call. (Sizes 0 and 1 are still treated as special.)

# %%
def poly(x):
    return x * x + 1


for setting in (False, None, True):
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled_poly = torch.compile(poly, backend=counter, dynamic=setting)
    for n in (2, 3, 4, 5, 6):
        compiled_poly(torch.ones(n))
    print(f"dynamic={setting}: {counter.frame_count} graphs for five lengths")

# %% [markdown]
# In a server or a training loop, an unexpected recompilation costs seconds every time
# it happens. `torch.compiler.set_stance("fail_on_recompile")` turns it into an error
# that names the failed guard, so a test can catch it:

# %%
torch._dynamo.reset()
compiled_poly = torch.compile(poly, backend="eager", dynamic=True)
compiled_poly(torch.ones(8))               # compiles once
with torch.compiler.set_stance("fail_on_recompile"):
    compiled_poly(torch.ones(100))         # symbolic length: no recompilation
    with checks.expect_error(RuntimeError):
        compiled_poly(torch.ones(100, dtype=torch.float64))   # a new dtype must recompile

# %% [markdown]
# ### Exercise 3: compile once for every length (2 points)
#
# *Misconception targeted: believing the default compiles once for all shapes (it
# specialises to the first one), or that `dynamic=False` is the "fast" setting here.*
#
# Write `compile_for_any_length(fn, backend)` that returns a callable running `fn` compiled
# with `backend`, such that calling it on 1-D float32 tensors of lengths 2, 3, 4, ... (in
# any order) compiles **one** graph in all. The test first calls it once, then calls it
# with other lengths under `set_stance("fail_on_recompile")`.

# %% solution 06_compile-dynamic
def compile_for_any_length(fn, backend):
    ### BEGIN SOLUTION
    return torch.compile(fn, backend=backend, dynamic=True)
    ### END SOLUTION

# %% test 06_compile-dynamic-test points=2
def _cube(x):
    return x * x * x - x


torch._dynamo.reset()
_counter = CompileCounter()
with checks.explain_errors({"": "[mc:compile.automatic-dynamic] compile_for_any_length(fn, "
                                "backend) returns torch.compile's wrapper (or a function "
                                "calling it)."}, "compile_for_any_length(fn, backend)"):
    _any = compile_for_any_length(_cube, _counter)
    _first = _any(torch.arange(5.0))
checks.expect_close(_first, _cube(torch.arange(5.0)), "the compiled function's result",
                    hint="[mc:compile.automatic-dynamic] Compiling must not change what "
                         "fn computes.")
checks.expect_close(_counter.frame_count, 1, "graphs after the first call", rtol=0, atol=0,
                    hint="[mc:compile.uncompiled-call] One graph should be compiled with the "
                         "given backend: pass it to torch.compile(fn, backend=backend).")
with checks.explain_errors({
        "recompile": "[mc:compile.automatic-dynamic] A new length recompiled: by default "
                     "(and with dynamic=False) the first graph is specialised to the first "
                     "length. Ask for a symbolic length from the start.",
        "": "[mc:compile.automatic-dynamic] Calling it on a new length failed."},
        "calling it on length 7 under fail_on_recompile"):
    with torch.compiler.set_stance("fail_on_recompile"):
        _seven = _any(torch.arange(7.0))
checks.expect_close(_seven, _cube(torch.arange(7.0)), "the result on length 7",
                    hint="[mc:compile.automatic-dynamic] Compiling must not change what "
                         "fn computes.")
### BEGIN HIDDEN TESTS
with checks.explain_errors({
        "recompile": "[mc:compile.automatic-dynamic] A later length recompiled: the one "
                     "graph must have a symbolic length.",
        "": "[mc:compile.automatic-dynamic] Calling it on other lengths failed."},
        "calling it on lengths 2 to 12"):
    with torch.compiler.set_stance("fail_on_recompile"):
        for _n in (12, 2, 3, 9, 4):
            checks.expect_close(_any(torch.arange(float(_n))), _cube(torch.arange(float(_n))),
                                f"the result on length {_n}",
                                hint="[mc:compile.automatic-dynamic] Compiling must not "
                                     "change what fn computes.")
checks.expect_close(_counter.frame_count, 1, "graphs after six lengths", rtol=0, atol=0,
                    hint="[mc:compile.automatic-dynamic] One graph with a symbolic length "
                         "serves every length of one dtype.")
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Timing done right
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
# 3. **One sample, or the mean.** Other programs, interrupts and frequency changes make
#    some repeats slow. Repeat, and report the **median** (with the spread): one slow
#    outlier moves the mean, not the median; the minimum reports a best case that
#    ordinary runs do not reach.
#
# A CPU-only machine cannot show mistake 2 on real hardware, so `helpers.bench` has a
# small **simulated device**: calling `device.run` queues a task of known duration and
# returns at once, `device.sync()` waits until the queue is empty, and `device.clock()`
# is its clock. Timing it without a sync measures nothing:

# %%
device = helpers.bench.SimulatedDevice([0.010, 0.010, 0.010])
start = device.clock()
device.run()
print(f"without sync: {device.clock() - start:.3f} s")
device.sync()
start = device.clock()
device.run()
device.sync()
print(f"with sync:    {device.clock() - start:.3f} s")

# %% [markdown]
# `torch.utils.benchmark.Timer` does the synchronisation itself and runs the statement in
# blocks, so that one call too short for the clock is still measured;
# `helpers.bench.measure` wraps it and keeps every block's time per call:

# %%
a = torch.randn(128, 128)
matmul_timing = helpers.bench.measure(lambda: a @ a, "128×128 matmul")
q1, q3 = matmul_timing.quartiles
print(f"{matmul_timing.label}: median {matmul_timing.median * 1e6:.1f} µs per call "
      f"(quartiles {q1 * 1e6:.1f} to {q3 * 1e6:.1f} µs, {len(matmul_timing.samples)} samples)")

# %% [markdown]
# ### Exercise 4: a correct timing function (2 points)
#
# *Misconception targeted: timing without warm-up or without synchronisation, and
# summarising noisy repeats with the mean or the minimum.*
#
# Write `median_seconds(fn, warmup, repeats, clock, sync)`: call `fn()` `warmup` times
# without timing, then time `repeats` calls one at a time, each measured from `clock()`
# to `clock()` with `sync()` so that the work queued before the start and by the timed
# call itself is finished; return the median of the `repeats` durations in seconds.
# (The test passes a `SimulatedDevice`'s `run`, `clock` and `sync`; on a GPU they would
# be your function, `time.perf_counter` and `torch.cuda.synchronize`.)

# %% solution 06_compile-timing
def median_seconds(fn, warmup, repeats, clock, sync):
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
    return statistics.median(samples)
    ### END SOLUTION

# %% test 06_compile-timing-test points=2
# a slow first call (compiling), then steady calls with one outlier
_dev = helpers.bench.SimulatedDevice([5.0, 0.5, 0.004, 0.002, 0.003, 0.020, 0.002])
with checks.explain_errors({"": "[mc:bench.no-sync] median_seconds(fn, warmup, repeats, "
                                "clock, sync) calls fn(), clock() and sync() with no "
                                "arguments."}, "median_seconds"):
    _got = median_seconds(_dev.run, 2, 5, _dev.clock, _dev.sync)
checks.reject_close(_got, {
    0.0: "[mc:bench.no-sync] Every duration was zero: the device had only queued the "
         "work when the clock stopped. Call sync() before reading the clock.",
    0.0062: "[mc:bench.mean] That is the mean: the single 0.020 s outlier pulls it up. "
            "Report the median of the repeats.",
    0.002: "[mc:bench.min] That is the minimum, a best case ordinary runs do not reach. "
           "Report the median of the repeats.",
    0.004: "[mc:bench.no-warmup] The slow first calls (compiling, in real life) were "
           "timed: call fn() warmup times before timing.",
}, "median_seconds(run, warmup=2, repeats=5, ...)")
checks.expect_close(_dev.calls, 7, "calls of fn for warmup=2, repeats=5", rtol=0, atol=0,
                    hint="[mc:bench.extra-calls] fn runs warmup times untimed, then repeats "
                         "times timed: 2 + 5 calls, no more.")
### BEGIN HIDDEN TESTS
checks.expect_close(_got, 0.003, "median_seconds(run, warmup=2, repeats=5, ...)",
                    hint="[mc:bench.mean] Each sample is one call's duration; report "
                         "their median.")
# the warm-up leaves work queued: a clock started before sync() would include it
_dev = helpers.bench.SimulatedDevice([1.0, 0.01, 0.03, 0.02])
_got = median_seconds(_dev.run, 1, 3, _dev.clock, _dev.sync)
checks.expect_close(_got, 0.02, "median_seconds(run, warmup=1, repeats=3, ...)",
                    hint="[mc:bench.no-sync] The first timed sample included the warm-up "
                         "call still queued on the device: sync() before starting the "
                         "clock as well as before stopping it.")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Compile time and steady state, measured
#
# Now Inductor. `helpers.bench.chain` is a fusion-friendly function: eight elementwise
# operations in a row (multiply, add, tanh, multiply, sin, subtract, relu, multiply).
# Eager PyTorch runs eight kernels and writes seven intermediate tensors; Inductor can
# generate one loop that reads `x` once and writes the result once.
#
# The first call of the compiled function pays for Dynamo's capture, Inductor's lowering
# and code generation, and a C++ compiler run; later calls with the same guards run the
# cached machine code. Both are measured here, on this machine, right now:

# %%
x = torch.randn(2**16)
chain_compiled = helpers.bench.compiled("chain")
eager_timing = helpers.bench.measure(lambda: helpers.bench.chain(x), "eager")
compiled_timing = helpers.bench.measure(lambda: chain_compiled(x), "compiled", time_first=True)
same = torch.allclose(chain_compiled(x), helpers.bench.chain(x), atol=1e-6)
print(f"device: {helpers.bench.describe_device()['name']}, torch {torch.__version__}")
print(f"first compiled call (compiling included): {compiled_timing.first_call:.2f} s")
print(f"eager:    median {eager_timing.median * 1e6:8.1f} µs per call")
print(f"compiled: median {compiled_timing.median * 1e6:8.1f} µs per call")
print(f"speedup in steady state: {eager_timing.median / compiled_timing.median:.2f}×; "
      f"same values: {same}")
print(f"the first call took as long as {compiled_timing.first_call / compiled_timing.median:,.0f} "
      f"steady-state compiled calls")

# %% [markdown]
# ### Speedup against size, and the explorer
#
# The same function at several sizes. `helpers.bench.compiled` compiled `chain` with
# `dynamic=True`, so the graph from the first call, with a symbolic size, serves them all:

# %%
sweep = helpers.bench.sweep([2**10, 2**14, 2**18])
helpers.bench.picture(helpers.bench.draw_speedup_vs_size(sweep))

# %% [markdown]
# The **speedup explorer** measures again whenever a control changes. Try:
#
# 1. Set *elements* to 2**10, then to 2**22. Notice how the gap between the bars changes
#    and compare with the plot above: at small sizes a fixed cost per call (Python,
#    guards, launching) is a large part of each call, eager or compiled.
# 2. Pick a size you have not used (compile on) and read the title: it gives the first
#    compiled call at that setting. Compare it with the first call measured above: the
#    graph has a symbolic size, and a new size reuses it. Then
#    set *dtype* to float64 and notice the first call grow again: a new dtype fails a
#    guard and compiles. Exercise 5 asks what such a first call costs you overall.
# 3. Choose the *cuda* device. On a machine without a GPU the explorer says why it cannot
#    measure it, and keeps working when you switch back.

# %%
helpers.bench.explore()

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
### BEGIN HIDDEN TESTS
checks.expect_close(_n, 3334, "break_even_calls(10.0, 0.005, 0.002)", rtol=0, atol=0,
                    hint="[mc:compile.free-speedup] n calls save n·(eager − compiled) "
                         "seconds; the smallest whole n whose saving covers the compile "
                         "time is the answer (round up).")
checks.expect_close(_slower, math.inf, "break_even_calls(10.0, 0.002, 0.003)", rtol=0, atol=0,
                    hint="[mc:compile.always-faster] When compiled calls are not faster, "
                         "no number of calls pays: return math.inf.")
checks.expect_close(break_even_calls(3.0, 0.0011, 0.0004), 4286,
                    "break_even_calls(3.0, 0.0011, 0.0004)", rtol=0, atol=0,
                    hint="[mc:compile.free-speedup] Round up to the first whole number of "
                         "calls that pays.")
checks.expect_close(break_even_calls(2.0, 0.001, 0.001), math.inf,
                    "break_even_calls(2.0, 0.001, 0.001)", rtol=0, atol=0,
                    hint="[mc:compile.always-faster] With equal per-call times compiling "
                         "never pays: return math.inf.")
checks.expect_close(break_even_calls(0.5, 0.01, 0.001), 56, "break_even_calls(0.5, 0.01, 0.001)",
                    rtol=0, atol=0, hint="[mc:compile.free-speedup] Round up.")
### END HIDDEN TESTS

# %% [markdown]
# Applied to what this machine measured a moment ago:

# %%
C, E, F = compiled_timing.first_call, eager_timing.median, compiled_timing.median
for n in (1, 1_000, 100_000, 10_000_000):
    print(f"{n:>10,} calls: eager {n * E:9.2f} s, compiled {C + n * F:9.2f} s")

# %% [markdown]
# ## 7. A small model, compiled
#
# A two-layer MLP in inference (`no_grad`), the kind of call a server repeats millions
# of times. Same measurement, same rules: warm-up, repeats, median.

# %%
mlp = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                    nn.Linear(256, 10)).eval()
batch = torch.randn(32, 64)
mlp_compiled = torch.compile(mlp)
with torch.no_grad():
    mlp_eager_timing = helpers.bench.measure(lambda: mlp(batch), "eager")
    mlp_compiled_timing = helpers.bench.measure(lambda: mlp_compiled(batch), "compiled",
                                                time_first=True)
    mlp_same = torch.allclose(mlp(batch), mlp_compiled(batch), atol=1e-5)
print(f"first compiled call: {mlp_compiled_timing.first_call:.2f} s")
print(f"eager {mlp_eager_timing.median * 1e6:.1f} µs, compiled "
      f"{mlp_compiled_timing.median * 1e6:.1f} µs per call: "
      f"{mlp_eager_timing.median / mlp_compiled_timing.median:.2f}×; same outputs: {mlp_same}")

# %% [markdown]
# Much of an MLP's time goes into its matmuls, which eager PyTorch already hands to an
# optimised library; compiling can mainly remove the per-op overhead and the separate
# passes of the bias additions and ReLUs. How much of the eager time is matmul here:

# %%
weights = [layer.weight.detach() for layer in mlp if isinstance(layer, nn.Linear)]


def matmuls_only(h=batch):
    for w in weights:
        h = h @ w.T
    return h


mm_timing = helpers.bench.measure(matmuls_only, "matmuls only")
print(f"the three matmuls alone: {mm_timing.median * 1e6:.1f} µs, "
      f"{mm_timing.median / mlp_eager_timing.median:.0%} of the eager forward")

# %% [markdown]
# Unless the compiler also makes the matmuls themselves faster, only the other share can
# shrink; the measured ratio above is what this machine gave.
#
# ## 8. FLOPs, bytes and the roofline
#
# Two numbers describe what an operation asks of the hardware: the floating-point
# operations (FLOPs) it performs and the bytes it moves to and from memory. Their ratio,
# FLOPs per byte, is its **arithmetic intensity**. A device has a peak FLOP/s and a peak
# memory bandwidth (bytes/s); at low intensity an operation waits for memory whatever
# the arithmetic speed, at high intensity it is limited by arithmetic. That is the
# **roofline**.
#
# A matmul (m×k) @ (k×n) computes m·n outputs, each a dot product of length k: k
# multiplications and k additions (counting the first addition into zero).
#
# **Quick quiz.** How many FLOPs does a (64×128) @ (128×32) matmul perform? Put a whole
# number in `answer_flops`.

# %% solution 06_compile-quiz-flops
### BEGIN SOLUTION
answer_flops = 2 * 64 * 128 * 32
### END SOLUTION

# %% test 06_compile-quiz-flops-test points=1
checks.reject(answer_flops, {
    64 * 128 * 32: "[mc:roofline.flops-multiplies-only] Each of the k steps of a dot "
                   "product is a multiplication and an addition: two FLOPs.",
    64 * 32: "[mc:roofline.flops-outputs] That is the number of outputs; each output "
             "costs a dot product of length 128.",
    2 * 64 * 32: "[mc:roofline.flops-outputs] Each output costs a dot product of length "
                 "128, not two operations.",
}, "answer_flops")
### BEGIN HIDDEN TESTS
checks.expect_close(answer_flops, 2 * 64 * 128 * 32, "answer_flops", rtol=0, atol=0,
                    hint="[mc:roofline.flops-multiplies-only] 64·32 outputs, each k = 128 "
                         "multiplications and 128 additions.")
### END HIDDEN TESTS

# %% [markdown]
# For an elementwise op on n elements, each op reads n values and writes n values. Eager
# runs `chain`'s eight ops as eight passes over memory; a fused kernel makes one pass.
# The arithmetic is the same (one FLOP per element per op, counting tanh and sin as one):
# fusion removes memory traffic, not work.
#
# ### Exercise 6: bytes moved, eager and fused (2 points)
#
# *Misconception targeted: believing fusion saves arithmetic, counting only reads, or
# ignoring the dtype's size.*
#
# Write `chain_traffic(numel, ops, dtype)` returning `(eager_bytes, fused_bytes)`: the
# bytes read and written by a chain of `ops` one-input elementwise operations on a tensor
# of `numel` elements of `dtype`, run eagerly (one pass per op) and fused (one pass).
# `dtype.itemsize` is the size of one element in bytes.

# %% solution 06_compile-traffic
def chain_traffic(numel, ops, dtype):
    ### BEGIN SOLUTION
    one_pass = 2 * numel * dtype.itemsize   # read every element once, write it once
    return ops * one_pass, one_pass
    ### END SOLUTION

# %% test 06_compile-traffic-test points=2
with checks.explain_errors({"": "[mc:roofline.itemsize] chain_traffic(numel, ops, dtype) "
                                "gets a torch dtype: its size in bytes is dtype.itemsize."},
                           "chain_traffic(1000, 8, torch.float32)"):
    _got = chain_traffic(1000, 8, torch.float32)
    _got64 = chain_traffic(1000, 8, torch.float64)
checks.expect_close(len(_got), 2, "number of values returned", rtol=0, atol=0,
                    hint="[mc:roofline.fusion-saves-flops] Return two numbers: "
                         "(eager_bytes, fused_bytes).")
checks.reject(tuple(_got), {
    (32000, 4000): "[mc:roofline.reads-only] Each pass also writes its result: count "
                   "reads and writes.",
    (16000, 2000): "[mc:roofline.itemsize] A float32 element is 4 bytes, not 1.",
    (64000, 64000): "[mc:roofline.fusion-saves-flops] Fused, the chain makes one pass "
                    "over memory, however many ops it has.",
}, "chain_traffic(1000, 8, torch.float32)")
checks.reject(tuple(_got64), {
    (64000, 8000): "[mc:roofline.itemsize] A float64 element is 8 bytes: the dtype's size "
                   "matters.",
}, "chain_traffic(1000, 8, torch.float64)")
### BEGIN HIDDEN TESTS
for _args, _want in (((1000, 8, torch.float32), (64000, 8000)),
                     ((1000, 8, torch.float64), (128000, 16000)),
                     ((10, 3, torch.bfloat16), (120, 40)),
                     ((7, 1, torch.float32), (56, 56))):
    _pair = chain_traffic(*_args)
    checks.expect_close(_pair[0], _want[0], f"eager bytes of chain_traffic{_args}", rtol=0,
                        atol=0, hint="[mc:roofline.reads-only] Eager makes one pass per op; "
                                     "each pass reads and writes every element.")
    checks.expect_close(_pair[1], _want[1], f"fused bytes of chain_traffic{_args}", rtol=0,
                        atol=0, hint="[mc:roofline.fusion-saves-flops] Fused, the chain "
                                     "reads every element once and writes it once.")
### END HIDDEN TESTS

# %% [markdown]
# Now the points measured in this notebook on a roofline. A CPU's datasheet peak depends
# on the exact part, so the roof drawn here is **measured on this machine**: the FLOP/s of
# a 512×512 matmul and the bytes/s of copying 2**22 floats (both single-threaded, like
# everything above). A point's height is its achieved FLOP/s; the fused chain sits to the
# right of the eager one because it moves an eighth of the bytes for the same FLOPs.
# (The byte counts assume every pass goes to main memory; data small enough to stay in
# the CPU's caches can move faster than the copy that measured the roof, so a point may
# sit above the sloped line.)

# %%
roof = helpers.bench.measured_roof()
points = [helpers.roofline.roofline_point(helpers.roofline.matmul_cost(128, 128, 128),
                                          matmul_timing.median, "matmul 128³"),
          *sweep[-1].points]
print(f"measured roof: {roof.flops / 1e9:.1f} GFLOP/s (matmul 512³), "
      f"{roof.bytes_per_s / 1e9:.1f} GB/s (copy)")
for p in points:
    print(f"{p.label:>14}: {p.intensity:6.3f} FLOP/byte, {p.flops_per_s / 1e9:7.2f} GFLOP/s")
helpers.bench.picture(helpers.roofline.draw_roofline(points, roof.flops, roof.bytes_per_s,
                                                     "measured on this machine"))

# %% [markdown]
# ## 9. GPUs: CPU vs GPU matmul, and memory
#
# On a machine with a CUDA GPU this section measures a matmul on the CPU and on the GPU
# across sizes (with `torch.cuda.synchronize()`, which `torch.utils.benchmark` calls
# for you), and reads the GPU's memory statistics: `torch.cuda.memory_allocated()`
# (bytes held by tensors now) and `torch.cuda.max_memory_allocated()` (the peak since
# the last reset). Without a GPU it says so and shows the reference table kept in the
# repository instead, with the device, torch version and date it was measured on.

# %%
if torch.cuda.is_available():
    gpu_table = helpers.bench.gpu_matmul_table()
    print(helpers.bench.format_reference(gpu_table))
    display(helpers.bench.picture(helpers.bench.draw_gpu_table(gpu_table)))
else:
    print("No CUDA GPU on this machine: the GPU measurements were skipped.")
    print(helpers.bench.format_reference(helpers.bench.gpu_reference()))

# %% [markdown]
# ## 10. Common mistakes
#
# **1. Timing the first call of a compiled function.** It includes compiling. Section 6
# measured both: report the first call as compile time and the median after warm-up as
# the steady state, separately.
#
# **2. A Python number that changes on every call.** Dynamo guards on the Python values
# the code uses; a loop counter passed as an argument can recompile each call. With
# `dynamic=False` that is one compilation per value:

# %%
def decay(x, step):
    return x * 0.9 ** step


torch._dynamo.reset()
counter = CompileCounter()
decay_compiled = torch.compile(decay, backend=counter, dynamic=False)
for step in range(5):
    decay_compiled(torch.ones(3), step)
print(f"step as a Python int: {counter.frame_count} graphs for 5 calls")

torch._dynamo.reset()
counter = CompileCounter()
decay_compiled = torch.compile(decay, backend=counter, dynamic=False)
for step in range(5):
    decay_compiled(torch.ones(3), torch.tensor(float(step)))
print(f"step as a tensor:     {counter.frame_count} graph for 5 calls")

# %% [markdown]
# **3. A graph break hidden in a helper.** A `print`, `.item()` or Python `if` on a tensor
# inside code you compile splits the graph (section 3); `torch._dynamo.explain` finds it.
#
# **4. Believing a fixed speedup figure.** Texts quote "30-200 % faster" for
# `torch.compile`. This notebook measured its own numbers above, on this machine, for two
# functions, and they depend on the size (section 6's plot) and on the function
# (section 7). Measure yours.
#
# ## Summary
#
# - Eager PyTorch is define-by-run: Python control flow decides the graph at run time.
#   Define-and-run tracing cannot follow a branch on a value.
# - `torch.compile` = Dynamo (captures graphs from bytecode, with guards) + a backend
#   (Inductor generates fused code; `"eager"` and `CompileCounter` only capture).
# - A failed guard recompiles: new shapes (unless symbolic), dtypes, devices, and the
#   Python values the code used. Count with `CompileCounter`, explain with
#   `set_logs(recompiles=True)`, forbid with `set_stance("fail_on_recompile")`.
# - Graph breaks come from what Dynamo cannot record (`print`, `.item()`, a Python `if`
#   on a tensor); `torch._dynamo.explain` lists them; `torch.where` keeps a choice in the
#   graph.
# - Time with warm-up, synchronisation and the median of repeats (`torch.utils.benchmark`).
#   Compile time is paid once; it pays back after `break_even_calls` calls, if ever.
# - Fusion reduces memory traffic, not arithmetic: an elementwise chain's intensity goes
#   up by the number of ops fused.
#
# **Next:** profile your own training step with `torch.profiler` before compiling it, and
# measure before and after.
