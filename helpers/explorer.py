"""The explore layer shared by every instrument: controls wired to model -> draw.

An ``Explorer`` is an ipywidgets VBox: the controls, a message line, and the figure as an
image widget. When a control changes it calls ``model(**values)`` then ``draw(result, ax)``
on one reused matplotlib Figure (not pyplot's, so nothing is displayed twice).

What every instrument gets from it:

* **Sharp pictures.** The figure is sent as SVG (text stays text, crisp at any device pixel
  ratio and at any width) and shown at its size in CSS pixels: a figure of ``figsize``
  inches is ``96 * figsize`` px wide (smaller only when the notebook is narrower), so a
  9 pt label is 12 CSS px. Labels drawn smaller than ``min_fontsize`` points are raised to
  it. ``image_format="png"`` sends a PNG rendered at twice that size instead (for figures
  with very many artists, where SVG is slower).
* **Impossible settings keep the picture.** A ``ValueError`` from the model is shown as a
  message above the last valid picture, which is greyed out until a valid setting comes back;
  the controls stay usable. A model may also return a result with a ``note`` attribute (a
  short string): it is shown in the message line as information, not as an error (e.g.
  "type the arguments of view and press Enter").
* **Typed values.** Every FloatSlider/IntSlider gets a number box beside it, so that a value
  the slider's step cannot reach (b = 1.0) can be typed; the box shows the number a value
  stands for (2.1, not the browser's sum of steps 2.0999999999999996), and so does the model.
  A FloatLogSlider's box shows (and the model gets) three significant digits (lr 0.0178); a
  SelectionSlider gets a dropdown of its values.
* **Whole controls.** A dropdown is as wide as its longest option; a toggle's label sits
  beside its buttons, like every other control's. Text
  boxes apply on Enter, and the explorer says so under its controls.
* **A reopened notebook shows the picture.** The display bundle also carries the figure
  as a 2x PNG (safe, so shown even in an untrusted notebook), so nbconvert, nbmake and any
  front end without widgets show it; with the lab's saved widget state (lab/ config) a reopened notebook shows the
  last picture; a view whose kernel is gone (restart, reopened notebook) says exactly which
  cells to run (this one, after the earlier cells that define what it uses, named by their
  first lines: helpers.lab.rerun) instead of showing broken-link icons. Re-running a cell closes the explorers
  that cell made before, so that saved widget state does not pile up.

``compute()`` (model + draw, timed in ``timings``), ``render()`` (the bytes the image widget
shows; ``render_png()`` is the same function under its older name) and ``update()`` (all of it,
into the widgets) are public, for benchmarks and for instruments that stream (live curves).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import html
import io
import math
import os
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping

import ipywidgets as widgets
import matplotlib
from matplotlib import font_manager
from matplotlib.axis import Axis
from matplotlib.backends.backend_svg import RendererSVG
from matplotlib.figure import Figure
from matplotlib.text import Text

from helpers.lab import rerun

FIGSIZE = (7.5, 3.6)
CSS_DPI = 96          # matplotlib inches -> CSS pixels, as browsers count them
PNG_SCALE = 2         # device pixels per CSS pixel for image_format="png"
MIN_FONTSIZE = 9      # points: 12 CSS px at CSS_DPI
ENTER_HINT = "Type in a box, then press Enter to apply it."
SPARE_DELAY_S = 0.03  # after a picture is sent, before the next figure is made ready
# Set to a process id, that process checks every setting's picture with helpers.lab.picture_check
# (tests/conftest.py sets it to pytest's own: a kernel that inherits it has another id).
CHECK_PICTURES = "COURSE_CHECK_PICTURES"
# shown when the kernel is gone; what to run is read from the kernel's history (helpers.lab.rerun)
OFFLINE_HINT = ("This is the last picture drawn: its controls stopped with the kernel (a restart, "
                "or a reopened notebook). {what}.")

# Shipped inside the widget (an HTML child), so that it also styles a view restored from
# saved state, and goes away with the widget.
STYLE = """<style>
.course-explorer .course-explorer-stale { opacity: 0.45; filter: grayscale(0.8); }
.course-explorer .widget-image { height: auto; }
.course-explorer-hint { color: var(--jp-ui-font-color2, #616161); font-size: 12px; }
.course-explorer-error { color: #b00020; font-size: 13px; }
.course-explorer-note { color: var(--jp-ui-font-color1, #333); font-size: 13px; }
.course-explorer-offline { display: none; }
.course-explorer.jupyter-widgets-disconnected .course-explorer-offline {
  display: block; color: var(--jp-ui-font-color1, #333); background: #fff8e1;
  border-left: 3px solid #f9a825; padding: 2px 8px; font-size: 13px; }
.course-explorer .jupyter-widgets-disconnected::before,
.course-explorer.jupyter-widgets-disconnected::before { display: none !important; content: none !important; }
.course-explorer .course-explorer-title { font-size: 14px; }
.course-explorer .widget-dropdown, .course-explorer .widget-dropdown > select { min-width: max-content; }
.course-explorer .widget-checkbox { margin-left: 12px; }
.course-explorer .widget-toggle-buttons { display: flex; align-items: center; width: auto; }
.course-explorer .widget-toggle-buttons > .widget-label {
  width: var(--jp-widgets-inline-label-width, 80px); text-align: right; flex-shrink: 0;
  margin-right: calc(var(--jp-widgets-inline-margin, 4px) * 2); }
</style>"""

_BY_CELL: dict[str, list] = {}  # notebook cell id -> [(request id, weakref to explorer)]


class Explorer(widgets.VBox):
    """controls -> ``model(**values)`` -> ``draw(result, ax)`` -> picture.

    ``controls`` maps the model's keyword names to value widgets; ``title`` is shown above
    them; ``figsize`` is in inches (96 CSS px each); ``image_format`` is ``"svg"`` (default)
    or ``"png"`` (rendered at ``PNG_SCALE`` times the CSS size); ``min_fontsize`` (points)
    raises smaller labels, ``None`` leaves them; ``typed_sliders`` adds a number box to every
    FloatSlider/IntSlider.
    """

    def __init__(self, controls: Mapping[str, widgets.ValueWidget], model: Callable,
                 draw: Callable, title: str = "", figsize=FIGSIZE, image_format: str = "svg",
                 min_fontsize: float | None = MIN_FONTSIZE, typed_sliders: bool = True):
        if image_format not in ("svg", "png"):
            raise ValueError(f"image_format is 'svg' or 'png', got {image_format!r}")
        self.controls = dict(controls)
        self.model, self.draw, self.title = model, draw, title
        self.image_format, self.min_fontsize = image_format, min_fontsize
        self.figsize = figsize
        # Two figures: `figure` holds the picture on screen; the spare is cleared and given
        # an empty Axes after each picture is sent, off the path from a change to its picture
        # (a new Axes builds its ticks: a fifth of an update).
        self.figure = self._blank_figure()
        self._spare: tuple[Figure, object] | None = None
        self.message = widgets.HTML()
        self.image = widgets.Image(
            format="svg+xml" if image_format == "svg" else "png",
            layout=widgets.Layout(width=f"{figsize[0] * CSS_DPI:.0f}px", max_width="100%",
                                  height="auto"))
        self.result = None
        self.error: str | None = None
        self.timings: dict[str, float] = {}
        self._computed_values: dict | None = None
        self.links: list = []  # kernel-side links of sliders to their number boxes
        head = [widgets.HTML(STYLE + (f"<b class='course-explorer-title'>{html.escape(title)}</b>"
                                      if title else ""))]
        self.offline_hint = OFFLINE_HINT.format(what=rerun.hint())
        offline = widgets.HTML(f"<div class='course-explorer-offline'>{html.escape(self.offline_hint)}</div>")
        shown = [self._with_number_box(c) if typed_sliders else c for c in self.controls.values()]
        panel = widgets.HBox(shown, layout=widgets.Layout(flex_flow="row wrap"))
        hints = []
        if any(isinstance(c, widgets.Text) and not c.continuous_update
               for c in self.controls.values()):
            hints.append(widgets.HTML(f"<span class='course-explorer-hint'>{ENTER_HINT}</span>"))
        super().__init__(head + [panel] + hints + [offline, self.message, self.image])
        self.add_class("course-explorer")
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self._replace_earlier_explorers_of_this_cell()
        freeze_imported_objects()
        self.update()

    # ------------------------------------------------------------------ controls

    def _with_number_box(self, control):
        """A slider gets a linked number box (typed values); anything else stays as it is."""
        if isinstance(control, widgets.FloatLogSlider):
            return self._with_log_box(control)
        if isinstance(control, widgets.SelectionSlider):
            return self._with_choice_box(control)
        if isinstance(control, widgets.FloatSlider):
            box = widgets.BoundedFloatText(value=control.value, min=control.min, max=control.max,
                                           step=control.step, layout=widgets.Layout(width="100px"))
        elif isinstance(control, widgets.IntSlider):
            box = widgets.BoundedIntText(value=control.value, min=control.min, max=control.max,
                                         step=control.step, layout=widgets.Layout(width="70px"))
        else:
            return control
        control.readout = False  # the box shows (and takes) the number
        # Linked in the kernel, not the browser: the browser adds steps in binary floating
        # point (-4 + 61 steps of 0.1 is 2.0999999999999996) and a browser link would show
        # every digit; the kernel passes the value on as the number it stands for.
        self.links += [widgets.dlink((control, "value"), (box, "value"), transform=plain_number),
                       widgets.dlink((box, "value"), (control, "value")),
                       *(widgets.link((control, name), (box, name)) for name in ("min", "max"))]
        return widgets.HBox([control, box], layout=widgets.Layout(align_items="center"))

    def _with_log_box(self, control):
        """A log slider's box shows its value to LOG_DIGITS significant digits, and that is
        the value the model gets (10 ** -1.75 is 0.0178, not 0.017782794100389229); a value
        typed in the box is kept as typed."""
        def bound(exponent):
            return plain_number(control.base ** exponent)
        box = widgets.BoundedFloatText(value=rounded(control.value), min=bound(control.min),
                                       max=bound(control.max), step=None,
                                       layout=widgets.Layout(width="100px"))
        control.readout = False
        self.links += [widgets.dlink((control, "value"), (box, "value"), transform=rounded),
                       widgets.dlink((box, "value"), (control, "value")),
                       widgets.dlink((control, "min"), (box, "min"), transform=bound),
                       widgets.dlink((control, "max"), (box, "max"), transform=bound)]
        return widgets.HBox([control, box], layout=widgets.Layout(align_items="center"))

    def _with_choice_box(self, control):
        """A slider over a list of values (sizes 2**10 … 2**22) gets a dropdown of the same
        values beside it: it shows the number, and any of them can be picked at once."""
        box = widgets.Dropdown(options=control.options, value=control.value,
                               layout=widgets.Layout(width="max-content"))
        control.readout = False
        self.links += [widgets.link((control, "value"), (box, "value"))]
        return widgets.HBox([control, box], layout=widgets.Layout(align_items="center"))

    def values(self) -> dict:
        return {name: plain_number(control.value) for name, control in self.controls.items()}

    def _on_change(self, _change) -> None:
        # one change can fire several observers (a dropdown that also clears its argument
        # box): draw once per distinct setting
        if self.values() == self._computed_values:
            return
        self.update()

    # ------------------------------------------------------------ model and draw

    def compute(self) -> None:
        """Model then draw, timed separately; an impossible setting becomes ``self.error``.

        On an error the figure keeps the last valid drawing (nothing is redrawn)."""
        start = time.perf_counter()
        values = self.values()
        try:
            result = self.model(**values)
            error = None
        except ValueError as problem:
            result, error = None, str(problem)
        modelled = time.perf_counter()
        self._computed_values = values
        self.error = error
        if error is None:
            self.result = result
            self.paint(self.draw, result)
        drawn = time.perf_counter()
        self.timings = {"model": modelled - start, "draw": drawn - modelled}

    def paint(self, draw: Callable, data) -> None:
        """``draw(data, ax)`` on an empty Axes; that figure becomes ``self.figure``.

        For instruments that redraw between model runs (live curves) as well as for compute."""
        figure, ax = self._spare or self._blank_axes()
        self._spare = None
        draw(data, ax=ax)
        self._raise_small_text(figure)
        self.figure, self._used = figure, self.figure

    def prepare_spare(self) -> None:
        """Clear the figure that went off screen and give it an empty Axes, so that the next
        change draws at once. Called after a picture is sent; harmless to call twice."""
        used = getattr(self, "_used", None)
        if self._spare is None and used is not None:
            used.clear()
            self._spare, self._used = (used, used.add_subplot()), None

    def prepare_spare_soon(self) -> None:
        """prepare_spare, a moment after the kernel has answered (SPARE_DELAY_S, on the
        kernel's event loop): done at once, it held the interpreter while the thread that
        sends the picture's message waited for it, and kept the kernel from saying it is idle.
        A change that comes sooner draws on a new figure; without an event loop (a script, a
        test), at once."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.prepare_spare()
            return
        loop.call_later(SPARE_DELAY_S, self.prepare_spare)

    def _blank_figure(self) -> Figure:
        # Fixed margins, not constrained layout: that lays the figure out by drawing it an
        # extra time, which was a third of every update's rasterisation.
        figure = Figure(figsize=self.figsize, dpi=CSS_DPI)
        figure.subplots_adjust(left=0.03, right=0.97, bottom=0.04, top=0.88)
        return figure

    def _blank_axes(self):
        figure = self._blank_figure()
        return figure, figure.add_subplot()

    def _raise_small_text(self, figure: Figure) -> None:
        if self.min_fontsize is None:
            return
        for text in _texts(figure):
            if text.get_text() and text.get_fontsize() < self.min_fontsize:
                text.set_fontsize(self.min_fontsize)
        # tick labels made while the figure is drawn (an axis that needs more ticks than it
        # has now) take the axis's own size, not that of the labels raised above
        for ax in figure.axes:
            if not ax.axison:
                continue
            for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
                for which in ("major", "minor"):
                    size = axis.get_tick_params(which=which).get(
                        "labelsize", matplotlib.rcParams[f"{name}tick.labelsize"])
                    if font_manager.FontProperties(size=size).get_size_in_points() < self.min_fontsize:
                        ax.tick_params(axis=name, which=which, labelsize=self.min_fontsize)

    def render(self) -> bytes:
        """The current figure as the bytes the image widget shows (SVG or 2x PNG)."""
        buffer = io.BytesIO()
        if self.image_format == "svg":
            # text as <text> elements: sharp, small, and much faster than text as paths
            with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "course"}), \
                    remembered_text_extents():
                self.figure.savefig(buffer, format="svg", metadata={"Date": None})
        else:
            self.figure.savefig(buffer, format="png", dpi=CSS_DPI * PNG_SCALE)
        return buffer.getvalue()

    render_png = render  # the name instruments used when every picture was a PNG

    def note(self) -> str:
        """The model result's ``note`` (information, not an error), or ""."""
        return str(getattr(self.result, "note", "") or "")

    def update(self) -> None:
        """compute(), then the picture and the message line."""
        self.compute()
        if self.error is None:
            self.show()
            note = self.note()
            self.message.value = (f"<div class='course-explorer-note'>{html.escape(note)}</div>"
                                  if note else "")
            if os.environ.get(CHECK_PICTURES) == str(os.getpid()):
                from helpers.lab import picture_check
                picture_check.record(self)
        else:
            kept = " (the picture shows the last valid setting)" if self.image.value else ""
            self.message.value = ("<div class='course-explorer-error'>"
                                  f"⚠ {html.escape(self.error)}{kept}</div>")
            self.image.add_class("course-explorer-stale")
        self.prepare_spare_soon()

    def show(self) -> None:
        """Send the current figure to the image widget."""
        self.image.value = self.render()
        self.image.remove_class("course-explorer-stale")

    # ------------------------------------------------------------- lifecycle

    def _replace_earlier_explorers_of_this_cell(self) -> None:
        """Close the explorers an earlier run of the same notebook cell made (their views are
        gone from the page; their models would otherwise stay in the kernel and in saved
        widget state)."""
        cell, request = _current_cell()
        if cell is None:
            return
        kept = []
        for made_by, ref in _BY_CELL.get(cell, []):
            explorer = ref()
            if explorer is None:
                continue
            if made_by != request:
                explorer.close()
            else:
                kept.append((made_by, ref))
        _BY_CELL[cell] = kept + [(request, weakref.ref(self))]

    def close(self) -> None:
        """Close this explorer and every widget inside it."""
        def close_tree(widget):
            for child in getattr(widget, "children", ()):
                close_tree(child)
            if widget is not self:
                widget.close()
        close_tree(self)
        links, self.links = self.links, []  # (close runs again when the widget is collected)
        for link in links:
            link.unlink()
        for widget in self.controls.values():
            widget.close()
        super().close()

    def _repr_mimebundle_(self, **kwargs):
        """The widget, and the picture as a 2x PNG for every front end that cannot show the
        widget: nbconvert, a notebook reopened without its widget state, and an untrusted
        notebook (JupyterLab renders neither widgets nor SVG there, but PNG it does)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if self.image.value:
            if self.image_format == "png":
                png = bytes(self.image.value)
            else:
                buffer = io.BytesIO()
                self.figure.savefig(buffer, format="png", dpi=CSS_DPI * PNG_SCALE)
                png = buffer.getvalue()
            bundle["image/png"] = base64.b64encode(png).decode()
        # a line, not the widget tree's repr, where nothing else can be shown
        bundle["text/plain"] = self.error or f"{self.title or 'Explorer'}: run this cell to use it"
        if "image/png" in bundle:  # shown at CSS size, so the 2x pixels stay sharp
            return bundle, {"image/png": {"width": int(self.figure.get_figwidth() * CSS_DPI)}}
        return bundle


def plain_number(value):
    """A float as the number it stands for (12 significant digits: 2.0999999999999996 is
    2.1, a typed 1.25 stays 1.25); anything else as it is."""
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.12g}")
    return value


LOG_DIGITS = 3  # significant digits of a log slider's value (its steps are ratios)


def rounded(value):
    """A float to LOG_DIGITS significant digits (0.017782794 is 0.0178); anything else as it is."""
    if isinstance(value, float) and math.isfinite(value) and value != 0:
        return float(f"{value:.{LOG_DIGITS}g}")
    return value


def freeze_imported_objects() -> None:
    """Once per kernel: move everything alive now (torch, matplotlib and the rest of what the
    notebook imported) out of the garbage collector's reach. A full collection otherwise
    walks all of it and paused an update for up to 167 ms (22 ms once frozen); drawing makes
    enough garbage that one came every twenty updates or so. Garbage is collected first, so
    none is kept; what is created later is collected as usual."""
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


_EXTENTS: OrderedDict = OrderedDict()  # (text, font files, size) -> (width, height, descent)
_EXTENTS_KEPT = 4096
_HEIGHTS: dict = {}  # (font files, size) -> (ascent, descent, line gap) of the font, in points
_FONTS: dict = {}    # (a FontProperties' fields, the rc font lists) -> its font files
_FONT_LISTS = ("font.family", "font.sans-serif", "font.serif", "font.monospace", "font.cursive",
               "font.fantasy")


@contextlib.contextmanager
def remembered_text_extents():
    """While it is open, the SVG renderer measures each plain label once per kernel, not once
    per picture: matplotlib's own cache is keyed by the renderer, and savefig makes a new one
    each time, so every redraw laid out every label again with FreeType (a fifth of it).
    A plain label's extent depends only on its string, its font files and its size. So do a
    font's line metrics, which matplotlib (3.11) otherwise reads from the font's tables for
    every text of every picture, unless the renderer offers ``_get_font_height_metrics``:
    here it does, with the same numbers, remembered. Which font files a FontProperties means
    is remembered too, keyed by its fields and the rc font lists (finding them was a tenth)."""
    measure = RendererSVG.get_text_width_height_descent
    lists = tuple(tuple(matplotlib.rcParams[name]) for name in _FONT_LISTS)

    def files(prop) -> tuple:
        key = (tuple(prop.get_family()), prop.get_slant(), prop.get_variant(), prop.get_weight(),
               prop.get_stretch(), prop.get_size(), prop.get_file(), prop.get_math_fontfamily(), lists)
        if key not in _FONTS:
            if len(_FONTS) > _EXTENTS_KEPT:
                _FONTS.clear()
            _FONTS[key] = tuple(font_manager.fontManager._find_fonts_by_props(prop))
        return _FONTS[key]

    def remembered(renderer, s, prop, ismath):
        if ismath:  # mathtext and TeX also depend on rcParams: measured each time
            return measure(renderer, s, prop, ismath)
        key = (s, files(prop), prop.get_size_in_points())
        if key in _EXTENTS:
            _EXTENTS.move_to_end(key)
        else:
            _EXTENTS[key] = measure(renderer, s, prop, ismath)
            if len(_EXTENTS) > _EXTENTS_KEPT:
                _EXTENTS.popitem(last=False)
        return _EXTENTS[key]

    def heights(renderer, prop):
        """What Text._get_layout reads from the font's OS/2 or hhea table, at the 72 dpi
        savefig gives an SVG figure; (None, None, None) makes it read them itself."""
        key = (files(prop), prop.get_size_in_points())
        if key not in _HEIGHTS:
            _HEIGHTS[key] = _font_heights(list(key[0]), key[1], dpi=72)
        return _HEIGHTS[key]

    offered = "_get_font_height_metrics" in vars(RendererSVG)  # (a later matplotlib's own)
    RendererSVG.get_text_width_height_descent = remembered
    if not offered:
        RendererSVG._get_font_height_metrics = heights
    try:
        yield
    finally:
        RendererSVG.get_text_width_height_descent = measure
        if not offered:
            del RendererSVG._get_font_height_metrics


def _font_heights(files: list, size: float, dpi: float):
    """(ascent, descent, line gap) as matplotlib's Text._get_layout computes them."""
    font = font_manager.get_font(files)
    for table_name, gap, ascent, descent in (("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
                                             ("hhea", "lineGap", "ascent", "descent")):
        table = font.get_sfnt_table(table_name)
        if table is None:
            continue
        scale = 1 / font.get_sfnt_table("head")["unitsPerEm"] * size * dpi / 72
        return table[ascent] * scale, -table[descent] * scale, table[gap] * scale
    return None, None, None


def _texts(artist):
    """Every Text under artist, without building the ticks of an Axes drawn with its axis off
    (asking a hidden axis for its children creates them; they are never drawn)."""
    for child in artist.get_children():
        if isinstance(child, Axis) and not child.axes.axison:
            continue
        if isinstance(child, Text):
            yield child
        yield from _texts(child)


def _current_cell() -> tuple[str | None, str | None]:
    """(notebook cell id, request id) of the execution running now, when a front end that
    sends cell ids (JupyterLab) asked for it; (None, None) otherwise."""
    try:
        from IPython import get_ipython
        kernel = get_ipython().kernel
        parent = kernel.get_parent() if hasattr(kernel, "get_parent") else kernel._parent_header
        return parent["metadata"].get("cellId"), parent["header"].get("msg_id")
    except Exception:  # no IPython, no kernel, no metadata: nothing to replace
        return None, None
