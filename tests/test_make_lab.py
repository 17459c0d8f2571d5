"""`make lab` releases the course and serves the student copies with JupyterLab on 127.0.0.1.

Runs the real Makefile target in its own process group on a free port, reads the token from
the URL the server prints, and asks the contents API for the released notebooks; the whole
group is killed afterwards, pass or fail. `make lab` regenerates course/release (gitignored);
this test puts back whatever course/release and course/source held before it ran, so a
course directory in use is left as it was.
"""

from __future__ import annotations

import shutil
import subprocess
import urllib.parse

import pytest

from conftest import IN_CI, REPO
from labserver import (LabServer, free_port, isolated_env, kill_group, kill_kernels, spawn, wait_for_api,
                       wait_for_token)

STEMS = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
COURSE = REPO / "course"
KEPT = ("release", "source")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture
def course_dir_restored(tmp_path):
    """Snapshot course/release and course/source; put them back (or remove them) afterwards.

    When there was no course/ at all, the whole folder make lab created is removed."""
    backup = tmp_path / "course-backup"
    course_existed = COURSE.exists()
    existed = {name: (COURSE / name).exists() for name in KEPT}
    for name in KEPT:
        if existed[name]:
            shutil.copytree(COURSE / name, backup / name, symlinks=True)
    try:
        yield
    finally:
        if not course_existed:  # make lab created it: leave no course/ behind
            shutil.rmtree(COURSE, ignore_errors=True)
        else:
            for name in KEPT:
                shutil.rmtree(COURSE / name, ignore_errors=True)
                if existed[name]:
                    shutil.copytree(backup / name, COURSE / name, symlinks=True)


def test_make_lab_serves_the_release(tmp_path, course_dir_restored):
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not found")
    # make lab would reinstall the environment first (from the network) if it were stale.
    if subprocess.run([make, "-q", ".venv/.installed"], cwd=REPO).returncode != 0:
        message = "the .venv is older than pyproject.toml/constraints.txt: run `make test` once"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    port = free_port()
    log = tmp_path / "make-lab.log"
    env = isolated_env(tmp_path / "jupyter-home")
    process = spawn([make, "--no-print-directory", "lab", f"PORT={port}"], cwd=REPO, env=env, log=log)
    try:
        token = wait_for_token(process, log, port, timeout=600)
        server = LabServer(process, port, token, log)
        wait_for_api(server, timeout=120)

        status = server.status("/lab?" + urllib.parse.urlencode({"token": token}))
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
        assert (REPO / "course" / "release" / STEMS[0] / f"{STEMS[0]}.ipynb").exists()
    finally:
        kill_group(process)
        kill_kernels(tmp_path / "jupyter-home" / "runtime")
        output = log.read_text(errors="replace") if log.exists() else ""
    assert "127.0.0.1" in output
