"""An Axes' frame, ticks and tick labels drawn as plain lines and texts.

matplotlib makes a Tick object (two lines, two texts and their markers) for every tick of
an axis when an Axes is drawn or its children are listed. The explorers draw every update
on a fresh Axes, where making those objects was up to half of an update's drawing time
(~2 ms each on this machine). These functions turn the Axes' own axes off and draw the same marks as one line
collection per axis and one text per label. Labels are written as matplotlib's own formatter
writes them for ranges that hold 0 (the explorers' ranges); no offset ("+1e1") is drawn.
"""

from __future__ import annotations

from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

TICK = 0.015      # tick length, in Axes fractions
GAP = 0.025       # from the frame to a tick label, in Axes fractions
FONTSIZE = 9


def ticks_between(lo: float, hi: float, nbins: int = 8) -> list[float]:
    """The tick positions matplotlib's MaxNLocator would choose, inside [lo, hi]."""
    slack = 1e-9 * (hi - lo)
    return [t for t in MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
            if lo - slack <= t <= hi + slack]


def labels_for(ticks: list[float]) -> list[str]:
    """One label per tick with the same number of decimals, a true minus sign, and no '-0'."""
    # the fewest decimals that write every tick exactly (0.25 steps need two)
    decimals = next((d for d in range(7) if all(abs(t * 10 ** d - round(t * 10 ** d)) < 1e-6
                                                for t in ticks)), 6)
    scale = max((abs(t) for t in ticks), default=1.0)
    return [f"{0.0 if abs(t) < 1e-9 * scale else t:.{decimals}f}".replace("-", "−")
            for t in ticks]


def frame(ax) -> None:
    """Turn the Axes' axes off and draw its frame as one line."""
    ax.set_axis_off()
    ax.add_artist(Line2D([0, 1, 1, 0, 0], [0, 0, 1, 1, 0], color="black", lw=0.8,
                         transform=ax.transAxes, clip_on=False))


def x_axis(ax, label: str = "", ticks: list[float] | None = None,
           labels: list[str] | None = None) -> None:
    """Ticks below the frame at ``ticks`` (data x; by default MaxNLocator's within the x
    limits), their labels, and the axis label under them."""
    fig = ax.figure
    ticks = ticks_between(*ax.get_xlim()) if ticks is None else list(ticks)
    labels = labels_for(ticks) if labels is None else labels
    place = ax.get_xaxis_transform()  # x in data, y in Axes fractions
    ax.vlines(ticks, -TICK, 0, transform=place, colors="black", lw=0.8, clip_on=False)
    for t, text in zip(ticks, labels):
        fig.text(t, -GAP, text, transform=place, fontsize=FONTSIZE, ha="center", va="top")
    if label:
        fig.text(0.5, -GAP - 0.06, label, transform=ax.transAxes, fontsize=FONTSIZE,
                 ha="center", va="top")


def y_axis(ax, ticks: list[float] | None = None) -> None:
    """Ticks left of the frame (by default MaxNLocator's within the y limits) and labels."""
    fig = ax.figure
    ticks = ticks_between(*ax.get_ylim(), nbins=6) if ticks is None else list(ticks)
    place = ax.get_yaxis_transform()  # x in Axes fractions, y in data
    ax.hlines(ticks, -TICK, 0, transform=place, colors="black", lw=0.8, clip_on=False)
    for t, text in zip(ticks, labels_for(ticks)):
        fig.text(-GAP, t, text, transform=place, fontsize=FONTSIZE, ha="right", va="center")
