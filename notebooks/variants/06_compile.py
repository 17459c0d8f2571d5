"""Plausible wrong answers (with the phrase their test output must name and the
misconception id) and other correct ways to write each exercise of 06_compile."""

# lines several variants share
_CLOSE = ("    try:\n"
          "        torch.testing.assert_close(got, expected)\n"
          "        close = True\n"
          "    except AssertionError:\n"
          "        close = False\n")
_COMPARE = ("def compare_compiled(fn, x):\n"
            "    compiled_fn = torch.compile(fn)\n"
            "    expected, got = fn(x), compiled_fn(x)\n"
            + _CLOSE +
            "    eager = helpers.bench.measure(lambda: fn(x))\n"
            "    fast = helpers.bench.measure(lambda: compiled_fn(x))\n"
            "    return {'max_abs_error': (got - expected).abs().max().item(), 'close': close,\n"
            "            'speedup': eager.median / fast.median}\n")
# the reference timing loop, which the timing variants change in one place each
_TIMED_LOOP = ("def time_samples(fn, warmup, repeats, clock, sync):\n"
               "    for _ in range(warmup):\n"
               "        fn()\n"
               "    samples = []\n"
               "    for _ in range(repeats):\n"
               "        sync()\n"
               "        start = clock()\n"
               "        fn()\n"
               "        sync()\n"
               "        time_now = clock()\n"
               "        samples.append(time_now - start)\n"
               "    return samples\n")
_TRAIN_HEAD = ("def train_compiled(model, batches, lr, compile_fn):\n"
               "    optimizer = torch.optim.SGD(model.parameters(), lr=lr)\n"
               "    rows = batches[0][0].shape[0]\n"
               "    losses = []\n")
# the reference's masked loss, compiled once; then each variant's loop
_MASKED = ("    def masked_mse(x, y, real):\n"
           "        return ((model(x) - y) ** 2 * real).sum() / (real.sum() * y.shape[1])\n"
           "    loss_of = compile_fn(masked_mse)\n")
_PADDED = ("    for x, y in batches:\n"
           "        short = rows - x.shape[0]\n"
           "        real = F.pad(torch.ones(x.shape[0], 1), (0, 0, 0, short))\n"
           "        x, y = F.pad(x, (0, 0, 0, short)), F.pad(y, (0, 0, 0, short))\n")
_STEP = ("        optimizer.zero_grad()\n"
         "        loss.backward()\n"
         "        optimizer.step()\n"
         "        losses.append(loss.item())\n"
         "    return losses\n")

WRONG = {
    "06_compile-quiz-regime": [
        ('answer_regimes = ("memory", "memory")', "fixed cost, however small",
         "regime.no-overhead"),
        ('answer_regimes = ("overhead", "compute")', "Size alone does not make",
         "regime.big-is-compute"),
        ('answer_regimes = ["overhead", "overhead"]', "elements' reads and writes",
         "regime.overhead-always"),
        ('answer_regimes = ("overhead", "bandwidth")', "pair of those words", "regime.answer-form"),
    ],
    "06_compile-quiz-graphs": [
        ("answer_graphs = 1", "not a tensor operation", "compile.print-in-graph"),
        ("answer_graphs = 3", "what each stretch", "compile.empty-graph"),
        ("answer_graphs = 4", "not a graph of its own", "compile.break-is-graph"),
        ("answer_graphs = 2.5", "should be a whole number", "compile.quiz-type"),
    ],
    "06_compile-quiz-where": [
        ("answer_where_grad = 0", "what is 0 times it", "compile.where-masks-gradient"),
        ('answer_where_grad = float("inf")', "derivative at 0", "compile.where-masks-gradient"),
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
        ("answer_flops = 64 * 128 * 32", "what else", "roofline.flops-multiplies-only"),
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
        # another norm: the sum of squares (no square root)
        ("def clip_norm_nobreak(x, limit):\n"
         "    norm = (x ** 2).sum()\n"
         "    return x * (limit / torch.clamp(norm, min=limit))\n",
         "Euclidean norm", "compile.clip-scale"),
        # scaled to norm 1, whatever the limit
        ("def clip_norm_nobreak(x, limit):\n"
         "    norm = torch.linalg.vector_norm(x)\n"
         "    return x / torch.clamp(norm, min=1.0)\n",
         "becomes the limit", "compile.clip-scale"),
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
         "Append the zeros at the end", "compile.bucket-call"),
        # compiled_fn called twice per input (hidden: the calls are counted)
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    fits = [b for b in buckets if b >= x.shape[0]]\n"
         "    if not fits:\n"
         "        raise ValueError('too long')\n"
         "    padded = F.pad(x, (0, fits[0] - x.shape[0]))\n"
         "    compiled_fn(padded)   # a trial call\n"
         "    return compiled_fn(padded)[:x.shape[0]]\n",
         "Call it once per input", "compile.bucket-call"),
        # an index past the last bucket raises IndexError, not the ValueError asked for
        ("import bisect\n"
         "def run_bucketed(compiled_fn, x, buckets):\n"
         "    size = buckets[bisect.bisect_left(buckets, x.shape[0])]\n"
         "    return compiled_fn(F.pad(x, (0, size - x.shape[0])))[:x.shape[0]]\n",
         "not another", "compile.no-bucket-fits"),
    ],
    "06_compile-timing": [
        (_TIMED_LOOP.replace("        sync()\n", ""),
         "call sync() before reading the clock", "bench.no-sync"),
        (_TIMED_LOOP.replace("    for _ in range(warmup):\n        fn()\n", ""),
         "were timed", "bench.no-warmup"),
        (_TIMED_LOOP.replace("        sync()\n        start", "        start"),
         "still queued on the device", "bench.no-sync"),
        (_TIMED_LOOP.replace("    return samples\n", "    return statistics.median(samples)\n"),
         "return the list", "bench.one-number"),
        (_TIMED_LOOP.replace("range(warmup)", "range(warmup + 1)"),
         "2 + 5 calls, no more", "bench.extra-calls"),
        ("def time_samples(fn, warmup, repeats, clock, sync):\n"
         "    for _ in range(warmup):\n"
         "        fn()\n"
         "    sync()\n"
         "    start = clock()\n"
         "    for _ in range(repeats):\n"
         "        fn()\n"
         "    sync()\n"
         "    return [(clock() - start) / repeats] * repeats\n",
         "time each call on its own", "bench.block-average"),
        (_TIMED_LOOP.replace("clock()", "time.perf_counter()"),
         "never read the clock", "bench.wrong-clock"),
        (_TIMED_LOOP.replace("samples.append(time_now - start)", "samples.append((time_now - start) * 1000)"),
         "Return seconds", "bench.units"),
        (_TIMED_LOOP.replace("    return samples\n", "    return sorted(samples)\n"),
         "in the order measured", "bench.order-lost"),
    ],
    "06_compile-inductor": [
        (_COMPARE.replace(_CLOSE, "    close = torch.equal(got, expected)\n"),
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
        (_COMPARE.replace("eager.median / fast.median", "fast.median / eager.median"),
         "Divide the eager time by the compiled time", "compile.speedup-inverted"),
        (_COMPARE.replace("torch.compile(fn)", "torch.compile(fn, backend='eager')"),
         "Inductor compiled nothing", "compile.compare-call"),
        # the mean difference, not the largest (hidden)
        (_COMPARE.replace(".abs().max()", ".abs().mean()"), "not a mean", "compile.compare-call"),
        # the first compiled call (measure's time_first) taken as the compiled time
        (_COMPARE.replace("    expected, got = fn(x), compiled_fn(x)\n",
                          "    fast = helpers.bench.measure(lambda: compiled_fn(x), time_first=True)\n"
                          "    expected, got = fn(x), compiled_fn(x)\n")
         .replace("    fast = helpers.bench.measure(lambda: compiled_fn(x))\n", "")
         .replace("eager.median / fast.median", "eager.median / fast.first_call"),
         "includes compiling; compare", "compile.first-call-timed"),
    ],
    "06_compile-break-even": [
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    return 1 if compiled_s < eager_s else math.inf\n",
         "compiling is not free", "compile.free-speedup"),
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    return math.ceil(compile_s / abs(eager_s - compiled_s))\n",
         "no number of calls", "compile.always-faster"),
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    if compiled_s >= eager_s:\n"
         "        return math.inf\n"
         "    return compile_s / (eager_s - compiled_s)\n",
         "a whole number", "compile.free-speedup"),
        # one call too many where the saving covers the compile time exactly (hidden)
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    if compiled_s >= eager_s:\n"
         "        return math.inf\n"
         "    return math.floor(compile_s / (eager_s - compiled_s)) + 1\n",
         "exactly covers", "compile.free-speedup"),
        # 0 calls when there is nothing to win back (hidden)
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    if compiled_s >= eager_s:\n"
         "        return math.inf\n"
         "    return math.ceil(compile_s / (eager_s - compiled_s))\n",
         "counts calls from 1", "compile.free-speedup"),
        # equal per-call times divide by zero (hidden)
        ("def break_even_calls(compile_s, eager_s, compiled_s):\n"
         "    if compiled_s > eager_s:\n"
         "        return math.inf\n"
         "    return max(1, math.ceil(compile_s / (eager_s - compiled_s)))\n",
         "equal per-call times", "compile.always-faster"),
    ],
    "06_compile-train-step": [
        # the short batch reaches the static compile unpadded
        (_TRAIN_HEAD + "    loss_of = compile_fn(lambda x, y: F.mse_loss(model(x), y))\n"
         "    for x, y in batches:\n"
         "        loss = loss_of(x, y)\n" + _STEP,
         "fails the shape guard", "compile.static-new-length"),
        # padded, but the count of real rows goes in as a Python int
        (_TRAIN_HEAD +
         "    def masked_mse(x, y, n):\n"
         "        real = (torch.arange(x.shape[0]) < n).float().unsqueeze(1)\n"
         "        return ((model(x) - y) ** 2 * real).sum() / (n * y.shape[1])\n"
         "    loss_of = compile_fn(masked_mse)\n"
         "    for x, y in batches:\n"
         "        n, short = x.shape[0], rows - x.shape[0]\n"
         "        loss = loss_of(F.pad(x, (0, 0, 0, short)), F.pad(y, (0, 0, 0, short)), n)\n"
         + _STEP,
         "Pass what changes as a tensor", "compile.python-number-guarded"),
        # padded, no mask: the padded rows enter the mean
        (_TRAIN_HEAD + "    loss_of = compile_fn(lambda x, y: F.mse_loss(model(x), y))\n"
         + _PADDED + "        loss = loss_of(x, y)\n" + _STEP,
         "padded rows changed the loss", "compile.padding-in-loss"),
        # masked sum, but the mean divides by every row, padding included
        (_TRAIN_HEAD +
         "    def masked_mse(x, y, real):\n"
         "        return ((model(x) - y) ** 2 * real).mean()\n"
         "    loss_of = compile_fn(masked_mse)\n"
         + _PADDED + "        loss = loss_of(x, y, real)\n" + _STEP,
         "divides by the real rows", "compile.padding-in-loss"),
        # the mean divides by the real rows, not by their elements (hidden: 3 outputs)
        (_TRAIN_HEAD +
         "    def masked_mse(x, y, real):\n"
         "        return ((model(x) - y) ** 2 * real).sum() / real.sum()\n"
         "    loss_of = compile_fn(masked_mse)\n"
         + _PADDED + "        loss = loss_of(x, y, real)\n" + _STEP,
         "every output column", "compile.padding-in-loss"),
        # padding told apart by value: a real row of zeros is dropped too (hidden)
        (_TRAIN_HEAD +
         "    def masked_mse(x, y):\n"
         "        real = (x.abs().sum(1, keepdim=True) > 0).float()\n"
         "        return ((model(x) - y) ** 2 * real).sum() / (real.sum() * y.shape[1])\n"
         "    loss_of = compile_fn(masked_mse)\n"
         + _PADDED + "        loss = loss_of(x, y)\n" + _STEP,
         "position, not by its value", "compile.padding-in-loss"),
        # only x padded: y keeps its 5 rows
        (_TRAIN_HEAD + _MASKED +
         "    for x, y in batches:\n"
         "        short = rows - x.shape[0]\n"
         "        real = F.pad(torch.ones(x.shape[0], 1), (0, 0, 0, short))\n"
         "        loss = loss_of(F.pad(x, (0, 0, 0, short)), y, real)\n" + _STEP,
         "x and y alike", "compile.static-new-length"),
        # the real rows sliced out by a count held in a tensor: .item(), a graph break
        (_TRAIN_HEAD +
         "    loss_of = compile_fn(lambda x, y, n: F.mse_loss(model(x)[:n], y[:n]))\n"
         "    for x, y in batches:\n"
         "        short = rows - x.shape[0]\n"
         "        loss = loss_of(F.pad(x, (0, 0, 0, short)), F.pad(y, (0, 0, 0, short)),\n"
         "                       torch.tensor(x.shape[0]))\n" + _STEP,
         "captured no graph", "compile.item-avoids-break"),
        # padded to the size the visible test happens to use (hidden: other sizes)
        (_TRAIN_HEAD.replace("batches[0][0].shape[0]", "16") + _MASKED + _PADDED
         + "        loss = loss_of(x, y, real)\n" + _STEP,
         "whatever they are", "compile.static-new-length"),
        # the original function called: compile_fn's result is thrown away
        (_TRAIN_HEAD +
         "    def masked_mse(x, y, real):\n"
         "        return ((model(x) - y) ** 2 * real).sum() / (real.sum() * y.shape[1])\n"
         "    compile_fn(masked_mse)\n"
         + _PADDED + "        loss = masked_mse(x, y, real)\n" + _STEP,
         "compiled nothing", "compile.uncompiled-call"),
        (_TRAIN_HEAD + _MASKED + _PADDED + "        loss = loss_of(x, y, real)\n"
         + _STEP.replace("        optimizer.zero_grad()\n", ""),
         "zero the gradients", "compile.grads-accumulate"),
        (_TRAIN_HEAD + _MASKED + _PADDED + "        loss = loss_of(x, y, real)\n"
         + _STEP.replace("        optimizer.step()\n", ""),
         "parameters never changed", "compile.no-step"),
        (_TRAIN_HEAD + _MASKED + _PADDED +
         "        with torch.no_grad():\n"
         "            loss = loss_of(x, y, real)\n" + _STEP,
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
        # every batch size tried, not the powers of two
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    for b in range(1, max_batch + 1):\n"
         "        cost = helpers.roofline.matmul_cost(b, d_in, d_out)\n"
         "        if helpers.roofline.regime(cost, roof) == 'compute':\n"
         "            return b\n"
         "    return None\n",
         "powers of two", "roofline.batch-powers"),
        # the last batch before the turn
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch, before = 1, None\n"
         "    while batch <= max_batch:\n"
         "        cost = helpers.roofline.matmul_cost(batch, d_in, d_out)\n"
         "        if helpers.roofline.regime(cost, roof) == 'compute':\n"
         "            return before or batch\n"
         "        before, batch = batch, batch * 2\n"
         "    return None\n",
         "not the last one before", "roofline.batch-before"),
        # compute-bound read as: compute above memory and overhead added together
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch <= max_batch:\n"
         "        b = helpers.roofline.bounds(helpers.roofline.matmul_cost(batch, d_in, d_out), roof)\n"
         "        if b.compute_s > b.memory_s + b.overhead_s:\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return None\n",
         "already compute-bound", "roofline.bound-sum"),
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
    # the model alone compiled; the masked loss computed after it, eagerly
    "06_compile-train-step": (
        "def train_compiled(model, batches, lr, compile_fn):\n"
        "    fast_model = compile_fn(model)\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=lr)\n"
        "    full = len(batches[0][0])\n"
        "    losses = []\n"
        "    for x, y in batches:\n"
        "        n = len(x)\n"
        "        padded = torch.cat([x, x.new_zeros(full - n, x.shape[1])])\n"
        "        for p in model.parameters():\n"
        "            p.grad = None\n"
        "        loss = F.mse_loss(fast_model(padded)[:n], y)\n"
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
