"""What a grading thread (graders.autograde.local) or a Dask worker
(graders.autograde.cluster) does for one submission: execute its instrumented notebook.

This module imports graders.sandbox only: not nbgrader, the gradebook, SQLAlchemy or
jupyter_server, which only the main process needs. (This package's __init__ stays empty for
that reason: a Dask worker imports it.) The notebook arrives already sanitized and
instrumented, as a NotebookNode; the worker reads nothing from the course but the
submission's folder, which it copies for the support files.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from graders.sandbox import COMPILE_CACHE, template_host
from graders.sandbox.execute import Outcome, execute
from graders.sandbox.limits import Limits


def run(folder: str, nb, limits: dict, sandbox: bool, prologue: str, cache: str | None = None) -> Outcome:
    """Execute ``nb`` in a scratch copy of ``folder`` (the sanitized submission's folder), with
    a private copy of ``cache`` (the assignment's warmed torch.compile cache) when given."""
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="grade-", dir=scratch_root(limits, sandbox)) as scratch:
            # The scratch copy is the only place the submission may write: the autograded
            # folder in the course stays the main process's.
            shutil.copytree(Path(folder), scratch, dirs_exist_ok=True)
            if cache:
                shutil.copytree(cache, Path(scratch) / COMPILE_CACHE, dirs_exist_ok=True)
            return execute(nb, Path(scratch), Limits(**limits), sandbox, prologue)
    except Exception as error:  # one submission's harness failure must not end the batch
        return Outcome("crashed", f"grading harness error: {type(error).__name__}: {error}",
                       time.monotonic() - started)


def scratch_root(limits: dict, sandbox: bool) -> Path | None:
    """Where a submission's scratch copy goes: the template's inbox when submissions are
    forked from one (graders.sandbox.template_host), else the system's temporary folder."""
    template = template_host.for_submissions(Limits(**limits), sandbox)
    return template.inbox() if template is not None else None


def prepare(limits: dict, sandbox: bool) -> None:
    """Start the template's imports while the main process is still sanitizing the first
    submissions."""
    template = template_host.for_submissions(Limits(**limits), sandbox)
    if template is not None:
        template.start()


def pack(folder: Path, prefix: str = "") -> dict[str, bytes]:
    """A folder (the sanitized submission's; the warmed compile cache's, under ``prefix``) as
    {relative path: bytes}, for a worker on another machine. Regular files only: a link the
    student submitted is not followed to the main machine's files."""
    root = Path(folder)
    return {prefix + str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()
            and not any(q.is_symlink() for q in p.relative_to(root).parents if str(q) != ".")}


def run_packed(files: dict[str, bytes], nb, limits: dict, sandbox: bool, prologue: str) -> Outcome:
    """``run`` for a worker that cannot see the course: the folder arrives as ``pack`` made it."""
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="grade-", dir=scratch_root(limits, sandbox)) as scratch:
            for name, data in files.items():
                target = (Path(scratch) / name).resolve()
                if not target.is_relative_to(Path(scratch).resolve()):
                    continue  # a name that climbs out of the scratch folder is not ours to write
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            return execute(nb, Path(scratch), Limits(**limits), sandbox, prologue)
    except Exception as error:  # one submission's harness failure must not end the batch
        return Outcome("crashed", f"grading harness error: {type(error).__name__}: {error}",
                       time.monotonic() - started)


def probe(dask_worker=None) -> dict:
    """What a Dask worker offers (run there by ``Client.run`` before any submission is sent):
    bubblewrap, and its name."""
    return {"bwrap": shutil.which("bwrap"), "name": str(getattr(dask_worker, "name", ""))}
