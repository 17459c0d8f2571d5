"""What one worker process does for one submission: execute its instrumented notebook.

A spawned worker imports this module, and through it graders.sandbox only: not nbgrader,
the gradebook, SQLAlchemy or jupyter_server, which only the main process needs. (This
package's __init__ stays empty for that reason.) The notebook arrives already sanitized
and instrumented, as a NotebookNode; the worker reads nothing from the course but the
submission's folder, which it copies for the support files.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from graders.sandbox.execute import Outcome, execute
from graders.sandbox.limits import Limits


def run(folder: str, nb, limits: dict, sandbox: bool, prologue: str) -> Outcome:
    """Execute ``nb`` in a scratch copy of ``folder`` (the sanitized submission's folder)."""
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
            # The scratch copy is the only place the submission may write: the autograded
            # folder in the course stays the main process's.
            shutil.copytree(Path(folder), scratch, dirs_exist_ok=True)
            return execute(nb, Path(scratch), Limits(**limits), sandbox, prologue)
    except Exception as error:  # one submission's harness failure must not end the batch
        return Outcome("crashed", f"grading harness error: {type(error).__name__}: {error}",
                       time.monotonic() - started)
