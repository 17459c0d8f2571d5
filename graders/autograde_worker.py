"""What one worker process does for one submission: execute its sanitized notebook.

Kept apart from graders.autograde so that spawned workers import only this, nbformat and
graders.execution — not nbgrader, the gradebook or SQLAlchemy, which only the main process
touches.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import nbformat

from .execution import Limits, Outcome, execute


def run(notebook_path: str, limits: Limits, sandbox: bool) -> Outcome:
    """Execute a copy of the sanitized notebook's folder (it holds the support files too)."""
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
            # The scratch copy is the only place the submission may write: the autograded
            # folder in the course stays the main process's.
            shutil.copytree(Path(notebook_path).parent, scratch, dirs_exist_ok=True)
            nb = nbformat.read(notebook_path, as_version=4)
            return execute(nb, Path(scratch), limits, sandbox)
    except Exception as error:  # one submission's harness failure must not end the batch
        return Outcome("crashed", f"grading harness error: {type(error).__name__}: {error}",
                       time.monotonic() - started)
