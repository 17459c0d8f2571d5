"""helpers.hand_axes against matplotlib itself: the labels its ScalarFormatter writes for
the same ticks (hypothesis over ranges), MaxNLocator's positions, and an Axes drawn with
them that never makes a Tick object."""

import matplotlib
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from helpers import hand_axes

matplotlib.use("Agg")


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 1), st.floats(-2.5, 2.5))
def test_ticks_and_labels_are_matplotlibs_own(below, log_width):
    """Ranges that hold 0, as the explorers' do (matplotlib adds no offset to those)."""
    lo, hi = -below * 10 ** log_width, 10 ** log_width
    ticks = hand_axes.ticks_between(lo, hi)
    slack = 1e-9 * (hi - lo)
    locator = MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
    assert ticks == [t for t in locator if lo - slack <= t <= hi + slack] and len(ticks) >= 2
    fig = Figure()
    ax = fig.add_subplot()
    ax.set_xticks(ticks)
    ax.set_xlim(lo, hi)
    FigureCanvasAgg(fig).draw()
    assert [label.get_text() for label in ax.get_xticklabels()] == hand_axes.labels_for(ticks)


def test_an_axes_drawn_by_hand_makes_no_tick_objects():
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [-0.6, 0.5, 0.9])
    hand_axes.frame(ax)
    hand_axes.x_axis(ax, "x", ticks=[0, 1, 2], labels=["a", "b", "c"])
    hand_axes.y_axis(ax)
    FigureCanvasAgg(fig).draw()
    texts = [t.get_text() for t in fig.texts]
    y_ticks = hand_axes.ticks_between(*ax.get_ylim(), nbins=6)
    assert texts == ["a", "b", "c", "x", *hand_axes.labels_for(y_ticks)]
    assert "−0.5" in texts and "0.0" in texts  # a true minus sign, one decimal for 0.5 steps
    assert not any(t.startswith("-") for t in texts)
    # the one tick per list that a new Axes makes, and no more (drawn normally: one per label)
    assert [len(a.majorTicks) for a in (ax.xaxis, ax.yaxis)] == [1, 1]
    plain = Figure().add_subplot()
    plain.plot([0, 1, 2], [-0.6, 0.5, 0.9])
    FigureCanvasAgg(plain.figure).draw()
    assert len(plain.xaxis.majorTicks) > 1
