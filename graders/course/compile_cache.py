"""A warmed torch.compile cache per assignment, so that grading does not compile cold.

Every graded submission runs in a fresh sandbox whose Inductor cache starts empty: a
notebook that calls ``torch.compile`` would pay every compilation (C++ codegen and a
compiler run per graph) once per student. Instead, the reference notebook (DIR/source, the
instructor's answers) is executed once, in the same sandbox and environment as grading, and
the Inductor cache it leaves is kept in DIR/compile_cache/<assignment>/. Each submission
then gets its own copy in its scratch folder (graders.sandbox.COMPILE_CACHE): a
student's code can read and spoil only that copy, never the course's or another student's.

The cache is keyed by the reference notebook's code and the torch version (the KEY file);
a stale or missing cache is rebuilt by the next `course release` or `course autograde`.
Settings: ``c.CompileCache.enabled`` in the course's nbgrader_config.py.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
from importlib.metadata import version
from pathlib import Path

import nbformat
from traitlets import Bool
from traitlets.config import Configurable

from graders.course.config import Course
from graders.course.layout import CourseError
from graders.sandbox.bwrap import SandboxUnavailable
from graders.sandbox.limits import Limits

FOLDER = "compile_cache"
COMPILES = re.compile(r"\btorch\.compile\b")


class CompileCache(Configurable):
    enabled = Bool(True, help="warm a torch.compile cache from the reference notebook of each "
                              "assignment that compiles, and give every graded submission a "
                              "private copy of it").tag(config=True)


def compiles(nb) -> bool:
    """Whether any code cell calls torch.compile (prose that names it does not count)."""
    return any(c.cell_type == "code" and COMPILES.search(c.source) for c in nb.cells)


def key(nb) -> str:
    code = "\n\0".join(c.source for c in nb.cells if c.cell_type == "code")
    return hashlib.sha256(f"torch {version('torch')}\n{code}".encode()).hexdigest()


def location(course_dir: Path, assignment: str) -> Path:
    return Path(course_dir) / FOLDER / assignment


def reference(course_dir: Path, assignment: str) -> Path:
    return Path(course_dir) / "source" / assignment / f"{assignment}.ipynb"


def fresh(course_dir: Path, assignment: str, nb=None) -> Path | None:
    """The assignment's warmed cache if it matches the reference notebook ``nb`` (read from
    DIR/source when not given)."""
    folder, source = location(course_dir, assignment), reference(course_dir, assignment)
    if not (folder / "KEY").exists() or (nb is None and not source.exists()):
        return None
    nb = nb if nb is not None else nbformat.read(str(source), as_version=4)
    return folder if (folder / "KEY").read_text().strip() == key(nb) else None


def needing_warm_up(course: Course, assignments: list[str]) -> list[str]:
    """Those of ``assignments`` whose submissions get a warmed cache (whether it is fresh or
    still to be built), unless the course's ``c.CompileCache.enabled`` is False."""
    if not CompileCache(config=course.config).enabled:
        return []
    return [a for a in assignments if reference(course.dir, a).exists()
            and compiles(nbformat.read(str(reference(course.dir, a)), as_version=4))]


def warm(course: Course, assignments: list[str], limits: Limits, sandbox: bool = True,
         log=print) -> dict[str, Path]:
    """{assignment: its warmed cache} for those that compile, unless the course's
    ``c.CompileCache.enabled`` is False; what `course release` and `course autograde` call."""
    if not CompileCache(config=course.config).enabled:
        return {}
    found = {a: ensure(course.dir, a, limits, sandbox, log) for a in assignments
             if compiles(nbformat.read(str(reference(course.dir, a)), as_version=4))}
    return {a: path for a, path in found.items() if path is not None}


def ensure(course_dir: Path, assignment: str, limits: Limits | None = None, sandbox: bool = True,
           log=print) -> Path | None:
    """The assignment's warmed cache, built now if missing or stale; None when the notebook
    does not compile or the reference run failed (grading then simply compiles cold). The
    run is the reference run (graders.course.reference), which also records the hidden
    tests' reference observations."""
    from graders.course import reference
    try:
        return reference.prepare(course_dir, assignment, limits, sandbox, cache=True, log=log).cache
    except (SandboxUnavailable, CourseError) as error:
        log(f"{assignment}: no warmed compile cache: {error}")
        return None


def install(course_dir: Path, assignment: str, nb, built: Path, outcome, log=print) -> Path | None:
    """Keep ``built`` (the Inductor cache a reference run of ``nb`` left) as the assignment's
    warmed cache; None when the run left nothing."""
    if not built.is_dir() or not any(p.name != "KEY" for p in built.iterdir()):
        log(f"{assignment}: no warmed compile cache (the reference run compiled nothing); "
            "submissions will compile cold")
        return None
    (built / "KEY").write_text(key(nb) + "\n")
    target = location(course_dir, assignment)
    staged = target.with_name(target.name + ".new")
    shutil.rmtree(staged, ignore_errors=True)
    shutil.copytree(built, staged, symlinks=True)
    shutil.rmtree(target, ignore_errors=True)
    staged.rename(target)
    log(f"{assignment}: compile cache ready ({size_mb(target):.1f} MB, {outcome.seconds:.0f} s)")
    return target


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file()) / 2**20


def stderr(message: str) -> None:
    print(message, file=sys.stderr)
