"""What a worker does for one submission, start to end: ``grade``.

A worker is a grading thread of `course autograde` (graders.autograde.local) or a thread of
a Dask worker process (graders.autograde.cluster); either calls ``grade`` with what the main
process read and handed out, and returns a Graded: the graded notebook's folder and the
submission's grades, which the main process writes, alone (graders.autograde.intake).

1. a scratch course of this one submission (graders.autograde.scratch): the assignment as
   the gradebook recorded it, its master files, what the student submitted, the grades
   a grader gave by hand so far;
2. nbgrader's Autograde, first half, on it: the sanitize steps (ClearOutput, DeduplicateIds,
   OverwriteKernelspec, OverwriteCells, CheckCellMetadata, or the course's own list);
3. judged test cells split (graders.autograde.judging: the probe part runs in the kernel, the
   judge part stays here), the integrity canaries added (graders.autograde.integrity), the
   notebook executed in a sandbox (graders.sandbox), observations and canaries read back and
   removed;
4. each judged test cell's judge run here on the observations, against the reference run's
   (graders.course.reference); its outputs then say the verdict;
5. nbgrader's Autograde, second half, on the executed notebook: the finishing steps
   (IgnorePattern, LimitOutput, SaveAutoGrades, AssignLatePenalties, ... or the course's);
6. what it left: DIR/autograded/<s>/<a>/'s files, the submission's grades and comments.
A submission that cannot be graded (unreadable, a sanitize step fails, test cells gone,
tampering, nothing came back from the sandbox) gets no grades (the main process scores it 0
in every cell) and a notebook whose test cells say why, for its feedback page.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbformat.v4.nbbase import random_cell_id
from nbgrader.utils import is_grade

from . import integrity, judging, recorded, review, worker
from . import pasted as pasted_cells
from .scratch import ScratchCourse


@dataclass
class Assignment:
    """What every submission of an assignment needs, handed out once per batch."""

    name: str
    config: object                   # the course's traitlets Config (its nbgrader_config.py)
    record: recorded.AssignmentRecord  # what the gradebook recorded of it
    master_files: dict[str, bytes]   # DIR/source/<a>/'s other files, copied over each submission
    released: str                    # the student copy (JSON): what an ungradable submission shows
    limits: dict                     # graders.sandbox.limits.Limits.values()
    sandbox: bool
    token: str = field(default_factory=lambda: uuid.uuid4().hex)  # a worker's caches are keyed by it


@dataclass
class Submission:
    student: str
    notebook: bytes                        # DIR/submitted/<s>/<a>/<a>.ipynb as read
    folder: str | None = None              # the submitted folder, where the worker can read it
    files: dict[str, bytes] | None = None  # else its other files, as read by the main process
    graders_state: recorded.SubmissionState | None = None  # grades given by hand so far


@dataclass
class Graded:
    status: str
    reason: str
    seconds: float
    files: dict[str, bytes]                    # DIR/autograded/<s>/<a>/ (empty: none to write)
    state: recorded.SubmissionState | None     # None: every cell scores 0
    timing: dict = field(default_factory=dict)  # {phase: [wall s, CPU s]}
    # the static review's findings (graders.autograde.review), each a quoted line and why:
    # the score stands, the cells they affect need a grader's look (needs_manual_grade)
    flags: list[str] = field(default_factory=list)


def grade(submission: Submission, assignment: Assignment, cache: str | dict | None = None,
          reference: dict | None = None) -> Graded:
    """The whole pipeline for one submission; never raises for anything the submission does.

    ``cache`` is the assignment's warmed compile cache, a path or its files; ``reference`` its
    reference observations (graders.course.reference, as JSON). Each is an argument of its
    own, not a field of the submission: on a cluster it arrives as a future shared once per
    batch, and Dask replaces a future passed as an argument (or in a list or dict), never one
    inside a dataclass."""
    started, clock = time.monotonic(), _Clock()
    try:
        nb = nbformat.reads(submission.notebook.decode("utf-8"), as_version=4)
    except Exception as error:
        return ungraded(assignment, None, "invalid", f"unreadable notebook: {_said(error)}", started)
    submitted = Path(submission.folder) if submission.folder else {
        **(submission.files or {}), f"{assignment.name}.ipynb": submission.notebook}
    pasted = pasted_cells.repair(nb, assignment.record.cell_names(assignment.name))
    with ScratchCourse(assignment, submission.student, submitted, submission.graders_state) as course:
        if pasted:  # nbgrader reads the repaired copy (the student's file is left as it is)
            Path(course.notebook("submitted_directory")).write_text(nbformat.writes(nb))
        try:
            nb = course.sanitize()
        except Exception as error:
            return ungraded(assignment, None, "invalid", f"nbgrader could not sanitize it: {_said(error)}", started)
        present = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
        missing = [g for g in assignment.record.grade_ids(assignment.name) if g not in present]
        if missing:
            return ungraded(assignment, nb, "invalid",
                             f"test cells missing and not restorable: {', '.join(missing)}", started)
        flags = review.review(nb, nbformat.reads(assignment.released, as_version=4))
        timing = {"worker: sanitize (nbgrader), review": clock.lap()}
        run_nb, plan = judging.prepare(nb)
        if plan and reference is None:
            return ungraded(assignment, None, "crashed", "grading harness error: no reference observations "
                            "for this assignment's judged tests", started, timing)
        run_nb, check = integrity.instrument(run_nb, integrity.structure(nb))
        outcome = worker.execute_in(course.folder("autograded_directory"), run_nb, assignment.limits,
                                    assignment.sandbox, check.prologue, cache, check.nonce)
        observed = judging.collect(outcome.notebook) if outcome.notebook is not None else judging.Observations()
        outcome = integrity.conclude(outcome, check)
        clock.lap()
        findings = outcome.findings + observed.findings
        if findings:
            return ungraded(assignment, outcome.notebook, "invalid", "tampering: " + "; ".join(findings),
                             started, outcome.timing | timing, flags)
        if outcome.notebook is None:
            return ungraded(assignment, None, outcome.status, outcome.reason, started, outcome.timing | timing,
                            flags)
        by_hand = review.affected(nb, flags)
        if plan:
            verdicts = judging.judge_all(plan, observed, judging.Observations.from_json(reference))
            by_hand += judging.apply(outcome.notebook, plan, verdicts)
            timing["worker: judge"] = clock.lap()
        reason = "; ".join([outcome.reason, *pasted])
        course.finish(outcome.notebook, {"status": outcome.status, "reason": reason})
        graded = Graded(outcome.status, reason, time.monotonic() - started, course.autograded(),
                        _by_hand(course.state(), assignment.name, by_hand), flags=[f.quote() for f in flags])
        graded.timing = outcome.timing | timing | {"worker: finish (nbgrader)": clock.lap()}
        return graded


def _by_hand(state: recorded.SubmissionState, notebook: str, grade_ids: list[str]) -> recorded.SubmissionState:
    """``grade_ids`` marked as needing a grade by hand (nbgrader's needs_manual_grade): the
    formgrader lists them."""
    grades = state.notebooks.get(notebook, {}).get("grades", {})
    for grade_id in grade_ids:
        if grade_id in grades:
            grades[grade_id]["needs_manual_grade"] = True
    return state


def ungraded(assignment: Assignment, nb, status: str, reason: str, started: float,
              timing: dict | None = None, flags: list | None = None) -> Graded:
    """No grades; the notebook (``nb``, else the student copy) with every test cell saying why."""
    nb = nb if nb is not None else nbformat.reads(assignment.released, as_version=4)
    for cell in nb.cells:
        cell.setdefault("id", random_cell_id())  # a cell OverwriteCells restored has none
        if cell.cell_type == "code" and is_grade(cell):
            cell.outputs = [o for o in cell.get("outputs", []) if o.get("output_type") != "error"]
            cell.outputs.append(new_output("error", ename="NotRun", evalue=f"not graded ({status}): {reason}",
                                           traceback=[]))
    text = nbformat.writes(nb)
    return Graded(status, reason, time.monotonic() - started, {f"{assignment.name}.ipynb": text.encode()},
                  None, timing or {}, [f.quote() for f in flags or []])


def _said(error: BaseException) -> str:
    return f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0][:200]}"


class _Clock:
    """This thread's wall and CPU seconds since the last lap."""

    def __init__(self):
        self.mark = time.monotonic(), time.thread_time()

    def lap(self) -> list[float]:
        now = time.monotonic(), time.thread_time()
        spent = [now[0] - self.mark[0], now[1] - self.mark[1]]
        self.mark = now
        return spent

