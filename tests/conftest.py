import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
# nbgrader shells out to alembic: the environment's bin must be on PATH however pytest started.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")

IN_CI = os.environ.get("CI", "").lower() == "true"


def require_program(path_or_name: str, package: str) -> str:
    """Return the program's path, or skip (never under CI=true, where it fails)."""
    found = shutil.which(path_or_name) or (path_or_name if os.access(path_or_name, os.X_OK) else None)
    if found:
        return found
    message = f"{path_or_name} not found: install the Debian package {package} (make test does, as root)"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def sandbox_flags() -> list[str]:
    """`course autograde` flags: the bubblewrap sandbox wherever graders.sandbox can build
    one, --no-sandbox where bwrap is missing (tests that need the sandbox ask for bwrap)."""
    from graders.sandbox import bwrap as sandbox
    try:
        sandbox.wrap(["true"], Path("/tmp"), None)
    except sandbox.SandboxUnavailable:
        return ["--no-sandbox"]
    except Exception:
        pass
    return []
