"""Verdicts judged outside the kernel: a test cell's points follow its judge, run here.

A test cell's hidden block has a probe part and a judge part (helpers.grading.probe):

    <visible checks>
    ### BEGIN HIDDEN TESTS
    <probe: in the kernel, reports data>
    ### JUDGE
    <judge: here, decides>
    ### END HIDDEN TESTS

``prepare`` splits each such cell before execution: the kernel runs the visible checks as
the student's copy has them, then a probe cell of the grader's (``CANARY_KEY`` "probe") that
runs the probe part (even when the visible checks failed); the judge part never enters the
kernel, nor do the expected values it holds. ``collect`` reads the observations back from
the probe cells (``findings`` for data that is not well-formed or reported twice).
``judge`` runs each judge part in this process on data alone: ``got`` is the submission's
observations, ``ref`` the reference solution's (graders.course.reference, one clean run per
assignment). ``apply`` puts each test cell back as nbgrader knows it (its full source) with
outputs that say the judge's verdict, so that nbgrader's own SaveAutoGrades scores it:
an error output when the judge failed (its message, with its misconception marker, is what
the formgrader and the feedback show), none when it passed. What the kernel printed stays
as feedback; the kernel's own errors and pass lines in such a cell decide nothing.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field

import nbformat
import numpy
import torch
from nbgrader.utils import is_grade, is_solution

from graders.sandbox import CANARY_KEY
from helpers import checks
from helpers.grading import JUDGE_MARK, probe, wire

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"  # nbgrader's ClearHiddenTests defaults
PROBE = "probe"  # the CANARY_KEY value of the grader's probe cells
MAX_PAYLOADS = 2_000  # observations one test cell may report


@dataclass
class Parts:
    visible: str  # the cell as the student's copy has it (the hidden block removed)
    probe: str
    judge: str


def split(source: str, begin: str = BEGIN, end: str = END) -> Parts | None:
    """The cell's visible, probe and judge parts; None when it has no judge (its hidden
    tests, if any, then decide in the kernel as before)."""
    lines = source.split("\n")
    starts = [i for i, line in enumerate(lines) if begin in line]
    if len(starts) != 1:
        return None
    start = starts[0]
    stop = next((i for i in range(start + 1, len(lines)) if end in lines[i]), None)
    marks = [i for i in range(start + 1, stop or start) if lines[i].strip() == JUDGE_MARK]
    if stop is None or len(marks) != 1:
        return None
    mark = marks[0]
    return Parts("\n".join(lines[:start] + lines[stop + 1:]).rstrip("\n"),
                 "\n".join(lines[start + 1:mark]), "\n".join(lines[mark + 1:stop]))


def is_test_cell(cell) -> bool:
    return cell.cell_type == "code" and is_grade(cell) and not is_solution(cell)


@dataclass
class Plan:
    """What ``prepare`` split: per judged test cell, its full source and its judge."""

    sources: dict[str, str] = field(default_factory=dict)
    judges: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.judges)


def plan_of(nb, begin: str = BEGIN, end: str = END) -> Plan:
    plan = Plan()
    for cell in nb.cells:
        if is_test_cell(cell):
            parts = split(cell.source, begin, end)
            if parts is not None:
                grade_id = cell.metadata["nbgrader"]["grade_id"]
                plan.sources[grade_id], plan.judges[grade_id] = cell.source, parts.judge
    return plan


def share(nb) -> tuple[float, float]:
    """(points of the test cells judged outside the kernel, points of all test cells)."""
    judged = total = 0.0
    for cell in nb.cells:
        if is_test_cell(cell):
            points = float(cell.metadata["nbgrader"].get("points", 0))
            total += points
            judged += points if split(cell.source) is not None else 0.0
    return judged, total


def probe_cell(grade_id: str, code: str):
    cell = nbformat.v4.new_code_cell(
        "import helpers.grading.probe as _graders_probe\n"
        f"_graders_probe.run({grade_id!r}, {code!r})\n")
    cell.metadata[CANARY_KEY] = PROBE
    cell.metadata["graders_probe"] = grade_id
    return cell


def prepare(nb, begin: str = BEGIN, end: str = END):
    """A copy of ``nb`` for the kernel (judged cells split, probe cells added) and its Plan."""
    nb = nbformat.from_dict(nb)
    plan = Plan()
    cells = []
    for cell in nb.cells:
        parts = split(cell.source, begin, end) if is_test_cell(cell) else None
        if parts is None:
            cells.append(cell)
            continue
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        plan.sources[grade_id], plan.judges[grade_id] = cell.source, parts.judge
        cell.source = parts.visible
        cells.append(cell)
        cells.append(probe_cell(grade_id, parts.probe))
    nb.cells = cells
    return nb, plan


@dataclass
class Observations:
    """What the probe cells reported, per test cell; and what was wrong with the reports."""

    cells: dict[str, dict[str, dict]] = field(default_factory=dict)  # grade_id -> {key: encoded}
    stopped: dict[str, str] = field(default_factory=dict)  # grade_id -> its probe's error
    ran: set[str] = field(default_factory=set)
    findings: list[str] = field(default_factory=list)

    def observed(self, grade_id: str) -> probe.Observed:
        return probe.Observed(self.cells.get(grade_id, {}), self.stopped.get(grade_id, ""))

    def to_json(self) -> dict:
        return {"cells": self.cells, "stopped": self.stopped}

    @classmethod
    def from_json(cls, data: dict) -> Observations:
        return cls(cells=data.get("cells", {}), stopped=data.get("stopped", {}),
                   ran=set(data.get("cells", {})))


def collect(nb) -> Observations:
    """The observations of every probe cell of an executed ``nb``."""
    found = Observations()
    for cell in nb.cells:
        if cell.get("metadata", {}).get(CANARY_KEY) != PROBE:
            continue
        grade_id = cell.metadata["graders_probe"]
        if cell.get("execution_count") is None and not cell.metadata.get("graders_ran"):
            continue  # never reached (a timeout or a crash stopped the run before it)
        found.ran.add(grade_id)
        observed = found.cells.setdefault(grade_id, {})
        payloads = [o for o in cell.get("outputs", []) if probe.MIME in o.get("data", {})]
        for output in payloads[:MAX_PAYLOADS]:
            data = output["data"][probe.MIME]
            key = data.get("key") if isinstance(data, dict) else None
            if not isinstance(key, str) or not isinstance(data.get("value"), dict):
                found.findings.append(f"a malformed observation was reported in {grade_id}")
                continue
            if key in observed:
                found.findings.append(f"the observation {key!r} of {grade_id} was reported twice "
                                      "(something besides the grader's probe reported it)")
                continue
            observed[key] = json.loads(json.dumps(data["value"]))  # plain dicts, as JSON made them
        if len(payloads) > MAX_PAYLOADS:
            found.findings.append(f"{grade_id} reported more observations than its probe makes")
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            found.stopped[grade_id] = f"{errors[0].get('ename', '')}: {str(errors[0].get('evalue', ''))[:200]}"
    return found


@dataclass
class Verdict:
    passed: bool
    message: str = ""         # the failure, as the student reads it (marker included)
    grader_error: str = ""    # the judge itself failed: a bug in the hidden test, not the answer


_JUDGE_LOCK = threading.Lock()  # the checks' call counters are module state: one judge at a time


def judge(grade_id: str, code: str, student: probe.Observed, reference: probe.Observed) -> Verdict:
    """Run one judge on data: pass, a failed check with its message, or a grader error."""
    namespace = {"__name__": f"judge:{grade_id}", "checks": checks, "torch": torch, "nn": torch.nn,
                 "F": torch.nn.functional, "math": math, "np": numpy, "got": student, "ref": reference}
    with _JUDGE_LOCK:
        token = probe.bound(student, reference)
        try:
            exec(compile(code, f"<judge of {grade_id}>", "exec"), namespace)  # noqa: S102
        except checks.CheckFailed as failure:
            return Verdict(False, str(failure))
        except wire.WireError as error:
            return Verdict(False, f"The grader could not read what this cell's code returned: {error}.")
        except Exception as error:  # noqa: BLE001 - the hidden test's own bug
            return Verdict(False, grader_error=f"{type(error).__name__}: {str(error)[:300]}")
        finally:
            probe.unbind(token)
    return Verdict(True)


def judge_all(plan: Plan, observations: Observations, reference: Observations) -> dict[str, Verdict]:
    return {grade_id: judge(grade_id, code, observations.observed(grade_id), reference.observed(grade_id))
            for grade_id, code in plan.judges.items()}


def failure_output(verdict: Verdict):
    """The error output a judged cell gets when its judge failed."""
    if verdict.grader_error:
        failure = checks.CheckFailed(
            "The grader could not judge this cell (its hidden test failed: "
            f"{verdict.grader_error}); your instructor will grade it by hand.")
        return nbformat.v4.new_output("error", ename="GraderError", evalue=str(failure),
                                      traceback=failure._render_traceback_())
    failure = checks.CheckFailed(verdict.message)
    return nbformat.v4.new_output("error", ename="CheckFailed", evalue=str(failure),
                                  traceback=failure._render_traceback_())


PASS_LINES = (checks.PASS_VISIBLE, checks.PASS_ALL)


def apply(nb, plan: Plan, verdicts: dict[str, Verdict]) -> list[str]:
    """Each judged test cell of the executed ``nb`` (probe cells already stripped) gets its
    full source back and outputs that carry its judge's verdict; returns the grade ids whose
    judge could not run (a hidden test's bug: they need grading by hand)."""
    by_hand = []
    for cell in nb.cells:
        if not is_test_cell(cell):
            continue
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        if grade_id not in plan.sources:
            continue
        cell.source = plan.sources[grade_id]
        verdict = verdicts.get(grade_id)
        if verdict is None or cell.get("execution_count") is None:
            continue  # never ran: ExecutedElsewhere says why, and it scores 0
        kernel = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        kept = [_without_pass_line(o) for o in cell.get("outputs", []) if o.get("output_type") != "error"]
        kept = [_as_display(o) for o in kept if o is not None and not _is_partial_grade(o)]
        cell.metadata.setdefault("graders", {})["verdict"] = {
            "judge": "pass" if verdict.passed else ("error" if verdict.grader_error else "fail"),
            "kernel": "fail" if kernel else "pass"}
        if verdict.passed:
            kept.append(nbformat.v4.new_output("stream", name="stdout", text=checks.PASS_ALL + "\n"))
        else:
            own = failure_output(verdict)
            # the judge's failure first (the verdict: what the report counts and the summary
            # quotes); the kernel's own, when it says something else, after it as the student saw it
            kept.append(own)
            kept += [o for o in kernel if o.get("evalue") != own.evalue and o.get("ename") != "NotRun"]
            if verdict.grader_error:
                by_hand.append(grade_id)
        cell.outputs = kept
    return by_hand


def _without_pass_line(output):
    if output.get("output_type") != "stream":
        return output
    lines = [line for line in output.get("text", "").splitlines(keepends=True) if line.strip() not in PASS_LINES]
    if not lines:
        return None
    output["text"] = "".join(lines)
    return output


def _as_display(output):
    """An execute_result shown as display_data: nbgrader scores a test cell by its first
    execute_result when that comes before any error (full marks for one that is not a
    number), so in a judged cell none may stand before the judge's verdict. A cell's last
    expression, or a hook the student registered that calls the display hook, would
    otherwise outvote the judge."""
    if output.get("output_type") != "execute_result":
        return output
    return nbformat.v4.new_output("display_data", data=output.get("data", {}), metadata=output.get("metadata", {}))


def _is_partial_grade(output) -> bool:
    """A display nbgrader would read as a partial score (a number in text/plain): in a judged
    cell the judge decides the score, not what the kernel displayed."""
    if output.get("output_type") not in ("execute_result", "display_data"):
        return False
    text = output.get("data", {}).get("text/plain")
    try:
        float(text if isinstance(text, str) else "".join(text or []))
        return True
    except (TypeError, ValueError):
        return False
