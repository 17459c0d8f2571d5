"""The explore layer shared by every instrument: controls wired to model -> draw.

An ``Explorer`` is an ipywidgets VBox: the controls, a message line, and the figure as a
PNG image widget. When a control changes it calls ``model(**values)`` then
``draw(result, ax)`` on one reused matplotlib Figure (not pyplot's, so nothing is
displayed twice). A ``ValueError`` from the model is an impossible setting: its message
is shown inside the widget in place of the figure, and the controls stay usable.

Without a front end (nbmake, nbconvert) the widget view cannot render, so the display
bundle also carries the current figure as image/png: an executed notebook shows a picture.
"""

from __future__ import annotations

import base64
import html
import io
import time
from collections.abc import Callable, Mapping

import ipywidgets as widgets
from matplotlib.figure import Figure

FIGSIZE = (7.5, 3.6)
DPI = 80


class Explorer(widgets.VBox):
    def __init__(self, controls: Mapping[str, widgets.ValueWidget], model: Callable,
                 draw: Callable, title: str = "", figsize=FIGSIZE):
        self.controls = dict(controls)
        self.model, self.draw = model, draw
        # Fixed margins, not constrained layout: that lays the figure out by drawing it an
        # extra time, which was a third of every update's rasterisation.
        self.figure = Figure(figsize=figsize, dpi=DPI)
        self.figure.subplots_adjust(left=0.03, right=0.97, bottom=0.04, top=0.88)
        self.message = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.result = None
        self.error: str | None = None
        self.timings: dict[str, float] = {}
        header = [widgets.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        panel = widgets.HBox(list(self.controls.values()),
                             layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__(header + [panel, self.message, self.image])
        self.add_class("course-explorer")
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update()

    def values(self) -> dict:
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, _change) -> None:
        self.update()

    def compute(self) -> None:
        """Model then draw, timed separately; an impossible setting becomes ``self.error``."""
        start = time.perf_counter()
        try:
            self.result = self.model(**self.values())
            self.error = None
        except ValueError as problem:
            self.result, self.error = None, str(problem)
        modelled = time.perf_counter()
        self.figure.clear()
        if self.error is None:
            self.draw(self.result, ax=self.figure.add_subplot())
        drawn = time.perf_counter()
        self.timings = {"model": modelled - start, "draw": drawn - modelled}

    def render_png(self) -> bytes:
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=DPI)
        return buffer.getvalue()

    def update(self) -> None:
        self.compute()
        if self.error is None:
            self.message.value = ""
            self.image.value = self.render_png()
            self.image.layout.display = None
        else:
            self.message.value = ("<div class='course-explorer-error' style='color:#b00020'>"
                                  f"⚠ {html.escape(self.error)}</div>")
            self.image.layout.display = "none"

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if self.error is None and self.image.value:
            bundle["image/png"] = base64.b64encode(self.image.value).decode()
        else:
            bundle["text/plain"] = self.error or ""
        return bundle
