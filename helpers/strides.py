"""Stride explorer: where each logical element of a tensor lives in its storage.

model    pure functions over a layout (shape, strides, storage offset), after minitorch's
         ``tensor_data.py``; ``apply_op`` follows torch's own rules, including the one that
         decides when ``.view`` is possible on a non-contiguous tensor.
draw     ``draw_layout(result, ax)``: the logical grid above the storage cells, colour-coded.
explore  ``explore()``: shape, up to two ops with their arguments, and an index.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from .textinput import parse_ints

OPS = ("none", "view", "transpose", "permute", "slice", "expand")
ARG_HINTS = {
    "none": "",
    "view": "new shape, e.g. 3, 2 (one -1 allowed)",
    "transpose": "two dims, e.g. 0, 1",
    "permute": "a dim order, e.g. 1, 0",
    "slice": "dim, start, stop, step: 1, 0, 3, 2",
    "expand": "sizes, e.g. 4, 2, 3 (-1 keeps)",
}


# The course's own stride arithmetic is the answer to several of 01's exercises: inside a
# test's call to the student's function it refuses, so that calling it earns nothing.
OWN_CODE = "called helpers.strides, the course's own stride code"
OWN_CODE_HINT = "Write it yourself: helpers.strides is the course's own answer to this exercise."
_OWN = ("contiguous_strides", "offset_of", "is_contiguous", "view_strides", "infer_shape", "apply_op",
        "storage_cells")


def without_own_code(function, *args):
    """``function(*args)`` while this module's stride arithmetic refuses (helpers.refuse)."""
    from helpers.refuse import refusing

    with refusing([f"helpers.strides.{name}" for name in _OWN],
                  f"{getattr(function, '__name__', 'your function')} {OWN_CODE}"):
        return function(*args)


# ----------------------------------------------------------------------------- model

@dataclass(frozen=True)
class Layout:
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def contiguous(self) -> bool:
        return is_contiguous(self.shape, self.strides)


def contiguous_strides(shape) -> tuple[int, ...]:
    """Row-major strides: the last dim moves by 1, each earlier one by the product after it."""
    strides, step = [], 1
    for size in reversed(tuple(shape)):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def offset_of(index, strides, storage_offset: int = 0) -> int:
    """Storage position of a logical index: offset + Σ index_k · stride_k."""
    return storage_offset + sum(i * s for i, s in zip(index, strides))


def is_contiguous(shape, strides) -> bool:
    """torch's rule: row-major strides, ignoring dims of size 1 (their stride never matters)."""
    if math.prod(shape) == 0:
        return True
    expected = 1
    for size, stride in zip(reversed(tuple(shape)), reversed(tuple(strides))):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def contiguous(shape, offset: int = 0) -> Layout:
    shape = tuple(shape)
    check_shape(shape)
    return Layout(shape, contiguous_strides(shape), offset)


def check_shape(shape) -> None:
    if not shape:
        raise ValueError("give at least one dimension, e.g. '2, 3'")
    bad = [s for s in shape if s <= 0]
    if bad:
        raise ValueError(f"sizes must be positive, got {bad[0]} in {tuple(shape)}")


def _dim(d: int, ndim: int) -> int:
    if not -ndim <= d < ndim:
        raise ValueError(f"dim {d} is out of range for a {ndim}-d tensor "
                         f"(valid: {-ndim} … {ndim - 1})")
    return d % ndim


def view_strides(layout: Layout, new_shape) -> tuple[int, ...] | None:
    """Strides of ``layout`` viewed as ``new_shape``, or None when no view exists.

    The same walk as ATen's ``computeStride``: split the old dims into chunks that are
    contiguous among themselves; each chunk must be rebuilt exactly by consecutive new dims.
    """
    old_shape, old_strides = layout.shape, layout.strides
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        chunk_ends = tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                                       old_strides[tensor_d - 1] != tensor_numel * chunk_base)
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides) if view_d == -1 else None


def infer_shape(shape, numel: int) -> tuple[int, ...]:
    """Resolve one -1 in a view shape, as torch does."""
    shape = tuple(shape)
    if shape.count(-1) > 1:
        raise ValueError("only one dimension can be -1 (inferred)")
    if any(s == 0 or s < -1 for s in shape):
        raise ValueError(f"sizes must be positive (or one -1), got {shape}")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if numel % known:
            raise ValueError(f"shape {shape} is invalid for {numel} elements: "
                             f"{numel} is not divisible by {known}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if math.prod(shape) != numel:
        raise ValueError(f"shape {shape} holds {math.prod(shape)} elements, "
                         f"the tensor has {numel}")
    return shape


def apply_op(layout: Layout, op: str, args=()) -> Layout:
    """The layout after one op; ValueError says why the op is impossible."""
    args = tuple(args)
    ndim = len(layout.shape)
    shape, strides = list(layout.shape), list(layout.strides)
    if op == "none":
        return layout
    if op == "view":
        if not args:
            raise ValueError("view needs a shape, e.g. 3, 2")
        new_shape = infer_shape(args, layout.numel)
        new_strides = view_strides(layout, new_shape)
        if new_strides is None:
            raise ValueError(f"view{new_shape} is impossible: the elements are not laid out "
                             "so that one stride per new dim can reach them (a dim would span "
                             "two separate runs of memory). Use .reshape, which copies, or "
                             ".contiguous() first.")
        return Layout(new_shape, new_strides, layout.offset)
    if op == "transpose":
        if len(args) != 2:
            raise ValueError(f"transpose takes two dims, got {len(args)}")
        a, b = (_dim(d, ndim) for d in args)
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
        return Layout(tuple(shape), tuple(strides), layout.offset)
    if op == "permute":
        if len(args) != ndim:
            raise ValueError(f"permute needs all {ndim} dims in a new order, got {len(args)}")
        order = [_dim(d, ndim) for d in args]
        if sorted(order) != list(range(ndim)):
            raise ValueError(f"permute{args} repeats a dim: each of 0 … {ndim - 1} exactly once")
        return Layout(tuple(shape[d] for d in order), tuple(strides[d] for d in order),
                      layout.offset)
    if op == "slice":
        if len(args) not in (3, 4):
            raise ValueError("slice takes dim, start, stop and optionally step")
        d = _dim(args[0], ndim)
        step = args[3] if len(args) == 4 else 1
        if step <= 0:
            raise ValueError(f"slice step must be positive, got {step} (torch has no negative steps)")
        start, stop, _ = slice(args[1], args[2], step).indices(shape[d])
        length = len(range(start, stop, step))
        if length == 0:
            raise ValueError(f"slice {args[1]}:{args[2]} of a dim of size {shape[d]} is empty")
        offset = layout.offset + start * strides[d]
        shape[d], strides[d] = length, strides[d] * step
        return Layout(tuple(shape), tuple(strides), offset)
    if op == "expand":
        if len(args) < ndim:
            raise ValueError(f"expand needs at least {ndim} sizes (one per dim), got {len(args)}")
        lead = len(args) - ndim
        new_shape, new_strides = [0] * len(args), [0] * len(args)
        # right to left, because torch gives a new size-1 dim the stride of what follows it
        for i in range(len(args) - 1, -1, -1):
            size = args[i]
            if i < lead:
                if size <= 0:
                    raise ValueError(f"new leading dim {i} needs a positive size, got {size}")
                after = new_shape[i + 1] * new_strides[i + 1] if i + 1 < len(args) else 1
                new_shape[i], new_strides[i] = size, (after if size == 1 else 0)
                continue
            old, stride = shape[i - lead], strides[i - lead]
            if size == 0 or size < -1:
                raise ValueError(f"expand sizes must be positive (or -1 to keep a dim), got {size}")
            if size == -1 or size == old:
                new_shape[i], new_strides[i] = old, stride
            elif old == 1:
                new_shape[i], new_strides[i] = size, 0
            else:
                raise ValueError(f"cannot expand dim {i} from {old} to {size}: only a dim of "
                                 "size 1 can be stretched (it gets stride 0)")
        return Layout(tuple(new_shape), tuple(new_strides), layout.offset)
    raise ValueError(f"unknown op {op!r}; choose one of {', '.join(OPS)}")


def storage_cells(layout: Layout) -> dict[tuple[int, ...], int]:
    """Each logical index -> the storage cell it reads (several may share one cell)."""
    return {index: offset_of(index, layout.strides, layout.offset)
            for index in itertools.product(*(range(s) for s in layout.shape))}


@dataclass
class StrideResult:
    base: Layout
    steps: list[tuple[str, Layout]] = field(default_factory=list)
    index: tuple[int, ...] = ()
    note: str = ""  # an op chosen whose arguments are not typed yet (not an error)

    @property
    def layout(self) -> Layout:
        return self.steps[-1][1] if self.steps else self.base

    @property
    def cells(self) -> dict[tuple[int, ...], int]:
        return storage_cells(self.layout)

    @property
    def position(self) -> int:
        return offset_of(self.index, self.layout.strides, self.layout.offset)

    def formula(self) -> str:
        lay = self.layout
        terms = " + ".join(f"{i}·{s}" for i, s in zip(self.index, lay.strides))
        return f"offset{self.index} = {lay.offset} + {terms} = {self.position}"


MAX_DRAWN = 96  # more cells than this are unreadable at the widget's size


def model(shape: str = "2, 3", op: str = "transpose", args: str = "0, 1",
          then: str = "none", then_args: str = "", index: str = "2, 1") -> StrideResult:
    """Explorer entry point: text controls -> layouts; any impossible setting is a ValueError."""
    base = contiguous(parse_ints(shape, "shape"))
    if base.numel > MAX_DRAWN:
        raise ValueError(f"{base.numel} elements is too many to draw; keep it ≤ {MAX_DRAWN}")
    steps, layout, waiting = [], base, []
    for name, text in ((op, args), (then, then_args)):
        if name == "none":
            continue
        if not text.strip() and name in OPS:
            # just picked, arguments not typed yet: draw what comes before it
            waiting.append(f"type the arguments of {name} ({ARG_HINTS[name]}) and press Enter")
            break
        values = parse_ints(text, f"{name} arguments")
        try:
            layout = apply_op(layout, name, values)
        except ValueError as problem:
            said = str(problem)  # name the op, so that arguments left from another op read right
            raise ValueError(said if said.startswith(name) else
                             f"{name}({', '.join(map(str, values))}): {said}") from None
        steps.append((f"{name}({', '.join(map(str, values))})", layout))
    if layout.numel > MAX_DRAWN:
        raise ValueError(f"the result has {layout.numel} elements, too many to draw; "
                         f"keep it ≤ {MAX_DRAWN}")
    typed = parse_ints(index, "index")
    idx = fit_index(typed, layout.shape)
    if idx != typed:
        # an index typed for another shape (before an op changed it, or while an op waits for
        # its arguments): keep drawing, and say which element is shown instead
        count = len(layout.shape)
        waiting.insert(0, f"index {typed} does not fit shape {layout.shape}: showing {idx} (type "
                          f"{count} number{'s' * (count > 1)}, each below its dim's size)")
    note = "; ".join(waiting)
    return StrideResult(base, steps, idx, note[:1].upper() + note[1:])


def fit_index(index: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """The nearest index that fits ``shape``: missing numbers are 0, extra ones dropped,
    each clamped into its dim (so a picture can still be drawn after the shape changed)."""
    padded = tuple(index[:len(shape)]) + (0,) * (len(shape) - len(index))
    return tuple(min(max(i, 0), size - 1) for i, size in zip(padded, shape))


# ------------------------------------------------------------------------------ draw

def _colour(cell: int, n: int):
    from matplotlib import colormaps
    return colormaps["tab20"](cell % 20) if n <= 20 else colormaps["turbo"](0.1 + 0.8 * cell / max(n - 1, 1))


def _ink(face) -> str:
    """Black or white, whichever reads better on ``face`` (relative luminance, WCAG)."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in face[:3])
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "black" if luminance > 0.179 else "white"


LABEL_PT = 10   # cell numbers and labels: 13 CSS px in the explorer
TITLE_PT = 11
MIN_PT = 9      # the explorer raises smaller text to this: numbers that need less are left out
PER_LINE = 24   # storage cells per drawn line (a longer storage wraps)
WIDTH_IN, MIN_HEIGHT_IN, MAX_HEIGHT_IN = 7.5, 3.6, 6.5
LEFT_IN, RIGHT_IN, TOP_IN, BOTTOM_IN = 0.9, 0.15, 0.75, 0.7   # room for labels, title, caption
GAP = 1.35      # between the logical grid and the storage: room for the "×k" marks
LINE_GAP = 0.3  # between wrapped storage lines


def storage_lines(n: int) -> int:
    """How many cells each drawn storage line holds: all of them up to PER_LINE, else balanced."""
    lines = -(-n // PER_LINE)
    return -(-n // lines)


def _text_pt(text: str, size: float) -> float:
    """A label's width in points, generously (digits and × in DejaVu Sans are ≈ 0.64 em)."""
    return 0.66 * size * len(text)


def draw_layout(result: StrideResult, ax=None):
    """Logical grid (top) and storage cells (bottom); matching colours = same memory.

    Cells are squares sized to the figure; a number is drawn in a cell only where it fits
    with a margin (otherwise the colours alone say which memory each element reads, and the
    caption says so). A storage cell read by several elements gets "×k" above it, or, where
    there is no room, the caption lists them. The figure grows taller (up to MAX_HEIGHT_IN)
    for a tall grid so that cells stay large enough to number."""
    from matplotlib.collections import PatchCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    if ax is None:
        ax = Figure(figsize=(WIDTH_IN, MIN_HEIGHT_IN), dpi=96).add_subplot()
    fig = ax.figure
    lay, cells = result.layout, result.cells
    n_storage = result.base.numel
    cols = lay.shape[-1]
    row_len = storage_lines(cols)          # a logical row longer than PER_LINE wraps too
    wraps = -(-cols // row_len)
    rows = max(lay.numel // cols, 1) * wraps
    per_line = storage_lines(n_storage)
    lines = -(-n_storage // per_line)
    width = max(row_len, per_line)
    height = rows + GAP + lines + (lines - 1) * LINE_GAP
    box_w = WIDTH_IN - LEFT_IN - RIGHT_IN
    # grow the figure until a cell is 22 pt (a two-digit number at 10 pt fits with room)
    box_h = min(max(MIN_HEIGHT_IN - TOP_IN - BOTTOM_IN, height * 22 / 72),
                MAX_HEIGHT_IN - TOP_IN - BOTTOM_IN)
    fig_h = box_h + TOP_IN + BOTTOM_IN
    fig.set_size_inches(WIDTH_IN, fig_h)
    unit_pt = 72 * min(box_w / width, box_h / height)
    ax.set_position([LEFT_IN / WIDTH_IN, BOTTOM_IN / fig_h, box_w / WIDTH_IN, box_h / fig_h])
    size = min(LABEL_PT, max(MIN_PT, 0.45 * unit_pt))
    numbered = size <= 0.6 * unit_pt and _text_pt(str(n_storage - 1), size) <= 0.75 * unit_pt
    used: dict[int, int] = {}
    for cell in cells.values():
        used[cell] = used.get(cell, 0) + 1
    patches, colours = [], []

    def storage_xy(cell):
        line, col = divmod(cell, per_line)
        return col, -GAP - 1 - line * (1 + LINE_GAP)

    def logical_xy(k):
        r, c = divmod(k, cols)
        return c % row_len, rows - 1 - (r * wraps + c // row_len)

    for k, cell in enumerate(cells.values()):
        x, y = logical_xy(k)
        face = _colour(cell, n_storage)
        patches.append(Rectangle((x, y), 0.94, 0.94))
        colours.append(face)
        if numbered:
            ax.text(x + 0.47, y + 0.47, f"{cell}", ha="center", va="center",
                    fontsize=size, color=_ink(face))
    shared = {cell: k for cell, k in used.items() if k > 1}
    marks_fit = lines == 1 and all(_text_pt(f"×{k}", MIN_PT) <= 0.95 * unit_pt
                                   for k in shared.values())
    for cell in range(n_storage):
        x, y = storage_xy(cell)
        face = _colour(cell, n_storage) if cell in used else (0.9, 0.9, 0.9, 1)
        patches.append(Rectangle((x, y), 0.94, 0.94))
        colours.append(face)
        if numbered:
            ax.text(x + 0.47, y + 0.47, f"{cell}", ha="center", va="center",
                    fontsize=size, color=_ink(face))
        if cell in shared and marks_fit:
            ax.text(x + 0.47, y + 1.05, f"×{shared[cell]}", ha="center", va="bottom",
                    fontsize=MIN_PT)
    ax.add_collection(PatchCollection(patches, facecolors=colours, edgecolors="white"))
    # the chosen index, outlined in both places
    for x, y in (logical_xy(list(cells).index(result.index)), storage_xy(result.position)):
        ax.add_patch(Rectangle((x - 0.03, y - 0.03), 1.0, 1.0, fill=False, lw=2.5, ec="black"))
    ax.text(-0.25, storage_xy(0)[1] + 0.47, "storage", ha="right", va="center", fontsize=LABEL_PT)
    ax.text(-0.25, rows - 0.5, "logical", ha="right", va="center", fontsize=LABEL_PT)
    ops = " → ".join(["contiguous"] + [name for name, _ in result.steps])
    state = "contiguous" if lay.contiguous else "NOT contiguous"
    rows_are = "" if len(lay.shape) <= 2 else f"  ·  grid rows = dims {lay.shape[:-1]}"
    fig.text(0.1 / WIDTH_IN, 1 - 0.08 / fig_h,
             f"{result.base.shape} {ops}{rows_are}\nshape {lay.shape}  strides {lay.strides}  "
             f"offset {lay.offset}  ·  {state}", ha="left", va="top", fontsize=TITLE_PT)
    legend = ("numbers in cells = storage position; matching colours = the same memory"
              if numbered else "too many cells to number: matching colours = the same memory")
    if shared and not marks_fit:
        listed = ", ".join(f"{cell} ×{k}" for cell, k in list(shared.items())[:8])
        legend += f"\nread more than once: {listed}" + (" …" if len(shared) > 8 else "")
    fig.text(0.1 / WIDTH_IN, 0.08 / fig_h, result.formula() + "\n" + legend,
             ha="left", va="bottom", fontsize=LABEL_PT)
    ax.set_xlim(-0.1, width + 0.1)
    ax.set_ylim(-height + rows - 0.1, rows + 0.1)
    ax.set_aspect("equal", adjustable="box", anchor="W")
    ax.axis("off")
    return fig


# --------------------------------------------------------------------------- explore

def explore(shape: str = "2, 3", op: str = "transpose", args: str = "0, 1",
            then: str = "none", then_args: str = "", index: str = "2, 1"):
    """The stride explorer widget (a ``helpers.explorer.Explorer``)."""
    import ipywidgets as widgets

    from .explorer import Explorer

    def text(value, description, placeholder="", width="300px"):
        return widgets.Text(value=value, description=description, placeholder=placeholder,
                            continuous_update=False, layout=widgets.Layout(width=width))

    wide = "370px"  # the longest hint (view's) whole, at the lab's 13 px

    controls = {
        "shape": text(shape, "shape"),
        "op": widgets.Dropdown(options=OPS, value=op, description="op"),
        "args": text(args, "args", ARG_HINTS[op], wide),
        "then": widgets.Dropdown(options=OPS, value=then, description="then"),
        "then_args": text(then_args, "args", ARG_HINTS[then], wide),
        "index": text(index, "index"),
    }
    for dropdown, box in (("op", "args"), ("then", "then_args")):
        def new_op(change, box=controls[box]):
            # arguments typed for the previous op mean nothing to the new one: clear them,
            # and the explorer waits (a note, not an error) until the new ones are typed
            box.placeholder = ARG_HINTS[change["new"]]
            box.value = ""
        controls[dropdown].observe(new_op, names="value")
    return Explorer(controls, model, draw_layout, title="Stride explorer")
