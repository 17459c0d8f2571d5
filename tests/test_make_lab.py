"""`make lab` releases the course and serves the student copies with JupyterLab on 127.0.0.1,
with the student's lab configuration (lab/): its output has no errors or warnings about
nbgrader's instructor tools.

Runs the real Makefile target (with COURSE_DIR in a temporary folder) in its own process
group on a free port, reads the token from the URL the server prints, and asks the contents
API for the released notebooks; the whole group is killed afterwards, pass or fail. A second
`make lab` must serve the student's edited copy, not a fresh release over it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest

from conftest import IN_CI, REPO
from labserver import LabServer, free_port, isolated_env, kill_group, kill_kernels, spawn, wait_for_api, wait_for_token

STEMS = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
VIEW = "application/vnd.jupyter.widget-view+json"


def widgets_notebook() -> nbformat.NotebookNode:
    """Two instrument outputs (a widget view and its PNG); only the second's state is saved."""
    nb = nbformat.v4.new_notebook()
    for model_id in ("not-saved", "saved"):
        nb.cells.append(nbformat.v4.new_code_cell("helpers.strides.explore()", outputs=[
            nbformat.v4.new_output("display_data", data={
                VIEW: {"model_id": model_id, "version_major": 2, "version_minor": 0},
                "image/png": "iVBORw0KGgo=", "text/plain": "Stride explorer"})]))
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "version_major": 2, "version_minor": 0, "state": {"saved": {"model_name": "VBoxModel"}}}}
    return nb


def save_through_the_lab(server: LabServer, name: str, nb) -> nbformat.NotebookNode:
    """PUT the notebook through the contents API, as the lab's Save does; the file it wrote."""
    body = json.dumps({"type": "notebook", "format": "json", "content": nb}).encode()
    request = urllib.request.Request(f"{server.base}/api/contents/{name}", data=body, method="PUT",
                                     headers={"Authorization": f"token {server.token}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        path = json.loads(response.read())["path"]
    return nbformat.from_dict(server.api(f"/api/contents/{path}")["content"])


def run_lab(make: str, course: Path, home: Path, log: Path):
    """Start `make lab` on a free port; return (process, server) once its API answers."""
    port = free_port()
    process = spawn([make, "--no-print-directory", "lab", f"PORT={port}", f"COURSE_DIR={course}"],
                    cwd=REPO, env=isolated_env(home), log=log)
    try:
        token = wait_for_token(process, log, port, timeout=600)
        server = LabServer(process, port, token, log)
        wait_for_api(server, timeout=120)
    except BaseException:
        kill_group(process)
        raise
    return process, server


def stop_lab(process, home: Path) -> None:
    kill_group(process)
    kill_kernels(home / "runtime")


def test_make_lab_serves_the_release(tmp_path):
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not found")
    # make lab would reinstall the environment first (from the network) if it were stale.
    if subprocess.run([make, "-q", ".venv/.installed"], cwd=REPO).returncode != 0:
        message = "the .venv is older than pyproject.toml/constraints.txt: run `make test` once"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    course, home, log = tmp_path / "course", tmp_path / "jupyter-home", tmp_path / "make-lab.log"
    process, server = run_lab(make, course, home, log)
    try:
        status = server.status("/lab?" + urllib.parse.urlencode({"token": server.token}))
        assert status == 200, f"/lab answered {status}"
        listing = {item["name"]: item["type"] for item in server.api("/api/contents")["content"]}
        for stem in STEMS:
            assert listing.get(stem) == "directory", f"{stem}/ not served at the root: {listing}"
            inside = {item["name"] for item in server.api(f"/api/contents/{stem}")["content"]}
            assert f"{stem}.ipynb" in inside, f"{stem}/{stem}.ipynb not served: {inside}"
            nb = server.api(f"/api/contents/{stem}/{stem}.ipynb")
            assert nb["type"] == "notebook"
            sources = "".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                              for c in nb["content"]["cells"])
            assert "### BEGIN SOLUTION" not in sources, f"{stem}: the served copy holds the solutions"
        # the lab's pre-save hook: a view whose widget state was not saved gives way to its PNG
        saved = save_through_the_lab(server, "saved-widgets.ipynb", widgets_notebook())
        views = [VIEW in o["data"] for c in saved.cells for o in c.outputs]
        assert views == [False, True], f"views kept per output (unsaved model, saved model): {views}"
        assert all("image/png" in o["data"] for c in saved.cells for o in c.outputs)
    finally:
        stop_lab(process, home)
    output = log.read_text(errors="replace")
    assert "127.0.0.1" in output
    # what the student's terminal shows: no red errors, no warnings about instructor tools
    problems = [line for line in output.splitlines()
                if line.startswith("[E ") or "No nbgrader_config.py" in line
                or "not a subdirectory of the notebook server root" in line
                or "formgrader" in line.lower() or "exchange" in line.lower()]
    assert not problems, "make lab printed errors or misleading warnings:\n" + "\n".join(problems)

    # the student answers something, stops the lab, and starts it again
    copy = course / "release" / STEMS[0] / f"{STEMS[0]}.ipynb"
    nb = nbformat.read(str(copy), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("my_answer = 42  # a student's work"))
    nbformat.write(nb, str(copy))
    process, server = run_lab(make, course, home, tmp_path / "make-lab-2.log")
    try:
        served = server.api(f"/api/contents/{STEMS[0]}/{STEMS[0]}.ipynb")["content"]["cells"]
        assert any("my_answer = 42" in "".join(c["source"]) for c in served), \
            "a second `make lab` overwrote the student's copy"
    finally:
        stop_lab(process, home)


def test_the_lab_s_kernel_socket_sends_each_message_at_once(monkeypatch):
    """lab/ names helpers' PromptConnection as the kernel's websocket connection: Jupyter
    Server's own, with TCP_NODELAY set when the browser connects (tornado leaves Nagle's
    algorithm on, so the small messages of a control change waited for the browser's
    delayed acknowledgements)."""
    from unittest import mock

    from jupyter_server.serverapp import ServerApp
    from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
    from jupyter_server.services.kernels.websocket import KernelWebsocketHandler
    from traitlets.config.loader import JSONFileConfigLoader

    from helpers.lab.kernel_socket import PromptConnection

    config = JSONFileConfigLoader("jupyter_server_config.json", str(REPO / "lab")).load_config()
    assert ServerApp(config=config).kernel_websocket_connection_class is PromptConnection
    handler = mock.Mock(spec=KernelWebsocketHandler)
    monkeypatch.setattr(ZMQChannelsWebsocketConnection, "connect", lambda self: "connected")
    assert PromptConnection(websocket_handler=handler).connect() == "connected"
    handler.set_nodelay.assert_called_once_with(True)
