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


def require_root(why: str) -> None:
    """Skip unless root (never under CI=true, where it fails): ``why`` says what needs it."""
    if os.geteuid() == 0:
        return
    message = f"{why}: run as root (make test in CI does)"
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


def pytest_collection_modifyitems(config, items):
    """Slow tests first, and within a test file the latest notebooks first (the heaviest: 06
    compiles, 04 trains), so that under xdist no long test is left for the end while the other
    workers idle; quick tests fill the gaps last. A file's tests stay together, so that a
    worker keeps its module fixture (the browser tests' lab) from one test to the next. (xdist's
    loadgroup still sends its multi-test groups before all single tests.)"""
    def slow(item) -> bool:
        return item.get_closest_marker("slow") is not None or item.path.suffix == ".ipynb"

    def file(item) -> Path:
        return item.path.parent if item.path.suffix == ".ipynb" else item.path  # notebooks: one file

    def stem(item) -> str:
        params = getattr(item, "callspec", None) and item.callspec.params
        return (params or {}).get("stem") or (item.path.stem if item.path.suffix == ".ipynb" else "")

    rank = {}  # a file's place: slow first (as its first test is), then where it was collected
    for item in items:
        rank.setdefault(file(item), (not slow(item), len(rank)))
    items.sort(key=lambda item: (*rank[file(item)], [-ord(c) for c in stem(item)]))


# Every picture an instrument draws while a test runs passes helpers.lab.picture_check (the
# Explorer checks each setting's picture when this variable holds its process's id, so a
# notebook kernel started by a test, which inherits the variable, does not).
os.environ["COURSE_CHECK_PICTURES"] = str(os.getpid())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    outcome = yield
    check = sys.modules.get("helpers.lab.picture_check")
    found = check.take_found() if check is not None else []
    if found and outcome.excinfo is None:
        shown = "\n".join(found[:20]) + (f"\n... and {len(found) - 20} more" if len(found) > 20 else "")
        outcome.force_exception(AssertionError(
            f"{len(found)} defects in the pictures instruments drew during this test "
            f"(helpers/lab/picture_check.py):\n{shown}"))
