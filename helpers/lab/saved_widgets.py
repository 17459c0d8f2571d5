"""What a saved notebook keeps of each widget: the lab's pre-save hook (lab/ config).

An instrument's output carries two pictures of itself: the live widget's view (a model id)
and a PNG of its first picture. JupyterLab prefers the view, and a reopened notebook draws
it (title, controls, last picture, and the note saying what to run) only if the widget's
state was saved with the notebook. JupyterLab saves the state of live widgets only: after a
restart, or in a notebook reopened with a fresh kernel, a save (the student's or autosave's)
writes the state of none of the widgets it shows, or of the one cell run again.

So, on save:

1. a view whose model is missing from the new state but was in the state of the file being
   replaced gets that model back, with every model its state names (its controls, layouts,
   styles, the image holding the last picture): what the student saw is kept, save after
   save, until the cell is run again (a new explorer, a new model);
2. a view whose model is in neither is dropped from its output when the output has another
   picture to show, so that the reopened notebook shows the PNG rather than "Error
   displaying widget: model not found".

The document open in the browser is not changed; only the file is.
"""

from __future__ import annotations

import json

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
REFERENCE = "IPY_MODEL_"  # how one model's state names another (children, layout, style)


def _state(nb: dict | None) -> dict:
    widgets = ((nb or {}).get("metadata") or {}).get("widgets") or {}
    state = (widgets.get(STATE) or {}).get("state")
    return state if isinstance(state, dict) else {}


def saved_models(nb: dict) -> set[str]:
    """The ids of the widget models whose state the notebook file carries."""
    return set(_state(nb))


def _views(nb: dict):
    """(output data, model id) for every widget view in the notebook's outputs."""
    for cell in nb.get("cells") or []:
        for output in cell.get("outputs") or []:
            data = output.get("data") or {}
            view = data.get(VIEW)
            if isinstance(view, dict) and isinstance(view.get("model_id"), str):
                yield data, view["model_id"]


def _named(value) -> set[str]:
    """The model ids a model's state refers to, anywhere in it."""
    if isinstance(value, str):
        return {value[len(REFERENCE):]} if value.startswith(REFERENCE) else set()
    if isinstance(value, dict):
        return set().union(*(_named(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_named(v) for v in value))
    return set()


def with_references(state: dict, roots) -> set[str]:
    """``roots`` and every model their states name, in turn, that ``state`` holds."""
    found, todo = set(), [r for r in roots if r in state]
    while todo:
        model_id = todo.pop()
        if model_id in found:
            continue
        found.add(model_id)
        todo += [m for m in _named(state[model_id]) if m in state and m not in found]
    return found


def keep_previous_state(nb: dict, previous: dict | None) -> int:
    """Give back, in place, the saved state of every view ``nb`` shows without it that
    ``previous`` (the file being replaced) had; return how many views got theirs back."""
    old, have = _state(previous), saved_models(nb)
    missing = [model_id for _, model_id in _views(nb) if model_id not in have and model_id in old]
    if not missing:
        return 0
    metadata = nb.setdefault("metadata", {})
    if not isinstance(metadata.get("widgets"), dict):
        metadata["widgets"] = {}
    saved = metadata["widgets"].get(STATE)
    if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict):
        before = ((previous or {}).get("metadata") or {}).get("widgets", {}).get(STATE, {})
        saved = metadata["widgets"][STATE] = {"version_major": before.get("version_major", 2),
                                              "version_minor": before.get("version_minor", 0),
                                              "state": {}}
    for model_id in with_references(old, missing) - have:
        saved["state"][model_id] = old[model_id]
    return len(set(missing))


def drop_unrestorable_views(nb: dict) -> int:
    """Drop, in place, each widget view that cannot be restored and has a picture beside it;
    return how many were dropped."""
    kept = saved_models(nb)
    dropped = 0
    for data, model_id in list(_views(nb)):
        if model_id not in kept and any(mime.startswith("image/") for mime in data):
            del data[VIEW]
            dropped += 1
    return dropped


def _file_being_replaced(contents_manager, path: str | None) -> dict | None:
    """The notebook as it is on disk now, read as JSON; None when there is none to read."""
    if contents_manager is None or not path:
        return None
    try:
        os_path = contents_manager._get_os_path(path)  # the file managers' own path rule
        with open(os_path, encoding="utf-8") as file:
            return json.load(file)
    except (AttributeError, OSError, ValueError, TypeError):
        return None


def pre_save_hook(model: dict, path: str | None = None, contents_manager=None, **_kwargs) -> None:
    """``c.ContentsManager.pre_save_hook`` (lab/jupyter_server_config.json)."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    nb = model["content"]
    have = saved_models(nb)
    if any(model_id not in have for _, model_id in _views(nb)):
        keep_previous_state(nb, _file_being_replaced(contents_manager, path))
    drop_unrestorable_views(nb)
