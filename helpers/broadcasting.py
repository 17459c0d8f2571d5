"""Broadcasting explorer: align shapes on the right, compare axis by axis.

model    ``broadcast(*shapes)`` -> the right-aligned table with a verdict per axis and the
         result shape, or the axis PyTorch rejects (the rightmost mismatch, as torch reports);
         which operand each axis stretches, and whether the result is an outer product
         (every operand stretched somewhere: (64,) with (64, 1) gives (64, 64)).
draw     ``draw_table(result, ax)``: a missing axis is marked, a stretched size reads
         "1 → n", and an outer product is flagged in the title.
explore  ``explore()``: two shapes typed as text ("64, 1" and "768").
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
class Broadcast:
    shapes: tuple[tuple[int, ...], ...]
    axes: tuple[Axis, ...]             # left to right, as the table is read

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


def broadcast(*shapes) -> Broadcast:
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
    return Broadcast(shapes, tuple(axes))


def model(a: str = "64, 1", b: str = "768") -> Broadcast:
    """Explorer entry point: two shapes as text; a malformed one is a ValueError."""
    return broadcast(parse_ints(a, "shape a"), parse_ints(b, "shape b"))


# ------------------------------------------------------------------------------ draw

_COLOURS = {EQUAL: "#d9ead3", STRETCHED: "#fff2cc", MISMATCH: "#f4cccc"}
_MISSING = "#e6e6e6"   # a shape with no such axis: grey, and the cell says "missing (1)"


def draw_table(result: Broadcast, ax=None):
    """One column per axis: each shape's size (right-aligned), the verdict, the result."""
    from matplotlib.figure import Figure

    if ax is None:
        ax = Figure(figsize=(7.5, 3.6)).add_subplot()
    fig = ax.figure
    ax.axis("off")
    names = [f"shape {chr(ord('a') + i)}" for i in range(len(result.shapes))]
    rows = [*names, "verdict", "result"]
    cells = []
    for i in range(len(result.shapes)):
        row = []
        for a in result.axes:
            own = "missing (1)" if a.sizes[i] is None else str(a.sizes[i])
            row.append(f"{own} → {a.size}" if i in a.stretched else own)
        cells.append(row)
    cells.append([a.verdict for a in result.axes])
    cells.append(["✗" if a.size is None else str(a.size) for a in result.axes])
    if not result.axes:
        ax.text(0.5, 0.5, "both shapes are 0-d: the result is a 0-d tensor, shape ()",
                ha="center", va="center")
        return fig
    colours = [[_MISSING if a.sizes[i] is None else (_COLOURS[STRETCHED] if i in a.stretched else "white")
                for a in result.axes] for i in range(len(result.shapes))]
    colours.append([_COLOURS[a.verdict] for a in result.axes])
    colours.append([_COLOURS[a.verdict] for a in result.axes])
    columns = [f"axis {a.axis}" for a in result.axes]
    # An explicit box leaves room for the row labels on the left and the heading on top.
    # Row names as a first column: matplotlib's rowLabels would fall outside the box.
    table = ax.table(cellText=[[r, *c] for r, c in zip(rows, cells)],
                     cellColours=[["white", *c] for c in colours], colLabels=["", *columns],
                     cellLoc="center", bbox=[0.02, 0.02, 0.96, 0.62])
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    shown = " with ".join(str(s) for s in result.shapes)
    if result.ok:
        title = f"{shown}  →  result {result.shape}\nstretched: {result.stretch_summary()}"
        if result.outer_product:
            title += "\n⚠ outer product: every element of a meets every element of b (meant it?)"
    else:
        bad = result.axes[result.failing_dim]
        sizes = [s for s in bad.sizes if s not in (None, 1)]
        title = (f"{shown}  →  error at axis {result.failing_axis} "
                 f"(dim {result.failing_dim} of the result): sizes {sizes[0]} and {sizes[1]} "
                 "are different and neither is 1")
    ax.text(0.5, 0.99, title + "\nalign on the right · sizes equal or 1 · a missing axis counts as 1",
            ha="center", va="top", fontsize=9, linespacing=1.4, transform=ax.transAxes,
            color="#b00020" if result.outer_product or not result.ok else "black")
    return fig


# --------------------------------------------------------------------------- explore

def explore(a: str = "64, 1", b: str = "768"):
    """The broadcasting explorer widget (a ``helpers.explorer.Explorer``)."""
    import ipywidgets as widgets

    from .explorer import Explorer

    controls = {name: widgets.Text(value=value, description=f"shape {name}",
                                   continuous_update=False)
                for name, value in (("a", a), ("b", b))}
    return Explorer(controls, model, draw_table, title="Broadcasting explorer")
