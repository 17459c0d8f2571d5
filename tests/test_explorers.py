"""Each explorer builds, answers a control change with a new picture, and turns an
impossible setting into a message inside the widget, above the last valid picture, that a
valid setting clears. The Explorer's shared behaviour (sharp SVG at CSS size, text no
smaller than 12 CSS px, typed slider values, the Enter hint, closing an earlier run's
explorers) is tested on its own small instrument."""

import re
import xml.etree.ElementTree as ET

import ipywidgets as widgets
import matplotlib
import pytest

matplotlib.use("Agg")

from helpers import broadcasting, strides  # noqa: E402
from helpers import explorer as explorer_module  # noqa: E402
from helpers.explorer import CSS_DPI, Explorer  # noqa: E402

# (module, a valid change, an impossible change, a control to restore)
CASES = {
    "strides": (strides, {"op": "none", "index": "1, 2"},
                {"then": "view", "then_args": "4"}, {"then": "none"}),
    "broadcasting": (broadcasting, {"a": "5"}, {"b": "64, x"}, {"b": "4"}),
}


def set_values(explorer, values):
    for name, value in values.items():
        explorer.controls[name].value = value


@pytest.mark.parametrize("name", CASES)
def test_explorer_builds_and_responds(name):
    module, change, impossible, restore = CASES[name]
    explorer = module.explore()
    assert explorer.error is None and explorer.image.value
    assert "image/png" in explorer._repr_mimebundle_()[0]
    before = explorer.image.value
    set_values(explorer, change)
    assert explorer.error is None
    assert explorer.image.value != before

    *first, last = impossible.items()
    set_values(explorer, dict(first))  # e.g. an op picked: its arguments are not typed yet
    assert explorer.error is None
    valid = explorer.image.value
    set_values(explorer, dict([last]))
    assert explorer.error, "an impossible setting should produce a message"
    assert "⚠" in explorer.message.value and "last valid setting" in explorer.message.value
    assert explorer.image.value == valid, "the last valid picture must stay"
    assert "course-explorer-stale" in explorer.image._dom_classes
    assert "image/png" in explorer._repr_mimebundle_()[0]

    set_values(explorer, restore)
    assert explorer.error is None and explorer.message.value == ""
    assert "course-explorer-stale" not in explorer.image._dom_classes


def test_stride_explorer_shows_the_formula_for_the_chosen_index():
    explorer = strides.explore(op="none", index="1, 2")
    assert explorer.result.formula() == "offset(1, 2) = 0 + 1·3 + 2·1 = 5"


def test_broadcast_mismatch_is_drawn_not_an_error():
    explorer = broadcasting.explore(a="3", b="4")
    assert explorer.error is None and explorer.result.failing_axis == -1


# --- the Explorer itself -------------------------------------------------------------------

class Line:
    def __init__(self, slope, note=""):
        self.slope, self.note = slope, note


def line_model(slope: float = 1.0, label: str = "y"):
    if slope > 2.5:
        raise ValueError("slope above 2.5 leaves the plot")
    return Line(slope, "slope 0 is a flat line" if slope == 0 else "")


def draw_line(result, ax=None):
    ax.set_position((0.12, 0.16, 0.84, 0.68))  # room for the tick labels (picture_check)
    ax.plot([0, 1], [0, result.slope])
    ax.text(0.1, 0.5, "tiny label", fontsize=5, transform=ax.transAxes)
    ax.set_title("a line", fontsize=14)
    return ax.figure


def small_explorer(**kwargs):
    controls = {"slope": widgets.FloatSlider(value=1.0, min=-3, max=3, step=0.075),
                "label": widgets.Text(value="y", continuous_update=False)}
    return Explorer(controls, line_model, draw_line, title="line", figsize=(5, 2.5), **kwargs)


def svg_font_sizes(svg: bytes) -> list[float]:
    """Font sizes (in the SVG's pt user units) of every <text>, whichever way mpl writes them."""
    text = svg.decode()
    return [float(s) for s in re.findall(r"font[^;\"]*?:\s*(?:[a-z]+\s+)*([\d.]+)px", text)]


def test_picture_is_svg_at_css_size_with_text_at_least_12_css_px():
    e = small_explorer()
    root = ET.fromstring(bytes(e.image.value))
    assert root.tag.endswith("svg") and e.image.format == "svg+xml"
    width_pt = float(root.get("width").removesuffix("pt"))
    assert width_pt / 72 * CSS_DPI == pytest.approx(5 * CSS_DPI)  # natural size in CSS px
    assert e.image.layout.width == f"{5 * CSS_DPI}px" and e.image.layout.max_width == "100%"
    assert b"<text" in bytes(e.image.value), "text is kept as text (sharp at any pixel ratio)"
    sizes = svg_font_sizes(bytes(e.image.value))
    assert sizes, "no font sizes found in the SVG"
    # SVG user units are points (1/72 in); the picture is shown at 96 CSS px per inch
    assert min(sizes) * CSS_DPI / 72 >= 12 - 1e-6, sizes


def draw_diagram(result, ax=None):
    ax.text(0.2, 0.5, "small", fontsize=5)
    ax.text(0.6, 0.5, r"$x = 2$", fontsize=6)  # mathtext: measured each time, not remembered
    ax.set_title(f"slope {result.slope:g}", fontsize=7)
    ax.set_axis_off()
    return ax.figure


def test_text_of_a_diagram_drawn_with_its_axis_off_is_raised_too():
    controls = {"slope": widgets.FloatSlider(value=1.0, min=-3, max=3, step=0.075),
                "label": widgets.Text(value="y", continuous_update=False)}
    e = Explorer(controls, line_model, draw_diagram, figsize=(5, 2.5))
    sizes = svg_font_sizes(bytes(e.image.value))
    assert len(sizes) >= 2 and min(sizes) * CSS_DPI / 72 >= 12 - 1e-6, sizes


def plain_svg(figure) -> bytes:
    import io
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "course"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


@pytest.mark.parametrize("draw", [draw_line, draw_diagram])
def test_remembered_text_extents_change_no_byte_of_the_picture(draw):
    from matplotlib.backends.backend_svg import RendererSVG
    measure = RendererSVG.get_text_width_height_descent
    controls = {"slope": widgets.FloatSlider(value=1.0, min=-3, max=3, step=0.075),
                "label": widgets.Text(value="y", continuous_update=False)}
    e = Explorer(controls, line_model, draw, figsize=(5, 2.5))
    for slope in (0.5, 1.5, 0.5):  # the second 0.5 is drawn from remembered extents
        e.controls["slope"].value = slope
        assert bytes(e.image.value) == e.render() == plain_svg(e.figure)
    assert RendererSVG.get_text_width_height_descent is measure, "the renderer is left patched"
    assert explorer_module._EXTENTS, "nothing was remembered"


def test_the_picture_on_screen_keeps_its_figure_while_the_next_is_prepared():
    e = small_explorer()
    shown = e.figure
    assert e._spare is not None and e._spare[0] is not shown and not e._spare[1].lines
    e.controls["slope"].value = 2.0
    assert e.figure is not shown and e.figure.axes[0].lines  # drawn on the spare
    assert e._spare[0] is shown and not shown.axes[0].lines  # the old one, emptied after sending
    assert bytes(e.image.value) == plain_svg(e.figure)
    e.compute()  # without a prepared spare (benchmarks call compute alone) it still draws
    e.compute()
    assert e.figure.axes[0].lines


def test_png_is_rendered_at_twice_the_css_size():
    e = small_explorer(image_format="png")
    assert bytes(e.image.value[:8]) == b"\x89PNG\r\n\x1a\n" and e.image.format == "png"
    width = int.from_bytes(bytes(e.image.value[16:20]), "big")
    assert width == 2 * 5 * CSS_DPI
    assert "image/png" in e._repr_mimebundle_()[0]


def test_notes_are_information_and_errors_keep_the_picture():
    e = small_explorer()
    e.controls["slope"].value = 0.0
    assert e.error is None and "flat line" in e.message.value and "⚠" not in e.message.value
    flat = e.image.value
    e.controls["slope"].value = 2.9
    assert e.error and "leaves the plot" in e.message.value and e.image.value == flat
    e.controls["slope"].value = 1.0
    assert e.error is None and e.message.value == "" and e.image.value != flat


def test_sliders_get_a_number_box_and_text_boxes_say_enter_applies():
    e = small_explorer()
    boxes = [w for w in walk(e) if isinstance(w, widgets.BoundedFloatText)]
    assert len(boxes) == 1 and boxes[0].value == 1.0 and boxes[0].min == -3
    assert e.controls["slope"].readout is False
    linked = {link.source[1] for link in e.links
              if link.source[0] is e.controls["slope"] and link.target[0] is boxes[0]}
    assert linked == {"value", "min", "max"}, "the number box is not linked to the slider"
    # the browser's sum of steps reaches the box and the model as the number it stands for
    e.controls["slope"].value = -3 + 61 * 0.075  # 1.5750000000000002 in binary floating point
    assert boxes[0].value == 1.575 and e.values()["slope"] == 1.575 and e.result.slope == 1.575
    boxes[0].value = 1.2345  # typed: more digits than the step has, kept as typed
    assert e.controls["slope"].value == 1.2345 and e.result.slope == 1.2345
    assert any(explorer_module.ENTER_HINT in w.value for w in walk(e) if isinstance(w, widgets.HTML))


def test_log_and_choice_sliders_get_their_boxes_too():
    """Issue 38: 04's lr (a FloatLogSlider) and 06's "elements" (a SelectionSlider) had no box.
    A log slider's box shows three significant digits and the model gets that number; a typed
    value is kept; a slider over a list of values gets a dropdown of them, linked both ways."""
    def model(lr, size):
        return (lr, size)

    def draw(result, ax=None):
        ax.set_title(f"lr {result[0]}, size {result[1]}")
        ax.set_axis_off()

    e = Explorer({"lr": widgets.FloatLogSlider(value=10 ** -1.75, base=10, min=-4, max=1.5, step=0.25),
                  "size": widgets.SelectionSlider(options=[2 ** k for k in range(10, 14)], value=2048)},
                 model, draw)
    box = next(w for w in walk(e) if isinstance(w, widgets.BoundedFloatText))
    choice = next(w for w in walk(e) if isinstance(w, widgets.Dropdown))
    assert (box.value, box.min, box.max) == (0.0178, 0.0001, 31.6227766017)
    assert e.result == (0.0178, 2048) and not e.controls["lr"].readout and not e.controls["size"].readout
    e.controls["lr"].value = 10 ** -1.5  # a step of the slider: 0.031622776601683794
    assert box.value == 0.0316 and e.result[0] == 0.0316
    box.value = 0.05
    assert e.controls["lr"].value == 0.05 and e.result[0] == 0.05
    assert list(choice.options) == [1024, 2048, 4096, 8192]
    choice.value = 8192
    assert e.controls["size"].value == 8192 and e.result == (0.05, 8192)
    e.controls["size"].value = 1024
    assert choice.value == 1024


def test_a_rerun_of_the_same_cell_closes_the_earlier_explorer(monkeypatch):
    requests = iter(["run-1", "run-2"])
    monkeypatch.setattr(explorer_module, "_current_cell", lambda: ("cell-a", next(requests)))
    first = small_explorer()
    second = small_explorer()
    assert first.comm is None and first.controls["slope"].comm is None, "first explorer still open"
    assert second.comm is not None
    second.close()


def walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def test_picking_an_op_waits_for_its_arguments_and_clears_old_ones():
    e = strides.explore(op="transpose", args="0, 1")
    e.controls["op"].value = "view"
    assert e.controls["args"].value == "", "arguments of transpose were left for view"
    assert e.error is None and "arguments of view" in e.message.value and "⚠" not in e.message.value
    e.controls["args"].value = "4, 2"
    assert e.error and e.error.startswith("view(4, 2)") and "⚠" in e.message.value
    e.controls["args"].value = "3, 2"
    assert e.error is None and e.result.layout.shape == (3, 2) and e.message.value == ""


def test_the_first_explorer_freezes_what_the_kernel_imported():
    import gc
    small_explorer()
    frozen = gc.get_freeze_count()
    assert frozen > 10_000, "torch and matplotlib's objects should be out of the collector's reach"
    small_explorer()
    assert gc.get_freeze_count() == frozen, "only the first explorer freezes"


# Every instrument's picture, at every setting of a sweep of its controls: tests/test_pictures.py.
