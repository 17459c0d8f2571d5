"""Broadcasting explorer: the strides each operand is read with, and the cell each
element of the result reads, then the right-aligned table of sizes that decides them.

model    ``broadcast(*shapes, index=...)`` -> the right-aligned table with a verdict per axis
         and the result shape, or the axis PyTorch rejects (the rightmost mismatch, as torch
         reports); which operand each axis stretches, and whether the result is an outer
         product (every operand stretched somewhere: (64,) with (64, 1) gives (64, 64)).
         ``strides_as_broadcast(i)``: operand i's strides when read as the result's shape
         (0 where it is stretched); ``read(i)``: the storage cell of operand i that the
         followed element of the result reads, Σ index_k · stride_k, and its own index there.
draw     ``draw_table(result, ax)``: first what the result reads (the followed element's
         cells in each operand, worked out from the strides), then the strides rows, then each
         shape's sizes (a missing axis marked, a stretched size reading "1 → n"), the verdict
         and the result; an outer product is flagged in the heading.
explore  ``explore()``: two shapes and an element of the result, typed as text ("3",
         "4, 1" and "2, 1"; an empty element follows the last one).
"""

from __future__ import annotations

from dataclasses import dataclass

from .textinput import parse_ints

EQUAL, STRETCHED, MISMATCH = "equal", "stretched 1", "mismatch"


# ----------------------------------------------------------------------------- model

@dataclass(frozen=True)
class Axis:
    axis: int                          # counted from the right: -1 is the last
    sizes: tuple[int | None, ...]      # None where a shape has no such axis (acts as 1)
    verdict: str
    size: int | None                   # the result's size, None on a mismatch

    @property
    def stretched(self) -> tuple[int, ...]:
        """Operands (by position) whose size 1, or missing axis, is stretched on this axis."""
        if self.size is None:
            return ()
        return tuple(i for i, s in enumerate(self.sizes) if (s is None or s == 1) and self.size != 1)


@dataclass(frozen=True)
class Read:
    """What the followed element of the result reads in one operand."""
    strides: tuple[int, ...]           # the operand's strides as broadcast (0 where stretched)
    cell: int                          # Σ index_k · strides_k: a cell of its own storage
    own_index: tuple[int, ...]         # the operand's own index at that cell


@dataclass(frozen=True)
class Broadcast:
    shapes: tuple[tuple[int, ...], ...]
    axes: tuple[Axis, ...]             # left to right, as the table is read
    index: tuple[int, ...] | None = None   # the element of the result followed (None: none)

    @property
    def ok(self) -> bool:
        return all(a.verdict != MISMATCH for a in self.axes)

    @property
    def shape(self) -> tuple[int, ...] | None:
        return tuple(a.size for a in self.axes) if self.ok else None

    @property
    def outer_product(self) -> bool:
        """Every operand is stretched along some axis, so the result is larger than each of
        them: every element of one meets every element of the other. Often meant ((64, 1)
        with (768,)), sometimes the silent bug ((64,) minus (64, 1))."""
        if not self.ok or len(self.shapes) < 2:
            return False
        stretched = {i for a in self.axes for i in a.stretched}
        return stretched == set(range(len(self.shapes)))

    def stretch_summary(self) -> str:
        """'a on axis -2, b on axis -1' (or 'nothing'), as the table's title says it."""
        parts = []
        for i in range(len(self.shapes)):
            axes = [str(a.axis) for a in self.axes if i in a.stretched]
            if axes:
                parts.append(f"{chr(ord('a') + i)} on axis {', '.join(axes)}")
        return "; ".join(parts) or "nothing"

    def strides_as_broadcast(self, i: int) -> tuple[int, ...] | None:
        """The strides of operand ``i`` (contiguous) expanded to the result, as
        ``torch.broadcast_tensors`` makes them: 0 on every axis where it is stretched, so
        the same memory is read again instead of copied. None when the shapes clash."""
        if not self.ok:
            return None
        from .strides import apply_op, contiguous
        shape = self.shapes[i]
        if not shape:               # a 0-d operand: every element of the result reads it
            return (0,) * len(self.axes)
        if any(s == 0 for s in shape) or 0 in self.shape:
            return None             # nothing is read: an empty tensor has no strides to show
        return apply_op(contiguous(shape), "expand", self.shape).strides

    def read(self, i: int) -> Read | None:
        """The cell of operand ``i`` (a contiguous tensor of its shape) that the followed
        element of the result reads: the index dotted with the strides as broadcast. None
        when there is no element to follow (the shapes clash, or the result is empty)."""
        strides = self.strides_as_broadcast(i)
        if strides is None or self.index is None:
            return None
        cell = sum(k * s for k, s in zip(self.index, strides))
        own = self.shapes[i]
        lead = len(self.axes) - len(own)
        own_index = tuple(0 if size == 1 else k for size, k in zip(own, self.index[lead:]))
        return Read(strides, cell, own_index)

    @property
    def failing_axis(self) -> int | None:
        """The axis torch names, counted from the right (-1 = last); None if it broadcasts."""
        bad = [a.axis for a in self.axes if a.verdict == MISMATCH]
        return max(bad) if bad else None

    @property
    def failing_dim(self) -> int | None:
        """The same axis counted from the left of the result (as ``a + b``'s error says)."""
        axis = self.failing_axis
        return None if axis is None else len(self.axes) + axis


def verdict(sizes) -> tuple[str, int | None]:
    present = [s for s in sizes if s is not None]
    if len(set(present)) == 1 and len(present) == len(sizes):
        return EQUAL, present[0]
    others = {s for s in present if s != 1}
    if len(others) > 1:
        return MISMATCH, None
    return STRETCHED, (others.pop() if others else 1)


def broadcast(*shapes, index: tuple[int, ...] | None = None) -> Broadcast:
    """The table for ``shapes``; ``index`` picks the element of the result to follow (by
    default its last one). An index that does not fit the result is a ValueError."""
    shapes = tuple(tuple(int(s) for s in shape) for shape in shapes)
    for shape in shapes:
        if any(s < 0 for s in shape):
            raise ValueError(f"sizes cannot be negative: {shape}")
    ndim = max((len(s) for s in shapes), default=0)
    axes = []
    for axis in range(-ndim, 0):
        sizes = tuple(shape[axis] if len(shape) >= -axis else None for shape in shapes)
        kind, size = verdict(sizes)
        axes.append(Axis(axis, sizes, kind, size))
    result = Broadcast(shapes, tuple(axes))
    if not result.ok or 0 in result.shape:
        return result
    if index is None:
        index = tuple(n - 1 for n in result.shape)
    index = tuple(int(k) for k in index)
    if len(index) != len(result.shape) or any(not 0 <= k < n for k, n in zip(index, result.shape)):
        raise ValueError(f"index {index} does not fit the result {result.shape}: give "
                         f"{len(result.shape)} numbers, each from 0 to its size − 1")
    return Broadcast(shapes, tuple(axes), index)


MAX_AXES = 6  # more columns than this do not fit the explorer's width


def model(a: str = "64, 1", b: str = "768", index: str = "") -> Broadcast:
    """Explorer entry point: two shapes and an element of the result as text (empty: the
    last element); a malformed one is a ValueError."""
    shapes = parse_ints(a, "shape a"), parse_ints(b, "shape b")
    longest = max(len(s) for s in shapes)
    if longest > MAX_AXES:
        raise ValueError(f"a shape with {longest} axes is too wide to draw; keep it ≤ {MAX_AXES}")
    chosen = parse_ints(index, "index") if index.strip() else None
    return broadcast(*shapes, index=chosen)


# ------------------------------------------------------------------------------ draw

_COLOURS = {EQUAL: "#d9ead3", STRETCHED: "#fff2cc", MISMATCH: "#f4cccc"}
_MISSING = "#e6e6e6"   # a shape with no such axis: grey, and the cell says "missing (1)"


FONT_PT = 9
FIGSIZE = (7.5, 4.6)
RULE = "align on the right · sizes equal or 1 · a missing axis (grey) counts as 1"


def _index_text(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(k) for k in index) + "]" if index else "[()]"


def _read_line(result: Broadcast, i: int) -> str:
    """'result[2, 1] reads a at cell 2·0 + 1·1 = 1: a[1]'."""
    read = result.read(i)
    name = chr(ord("a") + i)
    terms = " + ".join(f"{k}·{s}" for k, s in zip(result.index, read.strides)) or "0"
    return (f"result{_index_text(result.index)} reads {name} at cell {terms} = {read.cell}:  "
            f"{name}{_index_text(read.own_index)}")


def _title_lines(result: Broadcast) -> list[tuple[str, str]]:
    """(text, colour) of each line above the table."""
    shown = " with ".join(str(s) for s in result.shapes)
    if not result.ok:
        bad = result.axes[result.failing_dim]
        sizes = [s for s in bad.sizes if s not in (None, 1)]
        return [(f"{shown}  →  error at axis {result.failing_axis} (dim {result.failing_dim} "
                 "of the result)", "#b00020"),
                (f"sizes {sizes[0]} and {sizes[1]} are different and neither is 1", "#b00020"),
                (RULE, "#555555")]
    lines = [(f"{shown}  →  result {result.shape}", "black")]
    if result.index is None:
        lines.append(("the result is empty: no element to follow", "#555555"))
    else:
        lines += [(_read_line(result, i), "black") for i in range(len(result.shapes))]
    lines.append((f"stretched (stride 0, nothing copied): {result.stretch_summary()}", "black"))
    if result.outer_product:
        lines.append(("⚠ outer product: every element of a meets every element of b (meant it?)",
                      "#b00020"))
    return lines + [(RULE, "#555555")]


def draw_table(result: Broadcast, ax=None):
    """The heading (the cells the followed element reads, what is stretched; or the failing
    axis), then one column per axis: the followed index and each operand's strides as
    broadcast (0 where stretched) first, then each shape's size (right-aligned), the verdict
    and the result."""
    from matplotlib.figure import Figure

    if ax is None:
        ax = Figure(figsize=FIGSIZE, dpi=96).add_subplot()
    fig = ax.figure
    ax.set_position([0, 0, 1, 1])
    ax.axis("off")
    if not result.axes:
        ax.text(0.5, 0.5, "both shapes are 0-d: the result is a 0-d tensor, shape ()",
                ha="center", va="center", fontsize=FONT_PT)
        return fig
    height_pt = fig.get_figheight() * 72
    line_pt = 1.4 * FONT_PT
    y = 1 - 8 / height_pt
    for text, colour in _title_lines(result):
        fig.text(0.5, y, text, ha="center", va="top", fontsize=FONT_PT, color=colour)
        y -= line_pt / height_pt
    names = [chr(ord("a") + i) for i in range(len(result.shapes))]
    rows, cells, colours = [], [], []
    if result.index is not None:
        rows.append("index followed")
        cells.append([str(k) for k in result.index])
        colours.append(["white"] * len(result.axes))
    for n, i in zip(names, range(len(result.shapes))):
        st = result.strides_as_broadcast(i)
        if st is not None:
            rows.append(f"{n}'s strides as broadcast")
            cells.append([str(v) for v in st])
            colours.append([_COLOURS[STRETCHED] if v == 0 and a.size != 1 else "white"
                            for v, a in zip(st, result.axes)])
    for i, n in enumerate(names):
        row, tint = [], []
        for a in result.axes:
            own = "(1)" if a.sizes[i] is None else str(a.sizes[i])   # grey: a missing axis
            row.append(f"{own} → {a.size}" if i in a.stretched else own)
            tint.append(_MISSING if a.sizes[i] is None else
                        (_COLOURS[STRETCHED] if i in a.stretched else "white"))
        rows.append(f"shape {n}")
        cells.append(row)
        colours.append(tint)
    rows += ["verdict", "result"]
    cells.append([a.verdict for a in result.axes])
    cells.append(["✗" if a.size is None else str(a.size) for a in result.axes])
    colours += [[_COLOURS[a.verdict] for a in result.axes]] * 2
    top = y - 4 / height_pt
    table = ax.table(cellText=[[r, *c] for r, c in zip(rows, cells)],
                     cellColours=[["white", *c] for c in colours],
                     colLabels=["", *(f"axis {a.axis}" for a in result.axes)],
                     cellLoc="center", bbox=[0.02, 0.03, 0.96, top - 0.03])
    table.auto_set_font_size(False)
    table.set_fontsize(FONT_PT)
    first = 0.26 if len(rows) > 4 else 0.18      # the row names' column
    for (_, c), cell in table.get_celld().items():
        cell.set_width(first if c == 0 else (1 - first) / len(result.axes))
    return fig


# --------------------------------------------------------------------------- explore

def explore(a: str = "3", b: str = "4, 1", index: str = "2, 1"):
    """The broadcasting explorer widget (a ``helpers.explorer.Explorer``); an empty index
    follows the result's last element."""
    import ipywidgets as widgets

    from .explorer import Explorer

    controls = {name: widgets.Text(value=value, description=label, continuous_update=False,
                                   placeholder=hint)
                for name, value, label, hint in (("a", a, "shape a", ""), ("b", b, "shape b", ""),
                                                 ("index", index, "element", "last"))}
    return Explorer(controls, model, draw_table, title="Broadcasting explorer",
                    figsize=FIGSIZE)
