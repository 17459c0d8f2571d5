"""Plausible wrong answers (with the phrase their test output must name and the
misconception id) and other correct ways to write each exercise of 06_compile."""

WRONG = {
    "06_compile-quiz-graphs": [
        ("answer_graphs = 1", "not a tensor operation", "compile.print-in-graph"),
        ("answer_graphs = 3", "not a graph of its own", "compile.break-is-graph"),
    ],
    "06_compile-quiz-recompiles": [
        ("answer_recompiles = 5", "not its values", "compile.values-guarded"),
        ("answer_recompiles = 6", "reuses the cached graph", "compile.every-call"),
    ],
    "06_compile-quiz-flops": [
        ("answer_flops = 64 * 128 * 32", "two FLOPs", "roofline.flops-multiplies-only"),
    ],
    "06_compile-graph-break": [
        ("def clip_norm_nobreak(x, limit):\n"
         "    norm = torch.linalg.vector_norm(x)\n"
         "    return x * (limit / norm)\n",
         "keep both branches", "compile.branch-dropped"),
        ("def clip_norm_nobreak(x, limit):\n"
         "    norm = torch.linalg.vector_norm(x)\n"
         "    if norm.item() > limit:\n"
         "        return x * (limit / norm)\n"
         "    return x\n",
         "express the choice as a tensor operation", "compile.item-avoids-break"),
    ],
    "06_compile-count": [
        ("def count_compiles(fn, calls):\n"
         "    torch._dynamo.reset()\n"
         "    counter = CompileCounter()\n"
         "    compiled = torch.compile(fn, backend=counter, dynamic=False)\n"
         "    for args in calls:\n"
         "        compiled(*args)\n"
         "    return counter.op_count\n",
         "op_count counts operations", "compile.op-count"),
        ("def count_compiles(fn, calls):\n"
         "    torch._dynamo.reset()\n"
         "    counter = CompileCounter()\n"
         "    compiled = torch.compile(fn, backend=counter, dynamic=False)\n"
         "    for args in calls:\n"
         "        fn(*args)\n"
         "    return counter.frame_count\n",
         "call the compiled wrapper", "compile.uncompiled-call"),
        ("def count_compiles(fn, calls):\n"
         "    compiled = torch.compile(fn, backend=CompileCounter(), dynamic=False)\n"
         "    for args in calls:\n"
         "        compiled(*args)\n"
         "    return len(calls)\n",
         "that is the number of calls", "compile.every-call"),
    ],
    "06_compile-dynamic": [
        ("def compile_for_any_length(fn, backend):\n"
         "    return torch.compile(fn, backend=backend)\n",
         "specialised to the first length", "compile.automatic-dynamic"),
        ("def compile_for_any_length(fn, backend):\n"
         "    return torch.compile(fn, backend=backend, dynamic=False)\n",
         "specialised to the first length", "compile.automatic-dynamic"),
    ],
    "06_compile-timing": [
        ("def median_seconds(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup):\n"
         "        fn()\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        start = clock()\n"
         "        fn()\n"
         "        samples.append(clock() - start)\n"
         "    return statistics.median(samples)\n",
         "call sync() before reading the clock", "bench.no-sync"),
        ("def median_seconds(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup):\n"
         "        fn()\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        sync()\n"
         "        start = clock()\n"
         "        fn()\n"
         "        sync()\n"
         "        samples.append(clock() - start)\n"
         "    return sum(samples) / len(samples)\n",
         "that is the mean", "bench.mean"),
        ("def median_seconds(fn, warmup, repeats, clock, sync):\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        sync()\n"
         "        start = clock()\n"
         "        fn()\n"
         "        sync()\n"
         "        samples.append(clock() - start)\n"
         "    return statistics.median(samples)\n",
         "were timed", "bench.no-warmup"),
        ("def median_seconds(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup):\n"
         "        fn()\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        start = clock()\n"
         "        fn()\n"
         "        sync()\n"
         "        samples.append(clock() - start)\n"
         "    return statistics.median(samples)\n",
         "still queued", "bench.no-sync"),
    ],
    "06_compile-break-even": [
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    return 1 if compiled_s < eager_s else math.inf\n",
         "compiling is not free", "compile.free-speedup"),
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    return math.ceil(compile_s / abs(eager_s - compiled_s))\n",
         "no number of calls", "compile.always-faster"),
    ],
    "06_compile-traffic": [
        ("def chain_traffic(numel, ops, dtype):\n"
         "    return ops * numel * dtype.itemsize, numel * dtype.itemsize\n",
         "count reads and writes", "roofline.reads-only"),
        ("def chain_traffic(numel, ops, dtype):\n"
         "    return 2 * ops * numel * 4, 2 * numel * 4\n",
         "float64 element is 8 bytes", "roofline.itemsize"),
        ("def chain_traffic(numel, ops, dtype):\n"
         "    one_pass = 2 * numel * dtype.itemsize\n"
         "    return ops * one_pass, ops * one_pass\n",
         "one pass over memory", "roofline.fusion-saves-flops"),
    ],
}

ALTERNATIVE = {
    "06_compile-quiz-graphs": "answer_graphs = 1 + 1",
    "06_compile-quiz-recompiles": "answer_recompiles = 1 + 1 + 1 + 1",
    "06_compile-quiz-flops": "answer_flops = 524288",
    "06_compile-graph-break": (
        "def clip_norm_nobreak(x, limit):\n"
        "    norm = torch.linalg.vector_norm(x)\n"
        "    return x * torch.clamp(limit / norm, max=1.0)\n"),
    "06_compile-count": (
        "def count_compiles(fn, calls):\n"
        "    torch._dynamo.reset()\n"
        "    graphs = []\n"
        "    def backend(graph_module, example_inputs):\n"
        "        graphs.append(graph_module)\n"
        "        return graph_module.forward\n"
        "    compiled = torch.compile(fn, backend=backend, dynamic=False)\n"
        "    for args in calls:\n"
        "        compiled(*args)\n"
        "    return len(graphs)\n"),
    "06_compile-dynamic": (
        "def compile_for_any_length(fn, backend):\n"
        "    compiled = torch.compile(fn, backend=backend)\n"
        "    def run(x):\n"
        "        torch._dynamo.mark_dynamic(x, 0)\n"
        "        return compiled(x)\n"
        "    return run\n"),
    "06_compile-timing": (
        "def median_seconds(fn, warmup, repeats, clock, sync):\n"
        "    for _ in range(warmup):\n"
        "        fn()\n"
        "    sync()\n"
        "    samples = []\n"
        "    while len(samples) < repeats:\n"
        "        begin = clock()\n"
        "        fn()\n"
        "        sync()\n"
        "        samples.append(clock() - begin)\n"
        "    samples.sort()\n"
        "    return samples[len(samples) // 2] if repeats % 2 else statistics.median(samples)\n"),
    "06_compile-break-even": (
        "def break_even_calls(compile_s, eager_s, compiled_s):\n"
        "    if compiled_s >= eager_s:\n"
        "        return math.inf\n"
        "    n = 1\n"
        "    while compile_s + n * compiled_s > n * eager_s:\n"
        "        n = max(n + 1, int(compile_s / (eager_s - compiled_s)))\n"
        "    return n\n"),
    "06_compile-traffic": (
        "def chain_traffic(numel, ops, dtype):\n"
        "    size = torch.empty((), dtype=dtype).element_size()\n"
        "    fused = numel * size + numel * size\n"
        "    return fused * ops, fused\n"),
}
