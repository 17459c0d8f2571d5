"""Each explorer builds, answers a control change with a new picture, and turns an
impossible setting into a message inside the widget that a valid setting clears."""

import matplotlib
import pytest

matplotlib.use("Agg")

from helpers import broadcasting, strides  # noqa: E402

# (module, a valid change, an impossible change, a control to restore)
CASES = {
    "strides": (strides, {"op": "none", "index": "1, 2"},
                {"then": "view", "then_args": "6"}, {"then": "none"}),
    "broadcasting": (broadcasting, {"a": "3"}, {"b": "64, x"}, {"b": "4"}),
}


def set_values(explorer, values):
    for name, value in values.items():
        explorer.controls[name].value = value


@pytest.mark.parametrize("name", CASES)
def test_explorer_builds_and_responds(name):
    module, change, impossible, restore = CASES[name]
    explorer = module.explore()
    assert explorer.error is None and explorer.image.value
    assert "image/png" in explorer._repr_mimebundle_()
    before = explorer.image.value
    set_values(explorer, change)
    assert explorer.error is None
    assert explorer.image.value != before

    set_values(explorer, impossible)
    assert explorer.error, "an impossible setting should produce a message"
    assert "⚠" in explorer.message.value
    assert explorer.image.layout.display == "none"

    set_values(explorer, restore)
    assert explorer.error is None and explorer.message.value == ""
    assert explorer.image.layout.display is None


def test_stride_explorer_shows_the_formula_for_the_chosen_index():
    explorer = strides.explore(op="none", index="1, 2")
    assert explorer.result.formula() == "offset(1, 2) = 0 + 1·3 + 2·1 = 5"


def test_broadcast_mismatch_is_drawn_not_an_error():
    explorer = broadcasting.explore(a="3", b="4")
    assert explorer.error is None and explorer.result.failing_axis == -1
