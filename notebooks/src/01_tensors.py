# %% [markdown]
# # 01 · Tensors: storage, strides, views and broadcasting
#
# Every PyTorch program is a sequence of operations on tensors, and most bugs in those
# programs are not crashes but tensors of the wrong shape, a copy where you wanted a view,
# or a view where you wanted a copy. The fix is a precise picture of what a tensor *is*:
# a flat block of memory (the storage) plus a small recipe, the shape, the strides and an
# offset, that says which cell of that memory each logical element reads. Once you can
# read that recipe, `view`, `transpose`, `expand` and broadcasting stop being magic.
#
# **You will be able to**
# - create tensors and choose a dtype on purpose (float32, float16 vs bfloat16, int64, uint8);
# - compute strides and the storage position of any element, and predict contiguity;
# - tell a view from a copy, and know when `.view` fails and `.reshape` copies;
# - work out what broadcasting reads, and find the shape bugs it hides;
# - join, select and contract tensors (`cat`, `stack`, `where`, `einsum`, `index_add_`);
# - use in-place ops, the NumPy bridge, indexing, masks and `gather` safely, on any device.
#
# **Prerequisites**: Python and a little NumPy. No GPU needed.
#
# **How this notebook works.** Quick quizzes ask you to *predict* before a cell shows the
# answer; numbered exercises (points in the heading) are graded. Run the test cell under
# an answer: when it fails, its message says what you probably believed and what to check.

# %%
import math
import time

import numpy as np
import torch

import helpers.broadcasting
import helpers.strides
from helpers import checks

notebook_started = time.perf_counter()   # the last cell reports this notebook's run time
torch.manual_seed(0)
print("torch", torch.__version__)

# %% [markdown]
# ## 1. Creating tensors
#
# A tensor has a `shape`, a `dtype` (the type of every element), a `device` (where its
# memory lives) and, derived from the shape, `ndim` and `numel()`. The factory functions
# take the shape as positional integers or one tuple.

# %%
a = torch.tensor([[1, 2, 3], [4, 5, 6]])      # from data: copies it
print(a.shape, a.dtype, a.device, a.ndim, a.numel())
print(torch.zeros(2, 3))
print(torch.ones((2, 3)))
print(torch.rand(2, 3))                       # uniform on [0, 1)
print(torch.randn(2, 3))                      # standard normal
print(torch.arange(0, 10, 3))                 # like range: stop excluded
print(torch.linspace(0, 1, 5))                # 5 points, both ends included
print(torch.eye(3))
print(torch.zeros_like(a), torch.full_like(a, 7).dtype)

# %% [markdown]
# ### dtypes
#
# PyTorch's default floating dtype is float32, while NumPy's is float64: converting a NumPy
# array keeps float64. Mixed with float32 tensors, an elementwise operation silently
# promotes the result to float64 (twice the memory, slower), while a matrix product refuses
# the mix (section 10). Integers default to int64. Indexing accepts int64 or int32 index
# tensors (so does `gather` from torch 2.8 on, section 7), but `cross_entropy` wants its
# class targets as int64 (it rejects int32).

# %%
from_np = torch.from_numpy(np.array([1.0, 2.0]))
print(torch.tensor([1.0, 2.0]).dtype, np.array([1.0, 2.0]).dtype, from_np.dtype,
      " float64 * float32 ->", (from_np * torch.ones(2)).dtype)
print(torch.tensor([1, 2]).dtype)
scores_demo = torch.tensor([[0.1, 0.7], [0.3, 0.2]])
rows32, cols32 = torch.arange(2, dtype=torch.int32), torch.tensor([1, 0], dtype=torch.int32)
print("int32 indices work:", scores_demo[rows32, cols32])
with checks.expect_error(RuntimeError):
    torch.nn.functional.cross_entropy(scores_demo, torch.tensor([1, 0], dtype=torch.int32))

# %% [markdown]
# Images usually arrive as **uint8**: one byte per value, 0…255. Integer arithmetic on
# uint8 wraps around modulo 256 instead of stopping at 255, so convert to float (and scale
# to [0, 1] by dividing by 255) before any arithmetic.

# %%
pixels = torch.tensor([250, 100, 0], dtype=torch.uint8)
print("uint8 range", torch.iinfo(torch.uint8).min, "…", torch.iinfo(torch.uint8).max)
print("pixels + 10 =", pixels + 10, "  (250 + 10 = 260 wraps to", 260 % 256, ")")
print("pixels - 1  =", pixels - 1)
scaled = pixels.float() / 255
print("as float in [0, 1]:", scaled, scaled.dtype)

# %% [markdown]
# The two 16-bit float formats spend their bits differently. A float stores a sign, an
# exponent (which power of two) and a fraction (where between that power and the next).
#
# - The **fraction bits** set the precision. With f fraction bits there are 2^f equally
#   spaced numbers from 1 up to 2, so the step there is 2^−f; from 2 up to 4 the step is
#   twice that, and it doubles again at every power of two.
# - The **exponent bits** set the range. With e exponent bits the largest power of two a
#   normal number can have is 2^(2^(e−1) − 1); the largest finite value lies just below
#   twice that.
#
# A conversion rounds to the **nearest** number the format holds. A value a little past the
# largest finite one still rounds down to it; from half a step past it on, the result is
# `inf` (the cell after the quiz shows where that happens for float16).
#
# float16 has 5 exponent bits and 10 fraction bits. bfloat16 keeps float32's 8 exponent
# bits and only 7 fraction bits.
#
# **Quick quiz (predict, then run the cell after the test).** What do these two conversions
# give: `torch.tensor(1001.0).to(torch.bfloat16).item()` and
# `torch.tensor(70000.0).to(torch.float16).item()`? Set `quiz_dtype` to a tuple of the two
# numbers, in that order (write infinity as `math.inf`).

# %% solution 01_tensors-quiz-dtype
### BEGIN SOLUTION
quiz_dtype = (1000.0, math.inf)
### END SOLUTION

# %% test 01_tensors-quiz-dtype-test points=1
with checks.because("[mc:dtype.quiz-format] Answer with a tuple of two numbers: (1001 as "
                    "bfloat16, 70000 as float16)."):
    checks.answer("01_tensors-quiz-dtype", quiz_dtype, "quiz_dtype", kind=(tuple, list))
    checks.expect_true(len(quiz_dtype) == 2 and all(isinstance(v, (int, float)) for v in quiz_dtype),
                       f"quiz_dtype = {quiz_dtype!r} is not two numbers.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_dtype")
### JUDGE
from helpers.grading.probe import got
_said = got["quiz_dtype"]
with checks.because("[mc:dtype.quiz-format] Answer with a tuple of two numbers: (1001 as "
                    "bfloat16, 70000 as float16)."):
    checks.answer("01_tensors-quiz-dtype", _said, "quiz_dtype", kind=(tuple, list))
    checks.expect_true(len(_said) == 2 and all(type(v) in (int, float) for v in _said),
                       f"quiz_dtype = {_said!r} is not two numbers.")
checks.expect_true(_said[0] == 1000,
                   "[mc:dtype.bfloat16-step] bfloat16's 7 fraction bits make its numbers between "
                   "512 and 1024 lie 512·2⁻⁷ = 4 apart: 1001 rounds to the nearest of them.")
checks.expect_true(_said[1] == float("inf"),
                   "[mc:dtype.float16-range] float16's 5 exponent bits stop at 2¹⁵: its largest "
                   "finite value is just under 2¹⁶ = 65536, so 70000 becomes inf.")
### END HIDDEN TESTS

# %% wrong 01_tensors-quiz-dtype
{  # 1e999 is inf written as a literal
    (1001, 1e999): "[mc:dtype.bfloat16-step] bfloat16 has only 7 fraction bits: between 512 "
                      "and 1024 its numbers lie 512·2⁻⁷ = 4 apart, so 1001 is not one of them.",
    (1002, 1e999): "[mc:dtype.bfloat16-step] Between 512 and 1024 the step is 512·2⁻⁷ = 4 (the "
                      "step 2⁻⁷ near 1 doubles at every power of two), not 2.",
    (1004, 1e999): "[mc:dtype.round-nearest] A conversion rounds to the NEAREST representable "
                      "number: 1001 is 1 away from 1000 and 3 away from 1004.",
    (1000, 70000): "[mc:dtype.float16-range] float16's 5 exponent bits stop at 2¹⁵: its largest "
                   "finite value is just under 2¹⁶ = 65536, so 70000 overflows to inf.",
    (1001, 70000): "[mc:dtype.float16-range] Neither number survives: float16's range ends just "
                   "under 2¹⁶ = 65536 (70000 overflows), and bfloat16's 7 fraction bits space its "
                   "numbers 4 apart between 512 and 1024.",
    (1000, 65504): "[mc:dtype.saturate] A conversion does not stop at the largest finite value: "
                   "70000 is far more than half a step past float16's largest, so it becomes inf.",
    (1e999, 1000): "[mc:dtype.quiz-format] The order is (1001 as bfloat16, 70000 as float16).",
}

# %% [markdown]
# The cell prints each format's bit budget, its largest value and its `eps` (the step just
# above 1), then makes both conversions in both formats. Compare the two numbers with your
# prediction, and notice that each format fails where the other succeeds. The last line
# converts the two whole numbers on either side of float16's limit: up to 65519 rounds down
# to the largest finite value 65504, and 65520 (half of the step of 32 past it) becomes inf.

# %%
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    info = torch.finfo(dtype)
    fraction = -round(math.log2(info.eps))           # eps = 2 ** -(fraction bits)
    exponent = info.bits - 1 - fraction              # the rest, after the sign bit
    print(f"{str(dtype):15} exponent bits {exponent}  fraction bits {fraction:2}  "
          f"max {info.max:.6g}   eps {info.eps:.3g}")
for value in (1001.0, 70000.0):
    t = torch.tensor(value)
    print(f"{value:g} as bfloat16: {t.to(torch.bfloat16).item():g}   as float16: {t.to(torch.float16).item():g}")
step16 = 2.0 ** (15 - 10)                 # float16's step between 2¹⁵ and 2¹⁶: 10 fraction bits
edge = torch.finfo(torch.float16).max + step16 / 2                 # half a step past the largest
print(f"float16 step near its max {step16:g}:", torch.tensor([edge - 1, edge]).to(torch.float16).tolist(),
      "for", [edge - 1, edge])

# %% [markdown]
# **Which dtype does a mixed operation give?** `torch.result_type(a, b)` answers without
# computing anything. A floating operand wins over an integer one, whatever its size. Within
# one kind, a tensor with dimensions decides over a 0-d tensor, and a 0-d tensor over a
# Python number; the loser only contributes its kind (a Python float turns an int32 tensor
# into the default float dtype, float32):

# %%
i32, f16 = torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1.0, 2.0], dtype=torch.float16)
for left, right, what in [(i32, 2, "int32 tensor, Python int"),
                          (i32, 2.5, "int32 tensor, Python float"),
                          (i32, torch.tensor(2), "int32 tensor, 0-d int64 tensor"),
                          (i32, torch.tensor([2]), "int32 tensor, 1-d int64 tensor"),
                          (f16, torch.tensor(2.0, dtype=torch.float64), "float16 tensor, 0-d float64"),
                          (f16, torch.tensor([2.0], dtype=torch.float64), "float16 tensor, 1-d float64")]:
    print(f"{what:32} -> {torch.result_type(left, right)}")

# %% [markdown]
# ## 2. Storage and strides
#
# A tensor's elements live in a one-dimensional **storage**. The **strides** say how many
# storage cells to skip to move one step along each dimension, and the **storage offset**
# says where element (0, 0, …) sits. The storage position of index $(i_0, i_1, \dots)$ is
#
# $$\text{offset} + \sum_k i_k \cdot s_k .$$
#
# A freshly created 2×3 tensor is *contiguous* (row-major): its last dimension moves by 1
# and the first by the length of a row, so its strides are (3, 1).
#
# To look at the storage itself, the cell uses `torch.as_strided(t, size, stride, offset)`,
# which builds a tensor over `t`'s storage with a recipe *you* choose; here the recipe
# "`numel` elements, stride 1, from cell 0" reads the storage as a flat row.

# %%
x = torch.arange(6).view(2, 3)
print(x)
print("stride", x.stride(), " storage offset", x.storage_offset(), " contiguous", x.is_contiguous())
i, j = 1, 2
position = x.storage_offset() + i * x.stride(0) + j * x.stride(1)
storage = torch.as_strided(x, (x.numel(),), (1,), 0)    # the storage read as a flat tensor
print(f"element ({i}, {j}) sits at storage position {position}; storage[{position}] = "
      f"{storage[position].item()}, x[{i}, {j}] = {x[i, j].item()}")

# %% [markdown]
# A transpose keeps the storage and swaps the strides, so index (2, 1) of `x.t()` is
# element (1, 2) of `x`, at the same storage position:

# %%
xt = x.t()
position_t = xt.storage_offset() + 2 * xt.stride(0) + 1 * xt.stride(1)
print("x.t() strides", xt.stride(), "-> index (2, 1) at position", position_t,
      "| xt[2, 1] =", xt[2, 1].item(), " x[1, 2] =", x[1, 2].item())

# %% [markdown]
# **Quick quiz (predict before the explorer below shows it).** `torch.arange(20).view(4, 5).t()`
# has shape (5, 4). At which storage position is its element (1, 2)? Set `quiz_offset` to
# an integer.

# %% solution 01_tensors-quiz-offset
### BEGIN SOLUTION
quiz_offset = 11
### END SOLUTION

# %% test 01_tensors-quiz-offset-test points=1
with checks.because("[mc:strides.quiz-type] The answer is one storage position, a whole number."):
    checks.answer("01_tensors-quiz-offset", quiz_offset, "quiz_offset", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_offset")
### JUDGE
from helpers.grading.probe import got
with checks.because("[mc:strides.quiz-type] The answer is one storage position, a whole number."):
    checks.answer("01_tensors-quiz-offset", got["quiz_offset"], "quiz_offset", kind=int)
checks.expect_true(got["quiz_offset"] == 11,
                   "[mc:strides.offset-formula] Use offset = i·s0 + j·s1 with the strides of the "
                   "transpose: (4, 5) has strides (5, 1), and its transpose swaps them to (1, 5).")
### END HIDDEN TESTS

# %% wrong 01_tensors-quiz-offset
{
    7: "[mc:strides.transpose-keeps-strides] You used the strides of the (4, 5) tensor, (5, 1): "
       "the transpose swaps them, so the index (1, 2) is multiplied by (1, 5).",
    6: "[mc:strides.assume-contiguous] (4, 1) are the strides of a FRESH (5, 4) tensor: a "
       "transpose moves no data, it swaps the strides of the (4, 5) tensor.",
    3: "[mc:strides.add-indices] Each index is multiplied by its dimension's stride, not "
       "simply added.",
    2: "[mc:strides.multiply-indices] The indices are not multiplied together: each one is "
       "multiplied by its own dimension's stride, and the products are added.",
}

# %% [markdown]
# The **stride explorer** shows the storage behind any shape and up to two operations: the
# numbers in the logical grid are storage positions, matching colours mean the same memory,
# and the formula is evaluated for the index you pick. Tasks:
#
# 1. Check the quiz: set shape `4, 5`, op `transpose` with `0, 1`, index `1, 2`, and find
#    your answer in the formula and in the storage row. Notice that each logical row now
#    reads the storage down a column, one cell in five.
# 2. Set shape `2, 3` again and predict: can the transpose be viewed as shape `6`? Set
#    **then** to `view` with `6` and read why not. Now try `3, 2, 1`: it works (the note
#    under the controls says which index is drawn). Explain why strides exist for
#    (3, 2, 1) but not for (6,).
# 3. Predict the strides of `torch.zeros(1, 3).expand(4, 3)`, then set shape `1, 3`, op
#    `expand` with `4, 3` and **then** `none`: notice the stride 0 and the ×4 above each storage
#    cell. Explain why writing into one element of this tensor would change four (section
#    10 shows PyTorch refusing it).

# %%
import helpers.strides  # so that this cell also runs on its own after a restart

helpers.strides.explore()

# %% [markdown]
# ### Exercise 1: strides by hand (2 points)
#
# Write `row_major_strides(shape)` returning the strides (a tuple) of a contiguous tensor of
# that shape, for any number of dims (the 0-d shape `()` included), without creating a
# tensor: the shapes may be far too large to allocate. *Misconception it targets*: the last
# dimension, not the first, moves by one cell, and a dimension's stride counts the cells of
# everything *after* it.

# %% solution 01_tensors-strides
def row_major_strides(shape):
    ### BEGIN SOLUTION
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))
    ### END SOLUTION

# %% test 01_tensors-strides-test points=2
_hint = ("[mc:strides.row-major-rule] A dim's stride is the product of the sizes of all "
         "the dims after it; the last dim's stride is 1.")
for _shape in [(2, 3), (4, 5, 6), (7,), (2, 1, 3)]:
    with checks.explain_errors({helpers.strides.OWN_CODE: helpers.strides.OWN_CODE_HINT, "": _hint},
                               f"row_major_strides({_shape})"):
        _got = helpers.strides.without_own_code(row_major_strides, _shape)
    with checks.because(_hint):
        checks.expect_type(_got, (tuple, list, torch.Size), f"row_major_strides({_shape})")
    _got, _want = tuple(_got), torch.empty(_shape).stride()
    _wrong = {
        torch.empty(_shape[::-1]).stride()[::-1]:
            "[mc:strides.column-major] These are column-major (Fortran) strides: in PyTorch "
            "the last dim moves by 1 and the first by the most.",
        tuple(_shape[1:]) + (1,): "[mc:strides.next-size-only] A dim's stride is the product "
                                  "of ALL the sizes after it, not just the next one.",
        tuple(s * n for s, n in zip(_want, _shape)):
            "[mc:strides.include-own-size] Each stride includes its own dim's size: a step "
            "along dim k skips the sizes AFTER k only, so the last stride is 1."}
    # A wrong rule can agree with the right one on some shapes ((2, 3) for next-size-only).
    checks.reject(_got, {k: why for k, why in _wrong.items() if k != _want},
                  f"row_major_strides({_shape})")
    checks.expect_true(_got == _want,
                       f"row_major_strides({_shape}) = {_got} is not right. {_hint}")
_huge = (10 ** 6,) * 3                      # 10¹⁸ elements: no machine holds them
try:
    _got, _error = row_major_strides(_huge), None
except Exception as _e:     # named, not quoted: an allocator's words read as the grader's own limit
    _got, _error = None, type(_e).__name__
checks.expect_true(_error is None,
                   f"row_major_strides({_huge}) raised {_error}. [mc:strides.made-a-tensor] The "
                   "strides follow from the shape alone: making a tensor to read its .stride() "
                   "fails for a shape this large.")
checks.expect_type(_got, (tuple, list, torch.Size), f"row_major_strides({_huge})")
### BEGIN HIDDEN TESTS
import helpers.strides
from helpers.grading import probe
for shape in [(2, 3), (4, 5, 6), (7,), (2, 1, 3), (1,), (3, 1), (2, 3, 4, 5), (5, 1, 1, 2),
              (6, 7, 8), (), (10 ** 6,) * 3, (10 ** 7, 3, 10 ** 5)]:
    probe.call(f"row_major_strides({shape})", helpers.strides.without_own_code, row_major_strides, shape)
### JUDGE
import helpers.strides
from helpers.grading.probe import got

_hint = ("[mc:strides.row-major-rule] A dim's stride is the product of the sizes of all "
         "the dims after it; the last dim's stride is 1.")
for _shape in [(2, 3), (4, 5, 6), (7,), (2, 1, 3), (1,), (3, 1), (2, 3, 4, 5), (5, 1, 1, 2),
               (6, 7, 8), (), (10 ** 6,) * 3, (10 ** 7, 3, 10 ** 5)]:
    _key = f"row_major_strides({_shape})"
    _error = got.raised(_key)
    checks.expect_true(_error is None or max(_shape, default=0) < 10 ** 6,
                       f"{_key} raised {_error and _error.type_name}. [mc:strides.made-a-tensor] The "
                       "strides follow from the shape alone: making a tensor to read its .stride() "
                       "fails for a shape this large.")
    _got = got.value(_key, {helpers.strides.OWN_CODE: helpers.strides.OWN_CODE_HINT, "": _hint})
    with checks.because(_hint):
        checks.expect_type(_got, (tuple, list, torch.Size), _key)
    _got, _want = tuple(_got), torch.empty(_shape, device="meta").stride()   # meta allocates nothing
    _wrong = {
        torch.empty(_shape[::-1], device="meta").stride()[::-1]:
            "[mc:strides.column-major] These are column-major (Fortran) strides: in PyTorch "
            "the last dim moves by 1 and the first by the most.",
        tuple(_shape[1:]) + (1,): "[mc:strides.next-size-only] A dim's stride is the product "
                                  "of ALL the sizes after it, not just the next one.",
        tuple(s * n for s, n in zip(_want, _shape)):
            "[mc:strides.include-own-size] Each stride includes its own dim's size: a step "
            "along dim k skips the sizes AFTER k only, so the last stride is 1."}
    if _shape:                      # the rules' wrong forms mean nothing for the 0-d shape
        checks.reject(_got, {k: why for k, why in _wrong.items() if k != _want}, _key)
    checks.expect_true(_got == _want and all(type(s) is int for s in _got),
                       f"{_key} should be {_want}. {_hint}")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2: sliding windows without a copy (2 points)
#
# Write `windows(x, k)` for a 1-D tensor `x` of length n ≥ k: return the tensor of shape
# (n − k + 1, k) whose row i is `x[i:i + k]`, as a **view** of `x` (no copy: a write into `x`
# shows in every window that holds that element). Build it with `torch.as_strided` from
# section 2, choosing the size, strides and offset yourself. `x` may itself be a slice of a
# bigger tensor (`base[3:]`, `base[::2]`, a column of a matrix).
# *Misconception*: the rows of a tensor cannot share cells (its strides can make them
# overlap, as `expand`'s stride 0 does), and a slice neither starts at cell 0 nor always
# steps by one cell.

# %% solution 01_tensors-offset
def windows(x, k):
    ### BEGIN SOLUTION
    step = x.stride(0)
    return torch.as_strided(x, (x.shape[0] - k + 1, k), (step, step), x.storage_offset())
    ### END SOLUTION

# %% test 01_tensors-offset-test points=2
_hint = ("[mc:strides.windows-recipe] Row i of the result is x[i:i + k]: work out how many "
         "storage cells one step along each of its two dims moves, and where element (0, 0) sits.")
_base = torch.arange(40.0)                   # value == storage position


def _slide(seq, k, rows):
    """rows windows of k consecutive elements of seq, row i starting at element i."""
    return torch.stack([seq[i:i + k] for i in range(rows)])


for _x, _k, _name in [(_base[3:9], 3, "windows(base[3:9], 3)"),
                      (_base[1:21:2], 2, "windows(base[1:21:2], 2)")]:
    _rows, _o, _s = len(_x) - _k + 1, _x.storage_offset(), _x.stride(0)
    with checks.explain_errors({"": _hint}, _name):
        _got = windows(_x, _k)
    with checks.because(_hint):
        checks.expect_type(_got, torch.Tensor, _name)
    with checks.because("[mc:windows.count] n − k + 1 windows of k: the last one starts at "
                        "element n − k."):
        checks.expect_shape(_got, (_rows, _k), _name)
    _want = _slide(_x, _k, _rows)
    checks.reject(_got, {wrong: why for wrong, why in {
        _base[_o::_s][:_rows * _k].view(_rows, _k):
            "[mc:strides.rows-cannot-overlap] These windows do not overlap: row i starts ONE "
            "element of x after row i − 1, so consecutive rows share cells.",
        _slide(_base[::_s], _k, _rows):
            "[mc:strides.offset-ignored] You started at storage cell 0: x is a slice, and its "
            "first element sits at x.storage_offset().",
        _slide(_base[_o:], _k, _rows):
            "[mc:strides.step-one] x steps x.stride(0) cells from one element to the next, "
            "not always 1."}.items() if not torch.equal(wrong, _want)}, _name)  # x[3:9] steps 1
    checks.expect_true(torch.equal(_got, _want), f"{_name} is not right. {_hint}")
    checks.expect_true(_got.untyped_storage().data_ptr() == _x.untyped_storage().data_ptr(),
                       f"{_name} is a copy. [mc:views.copy-not-view] Build the windows over x's "
                       "own storage (torch.as_strided), without stack, clone or contiguous().")
### BEGIN HIDDEN TESTS
from helpers.grading import probe


def cases():
    """(a fresh x, k, name): each x on its own storage, since the test writes into x."""
    def base():
        return torch.arange(40.0)

    def m():
        return torch.arange(24.0).view(4, 6)
    return [(base()[3:9], 3, "base[3:9], k = 3"), (base()[1:21:2], 2, "base[1:21:2], k = 2"),
            (torch.arange(10.0), 4, "a whole arange, k = 4"),
            (torch.arange(30.0)[5:20:3], 2, "a stepped slice, k = 2"),
            (m()[:, 2], 2, "a column of a (4, 6) matrix, k = 2"), (m()[1], 1, "k = 1"),
            (torch.arange(7.0)[2:], 5, "k = n: one window"), (m().t()[3, 1:], 3, "a row of a transpose, k = 3")]


def run(x, k):
    result = windows(x, k)
    seen = {"windows": result.clone(),
            "view of x": result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()}
    x[-1] = -1.0                                     # a write into x shows in a view
    seen["sees a write into x"] = bool(result[-1, -1] == -1.0)
    return seen


for x, k, name in cases():
    probe.call(f"windows on {name}", run, x, k)
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:strides.windows-recipe] Row i of the result is x[i:i + k]: work out how many "
         "storage cells one step along each of its two dims moves, and where element (0, 0) sits.")
_base, _m = torch.arange(40.0), torch.arange(24.0).view(4, 6)
for _x, _k, _name in [(_base[3:9], 3, "base[3:9], k = 3"), (_base[1:21:2], 2, "base[1:21:2], k = 2"),
                      (torch.arange(10.0), 4, "a whole arange, k = 4"),
                      (torch.arange(30.0)[5:20:3], 2, "a stepped slice, k = 2"),
                      (_m[:, 2], 2, "a column of a (4, 6) matrix, k = 2"), (_m[1], 1, "k = 1"),
                      (torch.arange(7.0)[2:], 5, "k = n: one window"),
                      (_m.t()[3, 1:], 3, "a row of a transpose, k = 3")]:
    _key = f"windows on {_name}"
    _seen = got.value(_key, {"": _hint})
    _got = _seen["windows"]
    _rows, _o, _s = len(_x) - _k + 1, _x.storage_offset(), _x.stride(0)
    with checks.because(_hint):
        checks.expect_type(_got, torch.Tensor, _key)
    with checks.because("[mc:windows.count] n − k + 1 windows of k: the last one starts at "
                        "element n − k."):
        checks.expect_shape(_got, (_rows, _k), _key)
    _want = torch.stack([_x[i:i + _k] for i in range(_rows)])
    _flat = _x.as_strided((_x.untyped_storage().nbytes() // _x.element_size(),), (1,), 0)
    _wrong = {}
    for _make, _why in [
            (lambda: _flat[_o::_s][:_rows * _k].view(_rows, _k),
             "[mc:strides.rows-cannot-overlap] These windows do not overlap: row i starts ONE "
             "element of x after row i − 1, so consecutive rows share cells."),
            (lambda: torch.stack([_flat[::_s][i:i + _k] for i in range(_rows)]),
             "[mc:strides.offset-ignored] You started at storage cell 0: x is a slice, and its "
             "first element sits at x.storage_offset()."),
            (lambda: torch.stack([_flat[_o:][i:i + _k] for i in range(_rows)]),
             "[mc:strides.step-one] x steps x.stride(0) cells from one element to the next, "
             "not always 1.")]:
        try:
            _wrong_value = _make()
        except RuntimeError:          # this x's storage is too short for that wrong recipe
            continue
        if _wrong_value.shape == _want.shape and not torch.equal(_wrong_value, _want):
            _wrong[_wrong_value] = _why
    checks.reject(_got, _wrong, _key)
    checks.expect_true(torch.equal(_got, _want), f"{_key} is not right. {_hint}")
    checks.expect_true(_seen["view of x"] and _seen["sees a write into x"],
                       f"{_key} is a copy. [mc:views.copy-not-view] Build the windows over x's "
                       "own storage (torch.as_strided), without stack, clone or contiguous().")
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Views and copies
#
# `view`, `transpose`, `permute`, basic slicing and `expand` make a new tensor object with
# new shape/strides/offset over the **same storage**: no data moves, and a write through
# one is seen through the other. `data_ptr()` is the address of a tensor's first element;
# `untyped_storage().data_ptr()` is the address of the storage itself, which is what two
# views share even when they start at different elements.

# %%
base = torch.arange(6)
v = base.view(2, 3)
s = base[2:]
v[0, 0] = 100
print("base after writing through the view:", base)
print("same first element:", v.data_ptr() == base.data_ptr(),
      " slice data_ptr shifted by", s.data_ptr() - base.data_ptr(), "bytes")


def same_storage(t):
    return t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()


grid6 = base.view(2, 3)
for name, t in [("view", v), ("slice", s), ("transpose", grid6.t()),
                ("permute", base.view(1, 2, 3).permute(2, 0, 1)),
                ("expand", base[:1].expand(4)), ("clone", base.clone()),
                ("fancy index", base[[0, 2, 4]])]:
    print(f"{name:12} shares base's storage: {same_storage(t)}")

# %% [markdown]
# The transpose `m.t()` only swaps strides, so its elements are no longer in row-major
# order: it is **not contiguous**, and `.view` cannot merge its dimensions (there is no
# single stride that walks them). `.reshape` returns a view when one exists and silently copies
# otherwise; `.contiguous()` copies into a fresh row-major storage.

# %%
m = torch.arange(6).view(2, 3)
mt = m.t()
print("m.t() strides", mt.stride(), " contiguous", mt.is_contiguous())
with checks.expect_error(RuntimeError):
    mt.view(6)
print("mt.view(3, 2, 1) works:", mt.view(3, 2, 1).shape, "strides", mt.view(3, 2, 1).stride())
r = mt.reshape(6)
print(r, " reshape copied:", r.untyped_storage().data_ptr() != m.untyped_storage().data_ptr())
print("m.reshape(3, 2) is a view:", m.reshape(3, 2).untyped_storage().data_ptr() == m.untyped_storage().data_ptr())
print(mt.contiguous().stride())

# %% [markdown]
# `expand` repeats a size-1 dimension without copying by giving it **stride 0**: every
# step along it lands on the same cell. That is also how broadcasting works inside.

# %%
row = torch.tensor([[1, 2, 3]])
tiled = row.expand(4, 3)
print(tiled, tiled.stride(), tiled.untyped_storage().nbytes(), "bytes of storage for", tiled.numel(), "elements")

# %% [markdown]
# **Adding and removing size-1 axes.** Broadcasting (next section) often needs an axis of
# size 1 put in on purpose. `unsqueeze(d)` inserts one at position `d`, indexing with
# `None` does the same, `squeeze(d)` removes one, and `view(-1)` / `reshape(-1)` flatten
# (a `-1` means "whatever size makes the count of elements match"). On a contiguous
# tensor all of these are views.

# %%
col = torch.arange(3.0)
print(col.shape, col.unsqueeze(1).shape, col[:, None].shape, col[None, :].shape)
print(col[:, None].squeeze(1).shape, torch.zeros(2, 3, 4).view(-1).shape,
      torch.zeros(2, 3, 4).reshape(2, -1).shape)

# %% [markdown]
# `is_contiguous()` asks one question: read in row-major order (last index fastest), do the
# elements sit in storage cells one after another, each one cell past the previous? (A dim
# of size 1 is never stepped along, so its stride plays no part.)
#
# **Quick quiz (predict, then run the cell after the test).** With `z = torch.zeros(3, 4)`,
# which of `z[1:]`, `z[:, :2]`, `z.t().t()` and `z[::2]` are contiguous? Set
# `quiz_contiguous` to a tuple of four booleans, in that order.

# %% solution 01_tensors-quiz-contiguous
### BEGIN SOLUTION
quiz_contiguous = (True, False, True, False)
### END SOLUTION

# %% test 01_tensors-quiz-contiguous-test points=1
with checks.because("[mc:strides.quiz-type] Answer with four booleans, one per tensor."):
    checks.answer("01_tensors-quiz-contiguous", quiz_contiguous, "quiz_contiguous", kind=(tuple, list))
    checks.expect_true(len(quiz_contiguous) == 4 and all(isinstance(v, bool) for v in quiz_contiguous),
                       f"quiz_contiguous = {quiz_contiguous!r} is not four booleans.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_contiguous")
### JUDGE
from helpers.grading.probe import got
_said = got["quiz_contiguous"]
with checks.because("[mc:strides.quiz-type] Answer with four booleans, one per tensor."):
    checks.answer("01_tensors-quiz-contiguous", _said, "quiz_contiguous", kind=(tuple, list))
    checks.expect_true(len(_said) == 4 and all(type(v) is bool for v in _said),
                       f"quiz_contiguous = {_said!r} is not four booleans.")
for _name, _said_k, _want, _why in [
        ("z[1:]", _said[0], True,
         "[mc:strides.offset-breaks-contiguity] z[1:] starts at cell 4 and its rows follow one "
         "another: strides (4, 1), those of a fresh (2, 4) tensor; the offset does not matter."),
        ("z[:, :2]", _said[1], False,
         "[mc:strides.slice-is-contiguous] z[:, :2] keeps the stride 4 between rows that are now "
         "2 long: it skips two cells after every row."),
        ("z.t().t()", _said[2], True,
         "[mc:strides.transpose-sticks] The second transpose swaps the strides back to (4, 1)."),
        ("z[::2]", _said[3], False,
         "[mc:strides.step-slice] z[::2] steps 8 cells from row to row, over rows of 4 cells.")]:
    checks.expect_true(_said_k == _want, f"{_name}: {_why}")
### END HIDDEN TESTS

# %% wrong 01_tensors-quiz-contiguous
{
    (True, True, True, True): "[mc:strides.slice-is-contiguous] A slice keeps its base's strides: "
                              "z[:, :2] still steps 4 cells between rows that are now 2 long, and "
                              "z[::2] steps 8. Contiguous means the strides of a fresh tensor of "
                              "the same shape (dims of size 1 aside).",
    (True, True, True, False): "[mc:strides.slice-is-contiguous] z[:, :2] keeps the stride 4 "
                               "between rows that are now 2 long: it skips two cells after "
                               "every row.",
    (False, False, True, False): "[mc:strides.offset-breaks-contiguity] A storage offset does "
                                 "not matter: z[1:] starts at cell 4, and its rows follow one "
                                 "another with strides (4, 1), those of a fresh (2, 4) tensor.",
    (True, False, False, False): "[mc:strides.transpose-sticks] A transpose swaps the strides and "
                                 "a second one swaps them back: z.t().t() has z's strides (4, 1).",
    (False, False, False, False): "[mc:strides.offset-breaks-contiguity] Neither an offset nor a "
                                  "double transpose breaks contiguity: z[1:] has strides (4, 1) "
                                  "from cell 4, and z.t().t() has z's own strides.",
    (True, False, True, True): "[mc:strides.step-slice] z[::2] takes every other row: it steps 8 "
                               "cells from one row to the next, over rows of 4 cells.",
}

# %% [markdown]
# Each tensor's strides, offset and `is_contiguous()`, beside the strides a fresh tensor of
# the same shape would have: compare the last column with your four answers. The last line
# is a tensor whose strides differ from a fresh one's only on a dim of size 1, which is
# never stepped along: it is contiguous.

# %%
z = torch.zeros(3, 4)
for name, t in [("z[1:]", z[1:]), ("z[:, :2]", z[:, :2]), ("z.t().t()", z.t().t()), ("z[::2]", z[::2])]:
    print(f"{name:10} shape {tuple(t.shape)}  strides {t.stride()}  fresh {torch.empty(t.shape).stride()}  "
          f"offset {t.storage_offset()}  contiguous {t.is_contiguous()}")
corner = z[:1, :2]
print(f"z[:1, :2]  shape {tuple(corner.shape)}  strides {corner.stride()}  fresh "
      f"{torch.empty(corner.shape).stride()}  contiguous {corner.is_contiguous()}")

# %% [markdown]
# ### Exercise 3: can a write through one tensor change another? (2 points)
#
# Write `shares_cells(a, b)` returning `True` when some storage cell is used by both `a`
# and `b` (so that writing into `a` can change `b`), and `False` otherwise, for any two
# tensors of the same dtype: views of one storage or not, any shapes and strides,
# 0-d or empty.
# *Misconception*: sharing a storage is not sharing cells (`x[:2]` and `x[4:]` never touch),
# overlapping ranges are not shared cells (`x[::2]` and `x[1::2]` interleave), and equal
# positions in two different storages are not shared memory.

# %% solution 01_tensors-cells
def shares_cells(a, b):
    ### BEGIN SOLUTION
    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return False

    def cells(t):
        # number the storage's cells, then read those numbers through t's own layout
        numbered = torch.arange(t.untyped_storage().nbytes() // t.element_size())
        return set(numbered.as_strided(t.shape, t.stride(), t.storage_offset()).flatten().tolist())
    return not cells(a).isdisjoint(cells(b))
    ### END SOLUTION

# %% test 01_tensors-cells-test points=2
_x = torch.zeros(6)                 # equal values everywhere: only positions tell cells apart
_hint = ("[mc:views.cells] Two tensors share a cell when they use one storage AND at least "
         "one storage position is used by both (section 2's formula gives an element's position).")
_cases = [
    ((_x[:3], _x[2:]), True, "shares_cells(x[:3], x[2:])",
     "[mc:views.data-ptr] x[:3] and x[2:] both use cell 2, though their first elements "
     "(data_ptr()) differ."),
    ((_x[:2], _x[4:]), False, "shares_cells(x[:2], x[4:])",
     "[mc:views.same-storage-same-cells] x[:2] and x[4:] use one storage but different cells "
     "(0, 1 and 4, 5), whatever values those hold: a write through one never changes the "
     "other."),
    ((_x[::2], _x[1::2]), False, "shares_cells(x[::2], x[1::2])",
     "[mc:views.range-overlap] x[::2] uses cells 0, 2, 4 and x[1::2] cells 1, 3, 5: their "
     "ranges overlap but no cell is in both."),
    ((_x.clone(), _x), False, "shares_cells(x.clone(), x)",
     "[mc:views.storage-identity] x.clone() holds the same values at the same positions of "
     "ANOTHER storage: check that both use one storage first."),
]
for (_a, _b), _want, _name, _why in _cases:
    with checks.explain_errors({helpers.strides.OWN_CODE: helpers.strides.OWN_CODE_HINT, "": _hint}, _name):
        _got = helpers.strides.without_own_code(shares_cells, _a, _b)
    with checks.because("[mc:views.cells] Return True or False."):
        checks.expect_type(_got, (bool, np.bool_), _name)
    checks.expect_true(bool(_got) == _want, f"{_name} returned {bool(_got)}. {_why}")
### BEGIN HIDDEN TESTS
import helpers.strides
from helpers.grading import probe

x, y, t = torch.zeros(6), torch.zeros(3, 4), torch.zeros(16)
diagonal, anti = t.as_strided((4,), (5,), 0), t.as_strided((4,), (3,), 3)
for (a, b), name in [
        ((x[:3], x[2:]), "x[:3] and x[2:]"), ((x[:2], x[4:]), "x[:2] and x[4:]"),
        ((x[::2], x[1::2]), "x[::2] and x[1::2]"), ((x.clone(), x), "x.clone() and x"),
        ((x, x[2:]), "the base and its slice, base first"),
        ((y.t(), y), "a transpose"), ((y[:, 1], y[1]), "a column and a row"),
        ((y[0], y[2]), "two different rows"), ((y[:, ::2], y[:, 1::2]), "even and odd columns"),
        ((y[:1].expand(5, 4), y[0, 3]), "an expand and a 0-d element"),
        ((y[1, 1], y.t()[1, 1]), "the same element reached twice (0-d)"),
        ((y[1:1], y), "an empty slice (no cell at all)"), ((y[[0, 2]], y), "fancy indexing (a copy)"),
        ((y.t().contiguous(), y), "contiguous() of a transpose (a copy)"),
        ((torch.zeros(3, 4)[1:], y[1:]), "equal values in another storage"),
        ((y[:, :2], y[:, 2:]), "the left and right halves of a (3, 4) tensor"),
        ((x[0:6:5], x[1:4:2]), "x[0:6:5] and x[1:4:2]"),
        ((diagonal, anti), "the diagonal and the anti-diagonal of a 4×4 grid"),
        ((diagonal, t.view(4, 4)[2]), "the diagonal and row 2 of a 4×4 grid"),
        ((y[2].expand(3, 4), y[:, 0]), "an expanded row and a column")]:
    probe.call(f"shares_cells for {name}", helpers.strides.without_own_code, shares_cells, a, b)
### JUDGE
import helpers.strides
from helpers.grading.probe import got

_hint = ("[mc:views.cells] Two tensors share a cell when they use one storage AND at least "
         "one storage position is used by both (section 2's formula gives an element's position).")
_arithmetic = ("[mc:views.cells-arithmetic] Arithmetic on offsets and strides (overlapping spans, a "
               "common step) does not decide it: list the cells each one actually reaches, with "
               "section 2's formula, and look for one in both.")
for _name, _want, _why in [
        ("x[:3] and x[2:]", True, "[mc:views.data-ptr] x[:3] and x[2:] both use cell 2, though "
                                  "their first elements (data_ptr()) differ."),
        ("x[:2] and x[4:]", False, "[mc:views.same-storage-same-cells] x[:2] and x[4:] use one "
                                   "storage but different cells (0, 1 and 4, 5), whatever values "
                                   "those hold: a write through one never changes the other."),
        ("x[::2] and x[1::2]", False, "[mc:views.range-overlap] x[::2] uses cells 0, 2, 4 and "
                                      "x[1::2] cells 1, 3, 5: their ranges overlap but no cell is "
                                      "in both."),
        ("x.clone() and x", False, "[mc:views.storage-identity] x.clone() holds the same values at "
                                   "the same positions of ANOTHER storage: check that both use "
                                   "one storage first."),
        ("the base and its slice, base first", True, _hint), ("a transpose", True, _hint),
        ("a column and a row", True, _hint), ("two different rows", False, _hint),
        ("even and odd columns", False, _hint), ("an expand and a 0-d element", True, _hint),
        ("the same element reached twice (0-d)", True, _hint),
        ("an empty slice (no cell at all)", False, _hint), ("fancy indexing (a copy)", False, _hint),
        ("contiguous() of a transpose (a copy)", False, _hint),
        ("equal values in another storage", False, _hint),
        ("the left and right halves of a (3, 4) tensor", False, _arithmetic),
        ("x[0:6:5] and x[1:4:2]", False, _arithmetic),
        ("the diagonal and the anti-diagonal of a 4×4 grid", False, _arithmetic),
        ("the diagonal and row 2 of a 4×4 grid", True, _arithmetic),
        ("an expanded row and a column", True, _arithmetic)]:
    _key = f"shares_cells for {_name}"
    _got = got.value(_key, {helpers.strides.OWN_CODE: helpers.strides.OWN_CODE_HINT, "": _hint})
    with checks.because("[mc:views.cells] Return True or False."):
        checks.expect_type(_got, (bool, np.bool_), _key)
    checks.expect_true(bool(_got) == _want, f"{_key} returned {bool(_got)}: it should say {_want}. {_why}")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 4: image tiles as a view (2 points)
#
# Vision models often cut an image into square tiles. Write `tiles(img, p)` for a
# contiguous 2-D tensor `img` of shape (H, W), both multiples of `p`: return the tensor of
# shape (H/p, W/p, p, p) whose entry `[i, j]` is the tile
# `img[i*p:(i+1)*p, j*p:(j+1)*p]`, as a **view** of `img` (no copy), using the operations of
# this section.
# *Misconception*: a reshape keeps the memory order, so splitting (H, W) straight into
# (H/p, W/p, p, p) does not cut tiles; the axes must be split and then reordered.

# %% solution 01_tensors-permute-view
def tiles(img, p):
    ### BEGIN SOLUTION
    height, width = img.shape
    return img.view(height // p, p, width // p, p).permute(0, 2, 1, 3)
    ### END SOLUTION

# %% test 01_tensors-permute-view-test points=2
_img = torch.arange(24).view(4, 6)          # 2×3 tiles of 2×2
_want = torch.stack([torch.stack([_img[i * 2:i * 2 + 2, j * 2:j * 2 + 2] for j in range(3)])
                     for i in range(2)])
_hint = ("[mc:views.tiles] Split each axis into (number of tiles, p), then move the two "
         "tile-number axes in front of the two within-tile axes.")
with checks.explain_errors({"": _hint}, "tiles(img, 2) for a (4, 6) img"):
    _got = tiles(_img, 2)
with checks.because(_hint):
    checks.expect_type(_got, torch.Tensor, "tiles(img, 2)")
with checks.because("[mc:views.tiles-shape] One p×p tile per (tile row, tile column): the "
                    "shape is (H/p, W/p, p, p) = (2, 3, 2, 2)."):
    checks.expect_shape(_got, (2, 3, 2, 2), "tiles(img, 2)")
checks.reject(_got, {
    _img.reshape(2, 3, 2, 2):
        "[mc:views.reshape-not-transpose] This regroups img in memory order: 'tile' [0, 0] "
        "holds the first 4 values of row 0. Split the axes, then reorder them.",
    _want.transpose(2, 3):
        "[mc:views.tile-transposed] Each tile is transposed: keep the within-tile row axis "
        "before the within-tile column axis."}, "tiles(img, 2)")
checks.expect_true(torch.equal(_got, _want), f"tiles(img, 2) is not right. {_hint}")
checks.expect_true(_got.untyped_storage().data_ptr() == _img.untyped_storage().data_ptr(),
                   "tiles(img, 2) is a copy. [mc:views.copy-not-view] view and permute move no "
                   "data: leave out contiguous(), clone() and stack.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe


def run(h, w, p, seed):
    img = torch.arange(24).view(4, 6) if seed is None else torch.randn(
        h, w, generator=torch.Generator().manual_seed(seed))
    result = tiles(img, p)
    seen = {"tiles": result.clone(),
            "view of img": result.untyped_storage().data_ptr() == img.untyped_storage().data_ptr()}
    img[-1, -1] = 100                                # a write into img shows in the last tile
    seen["sees a write into img"] = bool(result[-1, -1, -1, -1] == 100)
    return seen


probe.call("tiles(img, 2) for a (4, 6) img", run, 4, 6, 2, None)
for h, w, p in [(6, 4, 2), (3, 9, 3), (5, 5, 1), (4, 4, 4), (6, 6, 3), (8, 12, 4)]:
    probe.call(f"tiles on a ({h}, {w}) img, p = {p}", run, h, w, p, h * w + p)
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:views.tiles] Split each axis into (number of tiles, p), then move the two "
         "tile-number axes in front of the two within-tile axes.")
for _h, _w, _p, _key in [(4, 6, 2, "tiles(img, 2) for a (4, 6) img")] + [
        (h, w, p, f"tiles on a ({h}, {w}) img, p = {p}")
        for h, w, p in [(6, 4, 2), (3, 9, 3), (5, 5, 1), (4, 4, 4), (6, 6, 3), (8, 12, 4)]]:
    _img = torch.arange(24).view(4, 6) if _key.startswith("tiles(img") else torch.randn(
        _h, _w, generator=torch.Generator().manual_seed(_h * _w + _p))
    _want = torch.stack([torch.stack([_img[i * _p:(i + 1) * _p, j * _p:(j + 1) * _p]
                                      for j in range(_w // _p)]) for i in range(_h // _p)])
    _seen = got.value(_key, {"": _hint})
    _got = _seen["tiles"]
    with checks.because(_hint):
        checks.expect_type(_got, torch.Tensor, _key)
    with checks.because("[mc:views.tiles-shape] One p×p tile per (tile row, tile column): the "
                        "shape is (H/p, W/p, p, p)."):
        checks.expect_shape(_got, tuple(_want.shape), _key)
    checks.reject(_got, {wrong: why for wrong, why in {
        _img.reshape(_want.shape):
            "[mc:views.reshape-not-transpose] This regroups img in memory order: 'tile' [0, 0] "
            "holds the first values of row 0. Split the axes, then reorder them.",
        _want.transpose(2, 3):
            "[mc:views.tile-transposed] Each tile is transposed: keep the within-tile row axis "
            "before the within-tile column axis."}.items() if not torch.equal(wrong, _want)}, _key)
    checks.expect_true(torch.equal(_got, _want), f"{_key} is wrong. {_hint}")
    checks.expect_true(_seen["view of img"] and _seen["sees a write into img"],
                       f"{_key} is a copy. [mc:views.copy-not-view] view and permute move no "
                       "data: leave out contiguous(), clone() and stack.")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Broadcasting
#
# An elementwise operation on two shapes aligns them **on the right**. Going from the last
# axis leftwards, the two sizes must be equal or one of them 1 (a missing axis counts as 1);
# the result takes the larger size, and a size-1 axis is stretched by a stride of 0.

# %%
print((torch.zeros(1, 3) + torch.zeros(2, 1)).shape, (torch.zeros(1, 3) + torch.zeros(2, 1)).numel())
print((torch.zeros(64, 1) + torch.zeros(768)).shape)
print(torch.broadcast_shapes((1, 3), (2, 1)), torch.broadcast_shapes((64, 1), (768,)))
with checks.expect_error(RuntimeError):
    torch.zeros(3) + torch.zeros(4)

# %% [markdown]
# The rule gives the result's shape. Which element of each operand meets which is the other
# half: a stretched axis has stride 0, so stepping along it reads the same cells again.
#
# **Quick quiz (predict, then check in the explorer below).** With
# `a = torch.arange(3)` and `b = 10 * torch.arange(4).view(4, 1)`, what is `(a + b)[2, 1]`?
# Set `quiz_entry` to an integer.

# %% solution 01_tensors-quiz-broadcast
### BEGIN SOLUTION
quiz_entry = 21
### END SOLUTION

# %% test 01_tensors-quiz-broadcast-test points=1
with checks.because("[mc:broadcast.quiz-type] The answer is one entry of an integer tensor, a "
                    "whole number."):
    checks.answer("01_tensors-quiz-broadcast", quiz_entry, "quiz_entry", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_entry")
### JUDGE
from helpers.grading.probe import got
with checks.because("[mc:broadcast.quiz-type] The answer is one entry of an integer tensor, a "
                    "whole number."):
    checks.answer("01_tensors-quiz-broadcast", got["quiz_entry"], "quiz_entry", kind=int)
checks.expect_true(got["quiz_entry"] == 21,
                   "[mc:broadcast.reads] Align (3,) and (4, 1) on the right: the result is (4, 3), "
                   "a is read along the last axis (stride 0 down the rows) and b along the first "
                   "(stride 0 across the columns), so element [i, j] is a[j] + b[i, 0].")
### END HIDDEN TESTS

# %% wrong 01_tensors-quiz-broadcast
{
    12: "[mc:broadcast.first-operand-rows] The result's rows come from b, the (4, 1) operand, "
        "and its columns from a: element [2, 1] is b[2, 0] + a[1], not a[2] + b[1].",
    3: "[mc:broadcast.same-index] a has one axis, lined up with the result's LAST one: element "
       "[2, 1] reads a at 1, and b (stride 0 along columns) at row 2, which holds 20.",
    2: "[mc:broadcast.same-index] b holds 10 times its row number: element [2, 1] reads "
       "b[2, 0] = 20, and a[1] = 1.",
    30: "[mc:broadcast.first-operand-rows] a lines up with the result's last axis (columns): "
        "element [2, 1] reads a[1], and b[2, 0].",
}

# %% [markdown]
# **Quick quiz (predict, then check in the explorer).** `torch.zeros(8, 3, 5) +
# torch.zeros(4, 1)` raises an error. At which axis, counted from the right (-1 is the last
# axis), do the sizes clash? Set `quiz_failing_axis` to a negative integer.

# %% solution 01_tensors-quiz-failing-axis
### BEGIN SOLUTION
quiz_failing_axis = -2
### END SOLUTION

# %% test 01_tensors-quiz-failing-axis-test points=1
with checks.because("[mc:broadcast.quiz-type] The answer is an axis number, a whole number."):
    checks.answer("01_tensors-quiz-failing-axis", quiz_failing_axis, "quiz_failing_axis", kind=int)
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_failing_axis")
### JUDGE
from helpers.grading.probe import got
with checks.because("[mc:broadcast.quiz-type] The answer is an axis number, a whole number."):
    checks.answer("01_tensors-quiz-failing-axis", got["quiz_failing_axis"], "quiz_failing_axis",
                  kind=int)
checks.expect_true(got["quiz_failing_axis"] == -2,
                   "[mc:broadcast.rule] Align (8, 3, 5) and (4, 1) on the right and compare "
                   "axis by axis from -1 leftwards: the first pair that differs with no 1 fails.")
### END HIDDEN TESTS

# %% wrong 01_tensors-quiz-failing-axis
{
    -1: "[mc:broadcast.one-is-mismatch] On the last axis the sizes are 5 and 1: a size 1 "
        "stretches, so that axis is fine.",
    -3: "[mc:broadcast.align-left] You aligned the shapes on the left (8 against 4): "
        "broadcasting aligns them on the right.",
    1: "[mc:broadcast.axis-counting] The question counts from the right with negative numbers "
       "(-1 is the last axis): you counted from the left.",
    2: "[mc:broadcast.axis-counting] Count from the right with negative numbers: -1 is the last "
       "axis.",
}

# %% [markdown]
# The **broadcasting explorer** shows what `a + b` reads: the strides each operand is read
# with as the result's shape (0 on a stretched axis), and, for the element of the result
# you pick, the storage cell of each operand it reads (the index dotted with those strides).
# Below them, the two shapes right-aligned, each axis's verdict and the result, or the axis
# PyTorch rejects. Tasks:
#
# 1. Check the first quiz: shapes `3` and `4, 1`, element `2, 1`. Read which element of a
#    and of b it reads, add their values, and compare with your answer.
# 2. Predict the strides each operand gets for `8, 1, 6` with `7, 1` (start from each one's
#    own row-major strides), then type them in and check. Pick an element and explain why
#    `a + b` copies neither operand before adding.
# 3. Check the second quiz with `8, 3, 5` and `4, 1`: compare the red column with your
#    answer. Then type `64` and `64, 1`: notice the outer-product warning and which operand
#    is stretched on each axis; the cell after the next shows this shape bug in a loss.

# %%
import helpers.broadcasting  # so that this cell also runs on its own after a restart

helpers.broadcasting.explore()

# %% [markdown]
# The whole `a + b`: row i holds b's 10·i plus every entry of a. Compare entry [2, 1] with
# your answer to the first quiz.

# %%
print(torch.arange(3) + 10 * torch.arange(4).view(4, 1))

# %% [markdown]
# **The silent outer product.** Broadcasting never asks whether you *meant* it. A model
# that predicts a (64,) vector compared with targets stored as (64, 1) gives a (64, 64)
# table of every prediction minus every target, and the mean of that is a plausible-looking
# number with no error.

# %%
pred = torch.randn(64)
target = torch.randn(64, 1)
wrong = (pred - target) ** 2
right = (pred - target.squeeze(1)) ** 2
print("wrong shape", tuple(wrong.shape), "loss", round(wrong.mean().item(), 4))
print("right shape", tuple(right.shape), "loss", round(right.mean().item(), 4))

# %% [markdown]
# ### Exercise 5: the strides of a broadcast operand (2 points)
#
# Inside `a + b`, each operand is read as if it had the result's shape, through strides
# that PyTorch chooses (the explorer's strides rows show them), without copying. Write
# `broadcast_strides(shape, strides, target)`: an operand with this `shape` and these
# `strides` (any strides: it may be a slice or a transpose) is read as the shape `target`.
# Return the strides it is read with, a tuple with one stride per dim of `target`, or raise
# `ValueError` when the operand cannot be broadcast to `target` (broadcasting only
# stretches an operand, it never shrinks or drops an axis). Work from the numbers alone,
# without creating a tensor: the shapes may be far too large to allocate. The stride of a
# dim of size 1 in `target` is never used, so the tests accept any value there.
# *Misconception*: an operand keeps its own strides on the axes broadcasting adds or
# stretches, and it is the *left* ends of the shapes that line up.

# %% solution 01_tensors-broadcast
def broadcast_strides(shape, strides, target):
    ### BEGIN SOLUTION
    if len(shape) > len(target):
        raise ValueError(f"{tuple(shape)} has more dims than {tuple(target)}")
    extra = len(target) - len(shape)
    out = [0] * extra                                    # new leading axes: stride 0
    for size, stride, want in zip(shape, strides, target[extra:]):
        if size == want:
            out.append(stride)
        elif size == 1:
            out.append(0)                                # stretched: every step, one cell
        else:
            raise ValueError(f"size {size} cannot be broadcast to {want}")
    return tuple(out)
    ### END SOLUTION

# %% test 01_tensors-broadcast-test points=2
_rule = ("[mc:broadcast.strides-rule] Line the shapes up on the right. An axis the operand "
         "lacks, or has with size 1 against a larger size, is read with stride 0; an axis "
         "of equal size keeps its stride; any other size cannot broadcast.")


def _used(strides, target):
    """The strides on the dims of target that are stepped along (size > 1)."""
    return tuple(s for s, n in zip(strides, target) if n != 1)


_shape, _strides, _target = (3, 1), (4, 1), (2, 3, 5)      # torch.zeros(3, 4)[:, :1]
_name = "broadcast_strides((3, 1), (4, 1), (2, 3, 5))"
with checks.explain_errors({helpers.strides.OWN_CODE: helpers.strides.OWN_CODE_HINT,
                            "": "[mc:broadcast.align-left] (3, 1) does broadcast to (2, 3, 5): "
                                "line the shapes up on the right (the last sizes first)."}, _name):
    _got = helpers.strides.without_own_code(broadcast_strides, _shape, _strides, _target)
with checks.because(_rule):
    checks.expect_type(_got, (tuple, list, torch.Size), _name)
    checks.expect_true(len(_got) == 3, f"{_name} = {tuple(_got)} does not have one stride per "
                                       "dim of the target, (2, 3, 5).")
checks.reject(_used(tuple(_got), _target), {
    (0, 1, 0): "[mc:strides.assume-contiguous] These are the strides of a fresh (3, 1) tensor: "
               "the operand's strides are given, (4, 1), and an axis it keeps keeps its stride.",
    (0, 4, 1): "[mc:broadcast.stretch-keeps-stride] The size-1 axis is stretched to 5: every "
               "step along it must land on the same cell, so its stride is 0.",
    (12, 4, 0): "[mc:broadcast.leading-stride] The operand has no axis for the target's 2: "
                "every step along that new axis reads the same cells, stride 0.",
    (1, 4, 0): "[mc:broadcast.leading-stride] The operand has no axis for the target's 2: "
               "every step along that new axis reads the same cells, stride 0."}, _name)
checks.expect_raises(ValueError, helpers.strides.without_own_code, broadcast_strides, (3,), (1,), (4,),
                     name="broadcast_strides((3,), (1,), (4,))",
                     why="[mc:broadcast.mismatch-allowed] A size 3 cannot be read as size 4 "
                         "(neither is 1): raise ValueError.")
_huge = (10 ** 7, 1, 10 ** 7)               # a tensor with these strides would need 10¹⁴ cells
try:
    _got, _error = helpers.strides.without_own_code(broadcast_strides, _huge, (10 ** 7, 1, 1), (3,) + _huge), None
except Exception as _e:     # named, not quoted: an allocator's words read as the grader's own limit
    _got, _error = None, type(_e).__name__
checks.expect_true(_error is None,
                   f"broadcast_strides on a (10⁷, 1, 10⁷) operand raised {_error}. "
                   "[mc:strides.made-a-tensor] The strides follow from the shapes and strides "
                   "alone: a tensor made to read them fails for shapes this large.")
### BEGIN HIDDEN TESTS
import helpers.strides
from helpers.grading import probe

huge = (10 ** 7, 1, 10 ** 7)
for shape, strides, target in [
        ((3, 1), (4, 1), (2, 3, 5)), ((3,), (1,), (4, 3)), ((1, 3), (7, 1), (1, 3)),
        ((4, 1), (1, 4), (4, 6)), ((), (), (2, 2)), ((5, 1, 4), (4, 20, 1), (5, 3, 4)),
        ((2, 3), (1, 2), (6, 2, 3)), ((1,), (9,), (8,)), ((1, 1), (1, 1), (2, 3)),
        (huge, (10 ** 7, 1, 1), (3,) + huge), ((6, 1), (2, 1), (1, 6, 10 ** 9)), ((1,), (1,), (1,)),
        ((3,), (1,), (4,)), ((2, 3), (3, 1), (3,)), ((4,), (1,), (1,)), ((2, 1), (1, 1), (3, 1)),
        ((3, 1), (1, 1), (5, 3, 2, 1)), ((1, 3), (3, 1), (3,)), ((1, 1, 4), (4, 4, 1), (4,)),
        ((1,), (1,), ()), ((1, 2, 1), (2, 1, 1), (2, 5))]:
    probe.call(f"broadcast_strides({shape}, {strides}, {target})", helpers.strides.without_own_code,
               broadcast_strides, shape, strides, target)
### JUDGE
import helpers.strides
from helpers.grading.probe import got

_rule = ("[mc:broadcast.strides-rule] Line the shapes up on the right. An axis the operand "
         "lacks, or has with size 1 against a larger size, is read with stride 0; an axis "
         "of equal size keeps its stride; any other size cannot broadcast.")
_huge = (10 ** 7, 1, 10 ** 7)
_contiguous = ("[mc:strides.assume-contiguous] These are the strides of a fresh (3, 1) tensor: "
               "the operand's strides are given, (4, 1), and an axis it keeps keeps its stride.")
_stretch = ("[mc:broadcast.stretch-keeps-stride] The size-1 axis is stretched to 5: every step "
            "along it must land on the same cell, so its stride is 0.")
_leading = ("[mc:broadcast.leading-stride] The operand has no axis for the target's 2: every "
            "step along that new axis reads the same cells, stride 0.")
for _shape, _strides, _target in [
        ((3, 1), (4, 1), (2, 3, 5)), ((3,), (1,), (4, 3)), ((1, 3), (7, 1), (1, 3)),
        ((4, 1), (1, 4), (4, 6)), ((), (), (2, 2)), ((5, 1, 4), (4, 20, 1), (5, 3, 4)),
        ((2, 3), (1, 2), (6, 2, 3)), ((1,), (9,), (8,)), ((1, 1), (1, 1), (2, 3)),
        (_huge, (10 ** 7, 1, 1), (3,) + _huge), ((6, 1), (2, 1), (1, 6, 10 ** 9)), ((1,), (1,), (1,))]:
    _key = f"broadcast_strides({_shape}, {_strides}, {_target})"
    _error = got.raised(_key)
    checks.expect_true(_error is None or _error.is_a(ValueError) or max(_shape, default=0) < 10 ** 7,
                       f"broadcast_strides on a (10⁷, 1, 10⁷) operand raised {_error and _error.type_name}. "
                       "[mc:strides.made-a-tensor] The strides follow from the shapes and strides "
                       "alone: a tensor made to read them fails for shapes this large.")
    _got = got.value(_key, {helpers.strides.OWN_CODE: helpers.strides.OWN_CODE_HINT,
                            "": "[mc:broadcast.align-left] This operand does broadcast to the "
                                   "target: line the shapes up on the right (the last sizes "
                                   "first)." if _key.startswith("broadcast_strides((3, 1), (4, 1)")
                               else _rule})
    with checks.because(_rule):
        checks.expect_type(_got, (tuple, list, torch.Size), _key)
        checks.expect_true(len(_got) == len(_target), f"{_key} = {tuple(_got)} does not have one "
                           f"stride per dim of the target, {_target}.")
    _want = torch.empty_strided(_shape, _strides, device="meta").expand(_target).stride()
    _used = tuple(s for s, n in zip(_got, _target) if n != 1)
    if (_shape, _strides, _target) == ((3, 1), (4, 1), (2, 3, 5)):
        checks.reject(_used, {(0, 1, 0): _contiguous, (0, 4, 1): _stretch, (12, 4, 0): _leading,
                              (1, 4, 0): _leading}, _key)
    checks.expect_true(_used == tuple(s for s, n in zip(_want, _target) if n != 1),
                       f"{_key} is wrong: on the dims of size > 1 it should give "
                       f"{tuple(s for s, n in zip(_want, _target) if n != 1)}. {_rule}")
for _shape, _strides, _target, _why in [
        ((3,), (1,), (4,), "[mc:broadcast.mismatch-allowed] A size 3 cannot be read as size 4 "
                           "(neither is 1): raise ValueError."),
        ((2, 3), (3, 1), (3,), "[mc:broadcast.one-way] The operand has more dims than the target: "
                               "broadcasting adds axes, it never drops one."),
        ((4,), (1,), (1,), "[mc:broadcast.one-way] A size 4 cannot be read as size 1: "
                           "broadcasting stretches a size 1, it never shrinks a size."),
        ((2, 1), (1, 1), (3, 1), "[mc:broadcast.mismatch-allowed] 2 against 3: neither is 1."),
        ((3, 1), (1, 1), (5, 3, 2, 1), "[mc:broadcast.align-left] Lined up on the right, 3 meets 2 "
                                       "and neither is 1."),
        ((1, 3), (3, 1), (3,), "[mc:broadcast.squeeze-leading] (1, 3) has more dims than (3,): "
                               "broadcasting never drops an axis, not even leading axes of size 1 "
                               "(torch's expand refuses them too)."),
        ((1, 1, 4), (4, 4, 1), (4,), "[mc:broadcast.squeeze-leading] (1, 1, 4) has more dims than "
                                     "(4,): broadcasting never drops an axis, not even leading "
                                     "axes of size 1 (torch's expand refuses them too)."),
        ((1,), (1,), (), "[mc:broadcast.squeeze-leading] (1,) has more dims than the 0-d target: "
                         "broadcasting never drops an axis, not even leading axes of size 1."),
        ((1, 2, 1), (2, 1, 1), (2, 5), "[mc:broadcast.squeeze-leading] (1, 2, 1) has more dims "
                                       "than (2, 5): broadcasting never drops an axis, not even "
                                       "leading axes of size 1.")]:
    _key = f"broadcast_strides({_shape}, {_strides}, {_target})"
    _error = got.raised(_key)
    checks.expect_true(_error is not None and _error.is_a(ValueError),
                       f"{_key} " + (f"raised {_error.type_name}, not ValueError. " if _error else
                                     f"returned {got[_key]!r} instead of raising ValueError. ") + _why)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 6: a per-class accuracy that broadcasts the wrong way (2 points)
#
# An accuracy per class says which classes a model gets wrong: entry c is the fraction of
# the rows labelled c whose largest logit sits at c. This function is meant to compute it
# for logits of shape (N, C) and labels of shape (N,). The cell runs it twice.

# %%
def per_class_accuracy_as_given(logits, labels):
    hits = logits.argmax(dim=1) == labels          # (N,): did row i predict its label?
    classes = torch.arange(logits.shape[1])        # (C,): 0, 1, ..., C-1
    in_class = labels == classes                   # meant: (N, C), True where row i has label c
    return (hits * in_class).sum(0) / in_class.sum(0)


_gen = torch.Generator().manual_seed(0)
logits_3, labels_3 = torch.randn(3, 3, generator=_gen), torch.tensor([0, 0, 2])
print("3 rows, 3 classes:", per_class_accuracy_as_given(logits_3, labels_3))
logits_8, labels_8 = torch.randn(8, 3, generator=_gen), torch.randint(0, 3, (8,), generator=_gen)
with checks.expect_error(RuntimeError):
    per_class_accuracy_as_given(logits_8, labels_8)

# %% [markdown]
# Find out what went wrong in each run (print the shapes of `hits`, `classes` and
# `in_class`), then write `per_class_accuracy(logits, labels)` returning a float tensor of
# shape (C,), for any N and C, with no Python loop over the rows. A class that no row
# carries has no accuracy: its entry is `nan` (0 rows out of 0), not 0.
# *Misconception*: two 1-D tensors compared with each other pair up element by element
# (they do not make a table), and an (N,) tensor lines up with the *last* axis of an
# (N, C) one, not with its rows.

# %% solution 01_tensors-accuracy
def per_class_accuracy(logits, labels):
    ### BEGIN SOLUTION
    hits = logits.argmax(dim=1) == labels                                # (N,)
    in_class = labels[:, None] == torch.arange(logits.shape[1])          # (N, C)
    return (hits[:, None] & in_class).sum(0) / in_class.sum(0)
    ### END SOLUTION

# %% test 01_tensors-accuracy-test points=2
_logits = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                        [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0]])
_labels = torch.tensor([0, 1, 1, 3, 0, 2])      # 6 rows, 4 classes
_hint = ("[mc:accuracy.per-class] Entry c: among the rows whose label is c, the fraction "
         "whose argmax is c. Build an (N, C) table of 'row i has label c' with a size-1 axis.")
_name = "per_class_accuracy(logits, labels) for 6 rows of 4 classes"
with checks.explain_errors({
        "non-singleton dimension 0": "[mc:broadcast.vectors-pair-up] labels (N,) and classes (C,) "
                                     "line up as ONE axis and are compared element by element "
                                     "(an error when N != C): give labels a size-1 axis to get "
                                     "an (N, C) table.",
        "non-singleton dimension 1": "[mc:broadcast.vector-on-last-axis] An (N,) tensor against "
                                     "an (N, C) one lines up with the LAST axis, C, not with the "
                                     "rows: give it a size-1 axis, (N, 1).",
        "": _hint}, _name):
    _got = per_class_accuracy(_logits, _labels)
with checks.because("[mc:accuracy.float] The fractions are floats: a float tensor of shape (C,)."):
    checks.expect_type(_got, torch.Tensor, _name)
    checks.expect_shape(_got, (4,), _name)
    checks.expect_true(_got.is_floating_point(), f"{_name} has dtype {_got.dtype}, not a float one.")
checks.reject_close(_got, {
    (1.0, 1.0, 0.5, 1.0): "[mc:accuracy.group-by-prediction] You grouped the rows by their "
                          "PREDICTED class (a precision): group them by their label.",
    (1.0 / 3, 1.0 / 6, 1.0 / 6, 1.0 / 6): "[mc:accuracy.per-class-denominator] You divided by all "
                                          "N rows: divide by the number of rows labelled c."},
    _name)
### BEGIN HIDDEN TESTS
from helpers.grading import probe

logits = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                       [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0]])
probe.call("per_class_accuracy(logits, labels) for 6 rows of 4 classes", per_class_accuracy,
           logits, torch.tensor([0, 1, 1, 3, 0, 2]))
gen = torch.Generator().manual_seed(5)
for n, c in [(5, 5), (9, 3), (1, 4), (7, 2), (4, 6)]:            # N = C hides a pairing up
    scores = torch.randn(n, c, generator=gen)
    probe.call(f"per_class_accuracy on ({n}, {c}) logits", per_class_accuracy, scores,
               torch.randint(0, c, (n,), generator=gen))
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:accuracy.per-class] Entry c: among the rows whose label is c, the fraction "
         "whose argmax is c. Build an (N, C) table of 'row i has label c' with a size-1 axis.")
_hints = {"non-singleton dimension 0": "[mc:broadcast.vectors-pair-up] labels (N,) and classes (C,) "
                                       "line up as ONE axis and are compared element by element "
                                       "(an error when N != C): give labels a size-1 axis to get "
                                       "an (N, C) table.",
          "non-singleton dimension 1": "[mc:broadcast.vector-on-last-axis] An (N,) tensor against "
                                       "an (N, C) one lines up with the LAST axis, C, not with the "
                                       "rows: give it a size-1 axis, (N, 1).",
          "": _hint}
_cases = [("per_class_accuracy(logits, labels) for 6 rows of 4 classes",
           torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                         [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0]]),
           torch.tensor([0, 1, 1, 3, 0, 2]))]
_gen = torch.Generator().manual_seed(5)
for _n, _c in [(5, 5), (9, 3), (1, 4), (7, 2), (4, 6)]:
    _scores = torch.randn(_n, _c, generator=_gen)
    _cases.append((f"per_class_accuracy on ({_n}, {_c}) logits", _scores,
                   torch.randint(0, _c, (_n,), generator=_gen)))
for _key, _l, _y in _cases:
    _c = _l.shape[1]
    _got = got.value(_key, _hints)
    with checks.because("[mc:accuracy.float] The fractions are floats: a float tensor of shape (C,)."):
        checks.expect_type(_got, torch.Tensor, _key)
        checks.expect_shape(_got, (_c,), _key)
        checks.expect_true(_got.is_floating_point(), f"{_key} has dtype {_got.dtype}, not a float one.")
    _pred = _l.argmax(1)
    _want = torch.tensor([float("nan") if (_y == c).sum() == 0 else
                          ((_pred == c) & (_y == c)).sum().item() / (_y == c).sum().item()
                          for c in range(_c)])
    _by_prediction = torch.tensor([float("nan") if (_pred == c).sum() == 0 else
                                   ((_pred == c) & (_y == c)).sum().item() / (_pred == c).sum().item()
                                   for c in range(_c)])
    _over_all = torch.tensor([((_pred == c) & (_y == c)).sum().item() / len(_y) for c in range(_c)])
    checks.reject_close(_got.double().nan_to_num(-1.0), {
        wrong.double().nan_to_num(-1.0): why for wrong, why in [
            (_by_prediction, "[mc:accuracy.group-by-prediction] You grouped the rows by their "
                             "PREDICTED class (a precision): group them by their label."),
            (_over_all, "[mc:accuracy.per-class-denominator] You divided by all N rows: divide "
                        "by the number of rows labelled c.")]
        if not torch.allclose(wrong.double(), _want.double(), equal_nan=True)}, _key)
    checks.expect_true(torch.equal(_got.isnan(), _want.isnan()),
                       f"{_key}: a class that no row carries must give nan, and only such a class. "
                       "[mc:accuracy.absent-class] 0 rows out of 0 is no accuracy at all; 0 would "
                       "read as 'always wrong'.")
    checks.expect_true(torch.allclose(_got.double(), _want.double(), equal_nan=True),
                       f"{_key} is wrong. {_hint}")
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Reductions and the shape puzzle
#
# A reduction (`sum`, `mean`, `max`, …) with `dim=` collapses the dims you name and keeps
# the others; `dim` may be a tuple, and `keepdim=True` leaves each collapsed dim in place
# with size 1 (handy for broadcasting the result back against the input).

# %%
cube = torch.arange(24.0).view(2, 3, 4)
print(cube.sum(dim=0).shape, cube.mean(dim=-1).shape, cube.mean(dim=(1, 2)).shape,
      cube.mean(dim=(1, 2), keepdim=True).shape)
print("x - x.mean(-1, keepdim=True) broadcasts:", (cube - cube.mean(-1, keepdim=True)).shape)

# %% [markdown]
# **The silent `keepdim` bug.** To turn a table of counts into rows of probabilities, each
# row is divided by its own sum. Without `keepdim`, `P.sum(1)` has shape (C,), which lines
# up with the *last* axis of P: on a square table entry (i, j) is divided by the sum of
# row j, not of row i, and nothing raises.

# %%
P = torch.tensor([[1.0, 3.0, 0.0], [2.0, 2.0, 4.0], [0.0, 1.0, 1.0]])
print("P.sum(1) shape", tuple(P.sum(1).shape), "| with keepdim", tuple(P.sum(1, keepdim=True).shape))
print("rows of P / P.sum(1) sum to", (P / P.sum(1)).sum(1))
print("rows of P / P.sum(1, keepdim=True) sum to", (P / P.sum(1, keepdim=True)).sum(1))

# %% [markdown]
# ### Exercise 7: the shape puzzle (3 points)
#
# A batch of images has shape (32, 3, 224, 224): batch, channels, height, width. Make three
# common tensors from it (the cell below computes the sizes involved):
# - `flat`: one row per image for a linear head, shape (32, 3·224·224);
# - `tokens`: one token per pixel holding its 3 channel values, shape (32, 224·224, 3), so
#   that `tokens[b, h * 224 + w, c] == images[b, c, h, w]`;
# - `pooled`: global average pooling, the mean of each channel over the image, one number
#   per (image, channel).
#
# *Misconception*: reshaping is not transposing. A reshape keeps the memory order, so the
# channels must be moved last before pixels can become tokens.

# %%
images = torch.randn(32, 3, 224, 224, generator=torch.Generator().manual_seed(1))
batch, channels, height, width = images.shape
print("flat", (batch, channels * height * width), " tokens", (batch, height * width, channels),
      " pooled", (batch, channels))

# %% solution 01_tensors-shapes
### BEGIN SOLUTION
flat = images.reshape(batch, -1)
tokens = images.permute(0, 2, 3, 1).reshape(batch, -1, channels)
pooled = images.mean(dim=(2, 3))
### END SOLUTION

# %% test 01_tensors-shapes-test points=3
with checks.because("[mc:shapes.flatten] flat keeps the batch dim and merges the other three."):
    checks.expect_shape(flat, (32, 150528), "flat")
with checks.because("[mc:shapes.tokens] tokens has one row of 3 channel values per pixel."):
    checks.expect_shape(tokens, (32, 50176, 3), "tokens")
checks.reject(tokens, {
    images.reshape(32, 50176, 3):
        "[mc:shapes.reshape-not-permute] tokens only regroups memory in its stored order, so each "
        "'pixel' mixes values of one channel: permute the channels last before reshaping.",
    images.transpose(1, 3).reshape(32, 50176, 3):
        "[mc:shapes.transpose-swaps-hw] transpose(1, 3) moves the channels last but also swaps "
        "height and width, so pixel (h, w) lands at w * 224 + h: move the channels last and "
        "keep height before width."},
    "tokens")
with checks.because("[mc:reduce.pool-dims] Average over height and width (dims 2 and 3) and "
                    "keep neither: one number per (image, channel)."):
    checks.expect_shape(pooled, (32, 3), "pooled")
### BEGIN HIDDEN TESTS
from helpers.grading import probe


def part(name, rows):
    """The shape of one of the three answers, and its first rows (all of it for pooled)."""
    t = globals()[name]
    return {"shape": tuple(t.shape), "head": t[:rows].detach().clone()}


for name, rows in (("flat", 2), ("tokens", 2), ("pooled", 32)):
    if name in globals():
        probe.call(name, part, name, rows)
    else:
        probe.answer(name)                           # reported as not answered yet
### JUDGE
from helpers.grading.probe import got

_images = torch.randn(32, 3, 224, 224, generator=torch.Generator().manual_seed(1))
_flat, _tokens, _pooled = (got.value(k) for k in ("flat", "tokens", "pooled"))
with checks.because("[mc:shapes.flatten] flat keeps the batch dim and merges the other three."):
    checks.expect_equal(_flat["shape"], (32, 150528), "flat's shape")
with checks.because("[mc:shapes.tokens] tokens has one row of 3 channel values per pixel."):
    checks.expect_equal(_tokens["shape"], (32, 50176, 3), "tokens's shape")
checks.reject(_tokens["head"], {
    _images[:2].reshape(2, 50176, 3):
        "[mc:shapes.reshape-not-permute] tokens only regroups memory in its stored order, so each "
        "'pixel' mixes values of one channel: permute the channels last before reshaping.",
    _images[:2].transpose(1, 3).reshape(2, 50176, 3):
        "[mc:shapes.transpose-swaps-hw] transpose(1, 3) moves the channels last but also swaps "
        "height and width, so pixel (h, w) lands at w * 224 + h: move the channels last and "
        "keep height before width."},
    "tokens")
with checks.because("[mc:reduce.pool-dims] Average over height and width (dims 2 and 3) and "
                    "keep neither: one number per (image, channel)."):
    checks.expect_equal(_pooled["shape"], (32, 3), "pooled's shape")
checks.expect_true(torch.equal(_flat["head"], _images[:2].flatten(1)),
                   "[mc:shapes.flatten] flat's rows must be each image's values in memory order "
                   "(channel, then row, then column).")
checks.expect_true(torch.equal(_tokens["head"], _images[:2].flatten(2).transpose(1, 2)),
                   "[mc:shapes.reshape-not-permute] tokens[b, h * 224 + w, c] must equal "
                   "images[b, c, h, w]: move channels last with permute(0, 2, 3, 1).")
checks.expect_close(_pooled["head"], _images.flatten(2).mean(-1), "pooled", rtol=1e-4, atol=1e-6,
                    hint="[mc:reduce.pool-dims] Each entry is the mean of one channel over all "
                         "224·224 pixels of one image.")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. In-place operations and the NumPy bridge
#
# A method with a trailing underscore (`add_`, `clamp_`, `zero_`) and an indexed
# assignment (`x[mask] = 0`) write into the existing storage: every view of it sees the
# change. That saves memory but surprises whoever still holds the tensor. `clamp(min=lo,
# max=hi)` limits values from below and/or above.

# %%
t = torch.tensor([1.0, -2.0, 3.0])
alias = t.view(3)
t.clamp_(min=0)
print(t, alias)
u = torch.tensor([1.0, -2.0, 3.0])
print(u.clamp(min=0), u.clamp(max=0), u)     # out of place: u is unchanged

# %% [markdown]
# To tell whether a tensor's values changed, compare them with a saved copy: `a == b` is
# elementwise (a bool tensor), `.all()` and `.any()` reduce it to one answer, `|` and `&`
# combine bool tensors element by element, and `torch.equal(a, b)` asks for the same shape
# and values at once. NaN equals nothing, not even itself; `torch.isnan` finds it.

# %%
a = torch.tensor([1.0, float("nan"), 3.0])
b = a.clone()
print("a == b:", a == b, " all:", (a == b).all().item(), " torch.equal:", torch.equal(a, b))
print("isnan(a):", torch.isnan(a), " (a > 2) | isnan(a):", (a > 2) | torch.isnan(a))

# %% [markdown]
# `torch.from_numpy(arr)` and `tensor.numpy()` share memory with the array (CPU only);
# `torch.tensor(arr)` copies.
#
# A model's weights are created with `requires_grad=True`: autograd (notebook 02) then
# records every operation on them, and two things change for you. `.numpy()` refuses such
# a tensor, and so does an in-place write, except inside a `with torch.no_grad():` block,
# where nothing is recorded (that is how an optimizer updates weights). `.detach()` gives
# the same memory without the recording. `.numpy()` also refuses a tensor on a GPU (NumPy
# arrays live in CPU memory): `.cpu()` copies it to CPU memory first (on a CPU tensor it
# returns that tensor itself).

# %%
arr = np.zeros(3)
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = 5.0
print("from_numpy sees the change:", shared, " torch.tensor does not:", copied)
w = torch.ones(2, requires_grad=True)
with checks.expect_error(RuntimeError):
    w.numpy()
with checks.expect_error(RuntimeError):
    w.add_(1)
with torch.no_grad():
    w.add_(1)
print(w.detach().cpu().numpy(), " .cpu() of a CPU tensor is the same tensor:", w.cpu() is w)

# %% [markdown]
# ### Exercise 8: does a function write into its argument? (2 points)
#
# Before you hand your tensors to someone else's function, you may want to know whether it
# edits them. Write `modifies_input(f, x)` returning `True` when calling `f` on a tensor
# equal to `x` changes any value of that tensor (by an in-place method, an indexed
# assignment, or a write through a view of it), and `False` otherwise. `x` may hold any
# values, NaN included (a NaN that is still NaN afterwards has not changed), and any dtype.
# `f` may return anything: `None`, its argument, a view of it, a new tensor. Whatever `f`
# does, `x` itself must be left as it was.
# *Misconception*: a second name for a tensor (`before = t`) is not a saved copy, and what a
# function returns says nothing about what it did to its argument.

# %% solution 01_tensors-relu
def modifies_input(f, x):
    ### BEGIN SOLUTION
    argument = x.clone()
    f(argument)
    unchanged = (argument == x) | (argument.isnan() & x.isnan())   # NaN != NaN
    return not bool(unchanged.all())
    ### END SOLUTION

# %% test 01_tensors-relu-test points=2
def _writes_through_view(t):
    t[1:].mul_(2)                    # writes into t, returns nothing


def _swap(t):
    t[[0, 1]] = t[[1, 0]]            # the values move; their sum does not change


_plain = torch.tensor([-1.0, 2.0, -3.0, 4.0])
_with_nan = torch.tensor([1.0, float("nan"), -2.0])
_hint = ("[mc:inplace.detect] Call f on a copy of x and compare that copy, after the call, "
         "with x.")
_cases = [
    (_plain, "t.clamp_(min=0)", lambda t: t.clamp_(min=0), True,
     "[mc:inplace.alias-not-copy] clamp_ writes into its argument. If you kept `before = t`, "
     "that is a second name for the same tensor and sees the write: compare with a copy."),
    (_plain, "t.clamp(min=0)", lambda t: t.clamp(min=0), False,
     "[mc:inplace.output-not-input] clamp returns a NEW tensor with other values and leaves its "
     "argument alone: compare the argument after the call, not what f returns."),
    (_plain, "t[1:] (a view, no write)", lambda t: t[1:], False,
     "[mc:inplace.view-is-write] Returning a view of t shares memory but writes nothing: "
     "compare values, not storages."),
    (_plain, "t[1:].mul_(2), returning None", _writes_through_view, True,
     "[mc:inplace.alias-not-copy] A write through a view of t changes t even though f returns "
     "None: compare t's values with a copy taken before the call."),
    (_plain, "t[[0, 1]] = t[[1, 0]] (a swap)", _swap, True,
     "[mc:inplace.compare-sums] A swap changes the tensor but not its sum (nor its mean, nor its "
     "sorted values): compare element by element."),
    (_with_nan, "t (f changes nothing; x holds a NaN)", lambda t: t, False,
     "[mc:inplace.nan-unequal] NaN == NaN is False, so == and torch.equal call an untouched NaN "
     "changed: a NaN that is still NaN has not changed."),
]
for _x, _text, _f, _want, _why in _cases:
    _name = f"modifies_input(lambda t: {_text}, x)"
    _saved = _x.clone()
    with checks.explain_errors({"": _hint}, _name):
        _got = modifies_input(_f, _x)
    checks.expect_true(torch.allclose(_x, _saved, rtol=0, atol=0, equal_nan=True),
                       f"x after {_name} was modified in place: assignments like x[mask] = 0 and "
                       "methods with a trailing underscore (x.clamp_()) write into the caller's "
                       "tensor. [mc:inplace.edits-caller] Work on a copy (x.clone()).")
    with checks.because("[mc:inplace.detect] Return True or False."):
        checks.expect_type(_got, (bool, np.bool_), _name)
    checks.expect_true(bool(_got) == _want, f"{_name} returned {bool(_got)}. {_why}")
### BEGIN HIDDEN TESTS
from helpers.grading import probe


def cases():
    plain = torch.tensor([-1.0, 2.0, -3.0, 4.0])
    nan = torch.tensor([1.0, float("nan"), -2.0])
    m = torch.randn(3, 4, generator=torch.Generator().manual_seed(3))

    def writes_through_view(t):
        t[1:].mul_(2)

    def swap(t):
        t[[0, 1]] = t[[1, 0]]

    def zero_negatives(t):
        t[t < 0] = 0
        return t

    def write_column(t):
        t.t()[1] = 7.0

    def nudge(t):
        t.view(-1)[0] = torch.nextafter(t.view(-1)[0], torch.tensor(float("inf")))

    return [("t.clamp_(min=0)", lambda t: t.clamp_(min=0), plain),
            ("t.clamp(min=0)", lambda t: t.clamp(min=0), plain),
            ("t[1:] (a view, no write)", lambda t: t[1:], plain),
            ("t[1:].mul_(2), returning None", writes_through_view, plain),
            ("t[[0, 1]] = t[[1, 0]] (a swap)", swap, plain),
            ("t (f changes nothing; x holds a NaN)", lambda t: t, nan),
            ("an indexed assignment on a (3, 4) tensor", zero_negatives, m),
            ("a write through a transpose", write_column, m),
            ("f returning its argument untouched", lambda t: t, m),
            ("an in-place method that changes no value", lambda t: t.add_(0), m),
            ("clamp_ on a tensor with no negatives", lambda t: t.clamp_(min=0), m.abs()),
            ("a new tensor from a view", lambda t: t.view(-1).neg(), m),
            ("a one-element write through view(-1)", lambda t: t.view(-1)[5:6].fill_(-9.0), m),
            ("t.mul_(1) on a tensor holding a NaN", lambda t: t.mul_(1), nan),
            ("NaN written over the NaN", lambda t: t.__setitem__(1, float("nan")), nan),
            ("nan_to_num_ on a tensor holding a NaN", lambda t: t.nan_to_num_(0.0), nan),
            ("the values reversed in place (same sum)", lambda t: t.copy_(t.flip(0)),
             torch.tensor([1.0, 2.0, 3.0])),
            ("the smallest step up of one value", nudge, torch.tensor([1.0, 2.0, 3.0])),
            ("add_(1) on int64 values", lambda t: t.add_(1), torch.tensor([3, -1, 0])),
            ("abs_() on int64 values that are not negative", lambda t: t.abs_(), torch.tensor([3, 1, 0])),
            ("logical_not_() on a bool tensor", lambda t: t.logical_not_(), torch.tensor([True, False])),
            ("add_(0) on a 0-d tensor", lambda t: t.add_(0), torch.tensor(3.0)),
            ("neg_() on a 0-d tensor", lambda t: t.neg_(), torch.tensor(3.0))]


def run(f, x):
    said = modifies_input(f, x)
    return {"said": said, "x after": x.clone()}


for name, f, x in cases():
    probe.call(f"modifies_input for {name}", run, f, x)
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:inplace.detect] Call f on a copy of x and compare that copy, after the call, "
         "with x.")
_alias = ("[mc:inplace.alias-not-copy] clamp_ writes into its argument. If you kept `before = t`, "
          "that is a second name for the same tensor and sees the write: compare with a copy.")
_nan = ("[mc:inplace.nan-unequal] NaN == NaN is False, so == and torch.equal call an untouched NaN "
        "changed: a NaN that is still NaN has not changed.")
_sums = ("[mc:inplace.compare-sums] A swap changes the tensor but not its sum (nor its mean, nor its "
         "sorted values): compare element by element.")
_tolerance = ("[mc:inplace.tolerance] A change smaller than allclose's default tolerance is still "
              "a change: compare exactly, a NaN that stays NaN aside.")
_plain = torch.tensor([-1.0, 2.0, -3.0, 4.0])
_nan_x = torch.tensor([1.0, float("nan"), -2.0])
_m = torch.randn(3, 4, generator=torch.Generator().manual_seed(3))
for _name, _x, _want, _why in [
        ("t.clamp_(min=0)", _plain, True, _alias),
        ("t.clamp(min=0)", _plain, False, "[mc:inplace.output-not-input] clamp returns a NEW tensor "
                                          "with other values and leaves its argument alone: compare "
                                          "the argument after the call, not what f returns."),
        ("t[1:] (a view, no write)", _plain, False, "[mc:inplace.view-is-write] Returning a view of "
                                                    "t shares memory but writes nothing: compare "
                                                    "values, not storages."),
        ("t[1:].mul_(2), returning None", _plain, True, "[mc:inplace.alias-not-copy] A write through "
                                                        "a view of t changes t even though f returns "
                                                        "None: compare t's values with a copy taken "
                                                        "before the call."),
        ("t[[0, 1]] = t[[1, 0]] (a swap)", _plain, True, _sums),
        ("t (f changes nothing; x holds a NaN)", _nan_x, False, _nan),
        ("an indexed assignment on a (3, 4) tensor", _m, True, _hint),
        ("a write through a transpose", _m, True, _hint),
        ("f returning its argument untouched", _m, False, _hint),
        ("an in-place method that changes no value", _m, False, _hint),
        ("clamp_ on a tensor with no negatives", _m.abs(), False, _hint),
        ("a new tensor from a view", _m, False, _hint),
        ("a one-element write through view(-1)", _m, True, _hint),
        ("t.mul_(1) on a tensor holding a NaN", _nan_x, False, _nan),
        ("NaN written over the NaN", _nan_x, False, _nan),
        ("nan_to_num_ on a tensor holding a NaN", _nan_x, True, _hint),
        ("the values reversed in place (same sum)", torch.tensor([1.0, 2.0, 3.0]), True, _sums),
        ("the smallest step up of one value", torch.tensor([1.0, 2.0, 3.0]), True, _tolerance),
        ("add_(1) on int64 values", torch.tensor([3, -1, 0]), True, _hint),
        ("abs_() on int64 values that are not negative", torch.tensor([3, 1, 0]), False, _hint),
        ("logical_not_() on a bool tensor", torch.tensor([True, False]), True, _hint),
        ("add_(0) on a 0-d tensor", torch.tensor(3.0), False, _hint),
        ("neg_() on a 0-d tensor", torch.tensor(3.0), True, _hint)]:
    _key = f"modifies_input for {_name}"
    _seen = got.value(_key, {"": _hint})
    _after = _seen["x after"]
    checks.expect_true(isinstance(_after, torch.Tensor) and _after.shape == _x.shape and
                       torch.allclose(_after, _x, rtol=0, atol=0, equal_nan=True),
                       f"x after {_key} was modified in place: assignments like x[mask] = 0 and "
                       "methods with a trailing underscore (x.clamp_()) write into the caller's "
                       "tensor. [mc:inplace.edits-caller] Work on a copy (x.clone()).")
    with checks.because("[mc:inplace.detect] Return True or False."):
        checks.expect_type(_seen["said"], (bool, np.bool_), _key)
    checks.expect_true(bool(_seen["said"]) == _want, f"{_key} returned {bool(_seen['said'])}: it "
                       f"should say {_want}. {_why}")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 9: a history of weights that does not change afterwards (2 points)
#
# A training loop keeps a NumPy copy of its weights after every step, to plot them later.
# Run the cell: the three rows should read 1, 2 and 3.

# %%
w_hist = torch.zeros(3, requires_grad=True)
history = []
for step in range(3):
    with torch.no_grad():
        w_hist += 1                      # an optimizer step updates the weights in place
    history.append(w_hist.detach().cpu().numpy())
print(np.stack(history))

# %% [markdown]
# Find out why every row shows the last weights, then write `snapshot(t)` returning a NumPy
# array with `t`'s current values and dtype that later in-place changes to `t` leave as it
# is, for any tensor: one that requires grad, one on a GPU (the test uses a stand-in for a
# GPU tensor, so it runs here too), of any dtype.
# *Misconception*: `.numpy()` makes a copy (on the CPU it shares the tensor's memory).

# %% solution 01_tensors-numpy
def snapshot(t):
    ### BEGIN SOLUTION
    return t.detach().cpu().numpy().copy()
    ### END SOLUTION

# %% test 01_tensors-numpy-test points=2
import warnings

from helpers.standins import OnGPU as _OnGPU


def _quiet(function, *args):
    # a library's deprecation notice (np.array(tensor) raises one) is not the student's mistake
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args)


_bridge = ("[mc:numpy.bridge] .numpy() needs a tensor outside the graph (.detach()) and in "
           "CPU memory (.cpu()).")
_hints = {"requires grad": "[mc:numpy.needs-detach] t is part of an autograd graph: call "
                           ".detach() first.",
          "cuda": "[mc:numpy.gpu-needs-cpu] A GPU tensor's memory is not CPU memory: .numpy() "
                  "refuses it. Copy it with .cpu() first (a CPU tensor's .cpu() costs nothing).",
          "": _bridge}
_w = torch.ones(3, requires_grad=True)
with checks.explain_errors(_hints, "snapshot(w) for w requiring grad"):
    _arr = _quiet(snapshot, _w)
with checks.because("[mc:numpy.bridge] snapshot returns a NumPy array."):
    checks.expect_type(_arr, np.ndarray, "snapshot(w)")
with torch.no_grad():
    _w += 1
checks.expect_true(np.array_equal(_arr, np.ones(3)),
                   "After snapshot(w), an in-place update of w changed the array it returned. "
                   "[mc:numpy.shares-memory] On the CPU .numpy() makes no copy: the array shares "
                   "the tensor's memory, so a snapshot must own memory of its own.")
with checks.explain_errors(_hints, "snapshot(a GPU tensor)"):
    _arr = _quiet(snapshot, torch.arange(4.0).as_subclass(_OnGPU))
checks.expect_true(isinstance(_arr, np.ndarray) and np.array_equal(_arr, np.arange(4.0)),
                   "snapshot(a GPU tensor) did not give the array [0, 1, 2, 3]. "
                   "[mc:numpy.gpu-needs-cpu] Use .cpu() before .numpy().")
### BEGIN HIDDEN TESTS
import warnings

from helpers.grading import probe
from helpers.standins import OnGPU


def later_write(t, write):
    """snapshot(t), then a write into t: the array as it is after the write."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arr = snapshot(t)
    with torch.no_grad():
        write(t)
    return arr


probe.call("snapshot(w) for w requiring grad, then w += 1", later_write,
           torch.ones(3, requires_grad=True), lambda t: t.add_(1))
probe.call("snapshot(a GPU tensor)", later_write, torch.arange(4.0).as_subclass(OnGPU), lambda t: None)
probe.call("snapshot of a (2, 3) float32 w requiring grad", later_write,
           torch.randn(2, 3, generator=torch.Generator().manual_seed(4)).requires_grad_(), lambda t: None)
probe.call("snapshot of an int64 tensor, then t *= 10", later_write, torch.arange(4), lambda t: t.mul_(10))
probe.call("snapshot of a float16 tensor", later_write, torch.tensor([0.5, 1.5], dtype=torch.float16),
           lambda t: None)
### JUDGE
from helpers.grading.probe import got

_bridge = ("[mc:numpy.bridge] .numpy() needs a tensor outside the graph (.detach()) and in "
           "CPU memory (.cpu()).")
_hints = {"requires grad": "[mc:numpy.needs-detach] t is part of an autograd graph: call "
                           ".detach() first.",
          "cuda": "[mc:numpy.gpu-needs-cpu] A GPU tensor's memory is not CPU memory: .numpy() "
                  "refuses it. Copy it with .cpu() first (a CPU tensor's .cpu() costs nothing).",
          "": _bridge}
_shared = ("[mc:numpy.shares-memory] On the CPU .numpy() makes no copy: the array shares the "
           "tensor's memory, so a snapshot must own memory of its own.")
_kept = "[mc:numpy.dtype-kept] Do not convert: .numpy() keeps the tensor's dtype."
for _key, _want, _why in [
        ("snapshot(w) for w requiring grad, then w += 1", np.ones(3, dtype=np.float32), _shared),
        ("snapshot(a GPU tensor)", np.arange(4.0, dtype=np.float32),
         "[mc:numpy.gpu-needs-cpu] Use .cpu() before .numpy()."),
        ("snapshot of a (2, 3) float32 w requiring grad",
         torch.randn(2, 3, generator=torch.Generator().manual_seed(4)).numpy(), _kept),
        ("snapshot of an int64 tensor, then t *= 10", np.arange(4), _shared),
        ("snapshot of a float16 tensor", np.array([0.5, 1.5], dtype=np.float16), _kept)]:
    _arr = got.value(_key, _hints)
    with checks.because("[mc:numpy.bridge] snapshot returns a NumPy array."):
        checks.expect_type(_arr, np.ndarray, _key)
    checks.expect_true(_arr.dtype == _want.dtype, f"{_key} has dtype {_arr.dtype}, not the tensor's "
                       f"{_want.dtype}. {_kept}")
    checks.expect_true(_arr.shape == _want.shape and np.array_equal(_arr, _want),
                       f"{_key} does not hold the tensor's values as they were when it was taken. {_why}")
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Indexing, masks and gather
#
# Basic indexing (ints and slices) returns views. Indexing with a boolean mask or with
# integer tensors returns copies: a mask picks the elements where it is `True` (the result
# is 1-D), and two index tensors pair up element by element.
#
# `gather(dim, index)` follows one rule. For a 2-D input and `dim=1`:
# `out[i][j] = input[i][index[i][j]]`. So `index` must have as many dims as `input` (the
# output takes index's shape): to pick one entry per row, the labels (shape (2,)) become a
# column with `unsqueeze(1)` (shape (2, 1)), and `squeeze(1)` removes that column afterwards.

# %%
scores = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
print(scores[scores > 0.25])                              # a mask -> 1-D copy
labels = torch.tensor([1, 0])
print(scores[torch.arange(2), labels])                    # row i, column labels[i]
print(labels.unsqueeze(1).shape, scores.gather(1, labels.unsqueeze(1)))   # out[i][0] = scores[i][labels[i]]
print(scores.gather(1, labels.unsqueeze(1)).squeeze(1))   # the same as the pairing above
print(scores.gather(1, labels.int().unsqueeze(1)).squeeze(1))   # int32 indices: torch >= 2.8
print(scores[:, labels])                                  # NOT the same: every row, both columns
print(scores.max(dim=1))                                  # the largest entry per row, and where it is

# %% [markdown]
# ### Exercise 10: where does the label rank? (2 points)
#
# Top-k accuracy asks whether a row's label is among its k largest logits. Write
# `label_rank(logits, labels)` returning an integer tensor of shape (N,) whose entry i is
# the number of logits in row i that are strictly larger than the logit at the row's label
# (0 when the label's logit is the row's largest, even when another logit equals it).
# `logits` has shape (N, C) and `labels` shape (N,); no Python loop over the rows.
# *Misconception*: `argsort` gives ranks (it gives the positions of the sorted values), and
# one value per row of shape (N,) lines up with the columns of an (N, C) tensor, not with
# its rows.

# %% solution 01_tensors-rank
def label_rank(logits, labels):
    ### BEGIN SOLUTION
    at_label = logits.gather(1, labels.unsqueeze(1))     # (N, 1): one column
    return (logits > at_label).sum(dim=1)
    ### END SOLUTION

# %% test 01_tensors-rank-test points=2
_logits = torch.tensor([[0.1, 0.7, 0.2, 0.0],
                        [0.5, 0.3, 0.2, 0.9],
                        [0.4, 0.1, 0.8, 0.3],
                        [0.6, 0.6, 0.2, 0.1],
                        [0.3, 0.0, 0.5, 0.4]])
_labels = torch.tensor([2, 1, 2, 1, 3])
_hint = ("[mc:rank.definition] Take each row's logit at its label as a column (N, 1), compare "
         "it with the whole row (broadcasting gives (N, C)) and count the larger ones along dim 1.")
_columns = ("[mc:rank.row-values-as-columns] Comparing the (N, C) logits needs each row's own label "
            "logit lined up with that row: a (N,) tensor lines up with the COLUMNS, and "
            "logits[:, labels] is an (N, N) table of every row at every label.")
_name = "label_rank(logits, labels) for 5 rows of 4 classes"
with checks.explain_errors({"must match the size": _columns, "": _hint}, _name):
    _got = label_rank(_logits, _labels)
with checks.because("[mc:rank.shape] One integer per row: an integer tensor of shape (N,)."):
    checks.expect_type(_got, torch.Tensor, _name)
    checks.expect_shape(_got, (5,), _name)
    checks.expect_true(not _got.is_floating_point(), f"{_name} has dtype {_got.dtype}, not an integer one.")
_at = _logits[torch.arange(5), _labels].unsqueeze(1)
checks.reject(_got, {
    _logits.argsort(dim=1, descending=True)[torch.arange(5), _labels]:
        "[mc:rank.argsort-is-not-rank] argsort's entry j is the column of the j-th largest value, "
        "not the rank of column j: count the logits larger than the label's instead.",
    _logits.argsort(dim=1, descending=True, stable=True).argsort(dim=1)[torch.arange(5), _labels]:
        "[mc:rank.ties-by-position] A tie is broken by position: in the last row the label's 0.6 "
        "ties with the 0.6 before it, and no logit is strictly larger, so its rank is 0.",
    (_logits >= _at).sum(dim=1):
        "[mc:rank.counts-itself] >= counts the label's own logit too: the top label must get 0.",
    (_logits < _at).sum(dim=1):
        "[mc:rank.direction] This counts the SMALLER logits: the rank counts the larger ones."},
    _name)
### BEGIN HIDDEN TESTS
from helpers.grading import probe

probe.call("label_rank(logits, labels) for 5 rows of 4 classes", label_rank,
           torch.tensor([[0.1, 0.7, 0.2, 0.0], [0.5, 0.3, 0.2, 0.9], [0.4, 0.1, 0.8, 0.3],
                         [0.6, 0.6, 0.2, 0.1], [0.3, 0.0, 0.5, 0.4]]), torch.tensor([2, 1, 2, 1, 3]))
probe.call("label_rank on ties: [[1, 1, 0]] with labels 1 and 0, [[2, 5, 5, 1]] with 2, "
           "[[3, 1, 1, 1]] with 3, [[0.5, 0.5, 0.5]] with 2", lambda: [
               label_rank(torch.tensor([[1.0, 1.0, 0.0]]), torch.tensor([1])),
               label_rank(torch.tensor([[1.0, 1.0, 0.0]]), torch.tensor([0])),
               label_rank(torch.tensor([[2.0, 5.0, 5.0, 1.0]]), torch.tensor([2])),
               label_rank(torch.tensor([[3.0, 1.0, 1.0, 1.0]]), torch.tensor([3])),
               label_rank(torch.tensor([[0.5, 0.5, 0.5]]), torch.tensor([2]))])
gen = torch.Generator().manual_seed(7)
for n, c, ties in [(5, 5, False), (6, 3, False), (1, 4, False), (4, 1, False), (8, 5, True)]:
    scores = (torch.randint(0, 3, (n, c), generator=gen).float() if ties
              else torch.randn(n, c, generator=gen))
    probe.call(f"label_rank on ({n}, {c}) logits" + (" with many ties" if ties else ""),
               label_rank, scores, torch.randint(0, c, (n,), generator=gen))
### JUDGE
from helpers.grading.probe import got

_hint = ("[mc:rank.definition] Take each row's logit at its label as a column (N, 1), compare "
         "it with the whole row (broadcasting gives (N, C)) and count the larger ones along dim 1.")
_columns = ("[mc:rank.row-values-as-columns] Comparing the (N, C) logits needs each row's own label "
            "logit lined up with that row: a (N,) tensor lines up with the COLUMNS, and "
            "logits[:, labels] is an (N, N) table of every row at every label.")
_ties = ("[mc:rank.ties-by-position] A tie is broken by position: a logit EQUAL to the label's "
         "is not strictly larger, so it does not count, wherever it sits in the row.")


def _check(key, logits, labels, tie_message):
    got_rank = got.value(key, {"must match the size": _columns, "": _hint})
    with checks.because("[mc:rank.shape] One integer per row: an integer tensor of shape (N,)."):
        checks.expect_type(got_rank, torch.Tensor, key)
        checks.expect_shape(got_rank, (len(labels),), key)
        checks.expect_true(not got_rank.is_floating_point() and got_rank.dtype != torch.bool,
                           f"{key} has dtype {got_rank.dtype}, not an integer one.")
    rows = torch.arange(len(labels))
    at = logits[rows, labels].unsqueeze(1)
    want = torch.stack([(logits[i] > logits[i, labels[i]]).sum() for i in range(len(labels))])
    wrong = {
        logits.argsort(dim=1, descending=True)[rows, labels]:
            "[mc:rank.argsort-is-not-rank] argsort's entry j is the column of the j-th largest "
            "value, not the rank of column j: count the logits larger than the label's instead.",
        (logits >= at).sum(dim=1):
            "[mc:rank.counts-itself] >= counts the label's own logit too: the top label must get 0.",
        (logits < at).sum(dim=1):
            "[mc:rank.direction] This counts the SMALLER logits: the rank counts the larger ones."}
    checks.reject(got_rank.long(), {w: why for w, why in wrong.items() if not torch.equal(w, want)}, key)
    checks.expect_true(torch.equal(got_rank.long(), want), f"{key} is wrong. " + tie_message)


_check("label_rank(logits, labels) for 5 rows of 4 classes",
       torch.tensor([[0.1, 0.7, 0.2, 0.0], [0.5, 0.3, 0.2, 0.9], [0.4, 0.1, 0.8, 0.3],
                     [0.6, 0.6, 0.2, 0.1], [0.3, 0.0, 0.5, 0.4]]), torch.tensor([2, 1, 2, 1, 3]),
       "[mc:rank.ties-by-position] A tie is broken by position: in the last row the label's 0.6 "
       "ties with the 0.6 before it, and no logit is strictly larger, so its rank is 0.")
_key = ("label_rank on ties: [[1, 1, 0]] with labels 1 and 0, [[2, 5, 5, 1]] with 2, "
        "[[3, 1, 1, 1]] with 3, [[0.5, 0.5, 0.5]] with 2")
_found = got.value(_key, {"must match the size": _columns, "": _hint})
for _said, _logits, _label, _want in zip(
        _found, ([[1.0, 1.0, 0.0]], [[1.0, 1.0, 0.0]], [[2.0, 5.0, 5.0, 1.0]], [[3.0, 1.0, 1.0, 1.0]],
                 [[0.5, 0.5, 0.5]]), (1, 0, 2, 3, 2), (0, 0, 0, 1, 0)):
    checks.expect_true(isinstance(_said, torch.Tensor) and _said.shape == (1,) and _said.item() == _want,
                       f"label_rank({_logits}, [{_label}]) gave {_said}, not [{_want}]. {_ties}")
_gen = torch.Generator().manual_seed(7)
for _n, _c, _many in [(5, 5, False), (6, 3, False), (1, 4, False), (4, 1, False), (8, 5, True)]:
    _l = (torch.randint(0, 3, (_n, _c), generator=_gen).float() if _many
          else torch.randn(_n, _c, generator=_gen))
    _y = torch.randint(0, _c, (_n,), generator=_gen)
    _check(f"label_rank on ({_n}, {_c}) logits" + (" with many ties" if _many else ""), _l, _y,
           _ties if _many else _hint)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Joining, selecting and contracting: cat, stack, where, einsum, index_add_
#
# Two ways to join a list of tensors: `torch.cat(tensors, dim)` joins them along an axis
# they already have, `dim`; `torch.stack(tensors, dim)` joins tensors of one shape along a
# new axis, `dim`.
#
# **Quick quiz (predict, then run the cell after the test).** With `a = torch.zeros(2, 5)`,
# what are the shapes of `torch.stack([a, a, a], dim=1)` and `torch.cat([a, a, a], dim=1)`?
# Set `quiz_join` to a tuple of two shapes (tuples of integers), in that order.

# %% solution 01_tensors-quiz-join
### BEGIN SOLUTION
quiz_join = ((2, 3, 5), (2, 15))
### END SOLUTION

# %% test 01_tensors-quiz-join-test points=1
with checks.because("[mc:join.quiz-format] Answer with a tuple of two shapes, each a tuple of "
                    "integers: (the stack's shape, the cat's shape)."):
    checks.answer("01_tensors-quiz-join", quiz_join, "quiz_join", kind=(tuple, list))
    checks.expect_true(len(quiz_join) == 2 and all(isinstance(s, (tuple, list, torch.Size))
                                                   for s in quiz_join),
                       f"quiz_join = {quiz_join!r} is not two shapes.")
### BEGIN HIDDEN TESTS
from helpers.grading import probe
probe.answer("quiz_join")
### JUDGE
from helpers.grading.probe import got
_said = got["quiz_join"]
with checks.because("[mc:join.quiz-format] Answer with a tuple of two shapes, each a tuple of "
                    "integers: (the stack's shape, the cat's shape)."):
    checks.answer("01_tensors-quiz-join", _said, "quiz_join", kind=(tuple, list))
    checks.expect_true(len(_said) == 2 and all(type(s) in (tuple, list, torch.Size) for s in _said)
                       and all(type(n) is int for s in _said for n in s),
                       f"quiz_join = {_said!r} is not two shapes.")
checks.expect_true(tuple(_said[0]) == (2, 3, 5),
                   "[mc:join.rule] stack gives each (2, 5) tensor a new axis of size 1 at position "
                   "dim = 1, then joins the three along it.")
checks.expect_true(tuple(_said[1]) == (2, 15),
                   "[mc:join.rule] cat joins along an axis the tensors have: the sizes on dim 1 "
                   "add up, and the others stay.")
### END HIDDEN TESTS

# %% wrong 01_tensors-quiz-join
{
    ((3, 2, 5), (2, 15)): "[mc:join.stack-in-front] stack puts the new axis at position dim, "
                          "here 1: between the 2 and the 5, not in front.",
    ((2, 5, 3), (2, 15)): "[mc:join.stack-at-end] dim=1 is the position of the new axis in "
                          "the RESULT: the 3 copies sit between the 2 rows and the 5 columns.",
    ((2, 3, 5), (6, 5)): "[mc:join.cat-axis] cat along dim=1 joins the columns: the sizes on "
                         "dim 1 add up (5 + 5 + 5), the 2 rows stay.",
    ((2, 15), (2, 3, 5)): "[mc:join.cat-vs-stack] The two are swapped: stack makes a new axis "
                          "(one more dim), cat joins along an existing one.",
    ((2, 15), (2, 15)): "[mc:join.cat-vs-stack] stack does not join along an existing axis: it "
                        "adds a new one, of size 3, at position 1.",
}

# %% [markdown]
# Both, and two more: compare the first two lines with your answer. cat's sizes along
# `dim` add up and the others must match; stack's new axis, of size len(tensors), sits at
# position `dim` of the result.

# %%
a = torch.zeros(2, 5)
for name, t in [("stack dim=1", torch.stack([a, a, a], dim=1)), ("cat dim=1", torch.cat([a, a, a], dim=1)),
                ("stack dim=0", torch.stack([a, a, a])), ("cat dim=0", torch.cat([a, a, a]))]:
    print(f"{name:12} {tuple(t.shape)}")

# %% [markdown]
# `torch.where(condition, x, y)` takes x where the condition holds and y elsewhere, with all
# three broadcast together. `torch.einsum` names every axis by a letter: letters that appear
# in the inputs but not after `->` are summed over, so `"nd,md->nm"` is every dot product of
# a row of one matrix with a row of the other, and `"ij,jk->ik"` a matrix product.

# %%
v = torch.tensor([-2.0, 0.5, 3.0])
print("where:", torch.where(v > 0, v, 0.0), " clipped at 1:", torch.where(v > 1, 1.0, v))
left, right = torch.arange(6.0).view(2, 3), torch.arange(12.0).view(4, 3)
print("einsum nd,md->nm:", tuple(torch.einsum("nd,md->nm", left, right).shape),
      "equals left @ right.T:", torch.equal(torch.einsum("nd,md->nm", left, right), left @ right.T))

# %% [markdown]
# **Sums per class.** With features `feats` (N, D) and integer `labels` (N,), the sum of
# the features of each class is one call: `index_add_(0, labels, feats)` adds row i of
# `feats` into row `labels[i]` of the target, so rows with the same label pile up in one
# place. `scatter_add_` does the same with an index of the source's shape, and
# `torch.bincount` counts the rows per class, which turns the sums into means.

# %%
feats = torch.tensor([[1.0, 0.0], [2.0, 2.0], [0.0, 4.0], [3.0, 1.0]])
labels = torch.tensor([2, 0, 2, 0])
sums = torch.zeros(3, 2).index_add_(0, labels, feats)
same = torch.zeros(3, 2).scatter_add_(0, labels[:, None].expand(-1, 2), feats)
counts = torch.bincount(labels, minlength=3)
print(sums, "\nscatter_add_ agrees:", torch.equal(sums, same), "| rows per class:", counts)
print("class means (class 1 has no rows: 0/0 is nan):", sums / counts[:, None])

# %% [markdown]
# ## 9. Devices and device-agnostic code
#
# A tensor lives on one device; operations need their operands on the same device.
# Choose the device once and move data and models with `.to(device)`: the same notebook
# then runs on a laptop and on a GPU machine.

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
xd = torch.randn(3, 3).to(device)
print(device, xd.device, (xd @ xd).device)

# %% [markdown]
# Floating-point addition is not associative, so a sum computed in a different order (as
# GPU kernels and multi-threaded CPU kernels do) can differ in the last bits. Results of
# two *different* computations are compared with a tolerance (`torch.allclose`); exact
# equality (`torch.equal`) is for results that must match bit for bit, such as integers or
# the same computation repeated (this notebook's tests use both that way).

# %%
vals = torch.tensor([1e8, 1.0, -1e8, 1.0])
print((vals[0] + vals[1]) + vals[2] + vals[3], (vals[0] + vals[2]) + vals[1] + vals[3])
big_sum = torch.randn(100_000, generator=torch.Generator().manual_seed(6))
one_way, other_way = big_sum.sum(), big_sum.flip(0).cumsum(0)[-1]
print(one_way.item(), other_way.item(), " equal:", torch.equal(one_way, other_way),
      " allclose:", torch.allclose(one_way, other_way, atol=1e-3))

# %% [markdown]
# ## 10. Common mistakes
#
# Each one reproduced live, then fixed.
#
# **`.view` after `permute`/`transpose`.** The permuted tensor is not contiguous.

# %%
img = torch.randn(2, 3, 4, 4)
with checks.expect_error(RuntimeError):
    img.permute(0, 2, 3, 1).view(2, -1)
print("fix:", img.permute(0, 2, 3, 1).reshape(2, -1).shape, img.permute(0, 2, 3, 1).contiguous().view(2, -1).shape)

# %% [markdown]
# **float64 from NumPy meets float32 weights**: a matrix product refuses the mix.

# %%
features = torch.from_numpy(np.random.default_rng(0).random(3))
weights = torch.ones(3)
with checks.expect_error(RuntimeError):
    features @ weights
print("fix:", features.float() @ weights)

# %% [markdown]
# **uint8 arithmetic wraps around** instead of saturating: convert first.

# %%
bright = torch.tensor([200], dtype=torch.uint8)
print("silent:", bright * 2, " fix:", bright.float() * 2 / 255)

# %% [markdown]
# **Writing in place into an expanded tensor**: with stride 0, many elements are one cell.

# %%
grid = torch.zeros(1, 3).expand(2, 3)
with checks.expect_error(RuntimeError):
    grid.add_(1)
print("fix:", grid.clone().add_(1))

# %% [markdown]
# ## Summary
#
# - A tensor is storage + shape + strides + offset; element $i$ sits at
#   offset + $\sum_k i_k s_k$, and contiguous means the strides of a fresh tensor of its
#   shape (row-major; the stride of a size-1 dim does not count), wherever it starts.
# - View-type ops (`view`, `transpose`, `permute`, slicing, `expand`) share storage;
#   `clone`, fancy indexing, masks and a `reshape` that cannot view all copy. Two views of
#   one storage touch only where they use the same cells.
# - Broadcasting aligns on the right and needs equal sizes or 1; a stretched axis is a
#   stride 0, so nothing is copied. Check shapes before a reduction or a comparison: an
#   outer product raises no error.
# - A reduction without `keepdim` lines its result up with the last axes: `P / P.sum(1)`
#   divides by the wrong sums without an error. A mixed operation's dtype follows
#   `torch.result_type`: the kind first, then dimensioned tensors over 0-d ones over numbers.
# - `cat` joins along an axis, `stack` along a new one; `where` selects, `einsum` contracts
#   named axes, `index_add_` sums rows into groups.
# - Trailing underscores write in place; `from_numpy`/`.numpy()` share memory;
#   `.detach().cpu().numpy()` works for any tensor, and `.copy()` makes it a snapshot; pick
#   the device once.
#
# **Next:** 02_autograd shows what PyTorch records when tensors flow through operations,
# and how `.backward()` turns that record into gradients.
#
# **Run time.** The cell below says how long this notebook took from its first cell to here
# (`benchmarks/notebooks.py` measures the same, top to bottom, without a browser).

# %%
print(f"this notebook ran in {time.perf_counter() - notebook_started:.1f} s")
