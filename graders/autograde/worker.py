"""A worker's contact with the sandbox: where a submission runs, and what a Dask worker is
asked before any submission is sent.

``execute_in`` copies a submission's folder (the autograded folder of its scratch course,
graders.autograde.scratch) into a scratch folder of its own, where the process's template
can bind it (graders.sandbox.template_host) or else anywhere, with a private copy of the
warmed compile cache, and executes it there (graders.sandbox.execute): the submission can
write nowhere else. ``prepare`` starts the template's imports before the first submission;
``probe`` says whether a Dask worker can sandbox at all. ``read_files``/``write_files``: a
folder as {relative path: bytes}, what crosses to and from a worker on another machine.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from pathlib import Path

from graders.sandbox import COMPILE_CACHE, template_host
from graders.sandbox.execute import Outcome, execute
from graders.sandbox.limits import Limits

_SLOTS: threading.BoundedSemaphore | None = None


def limit_executions(slots: int | None) -> None:
    """At most ``slots`` sandboxes of this process at once (None: as many as it has threads).
    The local pool runs twice as many grading threads as slots, so that while ``slots``
    submissions execute, the threads of the next ones run their nbgrader steps."""
    global _SLOTS
    _SLOTS = threading.BoundedSemaphore(slots) if slots else None


def execute_in(folder: Path, nb, limits: dict, sandbox: bool, prologue: str,
               cache: str | dict | None = None, verify_key: str = "") -> Outcome:
    """Execute ``nb`` in a scratch copy of ``folder``, with a private copy of ``cache`` (the
    assignment's warmed torch.compile cache: a folder, or its files as {path: bytes}), in one
    of this process's execution slots."""
    with _SLOTS or contextlib.nullcontext():
        return _execute_in(folder, nb, limits, sandbox, prologue, cache, verify_key)


def _execute_in(folder: Path, nb, limits: dict, sandbox: bool, prologue: str,
                cache: str | dict | None, verify_key: str) -> Outcome:
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="grade-", dir=scratch_root(limits, sandbox)) as scratch:
            shutil.copytree(Path(folder), scratch, dirs_exist_ok=True)
            if isinstance(cache, str):
                shutil.copytree(cache, Path(scratch) / COMPILE_CACHE, dirs_exist_ok=True)
            elif cache:
                write_files(Path(scratch) / COMPILE_CACHE, cache)
            return execute(nb, Path(scratch), Limits(**limits), sandbox, prologue, verify_key)
    except Exception as error:  # one submission's harness failure must not end the batch
        return Outcome("crashed", f"grading harness error: {type(error).__name__}: {error}",
                       time.monotonic() - started)


def scratch_root(limits: dict, sandbox: bool) -> Path | None:
    """Where a submission's scratch copy goes: the template's inbox when submissions are
    forked from one (graders.sandbox.template_host), else the system's temporary folder."""
    template = template_host.for_submissions(Limits(**limits), sandbox)
    return template.inbox() if template is not None else None


def prepare(limits: dict, sandbox: bool) -> None:
    """Start the template's imports while the first submissions are still being read and
    sanitized."""
    template = template_host.for_submissions(Limits(**limits), sandbox)
    if template is not None:
        template.start()


def probe(dask_worker=None) -> dict:
    """What a Dask worker offers (run there by ``Client.run`` before any submission is sent):
    bubblewrap, and its name."""
    return {"bwrap": shutil.which("bwrap"), "name": str(getattr(dask_worker, "name", ""))}


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    """``files`` ({relative path: bytes}) under ``folder``; a name that climbs out of it is
    not written."""
    root = folder.resolve()
    for name, data in files.items():
        target = (root / name).resolve()
        if not target.is_relative_to(root):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def read_files(folder: Path) -> dict[str, bytes]:
    """The regular files under ``folder`` (links are not followed) as {relative path: bytes}."""
    root = Path(folder)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()
            and not any(q.is_symlink() for q in p.relative_to(root).parents if str(q) != ".")}
