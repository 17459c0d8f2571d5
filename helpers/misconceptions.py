"""The catalogue of misconceptions the course's checks can name.

A check names one by putting ``[mc:<identifier>]`` in its message (see ``helpers.checks``);
the student reads only the message, ``course report`` counts the identifiers. Each entry
says in one line what the student probably believes, and lists the exercises (solution
grade_ids) whose test cells can raise it. A lint test keeps this catalogue and the test
cells in agreement both ways.

Each notebook owns its own section; identifiers are ``<topic>.<belief>`` in lower case.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# A message may carry a misconception identifier as "[mc:broadcast.outer-product]" anywhere
# in its text. The student never sees the marker; the error's evalue keeps it at the end so
# that `course report` can count misconceptions from autograded notebooks alone. (Here, not
# in helpers.checks, so that reading markers does not import torch.)
MARKER = re.compile(r"\s*\[mc:([a-z0-9_-]+(?:\.[a-z0-9_-]+)*)\]")
UNANSWERED = "unanswered"  # reserved identifier: the exercise was not attempted


def split_marker(text: str) -> tuple[str, str | None]:
    """``"x is wrong. [mc:a.b]"`` -> ``("x is wrong.", "a.b")``; the first marker wins."""
    found = MARKER.search(text)
    return MARKER.sub("", text).strip(), (found.group(1) if found else None)


class Misconception(NamedTuple):
    description: str
    exercises: tuple[str, ...]


CATALOGUE: dict[str, Misconception] = {}

# --- 01_tensors -------------------------------------------------------------------------
CATALOGUE.update({
    "broadcast.align-left": Misconception(
        "shapes are compared from the left, not aligned on the right",
        ("01_tensors-quiz-failing-axis", "01_tensors-broadcast")),
    "broadcast.axis-counting": Misconception(
        "a failing axis is named by its position from the left",
        ("01_tensors-quiz-failing-axis",)),
    "broadcast.bigger-operand": Misconception(
        "the broadcast result is simply the larger operand's shape",
        ("01_tensors-quiz-broadcast",)),
    "broadcast.drop-leading": Misconception(
        "a missing leading axis drops out of the result",
        ("01_tensors-quiz-broadcast",)),
    "broadcast.mismatch-allowed": Misconception(
        "two different sizes, neither 1, still broadcast somehow",
        ("01_tensors-broadcast",)),
    "broadcast.numel-add": Misconception(
        "a broadcast result's element count is a sum of sizes or of operands' elements",
        ("01_tensors-quiz-broadcast",)),
    "broadcast.one-is-mismatch": Misconception(
        "a size-1 axis against a larger size is a mismatch",
        ("01_tensors-quiz-failing-axis",)),
    "broadcast.outer-product": Misconception(
        "a (64,) minus a (64, 1) gives one difference per sample (it gives a (64, 64) table)",
        ("01_tensors-outer",)),
    "broadcast.pairwise-shape": Misconception(
        "an all-pairs result need not have one entry per pair (N, M)",
        ("01_tensors-pairwise",)),
    "broadcast.quiz-type": Misconception(
        "a shape/axis/count quiz can be answered with something other than an int",
        ("01_tensors-quiz-broadcast", "01_tensors-quiz-failing-axis")),
    "broadcast.rowwise-not-pairwise": Misconception(
        "a - b pairs every row of a with every row of b",
        ("01_tensors-pairwise",)),
    "broadcast.rule": Misconception(
        "the broadcasting rule is applied some other way than right-aligned, equal-or-1, take the larger",
        ("01_tensors-quiz-broadcast", "01_tensors-quiz-failing-axis", "01_tensors-broadcast")),
    "broadcast.take-min": Misconception(
        "a size-1 axis shrinks the other size instead of being stretched",
        ("01_tensors-broadcast",)),
    "dtype.float16-range": Misconception(
        "float16 reaches further than bfloat16 because it is more precise",
        ("01_tensors-quiz-dtype",)),
    "dtype.quiz-format": Misconception(
        "a dtype can be named by anything other than its name",
        ("01_tensors-quiz-dtype",)),
    "gather.every-row": Misconception(
        "logits[:, labels] picks one label per row",
        ("01_tensors-gather",)),
    "gather.keep-index-dim": Misconception(
        "gather's output has the input's rank minus one (it has the index's shape)",
        ("01_tensors-gather",)),
    "gather.max-not-label": Misconception(
        "the label's logit is the row's largest logit",
        ("01_tensors-gather",)),
    "gather.pairing": Misconception(
        "entry i need not come from row i at column labels[i]",
        ("01_tensors-gather",)),
    "gather.rows-not-columns": Misconception(
        "logits[labels] indexes columns by the labels",
        ("01_tensors-gather",)),
    "gather.shape": Misconception(
        "picking one value per row can keep extra dims",
        ("01_tensors-gather",)),
    "inplace.edits-caller": Misconception(
        "x[mask] = 0 or a trailing-underscore method inside a function leaves the caller's tensor alone",
        ("01_tensors-relu",)),
    "mse.per-sample": Misconception(
        "the MSE need not pair each prediction with its own target",
        ("01_tensors-outer",)),
    "mse.rmse": Misconception(
        "the mean squared error is the square root of the mean",
        ("01_tensors-outer",)),
    "mse.sum-not-mean": Misconception(
        "the mean squared error is the sum of squared differences",
        ("01_tensors-outer",)),
    "numpy.bridge": Misconception(
        ".numpy() works on any tensor as it is",
        ("01_tensors-numpy",)),
    "numpy.dtype-kept": Misconception(
        "converting to NumPy should change the dtype",
        ("01_tensors-numpy",)),
    "numpy.gpu-needs-cpu": Misconception(
        ".detach().numpy() is enough for a GPU tensor",
        ("01_tensors-numpy",)),
    "numpy.needs-detach": Misconception(
        ".numpy() works on a tensor that requires grad",
        ("01_tensors-numpy",)),
    "pairwise.root": Misconception(
        "squared distances need a square root",
        ("01_tensors-pairwise",)),
    "pairwise.square-after-sum": Misconception(
        "the squared distance is the square of the summed differences",
        ("01_tensors-pairwise",)),
    "reduce.pool-dims": Misconception(
        "global average pooling reduces other dims than height and width, or keeps them",
        ("01_tensors-shapes",)),
    "reduce.wrong-dim": Misconception(
        "a reduction over the points gives per-pair distances",
        ("01_tensors-pairwise",)),
    "relu.abs": Misconception(
        "ReLU is the absolute value",
        ("01_tensors-relu",)),
    "relu.clamp-direction": Misconception(
        "clamp(max=0) is ReLU",
        ("01_tensors-relu",)),
    "relu.definition": Misconception(
        "ReLU is something other than max(x, 0) elementwise",
        ("01_tensors-relu",)),
    "shapes.flatten": Misconception(
        "flattening an image batch can merge the batch dim or reorder memory",
        ("01_tensors-shapes",)),
    "shapes.reshape-not-permute": Misconception(
        "reshape can move the channel axis last",
        ("01_tensors-shapes",)),
    "shapes.tokens": Misconception(
        "per-pixel tokens have a shape other than (batch, pixels, channels)",
        ("01_tensors-shapes",)),
    "shapes.transpose-swaps-hw": Misconception(
        "transpose(1, 3) moves channels last and keeps height before width",
        ("01_tensors-shapes",)),
    "strides.add-indices": Misconception(
        "an element's offset is the sum of its indices",
        ("01_tensors-quiz-offset",)),
    "strides.assume-contiguous": Misconception(
        "every tensor has contiguous strides",
        ("01_tensors-offset",)),
    "strides.column-major": Misconception(
        "the first dimension moves by one cell (column-major)",
        ("01_tensors-strides",)),
    "strides.include-own-size": Misconception(
        "a dimension's stride includes its own size",
        ("01_tensors-strides",)),
    "strides.multiply-indices": Misconception(
        "an element's offset is the product of its indices",
        ("01_tensors-quiz-offset",)),
    "strides.next-size-only": Misconception(
        "a dimension's stride is the size of the next dimension only",
        ("01_tensors-strides",)),
    "strides.offset-formula": Misconception(
        "the storage position is computed some other way than offset + sum of index times stride",
        ("01_tensors-quiz-offset", "01_tensors-offset")),
    "strides.offset-ignored": Misconception(
        "a view always starts at storage cell 0",
        ("01_tensors-offset",)),
    "strides.quiz-type": Misconception(
        "a position or contiguity quiz can be answered with another type",
        ("01_tensors-quiz-offset", "01_tensors-quiz-contiguous")),
    "strides.reversed-order": Misconception(
        "the strides pair with the indices in reverse order",
        ("01_tensors-quiz-offset",)),
    "strides.row-major-rule": Misconception(
        "row-major strides follow some rule other than the product of the later sizes",
        ("01_tensors-strides",)),
    "strides.slice-is-contiguous": Misconception(
        "a column slice of a contiguous tensor is contiguous",
        ("01_tensors-quiz-contiguous",)),
    "views.data-ptr": Misconception(
        "two views share memory only when their data_ptr() is equal",
        ("01_tensors-views",)),
    "views.equal-values": Misconception(
        "equal values mean shared memory",
        ("01_tensors-views",)),
    "views.flatten-shape": Misconception(
        "flattening can keep two dims",
        ("01_tensors-permute-view",)),
    "views.one-direction": Misconception(
        "sharing is tested by one tensor's pointer lying inside the other's range",
        ("01_tensors-views",)),
    "views.overlap": Misconception(
        "two views share memory only when their element ranges overlap",
        ("01_tensors-views",)),
    "views.reshape-not-transpose": Misconception(
        "reshape(-1) of a matrix reads it column by column",
        ("01_tensors-permute-view",)),
    "views.storage-identity": Misconception(
        "sharing memory is decided by something other than the storage",
        ("01_tensors-views",)),
    "views.view-needs-contiguous": Misconception(
        ".view can flatten a transposed (non-contiguous) tensor",
        ("01_tensors-permute-view",)),
})

# --- 02_autograd ------------------------------------------------------------------------
CATALOGUE.update({
    "accumulate.stale-grad": Misconception(
        "backward overwrites .grad, so an old value does not matter",
        ("02_autograd-accumulate",)),
    "accumulate.unweighted-means": Misconception(
        "micro-batch means add up to the full-batch mean without weights",
        ("02_autograd-accumulate",)),
    "accumulate.weighting": Misconception(
        "gradient accumulation needs neither a reset nor per-chunk weights",
        ("02_autograd-accumulate",)),
    "autograd.accumulate-multiplies": Misconception(
        "repeated backward calls multiply .grad",
        ("02_autograd-quiz-accumulate",)),
    "autograd.adjoint-add": Misconception(
        "the adjoint factors of a product add instead of multiplying",
        ("02_autograd-quiz-seed",)),
    "autograd.all-leaves": Misconception(
        "every tensor (or none) in a chain is a leaf",
        ("02_autograd-quiz-leaves",)),
    "autograd.chain-rule": Misconception(
        "a.grad does not follow 2d·(b + 1)",
        ("02_autograd-quiz-seed",)),
    "autograd.fanout-inside-q": Misconception(
        "a variable used twice inside one expression contributes once",
        ("02_autograd-fanout",)),
    "autograd.fanout-overwrite": Misconception(
        "a leaf used on two paths gets the adjoint of the last path, not the sum",
        ("02_autograd-walk",)),
    "autograd.frozen-formula": Misconception(
        "a.grad = 16b + 16 holds for every b",
        ("02_autograd-quiz-seed",)),
    "autograd.grad-overwrites": Misconception(
        "each backward replaces .grad",
        ("02_autograd-quiz-accumulate",)),
    "autograd.leaf-creation": Misconception(
        "a leaf can be made some other way than creating the tensor",
        ("02_autograd-why-none",)),
    "autograd.leaf-definition": Misconception(
        "a leaf must require grad",
        ("02_autograd-quiz-leaves",)),
    "autograd.leaf-dtype": Misconception(
        "the dtype can be changed after the leaf is made without consequence",
        ("02_autograd-why-none",)),
    "autograd.leaf-needs-grad": Misconception(
        "only tensors that require grad are leaves",
        ("02_autograd-quiz-leaves",)),
    "autograd.leaf-values": Misconception(
        "the leaf may hold other values or another shape",
        ("02_autograd-why-none",)),
    "autograd.local-derivative": Misconception(
        "the derivative of x² is x",
        ("02_autograd-quiz-accumulate",)),
    "autograd.no-grad-inherits": Misconception(
        "results computed under no_grad still require grad",
        ("02_autograd-quiz-no-grad",)),
    "autograd.no-requires-grad": Misconception(
        "backward fills .grad of a tensor that does not require grad",
        ("02_autograd-why-none",)),
    "autograd.one-path": Misconception(
        "a gradient follows one path from a variable to the output",
        ("02_autograd-quiz-seed", "02_autograd-fanout")),
    "autograd.op-after-requires-grad": Misconception(
        "an operation after requires_grad=True keeps the leaf",
        ("02_autograd-why-none",)),
    "autograd.product-rule": Misconception(
        "the two parts of the product rule multiply",
        ("02_autograd-fanout",)),
    "autograd.quiz-type": Misconception(
        "a count, number or boolean quiz can be answered with another type",
        ("02_autograd-quiz-leaves", "02_autograd-quiz-seed", "02_autograd-fanout",
         "02_autograd-quiz-accumulate", "02_autograd-quiz-no-grad")),
    "function.backward": Misconception(
        "a custom backward need not return grad_out times the local derivative",
        ("02_autograd-function",)),
    "function.forward": Misconception(
        "a custom forward may compute something other than the function",
        ("02_autograd-function",)),
    "function.ignores-grad-out": Misconception(
        "backward returns the local derivative alone, without grad_out",
        ("02_autograd-function",)),
    "function.save-for-backward": Misconception(
        "backward can read what forward never saved",
        ("02_autograd-function",)),
    "function.saved-output": Misconception(
        "the sigmoid of the saved output is the derivative of softplus",
        ("02_autograd-function",)),
    "function.wrong-derivative": Misconception(
        "the derivative of log(1 + e^x) is e^x (or something other than the sigmoid)",
        ("02_autograd-function",)),
    "mlp.bias-sum": Misconception(
        "a bias gradient keeps the batch dim",
        ("02_autograd-mlp-backward",)),
    "mlp.linear-rules": Misconception(
        "a Linear layer's backward is not dW = dyᵀh, db = Σdy, dh = dy W",
        ("02_autograd-mlp-backward",)),
    "mlp.mean-factor": Misconception(
        "the mean's 1/(N·K) can be left out or taken over N only",
        ("02_autograd-mlp-backward",)),
    "mlp.missing-factor-2": Misconception(
        "the derivative of (y − t)² is (y − t)",
        ("02_autograd-mlp-backward",)),
    "mlp.relu-mask": Misconception(
        "the ReLU passes every adjoint backwards",
        ("02_autograd-mlp-backward",)),
    "mlp.weight-grad-transpose": Misconception(
        "dW = hᵀ dy (the transpose of the weight's shape)",
        ("02_autograd-mlp-backward",)),
    "ste.detach-part": Misconception(
        "a straight-through estimator is something other than x plus a detached correction",
        ("02_autograd-ste",)),
    "ste.detached-all": Misconception(
        "detaching the whole result keeps a gradient",
        ("02_autograd-ste",)),
    "ste.round-flat": Misconception(
        "torch.round passes a gradient of 1",
        ("02_autograd-ste",)),
    "ste.value": Misconception(
        "the estimator's value may differ from torch.round(x)",
        ("02_autograd-ste",)),
    "vjp.caller-grad": Misconception(
        "computing a VJP may leave a gradient in the caller's x",
        ("02_autograd-vjp",)),
    "vjp.full-jacobian": Misconception(
        "a VJP needs the full Jacobian built first",
        ("02_autograd-vjp",)),
    "vjp.shapes": Misconception(
        "v has one entry per input (it has one per output)",
        ("02_autograd-vjp",)),
    "vjp.sum-is-vjp": Misconception(
        "y.sum().backward() gives vᵀJ for any v",
        ("02_autograd-vjp",)),
    "walk.first-input-only": Misconception(
        "a node's gradient goes only to its first input",
        ("02_autograd-walk",)),
    "walk.leaf-total": Misconception(
        "a leaf's gradient need not be collected at its AccumulateGrad node",
        ("02_autograd-walk",)),
    "walk.node-call": Misconception(
        "grad_fn nodes cannot be called on an adjoint",
        ("02_autograd-walk",)),
    "walk.used-autograd": Misconception(
        "walking grad_fn by hand may call backward",
        ("02_autograd-walk",)),
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
