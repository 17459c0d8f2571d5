"""The misconceptions that notebook 01_tensors's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
    "accuracy.absent-class": Misconception(
        "a class that no row carries has accuracy 0 (0 rows out of 0 is no accuracy: nan)",
        ("01_tensors-accuracy",)),
    "accuracy.float": Misconception(
        "a fraction can be computed with integer division or returned as an integer tensor",
        ("01_tensors-accuracy",)),
    "accuracy.group-by-prediction": Misconception(
        "a per-class accuracy groups the rows by their predicted class",
        ("01_tensors-accuracy",)),
    "accuracy.per-class": Misconception(
        "a per-class accuracy is computed some other way than the hit fraction among the rows of each label",
        ("01_tensors-accuracy",)),
    "accuracy.per-class-denominator": Misconception(
        "a per-class accuracy divides by all N rows",
        ("01_tensors-accuracy",)),
    "broadcast.align-left": Misconception(
        "shapes are compared from the left, not aligned on the right",
        ("01_tensors-quiz-failing-axis", "01_tensors-broadcast")),
    "broadcast.axis-counting": Misconception(
        "a failing axis is named by its position from the left",
        ("01_tensors-quiz-failing-axis",)),
    "broadcast.first-operand-rows": Misconception(
        "the first operand of a broadcast gives the result's rows, whatever its shape",
        ("01_tensors-quiz-broadcast",)),
    "broadcast.leading-stride": Misconception(
        "an axis that broadcasting adds in front gets a nonzero stride",
        ("01_tensors-broadcast",)),
    "broadcast.mismatch-allowed": Misconception(
        "two different sizes, neither 1, still broadcast somehow",
        ("01_tensors-broadcast",)),
    "broadcast.one-is-mismatch": Misconception(
        "a size-1 axis against a larger size is a mismatch",
        ("01_tensors-quiz-failing-axis",)),
    "broadcast.one-way": Misconception(
        "broadcasting to a target can shrink a size to 1 or drop an axis",
        ("01_tensors-broadcast",)),
    "broadcast.quiz-type": Misconception(
        "a shape/axis/count quiz can be answered with something other than an int",
        ("01_tensors-quiz-broadcast", "01_tensors-quiz-failing-axis")),
    "broadcast.reads": Misconception(
        "a broadcast result's element reads something other than each operand at its own index (0 "
        "where stretched)",
        ("01_tensors-quiz-broadcast",)),
    "broadcast.rule": Misconception(
        "the broadcasting rule is applied some other way than right-aligned, equal-or-1, take the "
        "larger",
        ("01_tensors-quiz-failing-axis",)),
    "broadcast.same-index": Misconception(
        "every operand of a broadcast is read at the result's own index",
        ("01_tensors-quiz-broadcast",)),
    "broadcast.squeeze-leading": Misconception(
        "an operand's leading size-1 axes may be dropped to fit a target with fewer dims",
        ("01_tensors-broadcast",)),
    "broadcast.stretch-keeps-stride": Misconception(
        "a stretched size-1 axis keeps its stride (it is read with stride 0)",
        ("01_tensors-broadcast",)),
    "broadcast.strides-rule": Misconception(
        "a broadcast operand is read with other strides than 0 on added or stretched axes, its own elsewhere",
        ("01_tensors-broadcast",)),
    "broadcast.vector-on-last-axis": Misconception(
        "an (N,) tensor lines up with the rows of an (N, C) tensor (it lines up with the last axis)",
        ("01_tensors-accuracy",)),
    "broadcast.vectors-pair-up": Misconception(
        "two 1-D tensors compared with == make an (N, C) table (they pair up element by element)",
        ("01_tensors-accuracy",)),
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
    "inplace.alias-not-copy": Misconception(
        "a second name for a tensor (before = t) keeps its old values",
        ("01_tensors-relu",)),
    "inplace.compare-sums": Misconception(
        "a tensor whose sum (or mean, or sorted values) is unchanged is unchanged",
        ("01_tensors-relu",)),
    "inplace.detect": Misconception(
        "a write into an argument is found some other way than comparing a copy before and after the call",
        ("01_tensors-relu",)),
    "inplace.edits-caller": Misconception(
        "x[mask] = 0 or a trailing-underscore method inside a function leaves the caller's tensor alone",
        ("01_tensors-relu",)),
    "inplace.nan-unequal": Misconception(
        "a NaN that is still NaN has changed (NaN == NaN is False)",
        ("01_tensors-relu",)),
    "inplace.output-not-input": Misconception(
        "what a function returns tells what it did to its argument",
        ("01_tensors-relu",)),
    "inplace.tolerance": Misconception(
        "a change within allclose's tolerance is no change",
        ("01_tensors-relu",)),
    "inplace.view-is-write": Misconception(
        "returning a view of the argument (shared memory) is a write into it",
        ("01_tensors-relu",)),
    "join.cat-axis": Misconception(
        "cat joins along another axis than dim",
        ("01_tensors-quiz-join",)),
    "join.cat-vs-stack": Misconception(
        "cat and stack do the same, or each other's job",
        ("01_tensors-quiz-join",)),
    "join.quiz-format": Misconception(
        "two shapes can be given in another form than a pair of integer tuples",
        ("01_tensors-quiz-join",)),
    "join.rule": Misconception(
        "the shapes of stack and cat follow some other rule than a new axis at dim and sizes "
        "adding up",
        ("01_tensors-quiz-join",)),
    "join.stack-at-end": Misconception(
        "stack's new axis goes last whatever dim says",
        ("01_tensors-quiz-join",)),
    "join.stack-in-front": Misconception(
        "stack's new axis goes first whatever dim says",
        ("01_tensors-quiz-join",)),
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
    "rank.ties-by-position": Misconception(
        "a logit equal to the label's counts as larger when it comes first (ranks by sorted "
        "position)",
        ("01_tensors-rank",)),
    "reduce.pool-dims": Misconception(
        "global average pooling reduces other dims than height and width, or keeps them",
        ("01_tensors-shapes",)),
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
        ("01_tensors-quiz-offset", "01_tensors-broadcast")),
    "strides.column-major": Misconception(
        "the first dimension moves by one cell (column-major)",
        ("01_tensors-strides",)),
    "strides.include-own-size": Misconception(
        "a dimension's stride includes its own size",
        ("01_tensors-strides",)),
    "strides.made-a-tensor": Misconception(
        "strides can be read off a tensor made for the purpose, whatever its size",
        ("01_tensors-strides", "01_tensors-broadcast")),
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
        ("01_tensors-quiz-offset",)),
    "strides.offset-ignored": Misconception(
        "a slice's elements start at storage cell 0",
        ("01_tensors-offset",)),
    "strides.quiz-type": Misconception(
        "a position or contiguity quiz can be answered with another type",
        ("01_tensors-quiz-offset", "01_tensors-quiz-contiguous")),
    "strides.row-major-rule": Misconception(
        "row-major strides follow some rule other than the product of the later sizes",
        ("01_tensors-strides",)),
    "strides.rows-cannot-overlap": Misconception(
        "the rows of a tensor cannot share storage cells (sliding windows must be disjoint chunks)",
        ("01_tensors-offset",)),
    "strides.slice-is-contiguous": Misconception(
        "a column slice of a contiguous tensor is contiguous",
        ("01_tensors-quiz-contiguous",)),
    "strides.step-one": Misconception(
        "a 1-D tensor always steps one storage cell per element",
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
    "strides.windows-recipe": Misconception(
        "sliding windows need some recipe other than both strides = x.stride(0) from x.storage_offset()",
        ("01_tensors-offset",)),
    "views.cells": Misconception(
        "sharing memory is decided by something other than one storage and a common cell",
        ("01_tensors-cells",)),
    "views.cells-arithmetic": Misconception(
        "arithmetic on offsets and strides (overlapping spans, a common step) decides whether two "
        "views share a cell",
        ("01_tensors-cells",)),
    "views.copy-not-view": Misconception(
        "a result with the right values is as good as a view (it copies: writes no longer reach it)",
        ("01_tensors-offset", "01_tensors-permute-view",)),
    "views.data-ptr": Misconception(
        "two views share memory only when their data_ptr() is equal",
        ("01_tensors-cells",)),
    "views.range-overlap": Misconception(
        "two views whose ranges of cells overlap share a cell",
        ("01_tensors-cells",)),
    "views.reshape-not-transpose": Misconception(
        "a reshape can reorder elements (it keeps the memory order): splitting (H, W) into (H/p, W/p, p, p) cuts tiles",
        ("01_tensors-permute-view",)),
    "views.same-storage-same-cells": Misconception(
        "two views of one storage always share cells",
        ("01_tensors-cells",)),
    "views.storage-identity": Misconception(
        "equal values at equal positions are shared memory, whatever the storage",
        ("01_tensors-cells",)),
    "views.tile-transposed": Misconception(
        "moving the within-tile axes in any order gives the tiles",
        ("01_tensors-permute-view",)),
    "views.tiles": Misconception(
        "tiles are cut some other way than splitting each axis and moving the tile numbers first",
        ("01_tensors-permute-view",)),
    "views.tiles-shape": Misconception(
        "a tensor of tiles need not have shape (H/p, W/p, p, p)",
        ("01_tensors-permute-view",)),
    "windows.count": Misconception(
        "a length-n tensor has n − k windows of k (it has n − k + 1)",
        ("01_tensors-offset",)),
}
