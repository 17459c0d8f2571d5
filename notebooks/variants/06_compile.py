"""Plausible wrong answers (with the phrase their test output must name and the
misconception id) and other correct ways to write each exercise of 06_compile."""

# lines several variants share
_CLOSE = ("    try:\n"
          "        torch.testing.assert_close(got, expected)\n"
          "        close = True\n"
          "    except AssertionError:\n"
          "        close = False\n")
_TRAIN_HEAD = ("def train_compiled(model, batches, lr, backend):\n"
               "    optimizer = torch.optim.SGD(model.parameters(), lr=lr)\n"
               "    loss_of = torch.compile(lambda x, y: F.mse_loss(model(x), y), backend=backend)\n"
               "    losses = []\n"
               "    for x, y in batches:\n")

WRONG = {
    "06_compile-quiz-regime": [
        ('answer_regimes = ("memory", "memory")', "fixed amount however small",
         "regime.no-overhead"),
        ('answer_regimes = ("overhead", "compute")', "not compute-bound", "regime.big-is-compute"),
        ('answer_regimes = ["overhead", "overhead"]', "80 MB read", "regime.overhead-always"),
        ('answer_regimes = ("overhead", "bandwidth")', "pair of those words", "regime.answer-form"),
    ],
    "06_compile-quiz-graphs": [
        ("answer_graphs = 1", "not a tensor operation", "compile.print-in-graph"),
        ("answer_graphs = 3", "makes no graph", "compile.empty-graph"),
        ("answer_graphs = 4", "not a graph of its own", "compile.break-is-graph"),
        ("answer_graphs = 2.5", "should be a whole number", "compile.quiz-type"),
    ],
    "06_compile-quiz-where": [
        ("answer_where_grad = 0", "0 × NaN is NaN", "compile.where-masks-gradient"),
        ("answer_where_grad = 0.25", "gradient at x = 4", "compile.where-masks-gradient"),
        ("answer_where_grad = None", "should be", "compile.quiz-type"),
    ],
    "06_compile-quiz-recompiles": [
        ("answer_recompiles = 5", "not its values", "compile.values-guarded"),
        ("answer_recompiles = 6", "reuses the cached graph", "compile.every-call"),
        ("answer_recompiles = 3", "dtype is guarded", "compile.dtype-unguarded"),
        ("answer_recompiles = 2", "every new shape fails a guard", "compile.shape-unguarded"),
    ],
    "06_compile-quiz-flops": [
        ("answer_flops = 64 * 128 * 32", "two FLOPs", "roofline.flops-multiplies-only"),
        ("answer_flops = 64 * 32", "number of outputs", "roofline.flops-outputs"),
        ("answer_flops = 524288.5", "should be a whole number", "compile.quiz-type"),
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
         "needs a value Dynamo", "compile.item-avoids-break"),
        # the torch.where trap: the first version of this notebook taught it as the fix
        ("def clip_norm_nobreak(x, limit):\n"
         "    norm = torch.linalg.vector_norm(x)\n"
         "    return torch.where(norm > limit, x * (limit / norm), x)\n",
         "the branch you throw away divides by it", "compile.unused-branch-gradient"),
        ("def clip_norm_nobreak(x, limit):\n"
         "    norm = torch.linalg.vector_norm(x)\n"
         "    return x * torch.clamp(limit / norm, max=1.0)\n",
         "the branch you throw away divides by it", "compile.unused-branch-gradient"),
    ],
    "06_compile-buckets": [
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    if x.shape[0] > max(buckets):\n"
         "        raise ValueError('too long')\n"
         "    return compiled_fn(x)\n",
         "every new length fails a", "compile.static-new-length"),
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    if x.shape[0] > max(buckets):\n"
         "        raise ValueError('too long')\n"
         "    return compiled_fn(F.pad(x, (0, max(buckets) - x.shape[0])))[:x.shape[0]]\n",
         "pad to the smallest bucket", "compile.pad-to-largest"),
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    fits = [b for b in buckets if b > x.shape[0]]\n"
         "    if not fits:\n"
         "        raise ValueError('too long')\n"
         "    return compiled_fn(F.pad(x, (0, fits[0] - x.shape[0])))[:x.shape[0]]\n",
         "fits that bucket", "compile.bucket-edge"),
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    fits = [b for b in buckets if b >= x.shape[0]]\n"
         "    if not fits:\n"
         "        raise ValueError('too long')\n"
         "    return compiled_fn(F.pad(x, (0, fits[0] - x.shape[0])))\n",
         "first L values", "compile.padding-kept"),
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    fits = [b for b in buckets if b >= x.shape[0]] or [max(buckets)]\n"
         "    return compiled_fn(F.pad(x, (0, fits[0] - x.shape[0])))[:x.shape[0]]\n",
         "no bucket to go to", "compile.no-bucket-fits"),
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    fits = [b for b in buckets if b >= x.shape[0]]\n"
         "    if not fits:\n"
         "        raise ValueError('too long')\n"
         "    return compiled_fn(F.pad(x, (fits[0] - x.shape[0], 0)))[:x.shape[0]]\n",
         "Append zeros at the end", "compile.bucket-call"),
    ],
    "06_compile-timing": [
        ("def time_samples(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup):\n"
         "        fn()\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        start = clock()\n"
         "        fn()\n"
         "        samples.append(clock() - start)\n"
         "    return samples\n",
         "call sync() before reading the clock", "bench.no-sync"),
        ("def time_samples(fn, warmup, repeats, clock, sync):\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        sync()\n"
         "        start = clock()\n"
         "        fn()\n"
         "        sync()\n"
         "        samples.append(clock() - start)\n"
         "    return samples\n",
         "were timed", "bench.no-warmup"),
        ("def time_samples(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup):\n"
         "        fn()\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        start = clock()\n"
         "        fn()\n"
         "        sync()\n"
         "        samples.append(clock() - start)\n"
         "    return samples\n",
         "still queued on the device", "bench.no-sync"),
        ("def time_samples(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup):\n"
         "        fn()\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        sync()\n"
         "        start = clock()\n"
         "        fn()\n"
         "        sync()\n"
         "        samples.append(clock() - start)\n"
         "    return statistics.median(samples)\n",
         "return the list", "bench.one-number"),
        ("def time_samples(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup + 1):\n"
         "        fn()\n"
         "    samples = []\n"
         "    for _ in range(repeats):\n"
         "        sync()\n"
         "        start = clock()\n"
         "        fn()\n"
         "        sync()\n"
         "        samples.append(clock() - start)\n"
         "    return samples\n",
         "2 + 5 calls, no more", "bench.extra-calls"),
    ],
    "06_compile-inductor": [
        ("def compare_compiled(fn, x):\n"
         "    compiled_fn = torch.compile(fn)\n"
         "    expected, got = fn(x), compiled_fn(x)\n"
         "    eager = helpers.bench.measure(lambda: fn(x))\n"
         "    fast = helpers.bench.measure(lambda: compiled_fn(x))\n"
         "    return {'max_abs_error': (got - expected).abs().max().item(),\n"
         "            'close': torch.equal(got, expected), 'speedup': eager.median / fast.median}\n",
         "Compiled code may round differently", "compile.bitwise-equal"),
        ("def compare_compiled(fn, x):\n"
         "    compiled_fn = torch.compile(fn)\n"
         "    start = time.perf_counter()\n"
         "    got = compiled_fn(x)\n"
         "    compiled_s = time.perf_counter() - start\n"
         "    start = time.perf_counter()\n"
         "    expected = fn(x)\n"
         "    eager_s = time.perf_counter() - start\n"
         + _CLOSE +
         "    return {'max_abs_error': (got - expected).abs().max().item(), 'close': close,\n"
         "            'speedup': eager_s / compiled_s}\n",
         "includes compiling", "compile.first-call-timed"),
        ("def compare_compiled(fn, x):\n"
         "    compiled_fn = torch.compile(fn)\n"
         "    expected, got = fn(x), compiled_fn(x)\n"
         + _CLOSE +
         "    eager = helpers.bench.measure(lambda: fn(x))\n"
         "    fast = helpers.bench.measure(lambda: compiled_fn(x))\n"
         "    return {'max_abs_error': (got - expected).abs().max().item(), 'close': close,\n"
         "            'speedup': fast.median / eager.median}\n",
         "Divide the eager time by the compiled time", "compile.speedup-inverted"),
        ("def compare_compiled(fn, x):\n"
         "    compiled_fn = torch.compile(fn, backend='eager')\n"
         "    expected, got = fn(x), compiled_fn(x)\n"
         + _CLOSE +
         "    eager = helpers.bench.measure(lambda: fn(x))\n"
         "    fast = helpers.bench.measure(lambda: compiled_fn(x))\n"
         "    return {'max_abs_error': (got - expected).abs().max().item(), 'close': close,\n"
         "            'speedup': eager.median / fast.median}\n",
         "Inductor compiled nothing", "compile.compare-call"),
    ],
    "06_compile-break-even": [
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    return 1 if compiled_s < eager_s else math.inf\n",
         "compiling is not free", "compile.free-speedup"),
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    return math.ceil(compile_s / abs(eager_s - compiled_s))\n",
         "no number of calls", "compile.always-faster"),
    ],
    "06_compile-train-step": [
        (_TRAIN_HEAD +
         "        optimizer.zero_grad()\n"
         "        loss = F.mse_loss(model(x), y)\n"
         "        loss.backward()\n"
         "        optimizer.step()\n"
         "        losses.append(loss.item())\n"
         "    return losses\n",
         "Call the function torch.compile returned", "compile.uncompiled-call"),
        (_TRAIN_HEAD +
         "        loss = loss_of(x, y)\n"
         "        loss.backward()\n"
         "        optimizer.step()\n"
         "        losses.append(loss.item())\n"
         "    return losses\n",
         "zero the gradients", "compile.grads-accumulate"),
        (_TRAIN_HEAD +
         "        optimizer.zero_grad()\n"
         "        loss = loss_of(x, y)\n"
         "        loss.backward()\n"
         "        losses.append(loss.item())\n"
         "    return losses\n",
         "parameters never changed", "compile.no-step"),
        (_TRAIN_HEAD +
         "        optimizer.zero_grad()\n"
         "        with torch.no_grad():\n"
         "            loss = loss_of(x, y)\n"
         "        loss.backward()\n"
         "        optimizer.step()\n"
         "        losses.append(loss.item())\n"
         "    return losses\n",
         "no graph to run backward through", "compile.no-grad-forward"),
    ],
    "06_compile-batch": [
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch <= max_batch:\n"
         "        cost = helpers.roofline.Cost('layer', 2.0 * batch * d_in * d_out,\n"
         "                                     4.0 * (batch * d_in + batch * d_out))\n"
         "        if helpers.roofline.regime(cost, roof) == 'compute':\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return None\n",
         "weight matrix's bytes", "roofline.weights-free"),
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch <= max_batch:\n"
         "        cost = helpers.roofline.matmul_cost(batch, d_in, d_out)\n"
         "        if cost.intensity >= roof.ridge:\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return None\n",
         "compare with the fixed cost too", "regime.no-overhead"),
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch < max_batch:\n"
         "        cost = helpers.roofline.matmul_cost(batch, d_in, d_out)\n"
         "        if helpers.roofline.regime(cost, roof) == 'compute':\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return max_batch\n",
         "return None", "roofline.never-compute-bound"),
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch <= max_batch:\n"
         "        cost = helpers.roofline.Cost('layer', 1.0 * batch * d_in * d_out,\n"
         "                                     4.0 * (batch * d_in + d_in * d_out + batch * d_out))\n"
         "        if helpers.roofline.regime(cost, roof) == 'compute':\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return None\n",
         "a multiplication and an addition", "roofline.flops-multiplies-only"),
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch < max_batch:\n"
         "        cost = helpers.roofline.matmul_cost(batch, d_in, d_out)\n"
         "        if helpers.roofline.regime(cost, roof) == 'compute':\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return None\n",
         "up to max_batch (included)", "roofline.batch-intensity"),
    ],
}

ALTERNATIVE = {
    "06_compile-quiz-regime": 'answer_regimes = ["overhead", "memory"]',
    "06_compile-quiz-graphs": "answer_graphs = 1 + 1",
    "06_compile-quiz-where": "answer_where_grad = math.nan",
    "06_compile-quiz-recompiles": "answer_recompiles = 1 + 1 + 1 + 1",
    # counting the k - 1 additions exactly is a defensible count too
    "06_compile-quiz-flops": "answer_flops = 64 * 32 * (2 * 128 - 1)",
    "06_compile-graph-break": (
        "def clip_norm_nobreak(x, limit):\n"
        "    norm = torch.linalg.vector_norm(x)\n"
        "    return x * (limit / torch.clamp(norm, min=limit))\n"),
    "06_compile-buckets": (
        "def run_bucketed(compiled_fn, x, buckets):\n"
        "    n = len(x)\n"
        "    for size in buckets:\n"
        "        if size >= n:\n"
        "            break\n"
        "    else:\n"
        "        raise ValueError(f'no bucket holds {n} values')\n"
        "    out = compiled_fn(torch.cat([x, x.new_zeros(size - n)]))\n"
        "    return out[:n]\n"),
    "06_compile-timing": (
        "def time_samples(fn, warmup, repeats, clock, sync):\n"
        "    for _ in range(warmup):\n"
        "        fn()\n"
        "    sync()\n"
        "    samples = []\n"
        "    while len(samples) < repeats:\n"
        "        begin = clock()\n"
        "        fn()\n"
        "        sync()\n"
        "        samples.append(clock() - begin)\n"
        "    return samples\n"),
    "06_compile-inductor": (
        "def compare_compiled(fn, x):\n"
        "    fast = torch.compile(fn)\n"
        "    fast(x)   # compiles here, so measure needs no warm-up of its own\n"
        "    expected, got = fn(x), fast(x)\n"
        "    rtol, atol = 1.3e-6, 1e-5   # assert_close's tolerance for float32\n"
        "    fast_s = helpers.bench.measure(lambda: fast(x), warmup=0).median\n"
        "    eager_s = helpers.bench.measure(lambda: fn(x), warmup=0).median\n"
        "    return dict(max_abs_error=float((got - expected).abs().max()),\n"
        "                close=bool(torch.allclose(got, expected, rtol=rtol, atol=atol)),\n"
        "                speedup=eager_s / fast_s)\n"),
    "06_compile-break-even": (
        "def break_even_calls(compile_s, eager_s, compiled_s):\n"
        "    if compiled_s >= eager_s:\n"
        "        return math.inf\n"
        "    n = 1\n"
        "    while compile_s + n * compiled_s > n * eager_s:\n"
        "        n = max(n + 1, int(compile_s / (eager_s - compiled_s)))\n"
        "    return n\n"),
    "06_compile-train-step": (
        "def train_compiled(model, batches, lr, backend):\n"
        "    fast_model = torch.compile(model, backend=backend)\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=lr)\n"
        "    losses = []\n"
        "    for x, y in batches:\n"
        "        for p in model.parameters():\n"
        "            p.grad = None\n"
        "        loss = F.mse_loss(fast_model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        losses.append(float(loss))\n"
        "    return losses\n"),
    "06_compile-batch": (
        "def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
        "    for k in range(int(math.log2(max_batch)) + 1):\n"
        "        b = 2 ** k\n"
        "        flops = 2.0 * b * d_in * d_out\n"
        "        moved = 4.0 * (b * d_in + d_in * d_out + b * d_out)\n"
        "        compute = flops / roof.flops\n"
        "        if compute > moved / roof.bytes_per_s and compute > roof.overhead_s:\n"
        "            return b\n"
        "    return None\n"),
}
