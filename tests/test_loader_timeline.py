"""The timeline view of the DataLoader explorer: the model turns measured timestamps into lanes
faithfully (hypothesis, on made-up runs), a real DataLoader run has the structure torch's
loader promises (which worker builds which batch, start-ups per epoch, the prefetch bound),
and the explorer draws it and answers impossible settings inside the widget."""

import math

import matplotlib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

matplotlib.use("Agg")

from helpers import loader_timeline as lt  # noqa: E402


@st.composite
def runs(draw):
    """A made-up but consistent run: per epoch, steps that ask, get and finish in order;
    each batch's items loaded by worker b % k (or the main process) before it is taken."""
    workers = draw(st.integers(0, 3))
    batch_size = draw(st.integers(1, 3))
    steps = draw(st.integers(1, 4))
    epochs = draw(st.integers(1, 2))
    persistent = workers > 0 and draw(st.booleans())
    gaps = st.floats(0.0, 0.05, allow_nan=False)
    s = lt.Settings(num_workers=workers, persistent_workers=persistent, batch_size=batch_size,
                    steps=steps, epochs=epochs)
    run = lt.Run(s, [], [], [], [])
    t = 100.0
    started = {}
    for e in range(epochs):
        run.epoch_starts.append(t)
        for w in range(workers):
            if e == 0 or not persistent:
                started[w] = t + draw(gaps)
        asked = t
        for b in range(steps):
            worker = b % workers if workers else -1
            begin = max(asked, started.get(worker, asked))
            for i in range(batch_size):
                start = begin + i * 0.001
                run.items.append((e, b, b * batch_size + i, worker, start, start + 0.001,
                                  started.get(worker, math.nan)))
            got = max(asked, begin + batch_size * 0.001) + draw(gaps)
            done = got + draw(gaps)
            run.steps.append((e, b, asked, got, done))
            asked = done
        t = asked + draw(gaps)
        run.epoch_ends.append(t)
        t += draw(gaps)
    return run


@settings(max_examples=150, deadline=None)
@given(run=runs())
def test_the_model_draws_every_timestamp_where_it_belongs(run):
    s = run.settings
    tl = lt.timeline(run)
    t0 = run.epoch_starts[0]
    assert tl.lanes == ["main process"] + [f"worker {k}" for k in range(s.num_workers)]
    steps = [seg for seg in tl.segments if seg.kind == "step"]
    assert [(seg.epoch, seg.batch) for seg in steps] == [(e, b) for e, b, *_ in run.steps]
    for seg, (*_, got, done) in zip(steps, run.steps):
        assert seg.lane == 0
        assert seg.start == pytest.approx((got - t0) * 1000) and seg.end == pytest.approx((done - t0) * 1000)
    waits = [seg for seg in tl.segments if seg.kind == "waiting"]
    assert len(waits) == (len(run.steps) if s.num_workers else 0)
    loading = [seg for seg in tl.segments if seg.kind == "loading"]
    assert len(loading) == len(run.steps) and len(tl.items) == len(run.items)
    for seg in loading:
        assert seg.lane == (1 + seg.batch % s.num_workers if s.num_workers else 0)
    for k, e in enumerate(tl.epochs):
        mine = [st_ for st_ in run.steps if st_[0] == k]
        assert e.waiting == pytest.approx(sum((got - asked) * 1000 for _, _, asked, got, _ in mine))
        assert e.computing == pytest.approx(sum((done - got) * 1000 for *_, got, done in mine))
        assert e.ms == pytest.approx((run.epoch_ends[k] - run.epoch_starts[k]) * 1000)
        # a worker's start is known from the items it loaded: one that loaded none this epoch
        # (fewer batches than workers) has no start drawn
        starting = [seg.lane - 1 for seg in tl.segments if seg.kind == "starting" and seg.epoch == k]
        loaded = sorted({row[3] for row in run.items if row[0] == k and row[3] >= 0})
        assert sorted(starting) == (loaded if (k == 0 or not s.persistent_workers) else [])
    counts = [c for _, c in tl.queue]
    assert min(counts) >= 0 and counts[-1] == 0
    assert max(counts) <= (len(run.steps) if s.num_workers else 0)


def test_the_queue_counts_batches_done_and_not_taken():
    steps = lt._queue(ready=[1.0, 2.0, 3.0], taken=[5.0, 6.0, 7.0])
    assert [c for _, c in steps] == [0, 1, 2, 3, 2, 1, 0]
    # a batch taken the moment it is done is counted, then taken: never below zero
    assert [c for _, c in lt._queue([4.0], [4.0])] == [0, 1, 0]


def measured(**kwargs):
    return lt.timeline(lt.measure(lt.Settings(**kwargs)))


def test_without_workers_the_main_process_loads_every_batch():
    tl = measured(num_workers=0, item_ms=1, step_ms=1)
    assert tl.lanes == ["main process"]
    assert {seg.lane for seg in tl.segments} == {0}
    assert not [seg for seg in tl.segments if seg.kind == "waiting"]
    assert len(tl.items) == 2 * 24 and all(it.lane == 0 for it in tl.items)   # two epochs


@pytest.mark.parametrize("persistent", [False, True])
def test_workers_take_batches_in_turn_and_restart_unless_kept(persistent):
    tl = measured(num_workers=2, persistent_workers=persistent, item_ms=1, step_ms=2)
    for seg in tl.segments:
        if seg.kind == "loading":
            assert seg.lane == 1 + seg.batch % 2, "the in-order loader gives batch b to worker b % 2"
        if seg.kind == "step":
            assert seg.ms >= 2 - 0.05, "a step lasts step_ms on the wall clock"
    starts = [seg.epoch for seg in tl.segments if seg.kind == "starting"]
    assert starts == ([0, 0] if persistent else [0, 0, 1, 1])
    assert tl.epochs[1].startup == 0 if persistent else tl.epochs[1].startup > 0


@pytest.mark.parametrize("prefetch, workers", [(1, 2), (2, 2), (4, 1)])
def test_batches_loaded_ahead_reach_prefetch_factor_per_worker(prefetch, workers):
    tl = measured(num_workers=workers, prefetch_factor=prefetch, item_ms=1, step_ms=40)
    most = max(c for _, c in tl.queue)
    assert most == prefetch * workers


@pytest.mark.parametrize("kwargs, words", [
    ({"num_workers": 0, "prefetch_factor": 2}, "refuses prefetch_factor=2 with num_workers=0"),
    ({"num_workers": 0, "persistent_workers": True}, "refuses persistent_workers=True"),
    ({"num_workers": 5}, "0 to 4 workers"),
    ({"prefetch_factor": 3}, "one of 1, 2, 4"),
    ({"cost": "reading"}, "not one of waiting, computing"),
    ({"item_ms": 0}, "1 to 20 ms"),
    ({"step_ms": -1}, "0 to 50 ms"),
])
def test_impossible_settings_say_why(kwargs, words):
    with pytest.raises(ValueError, match=words):
        lt.explore_model(**kwargs)


def test_the_loader_refusals_are_torch_own():
    """The explorer's two refusals are the ones DataLoader itself makes."""
    from torch.utils.data import DataLoader
    for kwargs in ({"prefetch_factor": 2}, {"persistent_workers": True}):
        with pytest.raises(ValueError):
            DataLoader(range(4), num_workers=0, **kwargs)


def test_explorer_draws_and_explains_inside_the_widget():
    explorer = lt.explore(item_ms=1, step_ms=1)
    assert explorer.error is None and explorer.image.value
    explorer.controls["num_workers"].value = 0
    assert explorer.error is None
    explorer.controls["persistent_workers"].value = True
    assert "refuses persistent_workers" in explorer.error and "⚠" in explorer.message.value
    explorer.controls["num_workers"].value = 1
    assert explorer.error is None and explorer.message.value == ""
    explorer.controls["cost"].value = "computing"
    assert explorer.error is None


def test_the_widget_says_it_is_measuring_while_it_measures(monkeypatch):
    """Each update runs a DataLoader for a second or so: meanwhile the message line says so and
    the last picture is greyed out; the finished update clears both. Sliders measure on release."""
    explorer = lt.explore(item_ms=1, step_ms=1)
    seen, measure = [], lt.measure

    def watched(settings):
        seen.append((explorer.message.value, "course-explorer-stale" in explorer.image._dom_classes))
        return measure(settings)
    monkeypatch.setattr(lt, "measure", watched)
    explorer.controls["step_ms"].value = 2
    assert seen and "Measuring" in seen[0][0] and seen[0][1]
    assert "Measuring" not in explorer.message.value
    assert "course-explorer-stale" not in explorer.image._dom_classes
    explorer.controls["num_workers"].value = 0
    explorer.controls["persistent_workers"].value = True      # refused: the reason replaces it
    assert "refuses persistent_workers" in explorer.message.value
    assert "Measuring" not in explorer.message.value
    sliders = [c for c in explorer.controls.values() if hasattr(c, "continuous_update")
               and type(c).__name__ == "IntSlider"]
    assert sliders and not any(c.continuous_update for c in sliders)


def drawn_texts(figure):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    FigureCanvasAgg(figure)
    drawn, draw = [], Text.draw

    def record(text, renderer):
        drawn.append(text)
        return draw(text, renderer)
    Text.draw = record
    try:
        figure.canvas.draw()
    finally:
        Text.draw = draw
    renderer = figure.canvas.get_renderer()
    return [(t.get_text(), t.get_window_extent(renderer)) for t in drawn if t.get_text().strip()], figure


@pytest.mark.parametrize("kwargs", [{}, {"num_workers": 0}, {"num_workers": 4, "prefetch_factor": 4},
                                    {"cost": "computing", "item_ms": 2}])
def test_every_label_is_inside_the_picture_and_none_overlap(kwargs):
    result = lt.explore_model(**{"item_ms": 3, "step_ms": 5, **kwargs})
    texts, figure = drawn_texts(lt.draw_timeline(result))
    width, height = figure.bbox.width, figure.bbox.height
    outside = [s for s, b in texts if b.x0 < -1 or b.y0 < -1 or b.x1 > width + 1 or b.y1 > height + 1]
    assert texts and not outside, outside
    clashes = [(a, b) for i, (a, box_a) in enumerate(texts) for b, box_b in texts[i + 1:]
               if box_a.overlaps(box_b) and box_a.intersection(box_a, box_b).width > 1
               and box_a.intersection(box_a, box_b).height > 1]
    assert not clashes, clashes


def lab(colour) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of a matplotlib colour, for how far apart two colours look."""
    from matplotlib.colors import to_rgb

    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in to_rgb(colour))
    xyz = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, \
          (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = (f(t) for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def test_every_kind_and_the_queue_strip_have_colours_told_apart():
    """Issue 38: "starting a worker" had the brown of "batches done, not taken". Every pair of
    the picture's colours (each bar kind and the queue strip) is at least 20 apart (CIE76
    ΔE; 2.3 is the smallest difference people notice)."""
    colours = {**lt.COLOURS, "queue": lt.QUEUE}
    close = [(a, b, round(math.dist(lab(ca), lab(cb)), 1)) for i, (a, ca) in enumerate(colours.items())
             for b, cb in list(colours.items())[i + 1:] if math.dist(lab(ca), lab(cb)) < 20]
    assert not close, close


def test_the_picture_s_text_is_12_css_px_and_the_swatches_look_like_the_bars():
    from helpers.lab import picture_check

    result = lt.explore_model(num_workers=2, item_ms=1, step_ms=5)
    figure = lt.draw_timeline(result)
    seen = picture_check.drawn(figure)
    # drawn at its size in the explorer (96 CSS px per inch): every text, tick labels included
    assert picture_check.small_texts([t for t, _ in seen.texts], 96 / 72) == []
    handles = {t.get_text(): h for t, h in zip(figure.axes[0].get_legend().get_texts(),
                                               figure.axes[0].get_legend().legend_handles)}
    assert handles["starting a worker"].get_hatch() == lt.HATCH


def test_without_workers_the_note_is_not_crossed_by_an_epoch_line():
    """Issue 38: with num_workers=0 the centred note was crossed by epoch 2's dashed line."""
    from matplotlib.collections import LineCollection

    figure = lt.draw_timeline(measured(num_workers=0, item_ms=1, step_ms=1))
    texts, _ = drawn_texts(figure)
    note = next(box for text, box in texts if text.startswith("num_workers=0: no worker"))
    ax = figure.axes[0]
    lines = [seg for c in ax.collections if isinstance(c, LineCollection) and c.get_linestyle()[0][1]
             for seg in c.get_segments()]
    assert len(lines) == 2, "one dashed line per epoch"
    for (x0, y0), (x1, y1) in lines:
        (px, py0), (_, py1) = ax.transData.transform([(x0, y0), (x1, y1)])
        low, high = sorted((py0, py1))
        assert not (note.x0 <= px <= note.x1 and low < note.y1 and high > note.y0), \
            f"the epoch line at x={x0:.0f} ms crosses the note"
