"""The catalogue of misconceptions the course's checks can name.

A check names one by putting ``[mc:<identifier>]`` in its message (see ``helpers.checks``);
the student reads only the message, ``course report`` counts the identifiers. Each entry
says in one line what the student probably believes, and lists the exercises (solution
grade_ids) whose test cells can raise it. A lint test keeps this catalogue and the test
cells in agreement both ways.

Each notebook owns its own section; identifiers are ``<topic>.<belief>`` in lower case.
"""

from __future__ import annotations

from typing import NamedTuple


class Misconception(NamedTuple):
    description: str
    exercises: tuple[str, ...]


CATALOGUE: dict[str, Misconception] = {}

# --- 01_tensors -------------------------------------------------------------------------
CATALOGUE.update({
})

# --- 02_autograd ------------------------------------------------------------------------
CATALOGUE.update({
})

# --- 03_modules -------------------------------------------------------------------------
_M = "03_modules-"
CATALOGUE.update({
    "dropout.divide-by-p": Misconception(
        "dropout scales the survivors by 1/p",
        (_M + "quiz-dropout-value",)),
    "dropout.multiply-keep": Misconception(
        "dropout multiplies the survivors by the keep probability (or by p)",
        (_M + "quiz-dropout-value",)),
    "dropout.no-rescale": Misconception(
        "dropout zeroes elements and leaves the survivors unchanged",
        (_M + "quiz-dropout-value",)),
    "freeze.count": Misconception(
        "the trainable count is the number of parameter tensors, or need not be an int",
        (_M + "freeze",)),
    "freeze.last-frozen": Misconception(
        "freezing everything but the last layer also freezes the last layer",
        (_M + "freeze",)),
    "freeze.module-attribute": Misconception(
        "module.requires_grad = False (or eval()) freezes a module's parameters",
        (_M + "freeze",)),
    "freeze.partial": Misconception(
        "freezing the first layer freezes everything before the head",
        (_M + "freeze",)),
    "gated.init": Misconception(
        "a custom layer's biases may start at any value",
        (_M + "gated",)),
    "gated.names": Misconception(
        "a custom layer may hold its weights under other names or inside nn.Linear submodules",
        (_M + "gated",)),
    "gated.no-gate": Misconception(
        "the gated layer returns its value branch without the gate",
        (_M + "gated",)),
    "gated.no-sigmoid": Misconception(
        "the gate multiplies the value without being squashed by a sigmoid",
        (_M + "gated",)),
    "hooks.handle-left": Misconception(
        "a forward hook goes away by itself after the call that used it",
        (_M + "hook-means",)),
    "hooks.late-binding": Misconception(
        "a hook defined in a loop remembers the loop variable's value at definition",
        (_M + "hook-means",)),
    "hooks.names": Misconception(
        "hook results can be keyed by anything other than the children's names",
        (_M + "hook-means",)),
    "hooks.replay-children": Misconception(
        "running a model's children one after another reproduces its forward",
        (_M + "hook-means",)),
    "init.quiz-format": Misconception(
        "the depth quiz accepts a free-form answer",
        (_M + "quiz-relu-depth",)),
    "init.relu-grows": Misconception(
        "ReLU layers with weights of std 1/sqrt(fan_in) make activations grow with depth",
        (_M + "quiz-relu-depth",)),
    "init.relu-preserves": Misconception(
        "ReLU layers with weights of std 1/sqrt(fan_in) keep the activations' spread",
        (_M + "quiz-relu-depth",)),
    "linear.bias-shape": Misconception(
        "a Linear layer's bias (or weight) shape follows d_in, or the bias is two-dimensional",
        (_M + "gated", _M + "quiz-weight-shape",)),
    "linear.no-bias": Misconception(
        "a Linear layer computes x W^T without a bias",
        (_M + "linear-by-hand",)),
    "linear.weight-layout": Misconception(
        "nn.Linear stores its weight as (d_in, d_out) and computes x @ W",
        (_M + "gated", _M + "linear-by-hand", _M + "quiz-weight-shape",)),
    "mode.eval-freezes": Misconception(
        "model.eval() stops backward and the optimizer from changing the weights",
        (_M + "quiz-eval-freezes",)),
    "modules.buffer-is-parameter": Misconception(
        "a registered buffer is listed by parameters()",
        (_M + "quiz-param-count",)),
    "modules.layer-sizes": Misconception(
        "a layer stack's Linear sizes need not follow consecutive pairs of sizes",
        (_M + "fix-list",)),
    "modules.no-super-init": Misconception(
        "a module's __init__ can assign layers without calling super().__init__()",
        (_M + "fix-list", _M + "gated",)),
    "modules.plain-tensor": Misconception(
        "a tensor with requires_grad=True assigned to an attribute is a registered parameter",
        (_M + "gated",)),
    "modules.plain-tensor-registered": Misconception(
        "a plain tensor attribute is listed by parameters()",
        (_M + "quiz-param-count",)),
    "modules.python-list": Misconception(
        "layers kept in a Python list are registered with the module",
        (_M + "fix-list",)),
    "modules.relu-placement": Misconception(
        "a ReLU belongs after every layer, the output layer included (or nowhere)",
        (_M + "fix-list",)),
    "modules.submodule-not-counted": Misconception(
        "parameters() lists only the module's own Parameters, not its submodules'",
        (_M + "quiz-param-count",)),
    "params.bias-per-input": Misconception(
        "a Linear layer's bias has one entry per input",
        (_M + "count-params",)),
    "params.forget-bias": Misconception(
        "a Linear layer has d_in*d_out parameters (no bias)",
        (_M + "count-params",)),
    "params.input-bias": Misconception(
        "every size in an MLP's list contributes a bias, the input included",
        (_M + "count-params",)),
    "predict.dropout-active": Misconception(
        "a prediction can run in training mode (dropout and batch statistics active)",
        (_M + "predict",)),
    "predict.graph-recorded": Misconception(
        "a prediction needs no torch.no_grad(): recording the graph costs nothing",
        (_M + "predict",)),
    "predict.mode-not-restored": Misconception(
        "a helper may leave the model in eval mode (or always switch it back to train)",
        (_M + "predict",)),
    "predict.model-not-called": Misconception(
        "a prediction helper need not call the model it was given",
        (_M + "predict",)),
    "state-dict.mode": Misconception(
        "a freshly loaded model is ready for predictions without eval()",
        (_M + "load-safely",)),
    "state-dict.not-loaded": Misconception(
        "building the model is enough; the saved weights need not be loaded into it",
        (_M + "load-safely",)),
    "state-dict.returns-dict": Misconception(
        "loading weights returns the state_dict rather than the model",
        (_M + "load-safely",)),
    "state-dict.trust-pickle": Misconception(
        "torch.load(..., weights_only=False) of any file is safe: a file only holds data",
        (_M + "load-safely",)),
})

# --- 04_training_loop -------------------------------------------------------------------
_T = "04_training_loop-"
CATALOGUE.update({
    "sgd.step-adds-gradient": Misconception(
        "an SGD step adds lr × gradient to the weight instead of subtracting it", (_T + "quiz-sgd",)),
    "sgd.forgets-theta": Misconception(
        "the update replaces θ with −lr × gradient instead of moving θ by it", (_T + "quiz-sgd",)),
    "loop.grad-overwritten": Misconception(
        "each backward overwrites .grad, so zero_grad is optional", (_T + "quiz-no-zero-grad",)),
    "loop.step-waits-for-backward": Misconception(
        "optimizer.step() uses the gradient of the current batch wherever it is placed",
        (_T + "quiz-step-first",)),
    "lr.smaller-is-better": Misconception(
        "a smaller learning rate always reaches a lower loss in the same number of steps",
        (_T + "quiz-learning-rate",)),
    "loss.ce-takes-probabilities": Misconception(
        "CrossEntropyLoss expects probabilities (a softmax output) rather than raw logits",
        (_T + "quiz-double-softmax",)),
    "loop.tensor-losses": Misconception(
        "logging loss tensors is harmless; .item() is only cosmetic", (_T + "train-epoch",)),
    "loop.drops-last-batch": Misconception(
        "a range over batches stops before a last, smaller batch is needed", (_T + "train-epoch",)),
    "loop.one-loss-per-batch": Misconception(
        "the loop may log losses at another rate than once per batch", (_T + "train-epoch",)),
    "loop.one-step-per-batch": Misconception(
        "the optimizer steps at another rate than once per batch", (_T + "train-epoch",)),
    "loop.step-before-backward": Misconception(
        "the order of step and backward in the loop does not matter", (_T + "train-epoch",)),
    "loop.no-zero-grad": Misconception(
        "gradients start from zero at each backward without zero_grad", (_T + "train-epoch",)),
    "loop.wrong-batch": Misconception(
        "batches can be sliced loosely (overlapping, skipped or out of order)", (_T + "train-epoch",)),
    "loop.loss-after-step": Misconception(
        "the logged loss can be recomputed after the step", (_T + "train-epoch",)),
    "eval.tensor-result": Misconception(
        "evaluation results can stay tensors instead of Python numbers", (_T + "evaluate",)),
    "eval.model-not-called": Misconception(
        "an evaluation can be computed without running the given model", (_T + "evaluate",)),
    "eval.train-mode": Misconception(
        "no_grad alone switches dropout off (eval() is not needed)", (_T + "evaluate",)),
    "eval.grad-enabled": Misconception(
        "eval() alone stops autograd from recording (no_grad is not needed)", (_T + "evaluate",)),
    "eval.percent": Misconception(
        "accuracy is reported as a percentage rather than a fraction", (_T + "evaluate",)),
    "early-stop.ties-improve": Misconception(
        "a validation loss equal to the best counts as an improvement", (_T + "early-stop",)),
    "early-stop.off-by-one": Misconception(
        "training stops after patience + 1 epochs without improvement", (_T + "early-stop",)),
    "early-stop.zero-based": Misconception(
        "epochs are numbered from 0 where the task numbers them from 1", (_T + "early-stop",)),
    "early-stop.last-not-best": Misconception(
        "the weights to keep are the last epoch's, not the best epoch's", (_T + "early-stop",)),
    "early-stop.rule": Misconception(
        "the patience counter is not reset by a new best, or counts something else",
        (_T + "early-stop",)),
    "nan.not-detected": Misconception(
        "a NaN loss can be back-propagated and stepped without harm", (_T + "guarded-step",)),
    "nan.step-not-named": Misconception(
        "an error that does not say where the loss became NaN is enough", (_T + "guarded-step",)),
    "clip.not-applied": Misconception(
        "gradient clipping can go after optimizer.step() (or be skipped)", (_T + "guarded-step",)),
    "clip.norm-after-clipping": Misconception(
        "clip_grad_norm_ returns (or one should log) the norm after clipping",
        (_T + "guarded-step",)),
    "checkpoint.generator-state": Misconception(
        "a checkpoint needs no random generator state to resume a shuffling loop",
        (_T + "checkpoint",)),
    "checkpoint.optimizer-state": Misconception(
        "the model's state_dict is a complete checkpoint (the optimizer's state can be dropped)",
        (_T + "checkpoint",)),
    "checkpoint.epoch": Misconception(
        "the loop's position need not be saved and returned", (_T + "checkpoint",)),
    "checkpoint.incomplete": Misconception(
        "restoring part of the training state reproduces the run", (_T + "checkpoint",)),
    "accumulation.step-per-micro-batch": Misconception(
        "gradient accumulation steps the optimizer after every micro-batch", (_T + "accumulate",)),
    "accumulation.stale-grad": Misconception(
        "accumulation starts from zero without clearing .grad first", (_T + "accumulate",)),
    "accumulation.unscaled": Misconception(
        "summing micro-batch mean losses gives the large-batch mean's gradient",
        (_T + "accumulate",)),
    "accumulation.equal-weights": Misconception(
        "dividing by the number of micro-batches weights them correctly even when they differ in size",
        (_T + "accumulate",)),
    "bughunt.python-list": Misconception(
        "layers kept in a Python list are registered as parameters", (_T + "bug-hunt",)),
    "bughunt.double-softmax": Misconception(
        "a model feeding CrossEntropyLoss should end in softmax", (_T + "bug-hunt",)),
    "bughunt.float-target": Misconception(
        "CrossEntropyLoss accepts class indices stored as floats", (_T + "bug-hunt",)),
    "bughunt.no-zero-grad": Misconception(
        "a loop without zero_grad trains normally", (_T + "bug-hunt",)),
    "bughunt.eval-mode": Misconception(
        "accuracy can be measured with dropout active", (_T + "bug-hunt",)),
    "bughunt.no-grad": Misconception(
        "evaluation needs no torch.no_grad()", (_T + "bug-hunt",)),
})

# --- 05_data ----------------------------------------------------------------------------
CATALOGUE.update({
    "data.dataset-protocol": Misconception(
        "a Dataset item is something other than (features of example i, label i)", ("05_data-dataset",)),
    "data.len-is-features": Misconception(
        "len(dataset) is the number of features, or the last index", ("05_data-dataset",)),
    "data.numpy-float64": Misconception(
        "NumPy data can go to a float32 model as it is (it is float64)", ("05_data-dataset",)),
    "data.split-protocol": Misconception(
        "a split need not cover the dataset once, or need not be random", ("05_data-split",)),
    "data.split-sizes": Misconception(
        "the 80 % share is rounded up, or goes to the validation set", ("05_data-split",)),
    "data.split-unseeded": Misconception(
        "random_split repeats its split without its own seeded generator", ("05_data-split",)),
    "data.quiz-number": Misconception(
        "a count can be answered with a float or a string", ("05_data-quiz-dropped", "05_data-quiz-ranks")),
    "data.dropped-is-missing": Misconception(
        "drop_last leaves out the examples the last batch lacks, not the ones it holds",
        ("05_data-quiz-dropped",)),
    "data.drop-last-pads": Misconception(
        "drop_last pads or wraps around, so no example is left out", ("05_data-quiz-dropped",)),
    "data.steps-rule": Misconception(
        "steps per epoch follow some rule other than ceil(N / B) (floor with drop_last)",
        ("05_data-steps",)),
    "data.floor-steps": Misconception(
        "steps per epoch is N // B even when the ragged last batch is kept", ("05_data-steps",)),
    "data.drop-last-ignored": Misconception(
        "drop_last=True does not change the number of steps", ("05_data-steps",)),
    "data.plus-one": Misconception(
        "steps per epoch is N // B + 1, also when B divides N", ("05_data-steps",)),
    "data.weights-per-class": Misconception(
        "WeightedRandomSampler takes one weight per class", ("05_data-balance",)),
    "data.weights-negative": Misconception(
        "sampling weights may be negative", ("05_data-balance",)),
    "data.weights-inverted": Misconception(
        "balancing weights grow with the class size", ("05_data-balance",)),
    "data.weights-uniform": Misconception(
        "equal weights balance the classes", ("05_data-balance",)),
    "data.collate-protocol": Misconception(
        "a collate_fn returns lists, or something other than batch tensors in batch order",
        ("05_data-collate",)),
    "data.pad-time-first": Misconception(
        "pad_sequence returns (batch, length) without batch_first=True", ("05_data-collate",)),
    "data.lengths-after-padding": Misconception(
        "sequence lengths can be measured after padding", ("05_data-collate",)),
    "data.pad-value": Misconception(
        "padding can go before the sequence or use another value than zero", ("05_data-collate",)),
    "data.quiz-bool": Misconception(
        "a yes/no answer can be a string or a number", ("05_data-quiz-workers",)),
    "data.workers-own-rng": Misconception(
        "DataLoader workers reseed a random generator that the dataset owns", ("05_data-quiz-workers",)),
    "data.dist-floor": Misconception(
        "DistributedSampler gives each rank floor(N / world_size) indices", ("05_data-quiz-ranks",)),
    "data.dist-rule": Misconception(
        "a rank's share follows some rule other than strided and padded", ("05_data-shard",)),
    "data.dist-no-padding": Misconception(
        "DistributedSampler does not pad, so ranks get different numbers of indices", ("05_data-shard",)),
    "data.dist-contiguous": Misconception(
        "DistributedSampler gives each rank a contiguous chunk of indices", ("05_data-shard",)),
})

# --- 06_compile -------------------------------------------------------------------------
CATALOGUE.update({
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
})
