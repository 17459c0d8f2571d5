"""helpers.update_time: the closing notes' update time is model + draw, in ms, a median."""

import time

import ipywidgets as widgets
import matplotlib
import pytest

from helpers.explorer import Explorer
from helpers.update_time import median_update_ms

matplotlib.use("Agg")


class _Scripted:
    """An explorer whose updates take the given (model, draw) seconds, and which records the
    order of its calls."""

    def __init__(self, timings):
        self._timings, self.calls, self.timings = list(timings), [], {}

    def compute(self):
        model, draw = self._timings.pop(0)
        self.timings = {"model": model, "draw": draw}
        self.calls.append("compute")

    def prepare_spare(self):
        self.calls.append("prepare_spare")


def test_median_of_model_plus_draw_in_ms():
    explorer = _Scripted([(0.010, 0.005), (0.100, 0.050), (0.002, 0.001)])
    assert median_update_ms(explorer) == pytest.approx(15.0)


def test_even_repeat_takes_the_middle_two():
    explorer = _Scripted([(0.001, 0.0), (0.002, 0.0), (0.003, 0.0), (0.010, 0.0)])
    assert median_update_ms(explorer, repeat=4) == pytest.approx(2.5)


def test_spare_prepared_after_every_update():
    explorer = _Scripted([(0.0, 0.0)] * 3)
    median_update_ms(explorer, repeat=3)
    assert explorer.calls == ["compute", "prepare_spare"] * 3


def test_repeat_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        median_update_ms(_Scripted([]), repeat=0)


def test_a_real_explorer_is_timed_by_its_own_clock():
    # a model that sleeps 20 ms: the median cannot be below it, and the draw is counted too
    def model(n):
        time.sleep(0.02)
        return n

    def draw(n, ax=None):
        ax.set_axis_off()  # no tick labels: nothing for the picture check to find
        ax.plot(range(n))
        return ax.figure

    explorer = Explorer({"n": widgets.IntSlider(value=5, min=1, max=9)}, model, draw)
    ms = median_update_ms(explorer, repeat=3)
    assert ms >= 20.0
    assert ms >= explorer.timings["model"] * 1000
