"""The misconceptions that notebook 06_compile's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
    "compile.print-in-graph": Misconception(
        "a print (or other Python side effect) is captured inside the compiled graph",
        ("06_compile-quiz-graphs",)),
    "compile.break-is-graph": Misconception(
        "the code at a graph break becomes a graph of its own",
        ("06_compile-quiz-graphs",)),
    "compile.branch-dropped": Misconception(
        "removing a data-dependent if means keeping only one of its branches",
        ("06_compile-graph-break",)),
    "compile.item-avoids-break": Misconception(
        "reading the condition with .item() (or any Python if) keeps the graph whole",
        ("06_compile-graph-break",)),
    "compile.every-call": Misconception(
        "every call of a compiled function compiles again",
        ("06_compile-quiz-recompiles", "06_compile-count")),
    "compile.values-guarded": Misconception(
        "a tensor with new values (same shape and dtype) triggers a recompilation",
        ("06_compile-quiz-recompiles", "06_compile-count")),
    "compile.dtype-unguarded": Misconception(
        "only shapes are guarded, so a new dtype reuses the compiled graph",
        ("06_compile-quiz-recompiles",)),
    "compile.shape-unguarded": Misconception(
        "a compiled graph is valid for any shape and any Python argument",
        ("06_compile-quiz-recompiles",)),
    "compile.uncompiled-call": Misconception(
        "torch.compile changes the original function rather than returning a wrapper to call",
        ("06_compile-count", "06_compile-dynamic")),
    "compile.op-count": Misconception(
        "CompileCounter's op_count is the number of compilations",
        ("06_compile-count",)),
    "compile.automatic-dynamic": Misconception(
        "the default torch.compile compiles one graph for every shape from the first call",
        ("06_compile-count", "06_compile-dynamic")),
    "bench.no-sync": Misconception(
        "a call has finished its work when it returns, on every device",
        ("06_compile-timing",)),
    "bench.no-warmup": Misconception(
        "the first calls of a function show its steady-state time",
        ("06_compile-timing",)),
    "bench.mean": Misconception(
        "the mean is the right summary of noisy timing repeats",
        ("06_compile-timing",)),
    "bench.min": Misconception(
        "the fastest repeat is the time to report",
        ("06_compile-timing",)),
    "bench.extra-calls": Misconception(
        "the number of calls a timing function makes does not matter",
        ("06_compile-timing",)),
    "compile.free-speedup": Misconception(
        "compiling pays from the first call, compile time aside",
        ("06_compile-break-even",)),
    "compile.always-faster": Misconception(
        "compiled code is always faster than eager, so compiling always pays eventually",
        ("06_compile-break-even",)),
    "roofline.flops-multiplies-only": Misconception(
        "a matmul costs m·k·n FLOPs (the additions are not counted)",
        ("06_compile-quiz-flops",)),
    "roofline.flops-outputs": Misconception(
        "a matmul's FLOPs are proportional to its number of outputs",
        ("06_compile-quiz-flops",)),
    "roofline.reads-only": Misconception(
        "an elementwise op only reads memory (its output costs no traffic)",
        ("06_compile-traffic",)),
    "roofline.itemsize": Misconception(
        "memory traffic does not depend on the dtype's size",
        ("06_compile-traffic",)),
    "roofline.fusion-saves-flops": Misconception(
        "fusion removes arithmetic rather than memory passes",
        ("06_compile-traffic",)),
}
