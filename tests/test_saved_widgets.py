"""helpers.saved_widgets: the lab's pre-save hook keeps a picture for every instrument."""

from __future__ import annotations

import copy

from helpers.saved_widgets import STATE, VIEW, drop_unrestorable_views, pre_save_hook, saved_models


def output(model_id, *mimes):
    data = {VIEW: {"model_id": model_id, "version_major": 2, "version_minor": 0}, "text/plain": "Explorer"}
    data.update({mime: "x" for mime in mimes})
    return {"output_type": "display_data", "data": data, "metadata": {}}


def notebook(outputs, state=None):
    nb = {"cells": [{"cell_type": "code", "source": "", "outputs": outputs, "metadata": {}}], "metadata": {}}
    if state is not None:
        nb["metadata"]["widgets"] = {STATE: {"version_major": 2, "version_minor": 0,
                                             "state": {m: {"model_name": "VBoxModel"} for m in state}}}
    return nb


def views(nb):
    return [VIEW in o["data"] for c in nb["cells"] for o in c["outputs"]]


def test_a_view_whose_state_was_saved_stays():
    nb = notebook([output("a", "image/png")], state=["a"])
    assert drop_unrestorable_views(nb) == 0 and views(nb) == [True]


def test_a_view_whose_state_was_not_saved_gives_way_to_its_picture():
    nb = notebook([output("a", "image/png"), output("b", "image/svg+xml"), output("c", "image/png")],
                  state=["b"])
    assert drop_unrestorable_views(nb) == 2 and views(nb) == [False, True, False]
    assert all("image/png" in o["data"] or "image/svg+xml" in o["data"] for o in nb["cells"][0]["outputs"])


def test_without_any_saved_state_every_view_with_a_picture_goes():
    nb = notebook([output("a", "image/png"), output("b")])
    assert saved_models(nb) == set()
    # a widget with nothing else to show keeps its view: dropping it would show only text
    assert drop_unrestorable_views(nb) == 1 and views(nb) == [False, True]


def test_odd_notebooks_pass_untouched():
    for nb in ({}, {"cells": None, "metadata": None}, {"cells": [{"cell_type": "markdown", "source": "x"}]},
               notebook([{"output_type": "stream", "name": "stdout", "text": "hi"}]),
               notebook([{"output_type": "display_data", "data": {VIEW: "not a dict", "image/png": "x"}}])):
        before = copy.deepcopy(nb)
        assert drop_unrestorable_views(nb) == 0 and nb == before


def test_the_hook_changes_notebooks_only():
    nb = notebook([output("a", "image/png")])
    pre_save_hook(model={"type": "notebook", "content": nb}, path="x.ipynb", contents_manager=None)
    assert views(nb) == [False]
    text = {"type": "file", "content": "not a notebook"}
    pre_save_hook(model=text, path="x.txt")
    assert text == {"type": "file", "content": "not a notebook"}
