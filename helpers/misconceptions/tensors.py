"""The misconceptions that notebook 01_tensors's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
    "accuracy.argmax-dim": Misconception(
        "a row's prediction is the argmax over dim 0",
        ("01_tensors-accuracy",)),
    "accuracy.count-not-fraction": Misconception(
        "accuracy is the number of matches rather than their fraction",
        ("01_tensors-accuracy",)),
    "accuracy.definition": Misconception(
        "accuracy is something other than the fraction of rows whose argmax is the label",
        ("01_tensors-accuracy",)),
    "accuracy.float": Misconception(
        "a 0-d tensor is as good as a Python float for a metric",
        ("01_tensors-accuracy",)),
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
        ("01_tensors-quiz-broadcast", "01_tensors-broadcast")),
    "broadcast.labels-both-shapes": Misconception(
        "labels always come as (N, 1), so squeeze(1) is safe",
        ("01_tensors-accuracy",)),
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
        "a (N,) compared with or subtracted from an (N, 1) gives one result per row (it gives an (N, N) table)",
        ("01_tensors-accuracy",)),
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
    "dtype.bfloat16-step": Misconception(
        "bfloat16 stores whole numbers near 1000 exactly (its steps there are 4 apart)",
        ("01_tensors-quiz-dtype",)),
    "dtype.float16-range": Misconception(
        "float16 reaches further than bfloat16 because it is more precise",
        ("01_tensors-quiz-dtype",)),
    "dtype.quiz-format": Misconception(
        "a dtype can be named by anything other than its name",
        ("01_tensors-quiz-dtype",)),
    "dtype.round-nearest": Misconception(
        "a conversion to a coarser format rounds up rather than to the nearest value",
        ("01_tensors-quiz-dtype",)),
    "dtype.saturate": Misconception(
        "a value beyond a format's range is clamped to its largest finite value",
        ("01_tensors-quiz-dtype",)),
    "inplace.edits-caller": Misconception(
        "x[mask] = 0 or a trailing-underscore method inside a function leaves the caller's tensor alone",
        ("01_tensors-relu",)),
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
    "numpy.shares-memory": Misconception(
        ".numpy() makes a copy (on the CPU it shares the tensor's memory)",
        ("01_tensors-numpy",)),
    "pairwise.root": Misconception(
        "squared distances need a square root",
        ("01_tensors-pairwise",)),
    "pairwise.square-after-sum": Misconception(
        "the squared distance is the square of the summed differences",
        ("01_tensors-pairwise",)),
    "rank.argsort-is-not-rank": Misconception(
        "argsort's entry j is the rank of column j",
        ("01_tensors-rank",)),
    "rank.counts-itself": Misconception(
        "counting the logits >= the label's gives its rank (it counts the label itself)",
        ("01_tensors-rank",)),
    "rank.definition": Misconception(
        "a label's rank is computed some other way than counting the larger logits of its row",
        ("01_tensors-rank",)),
    "rank.direction": Misconception(
        "a label's rank counts the smaller logits",
        ("01_tensors-rank",)),
    "rank.row-values-as-columns": Misconception(
        "one value per row, shape (N,), lines up with the rows of an (N, C) tensor",
        ("01_tensors-rank",)),
    "rank.shape": Misconception(
        "a per-row count can be a float or keep other dims",
        ("01_tensors-rank",)),
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
        ("01_tensors-offset", "01_tensors-quiz-offset")),
    "strides.column-major": Misconception(
        "the first dimension moves by one cell (column-major)",
        ("01_tensors-strides",)),
    "strides.include-own-size": Misconception(
        "a dimension's stride includes its own size",
        ("01_tensors-strides",)),
    "strides.made-a-tensor": Misconception(
        "strides can be read off a tensor made for the purpose, whatever its size",
        ("01_tensors-strides",)),
    "strides.multiply-indices": Misconception(
        "an element's offset is the product of its indices",
        ("01_tensors-quiz-offset",)),
    "strides.next-size-only": Misconception(
        "a dimension's stride is the size of the next dimension only",
        ("01_tensors-strides",)),
    "strides.offset-breaks-contiguity": Misconception(
        "a tensor that starts partway into its storage is not contiguous",
        ("01_tensors-quiz-contiguous",)),
    "strides.offset-formula": Misconception(
        "the storage position is computed some other way than offset + sum of index times stride",
        ("01_tensors-quiz-offset", "01_tensors-offset")),
    "strides.offset-ignored": Misconception(
        "a view always starts at storage cell 0",
        ("01_tensors-offset",)),
    "strides.quiz-type": Misconception(
        "a position or contiguity quiz can be answered with another type",
        ("01_tensors-quiz-offset", "01_tensors-quiz-contiguous")),
    "strides.row-major-rule": Misconception(
        "row-major strides follow some rule other than the product of the later sizes",
        ("01_tensors-strides",)),
    "strides.slice-is-contiguous": Misconception(
        "a column slice of a contiguous tensor is contiguous",
        ("01_tensors-quiz-contiguous",)),
    "strides.value-not-position": Misconception(
        "an element's value is its storage position",
        ("01_tensors-offset",)),
    "strides.step-slice": Misconception(
        "a slice with a step keeps a tensor contiguous",
        ("01_tensors-quiz-contiguous",)),
    "strides.transpose-keeps-strides": Misconception(
        "a transpose keeps the strides of the tensor it came from",
        ("01_tensors-quiz-offset",)),
    "strides.transpose-sticks": Misconception(
        "a tensor transposed twice stays non-contiguous",
        ("01_tensors-quiz-contiguous",)),
    "views.cells": Misconception(
        "sharing memory is decided by something other than one storage and a common cell",
        ("01_tensors-cells",)),
    "views.data-ptr": Misconception(
        "two views share memory only when their data_ptr() is equal",
        ("01_tensors-cells",)),
    "views.flatten-shape": Misconception(
        "flattening can keep two dims",
        ("01_tensors-permute-view",)),
    "views.range-overlap": Misconception(
        "two views whose ranges of cells overlap share a cell",
        ("01_tensors-cells",)),
    "views.reshape-not-transpose": Misconception(
        "reshape(-1) of a matrix reads it column by column",
        ("01_tensors-permute-view",)),
    "views.same-storage-same-cells": Misconception(
        "two views of one storage always share cells",
        ("01_tensors-cells",)),
    "views.storage-identity": Misconception(
        "equal values at equal positions are shared memory, whatever the storage",
        ("01_tensors-cells",)),
    "views.view-needs-contiguous": Misconception(
        ".view can flatten a transposed (non-contiguous) tensor",
        ("01_tensors-permute-view",)),
}
