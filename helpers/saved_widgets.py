"""What a saved notebook keeps of each widget: the lab's pre-save hook (lab/ config).

An instrument's output carries two pictures of itself: the live widget's view (a model id)
and a PNG. JupyterLab always prefers the view, and a reopened notebook can draw it only if
the widget's state was saved with the notebook; when it was not (the kernel had gone, the
connection was being re-established at that moment, or the setting is off) the student sees
"Error displaying widget: model not found" where the picture should be. So, on save, a view
whose model is not in the notebook's saved widget state is dropped from that output when
the output has another picture to show: the reopened notebook shows the PNG. The document
open in the browser is not changed; only the file is.
"""

from __future__ import annotations

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"


def saved_models(nb: dict) -> set[str]:
    """The ids of the widget models whose state the notebook file carries."""
    widgets = (nb.get("metadata") or {}).get("widgets") or {}
    return set(((widgets.get(STATE) or {}).get("state") or {}).keys())


def drop_unrestorable_views(nb: dict) -> int:
    """Drop, in place, each widget view that cannot be restored and has a picture beside it;
    return how many were dropped."""
    kept = saved_models(nb)
    dropped = 0
    for cell in nb.get("cells") or []:
        for output in cell.get("outputs") or []:
            data = output.get("data") or {}
            view = data.get(VIEW)
            if not isinstance(view, dict) or view.get("model_id") in kept:
                continue
            if any(mime.startswith("image/") for mime in data):
                del data[VIEW]
                dropped += 1
    return dropped


def pre_save_hook(model: dict, **_kwargs) -> None:
    """``c.ContentsManager.pre_save_hook`` (lab/jupyter_server_config.json)."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        drop_unrestorable_views(model["content"])
