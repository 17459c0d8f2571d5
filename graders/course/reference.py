"""The reference run: what the instructor's solution reports to each hidden test's probe.

A judged test cell (graders.autograde.judging) compares a submission's observations with
the reference solution's. Those come from one run of the assignment's source notebook
(DIR/source/<a>/<a>.ipynb: the solutions, the hidden tests) in a sandbox of its own, split
exactly as a submission is, so the same probes observe the same inputs. The run is kept in
DIR/reference/<a>/ (``observations.json``, ``KEY``) and redone when the notebook's code,
helpers' code or torch's version change; it is never bound into a submission's sandbox, and
it is also a test of the hidden tests: every judge must pass on the reference's own
observations, or grading stops and says which judge failed and why.

An assignment that calls torch.compile gets its warmed compile cache from the same run
(graders.course.compile_cache): one execution of the reference notebook serves both.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import nbformat

from graders.autograde import judging
from graders.course import compile_cache
from graders.course.layout import CourseError
from graders.sandbox import COMPILE_CACHE
from graders.sandbox.execute import execute
from graders.sandbox.limits import Limits

FOLDER = "reference"
HELPERS = Path(__file__).resolve().parent.parent.parent / "helpers"


class ReferenceFailed(CourseError):
    """The reference notebook did not run, or fails a judge of its own."""


@dataclass
class Prepared:
    """What grading an assignment starts from: its reference observations (None: nothing
    in it is judged outside the kernel) and its warmed compile cache (None: compile cold)."""

    observations: judging.Observations | None = None
    cache: Path | None = None


def key(nb) -> str:
    code = "\n\0".join(c.source for c in nb.cells if c.cell_type == "code")
    helpers = hashlib.sha256()
    for path in sorted(HELPERS.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".json"):
            helpers.update(str(path.relative_to(HELPERS)).encode() + b"\0" + path.read_bytes())
    return hashlib.sha256(f"torch {version('torch')}\nhelpers {helpers.hexdigest()}\n{code}".encode()).hexdigest()


def location(course_dir: Path, assignment: str) -> Path:
    return Path(course_dir) / FOLDER / assignment


def fresh(course_dir: Path, assignment: str, nb) -> judging.Observations | None:
    folder = location(course_dir, assignment)
    try:
        if (folder / "KEY").read_text().strip() != key(nb):
            return None
        return judging.Observations.from_json(json.loads((folder / "observations.json").read_text()))
    except (OSError, ValueError):
        return None


def prepare(course_dir: Path, assignment: str, limits: Limits | None = None, sandbox: bool = True,
            cache: bool = False, log=print) -> Prepared:
    """The assignment's reference observations (and its warmed compile cache when ``cache``),
    from DIR/reference when fresh, else from one run of the source notebook now."""
    course_dir = Path(course_dir)
    source = compile_cache.reference(course_dir, assignment)
    nb = nbformat.read(str(source), as_version=4)
    judged = bool(judging.plan_of(nb))
    cache = cache and compile_cache.compiles(nb)
    observations = fresh(course_dir, assignment, nb) if judged else None
    warmed = compile_cache.fresh(course_dir, assignment, nb) if cache else None
    if (observations is not None or not judged) and (warmed is not None or not cache):
        return Prepared(observations, warmed)
    what = " and ".join(w for w, needed in (("the hidden tests' reference", judged and observations is None),
                                             ("the torch.compile cache", cache and warmed is None)) if needed)
    log(f"{assignment}: one run of the reference notebook for {what}")
    run_nb, plan = judging.prepare(nb)
    with tempfile.TemporaryDirectory(prefix="reference-", dir=_scratch(course_dir)) as scratch:
        scratch = Path(scratch)
        shutil.copytree(source.parent, scratch, dirs_exist_ok=True)
        (scratch / COMPILE_CACHE).mkdir(exist_ok=True)
        outcome = execute(run_nb, scratch, limits, sandbox)
        if (outcome.status != "ok" or outcome.notebook is None) and not judged:
            log(f"{assignment}: no warmed compile cache ({outcome.status}: {outcome.reason}); "
                "submissions will compile cold")
            return Prepared()
        if outcome.status != "ok" or outcome.notebook is None:
            raise ReferenceFailed(f"{assignment}: the reference notebook did not run to its end "
                                  f"({outcome.status}: {outcome.reason}); fix it before grading")
        if judged:
            observations = judging.collect(outcome.notebook)
            _check_judges(assignment, plan, observations)
            _store(course_dir, assignment, nb, observations)
        if cache and warmed is None:
            warmed = compile_cache.install(course_dir, assignment, nb, scratch / COMPILE_CACHE, outcome, log)
    return Prepared(observations, warmed)


def _check_judges(assignment: str, plan: judging.Plan, observations: judging.Observations) -> None:
    problems = list(observations.findings)
    for grade_id, verdict in judging.judge_all(plan, observations, observations).items():
        if not verdict.passed:
            problems.append(f"{grade_id}: {verdict.grader_error or verdict.message}")
    if problems:
        raise ReferenceFailed(f"{assignment}: the reference solution fails its own hidden tests, so "
                              "no submission can be judged against it:\n  " + "\n  ".join(problems))


def _store(course_dir: Path, assignment: str, nb, observations: judging.Observations) -> None:
    folder = location(course_dir, assignment)
    folder.mkdir(parents=True, exist_ok=True)
    staged = folder / "observations.json.new"
    staged.write_text(json.dumps(observations.to_json()))
    staged.replace(folder / "observations.json")
    (folder / "KEY").write_text(key(nb) + "\n")


def _scratch(course_dir: Path) -> Path:
    """Scratch space under the course directory (never the system's shared temporary folder)."""
    folder = Path(course_dir) / ".scratch"
    folder.mkdir(exist_ok=True)
    return folder


def needing(course, assignments: list[str]) -> list[str]:
    """Those of ``assignments`` that need a reference run before grading: judged ones, and
    those whose submissions get a warmed compile cache."""
    compiling = set(compile_cache.needing_warm_up(course, assignments))
    out = []
    for name in assignments:
        source = compile_cache.reference(course.dir, name)
        if name in compiling or (source.exists() and judging.plan_of(nbformat.read(str(source), as_version=4))):
            out.append(name)
    return out


def warm(course, assignments: list[str], limits: Limits, sandbox: bool = True, log=print) -> dict[str, Prepared]:
    """{assignment: Prepared} for ``assignments``; the compile cache only where the course's
    ``c.CompileCache.enabled`` allows it."""
    cache = compile_cache.CompileCache(config=course.config).enabled
    return {a: prepare(course.dir, a, limits, sandbox, cache=cache, log=log) for a in assignments}
