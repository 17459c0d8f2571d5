"""Tampering with grading from inside the kernel: canaries injected before, read after.

Runs in the worker that grades the submission (graders.autograde.pipeline), outside the
sandbox (it reads nbgrader's metadata); the kernel-side half is graders.sandbox.guard, which
the prologue imports and installs in the kernel.

Verdicts on answers are judged outside the kernel (graders.autograde.judging). What stays
inside is the test cells' own run, which feeds the student's feedback, and the probes, which
read the student's objects: so tampering is still *detected* (graders/THREATS.md):

- a **prologue** (graders.sandbox.guard), run silently before any student code, captures
  references to what test cells and probes rely on: builtins, the comparison functions of
  torch and numpy, every function of ``helpers.checks`` and the probe's modules, IPython's
  run machinery, events, transformers and display, the kernel's message handlers,
  sys.excepthook/stdout/stderr/displayhook;
- an **integrity canary** before and after every test cell and at the end: the runner asks
  the guard (a kernel message, not code; graders.sandbox.runner) to compare the live objects
  with those references, and keeps its reply in the canary cell's metadata, out of the
  kernel's reach. A canary that got no well-formed reply is itself a finding;
- a **must-fail canary** at the end runs a check that has to fail, written like any test's
  check; if its cell ends without an error, failures of test cells are being hidden.

The runner executes canaries with store_history=False (execution counts stay the
student's), and ``strip`` removes them (and the judges' probe cells) from the notebook the
harness sees.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.utils import compute_checksum, is_grade, is_locked, is_solution

from graders.sandbox import CANARY_KEY
from graders.sandbox.execute import Outcome, execute
from graders.sandbox.limits import Limits

# Names that, rebound in the student's namespace, change what a test cell concludes.
# Honest code shadows ``sum`` or ``id``; it has no reason to shadow these.
CRITICAL_BUILTINS = ("AssertionError", "BaseException", "Exception", "isinstance", "issubclass",
                     "print", "all", "any", "abs", "len", "bool", "float", "round", "type",
                     "getattr", "hasattr", "callable", "max", "min")
MODULE_NAMES = {"torch": "torch", "np": "numpy", "numpy": "numpy", "checks": "helpers.checks",
                "helpers": "helpers", "math": "math"}

MUST_FAIL = '''\
from helpers import checks
checks.expect_equal(__A__, __B__, name="result")
'''


@dataclass
class Check:
    """What one run injected, and how to read it back."""

    nonce: str
    prologue: str
    structural: list[str] = field(default_factory=list)

    def findings(self, nb, integrity: bool = True) -> list[str]:
        """Findings from the executed ``nb``; ``integrity=False`` when the prologue failed
        (nothing was captured, so the integrity canaries cannot give a verdict). A change
        seen by several canaries is said once: where it was first seen, and by how many."""
        seen: dict[str, list[str]] = {item: [] for item in self.structural}
        for index, cell in enumerate(nb.cells):
            kind = cell.get("metadata", {}).get(CANARY_KEY)
            if kind is None or not cell.metadata.get("graders_ran"):
                continue  # not a canary, or never reached (timeout/crash stopped the run)
            if kind == "integrity" and integrity:
                for item in _read_integrity(cell):
                    seen.setdefault(item, []).append(_after(nb, index))
            elif kind == "must-fail":
                # any displayed error will do: failures are visible (checks may not even import)
                if not any(o.get("output_type") == "error" and o.get("ename") for o in cell.outputs):
                    seen.setdefault("a check that must fail did not fail: test failures are being hidden", [])
        return [_where(item, places) for item, places in seen.items()]


def _where(item: str, places: list[str]) -> str:
    if not places:
        return item
    if len(places) == 1:
        return f"{item} ({places[0]})"
    return f"{item} (first seen {places[0]}; {len(places)} checks saw it)"


def _after(nb, index) -> str:
    """Where a canary stood: before/after which test cell, or at the end."""
    following = nb.cells[index + 1] if index + 1 < len(nb.cells) else None
    if following is not None and is_test_cell(following):
        return f"before {following.metadata['nbgrader'].get('grade_id')}"
    for cell in reversed(nb.cells[:index]):
        if CANARY_KEY not in cell.get("metadata", {}):
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            return f"after {grade_id}" if grade_id and is_test_cell(cell) else "at the end"
    return "at the start"


def _read_integrity(cell) -> list[str]:
    """What the guard replied to the runner's request for this canary (the runner keeps it in
    the cell's metadata, which the kernel cannot write)."""
    verdict = cell.get("metadata", {}).get("graders_verdict")
    if not isinstance(verdict, list) or not all(isinstance(v, str) for v in verdict):
        return ["the grader's integrity check left no verdict (the kernel guard did not answer: "
                "it was removed or replaced, or the kernel stopped)"]
    return list(verdict)


def _canary(kind: str, source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata[CANARY_KEY] = kind
    return cell


def is_test_cell(cell) -> bool:
    return cell.cell_type == "code" and is_grade(cell) and not is_solution(cell)


def structure(nb) -> list[str]:
    """What OverwriteCells leaves: duplicate grade ids, locked or test cells whose source or
    type no longer matches their recorded checksum."""
    found, seen = [], set()
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader")
        if not meta:
            continue
        grade_id = meta.get("grade_id")
        if grade_id in seen:
            found.append(f"cell id {grade_id} appears more than once")
        seen.add(grade_id)
        if (is_locked(cell) or is_test_cell(cell)) and meta.get("checksum"):
            if compute_checksum(cell) != meta["checksum"]:
                found.append(f"the locked cell {grade_id} was edited")
    return found


def instrument(nb, structural: list[str] | None = None):
    """A copy of ``nb`` with canaries after each test cell and at the end, and its Check.
    ``structural``: the structure findings, when ``nb`` is already a copy made for the kernel
    (graders.autograde.judging splits test cells, so their checksums are the original's)."""
    nonce = secrets.token_hex(16)
    verify = "# the grader's integrity check: a request to the kernel guard, not code\n"
    cells = []
    for cell in nb.cells:
        # before: a patch that restores itself when first used is still in place here
        if is_test_cell(cell):
            cells.append(_canary("integrity", verify))
        cells.append(cell)
        if is_test_cell(cell):
            cells.append(_canary("integrity", verify))
    cells.append(_canary("integrity", verify))
    a = secrets.randbelow(1000)  # values like a test's: nothing tells this check from one
    b = a + 1 + secrets.randbelow(9)
    cells.append(_canary("must-fail", MUST_FAIL.replace("__A__", str(a)).replace("__B__", str(b))))
    run_nb = nbformat.from_dict({**nb, "cells": cells})
    return run_nb, Check(nonce, prologue(nonce), structure(nb) if structural is None else structural)


def prologue(nonce: str) -> str:
    """The kernel's first code: install graders.sandbox.guard under this run's nonce."""
    return ("import graders.sandbox.guard as _graders_guard\n"
            f"_graders_guard.install({nonce!r}, {CRITICAL_BUILTINS!r}, {MODULE_NAMES!r})\n"
            "del _graders_guard\n")


def conclude(outcome: Outcome, check: Check) -> Outcome:
    """Read the canaries' verdicts into ``outcome.findings``; hand back the student's notebook."""
    if outcome.notebook is not None:
        outcome.findings = check.findings(outcome.notebook, integrity=not outcome.prologue_error)
        if outcome.prologue_error:
            outcome.reason += (" (integrity checks unavailable: the grader's prologue failed: "
                               f"{outcome.prologue_error})")
        outcome.notebook = strip(outcome.notebook)
    return outcome


def execute_checked(nb, workdir: Path, limits: Limits | None = None, sandbox: bool = True) -> Outcome:
    """Instrument, execute in the sandbox, conclude: one submission in this process."""
    run_nb, check = instrument(nbformat.from_dict(nb))
    return conclude(execute(run_nb, workdir, limits, sandbox, check.prologue, check.nonce), check)


def strip(nb):
    """The executed notebook without the grader's canaries."""
    nb = nbformat.from_dict(nb)
    nb.cells = [c for c in nb.cells if CANARY_KEY not in c.get("metadata", {})]
    # the kernel counted the canaries too: number the student's cells as a plain run would
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
            for out in cell.get("outputs", []):
                if out.get("output_type") == "execute_result":
                    out["execution_count"] = count
    return nb
