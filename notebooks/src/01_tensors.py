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
# - predict a broadcast shape or the axis PyTorch rejects, and spot the silent outer product;
# - use in-place ops, the NumPy bridge, indexing, masks and `gather` safely, on any device.
#
# **Prerequisites**: Python and a little NumPy. No GPU needed.

# %%
import math

import numpy as np
import torch

import helpers.broadcasting
import helpers.strides
from helpers import checks

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
# array keeps float64, which is slower and later clashes with float32 weights. Integers
# default to int64, the dtype PyTorch expects for indices and class labels. Images usually
# arrive as uint8 (0…255).

# %%
print(torch.tensor([1.0, 2.0]).dtype, np.array([1.0, 2.0]).dtype,
      torch.from_numpy(np.array([1.0, 2.0])).dtype)
print(torch.tensor([1, 2]).dtype, torch.zeros(2, 2, dtype=torch.uint8).dtype,
      "uint8 range", torch.iinfo(torch.uint8).min, "…", torch.iinfo(torch.uint8).max)

# %% [markdown]
# The two 16-bit float formats spend their bits differently. float16 has 5 exponent bits
# and 10 fraction bits: finer steps, small range. bfloat16 keeps float32's 8 exponent bits
# and only 7 fraction bits: float32's range, coarse steps. The cell prints each format's
# largest value and its `eps` (the gap between 1 and the next representable number).

# %%
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    info = torch.finfo(dtype)
    fraction = -round(math.log2(info.eps))           # eps = 2 ** -(fraction bits)
    exponent = info.bits - 1 - fraction              # the rest, after the sign bit
    print(f"{str(dtype):15} exponent bits {exponent}  fraction bits {fraction:2}  "
          f"max {info.max:.6g}   eps {info.eps:.3g}")
big = torch.tensor(70000.0)
print("70000 as float16:", big.to(torch.float16).item(), " as bfloat16:", big.to(torch.bfloat16).item())
step = torch.tensor(1 + 1 / 256)
print("1 + 1/256 as float16:", step.to(torch.float16).item(), " as bfloat16:", step.to(torch.bfloat16).item())

# %% [markdown]
# **Quick quiz.** Which 16-bit format can store 70000.0 without overflowing to `inf`?
# Set `quiz_dtype` to the string `"float16"` or `"bfloat16"`.

# %% solution 01_tensors-quiz-dtype
### BEGIN SOLUTION
quiz_dtype = "bfloat16"
### END SOLUTION

# %% test 01_tensors-quiz-dtype-test points=1
checks.expect_type(quiz_dtype, (str, torch.dtype), "quiz_dtype")
assert str(quiz_dtype).replace("torch.", "") in ("float16", "bfloat16"), \
    "quiz_dtype should be 'float16' or 'bfloat16'"
### BEGIN HIDDEN TESTS
_fits = "float16" if torch.finfo(torch.float16).max >= 70000 else "bfloat16"
assert str(quiz_dtype).replace("torch.", "") == _fits, (
    f"float16's largest finite value is {torch.finfo(torch.float16).max:.0f}: it trades range "
    "for precision, while bfloat16 keeps float32's exponent range.")
### END HIDDEN TESTS

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

# %%
x = torch.arange(6).view(2, 3)
print(x)
print("stride", x.stride(), " storage offset", x.storage_offset(), " contiguous", x.is_contiguous())
i, j = 1, 2
position = x.storage_offset() + i * x.stride(0) + j * x.stride(1)
storage = x.as_strided((x.numel(),), (1,), 0)    # the storage read as a flat tensor
print(f"element ({i}, {j}) sits at storage position {position}; storage[{position}] = "
      f"{storage[position].item()}, x[{i}, {j}] = {x[i, j].item()}")

# %% [markdown]
# The **stride explorer** shows the same thing for any shape and up to two operations:
# the numbers in the logical grid are storage positions, matching colours mean the same
# memory, and the formula is evaluated for the index you pick. Try `transpose`, then a
# `view` of the result, or `expand` on a shape with a 1 in it. The default shows the
# transpose of the 2×3 tensor above: index (2, 1) of the transpose is element (1, 2) of
# the original, still at position 5.

# %%
helpers.strides.explore()

# %% [markdown]
# **Quick quiz.** A contiguous tensor has shape (4, 5). At which storage position is
# element (2, 1)? Set `quiz_offset` to an integer.

# %% solution 01_tensors-quiz-offset
### BEGIN SOLUTION
quiz_offset = 11
### END SOLUTION

# %% test 01_tensors-quiz-offset-test points=1
checks.expect_type(quiz_offset, int, "quiz_offset")
checks.reject(quiz_offset, {
    7: "You used the strides in reverse order: for a contiguous (4, 5) tensor, "
       "dim 0 moves by a whole row and dim 1 by 1.",
    3: "Each index is multiplied by its dimension's stride, not simply added."}, "quiz_offset")
### BEGIN HIDDEN TESTS
assert quiz_offset == torch.arange(20).view(4, 5)[2, 1].item()
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise: strides by hand
#
# Write `row_major_strides(shape)` returning the strides (a tuple) of a contiguous tensor of
# that shape, without creating a tensor. *Misconception it targets*: the last dimension,
# not the first, moves by one cell.

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
import math  # the test needs it even if the student removed the import above

for _shape in [(2, 3), (4, 5, 6), (7,), (2, 1, 3)]:
    _got = row_major_strides(_shape)
    checks.expect_type(_got, (tuple, list, torch.Size), f"row_major_strides({_shape})")
    _column_major = tuple(math.prod(_shape[:k]) for k in range(len(_shape)))
    _next_only = tuple(_shape[1:]) + (1,)
    checks.expect_equal(tuple(_got), torch.empty(_shape).stride(), f"row_major_strides({_shape})", wrong={
        _column_major: "These are column-major (Fortran) strides: in PyTorch the last dim moves by 1.",
        _next_only: "A dim's stride is the product of all the sizes after it, not just the next one."})
### BEGIN HIDDEN TESTS
for _shape in [(1,), (3, 1), (2, 3, 4, 5), (5, 1, 1, 2), (6, 7, 8)]:
    assert tuple(row_major_strides(_shape)) == torch.empty(_shape).stride(), _shape
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise: where does an element live?
#
# Write `storage_position(t, index)` returning the storage position (an int) of `t[index]`
# for *any* tensor `t`, contiguous or not, using `t.stride()` and `t.storage_offset()`.
# *Misconception*: a slice starts somewhere inside its storage, not at cell 0.

# %% solution 01_tensors-offset
def storage_position(t, index):
    ### BEGIN SOLUTION
    return t.storage_offset() + sum(i * s for i, s in zip(index, t.stride()))
    ### END SOLUTION

# %% test 01_tensors-offset-test points=2
_base = torch.arange(24).view(4, 6)          # value == storage position
_t = _base[1:, 2:].t()
_index = (2, 1)
_want = _t[_index].item()
checks.expect_equal(storage_position(_t, _index), _want, "storage_position(t, (2, 1))", wrong={
    _want - _t.storage_offset(): "You left out t.storage_offset(): a slice starts partway into its storage.",
    _t.storage_offset() + torch.arange(_t.numel()).view(_t.shape)[_index].item():
        "You used the strides of a contiguous tensor: use t.stride(), which a transpose or slice changes."})
### BEGIN HIDDEN TESTS
_g = torch.Generator().manual_seed(11)
_store = torch.arange(5 * 6 * 7).view(5, 6, 7)
for _view in [_store, _store.permute(2, 0, 1), _store[1:, ::2, 3:], _store[2].t(), _store[..., 1:].transpose(0, 2)]:
    for _ in range(5):
        _idx = tuple(int(torch.randint(n, (1,), generator=_g)) for n in _view.shape)
        assert storage_position(_view, _idx) == _view[_idx].item(), (_view.shape, _idx)
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
print("same storage (view, slice):",
      v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(),
      s.untyped_storage().data_ptr() == base.untyped_storage().data_ptr())
c = base.clone()
f = base[[0, 2, 4]]                         # indexing with a list or tensor copies
print("same storage (clone, fancy index):",
      c.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(),
      f.untyped_storage().data_ptr() == base.untyped_storage().data_ptr())

# %% [markdown]
# A transpose only swaps strides, so its elements are no longer in row-major order:
# it is **not contiguous**, and `.view` cannot merge its dimensions (there is no single
# stride that walks them). `.reshape` returns a view when one exists and silently copies
# otherwise; `.contiguous()` copies into a fresh row-major storage.

# %%
m = torch.arange(6).view(2, 3)
mt = m.t()
print("m.t() strides", mt.stride(), " contiguous", mt.is_contiguous())
with checks.expect_error(RuntimeError):
    mt.view(6)
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
# **Quick quiz.** Is `torch.zeros(3, 4).t()` contiguous? Set `quiz_transposed_contiguous`
# to `True` or `False` (predict it before running any code).

# %% solution 01_tensors-quiz-contiguous
### BEGIN SOLUTION
quiz_transposed_contiguous = False
### END SOLUTION

# %% test 01_tensors-quiz-contiguous-test points=1
checks.expect_type(quiz_transposed_contiguous, bool, "quiz_transposed_contiguous")
### BEGIN HIDDEN TESTS
assert quiz_transposed_contiguous == torch.zeros(3, 4).t().is_contiguous(), (
    "A transpose swaps the strides to (1, 4): the last dim no longer moves by 1.")
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise: is it a view?
#
# Write `shares_storage(a, b)` returning `True` when tensors `a` and `b` live in the same
# storage (one is a view of the other) and `False` otherwise. *Misconception*: equal
# `data_ptr()` is not the test, since a slice starts at a different element of the same storage.

# %% solution 01_tensors-views
def shares_storage(a, b):
    ### BEGIN SOLUTION
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    ### END SOLUTION

# %% test 01_tensors-views-test points=2
_x = torch.arange(6.0)
checks.expect_equal(shares_storage(_x[2:], _x), True, "shares_storage(x[2:], x)", wrong={
    False: "x[2:] begins two elements in, so its data_ptr() differs, yet it is a view of x: "
           "compare the storages, not the first elements."})
checks.expect_equal(shares_storage(_x.clone(), _x), False, "shares_storage(x.clone(), x)")
### BEGIN HIDDEN TESTS
_y = torch.arange(12.0).view(3, 4)
assert bool(shares_storage(_y.t(), _y))
assert bool(shares_storage(_y[1:, 2:], _y)) and bool(shares_storage(_y[:1].expand(5, 4), _y))
assert bool(shares_storage(_y.view(12)[5:], _y.t()))
assert not bool(shares_storage(_y[[0, 2]], _y)) and not bool(shares_storage(_y.t().contiguous(), _y))
assert not bool(shares_storage(_y[_y > 3], _y)) and not bool(shares_storage(torch.arange(12.0), _y))
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
# The **broadcasting explorer** lays two shapes out right-aligned and gives each axis a
# verdict (equal, stretched 1, mismatch) and the result, or the axis PyTorch rejects.
# Type shapes such as `64, 1` and `768`, or `3` and `4`.

# %%
helpers.broadcasting.explore()

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
# **Quick quiz.** How many elements does `torch.zeros(1, 3) + torch.zeros(2, 1)` have?
# Set `quiz_numel` to an integer (work it out from the rule, not by running it).

# %% solution 01_tensors-quiz-broadcast
### BEGIN SOLUTION
quiz_numel = 6
### END SOLUTION

# %% test 01_tensors-quiz-broadcast-test points=1
checks.expect_type(quiz_numel, int, "quiz_numel")
checks.reject(quiz_numel, {
    3: "Each axis of the result takes the larger size of the two, so both size-1 axes are stretched.",
    4: "Broadcasting does not add up elements: each axis takes the larger size of the two."}, "quiz_numel")
### BEGIN HIDDEN TESTS
assert quiz_numel == (torch.zeros(1, 3) + torch.zeros(2, 1)).numel()
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise: the broadcasting rule
#
# Write `broadcast_shape(a, b)` taking two shapes (tuples of positive ints) and returning the
# broadcast result as a tuple, or raising `ValueError` when they are incompatible.
# *Misconception*: shapes are compared from the right, not from the left.

# %% solution 01_tensors-broadcast
def broadcast_shape(a, b):
    ### BEGIN SOLUTION
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"sizes {x} and {y} differ and neither is 1")
        out.append(y if x == 1 else x)
    return tuple(out)
    ### END SOLUTION

# %% test 01_tensors-broadcast-test points=2
for _a, _b in [((2, 3), (3,)), ((64, 1), (768,)), ((1, 3), (2, 1))]:
    with checks.explain_errors({"": "These shapes do broadcast: align them on the right "
                                    "(compare the last sizes first)."}, f"broadcast_shape({_a}, {_b})"):
        _got = broadcast_shape(_a, _b)
    _want = tuple(torch.broadcast_shapes(_a, _b))
    if len(_got) == len(_want) and any(g < w for g, w in zip(_got, _want)):
        raise checks.CheckFailed(f"broadcast_shape({_a}, {_b}) is {tuple(_got)}, expected {_want}: a size-1 "
                                 "axis is stretched to the other size, so take the larger one.")
    checks.expect_equal(tuple(_got), _want, f"broadcast_shape({_a}, {_b})")
checks.expect_raises(ValueError, broadcast_shape, (3,), (4,), name="broadcast_shape((3,), (4,))",
                     why="3 and 4 differ and neither is 1, so PyTorch refuses them.")
### BEGIN HIDDEN TESTS
_cases = [((5, 1, 4), (3, 1)), ((8, 1, 6, 1), (7, 1, 5)), ((1,), (2, 3, 4)), ((2, 3, 4), (2, 3, 4)),
          ((4, 1), (1, 4)), ((2, 3), (3, 2)), ((5, 2), (4, 5, 1)), ((3, 1, 2), (4, 2, 2))]
for _a, _b in _cases:
    try:
        _want = tuple(torch.broadcast_shapes(_a, _b))
    except RuntimeError:
        try:
            broadcast_shape(_a, _b)
        except ValueError:
            continue
        raise AssertionError(f"broadcast_shape({_a}, {_b}) should raise ValueError")
    assert tuple(broadcast_shape(_a, _b)) == _want, (_a, _b)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise: fix the outer-product bug
#
# `pred_64` has shape (64,) and `target_64` shape (64, 1). Set `mse_fixed` to their mean
# squared error: one squared difference per sample, averaged (a 0-d tensor or a float).

# %%
_gen = torch.Generator().manual_seed(0)
pred_64 = torch.randn(64, generator=_gen)
target_64 = torch.randn(64, 1, generator=_gen)

# %% solution 01_tensors-outer
### BEGIN SOLUTION
mse_fixed = ((pred_64 - target_64.squeeze(1)) ** 2).mean()
### END SOLUTION

# %% test 01_tensors-outer-test points=2
if isinstance(mse_fixed, torch.Tensor) and mse_fixed.dim() > 0:
    raise checks.CheckFailed(
        f"mse_fixed has shape {tuple(mse_fixed.shape)}, expected one number (shape ()). Beware: "
        f"pred_64 - target_64 has shape {tuple((pred_64 - target_64).shape)}, an outer product of "
        "every prediction with every target, not one difference per sample.")
checks.reject_close(mse_fixed, {((pred_64 - target_64) ** 2).mean():
    "This is the mean over a (64, 64) outer product of every prediction with every target: "
    "make both shapes (64,) before subtracting."}, "mse_fixed")
### BEGIN HIDDEN TESTS
_g = torch.Generator().manual_seed(0)
_p, _t = torch.randn(64, generator=_g), torch.randn(64, 1, generator=_g)
checks.expect_close(float(mse_fixed), ((_p - _t[:, 0]) ** 2).mean().item(), "mse_fixed")
### END HIDDEN TESTS

# %% [markdown]
# ## 5. The shape puzzle
#
# A batch of images has shape (32, 3, 224, 224): batch, channels, height, width. Three
# common reshapes (check the arithmetic in the cell below):
# - `flat`: one row per image for a linear head, shape (32, 150528);
# - `tokens`: one token per pixel holding its 3 channel values, shape (32, 50176, 3), so
#   that `tokens[b, h * 224 + w, c] == images[b, c, h, w]`;
# - `pooled`: global average pooling, the mean of each channel over the image, shape (32, 3).
#
# *Misconception*: reshaping is not transposing. A reshape keeps the memory order, so the
# channels must be moved last before pixels can become tokens.

# %%
print(3 * 224 * 224, 224 * 224)
images = torch.randn(32, 3, 224, 224, generator=torch.Generator().manual_seed(1))

# %% solution 01_tensors-shapes
### BEGIN SOLUTION
flat = images.reshape(32, -1)
tokens = images.permute(0, 2, 3, 1).reshape(32, -1, 3)
pooled = images.mean(dim=(2, 3))
### END SOLUTION

# %% test 01_tensors-shapes-test points=3
checks.expect_shape(flat, (32, 150528), "flat")
checks.expect_shape(tokens, (32, 50176, 3), "tokens")
checks.reject(tokens, {images.reshape(32, 50176, 3):
    "tokens only regroups memory in its stored order, so each 'pixel' mixes values of one channel: "
    "permute the channels last before reshaping."}, "tokens")
checks.expect_shape(pooled, (32, 3), "pooled")
### BEGIN HIDDEN TESTS
_im = torch.randn(32, 3, 224, 224, generator=torch.Generator().manual_seed(1))
assert torch.equal(flat, _im.flatten(1))
assert torch.equal(tokens, _im.flatten(2).transpose(1, 2))
checks.expect_close(pooled, _im.flatten(2).mean(-1), "pooled", rtol=1e-4, atol=1e-6)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. In-place operations and the NumPy bridge
#
# A method with a trailing underscore (`add_`, `clamp_`, `zero_`) and an indexed
# assignment (`x[mask] = 0`) write into the existing storage: every view of it sees the
# change. That saves memory but surprises whoever still holds the tensor.

# %%
t = torch.tensor([1.0, -2.0, 3.0])
alias = t.view(3)
t.clamp_(min=0)
print(t, alias)
u = torch.tensor([1.0, -2.0, 3.0])
print(u.clamp(min=0), u)                     # out of place: u is unchanged

# %% [markdown]
# `torch.from_numpy(arr)` and `tensor.numpy()` share memory with the array (CPU only);
# `torch.tensor(arr)` copies. A tensor that is on a GPU or part of an autograd graph must
# be brought back first: `.detach().cpu().numpy()`.

# %%
arr = np.zeros(3)
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = 5.0
print("from_numpy sees the change:", shared, " torch.tensor does not:", copied)
w = torch.ones(2, requires_grad=True)
with checks.expect_error(RuntimeError):
    w.numpy()
print(w.detach().cpu().numpy())

# %% [markdown]
# ### Exercise: ReLU without side effects
#
# Write `relu_copy(x)` returning a new tensor equal to `x` with its negative entries set to
# 0, **leaving `x` unchanged**. *Misconception*: `x[x < 0] = 0` edits the caller's tensor.

# %% solution 01_tensors-relu
def relu_copy(x):
    ### BEGIN SOLUTION
    return torch.where(x > 0, x, torch.zeros_like(x))
    ### END SOLUTION

# %% test 01_tensors-relu-test points=2
_x = torch.tensor([-1.0, 2.0, -3.0, 4.0])
_saved = _x.clone()
_out = relu_copy(_x)
checks.expect_untouched(_x, _saved, "x after relu_copy(x)")
checks.expect_shape(_out, (4,), "relu_copy(x)")
### BEGIN HIDDEN TESTS
_x = torch.randn(5, 7, generator=torch.Generator().manual_seed(3))
_saved = _x.clone()
_out = relu_copy(_x)
assert torch.equal(_x, _saved)
assert torch.equal(_out, torch.nn.functional.relu(_saved))
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise: back to NumPy from anywhere
#
# Write `to_numpy(t)` returning a NumPy array with `t`'s values and dtype, for any tensor:
# one that requires grad, or one on a GPU. *Misconception*: `.numpy()` alone works only
# for CPU tensors outside the autograd graph.

# %% solution 01_tensors-numpy
def to_numpy(t):
    ### BEGIN SOLUTION
    return t.detach().cpu().numpy()
    ### END SOLUTION

# %% test 01_tensors-numpy-test points=2
_w = torch.ones(3, requires_grad=True)
with checks.explain_errors({"requires grad": "t is part of an autograd graph: call .detach() "
                                            "first (and .cpu() for a GPU tensor)."}, "to_numpy(w)"):
    _arr = to_numpy(_w)
checks.expect_type(_arr, np.ndarray, "to_numpy(w)")
### BEGIN HIDDEN TESTS
_w = torch.randn(2, 3, generator=torch.Generator().manual_seed(4)).requires_grad_()
_arr = to_numpy(_w * 2)
assert isinstance(_arr, np.ndarray) and _arr.dtype == np.float32
assert np.array_equal(_arr, (_w.detach() * 2).numpy())
assert to_numpy(torch.arange(4)).dtype == np.int64
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Indexing, masks and gather
#
# Basic indexing (ints and slices) returns views. Indexing with a boolean mask or with
# integer tensors returns copies: a mask picks the elements where it is `True` (the result
# is 1-D), and two index tensors pair up element by element. `gather(dim, index)` picks,
# along `dim`, the entry named by `index` at every other position.

# %%
scores = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
print(scores[scores > 0.25])                              # a mask -> 1-D copy
labels = torch.tensor([1, 0])
print(scores[torch.arange(2), labels])                    # row i, column labels[i]
print(scores.gather(1, labels.unsqueeze(1)).squeeze(1))   # the same with gather
print(scores[:, labels])                                  # NOT the same: every row, both columns

# %% [markdown]
# ### Exercise: pick each row's label
#
# `logits_5` has shape (5, 4) and `labels_5` shape (5,). Set `picked` to the (5,) tensor
# whose entry i is `logits_5[i, labels_5[i]]`, without a Python loop if you can.
# *Misconception*: `logits[:, labels]` pairs every row with every label.

# %%
logits_5 = torch.randn(5, 4, generator=torch.Generator().manual_seed(5))
labels_5 = torch.tensor([3, 0, 2, 2, 1])

# %% solution 01_tensors-gather
### BEGIN SOLUTION
picked = logits_5[torch.arange(5), labels_5]
### END SOLUTION

# %% test 01_tensors-gather-test points=2
checks.reject(picked, {logits_5[:, labels_5]:
    "logits[:, labels] takes all five labels' columns for every row: pair row i with its own "
    "label by indexing both dims at once, or gather along dim 1."}, "picked")
checks.expect_shape(picked, (5,), "picked")
### BEGIN HIDDEN TESTS
_l = torch.randn(5, 4, generator=torch.Generator().manual_seed(5))
assert torch.equal(picked, torch.stack([_l[0, 3], _l[1, 0], _l[2, 2], _l[3, 2], _l[4, 1]]))
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Devices and device-agnostic code
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
# GPU kernels and multi-threaded CPU kernels do) can differ in the last bits. Compare
# results with a tolerance (`torch.allclose`), never with `==`.

# %%
vals = torch.tensor([1e8, 1.0, -1e8, 1.0])
print((vals[0] + vals[1]) + vals[2] + vals[3], (vals[0] + vals[2]) + vals[1] + vals[3])
big_sum = torch.randn(100_000, generator=torch.Generator().manual_seed(6))
print(big_sum.sum().item(), big_sum.flip(0).cumsum(0)[-1].item(), torch.allclose(big_sum.sum(), big_sum.flip(0).cumsum(0)[-1], atol=1e-3))

# %% [markdown]
# ## 9. Common mistakes
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
# **Mismatched sizes that are not 1** cannot broadcast: add the missing axis on purpose.

# %%
with checks.expect_error(RuntimeError):
    torch.zeros(2, 3) + torch.zeros(2)
print("fix:", (torch.zeros(2, 3) + torch.zeros(2).unsqueeze(1)).shape)

# %% [markdown]
# **The silent outer product** (no error at all): check shapes before reducing.

# %%
p, y = torch.randn(8), torch.randn(8, 1)
print("silent:", tuple((p - y).shape), " fix:", tuple((p - y.view(-1)).shape))

# %% [markdown]
# **float64 from NumPy meets float32 weights.**

# %%
features = torch.from_numpy(np.random.default_rng(0).random(3))
weights = torch.ones(3)
with checks.expect_error(RuntimeError):
    features @ weights
print("fix:", features.float() @ weights)

# %% [markdown]
# **Writing in place into an expanded tensor**: with stride 0, many elements are one cell.

# %%
grid = torch.zeros(1, 3).expand(2, 3)
with checks.expect_error(RuntimeError):
    grid.add_(1)
print("fix:", grid.clone().add_(1))

# %% [markdown]
# **`.numpy()` on a tensor in the graph.**

# %%
param = torch.ones(2, requires_grad=True)
with checks.expect_error(RuntimeError):
    (param * 2).numpy()
print("fix:", (param * 2).detach().cpu().numpy())

# %% [markdown]
# ## Summary
#
# - A tensor is storage + shape + strides + offset; element $i$ sits at
#   offset + $\sum_k i_k s_k$, and contiguous means row-major strides.
# - View-type ops (`view`, `transpose`, `permute`, slicing, `expand`) share storage;
#   `clone`, fancy indexing, masks and a `reshape` that cannot view all copy.
# - Broadcasting aligns on the right and needs equal sizes or 1; check shapes before a
#   reduction, because an outer product raises no error.
# - Trailing underscores write in place; `from_numpy`/`.numpy()` share memory;
#   `.detach().cpu().numpy()` works for any tensor; pick the device once.
#
# **Next:** 02_autograd shows what PyTorch records when tensors flow through operations,
# and how `.backward()` turns that record into gradients.
