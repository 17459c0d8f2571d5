"""Plausible wrong answers (with the phrase their test output must name and the
misconception id) and other correct ways to write each exercise of 06_compile."""

# lines several variants share
ROBUST = ("def robust_scale_whole(x):\n"
          "    centre = x.median()\n"
          "    spread = (x - centre).abs().median()\n"
          "    keep = (x - centre).abs() <= 3 * spread\n"
          "    count = keep.sum()\n"
          "    mean = torch.where(keep, x, 0).sum() / count\n"
          "    variance = torch.where(keep, (x - mean) ** 2, 0).sum() / (count - 1)\n"
          "    return torch.clamp((x - centre) / variance.sqrt(), -3.0, 3.0)\n")
SERVE = ("def serve(compiled_score, requests):\n"
         "    results = []\n"
         "    for tokens, temperature in requests:\n"
         "        torch._dynamo.mark_dynamic(tokens, 0)\n"
         "        torch._dynamo.mark_dynamic(tokens, 1)\n"
         "        results.append(compiled_score(tokens, torch.tensor(temperature)))\n"
         "    return results\n")
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
BATCH = ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch <= max_batch:\n"
         "        flops = 2 * batch * d_in * d_out\n"
         "        moved = 4 * (batch * d_in + d_in * d_out + batch * d_out)\n"
         "        compute_s = flops / roof.flops\n"
         "        if compute_s > moved / roof.bytes_per_s and compute_s > roof.overhead_s:\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return None\n")
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
        # Python's min: eager, min(1.0, inf) is 1.0 and the gradient is fine; compiled, Dynamo
        # turns it into torch.clamp, whose backward runs through limit / 0
        ("def clip_norm_nobreak(x, limit):\n"
         "    norm = torch.linalg.vector_norm(x)\n"
         "    return x * min(1.0, limit / norm)\n",
         "Python's min or max on a tensor becomes torch.clamp", "compile.unused-branch-gradient"),
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
    "06_compile-graph-breaks": [
        (ROBUST.replace("spread = (x - centre).abs().median()", "spread = (x - centre).abs().median().item()"),
         "breaks the graph at .item()", "compile.item-avoids-break"),
        ("def robust_scale_whole(x):\n"
         "    centre = x.median()\n"
         "    spread = (x - centre).abs().median()\n"
         "    inliers = x[(x - centre).abs() <= 3 * spread]\n"
         "    return torch.clamp((x - centre) / inliers.std(), -3.0, 3.0)\n",
         "whose result's size depends on the data", "compile.selection-in-graph"),
        ("def robust_scale_whole(x):\n"
         "    centre = x.median()\n"
         "    return torch.clamp((x - centre) / x.std(), -3.0, 3.0)\n",
         "outliers included", "compile.selection-dropped"),
        (ROBUST.replace("/ (count - 1)", "/ count"), "divides by n - 1", "compile.std-formula"),
        (ROBUST.replace("centre = x.median()", "centre = x.quantile(0.5)"),
         "lower of the two middle ones", "compile.std-formula"),
        (ROBUST.replace("    centre = x.median()\n", "    x = x.float()\n    centre = x.median()\n"),
         "rounds a float64 input to float32", "compile.new-dtype"),
    ],
    "06_compile-storm": [
        (SERVE.replace("        torch._dynamo.mark_dynamic(tokens, 1)\n", ""),
         "not only one", "compile.storm"),
        (SERVE.replace("torch.tensor(temperature)", "temperature"),
         "A guard holds a Python float's value", "compile.float-guarded"),
        (SERVE.replace("        torch._dynamo.mark_dynamic(tokens, 0)\n        torch._dynamo.mark_dynamic(tokens, 1)\n", ""),
         "every new batch size and every new length", "compile.storm"),
        ("def serve(compiled_score, requests):\n"
         "    longest = max(tokens.shape[1] for tokens, _ in requests)\n"
         "    return [compiled_score(F.pad(tokens, (0, longest - tokens.shape[1])), torch.tensor(t))\n"
         "            for tokens, t in requests]\n",
         "padding the tokens changes the mean", "compile.pad-changes-result"),
        (SERVE.replace("        results.append(", "        compiled_score(tokens, torch.tensor(temperature))\n        results.append("),
         "once per request", "compile.storm-protocol"),
    ],
    "06_compile-buckets": [
        # padded into a buffer of torch's default dtype: a float64 input is computed in float32
        ("def run_bucketed(compiled_fn, x, buckets):\n"
         "    fits = [b for b in buckets if b >= x.shape[0]]\n"
         "    if not fits:\n"
         "        raise ValueError('too long')\n"
         "    padded = torch.zeros(fits[0])\n"
         "    padded[:x.shape[0]] = x\n"
         "    return compiled_fn(padded)[:x.shape[0]]\n",
         "computed in float32", "compile.pad-default-dtype"),
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
        (BATCH.replace("d_in * d_out + batch * d_out", "batch * d_out"),
         "weight matrix's bytes", "roofline.weights-free"),
        (BATCH.replace("d_in * d_out + batch * d_out", "d_in * d_out"),
         "Count the output's bytes too", "roofline.outputs-free"),
        (BATCH.replace("batch = 1\n", "batch = 2\n"), "starts at B = 1", "roofline.batch-from-two"),
        (BATCH.replace(" and compute_s > roof.overhead_s", ""), "fixed cost of a call too", "regime.no-overhead"),
        (BATCH.replace("while batch <= max_batch", "while batch < max_batch").replace("    return None\n", "    return max_batch\n"),
         "return None", "roofline.never-compute-bound"),
        (BATCH.replace("flops = 2 * batch", "flops = batch"), "a multiplication and an addition",
         "roofline.flops-multiplies-only"),
        (BATCH.replace("while batch <= max_batch", "while batch < max_batch"), "up to max_batch, included",
         "roofline.batch-intensity"),
        (BATCH.replace("batch *= 2", "batch += 1"), "powers of two", "roofline.batch-powers"),
        (BATCH.replace("            return batch\n", "            return max(1, batch // 2)\n"),
         "not the last one before", "roofline.batch-before"),
        (BATCH.replace("if compute_s > moved / roof.bytes_per_s and compute_s > roof.overhead_s",
                       "if compute_s > moved / roof.bytes_per_s + roof.overhead_s"),
         "not larger than the other two added", "roofline.bound-sum"),
        ("def first_compute_bound_batch(d_in, d_out, roof, max_batch):\n"
         "    batch = 1\n"
         "    while batch <= max_batch:\n"
         "        cost = helpers.roofline.matmul_cost(batch, d_in, d_out)\n"
         "        if helpers.roofline.regime(cost, roof) == 'compute':\n"
         "            return batch\n"
         "        batch *= 2\n"
         "    return None\n",
         "switched off here", "roofline.helpers-count"),
    ],
}

ALTERNATIVE = {
    "06_compile-quiz-regime": 'answer_regimes = ["overhead", "memory"]',
    "06_compile-quiz-graphs": "answer_graphs = 1 + 1",
    "06_compile-quiz-where": "answer_where_grad = math.nan",
    "06_compile-quiz-recompiles": "answer_recompiles = 1 + 1 + 1 + 1",
    # counting the k - 1 additions exactly is a defensible count too
    "06_compile-quiz-flops": "answer_flops = 64 * 32 * (2 * 128 - 1)",
    # masked by hand, over the flattened values
    "06_compile-graph-breaks": (
        "def robust_scale_whole(x):\n"
        "    flat = x.flatten()\n"
        "    centre = torch.median(flat)\n"
        "    deviation = (flat - centre).abs()\n"
        "    inlier = (deviation <= 3 * deviation.median()).to(x.dtype)\n"
        "    n = inlier.sum()\n"
        "    mean = (flat * inlier).sum() / n\n"
        "    std = torch.sqrt((((flat - mean) * inlier) ** 2).sum() / (n - 1))\n"
        "    return ((x - centre) / std).clamp(min=-3.0, max=3.0)\n"),
    "06_compile-storm": (
        "def serve(compiled_score, requests):\n"
        "    out = []\n"
        "    for k, (tokens, temperature) in enumerate(requests):\n"
        "        if k == 0:   # the first call's graph, with both sizes symbolic, serves them all\n"
        "            tokens = tokens.clone()\n"
        "            for dim in range(tokens.dim()):\n"
        "                torch._dynamo.mark_dynamic(tokens, dim)\n"
        "        out.append(compiled_score(tokens, torch.full((), temperature)))\n"
        "    return out\n"),
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
        "        compute = 2.0 * b * d_in * d_out / roof.flops\n"
        "        memory = 4.0 * (b * d_in + d_in * d_out + b * d_out) / roof.bytes_per_s\n"
        "        if compute > max(memory, roof.overhead_s):\n"
        "            return b\n"
        "    return None\n"),
    # the scale clamped, so that no branch divides by a norm of 0
    "06_compile-graph-break": (
        "def clip_norm_nobreak(x, limit):\n"
        "    norm = torch.linalg.vector_norm(x)\n"
        "    return x * (limit / torch.clamp(norm, min=limit))\n"),
}
