"""Broadcasting explorer: align shapes on the right, compare axis by axis.

model    ``broadcast(*shapes)`` -> the right-aligned table with a verdict per axis and the
         result shape, or the axis PyTorch rejects (the rightmost mismatch, as torch reports).
draw     ``draw_table(result, ax)``.
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
        cells.append(["·" if a.sizes[i] is None else str(a.sizes[i]) for a in result.axes])
    cells.append([a.verdict for a in result.axes])
    cells.append(["✗" if a.size is None else str(a.size) for a in result.axes])
    if not result.axes:
        ax.text(0.5, 0.5, "both shapes are 0-d: the result is a 0-d tensor, shape ()",
                ha="center", va="center")
        return fig
    colours = [["white"] * len(result.axes) for _ in result.shapes]
    colours.append([_COLOURS[a.verdict] for a in result.axes])
    colours.append([_COLOURS[a.verdict] for a in result.axes])
    columns = [f"axis {a.axis}" for a in result.axes]
    table = ax.table(cellText=cells, cellColours=colours, rowLabels=rows, colLabels=columns,
                     loc="center", cellLoc="center")
    table.scale(1, 1.6)
    shown = " with ".join(str(s) for s in result.shapes)
    if result.ok:
        title = f"{shown}  →  result {result.shape}"
    else:
        bad = result.axes[result.failing_dim]
        sizes = [s for s in bad.sizes if s not in (None, 1)]
        title = (f"{shown}  →  error at axis {result.failing_axis} "
                 f"(dim {result.failing_dim} of the result): sizes {sizes[0]} and {sizes[1]} "
                 "are different and neither is 1")
    ax.set_title(title + "\nalign on the right · sizes must be equal or 1 · '·' counts as 1",
                 fontsize=9)
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
