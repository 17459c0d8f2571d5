"""The misconceptions that notebook 01_tensors's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
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
}
