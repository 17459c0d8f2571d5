"""The report's figures, drawn with matplotlib's object API (no pyplot state, no display)
and returned as PNG bytes for embedding."""

from __future__ import annotations

import io
import math

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .model import NOT_GRADED, UNANSWERED, UNCLASSIFIED

COLOURS = {UNCLASSIFIED: "#9e9e9e", UNANSWERED: "#c6dbef", NOT_GRADED: "#525252"}
MISCONCEPTION = "#d6604d"
BARS = "#4393c3"


def png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=96)
    return buffer.getvalue()


def _score_bins(max_score: float) -> list[float]:
    """One bin per point when points are few, else 20 equal bins; edges cover 0..max."""
    if max_score <= 0:
        return [-0.5, 0.5]
    if max_score <= 20 and float(max_score).is_integer():
        return [k - 0.5 for k in range(int(max_score) + 2)]
    return [max_score * k / 20 for k in range(21)]


def draw_score_histogram(scores: list[float], max_score: float, title: str, ax) -> None:
    ax.hist(scores, bins=_score_bins(max_score), color=BARS, edgecolor="white")
    ax.set_title(title, fontsize=9)
    if max_score <= 20 and float(max_score).is_integer():
        ax.set_xticks(range(int(max_score) + 1))
        ax.set_xlim(-0.5, max_score + 0.5)
    else:
        ax.set_xlim(0, max(max_score, 1e-9))
    ax.set_xlabel("points", fontsize=8)
    ax.set_ylabel("students", fontsize=8)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.tick_params(labelsize=7)


def overall_histogram(scores: list[float], max_score: float) -> bytes:
    figure = Figure(figsize=(6, 2.6), layout="constrained")
    draw_score_histogram(scores, max_score, f"total score (out of {max_score:g})", figure.add_subplot())
    return png(figure)


def exercise_histograms(per_exercise: list[tuple[str, list[float], float]]) -> bytes:
    """Small multiples: one score histogram per exercise, four to a row."""
    columns = min(4, max(1, len(per_exercise)))
    rows = max(1, math.ceil(len(per_exercise) / columns))
    figure = Figure(figsize=(2.6 * columns, 1.9 * rows), layout="constrained")
    for k, (name, scores, max_score) in enumerate(per_exercise):
        draw_score_histogram(scores, max_score, name, figure.add_subplot(rows, columns, k + 1))
    return png(figure)


def share_bars(rows: list[tuple[str, int]], of: int, title: str) -> bytes:
    """Horizontal bars of students/of, in the order given (top first)."""
    figure = Figure(figsize=(7, 0.45 * len(rows) + 0.9), layout="constrained")
    ax = figure.add_subplot()
    labels = [name for name, _ in rows]
    shares = [100 * n / of if of else 0 for _, n in rows]
    bars = ax.barh(range(len(rows)), shares, color=[COLOURS.get(n, MISCONCEPTION) for n in labels])
    for bar, (_, n) in zip(bars, rows):
        ax.text(bar.get_width() + 1, bar.get_y() + bar.get_height() / 2, f"{n}/{of}",
                va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 112)
    ax.set_xlabel("% of students", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.tick_params(axis="x", labelsize=7)
    return png(figure)
