"""The misconceptions that notebook 06_compile's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
    # the three regimes
    "regime.answer-form": Misconception(
        "a regime can be named by something other than 'overhead', 'memory' or 'compute'",
        ("06_compile-quiz-regime",)),
    "regime.no-overhead": Misconception(
        "an operation's time is only its bytes or its FLOPs: a call has no fixed cost",
        ("06_compile-quiz-regime", "06_compile-batch")),
    "regime.big-is-compute": Misconception(
        "a large tensor makes an operation compute-bound, whatever its FLOPs per byte",
        ("06_compile-quiz-regime",)),
    "regime.overhead-always": Misconception(
        "the fixed cost of a call dominates whatever the size of its data",
        ("06_compile-quiz-regime",)),
    # graphs and graph breaks
    "compile.quiz-type": Misconception(
        "a quiz about graphs, gradients or FLOPs can be answered with something other than a number",
        ("06_compile-quiz-graphs", "06_compile-quiz-where", "06_compile-quiz-recompiles",
         "06_compile-quiz-flops")),
    "compile.print-in-graph": Misconception(
        "a print (or other Python side effect) is captured inside the compiled graph",
        ("06_compile-quiz-graphs",)),
    "compile.break-is-graph": Misconception(
        "the code at a graph break becomes a graph of its own",
        ("06_compile-quiz-graphs",)),
    "compile.empty-graph": Misconception(
        "every stretch between graph breaks makes a graph, even one with no tensor operation",
        ("06_compile-quiz-graphs",)),
    "compile.where-masks-gradient": Misconception(
        "torch.where's unpicked branch contributes nothing to the gradient, not even NaN",
        ("06_compile-quiz-where",)),
    "compile.branch-dropped": Misconception(
        "removing a data-dependent if means keeping only one of its branches",
        ("06_compile-graph-break",)),
    "compile.item-avoids-break": Misconception(
        "reading the condition with .item() (or any Python if) keeps the graph whole",
        ("06_compile-graph-break", "06_compile-graph-breaks", "06_compile-train-step")),
    "compile.clip-scale": Misconception(
        "a norm clip may scale by another norm, or to another length than the limit",
        ("06_compile-graph-break",)),
    "compile.unused-branch-gradient": Misconception(
        "a value the forward pass throws away (inf, NaN) cannot spoil the gradient, eager or compiled",
        ("06_compile-graph-break",)),
    "compile.selection-in-graph": Misconception(
        "a boolean selection x[mask] stays in the graph (its size depends on the data)",
        ("06_compile-graph-breaks",)),
    "compile.selection-dropped": Misconception(
        "a statistic over the selected values may be taken over all of them instead",
        ("06_compile-graph-breaks",)),
    "compile.std-formula": Misconception(
        "a masked rewrite of std or median may change the formula (n instead of n - 1, the mean "
        "of the middle values)", ("06_compile-graph-breaks",)),
    "compile.new-dtype": Misconception(
        "a rewritten function may compute in another dtype than its input's",
        ("06_compile-graph-breaks",)),
    # guards and recompilation
    "compile.every-call": Misconception(
        "every call of a compiled function compiles again",
        ("06_compile-quiz-recompiles",)),
    "compile.values-guarded": Misconception(
        "a tensor with new values (same shape and dtype) triggers a recompilation",
        ("06_compile-quiz-recompiles",)),
    "compile.dtype-unguarded": Misconception(
        "only shapes are guarded, so a new dtype reuses the compiled graph",
        ("06_compile-quiz-recompiles",)),
    "compile.shape-unguarded": Misconception(
        "a compiled graph is valid for any shape and any Python argument",
        ("06_compile-quiz-recompiles",)),
    "compile.storm": Misconception(
        "marking one varying dimension dynamic covers the others", ("06_compile-storm",)),
    "compile.float-guarded": Misconception(
        "a Python float that changes with every call is no change for a compiled function",
        ("06_compile-storm",)),
    "compile.storm-protocol": Misconception(
        "a serving function may call the compiled function other than once per request",
        ("06_compile-storm",)),
    "compile.pad-changes-result": Misconception(
        "padding inputs to one shape leaves every result unchanged (a mean over the sequence moves)",
        ("06_compile-storm",)),
    "compile.pad-default-dtype": Misconception(
        "a buffer made without dtype= keeps the input's dtype (it is float32)", ("06_compile-buckets",)),
    "compile.static-new-length": Misconception(
        "a static-shape compile serves a new length without recompiling",
        ("06_compile-buckets", "06_compile-train-step")),
    "compile.pad-to-largest": Misconception(
        "padding every input to the largest length costs nothing",
        ("06_compile-buckets",)),
    "compile.bucket-edge": Misconception(
        "a length equal to a bucket's does not fit that bucket (off by one at the edge)",
        ("06_compile-buckets",)),
    "compile.bucket-call": Misconception(
        "padding may go anywhere, or the function may be called on the unpadded input",
        ("06_compile-buckets",)),
    "compile.padding-kept": Misconception(
        "the padded positions belong in the result",
        ("06_compile-buckets",)),
    "compile.no-bucket-fits": Misconception(
        "an input longer than every bucket can be handled silently",
        ("06_compile-buckets",)),
    # timing
    "bench.no-sync": Misconception(
        "a call has finished its work when it returns, on every device",
        ("06_compile-timing",)),
    "bench.no-warmup": Misconception(
        "the first calls of a function show its steady-state time",
        ("06_compile-timing",)),
    "bench.extra-calls": Misconception(
        "the number of calls a timing function makes does not matter",
        ("06_compile-timing",)),
    "bench.wrong-clock": Misconception(
        "any clock times a device's work, not only the one that goes with its sync",
        ("06_compile-timing",)),
    "bench.units": Misconception(
        "a duration may be returned in another unit than the clock's seconds",
        ("06_compile-timing",)),
    "bench.block-average": Misconception(
        "timing a block of calls and dividing gives each call's duration",
        ("06_compile-timing",)),
    "bench.order-lost": Misconception(
        "the order of timing samples carries no information, so they may be sorted",
        ("06_compile-timing",)),
    "bench.one-number": Misconception(
        "a timing loop should return one summary instead of the samples",
        ("06_compile-timing",)),
    # a compiled training step
    "compile.uncompiled-call": Misconception(
        "torch.compile changes the original function rather than returning a wrapper to call",
        ("06_compile-train-step",)),
    "compile.grads-accumulate": Misconception(
        "a compiled training step needs no zero_grad between steps",
        ("06_compile-train-step",)),
    "compile.no-step": Misconception(
        "backward() alone updates the parameters",
        ("06_compile-train-step",)),
    "compile.no-grad-forward": Misconception(
        "a compiled loss can be computed without gradients and still trained on",
        ("06_compile-train-step",)),
    "compile.python-number-guarded": Misconception(
        "a Python number passed to a static-shape compile is data, not a guarded constant",
        ("06_compile-train-step",)),
    "compile.padding-in-loss": Misconception(
        "rows of zeros appended to a batch change neither its loss nor its gradients",
        ("06_compile-train-step",)),
    # FLOPs, bytes, roofline
    "roofline.flops-multiplies-only": Misconception(
        "a matmul costs m·k·n FLOPs (the additions are not counted)",
        ("06_compile-quiz-flops", "06_compile-batch")),
    "roofline.flops-outputs": Misconception(
        "a matmul's FLOPs are proportional to its number of outputs",
        ("06_compile-quiz-flops",)),
    "roofline.weights-free": Misconception(
        "a layer's bytes are only its activations: the weights cost no traffic",
        ("06_compile-batch",)),
    "roofline.never-compute-bound": Misconception(
        "every layer becomes compute-bound at a large enough batch",
        ("06_compile-batch",)),
    "roofline.batch-powers": Misconception(
        "any batch size may answer a search the task runs over powers of two",
        ("06_compile-batch",)),
    "roofline.batch-before": Misconception(
        "the answer is the last batch before the layer turns compute-bound",
        ("06_compile-batch",)),
    "roofline.bound-sum": Misconception(
        "compute-bound means the compute time exceeds the other two added together",
        ("06_compile-batch",)),
    "roofline.batch-from-two": Misconception(
        "a batch search can start at 2 (a single input is never compute-bound)", ("06_compile-batch",)),
    "roofline.outputs-free": Misconception(
        "a layer's traffic is its inputs and weights: writing the outputs costs nothing",
        ("06_compile-batch",)),
    "roofline.helpers-count": Misconception(
        "counting FLOPs and bytes can be left to a helper the exercise switches off",
        ("06_compile-batch",)),
    "roofline.batch-intensity": Misconception(
        "a layer's FLOPs per byte do not change with the batch size",
        ("06_compile-batch",)),
}
