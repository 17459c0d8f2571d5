"""Every instrument's picture passes helpers.lab.picture_check at every setting of a sweep of its
controls: no two texts overlap, no text leaves the figure or crosses a box's outline, no
label covers an arrowhead or an error bar's end. The check itself is tested first, on
figures made to have each defect.

Instruments are found, not listed: every ``explore`` in a helpers module (called with its
defaults), and the calls the notebooks make with other arguments (``NOTEBOOK_CALLS``). The
sweep moves one control at a time away from its starting value: every option of a dropdown
or toggle, both states of a checkbox, seven points across a slider (its ends included).
(The tests of each instrument are held to the same check at every setting they visit:
tests/conftest.py.)
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil

import ipywidgets as widgets
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle  # noqa: E402

import helpers  # noqa: E402
from helpers.explorer import Explorer  # noqa: E402
from helpers.lab import picture_check  # noqa: E402
from helpers.loss_curves import conv_net  # noqa: E402

# --- the check, on figures with one defect each ------------------------------------------

def blank(size=(4, 3)):
    figure = Figure(figsize=size, dpi=96)
    ax = figure.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.set_axis_off()
    return figure, ax


def test_a_clean_figure_has_no_problems():
    figure, ax = blank()
    ax.add_patch(Rectangle((1, 1), 4, 3, facecolor="#ddeeff", edgecolor="black"))
    ax.text(3, 2.5, "inside", ha="center", va="center", fontsize=9)
    ax.text(7.5, 8, "apart", ha="center", fontsize=9)
    ax.add_patch(FancyArrowPatch((6, 2), (9, 2), arrowstyle="-|>", mutation_scale=12))
    ax.text(7.5, 2.6, "edge", ha="center", fontsize=9)
    ax.errorbar([5], [6], xerr=[[1], [1]], capsize=4)
    ax.text(6.6, 6, "label past the end", va="center", fontsize=9)
    assert picture_check.problems(figure) == []


def test_two_texts_on_each_other_are_named():
    figure, ax = blank()
    ax.text(2, 5, "first label", fontsize=10)
    ax.text(2.5, 5.1, "second label", fontsize=10)
    assert any("'first label' overlaps 'second label'" in p for p in picture_check.problems(figure))


def test_a_text_across_a_box_outline_or_touching_it_from_inside_is_named():
    figure, ax = blank()
    ax.add_patch(FancyBboxPatch((1, 1), 3, 2, boxstyle="round,pad=0.02,rounding_size=0.3"))
    ax.text(2.5, 2, "a text much wider than its box", ha="center", va="center", fontsize=9)
    ax.add_patch(Rectangle((6, 6), 1.4, 0.8))
    ax.text(6.7, 6.4, "88", ha="center", va="center", fontsize=17)  # fills it edge to edge
    found = picture_check.problems(figure)
    assert any("'a text much wider than its box' crosses the outline" in p for p in found), found
    assert any("'88' crosses the outline of a Rectangle" in p for p in found), found


def test_a_label_on_an_arrowhead_or_an_error_bar_end_is_named():
    figure, ax = blank()
    ax.add_patch(FancyArrowPatch((1, 2), (6, 2), arrowstyle="-|>", mutation_scale=14))
    ax.text(5.9, 2, "16.8", ha="center", va="center", fontsize=9,
            bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none"))
    ax.errorbar([5], [7], xerr=[[2], [2]], capsize=4)
    ax.text(7, 7, "1403 µs", va="center", fontsize=9)  # starts on the cap
    ax.errorbar([5], [4], xerr=[[2], [2]], capsize=4)
    x, y = ax.transData.transform((7, 4))
    x += 2 * 4 * figure.dpi / 72 / 2 + 1  # 1 px right of the cap's mark (its size is twice capsize)
    ax.text(x, y, "touching", va="center", fontsize=9, transform=None)
    found = picture_check.problems(figure)
    assert any("'16.8' covers an arrowhead" in p for p in found), found
    assert any("'1403 µs' covers an error bar's end" in p for p in found), found
    assert any("'touching' covers an error bar's end" in p for p in found), found


def test_a_text_off_the_figure_is_named_and_a_clipped_one_is_not_seen():
    figure, ax = blank()
    ax.text(9.5, 5, "runs off the right edge", fontsize=10)
    inner = figure.add_axes((0.1, 0.1, 0.3, 0.3))
    inner.set_xlim(0, 1)
    inner.text(5, 0.5, "clipped away", clip_on=True)  # outside inner's view: not drawn
    found = picture_check.problems(figure)
    assert any("'runs off the right edge' leaves the 384x288 px figure" in p for p in found), found
    assert not any("clipped away" in p for p in found), found


# --- every instrument, swept ---------------------------------------------------------------

def instrument_modules() -> list[str]:
    """helpers modules that define an ``explore`` (an instrument), found by walking helpers."""
    found = []
    for info in pkgutil.iter_modules(helpers.__path__):
        module = importlib.import_module(f"helpers.{info.name}")
        if inspect.isfunction(getattr(module, "explore", None)) and module.explore.__module__ == module.__name__:
            found.append(module.__name__)
    return sorted(found)


def branchy(x):
    """Like 02's first instrument: a branch on the input's sign."""
    return x * x if x > 0 else -x


def fanout(x, y):
    """Like 02's fan-out instrument: x is used on two paths."""
    z = x * y
    return z * z + x.exp() * y


# (name, module, kwargs): what the notebooks pass other than the defaults
NOTEBOOK_CALLS = [
    ("branchy", "helpers.autograd_graph", {"fn": branchy, "x": (-2, 2, 0.1, 1.0)}),
    ("fanout", "helpers.autograd_graph", {"fn": fanout, "x": (-3, 3, 0.1, 2.0), "y": (-3, 3, 0.1, -1.0)}),
    ("n10000", "helpers.data", {"n": 10_000, "batch_size": 128}),
    ("depth12", "helpers.activations", {"depth": 12}),
    ("conv-net", "helpers.modules", {"models": {"digits conv net": conv_net()}}),  # 03, 4-D weights
]
# a setting that measures or trains takes a second or more: these start somewhere cheap
START = {"helpers.bench": {"size": 2**12, "compile": False}}
# controls whose sweep would compile at every point (the compiled setting is visited once)
NOT_SWEPT = {"helpers.bench": {"compile"}}
ONCE = {"helpers.bench": [{"compile": True}]}


def cases():
    found = [(m.split(".")[-1], m, START.get(m, {})) for m in instrument_modules()] + [
        (f"{m.split('.')[-1]}-{name}", m, kwargs) for name, m, kwargs in NOTEBOOK_CALLS]
    return [(m, kwargs) for _, m, kwargs in found], [name for name, _, _ in found]


CASES, IDS = cases()


def sweep_values(control) -> list:
    """The values one control is swept through (never its current one)."""
    if isinstance(control, (widgets.Dropdown, widgets.ToggleButtons, widgets.SelectionSlider,
                            widgets.RadioButtons)):
        values = [value for _label, value in _options(control)]
        if isinstance(control, widgets.SelectionSlider) and len(values) > 5:
            values = [values[round(k * (len(values) - 1) / 4)] for k in range(5)]
    elif isinstance(control, widgets.Checkbox):
        values = [not control.value]
    elif isinstance(control, widgets.FloatLogSlider):
        values = [control.base ** x for x in _points(control.min, control.max, control.step)]
    elif isinstance(control, (widgets.FloatSlider, widgets.IntSlider)):
        values = _points(control.min, control.max, control.step)
        values = [int(v) for v in values] if isinstance(control, widgets.IntSlider) else values
    else:
        values = []  # typed text: the instrument's own tests type what it asks for
    return [v for v in dict.fromkeys(values) if v != control.value]


def _options(control):
    labels = control._options_labels
    return list(zip(labels, control._options_values))


def _points(lo, hi, step) -> list:
    """Seven points from lo to hi on the slider's steps: the ends and values such as 2.7
    (more digits than the round ones)."""
    steps = math.floor((hi - lo) / step + 1e-9)
    return [round(lo + round(k) * step, 10) for k in np.linspace(0, steps, 7)]


@pytest.mark.parametrize("module, kwargs", CASES, ids=IDS)
def test_every_setting_of_an_instrument_draws_a_clean_picture(module, kwargs):
    """Each setting's picture is checked when the Explorer draws it (tests/conftest.py), so a
    defect names the instrument, its setting and what overlaps what. (An instrument whose
    controls are all typed text is seen at its start here; its own tests type the settings
    it asks for, checked the same way.)"""
    explorer: Explorer = importlib.import_module(module).explore(**kwargs)
    assert explorer.error is None, f"{module}{kwargs}: the starting setting is impossible: {explorer.error}"
    for name, control in explorer.controls.items():
        if name in NOT_SWEPT.get(module, ()):
            continue
        start = control.value
        for value in sweep_values(control):
            control.value = value
        control.value = start
    for setting in ONCE.get(module, []):
        for name, value in setting.items():
            explorer.controls[name].value = value


def test_a_picture_drawn_during_any_test_is_checked():
    """The Explorer checks each setting's picture while pytest runs (the hook in conftest.py
    fails the test at its end): an instrument drawing two labels on each other is caught."""
    def model(x):
        return x

    def draw(x, ax=None):
        ax.text(0.2, 0.5, f"x = {x}", fontsize=12)
        ax.text(0.22, 0.5, "on top", fontsize=12)

    explorer = Explorer({"x": widgets.IntSlider(value=1, min=0, max=3)}, model, draw, title="bad")
    explorer.controls["x"].value = 2
    found = picture_check.take_found()  # taken here, so this test itself passes
    assert [f for f in found if f.startswith("bad [x=1]") and "'x = 1' overlaps 'on top'" in f], found
    assert [f for f in found if f.startswith("bad [x=2]")], found


def test_a_legend_is_read_on_its_frame_and_hides_what_it_covers():
    figure, ax = blank()
    ax.bar([2, 5], [9, 4], width=2, label="pass 1")
    ax.legend(loc="upper left")  # over the first bar: its text is on the legend's frame
    assert picture_check.problems(figure) == []
    ax.text(0.5, 9.2, "under the legend", fontsize=9)
    assert any("the legend covers 'under the legend'" in p for p in picture_check.problems(figure))


def test_a_box_is_its_drawn_part_cut_at_the_axes_edge():
    figure = Figure(figsize=(4, 3), dpi=96)
    ax = figure.add_axes((0.25, 0.2, 0.7, 0.7))
    ax.set_xlim(0, 10)
    ax.axvspan(-100, 4, color="#eeeeee")  # reaches far left of the axes: drawn up to their edge
    ax.set_ylabel("a label left of the axes")
    assert picture_check.problems(figure) == []


def test_text_smaller_than_12_css_px_where_it_is_shown_is_named():
    """Issue 38: 05's timeline had 8 pt tick labels (10.7 CSS px). Given the width a figure is
    shown at, every text under 12 CSS px is named, tick labels included; a figure shown
    narrower than its size makes its text smaller still."""
    figure = Figure(figsize=(4, 3), dpi=96)
    ax = figure.add_axes((0.2, 0.2, 0.7, 0.7))
    ax.set_xlim(0, 100)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_yticks([])
    ax.set_xlabel("nine points", fontsize=9)
    assert picture_check.problems(figure) == []  # without a width: no size check
    found = picture_check.problems(figure, shown_px=4 * 96)
    assert any(p.startswith("'0' is 10.7 CSS px (8 pt)") for p in found), found
    assert not any("nine points" in p for p in found)
    assert any("nine points" in p for p in picture_check.problems(figure, shown_px=3 * 96))


def test_the_explorer_raises_tick_labels_made_while_it_draws():
    """Ticks an axis makes while the figure is drawn (more than it had when the labels were
    raised) take the axis's own size: the Explorer raises that too, so no label is small."""
    def draw(n, ax=None):
        ax.set_position((0.15, 0.2, 0.8, 0.7))  # room for the tick labels
        ax.plot([0, n], [0, 1])
        ax.tick_params(axis="both", labelsize=7)
        ax.set_xlim(0, n)  # set after the ticks exist: drawing makes new ones
        ax.set_xlabel("x")

    explorer = Explorer({"n": widgets.IntSlider(value=10, min=1, max=10_000)}, lambda n: n, draw,
                        title="ticks", figsize=(5, 3))
    explorer.controls["n"].value = 9_999
    found = picture_check.take_found()
    assert not found, found
    assert picture_check.problems(explorer.figure, shown_px=5 * 96) == []
