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
        ("02_autograd-quiz-leaves", "02_autograd-quiz-seed", "02_autograd-fanout", "02_autograd-quiz-accumulate", "02_autograd-quiz-no-grad")),
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
CATALOGUE.update({
})

# --- 04_training_loop -------------------------------------------------------------------
CATALOGUE.update({
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
})
