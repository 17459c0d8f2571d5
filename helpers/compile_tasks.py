"""What notebook 06's test cells run the student's code under, and the checks both halves of
a test cell share: the visible part calls a check on what the kernel computed, the judge on
what the probe reported for the same inputs (helpers.grading), then adds its hidden cases.

Each runner returns plain data (numbers, lists, tensors, dicts); each check takes plain data
and fails with the misconception it shows. Nothing here is an answer.
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn

from helpers import capture

# ------------------------------------------------------------------ Exercise 1: clip_norm


def clip_norm(x, limit):
    """The task's clip_norm, with its Python if."""
    norm = torch.linalg.vector_norm(x)
    if norm > limit:
        return x * (limit / norm)
    return x


def gradient(fn, x, limit):
    """The gradient of sum(fn(x, limit) * (1, 2, 3, ...)) with respect to x."""
    x = x.clone().requires_grad_(True)
    (fn(x, limit) * torch.arange(1.0, x.numel() + 1, dtype=x.dtype).reshape(x.shape)).sum().backward()
    return x.grad


def whole(fn):
    """``fn`` compiled with no graph break allowed (the eager backend: Dynamo's capture only).
    A fresh copy each time: after a failed fullgraph compile Dynamo may run the same code
    eagerly from then on, which would hide the failure from a second test."""
    return torch.compile(capture.fresh_copy(fn, f"{fn.__name__}_whole"), backend="eager", fullgraph=True)


def breaks(fn, x) -> dict:
    """How Dynamo, at its default settings, captures ``fn(x)``: the number of graphs and the
    first line of each graph break's reason (torch._dynamo.explain, internal API; on a fresh
    copy of ``fn``, so that nothing compiled before counts)."""
    report = torch._dynamo.explain(capture.fresh_copy(fn, f"{fn.__name__}_explained"))(x)
    return {"graphs": report.graph_count,
            "breaks": [str(r.reason).strip().splitlines()[0] for r in report.break_reasons]}


BREAK = ("[mc:compile.item-avoids-break] torch.compile(..., fullgraph=True) stopped at a graph "
         "break: a Python if on a tensor's value (also through .item()) needs a value Dynamo does "
         "not have while tracing. Express the choice as tensor operations.")


def check_clip(seen: dict) -> None:
    """``seen``: clip_norm_nobreak on [0.6, 0.8] and [3, 4] (limit 2), the fullgraph compile on
    [3, 4], and the gradient at x = 0 (limit 1), eager and compiled."""
    from helpers import checks

    small, big = torch.tensor([0.6, 0.8]), torch.tensor([3.0, 4.0])
    checks.expect_close(seen["small"], clip_norm(small, 2.0), "clip_norm_nobreak([0.6, 0.8], 2.0)",
                        hint="[mc:compile.branch-dropped] A norm already within the limit must "
                             "leave x unchanged: removing the if must keep both branches.")
    checks.expect_true(not torch.allclose(seen["big"], big),
                       "clip_norm_nobreak([3.0, 4.0], 2.0) returned x unchanged. "
                       "[mc:compile.branch-dropped] A norm above the limit must be scaled down: "
                       "removing the if must keep both branches.")
    checks.expect_close(seen["big"], clip_norm(big, 2.0), "clip_norm_nobreak([3.0, 4.0], 2.0)",
                        hint="[mc:compile.clip-scale] Above the limit, clip_norm scales x so that "
                             "its Euclidean norm (torch.linalg.vector_norm) becomes the limit itself.")
    checks.expect_close(seen["compiled big"], clip_norm(big, 2.0), "the compiled clip_norm_nobreak",
                        hint="[mc:compile.branch-dropped] Compiling must not change the values.")
    for where in ("gradient at 0", "compiled gradient at 0"):
        grad = seen[where]
        checks.expect_true(bool(torch.isfinite(grad).all()),
                           f"The {where.replace('gradient', 'gradient of the function')} is "
                           f"{grad.tolist()}. [mc:compile.unused-branch-gradient] At x = 0 the norm is "
                           "0: the branch you throw away divides by it, and the backward pass still "
                           "runs through that branch (its gradient times 0 is NaN when it is inf or "
                           "NaN). Make sure the discarded branch never divides by 0, for example by "
                           "masking its input too." + (" (Compiled, Python's min or max on a tensor "
                                                       "becomes torch.clamp, whose backward does run "
                                                       "through the division.)" if "compiled" in where else ""))


# ----------------------------------------------------------- Exercise 2: robust_scale

def robust_scale(x, median=None, correction: int = 1, all_values: bool = False):
    """The task's robust_scale (with its .item() and its selection: a reference, not to be
    compiled); the keywords make the usual wrong versions, to recognise them."""
    centre = x.median() if median is None else median(x)
    spread = (x - centre).abs().median().item()
    inliers = x if all_values else x[(x - centre).abs() <= 3 * spread]
    return torch.clamp((x - centre) / inliers.std(correction=correction), -3.0, 3.0)


def check_robust(result, x, what: str) -> None:
    """``robust_scale_whole(x)`` against the task's robust_scale."""
    from helpers import checks

    want = robust_scale(x)
    checks.expect_type(result, torch.Tensor, f"robust_scale_whole({what})")
    checks.expect_true(result.dtype == x.dtype,
                       f"robust_scale_whole({what}) has dtype {result.dtype} for a {x.dtype} input. "
                       "[mc:compile.new-dtype] robust_scale keeps the input's dtype: an accumulator "
                       "or constant made with torch's default dtype (float32) rounds a float64 "
                       "input to float32.")
    checks.expect_shape(result, tuple(x.shape), f"robust_scale_whole({what})")
    rtol = 1e-10 if x.dtype == torch.float64 else 1e-5
    if torch.allclose(result, want, rtol=rtol, atol=rtol, equal_nan=True):
        return
    wrong = {"all": robust_scale(x, all_values=True),
             "population": robust_scale(x, correction=0),
             "quantile": robust_scale(x, median=lambda t: t.quantile(0.5))}
    close = {k: torch.allclose(result, v, rtol=rtol, atol=rtol, equal_nan=True) for k, v in wrong.items()}
    checks.expect_true(not close["all"],
                       f"robust_scale_whole({what}) divides by the standard deviation of every value, "
                       "outliers included. [mc:compile.selection-dropped] The statistic is over the "
                       "values within 3 spreads of the median: keep them with a mask (torch.where) "
                       "rather than a selection, and count them.")
    checks.expect_true(not close["population"],
                       f"robust_scale_whole({what}) divides the squared deviations by the number of "
                       "inliers. [mc:compile.std-formula] Tensor.std divides by n - 1 (Bessel's "
                       "correction): a masked version must too.")
    checks.expect_true(not close["quantile"],
                       f"robust_scale_whole({what}) takes the median as the mean of the two middle "
                       "values. [mc:compile.std-formula] torch.median of an even number of values is "
                       "the lower of the two middle ones (quantile(0.5) averages them): keep "
                       "x.median(), which compiles.")
    checks.expect_close(result, want, f"robust_scale_whole({what})", rtol=rtol, atol=rtol,
                        hint="[mc:compile.std-formula] The same values as robust_scale: the median, "
                             "the median absolute deviation, the inliers' standard deviation (n - 1), "
                             "then the clip to ±3.")


def check_one_graph(seen: dict, what: str) -> None:
    """``breaks(robust_scale_whole, x)``: one graph, and each break named by its cause."""
    from helpers import checks

    reasons = " ".join(seen["breaks"]).lower()
    checks.expect_true("item()" not in reasons,
                       f"robust_scale_whole({what}) breaks the graph at .item(). "
                       "[mc:compile.item-avoids-break] .item() makes a Python number, which Dynamo "
                       "does not have while tracing: keep the spread a tensor.")
    checks.expect_true("nonzero" not in reasons and "dynamic shape" not in reasons,
                       f"robust_scale_whole({what}) breaks the graph at an operation whose result's "
                       "size depends on the data. [mc:compile.selection-in-graph] x[mask] keeps as many "
                       "values as the data says, so Dynamo breaks there: keep every value and leave "
                       "the outliers out with a mask (torch.where) instead of selecting.")
    checks.expect_true(seen["graphs"] == 1,
                       f"Dynamo captured robust_scale_whole({what}) as {seen['graphs']} graphs "
                       f"({'; '.join(seen['breaks']) or 'no break reported'}). "
                       "[mc:compile.item-avoids-break] Find the breaks with "
                       "torch_log.shown(graph_breaks=True) and remove each.")


def robust_inputs() -> dict[str, torch.Tensor]:
    """The inputs the graders use, by name: outliers, even and odd lengths, 2-d, float64."""
    g = torch.Generator().manual_seed(6)
    spiky = torch.randn(41, generator=g)
    spiky[[3, 17]] = torch.tensor([40.0, -25.0])
    return {"41 values with two outliers": spiky,
            "50 values, an even number": torch.randn(50, generator=g) * 3 + 1,
            "a 6 × 7 tensor": torch.randn(6, 7, generator=g),
            "float64, 33 values": torch.randn(33, generator=g, dtype=torch.float64) * 10,
            "float64 with an outlier": torch.cat([torch.randn(20, generator=g, dtype=torch.float64),
                                                  torch.tensor([1e3], dtype=torch.float64)])}


# -------------------------------------------------------------- Exercise 3: the storm

STORM_REQUESTS = [(4, 9, 0.7), (3, 12, 1.0), (6, 5, 0.5), (2, 30, 0.9), (5, 7, 1.3), (7, 11, 0.8),
                  (3, 3, 1.1), (4, 20, 0.6), (2, 2, 1.0), (9, 13, 0.7), (8, 2, 2.5), (2, 64, 0.35)]


def make_score(seed: int = 0):
    """A fresh ``score(tokens, temperature)`` with its own seeded embedding and head."""
    torch.manual_seed(seed)
    embed, scorer = nn.Embedding(100, 16), nn.Linear(16, 3)

    def score(tokens, temperature):
        return torch.softmax(scorer(embed(tokens).mean(1)) / temperature, dim=-1)
    return score


def storm_requests(shapes=STORM_REQUESTS, seed: int = 1) -> list[tuple[torch.Tensor, float]]:
    g = torch.Generator().manual_seed(seed)
    return [(torch.randint(0, 100, (b, n), generator=g), t) for b, n, t in shapes]


def serve_watched(serve, requests, seed: int = 0) -> dict:
    """``serve(compiled_score, requests)`` with ``compiled_score`` a static-shape compile
    (``dynamic=False``) of a fresh seeded score, its graphs and calls counted."""
    recorder = capture.Recorder()
    compiled = torch.compile(capture.fresh_copy(make_score(seed), "score_served"), backend=recorder,
                             dynamic=False)
    calls = []

    def compiled_score(tokens, temperature):
        calls.append(type(temperature).__name__)
        return compiled(tokens, temperature)

    results = serve(compiled_score, [(tokens.clone(), t) for tokens, t in requests])
    return {"results": results, "graphs": recorder.count, "calls": len(calls),
            "float temperatures": calls.count("float")}


def check_storm(seen: dict, expected: list, requests: int) -> None:
    from helpers import checks

    results = seen["results"]
    checks.expect_true(isinstance(results, list) and len(results) == requests,
                       f"[mc:compile.storm-protocol] serve returned {checks.show(results)} for "
                       f"{requests} requests: a list with each request's result, in order.")
    checks.expect_true(seen["calls"] == requests,
                       f"compiled_score was called {seen['calls']} times for {requests} requests. "
                       "[mc:compile.storm-protocol] Call it once per request.")
    for k, (got_k, want_k) in enumerate(zip(results, expected)):
        checks.expect_close(got_k, want_k, f"the result of request {k + 1}", rtol=1e-5, atol=1e-6,
                            hint="[mc:compile.pad-changes-result] Each result must be "
                                 "score(tokens, temperature) of that request: padding the tokens "
                                 "changes the mean over the sequence.")
    checks.expect_true(seen["graphs"] == 1 or not seen["float temperatures"],
                       f"{requests} requests compiled {seen['graphs']} graphs, and the temperature "
                       "arrived as a Python float. [mc:compile.float-guarded] A guard holds a Python "
                       "float's value: every new temperature compiles again. Pass it as a 0-d tensor "
                       "(torch.tensor(temperature)), whose value is data.")
    checks.expect_true(seen["graphs"] == 1,
                       f"{requests} requests compiled {seen['graphs']} graphs. [mc:compile.storm] "
                       "With dynamic=False every new batch size and every new length compiles again: "
                       "mark both dimensions of the tokens dynamic (torch._dynamo.mark_dynamic(tokens, "
                       "dim)), not only one, before the call.")


# ----------------------------------------------------------------- Exercise 5: timing

def timing_run(time_samples, durations, warmup: int, repeats: int) -> dict:
    """``time_samples`` on a SimulatedDevice of ``durations``: the samples, how often the
    device's clock was read and how often the function ran."""
    from helpers.bench import SimulatedDevice

    device, reads = SimulatedDevice(durations), []

    def clock():
        reads.append(device.clock())
        return device.clock()

    samples = time_samples(device.run, warmup, repeats, clock, device.sync)
    return {"samples": samples, "reads": len(reads), "calls": device.calls}


def check_timing(seen: dict) -> None:
    """time_samples(run, warmup=2, repeats=5) on durations (5.0, 0.5, 0.004, 0.002, 0.003, 0.020,
    0.002): a slow first call, then steady calls with one outlier."""
    from helpers import checks

    got = seen["samples"]
    with checks.because("[mc:bench.one-number] Return the list of the repeats' durations: which "
                        "summary to report is a separate choice."):
        checks.expect_type(got, (list, tuple), "time_samples(run, warmup=2, repeats=5, ...)")
        checks.expect_true(len(got) == 5, f"time_samples returned {len(got)} durations for repeats=5.")
    checks.expect_true(seen["reads"] > 0,
                       "time_samples never read the clock it was given. [mc:bench.wrong-clock] Read "
                       "clock(): it is the device's own clock, which goes with sync(); "
                       "time.perf_counter() here sees only how long Python took to queue the work.")
    checks.expect_true(max(got) <= 5.531,
                       f"One duration is {max(got):.4g} s, more than all the work the device was "
                       "given (5.531 s). [mc:bench.units] Return seconds, as clock() reads them.")
    checks.reject_close(list(got), {
        (0.0, 0.0, 0.0, 0.0, 0.0): "[mc:bench.no-sync] Every duration was zero: the device had "
                                   "only queued the work when the clock stopped. Call sync() "
                                   "before reading the clock.",
    }, "time_samples(run, warmup=2, repeats=5, ...)")
    checks.expect_true(len(set(got)) > 1,
                       f"All five durations are {got[0]:.4g} s. [mc:bench.block-average] One clock "
                       "interval around all the calls, divided by their number, hides the spread: "
                       "time each call on its own.")
    checks.expect_true(not (got[0] >= 0.5 and got[1] >= 0.5),
                       f"The first two samples took {got[0]:.3g} s and {got[1]:.3g} s, as long as "
                       "the slow first calls. [mc:bench.no-warmup] The slow first calls (compiling, "
                       "in real life) were timed: call fn() warmup times before timing.")
    checks.expect_true(got[0] < 0.5,
                       f"The first sample took {got[0]:.3g} s, far more than any timed call. "
                       "[mc:bench.no-sync] It included the warm-up calls still queued on the device: "
                       "sync() before starting the clock as well as before stopping it.")
    checks.expect_true(seen["calls"] == 7,
                       f"fn ran {seen['calls']} times for warmup=2, repeats=5. [mc:bench.extra-calls] "
                       "fn runs warmup times untimed, then repeats times timed: 2 + 5 calls, no more.")


# ------------------------------------------------------------- Exercise 6: a training step

def train_watched(train_compiled, seed: int, sizes, features: int, zero_row: bool = False,
                  lr: float = 0.1) -> dict:
    """``train_compiled`` on a seeded model and batches of ``sizes`` rows, with a static-shape
    compile_fn that records graphs and call shapes; plain data of what happened."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, features))
    batches = [(torch.randn(n, 3), torch.randn(n, features)) for n in sizes]
    if zero_row:   # a real row of zeros: data, not padding
        batches[-1][0][0] = 0.0
    saved = [(x.clone(), y.clone()) for x, y in batches]
    compile_fn = capture.StaticCompile()
    losses = train_compiled(model, batches, lr, compile_fn)
    return {"losses": losses, "weights": [p.detach().clone() for p in model.parameters()],
            "graphs": compile_fn.recorder.count,
            "backward graphs": len(compile_fn.recorder.backward_graphs),
            "shapes": sorted(compile_fn.shapes), "calls": len(compile_fn.calls),
            "inputs untouched": all(torch.equal(x, x0) and torch.equal(y, y0)
                                    for (x, y), (x0, y0) in zip(batches, saved))}


def eager_training(seed: int, sizes, features: int, zero_row: bool = False, lr: float = 0.1):
    """The same training, eagerly, on the unpadded batches: (losses, weights, each batch's loss
    had the parameters never moved)."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, features))
    batches = [(torch.randn(n, 3), torch.randn(n, features)) for n in sizes]
    if zero_row:
        batches[-1][0][0] = 0.0
    with torch.no_grad():
        untrained = [nn.functional.mse_loss(model(x), y).item() for x, y in batches]
    optimizer, losses = torch.optim.SGD(model.parameters(), lr=lr), []
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.detach() for p in model.parameters()], untrained


TRAIN_HINTS = {"does not require grad": "[mc:compile.no-grad-forward] The loss has no graph to run "
                                        "backward through: compute it with gradients on.",
               "fake tensor": "[mc:compile.static-new-length] The compiled function failed on the "
                              "shapes it was given: every tensor it gets, x and y alike, must have "
                              "the first batch's shapes, with the rows added at the end.",
               "": "[mc:compile.uncompiled-call] train_compiled(model, batches, lr, compile_fn) trains "
                   "model and returns the losses."}


def check_training(seen: dict, seed: int, sizes, features: int, zero_row: bool = False) -> None:
    """What ``train_watched`` saw, against eager SGD on the unpadded batches."""
    from helpers import checks

    want, weights, untrained = eager_training(seed, sizes, features, zero_row)
    losses, what = seen["losses"], f"batches of {', '.join(map(str, sizes))} rows, {features} outputs"
    checks.expect_true(seen["inputs untouched"],
                       f"{what}: a batch's x or y was modified in place. Work on padded copies "
                       "(F.pad returns a new tensor).")
    with checks.because("[mc:compile.uncompiled-call] Return the list of the steps' losses as Python floats."):
        checks.expect_type(losses, (list, tuple), "train_compiled(...)")
        checks.expect_true(len(losses) == len(sizes) and all(isinstance(v, float) for v in losses),
                           f"train_compiled returned {checks.show(losses)} for {len(sizes)} batches.")
    checks.expect_true(seen["graphs"] >= 1 or not seen["calls"],
                       "The compiled function ran, but Dynamo captured no graph from it. "
                       "[mc:compile.item-avoids-break] Something in it needs a tensor's value as a "
                       "Python number (slicing by a count held in a tensor does, through .item()): a "
                       "graph break, after which your code ran as plain Python. Leave the padded "
                       "rows out with tensor operations instead.")
    checks.expect_true(seen["graphs"] >= 1, "compile_fn compiled nothing. [mc:compile.uncompiled-call] "
                                            "Call the function compile_fn returned, not the original.")
    rows = sizes[0]
    checks.expect_true(all(shape[0] == rows for call in seen["shapes"] for shape in call if shape),
                       f"{what}: the compiled function was called on shapes {seen['shapes']}. "
                       "[mc:compile.static-new-length] With dynamic=False a shorter batch fails the "
                       f"shape guard of a graph compiled for {rows} rows: pad every batch to the "
                       "first batch's rows, whatever they are, before the call.")
    checks.expect_true(seen["graphs"] == 1,
                       f"{what}: the compiled function always got tensors of one shape, yet compiled "
                       f"{seen['graphs']} graphs. [mc:compile.python-number-guarded] With dynamic=False "
                       "a Python number it is given (or reads) is guarded by its value: one that "
                       "changes with the batch compiles a new graph. Pass what changes as a tensor.")
    checks.expect_true(seen["backward graphs"] == 1,
                       f"{what}: {seen['backward graphs']} backward graphs. [mc:compile.no-grad-forward] "
                       "The compiled function must run the model with gradients on, so that "
                       "AOTAutograd derives its backward graph.")
    checks.expect_true(features == 1 or abs(losses[0] - want[0] * features) > 1e-4 * max(1.0, abs(want[0])),
                       f"{what}: the first loss is {features} times the mean squared error. "
                       "[mc:compile.padding-in-loss] The mean divides by the real rows' elements, "
                       "every output column, not by the rows alone.")
    checks.expect_true(abs(losses[0] - want[0]) < 1e-4 * max(1.0, abs(want[0])),
                       f"{what}: the first loss is {losses[0]:.6g}, not the model's mean squared "
                       "error on the first batch. [mc:compile.uncompiled-call] The loss is the mean "
                       "of (model(x) - y)² over the batch.")
    checks.expect_true(len(sizes) < 2 or not all(abs(v - w) < 1e-6 for v, w in zip(losses[1:], untrained[1:])),
                       "[mc:compile.no-step] Every loss is the untrained model's loss on its batch: "
                       "the parameters never changed. Call optimizer.step() after backward().")
    checks.expect_close(torch.tensor(losses[:-1]), torch.tensor(want[:-1]), f"the losses of the full batches ({what})",
                        rtol=1e-4, atol=1e-6,
                        hint="[mc:compile.grads-accumulate] The losses differ from one-step-per-batch "
                             "SGD: zero the gradients before every backward() (notebook 04), and "
                             "step once per batch.")
    hint = ("[mc:compile.padding-in-loss] " + (
        "A real row of zeros is data: tell the padding apart by its position, not by its value."
        if zero_row else "The padded rows changed the loss: they must add nothing to the sum of "
                         "squared errors, and the mean divides by the real rows' elements only "
                         "(every output column)."))
    checks.expect_close(losses[-1], want[-1], f"the loss of the last batch ({what})", rtol=1e-4,
                        atol=1e-6, hint=hint)
    for k, (p, q) in enumerate(zip(seen["weights"], weights)):
        checks.expect_close(p, q, f"the trained model's parameter {k} ({what})", rtol=1e-4, atol=1e-6,
                            hint="[mc:compile.padding-in-loss] The model must end as plain SGD on the "
                                 "unpadded batches leaves it: the padded rows must not reach the "
                                 "gradients either.")


# ---------------------------------------------------------------- Exercise 7: a batch size

@contextlib.contextmanager
def roofline_switched_off():
    """helpers.roofline's cost and bound functions raise inside the block: the exercise asks
    for the FLOPs, bytes and fixed cost counted by hand."""
    from helpers import roofline

    names = ("matmul_cost", "elementwise_cost", "bounds", "regime", "roofline_point", "attainable")
    saved = {name: getattr(roofline, name) for name in names}

    def refuse(*args, **kwargs):
        raise RuntimeError("helpers.roofline is switched off here: count the FLOPs and bytes yourself")

    for name in names:
        setattr(roofline, name, refuse)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(roofline, name, fn)


def batch_cases() -> dict[str, tuple]:
    """(d_in, d_out, flops, bytes/s, overhead s, max_batch) by name: the visible three, then
    cases where B = 1 is the answer, where the output's bytes decide, where max_batch itself
    is the answer, and the datasheet H100 with a fixed overhead."""
    h100 = (67e12, 3.35e12, 5e-6)
    return {"1024 × 1024, roof": (1024, 1024, 1e12, 1e11, 1e-6, 2**16),
            "64 × 64, slow calls": (64, 64, 1e11, 1e10, 1e-5, 2**16),
            "8 × 8, roof": (8, 8, 1e12, 1e11, 1e-6, 2**16),
            "64 × 64, slow arithmetic": (64, 64, 1e9, 1e12, 1e-9, 2**10),
            "16 × 4096, outputs count": (16, 4096, 5e11, 1e11, 1e-7, 2**16),
            "4096 × 16, outputs count": (4096, 16, 5e11, 1e11, 1e-7, 2**16),
            "1024 × 1024, up to 16": (1024, 1024, 1e12, 1e11, 1e-6, 16),
            "1024 × 1024, up to 32": (1024, 1024, 1e12, 1e11, 1e-6, 32),
            "4096 × 4096, H100": (4096, 4096, *h100, 2**16),
            "300 × 700, H100": (300, 700, *h100, 2**20),
            "512 × 2048, H100": (512, 2048, *h100, 2**12)}


def explained(observed, key: str, hints: dict):
    """``observed[key]``, or a failed check naming the hint whose fragment the error holds
    (helpers.data_tasks.explained)."""
    from helpers.data_tasks import explained as explain
    return explain(observed, key, hints)


# ------------------------------------------------------------- Exercise 4: buckets

def running(x):
    """The function the bucket tests compile: position i depends on positions up to i only."""
    return torch.cumsum(x, 0) * 0.5 + 1.0


def bucketed_runs(run_bucketed, buckets, lengths, dtype=torch.float32, seed: int = 0) -> dict:
    """``run_bucketed`` on inputs of each length, with a static-shape compile of ``running``
    (graphs counted, the length of every call recorded); then on a length no bucket holds."""
    recorder = capture.Recorder()
    compiled = torch.compile(capture.fresh_copy(running, f"running_{len(buckets)}_{seed}"),
                             backend=recorder, dynamic=False)
    calls: list[int] = []

    def counting(x):
        calls.append(x.shape[0])
        return compiled(x)

    g, seen = torch.Generator().manual_seed(seed), {"results": {}, "calls": {}, "inputs untouched": True}
    for length in lengths:
        x = torch.randn(length, generator=g, dtype=dtype) if dtype == torch.float64 else \
            torch.arange(1.0, length + 1, dtype=dtype)
        saved, before = x.clone(), len(calls)
        try:
            seen["results"][length] = run_bucketed(counting, x, buckets)
        except NotImplementedError:   # the release's stub: not answered yet, said as such
            raise
        except Exception as error:  # noqa: BLE001 - the check says what a length's error means
            seen["results"][length] = f"raised {type(error).__name__}: {str(error).strip()[:120]}"
        seen["calls"][length] = calls[before:]
        seen["inputs untouched"] &= torch.equal(x, saved)
    seen["graphs"] = recorder.count
    too_long = max(buckets) + 1
    try:
        run_bucketed(counting, torch.ones(too_long, dtype=dtype), buckets)
        seen["too long"] = "returned"
    except ValueError:
        seen["too long"] = "ValueError"
    except Exception as error:  # noqa: BLE001 - the check names what it raised
        seen["too long"] = f"{type(error).__name__}: {str(error).strip()[:120]}"
    return seen


def check_bucketed(seen: dict, buckets, lengths, dtype=torch.float32, seed: int = 0) -> None:
    from helpers import checks

    g = torch.Generator().manual_seed(seed)
    for length in lengths:
        x = torch.randn(length, generator=g, dtype=dtype) if dtype == torch.float64 else \
            torch.arange(1.0, length + 1, dtype=dtype)
        out, calls = seen["results"][length], seen["calls"][length]
        if isinstance(out, str):
            checks.expect_true(False, f"run_bucketed on a length of {length} (buckets {tuple(buckets)}) {out}. " + (
                "[mc:compile.bucket-edge] A length equal to a bucket's fits that bucket: pad to the "
                "smallest bucket length that is at least L." if length in buckets else
                "[mc:compile.bucket-call] run_bucketed(compiled_fn, x, buckets) pads x with zeros and "
                "calls compiled_fn once on the padded tensor."))
        checks.expect_true(len(calls) == 1, f"For length {length} compiled_fn was called {len(calls)} "
                                            "times. [mc:compile.bucket-call] Call it once per input, "
                                            "on the padded x.")
        fit = min(b for b in buckets if b >= length)
        checks.expect_true(calls[0] == fit or calls[0] > length,
                           f"For length {length} compiled_fn was called on length {calls[0]}. "
                           "[mc:compile.static-new-length] With dynamic=False every new length fails "
                           "a shape guard: call compiled_fn only on padded tensors, whose lengths are "
                           "bucket lengths.")
        checks.expect_true(calls[0] == fit or calls[0] != max(buckets),
                           f"For length {length} compiled_fn was called on length {calls[0]}, the "
                           "largest bucket. [mc:compile.pad-to-largest] Padding everything to the "
                           "largest bucket makes every short input pay for the longest length: pad to "
                           "the smallest bucket that fits.")
        checks.expect_true(calls[0] == fit,
                           f"For length {length} compiled_fn was called on length {calls[0]}. "
                           "[mc:compile.bucket-edge] Pad to the smallest bucket length that is at "
                           "least L: a length equal to a bucket's fits that bucket.")
        with checks.because("[mc:compile.padding-kept] Return the first L values only: the padding "
                            "is not part of the answer."):
            checks.expect_shape(out, (length,), f"the result for length {length}")
        checks.expect_true(out.dtype == dtype,
                           f"The result for a {dtype} input of length {length} is {out.dtype}. "
                           "[mc:compile.pad-default-dtype] A buffer made without dtype= (torch.zeros(n)) "
                           "is float32, so a float64 input was padded into it and computed in float32: "
                           "pad with the input's dtype (F.pad, x.new_zeros).")
        checks.expect_close(out, running(x), f"the result for length {length}",
                            rtol=1e-12 if dtype == torch.float64 else 1e-5,
                            hint="[mc:compile.bucket-call] Append the zeros at the end of x and keep "
                                 "the first L values of the result: those are the unpadded input's.")
    checks.expect_true(seen["inputs untouched"], "x was modified in place: pad a copy (F.pad returns "
                                                 "a new tensor).")
    checks.expect_true(seen["graphs"] == len(buckets),
                       f"Lengths {min(lengths)} to {max(lengths)} compiled {seen['graphs']} graphs for "
                       f"{len(buckets)} buckets. [mc:compile.static-new-length] One graph per bucket.")
    checks.expect_true(seen["too long"] == "ValueError",
                       f"run_bucketed on a length of {max(buckets) + 1} (buckets {tuple(buckets)}) "
                       f"{'returned a result' if seen['too long'] == 'returned' else 'raised ' + seen['too long']}. "
                       "[mc:compile.no-bucket-fits] A length longer than every bucket has no bucket "
                       "to go to: raise a ValueError that says so (not another error, and no result "
                       "padded to some other length).")


BATCH_HINTS = {"switched off": "[mc:roofline.helpers-count] Count the FLOPs, the bytes and compare the "
                               "three times yourself: helpers.roofline's functions are switched off here.",
               "": "[mc:roofline.weights-free] first_compute_bound_batch(d_in, d_out, roof, max_batch) "
                   "returns a batch size or None."}


def check_batch_form(value, name: str, max_batch: int) -> None:
    """What any answer of first_compute_bound_batch must be: None, or a power of two from 1 up
    to max_batch. (Whether it is the right one, the judge says: its answers are no helper's.)"""
    from helpers import checks

    said = f"first_compute_bound_batch({name}) is {checks.show(value)}"
    checks.expect_true(value is None or (type(value) is int and 1 <= value <= max_batch),
                       f"{said}. [mc:roofline.never-compute-bound] Return a batch size from 1 up to "
                       "max_batch, or None when none of them is compute-bound.")
    checks.expect_true(value is None or value & (value - 1) == 0,
                       f"{said}. [mc:roofline.batch-powers] The task tries B = 1, 2, 4, 8, ...: return "
                       "one of those powers of two.")
