"""What a person would see wrong with the text of a figure: labels on top of each other,
text cut off at the figure's edge, a label spilling out of the box it is written in, a
label covering an arrow's head. Used by the tests of the instruments of notebooks 01 and 02
(each draw layer, at every setting its tests visit)."""

from __future__ import annotations

import numpy as np
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.table import Table
from matplotlib.text import Text
from matplotlib.transforms import Bbox

SLACK = 1.0  # pixels: anti-aliasing and rounding, not a visible overlap


def _drawn(artist):
    """Every artist that is drawn, without the ticks of an axis that is switched off."""
    for child in artist.get_children():
        if not child.get_visible() or (isinstance(child, Axis) and not child.axes.axison):
            continue
        yield child
        yield from _drawn(child)


def _texts(figure):
    return [t for t in _drawn(figure) if isinstance(t, Text) and t.get_text().strip()]


def _boxes(figure):
    return [p for p in _drawn(figure) if isinstance(p, (Rectangle, FancyBboxPatch))
            and p.axes is not None and p is not p.axes.patch and p.get_fill()
            and not isinstance(p.get_parent() if hasattr(p, "get_parent") else None, Text)]


def _overlap(a, b) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK and
            min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK)


def _inside(inner, outer) -> bool:
    return (inner.x0 >= outer.x0 - SLACK and inner.x1 <= outer.x1 + SLACK and
            inner.y0 >= outer.y0 - SLACK and inner.y1 <= outer.y1 + SLACK)


def _head(arrow, figure) -> Bbox:
    """The box around an arrow's head: from its tip back along the path by the head's size."""
    given = getattr(arrow, "_path_original", None)
    points = given.vertices if given is not None else np.array(arrow._posA_posB)
    to_px = arrow.get_transform()
    tip, before = to_px.transform(points[-1]), to_px.transform(points[-2])
    length = arrow.get_mutation_scale() * figure.dpi / 72
    direction = (tip - before) / max(np.hypot(*(tip - before)), 1e-9)
    normal = np.array([-direction[1], direction[0]])
    corners = [tip, tip - direction * length + normal * length / 3,
               tip - direction * length - normal * length / 3]
    return Bbox.from_extents(*np.min(corners, axis=0), *np.max(corners, axis=0))


def problems(figure) -> list[str]:
    """Every visible defect of the figure's text, one line each ([] when it reads cleanly)."""
    FigureCanvasAgg(figure)
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    whole = figure.bbox
    texts = _texts(figure)
    extents = {id(t): t.get_window_extent(renderer) for t in texts}
    found = []
    for t in texts:
        if not _inside(extents[id(t)], whole):
            found.append(f"{t.get_text()!r} leaves the figure")
    in_tables = {id(c.get_text()): c for table in figure.findobj(Table)
                 for c in table.get_celld().values()}
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if _overlap(extents[id(a)], extents[id(b)]):
                found.append(f"{a.get_text()!r} overlaps {b.get_text()!r}")
    boxes = [(p, p.get_window_extent(renderer)) for p in _boxes(figure)]
    for t in texts:
        box = extents[id(t)]
        if id(t) in in_tables:
            cell = in_tables[id(t)].get_window_extent(renderer)
            if not _inside(box, cell):
                found.append(f"{t.get_text()!r} spills out of its table cell")
            continue
        cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
        holders = [e for p, e in boxes if e.x0 <= cx <= e.x1 and e.y0 <= cy <= e.y1]
        if holders and not any(_inside(box, e) for e in holders):
            found.append(f"{t.get_text()!r} spills out of the box it is written in")
        elif not holders:
            # a free label must not lie across a box's edge either
            for _, e in boxes:
                if _overlap(box, e) and not _inside(box, e):
                    found.append(f"{t.get_text()!r} lies across a box's edge")
                    break
    for arrow in figure.findobj(FancyArrowPatch):
        head = _head(arrow, figure)
        for t in texts:
            if t.get_zorder() > arrow.get_zorder() and _overlap(extents[id(t)], head):
                found.append(f"{t.get_text()!r} covers an arrowhead")
    return found
