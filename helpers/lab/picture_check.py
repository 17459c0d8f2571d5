"""What an instrument's picture must never do, checked on the figure itself.

``problems(figure)`` draws the figure once (Agg, at its own dpi: 96, so one display unit is
one CSS pixel) while recording what was drawn, and returns one sentence per defect:

* two texts overlap (a text's footprint is its box patch when it has one, e.g. an edge
  label on a white pad, else its own extent);
* a text leaves the figure;
* a text crosses the outline of a drawn box (a node, a bar, a table cell, a storage square):
  a text is either inside a box, at least ``MARGIN`` px from its outline, or clear of it;
* a text covers or touches an arrowhead (the head of a FancyArrowPatch, annotate's arrows
  included) or the end mark of an error bar: it keeps ``CLEARANCE`` px from them;
* given the width the picture is shown at (an Explorer's), a text smaller than
  ``MIN_TEXT_PX`` CSS pixels there (9 pt at the Explorer's 96 px per inch), tick labels
  included.

It checks what the draw layer produced, not how: every instrument is held to it by
tests/test_pictures.py (every instrument, every setting of its controls' sweep) and by the
tests of each instrument (tests/conftest.py checks every picture an Explorer paints while a
test runs).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection, PatchCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.patches import FancyArrowPatch, Patch
from matplotlib.path import Path
from matplotlib.spines import Spine
from matplotlib.text import Text
from matplotlib.transforms import Bbox

MARGIN = 2.0   # px between a text and the outline of the box it sits in
OVERLAP = 0.5  # px: two footprints that share less than this in either direction do not overlap
EDGE = 1.0     # px a text may poke out of the figure (antialiasing)
CLEARANCE = 2.0  # px between a label and an arrowhead or an error bar's end (touching reads as one)
MIN_TEXT_PX = 12.0  # CSS px: the smallest text a student is asked to read


@dataclass(frozen=True)
class Drawn:
    texts: list          # (Text, footprint Bbox) of every non-empty text drawn
    boxes: list          # (label, Path in display coordinates, its Legend or None) of every box drawn
    heads: list          # (label, Bbox) of every arrowhead and error-bar end mark
    size: tuple          # the figure's (width, height) in px
    in_legend: dict      # id(Text) -> the Legend it belongs to
    frames: list         # the Bbox of every legend's frame: it hides what it covers


@contextlib.contextmanager
def _recording(seen: dict):
    """Record every Text, Patch, FancyArrowPatch and PatchCollection drawn while open."""
    originals = {Text: Text.draw, Patch: Patch.draw, FancyArrowPatch: FancyArrowPatch.draw,
                 Collection: Collection.draw}

    def recorder(kind, draw):
        def record(artist, renderer):
            seen.setdefault(kind, []).append(artist)
            return draw(artist, renderer)
        return record

    for cls, draw in originals.items():
        cls.draw = recorder(cls, draw)
    try:
        yield
    finally:
        for cls, draw in originals.items():
            cls.draw = draw


def drawn(figure) -> Drawn:
    """Draw ``figure`` with Agg and return what a reader sees of it, in display pixels."""
    if not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    seen: dict = {}
    with _recording(seen):
        figure.canvas.draw()
    renderer = figure.canvas.get_renderer()

    legends = [a for ax in figure.axes for a in [ax.get_legend()] if a is not None] + list(figure.legends)
    in_legend = {id(t): legend for legend in legends for t in [*legend.get_texts(), legend.get_title()]}
    texts, pads = [], set()
    for text in dict.fromkeys(seen.get(Text, [])):
        if not text.get_visible() or not text.get_text().strip() or text.get_alpha() == 0:
            continue
        pad = text.get_bbox_patch()
        if pad is not None:
            pads.add(id(pad))
        footprint = (pad.get_window_extent(renderer) if pad is not None
                     else text.get_window_extent(renderer))
        if _clipped_away(text, footprint, renderer):
            continue
        texts.append((text, footprint))

    backgrounds = {id(figure.patch)} | {id(ax.patch) for ax in figure.axes}
    legend_of = {id(p): legend for legend in legends for p in [legend.legendPatch, *legend.get_patches()]}
    boxes = []
    for patch in dict.fromkeys(seen.get(Patch, [])):
        if (id(patch) in pads or id(patch) in backgrounds or isinstance(patch, Spine)
                or not patch.get_visible() or not _visible_outline(patch)):
            continue
        path = _clipped(patch.get_transform().transform_path(patch.get_path()), patch)
        if path is not None:
            boxes.append((_name(patch), path, legend_of.get(id(patch))))
    for collection in dict.fromkeys(seen.get(Collection, [])):
        if isinstance(collection, PatchCollection) and collection.get_visible():
            transform = collection.get_transform()
            paths = (_clipped(transform.transform_path(p), collection) for p in collection.get_paths())
            boxes += [("a cell", p, None) for p in paths if p is not None]

    heads = []
    for arrow in dict.fromkeys(seen.get(FancyArrowPatch, [])):
        heads += [("an arrowhead", head) for head in _arrowheads(arrow)]
    for ax in figure.axes:
        heads += [("an error bar's end", mark) for mark in _error_bar_ends(ax, renderer)]
    frames = [legend.get_frame().get_window_extent(renderer) for legend in legends
              if legend.get_visible() and legend.get_frame_on()]
    return Drawn(texts, boxes, heads, (figure.bbox.width, figure.bbox.height), in_legend, frames)


def _clipped_away(text, footprint, renderer) -> bool:
    """A clipped text outside its clip box is not seen (matplotlib draws it clipped)."""
    clip = text.get_clip_box() if text.get_clip_on() else None
    return clip is not None and not footprint.overlaps(clip)


def _clipped(path: Path, artist) -> Path | None:
    """The part of a box that is drawn: a span reaching past its Axes is cut at their edge
    (None when nothing of it is inside)."""
    clip = artist.get_clip_box() if artist.get_clip_on() else None
    if clip is None or clip.contains(*path.get_extents().min) and clip.contains(*path.get_extents().max):
        return path
    cut = path.clip_to_bbox(clip)
    return cut if len(cut.vertices) else None


def _visible_outline(patch) -> bool:
    face, edge = patch.get_facecolor(), patch.get_edgecolor()
    return (patch.get_fill() and face[3] > 0) or (patch.get_linewidth() > 0 and edge[3] > 0)


def _name(patch) -> str:
    return f"a {type(patch).__name__}"


def _arrowheads(arrow) -> list[Bbox]:
    """The extents of an arrow's heads: the paths an arrow style adds to its shaft."""
    if not arrow.get_visible():
        return []
    figure = arrow.get_figure()
    arrow._dpi_cor = figure.dpi / 72
    paths, _fillable = arrow._get_path_in_displaycoord()
    if not np.iterable(_fillable):
        return []  # one path ("simple", "fancy", "wedge"): no separate head
    return [p.get_extents() for p in paths[1:] if len(p.vertices)]


def _error_bar_ends(ax: Axes, renderer) -> list[Bbox]:
    ends = []
    for container in ax.containers:
        if not isinstance(container, ErrorbarContainer):
            continue
        _line, caps, _bars = container.lines
        for cap in caps or ():
            if not cap.get_visible():
                continue
            half = cap.get_markersize() * ax.figure.dpi / 72 / 2
            for x, y in cap.get_transform().transform(cap.get_xydata()):
                ends.append(Bbox([[x - half, y - half], [x + half, y + half]]))
    return ends


def _overlap(a: Bbox, b: Bbox, by: float = OVERLAP) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > by) and (min(a.y1, b.y1) - max(a.y0, b.y0) > by)


def _outline(box: Bbox, margin: float) -> np.ndarray:
    """Points along a rectangle grown by margin: corners and five points per side."""
    x0, y0, x1, y1 = box.x0 - margin, box.y0 - margin, box.x1 + margin, box.y1 + margin
    t = np.linspace(0, 1, 6)
    xs, ys = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
    return np.concatenate([np.c_[xs, np.full_like(xs, y0)], np.c_[xs, np.full_like(xs, y1)],
                           np.c_[np.full_like(ys, x0), ys], np.c_[np.full_like(ys, x1), ys]])


def _relation(footprint: Bbox, path: Path) -> str:
    """"inside" (with MARGIN to spare), "clear" (nothing shared) or "crossing"."""
    if not _overlap(footprint, path.get_extents(), by=0):
        return "clear"
    inside = path.contains_points(_outline(footprint, MARGIN))
    if inside.all():
        return "inside"
    touching = path.contains_points(_outline(footprint, 0))
    within = (path.vertices[:, 0] > footprint.x0) & (path.vertices[:, 0] < footprint.x1) & \
             (path.vertices[:, 1] > footprint.y0) & (path.vertices[:, 1] < footprint.y1)
    return "clear" if not touching.any() and not within.any() else "crossing"


def _show(text) -> str:
    words = " ".join(text.get_text().split())
    return repr(words if len(words) <= 40 else words[:39] + "…")


def small_texts(texts, px_per_pt: float) -> list[str]:
    """A sentence for each text under MIN_TEXT_PX CSS px at ``px_per_pt``."""
    found = []
    for text in texts:
        px = text.get_fontsize() * px_per_pt
        if px < MIN_TEXT_PX - 0.05:
            found.append(f"{_show(text)} is {px:.1f} CSS px ({text.get_fontsize():g} pt): text is "
                         f"at least {MIN_TEXT_PX:g} px")
    return found


FOUND: list[str] = []  # what record() found, until take_found() hands it over


def record(explorer) -> None:
    """Check the picture an Explorer has just drawn, at the width it is shown (its figsize at
    96 CSS px per inch); keep what is wrong, with its setting."""
    setting = ", ".join(f"{k}={v!r}" for k, v in explorer.values().items())
    FOUND.extend(f"{explorer.title or type(explorer).__name__} [{setting}]: {problem}"
                 for problem in problems(explorer.figure, shown_px=explorer.figsize[0] * 96))


def take_found() -> list[str]:
    found = list(dict.fromkeys(FOUND))
    FOUND.clear()
    return found


def problems(figure, shown_px: float | None = None) -> list[str]:
    """One sentence per defect of ``figure`` (empty when it is clean); ``shown_px``, the
    width in CSS px the figure is shown at, adds the text-size check."""
    seen = drawn(figure)
    width, height = seen.size
    found = []
    if shown_px is not None:
        found += small_texts([text for text, _ in seen.texts],
                             shown_px / (figure.get_figwidth() * 72))
    for k, (text, box) in enumerate(seen.texts):
        if box.x0 < -EDGE or box.y0 < -EDGE or box.x1 > width + EDGE or box.y1 > height + EDGE:
            found.append(f"{_show(text)} leaves the {width:.0f}x{height:.0f} px figure "
                         f"(x {box.x0:.0f}..{box.x1:.0f}, y {box.y0:.0f}..{box.y1:.0f})")
        for other, other_box in seen.texts[k + 1:]:
            if _overlap(box, other_box):
                found.append(f"{_show(text)} overlaps {_show(other)}")
        legend = seen.in_legend.get(id(text))
        for frame in seen.frames:
            if legend is None and _overlap(box, frame):  # (a text it covers is hidden)
                found.append(f"the legend covers {_show(text)}")
        for name, path, owner in seen.boxes:
            if legend is not owner:
                continue  # a legend's text is read on its opaque frame, whatever lies behind it
            if _relation(box, path) == "crossing":
                extent = path.get_extents()
                found.append(f"{_show(text)} crosses the outline of {name} (text x {box.x0:.0f}.."
                             f"{box.x1:.0f}, y {box.y0:.0f}..{box.y1:.0f}; box x {extent.x0:.0f}.."
                             f"{extent.x1:.0f}, y {extent.y0:.0f}..{extent.y1:.0f}; "
                             f"a text inside keeps {MARGIN:g} px from it)")
        for name, head in seen.heads:
            if _overlap(box, head.padded(CLEARANCE), by=0):
                found.append(f"{_show(text)} covers {name} at x {head.x0:.0f}..{head.x1:.0f}, "
                             f"y {head.y0:.0f}..{head.y1:.0f} (a label keeps {CLEARANCE:g} px from it)")
    return list(dict.fromkeys(found))
