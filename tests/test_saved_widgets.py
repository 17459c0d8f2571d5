"""helpers.lab.saved_widgets: the lab's pre-save hook keeps a picture for every instrument."""

from __future__ import annotations

import copy
import json

from helpers.lab.saved_widgets import (
    STATE,
    VIEW,
    drop_unrestorable_views,
    keep_previous_state,
    pre_save_hook,
    saved_models,
)


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


def model_state(children=(), **extra):
    state = {"children": [f"IPY_MODEL_{c}" for c in children], "layout": "IPY_MODEL_layout"}
    state.update(extra)
    return {"model_name": "VBoxModel", "model_module": "@jupyter-widgets/controls", "state": state}


def saved_file(state: dict) -> dict:
    return {"cells": [], "metadata": {"widgets": {STATE: {"version_major": 2, "version_minor": 0,
                                                          "state": state}}}}


def test_a_view_saved_without_its_state_gets_the_state_the_file_had():
    """A save after a restart or in a reopened notebook (JupyterLab writes the state of live
    widgets only): the explorer's model, its children and what they name come back from the
    file being replaced; a model nothing shows does not; a state already saved is kept as
    JupyterLab wrote it."""
    previous = saved_file({
        "a": model_state(["img", "title"]), "img": model_state(value="last picture"),
        "title": model_state(), "layout": {"model_name": "LayoutModel", "state": {}},
        "gone": model_state(), "b": model_state(["img_b"]), "img_b": model_state(value="old"),
    })
    nb = notebook([output("a", "image/png"), output("b", "image/png")], state=["b", "img_b"])
    nb["metadata"]["widgets"][STATE]["state"]["img_b"] = model_state(value="new")
    assert keep_previous_state(nb, previous) == 1
    state = nb["metadata"]["widgets"][STATE]["state"]
    assert set(state) == {"a", "img", "title", "layout", "b", "img_b"}
    assert state["img"]["state"]["value"] == "last picture"
    assert state["img_b"]["state"]["value"] == "new"
    assert drop_unrestorable_views(nb) == 0 and views(nb) == [True, True]


def test_a_save_with_no_widget_state_at_all_gets_the_previous_one():
    previous = saved_file({"a": model_state(), "layout": {"model_name": "LayoutModel", "state": {}}})
    nb = notebook([output("a", "image/png")])
    assert keep_previous_state(nb, previous) == 1
    assert saved_models(nb) == {"a", "layout"}
    assert nb["metadata"]["widgets"][STATE]["version_major"] == 2


def test_the_hook_reads_the_file_it_replaces(tmp_path):
    class Manager:  # the file managers' path rule, as jupyter_server's FileContentsManager has it
        def _get_os_path(self, path):
            return str(tmp_path / path)

    (tmp_path / "x.ipynb").write_text(json.dumps(saved_file({"a": model_state(), "layout": {}})))
    nb = notebook([output("a", "image/png"), output("never-saved", "image/png")], state=[])
    pre_save_hook(model={"type": "notebook", "content": nb}, path="x.ipynb", contents_manager=Manager())
    assert views(nb) == [True, False] and saved_models(nb) == {"a", "layout"}
    # no file yet (a new notebook), or one that is not JSON: nothing to keep, nothing fails
    for path in ("new.ipynb", "broken.ipynb"):
        (tmp_path / "broken.ipynb").write_text("{")
        nb = notebook([output("a", "image/png")], state=[])
        pre_save_hook(model={"type": "notebook", "content": nb}, path=path, contents_manager=Manager())
        assert views(nb) == [False]
